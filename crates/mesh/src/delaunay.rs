//! The Delaunay triangulation (spade) turned into flat half-edge arrays of our own.
//!
//! Half-edge `e = 3 t + j` runs from `triangles[t][j]` to `triangles[t][(j + 1) % 3]`; triangles
//! are counter-clockwise (positive shoelace area, x right, y down), so each triangle lies on the
//! left of its half-edges. `opposite[e]` is the reverse half-edge in the neighbouring triangle,
//! or [`NONE`] on the convex hull.

use rayon::prelude::*;
use spade::{DelaunayTriangulation, HasPosition, Point2, Triangulation};

use crate::MeshError;

/// No half-edge / no triangle.
pub const NONE: u32 = u32::MAX;

/// A site as spade sees it, carrying our own index (spade's `bulk_load` reorders vertices).
#[derive(Clone, Copy, Debug)]
struct Site {
    position: Point2<f64>,
    idx: u32,
}

impl HasPosition for Site {
    type Scalar = f64;
    fn position(&self) -> Point2<f64> {
        self.position
    }
}

/// A triangulation in flat arrays.
#[derive(Clone, Debug, Default)]
pub struct Delaunay {
    /// The three sites of each triangle, counter-clockwise.
    pub triangles: Vec<[u32; 3]>,
    /// The reverse of each half-edge, or [`NONE`] on the hull.
    pub opposite: Vec<u32>,
    /// Per site: a half-edge ending at it. For a hull site it is the first one in
    /// counter-clockwise order (the half-edge after it is a hull edge).
    pub start: Vec<u32>,
    /// Per site: the number of triangles around it.
    pub degree: Vec<u32>,
}

/// The half-edge after `e` in its triangle.
#[inline]
pub fn next(e: u32) -> u32 {
    if e % 3 == 2 { e - 2 } else { e + 1 }
}

/// The half-edge before `e` in its triangle.
#[inline]
pub fn prev(e: u32) -> u32 {
    if e.is_multiple_of(3) { e + 2 } else { e - 1 }
}

impl Delaunay {
    /// The site a half-edge starts from.
    #[inline]
    pub fn origin(&self, e: u32) -> u32 {
        self.triangles[(e / 3) as usize][(e % 3) as usize]
    }

    /// The site a half-edge ends at.
    #[inline]
    pub fn target(&self, e: u32) -> u32 {
        self.origin(next(e))
    }

    /// True when the site is on the convex hull.
    #[inline]
    pub fn is_hull(&self, site: usize) -> bool {
        self.opposite[next(self.start[site]) as usize] == NONE
    }

    /// The half-edges ending at `site`, one per triangle, counter-clockwise, starting with
    /// `start[site]`.
    pub fn incoming(&self, site: usize) -> impl Iterator<Item = u32> + '_ {
        let first = self.start[site];
        let mut e = first;
        let mut done = false;
        std::iter::from_fn(move || {
            if done {
                return None;
            }
            let out = e;
            let o = self.opposite[e as usize];
            if o == NONE {
                done = true;
            } else {
                e = prev(o);
                if e == first {
                    done = true;
                }
            }
            Some(out)
        })
    }
}

/// Triangulates distinct, finite sites. The sites are handed to spade scaled by a power of two
/// (exact) so that any map size stays inside spade's coordinate range; coordinates whose
/// magnitude falls below 1e-40 of the map are passed as 0.
///
/// Errors: duplicate positions (naming both indices), non-finite coordinates, or no triangle at
/// all (fewer than 3 sites, or all on one line).
pub fn triangulate(sites: &[[f64; 2]]) -> Result<Delaunay, MeshError> {
    let mut del = triangulate_unindexed(sites)?;
    del.index_sites(sites.len());
    Ok(del)
}

