//! `pozo-server`, built in the test kit so that its tests reach it as `CARGO_BIN_EXE_testkit-pozo-server`.

use std::process::ExitCode;

/// The allocator `pozo-server` runs with.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    pozo_server::cli::main()
}
