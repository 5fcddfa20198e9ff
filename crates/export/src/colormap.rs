//! The colour map (`colormap.png`) and the flat biome map (`biomes.png`).
//!
//! The colour map follows the article: per pixel, stored elevation and moisture are interpolated
//! over the mesh by `orogen_world::interp` (each Delaunay triangle split in three by its corner
//! point, barycentric between the piece's two sites and the corner), then looked up bilinearly
//! in the blurred biome colour table (layer `biome_color_table`, through the one lookup
//! `orogen_world::color::table_lookup`), so colours blend across cells. Then, per pixel:
//!
//! - Relief: land is lit by [`crate::relief`] from the slope in metres per metre, interpolated
//!   the same way from per-region slopes (the mean of the planes of the region's triangles;
//!   elevation in metres, sea level and below as 0), so the light is smooth across the mesh's
//!   facets; the slope is multiplied by `hillshade` (0 = off). Water stays flat.
//! - Shores: the sea is where the interpolated elevation is below 0, a lake where the
//!   interpolated lake depth (the lake's surface minus the elevation; regions away from lakes
//!   take the surface of a lake up to two regions away) is above 0. Each boundary is placed at
//!   sub-pixel precision from the field's value and its gradient across the neighbouring pixels
//!   (`distance = value / |gradient|`, in pixels) and blended by coverage `clamp(0.5 + distance,
//!   0, 1)`: no staircases. A thin shore tint lightens the water within [`SHORE_TINT_PX`] pixels
//!   of the shore.
//! - Water: the ocean blends shallow to deep with `t = depth^0.7`; lakes take the lake colour.
//! - Rivers: the strokes of [`crate::stroke`] (smooth, width from flow, tapered at sources),
//!   clipped to land by the water coverage, so nothing is drawn on a lake's or the sea's surface.
//!
//! The flat biome map paints each pixel with the colour of the biome of the nearer of its
//! piece's two sites (`region_biome`): cells bounded by the lines from the triangle centroids to
//! the edge midpoints, close to the Voronoi cells; the same shore and river rules apply, with
//! the ocean and lake biome colours (rivers in the lake colour) and no relief.
//!
//! The colours come from the caller (the biome stage's palette, passed by the pipeline), since
//! export depends on no stage.

use ndarray::{Array1, Array2, Array3};
use orogen_world::color::{ocean_color, table_lookup};
use orogen_world::ids::water;
use orogen_world::interp::{
    PieceAt, PiecePlan, WEIGHED_PIXELS, rasterize_mesh, rasterize_mesh_fields_on,
    rasterize_mesh_fields_strips_on, rasterize_mesh_pieces_strips_on,
};
use orogen_world::{DualMesh, World, WorldError};
use rayon::prelude::*;
use std::sync::OnceLock;

use crate::ExportError;
use crate::grid::PixelGrid;
use crate::stroke::{
    StrokeStyle, clip_coverage_by, land_strokes_by, river_strokes, stroke_coverage,
};

pub use orogen_world::color::Rgb;

/// Width of the shore tint on the water side, pixels.
pub const SHORE_TINT_PX: f32 = 2.0;
/// How far the shore tint lightens the water towards white at the shore.
pub const SHORE_TINT: f32 = 0.22;
/// How much of the Lambert light the relief shading applies (see [`crate::relief::shade`]).
pub const HILLSHADE_AMOUNT: f64 = 0.65;

/// The water colours of the colour map.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WaterColors {
    /// Ocean at depth 0.
    pub shallow: Rgb,
    /// Ocean at depth 1 (the deepest water).
    pub deep: Rgb,
    /// Lakes.
    pub lake: Rgb,
    /// Rivers.
    pub river: Rgb,
}

/// Options of the colour map.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ColormapOptions {
    /// Water colours.
    pub water: WaterColors,
    /// Relief shading strength: the slope is multiplied by this before it is lit by a
    /// north-west sun 45 degrees up (0 = flat colours).
    pub hillshade: f32,
    /// Draw the rivers of the `rivers` layer (when present).
    pub rivers: bool,
}

/// Per-corner values: the mean of the corner's three regions.
pub(crate) fn corner_mean(mesh: &DualMesh, region: impl Fn(usize) -> f32) -> Vec<f32> {
    (0..mesh.n_corners())
        .map(|c| {
            let t = mesh.corner_regions.row(c);
            (region(t[0] as usize) + region(t[1] as usize) + region(t[2] as usize)) / 3.0
        })
        .collect()
}

