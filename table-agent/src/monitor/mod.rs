//! The table's monitor (`pozo-agent --monitor ADDR`): a touch page for the table's own screen,
//! served by the agent on the table's computer (12.3.3), in Spanish, for the dealer.
//!
//! One source of truth: the page is a view of the agent's own output lines and a keyboard for
//! its line protocol. Every touch becomes one protocol line handed to the agent on the same
//! path as the hardware socket's (`POST /linea` for the dealer's buttons, `POST /inspector`
//! for the floor inspector's, with the inspector's PIN), and the page draws only what the agent
//! printed (`/eventos`, server-sent events: every output line, the newest panel and paytable
//! first): a seat is lit on the monitor only when the agent's panel lights it, which happens
//! only after the controller acknowledged the bet (11.11.5). The hardware socket keeps working
//! beside it.
//!
//! Served on loopback for a browser on the table's own computer; on any other address only over
//! TLS (`--monitor-cert`, `--monitor-key`: `tls`), for a tablet at the table. A page on another site
//! cannot send lines: `POST /linea` asks for a header a cross-site form cannot set, and no
//! cross-origin request is answered.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use tokio::sync::{Semaphore, broadcast, mpsc};

use crate::line::{LINE_BYTES_MAX, Pin, RawLine};

mod tls;
pub use tls::MonitorTls;

/// Pages open at once on one table's monitor (the dealer's screen, a second one, a test).
const VIEWERS_MAX: usize = 8;
/// How often a silent feed says it is alive: the page shows SUSPENDIDO after 1 s of silence.
const HEARTBEAT: Duration = Duration::from_millis(300);
/// Output lines a slow page may fall behind before it skips to the newest panel.
const BACKLOG: usize = 256;
/// The header `POST /linea` must carry: a cross-site form cannot set it.
pub const HEADER: &str = "x-pozo-monitor";

/// What the dealer may send from the monitor: the dealer's own buttons (12.2.2, 12.5.2.1,
/// 12.5.3). At a roulette table the prizes are the inspector's (4.3.1).
const DEALER_WORDS: [&str; 9] =
    ["credits", "refund-credits", "press", "start", "prize", "finish", "accept", "last-round", "status"];

/// What only the floor inspector sends, with their PIN: Apertura and Cierre de Mesa (4.6, 4.7),
/// Anular (4.3.2), the prizes (4.3.1) and the gold turn (4.3.4, 4.3.5), and the anomalies: a
/// burnt round and a voided box (11.8.1), a seat closed or opened (AJ 2.5.6.1), the absent
/// player and his grillos (3.7), custody (11.8.3, 15.14.5.2).
const INSPECTOR_WORDS: [&str; 16] = [
    "open",
    "close",
    "void",
    "prize",
    "gold-turn",
    "carry",
    "refund",
    "close-seat",
    "open-seat",
    "absent",
    "returns",
    "played",
    "annul-series",
    "custody-bet",
    "custody-prize",
    "release-custody",
];

/// The agent's output as the monitor follows it: every line, and the newest panel and
/// paytable for a page that opens now.
#[derive(Clone)]
pub struct Hub {
    lines: broadcast::Sender<Arc<str>>,
    last: Arc<Mutex<Last>>,
}

#[derive(Default)]
struct Last {
    panel: Option<Arc<str>>,
    prizes: Option<Arc<str>>,
}

impl Default for Hub {
    fn default() -> Hub {
        Hub::new()
    }
}

impl Hub {
    pub fn new() -> Hub {
        Hub { lines: broadcast::channel(BACKLOG).0, last: Arc::default() }
    }

    /// One output line of the agent, as printed.
    pub fn publish(&self, line: &str) {
        let line: Arc<str> = Arc::from(line);
        {
            let mut last = self.last.lock().expect("the monitor's last lines");
            if line.starts_with(r#"{"type":"panel""#) {
                last.panel = Some(Arc::clone(&line));
            } else if line.starts_with(r#"{"type":"prizes""#) {
                last.prizes = Some(Arc::clone(&line));
            }
        }
        // No page open: nobody to tell.
        let _ = self.lines.send(line);
    }

