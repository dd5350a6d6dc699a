//! The floor view for the jefe de sala: every table (open or closed, in a round or not,
//! its agent connected and last seen, pool play suspended), the pools, and the reports
//! of a jornada (IPA, PPPA, FP, credits, hourly figures: 4.7, 12.8, Form 4218) as
//! tables, a chart and CSV, with each pool's figures split by salon and its books tied to zero
//! (the reconciliation, with its tables' IPA and PPPA); per pool, its meters
//! and last 25 hits (the liability to players is `liability.rs`).

use std::collections::BTreeMap;

use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum_extra::extract::CookieJar;
use pozo_engine::{Money, PoolId, TableId};
use serde::Deserialize;

use super::auth;
use super::context::Web;
use super::error::{PageError, page};
use super::sessions::Session;
use super::view;
use super::view::{CHART_HEIGHT, height};
use crate::read::SalonShare;
use pozo_core::state::{TableDay, TableState};

use super::pool_page::ceiling_text;
use super::tables::{FLOOR_READERS, phase};

struct TableRow {
    id: String,
    flor: String,
    /// The game's name as its regulation writes it, not its code.
    game: String,
    pool: String,
    /// The pool's name in its rulebook.
    pool_name: String,
    open: bool,
    phase: &'static str,
    in_round: bool,
    round: u64,
    agent: bool,
    last_seen: String,
    /// Pool play is suspended at this open table: its agent is not connected (3.7.5).
    suspended: bool,
}

struct PoolRow {
    id: String,
    name: String,
    displayed: String,
    balance: String,
    /// A pool with levels: each level's (name, meter, balance, "debe salir antes de …" for a
    /// mystery level, else empty), first level first, never the house's (docs/readings.md,
    /// "Levels", "The mystery level"); empty for a pool of one level.
    levels: Vec<(String, String, String, String)>,
    pending: usize,
    tables: usize,
    tables_live: usize,
    /// Pool play is suspended at an open table of the pool: its agent is away (3.7.5). A pool
    /// whose tables are merely closed is not suspended: its sign is "En vivo" (issue 45, point 10).
    suspended: bool,
    /// The open tables of the pool whose agent is away, named: "B1, B2".
    suspended_at: String,
    /// How many of its tables are open.
    tables_open: usize,
}

/// Every table and pool of the floor, from what the writer published after the last
/// durable batch: the tables' panels and the read model (crate::read).
fn floor(web: &Web) -> (Vec<TableRow>, Vec<PoolRow>) {
    let config = std::sync::Arc::clone(&web.handle.config());
    let now = web.handle.now_ms();
    let model = web.handle.read();
    let pools: Vec<_> = model
        .pools()
        .map(|pool| {
            let levels = if pool.rules().levels.is_empty() {
                Vec::new()
            } else {
                pool.levels()
                    .into_iter()
                    .filter(|level| !level.house && !level.retired)
                    .map(|level| {
                        let name = level.name.unwrap_or_default();
                        let ceiling = ceiling_text(model.must_hit_by(&pool.rules().id, &name));
                        (name, view::pesos(level.displayed), view::pesos(level.balance), ceiling)
                    })
                    .collect()
            };
            (pool.rules().id.clone(), pool.displayed(), pool.balance(), levels)
        })
        .collect();
    let rows: Vec<TableRow> = super::tables::tables_now(web, &config)
        .into_iter()
        .map(|table| {
            let suspended = table.suspended();
            let (layout, state, seen) = (table.layout, table.state, table.seen);
            TableRow {
                game: view::game_name(layout.game).to_owned(),
                pool: layout.pool.to_string(),
                pool_name: view::pool_name(&config, &layout.pool),
                flor: layout.flor.clone(),
                open: state != TableState::Closed,
                phase: phase(state),
                in_round: state.in_round(),
                round: table.round,
                agent: seen.connected(),
                last_seen: if seen.last_seen_ms == 0 {
                    "sin conexión desde el arranque".to_owned()
                } else {
                    format!("{} (hace {})", view::clock(&config, seen.last_seen_ms), view::age(now, seen.last_seen_ms))
                },
                suspended,
                id: layout.id.to_string(),
            }
        })
        .collect();
    // The pending prizes per pool, as the writer published them for the signs: not
    // found again by reading every order on the writer's task.
    let pending: std::collections::BTreeMap<PoolId, usize> =
        web.handle.display().borrow().pools.iter().map(|pool| (pool.pool_id.clone(), pool.pending.len())).collect();
    let pool_rows = pools
        .into_iter()
        .map(|(id, displayed, balance, levels)| {
            let pending = pending.get(&id).copied().unwrap_or(0);
            let tables = rows.iter().filter(|table| table.pool == id).count();
            let tables_live = rows.iter().filter(|table| table.pool == id && table.agent).count();
            let tables_open = rows.iter().filter(|table| table.pool == id && table.open).count();
            let suspended_at: Vec<&str> =
                rows.iter().filter(|table| table.pool == id && table.suspended).map(|table| table.id.as_str()).collect();
            PoolRow {
                name: view::pool_name(&config, &id),
                displayed: view::pesos(displayed),
                balance: view::pesos(balance),
                levels,
                pending,
                tables,
                tables_live,
                suspended: !suspended_at.is_empty(),
                suspended_at: suspended_at.join(", "),
                tables_open,
                id: id.to_string(),
            }
        })
        .collect();
    (rows, pool_rows)
}

