//! The colour map (`colormap.png`) and the flat biome map (`biomes.png`).
//!
//! The colour map follows the article: per pixel, stored elevation and moisture are interpolated
//! over the mesh by `orogen_world::interp` (each Delaunay triangle split in three by its corner
//! point, barycentric between the piece's two sites and the corner), then looked up bilinearly
//! in the blurred biome colour table (layer `biome_color_table`), so colours blend across cells.
//! Water below sea level blends shallow to deep with `t = depth^0.7`; lakes (the interpolated
//! share of lake regions above one half) get the lake colour; rivers are drawn on top with their
//! widths, anti-aliased; an optional hillshade darkens slopes facing away from a north-west sun.
//!
//! The flat biome map paints each pixel with the colour of the biome of the nearer of its
//! piece's two sites (`region_biome`): cells bounded by the lines from the triangle centroids to
//! the edge midpoints, close to the Voronoi cells.
//!
//! The colours come from the caller (the biome stage's palette, passed by the pipeline), since
//! export depends on no stage.

use ndarray::{Array1, Array2, Array3, ArrayView3};
use orogen_world::ids::water;
use orogen_world::interp::{rasterize_mesh, rasterize_mesh_fields};
use orogen_world::{DualMesh, World, WorldError};
use rayon::prelude::*;

use crate::ExportError;
use crate::grid::PixelGrid;

/// An RGB colour, channels 0 ..= 1.
pub type Rgb = [f32; 3];

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
    /// Darken slopes facing away from a north-west sun (45 degrees up).
    pub hillshade: bool,
    /// Draw the rivers of the `rivers` layer (when present).
    pub rivers: bool,
}

/// One piece of a split Delaunay triangle under a pixel: its sites `a` and `b` and their
/// barycentric weights at the pixel centre (the corner takes the rest).
#[derive(Clone, Copy, Debug)]
struct Piece {
    a: usize,
    b: usize,
    wa: f32,
    wb: f32,
}

/// Rows per band of the parallel rasteriser.
const BAND: usize = 16;

