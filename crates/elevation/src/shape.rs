//! From base heights to the elevation of the conventions: the coastal/inland power curve, the
//! per-world normalisation, ocean versus enclosed water, and corner means.

use std::collections::VecDeque;

use ndarray::{Array1, ArrayView1};
use orogen_world::Csr;
use orogen_world::ids::water;
use orogen_world::params::{ParamError, Spec, check_specs};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The reference's piecewise power curve over normalised land height `ln` in [0, 1]:
/// `s = coast_factor * ln` below the breakpoint (flat coasts), and
/// `s = coast_factor * breakpoint + inland_factor * (ln - breakpoint)^inland_exponent` above it
/// (steep inland). The inland offset is derived, so the curve is continuous for any breakpoint.
///
/// Each field's default, range and unit are stated once, in [`Self::SPECS`] (`orogen params`
/// lists them all).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PowerCurve {
    /// Where the coast ends, on the normalised land height.
    pub breakpoint: f64,
    /// Slope of the coastal part.
    pub coast_factor: f64,
    /// Factor of the inland part.
    pub inland_factor: f64,
    /// Exponent of the inland part.
    pub inland_exponent: f64,
}

impl Default for PowerCurve {
    fn default() -> Self {
        PowerCurve {
            breakpoint: 0.35,
            coast_factor: 0.8,
            inland_factor: 3.0,
            inland_exponent: 1.3,
        }
    }
}

impl PowerCurve {
    /// Every parameter, described once.
    pub const SPECS: &[Spec<PowerCurve>] = &[
        Spec::float(
            "breakpoint",
            "Where the coast ends, on the normalised land height",
            0.0,
            1.0,
            |p: &PowerCurve| p.breakpoint,
        ),
        Spec::float(
            "coast_factor",
            "Slope of the coastal part of the power curve",
            0.001,
            100.0,
            |p: &PowerCurve| p.coast_factor,
        ),
        Spec::float(
            "inland_factor",
            "Factor of the inland part of the power curve",
            0.0,
            100.0,
            |p: &PowerCurve| p.inland_factor,
        ),
        Spec::float(
            "inland_exponent",
            "Exponent of the inland part of the power curve",
            0.1,
            10.0,
            |p: &PowerCurve| p.inland_exponent,
        ),
    ];

    /// Checks every field; the error names the allowed range.
    pub fn validate(&self) -> Result<(), ParamError> {
        check_specs(self, Self::SPECS)
    }

    /// The inland offset that keeps the curve continuous: `coast_factor * breakpoint`.
    pub fn inland_offset(&self) -> f64 {
        self.coast_factor * self.breakpoint
    }

    /// The curve at `ln` (clipped to [0, 1]). Strictly increasing, 0 at 0.
    #[inline]
    pub fn apply(&self, ln: f64) -> f64 {
        let ln = ln.clamp(0.0, 1.0);
        if ln < self.breakpoint {
            self.coast_factor * ln
        } else {
            self.inland_offset()
                + self.inland_factor * (ln - self.breakpoint).powf(self.inland_exponent)
        }
    }
}

/// The smallest magnitude a land or water elevation takes, so land is never 0 and water never 0.
pub const MIN_MAGNITUDE: f32 = 1e-6;

/// Elevation of the conventions from base heights (`noise01 - falloff`) and a water level `w`:
/// land where `base > w`, shaped by the power curve on `ln = (base - w) / (1 - w)` and scaled so
/// the highest land is exactly 1; water depth `(w - base) / max(w, 1e-6)` scaled so the deepest
/// water is exactly -1. Land is in (0, 1], water in [-1, 0).
pub fn elevation(base: ArrayView1<'_, f64>, water_level: f64, curve: &PowerCurve) -> Array1<f32> {
    let w = water_level;
    let land_span = (1.0 - w).max(1e-6);
    let water_span = w.max(1e-6);
    // Parallel maps keep their order, and max is exact in any grouping: the same bytes for any
    // thread count.
    let raw: Vec<f64> = base
        .to_vec()
        .into_par_iter()
        .map(|b| {
            if b > w {
                curve.apply((b - w) / land_span).max(f64::MIN_POSITIVE)
            } else {
                -((w - b) / water_span).max(f64::MIN_POSITIVE)
            }
        })
        .collect();
    let max_land = raw
        .par_iter()
        .copied()
        .filter(|&v| v > 0.0)
        .reduce(|| 0.0, f64::max);
    let max_depth = raw
        .par_iter()
        .filter(|&&v| v < 0.0)
        .map(|&v| -v)
        .reduce(|| 0.0, f64::max);
    let out: Vec<f32> = raw
        .par_iter()
        .map(|&v| {
            let e = if v > 0.0 {
                (v / max_land) as f32
            } else {
                (v / max_depth) as f32
            };
            // Exactly 1 / -1 at the extremes, never 0.
            if v > 0.0 {
                e.clamp(MIN_MAGNITUDE, 1.0)
            } else {
                e.clamp(-1.0, -MIN_MAGNITUDE)
            }
        })
        .collect();
    Array1::from(out)
}

