//! Tiled Priority-Flood (Barnes 2016).
//!
//! 1. Each tile is flooded on its own from its perimeter cells and from its true outlets (cells
//!    next to NoData or the grid's edge). A true outlet is labelled [`OCEAN`]; every other
//!    perimeter cell starts a watershed label of its own, and each cell takes the label of the
//!    cell that flooded it. Where two labels meet, the edge between them keeps the lowest spill
//!    elevation (the higher of the two cells' flooded elevations).
//! 2. The global step joins all tiles' labels: the edges found inside tiles, and one edge per
//!    pair of neighbouring perimeter cells of two tiles. A Priority-Flood over this small graph
//!    from [`OCEAN`] gives each label the level water must rise to before it leaves.
//! 3. Each tile raises its cells to their label's level: `max(local, level[label])`.
//!
//! Every value written is one of the DEM's, and the fill is unique, so the result is the same
//! bits as [`super::super::fill`].

use std::collections::VecDeque;

use ndarray::{Array2, ArrayView2, ArrayViewMut2, Axis};
use rayon::prelude::*;

use super::super::RasterError;
use super::super::queue::{RadixQueue, key, unkey};
use super::{Ring, Tiling};

/// The label of every true outlet (a cell next to NoData or the grid's edge).
pub const OCEAN: u16 = 0;
/// A NoData cell (no label).
pub const NODATA: u16 = u16::MAX;
/// Not reached yet (only while flooding).
const UNSET: u16 = u16::MAX - 1;

/// What the first step leaves of a tile: its cells' labels and the edges between its labels.
/// The flooded elevations went back into the tile's cells.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FillTile {
    /// Labels 1..n_labels are this tile's; 0 is [`OCEAN`].
    pub n_labels: u16,
    /// The label of each cell of the tile, row-major ([`NODATA`] for NaN).
    pub labels: Vec<u16>,
    /// `(a, b, spill)` with `a < b`, one per pair of labels that touch, at the lowest spill.
    pub edges: Vec<(u16, u16, f32)>,
    /// Which cells the tile's own flood raised, row-major, 64 to a word: with [`Self::finish`]
    /// they give the cells raised in all without keeping a copy of the tile.
    pub raised: Vec<u64>,
}

/// Whether each cell of the one-cell ring around tile `t` is NoData (NaN, or off the grid),
/// in [`Ring`] order of the `(rows + 2) x (cols + 2)` window. `dem` holds the grid's cells from
/// `origin` on (the whole grid, or a window that covers the tile and its ring).
pub fn halo_nodata(
    dem: ArrayView2<'_, f32>,
    origin: (usize, usize),
    tiling: &Tiling,
    t: usize,
) -> Vec<bool> {
    let (r0, c0, h, w) = tiling.bounds(t);
    let ring = Ring {
        rows: h + 2,
        cols: w + 2,
    };
    (0..ring.len())
        .map(|k| {
            let (r, c) = ring.cell(k);
            let (Some(r), Some(c)) = ((r0 + r).checked_sub(1), (c0 + c).checked_sub(1)) else {
                return true;
            };
            if r >= tiling.rows || c >= tiling.cols {
                return true;
            }
            let (Some(wr), Some(wc)) = (r.checked_sub(origin.0), c.checked_sub(origin.1)) else {
                return true;
            };
            dem.get((wr, wc)).is_none_or(|z| z.is_nan())
        })
        .collect()
}

