//! The agent's runtime: one supervisor keeps the table's Watch stream open and
//! knows whether the controller is reachable; the command path signs each
//! hardware event, numbers it, and retries the very same bytes until answered.
//!
//! The light invariant (11.11.5): a seat light is drawn only from what the server
//! sent — a reply or a pushed view — and the server sends nothing before the bet
//! is durable. The agent never lights a seat on its own.
//!
//! Fail closed (3.7.5): when the stream breaks (the server died, the network is
//! gone, keepalive pings go unanswered for half a second) every panel shows
//! `suspended` and every event is refused locally; nothing is queued. On
//! reconnection the agent first takes the table from the server (lights,
//! credits, round), settles the command that was in flight against the server's
//! record, and only then accepts events again (3.7.6).

use std::sync::Arc;
use std::time::Duration;

use crate::output::{AwardLine, CardLine, OutputLine, Panel, PendingLine, SeatLine};
use pozo_proto::v1 as pb;
use prost::Message;
use tokio::sync::{Mutex, mpsc};
use tonic::Code;
use tonic::transport::{Channel, Endpoint};

use crate::key::Key;
use crate::line::{self, Input, RawLine};

/// How long one attempt at a command may take before it is sent again.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_millis(1000);

/// Pause between attempts at an unanswered command while the link is up.
pub const RETRY_DELAY: Duration = Duration::from_millis(100);

/// Keepalive pings on the link: a silent server is given up after interval + timeout.
pub const KEEPALIVE_INTERVAL: Duration = Duration::from_millis(250);
pub const KEEPALIVE_TIMEOUT: Duration = Duration::from_millis(500);

/// Connecting may take this long before the attempt counts as failed.
pub const CONNECT_TIMEOUT: Duration = Duration::from_millis(500);

/// Pauses between reconnection attempts: exponential from this ...
pub const RECONNECT_BASE: Duration = Duration::from_millis(200);
/// ... and never longer than this ([`reconnect_delays`]).
pub const RECONNECT_CAP: Duration = Duration::from_secs(5);

/// The pauses before each reconnection attempt since the link broke: backon's exponential
/// backoff with jitter. Attempt n waits d + U(0, d), d = base × 2^n up to half the cap, so
/// the thousand agents of a salon that lost the same controller come back spread over a
/// window as long as d instead of in the same instant, and never wait longer than the cap.
pub fn reconnect_delays() -> impl Iterator<Item = Duration> {
    use backon::BackoffBuilder as _;
    backon::ExponentialBuilder::new()
        .with_min_delay(RECONNECT_BASE)
        .with_max_delay(RECONNECT_CAP / 2)
        .with_factor(2.0)
        .with_jitter()
        .without_max_times()
        .build()
}

/// Output lines waiting for the panel; the agent waits when it is full.
pub const OUTPUT_CAPACITY: usize = 1024;

/// What the agent needs to run one table.
#[derive(Clone, Debug)]
pub struct AgentConfig {
    /// The controller, `http://127.0.0.1:50051`; or a writer and its standby, comma-separated,
    /// tried in turn ([`AgentConfig::servers`]).
    pub server: String,
    pub table: String,
    pub key: Key,
    /// TLS to the controller (`--server https://…`); `None`: plaintext (loopback only).
    pub tls: Option<ClientTls>,
}

impl AgentConfig {
    /// Each controller address of `server`, in the order given.
    pub fn servers(&self) -> impl Iterator<Item = &str> {
        self.server.split(',').map(str::trim).filter(|server| !server.is_empty())
    }
}

/// The agent's TLS: the CA that signed the controller's certificate, and the agent's
/// own certificate and key when the controller asks for client certificates.
#[derive(Clone)]
pub struct ClientTls {
    pub ca_pem: Vec<u8>,
    pub identity_pem: Option<(Vec<u8>, Vec<u8>)>,
}

impl std::fmt::Debug for ClientTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The client key is a secret: never printed.
        f.debug_struct("ClientTls").field("client_certificate", &self.identity_pem.is_some()).finish_non_exhaustive()
    }
}

