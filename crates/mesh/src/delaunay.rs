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
    let dt: DelaunayTriangulation<Site> = DelaunayTriangulation::bulk_load(vertices)
        .map_err(|e| MeshError::Triangulation(format!("{e:?}")))?;
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
    let triangles: Vec<[u32; 3]> = dt
        .inner_faces()
        .map(|f| {
            let [a, b, c] = f.vertices();
            [a.data().idx, b.data().idx, c.data().idx]
        })
        .collect();
    drop(dt);
    if triangles.is_empty() {
        return Err(MeshError::Degenerate { n });
    }
    Ok(from_triangles(triangles, n))
}

/// Builds the half-edge arrays from counter-clockwise triangles over `n` sites (every site in at
/// least one triangle).
pub fn from_triangles(triangles: Vec<[u32; 3]>, n: usize) -> Delaunay {
    let n_half = triangles.len() * 3;
    // Outgoing half-edges per site, in CSR form.
    let mut degree = vec![0u32; n];
    for t in &triangles {
        for &v in t {
            degree[v as usize] += 1;
        }
    }
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u32);
    let mut acc = 0u32;
    for &d in &degree {
        acc += d;
        offsets.push(acc);
    }
    let mut fill = offsets[..n].to_vec();
    let mut outgoing = vec![0u32; n_half];
    for (t, tri) in triangles.iter().enumerate() {
        for (j, &v) in tri.iter().enumerate() {
            outgoing[fill[v as usize] as usize] = (3 * t + j) as u32;
            fill[v as usize] += 1;
        }
    }
    let origin = |e: u32| triangles[(e / 3) as usize][(e % 3) as usize];
    let opposite: Vec<u32> = (0..n_half as u32)
        .into_par_iter()
        .map(|e| {
            let a = origin(e);
            let b = origin(next(e));
            let range = offsets[b as usize] as usize..offsets[b as usize + 1] as usize;
            outgoing[range]
                .iter()
                .copied()
                .find(|&f| origin(next(f)) == a)
                .unwrap_or(NONE)
        })
        .collect();
    // Start half-edges: any incoming one for inner sites; for hull sites the incoming half-edge
    // whose successor is a hull edge.
    let mut start = vec![NONE; n];
    for e in 0..n_half as u32 {
        let b = origin(next(e)) as usize;
        if start[b] == NONE {
            start[b] = e;
        }
    }
    for e in 0..n_half as u32 {
        if opposite[e as usize] == NONE {
            // Hull half-edge a -> b: its predecessor ends at a.
            start[origin(e) as usize] = prev(e);
        }
    }
    Delaunay {
        triangles,
        opposite,
        start,
        degree,
    }
}
