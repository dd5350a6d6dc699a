//! The pages, served by `pozo-server` itself on their own listener (`serve --pages`):
//! the cartel luminoso (`/cartel`), the Venta-Pagos office (`/venta-pagos`) and the
//! floor view of the jefe de sala (`/sala`). docs/pages.md describes them.
//!
//! # Layout
//! - [`feed`]: the signs' event stream, built once per published display state
//!   (the same one the gRPC display feed sends) and shared by every open sign.
//! - [`auth`]: per-operator login (the keys file's Argon2id password hashes),
//!   sessions, CSRF tokens, lock-out.
//! - `cartel`, `office`, `sala`: the pages, thin over the writer's reads and commands.
//! - `view`: amounts the Argentine way, times in the casino's zone, CSV.
//!
//! Everything the browser loads is embedded in the binary (`server/templates`,
//! `server/static`); no script or style comes from anywhere else (Content-Security-Policy).

pub mod auth;
mod cartel;
pub mod feed;
mod office;
mod sala;
mod view;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::connect_info::Connected;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};

use crate::read::presence::Presence;
use crate::writer::{Handle, WriterError};
use pozo_core::state::{Refusal, RefusalKind};

pub use auth::hash_password;

/// Open connections to the pages at once: every sign keeps one.
pub const CONNECTIONS_MAX: usize = 2048;
/// Requests being served at once; beyond it, 503 at once rather than a queue.
pub const REQUESTS_MAX: usize = 2048;
/// The largest request body: a form of a few fields.
pub const BODY_BYTES_MAX: usize = 16 * 1024;

/// What the pages need of the running controller.
#[derive(Clone)]
pub(crate) struct Web {
    handle: Handle,
    presence: Presence,
    frames: watch::Receiver<Arc<feed::Frame>>,
    sessions: Arc<auth::Sessions>,
    /// Networks whose signs may open `/cartel` without a session (`serve --display-open-to`).
    open_to: Arc<Vec<ipnet::IpNet>>,
    /// The gRPC address the controller listens on.
    listen: Arc<str>,
    data: Arc<std::path::Path>,
    /// The other controllers' pages (`serve --pages-peer`), where a sign goes when this one stops answering.
    peers: Arc<[String]>,
}

/// A refusal as a page: the status, and the message in the operators' words.
#[derive(Debug)]
pub(crate) struct PageError {
    status: StatusCode,
    message: String,
}

impl PageError {
    pub(crate) fn new(status: StatusCode, message: impl Into<String>) -> PageError {
        PageError { status, message: message.into() }
    }

    fn bad_request(message: impl Into<String>) -> PageError {
        PageError::new(StatusCode::BAD_REQUEST, message)
    }

    fn not_found(message: impl Into<String>) -> PageError {
        PageError::new(StatusCode::NOT_FOUND, message)
    }
}

/// The one mapping from the state machine's refusals to HTTP statuses (as
/// `From<Refusal> for Status` is for gRPC).
impl From<Refusal> for PageError {
    fn from(refusal: Refusal) -> PageError {
        let status = match refusal.kind {
            RefusalKind::InvalidArgument => StatusCode::BAD_REQUEST,
            RefusalKind::FailedPrecondition | RefusalKind::AlreadyExists => StatusCode::CONFLICT,
            RefusalKind::NotFound => StatusCode::NOT_FOUND,
        };
        PageError::new(status, refusal.message)
    }
}

impl From<WriterError> for PageError {
    fn from(error: WriterError) -> PageError {
        let message = match error {
            WriterError::Stopped => "El controlador se está deteniendo: intente de nuevo en unos segundos.",
            WriterError::Standby => {
                "Este controlador está EN ESPERA (standby): muestra los pozos pero no registra operaciones. \
                 Confirme o rechace en el controlador activo."
            }
        };
        PageError::new(StatusCode::SERVICE_UNAVAILABLE, message)
    }
}

impl From<askama::Error> for PageError {
    fn from(error: askama::Error) -> PageError {
        tracing::error!(%error, "a page could not be rendered");
        PageError::new(StatusCode::INTERNAL_SERVER_ERROR, "La página no se pudo generar.")
    }
}

#[derive(askama::Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    code: u16,
    reason: &'a str,
    message: &'a str,
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let reason = self.status.canonical_reason().unwrap_or("");
        let page = askama::Template::render(&ErrorPage { code: self.status.as_u16(), reason, message: &self.message })
            .unwrap_or_else(|_| self.message.clone());
        (self.status, Html(page)).into_response()
    }
}

/// A template rendered as a 200 page.
pub(crate) fn page(template: &impl askama::Template) -> Result<Response, PageError> {
    Ok(Html(template.render()?).into_response())
}