/// [`triangulate`] without `start` and `degree` (left empty), for callers that reorder the
/// triangles at once ([`Delaunay::permute`] indexes them).
pub(crate) fn triangulate_unindexed(sites: &[[f64; 2]]) -> Result<Delaunay, MeshError> {
    let n = sites.len();
    if n > (u32::MAX / 8) as usize {
        return Err(MeshError::TooMany { n });
    }
    let mut extent = 0.0f64;
    for (i, p) in sites.iter().enumerate() {
        if !(p[0].is_finite() && p[1].is_finite()) {
            return Err(MeshError::NonFinite { index: i });
        }
        extent = extent.max(p[0].abs()).max(p[1].abs());
    }
    let scale = if extent > 0.0 {
        2f64.powi(-(extent.log2().ceil() as i32))
    } else {
        1.0
    };
    let snap = |v: f64| {
        let s = v * scale;
        if s.abs() < 1e-40 { 0.0 } else { s }
    };
    let vertices: Vec<Site> = sites
        .iter()
        .enumerate()
        .map(|(i, p)| Site {
            position: Point2::new(snap(p[0]), snap(p[1])),
            idx: i as u32,
        })
        .collect();
    // One by one, each insertion's walk starting at the vertex inserted last: on sites in
    // Z-order (as the mesh hands them) the walks are short, faster than spade's bulk load.
    let mut dt: DelaunayTriangulation<Site> = DelaunayTriangulation::new();
    for v in vertices {
        dt.insert(v)
            .map_err(|e| MeshError::Triangulation(format!("{e:?}")))?;
    }
    if dt.num_vertices() != n {
        // spade drops duplicates silently: name the first site lost and the one it equals.
        let mut seen = vec![false; n];
        for v in dt.vertices() {
            seen[v.data().idx as usize] = true;
        }
        let lost = seen.iter().position(|s| !s).unwrap_or(0);
        let p = sites[lost];
        let twin = (0..n)
            .find(|&j| {
                j != lost
                    && seen[j]
                    && snap(sites[j][0]) == snap(p[0])
                    && snap(sites[j][1]) == snap(p[1])
            })
            .unwrap_or(lost);
        return Err(MeshError::Duplicate {
            index: lost,
            same_as: twin,
        });
    }
    let n_faces = dt.num_inner_faces();
    if n_faces == 0 {
        return Err(MeshError::Degenerate { n });
    }
    // Our half-edge 3 t + j is an adjacent edge of spade's t-th inner face (spade lists a
    // face's vertices as the origins of its adjacent edges, counter-clockwise), rotated so that
    // each triangle starts at its smallest site: the arrays do not depend on where spade's
    // construction happens to start a face.
    // Per face (in parallel): its sites, and the spade index of each of its edges and of
    // their reverses.
    let faces: Vec<_> = dt.fixed_inner_faces().collect();
    let per_face: Vec<([u32; 3], [u32; 3], [u32; 3])> = faces
        .par_iter()
        .map(|&f| {
            let edges = dt.face(f).adjacent_edges();
            let ids = edges.map(|e| e.from().data().idx);
            let first = (0..3).min_by_key(|&j| ids[j]).unwrap_or(0);
            let edge = |j: usize| edges[(first + j) % 3];
            (
                [0, 1, 2].map(|j| ids[(first + j) % 3]),
                [0, 1, 2].map(|j| edge(j).fix().index() as u32),
                [0, 1, 2].map(|j| edge(j).rev().fix().index() as u32),
            )
        })
        .collect();
    let mut half_of_edge = vec![NONE; dt.num_directed_edges()];
    for (t, (_, own, _)) in per_face.iter().enumerate() {
        for (j, &e) in own.iter().enumerate() {
            half_of_edge[e as usize] = (3 * t + j) as u32;
        }
    }
    drop(dt);
    let triangles = per_face.par_iter().map(|f| f.0).collect();
    // The reverse of a hull edge belongs to the outer face, which has no half-edge of ours.
    let opposite = per_face
        .par_iter()
        .flat_map_iter(|f| f.2.map(|r| half_of_edge[r as usize]))
        .collect();
    Ok(Delaunay {
        triangles,
        opposite,
        start: Vec::new(),
        degree: Vec::new(),
    })
}

