//! The tools an operations team already runs accept Pozo as it ships (docs/operations.md §13
//! and §14): `promtool` (Debian's `prometheus`) on a live controller's `/metrics` and on the
//! alert rules in `deploy/`, a real Prometheus server scraping the controller, and
//! `systemd-analyze verify` on the unit file with the binary where the unit expects it.
//!
//! A named suite: `cargo test -p pozo-server --features operators-tools-tests --test
//! operators_tools` (`.ci/run` installs `prometheus` when missing and runs it). Without the
//! tools it fails, saying so.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

const BIN: &str = env!("CARGO_BIN_EXE_pozo-server");

fn deploy() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy")
}

/// A tool the suite needs, or a failure naming the package that has it.
fn tool(name: &str, package: &str) -> PathBuf {
    for directory in ["/usr/bin", "/usr/local/bin", "/bin", "/usr/sbin"] {
        let path = Path::new(directory).join(name);
        if path.exists() {
            return path;
        }
    }
    panic!("`{name}` is missing: install Debian's `{package}` (.ci/run does)");
}

/// Runs `program` with `args`, `input` on its standard input; its status and what it said.
fn run(program: &Path, args: &[&str], input: &str, directory: &Path) -> (Option<i32>, String) {
    use std::io::Write as _;
    let mut child = Command::new(program)
        .args(args)
        .current_dir(directory)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("{}: {error}", program.display()));
    child.stdin.take().expect("piped").write_all(input.as_bytes()).expect("written");
    let output = child.wait_with_output().expect("it ends");
    let said = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    (output.status.code(), said)
}

/// `/metrics` as `accept` asks for it: the content type and the body.
async fn scrape(base: &str, accept: Option<&str>) -> (String, String) {
    let mut request = reqwest::Client::new().get(format!("{base}/metrics"));
    if let Some(accept) = accept {
        request = request.header(reqwest::header::ACCEPT, accept);
    }
    let response = request.send().await.expect("GET /metrics");
    let content_type = response.headers()[reqwest::header::CONTENT_TYPE].to_str().expect("ascii").to_owned();
    (content_type, response.text().await.expect("a body"))
}

