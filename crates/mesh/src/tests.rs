//! Properties of the mesh, checked on the world's own arrays (not on spade's).

use super::*;
use orogen_world::WorldMeta;

fn world(cells: usize, width: f64, height: f64, params: &Params) -> World {
    let mut world = World::new(WorldMeta {
        seed: 7,
        width,
        height,
        ..WorldMeta::default()
    });
    run(&mut world, params, cells).unwrap();
    world
}

fn orient(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> f64 {
    (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
}

fn shoelace(ring: &[[f64; 2]]) -> f64 {
    let n = ring.len();
    (0..n)
        .map(|i| {
            let (p, q) = (ring[i], ring[(i + 1) % n]);
            p[0] * q[1] - q[0] * p[1]
        })
        .sum::<f64>()
        * 0.5
}

/// True when `d` lies strictly inside the circumcircle of the counter-clockwise triangle
/// `a b c`: the exact predicate (robust's adaptive-precision `incircle`), no tolerance, so a
/// site a rounding error inside a circumcircle is caught.
fn in_circle(a: [f64; 2], b: [f64; 2], c: [f64; 2], d: [f64; 2]) -> bool {
    let p = |q: [f64; 2]| robust::Coord { x: q[0], y: q[1] };
    robust::incircle(p(a), p(b), p(c), p(d)) > 0.0
}

fn xy(mesh: &DualMesh, r: u32) -> [f64; 2] {
    [
        mesh.region_xy[[r as usize, 0]],
        mesh.region_xy[[r as usize, 1]],
    ]
}

fn corner_sites(mesh: &DualMesh, c: usize) -> [[f64; 2]; 3] {
    let t = mesh.corner_regions.row(c);
    [xy(mesh, t[0]), xy(mesh, t[1]), xy(mesh, t[2])]
}

/// Everything the conventions promise about a mesh world, from its own arrays.
fn check_world(world: &World, brute_force: bool) {
    let mesh = world.mesh().unwrap();
    let (w, h) = (world.meta.width, world.meta.height);
    mesh.validate().unwrap();
    let n_regions = mesh.n_regions();
    let n_corners = mesh.n_corners();
    // Euler's formula.
    assert_eq!(
        n_regions as i64 - mesh.n_edges() as i64 + n_corners as i64,
        1
    );
    // Triangles counter-clockwise, corners inside their triangle and the map.
    for c in 0..n_corners {
        let [a, b, d] = corner_sites(mesh, c);
        assert!(orient(a, b, d) > 0.0, "corner {c} not counter-clockwise");
        let p = [mesh.corner_xy[[c, 0]], mesh.corner_xy[[c, 1]]];
        assert!(p[0] >= 0.0 && p[0] <= w && p[1] >= 0.0 && p[1] <= h);
        assert!(orient(a, b, p) > 0.0 && orient(b, d, p) > 0.0 && orient(d, a, p) > 0.0);
    }
    // Empty circumcircles: across every edge (local Delaunay, which implies the global
    // property), and by brute force against every site on smaller meshes.
    for c in 0..n_corners {
        let [a, b, d] = corner_sites(mesh, c);
        let mine = mesh.corner_regions.row(c);
        for &nb in mesh.corner_neighbors.get(c) {
            let other = mesh.corner_regions.row(nb as usize);
            let far = other
                .iter()
                .find(|r| !mine.iter().any(|m| m == *r))
                .unwrap();
            assert!(!in_circle(a, b, d, xy(mesh, *far)), "corner {c} / {nb}");
        }
        if brute_force {
            for r in 0..n_regions as u32 {
                if !mine.iter().any(|&m| m == r) {
                    assert!(!in_circle(a, b, d, xy(mesh, r)), "site {r} in corner {c}");
                }
            }
        }
    }
    // Region relations agree with corner_regions; rings run counter-clockwise around the site.
    for r in 0..n_regions {
        let corners = mesh.region_corners.get(r);
        assert!(!corners.is_empty());
        for &c in corners {
            assert!(
                mesh.corner_regions
                    .row(c as usize)
                    .iter()
                    .any(|&x| x as usize == r)
            );
        }
        // Consecutive corners share an edge, and their directions from the site turn
        // counter-clockwise: once around an inner site, at most half a turn on the border.
        let p = xy(mesh, r as u32);
        let angle = |c: u32| {
            let q = [
                mesh.corner_xy[[c as usize, 0]],
                mesh.corner_xy[[c as usize, 1]],
            ];
            (q[1] - p[1]).atan2(q[0] - p[0])
        };
        let tau = std::f64::consts::TAU;
        let hull = mesh.region_neighbors.get(r).len() == corners.len() + 1;
        let steps = if hull {
            corners.len() - 1
        } else {
            corners.len()
        };
        let mut turn = 0.0;
        for i in 0..steps {
            let (a, b) = (corners[i], corners[(i + 1) % corners.len()]);
            if corners.len() > 1 {
                assert!(mesh.corner_neighbors.get(a as usize).contains(&b));
            }
            turn += (angle(b) - angle(a)).rem_euclid(tau);
        }
        if hull {
            assert!(
                turn <= std::f64::consts::PI + 1e-9,
                "region {r} turns {turn}"
            );
        } else {
            assert!((turn - tau).abs() < 1e-9, "region {r} corners turn {turn}");
        }
        let nbs = mesh.region_neighbors.get(r);
        assert!(nbs.len() == corners.len() || nbs.len() == corners.len() + 1);
        for &n in nbs {
            assert!(mesh.region_neighbors.get(n as usize).contains(&(r as u32)));
        }
    }
    // Cells: counter-clockwise rings that tile the map.
    // (The layer holds the rings in f32: the areas agree to f32's precision; `world_from`
    // checks the f64 rings exactly.)
    let area = world.view1::<f64>("region_area").unwrap();
    let offsets = world.offsets("region_polygon").unwrap();
    let points = world.view2::<f32>("region_polygon").unwrap();
    let rings: Vec<Vec<[f64; 2]>> = (0..n_regions)
        .map(|r| {
            (offsets[r] as usize..offsets[r + 1] as usize)
                .map(|i| [f64::from(points[[i, 0]]), f64::from(points[[i, 1]])])
                .collect()
        })
        .collect();
    check_rings(&rings, area.as_slice().unwrap(), [w, h], 1e-4, 1e-6);
}

/// Counter-clockwise rings inside the map (give or take `outside` of its size: f32 rounding)
/// whose shoelace areas are `area` (to `tolerance`, relative) and sum to the map's.
fn check_rings(
    rings: &[Vec<[f64; 2]>],
    area: &[f64],
    [w, h]: [f64; 2],
    tolerance: f64,
    outside: f64,
) {
    let (x0, x1) = (-outside * w, w * (1.0 + outside));
    let (y0, y1) = (-outside * h, h * (1.0 + outside));
    let mut total = 0.0;
    for (r, ring) in rings.iter().enumerate() {
        assert!(ring.len() >= 3);
        let a = shoelace(ring);
        assert!(a > 0.0, "cell {r} not counter-clockwise");
        assert!((a - area[r]).abs() <= tolerance * a.max(1e-300));
        assert!(
            ring.iter()
                .all(|p| p[0] >= x0 && p[0] <= x1 && p[1] >= y0 && p[1] <= y1)
        );
        total += area[r];
    }
    assert!(
        ((total - w * h) / (w * h)).abs() < 1e-9,
        "areas sum to {total}"
    );
}

/// Every probe point of the map lies in some triangle (brute force over triangles).
fn check_cover(world: &World, probes: usize) {
    let mesh = world.mesh().unwrap();
    let (w, h) = (world.meta.width, world.meta.height);
    let mut rng = seed::rng_from_seed(99);
    let mut pts = vec![
        [0.0, 0.0],
        [w, 0.0],
        [0.0, h],
        [w, h],
        [w / 2.0, 0.0],
        [0.0, h / 3.0],
    ];
    for _ in 0..probes {
        pts.push([
            orogen_sampling::unit_f64(&mut rng) * w,
            orogen_sampling::unit_f64(&mut rng) * h,
        ]);
    }
    for p in pts {
        let found = (0..mesh.n_corners()).any(|c| {
            let [a, b, d] = corner_sites(mesh, c);
            orient(a, b, p) >= 0.0 && orient(b, d, p) >= 0.0 && orient(d, a, p) >= 0.0
        });
        assert!(found, "map point {p:?} in no triangle");
    }
}

#[test]
fn small_worlds_keep_every_promise() {
    for (cells, w, h, sampler) in [
        (2000, 1.0, 1.0, SamplerKind::Uniform),
        (1500, 2.0, 0.5, SamplerKind::Jittered),
        (1500, 1.0, 3.0, SamplerKind::Poisson),
    ] {
        let params = Params {
            sampler,
            ..Params::default()
        };
        let world = world(cells, w, h, &params);
        assert_eq!(world.mesh().unwrap().n_regions(), cells);
        check_world(&world, true);
        check_cover(&world, 300);
    }
}

#[test]
fn lloyd_at_50k_cells_lowers_the_area_cv_below_0_30() {
    let world = world(50_000, 1.0, 1.0, &Params::default());
    check_world(&world, false);
    let cv = world.view1::<f64>("lloyd_area_cv").unwrap();
    assert_eq!(cv.len(), 4);
    for k in 1..cv.len() {
        assert!(cv[k] < cv[k - 1], "CV {cv:?} does not fall");
    }
    assert!(cv[3] < 0.30, "CV after 3 iterations {}", cv[3]);
    // Boundary sites did not move: they are still on the map edge.
    let mesh = world.mesh().unwrap();
    let (w, h) = (1.0, 1.0);
    for r in 0..mesh.n_regions() {
        if mesh.region_is_boundary[r] == 1 {
            let p = xy(mesh, r as u32);
            assert!(p[0] == 0.0 || p[0] == w || p[1] == 0.0 || p[1] == h);
        }
    }
}

#[test]
fn one_and_two_threads_give_the_same_bytes() {
    let bytes = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                let world = world(20_000, 1.5, 1.0, &Params::default());
                let mut out = Vec::new();
                world.write_npz(&mut out, "{}").unwrap();
                out
            })
    };
    let one = bytes(1);
    assert!(one.len() > 100_000);
    assert!(one == bytes(2), "1 and 2 threads differ");
}

