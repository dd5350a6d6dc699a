//! The reports service: the jefe de sala's reports and journal pages.

use pozo_proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::auth::{REPORT_READERS, authorize_read};
use super::error::ApiError;
use super::wire::{ToWire, amount, payout_order};
use crate::net::bounded_text;
use crate::writer::Handle;
use pozo_core::state::Custody;
use pozo_core::state::liability::TournamentOwed;
use pozo_core::state::tournament::Tournament;

pub(crate) struct ReportsService {
    pub(crate) handle: Handle,
}

#[tonic::async_trait]
impl pb::reports_server::Reports for ReportsService {
    async fn table(&self, request: Request<pb::TableReportRequest>) -> Result<Response<pb::TableReport>, Status> {
        authorize_read(&self.handle, &request, REPORT_READERS)?;
        let request = request.into_inner();
        // A table of the layout, or one a change retired: its reports stay (docs/operations.md §8).
        let model = self.handle.read();
        let Some(table) = model.table(&request.table_id) else {
            return Err(ApiError::not_found(format!(
                "table_id: no table `{}` in the layout, nor retired from it",
                bounded_text(&request.table_id)
            ))
            .into());
        };
        let jornada = if request.jornada.is_empty() {
            pozo_core::jornada::jornada_and_hour(&self.handle.config(), self.handle.now_ms()).0
        } else {
            request.jornada.clone()
        };
        let day = model.day(&jornada, &request.table_id);
        let salon_id = model.config.salon_of(table).to_owned();
        let report = pb::TableReport {
            table_id: request.table_id.clone(),
            jornada,
            ipa: amount(day.ipa),
            pppa: amount(day.pppa),
            fp: day.fp,
            bets: day.bets,
            presses: day.presses,
            credits_sold: day.credits_sold,
            credits_returned: day.credits_returned,
            credits_sold_amount: amount(day.credits_sold_amount),
            credits_returned_amount: amount(day.credits_returned_amount),
            hours: day
                .hours
                .iter()
                .map(|(hour, (ipa, pppa))| pb::HourRow { hour: *hour, ipa: amount(*ipa), pppa: amount(*pppa) })
                .collect(),
            salon_id,
            custody_in: amount(day.custody_in),
            custody_released: amount(day.custody_released),
            custody_held: model.custody_held().filter(|item| item.table_id == request.table_id).map(Custody::to_wire).collect(),
            pppa_reclaimed: amount(day.pppa_reclaimed),
            series: model.series_of(&request.table_id).map(ToWire::to_wire).collect(),
        };
        Ok(Response::new(report))
    }

    async fn reconciliation(
        &self,
        request: Request<pb::ReconciliationRequest>,
    ) -> Result<Response<pb::ReconciliationReport>, Status> {
        authorize_read(&self.handle, &request, REPORT_READERS)?;
        let pb::ReconciliationRequest { jornada, through } = request.into_inner();
        for (field, date) in [("jornada", &jornada), ("through", &through)] {
            if !date.is_empty() && jiff::civil::Date::strptime("%Y-%m-%d", date).is_err() {
                return Err(ApiError::invalid(format!("{field}: `{}` is not a date YYYY-MM-DD", bounded_text(date))).into());
            }
        }
        let config = self.handle.config();
        let jornada =
            if jornada.is_empty() { pozo_core::jornada::jornada_and_hour(&config, self.handle.now_ms()).0 } else { jornada };
        let through = if through.is_empty() { jornada.clone() } else { through };
        if through < jornada {
            return Err(ApiError::invalid(format!("through: {through} is before the period's first jornada, {jornada}")).into());
        }
        let books = self.handle.read().books_and_tables(&config, &jornada, &through).ok_or_else(|| {
            ApiError::not_found(format!(
                "jornada: no books kept for {jornada}: none of its entries is in this journal, or it is over 62 jornadas old"
            ))
        })?;
        let name = |pool: &pozo_engine::PoolId| config.rulebooks.pool(pool).map_or("", |rules| rules.name.as_str()).to_owned();
        let pools: Vec<pb::PoolBooks> =
            books.iter().map(|(pool, books, tables)| pool_books(pool, &name(pool), books, tables)).collect();
        // The tournaments' books as they stand (Res. 123/2013 art. 62, 63, 66): from each one's setup.
        let tournaments: Vec<pb::TournamentBooks> = self.handle.read().tournaments().map(tournament_books).collect();
        let tied = books.iter().all(|(_, books, tables)| books.ties() && tables.ties())
            && tournaments.iter().all(|tournament| tournament.tied);
        Ok(Response::new(pb::ReconciliationReport { jornada, through, pools, tied, tournaments }))
    }