    fn newest(&self) -> Vec<Arc<str>> {
        let last = self.last.lock().expect("the monitor's last lines");
        last.prizes.iter().chain(last.panel.iter()).cloned().collect()
    }

    /// The table's game as the newest paytable names it; `None` before one arrived.
    fn game(&self) -> Option<String> {
        let last = self.last.lock().expect("the monitor's last lines");
        let prizes: serde_json::Value = serde_json::from_str(last.prizes.as_deref()?).ok()?;
        prizes.get("game").and_then(serde_json::Value::as_str).map(str::to_owned)
    }
}

#[derive(Clone)]
struct Monitor {
    hub: Hub,
    lines: mpsc::Sender<RawLine>,
    viewers: Arc<Semaphore>,
}

/// The monitor's address must be this machine's own, or the monitor served over TLS to screens
/// holding a client certificate of the casino's CA: its buttons sell credits and bet, so no
/// other machine may reach them unknown. Refused otherwise, saying why.
pub fn check_address(address: SocketAddr, tls: Option<&MonitorTls>) -> anyhow::Result<()> {
    anyhow::ensure!(
        address.ip().is_loopback() || tls.is_some_and(MonitorTls::clients_checked),
        "--monitor {address}: off this machine's loopback (127.0.0.1 or [::1]) the monitor is served only over TLS to \
         screens with a client certificate: give --monitor-cert, --monitor-key and --monitor-client-ca (docs/agent.md §11)"
    );
    Ok(())
}

/// Serves the monitor on `listener` until the agent ends: lines typed on it go to `lines`.
pub async fn serve(listener: tokio::net::TcpListener, hub: Hub, lines: mpsc::Sender<RawLine>) -> std::io::Result<()> {
    axum::serve(listener, router(Monitor::new(hub, lines))).await
}

/// [`serve`] over TLS: each connection served once its handshake is done.
pub async fn serve_tls(
    listener: tokio::net::TcpListener,
    tls: MonitorTls,
    hub: Hub,
    lines: mpsc::Sender<RawLine>,
) -> std::io::Result<()> {
    axum::serve(tls::TlsListener::new(listener, tls)?, router(Monitor::new(hub, lines))).await
}

impl Monitor {
    fn new(hub: Hub, lines: mpsc::Sender<RawLine>) -> Monitor {
        Monitor { hub, lines, viewers: Arc::new(Semaphore::new(VIEWERS_MAX)) }
    }
}

fn router(monitor: Monitor) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/monitor.js", get(script))
        .route("/monitor.css", get(style))
        .route("/eventos", get(events))
        .route("/linea", post(line))
        .route("/inspector", post(inspector))
        .route("/pin", post(pin))
        .layer(DefaultBodyLimit::max(1024))
        .with_state(monitor)
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'self'; script-src 'self'; style-src 'self'; frame-ancestors 'none'"),
    );
    response
}

async fn page() -> Response {
    asset("text/html; charset=utf-8", include_str!("monitor.html"))
}

async fn script() -> Response {
    asset("text/javascript; charset=utf-8", include_str!("monitor.js"))
}

async fn style() -> Response {
    asset("text/css; charset=utf-8", include_str!("monitor.css"))
}

