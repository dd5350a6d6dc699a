//! The published read model: what reports, pool status, the office's list and the
//! pages read, as of the last durable batch.
//!
//! The writer builds a new [`ReadModel`] after each batch is durable and swaps it in
//! before it answers the batch's callers, so a reader never sees a bet that is not on
//! disk, a caller who got an answer and then reads sees its own command, and no read
//! ever waits in the writer's queue behind commands. The model is immutable: a reader
//! holds an `Arc` of it for as long as it likes, and the writer never waits for one.
//!
//! It costs the writer little per batch: the pools (a few, copied), and pointers to the
//! orders, hits and jornada meters, which the state keeps shared and copies on write
//! (see `state::model::Data`). The tables are not here: each table's panel is published
//! on its own watch (`signs::TablePush`); only what their seats hold for the liability
//! statement is (a line per seat with credits, a stake or grillos).
//!
//! # Layout
//! - this file: the [`ReadModel`] swapped in after each durable batch.
//! - [`signs`]: what the cartel luminoso and the table panels are pushed.
//! - [`status`]: how a running controller is (`GET /status`, `pozo-server status`), and its
//!   [`status::Role`] (the writer or a hot standby).
//! - [`metrics`]: what `/metrics` shows, kept by the writer and read from the model.
//! - `presence`: which table agents are connected, for the floor view.

pub mod metrics;
pub(crate) mod presence;
pub mod signs;
pub mod status;

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use pozo_engine::{Money, Pool};
use pozo_engine::{PoolId, TableId};

use crate::config::{Config, Salon, TableConfig};
use crate::journal::JournalTip;
use pozo_core::state::liability::{self, Liability, Seats, SeatsByTable, Sums};
use pozo_core::state::{Custody, Hit, OrderStatus, PayoutOrder, Proposal, State, TableDay};

/// A pool's figures in one jornada at the tables of one salon (docs/operations.md §17), from
/// the tables' meters of that jornada.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SalonShare {
    /// Side bets registered, net of those voided or refunded (4.3.2, 11.8.2).
    pub(crate) bets: u64,
    /// Their amount (IPA, 4.7, 12.8).
    pub(crate) bets_amount: Money,
    /// What they added to the pool, main and reserve (3.2.1, 11.2.3, 15.2.4; AJ 2.5.6.3).
    pub(crate) contributions: Money,
    /// Prizes paid at its tables (PPPA), net of Venta-Pagos rejections.
    pub(crate) awards: Money,
}

impl std::ops::AddAssign for SalonShare {
    fn add_assign(&mut self, other: SalonShare) {
        self.bets += other.bets;
        self.bets_amount += other.bets_amount;
        self.contributions += other.contributions;
        self.awards += other.awards;
    }
}

/// The state as of one durable journal tip.
#[derive(Clone, Debug)]
pub struct ReadModel {
    /// The durable tip: entries and hash.
    pub tip: JournalTip,
    pools: BTreeMap<PoolId, Pool>,
    orders: Arc<BTreeMap<String, PayoutOrder>>,
    days: pozo_core::state::books::Days,
    /// Each pool's figures as each jornada opened (`pozo_core::state::books`).
    openings: pozo_core::state::books::Openings,
    hits: Arc<BTreeMap<PoolId, VecDeque<Hit>>>,
    custody: Arc<BTreeMap<String, Custody>>,
    /// The roulette series 3.7.3 may still annul (`pozo_core::state::Series`), by number.
    series: pozo_core::state::shared::SharedMap<String, Arc<pozo_core::state::Series>>,
    /// What the seats hold (credits, stakes pressed, grillos), table by table: the tables' part
    /// of the liability. The writer shares it across batches and reads again only the tables a
    /// batch touched (`writer::batch`).
    seats: Arc<SeatsByTable>,
    /// The liability as each jornada opened (`pozo_core::state::liability`).
    liability_openings: Arc<liability::Openings>,
    /// The configuration in force (docs/operations.md §8: approved changes change it).
    pub config: Arc<Config>,
    /// Changes and money movements, proposed and decided, by id.
    proposals: Arc<BTreeMap<String, Proposal>>,
    /// The approved ones waiting for their moment.
    scheduled: Vec<String>,
    /// The tables a change retired, as the layout last had them: their reports stay.
    retired_tables: BTreeMap<TableId, TableConfig>,
    /// Each mystery level's open draw's ceiling, by pool and level (docs/readings.md, "The
    /// mystery level"). Only the public ceiling: the read side holds no commitment, no sealed
    /// draw, no trigger (docs/security.md, "Who can learn a trigger before its hit").
    ceilings: BTreeMap<(PoolId, String), Money>,
    /// The poker tournaments, by id (each shared with the state, never copied whole).
    tournaments: BTreeMap<String, Arc<pozo_core::state::tournament::Tournament>>,
}

/// Each mystery level's open draw's ceiling, by pool and level: never more of the draw.
pub(crate) fn open_ceilings(state: &State) -> BTreeMap<(PoolId, String), Money> {
    state
        .mysteries()
        .iter()
        .filter_map(|cycle| Some(((cycle.pool.clone(), cycle.level.clone()), cycle.open.as_ref()?.ceiling)))
        .collect()
}

