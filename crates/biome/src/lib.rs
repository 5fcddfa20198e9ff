//! Moisture, Whittaker biomes and the blurred biome colour table of an orogen world.
//!
//! The stage runs after hydrology, since moisture uses the water it found:
//!
//! 1. **Moisture** ([`moisture`]): a second Perlin fBm field at 1.5x the noise scale, offset
//!    by +500 in noise space (the reference's), plus what the article promises and its program
//!    forgot: a boost near water that decays with the breadth-first hop count to the nearest
//!    ocean, lake or river region ([`moisture::hops_to_sources`] over the region adjacency),
//!    converted to a map distance so the decay does not depend on the cell count. Land gets
//!    drier with altitude, except snow caps, which keep their moisture (as the reference does).
//!    Land moisture is then redistributed by rank (each land region gets `rank / (count - 1)`,
//!    as mapgen2 does), so the Whittaker cuts, not the noise amplitude, set the biome shares
//!    (the reference never makes desert); `wetness` bends that distribution. Water is 1.
//!    Optionally (`wind` > 0), rain carried by a wind adds moisture, with a rain shadow behind
//!    mountains, as mapgen4 does ([`moisture::wind_rain`]).
//! 2. **Classification** ([`Whittaker`]): a table of elevation bands split into moisture
//!    zones, as data in [`Params`]; a pure function of (stored elevation, moisture) on land;
//!    ocean and lake by the region's water kind.
//! 3. **Colour table** ([`ColorTable`]): 256 x 256 hard biome colours over (elevation,
//!    moisture), a Gaussian blur (sigma 8, "nearest" edges, truncated at 4 sigma as SciPy does)
//!    computed separably in parallel, looked up bilinearly. Water colours (ocean shallow to
//!    deep with `t = depth^0.7`, lake, river) are in the [`Palette`].
//!
//! # Elevation mapping
//! The reference classifies with `e = clip((alt - w) / 0.25, 0, 1)`, where on land
//! `alt = w + s (1 - w)` and `s` is the power-curved land height. orogen stores land as
//! `E = s / s_peak` (the highest land is exactly 1), so a reference cut `e_c` is the stored
//! elevation `E_c = e_c 0.25 / ((1 - w) s_peak)`. [`Whittaker::reference`] takes w = 0.35 and
//! `s_peak` = [`classify::REFERENCE_PEAK`] (typical of default worlds), that is
//! `E_c = e_c` x [`classify::REFERENCE_TO_STORED`]. Faithful, that table makes 22-63% of the
//! land snow, so the default ([`classify::DEFAULT_CUTS`]) keeps the reference's bands and
//! moisture zones but spreads their cuts over the relief. The reference's snow-cap cut `h = s = 0.7`
//! and its drying `1 - 0.25 h` translate the same way (`E = 0.7 / s_peak`, `0.25 s_peak E`).
//!
//! Layers read: `region_elevation` (f32), `region_water` (u8), `rivers` (optional, ragged
//! corner ids). Layers written: `region_moisture` (f32), `region_biome` (u8 ids of
//! [`orogen_world::ids::Biome`]), `biome_color_table` (Free f32, 256 x 256 x 3).
//!
//! ```
//! use orogen_biome::{ColorTable, Palette, Whittaker, moisture};
//! use orogen_world::{Csr, ids::Biome};
//!
//! // Kernels work on plain slices and CSR graphs: a path of 5 nodes, water at node 0.
//! let graph = Csr::from_lists(&[vec![1u32], vec![0, 2], vec![1, 3], vec![2, 4], vec![3]]);
//! let hops = moisture::hops_to_sources(&graph, &[true, false, false, false, false]);
//! assert_eq!(hops, [0, 1, 2, 3, 4]);
//!
//! // Rank redistribution makes land moisture uniform on 0..=1.
//! let mut m = vec![0.31, 0.35, 0.33, 0.40];
//! moisture::redistribute(&mut m, &[true; 4], 0.0);
//! assert_eq!(m, [0.0, 2.0 / 3.0, 1.0 / 3.0, 1.0]);
//!
//! // Classification and the blurred colour table.
//! let table = Whittaker::default();
//! assert_eq!(table.land_biome(1.0, 0.0), Biome::Snow);
//! assert_eq!(table.land_biome(0.0, 0.5), Biome::Beach);
//! let colors = ColorTable::build(&table, &Palette::default(), 8.0);
//! let rgb = colors.lookup(0.05, 0.9);
//! assert!(rgb.iter().all(|c| (0.0..=1.0).contains(c)));
//! ```

