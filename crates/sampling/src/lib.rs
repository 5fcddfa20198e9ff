//! Seeded, deterministic Poisson-disc sampling (Bridson 2007) over any rectangle.
//!
//! Points are spread so that no two are closer than a minimum distance `r`, and (at `k = 30`
//! candidates per active point) almost no room is left where another point would fit. The
//! minimum distance may be constant ([`poisson_disc`]) or vary over the map, given as a closure
//! ([`poisson_disc_variable`]) or as a raster of radii ([`poisson_disc_raster`]).
//!
//! The algorithm is Bridson's: a background grid of cell `r_min / sqrt 2` (so each grid cell holds
//! at most one point), an *ordered* active list (a `Vec`, picked from by the generator, never a
//! hash set), and `k` candidates drawn uniformly by area in the annulus `r .. 2r` around the active
//! point. Its cost is O(n). Every random number comes from the generator passed in, through this
//! crate's own conversions (53-bit floats, multiply-shift indices), so the same seed gives the same
//! points on every platform and with every `rand` version.
//!
//! One spacing rule holds for every variant: with a varying radius `r(x, y)`, two points `p`,
//! `q` are always at least `min(r(p), r(q))` apart, so a sparse area does not push a dense
//! neighbour's points away, and a candidate only needs to look `r(c)` around itself. New
//! candidates are drawn in the annulus `r(p) .. 2 r(p)` of the active point `p`. One sampler
//! runs them all; they differ in their radius and where their fronts start:
//! - [`poisson_disc`]: a constant radius, one front from a uniform dart (Bridson);
//! - [`poisson_disc_variable`] and [`poisson_disc_raster`]: a radius from a closure or a raster,
//!   clamped to `r_min ..= r_max`;
//! - [`poisson_disc_masked`], for vegetation: the radius may be absent (nothing grows there), a
//!   veto may refuse candidates (a river, a canopy tree nearby), and fronts start from seed
//!   darts on a lattice, so islands of non-zero density are reached.
//!
//! This crate is shared by the mesh stage (Poisson-disc interior sites) and the flora stage (tree
//! placement); it depends on no stage.
//!
//! ```
//! use orogen_sampling::{Rect, poisson_disc};
//! use orogen_world::seed;
//!
//! let rect = Rect::new(0.0, 0.0, 100.0, 50.0)?;
//! let mut rng = seed::stage_rng(42, "flora");
//! let points = poisson_disc(&mut rng, rect, 2.0, 30)?;
//! // No two points closer than r = 2.
//! for (i, a) in points.iter().enumerate() {
//!     for b in &points[i + 1..] {
//!         assert!(((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt() >= 2.0);
//!     }
//! }
//! // Bridson fills the rectangle: n r^2 / area lands near 0.65.
//! let density = points.len() as f64 * 4.0 / rect.area();
//! assert!((0.55..0.72).contains(&density));
//! // Deterministic: the same seed gives the same points.
//! let again = poisson_disc(&mut seed::stage_rng(42, "flora"), rect, 2.0, 30)?;
//! assert_eq!(points, again);
//! # Ok::<(), orogen_sampling::SamplingError>(())
//! ```
#![warn(missing_docs)]

use ndarray::ArrayView2;
use orogen_world::params::{ParamError, in_range, positive_finite};
use rand::Rng;
use thiserror::Error;

pub mod grid;

/// The number of candidates per active point that Bridson recommends, and the default.
pub const DEFAULT_K: usize = 30;

/// Candidates tried around each active point before it retires, for [`poisson_disc_masked`].
pub const MASKED_K: usize = 20;

/// A sampled point and its disc radius.
pub type DiscPoint = ([f64; 2], f64);

/// The largest `area / r_min^2` accepted: about 58 million points and a 400 MB background grid.
/// Beyond it the request is refused before any allocation.
pub const MAX_AREA_OVER_R2: f64 = 5.0e7;

