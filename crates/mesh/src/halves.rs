//! The Delaunay triangulation of many sites as two halves on two threads, stitched along a
//! seam.
//!
//! The box is cut across its longer side at the middle. Each half's sites are inserted, on
//! their own thread, into the box of the four corners ([`box_insert`]), so each half's
//! triangulation also holds the other half's two corners. A triangle of a half whose
//! circumcircle lies wholly on its own side of the cut (with a margin far above rounding)
//! has no site of the other half inside it, so it is a triangle of the whole triangulation:
//! it is *safe*. The rest of the box, the *seam*, is covered in the whole triangulation by
//! triangles whose sites all lie on some unsafe triangle (a site whose triangles are all safe
//! has its whole star already), so the Delaunay triangulation of those sites alone, cut to the
//! seam, fills it: the seam is the part reached from the edges between safe and unsafe
//! triangles (the walls, which are edges of both) without crossing a wall.
//!
//! In general position the Delaunay triangulation is unique, so the result is the serial
//! insertion's, triangle for triangle (the caller rotates and the mesh sorts them). Where
//! several are valid (four or more sites on one empty circle) it is one of them, the same on
//! any number of threads: the halves do not depend on the threads. Every stitch is checked
//! (every wall found once, the seam closed by its walls, Euler's count of triangles and hull
//! edges, the empty-circle property on every seam edge by the exact predicate); `None` (the
//! caller then inserts serially) if any check fails.

use crate::delaunay::{Delaunay, NONE, box_insert};

/// Fewer sites than this are inserted on one thread: the stitch would cost what the halves
/// save.
pub(crate) const MIN_SITES: usize = 8192;

/// One half's triangulation, which of its triangles are safe, their numbers among the half's
/// safe triangles (`NONE` for the others), and the unsafe ones.
struct Half {
    del: Delaunay,
    safe: Vec<bool>,
    number: Vec<u32>,
    n_safe: u32,
    unsafe_triangles: Vec<u32>,
}

/// The two halves' triangulation of `sites`, whose bounding box `lo`-`hi` has the four
/// `corners` (`[lo lo, hi lo, hi hi, lo hi]`); `None` when a half holds under an eighth of the
/// sites, a site repeats, or a check of the stitch fails.
pub(crate) fn triangulate(
    sites: &[[f64; 2]],
    corners: [u32; 4],
    lo: [f64; 2],
    hi: [f64; 2],
) -> Option<Delaunay> {
    let n = sites.len();
    let axis = usize::from(hi[1] - lo[1] >= hi[0] - lo[0]);
    let mid = 0.5 * (lo[axis] + hi[axis]);
    let low = |v: u32| sites[v as usize][axis] < mid;
    // The sites on the low side, the last coordinate there and the first on the high side
    // (along the axis), and the sites on the box's border.
    let (mut n_low, mut low_max, mut high_min, mut border) =
        (0usize, f64::NEG_INFINITY, f64::INFINITY, 0usize);
    for p in sites {
        if p[axis] < mid {
            n_low += 1;
            low_max = low_max.max(p[axis]);
        } else {
            high_min = high_min.min(p[axis]);
        }
        border += usize::from(p[0] == lo[0] || p[0] == hi[0] || p[1] == lo[1] || p[1] == hi[1]);
    }
    if n_low < n / 8 || n - n_low < n / 8 {
        return None;
    }
    let half = |on_low: bool| -> Option<Half> {
        let order = (0..n as u32).filter(|&v| low(v) == on_low && !corners.contains(&v));
        let count = if on_low { n_low } else { n - n_low };
        let del = box_insert(sites, corners, order, count + 4)?;
        // Safe: every site on this side, and the circle short of the other side's first site.
        let (sign, bound) = if on_low {
            (1.0, high_min)
        } else {
            (-1.0, -low_max)
        };
        let safe: Vec<bool> = del
            .triangles
            .iter()
            .map(|t| t.iter().all(|&v| low(v) == on_low) && short_of(sites, t, axis, sign, bound))
            .collect();
        let mut number = vec![NONE; safe.len()];
        let mut n_safe = 0u32;
        let mut unsafe_triangles = Vec::new();
        for (t, (&s, k)) in safe.iter().zip(&mut number).enumerate() {
            if s {
                *k = n_safe;
                n_safe += 1;
            } else {
                unsafe_triangles.push(t as u32);
            }
        }
        Some(Half {
            del,
            safe,
            number,
            n_safe,
            unsafe_triangles,
        })
    };
    let (low_half, high_half) = rayon::join(|| half(true), || half(false));
    stitch(sites, corners, [low_half?, high_half?], border)
}

