//! Every refusal over gRPC against the real controller on 127.0.0.1:0: each bad
//! command gets a precise status whose message names the field or the rule, and
//! leaves the journal, every pool, the table's panels and its meters as they were.
//! A refused command does not use its sequence: the agent's next command takes it.

mod common;

use common::*;
use pozo_proto::v1 as pb;
use pozo_proto::v1::table_command::Command as C;
use prost::Message;
use tonic::Code;

// ----------------------------------------------------------------------------- helpers

/// What a refused command must leave as it was, taken before it is sent.
struct Before {
    table: String,
    /// The sequence the agent is about to use.
    sequence: u64,
    /// Journal entries before the refusal.
    entries: u64,
    jornada: String,
    everything: String,
}

/// The table's and pool's meters and every payout order, read from the live state,
/// on top of `Client::fingerprint` (journal tip, every pool amount, the table view).
async fn everything(client: &mut Client, table: &str, jornada: &str) -> String {
    let fingerprint = client.fingerprint(table).await;
    let report = client
        .reports
        .table(pb::TableReportRequest { table_id: table.to_owned(), jornada: jornada.to_owned() })
        .await
        .expect("table report")
        .into_inner();
    let pool_id = client.view(table).await.pool_id;
    let pool = client.pool(&pool_id).await;
    let list = client.office_envelope(pb::office_command::Command::List(pb::ListPayouts { status: "all".into() }));
    let orders = client.office.list(list).await.expect("orders").into_inner();
    format!("{fingerprint}|{report:?}|{pool:?}|{orders:?}")
}

async fn before_refusal(client: &mut Client, table: &str) -> Before {
    let jornada = client.report(table).await.jornada;
    let entries = client.journal().await.entries;
    let everything = everything(client, table, &jornada).await;
    let sequence = client.sequences.get(table).copied().unwrap_or(1);
    Before { table: table.to_owned(), sequence, entries, jornada, everything }
}

impl Before {
    /// Nothing changed: no journal entry, no pool amount, no light, no meter.
    async fn unchanged(&self, client: &mut Client) {
        let now = everything(client, &self.table, &self.jornada).await;
        assert_eq!(now, self.everything, "a refused command changed something");
        assert_eq!(client.journal().await.entries, self.entries, "a refused command was journaled");
    }

    /// The agent's next command takes the very sequence the refused one carried,
    /// and becomes the next journal entry.
    async fn next_takes_the_same_sequence(&self, client: &mut Client, command: C) -> pb::SubmitReply {
        let envelope = client.envelope(&format!("mesa-{}", self.table), Client::payload(&self.table, self.sequence, command));
        let reply = client.table.submit(envelope).await.expect("the next command, same sequence, applied").into_inner();
        assert_eq!(reply.sequence, self.sequence, "the refused command did not use its sequence");
        assert_eq!(reply.journal_sequence, self.entries + 1, "nothing was journaled in between");
        client.sequences.insert(self.table.clone(), self.sequence + 1);
        // The journal read goes through the writer's queue: the push is published by then.
        client.journal().await;
        assert_eq!(client.view(&self.table).await.last_sequence, self.sequence, "the table's last sequence");
        reply
    }
}

/// Submits a raw envelope that must be refused with `code`; returns the message.
async fn refused_raw(client: &mut Client, envelope: pb::Envelope, code: Code) -> String {
    match client.table.submit(envelope).await {
        Ok(reply) => panic!("should be refused, was applied: {}", reply.into_inner().outcome),
        Err(status) => {
            assert_eq!(status.code(), code, "{}", status.message());
            status.message().to_owned()
        }
    }
}

/// The message names every part given.
#[track_caller]
fn names(message: &str, parts: &[&str]) {
    for part in parts {
        assert!(message.contains(part), "`{message}` does not name `{part}`");
    }
}