/// Rasterises the split triangles of `mesh` on `grid` for the flat biome map, which needs the
/// nearer site of each pixel's piece rather than an interpolated value (values come from
/// `orogen_world::interp`): `f(piece)` for every pixel centre inside
/// a piece (a pixel on a shared edge takes the last piece in corner order). Row bands run in
/// parallel, each visiting its pieces in corner order, so the result is the same for any thread
/// count. Returns the `ny x nx` values, row-major; pixels in no piece keep `T::default()`.
fn rasterise<T, F>(mesh: &DualMesh, grid: &PixelGrid, f: F) -> Vec<T>
where
    T: Copy + Default + Send,
    F: Fn(&Piece) -> T + Sync,
{
    let (nx, ny) = (grid.nx, grid.ny);
    // Map point -> continuous pixel coordinates, in which pixel (i, j) is at (i, j).
    let (sx, sy, ox) = match grid.sampling {
        crate::grid::Sampling::PixelCentres => {
            (nx as f64 / grid.width, ny as f64 / grid.height, -0.5f64)
        }
        crate::grid::Sampling::Vertices => (
            (nx - 1) as f64 / grid.width,
            (ny - 1) as f64 / grid.height,
            0.0,
        ),
    };
    let to_px = |x: f64, y: f64| (x * sx + ox, y * sy + ox);
    let n_bands = ny.div_ceil(BAND);
    let mut bins: Vec<Vec<u32>> = vec![Vec::new(); n_bands];
    let corner_px: Vec<(f64, f64)> = (0..mesh.n_corners())
        .map(|c| to_px(mesh.corner_xy[[c, 0]], mesh.corner_xy[[c, 1]]))
        .collect();
    let region_px: Vec<(f64, f64)> = (0..mesh.n_regions())
        .map(|r| to_px(mesh.region_xy[[r, 0]], mesh.region_xy[[r, 1]]))
        .collect();
    for c in 0..mesh.n_corners() {
        let rows = mesh.corner_regions.row(c);
        let ys = rows.iter().map(|&r| region_px[r as usize].1);
        let lo = ys.clone().fold(f64::INFINITY, f64::min).ceil().max(0.0);
        let hi = ys.fold(f64::NEG_INFINITY, f64::max).floor();
        if hi < 0.0 || lo > (ny - 1) as f64 {
            continue;
        }
        let (lo, hi) = (lo as usize / BAND, (hi as usize).min(ny - 1) / BAND);
        for bin in &mut bins[lo..=hi] {
            bin.push(c as u32);
        }
    }
    let mut out = vec![T::default(); nx * ny];
    out.par_chunks_mut(nx * BAND)
        .zip(bins.par_iter())
        .enumerate()
        .for_each(|(band, (chunk, bin))| {
            let row0 = band * BAND;
            let rows = chunk.len() / nx;
            for &c in bin {
                let c = c as usize;
                let tri = mesh.corner_regions.row(c);
                let pc = corner_px[c];
                for k in 0..3 {
                    let a = tri[k] as usize;
                    let b = tri[(k + 1) % 3] as usize;
                    let (pa, pb) = (region_px[a], region_px[b]);
                    let det = (pb.0 - pa.0) * (pc.1 - pa.1) - (pc.0 - pa.0) * (pb.1 - pa.1);
                    if det.abs() < 1e-300 {
                        continue;
                    }
                    let ymin = pa.1.min(pb.1).min(pc.1).ceil().max(row0 as f64);
                    let ymax =
                        pa.1.max(pb.1)
                            .max(pc.1)
                            .floor()
                            .min((row0 + rows - 1) as f64);
                    let xmin = pa.0.min(pb.0).min(pc.0).ceil().max(0.0);
                    let xmax = pa.0.max(pb.0).max(pc.0).floor().min((nx - 1) as f64);
                    if ymin > ymax || xmin > xmax {
                        continue;
                    }
                    let eps = -1e-9;
                    let inv = 1.0 / det;
                    // The weights are affine in the pixel position: step them along each row.
                    let (dwb, dwc) = ((pc.1 - pa.1) * inv, -(pb.1 - pa.1) * inv);
                    for j in ymin as usize..=ymax as usize {
                        let (x0, y) = (xmin, j as f64);
                        let mut wb =
                            ((x0 - pa.0) * (pc.1 - pa.1) - (pc.0 - pa.0) * (y - pa.1)) * inv;
                        let mut wc =
                            ((pb.0 - pa.0) * (y - pa.1) - (x0 - pa.0) * (pb.1 - pa.1)) * inv;
                        for i in xmin as usize..=xmax as usize {
                            let (b_w, c_w) = (wb, wc);
                            wb += dwb;
                            wc += dwc;
                            let wa = 1.0 - b_w - c_w;
                            if wa < eps || b_w < eps || c_w < eps {
                                continue;
                            }
                            let piece = Piece {
                                a,
                                b,
                                wa: wa as f32,
                                wb: b_w as f32,
                            };
                            chunk[(j - row0) * nx + i] = f(&piece);
                        }
                    }
                }
            }
        });
    out
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

fn ocean(shallow: Rgb, deep: Rgb, depth: f32) -> Rgb {
    let t = depth.clamp(0.0, 1.0).powf(0.7);
    [0, 1, 2].map(|c| shallow[c] * (1.0 - t) + deep[c] * t)
}

/// Bilinear lookup in an `n x n x 3` table at (e, m), each clamped to 0 ..= 1.
fn lookup(table: ArrayView3<'_, f32>, e: f32, m: f32) -> Rgb {
    let (ne, nm, _) = table.dim();
    let cell = |v: f32, n: usize| -> (usize, usize, f32) {
        if n < 2 {
            return (0, 0, 0.0);
        }
        let f = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) } * (n - 1) as f32;
        let i0 = (f.floor() as usize).min(n - 2);
        (i0, i0 + 1, f - i0 as f32)
    };
    let (i0, i1, ti) = cell(e, ne);
    let (j0, j1, tj) = cell(m, nm);
    [0, 1, 2].map(|c| {
        let a = table[[i0, j0, c]] * (1.0 - tj) + table[[i0, j1, c]] * tj;
        let b = table[[i1, j0, c]] * (1.0 - tj) + table[[i1, j1, c]] * tj;
        a * (1.0 - ti) + b * ti
    })
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

