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
//! libmimalloc-sys offers the option calls and the allocation calls only as `extern "C"`
//! functions, and a global allocator is an `unsafe` trait.

use std::alloc::{GlobalAlloc, Layout};

use libmimalloc_sys::{
    mi_free, mi_malloc, mi_malloc_aligned, mi_option_get, mi_option_set, mi_option_t, mi_realloc, mi_realloc_aligned, mi_zalloc,
    mi_zalloc_aligned,
};

/// The global allocator of the binaries: `#[global_allocator] static A: Allocator = Allocator;`.
///
/// mimalloc, asked for memory as Rust's own system allocator asks `malloc`: an alignment that
/// every block of the size already has is not asked for. (`mimalloc::MiMalloc` calls
/// `mi_malloc_aligned` for every allocation. mimalloc 3 answers that from its fast path only for
/// a block of at most 1 KiB with a free one at hand; otherwise, for a size that is not a power of
/// two, it allocates the size plus the alignment from another size class and aligns inside it.
/// Those slow paths were 5.5 % of the controller's samples under load, 3.4 % over-allocating:
/// docs/benchmarks.md, issue 47 step 13.)
#[derive(Clone, Copy, Debug, Default)]
pub struct Allocator;

/// The alignment of every block mimalloc gives out: its sizes are whole words, its pages aligned.
const WORD: usize = std::mem::size_of::<usize>();

/// Whether a plain `mi_malloc` of `size` bytes is aligned as `layout` asks.
fn plain(align: usize, size: usize) -> bool {
    align <= WORD && align <= size
}

// SAFETY: each call passes mimalloc a size and alignment as `Layout` guarantees them (an
// alignment that is a power of two, a size that does not overflow once rounded to it), frees
// only what it allocated, and asks for an alignment mimalloc does not give every block only
// through its `_aligned` calls.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi_malloc(layout.size()).cast()
            } else {
                mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi_zalloc(layout.size()).cast()
            } else {
                mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` was allocated by mimalloc (any of its calls frees with `mi_free`).
        unsafe { mi_free(ptr.cast()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as above; `ptr` was allocated by mimalloc with `layout`.
        unsafe {
            if plain(layout.align(), new_size) {
                mi_realloc(ptr.cast(), new_size).cast()
            } else {
                mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast()
            }
        }
    }
}

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

    /// Every size from 1 byte to 5 KiB, at every alignment up to a page, comes back aligned as
    /// asked, keeps its bytes through a `realloc` to another size, and is zeroed where asked.
    #[test]
    #[allow(unsafe_code)]
    fn every_block_is_aligned_as_asked_and_keeps_its_bytes() {
        let allocator = Allocator;
        for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
            for size in (1..=5 * 1024).step_by(7).chain([8, 16, 24, 1024, 1025, 1100, 4096]) {
                let layout = Layout::from_size_align(size, align).expect("a layout");
                // SAFETY: a layout of non-zero size; every block is freed with it.
                unsafe {
                    let block = allocator.alloc(layout);
                    assert!(!block.is_null() && (block as usize).is_multiple_of(align), "{size} bytes at {align}: {block:p}");
                    block.write_bytes(0xA5, size);
                    let grown = allocator.realloc(block, layout, size * 2 + 3);
                    assert!(!grown.is_null() && (grown as usize).is_multiple_of(align), "{size} grown at {align}");
                    assert!((0..size).all(|at| *grown.add(at) == 0xA5), "{size} at {align}: bytes lost in realloc");
                    allocator.dealloc(grown, Layout::from_size_align(size * 2 + 3, align).expect("a layout"));
                    let zeroed = allocator.alloc_zeroed(layout);
                    assert!(
                        (zeroed as usize).is_multiple_of(align) && (0..size).all(|at| *zeroed.add(at) == 0),
                        "{size} zeroed at {align}"
                    );
                    allocator.dealloc(zeroed, layout);
                }
            }
        }
    }

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
