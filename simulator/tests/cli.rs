//! `pozo-sim` answers `--help` with its commands, and `odds` runs.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_pozo-sim");

#[test]
fn help_lists_the_commands() {
    let output = Command::new(BIN).arg("--help").output().expect("pozo-sim runs");
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    for command in ["run", "replay", "odds", "bench"] {
        assert!(text.contains(command), "{command} in {text}");
    }
}

#[test]
fn odds_prints_every_code_and_writes_json() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let json = directory.path().join("odds.json");
    let output = Command::new(BIN)
        .args(["odds", "--game", "poker-sin-descarte", "--hands", "50000", "--seed", "3", "--json"])
        .arg(&json)
        .output()
        .expect("pozo-sim runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8_lossy(&output.stdout);
    for code in ["ESCALERA_REAL_COLOR", "ESCALERA_COLOR", "POKER", "FULL", "COLOR", "ESCALERA"] {
        assert!(text.contains(code), "{code} in {text}");
    }
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("json written")).expect("JSON");
    assert_eq!(report["hands"], 50000);
    let bad = Command::new(BIN).args(["odds", "--game", "baccarat"]).output().expect("pozo-sim runs");
    assert_eq!(bad.status.code(), Some(2));
}
