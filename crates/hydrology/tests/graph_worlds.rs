//! The properties on real worlds: the mesh and elevation stages (dev-dependencies only)
//! at 50,000 cells with default parameters, seeds 1..10.

mod graph_util;

use graph_util::{check_hydrology, u8s};
use orogen_hydrology::graph::{self, Params};
use orogen_world::{World, WorldMeta};

fn real_world(seed: u64, cells: usize) -> World {
    let mut world = World::new(WorldMeta {
        seed,
        ..WorldMeta::default()
    });
    orogen_mesh::run(&mut world, &orogen_mesh::Params::default(), cells).unwrap();
    orogen_elevation::run(&mut world, &orogen_elevation::Params::default()).unwrap();
    world
}

#[test]
fn fifty_thousand_cell_worlds_have_long_distinct_joined_rivers() {
    let mut lines = Vec::new();
    for seed in 1..=10 {
        let mut world = real_world(seed, 50_000);
        let before = u8s(&world, "region_water");
        graph::run(&mut world, &Params::default()).unwrap();
        let stats = check_hydrology(&world, &before, true);
        lines.push(format!("seed {seed}: {stats:?}"));
        assert!(stats.n_rivers >= 80, "seed {seed}: {stats:?}");
        assert!(
            3 * stats.n_joining >= stats.n_rivers,
            "seed {seed}: too few tributaries: {stats:?}"
        );
        assert!(
            stats.median_source_percentile > 0.65,
            "seed {seed}: sources too low: {stats:?}"
        );
    }
    eprintln!("{}", lines.join("\n"));
}

#[test]
fn carving_on_a_real_world_keeps_every_property() {
    let mut world = real_world(4, 20_000);
    let before = u8s(&world, "region_water");
    let params = Params {
        depressions: graph::Depressions::Carve,
        ..Params::default()
    };
    graph::run(&mut world, &params).unwrap();
    let stats = check_hydrology(&world, &before, false);
    assert!(stats.n_rivers >= 30, "{stats:?}");
}
