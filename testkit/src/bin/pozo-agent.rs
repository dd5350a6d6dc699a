//! `pozo-agent`, built in the test kit so that its tests reach it as `CARGO_BIN_EXE_testkit-pozo-agent`.

use std::process::ExitCode;

fn main() -> ExitCode {
    table_agent::cli::main()
}
