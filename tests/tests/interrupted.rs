//! No partial files: a run killed at any moment leaves every output either as the previous run
//! wrote it or as the new run writes it, never half-written; killed before its export ends, it
//! leaves the previous outputs exactly as they were; the next run sweeps its temporary files.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

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

/// Hidden temporary files (`.NAME.tmp-PID`) in `dir`.
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') && n.contains(".tmp-"))
        .collect()
}

fn copy_into(dir: &Path, files: &BTreeMap<String, Vec<u8>>) {
    std::fs::create_dir_all(dir).unwrap();
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
}

#[test]
fn a_killed_run_leaves_old_or_new_files_never_partial_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let old_dir = tmp.path().join("old");
    let new_dir = tmp.path().join("new");
    assert!(generate(&old_dir, "1").status().unwrap().success());
    let start = Instant::now();
    assert!(generate(&new_dir, "2").status().unwrap().success());
    let run = start.elapsed();
    let old = contents(&old_dir);
    let new = contents(&new_dir);
    assert_eq!(
        old.keys().collect::<BTreeSet<_>>(),
        new.keys().collect::<BTreeSet<_>>()
    );

    // Kill a rewrite of `old` with seed 2 at moments spread over a whole run.
    for tenth in 0..10 {
        let dir = tmp.path().join(format!("kill{tenth}"));
        copy_into(&dir, &old);
        let mut child = generate(&dir, "2").spawn().unwrap();
        std::thread::sleep(run * tenth / 10);
        let _ = child.kill();
        let _ = child.wait();
        for (name, bytes) in contents(&dir) {
            let is_old = old.get(&name) == Some(&bytes);
            let is_new = new.get(&name) == Some(&bytes);
            assert!(
                is_old || is_new,
                "{name} is neither the old nor the new file after a kill at {tenth}/10 of a run"
            );
        }
        // The next run completes and sweeps what the killed one left.
        assert!(generate(&dir, "2").status().unwrap().success());
        assert_eq!(contents(&dir), new);
        assert_eq!(temporaries(&dir), Vec::<String>::new());
    }
}

#[test]
fn a_run_killed_during_its_export_leaves_every_previous_file_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let old_dir = tmp.path().join("old");
    assert!(generate(&old_dir, "1").status().unwrap().success());
    let old = contents(&old_dir);
    let dir = tmp.path().join("killed");
    copy_into(&dir, &old);
    let mut child = generate(&dir, "2").spawn().unwrap();
    // The export has begun once its first file is staged; the files take their names only
    // when all are written, so a kill now must leave the old set whole.
    let deadline = Instant::now() + Duration::from_secs(120);
    while temporaries(&dir).is_empty() {
        assert!(Instant::now() < deadline, "the export never started");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it was seen exporting"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(
        contents(&dir),
        old,
        "a file changed although the export did not finish"
    );
}
