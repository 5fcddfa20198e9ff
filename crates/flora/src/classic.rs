//! The classic landscape's trees: Poisson-disc points kept in an elevation band, sized by
//! elevation, each drawn with one of a few space-colonised 2-D silhouettes.
//!
//! [`classic_trees`] works on a heightmap you bring (`[row, col]`, vertex sampling over a
//! `width x height` map, sampled bilinearly); [`run_classic`] adapts it to the pipeline.

use ndarray::{Array2, ArrayView2};
use orogen_sampling::{Rect, poisson_disc, unit_f64};
use orogen_world::interp::sample_bilinear;
use orogen_world::params::{ParamError, ParamInfo, Spec, check_specs, describe_specs, in_range};
use orogen_world::{Domain, Layer, World, seed};
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::colonize::{GrowthParams, Skeleton, grow_2d};
use crate::species::{Envelope, Species, Storey};
use crate::stage::skeleton_rows;

/// The name of the stage's seed: `stage_rng(world_seed, "flora")`.
pub const STAGE: &str = "flora";

/// The classic trees' parameters (the landscape article's numbers as defaults). Pixel lengths
/// are on a canvas `canvas_px` pixels across the map's width; stored layers are in map units.
///
/// Each field's default, range and unit are stated once, in [`Self::SPECS`] (`orogen params`
/// lists them all).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClassicTreeParams {
    /// The canvas the pixel lengths refer to.
    pub canvas_px: f64,
    /// Poisson-disc minimum distance between trees, in canvas pixels.
    pub spacing_px: f64,
    /// Poisson-disc candidates per active point.
    pub k: usize,
    /// Trees grow where the heightmap is at least this.
    pub min_elevation: f32,
    /// ... and at most this.
    pub max_elevation: f32,
    /// Crown width in canvas pixels at `min_elevation` and at `max_elevation`, linear between.
    pub size_px: [f64; 2],
    /// The silhouette species, from the lowest trees to the highest: a tree's species is its place
    /// in the elevation band (plus `species_jitter`) cut into equal parts. Only the 2-D fields
    /// matter (envelope, crown base and radius, `attractors_2d`).
    pub species: Vec<Species>,
    /// Silhouettes grown per species.
    pub silhouettes_per_species: u32,
    /// Random shift of a tree's place in the elevation band before picking its species, so species
    /// mix at their border.
    pub species_jitter: f64,
    /// Space colonisation of the silhouettes (lengths in tree heights).
    pub growth: GrowthParams,
}

impl Default for ClassicTreeParams {
    fn default() -> Self {
        let silhouette = |name: &str, envelope, crown_base, crown_radius| Species {
            name: name.into(),
            storey: Storey::Canopy,
            envelope,
            crown_base,
            crown_radius,
            attractors_2d: 200,
            ..Species::default()
        };
        ClassicTreeParams {
            canvas_px: 1024.0,
            spacing_px: 18.0,
            k: 30,
            min_elevation: 0.43,
            max_elevation: 0.72,
            size_px: [3.0, 8.0],
            species: vec![
                silhouette("broadleaf", Envelope::Ellipsoid, 0.3, 0.34),
                silhouette("spruce", Envelope::Cone, 0.15, 0.24),
            ],
            silhouettes_per_species: 3,
            species_jitter: 0.15,
            growth: GrowthParams::default(),
        }
    }
}

impl ClassicTreeParams {
    /// Every parameter outside the growth, described once.
    pub const SPECS: &[Spec<ClassicTreeParams>] = &[
        Spec::float(
            "canvas_px",
            "The canvas the pixel lengths refer to",
            16.0,
            32768.0,
            |p: &ClassicTreeParams| p.canvas_px,
        )
        .unit("px"),
        Spec::float(
            "spacing_px",
            "Minimum distance between classic trees",
            1.0,
            10_000.0,
            |p: &ClassicTreeParams| p.spacing_px,
        )
        .unit("px"),
        Spec::int(
            "k",
            "Poisson-disc candidates per active point",
            1,
            10_000,
            |p: &ClassicTreeParams| p.k as i128,
        ),
        Spec::float(
            "min_elevation",
            "Trees grow where the heightmap is at least this",
            0.0,
            1.0,
            |p: &ClassicTreeParams| p.min_elevation.into(),
        ),
        Spec::other(
            "max_elevation",
            "Trees grow where the heightmap is at most this",
            "min_elevation ..= 1",
        ),
        Spec::other(
            "size_px",
            "Crown width at min_elevation and at max_elevation, linear between",
            "[a, b] with 0.1 <= a <= b <= 1000",
        )
        .unit("px"),
        Spec::other(
            "species",
            "The silhouette species, from the lowest trees to the highest",
            "1 ..= 16 species",
        ),
        Spec::int(
            "silhouettes_per_species",
            "Silhouettes grown per species",
            1,
            64,
            |p: &ClassicTreeParams| p.silhouettes_per_species.into(),
        ),
        Spec::float(
            "species_jitter",
            "Random shift of a tree's place in the elevation band before picking its species",
            0.0,
            1.0,
            |p: &ClassicTreeParams| p.species_jitter,
        ),
    ];

