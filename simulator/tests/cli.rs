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

// Proves `odds --draws` samples the mystery level's triggers and hot seats with the controller's
// arithmetic and reports Pearson's test: a fixed seed gives a fixed report (JSON and table),
// every trigger within (from, ceiling], both p-values above the threshold; a threshold no sample
// can meet fails with exit 1, and a bad range is refused with exit 2 naming the option.
#[test]
fn odds_draws_tests_triggers_and_hot_seats_for_uniformity() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let json = directory.path().join("draws.json");
    let args = ["odds", "--draws", "--samples", "20000", "--seed", "5", "--from", "20000.00", "--ceiling", "20400.00"];
    let output = Command::new(BIN).args(args).args(["--bins", "40", "--seats", "7", "--json"]).arg(&json).output().expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("20000 triggers in ($ 20.000,00, $ 20.400,00] (40000 centavos)"), "{text}");
    assert!(text.contains("triggers") && text.contains("hot seats") && text.contains("p-value"), "{text}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("written")).expect("JSON");
    assert_eq!(
        (report["samples"].as_u64(), report["outside"].as_u64(), report["seats_outside"].as_u64()),
        (Some(20000), Some(0), Some(0))
    );
    assert_eq!((report["triggers"]["bins"].as_u64(), report["triggers"]["degrees_of_freedom"].as_u64()), (Some(40), Some(39)));
    assert_eq!(report["hot_seats"]["degrees_of_freedom"].as_u64(), Some(6));
    let min: f64 = report["trigger_min"].as_str().expect("an amount").parse().expect("a number");
    let max: f64 = report["trigger_max"].as_str().expect("an amount").parse().expect("a number");
    assert!(20000.0 < min && min < max && max <= 20400.0, "{min} {max}");
    for test in ["triggers", "hot_seats"] {
        let p = report[test]["p_value"].as_f64().expect("a p-value");
        assert!((0.001..=1.0).contains(&p), "{test}: {p}");
    }
    // The same seed, the same statistic.
    let again = Command::new(BIN).args(args).args(["--bins", "40", "--seats", "7"]).output().expect("runs");
    let line = |text: &str| text.lines().find(|line| line.starts_with("triggers ")).map(str::to_owned);
    assert_eq!(line(&String::from_utf8_lossy(&again.stdout)), line(&text));
    // No sample has a p-value of at least 0.9999999 on both tests: refused, exit 1.
    let strict = Command::new(BIN).args(args).args(["--p-min", "0.9999999"]).output().expect("runs");
    assert_eq!(strict.status.code(), Some(1), "{}", String::from_utf8_lossy(&strict.stdout));
    assert!(String::from_utf8_lossy(&strict.stderr).contains("uniformity refused"));
    let bad = Command::new(BIN).args(["odds", "--draws", "--from", "100.00", "--ceiling", "100.00"]).output().expect("runs");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--ceiling"));
}
