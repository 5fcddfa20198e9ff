//! Tiled D8 flow accumulation (Barnes 2017).
//!
//! 1. Each tile counts the flow that stays inside it (a receiver outside the tile is, for now,
//!    an end), and for each perimeter cell finds the exit its within-tile path ends at: a
//!    perimeter cell whose receiver is in another tile, or none (a sink).
//! 2. The global step follows exits to the exits downstream of them (through the perimeter cell
//!    each drains into), in topological order, summing what leaves each exit; what enters a tile
//!    at each perimeter cell is the sum of what leaves the exits draining into it.
//! 3. Each tile adds each inflow along the path from where it enters to where it leaves.
//!
//! Counts are integers throughout, so the result is the same bytes as
//! [`super::super::flow_accumulation`].

use std::collections::VecDeque;

use ndarray::{Array2, ArrayView2, ArrayViewMut2, Axis};
use rayon::prelude::*;

use super::super::d8::{D8_CODES, receiver_of};
use super::super::{RasterError, check_size};
use super::fill::tile_views;
use super::{Ring, Tiling, d8_receivers_tiled};

/// No exit: the path ends in a sink inside the tile.
pub const NO_EXIT: u32 = u32::MAX;

/// What the first step leaves of a tile.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AccTile {
    /// The flow through each cell of the tile from the tile alone, row-major.
    pub counts: Vec<u32>,
    /// For each perimeter cell ([`Ring`] order), the ring index of the exit its path ends at.
    pub exit: Vec<u32>,
    /// For each perimeter cell, the number of cells on that path (both ends included).
    pub path_len: Vec<u32>,
    /// Cells on cycles inside the tile.
    pub cycle_cells: usize,
}

/// The tile cell a cell of code `code` drains to, if it is in the `h x w` tile.
#[inline]
fn local_receiver(r: usize, c: usize, code: i8, h: usize, w: usize) -> Option<usize> {
    let (dx, dy) = *D8_CODES.get(usize::try_from(code).ok()?.checked_sub(1)?)?;
    let nr = r.checked_add_signed(dy).filter(|&nr| nr < h)?;
    let nc = c.checked_add_signed(dx).filter(|&nc| nc < w)?;
    Some(nr * w + nc)
}

impl AccTile {
    /// Step 1 for the tile `codes` whose first cell is `(row0, col0)` of a `rows x cols` grid.
    /// Refuses the first bad code (row-major), as [`super::super::flow_accumulation`] does.
    pub fn local(
        codes: ArrayView2<'_, i8>,
        (row0, col0): (usize, usize),
        (rows, cols): (usize, usize),
    ) -> Result<AccTile, RasterError> {
        let (h, w) = codes.dim();
        let codes = codes.as_standard_layout();
        let codes = codes.as_slice().unwrap_or_default();
        for (i, &code) in codes.iter().enumerate() {
            let (row, col) = (row0 + i / w, col0 + i % w);
            if code != 0 && receiver_of(row, col, code, rows, cols).is_none() {
                return Err(RasterError::BadReceiver { row, col, code });
            }
        }
        let down = |i: usize| local_receiver(i / w, i % w, codes[i], h, w);
        let mut donors = vec![0u8; h * w];
        for i in 0..h * w {
            if let Some(n) = down(i) {
                donors[n] += 1;
            }
        }
        let mut counts = vec![1u32; h * w];
        let mut ready: Vec<usize> = (0..h * w).filter(|&i| donors[i] == 0).collect();
        let mut finished = 0usize;
        while let Some(i) = ready.pop() {
            finished += 1;
            if let Some(n) = down(i) {
                counts[n] += counts[i];
                donors[n] -= 1;
                if donors[n] == 0 {
                    ready.push(n);
                }
            }
        }
        let ring = Ring { rows: h, cols: w };
        let mut exit = vec![NO_EXIT; ring.len()];
        let mut path_len = vec![0u32; ring.len()];
        for k in 0..ring.len() {
            let (r, c) = ring.cell(k);
            let mut i = r * w + c;
            let mut len = 1u32;
            while let Some(n) = down(i) {
                i = n;
                len += 1;
                if len as usize > h * w {
                    break; // a cycle: reported by the cycle count
                }
            }
            path_len[k] = len;
            if codes[i] != 0 && len as usize <= h * w {
                exit[k] = ring
                    .index(i / w, i % w)
                    .expect("an exit is on the perimeter") as u32;
            }
        }
        Ok(AccTile {
            counts,
            exit,
            path_len,
            cycle_cells: h * w - finished,
        })
    }

