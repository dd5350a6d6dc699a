//! The tournament room's display (`/torneo/{id}/cartel`): for a screen in the poker room, read
//! from across it — the prize pool in big figures, the entrants, the phase and each position's
//! prize ("1.º $ 101.750,00"; Res. 123/2013 art. 65), never the house's share (art. 63) and
//! never a player's document. No login, on the networks the cartel is open to (`serve
//! --display-open-to`), or for a signed-in office, supervisor or inspector, as the cartel.
//!
//! Live as the flor is: `/torneo/{id}/eventos` is a server-sent event stream of the figures'
//! fragment (`torneo_cartel_datos.html`), sent again when the tournament changes (at most every
//! [`FRAME_INTERVAL`]) and every [`BEAT`] otherwise; static/torneo_cartel.js swaps it in and
//! says "sin conexión" when the stream errs or falls silent. At most [`WATCHERS_MAX`] streams at
//! once; beyond, 503.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum_extra::extract::CookieJar;

use super::context::Web;
use super::error::{PageError, page};
use super::listen::Peer;
use super::torneos::{Head, PoolView, head, pool};
use super::{auth, view};
use crate::config::Role;

/// Who may watch the room's display from outside the open networks (as the cartel).
const SIGN_READERS: &[Role] = &[Role::Office, Role::Supervisor, Role::Inspector];
/// At most one fragment per this interval.
const FRAME_INTERVAL: Duration = Duration::from_millis(100);
/// The fragment is sent again after this long without a change: the page knows it is live.
const BEAT: Duration = Duration::from_millis(1000);
/// What static/torneo_cartel.js waits without an event before it says "sin conexión".
const SILENCE_MS: u64 = 3000;
/// The room displays' streams open at once, every tournament together.
const WATCHERS_MAX: usize = 64;

static WATCHERS: AtomicUsize = AtomicUsize::new(0);

/// One open stream, counted while it lives.
struct Watching;

impl Watching {
    fn open() -> Option<Watching> {
        let before = WATCHERS.fetch_add(1, Ordering::SeqCst);
        if before >= WATCHERS_MAX {
            WATCHERS.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        Some(Watching)
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        WATCHERS.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Loopback and `serve --display-open-to` networks, or a signed-in office, supervisor or inspector.
fn may_watch(web: &Web, peer: &Peer, jar: &CookieJar) -> Result<(), PageError> {
    if crate::net::display_open(&web.open_to, peer.0.ip()) {
        return Ok(());
    }
    let session = jar.get(auth::SESSION_COOKIE).and_then(|cookie| web.sessions.find(cookie.value()));
    match session {
        Some(session) if SIGN_READERS.contains(&session.role) => Ok(()),
        _ => Err(PageError::new(
            StatusCode::FORBIDDEN,
            format!(
                "El cartel del torneo se muestra en las redes habilitadas (serve --display-open-to); {} no lo está. Ingrese como Venta-Pagos o jefe de sala.",
                peer.0.ip()
            ),
        )),
    }
}

#[derive(askama::Template)]
#[template(path = "torneo_cartel.html")]
struct RoomPage {
    casino: String,
    head: Head,
    pool: PoolView,
    silence_ms: u64,
}

/// The figures, as the page holds them and the stream sends them again.
#[derive(askama::Template)]
#[template(path = "torneo_cartel_datos.html")]
struct RoomFragment {
    head: Head,
    pool: PoolView,
}

fn tournament(web: &Web, id: &str) -> Result<pozo_core::state::tournament::Tournament, PageError> {
    web.handle
        .read()
        .tournament(id)
        .cloned()
        .ok_or_else(|| PageError::not_found(format!("No existe el torneo `{}`.", view::bounded(id))))
}

async fn room(State(web): State<Web>, ConnectInfo(peer): ConnectInfo<Peer>, jar: CookieJar, Path(id): Path<String>) -> Response {
    let result = (|| {
        may_watch(&web, &peer, &jar)?;
        let tournament = tournament(&web, &id)?;
        page(&RoomPage {
            casino: web.handle.config().layout.casino.clone(),
            head: head(&tournament),
            pool: pool(&tournament),
            silence_ms: SILENCE_MS,
        })
    })();
    result.unwrap_or_else(IntoResponse::into_response)
}

/// The figures' fragment now, and the read model it was read from.
fn fragment(web: &Web, id: &str) -> Option<(Arc<crate::read::ReadModel>, String)> {
    let read = web.handle.read();
    let tournament = read.tournament(id)?;
    let html = askama::Template::render(&RoomFragment { head: head(tournament), pool: pool(tournament) }).ok()?;
    Some((read, html))
}

async fn events(
    State(web): State<Web>,
    ConnectInfo(peer): ConnectInfo<Peer>,
    jar: CookieJar,
    Path(id): Path<String>,
) -> Response {
    if let Err(error) = may_watch(&web, &peer, &jar).and_then(|()| tournament(&web, &id).map(drop)) {
        return error.into_response();
    }
    let Some(watching) = Watching::open() else {
        return PageError::new(StatusCode::SERVICE_UNAVAILABLE, "Demasiados carteles de torneo abiertos: intente de nuevo.")
            .into_response();
    };
    struct Follow {
        web: Web,
        id: String,
        /// The read model and the fragment last sent.
        last: Option<(Arc<crate::read::ReadModel>, String)>,
        sent: tokio::time::Instant,
        _watching: Watching,
    }
    let follow = Follow { web, id, last: None, sent: tokio::time::Instant::now(), _watching: watching };
    let stream = futures_util::stream::unfold(follow, |mut follow| async move {
        let html = loop {
            if let Some((last_read, last_html)) = &follow.last {
                tokio::time::sleep(FRAME_INTERVAL).await;
                let beat = follow.sent.elapsed() >= BEAT;
                // Nothing journaled since: the same figures, until the beat.
                if Arc::ptr_eq(last_read, &follow.web.handle.read()) && !beat {
                    continue;
                }
                let (read, html) = fragment(&follow.web, &follow.id)?;
                let changed = html != *last_html;
                follow.last = Some((read, html.clone()));
                if changed || beat {
                    break html;
                }
            } else {
                let (read, html) = fragment(&follow.web, &follow.id)?;
                follow.last = Some((read, html.clone()));
                break html;
            }
        };
        follow.sent = tokio::time::Instant::now();
        let data = serde_json::to_string(&html).expect("a string serializes");
        Some((Ok::<_, Infallible>(Bytes::from(format!("event: torneo\ndata: {data}\n\n"))), follow))
    });
    let headers = [
        (axum::http::header::CONTENT_TYPE, "text/event-stream"),
        (axum::http::header::CACHE_CONTROL, "no-cache"),
        (axum::http::header::HeaderName::from_static("x-accel-buffering"), "no"),
    ];
    (headers, axum::body::Body::from_stream(stream)).into_response()
}

pub(super) fn routes() -> axum::Router<Web> {
    axum::Router::new().route("/torneo/{id}/cartel", get(room)).route("/torneo/{id}/eventos", get(events))
}
