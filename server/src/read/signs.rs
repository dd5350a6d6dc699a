//! What the signs show: each pool's amount, minimum and increment, its last hits and the
//! prizes waiting for Venta-Pagos, and what each table's panels are pushed. Built by the
//! writer after each durable batch; read by the display feed, the pages and gRPC.

use std::collections::BTreeSet;
use std::sync::Arc;

use pozo_core::state::panel::LevelMeter;
use pozo_core::state::{Hit, LastWin, OrderStatus, State, TableView};
use pozo_engine::rulebook::PoolRules;
use pozo_engine::{Money, PoolId};

/// What a table's panels are pushed.
#[derive(Clone, Debug, PartialEq)]
pub struct TablePush {
    pub journal_sequence: u64,
    pub view: TableView,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PoolDisplay {
    pub pool_id: PoolId,
    pub displayed: Money,
    pub minimum: Money,
    /// The share of each bet the pool grows by (3.2.1; AJ 2.5.4.1: "su incremento"); in a pool
    /// with levels, the levels' shares added ([`increment_rate`]).
    pub increment_rate: rust_decimal::Decimal,
    pub last_win: Option<LastWin>,
    /// The level the last win was paid from ([`paid_from`]): empty in a pool of one level.
    pub last_win_level: String,
    /// A pool with levels: each level's meter, never the house's (docs/readings.md, "Levels");
    /// empty for a pool of one level, whose meter is `displayed`.
    pub levels: Vec<LevelMeter>,
    /// The prizes of this pool waiting for Venta-Pagos (3.5.2, 11.6.1.2, 15.8.2): the
    /// sign shows PENDIENTE DE PAGO while there is one. Oldest first.
    pub pending: Arc<[PrizeView]>,
    /// The last [`SIGN_HITS`] hits, newest first, each with how its payment stands.
    /// (Shared: a batch that changes no prize passes them on without a copy.)
    pub hits: Arc<[PrizeView]>,
}

/// The hits a sign shows per pool.
pub(crate) const SIGN_HITS: usize = 5;

/// How a hit's payment stands, for the signs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrizeStatus {
    /// Paid at the table by the dealer (no payout order).
    Paid,
    /// Waiting for Venta-Pagos.
    Pending,
    /// Venta-Pagos confirmed it.
    Confirmed,
    /// Venta-Pagos rejected it: the award was undone (docs/readings.md).
    Rejected,
}

impl PrizeStatus {
    /// As the sign and the office say it.
    pub(crate) fn spanish(self) -> &'static str {
        match self {
            PrizeStatus::Paid => "pagado",
            PrizeStatus::Pending => "pendiente",
            PrizeStatus::Confirmed => "confirmado",
            PrizeStatus::Rejected => "rechazado",
        }
    }
}

/// One prize as the signs show it: the hit, how its payment stands, and the level it was
/// paid from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrizeView {
    pub hit: Hit,
    pub status: PrizeStatus,
    /// The level's name ([`paid_from`]): empty in a pool of one level.
    pub level: String,
    /// Paid by the house, from its own money: no meter of the signs paid it.
    pub house: bool,
}

/// The level a prize of `code` is paid from (docs/readings.md, "Levels"): its name ("Grand";
/// "Pagado por la casa" for the house's), empty in a pool of one level; and whether it is the
/// house's level, which no sign shows.
pub(crate) fn paid_from(rules: &PoolRules, code: &str) -> (String, bool) {
    let index = rules.level_of(code);
    let name = rules.level_name(index).unwrap_or_default().to_owned();
    (name, rules.levels.get(index).is_some_and(|level| level.house))
}

/// What the sign says a pool grows by of each bet (3.2.1; AJ 2.5.4.1): its contribution rate;
/// in a pool with levels, every level's share added (the house's is none).
pub(crate) fn increment_rate(rules: &PoolRules) -> rust_decimal::Decimal {
    if rules.levels.is_empty() {
        return rules.contribution_rate;
    }
    rules.levels.iter().map(|level| level.share).sum()
}

