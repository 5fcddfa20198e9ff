//! The README's commands, walked the way a newcomer would: every `orogen ...` and
//! `cargo xtask generate|profile ...` line of its code blocks runs, in order, in one fresh
//! folder, and must succeed as documented. After each run the output folder holds exactly the
//! files its `world.json` lists (a run owns its folder). Commands that need what a test cannot
//! give are left out and named: the web server, Blender, cargo itself (test, install, fuzz,
//! bench), a cluster of hosts.

use std::path::Path;

use orogen_tests::{orogen_bin, workspace_root};

/// The commands of the README's fenced code blocks, comments cut.
fn readme_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).unwrap();
    let mut commands = Vec::new();
    let mut in_block = false;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if !in_block {
            continue;
        }
        let command = line.split(" #").next().unwrap().trim();
        if !command.is_empty() {
            commands.push(command.to_owned());
        }
    }
    commands
}

/// The `orogen` arguments of a README command, or why the walk leaves it out.
fn orogen_args(command: &str) -> Result<Vec<String>, &'static str> {
    let words: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
    let strs: Vec<&str> = words.iter().map(String::as_str).collect();
    match strs.as_slice() {
        ["orogen", "serve", ..] | ["cargo", "xtask", "serve", ..] => Err("a web server"),
        ["orogen", "render3d", ..] | ["cargo", "xtask", "render3d", ..] => Err("Blender"),
        ["cargo", "xtask", "generate", rest @ ..] => {
            let mut args = vec!["generate".to_owned()];
            if !rest.contains(&"--out") {
                args.extend(["--out".to_owned(), "out".to_owned()]);
            }
            args.extend(rest.iter().map(|s| (*s).to_owned()));
            Ok(args)
        }
        ["cargo", "xtask", "profile", rest @ ..] => Ok(std::iter::once("profile")
            .chain(rest.iter().copied())
            .map(str::to_owned)
            .collect()),
        ["cargo", ..] | ["cd", ..] => Err("cargo itself"),
        ["orogen", .., "--", "-n", _, "-p", _, "-h", _] => Err("a cluster of hosts"),
        ["orogen", rest @ ..] => Ok(rest.iter().map(|s| (*s).to_owned()).collect()),
        _ => Err("not a command of orogen"),
    }
}

/// A small DEM for the README's `orogen dem` commands (`dem.npy`): a tilted plane with a pit.
fn write_dem(path: &Path) {
    let n = 64;
    let dem = ndarray::Array2::from_shape_fn((n, n), |(r, c)| {
        let pit = if (20..24).contains(&r) && (30..34).contains(&c) {
            -5.0
        } else {
            0.0
        };
        (r + c) as f32 * 0.5 + pit
    });
    ndarray_npy::write_npy(path, &dem).unwrap();
}

/// The output folder holds what its `world.json` lists, and nothing else orogen wrote.
fn check_owned(out: &Path, command: &str) {
    let sidecar: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("world.json")).unwrap()).unwrap();
    let mut listed: Vec<String> = sidecar["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_owned())
        .filter(|f| f != "world.json")
        .collect();
    listed.sort();
    let mut present: Vec<String> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f != "world.json")
        .collect();
    present.sort();
    assert_eq!(present, listed, "`{command}`: the folder holds other files");
}

#[test]
fn the_readme_commands_work_as_documented() {
    let dir = tempfile::tempdir().unwrap();
    write_dem(&dir.path().join("dem.npy"));
    let mut ran = 0;
    let mut left_out = Vec::new();
    for command in readme_commands() {
        let args = match orogen_args(&command) {
            Ok(args) => args,
            Err(why) => {
                left_out.push(format!("{command} ({why})"));
                continue;
            }
        };
        let out = std::process::Command::new(orogen_bin())
            .args(&args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "README command `{command}` failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if args[0] == "generate" {
            check_owned(&dir.path().join("out"), &command);
        }
        ran += 1;
    }
    eprintln!("README walk: {ran} commands ran; left out: {left_out:#?}");
    assert!(ran >= 10, "only {ran} README commands ran");
    // What the walk produced, as the README says.
    let classic_then_3d = dir.path().join("out");
    assert!(classic_then_3d.join("world.json").is_file());
    for name in ["filled.npy", "eps.npy", "receivers.npy", "acc.npy"] {
        assert!(dir.path().join(name).is_file(), "{name}");
    }
}