/// What can go wrong: a bad parameter, or a radius closure returning an unusable value.
#[derive(Debug, Error, PartialEq)]
#[non_exhaustive]
pub enum SamplingError {
    /// A parameter out of range (rectangle, radius, k).
    #[error(transparent)]
    Param(#[from] ParamError),
    /// The radius closure returned a non-finite or non-positive value.
    #[error("the radius at ({x}, {y}) is {value}: it must be finite and > 0")]
    BadRadius {
        /// The x coordinate the closure was asked about.
        x: f64,
        /// The y coordinate the closure was asked about.
        y: f64,
        /// The radius it returned.
        value: f64,
    },
}

/// An axis-aligned rectangle `[x0, x1) x [y0, y1)`; points are drawn inside it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    /// Smallest x (included).
    pub x0: f64,
    /// Smallest y (included).
    pub y0: f64,
    /// Bound on x (excluded).
    pub x1: f64,
    /// Bound on y (excluded).
    pub y1: f64,
}

impl Rect {
    /// A rectangle, checked: finite bounds, `x0 < x1`, `y0 < y1`.
    pub fn new(x0: f64, y0: f64, x1: f64, y1: f64) -> Result<Self, ParamError> {
        for (name, v) in [("x0", x0), ("y0", y0), ("x1", x1), ("y1", y1)] {
            orogen_world::params::finite(name, v)?;
        }
        positive_finite("rect width (x1 - x0)", x1 - x0)?;
        positive_finite("rect height (y1 - y0)", y1 - y0)?;
        Ok(Rect { x0, y0, x1, y1 })
    }

    /// The map rectangle `[0, width) x [0, height)`.
    pub fn from_size(width: f64, height: f64) -> Result<Self, ParamError> {
        Rect::new(0.0, 0.0, width, height)
    }

    /// `x1 - x0`.
    pub fn width(&self) -> f64 {
        self.x1 - self.x0
    }

    /// `y1 - y0`.
    pub fn height(&self) -> f64 {
        self.y1 - self.y0
    }

    /// The area.
    pub fn area(&self) -> f64 {
        self.width() * self.height()
    }

    /// True when `(x, y)` lies in `[x0, x1) x [y0, y1)`.
    pub fn contains(&self, x: f64, y: f64) -> bool {
        x >= self.x0 && x < self.x1 && y >= self.y0 && y < self.y1
    }
}

/// A uniform float in `[0, 1)` from the top 53 bits of one 64-bit draw.
#[inline]
pub fn unit_f64<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    orogen_world::seed::unit_f64(rng.next_u64())
}

/// A uniform index in `0..n` (multiply-shift; `n > 0`).
#[inline]
pub fn index_below<R: Rng + ?Sized>(rng: &mut R, n: usize) -> usize {
    ((u128::from(rng.next_u64()) * n as u128) >> 64) as usize
}

/// Poisson-disc points in `rect` with a constant minimum distance `radius`, `k` candidates per
/// active point (Bridson recommends 30, [`DEFAULT_K`]). Points come in insertion order.
pub fn poisson_disc<R: Rng + ?Sized>(
    rng: &mut R,
    rect: Rect,
    radius: f64,
    k: usize,
) -> Result<Vec<[f64; 2]>, SamplingError> {
    positive_finite("radius", radius)?;
    let sampler = Sampler::new(rect, radius, k)?;
    Ok(sampler
        .run(rng, Fronts::One, |_| Ok(Some(radius)), |_| true)?
        .0)
}

