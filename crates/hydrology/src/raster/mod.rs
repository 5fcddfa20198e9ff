//! Hydrology on a regular grid: a DEM as `ArrayView2<f32>`, indexed `[row, col]` (row = y,
//! col = x, row 0 at the top).
//!
//! - [`fill`]: complete Priority-Flood depression filling (Barnes, Lehman and Mulla 2014,
//!   improved form: cells inside depressions go through a plain FIFO, the rest through a monotone
//!   radix queue keyed on the f32 bits by an order-preserving map, exact for negative values).
//!   8-connected; every border cell and every cell next to NoData is an outlet. The result is
//!   unique: the lowest surface >= the DEM from which every cell drains to an outlet.
//! - [`fill_epsilon`]: Priority-Flood+epsilon: flats inside filled depressions rise by
//!   `next_up` steps so every interior cell has a strictly lower neighbour. Never below
//!   [`fill`]; not unique (it follows the queue's tie order, which is fixed here).
//! - [`d8_receivers`]: steepest-slope receivers (drop / distance, diagonal `sqrt 2`, ties to
//!   the first of W, NW, N, NE, E, SE, S, SW), coded 0 (none) or 1..=8 in that order; parallel.
//! - [`flow_accumulation`]: the number of cells draining through each cell, itself counted as 1;
//!   parallel, exact (integer counts), so the same bytes for any number of threads.
//! - [`tiled`]: the same fill, D8 and accumulation by tiles solved on their own and joined by
//!   a small global step over their perimeters (Barnes 2016, 2017), tiles in parallel; the same
//!   bytes for every tile size. The steps are public for drivers that hold a few tiles at a time.
//! - [`trace_steepest`] and [`trace_rivers`]: steepest-descent river paths as the classic
//!   landscape draws them.
//!
//! NoData: NaN cells have no receiver, receive nothing and stay NaN in a fill; a valid cell next
//! to NoData is an outlet, like a border cell. Degenerate grids are defined: an empty, 1x1, flat
//! or all-NaN DEM fills to itself, and its cells have no receivers (flat cells have no downhill
//! neighbour; on a 1x1 or 2x2 grid every cell is a border cell).

mod accumulate;
mod d8;
mod fill;
pub(crate) mod queue;
pub mod tiled;
mod trace;

pub use accumulate::{accumulate_dem, flow_accumulation};
pub use d8::{D8_CODES, d8_receivers, receiver_of};
pub use fill::{fill, fill_epsilon};
pub use trace::{TraceParams, trace_rivers, trace_steepest};

use thiserror::Error;

/// Why a raster kernel refused its input.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum RasterError {
    /// The grid has more cells than the kernels index (they use 32-bit cell ids).
    #[error("a {rows}x{cols} grid is too large: at most 2^32 - 1 cells (with a 1-cell margin)")]
    TooLarge {
        /// Rows of the refused grid.
        rows: usize,
        /// Columns of the refused grid.
        cols: usize,
    },
    /// A receiver code outside 0..=8, or one pointing off the grid.
    #[error(
        "receiver code {code} at row {row}, column {col} is invalid: codes are 0 (none) or 1..=8 (W, NW, N, NE, E, SE, S, SW) and must stay on the grid"
    )]
    BadReceiver {
        /// Row of the first bad cell.
        row: usize,
        /// Column of the first bad cell.
        col: usize,
        /// The code found there.
        code: i8,
    },
    /// Receivers that loop: water would never leave these cells.
    #[error("the receivers form a cycle through {n_cells} cells: they are not a drainage network")]
    Cycle {
        /// Cells whose water never reaches an outlet: those on a cycle and those draining into
        /// one.
        n_cells: usize,
    },
    /// A tile side outside 1..=16384.
    #[error("tile size {tile_rows}x{tile_cols} is out of range: each side must be in 1..=16384")]
    BadTile {
        /// The requested tile height, in cells.
        tile_rows: usize,
        /// The requested tile width, in cells.
        tile_cols: usize,
    },
    /// A start cell outside the grid.
    #[error("start cell (row {row}, column {col}) is outside the {rows}x{cols} grid")]
    StartOutside {
        /// Row of the start cell.
        row: usize,
        /// Column of the start cell.
        col: usize,
        /// Rows of the grid.
        rows: usize,
        /// Columns of the grid.
        cols: usize,
    },
}

/// Checks that a `rows x cols` grid with a one-cell margin fits 32-bit cell ids.
pub(crate) fn check_size(rows: usize, cols: usize) -> Result<(), RasterError> {
    let padded = (rows + 2).checked_mul(cols + 2);
    match padded {
        Some(n) if n <= u32::MAX as usize => Ok(()),
        _ => Err(RasterError::TooLarge { rows, cols }),
    }
}
