//! What the state keeps: tables and their seats, gold turns, payout orders, the
//! jornadas' meters, the last hits, and the snapshot that holds them all.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use pozo_engine::money::Money;
use pozo_engine::{Contribution, Game, Grillo, RoundBook};
use pozo_engine::{PoolFigures, PoolId, PrizeCode, TableId};
use serde::{Deserialize, Serialize};

use super::command::{Build, Card, OfficeCommand, OrderFacts};
pub use super::hours::Hours;
use super::panel::{AwardRecord, LinkAward, PrizeEntry, TableReply};
use super::proposal::Proposal;
use super::refusal::{Refusal, invalid, precondition};
use super::shared::SharedMap;
use crate::config::KeyRecord;

/// The phase of a table's round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Panels enabled: credits sold, seats pressed.
    Betting,
    /// After INICIAR JUEGO: betting closed, prizes may be entered.
    Playing,
    /// FINALIZAR JUEGO pressed with prizes entered: their entry is closed and ACEPTAR
    /// validates them (12.5.2.1 c–d, 16.4.2.5.6 c–d).
    Entered,
    /// Prizes accepted: waiting for FINALIZAR JUEGO at the rack (12.5.2.3, 16.4.2.5.12).
    Accepted,
}

/// A seat's side bet in the current round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Bet {
    None,
    /// Card tables: pressed and durably recorded, registered at INICIAR JUEGO.
    Pressed {
        /// The stake, in credits (AJ 2.5.4.1: "seleccionando el monto de su apuesta,
        /// expresado en créditos"); one where the bet is fixed.
        #[serde(default = "one_credit")]
        credits: u32,
    },
    /// Registered: its contribution is in the pool, since `registered_ms`.
    Registered {
        contribution: Contribution,
        /// When it was registered: a reversal comes off that jornada's and hour's IPA.
        #[serde(default)]
        registered_ms: u64,
        /// The stake in credits: what a void or refund gives back to the seat.
        #[serde(default = "one_credit")]
        credits: u32,
    },
}

fn one_credit() -> u32 {
    1
}

impl Bet {
    /// The credits staked this round (0 with no bet): what the seat's panel shows.
    pub fn stake(&self) -> u32 {
        match self {
            Bet::None => 0,
            Bet::Pressed { credits } | Bet::Registered { credits, .. } => *credits,
        }
    }
}

/// Grillos by metal: held, or left unplayed in a ball (3.7.4, 3.7.10).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grillos {
    pub bronze: u32,
    pub silver: u32,
    pub gold: u32,
}

impl Grillos {
    /// How many, of every metal.
    pub(crate) fn total(&self) -> u32 {
        self.bronze + self.silver + self.gold
    }

    pub fn of(&self, grillo: Grillo) -> u32 {
        match grillo {
            Grillo::Bronce => self.bronze,
            Grillo::Plata => self.silver,
            Grillo::Oro => self.gold,
        }
    }

    pub(crate) fn of_mut(&mut self, grillo: Grillo) -> &mut u32 {
        match grillo {
            Grillo::Bronce => &mut self.bronze,
            Grillo::Plata => &mut self.silver,
            Grillo::Oro => &mut self.gold,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.bronze + self.silver + self.gold == 0
    }
}

/// One award paid to a roulette series: what 3.7.3 makes its winner give back when
/// the series is found invalid after payment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeriesAward {
    pub code: PrizeCode,
    pub amount: Money,
    pub journal_sequence: u64,
    /// The journal of the chain it was paid in, as for a payout order (docs/operations.md §8).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub generation: u32,
    pub time_ms: u64,
    pub payout_order_id: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    pub credits: u32,
    pub bet: Bet,
    /// Roulette grillos held (3.1.3): all of them are played in the next ball, but
    /// those `not_played` says (3.7.10) and those of an absent player (3.7.1).
    pub bronze: u32,
    pub silver: u32,
    pub gold: u32,
    /// Closed to the progressive: its light is broken (AJ 2.5.6.1; 11.11.5, 15.14.5.1).
    #[serde(default)]
    pub closed: bool,
    /// Roulette: the player left with grillos; they are kept for him, not played (3.7.1).
    #[serde(default)]
    pub absent: bool,
    /// Roulette: of the grillos held, those not played in this ball, or played off a
    /// pleno and handed back (3.7.4, 3.7.10): they stay for the next ball.
    #[serde(default)]
    pub not_played: Grillos,
    /// Roulette: the number of the seat's current or last series (`Data::series`), from its sale
    /// (3.1.3) until the seat's next sale, Cierre de Mesa or its annulment (3.7.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series_id: Option<String>,
}

