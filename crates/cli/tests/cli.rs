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

/// A batch run sets glibc's allocator to keep what it frees (`src/allocator.rs`), unless the
/// user's `GLIBC_TUNABLES` sets malloc's parameters.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn a_batch_run_keeps_its_memory_unless_the_user_tunes_malloc() {
    let out = std::env::temp_dir().join(format!("orogen-allocator-{}", std::process::id()));
    let run = |tunables: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_orogen"));
        command
            .args(["generate", "--cells", "300", "--outputs", "heightmap"])
            .args(["--resolution", "16", "--quiet", "--out"])
            .arg(&out)
            .env("OROGEN_LOG", "debug")
            .env_remove("GLIBC_TUNABLES");
        if let Some(t) = tunables {
            command.env("GLIBC_TUNABLES", t);
        }
        let done = command.output().expect("the binary runs");
        assert!(done.status.success(), "{done:?}");
        String::from_utf8(done.stderr).unwrap()
    };
    let log = run(None);
    assert!(log.contains("allocator: Set"), "{log}");
    let log = run(Some("glibc.malloc.arena_max=2"));
    assert!(log.contains("allocator: UsersOwn"), "{log}");
    let log = run(Some("glibc.cpu.hwcaps=-AVX512F"));
    assert!(log.contains("allocator: Set"), "{log}");
    let _ = std::fs::remove_dir_all(&out);
}