/// 0 ..= 1 to 0 ..= 255, rounded to nearest (NaN to 0).
fn to_u8(v: f32) -> u8 {
    // Adding 0.5 then truncating rounds non-negative values; faster than `round`.
    (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
}

/// The stored elevation interpolated on `grid` (`ny x nx`) by `orogen_world::interp`: region
/// values and `corner_elevation` (or, without it, the mean of the corner's regions).
pub fn elevation_raster(world: &World, grid: &PixelGrid) -> Result<Array2<f32>, ExportError> {
    let mesh = world.mesh()?;
    let region_e = world.view1::<f32>("region_elevation")?;
    let corner_e = corner_elevation(world)?;
    Ok(rasterize_mesh(
        mesh,
        region_e,
        corner_e.view(),
        &grid.sampling(),
    )?)
}

/// `corner_elevation`, or without it the mean of each corner's regions.
fn corner_elevation(world: &World) -> Result<Array1<f32>, ExportError> {
    if world.has_layer("corner_elevation") {
        return Ok(world.view1::<f32>("corner_elevation")?.to_owned());
    }
    let region_e = world.view1::<f32>("region_elevation")?;
    Ok(Array1::from(corner_mean(world.mesh()?, |r| region_e[r])))
}

/// Field indices of the shore's raster (elevation, lake depth).
const E: usize = 0;
const LAKE: usize = 1;

/// The lake depth of every region and corner: the surface of the region's lake (or of a lake up
/// to two regions away) minus the elevation; at least `DEPTH_EPS` in a lake region, at most
/// `-DEPTH_EPS` in other regions and at corners of triangles without a lake region, -1 far from
/// any lake. Lake regions without a lake id (enclosed water
/// from the elevation stage) take the sea level as their surface; a world without
/// `region_lake` and `lake_surface` takes the share of lake regions less one half.
fn lake_depth(world: &World, corner_e: &[f32]) -> Result<(Vec<f32>, Vec<f32>), ExportError> {
    const DEPTH_EPS: f32 = 1e-4;
    let mesh = world.mesh()?;
    let region_e = world.view1::<f32>("region_elevation")?;
    let kind = world.water_kinds()?;
    let lake_id = if world.has_layer("region_lake") {
        Some(world.view1::<i32>("region_lake")?)
    } else {
        None
    };
    let surface = if world.has_layer("lake_surface") {
        Some(world.view1::<f32>("lake_surface")?)
    } else {
        None
    };
    let n = mesh.n_regions();
    let is_lake = |r: usize| kind[r] == water::LAKE;
    if lake_id.is_none() || surface.is_none() {
        // No lake surfaces (a world without hydrology): the lake share less one half.
        let share = |r: usize| f32::from(u8::from(is_lake(r))) - 0.5;
        let region: Vec<f32> = (0..n).map(&share).collect();
        return Ok((region, corner_mean(mesh, share)));
    }
    // The reference surface: a lake region's own, then spread twice over triangles (max).
    let mut level: Vec<f32> = (0..n)
        .map(|r| {
            if !is_lake(r) {
                return f32::NEG_INFINITY;
            }
            let own = lake_id
                .as_ref()
                .zip(surface.as_ref())
                .and_then(|(id, s)| usize::try_from(id[r]).ok().and_then(|l| s.get(l).copied()));
            own.unwrap_or(0.0).max(region_e[r])
        })
        .collect();
    let tri = mesh.corner_regions.view();
    for _ in 0..2 {
        let mut next = level.clone();
        for t in tri.rows() {
            let top = t
                .iter()
                .map(|&r| level[r as usize])
                .fold(f32::NEG_INFINITY, f32::max);
            for &r in t {
                let r = r as usize;
                if !is_lake(r) && top > next[r] {
                    next[r] = top;
                }
            }
        }
        level = next;
    }
    let region: Vec<f32> = (0..n)
        .map(|r| {
            if is_lake(r) {
                (level[r] - region_e[r]).max(DEPTH_EPS)
            } else if level[r].is_finite() {
                (level[r] - region_e[r]).min(-DEPTH_EPS)
            } else {
                -1.0
            }
        })
        .collect();
    // The corners a river stroke passes through are land: a river runs on land up to the lake
    // it enters, even where its corners lie below that lake's level.
    let mut on_river = vec![false; mesh.n_corners()];
    for stroke in river_strokes(world, &StrokeStyle::default())? {
        for &c in &stroke.corners {
            on_river[c as usize] = true;
        }
    }
    let corner: Vec<f32> = tri
        .rows()
        .into_iter()
        .enumerate()
        .map(|(c, t)| {
            let top = t
                .iter()
                .map(|&r| level[r as usize])
                .fold(f32::NEG_INFINITY, f32::max);
            if on_river[c] && top.is_finite() && !t.iter().all(|&r| is_lake(r as usize)) {
                (top - corner_e[c]).min(-DEPTH_EPS)
            } else if t.iter().any(|&r| is_lake(r as usize)) {
                top - corner_e[c]
            } else if top.is_finite() {
                // Land below a lake's level downstream of its outlet stays dry.
                (top - corner_e[c]).min(-DEPTH_EPS)
            } else {
                t.iter().map(|&r| region[r as usize]).sum::<f32>() / 3.0
            }
        })
        .collect();
    Ok((region, corner))
}

/// Per-region and per-corner values of a field.
type RegionCorner<T> = (Vec<T>, Vec<T>);

/// Per-region slopes (dz/dx, dz/dy, metres per metre; x east, y south) of the land surface in
/// metres (elevation below 0 as 0): the mean of the planes of each region's triangles, summed
/// in corner order. Corners take the mean of their three regions. The planes are found in
/// parallel, a block of corners at a time, then summed in corner order (the same sums on any
/// thread count).
fn slopes(world: &World) -> Result<RegionCorner<[f32; 2]>, ExportError> {
    let mesh = world.mesh()?;
    let region_e = world.view1::<f32>("region_elevation")?;
    let m = world.meta.world_size_m / world.meta.width;
    let h = |r: usize| f64::from(region_e[r].max(0.0)) * world.meta.max_height_m;
    let tri = &mesh.corner_regions;
    let corners = |c: usize| [0, 1, 2].map(|k| tri[[c, k]] as usize);
    let plane = |c: usize| {
        let [a, b, c] = corners(c);
        let p = |r: usize| (mesh.region_xy[[r, 0]] * m, mesh.region_xy[[r, 1]] * m);
        let ((xa, ya), (xb, yb), (xc, yc)) = (p(a), p(b), p(c));
        let (ha, hb, hc) = (h(a), h(b), h(c));
        let det = (xb - xa) * (yc - ya) - (xc - xa) * (yb - ya);
        if det.abs() < 1e-12 {
            return None;
        }
        let gx = ((hb - ha) * (yc - ya) - (hc - ha) * (yb - ya)) / det;
        let gy = ((xb - xa) * (hc - ha) - (xc - xa) * (hb - ha)) / det;
        Some([gx, gy])
    };
    // Block by block (one block's planes held, not every corner's: 48 MB at 1,000,000 cells).
    const BLOCK: usize = 1 << 15;
    let mut sum = vec![[0.0f64; 3]; mesh.n_regions()];
    let mut planes = Vec::with_capacity(BLOCK);
    for first in (0..mesh.n_corners()).step_by(BLOCK) {
        let block = first..(first + BLOCK).min(mesh.n_corners());
        block
            .clone()
            .into_par_iter()
            .map(plane)
            .collect_into_vec(&mut planes);
        for (c, plane) in block.zip(&planes) {
            let Some([gx, gy]) = *plane else {
                continue;
            };
            for r in corners(c) {
                sum[r][0] += gx;
                sum[r][1] += gy;
                sum[r][2] += 1.0;
            }
        }
    }
    let region: Vec<[f32; 2]> = sum
        .par_iter()
        .map(|s| {
            let k = s[2].max(1.0);
            [(s[0] / k) as f32, (s[1] / k) as f32]
        })
        .collect();
    let corner = (0..mesh.n_corners())
        .into_par_iter()
        .map(|c| {
            let g = corners(c).map(|r| region[r]);
            let (x, y) = g
                .iter()
                .fold((0.0, 0.0), |acc, v| (acc.0 + v[0], acc.1 + v[1]));
            [x / 3.0, y / 3.0]
        })
        .collect();
    Ok((region, corner))
}

/// The signed distances in pixels from pixel (i, j) to the zero lines of the elevation (`E`,
/// positive in the sea, below 0) and the lake depth (`LAKE`, positive in a lake) of a raster of
/// `stride` fields per pixel: each field's value over its gradient by central differences
/// (one-sided at the raster's edges). Both fields sit side by side, so one set of neighbours
/// serves the two.
#[inline]
fn edge_distances(f: &[f32], stride: usize, nx: usize, ny: usize, i: usize, j: usize) -> [f32; 2] {
    let at = |i: usize, j: usize| {
        let k = (j * nx + i) * stride;
        [f[k + E], f[k + LAKE]]
    };
    let (i0, i1) = (i.saturating_sub(1), (i + 1).min(nx - 1));
    let (j0, j1) = (j.saturating_sub(1), (j + 1).min(ny - 1));
    // Central differences inside (half the difference), one-sided at an edge, 0 on a raster one
    // pixel wide.
    let scale = |lo: usize, hi: usize| if hi - lo == 2 { 0.5 } else { 1.0 };
    let (sx, sy) = (scale(i0, i1), scale(j0, j1));
    let (c, w, e, n, s) = (at(i, j), at(i0, j), at(i1, j), at(i, j0), at(i, j1));
    let distance =
        |k: usize, sign: f32| signed_distance(sign * c[k], (e[k] - w[k]) * sx, (s[k] - n[k]) * sy);
    [distance(0, -1.0), distance(1, 1.0)]
}

/// A field's value `c` over its gradient `(gx, gy)`: the signed distance in pixels to where it
/// crosses 0 (infinite, with `c`'s sign, where it is flat).
#[inline]
fn signed_distance(c: f32, gx: f32, gy: f32) -> f32 {
    let g = (gx * gx + gy * gy).sqrt();
    if g > 0.0 {
        c / g
    } else if c > 0.0 {
        f32::INFINITY
    } else {
        f32::NEG_INFINITY
    }
}

/// Coverage from a signed distance in pixels.
#[inline]
fn coverage(distance: f32) -> f32 {
    (0.5 + distance).clamp(0.0, 1.0)
}

/// The water of a pixel: sea and lake coverage and their signed distances (pixels).
#[derive(Clone, Copy)]
struct Water {
    sea: f32,
    lake: f32,
    sea_d: f32,
    lake_d: f32,
}

impl Water {
    /// The water of the signed distances to the sea's and the lakes' shores ([`Water::at`]'s
    /// coverages follow from them).
    #[inline]
    fn of_distances([sea_d, lake_d]: [f32; 2]) -> Water {
        Water {
            sea: coverage(sea_d),
            lake: coverage(lake_d),
            sea_d,
            lake_d,
        }
    }

    #[inline]
    fn at(f: &[f32], stride: usize, nx: usize, ny: usize, i: usize, j: usize) -> Water {
        Water::of_distances(edge_distances(f, stride, nx, ny, i, j))
    }

    /// [`Water::at`] for every pixel of row `j` of `f` (2 fields a pixel), into `out`: the
    /// same values, the pixels inside the row by one loop without bounds checks (4 pixels at a
    /// time where the compiler vectorises it).
    fn row(f: &[f32], nx: usize, ny: usize, j: usize, out: &mut Vec<Water>) {
        out.clear();
        if nx < 3 {
            out.extend((0..nx).map(|i| Water::at(f, 2, nx, ny, i, j)));
            return;
        }
        let (j0, j1) = (j.saturating_sub(1), (j + 1).min(ny - 1));
        // As `edge_distances` scales: half the central difference, the one-sided difference at
        // the raster's top and bottom rows.
        let sy = if j1 - j0 == 2 { 0.5 } else { 1.0 };
        let row = |r: usize| &f[r * nx * 2..(r + 1) * nx * 2];
        let (north, here, south) = (row(j0), row(j), row(j1));
        out.push(Water::at(f, 2, nx, ny, 0, j));
        let inner = here
            .windows(6)
            .step_by(2)
            .zip(north[2..].chunks_exact(2))
            .zip(south[2..].chunks_exact(2))
            .take(nx - 2)
            .map(|((w, n), s)| {
                // w: the west, this and the east pixel's (elevation, lake depth).
                let sea_d = signed_distance(-w[2 + E], (w[4 + E] - w[E]) * 0.5, (s[E] - n[E]) * sy);
                let lake_d = signed_distance(
                    w[2 + LAKE],
                    (w[4 + LAKE] - w[LAKE]) * 0.5,
                    (s[LAKE] - n[LAKE]) * sy,
                );
                Water::of_distances([sea_d, lake_d])
            });
        out.extend(inner);
        out.push(Water::at(f, 2, nx, ny, nx - 1, j));
    }

    /// The share of the pixel that is water.
    #[inline]
    fn cover(&self) -> f32 {
        self.sea.max(self.lake)
    }
}

/// Region and corner values of the water fields (elevation, lake depth) and the rest.
fn water_fields(world: &World) -> Result<(RegionCorner<f32>, RegionCorner<f32>), ExportError> {
    let region_e = world.view1::<f32>("region_elevation")?.to_vec();
    let corner_e = corner_elevation(world)?.to_vec();
    let (region_d, corner_d) = lake_depth(world, &corner_e)?;
    Ok(((region_e, corner_e), (region_d, corner_d)))
}

/// The share of each pixel of `grid` covered by the sea or a lake (`ny x nx`, 0 ..= 1): the
/// colour map's shore rule. Reads the mesh, `region_elevation` (`corner_elevation`),
/// `region_water` and, when present, `region_lake` and `lake_surface`.
pub fn water_coverage(world: &World, grid: &PixelGrid) -> Result<Array2<f32>, ExportError> {
    let fields = water_raster(world, grid, water_fields(world)?, None)?;
    let f = fields.as_slice().expect("a new raster is contiguous");
    let out = water_cover(f, grid.nx, grid.ny);
    Ok(Array2::from_shape_vec((grid.ny, grid.nx), out).expect("one value per pixel"))
}

/// The elevation and lake depth (`fields`, [`water_fields`]) interpolated on `grid` (`ny x nx
/// x 2`), through `plan` when given (a plan of the world's mesh on the grid: the same bytes).
fn water_raster(
    world: &World,
    grid: &PixelGrid,
    fields: (RegionCorner<f32>, RegionCorner<f32>),
    plan: Option<&PiecePlan>,
) -> Result<Array3<f32>, ExportError> {
    let ((re, ce), (rd, cd)) = fields;
    let (mesh, sampling) = (world.mesh()?, grid.sampling());
    let region = |r: usize| [re[r], rd[r]];
    let corner = |c: usize| [ce[c], cd[c]];
    Ok(rasterize_mesh_fields_on(
        mesh, plan, region, corner, &sampling,
    )?)
}

/// The water share of every pixel of a [`water_raster`].
fn water_cover(f: &[f32], nx: usize, ny: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; nx * ny];
    out.par_chunks_mut(nx).enumerate().for_each(|(j, row)| {
        for (i, px) in row.iter_mut().enumerate() {
            *px = Water::at(f, 2, nx, ny, i, j).cover();
        }
    });
    out
}

