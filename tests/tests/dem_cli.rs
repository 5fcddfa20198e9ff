//! `orogen dem`: the shared reference DEM through the command line, and refusals of bad input.

use std::path::{Path, PathBuf};

use orogen_tests::{orogen, workspace_root};

/// `../shared/data/dem` beside the repository, or `None` (loudly) when it is absent.
fn data_dir() -> Option<PathBuf> {
    let dir = workspace_root().join("../shared/data/dem");
    if dir.join("jacksboro_fault_dem.npy").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "\n!!!!!!!! SKIPPED: reference DEM data not found at {} !!!!!!!!\n",
            dir.display()
        );
        None
    }
}

fn run_ok(args: &[&str]) {
    let out = orogen(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The command exits with 2 and one line that mentions `needle`, writing nothing.
fn refused(args: &[&str], output: &Path, needle: &str) {
    let out = orogen(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{args:?}: {stderr}");
    assert!(
        stderr.contains(needle),
        "{args:?}: `{stderr}` lacks `{needle}`"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!output.exists(), "{args:?} wrote {}", output.display());
}

/// The data bytes of a `.npy` file (after its header), as written by NumPy or by orogen.
fn npy_data(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    assert!(
        bytes.starts_with(b"\x93NUMPY\x01\x00"),
        "{}",
        path.display()
    );
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    bytes[10 + header_len..].to_vec()
}

fn npy_header(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    String::from_utf8_lossy(&bytes[10..10 + header_len]).into_owned()
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn the_reference_dem_round_trips_through_fill_d8_and_accumulate() {
    let Some(data) = data_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let reference = |suffix: &str| data.join(format!("jacksboro_fault_dem{suffix}.npy"));

    let filled = dir.path().join("filled.npy");
    run_ok(&["dem", "fill", s(&reference("")), s(&filled)]);
    assert!(npy_header(&filled).contains("'<f4'"));
    assert!(npy_header(&filled).contains("(344, 403)"));
    assert_eq!(npy_data(&filled), npy_data(&reference(".filled")));

    let d8 = dir.path().join("d8.npy");
    run_ok(&["dem", "d8", s(&reference(".eps")), s(&d8)]);
    assert!(npy_header(&d8).contains("'|i1'"));
    assert_eq!(npy_data(&d8), npy_data(&reference(".d8s")));

    // From the receivers the command just wrote, and from the epsilon DEM directly.
    let acc = dir.path().join("acc.npy");
    run_ok(&["dem", "accumulate", s(&d8), s(&acc)]);
    assert!(npy_header(&acc).contains("'<f8'"));
    assert_eq!(npy_data(&acc), npy_data(&reference(".facc_s")));
    let acc_dem = dir.path().join("acc_dem.npy");
    run_ok(&["dem", "accumulate", s(&reference(".eps")), s(&acc_dem)]);
    assert_eq!(npy_data(&acc_dem), npy_data(&reference(".facc_s")));

    // The epsilon fill, then D8 on it: every interior cell gets a receiver.
    let eps = dir.path().join("eps.npy");
    let eps_d8 = dir.path().join("eps_d8.npy");
    run_ok(&["dem", "fill", "--epsilon", s(&reference("")), s(&eps)]);
    run_ok(&["dem", "d8", s(&eps), s(&eps_d8)]);
    let codes = npy_data(&eps_d8);
    let (rows, cols) = (344, 403);
    let interior_sinks = (1..rows - 1)
        .flat_map(|r| (1..cols - 1).map(move |c| (r, c)))
        .filter(|&(r, c)| codes[r * cols + c] == 0)
        .count();
    assert_eq!(interior_sinks, 0);
}

#[test]
fn a_16_bit_png_heightmap_fills_to_a_png() {
    let dir = tempfile::tempdir().unwrap();
    // A 16-bit heightmap: a dome falling to the edges with a pit at its top, written by
    // orogen's own PNG encoder.
    let heights = ndarray::Array2::from_shape_fn((9, 9), |(r, c)| {
        if (r, c) == (4, 4) {
            100u16
        } else {
            2000 - 10 * (r.abs_diff(4) + c.abs_diff(4)) as u16
        }
    });
    let input = dir.path().join("height.png");
    orogen_export::atomic::write_atomic(&input, |w| {
        orogen_export::png::write_gray16(w, heights.view())
    })
    .unwrap();
    let out = dir.path().join("filled.npy");
    run_ok(&["dem", "fill", s(&input), s(&out)]);
    let data = npy_data(&out);
    let value = |i: usize| f32::from_le_bytes(data[4 * i..4 * i + 4].try_into().unwrap());
    assert_eq!(
        value(4 * 9 + 4),
        1980.0,
        "the pit fills to its lowest (diagonal) neighbour"
    );
    assert_eq!(value(4 * 9 + 3), 1990.0);
    assert_eq!(value(0), 1920.0);
    let png_out = dir.path().join("filled.png");
    run_ok(&["dem", "fill", s(&input), s(&png_out)]);
    assert!(std::fs::read(&png_out).unwrap().starts_with(b"\x89PNG"));
    refused(
        &[
            "dem",
            "fill",
            "--epsilon",
            s(&input),
            s(&dir.path().join("e.png")),
        ],
        &dir.path().join("e.png"),
        "write .npy",
    );
}

/// A `.npy` file with the given dtype, shape (a Python tuple) and data bytes.
fn npy_file(path: &Path, descr: &str, shape: &str, data: &[u8]) {
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    let mut header = dict.into_bytes();
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(b' ');
    }
    header.push(b'\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(&header);
    bytes.extend_from_slice(data);
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn bad_inputs_are_refused_with_one_line_and_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let out = p("out.npy");

    npy_file(&p("cube.npy"), "<f4", "(2, 3, 4)", &[0; 96]);
    for command in ["fill", "d8", "accumulate"] {
        refused(
            &["dem", command, s(&p("cube.npy")), s(&out)],
            &out,
            "3-D array",
        );
    }
    // A header that promises far more data than the file holds: refused before allocating.
    npy_file(&p("huge.npy"), "<f4", "(100000, 100000)", &[0; 64]);
    refused(
        &["dem", "fill", s(&p("huge.npy")), s(&out)],
        &out,
        "truncated",
    );
    // A real file cut short.
    npy_file(&p("cut.npy"), "<f4", "(10, 10)", &[0; 400]);
    let bytes = std::fs::read(p("cut.npy")).unwrap();
    std::fs::write(p("cut.npy"), &bytes[..bytes.len() - 7]).unwrap();
    refused(&["dem", "d8", s(&p("cut.npy")), s(&out)], &out, "truncated");
    std::fs::write(p("stub.npy"), &bytes[..12]).unwrap();
    refused(&["dem", "fill", s(&p("stub.npy")), s(&out)], &out, "header");

    npy_file(&p("complex.npy"), "<c8", "(2, 2)", &[0; 32]);
    refused(
        &["dem", "fill", s(&p("complex.npy")), s(&out)],
        &out,
        "dtype",
    );
    std::fs::write(p("text.npy"), "not an array").unwrap();
    refused(
        &["dem", "fill", s(&p("text.npy")), s(&out)],
        &out,
        "not a .npy",
    );
    refused(
        &["dem", "fill", s(&p("missing.npy")), s(&out)],
        &out,
        "missing.npy",
    );

    // Receivers that leave the grid or loop are not a drainage network.
    npy_file(&p("off.npy"), "|i1", "(2, 2)", &[1, 0, 0, 0]);
    refused(
        &["dem", "accumulate", s(&p("off.npy")), s(&out)],
        &out,
        "row 0, column 0",
    );
    npy_file(&p("loop.npy"), "|i1", "(2, 3)", &[5, 1, 0, 0, 0, 0]);
    refused(
        &["dem", "accumulate", s(&p("loop.npy")), s(&out)],
        &out,
        "cycle",
    );
    refused(
        &["dem", "fill", s(&p("loop.npy")), s(&out)],
        &out,
        "needs elevations",
    );

    // Outputs: an unknown extension, and accumulation to PNG.
    npy_file(&p("ok.npy"), "<f4", "(2, 2)", &[0; 16]);
    let odd = p("out.tif");
    refused(
        &["dem", "fill", s(&p("ok.npy")), s(&odd)],
        &odd,
        ".npy or .png",
    );
    let png = p("acc.png");
    refused(
        &["dem", "accumulate", s(&p("ok.npy")), s(&png)],
        &png,
        "write .npy",
    );
}
