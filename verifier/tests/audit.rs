//! What an audit of the evidence found (issue 42, points 8 to 12), each shown on the binary an
//! inspector runs: a key anyone can sign with, a file that reads two ways, control characters
//! reaching the terminal, what is not a regular file, a replay that panics, and what a single
//! file cannot prove.

mod common;

use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

use common::*;
use pozo_verifier::format::Evidence;
use pozo_verifier::make::seal;
use pozo_verifier::{Check, PublicKey, SigningKey};

/// The identity point: a small-order Ed25519 key ("01d0…" as the verdict named it).
const IDENTITY: &str = "0100000000000000000000000000000000000000000000000000000000000000";

/// The binary's exit status and output, killed if it has not ended within 20 s (`None`).
fn bounded(command: &mut Process) -> Option<(i32, String, String)> {
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("pozo-verifier runs");
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().expect("waited").is_none() {
        if Instant::now() > deadline {
            child.kill().expect("killed");
            child.wait().expect("reaped");
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("its output");
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    Some((output.status.code().unwrap_or(-1), text(&output.stdout), text(&output.stderr)))
}

// Proves point 8: registering the identity point as the casino's key and "signing" with
// R = identity, S = 0, which needs no secret, is not CONFORME: the key is refused as
// `--public-key`, and a verifier handed it as the registered key refuses the signature.
#[test]
fn a_key_anyone_can_sign_with_is_refused() {
    let directory = tempfile::tempdir().expect("a directory");
    let evidence = serde_json::to_string(&two_nights()[0].evidence()).expect("JSON");
    let forged = format!(
        "{{\"evidence\":{evidence},\"signature\":{{\"algorithm\":\"ed25519\",\"public_key\":\"{IDENTITY}\",\"value\":\"01{}\"}}}}",
        "0".repeat(126)
    );
    let file = write(directory.path(), "forjada.json", forged.as_bytes());

    let (status, out, err) = verifier(&["--public-key", IDENTITY, path(&file)]);
    assert_eq!(status, 2, "the key is refused, not used: {out}{err}");
    assert!(err.contains("orden pequeño") && !out.contains("CONFORME"), "{out}{err}");

    let registered = PublicKey(hex::decode(IDENTITY).expect("hex").try_into().expect("32 bytes"));
    let verdict = pozo_verifier::verify(&[("forjada.json".to_owned(), forged.into_bytes())], &registered);
    assert!(!verdict.conforme, "{}", pozo_verifier::castellano(&verdict));
    let (_, problem) = verdict.problem.expect("a problem");
    assert_eq!(problem.check, Check::Signature);
    assert!(problem.message.contains("orden pequeño"), "{}", problem.message);
}

/// Night two's evidence, a key, and a check that a file is refused (its problem's message).
fn night_two() -> (Evidence, SigningKey) {
    let evidence = two_nights()[1].evidence();
    let (key, _) = SigningKey::generate().expect("a key");
    let body = serde_json::to_string(&evidence).expect("JSON");
    assert!(pozo_verifier::verify(&[("e.json".to_owned(), signed(&body, &key))], &key.public()).conforme);
    (evidence, key)
}

fn refused(bytes: Vec<u8>, key: &SigningKey) -> String {
    let verdict = pozo_verifier::verify(&[("e.json".to_owned(), bytes)], &key.public());
    assert!(!verdict.conforme, "{}", pozo_verifier::castellano(&verdict));
    verdict.problem.expect("a problem").1.message
}

// Proves point 9: a pool named twice in `closing.pools`, false figures first and true ones last,
// signed, is refused (the verifier used to keep the last; a person reads the first).
#[test]
fn a_pool_twice_in_the_closing_is_refused() {
    let (evidence, key) = night_two();
    let body = serde_json::to_string(&evidence).expect("JSON");
    let (pool, figures) = evidence.closing.pools.iter().next().expect("a pool");
    let mut false_figures = serde_json::to_value(figures).expect("figures");
    false_figures["balance"] = "1000000.00".into();
    let at = "\"closing\":{\"pools\":{";
    assert!(body.contains(at));
    let twice = body.replacen(at, &format!("{at}\"{pool}\":{false_figures},"), 1);
    let message = refused(signed(&twice, &key), &key);
    assert!(message.contains(&format!("«{pool}» aparece dos veces")), "{message}");
}

// Proves point 9: a pool named twice in an entry's `pools`, a false balance first, signed, is refused.
#[test]
fn a_pool_twice_in_an_entry_is_refused() {
    let (evidence, key) = night_two();
    let body = serde_json::to_string(&evidence).expect("JSON");
    let entry = evidence.entries.iter().find(|entry| !entry.pools.is_empty()).expect("an entry that moved money");
    let (pool, balances) = entry.pools.iter().next().expect("a pool");
    let balances = serde_json::to_string(balances).expect("JSON");
    let said = format!("\"pools\":{{\"{pool}\":{balances}");
    assert!(body.contains(&said));
    let false_first = format!("\"pools\":{{\"{pool}\":{{\"balance\":\"1.00\",\"reserve\":\"0.00\"}},\"{pool}\":{balances}");
    let message = refused(signed(&body.replacen(&said, &false_first, 1), &key), &key);
    assert!(message.contains(&format!("«{pool}» aparece dos veces")), "{message}");
}

// Proves point 9: the evidence as a JSON array of its fields in order, signed, is refused: the
// documented shape is an object.
#[test]
fn the_evidence_as_an_array_is_refused() {
    let (e, key) = night_two();
    let array = serde_json::json!([
        e.format,
        e.installation,
        e.epoch,
        e.jornada,
        e.made_ms,
        e.complete,
        e.first_entry,
        e.last_entry,
        e.previous_hash,
        e.last_hash,
        e.config_hash,
        e.files,
        e.opening,
        e.entries,
        e.closing
    ])
    .to_string();
    let message = refused(signed(&array, &key), &key);
    assert!(message.contains("debe ser un objeto"), "{message}");
}

// Proves point 9: `[evidence, signature]` as the whole file is refused.
#[test]
fn the_file_as_an_array_is_refused() {
    let (evidence, key) = night_two();
    // The evidence's bytes as signed, and the signature, in an array.
    let file = String::from_utf8(seal(&evidence, &key)).expect("UTF-8");
    let (body, signature) = file.trim_end().trim_start_matches("{\"evidence\":").rsplit_once(",\"signature\":").expect("both");
    let array = format!("[{body},{}]", signature.strip_suffix('}').expect("the object's end"));
    let message = refused(array.into_bytes(), &key);
    assert!(message.contains("debe ser un objeto"), "{message}");
}

/// Control characters as a file spells them in JSON: clear the screen, home, CSI, a verdict.
const CLEAR: &str = "\\u001b[2J\\u001b[H\\u009bVEREDICTO: CONFORME\\r\\n";

/// Night one's file, sealed, and its key.
fn night_one_file() -> (String, SigningKey) {
    let (key, _) = SigningKey::generate().expect("a key");
    (String::from_utf8(seal(&two_nights()[0].evidence(), &key)).expect("UTF-8"), key)
}

/// The binary's output, with the exit status `expected`, holding no control character but
/// its newlines, and showing an escaped ESC.
fn shown((status, out, err): (i32, String, String), expected: i32) -> String {
    assert_eq!(status, expected, "{out}{err}");
    assert!(!out.chars().chain(err.chars()).any(|c| c.is_control() && c != '\n'), "{out:?}{err:?}");
    assert!(out.contains("\\u{1b}") || err.contains("\\u{1b}"), "{out}{err}");
    out
}

// Proves point 10: the `algorithm` field (outside the signed bytes: anyone may edit it) reaches
// the Spanish verdict escaped, not as characters that clear the screen and draw a verdict.
#[test]
fn the_algorithm_field_is_shown_escaped() {
    let directory = tempfile::tempdir().expect("a directory");
    let (honest, key) = night_one_file();
    let algorithm = honest.replace("\"algorithm\":\"ed25519\"", &format!("\"algorithm\":\"{CLEAR}\""));
    let file = write(directory.path(), "algoritmo.json", algorithm.as_bytes());
    let out = shown(verifier(&["--public-key", &key.public().hex(), path(&file)]), 1);
    assert!(out.contains("signature.algorithm: «\\u{1b}[2J\\u{1b}[H\\u{9b}VEREDICTO: CONFORME\\u{d}\\u{a}»"), "{out}");
}

// Proves point 10: an unknown key's name, quoted by the parser's error, is shown escaped.
#[test]
fn an_unknown_keys_name_is_shown_escaped() {
    let directory = tempfile::tempdir().expect("a directory");
    let (honest, key) = night_one_file();
    let unknown = honest.replace("\"algorithm\":", &format!("\"{CLEAR}\":1,\"algorithm\":"));
    let file = write(directory.path(), "clave.json", unknown.as_bytes());
    let out = shown(verifier(&["--public-key", &key.public().hex(), path(&file)]), 1);
    assert!(out.contains("unknown field"), "{out}");
}

// Proves point 10: the file's name is shown escaped, in the verdict, in what cannot be read and
// in the JSON verdict.
#[test]
fn the_files_name_is_shown_escaped() {
    let directory = tempfile::tempdir().expect("a directory");
    let (honest, key) = night_one_file();
    let file = write(directory.path(), "noche\u{1b}[2J\r.json", honest.as_bytes());
    let out = shown(verifier(&["--public-key", &key.public().hex(), path(&file)]), 0);
    assert!(out.contains("Evidencia ") && out.contains("noche\\u{1b}[2J\\u{d}.json"), "{out}");
    let missing = directory.path().join("falta\u{1b}[2J.json");
    shown(verifier(&["--public-key", &key.public().hex(), path(&missing)]), 2);
    // In JSON too, where a C1 CSI or a right-to-left override is escaped as `\uXXXX`, and read
    // back as the same name.
    let file = write(directory.path(), "noche\u{9b}2J\u{202e}.json", honest.as_bytes());
    let (status, out, _) = verifier(&["--json", "--public-key", &key.public().hex(), path(&file)]);
    assert_eq!(status, 0, "{out}");
    assert!(!out.chars().any(|c| c != '\n' && pozo_verifier::hidden(c)), "{out:?}");
    let verdict: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(verdict["files"][0]["file"].as_str(), Some(path(&file)));
}

/// The binary run on `file` as evidence, or as the key when `as_key`, with its address space
/// capped at 1 GiB (so that a regression fails, not the machine), killed after 20 s: it must
/// refuse it at once, exit 2.
#[cfg(unix)]
fn refused_at_once(file: &std::path::Path, as_key: bool) {
    let (key, _) = SigningKey::generate().expect("a key");
    let hex = key.public().hex();
    let (key, evidence) = if as_key { (path(file), "evidencia.json") } else { (hex.as_str(), path(file)) };
    let mut capped = Process::new("sh");
    capped.args(["-c", "ulimit -v 1048576 && exec \"$0\" \"$@\"", BIN, "--public-key", key, evidence]);
    let (status, out, err) = bounded(&mut capped).unwrap_or_else(|| panic!("{} is read forever", file.display()));
    assert_eq!(status, 2, "{out}{err}");
    assert!(err.contains("not a regular file"), "{err}");
}

// Proves point 11: a symlink to /dev/zero (a device reporting 0 bytes), as evidence or as
// `--public-key`, is refused at once, not read until memory runs out.
#[cfg(unix)]
#[test]
fn a_symlink_to_dev_zero_is_refused() {
    let directory = tempfile::tempdir().expect("a directory");
    let zero = directory.path().join("zero.json");
    std::os::unix::fs::symlink("/dev/zero", &zero).expect("a symlink");
    refused_at_once(&zero, false);
    refused_at_once(&zero, true);
}

// Proves point 11: a FIFO, as evidence or as `--public-key`, is refused at once, not waited on
// forever.
#[cfg(unix)]
#[test]
fn a_fifo_is_refused() {
    let directory = tempfile::tempdir().expect("a directory");
    let fifo = directory.path().join("fifo.json");
    assert!(Process::new("mkfifo").arg(&fifo).status().expect("mkfifo runs").success());
    refused_at_once(&fifo, false);
    refused_at_once(&fifo, true);
}

// Proves point 11: a state the core cannot replay (every pool's balance and reserve at the
// largest decimal, so their sum overflows) is a NO CONFORME verdict, and nothing on standard
// error: no "thread 'main' panicked … Addition overflowed".
#[test]
fn a_state_the_core_cannot_replay_is_a_verdict_and_no_panic() {
    let directory = tempfile::tempdir().expect("a directory");
    let (key, _) = SigningKey::generate().expect("a key");
    let evidence = two_nights()[1].evidence();
    let mut value = serde_json::to_value(&evidence).expect("JSON");
    let pools = value["opening"]["pools"].as_object_mut().expect("the opening's pools");
    for pool in pools.values_mut() {
        pool["balance"] = "79228162514264337593543950335".into();
        pool["reserve"] = "79228162514264337593543950335".into();
    }
    let overflowing: Evidence = serde_json::from_value(value).expect("still an evidence");
    let file = write(directory.path(), "desborde.json", &seal(&overflowing, &key));
    let (status, out, err) = verifier(&["--public-key", &key.public().hex(), path(&file)]);
    assert_eq!(status, 1, "{out}{err}");
    assert!(out.contains("VEREDICTO: NO CONFORME"), "{out}");
    assert!(err.is_empty(), "nothing on standard error: {err}");
}

// Proves point 12 (its verdict): a single file says that its opening state is not proven by
// it alone; given with the jornada before, whose close proves it, it does not.
#[test]
fn a_single_file_says_its_opening_is_not_proven_by_it() {
    let directory = tempfile::tempdir().expect("a directory");
    let (key, _) = SigningKey::generate().expect("a key");
    let files: Vec<_> = two_nights()
        .iter()
        .map(|night| write(directory.path(), &format!("{}.json", night.jornada), &seal(&night.evidence(), &key)))
        .collect();
    let public = key.public().hex();
    let unproven = "su estado de apertura (el posterior al asiento 6) se cree por la firma: este archivo solo no lo prueba";
    let (status, out, _) = verifier(&["--public-key", &public, path(&files[1])]);
    assert_eq!(status, 0, "{out}");
    assert!(out.contains(unproven), "{out}");
    let (status, out, _) = verifier(&["--json", "--public-key", &public, path(&files[1])]);
    let verdict: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!((status, &verdict["files"][0]["opening"]), (0, &"not_proven".into()));

    let (status, out, _) = verifier(&["--public-key", &public, path(&files[1]), path(&files[0])]);
    assert_eq!(status, 0, "{out}");
    assert!(!out.contains("su estado de apertura"), "the first begins at genesis, the second is proven: {out}");
    let (_, out, _) = verifier(&["--json", "--public-key", &public, path(&files[0]), path(&files[1])]);
    let verdict: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(verdict["files"][0]["opening"], "genesis");
    assert_eq!(verdict["files"][1]["opening"], "previous_file");
}
