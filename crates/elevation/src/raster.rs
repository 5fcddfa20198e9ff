//! Raster elevation sources of their own, for the classic landscape: diamond-square on a
//! (2^n + 1)^2 grid and raster fBm. Both return `Array2<f32>` indexed `[row = y, col = x]`.
//!
//! Diamond-square (midpoint displacement): the four corners are seeded (a fixed value, or
//! uniform in [-1, 1]); each level sets the centre of every square to the mean of its four
//! corners plus a uniform displacement in [-r, r] (diamond step), then the midpoint of every edge
//! to the mean of its 2-4 neighbours plus a displacement (square step), and halves r. Every
//! displacement comes from `item_seed(seed, level * side^2 + index)`, so a level's points are
//! independent and computed in parallel (rayon, by rows) with the same bytes for any thread count.
//! Within one step, no point reads another point of the same step, so the order does not matter.

use ndarray::{Array2, Axis};
use orogen_world::params::{ParamError, Spec, check_specs, in_range};
use orogen_world::seed;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::noise::{Fbm, FbmParams};

/// How the four corners of a diamond-square grid start.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CornerSeed {
    /// Every corner at this value (the landscape article's 0.5).
    Fixed(f32),
    /// Each corner uniform in [-1, 1] (the diamond-square article's).
    Random,
}

/// The largest diamond-square exponent: (2^13 + 1)^2 = 67 M samples, 268 MB of f32.
pub const MAX_LEVELS: u32 = 13;

/// Diamond-square parameters.
///
/// Each field's default, range and unit are stated once, in [`Self::SPECS`] (`orogen params`
/// lists them all).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DiamondSquare {
    /// The grid is (2^levels + 1)^2.
    pub levels: u32,
    /// The first level's displacement range r (halved each level).
    pub roughness: f32,
    /// Corner seeding. Allowed: `{ fixed = V }` with V in -10 ..= 10, or `"random"` (each corner
    /// uniform in [-1, 1]).
    pub corners: CornerSeed,
}

impl Default for DiamondSquare {
    fn default() -> Self {
        DiamondSquare {
            levels: 10,
            roughness: 0.65,
            corners: CornerSeed::Fixed(0.5),
        }
    }
}

impl DiamondSquare {
    /// Every parameter, described once.
    pub const SPECS: &[Spec<DiamondSquare>] = &[
        Spec::int(
            "levels",
            "Diamond-square levels: the grid is (2^levels + 1)^2",
            1,
            MAX_LEVELS as i128,
            |p: &DiamondSquare| p.levels.into(),
        ),
        Spec::float(
            "roughness",
            "Diamond-square roughness, halved each level",
            0.0,
            10.0,
            |p: &DiamondSquare| p.roughness.into(),
        ),
        Spec::other(
            "corners",
            "Diamond-square corner seeding",
            "{ fixed = V } with V in -10 ..= 10, or \"random\" (uniform in [-1, 1])",
        ),
    ];

    /// Checks every field; the error names the allowed range.
    pub fn validate(&self) -> Result<(), ParamError> {
        check_specs(self, Self::SPECS)?;
        if let CornerSeed::Fixed(v) = self.corners {
            in_range("corners.fixed", v, -10.0..=10.0)?;
        }
        Ok(())
    }

    /// The side of the grid, 2^levels + 1.
    pub fn side(&self) -> usize {
        (1usize << self.levels) + 1
    }

