//! Fractal Brownian motion (fBm) over positions, in parallel.
//!
//! The basis is fastnoise-lite's Perlin (the reference's) or OpenSimplex2 (the raster article's
//! simplex). On this 2-core machine fastnoise-lite's Perlin costs 62 ns per 6-octave sample
//! against 202 ns for the `noise` crate's (see `docs/performance.md`), so orogen uses it.
//!
//! ## The normalisation, pinned
//!
//! Octave `i` samples the basis (its own seed) at `p * noise_scale / unit * lacunarity^i` with
//! amplitude `gain^i`, where `unit` is the map's shorter side (so `noise_scale` counts features
//! across it, as in the reference's unit map). The sum is divided by the sum of the amplitudes,
//! so its spread does not drift with the octave count or the gain. Then
//!
//! `noise01 = clamp(0.5 + CONTRAST[basis] * fbm, 0, 1)`
//!
//! With [`PERLIN_CONTRAST`] = 0.5 this is the reference's `(fbm + 1) / 2` on an
//! amplitude-normalised Perlin fBm (fastnoise-lite scales single-octave Perlin to about +-1, as
//! the reference's library does). Measured with `examples/calibrate.rs` over seeds 1..10 at
//! the default water level and random anchors: the fBm's standard deviation is 0.183, and the
//! land fraction is 36.0% on average, 32.2-42.9% per seed (the reference: 37%, 28-44%). The land
//! fraction is dominated by the anchors' falloff: contrasts from 0.3 to 1.2 all give 35-37%.
//! OpenSimplex2 fBm spreads wider (standard deviation 0.317), so [`SIMPLEX_CONTRAST`] =
//! 0.5 * 0.183 / 0.317 gives it the same spread, and switching the basis keeps the land fraction
//! (35.7% on average).

use fastnoise_lite::{FastNoiseLite, NoiseType};
use ndarray::{Array1, ArrayView2, Axis, Zip};
use orogen_world::params::{ParamError, Spec, check_specs};
use orogen_world::seed;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The contrast of Perlin fBm in `noise01`: the reference's `(fbm + 1) / 2` (see the module docs).
pub const PERLIN_CONTRAST: f64 = 0.5;
/// The contrast of simplex (OpenSimplex2) fBm in `noise01`: the same standard deviation as Perlin
/// at the defaults.
pub const SIMPLEX_CONTRAST: f64 = 0.288;

/// The noise basis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Basis {
    /// Gradient noise on a square lattice (the reference's).
    #[default]
    Perlin,
    /// OpenSimplex2: no axis-aligned artefacts.
    Simplex,
}

impl Basis {
    /// Parses `perlin` or `simplex`.
    pub fn parse(text: &str) -> Result<Self, ParamError> {
        match text {
            "perlin" => Ok(Basis::Perlin),
            "simplex" => Ok(Basis::Simplex),
            other => Err(ParamError::new("noise", other, "perlin or simplex")),
        }
    }

    fn contrast(self) -> f64 {
        match self {
            Basis::Perlin => PERLIN_CONTRAST,
            Basis::Simplex => SIMPLEX_CONTRAST,
        }
    }
}

/// fBm parameters.
///
/// Each field's default, range and unit are stated once, in [`Self::SPECS`] (`orogen params`
/// lists them all).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FbmParams {
    /// The basis. Allowed: perlin, simplex.
    pub noise: Basis,
    /// Features across the map's shorter side at the first octave.
    pub noise_scale: f64,
    /// Octaves.
    pub octaves: u32,
    /// Frequency factor between octaves.
    pub lacunarity: f64,
    /// Amplitude factor between octaves (0.4 gives smoother, plateau-like land).
    pub gain: f64,
    /// Domain warp: positions move by this many first-octave noise cells along a second noise field
    /// before sampling.
    pub warp: f64,
}

