//! The biome stage (moisture + classification + colour table) at 50,000 and 1,000,000 cells,
//! the colour-table blur, and the colour map at 4096^2.
//!
//! Worlds are synthetic so the bench measures this stage alone: a triangulated square grid of
//! sites (about six neighbours per region, as a Delaunay mesh) with an island-shaped elevation.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ndarray::{Array1, Array2};
use orogen_biome::{ColorTable, Palette, Params, Whittaker};
use orogen_export::colormap::{ColormapOptions, WaterColors, colormap};
use orogen_export::grid::PixelGrid;
use orogen_world::{Csr, Domain, DualMesh, World, WorldMeta};

/// A `k x k` grid of sites on the unit square, each square split into two triangles, with an
/// island-shaped elevation (land about 40%) and ocean elsewhere.
fn grid_world(k: usize) -> World {
    let n = k * k;
    let id = |i: usize, j: usize| (j * k + i) as u32;
    let region_xy = Array2::from_shape_fn((n, 2), |(r, c)| {
        let v = if c == 0 { r % k } else { r / k };
        v as f64 / (k - 1) as f64
    });
    let mut tris: Vec<[u32; 3]> = Vec::with_capacity(2 * (k - 1) * (k - 1));
    for j in 0..k - 1 {
        for i in 0..k - 1 {
            tris.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
            tris.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
        }
    }
    let mut nbrs: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut rc: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (t, tri) in tris.iter().enumerate() {
        for a in 0..3 {
            let (u, v) = (tri[a] as usize, tri[(a + 1) % 3]);
            if !nbrs[u].contains(&v) {
                nbrs[u].push(v);
                nbrs[v as usize].push(u as u32);
            }
            rc[u].push(t as u32);
        }
    }
    let corner_xy = Array2::from_shape_fn((tris.len(), 2), |(t, c)| {
        tris[t]
            .iter()
            .map(|&r| region_xy[[r as usize, c]])
            .sum::<f64>()
            / 3.0
    });
    let corner_regions = Array2::from_shape_fn((tris.len(), 3), |(t, c)| tris[t][c]);
    let empty: Vec<Vec<u32>> = vec![Vec::new(); tris.len()];
    let mesh = DualMesh {
        region_xy,
        region_is_boundary: Array1::zeros(n),
        corner_xy,
        corner_regions,
        region_neighbors: Csr::from_lists(&nbrs),
        region_corners: Csr::from_lists(&rc),
        corner_neighbors: Csr::from_lists(&empty),
    };
    let mut world = World::new(WorldMeta::default());
    let base: Vec<f32> = (0..n)
        .map(|r| {
            let (x, y) = (mesh.region_xy[[r, 0]], mesh.region_xy[[r, 1]]);
            let d2 = ((x - 0.5).powi(2) + (y - 0.5).powi(2)) / 0.16;
            let wobble = 0.15 * ((11.0 * x).sin() * (7.0 * y).cos() + (23.0 * x * y).sin());
            (0.6 - d2 + wobble) as f32
        })
        .collect();
    world.set_mesh(mesh).unwrap();
    let hi = base.iter().copied().fold(0.0f32, f32::max);
    let lo = base.iter().copied().fold(0.0f32, f32::min);
    let elev: Vec<f32> = base
        .iter()
        .map(|&b| if b > 0.0 { b / hi } else { -b / lo.min(-1e-6) })
        .collect();
    let kind: Vec<u8> = base.iter().map(|&b| u8::from(b <= 0.0)).collect();
    world
        .set_layer(
            "region_elevation",
            Domain::Region,
            Array1::from(elev).into_dyn(),
        )
        .unwrap();
    world
        .set_layer(
            "region_water",
            Domain::Region,
            Array1::from(kind).into_dyn(),
        )
        .unwrap();
    world
}

fn stage(c: &mut Criterion) {
    let mut group = c.benchmark_group("biome_stage");
    group.sample_size(10);
    for (name, k) in [("50k", 224usize), ("1M", 1000)] {
        let world = grid_world(k);
        group.throughput(Throughput::Elements((k * k) as u64));
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
    let mut world = grid_world(224);
    orogen_biome::run(&mut world, &Params::default()).unwrap();
    let p = Palette::default();
    let options = ColormapOptions {
        water: WaterColors {
            shallow: p.shallow_ocean,
            deep: p.deep_ocean,
            lake: p.lake,
            river: p.river,
        },
        hillshade: false,
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
        hillshade: true,
        ..options
    };
    group.bench_function("4096_50k_hillshade", |b| {
        b.iter(|| colormap(&world, &grid, &shaded).unwrap())
    });
    group.finish();
}

criterion_group!(benches, stage, table, color_map);
criterion_main!(benches);
