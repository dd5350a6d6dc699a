//! The Pozo controller.
//!
//! # Layout
//! Folders by job, from the bottom up; a module imports only from those above it in this
//! list, and no two modules import each other (`cargo test -p pozo-server --test rooms`;
//! docs/architecture.md, "Rooms"). The pure core, `pozo_core`, and the rules, `pozo_engine`,
//! are below them all.
//! - [`clock`], [`cards`]: where time and randomness come from, injected; [`blocking`]: where
//!   blocking work runs (the blocking pool, or inline in the seeded simulation).
//! - [`config`]: the configuration's files read (the types and validation are `pozo_core::config`).
//! - [`journal`]: identity and hash, the seal, the `Store` trait (sled, PostgreSQL), the
//!   hash-chained journal, the acknowledgement mark, recovery.
//! - [`exit`]: one exit status per class of failure (docs/operations.md §15).
//! - [`read`]: the published read model, the signs, `status`, `metrics`, presence.
//! - [`writer`]: the one writer: handle, opening a journal, the batch loop, the hot standby.
//! - `net`: who gets a connection, the transport's limits, TLS.
//! - [`tools`]: `verify`, `backup`, `restore`, `migrate`, the award calculator.
//! - `grpc`: thin handlers, one file per service; auth; one error mapping; wire conversions.
//! - `web`: the pages (cartel luminoso, Venta-Pagos, sala) on their own listener.
//! - this file: the composition root, [`serve`] in its steps, [`Embedded`] for the simulator
//!   and tests, and [`table_command`] for the restart benchmark, which submits to the writer.
//! - [`cli`]: the `pozo-server` command line (the binary's `main` is one call to it).
//!
//! The `pub` modules and items are what the binaries, the simulator and the tests use; the
//! others are the server's own (`pub(crate)`): `net`, `grpc` and `web` are private.
//!
//! The rules themselves live in the pure engine crate, `pozo_engine`.

pub mod blocking;
pub mod build;
pub mod cards;
pub mod cli;
pub mod clock;
pub mod config;
pub mod exit;
mod grpc;
pub mod journal;
mod net;
pub mod read;
pub mod tools;
mod web;
pub mod writer;

/// The pure core's state machine and jornada, for the simulator and the tests; the bugs the
/// seeded simulation can plant (none without the `planted-bugs` feature).
pub use pozo_core::{jornada, planted, state};

use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use pozo_proto::v1 as pb;
use tokio::net::TcpListener;

use crate::config::Config;
use crate::grpc::{
    ChangesService, ControllerService, DisplayService, PoolsService, ReportsService, TableService, TournamentsService,
    VentaPagosService,
};

pub(crate) use net::{FILES_NEEDED, loopback_networks};
pub use net::{MESSAGE_BYTES_MAX, REQUESTS_PER_CONNECTION_MAX, Tls, raise_open_files_limit, runtime, server_builder};

/// After a stop is asked, requests in flight have this long to finish; streams
/// (table and display watchers) are then cut, and the writer closes the journal.
pub(crate) const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// How a server runs, beyond its configuration.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// A snapshot every this many journal entries.
    pub snapshot_every: u64,
    /// Where Central Póker's instant-prize cards come from (15.11.2).
    pub cards: cards::CardSource,
    /// Networks whose displays may watch the feed without a key (loopback by default).
    pub display_open_to: Vec<ipnet::IpNet>,
    /// The acknowledgement mark (crate::journal::mark); `None`: `<data>.acknowledged`, beside the data directory.
    pub mark: Option<PathBuf>,
    /// TLS for the listener; `None`: plaintext, which `pozo-server serve` allows on loopback only.
    pub tls: Option<Tls>,
    /// Who starts the controller, journaled with a new journal or a changed key set;
    /// `None`: the system user and host.
    pub changed_by: Option<String>,
    /// Where the pages (cartel, Venta-Pagos, sala: docs/pages.md) are served; `None`: not served.
    /// Plaintext HTTP: `pozo-server serve` allows it on loopback only.
    pub pages: Option<SocketAddr>,
    /// The pages of this journal's other controllers (its standby, or its writer), as origins
    /// (`http://host:port`): a sign whose controller stops answering goes to the first that answers.
    pub pages_peers: Vec<PagesPeer>,
    /// The controller's time (crate::clock): the system clock, or one a test sets.
    pub clock: Arc<dyn clock::Clock>,
    /// The journal in PostgreSQL (`postgres://…`) instead of sled in the data directory, which
    /// then keeps only the default place of the mark (docs/journal.md, "On PostgreSQL"); and
    /// whether to wait as the standby while another controller is its writer.
    pub store: Option<writer::StoreChoice>,
}