    async fn liability(&self, request: Request<pb::LiabilityRequest>) -> Result<Response<pb::LiabilityReport>, Status> {
        authorize_read(&self.handle, &request, REPORT_READERS)?;
        let pb::LiabilityRequest { jornada } = request.into_inner();
        if !jornada.is_empty() && jiff::civil::Date::strptime("%Y-%m-%d", &jornada).is_err() {
            return Err(ApiError::invalid(format!("jornada: `{}` is not a date YYYY-MM-DD", bounded_text(&jornada))).into());
        }
        let config = self.handle.config();
        let today = pozo_core::jornada::jornada_and_hour(&config, self.handle.now_ms()).0;
        let jornada = if jornada.is_empty() { today.clone() } else { jornada };
        if jornada > today {
            return Err(ApiError::invalid(format!("jornada: {jornada} has not begun (the current one is {today})")).into());
        }
        let model = self.handle.read();
        let liability = model.liability().with_tournaments(model.tournaments());
        let now = liability.sums;
        let opening = model.liability_opening(&jornada, &now).ok_or_else(|| {
            ApiError::not_found(format!(
                "jornada: no liability kept as {jornada} opened: it is before this journal (or the release that began \
                 keeping it), or over 62 jornadas old"
            ))
        })?;
        let report = pb::LiabilityReport {
            journal_entries: model.tip.entries,
            pools: liability
                .pools
                .iter()
                .map(|pool| pb::PoolLiability {
                    pool_id: pool.pool.to_string(),
                    pool_name: config.rulebooks.pool(&pool.pool).map(|rules| rules.name.clone()).unwrap_or_default(),
                    balance: amount(pool.balance),
                    reserve: amount(pool.reserve),
                    minimum: amount(pool.minimum),
                    seed: amount(pool.seed),
                    owed: amount(pool.owed),
                    retired: pool.retired,
                })
                .collect(),
            pending_orders: liability.pending_orders.iter().map(|order| payout_order(&config.rulebooks, order)).collect(),
            credits: liability.credits.iter().map(ToWire::to_wire).collect(),
            stakes: liability.stakes.iter().map(ToWire::to_wire).collect(),
            grillos: liability.grillos.iter().map(ToWire::to_wire).collect(),
            custody: liability
                .custody
                .iter()
                .map(|item| pb::CustodyLiability { item: Some(item.to_wire()), counted: liability.counts_custody(item) })
                .collect(),
            now: Some(now.to_wire()),
            opening: Some(opening.to_wire()),
            change: Some(now.since(&opening).to_wire()),
            tournaments: liability
                .tournaments
                .iter()
                .filter_map(|owed| model.tournament(&owed.tournament).map(|tournament| tournament_liability(tournament, owed)))
                .collect(),
            tournaments_owed: amount(liability.tournaments_owed()),
            jornada,
        };
        Ok(Response::new(report))
    }

