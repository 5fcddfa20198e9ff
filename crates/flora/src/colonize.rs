//! Space colonisation (Runions, Lane and Prusinkiewicz 2007) in any dimension.
//!
//! A skeleton grows from a root toward attraction points. Each step, every live attractor pulls
//! the node nearest to it, when that node is within the influence radius; every pulled node grows
//! one new node, one segment length along the mean of its pulls (plus a small seeded jitter, so a
//! node pulled equally from two sides does not stay in place). An attractor dies once a node comes
//! within the kill distance. When no attractor is within influence of any node (a root below the
//! crown), the node nearest to any attractor grows one segment toward it: the trunk phase.
//!
//! Each attractor keeps its nearest node within influence, updated as nodes are added, through a
//! uniform grid over the attractors: a step costs the new nodes times the attractors near them,
//! not nodes x attractors. Branch radii follow the pipe model, from the tips down.
//!
//! Termination: the loop stops when every attractor is dead, when several steps in a row add no
//! node, or at the iteration cap, whichever comes first ([`Stop`]).

use orogen_sampling::grid::{BoxGrid, HashGrid};
use orogen_world::params::{ParamError, Spec, check_specs};
use rand::RngExt;
use serde::{Deserialize, Serialize};

use crate::Error;

/// Steps in a row without a new node after which growth stops ([`Stop::Stalled`]).
const MAX_STALLED_STEPS: usize = 16;

/// A new node closer than this fraction of the segment length to an existing node is not added,
/// so no two nodes share a position.
const MIN_SEPARATION: f64 = 1e-3;

/// An attractor that pulls the same node this many steps in a row is abandoned: its pull is
/// cancelled by others (two attractors on opposite sides of a node, just beyond the kill
/// distance), and the node would otherwise grow a fan of children in place.
const MAX_PULLS_OF_ONE_NODE: u16 = 4;

/// Grids hold at most about this many cells per attractor.
const CELLS_PER_ATTRACTOR: f64 = 2.0;

/// The growth parameters of space colonisation. Lengths are in the units of the attractors
/// (for orogen's tree models: tree heights, the root at the origin and the crown top at 1).
///
/// Each field's default, range and unit are stated once, in [`Self::SPECS`] (`orogen params`
/// lists them all).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GrowthParams {
    /// An attractor pulls its nearest node only within this distance.
    pub influence_radius: f64,
    /// An attractor dies once a node is this close.
    pub kill_distance: f64,
    /// The distance from every node to its parent.
    pub segment_length: f64,
    /// The most growth steps.
    pub max_iterations: usize,
    /// Jitter added to each growth direction (a random vector with components in [-jitter, jitter]
    /// added to the unit direction before renormalising).
    pub jitter: f64,
    /// The pipe model's exponent e: a parent's r^e is the sum of its children's.
    pub pipe_exponent: f64,
    /// The radius of every tip.
    pub tip_radius: f64,
}

impl Default for GrowthParams {
    fn default() -> Self {
        GrowthParams {
            influence_radius: 0.15,
            kill_distance: 0.04,
            segment_length: 0.02,
            max_iterations: 2000,
            jitter: 0.1,
            pipe_exponent: 2.5,
            tip_radius: 0.002,
        }
    }
}

impl GrowthParams {
    /// Every parameter, described once (lengths in the attractors' units: tree heights for
    /// orogen's tree models, where the influence radius is at most 4 and the tip radius 0.1).
    pub const SPECS: &[Spec<GrowthParams>] = &[
        Spec::positive(
            "influence_radius",
            "An attractor pulls its nearest node only within this distance",
            |p: &GrowthParams| p.influence_radius,
        )
        .unit("tree heights"),
        Spec::other(
            "kill_distance",
            "An attractor dies once a node is this close",
            "segment_length ..= influence_radius, influence excluded",
        )
        .unit("tree heights"),
        Spec::positive(
            "segment_length",
            "The distance from every node to its parent",
            |p: &GrowthParams| p.segment_length,
        )
        .unit("tree heights"),
        Spec::int(
            "max_iterations",
            "The most growth steps",
            1,
            1_000_000,
            |p: &GrowthParams| p.max_iterations as i128,
        ),
        Spec::float(
            "jitter",
            "Jitter added to each growth direction",
            0.0,
            1.0,
            |p: &GrowthParams| p.jitter,
        ),
        Spec::float(
            "pipe_exponent",
            "The pipe model's exponent: a parent's r^e is the sum of its children's",
            1.0,
            4.0,
            |p: &GrowthParams| p.pipe_exponent,
        ),
        Spec::positive(
            "tip_radius",
            "The radius of every tip",
            |p: &GrowthParams| p.tip_radius,
        )
        .unit("tree heights"),
    ];

