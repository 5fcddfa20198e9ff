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
    if config.pipeline() == crate::Pipeline::Classic {
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
    match stage {
        "mesh" => orogen_mesh::run(world, &config.mesh, config.world.cells)?,
        "elevation" => orogen_elevation::run(world, &config.elevation)?,
        // Rivers carve valleys (nothing when `erosion.mode` is off).
        "erosion" => {
            orogen_hydrology::erosion::run(world, &config.erosion)?;
        }
        // Routing, lakes, flow and rivers on the mesh (biome reads the lakes and rivers).
        "hydrology" => orogen_hydrology::graph::run(world, &config.hydrology)?,
        "biome" => {
            // Moisture noise follows the elevation's noise scale (at `biome.scale_factor` times it).
            let biome = orogen_biome::Params {
                noise_scale: config.elevation.fbm.noise_scale,
                ..config.biome.clone()
            };
            orogen_biome::run(world, &biome)?
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
