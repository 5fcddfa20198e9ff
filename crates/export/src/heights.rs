//! The height mapping of the conventions: elevation e in [-1, 1] to metres and to 16 bits.
//!
//! Metres = e * max_height_m on land (e >= 0) and e * max_depth_m under water. The 16-bit value
//! maps the fixed range [-max_depth_m, max_height_m] to 0..=65535, so sea level has the same
//! value in every world; [`Normalize::MinMax`] stretches one world to its own range instead, as
//! the reference does.

use orogen_world::WorldMeta;
use serde::{Deserialize, Serialize};

/// How heights map to 16 bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Normalize {
    /// [-max_depth_m, max_height_m] to 0..=65535 (default).
    #[default]
    Fixed,
    /// The world's own min..max to 0..=65535.
    MinMax,
}

/// Metres for an elevation.
#[inline]
pub fn metres(e: f32, meta: &WorldMeta) -> f64 {
    let e = f64::from(e);
    if e >= 0.0 {
        e * meta.max_height_m
    } else {
        e * meta.max_depth_m
    }
}

/// The metre range (at 0, at 65535) of a 16-bit export of these elevations.
pub fn range_m(elevations: &[f32], meta: &WorldMeta, normalize: Normalize) -> (f64, f64) {
    range_of_metres(elevations.iter().map(|&e| metres(e, meta)), meta, normalize)
}

/// The metre range (at 0, at 65535) of a 16-bit export of these heights in metres: the fixed
/// range, or their own min ..= max (one metre wide when they are all equal; 0 ..= 1 when there
/// are none, so the mapping is always finite).
pub fn range_of_metres(
    metres: impl IntoIterator<Item = f64>,
    meta: &WorldMeta,
    normalize: Normalize,
) -> (f64, f64) {
    match normalize {
        Normalize::Fixed => (-meta.max_depth_m, meta.max_height_m),
        Normalize::MinMax => {
            let (lo, hi) = metres
                .into_iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), m| {
                    (lo.min(m), hi.max(m))
                });
            if lo < hi {
                (lo, hi)
            } else if lo.is_finite() {
                (lo, lo + 1.0)
            } else {
                (0.0, 1.0)
            }
        }
    }
}

/// Maps metres to 16 bits over `(lo, hi)`, rounding to nearest and clamping.
#[inline]
pub fn to_u16(m: f64, (lo, hi): (f64, f64)) -> u16 {
    (((m - lo) / (hi - lo)) * 65535.0)
        .round()
        .clamp(0.0, 65535.0) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_mapping_pins_sea_level_and_extremes() {
        let meta = WorldMeta::default();
        let range = range_m(&[0.5], &meta, Normalize::Fixed);
        assert_eq!(to_u16(metres(-1.0, &meta), range), 0);
        assert_eq!(to_u16(metres(1.0, &meta), range), 65535);
        // Sea level sits at max_depth / (max_depth + max_height) of the range.
        assert_eq!(
            to_u16(metres(0.0, &meta), range),
            (65535.0f64 / 3.0).round() as u16
        );
        let mm = range_m(&[-0.5, 0.25], &meta, Normalize::MinMax);
        assert_eq!(mm, (-500.0, 500.0));
        // Flat and empty sets still map to a finite range.
        assert_eq!(range_m(&[0.5], &meta, Normalize::MinMax), (1000.0, 1001.0));
        assert_eq!(range_m(&[], &meta, Normalize::MinMax), (0.0, 1.0));
    }
}
