//! A real controller for the integration tests: `pozo_server::serve` on
//! 127.0.0.1:0 with a temporary sled directory, and a client that signs commands
//! with the embedded layout's keys exactly as a table agent does.
#![allow(dead_code)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;

use pozo_proto::v1 as pb;
use pozo_proto::v1::table_command::Command as C;
use pozo_server::config::Config;
use prost::Message;
use tonic::transport::Channel;
use tonic::{Code, Status};

pub mod changes;
pub mod fixtures;
pub mod market;
pub mod mystery;
pub mod tournament;

pub struct TestServer {
    pub address: SocketAddr,
    /// The pages' address, for a server started with them ([`TestServer::with_pages`]).
    pub pages: Option<SocketAddr>,
    pub data: PathBuf,
    _directory: Option<tempfile::TempDir>,
    embedded: pozo_server::Embedded,
}

impl TestServer {
    /// A fresh controller with the embedded layout and rulebooks.
    pub async fn start() -> TestServer {
        let directory = tempfile::tempdir().expect("a temporary directory");
        // The data directory and, beside it, its acknowledgement mark: both inside the temporary one.
        let data = directory.path().join("data");
        let mut server = TestServer::start_on(data).await;
        server._directory = Some(directory);
        server
    }

    /// A fresh controller whose instant-prize draws follow `seed` (15.11.2), so the
    /// rounds a card appears in are fixed.
    pub async fn seeded(seed: u64) -> TestServer {
        let directory = tempfile::tempdir().expect("a temporary directory");
        let options = pozo_server::ServeOptions { cards: pozo_server::cards::CardSource::Seeded(seed), ..Default::default() };
        let mut server = TestServer::start_with(directory.path().join("data"), options).await;
        server._directory = Some(directory);
        server
    }

    /// A fresh controller that also serves the pages (cartel, Venta-Pagos, sala) on 127.0.0.1:0.
    pub async fn with_pages() -> TestServer {
        let directory = tempfile::tempdir().expect("a temporary directory");
        let options = pozo_server::ServeOptions { pages: Some("127.0.0.1:0".parse().expect("an address")), ..Default::default() };
        let mut server = TestServer::start_with(directory.path().join("data"), options).await;
        server._directory = Some(directory);
        server
    }

    /// A fresh controller with a configuration of its own (another layout; keys that sign like
    /// the embedded ones, so [`Client`] speaks for its tables), its pages on 127.0.0.1:0.
    pub async fn with_config(config: Config) -> TestServer {
        let directory = tempfile::tempdir().expect("a temporary directory");
        let mut server = TestServer::start_config_on(config, directory.path().join("data")).await;
        server._directory = Some(directory);
        server
    }

    /// A controller with `config` on `data` (a restart of [`TestServer::with_config`]), its pages on 127.0.0.1:0.
    pub async fn start_config_on(config: Config, data: PathBuf) -> TestServer {
        let options = pozo_server::ServeOptions { pages: Some("127.0.0.1:0".parse().expect("an address")), ..Default::default() };
        let embedded = pozo_server::Embedded::start(config, &data, options).await.expect("the server started");
        TestServer { address: embedded.address, pages: embedded.pages, data, _directory: None, embedded }
    }

    /// `http://127.0.0.1:PORT`, the pages of a server started [`TestServer::with_pages`].
    pub fn pages_url(&self) -> String {
        format!("http://{}", self.pages.expect("a server started with its pages"))
    }

    /// A controller on an existing data directory (a restart).
    pub async fn start_on(data: PathBuf) -> TestServer {
        TestServer::start_with(data, pozo_server::ServeOptions::default()).await
    }

    /// A controller on `data` with the given options (a small snapshot interval).
    pub async fn start_with(data: PathBuf, options: pozo_server::ServeOptions) -> TestServer {
        let embedded = pozo_server::Embedded::start(Config::embedded(), &data, options).await.expect("the server started");
        TestServer { address: embedded.address, pages: embedded.pages, data, _directory: None, embedded }
    }

    /// Stops the server and waits until its writer has finished.
    pub async fn stop(self) -> Option<tempfile::TempDir> {
        self.embedded.stop().await.expect("server stopped cleanly");
        self._directory
    }

