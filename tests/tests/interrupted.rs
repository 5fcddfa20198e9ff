//! No partial files: a run killed at any moment leaves every output either as the previous run
//! wrote it or as the new run writes it, never half-written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use orogen_tests::orogen_bin;

fn generate(dir: &Path, seed: &str) -> Command {
    let mut cmd = Command::new(orogen_bin());
    cmd.args([
        "generate",
        "--quiet",
        "--save-world",
        "--cells",
        "20000",
        "--resolution",
        "512",
        "--seed",
        seed,
    ])
    .arg("--out")
    .arg(dir);
    cmd
}

fn contents(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_killed_run_leaves_old_or_new_files_never_partial_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let old_dir = tmp.path().join("old");
    let new_dir = tmp.path().join("new");
    assert!(generate(&old_dir, "1").status().unwrap().success());
    assert!(generate(&new_dir, "2").status().unwrap().success());
    let old = contents(&old_dir);
    let new = contents(&new_dir);
    assert_eq!(
        old.keys().collect::<BTreeSet<_>>(),
        new.keys().collect::<BTreeSet<_>>()
    );

    // Kill a rewrite of `old` with seed 2 at spread-out moments, from start-up to the end.
    for delay_ms in [0u64, 5, 20, 50, 100, 200, 400, 800] {
        let dir = tmp.path().join(format!("kill{delay_ms}"));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in &old {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
        let mut child = generate(&dir, "2").spawn().unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        for (name, bytes) in contents(&dir) {
            let is_old = old.get(&name) == Some(&bytes);
            let is_new = new.get(&name) == Some(&bytes);
            assert!(
                is_old || is_new,
                "{name} is neither the old nor the new file after a kill at {delay_ms} ms"
            );
        }
    }
}
