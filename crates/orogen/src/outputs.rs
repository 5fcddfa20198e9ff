use std::path::Path;
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;

use orogen_export::atomic::OutDir;
use orogen_export::grid::PixelGrid;
use orogen_export::heightmap;
use orogen_export::heights;
use orogen_export::sidecar::HeightMapping;
use orogen_export::sidecar::SamplingJson;
use orogen_export::sidecar::WorldJson;
use orogen_export::{colormap, geojson, png};
use orogen_world::World;

use crate::{Config, Error};

/// What a run wrote into its folder, and what of the previous run's it removed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// The files written, `world.json` last.
    pub files: Vec<String>,
    /// Files the previous run listed in its `world.json` that this run did not write.
    pub removed: Vec<String>,
}

/// [`write_outputs`], then the folder's previous orogen files that this run did not write are
/// removed: only names the previous `world.json` (an orogen sidecar) lists under `files`, plain
/// file names in the folder itself; nothing else is ever touched. A run owns the files it
/// writes, so no stale `colormap.png` stays beside a classic run's `landscape.png`.
pub fn write_run(world: &World, config: &Config, dir: &Path) -> Result<Written, Error> {
    let previous = previous_files(dir);
    let files = write_outputs(world, config, dir)?;
    remove_previous(dir, previous, files)
}

