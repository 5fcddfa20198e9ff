//! Every export read back by an independent reader (`png`, `exr`, serde_json, ndarray-npy), on
//! a world with one land anchor at (0.2, 0.2): its land lies north-west in the GeoJSON and
//! top-left in every raster. A world reloaded from `world.npz` regenerates the same files.

use std::path::Path;

use ndarray::Array2;
use orogen::{Config, Output};
use orogen_export::engine::Engine;
use serde_json::Value;

fn config() -> Config {
    let mut config = Config::default();
    config.world.cells = 4000;
    config.export.resolution = 96;
    config.export.engine = Engine::Unity;
    config.export.heightmap_size = 129;
    config.export.outputs = vec![Output::Default, Output::Geojson, Output::Npz];
    config.elevation.land_centers = 1;
    config.elevation.anchors = vec![[0.2, 0.2]];
    config.elevation.layout = orogen_elevation::Layout::Custom;
    config
}

/// Decodes a PNG with the `png` crate: (width, height, channels, bit depth 8 or 16, samples).
fn read_png(path: &Path) -> (usize, usize, usize, Vec<u16>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let samples = match info.bit_depth {
        png::BitDepth::Sixteen => buf
            .chunks(2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
            .collect(),
        png::BitDepth::Eight => buf.iter().map(|&b| u16::from(b)).collect(),
        other => panic!("unexpected depth {other:?}"),
    };
    (info.width as usize, info.height as usize, channels, samples)
}

/// The mean (col, row) of the pixels where `mask` holds, as fractions of the image size.
fn centroid(nx: usize, ny: usize, mask: impl Fn(usize, usize) -> bool) -> (f64, f64, usize) {
    let (mut sx, mut sy, mut n) = (0.0, 0.0, 0usize);
    for j in 0..ny {
        for i in 0..nx {
            if mask(i, j) {
                sx += i as f64;
                sy += j as f64;
                n += 1;
            }
        }
    }
    (
        sx / n.max(1) as f64 / nx as f64,
        sy / n.max(1) as f64 / ny as f64,
        n,
    )
}

fn assert_top_left(what: &str, (x, y, n): (f64, f64, usize), total: usize) {
    assert!(n > total / 50, "{what}: only {n} of {total} pixels marked");
    assert!(
        x < 0.4 && y < 0.4,
        "{what}: centroid ({x:.2}, {y:.2}) is not top-left"
    );
}

#[test]
fn exports_read_back_and_a_north_west_anchor_lands_top_left_everywhere() {
    let config = config();
    config.validate().unwrap();
    let world = orogen::generate(&config).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let files = orogen::write_outputs(&world, &config, dir.path()).unwrap();
    let n = 129;

    // World.json: the height mapping.
    let sidecar: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("world.json")).unwrap()).unwrap();
    let mapping = &sidecar["height_mapping"];
    assert_eq!(mapping["engine"], "unity");
    assert_eq!(mapping["metres_at_0"], -1000.0);
    assert_eq!(mapping["metres_at_65535"], 2000.0);
    assert_eq!(mapping["world_size_m"], 100_000.0);
    let sea = mapping["sea_level_u16"].as_u64().unwrap() as u16;
    assert_eq!(sidecar["sampling"]["kind"], "vertices");

    // The 16-bit PNG, the r16 twin and the float EXR agree, pixel for pixel.
    let (w, h, ch, png16) = read_png(&dir.path().join("heightmap.png"));
    assert_eq!((w, h, ch), (n, n, 1));
    let r16 = std::fs::read(dir.path().join("heightmap.r16")).unwrap();
    assert_eq!(r16.len(), n * n * 2);
    let r16: Vec<u16> = r16
        .chunks(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    assert_eq!(r16, png16);
    use exr::prelude::*;
    let image = read()
        .no_deep_data()
        .largest_resolution_level()
        .all_channels()
        .first_valid_layer()
        .all_attributes()
        .from_file(dir.path().join("heightmap.exr"))
        .unwrap();
    assert_eq!(image.layer_data.size, Vec2(n, n));
    let metres: Vec<f32> = image.layer_data.channel_data.list[0]
        .sample_data
        .values_as_f32()
        .collect();
    for (m, v) in metres.iter().zip(&png16) {
        let expect = ((f64::from(*m) + 1000.0) / 3000.0 * 65535.0).round();
        assert_eq!(expect as u16, *v);
    }
    assert!(metres.iter().any(|&m| m > 0.0) && metres.iter().any(|&m| m < 0.0));
    let total = n * n;
    assert_top_left(
        "heightmap.png",
        centroid(n, n, |i, j| png16[j * n + i] > sea),
        total,
    );
    assert_top_left(
        "heightmap.exr",
        centroid(n, n, |i, j| metres[j * n + i] > 0.0),
        total,
    );

    // Colour and biome maps: land is the pixels not clearly blue (water is).
    for name in ["colormap.png", "biomes.png"] {
        let (w, h, ch, rgb) = read_png(&dir.path().join(name));
        assert_eq!((w, h, ch), (n, n, 3), "{name} at the heightmap's size");
        let land = |i: usize, j: usize| {
            let p = &rgb[(j * n + i) * 3..(j * n + i) * 3 + 3];
            p[2] <= p[0] + 30
        };
        assert_top_left(name, centroid(n, n, land), total);
        assert!(!land(n - 1, n - 1), "{name}: sea in the south-east");
    }
    // Splat maps: weights sum to 255; land weight top-left.
    let splats: Vec<Vec<u16>> = orogen_export::splat::GROUPS
        .iter()
        .map(|(g, _)| {
            let (w, h, ch, v) = read_png(&dir.path().join(format!("splat_{g}.png")));
            assert_eq!((w, h, ch), (n, n, 1));
            v
        })
        .collect();
    for k in 0..total {
        assert_eq!(splats.iter().map(|s| s[k]).sum::<u16>(), 255);
    }
    assert_top_left(
        "splat_water.png",
        centroid(n, n, |i, j| splats[0][j * n + i] < 128),
        total,
    );
    // The river mask (the hydrology stage always runs, so the world has rivers).
    assert!(files.iter().any(|f| f == "rivers.png"));
    let (w, h, _, mask) = read_png(&dir.path().join("rivers.png"));
    assert_eq!((w, h), (n, n));
    let (x, y, count) = centroid(n, n, |i, j| mask[j * n + i] > 0);
    assert!(
        count > 0 && x < 0.4 && y < 0.4,
        "rivers at ({x:.2}, {y:.2})"
    );

    // GeoJSON: closed, counter-clockwise outer rings; the land north-west of the centre.
    let geo: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("world.geojson")).unwrap()).unwrap();
    let features = geo["features"].as_array().unwrap();
    let (mut area, mut lon, mut lat) = (0.0, 0.0, 0.0);
    for f in features
        .iter()
        .filter(|f| f["properties"]["kind"] == "land")
    {
        let rings = f["geometry"]["coordinates"].as_array().unwrap();
        for (r, ring) in rings.iter().enumerate() {
            let pts: Vec<(f64, f64)> = ring
                .as_array()
                .unwrap()
                .iter()
                .map(|p| (p[0].as_f64().unwrap(), p[1].as_f64().unwrap()))
                .collect();
            assert_eq!(pts.first(), pts.last(), "closed ring");
            // Shoelace area and area-weighted centroid (lon, lat: x east, y north).
            let (mut a, mut cx, mut cy) = (0.0, 0.0, 0.0);
            for w in pts.windows(2) {
                let cross = w[0].0 * w[1].1 - w[1].0 * w[0].1;
                a += cross / 2.0;
                cx += (w[0].0 + w[1].0) * cross / 6.0;
                cy += (w[0].1 + w[1].1) * cross / 6.0;
            }
            assert_eq!(
                a > 0.0,
                r == 0,
                "outer rings counter-clockwise, holes clockwise"
            );
            area += a;
            lon += cx;
            lat += cy;
        }
    }
    assert!(area > 0.0);
    let (lon, lat) = (lon / area, lat / area);
    assert!(
        lon < 0.0 && lat > 0.0,
        "land centroid at lon {lon}, lat {lat}"
    );
    // Rivers: LineStrings with a flow and a width per vertex, mouths north-west of the centre.
    let rivers: Vec<_> = features
        .iter()
        .filter(|f| f["properties"]["kind"] == "river")
        .collect();
    assert!(!rivers.is_empty());
    assert_eq!(rivers.len(), world.offsets("rivers").unwrap().len() - 1);
    for r in &rivers {
        assert_eq!(r["geometry"]["type"], "LineString");
        let coords = r["geometry"]["coordinates"].as_array().unwrap();
        assert!(coords.len() >= 2);
        assert_eq!(
            r["properties"]["flow"].as_array().unwrap().len(),
            coords.len()
        );
        assert_eq!(
            r["properties"]["width_m"].as_array().unwrap().len(),
            coords.len()
        );
        let mouth = &coords[coords.len() - 1];
        assert!(mouth[0].as_f64().unwrap() < 0.1 && mouth[1].as_f64().unwrap() > -0.1);
    }

    // world.npz opens with ndarray-npy as NumPy would.
    let mut npz =
        ndarray_npy::NpzReader::new(std::fs::File::open(dir.path().join("world.npz")).unwrap())
            .unwrap();
    let elevation: ndarray::Array1<f32> = npz.by_name("layer.region_elevation").unwrap();
    assert_eq!(elevation.len(), world.mesh().unwrap().n_regions());
    assert_eq!(elevation, world.view1::<f32>("region_elevation").unwrap());
    let _: Array2<f64> = npz.by_name("mesh.region_xy").unwrap();
}

