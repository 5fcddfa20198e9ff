//! The Delaunay triangulation in flat half-edge arrays of our own: built by incremental insertion
//! with edge flips when the sites hold the corners of their bounding box (every mesh's), by spade
//! for any others; edge flips also repair it after Lloyd moves the sites.
//!
//! Half-edge `e = 3 t + j` runs from `triangles[t][j]` to `triangles[t][(j + 1) % 3]`; triangles
//! are counter-clockwise (positive shoelace area, x right, y down), so each triangle lies on the
//! left of its half-edges. `opposite[e]` is the reverse half-edge in the neighbouring triangle,
//! or [`NONE`] on the convex hull.

use rayon::prelude::*;
use spade::{DelaunayTriangulation, HasPosition, Point2, Triangulation};

use crate::MeshError;
use crate::halves;

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

/// The buffers of [`Delaunay::repair`], kept from one call to the next (Lloyd's
/// iterations).
#[derive(Debug, Default)]
pub struct Scratch {
    target: Vec<[f64; 2]>,
    settled: Vec<[f64; 2]>,
    moved: Vec<bool>,
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
///
/// Sites that hold the four corners of their bounding box (every mesh's do) are triangulated
/// by [`triangulate_in_box`]; any others, and any input that path refuses, by spade.
pub(crate) fn triangulate_unindexed(sites: &[[f64; 2]]) -> Result<Delaunay, MeshError> {
    let n = sites.len();
    if n > (u32::MAX / 8) as usize {
        return Err(MeshError::TooMany { n });
    }
    if let Some(del) = triangulate_in_box(sites) {
        return Ok(del);
    }
    triangulate_spade(sites)
}

/// Triangulates with spade (any distinct, finite sites), each triangle from its smallest site.
fn triangulate_spade(sites: &[[f64; 2]]) -> Result<Delaunay, MeshError> {
    let n = sites.len();
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

/// The Delaunay triangulation of sites that include the four corners of their bounding box
/// (exactly), by incremental insertion in the given order on our own arrays: two triangles
/// span the box, then each site is located by a visibility walk from the triangle of the site
/// before it (short on sites in Z-order), splits its triangle in three (or the edge it lies on,
/// with its neighbours, in two or four), and Lawson flips restore the empty-circle property
/// around it. Exact predicates throughout; each triangle is then rotated to start at its
/// smallest site, as spade's are, so in general position the triangles are spade's. From
/// [`halves::MIN_SITES`] sites up, the two halves of the box are triangulated so on two threads
/// and stitched ([`halves`]; the same triangles in general position, the insertion order of
/// the triangles aside).
///
/// On this 2-core machine it takes a third to a half of spade's time for the same sites
/// (`docs/performance.md`), spade's general structure (handles, a vertex walk) costing more than
/// flat arrays. `None` (the caller then uses spade, which names the fault) when the corners are
/// missing, a coordinate is not finite or a site repeats.
pub(crate) fn triangulate_in_box(sites: &[[f64; 2]]) -> Option<Delaunay> {
    triangulate_in_box_from(sites, halves::MIN_SITES)
}

/// [`triangulate_in_box`], as two halves ([`halves`]) from `split_from` sites up.
pub(crate) fn triangulate_in_box_from(sites: &[[f64; 2]], split_from: usize) -> Option<Delaunay> {
    let n = sites.len();
    if n < 4 || n > (u32::MAX / 8) as usize {
        return None;
    }
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for p in sites {
        if !(p[0].is_finite() && p[1].is_finite()) {
            return None;
        }
        for k in 0..2 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    if !(lo[0] < hi[0] && lo[1] < hi[1]) {
        return None;
    }
    let find = |q: [f64; 2]| sites.iter().position(|&p| p == q).map(|i| i as u32);
    let corners = [
        find([lo[0], lo[1]])?,
        find([hi[0], lo[1]])?,
        find([hi[0], hi[1]])?,
        find([lo[0], hi[1]])?,
    ];
    let split = if n >= split_from {
        halves::triangulate(sites, corners, lo, hi)
    } else {
        None
    };
    let mut del = match split {
        Some(del) => del,
        None => {
            let rest = (0..n as u32).filter(|v| !corners.contains(v));
            box_insert(sites, corners, rest, n)?
        }
    };
    del.rotate_to_smallest();
    Some(del)
}

/// The Delaunay triangulation of the box's four `corners` (`[lo lo, hi lo, hi hi, lo hi]`, sites
/// of `sites`) and the sites of `order`, inserted in that order (none of them a corner, all
/// inside the box), triangles not yet rotated; room made for `capacity` sites. `None` when a
/// site repeats.
pub(crate) fn box_insert(
    sites: &[[f64; 2]],
    corners: [u32; 4],
    order: impl IntoIterator<Item = u32>,
    capacity: usize,
) -> Option<Delaunay> {
    let [c00, c10, c11, c01] = corners;
    let mut b = BoxBuilder {
        sites,
        del: Delaunay {
            triangles: Vec::with_capacity(2 * capacity),
            opposite: Vec::with_capacity(6 * capacity),
            start: Vec::new(),
            degree: Vec::new(),
        },
        stack: Vec::new(),
    };
    // Two counter-clockwise triangles over the box, sharing the diagonal c00 - c11.
    b.del.triangles.extend([[c00, c10, c11], [c00, c11, c01]]);
    b.del.opposite.extend([NONE, NONE, 3, 2, NONE, NONE]);
    let mut hint = 0u32;
    for v in order {
        hint = b.insert(v, hint)?;
    }
    Some(b.del)
}

/// The state of [`box_insert`].
struct BoxBuilder<'a> {
    sites: &'a [[f64; 2]],
    del: Delaunay,
    /// Half-edges to check for the empty-circle property (reused between insertions).
    stack: Vec<u32>,
}

impl BoxBuilder<'_> {
    fn orient(&self, a: u32, b: u32, p: [f64; 2]) -> f64 {
        robust::orient2d(
            coord(self.sites[a as usize]),
            coord(self.sites[b as usize]),
            coord(p),
        )
    }

    /// The triangle holding `p` (inside or on its border), walking from triangle `t`, and the
    /// positions (bits 0-2) of its half-edges that `p` lies on.
    fn locate(&self, p: [f64; 2], mut t: u32) -> Option<(u32, u8)> {
        // The half-edge the walk came in by: `p` lies strictly on its left.
        let mut came = NONE;
        'walk: loop {
            let mut on = 0u8;
            for k in 0..3 {
                let e = 3 * t + k;
                if e == came {
                    continue;
                }
                let side = self.orient(self.del.origin(e), self.del.target(e), p);
                if side < 0.0 {
                    let o = self.del.opposite[e as usize];
                    if o == NONE {
                        return None; // outside the box: cannot happen for its own sites
                    }
                    came = o;
                    t = o / 3;
                    continue 'walk;
                }
                if side == 0.0 {
                    on |= 1 << k;
                }
            }
            return Some((t, on));
        }
    }

