//! The river mask (`rivers.png`): the river strokes of [`crate::stroke`] (smooth centrelines,
//! width from flow, tapered at sources, joined cleanly), clipped to land by the colour map's
//! shore rule ([`crate::colormap::water_coverage`]), as 8-bit coverage: 255 inside a river, a
//! one-pixel antialiased ramp at its banks, 0 elsewhere and on every lake and the sea.

use ndarray::Array2;
use orogen_world::World;

use crate::ExportError;
use crate::colormap::{river_coverage, water_coverage};
use crate::grid::PixelGrid;
use crate::stroke::StrokeStyle;

/// The river mask of a world at the grid's size (`[row, col]`, row 0 north).
pub fn river_mask(
    world: &World,
    grid: &PixelGrid,
    style: &StrokeStyle,
) -> Result<Array2<u8>, ExportError> {
    let water = water_coverage(world, grid)?;
    let water = water.as_slice().expect("a new raster is contiguous");
    let cover = river_coverage(world, grid, style, water)?;
    let bytes: Vec<u8> = cover
        .iter()
        .map(|&v| (v * 255.0).round().clamp(0.0, 255.0) as u8)
        .collect();
    Ok(Array2::from_shape_vec((grid.ny, grid.nx), bytes).expect("one value per pixel"))
}
