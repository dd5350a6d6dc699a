//! The journal on PostgreSQL (`--store postgres://…`; docs/journal.md, "On PostgreSQL"),
//! against a real throw-away cluster (Debian's `postgresql`, started by the test kit on a free
//! 127.0.0.1 port): the same books across a restart and a kill -9, one writer at a time, and
//! the fence that keeps two writers from both committing entry N.
//!
//! A named suite: `cargo test -p pozo-server --features postgres-tests --test postgres`
//! (`.ci/run` installs PostgreSQL and runs it). Without PostgreSQL it fails, saying so.

mod common;

use std::path::Path;

use common::*;
use pozo_server::journal::postgres::PgStore;
use pozo_server::journal::store::{Store, StoreError};
use pozo_testkit::postgres::Cluster;
use pozo_testkit::process::ServerProcess;

const BIN: &str = env!("CARGO_BIN_EXE_pozo-server");

/// `pozo-server serve --data DIR --store URL` (the address through `POZO_STORE`, as an operator
/// keeps a password off the command line), or how it was refused.
fn serve(data: &Path, url: &str, log: &Path) -> Result<ServerProcess, pozo_testkit::process::Refused> {
    ServerProcess::try_spawn_env(Path::new(BIN), data, "127.0.0.1:0", &["--no-pages"], &[("POZO_STORE", url)], log)
}

/// A throw-away cluster, its database `salon` (its address) and a directory for the controllers'
/// data and logs.
fn salon() -> (Cluster, String, tempfile::TempDir) {
    let cluster = Cluster::start();
    let url = cluster.database("salon");
    (cluster, url, tempfile::tempdir().expect("a temporary directory"))
}

/// What a controller says of its books: the journal's length and tip, each pool's balance.
/// The books of a restarted controller, as `before` had them if the restart journaled only its
/// start's record of its build (one entry more): entries and tip as `before`'s, else as read.
fn restarted(
    after: (u64, String, Vec<(String, String)>),
    before: &(u64, String, Vec<(String, String)>),
) -> (u64, String, Vec<(String, String)>) {
    if after.0 == before.0 + 1 { (before.0, before.1.clone(), after.2) } else { after }
}

