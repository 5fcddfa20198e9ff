//! orogen's elevation stage: land shaped by noise and anchors, the coastal/inland power curve,
//! ocean and enclosed water; and raster elevation sources (diamond-square, raster fBm) for the
//! classic landscape.
//!
//! The steps, each a kernel on plain arrays that a user can call with their own points or graph:
//!
//! 1. [`noise::Fbm`]: `noise01` at every region position (fBm of Perlin or simplex noise, in
//!    parallel with rayon; the normalisation is pinned so the default land fraction matches the
//!    reference: see [`noise`]).
//! 2. [`anchors::place`]: the land anchors (`random`, a preset, or `custom` points), and
//!    `base = noise01 - (d / (0.5 min(W, H)))^2` with `d` the distance to the nearest anchor
//!    ([`base_heights`]).
//! 3. [`shape::elevation`]: land where `base > water_level`, shaped by the [`shape::PowerCurve`]
//!    and normalised as the conventions say (land in (0, 1], the highest exactly 1; water in
//!    [-1, 0), the deepest exactly -1).
//! 4. [`shape::water_kind`]: ocean (water connected through water to the border) versus enclosed
//!    water; [`shape::corner_mean`]: a corner's elevation is the mean of its three regions.
//!
//! [`run`] adapts them to the pipeline: it reads the mesh and writes `region_elevation`,
//! `corner_elevation` (f32), `region_water` (u8) and `land_anchors` (f64, n x 2), and
//! `raster_elevation` when a raster source is asked for ([`RasterParams`]). [`run_classic`]
//! writes only `raster_elevation` (no mesh needed), for the classic landscape.
//!
//! ```
//! use ndarray::arr2;
//! use orogen_elevation::{anchors, base_heights, noise::{Fbm, FbmParams}, shape};
//!
//! // Four points of a unit map, one anchor in the middle.
//! let points = arr2(&[[0.5, 0.5], [0.52, 0.5], [0.02, 0.03], [0.97, 0.98]]);
//! let fbm = Fbm::new(&FbmParams::default(), 42, 1.0)?;
//! let base = base_heights(points.view(), &fbm, &[[0.5, 0.5]], 0.5);
//! let e = shape::elevation(base.view(), 0.0, &shape::PowerCurve::default());
//! // Far from the anchor is under water, whatever the noise.
//! assert!(e[2] < 0.0 && e[3] < 0.0);
//! assert!(e.iter().all(|v| (-1.0..=1.0).contains(v)));
//! # Ok::<(), orogen_world::params::ParamError>(())
//! ```

#![warn(missing_docs)]

pub mod anchors;
mod classic;
pub mod noise;
pub mod raster;
pub mod shape;

use ndarray::{Array1, Array2, ArrayView2, Axis, Zip};
use orogen_world::params::{ParamError, ParamInfo, Spec, check_specs, describe_specs, in_range};
use orogen_world::{Domain, World, WorldError, seed};
use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use anchors::Layout;
pub use classic::{ClassicParams, ClassicSource, run_classic};
pub use noise::{Basis, Fbm, FbmParams};
pub use raster::{CornerSeed, DiamondSquare};
pub use shape::PowerCurve;

/// The stage name: its seed is `stage_seed(world_seed, "elevation")`.
pub const STAGE: &str = "elevation";

/// What the elevation stage can fail with.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// A parameter out of range.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// The world lacks the mesh or a layer is malformed.
    #[error(transparent)]
    World(#[from] WorldError),
}

/// Which raster elevation source to compute into `raster_elevation`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RasterSource {
    /// No raster (default).
    #[default]
    None,
    /// Diamond-square on a (2^levels + 1)^2 grid.
    DiamondSquare,
    /// The stage's fBm sampled on a `fbm_side x fbm_side` vertex grid.
    Fbm,
}

/// The raster elevation source of the classic landscape.
///
/// Each field's default, range and unit are stated once, in [`Params::SPECS`] (`orogen params`
/// lists them all).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RasterParams {
    /// Which source. Allowed: none, diamond-square, fbm.
    pub source: RasterSource,
    /// Diamond-square parameters.
    pub diamond_square: DiamondSquare,
    /// Side of the raster-fBm grid.
    pub fbm_side: usize,
    /// Sample the raster bilinearly for the regions' `noise01` instead of point noise.
    pub drive_regions: bool,
}

impl Default for RasterParams {
    fn default() -> Self {
        RasterParams {
            source: RasterSource::None,
            diamond_square: DiamondSquare::default(),
            fbm_side: 1025,
            drive_regions: false,
        }
    }
}