/// Poisson-disc points whose minimum distance varies over the map: `radius(x, y)`, clamped to
/// `r_min ..= r_max`. Any two points `p`, `q` end at least `min(r(p), r(q))` apart (the
/// [crate](self)'s one spacing rule). The cost of each candidate grows with `(r(c) / r_min)^2`,
/// so keep the ratio moderate (under about 10).
pub fn poisson_disc_variable<R: Rng + ?Sized, F: Fn(f64, f64) -> f64>(
    rng: &mut R,
    rect: Rect,
    r_min: f64,
    r_max: f64,
    k: usize,
    radius: F,
) -> Result<Vec<[f64; 2]>, SamplingError> {
    positive_finite("r_min", r_min)?;
    positive_finite("r_max", r_max)?;
    if r_max < r_min {
        return Err(ParamError::new("r_max", r_max, format!(">= r_min ({r_min})")).into());
    }
    in_range("r_max / r_min", r_max / r_min, 1.0..=64.0)?;
    let sampler = Sampler::new(rect, r_min, k)?;
    let radius = |[x, y]: [f64; 2]| {
        let r = radius(x, y);
        if r.is_finite() && r > 0.0 {
            Ok(Some(r.clamp(r_min, r_max)))
        } else {
            Err(SamplingError::BadRadius { x, y, value: r })
        }
    };
    Ok(sampler.run(rng, Fronts::One, radius, |_| true)?.0)
}

/// Masked variable-radius Poisson-disc points, for vegetation and anything else that grows only
/// where a density allows it: `radius(q)` is the disc radius at `q`, or `None` where nothing may
/// stand (zero density), raised to `r_min` when smaller; `allowed(q)` may veto a candidate (a
/// river, a canopy tree nearby). Two points keep `min(r(p), r(q))` apart (the
/// [crate](self)'s one spacing rule), so a sparse area does not push a dense neighbour's points
/// away. Fronts start from seed darts on a lattice of step `seed_step` over `rect`, in row order,
/// so islands of non-zero density are reached too; each front grows with [`MASKED_K`]
/// candidates per active point. Each point comes with its disc radius. `radius` is asked only at
/// candidates not already closer than `min(r_min, r(p))` to a placed point `p` (those fail
/// whatever their radius), so a bad radius is reported where a candidate could stand.
pub fn poisson_disc_masked<R: Rng + ?Sized>(
    rng: &mut R,
    rect: Rect,
    r_min: f64,
    seed_step: f64,
    radius: impl Fn([f64; 2]) -> Option<f64>,
    allowed: impl Fn([f64; 2]) -> bool,
) -> Result<Vec<DiscPoint>, SamplingError> {
    positive_finite("r_min", r_min)?;
    positive_finite("seed_step", seed_step)?;
    let sampler = Sampler::new(rect, r_min, MASKED_K)?;
    let radius = |q: [f64; 2]| match radius(q) {
        None => Ok(None),
        Some(r) if r.is_finite() && r > 0.0 => Ok(Some(r.max(r_min))),
        Some(r) => Err(SamplingError::BadRadius {
            x: q[0],
            y: q[1],
            value: r,
        }),
    };
    let (points, radii) = sampler.run(rng, Fronts::Lattice(seed_step), radius, allowed)?;
    Ok(points.into_iter().zip(radii).collect())
}

/// A raster of radii laid over a rectangle: pixel `[row, col]` covers the map cell whose centre
/// is `(x0 + (col + 0.5) w / nx, y0 + (row + 0.5) h / ny)`; row 0 is `y0` (the top). Lookups take
/// the nearest pixel (the pixel that contains the point).
#[derive(Clone, Copy, Debug)]
pub struct RadiusRaster<'a> {
    radii: ArrayView2<'a, f64>,
    rect: Rect,
}

impl<'a> RadiusRaster<'a> {
    /// Checks the raster: non-empty, every radius finite and > 0.
    pub fn new(radii: ArrayView2<'a, f64>, rect: Rect) -> Result<Self, ParamError> {
        let (ny, nx) = radii.dim();
        if nx == 0 || ny == 0 {
            return Err(ParamError::new(
                "radius raster",
                format!("{ny}x{nx}"),
                "at least 1x1",
            ));
        }
        if let Some(&bad) = radii.iter().find(|r| !(r.is_finite() && **r > 0.0)) {
            return Err(ParamError::new(
                "radius raster value",
                bad,
                "finite numbers > 0",
            ));
        }
        Ok(RadiusRaster { radii, rect })
    }