// ----------------------------------------------------------------------------- sequences

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn older_sequence_is_refused_and_changes_nothing() {
    // Proves an older sequence (new bytes or a replay of old ones) is AlreadyExists naming the next one, and leaves all as it was.
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_credits("B1", &[(1, 5), (2, 5)]).await;
    let before = before_refusal(&mut client, "B1").await;
    assert_eq!(before.sequence, 4);

    let envelope = client.envelope("mesa-B1", Client::payload("B1", 2, press(1)));
    let message = refused_raw(&mut client, envelope, Code::AlreadyExists).await;
    names(&message, &["sequence: 2 is older than the last applied, 3", "the next is 4"]);
    before.unchanged(&mut client).await;

    // A replay of the very bytes of command 1 is older too: not answered as a retry.
    let replay = client.envelope("mesa-B1", Client::payload("B1", 1, open()));
    let message = refused_raw(&mut client, replay, Code::AlreadyExists).await;
    names(&message, &["sequence: 1 is older", "the next is 4"]);
    before.unchanged(&mut client).await;

    before.next_takes_the_same_sequence(&mut client, press(1)).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skipped_sequence_is_refused_and_changes_nothing() {
    // Proves a gap in the sequence is FailedPrecondition naming the expected sequence, and the expected one still works.
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_credits("B1", &[(1, 5)]).await;
    let before = before_refusal(&mut client, "B1").await;
    assert_eq!(before.sequence, 3);

    let envelope = client.envelope("mesa-B1", Client::payload("B1", 5, press(1)));
    let message = refused_raw(&mut client, envelope, Code::FailedPrecondition).await;
    names(&message, &["sequence: 5 skips ahead", "table B1 expects 3"]);
    before.unchanged(&mut client).await;

    let far = client.envelope("mesa-B1", Client::payload("B1", u64::MAX, press(1)));
    let message = refused_raw(&mut client, far, Code::FailedPrecondition).await;
    names(&message, &["skips ahead", "expects 3"]);
    before.unchanged(&mut client).await;

    before.next_takes_the_same_sequence(&mut client, press(1)).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reused_sequence_with_other_bytes_is_refused_and_changes_nothing() {
    // Proves the last sequence reused by another command is AlreadyExists, while the same bytes are still answered as a retry.
    let (server, mut client) = TestServer::with_client().await;
    client.ok("B1", open()).await;
    let original = client.envelope("mesa-B1", Client::payload("B1", 2, sell(1, 5)));
    let first = client.table.submit(original.clone()).await.expect("applied").into_inner();
    client.sequences.insert("B1".into(), 3);
    let before = before_refusal(&mut client, "B1").await;

    let other = client.envelope("mesa-B1", Client::payload("B1", 2, sell(1, 10)));
    let message = refused_raw(&mut client, other, Code::AlreadyExists).await;
    names(&message, &["sequence: 2 was already used by another command of table B1", "the next is 3"]);
    before.unchanged(&mut client).await;

    // The refusal did not disturb the retry of the real command 2.
    let again = client.table.submit(original).await.expect("a retry").into_inner();
    assert_eq!(again, first, "the same answer");
    before.unchanged(&mut client).await;

    let reply = before.next_takes_the_same_sequence(&mut client, press(1)).await;
    assert_eq!(reply.table.expect("view").seats[0].credits, 4, "5 sold, not 10; one spent");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sequence_zero_is_refused_and_changes_nothing() {
    // Proves sequence 0 is InvalidArgument ("starts at 1") and does not take sequence 1 away.
    let (server, mut client) = TestServer::with_client().await;
    let before = before_refusal(&mut client, "B1").await;
    assert_eq!(before.sequence, 1);
    let envelope = client.envelope("mesa-B1", Client::payload("B1", 0, open()));
    let message = refused_raw(&mut client, envelope, Code::InvalidArgument).await;
    names(&message, &["sequence: starts at 1"]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, open()).await;
    server.stop().await;
}

// ----------------------------------------------------------------------------- credentials

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_key_is_refused_and_changes_nothing() {
    // Proves an envelope under a key the layout does not know is Unauthenticated naming the key_id.
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_credits("B1", &[(1, 5)]).await;
    let before = before_refusal(&mut client, "B1").await;

    let payload = Client::payload("B1", before.sequence, press(1));
    let journal = client.journal_id.clone();
    let forged = pb::Envelope {
        mac: mac(b"not a key of this casino", &journal, &payload),
        payload,
        key_id: "mesa-Z9".into(),
        journal_id: journal.clone(),
        inspector_pin: String::new(),
    };
    let message = refused_raw(&mut client, forged, Code::Unauthenticated).await;
    names(&message, &["key_id: unknown key `mesa-Z9`"]);
    before.unchanged(&mut client).await;

    // A known table's secret under an unknown name is just as unknown.
    let payload = Client::payload("B1", before.sequence, press(1));
    let renamed = pb::Envelope {
        mac: mac(&client.secret("mesa-B1"), &journal, &payload),
        payload,
        key_id: "mesa-b1".into(),
        journal_id: journal.clone(),
        inspector_pin: String::new(),
    };
    let message = refused_raw(&mut client, renamed, Code::Unauthenticated).await;
    names(&message, &["key_id: unknown key `mesa-b1`"]);
    before.unchanged(&mut client).await;

    before.next_takes_the_same_sequence(&mut client, press(1)).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_mac_is_refused_and_changes_nothing() {
    // Proves a MAC that is not HMAC-SHA256(key, payload) is Unauthenticated naming the mac: a flipped bit, a tampered payload, another secret, none.
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_credits("B1", &[(1, 5)]).await;
    let before = before_refusal(&mut client, "B1").await;
    let signed = client.envelope("mesa-B1", Client::payload("B1", before.sequence, press(1)));

    let mut flipped = signed.clone();
    flipped.mac[0] ^= 0x01;
    let mut tampered = signed.clone();
    tampered.payload = Client::payload("B1", before.sequence, press(2));
    let mut other_secret = signed.clone();
    other_secret.mac = mac(&client.secret("mesa-B2"), &client.journal_id, &signed.payload);
    let mut truncated = signed.clone();
    truncated.mac.truncate(16);
    let mut missing = signed.clone();
    missing.mac.clear();
    // B1's own key, over the same payload, signing a watch: the controller keys each table's
    // MAC for commands once, and it must not take another kind of message for one.
    let another_kind = client.envelope_as("mesa-B1", pozo_proto::Purpose::WatchTable, signed.payload.clone());
    for envelope in [flipped, tampered, other_secret, truncated, missing, another_kind] {
        let message = refused_raw(&mut client, envelope, Code::Unauthenticated).await;
        names(&message, &["mac: not the HMAC-SHA256 of a pozo.v1.TableCommand for this journal under key `mesa-B1`"]);
        before.unchanged(&mut client).await;
    }

    let reply = before.next_takes_the_same_sequence(&mut client, press(1)).await;
    assert_eq!(light(reply.table.as_ref().expect("view"), 1), pb::Light::On);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_tables_key_is_refused_and_changes_nothing() {
    // Proves a command for B1 signed (correctly) with B2's key, or with the office key, is PermissionDenied naming both tables.
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_credits("B1", &[(1, 5)]).await;
    client.ok("B2", open()).await;
    let before = before_refusal(&mut client, "B1").await;
    let b2 = client.fingerprint("B2").await;

    let envelope = client.envelope("mesa-B2", Client::payload("B1", before.sequence, press(1)));
    let message = refused_raw(&mut client, envelope, Code::PermissionDenied).await;
    names(&message, &["key `mesa-B2` belongs to table B2, not to table B1"]);
    before.unchanged(&mut client).await;
    assert_eq!(client.fingerprint("B2").await, b2, "B2 untouched as well");

    let office = client.envelope("vp-ana", Client::payload("B1", before.sequence, press(1)));
    let message = refused_raw(&mut client, office, Code::PermissionDenied).await;
    names(&message, &["key `vp-ana` is not a table key"]);
    before.unchanged(&mut client).await;

    // Nor may B2's key watch B1's panels.
    let watch = client.envelope_as(
        "mesa-B2",
        pozo_proto::Purpose::WatchTable,
        pb::WatchTable { table_id: "B1".into(), ..Default::default() }.encode_to_vec(),
    );
    let status = client.table.watch(watch).await.expect_err("another table's panels");
    assert_eq!(status.code(), Code::PermissionDenied, "{}", status.message());
    names(status.message(), &["belongs to table B2, not to table B1"]);

    before.next_takes_the_same_sequence(&mut client, press(1)).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_table_is_refused_and_changes_nothing() {
    // Proves a command for a table not in the layout is refused by the key check (PermissionDenied naming it), and the reports answer NotFound.
    let (server, mut client) = TestServer::with_client().await;
    client.ok("B1", open()).await;
    let before = before_refusal(&mut client, "B1").await;

    // Every key belongs to a layout table (config validation), so a table key can
    // never speak for an unknown table: the key check answers before any lookup.
    let envelope = client.envelope("mesa-B1", Client::payload("Z9", 1, open()));
    let message = refused_raw(&mut client, envelope, Code::PermissionDenied).await;
    names(&message, &["key `mesa-B1` belongs to table B1, not to table Z9"]);
    before.unchanged(&mut client).await;

    let status = client
        .reports
        .table(pb::TableReportRequest { table_id: "Z9".into(), jornada: String::new() })
        .await
        .expect_err("no such table");
    assert_eq!(status.code(), Code::NotFound, "{}", status.message());
    names(status.message(), &["table_id: no table `Z9` in the layout"]);
    let status = client
        .reports
        .pool(pb::PoolReportRequest { pool_id: "no-such-pool".into(), ..Default::default() })
        .await
        .expect_err("no such pool");
    assert_eq!(status.code(), Code::NotFound, "{}", status.message());
    names(status.message(), &["pool_id: no pool `no-such-pool`"]);
    before.unchanged(&mut client).await;

    before.next_takes_the_same_sequence(&mut client, sell(1, 1)).await;
    server.stop().await;
}

// ----------------------------------------------------------------------------- malformed envelopes

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_command_is_refused_and_changes_nothing() {
    // Proves a TableCommand without its oneof command is InvalidArgument naming the field.
    let (server, mut client) = TestServer::with_client().await;
    client.ok("B1", open()).await;
    let before = before_refusal(&mut client, "B1").await;
    let payload = pb::TableCommand { table_id: "B1".into(), sequence: before.sequence, command: None, ..Default::default() }
        .encode_to_vec();
    let envelope = client.envelope("mesa-B1", payload);
    let message = refused_raw(&mut client, envelope, Code::InvalidArgument).await;
    names(&message, &["command: missing"]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, sell(1, 5)).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_payload_bytes_are_refused_and_change_nothing() {
    // Proves correctly signed bytes that are not a TableCommand are InvalidArgument naming the payload.
    let (server, mut client) = TestServer::with_client().await;
    client.ok("B1", open()).await;
    let before = before_refusal(&mut client, "B1").await;
    let mut truncated = Client::payload("B1", before.sequence, sell(1, 5));
    truncated.pop();
    // Field 1 (table_id, a string) sent as a varint: the wrong wire type.
    let wrong_wire_type = vec![0x08, 0x01];
    for payload in [vec![0xff, 0xff, 0xff], truncated, wrong_wire_type] {
        let envelope = client.envelope("mesa-B1", payload);
        let message = refused_raw(&mut client, envelope, Code::InvalidArgument).await;
        names(&message, &["payload: not a TableCommand"]);
        before.unchanged(&mut client).await;
    }
    before.next_takes_the_same_sequence(&mut client, sell(1, 5)).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_payload_is_refused_and_changes_nothing() {
    // Proves a payload over 4 KiB is InvalidArgument naming its size, before any key or MAC work.
    let (server, mut client) = TestServer::with_client().await;
    client.ok("B1", open()).await;
    let before = before_refusal(&mut client, "B1").await;
    let payload = pb::TableCommand {
        table_id: "B".repeat(5000),
        sequence: before.sequence,
        command: Some(sell(1, 5)),
        ..Default::default()
    }
    .encode_to_vec();
    let size = payload.len();
    let envelope = client.envelope("mesa-B1", payload);
    let message = refused_raw(&mut client, envelope, Code::InvalidArgument).await;
    names(&message, &[&format!("payload: {size} bytes, over 4096")]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, sell(1, 5)).await;
    server.stop().await;
}

// ----------------------------------------------------------------------------- the round's rules

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn press_after_iniciar_is_refused_and_changes_nothing() {
    // Proves a press after INICIAR JUEGO is FailedPrecondition citing 12.5.1.1, at a card table and at roulette.
    let (server, mut client) = TestServer::with_client().await;
    client.round_started("B1", &[(1, 5), (2, 5)], &[1]).await;
    let before = before_refusal(&mut client, "B1").await;
    let message = client.refused("B1", press(2), Code::FailedPrecondition).await;
    names(&message, &["seat 2", "betting is closed after INICIAR JUEGO", "12.5.1.1"]);
    before.unchanged(&mut client).await;
    let finished = before.next_takes_the_same_sequence(&mut client, finish()).await;
    assert_eq!(finished.table.expect("view").seats[1].credits, 5, "seat 2 kept its credits");

    client.round_started("R1", &[(1, 5)], &[]).await;
    let before = before_refusal(&mut client, "R1").await;
    let message = client.refused("R1", press(1), Code::FailedPrecondition).await;
    names(&message, &["seat 1", "12.5.1.1"]);
    before.unchanged(&mut client).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prize_for_a_seat_with_no_bet_is_refused_and_changes_nothing() {
    // Proves a prize for a seat without a registered side bet (card table) or without that grillo (roulette) is FailedPrecondition citing the rule.
    let (server, mut client) = TestServer::with_client().await;
    client.round_started("B1", &[(1, 5), (2, 5)], &[1]).await;
    let before = before_refusal(&mut client, "B1").await;
    // Seat 2 has credits but did not press: no light, no prize (11.11.5).
    let message = client.refused("B1", prize(2, "CUATRO_ASES"), Code::FailedPrecondition).await;
    names(&message, &["seat 2 has no side bet registered in this round", "11.11.5"]);
    before.unchanged(&mut client).await;
    let message = client.refused("B1", prize(3, "CUATRO_ASES"), Code::FailedPrecondition).await;
    names(&message, &["seat 3 has no side bet registered", "11.11.5"]);
    before.unchanged(&mut client).await;
    let reply = before.next_takes_the_same_sequence(&mut client, prize(1, "CUATRO_ASES")).await;
    assert_eq!(reply.table.expect("view").pending_prizes.len(), 1);

    client.round_started("R1", &[(1, 1)], &[1]).await;
    let before = before_refusal(&mut client, "R1").await;
    let message = client.refused("R1", prize(2, "GRILLO_BRONCE"), Code::FailedPrecondition).await;
    names(&message, &["seat 2 holds no Grillo de Bronce in this ball", "3.1.3"]);
    before.unchanged(&mut client).await;
    // Seat 1 holds bronze, not silver.
    let message = client.refused("R1", prize(1, "GRILLO_PLATA"), Code::FailedPrecondition).await;
    names(&message, &["seat 1 holds no Grillo de Plata in this ball", "3.1.3"]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, prize(1, "GRILLO_BRONCE")).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gold_without_silver_is_refused_and_changes_nothing() {
    // Proves a Grillo de Oro prize, or a gold turn, for a table whose seats won no silver is FailedPrecondition citing 3.1.3.
    let (server, mut client) = TestServer::with_client().await;
    client.round_started("R1", &[(1, 5)], &[1]).await;
    let before = before_refusal(&mut client, "R1").await;
    let message = client.refused("R1", prize(1, "GRILLO_ORO"), Code::FailedPrecondition).await;
    names(&message, &["seat 1 holds no Grillo de Oro in this ball", "a gold is won with a silver (3.1.3)"]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, finish()).await;

    let before = before_refusal(&mut client, "R1").await;
    let message = client.refused("R1", gold_turn(), Code::FailedPrecondition).await;
    names(&message, &["no seat of table R1 holds a Grillo de Oro", "a gold is won with a silver (3.1.3)"]);
    before.unchanged(&mut client).await;
    assert_eq!(pb::GoldTurn::try_from(client.view("R1").await.gold_turn), Ok(pb::GoldTurn::None));
    before.next_takes_the_same_sequence(&mut client, press(1)).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn more_than_3_bronze_2_silver_1_gold_is_refused_and_changes_nothing() {
    // Proves a second press on a seat holding bronze, silver or gold is FailedPrecondition citing 3.7.2, and sells no grillo.
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_bets("R1", &[(1, 5)], &[1]).await;

    let before_bronze = before_refusal(&mut client, "R1").await;
    let message = client.refused("R1", press(1), Code::FailedPrecondition).await;
    names(&message, &["seat 1 holds 3 bronze, 0 silver, 0 gold", "more than 3 bronze / 2 silver / 1 gold", "3.7.2"]);
    before_bronze.unchanged(&mut client).await;
    assert_eq!(client.pool("iplyc-ruleta").await.bets, 1, "one series sold, not two");

    // Ball 1: the bronze hits; the seat holds two silver.
    before_bronze.next_takes_the_same_sequence(&mut client, start()).await;
    client.settle_round("R1", &[(1, "GRILLO_BRONCE")]).await;
    let before_silver = before_refusal(&mut client, "R1").await;
    let message = client.refused("R1", press(1), Code::FailedPrecondition).await;
    names(&message, &["seat 1 holds 0 bronze, 2 silver, 0 gold", "3.7.2"]);
    before_silver.unchanged(&mut client).await;

    // Ball 2: the silver hits; the seat holds the gold.
    before_silver.next_takes_the_same_sequence(&mut client, start()).await;
    client.settle_round("R1", &[(1, "GRILLO_PLATA")]).await;
    let before_gold = before_refusal(&mut client, "R1").await;
    let message = client.refused("R1", press(1), Code::FailedPrecondition).await;
    names(&message, &["seat 1 holds 0 bronze, 0 silver, 1 gold", "3.7.2"]);
    before_gold.unchanged(&mut client).await;
    let view = before_gold.next_takes_the_same_sequence(&mut client, gold_turn()).await.table.expect("view");
    assert_eq!((view.seats[0].bronze, view.seats[0].silver, view.seats[0].gold, view.seats[0].credits), (0, 0, 1, 4));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn code_not_in_the_paytable_is_refused_and_changes_nothing() {
    // Proves a premio code of another pool, an unknown one, or an overlong one is InvalidArgument naming the code and the pool's paytable.
    let (server, mut client) = TestServer::with_client().await;
    client.round_started("B1", &[(1, 5)], &[1]).await;
    let before = before_refusal(&mut client, "B1").await;

    let message = client.refused("B1", prize(1, "ESCALERA_REAL_MAYOR"), Code::InvalidArgument).await;
    names(&message, &["code: `ESCALERA_REAL_MAYOR` is not in the paytable of pool `iplyc-blackjack`", "CUATRO_ASES"]);
    before.unchanged(&mut client).await;
    let message = client.refused("B1", prize(1, "cuatro_ases"), Code::InvalidArgument).await;
    names(&message, &["code: `cuatro_ases` is not in the paytable"]);
    before.unchanged(&mut client).await;
    let message = client.refused("B1", prize(1, ""), Code::InvalidArgument).await;
    names(&message, &["code: `` is not in the paytable"]);
    before.unchanged(&mut client).await;
    let message = client.refused("B1", prize(1, &"X".repeat(65)), Code::InvalidArgument).await;
    names(&message, &["code: longer than 64 characters"]);
    before.unchanged(&mut client).await;

    before.next_takes_the_same_sequence(&mut client, prize(1, "CUATRO_ASES")).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credits_not_in_1_5_10_20_are_refused_and_change_nothing() {
    // Proves a sale of any amount but 1, 5, 10 or 20 credits is InvalidArgument citing 12.5.3.3.
    let (server, mut client) = TestServer::with_client().await;
    client.ok("B1", open()).await;
    let before = before_refusal(&mut client, "B1").await;
    for credits in [0, 2, 3, 4, 15, 21, 100, u32::MAX] {
        let message = client.refused("B1", sell(1, credits), Code::InvalidArgument).await;
        names(&message, &[&format!("credits: {credits} is not one of 1, 5, 10, 20"), "12.5.3.3"]);
        before.unchanged(&mut client).await;
    }
    let reply = before.next_takes_the_same_sequence(&mut client, sell(1, 20)).await;
    assert_eq!(reply.table.expect("view").seats[0].credits, 20);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn press_without_credits_is_refused_and_changes_nothing() {
    // Proves a press on a seat without credits (never sold, or all spent) is FailedPrecondition citing 12.5.3.4.
    let (server, mut client) = TestServer::with_client().await;
    client.ok("B1", open()).await;
    let before = before_refusal(&mut client, "B1").await;
    let message = client.refused("B1", press(1), Code::FailedPrecondition).await;
    names(&message, &["seat 1 has no credits", "12.5.3.4"]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, sell(2, 1)).await;

    // Roulette: no credit, no Grillos de Bronce.
    client.ok("R1", open()).await;
    let before = before_refusal(&mut client, "R1").await;
    let message = client.refused("R1", press(4), Code::FailedPrecondition).await;
    names(&message, &["seat 4 has no credits", "12.5.3.4"]);
    before.unchanged(&mut client).await;
    assert_eq!(client.pool("iplyc-ruleta").await.bets, 0);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn selling_credits_after_iniciar_is_refused_and_changes_nothing() {
    // Proves a sale of credits once the round is started (or accepted) is FailedPrecondition citing 12.5.3.2.
    let (server, mut client) = TestServer::with_client().await;
    client.round_started("B1", &[(1, 5)], &[1]).await;
    let before = before_refusal(&mut client, "B1").await;
    let message = client.refused("B1", sell(2, 5), Code::FailedPrecondition).await;
    names(&message, &["credits are sold only while the round is not started", "12.5.3.2"]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, prize(1, "CUATRO_ASES")).await;

    client.ok("B1", accept()).await;
    let before = before_refusal(&mut client, "B1").await;
    let message = client.refused("B1", sell(1, 1), Code::FailedPrecondition).await;
    names(&message, &["12.5.3.2"]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, finish()).await;
    client.ok("B1", sell(2, 5)).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_12_5_2_1_finalizar_closes_the_prize_entry_and_only_aceptar_follows_it() {
    // Proves the dealer's buttons in the article's order: 12.5.2.1 "a) Número de Apostador
    // ganador. b) juego ganador. c) ingresar presionando el botón FINALIZAR JUEGO. d) digitar
    // el botón ACEPTAR para validar el premio". FINALIZAR JUEGO with a prize entered closes
    // the entry and fixes nothing; a second FINALIZAR or another prize before ACEPTAR is
    // FailedPrecondition citing 12.5.2.1 and changes nothing; ACEPTAR then fixes the award.
    let (server, mut client) = TestServer::with_client().await;
    client.round_started("B1", &[(1, 5), (2, 5)], &[1, 2]).await;
    client.ok("B1", prize(1, "CUATRO_ASES")).await;
    let balance = amount(&client.pool("iplyc-blackjack").await.balance);
    let entered = client.ok("B1", finish()).await;
    assert!(
        entered.outcome.contains("FINALIZAR JUEGO: 1 premio ingresado; ACEPTAR para validarlo (12.5.2.1 c–d)"),
        "{}",
        entered.outcome
    );
    let view = entered.table.expect("view");
    assert_eq!((view.state.as_str(), view.round, view.pending_prizes.len()), ("premios ingresados", 1, 1));
    assert!(entered.awards.is_empty(), "FINALIZAR JUEGO fixes no award: ACEPTAR does (3.5.1)");
    assert_eq!(amount(&client.pool("iplyc-blackjack").await.balance), balance, "nothing paid yet");
    let before = before_refusal(&mut client, "B1").await;
    let message = client.refused("B1", finish(), Code::FailedPrecondition).await;
    names(&message, &["wait for ACEPTAR", "12.5.2.1 d"]);
    before.unchanged(&mut client).await;
    let message = client.refused("B1", prize(2, "TRES_SIETES"), Code::FailedPrecondition).await;
    names(&message, &["entered with FINALIZAR JUEGO", "ACEPTAR validates them", "12.5.2.1 c–d"]);
    before.unchanged(&mut client).await;
    let accepted = before.next_takes_the_same_sequence(&mut client, accept()).await;
    assert_eq!(amount(&accepted.awards[0].award), "500.00");
    assert_eq!(accepted.table.expect("view").state, "aceptado");
    // 12.5.2.3: the FINALIZAR JUEGO at the rack ends the round and enables the panels.
    let view = client.ok("B1", finish()).await.table.expect("view");
    assert_eq!((view.state.as_str(), view.round), ("apuestas", 2));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cierre_de_mesa_with_credits_not_returned_is_refused_and_changes_nothing() {
    // Proves Cierre de Mesa with credits on a seat is FailedPrecondition naming the seat and citing 12.8.1; once paid back it closes.
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_credits("B1", &[(3, 5)]).await;
    let before = before_refusal(&mut client, "B1").await;
    let message = client.refused("B1", close(), Code::FailedPrecondition).await;
    names(&message, &["seat 3: 5 credits not returned", "before Cierre de Mesa (12.8.1)"]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, refund_credits(3)).await;
    assert_eq!(client.ok("B1", close()).await.table.expect("view").state, "cerrada");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cierre_de_mesa_during_a_round_or_with_a_loaded_bet_is_refused_and_changes_nothing() {
    // Proves Cierre de Mesa during a round, or with a pressed bet, is FailedPrecondition citing 4.7.7.
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_bets("B1", &[(1, 1)], &[1]).await;
    let before = before_refusal(&mut client, "B1").await;
    let message = client.refused("B1", close(), Code::FailedPrecondition).await;
    names(&message, &["seat 1: a bet is loaded", "4.7.7"]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, start()).await;

    let before = before_refusal(&mut client, "B1").await;
    let message = client.refused("B1", close(), Code::FailedPrecondition).await;
    names(&message, &["FINALIZAR JUEGO before Cierre de Mesa (4.7.7)"]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, finish()).await;
    client.ok("B1", close()).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn command_on_a_closed_table_is_refused_and_changes_nothing() {
    // Proves any table operation before Apertura de Mesa, or after Cierre de Mesa, is FailedPrecondition citing 4.6.
    let (server, mut client) = TestServer::with_client().await;
    let before = before_refusal(&mut client, "B1").await;
    for command in [
        sell(1, 5),
        press(1),
        start(),
        prize(1, "CUATRO_ASES"),
        accept(),
        finish(),
        close(),
        refund_credits(1),
        void_bet(1),
        last_round(),
    ] {
        let message = client.refused("B1", command, Code::FailedPrecondition).await;
        names(&message, &["table B1 is closed: Apertura de Mesa first (4.6)"]);
        before.unchanged(&mut client).await;
    }
    before.next_takes_the_same_sequence(&mut client, open()).await;

    client.ok("B1", close()).await;
    let before = before_refusal(&mut client, "B1").await;
    let message = client.refused("B1", sell(1, 5), Code::FailedPrecondition).await;
    names(&message, &["table B1 is closed", "(4.6)"]);
    before.unchanged(&mut client).await;
    // Roulette: the buttons are blocked at the close (4.7.7).
    let message = client.refused("R1", press(1), Code::FailedPrecondition).await;
    names(&message, &["table R1 is closed", "(4.6)"]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, open()).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seat_out_of_range_is_refused_and_changes_nothing() {
    // Proves seat 0 or a seat past the table's last is InvalidArgument naming the seat and the table's range.
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_credits("B1", &[(1, 5)]).await;
    let before = before_refusal(&mut client, "B1").await;
    for command in [sell(0, 5), sell(8, 5), press(0), press(8), refund_credits(8), void_bet(9), sell(u32::MAX, 1)] {
        let message = client.refused("B1", command, Code::InvalidArgument).await;
        assert!(message.starts_with("seat: "), "{message}");
        names(&message, &["is not a seat of table B1 (1–7)"]);
        before.unchanged(&mut client).await;
    }
    before.next_takes_the_same_sequence(&mut client, press(1)).await;
    client.ok("B1", start()).await;
    let before = before_refusal(&mut client, "B1").await;
    let message = client.refused("B1", prize(8, "CUATRO_ASES"), Code::InvalidArgument).await;
    names(&message, &["seat: 8 is not a seat of table B1 (1–7)"]);
    before.unchanged(&mut client).await;

    // Roulette tables have 8 seats: 8 is a seat there, 9 is not.
    client.ok("R1", open()).await;
    let before = before_refusal(&mut client, "R1").await;
    let message = client.refused("R1", sell(9, 1), Code::InvalidArgument).await;
    names(&message, &["seat: 9 is not a seat of table R1 (1–8)"]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, sell(8, 1)).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn more_than_500_credits_on_a_seat_is_refused_and_changes_nothing() {
    // Proves a sale that would take a seat past 500 credits is InvalidArgument naming the bound.
    let (server, mut client) = TestServer::with_client().await;
    client.ok("B1", open()).await;
    for _ in 0..25 {
        client.ok("B1", sell(1, 20)).await;
    }
    let before = before_refusal(&mut client, "B1").await;
    let message = client.refused("B1", sell(1, 1), Code::InvalidArgument).await;
    names(&message, &["credits: seat 1 would hold more than 500"]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, sell(2, 1)).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_press_on_a_card_seat_is_refused_and_changes_nothing() {
    // Proves a second side bet on one box in one round is FailedPrecondition citing 11.4, and spends no credit.
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_bets("B1", &[(1, 5)], &[1]).await;
    let before = before_refusal(&mut client, "B1").await;
    let message = client.refused("B1", press(1), Code::FailedPrecondition).await;
    names(&message, &["seat 1 already has its side bet this round", "11.4"]);
    before.unchanged(&mut client).await;
    let view = before.next_takes_the_same_sequence(&mut client, start()).await.table.expect("view");
    assert_eq!(view.seats[0].credits, 4);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn round_order_refusals_change_nothing() {
    // Proves INICIAR twice, ACEPTAR with no prize, a prize before INICIAR, FINALIZAR with no round and a second Apertura are FailedPrecondition citing their articles.
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_bets("B1", &[(1, 5)], &[1]).await;

    let before = before_refusal(&mut client, "B1").await;
    let message = client.refused("B1", open(), Code::FailedPrecondition).await;
    names(&message, &["table B1 is already open"]);
    before.unchanged(&mut client).await;
    let message = client.refused("B1", prize(1, "CUATRO_ASES"), Code::FailedPrecondition).await;
    names(&message, &["prizes are entered after INICIAR JUEGO and before ACEPTAR (12.5.2.1)"]);
    before.unchanged(&mut client).await;
    let message = client.refused("B1", accept(), Code::FailedPrecondition).await;
    names(&message, &["ACEPTAR validates prizes entered after INICIAR JUEGO (12.5.2.1)"]);
    before.unchanged(&mut client).await;
    let message = client.refused("B1", finish(), Code::FailedPrecondition).await;
    names(&message, &["FINALIZAR JUEGO ends a round started with INICIAR JUEGO (12.5.2.3)"]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, start()).await;

    let before = before_refusal(&mut client, "B1").await;
    let message = client.refused("B1", start(), Code::FailedPrecondition).await;
    names(&message, &["INICIAR JUEGO: the round is already started; FINALIZAR JUEGO first (12.5.2.3)"]);
    before.unchanged(&mut client).await;
    let message = client.refused("B1", accept(), Code::FailedPrecondition).await;
    names(&message, &["ACEPTAR: no prize entered", "12.5.2.1"]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, prize(1, "CUATRO_ASES")).await;
    client.ok("B1", accept()).await;

    let before = before_refusal(&mut client, "B1").await;
    let message = client.refused("B1", prize(1, "TRES_SIETES"), Code::FailedPrecondition).await;
    names(&message, &["12.5.2.1"]);
    before.unchanged(&mut client).await;
    let message = client.refused("B1", accept(), Code::FailedPrecondition).await;
    names(&message, &["12.5.2.1"]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, finish()).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credit_and_bet_corrections_without_their_object_are_refused_and_change_nothing() {
    // Proves pago de créditos with none, Anular with no bet or after INICIAR, and a refund of a box without a bet are FailedPrecondition citing their articles.
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_bets("B1", &[(1, 5)], &[1]).await;
    let before = before_refusal(&mut client, "B1").await;
    let message = client.refused("B1", refund_credits(2), Code::FailedPrecondition).await;
    names(&message, &["seat 2 has no credits to pay back (12.5.3.5)"]);
    before.unchanged(&mut client).await;
    let message = client.refused("B1", void_bet(2), Code::FailedPrecondition).await;
    names(&message, &["seat 2 has no bet to void (4.3.2)"]);
    before.unchanged(&mut client).await;
    let message = client.refused("B1", C::RefundBet(pb::RefundBet { seat: 1 }), Code::FailedPrecondition).await;
    names(&message, &["after INICIAR JUEGO (11.8.1.2)"]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, start()).await;

    let before = before_refusal(&mut client, "B1").await;
    let message = client.refused("B1", void_bet(1), Code::FailedPrecondition).await;
    names(&message, &["a bet is voided before it is played", "4.3.2, 11.8.1.2"]);
    before.unchanged(&mut client).await;
    let message = client.refused("B1", C::RefundBet(pb::RefundBet { seat: 2 }), Code::FailedPrecondition).await;
    names(&message, &["seat 2 has no side bet registered to refund (11.8.1.2)"]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, C::RefundBet(pb::RefundBet { seat: 1 })).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bets_in_a_burnt_round_and_carrying_at_roulette_are_refused_and_change_nothing() {
    // Proves a press after a burnt round (11.8.1.1) and carrying roulette bets are FailedPrecondition citing 11.8.1.1.
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_bets("B1", &[(1, 5), (2, 5)], &[1]).await;
    let before = before_refusal(&mut client, "B1").await;
    let message = client.refused("B1", carry_bets(), Code::FailedPrecondition).await;
    names(&message, &["a round is burnt only after INICIAR JUEGO and before any prize (11.8.1.1)"]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, start()).await;
    client.ok("B1", carry_bets()).await;
    let before = before_refusal(&mut client, "B1").await;
    let message = client.refused("B1", press(2), Code::FailedPrecondition).await;
    names(&message, &["the bets of the burnt round compete in this hand: no new bets (11.8.1.1)"]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, start()).await;

    client.round_started("R1", &[(1, 1)], &[1]).await;
    let before = before_refusal(&mut client, "R1").await;
    let message = client.refused("R1", carry_bets(), Code::FailedPrecondition).await;
    names(&message, &["roulette bets are not carried", "11.8.1.1"]);
    before.unchanged(&mut client).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sales_after_the_last_round_are_refused_and_change_nothing() {
    // Proves no credits are sold and no bronze is sold once the last round / last ball is announced (3.9.1, 11.10.1), nor is it announced twice.
    let (server, mut client) = TestServer::with_client().await;
    client.ok("B1", open()).await;
    client.ok("B1", last_round()).await;
    let before = before_refusal(&mut client, "B1").await;
    let message = client.refused("B1", sell(1, 5), Code::FailedPrecondition).await;
    names(&message, &["last round announced: no more credits are sold (3.9.1, 11.10.1)"]);
    before.unchanged(&mut client).await;
    let message = client.refused("B1", last_round(), Code::FailedPrecondition).await;
    names(&message, &["the last round is already announced"]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, start()).await;

    client.open_with_credits("R1", &[(1, 5)]).await;
    client.ok("R1", last_round()).await;
    let before = before_refusal(&mut client, "R1").await;
    let message = client.refused("R1", press(1), Code::FailedPrecondition).await;
    names(&message, &["last ball announced: Grillos de Bronce are no longer sold (3.9.1)"]);
    before.unchanged(&mut client).await;
    before.next_takes_the_same_sequence(&mut client, refund_credits(1)).await;
    server.stop().await;
}

// ----------------------------------------------------------------------------- Venta-Pagos

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn venta_pagos_call_with_a_table_key_is_refused_and_changes_nothing() {
    // Proves every Venta-Pagos call signed with a table key (correct MAC) is PermissionDenied, and the order stays pending.
    let (server, mut client) = TestServer::with_client().await;
    let order_id = client.open_b3_with_a_pending_order(1).await;
    let before = before_refusal(&mut client, "B3").await;

    let confirm = client.confirm_command(&order_id, "F-4104-0001").await;
    let reject = client.reject_command(&order_id, "forjada").await;
    let list = pb::office_command::Command::List(pb::ListPayouts { status: "all".into() });
    let signed = |command: &pb::office_command::Command| client.office_envelope_as("mesa-B3", command.clone());
    let (confirm_envelope, reject_envelope, list_envelope) = (signed(&confirm), signed(&reject), signed(&list));

    let statuses = [
        client.office.confirm(confirm_envelope).await.expect_err("a table key confirms nothing"),
        client.office.reject(reject_envelope).await.expect_err("a table key rejects nothing"),
        client.office.list(list_envelope).await.expect_err("a table key lists nothing"),
    ];
    for status in statuses {
        assert_eq!(status.code(), Code::PermissionDenied, "{}", status.message());
        names(status.message(), &["key `mesa-B3` is a table key; Venta-Pagos needs an operator's office key"]);
        before.unchanged(&mut client).await;
    }

    let confirmed = client.office.confirm(client.office_envelope(confirm)).await.expect("the office key").into_inner();
    assert_eq!(confirmed.status, "confirmada");
    assert_eq!(client.journal().await.entries, before.entries + 1);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn confirm_of_an_unknown_order_is_refused_and_changes_nothing() {
    // Proves confirming or rejecting an order that does not exist is NotFound naming the order_id.
    let (server, mut client) = TestServer::with_client().await;
    let order_id = client.open_b3_with_a_pending_order(1).await;
    let before = before_refusal(&mut client, "B3").await;

    let expect = facts(&client.order(&order_id).await);
    let confirm = pb::office_command::Command::Confirm(pb::ConfirmPayout {
        order_id: "OP-999999".into(),
        form_number: "F-1".into(),
        expect: Some(expect.clone()),
    });
    let status = client.office.confirm(client.office_envelope(confirm)).await.expect_err("no such order");
    assert_eq!(status.code(), Code::NotFound, "{}", status.message());
    names(status.message(), &["order_id: no payout order `OP-999999`"]);
    before.unchanged(&mut client).await;

    let reject = pb::office_command::Command::Reject(pb::RejectPayout {
        order_id: String::new(),
        reason: "x".into(),
        expect: Some(expect),
    });
    let status = client.office.reject(client.office_envelope(reject)).await.expect_err("no such order");
    assert_eq!(status.code(), Code::NotFound, "{}", status.message());
    names(status.message(), &["order_id: no payout order ``"]);
    before.unchanged(&mut client).await;

    client.confirm(&order_id, "F-1").await.expect("the real order");
    assert_eq!(client.journal().await.entries, before.entries + 1);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn office_decisions_with_bad_fields_or_state_are_refused_and_change_nothing() {
    // Proves a confirm without a form, a reject without reason, a decision without the facts shown, a wrong command for the call, a bad list filter (InvalidArgument) and a decision on a decided order (FailedPrecondition) change nothing.
    let (server, mut client) = TestServer::with_client().await;
    let order_id = client.open_b3_with_a_pending_order(1).await;
    let before = before_refusal(&mut client, "B3").await;

    let shown = facts(&client.order(&order_id).await);
    let confirm = |form: &str| {
        pb::office_command::Command::Confirm(pb::ConfirmPayout {
            order_id: order_id.clone(),
            form_number: form.into(),
            expect: Some(shown.clone()),
        })
    };
    for form in ["", "  ", &"9".repeat(65)] {
        let status = client.office.confirm(client.office_envelope(confirm(form))).await.expect_err("a bad field");
        assert_eq!(status.code(), Code::InvalidArgument, "{}", status.message());
        names(status.message(), &["form_number: required, 1–64 characters (3.5.2"]);
        before.unchanged(&mut client).await;
    }
    let blind = pb::office_command::Command::Confirm(pb::ConfirmPayout {
        order_id: order_id.clone(),
        form_number: "F-1".into(),
        expect: None,
    });
    let status = client.office.confirm(client.office_envelope(blind)).await.expect_err("no facts");
    assert_eq!(status.code(), Code::InvalidArgument, "{}", status.message());
    names(status.message(), &["expect: required"]);
    before.unchanged(&mut client).await;
    let reject = |reason: &str| {
        pb::office_command::Command::Reject(pb::RejectPayout {
            order_id: order_id.clone(),
            reason: reason.into(),
            expect: Some(shown.clone()),
        })
    };
    let status = client.office.reject(client.office_envelope(reject(""))).await.expect_err("no reason");
    assert_eq!(status.code(), Code::InvalidArgument, "{}", status.message());
    names(status.message(), &["reason: required, 1–256 characters"]);
    before.unchanged(&mut client).await;

    let status = client.office.confirm(client.office_envelope(reject("naipes marcados"))).await.expect_err("the wrong call");
    assert_eq!(status.code(), Code::InvalidArgument, "{}", status.message());
    names(status.message(), &["command: Confirm takes a ConfirmPayout"]);
    before.unchanged(&mut client).await;
    let list = pb::office_command::Command::List(pb::ListPayouts { status: "pagadas".into() });
    let status = client.office.list(client.office_envelope(list)).await.expect_err("a bad filter");
    assert_eq!(status.code(), Code::InvalidArgument, "{}", status.message());
    names(status.message(), &["status: `pagadas`"]);
    before.unchanged(&mut client).await;

    client.office.confirm(client.office_envelope(confirm("F-1"))).await.expect("confirmed");
    let before = before_refusal(&mut client, "B3").await;
    let status = client.office.reject(client.office_envelope(reject("tarde"))).await.expect_err("already decided");
    assert_eq!(status.code(), Code::FailedPrecondition, "{}", status.message());
    names(status.message(), &[&format!("order {order_id} is already confirmada by `vp-ana` (Ana Pereyra)")]);
    before.unchanged(&mut client).await;
    let second_operator = client.office_envelope_as("vp-bruno", confirm("F-2"));
    let status = client.office.confirm(second_operator).await.expect_err("already decided");
    assert_eq!(status.code(), Code::FailedPrecondition, "{}", status.message());
    names(status.message(), &["is already confirmada"]);
    before.unchanged(&mut client).await;
    server.stop().await;
}

// ----------------------------------------------------------------------------- found bugs

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reply_view_names_the_sequence_just_applied() {
    // Proves the view in a command's answer ("the table as the command left it") carries that command's sequence, as the pushed view does.
    let (server, mut client) = TestServer::with_client().await;
    let opened = client.ok("B1", open()).await;
    client.journal().await;
    assert_eq!(client.view("B1").await.last_sequence, 1, "the pushed view");
    assert_eq!(opened.table.expect("view").last_sequence, 1, "the answer's view");
    let sold = client.ok("B1", sell(1, 5)).await;
    assert_eq!(sold.table.expect("view").last_sequence, 2, "the answer's view");
    server.stop().await;
}
