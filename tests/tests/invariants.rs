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
