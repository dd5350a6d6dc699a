//! Carrying the books to a new journal (issue "A casino's year", point 4), through the real
//! `pozo-server` binary: a night's journal with balances, a payout order pending at Venta-Pagos
//! and credits held at a seat is closed (`close`), a new journal is opened from its statement
//! (`serve --open-from`) with every pool at the same balance to the centavo, the order is
//! confirmed and the credits paid back there, and `verify --predecessor` links the two. A
//! statement with one amount changed is refused, and so are `close` on a running controller,
//! `serve` on the closed journal and `serve --open-from` on a directory that is not empty.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::changes::*;
use common::*;
use pozo_proto::v1 as pb;
use pozo_testkit::process::{Refused, ServerProcess};

fn strings(items: &[&dyn AsRef<std::ffi::OsStr>]) -> Vec<String> {
    items.iter().map(|item| item.as_ref().to_string_lossy().into_owned()).collect()
}

/// `serve --data DATA EXTRA…` as a child process: serving, or how it was refused.
async fn try_serve(data: &Path, log: &Path, extra: Vec<String>) -> Result<ServerProcess, Refused> {
    let (data, log) = (data.to_path_buf(), log.to_path_buf());
    tokio::task::spawn_blocking(move || {
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        ServerProcess::try_spawn(Path::new(BIN), &data, "127.0.0.1:0", &extra, &log)
    })
    .await
    .expect("joined")
}

async fn serve(data: &Path, log: &Path, extra: Vec<String>) -> ServerProcess {
    try_serve(data, log, extra).await.unwrap_or_else(|refused| panic!("refused (exit {:?}):\n{}", refused.code, refused.log))
}

/// Every pool's figures as the reports give them: balance, reserve, displayed and meters.
async fn books(client: &mut Client) -> BTreeMap<String, [String; 8]> {
    let status = client.pools.status(pb::PoolStatusRequest { pool_ids: vec![] }).await.expect("Pools/Status").into_inner();
    let mut books = BTreeMap::new();
    for pool in status.pools {
        let report = client.pool(&pool.pool_id).await;
        let figures = [
            amount(&report.balance),
            amount(&report.reserve),
            amount(&report.displayed),
            amount(&report.contributions),
            amount(&report.replenishments),
            amount(&report.awards),
            report.hits.to_string(),
            report.bets.to_string(),
        ];
        assert_eq!(amount(&pool.balance), figures[0], "{}: the status and the report agree", pool.pool_id);
        books.insert(pool.pool_id, figures);
    }
    books
}

/// The statement with Black Jack's balance raised by one centavo, written to `to`.
fn tampered(statement: &Path, to: &Path) {
    let mut sealed: serde_json::Value = serde_json::from_slice(&std::fs::read(statement).expect("the statement")).expect("JSON");
    let balance = &mut sealed["statement"]["books"]["pools"]["iplyc-blackjack"]["balance"];
    let raised = balance.as_str().expect("a balance").parse::<rust_decimal::Decimal>().expect("an amount")
        + rust_decimal::Decimal::new(1, 2);
    *balance = raised.to_string().into();
    std::fs::write(to, serde_json::to_vec_pretty(&sealed).expect("JSON")).expect("written");
}

/// A night on the old journal: B1 plays a round, B3 leaves a 20% prize pending at Venta-Pagos
/// (seat 2) and sells 10 credits to seat 4. Returns the order, the journal id and the books.
async fn a_night(client: &mut Client) -> (String, String, BTreeMap<String, [String; 8]>) {
    client.open_with_bets("B1", &[(1, 5), (2, 5)], &[1, 2]).await;
    client.ok("B1", start()).await;
    client.ok("B1", finish()).await;
    client.ok("B3", open()).await;
    let order = a_pending_order(client, 2).await;
    client.ok("B3", sell(4, 10)).await;
    assert_eq!(client.order(&order).await.status, "pendiente");
    (order, client.journal_id.clone(), books(client).await)
}

