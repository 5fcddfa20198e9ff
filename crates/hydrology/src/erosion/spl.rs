//! The stream power law, implicit along the receiver stack (Braun and Willett 2013), its
//! steady state solved directly (as Salève and fastlem do), and hillslope diffusion.

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;

use super::route::{Flow, Neighbours, route_trees};

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
    let power = AreaPower::new(&[], law.m);
    let factor: Vec<f64> = flow
        .area
        .par_iter()
        .zip(&flow.distance)
        .enumerate()
        .with_min_len(4096)
        .map(|(i, (&a, &d))| erosion_factor(law, dt, &power, i, a, d))
        .collect();
    let mut n_corr = 0;
    for &i in &flow.stack {
        let i = i as usize;
        let r = flow.receiver[i] as usize;
        if r != i {
            let hr = h[r];
            n_corr += usize::from(drop_to(&mut h[i], hr, factor[i], law.n));
        }
    }
    n_corr
}

/// `a^m` for drainage areas. On a raster of equal cells the areas are mostly small multiples
/// `k c` of the cell area `c`, exact when `k c` is (whole metres squared, or any dyadic cell):
/// those come from a table of `(k c)^m`, used only when the area equals its key `k c` exactly,
/// so every value is the `powf` of that area. With a memo ([`AreaPower::with_memo`]) each
/// node keeps the last area it took the power of and that power: from one step to the next most
/// nodes drain the same area (a few hundred of 50,000 change receivers), so most powers are
/// read back, and a node whose area changed (by a single bit) calls `powf` again. Anything else
/// calls `powf`: every value is the `powf` of its area.
pub(super) struct AreaPower {
    /// The one cell area when all are equal (else 0, and no table).
    cell: f64,
    /// `1 / cell`: the table index is found by a product (a wrong guess only misses the table).
    per_cell: f64,
    m: f64,
    table: Vec<f64>,
    /// Per node, the bits of the last area whose power it took and of that power (written by
    /// the parallel runs of trees, each node by the one run that holds it, so relaxed loads
    /// and stores are enough). Empty: no memo.
    memo: Vec<[AtomicU64; 2]>,
}

impl AreaPower {
    /// Keys `k c` for `k < TABLE`: most nodes of a drainage network drain fewer cells.
    const TABLE: usize = 4096;

    /// The table when every entry of `cell_area` is the same positive value, else none.
    pub(super) fn new(cell_area: &[f64], m: f64) -> Self {
        let cell = cell_area.first().copied().unwrap_or(0.0);
        let uniform = cell > 0.0 && cell.is_finite() && cell_area.par_iter().all(|&a| a == cell);
        let table = if uniform {
            (0..Self::TABLE)
                .map(|k| (k as f64 * cell).powf(m))
                .collect()
        } else {
            Vec::new()
        };
        AreaPower {
            cell: if uniform { cell } else { 0.0 },
            per_cell: if uniform { 1.0 / cell } else { 0.0 },
            m,
            table,
            memo: Vec::new(),
        }
    }

    /// With a memo of `nodes` nodes (what runs of many steps on one graph want).
    pub(super) fn with_memo(mut self, nodes: usize) -> Self {
        // No area has these bits (a NaN): the first look at each node misses.
        self.memo = (0..nodes)
            .map(|_| [AtomicU64::new(u64::MAX), AtomicU64::new(0)])
            .collect();
        self
    }

    /// `a^m` for node `i`'s drainage area `a`.
    #[inline]
    fn of(&self, i: usize, a: f64) -> f64 {
        if !self.table.is_empty() {
            let k = (a * self.per_cell + 0.5) as usize;
            if k < self.table.len() && k as f64 * self.cell == a {
                return self.table[k];
            }
        }
        let Some([area, power]) = self.memo.get(i) else {
            return a.powf(self.m);
        };
        if area.load(Relaxed) == a.to_bits() {
            return f64::from_bits(power.load(Relaxed));
        }
        let p = a.powf(self.m);
        area.store(a.to_bits(), Relaxed);
        power.store(p.to_bits(), Relaxed);
        p
    }
}

/// `K dt A^m / d^n`, the implicit step's coefficient of a node at distance `d` from its
/// receiver (0 at roots).
#[inline]
fn erosion_factor(law: &Law, dt: f64, power: &AreaPower, i: usize, a: f64, d: f64) -> f64 {
    if d <= 0.0 {
        0.0
    } else if law.n == 1.0 {
        law.k * dt * power.of(i, a) / d
    } else {
        law.k * dt * power.of(i, a) / d.powf(law.n)
    }
}

