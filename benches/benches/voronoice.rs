//! The mesh against voronoice 0.2 on the same points, side by side (a target of the speed
//! issue): orogen's `mesh_from_sites` (3 area-centroid Lloyd steps on exactly clipped cells, then
//! the dual mesh and its layers) against `voronoice::VoronoiBuilder` with 3 of its own
//! (corner-mean) Lloyd relaxations, on the sites of a default world of 50,000 and 1,000,000 cells
//! (`orogen_mesh::world_sites`, boundary sites included as plain sites for voronoice).
//!
//! `cargo bench -p orogen-benches --bench voronoice` (both sizes; `-- 50k` for the smaller).

use criterion::{Criterion, criterion_group, criterion_main};
use orogen_mesh::{SamplerKind, mesh_from_sites, world_sites};
use voronoice::{BoundingBox, Point, VoronoiBuilder};

fn side_by_side(c: &mut Criterion) {
    let mut group = c.benchmark_group("mesh_vs_voronoice");
    group.sample_size(10);
    for (name, n) in [("50k", 50_000), ("1M", 1_000_000)] {
        let (sites, flags) = world_sites(123, n, 1.0, 1.0, SamplerKind::Uniform).unwrap();
        let points: Vec<Point> = sites.iter().map(|p| Point { x: p[0], y: p[1] }).collect();
        // The two run one after the other in one process, on the same points.
        group.bench_function(format!("{name}/orogen_lloyd3"), |b| {
            b.iter(|| mesh_from_sites(&sites, &flags, 1.0, 1.0, 3).unwrap())
        });
        group.bench_function(format!("{name}/voronoice_lloyd3"), |b| {
            b.iter(|| {
                VoronoiBuilder::default()
                    .set_sites(points.clone())
                    .set_bounding_box(BoundingBox::new(Point { x: 0.5, y: 0.5 }, 1.0, 1.0))
                    .set_lloyd_relaxation_iterations(3)
                    .build()
                    .unwrap()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, side_by_side);
criterion_main!(benches);