    pub async fn client(&self) -> Client {
        let channel = Channel::from_shared(format!("http://{}", self.address)).expect("uri").connect().await.expect("connect");
        Client::new(channel).await
    }
}

/// The office operator the tests sign Venta-Pagos decisions as.
pub const OFFICE_KEY: &str = "vp-ana";
/// The supervisor whose read credential the report and pool clients carry.
pub const SUPERVISOR_KEY: &str = "sup-carla";

/// Signs and sends commands as the table agents and the office would.
pub struct Client {
    pub channel: Channel,
    /// The journal this controller announced: what envelopes are signed for.
    pub journal_id: String,
    pub table: pb::table_client::TableClient<Channel>,
    pub office: pb::venta_pagos_client::VentaPagosClient<Channel>,
    /// Reports and pools with the supervisor's read credential.
    pub reports: pb::reports_client::ReportsClient<pozo_proto::ReadChannel>,
    pub pools: pb::pools_client::PoolsClient<pozo_proto::ReadChannel>,
    pub display: pb::display_client::DisplayClient<Channel>,
    /// The next sequence per table.
    pub sequences: HashMap<String, u64>,
    config: Config,
}

pub use table_agent::CommandStream;

/// The MAC of a table command for `journal_id` under `secret`.
pub fn mac(secret: &[u8], journal_id: &str, payload: &[u8]) -> Vec<u8> {
    pozo_proto::sign("", secret, pozo_proto::Purpose::TableCommand, journal_id, payload.to_vec()).mac
}

/// A client of a controller at `address` (`127.0.0.1:PORT`), such as a `pozo-server` child process.
pub async fn connect(address: &str) -> Client {
    connect_with(address, Config::embedded()).await
}

/// [`connect`] for a controller started with the keys of `config` (`--keys`).
pub async fn connect_with(address: &str, config: Config) -> Client {
    let channel = Channel::from_shared(format!("http://{address}"))
        .expect("uri")
        .connect_timeout(std::time::Duration::from_secs(5))
        .timeout(std::time::Duration::from_secs(10))
        .connect()
        .await
        .expect("connect");
    Client::with_config(channel, config).await
}

/// The journal a controller announces (Controller.Identify).
pub async fn journal_id(channel: &Channel) -> String {
    pb::controller_client::ControllerClient::new(channel.clone())
        .identify(pb::IdentifyRequest {})
        .await
        .expect("Controller.Identify")
        .into_inner()
        .journal_id
}

impl Client {
    pub async fn new(channel: Channel) -> Client {
        Client::with_config(channel, Config::embedded()).await
    }

    /// A client that signs with the keys of `config` (a controller started with `--keys`).
    pub async fn with_config(channel: Channel, config: Config) -> Client {
        let journal_id = journal_id(&channel).await;
        let read = |key: &str| {
            let secret = &config.keys.get(key).expect("the embedded keys").secret;
            pozo_proto::ReadCredential::new(key, secret, &journal_id)
        };
        Client {
            table: pb::table_client::TableClient::new(channel.clone()),
            office: pb::venta_pagos_client::VentaPagosClient::new(channel.clone()),
            reports: pb::reports_client::ReportsClient::with_interceptor(channel.clone(), read(SUPERVISOR_KEY)),
            pools: pb::pools_client::PoolsClient::with_interceptor(channel.clone(), read(SUPERVISOR_KEY)),
            display: pb::display_client::DisplayClient::new(channel.clone()),
            channel,
            journal_id,
            sequences: HashMap::new(),
            config,
        }
    }

    pub fn secret(&self, key_id: &str) -> Vec<u8> {
        self.config.keys.get(key_id).unwrap_or_else(|| panic!("key {key_id} in the embedded layout")).secret.clone()
    }

    /// A table command's envelope signed with `key_id`'s secret for this journal.
    pub fn envelope(&self, key_id: &str, payload: Vec<u8>) -> pb::Envelope {
        self.envelope_as(key_id, pozo_proto::Purpose::TableCommand, payload)
    }

    /// An envelope of any kind signed with `key_id`'s secret for this journal.
    pub fn envelope_as(&self, key_id: &str, purpose: pozo_proto::Purpose, payload: Vec<u8>) -> pb::Envelope {
        pozo_proto::sign(key_id, &self.secret(key_id), purpose, &self.journal_id, payload)
    }