/// After a played round (a prize waiting for Venta-Pagos, a refusal), `promtool check metrics`
/// has nothing to say of the classic text; and a real Prometheus server, which asks for
/// OpenMetrics, scrapes the controller and keeps every counter's type and help.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn promtool_and_a_prometheus_server_accept_the_metrics_after_a_played_round() {
    let promtool = tool("promtool", "prometheus");
    let prometheus = tool("prometheus", "prometheus");
    let server = TestServer::with_pages().await;
    let base = server.pages_url();
    let mut client = server.client().await;
    let _order = client.open_b3_with_a_pending_order(2).await;
    client.refused("B3", press(4), tonic::Code::FailedPrecondition).await;

    let (content_type, classic) = scrape(&base, None).await;
    assert!(content_type.starts_with("text/plain; version=0.0.4"), "{content_type}");
    assert!(classic.contains("pozo_commands_total{kind=\"press\"} 1"), "{classic}");
    let work = tempfile::tempdir().expect("a temporary directory");
    let (status, said) = run(&promtool, &["check", "metrics"], &classic, work.path());
    assert_eq!((status, said.trim()), (Some(0), ""), "promtool check metrics on the classic text:\n{said}");

    // The check can fail: the body as it was served before (counters' HELP and TYPE on the
    // family's OpenMetrics name) is what promtool refused.
    let (content_type, openmetrics) = scrape(&base, Some("application/openmetrics-text; version=1.0.0")).await;
    assert!(content_type.starts_with("application/openmetrics-text"), "{content_type}");
    let (status, said) = run(&promtool, &["check", "metrics"], &openmetrics, work.path());
    assert_eq!(status, Some(3), "promtool reads only the classic format: {said}");
    assert!(said.contains("pozo_commands_total no help text"), "{said}");

    // A Prometheus server scrapes the controller (it asks for OpenMetrics first) every second.
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("its address").port();
    let target = base.trim_start_matches("http://");
    std::fs::write(
        work.path().join("prometheus.yml"),
        format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: pozo\n    static_configs:\n      - targets: ['{target}']\n"
        ),
    )
    .expect("the configuration");
    let log = std::fs::File::create(work.path().join("prometheus.log")).expect("a log");
    /// The Prometheus server, killed when the test ends (however it ends).
    struct Killed(std::process::Child);
    impl Drop for Killed {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let _prometheus = Killed(
        Command::new(&prometheus)
            .arg(format!("--config.file={}", work.path().join("prometheus.yml").display()))
            .arg(format!("--storage.tsdb.path={}", work.path().join("data").display()))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("prometheus starts"),
    );
    let api = format!("http://127.0.0.1:{port}/api/v1");
    let http = reqwest::Client::new();
    let started = Instant::now();
    let metadata = loop {
        let answer = async {
            let targets: serde_json::Value = http.get(format!("{api}/targets")).send().await.ok()?.json().await.ok()?;
            let up = targets["data"]["activeTargets"].as_array()?.iter().any(|target| target["health"] == "up");
            if !up {
                return None;
            }
            let metadata: serde_json::Value = http.get(format!("{api}/metadata")).send().await.ok()?.json().await.ok()?;
            metadata["data"].get("pozo_commands").or_else(|| metadata["data"].get("pozo_commands_total"))?;
            Some(metadata)
        }
        .await;
        if let Some(metadata) = answer {
            break metadata;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "Prometheus never scraped the controller: {}",
            std::fs::read_to_string(work.path().join("prometheus.log")).unwrap_or_default()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    for family in ["pozo_commands", "pozo_refusals", "pozo_retries"] {
        let entry = metadata["data"].get(family).or_else(|| metadata["data"].get(format!("{family}_total")));
        let entry = entry.and_then(|entries| entries.get(0)).unwrap_or_else(|| panic!("no metadata for {family}: {metadata}"));
        assert_eq!(entry["type"], "counter", "{family}: {entry}");
        assert!(entry["help"].as_str().is_some_and(|help| !help.is_empty()), "{family} keeps its help: {entry}");
    }
    for (family, kind) in
        [("pozo_flush_seconds", "histogram"), ("pozo_pool_balance_centavos", "gauge"), ("pozo_books_tied", "gauge")]
    {
        let entry = &metadata["data"][family][0];
        assert_eq!(entry["type"], kind, "{family}: {entry}");
    }
    // The series as Prometheus stores them: the counter's samples, the pool's balance.
    let query: serde_json::Value = http
        .get(format!("{api}/query"))
        .query(&[("query", "pozo_commands_total{kind=\"press\"}")])
        .send()
        .await
        .expect("a query")
        .json()
        .await
        .expect("JSON");
    assert_eq!(query["data"]["result"][0]["value"][1], "1", "{query}");
}

/// `promtool check rules` and `promtool test rules` on the shipped alert rules: each alert
/// fires on a series that should fire it and not on one that should not
/// (deploy/pozo-alerts.test.yml).
#[test]
fn promtool_checks_and_tests_the_alert_rules() {
    let promtool = tool("promtool", "prometheus");
    let (status, said) = run(&promtool, &["check", "rules", "pozo-alerts.yml"], "", &deploy());
    assert_eq!(status, Some(0), "{said}");
    assert!(said.contains("SUCCESS: 10 rules found"), "{said}");
    let (status, said) = run(&promtool, &["test", "rules", "pozo-alerts.test.yml"], "", &deploy());
    assert_eq!(status, Some(0), "{said}");
    assert!(said.contains("SUCCESS"), "{said}");
    // The tests can fail: a rule that never fires is caught.
    let work = tempfile::tempdir().expect("a temporary directory");
    let rules = std::fs::read_to_string(deploy().join("pozo-alerts.yml")).expect("the rules");
    let broken = rules.replace("pozo_books_tied{job=\"pozo\"} == 0", "pozo_books_tied{job=\"pozo\"} == 2");
    assert_ne!(broken, rules);
    std::fs::write(work.path().join("pozo-alerts.yml"), broken).expect("written");
    std::fs::copy(deploy().join("pozo-alerts.test.yml"), work.path().join("pozo-alerts.test.yml")).expect("copied");
    let (status, said) = run(&promtool, &["test", "rules", "pozo-alerts.test.yml"], "", work.path());
    assert_ne!(status, Some(0), "{said}");
    assert!(said.contains("PozoLibrosNoCuadran"), "{said}");
}

/// `systemd-analyze verify` on `deploy/pozo-server.service` in a root holding the system's units,
/// the unit in /etc/systemd/system and this build's `pozo-server` where `ExecStart` expects it:
/// nothing to say. Without the binary there, it says so.
#[test]
fn systemd_analyze_verifies_the_unit_file() {
    let analyze = tool("systemd-analyze", "systemd");
    let root = tempfile::tempdir().expect("a temporary directory");
    let units = root.path().join("lib/systemd");
    std::fs::create_dir_all(&units).expect("lib/systemd");
    let copied = Command::new("cp").arg("-r").arg("/lib/systemd/system").arg(&units).status().expect("cp");
    assert!(copied.success(), "the system's units copied into the root");
    let etc = root.path().join("etc/systemd/system");
    std::fs::create_dir_all(&etc).expect("etc/systemd/system");
    std::fs::copy(deploy().join("pozo-server.service"), etc.join("pozo-server.service")).expect("the unit");
    let root_arg = format!("--root={}", root.path().display());

    let (status, said) = run(&analyze, &["verify", &root_arg, "pozo-server.service"], "", root.path());
    assert_ne!(status, Some(0), "without the binary the unit does not verify: {said}");
    assert!(said.contains("/usr/local/bin/pozo-server"), "{said}");

    let bin = root.path().join("usr/local/bin");
    std::fs::create_dir_all(&bin).expect("usr/local/bin");
    std::fs::copy(BIN, bin.join("pozo-server")).expect("the binary");
    let (status, said) = run(&analyze, &["verify", &root_arg, "pozo-server.service"], "", root.path());
    assert_eq!((status, said.trim()), (Some(0), ""), "systemd-analyze verify:\n{said}");
}