/// Water kind per region: [`water::LAND`] where `elevation > 0`, [`water::OCEAN`] for water
/// connected through water to a border region, [`water::LAKE`] for enclosed water. Breadth-first
/// from the border regions in index order: deterministic.
pub fn water_kind(
    elevation: ArrayView1<'_, f32>,
    is_border: ArrayView1<'_, u8>,
    neighbors: &Csr,
) -> Array1<u8> {
    let n = elevation.len();
    let mut kind: Array1<u8> = elevation.mapv(|e| if e > 0.0 { water::LAND } else { water::LAKE });
    let mut queue = VecDeque::new();
    for r in 0..n {
        if is_border[r] != 0 && kind[r] == water::LAKE {
            kind[r] = water::OCEAN;
            queue.push_back(r);
        }
    }
    while let Some(r) = queue.pop_front() {
        for &nb in neighbors.get(r) {
            let nb = nb as usize;
            if kind[nb] == water::LAKE {
                kind[nb] = water::OCEAN;
                queue.push_back(nb);
            }
        }
    }
    kind
}

/// Per-corner mean of its three regions' values (the reference's corner altitude):
/// [`orogen_world::corner_mean`].
pub use orogen_world::corner_mean;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn power_curve_is_continuous_and_increasing(
            breakpoint in 0.0f64..=1.0,
            coast in 0.001f64..10.0,
            inland in 0.0f64..10.0,
            exponent in 0.3f64..5.0,
        ) {
            let c = PowerCurve { breakpoint, coast_factor: coast, inland_factor: inland, inland_exponent: exponent };
            // The value at the breakpoint equals the coastal part's limit from the left ...
            prop_assert!((c.apply(breakpoint) - coast * breakpoint).abs() < 1e-12);
            // ... and the jump across it vanishes as the gap shrinks.
            let jump = |eps: f64| (c.apply(breakpoint + eps) - c.apply(breakpoint - eps)).abs();
            prop_assert!(jump(1e-12) < 1e-2, "jump {}", jump(1e-12));
            prop_assert!(jump(1e-12) <= jump(1e-6) + 1e-15);
            let mut prev = c.apply(0.0);
            prop_assert_eq!(prev, 0.0);
            for i in 1..=100 {
                let v = c.apply(f64::from(i) / 100.0);
                prop_assert!(v >= prev);
                prev = v;
            }
        }
    }

    #[test]
    fn default_curve_matches_the_reference() {
        let c = PowerCurve::default();
        assert!((c.inland_offset() - 0.28).abs() < 1e-12);
        assert!((c.apply(0.2) - 0.16).abs() < 1e-12);
        assert!((c.apply(1.0) - (0.28 + 3.0 * 0.65f64.powf(1.3))).abs() < 1e-12);
    }

    #[test]
    fn elevation_spans_exactly_minus_one_to_one_with_no_zero() {
        let base = Array1::from(vec![-0.5, 0.1, 0.35, 0.3500001, 0.6, 0.95, 0.2]);
        let e = elevation(base.view(), 0.35, &PowerCurve::default());
        assert_eq!(e.iter().copied().fold(f32::MIN, f32::max), 1.0);
        assert_eq!(e.iter().copied().fold(f32::MAX, f32::min), -1.0);
        assert!(e.iter().all(|&v| v != 0.0 && (-1.0..=1.0).contains(&v)));
        // Land exactly where base > w; order kept on each side.
        assert!(e[2] < 0.0 && e[3] > 0.0);
        assert!(e[3] < e[4] && e[4] < e[5]);
        assert!(e[0] < e[1] && e[1] < e[6]);
        // Water level 0 and 1 are guarded.
        let all_land = elevation(base.view(), 0.0, &PowerCurve::default());
        assert!(all_land.iter().all(|v| v.is_finite()));
        let all_water = elevation(base.view(), 1.0, &PowerCurve::default());
        assert!(all_water.iter().all(|v| (-1.0..0.0).contains(v)));
    }

    #[test]
    fn ocean_is_water_reaching_the_border() {
        // A path graph 0-1-2-3-4-5: 0 is the border; 0,1 water, 2 land, 3 water, 4 land, 5 water.
        let lists: Vec<Vec<u32>> = (0..6u32)
            .map(|i| {
                let mut l = Vec::new();
                if i > 0 {
                    l.push(i - 1);
                }
                if i < 5 {
                    l.push(i + 1);
                }
                l
            })
            .collect();
        let csr = Csr::from_lists(&lists);
        let e = Array1::from(vec![-0.5f32, -0.2, 0.3, -0.1, 0.2, -0.3]);
        let border = Array1::from(vec![1u8, 0, 0, 0, 0, 0]);
        let k = water_kind(e.view(), border.view(), &csr);
        assert_eq!(k.to_vec(), vec![1, 1, 0, 2, 0, 2]);
    }

    #[test]
    fn corner_mean_averages_three_regions() {
        let v = Array1::from(vec![0.0f32, 0.3, 0.6, -0.9]);
        let tris = ndarray::arr2(&[[0u32, 1, 2], [1, 2, 3]]);
        let m = corner_mean(v.view(), tris.view());
        assert!((m[0] - 0.3).abs() < 1e-7 && m[1].abs() < 1e-7);
    }
}