#[derive(askama::Template)]
#[template(path = "sala.html")]
struct FloorPage {
    session: Session,
    tables: Vec<TableRow>,
    pools: Vec<PoolRow>,
    jornada: String,
    /// The build serving: its version and the start of its executable's SHA-256 (docs/operations.md §8).
    build: String,
    liability: super::liability::LiabilityView,
}

#[derive(askama::Template)]
#[template(path = "sala_mesas.html")]
struct FloorFragment {
    tables: Vec<TableRow>,
    pools: Vec<PoolRow>,
}

async fn sala(State(web): State<Web>, jar: CookieJar) -> Response {
    let session = match auth::require(&web, &jar, FLOOR_READERS, "/sala") {
        Ok(session) => session,
        Err(response) => return response,
    };
    async {
        let (tables, pools) = floor(&web);
        let jornada = pozo_core::jornada::jornada_and_hour(&web.handle.config(), web.handle.now_ms()).0;
        let current = crate::build::current();
        let build = format!("{} (SHA-256 {}…)", current.version, current.sha256.get(..16).unwrap_or(&current.sha256));
        let liability = super::liability::liability_view(&web, &jornada);
        page(&FloorPage { session, tables, pools, jornada, build, liability })
    }
    .await
    .into_response()
}

async fn sala_tables(State(web): State<Web>, jar: CookieJar) -> Response {
    if let Err(response) = auth::require(&web, &jar, FLOOR_READERS, "/sala") {
        return response;
    }
    async {
        let (tables, pools) = floor(&web);
        page(&FloorFragment { tables, pools })
    }
    .await
    .into_response()
}

// ----------------------------------------------------------------------------- the jornada's report

#[derive(Deserialize, Default)]
struct ReportQuery {
    #[serde(default)]
    jornada: String,
}

struct ReportRow {
    table: String,
    /// The table's closing sheet of the jornada (`planilla`).
    sheet: String,
    ipa: String,
    pppa: String,
    fp: u32,
    bets: u64,
    presses: u64,
    credits_sold: u64,
    credits_sold_amount: String,
    credits_returned: u64,
    credits_returned_amount: String,
}

struct HourRow {
    hour: u32,
    ipa: String,
    pppa: String,
    /// Bar heights on the chart, in its units (0–[`CHART_HEIGHT`]).
    ipa_height: u32,
    pppa_height: u32,
    x: u32,
}

