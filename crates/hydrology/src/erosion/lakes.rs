//! The pits' lakes, grown upward from the pits: what the whole graph's Priority-Flood from the
//! base levels does to them, found by visiting only the lakes and their shores.
//!
//! After steepest descent, every node drains strictly down to a base level or to a pit. The
//! whole flood (Barnes, Lehman and Mulla 2014) raises a pit's lake to its spill, the lowest
//! point from which the outside reaches it, and links the lake's nodes breadth-first from that
//! spill. Everything else keeps its own level, and its steepest descent stays a strictly lower
//! neighbour. So the flood's result on the routing is decided by the lakes alone: their levels
//! and their breadth-first links.
//!
//! [`drain_pits`] finds them as a watershed grown from the pits, lowest node first (the flood's
//! order, `(level, index)`), one group per pit: a node joins a group when all its lower
//! neighbours are in it; when two groups meet they merge (one lake); a node with a lower
//! neighbour outside every growing group (which therefore drains to a base level or into a lake
//! already spilled) is the group's spill. A finished group's nodes are its lake, at the spill's
//! level; the flood enters them from the spill, first-in first-out, so the links are the
//! breadth-first tree from the spill over them. Each step visits the lakes and their shores
//! (tens of nodes a step on a 1,000,000-cell world) where a flood over the pits' basins
//! visited 80,000.
//!
//! Exact ties between distinct nodes' levels at a lake's level (a node next to the lake, or a
//! neighbouring lake, at exactly that level) are where the whole flood's first-in first-out run
//! may take in more: [`drain_pits`] then declines, and the caller floods the pits' basins.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::route::{Neighbours, link, steepest_by};
use crate::flood::Level;

/// No group, no parent, a group still growing.
const NONE: u32 = u32::MAX;

/// The buffers of [`drain_pits`], kept between routings: the per-node ones are reset only
/// where the lakes were.
#[derive(Clone, Debug, Default)]
pub(super) struct Lakes {
    /// Each node's group (`NONE` outside every lake).
    label: Vec<u32>,
    /// The node a lake node is reached from, breadth-first from the spill (`NONE` elsewhere).
    parent: Vec<u32>,
    /// The nodes labelled this routing, in the order they joined.
    nodes: Vec<u32>,
    /// Nodes next to a group, by `(level key, node)`, with the group that found them.
    heap: BinaryHeap<Reverse<(u64, u32, u32)>>,
    /// Union-find over the groups (one per pit).
    group: Vec<u32>,
    /// Each group's spill (`NONE` while it grows, and for a group no base level reaches).
    spill: Vec<u32>,
    /// The groups of a node's lower neighbours, and the breadth-first queue.
    low: Vec<u32>,
    fifo: VecDeque<u32>,
}

/// Every field but the heap, which each routing empties.
impl PartialEq for Lakes {
    fn eq(&self, other: &Self) -> bool {
        (
            &self.label,
            &self.parent,
            &self.nodes,
            &self.group,
            &self.spill,
        ) == (
            &other.label,
            &other.parent,
            &other.nodes,
            &other.group,
            &other.spill,
        ) && (&self.low, &self.fifo) == (&other.low, &other.fifo)
    }
}

fn find(group: &mut [u32], mut k: u32) -> u32 {
    while group[k as usize] != k {
        let up = group[group[k as usize] as usize];
        group[k as usize] = up;
        k = up;
    }
    k
}

