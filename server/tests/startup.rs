//! What a starting controller takes before it touches its journal, and what it offers stock
//! gRPC tools once it serves (issue 42, points 13 and 16): every address is bound before the
//! journal is opened or begun, so an address in use (exit 7) leaves the data directory as it
//! was; a `--data` that is a file is bad input (exit 2); reflection answers in v1 and v1alpha.

mod common;

use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};

use common::*;
use pozo_testkit::process::{PROCESS_WAIT, wait_bounded};

const BIN: &str = env!("CARGO_BIN_EXE_pozo-server");

/// `pozo-server ARGS…` run to its end (bounded): its exit status, standard output and error.
fn run(args: &[&dyn AsRef<std::ffi::OsStr>]) -> (Option<i32>, String, String) {
    let logs = tempfile::tempdir().expect("a log directory");
    let (out, err) = (logs.path().join("out"), logs.path().join("err"));
    let mut child = Command::new(BIN)
        .args(args.iter().map(|arg| arg.as_ref()))
        .stdin(Stdio::null())
        .stdout(File::create(&out).expect("stdout file"))
        .stderr(File::create(&err).expect("stderr file"))
        .spawn()
        .expect("pozo-server starts");
    let exited = wait_bounded(&mut child, PROCESS_WAIT);
    if exited.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
    let read = |path: &Path| std::fs::read_to_string(path).unwrap_or_default();
    let (stdout, stderr) = (read(&out), read(&err));
    let code = exited.unwrap_or_else(|| panic!("pozo-server did not exit; stdout:\n{stdout}\nstderr:\n{stderr}")).code();
    (code, stdout, stderr)
}

/// What `directory` holds, by name (empty when it does not exist).
fn entries(directory: &Path) -> Vec<String> {
    std::fs::read_dir(directory)
        .map(|entries| entries.map(|entry| entry.expect("an entry").file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default()
}

// Proves that a `--pages` port in use is refused before the journal is touched: exit 7 naming
// `--pages` and the address, and the fresh `--data` directory and its mark are never made (before
// the fix the controller began a new journal there, then exited 7).
#[test]
fn a_busy_pages_port_is_refused_before_a_journal_is_begun() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let data = directory.path().join("data");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let busy = taken.local_addr().expect("bound").to_string();
    let (code, stdout, stderr) = run(&[&"serve", &"--data", &data, &"--listen", &"127.0.0.1:0", &"--pages", &busy]);
    assert_eq!(code, Some(7), "a network failure (docs/operations.md §15): {stderr}");
    assert!(stderr.contains(&format!("--pages {busy}:")), "the option and the address are named: {stderr}");
    assert!(!stdout.contains("listening"), "never announced: {stdout}");
    assert_eq!(entries(directory.path()), Vec::<String>::new(), "nothing made beside the port in use: not `data`, not its mark");
    drop(taken);
}

// Proves the same for a controller started in-process (`pozo_server::serve`, as the simulator
// and the tests start it): a pages address in use fails the start with nothing written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_embedded_controller_with_its_pages_port_in_use_writes_nothing() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let data = directory.path().join("data");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let options = pozo_server::ServeOptions { pages: Some(taken.local_addr().expect("bound")), ..Default::default() };
    let refused = pozo_server::Embedded::start(pozo_server::config::Config::embedded(), &data, options).await.err();
    let refused = refused.expect("the pages' address is in use");
    assert_eq!(pozo_server::exit::ExitClass::of(&refused), pozo_server::exit::ExitClass::Network, "{refused:#}");
    assert_eq!(entries(directory.path()), Vec::<String>::new(), "no journal begun: {refused:#}");
}

