//! The `pozo-verifier` binary as an inspector runs it: on evidence made from a journal the pure
//! core wrote here (no server), the verdict in Spanish and in JSON, and its exit status.

mod common;

use std::sync::Arc;

use common::*;
use pozo_core::config::Config;
use pozo_core::state::{Command, Context, State};
use pozo_verifier::SigningKey;
use pozo_verifier::format::{entry_hash, genesis_previous};

#[test]
fn the_verdict_is_conforme_in_spanish_and_json_and_its_exit_status_says_so() {
    let directory = tempfile::tempdir().expect("a directory");
    let (key, _) = SigningKey::generate().expect("a key");
    let public = directory.path().join("casino.pub");
    std::fs::write(&public, key.public().to_pem()).expect("written");
    let mut files = Vec::new();
    for night in two_nights() {
        let evidence = night.evidence();
        files.push(write(directory.path(), &format!("{}.json", night.jornada), &pozo_verifier::make::seal(&evidence, &key)));
    }
    let (one, two) = (path(&files[0]), path(&files[1]));

    let (status, out, _) = verifier(&["--public-key", path(&public), two, one]);
    assert_eq!(status, 0, "{out}");
    assert!(out.contains("Evidencia") && out.contains("jornada 22/11/2026: VERIFICADA"), "{out}");
    assert!(out.contains("asientos 1 a 6 (6 asientos)") && out.contains("asientos 7 a 9 (3 asientos)"), "{out}");
    // 11.2.3: 65 % of the 10.00 bet.
    assert!(out.contains("pozo iplyc-blackjack: apertura $ 5.000,00, aportes $ 6,50 (1 apuesta)"), "{out}");
    assert!(out.contains("Las jornadas 22/11/2026 y 23/11/2026 se enlazan.") && out.ends_with("VEREDICTO: CONFORME\n"), "{out}");

    let (status, out, _) = verifier(&["--json", "--public-key", &key.public().hex(), one, two]);
    assert_eq!(status, 0, "{out}");
    let verdict: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(verdict["conforme"], true);
    let contributions = verdict["files"][1]["reconciliation"]["iplyc-blackjack"]["contributions"].as_str();
    assert_eq!(contributions.map(|amount| amount.trim_end_matches('0')), Some("6.5"), "amounts are exact decimal text");

    // The second night alone verifies; the first night's evidence against another key does not.
    let (other, _) = SigningKey::generate().expect("another key");
    let (status, out, _) = verifier(&["--public-key", &other.public().hex(), one]);
    assert_eq!(status, 1, "{out}");
    assert!(out.contains("VEREDICTO: NO CONFORME") && out.contains("no con la clave registrada"), "{out}");
    let (status, out, _) = verifier(&["--json", "--public-key", &other.public().hex(), one]);
    let verdict: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!((status, &verdict["conforme"], &verdict["problem"][1]["check"]), (1, &false.into(), &"signature".into()));

    // What cannot be read is said on stderr, exit 2.
    let (status, _, err) = verifier(&["--public-key", "not-a-key", one]);
    assert_eq!(status, 2, "{err}");
    let (status, _, err) = verifier(&["--public-key", path(&public), "/no/such/evidence.json"]);
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("/no/such/evidence.json"), "{err}");
}

/// What a casino could sign that holds together entry by entry, and is still refused: a file
/// whose `files` are not the configuration its opening state runs under, a first jornada that
/// brings its own opening state instead of starting at genesis, and one that starts in the
/// middle of its jornada.
#[test]
fn a_file_that_misstates_its_configuration_or_where_it_starts_is_refused() {
    let (key, _) = SigningKey::generate().expect("a key");
    let nights = two_nights();
    let journal = || pozo_verifier::make::Journal { installation: INSTALLATION, epoch: 1 };
    let verdict = |evidence: &pozo_verifier::format::Evidence| {
        let bytes = pozo_verifier::make::seal(evidence, &key);
        pozo_verifier::verify(&[("e.json".to_owned(), bytes)], &key.public())
    };
    let refused = |evidence: &pozo_verifier::format::Evidence| {
        let verdict = verdict(evidence);
        assert!(!verdict.conforme, "{}", pozo_verifier::castellano(&verdict));
        verdict.problem.expect("a problem").1.message
    };
    let honest = nights[1].evidence();
    assert!(verdict(&honest).conforme);

    // The opening runs under rulebooks other than the `files` the file shows.
    let mut other = honest.clone();
    let snapshot = other.opening.as_mut().expect("an opening");
    let mut texts = other.files.clone();
    texts.last_mut().expect("a rulebook").1.push_str("\n# otro reglamento\n");
    snapshot.config_hash = Config::from_texts(texts.clone()).expect("still valid").hash;
    snapshot.texts = texts;
    assert!(refused(&other).contains("no son la configuración en vigor"));

    // The first jornada with an opening state of its own, not the genesis's.
    let (anchor, records) = (&nights[0].anchor, &nights[0].records);
    let mut first = nights[0].evidence();
    assert!(verdict(&first).conforme);
    first.opening = Some(State::new(Arc::new(Config::embedded())).snapshot());
    assert!(refused(&first).contains("solo la que empieza en el génesis"));

    // Night one from its third entry: the state after entry 2 already holds the jornada.
    let mut state = State::new(Arc::new(Config::embedded()));
    let mut hash = genesis_previous(INSTALLATION);
    for record in &records[..2] {
        let parsed: serde_json::Value = serde_json::from_slice(record).expect("a record");
        let command: Command = serde_json::from_value(parsed["command"].clone()).expect("a command");
        let context = Context {
            sequence: parsed["sequence"].as_u64().expect("a sequence"),
            time_ms: parsed["time_ms"].as_u64().expect("a time"),
        };
        state.apply(&command, context).expect("applied");
        hash = entry_hash(&hash, record);
    }
    // `make` itself refuses it; a file put together by hand is refused by the verifier.
    let made = pozo_verifier::make::make(journal(), "2026-11-22", NIGHT_ONE, true, Some(&state), hash, &records[2..]);
    assert!(made.is_err_and(|problem| problem.message.contains("empieza a mitad de la jornada")));
    let mut middle = pozo_verifier::make::make(journal(), "2026-11-22", NIGHT_ONE, true, None, *anchor, records).expect("made");
    middle.entries.drain(..2);
    middle.first_entry = 3;
    middle.previous_hash = hex::encode(hash);
    middle.opening = Some(state.snapshot());
    assert!(refused(&middle).contains("empieza a mitad de la jornada"));
}