#[test]
fn the_seed_decides_the_mesh() {
    let a = world(500, 1.0, 1.0, &Params::default());
    let b = world(500, 1.0, 1.0, &Params::default());
    assert_eq!(a, b);
    let mut c = World::new(WorldMeta {
        seed: 8,
        ..WorldMeta::default()
    });
    run(&mut c, &Params::default(), 500).unwrap();
    assert_ne!(a.mesh().unwrap().region_xy, c.mesh().unwrap().region_xy);
}

/// The stage makes its rings as `f32` directly; the kernel makes them as `f64` and
/// `insert_mesh` narrows them: the same world to the bit, on a map that is not square.
#[test]
fn the_stage_s_world_is_the_kernel_s_inserted() {
    let (cells, width, height) = (3000, 1.6, 1.0);
    let staged = world(cells, width, height, &Params::default());
    let (sites, flags) = world_sites(7, cells, width, height, Params::default().sampler).unwrap();
    let relaxed = mesh_from_sites(&sites, &flags, width, height, 3).unwrap();
    let mut inserted = World::new(staged.meta.clone());
    insert_mesh(&mut inserted, relaxed).unwrap();
    assert!(staged.view2::<f32>("region_polygon").unwrap().nrows() > 6 * 2900);
    assert_eq!(staged, inserted);
}