/// Routes the `pits` (steepest descent's nodes without a receiver, in index order) as the whole
/// flood would: each lake raised to its spill's level, its nodes and their neighbours routed by
/// steepest descent on the filled levels, and the lake's nodes left without a lower neighbour
/// (all raised ones) linked breadth-first from the spill. A pit no base level reaches keeps
/// `u32::MAX` (the caller makes it a root). Returns the number of raised nodes, or `None`
/// (with `receiver` and `distance` untouched) when a node next to a lake lies at exactly the
/// lake's level, where the whole flood's first-in first-out run could take it in: the caller
/// floods then.
pub(super) fn drain_pits<G: Neighbours>(
    g: &G,
    z: &[f64],
    base: &[bool],
    receiver: &mut [u32],
    distance: &mut [f64],
    pits: &[u32],
    lakes: &mut Lakes,
) -> Option<usize> {
    let n = g.len();
    let Lakes {
        label,
        parent,
        nodes,
        heap,
        group,
        spill,
        low,
        fifo,
    } = lakes;
    if label.len() != n {
        *label = vec![NONE; n];
        *parent = vec![NONE; n];
    }
    nodes.clear();
    heap.clear();
    group.clear();
    spill.clear();
    let key = |i: usize| (z[i].key(), i as u32);
    for (k, &p) in pits.iter().enumerate() {
        group.push(k as u32);
        spill.push(NONE);
        label[p as usize] = k as u32;
        nodes.push(p);
    }
    for (k, &p) in pits.iter().enumerate() {
        g.for_each(p as usize, |j, _| {
            if !z[j].is_nan() && label[j] != k as u32 {
                heap.push(Reverse((z[j].key(), j as u32, k as u32)));
            }
        });
    }
    let mut odd = false;
    // Grow, lowest node first: the pops come in increasing `(level, node)`, so a group still
    // growing holds every node of its pits' basins below the front.
    while let Some(Reverse((kx, x, tag))) = heap.pop() {
        let gx = find(group, tag);
        if spill[gx as usize] != NONE {
            continue;
        }
        let xi = x as usize;
        if label[xi] != NONE {
            // Another group's node (a pit on a flat): the two meet.
            let other = find(group, label[xi]);
            if other != gx {
                if spill[other as usize] == NONE {
                    group[other as usize] = gx;
                } else {
                    // A lake already spilled, entered from above: only ties come here.
                    odd = true;
                }
            }
            continue;
        }
        if base[xi] {
            spill[gx as usize] = x;
            continue;
        }
        low.clear();
        g.for_each(xi, |o, _| {
            if !z[o].is_nan() && key(o) < (kx, x) {
                low.push(label[o]);
            }
        });
        let mut out = false;
        for &l in low.iter() {
            if l == NONE {
                // Below the front, in no growing group: it drains to a base level or into a
                // lake already spilled.
                out = true;
                continue;
            }
            let (root, gx) = (find(group, l), find(group, gx));
            if root == gx {
                continue;
            }
            if spill[root as usize] == NONE {
                group[root as usize] = gx;
            } else {
                out = true;
            }
        }
        let gx = find(group, gx);
        if out {
            spill[gx as usize] = x;
            continue;
        }
        label[xi] = gx;
        nodes.push(x);
        g.for_each(xi, |o, _| {
            if !z[o].is_nan() && key(o) > (kx, x) {
                heap.push(Reverse((z[o].key(), o as u32, gx)));
            }
        });
    }
    for &i in nodes.iter() {
        label[i as usize] = find(group, label[i as usize]);
    }
    let (lab, sp) = (&*label, &*spill);
    let filled = |j: usize| match lab[j] {
        NONE => z[j],
        l => match sp[l as usize] {
            NONE => z[j],
            x => z[x as usize],
        },
    };
    // The links: breadth-first from each spill over its lake, neighbours in the graph's order.
    // A node next to the lake or its spill at exactly the lake's level is a tie.
    let mut tie = odd;
    for (k, &x) in sp.iter().enumerate() {
        if x == NONE || group[k] != k as u32 || tie {
            continue;
        }
        let level = z[x as usize];
        fifo.clear();
        fifo.push_back(x);
        while let Some(c) = fifo.pop_front() {
            g.for_each(c as usize, |j, _| {
                if lab[j] == k as u32 {
                    if parent[j] == NONE {
                        parent[j] = c;
                        fifo.push_back(j as u32);
                    }
                } else if j != x as usize && filled(j) == level {
                    // Another lake with the same spill is no tie: the whole flood's run from
                    // the spill takes both, and neither reaches the other but through it.
                    tie |= lab[j] == NONE || sp[lab[j] as usize] != x;
                }
            });
        }
    }
    let mut n_raised = 0;
    if !tie {
        // Steepest descent on the filled levels differs from the first only at raised nodes
        // and their neighbours: every other node's neighbours kept their levels.
        for &i in nodes.iter() {
            let i = i as usize;
            if filled(i) > z[i] {
                n_raised += 1;
                (receiver[i], distance[i]) = steepest_by(g, base, i, filled);
                g.for_each(i, |j, _| {
                    if filled(j) == z[j] {
                        (receiver[j], distance[j]) = steepest_by(g, base, j, filled);
                    }
                });
            }
        }
        // The lakes' nodes without a lower neighbour on the filled levels take their link.
        for &i in nodes.iter() {
            let i = i as usize;
            if receiver[i] == NONE && parent[i] != NONE {
                link(g, i, parent[i], receiver, distance);
            }
        }
    }
    for &i in nodes.iter() {
        label[i as usize] = NONE;
        parent[i as usize] = NONE;
    }
    (!tie).then_some(n_raised)
}