impl Seat {
    pub(in crate::state) fn new() -> Seat {
        Seat {
            credits: 0,
            bet: Bet::None,
            bronze: 0,
            silver: 0,
            gold: 0,
            closed: false,
            absent: false,
            not_played: Grillos::default(),
            series_id: None,
        }
    }

    pub(in crate::state) fn grillos(&self) -> u32 {
        self.held().total()
    }

    /// The grillos held, by metal.
    pub(in crate::state) fn held(&self) -> Grillos {
        Grillos { bronze: self.bronze, silver: self.silver, gold: self.gold }
    }

    pub(in crate::state) fn set_held(&mut self, grillos: Grillos) {
        self.bronze = grillos.bronze;
        self.silver = grillos.silver;
        self.gold = grillos.gold;
    }

    /// A gold held by a player at the table: one the gold turn is for (4.3.5). An
    /// absent player's gold waits for him (3.7.1.2).
    pub(in crate::state) fn plays_gold(&self) -> bool {
        self.gold > 0 && !self.absent
    }

    pub(in crate::state) fn require_open(&self, number: u32) -> Result<(), Refusal> {
        if self.closed {
            return Err(precondition(format!(
                "seat {number} is closed to the progressive: its light does not work (AJ 2.5.6.1, 11.11.5); open the seat first"
            ))
            .castellano(format!("Box {number} cerrado al pozo: su luz no funciona; habilítelo primero (AJ 2.5.6.1, 11.11.5).")));
        }
        Ok(())
    }
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
    pub(crate) last_payload_sha256: String,
    /// Shared with the answer it was (a retry is answered with it): never copied per command.
    pub(crate) last_reply: Option<Arc<TableReply>>,
    pub last_round: bool,
    /// 11.8.1.1: the bets of a burnt round compete in this one; no new bets.
    pub carried: bool,
    pub seats: Vec<Seat>,
    pub pending: Vec<PrizeEntry>,
    /// The awards accepted in this round.
    pub accepted: Vec<AwardRecord>,
    /// What this table's seats won in another table's round of the link (an envy bonus across
    /// the link, docs/readings.md "The envy bonus"): paid here, shown on the panel until this
    /// table's FINALIZAR JUEGO. Absent from the record when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub link_awards: Vec<LinkAward>,
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
        seat.checked_sub(1).and_then(|index| self.seats.get(index as usize)).ok_or_else(|| {
            invalid(format!("seat: {seat} is not a seat of table {} (1–{count})", self.id))
                .castellano(format!("La mesa {} no tiene box {seat}: sus boxes van del 1 al {count}.", self.id))
        })
    }

    pub(in crate::state) fn seat_mut(&mut self, seat: u32) -> &mut Seat {
        &mut self.seats[(seat - 1) as usize]
    }

    pub(in crate::state) fn require_open(&self) -> Result<(), Refusal> {
        if self.open {
            return Ok(());
        }
        Err(precondition(format!("table {} is closed: Apertura de Mesa first (4.6)", self.id))
            .castellano(format!("La mesa {} está cerrada: primero Apertura de Mesa (4.6).", self.id)))
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
/// Who decided the order and when, in the cashier's words: "confirmada por Dora Paz
/// (vp-dora), asiento 42 del registro".
pub(in crate::state) fn decided_by_spanish(order: &PayoutOrder, status: OrderStatus) -> String {
    if order.operator_id.is_empty() {
        return status.spanish().to_owned();
    }
    format!(
        "{} por {} ({}), asiento {} del registro",
        status.spanish(),
        order.operator_name,
        order.operator_id,
        order.resolved_sequence
    )
}

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
    /// The journal of the chain it was marked in: 0 for the first, one more for each journal
    /// opened from a closing statement (docs/operations.md §8). With `journal_sequence` it names
    /// the round, which entry numbers alone cannot once a new journal counts from 1 again.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub generation: u32,
    /// When the prize was marked: a rejection takes it off that jornada's PPPA.
    pub time_ms: u64,
    /// Where the round names tables (an envy bonus across the link), this award's table as the
    /// round's book names it; None, and absent from the record, otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<TableId>,
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

/// What a custody item holds (11.8.3, 15.14.5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CustodyKind {
    /// A sick player's side bet, annulled and held by the bank (11.8.3.1.2, 15.14.5.2.2).
    Bet,
    /// A prize he won, held by the bank (11.8.3.2.2, 15.14.5.2.5).
    Prize,
}

