//! Colour rules shared by the stage that builds colours (biome) and the painters (export): the
//! bilinear lookup in an elevation x moisture colour table and the ocean's shallow-to-deep
//! blend. One place, so the biome stage's `ColorTable::lookup` and the colour map agree to the bit.

use ndarray::ArrayView3;

/// An RGB colour, each channel in 0 ..= 1.
pub type Rgb = [f32; 3];

/// A channel in 0 ..= 1 as a byte: `(v.clamp(0.0, 1.0) * 255.0).round() as u8` for every `v`
/// (NaN as 0), without a call to libm's `roundf` (the baseline x86-64 target has no rounding
/// instruction; painters call this for every channel of every pixel).
#[inline]
pub fn unit_to_u8(v: f32) -> u8 {
    let x = v.clamp(0.0, 1.0) * 255.0;
    let t = x as u8;
    // `x - t` is exact (both below 256, `t` the whole part of `x`): halves round up.
    t + u8::from(x - f32::from(t) >= 0.5)
}

/// Bilinear lookup in an `n x m x 3` table (any `n, m >= 1`; `[elevation step, moisture step,
/// channel]`) at (e, m), each clamped to 0 ..= 1 (NaN as 0). Equals the table at grid points and
/// is continuous between them.
#[inline]
pub fn table_lookup(table: ArrayView3<'_, f32>, e: f32, m: f32) -> Rgb {
    let (ne, nm, _) = table.dim();
    let (i0, i1, ti) = cell(e, ne);
    let (j0, j1, tj) = cell(m, nm);
    [0, 1, 2].map(|c| {
        let a = table[[i0, j0, c]] * (1.0 - tj) + table[[i0, j1, c]] * tj;
        let b = table[[i1, j0, c]] * (1.0 - tj) + table[[i1, j1, c]] * tj;
        a * (1.0 - ti) + b * ti
    })
}

/// The two table rows around `v` in 0 ..= 1 (clamped, NaN as 0) and the weight of the second.
#[inline]
fn cell(v: f32, n: usize) -> (usize, usize, f32) {
    if n < 2 {
        return (0, 0, 0.0);
    }
    let v = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
    let f = v * (n - 1) as f32;
    // `f` is in 0 ..= n - 1: the cast is its floor (no call to libm's `floorf`).
    let i0 = (f as usize).min(n - 2);
    (i0, i0 + 1, f - i0 as f32)
}

/// Ocean at `depth` (0 ..= 1, clamped, NaN as 0): shallow to deep with `t = depth^0.7`, which
/// brightens shallow water for coastal contrast, as the reference does.
#[inline]
pub fn ocean_color(shallow: Rgb, deep: Rgb, depth: f32) -> Rgb {
    let d = if depth.is_nan() {
        0.0
    } else {
        depth.clamp(0.0, 1.0)
    };
    let t = d.powf(0.7);
    [0, 1, 2].map(|c| shallow[c] * (1.0 - t) + deep[c] * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_to_u8_is_the_rounded_byte_for_every_value() {
        let std = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
        // A sample of all f32 bit patterns (negatives, NaNs and infinities among them), every
        // 61st value from 0 to just above 1, and the values within 8 ulps of each half-way
        // point between two bytes (where rounding turns).
        let all = (0..=u32::MAX).step_by(9973).map(f32::from_bits);
        let unit = (0..=1.01f32.to_bits()).step_by(61).map(f32::from_bits);
        let halves = (0..256).flat_map(|k| {
            let h = ((k as f32 + 0.5) / 255.0).to_bits();
            (h - 8..=h + 8).map(f32::from_bits)
        });
        let specials = [
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            -0.0,
            0.5 / 255.0,
        ];
        for v in all.chain(unit).chain(halves).chain(specials) {
            assert_eq!(unit_to_u8(v), std(v), "{v:e}");
        }
    }
    use ndarray::Array3;

    #[test]
    fn lookup_hits_grid_points_and_clamps() {
        let t = Array3::from_shape_fn((3, 4, 3), |(i, j, c)| (i * 10 + j + c * 100) as f32);
        assert_eq!(table_lookup(t.view(), 0.5, 1.0 / 3.0), [11.0, 111.0, 211.0]);
        assert_eq!(table_lookup(t.view(), -1.0, f32::NAN), [0.0, 100.0, 200.0]);
        assert_eq!(table_lookup(t.view(), 2.0, 2.0), [23.0, 123.0, 223.0]);
        // Half-way between rows 0 and 1 of elevation.
        assert_eq!(table_lookup(t.view(), 0.25, 0.0)[0], 5.0);
        let one = Array3::from_elem((1, 1, 3), 0.5f32);
        assert_eq!(table_lookup(one.view(), 0.7, 0.2), [0.5; 3]);
    }

    #[test]
    fn ocean_is_shallow_at_zero_and_deep_at_one() {
        let (s, d) = ([1.0, 0.0, 0.0], [0.0, 0.0, 1.0]);
        assert_eq!(ocean_color(s, d, 0.0), s);
        assert_eq!(ocean_color(s, d, 1.0), d);
        assert_eq!(ocean_color(s, d, f32::NAN), s);
        let mid = ocean_color(s, d, 0.5);
        assert!((mid[2] - 0.5f32.powf(0.7)).abs() < 1e-6);
    }
}