// Proves that `serve --open-from` takes its addresses before it begins the new journal: with the
// pages' port in use, exit 7 and the new data directory is never made (before the fix the new
// journal was begun from the statement, then the start failed on the port).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_pages_port_is_refused_before_open_from_begins_the_new_journal() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let (old, statement, new) =
        (directory.path().join("old"), directory.path().join("statement.json"), directory.path().join("new"));
    TestServer::start_on(old.clone()).await.stop().await;
    let (code, stdout, stderr) = tokio::task::spawn_blocking({
        let (old, statement) = (old.clone(), statement.clone());
        move || run(&[&"close", &"--data", &old, &"--out", &statement])
    })
    .await
    .expect("joined");
    assert_eq!(code, Some(0), "close: {stderr}");
    let closed: serde_json::Value = serde_json::from_str(&stdout).expect("close prints JSON");
    let flags: Vec<String> =
        closed["serve_flags"].as_array().expect("flags").iter().map(|flag| flag.as_str().expect("a flag").to_owned()).collect();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let busy = taken.local_addr().expect("bound").to_string();
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> =
        vec![&"serve", &"--data", &new, &"--open-from", &statement, &"--listen", &"127.0.0.1:0", &"--pages", &busy];
    args.extend(flags.iter().map(|flag| flag as &dyn AsRef<std::ffi::OsStr>));
    let (code, _, stderr) = run(&args);
    assert_eq!(code, Some(7), "{stderr}");
    assert!(stderr.contains(&format!("--pages {busy}:")), "{stderr}");
    assert!(!new.exists() && !directory.path().join("new.acknowledged").exists(), "no new journal begun: {stderr}");
    drop(taken);
}

// Proves that a `--data` that is a file is bad input, exit 2, "not a directory", and the file
// is left as it was (before the fix: exit 6, a storage failure, "fix the disk").
#[test]
fn a_data_path_that_is_a_file_is_bad_input() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let file = directory.path().join("notes.txt");
    std::fs::write(&file, "not a journal").expect("written");
    let (code, stdout, stderr) = run(&[&"serve", &"--data", &file, &"--listen", &"127.0.0.1:0", &"--no-pages"]);
    assert_eq!(code, Some(2), "bad input (docs/operations.md §15): {stderr}");
    assert!(stderr.contains(&format!("--data {}: not a directory", file.display())), "{stderr}");
    assert!(!stdout.contains("listening"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&file).expect("still there"), "not a journal");
    assert_eq!(entries(directory.path()), vec!["notes.txt".to_owned()], "nothing else made");
}

// Proves that stock gRPC tools that speak only reflection v1alpha (Python's grpcio-reflection,
// older grpcurl) list the controller's services (before the fix: UNIMPLEMENTED).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reflection_v1alpha_lists_the_services_for_older_tools() {
    use tonic_reflection::pb::v1alpha::ServerReflectionRequest;
    use tonic_reflection::pb::v1alpha::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1alpha::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1alpha::server_reflection_response::MessageResponse;
    let (server, client) = TestServer::with_client().await;
    let mut reflection = ServerReflectionClient::new(client.channel.clone());
    let request =
        ServerReflectionRequest { host: String::new(), message_request: Some(MessageRequest::ListServices(String::new())) };
    let mut responses =
        reflection.server_reflection_info(tokio_stream::iter(vec![request])).await.expect("v1alpha answers").into_inner();
    let response = responses.message().await.expect("stream").expect("an answer");
    let Some(MessageResponse::ListServicesResponse(list)) = response.message_response else {
        panic!("a service list, got {response:?}");
    };
    let names: Vec<String> = list.service.into_iter().map(|service| service.name).collect();
    for service in [
        "pozo.v1.Table",
        "pozo.v1.Display",
        "pozo.v1.VentaPagos",
        "pozo.v1.Reports",
        "pozo.v1.Pools",
        "pozo.v1.Changes",
        "pozo.v1.Controller",
        "grpc.health.v1.Health",
    ] {
        assert!(names.iter().any(|name| name == service), "{service} in {names:?}");
    }
    // And a service's file, as grpcurl's `describe` asks for it.
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::FileContainingSymbol("pozo.v1.Table".into())),
    };
    let mut responses = reflection.server_reflection_info(tokio_stream::iter(vec![request])).await.expect("v1alpha").into_inner();
    let response = responses.message().await.expect("stream").expect("an answer");
    assert!(
        matches!(response.message_response, Some(MessageResponse::FileDescriptorResponse(ref files)) if !files.file_descriptor_proto.is_empty()),
        "{response:?}"
    );
    server.stop().await;
}
