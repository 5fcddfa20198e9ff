//! The one Priority-Flood over graphs (Barnes, Lehman and Mulla 2014, the "improved" variant:
//! a FIFO for the cells inside depressions), on the radix queue the raster fill uses. The graph
//! routing ([`crate::graph::priority_flood`], f32 levels) and erosion's routing
//! ([`crate::erosion::route`], f64 levels) both run it; the raster fill keeps its own loop over
//! the same queue (fixed neighbour offsets, slope cells skipping the queue, the epsilon variant).

use std::collections::VecDeque;

use crate::erosion::Neighbours;
use crate::raster::queue::{RadixKey, RadixQueue, key, key64};

/// A level the flood orders by: `f32` or `f64`, mapped to a radix key of its width (NaN
/// excluded by the callers; -0 equals +0).
pub(crate) trait Level: Copy + PartialOrd {
    /// The radix key type.
    type Key: RadixKey;
    /// The key of the value, its sign of zero dropped.
    fn key(self) -> Self::Key;
}

impl Level for f32 {
    type Key = u32;
    #[inline]
    fn key(self) -> u32 {
        key(self + 0.0)
    }
}

impl Level for f64 {
    type Key = u64;
    #[inline]
    fn key(self) -> u64 {
        key64(self + 0.0)
    }
}

/// What [`flood`] finds.
#[derive(Debug)]
pub(crate) struct Flooded<T> {
    /// Filled level per node: `max(elevation, level of the node it was reached from)`.
    pub(crate) filled: Vec<T>,
    /// The node each node was reached from (`u32::MAX` for seeds and nodes never reached).
    pub(crate) parent: Vec<u32>,
    /// The nodes in the order they were finalised, after the `order` the caller passed in.
    pub(crate) order: Vec<u32>,
}

/// Floods `graph` from `seeds` (pushed in the order given), lowest level first, ties by node
/// index. A node reached from a node of filled level `f` gets level `max(z, f)`; nodes raised
/// that way (inside a depression) are processed first-in first-out before the queue, so a flat
/// drains along a breadth-first tree towards the point it spilled from. Nodes `closed` from the
/// start (the seeds, NaN nodes, anything the caller excludes) are never entered.
pub(crate) fn flood<T: Level, G: Neighbours>(
    graph: &G,
    z: &[T],
    mut closed: Vec<bool>,
    seeds: impl IntoIterator<Item = u32>,
    mut order: Vec<u32>,
) -> Flooded<T> {
    let mut filled = z.to_vec();
    let mut parent = vec![u32::MAX; z.len()];
    flood_into(
        graph,
        z,
        &mut closed,
        &mut filled,
        &mut parent,
        seeds,
        &mut order,
        (usize::MAX, |_| false),
    );
    Flooded {
        filled,
        parent,
        order,
    }
}

/// [`flood`] into buffers the caller keeps: `filled` must hold `z` and `parent` `u32::MAX` at
/// every node the flood seeds or enters (a caller flooding a small part of a large graph resets
/// only that part). Reached nodes are marked in `closed`.
///
/// `until = (count, is_target)` stops the flood early: once `count` nodes for which `is_target`
/// holds have been reached and the FIFO is empty, before the next pop from the queue (what is
/// done by then is what the whole flood does; `usize::MAX` floods everything).
#[allow(clippy::too_many_arguments)]
pub(crate) fn flood_into<T: Level, G: Neighbours>(
    graph: &G,
    z: &[T],
    closed: &mut [bool],
    filled: &mut [T],
    parent: &mut [u32],
    seeds: impl IntoIterator<Item = u32>,
    order: &mut Vec<u32>,
    until: (usize, impl Fn(usize) -> bool),
) {
    let (mut targets, is_target) = until;
    let mut queue = RadixQueue::<T::Key>::index_ordered();
    for i in seeds {
        queue.push(z[i as usize].key(), i);
    }
    let mut pit = VecDeque::new();
    loop {
        let c = if let Some(c) = pit.pop_front() {
            c
        } else if targets == 0 {
            break;
        } else if let Some((_, c)) = queue.pop() {
            c
        } else {
            break;
        };
        order.push(c);
        let level = filled[c as usize];
        graph.for_each(c as usize, |j, _| {
            if closed[j] {
                return;
            }
            closed[j] = true;
            parent[j] = c;
            if is_target(j) {
                targets -= 1;
            }
            // `z[j]`, read from `filled` (which holds it until `j` is entered): one array
            // fewer touched a node, in an order that jumps across the map.
            let zj = filled[j];
            if zj <= level {
                filled[j] = level;
                pit.push_back(j as u32);
            } else {
                // Above `level`, so above every key popped so far.
                queue.push(zj.key(), j as u32);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_order_like_the_levels_in_both_widths() {
        let xs = [-3.0f64, -1.0, -0.5, -0.0, 0.0, 1e-30, 0.5, 2.0];
        for w in xs.windows(2) {
            assert!(w[0].key() <= w[1].key(), "{w:?}");
            assert!((w[0] as f32).key() <= (w[1] as f32).key(), "{w:?}");
        }
        assert_eq!((-0.0f64).key(), 0.0f64.key());
        assert_eq!((-0.0f32).key(), 0.0f32.key());
        assert!((-1.0f64).key() < (-0.5f64).key());
        assert!((-1.0f32).key() < (-0.5f32).key());
        // f64 keys tell apart values one f32 cannot.
        assert!(1.0f64.key() < (1.0f64 + 1e-12).key());
    }

    /// The same flood in f32 and f64 on levels both represent exactly: the same tree.
    #[test]
    fn both_widths_flood_alike() {
        let grid = crate::erosion::Grid {
            rows: 9,
            cols: 11,
            dx: 1.0,
            dy: 1.0,
        };
        let z64: Vec<f64> = (0..99u64)
            .map(|i| (orogen_world::seed::splitmix64(i) % 40) as f64 * 0.5)
            .collect();
        let z32: Vec<f32> = z64.iter().map(|&v| v as f32).collect();
        let base = grid.border();
        let seeds = || (0..99u32).filter(|&i| base[i as usize]);
        let a = flood(&grid, &z64, base.clone(), seeds(), Vec::new());
        let b = flood(&grid, &z32, base.clone(), seeds(), Vec::new());
        assert_eq!(a.parent, b.parent);
        assert_eq!(a.order, b.order);
        assert!(
            a.filled
                .iter()
                .zip(&b.filled)
                .all(|(x, y)| *x == f64::from(*y))
        );
        assert!(
            a.filled.iter().zip(&z64).any(|(f, z)| f > z),
            "a pit was filled"
        );
        assert_eq!(a.order.len(), 99);
    }
}
