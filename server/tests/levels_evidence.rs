//! A jornada of the market's progressives (docs/readings.md, "Levels", "The envy bonus") played
//! through the real controller on 127.0.0.1:0 with the example layout
//! `config/examples/mercado-casino.toml` and the rulebooks `config/iplyc.toml` and
//! `config/mercado.toml`, its evidence written by `pozo-server evidence` and checked by
//! `pozo_verifier` (the library the `pozo-verifier` binary runs; docs/journal.md, "A jornada's
//! evidence"): `verify` and the verifier say it conforms, and the verifier's report gives each
//! level of each pool its opening, movements and closing, tied to zero. Every tampering with a
//! level is NO CONFORME, naming the pool and the level: a level's closing figures, a bet's split
//! between levels beside its record, a record changed and chained again, a level's awards meter,
//! the next jornada's opening state of a level.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::market::*;
use common::*;
use pozo_engine::Money;
use pozo_server::clock::ManualClock;
use pozo_verifier::format::{Evidence, entry_hash};
use pozo_verifier::{Check, PublicKey, SigningKey, Verdict};

/// 2026-11-22 20:00 in the casino's zone (UTC-03:00): the first night.
const NIGHT_ONE: u64 = 1_795_305_600_000 + 23 * 3_600_000;
const DAY: u64 = 24 * 3_600_000;
const LINK: &str = "mercado-blackjack";
const TCP: &str = "mercado-tcp";

fn ars(text: &str) -> Money {
    text.parse().unwrap_or_else(|_| panic!("an amount: {text}"))
}

fn arg(path: &Path) -> String {
    path.display().to_string()
}

/// `pozo-server evidence` of `jornada` from the journal in `data`, signed with `key`.
async fn evidence(data: &Path, key: &Path, jornada: &str, out: &Path) -> serde_json::Value {
    let args = ["evidence", "--jornada", jornada, "--out", &arg(out), "--signing-key", &arg(key), "--data", &arg(data)];
    let output = run(args.iter().map(|arg| (*arg).to_owned()).collect()).await;
    assert!(output.status.success(), "evidence of {jornada}: {}", text(&output));
    serde_json::from_slice(&output.stdout).expect("what was written, as JSON")
}

/// The verdict on the files at `paths`, as `pozo-verifier` reaches it.
fn verify(paths: &[&PathBuf], key: &PublicKey) -> Verdict {
    let paths: Vec<PathBuf> = paths.iter().map(|path| (*path).clone()).collect();
    pozo_verifier::verify_paths(&paths, key).expect("the files are read")
}

/// The first problem's check, entry and message, of a verdict that must not conform.
fn refused(verdict: &Verdict) -> (Check, Option<u64>, String) {
    assert!(!verdict.conforme, "refused: {}", pozo_verifier::castellano(verdict));
    assert!(pozo_verifier::castellano(verdict).contains("VEREDICTO: NO CONFORME"));
    let (_, problem) = verdict.problem.clone().expect("a problem named");
    (problem.check, problem.entry, problem.message)
}

/// One file's verdict alone.
fn alone(name: &str, bytes: Vec<u8>, key: &PublicKey) -> Verdict {
    pozo_verifier::verify(&[(name.to_owned(), bytes)], key)
}

/// The file's evidence as JSON.
fn evidence_of(path: &Path) -> serde_json::Value {
    let file: serde_json::Value = serde_json::from_slice(&std::fs::read(path).expect("read")).expect("JSON");
    file["evidence"].clone()
}

/// The evidence, changed by `change`, signed again with the casino's own `key`: what a casino
/// rewriting its own evidence would hand over. The signature holds; only the recomputation can
/// refuse it.
fn resigned(path: &Path, key: &SigningKey, change: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    let mut evidence = evidence_of(path);
    change(&mut evidence);
    let evidence: Evidence = serde_json::from_value(evidence).expect("still an evidence");
    pozo_verifier::make::seal(&evidence, key)
}

