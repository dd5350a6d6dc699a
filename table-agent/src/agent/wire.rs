//! The command in flight on the wire: each attempt sent on the table's `Table/Commands` stream,
//! kept open across commands, instead of a `Table/Submit` call per command: the same signed
//! bytes, the same answers, without a call set up for every press (docs/agent.md section 7).
//!
//! The stream belongs to one connection: a reconnection closes it ([`Wire::close`], under the
//! wire's lock, where the supervisor takes the new connection). An attempt that fails or times out
//! drops it, so an answer left on it is never read as the next command's; the next attempt opens
//! another. A controller that does not know `Commands` (an older release answers UNIMPLEMENTED) is
//! sent `Submit` for as long as that connection lasts.

use pozo_proto::v1 as pb;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Code;
use tonic::transport::Channel;

use super::ATTEMPT_TIMEOUT;

/// An open `Table/Commands` stream: one envelope sent, its answer read, then the next. What the
/// agent sends on, and the simulator's and the tests' clients with it.
pub struct CommandStream {
    /// One envelope at a time: a table has one command in flight.
    sender: mpsc::Sender<pb::Envelope>,
    replies: tonic::Streaming<pb::SubmitReply>,
}

impl CommandStream {
    /// Opens the table's stream on `client`'s connection.
    pub async fn open(client: &mut pb::table_client::TableClient<Channel>) -> Result<CommandStream, tonic::Status> {
        let (sender, receiver) = mpsc::channel(1);
        let replies = client.commands(ReceiverStream::new(receiver)).await?.into_inner();
        Ok(CommandStream { sender, replies })
    }

    /// Sends `envelope` and reads its answer: the reply, the refusal that ended the stream, or
    /// UNAVAILABLE for a stream that closed or ended without one. After an error the stream is
    /// done with: open another.
    pub async fn send(&mut self, envelope: pb::Envelope) -> Result<pb::SubmitReply, tonic::Status> {
        if self.sender.send(envelope).await.is_err() {
            return Err(tonic::Status::unavailable("the command stream closed"));
        }
        match self.replies.message().await {
            Ok(Some(reply)) => Ok(reply),
            Ok(None) => Err(tonic::Status::unavailable("the command stream ended without an answer")),
            Err(status) => Err(status),
        }
    }
}

/// The table's command stream, if one is open, on the agent's current connection.
#[derive(Default)]
pub(super) struct Wire {
    stream: Option<CommandStream>,
    /// This connection's controller answered `Commands` with UNIMPLEMENTED.
    unary: bool,
}

impl Wire {
    /// Forgets the connection that is gone (a reconnection): its stream, which would otherwise
    /// keep that connection, its pings and a place at the controller until the next command, and
    /// whether its controller knew `Commands` (the next one is asked again).
    pub(super) fn close(&mut self) {
        *self = Wire::default();
    }

    /// One attempt at `envelope` on `channel`, within [`ATTEMPT_TIMEOUT`]: the server's answer,
    /// its refusal, or the link's failure (a timeout is DEADLINE_EXCEEDED).
    pub(super) async fn attempt(&mut self, channel: Channel, envelope: pb::Envelope) -> Result<pb::SubmitReply, tonic::Status> {
        let answer = tokio::time::timeout(ATTEMPT_TIMEOUT, self.send(channel, envelope)).await;
        let answer = answer.unwrap_or_else(|_| Err(tonic::Status::deadline_exceeded("no answer within the attempt's time")));
        if answer.is_err() {
            // A refusal ends the stream on the server's side; a failure or a timeout may leave an
            // answer on it that belongs to this attempt, not to the next one.
            self.stream = None;
        }
        answer
    }

    async fn send(&mut self, channel: Channel, envelope: pb::Envelope) -> Result<pb::SubmitReply, tonic::Status> {
        let mut client = pb::table_client::TableClient::new(channel);
        if self.unary {
            return client.submit(envelope).await.map(tonic::Response::into_inner);
        }
        let stream = match &mut self.stream {
            Some(stream) => stream,
            None => match CommandStream::open(&mut client).await {
                Ok(stream) => self.stream.insert(stream),
                Err(status) if status.code() == Code::Unimplemented => {
                    self.unary = true;
                    return client.submit(envelope).await.map(tonic::Response::into_inner);
                }
                Err(status) => return Err(status),
            },
        };
        stream.send(envelope).await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};

    use prost::Message;

    use super::*;

    /// A stand-in controller on 127.0.0.1:0 that counts the calls it is made: answers each
    /// command with its own sequence, and refuses the sequence `refuse` (FAILED_PRECONDITION).
    /// `streams: false` is a release before `Commands`, which tonic answers UNIMPLEMENTED.
    #[derive(Default)]
    struct Calls {
        submits: AtomicU32,
        /// `Commands` calls, answered or not.
        streams: AtomicU32,
    }

    #[derive(Clone)]
    struct StandIn {
        calls: Arc<Calls>,
        streams: bool,
        refuse: u64,
    }

    impl StandIn {
        fn answer(&self, envelope: &pb::Envelope) -> Result<pb::SubmitReply, tonic::Status> {
            let command = pb::TableCommand::decode(envelope.payload.as_slice()).expect("a table command");
            if command.sequence == self.refuse {
                return Err(tonic::Status::failed_precondition("seat: no credits"));
            }
            Ok(pb::SubmitReply { sequence: command.sequence, ..Default::default() })
        }
    }