/// Paints the colour map (`ny x nx x 3`, 8-bit RGB). Reads the mesh, `region_elevation`
/// (`corner_elevation` when present), `region_moisture`, `region_water`, `biome_color_table`,
/// and `rivers` / `river_width` when drawing rivers.
pub fn colormap(
    world: &World,
    grid: &PixelGrid,
    options: &ColormapOptions,
) -> Result<Array3<u8>, ExportError> {
    let mesh = world.mesh()?;
    let region_m = world.view1::<f32>("region_moisture")?;
    let region_w = world.water_kinds()?;
    let table = world.view::<f32>("biome_color_table")?;
    let table = table
        .into_dimensionality::<ndarray::Ix3>()
        .ok()
        .filter(|t| t.dim().2 == 3 && t.dim().0 > 0 && t.dim().1 > 0)
        .ok_or_else(|| WorldError::BadLayer {
            name: "biome_color_table".into(),
            problem: "is not an n x m x 3 table".into(),
        })?;
    // Every field is interpolated by `orogen_world::interp`, the one place rasters come from,
    // in one pass: elevation, moisture and the lake share (1 at lake sites, 0 elsewhere).
    let region_e = world.view1::<f32>("region_elevation")?;
    let corner_e = corner_elevation(world)?;
    let corner_m = corner_mean(mesh, |r| region_m[r]);
    let is_lake = |r: usize| f32::from(u8::from(region_w[r] == water::LAKE));
    let corner_lake = corner_mean(mesh, is_lake);
    let region_fields: Vec<[f32; 3]> = (0..mesh.n_regions())
        .map(|r| [region_e[r], region_m[r], is_lake(r)])
        .collect();
    let corner_fields: Vec<[f32; 3]> = (0..mesh.n_corners())
        .map(|c| [corner_e[c], corner_m[c], corner_lake[c]])
        .collect();
    let fields = rasterize_mesh_fields(mesh, &region_fields, &corner_fields, &grid.sampling())?;
    let fields = fields.as_slice().expect("a new raster is contiguous");
    let w = options.water;
    let mut rgb: Vec<[u8; 3]> = fields
        .par_chunks(3)
        .map(|f| {
            let (e, m, lake) = (f[0], f[1], f[2]);
            let c = if lake > 0.5 {
                w.lake
            } else if e < 0.0 {
                ocean(w.shallow, w.deep, -e)
            } else {
                lookup(table, e, m)
            };
            c.map(to_u8)
        })
        .collect();
    if options.hillshade {
        let e: Vec<f32> = fields.par_chunks(3).map(|f| f[0]).collect();
        hillshade(&mut rgb, &e, grid, &world.meta);
    }
    let (nx, ny) = (grid.nx, grid.ny);
    if options.rivers && world.has_layer("rivers") {
        draw_rivers(world, grid, w.river, &mut rgb)?;
    }
    Ok(
        Array3::from_shape_vec((ny, nx, 3), rgb.into_flattened())
            .expect("one RGB triple per pixel"),
    )
}

