//! Erosion (issue 23's speed lines): 100 stream-power steps of the `eroded` preset on the mesh
//! of 50,000 and 1,000,000 cells (the world the pipeline's erosion stage receives), and 100
//! steps on a 300 x 300 raster (`erode_grid`, no diffusion, as `erode_timing` runs it against
//! fastscapelib).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ndarray::Array2;
use orogen_hydrology::erosion::{self, Params, mesh_problem};
use std::time::Duration;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("erosion");
    group.sample_size(10);
    for cells in [50_000usize, 1_000_000] {
        let mut config = orogen::presets::preset("eroded").expect("the eroded preset");
        config.world.cells = cells;
        let params = config.erosion.clone();
        let world = orogen::profile::world_before("erosion", &config).expect("a world");
        let problem = mesh_problem(&world, params.uplift).expect("the mesh problem");
        if cells > 100_000 {
            group.measurement_time(Duration::from_secs(120));
        }
        // On one of rayon's threads, as `orogen generate` runs the stage (from another thread
        // each parallel loop would wait for the pool to take it and hand it back).
        group.bench_function(BenchmarkId::new("mesh_100_steps", cells), |b| {
            b.iter(|| {
                rayon::join(
                    || {
                        let mut h = problem.h.clone();
                        params.apply(
                            &problem.graph,
                            &mut h,
                            &problem.base,
                            &problem.area,
                            &problem.uplift,
                        )
                    },
                    || (),
                )
            })
        });
    }
    // A drained rough dome, as `erode_timing synthetic:300x300`.
    let (rows, cols) = (300, 300);
    let dem = Array2::from_shape_fn((rows, cols), |(r, c)| {
        let (y, x) = (r as f64 / rows as f64 - 0.5, c as f64 / cols as f64 - 0.5);
        let jitter = (orogen_world::seed::splitmix64((r * cols + c) as u64) >> 40) as f64;
        1000.0 * (1.0 - 2.0 * (x * x + y * y)) + 1e-6 * jitter
    });
    let uplift = Array2::from_elem((rows, cols), 1e-3);
    let params = Params {
        mode: erosion::Mode::Transient,
        k: 2e-5,
        m: 0.4,
        n: 1.0,
        diffusion: 0.0,
        dt: 2e4,
        steps: 100,
        ..Params::default()
    };
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("raster_300x300_100_steps", |b| {
        b.iter(|| erosion::erode_grid(dem.view(), uplift.view(), 100.0, 100.0, &params).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
