//! Rivers on a graph: Priority-Flood routing, lakes, flow accumulation and river selection.
//!
//! The kernels work on any graph in CSR form ([`CsrGraph`]) with plain slices, so a user can
//! route water over their own mesh:
//!
//! 1. [`priority_flood`] floods from the outlets, lowest first (ties by index), with a FIFO for
//!    nodes inside depressions: every node gets a filled level (>= its elevation, never rising
//!    downstream) and one downstream node, a spanning forest rooted at the outlets.
//! 2. [`spill_nodes`], [`find_lakes`]: flooded regions become lakes (one surface level, one
//!    outlet corner each) by the world conventions; [`carve`] is the alternative to filling.
//! 3. [`sea_distance`]: hops and length to the outlet; [`accumulate`]: flow, summed upstream
//!    before downstream in the forest's own order, basins in parallel, integers (so the same
//!    for any thread count).
//! 4. [`select_rivers`]: main rivers and tributaries, distinct, from high ground to the sea or
//!    to another river.
//!
//! [`run`] adapts them to an orogen [`World`]: it reads `corner_elevation`, `region_elevation`
//! and `region_water`, and writes the layers listed on [`run`].
//!
//! ```
//! use orogen_hydrology::graph::{CsrGraph, accumulate, priority_flood};
//!
//! // A path 0 - 1 - 2 - 3 whose node 0 is the outlet; node 2 is a pit behind node 1.
//! let offsets = [0u32, 1, 3, 5, 6];
//! let neighbours = [1u32, 0, 2, 1, 3, 2];
//! let graph = CsrGraph::new(&offsets, &neighbours)?;
//! let routing = priority_flood(graph, &[0.0, 0.5, 0.2, 0.8], &[true, false, false, false])?;
//! assert_eq!(routing.downstream, [-1, 0, 1, 2]);
//! assert_eq!(routing.filled, [0.0, 0.5, 0.5, 0.8]); // the pit is filled to its spill level
//! let flow = accumulate(&routing.downstream, &routing.order, &[0, 1, 1, 1])?;
//! assert_eq!(flow, [3, 3, 2, 1]);
//! # Ok::<(), orogen_hydrology::graph::Error>(())
//! ```

mod flow;
mod lakes;
mod rivers;
mod route;

use ndarray::Array1;
use orogen_world::ids::water;
use orogen_world::params::{ParamError, Spec};
use orogen_world::{Csr, CsrError, Domain, DualMesh, Layer, Values, World, WorldError};
use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use flow::{accumulate, accumulate_by};
pub use lakes::{Lakes, find_lakes};
pub use rivers::{PassParams, RiverInput, RiverParams, Rivers, select_rivers};
pub use route::{Routing, carve, check_forest, priority_flood, sea_distance, spill_nodes};

/// What can go wrong in the graph kernels and their adapter.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// A parameter out of range.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// A missing or malformed world layer.
    #[error(transparent)]
    World(#[from] WorldError),
    /// Kernel input that does not fit together (lengths, indices, non-finite values).
    #[error("hydrology input: {0}")]
    Input(String),
    /// A malformed CSR graph.
    #[error("hydrology input: {0}")]
    Csr(#[from] CsrError),
}

/// A graph in compressed sparse rows, checked once on construction: the world's borrowed CSR
/// view ([`orogen_world::CsrView`]), under the name the kernels have always used.
pub type CsrGraph<'a> = orogen_world::CsrView<'a>;

/// How depressions are handled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Depressions {
    /// Fill them (Priority-Flood): big ones become lakes, small ones are flat land the flow
    /// crosses.
    #[default]
    Fill,
    /// Keep the lakes, but lower the corners along the path out of every other depression
    /// (as mapgen4 does); `corner_elevation` is lowered where carved, so the heightmap shows
    /// the valleys.
    Carve,
}

/// Parameters of the hydrology stage on the mesh.
///
/// Each field's default, range and unit are stated once, in [`Self::SPECS`] (`orogen params`
/// lists them all).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Fill or carve depressions. Allowed: fill, carve.
    pub depressions: Depressions,
    /// Fewest regions of a flooded lake (enclosed water is a lake at any size).
    pub min_lake_regions: usize,
    /// River selection and widths.
    pub selection: RiverParams,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            depressions: Depressions::Fill,
            min_lake_regions: 10,
            selection: RiverParams::default(),
        }
    }
}

impl Params {
    /// Every parameter outside the river selection, described once.
    pub const SPECS: &[Spec<Params>] = &[
        Spec::choice(
            "depressions",
            "Depressions: fill (lakes, flat land) or carve (lower the path out)",
            &["fill", "carve"],
        ),
        Spec::int(
            "min_lake_regions",
            "Fewest regions of a flooded lake",
            1,
            100_000_000,
            |p: &Params| p.min_lake_regions as i128,
        ),
    ];

    /// Every parameter of the stage (paths relative to these params).
    pub fn param_table() -> Vec<orogen_world::params::ParamInfo> {
        let mut rows = orogen_world::params::describe_specs("", Self::SPECS);
        rows.extend(RiverParams::param_table("selection."));
        rows
    }