/// `close` of the stopped `old` into `statement`: the report it prints.
async fn close(old: &Path, statement: &Path) -> serde_json::Value {
    let closed = run(strings(&[&"close", &"--data", &old, &"--out", &statement])).await;
    assert_eq!(closed.status.code(), Some(0), "close: {}", text(&closed));
    serde_json::from_slice(&closed.stdout).unwrap_or_else(|error| panic!("close prints JSON ({error}): {}", text(&closed)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_journal_s_books_open_a_new_journal_that_pays_them_and_verifies() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let at = |name: &str| directory.path().join(name);
    let (old, statement) = (at("old"), at("statement.json"));
    let mut server = serve(&old, &at("old.log"), vec![]).await;
    let mut client = connect(&server.address).await;
    let (order, old_id, before) = a_night(&mut client).await;

    // A running controller's journal is not closed.
    let refused = run(strings(&[&"close", &"--data", &old, &"--out", &statement])).await;
    assert_eq!(refused.status.code(), Some(4), "{}", text(&refused));
    assert!(text(&refused).contains("a running controller holds it"), "{}", text(&refused));
    assert!(!statement.exists(), "nothing written");
    drop(client);
    assert!(server.terminate().success(), "a clean stop:\n{}", server.log_text());

    let closed = close(&old, &statement).await;
    assert_eq!(closed["journal_id"], old_id.as_str(), "{closed:#}");
    let serve_flags: Vec<String> =
        closed["serve_flags"].as_array().expect("flags").iter().map(|flag| flag.as_str().expect("a flag").to_owned()).collect();
    assert!(at("statement.files").join("casino.toml").is_file() && at("statement.files").join("iplyc.toml").is_file());
    let sealed: serde_json::Value = serde_json::from_slice(&std::fs::read(&statement).expect("written")).expect("JSON");
    let written = &sealed["statement"]["books"];
    let decimal = |text: &str| text.parse::<rust_decimal::Decimal>().unwrap_or_else(|error| panic!("`{text}`: {error}"));
    for (pool, figures) in &before {
        let balance = written["pools"][pool]["balance"].as_str().unwrap_or_else(|| panic!("{pool}: {written:#}"));
        assert_eq!(decimal(balance), decimal(&figures[0]), "{pool}: the statement's balance is the served one");
    }
    assert_eq!(written["pending_orders"][0]["order_id"], order.as_str(), "{written:#}");
    let credits = written["credits"].as_array().expect("credits");
    assert!(credits.iter().any(|held| held["table_id"] == "B3" && held["seat"] == 4 && held["credits"] == 10), "{written:#}");

    // The closed journal is never served again.
    let again = try_serve(&old, &at("old-again.log"), vec![]).await.err().expect("refused");
    assert_eq!(again.code, Some(5), "{}", again.log);
    assert!(again.log.contains("this journal was closed by `pozo-server close`"), "{}", again.log);
    // Nor migrated where its closed mark would not follow.
    let migrated =
        run(vec!["migrate".into(), "--from".into(), old.display().to_string(), "--to".into(), "postgres://127.0.0.1:1/x".into()])
            .await;
    assert_ne!(migrated.status.code(), Some(0));
    let said = String::from_utf8_lossy(&migrated.stderr);
    assert!(said.contains("this journal was closed by `pozo-server close`") && said.contains("never migrated"), "{said}");

    refusals(directory.path(), &statement).await;

    // The new journal, with the files `close` wrote: the books exactly as they were.
    let new = at("new");
    let mut opening = strings(&[&"--open-from", &statement]);
    opening.extend(serve_flags);
    let mut server = serve(&new, &at("new.log"), opening.clone()).await;
    let mut client = connect(&server.address).await;
    assert_ne!(client.journal_id, old_id, "a new journal");
    // Its genesis (opened from the statement), then this start's record of its build.
    assert_eq!(client.journal().await.entries, 2, "its genesis entry and this start");
    assert_eq!(books(&mut client).await, before, "every pool to the centavo, meters and all");
    pay_what_was_carried(&mut client, &order).await;
    let entries = client.journal().await.entries;
    drop(client);
    assert!(server.terminate().success(), "a clean stop:\n{}", server.log_text());

    // Its directory is not empty any more: `--open-from` there is refused.
    let twice = try_serve(&new, &at("new-twice.log"), opening).await.err().expect("refused");
    assert_eq!(twice.code, Some(2), "{}", twice.log);
    assert!(twice.log.contains("not empty") && twice.log.contains("without --open-from"), "{}", twice.log);

    let verified = run(strings(&[&"verify", &"--data", &new, &"--predecessor", &old])).await;
    let report: serde_json::Value = serde_json::from_slice(&verified.stdout).expect("verify prints JSON");
    assert_eq!(verified.status.code(), Some(0), "{report:#}\n{}", text(&verified));
    assert_eq!(report["entries"], entries);
    let opened = &report["opened_from"];
    assert_eq!((opened["statement"].as_str(), opened["predecessor"].as_str()), (Some("ok"), Some("ok")), "{report:#}");
    assert_eq!(opened["journal_id"], old_id.as_str());
    assert_eq!(opened["statement_sha256"], closed["statement_sha256"]);

    // Started again as any journal, without --open-from: recovered from its genesis entry on.
    let mut server = serve(&new, &at("new-again.log"), strings(&[&"--config", &at("statement.files/casino.toml")])).await;
    let mut client = connect(&server.address).await;
    assert_eq!(client.journal().await.entries, entries + 1, "every entry, then this start's record of its build");
    assert_eq!(client.order(&order).await.status, "confirmada");
    assert_eq!(books(&mut client).await, before, "a confirmation and refunds move no pool's money");
    drop(client);
    assert!(server.terminate().success(), "a clean stop:\n{}", server.log_text());

    let verified = run(strings(&[&"verify", &"--data", &old])).await;
    let report: serde_json::Value = serde_json::from_slice(&verified.stdout).expect("verify prints JSON");
    assert_eq!(verified.status.code(), Some(0), "{report:#}");
    assert_eq!((report["closed"]["check"].as_str(), &report["closed"]["entries"]), (Some("ok"), &closed["entries"]));
}

/// In the new journal the order carried is confirmed with its facts, and the credits carried
/// are paid back at their seat.
async fn pay_what_was_carried(client: &mut Client, order: &str) {
    assert_eq!(client.order(order).await.status, "pendiente", "the order is carried pending");
    let confirmed = client.confirm(order, "F-4104-0007").await.expect("the carried order is confirmed");
    assert_eq!(confirmed.status, "confirmada", "{confirmed:?}");
    let b3 = client.view("B3").await;
    assert_eq!((b3.seats[3].credits, b3.seats[1].credits), (10, 4), "the credits are carried: {b3:?}");
    client.sequences.insert("B3".to_owned(), b3.last_sequence + 1);
    client.ok("B3", refund_credits(4)).await;
    client.ok("B3", refund_credits(2)).await;
    let b3 = client.view("B3").await;
    assert_eq!((b3.seats[3].credits, b3.seats[1].credits), (0, 0), "paid back: {b3:?}");
}

/// A statement with one amount changed is refused by `serve --open-from` (nothing written) and
/// by `verify --statement`, which passes the statement as written; a directory that is not
/// empty is refused too.
async fn refusals(directory: &Path, statement: &Path) {
    let forged: PathBuf = directory.join("forged.json");
    tampered(statement, &forged);
    let target = directory.join("forged-data");
    let refused = try_serve(&target, &directory.join("forged.log"), strings(&[&"--open-from", &forged])).await.err();
    let refused = refused.expect("a changed statement is refused");
    assert_eq!(refused.code, Some(2), "{}", refused.log);
    assert!(refused.log.contains("seal: not the journal key's seal of this statement"), "{}", refused.log);
    assert!(std::fs::read_dir(&target).map_or(true, |mut entries| entries.next().is_none()), "nothing written");

    let checked = run(strings(&[&"verify", &"--statement", &forged])).await;
    assert_eq!(checked.status.code(), Some(1), "{}", text(&checked));
    let report: serde_json::Value = serde_json::from_slice(&checked.stdout).expect("JSON");
    assert!(report["statement"].as_str().is_some_and(|check| check.starts_with("seal:")), "{report:#}");
    let old = directory.join("old");
    let checked = run(strings(&[&"verify", &"--statement", &statement, &"--predecessor", &old])).await;
    assert_eq!(checked.status.code(), Some(0), "{}", text(&checked));

    let busy = directory.join("busy");
    std::fs::create_dir_all(&busy).expect("a directory");
    std::fs::write(busy.join("notes.txt"), "not a journal").expect("written");
    let refused = try_serve(&busy, &directory.join("busy.log"), strings(&[&"--open-from", &statement])).await.err();
    let refused = refused.expect("a directory that is not empty is refused");
    assert_eq!(refused.code, Some(2), "{}", refused.log);
    assert!(refused.log.contains("not empty (it holds `notes.txt`)"), "{}", refused.log);
}

/// `pozo-server change ARGS…` against the controller at `address`, signed with the embedded keys.
async fn change_cli(address: &str, args: &[&str]) -> std::process::Output {
    let mut all = vec!["change".to_owned(), args[0].to_owned(), "--server".to_owned(), format!("http://{address}")];
    all.extend(args[1..].iter().map(|arg| (*arg).to_owned()));
    run(all).await
}

// Proves issue 42, point 4: a money change scheduled on the old journal and carried by `close`
// comes into force in the new journal after the pool's next top prize, as docs/operations.md §8
// says ("the change takes effect after that pool's next top prize"), though the new journal
// reads its files from `STATEMENT.files/` and not from the paths the old one was started with:
// the files in force are named by their stable names, which `status` shows, and `change propose
// --file iplyc.toml=PATH` names a whole file of the new journal (refused, in Spanish, while the
// carried change waits on it; in force once it took effect).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scheduled_change_carried_to_a_new_journal_comes_into_force_there_and_files_keep_their_names() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let at = |name: &str| directory.path().join(name);
    let (old, statement) = (at("old"), at("statement.json"));
    let mut server = serve(&old, &at("old.log"), vec![]).await;
    let mut client = connect(&server.address).await;
    client.round_started("B1", &[(1, 5), (2, 5)], &[1, 2]).await;
    client.ok("B1", finish()).await;
    let raise = change(&client, CARLA, propose(pool_setting("iplyc-blackjack", "minimum", "6000.00"))).await.expect("proposed");
    assert_eq!(change(&client, ELENA, approve(&raise)).await.expect("approved").status, "PROGRAMADO");
    drop(client);
    assert!(server.terminate().success(), "a clean stop:\n{}", server.log_text());

    let closed = close(&old, &statement).await;
    let mut opening = strings(&[&"--open-from", &statement]);
    opening.extend(closed["serve_flags"].as_array().expect("flags").iter().map(|flag| flag.as_str().expect("a flag").to_owned()));
    let mut server = serve(&at("new"), &at("new.log"), opening).await;
    let mut client = connect(&server.address).await;
    let carried = proposals(&client, DIEGO).await;
    assert_eq!(carried.iter().find(|p| p.proposal_id == raise.proposal_id).map(|p| p.status.as_str()), Some("PROGRAMADO"));

    // `status` names the files in force as a change names them.
    let pages = server.pages.clone().expect("the pages");
    let status = run(strings(&[&"status", &"--pages", &pages])).await;
    assert!(text(&status).contains("Archivos en vigor: casino.toml, iplyc.toml"), "{}", text(&status));

    // A whole iplyc.toml: its threshold lowered to 400,00, the new minimum written in.
    let in_force = std::fs::read_to_string(at("statement.files").join("iplyc.toml")).expect("written by close");
    let lowered = in_force.replacen("minimum = \"5000.00\"", "minimum = \"6000.00\"", 1).replacen(
        "venta_pagos_over = \"1000.00\"",
        "venta_pagos_over = \"400.00\"",
        1,
    );
    let file = at("iplyc-400.toml");
    std::fs::write(&file, lowered).expect("written");
    let file_flag = format!("iplyc.toml={}", file.display());
    let propose_file = [
        "propose",
        "--key",
        CARLA,
        "--reason",
        "Umbral de Venta-Pagos de la temporada",
        "--authorisation",
        "IPLyC Nota 77/27",
        "--file",
        &file_flag,
        "--json",
    ];
    // While the carried change waits on iplyc.toml: refused, in the words the pages show.
    let waiting = change_cli(&server.address, &propose_file).await;
    assert_ne!(waiting.status.code(), Some(0));
    assert!(
        text(&waiting).contains(&format!("FailedPrecondition: El cambio {} está programado sobre iplyc.toml", raise.proposal_id)),
        "{}",
        text(&waiting)
    );

    // The first top prize in the new journal, then FINALIZAR JUEGO: the carried minimum is in force.
    let b1 = client.view("B1").await;
    client.sequences.insert("B1".to_owned(), b1.last_sequence + 1);
    client.ok("B1", press(1)).await;
    client.ok("B1", start()).await;
    client.ok("B1", prize(1, "TRES_SIETES_CORAZONES")).await;
    client.ok("B1", accept()).await;
    client.ok("B1", finish()).await;
    let history = proposals(&client, DIEGO).await;
    let raised = history.iter().find(|p| p.proposal_id == raise.proposal_id).expect("carried");
    assert_eq!(raised.status, "EN VIGOR", "{raised:?}");
    assert!(raised.withdrawn_by.is_none() && raised.withdrawn_reason.is_empty(), "{raised:?}");
    let pools = client.pools.status(pb::PoolStatusRequest { pool_ids: vec![] }).await.expect("pools").into_inner().pools;
    let blackjack = pools.iter().find(|pool| pool.pool_id == "iplyc-blackjack").expect("the pool");
    assert_eq!(amount(&blackjack.displayed), "6000.00", "the sign shows the new minimum");

    // Now the whole file, named by its stable name, is proposed and approved on the new journal.
    let proposed = change_cli(&server.address, &propose_file).await;
    assert_eq!(proposed.status.code(), Some(0), "{}", text(&proposed));
    let proposal: serde_json::Value = serde_json::from_slice(&proposed.stdout).expect("JSON");
    let differences = proposal["differences"].as_array().expect("differences");
    assert!(
        differences
            .iter()
            .all(|line| line.as_str().is_some_and(|line| line.contains("umbral de Venta-Pagos: $ 1.000,00 → $ 400,00"))),
        "only the threshold: {proposal:#}"
    );
    let id = proposal["proposal_id"].as_str().expect("an id");
    let approved = change_cli(&server.address, &["approve", "--key", ELENA, id]).await;
    assert!(text(&approved).starts_with(&format!("{id} EN VIGOR")), "{}", text(&approved));
    drop(client);
    assert!(server.terminate().success(), "a clean stop:\n{}", server.log_text());
}

// Proves issue 42, point 6: the path docs/operations.md §8 names for a new hour of the jornada
// ("close the books into a new journal") works. `serve --open-from` takes the statement's files
// with the layout's `jornada_starts_hour` changed (6 → 4) and opens the new journal under them
// (its genesis records them: the statement's own files are refused on it afterwards), `verify
// --predecessor` links the two. Any other difference in the files is still refused, naming the
// settings that may differ, and so are settings under which this moment's jornada would be
// before one the statement booked (UTC-12 from 23:00: always more than a day behind).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_journal_opens_from_the_statement_with_another_hour_for_the_jornada() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let at = |name: &str| directory.path().join(name);
    let (old, statement) = (at("old"), at("statement.json"));
    let mut server = serve(&old, &at("old.log"), vec![]).await;
    let mut client = connect(&server.address).await;
    let (_, _, before) = a_night(&mut client).await;
    drop(client);
    assert!(server.terminate().success(), "a clean stop:\n{}", server.log_text());
    let closed = close(&old, &statement).await;
    let flags: Vec<String> =
        closed["serve_flags"].as_array().expect("flags").iter().map(|flag| flag.as_str().expect("a flag").to_owned()).collect();

    // The layout `close` wrote, its jornada starting at 04:00 instead of 06:00 (never an earlier
    // jornada than the statement's last); one with a table resized too; one going back a day.
    let layout = std::fs::read_to_string(at("statement.files").join("casino.toml")).expect("written by close");
    assert!(layout.contains("jornada_starts_hour = 6"), "{layout}");
    let (four, resized, behind) = (at("casino-4.toml"), at("casino-4-resized.toml"), at("casino-behind.toml"));
    let earlier = layout.replacen("jornada_starts_hour = 6", "jornada_starts_hour = 4", 1);
    std::fs::write(&four, &earlier).expect("written");
    std::fs::write(&resized, earlier.replacen("seats = 8", "seats = 6", 1)).expect("written");
    let back = layout.replacen("jornada_starts_hour = 6", "jornada_starts_hour = 23", 1).replacen(
        "America/Argentina/Buenos_Aires",
        "Etc/GMT+12",
        1,
    );
    std::fs::write(&behind, back).expect("written");
    let with_layout = |layout: &Path| {
        let mut opening = strings(&[&"--open-from", &statement]);
        opening.extend(flags.iter().cloned());
        let index = opening.iter().position(|flag| flag == "--config").expect("--config") + 1;
        opening[index] = layout.display().to_string();
        opening
    };

    let refused = try_serve(&at("resized"), &at("resized.log"), with_layout(&resized)).await.err().expect("a table resized");
    assert_eq!(refused.code, Some(2), "{}", refused.log);
    assert!(refused.log.contains("but for the layout's time_zone and jornada_starts_hour"), "{}", refused.log);
    let refused = try_serve(&at("behind"), &at("behind.log"), with_layout(&behind)).await.err().expect("a day back");
    assert_ne!(refused.code, Some(0), "{}", refused.log);
    assert!(
        refused.log.contains("the last jornada the statement booked, is over or still to come: jornadas never go back"),
        "{}",
        refused.log
    );
    assert!(std::fs::read_dir(at("behind")).map_or(true, |mut entries| entries.next().is_none()), "nothing written");

    let new = at("new");
    let mut server = serve(&new, &at("new.log"), with_layout(&four)).await;
    let mut client = connect(&server.address).await;
    assert_eq!(books(&mut client).await, before, "every pool to the centavo");
    drop(client);
    assert!(server.terminate().success(), "a clean stop:\n{}", server.log_text());

    // The new journal's files are those it opened with: the statement's layout is not its own.
    let rulebooks: Vec<String> = flags.iter().skip(2).cloned().collect();
    let mut original = strings(&[&"--config", &at("statement.files").join("casino.toml")]);
    original.extend(rulebooks.iter().cloned());
    let refused = try_serve(&new, &at("new-old-files.log"), original).await.err().expect("not the journal's files");
    assert_eq!(refused.code, Some(2), "{}", refused.log);
    assert!(refused.log.contains("the configuration differs from the one this journal was started with"), "{}", refused.log);
    let mut own = strings(&[&"--config", &four]);
    own.extend(rulebooks);
    let mut server = serve(&new, &at("new-again.log"), own).await;
    assert!(server.terminate().success(), "a clean stop:\n{}", server.log_text());

    let verified = run(strings(&[&"verify", &"--data", &new, &"--predecessor", &old])).await;
    let report: serde_json::Value = serde_json::from_slice(&verified.stdout).expect("verify prints JSON");
    assert_eq!(verified.status.code(), Some(0), "{report:#}\n{}", text(&verified));
    assert_eq!(report["opened_from"]["predecessor"], "ok", "{report:#}");
}
