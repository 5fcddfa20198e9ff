//! Profiling one stage on its own: on a saved world or on a fresh one, repeated.

use std::time::{Duration, Instant};

use orogen_world::World;

use crate::{Config, Error, STAGES, run_stage};

/// Min, median and max wall time of repeated runs of one stage.
#[derive(Clone, Debug, PartialEq)]
pub struct StageProfile {
    /// The stage's name (as in [`STAGES`], or `export`).
    pub stage: String,
    /// The wall time of each run, in the order run.
    pub runs: Vec<Duration>,
}

impl StageProfile {
    fn sorted(&self) -> Vec<Duration> {
        let mut runs = self.runs.clone();
        runs.sort();
        runs
    }
    /// The fastest run.
    pub fn min(&self) -> Duration {
        self.sorted()[0]
    }
    /// The median run (the lower middle for an even count).
    pub fn median(&self) -> Duration {
        let runs = self.sorted();
        runs[(runs.len() - 1) / 2]
    }
    /// The slowest run.
    pub fn max(&self) -> Duration {
        *self.sorted().last().expect("at least one run")
    }
}

/// The stages `profile` accepts: every pipeline stage, and `export` (every output file).
pub fn profile_stages() -> Vec<&'static str> {
    STAGES.iter().copied().chain(["export"]).collect()
}

/// A world ready for `stage`: every stage before it has run.
pub fn world_before(stage: &str, config: &Config) -> Result<World, Error> {
    config.validate()?;
    let mut world = World::new(config.world.meta());
    for &earlier in STAGES.iter().take_while(|&&s| s != stage) {
        run_stage(earlier, &mut world, config)?;
    }
    Ok(world)
}

/// Runs `stage` `repeat` times, each on a fresh copy of `world`, and returns the wall times.
pub fn profile_stage(
    stage: &str,
    world: &World,
    config: &Config,
    repeat: usize,
) -> Result<StageProfile, Error> {
    orogen_world::params::in_range("repeat", repeat, 1..=10_000)?;
    if !profile_stages().contains(&stage) {
        return Err(Error::Param(orogen_world::params::ParamError::new(
            "stage",
            stage,
            profile_stages().join(", "),
        )));
    }
    let scratch = std::env::temp_dir().join(format!("orogen-profile-{}", std::process::id()));
    let mut runs = Vec::with_capacity(repeat);
    for _ in 0..repeat {
        let mut copy = world.clone();
        // On one of rayon's threads, as `orogen generate` runs its stages: from any other
        // thread each parallel loop waits for a pool thread to take it and hand it back (about
        // a tenth of the erosion stage's 100 steps at 50,000 cells: 204 -> 182 ms).
        let (run, ()) = rayon::join(
            || {
                let start = Instant::now();
                if stage == "export" {
                    crate::write_outputs(&copy, config, &scratch)?;
                } else {
                    run_stage(stage, &mut copy, config)?;
                }
                Ok::<_, Error>(start.elapsed())
            },
            || (),
        );
        runs.push(run?);
    }
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(StageProfile {
        stage: stage.to_owned(),
        runs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stage_profiles_on_a_fresh_world() {
        let mut config = Config::default();
        config.world.cells = 400;
        config.export.resolution = 32;
        for stage in profile_stages() {
            let world = world_before(stage, &config).unwrap();
            let p = profile_stage(stage, &world, &config, 3).unwrap();
            assert_eq!(p.runs.len(), 3);
            assert!(p.min() <= p.median() && p.median() <= p.max());
        }
        let world = world_before("mesh", &config).unwrap();
        assert!(profile_stage("rivers!", &world, &config, 1).is_err());
        assert!(profile_stage("mesh", &world, &config, 0).is_err());
    }
}
