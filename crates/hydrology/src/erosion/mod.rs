//! Erosion: valleys carved by the rivers that run in them.
//!
//! The stream power law `dh/dt = U - K A^m S^n + D laplacian(h)` (uplift U, erodibility K,
//! drainage area A, slope S toward the receiver, hillslope diffusivity D) on any graph
//! ([`Neighbours`]: a raster's 8-connected [`Grid`], or the dual mesh's regions as a CSR
//! [`Mesh`]), with no `World` needed:
//!
//! - Routing ([`route`]) each step: steepest-descent receivers; when any node other than a base
//!   level has no lower neighbour, depressions are resolved by Priority-Flood (Barnes, Lehman and
//!   Mulla 2014) on the current surface: nodes drain along steepest descent on the filled surface,
//!   and inside depressions and flats to the node the flood reached them from, so every node
//!   drains to a base level. That result is found without flooding where it can be: the pits'
//!   lakes are grown upward from the pits (union-find groups merging where they meet, each
//!   linked breadth-first from its spill), visiting only the lakes and their shores; on exact
//!   ties at a lake's level the flood runs over the pits' basins. Then the stack (Braun and
//!   Willett 2013) and the drainage area.
//! - [`spl_step`]: the implicit scheme of Braun and Willett 2013 ("A very efficient O(n),
//!   implicit and parallel method to solve the stream power equation"), downstream-first along
//!   the stack: exact for n = 1, Newton per node (safeguarded by bisection) otherwise. As in
//!   fastscapelib, a node inside a depression does not erode, and a node that would reach its
//!   receiver's level is held just above it and counted (`n_corr`).
//! - [`diffuse`]: linear hillslope diffusion, explicit with stable substeps.
//! - [`steady_state`]: the steady state solved directly along the receiver tree,
//!   `h_i = h_r + d (U_i / (K A_i^m))^(1/n)`, re-routed until the receivers settle (the Salève
//!   model of fastlem; Cordonnier et al. 2016 use the same idea for terrain).
//! - [`evolve`]: uplift, route, erode, diffuse, `steps` times.
//!
//! The same bytes for any thread count: the parallel parts (receivers, per-node factors,
//! diffusion) compute each node on its own; the stack, area sums and the implicit solve run
//! tree by tree, each tree in one fixed order, whichever thread takes it.
//!
//! [`run`] is the pipeline's `erosion` stage on the mesh (between elevation and hydrology);
//! [`erode_grid`] runs the same kernels on a DEM a user brings.
//!
//! ```
//! use orogen_hydrology::erosion::{Grid, Law, evolve};
//!
//! // A 20x20 flat plateau at 100 m whose border is the base level, uplifted 1 mm/yr.
//! let g = Grid { rows: 20, cols: 20, dx: 100.0, dy: 100.0 };
//! let base = g.border();
//! let mut h: Vec<f64> = (0..400).map(|i| if base[i] { 0.0 } else { 100.0 + (i % 7) as f64 }).collect();
//! let law = Law { k: 1e-4, m: 0.4, n: 1.0, diffusion: 0.0 };
//! let stats = evolve(&g, &mut h, &base, &[1e4; 400], &[1e-3; 400], &law, 1e4, 50);
//! assert_eq!(stats.steps, 50);
//! // Rivers cut the plateau down: every interior node ends lower than it started + uplift.
//! assert!(h.iter().all(|&v| v < 100.0 + 7.0 + 50.0 * 10.0));
//! ```

mod lakes;
mod route;
mod spl;

use ndarray::{Array2, ArrayView2};
use orogen_world::ids::water;
use orogen_world::params::{ParamError, Spec, check_specs};
use orogen_world::{Domain, World};
use serde::{Deserialize, Serialize};

pub use route::{Flow, Grid, Mesh, Neighbours, drain, route, route_into, stack};
pub use spl::{Law, Stats, diffuse, evolve, solve_drop, spl_step, steady_state};

/// Whether and how the stage erodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// No erosion: the stage leaves the world as the elevation stage made it.
    #[default]
    Off,
    /// `steps` implicit steps of `dt` from the elevation stage's terrain.
    Transient,
    /// The steady state of uplift against river incision, solved directly (no diffusion).
    SteadyState,
}