/// The river coverage of `grid` (`ny x nx`, 0 ..= 1): the strokes of [`crate::stroke`] as
/// drawn over `water` ([`water_coverage`];
/// [`land_strokes`](crate::stroke::land_strokes)), rasterised and clipped to land
/// ([`clip_coverage`](crate::stroke::clip_coverage)). Empty (all 0) without a `rivers` layer.
pub fn river_coverage(
    world: &World,
    grid: &PixelGrid,
    style: &StrokeStyle,
    water: &[f32],
) -> Result<Vec<f32>, ExportError> {
    river_coverage_by(world, grid, style, |k| water[k])
}

/// [`river_coverage`] with the water share of pixel `k` computed by `water`.
fn river_coverage_by(
    world: &World,
    grid: &PixelGrid,
    style: &StrokeStyle,
    water: impl Fn(usize) -> f32 + Sync,
) -> Result<Vec<f32>, ExportError> {
    let strokes = land_strokes_by(&river_strokes(world, style)?, &water, grid);
    let mut cover = stroke_coverage(&strokes, grid);
    clip_coverage_by(&mut cover, &water);
    Ok(cover)
}

#[inline]
fn mix(a: Rgb, b: Rgb, t: f32) -> Rgb {
    [0, 1, 2].map(|k| a[k] + (b[k] - a[k]) * t)
}

