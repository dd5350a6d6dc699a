//! Crashes and restarts: the real `pozo-server` binary killed with SIGKILL in
//! the middle of a stream of acknowledged presses; a restart from a snapshot
//! plus replay; `verify` catching an edited or removed journal entry; and a
//! restart under other settings refused.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use common::*;
use pozo_proto::v1 as pb;
use pozo_proto::v1::table_command::Command as C;
use pozo_server::config::Config;
use pozo_server::journal::Journal;
use pozo_server::state::{Command as Entry, TableOp};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_pozo-server");

// ----------------------------------------------------------------------------- the real binary

use pozo_testkit::process;
use process::{PROCESS_WAIT, ServerProcess, wait_bounded};

/// `pozo-server serve --data DIR --listen 127.0.0.1:0 EXTRA…`, its log in `log`.
fn spawn(data: &Path, extra: &[&str], log: &Path) -> ServerProcess {
    ServerProcess::spawn(Path::new(BIN), data, "127.0.0.1:0", extra, log)
}

/// `pozo-server verify --data DIR`: its exit status and JSON summary.
///
/// sled releases its directory lock from background threads a moment after the
/// last handle in this process is dropped (the in-process server, or a direct
/// edit); a run refused for the lock is retried, within a bound.
fn verify_binary(data: &Path) -> (Output, Value) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let output = loop {
        let output = Command::new(BIN).arg("verify").arg("--data").arg(data).output().expect("pozo-server verify runs");
        if output.status.success()
            || !String::from_utf8_lossy(&output.stderr).contains("could not acquire lock")
            || Instant::now() >= deadline
        {
            break output;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let report = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "verify prints JSON ({error}); stdout: {}; stderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output, report)
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).expect("after 1970").as_millis() as u64
}

/// A table's presses as the Reports service counts them, over the given jornadas.
async fn presses_reported(client: &mut Client, table: &str, jornadas: &BTreeSet<String>) -> u64 {
    let mut presses = 0;
    for jornada in jornadas {
        let request = pb::TableReportRequest { table_id: table.to_owned(), jornada: jornada.clone() };
        presses += client.reports.table(request).await.expect("table report").into_inner().presses;
    }
    presses
}

// ----------------------------------------------------------------------------- 1. SIGKILL mid-stream

const CRASH_TABLES: [&str; 4] = ["B1", "B2", "B3", "B4"];
const BLACKJACK_SEATS: u32 = 7;
/// The process is killed once this many presses were acknowledged, all tables together.
const KILL_AFTER_PRESSES: usize = 300;
/// A bound in case the kill never comes: no table presses more than this.
const PRESSES_PER_TABLE_MAX: usize = 400;

/// One press the server acknowledged: durable, by the contract.
#[derive(Clone, Debug)]
struct Ack {
    seat: u32,
    round: u64,
    sequence: u64,
    journal_sequence: u64,
}

/// What one table's agent saw until its connection died.
#[derive(Debug)]
struct TableRun {
    table: &'static str,
    presses: Vec<Ack>,
    commands: u64,
    /// The agent sequence of the last acknowledged command.
    last_acknowledged: u64,
    /// The command that got no answer, with its sequence.
    in_flight: Option<(u64, C)>,
    /// Why it got none, and whether the process had been killed by then.
    error: Option<(tonic::Code, String, bool)>,
}