/// True when the circumcircle of triangle `t` stays short of `bound` along `axis` in direction
/// `sign` (+1 or -1; `bound` then counts in that direction), by a margin far above rounding.
fn short_of(sites: &[[f64; 2]], t: &[u32; 3], axis: usize, sign: f64, bound: f64) -> bool {
    let p = t.map(|v| sites[v as usize]);
    let d2 = |a: [f64; 2], b: [f64; 2]| (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2);
    // The centre from the corner facing the longest side: rounding then stays within a few
    // units in the last place of the radius.
    let sides = [d2(p[1], p[2]), d2(p[2], p[0]), d2(p[0], p[1])];
    let k = if sides[0] >= sides[1] && sides[0] >= sides[2] {
        0
    } else if sides[1] >= sides[2] {
        1
    } else {
        2
    };
    let (a, b, c) = (p[k], p[(k + 1) % 3], p[(k + 2) % 3]);
    let (bx, by) = (b[0] - a[0], b[1] - a[1]);
    let (cx, cy) = (c[0] - a[0], c[1] - a[1]);
    let inv = 0.5 / (bx * cy - by * cx);
    let b2 = bx * bx + by * by;
    let c2 = cx * cx + cy * cy;
    let u = [(cy * b2 - by * c2) * inv, (bx * c2 - cx * b2) * inv];
    let r2 = u[0] * u[0] + u[1] * u[1];
    let centre = sign * (a[axis] + u[axis]);
    // centre + r (1 + 1e-9) + 1e-9 (|centre| + |a|) < bound, without the square root.
    let room = bound - centre - 1e-9 * (centre.abs() + a[axis].abs());
    room > 0.0 && r2 * (1.0 + 1e-9) * (1.0 + 1e-9) < room * room
}