struct Report {
    jornada: String,
    rows: Vec<(TableId, TableDay)>,
    hours: BTreeMap<u32, (Money, Money)>,
    jornadas: Vec<String>,
    /// Per pool some table feeds, in the rulebooks' order: its figures per salon.
    salons: Vec<(PoolId, Vec<SalonLine>)>,
    /// Each pool's books over the jornada and its tables tied to them (`Reports/Reconciliation`);
    /// `None` for a jornada this journal keeps no books of.
    books: Option<Vec<(PoolId, pozo_engine::Reconciliation, pozo_core::state::books::PoolTables)>>,
}

/// A pool's books of the jornada as the report shows them (docs/readings.md, "The tables tied
/// to the pool").
struct BooksRow {
    pool_id: String,
    pool: String,
    /// A level's row of a pool with levels (docs/readings.md, "Levels"): its name ("Grand",
    /// "Major · F2", "Pagado por la casa"); empty on the pool's own row.
    level: String,
    opening: String,
    contributions: String,
    bets: u64,
    replenishments: String,
    transfers_in: String,
    adjustments: String,
    awards: String,
    hits: u64,
    returned: String,
    reclaimed: String,
    withdrawn: String,
    transfers_out: String,
    closing: String,
    difference: String,
    tables_ipa: String,
    tables_pppa: String,
    /// The pool's difference, its tables' IPA and PPPA differences all zero.
    tied: bool,
}

impl BooksRow {
    fn of(
        config: &crate::config::Config,
        pool: &PoolId,
        books: &pozo_engine::Reconciliation,
        tables: &pozo_core::state::books::PoolTables,
    ) -> BooksRow {
        let ipa: Money = tables.tables.iter().map(pozo_core::state::books::TableBooks::ipa_as_booked).sum();
        let pppa: Money = tables.tables.iter().map(pozo_core::state::books::TableBooks::pppa_as_booked).sum();
        BooksRow {
            pool_id: pool.to_string(),
            pool: view::pool_name(config, pool),
            opening: view::pesos(books.opening_balance + books.opening_reserve),
            contributions: view::pesos(books.contributions),
            bets: books.bets,
            replenishments: view::pesos(books.replenishments),
            transfers_in: view::pesos(books.transfers_in),
            adjustments: view::signed_pesos(books.adjustments_up - books.adjustments_down),
            awards: view::pesos(books.awards),
            hits: books.hits,
            returned: view::pesos(books.awards_returned),
            reclaimed: view::pesos(books.awards_reclaimed),
            withdrawn: view::pesos(books.replenishments_withdrawn),
            transfers_out: view::pesos(books.transfers_out),
            closing: view::pesos(books.closing_balance + books.closing_reserve),
            difference: view::signed_pesos(books.difference),
            tables_ipa: view::pesos(ipa),
            tables_pppa: view::pesos(pppa),
            tied: books.ties() && tables.ties(),
            level: String::new(),
        }
    }

    /// The pool's row, then one row per level of a pool with levels: the same lines over the
    /// level's own meters, tied to zero on their own (no tables' IPA or PPPA: those are the pool's).
    fn with_levels(
        config: &crate::config::Config,
        pool: &PoolId,
        books: &pozo_engine::Reconciliation,
        tables: &pozo_core::state::books::PoolTables,
    ) -> Vec<BooksRow> {
        let mut rows = vec![BooksRow::of(config, pool, books, tables)];
        for level in &books.levels {
            let row = BooksRow::of(config, pool, &level.books, &pozo_core::state::books::PoolTables::default());
            rows.push(BooksRow {
                level: level.name.clone(),
                tables_ipa: String::new(),
                tables_pppa: String::new(),
                tied: level.books.ties(),
                ..row
            });
        }
        rows
    }
}

