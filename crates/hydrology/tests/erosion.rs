//! Erosion physics on real worlds (the mesh and elevation stages, dev-dependencies only).
#![allow(clippy::needless_range_loop)] // per-node checks read several arrays at one index

use orogen_hydrology::erosion::{
    self, Grid, Law, Mode, Params, evolve, mesh_problem, route, steady_state,
};
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

/// Least-squares line through `(x, y)`: (slope, intercept).
fn fit(points: &[(f64, f64)]) -> (f64, f64) {
    let n = points.len() as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = points.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let slope = sxy / sxx;
    (slope, my - slope * mx)
}

/// Channel nodes (drainage area at least `min_area`) of the surface `h`, as (log A, log S).
fn slope_area(
    g: &erosion::Mesh<'_>,
    h: &[f64],
    base: &[bool],
    area: &[f64],
    min_area: f64,
) -> Vec<(f64, f64)> {
    let flow = route(g, h, base, area);
    (0..h.len())
        .filter(|&i| !base[i] && flow.area[i] >= min_area && flow.receiver[i] as usize != i)
        .map(|i| {
            let s = (h[i] - h[flow.receiver[i] as usize]) / flow.distance[i];
            (flow.area[i].ln(), s.ln())
        })
        .collect()
}

const U: f64 = 1e-3;

fn law(k: f64, m: f64, n: f64) -> Law {
    Law {
        k,
        m,
        n,
        diffusion: 0.0,
    }
}

#[test]
fn transient_runs_reach_the_steady_state_slope_area_law() {
    // A 20,000-cell world's land (its coasts, areas and mesh) in steady state under a uniform
    // uplift U / 2, then uplifted at U: the mean elevation rises monotonically until it is
    // within 1% of the new steady state and stays within 1% of it, where on channels
    // log S = log((U / K)^(1/n)) - (m / n) log A. (The network still reorganises a little near
    // the end: steepest descent on the new surface captures a few channels, which lowers the
    // mean by a fraction of a percent. From a rough or flat start it reorganises much more as it
    // rises, and the mean overshoots by up to 10% before captures bring it down.)
    let world = real_world(3, 20_000);
    for &(k, m, n) in &[(1e-5, 0.4, 1.0), (2e-4, 0.5, 2.0)] {
        let mut p = mesh_problem(&world, U).unwrap();
        let land: Vec<usize> = (0..p.h.len()).filter(|&i| !p.base[i]).collect();
        for &i in &land {
            p.uplift[i] = U / 2.0;
        }
        steady_state(
            &p.graph,
            &mut p.h,
            &p.base,
            &p.area,
            &p.uplift,
            &law(k, m, n),
            100,
        );
        for &i in &land {
            p.uplift[i] = U;
        }
        let mean = |h: &[f64]| land.iter().map(|&i| h[i]).sum::<f64>() / land.len() as f64;
        let mut ss = p.h.clone();
        steady_state(
            &p.graph,
            &mut ss,
            &p.base,
            &p.area,
            &p.uplift,
            &law(k, m, n),
            100,
        );
        let target = mean(&ss);
        let mut means = vec![mean(&p.h)];
        for _ in 0..60 {
            evolve(
                &p.graph,
                &mut p.h,
                &p.base,
                &p.area,
                &p.uplift,
                &law(k, m, n),
                2e5,
                5,
            );
            means.push(mean(&p.h));
        }
        eprintln!("k {k} m {m} n {n}: mean {means:.1?}, steady state {target:.1}");
        let near = |v: f64| (v - target).abs() <= 0.01 * target;
        let arrival = means
            .iter()
            .position(|&v| near(v))
            .expect("never near the steady state");
        for w in means[..=arrival].windows(2) {
            assert!(w[1] > w[0], "not monotone: {means:?}");
        }
        assert!(means[arrival..].iter().all(|&v| near(v)), "{means:?}");
        let last = means[means.len() - 1];
        assert!(near(last), "{last} vs {target}");
        let cell = p.area.iter().sum::<f64>() / p.area.len() as f64;
        let points = slope_area(&p.graph, &p.h, &p.base, &p.area, 10.0 * cell);
        assert!(points.len() > 300, "{} channel nodes", points.len());
        let (slope, intercept) = fit(&points);
        let expected = (U / k).powf(1.0 / n).ln();
        eprintln!(
            "k {k} m {m} n {n}: {} channel nodes, slope {slope:.4} (expected {:.4}), intercept {intercept:.4} (expected {expected:.4})",
            points.len(),
            -m / n
        );
        assert!((slope + m / n).abs() <= 0.05, "slope {slope}");
        assert!(
            (intercept - expected).abs() <= 0.05 * expected.abs(),
            "intercept {intercept} vs {expected}"
        );
    }
}

#[test]
fn without_erosion_or_diffusion_land_only_rises_by_uplift() {
    let world = real_world(5, 5_000);
    let mut p = mesh_problem(&world, U).unwrap();
    let before = p.h.clone();
    let dt = 1e4;
    let stats = evolve(
        &p.graph,
        &mut p.h,
        &p.base,
        &p.area,
        &p.uplift,
        &law(0.0, 0.4, 1.0),
        dt,
        7,
    );
    assert_eq!(stats.steps, 7);
    let mut risen = 0;
    for i in 0..p.h.len() {
        let expected = before[i]
            + if p.base[i] {
                0.0
            } else {
                7.0 * dt * p.uplift[i]
            };
        assert!(
            (p.h[i] - expected).abs() <= 1e-9 * expected.abs().max(1.0),
            "{i}"
        );
        risen += usize::from(p.h[i] > before[i]);
    }
    assert!(risen > 1000, "{risen} nodes rose");
}