/// Plays rounds at `table` (press seats 1–7, INICIAR, FINALIZAR) until a command
/// fails, which it does once the server is killed. `stream`: on one `Table/Commands` stream,
/// as the table agent sends; otherwise a `Table/Submit` call per command.
async fn drive(
    address: String,
    table: &'static str,
    acknowledged: Arc<AtomicUsize>,
    killed: Arc<AtomicBool>,
    stream: bool,
) -> TableRun {
    let mut client = connect(&address).await;
    let mut link = None;
    let mut run = TableRun { table, presses: Vec::new(), commands: 0, last_acknowledged: 0, in_flight: None, error: None };
    let mut credits = [0u32; BLACKJACK_SEATS as usize];
    macro_rules! step {
        ($command:expr) => {{
            let command: C = $command;
            let sent = if stream {
                client.send_on(&mut link, table, command.clone()).await
            } else {
                client.send(table, command.clone()).await
            };
            match sent {
                Ok(reply) => {
                    run.commands += 1;
                    run.last_acknowledged = reply.sequence;
                    reply
                }
                Err(status) => {
                    let sequence = client.sequences.get(table).copied().unwrap_or(1);
                    run.in_flight = Some((sequence, command));
                    run.error = Some((status.code(), status.message().to_owned(), killed.load(Ordering::SeqCst)));
                    return run;
                }
            }
        }};
    }
    step!(open());
    loop {
        for seat in 1..=BLACKJACK_SEATS {
            let index = seat as usize - 1;
            if credits[index] == 0 {
                let reply = step!(sell(seat, 20));
                credits[index] = reply.table.expect("view").seats[index].credits;
            }
            if run.presses.len() >= PRESSES_PER_TABLE_MAX {
                return run;
            }
            let reply = step!(press(seat));
            let view = reply.table.expect("view");
            assert_eq!(light(&view, seat), pb::Light::On, "{table}: acknowledged ⇒ light on");
            credits[index] = view.seats[index].credits;
            run.presses.push(Ack { seat, round: view.round, sequence: reply.sequence, journal_sequence: reply.journal_sequence });
            acknowledged.fetch_add(1, Ordering::SeqCst);
        }
        step!(start());
        step!(finish());
    }
}

