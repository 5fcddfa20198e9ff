//! The biome colour pipeline of the article: a table of hard biome colours over (elevation,
//! moisture), a Gaussian blur, and a bilinear lookup; water colours beside it.

use ndarray::{Array3, ArrayView3};
use orogen_world::ids::Biome;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::Whittaker;

pub use orogen_world::color::Rgb;

/// The colours of the biomes and of water (RGB, 0 ..= 1). Defaults: the reference's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Palette {
    /// Deep ocean (depth 1). Default: (0.02, 0.15, 0.50).
    pub deep_ocean: Rgb,
    /// Shallow ocean (depth 0). Default: (0.12, 0.40, 0.70).
    pub shallow_ocean: Rgb,
    /// Lakes (orogen's choice; the reference has none): lighter than the shallow sea, so fresh
    /// water reads apart from the ocean. Default: (0.36, 0.60, 0.82).
    pub lake: Rgb,
    /// Rivers. Default: (0.05, 0.25, 0.65).
    pub river: Rgb,
    /// Beach. Default: (0.95, 0.90, 0.65).
    pub beach: Rgb,
    /// Desert. Default: (0.98, 0.85, 0.55).
    pub desert: Rgb,
    /// Grassland. Default: (0.45, 0.85, 0.30).
    pub grassland: Rgb,
    /// Forest. Default: (0.15, 0.55, 0.20).
    pub forest: Rgb,
    /// Rainforest. Default: (0.08, 0.45, 0.18).
    pub rainforest: Rgb,
    /// Taiga. Default: (0.25, 0.50, 0.35).
    pub taiga: Rgb,
    /// Tundra. Default: (0.75, 0.70, 0.50).
    pub tundra: Rgb,
    /// Mountain (bare rock). Default: (0.50, 0.40, 0.30).
    pub mountain: Rgb,
    /// Snow. Default: (0.98, 0.98, 1.00).
    pub snow: Rgb,
}

impl Default for Palette {
    fn default() -> Self {
        Palette {
            deep_ocean: [0.02, 0.15, 0.50],
            shallow_ocean: [0.12, 0.40, 0.70],
            lake: [0.36, 0.60, 0.82],
            river: [0.05, 0.25, 0.65],
            beach: [0.95, 0.90, 0.65],
            desert: [0.98, 0.85, 0.55],
            grassland: [0.45, 0.85, 0.30],
            forest: [0.15, 0.55, 0.20],
            rainforest: [0.08, 0.45, 0.18],
            taiga: [0.25, 0.50, 0.35],
            tundra: [0.75, 0.70, 0.50],
            mountain: [0.50, 0.40, 0.30],
            snow: [0.98, 0.98, 1.00],
        }
    }
}

impl Palette {
    /// The flat colour of a biome (ocean: the shallow colour).
    pub fn biome(&self, biome: Biome) -> Rgb {
        match biome {
            Biome::Ocean => self.shallow_ocean,
            Biome::Lake => self.lake,
            Biome::Beach => self.beach,
            Biome::Desert => self.desert,
            Biome::Grassland => self.grassland,
            Biome::Forest => self.forest,
            Biome::Rainforest => self.rainforest,
            Biome::Taiga => self.taiga,
            Biome::Tundra => self.tundra,
            Biome::Mountain => self.mountain,
            Biome::Snow => self.snow,
        }
    }

    /// The flat colour of every biome, in id order.
    pub fn by_id(&self) -> [Rgb; Biome::COUNT] {
        Biome::ALL.map(|b| self.biome(b))
    }

    /// Ocean at `depth` in 0 ..= 1 (clamped): shallow to deep with `t = depth^0.7`, which
    /// brightens shallow water for coastal contrast, as the reference does.
    pub fn ocean(&self, depth: f32) -> Rgb {
        ocean_color(self.shallow_ocean, self.deep_ocean, depth)
    }

