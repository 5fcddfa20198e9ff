use std::sync::Arc;
use std::time::{Duration, Instant};

use orogen_world::World;

use crate::{Config, Error};

/// The stages in the order they run (see the world conventions).
pub const STAGES: &[&str] = &[
    "mesh",
    "elevation",
    "erosion",
    "hydrology",
    "biome",
    "flora",
];

/// Wall time per stage of one run, in stage order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timings {
    /// Each stage's name and wall time, in the order run.
    pub stages: Vec<(&'static str, Duration)>,
    /// Stages that ran beside the export ([`crate::generate_run`]): their wall time is within
    /// the `export` entry's, not added to the total.
    pub beside_export: Vec<(&'static str, Duration)>,
}

impl Timings {
    /// The sum of the stages' times (a stage beside the export counted in the export's).
    pub fn total(&self) -> Duration {
        self.stages.iter().map(|(_, d)| *d).sum()
    }

    /// Times `f` as stage `name`, inside a `tracing` span of that name.
    pub fn run<T>(
        &mut self,
        name: &'static str,
        f: impl FnOnce() -> Result<T, Error>,
    ) -> Result<T, Error> {
        let span = tracing::info_span!("stage", name);
        let _enter = span.enter();
        let start = Instant::now();
        let out = f()?;
        let elapsed = start.elapsed();
        tracing::info!(stage = name, ms = elapsed.as_secs_f64() * 1e3, "stage done");
        self.stages.push((name, elapsed));
        Ok(out)
    }
}

/// Runs the stages the config's outputs need ([`needed_stages`]: every stage for the default
/// outputs) on a new world. Parameters are validated first, before any work.
pub fn generate(config: &Config) -> Result<World, Error> {
    generate_timed(config).map(|(world, _)| world)
}

/// [`generate`], also returning the wall time of each stage.
pub fn generate_timed(config: &Config) -> Result<(World, Timings), Error> {
    generate_observed(config, &mut |_| {})
}

/// [`generate_timed`], calling `on_stage` with each stage's name before it runs (for progress
/// bars). Stages no chosen output needs ([`needed_stages`]) do not run.
pub fn generate_observed(
    config: &Config,
    on_stage: &mut dyn FnMut(&'static str),
) -> Result<(World, Timings), Error> {
    config.validate()?;
    if config.pipeline() == crate::Pipeline::Classic {
        return crate::classic::generate(config, on_stage);
    }
    let stages = needed_stages(config)?;
    generate_before(config, STAGES.get(stages.len()).copied(), on_stage)
}

/// The mesh pipeline's stages before `until` (all with `None`) on a new world.
pub(crate) fn generate_before(
    config: &Config,
    until: Option<&str>,
    on_stage: &mut dyn FnMut(&'static str),
) -> Result<(World, Timings), Error> {
    let mut timings = Timings::default();
    on_stage(STAGES[0]);
    let mut world = generate_mesh(config, &mut timings)?;
    generate_rest_observed(config, &mut world, &mut timings, until, on_stage)?;
    Ok((world, timings))
}

/// The mesh stage alone: a new world holding its mesh. The mesh depends only on the seed, the
/// cell count, the map size and the mesh parameters, so a caller may keep this world and run
/// [`generate_rest`] on a copy of it when only later stages' parameters change (as
/// `orogen serve` does). Does not validate: call [`Config::validate`] first.
pub fn generate_mesh(config: &Config, timings: &mut Timings) -> Result<World, Error> {
    let world = generate_mesh_until(config, timings, &|| false)?;
    Ok(world.expect("never stopped"))
}

/// [`generate_mesh`], asking `stop` between the mesh stage's parts (after the triangulation,
/// between Lloyd iterations, before the build): `Ok(None)` when it said so.
pub fn generate_mesh_until(
    config: &Config,
    timings: &mut Timings,
    stop: &dyn Fn() -> bool,
) -> Result<Option<World>, Error> {
    let mut world = World::new(config.world.meta());
    let done = timings.run("mesh", || {
        run_stage_reusing("mesh", &mut world, config, &mut Reuse::default(), stop)
    })?;
    Ok(done.then_some(world))
}

/// Every stage after the mesh, on a world from [`generate_mesh`] made with the same seed, cell
/// count, map size and mesh parameters. The world's other fixed parts (water level, metres)
/// are taken from `config`. Does not validate: call [`Config::validate`] first.
pub fn generate_rest(
    config: &Config,
    world: &mut World,
    timings: &mut Timings,
) -> Result<(), Error> {
    generate_rest_until(config, world, timings, None)
}

/// [`generate_rest`], stopping before stage `until` (one of [`STAGES`]; `None` runs them all):
/// the playground skips flora while flora is not shown.
pub fn generate_rest_until(
    config: &Config,
    world: &mut World,
    timings: &mut Timings,
    until: Option<&str>,
) -> Result<(), Error> {
    generate_rest_observed(config, world, timings, until, &mut |_| {})
}

fn generate_rest_observed(
    config: &Config,
    world: &mut World,
    timings: &mut Timings,
    until: Option<&str>,
    on_stage: &mut dyn FnMut(&'static str),
) -> Result<(), Error> {
    world.meta = config.world.meta();
    for &stage in STAGES.iter().skip(1).take_while(|&&s| Some(s) != until) {
        on_stage(stage);
        timings.run(stage, || run_stage(stage, world, config))?;
    }
    Ok(())
}

/// What each stage writes: world layers, and `mesh` for the dual mesh itself. A later stage may
/// overwrite an earlier stage's layer (erosion rewrites the elevation; hydrology, carving,
/// lowers `corner_elevation`), so a layer is final only after the last stage that writes it.
/// Tested against what the stages really write.
pub fn stage_writes(stage: &str, config: &Config) -> &'static [&'static str] {
    match stage {
        "mesh" => &["mesh", "region_area", "region_polygon", "lloyd_area_cv"],
        "elevation" => &[
            "region_elevation",
            "corner_elevation",
            "region_water",
            "land_anchors",
            "raster_elevation",
        ],
        "erosion" if config.erosion.mode == orogen_hydrology::erosion::Mode::Off => &[],
        "erosion" => &["region_elevation", "corner_elevation"],
        "hydrology"
            if config.hydrology.depressions == orogen_hydrology::graph::Depressions::Carve =>
        {
            &HYDROLOGY_WRITES
        }
        "hydrology" => &HYDROLOGY_WRITES[1..],
        "biome" => &["region_moisture", "region_biome", "biome_color_table"],
        "flora" => &FLORA_WRITES,
        _ => &[],
    }
}

/// The flora stage's layers: its instances', then its tree models'.
const FLORA_WRITES: [&str; 11] = [
    "flora_xy",
    "flora_species",
    "flora_size",
    "flora_model",
    "flora_seed",
    "flora_region",
    "tree_nodes",
    "tree_parent",
    "tree_nodes_2d",
    "tree_parent_2d",
    "tree_model_species",
];

/// How many of [`FLORA_WRITES`] are the instances' layers.
const FLORA_INSTANCE_LAYERS: usize = 6;

/// Whether a chosen output reads the flora stage's tree models (`glb`, and the outputs that
/// read every layer: `npz`, `geojson`). Without one, [`crate::generate_run`] (which writes the
/// chosen files and hands back a world holding what they read) places the stage's instances
/// only ([`orogen_flora::plant_instances`]: the same instances, no `tree_*` layers): the
/// preview and the maps show trees as points. [`run_stage`] and [`generate`] run the whole
/// stage. An unreadable output list counts as reading them.
pub fn flora_models_read(config: &Config) -> bool {
    let models = &FLORA_WRITES[FLORA_INSTANCE_LAYERS..];
    config.outputs().map_or(true, |outputs| {
        outputs
            .iter()
            .any(|o| o.reads().iter().any(|r| *r == "*" || models.contains(r)))
    })
}

/// The flora stage as [`crate::generate_run`] needs it for `config`'s outputs (see
/// [`flora_models_read`]), on a world it only reads.
pub(crate) fn plant(
    world: &World,
    config: &Config,
) -> Result<orogen_flora::Planted, orogen_flora::Error> {
    if flora_models_read(config) {
        orogen_flora::plant(world, &config.flora)
    } else {
        orogen_flora::plant_instances(world, &config.flora)
    }
}

/// The hydrology stage's layers; the first only when it carves.
const HYDROLOGY_WRITES: [&str; 15] = [
    "corner_elevation",
    "corner_filled",
    "corner_downstream",
    "corner_flow",
    "corner_sea_hops",
    "corner_sea_distance",
    "corner_lake",
    "region_lake",
    "lake_surface",
    "lake_outlet",
    "rivers",
    "river_flow",
    "river_width",
    "river_opacity",
    "river_on_lake",
];

/// What `world.json`, written on every run, reads: the elevation (its sampling grid and height
/// mapping).
pub const WORLD_JSON_READS: &[&str] = &["mesh", "region_elevation", "corner_elevation"];

/// What the flora stage reads (the mesh pipeline's; the classic one reads `raster_elevation`):
/// where it may grow (`region_biome`, `region_water`) and the rivers it keeps clear of. Tested
/// against what the stage really reads.
pub const FLORA_READS: &[&str] = &["mesh", "region_biome", "region_water", "rivers"];

/// Removes from `world` every layer that neither a chosen output ([`crate::Output::reads`]) nor
/// `world.json` reads, nor `beside` (what a stage run beside the export reads): the working
/// layers of the stages (hydrology's fill, flow and distances, the cells' areas: 50 MB at
/// 1,000,000 cells) would otherwise stay alive through the export. Returns their names.
pub(crate) fn drop_unread(
    world: &mut World,
    config: &Config,
    beside: &[&str],
) -> Result<Vec<String>, Error> {
    let outputs = config.outputs()?;
    let read = |layer: &str| {
        WORLD_JSON_READS.contains(&layer)
            || beside.contains(&layer)
            || outputs
                .iter()
                .any(|o| o.reads().iter().any(|&r| r == layer || r == "*"))
    };
    let unread: Vec<String> = world
        .layers()
        .map(|(name, _)| name)
        .filter(|name| !read(name))
        .map(str::to_owned)
        .collect();
    for name in &unread {
        world.remove_layer(name);
    }
    Ok(unread)
}

/// The stages a run of `config` needs, a prefix of [`STAGES`]: up to the last stage that
/// writes a layer one of the chosen outputs reads ([`crate::Output::reads`]; `world.json` reads the
/// elevation). Flora runs only when an output shows trees; hydrology and biome only when an
/// output reads their layers.
pub fn needed_stages(config: &Config) -> Result<&'static [&'static str], Error> {
    let outputs = config.outputs()?;
    let reads = |layer: &str| {
        WORLD_JSON_READS.contains(&layer)
            || outputs
                .iter()
                .any(|o| o.reads().iter().any(|&r| r == layer || r == "*"))
    };
    let last = STAGES
        .iter()
        .rposition(|stage| stage_writes(stage, config).iter().any(|l| reads(l)))
        .unwrap_or(0);
    Ok(&STAGES[..=last])
}

/// Runs one stage on a world that holds what the stage reads (a fresh world for `mesh`; a
/// world from a run or a `.npz` for the others). Used by [`generate`] and by `orogen profile`.
pub fn run_stage(stage: &str, world: &mut World, config: &Config) -> Result<(), Error> {
    run_stage_reusing(stage, world, config, &mut Reuse::default(), &|| false).map(|_| ())
}

/// The biome stage's parameters as the pipeline runs them: the moisture noise follows the
/// elevation's noise scale (at `biome.scale_factor` times it).
fn biome_params(config: &Config) -> orogen_biome::Params {
    orogen_biome::Params {
        noise_scale: config.elevation.fbm.noise_scale,
        ..config.biome.clone()
    }
}

/// What runs on one mesh may keep for the next runs on the same mesh: the parts of stages
/// that the changed parameters cannot affect, each with the key of the inputs it was made
/// from (so a stale part is never used). Today: the elevation stage's base heights (all but
/// the water level and the power curve: `orogen_elevation::Base`) and the biome stage's
/// moisture noise and colour table (all but the water level and the moisture shaping:
/// `orogen_biome::Prepared`). The playground keeps one per cached mesh, and starts a new mesh
/// from the last one's: the colour table does not depend on the mesh, and the keys keep every
/// other part from serving another mesh.
#[derive(Clone, Debug, Default)]
pub struct Reuse {
    elevation: Option<(String, Arc<orogen_elevation::Base>)>,
    biome: Option<(String, Arc<orogen_biome::Prepared>)>,
}

fn key_of(value: &serde_json::Value) -> String {
    value.to_string()
}

/// Every stage after the mesh, as [`generate_rest_until`], reusing what `reuse` holds for the
/// same inputs and keeping there what this run computed; `stop` is asked between stages and
/// between the parts of a stage, and a `true` ends the run early (`Ok(false)`: the world is
/// then incomplete). The result is the same world as [`generate_rest_until`]'s.
pub fn generate_rest_reusing(
    config: &Config,
    world: &mut World,
    timings: &mut Timings,
    until: Option<&str>,
    reuse: &mut Reuse,
    stop: &dyn Fn() -> bool,
) -> Result<bool, Error> {
    world.meta = config.world.meta();
    for &stage in STAGES.iter().skip(1).take_while(|&&s| Some(s) != until) {
        if stop() {
            return Ok(false);
        }
        let done = timings.run(stage, || {
            run_stage_reusing(stage, world, config, reuse, stop)
        })?;
        if !done {
            return Ok(false);
        }
    }
    Ok(true)
}

/// [`run_stage`] with a [`Reuse`] and a stop check (see [`generate_rest_reusing`]); `Ok(false)`
/// when stopped.
fn run_stage_reusing(
    stage: &str,
    world: &mut World,
    config: &Config,
    reuse: &mut Reuse,
    stop: &dyn Fn() -> bool,
) -> Result<bool, Error> {
    // The mesh's inputs: every key below includes them.
    let mesh_inputs = serde_json::json!([
        config.world.seed,
        config.world.cells,
        config.world.width,
        config.world.height,
        config.mesh
    ]);
    match stage {
        "mesh" => {
            if !orogen_mesh::run_until(world, &config.mesh, config.world.cells, stop)? {
                return Ok(false);
            }
        }
        "elevation" => {
            let mut params = config.elevation.clone();
            params.curve = Default::default();
            let key = key_of(&serde_json::json!([mesh_inputs, params]));
            let base = match &reuse.elevation {
                Some((k, base)) if *k == key => Arc::clone(base),
                _ => {
                    let base = Arc::new(orogen_elevation::base(world, &config.elevation)?);
                    reuse.elevation = Some((key, Arc::clone(&base)));
                    base
                }
            };
            if stop() {
                return Ok(false);
            }
            orogen_elevation::run_on_base(world, &config.elevation, &base)?
        }
        // Rivers carve valleys (nothing when `erosion.mode` is off).
        "erosion" => {
            orogen_hydrology::erosion::run(world, &config.erosion)?;
        }
        // Routing, lakes, flow and rivers on the mesh (biome reads the lakes and rivers).
        "hydrology" => orogen_hydrology::graph::run(world, &config.hydrology)?,
        "biome" => {
            let biome = biome_params(config);
            let key = key_of(&serde_json::json!([
                mesh_inputs,
                biome.noise_scale,
                biome.scale_factor,
                biome.offset,
                biome.octaves,
                biome.whittaker,
                biome.palette,
                biome.blur_sigma
            ]));
            let prepared = match &reuse.biome {
                Some((k, prepared)) if *k == key => Arc::clone(prepared),
                // Made for another mesh or noise: its colour table may still serve.
                earlier => {
                    let earlier = earlier.as_ref().map(|(_, p)| &**p);
                    let prepared = Arc::new(orogen_biome::prepare_reusing(world, &biome, earlier)?);
                    reuse.biome = Some((key, Arc::clone(&prepared)));
                    prepared
                }
            };
            if stop() {
                return Ok(false);
            }
            orogen_biome::run_prepared(world, &biome, &prepared)?
        }
        "flora" => orogen_flora::run(world, &config.flora)?,
        other => {
            return Err(Error::Param(orogen_world::params::ParamError::new(
                "stage",
                other,
                STAGES.join(", "),
            )));
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::{Output, Pipeline};

    fn small(outputs: &[Output]) -> Config {
        let mut config = Config::default();
        config.world.cells = 1500;
        config.export.resolution = 96;
        config.export.preview_width = 160;
        config.export.outputs = outputs.to_vec();
        config
    }

    fn carving(mut config: Config) -> Config {
        config.hydrology.depressions = orogen_hydrology::graph::Depressions::Carve;
        config
    }

    #[test]
    fn every_stage_runs_in_order_and_flora_follows_the_biome_map() {
        let mut config = Config::default();
        config.world.cells = 2000;
        let (world, timings) = generate_timed(&config).unwrap();
        let ran: Vec<&str> = timings.stages.iter().map(|(name, _)| *name).collect();
        assert_eq!(ran, STAGES);
        // Flora placed plants, each in a region whose biome grows them (not water).
        let regions = world.view1::<u32>("flora_region").unwrap();
        assert!(regions.len() > 100, "only {} plants", regions.len());
        let biome = world.view1::<u8>("region_biome").unwrap();
        let water = [
            orogen_world::ids::Biome::Ocean.id(),
            orogen_world::ids::Biome::Lake.id(),
        ];
        assert!(regions.iter().all(|&r| !water.contains(&biome[r as usize])));
        // Without a biome map the flora stage refuses to run (it needs one).
        let mut bare = world.clone();
        bare.remove_layer("region_biome");
        assert!(run_stage("flora", &mut bare, &config).is_err());
    }

    /// The layers (and `mesh`) whose content running `stage` changed, added or removed.
    fn changed_by(stage: &str, world: &mut World, config: &Config) -> BTreeSet<String> {
        let before: Vec<(String, orogen_world::Layer)> = world
            .layers()
            .map(|(n, l)| (n.to_owned(), l.clone()))
            .collect();
        let mesh_before = world.mesh().ok().cloned();
        run_stage(stage, world, config).unwrap();
        let mut changed: BTreeSet<String> = world
            .layers()
            .filter(|(n, l)| !before.iter().any(|(b, bl)| b == n && bl == *l))
            .map(|(n, _)| n.to_owned())
            .collect();
        changed.extend(
            before
                .iter()
                .filter(|(b, _)| !world.has_layer(b))
                .map(|(b, _)| b.clone()),
        );
        if world.mesh().ok() != mesh_before.as_ref() {
            changed.insert("mesh".into());
        }
        changed
    }

    #[test]
    fn stage_writes_is_what_each_stage_writes() {
        let mut eroded = small(&[]);
        eroded.erosion.mode = orogen_hydrology::erosion::Mode::Transient;
        eroded.erosion.steps = 5;
        for config in [small(&[]), carving(small(&[])), eroded] {
            let mut world = World::new(config.world.meta());
            for &stage in STAGES {
                let changed = changed_by(stage, &mut world, &config);
                let listed = stage_writes(stage, &config);
                for layer in &changed {
                    assert!(listed.contains(&layer.as_str()), "{stage} writes {layer}");
                }
                for layer in listed {
                    // `raster_elevation` exists only for raster-based elevation modes.
                    let present = *layer == "mesh" && world.has_mesh() || world.has_layer(layer);
                    assert!(present || *layer == "raster_elevation", "{stage}: {layer}");
                }
                assert!(
                    !changed.is_empty() || listed.is_empty(),
                    "{stage} changed nothing"
                );
            }
            // Carving really lowers corners, so the heightmaps need hydrology in that mode.
            let carves =
                config.hydrology.depressions == orogen_hydrology::graph::Depressions::Carve;
            let mut again = World::new(config.world.meta());
            for &stage in &STAGES[..2] {
                run_stage(stage, &mut again, &config).unwrap();
            }
            let changed = changed_by("hydrology", &mut again, &config);
            assert_eq!(changed.contains("corner_elevation"), carves);
        }
    }

    #[test]
    fn needed_stages_follow_the_outputs() {
        use Output::*;
        let needed = |outputs: &[Output]| needed_stages(&small(outputs)).unwrap();
        assert_eq!(needed(&[]), ["mesh", "elevation"]);
        assert_eq!(needed(&[Heightmap, R16, Exr, Mesh]), ["mesh", "elevation"]);
        // (erosion, off by default, writes nothing but sits before hydrology.)
        assert_eq!(needed(&[Rivers]), &STAGES[..4]);
        assert_eq!(needed(&[Heightmap, Colormap, Biomes]), &STAGES[..5]);
        assert_eq!(needed(&[Splat]), &STAGES[..5]);
        for trees in [Preview3d, Glb, Geojson, Npz, Default, All] {
            assert_eq!(needed(&[trees]), STAGES, "{trees:?}");
        }
        let carve = needed_stages(&carving(small(&[Heightmap]))).unwrap();
        assert_eq!(carve, &STAGES[..4]);
        let mut eroded = small(&[Heightmap]);
        eroded.erosion.mode = orogen_hydrology::erosion::Mode::Transient;
        assert_eq!(needed_stages(&eroded).unwrap(), &STAGES[..3]);
        let (_, timings) = generate_timed(&small(&[Heightmap])).unwrap();
        let ran: Vec<&str> = timings.stages.iter().map(|(n, _)| *n).collect();
        assert_eq!(ran, ["mesh", "elevation"]);
    }

    /// The files of `config`'s outputs written from `world`, by name.
    fn files(world: &World, config: &Config) -> Vec<(String, Vec<u8>)> {
        let dir = tempfile::tempdir().unwrap();
        let names = crate::write_outputs(world, config, dir.path()).unwrap();
        names
            .into_iter()
            .map(|n| {
                let bytes = std::fs::read(dir.path().join(&n)).unwrap();
                (n, bytes)
            })
            .collect()
    }

    #[test]
    fn each_output_alone_is_the_same_bytes_as_after_every_stage() {
        for config in [small(&[]), carving(small(&[]))] {
            let mut everything = config.clone();
            everything.export.outputs = vec![Output::All];
            let full = generate(&everything).unwrap();
            assert!(full.has_layer("flora_xy"));
            let mut skipped_any = false;
            for &output in Pipeline::Mesh.possible_outputs() {
                let mut alone = config.clone();
                alone.export.outputs = vec![output];
                // As `orogen generate` runs it: the stages no output needs skipped, the
                // layers no output reads dropped before the export.
                let dir = tempfile::tempdir().unwrap();
                let (_, written, timings) =
                    crate::generate_run(&alone, dir.path(), &mut |_| {}).unwrap();
                let ran = timings.stages.len() - 1 + timings.beside_export.len();
                skipped_any |= ran < STAGES.len();
                let got: Vec<(String, Vec<u8>)> = written
                    .files
                    .iter()
                    .map(|n| (n.clone(), std::fs::read(dir.path().join(n)).unwrap()))
                    .collect();
                assert!(got.len() >= 2, "{output:?} wrote only world.json");
                assert!(got == files(&full, &alone), "{output:?} differs");
            }
            assert!(skipped_any);
        }
    }

    /// The flora stage on a world holding only [`FLORA_READS`] (and `drop_unread` keeping
    /// them) plants the same trees as on the whole world.
    #[test]
    fn flora_reads_what_flora_reads_says() {
        let config = small(&[Output::Colormap]);
        let (whole, _) = generate_before(&config, Some("flora"), &mut |_| {}).unwrap();
        let mut only = whole.clone();
        let dropped = drop_unread(&mut only, &config, FLORA_READS).unwrap();
        assert!(
            FLORA_READS
                .iter()
                .all(|&l| l == "mesh" || only.has_layer(l))
        );
        for name in whole.layers().map(|(n, _)| n) {
            if !FLORA_READS.contains(&name) {
                only.remove_layer(name);
            }
        }
        assert!(dropped.iter().any(|n| n == "corner_filled"), "{dropped:?}");
        let mut planted = [whole, only];
        for world in &mut planted {
            run_stage("flora", world, &config).unwrap();
        }
        let grown = stage_writes("flora", &config);
        assert!(planted[0].view1::<u32>("flora_species").unwrap().len() > 100);
        for layer in grown {
            assert_eq!(planted[0].layer(layer), planted[1].layer(layer), "{layer}");
        }
    }

    /// `generate_run` grows the flora stage's tree models only for an output that reads them
    /// (`glb`, `npz`, `geojson`), and the instances are the same either way (the models' growth
    /// draws nothing the placement uses); `run_stage` grows them whatever the outputs.
    #[test]
    fn flora_grows_models_only_for_the_outputs_that_read_them() {
        use Output::*;
        for (outputs, models) in [
            (vec![], false),
            (vec![Preview3d, Colormap, Heightmap, Splat], false),
            (vec![Glb], true),
            (vec![Npz], true),
            (vec![Geojson, Heightmap], true),
            (vec![All], true),
        ] {
            assert_eq!(flora_models_read(&small(&outputs)), models, "{outputs:?}");
        }
        // At 96 px the flora stage runs beside the outputs; at 2304 px (rasters above 2048 px
        // are written one at a time) before them, and the world handed back drops the layers
        // no output reads, so there only the instances' equality is seen here.
        let run = |outputs: &[Output], resolution: usize| {
            let mut config = small(outputs);
            config.export.resolution = resolution;
            let dir = tempfile::tempdir().unwrap();
            let (world, _, timings) =
                crate::generate_run(&config, dir.path(), &mut |_| {}).unwrap();
            let beside = timings.beside_export.iter().any(|(n, _)| *n == "flora");
            assert_eq!(beside, resolution <= 2048, "{outputs:?} at {resolution} px");
            world
        };
        let (points, meshes) = (run(&[Preview3d], 96), run(&[Glb], 96));
        let (points_big, meshes_big) = (run(&[Preview3d], 2304), run(&[Glb], 2304));
        let mut staged = World::new(small(&[]).world.meta());
        for &stage in STAGES {
            run_stage(stage, &mut staged, &small(&[Preview3d])).unwrap();
        }
        assert!(points.view1::<u32>("flora_species").unwrap().len() > 100);
        // (The world handed back keeps what the outputs read: before the stage runs beside
        // them it drops only what neither they nor the stage read.)
        for layer in &FLORA_WRITES[..FLORA_INSTANCE_LAYERS] {
            for other in [&meshes, &points_big, &meshes_big] {
                if other.has_layer(layer) || Output::Preview3d.reads().contains(layer) {
                    assert_eq!(points.layer(layer), other.layer(layer), "{layer}");
                }
            }
        }
        for layer in &FLORA_WRITES[FLORA_INSTANCE_LAYERS..] {
            assert!(
                !points.has_layer(layer) && !points_big.has_layer(layer),
                "{layer}"
            );
            assert_eq!(staged.layer(layer), meshes.layer(layer), "{layer}");
            assert_eq!(staged.layer(layer), meshes_big.layer(layer), "{layer}");
            assert!(meshes.has_layer(layer), "{layer}");
        }
        assert!(meshes.offsets("tree_nodes").unwrap().len() > 1);
    }

    /// `generate_run` (the flora stage beside the outputs that show no trees) writes the files
    /// of generating, then writing: the same names in the same order, the same bytes, from a
    /// world without the layers no output reads (dropped before the export; all of them kept
    /// for `--outputs all`); with no output showing trees, nothing runs beside the export.
    #[test]
    fn generating_and_writing_together_is_the_same_as_one_after_the_other() {
        use Output::*;
        for outputs in [
            vec![All],
            vec![Preview3d, Heightmap, Colormap],
            vec![Heightmap, Splat],
        ] {
            let config = small(&outputs);
            let world = generate(&config).unwrap();
            let expected = files(&world, &config);
            let dir = tempfile::tempdir().unwrap();
            let (together, written, timings) =
                crate::generate_run(&config, dir.path(), &mut |_| {}).unwrap();
            let got: Vec<(String, Vec<u8>)> = written
                .files
                .iter()
                .map(|n| (n.clone(), std::fs::read(dir.path().join(n)).unwrap()))
                .collect();
            assert!(got == expected, "{outputs:?}: the files differ");
            let layers = |w: &World| {
                let mut names: Vec<String> = w.layers().map(|(n, _)| n.to_owned()).collect();
                names.sort();
                names
            };
            let (kept, all) = (layers(&together), layers(&world));
            assert!(kept.iter().all(|l| all.contains(l)), "{outputs:?}");
            if outputs == [All] {
                assert_eq!(kept, all);
            } else {
                assert!(
                    !kept.contains(&"corner_filled".to_owned()),
                    "{outputs:?}: {kept:?}"
                );
                assert!(kept.len() < all.len(), "{outputs:?}");
            }
            let trees = outputs != [Heightmap, Splat];
            assert_eq!(together.has_layer("flora_xy"), trees, "{outputs:?}");
            let beside: Vec<&str> = timings.beside_export.iter().map(|(n, _)| *n).collect();
            assert_eq!(beside, if trees { vec!["flora"] } else { vec![] });
            assert_eq!(timings.stages.last().map(|(n, _)| *n), Some("export"));
        }
    }
}