    /// A table command naming the floor inspector `inspector`, their `pin` beside the signed bytes.
    pub fn inspected(&self, table: &str, sequence: u64, command: C, inspector: &str, pin: &str) -> pb::Envelope {
        let payload =
            pb::TableCommand { table_id: table.to_owned(), sequence, command: Some(command), inspector: inspector.to_owned() }
                .encode_to_vec();
        pb::Envelope { inspector_pin: pin.to_owned(), ..self.envelope(&format!("mesa-{table}"), payload) }
    }

    pub fn payload(table: &str, sequence: u64, command: C) -> Vec<u8> {
        pb::TableCommand { table_id: table.to_owned(), sequence, command: Some(command), ..Default::default() }.encode_to_vec()
    }

    /// Sends one command for `table` with its own key and the next sequence; the
    /// sequence moves on only when the command was applied.
    pub async fn send(&mut self, table: &str, command: C) -> Result<pb::SubmitReply, Status> {
        let sequence = *self.sequences.entry(table.to_owned()).or_insert(1);
        let envelope = self.envelope(&format!("mesa-{table}"), Client::payload(table, sequence, command));
        let reply = self.table.submit(envelope).await.map(|response| response.into_inner());
        if reply.is_ok() {
            self.sequences.insert(table.to_owned(), sequence + 1);
        }
        reply
    }

    /// [`Client::send`] on the table's `Table/Commands` stream, as the table agent sends: the
    /// stream opened on first use and kept in `stream`, dropped after any error (a refusal
    /// ends it; a failure may leave an answer on it).
    pub async fn send_on(
        &mut self,
        stream: &mut Option<CommandStream>,
        table: &str,
        command: C,
    ) -> Result<pb::SubmitReply, Status> {
        let sequence = *self.sequences.entry(table.to_owned()).or_insert(1);
        let envelope = self.envelope(&format!("mesa-{table}"), Client::payload(table, sequence, command));
        let open = match stream {
            Some(open) => open,
            None => stream.insert(CommandStream::open(&mut self.table).await?),
        };
        let reply = open.send(envelope).await;
        match &reply {
            Ok(_) => {
                self.sequences.insert(table.to_owned(), sequence + 1);
            }
            Err(_) => *stream = None,
        }
        reply
    }

    /// A command the floor inspector `inspector` gives at the table's monitor with their `pin`
    /// (4.6, 4.7, 4.3.1: the command names them, the PIN travels beside the signed bytes), with
    /// the table's next sequence; it must be applied.
    pub async fn by_inspector(&mut self, table: &str, command: C, inspector: &str, pin: &str) -> pb::SubmitReply {
        let sequence = *self.sequences.entry(table.to_owned()).or_insert(1);
        let payload = pb::TableCommand {
            table_id: table.to_owned(),
            sequence,
            command: Some(command.clone()),
            inspector: inspector.into(),
        }
        .encode_to_vec();
        let envelope = pb::Envelope { inspector_pin: pin.to_owned(), ..self.envelope(&format!("mesa-{table}"), payload) };
        match self.table.submit(envelope).await {
            Ok(reply) => {
                self.sequences.insert(table.to_owned(), sequence + 1);
                reply.into_inner()
            }
            Err(status) => panic!("table {table}: {command:?} by {inspector} refused: {:?} {}", status.code(), status.message()),
        }
    }

    /// Sends a command that must be applied.
    pub async fn ok(&mut self, table: &str, command: C) -> pb::SubmitReply {
        match self.send(table, command.clone()).await {
            Ok(reply) => reply,
            Err(status) => panic!("table {table}: {command:?} refused: {:?} {}", status.code(), status.message()),
        }
    }

    /// Sends a command that must be refused with `code`; returns the message.
    pub async fn refused(&mut self, table: &str, command: C, code: Code) -> String {
        match self.send(table, command.clone()).await {
            Ok(reply) => panic!("table {table}: {command:?} should be refused, was applied: {}", reply.outcome),
            Err(status) => {
                assert_eq!(status.code(), code, "table {table}: {command:?}: {}", status.message());
                status.message().to_owned()
            }
        }
    }

