//! The cartel luminoso: `/cartel` for a TV in kiosk mode, every pool of the floor or
//! those chosen by `?pozo=`, `?flor=`, `?mesa=` or `?salon=` (repeatable); `/cartel/eventos`,
//! its event stream ([`super::feed`]).

use axum::extract::{ConnectInfo, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum_extra::extract::CookieJar;
use pozo_engine::PoolId;

use super::context::Web;
use super::error::{PageError, page};
use super::listen::Peer;
use super::{auth, feed, view};
use crate::config::{Config, Role};

/// Who may watch the signs from outside the open networks.
const SIGN_READERS: &[Role] = &[Role::Office, Role::Supervisor, Role::Inspector];

/// What a sign shows, from its query: its pools, and the names of the salons it was asked for.
#[derive(Debug, PartialEq, Eq)]
struct Chosen {
    /// Every pool, or those of the named pools, flores, tables and salons, in the rulebooks' order.
    pools: Vec<PoolId>,
    /// The names of the salons named (`?salon=`), in the order asked.
    salons: Vec<String>,
}

/// The pools a sign shows, from its query: every pool, or those of the named pools,
/// flores, tables and salons (a salon's: the pools its tables feed, a wide-area pool in
/// every salon that feeds it), in the rulebooks' order.
fn chosen_pools(config: &Config, query: Option<&str>) -> Result<Chosen, PageError> {
    let mut wanted = std::collections::BTreeSet::new();
    let mut salons: Vec<String> = Vec::new();
    let mut any = false;
    for (name, value) in form_urlencoded_pairs(query.unwrap_or("")) {
        any = true;
        match name.as_str() {
            "salon" => {
                let Some(salon) = config.salon(&value) else {
                    return Err(PageError::not_found(format!(
                        "salon: no existe el salón `{}` (salones: {})",
                        view::bounded(&value),
                        config.salon_ids()
                    )));
                };
                wanted.extend(salon.pools.iter().cloned());
                if !salons.contains(&salon.name) {
                    salons.push(salon.name.clone());
                }
            }
            "pozo" => {
                if config.rulebooks.pool(&value).is_none() {
                    return Err(PageError::not_found(format!("pozo: no existe el pozo `{}`", view::bounded(&value))));
                }
                wanted.insert(PoolId::from(value));
            }
            "flor" | "mesa" => {
                let tables: Vec<_> = config
                    .layout
                    .tables
                    .iter()
                    .filter(|table| if name == "flor" { table.flor == value } else { table.id == value })
                    .collect();
                if tables.is_empty() {
                    let what = if name == "flor" { "la flor" } else { "la mesa" };
                    return Err(PageError::not_found(format!("{name}: no existe {what} `{}`", view::bounded(&value))));
                }
                wanted.extend(tables.iter().map(|table| table.pool.clone()));
            }
            other => {
                return Err(PageError::bad_request(format!(
                    "{}: el cartel se elige con pozo, flor, mesa o salon (por ejemplo /cartel?flor=F1)",
                    view::bounded(other)
                )));
            }
        }
    }
    let pools = config.rulebooks.pools().map(|pool| pool.id.clone()).filter(|id| !any || wanted.contains(id)).collect();
    Ok(Chosen { pools, salons })
}

fn form_urlencoded_pairs(query: &str) -> Vec<(String, String)> {
    serde_urlencoded::from_str::<Vec<(String, String)>>(query).unwrap_or_default()
}

/// Loopback and `serve --display-open-to` networks, or a signed-in office or supervisor.
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
                "El cartel se muestra en las redes habilitadas (serve --display-open-to); {} no lo está. Ingrese como Venta-Pagos o jefe de sala.",
                peer.0.ip()
            ),
        )),
    }
}

#[derive(askama::Template)]
#[template(path = "cartel.html")]
struct CartelPage {
    casino: String,
    /// The names of the salons the sign was asked for (`?salon=`), joined: empty when none.
    salon: String,
    pools: Vec<PoolSign>,
    pool_ids: String,
    silence_ms: u64,
    /// The other controllers' pages, comma-separated: where the sign goes when this one stops answering.
    peers: String,
}

