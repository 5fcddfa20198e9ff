//! The architecture's dependency invariants (docs/architecture.md), checked on `cargo metadata`.

use std::collections::BTreeMap;
use std::process::Command;

use orogen_tests::workspace_root;

const STAGES: &[&str] = &[
    "orogen-mesh",
    "orogen-elevation",
    "orogen-hydrology",
    "orogen-biome",
    "orogen-flora",
];

/// Workspace package name -> its normal (non-dev) dependencies that are workspace packages.
fn workspace_graph() -> BTreeMap<String, Vec<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(workspace_root())
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let packages = meta["packages"].as_array().unwrap();
    let names: Vec<String> = packages
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_owned())
        .collect();
    packages
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["kind"].is_null())
                .map(|d| d["name"].as_str().unwrap().to_owned())
                .filter(|d| names.contains(d))
                .collect();
            (p["name"].as_str().unwrap().to_owned(), deps)
        })
        .collect()
}

/// What a package may not depend on, per the invariants.
fn forbidden(package: &str) -> Vec<&'static str> {
    let mut bad: Vec<&'static str> = Vec::new();
    if package == "orogen-world" || package == "orogen-sampling" {
        // The shared vocabulary depends on nothing of ours but itself.
        bad.extend(STAGES);
        bad.extend(
            ["orogen-export", "orogen", "orogen-world"]
                .iter()
                .filter(|n| **n != package),
        );
        if package == "orogen-sampling" {
            bad.retain(|n| *n != "orogen-world");
        }
    }
    if STAGES.contains(&package) {
        // A stage depends on world (and sampling), on no other stage, on no file writer.
        bad.extend(STAGES.iter().filter(|s| **s != package));
        bad.extend(["orogen-export", "orogen"]);
    }
    if package == "orogen-export" {
        bad.extend(STAGES);
        bad.push("orogen");
    }
    if package == "orogen" || package == "orogen-playground" {
        // The pipeline compiles no web server and no command line; the server no command line.
        bad.push("orogen-cli");
        if package == "orogen" {
            bad.push("orogen-playground");
        }
    }
    if package == "xtask" {
        bad.extend(STAGES);
        bad.extend(["orogen-world", "orogen-export", "orogen", "orogen-sampling"]);
    }
    bad
}

