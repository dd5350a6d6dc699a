//! `pozo-sim bench` (to come).

use std::process::ExitCode;

/// `pozo-sim bench ARGS…`.
pub fn command(_args: Vec<String>) -> ExitCode {
    eprintln!("pozo-sim: bench is not built yet");
    ExitCode::from(2)
}

/// `pozo-sim bench-child ARGS…`: the processes the benchmark starts (hidden).
pub fn child(_args: Vec<String>) -> ExitCode {
    ExitCode::from(2)
}
