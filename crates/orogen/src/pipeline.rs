use std::sync::Arc;
use std::time::{Duration, Instant};

use orogen_world::World;

use crate::{Config, Error};

/// The stages in the order they run (see the world conventions).
pub const STAGES: &[&str] = &["mesh", "elevation", "hydrology", "biome", "flora"];

/// Wall time per stage of one run, in stage order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timings {
    pub stages: Vec<(&'static str, Duration)>,
}

impl Timings {
    /// The sum of the stages' times.
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

/// Runs every stage on a new world. Parameters are validated first, before any work.
pub fn generate(config: &Config) -> Result<World, Error> {
    generate_timed(config).map(|(world, _)| world)
}

/// [`generate`], also returning the wall time of each stage.
pub fn generate_timed(config: &Config) -> Result<(World, Timings), Error> {
    generate_observed(config, &mut |_| {})
}

/// [`generate_timed`], calling `on_stage` with each stage's name before it runs (for progress
/// bars).
pub fn generate_observed(
    config: &Config,
    on_stage: &mut dyn FnMut(&'static str),
) -> Result<(World, Timings), Error> {
    config.validate()?;
    if config.preset == crate::Preset::Classic {
        return crate::classic::generate(config, on_stage);
    }
    let mut timings = Timings::default();
    on_stage(STAGES[0]);
    let mut world = generate_mesh(config, &mut timings)?;
    generate_rest_observed(config, &mut world, &mut timings, None, on_stage)?;
    Ok((world, timings))
}

/// The mesh stage alone: a new world holding its mesh. The mesh depends only on the seed, the
/// cell count, the map size and the mesh parameters, so a caller may keep this world and run
/// [`generate_rest`] on a copy of it when only later stages' parameters change (as
/// `orogen serve` does). Does not validate: call [`Config::validate`] first.
pub fn generate_mesh(config: &Config, timings: &mut Timings) -> Result<World, Error> {
    let mut world = World::new(config.world.meta());
    timings.run("mesh", || run_stage("mesh", &mut world, config))?;
    Ok(world)
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
/// `orogen_biome::Prepared`). The playground keeps one per cached mesh.
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
        "mesh" => orogen_mesh::run(world, &config.mesh, config.world.cells)?,
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
        // Routing, lakes, flow and rivers on the mesh (biome reads the lakes and rivers).
        "hydrology" => orogen_hydrology::graph::run(world, &config.rivers)?,
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
                _ => {
                    let prepared = Arc::new(orogen_biome::prepare(world, &biome)?);
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
    use super::*;

    #[test]
    fn flora_runs_exactly_when_a_biome_map_exists() {
        let mut config = Config::default();
        config.world.cells = 500;
        let (world, timings) = generate_timed(&config).unwrap();
        let ran = timings.stages.iter().any(|(name, _)| *name == "flora");
        assert_eq!(ran, world.has_layer("region_biome"));
        assert_eq!(world.has_layer("flora_xy"), world.has_layer("region_biome"));
    }
}