impl Default for FbmParams {
    fn default() -> Self {
        FbmParams {
            noise: Basis::Perlin,
            noise_scale: 4.0,
            octaves: 6,
            lacunarity: 2.0,
            gain: 0.5,
            warp: 0.0,
        }
    }
}

impl FbmParams {
    /// Every parameter, described once.
    pub const SPECS: &[Spec<FbmParams>] = &[
        Spec::choice("noise", "Noise basis", &["perlin", "simplex"]),
        Spec::float(
            "noise_scale",
            "Noise features across the map's shorter side",
            0.01,
            1000.0,
            |p: &FbmParams| p.noise_scale,
        ),
        Spec::int("octaves", "fBm octaves", 1, 16, |p: &FbmParams| {
            p.octaves.into()
        }),
        Spec::float(
            "lacunarity",
            "fBm frequency factor between octaves",
            1.0,
            4.0,
            |p: &FbmParams| p.lacunarity,
        ),
        Spec::float(
            "gain",
            "fBm gain (amplitude factor per octave; 0.4 gives smoother land)",
            0.0,
            1.0,
            |p: &FbmParams| p.gain,
        ),
        Spec::float(
            "warp",
            "Domain warp, in first-octave noise cells (0: off)",
            0.0,
            10.0,
            |p: &FbmParams| p.warp,
        ),
    ];

    /// Checks every field; the error names the allowed range.
    pub fn validate(&self) -> Result<(), ParamError> {
        check_specs(self, Self::SPECS)
    }
}

/// A seeded fBm field, built once and shared by reference across threads.
pub struct Fbm {
    octaves: Vec<(FastNoiseLite, f64, f64)>,
    norm: f64,
    contrast: f64,
    scale: f64,
    warp: Option<(FastNoiseLite, FastNoiseLite, f64)>,
}

impl std::fmt::Debug for Fbm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fbm")
            .field("octaves", &self.octaves.len())
            .field("contrast", &self.contrast)
            .field("scale", &self.scale)
            .field("warp", &self.warp.as_ref().map(|w| w.2))
            .finish()
    }
}

fn basis_noise(basis: Basis, seed: u64) -> FastNoiseLite {
    // fastnoise-lite seeds are i32: keep the low 32 bits of a well-mixed 64-bit seed.
    let mut n = FastNoiseLite::with_seed(seed as u32 as i32);
    n.set_noise_type(Some(match basis {
        Basis::Perlin => NoiseType::Perlin,
        Basis::Simplex => NoiseType::OpenSimplex2,
    }));
    n.set_frequency(Some(1.0));
    n
}

impl Fbm {
    /// A field for `params`, seeded by `seed` (each octave gets `item_seed(seed, octave)`), over a
    /// map whose shorter side is `unit` long.
    pub fn new(params: &FbmParams, seed: u64, unit: f64) -> Result<Self, ParamError> {
        params.validate()?;
        orogen_world::params::positive_finite("unit", unit)?;
        let mut octaves = Vec::with_capacity(params.octaves as usize);
        let (mut amp, mut freq, mut norm) = (1.0f64, 1.0f64, 0.0f64);
        for i in 0..params.octaves {
            octaves.push((
                basis_noise(params.noise, seed::item_seed(seed, u64::from(i))),
                amp,
                freq,
            ));
            norm += amp;
            amp *= params.gain;
            freq *= params.lacunarity;
        }
        let warp = (params.warp > 0.0).then(|| {
            (
                basis_noise(params.noise, seed::item_seed(seed, 1000)),
                basis_noise(params.noise, seed::item_seed(seed, 1001)),
                params.warp,
            )
        });
        Ok(Fbm {
            octaves,
            norm,
            contrast: params.noise.contrast(),
            scale: params.noise_scale / unit,
            warp,
        })
    }