    async fn pool(&self, request: Request<pb::PoolReportRequest>) -> Result<Response<pb::PoolReport>, Status> {
        authorize_read(&self.handle, &request, REPORT_READERS)?;
        let pb::PoolReportRequest { pool_id, jornada } = request.into_inner();
        let config = self.handle.config();
        let model = self.handle.read();
        let pool = model.pool(&pool_id).ok_or_else(|| ApiError::not_found(format!("pool_id: no pool `{pool_id}`")))?;
        if !jornada.is_empty() && jiff::civil::Date::strptime("%Y-%m-%d", &jornada).is_err() {
            return Err(ApiError::invalid(format!("jornada: `{}` is not a date YYYY-MM-DD", bounded_text(&jornada))).into());
        }
        let jornada =
            if jornada.is_empty() { pozo_core::jornada::jornada_and_hour(&config, self.handle.now_ms()).0 } else { jornada };
        // The split by salon (docs/operations.md §17): every table is in one salon, so the
        // salons add up exactly to the pool's figures for the jornada.
        let shares = model.salon_shares(&config, &jornada, &pool_id);
        let mut total = crate::read::SalonShare::default();
        for (_, share) in &shares {
            total += *share;
        }
        let salon_share = |salon_id: &str, name: &str, share: &crate::read::SalonShare| pb::SalonShare {
            salon_id: salon_id.to_owned(),
            name: name.to_owned(),
            bets: share.bets,
            bets_amount: amount(share.bets_amount),
            contributions: amount(share.contributions),
            awards: amount(share.awards),
        };
        let m = pool.meters();
        let report = pb::PoolReport {
            pool_id: pool_id.clone(),
            bets: m.net_bets(),
            bets_amount: amount(m.net_bets_amount()),
            contributions: amount(m.net_contributions()),
            replenishments: amount(m.replenishments),
            awards: amount(m.awards),
            awards_returned: amount(m.awards_returned),
            balance: amount(pool.balance()),
            reserve: amount(pool.reserve()),
            displayed: amount(pool.displayed()),
            commission: amount(m.net_commission()),
            hits: m.hits,
            replenishments_withdrawn: amount(m.replenishments_withdrawn),
            reserve_transfers: amount(m.reserve_transfers),
            reserve_transfers_returned: amount(m.reserve_transfers_returned),
            rejections: m.rejections,
            last_hits: model
                .hits(&pool_id)
                .map(|hit| pb::Hit { level: crate::read::signs::paid_from(pool.rules(), &hit.code).0, ..hit.to_wire() })
                .collect(),
            salons: shares.iter().map(|(salon, share)| salon_share(&salon.id, &salon.name, share)).collect(),
            jornada_total: Some(salon_share("", "", &total)),
            jornada,
            awards_reclaimed: amount(m.awards_reclaimed),
            reclaims: m.reclaims,
            custody_held: amount(model.custody_held_in(&pool_id)),
            transfers_in: amount(m.transfers_in),
            transfers_out: amount(m.transfers_out),
            transfers_out_of_reserve: amount(m.transfers_out_of_reserve),
            adjustments_up: amount(m.adjustments_up),
            adjustments_down: amount(m.adjustments_down),
            adjustments: m.adjustments,
            retired: pool.is_retired(),
            levels: {
                let mut levels = report_levels(pool);
                super::wire::mark_mystery(&model, &pool_id, &mut levels);
                levels
            },
        };
        Ok(Response::new(report))
    }

    async fn journal(&self, request: Request<pb::JournalStatusRequest>) -> Result<Response<pb::JournalStatus>, Status> {
        authorize_read(&self.handle, &request, REPORT_READERS)?;
        let tip = self.handle.read().tip;
        let status = pb::JournalStatus { entries: tip.entries, tip_hash: hex::encode(tip.hash) };
        Ok(Response::new(status))
    }

    async fn entries(&self, request: Request<pb::JournalEntriesRequest>) -> Result<Response<pb::JournalEntries>, Status> {
        authorize_read(&self.handle, &request, REPORT_READERS)?;
        let request = request.into_inner();
        if request.limit > ENTRIES_PAGE_MAX {
            return Err(ApiError::invalid(format!("limit: at most {ENTRIES_PAGE_MAX} entries a page")).into());
        }
        let limit = if request.limit == 0 { ENTRIES_PAGE_MAX } else { request.limit } as usize;
        // Only what is durable: the read model is swapped after each durable batch.
        let durable = self.handle.durable_entries();
        let journal = self.handle.journal();
        let after = request.after;
        let entries = crate::blocking::spawn(move || {
            let mut page = Vec::new();
            let mut bytes = 0;
            for entry in journal.read_after(after).take(limit) {
                let entry = entry.map_err(|error| ApiError::internal(error.to_string()))?;
                if entry.record.sequence > durable || (bytes >= ENTRIES_PAGE_BYTES && !page.is_empty()) {
                    break;
                }
                // The stored bytes themselves: SHA-256(previous ‖ these) is the entry's hash.
                let record_json =
                    String::from_utf8(entry.json).map_err(|_| ApiError::internal("a journal record is not UTF-8"))?;
                bytes += record_json.len();
                page.push(pb::JournalEntry {
                    sequence: entry.record.sequence,
                    time_ms: entry.record.time_ms,
                    hash: hex::encode(entry.hash),
                    previous_hash: hex::encode(entry.previous),
                    record_json,
                });
            }
            Ok::<_, Status>(page)
        })
        .await
        .map_err(|error| ApiError::internal(error.to_string()))??;
        Ok(Response::new(pb::JournalEntries { entries, durable_entries: durable }))
    }
}

