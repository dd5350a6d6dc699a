//! `/metrics` on the pages' listener, scraped from the real controller on 127.0.0.1:0 and
//! parsed as Prometheus text (docs/operations.md §13): each figure follows what was done.

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::*;
use prometheus_parse::{Scrape, Value};
use tonic::Code;

/// A scrape, parsed: (name, sorted labels) → value; histograms as their `_count`.
struct Metrics {
    samples: BTreeMap<(String, String), f64>,
    content_type: String,
}

impl Metrics {
    async fn scrape(base: &str) -> Metrics {
        let response = reqwest::get(format!("{base}/metrics")).await.expect("GET /metrics");
        assert_eq!(response.status(), reqwest::StatusCode::OK);
        let content_type = response.headers()[reqwest::header::CONTENT_TYPE].to_str().expect("ascii").to_owned();
        let text = response.text().await.expect("a body");
        let scrape = Scrape::parse(text.lines().map(|line| Ok(line.to_owned()))).expect("Prometheus text format");
        let mut samples = BTreeMap::new();
        for sample in scrape.samples {
            let labels = {
                let mut pairs: Vec<String> = sample.labels.iter().map(|(name, value)| format!("{name}={value}")).collect();
                pairs.sort();
                pairs.join(",")
            };
            let value = match sample.value {
                Value::Counter(value) | Value::Gauge(value) | Value::Untyped(value) => value,
                Value::Histogram(buckets) => buckets.last().map(|bucket| bucket.count).unwrap_or(0.0),
                Value::Summary(_) => panic!("no summaries are exported: {}", sample.metric),
            };
            samples.insert((sample.metric, labels), value);
        }
        assert!(!samples.is_empty(), "{text}");
        Metrics { samples, content_type }
    }

    /// The value of `name` with exactly `labels` (`"kind=press"`, `""`); 0 when absent
    /// (a counter not yet touched).
    fn value(&self, name: &str, labels: &str) -> f64 {
        self.samples.get(&(name.to_owned(), labels.to_owned())).copied().unwrap_or(0.0)
    }

    fn has(&self, name: &str) -> bool {
        self.samples.keys().any(|(metric, _)| metric == name)
    }
}

/// Centavos of a gRPC amount (`"1234.5"` → 123450).
fn centavos(value: &str) -> f64 {
    let decimal: rust_decimal::Decimal = value.parse().expect("a decimal amount");
    let centavos = (decimal * rust_decimal::Decimal::ONE_HUNDRED).trunc();
    centavos.to_string().parse().expect("a whole number")
}

#[tokio::test]
async fn metrics_are_scraped_parsed_and_follow_the_commands() {
    let server = TestServer::with_pages().await;
    let base = server.pages_url();
    let mut client = server.client().await;

    let before = Metrics::scrape(&base).await;
    assert!(before.content_type.starts_with("text/plain"), "{}", before.content_type);
    for name in [
        "pozo_batch_entries",
        "pozo_flush_seconds",
        "pozo_ack_seconds",
        "pozo_pool_balance_centavos",
        "pozo_pool_displayed_centavos",
        "pozo_pending_payouts",
        "pozo_journal_entries",
        "pozo_agents_connected",
        "pozo_displays_watching",
    ] {
        assert!(before.has(name), "{name} is exported from the start");
    }
    assert_eq!(before.value("pozo_commands_total", "kind=press"), 0.0);
    assert_eq!(before.value("pozo_pending_payouts", ""), 0.0);

    // A round at B3 that leaves an order for Venta-Pagos, and one refusal.
    let _order = client.open_b3_with_a_pending_order(2).await;
    client.refused("B3", press(4), Code::FailedPrecondition).await;
    // B3's agent watching its table.
    let mut panel = client.watch("B3").await;
    panel.message().await.expect("a first panel").expect("a panel");
    // A sign watching the display feed.
    let mut display = client.display.clone();
    let mut feed = display.watch(pozo_proto::v1::WatchDisplays::default()).await.expect("display feed").into_inner();
    feed.message().await.expect("a first update").expect("an update");

    let after = Metrics::scrape(&base).await;
    for (kind, count) in [
        ("open_table", 1.0),
        ("sell_credits", 1.0),
        ("press", 1.0),
        ("start_round", 1.0),
        ("enter_prize", 1.0),
        ("accept", 1.0),
        ("finish_round", 1.0),
    ] {
        assert_eq!(after.value("pozo_commands_total", &format!("kind={kind}")), count, "{kind}");
    }
    assert_eq!(after.value("pozo_refusals_total", "kind=failed_precondition"), 1.0);
    assert_eq!(after.value("pozo_pending_payouts", ""), 1.0, "the order waits for Venta-Pagos");
    let journal = client.journal().await;
    assert_eq!(after.value("pozo_journal_entries", ""), journal.entries as f64);
    let pool = client.pool("iplyc-blackjack").await;
    let balance = pool.balance.as_ref().expect("a balance").value.clone();
    let displayed = pool.displayed.as_ref().expect("an amount on the signs").value.clone();
    assert_eq!(after.value("pozo_pool_balance_centavos", "pool=iplyc-blackjack"), centavos(&balance), "balance {balance}");
    assert_eq!(after.value("pozo_pool_displayed_centavos", "pool=iplyc-blackjack"), centavos(&displayed));
    // Eight submits answered (seven applied, one refused); the seven entries went to the
    // journal in timed batches.
    assert_eq!(after.value("pozo_ack_seconds_count", ""), 8.0);
    assert_eq!(after.value("pozo_batch_entries_sum", ""), 7.0, "every journaled entry in one batch");
    let batches = after.value("pozo_batch_entries_count", "");
    assert!((1.0..=7.0).contains(&batches), "{batches} batches");
    assert_eq!(after.value("pozo_flush_seconds_count", ""), batches, "each batch's flush timed");
    assert_eq!(after.value("pozo_displays_watching", ""), 1.0, "the sign's feed is open");
    assert_eq!(after.value("pozo_agents_connected", ""), 1.0, "B3's agent watches its table");

    // The sign and the agent go away: no longer counted.
    drop(feed);
    drop(panel);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let now = Metrics::scrape(&base).await;
        if now.value("pozo_displays_watching", "") == 0.0 && now.value("pozo_agents_connected", "") == 0.0 {
            break;
        }
        assert!(Instant::now() < deadline, "a closed feed or watch is still counted");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The sample dashboard in `deploy/` asks only for metrics the controller exports.
#[tokio::test]
async fn the_grafana_dashboard_uses_only_exported_metrics() {
    let server = TestServer::with_pages().await;
    let scraped = Metrics::scrape(&server.pages_url()).await;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/grafana-pozo.json");
    let dashboard: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("the dashboard")).expect("JSON");
    let mut asked = Vec::new();
    for panel in dashboard["panels"].as_array().expect("panels") {
        for target in panel["targets"].as_array().expect("targets") {
            asked.extend(pozo_series(target["expr"].as_str().expect("an expression")));
        }
    }
    scraped.exports_all(&asked, "the dashboard");
}

