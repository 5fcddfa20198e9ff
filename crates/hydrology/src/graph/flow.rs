//! Flow accumulation over a routing forest, in parallel by drainage basin.

use rayon::prelude::*;

use super::Error;
use super::route::check_len;

/// Accumulates `contribution` down the forest given by `downstream` (-1 = root): each node's
/// flow is its own contribution plus the flow of every node upstream of it.
///
/// `order` lists every node downstream-first (as [`priority_flood`](super::priority_flood)
/// returns it); the sums run in its reverse, upstream before downstream, which is right inside
/// filled depressions where elevation does not order the forest. The basins (trees) are
/// independent and are summed in parallel with rayon; sums are integers, so the result is the
/// same for any thread count.
///
/// Errors when the lengths disagree or `order` is not a downstream-first order of the forest.
pub fn accumulate(
    downstream: &[i32],
    order: &[u32],
    contribution: &[u32],
) -> Result<Vec<u64>, Error> {
    check_len("contribution", contribution.len(), downstream.len())?;
    accumulate_by(downstream, order, |c| contribution[c])
}

/// [`accumulate`] with node `c`'s contribution given by `contribution(c)` (no array of them).
pub fn accumulate_by(
    downstream: &[i32],
    order: &[u32],
    contribution: impl Fn(usize) -> u32 + Sync,
) -> Result<Vec<u64>, Error> {
    let n = downstream.len();
    check_len("order", order.len(), n)?;
    // Basin of every node, numbered by its root's place in `order` (downstream-first, so the
    // downstream node's basin is known), checking on the way that `order` lists every node
    // once, each after its downstream node.
    const UNSEEN: u32 = u32::MAX;
    let mut basin = vec![UNSEEN; n];
    // One basin a root: sized once, not grown by doubling.
    let roots = downstream.par_iter().filter(|&&d| d == -1).count();
    let mut basin_len: Vec<u32> = Vec::with_capacity(roots);
    for (p, &c) in order.iter().enumerate() {
        let c = c as usize;
        if c >= n || basin[c] != UNSEEN {
            return Err(Error::Input(format!(
                "order is not a permutation of the nodes (entry {p} = {c})"
            )));
        }
        let d = downstream[c];
        let b = if d == -1 {
            basin_len.push(0);
            (basin_len.len() - 1) as u32
        } else if d >= 0 && (d as usize) < n && basin[d as usize] != UNSEEN {
            basin[d as usize]
        } else {
            return Err(Error::Input(format!(
                "node {c} comes before its downstream node {d} in order (or {d} is not a node)"
            )));
        };
        basin[c] = b;
        basin_len[b as usize] += 1;
    }
    // Stable counting sort of `order` by basin: each basin's nodes stay downstream-first.
    // Positions fit in `u32` (nodes are `u32`); the basins' cursors take their lengths' place.
    let n_basins = basin_len.len();
    let mut start = Vec::with_capacity(n_basins + 1);
    start.push(0u32);
    for len in &mut basin_len {
        let first = start[start.len() - 1];
        start.push(first + *len);
        *len = first;
    }
    let mut cursor = basin_len;
    let mut perm = vec![0u32; n];
    let mut pos = vec![0u32; n];
    for &c in order {
        let b = basin[c as usize] as usize;
        perm[cursor[b] as usize] = c;
        pos[c as usize] = cursor[b];
        cursor[b] += 1;
    }
    drop(cursor);
    // Downstream position of every position (u32::MAX at roots), in the basin-sorted order,
    // written over the spent basin numbers (no fresh pages for it).
    let mut down_pos = basin;
    down_pos
        .par_iter_mut()
        .zip(perm.par_iter())
        .for_each(|(out, &c)| {
            let d = downstream[c as usize];
            *out = if d < 0 { u32::MAX } else { pos[d as usize] };
        });
    // Each sum is at most the contributions' total: summed in `u32` when that fits (the same
    // values).
    let total: u64 = (0..n)
        .into_par_iter()
        .map(|c| u64::from(contribution(c)))
        .sum();
    if total <= u64::from(u32::MAX) {
        // The contributions written over the sorted nodes and the sums gathered back over
        // each node's position: no array beyond the sort's until the flow is widened to
        // `u64` (12 bytes a node at the peak; the `u64` path below takes 20).
        let mut flow = perm;
        flow.par_iter_mut()
            .for_each(|c| *c = contribution(*c as usize));
        sum_basins(&mut flow, &down_pos, &start);
        drop(down_pos);
        let mut by_node = pos;
        by_node.par_iter_mut().for_each(|p| *p = flow[*p as usize]);
        drop(flow);
        Ok(by_node.into_par_iter().map(u64::from).collect())
    } else {
        let mut flow: Vec<u64> = perm
            .par_iter()
            .map(|&c| u64::from(contribution(c as usize)))
            .collect();
        drop(perm);
        sum_basins(&mut flow, &down_pos, &start);
        drop(down_pos);
        Ok((0..n)
            .into_par_iter()
            .map(|c| flow[pos[c] as usize])
            .collect())
    }
}

/// Adds each position's flow into its downstream position's (`down_pos`, `u32::MAX` at
/// roots), upstream first, basin by basin (`start`: each basin's first position, and the end);
/// `T` must hold every sum.
fn sum_basins<T: Copy + Send + std::ops::AddAssign>(
    flow: &mut [T],
    down_pos: &[u32],
    start: &[u32],
) {
    let n = flow.len();
    let n_basins = start.len() - 1;
    // Consecutive basins grouped into chunks of at least `min_chunk` nodes: every downstream
    // link stays inside its basin, so each chunk sums on its own.
    let min_chunk = (n / 64).max(4096);
    let mut chunks = Vec::new();
    let mut rest = flow;
    let mut first = 0usize;
    let mut b = 0usize;
    while b < n_basins {
        let mut end = start[b + 1] as usize;
        b += 1;
        while end - first < min_chunk && b < n_basins {
            end = start[b + 1] as usize;
            b += 1;
        }
        let (head, tail) = rest.split_at_mut(end - first);
        chunks.push((first, head));
        rest = tail;
        first = end;
    }
    chunks.into_par_iter().for_each(|(first, flow)| {
        for i in (0..flow.len()).rev() {
            let d = down_pos[first + i];
            if d != u32::MAX {
                let f = flow[i];
                flow[d as usize - first] += f;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_basins_sum_their_trees() {
        // Basin A: 0 <- 1 <- 2, 0 <- 3. Basin B: 4 <- 5.
        let downstream = [-1, 0, 1, 0, -1, 4];
        let order = [4, 0, 3, 5, 1, 2];
        let flow = accumulate(&downstream, &order, &[0, 1, 1, 1, 0, 1]).unwrap();
        assert_eq!(flow, vec![3, 2, 1, 1, 1, 1]);
        assert!(accumulate(&downstream, &[0, 1, 2, 3, 5, 4], &[1; 6]).is_err());
        assert!(accumulate(&downstream, &order, &[1; 5]).is_err());
        assert!(accumulate(&[-1, -3], &[0, 1], &[1; 2]).is_err());
        assert!(accumulate(&[-1, 0], &[0, 0], &[1; 2]).is_err());
    }
}
