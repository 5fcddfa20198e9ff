use std::time::{Duration, Instant};

use orogen_world::World;

use crate::{Config, Error};

/// The stages in the order they run (see the world conventions).
pub const STAGES: &[&str] = &["mesh", "elevation", "biome", "flora"];

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
    config.validate()?;
    let mut timings = Timings::default();
    let mut world = World::new(config.world.meta());
    timings.run("mesh", || {
        Ok(orogen_mesh::run(
            &mut world,
            &config.mesh,
            config.world.cells,
        )?)
    })?;
    timings.run("elevation", || {
        Ok(orogen_elevation::run(&mut world, &config.elevation)?)
    })?;
    // Moisture noise follows the elevation's noise scale (at `biome.scale_factor` times it).
    let biome = orogen_biome::Params {
        noise_scale: config.elevation.fbm.noise_scale,
        ..config.biome.clone()
    };
    timings.run("biome", || Ok(orogen_biome::run(&mut world, &biome)?))?;
    timings.run("flora", || {
        Ok(orogen_flora::run(&mut world, &config.flora)?)
    })?;
    Ok((world, timings))
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
