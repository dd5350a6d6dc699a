//! `pozo-agent`: the table agent's command line (`table_agent::cli`).

use std::process::ExitCode;

fn main() -> ExitCode {
    table_agent::cli::main()
}
