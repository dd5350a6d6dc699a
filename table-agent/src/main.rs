//! `pozo-agent`: the table agent's command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use table_agent::SERVER_URL_DEFAULT;

/// Pozo table agent: hardware events in, signed commands out, seat lights from acks.
#[derive(Parser)]
#[command(name = "pozo-agent", version, about, long_about = None)]
struct Cli {
    /// The controller's gRPC address.
    #[arg(long, default_value = SERVER_URL_DEFAULT)]
    server: String,
    /// This table's id, as in the casino layout.
    #[arg(long)]
    table: String,
    /// The file holding this table's HMAC key.
    #[arg(long, value_name = "FILE")]
    key_file: PathBuf,
    /// Where hardware events arrive: `-` for stdin, or `unix:PATH`.
    #[arg(long, default_value = "-")]
    input: String,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Fail closed (3.7.5): with no table protocol yet, no bet may be taken.
    eprintln!(
        "pozo-agent: table {} cannot go live yet: the table protocol to {} is not built in this version; \
         no side bet is accepted (3.7.5)",
        cli.table, cli.server
    );
    ExitCode::from(2)
}
