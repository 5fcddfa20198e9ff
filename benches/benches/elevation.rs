//! The elevation stage: the whole stage at 50,000 and 1,000,000 cells, diamond-square at
//! 4097^2 (ns per sample), and heightmap rasterisation at 4096^2 over a 50,000-cell world.
//!
//! The worlds are built once by the mesh stage (its defaults) outside the timed loop.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use orogen_elevation::{DiamondSquare, Params};
use orogen_world::interp::RasterSampling;
use orogen_world::{World, WorldMeta};

fn world(cells: usize) -> World {
    let mut w = World::new(WorldMeta::default());
    orogen_mesh::run(&mut w, &orogen_mesh::Params::default(), cells).unwrap();
    w
}

fn elevation(c: &mut Criterion) {
    let mut group = c.benchmark_group("elevation");
    for cells in [50_000usize, 1_000_000] {
        let mut w = world(cells);
        group.throughput(Throughput::Elements(w.mesh().unwrap().n_regions() as u64));
        group.sample_size(10);
        group.bench_function(format!("stage_{cells}_cells"), |b| {
            b.iter(|| orogen_elevation::run(&mut w, &Params::default()).unwrap())
        });
    }
    group.finish();
}

fn diamond_square(c: &mut Criterion) {
    let ds = DiamondSquare {
        levels: 12,
        ..DiamondSquare::default()
    };
    let mut group = c.benchmark_group("diamond_square");
    group.throughput(Throughput::Elements((ds.side() * ds.side()) as u64));
    group.sample_size(10);
    group.bench_function("4097x4097", |b| b.iter(|| ds.generate(7).unwrap()));
    group.finish();
}

fn heightmap(c: &mut Criterion) {
    let mut w = world(50_000);
    orogen_elevation::run(&mut w, &Params::default()).unwrap();
    let mesh = w.mesh().unwrap();
    let region = w.view1::<f32>("region_elevation").unwrap();
    let corner = w.view1::<f32>("corner_elevation").unwrap();
    let sampling = RasterSampling::pixel_centres(4096, 4096, 1.0, 1.0);
    let mut group = c.benchmark_group("heightmap");
    group.throughput(Throughput::Elements(4096 * 4096));
    group.sample_size(10);
    group.bench_function("rasterize_4096_50k_cells", |b| {
        b.iter(|| orogen_world::interp::rasterize_mesh(mesh, region, corner, &sampling).unwrap())
    });
    let grid = orogen_export::grid::PixelGrid::centres(4096, 1.0, 1.0).unwrap();
    group.bench_function("u16_4096_50k_cells", |b| {
        b.iter(|| {
            orogen_export::heightmap::heightmap(&w, &grid, orogen_export::heights::Normalize::Fixed)
                .unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, elevation, diamond_square, heightmap);
criterion_main!(benches);