    /// Plays rounds at a Central Póker table, the `seats` pressing each time, until an
    /// INICIAR JUEGO shows an instant-prize card (15.11.2); the round is left in play.
    /// Returns the card and how many rounds showed none. At most 200 rounds.
    pub async fn until_instant_card(&mut self, table: &str, seats: &[u32]) -> (pb::Card, u32) {
        for rounds in 0..200 {
            for seat in seats {
                self.ok(table, press(*seat)).await;
            }
            if let Some(card) = self.ok(table, start()).await.table.expect("view").instant_card {
                return (card, rounds);
            }
            self.ok(table, finish()).await;
        }
        panic!("no instant card in 200 rounds at {table}: a chance of 1 in 4 a round makes that 10⁻²⁵");
    }

    /// The table's panels as its agent watches them, signed with the table's key: the
    /// stream of its pushes, the current view first.
    pub async fn watch(&mut self, table: &str) -> tonic::Streaming<pb::TableEvent> {
        let payload = pb::WatchTable { table_id: table.to_owned(), ..Default::default() }.encode_to_vec();
        let envelope = self.envelope_as(&format!("mesa-{table}"), pozo_proto::Purpose::WatchTable, payload);
        self.table.watch(envelope).await.expect("watch").into_inner()
    }

    /// The table as its panels show it now (the first push of its stream).
    pub async fn view(&mut self, table: &str) -> pb::TableView {
        let mut stream = self.watch(table).await;
        stream.message().await.expect("stream").expect("a first push").table.expect("a view")
    }

    pub async fn journal(&mut self) -> pb::JournalStatus {
        self.reports.journal(pb::JournalStatusRequest {}).await.expect("journal status").into_inner()
    }

    /// The table's report for the current jornada.
    pub async fn report(&mut self, table: &str) -> pb::TableReport {
        let request = pb::TableReportRequest { table_id: table.to_owned(), jornada: String::new() };
        self.reports.table(request).await.expect("table report").into_inner()
    }

    /// The reconciliation of the jornada in progress, through now.
    pub async fn books(&mut self) -> pb::ReconciliationReport {
        let request = pb::ReconciliationRequest { jornada: String::new(), through: String::new() };
        self.reports.reconciliation(request).await.expect("the books").into_inner()
    }

    pub async fn pool(&mut self, pool: &str) -> pb::PoolReport {
        self.reports
            .pool(pb::PoolReportRequest { pool_id: pool.to_owned(), ..Default::default() })
            .await
            .expect("pool report")
            .into_inner()
    }

    pub fn office_envelope(&self, command: pb::office_command::Command) -> pb::Envelope {
        self.office_envelope_as(OFFICE_KEY, command)
    }

    /// An office command signed with `key_id`'s key.
    pub fn office_envelope_as(&self, key_id: &str, command: pb::office_command::Command) -> pb::Envelope {
        self.envelope_as(key_id, pozo_proto::Purpose::OfficeCommand, pb::OfficeCommand { command: Some(command) }.encode_to_vec())
    }

    /// Every order, as the office lists them.
    pub async fn orders(&mut self) -> Vec<pb::PayoutOrder> {
        let list = pb::office_command::Command::List(pb::ListPayouts { status: "all".into() });
        self.office.list(self.office_envelope(list)).await.expect("list").into_inner().orders
    }

    /// The order `order_id` as the office sees it now.
    pub async fn order(&mut self, order_id: &str) -> pb::PayoutOrder {
        self.orders().await.into_iter().find(|order| order.order_id == order_id).unwrap_or_else(|| panic!("order {order_id}"))
    }

    /// A confirmation of `order_id` as the operator was shown it.
    pub async fn confirm_command(&mut self, order_id: &str, form_number: &str) -> pb::office_command::Command {
        let expect = facts(&self.order(order_id).await);
        pb::office_command::Command::Confirm(pb::ConfirmPayout {
            order_id: order_id.to_owned(),
            form_number: form_number.to_owned(),
            expect: Some(expect),
        })
    }

    /// A rejection of `order_id` as the operator was shown it.
    pub async fn reject_command(&mut self, order_id: &str, reason: &str) -> pb::office_command::Command {
        let expect = facts(&self.order(order_id).await);
        pb::office_command::Command::Reject(pb::RejectPayout {
            order_id: order_id.to_owned(),
            reason: reason.to_owned(),
            expect: Some(expect),
        })
    }