/// Generates a world ([`crate::generate_observed`], `on_stage` called before each stage and
/// before `export`) and writes its outputs as [`write_run`] does. When an output needs the flora
/// stage and the outputs run side by side (rasters up to 2048 px, or larger for a world
/// larger than them), the stage runs beside the
/// outputs that show no trees (they do not read its layers), the preview is rendered from the
/// planted trees beside them too, then the other outputs that show trees are written: the same
/// files as generating, then writing, in less time.
/// The timings end with `export`, the flora stage's own time within it
/// ([`Timings::beside_export`](crate::Timings::beside_export)). Before the export, the layers
/// no chosen output reads are dropped (the stages' working layers: less memory while the
/// outputs are written); the world returned holds what the outputs read.
pub fn generate_run(
    config: &Config,
    dir: &Path,
    on_stage: &mut dyn FnMut(&'static str),
) -> Result<(World, Written, crate::Timings), Error> {
    config.validate()?;
    // Beside the export only while its jobs run side by side: above that they run one at a
    // time to bound the peak memory, and nothing would run beside them.
    let trees = config.pipeline() == crate::Pipeline::Mesh
        && crate::pipeline::needed_stages(config)?.contains(&"flora");
    if !(trees && side_by_side(config)) {
        let (mut world, mut timings) = if trees {
            // The flora stage (the last) as the outputs need it: its tree models only for
            // those that read them.
            let (mut world, mut timings) =
                crate::pipeline::generate_before(config, Some("flora"), on_stage)?;
            on_stage("flora");
            timings.run("flora", || {
                Ok(crate::pipeline::plant(&world, config)?.write(&mut world)?)
            })?;
            (world, timings)
        } else {
            crate::generate_observed(config, on_stage)?
        };
        crate::pipeline::drop_unread(&mut world, config, &[])?;
        on_stage("export");
        let start = std::time::Instant::now();
        let written = write_run(&world, config, dir)?;
        timings.stages.push(("export", start.elapsed()));
        return Ok((world, written, timings));
    }
    let (mut world, mut timings) =
        crate::pipeline::generate_before(config, Some("flora"), on_stage)?;
    crate::pipeline::drop_unread(&mut world, config, crate::pipeline::FLORA_READS)?;
    on_stage("export");
    let start = std::time::Instant::now();
    let previous = previous_files(dir);
    let (files, planting) = write_outputs_planting(&mut world, config, dir)?;
    let written = remove_previous(dir, previous, files)?;
    timings.stages.push(("export", start.elapsed()));
    timings.beside_export.push(("flora", planting));
    Ok((world, written, timings))
}

/// Removes the files of the previous run (`previous`) that this run (`files`) did not write.
fn remove_previous(
    dir: &Path,
    previous: Vec<String>,
    files: Vec<String>,
) -> Result<Written, Error> {
    let mut removed = Vec::new();
    for name in previous {
        let path = dir.join(&name);
        if files.contains(&name) || !path.is_file() {
            continue;
        }
        std::fs::remove_file(&path).map_err(|e| Error::Input {
            what: format!("output folder {}", dir.display()),
            message: format!(
                "cannot remove {name}, written by the previous run: {}",
                crate::error::io_message(&e)
            ),
        })?;
        removed.push(name);
    }
    Ok(Written { files, removed })
}

/// The files the folder's `world.json` lists, when it is an orogen sidecar; only plain names
/// (no folders, no hidden files).
fn previous_files(dir: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(dir.join("world.json")) else {
        return Vec::new();
    };
    let Ok(sidecar) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    if sidecar.get("orogen_version").is_none() {
        return Vec::new();
    }
    sidecar["files"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f.as_str())
        .filter(|name| {
            !name.is_empty()
                && !name.starts_with('.')
                && !name.contains(['/', '\\'])
                && *name != "world.json"
        })
        .map(str::to_owned)
        .collect()
}

/// Writes every output of a world into `dir`: each is staged under a temporary name, then all
/// are renamed into place together, `world.json` (listing the others) last, so an interrupted
/// run leaves the previous outputs as they were. Returns the names written.
pub fn write_outputs(world: &World, config: &Config, dir: &Path) -> Result<Vec<String>, Error> {
    write_outputs_as(world, config, dir, side_by_side(config))
}

/// [`write_outputs`] with its jobs side by side or one at a time, as `side_by_side` says (the
/// same files either way).
fn write_outputs_as(
    world: &World,
    config: &Config,
    dir: &Path,
    side_by_side: bool,
) -> Result<Vec<String>, Error> {
    let out = OutDir::create(dir)?;
    let shared = Shared::new(config);
    let parts = run_jobs(world, config, &out, &shared, side_by_side, &|_| true)?;
    finish(world, config, out, parts, shared)
}

/// [`write_outputs`] of a world whose flora stage has not run yet: the stage (`flora`) runs
/// beside the outputs that show no trees, and the preview is rendered from the planted trees
/// as soon as they stand; then the stage's layers are written into the world and the other
/// outputs that show trees are written. The same files as running the stage, then
/// [`write_outputs`]. Returns the names written and the stage's own
/// wall time (within the export's).
fn write_outputs_planting(
    world: &mut World,
    config: &Config,
    dir: &Path,
) -> Result<(Vec<String>, std::time::Duration), Error> {
    let out = OutDir::create(dir)?;
    let shared = Shared::new(config);
    let trees = crate::pipeline::stage_writes("flora", config);
    let shows_trees = |o: crate::Output| o.reads().iter().any(|r| *r == "*" || trees.contains(r));
    // The preview reads nothing of the stage but the trees' places: its terrain is made beside
    // the stage, and it is rendered from the planted trees as soon as they stand, beside the
    // outputs that show no trees (the same bytes as after writing the stage's layers).
    let preview = config.outputs()?.contains(&crate::Output::Preview3d)
        && world.has_layer("region_elevation")
        && world.has_layer("corner_elevation");
    let preview_options = config
        .export
        .preview_options(Some(colormap_options(config)));
    // Side by side (`generate_run` plants beside the outputs only when they run so): the
    // stage first on this thread (a serial chain, from the export's start), the jobs (the
    // shared shore first) on the others.
    let ((planted, elapsed, previewed), parts) = {
        let world = &*world;
        let out = &out;
        rayon::join(
            || {
                let ((planted, elapsed), terrain) = rayon::join(
                    || {
                        let start = std::time::Instant::now();
                        let planted = crate::pipeline::plant(world, config);
                        (planted, start.elapsed())
                    },
                    || {
                        preview.then(|| {
                            orogen_export::preview3d::preview_terrain(world, &preview_options)
                        })
                    },
                );
                let previewed = match (&planted, terrain) {
                    (Ok(planted), Some(terrain)) => Some(write_preview_part(
                        world,
                        out,
                        terrain,
                        &planted.instances().xy,
                        &preview_options,
                    )),
                    _ => None,
                };
                (planted, elapsed, previewed)
            },
            || run_jobs(world, config, out, &shared, true, &|o| !shows_trees(o)),
        )
    };
    let mut parts = parts?;
    planted?.write(world)?;
    parts.extend(previewed.transpose()?);
    parts.extend(run_jobs(world, config, &out, &shared, true, &|o| {
        shows_trees(o) && !(preview && o == crate::Output::Preview3d)
    })?);
    Ok((finish(world, config, out, parts, shared)?, elapsed))
}

/// `preview3d.png` from its terrain made earlier and the trees at `trees`, written into a part
/// of `out` with the preview's place in [`finish`]'s order.
fn write_preview_part(
    world: &World,
    out: &OutDir,
    terrain: Result<orogen_export::preview3d::PreviewTerrain, orogen_export::ExportError>,
    trees: &[[f64; 2]],
    options: &orogen_export::preview3d::PreviewOptions,
) -> Result<(usize, OutDir), Error> {
    let mut part = out.fork();
    orogen_export::preview3d::write_rendered_with_trees(
        &mut part, world, terrain?, trees, options,
    )?;
    Ok((PREVIEW_PART, part))
}

/// The preview's place in the order [`finish`] absorbs the jobs' parts in.
const PREVIEW_PART: usize = 10;

/// What the jobs of one run share: the config as JSON (for `world.npz` and `world.json`) and
/// what they hand back for `world.json`.
struct Shared {
    config_json: serde_json::Value,
    landscape_sampling: OnceLock<SamplingJson>,
    written_mapping: OnceLock<HeightMapping>,
}

impl Shared {
    fn new(config: &Config) -> Shared {
        Shared {
            config_json: serde_json::to_value(config).expect("a config always serialises"),
            landscape_sampling: OnceLock::new(),
            written_mapping: OnceLock::new(),
        }
    }
}

/// Runs the jobs of the config's outputs that `pick` keeps (side by side when `side_by_side`,
/// else one at a time), each writing into its own part of `out`; returns the parts with each
/// job's place in the order [`finish`] absorbs them (the same order whichever were picked).
fn run_jobs(
    world: &World,
    config: &Config,
    out: &OutDir,
    shared: &Shared,
    side_by_side: bool,
    pick: &(dyn Fn(crate::Output) -> bool + Sync),
) -> Result<Vec<(usize, OutDir)>, Error> {
    use crate::Output::*;
    let wanted = config.outputs()?;
    let wants = |output| wanted.contains(&output) && pick(output);
    // The colour map, the biome map and the river mask share one grid's shore (elevation and
    // lake depth rasters, water share, river coverage): built once, its rivers drawn beside the
    // jobs that read none, before theirs.
    let biome_maps = world.has_layer("region_biome") && (wants(Colormap) || wants(Biomes));
    let river_mask =
        world.has_layer("region_elevation") && world.has_layer("rivers") && wants(Rivers);
    // One at a time ([`side_by_side`] says when), each output builds its own shore, dropped
    // with it.
    // Its rivers are drawn beside the jobs that read none of them (`after_rivers` holds those
    // that do). Each job that reads it holds it, so the last to finish with it frees it while
    // the others still run (the 50 MB of a 1024 px shore take milliseconds to unmap).
    let (shore, shore_grid) = if side_by_side && (biome_maps || river_mask) {
        let grid = raster_grid(world, config)?;
        // Its plan and held water serve the colour and biome maps and the splat maps; for the
        // river mask alone they would cost more than they save.
        let shore = if biome_maps || wants(Splat) {
            colormap::Shore::without_rivers(world, &grid)?
        } else {
            colormap::Shore::without_rivers_alone(world, &grid)?
        };
        (Some(Arc::new(shore)), Some(grid))
    } else {
        (None, None)
    };
    let landscape_sampling = &shared.landscape_sampling;
    let written_mapping = &shared.written_mapping;
    // Each output (or group sharing a raster) is one job writing into its own part of the
    // folder, numbered in the one order `finish` absorbs the parts in, so the names come in the
    // same order whether the jobs run one after another, side by side or in two phases.
    let mut jobs: Vec<(usize, Job<'_>)> = Vec::new();
    let mut after_rivers: Vec<(usize, Job<'_>)> = Vec::new();
    if wants(Npz) {
        let text = serde_json::to_string(&shared.config_json).expect("JSON values serialise");
        jobs.push((
            1,
            Box::new(move |out| {
                out.write("world.npz", |w| Ok(world.write_npz(w, &text)?))?;
                Ok(())
            }),
        ));
    }
    if biome_maps {
        let (colors, biomes) = (wants(Colormap), wants(Biomes));
        let shore = shore.clone();
        after_rivers.push((
            2,
            Box::new(move |out| write_biome_outputs(world, config, colors, biomes, shore, out)),
        ));
    }
    if world.has_mesh() && wants(Mesh) {
        let nx = config.export.resolution;
        jobs.push((
            3,
            Box::new(move |out| {
                out.write("mesh.png", |w| orogen_export::mesh_png(w, world, nx))?;
                Ok(())
            }),
        ));
    }
    if config.pipeline() == crate::Pipeline::Classic && wants(Landscape) {
        let sampling = landscape_sampling;
        jobs.push((
            4,
            Box::new(move |out| {
                let _ = sampling.set(write_landscape(world, config, out)?);
                Ok(())
            }),
        ));
    }
    if world.has_layer("region_elevation") {
        let grid = raster_grid(world, config)?;
        let files = heightmap::HeightmapFiles {
            png: wants(Heightmap),
            r16: wants(R16),
            exr: wants(Exr),
        };
        if files.png || files.r16 || files.exr {
            let mapping = written_mapping;
            let shore = shore.clone();
            jobs.push((
                5,
                Box::new(move |out| {
                    // The shore's elevation when there is one: the same raster, made once (the
                    // job's hold on the shore ends here).
                    let elevation = match shore {
                        Some(shore) => shore.elevation(),
                        None => colormap::elevation_raster(world, &grid)?,
                    };
                    let _ = mapping.set(heightmap::write_heightmaps_from(
                        out,
                        world,
                        &grid,
                        &elevation,
                        config.export.normalize,
                        config.export.engine,
                        files,
                    )?);
                    Ok(())
                }),
            ));
        }
        // Rivers (hydrology): an 8-bit antialiased mask at the heightmap's size.
        if river_mask {
            let shore = shore.clone();
            after_rivers.push((
                6,
                Box::new(move |out| {
                    let mask = match shore {
                        Some(shore) => orogen_export::rivers::river_mask_on(&shore),
                        None => orogen_export::rivers::river_mask(
                            world,
                            &grid,
                            &orogen_export::stroke::StrokeStyle::default(),
                        )?,
                    };
                    out.write("rivers.png", |w| {
                        orogen_export::png::write_gray8(w, mask.view())
                    })?;
                    Ok(())
                }),
            ));
        }
    }
    // Engine terrain layers: splat maps per biome group.
    if world.has_mesh() && wants(Splat) {
        let grid = raster_grid(world, config)?;
        let shore = shore.clone();
        jobs.push((
            7,
            Box::new(move |out| {
                // Through the shore's plan of the mesh on the grid, when it made one.
                let plan = shore
                    .as_deref()
                    .and_then(colormap::Shore::plan)
                    .filter(|plan| *plan.sampling() == grid.sampling());
                orogen_export::splat::write_layers_on(out, world, &grid, plan)?;
                Ok(())
            }),
        ));
    }
    if world.has_mesh() && wants(Geojson) {
        jobs.push((
            8,
            Box::new(move |out| {
                out.write(geojson::FILE, |w| geojson::write_geojson(w, world))?;
                Ok(())
            }),
        ));
    }
    if world.has_layer("region_elevation") && world.has_layer("corner_elevation") {
        let colors = Some(colormap_options(config));
        if wants(Glb) {
            jobs.push((
                9,
                Box::new(move |out| {
                    let options = config.export.glb_options(colors);
                    orogen_export::gltf::write_glb(out, world, &options)?;
                    Ok(())
                }),
            ));
        }
        if wants(Preview3d) {
            jobs.push((
                PREVIEW_PART,
                Box::new(move |out| {
                    let options = config.export.preview_options(colors);
                    orogen_export::preview3d::write_preview3d(out, world, &options)?;
                    Ok(())
                }),
            ));
        }
    }
    let run = |(k, job): (usize, Job<'_>)| -> Result<(usize, OutDir), Error> {
        let mut part = out.fork();
        job(&mut part)?;
        Ok((k, part))
    };
    let parts = if side_by_side {
        let draw_then_run = move || -> Vec<Result<(usize, OutDir), Error>> {
            if let (Some(shore), Some(grid)) = (&shore, &shore_grid) {
                let style = orogen_export::stroke::StrokeStyle::default();
                if let Err(e) = shore.draw_rivers(world, grid, Some(&style)) {
                    return vec![Err(e.into())];
                }
            }
            // The jobs that read the shore hold it from here.
            drop(shore);
            after_rivers.into_par_iter().map(run).collect()
        };
        let (mut parts, late) = rayon::join(
            || {
                jobs.into_par_iter()
                    .map(run)
                    .collect::<Vec<Result<(usize, OutDir), Error>>>()
            },
            draw_then_run,
        );
        parts.extend(late);
        parts
    } else {
        jobs.extend(after_rivers);
        jobs.sort_by_key(|(k, _)| *k);
        jobs.into_iter().map(run).collect()
    };
    parts.into_iter().collect()
}

/// Absorbs the jobs' parts in their order, then writes `world.json` and commits the folder.
fn finish(
    world: &World,
    config: &Config,
    mut out: OutDir,
    mut parts: Vec<(usize, OutDir)>,
    shared: Shared,
) -> Result<Vec<String>, Error> {
    parts.sort_by_key(|(k, _)| *k);
    for (_, part) in parts {
        out.absorb(part);
    }
    let Shared {
        config_json,
        landscape_sampling,
        written_mapping,
        ..
    } = shared;
    let sampling = world
        .has_layer("region_elevation")
        .then(|| raster_grid(world, config).map(|grid| SamplingJson::from(&grid)))
        .transpose()?;
    let sampling = sampling.or_else(|| landscape_sampling.into_inner());
    let height_mapping = match written_mapping.into_inner() {
        Some(m) => m,
        // No heightmap written: the mapping one would have used (the same master, so `minmax`
        // records the world's own range, never an empty one).
        None => {
            let normalize = config.export.normalize;
            let range = if normalize == heights::Normalize::Fixed {
                heights::range_m(&[], &world.meta, normalize)
            } else if world.has_layer("region_elevation") {
                let master = heightmap::metres_raster(world, &raster_grid(world, config)?)?;
                heights::range_of_metres(
                    master.iter().map(|&m| f64::from(m)),
                    &world.meta,
                    normalize,
                )
            } else if world.has_layer("raster_elevation") {
                let raster = world.view::<f32>("raster_elevation")?;
                let values: Vec<f32> = raster.iter().copied().collect();
                heights::range_m(&values, &world.meta, normalize)
            } else {
                heights::range_m(&[], &world.meta, normalize)
            };
            HeightMapping::new(&world.meta, normalize, range)
        }
    };
    let files = out.files().to_vec();
    let sidecar = WorldJson {
        orogen_version: env!("CARGO_PKG_VERSION"),
        seed: world.meta.seed,
        config: &config_json,
        sampling,
        height_mapping,
        files: &files,
    };
    out.write("world.json", |w| sidecar.write(w))?;
    Ok(out.commit()?)
}

/// One output job of [`write_outputs`]: it writes into its own part of the folder.
type Job<'a> = Box<dyn FnOnce(&mut OutDir) -> Result<(), Error> + Send + 'a>;

/// The largest raster side (pixels) at which [`write_outputs`] runs the outputs side by side
/// whatever the world's size.
const SIDE_BY_SIDE_MAX_PIXELS: usize = 2048;

/// Whether the config's outputs run side by side: while their rasters are small (at most
/// [`SIDE_BY_SIDE_MAX_PIXELS`] a side), or while one output's rasters take no more memory than
/// the stages' world (`raster_memory_bytes` against `stage_memory_bytes`: from about 440,000
/// cells at 4096 px), so that the outputs side by side add about as much again as the world at
/// most. Otherwise one at a time, and the peak is one output's: 50,000 cells at 4096 px stay
/// under 300 MiB whatever is chosen.
fn side_by_side(config: &Config) -> bool {
    let side = config
        .export
        .resolution
        .max(config.export.heightmap_size().unwrap_or(0));
    side <= SIDE_BY_SIDE_MAX_PIXELS
        || crate::config::raster_memory_bytes(config) <= crate::config::stage_memory_bytes(config)
}

/// The colour map options of this config (the biome palette's water colours).
fn colormap_options(config: &Config) -> colormap::ColormapOptions {
    let palette = &config.biome.palette;
    colormap::ColormapOptions {
        water: colormap::WaterColors {
            shallow: palette.shallow_ocean,
            deep: palette.deep_ocean,
            lake: palette.lake,
            river: palette.river,
        },
        // The 3-D outputs light the terrain themselves.
        hillshade: 0.0,
        rivers: true,
    }
}

/// `colormap.png` (the article's blended biome colours, relief shading, rivers) and
/// `biomes.png` (one flat colour per biome; legend in the README), those asked for.
fn write_biome_outputs(
    world: &World,
    config: &Config,
    colors: bool,
    biomes: bool,
    shore: Option<Arc<colormap::Shore>>,
    out: &mut OutDir,
) -> Result<(), Error> {
    if !(colors || biomes) {
        return Ok(());
    }
    let grid = raster_grid(world, config)?;
    let paint_colors =
        |shore: Option<&colormap::Shore>| -> Result<Option<ndarray::Array3<u8>>, Error> {
            if !colors {
                return Ok(None);
            }
            let options = colormap::ColormapOptions {
                hillshade: config.export.hillshade,
                ..colormap_options(config)
            };
            Ok(Some(match shore {
                Some(shore) => colormap::colormap_on(world, &grid, &options, shore)?,
                None => colormap::colormap(world, &grid, &options)?,
            }))
        };
    // An image painted (when asked for) written as an RGB PNG.
    let write_rgb = |out: &mut OutDir, name: &str, image: Option<ndarray::Array3<u8>>| match image {
        Some(image) => out
            .write(name, |w| png::write_rgb8(w, image.view()))
            .map(|_| ()),
        None => Ok(()),
    };
    let paint_biomes =
        |shore: Option<&colormap::Shore>| -> Result<Option<ndarray::Array3<u8>>, Error> {
            if !biomes {
                return Ok(None);
            }
            let palette = config.biome.palette.by_id();
            Ok(Some(match shore {
                Some(shore) => colormap::biome_map_on(world, &grid, &palette, shore)?,
                None => colormap::biome_map(world, &grid, &palette)?,
            }))
        };
    // On a shared shore (outputs side by side) the colour map's PNG encoding (one thread) runs
    // beside the biome map's painting, then the biome map's beside this job letting go of the
    // shore (the last job's hold frees its 50 MB, milliseconds of unmapping); one at a time,
    // the colour map is written and dropped first (the peak holds one image).
    match shore {
        Some(held) => {
            let image = paint_colors(Some(&held))?;
            let (colored, flat) = rayon::join(
                || write_rgb(out, "colormap.png", image),
                || paint_biomes(Some(&held)),
            );
            colored?;
            let flat = flat?;
            Ok(rayon::join(move || drop(held), || write_rgb(out, "biomes.png", flat)).1?)
        }
        None => {
            write_rgb(out, "colormap.png", paint_colors(None)?)?;
            Ok(write_rgb(out, "biomes.png", paint_biomes(None)?)?)
        }
    }
}

/// `landscape.png`: the classic raster landscape, `export.resolution` pixels wide.
fn write_landscape(
    world: &World,
    config: &Config,
    out: &mut OutDir,
) -> Result<SamplingJson, Error> {
    let grid = PixelGrid::centres(
        config.export.resolution,
        world.meta.width,
        world.meta.height,
    )?;
    let image = orogen_export::landscape::landscape(world, &grid, &config.classic.paint)?;
    out.write("landscape.png", |w| png::write_rgb8(w, image.view()))?;
    Ok(SamplingJson::from(&grid))
}

/// The grid of every heightmap-sized raster (heightmaps, colour and biome maps, splat maps, the
/// river mask): the engine's, over the world's map.
fn raster_grid(world: &World, config: &Config) -> Result<PixelGrid, Error> {
    Ok(config.export.engine.grid(
        config.export.heightmap_size(),
        config.export.resolution,
        world.meta.width,
        world.meta.height,
    )?)
}

/// Reads a world saved with `--save-world` (`world.npz`) and the configuration it was made
/// with, so [`write_outputs`] regenerates its files.
pub fn read_world(path: &Path) -> Result<(World, Config), Error> {
    let bad = |message: String| Error::Input {
        what: format!("world file {}", path.display()),
        message,
    };
    let file = std::fs::File::open(path).map_err(|e| bad(crate::error::io_message(&e)))?;
    let (world, config_json) =
        World::read_npz(std::io::BufReader::new(file)).map_err(|e| bad(e.to_string()))?;
    let config: Config = serde_json::from_str(&config_json)
        .map_err(|e| bad(format!("the saved configuration: {e}")))?;
    Ok((world, config))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Output;

    #[test]
    fn outputs_one_at_a_time_are_the_files_written_side_by_side() {
        // One at a time (as above 2048 px on a small world), each job builds its own shore:
        // the files must be those of the shared shore and the jobs side by side.
        let mut config = Config::default();
        config.world.cells = 3000;
        config.export.resolution = 160;
        config.export.outputs = vec![Output::All];
        let world = crate::generate(&config).unwrap();
        let written: Vec<_> = [true, false]
            .into_iter()
            .map(|together| {
                let dir = tempfile::tempdir().unwrap();
                let files = write_outputs_as(&world, &config, dir.path(), together).unwrap();
                (dir, files)
            })
            .collect();
        let (names, others) = (&written[0].1, &written[1].1);
        assert_eq!(names, others);
        for name in ["colormap.png", "biomes.png", "rivers.png", "heightmap.png"] {
            assert!(names.iter().any(|n| n == name), "{name} not written");
        }
        for name in names {
            let a = std::fs::read(written[0].0.path().join(name)).unwrap();
            let b = std::fs::read(written[1].0.path().join(name)).unwrap();
            assert!(
                a == b,
                "{name} differs between side by side and one at a time"
            );
        }
    }

    #[test]
    fn outputs_run_side_by_side_unless_their_rasters_outweigh_the_world() {
        let at = |cells: usize, resolution: usize| {
            let mut config = Config::default();
            config.world.cells = cells;
            config.export.resolution = resolution;
            side_by_side(&config)
        };
        assert!(at(50_000, 1024) && at(50_000, 2048) && at(5_000, 2048));
        // 50,000 cells at 4096 px: one output at a time (its 300 MiB peak).
        assert!(!at(50_000, 4096) && !at(200_000, 4096));
        // A world larger than one output's rasters: side by side.
        assert!(at(1_000_000, 4096) && at(4_000_000, 8192));
        assert!(!at(1_000_000, 8192));
    }
}
