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
    // A fill keeps the input's integer type: 16-bit in, 16-bit out.
    let value = |i: usize| u16::from_le_bytes(data[2 * i..2 * i + 2].try_into().unwrap());
    assert_eq!(
        value(4 * 9 + 4),
        1980,
        "the pit fills to its lowest (diagonal) neighbour"
    );
    assert_eq!(value(4 * 9 + 3), 1990);
    assert_eq!(value(0), 1920);
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
    std::fs::write(
        path,
        orogen_world::testing::npy_bytes(descr, false, shape, data),
    )
    .unwrap();
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
    let odd = p("out.xyz");
    refused(
        &["dem", "fill", s(&p("ok.npy")), s(&odd)],
        &odd,
        ".npy, .png or .tif",
    );
    let png = p("acc.png");
    refused(
        &["dem", "accumulate", s(&p("ok.npy")), s(&png)],
        &png,
        "write .npy",
    );
}

/// Issue 26: a 33-byte `.npy` whose version-3 header announces 0xffffff93 bytes made the reader
/// allocate 4 GiB before reading it; under a 1 GB address-space limit that aborted (exit 134).
/// It must be refused with one line and exit 2 before allocating anything of that size.
#[test]
fn a_lying_npy_header_is_refused_under_a_1_gb_address_space_limit() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("lie.npy");
    let mut bytes = b"\x93NUMPY\x03\x00\x93".to_vec();
    bytes.extend([0xff; 18]);
    bytes.extend(b"NUMPYe");
    assert_eq!(bytes.len(), 33);
    std::fs::write(&input, &bytes).unwrap();
    let output = dir.path().join("out.npy");
    let bin = orogen_tests::orogen_bin();
    for command in ["fill", "d8", "accumulate"] {
        let out = std::process::Command::new("sh")
            .args(["-c", "ulimit -v 1000000 && exec \"$0\" \"$@\""])
            .arg(&bin)
            .args(["dem", command, s(&input), s(&output)])
            .output()
            .expect("sh runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains("header claims 4294967187 bytes"),
            "{stderr}"
        );
        assert!(!output.exists());
    }
}

