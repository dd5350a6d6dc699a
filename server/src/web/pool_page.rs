//! A pool's page of the sala (`/sala/pozos/{id}`): its figures, its levels (a mystery level's
//! ceiling, never its trigger: docs/readings.md, "The mystery level") and its last hits. Split
//! from `sala.rs`, which keeps the floor, the report and its CSVs.

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum_extra::extract::CookieJar;

use super::auth;
use super::context::Web;
use super::error::{PageError, page};
use super::sessions::Session;
use super::tables::FLOOR_READERS;
use super::view;

struct HitRow {
    moment: String,
    /// The level it was paid from: empty in a pool of one level.
    level: String,
    table: String,
    seat: u32,
    prize: String,
    amount: String,
    journal_sequence: u64,
}

#[derive(askama::Template)]
#[template(path = "pozo.html")]
struct PoolPage {
    session: Session,
    id: String,
    name: String,
    lines: Vec<(&'static str, String)>,
    /// A pool with levels: each level's meters, the house's included (what the house paid);
    /// empty for a pool of one level.
    levels: Vec<LevelRow>,
    /// It has a mystery level: the page says what one is.
    mystery: bool,
    hits: Vec<HitRow>,
}

/// "debe salir antes de $ 60.000,00": a mystery level's ceiling (docs/readings.md, "The mystery
/// level"), its open draw's; empty for any other level. Never its trigger.
pub(super) fn ceiling_text(ceiling: Option<pozo_engine::Money>) -> String {
    ceiling.map(|ceiling| format!("debe salir antes de {}", view::pesos(ceiling))).unwrap_or_default()
}

/// One level of a pool on its page (docs/readings.md, "Levels"): its amounts and net meters.
struct LevelRow {
    name: String,
    /// A mystery level: "debe salir antes de …" ([`ceiling_text`]); empty otherwise.
    ceiling: String,
    /// A mystery level's hot seat: "asiento caliente $ 10.000,00 por acierto"; empty otherwise.
    hot_seat: String,
    house: bool,
    displayed: String,
    balance: String,
    reserve: String,
    reset: String,
    contributions: String,
    replenishments: String,
    awards: String,
    hits: u64,
}

pub(super) async fn pool_page(State(web): State<Web>, jar: CookieJar, Path(id): Path<String>) -> Response {
    let session = match auth::require(&web, &jar, FLOOR_READERS, &format!("/sala/pozos/{id}")) {
        Ok(session) => session,
        Err(response) => return response,
    };
    async {
        let config = std::sync::Arc::clone(&web.handle.config());
        if config.rulebooks.pool(&id).is_none() {
            return Err(PageError::not_found(format!("pozo: no existe el pozo `{}`", view::bounded(&id))));
        }
        let model = web.handle.read();
        let pool =
            model.pool(&id).ok_or_else(|| PageError::not_found(format!("pozo: no existe el pozo `{}`", view::bounded(&id))))?;
        let (meters, balance, reserve, displayed) = (pool.meters(), pool.balance(), pool.reserve(), pool.displayed());
        let hits: Vec<_> = model.hits(&id).cloned().collect();
        let pesos = view::pesos;
        let lines = vec![
            ("Apuestas (cantidad)", meters.net_bets().to_string()),
            ("Apuestas (importe)", pesos(meters.net_bets_amount())),
            ("Aportes al pozo", pesos(meters.net_contributions())),
            ("Reposiciones", pesos(meters.replenishments)),
            ("Reposiciones devueltas por rechazos", pesos(meters.replenishments_withdrawn)),
            ("Premios", pesos(meters.awards)),
            ("Premios devueltos por rechazos", pesos(meters.awards_returned)),
            ("Premios reintegrados por series anuladas (3.7.3)", pesos(meters.awards_reclaimed)),
            ("Aciertos", meters.hits.to_string()),
            ("Rechazos de Venta-Pagos", meters.rejections.to_string()),
            ("Saldo del pozo", pesos(balance)),
            ("Pozo de reserva", pesos(reserve)),
            ("Cartel (pago máximo)", pesos(displayed)),
            ("En custodia de la Banca (11.8.3, 15.14.5.2)", pesos(model.custody_held_in(&id))),
        ];
        let levels = if pool.rules().levels.is_empty() {
            Vec::new()
        } else {
            pool.levels()
                .into_iter()
                .zip(pool.level_indexes())
                .map(|(level, index)| LevelRow {
                    ceiling: if level.house {
                        String::new()
                    } else {
                        ceiling_text(model.must_hit_by(&id, level.name.as_deref().unwrap_or_default()))
                    },
                    hot_seat: pool
                        .rules()
                        .levels
                        .get(index)
                        .and_then(|rules| rules.hot_seat.as_ref())
                        .and_then(|code| pool.rules().prize(code))
                        .map(|prize| {
                            let amount = match prize.value {
                                pozo_engine::rulebook::PrizeValue::Fixed { amount } => pesos(amount),
                                _ => String::new(),
                            };
                            format!("{} {amount} por acierto", prize.name.to_lowercase())
                        })
                        .unwrap_or_default(),
                    name: level.name.unwrap_or_default(),
                    house: level.house,
                    displayed: pesos(level.displayed),
                    balance: pesos(level.balance),
                    reserve: pesos(level.reserve),
                    reset: pesos(level.reset),
                    contributions: pesos(level.meters.net_contributions()),
                    replenishments: pesos(level.meters.net_replenishments()),
                    awards: pesos(level.meters.net_awards()),
                    hits: level.meters.hits,
                })
                .collect()
        };
        let hits = hits
            .iter()
            .map(|hit| HitRow {
                moment: view::moment(&config, hit.time_ms),
                level: crate::read::signs::paid_from(pool.rules(), &hit.code).0,
                table: hit.table_id.to_string(),
                seat: hit.seat,
                prize: view::prize_name(&config, &id, &hit.code),
                amount: pesos(hit.amount),
                journal_sequence: hit.journal_sequence,
            })
            .collect();
        let mystery = levels.iter().any(|level| !level.ceiling.is_empty());
        page(&PoolPage { session, name: view::pool_name(&config, &id), id, lines, levels, mystery, hits })
    }
    .await
    .into_response()
}