/// Another controller's pages (`serve --pages-peer`): an origin, `http://host:port`, checked
/// when it is made (so that it may stand in the pages' Content-Security-Policy).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PagesPeer(String);

impl std::str::FromStr for PagesPeer {
    type Err = String;

    fn from_str(text: &str) -> Result<PagesPeer, String> {
        web::peer_origin(text).map(PagesPeer)
    }
}

/// What a started controller tells its caller.
#[derive(Clone, Copy, Debug)]
pub struct Started {
    /// The pages' bound address, when they are served.
    pub pages: Option<SocketAddr>,
}

/// The system user and host running this process: `user@host`.
pub(crate) fn system_user() -> String {
    let user = std::env::var("USER").or_else(|_| std::env::var("LOGNAME")).unwrap_or_else(|_| "unknown".to_owned());
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").map(|host| host.trim().to_owned()).unwrap_or_default();
    if host.is_empty() { user } else { format!("{user}@{host}") }
}

impl Default for ServeOptions {
    fn default() -> ServeOptions {
        ServeOptions {
            snapshot_every: writer::SNAPSHOT_EVERY,
            cards: cards::CardSource::Os,
            display_open_to: loopback_networks(),
            mark: None,
            tls: None,
            changed_by: None,
            pages: None,
            pages_peers: Vec::new(),
            clock: Arc::new(clock::SystemClock),
            store: None,
        }
    }
}

/// An agent's table command as the table service makes it the state's command (the same
/// operation and payload hash), with the instant-prize card given rather than drawn: what
/// the simulator's restart benchmark submits straight to the writer, with no gRPC between.
pub fn table_command(command: pb::TableCommand, card: Option<state::Card>) -> anyhow::Result<state::Command> {
    let payload_sha256 = grpc::payload_sha256(&prost::Message::encode_to_vec(&command));
    let op = grpc::table_op(command.command)?;
    Ok(state::Command::Table(state::TableCommand {
        table_id: command.table_id.into(),
        sequence: command.sequence,
        payload_sha256,
        op,
        card,
        inspector: (!command.inspector.is_empty()).then_some(command.inspector),
    }))
}

/// Runs the controller on an already bound listener until `shutdown` completes:
/// recovers the journal in `data`, starts the writer, and serves every service
/// with gRPC health and reflection. `ready` is called once the journal is recovered, just
/// before serving.
pub async fn serve(
    listener: TcpListener,
    config: Config,
    data: &Path,
    options: ServeOptions,
    shutdown: impl Future<Output = ()> + Send,
    ready: impl FnOnce(&Started),
) -> anyhow::Result<()> {
    let pages = bind_pages(&options).await?;
    serve_listeners(listener, pages, config, data, options, shutdown, ready).await
}

