//! The offline proof of the mystery level's draws (issue 44, item 3; docs/journal.md, "draw" and
//! "reveal"): a night on the market's cross-game link (`mercado-gran-sala`, its "Misterioso"
//! level's ceiling brought down to 20.100,00) played through the real controller on
//! 127.0.0.1:0, with at least two hits and a hot seat. `pozo-server verify`, `pozo-server
//! evidence` and the verifier (`pozo_verifier`, the library the `pozo-verifier` binary runs) each
//! say how many draws they checked and that they conform; then each tampering is NO CONFORME,
//! naming the entry and the rule: a reveal's trigger or nonce altered, a hit moved after a later
//! contribution or before the one that reached the trigger, a second draw of a cycle, a trigger
//! outside (from, ceiling], a hot seat's candidates that are not the seats in force, a reveal
//! deleted.
//!
//! The evidence is tampered with as a casino holding its own signing key would: records changed,
//! what each entry did recomputed by the pure core, every hash chained again, the whole signed
//! again. Signature, chain and figures hold; only the draws' rules can refuse it. The journal is
//! tampered with as one holding the journal key would: entries rewritten, the tip sealed again.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::mystery::{link_with_ceiling, records};
use common::*;
use hmac::{Hmac, KeyInit, Mac};
use pozo_core::state::{Context, State};
use pozo_engine::Money;
use pozo_server::clock::ManualClock;
use pozo_verifier::format::{Balances, Entry, Evidence, LevelBalances, entry_hash};
use pozo_verifier::{Check, PublicKey, SigningKey, Verdict};
use serde_json::Value;
use sha2::Sha256;

/// 2026-11-22 20:00 in the casino's zone (UTC-03:00).
const NIGHT: u64 = 1_795_305_600_000 + 23 * 3_600_000;
const DAY: u64 = 24 * 3_600_000;
const POOL: &str = "mercado-gran-sala";
const LEVEL: &str = "Misterioso";
/// The draws' words come from this seed (as in the simulator): the night replays the same.
const SEED: u64 = 44;

fn arg(path: &Path) -> String {
    path.display().to_string()
}

fn ars(text: &str) -> Money {
    text.parse().unwrap_or_else(|_| panic!("an amount: {text}"))
}

fn kind(record: &Value) -> &str {
    record["command"]["kind"].as_str().unwrap_or_default()
}

fn count(records: &[Value], of: &str) -> usize {
    records.iter().filter(|record| kind(record) == of).count()
}

/// A command that feeds the link's levels: an INICIAR JUEGO.
fn feeds(record: &Value) -> bool {
    kind(record) == "table" && record["command"]["op"]["op"] == "start_round"
}

/// `pozo-server verify` on `data`: its report, and whether it passed.
async fn verify(data: &Path) -> (bool, Value) {
    let output = run(vec!["verify".into(), "--data".into(), arg(data)]).await;
    let report = serde_json::from_slice(&output.stdout).unwrap_or_else(|_| panic!("verify prints JSON: {}", text(&output)));
    (output.status.success(), report)
}

/// `pozo-server evidence` of the night from `data`, signed with `key`, into `out`.
async fn evidence(data: &Path, key: &Path, out: &Path) -> std::process::Output {
    let args = ["evidence", "--jornada", "2026-11-22", "--out", &arg(out), "--signing-key", &arg(key), "--data", &arg(data)];
    run(args.iter().map(|arg| (*arg).to_owned()).collect()).await
}

fn evidence_of(path: &Path) -> Evidence {
    let file: Value = serde_json::from_slice(&std::fs::read(path).expect("read")).expect("JSON");
    serde_json::from_value(file["evidence"].clone()).expect("an evidence")
}

/// What each pool and each level of a pool with levels stands at now (as the evidence says it).
type Standing = (BTreeMap<pozo_engine::PoolId, Balances>, BTreeMap<pozo_engine::PoolId, Vec<LevelBalances>>);

