//! The biome stage (moisture + classification + colour table) at 50,000 and 1,000,000 cells,
//! the colour-table blur, and the colour map at 4096^2.
//!
//! Worlds have a real mesh (`orogen-mesh`) and a synthetic island-shaped elevation, so the bench
//! measures this stage alone.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use orogen_biome::{ColorTable, Palette, Params, Whittaker};
use orogen_export::colormap::{ColormapOptions, WaterColors, colormap};
use orogen_export::grid::PixelGrid;
use orogen_world::{Domain, World, WorldMeta};

/// A world with a real mesh of `cells` regions (`orogen-mesh` defaults: Poisson sites, 3 Lloyd
/// iterations) and a synthetic island-shaped elevation (land about 40%), ocean elsewhere.
fn mesh_world(cells: usize) -> World {
    let mut world = World::new(WorldMeta::default());
    orogen_mesh::run(&mut world, &orogen_mesh::Params::default(), cells).unwrap();
    let mesh = world.mesh().unwrap();
    let n = mesh.n_regions();
    let base: Vec<f32> = (0..n)
        .map(|r| {
            let (x, y) = (mesh.region_xy[[r, 0]], mesh.region_xy[[r, 1]]);
            let d2 = ((x - 0.5).powi(2) + (y - 0.5).powi(2)) / 0.16;
            let wobble = 0.15 * ((11.0 * x).sin() * (7.0 * y).cos() + (23.0 * x * y).sin());
            (0.6 - d2 + wobble) as f32
        })
        .collect();
    let hi = base.iter().copied().fold(0.0f32, f32::max);
    let lo = base.iter().copied().fold(0.0f32, f32::min);
    let elev: Vec<f32> = base
        .iter()
        .map(|&b| if b > 0.0 { b / hi } else { -b / lo.min(-1e-6) })
        .collect();
    let kind: Vec<u8> = base.iter().map(|&b| u8::from(b <= 0.0)).collect();
    world
        .set_values("region_elevation", Domain::Region, elev)
        .unwrap();
    world
        .set_values("region_water", Domain::Region, kind)
        .unwrap();
    world
}

fn stage(c: &mut Criterion) {
    let mut group = c.benchmark_group("biome_stage");
    group.sample_size(10);
    for (name, cells) in [("50k", 50_000usize), ("1M", 1_000_000)] {
        let world = mesh_world(cells);
        group.throughput(Throughput::Elements(cells as u64));
        group.bench_function(name, |b| {
            b.iter_batched_ref(
                || world.clone(),
                |w| orogen_biome::run(w, &Params::default()).unwrap(),
                criterion::BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

fn table(c: &mut Criterion) {
    c.bench_function("biome_color_table_256_blur8", |b| {
        b.iter(|| ColorTable::build(&Whittaker::default(), &Palette::default(), 8.0))
    });
}

fn color_map(c: &mut Criterion) {
    let mut world = mesh_world(50_000);
    orogen_biome::run(&mut world, &Params::default()).unwrap();
    let p = Palette::default();
    let options = ColormapOptions {
        water: WaterColors {
            shallow: p.shallow_ocean,
            deep: p.deep_ocean,
            lake: p.lake,
            river: p.river,
        },
        hillshade: 0.0,
        rivers: true,
    };
    let grid = PixelGrid::centres(4096, 1.0, 1.0).unwrap();
    let mut group = c.benchmark_group("colormap");
    group.sample_size(10);
    group.throughput(Throughput::Elements(grid.len() as u64));
    group.bench_function("4096_50k", |b| {
        b.iter(|| colormap(&world, &grid, &options).unwrap())
    });
    let shaded = ColormapOptions {
        hillshade: 4.0,
        ..options
    };
    group.bench_function("4096_50k_hillshade", |b| {
        b.iter(|| colormap(&world, &grid, &shaded).unwrap())
    });
    group.finish();
}

criterion_group!(benches, stage, table, color_map);
criterion_main!(benches);
