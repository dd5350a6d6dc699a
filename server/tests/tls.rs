//! `pozo-server serve` refuses plaintext off loopback (docs/security.md); TLS itself
//! is tested with the agent's client settings in `testkit/tests/agent_tls.rs`.

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
    assert!(
        stderr.contains("--listen 0.0.0.0:0: plaintext is allowed on loopback only; give --tls-cert and --tls-key"),
        "{stderr}"
    );
    assert!(!directory.path().join("data").exists(), "refused before any journal was created");
}

/// A self-signed certificate for 127.0.0.1, written as PEM files in `directory`.
fn certificate(directory: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let key = rcgen::KeyPair::generate().expect("a key");
    let cert = rcgen::CertificateParams::new(vec!["127.0.0.1".to_owned()]).expect("params").self_signed(&key).expect("a cert");
    let (cert_path, key_path) = (directory.join("server.crt"), directory.join("server.key"));
    std::fs::write(&cert_path, cert.pem()).expect("written");
    std::fs::write(&key_path, key.serialize_pem()).expect("written");
    (cert_path, key_path)
}

#[test]
fn the_example_keys_are_refused_off_loopback_even_with_tls_and_even_as_a_copy() {
    let directory = tempfile::tempdir().expect("a directory");
    let (cert, key) = certificate(directory.path());
    let serve = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_pozo-server"))
            .args(["serve", "--listen", "0.0.0.0:0", "--tls-cert"])
            .arg(&cert)
            .arg("--tls-key")
            .arg(&key)
            .arg("--data")
            .arg(directory.path().join("data"))
            .args(extra)
            .output()
            .expect("pozo-server runs")
    };
    let embedded = serve(&[]);
    assert_eq!(embedded.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&embedded.stderr).contains("the embedded example keys protect nothing"));
    // A copy of the example file passed with --keys is just as public.
    let copy = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/keys.toml");
    let copied = serve(&["--keys", copy.to_str().expect("UTF-8")]);
    assert_eq!(copied.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&copied.stderr);
    assert!(stderr.contains("has the secret of a published example key"), "{stderr}");
    assert!(!directory.path().join("data").exists(), "refused before any journal was created");
}
