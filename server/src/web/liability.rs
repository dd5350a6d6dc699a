//! The liability to players on the sala (docs/readings.md, "The liability to players"): each
//! part now, as the jornada opened and the change, each pool's share, a stacked chart of the
//! parts at each kept jornada's opening and now, and `/sala/pasivo.csv`.

use axum::extract::State;
use axum::response::Response;
use axum_extra::extract::CookieJar;
use pozo_engine::Money;

use super::auth;
use super::context::Web;
use super::tables::FLOOR_READERS;
use super::view;
use super::view::{CHART_HEIGHT, height};
use pozo_core::state::liability::Sums;

/// One part of the liability on the page: now, as the jornada opened, and the change.
pub(super) struct LiabilityRow {
    /// `pozos`, `ordenes`, `creditos`, `apuestas`, `custodia`.
    pub(super) id: &'static str,
    pub(super) name: String,
    pub(super) now: String,
    pub(super) opening: String,
    pub(super) change: String,
}

/// One pool's part: its balances, the house's seed, what is owed.
pub(super) struct PoolOwedRow {
    pub(super) id: String,
    pub(super) name: String,
    pub(super) balance: String,
    pub(super) reserve: String,
    pub(super) minimum: String,
    pub(super) owed: String,
}

/// A tournament's prizes owed (Res. 123/2013 art. 66): apart from the pools' parts.
pub(super) struct TournamentOwedRow {
    pub(super) id: String,
    pub(super) name: String,
    pub(super) assigned: String,
    pub(super) paid: String,
    pub(super) owed: String,
    pub(super) players: Vec<PrizeOwedRow>,
}

/// A finished player who has not collected his prize.
pub(super) struct PrizeOwedRow {
    pub(super) order: u32,
    pub(super) name: String,
    pub(super) position: String,
    pub(super) amount: String,
    /// PENDIENTE DE PAGO: asked for at the cashier, awaiting the Venta-Pagos office.
    pub(super) pending: bool,
}

/// The tournaments' prizes owed, each with its players not yet paid, and their sum.
fn tournaments_owed(model: &crate::read::ReadModel) -> (Vec<TournamentOwedRow>, Money) {
    let liability = model.liability().with_tournaments(model.tournaments());
    let rows = liability
        .tournaments
        .iter()
        .filter_map(|owed| {
            let tournament = model.tournament(&owed.tournament)?;
            let players = tournament
                .owed()
                .into_iter()
                .map(|(order, due, pending)| {
                    let player = tournament.players.get(&order);
                    PrizeOwedRow {
                        order,
                        name: player.map(|player| player.player_name.clone()).unwrap_or_default(),
                        position: player.and_then(|player| player.position).map_or_else(String::new, |p| format!("{p}.º")),
                        amount: view::pesos(due),
                        pending,
                    }
                })
                .collect();
            Some(TournamentOwedRow {
                id: tournament.id.clone(),
                name: tournament.structure().name().to_owned(),
                assigned: view::pesos(owed.assigned),
                paid: view::pesos(owed.paid),
                owed: view::pesos(owed.owed),
                players,
            })
        })
        .collect();
    (rows, liability.tournaments_owed())
}

/// One bar of the chart: the liability as a jornada opened, or now; its parts stacked.
pub(super) struct LiabilityBar {
    pub(super) x: u32,
    pub(super) label: String,
    pub(super) title: String,
    pub(super) segments: Vec<Segment>,
}

pub(super) struct Segment {
    pub(super) y: u32,
    pub(super) height: u32,
    pub(super) class: &'static str,
}

/// The sala's "Pasivo con los jugadores" (docs/pages.md): the parts, the total, the change since
/// the jornada opened, each pool's part and a chart of the total at each jornada's opening and now.
pub(super) struct LiabilityView {
    pub(super) entries: u64,
    pub(super) rows: Vec<LiabilityRow>,
    pub(super) total: String,
    pub(super) total_opening: String,
    pub(super) total_change: String,
    pub(super) grillos: String,
    pub(super) pools: Vec<PoolOwedRow>,
    pub(super) bars: Vec<LiabilityBar>,
    pub(super) chart_width: u32,
    pub(super) chart_height: u32,
    /// Nothing owed at any bar: the page says so instead of an empty chart.
    pub(super) empty: bool,
    /// The tournaments' prizes owed to finished players not yet paid (Res. 123/2013 art. 66), on
    /// their own lines: not in the parts, the total nor the chart.
    pub(super) tournaments: Vec<TournamentOwedRow>,
    pub(super) tournaments_owed: String,
}