// Proves that a SIGKILL in the middle of a stream of acknowledged presses loses none and duplicates none: after a restart on the same directory every acknowledged press is recorded exactly once, and `verify` is green. Half the tables send on `Table/Commands` streams, half by `Table/Submit` calls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_mid_stream_keeps_every_acknowledged_press_exactly_once() {
    let began = Instant::now();
    let data = tempfile::tempdir().expect("data directory");
    let logs = tempfile::tempdir().expect("log directory");
    // A small snapshot interval, so that recovery is snapshot + replay, not replay alone.
    let options = ["--snapshot-every", "50"];
    let mut server = spawn(data.path(), &options, &logs.path().join("before-kill.log"));
    let started_ms = now_ms();

    let acknowledged = Arc::new(AtomicUsize::new(0));
    let killed = Arc::new(AtomicBool::new(false));
    let tasks: Vec<_> = CRASH_TABLES
        .iter()
        .enumerate()
        // Half the tables on a Commands stream (as the agents send), half by Submit calls.
        .map(|(index, table)| {
            tokio::spawn(drive(server.address.clone(), table, Arc::clone(&acknowledged), Arc::clone(&killed), index % 2 == 0))
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(30);
    while acknowledged.load(Ordering::SeqCst) < KILL_AFTER_PRESSES {
        assert!(Instant::now() < deadline, "only {} presses acknowledged in 30 s", acknowledged.load(Ordering::SeqCst));
        assert!(!tasks.iter().any(|task| task.is_finished()), "a table stopped before the kill");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    killed.store(true, Ordering::SeqCst);
    server.kill();
    let acknowledged_at_kill = acknowledged.load(Ordering::SeqCst);

    let mut runs = Vec::new();
    for task in tasks {
        let run = tokio::time::timeout(Duration::from_secs(20), task).await.expect("a table stops after the kill").expect("task");
        let (code, message, after_kill) = run.error.clone().expect("every table was still sending when the process died");
        assert!(after_kill, "{}: a command failed before the kill: {code:?} {message}", run.table);
        runs.push(run);
    }
    let acknowledged_total: usize = runs.iter().map(|run| run.presses.len()).sum();
    assert!(acknowledged_total >= KILL_AFTER_PRESSES);

    // The restart: same directory, same settings.
    let mut server = spawn(data.path(), &options, &logs.path().join("after-kill.log"));
    let mut client = connect(&server.address).await;
    let jornadas: BTreeSet<String> =
        [started_ms, now_ms()].into_iter().map(|ms| pozo_server::state::jornada_and_hour(&Config::embedded(), ms).0).collect();
    let status_after_restart = client.journal().await;

    let mut in_flight_presses = 0;
    let mut durable_unanswered = 0;
    let mut recorded_total = 0;
    let mut pending_pressed = 0;
    for run in &runs {
        let table = run.table;
        let (in_flight_sequence, in_flight_command) = run.in_flight.clone().expect("in flight");
        assert_eq!(in_flight_sequence, run.last_acknowledged + 1, "{table}: one command at a time");
        let is_press = matches!(in_flight_command, C::Press(_));
        in_flight_presses += u64::from(is_press);
        let view = client.view(table).await;
        // Every acknowledged command is there; the one in flight may or may not be.
        assert!(
            view.last_sequence == run.last_acknowledged || view.last_sequence == in_flight_sequence,
            "{table}: the server recovered up to sequence {}, the agent had {} acknowledged and {} in flight",
            view.last_sequence,
            run.last_acknowledged,
            in_flight_sequence
        );
        if let Some(last) = run.presses.last() {
            assert!(
                last.journal_sequence <= status_after_restart.entries,
                "{table}: acknowledged entry {} lost",
                last.journal_sequence
            );
        }
        let durable = view.last_sequence == in_flight_sequence;
        durable_unanswered += u64::from(durable);
        // Exactly once: the presses recorded are the acknowledged ones, plus the
        // press in flight when the process died if the writer had made it durable
        // (journaled and flushed, the answer not yet sent): durable but unanswered.
        // So recorded == acknowledged, or acknowledged + 1 at most, and the +1 only
        // when the command in flight was a press and the table's sequence shows it applied.
        let recorded = presses_reported(&mut client, table, &jornadas).await;
        let acknowledged = run.presses.len() as u64;
        assert!(
            recorded == acknowledged || recorded == acknowledged + 1,
            "{table}: {recorded} recorded, {acknowledged} acknowledged"
        );
        assert_eq!(
            recorded,
            acknowledged + u64::from(durable && is_press),
            "{table}: in flight {in_flight_command:?}, durable {durable}"
        );
        recorded_total += recorded;
        if view.state == "apuestas" {
            pending_pressed += (1..=BLACKJACK_SEATS).filter(|seat| light(&view, *seat) == pb::Light::On).count() as u64;
        }
    }
    // The pool agrees: every press is either registered by INICIAR JUEGO or still loaded for the next one.
    let pool = client.pool("iplyc-blackjack").await;
    assert_eq!(pool.bets + pending_pressed, recorded_total, "pool bets {} + loaded {pending_pressed}", pool.bets);

    // The agents retry their unanswered command with the same bytes: applied once
    // if it was lost, answered from the state if it was durable; never twice.
    let mut retried_presses = 0;
    for run in &runs {
        let (sequence, command) = run.in_flight.clone().expect("in flight");
        client.sequences.insert(run.table.to_owned(), sequence);
        let reply = client.send(run.table, command.clone()).await.unwrap_or_else(|status| {
            panic!("{}: the retry of {command:?} is answered: {:?} {}", run.table, status.code(), status.message())
        });
        assert_eq!(reply.sequence, sequence);
        let is_press = matches!(command, C::Press(_));
        retried_presses += u64::from(is_press);
        let recorded = presses_reported(&mut client, run.table, &jornadas).await;
        assert_eq!(recorded, run.presses.len() as u64 + u64::from(is_press), "{}: after the retry", run.table);
    }
    let status = client.journal().await;
    drop(client);
    let stopped = server.terminate();
    assert!(stopped.success(), "a clean stop exits 0: {stopped:?}; log:\n{}", server.log_text());

    // The journal itself: each acknowledged press at the entry its answer named, once.
    {
        let journal = Journal::open(data.path()).expect("journal opens");
        let mut presses_by_table: BTreeMap<String, u64> = BTreeMap::new();
        let mut entries = BTreeMap::new();
        for entry in journal.read_after(0) {
            let entry = entry.expect("a readable entry");
            if let Entry::Table(command) = &entry.record.command {
                if matches!(command.op, TableOp::Press { .. }) {
                    *presses_by_table.entry(command.table_id.to_string()).or_default() += 1;
                }
                entries.insert(entry.record.sequence, command.clone());
            }
        }
        for run in &runs {
            for ack in &run.presses {
                let command = entries.get(&ack.journal_sequence).unwrap_or_else(|| {
                    panic!("{}: acknowledged press at entry {} is not in the journal", run.table, ack.journal_sequence)
                });
                assert_eq!(
                    (command.table_id.as_str(), command.sequence, &command.op),
                    (run.table, ack.sequence, &TableOp::Press { seat: ack.seat, credits: None }),
                    "entry {} (round {})",
                    ack.journal_sequence,
                    ack.round
                );
            }
            let (_, command) = run.in_flight.as_ref().expect("in flight");
            let expected = run.presses.len() as u64 + u64::from(matches!(command, C::Press(_)));
            assert_eq!(presses_by_table.get(run.table).copied().unwrap_or(0), expected, "{}: presses in the journal", run.table);
        }
    }

    let (output, report) = verify_binary(data.path());
    assert!(output.status.success(), "verify is green: {report:#}; stderr: {}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(report["chain"], "ok", "{report:#}");
    assert_eq!(report["conservation"], "ok", "{report:#}");
    assert_eq!(report["snapshot"], "ok", "{report:#}");
    assert_eq!(report["entries"].as_u64(), Some(status.entries), "verify replays exactly what the server reported");
    assert_eq!(report["tip"].as_str(), Some(status.tip_hash.as_str()));
    eprintln!(
        "crash: {acknowledged_total} presses acknowledged ({acknowledged_at_kill} counted at the kill) over {} commands; \
         in flight at the kill: {} commands, {in_flight_presses} of them presses, {durable_unanswered} durable but unanswered; \
         {retried_presses} presses retried; journal after restart {} entries, at the end {}; jornadas {jornadas:?}; {:?}",
        runs.iter().map(|run| run.commands).sum::<u64>(),
        runs.len(),
        status_after_restart.entries,
        status.entries,
        began.elapsed()
    );
    for run in &runs {
        let (sequence, command) = run.in_flight.as_ref().expect("in flight");
        let (code, message, _) = run.error.as_ref().expect("error");
        eprintln!(
            "crash: {}: {} presses acknowledged, last sequence {}, in flight #{sequence} {command:?}: {code:?} {message}",
            run.table,
            run.presses.len(),
            run.last_acknowledged
        );
    }
}

// ----------------------------------------------------------------------------- 2. snapshot + replay

/// Everything a restart must give back as it was, labelled.
async fn picture(client: &mut Client, tables: &[&str], pools: &[&str]) -> Vec<(String, String)> {
    let mut picture = Vec::new();
    for table in tables {
        picture.push((format!("view {table}"), format!("{:?}", client.view(table).await)));
        let report = client.report(table).await;
        picture.push((format!("table report {table}"), format!("{report:?}")));
    }
    for pool in pools {
        picture.push((format!("pool report {pool}"), format!("{:?}", client.pool(pool).await)));
    }
    let mut status = client.pools.status(pb::PoolStatusRequest { pool_ids: vec![] }).await.expect("pools").into_inner();
    // The entry a status was read at moves on with the restart's own record of its build.
    status.pools.iter_mut().for_each(|pool| pool.sequence = 0);
    picture.push(("pool status".to_owned(), format!("{status:?}")));
    let list = client.office_envelope(pb::office_command::Command::List(pb::ListPayouts { status: "all".into() }));
    let orders = client.office.list(list).await.expect("payout orders").into_inner();
    picture.push(("payout orders".to_owned(), format!("{orders:?}")));
    picture
}

// Proves that a restart (latest snapshot + replay of the entries after it) gives back exactly the state before the stop, and that verify finds the snapshot equal to the replayed state.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_from_snapshot_and_replay_gives_the_same_state() {
    const SNAPSHOT_EVERY: u64 = 7;
    let directory = tempfile::tempdir().expect("data directory");
    let data = directory.path().to_path_buf();
    // Seeded instant-prize draws (15.11.2): the card appears in a known round.
    let options = || pozo_server::ServeOptions {
        snapshot_every: SNAPSHOT_EVERY,
        cards: pozo_server::cards::CardSource::Seeded(3),
        ..Default::default()
    };
    let tables = ["B1", "B2", "R1", "CP1"];
    let pools = ["iplyc-blackjack", "iplyc-ruleta", "iplyc-central-poker"];

    let server = TestServer::start_with(data.clone(), options()).await;
    let mut client = server.client().await;
    // Black Jack: a prize paid at the table, then a bet left loaded for the next round.
    client.round_started("B1", &[(3, 5), (5, 1)], &[3, 5]).await;
    client.ok("B1", prize(3, "CUATRO_ASES")).await;
    assert_eq!(client.ok("B1", accept()).await.awards.len(), 1);
    client.ok("B1", finish()).await;
    client.ok("B1", press(3)).await;
    // Black Jack: a percentage prize, paid through a Venta-Pagos order.
    client.round_started("B2", &[(1, 5)], &[1]).await;
    client.ok("B2", prize(1, "TRES_SIETES_MISMO_PALO")).await;
    assert!(!client.ok("B2", accept()).await.awards[0].payout_order_id.is_empty());
    client.ok("B2", finish()).await;
    // Roulette: a press registers three bronze; a bronze hit gives two silver.
    client.round_started("R1", &[(1, 5)], &[1]).await;
    client.settle_round("R1", &[(1, "GRILLO_BRONCE")]).await;
    // Central Póker: a round in play, with the server's instant-prize card.
    client.open_until_instant_card("CP1", &[2]).await;
    // End between two snapshots, so that the restart replays some entries after the last one.
    if client.journal().await.entries % SNAPSHOT_EVERY == 0 {
        client.ok("B1", sell(6, 1)).await;
    }
    let entries = client.journal().await.entries;
    assert!(entries > 2 * SNAPSHOT_EVERY && entries % SNAPSHOT_EVERY != 0, "{entries} entries");

    let before = picture(&mut client, &tables, &pools).await;
    let sequences = client.sequences.clone();
    drop(client);
    assert!(server.stop().await.is_none(), "the directory is this test's");

    let server = TestServer::start_with(data.clone(), options()).await;
    let mut client = server.client().await;
    let after = picture(&mut client, &tables, &pools).await;
    assert_eq!(before.len(), after.len());
    for ((label, was), (_, is)) in before.iter().zip(&after) {
        assert_eq!(was, is, "{label} changed across the restart");
    }
    // And the restarted controller goes on from there.
    client.sequences = sequences;
    let sold = client.ok("B1", sell(5, 1)).await;
    assert_eq!(sold.journal_sequence, entries + 2, "after the restart's own record of its build");
    drop(client);
    server.stop().await;

    let report = pozo_server::tools::verify::verify_data(&data, &Config::embedded()).expect("verify runs");
    assert!(report.ok(), "{report:?}");
    assert_eq!(report.snapshot, "ok", "{report:?}");
    assert_eq!(report.entries, entries + 2, "the entries, the restart's build, the sale");
}

/// Waits (bounded) for a line of the server's log to contain `text`; returns the log.
fn wait_for_log(server: &ServerProcess, text: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let log = server.log_text();
        if log.contains(text) {
            return log;
        }
        assert!(Instant::now() < deadline, "no `{text}` in the log within 20 s:\n{log}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

// Proves that a snapshot is stored as soon as it is encoded, with no command after it: a floor
// that goes quiet after crossing the interval and is then killed restarts from that snapshot.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_is_stored_on_an_idle_floor_and_a_kill_restarts_from_it() {
    let data = tempfile::tempdir().expect("data directory");
    let logs = tempfile::tempdir().expect("log directory");
    let options = ["--snapshot-every", "5"];
    let mut server = spawn(data.path(), &options, &logs.path().join("before-kill.log"));
    let mut client = connect(&server.address).await;
    // Entries 2–6 after the genesis: the batch of entry 6 crosses the interval.
    client.ok("B1", open()).await;
    client.sell_and_press("B1", [1, 2], 5).await;
    let entries = client.journal().await.entries;
    assert_eq!(entries, 6);
    drop(client);
    // Nothing more is sent; the snapshot is stored all the same.
    wait_for_log(&server, "snapshot saved");
    server.kill();

    let mut server = spawn(data.path(), &options, &logs.path().join("after-kill.log"));
    let log = wait_for_log(&server, "journal recovered");
    let line = log.lines().find(|line| line.contains("journal recovered")).expect("the line");
    let from: u64 = line
        .split_whitespace()
        .find_map(|field| field.strip_prefix("from_snapshot="))
        .and_then(|value| value.parse().ok())
        .unwrap_or_else(|| panic!("no from_snapshot in `{line}`"));
    assert!(from >= 5 && from <= entries, "restarted from the snapshot at {from}: `{line}`");
    let mut client = connect(&server.address).await;
    assert_eq!(client.journal().await.entries, entries + 1, "nothing lost; only this start's record added");
    drop(client);
    assert!(server.terminate().success(), "log:\n{}", server.log_text());
    let (output, report) = verify_binary(data.path());
    assert!(output.status.success(), "{report:#}");
    assert_eq!(report["snapshot"], "ok", "{report:#}");
}

// ----------------------------------------------------------------------------- 3. verify and the chain

/// Plays a few commands on a fresh controller and stops it cleanly: entries
/// 1 genesis, 2 open, 3 sell(1, 5), 4 sell(2, 5), 5 press 1, 6 press 2, 7 start, 8 finish.
async fn a_small_journal(data: &Path) -> u64 {
    let server = TestServer::start_on(data.to_path_buf()).await;
    let mut client = server.client().await;
    client.round_started("B1", &[(1, 5), (2, 5)], &[1, 2]).await;
    client.ok("B1", finish()).await;
    let entries = client.journal().await.entries;
    drop(client);
    server.stop().await;
    entries
}

/// Replaces the first `from` in entry `sequence`'s JSON by `to` (same length);
/// returns the original value.
fn edit_entry(data: &Path, sequence: u64, from: &str, to: &str) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    damage_entry(data, sequence, |original| {
        let json = std::str::from_utf8(&original[32..]).expect("JSON after the 32-byte hash");
        assert!(json.contains(from), "entry {sequence}: `{from}` not in {json}");
        let edited_json = json.replacen(from, to, 1);
        serde_json::from_str::<Value>(&edited_json).expect("still valid JSON");
        let mut edited = original[..32].to_vec();
        edited.extend_from_slice(edited_json.as_bytes());
        Some(edited)
    })
}

/// Edits or removes entry `sequence` in the stopped server's store
/// (`pozo_server::journal::store::damage`); returns the entry as it was.
fn damage_entry(data: &Path, sequence: u64, edit: impl FnOnce(&[u8]) -> Option<Vec<u8>>) -> Vec<u8> {
    pozo_server::journal::store::damage::edit_entry(data, sequence, edit)
        .unwrap_or_else(|error| panic!("damaging entry {sequence} in {}: {error}", data.display()))
}

fn put_entry(data: &Path, sequence: u64, value: Option<Vec<u8>>) {
    damage_entry(data, sequence, |_| value);
}

fn assert_verify_fails(data: &Path, expect: &[&str]) -> Value {
    let (output, report) = verify_binary(data);
    assert!(!output.status.success(), "verify must fail: {report:#}");
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    let chain = report["chain"].as_str().expect("chain is text");
    assert_ne!(chain, "ok", "{report:#}");
    for part in expect {
        assert!(chain.contains(part), "chain `{chain}` should mention `{part}`");
    }
    report
}

// Proves that `verify` finds an entry edited in place (the next entry's previous-hash no longer matches) and an entry removed from the middle of the journal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_detects_an_edited_entry() {
    let directory = tempfile::tempdir().expect("data directory");
    let data = directory.path();
    let entries = a_small_journal(data).await;
    assert_eq!(entries, 8);
    let (output, report) = verify_binary(data);
    assert!(output.status.success(), "untouched, verify is green: {report:#}");
    assert_eq!((report["chain"].as_str(), report["entries"].as_u64()), (Some("ok"), Some(8)));

    // Entry 3 sold 5 credits to seat 1; now it says 1. Valid JSON, a valid command: only the chain tells.
    let original = edit_entry(data, 3, "\"credits\":5", "\"credits\":1");
    let report = assert_verify_fails(data, &["journal entry 4", "chain is broken"]);
    assert_eq!(report["entries"].as_u64(), Some(3), "replay stops before the first entry that does not chain");

    // Put back, green again: the failure was the edit and nothing else.
    put_entry(data, 3, Some(original));
    let (output, report) = verify_binary(data);
    assert!(output.status.success(), "restored, verify is green: {report:#}");

    // Entry 5 (a press) removed from the middle.
    put_entry(data, 5, None);
    let report = assert_verify_fails(data, &["journal entry 6 follows 4", "missing"]);
    assert_eq!(report["entries"].as_u64(), Some(4));
}

// Proves that removing the journal's newest entries is detected too: the tip record, written
// atomically with every batch, vouches for the last entry.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_detects_a_removed_last_entry() {
    let directory = tempfile::tempdir().expect("data directory");
    let data = directory.path();
    let entries = a_small_journal(data).await;
    // FINALIZAR JUEGO (entry 8) removed: the round looks still in play.
    put_entry(data, entries, None);
    let (output, report) = verify_binary(data);
    assert!(!output.status.success(), "a removed last entry must be detected: {report:#}");
    assert!(report["chain"].as_str().is_some_and(|chain| chain.contains("entries were removed or altered")), "{report:#}");
}

// ----------------------------------------------------------------------------- 4. settings are fixed

// Proves that a journal started under one configuration refuses a restart under another (a rulebook amount changed): settings do not change while pools are live.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_with_another_configuration_is_refused() {
    let data = tempfile::tempdir().expect("data directory");
    let files = tempfile::tempdir().expect("rulebook directory");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");

    // A live pool under the embedded configuration: a bet registered.
    let mut server = spawn(data.path(), &[], &files.path().join("first.log"));
    let mut client = connect(&server.address).await;
    client.open_with_bets("R1", &[(1, 1)], &[1]).await;
    let status = client.journal().await;
    drop(client);
    assert!(server.terminate().success(), "log:\n{}", server.log_text());

    // The same three rulebooks, the Grillo de Plata's fixed amount changed.
    let iplyc = std::fs::read_to_string(root.join("config/iplyc.toml")).expect("iplyc.toml");
    let changed = iplyc.replacen("amount = \"300.00\"", "amount = \"350.00\"", 1);
    assert_ne!(changed, iplyc, "the silver amount is in the rulebook");
    let mut rulebooks = Vec::new();
    for (name, text) in [
        ("iplyc.toml", changed),
        ("aj-bolivia.toml", std::fs::read_to_string(root.join("config/aj-bolivia.toml")).expect("aj-bolivia.toml")),
        ("andalucia.toml", std::fs::read_to_string(root.join("config/andalucia.toml")).expect("andalucia.toml")),
    ] {
        let path = files.path().join(name);
        std::fs::write(&path, text).expect("rulebook copy");
        rulebooks.push(path);
    }
    let checked =
        Command::new(BIN).arg("rulebooks").args(rulebooks.iter().flat_map(|path| [Path::new("--rulebook"), path])).output();
    let checked = checked.expect("pozo-server rulebooks runs");
    assert!(checked.status.success(), "the changed rulebooks are valid: {}", String::from_utf8_lossy(&checked.stderr));

    let mut args = vec!["--listen".to_owned(), "127.0.0.1:0".to_owned()];
    for path in &rulebooks {
        args.push("--rulebook".to_owned());
        args.push(path.to_str().expect("UTF-8 path").to_owned());
    }
    let stderr = serve_refused(data.path(), &args.iter().map(String::as_str).collect::<Vec<_>>(), 2);
    assert!(stderr.contains("settings do not change while pools are live"), "{stderr}");

    // Refusing changed nothing: the original settings start, and the journal is as it was.
    let mut server = spawn(data.path(), &[], &files.path().join("again.log"));
    let mut client = connect(&server.address).await;
    // Every entry as it was, then this start's record of its build (docs/journal.md, "build").
    assert_eq!(client.journal().await.entries, status.entries + 1);
    let first = client.reports.entries(pb::JournalEntriesRequest { after: 0, limit: 0 }).await.expect("a page").into_inner();
    assert_eq!(first.entries[status.entries as usize - 1].hash, status.tip_hash, "the old tip is where it was");
    drop(client);
    assert!(server.terminate().success());
    let (output, report) = verify_binary(data.path());
    assert!(output.status.success(), "{report:#}");
    assert_eq!(report["entries"].as_u64(), Some(status.entries + 1));
}

