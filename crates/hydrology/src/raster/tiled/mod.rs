//! Tiled hydrology: the grid cut into tiles that are solved on their own, with only the tiles'
//! perimeters meeting in one small global step (Barnes 2016, "Parallel Priority-Flood depression
//! filling for trillion cell digital elevation models"; Barnes 2017, "Parallel non-divergent flow
//! accumulation for trillion cell digital elevation models").
//!
//! Every function here gives the same bytes as its single-grid counterpart ([`super::fill`],
//! [`super::d8_receivers`], [`super::flow_accumulation`], [`super::accumulate_dem`]) for every
//! tile size, NoData pattern and thread count: tiles run in parallel (rayon), each tile's work
//! depends only on its cells, and the global step is sequential over integer counts or over
//! elevations taken from the grid (a max of DEM values, never a sum of floats).
//!
//! The steps are public one by one ([`fill::FillTile`], [`fill::fill_levels`],
//! [`accumulate::AccTile`], [`accumulate::acc_inflows`]) so that a driver that holds only some
//! tiles at a time (out of core, or on several processes) runs the same code.

pub mod accumulate;
pub mod fill;

pub use accumulate::{accumulate_dem_tiled, flow_accumulation_tiled};
pub use fill::fill_tiled;

use ndarray::{Array2, ArrayView2, ArrayViewMut2, Axis, Slice};
use rayon::prelude::*;

use super::{RasterError, check_size, d8_receivers};

/// The largest tile side: a tile's perimeter labels must fit 16 bits.
pub const MAX_TILE: usize = 16_384;

/// A grid of `rows x cols` cells cut into tiles of `tile_rows x tile_cols` (the last row and
/// column of tiles may be smaller), numbered row-major.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tiling {
    /// Rows of the whole grid.
    pub rows: usize,
    /// Columns of the whole grid.
    pub cols: usize,
    /// Rows of a full tile (the last row of tiles may have fewer).
    pub tile_rows: usize,
    /// Columns of a full tile (the last column of tiles may have fewer).
    pub tile_cols: usize,
}

/// Why a tiling was refused.
fn bad_tile(tile_rows: usize, tile_cols: usize) -> RasterError {
    RasterError::BadTile {
        tile_rows,
        tile_cols,
    }
}

impl Tiling {
    /// Tiles of `tile = (tile_rows, tile_cols)` over a `rows x cols` grid; each side must be in
    /// `1..=MAX_TILE` and the grid must fit 32-bit cell ids.
    pub fn new(rows: usize, cols: usize, tile: (usize, usize)) -> Result<Self, RasterError> {
        check_size(rows, cols)?;
        let (tile_rows, tile_cols) = tile;
        if !(1..=MAX_TILE).contains(&tile_rows) || !(1..=MAX_TILE).contains(&tile_cols) {
            return Err(bad_tile(tile_rows, tile_cols));
        }
        Ok(Tiling {
            rows,
            cols,
            tile_rows,
            tile_cols,
        })
    }

    /// Tiles down and across.
    pub fn dim(&self) -> (usize, usize) {
        (
            self.rows.div_ceil(self.tile_rows),
            self.cols.div_ceil(self.tile_cols),
        )
    }

    /// The number of tiles.
    pub fn n_tiles(&self) -> usize {
        let (ty, tx) = self.dim();
        ty * tx
    }

    /// The cells of tile `t`: `(row0, col0, rows, cols)`.
    pub fn bounds(&self, t: usize) -> (usize, usize, usize, usize) {
        let (_, tx) = self.dim();
        let (r0, c0) = ((t / tx) * self.tile_rows, (t % tx) * self.tile_cols);
        (
            r0,
            c0,
            self.tile_rows.min(self.rows - r0),
            self.tile_cols.min(self.cols - c0),
        )
    }

    /// The tile holding cell `(r, c)`.
    pub fn tile_of(&self, r: usize, c: usize) -> usize {
        let (_, tx) = self.dim();
        (r / self.tile_rows) * tx + c / self.tile_cols
    }
}

/// The ring of a tile's perimeter cells, numbered: the top row left to right, the bottom row,
/// then the left and the right column between them, top to bottom.
#[derive(Clone, Copy, Debug)]
pub struct Ring {
    /// Rows of the tile.
    pub rows: usize,
    /// Columns of the tile.
    pub cols: usize,
}

