//! Interpolation of per-region and per-corner values over the map: the one place every raster
//! (heightmap, colour map, moisture) is sampled from the mesh.
//!
//! As the conventions say, each Delaunay triangle is split into three by its corner point (the
//! centroid, always inside), and a pixel inside the piece (site a, site b, corner) takes the
//! barycentric mix of the two sites' values and the corner's value. The result is continuous
//! (no steps at cell edges) and corner values (filled, carved, lake levels) shape the terrain.
//!
//! [`rasterize_fields`] interpolates several fields in one pass (each the same bytes as alone).
//! The work runs in parallel (rayon) over bands of rows. A pixel on an edge shared by two pieces
//! takes the piece of the higher corner index (the later one in a band's fixed order): the same
//! bytes for any thread count. A pixel that no piece covers (only possible when the mesh does not
//! cover the map) takes the value of the nearest covered pixel to its left in its row, else to its
//! right.
//!
//! ```
//! use orogen_world::{DualMesh, interp::{RasterSampling, rasterize_mesh}};
//! use ndarray::Array1;
//!
//! let mesh = DualMesh::jittered_grid(5, 5, 1.0, 1.0, 0.3, 7);
//! // A linear field x + y at the sites and corners is reproduced exactly.
//! let f = |x: f64, y: f64| (x + y) as f32;
//! let region: Array1<f32> = mesh.region_xy.rows().into_iter().map(|p| f(p[0], p[1])).collect();
//! let corner: Array1<f32> = mesh.corner_xy.rows().into_iter().map(|p| f(p[0], p[1])).collect();
//! let grid = RasterSampling::pixel_centres(16, 16, 1.0, 1.0);
//! let img = rasterize_mesh(&mesh, region.view(), corner.view(), &grid)?;
//! let (x, y) = grid.point(3, 9);
//! assert!((img[[9, 3]] - f(x, y)).abs() < 1e-5);
//! # Ok::<(), orogen_world::WorldError>(())
//! ```

use ndarray::{Array2, Array3, ArrayView1, ArrayView2};
use rayon::prelude::*;

use crate::{DualMesh, WorldError};

/// An affine raster sampling: pixel (col, row) of an `ny x nx` raster is the map point
/// `(x0 + col dx, y0 + row dy)`. Row 0 is the north edge.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RasterSampling {
    pub nx: usize,
    pub ny: usize,
    pub x0: f64,
    pub y0: f64,
    pub dx: f64,
    pub dy: f64,
}

impl RasterSampling {
    /// Pixel centres of an `nx x ny` image over a `width x height` map.
    pub fn pixel_centres(nx: usize, ny: usize, width: f64, height: f64) -> Self {
        let (dx, dy) = (width / nx as f64, height / ny as f64);
        RasterSampling {
            nx,
            ny,
            x0: 0.5 * dx,
            y0: 0.5 * dy,
            dx,
            dy,
        }
    }

    /// Grid vertices (corners included) of an `nx x ny` grid over a `width x height` map.
    pub fn vertices(nx: usize, ny: usize, width: f64, height: f64) -> Self {
        RasterSampling {
            nx,
            ny,
            x0: 0.0,
            y0: 0.0,
            dx: width / (nx.max(2) - 1) as f64,
            dy: height / (ny.max(2) - 1) as f64,
        }
    }

    /// The map point of pixel (col, row).
    #[inline]
    pub fn point(&self, col: usize, row: usize) -> (f64, f64) {
        (
            self.x0 + col as f64 * self.dx,
            self.y0 + row as f64 * self.dy,
        )
    }
}

/// Items (corners) binned by one task of [`bin_rows`].
const CORNERS_A_CHUNK: usize = 1 << 15;

/// Rows per band of the parallel rasteriser.
const BAND_ROWS: usize = 8;

/// [`rasterize`] over a [`DualMesh`].
pub fn rasterize_mesh(
    mesh: &DualMesh,
    region_values: ArrayView1<'_, f32>,
    corner_values: ArrayView1<'_, f32>,
    sampling: &RasterSampling,
) -> Result<Array2<f32>, WorldError> {
    rasterize(
        mesh.region_xy.view(),
        mesh.corner_xy.view(),
        mesh.corner_regions.view(),
        region_values,
        corner_values,
        sampling,
    )
}

/// [`rasterize_fields`] over a [`DualMesh`].
pub fn rasterize_mesh_fields<const K: usize>(
    mesh: &DualMesh,
    region_values: &[[f32; K]],
    corner_values: &[[f32; K]],
    sampling: &RasterSampling,
) -> Result<Array3<f32>, WorldError> {
    rasterize_fields(
        mesh.region_xy.view(),
        mesh.corner_xy.view(),
        mesh.corner_regions.view(),
        region_values,
        corner_values,
        sampling,
    )
}

/// [`rasterize_fields_strips`] over a [`DualMesh`].
pub fn rasterize_mesh_fields_strips<const K: usize>(
    mesh: &DualMesh,
    region_values: &[[f32; K]],
    corner_values: &[[f32; K]],
    sampling: &RasterSampling,
    strip_rows: usize,
    consume: impl FnMut(usize, &[[f32; K]]),
) -> Result<(), WorldError> {
    rasterize_fields_strips(
        mesh.region_xy.view(),
        mesh.corner_xy.view(),
        mesh.corner_regions.view(),
        region_values,
        corner_values,
        sampling,
        strip_rows,
        consume,
    )
}

fn bad(problem: String) -> WorldError {
    WorldError::BadLayer {
        name: "interp".into(),
        problem,
    }
}

/// Interpolates region and corner values onto a raster (`[row, col]`, `ny x nx`).
///
/// `region_xy` is `n_regions x 2`, `corner_xy` `n_corners x 2`, `corner_regions`
/// `n_corners x 3`; each corner point must lie inside its triangle (the centroid does).
pub fn rasterize(
    region_xy: ArrayView2<'_, f64>,
    corner_xy: ArrayView2<'_, f64>,
    corner_regions: ArrayView2<'_, u32>,
    region_values: ArrayView1<'_, f32>,
    corner_values: ArrayView1<'_, f32>,
    sampling: &RasterSampling,
) -> Result<Array2<f32>, WorldError> {
    let region: Vec<[f32; 1]> = region_values.iter().map(|&v| [v]).collect();
    let corner: Vec<[f32; 1]> = corner_values.iter().map(|&v| [v]).collect();
    let out = rasterize_fields(
        region_xy,
        corner_xy,
        corner_regions,
        &region,
        &corner,
        sampling,
    )?;
    let (ny, nx, _) = out.dim();
    Ok(out
        .into_shape_with_order((ny, nx))
        .expect("one field per pixel"))
}

/// Interpolates `K` fields at once (`ny x nx x K`): one pass over the pieces for all of them,
/// each field the same bytes [`rasterize`] gives for it alone.
pub fn rasterize_fields<const K: usize>(
    region_xy: ArrayView2<'_, f64>,
    corner_xy: ArrayView2<'_, f64>,
    corner_regions: ArrayView2<'_, u32>,
    region_values: &[[f32; K]],
    corner_values: &[[f32; K]],
    sampling: &RasterSampling,
) -> Result<Array3<f32>, WorldError> {
    let mesh = Pieces::checked(
        region_xy,
        corner_xy,
        corner_regions,
        region_values,
        corner_values,
        sampling,
    )?;
    let RasterSampling { nx, ny, .. } = *sampling;
    let mut out = vec![[f32::NAN; K]; nx * ny];
    mesh.render(&|r| region_values[r], &|c| corner_values[c], 0, &mut out);
    Ok(Array3::from_shape_vec((ny, nx, K), out.into_flattened())
        .expect("ny x nx pixels of K fields"))
}