    /// Step 3: adds each perimeter cell's inflow along its path; `out` is the tile.
    pub fn finish(
        &self,
        codes: ArrayView2<'_, i8>,
        inflow: &[u64],
        mut out: ArrayViewMut2<'_, f64>,
    ) {
        let (h, w) = codes.dim();
        let ring = Ring { rows: h, cols: w };
        let mut counts = self.counts.clone();
        for (k, &add) in inflow.iter().enumerate() {
            if add == 0 {
                continue;
            }
            let (mut r, mut c) = ring.cell(k);
            loop {
                counts[r * w + c] += add as u32;
                match local_receiver(r, c, codes[[r, c]], h, w) {
                    Some(n) => (r, c) = (n / w, n % w),
                    None => break,
                }
            }
        }
        for (o, &n) in out.iter_mut().zip(&counts) {
            *o = f64::from(n);
        }
    }
}

/// What the global step needs of a tile, small enough to send to another process.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AccSummary {
    /// Per perimeter cell ([`Ring`] order): the exit its path ends at, the cells on that path,
    /// its count from the tile alone, and its D8 code.
    pub exit: Vec<u32>,
    /// Per perimeter cell, the number of cells on its path to its exit (both ends included).
    pub path_len: Vec<u32>,
    /// Per perimeter cell, the flow through it from the tile alone.
    pub count: Vec<u32>,
    /// Per perimeter cell, its D8 receiver code (0 = none, 1..=8 = W .. SW).
    pub code: Vec<i8>,
    /// Cells on cycles inside the tile.
    pub cycle_cells: usize,
}

impl AccTile {
    /// The summary of this tile, whose codes are `codes`.
    pub fn summary(&self, codes: ArrayView2<'_, i8>) -> AccSummary {
        let (h, w) = codes.dim();
        let ring = Ring { rows: h, cols: w };
        let cells: Vec<(usize, usize)> = (0..ring.len()).map(|k| ring.cell(k)).collect();
        AccSummary {
            exit: self.exit.clone(),
            path_len: self.path_len.clone(),
            count: cells.iter().map(|&(r, c)| self.counts[r * w + c]).collect(),
            code: cells.iter().map(|&(r, c)| codes[[r, c]]).collect(),
            cycle_cells: self.cycle_cells,
        }
    }
}

/// The global step: what flows into each perimeter cell of each tile from other tiles
/// (`inflow[t][ring index]`), from the tiles' summaries. A cycle through several tiles is
/// refused with the number of cells on cycles, the tiles' own included.
pub fn acc_inflows(tiling: &Tiling, tiles: &[AccSummary]) -> Result<Vec<Vec<u64>>, RasterError> {
    let mut first = Vec::with_capacity(tiles.len());
    let mut n = 0usize;
    for tile in tiles {
        first.push(n);
        n += tile.exit.len();
    }
    let mut owner = vec![0u32; n];
    for (t, tile) in tiles.iter().enumerate() {
        owner[first[t]..first[t] + tile.exit.len()].fill(t as u32);
    }
    // For each exit: the perimeter node it drains into and the exit downstream of that.
    const NONE: u32 = u32::MAX;
    let mut into = vec![NONE; n];
    let mut down = vec![NONE; n];
    let mut out = vec![0u64; n];
    let mut indegree = vec![0u32; n];
    for (t, tile) in tiles.iter().enumerate() {
        let (r0, c0, h, w) = tiling.bounds(t);
        let ring = Ring { rows: h, cols: w };
        for (k, &e) in tile.exit.iter().enumerate() {
            if e as usize != k {
                continue;
            }
            let (r, c) = ring.cell(k);
            let (gr, gc) = (r0 + r, c0 + c);
            let [rr, rc] = receiver_of(gr, gc, tile.code[k], tiling.rows, tiling.cols)
                .expect("codes were checked in step 1");
            let t2 = tiling.tile_of(rr, rc);
            let (r02, c02, h2, w2) = tiling.bounds(t2);
            let k2 = Ring { rows: h2, cols: w2 }
                .index(rr - r02, rc - c02)
                .expect("a receiver across a tile edge is on the perimeter");
            let node = first[t] + k;
            into[node] = (first[t2] + k2) as u32;
            out[node] = u64::from(tile.count[k]);
            let e2 = tiles[t2].exit[k2];
            if e2 != NO_EXIT {
                down[node] = (first[t2] + e2 as usize) as u32;
                indegree[first[t2] + e2 as usize] += 1;
            }
        }
    }
    let mut ready: VecDeque<usize> = (0..n)
        .filter(|&i| into[i] != NONE && indegree[i] == 0)
        .collect();
    let mut inflow = vec![0u64; n];
    while let Some(e) = ready.pop_front() {
        inflow[into[e] as usize] += out[e];
        let d = down[e];
        if d != NONE {
            let d = d as usize;
            out[d] += out[e];
            indegree[d] -= 1;
            if indegree[d] == 0 {
                ready.push_back(d);
            }
        }
    }
    // Exits left with donors are on cycles through tiles: count the cells on those paths.
    let local: usize = tiles.iter().map(|t| t.cycle_cells).sum();
    let across: usize = (0..n)
        .filter(|&e| indegree[e] > 0)
        .map(|e| {
            let p = into[e] as usize;
            let t = owner[p] as usize;
            tiles[t].path_len[p - first[t]] as usize
        })
        .sum();
    if local + across > 0 {
        return Err(RasterError::Cycle {
            n_cells: local + across,
        });
    }
    Ok(tiles
        .iter()
        .enumerate()
        .map(|(t, tile)| inflow[first[t]..first[t] + tile.exit.len()].to_vec())
        .collect())
}