#![warn(missing_docs)]

pub mod classify;
pub mod color;
pub mod moisture;

use std::sync::Arc;

use ndarray::Array3;
use orogen_world::ids::water;
use orogen_world::params::{ParamError, Spec, check_specs, in_range};
use orogen_world::{Domain, World, WorldError, seed};
use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use classify::{Band, Whittaker, Zone, classify_regions};
pub use color::{ColorTable, Palette, Rgb, TABLE_SIZE, gaussian_blur};

/// The stage name (seeds, timings).
pub const STAGE: &str = "biome";

/// What can go wrong in the biome stage.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// A parameter is out of range.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// The world lacks a layer this stage reads, or holds a malformed one.
    #[error(transparent)]
    World(#[from] WorldError),
}

/// The biome stage's parameters.
///
/// Each field's default, range and unit are stated once, in [`Self::SPECS`] (`orogen params`
/// lists them all).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// The noise scale of the elevation field, in features across the map's shorter side
    /// (moisture samples at `scale_factor` times it). The orogen pipeline sets it from the
    /// elevation's `fbm.noise_scale`, so it is not part of config files. Default: 4.0.
    /// Range: 0.01 ..= 1000.
    #[serde(skip)]
    pub noise_scale: f64,
    /// Moisture's noise scale over the elevation's.
    pub scale_factor: f64,
    /// Offset of the moisture field in noise space (both axes).
    pub offset: f64,
    /// fBm octaves of the moisture noise.
    pub octaves: usize,
    /// Moisture added at the water's edge (ocean, lakes, rivers), decaying with distance.
    pub water_boost: f32,
    /// The boost's decay length as a fraction of the map width (`exp(-distance / length)`).
    pub water_decay: f64,
    /// Drier with altitude: land below the snow caps is scaled by `1 - altitude_drying * E` (E the
    /// stored elevation).
    pub altitude_drying: f32,
    /// Stored elevation from which land keeps its moisture (snow caps): `min(1, snowcap_boost *
    /// m)`.
    pub snowcap_elevation: f32,
    /// Moisture factor of snow caps.
    pub snowcap_boost: f32,
    /// Weight of the wind-carried rain (0 = off): moisture gains `wind * rain`, rain normalised to
    /// 0 ..= 1 over land, with a rain shadow behind mountains ([`moisture::wind_rain`]).
    pub wind: f32,
    /// Direction the wind blows towards, in degrees (0 = east, +x; 90 = south, +y).
    pub wind_angle: f64,
    /// How fast the air rains out over flat land, per map width.
    pub wind_rain_rate: f64,
    /// Rain per unit of stored elevation climbed (orographic rain).
    pub wind_orographic: f32,
    /// Redistribute land moisture by rank (uniform on 0 ..= 1).
    pub redistribute: bool,
    /// Bends the redistributed moisture: `m^(4^-wetness)`; above 0 wetter, below 0 drier.
    pub wetness: f32,
    /// Gaussian blur sigma of the colour table, in table steps.
    pub blur_sigma: f64,
    /// The Whittaker table.
    pub whittaker: Whittaker,
    /// Biome and water colours.
    pub palette: Palette,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            noise_scale: 4.0,
            scale_factor: 1.5,
            offset: 500.0,
            octaves: 6,
            water_boost: 0.15,
            water_decay: 0.03,
            altitude_drying: 0.25 * classify::REFERENCE_PEAK,
            snowcap_elevation: 0.7 / classify::REFERENCE_PEAK,
            snowcap_boost: 1.5,
            wind: 0.0,
            wind_angle: 0.0,
            wind_rain_rate: 3.0,
            wind_orographic: 2.0,
            redistribute: true,
            wetness: 0.0,
            blur_sigma: 8.0,
            whittaker: Whittaker::default(),
            palette: Palette::default(),
        }
    }
}

