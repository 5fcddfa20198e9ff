//! Every parameter, refused at every boundary: one table gives, for each parameter of the
//! config, a value outside its range and what the refusal must say (the parameter by its config
//! path, and the allowed range). Each row is checked through the stage crate's own params, the
//! library's `Config`, a TOML config file, the command line (`--set`, `--config` and the named
//! flag where there is one) and the playground's JSON request; the range's own ends must be
//! accepted. A parameter added to the config without a row here fails the coverage test.

use std::collections::BTreeSet;

use orogen::{Config, Error};
use orogen_world::params::ParamError;
use rayon::prelude::*;

/// One parameter and a value it must refuse.
#[derive(Clone, Debug)]
struct Row {
    /// The config path (`hydrology.selection.main.spacing`).
    key: String,
    /// A bad value as a TOML literal.
    value: String,
    /// What the refusal is.
    expect: Expect,
    /// The command-line flag that sets the same parameter, if any, and its value when it is
    /// spelled otherwise than the TOML literal.
    flag: Option<(&'static str, Option<&'static str>)>,
}

#[derive(Clone, Debug)]
enum Expect {
    /// A range error from validation naming `param` with `allowed` in its allowed text.
    Range {
        param: String,
        allowed: &'static str,
    },
    /// The value is not of the parameter's type: refused while parsing, with `hint` (the forms
    /// accepted) in the message. A program using the library cannot build such a value.
    Type { hint: &'static str },
}

fn range(key: &str, value: &str, allowed: &'static str) -> Row {
    Row {
        key: key.to_owned(),
        value: value.to_owned(),
        expect: Expect::Range {
            param: key.to_owned(),
            allowed,
        },
        flag: None,
    }
}

fn typed(key: &str, value: &str, hint: &'static str) -> Row {
    Row {
        key: key.to_owned(),
        value: value.to_owned(),
        expect: Expect::Type { hint },
        flag: None,
    }
}

impl Row {
    fn flag(mut self, flag: &'static str) -> Self {
        self.flag = Some((flag, None));
        self
    }

    fn flag_with(mut self, flag: &'static str, value: &'static str) -> Self {
        self.flag = Some((flag, Some(value)));
        self
    }