    /// The normalised fBm at a map point, before contrast: `sum(gain^i n_i) / sum(gain^i)`.
    #[inline]
    pub fn raw(&self, x: f64, y: f64) -> f64 {
        let (mut x, mut y) = (x * self.scale, y * self.scale);
        if let Some((wx, wy, strength)) = &self.warp {
            let dx = f64::from(wx.get_noise_2d(x, y));
            let dy = f64::from(wy.get_noise_2d(x, y));
            x += strength * dx;
            y += strength * dy;
        }
        let mut sum = 0.0;
        for (noise, amp, freq) in &self.octaves {
            sum += amp * f64::from(noise.get_noise_2d(x * freq, y * freq));
        }
        sum / self.norm
    }

    /// `noise01` at a map point (see the module docs).
    #[inline]
    pub fn noise01(&self, x: f64, y: f64) -> f64 {
        (0.5 + self.contrast * self.raw(x, y)).clamp(0.0, 1.0)
    }

    /// `noise01` for every row of an `n x 2` position array, in parallel (rayon). Each value
    /// depends only on its own position, so the result is the same for any thread count.
    pub fn sample(&self, positions: ArrayView2<'_, f64>) -> Array1<f64> {
        let mut out = Array1::zeros(positions.nrows());
        Zip::from(&mut out)
            .and(positions.axis_iter(Axis(0)))
            .par_for_each(|o, p| *o = self.noise01(p[0], p[1]));
        out
    }

    /// `noise01` at many points given as a slice, in parallel.
    pub fn sample_points(&self, points: &[[f64; 2]]) -> Vec<f64> {
        points
            .par_iter()
            .map(|p| self.noise01(p[0], p[1]))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    fn grid(n: usize) -> Array2<f64> {
        Array2::from_shape_fn((n * n, 2), |(i, k)| {
            let (col, row) = (i % n, i / n);
            if k == 0 {
                (col as f64 + 0.5) / n as f64
            } else {
                (row as f64 + 0.5) / n as f64
            }
        })
    }

    #[test]
    fn noise01_is_in_range_centred_and_seed_dependent() {
        let pts = grid(200);
        for basis in [Basis::Perlin, Basis::Simplex] {
            let params = FbmParams {
                noise: basis,
                ..FbmParams::default()
            };
            let a = Fbm::new(&params, 1, 1.0).unwrap().sample(pts.view());
            let b = Fbm::new(&params, 2, 1.0).unwrap().sample(pts.view());
            assert!(a.iter().all(|v| (0.0..=1.0).contains(v)));
            let mean = a.mean().unwrap();
            assert!((mean - 0.5).abs() < 0.08, "{basis:?} mean {mean}");
            assert_ne!(a, b);
        }
    }

    #[test]
    fn same_bytes_for_one_and_two_threads() {
        let pts = grid(150);
        let params = FbmParams {
            warp: 0.5,
            ..FbmParams::default()
        };
        let run = |n: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
                .install(|| Fbm::new(&params, 9, 1.0).unwrap().sample(pts.view()))
        };
        let (one, two) = (run(1), run(2));
        let unwarped = Fbm::new(&FbmParams::default(), 9, 1.0)
            .unwrap()
            .sample(pts.view());
        assert_ne!(one, unwarped, "the warp changes the field");
        assert!(one.iter().all(|v| (0.0..=1.0).contains(v)));
        assert!(
            one.iter()
                .zip(two.iter())
                .all(|(a, b)| a.to_bits() == b.to_bits())
        );
    }

    #[test]
    fn bad_params_are_refused_with_their_range() {
        let zero = FbmParams {
            octaves: 0,
            ..FbmParams::default()
        };
        let err = Fbm::new(&zero, 1, 1.0).unwrap_err();
        assert_eq!(err.param, "octaves");
        assert_eq!(err.allowed, "1 ..= 16");
        let nan = FbmParams {
            noise_scale: f64::NAN,
            ..FbmParams::default()
        };
        assert_eq!(nan.validate().unwrap_err().param, "noise_scale");
        assert!(
            nan.validate()
                .unwrap_err()
                .to_string()
                .contains("0.01 ..= 1000")
        );
    }
}