/// [`rasterize_fields`] in strips of about `strip_rows` rows (whole bands of the rasteriser),
/// top to bottom: `consume(first_row, pixels)` gets each strip's pixels (row-major, `nx` a row,
/// `K` fields each), the same values as those rows of the whole raster, while memory holds one
/// strip. For outputs too large to hold as floats (the splat maps, the colour map's moisture and
/// slope).
#[allow(clippy::too_many_arguments)]
pub fn rasterize_fields_strips<const K: usize>(
    region_xy: ArrayView2<'_, f64>,
    corner_xy: ArrayView2<'_, f64>,
    corner_regions: ArrayView2<'_, u32>,
    region_values: &[[f32; K]],
    corner_values: &[[f32; K]],
    sampling: &RasterSampling,
    strip_rows: usize,
    mut consume: impl FnMut(usize, &[[f32; K]]),
) -> Result<(), WorldError> {
    let mesh = Pieces::checked(
        region_xy,
        corner_xy,
        corner_regions,
        region_values,
        corner_values,
        sampling,
    )?;
    mesh.strips(
        &|r| region_values[r],
        &|c| corner_values[c],
        strip_rows,
        &mut consume,
    );
    Ok(())
}

/// [`rasterize_mesh_fields`] with the values given by functions of the region and of the corner
/// index, as [`rasterize_mesh_fields_strips_by`] takes them: the same bytes as the arrays of
/// their values.
pub fn rasterize_mesh_fields_by<const K: usize>(
    mesh: &DualMesh,
    region: impl Fn(usize) -> [f32; K] + Sync,
    corner: impl Fn(usize) -> [f32; K] + Sync,
    sampling: &RasterSampling,
) -> Result<Array3<f32>, WorldError> {
    let pieces = Pieces::of_mesh(mesh, sampling)?;
    let RasterSampling { nx, ny, .. } = *sampling;
    let mut out = vec![[f32::NAN; K]; nx * ny];
    pieces.render(&region, &corner, 0, &mut out);
    Ok(Array3::from_shape_vec((ny, nx, K), out.into_flattened())
        .expect("ny x nx pixels of K fields"))
}

/// [`rasterize_mesh_fields_strips`] with the values given by functions of the region and of
/// the corner index, so that values derived from other layers need no array of their own (the
/// splat maps' seven shares: 84 MB at 1,000,000 cells). `region` and `corner` are called with
/// region and corner indices of the mesh, only for the pieces that cover a pixel, possibly
/// more than once each; the same bytes as the arrays of their values.
pub fn rasterize_mesh_fields_strips_by<const K: usize>(
    mesh: &DualMesh,
    region: impl Fn(usize) -> [f32; K] + Sync,
    corner: impl Fn(usize) -> [f32; K] + Sync,
    sampling: &RasterSampling,
    strip_rows: usize,
    mut consume: impl FnMut(usize, &[[f32; K]]),
) -> Result<(), WorldError> {
    let pieces = Pieces::of_mesh(mesh, sampling)?;
    pieces.strips(&region, &corner, strip_rows, &mut consume);
    Ok(())
}

/// One value per region and one per corner, or the error naming both counts.
fn check_values<const K: usize>(
    n_regions: usize,
    n_corners: usize,
    region_values: &[[f32; K]],
    corner_values: &[[f32; K]],
) -> Result<(), WorldError> {
    if region_values.len() != n_regions || corner_values.len() != n_corners {
        return Err(bad(format!(
            "{} region values for {n_regions} regions, {} corner values for {n_corners} corners",
            region_values.len(),
            corner_values.len()
        )));
    }
    Ok(())
}

/// The mesh's pieces ready to rasterise on one sampling: which corners touch which band of
/// `BAND_ROWS` rows.
struct Pieces<'a> {
    region_xy: ArrayView2<'a, f64>,
    corner_xy: ArrayView2<'a, f64>,
    corner_regions: ArrayView2<'a, u32>,
    sampling: RasterSampling,
    /// Per band, the corners whose triangle reaches one of its rows, in corner order.
    bands: Vec<Vec<u32>>,
}

impl<'a> Pieces<'a> {
    /// [`Pieces::new`] after checking that there is one value per region and per corner.
    fn checked<const K: usize>(
        region_xy: ArrayView2<'a, f64>,
        corner_xy: ArrayView2<'a, f64>,
        corner_regions: ArrayView2<'a, u32>,
        region_values: &[[f32; K]],
        corner_values: &[[f32; K]],
        sampling: &RasterSampling,
    ) -> Result<Self, WorldError> {
        check_values(
            region_xy.nrows(),
            corner_xy.nrows(),
            region_values,
            corner_values,
        )?;
        Self::new(region_xy, corner_xy, corner_regions, sampling)
    }

    /// [`Pieces::new`] of a [`DualMesh`].
    fn of_mesh(mesh: &'a DualMesh, sampling: &RasterSampling) -> Result<Self, WorldError> {
        Self::new(
            mesh.region_xy.view(),
            mesh.corner_xy.view(),
            mesh.corner_regions.view(),
            sampling,
        )
    }

    fn new(
        region_xy: ArrayView2<'a, f64>,
        corner_xy: ArrayView2<'a, f64>,
        corner_regions: ArrayView2<'a, u32>,
        sampling: &RasterSampling,
    ) -> Result<Self, WorldError> {
        let n_regions = region_xy.nrows();
        let n_corners = corner_xy.nrows();
        if corner_regions.dim() != (n_corners, 3)
            || corner_regions.iter().any(|&r| r as usize >= n_regions)
        {
            return Err(bad("corner_regions is not n_corners x 3 region ids".into()));
        }
        let RasterSampling {
            nx,
            ny,
            x0,
            y0,
            dx,
            dy,
        } = *sampling;
        if nx == 0 || ny == 0 || !(dx > 0.0 && dy > 0.0) {
            return Err(bad(format!(
                "an empty or inverted raster sampling {sampling:?}"
            )));
        }
        let inv_dx = 1.0 / dx;
        let bands = bin_rows(n_corners, ny, BAND_ROWS, |c| {
            let tri = corner_regions.row(c);
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            let (mut left, mut right) = (corner_xy[[c, 0]], corner_xy[[c, 0]]);
            for &r in tri {
                let [x, y] = [region_xy[[r as usize, 0]], region_xy[[r as usize, 1]]];
                lo = lo.min(y);
                hi = hi.max(y);
                left = left.min(x);
                right = right.max(x);
            }
            // A corner whose pieces (its sites and its point) span no column's sample x fills
            // no pixel: a pixel a piece fills has every weight >= EPS, so it lies within
            // 3e-9 of the piece's width of it, far inside this margin (and rounding's).
            let margin = 1e-6 * (right - left) + 1e-12 * left.abs().max(right.abs());
            span_scaled(left - margin, right + margin, x0, inv_dx, nx)?;
            row_span(lo, hi, y0, dy, ny)
        });
        Ok(Pieces {
            region_xy,
            corner_xy,
            corner_regions,
            sampling: *sampling,
            bands,
        })
    }

    /// The raster in strips of about `strip_rows` rows (whole bands), top to bottom, each
    /// handed to `consume` with its first row.
    fn strips<const K: usize>(
        &self,
        region: &(impl Fn(usize) -> [f32; K] + Sync),
        corner: &(impl Fn(usize) -> [f32; K] + Sync),
        strip_rows: usize,
        consume: &mut impl FnMut(usize, &[[f32; K]]),
    ) {
        in_strips(
            &self.sampling,
            strip_rows,
            [f32::NAN; K],
            consume,
            |row0, strip| self.render(region, corner, row0, strip),
        );
    }

    /// Rasterises the rows from `row0` (a multiple of `BAND_ROWS`) into `out` (whole rows,
    /// NaN-filled), bands in parallel; `region` and `corner` give the values by index.
    fn render<const K: usize>(
        &self,
        region: &(impl Fn(usize) -> [f32; K] + Sync),
        corner: &(impl Fn(usize) -> [f32; K] + Sync),
        row0: usize,
        out: &mut [[f32; K]],
    ) {
        self.walk(
            row0,
            out,
            |chunk, band, piece| {
                // Read only for a piece that covers some pixel (most do not, on a mesh finer than
                // the raster).
                let Piece {
                    corner: c, a, b, t, ..
                } = piece;
                let mut v = None;
                fill_triangle(chunk, band, &self.sampling, t, |px, w| {
                    let (v, live) = v.get_or_insert_with(|| vertex_values(region, corner, a, b, c));
                    *px = blend(w, v, live);
                });
            },
            |chunk| fill_gaps(chunk, self.sampling.nx),
        );
    }

