//! The mesh stage: sites, Delaunay triangulation, Voronoi cells clipped to the map, Lloyd
//! relaxation, and the dual mesh of the conventions.
//!
//! A world's regions are Delaunay sites and Voronoi cells; its corners are Delaunay triangles
//! placed at their centroids. The stage draws interior sites from its own Xoshiro256++
//! ([`SamplerKind`]: uniform as the reference program, a jittered grid, or Poisson disc), adds
//! the fixed boundary sites of the conventions along the map edge ([`SiteCounts`],
//! [`boundary_sites`]), removes exact duplicates deliberately ([`dedup_sites`]), sorts every site
//! in Z-order (locality for every later stage), relaxes the interior sites with Lloyd's
//! algorithm (each to the area centroid of its clipped cell, computed in parallel) and builds
//! the [`DualMesh`].
//!
//! The kernels work without a `World`: [`build_mesh`] turns sites into the dual mesh with its
//! clipped cells (keeping the sites' order), [`lloyd`] relaxes sites in place, and
//! [`mesh_from_sites`] chains dedup, Z-order, Lloyd and build and says which input point each
//! region came from. [`run`] adapts them to the pipeline and writes the layers `region_area`,
//! `region_polygon` and `lloyd_area_cv`.
//!
//! ```
//! use orogen_mesh::{boundary_sites, build_mesh};
//!
//! // The four map corners and edge midpoints as boundary sites, three interior sites.
//! let mut sites = boundary_sites(2.0, 1.0, 2, 2);
//! let mut flags = vec![1u8; sites.len()];
//! sites.extend([[0.5, 0.4], [1.2, 0.7], [1.6, 0.3]]);
//! flags.extend([0, 0, 0]);
//! let cells = build_mesh(&sites, &flags, 2.0, 1.0)?;
//! let mesh = &cells.mesh;
//! assert_eq!(mesh.n_regions(), 11);
//! // Euler's formula for a triangulation of the rectangle.
//! assert_eq!(mesh.n_regions() + mesh.n_corners() - mesh.n_edges(), 1);
//! // The clipped cells tile the map.
//! let total: f64 = cells.region_area.iter().sum();
//! assert!((total - 2.0).abs() < 1e-12);
//! # Ok::<(), orogen_mesh::MeshError>(())
//! ```
#![warn(missing_docs)]

mod cells;
mod delaunay;
mod dual;
mod halves;
mod sites;

use ndarray::{Array1, Array2};
use orogen_sampling::SamplingError;
use orogen_world::params::{ParamError, Spec, check_specs, in_range, positive_finite};
use orogen_world::{Domain, DualMesh, Layer, World, WorldError, seed};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use cells::{area_centroid, area_cv};
pub use delaunay::{Delaunay, NONE, triangulate};
pub use sites::{
    SamplerKind, SiteCounts, boundary_sites, dedup_sites, interior_sites, zorder_permutation,
};

/// The stage name (seeds, timings).
pub const STAGE: &str = "mesh";

/// What can go wrong while meshing.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum MeshError {
    /// A parameter out of range.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// A world layer problem.
    #[error(transparent)]
    World(#[from] WorldError),
    /// The Poisson-disc sampler refused its input.
    #[error(transparent)]
    Sampling(#[from] SamplingError),
    /// A site with a NaN or infinite coordinate.
    #[error("site {index} has a non-finite coordinate")]
    NonFinite {
        /// Index of the site in the input.
        index: usize,
    },
    /// A site outside the map rectangle.
    #[error("site {index} at ({x}, {y}) lies outside the map [0, {width}] x [0, {height}]")]
    OutsideMap {
        /// Index of the site in the input.
        index: usize,
        /// Its x coordinate (map units).
        x: f64,
        /// Its y coordinate (map units).
        y: f64,
        /// The map width (map units).
        width: f64,
        /// The map height (map units).
        height: f64,
    },
    /// Two sites at the same position (use [`dedup_sites`] or [`mesh_from_sites`] to remove
    /// duplicates deliberately).
    #[error("site {index} duplicates site {same_as}")]
    Duplicate {
        /// Index of the site that duplicates another.
        index: usize,
        /// Index of the site at the same position.
        same_as: usize,
    },
    /// No triangle: fewer than three sites, or all on one line.
    #[error("the {n} sites span no triangle (fewer than 3, or all on one line)")]
    Degenerate {
        /// The number of sites.
        n: usize,
    },
    /// More sites than the u32 indices of a world can hold.
    #[error("{n} sites are more than a world can index")]
    TooMany {
        /// The number of sites.
        n: usize,
    },
    /// The boundary flags do not match the sites.
    #[error("{flags} boundary flags for {sites} sites")]
    FlagCount {
        /// The number of sites.
        sites: usize,
        /// The number of boundary flags.
        flags: usize,
    },
    /// spade refused the input.
    #[error("triangulation failed: {0}")]
    Triangulation(String),
}

/// The mesh stage's parameters. The number of regions is the world's `cells` (boundary sites
/// included, see [`SiteCounts`]).
///
/// Each field's default, range and unit are stated once, in [`Self::SPECS`] (`orogen params`
/// lists them all).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Lloyd relaxation iterations.
    pub lloyd_iterations: u32,
    /// How interior sites are drawn: `uniform` (as the reference), `jittered` or `poisson`.
    pub sampler: SamplerKind,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            lloyd_iterations: 3,
            sampler: SamplerKind::Uniform,
        }
    }
}