    /// Checks that every channel lies in 0 ..= 1.
    pub fn validate(&self) -> Result<(), orogen_world::params::ParamError> {
        let named = [
            ("deep_ocean", self.deep_ocean),
            ("shallow_ocean", self.shallow_ocean),
            ("lake", self.lake),
            ("river", self.river),
        ];
        let biomes = Biome::ALL[2..].iter().map(|b| (b.name(), self.biome(*b)));
        for (name, rgb) in named.into_iter().chain(biomes) {
            for (c, v) in rgb.iter().enumerate() {
                orogen_world::params::in_range(&format!("{name}[{c}]"), *v, 0.0..=1.0)?;
            }
        }
        Ok(())
    }
}

pub use orogen_world::color::ocean_color;

/// The side of the colour table: 256 steps of elevation and of moisture.
pub const TABLE_SIZE: usize = 256;

/// The hard table: entry `[i, j]` is the colour of the land biome at stored elevation
/// `i / (n - 1)` and moisture `j / (n - 1)`. Shape `n x n x 3`.
pub fn hard_table(table: &Whittaker, palette: &Palette, n: usize) -> Array3<f32> {
    let step = 1.0 / (n.max(2) - 1) as f32;
    let mut out = Array3::zeros((n, n, 3));
    for ((i, j, c), v) in out.indexed_iter_mut() {
        let biome = table.land_biome(i as f32 * step, j as f32 * step);
        *v = palette.biome(biome)[c];
    }
    out
}

/// The normalised Gaussian kernel of SciPy's `gaussian_filter`: weights `exp(-x^2 / (2 sigma^2))`
/// for `x` in `-r ..= r`, `r = floor(truncate sigma + 0.5)`, summing to 1.
pub fn gaussian_kernel(sigma: f64, truncate: f64) -> Vec<f32> {
    let radius = (truncate * sigma + 0.5).floor().max(0.0) as i64;
    let raw: Vec<f64> = (-radius..=radius)
        .map(|x| (-0.5 * (x * x) as f64 / (sigma * sigma)).exp())
        .collect();
    let sum: f64 = raw.iter().sum();
    raw.iter().map(|w| (w / sum) as f32).collect()
}

/// `out += w * src`, element by element (vectorises; the same order for any thread count).
fn axpy(out: &mut [f32], w: f32, src: &[f32]) {
    for (o, s) in out.iter_mut().zip(src) {
        *o += w * s;
    }
}

/// Gaussian blur of the first two axes of a `rows x cols x channels` table, each channel on its
/// own, with SciPy's defaults (`mode = "nearest"`, truncated at 4 sigma): axis 0, then axis 1.
/// Each output row is a sum of whole source rows weighted by the kernel (axis 0), or of shifted
/// copies of its edge-padded row (axis 1), taps in a fixed order; rows run in parallel with
/// rayon, so the result is the same bytes for any thread count.
pub fn gaussian_blur(table: ArrayView3<'_, f32>, sigma: f64) -> Array3<f32> {
    if sigma.is_nan() || sigma <= 0.0 || table.is_empty() {
        return table.to_owned();
    }
    let kernel = gaussian_kernel(sigma, 4.0);
    let radius = kernel.len() / 2;
    let (n0, n1, nc) = table.dim();
    let src = table.as_standard_layout();
    let src = src.as_slice().expect("standard layout is contiguous");
    let row = n1 * nc;
    // Axis 0: output row i = sum_t w_t * source row clamp(i + t - r).
    let mut pass0 = vec![0.0f32; n0 * row];
    pass0.par_chunks_mut(row).enumerate().for_each(|(i, out)| {
        // Written before `axpy` reads it: a fresh zeroed page read first is mapped to the
        // zero page and copied on the first write (two faults and a TLB shootdown).
        out.fill(0.0);
        for (t, &w) in kernel.iter().enumerate() {
            let ii = (i + t).saturating_sub(radius).min(n0 - 1);
            axpy(out, w, &src[ii * row..(ii + 1) * row]);
        }
    });
    // Axis 1: pad each row with its edge entries, then sum shifted windows.
    let mut pass1 = vec![0.0f32; n0 * row];
    pass1
        .par_chunks_mut(row)
        .zip(pass0.par_chunks(row))
        .for_each_init(Vec::new, |padded, (out, input)| {
            out.fill(0.0);
            padded.clear();
            for _ in 0..radius {
                padded.extend_from_slice(&input[..nc]);
            }
            padded.extend_from_slice(input);
            for _ in 0..radius {
                padded.extend_from_slice(&input[row - nc..]);
            }
            for (t, &w) in kernel.iter().enumerate() {
                axpy(out, w, &padded[t * nc..t * nc + row]);
            }
        });
    Array3::from_shape_vec((n0, n1, nc), pass1).expect("same shape as the input")
}