// Proves that keys are not settings: a leaked table key is rotated by editing the keys file and
// restarting on the same journal; the old key is refused, the new one accepted, the books intact.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_is_rotated_on_the_same_journal() {
    let data = tempfile::tempdir().expect("data directory");
    let files = tempfile::tempdir().expect("key directory");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut server = spawn(data.path(), &[], &files.path().join("first.log"));
    let mut client = connect(&server.address).await;
    client.ok("B1", open()).await;
    let old_secret = client.secret("mesa-B1");
    drop(client);
    assert!(server.terminate().success(), "log:\n{}", server.log_text());

    let new_secret = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    let keys = std::fs::read_to_string(root.join("config/keys.toml")).expect("keys.toml");
    let rotated = keys.replacen(&hex::encode(&old_secret), new_secret, 1);
    assert_ne!(rotated, keys, "mesa-B1's secret is in the keys file");
    let keys_file = files.path().join("keys.toml");
    std::fs::write(&keys_file, rotated).expect("keys written");

    let keys_arg = keys_file.to_str().expect("UTF-8 path");
    let mut server = spawn(data.path(), &["--keys", keys_arg], &files.path().join("rotated.log"));
    let mut client = connect(&server.address).await;
    let payload = Client::payload("B1", 2, sell(1, 5));
    let journal = client.journal_id.clone();
    let old = pozo_proto::v1::Envelope {
        payload: payload.clone(),
        key_id: "mesa-B1".into(),
        mac: mac(&old_secret, &journal, &payload),
        journal_id: journal.clone(),
        inspector_pin: String::new(),
    };
    let refused = client.table.submit(old).await.expect_err("the old key is refused");
    assert_eq!(refused.code(), tonic::Code::Unauthenticated, "{}", refused.message());
    let new_key = hex::decode(new_secret).expect("hex");
    let fresh = pozo_proto::v1::Envelope {
        payload: payload.clone(),
        key_id: "mesa-B1".into(),
        mac: mac(&new_key, &journal, &payload),
        journal_id: journal.clone(),
        inspector_pin: String::new(),
    };
    let reply = client.table.submit(fresh).await.expect("the new key is accepted").into_inner();
    assert_eq!(reply.table.expect("view").seats[0].credits, 5);
    drop(client);
    assert!(server.terminate().success(), "log:\n{}", server.log_text());
    let (output, report) = verify_binary(data.path());
    assert!(output.status.success(), "{report:#}");
}

