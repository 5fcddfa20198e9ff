//! The stream power law, implicit along the receiver stack (Braun and Willett 2013), its
//! steady state solved directly (as Salève and fastlem do), and hillslope diffusion.

use rayon::prelude::*;

use super::route::{Flow, Neighbours, route, route_into};

/// The constants of `dh/dt = U - K A^m S^n + D laplacian(h)` for one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Law {
    /// Erodibility K.
    pub k: f64,
    /// Drainage area exponent m.
    pub m: f64,
    /// Slope exponent n.
    pub n: f64,
    /// Hillslope diffusivity D (0: none).
    pub diffusion: f64,
}

/// What a run did, for reports and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Steps (transient) or routing iterations (steady state) run.
    pub steps: usize,
    /// Nodes whose erosion was limited so they stay above their receiver (fastscapelib's
    /// `n_corr`), summed over steps.
    pub n_corr: usize,
    /// Nodes inside depressions (raised by the Priority-Flood when routing), summed over steps.
    pub n_flooded: usize,
}

/// Solves `delta + c delta^n = delta0` for `delta` in `(0, delta0]` by Newton's method,
/// safeguarded by bisection (so it converges for any `c >= 0` and any `n > 0`).
#[inline]
pub fn solve_drop(delta0: f64, c: f64, n: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, delta0);
    let mut d = delta0;
    for _ in 0..100 {
        let cdn = c * d.powf(n);
        let g = d + cdn - delta0;
        if g.abs() <= 1e-14 * delta0 {
            break;
        }
        if g > 0.0 {
            hi = d;
        } else {
            lo = d;
        }
        let next = d - g / (1.0 + n * cdn / d);
        d = if next > lo && next < hi {
            next
        } else {
            0.5 * (lo + hi)
        };
        if hi - lo <= 1e-15 * delta0 {
            break;
        }
    }
    d
}

/// One implicit stream-power step on `h` (elevations at time t, already uplifted), along the
/// stack of `flow`, downstream-first: each node's new elevation solves
/// `h' = h - dt K A^m ((h' - h'_r) / d)^n` with its receiver's new elevation `h'_r` (exact for
/// n = 1, Newton per node otherwise). A node at or below its receiver's new elevation (inside a
/// depression) does not erode. A node that would sink to its receiver's level stays the
/// smallest positive f64 above it (counted: the returned `n_corr`, as fastscapelib's).
pub fn spl_step(h: &mut [f64], flow: &Flow, law: &Law, dt: f64) -> usize {
    let factor: Vec<f64> = flow
        .area
        .par_iter()
        .zip(&flow.distance)
        .with_min_len(4096)
        .map(|(&a, &d)| {
            if d <= 0.0 {
                0.0
            } else if law.n == 1.0 {
                law.k * dt * a.powf(law.m) / d
            } else {
                law.k * dt * a.powf(law.m) / d.powf(law.n)
            }
        })
        .collect();
    let mut n_corr = 0;
    let linear = law.n == 1.0;
    for &i in &flow.stack {
        let i = i as usize;
        let r = flow.receiver[i] as usize;
        if r == i {
            continue;
        }
        let (hi, hr) = (h[i], h[r]);
        if hr >= hi {
            continue;
        }
        let delta0 = hi - hr;
        let mut delta = if linear {
            delta0 / (1.0 + factor[i])
        } else {
            solve_drop(delta0, factor[i], law.n)
        };
        if delta <= 0.0 {
            n_corr += 1;
            delta = f64::MIN_POSITIVE;
        }
        h[i] = hr + delta;
    }
    n_corr
}

