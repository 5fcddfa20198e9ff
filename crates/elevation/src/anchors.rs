//! Land anchors: the points land gathers around.
//!
//! `random` scatters `land_centers` anchors uniformly in the inner 20-80% of the map (as the
//! reference does); the presets place them at fixed fractions of the map (the reference's
//! positions, with y down); `custom` takes points in map coordinates.

use orogen_world::params::{ParamError, in_range};
use rand_core_shim::uniform01;
use serde::{Deserialize, Serialize};

/// Where the land anchors go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// `land_centers` anchors uniform in the inner [0.2, 0.8] of each axis.
    #[default]
    Random,
    /// (0.2, 0.2), (0.8, 0.2), (0.2, 0.8), (0.8, 0.8): four islands.
    FourCorners,
    /// (0.5, 0.5): one continent.
    CentreIsland,
    /// (0.25, 0.5) and (0.75, 0.5).
    TwoContinentsEw,
    /// (0.5, 0.25) and (0.5, 0.75).
    TwoContinentsNs,
    /// (0.5, 0.15), (0.85, 0.5), (0.5, 0.85), (0.15, 0.5).
    ArchipelagoRing,
    /// The centre and four arms: (0.5, 0.5), (0.5, 0.2), (0.8, 0.5), (0.5, 0.8), (0.2, 0.5).
    Cross,
    /// The points of `anchors`, in map coordinates.
    Custom,
}

impl Layout {
    /// Every layout, in order.
    pub const ALL: [Layout; 8] = [
        Layout::Random,
        Layout::FourCorners,
        Layout::CentreIsland,
        Layout::TwoContinentsEw,
        Layout::TwoContinentsNs,
        Layout::ArchipelagoRing,
        Layout::Cross,
        Layout::Custom,
    ];

    /// The name used on the command line and in config files.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Random => "random",
            Layout::FourCorners => "four-corners",
            Layout::CentreIsland => "centre-island",
            Layout::TwoContinentsEw => "two-continents-ew",
            Layout::TwoContinentsNs => "two-continents-ns",
            Layout::ArchipelagoRing => "archipelago-ring",
            Layout::Cross => "cross",
            Layout::Custom => "custom",
        }
    }

    /// Parses a layout name.
    pub fn parse(text: &str) -> Result<Self, ParamError> {
        Self::ALL
            .into_iter()
            .find(|l| l.name() == text)
            .ok_or_else(|| {
                let names: Vec<_> = Self::ALL.iter().map(|l| l.name()).collect();
                ParamError::new("layout", text, format!("one of {}", names.join(", ")))
            })
    }

    /// A preset's anchors as fractions of the map (x, y), y down; `None` for random and custom.
    pub fn preset(self) -> Option<&'static [[f64; 2]]> {
        Some(match self {
            Layout::FourCorners => &[[0.2, 0.2], [0.8, 0.2], [0.2, 0.8], [0.8, 0.8]],
            Layout::CentreIsland => &[[0.5, 0.5]],
            Layout::TwoContinentsEw => &[[0.25, 0.5], [0.75, 0.5]],
            Layout::TwoContinentsNs => &[[0.5, 0.25], [0.5, 0.75]],
            Layout::ArchipelagoRing => &[[0.5, 0.15], [0.85, 0.5], [0.5, 0.85], [0.15, 0.5]],
            Layout::Cross => &[[0.5, 0.5], [0.5, 0.2], [0.8, 0.5], [0.5, 0.8], [0.2, 0.5]],
            Layout::Random | Layout::Custom => return None,
        })
    }
}

/// The most anchors (random or custom).
pub const MAX_ANCHORS: usize = 1000;

/// Checks custom anchors against a `width x height` map: each must be finite and inside
/// [0, W] x [0, H]. The error names the anchor and the allowed range.
pub fn validate_custom(anchors: &[[f64; 2]], width: f64, height: f64) -> Result<(), ParamError> {
    in_range("anchors", anchors.len(), 1..=MAX_ANCHORS)?;
    for (i, a) in anchors.iter().enumerate() {
        in_range(&format!("anchors[{i}].x"), a[0], 0.0..=width)?;
        in_range(&format!("anchors[{i}].y"), a[1], 0.0..=height)?;
    }
    Ok(())
}

