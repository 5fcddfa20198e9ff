//! End to end, as `orogen generate` runs (`orogen::generate_run`: only the stages the outputs
//! need, the flora stage beside the outputs that show no trees), one bench for each of issue
//! 20's targets (the table in `docs/performance.md`):
//!
//! - `50k_three_pngs_1024px`: the reference program's three PNGs (heightmap, colour map, biome
//!   map) at 50,000 cells, 1024 px;
//! - `50k_cells_1024px`: every default output at 50,000 cells, 1024 px;
//! - `1M_cells_1024px`: every default output at 1,000,000 cells, 1024 px;
//! - `50k_cells_4096px`: every default output at 50,000 cells, 4096 px (the memory target: its
//!   peak is measured by `/usr/bin/time -f %M orogen generate --cells 50000 --resolution 4096`);
//! - `1M_cells_4096px`: every default output at 1,000,000 cells, 4096 px.
//!
//! The per-stage scaling from 1,000,000 to 4,000,000 cells is `benches/scaling.rs`.

use criterion::{Criterion, criterion_group, criterion_main};
use std::time::Duration;

use orogen::Output;

fn run(cells: usize, resolution: usize, outputs: &[Output], dir: &std::path::Path) {
    let mut config = orogen::Config::default();
    config.world.cells = cells;
    config.export.resolution = resolution;
    config.export.outputs = outputs.to_vec();
    // On one of rayon's threads, as the CLI runs it (its serial parts then allocate where the
    // parallel ones do, and no parallel loop waits to be taken from another thread).
    let (run, ()) = rayon::join(|| orogen::generate_run(&config, dir, &mut |_| {}), || ());
    run.expect("default worlds generate and write");
}

fn pipeline(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("orogen-bench-{}", std::process::id()));
    let three = [Output::Heightmap, Output::Colormap, Output::Biomes];
    let default = [Output::Default];
    let mut group = c.benchmark_group("pipeline");
    group.sample_size(10);
    group.bench_function("50k_three_pngs_1024px", |b| {
        b.iter(|| run(50_000, 1024, &three, &dir))
    });
    group.bench_function("50k_cells_1024px", |b| {
        b.iter(|| run(50_000, 1024, &default, &dir))
    });
    group.measurement_time(Duration::from_secs(70));
    group.bench_function("50k_cells_4096px", |b| {
        b.iter(|| run(50_000, 4096, &default, &dir))
    });
    group.measurement_time(Duration::from_secs(60));
    group.bench_function("1M_cells_1024px", |b| {
        b.iter(|| run(1_000_000, 1024, &default, &dir))
    });
    group.measurement_time(Duration::from_secs(150));
    group.bench_function("1M_cells_4096px", |b| {
        b.iter(|| run(1_000_000, 4096, &default, &dir))
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, pipeline);
criterion_main!(benches);
