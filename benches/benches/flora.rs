//! Flora: growing tree models by space colonisation, and placing plants by biome.
//!
//! Placement runs on a synthetic ground (no biome stage needed): a jittered lattice of sites
//! with biomes in smooth blobs (water, beach, grassland, forest, rainforest, desert, taiga,
//! tundra, snow), looked up by nearest site as the pipeline does.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use orogen_flora::{
    FloraTable, Ground, GrowthParams, Placement, SiteLocator, default_biomes, default_species,
    grow_3d, place,
};
use orogen_world::ids::Biome;
use orogen_world::seed::{item_seed, rng_from_seed, splitmix64};

fn grow_trees(c: &mut Criterion) {
    let species = default_species();
    let broadleaf = &species[0];
    let params = GrowthParams::default();
    let crowns: Vec<Vec<[f64; 3]>> = (0..100)
        .map(|i| broadleaf.attractors_3d(2000, &mut rng_from_seed(item_seed(1, i))))
        .collect();
    let mut group = c.benchmark_group("flora_grow");
    group.sample_size(10);
    group.throughput(Throughput::Elements(100));
    group.bench_function("100_trees_2000_attractors", |b| {
        b.iter(|| {
            crowns
                .iter()
                .enumerate()
                .map(|(i, crown)| {
                    grow_3d([0.0; 3], crown, &params, i as u64)
                        .unwrap()
                        .nodes
                        .len()
                })
                .sum::<usize>()
        })
    });
    group.finish();
}

/// A jittered lattice of about `cells` sites on the unit square and a biome per site.
fn synthetic_ground(cells: usize) -> (Vec<[f64; 2]>, Vec<u8>) {
    let n = (cells as f64).sqrt().round() as usize;
    let h = 1.0 / n as f64;
    let mut sites = Vec::with_capacity(n * n);
    let mut biomes = Vec::with_capacity(n * n);
    for j in 0..n {
        for i in 0..n {
            let k = (j * n + i) as u64;
            let jx = (splitmix64(k) >> 11) as f64 / (1u64 << 53) as f64;
            let jy = (splitmix64(k ^ 0xABCD) >> 11) as f64 / (1u64 << 53) as f64;
            let (x, y) = ((i as f64 + jx) * h, (j as f64 + jy) * h);
            sites.push([x, y]);
            let e = (6.0 * x).sin() * (5.0 * y).cos() + 0.3 * (17.0 * x + 11.0 * y).sin();
            let m = (4.0 * y + 1.0).sin() * (7.0 * x).cos();
            let b = match (e, m) {
                (e, _) if e < -0.2 => Biome::Ocean,
                (e, _) if e < -0.1 => Biome::Beach,
                (e, m) if e < 0.4 && m < -0.3 => Biome::Desert,
                (e, m) if e < 0.4 && m < 0.2 => Biome::Grassland,
                (e, m) if e < 0.4 && m < 0.6 => Biome::Forest,
                (e, _) if e < 0.4 => Biome::Rainforest,
                (e, m) if e < 0.8 && m < 0.0 => Biome::Tundra,
                (e, _) if e < 0.8 => Biome::Taiga,
                _ => Biome::Snow,
            };
            biomes.push(b.id());
        }
    }
    (sites, biomes)
}

fn placement(c: &mut Criterion) {
    let species = default_species();
    let table = FloraTable::new(&species, &default_biomes()).unwrap();
    let knobs = Placement {
        density_scale: 1.0,
        undergrowth_clearance: 0.5,
        models_per_species: 4,
    };
    let mut group = c.benchmark_group("flora_place");
    group.sample_size(10);
    for cells in [50_000usize, 1_000_000] {
        let (sites, biomes) = synthetic_ground(cells);
        let locator = SiteLocator::new(sites, 1.0, 1.0);
        let ground = Ground {
            width: 1.0,
            height: 1.0,
            region_biome: &biomes,
            region_of: &|p| locator.region_of(p),
            blocked: &|_| false,
        };
        let n = place(&ground, &species, &table, &knobs, 5).unwrap().len();
        eprintln!("flora_place/{cells}: {n} plants");
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(cells), &ground, |b, g| {
            b.iter(|| place(g, &species, &table, &knobs, 5).unwrap().len())
        });
    }
    group.finish();
}

criterion_group!(benches, grow_trees, placement);
criterion_main!(benches);