    /// Calls `fill(chunk, band, piece)` for every piece of every band of the rows from `row0`
    /// (a multiple of `BAND_ROWS`) of `out` (whole rows), bands in parallel, each band's
    /// pieces in corner order (a pixel on an edge shared by two pieces is filled last by the
    /// piece of the higher corner), then `finish(chunk)`.
    fn walk<T: Send>(
        &self,
        row0: usize,
        out: &mut [T],
        fill: impl Fn(&mut [T], Band, Piece) + Sync,
        finish: impl Fn(&mut [T]) + Sync,
    ) {
        let nx = self.sampling.nx;
        let (region_xy, corner_xy, corner_regions) =
            (&self.region_xy, &self.corner_xy, &self.corner_regions);
        out.par_chunks_mut(BAND_ROWS * nx)
            .zip(self.bands[row0 / BAND_ROWS..].par_iter())
            .enumerate()
            .for_each(|(i, (chunk, corners))| {
                let band = Band {
                    row0: row0 + i * BAND_ROWS,
                    rows: chunk.len() / nx,
                    nx,
                };
                for &c in corners {
                    let c = c as usize;
                    let tri = corner_regions.row(c);
                    let p = [corner_xy[[c, 0]], corner_xy[[c, 1]]];
                    for k in 0..3 {
                        let (a, b) = (tri[k] as usize, tri[(k + 1) % 3] as usize);
                        let t = [
                            [region_xy[[a, 0]], region_xy[[a, 1]]],
                            [region_xy[[b, 0]], region_xy[[b, 1]]],
                            p,
                        ];
                        fill(
                            &mut *chunk,
                            band,
                            Piece {
                                corner: c,
                                k,
                                a,
                                b,
                                t,
                            },
                        );
                    }
                }
                finish(chunk);
            });
    }
}

/// One piece of the mesh: the part of corner `corner`'s triangle between its sites `a` and `b`
/// (its `k`-th edge) and the corner point, `t` their places.
#[derive(Clone, Copy)]
struct Piece {
    corner: usize,
    k: usize,
    a: usize,
    b: usize,
    t: [[f64; 2]; 3],
}

/// No piece covers the pixel (a [`PiecePlan`]'s entry).
const NO_PIECE: u32 = 0;

/// Which piece of a mesh takes each pixel of one raster sampling: the rasteriser's walk over
/// the pieces done once (its edge rule included), so that several rasters of the same mesh and
/// sampling gather their values pixel by pixel instead of walking the pieces again. The same
/// bytes as walking ([`rasterize_mesh_fields_on`] and [`rasterize_mesh_fields_strips_on`] take
/// it). Up to [`WEIGHED_PIXELS`] pixels it also keeps the weights the walk gave each pixel (32
/// bytes a pixel), and a gather is three values and a blend a pixel. Above, it keeps the piece
/// alone (4 bytes a pixel) and a gather weighs each pixel in its piece's frame again: that pays
/// only where the mesh has more pieces than the raster has pixels (1,000,000 cells at 1024 px
/// make 6,000,000 pieces for 1,048,576 pixels, most of them covering none).
/// [`PiecePlan::pays`] says when a plan pays.
#[derive(Clone, Debug)]
pub struct PiecePlan {
    sampling: RasterSampling,
    n_regions: usize,
    n_corners: usize,
    taken: Taken,
}

/// What a [`PiecePlan`] keeps of each pixel (row-major): `3 corner + k + 1` of its piece (or
/// [`NO_PIECE`]), and up to [`WEIGHED_PIXELS`] the clipped weights ([`Frame::weights`]) the
/// walk blended it with.
#[derive(Clone, Debug)]
enum Taken {
    Pieces(Vec<u32>),
    Weighed(Vec<(u32, [f64; 3])>),
}

/// Up to this many pixels (1448 x 1448; 64 MiB of plan) a [`PiecePlan`] keeps each pixel's
/// weights.
pub const WEIGHED_PIXELS: usize = 1 << 21;

impl PiecePlan {
    /// The plan of `mesh` on `sampling`.
    pub fn of_mesh(mesh: &DualMesh, sampling: &RasterSampling) -> Result<Self, WorldError> {
        let weighed = sampling.nx * sampling.ny <= WEIGHED_PIXELS;
        Self::of_mesh_weighed(mesh, sampling, weighed)
    }

    /// [`PiecePlan::of_mesh`], keeping each pixel's weights or not.
    fn of_mesh_weighed(
        mesh: &DualMesh,
        sampling: &RasterSampling,
        weighed: bool,
    ) -> Result<Self, WorldError> {
        let pieces = Pieces::of_mesh(mesh, sampling)?;
        let n = sampling.nx * sampling.ny;
        // 0 for no piece: the plan starts as zeroed pages, cleared by the kernel where touched.
        let id = |piece: &Piece| (3 * piece.corner + piece.k + 1) as u32;
        let taken = if weighed {
            let mut taken = vec![(NO_PIECE, [0.0f64; 3]); n];
            pieces.walk(
                0,
                &mut taken,
                |chunk, band, piece| {
                    let id = id(&piece);
                    fill_triangle(chunk, band, sampling, piece.t, |px, w| *px = (id, w));
                },
                |_| {},
            );
            Taken::Weighed(taken)
        } else {
            let mut owner = vec![NO_PIECE; n];
            pieces.walk(
                0,
                &mut owner,
                |chunk, band, piece| {
                    let id = id(&piece);
                    fill_triangle(chunk, band, sampling, piece.t, |px, _| *px = id);
                },
                |_| {},
            );
            Taken::Pieces(owner)
        };
        Ok(PiecePlan {
            sampling: *sampling,
            n_regions: mesh.n_regions(),
            n_corners: mesh.n_corners(),
            taken,
        })
    }

    /// Whether a plan of `mesh` on `sampling` pays for itself when two rasters or more gather
    /// through it: it keeps its weights ([`WEIGHED_PIXELS`]), or the mesh has at least as many
    /// pieces as the raster has pixels, so walking them costs more than weighing each pixel in
    /// its piece's frame.
    pub fn pays(mesh: &DualMesh, sampling: &RasterSampling) -> bool {
        let pixels = sampling.nx * sampling.ny;
        pixels <= WEIGHED_PIXELS || 3 * mesh.n_corners() >= pixels
    }

    /// The sampling the plan was made on.
    pub fn sampling(&self) -> &RasterSampling {
        &self.sampling
    }

    /// An error unless the plan was made on a mesh of `mesh`'s size and on `sampling`.
    fn check(&self, mesh: &DualMesh, sampling: &RasterSampling) -> Result<(), WorldError> {
        if (self.n_regions, self.n_corners) != (mesh.n_regions(), mesh.n_corners())
            || self.sampling != *sampling
        {
            return Err(bad(format!(
                "a plan of {} regions and {} corners on {:?} for a mesh of {} and {} on {sampling:?}",
                self.n_regions,
                self.n_corners,
                self.sampling,
                mesh.n_regions(),
                mesh.n_corners()
            )));
        }
        Ok(())
    }

    /// The rows from `row0` (a multiple of `BAND_ROWS`) into `out` (whole rows, NaN-filled),
    /// each pixel blended with the weights the walk gives it ([`PiecePlan::gather`]), rows in
    /// parallel.
    fn render<const K: usize>(
        &self,
        mesh: &DualMesh,
        region: &(impl Fn(usize) -> [f32; K] + Sync),
        corner: &(impl Fn(usize) -> [f32; K] + Sync),
        row0: usize,
        out: &mut [[f32; K]],
    ) {
        self.gather(
            mesh,
            row0,
            out,
            &|a, b, c| vertex_values(region, corner, a, b, c),
            &|(v, live), w| blend(w, v, live),
            &|line| fill_gaps(line, self.sampling.nx),
        );
    }