#[test]
fn a_world_reloaded_from_npz_regenerates_the_same_files() {
    let mut config = config();
    config.export.engine = Engine::Unreal;
    config.export.heightmap_size = 127;
    let world = orogen::generate(&config).unwrap();
    let first = tempfile::tempdir().unwrap();
    let files = orogen::write_outputs(&world, &config, first.path()).unwrap();
    let (loaded, loaded_config) = orogen::read_world(&first.path().join("world.npz")).unwrap();
    assert_eq!(loaded_config, config);
    let second = tempfile::tempdir().unwrap();
    let again = orogen::write_outputs(&loaded, &loaded_config, second.path()).unwrap();
    assert_eq!(files, again);
    for name in &files {
        let a = std::fs::read(first.path().join(name)).unwrap();
        let b = std::fs::read(second.path().join(name)).unwrap();
        assert!(a == b, "{name} differs after the reload");
    }
    for name in [
        "heightmap.png",
        "heightmap.r16",
        "heightmap.exr",
        "colormap.png",
        "biomes.png",
    ] {
        assert!(files.iter().any(|f| f == name), "{name} written");
    }
    let sidecar: Value =
        serde_json::from_slice(&std::fs::read(first.path().join("world.json")).unwrap()).unwrap();
    let unreal = &sidecar["height_mapping"]["unreal"];
    // The fixed 3000 m range over Unreal's 512 m at Z scale 100.
    let z_scale = unreal["z_scale"].as_f64().unwrap();
    assert!((z_scale - 100.0 * 3000.0 * 65536.0 / 65535.0 / 512.0).abs() < 1e-9);
    assert_eq!(
        std::fs::metadata(first.path().join("heightmap.r16"))
            .unwrap()
            .len(),
        127 * 127 * 2
    );
}

#[test]
fn exports_are_the_same_bytes_for_1_and_2_threads() {
    let mut config = config();
    config.export.outputs = vec![Output::All];
    let world = orogen::generate(&config).unwrap();
    let dirs: Vec<_> = [1, 2]
        .into_iter()
        .map(|threads| {
            let dir = tempfile::tempdir().unwrap();
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let files = pool
                .install(|| orogen::write_outputs(&world, &config, dir.path()))
                .unwrap();
            (dir, files)
        })
        .collect();
    assert_eq!(dirs[0].1, dirs[1].1);
    for name in &dirs[0].1 {
        let a = std::fs::read(dirs[0].0.path().join(name)).unwrap();
        let b = std::fs::read(dirs[1].0.path().join(name)).unwrap();
        assert!(a == b, "{name} differs between 1 and 2 threads");
    }
}