    /// The radius at `(x, y)` (the containing pixel; points outside use the nearest edge pixel).
    pub fn at(&self, x: f64, y: f64) -> f64 {
        let (ny, nx) = self.radii.dim();
        let col = ((x - self.rect.x0) / self.rect.width() * nx as f64).floor();
        let row = ((y - self.rect.y0) / self.rect.height() * ny as f64).floor();
        let col = col.clamp(0.0, (nx - 1) as f64) as usize;
        let row = row.clamp(0.0, (ny - 1) as f64) as usize;
        self.radii[[row, col]]
    }

    /// The smallest and largest radius.
    pub fn bounds(&self) -> (f64, f64) {
        self.radii
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), &r| {
                (lo.min(r), hi.max(r))
            })
    }
}

/// Poisson-disc points whose minimum distance is read from a raster of radii over `rect` (see
/// [`RadiusRaster`]).
pub fn poisson_disc_raster<R: Rng + ?Sized>(
    rng: &mut R,
    raster: &RadiusRaster<'_>,
    k: usize,
) -> Result<Vec<[f64; 2]>, SamplingError> {
    let (r_min, r_max) = raster.bounds();
    poisson_disc_variable(rng, raster.rect, r_min, r_max, k, |x, y| raster.at(x, y))
}

const EMPTY: u32 = u32::MAX;

/// Where the growing fronts start.
#[derive(Clone, Copy)]
enum Fronts {
    /// One dart, uniform in the rectangle (Bridson).
    One,
    /// One dart per cell of a lattice of this step, in row order, each starting its own front.
    Lattice(f64),
}

/// The one Poisson-disc sampler behind every function of the crate: the background grid and
/// the points placed so far.
struct Sampler {
    rect: Rect,
    k: usize,
    /// The smallest radius: a candidate closer than `min(r_min, r(q))` to a placed point `q`
    /// fails whatever its own radius.
    r_min: f64,
    inv_cell: f64,
    gw: usize,
    gh: usize,
    grid: Vec<u32>,
    points: Vec<[f64; 2]>,
    /// The disc radius of each point.
    radii: Vec<f64>,
}

impl Sampler {
    /// A sampler whose radii are all at least `r_min` (the grid's cell is `r_min / sqrt 2`, so a
    /// cell holds at most one point).
    fn new(rect: Rect, r_min: f64, k: usize) -> Result<Self, SamplingError> {
        let rect = Rect::new(rect.x0, rect.y0, rect.x1, rect.y1)?;
        in_range("k", k, 1..=10_000)?;
        let ratio = rect.area() / (r_min * r_min);
        if ratio.is_nan() || ratio > MAX_AREA_OVER_R2 {
            return Err(ParamError::new(
                "r_min",
                r_min,
                format!(
                    "large enough that area / r_min^2 <= {MAX_AREA_OVER_R2:e} (area {})",
                    rect.area()
                ),
            )
            .into());
        }
        let cell = r_min / std::f64::consts::SQRT_2;
        let gw = ((rect.width() / cell).ceil() as usize).max(1);
        let gh = ((rect.height() / cell).ceil() as usize).max(1);
        Ok(Sampler {
            rect,
            k,
            r_min,
            inv_cell: 1.0 / cell,
            gw,
            gh,
            grid: vec![EMPTY; gw * gh],
            points: Vec::new(),
            radii: Vec::new(),
        })
    }

    #[inline]
    fn cell_of(&self, x: f64, y: f64) -> (usize, usize) {
        let cx = (((x - self.rect.x0) * self.inv_cell) as usize).min(self.gw - 1);
        let cy = (((y - self.rect.y0) * self.inv_cell) as usize).min(self.gh - 1);
        (cx, cy)
    }