/// GDAL's Python bindings, or `None` (loudly; a failure under CI) when they are missing.
fn gdal_python() -> Option<()> {
    let ok = std::process::Command::new(GDAL_PYTHON)
        .args(["-c", "from osgeo import gdal_array"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return Some(());
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "GDAL's Python bindings are missing: apt-get install gdal-bin python3-gdal"
    );
    eprintln!(
        "\n!!!!!!!! SKIPPED: no GDAL Python bindings (apt-get install gdal-bin python3-gdal) !!!!!!!!\n"
    );
    None
}

/// Debian's Python, which `python3-gdal` installs into (a `python3` earlier on PATH may lack it).
const GDAL_PYTHON: &str = "/usr/bin/python3";

fn python(script: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(GDAL_PYTHON)
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "python: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Writes the reference DEM as GeoTIFFs with GDAL (a NoData hole, UTM georeferencing): int16
/// tiled Deflate, float32 striped LZW, float32 tiled LZW with the floating-point predictor, and
/// int16 tiled LZW big-endian with horizontal differencing (whose tiles the `tiff` crate 0.11
/// refuses, "no lzw end code found", image-tiff issue 395: orogen decodes them itself).
const MAKE_TIFFS: &str = r#"
import sys, numpy as np
from osgeo import gdal, osr
dem = np.load(sys.argv[1])
dem[100:140, 150:230] = -32768
srs = osr.SpatialReference(); srs.ImportFromEPSG(32616)
def make(path, dtype, gdt, options):
    ds = gdal.GetDriverByName('GTiff').Create(path, dem.shape[1], dem.shape[0], 1, gdt, options)
    ds.SetGeoTransform((500000.0, 90.0, 0.0, 4000000.0, 0.0, -90.0))
    ds.SetProjection(srs.ExportToWkt())
    band = ds.GetRasterBand(1)
    band.SetNoDataValue(-32768)
    band.WriteArray(dem.astype(dtype))
    ds = None
make(sys.argv[2], np.int16, gdal.GDT_Int16, ['TILED=YES', 'BLOCKXSIZE=64', 'BLOCKYSIZE=64', 'COMPRESS=DEFLATE'])
make(sys.argv[3], np.float32, gdal.GDT_Float32, ['COMPRESS=LZW', 'BLOCKYSIZE=16'])
make(sys.argv[4], np.float32, gdal.GDT_Float32, ['TILED=YES', 'BLOCKXSIZE=64', 'BLOCKYSIZE=64', 'COMPRESS=LZW', 'PREDICTOR=3'])
make(sys.argv[5], np.int16, gdal.GDT_Int16, ['TILED=YES', 'BLOCKXSIZE=64', 'BLOCKYSIZE=64', 'COMPRESS=LZW', 'PREDICTOR=2', 'ENDIANNESS=BIG'])
"#;

/// Prints a GeoTIFF as GDAL reads it: geotransform, projection, NoData, data type, and the
/// pixels to a .npy.
const DESCRIBE: &str = r#"
import sys, numpy as np
from osgeo import gdal
ds = gdal.Open(sys.argv[1])
band = ds.GetRasterBand(1)
print(ds.GetGeoTransform())
print(ds.GetProjection())
print(band.GetNoDataValue())
print(gdal.GetDataTypeName(band.DataType))
np.save(sys.argv[2], band.ReadAsArray())
"#;

#[test]
fn geotiffs_fill_with_their_georeferencing_and_nodata_as_gdal_reads_them() {
    let Some(data) = data_dir() else { return };
    let Some(()) = gdal_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    python(
        MAKE_TIFFS,
        &[
            s(&data.join("jacksboro_fault_dem.npy")),
            s(&p("i16.tif")),
            s(&p("f32.tif")),
            s(&p("f32_tiled_lzw.tif")),
            s(&p("i16_tiled_lzw.tif")),
        ],
    );
    // The same DEM as a float32 .npy with NaN for NoData: its fill is what both must match.
    let mut dem: ndarray::Array2<f32> =
        ndarray_npy::read_npy(data.join("jacksboro_fault_dem.npy")).unwrap();
    orogen_hydrology::raster::tiled::window_mut(dem.view_mut(), (100, 150), (40, 80))
        .fill(f32::NAN);
    ndarray_npy::write_npy(p("holed.npy"), &dem).unwrap();
    run_ok(&["dem", "fill", s(&p("holed.npy")), s(&p("holed_filled.npy"))]);
    let expected: ndarray::Array2<f32> = ndarray_npy::read_npy(p("holed_filled.npy")).unwrap();
    assert!(expected.iter().zip(&dem).any(|(f, d)| f > d));

    let describe_input = python(DESCRIBE, &[s(&p("i16.tif")), s(&p("in.npy"))]);
    for (input, dtype) in [
        ("i16.tif", "Int16"),
        ("f32.tif", "Float32"),
        ("f32_tiled_lzw.tif", "Float32"),
        ("i16_tiled_lzw.tif", "Int16"),
    ] {
        for tile in ["1024", "50"] {
            let out = p(&format!("filled_{tile}_{input}"));
            let stdout = orogen(&["dem", "fill", "--tile", tile, s(&p(input)), s(&out)]);
            assert!(
                stdout.status.success(),
                "{}",
                String::from_utf8_lossy(&stdout.stderr)
            );
            let described = python(DESCRIBE, &[s(&out), s(&p("out.npy"))]);
            let lines: Vec<&str> = described.lines().collect();
            let input_lines: Vec<&str> = describe_input.lines().collect();
            assert_eq!(
                lines[..3],
                input_lines[..3],
                "geotransform, projection, NoData"
            );
            assert!(lines[0].starts_with("(500000.0, 90.0"), "{described}");
            assert!(lines[1].contains("UTM zone 16N"), "{described}");
            assert_eq!(lines[2], "-32768.0");
            assert_eq!(lines[3], dtype, "the input's type is kept");
            let pixels: ndarray::Array2<f64> = match dtype {
                "Int16" => ndarray_npy::read_npy::<_, ndarray::Array2<i16>>(p("out.npy"))
                    .unwrap()
                    .mapv(f64::from),
                _ => ndarray_npy::read_npy::<_, ndarray::Array2<f32>>(p("out.npy"))
                    .unwrap()
                    .mapv(f64::from),
            };
            for (got, want) in pixels.iter().zip(&expected) {
                let want = if want.is_nan() {
                    -32768.0
                } else {
                    f64::from(*want)
                };
                assert_eq!(*got, want);
            }
        }
    }
    // D8 and accumulation to GeoTIFF keep the georeferencing too.
    run_ok(&[
        "dem",
        "fill",
        "--epsilon",
        s(&p("f32.tif")),
        s(&p("eps.tif")),
    ]);
    run_ok(&["dem", "d8", s(&p("eps.tif")), s(&p("d8.tif"))]);
    run_ok(&["dem", "accumulate", s(&p("d8.tif")), s(&p("acc.tif"))]);
    let d8 = python(DESCRIBE, &[s(&p("d8.tif")), s(&p("d8.npy"))]);
    let acc = python(DESCRIBE, &[s(&p("acc.tif")), s(&p("acc.npy"))]);
    for described in [&d8, &acc] {
        assert_eq!(
            described.lines().take(2).collect::<Vec<_>>(),
            describe_input.lines().take(2).collect::<Vec<_>>()
        );
    }
    assert!(acc.lines().nth(3) == Some("Float64"), "{acc}");
    let acc_px: ndarray::Array2<f64> = ndarray_npy::read_npy(p("acc.npy")).unwrap();
    // Every valid cell drains to one outlet: the counts at cells without a receiver sum to the
    // valid cells.
    let codes: ndarray::Array2<i8> = ndarray_npy::read_npy::<_, ndarray::Array2<i8>>(p("d8.npy"))
        .or_else(|_| {
            ndarray_npy::read_npy::<_, ndarray::Array2<u8>>(p("d8.npy"))
                .map(|a| a.mapv(|v| v as i8))
        })
        .unwrap();
    let valid = dem.iter().filter(|z| !z.is_nan()).count() as f64;
    let at_outlets: f64 = acc_px
        .iter()
        .zip(&codes)
        .zip(&dem)
        .filter(|((_, c), z)| **c == 0 && !z.is_nan())
        .map(|((a, _), _)| *a)
        .sum();
    assert_eq!(at_outlets, valid);
}

#[test]
fn bad_tiffs_are_refused_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let out = p("out.tif");
    // A classic TIFF header whose first directory claims a 100000 x 100000 float32 image in
    // a few bytes: refused before decoding.
    let mut bytes = b"II*\0\x08\0\0\0".to_vec();
    let entries: [(u16, u16, u32, u32); 8] = [
        (256, 4, 1, 100_000),
        (257, 4, 1, 100_000),
        (258, 3, 1, 32),
        (259, 3, 1, 1),
        (262, 3, 1, 1),
        (273, 4, 1, 0),
        (279, 4, 1, 16),
        (339, 3, 1, 3),
    ];
    bytes.extend((entries.len() as u16).to_le_bytes());
    for (tag, ty, count, value) in entries {
        bytes.extend(tag.to_le_bytes());
        bytes.extend(ty.to_le_bytes());
        bytes.extend(count.to_le_bytes());
        bytes.extend(value.to_le_bytes());
    }
    bytes.extend([0; 4]);
    std::fs::write(p("huge.tif"), &bytes).unwrap();
    refused(
        &["dem", "fill", s(&p("huge.tif")), s(&out)],
        &out,
        "more than",
    );
    std::fs::write(p("cut.tif"), &bytes[..20]).unwrap();
    refused(
        &["dem", "fill", s(&p("cut.tif")), s(&out)],
        &out,
        "bad TIFF",
    );
    // Above a --memory limit.
    npy_file(
        &p("big.npy"),
        "<f4",
        "(1024, 1025)",
        &vec![0; 4 * 1024 * 1025],
    );
    refused(
        &["dem", "fill", "--memory", "4M", s(&p("big.npy")), s(&out)],
        &out,
        "memory limit",
    );
    refused(
        &["dem", "fill", "--tile", "0", s(&p("big.npy")), s(&out)],
        &out,
        "--tile",
    );
}

#[test]
fn dem_commands_print_one_summary_line_unless_quiet_and_keep_or_name_the_float_width() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    // A 4x4 float64 DEM with a pit.
    let mut data = Vec::new();
    for v in [
        5.0f64, 5., 5., 5., 5., 1., 4., 5., 5., 4., 4., 5., 5., 5., 5., 5.,
    ] {
        data.extend(v.to_le_bytes());
    }
    npy_file(&p("f8.npy"), "<f8", "(4, 4)", &data);
    let out = orogen(&["dem", "fill", s(&p("f8.npy")), s(&p("filled.npy"))]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(
        // The border (5) is the only outlet: the four interior cells all rise to 5.
        stdout.starts_with("filled: 16 cells (4 raised) in "),
        "{stdout}"
    );
    assert!(
        stdout.contains("float64 input written as float32"),
        "{stdout}"
    );
    assert!(npy_header(&p("filled.npy")).contains("'<f4'"));
    let quiet = orogen(&["dem", "fill", "-q", s(&p("f8.npy")), s(&p("filled.npy"))]);
    assert!(quiet.status.success() && quiet.stdout.is_empty() && quiet.stderr.is_empty());
    // An int16 DEM fills to int16.
    let data: Vec<u8> = [5i16, 5, 5, 5, 5, 1, 4, 5, 5, 4, 4, 5, 5, 5, 5, 5]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    npy_file(&p("i2.npy"), "<i2", "(4, 4)", &data);
    let out = orogen(&["dem", "fill", s(&p("i2.npy")), s(&p("i2_filled.npy"))]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("(int16)") && !stdout.contains("written as"),
        "{stdout}"
    );
    assert!(npy_header(&p("i2_filled.npy")).contains("'<i2'"));
    let filled = npy_data(&p("i2_filled.npy"));
    assert_eq!(
        i16::from_le_bytes([filled[10], filled[11]]),
        5,
        "the pit rises to the border's 5 (the only outlet)"
    );
    let out = orogen(&["dem", "d8", s(&p("i2.npy")), s(&p("d8.npy"))]);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("d8: 16 cells ("));
    let out = orogen(&["dem", "accumulate", s(&p("d8.npy")), s(&p("acc.npy"))]);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("accumulated: 16 cells ("));
}