/// [`super::super::flow_accumulation`] by tiles of `tile = (rows, cols)` cells, in parallel;
/// the same bytes.
pub fn flow_accumulation_tiled(
    receivers: ArrayView2<'_, i8>,
    tile: (usize, usize),
) -> Result<Array2<f64>, RasterError> {
    let (rows, cols) = receivers.dim();
    check_size(rows, cols)?;
    let tiling = Tiling::new(rows, cols, tile)?;
    let window = |t: usize| {
        let (r0, c0, h, w) = tiling.bounds(t);
        super::window(receivers, (r0, c0), (h, w))
    };
    let results: Vec<Result<AccTile, RasterError>> = (0..tiling.n_tiles())
        .into_par_iter()
        .map(|t| {
            let (r0, c0, _, _) = tiling.bounds(t);
            AccTile::local(window(t), (r0, c0), (rows, cols))
        })
        .collect();
    // The first bad code in row-major order, whichever tile it is in.
    let first_bad = results
        .iter()
        .filter_map(|r| match r {
            Err(RasterError::BadReceiver { row, col, code }) => Some((*row, *col, *code)),
            _ => None,
        })
        .min();
    if let Some((row, col, code)) = first_bad {
        return Err(RasterError::BadReceiver { row, col, code });
    }
    let tiles: Vec<AccTile> = results.into_iter().collect::<Result<_, _>>()?;
    let summaries: Vec<AccSummary> = tiles
        .par_iter()
        .enumerate()
        .map(|(t, tile)| tile.summary(window(t)))
        .collect();
    let inflows = acc_inflows(&tiling, &summaries)?;
    let mut out = Array2::<f64>::zeros((rows, cols));
    tile_views(&mut out, &tiling)
        .into_par_iter()
        .enumerate()
        .for_each(|(t, view)| tiles[t].finish(window(t), &inflows[t], view));
    Ok(out)
}

/// [`super::super::accumulate_dem`] by tiles: tiled D8, tiled accumulation, NaN on NoData.
pub fn accumulate_dem_tiled(
    dem: ArrayView2<'_, f32>,
    tile: (usize, usize),
) -> Result<Array2<f64>, RasterError> {
    let receivers = d8_receivers_tiled(dem, tile)?;
    let mut acc = flow_accumulation_tiled(receivers.view(), tile)?;
    drop(receivers);
    acc.axis_iter_mut(Axis(0))
        .into_par_iter()
        .zip(dem.axis_iter(Axis(0)).into_par_iter())
        .for_each(|(mut a, z)| {
            a.zip_mut_with(&z, |a, z| {
                if z.is_nan() {
                    *a = f64::NAN;
                }
            });
        });
    Ok(acc)
}