/// What every cartel luminoso is pushed.
#[derive(Clone, Debug, PartialEq)]
pub struct DisplayPush {
    pub journal_sequence: u64,
    pub pools: Vec<PoolDisplay>,
    /// When the batch that made this push became durable (microseconds since the Unix
    /// epoch, this machine's clock): what the display latency is measured from.
    pub(crate) durable_unix_us: u64,
}

/// The displays' view of every pool. The prize lists (pending orders, last hits) are
/// rebuilt only for the pools in `prizes_changed` (a hit or a Venta-Pagos decision) and
/// taken from `previous` for the others: finding the pending orders reads every order.
pub(crate) fn display_of(
    state: &State,
    journal_sequence: u64,
    durable_unix_us: u64,
    previous: Option<&DisplayPush>,
    prizes_changed: Option<&BTreeSet<PoolId>>,
) -> DisplayPush {
    DisplayPush {
        journal_sequence,
        durable_unix_us,
        pools: state
            .pools()
            .enumerate()
            .map(|(index, pool)| {
                let id = &pool.rules().id;
                let kept = previous
                    .and_then(|previous| previous.pools.get(index))
                    .filter(|kept| &kept.pool_id == id && !prizes_changed.is_some_and(|changed| changed.contains(id)));
                let (pending, hits) = match kept {
                    Some(kept) => (Arc::clone(&kept.pending), Arc::clone(&kept.hits)),
                    None => prizes_of(state, id),
                };
                let last_win = state.data().last_wins.get(id).cloned();
                PoolDisplay {
                    pool_id: id.clone(),
                    displayed: pool.displayed(),
                    minimum: pool.rules().minimum,
                    increment_rate: increment_rate(pool.rules()),
                    last_win_level: last_win.as_ref().map(|win| paid_from(pool.rules(), &win.code).0).unwrap_or_default(),
                    last_win,
                    levels: state.with_open_ceilings(id, pozo_core::state::view::level_meters(pool)),
                    pending,
                    hits,
                }
            })
            .collect(),
    }
}

/// A pool's pending payout orders (oldest first) and its last [`SIGN_HITS`] hits.
pub(crate) fn prizes_of(state: &State, pool_id: &str) -> (Arc<[PrizeView]>, Arc<[PrizeView]>) {
    let data = state.data();
    let rules = state.pools().find(|pool| pool.rules().id == pool_id).map(|pool| pool.rules());
    let level = |code: &str| rules.map(|rules| paid_from(rules, code)).unwrap_or_default();
    let orders: Vec<_> = data.orders.values().filter(|order| order.facts.pool == pool_id).collect();
    let pending = orders
        .iter()
        .filter(|order| order.status == OrderStatus::Pending)
        .map(|order| {
            let (level, house) = level(&order.facts.code);
            PrizeView {
                level,
                house,
                hit: Hit {
                    table_id: order.facts.table_id.clone(),
                    seat: order.facts.seat,
                    code: order.facts.code.clone(),
                    amount: order.facts.amount,
                    time_ms: order.time_ms,
                    journal_sequence: order.journal_sequence,
                },
                status: PrizeStatus::Pending,
            }
        })
        .collect();
    let hits = data
        .hits
        .get(pool_id)
        .map(|hits| {
            hits.iter()
                .take(SIGN_HITS)
                .map(|hit| {
                    let order = orders.iter().find(|order| {
                        order.journal_sequence == hit.journal_sequence
                            && order.facts.table_id == hit.table_id
                            && order.facts.seat == hit.seat
                            && order.facts.code == hit.code
                    });
                    let (level, house) = level(&hit.code);
                    PrizeView {
                        level,
                        house,
                        hit: hit.clone(),
                        status: match order.map(|order| order.status) {
                            None => PrizeStatus::Paid,
                            Some(OrderStatus::Pending) => PrizeStatus::Pending,
                            Some(OrderStatus::Confirmed) => PrizeStatus::Confirmed,
                            Some(OrderStatus::Rejected) => PrizeStatus::Rejected,
                        },
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    (pending, hits)
}