/// The distributed fill, D8 and accumulation: 4 local timely processes, 1 process, and the
/// plain commands write the same bytes, on the reference DEM with NoData holes and tiles that do not
/// divide it.
#[test]
fn four_timely_processes_fill_route_and_accumulate_the_same_bytes_as_one() {
    let Some(data) = data_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let mut dem: ndarray::Array2<f32> =
        ndarray_npy::read_npy(data.join("jacksboro_fault_dem.npy")).unwrap();
    orogen_hydrology::raster::tiled::window_mut(dem.view_mut(), (100, 150), (40, 80))
        .fill(f32::NAN);
    dem.column_mut(300).fill(f32::NAN);
    ndarray_npy::write_npy(p("dem.npy"), &dem).unwrap();
    // The fill, then the D8 and the accumulation of the filled DEM (its D8 receivers
    // included): tiles exchange their perimeters through worker 0.
    for (command, input, plain, said) in [
        ("fill", "dem.npy", "plain.npy", "filled: 138632 cells ("),
        ("d8", "plain.npy", "d8.npy", "d8: 138632 cells ("),
        (
            "accumulate",
            "plain.npy",
            "acc.npy",
            "accumulated: 138632 cells (",
        ),
    ] {
        run_ok(&["dem", command, s(&p(input)), s(&p(plain))]);
        for workers in ["1", "4"] {
            let out = p(&format!("{command}{workers}.npy"));
            let run = orogen(&[
                "dem",
                command,
                "--workers",
                workers,
                "--tile",
                "70",
                s(&p(input)),
                s(&out),
            ]);
            let stderr = String::from_utf8_lossy(&run.stderr);
            assert!(
                run.status.success(),
                "{command}, {workers} workers: {stderr}"
            );
            let stdout = String::from_utf8_lossy(&run.stdout);
            assert!(stdout.starts_with(said), "{stdout}");
            assert_eq!(
                std::fs::read(&out).unwrap(),
                std::fs::read(p(plain)).unwrap(),
                "{command}, {workers} workers"
            );
        }
    }
    refused(
        &[
            "dem",
            "accumulate",
            "--workers",
            "2",
            s(&p("plain.npy")),
            s(&p("acc.png")),
        ],
        &p("acc.png"),
        "writes .npy",
    );
    // Refusals before any process starts: a PNG input, an epsilon fill.
    let png = p("in.png");
    orogen_export::atomic::write_atomic(&png, |w| {
        orogen_export::png::write_gray8(w, ndarray::Array2::<u8>::zeros((4, 4)).view())
    })
    .unwrap();
    let out = p("never.npy");
    refused(
        &["dem", "fill", "--workers", "2", s(&png), s(&out)],
        &out,
        "float32",
    );
    refused(
        &[
            "dem",
            "fill",
            "--workers",
            "2",
            "--epsilon",
            s(&p("dem.npy")),
            s(&out),
        ],
        &out,
        "--epsilon",
    );
}

