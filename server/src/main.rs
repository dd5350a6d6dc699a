//! `pozo-server`: the Pozo controller's command line (`pozo_server::cli`).

use std::process::ExitCode;

/// mimalloc, tuned (`pozo_alloc`).
#[global_allocator]
static ALLOCATOR: pozo_alloc::Allocator = pozo_alloc::Allocator;

fn main() -> ExitCode {
    pozo_alloc::tune();
    pozo_server::cli::main()
}