/// Joins the halves' safe triangles with the seam's triangles (see the module doc); `border`
/// is the number of sites on the box's border.
fn stitch(
    sites: &[[f64; 2]],
    corners: [u32; 4],
    halves: [Half; 2],
    border: usize,
) -> Option<Delaunay> {
    // The new numbers: the low half's safe triangles, the high half's, then the seam's.
    let bases = [0, halves[0].n_safe];
    let n_safe = halves[0].n_safe + halves[1].n_safe;
    // The seam's sites: those of the unsafe triangles, in input order (locality for the
    // walks), inserted into the box of the corners.
    let mut seam_sites: Vec<u32> = halves
        .iter()
        .flat_map(|h| {
            h.unsafe_triangles
                .iter()
                .flat_map(|&t| h.del.triangles[t as usize])
        })
        .collect();
    seam_sites.sort_unstable();
    seam_sites.dedup();
    let capacity = seam_sites.len();
    let seam = box_insert(
        sites,
        corners,
        seam_sites.into_iter().filter(|v| !corners.contains(v)),
        capacity,
    )?;
    // The seam's half-edges by (origin, target), to find each wall's reverse.
    let mut by_ends: Vec<(u64, u32)> = (0..seam.opposite.len() as u32)
        .map(|e| (ends(seam.origin(e), seam.target(e)), e))
        .collect();
    by_ends.sort_unstable();
    let find = |from: u32, to: u32| -> Option<u32> {
        let key = ends(from, to);
        let i = by_ends.binary_search_by_key(&key, |&(k, _)| k).ok()?;
        Some(by_ends[i].1)
    };
    // The walls: a safe triangle's half-edge `w` whose partner `e` lies in an unsafe triangle
    // of its half. The seam's half-edge along `e` (the same edge, the same way) opens onto
    // the seam.
    let mut wall_of = vec![NONE; seam.opposite.len()]; // seam half-edge -> new half-edge
    let mut walls: [Vec<(u32, u32)>; 2] = [Vec::new(), Vec::new()]; // (w, seam half-edge)
    let mut keep = vec![false; seam.triangles.len()];
    let mut stack = Vec::new();
    for (k, h) in halves.iter().enumerate() {
        for &t in &h.unsafe_triangles {
            for e in 3 * t..3 * t + 3 {
                let w = h.del.opposite[e as usize];
                if w == NONE || !h.safe[(w / 3) as usize] {
                    continue;
                }
                let g = find(h.del.origin(e), h.del.target(e))?;
                if wall_of[g as usize] != NONE {
                    return None;
                }
                wall_of[g as usize] = 3 * (bases[k] + h.number[(w / 3) as usize]) + w % 3;
                walls[k].push((w, g));
                if !keep[(g / 3) as usize] {
                    keep[(g / 3) as usize] = true;
                    stack.push(g / 3);
                }
            }
        }
        walls[k].sort_unstable();
    }
    // The seam: every triangle reached from the walls without crossing one.
    while let Some(t) = stack.pop() {
        for e in 3 * t..3 * t + 3 {
            let o = seam.opposite[e as usize];
            if wall_of[e as usize] == NONE && o != NONE && !keep[(o / 3) as usize] {
                keep[(o / 3) as usize] = true;
                stack.push(o / 3);
            }
        }
    }
    let mut seam_new = vec![NONE; keep.len()];
    let mut n_triangles = n_safe;
    for (k, &kept) in seam_new.iter_mut().zip(&keep) {
        if kept {
            *k = n_triangles;
            n_triangles += 1;
        }
    }
    let n_triangles = n_triangles as usize;
    // Euler: a triangulation of the box with `b` sites on its border has 2 n - 2 - b
    // triangles (and `b` hull edges, counted below).
    if n_triangles + 2 + border != 2 * sites.len() {
        return None;
    }
    let mut triangles = vec![[0u32; 3]; n_triangles];
    let mut opposite = vec![NONE; 3 * n_triangles];
    let (low_tri, rest_tri) = triangles.split_at_mut(bases[1] as usize);
    let (high_tri, seam_tri) = rest_tri.split_at_mut(halves[1].n_safe as usize);
    let (low_opp, rest_opp) = opposite.split_at_mut(3 * bases[1] as usize);
    let (high_opp, seam_opp) = rest_opp.split_at_mut(3 * halves[1].n_safe as usize);
    // Each half's safe triangles on its own thread.
    let copy = |k: usize, tri: &mut [[u32; 3]], opp: &mut [u32]| -> usize {
        let (h, walls, base) = (&halves[k], &walls[k], bases[k]);
        let safe = h
            .safe
            .iter()
            .enumerate()
            .filter(|&(_, &s)| s)
            .map(|(t, _)| t);
        let mut hull = 0;
        for ((t, out), out3) in safe.zip(tri).zip(opp.chunks_exact_mut(3)) {
            *out = h.del.triangles[t];
            for (j, o3) in out3.iter_mut().enumerate() {
                let e = 3 * t + j;
                let o = h.del.opposite[e];
                *o3 = if o == NONE {
                    hull += 1;
                    NONE
                } else if h.safe[(o / 3) as usize] {
                    3 * (base + h.number[(o / 3) as usize]) + o % 3
                } else {
                    // A wall (every one is listed): its seam half-edge's new number.
                    match walls.binary_search_by_key(&(e as u32), |&(w, _)| w) {
                        Ok(i) => {
                            let g = walls[i].1;
                            3 * seam_new[(g / 3) as usize] + g % 3
                        }
                        Err(_) => NONE, // caught by the count of hull edges
                    }
                };
            }
        }
        hull
    };
    let (low_hull, high_hull) =
        rayon::join(|| copy(0, low_tri, low_opp), || copy(1, high_tri, high_opp));
    let mut hull = low_hull + high_hull;
    let kept = keep.iter().enumerate().filter(|&(_, &k)| k).map(|(t, _)| t);
    for ((t, out), out3) in kept.zip(seam_tri).zip(seam_opp.chunks_exact_mut(3)) {
        *out = seam.triangles[t];
        for (j, o3) in out3.iter_mut().enumerate() {
            let e = 3 * t + j;
            let (o, w) = (seam.opposite[e], wall_of[e]);
            *o3 = if w != NONE {
                w
            } else if o == NONE {
                hull += 1;
                NONE
            } else if keep[(o / 3) as usize] {
                3 * seam_new[(o / 3) as usize] + o % 3
            } else {
                return None; // the seam leaks past its walls
            };
        }
    }
    let del = Delaunay {
        triangles,
        opposite,
        start: Vec::new(),
        degree: Vec::new(),
    };
    // The hull is the box's border, and the empty-circle property holds on every edge of the
    // seam, walls included.
    if hull != border || (3 * n_safe..3 * n_triangles as u32).any(|e| del.violates(sites, e)) {
        return None;
    }
    Some(del)
}

/// The key of a half-edge by its two sites.
fn ends(from: u32, to: u32) -> u64 {
    (u64::from(from) << 32) | u64::from(to)
}
