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
fn help_lists_every_parameter_with_its_default() {
    let help = orogen(&["generate", "--help"]);
    assert!(help.status.success());
    let text = String::from_utf8(help.stdout).unwrap();
    for (key, value) in orogen::Config::default().parameter_list() {
        let shown = value.chars().take(57).collect::<String>();
        assert!(
            text.contains(&format!("{key} = {shown}")),
            "help does not list {key} = {value}"
        );
    }
    // The named flags show their default and range.
    for flag in ["--seed", "--cells", "--water-level", "--resolution"] {
        let line = text
            .lines()
            .position(|l| l.trim_start().starts_with(flag))
            .unwrap_or_else(|| panic!("{flag}"));
        let block: String = text.lines().skip(line).take(4).collect();
        assert!(
            block.contains("default"),
            "{flag} lacks its default: {block}"
        );
    }
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
        assert!(
            figures[0] > 0.0 && figures[0] <= figures[1] && figures[1] <= figures[2],
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
        let out = orogen(&[
            "generate",
            "--quiet",
            "--preset",
            name,
            "--cells",
            "2000",
            "--resolution",
            "128",
            "--out",
            dir.to_str().unwrap(),
        ]);
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
        expected.world.cells = 2000;
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
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("\n*** SKIPPED the terminal half: no `script` (util-linux) on PATH ***\n");
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
    assert!(text.contains("[5/6] export"), "no export step in {text}");
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

#[test]
fn every_subcommand_gives_each_option_its_default_and_range() {
    let subcommands: [&[&str]; 10] = [
        &["generate"],
        &["export"],
        &["dem", "fill"],
        &["dem", "d8"],
        &["dem", "accumulate"],
        &["dem", "erode"],
        &["profile"],
        &["serve"],
        &["render3d"],
        &[],
    ];
    let mut checked = 0;
    for sub in subcommands {
        let help = orogen(&[sub, &["--help"]].concat());
        assert!(help.status.success(), "{sub:?}");
        let text = String::from_utf8(help.stdout).unwrap();
        let usage = text.lines().find(|l| l.starts_with("Usage:")).unwrap_or("");
        for (flag, block) in option_blocks(&text) {
            if matches!(flag.as_str(), "--help" | "--version") {
                continue;
            }
            // A required option (`--world` of `orogen export`) has no default.
            let required = usage.contains(&format!(" {flag} <"));
            let defaults = block.matches("[default:").count();
            assert_eq!(
                defaults,
                usize::from(!required),
                "{sub:?} {flag}: {defaults} defaults in `{block}`"
            );
            // An option whose default is a number states its range.
            let default = block
                .split("[default: ")
                .nth(1)
                .and_then(|rest| rest.split(']').next())
                .unwrap_or("");
            if block.contains('<') && default.parse::<f64>().is_ok() {
                assert!(
                    block.contains("[range:"),
                    "{sub:?} {flag}: no range in `{block}`"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 60, "only {checked} options seen");
}

#[test]
fn timings_print_every_stage_the_export_and_the_peak_memory() {
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
    let sum: f64 = steps.iter().sum();
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
