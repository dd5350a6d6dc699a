//! A poker tournament's books and seat draws proved offline (Lotería Nacional Res. 123/2013; issue
//! 46, point 6): a tournament played through the real controller over two jornadas — set up and
//! registration on the first (its first seat draw committed there), rebuys, the pool fixed, two
//! seat draws, eliminations with a tie (art. 72), a disqualification (Anexo II) and prizes paid,
//! one through Venta-Pagos (art. 66), on the second. Then:
//! - `Reports.Reconciliation` lists the tournament's books, tied (sold − refunds = prizes + house),
//!   and `Reports.Liability` its prizes owed apart from the pools, PENDIENTE DE PAGO marked; the
//!   sala's report and liability pages show the same lines.
//! - `pozo-server evidence` writes both jornadas; the verifier (`pozo_verifier`, the library the
//!   `pozo-verifier` binary runs) says CONFORME, the seat draw revealed on the second jornada
//!   opening the commitment journaled on the first, every book tied; no document in clear.
//! - Each tampering is NO CONFORME with its Spanish reason: a seat draw's nonce changed, a seating
//!   swapped, a purchase amount changed (in the entry, and in the close's books), a document
//!   unmasked (in an entry, and in the opening state).
//!
//! The evidence is tampered with as a casino holding its own signing key would: records changed,
//! what each entry did recomputed by the pure core as far as it accepts them, every hash chained
//! again, the whole signed again. Signature and chain hold; only the tournaments' rules refuse.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::tournament::*;
use common::*;
use pozo_core::state::{Context, State};
use pozo_proto::v1 as pb;
use pozo_server::clock::ManualClock;
use pozo_verifier::format::{Balances, Entry, Evidence, entry_hash};
use pozo_verifier::{Check, PublicKey, SigningKey, Verdict};
use rust_decimal::Decimal;
use serde_json::Value;

/// 2026-11-22 20:00 in the casino's zone (UTC-03:00): the first jornada.
const NIGHT_ONE: u64 = 1_795_305_600_000 + 23 * 3_600_000;
const DAY: u64 = 24 * 3_600_000;
const T: &str = "multimesa-semanal";

fn arg(path: &Path) -> String {
    path.display().to_string()
}

fn d(text: &str) -> Decimal {
    text.parse().expect("a decimal")
}

async fn evidence(data: &Path, key: &Path, jornada: &str, out: &Path) -> Value {
    let args = ["evidence", "--jornada", jornada, "--out", &arg(out), "--signing-key", &arg(key), "--data", &arg(data)];
    let output = run(args.iter().map(|arg| (*arg).to_owned()).collect()).await;
    assert!(output.status.success(), "evidence of {jornada}: {}", text(&output));
    serde_json::from_slice(&output.stdout).expect("what was written, as JSON")
}

fn evidence_of(path: &Path) -> Evidence {
    let file: Value = serde_json::from_slice(&std::fs::read(path).expect("read")).expect("JSON");
    serde_json::from_value(file["evidence"].clone()).expect("an evidence")
}

/// The verdict on one file alone, which must not conform: its check, entry and message.
fn refused(name: &str, bytes: Vec<u8>, key: &PublicKey) -> (Check, Option<u64>, String) {
    let verdict: Verdict = pozo_verifier::verify(&[(name.to_owned(), bytes)], key);
    let said = pozo_verifier::castellano(&verdict);
    assert!(!verdict.conforme && said.contains("VEREDICTO: NO CONFORME"), "{name}: {said}");
    let (_, problem) = verdict.problem.clone().expect("a problem named");
    (problem.check, problem.entry, problem.message)
}

/// The file's evidence, changed by `change`, signed again with `key`.
fn resigned(path: &Path, key: &SigningKey, change: impl FnOnce(&mut Value)) -> Vec<u8> {
    let file: Value = serde_json::from_slice(&std::fs::read(path).expect("read")).expect("JSON");
    let mut evidence = file["evidence"].clone();
    change(&mut evidence);
    let evidence: Evidence = serde_json::from_value(evidence).expect("still an evidence");
    pozo_verifier::make::seal(&evidence, key)
}

