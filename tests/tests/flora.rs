//! Flora on a whole default world (50,000 cells), through `orogen::generate`.
//!
//! The flora stage runs once a biome stage has written `region_biome`; until then the pipeline
//! skips it, and this test checks that it did (the placement properties are also tested on a
//! synthetic biome map in `crates/flora`).

use orogen_flora::{SegmentMask, SiteLocator};
use orogen_world::ids::Biome;

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
    let water = world.view1::<u8>("region_water").ok();
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