impl FillTile {
    /// Floods one tile in place: `cells` is the tile, `halo_nodata` says which cells of the ring
    /// around it are NoData ([`halo_nodata`]). Afterwards `cells` holds the tile's local fill
    /// (perimeter cells keep their elevation: they are where the flood starts).
    pub fn flood(mut cells: ArrayViewMut2<'_, f32>, halo_nodata: &[bool]) -> FillTile {
        let (h, w) = cells.dim();
        let width = w + 2;
        let ring = Ring {
            rows: h + 2,
            cols: w + 2,
        };
        // The tile in a padded buffer; the halo is closed, NaN where it is NoData.
        let mut z = vec![f32::INFINITY; (h + 2) * width];
        let mut labels = vec![UNSET; (h + 2) * width];
        for (k, &nodata) in halo_nodata.iter().enumerate() {
            let (r, c) = ring.cell(k);
            labels[r * width + c] = NODATA;
            if nodata {
                z[r * width + c] = f32::NAN;
            }
        }
        for (r, row) in cells.axis_iter(Axis(0)).enumerate() {
            let dst = &mut z[(r + 1) * width + 1..(r + 1) * width + 1 + w];
            for (d, &v) in dst.iter_mut().zip(row) {
                *d = v;
            }
        }
        let wi = width as isize;
        let offsets: [isize; 8] = [-1, -wi - 1, -wi, -wi + 1, 1, wi + 1, wi, wi - 1];

        // Seeds in row-major order: true outlets (OCEAN), then each other perimeter cell its
        // own label. An interior cell can be an outlet only next to an interior NaN: rows with
        // none around them need only their two perimeter cells looked at.
        let row_nan: Vec<bool> = z
            .chunks(width)
            .map(|row| row[1..=w].iter().any(|v| v.is_nan()))
            .collect();
        let mut open = RadixQueue::new();
        let mut next_label = 1u16;
        for r in 1..=h {
            let quiet = r != 1 && r != h && !row_nan[r - 1..=r + 1].contains(&true);
            let step = if quiet { (w - 1).max(1) } else { 1 };
            for c in (1..=w).step_by(step) {
                let i = r * width + c;
                if z[i].is_nan() {
                    labels[i] = NODATA;
                    continue;
                }
                let outlet = offsets
                    .iter()
                    .any(|&o| z[i.wrapping_add_signed(o)].is_nan());
                let perimeter = r == 1 || c == 1 || r == h || c == w;
                if outlet {
                    labels[i] = OCEAN;
                } else if perimeter {
                    labels[i] = next_label;
                    next_label += 1;
                } else {
                    continue;
                }
                open.push(key(z[i]), i as u32);
            }
        }

        // Edges packed as `a << 48 | b << 32 | key(spill)`: sorting integers is the cheap way to
        // keep each pair's lowest spill.
        let mut packed: Vec<u64> = Vec::new();
        let pack = |(a, b, spill): (u16, u16, f32)| {
            u64::from(a) << 48 | u64::from(b) << 32 | u64::from(key(spill))
        };
        // The cells this flood raised, in tile coordinates (a cell is raised when it is first
        // reached, so at most once).
        let mut raised = vec![0u64; (h * w).div_ceil(64)];
        let mut last = (NODATA, NODATA, f32::INFINITY);
        let mut pit: VecDeque<u32> = VecDeque::new();
        loop {
            let c = match pit.pop_front() {
                Some(c) => c as usize,
                None => match open.pop() {
                    Some((_, c)) => c as usize,
                    None => break,
                },
            };
            let (lc, zc) = (labels[c], z[c]);
            for &o in &offsets {
                let n = c.wrapping_add_signed(o);
                let ln = labels[n];
                if ln == NODATA {
                    continue;
                }
                if ln != UNSET {
                    if ln != lc {
                        let spill = zc.max(z[n]);
                        let (a, b) = (lc.min(ln), lc.max(ln));
                        if (a, b) == (last.0, last.1) {
                            last.2 = last.2.min(spill);
                        } else {
                            if last.0 != NODATA {
                                packed.push(pack(last));
                            }
                            last = (a, b, spill);
                        }
                    }
                    continue;
                }
                labels[n] = lc;
                if z[n] <= zc {
                    // As the single-grid fill: only strictly lower cells are raised, to +0.0
                    // rather than -0.0.
                    if z[n] < zc {
                        z[n] = zc + 0.0;
                        let k = (n / width - 1) * w + (n % width - 1);
                        raised[k / 64] |= 1 << (k % 64);
                    }
                    pit.push_back(n as u32);
                } else {
                    open.push(key(z[n]), n as u32);
                }
            }
        }
        if last.0 != NODATA {
            packed.push(pack(last));
        }
        // The lowest spill of each pair.
        packed.sort_unstable();
        packed.dedup_by_key(|e| *e >> 32);
        let mut edges: Vec<(u16, u16, f32)> = packed
            .into_iter()
            .map(|e| ((e >> 48) as u16, (e >> 32) as u16, unkey(e as u32)))
            .collect();
        edges.shrink_to_fit();

        let mut tile_labels = Vec::with_capacity(h * w);
        for (r, mut row) in cells.axis_iter_mut(Axis(0)).enumerate() {
            let start = (r + 1) * width + 1;
            for (c, d) in row.iter_mut().enumerate() {
                *d = z[start + c];
            }
            tile_labels.extend_from_slice(&labels[start..start + w]);
        }
        FillTile {
            n_labels: next_label,
            labels: tile_labels,
            edges,
            raised,
        }
    }

