//! The river mask (`rivers.png`): the river strokes of [`crate::stroke`] (smooth centrelines,
//! width from flow, tapered at sources, joined cleanly), clipped to land by the colour map's
//! shore rule ([`crate::colormap::water_coverage`]), as 8-bit coverage: 255 inside a river, a
//! one-pixel antialiased ramp at its banks, 0 elsewhere and on every lake and the sea.

use ndarray::Array2;
use orogen_world::World;
use orogen_world::color::unit_to_u8;

use crate::ExportError;
use crate::colormap::Shore;
use crate::grid::PixelGrid;
use crate::stroke::StrokeStyle;

/// The river mask of a world at the grid's size (`[row, col]`, row 0 north).
pub fn river_mask(
    world: &World,
    grid: &PixelGrid,
    style: &StrokeStyle,
) -> Result<Array2<u8>, ExportError> {
    let shore = Shore::without_rivers_alone(world, grid)?;
    shore.draw_rivers(world, grid, Some(style))?;
    Ok(river_mask_on(&shore))
}

/// [`river_mask`] from a [`Shore`] built with rivers (all 0 without them).
pub fn river_mask_on(shore: &Shore) -> Array2<u8> {
    let (nx, ny) = shore.size();
    let bytes: Vec<u8> = match shore.rivers() {
        Some(cover) => cover.iter().map(|&v| unit_to_u8(v)).collect(),
        None => vec![0; nx * ny],
    };
    Array2::from_shape_vec((ny, nx), bytes).expect("one value per pixel")
}
