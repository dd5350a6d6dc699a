//! The agent's public entry: its configuration and TLS, the transport check, the timings
//! it keeps, the state its parts share, and [`run`], which hands each hardware line on.
//!
//! The runtime: one supervisor keeps the table's Watch stream open and knows whether the
//! controller is reachable (`link`); the command path signs each hardware event, numbers
//! it, and retries the very same bytes until answered (`submit`); the panel is printed
//! from the newest view the server sent, in order (`panel`).
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

mod link;
mod panel;
mod submit;
mod wire;

pub use wire::CommandStream;

pub(crate) use panel::light;

use std::sync::Arc;
use std::time::Duration;

use pozo_proto::v1 as pb;
use tokio::sync::{Mutex, mpsc};
use tonic::transport::{Channel, Endpoint};

use crate::key::Key;
use crate::line::{self, Input, RawLine};

/// How long one attempt at a command may take before it is sent again.
const ATTEMPT_TIMEOUT: Duration = Duration::from_millis(1000);

/// Pause between attempts at an unanswered command while the link is up.
const RETRY_DELAY: Duration = Duration::from_millis(100);

/// Keepalive pings on the link: a silent server is given up after interval + timeout.
const KEEPALIVE_INTERVAL: Duration = Duration::from_millis(250);
const KEEPALIVE_TIMEOUT: Duration = Duration::from_millis(500);

/// Connecting may take this long before the attempt counts as failed.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_millis(500);

/// Pauses between reconnection attempts: exponential from this ...
const RECONNECT_BASE: Duration = Duration::from_millis(200);
/// ... and never longer than this ([`link::reconnect_delays`]).
const RECONNECT_CAP: Duration = Duration::from_secs(5);

/// A command typed before the agent's first connection attempt has ended (a line piped to an
/// agent just started) waits this long for it, rather than be refused as unreachable at once.
const FIRST_ATTEMPT_WAIT: Duration = Duration::from_secs(3);

/// Output lines waiting for the panel; the agent waits when it is full.
pub const OUTPUT_CAPACITY: usize = 1024;

/// What the agent needs to run one table.
#[derive(Clone, Debug)]
pub struct AgentConfig {
    /// The controller, `http://127.0.0.1:50051`; or a writer and its standby, comma-separated,
    /// tried in turn (`AgentConfig::servers`).
    pub server: String,
    pub table: String,
    pub key: Key,
    /// TLS to the controller (`--server https://…`); `None`: plaintext (loopback only).
    pub tls: Option<ClientTls>,
    /// Where this agent serves the table's monitor (`--monitor`), told to the controller with
    /// each watch so that the inspector's flor page links it.
    pub monitor_url: Option<String>,
}

impl AgentConfig {
    /// Each controller address of `server`, in the order given.
    pub(crate) fn servers(&self) -> impl Iterator<Item = &str> {
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
    pub(crate) fn load(
        ca: &std::path::Path,
        identity: Option<(&std::path::Path, &std::path::Path)>,
    ) -> anyhow::Result<ClientTls> {
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
    /// What the pool's paytable says of each prize, by code (`Table/Prizes`, read at each
    /// connection): what an award is named by, and whether it is an envy bonus or the house's.
    paytable: std::collections::HashMap<String, Paid>,
}

/// A prize as its paytable line says: its name, the level that pays it, and what the line marks
/// it as (docs/readings.md, "Levels", "The envy bonus"): the server's flags, never its wording.
#[derive(Clone, Debug, Default)]
struct Paid {
    name: String,
    /// "Grand"; empty in a pool of one level.
    level: String,
    /// Paid by the house's level: with the house's money, from no meter (`PrizeLine.house`).
    house: bool,
    /// An envy bonus (`PrizeLine.envy`).
    envy: bool,
    /// Drawn by the controller: a mystery level's hit or its hot seat (`PrizeLine.drawn`).
    drawn: bool,
}

impl Paid {
    fn of(prize: &pb::PrizeLine) -> Paid {
        Paid { name: prize.name.clone(), level: prize.level.clone(), house: prize.house, envy: prize.envy, drawn: prize.drawn }
    }
}

#[derive(Clone)]
struct Agent {
    config: Arc<AgentConfig>,
    shared: Arc<Mutex<Shared>>,
    output: mpsc::Sender<String>,
    /// Held for each attempt at the command in flight, and by a reconnection while it reads
    /// the server's record to settle that command: an attempt that outlived the link (tonic
    /// re-makes a connection to a controller restarted at the same address) ends before the
    /// record is read, so an applied command is never reported as not recorded. It holds the
    /// table's command stream (`wire::Wire`).
    wire: Arc<Mutex<wire::Wire>>,
    /// True once the first connection attempt has ended, connected or not.
    attempted: Arc<tokio::sync::watch::Sender<bool>>,
}

/// TLS is used exactly when asked for, and plaintext only to this machine: `--tls-ca`
/// with an `http://` URL would silently send in clear, and a plaintext controller
/// elsewhere could be anyone (docs/security.md).
pub fn check_transport(config: &AgentConfig) -> anyhow::Result<()> {
    anyhow::ensure!(config.servers().next().is_some(), "--server: no address given");
    for server in config.servers() {
        let uri: tonic::transport::Uri =
            server.parse().map_err(|error| anyhow::anyhow!("--server {server}: not a URL: {error}"))?;
        // `127.0.0.1:50051` parses as an address alone, and no connection is ever made to it.
        anyhow::ensure!(
            matches!(uri.scheme_str(), Some("http" | "https")) && uri.host().is_some(),
            "--server {server}: not a controller's URL: write http://HOST:PORT (plaintext, to this machine) or \
             https://HOST:PORT (with --tls-ca), as `pozo-server serve` prints it"
        );
        Endpoint::from_shared(server.to_owned()).map_err(|error| anyhow::anyhow!("--server {server}: not a URL: {error}"))?;
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
    let agent = Agent {
        config: Arc::new(config),
        shared: Arc::new(Mutex::new(Shared::default())),
        output,
        wire: Arc::default(),
        attempted: Arc::new(tokio::sync::watch::Sender::new(false)),
    };
    agent.emit_panel(true).await;
    let supervisor = tokio::spawn(agent.clone().supervise());
    while let Some(line) = lines.recv().await {
        let (text, inspector) = match line.into() {
            RawLine::Text(text) => (text, None),
            RawLine::Inspector { text, inspector, pin } => (text, Some((inspector, pin))),
            RawLine::CheckPin { inspector, pin } => {
                // Answered on its own: a command in flight does not hold it up, nor it a command.
                tokio::spawn(agent.clone().check_pin(inspector, pin));
                continue;
            }
            RawLine::Unreadable(problem) => {
                agent.refused("", "input", &problem, None).await;
                continue;
            }
        };
        match line::parse(&text) {
            Ok(None) => {}
            Ok(Some(Input::Status)) => agent.emit_panel(true).await,
            Ok(Some(Input::Command(command))) => agent.submit(text.trim().to_owned(), command, inspector).await,
            Err(problem) => agent.refused(text.trim(), "input", &problem, None).await,
        }
    }
    supervisor.abort();
    Ok(())
}