/// A process whose peers never come gives up after `--connect-timeout`: exit 1, one line that
/// says what to check, nothing under the output's name or its temporary name (timely alone
/// would wait for ever).
#[test]
fn a_process_whose_cluster_never_connects_gives_up() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    ndarray_npy::write_npy(p("dem.npy"), &ndarray::Array2::<f32>::zeros((8, 8))).unwrap();
    // Two free local ports; process 1 is never started.
    hosts_file(dir.path());
    for command in ["fill", "accumulate"] {
        let run = orogen(&[
            "dem",
            command,
            "--connect-timeout",
            "2",
            s(&p("dem.npy")),
            s(&p("out.npy")),
            "--",
            "-n",
            "2",
            "-p",
            "0",
            "-h",
            s(&p("hosts.txt")),
        ]);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{command}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{command}: {stderr}");
        assert!(
            stderr.contains("did not all connect within 2 s"),
            "{command}: {stderr}"
        );
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("out.npy"))
            .collect();
        assert!(left.is_empty(), "{command} left {left:?}");
    }
}

/// Two free local ports in a timely hosts file `hosts.txt` in `dir`; returns the ports.
fn hosts_file(dir: &Path) -> Vec<u16> {
    let listeners: Vec<std::net::TcpListener> = (0..2)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let ports: Vec<u16> = listeners
        .iter()
        .map(|l| l.local_addr().unwrap().port())
        .collect();
    let hosts: String = ports.iter().map(|p| format!("127.0.0.1:{p}\n")).collect();
    std::fs::write(dir.join("hosts.txt"), hosts).unwrap();
    ports
}