impl Ring {
    /// The number of perimeter cells (every cell when the tile is one row or column thick).
    pub fn len(&self) -> usize {
        match (self.rows, self.cols) {
            (0, _) | (_, 0) => 0,
            (1, w) => w,
            (h, 1) => h,
            (h, w) => 2 * w + 2 * (h - 2),
        }
    }

    /// Whether the ring has no cells (a tile with no rows or no columns).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The ring index of the tile cell `(r, c)`, or `None` inside the tile.
    pub fn index(&self, r: usize, c: usize) -> Option<usize> {
        let (h, w) = (self.rows, self.cols);
        if r == 0 {
            Some(c)
        } else if r + 1 == h {
            Some(if w == 1 { 1 } else { w + c })
        } else if c == 0 {
            Some(if w == 1 { 1 + r } else { 2 * w + (r - 1) })
        } else if c + 1 == w {
            Some(2 * w + (h - 2) + (r - 1))
        } else {
            None
        }
    }

    /// The tile cell `(r, c)` at ring index `k`.
    pub fn cell(&self, k: usize) -> (usize, usize) {
        let (h, w) = (self.rows, self.cols);
        if h == 1 {
            (0, k)
        } else if w == 1 {
            match k {
                0 => (0, 0),
                1 => (h - 1, 0),
                _ => (k - 1, 0),
            }
        } else if k < w {
            (0, k)
        } else if k < 2 * w {
            (h - 1, k - w)
        } else if k < 2 * w + (h - 2) {
            (k - 2 * w + 1, 0)
        } else {
            (k - 2 * w - (h - 2) + 1, w - 1)
        }
    }
}

/// [`d8_receivers`] tile by tile: each tile with a one-cell halo, so the same codes.
pub fn d8_receivers_tiled(
    dem: ArrayView2<'_, f32>,
    tile: (usize, usize),
) -> Result<Array2<i8>, RasterError> {
    let (rows, cols) = dem.dim();
    let tiling = Tiling::new(rows, cols, tile)?;
    let tiles: Vec<Array2<i8>> = (0..tiling.n_tiles())
        .into_par_iter()
        .map(|t| d8_tile(dem, &tiling, t))
        .collect();
    let mut out = Array2::<i8>::zeros((rows, cols));
    for (t, codes) in tiles.into_iter().enumerate() {
        let (r0, c0, h, w) = tiling.bounds(t);
        window_mut(out.view_mut(), (r0, c0), (h, w)).assign(&codes);
    }
    Ok(out)
}

/// The D8 codes of tile `t` of `dem`, computed on the tile and its one-cell halo.
pub fn d8_tile(dem: ArrayView2<'_, f32>, tiling: &Tiling, t: usize) -> Array2<i8> {
    let (r0, c0, h, w) = tiling.bounds(t);
    let (hr0, hc0) = (r0.saturating_sub(1), c0.saturating_sub(1));
    let (hr1, hc1) = ((r0 + h + 1).min(tiling.rows), (c0 + w + 1).min(tiling.cols));
    let window = window(dem, (hr0, hc0), (hr1 - hr0, hc1 - hc0));
    let codes = d8_receivers(window);
    // A cell on the window's edge that is not on the grid's edge gets 0 from the window alone;
    // tile cells never sit there (the halo surrounds them), so cropping is exact.
    self::window(codes.view(), (r0 - hr0, c0 - hc0), (h, w)).to_owned()
}

/// The `h x w` cells of `a` from `(r0, c0)`.
pub fn window<T>(
    mut a: ArrayView2<'_, T>,
    (r0, c0): (usize, usize),
    (h, w): (usize, usize),
) -> ArrayView2<'_, T> {
    a.slice_axis_inplace(Axis(0), Slice::from(r0..r0 + h));
    a.slice_axis_inplace(Axis(1), Slice::from(c0..c0 + w));
    a
}

/// [`window`], mutable.
pub fn window_mut<T>(
    mut a: ArrayViewMut2<'_, T>,
    (r0, c0): (usize, usize),
    (h, w): (usize, usize),
) -> ArrayViewMut2<'_, T> {
    a.slice_axis_inplace(Axis(0), Slice::from(r0..r0 + h));
    a.slice_axis_inplace(Axis(1), Slice::from(c0..c0 + w));
    a
}
