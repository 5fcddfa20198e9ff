//! For tests that need an external tool or data set (Blender, Node's glTF validator, the
//! reference DEM): under CI (the `CI` environment variable set, as `.ci/run` does) a missing
//! piece fails the test with one line naming what to install, so a broken install is never
//! green; on a developer's machine the test is skipped, loudly.
//!
//! ```
//! // A tool that is there: nothing happens, the test goes on.
//! assert!(orogen_world::testing::require(true, "my_test", "`true`", "nothing"));
//! ```

/// True when CI is asking: the `CI` environment variable is set (to anything but `""`,
/// `0` or `false`).
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false"))
}

/// Returns `present`; when it is false, panics under CI with one line (`test`: `what` is
/// missing: `install`), or prints a loud SKIPPED line elsewhere, so the caller returns early.
pub fn require(present: bool, test: &str, what: &str, install: &str) -> bool {
    if !present {
        let line = format!("{test}: {what} is missing; {install}");
        if under_ci() {
            panic!("{line} (CI is set, so a missing tool fails the test)");
        }
        eprintln!("\n*** SKIPPED {line} ***\n");
    }
    present
}
