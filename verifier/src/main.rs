//! `pozo-verifier --public-key KEY EVIDENCE.json…`: the verdict on a jornada's evidence (or on
//! consecutive jornadas'), in Spanish or JSON. Exit 0 conforme, 1 not, 2 what was given
//! cannot be read.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use pozo_verifier::format::FILE_BYTES_MAX;
use pozo_verifier::{PublicKey, castellano, verify};

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
    let cli = Cli::parse();
    let key_text = match std::fs::read_to_string(&cli.public_key) {
        Ok(text) => text,
        Err(_) if !cli.public_key.contains(['/', '.']) => cli.public_key.clone(),
        Err(error) => return unreadable(&format!("--public-key {}: {error}", cli.public_key)),
    };
    let registered = match PublicKey::parse(&key_text) {
        Ok(key) => key,
        Err(error) => return unreadable(&format!("--public-key: {error}")),
    };
    let mut files = Vec::with_capacity(cli.files.len());
    for path in &cli.files {
        match std::fs::metadata(path).map(|metadata| metadata.len()) {
            Ok(length) if length > FILE_BYTES_MAX => {
                return unreadable(&format!("{}: {length} bytes, more than the {FILE_BYTES_MAX} read", path.display()));
            }
            Ok(_) => {}
            Err(error) => return unreadable(&format!("{}: {error}", path.display())),
        }
        match std::fs::read(path) {
            Ok(bytes) => files.push((path.display().to_string(), bytes)),
            Err(error) => return unreadable(&format!("{}: {error}", path.display())),
        }
    }
    let verdict = verify(&files, &registered);
    if cli.json {
        println!("{}", serde_json::to_string_pretty(&verdict).expect("verdicts serialize"));
    } else {
        print!("{}", castellano(&verdict));
    }
    if verdict.conforme { ExitCode::SUCCESS } else { ExitCode::from(1) }
}

fn unreadable(message: &str) -> ExitCode {
    eprintln!("pozo-verifier: {message}");
    ExitCode::from(2)
}
