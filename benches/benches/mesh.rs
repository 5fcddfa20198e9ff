//! The mesh stage (sites, Delaunay, clipped cells, 3 Lloyd iterations, dual mesh and layers) at
//! 50,000 and 1,000,000 cells, its parts at 50,000, and Poisson disc over 1024^2 with r = 4.

use criterion::{Criterion, criterion_group, criterion_main};
use orogen_mesh::{Params, build_mesh, lloyd, triangulate, world_sites};
use orogen_sampling::{Rect, poisson_disc};
use orogen_world::{World, WorldMeta, seed};

fn mesh_world(cells: usize) -> World {
    let mut world = World::new(WorldMeta::default());
    orogen_mesh::run(&mut world, &Params::default(), cells).unwrap();
    world
}

fn mesh(c: &mut Criterion) {
    let mut group = c.benchmark_group("mesh");
    group.sample_size(10);
    group.bench_function("50k_lloyd3", |b| b.iter(|| mesh_world(50_000)));
    let (sites, flags) =
        world_sites(123, 50_000, 1.0, 1.0, orogen_mesh::SamplerKind::Uniform).unwrap();
    group.bench_function("50k_triangulate", |b| {
        b.iter(|| triangulate(&sites).unwrap())
    });
    group.bench_function("50k_lloyd3_only", |b| {
        b.iter(|| {
            let mut s = sites.clone();
            lloyd(&mut s, &flags, 1.0, 1.0, 3).unwrap()
        })
    });
    group.bench_function("50k_build_mesh", |b| {
        b.iter(|| build_mesh(&sites, &flags, 1.0, 1.0).unwrap())
    });
    group.bench_function("1M_lloyd3", |b| b.iter(|| mesh_world(1_000_000)));
    group.finish();
}

fn poisson(c: &mut Criterion) {
    let rect = Rect::from_size(1024.0, 1024.0).unwrap();
    let mut group = c.benchmark_group("poisson");
    group.bench_function("1024sq_r4", |b| {
        b.iter(|| poisson_disc(&mut seed::rng_from_seed(1), rect, 4.0, 30).unwrap())
    });
    group.finish();
}

criterion_group!(benches, mesh, poisson);
criterion_main!(benches);
