//! The classic landscape's heightmap as a pipeline step: a (2^n + 1)^2 diamond-square grid (or
//! raster fBm) normalised to [0, 1], written to `raster_elevation` with no mesh needed.

use orogen_world::params::{ParamError, ParamInfo, Spec, check_specs, describe_specs};
use orogen_world::{Domain, World};
use serde::{Deserialize, Serialize};

use crate::raster::{CornerSeed, DiamondSquare, MAX_LEVELS};
use crate::{Error, FbmParams, Params, RasterParams, RasterSource, raster_elevation};

/// The classic heightmap's source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClassicSource {
    /// Diamond-square (midpoint displacement), the article's full example.
    #[default]
    DiamondSquare,
    /// fBm of gradient noise sampled on the grid's vertices.
    Fbm,
}

/// The classic heightmap's parameters (the landscape article's numbers as defaults).
///
/// Each field's default, range and unit are stated once, in [`Self::SPECS`] (`orogen params`
/// lists them all).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClassicParams {
    /// Diamond-square or fBm. Allowed: diamond-square, fbm.
    pub source: ClassicSource,
    /// Grid side in samples.
    pub size: usize,
    /// Diamond-square's first displacement range r, halved each level.
    pub roughness: f32,
    /// Diamond-square's corner seeding.
    pub corners: CornerSeed,
    /// The fBm of `source = fbm`.
    pub fbm: FbmParams,
}

impl Default for ClassicParams {
    fn default() -> Self {
        ClassicParams {
            source: ClassicSource::DiamondSquare,
            size: 257,
            roughness: 0.65,
            corners: CornerSeed::Fixed(0.5),
            fbm: FbmParams::default(),
        }
    }
}

impl ClassicParams {
    /// Every parameter outside the fBm, described once.
    pub const SPECS: &[Spec<ClassicParams>] = &[
        Spec::choice(
            "source",
            "Classic heightmap source",
            &["diamond-square", "fbm"],
        ),
        Spec::int(
            "size",
            "Classic heightmap side, 2^n + 1",
            3,
            (1 << MAX_LEVELS) + 1,
            |p: &ClassicParams| p.size as i128,
        ),
        Spec::float(
            "roughness",
            "Diamond-square roughness, halved each level",
            0.0,
            10.0,
            |p: &ClassicParams| p.roughness.into(),
        ),
        Spec::other(
            "corners",
            "Diamond-square corner seeding",
            "{ fixed = V } with V in -10 ..= 10, or \"random\" (uniform in [-1, 1])",
        ),
    ];

    /// Every parameter (paths relative to these params).
    pub fn param_table() -> Vec<ParamInfo> {
        let mut rows = describe_specs("", Self::SPECS);
        rows.extend(describe_specs("fbm.", FbmParams::SPECS));
        rows
    }

    /// Checks every field.
    pub fn validate(&self) -> Result<(), ParamError> {
        let max = (1usize << MAX_LEVELS) + 1;
        check_specs(self, Self::SPECS)?;
        if !(self.size - 1).is_power_of_two() {
            return Err(ParamError::new(
                "size",
                self.size,
                format!("2^n + 1 (3, 5, 9, ..., 257, ..., {max})"),
            ));
        }
        self.diamond_square().validate()?;
        self.fbm.validate().map_err(|e| e.prefixed("fbm."))?;
        Ok(())
    }

    fn diamond_square(&self) -> DiamondSquare {
        DiamondSquare {
            levels: (self.size.max(2) - 1).ilog2(),
            roughness: self.roughness,
            corners: self.corners,
        }
    }
}

/// Writes `raster_elevation` (Raster f32 `size x size`, [0, 1], the lowest sample exactly 0 and
/// the highest exactly 1; vertex sampling `(col W / (size - 1), row H / (size - 1))`) from the
/// world's seed, through the same kernels and seeds as [`crate::raster_elevation`]. The map must
/// be square. Needs no mesh.
pub fn run_classic(world: &mut World, params: &ClassicParams) -> Result<(), Error> {
    params.validate()?;
    let meta = &world.meta;
    if meta.width != meta.height {
        return Err(ParamError::new(
            "map size",
            format!("{}x{}", meta.width, meta.height),
            "a square map (the classic heightmap samples a 2^n + 1 vertex grid)",
        )
        .into());
    }
    let full = Params {
        fbm: params.fbm.clone(),
        raster: RasterParams {
            source: match params.source {
                ClassicSource::DiamondSquare => RasterSource::DiamondSquare,
                ClassicSource::Fbm => RasterSource::Fbm,
            },
            diamond_square: params.diamond_square(),
            fbm_side: params.size,
            drive_regions: false,
        },
        ..Params::default()
    };
    let raster = raster_elevation(&full, meta.seed, meta.width, meta.height)?
        .expect("a classic source is never none");
    world.set_layer("raster_elevation", Domain::Raster, raster.into_dyn())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use orogen_world::WorldMeta;

    fn heightmap(params: &ClassicParams, seed: u64) -> ndarray::Array2<f32> {
        let mut world = World::new(WorldMeta {
            seed,
            ..WorldMeta::default()
        });
        run_classic(&mut world, params).unwrap();
        world.view2::<f32>("raster_elevation").unwrap().to_owned()
    }

    #[test]
    fn both_sources_fill_the_grid_and_span_zero_to_one() {
        for source in [ClassicSource::DiamondSquare, ClassicSource::Fbm] {
            let params = ClassicParams {
                source,
                size: 65,
                ..ClassicParams::default()
            };
            let h = heightmap(&params, 3);
            assert_eq!(h.dim(), (65, 65));
            let lo = h.iter().copied().fold(f32::INFINITY, f32::min);
            let hi = h.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            assert_eq!((lo, hi), (0.0, 1.0), "{source:?}");
            assert_eq!(h, heightmap(&params, 3));
            assert_ne!(h, heightmap(&params, 4));
        }
    }

    #[test]
    fn sizes_that_are_not_two_to_the_n_plus_one_and_bad_maps_are_refused() {
        for size in [0, 2, 256, 258, 100] {
            let params = ClassicParams {
                size,
                ..ClassicParams::default()
            };
            let err = params.validate().unwrap_err();
            assert_eq!(err.param, "size", "{size}");
        }
        assert!(ClassicParams::default().validate().is_ok());
        let mut world = World::new(WorldMeta {
            width: 2.0,
            ..WorldMeta::default()
        });
        let err = run_classic(&mut world, &ClassicParams::default()).unwrap_err();
        assert!(err.to_string().contains("square"), "{err}");
    }
}