/// The evidence with one entry's record changed by `change`, every hash from it on chained again
/// (the chain is SHA-256, no secret) and the whole signed again with the casino's key: the
/// signature and the chain hold; only the replay of the record can refuse it.
fn rechained(path: &Path, key: &SigningKey, index: usize, change: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    let mut evidence: Evidence = serde_json::from_value(evidence_of(path)).expect("an evidence");
    let mut record: serde_json::Value = serde_json::from_str(&evidence.entries[index].record).expect("a record");
    change(&mut record);
    evidence.entries[index].record = serde_json::to_string(&record).expect("a record");
    let mut previous: [u8; 32] = match index {
        0 => hex::decode(&evidence.previous_hash),
        _ => hex::decode(&evidence.entries[index - 1].hash),
    }
    .expect("hex")
    .try_into()
    .expect("32 bytes");
    for entry in &mut evidence.entries[index..] {
        previous = entry_hash(&previous, entry.record.as_bytes());
        entry.hash = hex::encode(previous);
    }
    evidence.last_hash = hex::encode(previous);
    pozo_verifier::make::seal(&evidence, key)
}

/// The position of the first entry whose record satisfies `is`.
fn entry_where(evidence: &serde_json::Value, is: impl Fn(&serde_json::Value) -> bool) -> usize {
    let entries = evidence["entries"].as_array().expect("entries");
    entries
        .iter()
        .position(|entry| is(&serde_json::from_str(entry["record"].as_str().expect("a record")).expect("a record")))
        .expect("such an entry")
}

/// A table command's record at `table` doing `op`.
fn table_op(record: &serde_json::Value, table: &str, op: &str) -> bool {
    record["command"]["kind"] == "table" && record["command"]["table_id"] == table && record["command"]["op"]["op"] == op
}

/// A level of a pool in a closing's `levels`, by name.
fn level<'a>(levels: &'a mut serde_json::Value, pool: &str, name: &str) -> &'a mut serde_json::Value {
    levels[pool].as_array_mut().expect("the pool's levels").iter_mut().find(|level| level["level"] == name).expect("the level")
}