    /// Inserts site `v`, starting the walk at triangle `hint`; returns a triangle around `v`.
    fn insert(&mut self, v: u32, hint: u32) -> Option<u32> {
        let p = self.sites[v as usize];
        let (t, on) = self.locate(p, hint)?;
        match on {
            0 => self.split_triangle(t, v),
            1 | 2 | 4 => self.split_edge(3 * t + on.trailing_zeros(), v),
            _ => return None, // on two edges: a repeated site
        }
        while let Some(e) = self.stack.pop() {
            if self.del.violates(self.sites, e) {
                let (t0, t1) = (e / 3, self.del.opposite[e as usize] / 3);
                self.del.flip(e);
                // The flipped triangles are [v, a, far] and [far, b, v]: check the edges
                // facing v.
                self.stack.extend([3 * t0 + 1, 3 * t1]);
            }
        }
        Some(t)
    }

    /// Links two half-edges (either may be [`NONE`]'s partner).
    fn link(&mut self, h: u32, other: u32) {
        self.del.opposite[h as usize] = other;
        if other != NONE {
            self.del.opposite[other as usize] = h;
        }
    }

    /// Splits triangle `t` = [a, b, c] at `v` into [a, b, v], [b, c, v], [c, a, v].
    fn split_triangle(&mut self, t: u32, v: u32) {
        let [a, b, c] = self.del.triangles[t as usize];
        let [oa, ob, oc] = [0, 1, 2].map(|k| self.del.opposite[(3 * t + k) as usize]);
        let t1 = self.del.triangles.len() as u32;
        let t2 = t1 + 1;
        self.del.triangles[t as usize] = [a, b, v];
        self.del.triangles.extend([[b, c, v], [c, a, v]]);
        self.del.opposite.extend([NONE; 6]);
        self.link(3 * t, oa);
        self.link(3 * t1, ob);
        self.link(3 * t2, oc);
        self.link(3 * t + 1, 3 * t1 + 2);
        self.link(3 * t1 + 1, 3 * t2 + 2);
        self.link(3 * t2 + 1, 3 * t + 2);
        self.stack.extend([3 * t, 3 * t1, 3 * t2]);
    }