impl CustodyKind {
    pub fn spanish(self) -> &'static str {
        match self {
            CustodyKind::Bet => "apuesta en custodia",
            CustodyKind::Prize => "premio en custodia",
        }
    }
}

/// A roulette series: the three Grillos de Bronce sold at a press (3.1.3, 4.4.2) and the grillos
/// its hits granted, with every award it was paid: what 3.7.3 makes its winner give back when
/// it is found invalid after payment, whenever that is found (docs/readings.md, "A series found
/// invalid after payment"). Kept from its sale while it is a seat's current series and, once
/// paid, for as long as the jornada of its sale is kept (`JORNADAS_KEPT`), across a Cierre de
/// Mesa and a close → open of the journal; one never paid is dropped when it ends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Series {
    /// "SE-000482": the sale's entry in the journal ("SE-2-000013" in the journal of generation 2,
    /// after two close → open), said in the sale's outcome and in its awards'.
    pub series_id: String,
    pub table_id: TableId,
    pub pool: PoolId,
    pub seat: u32,
    /// The sale: its entry in the journal of `generation`, its time and its jornada.
    pub sale_sequence: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub generation: u32,
    pub sale_ms: u64,
    pub jornada: String,
    /// The balls it took part in (INICIAR JUEGO with its player at the table): a series that
    /// played none was not played, and its bet is never taken by an annulment.
    pub balls: u32,
    /// Every award it was paid, in order, a share fixed at zero too: a rejection may later pay it.
    pub awards: Vec<SeriesAward>,
    /// Annulled under 3.7.3 by the entry of this number (of the journal of `annulled_generation`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annulled_sequence: Option<u64>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub annulled_generation: u32,
}

/// Money the bank holds "en custodia" for a player who could not go on (11.8.3,
/// 15.14.5.2), until he or someone for him collects it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Custody {
    pub custody_id: String,
    pub kind: CustodyKind,
    pub pool: PoolId,
    pub table_id: TableId,
    pub seat: u32,
    pub round: u64,
    /// The prize's code (a prize in custody).
    pub code: Option<PrizeCode>,
    pub amount: Money,
    /// The prize's payout order, when Venta-Pagos pays it (into custody).
    pub payout_order_id: Option<String>,
    pub journal_sequence: u64,
    pub time_ms: u64,
    /// The entry that released it to the player (or voided it), and when.
    pub released_sequence: Option<u64>,
    #[serde(default)]
    pub(crate) released_ms: u64,
    /// Voided: Venta-Pagos rejected the prize's order, so there is nothing to hold.
    #[serde(default)]
    pub voided: bool,
}

impl Custody {
    pub fn held(&self) -> bool {
        self.released_sequence.is_none()
    }
}