    /// The rows from `row0` into `out` (whole rows): `at(state, weights)` for each pixel a
    /// piece takes, with the pixel's clipped weights ([`Frame::weights`], kept or weighed
    /// again) and `state(a, b, corner)` of its piece (made once for a run of pixels of one
    /// piece); then `finish(row)`. Rows in parallel.
    fn gather<S, T: Send>(
        &self,
        mesh: &DualMesh,
        row0: usize,
        out: &mut [T],
        state: &(impl Fn(usize, usize, usize) -> S + Sync),
        at: &(impl Fn(&S, [f64; 3]) -> T + Sync),
        finish: &(impl Fn(&mut [T]) + Sync),
    ) {
        let s = self.sampling;
        let xy = |a: &Array2<f64>, i: usize| [a[[i, 0]], a[[i, 1]]];
        let piece = |id: u32| {
            let (c, k) = (((id - 1) / 3) as usize, ((id - 1) % 3) as usize);
            let tri = mesh.corner_regions.row(c);
            (tri[k] as usize, tri[(k + 1) % 3] as usize, c)
        };
        out.par_chunks_mut(s.nx).enumerate().for_each(|(r, line)| {
            let row = row0 + r;
            // Neighbouring pixels mostly share a piece: its state (and frame) kept.
            let mut last = NO_PIECE;
            match &self.taken {
                Taken::Weighed(taken) => {
                    let mut held = None;
                    for (px, &(id, w)) in line.iter_mut().zip(&taken[row * s.nx..][..s.nx]) {
                        if id == NO_PIECE {
                            continue;
                        }
                        if id != last {
                            last = id;
                            let (a, b, c) = piece(id);
                            held = Some(state(a, b, c));
                        }
                        if let Some(h) = &held {
                            *px = at(h, w);
                        }
                    }
                }
                Taken::Pieces(owner) => {
                    let y = s.y0 + row as f64 * s.dy;
                    let mut held = None;
                    for (col, (px, &id)) in line
                        .iter_mut()
                        .zip(&owner[row * s.nx..][..s.nx])
                        .enumerate()
                    {
                        if id == NO_PIECE {
                            continue;
                        }
                        if id != last {
                            last = id;
                            let (a, b, c) = piece(id);
                            let t = [
                                xy(&mesh.region_xy, a),
                                xy(&mesh.region_xy, b),
                                xy(&mesh.corner_xy, c),
                            ];
                            held = Frame::new(t).map(|f| (f, f.row(y), state(a, b, c)));
                        }
                        let x = s.x0 + col as f64 * s.dx;
                        if let Some((frame, bx, h)) = &held
                            && let Some(w) = frame.weights(bx, x)
                        {
                            *px = at(h, w);
                        }
                    }
                }
            }
            finish(line);
        });
    }
}

/// A piece of the mesh under a pixel: its sites `a` and `b`, its corner, and the pixel's
/// clipped barycentric weights of the three (`a`, `b`, the corner).
#[derive(Clone, Copy, Debug)]
pub struct PieceAt {
    pub a: usize,
    pub b: usize,
    pub corner: usize,
    pub w: [f64; 3],
}

/// For rasters that need each pixel's piece rather than an interpolated value (the flat biome
/// map: its nearer site): `pick(piece)` for every pixel a piece takes, by the rasteriser's rule
/// (the walk's, or `plan`'s, which is the same), pixels in no piece `blank`. Handed over in
/// strips of about `strip_rows` rows, top to bottom: `consume(first_row, values)`.
pub fn rasterize_mesh_pieces_strips_on<T: Clone + Send>(
    mesh: &DualMesh,
    plan: Option<&PiecePlan>,
    sampling: &RasterSampling,
    strip_rows: usize,
    blank: T,
    pick: impl Fn(&PieceAt) -> T + Sync,
    mut consume: impl FnMut(usize, &[T]),
) -> Result<(), WorldError> {
    if let Some(plan) = plan {
        plan.check(mesh, sampling)?;
        in_strips(sampling, strip_rows, blank, &mut consume, |row0, strip| {
            plan.gather(
                mesh,
                row0,
                strip,
                &|a, b, corner| (a, b, corner),
                &|&(a, b, corner), w| pick(&PieceAt { a, b, corner, w }),
                &|_| {},
            )
        });
        return Ok(());
    }
    let pieces = Pieces::of_mesh(mesh, sampling)?;
    in_strips(sampling, strip_rows, blank, &mut consume, |row0, strip| {
        pieces.walk(
            row0,
            strip,
            |chunk, band, p| {
                fill_triangle(chunk, band, sampling, p.t, |px, w| {
                    *px = pick(&PieceAt {
                        a: p.a,
                        b: p.b,
                        corner: p.corner,
                        w,
                    })
                })
            },
            |_| {},
        )
    });
    Ok(())
}

/// [`rasterize_mesh_fields_by`] through `plan` when given (a [`PiecePlan`] of the mesh on
/// `sampling`: the same bytes, each pixel gathered from its piece), else walking the pieces.
pub fn rasterize_mesh_fields_on<const K: usize>(
    mesh: &DualMesh,
    plan: Option<&PiecePlan>,
    region: impl Fn(usize) -> [f32; K] + Sync,
    corner: impl Fn(usize) -> [f32; K] + Sync,
    sampling: &RasterSampling,
) -> Result<Array3<f32>, WorldError> {
    let Some(plan) = plan else {
        return rasterize_mesh_fields_by(mesh, region, corner, sampling);
    };
    plan.check(mesh, sampling)?;
    let RasterSampling { nx, ny, .. } = *sampling;
    let mut out = vec![[f32::NAN; K]; nx * ny];
    plan.render(mesh, &region, &corner, 0, &mut out);
    Ok(Array3::from_shape_vec((ny, nx, K), out.into_flattened())
        .expect("ny x nx pixels of K fields"))
}

/// [`rasterize_mesh_fields_strips_by`] through `plan` when given (a [`PiecePlan`] of the mesh
/// on `sampling`: the same strips and bytes, each pixel gathered from its piece), else walking
/// the pieces.
pub fn rasterize_mesh_fields_strips_on<const K: usize>(
    mesh: &DualMesh,
    plan: Option<&PiecePlan>,
    region: impl Fn(usize) -> [f32; K] + Sync,
    corner: impl Fn(usize) -> [f32; K] + Sync,
    sampling: &RasterSampling,
    strip_rows: usize,
    mut consume: impl FnMut(usize, &[[f32; K]]),
) -> Result<(), WorldError> {
    let Some(plan) = plan else {
        return rasterize_mesh_fields_strips_by(
            mesh, region, corner, sampling, strip_rows, consume,
        );
    };
    plan.check(mesh, sampling)?;
    in_strips(
        sampling,
        strip_rows,
        [f32::NAN; K],
        &mut consume,
        |row0, strip| plan.render(mesh, &region, &corner, row0, strip),
    );
    Ok(())
}

/// The raster of `sampling` in strips of about `strip_rows` rows (whole bands), top to bottom:
/// each rendered by `render(first_row, strip)` into NaN, then handed to `consume`.
fn in_strips<T: Clone>(
    sampling: &RasterSampling,
    strip_rows: usize,
    blank: T,
    consume: &mut impl FnMut(usize, &[T]),
    render: impl Fn(usize, &mut [T]),
) {
    let RasterSampling { nx, ny, .. } = *sampling;
    let step = strip_rows.div_ceil(BAND_ROWS).max(1) * BAND_ROWS;
    let mut strip = Vec::new();
    for row0 in (0..ny).step_by(step) {
        let rows = step.min(ny - row0);
        strip.clear();
        strip.resize(rows * nx, blank.clone());
        render(row0, &mut strip);
        consume(row0, &strip);
    }
}

