//! The 3-D outputs on real worlds: `world.glb` read back by the `gltf` crate and checked by the
//! Khronos validator, `preview3d.png` determinism, and the Blender render.

use std::path::{Path, PathBuf};

use orogen::Config;
use orogen_export::gltf::{GlbOptions, glb, validator};
use orogen_export::preview3d::{PreviewOptions, preview3d};

fn config(cells: usize) -> Config {
    let mut config = Config::default();
    config.world.cells = cells;
    config.world.seed = 11;
    config
}

fn options(resolution: usize) -> GlbOptions {
    GlbOptions {
        resolution,
        colors: None,
        trees: true,
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Terrain positions of a .glb.
fn terrain_positions(bytes: &[u8]) -> Vec<[f32; 3]> {
    let g = gltf::Gltf::from_slice(bytes).unwrap();
    let blob = g.blob.as_deref().unwrap();
    let mesh = g.meshes().find(|m| m.name() == Some("terrain")).unwrap();
    let prim = mesh.primitives().next().unwrap();
    let reader = prim.reader(|_| Some(blob));
    reader.read_positions().unwrap().collect()
}

#[test]
fn glb_reads_back_in_metres_with_one_node_per_tree() {
    let world = orogen::generate(&config(5000)).unwrap();
    let bytes = glb(&world, &options(65)).unwrap();
    let g = gltf::Gltf::from_slice(&bytes).unwrap();
    let pos = terrain_positions(&bytes);
    assert_eq!(pos.len(), 65 * 65);
    let size = world.meta.world_size_m as f32;
    let max = |k: usize| pos.iter().map(|p| p[k]).fold(f32::MIN, f32::max);
    let min = |k: usize| pos.iter().map(|p| p[k]).fold(f32::MAX, f32::min);
    assert_eq!((min(0), min(2)), (0.0, 0.0));
    assert!((max(0) - size).abs() < 0.1 && (max(2) - size).abs() < 0.1);
    // Heights in metres: the highest land is max_height_m, the deepest water max_depth_m at most.
    assert!(
        max(1) <= world.meta.max_height_m as f32 && max(1) > 0.3 * world.meta.max_height_m as f32
    );
    assert!(min(1) >= -world.meta.max_depth_m as f32 && min(1) < 0.0);
    let instances = world.view2::<f64>("flora_xy").unwrap().nrows();
    assert!(instances > 0);
    let tree_nodes = g
        .nodes()
        .filter(|n| {
            n.mesh()
                .is_some_and(|m| m.name().is_some_and(|s| s.starts_with("tree ")))
        })
        .count();
    assert_eq!(tree_nodes, instances);
    let trees = g.nodes().find(|n| n.name() == Some("trees")).unwrap();
    assert_eq!(trees.children().count(), instances);
}

#[test]
fn a_custom_anchor_at_0_2_raises_the_north_west() {
    // As `--anchors 0.2,0.2` (layout custom) sets it.
    let text = "[world]\ncells = 4000\nseed = 11\n[elevation]\nlayout = \"custom\"\nanchors = [[0.2, 0.2]]\n";
    let config = Config::from_toml(text, "test").unwrap();
    let world = orogen::generate(&config).unwrap();
    let bytes = glb(&world, &options(65)).unwrap();
    let pos = terrain_positions(&bytes);
    let half = world.meta.world_size_m as f32 / 2.0;
    let mean = |pick: &dyn Fn(&[f32; 3]) -> bool| {
        let v: Vec<f32> = pos.iter().filter(|p| pick(p)).map(|p| p[1]).collect();
        v.iter().sum::<f32>() / v.len() as f32
    };
    // -X, -Z is the north-west quadrant of the map: the anchor's.
    let nw = mean(&|p| p[0] < half && p[2] < half);
    let se = mean(&|p| p[0] > half && p[2] > half);
    assert!(nw > se + 200.0, "north-west {nw} m, south-east {se} m");
    // The highest vertex lies in the north-west quadrant.
    let top = pos
        .iter()
        .copied()
        .fold([0.0, f32::MIN, 0.0], |a, p| if p[1] > a[1] { p } else { a });
    assert!(top[0] < half && top[2] < half, "highest vertex at {top:?}");
}

#[test]
fn glb_of_a_real_world_passes_the_khronos_validator() {
    let mut config = config(3000);
    config.flora.models_per_species = 1;
    let world = orogen::generate(&config).unwrap();
    let bytes = glb(&world, &options(65)).unwrap();
    let tool = root().join("tools/gltf-validator");
    match validator::validate(&tool, &bytes) {
        Ok(Some(report)) => {
            eprintln!("validator: {}", report.text);
            assert_eq!(report.errors, 0, "{}", report.text);
        }
        Ok(None) => {
            orogen_world::testing::require(
                false,
                "glb_of_a_real_world_passes_the_khronos_validator",
                "node or tools/gltf-validator/node_modules/gltf-validator",
                "apt-get install nodejs npm, then `cd tools/gltf-validator && npm ci`",
            );
        }
        Err(e) => panic!("validator failed to run: {e}"),
    }
}

#[test]
fn preview_is_the_same_bytes_for_the_same_seed_and_any_thread_count() {
    let render = |seed: u64, threads: usize| {
        let mut config = config(3000);
        config.world.seed = seed;
        let options = PreviewOptions {
            width: 320,
            ..PreviewOptions::default()
        };
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| preview3d(&orogen::generate(&config).unwrap(), &options).unwrap())
    };
    let a = render(5, 1);
    assert_eq!(a, render(5, 2));
    assert_ne!(a, render(6, 2));
}

/// True when `blender` runs and its Python has NumPy (the glTF importer needs it).
fn blender_ready() -> bool {
    std::process::Command::new("blender")
        .args([
            "-b",
            "--factory-startup",
            "--python-expr",
            "import numpy",
            "--python-exit-code",
            "1",
        ])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn blender_renders_a_small_world() {
    if !orogen_world::testing::require(
        blender_ready(),
        "blender_renders_a_small_world",
        "`blender` (with NumPy) on PATH",
        "apt-get install blender python3-numpy",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut config = config(2000);
    config.export.outputs = vec![orogen::Output::Glb];
    config.export.glb_resolution = 65;
    config.flora.models_per_species = 1;
    let world = orogen::generate(&config).unwrap();
    orogen::write_outputs(&world, &config, dir.path()).unwrap();
    let out = dir.path().join("render3d.png");
    let render = orogen::render3d::Render3d {
        glb: dir.path().join("world.glb"),
        out: out.clone(),
        samples: 2,
        width: 160,
        height: 90,
        script: Some(root().join("tools/blender/render.py")),
        ..Default::default()
    };
    render.run().unwrap();
    let image = image::open(&out).unwrap().to_rgb8();
    assert_eq!(image.dimensions(), (160, 90));
    // Not blank: many distinct colours, land (red > blue) and sea or sky (blue > red).
    let mut colours: Vec<[u8; 3]> = image.pixels().map(|p| p.0).collect();
    let land = colours
        .iter()
        .filter(|p| i32::from(p[0]) > i32::from(p[2]) + 8)
        .count();
    let blue = colours
        .iter()
        .filter(|p| i32::from(p[2]) > i32::from(p[0]) + 8)
        .count();
    colours.sort_unstable();
    colours.dedup();
    assert!(colours.len() > 100, "{} colours", colours.len());
    assert!(land > 100 && blue > 100, "land {land}, blue {blue}");
}