/// One pool on the sign as the page is first sent: what the feed then keeps up to date.
struct PoolSign {
    id: String,
    name: String,
    /// AJ 2.5.4.1 asks the display for the pool's amount "y su incremento" (docs/readings.md,
    /// "The increment on the display").
    increment: String,
    /// A pool with levels: each level's meter, (name, amount), first level first, never the
    /// house's (docs/readings.md, "Levels"); empty for a pool of one level, whose amount the
    /// feed fills in.
    /// With each, under its meter: "Debe salir antes de $ 60.000,00" for a mystery level (its
    /// open draw's ceiling, never its trigger), empty for the others.
    levels: Vec<(String, String, String)>,
    /// Its last hits as the feed lists them (static/cartel.js): (status, prize's name, line).
    hits: Vec<(&'static str, String, String)>,
}

/// `$ 1.234,56` with a non-breaking space after the sign: an amount never breaks on a sign.
fn sign_pesos(amount: pozo_engine::Money) -> String {
    view::pesos(amount)
}

/// How a hit's payment stands, in the words the sign prints under it (issue 45, point 9), as
/// static/cartel.js writes them: paid at the table, paid after Venta-Pagos confirmed it (12.4.1),
/// still waiting for Venta-Pagos, or refused there.
fn payment_words(status: crate::read::signs::PrizeStatus) -> &'static str {
    use crate::read::signs::PrizeStatus;
    match status {
        PrizeStatus::Paid => "pagado",
        PrizeStatus::Confirmed => "pagado, confirmado por Venta-Pagos",
        PrizeStatus::Pending => "PENDIENTE DE PAGO",
        PrizeStatus::Rejected => "rechazado por Venta-Pagos",
    }
}

/// A hit on the sign, as static/cartel.js writes it, every word on screen (a kiosk TV shows no
/// tooltip): its time, what was won (the prize's name; before it, the level in a pool with
/// levels: COMAR 36.05.03.24 F(3)(c), the sign names the level and the table where it was won),
/// the table, the seat, the amount, and how its payment stands.
fn hit_line(config: &Config, pool: &str, prize: &crate::read::signs::PrizeView) -> (&'static str, String, String) {
    let hit = &prize.hit;
    let name = view::prize_name(config, pool, &hit.code);
    // A drawn prize (a mystery level's hit, its hot seat) is named by the draw: "Pozo
    // misterioso", "Asiento caliente" (docs/readings.md, "The mystery level").
    let level =
        if prize.house || prize.level.is_empty() || config.rulebooks.pool(pool).is_some_and(|rules| rules.is_drawn(&hit.code)) {
            String::new()
        } else {
            format!("{} · ", prize.level)
        };
    let line = format!(
        "{} · {level}{name} · Mesa {} · Pos. {} · {} · {}",
        view::clock(config, hit.time_ms),
        hit.table_id,
        hit.seat,
        sign_pesos(hit.amount),
        payment_words(prize.status)
    );
    (prize.status.spanish(), name, line)
}

/// "Incremento: 65 % de cada apuesta": the share of each bet the pool grows by (3.2.1:
/// "se incrementará en un 65% de cada jugada registrada"; AJ 2.5.4.1); in a pool with levels,
/// the levels' shares added and each level's ("Incremento: 18 % de cada apuesta (Grand 8 %, …)").
fn increment_text(config: &Config, pool: &str) -> String {
    let percent =
        |rate: rust_decimal::Decimal| (rate * rust_decimal::Decimal::ONE_HUNDRED).normalize().to_string().replace('.', ",");
    config
        .rulebooks
        .pool(pool)
        .map(|rules| {
            let whole = format!("Incremento: {} % de cada apuesta", percent(crate::read::signs::increment_rate(rules)));
            let levels: Vec<String> = rules
                .levels
                .iter()
                .filter(|level| !level.house)
                .map(|level| format!("{} {} %", level.name, percent(level.share)))
                .collect();
            if levels.is_empty() { whole } else { format!("{whole} ({})", levels.join(", ")) }
        })
        .unwrap_or_default()
}

async fn cartel(
    State(web): State<Web>,
    ConnectInfo(peer): ConnectInfo<Peer>,
    jar: CookieJar,
    RawQuery(query): RawQuery,
) -> Result<Response, PageError> {
    may_watch(&web, &peer, &jar)?;
    let config = web.handle.config();
    let Chosen { pools, salons } = chosen_pools(&config, query.as_deref())?;
    // The meters and hits as the writer last published them for the signs; the feed keeps them.
    let display = web.handle.display().borrow().clone();
    let sign = |id: &PoolId| {
        let shown = display.pools.iter().find(|pool| pool.pool_id == *id);
        PoolSign {
            id: id.to_string(),
            name: view::pool_name(&config, id),
            increment: increment_text(&config, id),
            levels: shown
                .map(|pool| {
                    pool.levels
                        .iter()
                        .map(|level| {
                            let ceiling = view::must_hit_by(level);
                            (level.name.clone(), sign_pesos(level.displayed), ceiling)
                        })
                        .collect()
                })
                .unwrap_or_default(),
            hits: shown.map(|pool| pool.hits.iter().map(|hit| hit_line(&config, id, hit)).collect()).unwrap_or_default(),
        }
    };
    page(&CartelPage {
        casino: config.layout.casino.clone(),
        salon: salons.join(" · "),
        pool_ids: pools.join(","),
        pools: pools.iter().map(sign).collect(),
        silence_ms: feed::SILENCE_MS,
        peers: web.peers.join(","),
    })
}