/// The anchors of a layout on a `width x height` map, in map coordinates. Random anchors draw
/// from `rng` (two uniforms per anchor, x then y).
pub fn place(
    layout: Layout,
    land_centers: usize,
    custom: &[[f64; 2]],
    width: f64,
    height: f64,
    rng: &mut impl rand_core_shim::Rng,
) -> Result<Vec<[f64; 2]>, ParamError> {
    Ok(match layout {
        Layout::Random => {
            in_range("land_centers", land_centers, 1..=MAX_ANCHORS)?;
            (0..land_centers)
                .map(|_| {
                    let x = 0.2 + 0.6 * uniform01(rng);
                    let y = 0.2 + 0.6 * uniform01(rng);
                    [x * width, y * height]
                })
                .collect()
        }
        Layout::Custom => {
            validate_custom(custom, width, height)?;
            custom.to_vec()
        }
        preset => preset
            .preset()
            .unwrap_or_default()
            .iter()
            .map(|p| [p[0] * width, p[1] * height])
            .collect(),
    })
}

/// The squared normalised distance to the nearest anchor, `(d / (0.5 min(W, H)))^2`.
#[inline]
pub fn falloff(x: f64, y: f64, anchors: &[[f64; 2]], half_side: f64) -> f64 {
    let d2 = anchors
        .iter()
        .map(|a| (x - a[0]).powi(2) + (y - a[1]).powi(2))
        .fold(f64::INFINITY, f64::min);
    d2 / (half_side * half_side)
}

/// A thin layer over the generator trait, so the crate names one place for it.
pub(crate) mod rand_core_shim {
    pub use rand_xoshiro::rand_core::Rng;

    /// A uniform f64 in [0, 1) from the top 53 bits of one draw.
    #[inline]
    pub fn uniform01(rng: &mut impl Rng) -> f64 {
        orogen_world::seed::unit_f64(rng.next_u64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use orogen_world::seed;

    #[test]
    fn random_anchors_stay_in_the_inner_square_and_follow_the_seed() {
        let mut rng = seed::stage_rng(1, "elevation");
        let a = place(Layout::Random, 500, &[], 2.0, 1.0, &mut rng).unwrap();
        assert_eq!(a.len(), 500);
        for p in &a {
            assert!((0.4..=1.6).contains(&p[0]) && (0.2..=0.8).contains(&p[1]));
        }
        let mut rng2 = seed::stage_rng(1, "elevation");
        assert_eq!(
            a,
            place(Layout::Random, 500, &[], 2.0, 1.0, &mut rng2).unwrap()
        );
    }

    #[test]
    fn presets_scale_with_the_map_and_names_round_trip() {
        let mut rng = seed::stage_rng(1, "elevation");
        let a = place(Layout::TwoContinentsEw, 5, &[], 2.0, 4.0, &mut rng).unwrap();
        assert_eq!(a, vec![[0.5, 2.0], [1.5, 2.0]]);
        for l in Layout::ALL {
            assert_eq!(Layout::parse(l.name()).unwrap(), l);
        }
        assert!(
            Layout::parse("atlantis")
                .unwrap_err()
                .allowed
                .contains("cross")
        );
    }

    #[test]
    fn custom_anchors_outside_the_map_are_refused() {
        let err = validate_custom(&[[0.5, 0.5], [1.2, 0.5]], 1.0, 1.0).unwrap_err();
        assert_eq!(err.param, "anchors[1].x");
        assert_eq!(err.allowed, "0 ..= 1");
        assert!(validate_custom(&[[0.5, f64::NAN]], 1.0, 1.0).is_err());
        assert!(validate_custom(&[], 1.0, 1.0).is_err());
        assert!(validate_custom(&[[2.0, 1.0]], 2.0, 1.0).is_ok());
    }

    #[test]
    fn falloff_is_zero_at_an_anchor_and_one_at_half_the_side() {
        let anchors = [[0.5, 0.5], [0.1, 0.1]];
        assert_eq!(falloff(0.5, 0.5, &anchors, 0.5), 0.0);
        assert!((falloff(1.0, 0.5, &anchors, 0.5) - 1.0).abs() < 1e-12);
    }
}