/// Water colour `c` with the shore tint at signed distance `d` (pixels into the water).
#[inline]
fn tint(c: Rgb, d: f32) -> Rgb {
    let t = SHORE_TINT * (1.0 - d / SHORE_TINT_PX).clamp(0.0, 1.0);
    mix(c, [1.0; 3], t)
}

/// Paints the colour map's pixels of the rows from `row0` from the shore (its elevation and
/// water) and the colour map's own fields for those rows (`rest`, `K` a pixel: moisture, then
/// the slope's two components when `K` is 3) into `rgb` (the whole grid).
fn paint<const K: usize>(
    shore: &Shore,
    rest: &[[f32; K]],
    row0: usize,
    table: ndarray::ArrayView3<'_, f32>,
    options: &ColormapOptions,
    rgb: &mut [[u8; 3]],
) {
    let w = options.water;
    let (ed, nx) = (&shore.fields, shore.nx);
    let sun = crate::relief::sun();
    let strength = f64::from(options.hillshade);
    let pixel = |i: usize, j: usize, wat: Water| -> [u8; 3] {
        let e = ed[(j * nx + i) * 2 + E];
        let p = &rest[(j - row0) * nx + i];
        let mut c = [0.0; 3];
        if wat.sea < 1.0 && wat.lake < 1.0 {
            c = table_lookup(table, e, p[0]);
            if K > 1 {
                let (gx, gy) = (f64::from(p[1]) * strength, f64::from(p[2]) * strength);
                let s = crate::relief::shade(gx, gy, sun, HILLSHADE_AMOUNT) as f32;
                c = c.map(|v| v * s);
            }
        }
        if wat.sea > 0.0 {
            let sea = tint(ocean_color(w.shallow, w.deep, -e), wat.sea_d);
            c = mix(c, sea, wat.sea);
        }
        if wat.lake > 0.0 {
            c = mix(c, tint(w.lake, wat.lake_d), wat.lake);
        }
        c.map(to_u8)
    };
    let rows = rest.len() / nx;
    rgb[row0 * nx..(row0 + rows) * nx]
        .par_chunks_mut(nx)
        .enumerate()
        .for_each_init(Vec::new, |scratch, (r, row)| {
            let waters = shore.water_row(row0 + r, scratch);
            for (i, (px, &wat)) in row.iter_mut().zip(waters).enumerate() {
                *px = pixel(i, row0 + r, wat);
            }
        });
}

/// What the colour map, the biome map and the river mask of one grid share: the elevation and
/// lake depth interpolated on it (2 fields a pixel), from which the water share of each pixel
/// follows (the shore rule), and the river coverage drawn over it. Build it once for several of
/// them.
#[derive(Clone, Debug)]
pub struct Shore {
    nx: usize,
    ny: usize,
    fields: Vec<f32>,
    /// Which piece of the mesh takes each pixel, when that pays ([`PiecePlan::pays`]): the
    /// shore's fields were gathered through it, and the colour map's and the splat maps' can be.
    plan: Option<PiecePlan>,
    /// Each pixel's water ([`Water::row`]) as its two signed distances, up to
    /// [`WEIGHED_PIXELS`] pixels (8 bytes a pixel): the colour map, the biome map and the
    /// rivers' clip read it instead of each computing it again. Empty above.
    water: Vec<[f32; 2]>,
    /// Set once, by [`Shore::new`] or [`Shore::draw_rivers`]: `None` inside when drawn without
    /// rivers or for a world without them.
    rivers: OnceLock<Option<Vec<f32>>>,
}

impl Shore {
    /// The shore of `grid`, with the rivers of `rivers` (a stroke style) when the world has a
    /// `rivers` layer. Reads the layers of [`water_coverage`] and, with rivers, those of
    /// [`river_coverage`].
    pub fn new(
        world: &World,
        grid: &PixelGrid,
        rivers: Option<&StrokeStyle>,
    ) -> Result<Shore, ExportError> {
        let shore = Shore::without_rivers(world, grid)?;
        shore.draw_rivers(world, grid, rivers)?;
        Ok(shore)
    }

    /// The shore of `grid` whose rivers are not drawn yet: its elevation and water share can be
    /// read while [`Shore::draw_rivers`] runs (on another thread); [`Shore::rivers`] is `None`
    /// until then. Reads the layers of [`water_coverage`].
    pub fn without_rivers(world: &World, grid: &PixelGrid) -> Result<Shore, ExportError> {
        Shore::build(world, grid, true)
    }

    /// [`Shore::without_rivers`] for the river mask alone: without the plan and the held water
    /// that serve a colour map, a biome map or splat maps (they cost more than they save when
    /// nothing else reads them).
    pub fn without_rivers_alone(world: &World, grid: &PixelGrid) -> Result<Shore, ExportError> {
        Shore::build(world, grid, false)
    }

