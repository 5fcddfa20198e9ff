//! `GET /api/params`: the parameter table the page builds its controls from, an array of
//! `{"path", "doc", "default", "min", "max", "choices", "unit", "flag"}` objects.
//!
//! REPLACE AT MERGE: [`table_json`] is a small local stand-in for `orogen::params::table_json()`
//! (the one parameter table, written next to each stage's `Params`), which produces exactly
//! this shape for every parameter. Swap the call in `lib.rs` and delete this file.

use serde_json::{Value, json};

/// (path under the section, doc, min, max, choices, unit, flag); the default comes from
/// `Config::default()`.
type Row = (
    &'static str,
    &'static str,
    Option<f64>,
    Option<f64>,
    &'static [&'static str],
    &'static str,
    Option<&'static str>,
);

const ROWS: &[Row] = &[
    (
        "world.seed",
        "The world seed.",
        Some(0.0),
        Some(9.223372036854776e18),
        &[],
        "",
        Some("--seed"),
    ),
    (
        "world.cells",
        "Regions (Voronoi cells), boundary sites included.",
        Some(3.0),
        Some(8e6),
        &[],
        "cells",
        Some("--cells"),
    ),
    (
        "world.water_level",
        "Water level on the base-height scale.",
        Some(0.0),
        Some(1.0),
        &[],
        "",
        Some("--water-level"),
    ),
    (
        "elevation.fbm.noise_scale",
        "Noise features across the map's shorter side.",
        Some(0.01),
        Some(1000.0),
        &[],
        "",
        Some("--noise-scale"),
    ),
    (
        "elevation.fbm.octaves",
        "Octaves of the fBm.",
        Some(1.0),
        Some(16.0),
        &[],
        "",
        Some("--octaves"),
    ),
    (
        "elevation.layout",
        "Where the land anchors go.",
        None,
        None,
        &[
            "random",
            "four-corners",
            "centre-island",
            "two-continents-ew",
            "two-continents-ns",
            "archipelago-ring",
            "cross",
            "custom",
        ],
        "",
        Some("--layout"),
    ),
    (
        "elevation.land_centers",
        "Random anchors.",
        Some(1.0),
        Some(1000.0),
        &[],
        "",
        Some("--land-centers"),
    ),
    (
        "mesh.lloyd_iterations",
        "Lloyd relaxation steps of the sites.",
        Some(0.0),
        Some(100.0),
        &[],
        "",
        None,
    ),
    (
        "biome.wetness",
        "Above 0 wetter, below 0 drier.",
        Some(-1.0),
        Some(1.0),
        &[],
        "",
        Some("--wetness"),
    ),
    (
        "biome.water_boost",
        "Moisture added at the water's edge.",
        Some(0.0),
        Some(1.0),
        &[],
        "",
        Some("--water-boost"),
    ),
    (
        "biome.altitude_drying",
        "Moisture taken by altitude.",
        Some(0.0),
        Some(1.0),
        &[],
        "",
        Some("--altitude-drying"),
    ),
    (
        "biome.scale_factor",
        "Moisture noise scale, times the elevation's.",
        Some(0.01),
        Some(100.0),
        &[],
        "",
        Some("--moisture-scale"),
    ),
    (
        "biome.wind",
        "Weight of wind-carried rain (rain shadows).",
        Some(0.0),
        Some(4.0),
        &[],
        "",
        Some("--wind"),
    ),
    (
        "biome.wind_angle",
        "Degrees the wind blows towards; 0 east, 90 south.",
        Some(-360.0),
        Some(360.0),
        &[],
        "degrees",
        Some("--wind-angle"),
    ),
    (
        "{rivers}.selection.main.max_rivers_sqrt",
        "Main rivers at most, times the square root of the corner count (the larger of this and max_rivers).",
        Some(0.0),
        Some(1000.0),
        &[],
        "",
        None,
    ),
    (
        "{rivers}.selection.tributary.max_rivers_sqrt",
        "Tributaries at most, times the square root of the corner count (the larger of this and max_rivers).",
        Some(0.0),
        Some(1000.0),
        &[],
        "",
        None,
    ),
    (
        "{rivers}.selection.main.max_rivers",
        "Main rivers at least allowed (the larger of this and the square-root term).",
        Some(0.0),
        Some(1e6),
        &[],
        "",
        None,
    ),
    (
        "{rivers}.selection.tributary.max_rivers",
        "Tributaries at least allowed (the larger of this and the square-root term).",
        Some(0.0),
        Some(1e6),
        &[],
        "",
        None,
    ),
    (
        "{rivers}.selection.main.spacing",
        "Least spacing of main rivers, in cell spacings.",
        Some(0.0),
        Some(1000.0),
        &[],
        "cell spacings",
        None,
    ),
    (
        "{rivers}.selection.tributary.spacing",
        "Least spacing of tributaries, in cell spacings.",
        Some(0.0),
        Some(1000.0),
        &[],
        "cell spacings",
        None,
    ),
    (
        "{rivers}.min_lake_regions",
        "Fewest regions of a flooded lake.",
        Some(1.0),
        Some(1e8),
        &[],
        "regions",
        None,
    ),
    (
        "{rivers}.selection.width_scale",
        "Width added at the largest flow, in cell spacings.",
        Some(0.0),
        Some(100.0),
        &[],
        "cell spacings",
        None,
    ),
    (
        "flora.density_scale",
        "Multiplies every density of the biome table.",
        Some(0.0),
        Some(10.0),
        &[],
        "",
        None,
    ),
    (
        "export.hillshade",
        "Shade the colour map by slope (sun in the north-west).",
        None,
        None,
        &[],
        "",
        Some("--hillshade"),
    ),
];

/// The parameter table (see the module doc: the stand-in to replace).
pub fn table_json() -> Value {
    let defaults = serde_json::to_value(orogen::Config::default()).expect("a config serialises");
    // The hydrology stage's section: `hydrology` once renamed, `rivers` before.
    let section = if defaults.get("hydrology").is_some() {
        "hydrology"
    } else {
        "rivers"
    };
    let rows: Vec<Value> = ROWS
        .iter()
        .map(|&(path, doc, min, max, choices, unit, flag)| {
            let path = path.replace("{rivers}", section);
            let default = path
                .split('.')
                .try_fold(&defaults, |v, k| v.get(k))
                .cloned()
                .unwrap_or(Value::Null);
            json!({
                "path": path,
                "doc": doc,
                "default": default,
                "min": min,
                "max": max,
                "choices": if choices.is_empty() { Value::Null } else { json!(choices) },
                "unit": if unit.is_empty() { Value::Null } else { json!(unit) },
                "flag": flag,
            })
        })
        .collect();
    Value::Array(rows)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_row_has_a_default_from_the_config() {
        let table = super::table_json();
        for row in table.as_array().unwrap() {
            assert!(!row["default"].is_null(), "{row}");
        }
    }
}