fn standing(state: &State) -> Standing {
    let pools = pozo_core::state::books::figures(state.pools())
        .into_iter()
        .map(|(pool, figures)| (pool, Balances { balance: figures.balance, reserve: figures.reserve }))
        .collect();
    let levels = state
        .pools()
        .filter(|pool| pool.rules().levels.len() > 1)
        .map(|pool| {
            let levels = pool
                .levels()
                .into_iter()
                .map(|level| LevelBalances {
                    level: level.name.unwrap_or_default(),
                    balance: level.balance,
                    reserve: level.reserve,
                })
                .collect();
            (pool.rules().id.clone(), levels)
        })
        .collect();
    (pools, levels)
}

/// The night's evidence with its records edited by `edit` (changed, moved, removed), numbered
/// again, what each entry did recomputed by the pure core as far as it accepts them, every hash
/// chained again, and the whole signed again with the casino's key.
fn forged(path: &Path, key: &SigningKey, edit: impl FnOnce(&mut Vec<Value>)) -> Vec<u8> {
    let mut evidence = evidence_of(path);
    assert!(evidence.opening.is_none() && evidence.first_entry == 1, "the night begins with the genesis entry");
    let mut records: Vec<Value> =
        evidence.entries.iter().map(|entry| serde_json::from_str(&entry.record).expect("a record")).collect();
    edit(&mut records);
    let config = pozo_core::config::Config::from_texts(evidence.files.clone()).expect("its files");
    let mut state = State::new(Arc::new(config));
    let mut previous: [u8; 32] = hex::decode(&evidence.previous_hash).expect("hex").try_into().expect("32 bytes");
    let mut accepted = true;
    evidence.entries = records
        .into_iter()
        .enumerate()
        .map(|(index, mut record)| {
            let sequence = index as u64 + 1;
            record["sequence"] = sequence.into();
            let text = serde_json::to_string(&record).expect("a record");
            let parsed: pozo_verifier::format::Record = serde_json::from_str(&text).expect("a record");
            let (mut pools, mut levels) = (BTreeMap::new(), BTreeMap::new());
            if accepted {
                let before = standing(&state);
                match state.apply(&parsed.command, Context { sequence, time_ms: parsed.time_ms }) {
                    Ok(_) => {
                        let after = standing(&state);
                        pools = after.0.into_iter().filter(|(pool, now)| before.0.get(pool) != Some(now)).collect();
                        levels = after.1.into_iter().filter(|(pool, now)| before.1.get(pool) != Some(now)).collect();
                    }
                    Err(_) => accepted = false,
                }
            }
            previous = entry_hash(&previous, text.as_bytes());
            Entry { record: text, hash: hex::encode(previous), pools, levels }
        })
        .collect();
    evidence.last_entry = evidence.entries.len() as u64;
    evidence.last_hash = hex::encode(previous);
    pozo_verifier::make::seal(&evidence, key)
}

/// The verdict on one file alone, which must not conform: its check, entry and message.
fn refused(name: &str, bytes: Vec<u8>, key: &PublicKey) -> (Check, Option<u64>, String) {
    let verdict: Verdict = pozo_verifier::verify(&[(name.to_owned(), bytes)], key);
    let said = pozo_verifier::castellano(&verdict);
    assert!(!verdict.conforme && said.contains("VEREDICTO: NO CONFORME"), "{name}: {said}");
    let (_, problem) = verdict.problem.clone().expect("a problem named");
    (problem.check, problem.entry, problem.message)
}

/// The position (0-based) of the first record from `from` on satisfying `is`.
fn position(records: &[Value], from: usize, is: impl Fn(&Value) -> bool) -> usize {
    records.iter().skip(from).position(is).map(|at| at + from).expect("such a record")
}