    /// The shore of `grid`, with a plan and the water held where they pay when `shared`.
    fn build(world: &World, grid: &PixelGrid, shared: bool) -> Result<Shore, ExportError> {
        let (mesh, sampling) = (world.mesh()?, grid.sampling());
        // The mesh's values (a few serial passes) made beside the plan (the pixels' walk).
        let (plan, values) = rayon::join(
            || {
                (shared && PiecePlan::pays(mesh, &sampling))
                    .then(|| PiecePlan::of_mesh(mesh, &sampling))
                    .transpose()
            },
            || water_fields(world),
        );
        let plan = plan?;
        let fields = water_raster(world, grid, values?, plan.as_ref())?
            .into_raw_vec_and_offset()
            .0;
        let (nx, ny) = (grid.nx, grid.ny);
        let mut water = Vec::new();
        if shared && nx * ny <= WEIGHED_PIXELS {
            water = vec![[0.0f32; 2]; nx * ny];
            water
                .par_chunks_mut(nx)
                .enumerate()
                .for_each_init(Vec::new, |scratch, (j, row)| {
                    Water::row(&fields, nx, ny, j, scratch);
                    for (d, w) in row.iter_mut().zip(scratch.iter()) {
                        *d = [w.sea_d, w.lake_d];
                    }
                });
        }
        Ok(Shore {
            nx,
            ny,
            fields,
            plan,
            water,
            rivers: OnceLock::new(),
        })
    }

    /// Draws the rivers of `rivers` (a stroke style) when the world has a `rivers` layer, none
    /// otherwise, as [`Shore::new`] does; an error if they were drawn already or `grid` is not
    /// the shore's. Reads the layers of [`river_coverage`].
    pub fn draw_rivers(
        &self,
        world: &World,
        grid: &PixelGrid,
        rivers: Option<&StrokeStyle>,
    ) -> Result<(), ExportError> {
        self.check(grid)?;
        let (nx, ny, fields) = (self.nx, self.ny, &self.fields);
        // The water share read where the rivers need it: the shore's when it holds it, else
        // computed there (not held: 67 MB at 4096 px).
        let water = |k: usize| match self.water.get(k) {
            Some(&d) => Water::of_distances(d).cover(),
            None => Water::at(fields, 2, nx, ny, k % nx, k / nx).cover(),
        };
        let cover = match rivers {
            Some(style) if world.has_layer("rivers") => {
                Some(river_coverage_by(world, grid, style, water)?)
            }
            _ => None,
        };
        self.rivers.set(cover).map_err(|_| {
            WorldError::BadLayer {
                name: "shore".into(),
                problem: "has its rivers drawn already".into(),
            }
            .into()
        })
    }

    /// Row `j`'s water: the shore's when it holds it, else computed into `scratch`.
    fn water_row<'a>(&self, j: usize, scratch: &'a mut Vec<Water>) -> &'a [Water] {
        if self.water.is_empty() {
            Water::row(&self.fields, self.nx, self.ny, j, scratch);
        } else {
            scratch.clear();
            scratch.extend(
                self.water[j * self.nx..][..self.nx]
                    .iter()
                    .map(|&d| Water::of_distances(d)),
            );
        }
        scratch
    }

    /// The grid's size `(nx, ny)`.
    pub fn size(&self) -> (usize, usize) {
        (self.nx, self.ny)
    }

    /// The elevation interpolated on the grid (`ny x nx`), the same values as
    /// [`elevation_raster`].
    pub fn elevation(&self) -> Array2<f32> {
        let e: Vec<f32> = self.fields.iter().step_by(2).copied().collect();
        Array2::from_shape_vec((self.ny, self.nx), e).expect("one value per pixel")
    }

    /// The water share of each pixel (`ny x nx` in row order), as [`water_coverage`]: computed
    /// from the shore's fields (the shore does not hold it).
    pub fn water(&self) -> Vec<f32> {
        water_cover(&self.fields, self.nx, self.ny)
    }

    /// The plan of the world's mesh on the shore's grid, when the shore made one (a mesh with
    /// more pieces than the grid has pixels): other rasters of that mesh and grid gather
    /// through it ([`orogen_world::interp::rasterize_mesh_fields_on`]).
    pub fn plan(&self) -> Option<&PiecePlan> {
        self.plan.as_ref()
    }

    /// The river coverage of each pixel, as [`river_coverage`]; `None` when built without
    /// rivers or for a world without them.
    pub fn rivers(&self) -> Option<&[f32]> {
        self.rivers.get().and_then(Option::as_deref)
    }

    /// An error unless the shore was built on a grid of `grid`'s size.
    pub fn check(&self, grid: &PixelGrid) -> Result<(), ExportError> {
        if (self.nx, self.ny) == (grid.nx, grid.ny) {
            return Ok(());
        }
        Err(WorldError::BadLayer {
            name: "shore".into(),
            problem: format!(
                "is {} x {} pixels, the grid {} x {}",
                self.nx, self.ny, grid.nx, grid.ny
            ),
        }
        .into())
    }
}

/// Paints the colour map (`ny x nx x 3`, 8-bit RGB). Reads the mesh, `region_elevation`
/// (`corner_elevation` when present), `region_moisture`, `region_water`, `biome_color_table`,
/// `region_lake` and `lake_surface` when present, and the river layers when drawing rivers.
pub fn colormap(
    world: &World,
    grid: &PixelGrid,
    options: &ColormapOptions,
) -> Result<Array3<u8>, ExportError> {
    let style = StrokeStyle::default();
    let shore = Shore::new(world, grid, options.rivers.then_some(&style))?;
    colormap_on(world, grid, options, &shore)
}

