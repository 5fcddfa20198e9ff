//! `cargo xtask COMMAND [ARGS]`: thin calls of `orogen` subcommands or of cargo.
//!
//! Every command that makes worlds builds the `orogen` binary in release and runs one of its
//! subcommands; the orchestration itself lives in the `orogen` crate, so a user without this
//! repository has it too. xtask depends on no orogen crate.
//!
//! - `cargo xtask generate [ARGS]`: `orogen generate --out out ARGS` (give `--out DIR` to choose).
//! - `cargo xtask profile STAGE [ARGS]`: `orogen profile STAGE ARGS` (one stage, repeated).
//! - `cargo xtask serve [ARGS]`: `orogen serve ARGS` (the playground; `--port`, `--host`).
//! - `cargo xtask bench [ARGS]`: `cargo bench -p orogen-benches ARGS`.
//! - `cargo xtask render3d [ARGS]`: `orogen render3d --script tools/blender/render.py ARGS`
//!   (Blender renders `out/world.glb` into `out/render3d.png`).
//!
//! The build shows cargo's own progress (the first release build takes several minutes on a
//! 2-core machine). A missing or unknown task prints the usage and exits with 2.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

const USAGE: &str = "usage: cargo xtask <generate|profile|serve|render3d|bench> [ARGS]";

fn main() -> std::process::ExitCode {
    match task() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            // One line, never a backtrace: these are the user's mistakes or a tool's failure.
            eprintln!("error: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}

fn task() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let Some(task) = args.next() else {
        bail!("no task given; {USAGE}");
    };
    let rest: Vec<String> = args.collect();
    match task.as_str() {
        "generate" => {
            let mut orogen_args = vec!["generate".to_owned()];
            if !rest.iter().any(|a| a == "--out" || a.starts_with("--out=")) {
                orogen_args.extend(["--out".to_owned(), root().join("out").display().to_string()]);
            }
            orogen_args.extend(rest);
            run_orogen(&orogen_args)
        }
        "profile" => run_orogen(&[vec!["profile".to_owned()], rest].concat()),
        "serve" => run_orogen(&[vec!["serve".to_owned()], rest].concat()),
        "render3d" => {
            let mut orogen_args = vec!["render3d".to_owned()];
            for (flag, default) in [
                ("--glb", root().join("out/world.glb")),
                ("--out", root().join("out/render3d.png")),
                ("--script", root().join("tools/blender/render.py")),
            ] {
                if !rest
                    .iter()
                    .any(|a| a == flag || a.starts_with(&format!("{flag}=")))
                {
                    orogen_args.extend([flag.to_owned(), default.display().to_string()]);
                }
            }
            orogen_args.extend(rest);
            run_orogen(&orogen_args)
        }
        "bench" => run(Command::new(cargo())
            .current_dir(root())
            .args(["bench", "-p", "orogen-benches"])
            .args(&rest)),
        other => bail!("unknown task `{other}`; {USAGE}"),
    }
}

/// Builds `orogen` in release (with cargo's progress: the first build takes minutes) and runs
/// it with `args`, passing its exit code on.
fn run_orogen(args: &[String]) -> Result<()> {
    eprintln!(
        "building orogen in release (cargo build --release -p orogen-cli; the first build takes \
         several minutes on a 2-core machine, later ones seconds)"
    );
    run(Command::new(cargo()).current_dir(root()).args([
        "build",
        "--release",
        "-p",
        "orogen-cli",
        "--bin",
        "orogen",
    ]))?;
    let bin = target_dir()
        .join("release")
        .join(format!("orogen{}", std::env::consts::EXE_SUFFIX));
    run(Command::new(bin).args(args))
}

fn run(cmd: &mut Command) -> Result<()> {
    let status = cmd
        .status()
        .with_context(|| format!("cannot run {cmd:?}"))?;
    if !status.success() {
        std::process::exit(status.code().unwrap_or(1));
    }
    Ok(())
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the workspace root")
        .to_owned()
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from)
}
