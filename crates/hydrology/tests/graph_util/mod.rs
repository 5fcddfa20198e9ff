//! Small hand-built dual meshes for the graph tests: a jittered triangulated grid with a
//! noisy island, so routing, lakes and rivers run on a real `World` without the mesh stage.

#![allow(dead_code, clippy::needless_range_loop)]

use std::collections::BTreeMap;

use ndarray::{Array1, Array2};
use orogen_world::ids::water;
use orogen_world::{Csr, Domain, DualMesh, World, WorldMeta};

pub fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

pub fn unit(state: &mut u64) -> f64 {
    (splitmix(state) >> 11) as f64 / (1u64 << 53) as f64
}

/// A jittered `m x m`-square grid over the unit map, each square split in two triangles.
pub fn grid_mesh(m: usize, seed: u64) -> DualMesh {
    let mut rng = seed;
    let side = m + 1;
    let h = 1.0 / m as f64;
    let mut xy = Array2::<f64>::zeros((side * side, 2));
    let mut boundary = Array1::<u8>::zeros(side * side);
    for j in 0..side {
        for i in 0..side {
            let p = j * side + i;
            let edge = i == 0 || j == 0 || i == m || j == m;
            boundary[p] = u8::from(edge);
            let (jx, jy) = if edge {
                (0.0, 0.0)
            } else {
                (
                    (unit(&mut rng) - 0.5) * 0.4 * h,
                    (unit(&mut rng) - 0.5) * 0.4 * h,
                )
            };
            xy[[p, 0]] = i as f64 * h + jx;
            xy[[p, 1]] = j as f64 * h + jy;
        }
    }
    let mut tris: Vec<[u32; 3]> = Vec::new();
    for j in 0..m {
        for i in 0..m {
            let a = (j * side + i) as u32;
            let b = a + 1;
            let d = a + side as u32;
            let c = d + 1;
            if (i + j) % 2 == 0 {
                tris.push([a, b, c]);
                tris.push([a, c, d]);
            } else {
                tris.push([a, b, d]);
                tris.push([b, c, d]);
            }
        }
    }
    let n_regions = side * side;
    let n_corners = tris.len();
    let mut corner_xy = Array2::<f64>::zeros((n_corners, 2));
    let mut corner_regions = Array2::<u32>::zeros((n_corners, 3));
    let mut edges: BTreeMap<(u32, u32), Vec<u32>> = BTreeMap::new();
    let mut region_corner_lists = vec![Vec::new(); n_regions];
    for (t, tri) in tris.iter().enumerate() {
        for k in 0..3 {
            corner_regions[[t, k]] = tri[k];
            corner_xy[[t, 0]] += xy[[tri[k] as usize, 0]] / 3.0;
            corner_xy[[t, 1]] += xy[[tri[k] as usize, 1]] / 3.0;
            let (u, v) = (tri[k], tri[(k + 1) % 3]);
            edges
                .entry((u.min(v), u.max(v)))
                .or_default()
                .push(t as u32);
            region_corner_lists[tri[k] as usize].push(t as u32);
        }
    }
    let mut region_nb = vec![Vec::new(); n_regions];
    let mut corner_nb = vec![Vec::new(); n_corners];
    for (&(u, v), ts) in &edges {
        region_nb[u as usize].push(v);
        region_nb[v as usize].push(u);
        if ts.len() == 2 {
            corner_nb[ts[0] as usize].push(ts[1]);
            corner_nb[ts[1] as usize].push(ts[0]);
        }
    }
    // Ring order around each site.
    for (r, list) in region_corner_lists.iter_mut().enumerate() {
        let (x, y) = (xy[[r, 0]], xy[[r, 1]]);
        list.sort_by(|&a, &b| {
            let aa = (corner_xy[[a as usize, 1]] - y).atan2(corner_xy[[a as usize, 0]] - x);
            let ab = (corner_xy[[b as usize, 1]] - y).atan2(corner_xy[[b as usize, 0]] - x);
            aa.total_cmp(&ab)
        });
    }
    DualMesh {
        region_xy: xy,
        region_is_boundary: boundary,
        corner_xy,
        corner_regions,
        region_neighbors: Csr::from_lists(&region_nb),
        region_corners: Csr::from_lists(&region_corner_lists),
        corner_neighbors: Csr::from_lists(&corner_nb),
    }
}

