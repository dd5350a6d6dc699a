//! A jornada's evidence (docs/journal.md, "A jornada's evidence"): written by `pozo-server
//! evidence` from the real server's journal, signed with the casino's Ed25519 key, and checked
//! offline by `pozo_verifier` (the library the `pozo-verifier` binary runs) without any of the
//! casino's keys: two consecutive jornadas verify and link; a changed byte, a removed entry, a
//! figure the casino changed and signed again, another key's signature and two jornadas that do
//! not follow each other are each refused, naming what is wrong.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::*;
use pozo_server::clock::ManualClock;
use pozo_verifier::{Check, PublicKey, SigningKey, Verdict};

/// 2026-11-22 20:00 in the casino's zone (UTC-03:00): the first night.
const NIGHT_ONE: u64 = 1_795_305_600_000 + 23 * 3_600_000;
const DAY: u64 = 24 * 3_600_000;

fn arg(path: &Path) -> String {
    path.display().to_string()
}

async fn evidence(data: &Path, key: &Path, jornada: &str, out: &Path) -> serde_json::Value {
    let args = ["evidence", "--jornada", jornada, "--out", &arg(out), "--signing-key", &arg(key), "--data", &arg(data)];
    let output = run(args.iter().map(|arg| (*arg).to_owned()).collect()).await;
    assert!(output.status.success(), "evidence of {jornada}: {}", text(&output));
    serde_json::from_slice(&output.stdout).expect("what was written, as JSON")
}

fn verify(files: &[&PathBuf], key: &PublicKey) -> Verdict {
    let files: Vec<(String, Vec<u8>)> =
        files.iter().map(|path| (arg(path), std::fs::read(path).expect("an evidence file"))).collect();
    pozo_verifier::verify(&files, key)
}

/// The first problem's check and message.
fn refused(verdict: &Verdict) -> (Check, Option<u64>, String) {
    assert!(!verdict.conforme, "refused: {}", pozo_verifier::castellano(verdict));
    let (_, problem) = verdict.problem.clone().expect("a problem named");
    (problem.check, problem.entry, problem.message)
}

