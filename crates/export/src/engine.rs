//! Engine heightmap sizes and the Unreal Z scale.
//!
//! Unity terrains take square heightmaps of 2^n + 1 samples (33 ..= 4097), Unreal landscapes
//! one of its recommended sizes (127 ..= 8129), both sampling grid vertices (the map's edges and
//! corners are samples). Godot takes the 32-bit float EXR at any size. Without an engine the
//! heightmap samples pixel centres at any size.

use orogen_world::params::ParamError;
use serde::{Deserialize, Serialize};

use crate::grid::PixelGrid;

/// Unity's heightmap resolutions.
pub const UNITY_SIZES: [usize; 8] = [33, 65, 129, 257, 513, 1025, 2049, 4097];
/// Unreal's recommended landscape sizes.
pub const UNREAL_SIZES: [usize; 7] = [127, 253, 505, 1009, 2017, 4033, 8129];

/// The engine the heightmap is meant for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// No engine: pixel centres at any size (default).
    #[default]
    None,
    /// Unity: 2^n + 1 vertices, 33 ..= 4097 (default 1025).
    Unity,
    /// Unreal: 127, 253, 505, 1009, 2017, 4033 or 8129 vertices (default 1009).
    Unreal,
    /// Godot: the float EXR, vertices, any size (default: the resolution).
    Godot,
}

impl Engine {
    /// Parses `none`, `unity`, `unreal` or `godot`.
    pub fn parse(text: &str) -> Result<Self, ParamError> {
        match text {
            "none" => Ok(Engine::None),
            "unity" => Ok(Engine::Unity),
            "unreal" => Ok(Engine::Unreal),
            "godot" => Ok(Engine::Godot),
            other => Err(ParamError::new(
                "engine",
                other,
                "none, unity, unreal or godot",
            )),
        }
    }

    /// The sizes the engine accepts (`None` for any size).
    pub fn allowed_sizes(self) -> Option<&'static [usize]> {
        match self {
            Engine::Unity => Some(&UNITY_SIZES),
            Engine::Unreal => Some(&UNREAL_SIZES),
            Engine::None | Engine::Godot => None,
        }
    }

    /// The heightmap side when none is given: 1025 for Unity, 1009 for Unreal, else
    /// `resolution`.
    pub fn default_size(self, resolution: usize) -> usize {
        match self {
            Engine::Unity => 1025,
            Engine::Unreal => 1009,
            Engine::None | Engine::Godot => resolution,
        }
    }

    /// The raster grid of every heightmap-sized output: `size` (or the engine's default) across
    /// a `width x height` map. Engines sample vertices and need a square map; a size the engine
    /// refuses is an error naming the allowed sizes.
    pub fn grid(
        self,
        size: Option<usize>,
        resolution: usize,
        width: f64,
        height: f64,
    ) -> Result<PixelGrid, ParamError> {
        if let Some(n) = size {
            orogen_world::params::in_range("heightmap_size", n, 2..=crate::grid::MAX_SIDE)?;
        }
        let n = size.unwrap_or_else(|| self.default_size(resolution));
        if self != Engine::None && (width - height).abs() > 1e-12 * width.max(height) {
            return Err(ParamError::new(
                "engine",
                self.name(),
                format!(
                    "none on a {width}x{height} map: engine grids sample vertices of a square map"
                ),
            ));
        }
        if let Some(allowed) = self.allowed_sizes()
            && !allowed.contains(&n)
        {
            let list: Vec<String> = allowed.iter().map(usize::to_string).collect();
            return Err(ParamError::new(
                "heightmap_size",
                n,
                format!("one of {} for --engine {}", list.join(", "), self.name()),
            ));
        }
        match self {
            Engine::None => PixelGrid::centres(n, width, height),
            _ => PixelGrid::vertices(n, width, height),
        }
    }

    /// The lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            Engine::None => "none",
            Engine::Unity => "unity",
            Engine::Unreal => "unreal",
            Engine::Godot => "godot",
        }
    }
}

/// Unreal's landscape import transform for a 16-bit heightmap whose values 0 and 65535 are
/// `metres_at_0` and `metres_at_65535`: at Z scale 100 the 16-bit range spans 512 m centred on
/// value 32768, so Z scale = 100 * span / 512 m, and the Z offset (centimetres, the actor's Z)
/// puts value 32768 at its height above sea level.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct UnrealTransform {
    /// The landscape's Z scale (percent).
    pub z_scale: f64,
    /// The landscape actor's Z location in centimetres (sea level at Z = 0).
    pub z_offset_cm: f64,
    /// The landscape's X and Y scale (centimetres per vertex step).
    pub xy_scale: f64,
}