/// A pool's levels as Reports/Pool shows them (docs/api.md, "Levels"): every level, the house's
/// included (an auditor needs what the house paid), each with its net meters and its books tied
/// to zero: every level conserves on its own (server/engine/src/pool.rs), its opening reset
/// booked as the house's first replenishment. A level whose books do not tie is a bug, logged
/// as an error (docs/rules.md, "Money and conservation"). None for a pool of one level.
fn report_levels(pool: &pozo_engine::Pool) -> Vec<pb::Level> {
    if pool.rules().levels.is_empty() {
        return Vec::new();
    }
    pool.levels()
        .into_iter()
        .map(|level| {
            let m = &level.meters;
            let lines = m.net_contributions() + m.net_replenishments() + m.transfers_in + m.adjustments_up
                - m.net_awards()
                - m.transfers_out
                - m.adjustments_down;
            let difference = level.balance + level.reserve - lines;
            let name = level.name.unwrap_or_default();
            if !difference.is_zero() {
                tracing::error!(pool = %pool.rules().id, level = %name, %difference, "a level's books do not tie to zero");
            }
            pb::Level {
                balance: amount(level.balance),
                reserve: amount(level.reserve),
                displayed: amount(level.displayed),
                reset: amount(level.reset),
                house: level.house,
                contributions: amount(m.net_contributions()),
                awards: amount(m.net_awards()),
                replenishments: amount(m.net_replenishments()),
                hits: m.hits,
                transfers_in: amount(m.transfers_in),
                transfers_out: amount(m.transfers_out),
                adjustments_up: amount(m.adjustments_up),
                adjustments_down: amount(m.adjustments_down),
                difference: amount(difference),
                name,
                // Marked by `mark_mystery`, which knows the open draw's ceiling.
                must_hit_by: None,
                mystery: false,
            }
        })
        .collect()
}

/// A tournament's books on the wire (Res. 123/2013 art. 62, 63, 66; docs/readings.md, "The
/// tournament's prize pool"): sold per item, refunds, prizes, house, rounding, assigned,
/// redistributed, paid, owed, and whether they tie — why not, in Spanish, when not. Books that
/// do not tie are a bug, logged as an error.
pub(crate) fn tournament_books(tournament: &Tournament) -> pb::TournamentBooks {
    let books = tournament.books();
    let untied = pozo_verifier::tournaments::descuadre(&books);
    if let Some(why) = &untied {
        tracing::error!(tournament = %tournament.id, %why, "a tournament's books do not tie");
    }
    pb::TournamentBooks {
        tournament_id: tournament.id.clone(),
        name: tournament.structure().name().to_owned(),
        items: books
            .by_item
            .iter()
            .map(|item| pb::TournamentItemBooks {
                item: item.item.code().to_owned(),
                sold: amount(item.sold),
                refunded: amount(item.refunded),
            })
            .collect(),
        sold: amount(books.sold),
        refunds: amount(books.refunds),
        prizes: amount(books.prizes),
        house: amount(books.house),
        rounding: amount(books.rounding),
        assigned: amount(books.assigned),
        redistributed: amount(books.redistributed),
        paid: amount(books.paid),
        owed: amount(books.owed),
        finished: books.finished,
        tied: untied.is_none(),
        untied: untied.unwrap_or_default(),
    }
}