impl ClientTls {
    pub fn load(ca: &std::path::Path, identity: Option<(&std::path::Path, &std::path::Path)>) -> anyhow::Result<ClientTls> {
        let read = |path: &std::path::Path| std::fs::read(path).map_err(|error| anyhow::anyhow!("{}: {error}", path.display()));
        Ok(ClientTls {
            ca_pem: read(ca)?,
            identity_pem: identity.map(|(cert, key)| Ok::<_, anyhow::Error>((read(cert)?, read(key)?))).transpose()?,
        })
    }

    /// tonic's client configuration for these files.
    pub fn config(&self) -> tonic::transport::ClientTlsConfig {
        let config =
            tonic::transport::ClientTlsConfig::new().ca_certificate(tonic::transport::Certificate::from_pem(&self.ca_pem));
        match &self.identity_pem {
            Some((cert, key)) => config.identity(tonic::transport::Identity::from_pem(cert, key)),
            None => config,
        }
    }
}

struct Pending {
    sequence: u64,
    envelope: pb::Envelope,
    input: String,
}

/// What an agent remembers across reconnections: the journal its commands were
/// acknowledged in, and the last one acknowledged there.
#[derive(Default)]
struct Acknowledged {
    journal_id: String,
    sequence: u64,
}

#[derive(Default)]
struct Shared {
    connected: bool,
    channel: Option<Channel>,
    view: Option<pb::TableView>,
    /// The journal entry the shown view was read at: an older view is never shown over it.
    view_journal: u64,
    next_sequence: u64,
    pending: Option<Pending>,
    /// The last panel printed, without its number: an unchanged panel is not printed again.
    last_panel: String,
    /// The number of the last panel printed: each panel is numbered as it is built, under
    /// the lock, and printed before the lock is let go, so panels leave in the order of
    /// their numbers and none is older than the one before it.
    panel_number: u64,
    /// The journal the controller announced (Controller.Identify): what commands are signed for.
    journal_id: String,
    acknowledged: Acknowledged,
}

#[derive(Clone)]
struct Agent {
    config: Arc<AgentConfig>,
    shared: Arc<Mutex<Shared>>,
    output: mpsc::Sender<String>,
}

/// TLS is used exactly when asked for, and plaintext only to this machine: `--tls-ca`
/// with an `http://` URL would silently send in clear, and a plaintext controller
/// elsewhere could be anyone (docs/security.md).
pub fn check_transport(config: &AgentConfig) -> anyhow::Result<()> {
    anyhow::ensure!(config.servers().next().is_some(), "--server: no address given");
    for server in config.servers() {
        Endpoint::from_shared(server.to_owned()).map_err(|error| anyhow::anyhow!("--server {server}: {error}"))?;
        let uri: tonic::transport::Uri = server.parse().map_err(|error| anyhow::anyhow!("--server {server}: {error}"))?;
        let https = uri.scheme_str() == Some("https");
        match (&config.tls, https) {
            (Some(_), false) => anyhow::bail!("--server {server}: --tls-ca is given, so the URL must be https://"),
            (None, true) => anyhow::bail!("--server {server}: an https:// controller needs --tls-ca (the CA that signed it)"),
            (None, false) => {
                let host = uri.host().unwrap_or_default().trim_start_matches('[').trim_end_matches(']');
                let loopback = host == "localhost" || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback());
                anyhow::ensure!(
                    loopback,
                    "--server {server}: plaintext only to this machine (127.0.0.1, [::1], localhost); use https:// with --tls-ca"
                );
            }
            (Some(_), true) => {}
        }
    }
    Ok(())
}

/// Runs the agent until `lines` closes: hardware events in, panel JSON lines out.
pub async fn run<L: Into<RawLine>>(
    config: AgentConfig,
    mut lines: mpsc::Receiver<L>,
    output: mpsc::Sender<String>,
) -> anyhow::Result<()> {
    check_transport(&config)?;
    let agent = Agent { config: Arc::new(config), shared: Arc::new(Mutex::new(Shared::default())), output };
    agent.emit_panel(true).await;
    let supervisor = tokio::spawn(agent.clone().supervise());
    while let Some(line) = lines.recv().await {
        let text = match line.into() {
            RawLine::Text(text) => text,
            RawLine::Unreadable(problem) => {
                agent.refused("", "input", &problem).await;
                continue;
            }
        };
        match line::parse(&text) {
            Ok(None) => {}
            Ok(Some(Input::Status)) => agent.emit_panel(true).await,
            Ok(Some(Input::Command(command))) => agent.submit(text.trim().to_owned(), command).await,
            Err(problem) => agent.refused(text.trim(), "input", &problem).await,
        }
    }
    supervisor.abort();
    Ok(())
}