    #[tonic::async_trait]
    impl pb::table_server::Table for StandIn {
        async fn submit(&self, request: tonic::Request<pb::Envelope>) -> Result<tonic::Response<pb::SubmitReply>, tonic::Status> {
            self.calls.submits.fetch_add(1, Ordering::SeqCst);
            self.answer(request.get_ref()).map(tonic::Response::new)
        }

        type CommandsStream = tonic::codegen::BoxStream<pb::SubmitReply>;

        async fn commands(
            &self,
            request: tonic::Request<tonic::Streaming<pb::Envelope>>,
        ) -> Result<tonic::Response<Self::CommandsStream>, tonic::Status> {
            self.calls.streams.fetch_add(1, Ordering::SeqCst);
            if !self.streams {
                return Err(tonic::Status::unimplemented("Method not found: pozo.v1.Table/Commands"));
            }
            let stand_in = self.clone();
            let replies = tokio_stream::StreamExt::map(request.into_inner(), move |envelope| stand_in.answer(&envelope?));
            Ok(tonic::Response::new(Box::pin(replies)))
        }

        type WatchStream = tokio_stream::Empty<Result<pb::TableEvent, tonic::Status>>;

        async fn watch(&self, _: tonic::Request<pb::Envelope>) -> Result<tonic::Response<Self::WatchStream>, tonic::Status> {
            Err(tonic::Status::unimplemented("not in this test"))
        }

        async fn prizes(&self, _: tonic::Request<pb::Envelope>) -> Result<tonic::Response<pb::PrizeList>, tonic::Status> {
            Err(tonic::Status::unimplemented("not in this test"))
        }

        async fn check_inspector(&self, _: tonic::Request<pb::Envelope>) -> Result<tonic::Response<pb::Person>, tonic::Status> {
            Err(tonic::Status::unimplemented("not in this test"))
        }
    }

    async fn serve(stand_in: StandIn) -> Channel {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let url = format!("http://{}", listener.local_addr().expect("an address"));
        let incoming = tonic::transport::server::TcpIncoming::from(listener);
        let server = tonic::transport::Server::builder().add_service(pb::table_server::TableServer::new(stand_in));
        tokio::spawn(server.serve_with_incoming(incoming));
        Channel::from_shared(url).expect("a URL").connect().await.expect("connected")
    }

    fn envelope(sequence: u64) -> pb::Envelope {
        let payload = pb::TableCommand { table_id: "B1".into(), sequence, ..Default::default() }.encode_to_vec();
        pb::Envelope { payload, ..Default::default() }
    }

    // Proves that the commands of one connection share one stream, answered in order; that a
    // refusal reaches the agent as the server's status and the next command opens a new stream
    // (the refusal ended the old one); and that a new connection opens its own.
    #[tokio::test]
    async fn one_stream_per_connection_and_a_new_one_after_a_refusal() {
        let calls = Arc::new(Calls::default());
        let channel = serve(StandIn { calls: calls.clone(), streams: true, refuse: 3 }).await;
        let mut wire = Wire::default();
        for sequence in [1, 2] {
            let reply = wire.attempt(channel.clone(), envelope(sequence)).await.expect("answered");
            assert_eq!(reply.sequence, sequence);
        }
        assert_eq!(calls.streams.load(Ordering::SeqCst), 1, "two commands, one stream");
        let refused = wire.attempt(channel.clone(), envelope(3)).await.expect_err("refused");
        assert_eq!((refused.code(), refused.message()), (Code::FailedPrecondition, "seat: no credits"));
        assert_eq!(wire.attempt(channel.clone(), envelope(4)).await.expect("answered").sequence, 4);
        assert_eq!(calls.streams.load(Ordering::SeqCst), 2, "a new stream after the refusal");
        wire.close(); // a reconnection
        assert_eq!(wire.attempt(channel.clone(), envelope(5)).await.expect("answered").sequence, 5);
        assert_eq!(calls.streams.load(Ordering::SeqCst), 3, "a new connection, a new stream");
        assert_eq!(calls.submits.load(Ordering::SeqCst), 0, "no Submit call while streams are answered");
    }

    // Proves that a controller of an earlier release, which answers `Commands` UNIMPLEMENTED, is
    // sent each command by `Submit` for the rest of that connection, asked once; a new connection
    // asks again (it may be a newer controller).
    #[tokio::test]
    async fn a_controller_without_commands_is_sent_submit_for_that_connection() {
        let calls = Arc::new(Calls::default());
        let channel = serve(StandIn { calls: calls.clone(), streams: false, refuse: 0 }).await;
        let mut wire = Wire::default();
        for sequence in [1, 2, 3] {
            assert_eq!(wire.attempt(channel.clone(), envelope(sequence)).await.expect("answered").sequence, sequence);
        }
        assert_eq!(calls.submits.load(Ordering::SeqCst), 3, "every command by Submit");
        assert_eq!(calls.streams.load(Ordering::SeqCst), 1, "Commands asked once on connection 1");
        wire.close(); // a reconnection
        assert_eq!(wire.attempt(channel.clone(), envelope(4)).await.expect("answered").sequence, 4);
        assert_eq!(calls.submits.load(Ordering::SeqCst), 4);
        assert_eq!(calls.streams.load(Ordering::SeqCst), 2, "asked again on connection 2");
    }
}
