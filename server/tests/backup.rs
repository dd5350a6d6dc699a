//! `pozo-server backup --to DIR` against the real `pozo-server` binary while it serves, then
//! `verify` of the copy, `restore` of it into a new data directory, and the restored controller
//! serving the same books (docs/operations.md §4, §6).

mod common;

use std::path::Path;

use common::*;
use pozo_testkit::process::ServerProcess;

fn args(items: &[&str], path: &Path) -> Vec<String> {
    let mut all: Vec<String> = items.iter().map(|item| (*item).to_owned()).collect();
    all.push(path.display().to_string());
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_while_serving_verifies_restores_and_serves_the_same_books() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let data = directory.path().join("data");
    let spawn = |data: std::path::PathBuf, log: std::path::PathBuf| {
        tokio::task::spawn_blocking(move || ServerProcess::spawn(Path::new(BIN), &data, "127.0.0.1:0", &[], &log))
    };
    let mut server = spawn(data.clone(), directory.path().join("server.log")).await.expect("pozo-server");
    let pages = server.pages.clone().expect("pages");
    let mut client = connect(&server.address).await;
    client.ok("B3", open()).await;
    let order = a_pending_order(&mut client, 2).await;
    let journal = client.journal().await;
    let pool = client.pool("iplyc-blackjack").await;

    // While it serves: the copy, verified.
    let backup = directory.path().join("backup");
    let output = run(args(&["backup", "--pages", &pages, "--to"], &backup)).await;
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains(&format!("{} entries", journal.entries)) && stdout.contains("verify ok"), "{stdout}");
    // The controller went on serving.
    client.ok("B3", sell(4, 5)).await;

    // A second backup into the same directory is refused: it is not empty.
    let again = run(args(&["backup", "--pages", &pages, "--to"], &backup)).await;
    assert_eq!(again.status.code(), Some(2), "{}", String::from_utf8_lossy(&again.stderr));
    assert!(String::from_utf8_lossy(&again.stderr).contains("not empty"));

    // verify of the copy, on its own: the entries at the moment of the backup.
    let verified = run(args(&["verify", "--data"], &backup)).await;
    let report: serde_json::Value = serde_json::from_slice(&verified.stdout).expect("verify prints JSON");
    assert_eq!(verified.status.code(), Some(0), "{report:#}");
    assert_eq!(report["entries"], journal.entries);
    assert_eq!(report["chain"], "ok");
    // A backup is held by nobody: nothing is said of a live directory.
    assert!(!String::from_utf8_lossy(&verified.stderr).contains("is in use"), "{}", String::from_utf8_lossy(&verified.stderr));

    // verify of the live data directory itself says plainly, before its report, that the
    // directory is in use and its answer proves nothing, and points to `backup`.
    let live = run(args(&["verify", "--data"], &data)).await;
    let warning = String::from_utf8_lossy(&live.stderr).to_string();
    assert!(
        warning.contains(&format!("{} is in use: a running controller holds it", data.display()))
            && warning.contains("proves nothing")
            && warning.contains("pozo-server backup"),
        "{warning}"
    );

    // Restore it into a new directory and serve from it: the books of the moment of the backup.
    assert!(server.terminate().success());
    let restored = directory.path().join("restored");
    let output = run(args(&["restore", "--from", &backup.display().to_string(), "--data"], &restored)).await;
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let mut server = spawn(restored.clone(), directory.path().join("restored.log")).await.expect("pozo-server on the restore");
    let mut client = connect(&server.address).await;
    // The restored journal ends where the backup did, then journals this start (its build).
    assert_eq!(client.journal().await.entries, journal.entries + 1, "the backup's entries and this start's");
    assert_eq!(client.pool("iplyc-blackjack").await.balance, pool.balance);
    assert_eq!(client.order(&order).await.status, "pendiente", "the order still waits");
    assert!(server.terminate().success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_request_without_the_journal_keys_mac_writes_nothing() {
    let server = TestServer::with_pages().await;
    let directory = tempfile::tempdir().expect("a temporary directory");
    let to = directory.path().join("backup");
    let response = reqwest::Client::new()
        .post(format!("{}/backup", server.pages_url()))
        .header(pozo_server::tools::backup::MAC_HEADER, "00".repeat(32))
        .json(&serde_json::json!({ "to": to }))
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), reqwest::StatusCode::UNAUTHORIZED);
    assert!(!to.exists(), "nothing was written");
}
