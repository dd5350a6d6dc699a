//! The inspector's flor (`/sala/flor/{flor}`): the four tables of a flor on one screen, for the
//! inspector who stands between them (4.6, 4.7, 12.4.1) — each table's state and round, its
//! agent's link, its seats as its panels show them, the prizes entered, the instant card, the
//! gold turn, its pool's amount (each level's meter in a pool with levels) and whether its pool
//! play is suspended, and the payout orders of its prizes still waiting for Venta-Pagos.
//!
//! Served by the controller, not by an agent: only the controller knows all four tables, their
//! agents' links (an agent that lost its link cannot say so to anyone) and the orders; and the
//! inspector's login (role `inspector`) is already the controller's. Each table's own monitor is
//! on that table's computer, for its dealer (docs/agent.md §11); the flor shows the same panel
//! the controller sends that monitor. Each table links its closing sheet of the jornada
//! (`planilla`), which the floor inspector fills the forms of the Cierre de Mesa from (4.7.6).
//!
//! Live, as the cartel is (issue 45, point 7): `/sala/flor/{flor}/eventos` is a server-sent
//! event stream of the tables' fragment (`flor_mesas.html`), sent again whenever one of the
//! flor's tables publishes a new panel (at most every [`FRAME_INTERVAL`]) and every [`BEAT`]
//! (its agents' presence, "visto hace …"); static/flor.js swaps it in, and says "sin conexión"
//! when the stream errs or is silent (docs/pages.md, "The flor").

use std::convert::Infallible;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum_extra::extract::CookieJar;
use pozo_core::state::{GoldTurnView, Light, OrderStatus};

use super::auth;
use super::context::Web;
use super::error::{PageError, page};
use super::sessions::Session;
use super::tables::{FLOR_READERS, phase};
use super::view;

struct SeatCell {
    seat: u32,
    /// `on`, `blue` or `off`, as the table's panel.
    light: &'static str,
    light_text: &'static str,
    credits: u32,
}

struct FlorTable {
    id: String,
    game: String,
    pool: String,
    displayed: String,
    /// A pool with levels: each level's meter as the table's panel is sent it, (name, amount
    /// and, for a mystery level, "· debe salir antes de …"), never the house's (docs/readings.md,
    /// "Levels", "The mystery level"); empty for a pool of one level.
    levels: Vec<(String, String)>,
    phase: &'static str,
    round: u64,
    agent: bool,
    /// Where its agent serves the table's monitor, while connected: the tap into it.
    monitor: Option<String>,
    last_seen: String,
    suspended: bool,
    seats: Vec<SeatCell>,
    entered: Vec<String>,
    card: String,
    gold_turn: &'static str,
    orders: Vec<String>,
}

#[derive(askama::Template)]
#[template(path = "flor.html")]
struct FlorPage {
    session: Session,
    flor: String,
    /// The other flores of the layout.
    flores: Vec<String>,
    tables: Vec<FlorTable>,
    /// The jornada now: each table's closing sheet of it is linked (`planilla`).
    jornada: String,
    /// How long static/flor.js waits for an event before it says the page is not live.
    silence_ms: u64,
}

/// The tables of the flor, as the page holds them and its event stream sends them again.
#[derive(askama::Template)]
#[template(path = "flor_mesas.html")]
struct FlorFragment {
    tables: Vec<FlorTable>,
    jornada: String,
}

/// At most one fragment per this interval: the tables' panels change on every bet.
const FRAME_INTERVAL: Duration = Duration::from_millis(100);
/// The fragment is sent again after this long without a new panel: the agents' presence and
/// "visto hace …" move without one, and the page knows it is live.
const BEAT: Duration = Duration::from_millis(1000);
/// What static/flor.js waits without an event before it says "sin conexión".
const SILENCE_MS: u64 = 3000;

pub(super) fn routes() -> axum::Router<Web> {
    axum::Router::new()
        .route("/sala/flor/{flor}", axum::routing::get(flor_page))
        .route("/sala/flor/{flor}/eventos", axum::routing::get(flor_events))
}

/// The flor's name checked against the layout; the other flores, to walk to.
fn flores_but(config: &crate::config::Config, flor: &str) -> Result<Vec<String>, PageError> {
    let mut flores: Vec<String> = config.layout.tables.iter().map(|table| table.flor.clone()).collect();
    flores.sort();
    flores.dedup();
    if !flores.iter().any(|other| other == flor) {
        return Err(PageError::not_found(format!("No existe la flor `{}`.", view::bounded(flor))));
    }
    Ok(flores.into_iter().filter(|other| other != flor).collect())
}

/// The flor `flor`'s tables as they stand; 404 for a flor the layout does not have.
async fn flor_page(State(web): State<Web>, jar: CookieJar, Path(flor): Path<String>) -> Response {
    let session = match auth::require(&web, &jar, FLOR_READERS, &format!("/sala/flor/{}", view::bounded(&flor))) {
        Ok(session) => session,
        Err(response) => return response,
    };
    let config = web.handle.config();
    let flores = match flores_but(&config, &flor) {
        Ok(flores) => flores,
        Err(error) => return error.into_response(),
    };
    let tables = flor_tables(&web, &flor);
    let jornada = pozo_core::jornada::jornada_and_hour(&config, web.handle.now_ms()).0;
    page(&FlorPage { session, flor, flores, tables, jornada, silence_ms: SILENCE_MS }).into_response()
}

