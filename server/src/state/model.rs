//! What the state keeps: tables and their seats, gold turns, payout orders, the
//! jornadas' meters, the last hits, and the snapshot that holds them all.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use pozo_engine::money::Money;
use pozo_engine::{Contribution, Game, PoolState, RoundBook};
use pozo_engine::{PoolId, PrizeCode, TableId};
use serde::{Deserialize, Serialize};

use super::command::{Card, KeyRecord, OfficeCommand, OrderFacts};
use super::refusal::{Refusal, invalid, precondition};
use super::view::TableReply;

/// The phase of a table's round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Panels enabled: credits sold, seats pressed.
    Betting,
    /// After INICIAR JUEGO: betting closed, prizes may be entered.
    Playing,
    /// Prizes accepted: waiting for FINALIZAR JUEGO.
    Accepted,
}

/// A seat's side bet in the current round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Bet {
    None,
    /// Card tables: pressed and durably recorded, registered at INICIAR JUEGO.
    Pressed,
    /// Registered: its contribution is in the pool, since `registered_ms`.
    Registered {
        contribution: Contribution,
        /// When it was registered: a reversal comes off that jornada's and hour's IPA.
        #[serde(default)]
        registered_ms: u64,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    pub credits: u32,
    pub bet: Bet,
    /// Roulette grillos held (3.1.3): all of them are played in the next ball.
    pub bronze: u32,
    pub silver: u32,
    pub gold: u32,
}

impl Seat {
    pub(in crate::state) fn new() -> Seat {
        Seat { credits: 0, bet: Bet::None, bronze: 0, silver: 0, gold: 0 }
    }

    pub(in crate::state) fn grillos(&self) -> u32 {
        self.bronze + self.silver + self.gold
    }
}

/// One prize entered and not yet accepted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrizeEntry {
    pub seat: u32,
    pub code: PrizeCode,
    pub high: Option<String>,
}

/// One award, as fixed at ACEPTAR.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AwardRecord {
    pub seat: u32,
    pub code: PrizeCode,
    pub unlimited: Money,
    pub award: Money,
    pub payout_order_id: Option<String>,
    pub grants: Option<(PrizeCode, u32)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Table {
    pub id: TableId,
    pub pool: PoolId,
    pub game: Game,
    pub open: bool,
    pub phase: Phase,
    pub round: u64,
    pub last_sequence: u64,
    pub last_payload_sha256: String,
    pub last_reply: Option<TableReply>,
    pub last_round: bool,
    /// 11.8.1.1: the bets of a burnt round compete in this one; no new bets.
    pub carried: bool,
    pub seats: Vec<Seat>,
    pub pending: Vec<PrizeEntry>,
    /// The awards accepted in this round.
    pub accepted: Vec<AwardRecord>,
    pub instant_card: Option<Card>,
}

impl Table {
    pub(in crate::state) fn is_roulette(&self) -> bool {
        self.game.is_roulette()
    }

    pub(in crate::state) fn plays_instant_prize(&self) -> bool {
        self.game.plays_instant_prize()
    }

    pub(in crate::state) fn seat(&self, seat: u32) -> Result<&Seat, Refusal> {
        let count = self.seats.len();
        seat.checked_sub(1)
            .and_then(|index| self.seats.get(index as usize))
            .ok_or_else(|| invalid(format!("seat: {seat} is not a seat of table {} (1–{count})", self.id)))
    }

    pub(in crate::state) fn seat_mut(&mut self, seat: u32) -> &mut Seat {
        &mut self.seats[(seat - 1) as usize]
    }

    pub(in crate::state) fn require_open(&self) -> Result<(), Refusal> {
        if self.open { Ok(()) } else { Err(precondition(format!("table {} is closed: Apertura de Mesa first (4.6)", self.id))) }
    }
}

/// The gold turn of one roulette pool (4.3.4, 4.3.5).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoldTurn {
    pub holder: Option<TableId>,
    pub waiting: VecDeque<TableId>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OrderStatus {
    Pending,
    Confirmed,
    Rejected,
}

/// "confirmada by `vp-ana` (Ana Pereyra) at journal entry 42": what someone who
/// decides second is told.
pub(in crate::state) fn decided_by(order: &PayoutOrder, status: OrderStatus) -> String {
    if order.operator_id.is_empty() {
        return status.spanish().to_owned();
    }
    format!(
        "{} by `{}` ({}) at journal entry {}",
        status.spanish(),
        order.operator_id,
        order.operator_name,
        order.resolved_sequence
    )
}

impl OrderStatus {
    pub fn spanish(self) -> &'static str {
        match self {
            OrderStatus::Pending => "pendiente",
            OrderStatus::Confirmed => "confirmada",
            OrderStatus::Rejected => "rechazada",
        }
    }
}

