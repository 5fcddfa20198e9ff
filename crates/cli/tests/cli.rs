//! The binary as cargo builds it for this test run (`CARGO_BIN_EXE_orogen`). Having an
//! integration test also makes `cargo test --workspace` build `target/debug/orogen` with the test
//! build's features, which the workspace tests in `tests/` then run without a second build.

use std::process::Command;

fn orogen(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_orogen"))
        .args(args)
        .output()
        .expect("the binary runs")
}

#[test]
fn version_and_help_name_the_package_and_every_command() {
    let out = orogen(&["--version"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        format!("orogen {}", env!("CARGO_PKG_VERSION"))
    );
    let out = orogen(&["--help"]);
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    for command in [
        "generate", "export", "params", "dem", "profile", "serve", "render3d",
    ] {
        assert!(
            help.lines().any(|l| l.trim_start().starts_with(command)),
            "`orogen --help` lists {command}: {help}"
        );
    }
    // No command is a usage error: exit 2, not a panic.
    assert_eq!(orogen(&[]).status.code(), Some(2));
}