/// Which items touch which band of `band_rows` rows of an `n_rows`-row raster, given each
/// item's first and last row (`None`: no row): per band, the items in index order. Chunks of
/// items are binned in parallel and each band's lists joined in chunk order, so the lists are
/// the same on any number of threads.
pub fn bin_rows(
    n_items: usize,
    n_rows: usize,
    band_rows: usize,
    rows_of: impl Fn(usize) -> Option<(usize, usize)> + Sync,
) -> Vec<Vec<u32>> {
    let n_bands = n_rows.div_ceil(band_rows);
    let n_chunks = n_items.div_ceil(CORNERS_A_CHUNK).max(1);
    let chunks: Vec<Vec<Vec<u32>>> = (0..n_chunks)
        .into_par_iter()
        .map(|k| {
            let mut bands: Vec<Vec<u32>> = vec![Vec::new(); n_bands];
            let end = ((k + 1) * CORNERS_A_CHUNK).min(n_items);
            for item in k * CORNERS_A_CHUNK..end {
                let Some((r0, r1)) = rows_of(item) else {
                    continue;
                };
                for band in bands
                    .iter_mut()
                    .take(r1 / band_rows + 1)
                    .skip(r0 / band_rows)
                {
                    band.push(item as u32);
                }
            }
            bands
        })
        .collect();
    (0..n_bands)
        .into_par_iter()
        .map(|b| {
            let mut band = Vec::with_capacity(chunks.iter().map(|c| c[b].len()).sum());
            for chunk in &chunks {
                band.extend_from_slice(&chunk[b]);
            }
            band
        })
        .collect()
}

/// The raster rows whose sample y lies in `[lo, hi]`, if any.
fn row_span(lo: f64, hi: f64, y0: f64, dy: f64, ny: usize) -> Option<(usize, usize)> {
    span_by(lo, hi, ny, |y| (y - y0) / dy)
}

/// [`row_span`] with the spacing's inverse (a multiplication where `row_span` divides).
#[inline]
fn span_scaled(lo: f64, hi: f64, x0: f64, inv_dx: f64, n: usize) -> Option<(usize, usize)> {
    span_by(lo, hi, n, |x| (x - x0) * inv_dx)
}

/// The indices in `0..n` whose position lies in `[lo, hi]` (1e-9 of a step's tolerance), given
/// the continuous index of a position.
#[inline]
fn span_by(lo: f64, hi: f64, n: usize, index: impl Fn(f64) -> f64) -> Option<(usize, usize)> {
    let eps = 1e-9;
    let i0 = ceil(index(lo) - eps).max(0.0);
    let i1 = floor(index(hi) + eps).min(n as f64 - 1.0);
    (i0 <= i1).then_some((i0 as usize, i1 as usize))
}

/// `v.ceil()` (but for the sign of a zero result), inlined: without SSE4.1 in the baseline
/// x86-64 target, `f64::ceil` is a call into libm, and rasterisers call it for every piece of
/// the mesh and every row of it (10-15% of the export's time at 1,000,000 cells).
#[inline]
pub fn ceil(v: f64) -> f64 {
    // Below 2^52 in magnitude the conversion is exact; larger values, infinities and NaN are
    // whole already or have no ceiling.
    if v.abs() < 4_503_599_627_370_496.0 {
        let t = v as i64 as f64;
        if t < v { t + 1.0 } else { t }
    } else {
        v
    }
}

/// `v.floor()` (but for the sign of a zero result), inlined (see [`ceil`]).
#[inline]
pub fn floor(v: f64) -> f64 {
    if v.abs() < 4_503_599_627_370_496.0 {
        let t = v as i64 as f64;
        if t > v { t - 1.0 } else { t }
    } else {
        v
    }
}

/// Where a band's pixels sit: its first raster row, its row count and the row width.
#[derive(Clone, Copy)]
struct Band {
    row0: usize,
    rows: usize,
    nx: usize,
}

/// Tolerance on the barycentric weights: points on an edge belong to both pieces.
const EPS: f64 = -1e-9;

/// A piece's barycentric frame: its three vertices' weights, each linear in x along a row
/// (`w_k = ax[k] x + bx[k](y)`). The rasteriser ([`fill_triangle`]) and the plans' gathers
/// ([`PiecePlan`]) weigh a pixel through it, so both give the same bits.
#[derive(Clone, Copy)]
struct Frame {
    t: [[f64; 2]; 3],
    inv: f64,
    ax: [f64; 3],
}

impl Frame {
    /// The determinant of triangle `t` (twice its signed area).
    #[inline]
    fn det(t: &[[f64; 2]; 3]) -> f64 {
        let [a, b, c] = t;
        (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])
    }

    /// The frame of `t`, whose determinant ([`Frame::det`]) is `det`, non-zero and finite.
    #[inline]
    fn with_det(t: [[f64; 2]; 3], det: f64) -> Frame {
        let [a, b, c] = t;
        let inv = 1.0 / det;
        let ax = [(b[1] - c[1]) * inv, (c[1] - a[1]) * inv];
        Frame {
            t,
            inv,
            ax: [ax[0], ax[1], -(ax[0] + ax[1])],
        }
    }

    /// The frame of `t`, or `None` for a degenerate triangle.
    #[inline]
    fn new(t: [[f64; 2]; 3]) -> Option<Frame> {
        let det = Frame::det(&t);
        (det != 0.0 && det.is_finite()).then(|| Frame::with_det(t, det))
    }

    /// The weights' terms `bx` of the row at `y`.
    #[inline]
    fn row(&self, y: f64) -> [f64; 3] {
        let ([a, b, c], inv) = (self.t, self.inv);
        let ba = (b[0] * (c[1] - y) - c[0] * (b[1] - y)) * inv;
        let bb = (c[0] * (a[1] - y) - a[0] * (c[1] - y)) * inv;
        [ba, bb, 1.0 - ba - bb]
    }

    /// The weights at `x` on the row whose terms are `bx`, clipped to at least 0, when every
    /// one is at least [`EPS`] (the point is in the piece or on its edge); `None` outside.
    #[inline]
    fn weights(&self, bx: &[f64; 3], x: f64) -> Option<[f64; 3]> {
        let ax = &self.ax;
        let wa = ax[0] * x + bx[0];
        let wb = ax[1] * x + bx[1];
        let wc = ax[2] * x + bx[2];
        // Clip the tolerance away so the value stays within the three values.
        (wa >= EPS && wb >= EPS && wc >= EPS).then(|| [wa.max(0.0), wb.max(0.0), wc.max(0.0)])
    }
}

/// A piece's three vertices' values (`a`, `b`, corner `c`), and which fields are not +0.0 at
/// all three (see [`blend`]).
#[inline]
fn vertex_values<const K: usize>(
    region: &impl Fn(usize) -> [f32; K],
    corner: &impl Fn(usize) -> [f32; K],
    a: usize,
    b: usize,
    c: usize,
) -> ([[f64; K]; 3], [bool; K]) {
    let v = [region(a), region(b), corner(c)].map(|f| f.map(f64::from));
    let live = std::array::from_fn(|f| v.iter().any(|v| v[f].to_bits() != 0));
    (v, live)
}

/// The mix of three vertices' values `v` by clipped weights `w` ([`Frame::weights`]), each
/// field divided by the weights' sum. A field that is +0.0 at all three vertices (most of the
/// splat maps' seven group shares; `live` false) is not computed: +0.0 is what the mix gives
/// it, since each product of a weight (at least 0, and one above 0: the weights sum to about
/// 1) and +0.0 is a zero, one of them +0.0, so their sum is +0.0, and so is its quotient.
#[inline]
fn blend<const K: usize>(w: [f64; 3], v: &[[f64; K]; 3], live: &[bool; K]) -> [f32; K] {
    let sum = w[0] + w[1] + w[2];
    std::array::from_fn(|f| {
        if live[f] {
            ((w[0] * v[0][f] + w[1] * v[1][f] + w[2] * v[2][f]) / sum) as f32
        } else {
            0.0
        }
    })
}