/// A payout order for the Venta-Pagos office (3.5.2, 11.6.1.2, 15.8.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PayoutOrder {
    pub order_id: String,
    /// Pool, table, seat, round, code and amount: what a decision must name (3.5.1: the
    /// amount is fixed at marking).
    #[serde(flatten)]
    pub facts: OrderFacts,
    pub journal_sequence: u64,
    /// When the prize was marked: a rejection takes it off that jornada's PPPA.
    pub time_ms: u64,
    pub status: OrderStatus,
    /// The key that decided it.
    pub operator_id: String,
    #[serde(default)]
    pub operator_name: String,
    pub form_number: String,
    pub reason: String,
    pub resolved_sequence: u64,
    /// When the decision was journaled.
    #[serde(default)]
    pub decided_ms: u64,
}

impl PayoutOrder {
    /// Records a decision: the operator is the key that signed it (3.5.2).
    pub(in crate::state) fn decide(&mut self, status: OrderStatus, command: &OfficeCommand, sequence: u64, time_ms: u64) {
        self.status = status;
        self.operator_id = command.key_id.clone();
        self.operator_name = command.operator_name.clone();
        self.resolved_sequence = sequence;
        self.decided_ms = time_ms;
    }
}

/// A table's meters for one jornada (4.7, 12.8, Form 4218).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableDay {
    pub ipa: Money,
    pub pppa: Money,
    pub fp: u32,
    pub bets: u64,
    pub presses: u64,
    pub credits_sold: u64,
    pub credits_returned: u64,
    pub credits_sold_amount: Money,
    pub credits_returned_amount: Money,
    /// Local hour → (IPA, PPPA).
    pub hours: BTreeMap<u32, (Money, Money)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hit {
    pub table_id: TableId,
    pub seat: u32,
    pub code: PrizeCode,
    pub amount: Money,
    pub time_ms: u64,
    pub journal_sequence: u64,
}

/// The last win of a pool, for the displays (docs/architecture.md: "after a hit, signs
/// show the winning table, the amount being paid and the new amount").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastWin {
    pub table_id: TableId,
    pub seat: u32,
    pub code: PrizeCode,
    pub amount: Money,
    pub journal_sequence: u64,
}

/// Everything but the pools, as a snapshot keeps it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Data {
    pub journal_sequence: u64,
    pub tables: BTreeMap<TableId, Table>,
    pub gold_turns: BTreeMap<PoolId, GoldTurn>,
    /// Shared with the published read model (copy on write): a batch that files or decides
    /// no order passes them on without a copy.
    pub orders: Arc<BTreeMap<String, PayoutOrder>>,
    pub next_order: u64,
    /// Jornada ("2026-11-22") → table → meters. Each jornada and each table's meters are
    /// shared (copy on write), so a snapshot's or the read model's copy of the 62 jornadas
    /// kept costs a pointer each, and a batch copies only the meters it changes.
    pub days: BTreeMap<String, Arc<BTreeMap<TableId, Arc<TableDay>>>>,
    /// Pool → its last hits, newest first (shared like the orders).
    pub hits: Arc<BTreeMap<PoolId, VecDeque<Hit>>>,
    pub last_wins: BTreeMap<PoolId, LastWin>,
    /// The settled rounds with a payout order still pending, by the journal sequence
    /// of their ACEPTAR: what a rejection needs to undo one award and only it.
    #[serde(default)]
    pub rounds: BTreeMap<u64, RoundBook>,
    /// The key set in force, as last journaled (genesis or a `keys` entry).
    #[serde(default)]
    pub keys: Vec<KeyRecord>,
}

impl Data {
    /// Files a new payout order, pending, under the next number, for the prize marked by
    /// journal entry `journal_sequence` at `time_ms`; returns its id.
    pub(in crate::state) fn file_order(&mut self, facts: OrderFacts, journal_sequence: u64, time_ms: u64) -> String {
        self.next_order += 1;
        let order_id = format!("OP-{:06}", self.next_order);
        let order = PayoutOrder {
            order_id: order_id.clone(),
            facts,
            journal_sequence,
            time_ms,
            status: OrderStatus::Pending,
            operator_id: String::new(),
            operator_name: String::new(),
            form_number: String::new(),
            reason: String::new(),
            resolved_sequence: 0,
            decided_ms: 0,
        };
        Arc::make_mut(&mut self.orders).insert(order_id.clone(), order);
        order_id
    }
}

/// A snapshot: the state after `data.journal_sequence` entries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    pub config_hash: String,
    pub pools: BTreeMap<PoolId, PoolState>,
    pub data: Data,
}
