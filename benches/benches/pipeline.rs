//! End to end: the whole pipeline with every export, at 50,000 cells with 1024^2 images and at
//! 1,000,000 cells with 4096^2 images.

use criterion::{Criterion, criterion_group, criterion_main};
use std::time::Duration;

fn run(cells: usize, resolution: usize, dir: &std::path::Path) {
    let mut config = orogen::Config::default();
    config.world.cells = cells;
    config.export.resolution = resolution;
    let world = orogen::generate(&config).expect("default worlds generate");
    orogen::write_outputs(&world, &config, dir).expect("outputs write");
}

fn pipeline(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("orogen-bench-{}", std::process::id()));
    let mut group = c.benchmark_group("pipeline");
    group.sample_size(10);
    group.bench_function("50k_cells_1024px", |b| b.iter(|| run(50_000, 1024, &dir)));
    group.measurement_time(Duration::from_secs(60));
    group.bench_function("1M_cells_4096px", |b| b.iter(|| run(1_000_000, 4096, &dir)));
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, pipeline);
criterion_main!(benches);
