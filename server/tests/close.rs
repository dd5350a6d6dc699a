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