/// A tournament's books as the report shows them (Res. 123/2013 art. 62, 63, 66; docs/readings.md,
/// "The tournament's prize pool"): from its setup to now, not by jornada.
struct TournamentBooksRow {
    id: String,
    name: String,
    /// Each item sold, its refunds after it: `IN $ 240.000,00 (devuelto $ 20.000,00)`.
    items: Vec<String>,
    sold: String,
    refunds: String,
    prizes: String,
    house: String,
    rounding: String,
    assigned: String,
    redistributed: String,
    paid: String,
    owed: String,
    /// Why the books do not tie, in Spanish; empty when they do.
    untied: String,
}

impl TournamentBooksRow {
    fn of(tournament: &pozo_core::state::tournament::Tournament) -> TournamentBooksRow {
        let books = tournament.books();
        TournamentBooksRow {
            id: tournament.id.clone(),
            name: tournament.structure().name().to_owned(),
            items: books
                .by_item
                .iter()
                .map(|item| match item.refunded.is_zero() {
                    true => format!("{} {}", item.item.code(), view::pesos(item.sold)),
                    false => {
                        format!("{} {} (devuelto {})", item.item.code(), view::pesos(item.sold), view::pesos(item.refunded))
                    }
                })
                .collect(),
            sold: view::pesos(books.sold),
            refunds: view::pesos(books.refunds),
            prizes: view::pesos(books.prizes),
            house: view::pesos(books.house),
            rounding: view::pesos(books.rounding),
            assigned: view::pesos(books.assigned),
            redistributed: view::pesos(books.redistributed),
            paid: view::pesos(books.paid),
            owed: view::pesos(books.owed),
            untied: pozo_verifier::tournaments::descuadre(&books).map(|why| view::unbroken(&why)).unwrap_or_default(),
        }
    }
}

/// One salon's share of a pool in the report: the salon's id, its name, its figures.
type SalonLine = (String, String, SalonShare);

/// A line of the split by salon: one salon's share of a pool, or the pool's total.
struct SalonRow {
    pool_id: String,
    pool: String,
    /// The salon's id; empty on the pool's total line.
    salon_id: String,
    salon: String,
    bets: u64,
    ipa: String,
    contributions: String,
    pppa: String,
}

impl SalonRow {
    fn of(config: &crate::config::Config, pool: &PoolId, salon_id: &str, salon: &str, share: &SalonShare) -> SalonRow {
        SalonRow {
            pool_id: pool.to_string(),
            pool: view::pool_name(config, pool),
            salon_id: salon_id.to_owned(),
            salon: salon.to_owned(),
            bets: share.bets,
            ipa: view::pesos(share.bets_amount),
            contributions: view::pesos(share.contributions),
            pppa: view::pesos(share.awards),
        }
    }
}

async fn report(web: &Web, query: &ReportQuery) -> Result<Report, PageError> {
    let config = std::sync::Arc::clone(&web.handle.config());
    view::check_jornada(&query.jornada)?;
    let jornada = if query.jornada.is_empty() {
        pozo_core::jornada::jornada_and_hour(&config, web.handle.now_ms()).0
    } else {
        query.jornada.clone()
    };
    let model = web.handle.read();
    let jornadas: Vec<String> = model.jornadas().map(str::to_owned).collect();
    let rows: Vec<(TableId, TableDay)> =
        config.layout.tables.iter().map(|table| (table.id.clone(), model.day(&jornada, &table.id))).collect();
    let mut hours: BTreeMap<u32, (Money, Money)> = BTreeMap::new();
    for (_, day) in &rows {
        for (hour, (ipa, pppa)) in &day.hours {
            let entry = hours.entry(*hour).or_default();
            entry.0 += *ipa;
            entry.1 += *pppa;
        }
    }
    let salons = config
        .rulebooks
        .pools()
        .map(|rules| {
            let shares = model.salon_shares(&config, &jornada, &rules.id);
            (rules.id.clone(), shares.into_iter().map(|(salon, share)| (salon.id.clone(), salon.name.clone(), share)).collect())
        })
        .filter(|(_, shares): &(PoolId, Vec<_>)| !shares.is_empty())
        .collect();
    let books = model.books_and_tables(&config, &jornada, &jornada);
    Ok(Report { jornada, rows, hours, jornadas, salons, books })
}