    /// The refusal names `param` (an element of a list parameter, say) instead of the key.
    fn names(mut self, name: &str) -> Self {
        if let Expect::Range { param, .. } = &mut self.expect {
            *param = name.to_owned();
        }
        self
    }
}

/// Parameters that take any value of their type (a boolean is always valid).
const ANY_VALUE: &[&str] = &["biome.redistribute", "erosion.keep_relief"];

/// The default value of a list parameter, changed by `edit`, as a TOML literal.
fn edited(key: &str, edit: impl FnOnce(&mut toml::Value)) -> String {
    let mut value = default_value(key);
    edit(&mut value);
    value.to_string()
}

fn default_value(key: &str) -> toml::Value {
    let mut node = toml::Value::try_from(Config::default()).unwrap();
    for part in key.split('.') {
        node = node.get(part).unwrap_or_else(|| panic!("{key}")).clone();
    }
    node
}

fn rows() -> Vec<Row> {
    let mut rows = vec![
        range(
            "world.seed",
            "9223372036854775808",
            "0 ..= 9223372036854775807",
        )
        .flag("--seed"),
        range("world.cells", "1000000000", "3 ..= 8000000").flag("--cells"),
        range("world.width", "-1.0", "a finite number > 0"),
        range("world.height", "0.0", "a finite number > 0"),
        range("world.water_level", "7.0", "0 ..= 1").flag("--water-level"),
        range("world.world_size_m", "0.5", "1 ..= 100000000").flag("--world-size"),
        range("world.max_height_m", "-1.0", "1 ..= 100000").flag("--max-height"),
        range("world.max_depth_m", "1e6", "1 ..= 100000").flag("--max-depth"),
        range("mesh.lloyd_iterations", "101", "0 ..= 100").flag("--lloyd-iterations"),
        typed(
            "mesh.sampler",
            "\"hex\"",
            "`uniform`, `jittered`, `poisson`",
        ),
        typed(
            "preset",
            "\"voxel\"",
            "`reference`, `classic`, `archipelago`, `continent`",
        ),
        range("export.resolution", "100000", "1 ..= 32768").flag("--resolution"),
        range("export.hillshade", "-1.0", "0 ..= 50").flag("--hillshade"),
        typed(
            "export.outputs",
            "[\"png\"]",
            "`default`, `all`, `colormap`",
        ),
        range(
            "export.outputs",
            "[\"landscape\"]",
            "default, all or an output the mesh pipeline makes: colormap",
        )
        .flag_with("--outputs", "heightmap,landscape"),
        typed("export.normalize", "\"log\"", "`fixed` or `minmax`"),
        typed(
            "export.engine",
            "\"cryengine\"",
            "`none`, `unity`, `unreal`, `godot`",
        ),
        range("export.heightmap_size", "1", "2 ..= 32768").flag("--heightmap-size"),
        range("export.glb_resolution", "4098", "2 ..= 4097").flag("--glb-resolution"),
        range("export.preview_width", "63", "64 ..= 8192").flag("--preview-width"),
        range("export.preview_exaggeration", "0.5", "1 ..= 50").flag("--preview-exaggeration"),
        typed(
            "erosion.mode",
            "\"on\"",
            "`off`, `transient`, `steady_state`",
        ),
        range("erosion.k", "-1.0", "0 ..= 1"),
        range("erosion.m", "2.5", "0 ..= 2"),
        range("erosion.n", "0.1", "0.5 ..= 4"),
        range("erosion.uplift", "2.0", "0 ..= 1"),
        range("erosion.diffusion", "-1.0", "0 ..= 10000"),
        range("erosion.dt", "0.5", "1 ..= 10000000"),
        range("erosion.steps", "0", "1 ..= 100000"),
        range("erosion.iterations", "0", "1 ..= 1000"),
        typed("hydrology.depressions", "\"drain\"", "`fill` or `carve`"),
        range("hydrology.min_lake_regions", "0", "1 ..= 100000000").flag("--min-lake-regions"),
        range("hydrology.selection.min_flow", "-1.0", "0 ..= 1000000000"),
        range("hydrology.selection.min_flow_per_corner", "1.5", "0 ..= 1"),
        range(
            "hydrology.selection.extend_min_flow",
            "0.5",
            "1 ..= 1000000000",
        )
        .flag("--river-extend-flow"),
        range(
            "hydrology.selection.width_source_m",
            "100001.0",
            "0 ..= 100000",
        ),
        range(
            "hydrology.selection.width_per_sqrt_km2_m",
            "-0.1",
            "0 ..= 100000",
        ),
        range("hydrology.selection.opacity_exponent", "0.0", "0.01 ..= 10"),
        range("hydrology.selection.opacity_base", "1.5", "0 ..= 1"),
    ];
    for pass in ["main", "tributary"] {
        let key = |field: &str| format!("hydrology.selection.{pass}.{field}");
        rows.extend([
            range(&key("top_fraction"), "1.5", "0 ..= 1"),
            range(&key("min_hops"), "1000001", "0 ..= 1000000"),
            range(&key("min_hops_sqrt"), "-1.0", "0 ..= 100"),
            range(&key("min_hops_of_main"), "101.0", "0 ..= 100"),
            range(&key("max_rivers"), "1000001", "0 ..= 1000000"),
        ]);
    }
    rows.extend([
        range(
            "hydrology.selection.main.max_rivers_sqrt",
            "-1.0",
            "0 ..= 1000",
        )
        .flag("--main-rivers"),
        range("hydrology.selection.main.spacing", "-1.0", "0 ..= 1000").flag("--river-spacing"),
        range(
            "hydrology.selection.tributary.max_rivers_sqrt",
            "1001.0",
            "0 ..= 1000",
        )
        .flag("--tributaries"),
        range(
            "hydrology.selection.tributary.spacing",
            "-1.0",
            "0 ..= 1000",
        )
        .flag("--tributary-spacing"),
        typed("elevation.layout", "\"spiral\"", "random"),
        range("elevation.land_centers", "0", "1 ..= 1000").flag("--land-centers"),
        range("elevation.anchors", "[[0.5, 0.5], [1.5, 0.2]]", "0 ..= 1")
            .names("elevation.anchors[1].x"),
        typed("elevation.fbm.noise", "\"value\"", "perlin"),
        range("elevation.fbm.noise_scale", "0.001", "0.01 ..= 1000").flag("--noise-scale"),
        range("elevation.fbm.octaves", "17", "1 ..= 16").flag("--octaves"),
        range("elevation.fbm.lacunarity", "0.5", "1 ..= 4"),
        range("elevation.fbm.gain", "1.5", "0 ..= 1").flag("--gain"),
        range("elevation.fbm.warp", "-1.0", "0 ..= 10"),
        range("elevation.curve.breakpoint", "1.5", "0 ..= 1"),
        range("elevation.curve.coast_factor", "0.0", "0.001 ..= 100"),
        range("elevation.curve.inland_factor", "101.0", "0 ..= 100"),
        range("elevation.curve.inland_exponent", "0.05", "0.1 ..= 10"),
        typed("elevation.raster.source", "\"perlin\"", "diamond-square"),
        range("elevation.raster.fbm_side", "1", "2 ..= 8193"),
        range(
            "elevation.raster.drive_regions",
            "true",
            "true only with a raster source",
        ),
        range("elevation.raster.diamond_square.levels", "14", "1 ..= 13"),
        range(
            "elevation.raster.diamond_square.roughness",
            "-0.1",
            "0 ..= 10",
        ),
        range(
            "elevation.raster.diamond_square.corners.fixed",
            "11.0",
            "-10 ..= 10",
        ),
        range("biome.scale_factor", "0.0", "0.01 ..= 100").flag("--moisture-scale"),
        range("biome.offset", "2e6", "-1000000 ..= 1000000"),
        range("biome.octaves", "0", "1 ..= 16"),
        range("biome.water_boost", "1.5", "0 ..= 1").flag("--water-boost"),
        range("biome.water_decay", "0.0", "0.0001 ..= 1").flag("--water-decay"),
        range("biome.altitude_drying", "-0.5", "0 ..= 1").flag("--altitude-drying"),
        range("biome.snowcap_elevation", "2.0", "0 ..= 1"),
        range("biome.snowcap_boost", "0.5", "1 ..= 10"),
        range("biome.wind", "5.0", "0 ..= 4").flag("--wind"),
        range("biome.wind_angle", "400.0", "-360 ..= 360").flag("--wind-angle"),
        range("biome.wind_rain_rate", "-1.0", "0 ..= 1000"),
        range("biome.wind_orographic", "101.0", "0 ..= 100"),
        range("biome.wetness", "-2.0", "-1 ..= 1").flag("--wetness"),
        range("biome.blur_sigma", "65.0", "0 ..= 64").flag("--blur-sigma"),
        range("biome.whittaker.bands", "[]", "at least one entry"),
        range("flora.models_per_species", "65", "1 ..= 64").flag("--tree-models"),
        range("flora.density_scale", "-1.0", "0 ..= 10").flag("--flora-density"),
        range("flora.undergrowth_clearance", "3.0", "0 ..= 2"),
        range("flora.river_clearance", "-1.0", "0 ..= 5"),
        range(
            "flora.species",
            &edited("flora.species", |v| v[0]["crown_base"] = 0.95.into()),
            "0 ..= 0.9",
        )
        .names("flora.species[0].crown_base"),
        range(
            "flora.biomes",
            &edited("flora.biomes", |v| {
                v[0]["plants"][0]["species"] = "baobab".into();
            }),
            "the name of one of the species",
        )
        .names("flora.biomes[0].plants[0].species"),
        typed(
            "classic.elevation.source",
            "\"voronoi\"",
            "`diamond-square` or `fbm`",
        ),
        range("classic.elevation.size", "256", "2^n + 1").flag("--classic-size"),
        range("classic.elevation.roughness", "11.0", "0 ..= 10").flag("--roughness"),
        range("classic.elevation.corners.fixed", "-11.0", "-10 ..= 10"),
        typed("classic.elevation.fbm.noise", "\"value\"", "perlin"),
        range(
            "classic.elevation.fbm.noise_scale",
            "1001.0",
            "0.01 ..= 1000",
        ),
        range("classic.elevation.fbm.octaves", "0", "1 ..= 16"),
        range("classic.elevation.fbm.lacunarity", "5.0", "1 ..= 4"),
        range("classic.elevation.fbm.gain", "-0.1", "0 ..= 1"),
        range("classic.elevation.fbm.warp", "11.0", "0 ..= 10"),
        range("classic.rivers.count", "100001", "0 ..= 100000").flag("--classic-rivers"),
        range("classic.rivers.source_min", "1.5", "0 ..= 1"),
        range("classic.rivers.tries", "0", "1 ..= 1000000"),
        range("classic.rivers.water_level", "-0.5", "0 ..= 1"),
        range("classic.rivers.max_steps", "0", "1 ..= 100000000"),
        range("classic.trees.canvas_px", "8.0", "16 ..= 32768"),
        range("classic.trees.spacing_px", "0.5", "1 ..= 10000").flag("--tree-spacing"),
        range("classic.trees.k", "0", "1 ..= 10000"),
        range("classic.trees.min_elevation", "-0.1", "0 ..= 1"),
        range("classic.trees.max_elevation", "0.4", "0.43 ..= 1"),
        range("classic.trees.size_px", "[8.0, 3.0]", "8 ..= 1000")
            .names("classic.trees.size_px[1]"),
        range("classic.trees.silhouettes_per_species", "65", "1 ..= 64"),
        range("classic.trees.species_jitter", "1.5", "0 ..= 1"),
        range(
            "classic.trees.species",
            &edited("classic.trees.species", |v| v[0]["attractors"] = 0.into()),
            "1 ..= 100000",
        )
        .names("classic.trees.species[0].attractors"),
        range("classic.paint.water_level", "1.5", "0 ..= 1"),
        typed("classic.paint.water_color", "\"blue\"", "#rrggbb"),
        range("classic.paint.water_alpha", "-0.1", "0 ..= 1"),
        range("classic.paint.antialias", "9", "1 ..= 8"),
        range("classic.paint.hillshade", "1.5", "0 ..= 1"),
        range("classic.paint.relief", "11.0", "0 ..= 10"),
        typed("classic.paint.river_color", "\"#12345\"", "#rrggbb"),
        range("classic.paint.river_alpha", "2.0", "0 ..= 1"),
        range("classic.paint.river_width_px", "0.05", "0.1 ..= 100"),
        typed("classic.paint.leaf_dark", "\"#gg0000\"", "#rrggbb"),
        typed("classic.paint.leaf_light", "\"\"", "#rrggbb"),
        range("classic.paint.leaf_alpha", "1.5", "0 ..= 1"),
        typed("classic.paint.wood_color", "\"brown\"", "#rrggbb"),
        range("classic.paint.tree_shadow", "-1.0", "0 ..= 1"),
        range("classic.paint.bands", "[]", "1 ..= 64"),
    ]);
    for growth in ["flora.growth", "classic.trees.growth"] {
        let key = |field: &str| format!("{growth}.{field}");
        rows.extend([
            range(
                &key("influence_radius"),
                "5.0",
                "a finite number > 0 and <= 4",
            ),
            range(
                &key("kill_distance"),
                "0.01",
                "segment_length (0.02) ..= influence_radius",
            ),
            range(&key("segment_length"), "-0.02", "a finite number > 0"),
            range(&key("max_iterations"), "0", "1 ..= 1000000"),
            range(&key("jitter"), "1.5", "0 ..= 1"),
            range(&key("pipe_exponent"), "0.5", "1 ..= 4"),
            range(&key("tip_radius"), "0.2", "a finite number > 0 and <= 0.1"),
        ]);
    }
    let Some(toml::Value::Table(palette)) = default_value("biome").get("palette").cloned() else {
        panic!("biome.palette is a table");
    };
    for name in palette.keys() {
        let key = format!("biome.palette.{name}");
        rows.push(range(&key, "[0.5, 1.5, 0.5]", "0 ..= 1").names(&format!("{key}[1]")));
    }
    rows
}

#[test]
fn every_parameter_has_a_row() {
    let listed: BTreeSet<String> = Config::default()
        .parameter_list()
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    let covered: BTreeSet<String> = rows()
        .into_iter()
        .map(|r| r.key)
        .chain(ANY_VALUE.iter().map(|k| (*k).to_owned()))
        .collect();
    let missing: Vec<_> = listed.difference(&covered).collect();
    let unknown: Vec<_> = covered.difference(&listed).collect();
    assert!(missing.is_empty(), "parameters without a row: {missing:?}");
    assert!(unknown.is_empty(), "rows of no parameter: {unknown:?}");
}

/// The TOML literal as JSON, or None where TOML cannot hold it (an integer past 2^63 - 1).
fn json_of(literal: &str) -> Option<serde_json::Value> {
    let table: toml::Table = toml::from_str(&format!("v = {literal}")).ok()?;
    Some(serde_json::to_value(&table["v"]).unwrap())
}

/// `{"a": {"b": value}}` for key `a.b`.
fn nested(key: &str, value: serde_json::Value) -> serde_json::Value {
    key.rsplit('.')
        .fold(value, |inner, part| serde_json::json!({ part: inner }))
}

/// The config with `key` set to the value, built as a program would (a struct from serde), or
/// None when the value does not fit the field's type.
fn library_config(key: &str, value: &serde_json::Value) -> Option<Config> {
    let mut json = serde_json::to_value(Config::default()).unwrap();
    let pointer = format!("/{}", key.replace('.', "/"));
    *json
        .pointer_mut(&pointer)
        .unwrap_or_else(|| panic!("{key}")) = value.clone();
    serde_json::from_value(json).ok()
}

/// The stage crate's own validation of the section holding `key`: its error names the field
/// relative to the crate's params (no pipeline prefix).
fn section_validate(config: &Config, key: &str) -> Result<(), ParamError> {
    let world = &config.world;
    match key.split('.').next().unwrap() {
        "world" => world.validate(),
        "mesh" => config.mesh.validate(),
        "export" => config.export.validate(world, config.pipeline()),
        "hydrology" => config.hydrology.validate(),
        "erosion" => config.erosion.validate(),
        "elevation" => config.elevation.validate_for_map(world.width, world.height),
        "biome" => config.biome.validate(),
        "flora" => config.flora.validate(),
        "classic" => config.classic.validate(),
        other => panic!("no section {other}"),
    }
}

fn check_param_error(context: &str, err: &ParamError, param: &str, allowed: &str, value: &str) {
    assert_eq!(err.param, param, "{context}: {err}");
    assert!(
        err.allowed.contains(allowed),
        "{context}: `{err}` does not allow `{allowed}`"
    );
    if let (Ok(given), Ok(shown)) = (value.parse::<f64>(), err.value.parse::<f64>()) {
        assert_eq!(given, shown, "{context}: {err} does not show the value");
    }
}

/// The text a refusal of this row must contain.
fn needles(row: &Row) -> Vec<String> {
    match &row.expect {
        Expect::Range { param, allowed } => {
            vec![format!("{param} = "), format!("allowed {allowed}")]
        }
        Expect::Type { hint } => vec![(*hint).to_owned()],
    }
}

#[test]
fn every_bad_value_is_refused_by_the_library_and_a_config_file() {
    for row in rows() {
        let json = json_of(&row.value);
        let file = Config::from_toml(&format!("{} = {}\n", row.key, row.value), "bad.toml");
        match &row.expect {
            Expect::Range { param, allowed } => {
                // An integer TOML cannot hold still fits a u64 field of a program's config.
                let json =
                    json.unwrap_or_else(|| serde_json::json!(row.value.parse::<u64>().unwrap()));
                // The library: the stage crate's params, then the whole config.
                let config = library_config(&row.key, &json)
                    .unwrap_or_else(|| panic!("{}: the value does not fit the type", row.key));
                let section = section_validate(&config, &row.key).unwrap_err();
                let relative = param.split_once('.').unwrap().1;
                check_param_error(&row.key, &section, relative, allowed, &row.value);
                match config.validate() {
                    Err(Error::Param(e)) => {
                        check_param_error(&row.key, &e, param, allowed, &row.value);
                    }
                    other => panic!("{}: {other:?}", row.key),
                }
                // A config file.
                match file.and_then(|c| c.validate()) {
                    Err(Error::Param(e)) => {
                        check_param_error(&row.key, &e, param, allowed, &row.value);
                    }
                    // Past the integers TOML holds: refused while parsing, naming the key.
                    Err(Error::Config { message, .. }) if json_of(&row.value).is_none() => {
                        assert!(message.contains(&row.key), "{}: {message}", row.key);
                    }
                    other => panic!("{}: {other:?}", row.key),
                }
            }
            Expect::Type { hint } => {
                let json = json.unwrap_or_else(|| panic!("{}: not TOML", row.key));
                assert!(library_config(&row.key, &json).is_none(), "{}", row.key);
                match file {
                    Err(e @ Error::Config { .. }) => {
                        let text = e.to_string();
                        assert!(text.contains(hint), "{}: {text}", row.key);
                        assert!(e.is_invalid_input());
                    }
                    other => panic!("{}: {other:?}", row.key),
                }
            }
        }
    }
}

#[test]
fn the_ends_of_every_range_are_accepted() {
    for row in rows() {
        let Expect::Range { param, allowed } = &row.expect else {
            continue;
        };
        // Only plain ranges of the parameter itself.
        let Some((lo, hi)) = allowed.split_once(" ..= ") else {
            continue;
        };
        if *param != row.key {
            continue;
        }
        let default = default_value(&row.key);
        if !(default.is_integer() || default.is_float()) {
            continue; // a list's count
        }
        let ends = if default.is_integer() {
            [lo, hi].map(|end| end.parse::<u64>().ok().map(serde_json::Value::from))
        } else {
            [lo, hi].map(|end| end.parse::<f64>().ok().map(serde_json::Value::from))
        };
        for end in ends {
            let Some(value) = end else {
                continue;
            };
            let config = library_config(&row.key, &value)
                .unwrap_or_else(|| panic!("{} = {value} does not fit", row.key));
            // Another parameter's range may depend on this one (min_elevation bounds
            // max_elevation): only this parameter's own check must pass.
            match config.validate_params() {
                Err(Error::Param(e)) if e.param == row.key => {
                    panic!(
                        "{} = {value} is an end of its range {allowed} but refused: {e}",
                        row.key
                    )
                }
                Ok(()) | Err(Error::Param(_)) => {}
                Err(e) => panic!("{}: {e}", row.key),
            }
        }
    }
}

#[test]
fn every_bad_value_is_refused_by_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    rows().par_iter().enumerate().for_each(|(i, row)| {
        // TOML cannot hold the value: the parse error names the key instead.
        let expected = if json_of(&row.value).is_some() {
            needles(row)
        } else {
            vec![row.key.clone()]
        };
        let check = |how: &str, refusal: String| {
            orogen_tests::one_line(&refusal);
            for needle in &expected {
                assert!(
                    refusal.contains(needle),
                    "{how}: `{refusal}` lacks `{needle}`"
                );
            }
        };
        let set = format!("{}={}", row.key, row.value);
        check(&set, orogen_tests::refused(&["--set", &set], ""));
        let file = dir.path().join(format!("{i}.toml"));
        std::fs::write(&file, format!("{} = {}\n", row.key, row.value)).unwrap();
        let path = file.to_str().unwrap();
        check(path, orogen_tests::refused(&["--config", path], ""));
        if let Some((flag, spelled)) = row.flag {
            let value = spelled.unwrap_or(row.value.trim_matches('"'));
            // A classic flag applies to the classic preset only.
            let args: &[&str] = if row.key.starts_with("classic.") {
                &["--preset", "classic", flag, value]
            } else {
                &[flag, value]
            };
            check(flag, orogen_tests::refused(args, ""));
        }
    });
}