fn world_from(sites: &[[f64; 2]], flags: &[u8], iterations: u32) -> World {
    let relaxed = mesh_from_sites(sites, flags, 1.0, 1.0, iterations).unwrap();
    // The mesh's own rings, in f64: exact.
    let cells = &relaxed.cells;
    let rings: Vec<Vec<[f64; 2]>> = cells
        .polygon_offsets
        .windows(2)
        .map(|o| cells.polygon_xy[o[0] as usize..o[1] as usize].to_vec())
        .collect();
    check_rings(&rings, &cells.region_area, [1.0, 1.0], 1e-9, 0.0);
    let mut world = World::new(WorldMeta::default());
    insert_mesh(&mut world, relaxed).unwrap();
    world
}

fn with_boundary(interior: &[[f64; 2]]) -> (Vec<[f64; 2]>, Vec<u8>) {
    let mut sites = boundary_sites(1.0, 1.0, 3, 3);
    let mut flags = vec![1u8; sites.len()];
    sites.extend_from_slice(interior);
    flags.resize(sites.len(), 0);
    (sites, flags)
}

#[test]
fn degenerate_inputs_give_valid_meshes() {
    // Three interior sites.
    let (sites, flags) = with_boundary(&[[0.3, 0.3], [0.7, 0.4], [0.5, 0.8]]);
    for iterations in [0, 3] {
        let world = world_from(&sites, &flags, iterations);
        assert_eq!(world.mesh().unwrap().n_regions(), 15);
        check_world(&world, true);
        check_cover(&world, 200);
    }
    // Interior sites on one line (also collinear with nothing else), and on a map edge line.
    let line: Vec<[f64; 2]> = (1..20).map(|i| [i as f64 / 20.0, 0.5]).collect();
    let (sites, flags) = with_boundary(&line);
    let world = world_from(&sites, &flags, 2);
    check_world(&world, true);
    check_cover(&world, 200);
    // Duplicated sites (interior on interior, interior on a boundary site) are removed
    // deliberately, and the index map says which input each region came from.
    let (mut sites, mut flags) = with_boundary(&[[0.3, 0.3], [0.3, 0.3], [0.6, 0.6], [0.0, 0.0]]);
    sites.push([0.6, 0.6]);
    flags.push(0);
    let relaxed = mesh_from_sites(&sites, &flags, 1.0, 1.0, 0).unwrap();
    assert_eq!(relaxed.cells.mesh.n_regions(), sites.len() - 3);
    let mut seen = relaxed.input_index.clone();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), relaxed.input_index.len());
    for (r, &i) in relaxed.input_index.iter().enumerate() {
        assert_eq!(xy(&relaxed.cells.mesh, r as u32), sites[i as usize]);
        assert_eq!(relaxed.cells.mesh.region_is_boundary[r], flags[i as usize]);
    }
    // The boundary corner (0, 0) won over the interior duplicate.
    assert!(!relaxed.input_index.contains(&15));
    check_world(&world_from(&sites, &flags, 2), true);
}