/// [`serve`] on listeners already bound: the gRPC services' and the pages' (`options.pages`
/// is not bound again). `pozo-server serve` binds every address it is given before anything
/// touches the journal, `--open-from`'s new one included, so that an address in use changes
/// nothing on disk.
pub async fn serve_listeners(
    listener: TcpListener,
    pages: Option<TcpListener>,
    config: Config,
    data: &Path,
    options: ServeOptions,
    shutdown: impl Future<Output = ()> + Send,
    ready: impl FnOnce(&Started),
) -> anyhow::Result<()> {
    let grpc_address = listener.local_addr().map(|address| address.to_string()).unwrap_or_default();
    let tls = options.tls.is_some();
    // Connections are admitted only once the journal is recovered (`incoming` starts accepting).
    serve_bound(move || net::incoming(listener, tls), pages, grpc_address, config, data, options, shutdown, ready).await
}

/// Binds the pages' listener when `options.pages` asks for them: before the journal is
/// opened or begun, so that a port in use is refused (exit 7) with nothing written.
async fn bind_pages(options: &ServeOptions) -> anyhow::Result<Option<TcpListener>> {
    match options.pages {
        Some(address) => {
            Ok(Some(TcpListener::bind(address).await.map_err(|error| exit::ListenFailed(format!("--pages {address}: {error}")))?))
        }
        None => Ok(None),
    }
}

/// [`serve`] on the connections the stream `incoming` makes yields, whoever made them: the
/// admitted TCP connections of a listener, or the seeded simulation's in-memory ones (`pozo-sim
/// vopr`). `incoming` is called once the journal is recovered, just before serving.
/// `grpc_address` is what the pages say the gRPC services listen on.
pub async fn serve_incoming<IO, IE, S>(
    incoming: impl FnOnce() -> S,
    grpc_address: String,
    config: Config,
    data: &Path,
    options: ServeOptions,
    shutdown: impl Future<Output = ()> + Send,
    ready: impl FnOnce(&Started),
) -> anyhow::Result<()>
where
    S: tokio_stream::Stream<Item = Result<IO, IE>> + Send + 'static,
    IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + tonic::transport::server::Connected + Unpin + Send + 'static,
    IO::ConnectInfo: Clone + Send + Sync + 'static,
    IE: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let pages = bind_pages(&options).await?;
    serve_bound(incoming, pages, grpc_address, config, data, options, shutdown, ready).await
}

/// [`serve_incoming`] with the pages' listener, if any, already bound: every address is
/// taken before the journal is opened or begun.
#[allow(clippy::too_many_arguments, reason = "serve_incoming's arguments and the pages' listener bound before them")]
async fn serve_bound<IO, IE, S>(
    incoming: impl FnOnce() -> S,
    pages: Option<TcpListener>,
    grpc_address: String,
    config: Config,
    data: &Path,
    options: ServeOptions,
    shutdown: impl Future<Output = ()> + Send,
    ready: impl FnOnce(&Started),
) -> anyhow::Result<()>
where
    S: tokio_stream::Stream<Item = Result<IO, IE>> + Send + 'static,
    IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + tonic::transport::server::Connected + Unpin + Send + 'static,
    IO::ConnectInfo: Clone + Send + Sync + 'static,
    IE: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    tokio::pin!(shutdown);
    let Some((handle, mut writer, stopper)) = open_writer(config, data, &options, &mut shutdown).await? else {
        tracing::info!("stopped before serving");
        return Ok(());
    };
    let (health, health_service) = health_of(&handle).await;
    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(pozo_proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
    };
    // v1alpha beside v1: Python's grpcio-reflection and older grpcurl speak only v1alpha.
    let (reflection, reflection_v1alpha) = (reflection().build_v1()?, reflection().build_v1alpha()?);
    let (stopping, mut stop_requested) = tokio::sync::watch::channel(false);
    let presence = read::presence::Presence::new(
        handle.config().layout.tables.iter().map(|table| table.id.as_str()),
        Arc::clone(&options.clock),
    );
    let services = Services::new(&handle, &options, &stopping, &presence);
    let (started, pages) = start_pages(pages, &options, data, grpc_address, &handle, &presence, &stopping)?;
    drop(handle);
    ready(&started);
    let tls = options.tls.as_ref().map(Tls::server_config);
    let mut builder = server_builder();
    if let Some(tls) = tls.clone() {
        builder = builder.tls_config(tls)?;
    }
    let server = builder
        .layer(net::date_header(Arc::clone(&options.clock)))
        .add_service(health_service)
        .add_service(reflection)
        .add_service(reflection_v1alpha)
        .add_service(services.table)
        .add_service(services.display)
        .add_service(services.office)
        .add_service(services.reports)
        .add_service(services.pools)
        .add_service(services.changes)
        .add_service(services.tournaments)
        .add_service(services.controller)
        .serve_with_incoming_shutdown(incoming(), async move {
            let _ = stop_requested.wait_for(|stop| *stop).await;
        });
    tokio::pin!(server);
    let result = tokio::select! {
        biased;
        result = &mut server => result.map_err(anyhow::Error::from),
        ended = &mut writer => return Err(writer_failed(ended, &health, &stopping).await),
        _ = &mut shutdown => {
            let _ = stopping.send(true);
            match tokio::time::timeout(SHUTDOWN_GRACE, &mut server).await {
                Ok(result) => result.map_err(anyhow::Error::from),
                Err(_) => {
                    tracing::info!("streams still open after the grace period: closing them");
                    Ok(())
                }
            }
        }
    };
    finish(pages, stopper, writer).await?;
    result?;
    Ok(())
}