    /// True when no placed point `q` is closer than `min(r, r(q))` to `(x, y)`. Only points
    /// within `r` can conflict, so the search reaches `r`; grid cells are visited in rings of
    /// growing distance, so most conflicts are found after a few cells.
    #[inline]
    fn fits(&self, x: f64, y: f64, r: f64, cx: usize, cy: usize) -> bool {
        if self.grid[cy * self.gw + cx] != EMPTY {
            return false;
        }
        let (cx, cy) = (cx as isize, cy as isize);
        let (gw, gh) = (self.gw as isize, self.gh as isize);
        let conflicts = |gx: isize, gy: isize| -> bool {
            if gx < 0 || gy < 0 || gx >= gw || gy >= gh {
                return false;
            }
            let q = self.grid[(gy * gw + gx) as usize];
            if q == EMPTY {
                return false;
            }
            let q = q as usize;
            let [qx, qy] = self.points[q];
            let d2 = (qx - x) * (qx - x) + (qy - y) * (qy - y);
            let m = r.min(self.radii[q]);
            d2 < m * m
        };
        let reach = (r * self.inv_cell).ceil() as isize;
        for d in 1..=reach {
            for k in -d..=d {
                if conflicts(cx + k, cy - d) || conflicts(cx + k, cy + d) {
                    return false;
                }
            }
            for k in 1 - d..d {
                if conflicts(cx - d, cy + k) || conflicts(cx + d, cy + k) {
                    return false;
                }
            }
        }
        true
    }

    /// Places `(x, y)` when it lies in the rectangle, has a radius, keeps the spacing rule and
    /// is allowed; returns its index.
    fn try_place(
        &mut self,
        x: f64,
        y: f64,
        radius: &impl Fn([f64; 2]) -> Result<Option<f64>, SamplingError>,
        allowed: &impl Fn([f64; 2]) -> bool,
    ) -> Result<Option<u32>, SamplingError> {
        if !self.rect.contains(x, y) {
            return Ok(None);
        }
        let (cx, cy) = self.cell_of(x, y);
        // Too close to a placed point whatever the candidate's radius (at least `r_min`; an
        // occupied cell among them): the radius, often the costliest part (a lookup in the
        // caller's map), is not asked for.
        if !self.fits(x, y, self.r_min, cx, cy) {
            return Ok(None);
        }
        let Some(r) = radius([x, y])? else {
            return Ok(None);
        };
        if !self.fits(x, y, r, cx, cy) || !allowed([x, y]) {
            return Ok(None);
        }
        let idx = self.points.len() as u32;
        self.grid[cy * self.gw + cx] = idx;
        self.points.push([x, y]);
        self.radii.push(r);
        Ok(Some(idx))
    }

    /// Samples the rectangle: the points in insertion order and their radii.
    fn run<R: Rng + ?Sized>(
        mut self,
        rng: &mut R,
        fronts: Fronts,
        radius: impl Fn([f64; 2]) -> Result<Option<f64>, SamplingError>,
        allowed: impl Fn([f64; 2]) -> bool,
    ) -> Result<(Vec<[f64; 2]>, Vec<f64>), SamplingError> {
        let rect = self.rect;
        let mut active: Vec<u32> = Vec::new();
        let darts = |rng: &mut R, i: usize, j: usize| -> (f64, f64) {
            match fronts {
                // Uniform in the rectangle (redrawn in the rare case rounding lands on the open
                // upper bound).
                Fronts::One => loop {
                    let x = rect.x0 + unit_f64(rng) * rect.width();
                    let y = rect.y0 + unit_f64(rng) * rect.height();
                    if rect.contains(x, y) {
                        break (x, y);
                    }
                },
                Fronts::Lattice(step) => (
                    rect.x0 + (i as f64 + unit_f64(rng)) * step,
                    rect.y0 + (j as f64 + unit_f64(rng)) * step,
                ),
            }
        };
        let (nx, ny) = match fronts {
            Fronts::One => (1, 1),
            Fronts::Lattice(step) => (
                ((rect.width() / step).ceil() as usize).max(1),
                ((rect.height() / step).ceil() as usize).max(1),
            ),
        };
        for j in 0..ny {
            for i in 0..nx {
                let (x, y) = darts(rng, i, j);
                let Some(first) = self.try_place(x, y, &radius, &allowed)? else {
                    continue;
                };
                active.push(first);
                self.grow(rng, &mut active, &radius, &allowed)?;
            }
        }
        Ok((self.points, self.radii))
    }