/// Parameters of the erosion stage (config section `[erosion]`) and of `orogen dem erode`.
///
/// Units: metres and years. On the mesh, distances are map units times
/// `world_size_m / width` and elevations the stored elevation times `max_height_m`.
///
/// Each field's default, range and unit are stated once, in [`Self::SPECS`] (`orogen params`
/// lists them all).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// off, transient or steady_state.
    pub mode: Mode,
    /// Erodibility K (m^(1 - 2m) / yr).
    pub k: f64,
    /// Drainage area exponent m.
    pub m: f64,
    /// Slope exponent n (1: exact implicit step; otherwise Newton per node).
    pub n: f64,
    /// Uplift rate at the highest land of the elevation stage (m/yr); on the mesh the uplift field
    /// is this times each land region's initial elevation over the highest, so the mountains the
    /// elevation stage placed keep rising where they were.
    pub uplift: f64,
    /// Hillslope diffusivity D (m^2/yr; transient mode only).
    pub diffusion: f64,
    /// Time step (years).
    pub dt: f64,
    /// Time steps (transient mode).
    pub steps: usize,
    /// Most routing passes of the steady state (it stops earlier when the receivers settle).
    pub iterations: usize,
    /// Rescale the eroded land so its highest point keeps the elevation stage's height (the world
    /// keeps its relief; erosion changes its shape).
    pub keep_relief: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            mode: Mode::Off,
            k: 1e-5,
            m: 0.4,
            n: 1.0,
            uplift: 1e-3,
            diffusion: 0.1,
            dt: 2e4,
            steps: 100,
            iterations: 20,
            keep_relief: true,
        }
    }
}

impl Params {
    /// Every parameter, described once (the steady state also needs k > 0, checked by
    /// [`Params::validate`]).
    pub const SPECS: &[Spec<Params>] = &[
        Spec::choice(
            "mode",
            "Erosion: off, transient (steps of dt) or steady_state (solved directly)",
            &["off", "transient", "steady_state"],
        ),
        Spec::float(
            "k",
            "Erodibility K of the stream-power law (> 0 in steady_state)",
            0.0,
            1.0,
            |p: &Params| p.k,
        )
        .unit("m^(1-2m)/yr"),
        Spec::float("m", "Drainage-area exponent m", 0.0, 2.0, |p: &Params| p.m),
        Spec::float(
            "n",
            "Slope exponent n (1 exact; otherwise Newton per node)",
            0.5,
            4.0,
            |p: &Params| p.n,
        ),
        Spec::float(
            "uplift",
            "Uplift rate at the highest land of the elevation stage",
            0.0,
            1.0,
            |p: &Params| p.uplift,
        )
        .unit("m/yr"),
        Spec::float(
            "diffusion",
            "Hillslope diffusivity D (transient mode)",
            0.0,
            1e4,
            |p: &Params| p.diffusion,
        )
        .unit("m^2/yr"),
        Spec::float("dt", "Time step", 1.0, 1e7, |p: &Params| p.dt).unit("yr"),
        Spec::int(
            "steps",
            "Time steps (transient mode)",
            1,
            100_000,
            |p: &Params| p.steps as i128,
        ),
        Spec::int(
            "iterations",
            "Most routing passes of the steady state",
            1,
            1_000,
            |p: &Params| p.iterations as i128,
        ),
        Spec::other(
            "keep_relief",
            "Rescale eroded land so its highest point keeps the elevation stage's height",
            "true or false",
        ),
    ];

