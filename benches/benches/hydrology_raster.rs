//! Raster hydrology on a 4096^2 fractal DEM (16.8M cells): Priority-Flood fill, epsilon fill,
//! D8 receivers and D8 flow accumulation. RichDEM (C++) on this kind of machine: fill about
//! 1.6 s, D8 accumulation about 1.9 s.

use criterion::{Criterion, criterion_group, criterion_main};
use orogen_hydrology::raster;

fn hydrology_raster(c: &mut Criterion) {
    let n = std::env::var("OROGEN_BENCH_DEM")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4096);
    let dem = orogen_benches::fractal_dem(n, 42);
    let eps = raster::fill_epsilon(dem.view()).unwrap();
    let receivers = raster::d8_receivers(eps.view());
    let mut group = c.benchmark_group(format!("hydrology_raster_{n}"));
    group.sample_size(10);
    group.bench_function("fill", |b| b.iter(|| raster::fill(dem.view()).unwrap()));
    group.bench_function("fill_epsilon", |b| {
        b.iter(|| raster::fill_epsilon(dem.view()).unwrap())
    });
    group.bench_function("d8_receivers", |b| {
        b.iter(|| raster::d8_receivers(eps.view()))
    });
    group.bench_function("flow_accumulation", |b| {
        b.iter(|| raster::flow_accumulation(receivers.view()).unwrap())
    });
    group.bench_function("d8_and_accumulation", |b| {
        b.iter(|| {
            let receivers = raster::d8_receivers(eps.view());
            raster::flow_accumulation(receivers.view()).unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, hydrology_raster);
criterion_main!(benches);