/// One node's implicit step onto its receiver's new elevation `hr`: `true` when the drop was
/// held at the smallest positive f64 (an `n_corr`).
#[inline]
fn drop_to(hi: &mut f64, hr: f64, factor: f64, n: f64) -> bool {
    if hr >= *hi {
        return false;
    }
    let delta0 = *hi - hr;
    let delta = if n == 1.0 {
        delta0 / (1.0 + factor)
    } else {
        solve_drop(delta0, factor, n)
    };
    let held = delta <= 0.0;
    *hi = hr + if held { f64::MIN_POSITIVE } else { delta };
    held
}

/// Buffers of [`along_runs`], in stack order, kept between steps.
#[derive(Default)]
struct Along {
    h: Vec<f64>,
    area: Vec<f64>,
}

/// The drainage area and a downstream-first update in one, run by run of whole trees in
/// parallel (see `Flow::runs`): each run's elevations and areas are gathered into stack order,
/// its areas summed upstream-first exactly as [`route_into`] sums them (the same additions in
/// the same order, so the same bytes), then `update(node, area, distance, h_receiver, h)` runs
/// on every node but the roots downstream-first, and the elevations are scattered back.
/// Returns the sum of what `update` returns.
///
/// [`route_into`]: super::route_into
fn along_runs<G: Neighbours>(
    g: &G,
    h: &mut [f64],
    flow: &Flow,
    cell_area: &[f64],
    power: &AreaPower,
    along: &mut Along,
    update: impl Fn(usize, f64, f64, f64, &mut f64) -> usize + Sync,
) -> usize {
    let stack = &flow.stack;
    stack
        .par_iter()
        .with_min_len(4096)
        .map(|&i| h[i as usize])
        .collect_into_vec(&mut along.h);
    if power.cell > 0.0 {
        along.area.clear();
        along.area.resize(stack.len(), power.cell);
    } else {
        stack
            .par_iter()
            .with_min_len(4096)
            .map(|&i| cell_area[i as usize])
            .collect_into_vec(&mut along.area);
    }
    // On a raster of 3 columns or more, a receiver's distance follows from its index step,
    // without a gather.
    let grid = g.as_grid().filter(|grid| grid.cols >= 3);
    let distance = |i: usize, r: usize| match grid {
        Some(grid) => match i.abs_diff(r) {
            1 => grid.dx,
            step if step == grid.cols => grid.dy,
            _ => grid.diagonal(),
        },
        None => flow.distance[i],
    };
    let mut runs = Vec::with_capacity(flow.runs.len());
    let (mut hs, mut areas) = (&mut along.h[..], &mut along.area[..]);
    for w in flow.runs.windows(2) {
        let (h_run, h_rest) = hs.split_at_mut(w[1] - w[0]);
        let (a_run, a_rest) = areas.split_at_mut(w[1] - w[0]);
        runs.push((w[0], h_run, a_run));
        (hs, areas) = (h_rest, a_rest);
    }
    let total = runs
        .into_par_iter()
        .map(|(start, h, area)| {
            let up = &flow.up[start..start + h.len()];
            let nodes = &stack[start..start + h.len()];
            for p in (0..h.len()).rev() {
                let u = up[p] as usize - start;
                if u != p {
                    area[u] += area[p];
                }
            }
            let mut total = 0;
            for p in 0..h.len() {
                let u = up[p] as usize - start;
                if u != p {
                    let i = nodes[p] as usize;
                    let d = distance(i, nodes[u] as usize);
                    let hr = h[u];
                    total += update(i, area[p], d, hr, &mut h[p]);
                }
            }
            total
        })
        .sum();
    for (&i, &v) in stack.iter().zip(&along.h) {
        h[i as usize] = v;
    }
    total
}

