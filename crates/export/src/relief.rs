//! The one hillshade: Lambert light from a sun in the north-west, 45 degrees up, relative to
//! flat ground, for any painter that knows its surface gradient (the colour map interpolates
//! it over the mesh; the classic landscape takes central differences on its heightmap).
//!
//! `lit = (n . sun) / sun_z` for the unit normal `n` of the slope `(gx, gy)` (x east, y south,
//! both dimensionless: metres per metre), so flat ground is 1, slopes facing the sun above 1
//! and those facing away below; the shade factor is `1 + amount (clamp(lit, 0, 1.5) - 1)`.

/// The sun's azimuth, degrees clockwise from north: the north-west, as maps are lit.
pub const SUN_AZIMUTH_DEG: f64 = 315.0;
/// The sun's height above the horizon, degrees.
pub const SUN_ALTITUDE_DEG: f64 = 45.0;

/// The unit vector towards the sun, x east, y south, z up.
pub fn sun() -> [f64; 3] {
    let (alt, az) = (SUN_ALTITUDE_DEG.to_radians(), SUN_AZIMUTH_DEG.to_radians());
    [alt.cos() * az.sin(), -alt.cos() * az.cos(), alt.sin()]
}

/// The shade factor of ground with slope `(gx, gy)` (dz/dx east, dz/dy south): 1 on flat
/// ground, `1 + amount (clamp(lit, 0, 1.5) - 1)` on slopes (module docs).
#[inline]
pub fn shade(gx: f64, gy: f64, sun: [f64; 3], amount: f64) -> f64 {
    let lambert = (-gx * sun[0] - gy * sun[1] + sun[2]) / (gx * gx + gy * gy + 1.0).sqrt();
    let lit = lambert / sun[2];
    1.0 + amount * (lit.clamp(0.0, 1.5) - 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_is_one_and_north_west_slopes_are_lit() {
        let s = sun();
        assert!((s[0] * s[0] + s[1] * s[1] + s[2] * s[2] - 1.0).abs() < 1e-12);
        assert!(
            s[0] < 0.0 && s[1] < 0.0,
            "the sun is in the north-west: {s:?}"
        );
        assert_eq!(shade(0.0, 0.0, s, 0.7), 1.0);
        // Ground rising to the south-east faces the north-west sun: brighter.
        assert!(shade(0.3, 0.3, s, 0.7) > 1.0);
        assert!(shade(-0.3, -0.3, s, 0.7) < 1.0);
        // Amount 0 turns it off; a cliff facing away is clamped at 1 - amount.
        assert_eq!(shade(-0.3, 0.2, s, 0.0), 1.0);
        assert!((shade(-50.0, -50.0, s, 0.7) - 0.3).abs() < 1e-9);
    }
}