/// [`colormap`] on a [`Shore`] of the same grid built with the default [`StrokeStyle`] (the
/// rivers are drawn when `options.rivers` and the shore has them).
pub fn colormap_on(
    world: &World,
    grid: &PixelGrid,
    options: &ColormapOptions,
    shore: &Shore,
) -> Result<Array3<u8>, ExportError> {
    shore.check(grid)?;
    let mesh = world.mesh()?;
    let region_m = world.view1::<f32>("region_moisture")?;
    let table = world.view::<f32>("biome_color_table")?;
    let table = table
        .into_dimensionality::<ndarray::Ix3>()
        .ok()
        .filter(|t| t.dim().2 == 3 && t.dim().0 > 0 && t.dim().1 > 0)
        .ok_or_else(|| WorldError::BadLayer {
            name: "biome_color_table".into(),
            problem: "is not an n x m x 3 table".into(),
        })?;
    // Every field is interpolated by `orogen_world::interp`, the one place rasters come from:
    // the elevation and lake depth are the shore's, moisture and the slope one pass here.
    let corner_m = corner_mean(mesh, |r| region_m[r]);
    let (nx, ny) = (grid.nx, grid.ny);
    // The slope fields only when shading: without them the raster holds 1 field, not 3.
    // Interpolated and painted in strips of about 4 MiB of fields (192 MiB at 4096 px whole).
    let mut rgb = vec![[0u8; 3]; nx * ny];
    let strip_rows = |k: usize| (4 << 20) / (nx * k * std::mem::size_of::<f32>()).max(1);
    // The values by index: no per-region and per-corner arrays of them (36 MB at 1,000,000
    // cells).
    let sampling = grid.sampling();
    // Through the shore's plan when it has one (the same bytes).
    let plan = shore.plan();
    if options.hillshade > 0.0 {
        let (region_g, corner_g) = slopes(world)?;
        rasterize_mesh_fields_strips_on(
            mesh,
            plan,
            |r| [region_m[r], region_g[r][0], region_g[r][1]],
            |c| [corner_m[c], corner_g[c][0], corner_g[c][1]],
            &sampling,
            strip_rows(3),
            |r, f| paint::<3>(shore, f, r, table, options, &mut rgb),
        )?;
    } else {
        rasterize_mesh_fields_strips_on(
            mesh,
            plan,
            |r| [region_m[r]],
            |c| [corner_m[c]],
            &sampling,
            strip_rows(1),
            |r, f| paint::<1>(shore, f, r, table, options, &mut rgb),
        )?;
    }
    let w = options.water;
    if let (true, Some(cover)) = (options.rivers, shore.rivers()) {
        rgb.par_iter_mut()
            .zip(cover.par_iter())
            .for_each(|(px, &a)| {
                if a > 0.0 {
                    *px = mix(px.map(|v| f32::from(v) / 255.0), w.river, a).map(to_u8);
                }
            });
    }
    Ok(
        Array3::from_shape_vec((ny, nx, 3), rgb.into_flattened())
            .expect("one RGB triple per pixel"),
    )
}

/// A pixel's biome id in the biome map; [`NO_BIOME`] where no piece covers it.
#[derive(Clone, Copy)]
struct PixelBiome(u8);

/// The id of no biome (so a biome map takes at most this many colours).
const NO_BIOME: u8 = u8::MAX;

impl Default for PixelBiome {
    fn default() -> Self {
        PixelBiome(NO_BIOME)
    }
}

/// Paints the flat biome map (`ny x nx x 3`, 8-bit RGB): each pixel the colour (`colors`,
/// indexed by biome id) of the biome of the nearer land site of its piece, under the colour
/// map's shores (sea and lakes in the ocean and lake biome colours, blended by coverage) and
/// rivers (in the lake colour). Reads `region_biome` and the layers of [`water_coverage`].
pub fn biome_map(
    world: &World,
    grid: &PixelGrid,
    colors: &[Rgb],
) -> Result<Array3<u8>, ExportError> {
    let shore = Shore::new(world, grid, Some(&StrokeStyle::default()))?;
    biome_map_on(world, grid, colors, &shore)
}

/// [`biome_map`] on a [`Shore`] of the same grid (rivers drawn when the shore has them).
pub fn biome_map_on(
    world: &World,
    grid: &PixelGrid,
    colors: &[Rgb],
    shore: &Shore,
) -> Result<Array3<u8>, ExportError> {
    shore.check(grid)?;
    let mesh = world.mesh()?;
    let biome = world.view1::<u8>("region_biome")?;
    if colors.len() > usize::from(NO_BIOME) {
        return Err(WorldError::BadLayer {
            name: "biome colours".into(),
            problem: format!("{} colours (at most {NO_BIOME})", colors.len()),
        }
        .into());
    }
    if let Some(bad) = biome.iter().find(|&&b| b as usize >= colors.len()) {
        return Err(WorldError::BadLayer {
            name: "region_biome".into(),
            problem: format!("biome id {bad} has no colour"),
        }
        .into());
    }
    let ocean = orogen_world::ids::Biome::Ocean as usize;
    let lake = orogen_world::ids::Biome::Lake as usize;
    let kind = world.water_kinds()?;
    let (nx, ny) = (grid.nx, grid.ny);
    let rivers = shore.rivers().filter(|_| colors.len() > lake);
    let (sea_c, lake_c) = (
        colors.get(ocean).copied().unwrap_or([0.0; 3]),
        colors.get(lake).copied().unwrap_or([0.0; 3]),
    );
    let mut bytes = vec![0u8; nx * ny * 3];
    // Each pixel's biome id (not a float colour: 12 bytes a pixel, 192 MiB at 4096 px), in
    // strips of about 4 MiB, each coloured under the shores and rivers at once; pixels in no
    // piece stay black.
    let nearer_land = |p: &PieceAt| {
        let (near, far) = if p.w[0] >= p.w[1] {
            (p.a, p.b)
        } else {
            (p.b, p.a)
        };
        let r = if kind[near] != water::LAND && kind[far] == water::LAND {
            far
        } else {
            near
        };
        PixelBiome(biome[r])
    };
    // Through the shore's plan when it has one (the same bytes as walking the pieces).
    rasterize_mesh_pieces_strips_on(
        mesh,
        shore.plan(),
        &grid.sampling(),
        (4 << 20) / nx.max(1),
        PixelBiome::default(),
        nearer_land,
        |row0, ids| {
            let rows = ids.len() / nx;
            bytes[row0 * nx * 3..(row0 + rows) * nx * 3]
                .par_chunks_mut(nx * 3)
                .enumerate()
                .for_each_init(Vec::new, |scratch, (r, row)| {
                    let j = row0 + r;
                    let waters = shore.water_row(j, scratch);
                    for (i, (out, &wat)) in row.chunks_exact_mut(3).zip(waters).enumerate() {
                        let PixelBiome(b) = ids[r * nx + i];
                        let mut px = if b == NO_BIOME {
                            [0.0; 3]
                        } else {
                            colors[b as usize]
                        };
                        let px = &mut px;
                        if wat.sea > 0.0 {
                            *px = mix(*px, sea_c, wat.sea);
                        }
                        if wat.lake > 0.0 {
                            *px = mix(*px, lake_c, wat.lake);
                        }
                        if let Some(cover) = &rivers {
                            let a = cover[j * nx + i];
                            if a > 0.0 {
                                *px = mix(*px, lake_c, a);
                            }
                        }
                        out.copy_from_slice(&px.map(to_u8));
                    }
                });
        },
    )?;
    Ok(Array3::from_shape_vec((ny, nx, 3), bytes).expect("one RGB triple per pixel"))
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)]
mod tests {
    use super::*;
    use ndarray::{Array1, Array2};
    use orogen_world::{Csr, Domain, Layer, WorldMeta};