#[test]
fn bad_sites_are_errors_not_panics() {
    let (mut sites, mut flags) = with_boundary(&[[0.3, 0.3]]);
    sites.push([0.3, 0.3]);
    flags.push(0);
    assert!(matches!(
        build_mesh(&sites, &flags, 1.0, 1.0),
        Err(MeshError::Duplicate {
            index: 13,
            same_as: 12
        } | MeshError::Duplicate {
            index: 12,
            same_as: 13
        })
    ));
    let line = [[0.1, 0.1], [0.2, 0.2], [0.3, 0.3]];
    assert!(matches!(
        build_mesh(&line, &[0; 3], 1.0, 1.0),
        Err(MeshError::Degenerate { n: 3 })
    ));
    assert!(matches!(
        build_mesh(&[[f64::NAN, 0.0]], &[0], 1.0, 1.0),
        Err(MeshError::NonFinite { index: 0 })
    ));
    assert!(matches!(
        build_mesh(&[[2.0, 0.0]], &[0], 1.0, 1.0),
        Err(MeshError::OutsideMap { index: 0, .. })
    ));
    assert!(matches!(
        build_mesh(&[[0.5, 0.5]], &[0, 0], 1.0, 1.0),
        Err(MeshError::FlagCount { .. })
    ));
    assert!(build_mesh(&[], &[], 1.0, 1.0).is_err());
    let params = Params {
        lloyd_iterations: 1000,
        ..Params::default()
    };
    assert!(params.validate().is_err());
}