/// Entries of `data`'s journal from `from` on rewritten by `edit` (their records as JSON), every
/// hash after chained again and the tip sealed again with the journal key: what one holding the
/// journal key could do. The acknowledgement mark is removed (it names the old hash).
async fn rewrite_journal(data: &Path, from: u64, edit: impl Fn(u64, &mut Value)) {
    let config = link_with_ceiling("20100.00");
    let journal = pozo_server::journal::Journal::open(data).expect("opened");
    let identity = journal.identity().expect("read").expect("an identity");
    let entries: Vec<_> = journal.read_after(0).map(|entry| entry.expect("an entry")).collect();
    let mut previous = entries[from as usize - 1].previous;
    let mut batch = BTreeMap::new();
    for entry in entries.iter().skip(from as usize - 1) {
        let mut record = serde_json::to_value(&entry.record).expect("JSON");
        edit(entry.record.sequence, &mut record);
        let record: pozo_server::journal::Record = serde_json::from_value(record).expect("still a record");
        let (value, hash) = pozo_server::journal::Journal::encode(&previous, &record);
        batch.insert(record.sequence, value);
        previous = hash;
    }
    let last = entries.last().expect("entries").record.sequence;
    drop(journal);
    pozo_server::journal::store::damage::rewrite_entries(data, batch).expect("rewritten");
    // The tip's seal: HMAC(journal key, "pozo.v1.tip" 0, installation, epoch, sequence, hash).
    let key = config.journal_key.as_ref().expect("a journal key");
    let mut mac = Hmac::<Sha256>::new_from_slice(&key.0).expect("a key");
    mac.update(b"pozo.v1.tip\0");
    mac.update(&hex::decode(&identity.installation).expect("hex"));
    mac.update(&identity.epoch.to_be_bytes());
    mac.update(&last.to_be_bytes());
    mac.update(&previous);
    let seal: [u8; 32] = mac.finalize().into_bytes().into();
    let journal = pozo_server::journal::Journal::open(data).expect("opened");
    journal.reseal_tip((last, previous), seal).await.expect("the tip sealed again");
    drop(journal);
    let _ = std::fs::remove_file(pozo_server::journal::mark::default_path(data));
}