/// One jornada's meters, table by table (`Data::days`).
pub type TableDays = SharedMap<TableId, Arc<TableDay>>;

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
    pub hours: Hours,
    /// Put in custody, and released from it, in this jornada (11.8.3, 15.14.5.2).
    #[serde(default)]
    pub custody_in: Money,
    #[serde(default)]
    pub custody_released: Money,
    /// Awards given back by their winner (3.7.3): already off `pppa`, told apart here.
    #[serde(default)]
    pub pppa_reclaimed: Money,
    /// What a later jornada changed of this jornada's IPA (a bet refunded or voided after the
    /// jornada ended, 4.3.2, 11.8.1.2) and PPPA (a prize rejected, 3.5.2, given back, 3.7.3, or
    /// raised by a re-settlement): already in `ipa` and `pppa`, which keep the jornada a bet or
    /// prize was marked in (Forms 4109, 4020, 4218), told apart because the pool's books count
    /// them in the jornada they happen (`state::books`, docs/readings.md).
    #[serde(default, skip_serializing_if = "money_is_zero")]
    pub ipa_amended_later: Money,
    #[serde(default, skip_serializing_if = "money_is_zero")]
    pub pppa_amended_later: Money,
    /// What this jornada changed of earlier jornadas' IPA and PPPA (booked there).
    #[serde(default, skip_serializing_if = "money_is_zero")]
    pub ipa_amending_earlier: Money,
    #[serde(default, skip_serializing_if = "money_is_zero")]
    pub pppa_amending_earlier: Money,
    /// The pool the table fed when these meters began (`None` in meters an older release kept:
    /// the pool the table feeds now is taken), and what of them, as the pools' books count it,
    /// belongs to other pools: booked before a configuration change moved the table in the
    /// jornada, or a correction of a prize or bet of another pool (docs/readings.md, "The tables
    /// tied to the pool").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<PoolId>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_pools: Vec<PoolShare>,
    /// The closing sheet's (docs/pages.md, "Planilla de cierre"): the journal entries of the
    /// table's commands in this jornada. `None` in the meters of a jornada before
    /// `Data::sheets_from` (docs/readings.md, "The closing sheet"): none of the four fields below
    /// is kept for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entries: Option<EntryRange>,
    /// The jornada's first Apertura de Mesa (4.6): who opened the table, and when.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opened: Option<TableAct>,
    /// The jornada's last Cierre de Mesa (4.7): who closed the table, and when.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed: Option<TableAct>,
    /// How many times the table was closed in the jornada: `fp` and `grillos_at_close` add up
    /// every close's.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub closings: u32,
    /// Roulette: the grillos each seat held at Cierre de Mesa (index 0 is seat 1), which `fp`
    /// counts (4.7.4–4.7.5: "la cantidad de Grillos existentes al cierre de mesa"). Empty at a
    /// card table, which holds none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grillos_at_close: Vec<Grillos>,
}

impl TableDay {
    /// The meters without the closing sheet's records: what a release before the sheet kept.
    pub fn without_sheet(&self) -> TableDay {
        TableDay {
            entries: None,
            opened: None,
            closed: None,
            closings: 0,
            grillos_at_close: Vec::new(),
            hours: self.hours.clone(),
            pool: None,
            other_pools: Vec::new(),
            ..*self
        }
    }
}

impl TableDay {
    /// The IPA and PPPA as the pools' books count them: each bet, reversal, award and
    /// correction in the jornada it happened (`state::books`).
    pub fn as_booked(&self) -> (Money, Money) {
        (
            self.ipa - self.ipa_amended_later + self.ipa_amending_earlier,
            self.pppa - self.pppa_amended_later + self.pppa_amending_earlier,
        )
    }

    /// Notes that `ipa` and `pppa` of what was just booked here, as booked, are `pool`'s.
    pub(in crate::state) fn for_pool(&mut self, pool: &PoolId, ipa: Money, pppa: Money) {
        match &self.pool {
            None => self.pool = Some(pool.clone()),
            Some(own) if own == pool => {}
            Some(_) => match self.other_pools.iter_mut().find(|share| share.pool == *pool) {
                Some(share) => {
                    share.ipa += ipa;
                    share.pppa += pppa;
                }
                None => self.other_pools.push(PoolShare { pool: pool.clone(), ipa, pppa }),
            },
        }
    }