#[derive(askama::Template)]
#[template(path = "informe.html")]
struct ReportPage {
    session: Session,
    jornada: String,
    jornadas: Vec<String>,
    rows: Vec<ReportRow>,
    total_ipa: String,
    total_pppa: String,
    hours: Vec<HourRow>,
    chart_width: u32,
    chart_height: u32,
    /// Each pool's lines by salon, then its total line.
    salons: Vec<SalonRow>,
    /// Each pool's books of the jornada; empty when none are kept (`books_kept`).
    books: Vec<BooksRow>,
    books_kept: bool,
    books_tied: bool,
    /// Every tournament's books as they stand; empty when none was set up.
    tournaments: Vec<TournamentBooksRow>,
}

async fn report_page(State(web): State<Web>, jar: CookieJar, Query(query): Query<ReportQuery>) -> Response {
    let session = match auth::require(&web, &jar, FLOOR_READERS, "/sala/informe") {
        Ok(session) => session,
        Err(response) => return response,
    };
    async {
        let report = report(&web, &query).await?;
        let total_ipa: Money = report.rows.iter().map(|(_, day)| day.ipa).sum();
        let total_pppa: Money = report.rows.iter().map(|(_, day)| day.pppa).sum();
        let max = report.hours.values().map(|(ipa, pppa)| (*ipa).max(*pppa)).max().unwrap_or_default();
        let hours: Vec<HourRow> = report
            .hours
            .iter()
            .enumerate()
            .map(|(index, (hour, (ipa, pppa)))| HourRow {
                hour: *hour,
                ipa: view::pesos(*ipa),
                pppa: view::pesos(*pppa),
                ipa_height: height(*ipa, max),
                pppa_height: height(*pppa, max),
                x: 40 + index as u32 * 40,
            })
            .collect();
        let config = web.handle.config();
        let mut salons = Vec::new();
        for (pool, shares) in &report.salons {
            let mut total = SalonShare::default();
            for (id, name, share) in shares {
                salons.push(SalonRow::of(&config, pool, id, name, share));
                total += *share;
            }
            salons.push(SalonRow::of(&config, pool, "", "Total del pozo", &total));
        }
        let jornada = report.jornada.clone();
        let books: Vec<BooksRow> = report
            .books
            .iter()
            .flatten()
            .flat_map(|(pool, books, tables)| BooksRow::with_levels(&config, pool, books, tables))
            .collect();
        let tournaments: Vec<TournamentBooksRow> = web.handle.read().tournaments().map(TournamentBooksRow::of).collect();
        page(&ReportPage {
            session,
            tournaments,
            salons,
            books_kept: report.books.is_some(),
            books_tied: books.iter().all(|row| row.tied),
            books,
            chart_width: 60 + hours.len().max(1) as u32 * 40,
            chart_height: CHART_HEIGHT,
            hours,
            jornada: report.jornada,
            jornadas: report.jornadas,
            total_ipa: view::pesos(total_ipa),
            total_pppa: view::pesos(total_pppa),
            rows: report
                .rows
                .into_iter()
                .map(|(table, day)| ReportRow {
                    sheet: super::planilla::path(&table, &jornada),
                    table: table.to_string(),
                    ipa: view::pesos(day.ipa),
                    pppa: view::pesos(day.pppa),
                    fp: day.fp,
                    bets: day.bets,
                    presses: day.presses,
                    credits_sold: day.credits_sold,
                    credits_sold_amount: view::pesos(day.credits_sold_amount),
                    credits_returned: day.credits_returned,
                    credits_returned_amount: view::pesos(day.credits_returned_amount),
                })
                .collect(),
        })
    }
    .await
    .into_response()
}