// Proves the three tools check every draw and reveal of a night with two hits and a hot seat,
// say how many they checked, and refuse each tampering of the draws naming the entry and the rule.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_draw_is_proved_offline_and_every_tampering_is_named() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let data = directory.path().join("data");
    let config = link_with_ceiling("20100.00");
    let clock = Arc::new(ManualClock::at(NIGHT));
    let options = pozo_server::ServeOptions {
        clock: clock.clone(),
        cards: pozo_server::cards::CardSource::Seeded(SEED),
        ..Default::default()
    };
    let server = pozo_server::Embedded::start(config.clone(), &data, options).await.expect("the server started");
    let mut client = connect_with(&server.address.to_string(), config.clone()).await;

    // CP1 holds a bet in force all night: a hot seat's candidate beside B1's. B1 plays rounds of
    // one bet (20,00 to the level each) until the level has hit twice and a hit came after at
    // least one earlier contribution of its cycle below the ceiling.
    client.ok("CP1", open()).await;
    client.ok("CP1", sell(3, 1)).await;
    client.ok("CP1", press(3)).await;
    client.ok("CP1", start()).await;
    client.ok("B1", open()).await;
    let mut rounds = 0;
    loop {
        let night = records(&mut client).await;
        if count(&night, "reveal") >= 2 && movable(&night).is_some() {
            break;
        }
        rounds += 1;
        assert!(rounds <= 40, "two hits of a 100,00 range come within 40 rounds of 20,00");
        client.ok("B1", sell(1, 1)).await;
        client.ok("B1", press(1)).await;
        client.ok("B1", start()).await;
        client.ok("B1", finish()).await;
    }
    // Six rounds more (120,00): a meter whose reveal were missing would pass the ceiling.
    for _ in 0..6 {
        client.ok("B1", sell(1, 1)).await;
        client.ok("B1", press(1)).await;
        client.ok("B1", start()).await;
        client.ok("B1", finish()).await;
    }
    // The next night begins: this one is over.
    clock.set(NIGHT + DAY);
    client.ok("CP2", open()).await;
    let night = records(&mut client).await;
    server.stop().await.expect("stopped");
    let (committed, revealed) = (count(&night, "draw"), count(&night, "reveal"));
    assert_eq!(committed, revealed + 1, "a draw at the start and one after each reveal");
    let said = format!("{committed} compromisos, {revealed} revelados, todos conformes");

    // `pozo-server verify`: every draw checked, counted.
    let (ok, report) = verify(&data).await;
    assert!(ok, "{report:#}");
    assert_eq!(report["draws"], format!("sorteos: {said}"), "{report:#}");

    // `pozo-server evidence`: the night's file, its draws checked as it was made.
    let key = directory.path().join("evidencia.pem");
    let made = run(vec!["evidence-key".into(), "--out".into(), arg(&key)]).await;
    assert!(made.status.success(), "{}", text(&made));
    let registered =
        PublicKey::parse(&std::fs::read_to_string(directory.path().join("evidencia.pem.pub")).expect("public")).expect("a key");
    let casino = SigningKey::from_pem(&std::fs::read_to_string(&key).expect("the key")).expect("the casino's key");
    let file = directory.path().join("2026-11-22.json");
    let output = evidence(&data, &key, &file).await;
    assert!(output.status.success(), "{}", text(&output));
    let written: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!((&written["complete"], &written["draws"]), (&true.into(), &format!("sorteos: {said}").into()), "{written:#}");

    // The verifier: CONFORME, the draws counted, each hit with its trigger, the seat whose
    // contribution reached it and the hot seat its nonce picks.
    let verdict = pozo_verifier::verify_paths(&[PathBuf::from(&file)], &registered).expect("read");
    let text_said = pozo_verifier::castellano(&verdict);
    assert!(verdict.conforme && text_said.ends_with("VEREDICTO: CONFORME\n"), "{text_said}");
    assert!(text_said.contains(&format!("  sorteos: {said}\n")), "{text_said}");
    let draws = verdict.files[0].draws.clone().expect("the draws checked");
    assert_eq!((draws.committed, draws.revealed, draws.hits.len()), (committed as u64, revealed as u64, revealed));
    for hit in &draws.hits {
        let reveal = &night[hit.entry as usize - 1]["command"];
        assert_eq!((kind(&night[hit.entry as usize - 1]), hit.after), ("reveal", hit.entry - 1), "{reveal}");
        assert_eq!(hit.trigger, serde_json::from_value::<Money>(reveal["trigger"].clone()).expect("an amount"));
        assert!(hit.trigger > ars("20000.00") && hit.trigger <= ars("20100.00"));
        let hot = hit.hot_seat.clone().expect("a hot seat: CP1's seat 3 and B1's seat 1 had bets in force");
        let eligible: Vec<(String, u64)> = reveal["eligible"]
            .as_array()
            .expect("candidates")
            .iter()
            .map(|seat| (seat["table"].as_str().expect("a table").to_owned(), seat["seat"].as_u64().expect("a seat")))
            .collect();
        // CP1's seat 3 all night, B1's seat 1 in its round.
        assert!(eligible.contains(&("CP1".to_owned(), 3)), "{eligible:?}");
        assert!(eligible.contains(&(hot.table.to_string(), u64::from(hot.seat))), "{hot:?} among {eligible:?}");
        let won = &night[hit.after as usize - 1]["command"];
        assert_eq!((won["op"]["op"].as_str(), won["table_id"].as_str()), (Some("start_round"), Some(hit.winner.table.as_str())));
        let line = format!(
            "    acierto del nivel {LEVEL} del pozo {POOL} (ciclo {}, asiento {}): disparador {}, alcanzado por el aporte del \
             asiento {} de {} asiento {}; asiento caliente: {} asiento {}\n",
            hit.cycle,
            hit.entry,
            pozo_engine::format_ars(hit.trigger),
            hit.after,
            hit.winner.table,
            hit.winner.seat,
            hot.table,
            hot.seat
        );
        assert!(text_said.contains(&line), "missing «{line}» in:\n{text_said}");
    }

    // The tamperings, each of the evidence signed again by the casino.
    let Movable { reveal: r, contribution: c, earlier: p, later: s } = movable(&night).expect("chosen above");
    let reveal = night[r]["command"].clone();
    let drawn_at = position(&night, 0, |record| kind(record) == "draw" && record["command"]["cycle"] == reveal["cycle"]) + 1;
    let (reveal_entry, c_entry) = (r as u64 + 1, c as u64 + 1);
    let trigger: Money = serde_json::from_value(reveal["trigger"].clone()).expect("an amount");
    let what = format!("revelación del ciclo {} del nivel {LEVEL} del pozo {POOL}", reveal["cycle"]);

    // 1. The trigger altered by a centavo, and the nonce altered: neither opens the commitment.
    let altered = trigger + ars("0.01");
    let bytes = forged(&file, &casino, |records| records[r]["command"]["trigger"] = altered.to_string().into());
    let (check, entry, message) = refused("disparador.json", bytes, &registered);
    assert_eq!((check, entry), (Check::Draw, Some(reveal_entry)), "{message}");
    assert_eq!(
        message,
        format!(
            "{what}: el disparador {} y su nonce no abren el compromiso del asiento {drawn_at}: la revelación no es lo que se \
             comprometió",
            pozo_engine::format_ars(altered)
        )
    );
    let bytes = forged(&file, &casino, |records| {
        let nonce = records[r]["command"]["nonce"].as_str().expect("a nonce").to_owned();
        let flipped = if nonce.starts_with('0') { "1" } else { "0" };
        records[r]["command"]["nonce"] = format!("{flipped}{}", &nonce[1..]).into();
    });
    let (check, entry, message) = refused("nonce.json", bytes, &registered);
    assert_eq!((check, entry), (Check::Draw, Some(reveal_entry)), "{message}");
    assert!(message.contains(&format!("no abren el compromiso del asiento {drawn_at}")), "{message}");

    // 2. The hit moved after a later contribution: the reveal (and the draw after it) taken to
    //    follow the next INICIAR JUEGO, naming it. An earlier entry had reached the trigger.
    let bytes = forged(&file, &casino, |records| {
        let moved: Vec<Value> = records.drain(r..r + 2).collect();
        let s = s - 2;
        let mut moved = moved.into_iter();
        let mut reveal = moved.next().expect("the reveal");
        reveal["command"]["after"] = (s as u64 + 1).into();
        records.insert(s + 1, reveal);
        records.insert(s + 2, moved.next().expect("the draw"));
    });
    let (check, entry, message) = refused("tarde.json", bytes, &registered);
    assert_eq!((check, entry), (Check::Draw, Some(s as u64 + 1 - 2 + 1)), "{message}");
    assert!(
        message.starts_with(&format!("{what}: el acierto llegó tarde: el asiento {c_entry} ya había llevado el nivel a ")),
        "{message}"
    );
    //    Moved so, still naming the contribution that reached it: it does not follow it at once.
    let bytes = forged(&file, &casino, |records| {
        let moved: Vec<Value> = records.drain(r..r + 2).collect();
        let s = s - 2;
        for (offset, record) in moved.into_iter().enumerate() {
            records.insert(s + 1 + offset, record);
        }
    });
    let (check, entry, message) = refused("despues.json", bytes, &registered);
    assert_eq!((check, entry), (Check::Draw, Some(s as u64)), "{message}");
    assert_eq!(
        message,
        format!(
            "{what}: no sigue de inmediato al asiento {c_entry} que nombra: después de él aportó al nivel el asiento {}",
            s - 1
        )
    );

    // 3. The hit moved before the contribution that reached it: the reveal put right after the
    //    cycle's earlier contribution, naming it, which left the meter below the trigger.
    let bytes = forged(&file, &casino, |records| {
        let mut reveal = records.remove(r);
        reveal["command"]["after"] = (p as u64 + 1).into();
        records.insert(p + 1, reveal);
    });
    let (check, entry, message) = refused("antes.json", bytes, &registered);
    assert_eq!((check, entry), (Check::Draw, Some(p as u64 + 2)), "{message}");
    assert!(
        message.starts_with(&format!("{what}: el acierto se adelantó: el asiento {} llevó el nivel a ", p + 1))
            && message.ends_with(&format!(", debajo del disparador {}", pozo_engine::format_ars(trigger))),
        "{message}"
    );

    // 4. A second draw of a cycle: the draw after the reveal journaled again (a redraw).
    let bytes = forged(&file, &casino, |records| {
        let draw = records[r + 1].clone();
        records.insert(r + 2, draw);
    });
    let (check, entry, message) = refused("redibujo.json", bytes, &registered);
    assert_eq!((check, entry), (Check::Draw, Some(reveal_entry + 2)), "{message}");
    assert!(message.contains("o es un segundo sorteo (un valor comprometido no se sortea de nuevo)"), "{message}");

    // 5. A trigger outside (from, ceiling]: a draw whose range ends above the ceiling, and its
    //    reveal, made consistent with a commitment of the forger's own (the range is then not
    //    the one due: refused at the draw); and the reveal of a trigger above the ceiling with
    //    the true commitment (it cannot open it: the commitment binds the range).
    let bytes = forged(&file, &casino, |records| records[drawn_at - 1]["command"]["ceiling"] = "20200.00".into());
    let (check, entry, message) = refused("techo.json", bytes, &registered);
    assert_eq!((check, entry), (Check::Draw, Some(drawn_at as u64)), "{message}");
    assert!(
        message.contains("no es el sorteo que corresponde (ciclo")
            && message.contains("a $ 20.100,00): dice ciclo")
            && message.ends_with("a $ 20.200,00"),
        "{message}"
    );
    let out_of_range = check_out_of_range(&night, r, drawn_at, &casino, &file, &registered);
    assert!(out_of_range.contains("está fuera de ($ 20.000,00, $ 20.100,00]"), "{out_of_range}");

    // 6. The hot seat's candidates altered: a seat added, or one left out (the nonce would pick
    //    among others): not the seats in force.
    let bytes = forged(&file, &casino, |records| {
        records[r]["command"]["eligible"]
            .as_array_mut()
            .expect("candidates")
            .push(serde_json::json!({"table": "CP1", "seat": 5}));
    });
    let (check, entry, message) = refused("candidatos.json", bytes, &registered);
    assert_eq!((check, entry), (Check::Draw, Some(reveal_entry)), "{message}");
    assert_eq!(
        message,
        format!(
            "{what}: los candidatos al asiento caliente que lista (B1 asiento 1, CP1 asiento 3, CP1 asiento 5) no son los \
             asientos con apuesta en vigor (B1 asiento 1, CP1 asiento 3): el asiento caliente no se sorteó entre ellos"
        )
    );

    // 7. A reveal deleted, and the hit with it: the next draw finds the cycle still open; and,
    //    the draw deleted too, the meter reaches the ceiling with no reveal after it.
    let bytes = forged(&file, &casino, |records| {
        records.remove(r);
    });
    let (check, entry, message) = refused("sin-revelar.json", bytes, &registered);
    assert_eq!((check, entry), (Check::Draw, Some(reveal_entry)), "{message}");
    assert!(message.contains("y no se reveló: o falta su revelación"), "{message}");
    let bytes = forged(&file, &casino, |records| {
        records.drain(r..r + 2);
    });
    let (check, entry, message) = refused("sin-revelar-ni-sortear.json", bytes, &registered);
    assert_eq!(check, Check::Draw, "{message}");
    assert!(entry.is_some_and(|entry| entry > reveal_entry), "{entry:?} {message}");
    assert!(message.contains("falta") && message.contains("revelación"), "{message}");

    // Untouched, the file still conforms: every refusal above is the tampering's.
    assert!(pozo_verifier::verify_paths(&[PathBuf::from(&file)], &registered).expect("read").conforme);

    // The journal itself rewritten by one holding the journal key, the reveal's trigger altered:
    // `verify` says NO CONFORME naming the entry and the rule; `evidence` refuses to sign it.
    let copy = directory.path().join("alterado");
    pozo_server::tools::verify::copy_tree(&data, &copy).expect("copied");
    rewrite_journal(&copy, reveal_entry, |sequence, record| {
        if sequence == reveal_entry {
            record["command"]["trigger"] = altered.to_string().into();
        }
    })
    .await;
    let (ok, report) = verify(&copy).await;
    assert!(!ok, "{report:#}");
    assert_eq!(
        report["draws"],
        format!(
            "NO CONFORME: asiento {reveal_entry}: sorteo: {what}: el disparador {} y su nonce no abren el compromiso del \
             asiento {drawn_at}: la revelación no es lo que se comprometió",
            pozo_engine::format_ars(altered)
        ),
        "{report:#}"
    );
    let output = evidence(&copy, &key, &directory.path().join("alterada.json")).await;
    assert!(!output.status.success(), "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("the jornada's draws do not conform: NO CONFORME: sorteo: asiento {reveal_entry}: {what}: ")),
        "{stderr}"
    );
    assert!(!directory.path().join("alterada.json").exists(), "nothing signed");
}

