//! The command line: invalid input refused before any work with exit code 2 and one line.

use orogen_tests::{generated, one_line, refused};

#[test]
fn invalid_parameters_are_refused_with_the_allowed_range() {
    one_line(&refused(
        &["--cells", "0"],
        "world.cells = 0 is out of range: allowed 3 ..= 8000000",
    ));
    one_line(&refused(
        &["--cells", "1000000000000"],
        "allowed 3 ..= 8000000",
    ));
    one_line(&refused(&["--size", "NaN"], "world.width = NaN"));
    one_line(&refused(
        &["--water-level", "7"],
        "world.water_level = 7 is out of range: allowed 0 ..= 1",
    ));
    one_line(&refused(&["--resolution", "0"], "export.resolution = 0"));
    one_line(&refused(
        &["--cells", "8000000", "--resolution", "32768"],
        "GiB of memory",
    ));
}

#[test]
fn a_generated_world_writes_its_sidecar_and_world_file() {
    let dir = generated(&["--cells", "200", "--save-world"]);
    let sidecar: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("world.json")).unwrap()).unwrap();
    assert_eq!(sidecar["seed"], 123);
    assert_eq!(sidecar["config"]["world"]["cells"], 200);
    assert!(
        sidecar["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "world.npz")
    );
    let bytes = std::fs::read(dir.path().join("world.npz")).unwrap();
    let (world, config) = orogen_world::World::read_npz(&bytes[..]).unwrap();
    assert_eq!(world.meta.seed, 123);
    assert!(config.contains("\"cells\":200"), "{config}");
}

// --- mesh stage (issue 3) ---