impl Params {
    /// Every parameter, described once.
    pub const SPECS: &[Spec<Params>] = &[
        Spec::int(
            "lloyd_iterations",
            "Lloyd relaxation iterations",
            0,
            100,
            |p: &Params| p.lloyd_iterations.into(),
        ),
        Spec::choice(
            "sampler",
            "Interior sites: uniform (as the reference), jittered or poisson",
            &["uniform", "jittered", "poisson"],
        ),
    ];

    /// Checks every field.
    pub fn validate(&self) -> Result<(), ParamError> {
        check_specs(self, Self::SPECS)
    }
}

/// A dual mesh with its clipped Voronoi cells.
#[derive(Clone, Debug, PartialEq)]
pub struct CellMesh {
    /// The dual mesh of the conventions.
    pub mesh: DualMesh,
    /// The clipped cell area of each region (they sum to W H).
    pub region_area: Vec<f64>,
    /// Cell polygon offsets (`n_regions + 1`) into `polygon_xy`.
    pub polygon_offsets: Vec<u32>,
    /// Clipped cell rings, counter-clockwise (positive shoelace area, x right, y down).
    pub polygon_xy: Vec<[f64; 2]>,
}

fn check_sites(
    sites: &[[f64; 2]],
    is_boundary: &[u8],
    width: f64,
    height: f64,
) -> Result<(), MeshError> {
    positive_finite("width", width)?;
    positive_finite("height", height)?;
    if sites.len() != is_boundary.len() {
        return Err(MeshError::FlagCount {
            sites: sites.len(),
            flags: is_boundary.len(),
        });
    }
    for (index, p) in sites.iter().enumerate() {
        if !(p[0].is_finite() && p[1].is_finite()) {
            return Err(MeshError::NonFinite { index });
        }
        if !(p[0] >= 0.0 && p[0] <= width && p[1] >= 0.0 && p[1] <= height) {
            return Err(MeshError::OutsideMap {
                index,
                x: p[0],
                y: p[1],
                width,
                height,
            });
        }
    }
    Ok(())
}

/// Builds the dual mesh and the clipped cells of `sites` (region `i` is site `i`) on the
/// `width` x `height` map. Sites must be distinct, finite and inside the map; to cover the whole
/// map with triangles, include the four map corners (see [`boundary_sites`]). Corners (triangles)
/// come in Z-order of their centroids.
pub fn build_mesh(
    sites: &[[f64; 2]],
    is_boundary: &[u8],
    width: f64,
    height: f64,
) -> Result<CellMesh, MeshError> {
    check_sites(sites, is_boundary, width, height)?;
    let del = delaunay::triangulate_unindexed(sites)?;
    Ok(build_from(sites, is_boundary, del, width, height))
}

fn build_from(
    sites: &[[f64; 2]],
    is_boundary: &[u8],
    del: Delaunay,
    width: f64,
    height: f64,
) -> CellMesh {
    let (mesh, cells) = build_cells(sites, is_boundary, del, width, height, |p| p);
    CellMesh {
        mesh,
        region_area: cells.areas,
        polygon_offsets: cells.offsets,
        polygon_xy: cells.points,
    }
}