/// A hit the tamperings move: its reveal (index), the contribution that reached the trigger, an
/// earlier contribution of its cycle, and the next contribution after the reveal and its draw;
/// the meter below the ceiling after the contribution that reached the trigger.
struct Movable {
    reveal: usize,
    contribution: usize,
    earlier: usize,
    later: usize,
}

fn movable(night: &[Value]) -> Option<Movable> {
    night.iter().enumerate().filter(|(_, record)| kind(record) == "reveal").find_map(|(r, record)| {
        let c = record["command"]["after"].as_u64()? as usize - 1;
        let drawn = night[..r].iter().rposition(|record| kind(record) == "draw")?;
        let earlier = night[drawn..c].iter().rposition(feeds).map(|at| at + drawn)?;
        // The meter after the contribution: the reset and 20,00 a bet (10,00 at CP1).
        let fed: Money = night[drawn..=c]
            .iter()
            .filter(|record| feeds(record))
            .map(|record| if record["command"]["table_id"] == "CP1" { ars("10.00") } else { ars("20.00") })
            .sum();
        let later = night.iter().skip(r + 2).position(feeds).map(|at| at + r + 2)?;
        (kind(&night[r + 1]) == "draw" && ars("20000.00") + fed < ars("20100.00")).then_some(Movable {
            reveal: r,
            contribution: c,
            earlier,
            later,
        })
    })
}

