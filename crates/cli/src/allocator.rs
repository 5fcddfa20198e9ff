//! The C library's allocator, set for one batch run (Linux with glibc; elsewhere nothing).
//!
//! A run allocates arrays of every stage's size, frees them and allocates the next stage's.
//! glibc serves an allocation above 32 MiB (4,000,000 cells' corner arrays, most images at
//! 4096 px) with a fresh mapping, gives each rayon thread an arena of its own whose heaps it
//! unmaps when they empty, and trims the main heap's free top: each time the next stage's
//! arrays are new pages the kernel must clear, and on a virtual machine whose host takes back
//! the freed pages, dear ones (`docs/performance.md`, "One arena, kept"). For a process that
//! exits when the run ends, one arena that never returns memory reuses every freed page
//! instead: measured here, hydrology at 4,000,000 cells about twice as fast and the mesh a
//! fifth faster, a run of 50,000 or 1,000,000 cells a few percent faster, 4096 px images a
//! tenth, and every peak within a few MiB of glibc's defaults (lower at 1,000,000 cells).
//!
//! This is the binary's only `unsafe` (the library crates forbid it): libraries run in their
//! callers' processes and must not set their allocator. A user's own `GLIBC_TUNABLES` for
//! malloc wins: with one set, nothing is changed.

/// What [`keep_memory`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kept {
    /// One arena, no mappings, no trimming: glibc took all three settings.
    Set,
    /// The user's `GLIBC_TUNABLES` sets malloc's parameters: left as they are.
    UsersOwn,
    /// glibc refused a setting (the ones before it stay set).
    Refused,
    /// Not Linux with glibc.
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    Unsupported,
}

/// Whether the environment's `GLIBC_TUNABLES` (`tunables`) sets any of malloc's parameters.
fn users_own(tunables: Option<&str>) -> bool {
    tunables.is_some_and(|t| {
        t.split(':')
            .any(|kv| kv.trim().starts_with("glibc.malloc."))
    })
}

/// Sets glibc's allocator for a batch run: one arena for every thread, no allocation served by
/// a mapping of its own, the heap never trimmed. Call it before the threads start (the arenas
/// they would have made are then never made).
pub fn keep_memory() -> Kept {
    if users_own(std::env::var("GLIBC_TUNABLES").ok().as_deref()) {
        return Kept::UsersOwn;
    }
    set()
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn set() -> Kept {
    let settings = [
        (libc::M_ARENA_MAX, 1),
        (libc::M_MMAP_MAX, 0),
        (libc::M_TRIM_THRESHOLD, libc::c_int::MAX),
    ];
    for (param, value) in settings {
        // SAFETY: `mallopt` only sets the allocator's parameters (under its own lock); these
        // three are valid at any time, and it returns 0 for a value it refuses.
        if unsafe { libc::mallopt(param, value) } != 1 {
            return Kept::Refused;
        }
    }
    Kept::Set
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn set() -> Kept {
    Kept::Unsupported
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_users_malloc_tunables_win_and_others_do_not_count() {
        assert!(users_own(Some("glibc.malloc.arena_max=4")));
        assert!(users_own(Some(
            "glibc.cpu.hwcaps=-AVX2:glibc.malloc.trim_threshold=1"
        )));
        assert!(!users_own(Some("glibc.cpu.hwcaps=-AVX2")));
        assert!(!users_own(Some("")));
        assert!(!users_own(None));
    }

    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn glibc_takes_every_setting() {
        // The settings themselves (not `keep_memory`, which the test's environment may skip).
        assert_eq!(set(), Kept::Set);
        // Allocations still work, large ones included (now from the heap, not a mapping).
        let big = vec![7u8; 64 << 20];
        assert_eq!(
            big.iter().map(|&b| u64::from(b)).sum::<u64>(),
            7 * (64 << 20)
        );
    }
}
