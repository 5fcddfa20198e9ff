//! The runner: a printed config reproduces the run; help lists every parameter.

use orogen_tests::orogen;

fn files(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name() != "world.json")
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn a_printed_config_regenerates_the_same_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let flags = [
        "--seed",
        "77",
        "--cells",
        "3000",
        "--resolution",
        "192",
        "--water-level",
        "0.4",
        "--set",
        "elevation.fbm.gain=0.45",
        "--save-world",
    ];
    let printed = orogen(&[&["generate", "--print-config"][..], &flags].concat());
    assert!(
        printed.status.success(),
        "{}",
        String::from_utf8_lossy(&printed.stderr)
    );
    let toml_text = String::from_utf8(printed.stdout).unwrap();
    assert!(toml_text.contains("gain = 0.45"), "{toml_text}");
    let config_path = tmp.path().join("world.toml");
    std::fs::write(&config_path, &toml_text).unwrap();

    let a = tmp.path().join("from_flags");
    let b = tmp.path().join("from_config");
    let out = orogen(
        &[
            &["generate", "--quiet", "--out", a.to_str().unwrap()][..],
            &flags,
        ]
        .concat(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = orogen(&[
        "generate",
        "--quiet",
        "--config",
        config_path.to_str().unwrap(),
        "--out",
        b.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (fa, fb) = (files(&a), files(&b));
    assert!(
        fa.len() >= 3,
        "{:?}",
        fa.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    assert_eq!(fa, fb, "the printed config did not reproduce the run");
}

#[test]
fn params_lists_every_parameter_with_its_default() {
    let out = orogen(&["params"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let table = orogen::params::table();
    assert_eq!(text.lines().count(), table.len(), "{text}");
    for (line, row) in text.lines().zip(&table) {
        let start = format!("{} = {}", row.path, orogen::params::shown(&row.default));
        assert!(line.starts_with(&start), "`{line}` is not `{start}...`");
        assert!(
            line.contains(&row.allowed),
            "`{line}` lacks `{}`",
            row.allowed
        );
    }
    // The values are the config's own defaults.
    let water = text
        .lines()
        .find(|l| l.starts_with("world.water_level = "))
        .unwrap();
    assert!(
        water.starts_with("world.water_level = 0.35 (--water-level)"),
        "{water}"
    );
    let json = orogen(&["params", "--json"]);
    let parsed: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    // Compared through the same JSON text: serde_json's parser may round a long float's last
    // digit differently from the value it printed.
    let own: serde_json::Value =
        serde_json::from_str(&orogen::params::table_json().to_string()).unwrap();
    assert_eq!(parsed, own);
}

#[test]
fn profile_prints_figures_for_every_stage() {
    for stage in orogen::profile::profile_stages() {
        let out = orogen(&["profile", stage, "--cells", "1500", "--repeat", "2"]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stage}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let row = text
            .lines()
            .find(|l| l.starts_with(stage))
            .unwrap_or_else(|| panic!("{stage}: {text}"));
        let figures: Vec<f64> = row
            .split_whitespace()
            .skip(2)
            .map(|v| v.parse().unwrap())
            .collect();
        assert_eq!(figures.len(), 3, "{row}");
        // The erosion stage is off by default: it returns at once (0.00 ms is its honest time).
        let least = if stage == "erosion" {
            0.0
        } else {
            f64::MIN_POSITIVE
        };
        assert!(
            figures[0] >= least && figures[0] <= figures[1] && figures[1] <= figures[2],
            "{row}"
        );
    }
    let out = orogen(&["profile", "nonsense"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn every_preset_runs() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, _) in orogen::presets::PRESETS {
        let dir = tmp.path().join(name);
        // The classic preset has no cells (its heightmap has a size): --cells is refused there.
        let classic = *name == "classic";
        let cells: &[&str] = if classic { &[] } else { &["--cells", "2000"] };
        let out = orogen(
            &[
                &[
                    "generate",
                    "--quiet",
                    "--preset",
                    name,
                    "--resolution",
                    "128",
                    "--out",
                    dir.to_str().unwrap(),
                ][..],
                cells,
            ]
            .concat(),
        );
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let sidecar: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("world.json")).unwrap()).unwrap();
        let image = if *name == "classic" {
            "landscape.png"
        } else {
            "colormap.png"
        };
        assert!(dir.join(image).exists(), "{name} wrote no {image}");
        let used: orogen::Config = serde_json::from_value(sidecar["config"].clone()).unwrap();
        let mut expected = orogen::presets::preset(name).unwrap();
        if !classic {
            expected.world.cells = 2000;
        }
        expected.export.resolution = 128;
        assert_eq!(
            used, expected,
            "{name}: the run used another config than the preset's"
        );
    }
}

/// The names of the files in `dir`.
fn names(dir: &std::path::Path) -> std::collections::BTreeSet<String> {
    files(dir).into_iter().map(|(n, _)| n).collect()
}

#[test]
fn outputs_choose_the_files_and_do_not_change_them() {
    use orogen_tests::generated;
    let small = ["--cells", "2000", "--resolution", "96", "--seed", "5"];
    let with = |extra: &[&str]| generated(&[&small[..], extra].concat());
    let default = with(&[]);
    let default_names = names(default.path());
    for name in [
        "colormap.png",
        "heightmap.exr",
        "splat_forest.png",
        "preview3d.png",
    ] {
        assert!(default_names.contains(name), "{name}: {default_names:?}");
    }
    assert!(!default_names.contains("world.glb") && !default_names.contains("world.npz"));

    // Just the heightmap and the splat maps: byte for byte those of the default run.
    let chosen = with(&["--outputs", "heightmap,splat"]);
    let mut expected: std::collections::BTreeSet<String> = default_names
        .iter()
        .filter(|n| *n == "heightmap.png" || n.starts_with("splat_"))
        .cloned()
        .collect();
    assert_eq!(expected.len(), 8);
    assert_eq!(names(chosen.path()), expected);
    for (name, bytes) in files(chosen.path()) {
        assert_eq!(
            std::fs::read(default.path().join(&name)).unwrap(),
            bytes,
            "{name}"
        );
    }
    let sidecar: serde_json::Value =
        serde_json::from_slice(&std::fs::read(chosen.path().join("world.json")).unwrap()).unwrap();
    let listed: std::collections::BTreeSet<String> = sidecar["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_owned())
        .filter(|f| f != "world.json")
        .collect();
    assert_eq!(listed, expected, "world.json lists what was written");

    // The flags add to the list and take from it.
    let more = with(&["--glb", "--save-world", "--no-preview3d"]);
    expected = default_names.clone();
    expected.remove("preview3d.png");
    expected.extend(["world.glb".to_owned(), "world.npz".to_owned()]);
    assert_eq!(names(more.path()), expected);
    let all = with(&["--outputs", "all"]);
    let all_names = names(all.path());
    assert!(all_names.is_superset(&expected) && all_names.contains("world.geojson"));

    // The classic preset paints its landscape by default, and can save its world.
    let classic = generated(&["--preset", "classic", "--resolution", "96", "--save-world"]);
    assert_eq!(
        names(classic.path()),
        ["landscape.png", "world.npz"].map(str::to_owned).into()
    );
}

#[test]
fn a_terminal_gets_a_progress_bar_over_the_stages_and_a_pipe_gets_none() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let args = [
        "generate",
        "--cells",
        "2000",
        "--resolution",
        "64",
        "--out",
        out,
    ];
    // Piped: the summary line on stdout, nothing on stderr.
    let piped = orogen(&args);
    assert!(piped.status.success());
    assert!(
        piped.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&piped.stderr)
    );
    assert!(String::from_utf8_lossy(&piped.stdout).starts_with("wrote "));
    // On a terminal (util-linux `script` gives the run a pseudo-terminal).
    let script = std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_ok();
    if !orogen_world::testing::require(
        script,
        "the terminal half of the progress bar test",
        "`script` (util-linux) on PATH",
        "apt-get install util-linux",
    ) {
        return;
    }
    let line = format!(
        "{} {}",
        orogen_tests::orogen_bin().display(),
        args.join(" ")
    );
    let tty = std::process::Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .output()
        .unwrap();
    assert!(tty.status.success());
    let text = String::from_utf8_lossy(&tty.stdout);
    // Steps drawn: the bar redraws at most 20 times a second, so quick stages may pass
    // unseen, but the export (hundreds of milliseconds) is drawn by the steady tick.
    assert!(text.contains("[6/7] export"), "no export step in {text}");
    let quiet = std::process::Command::new("script")
        .args(["-qec", &format!("{line} --quiet"), "/dev/null"])
        .output()
        .unwrap();
    assert!(quiet.status.success());
    assert!(
        quiet.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&quiet.stdout)
    );
}

/// The option blocks of a help text: each `--flag` line with the lines up to the next flag.
fn option_blocks(help: &str) -> Vec<(String, String)> {
    let mut blocks: Vec<(String, String)> = Vec::new();
    for line in help.lines() {
        let trimmed = line.trim_start();
        let flag = trimmed
            .strip_prefix("-q, ")
            .or(trimmed.strip_prefix("-h, "))
            .unwrap_or(trimmed);
        if flag.starts_with("--") {
            let name = flag.split_whitespace().next().unwrap().to_owned();
            blocks.push((name, line.to_owned()));
        } else if let Some(last) = blocks.last_mut()
            && !trimmed.is_empty()
            && line.starts_with("  ")
        {
            last.1.push(' ');
            last.1.push_str(trimmed);
        }
    }
    blocks
}

/// The help block of `flag` in a help text.
fn block<'a>(blocks: &'a [(String, String)], flag: &str) -> &'a str {
    &blocks
        .iter()
        .find(|(f, _)| f == flag)
        .unwrap_or_else(|| panic!("{flag} not in the help"))
        .1
}

#[test]
fn every_parameter_flag_shows_the_tables_default_and_range() {
    let table = orogen::params::table();
    for (sub, export_only) in [("generate", false), ("export", true)] {
        let help = orogen(&[sub, "--help"]);
        assert!(help.status.success(), "{sub}");
        let blocks = option_blocks(&String::from_utf8(help.stdout).unwrap());
        let mut checked = 0;
        for &(path, flag) in orogen::params::FLAGS {
            let row = table.iter().find(|r| r.path == path).unwrap();
            if export_only && row.section() != "export" {
                continue;
            }
            let text = block(&blocks, flag);
            let default = format!("[default: {}]", orogen::params::shown(&row.default));
            assert!(
                text.contains(&default),
                "{sub} {flag}: `{text}` lacks `{default}`"
            );
            let values = match row.choices {
                Some(choices) => format!("[possible values: {}]", choices.join(", ")),
                None => format!("[range: {}]", row.allowed),
            };
            assert!(
                text.contains(&values),
                "{sub} {flag}: `{text}` lacks `{values}`"
            );
            checked += 1;
        }
        assert!(checked >= 7, "{sub}: {checked} flags");
    }
    // The values are the config's: a few spelled out.
    let help = String::from_utf8(orogen(&["generate", "--help"]).stdout).unwrap();
    let blocks = option_blocks(&help);
    for (flag, shown) in [
        ("--cells", "[default: 50000] [range: 3 ..= 8000000]"),
        ("--water-level", "[default: 0.35] [range: 0 ..= 1]"),
        ("--river-spacing", "[default: 3.0] [range: 0 ..= 1000]"),
        ("--noise", "[default: perlin]"),
    ] {
        let text = block(&blocks, flag);
        assert!(text.contains(shown), "{flag}: `{text}` lacks `{shown}`");
    }
    // The other commands' defaults are the library's.
    let render = orogen::render3d::Render3d::default();
    let help = String::from_utf8(orogen(&["render3d", "--help"]).stdout).unwrap();
    let blocks = option_blocks(&help);
    for (flag, value) in [
        ("--samples", render.samples.to_string()),
        ("--width", render.width.to_string()),
        ("--height", render.height.to_string()),
        ("--exaggeration", render.exaggeration.to_string()),
    ] {
        let text = block(&blocks, flag);
        assert!(
            text.contains(&format!("[default: {value}]")),
            "render3d {flag}: `{text}`"
        );
    }
    let help = String::from_utf8(orogen(&["profile", "--help"]).stdout).unwrap();
    let blocks = option_blocks(&help);
    let cells = orogen::Config::default().world.cells;
    assert!(block(&blocks, "--cells").contains(&format!("[default: {cells}]")));
    for sub in [
        &["dem", "fill"][..],
        &["dem", "d8"],
        &["dem", "erode"],
        &["serve"],
        &[],
    ] {
        let help = orogen(&[sub, &["--help"]].concat());
        assert!(help.status.success(), "{sub:?}");
    }
}

#[test]
fn timings_print_every_stage_the_export_and_the_peak_memory() {
    // Every stage runs (the default outputs show trees), flora beside the export.
    let dir = tempfile::tempdir().unwrap();
    let out = orogen(&[
        "generate",
        "--quiet",
        "--timings",
        "--cells",
        "2000",
        "--resolution",
        "64",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let ms = |name: &str| -> f64 {
        let row = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no {name} row in {text}"));
        row.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    let steps: Vec<f64> = orogen::STAGES
        .iter()
        .chain(&["export"])
        .map(|s| ms(s))
        .collect();
    assert!(steps.iter().all(|&t| t >= 0.0), "{text}");
    // The flora stage runs beside the export (its time is within the export's): not added.
    let beside: Vec<&str> = text
        .lines()
        .filter(|l| l.ends_with("(beside the export)"))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(beside, ["flora"], "{text}");
    let sum: f64 = orogen::STAGES
        .iter()
        .chain(&["export"])
        .zip(&steps)
        .filter(|(s, _)| !beside.contains(s))
        .map(|(_, t)| t)
        .sum();
    // The rows are rounded to 0.1 ms each.
    assert!(
        (ms("total") - sum).abs() <= 0.05 * steps.len() as f64 + 1e-9,
        "{text}"
    );
    let peak = text
        .lines()
        .find_map(|l| l.strip_prefix("peak memory"))
        .unwrap_or_else(|| panic!("no peak memory in {text}"));
    let mib: f64 = peak.trim().trim_end_matches("MiB").trim().parse().unwrap();
    assert!(mib > 1.0 && mib < 4096.0, "{text}");
}

/// Each stage run again on a saved world (`world.npz` read back) writes the same bytes: no
/// stage reads what it wrote itself (the hydrology stage keeps its lakes out of
/// `region_water`), so a world can be re-run stage by stage, as `orogen profile` does.
#[test]
fn every_stage_run_again_on_a_saved_world_gives_the_same_bytes() {
    let npz = |world: &orogen_world::World| {
        let mut bytes = Vec::new();
        world.write_npz(&mut bytes, "{}").unwrap();
        bytes
    };
    let mut config = orogen::Config::default();
    config.world.cells = 3000;
    config.world.seed = 11;
    let world = orogen::generate(&config).unwrap();
    assert!(
        world
            .view1::<i32>("region_lake")
            .unwrap()
            .iter()
            .any(|&l| l >= 0),
        "the test world has no lake to re-read"
    );
    let saved = npz(&world);
    let (read, _) = orogen_world::World::read_npz(&saved[..]).unwrap();
    for stage in orogen::STAGES {
        let mut again = read.clone();
        orogen::run_stage(stage, &mut again, &config).unwrap();
        if *stage == "mesh" {
            // A new mesh drops the layers of the old one: the mesh itself is the same.
            assert!(
                again.mesh().unwrap() == read.mesh().unwrap(),
                "mesh run again"
            );
            continue;
        }
        assert!(npz(&again) == saved, "{stage} run again changed the world");
    }
    // Running the stage twice in a row changes nothing either.
    let mut twice = read.clone();
    orogen::run_stage("hydrology", &mut twice, &config).unwrap();
    orogen::run_stage("hydrology", &mut twice, &config).unwrap();
    assert!(npz(&twice) == saved, "hydrology twice changed the world");
}