impl UnrealTransform {
    /// The transform for a metre range and an `n`-vertex square heightmap `world_size_m` wide.
    pub fn new((lo, hi): (f64, f64), n: usize, world_size_m: f64) -> Self {
        let span = hi - lo;
        // Value v lands at z_offset + (v - 32768) / 65536 * 512 m * z_scale / 100.
        let metres_at_32768 = lo + span * 32768.0 / 65535.0;
        UnrealTransform {
            z_scale: 100.0 * span * (65536.0 / 65535.0) / 512.0,
            z_offset_cm: metres_at_32768 * 100.0,
            xy_scale: world_size_m * 100.0 / (n.max(2) - 1) as f64,
        }
    }

    /// The metres Unreal shows for 16-bit value `v`.
    pub fn metres(&self, v: u16) -> f64 {
        self.z_offset_cm / 100.0 + (f64::from(v) - 32768.0) / 65536.0 * 512.0 * self.z_scale / 100.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_sizes_are_enforced_with_a_one_line_error() {
        for &n in &UNITY_SIZES {
            assert_eq!((n - 1).count_ones(), 1, "{n} is 2^k + 1");
            let g = Engine::Unity.grid(Some(n), 1024, 1.0, 1.0).unwrap();
            assert_eq!(
                (g.nx, g.ny, g.sampling),
                (n, n, crate::grid::Sampling::Vertices)
            );
        }
        for &n in &UNREAL_SIZES {
            let g = Engine::Unreal.grid(Some(n), 1024, 1.0, 1.0).unwrap();
            assert_eq!((g.nx, g.ny), (n, n));
        }
        let err = Engine::Unity
            .grid(Some(1024), 1024, 1.0, 1.0)
            .unwrap_err()
            .to_string();
        assert!(!err.contains('\n'));
        assert!(
            err.contains("1024") && err.contains("33, 65, 129") && err.contains("4097"),
            "{err}"
        );
        let err = Engine::Unreal
            .grid(Some(1025), 1024, 1.0, 1.0)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("127, 253, 505, 1009, 2017, 4033, 8129"),
            "{err}"
        );
        assert!(Engine::Unreal.grid(Some(8129), 1024, 1.0, 1.0).is_ok());
        // Defaults, any size for Godot, centres without an engine, square maps for engines.
        assert_eq!(Engine::Unity.grid(None, 1024, 1.0, 1.0).unwrap().nx, 1025);
        assert_eq!(Engine::Unreal.grid(None, 1024, 1.0, 1.0).unwrap().nx, 1009);
        assert_eq!(
            Engine::Godot.grid(Some(1000), 1024, 1.0, 1.0).unwrap().nx,
            1000
        );
        let free = Engine::None.grid(Some(300), 1024, 2.0, 1.0).unwrap();
        assert_eq!(
            (free.nx, free.ny, free.sampling),
            (300, 150, crate::grid::Sampling::PixelCentres)
        );
        assert!(Engine::Unity.grid(Some(1025), 1024, 2.0, 1.0).is_err());
        assert!(Engine::parse("unity").is_ok() && Engine::parse("cryengine").is_err());
    }

    #[test]
    fn unreal_z_scale_100_spans_512_m_centred_on_32768() {
        let t = UnrealTransform::new((-256.0, 256.0 * 65535.0 / 65536.0 * 2.0 - 256.0), 1009, 1e5);
        assert!((t.z_scale - 100.0).abs() < 1e-9, "{}", t.z_scale);
        // The fixed default range [-1000, 2000] m: 0 and 65535 land on their metres.
        let t = UnrealTransform::new((-1000.0, 2000.0), 1009, 100_000.0);
        assert!((t.metres(0) + 1000.0).abs() < 1e-6, "{}", t.metres(0));
        assert!(
            (t.metres(65535) - 2000.0).abs() < 1e-6,
            "{}",
            t.metres(65535)
        );
        assert!((t.xy_scale - 100_000.0 * 100.0 / 1008.0).abs() < 1e-9);
    }
}