/// The pages' task, when they are served.
type PagesTask = tokio::task::JoinHandle<std::io::Result<()>>;

/// Serves the pages on their bound listener, if any, on a task of their own; says where in
/// [`Started`].
fn start_pages(
    pages_listener: Option<TcpListener>,
    options: &ServeOptions,
    data: &Path,
    grpc_address: String,
    handle: &writer::Handle,
    presence: &read::presence::Presence,
    stopping: &tokio::sync::watch::Sender<bool>,
) -> anyhow::Result<(Started, Option<PagesTask>)> {
    let started = Started { pages: pages_listener.as_ref().map(TcpListener::local_addr).transpose()? };
    let pages = pages_listener.map(|listener| {
        let setup = web::PagesSetup {
            listen: grpc_address,
            data: data.to_path_buf(),
            handle: handle.clone(),
            presence: presence.clone(),
            stop: stopping.subscribe(),
            open_to: options.display_open_to.clone(),
            peers: options.pages_peers.iter().map(|peer| peer.0.clone()).collect(),
        };
        tokio::spawn(web::serve_pages(listener, setup))
    });
    Ok((started, pages))
}

/// After the gRPC server: the pages get the grace period, then the writer finishes the
/// batch in hand and closes the journal.
async fn finish(pages: Option<PagesTask>, stopper: writer::Stopper, writer: tokio::task::JoinHandle<()>) -> anyhow::Result<()> {
    if let Some(mut pages) = pages {
        // The signs were told SUSPENDIDO when the stop was sent; an office page still
        // loading has the grace period.
        if tokio::time::timeout(SHUTDOWN_GRACE, &mut pages).await.is_err() {
            pages.abort();
        }
    }
    stopper.stop();
    writer.await?;
    Ok(())
}

/// Recovers the journal in `data` (or begins one) and starts the writer; `None` when a stop
/// is asked first.
async fn open_writer(
    config: Config,
    data: &Path,
    options: &ServeOptions,
    shutdown: &mut std::pin::Pin<&mut (impl Future<Output = ()> + Send)>,
) -> anyhow::Result<Option<(writer::Handle, tokio::task::JoinHandle<()>, writer::Stopper)>> {
    let mark = options.mark.clone().unwrap_or_else(|| journal::mark::default_path(data));
    let changed_by = options.changed_by.clone().unwrap_or_else(system_user);
    let started = writer::start(
        config,
        data,
        options.store.as_ref(),
        &mark,
        options.snapshot_every,
        &changed_by,
        Arc::clone(&options.clock),
        options.cards,
    );
    // A standby may wait long before it begins (no journal yet, the database away): a stop
    // asked meanwhile ends the wait.
    tokio::select! {
        biased;
        started = started => started.map(Some),
        _ = shutdown => Ok(None),
    }
}

