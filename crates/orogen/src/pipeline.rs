use std::time::{Duration, Instant};

use orogen_world::World;

use crate::{Config, Error};

/// The stages in the order they run (see the world conventions).
pub const STAGES: &[&str] = &["mesh", "hydrology"];

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
    // Hydrology on the mesh (routing, lakes, flow, rivers): needs the elevation stage's layers.
    if world.has_layer("corner_elevation") {
        timings.run("hydrology", || {
            Ok(orogen_hydrology::graph::run(&mut world, &config.rivers)?)
        })?;
    }
    Ok((world, timings))
}
