//! Hydrology on the mesh: routing (Priority-Flood), flow accumulation and river selection on
//! default worlds of 50,000 and 1,000,000 cells.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use orogen_hydrology::graph::{
    self, CsrGraph, RiverInput, accumulate, mesh_outlets, priority_flood, sea_distance,
    select_rivers, spill_nodes,
};

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("hydrology_mesh");
    group.sample_size(10);
    for cells in [50_000usize, 1_000_000] {
        let mut config = orogen::Config::default();
        config.world.cells = cells;
        let world = orogen::generate(&config).expect("a default world");
        let mesh = world.mesh().unwrap();
        let elevation: Vec<f32> = world.view1::<f32>("corner_elevation").unwrap().to_vec();
        let water: Vec<u8> = world.view1::<u8>("region_water").unwrap().to_vec();
        let outlets = mesh_outlets(mesh, &water).unwrap();
        let graph_csr = CsrGraph::from_csr(&mesh.corner_neighbors).unwrap();
        group.bench_function(BenchmarkId::new("routing", cells), |b| {
            b.iter(|| priority_flood(graph_csr, &elevation, &outlets).unwrap())
        });
        let routing = priority_flood(graph_csr, &elevation, &outlets).unwrap();
        let contribution: Vec<u32> = outlets.iter().map(|&o| u32::from(!o)).collect();
        group.bench_function(BenchmarkId::new("accumulation", cells), |b| {
            b.iter(|| accumulate(&routing.downstream, &routing.order, &contribution).unwrap())
        });
        let flow = accumulate(&routing.downstream, &routing.order, &contribution).unwrap();
        let xy = mesh.corner_xy.as_slice().unwrap();
        let (hops, _) = sea_distance(&routing, xy).unwrap();
        let _spill = spill_nodes(&routing);
        let corner_lake: Vec<i32> = world.view1::<i32>("corner_lake").unwrap().to_vec();
        let is_land: Vec<bool> = outlets.iter().map(|&o| !o).collect();
        let input = RiverInput {
            graph: graph_csr,
            downstream: &routing.downstream,
            flow: &flow,
            hops: &hops,
            xy,
            is_land: &is_land,
            corner_lake: &corner_lake,
            spacing: (1.0 / mesh.n_regions() as f64).sqrt(),
            metres_per_unit: world.meta.world_size_m,
        };
        let params = graph::Params::default();
        group.bench_function(BenchmarkId::new("river_selection", cells), |b| {
            b.iter(|| select_rivers(&input, &params.selection).unwrap())
        });
        group.bench_function(BenchmarkId::new("whole_stage", cells), |b| {
            b.iter(|| graph::compute(&world, &params).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