/// Lambert shading from a sun in the north-west, 45 degrees up, on land only: a flat pixel
/// keeps its colour; slopes facing the sun brighten a little, those facing away darken.
fn hillshade(rgb: &mut [[u8; 3]], e: &[f32], grid: &PixelGrid, meta: &orogen_world::WorldMeta) {
    let (nx, ny) = (grid.nx, grid.ny);
    if nx < 3 || ny < 3 {
        return;
    }
    // Pixel size in metres and elevation in metres.
    let px_m = meta.world_size_m / nx as f64;
    let py_m = px_m * (grid.height / grid.width) * (nx as f64 / ny as f64);
    let h = |i: usize, j: usize| {
        let v = e[j * nx + i];
        f64::from(v.max(0.0)) * meta.max_height_m
    };
    let (zen, az) = (45f64.to_radians(), 315f64.to_radians());
    // Sun direction with x east, y south (rows go down), z up.
    let sun = [zen.sin() * az.sin(), -zen.sin() * az.cos(), zen.cos()];
    rgb.par_chunks_mut(nx).enumerate().for_each(|(j, row)| {
        let (j0, j1) = (j.saturating_sub(1), (j + 1).min(ny - 1));
        for (i, px) in row.iter_mut().enumerate() {
            if e[j * nx + i] <= 0.0 {
                continue;
            }
            let (i0, i1) = (i.saturating_sub(1), (i + 1).min(nx - 1));
            let dzdx = (h(i1, j) - h(i0, j)) / ((i1 - i0) as f64 * px_m);
            let dzdy = (h(i, j1) - h(i, j0)) / ((j1 - j0) as f64 * py_m);
            let n = [-dzdx, -dzdy, 1.0];
            let len = (n[0] * n[0] + n[1] * n[1] + 1.0).sqrt();
            let lambert = (n[0] * sun[0] + n[1] * sun[1] + n[2] * sun[2]) / len;
            let factor = (lambert / sun[2]).clamp(0.0, 1.4) as f32;
            let factor = 0.6 + 0.4 * factor;
            for c in px.iter_mut() {
                *c = (f32::from(*c) * factor).round().min(255.0) as u8;
            }
        }
    });
}

/// Draws every river of `rivers` (ragged corner ids) as anti-aliased capsules along its
/// corners, `river_width` (map units, per corner) wide, at least one pixel.
fn draw_rivers(
    world: &World,
    grid: &PixelGrid,
    color: Rgb,
    rgb: &mut [[u8; 3]],
) -> Result<(), ExportError> {
    let mesh = world.mesh()?;
    let offsets = world.offsets("rivers")?.to_vec();
    let corners = world.view::<u32>("rivers")?;
    let corners: Vec<u32> = corners.iter().copied().collect();
    let widths: Option<Vec<f32>> = if world.has_layer("river_width") {
        let w = world.view::<f32>("river_width")?;
        (w.len() == corners.len()).then(|| w.iter().copied().collect())
    } else {
        None
    };
    let (nx, ny) = (grid.nx, grid.ny);
    let scale = nx as f64 / grid.width;
    let to_px = |c: usize| {
        let (x, y) = (mesh.corner_xy[[c, 0]], mesh.corner_xy[[c, 1]]);
        match grid.sampling {
            crate::grid::Sampling::PixelCentres => {
                (x * scale - 0.5, y * ny as f64 / grid.height - 0.5)
            }
            crate::grid::Sampling::Vertices => (
                x * (nx - 1) as f64 / grid.width,
                y * (ny - 1) as f64 / grid.height,
            ),
        }
    };
    for river in offsets.windows(2) {
        let (s, e) = (river[0] as usize, river[1] as usize);
        for k in s..e.saturating_sub(1) {
            let (ca, cb) = (corners[k] as usize, corners[k + 1] as usize);
            if ca >= mesh.n_corners() || cb >= mesh.n_corners() {
                return Err(WorldError::BadLayer {
                    name: "rivers".into(),
                    problem: "corner id out of range".into(),
                }
                .into());
            }
            let width_px = widths
                .as_ref()
                .map_or(1.0, |w| f64::from(w[k].max(w[k + 1])).max(0.0) * scale);
            let half = (width_px * 0.5).max(0.5);
            let (pa, pb) = (to_px(ca), to_px(cb));
            stamp_segment(rgb, nx, ny, pa, pb, half, color);
        }
    }
    Ok(())
}

