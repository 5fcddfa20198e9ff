//! The parameter table: every parameter of a [`Config`] once, gathered from the tables each
//! stage crate keeps next to its `Params` (`orogen_mesh::Params::SPECS`, ...), with its
//! default (from `Config::default()`, never restated) and its command-line flag, if any.
//!
//! The command's flags and help, the README's table (`orogen params --markdown`), the
//! playground's controls ([`table_json`]) and the `--set` paths all come from it, and each
//! crate's validation checks the same ranges (`orogen_world::params::check_specs`).
//!
//! ```
//! let table = orogen::params::table();
//! let water = table.iter().find(|p| p.path == "world.water_level").unwrap();
//! assert_eq!(water.default, serde_json::json!(0.35));
//! assert_eq!(water.flag, Some("--water-level"));
//! assert_eq!(water.allowed, "0 ..= 1");
//! ```

use orogen_world::params::{Bound, ParamInfo, Spec, describe_specs};
use serde_json::{Value, json};

use crate::config::{ExportParams, WorldParams};
use crate::{ClassicParams, Config, Pipeline};

/// One row of the parameter table.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The config path (`hydrology.selection.main.spacing`), as `--set` and TOML take it.
    pub path: String,
    /// What it does, in a line.
    pub doc: &'static str,
    /// The default, as JSON.
    pub default: Value,
    /// The smallest value allowed, when a range bounds it.
    pub min: Option<Bound>,
    /// The largest value allowed, when a range bounds it.
    pub max: Option<Bound>,
    /// The names it takes, for a choice.
    pub choices: Option<&'static [&'static str]>,
    /// What it takes, in words.
    pub allowed: String,
    /// The unit, if any.
    pub unit: Option<&'static str>,
    /// The command-line flag that sets it, if any.
    pub flag: Option<&'static str>,
}

/// The command-line flags of `orogen generate` (and of `orogen export`, for `export.*`) that
/// set one parameter each: `--FLAG VALUE` is `--set PATH=VALUE`.
pub const FLAGS: &[(&str, &str)] = &[
    ("world.seed", "--seed"),
    ("world.cells", "--cells"),
    ("world.water_level", "--water-level"),
    ("world.world_size_m", "--world-size"),
    ("world.max_height_m", "--max-height"),
    ("world.max_depth_m", "--max-depth"),
    ("mesh.lloyd_iterations", "--lloyd-iterations"),
    ("mesh.sampler", "--sampler"),
    ("elevation.fbm.noise", "--noise"),
    ("elevation.fbm.noise_scale", "--noise-scale"),
    ("elevation.fbm.octaves", "--octaves"),
    ("elevation.fbm.gain", "--gain"),
    ("elevation.layout", "--layout"),
    ("elevation.land_centers", "--land-centers"),
    ("hydrology.depressions", "--depressions"),
    ("hydrology.min_lake_regions", "--min-lake-regions"),
    ("hydrology.selection.main.max_rivers_sqrt", "--main-rivers"),
    (
        "hydrology.selection.tributary.max_rivers_sqrt",
        "--tributaries",
    ),
    ("hydrology.selection.main.spacing", "--river-spacing"),
    (
        "hydrology.selection.tributary.spacing",
        "--tributary-spacing",
    ),
    ("hydrology.selection.extend_min_flow", "--river-extend-flow"),
    ("biome.wetness", "--wetness"),
    ("biome.water_boost", "--water-boost"),
    ("biome.water_decay", "--water-decay"),
    ("biome.altitude_drying", "--altitude-drying"),
    ("biome.scale_factor", "--moisture-scale"),
    ("biome.wind", "--wind"),
    ("biome.wind_angle", "--wind-angle"),
    ("biome.blur_sigma", "--blur-sigma"),
    ("flora.density_scale", "--flora-density"),
    ("flora.models_per_species", "--tree-models"),
    ("classic.elevation.source", "--classic-source"),
    ("classic.elevation.size", "--classic-size"),
    ("classic.elevation.roughness", "--roughness"),
    ("classic.rivers.count", "--classic-rivers"),
    ("classic.trees.spacing_px", "--tree-spacing"),
    ("export.resolution", "--resolution"),
    ("export.normalize", "--normalize"),
    ("export.engine", "--engine"),
    ("export.heightmap_size", "--heightmap-size"),
    ("export.glb_resolution", "--glb-resolution"),
    ("export.preview_width", "--preview-width"),
    ("export.preview_exaggeration", "--preview-exaggeration"),
    ("export.hillshade", "--hillshade"),
];