/// Linear hillslope diffusion `dh/dt = D laplacian(h)` for `dt`, in equal substeps: as many as
/// the nodes up to the 99.9th percentile of the stiffness need to be explicit with their weights
/// summing to at most 1 (monotone, see `MAX_WEIGHT`); the few stiffer nodes take each substep
/// with their own value implicit, `(h_i + r s_i sum_j w_ij h_j) / (1 + r a_i)`, which is
/// monotone at any step. The Laplacian at node i is `4 / deg sum_j (h_j - h_i) / d_ij^2` over
/// its valid neighbours (exact for the 4- and 8-neighbour square lattices and the hexagonal
/// one), the weights `1 / d_ij^2` from [`Neighbours::for_each_inv_sq`]. Base levels and NaN
/// nodes stay.
pub fn diffuse<G: Neighbours>(g: &G, h: &mut [f64], base: &[bool], diffusivity: f64, dt: f64) {
    if diffusivity <= 0.0 || dt <= 0.0 {
        return;
    }
    Diffusion::new(g, h, base).step(g, h, diffusivity, dt);
}

/// What [`diffuse`] keeps between the steps of one run ([`evolve`]): each node's share of its
/// Laplacian and its stiffness, and the stiffness that sets the substeps, which depend only on
/// the graph, the base levels and where `h` is NaN (none of which a run changes), and the buffer
/// the substeps alternate with.
#[derive(Debug)]
struct Diffusion {
    /// Per node, `4 / deg` over its neighbours that are not NaN; 0 for a node that stays (a base
    /// level, NaN, or without a neighbour that is not).
    scale: Vec<f64>,
    /// Per node, its weights' sum `4 / deg sum_j 1 / d_ij^2` (0 where `scale` is 0).
    stiffness: Vec<f64>,
    /// The [`STIFF_QUANTILE`] quantile of the stiffness of the nodes that move: the substeps
    /// keep every node up to it explicit.
    typical: f64,
    other: Vec<f64>,
}

/// The share of the moving nodes whose stiffness sets the diffusion's substeps; the stiffer
/// ones (a few with very short edges, up to twice as stiff on the relaxed mesh) take each
/// substep with their own value implicit.
const STIFF_QUANTILE: f64 = 0.999;

/// Nodes a task of the diffusion's substeps.
const DIFFUSION_CHUNK: usize = 4096;

impl Diffusion {
    fn new<G: Neighbours>(g: &G, h: &[f64], base: &[bool]) -> Diffusion {
        let (scale, stiffness): (Vec<f64>, Vec<f64>) = (0..g.len())
            .into_par_iter()
            .map(|i| {
                if base[i] || h[i].is_nan() {
                    return (0.0, 0.0);
                }
                let (mut w, mut deg) = (0.0, 0usize);
                g.for_each_inv_sq(i, |j, wj| {
                    if !h[j].is_nan() {
                        w += wj;
                        deg += 1;
                    }
                });
                if deg == 0 {
                    (0.0, 0.0)
                } else {
                    let scale = 4.0 / deg as f64;
                    (scale, scale * w)
                }
            })
            .unzip();
        let mut moving: Vec<f64> = stiffness.iter().copied().filter(|&a| a > 0.0).collect();
        let typical = if moving.is_empty() {
            0.0
        } else {
            let k = ((moving.len() - 1) as f64 * STIFF_QUANTILE) as usize;
            *moving.select_nth_unstable_by(k, f64::total_cmp).1
        };
        Diffusion {
            scale,
            stiffness,
            typical,
            other: Vec::new(),
        }
    }

    /// [`diffuse`] by `dt` (`diffusivity` and `dt` > 0), on an `h` NaN where `new`'s was.
    fn step<G: Neighbours>(&mut self, g: &G, h: &mut [f64], diffusivity: f64, dt: f64) {
        let substeps = (diffusivity * dt * self.typical / MAX_WEIGHT)
            .ceil()
            .max(1.0) as usize;
        let rate = diffusivity * (dt / substeps as f64);
        let (scale, stiffness) = (&self.scale, &self.stiffness);
        // One substep from `h` into `out` (every entry written).
        let substep = |h: &[f64], out: &mut [f64]| {
            out.par_chunks_mut(DIFFUSION_CHUNK)
                .enumerate()
                .for_each(|(c, out)| {
                    let first = c * DIFFUSION_CHUNK;
                    for (i, out) in (first..).zip(out.iter_mut()) {
                        let (hi, s) = (h[i], scale[i]);
                        if s == 0.0 {
                            *out = hi;
                            continue;
                        }
                        let mut sum = 0.0;
                        g.for_each_inv_sq(i, |j, w| {
                            let hj = h[j];
                            if !hj.is_nan() {
                                sum += (hj - hi) * w;
                            }
                        });
                        let a = rate * stiffness[i];
                        *out = if a <= MAX_WEIGHT {
                            hi + rate * s * sum
                        } else {
                            // Its own value implicit: `(h_i + r s sum_j w_ij h_j) / (1 + r a_i)`,
                            // a convex combination however stiff the node.
                            hi + rate * s * sum / (1.0 + a)
                        };
                    }
                });
        };
        // Substeps back and forth between `h` and the other buffer, copied back once at the
        // end when the last one landed there.
        let other = &mut self.other;
        other.resize(h.len(), 0.0);
        for k in 0..substeps {
            if k % 2 == 0 {
                substep(h, other);
            } else {
                substep(other, h);
            }
        }
        if substeps % 2 == 1 {
            h.copy_from_slice(other);
        }
    }
}

