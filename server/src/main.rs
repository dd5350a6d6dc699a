//! `pozo-server`: the Pozo controller's command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use pozo_engine::format_ars;
use pozo_server::award::{self, ROUND_FILE_BYTES_MAX};
use pozo_server::rulebooks::{self, read_bounded};

/// Exit code for input that breaks a rule: a bad round file or rulebook.
const EXIT_BAD_INPUT: u8 = 2;

/// Pozo: the progressive jackpot controller for casino table games.
#[derive(Parser)]
#[command(name = "pozo-server", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compute the awards of one round from a round file (disputes and audits).
    Award {
        /// The round file: {"pool", "balance", "winners": [{"seat", "code", "bet"?, "high"?}]}.
        #[arg(long, value_name = "FILE.json")]
        round: PathBuf,
        /// Rulebook file(s) to use instead of the embedded default; repeatable.
        #[arg(long, value_name = "FILE")]
        rulebook: Vec<PathBuf>,
        /// Print for the cashier's window ($ 12.345,67) instead of JSON.
        #[arg(long)]
        text: bool,
    },
    /// Validate rulebook files (or the embedded default) and list their pools.
    Rulebooks {
        /// Rulebook file(s) to check instead of the embedded default; repeatable.
        #[arg(long, value_name = "FILE")]
        rulebook: Vec<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Award { round, rulebook, text } => run_award(&round, &rulebook, text),
        Command::Rulebooks { rulebook } => run_rulebooks(&rulebook),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("pozo-server: {error:#}");
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}

fn run_award(round: &std::path::Path, rulebook_files: &[PathBuf], text: bool) -> anyhow::Result<()> {
    let rulebooks = rulebooks::load(rulebook_files)?;
    let content = read_bounded(round, ROUND_FILE_BYTES_MAX)?;
    let name = round.display();
    let parsed = award::parse_round(&content).map_err(|error| anyhow::anyhow!("{name}: {error}"))?;
    let report = award::calculate(&rulebooks, &parsed).map_err(|error| anyhow::anyhow!("{name}: {error}"))?;
    if text {
        print!("{}", award::render_text(&report));
    } else {
        println!("{}", serde_json::to_string_pretty(&report)?);
    }
    Ok(())
}

fn run_rulebooks(rulebook_files: &[PathBuf]) -> anyhow::Result<()> {
    let rulebooks = rulebooks::load(rulebook_files)?;
    for rules in rulebooks.pools() {
        println!(
            "{:<20} {:<18} mínimo {:>14}  apuesta {:>10}  incremento {}  ({}, arts. {})",
            rules.id,
            rules.policy.name(),
            format_ars(rules.minimum),
            format_ars(rules.side_bet),
            rules.contribution_rate,
            rules.file,
            rules.articles
        );
        for prize in &rules.prizes {
            println!("    {:<24} {}", prize.code, prize.article);
        }
    }
    Ok(())
}