pub(crate) fn light(value: i32, suspended: bool) -> &'static str {
    match pb::Light::try_from(value) {
        Ok(pb::Light::On) => "on",
        // Suspended: no betting, so no blue; a recorded bet keeps its light (11.11.5).
        Ok(pb::Light::Blue) if !suspended => "blue",
        _ => "off",
    }
}

fn gold_turn(value: i32) -> &'static str {
    match pb::GoldTurn::try_from(value) {
        Ok(pb::GoldTurn::Waiting) => "waiting",
        Ok(pb::GoldTurn::Granted) => "granted",
        _ => "none",
    }
}

fn amount(value: &Option<pb::Amount>) -> String {
    value.as_ref().map(|amount| amount.value.clone()).unwrap_or_default()
}

fn code_name(code: Code) -> String {
    format!("{code:?}")
}

/// Codes the server answers with a decision; anything else is the link failing.
fn is_decision(code: Code) -> bool {
    matches!(
        code,
        Code::InvalidArgument
            | Code::FailedPrecondition
            | Code::AlreadyExists
            | Code::NotFound
            | Code::PermissionDenied
            | Code::Unauthenticated
            | Code::OutOfRange
    )
}

impl Agent {
    fn sign(&self, purpose: pozo_proto::Purpose, journal_id: &str, payload: Vec<u8>) -> pb::Envelope {
        pozo_proto::sign(&self.config.key.id, &self.config.key.secret, purpose, journal_id, payload)
    }

    async fn emit(&self, line: OutputLine<'_>) {
        let _ = self.output.send(line.to_line()).await;
    }

    async fn refused(&self, input: &str, code: &str, reason: &str) {
        self.emit(OutputLine::Refused { input, code, reason }).await;
    }

    /// The panel as the agent knows it; `force` prints it even when unchanged.
    ///
    /// The one path a panel takes to the output: built from the newest view and printed
    /// while the lock is held, so a reply and a push racing each other print their panels
    /// in the order they were built (a panel printed after the lock is let go could be
    /// overtaken by a newer one, and a light would go back).
    async fn emit_panel(&self, force: bool) {
        let mut shared = self.shared.lock().await;
        {
            let suspended = !shared.connected;
            let table = self.config.table.as_str();
            // The line without its number (to compare with the last one printed) and with it.
            let (line, numbered) = {
                let panel = match &shared.view {
                    None => Panel {
                        table,
                        state: "suspended",
                        suspended: true,
                        round: None,
                        pool: None,
                        displayed: None,
                        last_round: None,
                        gold_turn: None,
                        instant_card: None,
                        pending_prizes: None,
                        sequence: None,
                        seats: Vec::new(),
                        panel: None,
                    },
                    Some(view) => Panel {
                        table: &view.table_id,
                        state: if suspended { "suspended" } else { view.state.as_str() },
                        suspended,
                        round: Some(view.round),
                        pool: Some(&view.pool_id),
                        displayed: Some(amount(&view.displayed)),
                        last_round: Some(view.last_round),
                        gold_turn: Some(gold_turn(view.gold_turn)),
                        instant_card: Some(
                            view.instant_card.as_ref().map(|card| CardLine { rank: &card.rank, suit: &card.suit }),
                        ),
                        pending_prizes: Some(
                            view.pending_prizes.iter().map(|entry| PendingLine { seat: entry.seat, code: &entry.code }).collect(),
                        ),
                        sequence: Some(view.last_sequence),
                        seats: view
                            .seats
                            .iter()
                            .map(|seat| SeatLine {
                                seat: seat.seat,
                                light: light(seat.light, suspended),
                                credits: seat.credits,
                                bronze: seat.bronze,
                                silver: seat.silver,
                                gold: seat.gold,
                            })
                            .collect(),
                        panel: None,
                    },
                };
                let mut output = OutputLine::Panel(panel);
                let line = output.to_line();
                if let OutputLine::Panel(panel) = &mut output {
                    panel.panel = Some(shared.panel_number + 1);
                }
                (line, output.to_line())
            };
            if !force && line == shared.last_panel {
                return;
            }
            shared.last_panel = line;
            shared.panel_number += 1;
            // Under the lock, on purpose: see above.
            let _ = self.output.send(numbered).await;
        }
    }