/// The jornada's evidence with its records edited by `edit`, what each entry did to the pools
/// recomputed by the pure core from the opening state as far as it accepts them, every hash
/// chained again, and the whole signed again with the casino's key.
fn forged(path: &Path, key: &SigningKey, edit: impl FnOnce(&mut Vec<Value>)) -> Vec<u8> {
    let mut evidence = evidence_of(path);
    let mut records: Vec<Value> =
        evidence.entries.iter().map(|entry| serde_json::from_str(&entry.record).expect("a record")).collect();
    edit(&mut records);
    let config = Arc::new(pozo_core::config::Config::from_texts(evidence.files.clone()).expect("its files"));
    let mut state = match &evidence.opening {
        Some(snapshot) => State::restore(config, snapshot.clone()).expect("the opening state"),
        None => State::new(config),
    };
    let mut previous: [u8; 32] = hex::decode(&evidence.previous_hash).expect("hex").try_into().expect("32 bytes");
    let mut accepted = true;
    let figures = |state: &State| -> BTreeMap<pozo_engine::PoolId, Balances> {
        pozo_core::state::books::figures(state.pools())
            .into_iter()
            .map(|(pool, figures)| (pool, Balances { balance: figures.balance, reserve: figures.reserve }))
            .collect()
    };
    evidence.entries = records
        .into_iter()
        .enumerate()
        .map(|(index, record)| {
            let sequence = evidence.first_entry + index as u64;
            let text = serde_json::to_string(&record).expect("a record");
            let parsed: pozo_verifier::format::Record = serde_json::from_str(&text).expect("a record");
            let mut pools = BTreeMap::new();
            if accepted {
                let before = figures(&state);
                match state.apply(&parsed.command, Context { sequence, time_ms: parsed.time_ms }) {
                    Ok(_) => pools = figures(&state).into_iter().filter(|(pool, now)| before.get(pool) != Some(now)).collect(),
                    Err(_) => accepted = false,
                }
            }
            previous = entry_hash(&previous, text.as_bytes());
            let levels = evidence.entries[index].levels.clone();
            Entry { record: text, hash: hex::encode(previous), pools, levels }
        })
        .collect();
    evidence.last_hash = hex::encode(previous);
    pozo_verifier::make::seal(&evidence, key)
}

fn op(record: &Value) -> &str {
    record["command"]["op"]["op"].as_str().unwrap_or_default()
}

fn is_tournament(record: &Value) -> bool {
    record["command"]["kind"] == "tournament"
}

/// A minimal browser signed in to the pages: its cookies kept.
async fn signed_in(base: &str, user: &str, password: &str) -> reqwest::Client {
    let http = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("an HTTP client");
    let html = http.get(format!("{base}/ingresar")).send().await.expect("GET").text().await.expect("a body");
    let marker = "name=\"csrf\" value=\"";
    let start = html.find(marker).expect("a csrf token") + marker.len();
    let token = &html[start..start + html[start..].find('"').expect("closed")];
    let form = [("usuario", user), ("contrasena", password), ("csrf", token), ("destino", "")];
    let response = http.post(format!("{base}/ingresar")).form(&form).send().await.expect("POST");
    assert_eq!(response.status(), reqwest::StatusCode::SEE_OTHER, "{user} signs in");
    http
}

async fn page(http: &reqwest::Client, base: &str, path: &str) -> String {
    let response = http.get(format!("{base}{path}")).send().await.expect("GET");
    assert_eq!(response.status(), reqwest::StatusCode::OK, "{path}");
    // Amounts are held to their `$` by a non-breaking space on a page: read as plain spaces here.
    response.text().await.expect("a body").replace('\u{a0}', " ")
}

