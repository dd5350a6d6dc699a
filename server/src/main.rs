//! `pozo-server`: the Pozo controller's command line (`pozo_server::cli`).

use std::process::ExitCode;

/// mimalloc instead of the system allocator: glibc's malloc and free were a quarter of
/// the controller's CPU under load (docs/benchmarks.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    pozo_server::cli::main()
}