impl Params {
    /// Every parameter of a config, described once (`noise_scale` is the pipeline's, not a
    /// config's: it follows the elevation's).
    pub const SPECS: &[Spec<Params>] = &[
        Spec::float(
            "scale_factor",
            "Moisture noise scale over the elevation noise scale",
            0.01,
            100.0,
            |p: &Params| p.scale_factor,
        ),
        Spec::float(
            "offset",
            "Offset of the moisture field in noise space",
            -1e6,
            1e6,
            |p: &Params| p.offset,
        ),
        Spec::int(
            "octaves",
            "fBm octaves of the moisture noise",
            1,
            16,
            |p: &Params| p.octaves as i128,
        ),
        Spec::float(
            "water_boost",
            "Moisture added at the water's edge (ocean, lakes, rivers)",
            0.0,
            1.0,
            |p: &Params| p.water_boost.into(),
        ),
        Spec::float(
            "water_decay",
            "Decay length of the water boost",
            1e-4,
            1.0,
            |p: &Params| p.water_decay,
        )
        .unit("map widths"),
        Spec::float(
            "altitude_drying",
            "Drier with altitude: moisture x (1 - k elevation) below the snow caps",
            0.0,
            1.0,
            |p: &Params| p.altitude_drying.into(),
        ),
        Spec::float(
            "snowcap_elevation",
            "Stored elevation from which land keeps its moisture (snow caps)",
            0.0,
            1.0,
            |p: &Params| p.snowcap_elevation.into(),
        ),
        Spec::float(
            "snowcap_boost",
            "Moisture factor of snow caps",
            1.0,
            10.0,
            |p: &Params| p.snowcap_boost.into(),
        ),
        Spec::float(
            "wind",
            "Weight of wind-carried rain with rain shadows; 0 turns it off",
            0.0,
            4.0,
            |p: &Params| p.wind.into(),
        ),
        Spec::float(
            "wind_angle",
            "Direction the wind blows towards (0 east, 90 south)",
            -360.0,
            360.0,
            |p: &Params| p.wind_angle,
        )
        .unit("degrees"),
        Spec::float(
            "wind_rain_rate",
            "How fast the air rains out over flat land, per map width",
            0.0,
            1000.0,
            |p: &Params| p.wind_rain_rate,
        ),
        Spec::float(
            "wind_orographic",
            "Rain per unit of stored elevation climbed",
            0.0,
            100.0,
            |p: &Params| p.wind_orographic.into(),
        ),
        Spec::other(
            "redistribute",
            "Redistribute land moisture by rank (false keeps raw moisture)",
            "true or false",
        ),
        Spec::float(
            "wetness",
            "Bend land moisture: above 0 wetter, below 0 drier",
            -1.0,
            1.0,
            |p: &Params| p.wetness.into(),
        ),
        Spec::float(
            "blur_sigma",
            "Gaussian blur sigma of the biome colour table",
            0.0,
            64.0,
            |p: &Params| p.blur_sigma,
        )
        .unit("table steps"),
        Spec::other(
            "whittaker",
            "The Whittaker table: elevation bands of moisture zones",
            "bands of zones (see the crate docs)",
        ),
        Spec::other(
            "palette",
            "Biome and water colours",
            "[r, g, b] in 0 ..= 1 per colour",
        ),
    ];

    /// Checks every field.
    pub fn validate(&self) -> Result<(), ParamError> {
        in_range("noise_scale", self.noise_scale, 0.01..=1000.0)?;
        check_specs(self, Self::SPECS)?;
        self.whittaker
            .validate()
            .map_err(|e| e.prefixed("whittaker."))?;
        self.palette
            .validate()
            .map_err(|e| e.prefixed("palette."))?;
        Ok(())
    }
}

/// The regions touched by rivers: the three regions of every corner of every river.
fn river_regions(world: &World, n_regions: usize) -> Result<Vec<bool>, Error> {
    let mut wet = vec![false; n_regions];
    if !world.has_layer("rivers") {
        return Ok(wet);
    }
    let mesh = world.mesh()?;
    let corners = world.view::<u32>("rivers")?;
    for &c in corners.iter() {
        let c = c as usize;
        if c >= mesh.n_corners() {
            return Err(WorldError::BadLayer {
                name: "rivers".into(),
                problem: format!("corner {c} out of range"),
            }
            .into());
        }
        for &r in mesh.corner_regions.row(c) {
            wet[r as usize] = true;
        }
    }
    Ok(wet)
}

