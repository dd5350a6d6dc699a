//! `pozo-server`, built in the test kit so that its tests reach it as `CARGO_BIN_EXE_testkit-pozo-server`.

use std::process::ExitCode;

/// mimalloc, tuned (`pozo_alloc`).
#[global_allocator]
static ALLOCATOR: pozo_alloc::Allocator = pozo_alloc::Allocator;

fn main() -> ExitCode {
    pozo_alloc::tune();
    pozo_server::cli::main()
}