/// Blends `color` over the pixels within `half` pixels of segment pa-pb (coverage
/// `clamp(half + 0.5 - distance, 0, 1)`).
fn stamp_segment(
    rgb: &mut [[u8; 3]],
    nx: usize,
    ny: usize,
    pa: (f64, f64),
    pb: (f64, f64),
    half: f64,
    color: Rgb,
) {
    crate::draw::segment_coverage(nx, ny, pa, pb, half, |idx, cover| {
        let px = &mut rgb[idx];
        for c in 0..3 {
            let v = f32::from(px[c]) / 255.0 * (1.0 - cover) + color[c] * cover;
            px[c] = to_u8(v);
        }
    });
}

/// Paints the flat biome map (`ny x nx x 3`, 8-bit RGB): each pixel the colour (`colors`,
/// indexed by biome id) of the biome of the nearer site of its piece. Reads `region_biome`.
pub fn biome_map(
    world: &World,
    grid: &PixelGrid,
    colors: &[Rgb],
) -> Result<Array3<u8>, ExportError> {
    let mesh = world.mesh()?;
    let biome = world.view1::<u8>("region_biome")?;
    if let Some(bad) = biome.iter().find(|&&b| b as usize >= colors.len()) {
        return Err(WorldError::BadLayer {
            name: "region_biome".into(),
            problem: format!("biome id {bad} has no colour"),
        }
        .into());
    }
    let colors: Vec<[u8; 3]> = colors.iter().map(|c| c.map(to_u8)).collect();
    let rgb: Vec<[u8; 3]> = rasterise(mesh, grid, |p| {
        let id = if p.wa >= p.wb { biome[p.a] } else { biome[p.b] };
        colors[id as usize]
    });
    Ok(
        Array3::from_shape_vec((grid.ny, grid.nx, 3), rgb.into_flattened())
            .expect("one RGB triple per pixel"),
    )
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)]
mod tests {
    use super::*;
    use ndarray::{Array1, Array2};
    use orogen_world::{Csr, Domain, Layer, WorldMeta};

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
        world
            .set_layer(name, Domain::Region, Array1::from(v).into_dyn())
            .unwrap();
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
            .set_layer(
                "region_water",
                Domain::Region,
                Array1::from(kind).into_dyn(),
            )
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
            hillshade: false,
            rivers: true,
        };
        let img = colormap(&world, &grid, &options).unwrap();
        assert_eq!(img.dim(), (64, 64, 3));
        for j in (0..64).step_by(7) {
            for i in (0..64).step_by(5) {
                let (x, y) = grid.point(i, j);
                let e = 2.0 * x - 1.0;
                let px = [img[[j, i, 0]], img[[j, i, 1]], img[[j, i, 2]]];
                let want = if e < 0.0 {
                    ocean(water().shallow, water().deep, -e as f32)
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
                        hillshade: true,
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
            hillshade: false,
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
    }

    #[test]
    fn biome_map_paints_the_nearest_site_and_refuses_unknown_ids() {
        let mut world = plane_world(5);
        let n = 25;
        let ids: Vec<u8> = (0..n).map(|r| (r % 11) as u8).collect();
        world
            .set_layer(
                "region_biome",
                Domain::Region,
                Array1::from(ids.clone()).into_dyn(),
            )
            .unwrap();
        let colors: Vec<Rgb> = (0..11)
            .map(|i| [i as f32 / 10.0, 0.5, 1.0 - i as f32 / 10.0])
            .collect();
        let grid = PixelGrid::centres(40, 1.0, 1.0).unwrap();
        let img = biome_map(&world, &grid, &colors).unwrap();
        // Pixels next to each site carry its colour.
        for r in 0..n {
            let xy = world.mesh().unwrap().region_xy.row(r).to_owned();
            let i = ((xy[0] * 40.0) as usize).min(39);
            let j = ((xy[1] * 40.0) as usize).min(39);
            assert_eq!(
                img[[j, i, 0]],
                to_u8(colors[ids[r] as usize][0]),
                "site {r}"
            );
        }
        assert!(biome_map(&world, &grid, &colors[..5]).is_err());
    }
}
