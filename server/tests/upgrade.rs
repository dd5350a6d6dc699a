//! Upgrades (issue "A casino's year", point 5): a journal written by a previous release is
//! served by this one. The fixture is a `pozo-server backup` made by the release at commit
//! 7a2c150 (`tests/data/previous-release/README.md` says how, `make.sh` makes it again): a
//! night of the 17 tables of the embedded layout, then B3 left open with a payout order
//! PENDIENTE DE PAGO and a bet pressed, with a snapshot stored at entry 623 of 639.
//!
//! The real binary checks it (`verify`), brings it into service (`restore`), serves it from the
//! old snapshot with every pool, the order and the table exactly as that release reported them,
//! takes more commands on top, stops, and `verify` accepts the whole journal. Every figure
//! asserted here is that release's own output (the fixture's `status.json` and `verify.json`),
//! never this build's.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::*;
use pozo_proto::v1 as pb;
use pozo_testkit::process::ServerProcess;
use rust_decimal::Decimal;

/// The previous release's journal and what it reported.
const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/previous-release/7a2c150");

/// The release's journal: its id, length, last hash and stored snapshot (`backup.txt`, `verify.json`).
const RELEASE_JOURNAL_ID: &str = "848c963ca8a2bf06c5cca8ff3a7b923b-1";
const RELEASE_ENTRIES: u64 = 639;
const RELEASE_TIP: &str = "f17f6ce2fd9d7573f1136904263390fdf0b61e5f7855f559462e0f53392fa02c";
const RELEASE_SNAPSHOT_AT: u64 = 623;

/// Every pool as the release served it (`status.json`) and verified it (`verify.json`).
struct ReleasePool {
    pool: &'static str,
    balance: &'static str,
    displayed: &'static str,
    reserve: &'static str,
    awards: &'static str,
    hits: u64,
}

const RELEASE_POOLS: [ReleasePool; 6] = [
    ReleasePool { pool: "aj-poker", balance: "20322.00", displayed: "20322.00", reserve: "92.00", awards: "0.00", hits: 0 },
    ReleasePool { pool: "and-bolsa", balance: "3009.10", displayed: "3009.10", reserve: "0.00", awards: "0.00", hits: 0 },
    ReleasePool { pool: "and-carrusel", balance: "5010.50", displayed: "5010.50", reserve: "0.00", awards: "0.00", hits: 0 },
    ReleasePool {
        pool: "iplyc-blackjack",
        balance: "4343.20",
        displayed: "5000.00",
        reserve: "0.00",
        awards: "1085.80",
        hits: 1,
    },
    ReleasePool {
        pool: "iplyc-central-poker",
        balance: "10226.00",
        displayed: "10226.00",
        reserve: "0.00",
        awards: "60.00",
        hits: 2,
    },
    ReleasePool { pool: "iplyc-ruleta", balance: "21345.50", displayed: "21345.50", reserve: "0.00", awards: "0.00", hits: 3 },
];

/// The order the release left PENDIENTE DE PAGO (`status.json`, `agent.jsonl`).
const RELEASE_ORDER: &str = "OP-000001";
const RELEASE_ORDER_AMOUNT: &str = "1085.80";
/// B3's last command in the release's journal (`agent.jsonl`: `press 5`, table sequence 48).
const RELEASE_B3_LAST_SEQUENCE: u64 = 48;

/// What one side bet at Black Jack puts in its pool: 65% (11.2.3) of the $10 side bet (11.4.1),
/// the release's `config/iplyc.toml`, which the journal's genesis records.
const BLACKJACK_CONTRIBUTION: &str = "6.50";

fn decimal(text: &str) -> Decimal {
    text.parse().unwrap_or_else(|error| panic!("`{text}` is not an amount: {error}"))
}