impl ReadModel {
    /// The model of `state` at the durable `tip`, with what its seats hold as the writer keeps it
    /// (`seats` must be `state.seats_by_table()`: checked on every batch of the tests).
    pub(crate) fn with_seats(state: &State, tip: JournalTip, seats: Arc<SeatsByTable>) -> ReadModel {
        let data = state.data();
        ReadModel {
            tip,
            pools: state.pools().map(|pool| (pool.rules().id.clone(), pool.clone())).collect(),
            orders: Arc::clone(&data.orders),
            days: data.days.clone(),
            openings: data.openings.clone(),
            hits: Arc::clone(&data.hits),
            custody: Arc::clone(&data.custody),
            series: data.series.clone(),
            seats,
            liability_openings: Arc::clone(&data.liability_openings),
            config: Arc::clone(state.config()),
            proposals: Arc::clone(&data.proposals),
            scheduled: data.scheduled.clone(),
            retired_tables: data.retired_tables.clone(),
            ceilings: open_ceilings(state),
            tournaments: state.tournaments().clone(),
        }
    }

    /// The poker tournaments, by id.
    pub fn tournaments(&self) -> impl Iterator<Item = &pozo_core::state::tournament::Tournament> {
        self.tournaments.values().map(|tournament| &**tournament)
    }

    pub fn tournament(&self, id: &str) -> Option<&pozo_core::state::tournament::Tournament> {
        self.tournaments.get(id).map(|tournament| &**tournament)
    }

    /// A mystery level's ceiling, "Debe salir antes de …": its open draw's, else its rules'
    /// `must_hit_by` (a new one comes into force at the next reset). `None` for another level.
    pub fn must_hit_by(&self, pool_id: &str, level: &str) -> Option<Money> {
        let pool = self.pools.get(pool_id)?;
        let rules = pool.rules().levels.iter().find(|rules| rules.name == level && !rules.house)?;
        let ceiling = rules.must_hit_by?;
        Some(self.ceilings.get(&(pool.rules().id.clone(), level.to_owned())).copied().unwrap_or(ceiling))
    }

    /// The table `id` as the layout in force has it, or as it last had it when a change
    /// retired it: a retired table's reports and closing sheets stay (docs/operations.md §8).
    pub fn table(&self, id: &str) -> Option<&TableConfig> {
        self.config.table(id).or_else(|| self.retired_tables.get(id))
    }

    /// Every proposal, newest first.
    pub fn proposals(&self) -> impl Iterator<Item = &Proposal> {
        self.proposals.values().rev()
    }

    pub fn proposal(&self, id: &str) -> Option<&Proposal> {
        self.proposals.get(id)
    }

    /// The approved changes waiting for their moment, oldest first.
    pub fn scheduled(&self) -> impl Iterator<Item = &Proposal> {
        self.scheduled.iter().filter_map(|id| self.proposals.get(id))
    }

    /// Every pool, by id.
    pub fn pools(&self) -> impl Iterator<Item = &Pool> {
        self.pools.values()
    }

    pub fn pool(&self, id: &str) -> Option<&Pool> {
        self.pools.get(id)
    }

    /// Every payout order, by number.
    pub fn orders(&self) -> impl Iterator<Item = &PayoutOrder> {
        self.orders.values()
    }

    /// The orders still waiting for Venta-Pagos.
    pub fn pending_orders(&self) -> impl Iterator<Item = &PayoutOrder> {
        self.orders().filter(|order| order.status == OrderStatus::Pending)
    }

    pub fn order(&self, id: &str) -> Option<&PayoutOrder> {
        self.orders.get(id)
    }

    /// What the bank holds in custody now (11.8.3, 15.14.5.2), by id.
    pub fn custody_held(&self) -> impl Iterator<Item = &Custody> {
        self.custody.values().filter(|item| item.held())
    }

