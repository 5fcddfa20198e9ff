//! Flora on whole 50,000-cell worlds: the default pipeline through `orogen::generate`, and the
//! real mesh with a synthetic biome map.
//!
//! The flora stage runs once a biome stage has written `region_biome`; until then the pipeline
//! skips it, and the first test checks that it did.

use ndarray::Array1;
use orogen_flora::{SegmentMask, SiteLocator};
use orogen_world::ids::Biome;
use orogen_world::{Domain, World};

#[test]
fn default_world_has_trees_where_they_belong() {
    let config = orogen::Config::default();
    assert_eq!(config.world.cells, 50_000);
    let world = orogen::generate(&config).unwrap();
    if !world.has_layer("region_biome") {
        assert!(
            !world.has_layer("flora_xy"),
            "flora ran without a biome map"
        );
        return;
    }
    check_flora(&world, &config);
}

/// The default mesh with biomes in bands and blobs (every kind present).
fn mesh_with_synthetic_biomes(config: &orogen::Config) -> World {
    let mut world = orogen::generate(config).unwrap();
    let mesh = world.mesh().unwrap();
    let biomes = Array1::from_shape_fn(mesh.n_regions(), |r| {
        let (x, y) = (mesh.region_xy[[r, 0]], mesh.region_xy[[r, 1]]);
        let e = (6.0 * x).sin() * (5.0 * y).cos() + 0.3 * (17.0 * x + 11.0 * y).sin();
        let m = (4.0 * y + 1.0).sin() * (7.0 * x).cos();
        let b = match (e, m) {
            (e, _) if e < -0.3 => Biome::Ocean,
            (e, _) if e < -0.2 => Biome::Lake,
            (e, _) if e < -0.1 => Biome::Beach,
            (e, m) if e < 0.4 && m < -0.3 => Biome::Desert,
            (e, m) if e < 0.4 && m < 0.2 => Biome::Grassland,
            (e, m) if e < 0.4 && m < 0.6 => Biome::Forest,
            (e, _) if e < 0.4 => Biome::Rainforest,
            (e, m) if e < 0.8 && m < -0.4 => Biome::Mountain,
            (e, m) if e < 0.8 && m < 0.0 => Biome::Tundra,
            (e, _) if e < 0.8 => Biome::Taiga,
            _ => Biome::Snow,
        };
        b.id()
    });
    world
        .set_layer("region_biome", Domain::Region, biomes.into_dyn())
        .unwrap();
    world
}

#[test]
fn real_mesh_with_a_synthetic_biome_map() {
    let config = orogen::Config::default();
    let base = mesh_with_synthetic_biomes(&config);
    let run = |threads: usize| {
        rayon_pool(threads).install(|| {
            let mut world = base.clone();
            orogen_flora::run(&mut world, &config.flora).unwrap();
            world
        })
    };
    let world = run(1);
    check_flora(&world, &config);
    assert!(world == run(2), "1 and 2 threads differ");
}

fn rayon_pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

/// Every placement property of the issue on a world the flora stage ran on.
fn check_flora(world: &World, config: &orogen::Config) {
    let mesh = world.mesh().unwrap();
    let n_regions = mesh.n_regions();
    let biomes = world.view1::<u8>("region_biome").unwrap();
    let xy = world.view2::<f64>("flora_xy").unwrap();
    assert!(xy.nrows() >= 1000, "{} plants", xy.nrows());

    let sites: Vec<[f64; 2]> = mesh
        .region_xy
        .rows()
        .into_iter()
        .map(|r| [r[0], r[1]])
        .collect();
    let (w, h) = (world.meta.width, world.meta.height);
    let locator = SiteLocator::new(sites, w, h);
    let water = world.water_kinds().ok();
    // Rivers, with a clearance slightly under the stage's (rounding).
    let rivers: Vec<Vec<[f64; 2]>> = match world.offsets("rivers") {
        Ok(offsets) => {
            let ids = world.view1::<u32>("rivers").unwrap();
            offsets
                .windows(2)
                .map(|o| {
                    (o[0]..o[1])
                        .map(|i| {
                            let c = ids[i as usize] as usize;
                            [mesh.corner_xy[[c, 0]], mesh.corner_xy[[c, 1]]]
                        })
                        .collect()
                })
                .collect()
        }
        Err(_) => Vec::new(),
    };
    let spacing = (w * h / n_regions as f64).sqrt();
    let on_river = SegmentMask::new(&rivers, 0.99 * config.flora.river_clearance * spacing, w, h);

    let mut count = [0usize; Biome::COUNT];
    for p in xy.rows() {
        let p = [p[0], p[1]];
        let r = locator.region_of(p).unwrap();
        let b = Biome::from_id(biomes[r]).unwrap();
        assert!(
            !matches!(b, Biome::Ocean | Biome::Lake | Biome::Beach | Biome::Snow),
            "a plant on {b:?} at {p:?}"
        );
        if let Some(water) = &water {
            assert_eq!(
                water[r],
                orogen_world::ids::water::LAND,
                "a plant on water at {p:?}"
            );
        }
        assert!(!on_river.contains(p), "a plant on a river at {p:?}");
        count[b.id() as usize] += 1;
    }
    // Density per unit area: forest at least 3x grassland.
    let area = |b: Biome| -> f64 {
        let areas = world.view1::<f64>("region_area").ok();
        (0..n_regions)
            .filter(|&r| biomes[r] == b.id())
            .map(|r| areas.as_ref().map_or(w * h / n_regions as f64, |a| a[r]))
            .sum()
    };
    let density = |b: Biome| count[b.id() as usize] as f64 / area(b).max(f64::MIN_POSITIVE);
    assert!(area(Biome::Forest) > 0.0 && area(Biome::Grassland) > 0.0);
    assert!(
        density(Biome::Forest) >= 3.0 * density(Biome::Grassland),
        "forest {} vs grassland {} plants per unit area",
        density(Biome::Forest),
        density(Biome::Grassland)
    );
}