fn coord(p: [f64; 2]) -> robust::Coord<f64> {
    robust::Coord { x: p[0], y: p[1] }
}

impl Delaunay {
    /// The same triangulation with its triangles reordered: triangle `k` becomes old triangle
    /// `order[k]` (a permutation).
    pub fn permuted(&self, order: &[u32]) -> Delaunay {
        self.permute(order, self.start.len())
    }

    /// [`Delaunay::permuted`] for a triangulation of `n` sites, indexed or not.
    pub(crate) fn permute(&self, order: &[u32], n: usize) -> Delaunay {
        let mut new_of_old = vec![0u32; order.len()];
        for (k, &t) in order.iter().enumerate() {
            new_of_old[t as usize] = k as u32;
        }
        let remap = |h: u32| {
            if h == NONE {
                NONE
            } else {
                3 * new_of_old[(h / 3) as usize] + h % 3
            }
        };
        let triangles = order
            .par_iter()
            .map(|&t| self.triangles[t as usize])
            .collect();
        let opposite = order
            .par_iter()
            .flat_map_iter(|&t| (0..3).map(move |j| self.opposite[(3 * t + j) as usize]))
            .map(remap)
            .collect();
        let mut del = Delaunay {
            triangles,
            opposite,
            start: Vec::new(),
            degree: Vec::new(),
        };
        del.index_sites(n);
        del
    }

    /// Recomputes `start` and `degree` from the triangles and `opposite`, in one pass over the
    /// triangles.
    fn index_sites(&mut self, n: usize) {
        let mut degree = vec![0u32; n];
        let mut start = vec![NONE; n];
        // Start half-edges: the first incoming one for inner sites; for hull sites the
        // incoming half-edge whose successor is a hull edge (set whenever the hull edge comes,
        // so it wins over any incoming half-edge seen before or after).
        for (t, (tri, opp)) in self
            .triangles
            .iter()
            .zip(self.opposite.chunks_exact(3))
            .enumerate()
        {
            let e0 = 3 * t as u32;
            for j in 0..3 {
                // Half-edge e0 + j runs from tri[j] to tri[(j + 1) % 3].
                let b = tri[(j + 1) % 3] as usize;
                degree[b] += 1;
                if start[b] == NONE {
                    start[b] = e0 + j as u32;
                }
                if opp[j] == NONE {
                    // Hull half-edge: its predecessor ends at its origin.
                    start[tri[j] as usize] = e0 + ((j + 2) % 3) as u32;
                }
            }
        }
        self.start = start;
        self.degree = degree;
    }

    /// True when `d` lies strictly inside the circumcircle of half-edge `e`'s triangle (exact
    /// predicate).
    fn violates(&self, sites: &[[f64; 2]], e: u32) -> bool {
        let o = self.opposite[e as usize];
        if o == NONE {
            return false;
        }
        let t = self.triangles[(e / 3) as usize];
        let far = sites[self.origin(prev(o)) as usize];
        let [a, b, c] = t.map(|v| coord(sites[v as usize]));
        robust::incircle(a, b, c, coord(far)) > 0.0
    }

    /// The sites of triangles that no longer run counter-clockwise (exact predicate), sorted.
    fn inverted_sites(&self, sites: &[[f64; 2]]) -> Vec<u32> {
        let mut bad: Vec<u32> = self
            .triangles
            .par_iter()
            .filter(|t| {
                let [a, b, c] = t.map(|v| coord(sites[v as usize]));
                robust::orient2d(a, b, c) <= 0.0
            })
            .flat_map_iter(|t| *t)
            .collect();
        bad.sort_unstable();
        bad.dedup();
        bad
    }