/// The embedded assets: (path, content type, bytes).
const ASSETS: &[(&str, &str, &str)] = &[
    ("pozo.css", "text/css; charset=utf-8", include_str!("../../static/pozo.css")),
    ("cartel.js", "text/javascript; charset=utf-8", include_str!("../../static/cartel.js")),
    ("oficina.js", "text/javascript; charset=utf-8", include_str!("../../static/oficina.js")),
    ("sala.js", "text/javascript; charset=utf-8", include_str!("../../static/sala.js")),
];

async fn asset(axum::extract::Path(name): axum::extract::Path<String>) -> Response {
    match ASSETS.iter().find(|(path, _, _)| *path == name) {
        Some((_, kind, body)) => {
            ([(header::CONTENT_TYPE, *kind), (header::CACHE_CONTROL, "public, max-age=300")], *body).into_response()
        }
        None => PageError::not_found(format!("No existe el recurso `{}`.", view::bounded(&name))).into_response(),
    }
}

#[derive(askama::Template)]
#[template(path = "inicio.html")]
struct Home {
    casino: String,
}

async fn home(axum::extract::State(web): axum::extract::State<Web>) -> Result<Response, PageError> {
    page(&Home { casino: web.handle.config().layout.casino.clone() })
}

/// The controller's metrics in the Prometheus text format (crate::read::metrics; docs/operations.md §13).
/// Open like the signs: the listener is loopback only, and nothing here is secret.
async fn metrics(axum::extract::State(web): axum::extract::State<Web>) -> Response {
    let connected = web.presence.tables().values().filter(|seen| seen.connected()).count();
    let text = web.handle.metrics().render(&web.handle.read(), connected, web.handle.role());
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], text).into_response()
}

/// How the controller is, as JSON (crate::read::status; `pozo-server status` reads it). Open like
/// `/metrics`: loopback only, and nothing in it is secret.
async fn status(axum::extract::State(web): axum::extract::State<Web>) -> Response {
    axum::Json(status_of(&web)).into_response()
}

/// `POST /backup`: a verified copy of the durable journal (crate::tools::backup), for whoever holds the
/// journal key. 401 without its MAC, 400 for a path that cannot take a backup, 500 when the
/// copy fails; the controller serves on throughout.
async fn backup(
    axum::extract::State(web): axum::extract::State<Web>,
    headers: axum::http::HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    use crate::tools::backup::{BackupError, BackupRequest, MAC_HEADER};
    let refuse =
        |status: StatusCode, message: String| (status, axum::Json(serde_json::json!({ "error": message }))).into_response();
    let request: BackupRequest = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(error) => return refuse(StatusCode::BAD_REQUEST, format!("body: {error}")),
    };
    let Some(key) = web.handle.config().journal_key.clone() else {
        return refuse(StatusCode::FORBIDDEN, "this controller has no journal key".to_owned());
    };
    let mac = headers.get(MAC_HEADER).and_then(|value| value.to_str().ok()).unwrap_or_default();
    if !crate::tools::backup::request_allowed(&key, web.handle.journal_id(), &request.to, mac) {
        return refuse(
            StatusCode::UNAUTHORIZED,
            format!("{MAC_HEADER}: not the journal key's MAC of this request (pozo-server backup computes it from --keys)"),
        );
    }
    let durable = web.handle.read().tip;
    tracing::info!(to = %request.to.display(), entries = durable.entries, "backup started");
    let done = crate::tools::backup::backup(
        web.handle.journal(),
        web.handle.identity().clone(),
        key,
        durable,
        web.data.to_path_buf(),
        request.to,
    )
    .await;
    match done {
        Ok(done) => {
            tracing::info!(to = %done.to, entries = done.entries, "backup verified");
            axum::Json(done).into_response()
        }
        Err(BackupError::Target(message)) => refuse(StatusCode::BAD_REQUEST, message),
        Err(error @ BackupError::Failed(_)) => {
            tracing::error!(%error, "backup failed");
            refuse(StatusCode::INTERNAL_SERVER_ERROR, error.to_string())
        }
    }
}

/// A table of the layout as it stands: its last published panel and its agent's presence.
pub(crate) struct TableNow<'a> {
    pub layout: &'a crate::config::TableConfig,
    pub state: pozo_core::state::TableState,
    pub round: u64,
    pub seen: crate::read::presence::AgentSeen,
}

impl TableNow<'_> {
    /// Open, but its agent is away: its panels are suspended (3.7.5).
    pub fn suspended(&self) -> bool {
        self.state != pozo_core::state::TableState::Closed && !self.seen.connected()
    }
}