/// The blurred biome colour table, looked up bilinearly.
#[derive(Clone, Debug, PartialEq)]
pub struct ColorTable {
    /// `n x n x 3`: `[elevation step, moisture step, channel]`, RGB 0 ..= 1.
    pub rgb: Array3<f32>,
}

impl ColorTable {
    /// The table of the article: the hard table of `table` and `palette`, `TABLE_SIZE`
    /// squared, blurred with `sigma` (8 in the reference).
    pub fn build(table: &Whittaker, palette: &Palette, sigma: f64) -> Self {
        let hard = hard_table(table, palette, TABLE_SIZE);
        ColorTable {
            rgb: gaussian_blur(hard.view(), sigma),
        }
    }

    /// Bilinear lookup at stored land elevation `e` and moisture `m` (each clamped to 0 ..= 1;
    /// NaN as 0). Equals the table at grid points and is continuous between them.
    pub fn lookup(&self, e: f32, m: f32) -> Rgb {
        bilinear(self.rgb.view(), e, m)
    }
}

/// Bilinear lookup in an `n x n x 3` table (the one lookup: `orogen_world::color`).
pub use orogen_world::color::table_lookup as bilinear;

#[cfg(test)]
#[allow(clippy::needless_range_loop)]
mod tests {
    use super::*;

    /// The direct 2-D convolution: every output is the sum over the (2r+1)^2 window of the
    /// outer-product kernel, with "nearest" edges.
    fn direct_blur(t: ArrayView3<'_, f32>, sigma: f64) -> Array3<f32> {
        let k = gaussian_kernel(sigma, 4.0);
        let r = (k.len() / 2) as isize;
        let (n0, n1, nc) = t.dim();
        Array3::from_shape_fn((n0, n1, nc), |(i, j, c)| {
            let mut acc = 0.0f64;
            for a in -r..=r {
                for b in -r..=r {
                    let ii = (i as isize + a).clamp(0, n0 as isize - 1) as usize;
                    let jj = (j as isize + b).clamp(0, n1 as isize - 1) as usize;
                    acc += f64::from(k[(a + r) as usize])
                        * f64::from(k[(b + r) as usize])
                        * f64::from(t[[ii, jj, c]]);
                }
            }
            acc as f32
        })
    }

    #[test]
    fn kernel_matches_scipy_radius_and_sums_to_one() {
        let k = gaussian_kernel(8.0, 4.0);
        assert_eq!(k.len(), 65); // radius int(4 * 8 + 0.5) = 32
        let sum: f32 = k.iter().sum();
        assert!((sum - 1.0).abs() < 1e-5);
        assert_eq!(k[0], k[64]);
        assert!(k[32] > k[31] && k[31] > k[0]);
        assert_eq!(gaussian_kernel(1.5, 4.0).len(), 13);
    }

    #[test]
    fn blur_equals_direct_2d_convolution_truncated_at_4_sigma() {
        // A small hard table with sharp edges; sigma 3 gives a radius of 12 (wider than the
        // table's 20 rows, so the "nearest" edges matter everywhere).
        let hard = hard_table(&Whittaker::default(), &Palette::default(), 20);
        for sigma in [3.0, 8.0] {
            let fast = gaussian_blur(hard.view(), sigma);
            let slow = direct_blur(hard.view(), sigma);
            let max_diff = fast
                .iter()
                .zip(slow.iter())
                .map(|(a, b)| (a - b).abs())
                .fold(0.0f32, f32::max);
            assert!(max_diff < 1e-5, "sigma {sigma}: max diff {max_diff}");
        }
        // The blur really blurs: the hard table has more distinct values.
        let blurred = gaussian_blur(hard.view(), 3.0);
        assert_ne!(blurred, hard);
    }