    /// Takes a view from the server, read at journal entry `journal`, announcing a
    /// gold-turn grant and a new instant card. A view older than the one shown (an
    /// answer overtaken by a push of a later batch, or the reverse) is dropped, unless
    /// `resync`: after a reconnection the server's record is taken whole.
    async fn take_view(&self, view: pb::TableView, journal: u64, resync: bool) {
        let (granted, card) = {
            let mut shared = self.shared.lock().await;
            if !resync && shared.view.is_some() && journal < shared.view_journal {
                return;
            }
            shared.view_journal = journal;
            if shared.pending.is_none() {
                // The server's record decides the next sequence: an agent restarted, or
                // a second one on the same table, never stays out of step.
                shared.next_sequence = view.last_sequence + 1;
            }
            let before = shared.view.replace(view.clone());
            let was_granted = before.as_ref().map(|old| old.gold_turn) == Some(pb::GoldTurn::Granted as i32);
            let granted = view.gold_turn == pb::GoldTurn::Granted as i32 && !was_granted;
            let card = match (&view.instant_card, before.as_ref().and_then(|old| old.instant_card.as_ref())) {
                (Some(new), old) if old != Some(new) => Some(new.clone()),
                _ => None,
            };
            (granted, card)
        };
        if granted {
            // 4.3.5: "Se juega Grillo de Oro" at this table.
            self.emit(OutputLine::GoldTurn { table: &self.config.table, state: "granted" }).await;
        }
        if let Some(card) = card {
            // 15.11.2: the premio instantáneo appears on the monitor.
            self.emit(OutputLine::InstantCard { table: &self.config.table, rank: &card.rank, suit: &card.suit }).await;
        }
    }

    /// Reports an answer. An answer fetched after a reconnection carries the table as
    /// the command left it, older than the view just taken: then `fresh` keeps that view.
    async fn ack(&self, input: &str, reply: pb::SubmitReply, note: Option<&str>, fresh: Option<(pb::TableView, u64)>) {
        {
            let mut shared = self.shared.lock().await;
            shared.acknowledged.sequence = shared.acknowledged.sequence.max(reply.sequence);
        }
        let awards = reply
            .awards
            .iter()
            .map(|award| AwardLine {
                seat: award.seat,
                code: &award.code,
                award: amount(&award.award),
                payout_order_id: &award.payout_order_id,
            })
            .collect();
        self.emit(OutputLine::Ack {
            input,
            sequence: reply.sequence,
            journal_sequence: reply.journal_sequence,
            outcome: &reply.outcome,
            awards,
            note,
        })
        .await;
        if let Some((view, journal)) = fresh.or(reply.table.map(|view| (view, reply.journal_sequence))) {
            self.take_view(view, journal, false).await;
        }
        self.emit_panel(false).await;
    }

