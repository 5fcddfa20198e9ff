//! Issue 20's linear-cost target: each mesh-pipeline stage at 4,000,000 cells against the same
//! stage at 1,000,000 (at most 4.4x). `scaling/STAGE/CELLS`, each run on a fresh copy of the
//! world every earlier stage made (as `orogen profile STAGE --cells CELLS` times it), so the
//! ratio is `scaling/STAGE/4000000` over `scaling/STAGE/1000000`.
//!
//! Heavy (worlds of 4,000,000 cells and their copies, a few GiB, and some 15 minutes on two
//! cores): it runs only with `OROGEN_BENCH_SCALING=1`, so that `cargo bench -p orogen-benches`
//! stays a reasonable run: `OROGEN_BENCH_SCALING=1 cargo bench -p orogen-benches --bench
//! scaling`.

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use orogen_world::World;

/// The stages timed (erosion, off by default, is run but not timed).
const TIMED: [&str; 5] = ["mesh", "elevation", "hydrology", "biome", "flora"];

fn scaling(c: &mut Criterion) {
    if std::env::var_os("OROGEN_BENCH_SCALING").is_none_or(|v| v != "1") {
        eprintln!(
            "scaling: not run (about 15 minutes and a few GiB); \
             OROGEN_BENCH_SCALING=1 cargo bench -p orogen-benches --bench scaling"
        );
        return;
    }
    let mut group = c.benchmark_group("scaling");
    group.sample_size(10);
    for cells in [1_000_000usize, 4_000_000] {
        let mut config = orogen::Config::default();
        config.world.cells = cells;
        // One world carried through the stages: each is timed on copies of it, then run on it.
        let mut world = World::new(config.world.meta());
        for &stage in orogen::STAGES {
            if TIMED.contains(&stage) {
                group.bench_function(BenchmarkId::new(stage, cells), |b| {
                    b.iter_batched(
                        || world.clone(),
                        |mut w| orogen::run_stage(stage, &mut w, &config).expect("the stage runs"),
                        BatchSize::PerIteration,
                    )
                });
            }
            // The last timed stage's output feeds nothing timed.
            if stage == TIMED[TIMED.len() - 1] {
                break;
            }
            orogen::run_stage(stage, &mut world, &config).expect("the stage runs");
        }
    }
    group.finish();
}

criterion_group!(benches, scaling);
criterion_main!(benches);