    /// Checks every field.
    pub fn validate(&self) -> Result<(), ParamError> {
        orogen_world::params::check_specs(self, Self::SPECS)?;
        self.selection
            .validate()
            .map_err(|e| e.prefixed("selection."))
    }
}

/// Everything the stage computes, for callers who want it without a world.
#[derive(Clone, Debug, PartialEq)]
pub struct Hydrology {
    /// The flood (filled levels after carving in carve mode).
    pub routing: Routing,
    /// Corner elevation after carving (the input in fill mode).
    pub corner_elevation: Vec<f32>,
    /// Per corner, whether it is an outlet (touches an ocean region or is on the border).
    pub is_outlet: Vec<bool>,
    /// The lakes: lake id per region and per corner, each lake's surface and outlet.
    pub lakes: Lakes,
    /// Per corner, the number of hops down to its outlet.
    pub hops: Vec<u32>,
    /// Per corner, the length of its downstream path to its outlet (map units).
    pub sea_distance: Vec<f32>,
    /// Per corner, the number of non-outlet corners whose water passes through it, itself
    /// included (an outlet does not count itself).
    pub flow: Vec<u64>,
    /// The selected rivers, source to mouth, with their flows and widths.
    pub rivers: Rivers,
}

/// The outlets of a mesh: corners touching an ocean region ([`water::OCEAN`]) or on the border.
pub fn mesh_outlets(mesh: &DualMesh, region_water: &[u8]) -> Result<Vec<bool>, Error> {
    route::check_len("region_water", region_water.len(), mesh.n_regions())?;
    let regions = mesh.corner_regions.as_standard_layout();
    let regions = regions
        .as_slice()
        .expect("a standard-layout array is a slice");
    Ok((0..mesh.n_corners())
        .map(|c| {
            mesh.is_border_corner(c)
                || regions[3 * c..3 * c + 3]
                    .iter()
                    .any(|&r| region_water[r as usize] == water::OCEAN)
        })
        .collect())
}

/// Runs the whole stage on a world's mesh and layers without touching the world.
pub fn compute(world: &World, params: &Params) -> Result<Hydrology, Error> {
    compute_with(world, params, true)
}

/// [`compute`]; without `input_copy` the result's `corner_elevation` is empty unless carving
/// lowered it ([`run`] writes it back only then: no copy of the input to drop).
fn compute_with(world: &World, params: &Params, input_copy: bool) -> Result<Hydrology, Error> {
    params.validate()?;
    let mesh = world.mesh()?;
    let n_corners = mesh.n_corners();
    let n_regions = mesh.n_regions();
    // The layers read where they lie (a world's layers are row-major; copied otherwise).
    let corner_elevation = world.view1::<f32>("corner_elevation")?;
    let region_elevation = world.view1::<f32>("region_elevation")?;
    let region_water = world.view1::<u8>("region_water")?;
    let (corner_elevation, region_elevation, region_water) = (
        corner_elevation.as_standard_layout(),
        region_elevation.as_standard_layout(),
        region_water.as_standard_layout(),
    );
    let slice = "a standard layout is contiguous";
    let corner_elevation = corner_elevation.as_slice().expect(slice);
    let region_elevation = region_elevation.as_slice().expect(slice);
    let region_water = region_water.as_slice().expect(slice);
    let is_outlet = mesh_outlets(mesh, region_water)?;
    let corner_graph = CsrGraph::from_csr(&mesh.corner_neighbors)?;
    let mut routing = priority_flood(corner_graph, corner_elevation, &is_outlet)?;
    if routing.n_unreached > 0 {
        return Err(Error::Input(format!(
            "{} corners are not connected to any outlet",
            routing.n_unreached
        )));
    }
    let xy = mesh
        .corner_xy
        .as_slice()
        .ok_or_else(|| Error::Input("corner_xy is not contiguous".into()))?;
    // Lakes (and carving) read the filled levels; distances and accumulation only the tree:
    // independent, so they run side by side. The spill nodes and the contributions are made
    // where they are read (not held beside the other branches: 64 MB at 8,000,000 corners).
    let (lakes_and_carved, (distances, flow)) = rayon::join(
        || -> Result<_, Error> {
            let spill = spill_nodes(&routing);
            let lakes = find_lakes(
                CsrGraph::from_csr(&mesh.region_neighbors)?,
                CsrGraph::from_csr_relation(&mesh.region_corners, n_corners)?,
                region_elevation,
                region_water,
                &routing.filled,
                &spill,
                params.min_lake_regions,
            )?;
            drop(spill);
            debug_assert_eq!(lakes.region_lake.len(), n_regions);
            let carved = if params.depressions == Depressions::Carve {
                let keep: Vec<bool> = lakes.corner_lake.iter().map(|&l| l >= 0).collect();
                Some(carve(&routing, corner_elevation, &keep)?)
            } else {
                None
            };
            Ok((lakes, carved))
        },
        || {
            rayon::join(
                || route::sea_distance(&routing, xy),
                || {
                    accumulate_by(&routing.downstream, &routing.order, |c| {
                        u32::from(!is_outlet[c])
                    })
                },
            )
        },
    );
    let (lakes, carved) = lakes_and_carved?;
    let (hops, sea_distance) = distances?;
    let flow = flow?;
    let carved_elevation = carved.map(|carved| {
        let lowered = corner_elevation
            .iter()
            .zip(&carved)
            .map(|(&e, &c)| e.min(c))
            .collect();
        routing.filled = carved;
        lowered
    });
    let is_land: Vec<bool> = is_outlet.iter().map(|&o| !o).collect();
    let spacing = (world.meta.width * world.meta.height / n_regions.max(1) as f64).sqrt();
    let rivers = select_rivers(
        &RiverInput {
            graph: corner_graph,
            downstream: &routing.downstream,
            flow: &flow,
            hops: &hops,
            xy,
            is_land: &is_land,
            corner_lake: &lakes.corner_lake,
            spacing,
            metres_per_unit: world.meta.world_size_m / world.meta.width,
        },
        &params.selection,
    )?;
    // The input's copy made last, when the stage's scratch is free to take it.
    let corner_elevation = match carved_elevation {
        Some(lowered) => lowered,
        None if input_copy => corner_elevation.to_vec(),
        None => Vec::new(),
    };
    Ok(Hydrology {
        routing,
        corner_elevation,
        is_outlet,
        lakes,
        hops,
        sea_distance,
        flow,
        rivers,
    })
}