#[test]
fn the_stage_carves_valleys_keeps_the_relief_and_the_water() {
    let mut world = real_world(7, 10_000);
    let before: Vec<f32> = world.view1::<f32>("region_elevation").unwrap().to_vec();
    let water: Vec<u8> = world.view1::<u8>("region_water").unwrap().to_vec();
    let params = Params {
        mode: Mode::Transient,
        ..Params::default()
    };
    let report = erosion::run(&mut world, &params).unwrap();
    assert_eq!(report.stats.steps, params.steps);
    let after: Vec<f32> = world.view1::<f32>("region_elevation").unwrap().to_vec();
    let max = |v: &[f32]| v.iter().copied().fold(f32::MIN, f32::max);
    assert!((max(&after) - max(&before)).abs() <= 1e-6 * max(&before));
    let mut changed = 0;
    for i in 0..after.len() {
        if water[i] != 0 {
            assert_eq!(after[i], before[i]);
        } else {
            assert!(after[i] > 0.0);
            changed += usize::from(after[i] != before[i]);
        }
    }
    assert!(changed > 1000, "{changed}");
    // Corners are the means of their regions.
    let corner = world.view1::<f32>("corner_elevation").unwrap();
    let mesh = world.mesh().unwrap();
    for c in (0..mesh.n_corners()).step_by(97) {
        let tri = mesh.corner_regions.row(c);
        let mean = tri
            .iter()
            .map(|&r| f64::from(after[r as usize]))
            .sum::<f64>()
            / 3.0;
        assert_eq!(corner[c], mean as f32);
    }
}

#[test]
fn same_bytes_for_any_thread_count() {
    let world = real_world(2, 20_000);
    let run = |threads: usize, mode: Mode| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut p = mesh_problem(&world, U).unwrap();
            let params = Params {
                mode,
                steps: 20,
                diffusion: 10.0,
                n: if mode == Mode::Transient { 1.5 } else { 1.0 },
                ..Params::default()
            };
            params.apply(&p.graph, &mut p.h, &p.base, &p.area, &p.uplift);
            p.h.iter().map(|v| v.to_bits()).collect::<Vec<u64>>()
        })
    };
    for mode in [Mode::Transient, Mode::SteadyState] {
        let one = run(1, mode);
        assert_eq!(one, run(2, mode), "{mode:?}");
        assert_eq!(one, run(8, mode), "{mode:?}");
    }
}

#[test]
fn bad_parameters_name_their_path_and_range() {
    let bad = [
        Params {
            k: -1.0,
            ..Params::default()
        },
        Params {
            mode: Mode::SteadyState,
            k: 0.0,
            ..Params::default()
        },
        Params {
            n: 0.0,
            ..Params::default()
        },
        Params {
            dt: f64::NAN,
            ..Params::default()
        },
    ];
    for (p, name) in bad.iter().zip(["k", "k", "n", "dt"]) {
        let e = p.validate().unwrap_err();
        assert_eq!(e.param, name);
        assert!(!e.allowed.is_empty());
    }
    let dem = ndarray::Array2::<f64>::zeros((4, 5));
    let wrong = ndarray::Array2::<f64>::zeros((5, 4));
    let e =
        erosion::erode_grid(dem.view(), wrong.view(), 1.0, 1.0, &Params::default()).unwrap_err();
    assert_eq!(e.param, "uplift");
    assert!(e.allowed.contains("4x5"), "{e}");
}

#[test]
fn a_raster_erodes_like_the_mesh() {
    // A tilted noisy raster drained by its border: uplift with erosion converges to the same
    // slope-area law on the grid's D8 graph.
    let (rows, cols) = (60, 80);
    let g = Grid {
        rows,
        cols,
        dx: 200.0,
        dy: 200.0,
    };
    let base = g.border();
    let mut h: Vec<f64> = (0..rows * cols)
        .map(|i| {
            if base[i] {
                0.0
            } else {
                ((i * 7919) % 101) as f64 * 0.01
            }
        })
        .collect();
    let area = vec![200.0 * 200.0; rows * cols];
    let uplift = vec![U; rows * cols];
    let k = 1e-5;
    let stats = evolve(
        &g,
        &mut h,
        &base,
        &area,
        &uplift,
        &law(k, 0.45, 1.0),
        1e5,
        400,
    );
    assert_eq!(stats.steps, 400);
    let flow = route(&g, &h, &base, &area);
    let points: Vec<(f64, f64)> = (0..h.len())
        .filter(|&i| !base[i] && flow.area[i] >= 20.0 * 4e4)
        .map(|i| {
            let s = (h[i] - h[flow.receiver[i] as usize]) / flow.distance[i];
            (flow.area[i].ln(), s.ln())
        })
        .collect();
    let (slope, intercept) = fit(&points);
    assert!((slope + 0.45).abs() <= 0.05, "{slope}");
    assert!(
        ((intercept - (U / k).ln()) / (U / k).ln()).abs() <= 0.05,
        "{intercept}"
    );
}
