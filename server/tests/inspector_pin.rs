//! The floor inspector's PIN checked as it is typed at the table's monitor, before any of their
//! buttons opens (4.6, 4.7; issue 45, point 5): `Table/CheckInspector` (docs/api.md §1), a
//! `WatchTable` naming the inspector signed with the table's key, the PIN beside the signed
//! bytes. Read-only: nothing is journaled, right or wrong; a wrong PIN counts towards the same
//! lock-out per inspector and table as a command naming them.

mod common;

use common::*;
use pozo_proto::v1 as pb;
use prost::Message as _;
use tonic::Code;

/// A PIN check of `inspector` at `table`, signed with `key` (the table's own, for an agent).
fn check(client: &Client, key: &str, table: &str, inspector: &str, pin: &str) -> pb::Envelope {
    let payload = pb::WatchTable { table_id: table.to_owned(), inspector: inspector.to_owned(), ..Default::default() };
    pb::Envelope {
        inspector_pin: pin.to_owned(),
        ..client.envelope_as(key, pozo_proto::Purpose::WatchTable, payload.encode_to_vec())
    }
}

// The right PIN answers the inspector's id and name; a wrong one is PERMISSION_DENIED with the
// same Spanish words a command's refusal has; neither writes a journal entry (the journal's
// length and tip unchanged after each).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pin_is_checked_at_sign_in_and_nothing_is_journaled() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let before = client.journal().await;

    let person = client
        .table
        .check_inspector(check(&client, "mesa-B1", "B1", "im-rosa", "2468"))
        .await
        .expect("the right PIN")
        .into_inner();
    assert_eq!((person.id.as_str(), person.name.as_str()), ("im-rosa", "Rosa Benítez"));
    assert_eq!(client.journal().await, before, "a right PIN journals nothing");

    let wrong = client.table.check_inspector(check(&client, "mesa-B1", "B1", "im-rosa", "1111")).await.expect_err("a wrong PIN");
    assert_eq!(wrong.code(), Code::PermissionDenied, "{wrong:?}");
    assert_eq!(wrong.message(), "inspector_pin: not the PIN of `im-rosa`");
    assert_eq!(pozo_proto::motivo(&wrong).as_deref(), Some("PIN incorrecto para Rosa Benítez: nada se registró."));
    assert_eq!(client.journal().await, before, "a wrong PIN journals nothing");

    // Not an inspector, no inspector named, no PIN, another table's key.
    let cases = [
        ("mesa-B1", "sup-carla", "2468", Code::NotFound),
        ("mesa-B1", "", "2468", Code::InvalidArgument),
        ("mesa-B1", "im-rosa", "", Code::InvalidArgument),
        ("mesa-B2", "im-rosa", "2468", Code::PermissionDenied),
    ];
    for (key, inspector, pin, code) in cases {
        let refused = client.table.check_inspector(check(&client, key, "B1", inspector, pin)).await.expect_err("refused");
        assert_eq!(refused.code(), code, "{key} {inspector} {pin}: {refused:?}");
    }
    assert_eq!(client.journal().await, before, "nothing refused is journaled");
    assert_eq!(client.view("B1").await.state, "cerrada", "a PIN check opens nothing");
    server.stop().await;
}

// The lock-out is the commands': four wrong PINs at sign-in and one wrong PIN on a command lock
// the inspector out at that table (five in all); then even the right PIN is refused at sign-in
// and on Apertura de Mesa, in Spanish, while at another table the same inspector signs in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_wrong_pins_at_sign_in_or_on_commands_lock_the_inspector_out_of_that_table() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let before = client.journal().await;
    for _ in 0..4 {
        let wrong = client.table.check_inspector(check(&client, "mesa-B3", "B3", "im-tomas", "9999")).await.expect_err("wrong");
        assert_eq!(wrong.code(), Code::PermissionDenied, "{wrong:?}");
    }
    // The fifth, on a command: the same count.
    let fifth = client.table.submit(client.inspected("B3", 1, open(), "im-tomas", "9999")).await.expect_err("wrong");
    let motivo = pozo_proto::motivo(&fifth).unwrap_or_default();
    assert!(motivo.starts_with("PIN incorrecto. Tomás Luna quedó bloqueado en la mesa B3"), "{motivo}");

    let locked = client.table.check_inspector(check(&client, "mesa-B3", "B3", "im-tomas", "1357")).await.expect_err("locked");
    assert_eq!(locked.code(), Code::PermissionDenied, "{locked:?}");
    let motivo = pozo_proto::motivo(&locked).unwrap_or_default();
    assert!(motivo.starts_with("Tomás Luna quedó bloqueado en la mesa B3 por 5 PIN incorrectos"), "{motivo}");
    let command = client.table.submit(client.inspected("B3", 1, open(), "im-tomas", "1357")).await.expect_err("locked");
    assert_eq!(command.code(), Code::PermissionDenied, "the commands share the lock-out: {command:?}");
    assert_eq!(client.journal().await, before, "nothing was journaled");

    // Locked out at B3 only.
    let person =
        client.table.check_inspector(check(&client, "mesa-B1", "B1", "im-tomas", "1357")).await.expect("at B1").into_inner();
    assert_eq!(person.name, "Tomás Luna");
    server.stop().await;
}