/// The most any node's weights may sum to in one explicit substep of the diffusion (stiffer
/// nodes take the substep with their own value implicit): 1, so each node's new value is a
/// convex combination of its own and its neighbours' (the scheme is monotone: no new extremes,
/// nothing grows). The roughest modes are also damped on the graphs orogen builds, which are
/// not bipartite: the largest eigenvalue of the Laplacian is 4/3 of the largest weight sum on
/// the 8-neighbour raster (a substep scales the checkerboard by -1/3) and about 1.66 of it on
/// the relaxed Voronoi mesh (-0.66 at a node at the limit), not 2 (which would keep a
/// checkerboard on a 4-neighbour lattice).
const MAX_WEIGHT: f64 = 1.0;

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
    let power = AreaPower::new(cell_area, law.m).with_memo(h.len());
    let mut along = Along::default();
    let mut diffusion = (law.diffusion > 0.0 && dt > 0.0).then(|| Diffusion::new(g, h, base));
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
        route_trees(g, h, base, &mut flow);
        stats.n_flooded += flow.n_flooded;
        // The implicit step (as `spl_step` does it) on each node.
        stats.n_corr += along_runs(
            g,
            h,
            &flow,
            cell_area,
            &power,
            &mut along,
            |i, a, d, hr, hp| {
                let factor = erosion_factor(law, dt, &power, i, a, d);
                usize::from(drop_to(hp, hr, factor, law.n))
            },
        );
        if let Some(diffusion) = &mut diffusion {
            diffusion.step(g, h, law.diffusion, dt);
        }
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
    let (mut flow, mut along) = (Flow::default(), Along::default());
    let mut previous: Vec<u32> = Vec::new();
    let inv_n = 1.0 / law.n;
    let power = AreaPower::new(cell_area, law.m).with_memo(h.len());
    for _ in 0..max_iterations {
        route_trees(g, h, base, &mut flow);
        stats.n_flooded += flow.n_flooded;
        stats.steps += 1;
        if flow.receiver == previous {
            break;
        }
        along_runs(
            g,
            h,
            &flow,
            cell_area,
            &power,
            &mut along,
            |i, a, d, hr, hp| {
                let u = uplift[i].max(0.0);
                *hp = hr + d * (u / (law.k * power.of(i, a))).powf(inv_n);
                0
            },
        );
        previous.clone_from(&flow.receiver);
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `evolve` (trees solved in parallel runs, the area table) against the plain sequence of
    /// the public kernels, `route`, `spl_step` and `diffuse`, on rasters with pits, flats and
    /// NoData, through the raster paths and the generic ones.
    #[test]
    fn evolve_is_route_then_spl_step_then_diffuse() {
        use super::super::route::{Grid, Plain, route};
        let g = Grid {
            rows: 150,
            cols: 190,
            dx: 30.0,
            dy: 40.0,
        };
        let n = g.rows * g.cols;
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let z0: Vec<f64> = (0..n)
            .map(|i| {
                let (r, c) = ((i / g.cols) as f64, (i % g.cols) as f64);
                match next() {
                    v if v < 0.002 => f64::NAN,
                    v => 50.0 * (r / 40.0).sin() * (c / 30.0).cos() + 80.0 * v,
                }
            })
            .collect();
        let base = g.border();
        let uplift: Vec<f64> = (0..n).map(|_| 1e-3 * next()).collect();
        let mut flooded = 0;
        for (n_exp, diffusion) in [(1.0, 0.0), (1.5, 0.05), (1.0, 5.0)] {
            let law = Law {
                k: 3e-5,
                m: 0.45,
                n: n_exp,
                diffusion,
            };
            for cell_area in [vec![1200.0; n], (0..n).map(|_| 1e3 + next()).collect()] {
                let (dt, steps) = (500.0, 6);
                let mut want = z0.clone();
                let mut want_stats = Stats::default();
                for _ in 0..steps {
                    for i in 0..n {
                        if !base[i] {
                            want[i] += uplift[i] * dt;
                        }
                    }
                    let flow = route(&g, &want, &base, &cell_area);
                    want_stats.n_flooded += flow.n_flooded;
                    want_stats.n_corr += spl_step(&mut want, &flow, &law, dt);
                    diffuse(&g, &mut want, &base, diffusion, dt);
                    want_stats.steps += 1;
                }
                flooded += want_stats.n_flooded;
                let bits = |h: &[f64]| h.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                for plain in [false, true] {
                    let mut h = z0.clone();
                    let stats = if plain {
                        evolve(
                            &Plain(g),
                            &mut h,
                            &base,
                            &cell_area,
                            &uplift,
                            &law,
                            dt,
                            steps,
                        )
                    } else {
                        evolve(&g, &mut h, &base, &cell_area, &uplift, &law, dt, steps)
                    };
                    assert_eq!(stats, want_stats, "n {n_exp} plain {plain}");
                    assert!(bits(&h) == bits(&want), "n {n_exp} plain {plain}");
                }
            }
        }
        assert!(flooded > 0, "no step met a depression");
    }

    #[test]
    fn the_area_table_gives_powf() {
        for (cell, m) in [
            (1e4, 0.4),
            (900.0, 0.5),
            (0.25, 0.45),
            (0.1, 0.4),
            (7.3, 1.0),
        ] {
            let power = AreaPower::new(&[cell; 5], m);
            assert_eq!(power.table.len(), AreaPower::TABLE);
            let mut sum = 0.0;
            for k in 1..6000 {
                sum += cell;
                for a in [sum, k as f64 * cell, sum * (1.0 + f64::EPSILON)] {
                    assert_eq!(
                        power.of(0, a).to_bits(),
                        a.powf(m).to_bits(),
                        "{cell} {m} {a}"
                    );
                }
            }
        }
        assert!(AreaPower::new(&[1.0, 2.0], 0.4).table.is_empty());
        // The memo: each node's power is its area's `powf`, read back while its area stays,
        // taken again when it changes by one bit, whatever the other nodes do.
        for (cells, m) in [(vec![1.0, 2.0, 3.5], 0.4), (vec![900.0; 3], 0.5)] {
            let power = AreaPower::new(&cells, m).with_memo(3);
            for (i, a) in [
                (0, 1.5),
                (1, 1.5),
                (0, 1.5),
                (0, 1.5f64.next_up()),
                (2, 1e9),
                (0, 1.5),
                (2, 1e9),
                (2, 0.0),
                (1, 1.5),
            ] {
                assert_eq!(power.of(i, a).to_bits(), a.powf(m).to_bits(), "{i} {a}");
            }
        }
    }

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

    /// The diffusion against the exact solution: on a square raster whose border is held at 0,
    /// `sin(pi x / L) sin(pi y / L)` decays as `exp(-2 D (pi / L)^2 t)` (within the stencil's
    /// error); in several steps, or one long step of many substeps, the same decay.
    #[test]
    fn diffusion_decays_a_smooth_mode_at_the_exact_rate() {
        use super::super::route::Grid;
        let (cells, dx) = (64usize, 10.0);
        let g = Grid {
            rows: cells + 1,
            cols: cells + 1,
            dx,
            dy: dx,
        };
        let base = g.border();
        let length = cells as f64 * dx;
        let k = std::f64::consts::PI / length;
        let mode = |i: usize| {
            let (r, c) = ((i / g.cols) as f64 * dx, (i % g.cols) as f64 * dx);
            (k * r).sin() * (k * c).sin()
        };
        let h0: Vec<f64> = (0..g.len()).map(|i| 100.0 * mode(i)).collect();
        let diffusivity = 1.0;
        // Half-life of the mode: 2 D k^2 t = ln 2.
        let t = std::f64::consts::LN_2 / (2.0 * diffusivity * k * k);
        for steps in [1, 10] {
            let mut h = h0.clone();
            for _ in 0..steps {
                diffuse(&g, &mut h, &base, diffusivity, t / steps as f64);
            }
            // The amplitude is the projection on the mode.
            let num: f64 = (0..g.len()).map(|i| h[i] * mode(i)).sum();
            let den: f64 = (0..g.len()).map(|i| h0[i] * mode(i)).sum();
            let decay = num / den;
            assert!((decay - 0.5).abs() < 0.01, "{steps} steps: decay {decay}");
        }
    }

    /// On an irregular mesh, with a diffusivity that takes many substeps, the diffusion is
    /// monotone (no node leaves the range of the values before it; the roughest, node-to-node
    /// noise is damped, not amplified), keeps base levels, and smooths: the mean squared
    /// difference across edges falls.
    #[test]
    fn diffusion_on_a_mesh_is_monotone_and_smooths() {
        use super::super::route::Mesh;
        let mesh = orogen_world::DualMesh::jittered_grid(40, 30, 1.0, 0.75, 0.4, 5);
        let n = mesh.n_regions();
        let xy = mesh.region_xy.as_slice().unwrap();
        let (offsets, targets) = (
            mesh.region_neighbors.offsets.as_slice().unwrap(),
            mesh.region_neighbors.values.as_slice().unwrap(),
        );
        let g = Mesh::new(offsets, targets, xy, 1000.0).unwrap();
        let base: Vec<bool> = (0..n).map(|i| mesh.region_is_boundary[i] != 0).collect();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let h0: Vec<f64> = (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 11) as f64 / (1u64 << 53) as f64 * 100.0
            })
            .collect();
        let roughness = |h: &[f64]| {
            let mut sum = 0.0;
            for i in 0..n {
                g.for_each(i, |j, _| sum += (h[i] - h[j]).powi(2));
            }
            sum
        };
        let (lo, hi) = h0
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                (a.min(v), b.max(v))
            });
        // One step of D dt far above the stiffest node's limit, and a short one.
        for diffusivity_dt in [2e5, 50.0] {
            let mut h = h0.clone();
            diffuse(&g, &mut h, &base, 1.0, diffusivity_dt);
            assert!(h.iter().all(|&v| (lo..=hi).contains(&v)));
            assert!((0..n).filter(|&i| base[i]).all(|i| h[i] == h0[i]));
            let (before, after) = (roughness(&h0), roughness(&h));
            assert!(
                after < 0.75 * before,
                "D dt {diffusivity_dt}: {before} -> {after}"
            );
        }
        // The stiffest node is beyond the substeps' quantile: in one substep of weights 0.99 at
        // the quantile its own weights sum above 1, and a spike there (1 among 0s) stays in
        // 0 ..= 1 only because it takes the substep implicitly (to `1 / (1 + a)`).
        let d = Diffusion::new(&g, &h0, &base);
        let (k, &max) = d
            .stiffness
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .unwrap();
        assert!(0.99 * max / d.typical > 1.0, "{max} against {}", d.typical);
        let mut h = vec![0.0; n];
        h[k] = 1.0;
        diffuse(&g, &mut h, &base, 1.0, 0.99 / d.typical);
        assert!(h.iter().all(|v| (0.0..=1.0).contains(v)), "{}", h[k]);
        assert!(h[k] < 0.6, "{}", h[k]);
    }

    /// At the substeps' limit (the stiffest node's weights summing to just under 1), one
    /// substep scales the 8-neighbour raster's roughest mode, the checkerboard, by -1/3: it is
    /// damped, not kept.
    #[test]
    fn the_checkerboard_is_damped_at_the_substeps_limit() {
        use super::super::route::Grid;
        let g = Grid {
            rows: 33,
            cols: 33,
            dx: 5.0,
            dy: 5.0,
        };
        let base = g.border();
        let sign = |i: usize| {
            if (i / g.cols + i % g.cols).is_multiple_of(2) {
                1.0
            } else {
                -1.0
            }
        };
        let h0: Vec<f64> = (0..g.len())
            .map(|i| if base[i] { 0.0 } else { sign(i) })
            .collect();
        let stiffest = Diffusion::new(&g, &h0, &base).typical;
        let mut h = h0.clone();
        diffuse(&g, &mut h, &base, 1.0, 0.999 / stiffest);
        // Nodes two away from the border, whose neighbours are all inside.
        for i in (0..g.len()).filter(|&i| {
            let (r, c) = (i / g.cols, i % g.cols);
            (2..g.rows - 2).contains(&r) && (2..g.cols - 2).contains(&c)
        }) {
            let factor = h[i] / h0[i];
            assert!((factor + 0.333).abs() < 0.01, "node {i}: {factor}");
        }
    }
}