    /// Checks every field.
    pub fn validate(&self) -> Result<(), ParamError> {
        check_specs(self, Self::SPECS)?;
        if !(self.kill_distance >= self.segment_length
            && self.kill_distance < self.influence_radius)
        {
            return Err(ParamError::new(
                "kill_distance",
                self.kill_distance,
                format!(
                    "segment_length ({}) ..= influence_radius ({}), influence excluded",
                    self.segment_length, self.influence_radius
                ),
            ));
        }
        Ok(())
    }

    /// [`GrowthParams::validate`], then the bounds of tree models, which are grown in tree
    /// heights (root at the origin, crown top at 1): an influence radius of at most 4 and a tip
    /// radius of at most 0.1.
    pub fn validate_for_trees(&self) -> Result<(), ParamError> {
        self.validate()?;
        for (name, value, most) in [
            ("influence_radius", self.influence_radius, 4.0),
            ("tip_radius", self.tip_radius, 0.1),
        ] {
            if value > most {
                return Err(ParamError::new(
                    name,
                    value,
                    format!("a finite number > 0 and <= {most} (tree models are in tree heights)"),
                ));
            }
        }
        Ok(())
    }
}

/// Why growth stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Every attractor was consumed.
    Exhausted,
    /// Several steps in a row added no node (the remaining attractors hold nodes in place).
    Stalled,
    /// The iteration cap was reached.
    IterationCap,
}

/// A grown skeleton: nodes in growth order, each after its parent.
#[derive(Clone, Debug, PartialEq)]
pub struct Skeleton<const D: usize> {
    /// Node positions; node 0 is the root.
    pub nodes: Vec<[f64; D]>,
    /// Each node's parent (`None` for the root); a parent's index is below its child's.
    pub parent: Vec<Option<u32>>,
    /// Branch radius at each node (pipe model).
    pub radius: Vec<f64>,
    /// Growth steps taken.
    pub iterations: usize,
    /// Attractors killed by a node within the kill distance.
    pub consumed: usize,
    /// Attractors given up: held in balance, they pulled the same node too many steps in a row.
    pub abandoned: usize,
    /// Why growth stopped.
    pub stop: Stop,
}

impl<const D: usize> Skeleton<D> {
    /// The number of children of every node.
    pub fn child_counts(&self) -> Vec<u32> {
        let mut counts = vec![0u32; self.nodes.len()];
        for p in self.parent.iter().flatten() {
            counts[*p as usize] += 1;
        }
        counts
    }
}

/// Grows a 2-D skeleton: see [`grow`].
pub fn grow_2d(
    root: [f64; 2],
    attractors: &[[f64; 2]],
    params: &GrowthParams,
    seed: u64,
) -> Result<Skeleton<2>, Error> {
    grow(root, attractors, params, seed)
}

/// Grows a 3-D skeleton: see [`grow`].
pub fn grow_3d(
    root: [f64; 3],
    attractors: &[[f64; 3]],
    params: &GrowthParams,
    seed: u64,
) -> Result<Skeleton<3>, Error> {
    grow(root, attractors, params, seed)
}

fn sub<const D: usize>(a: &[f64; D], b: &[f64; D]) -> [f64; D] {
    std::array::from_fn(|k| a[k] - b[k])
}

fn norm<const D: usize>(a: &[f64; D]) -> f64 {
    a.iter().map(|v| v * v).sum::<f64>().sqrt()
}

fn dist2<const D: usize>(a: &[f64; D], b: &[f64; D]) -> f64 {
    (0..D).map(|k| (a[k] - b[k]) * (a[k] - b[k])).sum()
}