#[test]
fn tiny_and_odd_maps_work() {
    // 3 cells: the four corner sites alone.
    let w = world(3, 1.0, 1.0, &Params::default());
    assert_eq!(w.mesh().unwrap().n_regions(), 4);
    check_world(&w, true);
    for cells in [5, 6, 9, 40] {
        let w = world(cells, 1e-3, 7e-3, &Params::default());
        assert_eq!(w.mesh().unwrap().n_regions(), cells);
        check_world(&w, true);
    }
    let w = world(300, 1e6, 2e6, &Params::default());
    check_world(&w, true);
}

#[test]
fn flip_repair_after_moves_equals_a_fresh_triangulation() {
    let (sites, flags) = world_sites(5, 3000, 1.0, 1.0, SamplerKind::Uniform).unwrap();
    let mut del = triangulate(&sites).unwrap();
    // Move every interior site by up to a few cell spacings: many leave their neighbourhood.
    let mut rng = seed::rng_from_seed(6);
    let mut moved = sites.clone();
    for (p, &b) in moved.iter_mut().zip(&flags) {
        if b == 0 {
            let dx = (orogen_sampling::unit_f64(&mut rng) - 0.5) * 0.05;
            let dy = (orogen_sampling::unit_f64(&mut rng) - 0.5) * 0.05;
            *p = [
                (p[0] + dx).clamp(1e-6, 1.0 - 1e-6),
                (p[1] + dy).clamp(1e-6, 1.0 - 1e-6),
            ];
        }
    }
    let target = moved.clone();
    assert!(del.repair(&mut moved, &sites, &mut delaunay::Scratch::default()));
    assert_eq!(moved, target);
    let canonical = |d: &Delaunay| {
        let mut tris: Vec<[u32; 3]> = d
            .triangles
            .iter()
            .map(|t| {
                // Rotate so the smallest index comes first (keeps the orientation).
                let k = (0..3).min_by_key(|&k| t[k]).unwrap();
                [t[k], t[(k + 1) % 3], t[(k + 2) % 3]]
            })
            .collect();
        tris.sort_unstable();
        tris
    };
    assert_eq!(canonical(&del), canonical(&triangulate(&target).unwrap()));
    // The half-edge arrays stay consistent.
    for (e, &o) in del.opposite.iter().enumerate() {
        if o != NONE {
            assert_eq!(del.opposite[o as usize] as usize, e);
            assert_eq!(del.origin(o), del.target(e as u32));
        }
    }
}