/// Computes `region_moisture`, `region_biome` and `biome_color_table` for a world with a mesh,
/// `region_elevation` and `region_water` (and `rivers` when present).
pub fn run(world: &mut World, params: &Params) -> Result<(), Error> {
    let prepared = prepare(world, params)?;
    run_prepared(world, params, &prepared)
}

/// The part of the stage that neither the elevation, the water nor the moisture shaping can
/// change: the moisture noise of every region (it depends only on the mesh, the seed, the map
/// size and `noise_scale`, `scale_factor`, `offset`, `octaves`) and the colour table (on
/// `whittaker`, `palette`, `blur_sigma` alone, not on the mesh). A caller that changes none of
/// those (the playground moving the water level) may keep it and run [`run_prepared`] again;
/// one that changes the mesh only may hand it to [`prepare_reusing`] to keep its table.
#[derive(Clone, Debug)]
pub struct Prepared {
    noise: Vec<f32>,
    table: Arc<(TableInputs, ColorTable)>,
}

/// What the colour table is built from.
#[derive(Clone, Debug, PartialEq)]
struct TableInputs {
    whittaker: Whittaker,
    palette: Palette,
    blur_sigma: f64,
}

/// The [`Prepared`] part of a world with a mesh (parameters checked first).
pub fn prepare(world: &World, params: &Params) -> Result<Prepared, Error> {
    prepare_reusing(world, params, None)
}

/// [`prepare`], taking the colour table from `earlier` (a [`Prepared`] of any mesh) when it
/// was built from the same `whittaker`, `palette` and `blur_sigma`: the same result, without
/// building the table again.
pub fn prepare_reusing(
    world: &World,
    params: &Params,
    earlier: Option<&Prepared>,
) -> Result<Prepared, Error> {
    params.validate()?;
    let mesh = world.mesh()?;
    let stage_seed = seed::stage_seed(world.meta.seed, STAGE);
    // The noise crate's Fbm adds the octave to its seed: keep it far below u32::MAX.
    let noise_seed = (stage_seed >> 33) as u32;
    let inputs = TableInputs {
        whittaker: params.whittaker.clone(),
        palette: params.palette.clone(),
        blur_sigma: params.blur_sigma,
    };
    let kept = earlier
        .filter(|e| e.table.0 == inputs)
        .map(|e| Arc::clone(&e.table));
    let noise = || {
        moisture::noise_field(
            mesh.region_xy.view(),
            world.meta.width.min(world.meta.height),
            params.noise_scale * params.scale_factor,
            params.offset,
            params.octaves,
            noise_seed,
        )
    };
    let (noise, table) = match kept {
        Some(table) => (noise(), table),
        // The noise field and the colour table do not depend on each other: side by side.
        None => {
            let (noise, table) = rayon::join(noise, || {
                ColorTable::build(&params.whittaker, &params.palette, params.blur_sigma)
            });
            (noise, Arc::new((inputs, table)))
        }
    };
    Ok(Prepared { noise, table })
}