async fn events(State(web): State<Web>, ConnectInfo(peer): ConnectInfo<Peer>, jar: CookieJar) -> Result<Response, PageError> {
    may_watch(&web, &peer, &jar)?;
    // The events are bytes written once per frame (feed.rs); a reverse proxy in front
    // (docs/pages.md) must pass each on at once, not buffer it.
    // Counted in `pozo_displays_watching` for as long as the sign keeps the stream open.
    let watch = web.handle.metrics().display_opened();
    let body = axum::body::Body::from_stream(futures_util::StreamExt::map(feed::events(web.frames.clone()), move |event| {
        let _open = &watch;
        event
    }));
    let headers = [
        (axum::http::header::CONTENT_TYPE, "text/event-stream"),
        (axum::http::header::CACHE_CONTROL, "no-cache"),
        (axum::http::header::HeaderName::from_static("x-accel-buffering"), "no"),
    ];
    Ok((headers, body).into_response())
}

/// What a sign on a peer's page asks before it comes here (docs/pages.md, "A sign follows the
/// controllers"): `204` when this controller would show it, with the same query, to that
/// screen; else the refusal `/cartel` would give. A peer's page may read the answer (CORS):
/// only the peers (`serve --pages-peer`) are allowed.
async fn alive(
    State(web): State<Web>,
    ConnectInfo(peer): ConnectInfo<Peer>,
    jar: CookieJar,
    headers: axum::http::HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let answer = may_watch(&web, &peer, &jar).and_then(|()| chosen_pools(&web.handle.config(), query.as_deref()));
    let mut response = match answer {
        Ok(_) => StatusCode::NO_CONTENT.into_response(),
        Err(refused) => refused.into_response(),
    };
    let origin = headers.get(axum::http::header::ORIGIN).and_then(|origin| origin.to_str().ok());
    if let Some(origin) = origin.filter(|origin| web.peers.iter().any(|peer| peer == origin)) {
        let value = axum::http::HeaderValue::from_str(origin).expect("a peer origin is visible ASCII");
        response.headers_mut().insert(axum::http::header::ACCESS_CONTROL_ALLOW_ORIGIN, value);
        response.headers_mut().insert(axum::http::header::VARY, axum::http::HeaderValue::from_static("origin"));
    }
    response
}

pub(super) fn routes() -> axum::Router<Web> {
    axum::Router::new().route("/cartel", get(cartel)).route("/cartel/eventos", get(events)).route("/cartel/vivo", get(alive))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sign_shows_the_pools_of_what_it_names() {
        let config = Config::embedded();
        let every: Vec<PoolId> = config.rulebooks.pools().map(|pool| pool.id.clone()).collect();
        let pools = |query: Option<&str>| chosen_pools(&config, query).map(|chosen| chosen.pools);
        assert_eq!(pools(None).expect("all"), every);
        let table = &config.layout.tables[0];
        assert_eq!(pools(Some(&format!("mesa={}", table.id))).expect("one table"), vec![table.pool.clone()]);
        let flor: Vec<PoolId> = {
            let pools: std::collections::BTreeSet<_> =
                config.layout.tables.iter().filter(|other| other.flor == table.flor).map(|other| other.pool.clone()).collect();
            every.iter().filter(|id| pools.contains(*id)).cloned().collect()
        };
        assert_eq!(pools(Some(&format!("flor={}", table.flor))).expect("a flor"), flor);
        // No salon declared: the one implicit salon, named after the casino, has every pool.
        let implicit = chosen_pools(&config, Some("salon=principal")).expect("the implicit salon");
        assert_eq!(implicit, Chosen { pools: every.clone(), salons: vec!["Casino de ejemplo".to_owned()] });
        let unknown = chosen_pools(&config, Some("salon=norte")).expect_err("unknown salon");
        assert_eq!(unknown.status, StatusCode::NOT_FOUND);
        assert!(unknown.message.contains("salon: no existe el salón `norte` (salones: principal)"), "{}", unknown.message);
        let unknown = chosen_pools(&config, Some("pozo=nada")).expect_err("unknown pool");
        assert_eq!(unknown.status, StatusCode::NOT_FOUND);
        assert!(unknown.message.contains("pozo: no existe el pozo `nada`"), "{}", unknown.message);
        assert_eq!(chosen_pools(&config, Some("color=rojo")).expect_err("unknown key").status, StatusCode::BAD_REQUEST);
    }
}