/// Flags that set a parameter in their own way (a pair, a list, a switch); the command
/// defines them by hand. They are listed so the table names them.
pub const SPECIAL_FLAGS: &[(&str, &str)] = &[
    ("preset", "--preset"),
    ("world.width", "--size"),
    ("world.height", "--size"),
    ("elevation.anchors", "--anchors"),
    ("biome.redistribute", "--raw-moisture"),
    ("export.outputs", "--outputs"),
];

/// The sections of a config with their help headings, in the order `--help` shows them.
pub const SECTIONS: &[(&str, &str)] = &[
    ("preset", "Preset"),
    ("world", "World"),
    ("mesh", "Mesh"),
    ("elevation", "Elevation"),
    ("erosion", "Erosion"),
    ("hydrology", "Hydrology"),
    ("biome", "Moisture and biomes"),
    ("flora", "Flora"),
    ("classic", "Classic landscape"),
    ("export", "Export"),
];

const PRESET_SPECS: &[Spec<Config>] = &[Spec::choice(
    "preset",
    "The named preset the run starts from (classic runs the classic pipeline)",
    &[
        "default",
        "reference",
        "classic",
        "archipelago",
        "continent",
        "eroded",
    ],
)];

impl WorldParams {
    /// Every parameter, described once.
    pub const SPECS: &[Spec<WorldParams>] = &[
        Spec::int(
            "seed",
            "World seed",
            0,
            i64::MAX as i128,
            |p: &WorldParams| p.seed.into(),
        ),
        Spec::int(
            "cells",
            "Number of cells (regions)",
            3,
            crate::MAX_CELLS as i128,
            |p: &WorldParams| p.cells as i128,
        ),
        Spec::positive(
            "width",
            "Map width (width / height in 1e-4 ..= 1e4)",
            |p: &WorldParams| p.width,
        )
        .unit("map units"),
        Spec::positive("height", "Map height", |p: &WorldParams| p.height).unit("map units"),
        Spec::float(
            "water_level",
            "Water level on the base-height scale",
            0.0,
            1.0,
            |p: &WorldParams| p.water_level,
        ),
        Spec::float(
            "world_size_m",
            "Map width in metres",
            1.0,
            1e8,
            |p: &WorldParams| p.world_size_m,
        )
        .unit("m"),
        Spec::float(
            "max_height_m",
            "Metres at the highest land",
            1.0,
            1e5,
            |p: &WorldParams| p.max_height_m,
        )
        .unit("m"),
        Spec::float(
            "max_depth_m",
            "Metres below sea level at the deepest water",
            1.0,
            1e5,
            |p: &WorldParams| p.max_depth_m,
        )
        .unit("m"),
    ];
}

impl ExportParams {
    /// Every parameter, described once.
    pub const SPECS: &[Spec<ExportParams>] = &[
        Spec::int(
            "resolution",
            "Image width; the height follows the map's aspect",
            1,
            32_768,
            |p: &ExportParams| p.resolution as i128,
        )
        .unit("px"),
        Spec::other(
            "outputs",
            "The files to write (world.json is always written)",
            "default, all, or output names (see the Exports table)",
        ),
        Spec::choice(
            "normalize",
            "16-bit height mapping: fixed ([-max depth, max height]) or minmax",
            &["fixed", "minmax"],
        ),
        Spec::float(
            "hillshade",
            "Relief shading of colormap.png: slope strength under a sun in the north-west, 45 \
             degrees up; 0 turns it off",
            0.0,
            50.0,
            |p: &ExportParams| f64::from(p.hillshade),
        ),
        Spec::choice(
            "engine",
            "Heightmap for an engine (engines sample vertices and need a square map)",
            &["none", "unity", "unreal", "godot"],
        ),
        Spec::other(
            "heightmap_size",
            "Heightmap side; every heightmap-sized raster follows it (0: 1025 unity, 1009 \
             unreal, else the resolution)",
            "0, or unity 33 ..= 4097 (2^n + 1), unreal 127, 253, 505, 1009, 2017, 4033, \
             8129, else 2 ..= 32768",
        )
        .unit("samples"),
        Spec::int(
            "glb_resolution",
            "Terrain vertices along the width in world.glb",
            2,
            4097,
            |p: &ExportParams| p.glb_resolution as i128,
        ),
        Spec::int(
            "preview_width",
            "Width of preview3d.png; the height is 9/16 of it",
            64,
            8192,
            |p: &ExportParams| p.preview_width as i128,
        )
        .unit("px"),
        Spec::float(
            "preview_exaggeration",
            "Vertical exaggeration of preview3d.png",
            1.0,
            50.0,
            |p: &ExportParams| p.preview_exaggeration,
        ),
    ];
}