/// The agent's output as server-sent events: the paytable and the panel as they are now,
/// then every line as the agent prints it, and a `latido` when nothing else was sent.
async fn events(State(monitor): State<Monitor>) -> Response {
    let Ok(permit) = Arc::clone(&monitor.viewers).try_acquire_owned() else {
        return (StatusCode::SERVICE_UNAVAILABLE, "El monitor ya tiene abiertas todas sus pantallas.").into_response();
    };
    let receiver = monitor.hub.lines.subscribe();
    let first = monitor.hub.newest();
    let start = (permit, receiver, first, monitor.hub.clone());
    let stream = futures_util::stream::unfold(start, |(permit, mut receiver, mut first, hub)| async move {
        if !first.is_empty() {
            let line = first.remove(0);
            return Some((Ok::<Bytes, Infallible>(data(&line)), (permit, receiver, first, hub)));
        }
        let bytes = match tokio::time::timeout(HEARTBEAT, receiver.recv()).await {
            Ok(Ok(line)) => data(&line),
            // Fell behind: skip to the newest panel.
            Ok(Err(broadcast::error::RecvError::Lagged(_))) => {
                first = hub.newest();
                Bytes::from_static(b"event: latido\ndata: {}\n\n")
            }
            Ok(Err(broadcast::error::RecvError::Closed)) => return None,
            Err(_) => Bytes::from_static(b"event: latido\ndata: {}\n\n"),
        };
        Some((Ok(bytes), (permit, receiver, first, hub)))
    });
    let mut response = Body::from_stream(stream).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

fn data(line: &str) -> Bytes {
    Bytes::from(format!("data: {line}\n\n"))
}

#[derive(Deserialize)]
struct Typed {
    linea: String,
}

/// One protocol line from the page, handed to the agent as the hardware's are; its answer
/// arrives on `/eventos` (an `ack` or a `refused` naming it).
async fn line(State(monitor): State<Monitor>, headers: HeaderMap, axum::Json(typed): axum::Json<Typed>) -> Response {
    let text = match typed_line(&headers, &typed.linea, &DEALER_WORDS) {
        Ok(text) => text,
        Err(refused) => return refused.into_response(),
    };
    if text.starts_with("prize") {
        // The dealer's prize only where the table is known not to be a roulette (4.3.1).
        match monitor.hub.game().as_deref() {
            Some("ruleta-americana") => {
                return (StatusCode::FORBIDDEN, "En la ruleta los premios los ingresa el inspector (4.3.1).").into_response();
            }
            None => {
                let refusal = "La mesa todavía no recibió su tabla de premios del controlador: ingrese el premio en la botonera.";
                return (StatusCode::FORBIDDEN, refusal).into_response();
            }
            Some(_) => {}
        }
    }
    hand_on(&monitor, RawLine::Text(text.to_owned())).await
}

#[derive(Deserialize)]
struct Inspected {
    linea: String,
    inspector: String,
    pin: String,
}

/// One of the floor inspector's lines, with who they are and their PIN: the agent names them
/// in the signed command and sends the PIN beside it; the controller checks it (4.6, 4.7).
async fn inspector(State(monitor): State<Monitor>, headers: HeaderMap, axum::Json(typed): axum::Json<Inspected>) -> Response {
    let text = match typed_line(&headers, &typed.linea, &INSPECTOR_WORDS) {
        Ok(text) => text,
        Err(refused) => return refused.into_response(),
    };
    let (inspector, pin) = match inspector_and_pin(&typed.inspector, typed.pin) {
        Ok(both) => both,
        Err(refused) => return refused.into_response(),
    };
    hand_on(&monitor, RawLine::Inspector { text: text.to_owned(), inspector, pin }).await
}

#[derive(Deserialize)]
struct Signing {
    inspector: String,
    pin: String,
}

/// The floor inspector's sign-in at the monitor: their PIN handed to the agent to be checked by
/// the controller (`Table/CheckInspector`, read-only) before any of their buttons opens (4.6,
/// 4.7); the answer arrives on `/eventos` as a `pin` line.
async fn pin(State(monitor): State<Monitor>, headers: HeaderMap, axum::Json(typed): axum::Json<Signing>) -> Response {
    if headers.get(HEADER).is_none_or(|value| value != "1") {
        return (StatusCode::FORBIDDEN, "Solo la página del monitor envía órdenes.").into_response();
    }
    let (inspector, pin) = match inspector_and_pin(&typed.inspector, typed.pin) {
        Ok(both) => both,
        Err(refused) => return refused.into_response(),
    };
    hand_on(&monitor, RawLine::CheckPin { inspector, pin }).await
}

/// An inspector's id and a PIN of the length the controller's keys take; the refusal otherwise.
fn inspector_and_pin(id: &str, pin: String) -> Result<(String, Pin), (StatusCode, String)> {
    let id = id.trim();
    if id.is_empty() || id.len() > 64 {
        return Err((StatusCode::BAD_REQUEST, "inspector: elija quién es el inspector".to_owned()));
    }
    if !PIN_DIGITS.contains(&pin.len()) || !pin.bytes().all(|byte| byte.is_ascii_digit()) {
        let (fewest, most) = (PIN_DIGITS.start(), PIN_DIGITS.end());
        return Err((StatusCode::BAD_REQUEST, format!("pin: el PIN tiene de {fewest} a {most} dígitos")));
    }
    Ok((id.to_owned(), Pin(pin)))
}

/// The PIN's length, as the controller's keys take it.
const PIN_DIGITS: std::ops::RangeInclusive<usize> = 4..=8;

/// A line typed on the monitor's page (the header a cross-site form cannot set), of one of
/// `words`; the refusal to answer otherwise.
fn typed_line<'a>(headers: &HeaderMap, line: &'a str, words: &[&str]) -> Result<&'a str, (StatusCode, String)> {
    if headers.get(HEADER).is_none_or(|value| value != "1") {
        return Err((StatusCode::FORBIDDEN, "Solo la página del monitor envía órdenes.".to_owned()));
    }
    let text = line.trim();
    if text.is_empty() || text.len() > LINE_BYTES_MAX {
        return Err((StatusCode::BAD_REQUEST, format!("linea: de 1 a {LINE_BYTES_MAX} caracteres")));
    }
    let word = text.split_whitespace().next().unwrap_or_default();
    if !words.contains(&word) {
        let refusal = if DEALER_WORDS.contains(&word) {
            format!("«{word}» es un botón del croupier, no del inspector")
        } else if INSPECTOR_WORDS.contains(&word) {
            format!("«{word}» no es un botón del croupier: lo hace el inspector con su PIN")
        } else {
            format!("«{word}» no es una orden del monitor")
        };
        return Err((StatusCode::FORBIDDEN, refusal));
    }
    Ok(text)
}