/// A tournament's prizes owed on the wire (Res. 123/2013 art. 66): every finished player not yet
/// paid, PENDIENTE DE PAGO when asked for and awaiting the Venta-Pagos office.
fn tournament_liability(tournament: &Tournament, owed: &TournamentOwed) -> pb::TournamentLiability {
    pb::TournamentLiability {
        tournament_id: tournament.id.clone(),
        name: tournament.structure().name().to_owned(),
        assigned: amount(owed.assigned),
        paid: amount(owed.paid),
        owed: amount(owed.owed),
        players: tournament
            .owed()
            .into_iter()
            .map(|(order, due, pending)| {
                let player = tournament.players.get(&order);
                pb::TournamentPrizeOwed {
                    order,
                    player_name: player.map(|player| player.player_name.clone()).unwrap_or_default(),
                    position: player.and_then(|player| player.position).unwrap_or_default(),
                    amount: amount(due),
                    pending,
                }
            })
            .collect(),
    }
}

/// The most journal entries one `Reports.Entries` page holds.
const ENTRIES_PAGE_MAX: u32 = 1000;

/// A page stops growing past this many bytes of records (the genesis entry alone is tens of KB).
pub(super) const ENTRIES_PAGE_BYTES: usize = 1024 * 1024;

/// One pool's books on the wire.
fn pool_books(
    pool_id: &str,
    name: &str,
    books: &pozo_engine::Reconciliation,
    tables: &pozo_core::state::books::PoolTables,
) -> pb::PoolBooks {
    let table_books = |table: &pozo_core::state::books::TableBooks| pb::TableBooks {
        table_id: table.table_id.to_string(),
        bets: table.bets,
        ipa: amount(table.ipa),
        pppa: amount(table.pppa),
        ipa_amended_later: amount(table.ipa_amended_later),
        pppa_amended_later: amount(table.pppa_amended_later),
        ipa_amending_earlier: amount(table.ipa_amending_earlier),
        pppa_amending_earlier: amount(table.pppa_amending_earlier),
    };
    pb::PoolBooks {
        tables: tables.tables.iter().map(table_books).collect(),
        ipa_difference: amount(tables.ipa_difference),
        pppa_difference: amount(tables.pppa_difference),
        pool_id: pool_id.to_owned(),
        pool_name: name.to_owned(),
        opening_balance: amount(books.opening_balance),
        opening_reserve: amount(books.opening_reserve),
        bets: books.bets,
        bets_amount: amount(books.bets_amount),
        contributions: amount(books.contributions),
        reversals: books.reversals,
        replenishments: amount(books.replenishments),
        transfers_in: amount(books.transfers_in),
        adjustments_up: amount(books.adjustments_up),
        adjustments: books.adjustments,
        awards: amount(books.awards),
        hits: books.hits,
        awards_returned: amount(books.awards_returned),
        rejections: books.rejections,
        awards_reclaimed: amount(books.awards_reclaimed),
        reclaims: books.reclaims,
        replenishments_withdrawn: amount(books.replenishments_withdrawn),
        transfers_out: amount(books.transfers_out),
        adjustments_down: amount(books.adjustments_down),
        closing_balance: amount(books.closing_balance),
        closing_reserve: amount(books.closing_reserve),
        difference: amount(books.difference),
        levels: books.levels.iter().map(level_books).collect(),
    }
}

/// One level's books on the wire: the pool's lines over the level's own meters (reconcile.rs).
fn level_books(level: &pozo_engine::LevelBooks) -> pb::LevelBooks {
    let books = &level.books;
    pb::LevelBooks {
        name: level.name.clone(),
        house: level.house,
        opening_balance: amount(books.opening_balance),
        opening_reserve: amount(books.opening_reserve),
        bets: books.bets,
        bets_amount: amount(books.bets_amount),
        contributions: amount(books.contributions),
        reversals: books.reversals,
        replenishments: amount(books.replenishments),
        transfers_in: amount(books.transfers_in),
        adjustments_up: amount(books.adjustments_up),
        adjustments: books.adjustments,
        awards: amount(books.awards),
        hits: books.hits,
        awards_returned: amount(books.awards_returned),
        rejections: books.rejections,
        awards_reclaimed: amount(books.awards_reclaimed),
        reclaims: books.reclaims,
        replenishments_withdrawn: amount(books.replenishments_withdrawn),
        transfers_out: amount(books.transfers_out),
        adjustments_down: amount(books.adjustments_down),
        closing_balance: amount(books.closing_balance),
        closing_reserve: amount(books.closing_reserve),
        difference: amount(books.difference),
    }
}