    /// Splits half-edge `e` (a -> b, in triangle [a, b, c]) at `v`, which lies on it, with the
    /// triangle across it if any.
    fn split_edge(&mut self, e: u32, v: u32) {
        let t = e / 3;
        let (a, b, c) = (
            self.del.origin(e),
            self.del.target(e),
            self.del.origin(prev(e)),
        );
        let o = self.del.opposite[e as usize];
        let o_bc = self.del.opposite[next(e) as usize];
        let o_ca = self.del.opposite[prev(e) as usize];
        let t1 = self.del.triangles.len() as u32;
        // [a, v, c] in t and [v, b, c] in t1.
        self.del.triangles[t as usize] = [a, v, c];
        self.del.triangles.push([v, b, c]);
        self.del.opposite.extend([NONE; 3]);
        self.link(3 * t + 2, o_ca);
        self.link(3 * t1 + 1, o_bc);
        self.link(3 * t + 1, 3 * t1 + 2);
        self.stack.extend([3 * t + 2, 3 * t1 + 1]);
        if o == NONE {
            // On the hull: a -> v and v -> b stay hull edges.
            self.del.opposite[(3 * t) as usize] = NONE;
            self.del.opposite[(3 * t1) as usize] = NONE;
            return;
        }
        // Across: u = [b, a, d] becomes [b, v, d] in u and [v, a, d] in u2.
        let u = o / 3;
        let d = self.del.origin(prev(o));
        let o_ad = self.del.opposite[next(o) as usize];
        let o_db = self.del.opposite[prev(o) as usize];
        let u2 = t1 + 1;
        self.del.triangles[u as usize] = [b, v, d];
        self.del.triangles.push([v, a, d]);
        self.del.opposite.extend([NONE; 3]);
        self.link(3 * u + 2, o_db);
        self.link(3 * u2 + 1, o_ad);
        self.link(3 * u + 1, 3 * u2 + 2);
        // a -> v faces v -> a, v -> b faces b -> v.
        self.link(3 * t, 3 * u2);
        self.link(3 * t1, 3 * u);
        self.stack.extend([3 * u + 2, 3 * u2 + 1]);
    }
}

impl Delaunay {
    /// Rotates each triangle to start at its smallest site, the half-edges with it.
    fn rotate_to_smallest(&mut self) {
        let rot: Vec<u8> = self
            .triangles
            .par_iter()
            .map(|t| (0..3u8).min_by_key(|&j| t[j as usize]).unwrap_or(0))
            .collect();
        let remap = |h: u32| {
            if h == NONE {
                NONE
            } else {
                let (t, j) = (h / 3, h % 3);
                3 * t + (j + 3 - u32::from(rot[t as usize])) % 3
            }
        };
        let opposite: Vec<u32> = (0..self.opposite.len() as u32)
            .into_par_iter()
            .map(|h| {
                let (t, j) = (h / 3, h % 3);
                let r = u32::from(rot[t as usize]);
                remap(self.opposite[(3 * t + (j + r) % 3) as usize])
            })
            .collect();
        self.triangles
            .par_iter_mut()
            .zip(&rot)
            .for_each(|(t, &r)| t.rotate_left(r as usize));
        self.opposite = opposite;
    }
}

fn coord(p: [f64; 2]) -> robust::Coord<f64> {
    robust::Coord { x: p[0], y: p[1] }
}

impl Delaunay {
    /// The same triangulation with its triangles reordered: triangle `k` becomes old triangle
    /// `order[k]` (a permutation).
    pub fn permuted(self, order: &[u32]) -> Delaunay {
        let n = self.start.len();
        self.permute(order, n)
    }

    /// [`Delaunay::permuted`] for a triangulation of `n` sites, indexed or not. The new
    /// half-edges are written into the old triangles' buffer (three `u32` a triangle, as many
    /// as the half-edges), the sites' arrays refilled: at 4,000,000 cells about 130 MB of
    /// pages touched already instead of fresh ones.
    pub(crate) fn permute(self, order: &[u32], n: usize) -> Delaunay {
        let Delaunay {
            triangles: old_triangles,
            opposite: old_opposite,
            start,
            degree,
        } = self;
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
            .map(|&t| old_triangles[t as usize])
            .collect();
        // Every slot written, in place (a flat-mapped collect grows a list of vectors and
        // copies them).
        let mut opposite = old_triangles.into_flattened();
        opposite
            .par_chunks_mut(3)
            .zip(order.par_iter())
            .for_each(|(out, &t)| {
                for (j, slot) in out.iter_mut().enumerate() {
                    *slot = remap(old_opposite[3 * t as usize + j]);
                }
            });
        drop(old_opposite);
        let mut del = Delaunay {
            triangles,
            opposite,
            start,
            degree,
        };
        del.index_sites(n);
        del
    }

