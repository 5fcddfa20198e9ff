//! Same seed, same bytes: every output file (every format) hashes the same across runs and
//! thread counts. The playground's bundle is checked the same way in `crates/orogen/tests/serve.rs`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use orogen_tests::orogen_bin;

/// FNV-1a of every file in `dir`, by name.
fn hashes(dir: &Path) -> BTreeMap<String, u64> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let bytes = std::fs::read(e.path()).unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                orogen_world::seed::fnv1a64(&bytes),
            )
        })
        .collect()
}

fn run(dir: &Path, threads: usize, seed: &str) {
    let out = Command::new(orogen_bin())
        .env("RAYON_NUM_THREADS", threads.to_string())
        .args([
            "generate",
            "--quiet",
            "--save-world",
            "--glb",
            "--geojson",
            "--cells",
            "3000",
            "--resolution",
            "256",
            "--seed",
            seed,
        ])
        .arg("--out")
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_output_is_identical_for_1_2_and_8_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let mut reference: Option<BTreeMap<String, u64>> = None;
    for (i, threads) in [1, 2, 8, 2].into_iter().enumerate() {
        let dir = tmp.path().join(format!("run{i}"));
        run(&dir, threads, "7");
        let h = hashes(&dir);
        // Every format: PNG, r16, EXR, .glb, GeoJSON, .npz, JSON.
        for name in [
            "colormap.png",
            "biomes.png",
            "rivers.png",
            "heightmap.png",
            "heightmap.r16",
            "heightmap.exr",
            "preview3d.png",
            "world.glb",
            "world.geojson",
            "world.npz",
            "world.json",
        ] {
            assert!(h.contains_key(name), "{name} missing: {h:?}");
        }
        match &reference {
            None => reference = Some(h),
            Some(r) => assert_eq!(&h, r, "outputs differ with RAYON_NUM_THREADS={threads}"),
        }
    }
    let other = tmp.path().join("other_seed");
    run(&other, 2, "8");
    assert_ne!(
        hashes(&other)["world.npz"],
        reference.unwrap()["world.npz"],
        "the seed changes the world"
    );
}