/// Calls `put` with the pixel and its clipped weights ([`Frame::weights`]) for every pixel of
/// the band inside triangle `t`.
fn fill_triangle<T>(
    chunk: &mut [T],
    band: Band,
    s: &RasterSampling,
    t: [[f64; 2]; 3],
    mut put: impl FnMut(&mut T, [f64; 3]),
) {
    let det = Frame::det(&t);
    if det == 0.0 || !det.is_finite() {
        return;
    }
    let [a, b, c] = t;
    let (lo_y, hi_y) = (a[1].min(b[1]).min(c[1]), a[1].max(b[1]).max(c[1]));
    let Some((r0, r1)) = row_span(lo_y, hi_y, s.y0, s.dy, s.ny) else {
        return;
    };
    let r0 = r0.max(band.row0);
    let r1 = r1.min(band.row0 + band.rows - 1);
    if r0 > r1 {
        return;
    }
    let frame = Frame::with_det(t, det);
    let ax = frame.ax;
    // Divisions once a piece, not once a row: the span below is then off by a few ulps, far
    // inside `row_span`'s tolerance, and only narrows which columns the weights are tested on.
    let inv_ax = ax.map(|a| 1.0 / a);
    let inv_dx = 1.0 / s.dx;
    for row in r0..=r1 {
        let y = s.y0 + row as f64 * s.dy;
        let bx = frame.row(y);
        // The span of x where every weight is >= EPS (scanline), then the columns inside it.
        let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
        for k in 0..3 {
            if ax[k] > 0.0 {
                lo = lo.max((EPS - bx[k]) * inv_ax[k]);
            } else if ax[k] < 0.0 {
                hi = hi.min((EPS - bx[k]) * inv_ax[k]);
            } else if bx[k] < EPS {
                hi = f64::NEG_INFINITY;
            }
        }
        let Some((c0, c1)) = span_scaled(lo, hi, s.x0, inv_dx, s.nx) else {
            continue;
        };
        let line = &mut chunk[(row - band.row0) * band.nx..][..band.nx];
        for (col, px) in line.iter_mut().enumerate().take(c1 + 1).skip(c0) {
            let x = s.x0 + col as f64 * s.dx;
            if let Some(w) = frame.weights(&bx, x) {
                put(px, w);
            }
        }
    }
}

/// Fills uncovered (NaN) pixels from the nearest covered pixel to the left in the row, else to
/// the right; a row with no covered pixel stays NaN. A pixel's fields are written together, so
/// the first tells whether it is covered.
fn fill_gaps<const K: usize>(chunk: &mut [[f32; K]], nx: usize) {
    for line in chunk.chunks_mut(nx) {
        if !line.iter().any(|v| v[0].is_nan()) {
            continue;
        }
        let mut last = None;
        for v in line.iter_mut() {
            if v[0].is_nan() {
                if let Some(l) = last {
                    *v = l;
                }
            } else {
                last = Some(*v);
            }
        }
        let mut next = None;
        for v in line.iter_mut().rev() {
            if v[0].is_nan() {
                if let Some(n) = next {
                    *v = n;
                }
            } else {
                next = Some(*v);
            }
        }
    }
}