/// Runs `pozo-server serve` expecting it to refuse to start with exit status `code`
/// (docs/operations.md §15); returns its stderr.
fn serve_refused(data: &Path, extra: &[&str], code: i32) -> String {
    let logs = tempfile::tempdir().expect("log directory");
    let log = logs.path().join("refused.log");
    let mut child = Command::new(BIN)
        .arg("serve")
        .arg("--data")
        .arg(data)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(File::create(&log).expect("log")))
        .spawn()
        .expect("pozo-server starts");
    let exited = wait_bounded(&mut child, PROCESS_WAIT);
    let stderr = std::fs::read_to_string(&log).unwrap_or_default();
    let Some(exited) = exited else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("pozo-server served when it should have refused; log:\n{stderr}");
    };
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().expect("stdout"), &mut stdout).expect("stdout read");
    assert_eq!(exited.code(), Some(code), "{stderr}");
    assert!(!stdout.contains("listening"), "a refused start is never announced: {stdout}");
    stderr
}

// Proves that a data directory whose entries are gone is not mistaken for a new one: the tip record
// remains, so the server refuses to start rather than open every pool again at its minimum.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_data_directory_that_lost_its_entries_is_refused() {
    let directory = tempfile::tempdir().expect("data directory");
    let data = directory.path();
    let entries = a_small_journal(data).await;
    for sequence in 1..=entries {
        put_entry(data, sequence, None);
    }
    let stderr = serve_refused(data, &["--listen", "127.0.0.1:0"], 5);
    assert!(stderr.contains("the journal's entries are gone"), "{stderr}");
}