/// The dual mesh and clipped cells of `sites`, the rings' points stored as `point` makes them
/// (the world keeps them as `f32`: made so directly, the `f64` rings of 110 MB at 1,000,000
/// cells are never held whole).
fn build_cells<P: Copy + Default + Send + Sync>(
    sites: &[[f64; 2]],
    is_boundary: &[u8],
    del: Delaunay,
    width: f64,
    height: f64,
    point: impl Fn([f64; 2]) -> P + Sync,
) -> (DualMesh, cells::Polygons<P>) {
    // Each buffer is dropped as soon as it is spent (the unsorted triangles' becomes the sorted
    // half-edges'): at 1,000,000 cells the circumcentres are 32 MB, alive beside the polygons
    // otherwise.
    let del = dual::sort_triangles(del, sites, width, height);
    let polygons = {
        let centres = cells::circumcentres(sites, &del);
        cells::polygons(
            &cells::Voronoi {
                sites,
                del: &del,
                centres: &centres,
                width,
                height,
            },
            point,
        )
    };
    (dual::dual_mesh(sites, is_boundary, del), polygons)
}

/// Lloyd relaxation in place; returns the last triangulation and the interior-cell area CV
/// before each iteration, or `None` when `stop` said so (asked before each iteration).
fn relax(
    sites: &mut [[f64; 2]],
    is_boundary: &[u8],
    width: f64,
    height: f64,
    iterations: u32,
    stop: &dyn Fn() -> bool,
) -> Result<Option<(Delaunay, Vec<f64>)>, MeshError> {
    // Triangles in Z-order: every pass over cells walks memory in order.
    let mut del = dual::sort_triangles(
        delaunay::triangulate_unindexed(sites)?,
        sites,
        width,
        height,
    );
    let mut cvs = Vec::with_capacity(iterations as usize + 1);
    // When every hull site is fixed, moved sites keep the hull, and flips repair the
    // triangulation far faster than triangulating afresh.
    let fixed_hull = (0..del.opposite.len() as u32)
        .filter(|&e| del.opposite[e as usize] == NONE)
        .all(|e| is_boundary[del.origin(e) as usize] != 0);
    // Buffers reused by every iteration: at 4,000,000 cells fresh ones are about 480 MB of
    // new pages an iteration, each cleared by the kernel on first touch.
    let (mut centres, mut cells, mut areas, mut old) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut scratch = delaunay::Scratch::default();
    for _ in 0..iterations {
        if stop() {
            return Ok(None);
        }
        cells::circumcentres_into(sites, &del, &mut centres);
        cells::areas_centroids_into(
            &cells::Voronoi {
                sites,
                del: &del,
                centres: &centres,
                width,
                height,
            },
            &mut cells,
        );
        cells.par_iter().map(|c| c.0).collect_into_vec(&mut areas);
        cvs.push(area_cv(&areas, is_boundary));
        sites.par_iter().copied().collect_into_vec(&mut old);
        sites
            .par_iter_mut()
            .zip(&cells)
            .zip(is_boundary)
            .for_each(|((site, &(area, c)), &b)| {
                if b == 0 && area > 0.0 && c[0].is_finite() && c[1].is_finite() {
                    *site = [c[0].clamp(0.0, width), c[1].clamp(0.0, height)];
                }
            });
        // Edge flips follow the moved sites (the hull is fixed); where they cannot, the sites
        // are triangulated afresh.
        if fixed_hull && del.repair(sites, &old, &mut scratch) {
            continue;
        }
        // Centroids of distinct cells are distinct; should rounding ever make two sites meet,
        // the moved one goes back to where it was, deliberately.
        let fresh = loop {
            match delaunay::triangulate_unindexed(sites) {
                Err(MeshError::Duplicate { index, same_as }) => {
                    let back = if is_boundary[index] == 0 && sites[index] != old[index] {
                        index
                    } else {
                        same_as
                    };
                    if sites[back] == old[back] {
                        return Err(MeshError::Duplicate { index, same_as });
                    }
                    sites[back] = old[back];
                }
                other => break other?,
            }
        };
        del = dual::sort_triangles(fresh, sites, width, height);
    }
    Ok(Some((del, cvs)))
}

/// Lloyd relaxation in place: `iterations` times, every site whose flag is 0 moves to the area
/// centroid of its clipped Voronoi cell (computed in parallel; boundary sites stay). Returns the
/// interior-cell area coefficient of variation before the first iteration and after each one
/// (`iterations + 1` values).
pub fn lloyd(
    sites: &mut [[f64; 2]],
    is_boundary: &[u8],
    width: f64,
    height: f64,
    iterations: u32,
) -> Result<Vec<f64>, MeshError> {
    check_sites(sites, is_boundary, width, height)?;
    let (del, mut cvs) =
        relax(sites, is_boundary, width, height, iterations, &|| false)?.expect("never stopped");
    let centres = cells::circumcentres(sites, &del);
    let areas: Vec<f64> = cells::areas_centroids(&cells::Voronoi {
        sites,
        del: &del,
        centres: &centres,
        width,
        height,
    })
    .iter()
    .map(|c| c.0)
    .collect();
    cvs.push(area_cv(&areas, is_boundary));
    Ok(cvs)
}

