//! Helpers shared by the workspace tests in `tests/tests/`.

use std::path::PathBuf;
use std::process::{Command, Output};

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the root")
        .to_owned()
}

/// Runs the `orogen` binary (built by cargo for this test run) with `args`.
pub fn orogen(args: &[&str]) -> Output {
    let bin = orogen_bin();
    Command::new(&bin)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", bin.display()))
}

/// The path of the `orogen` binary, built on demand in the same profile as the tests.
///
/// It is built by `cargo test --workspace --no-run`, the build the README's test command makes
/// (`orogen-cli` has an integration test, so that build includes the binary): inside a whole
/// workspace run this is a no-op, and the binary shares every library the tests were built with.
/// Building it with `cargo build -p orogen-cli` instead would resolve other features (the
/// workspace members' defaults, the dev-dependencies') and compile the whole stack a second time.
pub fn orogen_bin() -> PathBuf {
    static BUILT: std::sync::Once = std::sync::Once::new();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| workspace_root().join("target"), PathBuf::from);
    BUILT.call_once(|| {
        let status = Command::new(&cargo)
            .current_dir(workspace_root())
            .args(["test", "--workspace", "--no-run", "--quiet"])
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building orogen failed");
    });
    target
        .join("debug")
        .join(format!("orogen{}", std::env::consts::EXE_SUFFIX))
}

/// Runs `orogen generate --out DIR ARGS` and checks it is refused before any work: exit code 2,
/// stderr that mentions `needle`, and no output folder. Returns stderr.
pub fn refused(args: &[&str], needle: &str) -> String {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let out_dir = dir.path().join("out");
    let mut all = vec![
        "generate",
        "--out",
        out_dir.to_str().expect("UTF-8 temp path"),
    ];
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
    stderr.into_owned()
}

/// Checks that an error message is one line (parameter errors are; clap's usage errors add a
/// usage hint).
pub fn one_line(stderr: &str) {
    assert_eq!(
        stderr.trim().lines().count(),
        1,
        "more than one line: {stderr}"
    );
}

/// Runs `orogen generate --quiet --out TMP ARGS`, checks it succeeded, and returns the folder.
pub fn generated(args: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut all = vec![
        "generate",
        "--quiet",
        "--out",
        dir.path().to_str().expect("UTF-8 temp path"),
    ];
    all.extend_from_slice(args);
    let out = orogen(&all);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}