    /// Every parameter (paths relative to these params).
    pub fn param_table() -> Vec<ParamInfo> {
        let mut rows = describe_specs("", Self::SPECS);
        rows.extend(describe_specs("growth.", GrowthParams::SPECS));
        rows
    }

    /// Checks every field.
    pub fn validate(&self) -> Result<(), ParamError> {
        check_specs(self, Self::SPECS)?;
        let ratio = self.canvas_px * self.canvas_px / (self.spacing_px * self.spacing_px);
        if ratio > orogen_sampling::MAX_AREA_OVER_R2 {
            return Err(ParamError::new(
                "spacing_px",
                self.spacing_px,
                format!(
                    "at least canvas_px / {:.0} (at most 5e7 points' worth of canvas)",
                    orogen_sampling::MAX_AREA_OVER_R2.sqrt()
                ),
            ));
        }
        in_range(
            "max_elevation",
            self.max_elevation,
            self.min_elevation..=1.0,
        )?;
        in_range("size_px[0]", self.size_px[0], 0.1..=1000.0)?;
        in_range("size_px[1]", self.size_px[1], self.size_px[0]..=1000.0)?;
        in_range("species", self.species.len(), 1..=16)?;
        for (i, s) in self.species.iter().enumerate() {
            s.validate(&format!("species[{i}]"))?;
        }
        self.growth
            .validate_for_trees()
            .map_err(|e| e.prefixed("growth."))?;
        Ok(())
    }
}

/// Trees of the classic landscape, in map units.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClassicTrees {
    /// Tree positions (the foot of the trunk), map units.
    pub xy: Vec<[f64; 2]>,
    /// Crown widths, map units.
    pub size: Vec<f32>,
    /// The silhouette of each tree (index into `silhouettes`).
    pub model: Vec<u32>,
    /// Side-view skeletons (x, z), root at the origin, z up, unit height;
    /// `species * silhouettes_per_species + k`.
    pub silhouettes: Vec<Skeleton<2>>,
}

/// Places and sizes the classic trees on `elevation` (`[row, col]`, vertex sampling over a
/// `width x height` map) and grows their silhouettes; every random number from `seed`.
/// A tree is kept when the bilinear elevation at its point is in
/// `[min_elevation, max_elevation]`.
pub fn classic_trees(
    elevation: ArrayView2<'_, f32>,
    width: f64,
    height: f64,
    params: &ClassicTreeParams,
    seed: u64,
) -> Result<ClassicTrees, Error> {
    params.validate()?;
    let (ny, nx) = elevation.dim();
    if nx == 0 || ny == 0 {
        return Err(
            ParamError::new("raster_elevation", format!("{ny}x{nx}"), "at least 1x1").into(),
        );
    }
    let px = width / params.canvas_px; // map units per canvas pixel
    let rect = Rect::from_size(params.canvas_px, height / px)?;
    let mut rng = seed::rng_from_seed(seed::item_seed(seed, 0));
    let points = poisson_disc(&mut rng, rect, params.spacing_px, params.k)
        .map_err(|e| ParamError::new("spacing_px", e, "a feasible Poisson disc"))?;
    let (lo, hi) = (params.min_elevation, params.max_elevation);
    let band = f64::from(hi - lo);
    let n_species = params.species.len();
    let per = params.silhouettes_per_species as usize;
    let tree_seed = seed::item_seed(seed, 1);
    let mut trees = ClassicTrees::default();
    for p in points {
        let (x, y) = (p[0] * px, p[1] * px);
        let e = sample_bilinear(elevation, width, height, x, y);
        if !(lo..=hi).contains(&e) {
            continue;
        }
        let t = if band > 0.0 {
            f64::from(e - lo) / band
        } else {
            0.0
        };
        let size = params.size_px[0] + (params.size_px[1] - params.size_px[0]) * t;
        let mut item = seed::rng_from_seed(seed::item_seed(tree_seed, trees.xy.len() as u64));
        let shifted = t + params.species_jitter * (2.0 * unit_f64(&mut item) - 1.0);
        let species = ((shifted.clamp(0.0, 1.0) * n_species as f64) as usize).min(n_species - 1);
        let k = orogen_sampling::index_below(&mut item, per);
        trees.xy.push([x, y]);
        trees.size.push((size * px) as f32);
        trees.model.push((species * per + k) as u32);
    }
    let model_seed = seed::item_seed(seed, 2);
    for (i, s) in params.species.iter().enumerate() {
        for k in 0..per {
            let g = (i * per + k) as u64;
            let mut rng = seed::rng_from_seed(seed::item_seed(model_seed, g));
            let attractors = s.attractors_2d(s.attractors_2d as usize, &mut rng);
            let sk = grow_2d([0.0, 0.0], &attractors, &params.growth, rng.next_u64())?;
            trees.silhouettes.push(sk);
        }
    }
    Ok(trees)
}