/// The fixture's path, or a loud failure: without it this test proves nothing.
fn fixture(relative: &str) -> PathBuf {
    let path = Path::new(FIXTURE).join(relative);
    assert!(
        path.exists(),
        "the previous release's journal is missing: {} does not exist. It is committed with the repository \
         (server/tests/data/previous-release/); if it was lost, make it again with that directory's make.sh \
         on a checkout of commit 7a2c150 (its README.md) and update the figures of server/tests/upgrade.rs",
        path.display()
    );
    path
}

/// The release's configuration files, as flags: the layout and rulebooks the journal was started
/// with (its genesis), and the keys whose journal key sealed it.
fn release_settings() -> Vec<String> {
    let mut flags = Vec::new();
    flags.push("--config".to_owned());
    flags.push(fixture("config/casino.toml").display().to_string());
    for rulebook in ["iplyc", "aj-bolivia", "andalucia"] {
        flags.push("--rulebook".to_owned());
        flags.push(fixture(&format!("config/{rulebook}.toml")).display().to_string());
    }
    flags.extend(release_keys());
    flags
}

fn release_keys() -> Vec<String> {
    vec!["--keys".to_owned(), fixture("config/keys.toml").display().to_string()]
}

/// Copies the files under `from` into `to` (git keeps no empty directory; sled makes its own).
fn copy_files(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a directory");
    for entry in std::fs::read_dir(from).expect("the fixture is readable") {
        let path = entry.expect("an entry").path();
        let target = to.join(path.file_name().expect("a name"));
        if path.is_dir() {
            copy_files(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("copied");
        }
    }
}

/// `pozo-server verify --data DATA` with the release's keys: its JSON report, which must say ok.
async fn verify_ok(data: &Path) -> serde_json::Value {
    let mut args = vec!["verify".to_owned(), "--data".to_owned(), data.display().to_string()];
    args.extend(release_keys());
    let output = run(args).await;
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("verify prints JSON ({error}): {}", text(&output)));
    assert_eq!(output.status.code(), Some(0), "verify: {report:#}\n{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(report["chain"], "ok", "{report:#}");
    assert_eq!(report["conservation"], "ok", "{report:#}");
    assert_eq!(report["snapshot"], "ok", "the release's snapshot is the replayed state at its entry: {report:#}");
    report
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_journal_written_by_release_7a2c150_is_served_and_verified_by_this_build() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    // Never opened in place: sled may write where it opens.
    let backup = directory.path().join("release-backup");
    copy_files(&fixture("backup"), &backup);
    assert!(backup.join("db").is_file(), "the fixture's backup has its sled `db` file");

    // This build replays the release's journal from entry 1 to the release's books.
    let report = verify_ok(&backup).await;
    assert_eq!(report["entries"], RELEASE_ENTRIES, "{report:#}");
    assert_eq!(report["tip"], RELEASE_TIP, "{report:#}");
    for pool in &RELEASE_POOLS {
        let verified = &report["pools"][pool.pool];
        let field = |name: &str| decimal(verified[name].as_str().unwrap_or_else(|| panic!("{}.{name}: {report:#}", pool.pool)));
        assert_eq!(field("balance"), decimal(pool.balance), "verify: {} balance", pool.pool);
        assert_eq!(field("displayed"), decimal(pool.displayed), "verify: {} displayed", pool.pool);
        assert_eq!(field("reserve"), decimal(pool.reserve), "verify: {} reserve", pool.pool);
        assert_eq!(field("awards"), decimal(pool.awards), "verify: {} awards", pool.pool);
        assert_eq!(verified["hits"], pool.hits, "verify: {} hits", pool.pool);
    }
    assert_eq!(report["pools"].as_object().map(|pools| pools.len()), Some(RELEASE_POOLS.len()), "{report:#}");

    // Brought into service as operators do (docs/operations.md §6): a new epoch of the same journal.
    let data = directory.path().join("data");
    let mut args = vec!["restore".to_owned(), "--from".to_owned(), backup.display().to_string()];
    args.extend(["--data".to_owned(), data.display().to_string()]);
    args.extend(release_keys());
    let restored = run(args).await;
    assert_eq!(restored.status.code(), Some(0), "restore: {}", text(&restored));
    assert!(
        String::from_utf8_lossy(&restored.stdout).contains(&format!("restored {RELEASE_ENTRIES} entries")),
        "{}",
        text(&restored)
    );

    // The real binary on it, with the release's settings. The release's snapshot (entry
    // RELEASE_SNAPSHOT_AT) has no roulette series numbers (3.7.3, `Data::series_numbered`): the
    // start replays the journal from its first entry instead, once, so the live state is exactly
    // the replayed one (docs/operations.md §8, "Upgrades").
    let settings = release_settings();
    let log = directory.path().join("server.log");
    let mut server = {
        let (data, log) = (data.clone(), log.clone());
        tokio::task::spawn_blocking(move || {
            let extra: Vec<&str> = settings.iter().map(String::as_str).collect();
            ServerProcess::spawn(Path::new(BIN), &data, "127.0.0.1:0", &extra, &log)
        })
        .await
        .expect("pozo-server")
    };
    let recovered = server.log_text();
    assert!(
        recovered.contains(&format!("entries={RELEASE_ENTRIES} from_snapshot=0")),
        "the start replays from zero, not from the release's snapshot at entry {RELEASE_SNAPSHOT_AT}:\n{recovered}"
    );
    let config = pozo_server::config::load(
        Some(&fixture("config/casino.toml")),
        &["iplyc", "aj-bolivia", "andalucia"].map(|rulebook| fixture(&format!("config/{rulebook}.toml"))),
        Some(&fixture("config/keys.toml")),
    )
    .expect("the release's settings load");
    let mut client = connect_with(&server.address, config).await;
    let installation = RELEASE_JOURNAL_ID.rsplit_once('-').expect("installation-epoch").0;
    assert!(
        client.journal_id.starts_with(&format!("{installation}-")) && client.journal_id != RELEASE_JOURNAL_ID,
        "the release's installation, a new epoch: {}",
        client.journal_id
    );
    // This build is new to the journal: its version and executable's SHA-256 are journaled at
    // start, after the release's last entry (docs/operations.md §8, "Upgrades").
    let journal = client.journal().await;
    assert_eq!(journal.entries, RELEASE_ENTRIES + 1, "the release's entries and this build's record");
    let entries = client
        .reports
        .entries(pb::JournalEntriesRequest { after: RELEASE_ENTRIES - 1, limit: 2 })
        .await
        .expect("Reports/Entries")
        .into_inner()
        .entries;
    assert_eq!(entries[0].hash, RELEASE_TIP, "the release's tip is unchanged");
    let record: serde_json::Value = serde_json::from_str(&entries[1].record_json).expect("JSON");
    assert_eq!(record["command"]["kind"], "build", "{record}");
    assert_eq!(record["command"]["build"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(record["command"]["build"]["sha256"].as_str().map(str::len), Some(64), "{record}");

    // Every pool exactly as the release served it.
    let served: BTreeMap<String, pb::PoolStatus> = client
        .pools
        .status(pb::PoolStatusRequest { pool_ids: vec![] })
        .await
        .expect("Pools/Status")
        .into_inner()
        .pools
        .into_iter()
        .map(|pool| (pool.pool_id.clone(), pool))
        .collect();
    assert_eq!(
        served.keys().map(String::as_str).collect::<Vec<_>>(),
        RELEASE_POOLS.iter().map(|pool| pool.pool).collect::<Vec<_>>(),
        "the release's pools"
    );
    for pool in &RELEASE_POOLS {
        let status = &served[pool.pool];
        assert_eq!(decimal(&amount(&status.balance)), decimal(pool.balance), "{} balance", pool.pool);
        assert_eq!(decimal(&amount(&status.displayed)), decimal(pool.displayed), "{} displayed", pool.pool);
        let report = client.pool(pool.pool).await;
        assert_eq!(decimal(&amount(&report.balance)), decimal(pool.balance), "{} reported balance", pool.pool);
        assert_eq!(decimal(&amount(&report.reserve)), decimal(pool.reserve), "{} reserve", pool.pool);
        assert_eq!(decimal(&amount(&report.awards)), decimal(pool.awards), "{} awards", pool.pool);
        assert_eq!(report.hits, pool.hits, "{} hits", pool.pool);
    }

    // The order the release left pending, still pending, with its facts.
    let pending: Vec<pb::PayoutOrder> = client.orders().await.into_iter().filter(|order| order.status == "pendiente").collect();
    assert_eq!(pending.len(), 1, "one order pending: {pending:?}");
    let order = &pending[0];
    assert_eq!(
        (order.order_id.as_str(), order.pool_id.as_str(), order.table_id.as_str(), order.seat, order.code.as_str()),
        (RELEASE_ORDER, "iplyc-blackjack", "B3", 2, "TRES_SIETES_MISMO_PALO"),
        "{order:?}"
    );
    assert_eq!(decimal(&amount(&order.amount)), decimal(RELEASE_ORDER_AMOUNT));

    // B3 as the release left it: betting open, seat 5's bet pressed; its next sequence is the
    // one after the last the journal holds for it.
    let b3 = client.view("B3").await;
    assert_eq!((b3.state.as_str(), b3.last_sequence), ("apuestas", RELEASE_B3_LAST_SEQUENCE), "{b3:?}");
    assert_eq!(light(&b3, 5), pb::Light::On, "seat 5's bet is recorded: {b3:?}");
    assert_eq!(b3.seats[3].credits, 4, "seat 4 kept 4 of its 5 credits: {b3:?}");
    client.sequences.insert("B3".to_owned(), b3.last_sequence + 1);

    // More on top. A table the night closed opens at its next sequence, sells and takes a bet.
    let b1 = client.view("B1").await;
    assert_eq!(b1.state, "cerrada", "{b1:?}");
    assert!(b1.last_sequence > 0, "B1 played the release's night: {b1:?}");
    client.sequences.insert("B1".to_owned(), b1.last_sequence + 1);
    client.open_with_bets("B1", &[(1, 5)], &[1]).await;
    // B3 goes on: seat 4 presses, the round with seats 4 and 5 is played out.
    client.press_all("B3", &[4]).await;
    client.ok("B3", start()).await;
    client.ok("B3", finish()).await;
    // Venta-Pagos confirms the release's order.
    let confirmed = client.confirm(RELEASE_ORDER, "F-4104-0001").await.expect("the release's order is confirmed");
    assert_eq!(confirmed.status, "confirmada", "{confirmed:?}");

    // The two side bets went into the release's balance.
    let blackjack = client.pool("iplyc-blackjack").await;
    let expected = decimal("4343.20") + Decimal::from(2) * decimal(BLACKJACK_CONTRIBUTION);
    assert_eq!(decimal(&amount(&blackjack.balance)), expected, "{blackjack:?}");
    let served_entries = client.journal().await.entries;
    assert_eq!(served_entries, RELEASE_ENTRIES + 1 + 7, "this build's record, then seven more commands journaled");

    // Stopped; the whole journal, the release's entries and this build's, verifies, mark included.
    drop(client);
    assert!(server.terminate().success(), "a clean stop:\n{}", server.log_text());
    let report = verify_ok(&data).await;
    assert_eq!(report["entries"], served_entries, "{report:#}");
    assert_eq!(report["acknowledged"], "ok", "{report:#}");
    assert_eq!(decimal(report["pools"]["iplyc-blackjack"]["balance"].as_str().expect("a balance")), expected, "{report:#}");
    // The release recorded no build (it predates the record); this one is listed at its entry.
    let builds = report["builds"].as_array().expect("the builds that wrote to the journal");
    assert_eq!(builds.len(), 1, "{report:#}");
    assert_eq!(builds[0]["entry"], RELEASE_ENTRIES + 1, "{report:#}");
}