#[test]
fn every_bad_value_is_refused_by_the_playground() {
    for row in rows() {
        // The request's own `resolution` replaces the config's (tested in crates/orogen).
        if row.key == "export.resolution" {
            continue;
        }
        let value = json_of(&row.value).unwrap_or_else(|| serde_json::json!(u64::MAX));
        let body = serde_json::json!({ "config": nested(&row.key, value) });
        let err = orogen_playground::GenerateRequest::parse(body.to_string().as_bytes())
            .expect_err(&row.key);
        match &row.expect {
            // The parameter's own range comes first; the server's caps apply to what is in
            // range (crates/playground/tests/serve.rs).
            Expect::Range { param, allowed } if json_of(&row.value).is_some() => {
                assert!(err.contains(&format!("{param} = ")), "{}: {err}", row.key);
                assert!(err.contains(allowed), "{}: {err}", row.key);
            }
            Expect::Range { param, .. } => {
                assert!(err.contains(&format!("{param} = ")), "{}: {err}", row.key);
            }
            Expect::Type { hint } => assert!(err.contains(hint), "{}: {err}", row.key),
        }
    }
}

#[test]
fn requests_beyond_the_machine_are_refused_before_any_work() {
    // 10^10 cells and a 100,000^2 image, at each boundary.
    for (key, value, allowed) in [
        ("world.cells", "10000000000", "3 ..= 8000000"),
        ("export.resolution", "100000", "1 ..= 32768"),
    ] {
        let config = Config::from_toml(&format!("{key} = {value}"), "big.toml").unwrap();
        match config.validate() {
            Err(Error::Param(e)) => check_param_error(key, &e, key, allowed, value),
            other => panic!("{key}: {other:?}"),
        }
        orogen_tests::refused(&["--set", &format!("{key}={value}")], allowed);
    }
    // Within every range, but more than a 24 GiB machine holds: the estimate refuses it.
    let mut config = Config::default();
    config.world.cells = orogen::MAX_CELLS;
    config.export.resolution = 32_768;
    assert!(config.validate_params().is_ok());
    const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
    match config.check_memory(24.0 * GIB) {
        Err(e @ Error::Memory { .. }) => {
            assert!(e.is_invalid_input());
            assert!(e.to_string().contains("GiB of memory"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    // The default world fits in far less.
    assert!(Config::default().check_memory(GIB).is_ok());
}

/// The README's table of flags is `orogen params --markdown`, so it cannot drift from the code.
#[test]
fn the_readme_table_is_the_generated_one() {
    let generated = readme_block_is_generated("--markdown");
    assert_eq!(generated, orogen::params::markdown());
}

/// The README's table of presets is `orogen params --presets`: every preset, once, with a picture
/// that exists.
#[test]
fn the_readme_presets_are_the_generated_ones_each_with_its_picture() {
    let generated = readme_block_is_generated("--presets");
    assert_eq!(generated, orogen::presets::markdown());
    let root = orogen_tests::workspace_root();
    for preset in orogen::Preset::ALL {
        let name = preset.name();
        assert_eq!(
            generated.matches(&format!("| `{name}` |")).count(),
            1,
            "{name} is one row of the table"
        );
        let picture = root.join(format!("docs/images/preset-{name}.png"));
        let (w, h) = image::image_dimensions(&picture)
            .unwrap_or_else(|e| panic!("{}: {e}", picture.display()));
        assert!(w >= 256 && h >= 256, "{name}'s picture is {w} x {h}");
    }
}

/// The README block between `<!-- BEGIN orogen params FLAG -->` and its END marker is what
/// `orogen params FLAG` prints; returns that text.
fn readme_block_is_generated(flag: &str) -> String {
    let readme = std::fs::read_to_string(orogen_tests::workspace_root().join("README.md")).unwrap();
    let begin = format!("<!-- BEGIN orogen params {flag} -->\n");
    let end = format!("<!-- END orogen params {flag} -->");
    let start = readme.find(&begin).expect("the README marks its block") + begin.len();
    let stop = readme[start..].find(&end).expect("the block's end marker") + start;
    let out = orogen_tests::orogen(&["params", flag]);
    assert!(out.status.success());
    let generated = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        &readme[start..stop],
        generated,
        "README.md's block differs from `orogen params {flag}`: paste its output between the \
         markers"
    );
    generated
}
