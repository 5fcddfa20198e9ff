//! Every crate is publishable and shows a user where to start: a README whose example block is
//! exactly a compiled example of the crate (run by `tests/consumer`), and the package metadata
//! crates.io shows.

use std::fs;
use std::path::Path;

use orogen_tests::workspace_root;

/// The crate folders under `crates/`.
fn crate_dirs() -> Vec<std::path::PathBuf> {
    let mut dirs: Vec<_> = fs::read_dir(workspace_root().join("crates"))
        .expect("crates/ exists")
        .map(|e| e.expect("a readable entry").path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// The first fenced block whose info string is `lang`, without its fences.
fn fenced_block<'a>(text: &'a str, lang: &str) -> Option<&'a str> {
    let open = format!("```{lang}\n");
    let start = text.find(&open)? + open.len();
    let len = text[start..].find("\n```")? + 1;
    Some(&text[start..start + len])
}

/// The example a README runs: the NAME of its `--example NAME`.
fn example_name(readme: &str) -> Option<&str> {
    let rest = &readme[readme.find("--example ")? + "--example ".len()..];
    rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
}

/// What is wrong with one crate's README, example and metadata (empty when nothing is).
fn problems(dir: &Path) -> Vec<String> {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let mut out = Vec::new();
    let manifest = fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    for field in [
        "description =",
        "readme = \"README.md\"",
        "documentation =",
        "keywords =",
        "categories =",
        "rust-version.workspace = true",
        "license.workspace = true",
    ] {
        if !manifest.contains(field) {
            out.push(format!("crates/{name}/Cargo.toml lacks `{field}`"));
        }
    }
    let Ok(readme) = fs::read_to_string(dir.join("README.md")) else {
        out.push(format!("crates/{name} has no README.md"));
        return out;
    };
    if name == "cli" {
        // The binary: its README shows commands; a program uses the `orogen` library.
        return out;
    }
    let Some(example) = example_name(&readme) else {
        out.push(format!(
            "crates/{name}/README.md names no `--example NAME` to run"
        ));
        return out;
    };
    let path = dir.join("examples").join(format!("{example}.rs"));
    let Ok(code) = fs::read_to_string(&path) else {
        out.push(format!(
            "crates/{name}/README.md runs examples/{example}.rs, which is absent"
        ));
        return out;
    };
    match fenced_block(&readme, "rust") {
        None => out.push(format!("crates/{name}/README.md has no ```rust block")),
        Some(block) if block != code => out.push(format!(
            "crates/{name}/README.md: the ```rust block differs from examples/{example}.rs \
             (paste the file into the README)"
        )),
        Some(_) => {}
    }
    out
}

#[test]
fn every_crate_has_a_readme_showing_a_compiled_example_and_full_metadata() {
    let dirs = crate_dirs();
    assert!(dirs.len() >= 9, "the crates are found: {dirs:?}");
    let all: Vec<String> = dirs.iter().flat_map(|d| problems(d)).collect();
    assert!(all.is_empty(), "{all:#?}");
}

#[test]
fn the_consumer_runs_every_kernel_crates_readme_example() {
    // tests/consumer includes each README example as a module and runs it, outside the
    // workspace: a README example that it does not include is compiled but never run.
    let consumer = fs::read_to_string(workspace_root().join("tests/consumer/src/main.rs"))
        .expect("tests/consumer/src/main.rs exists");
    let mut missing = Vec::new();
    for dir in crate_dirs() {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if matches!(name.as_str(), "orogen" | "playground" | "cli") {
            // Not kernel crates: the pipeline (its example needs the whole workspace anyway),
            // the server (its example binds a port) and the binary.
            continue;
        }
        let readme = fs::read_to_string(dir.join("README.md")).unwrap_or_default();
        let Some(example) = example_name(&readme) else {
            missing.push(format!("{name}: no example"));
            continue;
        };
        let include = format!("crates/{name}/examples/{example}.rs\"]");
        if !consumer.contains(&include) {
            missing.push(format!("{name}: tests/consumer does not include {include}"));
        }
    }
    assert!(missing.is_empty(), "{missing:#?}");
}

#[test]
fn the_checks_catch_a_stale_readme() {
    // The comparison must be able to fail: a crate whose README block is not its example file,
    // or whose manifest lacks the metadata, is refused; the same crate in sync passes.
    let dir = tempfile::tempdir().unwrap();
    let demo = dir.path().join("demo");
    fs::create_dir_all(demo.join("examples")).unwrap();
    fs::write(
        demo.join("Cargo.toml"),
        "description = \"x\"\nreadme = \"README.md\"\ndocumentation = \"x\"\nkeywords = []\ncategories = []\n\
         rust-version.workspace = true\nlicense.workspace = true\n",
    )
    .unwrap();
    let code = "fn main() {\n    println!(\"hi\");\n}\n";
    fs::write(demo.join("examples/demo.rs"), code).unwrap();
    let readme =
        |block: &str| format!("`cargo run -p demo --example demo`\n\n```rust\n{block}```\n");
    fs::write(demo.join("README.md"), readme(code)).unwrap();
    assert_eq!(problems(&demo), Vec::<String>::new());
    fs::write(demo.join("README.md"), readme("fn main() {}\n")).unwrap();
    assert!(problems(&demo).iter().any(|p| p.contains("differs")));
    fs::write(demo.join("Cargo.toml"), "description = \"x\"\n").unwrap();
    assert!(problems(&demo).iter().any(|p| p.contains("keywords")));
}

/// The user's project (`tests/consumer`) and the fuzz targets (`fuzz`) have lock files of their
/// own, which CI builds with `--locked`: when a crate gains a dependency, they must list it too
/// (a stale one failed CI once, after the export crate took `bytemuck`). `cargo update
/// --workspace --locked --offline` changes nothing when a lock file is current and refuses when
/// it would have to.
#[test]
fn outside_lock_files_are_current() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    for project in ["tests/consumer", "fuzz"] {
        let manifest = workspace_root().join(project).join("Cargo.toml");
        let out = std::process::Command::new(&cargo)
            .args([
                "update",
                "--workspace",
                "--locked",
                "--offline",
                "--manifest-path",
            ])
            .arg(&manifest)
            .output()
            .expect("cargo runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.success() {
            continue;
        }
        assert!(
            !stderr.contains("--locked"),
            "{project}/Cargo.lock is stale: run `cargo update --workspace --manifest-path \
             {project}/Cargo.toml` and commit it\n{stderr}"
        );
        // Anything else is the machine (a registry cache without these crates, offline).
        let line = format!(
            "cannot check {project}/Cargo.lock offline: fetch its crates first (`cargo fetch \
             --manifest-path {project}/Cargo.toml`): {stderr}"
        );
        assert!(std::env::var_os("CI").is_none(), "{line}");
        eprintln!("SKIPPED: {line}");
    }
}