/// Process `process` of a 2-process `orogen dem fill` cluster on `input`, stderr captured.
fn cluster_fill(dir: &Path, input: &str, process: &str) -> std::process::Child {
    let p = |name: &str| dir.join(name);
    std::process::Command::new(orogen_tests::orogen_bin())
        .args(["dem", "fill", "--tile", "100", "--connect-timeout", "60"])
        .args([
            s(&p(input)),
            s(&p("out.npy")),
            "--",
            "-n",
            "2",
            "-p",
            process,
        ])
        .args(["-h", s(&p("hosts.txt"))])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// `run` failed with one line holding `needle`, and nothing of the output is left in `dir`.
fn failed_cleanly(dir: &Path, run: &std::process::Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains(needle), "{needle}: {stderr}");
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("out.npy"))
        .collect();
    assert!(left.is_empty(), "left {left:?}");
}

/// Two processes of one cluster given grids of different shapes (mismatched tiles): process 0
/// refuses the summaries it gets, process 1 says its share never came. One line each, exit 1,
/// neither the output nor its temporary file left.
#[test]
fn a_cluster_with_mismatched_tiles_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let relief = |n: usize| {
        ndarray::Array2::<f32>::from_shape_fn((n, n), |(r, c)| ((r * 7 + c * 13) % 31) as f32)
    };
    ndarray_npy::write_npy(dir.path().join("a.npy"), &relief(300)).unwrap();
    ndarray_npy::write_npy(dir.path().join("b.npy"), &relief(200)).unwrap();
    hosts_file(dir.path());
    let zero = cluster_fill(dir.path(), "a.npy", "0");
    let one = cluster_fill(dir.path(), "b.npy", "1");
    let (zero, one) = (
        zero.wait_with_output().unwrap(),
        one.wait_with_output().unwrap(),
    );
    failed_cleanly(dir.path(), &zero, "tile summaries for 9 tiles");
    failed_cleanly(dir.path(), &one, "worker 0 stopped");
}