/// gRPC health: every service serving, except that a hot standby, which serves reads and
/// the signs but takes no command, has the table and Venta-Pagos services say NOT_SERVING
/// until it takes over (docs/operations.md §16).
async fn health_of(
    handle: &writer::Handle,
) -> (
    tonic_health::server::HealthReporter,
    tonic_health::pb::health_server::HealthServer<impl tonic_health::pb::health_server::Health>,
) {
    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<pb::table_server::TableServer<TableService>>().await;
    health.set_serving::<pb::display_server::DisplayServer<DisplayService>>().await;
    health.set_serving::<pb::venta_pagos_server::VentaPagosServer<VentaPagosService>>().await;
    health.set_serving::<pb::reports_server::ReportsServer<ReportsService>>().await;
    health.set_serving::<pb::pools_server::PoolsServer<PoolsService>>().await;
    health.set_serving::<pb::changes_server::ChangesServer<ChangesService>>().await;
    health.set_serving::<pb::tournaments_server::TournamentsServer<TournamentsService>>().await;
    health.set_serving::<pb::controller_server::ControllerServer<ControllerService>>().await;
    let mut role = handle.role_changes();
    if *role.borrow_and_update() == read::status::Role::Standby {
        health.set_not_serving::<pb::table_server::TableServer<TableService>>().await;
        health.set_not_serving::<pb::venta_pagos_server::VentaPagosServer<VentaPagosService>>().await;
        health.set_not_serving::<pb::tournaments_server::TournamentsServer<TournamentsService>>().await;
        let health = health.clone();
        tokio::spawn(async move {
            // A standby becomes the writer once; the role does not go back.
            if role.wait_for(|role| *role == read::status::Role::Writer).await.is_ok() {
                health.set_serving::<pb::table_server::TableServer<TableService>>().await;
                health.set_serving::<pb::venta_pagos_server::VentaPagosServer<VentaPagosService>>().await;
                health.set_serving::<pb::tournaments_server::TournamentsServer<TournamentsService>>().await;
            }
        });
    }
    (health, health_service)
}

/// The controller's gRPC services over one writer handle.
struct Services {
    table: pb::table_server::TableServer<TableService>,
    display: pb::display_server::DisplayServer<DisplayService>,
    controller: pb::controller_server::ControllerServer<ControllerService>,
    office: pb::venta_pagos_server::VentaPagosServer<VentaPagosService>,
    reports: pb::reports_server::ReportsServer<ReportsService>,
    pools: pb::pools_server::PoolsServer<PoolsService>,
    changes: pb::changes_server::ChangesServer<ChangesService>,
    tournaments: pb::tournaments_server::TournamentsServer<TournamentsService>,
}