    /// Restores the Delaunay property by edge flips (Lawson), in a fixed order, on a valid
    /// triangulation (every triangle counter-clockwise). Returns `false` if the flips do not
    /// settle within their budget.
    fn flip_all(&mut self, sites: &[[f64; 2]]) -> bool {
        let n_half = self.triangles.len() * 3;
        let mut stack: Vec<u32> = (0..n_half as u32)
            .into_par_iter()
            .filter(|&e| {
                let o = self.opposite[e as usize];
                o != NONE && e < o && self.violates(sites, e)
            })
            .collect();
        stack.reverse();
        let mut budget = 4 * n_half + 64;
        while let Some(e) = stack.pop() {
            if !self.violates(sites, e) {
                continue;
            }
            if budget == 0 {
                return false;
            }
            budget -= 1;
            let o = self.opposite[e as usize];
            let (t0, t1) = (3 * (e / 3), 3 * (o / 3));
            self.flip(e);
            stack.extend([t0, t0 + 1, t1, t1 + 1]);
        }
        true
    }

    /// Makes this triangulation the Delaunay triangulation of `sites` after they moved from
    /// `old`, by edge flips, when the convex hull is made of sites that did not move. Sites
    /// whose triangles would turn over are held back at their last settled place while the
    /// others settle, then moved on; every site ends exactly at its new place. Returns `false`
    /// (the arrays are then unusable; `sites` hold their new places) when that does not work
    /// out within 16 rounds: the caller then triangulates afresh.
    pub fn repair(&mut self, sites: &mut [[f64; 2]], old: &[[f64; 2]]) -> bool {
        let target = sites.to_vec();
        // Positions at which the current arrays are a valid triangulation.
        let mut settled = old.to_vec();
        for _ in 0..16 {
            loop {
                let bad = self.inverted_sites(sites);
                if bad.is_empty() {
                    break;
                }
                // Pull each such site halfway back towards its settled place (all the way once
                // halving stops changing it): a site may travel beyond its neighbours over a few
                // rounds.
                let mut held = false;
                for v in bad {
                    let v = v as usize;
                    let (p, q) = (sites[v], settled[v]);
                    if p != q {
                        let mid = [0.5 * (p[0] + q[0]), 0.5 * (p[1] + q[1])];
                        sites[v] = if mid == p || mid == q { q } else { mid };
                        held = true;
                    }
                }
                if !held {
                    sites.copy_from_slice(&target);
                    return false;
                }
            }
            if !self.flip_all(sites) {
                sites.copy_from_slice(&target);
                return false;
            }
            if sites == target.as_slice() {
                self.index_sites(sites.len());
                return true;
            }
            settled.copy_from_slice(sites);
            sites.copy_from_slice(&target);
        }
        sites.copy_from_slice(&target);
        false
    }

    /// Flips the edge of half-edge `e` (which has an opposite). Triangle `e / 3` becomes
    /// `[pl, a, pr]` and triangle `o / 3` becomes `[pr, b, pl]`; the new diagonal is half-edge
    /// `3 (e / 3) + 2` and its reverse `3 (o / 3) + 2`.
    fn flip(&mut self, e: u32) {
        let o = self.opposite[e as usize];
        let (t0, t1) = (e / 3, o / 3);
        let a = self.origin(e);
        let b = self.target(e);
        let pl = self.origin(prev(e));
        let pr = self.origin(prev(o));
        let e_n = self.opposite[next(e) as usize]; // across b -> pl
        let e_p = self.opposite[prev(e) as usize]; // across pl -> a
        let o_n = self.opposite[next(o) as usize]; // across a -> pr
        let o_p = self.opposite[prev(o) as usize]; // across pr -> b
        self.triangles[t0 as usize] = [pl, a, pr];
        self.triangles[t1 as usize] = [pr, b, pl];
        let mut link = |h: u32, other: u32| {
            self.opposite[h as usize] = other;
            if other != NONE {
                self.opposite[other as usize] = h;
            }
        };
        link(3 * t0, e_p);
        link(3 * t0 + 1, o_n);
        link(3 * t1, o_p);
        link(3 * t1 + 1, e_n);
        link(3 * t0 + 2, 3 * t1 + 2);
    }
}