    /// Recomputes `start` and `degree` from the triangles and `opposite`, in one pass over the
    /// triangles.
    fn index_sites(&mut self, n: usize) {
        // The previous arrays' memory, refilled.
        let mut degree = std::mem::take(&mut self.degree);
        degree.clear();
        degree.resize(n, 0u32);
        let mut start = std::mem::take(&mut self.start);
        start.clear();
        start.resize(n, NONE);
        // Start half-edges: the first incoming one for inner sites; for hull sites the
        // incoming half-edge whose successor is a hull edge (whenever the hull edge comes, so
        // it wins over any incoming half-edge seen before or after). The triangles in two
        // halves side by side, the second into arrays of its own, merged in order: the first
        // half's first incoming half-edge before the second's, then every hull one.
        let half = self.triangles.len() / 2;
        let (hull, (degree2, start2, hull2)) = rayon::join(
            || self.scan_sites(0, &mut degree, &mut start),
            || {
                let (mut degree2, mut start2) = (vec![0u32; n], vec![NONE; n]);
                let hull = self.scan_sites(half, &mut degree2, &mut start2);
                (degree2, start2, hull)
            },
        );
        (&mut degree, &mut start)
            .into_par_iter()
            .zip((&degree2, &start2).into_par_iter())
            .for_each(|((d, s), (d2, s2))| {
                *d += d2;
                if *s == NONE {
                    *s = *s2;
                }
            });
        for (v, e) in hull.into_iter().chain(hull2) {
            start[v as usize] = e;
        }
        self.start = start;
        self.degree = degree;
    }

    /// [`Delaunay::index_sites`]'s pass over the triangles from `first` (to the middle when
    /// `first` is 0, else to the end): each site's degree and first incoming half-edge, and the
    /// hull sites' start half-edges in order.
    fn scan_sites(&self, first: usize, degree: &mut [u32], start: &mut [u32]) -> Vec<(u32, u32)> {
        let half = self.triangles.len() / 2;
        let end = if first == 0 {
            half
        } else {
            self.triangles.len()
        };
        let mut hull = Vec::new();
        for (t, (tri, opp)) in self.triangles[first..end]
            .iter()
            .zip(self.opposite[3 * first..3 * end].chunks_exact(3))
            .enumerate()
        {
            let e0 = 3 * (first + t) as u32;
            for j in 0..3 {
                // Half-edge e0 + j runs from tri[j] to tri[(j + 1) % 3].
                let b = tri[(j + 1) % 3] as usize;
                degree[b] += 1;
                if start[b] == NONE {
                    start[b] = e0 + j as u32;
                }
                if opp[j] == NONE {
                    // Hull half-edge: its predecessor ends at its origin.
                    hull.push((tri[j], e0 + ((j + 2) % 3) as u32));
                }
            }
        }
        hull
    }

    /// True when `d` lies strictly inside the circumcircle of half-edge `e`'s triangle (exact
    /// predicate).
    pub(crate) fn violates(&self, sites: &[[f64; 2]], e: u32) -> bool {
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
    /// triangulation (every triangle counter-clockwise). With `moved`, the edges were
    /// Delaunay before the sites flagged there moved, so only the edges of triangles around
    /// them are scanned (they are the only ones that can fail, found in the same order as by
    /// a whole scan). Returns `false` if the flips do not settle within their budget.
    fn flip_all(&mut self, sites: &[[f64; 2]], moved: Option<&[bool]>) -> bool {
        let n_half = self.triangles.len() * 3;
        let near = |e: u32| match moved {
            None => true,
            Some(m) => self.triangles[(e / 3) as usize]
                .iter()
                .chain(&self.triangles[(self.opposite[e as usize] / 3) as usize])
                .any(|&v| m[v as usize]),
        };
        let mut stack: Vec<u32> = (0..n_half as u32)
            .into_par_iter()
            .filter(|&e| {
                let o = self.opposite[e as usize];
                o != NONE && e < o && near(e) && self.violates(sites, e)
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
    /// out within 16 rounds: the caller then triangulates afresh. Its buffers are in
    /// `scratch`, reused from one call to the next.
    pub fn repair(
        &mut self,
        sites: &mut [[f64; 2]],
        old: &[[f64; 2]],
        scratch: &mut Scratch,
    ) -> bool {
        let Scratch {
            target,
            settled,
            moved,
        } = scratch;
        target.clear();
        target.extend_from_slice(sites);
        // Positions at which the current arrays are a valid triangulation.
        settled.clear();
        settled.extend_from_slice(old);
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
                    sites.copy_from_slice(target);
                    return false;
                }
            }
            // The arrays were Delaunay at the settled places: when few sites left them (the
            // held-back ones, after the first round), only the edges around those can fail.
            sites
                .par_iter()
                .zip(&*settled)
                .map(|(p, q)| p != q)
                .collect_into_vec(moved);
            let few = moved.iter().filter(|&&m| m).count() < sites.len() / 8;
            if !self.flip_all(sites, few.then_some(&moved[..])) {
                sites.copy_from_slice(target);
                return false;
            }
            if sites == target.as_slice() {
                self.index_sites(sites.len());
                return true;
            }
            settled.copy_from_slice(sites);
            sites.copy_from_slice(target);
        }
        sites.copy_from_slice(target);
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