impl Services {
    fn new(
        handle: &writer::Handle,
        options: &ServeOptions,
        stopping: &tokio::sync::watch::Sender<bool>,
        presence: &read::presence::Presence,
    ) -> Services {
        let table = pb::table_server::TableServer::new(TableService {
            handle: handle.clone(),
            cards: options.cards,
            stop: stopping.subscribe(),
            presence: presence.clone(),
            pins: std::sync::Arc::new(net::secrets::Lockout::new("pin")),
        })
        .max_decoding_message_size(MESSAGE_BYTES_MAX);
        let display = pb::display_server::DisplayServer::new(DisplayService {
            handle: handle.clone(),
            open_to: std::sync::Arc::new(options.display_open_to.clone()),
            stop: stopping.subscribe(),
        })
        .max_decoding_message_size(MESSAGE_BYTES_MAX);
        let controller = pb::controller_server::ControllerServer::new(ControllerService { handle: handle.clone() });
        let office = pb::venta_pagos_server::VentaPagosServer::new(VentaPagosService { handle: handle.clone() })
            .max_decoding_message_size(MESSAGE_BYTES_MAX);
        let reports = pb::reports_server::ReportsServer::new(ReportsService { handle: handle.clone() })
            .max_decoding_message_size(MESSAGE_BYTES_MAX);
        let pools = pb::pools_server::PoolsServer::new(PoolsService { handle: handle.clone() })
            .max_decoding_message_size(MESSAGE_BYTES_MAX);
        let changes = pb::changes_server::ChangesServer::new(ChangesService { handle: handle.clone() })
            .max_decoding_message_size(MESSAGE_BYTES_MAX);
        let tournaments = pb::tournaments_server::TournamentsServer::new(TournamentsService { handle: handle.clone() })
            .max_decoding_message_size(MESSAGE_BYTES_MAX);
        Services { table, display, controller, office, reports, pools, changes, tournaments }
    }
}

/// The writer ended without being asked: every service stops serving and the controller
/// stops with the exit status of the fail-stop's class. The writer ends only when asked, or
/// when a batch could not be made durable: a controller that cannot journal must not look alive.
async fn writer_failed(
    ended: Result<(), tokio::task::JoinError>,
    health: &tonic_health::server::HealthReporter,
    stopping: &tokio::sync::watch::Sender<bool>,
) -> anyhow::Error {
    health.set_not_serving::<pb::table_server::TableServer<TableService>>().await;
    health.set_service_status("", tonic_health::ServingStatus::NotServing).await;
    let _ = stopping.send(true);
    match ended {
        Err(error) if error.is_panic() => match error.into_panic().downcast::<writer::FailStop>() {
            // A standby that found the writer's journal damaged: refused, not a storage failure.
            Ok(stop) => match *stop {
                writer::FailStop::JournalDamaged(text) => anyhow::Error::new(exit::JournalRefused(text)),
            },
            Err(_) => anyhow::Error::new(exit::StorageFailed(
                "the journal writer failed; the controller stops (see the log above)".into(),
            )),
        },
        other => anyhow::anyhow!("the journal writer stopped unexpectedly: {other:?}"),
    }
}

/// The controller run inside this process on a free loopback port: for the
/// simulator and the integration tests.
pub struct Embedded {
    pub address: SocketAddr,
    /// `http://127.0.0.1:PORT` (`https://` with TLS).
    pub url: String,
    /// The pages' address, when `options.pages` asked for them.
    pub pages: Option<SocketAddr>,
    pub data: PathBuf,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<anyhow::Result<()>>,
}

impl Embedded {
    /// Starts [`serve`] on `127.0.0.1:0` with its journal in `data`; returns once it serves.
    pub async fn start(config: Config, data: &Path, options: ServeOptions) -> anyhow::Result<Embedded> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        let scheme = if options.tls.is_some() { "https" } else { "http" };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (ready, is_ready) = tokio::sync::oneshot::channel::<Started>();
        let directory = data.to_path_buf();
        let task = tokio::spawn(async move {
            let shutdown = async move {
                let _ = stopped.await;
            };
            serve(listener, config, &directory, options, shutdown, move |started| {
                let _ = ready.send(*started);
            })
            .await
        });
        let Ok(started) = is_ready.await else {
            let result = task.await?;
            return Err(result.err().unwrap_or_else(|| anyhow::anyhow!("the embedded controller ended before serving")));
        };
        Ok(Embedded {
            address,
            url: format!("{scheme}://{address}"),
            pages: started.pages,
            data: data.to_path_buf(),
            stop: Some(stop),
            task,
        })
    }

    /// Stops the controller (streams end, the writer closes the journal) and returns how it ended.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        (&mut self.task).await?
    }
}
