//! The server's caps: one table of every size, count and iteration knob a request can raise,
//! with the most the server accepts. The command line allows more (its ranges are the stage
//! crates'); the server is reachable by a browser, so it bounds what one request can cost.
//!
//! A cap names a config path as the JSON request spells it; `[]` stands for every element of a
//! list, and [`Cap::Len`] caps a list's length. A request above a cap gets a 400 naming the
//! parameter and the cap.

use serde_json::Value;

/// What a cap bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cap {
    /// The number at the path.
    Value(u64),
    /// The length of the list at the path.
    Len(u64),
}

/// Every capped knob: (config path, cap). The request's own `resolution` is capped as
/// `export.resolution` (it replaces that field).
pub const CAPS: &[(&str, Cap)] = &[
    ("world.cells", Cap::Value(MAX_SERVE_CELLS as u64)),
    ("export.resolution", Cap::Value(MAX_RESOLUTION as u64)),
    ("export.heightmap_size", Cap::Value(4097)),
    ("export.glb_resolution", Cap::Value(1025)),
    ("export.preview_width", Cap::Value(2048)),
    ("mesh.lloyd_iterations", Cap::Value(20)),
    ("elevation.land_centers", Cap::Value(200)),
    ("elevation.anchors", Cap::Len(1000)),
    ("elevation.raster.fbm_side", Cap::Value(1025)),
    ("elevation.raster.diamond_square.levels", Cap::Value(10)),
    ("rivers.min_lake_regions", Cap::Value(1_000_000)),
    ("rivers.selection.main.max_rivers", Cap::Value(10_000)),
    ("rivers.selection.tributary.max_rivers", Cap::Value(10_000)),
    ("rivers.selection.main.min_hops", Cap::Value(100_000)),
    ("rivers.selection.tributary.min_hops", Cap::Value(100_000)),
    ("hydrology.min_lake_regions", Cap::Value(1_000_000)),
    ("hydrology.selection.main.max_rivers", Cap::Value(10_000)),
    (
        "hydrology.selection.tributary.max_rivers",
        Cap::Value(10_000),
    ),
    ("hydrology.selection.main.min_hops", Cap::Value(100_000)),
    (
        "hydrology.selection.tributary.min_hops",
        Cap::Value(100_000),
    ),
    ("flora.species", Cap::Len(16)),
    ("flora.biomes[].plants", Cap::Len(16)),
    ("flora.species[].attractors", Cap::Value(3000)),
    ("flora.species[].attractors_2d", Cap::Value(1000)),
    ("flora.models_per_species", Cap::Value(8)),
    ("flora.growth.max_iterations", Cap::Value(5000)),
];

/// The most cells the server generates (the command line allows more).
pub const MAX_SERVE_CELLS: usize = 200_000;
/// The widest (and tallest) image the server renders, in pixels.
pub const MAX_RESOLUTION: usize = 2048;

/// Checks the request's config (as JSON, the shape the request gave it in) against every cap;
/// the error is the message for a 400.
pub fn check(config: &Value) -> Result<(), String> {
    for &(path, cap) in CAPS {
        let mut found = Vec::new();
        collect(config, path, String::new(), &mut found);
        for (at, value) in found {
            let (n, limit, what) = match cap {
                Cap::Value(limit) => (number(value), limit, "at most"),
                Cap::Len(limit) => (
                    value.as_array().map(|a| a.len() as f64),
                    limit,
                    "at most (entries)",
                ),
            };
            if let Some(n) = n
                && n > limit as f64
            {
                let shown = match cap {
                    Cap::Value(_) => value.to_string(),
                    Cap::Len(_) => format!("{n} entries"),
                };
                return Err(format!(
                    "{at} = {shown}: the server allows {what} {limit} (server cap; \
                     `orogen generate` allows more)"
                ));
            }
        }
    }
    Ok(())
}

fn number(v: &Value) -> Option<f64> {
    v.as_f64()
}

/// Every value at `path` (with `[]` over list elements) under `v`, with its concrete path.
fn collect<'a>(v: &'a Value, path: &str, at: String, out: &mut Vec<(String, &'a Value)>) {
    if path.is_empty() {
        out.push((at, v));
        return;
    }
    let (head, rest) = path.split_once('.').unwrap_or((path, ""));
    let join = |at: &str, key: &str| {
        if at.is_empty() {
            key.to_owned()
        } else {
            format!("{at}.{key}")
        }
    };
    if let Some(key) = head.strip_suffix("[]") {
        if let Some(list) = v.get(key).and_then(Value::as_array) {
            for (i, item) in list.iter().enumerate() {
                collect(item, rest, format!("{}[{i}]", join(&at, key)), out);
            }
        }
    } else if let Some(next) = v.get(head) {
        collect(next, rest, join(&at, head), out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_cap_path_names_a_default_parameter_of_its_kind() {
        let defaults = serde_json::to_value(orogen::Config::default()).unwrap();
        let section = if defaults.get("hydrology").is_some() {
            "hydrology."
        } else {
            "rivers."
        };
        let mut checked = 0;
        for &(path, cap) in CAPS {
            // The river caps are listed under both names of the section; the defaults hold one.
            if (path.starts_with("rivers.") || path.starts_with("hydrology."))
                && !path.starts_with(section)
            {
                continue;
            }
            let mut found = Vec::new();
            collect(&defaults, path, String::new(), &mut found);
            assert!(!found.is_empty(), "{path} is not a parameter");
            for (at, v) in found {
                match cap {
                    Cap::Value(limit) => {
                        let n = v.as_f64().unwrap_or_else(|| panic!("{at} is not a number"));
                        assert!(n <= limit as f64, "{at}: the default {n} is above the cap");
                    }
                    Cap::Len(limit) => {
                        let n = v.as_array().unwrap_or_else(|| panic!("{at} is not a list"));
                        assert!(
                            n.len() as u64 <= limit,
                            "{at}: the default is above the cap"
                        );
                    }
                }
                checked += 1;
            }
        }
        assert!(checked >= CAPS.len() - 5, "{checked}");
    }

    #[test]
    fn a_value_above_its_cap_is_named_with_the_cap() {
        let err =
            check(&json!({ "flora": { "species": [{}, { "attractors": 3001 }] } })).unwrap_err();
        assert!(
            err.contains("flora.species[1].attractors = 3001") && err.contains("3000"),
            "{err}"
        );
        let err =
            check(&json!({ "elevation": { "anchors": vec![[0.5, 0.5]; 1001] } })).unwrap_err();
        assert!(err.contains("elevation.anchors = 1001 entries"), "{err}");
        assert!(check(&json!({ "world": { "cells": 200_000 } })).is_ok());
    }
}