impl ClassicParams {
    /// The classic heightmap is normalised to 0 ..= 1: the river kernel's levels (any finite
    /// number for a DEM of the caller's) are bounded here.
    pub const SPECS: &[Spec<ClassicParams>] = &[
        Spec::float(
            "rivers.source_min",
            "A river source is a random cell at least this high",
            0.0,
            1.0,
            |p: &ClassicParams| p.rivers.source_min.into(),
        ),
        Spec::float(
            "rivers.water_level",
            "A river stops after reaching a cell below this level",
            0.0,
            1.0,
            |p: &ClassicParams| p.rivers.water_level.into(),
        ),
    ];
}

/// Every parameter of a config, in the order of [`SECTIONS`].
pub fn table() -> Vec<Param> {
    let mut infos: Vec<ParamInfo> = describe_specs("", PRESET_SPECS);
    infos.extend(describe_specs("world.", WorldParams::SPECS));
    infos.extend(describe_specs("mesh.", orogen_mesh::Params::SPECS));
    infos.extend(prefixed(
        "elevation.",
        orogen_elevation::Params::param_table(),
    ));
    infos.extend(describe_specs(
        "erosion.",
        orogen_hydrology::erosion::Params::SPECS,
    ));
    infos.extend(prefixed(
        "hydrology.",
        orogen_hydrology::graph::Params::param_table(),
    ));
    infos.extend(describe_specs("biome.", orogen_biome::Params::SPECS));
    infos.extend(prefixed("flora.", orogen_flora::Params::param_table()));
    infos.extend(prefixed(
        "classic.elevation.",
        orogen_elevation::ClassicParams::param_table(),
    ));
    infos.extend(describe_specs(
        "classic.rivers.",
        orogen_hydrology::raster::TraceParams::SPECS,
    ));
    infos.extend(prefixed(
        "classic.trees.",
        orogen_flora::ClassicTreeParams::param_table(),
    ));
    infos.extend(describe_specs(
        "classic.paint.",
        orogen_export::landscape::LandscapeStyle::SPECS,
    ));
    infos.extend(describe_specs("export.", ExportParams::SPECS));
    // A later row of the same path narrows an earlier one (the classic rivers' levels).
    for narrower in describe_specs("classic.", ClassicParams::SPECS) {
        let row = infos
            .iter_mut()
            .find(|r| r.path == narrower.path)
            .expect("a narrowed parameter is in its crate's table");
        *row = narrower;
    }
    let mut defaults = serde_json::to_value(Config::default()).expect("a config serialises");
    f32_digits(&mut defaults);
    infos
        .into_iter()
        .map(|info| {
            let pointer = format!("/{}", info.path.replace('.', "/"));
            let default = defaults.pointer(&pointer).cloned().unwrap_or(Value::Null);
            let flag = FLAGS
                .iter()
                .chain(SPECIAL_FLAGS)
                .find(|(p, _)| *p == info.path)
                .map(|(_, f)| *f);
            Param {
                path: info.path,
                doc: info.doc,
                default,
                min: info.min,
                max: info.max,
                choices: info.choices,
                allowed: info.allowed,
                unit: info.unit,
                flag,
            }
        })
        .collect()
}

fn prefixed(prefix: &str, rows: Vec<ParamInfo>) -> Vec<ParamInfo> {
    rows.into_iter()
        .map(|mut r| {
            r.path = format!("{prefix}{}", r.path);
            r
        })
        .collect()
}

fn bound_json(bound: Option<Bound>) -> Value {
    match bound {
        Some(Bound::Int(v)) => i64::try_from(v)
            .map(Value::from)
            .or_else(|_| u64::try_from(v).map(Value::from))
            .unwrap_or(Value::Null),
        Some(Bound::Float(v)) => json!(v),
        None => Value::Null,
    }
}