    /// The roulette series of `table` kept for 3.7.3, oldest sale first.
    pub fn series_of<'a>(&'a self, table: &'a str) -> impl Iterator<Item = &'a pozo_core::state::Series> + 'a {
        let mut series: Vec<&pozo_core::state::Series> =
            self.series.values().map(|series| &**series).filter(|series| series.table_id == table).collect();
        series.sort_by_key(|series| (series.generation, series.sale_sequence));
        series.into_iter()
    }

    /// What the banks of a pool's tables hold in custody now.
    pub(crate) fn custody_held_in(&self, pool_id: &str) -> Money {
        self.custody_held().filter(|item| item.pool == pool_id).map(|item| item.amount).sum()
    }

    /// Each pool's books over the jornadas `from` through `through`, tied to zero
    /// (`pozo_core::state::books`); `None` when `from`'s opening is not kept.
    pub fn reconciliation(&self, from: &str, through: &str) -> Option<BTreeMap<PoolId, pozo_engine::Reconciliation>> {
        let now = pozo_core::state::books::figures(self.pools.values());
        pozo_core::state::books::reconciliation(&self.openings, &now, from, through)
    }

    /// Each pool's books over the jornadas `from` through `through` ([`ReadModel::reconciliation`])
    /// with its tables tied to them (`pozo_core::state::books::tables`); `None` when `from`'s
    /// opening is not kept. A pool that does not tie is logged as an error: it is a bug
    /// (docs/rules.md, "Money and conservation").
    pub fn books_and_tables(
        &self,
        config: &pozo_core::config::Config,
        from: &str,
        through: &str,
    ) -> Option<Vec<(PoolId, pozo_engine::Reconciliation, pozo_core::state::books::PoolTables)>> {
        let books = self.books_and_tables_unlogged(config, from, through)?;
        for (pool, books, tied) in &books {
            if !books.ties() || !tied.ties() {
                tracing::error!(
                    pool = %pool,
                    from,
                    through,
                    difference = %books.difference,
                    ipa_difference = %tied.ipa_difference,
                    pppa_difference = %tied.pppa_difference,
                    "the books do not tie to zero"
                );
                for level in books.levels.iter().filter(|level| !level.books.ties()) {
                    tracing::error!(
                        pool = %pool,
                        level = %level.name,
                        from,
                        through,
                        difference = %level.books.difference,
                        "a level's books do not tie to zero"
                    );
                }
            }
        }
        Some(books)
    }

    /// [`ReadModel::books_and_tables`] without the error log: for `/metrics`, scraped every few
    /// seconds (its `pozo_books_tied` is what alerts).
    pub fn books_and_tables_unlogged(
        &self,
        config: &pozo_core::config::Config,
        from: &str,
        through: &str,
    ) -> Option<Vec<(PoolId, pozo_engine::Reconciliation, pozo_core::state::books::PoolTables)>> {
        let books = self.reconciliation(from, through)?;
        let mut tables = pozo_core::state::books::tables(config, &self.days, from, through, &books);
        let tied = books.into_iter().map(|(pool, books)| {
            let tied = tables.remove(&pool).unwrap_or_default();
            (pool, books, tied)
        });
        Some(tied.collect())
    }

    /// What the casino owes its players now, part by part (`pozo_core::state::liability`).
    pub fn liability(&self) -> Liability {
        let seats = Seats::joined(self.seats.values().map(|seats| &**seats));
        Liability::of(self.pools.values(), &seats, &self.orders, &self.custody)
    }

    /// The liability summed as `jornada` opened, given the sums `now`; `None` for a jornada
    /// before the first opening kept (`pozo_core::state::liability::opening`).
    pub fn liability_opening(&self, jornada: &str, now: &Sums) -> Option<Sums> {
        liability::opening(&self.liability_openings, now, jornada)
    }

    /// The liability summed as each kept jornada opened, oldest first.
    pub fn liability_openings(&self) -> impl Iterator<Item = (&str, &Sums)> {
        self.liability_openings.iter().map(|(jornada, sums)| (jornada.as_str(), sums))
    }

    /// A table's meters for a jornada; zero when nothing was booked.
    pub fn day(&self, jornada: &str, table_id: &str) -> TableDay {
        self.days.get(jornada).and_then(|tables| tables.get(table_id)).map(|day| TableDay::clone(day)).unwrap_or_default()
    }

    /// A pool's figures in `jornada` per salon whose tables feed it, in the layout's order of
    /// salons; empty for a pool no table feeds. Every table is in exactly one salon, so the
    /// salons add up exactly (decimal arithmetic) to the pool's figures for the jornada.
    ///
    /// A table's contribution is its IPA as the pool's rules split a bet ([`Pool::contribution_of`]:
    /// the main and reserve shares, 3.2.1, 11.2.3, 15.2.4, AJ 2.5.6.3): each bet contributed
    /// exactly its bet times those rates, fractions kept, and the rates do not change while the
    /// pool is live, so the sum of the bets' contributions is the IPA's.
    pub(crate) fn salon_shares<'c>(&self, config: &'c Config, jornada: &str, pool_id: &str) -> Vec<(&'c Salon, SalonShare)> {
        let Some(pool) = self.pool(pool_id) else { return Vec::new() };
        let tables = self.days.get(jornada);
        config
            .salons()
            .iter()
            .filter(|salon| salon.pools.iter().any(|id| *id == pool_id))
            .map(|salon| {
                let mut share = SalonShare::default();
                for table_id in &salon.tables {
                    let in_pool = config.table(table_id).is_some_and(|table| table.pool == pool_id);
                    let Some(day) = tables.and_then(|tables| tables.get(table_id)).filter(|_| in_pool) else { continue };
                    let contribution = pool.contribution_of(day.ipa);
                    share += SalonShare {
                        bets: day.bets,
                        bets_amount: day.ipa,
                        contributions: contribution.main + contribution.reserve,
                        awards: day.pppa,
                    };
                }
                (salon, share)
            })
            .collect()
    }

    /// The jornadas kept in the reports, newest first.
    pub fn jornadas(&self) -> impl Iterator<Item = &str> {
        self.days.keys().rev().map(String::as_str)
    }

    /// A pool's last hits, newest first.
    pub fn hits(&self, pool_id: &str) -> impl Iterator<Item = &Hit> {
        self.hits.get(pool_id).into_iter().flatten()
    }
}