    #[test]
    fn blur_keeps_a_constant_table_and_is_thread_count_independent() {
        let flat = Array3::from_elem((9, 7, 3), 0.25f32);
        let out = gaussian_blur(flat.view(), 8.0);
        assert!(out.iter().all(|v| (v - 0.25).abs() < 1e-6));
        let build = |n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
                .install(|| ColorTable::build(&Whittaker::default(), &Palette::default(), 8.0))
        };
        let one = build(1);
        let two = build(2);
        let bits = |t: &ColorTable| t.rgb.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&one), bits(&two));
    }

    #[test]
    fn bilinear_equals_the_table_at_grid_points_and_is_continuous() {
        let table = ColorTable::build(&Whittaker::default(), &Palette::default(), 8.0);
        let n = TABLE_SIZE;
        for i in (0..n).step_by(17).chain([n - 1]) {
            for j in (0..n).step_by(13).chain([n - 1]) {
                let got = table.lookup(i as f32 / (n - 1) as f32, j as f32 / (n - 1) as f32);
                for c in 0..3 {
                    assert!((got[c] - table.rgb[[i, j, c]]).abs() < 1e-5, "({i}, {j})");
                }
            }
        }
        // Continuity: the lookup is Lipschitz with the table's largest step between
        // neighbouring entries. A lookup snapping to the nearest entry would jump by a whole
        // table step for a tiny move across a cell boundary.
        let mut lip = 0.0f32;
        for ((i, j, c), v) in table.rgb.indexed_iter() {
            if i + 1 < n {
                lip = lip.max((table.rgb[[i + 1, j, c]] - v).abs());
            }
            if j + 1 < n {
                lip = lip.max((table.rgb[[i, j + 1, c]] - v).abs());
            }
        }
        let h = 1e-4f32;
        let bound = lip * (n - 1) as f32 * 2.0 * h + 1e-5;
        let mut worst = 0.0f32;
        for s in 0..2000 {
            let e = s as f32 / 2000.0;
            let m = 1.0 - e * 0.7;
            let a = table.lookup(e, m);
            let b = table.lookup(e + h, m - h);
            for c in 0..3 {
                worst = worst.max((a[c] - b[c]).abs());
            }
        }
        assert!(
            worst <= bound,
            "largest change for a 1e-4 step: {worst} > {bound}"
        );
        // Continuity in the middle of a hard (unblurred) table: halfway between two entries
        // is their mean.
        let hard = ColorTable {
            rgb: hard_table(&Whittaker::default(), &Palette::default(), n),
        };
        let mid = hard.lookup(10.5 / (n - 1) as f32, 100.0 / (n - 1) as f32);
        for c in 0..3 {
            let want = 0.5 * (hard.rgb[[10, 100, c]] + hard.rgb[[11, 100, c]]);
            assert!((mid[c] - want).abs() < 1e-4);
        }
    }

    #[test]
    fn ocean_blends_shallow_to_deep_with_power_0_7() {
        let p = Palette::default();
        assert_eq!(p.ocean(0.0), p.shallow_ocean);
        let deep = p.ocean(1.0);
        for c in 0..3 {
            assert!((deep[c] - p.deep_ocean[c]).abs() < 1e-6);
        }
        let t = 0.25f32.powf(0.7);
        let q = p.ocean(0.25);
        for c in 0..3 {
            let want = p.shallow_ocean[c] * (1.0 - t) + p.deep_ocean[c] * t;
            assert!((q[c] - want).abs() < 1e-6);
        }
        assert_eq!(p.ocean(f32::NAN), p.shallow_ocean);
        p.validate().unwrap();
        let mut bad = p.clone();
        bad.snow[1] = 1.5;
        assert_eq!(bad.validate().unwrap_err().param, "snow[1]");
    }
}