    #[test]
    fn a_row_of_water_is_each_pixel_s_water() {
        // Fields with shores (sign changes), flat patches (no gradient) and both signs of zero,
        // on rasters one and two pixels wide or high as well.
        let value = |k: usize| match k % 7 {
            0 => 0.0,
            1 => -0.0,
            _ => ((k as f32 * 0.37).sin() * 3.0).round() / 2.0 - 0.2,
        };
        for (nx, ny) in [(1, 1), (2, 1), (1, 3), (2, 2), (3, 1), (9, 7), (64, 5)] {
            let f: Vec<f32> = (0..nx * ny * 2).map(value).collect();
            let mut row = Vec::new();
            for j in 0..ny {
                Water::row(&f, nx, ny, j, &mut row);
                assert_eq!(row.len(), nx);
                for (i, got) in row.iter().enumerate() {
                    let want = Water::at(&f, 2, nx, ny, i, j);
                    let bits = |w: &Water| [w.sea, w.lake, w.sea_d, w.lake_d].map(f32::to_bits);
                    assert_eq!(bits(got), bits(&want), "{nx} x {ny}, pixel ({i}, {j})");
                }
            }
        }
    }

    /// A `k x k` grid of sites on the unit square, each square split into two triangles.
    fn grid_world(k: usize) -> World {
        let n = k * k;
        let id = |i: usize, j: usize| (j * k + i) as u32;
        let region_xy = Array2::from_shape_fn((n, 2), |(r, c)| {
            let v = if c == 0 { r % k } else { r / k };
            v as f64 / (k - 1) as f64
        });
        let mut tris: Vec<[u32; 3]> = Vec::new();
        for j in 0..k - 1 {
            for i in 0..k - 1 {
                tris.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
                tris.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
            }
        }
        let corner_xy = Array2::from_shape_fn((tris.len(), 2), |(t, c)| {
            tris[t]
                .iter()
                .map(|&r| region_xy[[r as usize, c]])
                .sum::<f64>()
                / 3.0
        });
        let empty_r: Vec<Vec<u32>> = vec![Vec::new(); n];
        let empty_c: Vec<Vec<u32>> = vec![Vec::new(); tris.len()];
        let mesh = DualMesh {
            region_xy,
            region_is_boundary: Array1::zeros(n),
            corner_xy,
            corner_regions: Array2::from_shape_fn((tris.len(), 3), |(t, c)| tris[t][c]),
            region_neighbors: Csr::from_lists(&empty_r),
            region_corners: Csr::from_lists(&empty_r),
            corner_neighbors: Csr::from_lists(&empty_c),
        };
        let mut world = World::new(WorldMeta::default());
        world.set_mesh(mesh).unwrap();
        world
    }

    fn set_region(world: &mut World, name: &str, v: Vec<f32>) {
        world.set_values(name, Domain::Region, v).unwrap();
    }

    fn water() -> WaterColors {
        WaterColors {
            shallow: [0.12, 0.40, 0.70],
            deep: [0.02, 0.15, 0.50],
            lake: [0.2, 0.45, 0.75],
            river: [0.05, 0.25, 0.65],
        }
    }

    /// A world whose elevation is linear in x (a plane from -1 to 1) and moisture linear in y.
    fn plane_world(k: usize) -> World {
        let mut world = grid_world(k);
        let xy = world.mesh().unwrap().region_xy.clone();
        let n = xy.nrows();
        set_region(
            &mut world,
            "region_elevation",
            (0..n).map(|r| (2.0 * xy[[r, 0]] - 1.0) as f32).collect(),
        );
        set_region(
            &mut world,
            "region_moisture",
            (0..n).map(|r| xy[[r, 1]] as f32).collect(),
        );
        let kind: Vec<u8> = (0..n).map(|r| u8::from(xy[[r, 0]] < 0.5)).collect();
        world
            .set_values("region_water", Domain::Region, kind)
            .unwrap();
        // A table whose red is elevation and green is moisture.
        let table = Array3::from_shape_fn((8, 8, 3), |(i, j, c)| match c {
            0 => i as f32 / 7.0,
            1 => j as f32 / 7.0,
            _ => 0.0,
        });
        world
            .set_layer("biome_color_table", Domain::Free, table.into_dyn())
            .unwrap();
        world
    }

    #[test]
    fn interpolation_reproduces_linear_fields() {
        // Linear fields are reproduced exactly by barycentric interpolation (corner values are
        // the mean of three sites, which for a linear field is its value at the centroid).
        let world = plane_world(9);
        let grid = PixelGrid::centres(64, 1.0, 1.0).unwrap();
        let e = elevation_raster(&world, &grid).unwrap();
        for j in 0..64 {
            for i in 0..64 {
                let (x, _) = grid.point(i, j);
                assert!(
                    (e[[j, i]] - (2.0 * x as f32 - 1.0)).abs() < 1e-5,
                    "({i}, {j})"
                );
            }
        }
    }

