//! `pozo-agent` answers `--help`, and refuses to go live (fail closed, 3.7.5)
//! until it has a table protocol to speak.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_pozo-agent");

#[test]
fn help_names_the_flags() {
    let output = Command::new(BIN).arg("--help").output().expect("pozo-agent runs");
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    for flag in ["--server", "--table", "--key-file", "--input"] {
        assert!(text.contains(flag), "{flag} in {text}");
    }
}

#[test]
fn without_a_table_protocol_it_accepts_no_bet_and_exits_nonzero() {
    let output = Command::new(BIN).args(["--table", "M1", "--key-file", "/dev/null"]).output().expect("pozo-agent runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no side bet is accepted (3.7.5)"));
}