/// The elevation stage's parameters.
///
/// Each field's default, range and unit are stated once, in [`Self::SPECS`] (`orogen params`
/// lists them all).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// The fBm.
    pub fbm: FbmParams,
    /// Where the land anchors go. Allowed: random, four-corners, centre-island, two-continents-ew,
    /// two-continents-ns, archipelago-ring, cross, custom.
    pub layout: Layout,
    /// Random anchors.
    pub land_centers: usize,
    /// Custom anchors in map coordinates (x right, y down), used by `layout = custom`; each inside
    /// [0, W] x [0, H].
    pub anchors: Vec<[f64; 2]>,
    /// The coastal/inland power curve.
    pub curve: PowerCurve,
    /// The raster elevation source.
    pub raster: RasterParams,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            fbm: FbmParams::default(),
            layout: Layout::Random,
            land_centers: 5,
            anchors: Vec::new(),
            curve: PowerCurve::default(),
            raster: RasterParams::default(),
        }
    }
}

impl Params {
    /// Every parameter outside the fBm, the curve and diamond-square, described once.
    pub const SPECS: &[Spec<Params>] = &[
        Spec::choice(
            "layout",
            "Anchor layout",
            &[
                "random",
                "four-corners",
                "centre-island",
                "two-continents-ew",
                "two-continents-ns",
                "archipelago-ring",
                "cross",
                "custom",
            ],
        ),
        Spec::int(
            "land_centers",
            "Random land anchors (layout random)",
            1,
            anchors::MAX_ANCHORS as i128,
            |p: &Params| p.land_centers as i128,
        ),
        Spec::other(
            "anchors",
            "Custom land anchors in map coordinates (x right, y down; layout custom)",
            "[[x, y], ...] inside the map",
        ),
        Spec::choice(
            "raster.source",
            "Raster elevation source",
            &["none", "diamond-square", "fbm"],
        ),
        Spec::int(
            "raster.fbm_side",
            "Side of the raster-fBm grid",
            2,
            8193,
            |p: &Params| p.raster.fbm_side as i128,
        ),
        Spec::other(
            "raster.drive_regions",
            "Sample the raster for the regions' noise instead of point noise",
            "true only with a raster source",
        ),
    ];

    /// Every parameter of the stage (paths relative to these params).
    pub fn param_table() -> Vec<ParamInfo> {
        let mut rows = describe_specs("fbm.", FbmParams::SPECS);
        rows.extend(describe_specs("", Self::SPECS));
        rows.extend(describe_specs("curve.", PowerCurve::SPECS));
        rows.extend(describe_specs(
            "raster.diamond_square.",
            DiamondSquare::SPECS,
        ));
        rows
    }

    /// Checks every field that does not depend on the map; see also [`Params::validate_for_map`].
    pub fn validate(&self) -> Result<(), ParamError> {
        self.fbm.validate().map_err(|e| e.prefixed("fbm."))?;
        check_specs(self, Self::SPECS)?;
        self.curve.validate().map_err(|e| e.prefixed("curve."))?;
        self.raster
            .diamond_square
            .validate()
            .map_err(|e| e.prefixed("raster.diamond_square."))?;
        if self.raster.drive_regions && self.raster.source == RasterSource::None {
            return Err(ParamError::new(
                "raster.drive_regions",
                true,
                "true only with a raster source (diamond-square or fbm)",
            ));
        }
        if self.layout == Layout::Custom && self.anchors.is_empty() {
            return Err(ParamError::new(
                "anchors",
                "none",
                "1 ..= 1000 points for layout custom",
            ));
        }
        for (i, a) in self.anchors.iter().enumerate() {
            orogen_world::params::finite(&format!("anchors[{i}].x"), a[0])?;
            orogen_world::params::finite(&format!("anchors[{i}].y"), a[1])?;
        }
        Ok(())
    }

    /// [`Params::validate`], then the custom anchors against a `width x height` map (whenever
    /// any are given: an anchor outside the map is a mistake even where the layout ignores it).
    pub fn validate_for_map(&self, width: f64, height: f64) -> Result<(), ParamError> {
        self.validate()?;
        if self.layout == Layout::Custom || !self.anchors.is_empty() {
            anchors::validate_custom(&self.anchors, width, height)?;
        }
        Ok(())
    }
}

/// `base = noise01 - (d / half_side)^2` for every row of an `n x 2` position array, in parallel:
/// `d` is the distance to the nearest anchor and `half_side` is `0.5 min(W, H)`.
pub fn base_heights(
    positions: ArrayView2<'_, f64>,
    fbm: &Fbm,
    anchors: &[[f64; 2]],
    half_side: f64,
) -> Array1<f64> {
    let mut out = Array1::zeros(positions.nrows());
    Zip::from(&mut out)
        .and(positions.axis_iter(Axis(0)))
        .par_for_each(|o, p| {
            *o = fbm.noise01(p[0], p[1]) - anchors::falloff(p[0], p[1], anchors, half_side);
        });
    out
}