    /// Checks every field.
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.mode == Mode::SteadyState && !(self.k > 0.0 && self.k <= 1.0) {
            return Err(ParamError::new(
                "k",
                self.k,
                "0 < k ..= 1 (the steady state needs erosion)",
            ));
        }
        check_specs(self, Self::SPECS)
    }

    /// The law these parameters give.
    pub fn law(&self) -> Law {
        Law {
            k: self.k,
            m: self.m,
            n: self.n,
            diffusion: self.diffusion,
        }
    }

    /// Runs the chosen mode on any graph (nothing for [`Mode::Off`]).
    pub fn apply<G: Neighbours>(
        &self,
        g: &G,
        h: &mut [f64],
        base: &[bool],
        cell_area: &[f64],
        uplift: &[f64],
    ) -> Stats {
        match self.mode {
            Mode::Off => Stats::default(),
            Mode::Transient => evolve(
                g,
                h,
                base,
                cell_area,
                uplift,
                &self.law(),
                self.dt,
                self.steps,
            ),
            Mode::SteadyState => steady_state(
                g,
                h,
                base,
                cell_area,
                uplift,
                &Law {
                    diffusion: 0.0,
                    ..self.law()
                },
                self.iterations,
            ),
        }
    }
}

/// Erodes a DEM (`[row, col]`, metres, NaN = NoData) with cells `dx` by `dy` metres: border
/// cells and cells next to NoData are the base level; `uplift` (m/yr per cell, the DEM's shape)
/// raises every other cell each step. Returns the eroded DEM and what the run did
/// ([`Mode::Off`] returns the DEM unchanged).
///
/// Errors (naming the parameter and its range) when a parameter is out of range, the cell size
/// is not finite and > 0, or `uplift` is not the DEM's size.
pub fn erode_grid(
    dem: ArrayView2<'_, f64>,
    uplift: ArrayView2<'_, f64>,
    dx: f64,
    dy: f64,
    params: &Params,
) -> Result<(Array2<f64>, Stats), ParamError> {
    params.validate()?;
    orogen_world::params::positive_finite("cell_size", dx)?;
    orogen_world::params::positive_finite("cell_size", dy)?;
    let (rows, cols) = dem.dim();
    if uplift.dim() != (rows, cols) {
        let (ur, uc) = uplift.dim();
        return Err(ParamError::new(
            "uplift",
            format!("a {ur}x{uc} raster"),
            format!("a raster of the DEM's size, {rows}x{cols}"),
        ));
    }
    if let Some(v) = uplift
        .iter()
        .find(|v| !(v.is_finite() && **v >= 0.0 && **v <= 1.0))
    {
        return Err(ParamError::new("uplift", v, "0 ..= 1 m/yr in every cell"));
    }
    let g = Grid { rows, cols, dx, dy };
    let mut h: Vec<f64> = dem.iter().copied().collect();
    let mut base = g.border();
    for (i, b) in base.iter_mut().enumerate() {
        if !*b {
            g.for_each(i, |j, _| *b |= h[j].is_nan());
        }
    }
    let u: Vec<f64> = uplift.iter().copied().collect();
    let area = vec![dx * dy; rows * cols];
    let stats = params.apply(&g, &mut h, &base, &area, &u);
    let out = Array2::from_shape_vec((rows, cols), h).expect("rows x cols");
    Ok((out, stats))
}

/// What [`run`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Report {
    /// Steps run and nodes corrected or flooded, as the kernels count them.
    pub stats: Stats,
    /// The highest land (m) before the relief was restored.
    pub highest_m: f64,
}

/// The erosion problem on a world's mesh (see [`run`]): the graph of regions with edge lengths
/// in metres, and per region whether it is a base level, its elevation (m), uplift (m/yr) and
/// area (m^2).
#[derive(Debug)]
pub struct MeshProblem<'a> {
    /// The regions' neighbour graph, edge lengths in metres.
    pub graph: Mesh<'a>,
    /// Per region, whether it is a base level (ocean, enclosed water or a border region).
    pub base: Vec<bool>,
    /// Per region, the elevation (m): land at its stored elevation times `max_height_m`, water
    /// at 0.
    pub h: Vec<f64>,
    /// Per region, the uplift rate (m/yr); 0 on base levels.
    pub uplift: Vec<f64>,
    /// Per region, the area (m^2).
    pub area: Vec<f64>,
    /// The highest land of the elevation stage (stored elevation).
    pub land_max: f64,
}