    /// Signs and sends one command; retries the same bytes until the server answers
    /// or the link is lost.
    async fn submit(&self, input: String, command: pb::table_command::Command) {
        let (envelope, sequence) = {
            let mut shared = self.shared.lock().await;
            if !shared.connected {
                drop(shared);
                let reason = "pool play is suspended: the controller is unreachable; no side bet is accepted (3.7.5)";
                return self.refused(&input, "suspended", reason).await;
            }
            if shared.pending.is_some() {
                drop(shared);
                return self.refused(&input, "busy", "the previous command is still unanswered").await;
            }
            let sequence = shared.next_sequence;
            let payload =
                pb::TableCommand { table_id: self.config.table.clone(), sequence, command: Some(command) }.encode_to_vec();
            let envelope = self.sign(pozo_proto::Purpose::TableCommand, &shared.journal_id, payload);
            shared.pending = Some(Pending { sequence, envelope: envelope.clone(), input: input.clone() });
            (envelope, sequence)
        };
        loop {
            let channel = {
                let shared = self.shared.lock().await;
                if shared.pending.as_ref().map(|pending| pending.sequence) != Some(sequence) {
                    // Settled by the supervisor after a reconnection.
                    return;
                }
                if !shared.connected {
                    drop(shared);
                    let reason =
                        "no answer before the link was lost; the command is checked against the server's record on reconnection";
                    return self.refused(&input, "suspended", reason).await;
                }
                shared.channel.clone()
            };
            let Some(channel) = channel else { return };
            let mut client = pb::table_client::TableClient::new(channel);
            match tokio::time::timeout(ATTEMPT_TIMEOUT, client.submit(envelope.clone())).await {
                Ok(Ok(reply)) => {
                    let reply = reply.into_inner();
                    {
                        let mut shared = self.shared.lock().await;
                        if shared.pending.as_ref().map(|pending| pending.sequence) != Some(sequence) {
                            return;
                        }
                        shared.pending = None;
                        shared.next_sequence = reply.sequence + 1;
                    }
                    return self.ack(&input, reply, None, None).await;
                }
                Ok(Err(status)) if is_decision(status.code()) => {
                    // A refusal does not use the sequence (docs/api.md §3).
                    self.shared.lock().await.pending = None;
                    return self.refused(&input, &code_name(status.code()), status.message()).await;
                }
                // Timed out or the link failed: the same bytes again, never a new command.
                _ => tokio::time::sleep(RETRY_DELAY).await,
            }
        }
    }

    /// Whether the link was up until now.
    async fn set_suspended(&self) -> bool {
        let was = {
            let mut shared = self.shared.lock().await;
            let was = shared.connected;
            shared.connected = false;
            shared.channel = None;
            was
        };
        if was {
            self.emit_panel(true).await;
        }
        was
    }

    /// Keeps the table's stream open; suspends the panels whenever it breaks.
    async fn supervise(self) {
        let mut first_failure = true;
        let mut last_refusal = String::new();
        let mut delays = reconnect_delays();
        // A writer and its standby (docs/agent.md §5): each failed or broken link tries the next.
        let servers: Vec<String> = self.config.servers().map(str::to_owned).collect();
        let mut at = 0;
        loop {
            match self.watch_once(&servers[at]).await {
                Ok(()) => {}
                Err(status) if is_decision(status.code()) || status.code() == Code::DataLoss => {
                    // A key the server refuses: say so once, keep trying (it may be rotated).
                    let text = format!("{:?}: {}", status.code(), status.message());
                    if text != last_refusal {
                        self.refused("(connect)", &code_name(status.code()), status.message()).await;
                        last_refusal = text;
                    }
                }
                Err(_) => {}
            }
            at = (at + 1) % servers.len();
            if self.set_suspended().await {
                // The link was up: the backoff starts again from the base.
                delays = reconnect_delays();
            }
            if first_failure {
                first_failure = false;
                self.emit_panel(false).await;
            }
            tokio::time::sleep(delays.next().unwrap_or(RECONNECT_CAP)).await;
        }
    }

