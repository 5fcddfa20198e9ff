//! Voronoi cells (circumcentres) clipped to the map rectangle: areas, area centroids, polygons.
//!
//! A cell is the ring of the circumcentres of the triangles around its site, counter-clockwise.
//! A hull site's cell is unbounded: it is closed by three far points (along the outward normals
//! of its two hull edges and along the outward bisector between them), far enough that the cut
//! lies outside the map, then clipped to the rectangle (Sutherland-Hodgman). The intersection of
//! an edge with a side of the map is computed from the edge's end points in a fixed order, so two
//! neighbouring cells get bit-identical points and the clipped cells tile the map.

use rayon::prelude::*;

use crate::delaunay::{Delaunay, next};

/// Circumcentres of every triangle (the Voronoi vertices). A triangle too flat for its
/// circumcentre to be finite falls back to its centroid.
pub fn circumcentres(sites: &[[f64; 2]], del: &Delaunay) -> Vec<[f64; 2]> {
    let mut out = Vec::new();
    circumcentres_into(sites, del, &mut out);
    out
}

/// [`circumcentres`] into `out`, reusing its memory (Lloyd's iterations: at 4,000,000 cells a
/// fresh 128 MB each time is as many pages for the kernel to clear).
pub fn circumcentres_into(sites: &[[f64; 2]], del: &Delaunay, out: &mut Vec<[f64; 2]>) {
    del.triangles
        .par_iter()
        .map(|t| {
            let a = sites[t[0] as usize];
            let b = sites[t[1] as usize];
            let c = sites[t[2] as usize];
            let (bx, by) = (b[0] - a[0], b[1] - a[1]);
            let (cx, cy) = (c[0] - a[0], c[1] - a[1]);
            let d = 2.0 * (bx * cy - by * cx);
            let b2 = bx * bx + by * by;
            let c2 = cx * cx + cy * cy;
            let ux = (cy * b2 - by * c2) / d;
            let uy = (bx * c2 - cx * b2) / d;
            if ux.is_finite() && uy.is_finite() {
                [a[0] + ux, a[1] + uy]
            } else {
                [(a[0] + b[0] + c[0]) / 3.0, (a[1] + b[1] + c[1]) / 3.0]
            }
        })
        .collect_into_vec(out);
}

/// Area and area centroid of a ring (shoelace), computed relative to `origin` for precision.
/// Returns `(area, [cx, cy])`; the centroid is `origin` when the area is 0.
pub fn area_centroid(ring: &[[f64; 2]], origin: [f64; 2]) -> (f64, [f64; 2]) {
    let n = ring.len();
    if n < 3 {
        return (0.0, origin);
    }
    let mut a2 = 0.0;
    let mut sx = 0.0;
    let mut sy = 0.0;
    let mut p = [ring[n - 1][0] - origin[0], ring[n - 1][1] - origin[1]];
    for q in ring {
        let q = [q[0] - origin[0], q[1] - origin[1]];
        let cross = p[0] * q[1] - q[0] * p[1];
        a2 += cross;
        sx += (p[0] + q[0]) * cross;
        sy += (p[1] + q[1]) * cross;
        p = q;
    }
    let area = 0.5 * a2;
    if area > 0.0 {
        (
            area,
            [origin[0] + sx / (3.0 * a2), origin[1] + sy / (3.0 * a2)],
        )
    } else {
        (area, origin)
    }
}

/// The point where segment `a`-`b` crosses the line `axis = value` (axis 0: x, 1: y), computed
/// from the end points in a canonical order so both cells sharing the edge agree to the bit.
#[inline]
fn cross_at(a: [f64; 2], b: [f64; 2], axis: usize, value: f64) -> [f64; 2] {
    let (p, q) = if (a[0], a[1]) <= (b[0], b[1]) {
        (a, b)
    } else {
        (b, a)
    };
    let other = 1 - axis;
    let t = (value - p[axis]) / (q[axis] - p[axis]);
    let mut out = [0.0; 2];
    out[axis] = value;
    out[other] = p[other] + t * (q[other] - p[other]);
    out
}