/// A relaxed mesh and where its regions came from.
#[derive(Clone, Debug, PartialEq)]
pub struct RelaxedMesh {
    /// The dual mesh and clipped cells of the relaxed sites.
    pub cells: CellMesh,
    /// Interior-cell area CV before Lloyd (entry 0) and after each iteration.
    pub lloyd_area_cv: Vec<f64>,
    /// For each region, the index of the input point it came from (duplicates removed,
    /// Z-order sorted).
    pub input_index: Vec<u32>,
}

/// The whole kernel: removes exact duplicates deliberately ([`dedup_sites`]), sorts the sites in
/// Z-order, runs `iterations` Lloyd steps and builds the mesh.
pub fn mesh_from_sites(
    points: &[[f64; 2]],
    is_boundary: &[u8],
    width: f64,
    height: f64,
    iterations: u32,
) -> Result<RelaxedMesh, MeshError> {
    let mesh = mesh_from_sites_until(points, is_boundary, width, height, iterations, &|| false)?;
    Ok(mesh.expect("never stopped"))
}

/// [`mesh_from_sites`], asking `stop` after the triangulation and before each Lloyd iteration
/// and the build: `Ok(None)` as soon as it says so (an interactive caller whose request went
/// stale stops within one iteration).
pub fn mesh_from_sites_until(
    points: &[[f64; 2]],
    is_boundary: &[u8],
    width: f64,
    height: f64,
    iterations: u32,
    stop: &dyn Fn() -> bool,
) -> Result<Option<RelaxedMesh>, MeshError> {
    let relaxed = relaxed_until(
        points,
        is_boundary,
        (width, height, iterations),
        stop,
        |sites, flags, del| build_from(sites, flags, del, width, height),
        |cells| &cells.region_area,
    )?;
    Ok(
        relaxed.map(|(cells, lloyd_area_cv, input_index)| RelaxedMesh {
            cells,
            lloyd_area_cv,
            input_index,
        }),
    )
}

/// [`mesh_from_sites_until`] with the build of the relaxed sites' mesh given (`build`, whose
/// cells' areas `areas` reads): what it built, the area CVs and the input indices.
#[allow(clippy::type_complexity)]
fn relaxed_until<T>(
    points: &[[f64; 2]],
    is_boundary: &[u8],
    (width, height, iterations): (f64, f64, u32),
    stop: &dyn Fn() -> bool,
    build: impl FnOnce(&[[f64; 2]], &[u8], Delaunay) -> T,
    areas: impl Fn(&T) -> &[f64],
) -> Result<Option<(T, Vec<f64>, Vec<u32>)>, MeshError> {
    check_sites(points, is_boundary, width, height)?;
    let input_index: Vec<u32> = {
        let kept = dedup_sites(points, is_boundary);
        let kept_xy: Vec<[f64; 2]> = kept.iter().map(|&i| points[i as usize]).collect();
        let order = zorder_permutation(&kept_xy, width, height);
        order.iter().map(|&k| kept[k as usize]).collect()
    };
    let mut sites: Vec<[f64; 2]> = input_index.iter().map(|&i| points[i as usize]).collect();
    let flags: Vec<u8> = input_index
        .iter()
        .map(|&i| is_boundary[i as usize])
        .collect();
    let Some((del, mut cvs)) = relax(&mut sites, &flags, width, height, iterations, stop)? else {
        return Ok(None);
    };
    if stop() {
        return Ok(None);
    }
    let built = build(&sites, &flags, del);
    cvs.push(area_cv(areas(&built), &flags));
    Ok(Some((built, cvs, input_index)))
}

