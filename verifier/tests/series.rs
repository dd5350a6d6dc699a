//! A jornada's evidence with roulette series (3.7.3: each numbered by its sale), from this
//! release and as a release before the numbering closed it: both verify, nothing else does.

mod common;

use std::sync::Arc;

use common::*;
use pozo_core::config::Config;
use pozo_core::state::{Command, Context, State, TableCommand, TableOp};
use pozo_verifier::SigningKey;
use pozo_verifier::format::{entry_hash, genesis_previous, snapshot_sha256};
use pozo_verifier::make::{Journal, make};

/// One night at R1 from genesis: a series sold at seat 4 and one ball played. Its evidence and
/// the state it closed on.
fn a_roulette_night() -> (pozo_verifier::format::Evidence, State) {
    let config = Arc::new(Config::embedded());
    let mut state = State::new(Arc::clone(&config));
    let mut hash = genesis_previous(INSTALLATION);
    let anchor = hash;
    let ops = [
        TableOp::OpenTable,
        TableOp::SellCredits { seat: 4, credits: 1 },
        TableOp::Press { seat: 4, credits: None },
        TableOp::StartRound,
        TableOp::FinishRound,
    ];
    let mut commands = vec![Command::genesis(&config, "prueba", None, None)];
    for (index, op) in ops.into_iter().enumerate() {
        let sequence = index as u64 + 1;
        commands.push(Command::Table(TableCommand {
            table_id: "R1".into(),
            sequence,
            payload_sha256: format!("{sequence:064x}"),
            op,
            card: None,
            inspector: None,
        }));
    }
    let mut records = Vec::new();
    for (entry, command) in (1..).zip(commands) {
        state.apply(&command, Context { sequence: entry, time_ms: NIGHT_ONE }).expect("applied");
        let record = serde_json::to_vec(&serde_json::json!({"sequence": entry, "time_ms": NIGHT_ONE, "command": command}))
            .expect("a record");
        hash = entry_hash(&hash, &record);
        records.push(record);
    }
    assert_eq!(state.data().series.len(), 1, "the series is numbered");
    let (jornada, _) = pozo_core::jornada::jornada_and_hour(&config, NIGHT_ONE);
    let journal = Journal { installation: INSTALLATION, epoch: 1 };
    let evidence = make(journal, &jornada, NIGHT_ONE, true, None, anchor, &records).expect("made");
    (evidence, state)
}

fn verdict(evidence: &pozo_verifier::format::Evidence, key: &SigningKey) -> pozo_verifier::Verdict {
    let text = serde_json::to_string(evidence).expect("JSON");
    pozo_verifier::verify(&[("noche.json".to_owned(), signed(&text, key))], &key.public())
}

#[test]
fn a_closing_without_series_numbers_verifies_as_an_earlier_releases_and_no_other_does() {
    let (key, _) = SigningKey::generate().expect("a key");
    let (evidence, state) = a_roulette_night();
    let made = verdict(&evidence, &key);
    assert!(made.conforme, "{}", pozo_verifier::castellano(&made));

    // As a release before the series were numbered closed it: the same state, no series.
    let mut earlier = evidence.clone();
    let mut snapshot = state.snapshot();
    snapshot.data.as_an_earlier_release_kept();
    earlier.closing.snapshot_sha256 = snapshot_sha256(&snapshot);
    assert_ne!(earlier.closing.snapshot_sha256, evidence.closing.snapshot_sha256);
    let old = verdict(&earlier, &key);
    assert!(old.conforme, "{}", pozo_verifier::castellano(&old));

    // Any other closing is not the recomputed one.
    let mut other = evidence.clone();
    let mut snapshot = state.snapshot();
    snapshot.data.journal_sequence += 1;
    other.closing.snapshot_sha256 = snapshot_sha256(&snapshot);
    let forged = verdict(&other, &key);
    assert!(!forged.conforme, "{}", pozo_verifier::castellano(&forged));
}
