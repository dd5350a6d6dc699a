//! The trust boundary against the real controller on 127.0.0.1:0 (docs/security.md):
//! envelopes bound to one journal and one kind of message, office decisions bound
//! to the order's facts and to the operator's own key, and reads that need a
//! credential of the right role.

mod common;

use common::*;
use pozo_proto::Purpose;
use pozo_proto::v1 as pb;
use prost::Message;
use tonic::Code;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn envelopes_captured_on_one_journal_are_refused_by_another_with_the_same_keys() {
    // Hole 1: a table's commands and a Venta-Pagos confirmation captured from one
    // controller, replayed to a second one started on a new data directory with the
    // same keys. Before the journal id was in the MAC, all of them were accepted, and
    // the confirmation confirmed the second journal's order of the same number.
    let first = TestServer::start().await;
    let mut a = first.client().await;
    let captured_open = a.envelope("mesa-B3", Client::payload("B3", 1, open()));
    a.table.submit(captured_open.clone()).await.expect("B3 opened on the first journal");
    a.sequences.insert("B3".into(), 2);
    let order = a_pending_order(&mut a, 1).await;
    let confirm = a.confirm_command(&order, "F-4104-0001").await;
    let captured_confirm = a.office_envelope(confirm);
    a.office.confirm(captured_confirm.clone()).await.expect("confirmed on the first journal");

    let second = TestServer::start().await;
    let mut b = second.client().await;
    assert_ne!(a.journal_id, b.journal_id, "each genesis draws its own installation id");
    let entries = b.journal().await.entries;

    // As captured: it names the other journal, and is refused saying so.
    let status = b.table.submit(captured_open.clone()).await.expect_err("a replay from another journal");
    assert_eq!(status.code(), Code::Unauthenticated, "{}", status.message());
    assert!(status.message().contains(&format!("journal_id: signed for journal `{}`", a.journal_id)), "{}", status.message());
    // Relabelled for this journal: the MAC covers the journal id, so it no longer verifies.
    let mut relabelled = captured_open.clone();
    relabelled.journal_id = b.journal_id.clone();
    let status = b.table.submit(relabelled).await.expect_err("a relabelled replay");
    assert_eq!(status.code(), Code::Unauthenticated, "{}", status.message());
    assert!(status.message().starts_with("mac: "), "{}", status.message());
    assert_eq!(b.journal().await.entries, entries, "nothing journaled");
    assert_eq!(b.view("B3").await.state, "cerrada");

    // The second journal gets an order with the same number, for another seat and amount.
    b.ok("B3", open()).await;
    let second_order = a_pending_order(&mut b, 4).await;
    assert_eq!(second_order, order, "order numbers restart with each journal");
    let entries = b.journal().await.entries;
    let status = b.office.confirm(captured_confirm.clone()).await.expect_err("a confirmation from another journal");
    assert_eq!(status.code(), Code::Unauthenticated, "{}", status.message());
    let mut relabelled = captured_confirm.clone();
    relabelled.journal_id = b.journal_id.clone();
    let status = b.office.confirm(relabelled).await.expect_err("relabelled");
    assert_eq!(status.code(), Code::Unauthenticated, "{}", status.message());
    // Even signed for this journal by a real operator, the first journal's facts do not
    // decide the second journal's order: it is named by what it is, not only by number.
    let pb::office_command::Command::Confirm(stale) =
        pb::OfficeCommand::decode(captured_confirm.payload.as_slice()).expect("a command").command.expect("a command")
    else {
        panic!("a confirmation")
    };
    let resigned = b.office_envelope(pb::office_command::Command::Confirm(stale));
    let status = b.office.confirm(resigned).await.expect_err("other facts");
    assert_eq!(status.code(), Code::FailedPrecondition, "{}", status.message());
    assert!(
        status.message().contains(&format!("expect.seat: order {order} has seat `4`, not `1` as shown")),
        "{}",
        status.message()
    );
    assert_eq!(b.journal().await.entries, entries, "nothing journaled");
    assert_eq!(b.order(&second_order).await.status, "pendiente");
    first.stop().await;
    second.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payload_signed_as_one_kind_of_message_is_refused_as_another() {
    // The MAC covers a context string per message kind: a Watch signed for B1 is not a
    // command, and a command is not an office decision.
    let (server, mut client) = TestServer::with_client().await;
    client.ok("B1", open()).await;
    let entries = client.journal().await.entries;
    let watch = pb::WatchTable { table_id: "B1".into(), ..Default::default() }.encode_to_vec();
    let as_command = client.envelope_as("mesa-B1", Purpose::TableCommand, watch.clone());
    let status = client.table.watch(as_command).await.expect_err("a command's signature on a watch");
    assert_eq!(status.code(), Code::Unauthenticated);
    assert!(status.message().contains("a pozo.v1.WatchTable"), "{}", status.message());
    let command = Client::payload("B1", 2, sell(1, 5));
    let as_office = client.envelope_as("mesa-B1", Purpose::OfficeCommand, command);
    let status = client.table.submit(as_office).await.expect_err("an office signature on a command");
    assert_eq!(status.code(), Code::Unauthenticated);
    assert_eq!(client.journal().await.entries, entries);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_operator_signs_as_themselves_and_a_second_decision_names_the_first() {
    // Hole 3: the operator on a decision is the key's holder; whoever decides second is
    // told who decided first, and the journal entry records the key and the name.
    let (server, mut client) = TestServer::with_client().await;
    let order = client.open_b3_with_a_pending_order(2).await;
    let command = client.reject_command(&order, "naipes marcados").await;
    let rejected = client.office.reject(client.office_envelope_as("vp-bruno", command)).await.expect("rejected").into_inner();
    assert_eq!((rejected.operator_id.as_str(), rejected.operator_name.as_str()), ("vp-bruno", "Bruno Sosa"));
    let confirm = client.confirm_command(&order, "F-9").await;
    let status = client.office.confirm(client.office_envelope_as("vp-ana", confirm)).await.expect_err("decided");
    assert_eq!(status.code(), Code::FailedPrecondition);
    assert!(status.message().contains("already rechazada by `vp-bruno` (Bruno Sosa)"), "{}", status.message());
    // The journal keeps who and when, with the reason: the auditor's record.
    let entry = client
        .reports
        .entries(pb::JournalEntriesRequest { after: rejected.resolved_sequence - 1, limit: 1 })
        .await
        .expect("a page")
        .into_inner()
        .entries
        .remove(0);
    let record: serde_json::Value = serde_json::from_str(&entry.record_json).expect("json");
    let office = &record["command"];
    assert_eq!(office["kind"], "office");
    assert_eq!(office["key_id"], "vp-bruno");
    assert_eq!(office["operator_name"], "Bruno Sosa");
    assert_eq!(office["op"]["reason"], "naipes marcados");
    assert_eq!(record["time_ms"].as_u64(), Some(rejected.decided_ms));
    // A supervisor reads reports but decides nothing; a display key neither.
    for key in ["sup-carla", "cartel-1"] {
        let command = client.confirm_command(&order, "F-9").await;
        let status = client.office.confirm(client.office_envelope_as(key, command)).await.expect_err("not an office key");
        assert_eq!(status.code(), Code::PermissionDenied, "{key}: {}", status.message());
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reports_and_pools_need_a_read_credential_of_the_right_role() {
    let (server, client) = TestServer::with_client().await;
    let config = pozo_server::config::Config::embedded();
    let credential =
        |key: &str, journal: &str| pozo_proto::ReadCredential::new(key, &config.keys.get(key).expect("a key").secret, journal);
    let channel = client.channel.clone();
    // None at all.
    let status = pb::reports_client::ReportsClient::new(channel.clone())
        .journal(pb::JournalStatusRequest {})
        .await
        .expect_err("no credential");
    assert_eq!(status.code(), Code::Unauthenticated);
    assert!(
        status.message().contains("authorization: missing; this read needs a supervisor or inspector key"),
        "{}",
        status.message()
    );
    let status = pb::pools_client::PoolsClient::new(channel.clone())
        .status(pb::PoolStatusRequest { pool_ids: vec![] })
        .await
        .expect_err("no credential");
    assert_eq!(status.code(), Code::Unauthenticated);
    // A table key reads the pools, not the reports.
    let mut pools = pb::pools_client::PoolsClient::with_interceptor(channel.clone(), credential("mesa-B1", &client.journal_id));
    pools.status(pb::PoolStatusRequest { pool_ids: vec![] }).await.expect("a table key reads the pools");
    let mut reports =
        pb::reports_client::ReportsClient::with_interceptor(channel.clone(), credential("mesa-B1", &client.journal_id));
    let status = reports.journal(pb::JournalStatusRequest {}).await.expect_err("a table key");
    assert_eq!(status.code(), Code::PermissionDenied);
    assert!(
        status.message().contains("key `mesa-B1` is a table key; this read needs a supervisor or inspector key"),
        "{}",
        status.message()
    );
    // A supervisor's token for another journal is worth nothing here.
    let mut reports = pb::reports_client::ReportsClient::with_interceptor(channel.clone(), credential("sup-carla", "0000-1"));
    let status = reports.journal(pb::JournalStatusRequest {}).await.expect_err("another journal's token");
    assert_eq!(status.code(), Code::Unauthenticated);
    assert!(status.message().contains("not key `sup-carla`'s read token for journal"), "{}", status.message());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_display_feed_is_open_only_to_the_configured_networks() {
    // Opened to no network, a cartel needs a display key; on loopback by default it does not.
    let directory = tempfile::tempdir().expect("a directory");
    let options = pozo_server::ServeOptions { display_open_to: vec![], ..Default::default() };
    let server = TestServer::start_with(directory.path().join("data"), options).await;
    let client = server.client().await;
    let status = pb::display_client::DisplayClient::new(client.channel.clone())
        .watch(pb::WatchDisplays::default())
        .await
        .expect_err("closed to every network");
    assert_eq!(status.code(), Code::Unauthenticated);
    let config = pozo_server::config::Config::embedded();
    for (key, allowed) in [("cartel-1", true), ("sup-carla", true), ("mesa-B1", false)] {
        let credential = pozo_proto::ReadCredential::new(key, &config.keys[key].secret, &client.journal_id);
        let mut display = pb::display_client::DisplayClient::with_interceptor(client.channel.clone(), credential);
        let result = display.watch(pb::WatchDisplays::default()).await;
        assert_eq!(result.is_ok(), allowed, "{key}: {:?}", result.err());
    }
    server.stop().await;

    let open = TestServer::start().await;
    let client = open.client().await;
    let mut display = pb::display_client::DisplayClient::new(client.channel.clone());
    let mut stream = display.watch(pb::WatchDisplays::default()).await.expect("loopback is open").into_inner();
    assert!(!stream.message().await.expect("a push").expect("the amounts").pools.is_empty());
    open.stop().await;
}

/// The embedded keys with `mesa-B1`'s secret replaced and a new operator added.
fn rotated_keys() -> String {
    let text = pozo_server::config::KEYS_EMBEDDED.1;
    let old = hex::encode(&pozo_server::config::Config::embedded().keys["mesa-B1"].secret);
    let mut rotated = text.replacen(&old, &"ab".repeat(32), 1);
    rotated.push_str("\n[[key]]\nid = \"vp-dora\"\nrole = \"office\"\nname = \"Dora Ibáñez\"\nsecret = \"");
    rotated.push_str(&"cd".repeat(32));
    rotated.push_str("\"\n");
    rotated
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_set_changed_at_a_restart_is_journaled_with_who_and_never_a_secret() {
    let directory = tempfile::tempdir().expect("a directory");
    let data = directory.path().join("data");
    let by = |name: &str| pozo_server::ServeOptions { changed_by: Some(name.to_owned()), ..Default::default() };
    let first =
        pozo_server::Embedded::start(pozo_server::config::Config::embedded(), &data, by("jefe-sistemas")).await.expect("started");
    let client =
        Client::new(tonic::transport::Channel::from_shared(first.url.clone()).expect("url").connect().await.expect("c")).await;
    let mut reports = client.reports.clone();
    let genesis = reports.entries(pb::JournalEntriesRequest { after: 0, limit: 1 }).await.expect("page").into_inner().entries;
    let record: serde_json::Value = serde_json::from_str(&genesis[0].record_json).expect("json");
    assert_eq!(record["command"]["by"], "jefe-sistemas");
    assert!(record["command"]["keys"].as_array().expect("the key set").iter().any(|key| key["id"] == "vp-ana"));
    first.stop().await.expect("stopped");

    // The same keys again: nothing to journal.
    let same = pozo_server::Embedded::start(pozo_server::config::Config::embedded(), &data, by("otro")).await.expect("started");
    let entries = |url: String| async move {
        let channel = tonic::transport::Channel::from_shared(url).expect("url").connect().await.expect("connect");
        let mut client = Client::new(channel).await;
        client.reports.entries(pb::JournalEntriesRequest { after: 0, limit: 0 }).await.expect("page").into_inner().entries
    };
    let journal = entries(same.url.clone()).await;
    assert_eq!(journal.len(), 2, "an unchanged key set adds no entry; the start adds its build");
    let record: serde_json::Value = serde_json::from_str(&journal[1].record_json).expect("json");
    assert_eq!((record["command"]["kind"].as_str(), record["command"]["by"].as_str()), (Some("build"), Some("otro")));
    same.stop().await.expect("stopped");

    // B1's key rotated and an operator added: one `keys` entry, with who and the new set.
    let config = pozo_server::config::Config::embedded().with_keys("rotated.toml", &rotated_keys()).expect("valid keys");
    let rotated = pozo_server::Embedded::start(config, &data, by("ana.supervisora")).await.expect("started");
    let journal = entries(rotated.url.clone()).await;
    assert_eq!(journal.len(), 4, "genesis, the unchanged start's build, the keys, this start's build");
    let record: serde_json::Value = serde_json::from_str(&journal[2].record_json).expect("json");
    assert_eq!(record["command"]["kind"], "keys");
    assert_eq!(record["command"]["by"], "ana.supervisora");
    let keys = record["command"]["keys"].as_array().expect("the new set");
    let key = |id: &str| keys.iter().find(|key| key["id"] == id).cloned().unwrap_or_default();
    assert_eq!(key("vp-dora")["name"], "Dora Ibáñez");
    let before: serde_json::Value = serde_json::from_str(&entries_genesis(&journal)).expect("json");
    let old_b1 =
        before["command"]["keys"].as_array().expect("keys").iter().find(|key| key["id"] == "mesa-B1").cloned().expect("B1");
    assert_ne!(key("mesa-B1")["fingerprint"], old_b1["fingerprint"], "a rotation shows as a new fingerprint");
    // No secret, old or new, is in the journal.
    let text: String = journal.iter().map(|entry| entry.record_json.clone()).collect();
    assert!(!text.contains(&"ab".repeat(32)) && !text.contains(&"cd".repeat(32)));
    let old_secret = hex::encode(&pozo_server::config::Config::embedded().keys["mesa-B1"].secret);
    assert!(!text.contains(&old_secret));
    rotated.stop().await.expect("stopped");
    let verified = pozo_server::tools::verify::verify_data(&data, &pozo_server::config::Config::embedded()).expect("verify runs");
    assert!(verified.ok(), "{:?} {:?}", verified.chain, verified.acknowledged);
}

fn entries_genesis(journal: &[pb::JournalEntry]) -> String {
    journal[0].record_json.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_journal_key_is_refused_by_name() {
    let directory = tempfile::tempdir().expect("a directory");
    let data = directory.path().join("data");
    let first =
        pozo_server::Embedded::start(pozo_server::config::Config::embedded(), &data, Default::default()).await.expect("started");
    first.stop().await.expect("stopped");
    let journal_secret = hex::encode(&pozo_server::config::Config::embedded().journal_key.expect("a journal key").0);
    let other = pozo_server::config::KEYS_EMBEDDED.1.replacen(&journal_secret, &"ef".repeat(32), 1);
    let config = pozo_server::config::Config::embedded().with_keys("other.toml", &other).expect("valid keys");
    let error = pozo_server::Embedded::start(config, &data, Default::default()).await.err().expect("refused");
    assert!(error.to_string().contains("is not the one this journal is sealed with"), "{error:#}");
}

#[test]
fn no_secret_appears_in_debug_output() {
    let config = pozo_server::config::Config::embedded();
    let journal_key = config.journal_key.clone().expect("a journal key");
    let identity = pozo_server::journal::Identity { installation: "00112233445566778899aabbccddeeff".into(), epoch: 1 };
    let sealer = pozo_server::journal::Sealer::new(&journal_key, &identity).expect("a sealer");
    let secret = &config.keys["sup-carla"].secret;
    let credential = pozo_proto::ReadCredential::new("sup-carla", secret, "j-1");
    let tls = pozo_server::Tls { certificate_pem: b"CERT".to_vec(), key_pem: b"PRIVATE-KEY-BYTES".to_vec(), client_ca_pem: None };
    let printed = format!("{config:?} {journal_key:?} {sealer:?} {credential:?} {tls:?}");
    let mut secrets: Vec<String> = config.keys.values().map(|key| hex::encode(&key.secret)).collect();
    secrets.push(hex::encode(&journal_key.0));
    secrets.push(pozo_proto::read_token(secret, "j-1"));
    for secret in &secrets {
        assert!(!printed.contains(secret.as_str()), "a secret in Debug output");
    }
    assert!(!printed.contains("PRIVATE-KEY-BYTES"));
    assert!(printed.contains("sup-carla"), "ids are printed: {printed:.200}");
}