/// Every table of the layout, in its order, as the floor page and `/status` show it.
pub(crate) fn tables_now<'a>(web: &Web, config: &'a crate::config::Config) -> Vec<TableNow<'a>> {
    let agents = web.presence.tables();
    config
        .layout
        .tables
        .iter()
        .filter_map(|layout| {
            let (state, round) = {
                let panel = web.handle.table(&layout.id)?;
                let push = panel.borrow();
                (push.view.state, push.view.round)
            };
            let seen = agents.get(layout.id.as_str()).copied().unwrap_or_default();
            Some(TableNow { layout, state, round, seen })
        })
        .collect()
}

fn status_of(web: &Web) -> crate::read::status::Status {
    use crate::read::status::{JournalStatus, PendingPayout, PoolStatus, Status, TableStatus};
    let config = web.handle.config();
    let model = web.handle.read();
    let tables: Vec<TableStatus> = tables_now(web, config)
        .into_iter()
        .map(|now| TableStatus {
            table: now.layout.id.to_string(),
            pool: now.layout.pool.to_string(),
            game: now.layout.game.to_string(),
            state: now.state.as_str().to_owned(),
            agent_connected: now.seen.connected(),
            suspended: now.suspended(),
        })
        .collect();
    Status {
        serving: web.handle.is_serving(),
        role: web.handle.role().name().to_owned(),
        casino: config.layout.casino.clone(),
        listen: web.listen.to_string(),
        journal: JournalStatus {
            journal_id: web.handle.journal_id().to_owned(),
            entries: model.tip.entries,
            tip: hex::encode(model.tip.hash),
        },
        pools: model
            .pools()
            .map(|pool| PoolStatus {
                pool: pool.rules().id.to_string(),
                name: view::pool_name(config, &pool.rules().id),
                balance: pool.balance(),
                displayed: pool.displayed(),
            })
            .collect(),
        agents_connected: tables.iter().filter(|table| table.agent_connected).count(),
        tables,
        displays_watching: web.handle.metrics().displays_watching(),
        pending_payouts: model
            .pending_orders()
            .map(|order| PendingPayout {
                order_id: order.order_id.clone(),
                pool: order.facts.pool.to_string(),
                table: order.facts.table_id.to_string(),
                seat: order.facts.seat,
                code: order.facts.code.to_string(),
                amount: order.facts.amount,
            })
            .collect(),
    }
}

/// `--pages-peer`: an origin, `http://host:port` or `https://host:port`, with nothing after it.
pub(crate) fn peer_origin(text: &str) -> Result<String, String> {
    let rest = text.strip_prefix("http://").or_else(|| text.strip_prefix("https://"));
    let host = rest.map(|rest| rest.strip_suffix('/').unwrap_or(rest));
    match host {
        Some(host)
            if !host.is_empty()
                && host.len() <= 255
                && host.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']')) =>
        {
            Ok(text.trim_end_matches('/').to_owned())
        }
        _ => Err(format!(
            "`{}`: write the other controller's pages as http://host:port (scheme, host and port only)",
            text.chars().take(80).collect::<String>()
        )),
    }
}

/// The pages' Content-Security-Policy: every byte the browser runs comes from this server and
/// no page may be framed. A sign may ask the peers (`serve --pages-peer`) whether they answer,
/// and nothing else: they are the only other origins it connects to.
fn content_security_policy(peers: &[String]) -> HeaderValue {
    let connect: String = peers.iter().map(|peer| format!(" {peer}")).collect();
    HeaderValue::from_str(&format!(
        "default-src 'self'; connect-src 'self'{connect}; img-src 'self' data:; style-src 'self'; script-src 'self'; \
         frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
    ))
    .expect("peer origins are checked by the command line: visible ASCII")
}

fn router(web: Web) -> Router {
    use tower_http::set_header::SetResponseHeaderLayer;
    let security = |name: &'static str, value: &'static str| {
        SetResponseHeaderLayer::if_not_present(header::HeaderName::from_static(name), HeaderValue::from_static(value))
    };
    let policy = content_security_policy(&web.peers);
    Router::new()
        .route("/", get(home))
        .route("/static/{name}", get(asset))
        .route("/metrics", get(metrics))
        .route("/status", get(status))
        .route("/backup", axum::routing::post(backup))
        .merge(cartel::routes())
        .merge(auth::routes())
        .merge(office::routes())
        .merge(sala::routes())
        .fallback(|| async { PageError::not_found("No existe esa página.") })
        .with_state(web)
        .layer(axum::extract::DefaultBodyLimit::max(BODY_BYTES_MAX))
        // Every byte the browser runs comes from this server; no page may be framed.
        .layer(SetResponseHeaderLayer::if_not_present(header::CONTENT_SECURITY_POLICY, policy))
        .layer(security("x-content-type-options", "nosniff"))
        .layer(security("referrer-policy", "no-referrer"))
        .layer(security("x-frame-options", "DENY"))
        .layer(
            tower::ServiceBuilder::new()
                .layer(axum::error_handling::HandleErrorLayer::new(|_: tower::BoxError| async {
                    PageError::new(StatusCode::SERVICE_UNAVAILABLE, "Demasiadas solicitudes a la vez: intente de nuevo.")
                }))
                .load_shed()
                .concurrency_limit(REQUESTS_MAX),
        )
}

