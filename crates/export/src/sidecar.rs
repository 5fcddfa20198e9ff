//! `world.json`: what a run was and what it wrote.

use serde::Serialize;

use crate::grid::PixelGrid;
use crate::heights::Normalize;

/// The sidecar every run writes beside its outputs.
#[derive(Debug, Serialize)]
pub struct WorldJson<'a> {
    /// The orogen version that wrote the files.
    pub orogen_version: &'a str,
    /// The world seed.
    pub seed: u64,
    /// Every parameter of the run (the full configuration).
    pub config: &'a serde_json::Value,
    /// How rasters sample the map.
    pub sampling: Option<SamplingJson>,
    /// How heights map to metres and 16 bits.
    pub height_mapping: HeightMapping,
    /// The files written, in order.
    pub files: &'a [String],
}

/// The raster sampling recorded in the sidecar.
#[derive(Debug, Serialize)]
pub struct SamplingJson {
    /// Pixel centres (images) or grid vertices (engine heightmaps).
    pub kind: crate::grid::Sampling,
    /// Raster width in pixels (west to east).
    pub width_px: usize,
    /// Raster height in pixels (north to south).
    pub height_px: usize,
    /// The axes' directions, in words.
    pub axes: &'static str,
}

impl From<&PixelGrid> for SamplingJson {
    fn from(grid: &PixelGrid) -> Self {
        SamplingJson {
            kind: grid.sampling,
            width_px: grid.nx,
            height_px: grid.ny,
            axes: "x right (east), y down (south); row 0 is the north edge",
        }
    }
}

/// The height mapping recorded in the sidecar.
#[derive(Debug, Serialize)]
pub struct HeightMapping {
    /// Whether the 16-bit range is the fixed one or the world's own min..max.
    pub normalize: Normalize,
    /// The height in metres that 16-bit value 0 stands for.
    pub metres_at_0: f64,
    /// The height in metres that 16-bit value 65535 stands for.
    pub metres_at_65535: f64,
    /// The 16-bit value of sea level (0 m), rounded and clamped.
    pub sea_level_u16: u16,
    /// Sea level in metres (always 0: metres are heights above sea level).
    pub sea_level_m: f64,
    /// Metres at elevation 1, the highest land (the world's `max_height_m`).
    pub max_height_m: f64,
    /// Metres below sea level at elevation -1, the deepest water (the world's `max_depth_m`).
    pub max_depth_m: f64,
    /// The map's width (west to east) in metres.
    pub world_size_m: f64,
    /// The map's height (north to south) in metres.
    pub world_size_y_m: f64,
    /// The engine the heightmap's size and sampling were chosen for.
    pub engine: crate::engine::Engine,
    /// Unreal's landscape import scale and offset (`--engine unreal` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreal: Option<crate::engine::UnrealTransform>,
}

impl HeightMapping {
    /// The mapping for a metre range (at 0, at 65535).
    pub fn new(meta: &orogen_world::WorldMeta, normalize: Normalize, range: (f64, f64)) -> Self {
        HeightMapping {
            normalize,
            metres_at_0: range.0,
            metres_at_65535: range.1,
            sea_level_u16: crate::heights::to_u16(0.0, range),
            sea_level_m: 0.0,
            max_height_m: meta.max_height_m,
            max_depth_m: meta.max_depth_m,
            world_size_m: meta.world_size_m,
            world_size_y_m: meta.world_size_m * meta.height / meta.width,
            engine: crate::engine::Engine::None,
            unreal: None,
        }
    }
}

impl WorldJson<'_> {
    /// Writes the sidecar as pretty JSON.
    pub fn write(&self, w: &mut dyn std::io::Write) -> Result<(), crate::ExportError> {
        serde_json::to_writer_pretty(&mut *w, self)
            .map_err(|e| crate::ExportError::encode("world.json", e))?;
        w.write_all(b"\n").map_err(crate::atomic::io("world.json"))
    }
}
