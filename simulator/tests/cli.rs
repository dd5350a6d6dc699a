//! `pozo-sim` answers `--help` with its commands.

use std::process::Command;

#[test]
fn help_lists_the_commands() {
    let output = Command::new(env!("CARGO_BIN_EXE_pozo-sim")).arg("--help").output().expect("pozo-sim runs");
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    for command in ["run", "replay", "odds", "bench"] {
        assert!(text.contains(command), "{command} in {text}");
    }
}
