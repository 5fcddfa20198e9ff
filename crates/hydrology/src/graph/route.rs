//! Priority-Flood routing (Barnes, Lehman & Mulla 2014, "improved" variant with a FIFO for
//! cells inside depressions), carving, and the distance to the outlets.

use super::{CsrGraph, Error};
use crate::erosion::Neighbours;
use crate::flood::{Flooded, flood};
use rayon::prelude::*;

/// The result of [`priority_flood`]: a spanning forest rooted at the outlets.
#[derive(Clone, Debug, PartialEq)]
pub struct Routing {
    /// Filled level per node: `>= elevation`, never rising downstream.
    pub filled: Vec<f32>,
    /// The next node downstream, or -1 for an outlet (a root of the forest).
    pub downstream: Vec<i32>,
    /// Every node in the order the flood finalised it: each node comes after its downstream
    /// node, so the reverse is an upstream-before-downstream order.
    pub order: Vec<u32>,
    /// Nodes that no outlet reaches (another graph component). They are roots too (downstream
    /// -1, filled = elevation) and come last in `order`. Zero on a connected graph.
    pub n_unreached: usize,
}

/// A CSR graph as the flood core walks it (edge lengths are not used).
struct Unweighted<'a>(CsrGraph<'a>);

impl Neighbours for Unweighted<'_> {
    fn len(&self) -> usize {
        self.0.n_nodes()
    }

    #[inline]
    fn for_each(&self, i: usize, mut f: impl FnMut(usize, f64)) {
        for &j in self.0.neighbors(i) {
            f(j as usize, 1.0);
        }
    }

    fn degree(&self, i: usize) -> usize {
        self.0.neighbors(i).len()
    }
}

pub(crate) fn check_len(what: &str, len: usize, expected: usize) -> Result<(), Error> {
    if len == expected {
        Ok(())
    } else {
        Err(Error::Input(format!(
            "{what} has {len} entries, expected {expected}"
        )))
    }
}

/// Floods `graph` from every outlet, lowest first (ties by node index): the crate's one graph
/// Priority-Flood (`crate::flood`), on the monotone radix queue the raster fill uses.
///
/// A node reached from a node of filled level `f` gets level `max(elevation, f)`; nodes raised
/// that way (inside a depression) are processed first-in first-out before the queue, so a flat
/// drains along a breadth-first tree towards the point it spilled from. Each node's downstream
/// is the node that reached it: every node of a connected graph has exactly one path to an
/// outlet.
///
/// Errors when the lengths disagree or an elevation is not finite.
pub fn priority_flood(
    graph: CsrGraph<'_>,
    elevation: &[f32],
    is_outlet: &[bool],
) -> Result<Routing, Error> {
    let n = graph.n_nodes();
    check_len("elevation", elevation.len(), n)?;
    check_len("is_outlet", is_outlet.len(), n)?;
    if let Some(i) = elevation.iter().position(|e| !e.is_finite()) {
        return Err(Error::Input(format!(
            "elevation[{i}] = {} is not finite",
            elevation[i]
        )));
    }
    // Outlets with no inland neighbour (open sea) never reach anything: they go straight into
    // the order, so the queue holds only the coast and the border.
    let mut order = Vec::with_capacity(n);
    let mut seeds = Vec::new();
    for (i, _) in is_outlet.iter().enumerate().filter(|(_, o)| **o) {
        if graph.neighbors(i).iter().any(|&nb| !is_outlet[nb as usize]) {
            seeds.push(i as u32);
        } else {
            order.push(i as u32);
        }
    }
    let Flooded {
        filled,
        parent,
        mut order,
    } = flood(
        &Unweighted(graph),
        elevation,
        is_outlet.to_vec(),
        seeds,
        order,
    );
    // In the parents' own buffer (`into_iter` collects in place: no fresh pages).
    let downstream: Vec<i32> = parent
        .into_iter()
        .map(|p| if p == u32::MAX { -1 } else { p as i32 })
        .collect();
    // Every node the flood reached is in `order` (the outlets too); the rest come last.
    let n_reached = order.len();
    let mut reached = vec![false; n];
    for &i in &order {
        reached[i as usize] = true;
    }
    order.extend((0..n as u32).filter(|&i| !reached[i as usize]));
    Ok(Routing {
        filled,
        downstream,
        order,
        n_unreached: n - n_reached,
    })
}

/// Checks that `downstream` and `order` form a forest listed downstream-first: every node
/// appears once, after its downstream node. Returns each node's position in `order`.
pub fn check_forest(downstream: &[i32], order: &[u32]) -> Result<Vec<u32>, Error> {
    let n = downstream.len();
    check_len("order", order.len(), n)?;
    let mut pos = vec![u32::MAX; n];
    for (p, &c) in order.iter().enumerate() {
        let c = c as usize;
        if c >= n || pos[c] != u32::MAX {
            return Err(Error::Input(format!(
                "order is not a permutation of the nodes (entry {p} = {c})"
            )));
        }
        pos[c] = p as u32;
    }
    for (c, &d) in downstream.iter().enumerate() {
        if d < -1 || d as i64 >= n as i64 {
            return Err(Error::Input(format!(
                "downstream[{c}] = {d} is out of range"
            )));
        }
        if d >= 0 && pos[d as usize] >= pos[c] {
            return Err(Error::Input(format!(
                "node {c} comes before its downstream node {d} in order (a cycle or a bad order)"
            )));
        }
    }
    Ok(pos)
}