async fn report_csv(State(web): State<Web>, jar: CookieJar, Query(query): Query<ReportQuery>) -> Response {
    if let Err(response) = auth::require(&web, &jar, FLOOR_READERS, "/sala/informe") {
        return response;
    }
    async {
        let report = report(&web, &query).await?;
        let text = pozo_engine::money::plain_text;
        let mut rows: Vec<Vec<String>> = report
            .rows
            .iter()
            .map(|(table, day)| {
                vec![
                    report.jornada.clone(),
                    table.to_string(),
                    String::new(),
                    text(day.ipa),
                    text(day.pppa),
                    day.fp.to_string(),
                    day.bets.to_string(),
                    day.presses.to_string(),
                    day.credits_sold.to_string(),
                    text(day.credits_sold_amount),
                    day.credits_returned.to_string(),
                    text(day.credits_returned_amount),
                ]
            })
            .collect();
        // Form 4218: the hourly figures, table by table.
        for (table, day) in &report.rows {
            for (hour, (ipa, pppa)) in &day.hours {
                rows.push(vec![
                    report.jornada.clone(),
                    table.to_string(),
                    hour.to_string(),
                    text(*ipa),
                    text(*pppa),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                ]);
            }
        }
        let body = view::csv(
            &[
                "jornada",
                "mesa",
                "hora",
                "ipa",
                "pppa",
                "fp",
                "apuestas",
                "pulsaciones",
                "creditos_vendidos",
                "importe_vendido",
                "creditos_devueltos",
                "importe_devuelto",
            ],
            rows,
        );
        Ok::<_, PageError>(view::csv_response(&format!("informe-{}.csv", report.jornada), body))
    }
    .await
    .into_response()
}

/// `/sala/conciliacion.csv`: each pool's books of the jornada, one row per pool: the opening,
/// every line, the closing, the difference, and its tables' IPA and PPPA as booked with their
/// differences (all zero when the books tie).
async fn books_csv(State(web): State<Web>, jar: CookieJar, Query(query): Query<ReportQuery>) -> Response {
    if let Err(response) = auth::require(&web, &jar, FLOOR_READERS, "/sala/informe") {
        return response;
    }
    async {
        let report = report(&web, &query).await?;
        let books = report.books.ok_or_else(|| {
            PageError::not_found(format!(
                "jornada: no hay libros de la jornada {}: ningún asiento suyo está en este diario, o tiene más de 62 \
                 jornadas",
                report.jornada
            ))
        })?;
        let text = pozo_engine::money::plain_text;
        // A pool with levels adds a row per level, and the file a last column, `nivel`: empty on
        // a pool's row, the level's name on its rows. Without levels the file is as it was.
        let leveled = books.iter().any(|(_, books, _)| !books.levels.is_empty());
        let line = |pool: &PoolId, books: &pozo_engine::Reconciliation, tables: Option<&pozo_core::state::books::PoolTables>| {
            let ipa: Money =
                tables.iter().flat_map(|tables| &tables.tables).map(pozo_core::state::books::TableBooks::ipa_as_booked).sum();
            let pppa: Money =
                tables.iter().flat_map(|tables| &tables.tables).map(pozo_core::state::books::TableBooks::pppa_as_booked).sum();
            let of_tables = |amount: Money| tables.map_or(String::new(), |_| text(amount));
            vec![
                report.jornada.clone(),
                pool.to_string(),
                text(books.opening_balance),
                text(books.opening_reserve),
                books.bets.to_string(),
                text(books.bets_amount),
                text(books.contributions),
                text(books.replenishments),
                text(books.transfers_in),
                text(books.adjustments_up),
                text(books.awards),
                books.hits.to_string(),
                text(books.awards_returned),
                text(books.awards_reclaimed),
                text(books.replenishments_withdrawn),
                text(books.transfers_out),
                text(books.adjustments_down),
                text(books.closing_balance),
                text(books.closing_reserve),
                text(books.difference),
                of_tables(ipa),
                of_tables(pppa),
                of_tables(tables.map_or(Money::ZERO, |tables| tables.ipa_difference)),
                of_tables(tables.map_or(Money::ZERO, |tables| tables.pppa_difference)),
            ]
        };
        let mut rows: Vec<Vec<String>> = Vec::new();
        for (pool, books, tables) in &books {
            let mut row = line(pool, books, Some(tables));
            if leveled {
                row.push(String::new());
            }
            rows.push(row);
            for level in &books.levels {
                let mut row = line(pool, &level.books, None);
                row.push(level.name.clone());
                rows.push(row);
            }
        }
        let mut header = vec![
            "jornada",
            "pozo",
            "saldo_apertura",
            "reserva_apertura",
            "apuestas",
            "ipa",
            "aportes",
            "reposiciones",
            "transferencias_recibidas",
            "ajustes_a_favor",
            "premios",
            "aciertos",
            "premios_devueltos",
            "premios_reintegrados",
            "reposiciones_retiradas",
            "transferencias_enviadas",
            "ajustes_en_contra",
            "saldo_cierre",
            "reserva_cierre",
            "diferencia",
            "ipa_mesas",
            "pppa_mesas",
            "diferencia_ipa",
            "diferencia_pppa",
        ];
        if leveled {
            header.push("nivel");
        }
        let body = view::csv(&header, rows);
        Ok::<_, PageError>(view::csv_response(&format!("conciliacion-{}.csv", report.jornada), body))
    }
    .await
    .into_response()
}

