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
        "rivers.min_lake_regions = 0 is out of range: allowed 1 ..= 100000000",
    );
    refused(
        &["--river-spacing", "-1"],
        "rivers.selection.main.spacing = -1 is out of range: allowed 0 ..= 1000",
    );
    // A bad choice is a clap usage error (exit 2, with clap's usage hint on further lines).
    refused(&["--depressions", "drain"], "expected fill or carve");
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