#[test]
fn mesh_flags_are_checked_and_mesh_png_is_written() {
    refused(
        &["--lloyd-iterations", "1000"],
        "mesh.lloyd_iterations = 1000 is out of range: allowed 0 ..= 100",
    );
    let dir = generated(&[
        "--cells",
        "300",
        "--lloyd-iterations",
        "2",
        "--sampler",
        "poisson",
        "--resolution",
        "128",
    ]);
    let png = std::fs::read(dir.path().join("mesh.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let sidecar = std::fs::read_to_string(dir.path().join("world.json")).unwrap();
    assert!(sidecar.contains("mesh.png"), "{sidecar}");
    assert!(sidecar.contains("poisson"), "{sidecar}");
}

#[test]
fn river_flags_are_checked_and_rivers_png_is_written() {
    refused(
        &["--min-lake-regions", "0"],
        "hydrology.min_lake_regions = 0 is out of range: allowed 1 ..= 100000000",
    );
    refused(
        &["--river-spacing", "-1"],
        "hydrology.selection.main.spacing = -1 is out of range: allowed 0 ..= 1000",
    );
    // A bad choice is a clap usage error (exit 2, with clap's usage hint on further lines).
    refused(
        &["--depressions", "drain"],
        "[possible values: fill, carve]",
    );
    let dir = generated(&[
        "--cells",
        "3000",
        "--depressions",
        "carve",
        "--resolution",
        "128",
    ]);
    let png = std::fs::read(dir.path().join("rivers.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let sidecar = std::fs::read_to_string(dir.path().join("world.json")).unwrap();
    assert!(sidecar.contains("rivers.png"), "{sidecar}");
    assert!(sidecar.contains("carve"), "{sidecar}");
}

#[test]
fn an_internal_failure_exits_1_with_one_line() {
    // An output folder that cannot be created: not the user's parameters, the machine's refusal.
    let blocker = tempfile::NamedTempFile::new().unwrap();
    let out = blocker.path().join("out");
    let run = orogen_tests::orogen(&[
        "generate",
        "--cells",
        "200",
        "--resolution",
        "32",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    orogen_tests::one_line(&stderr);
    assert!(stderr.contains(out.to_str().unwrap()), "{stderr}");
}

/// A flag that does not apply to the preset or layout is refused (exit 2, one line saying why
/// and what it applies to), not silently ignored.
#[test]
fn flags_that_do_not_apply_are_refused() {
    for (args, needle) in [
        (
            &["--classic-rivers", "3"][..],
            "--classic-rivers: applies to the classic pipeline (--preset classic), not to preset \
             default",
        ),
        (
            &["--preset", "classic", "--engine", "unity"],
            "--engine: applies to the mesh pipeline (every preset but classic), not to preset \
             classic",
        ),
        (
            &["--preset", "classic", "--hillshade", "2"],
            "--hillshade: applies to the mesh pipeline",
        ),
        (
            &["--preset", "classic", "--cells", "500"],
            "--cells: applies to the mesh pipeline",
        ),
        (
            &["--anchors", "0.2,0.2", "--layout", "random"],
            "--anchors: applies to --layout custom, not to --layout random",
        ),
        (
            &["--land-centers", "3", "--layout", "cross"],
            "--land-centers: applies to --layout random, not to --layout cross",
        ),
        (
            &["--preset", "archipelago", "--land-centers", "3"],
            "--land-centers: applies to --layout random, not to --layout archipelago-ring",
        ),
    ] {
        one_line(&refused(args, needle));
    }
    // What does apply runs: classic knobs on the classic preset, anchors with custom.
    generated(&[
        "--preset",
        "classic",
        "--classic-rivers",
        "3",
        "--classic-size",
        "65",
        "--resolution",
        "64",
    ]);
}

/// Errors name the thing the user gave, and user errors exit 2 in every command.
#[test]
fn errors_name_what_the_user_gave() {
    let expect = |args: &[&str], needle: &str| {
        let out = orogen_tests::orogen(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(needle),
            "{args:?}: `{stderr}` lacks `{needle}`"
        );
        one_line(&stderr);
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    expect(
        &["export", "--world", "nosuch.npz", "--out", out],
        "error: world file nosuch.npz: not found",
    );
    expect(
        &["generate", "--config", "nosuch.toml", "--out", out],
        "error: config file nosuch.toml: not found",
    );
    expect(
        &["profile", "elevation", "--world", "nosuch.npz"],
        "error: world file nosuch.npz: not found",
    );
    expect(
        &["profile"],
        "the following required arguments were not provided: <STAGE>",
    );
    // A classic world cannot be profiled stage by stage: the user's mistake, exit 2.
    let classic = generated(&["--preset", "classic", "--resolution", "64", "--save-world"]);
    let world = classic.path().join("world.npz");
    expect(
        &["profile", "elevation", "--world", world.to_str().unwrap()],
        "made by the classic pipeline (preset classic)",
    );
    expect(
        &["profile", "mesh", "--preset", "classic"],
        "error: --preset: classic runs the classic pipeline",
    );
}

/// `profile erosion` says when it would time nothing (erosion off, the default) or an eroded
/// surface (a world saved after its erosion), and `--preset eroded` times the stage as a run
/// has it, silently.
#[test]
fn profiling_erosion_names_what_it_times() {
    let profile = |args: &[&str]| {
        let mut all = vec!["profile", "erosion", "--cells", "2000", "--repeat", "1"];
        all.extend_from_slice(args);
        let out = orogen_tests::orogen(&all);
        assert!(out.status.success(), "{all:?}: {out:?}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(stdout.contains("\nerosion "), "{stdout}");
        String::from_utf8(out.stderr).unwrap()
    };
    assert!(profile(&[]).contains("warning: erosion is off in preset default"));
    assert_eq!(profile(&["--preset", "eroded"]), "");
    let eroded = generated(&[
        "--preset",
        "eroded",
        "--cells",
        "2000",
        "--resolution",
        "64",
        "--save-world",
    ]);
    let world = eroded.path().join("world.npz");
    let out = orogen_tests::orogen(&[
        "profile",
        "erosion",
        "--world",
        world.to_str().unwrap(),
        "--repeat",
        "1",
    ]);
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("was saved after its erosion stage"),
        "{stderr}"
    );
}

/// A run owns the orogen files of its folder: a later run removes what the earlier one listed
/// and it does not write, and leaves every other file alone.
#[test]
fn a_run_removes_the_previous_runs_files_and_nothing_else() {
    let dir = generated(&["--cells", "500", "--resolution", "64"]);
    assert!(dir.path().join("colormap.png").is_file());
    std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
    let out = orogen_tests::orogen(&[
        "generate",
        "--out",
        dir.path().to_str().unwrap(),
        "--preset",
        "classic",
        "--resolution",
        "64",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("removed 15 files of the previous run"),
        "{stdout}"
    );
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["landscape.png", "notes.txt", "world.json"]);
    assert_eq!(
        std::fs::read(dir.path().join("notes.txt")).unwrap(),
        b"mine"
    );
}