    /// The raw (not normalised) heightmap for `seed`.
    pub fn generate(&self, seed: u64) -> Result<Array2<f32>, ParamError> {
        self.validate()?;
        let n = self.side();
        let mut h = Array2::<f32>::zeros((n, n));
        let last = n - 1;
        let corner_pts = [(0, 0), (0, last), (last, 0), (last, last)];
        for (k, &(r, c)) in corner_pts.iter().enumerate() {
            h[[r, c]] = match self.corners {
                CornerSeed::Fixed(v) => v,
                CornerSeed::Random => displacement(seed, k as u64, 1.0),
            };
        }
        let side2 = (n * n) as u64;
        let mut step = last;
        let mut rough = self.roughness;
        let mut level = 1u64;
        while step > 1 {
            let half = step / 2;
            let salt = level * side2;
            // Diamond step: centres of squares, rows half, half + step, ...
            let rows: Vec<(usize, Vec<f32>)> = (half..last)
                .step_by(step)
                .collect::<Vec<_>>()
                .into_par_iter()
                .map(|y| {
                    let vals = (half..last)
                        .step_by(step)
                        .map(|x| {
                            let avg = (h[[y - half, x - half]]
                                + h[[y - half, x + half]]
                                + h[[y + half, x - half]]
                                + h[[y + half, x + half]])
                                / 4.0;
                            avg + displacement(seed, salt + (y * n + x) as u64, rough)
                        })
                        .collect();
                    (y, vals)
                })
                .collect();
            for (y, vals) in rows {
                for (k, v) in vals.into_iter().enumerate() {
                    h[[y, half + k * step]] = v;
                }
            }
            // Square step: edge midpoints, every row that is a multiple of half.
            let salt = salt + side2 / 2;
            let rows: Vec<(usize, Vec<f32>)> = (0..n)
                .step_by(half)
                .collect::<Vec<_>>()
                .into_par_iter()
                .map(|y| {
                    let x0 = (y + half) % step;
                    let vals = (x0..n)
                        .step_by(step)
                        .map(|x| {
                            let mut sum = 0.0f32;
                            let mut count = 0.0f32;
                            if x >= half {
                                sum += h[[y, x - half]];
                                count += 1.0;
                            }
                            if x + half < n {
                                sum += h[[y, x + half]];
                                count += 1.0;
                            }
                            if y >= half {
                                sum += h[[y - half, x]];
                                count += 1.0;
                            }
                            if y + half < n {
                                sum += h[[y + half, x]];
                                count += 1.0;
                            }
                            sum / count + displacement(seed, salt + (y * n + x) as u64, rough)
                        })
                        .collect();
                    (y, vals)
                })
                .collect();
            for (y, vals) in rows {
                let x0 = (y + half) % step;
                for (k, v) in vals.into_iter().enumerate() {
                    h[[y, x0 + k * step]] = v;
                }
            }
            rough *= 0.5;
            step = half;
            level += 1;
        }
        Ok(h)
    }
}

/// A uniform displacement in [-r, r] from one hashed seed.
#[inline]
fn displacement(seed: u64, idx: u64, r: f32) -> f32 {
    let bits = seed::item_seed(seed, idx) >> 40; // 24 bits
    let u = bits as f32 * (1.0 / (1u32 << 24) as f32); // [0, 1)
    (2.0 * u - 1.0) * r
}

/// Stretches an array to [0, 1] in place (min to 0, max to 1); a flat array becomes 0.
pub fn normalize01(a: &mut Array2<f32>) {
    let (lo, hi) = a
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    let span = hi - lo;
    a.par_mapv_inplace(|v| if span > 0.0 { (v - lo) / span } else { 0.0 });
}

/// Raster fBm: `noise01` at the map points `(x0 + col dx, y0 + row dy)` of an `ny x nx` grid,
/// in parallel by rows. `unit` is the map's shorter side.
#[allow(clippy::too_many_arguments)]
pub fn fbm_raster(
    params: &FbmParams,
    seed: u64,
    unit: f64,
    nx: usize,
    ny: usize,
    origin: (f64, f64),
    step: (f64, f64),
) -> Result<Array2<f32>, ParamError> {
    let fbm = Fbm::new(params, seed, unit)?;
    let mut out = Array2::<f32>::zeros((ny, nx));
    out.axis_iter_mut(Axis(0))
        .into_par_iter()
        .enumerate()
        .for_each(|(row, mut line)| {
            let y = origin.1 + row as f64 * step.1;
            for (col, v) in line.iter_mut().enumerate() {
                *v = fbm.noise01(origin.0 + col as f64 * step.0, y) as f32;
            }
        });
    Ok(out)
}