/// The file's evidence, changed by `change`, signed again with `key`: what a casino rewriting
/// its own evidence would hand over.
fn resigned(path: &Path, key: &SigningKey, change: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    let file: serde_json::Value = serde_json::from_slice(&std::fs::read(path).expect("read")).expect("JSON");
    let mut evidence = file["evidence"].clone();
    change(&mut evidence);
    let evidence: pozo_verifier::format::Evidence = serde_json::from_value(evidence).expect("still an evidence");
    pozo_verifier::make::seal(&evidence, key)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_jornadas_evidence_verifies_offline_and_every_tampering_is_refused_by_name() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let data = directory.path().join("data");
    let clock = Arc::new(ManualClock::at(NIGHT_ONE));
    let options = pozo_server::ServeOptions { clock: clock.clone(), ..Default::default() };
    let server = TestServer::start_with(data.clone(), options).await;
    let mut client = server.client().await;

    // Night one: a bet refunded (11.8.1.2) and a prize Venta-Pagos rejects (docs/readings.md).
    client.ok("B1", open()).await;
    client.sell_and_press("B1", [1, 2], 5).await;
    client.ok("B1", start()).await;
    client.ok("B1", refund_bet(2)).await;
    client.ok("B1", finish()).await;
    client.ok("B3", open()).await;
    let order = a_pending_order(&mut client, 4).await;
    client.reject(&order, "Cartas mal leídas").await.expect("rejected");
    // Night two: a prize paid.
    clock.set(NIGHT_ONE + DAY);
    let order = a_pending_order(&mut client, 5).await;
    client.confirm(&order, "F-4521").await.expect("confirmed");
    // Night three begins: night two is over.
    clock.set(NIGHT_ONE + 2 * DAY);
    client.ok("B2", open()).await;

    let key = directory.path().join("evidencia.pem");
    let made = run(vec!["evidence-key".into(), "--out".into(), arg(&key)]).await;
    assert!(made.status.success(), "{}", text(&made));
    let public_file = directory.path().join("evidencia.pem.pub");
    let registered = PublicKey::parse(&std::fs::read_to_string(&public_file).expect("the public half")).expect("a key");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&key).expect("the key").permissions().mode();
        assert_eq!(mode & 0o077, 0, "the private half is its owner's only: {mode:o}");
    }
    let again = run(vec!["evidence-key".into(), "--out".into(), arg(&key)]).await;
    assert!(!again.status.success() && text(&again).contains("already exists"), "{}", text(&again));

    // The first night's evidence while the controller serves, the second's once it stopped.
    let one = directory.path().join("2026-11-22.json");
    let two = directory.path().join("2026-11-23.json");
    let three = directory.path().join("2026-11-24.json");
    let written = evidence(&data, &key, "2026-11-22", &one).await;
    assert_eq!(written["complete"], true, "{written}");
    assert_eq!(written["first_entry"], 1, "the first jornada starts at genesis: {written}");
    assert_eq!(written["fingerprint"].as_str(), Some(registered.fingerprint().as_str()));
    server.stop().await;
    let written_two = evidence(&data, &key, "2026-11-23", &two).await;
    evidence(&data, &key, "2026-11-24", &three).await;
    assert_eq!(written_two["first_entry"].as_u64(), written["last_entry"].as_u64().map(|last| last + 1));
    let refused_out =
        run(["evidence", "--jornada", "2026-11-23", "--out", &arg(&two), "--signing-key", &arg(&key), "--data", &arg(&data)]
            .map(str::to_owned)
            .to_vec())
        .await;
    assert!(!refused_out.status.success() && text(&refused_out).contains("never written over"), "{}", text(&refused_out));
    let none = run([
        "evidence",
        "--jornada",
        "2026-11-01",
        "--out",
        "/tmp/no-such-evidence.json",
        "--signing-key",
        &arg(&key),
        "--data",
        &arg(&data),
    ]
    .map(str::to_owned)
    .to_vec())
    .await;
    assert!(!none.status.success() && text(&none).contains("no entry of that jornada"), "{}", text(&none));

    // Both verify, and link; each jornada's books are its own.
    let verdict = verify(&[&two, &one], &registered);
    assert!(verdict.conforme, "{}", pozo_verifier::castellano(&verdict));
    assert_eq!(verdict.files.iter().map(|file| file.jornada.as_str()).collect::<Vec<_>>(), ["2026-11-22", "2026-11-23"]);
    assert_eq!(verdict.links.len(), 1);
    let text_verdict = pozo_verifier::castellano(&verdict);
    assert!(
        text_verdict.contains("Las jornadas 22/11/2026 y 23/11/2026 se enlazan.")
            && text_verdict.ends_with("VEREDICTO: CONFORME\n")
    );
    let blackjack = |index: usize| verdict.files[index].reconciliation["iplyc-blackjack"].clone();
    let (night_one, night_two) = (blackjack(0), blackjack(1));
    assert!(night_one.ties() && night_two.ties());
    // Night one: B1 seat 1 and B3 seat 4 stand, B1 seat 2 refunded; one prize, rejected and returned.
    assert_eq!((night_one.bets, night_one.reversals, night_one.hits, night_one.rejections), (2, 1, 1, 1));
    assert_eq!(night_one.awards, night_one.awards_returned);
    // Night two: one bet, one prize paid, none returned; it opens where night one closed.
    assert_eq!((night_two.bets, night_two.hits, night_two.rejections), (1, 1, 0));
    assert_eq!(night_two.opening_balance, night_one.closing_balance);

    // A byte changed anywhere: in the evidence (an amount, a hash, a record), in the signature.
    let bytes = std::fs::read(&two).expect("read");
    let positions = [20, bytes.len() / 3, bytes.len() / 2, 2 * bytes.len() / 3, bytes.len() - 40];
    for position in positions {
        let mut changed = bytes.clone();
        changed[position] = match changed[position] {
            b'0'..=b'8' => changed[position] + 1,
            b'9' => b'0',
            b'a'..=b'y' => changed[position] + 1,
            b'z' => b'a',
            other => other ^ 0x20,
        };
        let verdict = pozo_verifier::verify(&[("cambiado.json".into(), changed)], &registered);
        let (check, _, message) = refused(&verdict);
        assert!(matches!(check, Check::Signature | Check::File), "byte {position}: {check:?} {message}");
    }

    // An entry removed, and signed again with the casino's own key: the chain names it.
    let casino = SigningKey::from_pem(&std::fs::read_to_string(&key).expect("the key")).expect("the casino's key");
    let removed = resigned(&two, &casino, |evidence| {
        evidence["entries"].as_array_mut().expect("entries").remove(2);
        let last = evidence["last_entry"].as_u64().expect("a number");
        evidence["last_entry"] = (last - 1).into();
    });
    let first = written_two["first_entry"].as_u64().expect("a number");
    let (check, entry, message) = refused(&pozo_verifier::verify(&[("sin-asiento.json".into(), removed)], &registered));
    assert_eq!((check, entry), (Check::Chain, Some(first + 2)), "{message}");
    // Unsigned again, the removal breaks the signature first.
    let mut unsigned: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
    unsigned["evidence"]["entries"].as_array_mut().expect("entries").remove(2);
    let (check, _, _) =
        refused(&pozo_verifier::verify(&[("x.json".into(), serde_json::to_vec(&unsigned).expect("JSON"))], &registered));
    assert_eq!(check, Check::Signature);

    // A figure the controller wrote, changed and signed again: recomputing names the entry.
    let mut target = None;
    let changed = resigned(&two, &casino, |evidence| {
        let entries = evidence["entries"].as_array_mut().expect("entries");
        let (index, entry) =
            entries.iter_mut().enumerate().find(|(_, entry)| entry.get("pools").is_some()).expect("an entry that moved money");
        entry["pools"]["iplyc-blackjack"]["balance"] = "999999.00".into();
        target = Some(first + index as u64);
    });
    let (check, entry, message) = refused(&pozo_verifier::verify(&[("recalculo.json".into(), changed)], &registered));
    assert_eq!((check, entry), (Check::Recomputation, target), "{message}");
    assert!(message.contains("iplyc-blackjack") && message.contains("$ 999.999,00"), "{message}");

    // The books changed at the close, signed again: refused on the books.
    let changed = resigned(&two, &casino, |evidence| {
        evidence["closing"]["reconciliation"]["iplyc-blackjack"]["awards"] = "1.00".into();
    });
    let (check, _, message) = refused(&pozo_verifier::verify(&[("libros.json".into(), changed)], &registered));
    assert_eq!(check, Check::Books, "{message}");

    // Signed with another key: refused, naming both keys.
    let (other, _) = SigningKey::generate().expect("another key");
    let foreign = resigned(&two, &other, |_| {});
    let (check, _, message) = refused(&pozo_verifier::verify(&[("otra-clave.json".into(), foreign.clone())], &registered));
    assert_eq!(check, Check::Signature);
    assert!(message.contains(&other.public().fingerprint()) && message.contains(&registered.fingerprint()), "{message}");
    // …and by that key's own measure it verifies: the content is the casino's, the key is not.
    assert!(pozo_verifier::verify(&[("otra-clave.json".into(), foreign)], &other.public()).conforme);

    // Two jornadas that do not follow each other: the entries of the one between are missing.
    let (check, _, message) = refused(&verify(&[&one, &three], &registered));
    assert_eq!(check, Check::Link, "{message}");
    assert!(message.contains("faltan los asientos"), "{message}");
    // Three in a row link.
    let verdict = verify(&[&one, &two, &three], &registered);
    assert!(verdict.conforme && verdict.links.len() == 2, "{}", pozo_verifier::castellano(&verdict));
    // The casino makes a jornada's evidence whole again, every figure consistent, from an
    // opening state other than the one the night before left (here, a start erased from the
    // builds): alone it verifies; against the night before, the link refuses it.
    let evidence: pozo_verifier::format::Evidence =
        serde_json::from_value(serde_json::from_slice::<serde_json::Value>(&bytes).expect("JSON")["evidence"].clone())
            .expect("an evidence");
    let mut opening = evidence.opening.clone().expect("the second night opens from a state");
    assert!(!opening.data.builds.is_empty(), "the journal recorded its starts");
    opening.data.builds.clear();
    let config = pozo_core::config::Config::from_texts(evidence.files.clone()).expect("its files");
    let state = pozo_core::state::State::restore(Arc::new(config), opening).expect("restored");
    let records: Vec<Vec<u8>> = evidence.entries.iter().map(|entry| entry.record.clone().into_bytes()).collect();
    let anchor: [u8; 32] = hex_array(&evidence.previous_hash);
    let journal = pozo_verifier::make::Journal { installation: &evidence.installation, epoch: evidence.epoch };
    let remade = pozo_verifier::make::make(journal, &evidence.jornada, evidence.made_ms, true, Some(&state), anchor, &records)
        .expect("remade");
    let forged_path = directory.path().join("rehecha.json");
    std::fs::write(&forged_path, pozo_verifier::make::seal(&remade, &casino)).expect("written");
    assert!(verify(&[&forged_path], &registered).conforme, "alone, it holds together");
    let (check, entry, message) = refused(&verify(&[&one, &forged_path], &registered));
    assert_eq!((check, entry), (Check::Link, Some(first)), "{message}");
    assert!(message.contains("abre con un estado que no es el que dejó"), "{message}");
}

fn hex_array(text: &str) -> [u8; 32] {
    let bytes: Vec<u8> = (0..text.len()).step_by(2).map(|at| u8::from_str_radix(&text[at..at + 2], 16).expect("hex")).collect();
    bytes.try_into().expect("32 bytes")
}
