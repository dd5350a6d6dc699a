//! `pozo-verifier --public-key KEY EVIDENCE.json…`: the verdict on a jornada's evidence (or on
//! consecutive jornadas'), in Spanish or JSON. Exit 0 conforme, 1 not, 2 what was given
//! cannot be read.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use pozo_verifier::format::read;
use pozo_verifier::{PublicKey, castellano, hidden, verify_paths, visible};

/// Checks jornadas' evidence files offline: the casino's signature, the hash chain, every entry
/// recomputed, the books tied to zero, consecutive jornadas linked (docs/journal.md).
#[derive(Parser)]
#[command(name = "pozo-verifier", version, about)]
struct Cli {
    /// The casino's registered public key: a PEM `PUBLIC KEY` file, or its 64 hex digits.
    #[arg(long, value_name = "FILE|HEX")]
    public_key: String,
    /// Print the verdict as JSON instead of text.
    #[arg(long)]
    json: bool,
    /// The evidence files, of one jornada or of several (any order: they are put in the
    /// journal's order and each must continue the one before).
    #[arg(required = true, value_name = "EVIDENCE.json")]
    files: Vec<PathBuf>,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            // clap quotes what it was given: shown, not obeyed, by the terminal.
            let text: String = error.render().to_string().lines().map(|line| format!("{}\n", visible(line))).collect();
            match error.use_stderr() {
                true => eprint!("{text}"),
                false => print!("{text}"),
            }
            return ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2));
        }
    };
    // A file when there is one (a regular file only, as the evidence: a FIFO or a device is
    // refused, not waited on or read without end), else the key's hex digits.
    let key_path = std::path::Path::new(&cli.public_key);
    let key_text = match std::fs::metadata(key_path) {
        Ok(_) => match read(key_path).map(String::from_utf8) {
            Ok(Ok(text)) => text,
            Ok(Err(_)) => return unreadable(&format!("--public-key {}: not text", cli.public_key)),
            Err(error) => return unreadable(&format!("--public-key {error}")),
        },
        Err(_) if !cli.public_key.contains(['/', '.']) => cli.public_key.clone(),
        Err(error) => return unreadable(&format!("--public-key {}: {error}", cli.public_key)),
    };
    let registered = match PublicKey::parse(&key_text) {
        Ok(key) => key,
        Err(error) => return unreadable(&format!("--public-key: {error}")),
    };
    // The journal's order first, one file at a time; then each file checked in that order,
    // holding only what links it to the next: the memory of one file, not of all.
    let verdict = match verify_paths(&cli.files, &registered) {
        Ok(verdict) => verdict,
        Err(error) => return unreadable(&error),
    };
    if cli.json {
        // JSON escapes C0 itself; DEL, C1 and bidirectional controls are escaped as `\uXXXX` too,
        // which any JSON reader reads back as the same text.
        let json = serde_json::to_string_pretty(&verdict).expect("verdicts serialize");
        let json: String = json
            .chars()
            .map(|c| match c != '\n' && hidden(c) {
                true => format!("\\u{:04x}", u32::from(c)),
                false => c.to_string(),
            })
            .collect();
        println!("{json}");
    } else {
        print!("{}", castellano(&verdict));
    }
    if verdict.conforme { ExitCode::SUCCESS } else { ExitCode::from(1) }
}

fn unreadable(message: &str) -> ExitCode {
    eprintln!("pozo-verifier: {}", visible(message));
    ExitCode::from(2)
}