/// `/sala/informe-salones.csv`: the jornada's figures of each pool per salon (one row per pool
/// and salon; a pool's salons add up to its figures for the jornada).
async fn report_salons_csv(State(web): State<Web>, jar: CookieJar, Query(query): Query<ReportQuery>) -> Response {
    if let Err(response) = auth::require(&web, &jar, FLOOR_READERS, "/sala/informe") {
        return response;
    }
    async {
        let report = report(&web, &query).await?;
        let text = pozo_engine::money::plain_text;
        let rows = report.salons.iter().flat_map(|(pool, shares)| {
            let jornada = &report.jornada;
            shares.iter().map(move |(id, name, share)| {
                vec![
                    jornada.clone(),
                    pool.to_string(),
                    id.clone(),
                    name.clone(),
                    share.bets.to_string(),
                    text(share.bets_amount),
                    text(share.contributions),
                    text(share.awards),
                ]
            })
        });
        let body = view::csv(&["jornada", "pozo", "salon", "nombre_salon", "apuestas", "ipa", "aportes", "pppa"], rows);
        Ok::<_, PageError>(view::csv_response(&format!("informe-salones-{}.csv", report.jornada), body))
    }
    .await
    .into_response()
}

pub(super) fn routes() -> axum::Router<Web> {
    axum::Router::new()
        .route("/sala", get(sala))
        .route("/sala/mesas", get(sala_tables))
        .route("/sala/informe", get(report_page))
        .route("/sala/informe.csv", get(report_csv))
        .route("/sala/informe-salones.csv", get(report_salons_csv))
        .route("/sala/conciliacion.csv", get(books_csv))
        .route("/sala/pasivo.csv", get(super::liability::liability_csv))
        .route("/sala/pozos/{id}", get(super::pool_page::pool_page))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pozo_engine::money;

    #[test]
    fn bars_scale_exactly_and_never_overflow() {
        assert_eq!(height(money!(50), money!(100)), 100);
        assert_eq!(height(money!(100), money!(100)), CHART_HEIGHT);
        assert_eq!(height(money!(0.01), money!(100)), 0);
        assert_eq!(height(money!(1), money!(0)), 0);
        assert_eq!(height(money!(33.33), money!(100)), 66);
    }
}