/// The spill node of every node: follow the downstream path while the filled level stays
/// equal; the last node reached (whose downstream is lower, or which is an outlet) is where the
/// flat around the node spills. Nodes on no flat are their own spill node.
pub fn spill_nodes(routing: &Routing) -> Vec<u32> {
    let mut spill: Vec<u32> = (0..routing.filled.len() as u32).collect();
    for &c in &routing.order {
        let c = c as usize;
        let d = routing.downstream[c];
        if d >= 0 && routing.filled[d as usize] == routing.filled[c] {
            spill[c] = spill[d as usize];
        }
    }
    spill
}

/// Carving (as mapgen4 does), the alternative to filling: the levels along each path are
/// lowered instead of the depressions being raised.
///
/// Nodes with `keep[i]` (lake surfaces) keep their filled level. Every other node first gets
/// the minimum of its elevation and of everything upstream of it (so the path out of a
/// depression is cut down to the depression's floor); then a downstream-first pass raises any
/// node above its downstream node's level, so the result never rises downstream. The result
/// equals `routing.filled` at kept nodes and is at most `routing.filled` everywhere.
pub fn carve(routing: &Routing, elevation: &[f32], keep: &[bool]) -> Result<Vec<f32>, Error> {
    let n = routing.filled.len();
    check_len("elevation", elevation.len(), n)?;
    check_len("keep", keep.len(), n)?;
    let mut level: Vec<f32> = (0..n)
        .map(|i| {
            if keep[i] {
                routing.filled[i]
            } else {
                elevation[i]
            }
        })
        .collect();
    for &c in routing.order.iter().rev() {
        let c = c as usize;
        let d = routing.downstream[c];
        if d >= 0 && !keep[d as usize] && level[c] < level[d as usize] {
            level[d as usize] = level[c];
        }
    }
    for &c in &routing.order {
        let c = c as usize;
        let d = routing.downstream[c];
        if d >= 0 && level[c] < level[d as usize] {
            level[c] = level[d as usize];
        }
    }
    Ok(level)
}

/// The distance from every node to its outlet along its downstream path: hops, and length
/// (Euclidean between consecutive node positions `xy`, `n x 2` row-major, summed from the
/// outlet up in `f64`).
pub fn sea_distance(routing: &Routing, xy: &[f64]) -> Result<(Vec<u32>, Vec<f32>), Error> {
    let n = routing.filled.len();
    check_len("xy", xy.len(), 2 * n)?;
    // Each corner's step to its downstream corner, in parallel (`hypot` is the costly part);
    // then the sums in flood order, downstream first, in the steps' own buffer (a corner's
    // step is read once, before its length replaces it; no second array of fresh pages).
    let mut length: Vec<f64> = (0..n)
        .into_par_iter()
        .with_min_len(4096)
        .map(|c| {
            let d = routing.downstream[c];
            if d < 0 {
                return 0.0;
            }
            let d = d as usize;
            (xy[2 * c] - xy[2 * d]).hypot(xy[2 * c + 1] - xy[2 * d + 1])
        })
        .collect();
    let mut hops = vec![0u32; n];
    for &c in &routing.order {
        let c = c as usize;
        let d = routing.downstream[c];
        if d >= 0 {
            let d = d as usize;
            hops[c] = hops[d] + 1;
            length[c] += length[d];
        }
    }
    Ok((hops, length.into_iter().map(|v| v as f32).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pit_on_a_path_is_filled_and_drains_through_the_spill() {
        // 0 - 1 - 2 - 3 - 4, outlet 0; node 2 is a pit below node 3 and behind node 1.
        let offsets = [0u32, 1, 3, 5, 7, 8];
        let targets = [1u32, 0, 2, 1, 3, 2, 4, 3];
        let graph = CsrGraph::new(&offsets, &targets).unwrap();
        let elev = [0.0f32, 0.5, 0.1, 0.7, 0.9];
        let outlet = [true, false, false, false, false];
        let r = priority_flood(graph, &elev, &outlet).unwrap();
        assert_eq!(r.downstream, vec![-1, 0, 1, 2, 3]);
        assert_eq!(r.filled, vec![0.0, 0.5, 0.5, 0.7, 0.9]);
        assert_eq!(r.n_unreached, 0);
        assert_eq!(spill_nodes(&r), vec![0, 1, 1, 3, 4]);
        let carved = carve(&r, &elev, &[false; 5]).unwrap();
        assert_eq!(carved, vec![0.0, 0.1, 0.1, 0.7, 0.9]);
        let (hops, _) = sea_distance(&r, &[0.0; 10]).unwrap();
        assert_eq!(hops, vec![0, 1, 2, 3, 4]);
        check_forest(&r.downstream, &r.order).unwrap();
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let offsets = [0u32, 1, 2];
        let targets = [1u32, 0];
        let graph = CsrGraph::new(&offsets, &targets).unwrap();
        assert!(priority_flood(graph, &[0.0], &[true, false]).is_err());
        assert!(priority_flood(graph, &[f32::NAN, 0.0], &[true, false]).is_err());
        assert!(check_forest(&[1, 0], &[0, 1]).is_err());
        assert!(check_forest(&[-1, 0], &[0, 0]).is_err());
        let r = priority_flood(graph, &[0.0, 1.0], &[false, false]).unwrap();
        assert_eq!(r.n_unreached, 2);
    }
}