/// Reads `raster_elevation` (Raster f32, vertex sampling over the map) and writes
/// `classic_tree_xy` (Free f64 n x 2, map units), `classic_tree_size` (Free f32, crown width in
/// map units), `classic_tree_model` (Free u32), and the silhouettes `classic_tree_nodes` (Free
/// ragged f32 rows x, z, radius; root at the origin, z up, unit height) and
/// `classic_tree_parent` (Free ragged i32, -1 at the root).
pub fn run_classic(world: &mut World, params: &ClassicTreeParams) -> Result<(), Error> {
    let elevation = world.view2::<f32>("raster_elevation")?;
    let (w, h) = (world.meta.width, world.meta.height);
    let trees = classic_trees(
        elevation,
        w,
        h,
        params,
        seed::stage_seed(world.meta.seed, STAGE),
    )?;
    let n = trees.xy.len();
    let xy = Array2::from_shape_fn((n, 2), |(i, k)| trees.xy[i][k]);
    world.set_layer("classic_tree_xy", Domain::Free, xy.into_dyn())?;
    world.set_values("classic_tree_size", Domain::Free, trees.size)?;
    world.set_values("classic_tree_model", Domain::Free, trees.model)?;
    let skeletons: Vec<&Skeleton<2>> = trees.silhouettes.iter().collect();
    let (offsets, rows, parent) = skeleton_rows(&skeletons);
    world.insert_layer(
        "classic_tree_nodes",
        Layer::ragged(Domain::Free, offsets.clone(), rows.into_dyn()),
    )?;
    world.insert_layer(
        "classic_tree_parent",
        Layer::ragged(Domain::Free, offsets, parent.into_dyn()),
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ramp(n: usize) -> ndarray::Array2<f32> {
        // West to east from 0 to 1, so the band is a vertical strip.
        ndarray::Array2::from_shape_fn((n, n), |(_, c)| c as f32 / (n - 1) as f32)
    }

    #[test]
    fn trees_stay_in_the_band_apart_and_grow_with_elevation() {
        let params = ClassicTreeParams {
            canvas_px: 256.0,
            ..ClassicTreeParams::default()
        };
        let elev = ramp(65);
        let trees = classic_trees(elev.view(), 1.0, 1.0, &params, 9).unwrap();
        assert!(trees.xy.len() > 20, "{}", trees.xy.len());
        let min = params.spacing_px / params.canvas_px;
        for (i, a) in trees.xy.iter().enumerate() {
            // The ramp's elevation is x.
            assert!((0.43 - 1e-6..=0.72 + 1e-6).contains(&a[0]), "{a:?}");
            for b in &trees.xy[i + 1..] {
                assert!((a[0] - b[0]).hypot(a[1] - b[1]) >= min - 1e-12);
            }
        }
        for (p, &s) in trees.xy.iter().zip(&trees.size) {
            let t = (p[0] - 0.43) / 0.29;
            let want = (3.0 + 5.0 * t) / 256.0;
            assert!((f64::from(s) - want).abs() < 1e-5, "{s} {want}");
        }
        // Low trees are mostly broadleaf (models 0..3), high ones spruce (3..6).
        let low = trees
            .xy
            .iter()
            .zip(&trees.model)
            .filter(|(p, _)| p[0] < 0.5);
        assert!(low.clone().all(|(_, &m)| m < 3));
        assert_eq!(trees.silhouettes.len(), 6);
        assert!(trees.silhouettes.iter().all(|s| s.nodes.len() > 20));
        assert_eq!(
            trees,
            classic_trees(elev.view(), 1.0, 1.0, &params, 9).unwrap()
        );
    }

    #[test]
    fn bad_parameters_name_themselves() {
        let bad = ClassicTreeParams {
            max_elevation: 0.2,
            ..ClassicTreeParams::default()
        };
        assert_eq!(bad.validate().unwrap_err().param, "max_elevation");
        let tiny = ClassicTreeParams {
            spacing_px: 1.0,
            canvas_px: 32768.0,
            ..ClassicTreeParams::default()
        };
        assert!(tiny.validate().is_err());
    }
}