    /// Grows the front until no active point has room around it (Bridson's loop).
    fn grow<R: Rng + ?Sized>(
        &mut self,
        rng: &mut R,
        active: &mut Vec<u32>,
        radius: &impl Fn([f64; 2]) -> Result<Option<f64>, SamplingError>,
        allowed: &impl Fn([f64; 2]) -> bool,
    ) -> Result<(), SamplingError> {
        while !active.is_empty() {
            let slot = index_below(rng, active.len());
            let p = active[slot] as usize;
            let [px, py] = self.points[p];
            let rp = self.radii[p];
            let mut placed = false;
            for _ in 0..self.k {
                // Uniform by area in the annulus rp .. 2 rp: rejection from the square
                // [-2 rp, 2 rp]^2 (accepts 3 pi / 16 of draws; no trigonometry).
                let (dx, dy) = loop {
                    let dx = (4.0 * unit_f64(rng) - 2.0) * rp;
                    let dy = (4.0 * unit_f64(rng) - 2.0) * rp;
                    let d2 = dx * dx + dy * dy;
                    if d2 >= rp * rp && d2 < 4.0 * rp * rp {
                        break (dx, dy);
                    }
                };
                if let Some(idx) = self.try_place(px + dx, py + dy, radius, allowed)? {
                    active.push(idx);
                    placed = true;
                    break;
                }
            }
            if !placed {
                active.swap_remove(slot);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use orogen_world::seed::rng_from_seed;

    /// Squared distance to the nearest other point, by a plain sweep over x-sorted points
    /// (independent of the sampler's grid).
    fn min_pair_distance(points: &[[f64; 2]]) -> f64 {
        let mut sorted = points.to_vec();
        sorted.sort_by(|a, b| a[0].total_cmp(&b[0]));
        let mut best = f64::INFINITY;
        for i in 0..sorted.len() {
            for j in i + 1..sorted.len() {
                let dx = sorted[j][0] - sorted[i][0];
                if dx >= best {
                    break;
                }
                let dy = sorted[j][1] - sorted[i][1];
                best = best.min((dx * dx + dy * dy).sqrt());
            }
        }
        best
    }

    /// Share of probe points (uniform in the rectangle) at distance >= r from every sample:
    /// places where another point would still fit.
    fn empty_share(points: &[[f64; 2]], rect: Rect, r: f64, probes: usize, seed: u64) -> f64 {
        // The lookup on the crate's static grid (cells of side r), not the sampler's own.
        let dims = [
            ((rect.width() / r).ceil() as usize).max(1),
            ((rect.height() / r).ceil() as usize).max(1),
        ];
        let grid = crate::grid::BoxGrid::from_points([rect.x0, rect.y0], r, dims, points);
        let mut rng = rng_from_seed(seed);
        let mut free = 0;
        for _ in 0..probes {
            let x = rect.x0 + unit_f64(&mut rng) * rect.width();
            let y = rect.y0 + unit_f64(&mut rng) * rect.height();
            let mut fits = true;
            grid.for_each_in_box([x - r, y - r], [x + r, y + r], |i| {
                let [px, py] = points[i as usize];
                if ((px - x).powi(2) + (py - y).powi(2)).sqrt() < r {
                    fits = false;
                }
            });
            if fits {
                free += 1;
            }
        }
        free as f64 / probes as f64
    }

    #[test]
    fn no_two_points_closer_than_r() {
        for (seed, rect, r) in [
            (1, Rect::new(0.0, 0.0, 100.0, 100.0).unwrap(), 1.0),
            (2, Rect::new(-3.5, 10.0, 40.0, 12.5).unwrap(), 0.37),
            (3, Rect::new(0.0, 0.0, 1.0, 1.0).unwrap(), 0.013),
        ] {
            let points = poisson_disc(&mut rng_from_seed(seed), rect, r, DEFAULT_K).unwrap();
            assert!(points.len() > 100, "{} points", points.len());
            assert!(min_pair_distance(&points) >= r);
            assert!(points.iter().all(|p| rect.contains(p[0], p[1])));
        }
    }

    #[test]
    fn density_is_that_of_annulus_sampling_not_a_lattice() {
        let rect = Rect::new(0.0, 0.0, 256.0, 128.0).unwrap();
        for seed in [5, 6] {
            let r = 2.0;
            let points = poisson_disc(&mut rng_from_seed(seed), rect, r, DEFAULT_K).unwrap();
            let density = points.len() as f64 * r * r / rect.area();
            assert!((0.55..=0.72).contains(&density), "density {density}");
        }
    }

    #[test]
    fn almost_no_room_is_left_for_another_point() {
        let rect = Rect::new(0.0, 0.0, 200.0, 200.0).unwrap();
        let r = 2.0;
        let points = poisson_disc(&mut rng_from_seed(9), rect, r, DEFAULT_K).unwrap();
        let share = empty_share(&points, rect, r, 200_000, 77);
        assert!(share < 0.005, "empty share {share}");
        // The probe would see a sparse set: the check can fail.
        let sparse: Vec<_> = points.iter().step_by(2).copied().collect();
        assert!(empty_share(&sparse, rect, r, 20_000, 78) > 0.05);
    }

    #[test]
    fn same_seed_same_points_other_seed_other_points() {
        let rect = Rect::new(0.0, 0.0, 50.0, 30.0).unwrap();
        let a = poisson_disc(&mut rng_from_seed(11), rect, 1.0, DEFAULT_K).unwrap();
        let b = poisson_disc(&mut rng_from_seed(11), rect, 1.0, DEFAULT_K).unwrap();
        let c = poisson_disc(&mut rng_from_seed(12), rect, 1.0, DEFAULT_K).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        // Same bits, not merely equal values.
        let bits = |v: &[[f64; 2]]| v.iter().flatten().map(|f| f.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&a), bits(&b));
    }

    #[test]
    fn variable_radius_keeps_the_spacing_rule_and_follows_the_density() {
        let rect = Rect::new(0.0, 0.0, 100.0, 100.0).unwrap();
        // Radius 0.5 on the left, growing to 2 on the right.
        let radius = |x: f64, _y: f64| 0.5 + 1.5 * x / 100.0;
        let points =
            poisson_disc_variable(&mut rng_from_seed(4), rect, 0.5, 2.0, DEFAULT_K, radius)
                .unwrap();
        for (i, a) in points.iter().enumerate() {
            for b in &points[i + 1..] {
                let d = ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
                assert!(d >= radius(a[0], a[1]).min(radius(b[0], b[1])));
            }
        }
        let left = points.iter().filter(|p| p[0] < 20.0).count() as f64;
        let right = points.iter().filter(|p| p[0] >= 80.0).count() as f64;
        // Expected ratio of densities about (1.85 / 0.65)^2 = 8; ask for well over 4.
        assert!(left > 4.0 * right, "left {left} right {right}");
    }

    #[test]
    fn raster_radius_matches_the_closure_form() {
        let rect = Rect::new(0.0, 0.0, 64.0, 32.0).unwrap();
        let radii = ndarray::Array2::from_shape_fn((4, 8), |(row, col)| {
            1.0 + 0.25 * (row as f64) + 0.1 * col as f64
        });
        let raster = RadiusRaster::new(radii.view(), rect).unwrap();
        assert_eq!(raster.at(0.0, 0.0), 1.0);
        assert_eq!(raster.at(63.9, 31.9), radii[[3, 7]]);
        assert_eq!(raster.at(8.0, 8.0), radii[[1, 1]]);
        let a = poisson_disc_raster(&mut rng_from_seed(3), &raster, DEFAULT_K).unwrap();
        let (lo, hi) = raster.bounds();
        let b = poisson_disc_variable(&mut rng_from_seed(3), rect, lo, hi, DEFAULT_K, |x, y| {
            raster.at(x, y)
        })
        .unwrap();
        assert_eq!(a, b);
        assert!(min_pair_distance(&a) >= lo);
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let rect = Rect::new(0.0, 0.0, 1.0, 1.0).unwrap();
        let mut rng = rng_from_seed(1);
        assert!(Rect::new(0.0, 0.0, 0.0, 1.0).is_err());
        assert!(Rect::new(f64::NAN, 0.0, 1.0, 1.0).is_err());
        assert!(poisson_disc(&mut rng, rect, 0.0, 30).is_err());
        assert!(poisson_disc(&mut rng, rect, f64::NAN, 30).is_err());
        assert!(poisson_disc(&mut rng, rect, 1e-9, 30).is_err());
        assert!(poisson_disc(&mut rng, rect, 0.1, 0).is_err());
        assert!(poisson_disc_variable(&mut rng, rect, 0.2, 0.1, 30, |_, _| 0.1).is_err());
        let nan = poisson_disc_variable(&mut rng, rect, 0.1, 0.2, 30, |_, _| f64::NAN);
        assert!(matches!(nan, Err(SamplingError::BadRadius { .. })));
        let bad = ndarray::Array2::from_elem((2, 2), -1.0);
        assert!(RadiusRaster::new(bad.view(), rect).is_err());
        // A radius larger than the rectangle gives a single point.
        assert_eq!(poisson_disc(&mut rng, rect, 5.0, 30).unwrap().len(), 1);
    }

    #[test]
    fn spacing_follows_the_radius_field() {
        // Left half: radius 0.01; right half: radius 0.03.
        let radius = |p: [f64; 2]| Some(if p[0] < 0.5 { 0.01 } else { 0.03 });
        let mut rng = rng_from_seed(7);
        let unit = Rect::from_size(1.0, 1.0).unwrap();
        let pts = poisson_disc_masked(&mut rng, unit, 0.01, 0.01, radius, |_| true).unwrap();
        for (i, &(p, rp)) in pts.iter().enumerate() {
            assert_eq!(Some(rp), radius(p));
            for &(q, rq) in &pts[i + 1..] {
                let d = ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt();
                assert!(d >= rp.min(rq), "{p:?} {q:?} {d}");
            }
        }
        let left = pts.iter().filter(|(p, _)| p[0] < 0.5).count() as f64;
        let right = pts.len() as f64 - left;
        // Density scales as 1/r^2: about 9x more points on the left.
        assert!(left / right > 6.0 && left / right < 12.0, "{left} {right}");
        // Maximal sampling: no gap of 2 r anywhere (the left half's points cover it densely).
        assert!(left * 0.01 * 0.01 > 0.5 * 0.5);
    }

    #[test]
    fn zero_density_and_vetoes_hold_and_islands_are_reached() {
        // Density only inside two small discs far apart.
        let inside = |p: [f64; 2]| {
            let a = (p[0] - 0.2).powi(2) + (p[1] - 0.2).powi(2) < 0.05f64.powi(2);
            let b = (p[0] - 0.8).powi(2) + (p[1] - 0.7).powi(2) < 0.05f64.powi(2);
            a || b
        };
        let radius = |p: [f64; 2]| inside(p).then_some(0.01);
        let veto = |p: [f64; 2]| p[1] < 0.19 || p[1] > 0.21;
        let mut rng = rng_from_seed(8);
        let unit = Rect::from_size(1.0, 1.0).unwrap();
        let pts = poisson_disc_masked(&mut rng, unit, 0.01, 0.02, radius, veto).unwrap();
        assert!(pts.iter().all(|(p, _)| inside(*p) && veto(*p)));
        assert!(pts.iter().any(|(p, _)| p[0] < 0.5));
        assert!(pts.iter().any(|(p, _)| p[0] > 0.5));
        let again =
            poisson_disc_masked(&mut rng_from_seed(8), unit, 0.01, 0.02, radius, veto).unwrap();
        assert_eq!(pts, again);
    }
}