/// The attractors on the one spatial grid (`orogen_sampling::grid::BoxGrid`), over their
/// bounding box.
fn attractor_grid<const D: usize>(points: &[[f64; D]], min_cell: f64) -> BoxGrid<D> {
    let mut lo = [f64::INFINITY; D];
    let mut hi = [f64::NEG_INFINITY; D];
    for p in points {
        for k in 0..D {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    if points.is_empty() {
        lo = [0.0; D];
        hi = [0.0; D];
    }
    // Cells no smaller than min_cell, and no more than about CELLS_PER_ATTRACTOR per point.
    let volume: f64 = (0..D).map(|k| (hi[k] - lo[k]).max(min_cell)).product();
    let budget = (points.len() as f64 * CELLS_PER_ATTRACTOR).max(1.0);
    let cell = min_cell.max((volume / budget).powf(1.0 / D as f64));
    let dims: [usize; D] =
        std::array::from_fn(|k| (((hi[k] - lo[k]) / cell).floor() as usize + 1).max(1));
    BoxGrid::from_points(lo, cell, dims, points)
}

/// The growth state: nodes, attractors and their nearest nodes.
struct Growth<'a, const D: usize> {
    params: &'a GrowthParams,
    attractors: &'a [[f64; D]],
    grid: BoxGrid<D>,
    alive: Vec<bool>,
    n_alive: usize,
    /// Each attractor's nearest node within influence and the squared distance.
    closest: Vec<Option<(u32, f64)>>,
    /// Steps in a row each attractor has pulled its current nearest node.
    pulls: Vec<u16>,
    abandoned: usize,
    nodes: Vec<[f64; D]>,
    parent: Vec<Option<u32>>,
    /// Nodes on the spatial hash grid (cells of side segment_length), to refuse a node on top
    /// of another.
    node_cells: HashGrid<D>,
}

impl<const D: usize> Growth<'_, D> {
    /// True when a node lies within the minimum separation of `p`.
    fn occupied(&self, p: &[f64; D]) -> bool {
        let eps = MIN_SEPARATION * self.params.segment_length;
        self.node_cells
            .any_in_box(p.map(|v| v - eps), p.map(|v| v + eps), |n| {
                dist2(&self.nodes[n as usize], p) < eps * eps
            })
    }

    /// Adds a node and updates the attractors near it: nearest node, death.
    fn add_node(&mut self, p: [f64; D], parent: Option<u32>) -> u32 {
        let idx = self.nodes.len() as u32;
        self.nodes.push(p);
        self.parent.push(parent);
        self.node_cells.insert(&p, idx);
        let influence2 = self.params.influence_radius * self.params.influence_radius;
        let kill2 = self.params.kill_distance * self.params.kill_distance;
        let attractors = self.attractors;
        let alive = &mut self.alive;
        let closest = &mut self.closest;
        let pulls = &mut self.pulls;
        let n_alive = &mut self.n_alive;
        // Dead attractors (reached, or abandoned) leave the grid as the walk meets them: each
        // live one's update depends on itself alone, so fewer visited change nothing else.
        let reach = self.params.influence_radius;
        self.grid
            .retain_in_box(p.map(|v| v - reach), p.map(|v| v + reach), |a| {
                let a = a as usize;
                if !alive[a] {
                    return false;
                }
                let d2 = dist2(&attractors[a], &p);
                if d2 < kill2 {
                    alive[a] = false;
                    *n_alive -= 1;
                    return false;
                }
                if d2 < influence2 && closest[a].is_none_or(|(_, best)| d2 < best) {
                    closest[a] = Some((idx, d2));
                    pulls[a] = 0;
                }
                true
            });
        idx
    }

    /// The nearest (node, attractor) pair among `nodes` and the live attractors, ties broken by
    /// the lower node then the lower attractor index.
    fn nearest_pair(&self, nodes: impl Iterator<Item = u32>) -> Option<(u32, usize)> {
        let mut best: Option<(f64, u32, usize)> = None;
        for n in nodes {
            let p = &self.nodes[n as usize];
            for (a, q) in self.attractors.iter().enumerate() {
                if !self.alive[a] {
                    continue;
                }
                let d2 = dist2(p, q);
                if best.is_none_or(|(b, _, _)| d2 < b) {
                    best = Some((d2, n, a));
                }
            }
        }
        best.map(|(_, n, a)| (n, a))
    }
}