    /// One connection: open the stream, resynchronise, then follow the pushes.
    async fn watch_once(&self, server: &str) -> Result<(), tonic::Status> {
        let mut endpoint =
            Endpoint::from_shared(server.to_owned()).map_err(|error| tonic::Status::invalid_argument(error.to_string()))?;
        if let Some(tls) = &self.config.tls {
            endpoint = endpoint.tls_config(tls.config()).map_err(|error| tonic::Status::invalid_argument(error.to_string()))?;
        }
        let endpoint = endpoint
            .connect_timeout(CONNECT_TIMEOUT)
            .http2_keep_alive_interval(KEEPALIVE_INTERVAL)
            .keep_alive_timeout(KEEPALIVE_TIMEOUT)
            .keep_alive_while_idle(true)
            .tcp_nodelay(true);
        let channel = endpoint.connect().await.map_err(|error| tonic::Status::unavailable(error.to_string()))?;
        // The journal every envelope is signed for (docs/security.md).
        let identity =
            pb::controller_client::ControllerClient::new(channel.clone()).identify(pb::IdentifyRequest {}).await?.into_inner();
        let payload = pb::WatchTable { table_id: self.config.table.clone() }.encode_to_vec();
        let mut client = pb::table_client::TableClient::new(channel.clone());
        let envelope = self.sign(pozo_proto::Purpose::WatchTable, &identity.journal_id, payload);
        let mut stream = client.watch(envelope).await?.into_inner();
        let Some(first) = stream.message().await? else { return Ok(()) };
        self.resync(channel, identity.journal_id, first).await?;
        while let Some(event) = stream.message().await? {
            if let Some(view) = event.table {
                self.take_view(view, event.journal_sequence, false).await;
                self.emit_panel(false).await;
            }
        }
        Ok(())
    }