/// From one bar to the next on the chart, in its units: a label ("28/11", "ahora", 11 units
/// high) is about 35 wide, so no two labels ever overlap (issue 45, point 10).
const BAR_STEP: u32 = 48;

/// One part of the liability as the page and the chart show it.
pub(super) struct Part {
    /// `data-parte` on the page.
    pub(super) id: &'static str,
    pub(super) name: &'static str,
    /// The chart's class for its segment.
    pub(super) class: &'static str,
    pub(super) amount: fn(&Sums) -> Money,
}

/// The parts of the liability, in the order the page, the chart and the CSV give them.
pub(super) const LIABILITY_PARTS: [Part; 5] = [
    Part {
        id: "pozos",
        name: "Pozos: lo acumulado sobre el mínimo, y las reservas",
        class: "pasivo-pozos",
        amount: |sums| sums.pools,
    },
    Part {
        id: "ordenes",
        name: "Órdenes de pago pendientes (Venta-Pagos)",
        class: "pasivo-ordenes",
        amount: |sums| sums.pending_orders,
    },
    Part { id: "creditos", name: "Créditos en los boxes", class: "pasivo-creditos", amount: |sums| sums.credits },
    Part { id: "apuestas", name: "Apuestas marcadas, aún no registradas", class: "pasivo-apuestas", amount: |sums| sums.stakes },
    Part { id: "custodia", name: "En custodia de la Banca", class: "pasivo-custodia", amount: |sums| sums.custody },
];

/// `22/11` for `2026-11-22`.
fn day_month(jornada: &str) -> String {
    match (jornada.get(8..10), jornada.get(5..7)) {
        (Some(day), Some(month)) => format!("{day}/{month}"),
        _ => jornada.to_owned(),
    }
}

pub(super) fn liability_view(web: &Web, jornada: &str) -> LiabilityView {
    let config = web.handle.config();
    let model = web.handle.read();
    let liability = model.liability();
    let now = liability.sums;
    let opening = model.liability_opening(jornada, &now);
    // How many lines each part has, after its name (a pool's part has none).
    let counts = [
        String::new(),
        format!(" ({})", now.orders),
        format!(" ({})", now.credits_held),
        format!(" ({})", now.stakes_pressed),
        format!(" ({})", now.custody_items),
    ];
    let dash = || "—".to_owned();
    let rows = LIABILITY_PARTS
        .iter()
        .zip(counts)
        .map(|(part, count)| {
            let amount = part.amount;
            LiabilityRow {
                id: part.id,
                name: format!("{}{count}", part.name),
                now: view::pesos(amount(&now)),
                opening: opening.map_or_else(dash, |opening| view::pesos(amount(&opening))),
                change: opening.map_or_else(dash, |opening| view::signed_pesos(amount(&now) - amount(&opening))),
            }
        })
        .collect();
    let grillos = match (now.grillos.bronze, now.grillos.silver, now.grillos.gold) {
        (0, 0, 0) => String::new(),
        (bronze, silver, gold) => format!("{bronze} de bronce, {silver} de plata, {gold} de oro"),
    };
    let pools = liability
        .pools
        .iter()
        .filter(|pool| !pool.retired)
        .map(|pool| PoolOwedRow {
            id: pool.pool.to_string(),
            name: view::pool_name(&config, &pool.pool),
            balance: view::pesos(pool.balance),
            reserve: view::pesos(pool.reserve),
            minimum: view::pesos(pool.minimum),
            owed: view::pesos(pool.owed),
        })
        .collect();
    // The chart: the total as each kept jornada opened, oldest first, then now; parts stacked.
    let columns: Vec<(String, String, Sums)> = model
        .liability_openings()
        .map(|(day, sums)| (day_month(day), format!("Apertura de la jornada {}", view::jornada_date(day)), *sums))
        .chain(std::iter::once(("ahora".to_owned(), "Ahora".to_owned(), now)))
        .collect();
    let max = columns.iter().map(|(_, _, sums)| sums.total).max().unwrap_or_default();
    let bars = columns
        .into_iter()
        .enumerate()
        .map(|(index, (label, moment, sums))| {
            let mut stacked = 0;
            let segments = LIABILITY_PARTS
                .iter()
                .map(|part| {
                    let bar = height((part.amount)(&sums), max);
                    stacked += bar;
                    Segment { y: CHART_HEIGHT.saturating_sub(stacked), height: bar, class: part.class }
                })
                .filter(|segment| segment.height > 0)
                .collect();
            LiabilityBar {
                x: 40 + index as u32 * BAR_STEP,
                label,
                title: format!("{moment}: {}", view::pesos(sums.total)),
                segments,
            }
        })
        .collect::<Vec<_>>();
    let (tournaments, tournaments_owed) = tournaments_owed(&model);
    LiabilityView {
        tournaments,
        tournaments_owed: view::pesos(tournaments_owed),
        entries: model.tip.entries,
        rows,
        total: view::pesos(now.total),
        total_opening: opening.map_or_else(dash, |opening| view::pesos(opening.total)),
        total_change: opening.map_or_else(dash, |opening| view::signed_pesos(now.total - opening.total)),
        grillos,
        pools,
        chart_width: 60 + bars.len() as u32 * BAR_STEP,
        empty: max <= Money::ZERO,
        chart_height: CHART_HEIGHT,
        bars,
    }
}