/// The pages' listener: at most [`CONNECTIONS_MAX`] connections open at once (the
/// next waits in the kernel's backlog until one closes).
struct Limited {
    listener: TcpListener,
    permits: Arc<Semaphore>,
}

/// An accepted connection holding its place under the limit until it closes.
struct Permitted {
    stream: TcpStream,
    _permit: OwnedSemaphorePermit,
}

impl AsyncRead for Permitted {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
        buffer: &mut ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_read(context, buffer)
    }
}

impl AsyncWrite for Permitted {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
        buffer: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.stream).poll_write(context, buffer)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_flush(context)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_shutdown(context)
    }
}

impl axum::serve::Listener for Limited {
    type Io = Permitted;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Permitted, SocketAddr) {
        loop {
            let permit = Arc::clone(&self.permits).acquire_owned().await.expect("the semaphore is never closed");
            match self.listener.accept().await {
                Ok((stream, peer)) => {
                    let _ = stream.set_nodelay(true);
                    return (Permitted { stream, _permit: permit }, peer);
                }
                Err(error) => {
                    // Out of file descriptors, mostly: wait rather than spin.
                    tracing::warn!(%error, "pages: accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }
}

/// The peer of a request to the pages.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Peer(pub SocketAddr);

impl Connected<axum::serve::IncomingStream<'_, Limited>> for Peer {
    fn connect_info(stream: axum::serve::IncomingStream<'_, Limited>) -> Peer {
        Peer(*stream.remote_addr())
    }
}

/// What [`serve_pages`] needs besides the listener.
pub(crate) struct PagesSetup {
    /// The gRPC address, for `/status`.
    pub listen: String,
    /// The data directory, which a backup may not be written into.
    pub data: std::path::PathBuf,
    pub handle: Handle,
    pub presence: Presence,
    pub stop: watch::Receiver<bool>,
    pub open_to: Vec<ipnet::IpNet>,
    /// The other controllers' pages (`serve --pages-peer`): origins, `http://host:port`.
    pub peers: Vec<String>,
}

/// Serves the pages on `listener` until `stop` turns true: the signs' streams then
/// send SUSPENDIDO and end.
pub(crate) async fn serve_pages(listener: TcpListener, setup: PagesSetup) -> std::io::Result<()> {
    let frames = feed::spawn(setup.handle.display(), Arc::clone(setup.handle.config()), setup.stop.clone());
    let web = Web {
        handle: setup.handle,
        presence: setup.presence,
        frames,
        sessions: Arc::new(auth::Sessions::default()),
        open_to: Arc::new(setup.open_to),
        listen: Arc::from(setup.listen),
        data: Arc::from(setup.data),
        peers: Arc::from(setup.peers),
    };
    let listener = Limited { listener, permits: Arc::new(Semaphore::new(CONNECTIONS_MAX)) };
    let mut stop = setup.stop;
    axum::serve(listener, router(web).into_make_service_with_connect_info::<Peer>())
        .with_graceful_shutdown(async move {
            let _ = stop.wait_for(|stop| *stop).await;
        })
        .await
}

#[cfg(test)]
mod peer_tests {
    use super::peer_origin;

    #[test]
    fn a_pages_peer_is_an_origin_and_nothing_else() {
        assert_eq!(peer_origin("http://10.0.0.2:8080/").as_deref(), Ok("http://10.0.0.2:8080"));
        assert_eq!(peer_origin("https://standby.salon:8443").as_deref(), Ok("https://standby.salon:8443"));
        assert_eq!(peer_origin("http://[::1]:8080").as_deref(), Ok("http://[::1]:8080"));
        for refused in ["10.0.0.2:8080", "ftp://x:1", "http://", "http://x:1/cartel", "http://x:1 'unsafe-inline'", "http://x;y"]
        {
            let error = peer_origin(refused).expect_err(refused);
            assert!(error.contains("http://host:port"), "{refused}: {error}");
        }
    }
}