    /// The table moves to `pool`: what it booked so far for the pool it fed stays that pool's.
    pub(in crate::state) fn move_to(&mut self, pool: &PoolId) {
        let Some(before) = self.pool.clone() else {
            self.pool = Some(pool.clone());
            return;
        };
        if before == *pool {
            return;
        }
        let (ipa, pppa) = self.as_booked();
        let (ipa, pppa) = self.other_pools.iter().fold((ipa, pppa), |(ipa, pppa), share| (ipa - share.ipa, pppa - share.pppa));
        self.pool = Some(pool.clone());
        self.for_pool(&before, ipa, pppa);
        self.other_pools.retain(|share| share.pool != *pool || !share.ipa.is_zero() || !share.pppa.is_zero());
    }
}

/// What of a table's jornada, as the pools' books count it, is another pool's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolShare {
    pub pool: PoolId,
    pub ipa: Money,
    pub pppa: Money,
}

/// The journal entries of one table's commands in one jornada: the first and the last, as the
/// closing sheet names them ("Asientos del diario N a M").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryRange {
    pub first: u64,
    pub last: u64,
    /// The journal of the chain they are in (0 for the first; docs/operations.md §8): a journal
    /// opened from a closing statement counts its entries from 1 again.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub generation: u32,
    /// Entries of this table and jornada are also in an earlier journal of the chain, before it
    /// was closed into this one: `first` is this journal's first of them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub earlier: bool,
}

/// An Apertura or a Cierre de Mesa as the closing sheet names it: who, at which entry, when.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableAct {
    /// The floor inspector who acted at the table's monitor with their PIN (`TableCommand::
    /// inspector`): their key id, and their name as the journal's key set had it then. Both
    /// empty when the table's own agent sent it without naming an inspector.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub inspector_id: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub inspector_name: String,
    /// The journal entry it is.
    pub sequence: u64,
    pub time_ms: u64,
}

fn money_is_zero(amount: &Money) -> bool {
    amount.is_zero()
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

/// Jornada ("2026-11-22") → each pool's figures as it opened (`books.rs`). Each jornada's map
/// is shared (copy on write) with snapshots and the read model.
pub type Openings = BTreeMap<String, Arc<BTreeMap<PoolId, PoolFigures>>>;

/// Jornada ("2026-11-22") → the liability summed as it opened, before its first entry (`liability.rs`).
pub type LiabilityOpenings = BTreeMap<String, Sums>;

/// The liability summed by part, with how many lines each has: the statement's foot, and what
/// each jornada's opening keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sums {
    /// Owed in the pools: each main balance above its minimum, and the reserves.
    pub pools: Money,
    pub pending_orders: Money,
    pub credits: Money,
    pub stakes: Money,
    pub custody: Money,
    /// The five above added.
    pub total: Money,
    /// Payout orders pending, credits held, stakes pressed, custody items counted.
    pub orders: u64,
    pub credits_held: u64,
    pub stakes_pressed: u64,
    pub custody_items: u64,
    /// Grillos held, by metal: counted, no amount.
    pub grillos: Grillos,
}