/// A noisy island: sum of random sinusoids minus the squared distance to the centre, with
/// ocean (water connected to the border) and enclosed water marked.
pub fn island_world(m: usize, seed: u64) -> World {
    let mesh = grid_mesh(m, seed);
    let mut rng = seed ^ 0xABCD;
    let waves: Vec<[f64; 5]> = (0..24)
        .map(|k| {
            let f = 3.0 * 1.35f64.powi(k / 2);
            let angle = unit(&mut rng) * std::f64::consts::TAU;
            [
                f * angle.cos(),
                f * angle.sin(),
                unit(&mut rng) * std::f64::consts::TAU,
                0.5 / f.sqrt(),
                0.0,
            ]
        })
        .collect();
    let n_regions = mesh.n_regions();
    let mut elev = vec![0f32; n_regions];
    for (r, e) in elev.iter_mut().enumerate() {
        let (x, y) = (mesh.region_xy[[r, 0]], mesh.region_xy[[r, 1]]);
        let mut v = 0.0;
        for w in &waves {
            v += w[3] * (w[0] * x + w[1] * y + w[2]).sin();
        }
        let d2 = ((x - 0.5).powi(2) + (y - 0.5).powi(2)) / 0.25;
        *e = (0.35 + 0.25 * v - d2) as f32;
    }
    // Ocean: water connected to the border.
    let mut kind = vec![water::LAND; n_regions];
    let mut stack: Vec<usize> = (0..n_regions)
        .filter(|&r| mesh.region_is_boundary[r] != 0 && elev[r] < 0.0)
        .collect();
    for &r in &stack {
        kind[r] = water::OCEAN;
    }
    while let Some(r) = stack.pop() {
        for &nb in mesh.region_neighbors.get(r) {
            let nb = nb as usize;
            if elev[nb] < 0.0 && kind[nb] == water::LAND {
                kind[nb] = water::OCEAN;
                stack.push(nb);
            }
        }
    }
    for r in 0..n_regions {
        if elev[r] < 0.0 && kind[r] == water::LAND {
            kind[r] = water::LAKE;
        }
    }
    let corner_elev: Vec<f32> = (0..mesh.n_corners())
        .map(|c| {
            mesh.corner_regions
                .row(c)
                .iter()
                .map(|&r| elev[r as usize])
                .sum::<f32>()
                / 3.0
        })
        .collect();
    let mut world = World::new(WorldMeta {
        seed,
        ..WorldMeta::default()
    });
    world.set_mesh(mesh).unwrap();
    world
        .set_values("region_elevation", Domain::Region, elev)
        .unwrap();
    world
        .set_values("corner_elevation", Domain::Corner, corner_elev)
        .unwrap();
    world
        .set_values("region_water", Domain::Region, kind)
        .unwrap();
    world
}

/// What [`check_hydrology`] measured.
#[derive(Debug, Clone, Copy)]
pub struct Stats {
    pub n_rivers: usize,
    pub n_joining: usize,
    pub n_lakes: usize,
    /// Median over rivers of the source's elevation percentile among land corners (0..1).
    pub median_source_percentile: f64,
}

pub fn f32s(world: &World, name: &str) -> Vec<f32> {
    world.view1::<f32>(name).unwrap().iter().copied().collect()
}
pub fn i32s(world: &World, name: &str) -> Vec<i32> {
    world.view1::<i32>(name).unwrap().iter().copied().collect()
}
pub fn u32s(world: &World, name: &str) -> Vec<u32> {
    world.view1::<u32>(name).unwrap().iter().copied().collect()
}
pub fn u8s(world: &World, name: &str) -> Vec<u8> {
    world.view1::<u8>(name).unwrap().iter().copied().collect()
}

