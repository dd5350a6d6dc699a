//! The allocator every Pozo binary that runs the controller uses: mimalloc, with the delay
//! before it returns freed memory to the system shortened.
//!
//! # Layout
//! - [`Allocator`]: the `#[global_allocator]` (mimalloc instead of glibc's malloc, whose
//!   malloc and free were a quarter of the controller's CPU under load).
//! - [`tune`]: called first thing in `main`; sets the purge delay.
//!
//! mimalloc 3 keeps a freed page for a whole second (`purge_delay` = 1000 ms) before giving
//! it back. Under load the controller frees on one thread what another allocated (tonic's
//! buffers, sled's epochs), so about a second of such pages stayed resident: 128–167 MiB with
//! 1,000 tables. Ten milliseconds, mimalloc 2's default, keeps the rate and brings it under
//! 100 MiB (docs/benchmarks.md, "Memory"). An operator's `MIMALLOC_PURGE_DELAY` still wins.
//!
//! This crate is the only one in the workspace allowed `unsafe` (the workspace forbids it):
//! libmimalloc-sys offers the option calls only as `extern "C"` functions.

/// The global allocator of the binaries: `#[global_allocator] static A: Allocator = Allocator;`.
pub use mimalloc::MiMalloc as Allocator;

use libmimalloc_sys::{mi_option_get, mi_option_set, mi_option_t};

/// `mi_option_purge_delay`, index 15 of `mi_option_t` in mimalloc 3's `mimalloc.h`
/// (libmimalloc-sys names no constant for it; `tests` checks the index).
const PURGE_DELAY: mi_option_t = 15;

/// The purge delay the controller runs with, in milliseconds.
pub const PURGE_DELAY_MS: i32 = 10;

/// The environment variable mimalloc reads its purge delay from; when set, it wins.
pub const PURGE_DELAY_VARIABLE: &str = "MIMALLOC_PURGE_DELAY";

/// Sets the purge delay to [`PURGE_DELAY_MS`] unless `MIMALLOC_PURGE_DELAY` is set.
pub fn tune() {
    if std::env::var_os(PURGE_DELAY_VARIABLE).is_none() {
        // SAFETY: an in-range index; mimalloc stores the value into its option table.
        #[allow(unsafe_code)]
        unsafe {
            mi_option_set(PURGE_DELAY, std::ffi::c_long::from(PURGE_DELAY_MS))
        };
    }
}

/// The purge delay in force, in milliseconds.
pub fn purge_delay_ms() -> std::ffi::c_long {
    // SAFETY: an in-range index; mimalloc reads its option table.
    #[allow(unsafe_code)]
    let value = unsafe { mi_option_get(PURGE_DELAY) };
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Index 15 is the purge delay: it reads mimalloc 3's default (1000 ms, which no other
    /// option has) until `tune` sets ours. Fails if a new mimalloc moves the option.
    #[test]
    fn the_index_is_the_purge_delay() {
        assert!(std::env::var_os(PURGE_DELAY_VARIABLE).is_none(), "run the tests without {PURGE_DELAY_VARIABLE}");
        assert_eq!(purge_delay_ms(), 1000, "mimalloc 3's default purge delay");
        tune();
        assert_eq!(purge_delay_ms(), std::ffi::c_long::from(PURGE_DELAY_MS));
    }
}