/// Everything but the pools, as a snapshot keeps it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Data {
    pub journal_sequence: u64,
    /// In runs (`shared`), not one `BTreeMap`: a command looks its table up two or three times,
    /// and two binary searches over the runs and in one compare about ten ids where the tree's
    /// nodes compared about twenty; a snapshot's copy of the state copies a pointer per run,
    /// the tables changed after it are copied by their runs (docs/benchmarks.md, issue 47 step 13).
    pub tables: SharedMap<TableId, Table>,
    pub gold_turns: BTreeMap<PoolId, GoldTurn>,
    /// Shared with the published read model (copy on write): a batch that files or decides
    /// no order passes them on without a copy.
    pub orders: Arc<BTreeMap<String, PayoutOrder>>,
    pub(crate) next_order: u64,
    /// Jornada ("2026-11-22") → table → meters. Each jornada's tables and each table's meters
    /// are shared (copy on write), so a snapshot's or the read model's copy of the 62 jornadas
    /// kept costs a pointer each, and a batch copies only the meters it changes and the run of
    /// at most 32 tables holding them (`shared`), not the jornada's 1,000 tables.
    pub days: BTreeMap<String, TableDays>,
    /// Each pool's balances and meters as each jornada opened (`books.rs`): the opening of the
    /// jornada's reconciliation. The last 62 jornadas, like `days`.
    #[serde(default)]
    pub openings: Openings,
    /// The liability to players summed as each jornada opened (`liability.rs`), the last 62
    /// like `openings`; absent in snapshots of earlier releases. Shared with the read model
    /// (copy on write: it changes once a jornada).
    #[serde(default)]
    pub liability_openings: Arc<LiabilityOpenings>,
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
    /// What the bank holds in custody, by id (11.8.3, 15.14.5.2); released items stay,
    /// as the payout orders do. Shared with the read model like the orders.
    #[serde(default)]
    pub custody: Arc<BTreeMap<String, Custody>>,
    #[serde(default)]
    pub(crate) next_custody: u64,
    /// The roulette series that 3.7.3 may still annul, by number (`Series`); copy on write, in
    /// runs and each series (`shared`: a batch copies the runs it changes, and only the series
    /// it changes; the whole map copied at the batch's first roulette command was a BTreeMap of
    /// hundreds of string keys: docs/benchmarks.md, issue 47 step 12).
    #[serde(default, skip_serializing_if = "SharedMap::is_empty")]
    pub series: SharedMap<String, Arc<Series>>,
    /// The journal was begun by a release that numbers the series (`Series`): false in a snapshot
    /// or statement of an earlier release, whose state has no series records (`verify` compares
    /// such a snapshot without them; recovery does not start from one, but replays from zero).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub series_numbered: bool,
    /// Changes and money movements proposed, by id (docs/operations.md §8); decided ones stay
    /// as the history. Shared with the read model like the orders.
    #[serde(default)]
    pub proposals: Arc<BTreeMap<String, Proposal>>,
    #[serde(default)]
    pub(crate) next_proposal: u64,
    /// How many journals came before this one in its chain (each closed into the next).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub generation: u32,
    /// The approved proposals waiting for their moment, oldest first.
    #[serde(default)]
    pub scheduled: Vec<String>,
    /// Every build that wrote to the journal, in order (genesis, then each different one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub builds: Vec<BuildRecord>,
    /// The tables a change retired, as the layout last had them (flor, salon, pool, game,
    /// seats): their reports and closing sheets stay (docs/operations.md §8). Absent in
    /// snapshots of earlier releases.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub retired_tables: BTreeMap<TableId, crate::config::TableConfig>,
    /// A change put a configuration other than the genesis one in force.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub configuration_changed: bool,
    /// The first jornada whose closing sheets the state keeps whole (`TableDay::entries` and the
    /// fields after it): "" when every jornada's, since the journal began under a release that
    /// keeps them; for a journal a release before them began, the jornada after the one its
    /// first entry under a release that keeps them fell in. `None` in such a release's snapshot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sheets_from: Option<String>,
    /// Each mystery level's cycle: its open draw (committed, sealed) and the contributions the
    /// reveal is checked against (`draw.rs`). Absent in snapshots of earlier releases.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mystery: Vec<crate::state::draw::Mystery>,
    /// The poker tournaments set up through the two-person door, by id (`tournament.rs`,
    /// Res. 123/2013). Absent in snapshots of earlier releases and of journals without one.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tournaments: BTreeMap<String, std::sync::Arc<crate::state::tournament::Tournament>>,
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
            generation: self.generation,
            time_ms,
            at: None,
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

/// A build as the journal recorded it: at which entry and when.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildRecord {
    pub sequence: u64,
    pub time_ms: u64,
    pub build: Build,
}

fn is_zero(value: &u32) -> bool {
    *value == 0
}

/// The key of a settled round's book: its ACEPTAR's entry in the journal of `generation`
/// (the first journal's keys are its entry numbers, as older releases kept them).
pub(crate) fn round_key(generation: u32, sequence: u64) -> u64 {
    (u64::from(generation) << 40) | sequence
}

impl PayoutOrder {
    /// The key of the book of the round it was marked in.
    pub(crate) fn round_key(&self) -> u64 {
        round_key(self.generation, self.journal_sequence)
    }
}