/// Bilinear sample of a raster whose pixel (col, row) sits at map point
/// `(col W / (nx - 1), row H / (ny - 1))` (vertex sampling), clamped at the edges.
pub fn sample_bilinear(
    raster: ArrayView2<'_, f32>,
    width: f64,
    height: f64,
    x: f64,
    y: f64,
) -> f32 {
    let (ny, nx) = raster.dim();
    let fx = (x / width * (nx - 1) as f64).clamp(0.0, (nx - 1) as f64);
    let fy = (y / height * (ny - 1) as f64).clamp(0.0, (ny - 1) as f64);
    let (c0, r0) = (fx.floor() as usize, fy.floor() as usize);
    let (c1, r1) = ((c0 + 1).min(nx - 1), (r0 + 1).min(ny - 1));
    let (tx, ty) = ((fx - c0 as f64) as f32, (fy - r0 as f64) as f32);
    let top = raster[[r0, c0]] * (1.0 - tx) + raster[[r0, c1]] * tx;
    let bottom = raster[[r1, c0]] * (1.0 - tx) + raster[[r1, c1]] * tx;
    top * (1.0 - ty) + bottom * ty
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array1;

    #[test]
    fn strips_give_the_whole_raster_s_rows() {
        let mesh = DualMesh::jittered_grid(23, 17, 3.0, 2.0, 0.4, 11);
        let field =
            |p: ndarray::ArrayView1<'_, f64>| [(p[0] * 1.7).sin() as f32, (p[1] * p[0]) as f32];
        let region: Vec<[f32; 2]> = mesh.region_xy.rows().into_iter().map(field).collect();
        let corner: Vec<[f32; 2]> = mesh.corner_xy.rows().into_iter().map(field).collect();
        // A map wider than the mesh: uncovered pixels are filled from their row.
        let grid = RasterSampling::pixel_centres(61, 45, 3.2, 2.0);
        let whole = rasterize_mesh_fields(&mesh, &region, &corner, &grid).unwrap();
        let whole = whole.as_slice().unwrap();
        for strip_rows in [1, 8, 13, 44, 45, 1000] {
            let mut rows_seen = Vec::new();
            let mut out: Vec<f32> = Vec::new();
            rasterize_mesh_fields_strips(&mesh, &region, &corner, &grid, strip_rows, |row0, px| {
                assert_eq!(row0 % BAND_ROWS, 0);
                assert_eq!(px.len() % grid.nx, 0);
                rows_seen.push(row0);
                out.extend(px.iter().flatten());
            })
            .unwrap();
            // Whole bands a strip: 1 and 8 rows give 6 strips of 45 rows, 13 gives 3, the rest 1.
            let step = strip_rows.div_ceil(BAND_ROWS) * BAND_ROWS;
            assert_eq!(rows_seen, (0..grid.ny).step_by(step).collect::<Vec<_>>());
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&out), bits(whole), "strips of {strip_rows} rows");
            // The values by functions of the index: the same bits, through the functions.
            let asked = std::sync::atomic::AtomicUsize::new(0);
            let mut by: Vec<f32> = Vec::new();
            rasterize_mesh_fields_strips_by(
                &mesh,
                |r| {
                    asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    region[r]
                },
                |c| corner[c],
                &grid,
                strip_rows,
                |_, px| by.extend(px.iter().flatten()),
            )
            .unwrap();
            assert_eq!(
                bits(&by),
                bits(whole),
                "by index, strips of {strip_rows} rows"
            );
            assert!(asked.into_inner() > 0);
        }
    }

    /// Every piece's weights tested on every pixel of the raster, pieces in corner order (the
    /// later wins on a shared edge): what the scanline must give, its spans only skipping
    /// pixels the weights reject.
    fn brute_force(
        mesh: &DualMesh,
        region: &[[f32; 2]],
        corner: &[[f32; 2]],
        s: &RasterSampling,
    ) -> Vec<[f32; 2]> {
        let mut out = vec![[f32::NAN; 2]; s.nx * s.ny];
        let xy = |a: ArrayView2<'_, f64>, i: usize| [a[[i, 0]], a[[i, 1]]];
        for (c, corner_value) in corner.iter().enumerate() {
            let tri = mesh.corner_regions.row(c);
            for k in 0..3 {
                let (ra, rb) = (tri[k] as usize, tri[(k + 1) % 3] as usize);
                let (a, b, p) = (
                    xy(mesh.region_xy.view(), ra),
                    xy(mesh.region_xy.view(), rb),
                    xy(mesh.corner_xy.view(), c),
                );
                let det = (b[0] - a[0]) * (p[1] - a[1]) - (p[0] - a[0]) * (b[1] - a[1]);
                if det == 0.0 {
                    continue;
                }
                let inv = 1.0 / det;
                let v = [region[ra], region[rb], *corner_value].map(|f| f.map(f64::from));
                let ax = [(b[1] - p[1]) * inv, (p[1] - a[1]) * inv];
                let ax = [ax[0], ax[1], -(ax[0] + ax[1])];
                for row in 0..s.ny {
                    let y = s.y0 + row as f64 * s.dy;
                    let ba = (b[0] * (p[1] - y) - p[0] * (b[1] - y)) * inv;
                    let bb = (p[0] * (a[1] - y) - a[0] * (p[1] - y)) * inv;
                    let bx = [ba, bb, 1.0 - ba - bb];
                    for col in 0..s.nx {
                        let x = s.x0 + col as f64 * s.dx;
                        let w = [0, 1, 2].map(|k| ax[k] * x + bx[k]);
                        if w.iter().all(|&w| w >= -1e-9) {
                            let w = w.map(|w| w.max(0.0));
                            let sum = w[0] + w[1] + w[2];
                            out[row * s.nx + col] = std::array::from_fn(|f| {
                                ((w[0] * v[0][f] + w[1] * v[1][f] + w[2] * v[2][f]) / sum) as f32
                            });
                        }
                    }
                }
            }
        }
        out
    }

    /// Two smooth, non-linear fields at a mesh's sites and corners: the first +0.0 left of
    /// x = 1 (pieces with +0.0 at all three vertices, which the blend skips), the second -0.0
    /// below y = 0.5 (signed zeros it must blend).
    fn two_fields(mesh: &DualMesh) -> (Vec<[f32; 2]>, Vec<[f32; 2]>) {
        let field = |p: ndarray::ArrayView1<'_, f64>| {
            [
                if p[0] < 1.0 {
                    0.0
                } else {
                    (p[0] * 2.3).sin() as f32
                },
                if p[1] < 0.5 {
                    -0.0
                } else {
                    (p[1] * p[0] - 1.0) as f32
                },
            ]
        };
        let at = |xy: &Array2<f64>| xy.rows().into_iter().map(field).collect();
        (at(&mesh.region_xy), at(&mesh.corner_xy))
    }

    #[test]
    fn the_scanline_takes_every_pixel_the_weights_take() {
        // Coarse and fine rasters over a jittered mesh (slivers, pixels on shared edges), both
        // samplings, a raster beyond the mesh (rows and columns no piece covers); pieces of a
        // pixel or two as well as larger ones.
        let mesh = DualMesh::jittered_grid(14, 11, 3.0, 2.0, 0.45, 5);
        let (region, corner) = two_fields(&mesh);
        for s in [
            RasterSampling::pixel_centres(7, 5, 3.0, 2.0),
            RasterSampling::pixel_centres(30, 20, 3.0, 2.0),
            RasterSampling::vertices(41, 27, 3.0, 2.0),
            RasterSampling::pixel_centres(97, 61, 3.0, 2.0),
            RasterSampling::vertices(120, 80, 3.0, 2.0),
            RasterSampling::pixel_centres(83, 40, 3.4, 2.0),
        ] {
            let pieces = Pieces::of_mesh(&mesh, &s).unwrap();
            let mut got = vec![[f32::NAN; 2]; s.nx * s.ny];
            pieces.render(&|r| region[r], &|c| corner[c], 0, &mut got);
            // `render` fills the gaps (pixels no piece takes) row by row; the same rule here.
            let mut want = brute_force(&mesh, &region, &corner, &s);
            fill_gaps(&mut want, s.nx);
            let bits = |v: &[[f32; 2]]| v.iter().flatten().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&want), "{s:?}");
        }
    }

    /// Each pixel's piece (`None` in no piece), in strips of 9 rows.
    fn pieces_of(
        mesh: &DualMesh,
        plan: Option<&PiecePlan>,
        s: &RasterSampling,
    ) -> Vec<Option<PieceAt>> {
        let mut out = Vec::new();
        rasterize_mesh_pieces_strips_on(
            mesh,
            plan,
            s,
            9,
            None,
            |p| Some(*p),
            |row0, strip| {
                assert_eq!(row0 * s.nx, out.len());
                out.extend_from_slice(strip);
            },
        )
        .unwrap();
        assert_eq!(out.len(), s.nx * s.ny);
        out
    }

    #[test]
    fn a_plan_gathers_the_bytes_the_walk_rasterises() {
        // Jittered meshes (slivers, pixels on shared edges), a regular one (pixel centres
        // exactly on its edges and corners: the edge rule decides), rasters coarser and finer
        // than the mesh, both samplings, one beyond the mesh (gaps), whole and in strips.
        for mesh in [
            DualMesh::jittered_grid(14, 11, 3.0, 2.0, 0.45, 5),
            DualMesh::jittered_grid(60, 40, 3.0, 2.0, 0.3, 8),
            DualMesh::jittered_grid(13, 9, 3.0, 2.0, 0.0, 1),
        ] {
            let (region, corner) = two_fields(&mesh);
            for s in [
                RasterSampling::pixel_centres(7, 5, 3.0, 2.0),
                RasterSampling::pixel_centres(97, 61, 3.0, 2.0),
                RasterSampling::vertices(121, 81, 3.0, 2.0),
                RasterSampling::vertices(25, 17, 3.0, 2.0),
                RasterSampling::pixel_centres(83, 40, 3.4, 2.0),
            ] {
                let (r, c) = (|i: usize| region[i], |i: usize| corner[i]);
                let walked = rasterize_mesh_fields_by(&mesh, r, c, &s).unwrap();
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                let walked = bits(walked.as_slice().unwrap());
                let walked_pieces = pieces_of(&mesh, None, &s);
                // Each pixel's piece and weights blend to the walk's value.
                let blended: Vec<f32> = walked_pieces
                    .iter()
                    .zip(walked.chunks(2))
                    .flat_map(|(p, v)| match p {
                        Some(p) => {
                            // Every field computed, none skipped.
                            let v = [region[p.a], region[p.b], corner[p.corner]]
                                .map(|f| f.map(f64::from));
                            blend(p.w, &v, &[true; 2])
                        }
                        None => [f32::from_bits(v[0]), f32::from_bits(v[1])],
                    })
                    .collect();
                assert_eq!(walked, bits(&blended), "{s:?}");
                // Whether the plan keeps the weights or weighs each pixel again.
                for weighed in [true, false] {
                    let plan = PiecePlan::of_mesh_weighed(&mesh, &s, weighed).unwrap();
                    let planned = rasterize_mesh_fields_on(&mesh, Some(&plan), r, c, &s).unwrap();
                    assert_eq!(walked, bits(planned.as_slice().unwrap()), "{s:?}");
                    let mut strips = Vec::new();
                    rasterize_mesh_fields_strips_on(
                        &mesh,
                        Some(&plan),
                        r,
                        c,
                        &s,
                        9,
                        |row0, strip| {
                            assert_eq!(row0 * s.nx * 2, strips.len());
                            strips.extend(strip.iter().flatten());
                        },
                    )
                    .unwrap();
                    assert_eq!(walked, bits(&strips), "strips, {s:?}");
                    let key = |p: &[Option<PieceAt>]| {
                        p.iter()
                            .map(|p| p.map(|p| (p.a, p.b, p.corner, p.w.map(f64::to_bits))))
                            .collect::<Vec<_>>()
                    };
                    let planned = pieces_of(&mesh, Some(&plan), &s);
                    assert_eq!(key(&walked_pieces), key(&planned), "pieces, {s:?}");
                }
            }
        }
        // A plan answers only for its own sampling and mesh.
        let mesh = DualMesh::jittered_grid(14, 11, 3.0, 2.0, 0.45, 5);
        let s = RasterSampling::pixel_centres(7, 5, 3.0, 2.0);
        let plan = PiecePlan::of_mesh(&mesh, &s).unwrap();
        let other = RasterSampling::pixel_centres(8, 5, 3.0, 2.0);
        let zero = |_: usize| [0.0f32];
        assert!(rasterize_mesh_fields_on(&mesh, Some(&plan), zero, zero, &other).is_err());
        let finer = DualMesh::jittered_grid(15, 11, 3.0, 2.0, 0.45, 5);
        assert!(rasterize_mesh_fields_on(&finer, Some(&plan), zero, zero, &s).is_err());
    }

    #[test]
    fn bands_list_their_corners_in_corner_order_across_chunks() {
        // Over 2.5 chunks of corners: each band lists, in corner order, the corners whose
        // triangle reaches one of its rows, but for those whose pieces fill no pixel (they
        // span no column's sample x; cells about as small as the pixels leave some out).
        let mesh = DualMesh::jittered_grid(200, 180, 3.0, 2.8, 0.4, 9);
        assert!(
            mesh.n_corners() > 2 * CORNERS_A_CHUNK,
            "{}",
            mesh.n_corners()
        );
        let s = RasterSampling::pixel_centres(200, 181, 3.0, 2.8);
        let pieces = Pieces::of_mesh(&mesh, &s).unwrap();
        let mut want = vec![Vec::new(); s.ny.div_ceil(BAND_ROWS)];
        for c in 0..mesh.n_corners() {
            let ys = mesh
                .corner_regions
                .row(c)
                .map(|&r| mesh.region_xy[[r as usize, 1]]);
            let (lo, hi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &y| {
                (lo.min(y), hi.max(y))
            });
            if let Some((r0, r1)) = row_span(lo, hi, s.y0, s.dy, s.ny) {
                for band in &mut want[r0 / BAND_ROWS..=r1 / BAND_ROWS] {
                    band.push(c as u32);
                }
            }
        }
        // The pixels a corner's pieces fill, on the whole raster.
        let fills = |c: usize| {
            let mut raster = vec![0u8; s.nx * s.ny];
            let band = Band {
                row0: 0,
                rows: s.ny,
                nx: s.nx,
            };
            let tri = mesh.corner_regions.row(c);
            let xy = |a: &Array2<f64>, i: usize| [a[[i, 0]], a[[i, 1]]];
            for k in 0..3 {
                let t = [
                    xy(&mesh.region_xy, tri[k] as usize),
                    xy(&mesh.region_xy, tri[(k + 1) % 3] as usize),
                    xy(&mesh.corner_xy, c),
                ];
                fill_triangle(&mut raster, band, &s, t, |px, _| *px = 1);
            }
            raster.iter().filter(|&&v| v == 1).count()
        };
        let mut left_out = 0;
        for (got, want) in pieces.bands.iter().zip(&want) {
            let mut got = got.iter().peekable();
            for &c in want {
                if got.next_if_eq(&&c).is_none() {
                    assert_eq!(fills(c as usize), 0, "corner {c} left out");
                    left_out += 1;
                }
            }
            assert!(got.next().is_none(), "a band lists a corner out of order");
        }
        assert!(left_out > 100, "{left_out} corners left out");
    }

    #[test]
    fn the_inlined_ceil_and_floor_are_std_s() {
        let mut values = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            1.5,
            -1.5,
            2.999_999_999,
            -2.999_999_999,
            1e-300,
            -1e-300,
            4_503_599_627_370_495.5,
            -4_503_599_627_370_495.5,
            4.5e15,
            1e300,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN,
        ];
        values.extend((0..10_000).map(|i| (i as f64 - 5_000.0) * 0.013_7));
        for v in values {
            // Equal as numbers (a zero result may differ in sign, which no caller sees).
            assert_eq!(ceil(v), v.ceil(), "{v}");
            assert_eq!(floor(v), v.floor(), "{v}");
        }
        assert!(ceil(f64::NAN).is_nan() && floor(f64::NAN).is_nan());
    }

    fn linear(mesh: &DualMesh, f: impl Fn(f64, f64) -> f32) -> (Array1<f32>, Array1<f32>) {
        let r = mesh
            .region_xy
            .rows()
            .into_iter()
            .map(|p| f(p[0], p[1]))
            .collect();
        let c = mesh
            .corner_xy
            .rows()
            .into_iter()
            .map(|p| f(p[0], p[1]))
            .collect();
        (r, c)
    }

    #[test]
    fn linear_fields_are_reproduced_everywhere_with_both_samplings() {
        let mesh = DualMesh::jittered_grid(12, 9, 2.0, 1.5, 0.35, 3);
        let f = |x: f64, y: f64| (0.3 * x - 0.7 * y + 0.1) as f32;
        let (r, c) = linear(&mesh, f);
        for s in [
            RasterSampling::pixel_centres(64, 48, 2.0, 1.5),
            RasterSampling::vertices(33, 25, 2.0, 1.5),
        ] {
            let img = rasterize_mesh(&mesh, r.view(), c.view(), &s).unwrap();
            for row in 0..s.ny {
                for col in 0..s.nx {
                    let (x, y) = s.point(col, row);
                    let v = img[[row, col]];
                    assert!(
                        (v - f(x, y)).abs() < 1e-5,
                        "({col}, {row}): {v} vs {}",
                        f(x, y)
                    );
                }
            }
        }
    }

    #[test]
    fn corner_values_shape_the_raster_and_sites_are_hit_exactly() {
        // Regions 0, corners 1: the raster rises towards every corner point and is 0 at sites.
        let mesh = DualMesh::jittered_grid(6, 6, 1.0, 1.0, 0.0, 1);
        let r = Array1::<f32>::zeros(mesh.n_regions());
        let c = Array1::<f32>::ones(mesh.n_corners());
        // Vertex sampling on a 6x6 grid of spacing 0.2: 26 px puts a sample on every site.
        let s = RasterSampling::vertices(26, 26, 1.0, 1.0);
        let img = rasterize_mesh(&mesh, r.view(), c.view(), &s).unwrap();
        assert!(img.iter().all(|v| (0.0..=1.0).contains(v)));
        for row in (0..26).step_by(5) {
            for col in (0..26).step_by(5) {
                assert!(img[[row, col]].abs() < 1e-6);
            }
        }
        assert!(img.iter().any(|&v| v > 0.5));
    }

    #[test]
    fn same_bytes_for_one_and_two_threads_and_bad_lengths_are_refused() {
        let mesh = DualMesh::jittered_grid(30, 30, 1.0, 1.0, 0.4, 9);
        let (r, c) = linear(&mesh, |x, y| ((x * 13.0).sin() * (y * 7.0).cos()) as f32);
        let s = RasterSampling::pixel_centres(97, 97, 1.0, 1.0);
        let run = |n: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
                .install(|| rasterize_mesh(&mesh, r.view(), c.view(), &s).unwrap())
        };
        let (one, two) = (run(1), run(2));
        assert!(
            one.iter()
                .zip(two.iter())
                .all(|(a, b)| a.to_bits() == b.to_bits())
        );
        assert!(one.iter().all(|v| v.is_finite()));
        let short = Array1::<f32>::zeros(3);
        assert!(rasterize_mesh(&mesh, short.view(), c.view(), &s).is_err());
    }

    #[test]
    fn fields_together_are_the_same_bytes_as_each_alone() {
        let mesh = DualMesh::jittered_grid(25, 20, 1.5, 1.0, 0.4, 4);
        let fields: [(Array1<f32>, Array1<f32>); 3] = [
            linear(&mesh, |x, y| ((x * 11.0).sin() * (y * 5.0).cos()) as f32),
            linear(&mesh, |x, y| (x - 2.0 * y) as f32),
            linear(&mesh, |x, _| f32::from(u8::from(x > 0.7))),
        ];
        let region: Vec<[f32; 3]> = (0..mesh.n_regions())
            .map(|r| std::array::from_fn(|f| fields[f].0[r]))
            .collect();
        let corner: Vec<[f32; 3]> = (0..mesh.n_corners())
            .map(|c| std::array::from_fn(|f| fields[f].1[c]))
            .collect();
        for s in [
            RasterSampling::pixel_centres(83, 61, 1.5, 1.0),
            RasterSampling::vertices(40, 27, 1.5, 1.0),
        ] {
            let together = rasterize_mesh_fields(&mesh, &region, &corner, &s).unwrap();
            assert_eq!(together.dim(), (s.ny, s.nx, 3));
            for (f, (r, c)) in fields.iter().enumerate() {
                let alone = rasterize_mesh(&mesh, r.view(), c.view(), &s).unwrap();
                let same = alone
                    .indexed_iter()
                    .all(|((j, i), v)| v.to_bits() == together[[j, i, f]].to_bits());
                assert!(same, "field {f} differs from its own pass");
            }
        }
        assert!(
            rasterize_mesh_fields(
                &mesh,
                &region[1..],
                &corner,
                &RasterSampling::pixel_centres(4, 4, 1.5, 1.0)
            )
            .is_err()
        );
    }
}
