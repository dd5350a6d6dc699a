//! The command lines in `deploy/` (the systemd unit and the Dockerfile) are ones the real
//! `pozo-server` accepts: every option exists and every value parses (docs/operations.md §14).

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_pozo-server");

fn deploy(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy").join(name)).expect("the deploy file")
}

/// Runs the binary with `args` and `--help` appended: clap checks every option and value
/// before it, then prints the subcommand's help and exits 0.
fn accepted(args: &[String]) {
    let output = Command::new(BIN).args(args).arg("--help").output().expect("pozo-server runs");
    assert!(output.status.success(), "pozo-server {args:?} is refused: {}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stdout).contains("Usage: pozo-server"));
}

#[test]
fn the_systemd_units_command_line_is_accepted() {
    let unit = deploy("pozo-server.service");
    let exec = unit.replace("\\\n", " ");
    let line = exec.lines().find_map(|line| line.strip_prefix("ExecStart=")).expect("an ExecStart line");
    let mut words = line.split_whitespace().map(str::to_owned);
    assert_eq!(words.next().as_deref(), Some("/usr/local/bin/pozo-server"));
    let args: Vec<String> = words.collect();
    assert!(args.contains(&"serve".to_owned()) && args.contains(&"--tls-cert".to_owned()), "{args:?}");
    accepted(&args);
    // A refusal to start is not retried in a loop: bad input, locked, the journal refused.
    let prevent = unit.lines().find_map(|line| line.strip_prefix("RestartPreventExitStatus=")).expect("RestartPreventExitStatus");
    let codes: Vec<u8> = prevent.split_whitespace().map(|code| code.parse().expect("a status")).collect();
    use pozo_server::exit::ExitClass;
    assert_eq!(codes, [ExitClass::BadInput, ExitClass::Locked, ExitClass::JournalRefused].map(ExitClass::code));
}

#[test]
fn the_dockerfiles_command_line_is_accepted() {
    let dockerfile = deploy("Dockerfile").replace("\\\n", " ");
    let array = |instruction: &str| -> Vec<String> {
        let line = dockerfile.lines().find_map(|line| line.strip_prefix(instruction)).expect(instruction);
        serde_json::from_str(line.trim()).unwrap_or_else(|error| panic!("{instruction}{line}: {error}"))
    };
    let entrypoint = array("ENTRYPOINT ");
    let command = array("CMD ");
    assert_eq!(entrypoint[0], "/usr/local/bin/pozo-server");
    let args: Vec<String> = entrypoint[1..].iter().chain(&command).cloned().collect();
    // Off loopback, TLS: the image must not be a plaintext server on 0.0.0.0.
    assert!(args.contains(&"--tls-cert".to_owned()) && args.contains(&"--tls-key".to_owned()), "{args:?}");
    accepted(&args);
}

/// systemd (and `docker stop`) send SIGTERM as soon as they decide to: a SIGTERM that arrives
/// right after the address is announced is a clean stop (exit 0), never a kill by the signal's
/// default action. Repeated, because the window it guards is short.
#[test]
fn a_sigterm_right_after_the_announcement_is_a_clean_stop() {
    for attempt in 0..20 {
        let directory = tempfile::tempdir().expect("a temporary directory");
        let log = directory.path().join("server.log");
        let mut server = pozo_testkit::process::ServerProcess::try_spawn_env(
            Path::new(BIN),
            &directory.path().join("data"),
            "127.0.0.1:0",
            &[],
            &[],
            &log,
        )
        .unwrap_or_else(|refused| panic!("pozo-server did not start: {refused:?}"));
        let status = server.terminate();
        assert!(status.success(), "attempt {attempt}: {status:?}\n{}", server.log_text());
    }
}