/// The reveal of `r` with a trigger above the ceiling: refused, named; its message.
fn check_out_of_range(night: &[Value], r: usize, drawn_at: usize, casino: &SigningKey, file: &Path, key: &PublicKey) -> String {
    // A forger who commits to a trigger above the ceiling: the draw's commitment recomputed for
    // the reveal's nonce and a trigger of 20.150,00 (the draw's range as due), and the reveal
    // revealing it. It opens its commitment; the range refuses it.
    let draw = &night[drawn_at - 1]["command"];
    let reveal = &night[r]["command"];
    let head = pozo_core::state::draw::DrawHead {
        pool: POOL.into(),
        level: LEVEL.into(),
        cycle: draw["cycle"].as_u64().expect("a cycle"),
        from: serde_json::from_value(draw["from"].clone()).expect("an amount"),
        ceiling: serde_json::from_value(draw["ceiling"].clone()).expect("an amount"),
    };
    let nonce = pozo_core::state::draw::nonce_of(reveal["nonce"].as_str().expect("a nonce")).expect("a nonce");
    let above = ars("20150.00");
    let commitment = hex::encode(pozo_core::state::draw::commitment(&head, above, &nonce));
    let bytes = forged(file, casino, |records| {
        records[drawn_at - 1]["command"]["commitment"] = commitment.clone().into();
        records[r]["command"]["trigger"] = above.to_string().into();
    });
    let (check, entry, message) = refused("fuera.json", bytes, key);
    assert_eq!((check, entry), (Check::Draw, Some(r as u64 + 1)), "{message}");
    message
}