/// `/sala/pasivo.csv`: the liability now, line by line (every pool, pending order, seat with
/// credits, stake pressed, custody item, seat with grillos), then its total and its change since
/// the jornada opened. The `importe` of the lines adds up to the total's.
pub(super) async fn liability_csv(State(web): State<Web>, jar: CookieJar) -> Response {
    if let Err(response) = auth::require(&web, &jar, FLOOR_READERS, "/sala") {
        return response;
    }
    let text = pozo_engine::money::plain_text;
    let model = web.handle.read();
    let liability = model.liability();
    let jornada = pozo_core::jornada::jornada_and_hour(&web.handle.config(), web.handle.now_ms()).0;
    let line =
        |part: &str, reference: &str, pool: &str, table: &str, seat: String, count: String, amount: String, detail: String| {
            vec![part.to_owned(), reference.to_owned(), pool.to_owned(), table.to_owned(), seat, count, amount, detail]
        };
    let mut rows = Vec::new();
    for pool in &liability.pools {
        let detail = format!("saldo {}; reserva {}; mínimo {}", text(pool.balance), text(pool.reserve), text(pool.minimum));
        rows.push(line("pozo", "", &pool.pool, "", String::new(), String::new(), text(pool.owed), detail));
    }
    for order in &liability.pending_orders {
        let facts = &order.facts;
        let (pool, table, seat) = (&facts.pool, &facts.table_id, facts.seat.to_string());
        rows.push(line(
            "orden_pendiente",
            &order.order_id,
            pool,
            table,
            seat,
            "1".into(),
            text(facts.amount),
            facts.code.to_string(),
        ));
    }
    for seat in &liability.credits {
        let (table, number, count) = (&seat.table_id, seat.seat.to_string(), seat.credits.to_string());
        rows.push(line("creditos", "", "", table, number, count, text(seat.amount), String::new()));
    }
    for seat in &liability.stakes {
        let (table, number, count) = (&seat.table_id, seat.seat.to_string(), seat.credits.to_string());
        rows.push(line("apuesta_marcada", "", "", table, number, count, text(seat.amount), String::new()));
    }
    for item in &liability.custody {
        let (amount, detail) = match liability.counts_custody(item) {
            true => (item.amount, item.kind.spanish().to_owned()),
            false => {
                let order = item.payout_order_id.as_deref().unwrap_or_default();
                (Money::ZERO, format!("{}: {}, contado en la orden pendiente {order}", item.kind.spanish(), text(item.amount)))
            }
        };
        let (pool, table, seat) = (&item.pool, &item.table_id, item.seat.to_string());
        rows.push(line("custodia", &item.custody_id, pool, table, seat, "1".into(), text(amount), detail));
    }
    for seat in &liability.grillos {
        let count = (seat.bronze + seat.silver + seat.gold).to_string();
        let absent = if seat.absent { "; ausente" } else { "" };
        let detail = format!("{} bronce, {} plata, {} oro{absent}; sin importe", seat.bronze, seat.silver, seat.gold);
        rows.push(line("grillos", "", "", &seat.table_id, seat.seat.to_string(), count, String::new(), detail));
    }
    let now = liability.sums;
    rows.push(line("total", "", "", "", String::new(), String::new(), text(now.total), format!("asiento {}", model.tip.entries)));
    if let Some(opening) = model.liability_opening(&jornada, &now) {
        let detail = format!("apertura de la jornada {jornada}: {}", text(opening.total));
        rows.push(line("cambio", &jornada, "", "", String::new(), String::new(), text(now.total - opening.total), detail));
    }
    let header = ["parte", "referencia", "pozo", "mesa", "posicion", "cantidad", "importe", "detalle"];
    view::csv_response(&format!("pasivo-{jornada}.csv"), view::csv(&header, rows))
}