/// The `pozo_…` series a PromQL expression asks for.
fn pozo_series(expr: &str) -> Vec<String> {
    let mut asked = Vec::new();
    let mut rest = expr;
    while let Some(start) = rest.find("pozo_") {
        let name: String =
            rest[start..].chars().take_while(|c| c.is_ascii_lowercase() || *c == '_' || c.is_ascii_digit()).collect();
        rest = &rest[start + name.len()..];
        asked.push(name);
    }
    asked
}

impl Metrics {
    /// Every series `asked` (by `who`) is exported; at least ten are asked for.
    fn exports_all(&self, asked: &[String], who: &str) {
        assert!(asked.len() >= 10, "{who}: {asked:?}");
        for name in asked {
            // Histogram buckets are folded into the histogram's own name by the parser.
            let exported = name.strip_suffix("_bucket").unwrap_or(name);
            assert!(self.has(exported), "{who} asks for {name}, which /metrics does not export");
        }
    }
}

/// Served as the scraper asks: OpenMetrics (its content type, `# EOF`, a counter's family named
/// without `_total`) to a Prometheus server's `Accept`, the classic text format otherwise, where
/// a counter's HELP and TYPE name its samples (`pozo_commands_total`), so that a parser of the
/// classic format keeps its type and help.
#[tokio::test]
async fn metrics_are_served_in_the_format_the_scraper_asks_for() {
    let server = TestServer::with_pages().await;
    let base = server.pages_url();
    let http = reqwest::Client::new();
    let get = |accept: Option<&'static str>| {
        let mut request = http.get(format!("{base}/metrics"));
        if let Some(accept) = accept {
            request = request.header(reqwest::header::ACCEPT, accept);
        }
        async move {
            let response = request.send().await.expect("GET /metrics");
            assert_eq!(response.status(), reqwest::StatusCode::OK);
            let content_type = response.headers()[reqwest::header::CONTENT_TYPE].to_str().expect("ascii").to_owned();
            (content_type, response.text().await.expect("a body"))
        }
    };
    // What Prometheus 2.x sends.
    let prometheus = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,\
                      text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
    let (content_type, openmetrics) = get(Some(prometheus)).await;
    assert_eq!(content_type, "application/openmetrics-text; version=1.0.0; charset=utf-8");
    assert!(openmetrics.ends_with("# EOF\n"), "{openmetrics}");
    assert!(openmetrics.contains("# TYPE pozo_commands counter\n"), "{openmetrics}");
    assert!(openmetrics.contains("pozo_commands_total{kind=\"press\"} 0\n"), "{openmetrics}");

    for accept in [None, Some("text/plain"), Some("application/openmetrics-text;q=0, text/plain;version=0.0.4")] {
        let (content_type, text) = get(accept).await;
        assert_eq!(content_type, "text/plain; version=0.0.4; charset=utf-8", "{accept:?}");
        assert!(!text.contains("# EOF") && !text.contains("# UNIT"), "{text}");
        for counter in ["pozo_commands_total", "pozo_refusals_total", "pozo_retries_total"] {
            assert!(text.contains(&format!("# TYPE {counter} counter\n")), "{counter}: {text}");
            assert!(text.contains(&format!("# HELP {counter} ")), "{counter}: {text}");
        }
        // The same samples in both, but for the lines that name families (a family's series
        // come in no fixed order).
        let samples = |body: &str| -> Vec<String> {
            let mut samples: Vec<String> = body.lines().filter(|line| !line.starts_with('#')).map(str::to_owned).collect();
            samples.sort();
            samples
        };
        assert_eq!(samples(&text), samples(&openmetrics), "{accept:?}");
        let scrape = Scrape::parse(text.lines().map(|line| Ok(line.to_owned()))).expect("the classic text format");
        assert!(scrape.docs.contains_key("pozo_commands_total"), "the counter keeps its help: {:?}", scrape.docs.keys());
        let press = scrape.samples.iter().find(|sample| sample.metric == "pozo_commands_total").expect("a counter sample");
        assert!(matches!(press.value, Value::Counter(_)), "the counter keeps its type: {:?}", press.value);
    }
}

