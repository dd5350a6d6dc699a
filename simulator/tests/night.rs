//! Simulated nights through real agents against a real controller (embedded in
//! the test on 127.0.0.1:0 with a temporary sled directory, or run as the
//! `pozo-sim` binary): the books close, the same seed gives the same books, a
//! recorded night replays to the same books, and a tampered one does not.

use std::process::Command;

use pozo_sim::casino::Rulebooks;
use pozo_sim::night::{self, Pace, RunOptions};

const BIN: &str = env!("CARGO_BIN_EXE_pozo-sim");

fn options(tables: usize, rounds: u32, seed: u64) -> RunOptions {
    RunOptions {
        tables,
        rounds,
        seed,
        server: None,
        layout: None,
        keys: None,
        bet_percent: 70,
        record: None,
        progress: false,
        rulebooks: Rulebooks::Regulations,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_night_closes_its_books_and_the_same_seed_gives_the_same_books() {
    let first = night::run(options(16, 12, 7)).await.expect("a night");
    assert_eq!(first.books, "ok", "{:?}", first.differences);
    assert_eq!((first.lights_without_record, first.records_without_light), (0, 0));
    assert_eq!(first.verify, "ok");
    // Every pool and every table of the night's jornada tied to zero over gRPC, and the
    // jornada's evidence made and verified offline (docs/journal.md).
    assert_eq!(first.reconciliation, "ok");
    assert_eq!(first.evidence.verdict, "conforme");
    assert!(first.evidence.jornadas >= 1 && first.evidence.entries == first.journal_entries, "{:?}", first.evidence);
    assert_eq!(first.refused, 0, "{:?}", first.differences);
    // Every game was played: 16 tables, two of each of the eight games, with bets in every pool.
    assert_eq!(first.pools.len(), 6, "{:?}", first.pools.keys());
    assert!(first.pools.values().all(|pool| pool.bets > 0), "{:?}", first.pools);
    assert!(first.side_bets > 100 && first.lights_on == first.side_bets, "{} bets, {} lights", first.side_bets, first.lights_on);
    assert!(first.awards.parse::<rust_decimal::Decimal>().expect("decimal") > rust_decimal::Decimal::ZERO);

    let again = night::run(options(16, 12, 7)).await.expect("a night");
    assert_eq!(again.books_sha256, first.books_sha256, "the same seed, the same books");
    assert_eq!(again.pools, first.pools);
    let other = night::run(options(16, 12, 8)).await.expect("a night");
    assert_ne!(other.books_sha256, first.books_sha256, "another seed, another night");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorded_night_replays_to_the_same_books_and_a_tampered_one_does_not() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let record = directory.path().join("night.jsonl");
    let played = night::run(RunOptions { record: Some(record.clone()), ..options(9, 8, 3) }).await.expect("a night");
    assert_eq!(played.books, "ok", "{:?}", played.differences);

    let replayed = night::replay(&record, Pace::Fast, None).await.expect("a replay");
    assert!(replayed.same_books, "{} ≠ {}", replayed.night.books_sha256, replayed.recorded_books_sha256);
    assert_eq!(replayed.night.books, "ok", "{:?}", replayed.night.differences);
    assert_eq!(replayed.night.side_bets, played.side_bets);
    assert_eq!(replayed.night.extra_balls, played.extra_balls, "the extra balls are reported as recorded");

    // One press taken out of the record: the replay ends in other books.
    let text = std::fs::read_to_string(&record).expect("the record");
    let tampered_text = text.replacen(",\"press 1\"", "", 1);
    assert_ne!(tampered_text, text, "the record has a press of seat 1 to take out");
    let tampered = directory.path().join("tampered.jsonl");
    std::fs::write(&tampered, tampered_text).expect("written");
    let replayed = night::replay(&tampered, Pace::Fast, None).await.expect("a replay");
    assert!(!replayed.same_books, "a night with one bet less has other books");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_night_against_a_running_controller_with_its_layout_and_keys() {
    // The controller as `pozo-server serve` runs it by default: the embedded layout and keys.
    let directory = tempfile::tempdir().expect("a temporary directory");
    let server =
        pozo_server::Embedded::start(pozo_server::config::Config::embedded(), &directory.path().join("data"), Default::default())
            .await
            .expect("a controller");
    let report =
        night::run(RunOptions { server: Some(server.url.clone()), ..options(17, 6, 5) }).await.expect("a night on the 17 tables");
    assert_eq!(report.books, "ok", "{:?}", report.differences);
    assert_eq!((report.lights_without_record, report.records_without_light), (0, 0));
    assert!(report.verify.starts_with("not run"), "{}", report.verify);
    assert_eq!(report.reconciliation, "ok", "reconciled over gRPC against a running controller too");
    // A second night on the same controller: its books are the differences from its own start.
    let second = night::run(RunOptions { server: Some(server.url.clone()), ..options(17, 4, 6) }).await.expect("a second night");
    assert_eq!(second.books, "ok", "{:?}", second.differences);
    assert!(night::run(RunOptions { server: Some(server.url.clone()), ..options(18, 1, 1) }).await.is_err(), "18 tables of 17");
    server.stop().await.expect("stopped");
    let verified =
        pozo_server::tools::verify::verify_data(&directory.path().join("data"), &pozo_server::config::Config::embedded())
            .expect("verify runs");
    assert!(verified.ok());
}

#[test]
fn the_binary_writes_the_json_the_issue_names_and_replays_its_record() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let json = directory.path().join("out.json");
    let record = directory.path().join("night.jsonl");
    let output = Command::new(BIN)
        .args(["run", "--tables", "8", "--rounds", "5", "--seed", "11", "--json"])
        .arg(&json)
        .arg("--record")
        .arg(&record)
        .output()
        .expect("pozo-sim runs");
    assert!(output.status.success(), "{}\n{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("JSON");
    for field in ["tables", "rounds", "side_bets", "presses_per_s", "lights_without_record", "records_without_light", "books"] {
        assert!(!report[field].is_null(), "{field} in {report}");
    }
    for field in ["contributions", "awards", "replenishments"] {
        assert!(report[field].as_str().is_some_and(|text| text.parse::<rust_decimal::Decimal>().is_ok()), "{field}: {report}");
    }
    for field in ["p50", "p99", "max"] {
        assert!(report["ack_latency_ms"][field].as_f64().is_some_and(|ms| ms > 0.0), "{field}: {report}");
    }
    assert_eq!(report["books"], "ok");
    assert_eq!(report["tables"], 8);

    let replay = Command::new(BIN).arg("replay").arg(&record).output().expect("pozo-sim runs");
    let text = String::from_utf8_lossy(&replay.stdout);
    assert!(replay.status.success(), "{text}\n{}", String::from_utf8_lossy(&replay.stderr));
    assert!(text.contains("the same books as the recorded books"), "{text}");

    let refused = Command::new(BIN).args(["run", "--tables", "0"]).output().expect("pozo-sim runs");
    assert_eq!(refused.status.code(), Some(2));
    let missing = Command::new(BIN).args(["replay"]).arg(directory.path().join("none.jsonl")).output().expect("pozo-sim runs");
    assert_eq!(missing.status.code(), Some(2));
}

/// Signs a table command with the table's key from the embedded example keys.
fn envelope(
    config: &pozo_server::config::Config,
    journal_id: &str,
    table: &str,
    sequence: u64,
    command: pozo_proto::v1::table_command::Command,
) -> pozo_proto::v1::Envelope {
    use prost::Message;
    let key = pozo_sim::casino::table_key(config, table).expect("a key");
    let payload =
        pozo_proto::v1::TableCommand { table_id: table.to_owned(), sequence, command: Some(command), ..Default::default() }
            .encode_to_vec();
    pozo_proto::sign(&key.id, &key.secret, pozo_proto::Purpose::TableCommand, journal_id, payload)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sale_the_agents_never_made_is_caught_by_the_books() {
    use pozo_proto::v1 as pb;
    let directory = tempfile::tempdir().expect("a temporary directory");
    let config = pozo_server::config::Config::embedded();
    let server = pozo_server::Embedded::start(config.clone(), &directory.path().join("data"), Default::default())
        .await
        .expect("a controller");
    let night = tokio::spawn(night::run(RunOptions { server: Some(server.url.clone()), ..options(17, 40, 9) }));
    // Somebody else with table B1's key sells a credit while the night is played. (A press
    // could be the very bytes the agent sends at that sequence, which the controller takes
    // as a retry of the agent's own; the night's dealers sell 5 credits at a time, never 1.)
    let channel = tonic::transport::Endpoint::from_shared(server.url.clone()).expect("url").connect().await.expect("connected");
    let journal_id = pb::controller_client::ControllerClient::new(channel.clone())
        .identify(pb::IdentifyRequest {})
        .await
        .expect("identify")
        .into_inner()
        .journal_id;
    let mut table = pb::table_client::TableClient::new(channel);
    let mut rogue_sales = 0;
    while rogue_sales == 0 && !night.is_finished() {
        // B1 as the controller has it now: its next sequence.
        let view = {
            use prost::Message;
            let payload = pb::WatchTable { table_id: "B1".into(), ..Default::default() }.encode_to_vec();
            let key = pozo_sim::casino::table_key(&config, "B1").expect("a key");
            match table.watch(pozo_proto::sign(&key.id, &key.secret, pozo_proto::Purpose::WatchTable, &journal_id, payload)).await
            {
                Ok(stream) => stream.into_inner().message().await.ok().flatten().and_then(|event| event.table),
                Err(_) => None,
            }
        };
        let Some(view) = view else { continue };
        let sale = pb::table_command::Command::SellCredits(pb::SellCredits { seat: 7, credits: 1 });
        if table.submit(envelope(&config, &journal_id, "B1", view.last_sequence + 1, sale)).await.is_ok() {
            rogue_sales += 1;
        }
    }
    let report = night.await.expect("the night task").expect("a night");
    assert_eq!(rogue_sales, 1, "the rogue sale went in while the night was played");
    assert_ne!(report.books, "ok", "a sale nobody at the table made must not close the books");
    assert!(
        report.differences.iter().any(|difference| difference.starts_with("table B1:")),
        "the difference names table B1: {:?}",
        report.differences
    );
    server.stop().await.expect("stopped");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_night_refuses_a_controller_with_other_settings_or_a_table_left_open() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    // A controller keeping a generated casino: the embedded layout is not its layout.
    let generated = pozo_sim::casino::generated(8, 1).expect("a casino");
    let server =
        pozo_server::Embedded::start(generated, &directory.path().join("a"), Default::default()).await.expect("a controller");
    let error =
        night::run(RunOptions { server: Some(server.url.clone()), ..options(8, 1, 1) }).await.expect_err("other settings");
    assert!(error.to_string().contains("runs other settings"), "{error:#}");
    server.stop().await.expect("stopped");

    // The embedded casino with table B1 left open by a night cut short.
    let config = pozo_server::config::Config::embedded();
    let server = pozo_server::Embedded::start(config.clone(), &directory.path().join("b"), Default::default())
        .await
        .expect("a controller");
    let channel = tonic::transport::Endpoint::from_shared(server.url.clone()).expect("url").connect().await.expect("connected");
    let journal_id = pozo_proto::v1::controller_client::ControllerClient::new(channel.clone())
        .identify(pozo_proto::v1::IdentifyRequest {})
        .await
        .expect("identify")
        .into_inner()
        .journal_id;
    let mut table = pozo_proto::v1::table_client::TableClient::new(channel);
    let open = pozo_proto::v1::table_command::Command::OpenTable(pozo_proto::v1::OpenTable {});
    table.submit(envelope(&config, &journal_id, "B1", 1, open)).await.expect("opened");
    let error = night::run(RunOptions { server: Some(server.url.clone()), ..options(17, 1, 1) }).await.expect_err("B1 open");
    assert!(error.to_string().contains("table B1 is `apuestas`, not closed"), "{error:#}");
    server.stop().await.expect("stopped");
}

/// `pozo-sim run --plot`: the binary plays a night, prints the pools' table and draws each
/// pool's balance after every round; the series ends where the pool's books end.
#[test]
fn run_prints_the_pools_table_and_plots_every_pools_balance_round_by_round() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let plot = directory.path().join("night.svg");
    let json = directory.path().join("night.json");
    let output = Command::new(BIN)
        .args(["run", "--tables", "8", "--rounds", "3", "--seed", "4", "--plot"])
        .arg(&plot)
        .arg("--json")
        .arg(&json)
        .output()
        .expect("pozo-sim runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("the JSON")).expect("JSON");
    let balances = report["balances"].as_array().expect("the balance series");
    assert_eq!(balances.len(), 4, "before the first round and after each of the 3");
    let rounds: Vec<u64> = balances.iter().map(|point| point["round"].as_u64().expect("a round")).collect();
    assert_eq!(rounds, [0, 1, 2, 3]);
    let pools = report["pools"].as_object().expect("the pools");
    // The table: a header and one line per pool, amounts the Argentine way.
    assert!(stdout.contains("contributions") && stdout.contains("balance"), "{stdout}");
    for (pool, books) in pools {
        let line = stdout.lines().find(|line| line.starts_with(pool.as_str())).unwrap_or_else(|| panic!("{pool}: {stdout}"));
        let balance: rust_decimal::Decimal = books["balance"].as_str().expect("a balance").parse().expect("a decimal");
        assert!(line.contains(&pozo_engine::format_ars(pozo_engine::Money::new(balance))), "{line}");
        // The last point of the series is the balance the books end with... before the tables close
        // nothing moves a pool, so they are the same.
        let last: rust_decimal::Decimal =
            balances[3]["pools"][pool].as_str().expect("the pool in the series").parse().expect("a decimal");
        assert_eq!(last, balance, "{pool}");
    }
    // The chart: an SVG with one line and one legend entry per pool.
    let svg = std::fs::read_to_string(&plot).expect("the plot was written");
    assert!(svg.starts_with("<svg") || svg.contains("<svg "), "{}", &svg[..svg.len().min(200)]);
    // One line of 4 points per pool (the legend's marks are lines of 2 points; the grid is thinner).
    let series = svg
        .split("<polyline")
        .skip(1)
        .filter(|element| element.contains("stroke-width=\"2\""))
        .filter(|element| {
            let points = element.split("points=\"").nth(1).and_then(|rest| rest.split('"').next()).unwrap_or_default();
            points.split_whitespace().count() == 4
        })
        .count();
    assert_eq!(series, pools.len(), "one line per pool, a point per round");
    for pool in pools.keys() {
        assert!(svg.contains(pool.as_str()), "{pool} in the legend");
    }
}