/// The rest of the stage on the [`Prepared`] part of this world's mesh and parameters: the
/// same layers as [`run`].
pub fn run_prepared(world: &mut World, params: &Params, prepared: &Prepared) -> Result<(), Error> {
    params.validate()?;
    let mesh = world.mesh()?;
    let n_regions = mesh.n_regions();
    if prepared.noise.len() != n_regions {
        return Err(Error::Param(ParamError::new(
            "noise",
            prepared.noise.len(),
            format!("one value per region ({n_regions})"),
        )));
    }
    let elevation = world.view1::<f32>("region_elevation")?.to_vec();
    let water_kind = world.water_kinds()?;
    let rivers = river_regions(world, n_regions)?;
    let is_water: Vec<bool> = water_kind
        .iter()
        .zip(&rivers)
        .map(|(&k, &r)| k != water::LAND || r)
        .collect();
    let hops = moisture::hops_to_sources(&mesh.region_neighbors, &is_water);
    let mut noise = prepared.noise.clone();
    // Hops to map distance: the mean spacing of the regions.
    let spacing = (world.meta.width * world.meta.height / n_regions.max(1) as f64).sqrt();
    if params.wind > 0.0 {
        let per_hop = (params.wind_rain_rate * spacing / world.meta.width).min(1.0) as f32;
        let rain = moisture::wind_rain(
            mesh.region_xy.view(),
            &mesh.region_neighbors,
            &elevation,
            &water_kind,
            params.wind_angle.to_radians(),
            per_hop,
            params.wind_orographic,
        );
        let land_max = rain
            .iter()
            .zip(&water_kind)
            .filter(|(_, k)| **k == water::LAND)
            .map(|(r, _)| *r)
            .fold(0.0f32, f32::max);
        if land_max > 0.0 {
            for ((m, r), k) in noise.iter_mut().zip(&rain).zip(&water_kind) {
                if *k == water::LAND {
                    *m += params.wind * r / land_max;
                }
            }
        }
    }
    let decay_hops = (params.water_decay * world.meta.width / spacing) as f32;
    let shaping = moisture::Shaping {
        water_boost: params.water_boost,
        decay_hops,
        altitude_drying: params.altitude_drying,
        snowcap_elevation: params.snowcap_elevation,
        snowcap_boost: params.snowcap_boost,
    };
    let mut region_moisture =
        moisture::raw_moisture(&noise, &elevation, &water_kind, &hops, &shaping);
    if params.redistribute {
        let is_land: Vec<bool> = water_kind.iter().map(|&k| k == water::LAND).collect();
        moisture::redistribute(&mut region_moisture, &is_land, params.wetness);
    }
    let region_biome =
        classify_regions(&params.whittaker, &elevation, &region_moisture, &water_kind);
    world.set_values("region_moisture", Domain::Region, region_moisture)?;
    world.set_values("region_biome", Domain::Region, region_biome)?;
    let rgb: Array3<f32> = prepared.table.1.rgb.clone();
    world.set_layer("biome_color_table", Domain::Free, rgb.into_dyn())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array1, Array2};
    use orogen_world::ids::Biome;
    use orogen_world::{Csr, DualMesh, Layer, WorldMeta};

    /// A `k x k` grid of sites on the unit square, each square split into two triangles.
    fn grid_world(k: usize, seed: u64) -> World {
        let n = k * k;
        let id = |i: usize, j: usize| (j * k + i) as u32;
        let region_xy = Array2::from_shape_fn((n, 2), |(r, c)| {
            let (i, j) = (r % k, r / k);
            if c == 0 {
                i as f64 / (k - 1) as f64
            } else {
                j as f64 / (k - 1) as f64
            }
        });
        let mut tris: Vec<[u32; 3]> = Vec::new();
        for j in 0..k - 1 {
            for i in 0..k - 1 {
                tris.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
                tris.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
            }
        }
        let mut nbrs: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut rc: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (t, tri) in tris.iter().enumerate() {
            for a in 0..3 {
                let (u, v) = (tri[a] as usize, tri[(a + 1) % 3]);
                if !nbrs[u].contains(&v) {
                    nbrs[u].push(v);
                    nbrs[v as usize].push(u as u32);
                }
                rc[u].push(t as u32);
            }
        }
        let corner_xy = Array2::from_shape_fn((tris.len(), 2), |(t, c)| {
            tris[t]
                .iter()
                .map(|&r| region_xy[[r as usize, c]])
                .sum::<f64>()
                / 3.0
        });
        let corner_regions = Array2::from_shape_fn((tris.len(), 3), |(t, c)| tris[t][c]);
        let corner_nbrs: Vec<Vec<u32>> = vec![Vec::new(); tris.len()];
        let region_is_boundary = Array1::from_shape_fn(n, |r| {
            let (i, j) = (r % k, r / k);
            u8::from(i == 0 || j == 0 || i == k - 1 || j == k - 1)
        });
        let mesh = DualMesh {
            region_xy,
            region_is_boundary,
            corner_xy,
            corner_regions,
            region_neighbors: Csr::from_lists(&nbrs),
            region_corners: Csr::from_lists(&rc),
            corner_neighbors: Csr::from_lists(&corner_nbrs),
        };
        let mut world = World::new(WorldMeta {
            seed,
            ..WorldMeta::default()
        });
        world.set_mesh(mesh).unwrap();
        // A round island: elevation falls with the distance to the centre.
        let mut elev = Vec::with_capacity(n);
        let mut kind = Vec::with_capacity(n);
        for r in 0..n {
            let (x, y) = (
                world.mesh().unwrap().region_xy[[r, 0]],
                world.mesh().unwrap().region_xy[[r, 1]],
            );
            let d = ((x - 0.5).powi(2) + (y - 0.5).powi(2)).sqrt() / 0.4;
            let e = (1.0 - d) as f32;
            elev.push(if e > 0.0 { e.powf(1.5) } else { e.max(-1.0) });
            kind.push(if e > 0.0 { water::LAND } else { water::OCEAN });
        }
        world
            .set_values("region_elevation", Domain::Region, elev)
            .unwrap();
        world
            .set_values("region_water", Domain::Region, kind)
            .unwrap();
        world
    }

    fn layers(world: &World) -> (Vec<u32>, Vec<u8>, Vec<u32>) {
        (
            world
                .view1::<f32>("region_moisture")
                .unwrap()
                .iter()
                .map(|v| v.to_bits())
                .collect(),
            world.view1::<u8>("region_biome").unwrap().to_vec(),
            world
                .view::<f32>("biome_color_table")
                .unwrap()
                .iter()
                .map(|v| v.to_bits())
                .collect(),
        )
    }

    #[test]
    fn run_writes_the_layers_and_reaches_every_land_biome() {
        let mut world = grid_world(120, 5);
        run(&mut world, &Params::default()).unwrap();
        let m = world.view1::<f32>("region_moisture").unwrap();
        let b = world.view1::<u8>("region_biome").unwrap();
        let kind = world.view1::<u8>("region_water").unwrap();
        assert_eq!(
            world.view::<f32>("biome_color_table").unwrap().shape(),
            &[256, 256, 3]
        );
        let mut counts = [0usize; Biome::COUNT];
        for r in 0..m.len() {
            assert!((0.0..=1.0).contains(&m[r]));
            counts[b[r] as usize] += 1;
            if kind[r] == water::OCEAN {
                assert_eq!(b[r], Biome::Ocean.id());
                assert_eq!(m[r], 1.0);
            } else {
                assert!(!Biome::from_id(b[r]).unwrap().is_water());
            }
        }
        // Land moisture is uniform on 0..=1 after redistribution: mean 1/2.
        let land: Vec<f32> = (0..m.len())
            .filter(|&r| kind[r] == water::LAND)
            .map(|r| m[r])
            .collect();
        let mean = land.iter().sum::<f32>() / land.len() as f32;
        assert!((mean - 0.5).abs() < 1e-3, "mean land moisture {mean}");
        for biome in &Biome::ALL[2..] {
            assert!(counts[biome.id() as usize] > 0, "{} absent", biome.name());
        }
    }

    #[test]
    fn a_table_kept_from_another_mesh_gives_the_fresh_world_and_only_when_it_matches() {
        let params = Params::default();
        let first = grid_world(60, 3);
        let earlier = prepare(&first, &params).unwrap();
        // Another mesh (and seed): the table is taken over, the world is the fresh one's.
        let fresh = |params: &Params| {
            let mut w = grid_world(70, 4);
            run(&mut w, params).unwrap();
            layers(&w)
        };
        let mut second = grid_world(70, 4);
        let kept = prepare_reusing(&second, &params, Some(&earlier)).unwrap();
        assert!(Arc::ptr_eq(&kept.table, &earlier.table));
        run_prepared(&mut second, &params, &kept).unwrap();
        assert_eq!(layers(&second), fresh(&params));
        // Other table inputs: the earlier table must not serve.
        let sharper = Params {
            blur_sigma: 2.0,
            ..Params::default()
        };
        let mut third = grid_world(70, 4);
        let own = prepare_reusing(&third, &sharper, Some(&earlier)).unwrap();
        assert!(!Arc::ptr_eq(&own.table, &earlier.table));
        run_prepared(&mut third, &sharper, &own).unwrap();
        assert_eq!(layers(&third), fresh(&sharper));
        assert_ne!(layers(&third).2, layers(&second).2);
    }

    #[test]
    fn water_makes_neighbours_wetter_before_redistribution() {
        let mut params = Params {
            redistribute: false,
            altitude_drying: 0.0,
            snowcap_elevation: 1.0,
            ..Params::default()
        };
        let mut dry = grid_world(60, 3);
        params.water_boost = 0.0;
        run(&mut dry, &params).unwrap();
        let mut wet = grid_world(60, 3);
        params.water_boost = 0.3;
        run(&mut wet, &params).unwrap();
        // Add a river through the middle to a third world: regions beside it get wetter.
        let mut river = grid_world(60, 3);
        let corners: Vec<u32> = (0..59).map(|i| (29 * 59 + i) as u32 * 2).collect();
        river
            .insert_layer(
                "rivers",
                Layer::ragged_indices(Domain::Free, Domain::Corner, Csr::from_lists(&[corners])),
            )
            .unwrap();
        run(&mut river, &params).unwrap();
        let md = dry.view1::<f32>("region_moisture").unwrap();
        let mw = wet.view1::<f32>("region_moisture").unwrap();
        let mr = river.view1::<f32>("region_moisture").unwrap();
        let kind = dry.view1::<u8>("region_water").unwrap();
        let centre = 30 * 60 + 30;
        let coast = (0..md.len())
            .find(|&r| kind[r] == water::LAND && r / 60 == 30)
            .unwrap();
        assert!(mw[coast] - md[coast] > 0.1, "coast boosted");
        assert!(mw[coast] - md[coast] > mw[centre] - md[centre] + 0.05);
        assert!(mr[centre] - mw[centre] > 0.2, "river boosts the centre");
    }

    #[test]
    fn same_bytes_for_one_and_two_threads_and_seeds_differ() {
        let go = |threads: usize, seed: u64| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| {
                    let mut world = grid_world(80, seed);
                    run(&mut world, &Params::default()).unwrap();
                    layers(&world)
                })
        };
        let one = go(1, 11);
        assert_eq!(one, go(2, 11));
        assert_ne!(one.0, go(1, 12).0);
    }

    #[test]
    fn wind_moves_moisture_and_stays_deterministic() {
        let go = |threads: usize, wind: f32| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| {
                    let mut world = grid_world(60, 2);
                    let params = Params {
                        wind,
                        redistribute: false,
                        ..Params::default()
                    };
                    run(&mut world, &params).unwrap();
                    layers(&world).0
                })
        };
        let windy = go(1, 1.0);
        assert_eq!(windy, go(2, 1.0));
        assert_ne!(windy, go(1, 0.0));
    }

    #[test]
    fn wetness_shifts_biomes_toward_wet_ones() {
        let share = |wetness: f32, biome: Biome| {
            let mut world = grid_world(100, 4);
            let params = Params {
                wetness,
                ..Params::default()
            };
            run(&mut world, &params).unwrap();
            let b = world.view1::<u8>("region_biome").unwrap();
            b.iter().filter(|&&x| x == biome.id()).count()
        };
        assert!(share(0.8, Biome::Desert) < share(-0.8, Biome::Desert));
        assert!(share(0.8, Biome::Taiga) > share(-0.8, Biome::Taiga));
    }

    #[test]
    fn missing_layers_and_bad_params_are_errors_not_panics() {
        let mut world = World::new(WorldMeta::default());
        assert!(matches!(
            run(&mut world, &Params::default()),
            Err(Error::World(WorldError::NoMesh))
        ));
        let mut world = grid_world(10, 1);
        world.remove_layer("region_water");
        assert!(matches!(
            run(&mut world, &Params::default()),
            Err(Error::World(WorldError::MissingLayer { .. }))
        ));
        let bad = Params {
            wetness: 2.0,
            ..Params::default()
        };
        let err = run(&mut grid_world(10, 1), &bad).unwrap_err();
        assert!(err.to_string().contains("wetness"));
        let nan = Params {
            noise_scale: f64::NAN,
            ..Params::default()
        };
        assert!(nan.validate().is_err());
    }

    #[test]
    fn params_round_trip_and_refuse_unknown_fields() {
        let p = Params::default();
        p.validate().unwrap();
        let text = serde_json::to_string(&p).unwrap();
        let back: Params = serde_json::from_str(&text).unwrap();
        assert_eq!(back, p);
        assert!(serde_json::from_str::<Params>("{\"wetnes\": 0.5}").is_err());
        let partial: Params = serde_json::from_str("{\"wetness\": 0.5}").unwrap();
        assert_eq!(partial.wetness, 0.5);
        assert_eq!(partial.octaves, 6);
    }
}