/// The raster of `params.raster.source` (normalised to [0, 1], vertex sampling over the map:
/// pixel (col, row) at `(col W / (n - 1), row H / (n - 1))`), or `None`.
pub fn raster_elevation(
    params: &Params,
    world_seed: u64,
    width: f64,
    height: f64,
) -> Result<Option<Array2<f32>>, ParamError> {
    let stage_seed = seed::stage_seed(world_seed, STAGE);
    let unit = width.min(height);
    let mut raster = match params.raster.source {
        RasterSource::None => return Ok(None),
        RasterSource::DiamondSquare => params
            .raster
            .diamond_square
            .generate(seed::item_seed(stage_seed, 2))?,
        RasterSource::Fbm => {
            let n = params.raster.fbm_side;
            raster::fbm_raster(
                &params.fbm,
                seed::item_seed(stage_seed, 0),
                unit,
                n,
                n,
                (0.0, 0.0),
                (width / (n - 1) as f64, height / (n - 1) as f64),
            )?
        }
    };
    raster::normalize01(&mut raster);
    Ok(Some(raster))
}

/// The part of the stage that neither the water level nor the power curve can change: the
/// land anchors, the raster source and every region's base height. A caller that changes only
/// those two may keep it and run [`run_on_base`] again (the playground does).
#[derive(Clone, Debug)]
pub struct Base {
    anchors: Vec<[f64; 2]>,
    raster: Option<Array2<f32>>,
    base: Array1<f64>,
}

/// Runs the stage on a world with a mesh: writes `region_elevation`, `corner_elevation`,
/// `region_water`, `land_anchors`, and `raster_elevation` when a raster source is set.
/// Parameters are checked before any work.
pub fn run(world: &mut World, params: &Params) -> Result<(), Error> {
    in_range("water_level", world.meta.water_level, 0.0..=1.0)?;
    let base = base(world, params)?;
    run_on_base(world, params, &base)
}

/// The [`Base`] of a world with a mesh (parameters checked first).
pub fn base(world: &World, params: &Params) -> Result<Base, Error> {
    let meta = world.meta.clone();
    params.validate_for_map(meta.width, meta.height)?;
    let mesh = world.mesh()?;
    let stage_seed = seed::stage_seed(meta.seed, STAGE);
    let mut rng = seed::rng_from_seed(stage_seed);
    let anchors = anchors::place(
        params.layout,
        params.land_centers,
        &params.anchors,
        meta.width,
        meta.height,
        &mut rng,
    )?;
    let unit = meta.width.min(meta.height);
    let half_side = 0.5 * unit;
    let fbm = Fbm::new(&params.fbm, seed::item_seed(stage_seed, 0), unit)?;
    let raster = raster_elevation(params, meta.seed, meta.width, meta.height)?;
    let base = match (&raster, params.raster.drive_regions) {
        (Some(r), true) => {
            let mut out = Array1::zeros(mesh.n_regions());
            Zip::from(&mut out)
                .and(mesh.region_xy.axis_iter(Axis(0)))
                .par_for_each(|o, p| {
                    let n01 = f64::from(raster::sample_bilinear(
                        r.view(),
                        meta.width,
                        meta.height,
                        p[0],
                        p[1],
                    ));
                    *o = n01 - anchors::falloff(p[0], p[1], &anchors, half_side);
                });
            out
        }
        _ => base_heights(mesh.region_xy.view(), &fbm, &anchors, half_side),
    };
    Ok(Base {
        anchors,
        raster,
        base,
    })
}

/// The rest of the stage on a [`Base`] made by [`base`] for this world's mesh, seed and map
/// size with the same parameters but the curve: the same layers as [`run`].
pub fn run_on_base(world: &mut World, params: &Params, base: &Base) -> Result<(), Error> {
    let meta = world.meta.clone();
    params.curve.validate().map_err(|e| e.prefixed("curve."))?;
    in_range("water_level", meta.water_level, 0.0..=1.0)?;
    let mesh = world.mesh()?;
    let anchors = &base.anchors;
    let raster = base.raster.clone();
    let base = &base.base;
    let region_elevation = shape::elevation(base.view(), meta.water_level, &params.curve);
    let region_water = shape::water_kind(
        region_elevation.view(),
        mesh.region_is_boundary.view(),
        &mesh.region_neighbors,
    );
    let corner_elevation = shape::corner_mean(region_elevation.view(), mesh.corner_regions.view());
    let anchors_array = Array2::from_shape_vec(
        (anchors.len(), 2),
        anchors.iter().flatten().copied().collect(),
    )
    .expect("n x 2 anchors");
    world.set_layer(
        "region_elevation",
        Domain::Region,
        region_elevation.into_dyn(),
    )?;
    world.set_layer(
        "corner_elevation",
        Domain::Corner,
        corner_elevation.into_dyn(),
    )?;
    world.set_layer("region_water", Domain::Region, region_water.into_dyn())?;
    world.set_layer("land_anchors", Domain::Free, anchors_array.into_dyn())?;
    if let Some(r) = raster {
        world.set_layer("raster_elevation", Domain::Raster, r.into_dyn())?;
    } else {
        world.remove_layer("raster_elevation");
    }
    Ok(())
}
