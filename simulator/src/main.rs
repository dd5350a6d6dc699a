//! `pozo-sim`: plays real casino games against the controller, replays nights and
//! measures. Its games, books check and benchmarks arrive with the controller and
//! the table agent; the command line is fixed here.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Pozo simulator: a casino night that replays load and proves the books.
#[derive(Parser)]
#[command(name = "pozo-sim", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play a night on many tables through real agents and check the books.
    Run {
        #[arg(long, default_value_t = 4)]
        tables: u32,
        #[arg(long, default_value_t = 100)]
        rounds: u32,
        /// The seed: the same seed gives the same night.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// A running controller; without it an embedded one is started.
        #[arg(long)]
        server: Option<String>,
        /// Write the night's figures as JSON.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
    },
    /// Drive a recorded night again and compare the books.
    Replay { file: PathBuf },
    /// Compare observed hit frequencies with the exact probabilities.
    Odds {
        #[arg(long)]
        game: String,
        #[arg(long, default_value_t = 1_000_000)]
        hands: u64,
    },
    /// Measure acknowledged presses per second, latency, memory and restart time.
    Bench {
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let name = match cli.command {
        Command::Run { .. } => "run",
        Command::Replay { .. } => "replay",
        Command::Odds { .. } => "odds",
        Command::Bench { .. } => "bench",
    };
    eprintln!("pozo-sim {name}: not built in this version (it needs the controller's table protocol)");
    ExitCode::from(2)
}