/// Builds the [`MeshProblem`] of a world: ocean, enclosed water and border regions are the base
/// level at sea level; land regions start at `region_elevation` times `max_height_m` and are
/// uplifted by `uplift` times their initial elevation over the highest land.
pub fn mesh_problem(world: &World, uplift: f64) -> Result<MeshProblem<'_>, crate::graph::Error> {
    let meta = &world.meta;
    let mesh = world.mesh()?;
    let elevation = world.view1::<f32>("region_elevation")?;
    let water_kind = world.view1::<u8>("region_water")?;
    let region_area = world.view1::<f64>("region_area")?;
    let n = mesh.n_regions();
    for (name, len) in [
        ("region_elevation", elevation.len()),
        ("region_water", water_kind.len()),
        ("region_area", region_area.len()),
    ] {
        if len != n {
            return Err(crate::graph::Error::Input(format!(
                "{name} has {len} entries, expected {n}"
            )));
        }
    }
    let scale = meta.world_size_m / meta.width;
    let xy = mesh
        .region_xy
        .as_slice()
        .ok_or_else(|| crate::graph::Error::Input("region_xy is not contiguous".into()))?;
    let (Some(offsets), Some(targets)) = (
        mesh.region_neighbors.offsets.as_slice(),
        mesh.region_neighbors.values.as_slice(),
    ) else {
        return Err(crate::graph::Error::Input(
            "region_neighbors is not contiguous".into(),
        ));
    };
    let graph = Mesh::new(offsets, targets, xy, scale)?;
    let base: Vec<bool> = (0..n)
        .map(|i| water_kind[i] != water::LAND || mesh.region_is_boundary[i] != 0)
        .collect();
    let land_max = (0..n)
        .filter(|&i| !base[i])
        .map(|i| f64::from(elevation[i]))
        .fold(0.0, f64::max);
    let h = (0..n)
        .map(|i| {
            if water_kind[i] == water::LAND {
                f64::from(elevation[i]).max(0.0) * meta.max_height_m
            } else {
                0.0
            }
        })
        .collect();
    let uplift = (0..n)
        .map(|i| {
            if base[i] || land_max <= 0.0 {
                0.0
            } else {
                uplift * f64::from(elevation[i]).max(0.0) / land_max
            }
        })
        .collect();
    let area = region_area.iter().map(|a| a * scale * scale).collect();
    Ok(MeshProblem {
        graph,
        base,
        h,
        uplift,
        area,
        land_max,
    })
}

/// The erosion stage on the mesh: the dual mesh's regions (Voronoi cells, areas from
/// `region_area`, neighbours from the mesh) are the nodes, set up by [`mesh_problem`].
///
/// Reads `region_elevation`, `region_water`, `region_area`; rewrites `region_elevation` (land
/// only: water keeps its depth) and `corner_elevation` (the mean of each corner's three
/// regions, as the elevation stage makes it). With `keep_relief` the highest land keeps its
/// height; land stays above sea level. [`Mode::Off`] changes nothing.
pub fn run(world: &mut World, params: &Params) -> Result<Report, crate::graph::Error> {
    params.validate()?;
    if params.mode == Mode::Off {
        return Ok(Report::default());
    }
    let max_height_m = world.meta.max_height_m;
    let mut p = mesh_problem(world, params.uplift)?;
    let stats = params.apply(&p.graph, &mut p.h, &p.base, &p.area, &p.uplift);
    let land = || (0..p.h.len()).filter(|&i| !p.base[i]);
    let highest = land().map(|i| p.h[i]).fold(0.0, f64::max);
    let factor = if params.keep_relief && highest > 0.0 {
        p.land_max * max_height_m / highest
    } else {
        1.0
    };
    let mut elevation = world.view1::<f32>("region_elevation")?.to_owned();
    for i in land() {
        elevation[i] = ((p.h[i] * factor / max_height_m) as f32).max(f32::EPSILON);
    }
    let corner = world.mesh()?.corner_mean(elevation.view());
    drop(p);
    world.set_layer("region_elevation", Domain::Region, elevation.into_dyn())?;
    world.set_layer("corner_elevation", Domain::Corner, corner.into_dyn())?;
    Ok(Report {
        stats,
        highest_m: highest,
    })
}
