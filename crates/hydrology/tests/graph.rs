//! The graph kernels and the mesh adapter on hand-built meshes and random graphs.

#![allow(clippy::needless_range_loop)]

mod graph_util;

use graph_util::{check_hydrology, f32s, island_world, splitmix, u8s, unit};
use orogen_hydrology::graph::{
    self, CsrGraph, Depressions, Params, accumulate, accumulate_by, priority_flood,
};

fn rng_graph(n: usize, seed: u64) -> (Vec<u32>, Vec<u32>, Vec<f32>, Vec<bool>) {
    // A random connected graph: a random spanning tree plus extra random edges.
    let mut state = seed;
    let mut lists = vec![Vec::new(); n];
    for i in 1..n {
        let j = (splitmix(&mut state) % i as u64) as usize;
        lists[i].push(j as u32);
        lists[j].push(i as u32);
    }
    for _ in 0..n {
        let a = (splitmix(&mut state) % n as u64) as usize;
        let b = (splitmix(&mut state) % n as u64) as usize;
        if a != b && !lists[a].contains(&(b as u32)) {
            lists[a].push(b as u32);
            lists[b].push(a as u32);
        }
    }
    let mut offsets = vec![0u32];
    let mut targets = Vec::new();
    for l in &lists {
        targets.extend_from_slice(l);
        offsets.push(targets.len() as u32);
    }
    let elev: Vec<f32> = (0..n)
        .map(|_| (unit(&mut state) * 4.0).round() as f32 / 4.0)
        .collect();
    let outlet: Vec<bool> = (0..n).map(|i| i % 17 == 0).collect();
    (offsets, targets, elev, outlet)
}

