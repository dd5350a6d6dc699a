//! The log's forms (`--log-format json|text`) and `RUST_LOG`, on the real `pozo-server`
//! binary (docs/operations.md §13).

mod common;

use std::path::Path;

use common::{connect, open, press, sell};
use pozo_testkit::process::ServerProcess;

const BIN: &str = env!("CARGO_BIN_EXE_pozo-server");

/// Starts the binary with `extra` options and `envs`, stops it with SIGTERM, returns its log.
fn log_of(extra: &[&str], envs: &[(&str, &str)]) -> String {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let log = directory.path().join("server.log");
    let mut server =
        ServerProcess::try_spawn_env(Path::new(BIN), &directory.path().join("data"), "127.0.0.1:0", extra, envs, &log)
            .unwrap_or_else(|refused| panic!("pozo-server did not start: {refused:?}"));
    assert!(server.terminate().success(), "stopped cleanly:\n{}", server.log_text());
    server.log_text()
}

#[test]
fn json_logs_are_one_object_per_line_with_level_target_and_message() {
    let log = log_of(&["--log-format", "json"], &[]);
    let lines: Vec<&str> = log.lines().filter(|line| !line.trim().is_empty()).collect();
    assert!(lines.len() >= 2, "the start and the stop are logged:\n{log}");
    let mut messages = Vec::new();
    for line in &lines {
        let object: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|error| panic!("not one JSON object ({error}): {line}"));
        assert!(object["timestamp"].is_string(), "{line}");
        assert!(["TRACE", "DEBUG", "INFO", "WARN", "ERROR"].contains(&object["level"].as_str().unwrap_or("")), "{line}");
        assert!(object["target"].as_str().is_some_and(|target| target.starts_with("pozo_server")), "{line}");
        messages.push(object["fields"]["message"].as_str().unwrap_or_default().to_owned());
    }
    assert!(messages.iter().any(|message| !message.is_empty()), "{log}");
}

#[test]
fn text_logs_are_the_default_and_rust_log_chooses_what_is_logged() {
    let text = log_of(&[], &[("NO_COLOR", "1")]);
    let first = text.lines().next().expect("a first line");
    assert!(serde_json::from_str::<serde_json::Value>(first).is_err(), "text by default: {first}");
    assert!(text.lines().any(|line| line.contains(" INFO ")), "info lines by default:\n{text}");
    // RUST_LOG=warn: a clean start and stop log nothing at info.
    let quiet = log_of(&["--log-format", "text"], &[("RUST_LOG", "warn"), ("NO_COLOR", "1")]);
    assert!(!quiet.contains(" INFO "), "RUST_LOG=warn is honoured:\n{quiet}");
}

#[test]
fn an_unknown_log_format_is_refused_naming_the_choices() {
    let output = std::process::Command::new(BIN).args(["--log-format", "xml", "rulebooks"]).output().expect("runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--log-format") && stderr.contains("text") && stderr.contains("json"), "{stderr}");
}

/// Four commands, each sent after the last was answered, on the real binary logging JSON with
/// `envs`: the log's lines as JSON objects, the whole text, and the journal's entries after them.
async fn four_commands_logged(envs: &[(&str, &str)]) -> (Vec<serde_json::Value>, String, u64) {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let log = directory.path().join("server.log");
    let mut server = ServerProcess::try_spawn_env(
        Path::new(BIN),
        &directory.path().join("data"),
        "127.0.0.1:0",
        &["--log-format", "json"],
        envs,
        &log,
    )
    .unwrap_or_else(|refused| panic!("pozo-server did not start: {refused:?}"));
    let mut client = connect(&server.address).await;
    client.ok("B3", open()).await;
    client.ok("B3", sell(1, 5)).await;
    client.ok("B3", press(1)).await;
    client.ok("B3", sell(2, 5)).await;
    let entries = client.journal().await.entries;
    assert!(server.terminate().success(), "stopped cleanly:\n{}", server.log_text());
    let text = server.log_text();
    for secret in example_secrets() {
        assert!(!text.contains(&secret), "a secret in the log:\n{text}");
    }
    let lines = text.lines().filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok()).collect();
    (lines, text, entries)
}

/// At info (the default) the batches write nothing: a busy floor would write hundreds of lines a
/// second (docs/operations.md §13). No key's secret is ever written, whatever the commands signed
/// with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_info_no_line_per_batch_and_no_secret_is_logged() {
    let (lines, text, _) = four_commands_logged(&[]).await;
    assert!(lines.iter().any(|line| line["level"] == "INFO"), "the start is logged at info:\n{text}");
    assert!(!lines.iter().any(|line| line["fields"]["message"] == "batch durable"), "{text}");
    assert!(lines.iter().all(|line| line["level"] != "DEBUG"), "{text}");
}

/// At debug for the writer's batches, each durable batch is one line (its entries, tip and
/// answers), and still no secret is written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_debug_each_durable_batch_is_one_line_and_no_secret_is_logged() {
    let (lines, text, entries) = four_commands_logged(&[("RUST_LOG", "info,pozo_server::writer::batch=debug")]).await;
    let batches: Vec<&serde_json::Value> = lines.iter().filter(|line| line["fields"]["message"] == "batch durable").collect();
    // Four commands, each sent after the last was answered: at least one batch each.
    assert!(batches.len() >= 4, "{text}");
    assert!(batches.iter().all(|batch| batch["level"] == "DEBUG" && batch["fields"]["entries"].as_u64() >= Some(1)), "{text}");
    // Each line names the journal's tip after its batch: rising, and the last is the journal's.
    let tips: Vec<u64> = batches.iter().filter_map(|batch| batch["fields"]["tip"].as_u64()).collect();
    assert_eq!(tips.len(), batches.len(), "{text}");
    assert!(tips.windows(2).all(|pair| pair[0] < pair[1]), "{tips:?}");
    assert_eq!(tips.last().copied(), Some(entries), "{text}");
}

/// Every secret of the embedded example keys, as written in its file (hex).
fn example_secrets() -> Vec<String> {
    let keys: toml::Table = include_str!("../../config/keys.toml").parse().expect("the keys file");
    keys["key"]
        .as_array()
        .expect("[[key]] entries")
        .iter()
        .filter_map(|key| key.get("secret").and_then(toml::Value::as_str).map(str::to_owned))
        .collect()
}