#[test]
fn no_crate_depends_on_what_the_invariants_forbid() {
    let graph = workspace_graph();
    assert!(
        graph.contains_key("orogen-world"),
        "the metadata lists the workspace"
    );
    let mut violations = Vec::new();
    for (package, deps) in &graph {
        for dep in deps {
            if forbidden(package).contains(&dep.as_str()) {
                violations.push(format!("{package} depends on {dep}"));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "architecture invariants broken: {violations:?}"
    );
}

#[test]
fn the_checker_itself_catches_a_stage_on_a_stage() {
    // The rule table must flag the edges it exists for, or the test above proves nothing.
    assert!(forbidden("orogen-biome").contains(&"orogen-hydrology"));
    assert!(forbidden("orogen-mesh").contains(&"orogen-export"));
    assert!(forbidden("orogen-export").contains(&"orogen"));
    assert!(forbidden("xtask").contains(&"orogen-mesh"));
    assert!(!forbidden("orogen-flora").contains(&"orogen-world"));
    assert!(!forbidden("orogen-flora").contains(&"orogen-sampling"));
    assert!(!forbidden("orogen").contains(&"orogen-mesh"));
    assert!(forbidden("orogen").contains(&"orogen-playground"));
}

#[test]
fn the_pipeline_compiles_no_web_server_and_no_command_line() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(workspace_root())
        .args([
            "tree",
            "-p",
            "orogen",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--offline",
        ])
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8_lossy(&out.stdout);
    let names: Vec<&str> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(
        names.contains(&"ndarray"),
        "cargo tree lists orogen's dependencies: {tree}"
    );
    for crate_name in ["axum", "tokio", "hyper", "clap", "indicatif"] {
        assert!(
            !names.contains(&crate_name),
            "orogen (the pipeline) depends on {crate_name}"
        );
    }
}

/// The crate names in the normal dependency tree of `package` (with or without its default
/// features), from `cargo tree`.
fn normal_tree(package: &str, default_features: bool) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut args = vec![
        "tree",
        "--offline",
        "-e",
        "normal",
        "--prefix",
        "none",
        "--format",
        "{p}",
        "-p",
        package,
    ];
    if !default_features {
        args.push("--no-default-features");
    }
    let out = Command::new(cargo)
        .current_dir(workspace_root())
        .args(&args)
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// What a kernel user must not have to compile: the world file's container and JSON, and image
/// codecs (those belong to `orogen-world`'s `npz` feature and to `orogen-export`).
const FILE_FORMAT_CRATES: &[&str] = &["zip", "serde_json", "ndarray-npy", "image", "png"];

#[test]
fn kernel_crates_without_default_features_pull_no_file_formats() {
    let mut violations = Vec::new();
    for package in [
        "orogen-world",
        "orogen-sampling",
        "orogen-mesh",
        "orogen-elevation",
        "orogen-hydrology",
        "orogen-biome",
        "orogen-flora",
    ] {
        let tree = normal_tree(package, false);
        assert!(
            tree.iter().any(|n| n == "ndarray"),
            "cargo tree -p {package} lists its dependencies: {tree:?}"
        );
        for bad in FILE_FORMAT_CRATES {
            if tree.iter().any(|n| n == bad) {
                violations.push(format!("{package} pulls {bad}"));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "kernel crates must build without the file formats (depend on orogen-world with \
         default-features = false): {violations:?}"
    );
}

#[test]
fn the_world_file_io_is_behind_the_npz_feature() {
    // The control of the test above: with its default `npz` feature orogen-world does pull the
    // container, so a tree without zip is a tree without the feature, not a blind reading.
    let with = normal_tree("orogen-world", true);
    for needed in ["zip", "serde_json", "ndarray-npy"] {
        assert!(
            with.iter().any(|n| n == needed),
            "orogen-world's default `npz` feature pulls {needed}: {with:?}"
        );
    }
    assert!(
        !normal_tree("orogen-world", false)
            .iter()
            .any(|n| n == "zip")
    );
}

/// The library crates forbid `unsafe` (the workspace's lints); only the `orogen` binary denies
/// it instead, with its other lints the workspace's, so that its one call into the C library's
/// allocator (`crates/cli/src/allocator.rs`, docs/architecture.md) is allowed where it stands.
#[test]
fn only_the_binary_s_allocator_may_use_unsafe() {
    let root = workspace_root();
    let read = |path: &std::path::Path| -> toml::Table {
        toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let workspace = read(&root.join("Cargo.toml"));
    let lints = workspace["workspace"]["lints"].as_table().unwrap();
    assert_eq!(lints["rust"]["unsafe_code"].as_str(), Some("forbid"));
    let members = workspace["workspace"]["members"].as_array().unwrap();
    let mut manifests: Vec<std::path::PathBuf> = Vec::new();
    for member in members {
        let member = member.as_str().unwrap();
        match member.strip_suffix("/*") {
            Some(dir) => {
                for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                    let manifest = entry.unwrap().path().join("Cargo.toml");
                    if manifest.exists() {
                        manifests.push(manifest);
                    }
                }
            }
            None => manifests.push(root.join(member).join("Cargo.toml")),
        }
    }
    assert!(manifests.len() >= 12, "{manifests:?}");
    for manifest in &manifests {
        let table = read(manifest);
        let name = table["package"]["name"].as_str().unwrap().to_owned();
        if name == "orogen-cli" {
            let mut own = table["lints"].as_table().unwrap().clone();
            let rust = own["rust"].as_table_mut().unwrap();
            assert_eq!(
                rust.remove("unsafe_code")
                    .and_then(|v| v.as_str().map(str::to_owned)),
                Some("deny".to_owned())
            );
            let mut expected = lints.clone();
            expected["rust"]
                .as_table_mut()
                .unwrap()
                .remove("unsafe_code");
            assert_eq!(
                own, expected,
                "orogen-cli's lints are the workspace's but unsafe_code"
            );
        } else {
            assert_eq!(
                table.get("lints").and_then(|l| l.get("workspace")),
                Some(&toml::Value::Boolean(true)),
                "{name} takes the workspace's lints"
            );
        }
    }
    // In the binary, `unsafe` only in its allocator module.
    let src = root.join("crates/cli/src");
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let uses = text.contains("unsafe {") || text.contains("allow(unsafe_code)");
        assert_eq!(
            uses,
            path.file_name().unwrap() == "allocator.rs",
            "{}",
            path.display()
        );
    }
}