/// Linear hillslope diffusion `dh/dt = D laplacian(h)` for `dt`, explicit, in as many equal
/// substeps as stability needs (each node's weights sum to at most 1/2). The Laplacian at node i
/// is `4 / deg sum_j (h_j - h_i) / d_ij^2` over its valid neighbours (exact for the 4- and
/// 8-neighbour square lattices and the hexagonal one). Base levels and NaN nodes stay.
pub fn diffuse<G: Neighbours>(g: &G, h: &mut [f64], base: &[bool], diffusivity: f64, dt: f64) {
    if diffusivity <= 0.0 || dt <= 0.0 {
        return;
    }
    let weight = |i: usize| {
        let (mut w, mut deg) = (0.0, 0usize);
        g.for_each(i, |j, d| {
            if !h[j].is_nan() {
                w += 1.0 / (d * d);
                deg += 1;
            }
        });
        if deg == 0 { 0.0 } else { 4.0 * w / deg as f64 }
    };
    let stiffest = (0..g.len())
        .into_par_iter()
        .filter(|&i| !base[i])
        .map(weight)
        .reduce(|| 0.0, f64::max);
    let substeps = (diffusivity * dt * stiffest / 0.5).ceil().max(1.0) as usize;
    let step = dt / substeps as f64;
    let mut next = h.to_vec();
    for _ in 0..substeps {
        next.par_iter_mut()
            .enumerate()
            .with_min_len(1024)
            .for_each(|(i, out)| {
                let hi = h[i];
                if base[i] || hi.is_nan() {
                    *out = hi;
                    return;
                }
                let (mut sum, mut deg) = (0.0, 0usize);
                g.for_each(i, |j, d| {
                    if !h[j].is_nan() {
                        sum += (h[j] - hi) / (d * d);
                        deg += 1;
                    }
                });
                *out = if deg == 0 {
                    hi
                } else {
                    hi + step * diffusivity * 4.0 * sum / deg as f64
                };
            });
        h.copy_from_slice(&next);
    }
}

/// Runs `steps` steps of `dt`: uplift `uplift[i] dt` (base levels and NaN nodes excepted), route
/// (steepest descent, depressions by Priority-Flood), the implicit stream-power step, then
/// diffusion. `cell_area` is each node's own area.
// The graph, four per-node arrays, the law and the two time parameters are all the model is.
#[allow(clippy::too_many_arguments)]
pub fn evolve<G: Neighbours>(
    g: &G,
    h: &mut [f64],
    base: &[bool],
    cell_area: &[f64],
    uplift: &[f64],
    law: &Law,
    dt: f64,
    steps: usize,
) -> Stats {
    let mut stats = Stats::default();
    let mut flow = Flow::default();
    for _ in 0..steps {
        h.par_iter_mut()
            .zip(uplift)
            .zip(base)
            .with_min_len(4096)
            .for_each(|((h, &u), &b)| {
                if !b {
                    *h += u * dt;
                }
            });
        route_into(g, h, base, cell_area, &mut flow);
        stats.n_flooded += flow.n_flooded;
        stats.n_corr += spl_step(h, &flow, law, dt);
        diffuse(g, h, base, law.diffusion, dt);
        stats.steps += 1;
    }
    stats
}

/// The steady state of the stream power law without diffusion (Salève; fastlem): on a receiver
/// forest, `dh/dt = 0` gives `h_i = h_r + d (U_i / (K A_i^m))^(1/n)`, solved downstream-first.
/// Routing depends on the surface, so this routes on `h`, solves, and repeats until the receivers
/// stop changing or `max_iterations` solves have run. Base levels keep their elevation.
/// `law.k` must be > 0.
pub fn steady_state<G: Neighbours>(
    g: &G,
    h: &mut [f64],
    base: &[bool],
    cell_area: &[f64],
    uplift: &[f64],
    law: &Law,
    max_iterations: usize,
) -> Stats {
    let mut stats = Stats::default();
    let mut previous: Vec<u32> = Vec::new();
    let inv_n = 1.0 / law.n;
    for _ in 0..max_iterations {
        let flow = route(g, h, base, cell_area);
        stats.n_flooded += flow.n_flooded;
        stats.steps += 1;
        if flow.receiver == previous {
            break;
        }
        let rise: Vec<f64> = (0..h.len())
            .into_par_iter()
            .with_min_len(4096)
            .map(|i| {
                let u = uplift[i].max(0.0);
                flow.distance[i] * (u / (law.k * flow.area[i].powf(law.m))).powf(inv_n)
            })
            .collect();
        for &i in &flow.stack {
            let i = i as usize;
            let r = flow.receiver[i] as usize;
            if r != i {
                h[i] = h[r] + rise[i];
            }
        }
        previous = flow.receiver;
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newton_solves_the_implicit_drop() {
        for &n in &[0.5, 0.8, 1.0, 1.5, 2.0, 4.0] {
            for &c in &[0.0, 1e-6, 0.3, 1.0, 50.0, 1e6] {
                let d0 = 2.5;
                let d = solve_drop(d0, c, n);
                assert!(d > 0.0 && d <= d0, "n {n} c {c}: {d}");
                assert!((d + c * d.powf(n) - d0).abs() < 1e-9, "n {n} c {c}: {d}");
            }
        }
    }
}
