//! The elevation flags on the command line: bad values refused before any work, with the range.

use orogen_tests::orogen;

fn refused(args: &[&str], needle: &str) {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let mut all = vec!["generate", "--out", out_dir.to_str().unwrap()];
    all.extend_from_slice(args);
    let out = orogen(&all);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(
        stderr.contains(needle),
        "{args:?}: `{stderr}` does not mention `{needle}`"
    );
    assert!(
        !out_dir.exists(),
        "{args:?}: work was done before the refusal"
    );
}

#[test]
fn bad_elevation_values_are_refused_with_the_allowed_range() {
    refused(
        &["--anchors", "0.2,0.2;1.5,0.5"],
        "anchors[1].x = 1.5 is out of range: allowed 0 ..= 1",
    );
    // The map's own size bounds the anchors.
    refused(
        &["--size", "2x1", "--anchors", "1.5,1.5"],
        "anchors[0].y = 1.5 is out of range: allowed 0 ..= 1",
    );
    refused(
        &["--octaves", "0"],
        "octaves = 0 is out of range: allowed 1 ..= 16",
    );
    refused(
        &["--noise-scale", "NaN"],
        "noise_scale = NaN is out of range: allowed 0.01 ..= 1000",
    );
    refused(
        &["--water-level", "7"],
        "water_level = 7 is out of range: allowed 0 ..= 1",
    );
    refused(
        &["--gain", "-1"],
        "gain = -1 is out of range: allowed 0 ..= 1",
    );
    refused(&["--land-centers", "0"], "land_centers = 0");
    refused(&["--layout", "atlantis"], "four-corners");
    refused(&["--anchors", "0.5"], "expected x,y");
    refused(&["--layout", "custom"], "anchors = none");
}
