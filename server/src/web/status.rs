//! How the controller is, for machines: `/status` (JSON, read by `pozo-server status`) and
//! `/metrics` (Prometheus).

use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::context::Web;
use super::tables::tables_now;
use super::view;

/// The controller's metrics (crate::read::metrics; docs/operations.md §13): OpenMetrics when the
/// scraper's `Accept` asks for it, the classic Prometheus text format otherwise. Open like the
/// signs: the listener is loopback only, and nothing here is secret.
pub(super) async fn metrics(axum::extract::State(web): axum::extract::State<Web>, headers: axum::http::HeaderMap) -> Response {
    use crate::read::metrics::{Floor, FloorTable, PoolBooks, classic, wants_openmetrics};
    let config = web.handle.config();
    let model = web.handle.read();
    let now_ms = web.handle.now_ms();
    let tables = tables_now(&web, &config)
        .into_iter()
        .map(|now| FloorTable {
            table: now.layout.id.to_string(),
            pool: now.layout.pool.to_string(),
            open: now.open(),
            agent_connected: now.seen.connected(),
        })
        .collect();
    let jornada = pozo_core::jornada::jornada_and_hour(&config, now_ms).0;
    let books = model.books_and_tables_unlogged(&config, &jornada, &jornada).map(|books| {
        books
            .into_iter()
            .map(|(pool, books, tables)| PoolBooks {
                pool: pool.to_string(),
                difference: books.difference,
                tied: books.ties() && tables.ties(),
            })
            .collect()
    });
    let floor = Floor {
        serving: web.handle.is_serving(),
        agents_connected: web.presence.tables().values().filter(|seen| seen.connected()).count(),
        tables,
        now_ms,
        books,
    };
    let text = web.handle.metrics().render(&model, &floor, web.handle.role());
    let accept = headers.get_all(header::ACCEPT).iter().filter_map(|value| value.to_str().ok()).collect::<Vec<_>>().join(",");
    if wants_openmetrics(&accept) {
        ([(header::CONTENT_TYPE, "application/openmetrics-text; version=1.0.0; charset=utf-8")], text).into_response()
    } else {
        ([(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], classic(&text)).into_response()
    }
}

/// How the controller is, as JSON (crate::read::status; `pozo-server status` reads it). Open like
/// `/metrics`: loopback only, and nothing in it is secret.
pub(super) async fn status(axum::extract::State(web): axum::extract::State<Web>) -> Response {
    axum::Json(status_of(&web)).into_response()
}

fn status_of(web: &Web) -> crate::read::status::Status {
    use crate::read::status::{
        BooksStatus, BuildStatus, ChangeStatus, JournalStatus, LevelStatus, PendingPayout, PoolOff, PoolStatus, Status,
        TableStatus,
    };
    let config = web.handle.config();
    let model = web.handle.read();
    let tables: Vec<TableStatus> = tables_now(web, &config)
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
                name: view::pool_name(&config, &pool.rules().id),
                balance: pool.balance(),
                displayed: pool.displayed(),
                // Never the house's level: it holds nothing and is on no sign (docs/readings.md, "Levels").
                levels: if pool.rules().levels.is_empty() {
                    Vec::new()
                } else {
                    pool.levels()
                        .into_iter()
                        .filter(|level| !level.house && !level.retired)
                        .map(|level| LevelStatus {
                            name: level.name.unwrap_or_default(),
                            balance: level.balance,
                            displayed: level.displayed,
                        })
                        .collect()
                },
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
        build: BuildStatus { version: crate::build::current().version.clone(), sha256: crate::build::current().sha256.clone() },
        changes: {
            let now_ms = web.handle.now_ms();
            let mut waiting: Vec<ChangeStatus> = model
                .proposals()
                .filter(|proposal| {
                    proposal.status == pozo_core::state::ProposalStatus::Scheduled
                        || (proposal.status == pozo_core::state::ProposalStatus::Pending && !proposal.expired(now_ms))
                })
                .map(|proposal| ChangeStatus {
                    proposal_id: proposal.proposal_id.clone(),
                    status: proposal.status_spanish(now_ms).to_owned(),
                    summary: proposal.summary(),
                    effect: proposal.effect_spanish(),
                })
                .collect();
            waiting.reverse();
            waiting
        },
        files: config.names_in_force().into_iter().map(str::to_owned).collect(),
        books: {
            let jornada = pozo_core::jornada::jornada_and_hour(&config, web.handle.now_ms()).0;
            let books = model.reconciliation(&jornada, &jornada);
            // A pool that does not tie, then each of its levels that does not ("mercado-blackjack,
            // nivel Mini"): a level's difference can hide behind a pool's zero.
            let off: Vec<PoolOff> = books
                .iter()
                .flatten()
                .filter(|(_, books)| !books.ties())
                .flat_map(|(pool, books)| {
                    let levels = books.levels.iter().filter(|level| !level.books.ties()).map(move |level| PoolOff {
                        pool: format!("{pool}, nivel {}", level.name),
                        difference: level.books.difference,
                    });
                    std::iter::once(PoolOff { pool: pool.to_string(), difference: books.difference }).chain(levels)
                })
                .collect();
            BooksStatus { tied: books.is_some() && off.is_empty(), jornada, off }
        },
        liability: liability_status(&model, pozo_core::jornada::jornada_and_hour(&config, web.handle.now_ms()).0),
    }
}

/// The liability's foot (`Reports/Liability`) for the status, its change since `jornada` opened.
fn liability_status(model: &crate::read::ReadModel, jornada: String) -> crate::read::status::LiabilityStatus {
    use crate::read::status::{LiabilityChange, LiabilityParts, LiabilityStatus};
    let now = model.liability().sums;
    let change = model.liability_opening(&jornada, &now).map(|opening| {
        let change = now.since(&opening);
        LiabilityChange {
            total: change.total,
            pools: change.pools,
            pending_orders: change.pending_orders,
            credits: change.credits,
            stakes: change.stakes,
            custody: change.custody,
        }
    });
    let grillos = u64::from(now.grillos.bronze) + u64::from(now.grillos.silver) + u64::from(now.grillos.gold);
    LiabilityStatus {
        jornada,
        total: now.total,
        parts: LiabilityParts {
            pools: now.pools,
            pending_orders: now.pending_orders,
            credits: now.credits,
            stakes: now.stakes,
            custody: now.custody,
            grillos,
        },
        change,
    }
}
