//! The log's forms (`--log-format json|text`) and `RUST_LOG`, on the real `pozo-server`
//! binary (docs/operations.md §13).

use std::path::Path;

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