/// The table as JSON for the playground: an array of `{"path", "doc", "default", "min", "max",
/// "choices", "unit", "flag"}` (`min`, `max`, `choices`, `unit` and `flag` null when absent).
pub fn table_json() -> Value {
    Value::Array(
        table()
            .into_iter()
            .map(|p| {
                json!({
                    "path": p.path,
                    "doc": p.doc,
                    "default": p.default,
                    "min": bound_json(p.min),
                    "max": bound_json(p.max),
                    "choices": p.choices,
                    "unit": p.unit,
                    "flag": p.flag,
                })
            })
            .collect(),
    )
}

/// Numbers that came from an `f32` field keep their `f32` digits (`0.36`, not
/// `0.36000001430511475`): the value as a user would write it, and the same `f32` when read back.
fn f32_digits(value: &mut Value) {
    match value {
        Value::Number(n) => {
            if let Some(v) = n
                .as_f64()
                .filter(|v| n.is_f64() && f64::from(*v as f32) == *v)
                && let Ok(short) = (v as f32).to_string().parse::<f64>()
                && let Some(short) = serde_json::Number::from_f64(short)
            {
                *n = short;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(f32_digits),
        Value::Object(map) => map.values_mut().for_each(f32_digits),
        _ => {}
    }
}

/// A default as the user types it: strings bare, lists and tables shortened.
pub fn shown(value: &Value) -> String {
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Null => "none".into(),
        other => other.to_string(),
    };
    if text.chars().count() > 40 {
        format!("{}...", text.chars().take(37).collect::<String>())
    } else {
        text
    }
}

impl Param {
    /// The section (`world`, `hydrology`, ...) of the path.
    pub fn section(&self) -> &str {
        self.path.split('.').next().unwrap_or("")
    }

    /// The pipelines the parameter applies to: the classic section to the classic pipeline,
    /// the mesh stages' sections, the cell count and the mesh exports to the mesh pipeline, the
    /// rest to both.
    pub fn applies_to(&self, pipeline: Pipeline) -> bool {
        match self.section() {
            "classic" => pipeline == Pipeline::Classic,
            "mesh" | "elevation" | "hydrology" | "biome" | "flora" => pipeline == Pipeline::Mesh,
            "export" => {
                pipeline == Pipeline::Mesh
                    || ["export.resolution", "export.outputs"].contains(&self.path.as_str())
            }
            // The classic heightmap's size is `classic.elevation.size`, not a cell count.
            "world" => pipeline == Pipeline::Mesh || self.path != "world.cells",
            _ => true,
        }
    }

    /// The help line of its flag: the doc, then the default, range and unit.
    pub fn help(&self) -> String {
        let mut text = self.doc.to_owned();
        text.push_str(&format!(" [default: {}]", shown(&self.default)));
        if self.choices.is_none() {
            text.push_str(&format!(" [range: {}]", self.allowed));
        }
        if let Some(unit) = self.unit {
            text.push_str(&format!(" [unit: {unit}]"));
        }
        text
    }
}

/// The README's table of command-line flags (`orogen params --markdown`).
pub fn markdown() -> String {
    let mut text = String::from("| flag | config path | default | range | unit | what |\n");
    text.push_str("|---|---|---|---|---|---|\n");
    let rows = table();
    let mut seen = Vec::new();
    for row in &rows {
        let Some(flag) = row.flag else { continue };
        if seen.contains(&flag) {
            continue;
        }
        seen.push(flag);
        let path = if flag == "--size" {
            "`world.width`, `world.height`".to_owned()
        } else {
            format!("`{}`", row.path)
        };
        text.push_str(&format!(
            "| `{flag}` | {path} | {} | {} | {} | {} |\n",
            shown(&row.default).replace('|', "\\|"),
            row.allowed.replace('|', "\\|"),
            row.unit.unwrap_or(""),
            row.doc
        ));
    }
    text
}

/// Every parameter as plain text, a line each (`orogen params`).
pub fn text() -> String {
    table()
        .iter()
        .map(|p| {
            let flag = p.flag.map(|f| format!(" ({f})")).unwrap_or_default();
            let unit = p.unit.map(|u| format!(" [{u}]")).unwrap_or_default();
            format!(
                "{} = {}{flag}: {}; {}{unit}\n",
                p.path,
                shown(&p.default),
                p.doc,
                p.allowed
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every parameter of a config has a row, and every row a parameter: a leaf path of the
    /// config is a row's path or lies under a row that describes a list or table whole.
    #[test]
    fn the_table_covers_every_parameter_once() {
        let table = table();
        let listed: Vec<String> = Config::default()
            .parameter_list()
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        for key in &listed {
            let covered = table
                .iter()
                .filter(|r| *key == r.path || key.starts_with(&format!("{}.", r.path)))
                .count();
            assert_eq!(covered, 1, "{key}: rows covering it");
        }
        for row in &table {
            assert!(
                listed
                    .iter()
                    .any(|k| *k == row.path || k.starts_with(&format!("{}.", row.path))),
                "{}: no such parameter",
                row.path
            );
            assert_ne!(row.default, Value::Null, "{}", row.path);
            assert!(!row.doc.is_empty(), "{}", row.path);
        }
        for (path, _) in FLAGS.iter().chain(SPECIAL_FLAGS) {
            assert!(table.iter().any(|r| r.path == *path), "{path}");
        }
    }

    /// Each choice is a value the config takes, and its default is one of the choices; a
    /// range's ends are accepted and a step beyond refused (the crate's own validation).
    #[test]
    fn choices_and_ranges_agree_with_the_config() {
        for row in table() {
            if let Some(choices) = row.choices {
                assert!(
                    choices.contains(&row.default.as_str().unwrap()),
                    "{}",
                    row.path
                );
                for choice in choices {
                    let mut config = Config::default();
                    config
                        .set_path(&row.path, &format!("\"{choice}\""))
                        .unwrap_or_else(|e| panic!("{} = {choice}: {e}", row.path));
                }
                let mut config = Config::default();
                assert!(config.set_path(&row.path, "\"no-such\"").is_err());
            }
            for (end, outside) in [(row.min, -1.0), (row.max, 1.0)] {
                let Some(end) = end else { continue };
                let (at, beyond) = match end {
                    Bound::Int(v) => (v.to_string(), (v + outside as i128).to_string()),
                    Bound::Float(v) => (
                        format!("{v:?}"),
                        format!("{:?}", v + outside * v.abs().max(1.0) * 0.01),
                    ),
                };
                let check = |value: &str| {
                    let mut config = Config::default();
                    config.set_path(&row.path, value).ok()?;
                    Some(config.validate_params())
                };
                match check(&at) {
                    Some(Err(crate::Error::Param(e))) if e.param == row.path => {
                        panic!("{} = {at}: an end of its range refused: {e}", row.path)
                    }
                    None => panic!("{} = {at} does not fit", row.path),
                    _ => {}
                }
                // Beyond the end: refused, naming the path (or it does not fit the type).
                if let Some(result) = check(&beyond) {
                    match result {
                        Err(crate::Error::Param(e)) => {
                            assert_eq!(e.param, row.path, "{} = {beyond}", row.path);
                            assert!(e.allowed.contains(&row.allowed), "{e}");
                        }
                        other => panic!("{} = {beyond}: {other:?}", row.path),
                    }
                }
            }
        }
    }

    #[test]
    fn the_json_table_has_the_playground_shape() {
        let Value::Array(rows) = table_json() else {
            panic!("an array");
        };
        for row in &rows {
            let keys: Vec<&String> = row.as_object().unwrap().keys().collect();
            assert_eq!(
                keys,
                [
                    "choices", "default", "doc", "flag", "max", "min", "path", "unit"
                ]
            );
        }
        let cells = rows.iter().find(|r| r["path"] == "world.cells").unwrap();
        assert_eq!(cells["min"], json!(3));
        assert_eq!(cells["max"], json!(crate::MAX_CELLS));
        assert_eq!(cells["default"], json!(50_000));
        assert_eq!(cells["flag"], json!("--cells"));
        let noise = rows
            .iter()
            .find(|r| r["path"] == "elevation.fbm.noise")
            .unwrap();
        assert_eq!(noise["choices"], json!(["perlin", "simplex"]));
        assert_eq!(noise["min"], Value::Null);
    }
}
