//! `pozo-server serve` refuses plaintext off loopback (docs/security.md); TLS itself
//! is tested with the agent's client settings in `table-agent/tests/tls.rs`.

use std::process::Command;

#[test]
fn serve_refuses_plaintext_off_loopback_and_says_so() {
    let directory = tempfile::tempdir().expect("a directory");
    let keys = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/keys.toml");
    let output = Command::new(env!("CARGO_BIN_EXE_pozo-server"))
        .args(["serve", "--listen", "0.0.0.0:0", "--keys"])
        .arg(&keys)
        .arg("--data")
        .arg(directory.path().join("data"))
        .output()
        .expect("pozo-server runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--listen 0.0.0.0:0: plaintext is allowed on loopback only; give --tls-cert and --tls-key"), "{stderr}");
    assert!(!directory.path().join("data").exists(), "refused before any journal was created");
}