/// Hands a line to the agent, on the hardware's path; its answer arrives on `/eventos`.
async fn hand_on(monitor: &Monitor, line: RawLine) -> Response {
    match monitor.lines.send(line).await {
        Ok(()) => StatusCode::ACCEPTED.into_response(),
        Err(_) => (StatusCode::SERVICE_UNAVAILABLE, "El agente se está deteniendo.").into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_monitor_is_served_on_loopback_only() {
        assert!(check_address("127.0.0.1:8080".parse().expect("an address"), None).is_ok());
        assert!(check_address("[::1]:8080".parse().expect("an address"), None).is_ok());
        let refused = check_address("0.0.0.0:8080".parse().expect("an address"), None).expect_err("every address");
        assert!(refused.to_string().contains("--monitor-client-ca"), "{refused}");
    }

    #[test]
    fn a_page_opened_now_gets_the_newest_paytable_and_panel_first() {
        let hub = Hub::new();
        hub.publish(r#"{"type":"panel","table":"B1","panel":1}"#);
        hub.publish(r#"{"type":"ack","input":"press 1"}"#);
        hub.publish(r#"{"type":"prizes","table":"B1"}"#);
        hub.publish(r#"{"type":"panel","table":"B1","panel":2}"#);
        let newest: Vec<String> = hub.newest().iter().map(|line| line.to_string()).collect();
        assert_eq!(newest, [r#"{"type":"prizes","table":"B1"}"#, r#"{"type":"panel","table":"B1","panel":2}"#]);
    }
}