/// Grows a skeleton from `root` toward `attractors` (see the module docs).
///
/// The same inputs and `seed` give the same skeleton. Errors on invalid parameters or
/// non-finite coordinates.
pub fn grow<const D: usize>(
    root: [f64; D],
    attractors: &[[f64; D]],
    params: &GrowthParams,
    seed: u64,
) -> Result<Skeleton<D>, Error> {
    params.validate()?;
    if root
        .iter()
        .chain(attractors.iter().flatten())
        .any(|v| !v.is_finite())
    {
        return Err(Error::NonFinite("space colonisation point"));
    }
    let mut rng = orogen_world::seed::rng_from_seed(seed);
    // Cells of the influence radius: a new node's walk (its influence box) meets 2-3 cells an
    // axis. Half that made it 4-5 (up to 125 in 3-D, most of them empty) and took 10% longer.
    let cell = params.influence_radius.max(f64::MIN_POSITIVE);
    let mut g = Growth {
        params,
        attractors,
        grid: attractor_grid(attractors, cell),
        alive: vec![true; attractors.len()],
        n_alive: attractors.len(),
        closest: vec![None; attractors.len()],
        pulls: vec![0; attractors.len()],
        abandoned: 0,
        nodes: Vec::new(),
        parent: Vec::new(),
        node_cells: HashGrid::new(params.segment_length),
    };
    g.add_node(root, None);
    let s = params.segment_length;
    let mut dir: Vec<[f64; D]> = vec![[0.0; D]];
    let mut is_pulled: Vec<bool> = vec![false];
    let mut pulled: Vec<u32> = Vec::new();
    let mut trunk_tip: Option<u32> = None;
    let mut stalled = 0;
    let mut iterations = 0;
    let stop = loop {
        if g.n_alive == 0 {
            break Stop::Exhausted;
        }
        if iterations == params.max_iterations {
            break Stop::IterationCap;
        }
        iterations += 1;
        dir.resize(g.nodes.len(), [0.0; D]);
        is_pulled.resize(g.nodes.len(), false);
        pulled.clear();
        for (a, target) in attractors.iter().enumerate() {
            if !g.alive[a] {
                continue;
            }
            if let Some((n, d2)) = g.closest[a] {
                g.pulls[a] += 1;
                if g.pulls[a] > MAX_PULLS_OF_ONE_NODE {
                    g.alive[a] = false;
                    g.n_alive -= 1;
                    g.abandoned += 1;
                    continue;
                }
                let n = n as usize;
                let inv = 1.0 / d2.sqrt();
                let v = sub(target, &g.nodes[n]);
                if !is_pulled[n] {
                    is_pulled[n] = true;
                    pulled.push(n as u32);
                }
                for k in 0..D {
                    dir[n][k] += v[k] * inv;
                }
            }
        }
        let before = g.nodes.len();
        if pulled.is_empty() {
            // Trunk phase. After a trunk step the nearest pair involves the new node (it is one
            // segment closer than the previous nearest pair, and no attractor was within
            // influence), so only the first step of a run searches every node.
            let pair = match trunk_tip {
                Some(tip) => g.nearest_pair(std::iter::once(tip)),
                None => g.nearest_pair(0..g.nodes.len() as u32),
            };
            let Some((n, a)) = pair else {
                break Stop::Exhausted;
            };
            let from = g.nodes[n as usize];
            let v = sub(&attractors[a], &from);
            let len = norm(&v);
            let p: [f64; D] = std::array::from_fn(|k| from[k] + v[k] / len * s);
            if !g.occupied(&p) {
                trunk_tip = Some(g.add_node(p, Some(n)));
            }
        } else {
            trunk_tip = None;
            pulled.sort_unstable();
            for &n in &pulled {
                let n = n as usize;
                is_pulled[n] = false;
                let sum = std::mem::replace(&mut dir[n], [0.0; D]);
                let len = norm(&sum);
                let mut v: [f64; D] = std::array::from_fn(|k| {
                    let unit = if len > 0.0 { sum[k] / len } else { 0.0 };
                    unit + params.jitter * (2.0 * rng.random::<f64>() - 1.0)
                });
                let vlen = norm(&v);
                if vlen.is_nan() || vlen <= 1e-12 {
                    continue;
                }
                for c in &mut v {
                    *c /= vlen;
                }
                let from = g.nodes[n];
                let p: [f64; D] = std::array::from_fn(|k| from[k] + v[k] * s);
                if !g.occupied(&p) {
                    g.add_node(p, Some(n as u32));
                }
            }
        }
        if g.nodes.len() == before {
            stalled += 1;
            if stalled >= MAX_STALLED_STEPS {
                break Stop::Stalled;
            }
        } else {
            stalled = 0;
        }
    };
    let radius = pipe_radii(&g.parent, params.tip_radius, params.pipe_exponent);
    Ok(Skeleton {
        consumed: attractors.len() - g.n_alive - g.abandoned,
        abandoned: g.abandoned,
        nodes: g.nodes,
        parent: g.parent,
        radius,
        iterations,
        stop,
    })
}