#[test]
fn triangulation_is_spades_bulk_load_with_each_triangle_from_its_smallest_site() {
    use spade::{DelaunayTriangulation, Point2, Triangulation};
    let (sites, _) = world_sites(11, 4000, 2.0, 1.0, SamplerKind::Uniform).unwrap();
    // Insertion order matters for speed only: Z-order (as the mesh hands them) and as drawn.
    let order = zorder_permutation(&sites, 2.0, 1.0);
    let zsorted: Vec<[f64; 2]> = order.iter().map(|&i| sites[i as usize]).collect();
    for points in [&sites, &zsorted] {
        let del = triangulate(points).unwrap();
        assert!(del.triangles.iter().all(|t| t[0] < t[1] && t[0] < t[2]));
        let mut ours = del.triangles.clone();
        ours.sort_unstable();
        let bulk: DelaunayTriangulation<Point2<f64>> = DelaunayTriangulation::bulk_load(
            points.iter().map(|p| Point2::new(p[0], p[1])).collect(),
        )
        .unwrap();
        // spade's bulk load reorders its vertices: find each by its position.
        let index_of: std::collections::HashMap<(u64, u64), u32> = points
            .iter()
            .enumerate()
            .map(|(i, p)| ((p[0].to_bits(), p[1].to_bits()), i as u32))
            .collect();
        let mut theirs: Vec<[u32; 3]> = bulk
            .inner_faces()
            .map(|f| {
                let t = f.vertices().map(|v| {
                    let p = v.position();
                    index_of[&(p.x.to_bits(), p.y.to_bits())]
                });
                let k = (0..3).min_by_key(|&k| t[k]).unwrap();
                [t[k], t[(k + 1) % 3], t[(k + 2) % 3]]
            })
            .collect();
        theirs.sort_unstable();
        assert_eq!(ours, theirs);
        for (e, &o) in del.opposite.iter().enumerate() {
            if o != NONE {
                assert_eq!(del.opposite[o as usize] as usize, e);
                assert_eq!(del.origin(o), del.target(e as u32));
            }
        }
    }
}

#[test]
fn a_stop_ends_the_mesh_between_lloyd_iterations() {
    let (sites, flags) = world_sites(5, 2000, 1.0, 1.0, SamplerKind::Uniform).unwrap();
    // Asked before each of the 3 iterations and before the build: the third answer stops it.
    let asked = std::cell::Cell::new(0);
    let stop_third = || {
        asked.set(asked.get() + 1);
        asked.get() == 3
    };
    let stopped = mesh_from_sites_until(&sites, &flags, 1.0, 1.0, 3, &stop_third).unwrap();
    assert!(stopped.is_none());
    assert_eq!(asked.get(), 3);
    // Never stopped: asked four times, the mesh of `mesh_from_sites`.
    let asked = std::cell::Cell::new(0);
    let never = || {
        asked.set(asked.get() + 1);
        false
    };
    let full = mesh_from_sites_until(&sites, &flags, 1.0, 1.0, 3, &never)
        .unwrap()
        .unwrap();
    assert_eq!(asked.get(), 4);
    assert_eq!(full, mesh_from_sites(&sites, &flags, 1.0, 1.0, 3).unwrap());
    // The stage: a stopped run leaves the world without a mesh.
    let mut world = World::new(WorldMeta::default());
    assert!(!run_until(&mut world, &Params::default(), 2000, &|| true).unwrap());
    assert!(!world.has_mesh());
}

/// Asserts that `del` is a triangulation of all of `sites` covering their convex hull of area
/// `area` (every triangle counter-clockwise, the half-edges paired, the areas summing to the
/// hull's up to rounding), with no site strictly inside a neighbouring triangle's circumcircle.
fn assert_delaunay(del: &Delaunay, sites: &[[f64; 2]], area: f64) {
    let p = |q: [f64; 2]| robust::Coord { x: q[0], y: q[1] };
    let mut total = 0.0;
    let mut used = vec![false; sites.len()];
    for t in &del.triangles {
        let [a, b, c] = t.map(|v| sites[v as usize]);
        assert!(robust::orient2d(p(a), p(b), p(c)) > 0.0, "{t:?}");
        total += orient(a, b, c) / 2.0;
        t.iter().for_each(|&v| used[v as usize] = true);
    }
    assert!(used.iter().all(|&u| u), "every site is a vertex");
    assert!(
        (total - area).abs() <= 1e-12 * area,
        "{total} against {area}"
    );
    let mut hull = 0;
    for (e, &o) in del.opposite.iter().enumerate() {
        if o == NONE {
            hull += 1;
            continue;
        }
        assert_eq!(del.opposite[o as usize] as usize, e);
        assert_eq!(del.origin(o), del.target(e as u32));
        let [a, b, c] = del.triangles[e / 3].map(|v| sites[v as usize]);
        let far = sites[del.origin(delaunay::prev(o)) as usize];
        assert!(!in_circle(a, b, c, far), "half-edge {e}");
    }
    // Euler: a triangulation of n sites with h on its hull has 2 n - 2 - h triangles.
    assert_eq!(del.triangles.len(), 2 * sites.len() - 2 - hull);
}