    #[test]
    fn colormap_looks_up_the_table_and_colours_the_ocean() {
        let world = plane_world(9);
        let grid = PixelGrid::centres(64, 1.0, 1.0).unwrap();
        let options = ColormapOptions {
            water: water(),
            hillshade: 0.0,
            rivers: true,
        };
        let img = colormap(&world, &grid, &options).unwrap();
        assert_eq!(img.dim(), (64, 64, 3));
        for j in (0..64).step_by(7) {
            for i in (0..64).step_by(5) {
                let (x, y) = grid.point(i, j);
                let e = 2.0 * x - 1.0;
                let px = [img[[j, i, 0]], img[[j, i, 1]], img[[j, i, 2]]];
                // Away from the shore (its blend and tint reach 3 px; 1 px is 2/64 here).
                if e.abs() < 3.0 * 2.0 / 64.0 {
                    continue;
                }
                let want = if e < 0.0 {
                    ocean_color(water().shallow, water().deep, -e as f32)
                } else {
                    [e as f32, y as f32, 0.0]
                };
                for c in 0..3 {
                    assert!(
                        (i32::from(px[c]) - i32::from(to_u8(want[c]))).abs() <= 1,
                        "({i}, {j})"
                    );
                }
            }
        }
        // Same bytes with one and two threads.
        let run = |n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
                .install(|| {
                    let o = ColormapOptions {
                        hillshade: 4.0,
                        ..options
                    };
                    colormap(&world, &PixelGrid::centres(100, 1.0, 1.0).unwrap(), &o).unwrap()
                })
        };
        assert_eq!(run(1), run(2));
    }

    #[test]
    fn rivers_are_drawn_with_their_width_and_lakes_in_lake_colour() {
        let mut world = plane_world(9);
        let grid = PixelGrid::centres(128, 1.0, 1.0).unwrap();
        let options = ColormapOptions {
            water: water(),
            hillshade: 0.0,
            rivers: true,
        };
        let before = colormap(&world, &grid, &options).unwrap();
        // A river along the corners of one row of squares on the land half.
        let corners: Vec<u32> = (4..8).map(|i| (4 * 8 + i) as u32 * 2).collect();
        let widths = vec![0.05f32; corners.len()];
        let offsets = Array1::from(vec![0u32, corners.len() as u32]);
        world
            .insert_layer(
                "rivers",
                Layer::ragged_indices(
                    Domain::Free,
                    Domain::Corner,
                    Csr::from_lists(std::slice::from_ref(&corners)),
                ),
            )
            .unwrap();
        world
            .insert_layer(
                "river_width",
                Layer::ragged(Domain::Free, offsets, Array1::from(widths).into_dyn()),
            )
            .unwrap();
        let after = colormap(&world, &grid, &options).unwrap();
        let river = water().river.map(to_u8);
        let mid = world
            .mesh()
            .unwrap()
            .corner_xy
            .row(corners[1] as usize)
            .to_owned();
        let (ci, cj) = ((mid[0] * 128.0) as usize, (mid[1] * 128.0) as usize);
        assert_eq!(
            [after[[cj, ci, 0]], after[[cj, ci, 1]], after[[cj, ci, 2]]],
            river
        );
        // 0.05 map units = 6.4 px wide: 2 px away is river, 8 px away is not.
        assert_eq!(after[[cj + 2, ci, 2]], river[2]);
        assert_eq!(after[[cj + 8, ci, 2]], before[[cj + 8, ci, 2]]);
        // A lake region paints its surroundings in lake colour.
        let mut kind = world.view1::<u8>("region_water").unwrap().to_owned();
        let lake_r = 7 * 9 + 7;
        kind[lake_r] = water::LAKE;
        world
            .set_layer("region_water", Domain::Region, kind.into_dyn())
            .unwrap();
        let img = colormap(&world, &grid, &options).unwrap();
        let (lx, ly) = (7.0 / 8.0 * 128.0, 7.0 / 8.0 * 128.0);
        let lake = water().lake.map(to_u8);
        assert_eq!(
            [
                img[[ly as usize, lx as usize, 0]],
                img[[ly as usize, lx as usize, 1]],
                img[[ly as usize, lx as usize, 2]]
            ],
            lake
        );
        // One shore serves the colour map, the river mask and the heightmap's elevation.
        let style = StrokeStyle::default();
        let shore = Shore::new(&world, &grid, Some(&style)).unwrap();
        assert_eq!(colormap_on(&world, &grid, &options, &shore).unwrap(), img);
        let bits = |a: &Array2<f32>| a.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(
            bits(&shore.elevation()),
            bits(&elevation_raster(&world, &grid).unwrap())
        );
        let mask = crate::rivers::river_mask_on(&shore);
        assert_eq!(
            mask,
            crate::rivers::river_mask(&world, &grid, &style).unwrap()
        );
        assert!(mask.iter().any(|&a| a == 255));
        // Built in two steps (the rivers drawn while others read its elevation): no rivers
        // before, the same ones after, and drawn only once.
        let later = Shore::without_rivers(&world, &grid).unwrap();
        assert!(later.rivers().is_none());
        assert_eq!(bits(&later.elevation()), bits(&shore.elevation()));
        later.draw_rivers(&world, &grid, Some(&style)).unwrap();
        assert_eq!(later.rivers(), shore.rivers());
        assert!(later.draw_rivers(&world, &grid, Some(&style)).is_err());
        assert_eq!(colormap_on(&world, &grid, &options, &later).unwrap(), img);
        // Holding the water and the plan (as up to `WEIGHED_PIXELS`) or not (above): the same
        // colour map, biome map and rivers. The biome map's colours differ by region.
        assert!(!shore.water.is_empty() && shore.plan.is_some());
        let mut bare = Shore::without_rivers(&world, &grid).unwrap();
        (bare.water, bare.plan) = (Vec::new(), None);
        bare.draw_rivers(&world, &grid, Some(&style)).unwrap();
        assert_eq!(bare.rivers(), shore.rivers());
        assert_eq!(colormap_on(&world, &grid, &options, &bare).unwrap(), img);
        let n_regions = world.mesh().unwrap().n_regions();
        let ids: Vec<u8> = (0..n_regions).map(|r| (r % 13) as u8).collect();
        world
            .set_values("region_biome", Domain::Region, ids)
            .unwrap();
        let colors: Vec<Rgb> = (0..13).map(|i| [i as f32 / 12.0, 0.3, 0.9]).collect();
        let held = biome_map_on(&world, &grid, &colors, &shore).unwrap();
        assert_eq!(biome_map_on(&world, &grid, &colors, &bare).unwrap(), held);
        assert!(held.iter().any(|&v| v != held[[0, 0, 0]]));
        // A shore of another grid is refused.
        let other = PixelGrid::centres(64, 1.0, 1.0).unwrap();
        assert!(
            Shore::without_rivers(&world, &grid)
                .unwrap()
                .draw_rivers(&world, &other, None)
                .is_err()
        );
        assert!(colormap_on(&world, &other, &options, &shore).is_err());
        assert!(biome_map_on(&world, &other, &[[0.0; 3]; 16], &shore).is_err());
    }

    #[test]
    fn biome_map_paints_the_nearest_site_and_refuses_unknown_ids() {
        let mut world = plane_world(5);
        let n = 25;
        let ids: Vec<u8> = (0..n).map(|r| (r % 11) as u8).collect();
        world
            .set_values("region_biome", Domain::Region, ids.clone())
            .unwrap();
        let colors: Vec<Rgb> = (0..11)
            .map(|i| [i as f32 / 10.0, 0.5, 1.0 - i as f32 / 10.0])
            .collect();
        let grid = PixelGrid::centres(40, 1.0, 1.0).unwrap();
        let img = biome_map(&world, &grid, &colors).unwrap();
        // Pixels next to each land site carry its colour; the sea (x < 0.5) is the ocean's.
        for r in 0..n {
            let xy = world.mesh().unwrap().region_xy.row(r).to_owned();
            let i = ((xy[0] * 40.0) as usize).min(39);
            let j = ((xy[1] * 40.0) as usize).min(39);
            let want = if xy[0] > 0.5 {
                colors[ids[r] as usize]
            } else if xy[0] < 0.5 {
                colors[0]
            } else {
                continue;
            };
            assert_eq!(img[[j, i, 0]], to_u8(want[0]), "site {r}");
        }
        assert!(biome_map(&world, &grid, &colors[..5]).is_err());
    }
}
