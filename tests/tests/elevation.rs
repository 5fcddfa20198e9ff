//! The elevation flags on the command line: bad values refused before any work, with the range.

use orogen_tests::{orogen, refused};

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

fn read_gray16(path: &std::path::Path) -> (usize, usize, Vec<u16>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.bit_depth, png::BitDepth::Sixteen);
    assert_eq!(info.color_type, png::ColorType::Grayscale);
    let px = buf
        .chunks(2)
        .map(|b| u16::from_be_bytes([b[0], b[1]]))
        .collect();
    (info.width as usize, info.height as usize, px)
}

#[test]
fn a_custom_anchor_puts_the_land_in_the_top_left_of_the_heightmap() {
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "generate",
            "--quiet",
            "--cells",
            "5000",
            "--resolution",
            "128",
            "--anchors",
            "0.2,0.2",
            "--out",
            dir.path().to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let out = orogen(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let sidecar: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("world.json")).unwrap()).unwrap();
        (read_gray16(&dir.path().join("heightmap.png")), sidecar)
    };
    let ((w, h, px), sidecar) = run(&[]);
    assert_eq!((w, h), (128, 128));
    assert_eq!(sidecar["sampling"]["kind"], "pixel_centres");
    assert_eq!(sidecar["sampling"]["width_px"], 128);
    let sea = sidecar["height_mapping"]["sea_level_u16"].as_u64().unwrap() as u16;
    assert_eq!(
        sea, 21845,
        "fixed mapping: sea level at a third of the range"
    );
    assert!(
        sidecar["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "heightmap.png")
    );
    let (mut n, mut sx, mut sy) = (0.0, 0.0, 0.0);
    for (i, &v) in px.iter().enumerate() {
        if v > sea {
            n += 1.0;
            sx += (i % w) as f64;
            sy += (i / w) as f64;
        }
    }
    assert!(n > 0.0, "no land");
    assert!(
        sx / n < 64.0 && sy / n < 64.0,
        "land centred at ({}, {})",
        sx / n,
        sy / n
    );
    // Min-max stretches the world to the full 16 bits.
    let ((_, _, mm), sidecar) = run(&["--normalize", "minmax"]);
    assert_eq!(mm.iter().copied().min(), Some(0));
    assert_eq!(mm.iter().copied().max(), Some(65535));
    assert_eq!(sidecar["height_mapping"]["normalize"], "minmax");
}

/// `--normalize minmax` without a heightmap output records the range the heightmap would have
/// used (not null metres and sea level 0), and the same as when the heightmap is written.
#[test]
fn a_minmax_sidecar_without_a_heightmap_records_the_worlds_range() {
    let sidecar = |outputs: &str| {
        let dir = orogen_tests::generated(&[
            "--cells",
            "3000",
            "--resolution",
            "128",
            "--normalize",
            "minmax",
            "--outputs",
            outputs,
        ]);
        let text = std::fs::read(dir.path().join("world.json")).unwrap();
        serde_json::from_slice::<serde_json::Value>(&text).unwrap()["height_mapping"].clone()
    };
    let without = sidecar("colormap");
    let with = sidecar("colormap,heightmap");
    let lo = without["metres_at_0"].as_f64().expect("metres at 0");
    let hi = without["metres_at_65535"]
        .as_f64()
        .expect("metres at 65535");
    assert!(lo < 0.0 && 0.0 < hi, "{without}");
    let sea = without["sea_level_u16"].as_u64().unwrap();
    assert!(0 < sea && sea < 65535, "{without}");
    assert_eq!(without, with);
}
