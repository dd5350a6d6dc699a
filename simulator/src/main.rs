//! `pozo-sim`: plays real casino games against the controller, replays nights and
//! measures. `odds` works today; `run`, `replay` and `bench` are still to come
//! (issue 5) and exit 2 saying so.

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

/// The most hands `odds` deals in one run: a bound on its time.
const ODDS_HANDS_MAX: u64 = 100_000_000;

/// A deviation beyond this many standard errors fails `odds`.
const ODDS_TOLERANCE_SE: f64 = 4.0;

#[derive(Subcommand)]
enum Command {
    /// Play a night on many tables through real agents and check the books (not built yet).
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
    /// Drive a recorded night again and compare the books (not built yet).
    Replay { file: PathBuf },
    /// Compare observed hit frequencies of each premio code with the exact probabilities.
    Odds {
        /// central-poker, caribbean-poker, go-poker, draw-poker, poker-sin-descarte, or ruleta-americana (grillo series).
        #[arg(long)]
        game: String,
        #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..=ODDS_HANDS_MAX))]
        hands: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Write the report as JSON.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
    },
    /// Measure acknowledged presses per second against a bare gRPC echo, latency, memory and restart time.
    /// `pozo-sim bench --help` for its options.
    #[command(disable_help_flag = true)]
    Bench {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// The processes `bench` starts (a controller, an echo server); not for operators.
    #[command(hide = true, disable_help_flag = true)]
    BenchChild {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Odds { game, hands, seed, json } => run_odds(&game, hands, seed, json.as_deref()),
        Command::Bench { args } => pozo_sim::bench::command(args),
        Command::BenchChild { args } => pozo_sim::bench::child(args),
        Command::Run { .. } | Command::Replay { .. } => {
            eprintln!("pozo-sim: this command is not built yet (issue 5); `pozo-sim odds` is");
            ExitCode::from(2)
        }
    }
}

// Statistics, not money.
#[allow(clippy::float_arithmetic)]
fn run_odds(game: &str, hands: u64, seed: u64, json: Option<&std::path::Path>) -> ExitCode {
    let report = match pozo_sim::odds::odds(game, hands, seed) {
        Ok(report) => report,
        Err(error) => {
            eprintln!("pozo-sim: {error}");
            return ExitCode::from(2);
        }
    };
    println!("{} ({}): {} hands, seed {}", report.game, report.pool, report.hands, report.seed);
    println!("{:<22} {:>12} {:>14} {:>10} {:>8}", "code", "observed", "expected", "std err", "dev (SE)");
    for code in &report.codes {
        println!(
            "{:<22} {:>12} {:>14.2} {:>10.2} {:>8.2}",
            code.code, code.observed, code.expected, code.standard_error, code.deviation_se
        );
    }
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&report).expect("reports serialize");
        if let Err(error) = std::fs::write(path, text) {
            eprintln!("pozo-sim: {}: {error}", path.display());
            return ExitCode::from(2);
        }
    }
    if report.max_abs_deviation_se > ODDS_TOLERANCE_SE {
        eprintln!("pozo-sim: a code deviates {:.2} standard errors, over {ODDS_TOLERANCE_SE}", report.max_abs_deviation_se);
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