// Proves a jornada of the four-level link and Three Card Poker with the envy bonus, through the
// real server, conforms to `verify` and to the verifier, whose report ties every level of every
// pool to zero on its own; and that each tampering with a level is NO CONFORME, naming the pool
// and the level, where the pool's sum alone would not see it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jornada_with_levels_verifies_level_by_level_and_each_tampered_level_is_named() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let data = directory.path().join("data");
    let clock = Arc::new(ManualClock::at(NIGHT_ONE));
    let options = pozo_server::ServeOptions { clock: clock.clone(), ..Default::default() };
    let server = pozo_server::Embedded::start(mercado(), &data, options).await.expect("the server started");
    let mut client = connect_with(&server.address.to_string(), mercado()).await;

    // Night one. Two bets of 1.000 at each of B1, B2 and B3 feed the four levels; B1 and B3 play
    // their rounds out.
    for table in ["B1", "B2", "B3"] {
        client.ok(table, open()).await;
        for seat in [1, 2] {
            client.ok(table, sell(seat, 1)).await;
            client.ok(table, press(seat)).await;
        }
        client.ok(table, start()).await;
    }
    client.ok("B1", finish()).await;
    client.ok("B3", finish()).await;
    // B2: the Grand and the Mini in the same round, each paid whole from its own level.
    client.ok("B2", prize(1, "TRES_SIETES_CORAZONES")).await;
    client.ok("B2", prize(2, "TRES_SIETES")).await;
    let paid = client.ok("B2", accept()).await;
    let orders: Vec<(String, String)> =
        paid.awards.iter().map(|award| (award.code.clone(), award.payout_order_id.clone())).collect();
    assert_eq!(orders.len(), 2, "{orders:?}");
    client.ok("B2", finish()).await;
    // CP1: four bets of 500, the spades Mini Royal at seat 2, the envy to seats 1, 3 and 5.
    client.ok("CP1", open()).await;
    for seat in [1, 2, 3, 5] {
        client.ok("CP1", sell(seat, 1)).await;
        client.ok("CP1", press(seat)).await;
    }
    client.ok("CP1", start()).await;
    client.ok("CP1", prize(2, "MINI_ROYAL_PICAS")).await;
    let royal = client.ok("CP1", accept()).await;
    assert_eq!(royal.awards.len(), 4, "the Mini Royal and three envy awards: {:?}", royal.awards);
    client.ok("CP1", finish()).await;
    // Venta-Pagos confirms the Grand and rejects the Mini (docs/readings.md, "What a
    // Venta-Pagos rejection undoes"); the Mini Royal's order waits for the next night.
    let order = |code: &str| orders.iter().find(|(of, _)| of == code).expect("its order").1.clone();
    client.confirm(&order("TRES_SIETES_CORAZONES"), "F-1").await.expect("confirmed");
    client.reject(&order("TRES_SIETES"), "Cartas mal leídas").await.expect("rejected");
    let pending: Vec<_> = client.orders().await.into_iter().filter(|order| order.status == "pendiente").collect();
    assert_eq!(pending.len(), 1, "{pending:?}");
    assert_eq!(pending[0].code, "MINI_ROYAL_PICAS");

    // Night two: the Mini Royal confirmed, a round at B1. Night three begins: night two is over.
    clock.set(NIGHT_ONE + DAY);
    client.confirm(&pending[0].order_id, "F-2").await.expect("confirmed");
    client.sell_and_press("B1", [3], 1).await;
    client.ok("B1", start()).await;
    client.ok("B1", finish()).await;
    clock.set(NIGHT_ONE + 2 * DAY);
    client.ok("CP2", open()).await;
    server.stop().await.expect("stopped");

    // `pozo-server verify`: the journal holds; every level of each pool is in its report.
    let verified = run(vec!["verify".into(), "--data".into(), arg(&data)]).await;
    let report: serde_json::Value = serde_json::from_slice(&verified.stdout).expect("verify prints JSON");
    assert!(verified.status.success(), "{report:#}");
    assert_eq!((&report["chain"], &report["conservation"]), (&"ok".into(), &"ok".into()), "{report:#}");
    let names = |pool: &str| -> Vec<String> {
        let levels = report["pools"][pool]["levels"].as_array().unwrap_or_else(|| panic!("{pool}'s levels: {report:#}"));
        levels.iter().map(|level| level["name"].as_str().expect("a name").to_owned()).collect()
    };
    assert_eq!(names(LINK), ["Grand", "Major", "Minor", "Mini", "Pagado por la casa"]);
    assert_eq!(names(TCP), ["Mini Royal", "Pagado por la casa"]);
    assert!(report["pools"]["iplyc-ruleta"].get("levels").is_none(), "a pool of one level has none: {report:#}");
    let house = &report["pools"][TCP]["levels"][1];
    assert_eq!((&house["awards"], &house["hits"], &house["house"]), (&"150000.00".into(), &3.into(), &true.into()));

    // The evidence of nights one and two.
    let key = directory.path().join("evidencia.pem");
    let made = run(vec!["evidence-key".into(), "--out".into(), arg(&key)]).await;
    assert!(made.status.success(), "{}", text(&made));
    let registered =
        PublicKey::parse(&std::fs::read_to_string(directory.path().join("evidencia.pem.pub")).expect("public")).expect("a key");
    let casino = SigningKey::from_pem(&std::fs::read_to_string(&key).expect("the key")).expect("the casino's key");
    let one = directory.path().join("2026-11-22.json");
    let two = directory.path().join("2026-11-23.json");
    assert_eq!(evidence(&data, &key, "2026-11-22", &one).await["complete"], true);
    assert_eq!(evidence(&data, &key, "2026-11-23", &two).await["complete"], true);

    // Both conform and link; the report gives each level its opening, movements and closing.
    let verdict = verify(&[&one, &two], &registered);
    let said = pozo_verifier::castellano(&verdict);
    assert!(verdict.conforme && said.ends_with("VEREDICTO: CONFORME\n"), "{said}");
    let night = &verdict.files[0];
    let levels: Vec<&str> = night.levels[LINK].iter().map(|level| level.level.as_str()).collect();
    assert_eq!(levels, ["Grand", "Major", "Minor", "Mini", "Pagado por la casa"]);
    assert!(night.levels.values().flatten().all(|level| level.books.ties()), "{said}");
    // The levels' books add up to the pool's: the same money, told level by level.
    let pool = &night.reconciliation[LINK];
    let sum = |line: fn(&pozo_engine::Reconciliation) -> Money| {
        night.levels[LINK].iter().map(|level| line(&level.books)).sum::<Money>()
    };
    assert_eq!(sum(|books| books.contributions), pool.contributions);
    assert_eq!(sum(|books| books.awards), pool.awards);
    assert_eq!(sum(|books| books.closing_balance + books.closing_reserve), pool.closing_balance + pool.closing_reserve);
    // Six bets of 1.000: the Grand 480 and 120 to its reserve, the Major 300, the Minor 180, the
    // Mini 120. The Grand paid whole (2.000.480), its reserve then the house back to its reset; the
    // Mini paid (10.120) and, rejected, its award returned and the house's reset withdrawn; the
    // Major and the Minor only fed.
    for line in [
        "  pozo mercado-blackjack: apertura $ 2.260.000,00, aportes $ 1.200,00 (6 apuestas)",
        "    nivel Grand: apertura $ 2.000.000,00, aportes $ 600,00, reposiciones $ 1.999.880,00, premios $ 2.000.480,00 (1), \
         devueltos $ 0,00, cierre $ 2.000.000,00: cuadra en cero\n",
        "    nivel Major: apertura $ 200.000,00, aportes $ 300,00, reposiciones $ 0,00, premios $ 0,00 (0), devueltos $ 0,00, \
         cierre $ 200.300,00: cuadra en cero\n",
        "    nivel Minor: apertura $ 50.000,00, aportes $ 180,00, reposiciones $ 0,00, premios $ 0,00 (0), devueltos $ 0,00, \
         cierre $ 50.180,00: cuadra en cero\n",
        "    nivel Mini: apertura $ 10.000,00, aportes $ 120,00, reposiciones $ 10.000,00, premios $ 10.120,00 (1), \
         devueltos $ 10.120,00, cierre $ 10.120,00: cuadra en cero\n      además, reposiciones retiradas: $ 10.000,00\n",
        // Four bets of 500: 75 each to the Mini Royal, 10 to its reserve; the meter paid whole
        // (2.500.300), its reserve then the house back to the reset. The house's level pays the
        // three envy awards with its own money: in and out, nothing held.
        "    nivel Mini Royal: apertura $ 2.500.000,00, aportes $ 340,00, reposiciones $ 2.499.960,00, \
         premios $ 2.500.300,00 (1), devueltos $ 0,00, cierre $ 2.500.000,00: cuadra en cero\n",
        "    nivel Pagado por la casa: apertura $ 0,00, aportes $ 0,00, reposiciones $ 150.000,00, premios $ 150.000,00 (3), \
         devueltos $ 0,00, cierre $ 0,00: cuadra en cero\n",
    ] {
        assert!(said.contains(line), "missing «{line}» in:\n{said}");
    }
    let one_bytes = std::fs::read(&one).expect("read");

    // 1. A level's closing balance changed in the evidence's close (the pool's sum left as it
    //    was), signed again: the books name the pool and the level.
    let changed = resigned(&one, &casino, |evidence| {
        level(&mut evidence["closing"]["levels"], LINK, "Major")["balance"] = "250300.00".into();
    });
    let (check, _, message) = refused(&alone("cierre-nivel.json", changed, &registered));
    assert_eq!(check, Check::Books, "{message}");
    assert_eq!(
        message,
        "closing.levels: pozo mercado-blackjack, nivel Major: balance: el archivo dice $ 250.300,00, recalculado da $ 200.300,00"
    );

    // 2. A bet's split between levels changed beside its record (B1's INICIAR JUEGO): 100 moved
    //    from the Grand to the Mini, the pool's balance the same, signed again. The pool's figures
    //    agree; the replay of the record, level by level, does not.
    let evidence_one = evidence_of(&one);
    let start_b1 = entry_where(&evidence_one, |record| table_op(record, "B1", "start_round"));
    assert!(evidence_one["entries"][start_b1]["levels"].get(LINK).is_some(), "the bets' split is in the file");
    let changed = resigned(&one, &casino, |evidence| {
        let levels = &mut evidence["entries"][start_b1]["levels"][LINK];
        let moved = |level: &mut serde_json::Value, by: Money| {
            let balance = ars(level["balance"].as_str().expect("an amount")) + by;
            level["balance"] = balance.to_string().into();
        };
        moved(&mut levels[0], ars("-100.00"));
        moved(&mut levels[3], ars("100.00"));
    });
    let (check, entry, message) = refused(&alone("reparto.json", changed, &registered));
    assert_eq!((check, entry), (Check::Recomputation, Some(start_b1 as u64 + 1)), "{message}");
    assert_eq!(
        message,
        "pozo mercado-blackjack, nivel Grand: el archivo dice saldo $ 2.000.060,00 y reserva $ 40,00, recalculado da saldo \
         $ 2.000.160,00 y reserva $ 40,00"
    );

    //    The record itself changed: B2's seat 2 entered as the Minor's hand instead of the Mini's,
    //    every hash after it chained again and the file signed again. Signature and chain hold;
    //    the replay pays the Minor, and the file says the Mini was paid: ACEPTAR names the level.
    let entered = entry_where(&evidence_one, |record| {
        table_op(record, "B2", "enter_prize") && record["command"]["op"]["code"] == "TRES_SIETES"
    });
    let accepted = entry_where(&evidence_one, |record| table_op(record, "B2", "accept"));
    let changed = rechained(&one, &casino, entered, |record| record["command"]["op"]["code"] = "CUATRO_ASES".into());
    let (check, entry, message) = refused(&alone("registro.json", changed, &registered));
    assert_eq!((check, entry), (Check::Recomputation, Some(accepted as u64 + 1)), "{message}");
    assert!(message.starts_with("pozo mercado-blackjack, nivel Minor: el archivo dice saldo $ 50.180,00"), "{message}");

    // 3. A level's awards meter changed at the close, and the pool's with it so that the pool's
    //    figures still add up: the level is named, with its meter.
    let changed = resigned(&one, &casino, |evidence| {
        level(&mut evidence["closing"]["levels"], LINK, "Grand")["meters"]["awards"] = "2000481.00".into();
        evidence["closing"]["pools"][LINK]["meters"]["awards"] = "2010601.00".into();
    });
    let (check, _, message) = refused(&alone("premios-nivel.json", changed, &registered));
    assert_eq!(check, Check::Books, "{message}");
    assert_eq!(
        message,
        "closing.levels: pozo mercado-blackjack, nivel Grand: meters.awards: el archivo dice $ 2.000.481,00, recalculado da \
         $ 2.000.480,00"
    );
    //    The house's level too: its envy awards are money the house paid, and are counted.
    let changed = resigned(&one, &casino, |evidence| {
        level(&mut evidence["closing"]["levels"], TCP, "Pagado por la casa")["meters"]["hits"] = 2.into();
    });
    let (check, _, message) = refused(&alone("envidia.json", changed, &registered));
    assert_eq!(check, Check::Books, "{message}");
    assert_eq!(
        message,
        "closing.levels: pozo mercado-tcp, nivel Pagado por la casa: meters.hits: el archivo dice 2, recalculado da 3"
    );

    // 4. The next jornada's opening state with a level's balance changed, its meters made to
    //    conserve (the house's money booked in), signed again: its entries, made from the true
    //    opening, no longer follow from it, and the first that moves the link names the level.
    let raise_major = |opening: &mut serde_json::Value| {
        let major = &mut opening["pools"][LINK]["levels"][0];
        major["balance"] = "250300.00".into();
        let replenished = ars(major["meters"]["replenishments"].as_str().expect("an amount")) + ars("50000.00");
        major["meters"]["replenishments"] = replenished.to_string().into();
    };
    let changed = resigned(&two, &casino, |evidence| raise_major(&mut evidence["opening"]));
    let (check, _, message) = refused(&alone("apertura.json", changed, &registered));
    assert_eq!(check, Check::Recomputation, "{message}");
    assert_eq!(
        message,
        "pozo mercado-blackjack, nivel Major: el archivo dice saldo $ 200.350,00 y reserva $ 0,00, recalculado da saldo \
         $ 250.350,00 y reserva $ 0,00"
    );
    //    Made whole again from that opening, every figure consistent: alone it holds together
    //    (its opening is believed on the signature); after night one, the link names the pool,
    //    the level and the figure.
    let evidence: Evidence = serde_json::from_value(evidence_of(&two)).expect("an evidence");
    let mut opening = serde_json::to_value(evidence.opening.clone().expect("night two opens from a state")).expect("JSON");
    raise_major(&mut opening);
    let opening = serde_json::from_value(opening).expect("a snapshot");
    let config = pozo_core::config::Config::from_texts(evidence.files.clone()).expect("its files");
    let state = pozo_core::state::State::restore(Arc::new(config), opening).expect("it conserves, level by level");
    let records: Vec<Vec<u8>> = evidence.entries.iter().map(|entry| entry.record.clone().into_bytes()).collect();
    let anchor: [u8; 32] = hex::decode(&evidence.previous_hash).expect("hex").try_into().expect("32 bytes");
    let journal = pozo_verifier::make::Journal { installation: &evidence.installation, epoch: evidence.epoch };
    let remade = pozo_verifier::make::make(journal, &evidence.jornada, evidence.made_ms, true, Some(&state), anchor, &records)
        .expect("remade");
    let forged = directory.path().join("rehecha.json");
    std::fs::write(&forged, pozo_verifier::make::seal(&remade, &casino)).expect("written");
    assert!(verify(&[&forged], &registered).conforme, "alone, it holds together");
    let (check, _, message) = refused(&verify(&[&one, &forged], &registered));
    assert_eq!(check, Check::Link, "{message}");
    assert!(
        message.ends_with(
            "abre con un estado que no es el que dejó 22/11/2026: pozo mercado-blackjack, nivel Major: balance: 23/11/2026 \
             abre con $ 250.300,00, 22/11/2026 dejó $ 200.300,00"
        ),
        "{message}"
    );
    //    Its balance changed and nothing else: a state no controller writes, the level named.
    let changed = resigned(&two, &casino, |evidence| {
        evidence["opening"]["pools"][LINK]["levels"][2]["balance"] = "10121.00".into();
    });
    let (check, _, message) = refused(&alone("apertura-rota.json", changed, &registered));
    assert_eq!(check, Check::Format, "{message}");
    assert_eq!(
        message,
        "opening: pozo mercado-blackjack, nivel Mini: el estado de apertura no se conserva (diferencia -$ 1,00): no es un \
         estado que el controlador escriba"
    );

    // Untouched, night one alone still conforms: every refusal above is the change's.
    assert!(alone("2026-11-22.json", one_bytes, &registered).conforme);
}