/// Clips a convex ring to `[0, W] x [0, H]` (Sutherland-Hodgman), using `tmp` as scratch.
pub fn clip_to_rect(ring: &mut Vec<[f64; 2]>, tmp: &mut Vec<[f64; 2]>, width: f64, height: f64) {
    // (axis, value, keep where coordinate >= value when true)
    let planes = [
        (0usize, 0.0, true),
        (0, width, false),
        (1, 0.0, true),
        (1, height, false),
    ];
    for (axis, value, keep_above) in planes {
        if ring.is_empty() {
            return;
        }
        let inside = |p: &[f64; 2]| {
            if keep_above {
                p[axis] >= value
            } else {
                p[axis] <= value
            }
        };
        if ring.iter().all(inside) {
            continue;
        }
        tmp.clear();
        let n = ring.len();
        for i in 0..n {
            let cur = ring[i];
            let nxt = ring[(i + 1) % n];
            let (ci, ni) = (inside(&cur), inside(&nxt));
            if ci {
                tmp.push(cur);
            }
            if ci != ni {
                tmp.push(cross_at(cur, nxt, axis, value));
            }
        }
        std::mem::swap(ring, tmp);
    }
}

fn unit(v: [f64; 2]) -> [f64; 2] {
    let len = v[0].hypot(v[1]);
    if len > 0.0 {
        [v[0] / len, v[1] / len]
    } else {
        [0.0, 0.0]
    }
}

/// What a cell is built from: the sites, their triangulation and its circumcentres, the map.
#[derive(Clone, Copy, Debug)]
pub struct Voronoi<'a> {
    pub sites: &'a [[f64; 2]],
    pub del: &'a Delaunay,
    pub centres: &'a [[f64; 2]],
    pub width: f64,
    pub height: f64,
}

/// Builds the clipped cell of `site` into `ring` (counter-clockwise), using `tmp` as scratch.
pub fn cell_ring(v: &Voronoi<'_>, site: usize, ring: &mut Vec<[f64; 2]>, tmp: &mut Vec<[f64; 2]>) {
    let Voronoi {
        sites,
        del,
        centres,
        width,
        height,
    } = *v;
    ring.clear();
    let mut last = del.start[site];
    for e in del.incoming(site) {
        ring.push(centres[(e / 3) as usize]);
        last = e;
    }
    let p = sites[site];
    if del.is_hull(site) {
        // First hull edge: p -> y1 (after the start half-edge); last: x_k -> p (the last
        // incoming half-edge). Outside is on the right of a hull half-edge.
        let y1 = sites[del.target(next(del.start[site])) as usize];
        let xk = sites[del.origin(last) as usize];
        let u1 = unit([y1[0] - p[0], y1[1] - p[1]]);
        let uk = unit([xk[0] - p[0], xk[1] - p[1]]);
        let n1 = [u1[1], -u1[0]];
        let nk = [-uk[1], uk[0]];
        let bis = [-(u1[0] + uk[0]), -(u1[1] + uk[1])];
        let nm = if bis[0].hypot(bis[1]) < 1e-9 {
            n1
        } else {
            unit(bis)
        };
        let mut reach = 0.0f64;
        for c in ring.iter() {
            reach = reach.max((c[0] - p[0]).hypot(c[1] - p[1]));
        }
        let far = 2.0 * reach + 4.0 * (width + height);
        let c1 = ring[0];
        let ck = ring[ring.len() - 1];
        ring.push([ck[0] + far * nk[0], ck[1] + far * nk[1]]);
        ring.push([p[0] + 2.0 * far * nm[0], p[1] + 2.0 * far * nm[1]]);
        ring.push([c1[0] + far * n1[0], c1[1] + far * n1[1]]);
    }
    let inside = ring
        .iter()
        .all(|c| c[0] >= 0.0 && c[0] <= width && c[1] >= 0.0 && c[1] <= height);
    if !inside {
        clip_to_rect(ring, tmp, width, height);
    }
}

/// Area and area centroid of every clipped cell, in parallel (each cell on its own, so the
/// result does not depend on the thread count).
pub fn areas_centroids(v: &Voronoi<'_>) -> Vec<(f64, [f64; 2])> {
    let mut out = Vec::new();
    areas_centroids_into(v, &mut out);
    out
}