#[test]
fn the_box_triangulation_handles_collinear_and_cocircular_sites() {
    // A 21 x 11 lattice over a 20 x 10 box: every site after the corners lands on a line of
    // others (on a hull edge, or on an inner edge shared by two triangles), and every unit
    // square is cocircular. Inserted in Z-order, as the mesh does, and in rows.
    let lattice: Vec<[f64; 2]> = (0..=10)
        .flat_map(|j| (0..=20).map(move |i| [i as f64, j as f64]))
        .collect();
    let order = zorder_permutation(&lattice, 20.0, 10.0);
    let zsorted: Vec<[f64; 2]> = order.iter().map(|&i| lattice[i as usize]).collect();
    // And the lattice with the centre of every square: sites inside triangles too.
    let mut centred = lattice.clone();
    centred.extend((0..10).flat_map(|j| (0..20).map(move |i| [i as f64 + 0.5, j as f64 + 0.5])));
    for sites in [&lattice, &zsorted, &centred] {
        let del = delaunay::triangulate_in_box(sites).expect("the corners are there");
        assert_delaunay(&del, sites, 200.0);
        assert!(del.triangles.iter().all(|t| t[0] < t[1] && t[0] < t[2]));
    }
}

#[test]
fn the_box_triangulation_leaves_other_inputs_to_spade() {
    let (mut sites, _) = world_sites(3, 500, 2.0, 1.0, SamplerKind::Uniform).unwrap();
    let del = delaunay::triangulate_in_box(&sites).unwrap();
    assert_delaunay(&del, &sites, 2.0);
    // A repeated site: refused here; spade names both.
    sites.push(sites[100]);
    assert!(delaunay::triangulate_in_box(&sites).is_none());
    assert!(matches!(
        triangulate(&sites),
        Err(MeshError::Duplicate {
            index: 500,
            same_as: 100
        } | MeshError::Duplicate {
            index: 100,
            same_as: 500
        })
    ));
    // Without a corner of the bounding box (and its hull area with it): spade triangulates.
    sites.pop();
    let corner = sites.iter().position(|&p| p == [2.0, 1.0]).unwrap();
    let [right, top] = [1.0, 2.0].map(|l| {
        // The corner's neighbours on the right and top edges: the nearest boundary sites.
        sites
            .iter()
            .filter(|p| if l == 1.0 { p[0] == 2.0 } else { p[1] == 1.0 } && **p != [2.0, 1.0])
            .map(|p| (2.0 - p[0]) + (1.0 - p[1]))
            .fold(f64::INFINITY, f64::min)
    });
    sites.remove(corner);
    assert!(delaunay::triangulate_in_box(&sites).is_none());
    assert_delaunay(
        &triangulate(&sites).unwrap(),
        &sites,
        2.0 - right * top / 2.0,
    );
}

/// A triangle rotated to start at its smallest site.
fn rotated(mut t: [u32; 3]) -> [u32; 3] {
    let k = (0..3).min_by_key(|&k| t[k]).unwrap();
    t.rotate_left(k);
    t
}