/// The floor's gauges the alerts read (deploy/pozo-alerts.yml): serving, each table open and its
/// agent there, the age of the oldest payout order by the controller's clock, the books tied.
#[tokio::test]
async fn the_floor_s_gauges_follow_the_tables_the_orders_and_the_books() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let night: u64 = 1_795_305_600_000 + 23 * 3_600_000; // 2026-11-22 20:00, UTC-03:00
    let clock = std::sync::Arc::new(pozo_server::clock::ManualClock::at(night));
    let options = pozo_server::ServeOptions {
        clock: clock.clone(),
        pages: Some("127.0.0.1:0".parse().expect("an address")),
        ..Default::default()
    };
    let server = TestServer::start_with(directory.path().join("data"), options).await;
    let base = server.pages_url();
    let mut client = server.client().await;

    let before = Metrics::scrape(&base).await;
    assert_eq!(before.value("pozo_serving", ""), 1.0);
    assert_eq!(before.value("pozo_table_open", "pool=iplyc-blackjack,table=B3"), 0.0);
    assert_eq!(before.value("pozo_payout_oldest_pending_seconds", ""), 0.0, "no order waits");

    let _order = client.open_b3_with_a_pending_order(2).await;
    clock.advance(17 * 60 * 1_000);
    let mut panel = client.watch("B3").await;
    panel.message().await.expect("a first panel").expect("a panel");
    let after = Metrics::scrape(&base).await;
    assert_eq!(after.value("pozo_table_open", "pool=iplyc-blackjack,table=B3"), 1.0, "B3 is open");
    assert_eq!(after.value("pozo_table_open", "pool=iplyc-blackjack,table=B1"), 0.0, "B1 is not");
    assert_eq!(after.value("pozo_table_agent_connected", "pool=iplyc-blackjack,table=B3"), 1.0);
    assert_eq!(after.value("pozo_table_agent_connected", "pool=iplyc-blackjack,table=B1"), 0.0);
    assert_eq!(after.value("pozo_payout_oldest_pending_seconds", ""), 17.0 * 60.0, "the order has waited 17 minutes");
    assert_eq!(after.value("pozo_books_tied", ""), 1.0, "the jornada's books tie");
    assert_eq!(after.value("pozo_books_difference_centavos", "pool=iplyc-blackjack"), 0.0);
    assert!(after.has("pozo_books_difference_centavos"));

    // B3's agent goes: the open table is without it (what PozoMesaSinAgente waits two minutes for).
    drop(panel);
    let deadline = Instant::now() + Duration::from_secs(10);
    while Metrics::scrape(&base).await.value("pozo_table_agent_connected", "pool=iplyc-blackjack,table=B3") != 0.0 {
        assert!(Instant::now() < deadline, "B3's agent is still counted");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // The next jornada, nothing journaled in it yet: no money moved since it opened, so its
    // books are tied (not an alert at every jornada's start), with no difference to show.
    clock.advance(24 * 3_600_000);
    let next = Metrics::scrape(&base).await;
    assert_eq!(next.value("pozo_books_tied", ""), 1.0);
    assert!(!next.has("pozo_books_difference_centavos"), "no books kept for the new jornada yet");
    assert_eq!(next.value("pozo_payout_oldest_pending_seconds", ""), (17.0 * 60.0) + 24.0 * 3_600.0);
}

/// The shipped alert rules ask only for series the controller exports (and node_exporter's
/// systemd unit state, and `up`).
#[tokio::test]
async fn the_alert_rules_ask_only_for_exported_metrics() {
    let server = TestServer::with_pages().await;
    let scraped = Metrics::scrape(&server.pages_url()).await;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/pozo-alerts.yml");
    let rules = std::fs::read_to_string(&path).expect("the rules");
    let asked: Vec<String> = rules.lines().filter_map(|line| line.trim().strip_prefix("expr: ")).flat_map(pozo_series).collect();
    scraped.exports_all(&asked, "the alert rules");
}