/// [`areas_centroids`] into `out`, reusing its memory.
pub fn areas_centroids_into(v: &Voronoi<'_>, out: &mut Vec<(f64, [f64; 2])>) {
    (0..v.sites.len())
        .into_par_iter()
        .map_init(
            || (Vec::with_capacity(16), Vec::with_capacity(16)),
            |(ring, tmp), site| {
                cell_ring(v, site, ring, tmp);
                area_centroid(ring, v.sites[site])
            },
        )
        .collect_into_vec(out);
}

/// Every clipped cell polygon, in CSR form: `offsets` (`n + 1`) and the ring points, each
/// stored as `point` makes it, with each cell's area ([`area_centroid`] of its ring, as
/// computed: before `point`). Cells are built in parallel in fixed blocks of regions and joined
/// in order.
pub fn polygons<P: Copy + Default + Send + Sync>(
    v: &Voronoi<'_>,
    point: impl Fn([f64; 2]) -> P + Sync,
) -> Polygons<P> {
    const BLOCK: usize = 2048;
    let n = v.sites.len();
    let blocks: Vec<(Vec<u32>, Vec<P>, Vec<f64>)> = (0..n.div_ceil(BLOCK))
        .into_par_iter()
        .map(|b| {
            let range = b * BLOCK..((b + 1) * BLOCK).min(n);
            let mut lens = Vec::with_capacity(range.len());
            let mut areas = Vec::with_capacity(range.len());
            let mut points = Vec::with_capacity(range.len() * 7);
            let (mut ring, mut tmp) = (Vec::with_capacity(16), Vec::with_capacity(16));
            for site in range {
                cell_ring(v, site, &mut ring, &mut tmp);
                lens.push(ring.len() as u32);
                areas.push(area_centroid(&ring, v.sites[site]).0);
                points.extend(ring.iter().map(|&p| point(p)));
            }
            (lens, points, areas)
        })
        .collect();
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u32);
    let mut acc = 0u32;
    for (lens, ..) in &blocks {
        for len in lens {
            acc += len;
            offsets.push(acc);
        }
    }
    // The blocks' points copied into their places side by side (at 1,000,000 cells 48 MB as
    // the world's f32, 110 MB as the kernel's f64).
    let mut points = vec![P::default(); acc as usize];
    let mut places = Vec::with_capacity(blocks.len());
    let mut rest = points.as_mut_slice();
    for (_, pts, _) in &blocks {
        let (place, tail) = std::mem::take(&mut rest).split_at_mut(pts.len());
        places.push(place);
        rest = tail;
    }
    places
        .into_par_iter()
        .zip(blocks.par_iter())
        .for_each(|(place, (_, pts, _))| place.copy_from_slice(pts));
    let mut areas = Vec::with_capacity(n);
    for (_, _, block) in blocks {
        areas.extend(block);
    }
    Polygons {
        offsets,
        points,
        areas,
    }
}

/// The clipped cells of [`polygons`]: offsets (`n + 1`), ring points, areas.
pub struct Polygons<P> {
    /// Each cell's first point in `points` (`n + 1`).
    pub offsets: Vec<u32>,
    /// The rings, counter-clockwise, one after the other.
    pub points: Vec<P>,
    /// Each cell's area.
    pub areas: Vec<f64>,
}

/// The coefficient of variation (standard deviation / mean) of the areas of the cells whose
/// flag is 0, summed in index order.
pub fn area_cv(areas: &[f64], is_boundary: &[u8]) -> f64 {
    let mut n = 0usize;
    let mut sum = 0.0;
    for (a, &b) in areas.iter().zip(is_boundary) {
        if b == 0 {
            n += 1;
            sum += a;
        }
    }
    if n == 0 || sum <= 0.0 {
        return 0.0;
    }
    let mean = sum / n as f64;
    let mut var = 0.0;
    for (a, &b) in areas.iter().zip(is_boundary) {
        if b == 0 {
            var += (a - mean) * (a - mean);
        }
    }
    (var / n as f64).sqrt() / mean
}
