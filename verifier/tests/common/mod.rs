//! What the verifier's tests share: nights at table B1 written as the journal writes its
//! records (the pure core, no server), their evidence made and sealed, and the binary run.

#![allow(dead_code, reason = "each test file uses part of it")]

use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::sync::Arc;

use pozo_core::config::Config;
use pozo_core::state::{Command, Context, State, TableCommand, TableOp};
use pozo_verifier::SigningKey;
use pozo_verifier::format::{CONTEXT, Evidence, entry_hash, genesis_previous};
use pozo_verifier::make::{Journal, make};

pub const BIN: &str = env!("CARGO_BIN_EXE_pozo-verifier");
/// 2026-11-22 20:00 in the casino's zone (UTC-03:00).
pub const NIGHT_ONE: u64 = 1_795_305_600_000 + 23 * 3_600_000;
pub const DAY: u64 = 24 * 3_600_000;
pub const INSTALLATION: &str = "00112233445566778899aabbccddeeff";

pub fn dealer(sequence: u64, op: TableOp) -> Command {
    Command::Table(TableCommand {
        table_id: "B1".into(),
        sequence,
        payload_sha256: format!("{sequence:064x}"),
        op,
        card: None,
        inspector: None,
    })
}

/// A night: its jornada, the state before its first entry (none before genesis), the anchor,
/// its records.
pub struct Night {
    pub jornada: String,
    pub opening: Option<State>,
    pub anchor: [u8; 32],
    pub records: Vec<Vec<u8>>,
}

impl Night {
    /// Its evidence, as `pozo-server evidence` makes it.
    pub fn evidence(&self) -> Evidence {
        let journal = Journal { installation: INSTALLATION, epoch: 1 };
        make(journal, &self.jornada, NIGHT_ONE, true, self.opening.as_ref(), self.anchor, &self.records).expect("made")
    }
}

/// Two nights at B1: the first opens the table, sells 5 credits and plays a round; the second plays one.
pub fn two_nights() -> Vec<Night> {
    nights(Config::embedded(), 2)
}

/// `count` nights at B1 under `config` (genesis first): the table opened and credits sold on
/// the first, a round played every night.
pub fn nights(config: Config, count: u64) -> Vec<Night> {
    let config = Arc::new(config);
    let mut state = State::new(Arc::clone(&config));
    let mut hash = genesis_previous(INSTALLATION);
    let mut entry = 0;
    let mut table_sequence = 0;
    let mut nights = Vec::new();
    let round = |seat| vec![TableOp::Press { seat, credits: None }, TableOp::StartRound, TableOp::FinishRound];
    for night in 0..count {
        let mut ops = Vec::new();
        // Credits are sold by 1, 5, 10 or 20 (12.5.3.3): 5 for a few nights, else 20 every 20.
        if night == 0 {
            ops.push(TableOp::OpenTable);
        }
        if night == 0 || (count > 5 && night % 20 == 0) {
            ops.push(TableOp::SellCredits { seat: 2, credits: if count > 5 { 20 } else { 5 } });
        }
        ops.extend(round(2));
        let time_ms = NIGHT_ONE + night * DAY;
        let opening = (entry > 0).then(|| state.clone());
        let anchor = hash;
        let mut commands = Vec::new();
        if entry == 0 {
            commands.push(Command::genesis(&config, "prueba", None, None));
        }
        for op in ops {
            table_sequence += 1;
            commands.push(dealer(table_sequence, op));
        }
        let mut records = Vec::new();
        for command in commands {
            entry += 1;
            state.apply(&command, Context { sequence: entry, time_ms }).expect("applied");
            let record = serde_json::to_vec(&serde_json::json!({"sequence": entry, "time_ms": time_ms, "command": command}))
                .expect("a record");
            hash = entry_hash(&hash, &record);
            records.push(record);
        }
        let (jornada, _) = pozo_core::jornada::jornada_and_hour(&config, time_ms);
        nights.push(Night { jornada, opening, anchor, records });
    }
    nights
}

/// The file of `evidence`'s bytes as they are, signed with `key`: what a casino that writes its
/// own file by hand hands over (`seal` writes only what serde writes).
pub fn signed(evidence: &str, key: &SigningKey) -> Vec<u8> {
    let mut message = CONTEXT.to_vec();
    message.extend_from_slice(evidence.as_bytes());
    let signature = serde_json::json!({
        "algorithm": "ed25519",
        "public_key": key.public().hex(),
        "value": hex::encode(key.sign(&message)),
    });
    format!("{{\"evidence\":{evidence},\"signature\":{signature}}}\n").into_bytes()
}

/// Writes `bytes` as `name` in `directory`.
pub fn write(directory: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let file = directory.join(name);
    std::fs::write(&file, bytes).expect("written");
    file
}

/// The binary's exit status, standard output and standard error.
pub fn verifier(args: &[&str]) -> (i32, String, String) {
    let output = Process::new(BIN).args(args).output().expect("pozo-verifier runs");
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.code().unwrap_or(-1), text(&output.stdout), text(&output.stderr))
}

pub fn path(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}