/// The sites of a world of `cells` regions: boundary sites first (flag 1), then the interior
/// ones from the stage's generator.
pub fn world_sites(
    world_seed: u64,
    cells: usize,
    width: f64,
    height: f64,
    sampler: SamplerKind,
) -> Result<(Vec<[f64; 2]>, Vec<u8>), MeshError> {
    positive_finite("width", width)?;
    positive_finite("height", height)?;
    let counts = SiteCounts::new(cells, width, height);
    let mut rng = seed::stage_rng(world_seed, STAGE);
    let mut sites = boundary_sites(width, height, counts.segments_x, counts.segments_y);
    let mut flags = vec![1u8; sites.len()];
    sites.extend(interior_sites(
        &mut rng,
        sampler,
        counts.n_interior,
        width,
        height,
    )?);
    flags.resize(sites.len(), 0);
    Ok((sites, flags))
}

/// The pipeline stage: builds the world's mesh of `cells` regions (see [`SiteCounts`]) and
/// writes `region_area` (Region f64), `region_polygon` (Region ragged f32 rows `n x 2`,
/// counter-clockwise rings) and `lloyd_area_cv` (Free f64, `lloyd_iterations + 1` values:
/// before relaxing, then after each iteration).
pub fn run(world: &mut World, params: &Params, cells: usize) -> Result<(), MeshError> {
    run_until(world, params, cells, &|| false).map(|_| ())
}

/// [`run`], asking `stop` between its parts ([`mesh_from_sites_until`]): `Ok(false)`, and the
/// world untouched, when it said so.
pub fn run_until(
    world: &mut World,
    params: &Params,
    cells: usize,
    stop: &dyn Fn() -> bool,
) -> Result<bool, MeshError> {
    params.validate()?;
    in_range("cells", cells, 3..=(u32::MAX / 8) as usize)?;
    let (width, height) = (world.meta.width, world.meta.height);
    let (sites, flags) = world_sites(world.meta.seed, cells, width, height, params.sampler)?;
    // The rings made as the world keeps them (f32), not first as the kernel's f64.
    let Some(((mesh, cells), cvs, _)) = relaxed_until(
        &sites,
        &flags,
        (width, height, params.lloyd_iterations),
        stop,
        |sites, flags, del| build_cells(sites, flags, del, width, height, narrow),
        |(_, cells)| &cells.areas,
    )?
    else {
        return Ok(false);
    };
    insert_parts(world, mesh, cells, cvs)?;
    Ok(true)
}

/// Puts a mesh into `world` as [`run`] does (the mesh, `region_area`, `region_polygon`,
/// `lloyd_area_cv`): for a mesh of sites the caller chose ([`mesh_from_sites`]), which the
/// later stages then take like any other.
pub fn insert_mesh(world: &mut World, relaxed: RelaxedMesh) -> Result<(), MeshError> {
    let CellMesh {
        mesh,
        region_area,
        polygon_offsets,
        polygon_xy,
    } = relaxed.cells;
    // Narrowed ([`narrow`]): half the memory, 48 MB at 1,000,000 cells, for the rest of the
    // run. Filled in place (a flat-mapped collect grows a list of vectors and copies them: the
    // heap's peak at 1,000,000 cells).
    let mut points = vec![[0f32; 2]; polygon_xy.len()];
    points
        .par_iter_mut()
        .zip(polygon_xy.par_iter())
        .for_each(|(out, &p)| *out = narrow(p));
    drop(polygon_xy);
    let cells = cells::Polygons {
        offsets: polygon_offsets,
        points,
        areas: region_area,
    };
    insert_parts(world, mesh, cells, relaxed.lloyd_area_cv)
}

/// A ring point as the world's `region_polygon` keeps it: for drawing, in f32 (a 16,000th of
/// a pixel at 1024 px; 6 mm on a 100 km map).
fn narrow(p: [f64; 2]) -> [f32; 2] {
    [p[0] as f32, p[1] as f32]
}

/// The layers of [`insert_mesh`] from their parts (the rings already `f32`).
fn insert_parts(
    world: &mut World,
    mesh: DualMesh,
    cells: cells::Polygons<[f32; 2]>,
    lloyd_area_cv: Vec<f64>,
) -> Result<(), MeshError> {
    world.set_mesh(mesh)?;
    world.set_values("region_area", Domain::Region, cells.areas)?;
    let n_points = cells.points.len();
    let values = Array2::from_shape_vec((n_points, 2), cells.points.into_flattened())
        .expect("two values per point");
    world.insert_layer(
        "region_polygon",
        Layer::ragged(
            Domain::Region,
            Array1::from(cells.offsets),
            values.into_dyn(),
        ),
    )?;
    world.set_values("lloyd_area_cv", Domain::Free, lloyd_area_cv)?;
    Ok(())
}

#[cfg(test)]
mod tests;