    /// 3.7.6: the table as the server recorded it, and the command that was in
    /// flight settled against that record, before any new event is taken.
    ///
    /// A controller that records fewer of this table's commands than it acknowledged
    /// on the same journal lost them: the agent stays suspended and says so (DataLoss).
    async fn resync(&self, channel: Channel, journal_id: String, event: pb::TableEvent) -> Result<(), tonic::Status> {
        let Some(view) = event.table else { return Ok(()) };
        let journal = event.journal_sequence;
        let last_sequence = view.last_sequence;
        let (pending, same_journal) = {
            let mut shared = self.shared.lock().await;
            let same_journal = shared.acknowledged.journal_id == journal_id;
            if same_journal && last_sequence < shared.acknowledged.sequence {
                return Err(tonic::Status::data_loss(format!(
                    "the controller records this table's commands up to {last_sequence}, but it acknowledged up to {}: \
                     acknowledged commands are missing; pool play stays suspended — call the supervisor (docs/operations.md)",
                    shared.acknowledged.sequence
                )));
            }
            if !same_journal {
                // A new journal, or one restored from a backup (a new epoch): its record is taken whole.
                shared.acknowledged = Acknowledged { journal_id: journal_id.clone(), sequence: last_sequence };
            }
            shared.journal_id = journal_id;
            shared.channel = Some(channel.clone());
            shared.next_sequence = last_sequence + 1;
            (shared.pending.take(), same_journal)
        };
        self.take_view(view.clone(), journal, true).await;
        if let Some(pending) = pending {
            if !same_journal {
                let reason = "not recorded: the controller's journal changed (a restore); nothing was bet — press again";
                self.refused(&pending.input, "not_recorded", reason).await;
            } else if last_sequence == pending.sequence {
                // Applied before the link broke: the same bytes fetch the recorded answer.
                let mut client = pb::table_client::TableClient::new(channel.clone());
                match tokio::time::timeout(ATTEMPT_TIMEOUT, client.submit(pending.envelope)).await {
                    Ok(Ok(reply)) => {
                        self.ack(&pending.input, reply.into_inner(), Some("answered after reconnection"), Some((view, journal)))
                            .await;
                    }
                    _ => {
                        self.refused(&pending.input, "suspended", "recorded by the server; its answer could not be fetched").await
                    }
                }
            } else if last_sequence < pending.sequence {
                let reason = "not recorded: the controller was unreachable; nothing was bet (3.7.5) — press again";
                self.refused(&pending.input, "not_recorded", reason).await;
            } else {
                let reason = "the server's record moved past this command (another agent for this table?); see the panel";
                self.refused(&pending.input, "superseded", reason).await;
            }
        }
        self.shared.lock().await.connected = true;
        self.emit_panel(true).await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;

    fn agent(capacity: usize) -> (Agent, mpsc::Receiver<String>) {
        let (output, printed) = mpsc::channel(capacity);
        let config = AgentConfig {
            server: "http://127.0.0.1:1".into(),
            table: "R1".into(),
            key: Key { id: "mesa-R1".into(), secret: vec![7; 32] },
            tls: None,
        };
        let shared = Shared { connected: true, ..Shared::default() };
        (Agent { config: Arc::new(config), shared: Arc::new(Mutex::new(shared)), output }, printed)
    }

    /// The table as the server would send it at journal entry `journal`: the command
    /// sequence and the seat's credits grow with it, so an older panel is recognisable.
    fn view(journal: u64) -> pb::TableView {
        pb::TableView {
            table_id: "R1".into(),
            state: "open".into(),
            last_sequence: journal,
            seats: vec![pb::SeatView { seat: 1, light: pb::Light::On as i32, credits: journal as u32, ..Default::default() }],
            ..Default::default()
        }
    }

    // Proves the reconnection backoff: a pause that doubles from the base, jittered over a
    // window as long as itself, never over the cap, so agents that lost the same controller
    // spread out.
    #[test]
    fn reconnection_delays_grow_to_the_cap_with_jitter() {
        let runs: Vec<Vec<Duration>> = (0..2_000).map(|_| reconnect_delays().take(40).collect()).collect();
        for attempt in 0..40 {
            let floor = RECONNECT_BASE.saturating_mul(1 << attempt.min(16)).min(RECONNECT_CAP / 2);
            let delays: Vec<Duration> = runs.iter().map(|run| run[attempt as usize]).collect();
            assert!(
                delays.iter().all(|delay| floor <= *delay && *delay <= floor * 2 && *delay <= RECONNECT_CAP),
                "attempt {attempt}: within {floor:?}..{:?}",
                floor * 2
            );
            // The draws cover the whole window, from near its start to near its end.
            let (low, high) = (delays.iter().min().expect("delays"), delays.iter().max().expect("delays"));
            assert!(*low < floor + floor / 20 && *high > floor * 2 - floor / 20, "attempt {attempt}: {low:?}..{high:?}");
            // A thousand agents of the same attempt do not come back in the same 10 ms.
            let mut slots: Vec<u128> = delays.iter().take(1_000).map(|delay| delay.as_millis() / 10).collect();
            slots.sort_unstable();
            let crowd = slots.chunk_by(|a, b| a == b).map(<[u128]>::len).max().unwrap_or(0);
            assert!(crowd < 150, "attempt {attempt}: {crowd} of 1,000 in one 10 ms slot");
        }
        assert_eq!(
            RECONNECT_BASE.saturating_mul(1 << 4).min(RECONNECT_CAP / 2),
            RECONNECT_CAP / 2,
            "the cap is reached by the fifth attempt"
        );
    }

    // Proves that replies and pushes racing on many threads never print an older panel:
    // every task takes a newer view (as a reply or a push does) and prints the panel; the
    // panels come out with strictly increasing panel numbers and never-decreasing views.
    #[tokio::test(flavor = "multi_thread", worker_threads = 8)]
    async fn racing_replies_and_pushes_never_print_an_older_panel() {
        let (agent, mut printed) = agent(4);
        let journal = Arc::new(AtomicU64::new(0));
        let reader = tokio::spawn(async move {
            let mut lines = Vec::new();
            while let Some(line) = printed.recv().await {
                lines.push(serde_json::from_str::<serde_json::Value>(&line).expect("a JSON line"));
            }
            lines
        });
        let tasks: Vec<_> = (0..8)
            .map(|_| {
                let (agent, journal) = (agent.clone(), Arc::clone(&journal));
                tokio::spawn(async move {
                    for _ in 0..2_000 {
                        let at = journal.fetch_add(1, Ordering::SeqCst) + 1;
                        agent.take_view(view(at), at, false).await;
                        agent.emit_panel(false).await;
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("no panic");
        }
        drop(agent);
        let lines = reader.await.expect("the reader");
        assert!(lines.len() > 100, "panels were printed: {}", lines.len());
        let (mut newest, mut number) = (0, 0);
        for (index, line) in lines.iter().enumerate() {
            let sequence = line["sequence"].as_u64().expect("a table panel");
            assert!(sequence >= newest, "panel {index} shows the table at {sequence} after one at {newest}: it went back");
            let next = line["panel"].as_u64().expect("a numbered panel");
            assert_eq!(next, number + 1, "panel {index}: panels are numbered one after another, in print order");
            (newest, number) = (sequence, next);
        }
    }
}