    /// Confirms `order_id` as [`OFFICE_KEY`].
    pub async fn confirm(&mut self, order_id: &str, form_number: &str) -> Result<pb::PayoutOrder, Status> {
        let command = self.confirm_command(order_id, form_number).await;
        self.office.confirm(self.office_envelope(command)).await.map(|reply| reply.into_inner())
    }

    /// Rejects `order_id` as [`OFFICE_KEY`].
    pub async fn reject(&mut self, order_id: &str, reason: &str) -> Result<pb::PayoutOrder, Status> {
        let command = self.reject_command(order_id, reason).await;
        self.office.reject(self.office_envelope(command)).await.map(|reply| reply.into_inner())
    }

    /// Everything a refused command must leave as it was: the journal, every
    /// pool, and the table's view.
    pub async fn fingerprint(&mut self, table: &str) -> String {
        let journal = self.journal().await;
        let pools = self.pools.status(pb::PoolStatusRequest { pool_ids: vec![] }).await.expect("pools").into_inner();
        let view = self.view(table).await;
        format!("{journal:?}|{pools:?}|{view:?}")
    }
}

/// A 20% prize (11.2.2) at the open table B3 for `seat`, round played to the end: its
/// payout order, pending at Venta-Pagos.
pub async fn a_pending_order(client: &mut Client, seat: u32) -> String {
    client.sell_and_press("B3", [seat], 5).await;
    let order = client.play_round("B3", &[(seat, "TRES_SIETES_MISMO_PALO")]).await.accepted.awards[0].payout_order_id.clone();
    assert!(!order.is_empty(), "a percentage prize goes to Venta-Pagos");
    order
}

/// The facts of an order as the office shows them.
pub fn facts(order: &pb::PayoutOrder) -> pb::OrderFacts {
    pb::OrderFacts {
        pool_id: order.pool_id.clone(),
        table_id: order.table_id.clone(),
        seat: order.seat,
        round: order.round,
        code: order.code.clone(),
        amount: order.amount.clone(),
    }
}

pub fn press(seat: u32) -> C {
    C::Press(pb::Press { seat, credits: 0 })
}
pub fn sell(seat: u32, credits: u32) -> C {
    C::SellCredits(pb::SellCredits { seat, credits })
}
pub fn prize(seat: u32, code: &str) -> C {
    C::EnterPrize(pb::EnterPrize { seat, code: code.to_owned(), high: String::new() })
}
pub fn open() -> C {
    C::OpenTable(pb::OpenTable {})
}
pub fn close() -> C {
    C::CloseTable(pb::CloseTable {})
}
pub fn start() -> C {
    C::StartRound(pb::StartRound {})
}
pub fn accept() -> C {
    C::Accept(pb::Accept {})
}
pub fn finish() -> C {
    C::FinishRound(pb::FinishRound {})
}
pub fn gold_turn() -> C {
    C::RequestGoldTurn(pb::RequestGoldTurn {})
}
pub fn void_bet(seat: u32) -> C {
    C::VoidBet(pb::VoidBet { seat })
}
pub fn refund_bet(seat: u32) -> C {
    C::RefundBet(pb::RefundBet { seat })
}
pub fn refund_credits(seat: u32) -> C {
    C::RefundCredits(pb::RefundCredits { seat })
}
pub fn carry_bets() -> C {
    C::CarryBets(pb::CarryBets {})
}
pub fn last_round() -> C {
    C::LastRound(pb::LastRound {})
}

pub fn amount(value: &Option<pb::Amount>) -> String {
    value.as_ref().map(|amount| amount.value.clone()).unwrap_or_default()
}

pub fn light(view: &pb::TableView, seat: u32) -> pb::Light {
    pb::Light::try_from(view.seats[seat as usize - 1].light).expect("a known light")
}

/// The `pozo-server` executable the tests run as a child process.
pub const BIN: &str = env!("CARGO_BIN_EXE_pozo-server");

/// `pozo-server ARGS…` to its end, off the async runtime: its exit status and output.
pub async fn run(args: Vec<String>) -> std::process::Output {
    tokio::task::spawn_blocking(move || {
        std::process::Command::new(BIN).args(&args).env("NO_COLOR", "1").output().expect("pozo-server runs")
    })
    .await
    .expect("joined")
}

/// A finished command's standard output and error, as text.
pub fn text(output: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}
