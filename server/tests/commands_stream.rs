//! `Table/Commands`: a table agent's commands on one long-lived stream, against the real
//! controller on 127.0.0.1:0. Each envelope is checked and made durable as `Table/Submit`'s
//! is and answered in order; a refusal ends the stream with Submit's status and changes
//! nothing; the same bytes sent again (on a new stream or by Submit) get the recorded answer;
//! a stream left open does not hold the controller's shutdown.

mod common;

use common::*;
use pozo_proto::v1 as pb;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Code;

/// An open `Commands` stream: envelopes in, answers out.
struct Stream {
    sender: mpsc::Sender<pb::Envelope>,
    replies: tonic::Streaming<pb::SubmitReply>,
}

impl Stream {
    async fn open(client: &mut Client) -> Stream {
        let (sender, receiver) = mpsc::channel(4);
        let replies = client.table.commands(ReceiverStream::new(receiver)).await.expect("the stream opens").into_inner();
        Stream { sender, replies }
    }

    /// Sends one envelope and reads its answer: `Ok(None)` if the stream ended instead.
    async fn send(&mut self, envelope: pb::Envelope) -> Result<Option<pb::SubmitReply>, tonic::Status> {
        self.sender.send(envelope).await.expect("the stream takes the envelope");
        self.replies.message().await
    }
}

fn envelope(client: &Client, table: &str, sequence: u64, command: pb::table_command::Command) -> pb::Envelope {
    client.envelope(&format!("mesa-{table}"), Client::payload(table, sequence, command))
}

// Proves that commands on one stream are journaled once each, answered in the order sent, each
// answer the one the journal records: the last command's bytes sent again by Submit get the
// identical answer, and journal nothing (exactly once, docs/api.md §3).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_on_one_stream_are_answered_in_order_and_journaled_once() {
    let (server, mut client) = TestServer::with_client().await;
    let entries_before = client.journal().await.entries;
    let commands = [open(), sell(1, 10), sell(2, 10), press(1), press(2), start(), finish(), press(1)];
    let envelopes: Vec<pb::Envelope> =
        commands.iter().enumerate().map(|(index, command)| envelope(&client, "B1", index as u64 + 1, command.clone())).collect();
    let mut stream = Stream::open(&mut client).await;
    let mut answers = Vec::new();
    for envelope in &envelopes {
        answers.push(stream.send(envelope.clone()).await.expect("applied").expect("an answer"));
    }
    let sequences: Vec<u64> = answers.iter().map(|answer| answer.sequence).collect();
    assert_eq!(sequences, (1..=commands.len() as u64).collect::<Vec<_>>(), "answered in the order sent");
    assert!(answers.windows(2).all(|pair| pair[0].journal_sequence < pair[1].journal_sequence), "{answers:?}");
    let lit = answers[4].table.as_ref().expect("a view").seats.iter().filter(|seat| seat.light == pb::Light::On as i32).count();
    assert_eq!(lit, 2, "both presses lit their seats: {:?}", answers[4]);
    assert_eq!(client.journal().await.entries, entries_before + commands.len() as u64, "one entry per command");

    // The last command's bytes again, by Submit (an agent's retry): the recorded answer; an
    // older one: refused as already applied. Nothing journaled either way.
    let last = answers.last().expect("answers");
    let again = client.table.submit(envelopes.last().expect("envelopes").clone()).await.expect("the recorded answer");
    assert_eq!(again.get_ref(), last, "the very answer the stream gave");
    let older = client.table.submit(envelopes[2].clone()).await.expect_err("already applied");
    assert_eq!(older.code(), Code::AlreadyExists, "{}", older.message());
    assert_eq!(client.journal().await.entries, entries_before + commands.len() as u64, "nothing journaled twice");
    server.stop().await;
}

// Proves that a refused command ends the stream with the status Submit answers it with, names
// its field, and changes nothing: the journal and the table are as they were, and the next
// command, on a new stream, takes the same sequence (a refusal does not use it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_ends_the_stream_with_submit_s_status_and_changes_nothing() {
    let (server, mut client) = TestServer::with_client().await;
    let mut stream = Stream::open(&mut client).await;
    stream.send(envelope(&client, "B1", 1, open())).await.expect("opened").expect("an answer");
    let before = (client.journal().await.entries, client.fingerprint("B1").await);

    // Seat 3 has no credits: refused, as Submit refuses it.
    let refused = stream.send(envelope(&client, "B1", 2, press(3))).await.expect_err("no credits at seat 3");
    assert_eq!(refused.code(), Code::FailedPrecondition, "{}", refused.message());
    let by_submit = client.table.submit(envelope(&client, "B1", 2, press(3))).await.expect_err("refused by Submit too");
    assert_eq!((by_submit.code(), by_submit.message()), (refused.code(), refused.message()));
    let motivo = pozo_proto::motivo(&refused);
    assert!(motivo.is_some(), "the Spanish words travel with a refusal on the stream: {:?}", refused.metadata());
    assert_eq!(motivo, pozo_proto::motivo(&by_submit), "the same Spanish words as Submit's");
    assert_eq!((client.journal().await.entries, client.fingerprint("B1").await), before, "nothing changed");
    // The refusal ended the stream: a command sent on it after is neither applied nor answered.
    let _ = stream.sender.send(envelope(&client, "B1", 2, sell(3, 5))).await;
    assert!(stream.replies.message().await.expect("ended cleanly").is_none(), "the stream ended with the refusal");
    assert_eq!((client.journal().await.entries, client.fingerprint("B1").await), before, "nothing changed");

    // A MAC that is not the table's: UNAUTHENTICATED, naming the MAC.
    let mut stream = Stream::open(&mut client).await;
    let mut forged = envelope(&client, "B1", 2, sell(3, 5));
    forged.mac[0] ^= 1;
    let refused = stream.send(forged).await.expect_err("a forged MAC");
    assert_eq!(refused.code(), Code::Unauthenticated);
    assert!(refused.message().starts_with("mac:"), "{}", refused.message());
    assert_eq!((client.journal().await.entries, client.fingerprint("B1").await), before, "nothing changed");

    // The next command takes sequence 2, on a new stream.
    let mut stream = Stream::open(&mut client).await;
    let sold = stream.send(envelope(&client, "B1", 2, sell(3, 5))).await.expect("sold").expect("an answer");
    assert_eq!(sold.sequence, 2);
    assert_eq!(client.journal().await.entries, before.0 + 1);
    server.stop().await;
}

// Proves that a stream an agent keeps open does not hold the controller's shutdown: waiting for
// its next command, it ends at once with UNAVAILABLE "the controller is stopping" (the agent
// shows SUSPENDIDO and reconnects), not cut off when the grace period runs out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_stream_ends_unavailable_when_the_controller_stops() {
    let (server, mut client) = TestServer::with_client().await;
    let mut stream = Stream::open(&mut client).await;
    stream.send(envelope(&client, "B1", 1, open())).await.expect("opened").expect("an answer");
    let stopping = tokio::spawn(server.stop());
    // Bounded: without the end at the stop, the stream outlives the grace period and this read
    // would wait for ever.
    let ended = tokio::time::timeout(std::time::Duration::from_secs(20), stream.replies.message())
        .await
        .expect("the stream ends while the controller stops, not never")
        .expect_err("the stream ends as the controller stops");
    assert_eq!(ended.code(), Code::Unavailable, "{}", ended.message());
    assert_eq!(ended.message(), "the controller is stopping");
    stopping.await.expect("stopped");
}