/// The filled level of Priority-Flood is the minimax path value: the lowest, over all paths to
/// an outlet, of the highest elevation on the path. Checked against an independent
/// Bellman-Ford-style relaxation on random graphs with many ties.
#[test]
fn filled_level_is_the_minimax_spill_level_on_random_graphs() {
    for seed in 0..20 {
        let n = 300;
        let (offsets, targets, elev, outlet) = rng_graph(n, seed);
        let graph = CsrGraph::new(&offsets, &targets).unwrap();
        let r = priority_flood(graph, &elev, &outlet).unwrap();
        let mut best: Vec<f32> = (0..n)
            .map(|i| if outlet[i] { elev[i] } else { f32::INFINITY })
            .collect();
        loop {
            let mut changed = false;
            for i in 0..n {
                for &j in graph.neighbors(i) {
                    let via = best[j as usize].max(elev[i]);
                    if via < best[i] {
                        best[i] = via;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        assert_eq!(r.filled, best, "seed {seed}");
        assert_eq!(r.n_unreached, 0);
        for i in 0..n {
            let d = r.downstream[i];
            assert_eq!(d < 0, outlet[i]);
            if d >= 0 {
                assert!(graph.neighbors(i).contains(&(d as u32)));
                assert!(r.filled[d as usize] <= r.filled[i]);
            }
        }
        graph::check_forest(&r.downstream, &r.order).unwrap();
    }
}

#[test]
fn flow_is_the_same_for_one_and_two_threads_and_counts_upstream_nodes() {
    let n = 5000;
    let (offsets, targets, elev, outlet) = rng_graph(n, 99);
    let graph = CsrGraph::new(&offsets, &targets).unwrap();
    let r = priority_flood(graph, &elev, &outlet).unwrap();
    // Contributions whose total fits a `u32` (summed in one), and ones whose sums pass it (each
    // of these alone fits, two together do not).
    for scale in [1, 3_000_000_000u32] {
        let contribution: Vec<u32> = outlet.iter().map(|&o| scale * u32::from(!o)).collect();
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| accumulate(&r.downstream, &r.order, &contribution).unwrap())
        };
        let one = run(1);
        assert_eq!(one, run(2));
        let mut expect = vec![0u64; n];
        for (i, &c) in contribution.iter().enumerate() {
            let mut cur = i as i32;
            while cur >= 0 {
                expect[cur as usize] += u64::from(c);
                cur = r.downstream[cur as usize];
            }
        }
        assert!(expect.iter().any(|&f| f > u64::from(u32::MAX)) == (scale > 1));
        assert_eq!(one, expect, "scale {scale}");
        let by = accumulate_by(&r.downstream, &r.order, |c| contribution[c]).unwrap();
        assert_eq!(by, expect, "scale {scale}");
    }
}

#[test]
fn the_adapter_keeps_every_property_on_island_worlds() {
    for seed in 1..=8 {
        let mut world = island_world(120, seed);
        let before = u8s(&world, "region_water");
        graph::run(&mut world, &Params::default()).unwrap();
        let stats = check_hydrology(&world, &before, true);
        assert!(stats.n_rivers >= 15, "seed {seed}: {stats:?}");
        // This grid terrain has many small coastal basins; the issue's third is checked on
        // real worlds (tests/tests/hydrology.rs).
        assert!(
            8 * stats.n_joining >= stats.n_rivers,
            "seed {seed}: too few tributaries: {stats:?}"
        );
        assert!(
            stats.median_source_percentile > 0.5,
            "seed {seed}: {stats:?}"
        );
    }
}

#[test]
fn lakes_form_in_a_bowl_with_one_outlet_at_the_surface() {
    // A world whose island has a deep crater: the crater must become one lake.
    let mut world = island_world(60, 7);
    let mesh = world.mesh().unwrap().clone();
    let mut region = f32s(&world, "region_elevation");
    for (r, e) in region.iter_mut().enumerate() {
        let (x, y) = (mesh.region_xy[[r, 0]], mesh.region_xy[[r, 1]]);
        let d = ((x - 0.5).powi(2) + (y - 0.5).powi(2)).sqrt();
        if d < 0.12 {
            *e = 0.2 + d as f32; // crater floor, above sea level
        } else if d < 0.16 {
            *e = 0.9; // rim
        }
    }
    let corner: Vec<f32> = (0..mesh.n_corners())
        .map(|c| {
            mesh.corner_regions
                .row(c)
                .iter()
                .map(|&r| region[r as usize])
                .sum::<f32>()
                / 3.0
        })
        .collect();
    world
        .set_layer(
            "region_elevation",
            orogen_world::Domain::Region,
            ndarray::Array1::from(region).into_dyn(),
        )
        .unwrap();
    world
        .set_layer(
            "corner_elevation",
            orogen_world::Domain::Corner,
            ndarray::Array1::from(corner).into_dyn(),
        )
        .unwrap();
    let before = u8s(&world, "region_water");
    graph::run(&mut world, &Params::default()).unwrap();
    let stats = check_hydrology(&world, &before, true);
    assert!(stats.n_lakes >= 1, "{stats:?}");
    let region_lake = graph_util::i32s(&world, "region_lake");
    let centre = (0..mesh.n_regions())
        .min_by(|&a, &b| {
            let da = (mesh.region_xy[[a, 0]] - 0.5).hypot(mesh.region_xy[[a, 1]] - 0.5);
            let db = (mesh.region_xy[[b, 0]] - 0.5).hypot(mesh.region_xy[[b, 1]] - 0.5);
            da.total_cmp(&db)
        })
        .unwrap();
    let lake = region_lake[centre];
    assert!(lake >= 0, "the crater is not a lake");
    let surface = f32s(&world, "lake_surface")[lake as usize];
    assert!((0.9 - 1e-6..1.0).contains(&surface), "surface {surface}");
    // Flow crosses the lake: every crater corner drains through the lake's outlet.
    let outlet = graph_util::u32s(&world, "lake_outlet")[lake as usize];
    let down = graph_util::i32s(&world, "corner_downstream");
    for &c in mesh.region_corners.get(centre) {
        let mut cur = c as i32;
        while cur >= 0 && cur as u32 != outlet {
            cur = down[cur as usize];
        }
        assert_eq!(cur as u32, outlet);
    }
}

#[test]
fn carving_never_rises_downstream_and_keeps_lakes() {
    for seed in 1..=3 {
        let mut world = island_world(100, seed);
        let before = u8s(&world, "region_water");
        let elev_before = f32s(&world, "corner_elevation");
        let params = Params {
            depressions: Depressions::Carve,
            ..Params::default()
        };
        graph::run(&mut world, &params).unwrap();
        let carved = f32s(&world, "corner_elevation");
        assert!(carved.iter().zip(&elev_before).all(|(a, b)| a <= b));
        assert!(
            carved.iter().zip(&elev_before).any(|(a, b)| a < b),
            "nothing carved"
        );
        check_hydrology(&world, &before, false);
    }
}

#[test]
fn same_bytes_for_one_and_two_threads() {
    let run = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                let mut world = island_world(100, 3);
                graph::run(&mut world, &Params::default()).unwrap();
                let mut bytes = Vec::new();
                world.write_npz(&mut bytes, "{}").unwrap();
                bytes
            })
    };
    assert_eq!(run(1), run(2));
}

#[test]
fn bad_params_and_missing_layers_are_errors() {
    let mut params = Params::default();
    params.selection.main.top_fraction = 1.5;
    assert!(params.validate().is_err());
    params = Params::default();
    params.min_lake_regions = 0;
    assert!(params.validate().is_err());
    let mut world = island_world(10, 1);
    world.remove_layer("region_water");
    assert!(matches!(
        graph::run(&mut world, &Params::default()),
        Err(graph::Error::World(_))
    ));
    let text = r#"{"depressions":"carve","selection":{"main":{"spacing":2.5}}}"#;
    let p: Params = serde_json::from_str(text).unwrap();
    assert_eq!(p.depressions, Depressions::Carve);
    assert_eq!(p.selection.main.spacing, 2.5);
    assert_eq!(p.selection.main.top_fraction, 0.07);
    assert!(serde_json::from_str::<Params>(r#"{"lakes":3}"#).is_err());
}

#[test]
fn compute_returns_the_input_elevation_or_the_carved_one_the_stage_writes() {
    let world = island_world(100, 2);
    let input = f32s(&world, "corner_elevation");
    let filled = graph::compute(&world, &Params::default()).unwrap();
    assert_eq!(filled.corner_elevation, input);
    let carve = Params {
        depressions: Depressions::Carve,
        ..Params::default()
    };
    let carved = graph::compute(&world, &carve).unwrap();
    assert_ne!(carved.corner_elevation, input, "nothing carved");
    let mut staged = world.clone();
    graph::run(&mut staged, &carve).unwrap();
    assert_eq!(carved.corner_elevation, f32s(&staged, "corner_elevation"));
}