pub use orogen_world::interp::sample_bilinear;

#[cfg(test)]
mod tests {
    use super::*;

    fn variance(a: &Array2<f32>) -> f64 {
        let n = a.len() as f64;
        let mean = a.iter().map(|&v| f64::from(v)).sum::<f64>() / n;
        a.iter()
            .map(|&v| (f64::from(v) - mean).powi(2))
            .sum::<f64>()
            / n
    }

    #[test]
    fn diamond_square_is_reproducible_and_fills_every_sample() {
        let ds = DiamondSquare {
            levels: 7,
            ..DiamondSquare::default()
        };
        let a = ds.generate(5).unwrap();
        assert_eq!(a.dim(), (129, 129));
        assert_eq!(a, ds.generate(5).unwrap());
        assert_ne!(a, ds.generate(6).unwrap());
        // Fixed corners keep their value; every other sample was displaced from its mean.
        assert_eq!(a[[0, 0]], 0.5);
        assert_eq!(a[[128, 128]], 0.5);
        let zeros = a.iter().filter(|&&v| v == 0.0).count();
        assert!(zeros < 3, "{zeros} samples never set");
        let run = |n: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
                .install(|| ds.generate(5).unwrap())
        };
        assert_eq!(run(1), run(2));
    }

    #[test]
    fn roughness_controls_the_variance() {
        let var = |roughness: f32| {
            let ds = DiamondSquare {
                levels: 8,
                roughness,
                corners: CornerSeed::Fixed(0.0),
            };
            (1..=4)
                .map(|s| variance(&ds.generate(s).unwrap()))
                .sum::<f64>()
                / 4.0
        };
        let (low, mid, high) = (var(0.2), var(0.65), var(1.3));
        assert!(low < mid && mid < high, "{low} {mid} {high}");
        // Displacements scale linearly with r, so the variance scales with r^2.
        let ratio = high / mid;
        assert!((ratio - 4.0).abs() < 0.05, "ratio {ratio}");
        assert_eq!(var(0.0), 0.0);
    }

    #[test]
    fn random_corners_differ_and_stay_in_range() {
        let ds = DiamondSquare {
            levels: 4,
            roughness: 0.0,
            corners: CornerSeed::Random,
        };
        let a = ds.generate(3).unwrap();
        let c = [a[[0, 0]], a[[0, 16]], a[[16, 0]], a[[16, 16]]];
        assert!(c.iter().all(|v| (-1.0..=1.0).contains(v)));
        assert!(c[0] != c[1] || c[1] != c[2]);
    }

    #[test]
    fn normalize_and_bilinear() {
        let mut a = Array2::from_shape_fn((3, 3), |(r, c)| (r * 3 + c) as f32);
        normalize01(&mut a);
        assert_eq!(a[[0, 0]], 0.0);
        assert_eq!(a[[2, 2]], 1.0);
        let mid = sample_bilinear(a.view(), 1.0, 1.0, 0.25, 0.25);
        assert!((mid - 0.25).abs() < 1e-6, "{mid}");
        assert_eq!(sample_bilinear(a.view(), 1.0, 1.0, 1.0, 1.0), 1.0);
    }

    #[test]
    fn fbm_raster_is_in_range_and_bad_levels_are_refused() {
        let r = fbm_raster(
            &FbmParams::default(),
            1,
            1.0,
            64,
            32,
            (0.0, 0.0),
            (1.0 / 63.0, 1.0 / 31.0),
        )
        .unwrap();
        assert_eq!(r.dim(), (32, 64));
        assert!(r.iter().all(|v| (0.0..=1.0).contains(v)));
        let bad = DiamondSquare {
            levels: 20,
            ..DiamondSquare::default()
        };
        assert_eq!(bad.generate(1).unwrap_err().allowed, "1 ..= 13");
    }
}