/// Checks every property the issue asks of a world after the hydrology stage (fill mode),
/// given the water kinds before the stage; panics with a message on the first failure.
pub fn check_hydrology(world: &World, water_before: &[u8], fill_mode: bool) -> Stats {
    let mesh = world.mesh().unwrap();
    let n_corners = mesh.n_corners();
    let down = i32s(world, "corner_downstream");
    let filled = f32s(world, "corner_filled");
    let elev = f32s(world, "corner_elevation");
    let flow = f32s(world, "corner_flow");
    let hops = u32s(world, "corner_sea_hops");
    let dist = f32s(world, "corner_sea_distance");
    let outlet: Vec<bool> = (0..n_corners)
        .map(|c| {
            mesh.is_border_corner(c)
                || mesh
                    .corner_regions
                    .row(c)
                    .iter()
                    .any(|&r| water_before[r as usize] == water::OCEAN)
        })
        .collect();
    let n_land = outlet.iter().filter(|&&o| !o).count();

    // Every land corner reaches an outlet, in exactly `hops` steps; outlets are the roots.
    for c in 0..n_corners {
        assert_eq!(down[c] < 0, outlet[c], "corner {c}: root iff outlet");
        let mut cur = c;
        let mut steps = 0u32;
        while down[cur] >= 0 {
            let d = down[cur] as usize;
            assert!(
                mesh.corner_neighbors.get(cur).contains(&(d as u32)),
                "downstream of {cur} is not a neighbour"
            );
            // The filled level never rises downstream.
            assert!(filled[d] <= filled[cur], "filled rises from {cur} to {d}");
            cur = d;
            steps += 1;
            assert!(steps as usize <= n_corners, "cycle from corner {c}");
        }
        assert!(outlet[cur]);
        assert_eq!(steps, hops[c]);
        if down[c] >= 0 {
            assert!(dist[c] > dist[down[c] as usize]);
        }
        if fill_mode {
            assert!(filled[c] >= elev[c], "filled below elevation at {c}");
        }
    }

    // Flow: 1 per land corner plus everything upstream; the outlets receive all of it.
    let mut expect = vec![0f64; n_corners];
    for c in 0..n_corners {
        if !outlet[c] {
            let mut cur = c;
            loop {
                expect[cur] += 1.0;
                if down[cur] < 0 {
                    break;
                }
                cur = down[cur] as usize;
            }
        }
    }
    for c in 0..n_corners {
        assert_eq!(flow[c] as f64, expect[c], "flow at corner {c}");
    }
    let at_outlets: f64 = (0..n_corners)
        .filter(|&c| outlet[c])
        .map(|c| flow[c] as f64)
        .sum();
    assert_eq!(at_outlets, n_land as f64, "flow is not conserved");

    // Lakes: one outlet each, filled there == surface, min size unless enclosed water.
    let surface = f32s(world, "lake_surface");
    let lake_outlet = u32s(world, "lake_outlet");
    let region_lake = i32s(world, "region_lake");
    // The elevation stage's kinds stay as they were; the lakes come from `region_lake`.
    assert_eq!(
        u8s(world, "region_water"),
        water_before,
        "region_water changed"
    );
    let region_water = world.water_kinds().unwrap();
    let region_elev = f32s(world, "region_elevation");
    assert_eq!(surface.len(), lake_outlet.len());
    let mut lake_size = vec![0usize; surface.len()];
    let mut lake_enclosed = vec![false; surface.len()];
    for (r, &l) in region_lake.iter().enumerate() {
        if l >= 0 {
            lake_size[l as usize] += 1;
            lake_enclosed[l as usize] |= water_before[r] == water::LAKE;
            assert_eq!(region_water[r], water::LAKE);
            if water_before[r] == water::LAND {
                // A flooded region lies below every corner's filled level.
                for &c in mesh.region_corners.get(r) {
                    assert!(region_elev[r] < filled[c as usize] || !fill_mode);
                }
            }
        } else {
            assert_eq!(region_water[r], water_before[r], "region {r} changed kind");
            assert_ne!(
                water_before[r],
                water::LAKE,
                "enclosed water {r} is not in a lake"
            );
        }
    }
    for l in 0..surface.len() {
        assert!(lake_size[l] >= 10 || lake_enclosed[l], "lake {l} too small");
        assert_eq!(
            filled[lake_outlet[l] as usize], surface[l],
            "lake {l} outlet level"
        );
    }

    // Rivers.
    let offsets = world.offsets("rivers").unwrap().to_vec();
    let corners: Vec<u32> = world
        .view::<u32>("rivers")
        .unwrap()
        .iter()
        .copied()
        .collect();
    let widths: Vec<f32> = world
        .view::<f32>("river_width")
        .unwrap()
        .iter()
        .copied()
        .collect();
    let rflow: Vec<f32> = world
        .view::<f32>("river_flow")
        .unwrap()
        .iter()
        .copied()
        .collect();
    assert_eq!(widths.len(), corners.len());
    let source_m = orogen_hydrology::graph::RiverParams::default().width_source_m;
    let mpu = world.meta.world_size_m / world.meta.width;
    let mut segments = std::collections::BTreeSet::new();
    let mut on_river = vec![false; n_corners];
    let n_rivers = offsets.len() - 1;
    let mut n_joining = 0;
    let mut land_elev: Vec<f32> = (0..n_corners)
        .filter(|&c| !outlet[c])
        .map(|c| elev[c])
        .collect();
    land_elev.sort_by(f32::total_cmp);
    let mut source_pct = Vec::new();
    for i in 0..n_rivers {
        let river = &corners[offsets[i] as usize..offsets[i + 1] as usize];
        assert!(river.len() >= 2, "river {i} has {} vertices", river.len());
        for (k, w) in river.windows(2).enumerate() {
            assert_eq!(
                down[w[0] as usize], w[1] as i32,
                "river {i} leaves the flow"
            );
            assert!(segments.insert(w.to_vec()), "river {i} shares a segment");
            assert!(!on_river[w[0] as usize], "river {i} re-traces another");
            let at = offsets[i] as usize + k;
            assert_eq!(rflow[at], flow[w[0] as usize]);
            // w = w_source + k sqrt(drained km^2): at least the source width, growing with flow.
            assert!(
                f64::from(widths[at]) * mpu >= 0.999 * source_m,
                "river {i} too narrow"
            );
            assert!(
                widths[at + 1] >= widths[at] || rflow[at + 1] < rflow[at],
                "river {i} narrows downstream"
            );
        }
        let last = *river.last().unwrap() as usize;
        if on_river[last] {
            n_joining += 1;
        } else {
            assert!(
                outlet[last],
                "river {i} ends neither at the sea nor at a river"
            );
        }
        for &c in river {
            on_river[c as usize] = true;
        }
        let e = elev[river[0] as usize];
        let below = land_elev.partition_point(|&x| x < e);
        source_pct.push(below as f64 / land_elev.len().max(1) as f64);
    }
    source_pct.sort_by(f64::total_cmp);
    let median_source_percentile = if source_pct.is_empty() {
        0.0
    } else {
        source_pct[source_pct.len() / 2]
    };
    Stats {
        n_rivers,
        n_joining,
        n_lakes: surface.len(),
        median_source_percentile,
    }
}