/// The flor's tables as an event stream: the fragment at once, then whenever a table of the
/// flor publishes a panel (at most every [`FRAME_INTERVAL`]), and every [`BEAT`]; it ends when
/// the session does (the page then finds the login again).
async fn flor_events(State(web): State<Web>, jar: CookieJar, Path(flor): Path<String>) -> Response {
    if let Err(response) = auth::require(&web, &jar, FLOR_READERS, &format!("/sala/flor/{}", view::bounded(&flor))) {
        return response;
    }
    let config = web.handle.config();
    if let Err(error) = flores_but(&config, &flor) {
        return error.into_response();
    }
    let cookie = jar.get(auth::SESSION_COOKIE).map(|cookie| cookie.value().to_owned()).unwrap_or_default();
    let panels: Vec<_> =
        config.layout.tables.iter().filter(|table| table.flor == flor).filter_map(|table| web.handle.table(&table.id)).collect();
    struct Follow {
        web: Web,
        flor: String,
        cookie: String,
        panels: Vec<tokio::sync::watch::Receiver<crate::read::signs::TablePush>>,
        first: bool,
    }
    let follow = Follow { web, flor, cookie, panels, first: true };
    let stream = futures_util::stream::unfold(follow, |mut follow| async move {
        if !follow.first {
            // A new panel, or the beat; then no more than one fragment per interval.
            if follow.panels.is_empty() {
                tokio::time::sleep(BEAT).await;
            } else {
                let changed = futures_util::future::select_all(follow.panels.iter_mut().map(|panel| Box::pin(panel.changed())));
                let _ = tokio::time::timeout(BEAT, changed).await;
            }
            tokio::time::sleep(FRAME_INTERVAL).await;
        }
        follow.first = false;
        follow.web.sessions.find(&follow.cookie)?;
        for panel in &mut follow.panels {
            panel.borrow_and_update();
        }
        let jornada = pozo_core::jornada::jornada_and_hour(&follow.web.handle.config(), follow.web.handle.now_ms()).0;
        let html = askama::Template::render(&FlorFragment { tables: flor_tables(&follow.web, &follow.flor), jornada }).ok()?;
        let data = serde_json::to_string(&html).expect("a string serializes");
        Some((Ok::<_, Infallible>(Bytes::from(format!("event: mesas\ndata: {data}\n\n"))), follow))
    });
    let headers = [
        (axum::http::header::CONTENT_TYPE, "text/event-stream"),
        (axum::http::header::CACHE_CONTROL, "no-cache"),
        (axum::http::header::HeaderName::from_static("x-accel-buffering"), "no"),
    ];
    (headers, axum::body::Body::from_stream(stream)).into_response()
}

/// Each table of the flor `flor` as it stands.
fn flor_tables(web: &Web, flor: &str) -> Vec<FlorTable> {
    let config = web.handle.config();
    let now = web.handle.now_ms();
    let read = web.handle.read();
    super::tables::tables_now(web, &config)
        .into_iter()
        .filter(|table| table.layout.flor == flor)
        .filter_map(|table| {
            let panel = web.handle.table(&table.layout.id)?;
            let view = panel.borrow().view.clone();
            let pool = table.layout.pool.to_string();
            let orders = read
                .orders()
                .filter(|order| order.status == OrderStatus::Pending && order.facts.table_id == table.layout.id)
                .map(|order| {
                    format!(
                        "Orden {}: box {}, {}, {} — PENDIENTE DE PAGO",
                        order.order_id,
                        order.facts.seat,
                        view::prize_name(&config, &pool, &order.facts.code),
                        view::pesos(order.facts.amount)
                    )
                })
                .collect();
            Some(FlorTable {
                id: table.layout.id.to_string(),
                game: view::game_name(table.layout.game).to_owned(),
                displayed: view::pesos(view.displayed),
                levels: view
                    .levels
                    .iter()
                    .map(|level| {
                        let amount = view::pesos(level.displayed);
                        let ceiling = view::must_hit_by(level).to_lowercase();
                        (level.name.clone(), if ceiling.is_empty() { amount } else { format!("{amount} ({ceiling})") })
                    })
                    .collect(),
                phase: phase(table.state),
                round: table.round,
                agent: table.seen.connected(),
                monitor: table.seen.monitor.as_deref().filter(|_| table.seen.connected()).map(str::to_owned),
                last_seen: if table.seen.last_seen_ms == 0 {
                    "sin conexión desde el arranque".to_owned()
                } else {
                    format!("visto hace {}", view::age(now, table.seen.last_seen_ms))
                },
                suspended: table.suspended(),
                seats: view
                    .seats
                    .iter()
                    .map(|seat| {
                        let (light, light_text) = match seat.light {
                            // The monitor's words (docs/agent.md §11), for one vocabulary.
                            Light::On => ("on", "con apuesta"),
                            Light::Blue => ("blue", "puede apostar"),
                            Light::Off => ("off", "sin apuesta"),
                        };
                        SeatCell { seat: seat.seat, light, light_text, credits: seat.credits }
                    })
                    .collect(),
                entered: view
                    .pending_prizes
                    .iter()
                    .map(|entry| format!("box {}: {}", entry.seat, view::prize_name(&config, &pool, &entry.code)))
                    .collect(),
                card: view.instant_card.as_ref().map(|card| format!("{} de {}", card.rank, card.suit)).unwrap_or_default(),
                gold_turn: match view.gold_turn {
                    GoldTurnView::None => "",
                    GoldTurnView::Waiting => "espera el turno del Grillo de Oro",
                    GoldTurnView::Granted => "Se juega Grillo de Oro",
                },
                orders,
                pool: view::pool_name(&config, &pool),
            })
        })
        .collect()
}
