//! Masked variable-radius Poisson-disc sampling (Bridson's active list, with a radius per point),
//! for vegetation and anything else that grows only where a density allows it.
//!
//! Each point `q` has a disc radius `r(q)` from the local density; two points `p`, `q` keep at
//! least `min(r(p), r(q))` apart, so the spacing follows the density and a sparse area next to a
//! dense one does not push the dense one's points away. Points grow out from accepted points
//! (candidates in the annulus `[r, 2r]`); seed darts on a lattice of step `seed_step` start new
//! fronts, so islands of non-zero density are reached too. Sequential and seeded: the same
//! inputs give the same points.

use rand::Rng;

use crate::{index_below, unit_f64};

/// Candidates tried around each active point before it retires, for [`poisson_disc_masked`].
pub const MASKED_K: usize = 20;

/// A sampled point and its disc radius.
pub type DiscPoint = ([f64; 2], f64);

/// Samples [0, width] x [0, height].
///
/// `radius(q)` gives the disc radius at `q`, or `None` where nothing may stand (zero density);
/// every radius must be at least `r_min`. `allowed(q)` may veto a candidate (a river, a canopy
/// tree nearby). Seed darts are thrown on a lattice of step `seed_step`, in row order.
pub fn poisson_disc_masked<R: Rng + ?Sized>(
    width: f64,
    height: f64,
    r_min: f64,
    seed_step: f64,
    radius: &dyn Fn([f64; 2]) -> Option<f64>,
    allowed: &dyn Fn([f64; 2]) -> bool,
    rng: &mut R,
) -> Vec<DiscPoint> {
    // At most one point per cell: the cell diagonal is below r_min.
    let cell = r_min / 1.5;
    let nx = ((width / cell).ceil() as usize).max(1);
    let ny = ((height / cell).ceil() as usize).max(1);
    let mut grid: Vec<u32> = vec![u32::MAX; nx * ny];
    let mut points: Vec<DiscPoint> = Vec::new();
    let mut active: Vec<u32> = Vec::new();
    let cell_of = |p: [f64; 2]| -> (usize, usize) {
        (
            ((p[0] / cell) as usize).min(nx - 1),
            ((p[1] / cell) as usize).min(ny - 1),
        )
    };
    // Accepts `q` when it may stand and keeps min(r(q), r(x)) from every point x.
    let try_accept =
        |q: [f64; 2], grid: &mut Vec<u32>, points: &mut Vec<DiscPoint>| -> Option<u32> {
            if !(q[0] >= 0.0 && q[0] <= width && q[1] >= 0.0 && q[1] <= height) {
                return None;
            }
            let rq = radius(q)?;
            let (c, r) = cell_of(q);
            if grid[r * nx + c] != u32::MAX {
                return None;
            }
            // Rings of cells outward from q's own, so a conflict (most often next door) ends
            // the scan early.
            let reach = (rq / cell).ceil() as isize;
            let (ci, ri) = (c as isize, r as isize);
            for ring in 1..=reach {
                for row in (ri - ring).max(0)..=(ri + ring).min(ny as isize - 1) {
                    let edge = row == ri - ring || row == ri + ring;
                    let step = if edge { 1 } else { 2 * ring };
                    let mut col = ci - ring;
                    while col <= ci + ring {
                        if col >= 0 && col < nx as isize {
                            let i = grid[row as usize * nx + col as usize];
                            if i != u32::MAX {
                                let (x, rx) = points[i as usize];
                                let d2 = (x[0] - q[0]).powi(2) + (x[1] - q[1]).powi(2);
                                let m = rq.min(rx);
                                if d2 < m * m {
                                    return None;
                                }
                            }
                        }
                        col += step;
                    }
                }
            }
            if !allowed(q) {
                return None;
            }
            let idx = points.len() as u32;
            points.push((q, rq));
            grid[r * nx + c] = idx;
            Some(idx)
        };
    let sx = ((width / seed_step).ceil() as usize).max(1);
    let sy = ((height / seed_step).ceil() as usize).max(1);
    for j in 0..sy {
        for i in 0..sx {
            let q = [
                ((i as f64 + unit_f64(rng)) * seed_step).min(width),
                ((j as f64 + unit_f64(rng)) * seed_step).min(height),
            ];
            let Some(idx) = try_accept(q, &mut grid, &mut points) else {
                continue;
            };
            active.push(idx);
            while !active.is_empty() {
                let k = index_below(rng, active.len());
                let (p, rp) = points[active[k] as usize];
                let mut grew = false;
                for _ in 0..MASKED_K {
                    let angle = std::f64::consts::TAU * unit_f64(rng);
                    let dist = rp * (1.0 + unit_f64(rng));
                    let q = [p[0] + dist * angle.cos(), p[1] + dist * angle.sin()];
                    if let Some(idx) = try_accept(q, &mut grid, &mut points) {
                        active.push(idx);
                        grew = true;
                        break;
                    }
                }
                if !grew {
                    active.swap_remove(k);
                }
            }
        }
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;
    use orogen_world::seed::rng_from_seed;

    #[test]
    fn spacing_follows_the_radius_field() {
        // Left half: radius 0.01; right half: radius 0.03.
        let radius = |p: [f64; 2]| Some(if p[0] < 0.5 { 0.01 } else { 0.03 });
        let mut rng = rng_from_seed(7);
        let pts = poisson_disc_masked(1.0, 1.0, 0.01, 0.01, &radius, &|_| true, &mut rng);
        for (i, &(p, rp)) in pts.iter().enumerate() {
            assert_eq!(Some(rp), radius(p));
            for &(q, rq) in &pts[i + 1..] {
                let d = ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt();
                assert!(d >= rp.min(rq), "{p:?} {q:?} {d}");
            }
        }
        let left = pts.iter().filter(|(p, _)| p[0] < 0.5).count() as f64;
        let right = pts.len() as f64 - left;
        // Density scales as 1/r^2: about 9x more points on the left.
        assert!(left / right > 6.0 && left / right < 12.0, "{left} {right}");
        // Maximal sampling: no gap of 2 r anywhere (the left half's points cover it densely).
        assert!(left * 0.01 * 0.01 > 0.5 * 0.5);
    }

    #[test]
    fn zero_density_and_vetoes_hold_and_islands_are_reached() {
        // Density only inside two small discs far apart.
        let inside = |p: [f64; 2]| {
            let a = (p[0] - 0.2).powi(2) + (p[1] - 0.2).powi(2) < 0.05f64.powi(2);
            let b = (p[0] - 0.8).powi(2) + (p[1] - 0.7).powi(2) < 0.05f64.powi(2);
            a || b
        };
        let radius = |p: [f64; 2]| inside(p).then_some(0.01);
        let veto = |p: [f64; 2]| p[1] < 0.19 || p[1] > 0.21;
        let mut rng = rng_from_seed(8);
        let pts = poisson_disc_masked(1.0, 1.0, 0.01, 0.02, &radius, &veto, &mut rng);
        assert!(pts.iter().all(|(p, _)| inside(*p) && veto(*p)));
        assert!(pts.iter().any(|(p, _)| p[0] < 0.5));
        assert!(pts.iter().any(|(p, _)| p[0] > 0.5));
        let again =
            poisson_disc_masked(1.0, 1.0, 0.01, 0.02, &radius, &veto, &mut rng_from_seed(8));
        assert_eq!(pts, again);
    }
}