/// A process killed after the cluster connected: its peer says a process stopped (timely's
/// network threads panic on the closed socket; that is not reported as a bug of orogen), exits
/// 1 and removes the temporary output.
#[test]
fn a_cluster_whose_peer_is_killed_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let n = 2500;
    let dem =
        ndarray::Array2::<f32>::from_shape_fn((n, n), |(r, c)| ((r * 7 + c * 13) % 31) as f32);
    ndarray_npy::write_npy(dir.path().join("dem.npy"), &dem).unwrap();
    let ports = hosts_file(dir.path());
    let zero = cluster_fill(dir.path(), "dem.npy", "0");
    let mut one = cluster_fill(dir.path(), "dem.npy", "1");
    // Kill process 1 once its connection to process 0 is established (/proc/net/tcp: local
    // or remote port process 0's, state 01), while the tiles are being filled.
    let port0 = format!(":{:04X} ", ports[0]);
    let connected = || {
        std::fs::read_to_string("/proc/net/tcp").is_ok_and(|table| {
            table.lines().skip(1).any(|line| {
                let f: Vec<&str> = line.split_whitespace().collect();
                f.len() > 3
                    && f[3] == "01"
                    && (format!("{} ", f[1]).ends_with(&port0)
                        || format!("{} ", f[2]).ends_with(&port0))
            })
        })
    };
    let t0 = std::time::Instant::now();
    while !connected() {
        assert!(t0.elapsed().as_secs() < 60, "the processes never connected");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    one.kill().unwrap();
    one.wait().unwrap();
    let zero = zero.wait_with_output().unwrap();
    failed_cleanly(
        dir.path(),
        &zero,
        "a process of the cluster stopped or its connection broke",
    );
}

/// Under `--memory`, a float32 `.npy` whose run in memory would need more than the limit is
/// streamed tile by tile: fill, D8 and accumulation write the bytes of the runs in memory, the
/// process's peak memory (its own `VmHWM`, printed) stays under the limit, and a limit too low
/// for any tile is refused before anything is written.
#[test]
fn a_grid_beyond_the_memory_limit_is_streamed_to_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    // 1600 x 1600 (10 MB): a tilted relief with pits, a ridge and NoData holes.
    let n = 1600;
    let dem = ndarray::Array2::<f32>::from_shape_fn((n, n), |(r, c)| {
        let (x, y) = (c as f32 / 40.0, r as f32 / 33.0);
        let hole = (r / 200 + c / 170) % 7 == 3 && (r % 200) < 9 && (c % 170) < 11;
        if hole {
            f32::NAN
        } else {
            (x.sin() * y.cos() * 30.0 + (x * 0.7 + y * 1.3).sin() * 12.0 + r as f32 * 0.01).round()
        }
    });
    ndarray_npy::write_npy(p("dem.npy"), &dem).unwrap();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(orogen_tests::orogen_bin())
            .args(args)
            .env("RAYON_NUM_THREADS", "2")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{args:?}: {stderr}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    for (command, input) in [
        ("fill", "dem.npy"),
        ("d8", "plain-fill.npy"),
        ("accumulate", "plain-fill.npy"),
    ] {
        let plain = p(&format!("plain-{command}.npy"));
        let said = run(&["dem", command, "-q", s(&p(input)), s(&plain)]);
        assert!(said.is_empty(), "{said}");
        let streamed = p(&format!("streamed-{command}.npy"));
        let said = run(&[
            "dem",
            command,
            "--memory",
            "24M",
            "--tile",
            "128",
            s(&p(input)),
            s(&streamed),
        ]);
        assert!(
            said.contains("streamed in 128 x 128 tiles under the 24 MiB limit"),
            "{command}: {said}"
        );
        assert!(
            std::fs::read(&streamed).unwrap() == std::fs::read(&plain).unwrap(),
            "{command}: streamed and in memory differ"
        );
        if let Some(peak) = said.split("peak memory ").nth(1) {
            let mib: usize = peak.trim().trim_end_matches(" MiB").parse().unwrap();
            assert!(mib <= 24, "{command}: peak {mib} MiB over the 24 MiB limit");
        } else if cfg!(target_os = "linux") {
            panic!("{command}: no peak memory in `{said}`");
        }
    }
    // The grid alone is 10 MB: with 8 MiB there is no tile to stream with.
    let out = p("never.npy");
    refused(
        &["dem", "fill", "--memory", "8M", s(&p("dem.npy")), s(&out)],
        &out,
        "--memory: 8 MiB is too little to stream this 1600 x 1600 grid",
    );
}