    /// Step 3: raises each cell of the tile to its label's level. Returns the number of the
    /// tile's cells raised in all (by its own flood or now): with the tile's original cells,
    /// those the fill changed.
    pub fn finish(&self, mut cells: ArrayViewMut2<'_, f32>, levels: &[f32]) -> usize {
        let w = cells.ncols();
        let mut count = 0;
        // Row by row: a tile of a larger grid is a strided view, its rows contiguous.
        for (r, mut row) in cells.axis_iter_mut(Axis(0)).enumerate() {
            let start = r * w;
            for (k, (z, &l)) in (start..).zip(row.iter_mut().zip(&self.labels[start..start + w])) {
                let before = self.raised[k / 64] >> (k % 64) & 1 == 1;
                let raise = l != NODATA && *z < levels[usize::from(l)];
                if raise {
                    *z = levels[usize::from(l)] + 0.0;
                }
                count += usize::from(raise || before);
            }
        }
        count
    }
}

/// What the global step needs of a tile: its labels' edges and its perimeter, small enough to
/// send to another process.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FillSummary {
    /// As [`FillTile::n_labels`]: labels 1..n_labels are this tile's; 0 is [`OCEAN`].
    pub n_labels: u16,
    /// As [`FillTile::edges`]: `(a, b, spill)` with `a < b`, one per pair of labels that touch.
    pub edges: Vec<(u16, u16, f32)>,
    /// Label and flooded elevation of each perimeter cell, in [`Ring`] order.
    pub ring: Vec<(u16, f32)>,
}

impl FillTile {
    /// The summary of this tile, whose flooded cells are `cells`.
    pub fn summary(&self, cells: ArrayView2<'_, f32>) -> FillSummary {
        let (h, w) = cells.dim();
        let ring = Ring { rows: h, cols: w };
        FillSummary {
            n_labels: self.n_labels,
            edges: self.edges.clone(),
            ring: (0..ring.len())
                .map(|k| {
                    let (r, c) = ring.cell(k);
                    (self.labels[r * w + c], cells[[r, c]])
                })
                .collect(),
        }
    }
}

/// The global step: the level of every label of every tile (`levels[t][label]`), from the
/// tiles' summaries.
pub fn fill_levels(tiling: &Tiling, tiles: &[FillSummary]) -> Vec<Vec<f32>> {
    // Global node ids: 0 is the ocean, then each tile's labels 1.. in turn.
    let mut first = Vec::with_capacity(tiles.len());
    let mut n_nodes = 1usize;
    for tile in tiles {
        first.push(n_nodes - 1);
        n_nodes += usize::from(tile.n_labels) - 1;
    }
    let node = |t: usize, label: u16| -> usize {
        if label == OCEAN {
            0
        } else {
            first[t] + usize::from(label)
        }
    };
    // Every edge of the label graph: those found inside tiles, then one per pair of
    // neighbouring cells of two tiles, across each horizontal tile boundary (with diagonals)
    // and each vertical one. Walked twice (degrees, then adjacency), so no list of them is kept.
    let for_each_edge = |f: &mut dyn FnMut(u32, u32, f32)| {
        for (t, tile) in tiles.iter().enumerate() {
            for &(a, b, spill) in &tile.edges {
                f(node(t, a) as u32, node(t, b) as u32, spill);
            }
        }
        let at = |r: usize, c: usize| -> (usize, (u16, f32)) {
            let t = tiling.tile_of(r, c);
            let (r0, c0, h, w) = tiling.bounds(t);
            let k = Ring { rows: h, cols: w }
                .index(r - r0, c - c0)
                .expect("a cell next to another tile is on its tile's perimeter");
            (t, tiles[t].ring[k])
        };
        let mut join = |(r1, c1): (usize, usize), (r2, c2): (usize, usize)| {
            let (t1, (l1, z1)) = at(r1, c1);
            let (t2, (l2, z2)) = at(r2, c2);
            if l1 == NODATA || l2 == NODATA || t1 == t2 {
                return;
            }
            f(node(t1, l1) as u32, node(t2, l2) as u32, z1.max(z2));
        };
        let (rows, cols) = (tiling.rows, tiling.cols);
        for r in (tiling.tile_rows..rows).step_by(tiling.tile_rows) {
            for c in 0..cols {
                for c2 in c.saturating_sub(1)..(c + 2).min(cols) {
                    join((r - 1, c), (r, c2));
                }
            }
        }
        for c in (tiling.tile_cols..cols).step_by(tiling.tile_cols) {
            for r in 0..rows {
                join((r, c - 1), (r, c));
                // Diagonals that stay within one row of tiles (the others crossed a row
                // boundary).
                if r + 1 < rows && (r + 1) % tiling.tile_rows != 0 {
                    join((r, c - 1), (r + 1, c));
                    join((r + 1, c - 1), (r, c));
                }
            }
        }
    };

    // Adjacency lists (CSR), then a Priority-Flood over the labels from the ocean: each label's
    // level is the lowest over paths to the ocean of the highest spill on the path.
    let mut degree = vec![0u32; n_nodes + 1];
    for_each_edge(&mut |a, b, _| {
        degree[a as usize + 1] += 1;
        degree[b as usize + 1] += 1;
    });
    for i in 1..=n_nodes {
        degree[i] += degree[i - 1];
    }
    let mut fill_at = degree.clone();
    let mut adj = vec![(0u32, 0f32); degree[n_nodes] as usize];
    for_each_edge(&mut |a, b, spill| {
        adj[fill_at[a as usize] as usize] = (b, spill);
        fill_at[a as usize] += 1;
        adj[fill_at[b as usize] as usize] = (a, spill);
        fill_at[b as usize] += 1;
    });
    drop(fill_at);
    let mut level = vec![f32::INFINITY; n_nodes];
    let mut done = vec![false; n_nodes];
    // Levels only rise along the flood, so the radix queue serves (stale entries skipped).
    let mut queue = RadixQueue::new();
    level[0] = f32::NEG_INFINITY;
    queue.push(key(f32::NEG_INFINITY), 0);
    while let Some((_, a)) = queue.pop() {
        let a = a as usize;
        if done[a] {
            continue;
        }
        done[a] = true;
        for &(b, spill) in &adj[degree[a] as usize..degree[a + 1] as usize] {
            let through = level[a].max(spill);
            if through < level[b as usize] {
                level[b as usize] = through;
                queue.push(key(through), b);
            }
        }
    }
    tiles
        .iter()
        .enumerate()
        .map(|(t, tile)| {
            (0..tile.n_labels)
                .map(|l| {
                    let v = level[node(t, l)];
                    // A label the ocean cannot reach (none exists: every perimeter cell touches
                    // another tile or is an outlet) is left as it is.
                    if v == f32::INFINITY {
                        f32::NEG_INFINITY
                    } else {
                        v
                    }
                })
                .collect()
        })
        .collect()
}