async fn books(client: &mut Client) -> (u64, String, Vec<(String, String)>) {
    let journal = client.journal().await;
    let mut pools = Vec::new();
    for pool in ["iplyc-blackjack", "iplyc-ruleta", "iplyc-central-poker"] {
        let report = client.pool(pool).await;
        pools.push((pool.to_owned(), report.balance.expect("a balance").value));
    }
    (journal.entries, journal.tip_hash, pools)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_journal_on_postgres_keeps_the_same_books_across_a_restart() {
    let (cluster, url, directory) = salon();
    let data = directory.path().join("data");
    let log = directory.path().join("server.log");

    let mut server = serve(&data, &url, &log).unwrap_or_else(|refused| panic!("did not start: {refused:?}"));
    let mut client = connect(&server.address).await;
    let order = client.open_b3_with_a_pending_order(2).await;
    let before = books(&mut client).await;
    let sequences = client.sequences.clone();
    assert!(server.terminate().success(), "{}", server.log_text());

    // The entries are rows of the database, one per sequence, as many as the journal says.
    let rows: u64 = cluster.sql("salon", "SELECT count(*) FROM pozo_journal").parse().expect("a count");
    assert_eq!(rows, before.0, "one row per journal entry");
    let last: u64 = cluster.sql("salon", "SELECT max(sequence) FROM pozo_journal").parse().expect("a sequence");
    assert_eq!(last, before.0);
    assert!(!data.join("db").exists() && !data.join("conf").exists(), "no sled journal in --data");
    let text = server.log_text();
    assert!(text.contains(&format!("store=postgres://127.0.0.1:{}/salon", cluster.port())), "{text}");
    assert!(!text.contains(pozo_testkit::postgres::PASSWORD), "the password is never logged: {text}");

    let mut server = serve(&data, &url, &log).unwrap_or_else(|refused| panic!("did not restart: {refused:?}"));
    let mut client = connect(&server.address).await;
    assert_eq!(restarted(books(&mut client).await, &before), before, "the same books after the restart");
    assert_eq!(client.order(&order).await.order_id, order, "the pending payout is still there");
    // The table's agent goes on with its own sequence: the restarted controller remembers it.
    client.sequences = sequences;
    client.ok("B3", start()).await;
    assert_eq!(client.journal().await.entries, before.0 + 2, "and the journal goes on from its tip (after the start's build)");
    assert!(server.terminate().success(), "{}", server.log_text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_acknowledged_command_survives_a_kill_9_of_the_controller() {
    let (cluster, url, directory) = salon();
    let data = directory.path().join("data");
    let log = directory.path().join("server.log");
    let mut server = serve(&data, &url, &log).unwrap_or_else(|refused| panic!("did not start: {refused:?}"));
    let mut client = connect(&server.address).await;
    client.ok("B3", open()).await;
    let mut acknowledged = Vec::new();
    for round in 0..8 {
        for seat in 1..=4 {
            acknowledged.push(client.ok("B3", sell(seat, 1)).await.journal_sequence);
            acknowledged.push(client.ok("B3", press(seat)).await.journal_sequence);
        }
        acknowledged.push(client.ok("B3", start()).await.journal_sequence);
        acknowledged.push(client.ok("B3", finish()).await.journal_sequence);
        if round == 5 {
            // No handler runs: whatever was acknowledged must already be in the database.
            server.kill();
            break;
        }
    }
    let mut server = serve(&data, &url, &log).unwrap_or_else(|refused| panic!("did not restart: {refused:?}"));
    let mut client = connect(&server.address).await;
    let entries = client.journal().await.entries;
    let highest = *acknowledged.iter().max().expect("acknowledged commands");
    assert!(entries >= highest, "acknowledged up to entry {highest}, the journal has {entries}");
    let stored: std::collections::BTreeSet<u64> = cluster
        .sql("salon", "SELECT sequence FROM pozo_journal ORDER BY sequence")
        .lines()
        .map(|line| line.parse().expect("a sequence"))
        .collect();
    assert!(acknowledged.iter().all(|sequence| stored.contains(sequence)), "every acknowledged entry is a row");
    assert_eq!(stored.len() as u64, entries, "and none missing");
    assert_eq!(stored.last().copied(), Some(entries), "numbered 1 to the journal's length");
    assert!(server.terminate().success(), "{}", server.log_text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_controller_on_the_same_database_is_refused_while_the_first_writes() {
    let (cluster, url, directory) = salon();
    let first_log = directory.path().join("first.log");
    let mut first = serve(&directory.path().join("first"), &url, &first_log).unwrap_or_else(|refused| panic!("{refused:?}"));
    let mut client = connect(&first.address).await;
    client.ok("B3", open()).await;
    let entries = client.journal().await.entries;

    let refused = serve(&directory.path().join("second"), &url, &directory.path().join("second.log"))
        .err()
        .expect("the second controller does not serve");
    assert_eq!(refused.code, Some(pozo_server::exit::ExitClass::Locked.code().into()), "{}", refused.log);
    assert!(refused.log.contains("another pozo-server is the writer of this journal"), "{}", refused.log);
    assert!(refused.log.contains(&format!("127.0.0.1:{}/salon", cluster.port())), "names the database: {}", refused.log);
    assert_eq!(client.journal().await.entries, entries, "the first goes on, its journal untouched");
    client.ok("B3", start()).await;
    assert!(first.terminate().success(), "{}", first.log_text());
}

/// The fence under the lock: a writer whose next entry another writer already committed is
/// refused, and nothing of its batch (entries or tip) is written.
#[test]
fn entry_n_is_committed_once_and_a_fenced_batch_writes_nothing() {
    let cluster = Cluster::start();
    let url = cluster.database("fence");
    let store = PgStore::open(&url).expect("the first writer opens the store");
    block_on(store.append(vec![(1, b"one".to_vec())], b"tip after 1".to_vec())).expect("appended");

    // While it holds the writer's lock, no other controller opens the journal.
    match PgStore::open(&url).err().expect("refused") {
        StoreError::WriterElsewhere { database } => assert!(database.ends_with("/fence"), "{database}"),
        other => panic!("expected WriterElsewhere, got {other}"),
    }

    // Entry 2 committed by someone else (a writer that took over): ours is fenced off, whole.
    cluster.sql("fence", "INSERT INTO pozo_journal (sequence, entry) VALUES (2, 'theirs')");
    let batch = vec![(2, b"ours-2".to_vec()), (3, b"ours-3".to_vec())];
    match block_on(store.append(batch, b"tip after 3".to_vec())) {
        Err(StoreError::Fenced { first: 2, .. }) => {}
        other => panic!("expected Fenced at entry 2, got {other:?}"),
    }
    assert_eq!(cluster.sql("fence", "SELECT sequence FROM pozo_journal ORDER BY sequence"), "1\n2");
    assert_eq!(cluster.sql("fence", "SELECT convert_from(entry, 'UTF8') FROM pozo_journal WHERE sequence = 2"), "theirs");
    assert_eq!(store.tip().expect("the tip"), Some(b"tip after 1".to_vec()), "the tip of the fenced batch is not written");

    // The lock goes with the connection: once the first writer is gone, another may open it.
    drop(store);
    let next = PgStore::open(&url).expect("the lock was let go with the first writer's connection");
    assert_eq!(next.last().expect("read").map(|(sequence, _)| sequence), Some(2));
    let read: Vec<u64> = next.after(0).map(|item| item.expect("read").0).collect();
    assert_eq!(read, [1, 2]);
}

fn block_on<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime").block_on(future)
}

/// A wrong password: refused at start as a storage failure, naming the database and never the
/// password tried.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_password_is_refused_naming_the_database_not_the_password() {
    let cluster = Cluster::start();
    cluster.database("salon");
    let wrong = format!("postgres://pozo:no-es-la-clave@127.0.0.1:{}/salon", cluster.port());
    let directory = tempfile::tempdir().expect("a temporary directory");
    let refused = serve(&directory.path().join("data"), &wrong, &directory.path().join("server.log")).err().expect("refused");
    assert_eq!(refused.code, Some(pozo_server::exit::ExitClass::Storage.code().into()), "{}", refused.log);
    assert!(refused.log.contains(&format!("postgres://127.0.0.1:{}/salon: cannot connect", cluster.port())), "{}", refused.log);
    assert!(!refused.log.contains("no-es-la-clave"), "{}", refused.log);
}

/// `pozo-server verify --store URL` as an operator runs it (the binary).
fn verify_store(url: &str, data: &Path) -> (Option<i32>, serde_json::Value, String) {
    let output = std::process::Command::new(BIN)
        .args(["verify", "--store", url, "--data"])
        .arg(data)
        .output()
        .expect("pozo-server verify runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let report = serde_json::from_slice(&output.stdout).unwrap_or(serde_json::Value::Null);
    (output.status.code(), report, stderr)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_reads_the_database_while_the_controller_serves_and_finds_an_edited_entry() {
    let (cluster, url, directory) = salon();
    let data = directory.path().join("data");
    let mut server = serve(&data, &url, &directory.path().join("server.log")).unwrap_or_else(|refused| panic!("{refused:?}"));
    let mut client = connect(&server.address).await;
    client.open_b3_with_a_pending_order(2).await;
    let (entries, tip, pools) = books(&mut client).await;

    // While it serves: a read-only session, no writer's lock; the mark beside --data is checked.
    let data_for_verify = data.clone();
    let url_for_verify = url.clone();
    let (code, report, stderr) =
        tokio::task::spawn_blocking(move || verify_store(&url_for_verify, &data_for_verify)).await.expect("joined");
    assert_eq!(code, Some(0), "{stderr}\n{report:#}");
    assert_eq!(report["entries"], entries, "{report:#}");
    assert_eq!(report["tip"], tip, "{report:#}");
    assert_eq!((report["chain"].as_str(), report["conservation"].as_str()), (Some("ok"), Some("ok")), "{report:#}");
    assert_eq!(report["acknowledged"], "ok", "the mark of the serving controller: {report:#}");
    for (pool, balance) in &pools {
        assert_eq!(report["pools"][pool]["balance"], *balance, "{pool}: {report:#}");
    }
    // And while commands stream in: one snapshot of the database, the mark read before it.
    let load = tokio::spawn(async move {
        for step in 0..400 {
            client.ok("B3", cycle(step)).await;
        }
    });
    for _ in 0..3 {
        let (data, url) = (data.clone(), url.clone());
        let (code, report, stderr) = tokio::task::spawn_blocking(move || verify_store(&url, &data)).await.expect("joined");
        assert_eq!(code, Some(0), "verify while serving: {stderr}\n{report:#}");
    }
    load.await.expect("the load ran");
    assert!(server.terminate().success(), "{}", server.log_text());

    // The jornada's evidence from the database (`evidence --store`), verified offline.
    let key = directory.path().join("evidencia.pem");
    let made = std::process::Command::new(BIN).args(["evidence-key", "--out"]).arg(&key).output().expect("runs");
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("after 1970").as_millis() as u64;
    let (jornada, _) = pozo_server::jornada::jornada_and_hour(&pozo_server::config::Config::embedded(), now);
    let evidence = |out: &Path| {
        std::process::Command::new(BIN)
            .args(["evidence", "--jornada", &jornada, "--store", &url, "--signing-key"])
            .arg(&key)
            .arg("--out")
            .arg(out)
            .output()
            .expect("pozo-server evidence runs")
    };
    let file = directory.path().join("evidencia.json");
    let output = evidence(&file);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let written: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let public = std::fs::read_to_string(directory.path().join("evidencia.pem.pub")).expect("the public half");
    let public = pozo_verifier::PublicKey::parse(&public).expect("a key");
    let verdict = pozo_verifier::verify(&[("evidencia.json".into(), std::fs::read(&file).expect("read"))], &public);
    assert!(verdict.conforme, "{}", pozo_verifier::castellano(&verdict));
    let last = written["last_entry"].as_u64().expect("a number");
    let report_entries = verify_store(&url, &data).1["entries"].as_u64().expect("entries");
    assert_eq!(last, report_entries, "the jornada's evidence ends at the journal's tip: {written}");

    // An entry edited in the database: the chain breaks there, and verify says so (exit 1).
    cluster
        .sql("salon", "UPDATE pozo_journal SET entry = overlay(entry placing '\\x00'::bytea from 40 for 1) WHERE sequence = 3");
    let (code, report, stderr) = verify_store(&url, &data);
    assert_eq!(code, Some(1), "{stderr}\n{report:#}");
    assert!(report["chain"].as_str().is_some_and(|chain| chain.starts_with("journal entry 3:")), "names the entry: {report:#}");
    assert_eq!(report["last_good_entry"], 2, "{report:#}");
    let output = evidence(&directory.path().join("evidencia-rota.json"));
    assert!(!output.status.success(), "no evidence of a broken journal");
    assert!(String::from_utf8_lossy(&output.stderr).contains("journal entry 3"), "{}", String::from_utf8_lossy(&output.stderr));

    // A database with no journal is refused, naming it.
    let empty = cluster.database("vacia");
    let (code, _, stderr) = verify_store(&empty, &data);
    assert_eq!(code, Some(1));
    assert!(stderr.contains(&format!("127.0.0.1:{}/vacia", cluster.port())) && stderr.contains("no Pozo journal"), "{stderr}");
}

/// `pozo-server migrate --from DIR --to URL` (the binary): exit status, JSON report, stderr.
fn migrate(from: &Path, url: &str) -> (Option<i32>, serde_json::Value, String) {
    let output = std::process::Command::new(BIN)
        .args(["migrate", "--from"])
        .arg(from)
        .env("POZO_STORE", url)
        .output()
        .expect("pozo-server migrate runs");
    let report = serde_json::from_slice(&output.stdout).unwrap_or(serde_json::Value::Null);
    (output.status.code(), report, String::from_utf8_lossy(&output.stderr).into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_salon_on_sled_moves_to_postgres_with_the_same_books() {
    let (cluster, url, directory) = salon();
    let data = directory.path().join("data");
    let log = directory.path().join("server.log");

    // A night on sled, in --data.
    let mut server = ServerProcess::spawn(Path::new(BIN), &data, "127.0.0.1:0", &["--no-pages"], &log);
    let mut client = connect(&server.address).await;
    let order = client.open_b3_with_a_pending_order(2).await;
    let before = books(&mut client).await;
    let sequences = client.sequences.clone();

    // Not while the server runs: its data directory is held.
    let (code, _, stderr) = tokio::task::spawn_blocking({
        let (data, url) = (data.clone(), url.clone());
        move || migrate(&data, &url)
    })
    .await
    .expect("joined");
    assert_eq!(code, Some(pozo_server::exit::ExitClass::Locked.code().into()), "{stderr}");
    assert_eq!(cluster.sql("salon", "SELECT count(*) FROM pg_tables WHERE tablename = 'pozo_journal'"), "0", "nothing created");
    assert!(server.terminate().success(), "{}", server.log_text());

    let (code, report, stderr) = migrate(&data, &url);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(report["entries"], before.0, "{report:#}");
    assert_eq!(report["tip"], before.1, "{report:#}");
    assert_eq!(report["verified"], "ok");
    assert!(!stderr.contains(pozo_testkit::postgres::PASSWORD) && !report.to_string().contains(pozo_testkit::postgres::PASSWORD));
    let rows: u64 = cluster.sql("salon", "SELECT count(*) FROM pozo_journal").parse().expect("a count");
    assert_eq!(rows, before.0);

    // Served from the database (the mark beside --data, as before): the same books, and on.
    let mut server = serve(&data, &url, &log).unwrap_or_else(|refused| panic!("{refused:?}"));
    let mut client = connect(&server.address).await;
    assert_eq!(restarted(books(&mut client).await, &before), before);
    assert_eq!(client.order(&order).await.order_id, order);
    client.sequences = sequences;
    client.ok("B3", start()).await;
    assert!(server.terminate().success(), "{}", server.log_text());

    // Into a database that already holds a journal: refused, nothing changed.
    let rows_before = cluster.sql("salon", "SELECT count(*) FROM pozo_journal");
    let (code, _, stderr) = migrate(&data, &url);
    assert_eq!(code, Some(pozo_server::exit::ExitClass::BadInput.code().into()), "{stderr}");
    assert!(stderr.contains("already holds a journal"), "{stderr}");
    assert_eq!(cluster.sql("salon", "SELECT count(*) FROM pozo_journal"), rows_before);
}

// ----------------------------------------------------------------------------- takeover

/// `pozo-server serve --standby` as a child. It announces its address once it serves: at once
/// as the writer when no other controller holds the writer's lock, else as the hot standby
/// following the writer's journal; it says in its log when it has taken over.
struct Standby {
    child: std::process::Child,
    address: String,
    log: std::path::PathBuf,
}

fn spawn_standby(data: &Path, url: &str, log: &Path) -> Standby {
    spawn_standby_on(data, url, "127.0.0.1:0", log)
}

fn spawn_standby_on(data: &Path, url: &str, listen: &str, log: &Path) -> Standby {
    use std::io::BufRead as _;
    let mut child = std::process::Command::new(BIN)
        .args(["serve", "--standby", "--no-pages", "--listen", listen, "--data"])
        .arg(data)
        .env("POZO_STORE", url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::fs::File::create(log).expect("a log file"))
        .spawn()
        .expect("pozo-server starts");
    let stdout = child.stdout.take().expect("piped");
    let (sender, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });
    let line = lines.recv_timeout(std::time::Duration::from_secs(30)).unwrap_or_else(|_| {
        panic!("the standby did not announce its address:\n{}", std::fs::read_to_string(log).unwrap_or_default());
    });
    let address = line.strip_prefix("pozo-server listening on ").unwrap_or_else(|| panic!("unexpected `{line}`")).to_owned();
    Standby { child, address, log: log.to_path_buf() }
}

impl Standby {
    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits until it says it follows the writer (so that it is connected and asking for the lock).
    fn wait_until_waiting(&self) {
        let started = std::time::Instant::now();
        while !self.log_text().contains("standby: another controller is the writer") {
            assert!(started.elapsed() < std::time::Duration::from_secs(20), "the standby never waited:\n{}", self.log_text());
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Its address, once it is the writer (it says so in its log).
    fn taken_over(&self) -> String {
        let started = std::time::Instant::now();
        while !self.log_text().contains("the writer's lock is ours") {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(30),
                "the standby did not take over:\n{}",
                self.log_text()
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        self.address.clone()
    }
}

impl Drop for Standby {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The commands the load sends, round after round at table B3: always valid in this order.
fn cycle(step: u64) -> C {
    let seat = (step / 2 % 4) as u32 + 1;
    match step % 10 {
        8 => start(),
        9 => finish(),
        n if n % 2 == 0 => sell(seat, 1),
        _ => press(seat),
    }
}

use pozo_proto::v1::table_command::Command as C;

/// The failover soak: 20 times, the writer is killed (SIGKILL) while commands stream in, and
/// the standby takes over. Every acknowledged command is in the journal exactly once, a command
/// in doubt at the kill is sent again to the new writer and applied once, `verify` is green, and
/// the takeover times are reported.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_takeovers_under_load_lose_and_double_nothing() {
    const TAKEOVERS: usize = 20;
    let (cluster, url, directory) = salon();
    let data = |n: usize| directory.path().join(format!("data-{}", n % 2));
    let log = |n: usize| directory.path().join(format!("server-{n}.log"));

    // The first writer: a standby with no writer before it takes over at once.
    let first = spawn_standby(&data(0), &url, &log(0));
    let mut writer = (first.taken_over(), first);
    let mut client = connect(&writer.0).await;
    client.ok("B3", open()).await;
    let entries_at_start = client.journal().await.entries;
    let sequence_at_start = client.sequences["B3"];

    let (address_sender, mut addresses) = tokio::sync::watch::channel(writer.0.clone());
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    // The load: one command at a time, each retried (same sequence) at the next writer until answered.
    let load = {
        let stop = std::sync::Arc::clone(&stop);
        tokio::spawn(async move {
            let mut acknowledged = std::collections::BTreeSet::new();
            let mut resent = 0u64;
            let mut step = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let command = cycle(step);
                loop {
                    match tokio::time::timeout(std::time::Duration::from_secs(2), client.send("B3", command.clone())).await {
                        Ok(Ok(reply)) => {
                            acknowledged.insert(reply.journal_sequence);
                            break;
                        }
                        // A refusal by the controller; not the transport's loss of the link with a killed
                        // writer (Unavailable, Unknown, or Cancelled when the connection closed mid-request).
                        Ok(Err(status))
                            if !matches!(
                                status.code(),
                                tonic::Code::Unavailable | tonic::Code::Unknown | tonic::Code::Cancelled
                            ) =>
                        {
                            panic!("step {step}: {command:?} refused: {status:?}")
                        }
                        // The writer is gone (or the answer lost with it): the next one, same sequence.
                        _ => {
                            resent += 1;
                            addresses.changed().await.expect("a next writer");
                            let address = addresses.borrow_and_update().clone();
                            let sequences = client.sequences.clone();
                            client = connect(&address).await;
                            client.sequences = sequences;
                        }
                    }
                }
                step += 1;
            }
            (client, acknowledged, resent)
        })
    };

    let mut takeovers = Vec::with_capacity(TAKEOVERS);
    for round in 1..=TAKEOVERS {
        let standby = spawn_standby(&data(round), &url, &log(round));
        tokio::task::block_in_place(|| standby.wait_until_waiting());
        // Let the load run a moment (a different moment each round), then kill the writer.
        tokio::time::sleep(std::time::Duration::from_millis(100 + (round as u64 * 37) % 200)).await;
        let (_, mut old) = std::mem::replace(&mut writer, (String::new(), standby));
        let killed = std::time::Instant::now();
        old.child.kill().expect("SIGKILL");
        old.child.wait().expect("reaped");
        let address = tokio::task::block_in_place(|| writer.1.taken_over());
        takeovers.push(killed.elapsed());
        writer.0 = address.clone();
        address_sender.send(address).expect("the load listens");
    }
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let (mut client, acknowledged, resent) = load.await.expect("the load ends");

    let entries = client.journal().await.entries;
    let stored: std::collections::BTreeSet<u64> = cluster
        .sql("salon", "SELECT sequence FROM pozo_journal ORDER BY sequence")
        .lines()
        .map(|line| line.parse().expect("a sequence"))
        .collect();
    assert_eq!(stored.len() as u64, entries, "one row per entry, none missing");
    assert!(acknowledged.is_subset(&stored), "every acknowledged command is in the journal");
    // Exactly once: every command of B3 took one entry, and the sequences have no gap.
    let applied = client.sequences["B3"] - sequence_at_start;
    // Each takeover journals the new writer's build (docs/journal.md, "build"); the rest are B3's.
    let written = entries - entries_at_start - TAKEOVERS as u64;
    assert_eq!(written, applied, "{applied} commands applied, {written} entries written for them");
    // And every one of them was answered, the ones in doubt at a kill by the next writer.
    assert_eq!(acknowledged.len() as u64, applied, "each applied command acknowledged once");

    let (code, report, stderr) = tokio::task::block_in_place(|| verify_store(&url, &data(TAKEOVERS)));
    assert_eq!(code, Some(0), "{stderr}\n{report:#}");
    assert_eq!(report["entries"], entries);

    takeovers.sort();
    let median = takeovers[takeovers.len() / 2];
    let max = *takeovers.last().expect("takeovers");
    eprintln!(
        "takeovers: {TAKEOVERS}; acknowledged {} commands, lost 0, doubled 0, resent after a kill {resent}; \
         takeover (kill to the standby's word that it is the writer) median {median:?}, max {max:?}",
        acknowledged.len()
    );
}

/// A table agent given the writer and its standby (`--server A,B`) is back on the standby after
/// the writer is killed, and its next command is acknowledged there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_with_both_addresses_is_back_on_the_standby_after_a_takeover() {
    let (_cluster, url, directory) = salon();
    let first = spawn_standby(&directory.path().join("a"), &url, &directory.path().join("a.log"));
    let first_address = first.taken_over();
    // The standby's port is chosen now: the agent is configured with it before it listens.
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("bound").port();
    let second =
        spawn_standby_on(&directory.path().join("b"), &url, &format!("127.0.0.1:{port}"), &directory.path().join("b.log"));
    tokio::task::block_in_place(|| second.wait_until_waiting());

    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let key = table_agent::key::load(&workspace.join("config/keys.toml"), "B3").expect("the table's key");
    let config = table_agent::AgentConfig {
        server: format!("http://{first_address},http://127.0.0.1:{port}"),
        table: "B3".to_owned(),
        key,
        tls: None,
        monitor_url: None,
    };
    let (input, lines) = tokio::sync::mpsc::channel::<String>(16);
    let (panel, mut output) = tokio::sync::mpsc::channel::<String>(1024);
    tokio::spawn(table_agent::run(config, lines, panel));
    let mut until = async |what: &str, wanted: &dyn Fn(&serde_json::Value) -> bool| -> serde_json::Value {
        loop {
            let line = tokio::time::timeout(std::time::Duration::from_secs(20), output.recv())
                .await
                .unwrap_or_else(|_| panic!("no {what} within 20 s"))
                .expect("the agent runs");
            let value: serde_json::Value = serde_json::from_str(&line).expect("a JSON line");
            if wanted(&value) {
                return value;
            }
        }
    };
    let live = |value: &serde_json::Value| value["type"] == "panel" && value["suspended"] == false;
    until("a live panel", &live).await;
    input.send("open".to_owned()).await.expect("the agent reads");
    let opened = until("the ack of open", &|value| value["type"] == "ack" && value["input"] == "open").await;

    let mut old = first;
    let killed = std::time::Instant::now();
    old.child.kill().expect("SIGKILL");
    old.child.wait().expect("reaped");
    until("a suspended panel", &|value| value["type"] == "panel" && value["suspended"] == true).await;
    let address = tokio::task::block_in_place(|| second.taken_over());
    let takeover = killed.elapsed();
    assert_eq!(address, format!("127.0.0.1:{port}"));
    until("a live panel from the standby", &live).await;
    let back = killed.elapsed();
    input.send("start".to_owned()).await.expect("the agent reads");
    let started = until("the ack of start", &|value| value["type"] == "ack" && value["input"] == "start").await;
    let (opened_at, started_at) = (opened["journal_sequence"].as_u64(), started["journal_sequence"].as_u64());
    assert!(opened_at.is_some() && started_at > opened_at, "the same journal goes on: {opened} then {started}");
    eprintln!("takeover {takeover:?}; the agent live again after {back:?}");
}

/// The hot standby: while another controller writes, it follows the journal in PostgreSQL,
/// serves the same books and signs as the writer, and refuses commands and the tables' watches
/// (UNAVAILABLE, saying it is the standby) without anything journaled. When the writer is killed
/// it takes over on the state it kept, and a sign watching it goes on without a break.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hot_standby_serves_books_and_signs_refuses_commands_and_takes_over_without_a_break() {
    use pozo_proto::v1 as pb;
    use tonic_health::pb::health_client::HealthClient;
    let (_cluster, url, directory) = salon();
    let first = spawn_standby(&directory.path().join("a"), &url, &directory.path().join("a.log"));
    let mut writer = connect(&first.taken_over()).await;
    writer.ok("B3", open()).await;
    for seat in 1..=4 {
        writer.ok("B3", sell(seat, 1)).await;
    }
    let second = spawn_standby(&directory.path().join("b"), &url, &directory.path().join("b.log"));
    tokio::task::block_in_place(|| second.wait_until_waiting());
    assert!(!second.log_text().contains("the writer's lock is ours"), "it must not be the writer yet");
    let mut standby = connect(&second.address).await;
    assert_eq!(standby.journal_id, writer.journal_id, "one journal, announced by both");

    // A sign on the standby, watching the pool the presses feed.
    let watch = pb::WatchDisplays { pool_ids: vec!["iplyc-blackjack".to_owned()], ..Default::default() };
    let mut feed = standby.display.watch(watch).await.expect("the standby serves the display feed").into_inner();
    let mut shown = String::new();
    /// Waits until the sign shows `amount` (the writer's); `shown` is what it last showed.
    async fn sign_shows(feed: &mut tonic::Streaming<pb::DisplayUpdate>, shown: &mut String, amount: &str) {
        while shown != amount {
            let update = tokio::time::timeout(std::time::Duration::from_secs(10), feed.message())
                .await
                .unwrap_or_else(|_| panic!("the standby's sign stayed at {shown}, the writer shows {amount}"))
                .expect("the feed goes on")
                .expect("an update");
            *shown = update.pools[0].displayed.as_ref().expect("an amount").value.clone();
        }
    }

    // Commands at the writer: the standby's books and its sign follow.
    let before = writer.pool("iplyc-blackjack").await.displayed.expect("an amount").value;
    for seat in [1, 2, 3] {
        writer.ok("B3", press(seat)).await;
    }
    writer.ok("B3", start()).await;
    let at_writer = books(&mut writer).await;
    let started = std::time::Instant::now();
    while books(&mut standby).await != at_writer {
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "the standby never caught up with {at_writer:?}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let displayed = writer.pool("iplyc-blackjack").await.displayed.expect("an amount").value;
    assert_ne!(displayed, before, "the round raised the pool");
    sign_shows(&mut feed, &mut shown, &displayed).await;

    // Commands and the table's watch are refused by the standby, and nothing is journaled.
    standby.sequences = writer.sequences.clone();
    // Refused at once, not queued until a takeover.
    let refused = tokio::time::timeout(std::time::Duration::from_secs(5), standby.send("B3", finish()))
        .await
        .expect("answered at once")
        .expect_err("the standby takes no command");
    assert_eq!(refused.code(), tonic::Code::Unavailable, "{refused:?}");
    assert!(refused.message().contains("standby"), "it says why: {}", refused.message());
    let envelope = standby.envelope_as(
        "mesa-B3",
        pozo_proto::Purpose::WatchTable,
        prost::Message::encode_to_vec(&pb::WatchTable { table_id: "B3".to_owned(), ..Default::default() }),
    );
    let refused = standby.table.watch(envelope).await.expect_err("an agent is sent on to the writer");
    assert_eq!(refused.code(), tonic::Code::Unavailable, "{refused:?}");
    let health = |channel: tonic::transport::Channel, service: &'static str| async move {
        let request = tonic_health::pb::HealthCheckRequest { service: service.to_owned() };
        HealthClient::new(channel).check(request).await.expect("health").into_inner().status
    };
    for service in ["pozo.v1.Table", "pozo.v1.VentaPagos"] {
        assert_eq!(health(standby.channel.clone(), service).await, 2, "{service} NOT_SERVING on the standby");
        assert_eq!(health(writer.channel.clone(), service).await, 1, "{service} SERVING on the writer");
    }
    assert_eq!(health(standby.channel.clone(), "pozo.v1.Display").await, 1, "the standby serves the signs");
    assert_eq!(books(&mut writer).await, at_writer, "nothing journaled by the refusals");

    // The writer is killed: the standby takes over on what it kept; the sign never reconnects.
    let mut old = first;
    old.child.kill().expect("SIGKILL");
    old.child.wait().expect("reaped");
    tokio::task::block_in_place(|| second.taken_over());
    let started = std::time::Instant::now();
    while health(standby.channel.clone(), "pozo.v1.Table").await != 1 {
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "the table service never SERVING after the takeover");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    standby.ok("B3", finish()).await;
    standby.ok("B3", press(4)).await;
    standby.ok("B3", start()).await;
    let displayed = standby.pool("iplyc-blackjack").await.displayed.expect("an amount").value;
    assert_ne!(displayed, shown, "the press raised the pool");
    sign_shows(&mut feed, &mut shown, &displayed).await;
    let (entries, _, _) = books(&mut standby).await;
    assert_eq!(entries, at_writer.0 + 4, "the journal goes on from the writer's tip: the takeover's build, three commands");
}

/// A standby finds the writer's tip record no longer sealed by the journal key (rewritten in the
/// database by hand): it stops as for a journal refused (exit 5), saying so, rather than go on
/// serving or take over a journal it cannot check; the writer is untouched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_standby_stops_on_a_tip_record_it_cannot_check() {
    let (cluster, url, directory) = salon();
    let first = spawn_standby(&directory.path().join("a"), &url, &directory.path().join("a.log"));
    let mut writer = connect(&first.taken_over()).await;
    writer.ok("B3", open()).await;
    let mut second = spawn_standby(&directory.path().join("b"), &url, &directory.path().join("b.log"));
    tokio::task::block_in_place(|| second.wait_until_waiting());
    // One bit of the seal (the record's last byte) flipped.
    cluster.sql("salon", "UPDATE pozo_tip SET record = set_byte(record, 71, get_byte(record, 71) # 1)");
    let status = tokio::task::block_in_place(|| {
        pozo_testkit::process::wait_bounded(&mut second.child, std::time::Duration::from_secs(20))
    })
    .unwrap_or_else(|| panic!("the standby went on:\n{}", second.log_text()));
    assert_eq!(status.code(), Some(5), "{}", second.log_text());
    let log = second.log_text();
    assert!(log.contains("standby: the writer's journal is damaged") && log.contains("not sealed"), "{log}");
    assert!(!log.contains("the writer's lock is ours"), "it never took over: {log}");
    // The writer goes on: its next batch writes the tip record anew.
    let entries = writer.journal().await.entries;
    writer.ok("B3", sell(1, 1)).await;
    assert_eq!(writer.journal().await.entries, entries + 1);
}

/// A standby waiting for a journal to begin (another session holds the writer's lock and writes
/// nothing) stops when asked (SIGTERM), at once and cleanly, rather than hang until SIGKILL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_standby_waiting_for_a_journal_stops_when_asked() {
    let (_cluster, url, directory) = salon();
    let (holder, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.expect("connected");
    tokio::spawn(connection);
    holder.query_one("SELECT pg_advisory_lock($1)", &[&pozo_server::journal::postgres::WRITER_LOCK]).await.expect("the lock");
    let log = directory.path().join("standby.log");
    let mut child = std::process::Command::new(BIN)
        .args(["serve", "--standby", "--no-pages", "--listen", "127.0.0.1:0", "--data"])
        .arg(directory.path().join("data"))
        .env("POZO_STORE", &url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&log).expect("a log file"))
        .spawn()
        .expect("pozo-server starts");
    let started = std::time::Instant::now();
    while !std::fs::read_to_string(&log).unwrap_or_default().contains("its journal is not begun yet; waiting") {
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "{}", std::fs::read_to_string(&log).unwrap_or_default());
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let asked = std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill runs");
    assert!(asked.success());
    let status =
        tokio::task::block_in_place(|| pozo_testkit::process::wait_bounded(&mut child, std::time::Duration::from_secs(5)))
            .unwrap_or_else(|| {
                let _ = child.kill();
                panic!("still waiting 5 s after SIGTERM:\n{}", std::fs::read_to_string(&log).unwrap_or_default())
            });
    assert_eq!(status.code(), Some(0), "{}", std::fs::read_to_string(&log).unwrap_or_default());
    drop(holder);
}

/// The database restarts (every connection cut): the writer cannot commit and stops; the standby
/// waits through the restart, connects again, takes the lock and serves the same journal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_database_restart_the_standby_takes_over_and_the_old_writer_stops() {
    let (cluster, url, directory) = salon();
    let first = spawn_standby(&directory.path().join("a"), &url, &directory.path().join("a.log"));
    let mut client = connect(&first.taken_over()).await;
    client.ok("B3", open()).await;
    let entries = client.journal().await.entries;
    let second = spawn_standby(&directory.path().join("b"), &url, &directory.path().join("b.log"));
    tokio::task::block_in_place(|| second.wait_until_waiting());

    tokio::task::block_in_place(|| cluster.restart());
    let address = tokio::task::block_in_place(|| second.taken_over());
    let log = second.log_text();
    assert!(
        log.contains("standby: the database cannot be reached; following again once it can"),
        "the standby lost the database and said so: {log}"
    );

    // The old writer's next batch cannot commit: it is refused, and nothing it answers is durable.
    let refused = client.send("B3", start()).await.expect_err("the old writer cannot commit");
    assert!(matches!(refused.code(), tonic::Code::Unavailable | tonic::Code::Internal | tonic::Code::Unknown), "{refused:?}");
    let mut client_b = connect(&address).await;
    // The takeover journals its build; the refused command is not in the journal.
    assert_eq!(client_b.journal().await.entries, entries + 1, "the refused command is not in the journal");
    client_b.sequences = client.sequences.clone();
    client_b.ok("B3", start()).await;
    assert_eq!(client_b.journal().await.entries, entries + 2);
    drop(first);
}

/// A writer cut off from the database (the database ended its session: the writer's lock is
/// free) does not know it until it next asks the database. The standby takes over and the table
/// goes on there; a command that then reaches the old writer must not be refused from the old
/// writer's state ("skips ahead"), which the new writer has moved past: a refusal waits until the
/// database confirms the lock, so the old writer stops instead (exit 6), journaling nothing, and
/// the agent tries the new one. Found by `pozo-sim vopr` (seed 303 of a sweep of writer and
/// standby seeds).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_writer_cut_off_from_the_database_refuses_nothing_from_its_old_state_and_stops() {
    let (_cluster, url, directory) = salon();
    let mut first = spawn_standby(&directory.path().join("a"), &url, &directory.path().join("a.log"));
    let mut old = connect(&first.taken_over()).await;
    old.ok("B3", open()).await;
    // While it holds the lock, a refusal is answered as ever (the database confirms the lock).
    old.refused("B3", press(4), tonic::Code::FailedPrecondition).await;
    let second = spawn_standby(&directory.path().join("b"), &url, &directory.path().join("b.log"));
    tokio::task::block_in_place(|| second.wait_until_waiting());

    // The database ends the writer's session, as it does one the network cut off.
    let (admin, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.expect("connected");
    tokio::spawn(connection);
    let ended = admin
        .query("SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted", &[])
        .await
        .expect("the writer's session ended");
    assert_eq!(ended.len(), 1, "one session held the writer's lock");
    let mut new = connect(&tokio::task::block_in_place(|| second.taken_over())).await;
    new.sequences = old.sequences.clone();
    new.ok("B3", sell(1, 1)).await;
    new.ok("B3", sell(2, 1)).await;
    let entries = new.journal().await.entries;

    // The table's next command reaches the old writer, whose state still expects the first sell.
    old.sequences = new.sequences.clone();
    let answer = old.send("B3", press(1)).await.expect_err("the old writer answers nothing");
    // No answer (UNAVAILABLE as it stops, or the connection gone with the process): an agent sends
    // it again, to the new writer. Never a refusal from the old writer's state.
    assert!(
        matches!(answer.code(), tonic::Code::Unavailable | tonic::Code::Unknown | tonic::Code::Internal),
        "not refused from the old writer's state: {answer:?}"
    );
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = first.child.try_wait().expect("its status") {
            break status;
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "the old writer goes on:\n{}", first.log_text());
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert_eq!(status.code(), Some(6), "it stops as for a failed flush:\n{}", first.log_text());
    assert!(first.log_text().contains("cannot confirm the writer's lock"), "it says why:\n{}", first.log_text());

    // The command, sent again, is the new writer's to apply.
    assert_eq!(new.journal().await.entries, entries, "nothing journaled by the old writer");
    new.ok("B3", press(1)).await;
    assert_eq!(new.journal().await.entries, entries + 1);
}