// Proves that nothing but loopback is served in plaintext, and that the address is parsed.
#[test]
fn plaintext_is_refused_off_loopback() {
    let directory = tempfile::tempdir().expect("data directory");
    let stderr = serve_refused(directory.path(), &["--listen", "0.0.0.0:0"], 2);
    assert!(stderr.contains("plaintext is allowed on loopback only"), "{stderr}");
    // A host name that starts with `127.` is not loopback.
    let stderr = serve_refused(directory.path(), &["--listen", "127.evil.example:50051"], 2);
    assert!(stderr.contains("plaintext is allowed on loopback only"), "{stderr}");
}

// Proves that a second server on a data directory another one serves is refused, naming the
// directory and what holds it, and that the first one goes on serving.
#[test]
fn a_second_server_on_a_served_data_directory_is_refused() {
    let directory = tempfile::tempdir().expect("data directory");
    let data = directory.path().join("data");
    let mut first = spawn(&data, &[], &directory.path().join("first.log"));
    let stderr = serve_refused(&data, &["--listen", "127.0.0.1:0", "--no-pages"], 4);
    assert!(stderr.contains("another pozo-server holds this data directory"), "{stderr}");
    assert!(stderr.contains(&data.display().to_string()), "the directory is named: {stderr}");
    assert!(!stderr.contains("could not acquire lock"), "sled's own text is not what the operator reads: {stderr}");
    let stopped = first.terminate();
    assert_eq!(stopped.code(), Some(0), "the first server went on serving, and stops cleanly: {}", first.log_text());
}

// Proves that an address another program listens on is refused as a network failure (exit 7,
// docs/operations.md §15), naming the option and the address.
#[test]
fn an_address_in_use_is_refused_as_a_network_failure() {
    let directory = tempfile::tempdir().expect("data directory");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let address = taken.local_addr().expect("bound").to_string();
    let stderr = serve_refused(&directory.path().join("data"), &["--listen", &address, "--no-pages"], 7);
    assert!(stderr.contains(&format!("--listen {address}:")), "{stderr}");
    drop(taken);
}