/// [`super::super::fill`] by tiles of `tile = (rows, cols)` cells, in parallel; the same bits.
pub fn fill_tiled(
    dem: ArrayView2<'_, f32>,
    tile: (usize, usize),
) -> Result<Array2<f32>, RasterError> {
    let mut out = dem.to_owned();
    fill_tiled_in_place(&mut out, tile)?;
    Ok(out)
}

/// [`fill_tiled`] overwriting `dem`, so that the memory beyond the grid is 2 bytes and a bit
/// per cell (labels, raised cells) and a tile's buffers per thread. Returns the number of cells
/// raised.
pub fn fill_tiled_in_place(
    dem: &mut Array2<f32>,
    tile: (usize, usize),
) -> Result<usize, RasterError> {
    let (rows, cols) = dem.dim();
    let tiling = Tiling::new(rows, cols, tile)?;
    let halos: Vec<Vec<bool>> = (0..tiling.n_tiles())
        .into_par_iter()
        .map(|t| halo_nodata(dem.view(), (0, 0), &tiling, t))
        .collect();
    let mut tiles: Vec<FillTile> = tile_views(dem, &tiling)
        .into_par_iter()
        .zip(halos.par_iter())
        .map(|(cells, halo)| FillTile::flood(cells, halo))
        .collect();
    drop(halos);
    let summaries: Vec<FillSummary> = tiles
        .par_iter_mut()
        .enumerate()
        .map(|(t, tile)| {
            let (r0, c0, h, w) = tiling.bounds(t);
            let summary = tile.summary(super::window(dem.view(), (r0, c0), (h, w)));
            // The summary holds the edges now; finishing needs only the labels.
            tile.edges = Vec::new();
            summary
        })
        .collect();
    let levels = fill_levels(&tiling, &summaries);
    drop(summaries);
    Ok(tile_views(dem, &tiling)
        .into_par_iter()
        .zip(tiles.par_iter().zip(levels.par_iter()))
        .map(|(cells, (tile, levels))| tile.finish(cells, levels))
        .sum())
}

/// Disjoint mutable views of every tile of `grid`, in tile order.
pub(super) fn tile_views<'a, T>(
    grid: &'a mut Array2<T>,
    tiling: &Tiling,
) -> Vec<ArrayViewMut2<'a, T>> {
    let mut views = Vec::with_capacity(tiling.n_tiles());
    let mut rest = grid.view_mut();
    while rest.nrows() > 0 && rest.ncols() > 0 {
        let n = tiling.tile_rows.min(rest.nrows());
        let (band, below) = rest.split_at(Axis(0), n);
        rest = below;
        let mut band = band;
        while band.ncols() > 0 {
            let n = tiling.tile_cols.min(band.ncols());
            let (view, right) = band.split_at(Axis(1), n);
            views.push(view);
            band = right;
        }
    }
    views
}