/// Pipe-model radii: tips get `tip_radius`; every other node r with r^e equal to the sum of its
/// children's r^e. Parents must precede their children (as in a grown [`Skeleton`]).
pub fn pipe_radii(parent: &[Option<u32>], tip_radius: f64, exponent: f64) -> Vec<f64> {
    let n = parent.len();
    let mut sum = vec![0.0f64; n];
    let mut has_child = vec![false; n];
    let mut radius = vec![0.0f64; n];
    for i in (0..n).rev() {
        radius[i] = if has_child[i] {
            sum[i].powf(1.0 / exponent)
        } else {
            tip_radius
        };
        if let Some(p) = parent[i] {
            let p = p as usize;
            sum[p] += radius[i].powf(exponent);
            has_child[p] = true;
        }
    }
    radius
}

#[cfg(test)]
mod tests {
    use super::*;
    use orogen_world::seed::rng_from_seed;

    /// Attractors uniform in a ball of radius `r` centred at `c` (rejection sampling).
    fn ball<const D: usize>(c: [f64; D], r: f64, n: usize, seed: u64) -> Vec<[f64; D]> {
        let mut rng = rng_from_seed(seed);
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let v: [f64; D] = std::array::from_fn(|_| 2.0 * rng.random::<f64>() - 1.0);
            if norm(&v) <= 1.0 {
                out.push(std::array::from_fn(|k| c[k] + r * v[k]));
            }
        }
        out
    }

    fn check_skeleton<const D: usize>(sk: &Skeleton<D>, params: &GrowthParams) {
        assert_eq!(sk.nodes.len(), sk.parent.len());
        assert_eq!(sk.nodes.len(), sk.radius.len());
        assert_eq!(sk.parent[0], None);
        // Every node one segment length from its parent.
        for (i, p) in sk.parent.iter().enumerate().skip(1) {
            let p = p.expect("only the root lacks a parent") as usize;
            assert!(p < i);
            let d = dist2(&sk.nodes[i], &sk.nodes[p]).sqrt();
            let rel = (d - params.segment_length).abs() / params.segment_length;
            assert!(rel < 1e-9, "node {i}: {d} from its parent");
        }
        // No two nodes at the same position (sort by x then check neighbours within eps).
        let mut order: Vec<usize> = (0..sk.nodes.len()).collect();
        order.sort_by(|&a, &b| sk.nodes[a][0].total_cmp(&sk.nodes[b][0]));
        let eps = 0.5 * MIN_SEPARATION * params.segment_length;
        for (k, &a) in order.iter().enumerate() {
            for &b in &order[k + 1..] {
                if sk.nodes[b][0] - sk.nodes[a][0] > eps {
                    break;
                }
                assert!(
                    dist2(&sk.nodes[a], &sk.nodes[b]).sqrt() > eps,
                    "nodes {a} and {b} coincide"
                );
            }
        }
        // Pipe model at every fork; tips have the tip radius.
        let counts = sk.child_counts();
        let e = params.pipe_exponent;
        let mut child_sum = vec![0.0; sk.nodes.len()];
        for (i, p) in sk.parent.iter().enumerate() {
            if let Some(p) = p {
                child_sum[*p as usize] += sk.radius[i].powf(e);
            }
        }
        let mut forks = 0;
        for i in 0..sk.nodes.len() {
            if counts[i] == 0 {
                assert_eq!(sk.radius[i], params.tip_radius);
            } else {
                forks += usize::from(counts[i] > 1);
                let own = sk.radius[i].powf(e);
                assert!(
                    (own - child_sum[i]).abs() <= 1e-9 * child_sum[i],
                    "node {i}: r^e {own} vs children {}",
                    child_sum[i]
                );
                if counts[i] > 1 {
                    assert!(sk.radius[i] > params.tip_radius);
                }
            }
        }
        assert!(forks > 0, "a crown skeleton branches");
    }

    #[test]
    fn three_d_crown_is_colonised_from_a_far_root() {
        let params = GrowthParams::default();
        let attractors = ball([0.0, 0.0, 0.7], 0.3, 2000, 1);
        // The root is 0.4 below the crown's bottom: far outside the influence radius.
        let sk = grow_3d([0.0; 3], &attractors, &params, 9).unwrap();
        assert!(sk.iterations < params.max_iterations);
        assert_ne!(sk.stop, Stop::IterationCap);
        assert!(
            sk.consumed as f64 >= 0.9 * attractors.len() as f64,
            "{} of {} consumed",
            sk.consumed,
            attractors.len()
        );
        // The trunk reached the crown: some node is inside it.
        assert!(sk.nodes.iter().any(|p| dist2(p, &[0.0, 0.0, 0.7]) < 0.09));
        check_skeleton(&sk, &params);
    }

    #[test]
    fn two_d_crown_is_colonised_and_checks_hold() {
        let params = GrowthParams::default();
        let attractors = ball([0.0, 0.7], 0.3, 500, 2);
        let sk = grow_2d([0.0, 0.0], &attractors, &params, 3).unwrap();
        assert_ne!(sk.stop, Stop::IterationCap);
        assert!(sk.consumed as f64 >= 0.9 * attractors.len() as f64);
        check_skeleton(&sk, &params);
    }

    #[test]
    fn equal_pulls_do_not_hold_a_node_in_place() {
        // Two attractors symmetric about the root: their pulls cancel exactly.
        let params = GrowthParams {
            jitter: 0.05,
            ..GrowthParams::default()
        };
        let attractors = [[-0.1, 0.0], [0.1, 0.0]];
        let sk = grow_2d([0.0, 0.0], &attractors, &params, 4).unwrap();
        assert_eq!(sk.stop, Stop::Exhausted);
        assert_eq!(sk.consumed, 2);
        check_skeleton_lengths(&sk, &params);
    }

    fn check_skeleton_lengths<const D: usize>(sk: &Skeleton<D>, params: &GrowthParams) {
        for (i, p) in sk.parent.iter().enumerate().skip(1) {
            let d = dist2(&sk.nodes[i], &sk.nodes[p.unwrap() as usize]).sqrt();
            assert!((d - params.segment_length).abs() <= 1e-9 * params.segment_length);
        }
    }

    #[test]
    fn iteration_cap_stops_growth() {
        let params = GrowthParams {
            max_iterations: 5,
            ..GrowthParams::default()
        };
        let attractors = ball([0.0, 0.0, 0.7], 0.3, 300, 5);
        let sk = grow_3d([0.0; 3], &attractors, &params, 1).unwrap();
        assert_eq!(sk.stop, Stop::IterationCap);
        assert_eq!(sk.iterations, 5);
        assert!(sk.nodes.len() <= 6);
    }

    #[test]
    fn same_seed_same_skeleton_and_seeds_differ() {
        let params = GrowthParams::default();
        let attractors = ball([0.0, 0.0, 0.7], 0.3, 400, 6);
        let a = grow_3d([0.0; 3], &attractors, &params, 11).unwrap();
        let b = grow_3d([0.0; 3], &attractors, &params, 11).unwrap();
        let c = grow_3d([0.0; 3], &attractors, &params, 12).unwrap();
        assert_eq!(a, b);
        assert_ne!(a.nodes, c.nodes);
    }

    #[test]
    fn bad_input_is_an_error() {
        let bad = GrowthParams {
            kill_distance: 0.01,
            ..GrowthParams::default()
        };
        assert!(matches!(
            grow_2d([0.0; 2], &[[0.0, 1.0]], &bad, 0),
            Err(Error::Param(_))
        ));
        assert!(matches!(
            grow_2d([0.0; 2], &[[f64::NAN, 1.0]], &GrowthParams::default(), 0),
            Err(Error::NonFinite(_))
        ));
        // No attractors: just the root.
        let sk = grow_2d([0.0; 2], &[], &GrowthParams::default(), 0).unwrap();
        assert_eq!(sk.nodes.len(), 1);
        assert_eq!(sk.stop, Stop::Exhausted);
    }

    #[test]
    fn pipe_radii_on_a_known_tree() {
        // 0 -> 1 -> {2, 3}; 3 -> 4.
        let parent = [None, Some(0), Some(1), Some(1), Some(3)];
        let r = pipe_radii(&parent, 1.0, 2.0);
        assert_eq!(r[2], 1.0);
        assert_eq!(r[4], 1.0);
        assert_eq!(r[3], 1.0);
        assert!((r[1] - 2f64.sqrt()).abs() < 1e-15);
        assert!((r[0] - 2f64.sqrt()).abs() < 1e-15);
    }
}