/// The tournament's books on the wire tie: sold − refunds = prizes + house (art. 62, 63).
fn tied(books: &pb::TournamentBooks) {
    assert!(books.tied, "{}", books.untied);
    assert!(books.untied.is_empty());
    assert_eq!(value(&books.sold) - value(&books.refunds), value(&books.prizes) + value(&books.house));
    let items: Decimal = books.items.iter().map(|item| value(&item.sold)).sum();
    assert_eq!(items, value(&books.sold), "the items add up to what was sold");
}

// Proves the tournament's books show in the reconciliation and the liability (gRPC and pages),
// and that its jornadas' evidence conforms offline and each tampering is refused by name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournaments_books_and_seat_draws_are_proved_offline_and_every_tampering_is_named() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let data = directory.path().join("data");
    let clock = Arc::new(ManualClock::at(NIGHT_ONE));
    let options = pozo_server::ServeOptions {
        clock: clock.clone(),
        pages: Some("127.0.0.1:0".parse().expect("an address")),
        ..Default::default()
    };
    let server = TestServer::start_with(data.clone(), options).await;
    let mut client = server.client().await;

    // Jornada one: the structure approved (its first seat draw committed), twelve buy-ins, one refunded.
    let structure = multimesa().replace("venta_pagos_from = \"500000.00\"", "venta_pagos_from = \"100000.00\"");
    set_up(&client, &structure).await;
    for order in 1..=12 {
        ok(&client, CASHIER, purchase(T, "IN", order, &format!("Jugador {order}"), &document_of(order), "20000.00")).await;
    }
    ok(&client, CASHIER, refund(T, 12)).await;
    let committed_on_one = client.journal().await.entries;

    // Jornada two: rebuys and an add-on, registration closed, seats drawn, the pool fixed.
    clock.set(NIGHT_ONE + DAY);
    ok(&client, CASHIER, purchase(T, "RB", 13, "Jugador 1", &document_of(1), "10000.00")).await;
    ok(&client, CASHIER, purchase(T, "RB", 14, "Jugador 2", &document_of(2), "10000.00")).await;
    ok(&client, CASHIER, purchase(T, "AD", 15, "Jugador 3", &document_of(3), "10000.00")).await;
    ok(&client, DIRECTOR, close_registration(T)).await;
    ok(&client, DIRECTOR, draw_seats(T, "inicio", &[("T1", 9), ("T2", 9)])).await;
    ok(&client, DIRECTOR, close_rebuys(T)).await;
    for (hand, order) in (5..=11).rev().enumerate() {
        ok(&client, DIRECTOR, eliminate(T, &[order], if order % 2 == 0 { "T1" } else { "T2" }, hand as u64 + 1, false)).await;
    }
    ok(&client, DIRECTOR, draw_seats(T, "jornada 2", &[("T1", 9)])).await;
    // 3 and 4 out in the same hand (art. 72), 3 disqualified (Anexo II), 2 out: 1 wins.
    ok(&client, DIRECTOR, eliminate(T, &[3, 4], "T1", 90, true)).await;
    ok(&client, DIRECTOR, disqualify(T, 3, "Colusión comprobada por el director")).await;
    let view = ok(&client, DIRECTOR, eliminate(T, &[2], "T1", 120, false)).await;
    assert_eq!(view.phase, "FINALIZADO");
    let due = |order: u32| value(&view.players.iter().find(|p| p.order == order).expect("a player").due);
    assert_eq!((due(1), due(2), due(4)), (d("111925.00"), d("71225.00"), d("20350.00")));
    // 2 paid at the cashier; 1 asked for, over the threshold: PENDIENTE DE PAGO; 4 not yet.
    ok(&client, CASHIER, pay_prize(T, 2, &document_of(2))).await;
    ok(&client, CASHIER, pay_prize(T, 1, &document_of(1))).await;

    // The reconciliation lists the tournament's books, tied; they tie the report.
    let report = client.books().await;
    assert!(report.tied, "{report:?}");
    let [books] = report.tournaments.as_slice() else { panic!("one tournament's books: {report:?}") };
    tied(books);
    assert_eq!((books.tournament_id.as_str(), books.finished), (T, true));
    let items: Vec<(&str, Decimal, Decimal)> =
        books.items.iter().map(|item| (item.item.as_str(), value(&item.sold), value(&item.refunded))).collect();
    assert_eq!(items, [("IN", d("240000.00"), d("20000.00")), ("RB", d("20000.00"), d("0")), ("AD", d("10000.00"), d("0"))]);
    assert_eq!((value(&books.sold), value(&books.refunds)), (d("270000.00"), d("20000.00")));
    assert_eq!((value(&books.prizes), value(&books.house)), (d("203500.00"), d("46500.00")));
    assert_eq!(value(&books.assigned) + value(&books.redistributed), value(&books.prizes), "finished: every prize out");
    assert_eq!(value(&books.paid), due(2));
    assert_eq!(value(&books.owed), due(1) + due(4), "owed: what finished players have not collected");

    // The liability: the tournament's prizes owed on their own lines, apart from the pools' sums.
    let liability = client.reports.liability(pb::LiabilityRequest::default()).await.expect("the liability").into_inner();
    let [owed] = liability.tournaments.as_slice() else { panic!("one tournament owes: {liability:?}") };
    assert_eq!((owed.tournament_id.as_str(), value(&owed.owed)), (T, due(1) + due(4)));
    assert_eq!((value(&owed.assigned), value(&owed.paid)), (due(1) + due(2) + due(4), due(2)));
    assert_eq!(value(&liability.tournaments_owed), due(1) + due(4));
    let players: Vec<(u32, Decimal, bool)> = owed.players.iter().map(|p| (p.order, value(&p.amount), p.pending)).collect();
    assert_eq!(players, [(1, due(1), true), (4, due(4), false)], "PENDIENTE DE PAGO marked");
    assert_eq!(value(&liability.now.as_ref().expect("now").total), Decimal::ZERO, "not in the pools' sums");

    // The sala's pages show the same lines.
    let base = server.pages_url();
    let carla = signed_in(&base, DIRECTOR, "carla-ejemplo").await;
    let sala = page(&carla, &base, "/sala").await;
    let section = &sala[sala.find("id=\"pasivo-torneos\"").expect("the tournaments' prizes owed")..];
    let section = &section[..section.find("</table>").expect("the table closes")];
    assert!(sala.contains("id=\"pasivo-torneos-total\">$ 132.275,00<"), "{sala}");
    assert!(section.contains("data-orden=\"1\"") && section.contains("$ 111.925,00") && section.contains("PENDIENTE DE PAGO"));
    assert!(section.contains("data-orden=\"4\"") && section.contains("$ 20.350,00") && section.contains("a cobrar en caja"));
    assert!(!section.contains("data-orden=\"2\""), "paid: not owed");
    let informe = page(&carla, &base, "/sala/informe?jornada=2026-11-23").await;
    let row = &informe[informe.find(&format!("<tr data-torneo=\"{T}\"")).expect("the tournament's books")..];
    let row = &row[..row.find("</tr>").expect("the row closes")];
    for shown in ["IN $ 240.000,00 (devuelto $ 20.000,00)", "RB $ 20.000,00", "AD $ 10.000,00", "$ 270.000,00", "$ 203.500,00"] {
        assert!(row.contains(shown), "{shown} in {row}");
    }
    assert!(row.contains("$ 46.500,00") && row.contains("$ 132.275,00") && row.contains(">cuadra<"), "{row}");

    // The office confirms 1, the cashier pays 4: nothing owed.
    ok(&client, OFFICE, confirm_prize(T, 1, &document_of(1))).await;
    ok(&client, CASHIER, pay_prize(T, 4, &document_of(4))).await;
    let report = client.books().await;
    assert_eq!(value(&report.tournaments[0].owed), Decimal::ZERO);
    assert_eq!(value(&report.tournaments[0].paid), value(&report.tournaments[0].prizes));
    let liability = client.reports.liability(pb::LiabilityRequest::default()).await.expect("the liability").into_inner();
    assert_eq!(value(&liability.tournaments_owed), Decimal::ZERO);

    // Jornada three begins: jornada two is over.
    clock.set(NIGHT_ONE + 2 * DAY);
    client.ok("B2", open()).await;
    server.stop().await;

    // The evidence of both jornadas, signed with the casino's key.
    let key = directory.path().join("evidencia.pem");
    let made = run(vec!["evidence-key".into(), "--out".into(), arg(&key)]).await;
    assert!(made.status.success(), "{}", text(&made));
    let registered =
        PublicKey::parse(&std::fs::read_to_string(directory.path().join("evidencia.pem.pub")).expect("public")).expect("a key");
    let casino = SigningKey::from_pem(&std::fs::read_to_string(&key).expect("the key")).expect("the casino's key");
    let one = directory.path().join("2026-11-22.json");
    let two = directory.path().join("2026-11-23.json");
    let written_one = evidence(&data, &key, "2026-11-22", &one).await;
    let written_two = evidence(&data, &key, "2026-11-23", &two).await;
    assert!(written_one.get("seat_draws").is_none(), "no seat drawn on jornada one: {written_one}");
    assert_eq!(written_two["seat_draws"], "ubicaciones: 2 sorteos de ubicaciones revelados, todos conformes", "{written_two}");
    let said_books = written_two["tournaments"][0].as_str().expect("the tournament's books");
    assert!(
        said_books.starts_with(&format!("{T}: vendido $ 270.000,00 (IN $ 240.000,00, devuelto $ 20.000,00; ")),
        "{said_books}"
    );
    assert!(said_books.ends_with(": cuadra"), "{said_books}");

    // No document in clear anywhere: only masked, fingerprinted and sealed.
    for path in [&one, &two] {
        let bytes = String::from_utf8(std::fs::read(path).expect("read")).expect("UTF-8");
        for order in 1..=12 {
            assert!(!bytes.contains(&document_of(order)), "{}: document {order} in clear", path.display());
        }
        assert!(bytes.contains("DNI ***0001"), "the documents masked");
    }

    // The verifier: both jornadas CONFORME and linked; the first seat draw, revealed on jornada
    // two, opens the commitment journaled on jornada one.
    let verdict = pozo_verifier::verify_paths(&[PathBuf::from(&one), PathBuf::from(&two)], &registered).expect("read");
    let said = pozo_verifier::castellano(&verdict);
    // What an inspector reads (shown with `--nocapture`).
    println!("{said}");
    assert!(verdict.conforme && said.ends_with("VEREDICTO: CONFORME\n"), "{said}");
    assert!(said.contains("  ubicaciones: 2 sorteos de ubicaciones revelados, todos conformes\n"), "{said}");
    let checked = &verdict.files[1];
    let first = &checked.seat_draws[0];
    assert_eq!((first.tournament.as_str(), first.draw, first.players.len()), (T, 1, 11));
    assert!(first.committed_at <= committed_on_one && first.entry > checked.first_entry, "{first:?}");
    assert!(
        said.contains(&format!(
            "    sorteo de ubicaciones 1 (inicio) del torneo {T} (asiento {}): abre el compromiso del asiento {}; 11 \
             jugadores en 2 mesas\n",
            first.entry, first.committed_at
        )),
        "{said}"
    );
    assert_eq!(checked.seat_draws[1].players, [1, 2, 3, 4]);
    assert_eq!(checked.tournaments.len(), 1);
    assert!(said.contains(&format!("  torneo {T}: vendido $ 270.000,00")), "{said}");
    assert!(said.contains("pagado $ 203.500,00, adeudado $ 0,00; finalizado: cuadra\n"), "{said}");
    // Alone, the second jornada's file opens with the commitment in its opening state.
    let alone = pozo_verifier::verify_paths(&[PathBuf::from(&two)], &registered).expect("read");
    assert!(alone.conforme, "{}", pozo_verifier::castellano(&alone));

    let draw_entry = first.entry;
    let draw_at =
        |records: &[Value]| records.iter().position(|r| is_tournament(r) && op(r) == "draw_seats").expect("a seat draw");

    // A seat draw's nonce changed: it no longer opens the commitment of jornada one.
    let bytes = forged(&two, &casino, |records| {
        let at = draw_at(records);
        let nonce = records[at]["command"]["op"]["nonce"].as_str().expect("a nonce").to_owned();
        let first = if nonce.starts_with('0') { '1' } else { '0' };
        let flipped = format!("{first}{}", &nonce[1..]);
        records[at]["command"]["op"]["nonce"] = flipped.into();
    });
    let (check, entry, message) = refused("nonce", bytes, &registered);
    assert_eq!((check, entry), (Check::Draw, Some(draw_entry)), "{message}");
    assert!(
        message.contains(&format!(
            "sorteo de ubicaciones 1 (inicio) del torneo {T}: el nonce revelado no abre el compromiso del asiento {}",
            first.committed_at
        )),
        "{message}"
    );

    // A seating swapped: two players' seats exchanged in the close.
    let bytes = resigned(&two, &casino, |evidence| {
        let seating = &mut evidence["closing"]["seat_draws"][0]["seating"];
        let (a, b) = (seating[0].clone(), seating[1].clone());
        for field in ["table", "seat"] {
            seating[0][field] = b[field].clone();
            seating[1][field] = a[field].clone();
        }
    });
    let (check, entry, message) = refused("ubicación", bytes, &registered);
    assert_eq!((check, entry), (Check::Draw, Some(draw_entry)), "{message}");
    assert!(
        message.starts_with(&format!("sorteo de ubicaciones 1 (inicio) del torneo {T}: el archivo ubica al jugador de orden "))
    );
    assert!(message.contains(", y el sorteo lo pone en mesa "), "{message}");

    // A purchase amount changed: the entry is refused as not the item's price.
    let bytes = forged(&two, &casino, |records| {
        let at = records.iter().position(|r| is_tournament(r) && op(r) == "purchase").expect("a purchase");
        records[at]["command"]["op"]["amount"] = "9000.00".into();
    });
    let (check, entry, message) = refused("monto", bytes, &registered);
    assert_eq!((check, entry), (Check::Recomputation, Some(checked.first_entry)), "{message}");
    assert!(message.contains("El monto $ 9.000,00 no es el precio de recompra (RB)"), "{message}");
    // And in the close's books: not the recomputed ones.
    let bytes = resigned(&two, &casino, |evidence| {
        evidence["closing"]["tournaments"][T]["sold"] = "280000.00".into();
    });
    let (check, _, message) = refused("libros", bytes, &registered);
    assert_eq!(check, Check::Books, "{message}");
    assert_eq!(
        message,
        format!(
            "closing.tournaments: los libros del torneo {T} no son los recalculados: sold: el archivo dice $ 280.000,00, \
             recalculado da $ 270.000,00"
        )
    );

    // A document unmasked in an entry: the verifier's own check, which the core would let pass.
    let bytes = forged(&two, &casino, |records| {
        let at = records.iter().position(|r| is_tournament(r) && op(r) == "purchase").expect("a purchase");
        records[at]["command"]["op"]["document_masked"] = "DNI *0000001".into();
    });
    let (check, entry, message) = refused("documento", bytes, &registered);
    assert_eq!((check, entry), (Check::Document, Some(checked.first_entry)), "{message}");
    assert!(message.starts_with(&format!("compra de orden 13 (RB) del torneo {T}: el documento enmascarado muestra 7 dígitos")));
    assert!(!message.contains("0000001"), "the verdict never quotes the document: {message}");
    // And in the opening state.
    let bytes = resigned(&two, &casino, |evidence| {
        let purchases = &mut evidence["opening"]["data"]["tournaments"][T]["purchases"];
        purchases[0]["document_masked"] = format!("DNI {}", document_of(1)).into();
    });
    let (check, _, message) = refused("apertura", bytes, &registered);
    assert_eq!(check, Check::Document, "{message}");
    assert!(message.starts_with(&format!("opening: compra de orden 1 (IN) del torneo {T}: el documento enmascarado")));
}