/// The hydrology stage on the mesh.
///
/// Reads `corner_elevation`, `region_elevation` (f32) and `region_water` (u8). Outlets are the
/// corners touching an ocean region or on the border. Writes, per corner: `corner_filled`
/// (f32), `corner_downstream` (i32 corner index, -1 at outlets), `corner_flow` (f32, 1 per land
/// corner accumulated), `corner_sea_hops` (u32), `corner_sea_distance` (f32), `corner_lake`
/// (i32 lake id or -1); per region: `region_lake` (i32 lake id or -1; `region_water` stays as
/// the elevation stage wrote it, so the stage runs again the same on a saved world, and
/// `World::water_kinds` combines the two); per lake (Free): `lake_surface` (f32), `lake_outlet` (u32 corner index); and the
/// rivers, ragged (Free, one list per river, source first): `rivers` (u32 corner indices),
/// `river_flow`, `river_width` (map units), `river_opacity` (f32), `river_on_lake` (u8, 1 when
/// the segment to the next vertex lies on a lake). In carve mode `corner_elevation` is lowered
/// along the carved paths.
pub fn run(world: &mut World, params: &Params) -> Result<(), Error> {
    let h = compute_with(world, params, false)?;
    let n_corners = h.flow.len();
    let dyn1 = |v: Vec<f32>| Array1::from(v).into_dyn();
    if params.depressions == Depressions::Carve {
        world.set_layer("corner_elevation", Domain::Corner, dyn1(h.corner_elevation))?;
    }
    world.set_layer("corner_filled", Domain::Corner, dyn1(h.routing.filled))?;
    world.insert_layer(
        "corner_downstream",
        Layer {
            domain: Domain::Corner,
            index_of: Some(Domain::Corner),
            offsets: None,
            values: Values::I32(Array1::from(h.routing.downstream).into_dyn()),
        },
    )?;
    world.set_layer(
        "corner_flow",
        Domain::Corner,
        dyn1(h.flow.iter().map(|&f| f as f32).collect()),
    )?;
    world.set_values("corner_sea_hops", Domain::Corner, h.hops)?;
    world.set_layer("corner_sea_distance", Domain::Corner, dyn1(h.sea_distance))?;
    world.set_values("corner_lake", Domain::Corner, h.lakes.corner_lake)?;
    world.set_values("region_lake", Domain::Region, h.lakes.region_lake)?;
    world.set_layer("lake_surface", Domain::Free, dyn1(h.lakes.surface))?;
    world.insert_layer(
        "lake_outlet",
        Layer {
            domain: Domain::Free,
            index_of: Some(Domain::Corner),
            offsets: None,
            values: Values::U32(Array1::from(h.lakes.outlet).into_dyn()),
        },
    )?;
    let r = h.rivers;
    let offsets = Array1::from(r.offsets.clone());
    world.insert_layer(
        "rivers",
        Layer::ragged_indices(
            Domain::Free,
            Domain::Corner,
            Csr::from_parts(r.offsets, r.corners),
        ),
    )?;
    for (name, values) in [
        ("river_flow", r.flow),
        ("river_width", r.width),
        ("river_opacity", r.opacity),
    ] {
        world.insert_layer(
            name,
            Layer::ragged(Domain::Free, offsets.clone(), dyn1(values)),
        )?;
    }
    world.insert_layer(
        "river_on_lake",
        Layer::ragged(Domain::Free, offsets, Array1::from(r.on_lake).into_dyn()),
    )?;
    debug_assert_eq!(world.mesh()?.n_corners(), n_corners);
    Ok(())
}