/// Each triangle rotated to start at its smallest site, the triangles sorted.
fn triangle_set(del: &Delaunay) -> Vec<[u32; 3]> {
    let mut set: Vec<[u32; 3]> = del.triangles.iter().map(|t| rotated(*t)).collect();
    set.sort_unstable();
    set
}

#[test]
fn two_halves_give_the_serial_triangulation() {
    // Uniform sites in Z-order on a square (cut across y) and on a wide map (cut across x),
    // and jittered ones in their own order on a tall map.
    let cases = [
        (1.0, 1.0, SamplerKind::Uniform, true),
        (1600.0, 900.0, SamplerKind::Uniform, true),
        (2.0, 3.0, SamplerKind::Jittered, false),
    ];
    for (w, h, kind, zsort) in cases {
        let (mut sites, _) = world_sites(7, 20_000, w, h, kind).unwrap();
        if zsort {
            let order = zorder_permutation(&sites, w, h);
            sites = order.iter().map(|&i| sites[i as usize]).collect();
        }
        let find = |q: [f64; 2]| sites.iter().position(|&p| p == q).unwrap() as u32;
        let corners = [[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]].map(find);
        let split = crate::halves::triangulate(&sites, corners, [0.0, 0.0], [w, h])
            .expect("the stitch holds");
        assert_delaunay(&split, &sites, w * h);
        let serial = delaunay::triangulate_in_box_from(&sites, usize::MAX).unwrap();
        assert_eq!(triangle_set(&split), triangle_set(&serial), "{w} x {h}");
        // The public path takes the halves at this size: the same triangles in the same
        // order, each rotated to its smallest site.
        let rotated: Vec<[u32; 3]> = split.triangles.iter().map(|t| rotated(*t)).collect();
        assert_eq!(
            delaunay::triangulate_in_box(&sites).unwrap().triangles,
            rotated
        );
    }
}

#[test]
fn two_halves_of_a_lattice_are_a_delaunay_triangulation() {
    // Cocircular squares everywhere and sites on the cut itself: the stitch either holds or
    // gives way to one insertion after another; either way a Delaunay triangulation.
    let lattice: Vec<[f64; 2]> = (0..=40)
        .flat_map(|j| (0..=30).map(move |i| [i as f64, j as f64]))
        .collect();
    let del = delaunay::triangulate_in_box_from(&lattice, 0).unwrap();
    assert_delaunay(&del, &lattice, 1200.0);
}

#[test]
fn each_site_starts_at_its_first_incoming_half_edge_or_its_hull_one() {
    // `index_sites` scans the triangles in two halves side by side: its `start` and `degree`
    // must be those of one scan in triangle order (the rings, and so every output's bytes,
    // begin at `start`), on a triangulation whose hull sites and inner sites fall in both
    // halves.
    let (sites, _) = world_sites(5, 3000, 2.0, 1.0, SamplerKind::Uniform).unwrap();
    let del = triangulate(&sites).unwrap();
    let n = sites.len();
    let (mut degree, mut start) = (vec![0u32; n], vec![delaunay::NONE; n]);
    for (t, tri) in del.triangles.iter().enumerate() {
        for j in 0..3 {
            let e = (3 * t + j) as u32;
            let b = tri[(j + 1) % 3] as usize;
            degree[b] += 1;
            if start[b] == delaunay::NONE {
                start[b] = e;
            }
        }
    }
    let mut hull_sites = 0;
    for (e, &o) in del.opposite.iter().enumerate() {
        if o == delaunay::NONE {
            // The hull half-edge's predecessor ends at its origin.
            start[del.origin(e as u32) as usize] = delaunay::prev(e as u32);
            hull_sites += 1;
        }
    }
    assert!(hull_sites > 20, "{hull_sites} hull sites");
    assert_eq!(del.degree, degree);
    assert_eq!(del.start, start);
    for (site, &d) in degree.iter().enumerate() {
        assert_eq!(del.incoming(site).count(), d as usize, "site {site}");
    }
}
