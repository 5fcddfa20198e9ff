//! Helpers for tests. [`npy_bytes`] writes a `.npy` file by hand (any dtype, order and header, so
//! tests can also craft bad ones).
//!
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

/// The bytes of a version-1 `.npy` file: `descr` (a NumPy dtype string such as `<f4`), `fortran`
/// (column-major data), `shape` (a Python tuple such as `(3, 5)`) and the raw data bytes.
///
/// ```
/// let bytes = orogen_world::testing::npy_bytes("<f4", false, "(1, 2)", &[0; 8]);
/// assert!(bytes.starts_with(b"\x93NUMPY\x01\x00"));
/// assert_eq!(bytes.len() % 64, 8); // the header pads the data to a multiple of 64
/// ```
pub fn npy_bytes(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
    let order = if fortran { "True" } else { "False" };
    let dict = format!("{{'descr': '{descr}', 'fortran_order': {order}, 'shape': {shape}, }}");
    let mut header = dict.into_bytes();
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(b' ');
    }
    header.push(b'\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(&header);
    bytes.extend_from_slice(data);
    bytes
}
