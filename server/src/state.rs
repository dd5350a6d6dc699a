//! The controller's state machine: every table, pool, gold turn, payout order and
//! report meter, changed only by applying journaled commands in order.
//!
//! Deterministic and free of I/O: the time of an entry and the card drawn for a
//! premio instantáneo are inputs carried by the entry itself, so replaying the
//! journal gives the same state bit for bit. Every command is validated whole
//! before anything changes: a refused command changes nothing (the writer then
//! journals nothing), and a retried one is answered from the state.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use pozo_engine::money::Money;
use pozo_engine::settle::Winner;
use pozo_engine::{Contribution, Engine, EngineError, Game, Grillo, Pool, PoolState, PrizeValue, Rank, RoundBook};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::config::Config;

/// Credits may be sold only in these steps (12.5.3.3).
pub const CREDIT_STEPS: [u32; 4] = [1, 5, 10, 20];

/// The most credits one seat may hold: a bound, and what a busy night needs.
pub const SEAT_CREDITS_MAX: u32 = 500;

/// The last hits kept per pool (docs/architecture.md, "What a progressive controller keeps": the last 25).
pub const POOL_HITS_KEPT: usize = 25;

/// Jornadas kept in the reports before the oldest is dropped.
pub const JORNADAS_KEPT: usize = 62;

/// Prizes one round at one table may enter before ACEPTAR.
pub const PENDING_PRIZES_MAX: usize = 32;

/// The premio code of Central Póker's instant prize (15.11).
pub const INSTANT_PRIZE: &str = "PREMIO_INSTANTANEO";

// ----------------------------------------------------------------------------- commands

/// A card: the premio instantáneo (15.11.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Card {
    pub rank: String,
    pub suit: String,
}

impl Card {
    pub const RANKS: [&'static str; 13] = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
    pub const SUITS: [&'static str; 4] = ["corazones", "diamantes", "tréboles", "picas"];

    /// The card of index 0–51 in a fresh deck.
    pub fn from_index(index: u8) -> Card {
        let index = usize::from(index % 52);
        Card { rank: Card::RANKS[index % 13].to_owned(), suit: Card::SUITS[index / 13].to_owned() }
    }
}

/// What a table agent asks, with the article it follows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum TableOp {
    /// Apertura de Mesa (4.6).
    OpenTable,
    /// Cierre de Mesa (4.7.7, 12.8).
    CloseTable,
    /// Venta de créditos (12.5.3.3).
    SellCredits { seat: u32, credits: u32 },
    /// Pago de créditos (12.5.3.5).
    RefundCredits { seat: u32 },
    /// Pulsador or slot drop (4.4.2, 12.3.1, 15.1.2).
    Press { seat: u32 },
    /// INICIAR JUEGO (12.5.1.1, 16.4.2.1.6).
    StartRound,
    /// Seat + premio code (12.5.2.1).
    EnterPrize { seat: u32, code: String, high: Option<String> },
    /// ACEPTAR: the entered prizes are marked and their awards fixed (12.5.2.1 d, 3.5.1).
    Accept,
    /// FINALIZAR JUEGO: the round ends, the panels are enabled again (12.5.2.3).
    FinishRound,
    /// Anular: a bet handed back before it was played (4.3.2).
    VoidBet { seat: u32 },
    /// A burnt round before play: bets compete in the next hand, no new bets (11.8.1.1, 15.14.1.3).
    CarryBets,
    /// A box voided after play started: its side bet is refunded (11.8.1.2, 11.8.2).
    RefundBet { seat: u32 },
    /// Última bola / último pase (3.9, 11.10).
    LastRound,
    /// Ask to play a Grillo de Oro (4.3.4, 4.3.5).
    RequestGoldTurn,
}

/// A table command as journaled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableCommand {
    pub table_id: String,
    pub sequence: u64,
    /// SHA-256 of the signed payload bytes, hex: tells a retry from a reuse.
    pub payload_sha256: String,
    pub op: TableOp,
    /// A card drawn by the server's CSPRNG, used when the command puts a premio
    /// instantáneo in play (15.11.2); journaled so replay draws nothing.
    pub card: Option<Card>,
}

/// What the Venta-Pagos office decides.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum OfficeOp {
    Confirm { order_id: String, form_number: String, expect: OrderFacts },
    Reject { order_id: String, reason: String, expect: OrderFacts },
}

/// What the operator was shown of an order: a decision applies only to the order
/// that still has exactly these facts, never to another one with the same number.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderFacts {
    pub pool: String,
    pub table_id: String,
    pub seat: u32,
    pub round: u64,
    pub code: String,
    pub amount: Money,
}

impl OrderFacts {
    /// The first fact `shown` has other than this order's: (field, this, shown).
    fn difference(&self, shown: &OrderFacts) -> Option<(&'static str, String, String)> {
        [
            ("pool_id", self.pool.clone(), shown.pool.clone()),
            ("table_id", self.table_id.clone(), shown.table_id.clone()),
            ("seat", self.seat.to_string(), shown.seat.to_string()),
            ("round", self.round.to_string(), shown.round.to_string()),
            ("code", self.code.clone(), shown.code.clone()),
        ]
        .into_iter()
        .chain((self.amount != shown.amount).then(|| ("amount", self.amount.to_string(), shown.amount.to_string())))
        .find(|(_, is, shown)| is != shown)
    }
}

/// A Venta-Pagos decision, journaled with who took it: the operator is the holder of
/// the key that signed it (3.5.2), never a field the client fills in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OfficeCommand {
    pub key_id: String,
    /// The key holder's name, as the keys file said when the decision was taken.
    pub operator_name: String,
    pub op: OfficeOp,
}

/// Everything the journal records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Command {
    /// The first entry: the configuration the pools are kept under, whole, and the
    /// key set it started with (fingerprints, never secrets), and who started it.
    Genesis {
        config_hash: String,
        texts: Vec<(String, String)>,
        #[serde(default)]
        keys: Vec<KeyRecord>,
        #[serde(default)]
        by: String,
    },
    Table(TableCommand),
    Office(OfficeCommand),
    /// The key set changed at a restart (a key added, removed or rotated): who
    /// restarted the controller with it, and the new set. Layout and rulebooks never
    /// change on a live journal (docs/operations.md §8).
    Keys {
        keys: Vec<KeyRecord>,
        by: String,
    },
}

/// A key as the journal records it: its id, role, table and holder, and a
/// fingerprint of its secret (HMAC-SHA256 of a fixed text under it, 8 bytes hex),
/// never the secret itself.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct KeyRecord {
    pub id: String,
    pub role: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    pub name: String,
    pub fingerprint: String,
}

// ----------------------------------------------------------------------------- refusals

/// The kind of a refusal; the gRPC layer maps each to one status code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefusalKind {
    /// A field breaks a rule whatever the state (credits not 1/5/10/20, unknown code).
    InvalidArgument,
    /// Not allowed in the table's current state (press after INICIAR, a gap in sequence).
    FailedPrecondition,
    /// No such table or order.
    NotFound,
    /// A sequence already used by another command, or an older one.
    AlreadyExists,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Refusal {
    pub kind: RefusalKind,
    pub message: String,
}

fn invalid(message: impl Into<String>) -> Refusal {
    Refusal { kind: RefusalKind::InvalidArgument, message: message.into() }
}

fn precondition(message: impl Into<String>) -> Refusal {
    Refusal { kind: RefusalKind::FailedPrecondition, message: message.into() }
}

/// The one mapping of the engine's errors: a field that breaks a rule, a pool that is
/// not there, a pool whose record does not allow it now.
fn engine_refusal(error: EngineError) -> Refusal {
    let kind = match &error {
        EngineError::Invalid { .. } => RefusalKind::InvalidArgument,
        EngineError::UnknownPool { .. } => RefusalKind::NotFound,
        EngineError::NotNow { .. } => RefusalKind::FailedPrecondition,
    };
    Refusal { kind, message: error.to_string() }
}

// ----------------------------------------------------------------------------- state

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
    fn new() -> Seat {
        Seat { credits: 0, bet: Bet::None, bronze: 0, silver: 0, gold: 0 }
    }

    fn grillos(&self) -> u32 {
        self.bronze + self.silver + self.gold
    }
}

/// One prize entered and not yet accepted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrizeEntry {
    pub seat: u32,
    pub code: String,
    pub high: Option<String>,
}

/// One award, as fixed at ACEPTAR.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AwardRecord {
    pub seat: u32,
    pub code: String,
    pub unlimited: Money,
    pub award: Money,
    pub payout_order_id: Option<String>,
    pub grants: Option<(String, u32)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Table {
    pub id: String,
    pub pool: String,
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
    fn is_roulette(&self) -> bool {
        self.game.is_roulette()
    }

    fn plays_instant_prize(&self) -> bool {
        self.game.plays_instant_prize()
    }

    fn seat(&self, seat: u32) -> Result<&Seat, Refusal> {
        let count = self.seats.len();
        seat.checked_sub(1)
            .and_then(|index| self.seats.get(index as usize))
            .ok_or_else(|| invalid(format!("seat: {seat} is not a seat of table {} (1–{count})", self.id)))
    }

    fn seat_mut(&mut self, seat: u32) -> &mut Seat {
        &mut self.seats[(seat - 1) as usize]
    }

    fn require_open(&self) -> Result<(), Refusal> {
        if self.open { Ok(()) } else { Err(precondition(format!("table {} is closed: Apertura de Mesa first (4.6)", self.id))) }
    }
}

/// The gold turn of one roulette pool (4.3.4, 4.3.5).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoldTurn {
    pub holder: Option<String>,
    pub waiting: VecDeque<String>,
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
fn decided_by(order: &PayoutOrder, status: OrderStatus) -> String {
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
    fn decide(&mut self, status: OrderStatus, command: &OfficeCommand, sequence: u64, time_ms: u64) {
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
    pub table_id: String,
    pub seat: u32,
    pub code: String,
    pub amount: Money,
    pub time_ms: u64,
    pub journal_sequence: u64,
}

/// The last win of a pool, for the displays (docs/architecture.md: "after a hit, signs
/// show the winning table, the amount being paid and the new amount").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastWin {
    pub table_id: String,
    pub seat: u32,
    pub code: String,
    pub amount: Money,
    pub journal_sequence: u64,
}

/// Everything but the pools, as a snapshot keeps it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Data {
    pub journal_sequence: u64,
    pub tables: BTreeMap<String, Table>,
    pub gold_turns: BTreeMap<String, GoldTurn>,
    pub orders: BTreeMap<String, PayoutOrder>,
    pub next_order: u64,
    /// Jornada ("2026-11-22") → table → meters. Each jornada is shared (copy on write), so
    /// a snapshot's copy of the 62 jornadas kept costs a pointer each, not their meters.
    pub days: BTreeMap<String, Arc<BTreeMap<String, TableDay>>>,
    pub hits: BTreeMap<String, VecDeque<Hit>>,
    pub last_wins: BTreeMap<String, LastWin>,
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
    fn file_order(&mut self, facts: OrderFacts, journal_sequence: u64, time_ms: u64) -> String {
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
        self.orders.insert(order_id.clone(), order);
        order_id
    }
}

/// A snapshot: the state after `data.journal_sequence` entries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    pub config_hash: String,
    pub pools: BTreeMap<String, PoolState>,
    pub data: Data,
}

/// What a table command answers; kept per table so a retry gets the same answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableReply {
    pub table_id: String,
    pub sequence: u64,
    pub journal_sequence: u64,
    pub outcome: String,
    pub awards: Vec<AwardRecord>,
    pub view: TableView,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Light {
    Off,
    Blue,
    On,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatView {
    pub seat: u32,
    pub light: Light,
    pub credits: u32,
    pub bronze: u32,
    pub silver: u32,
    pub gold: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GoldTurnView {
    None,
    Waiting,
    Granted,
}

/// A table as its panels show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableView {
    pub table_id: String,
    pub pool_id: String,
    pub game: Game,
    pub state: String,
    pub round: u64,
    pub last_sequence: u64,
    pub last_round: bool,
    pub seats: Vec<SeatView>,
    pub pending_prizes: Vec<PrizeEntry>,
    pub instant_card: Option<Card>,
    pub gold_turn: GoldTurnView,
    pub displayed: Money,
}

/// What applying a command did.
#[derive(Clone, Debug)]
pub enum Applied {
    /// A new entry: the writer journals the command.
    Table(TableReply),
    Office(PayoutOrder),
    Genesis,
    /// A new key set, journaled.
    Keys,
    /// A retry of the last applied command: answered from the state, nothing journaled.
    Duplicate(TableReply),
    /// An office decision already taken, asked again: nothing journaled.
    OfficeDuplicate(PayoutOrder),
}

impl Applied {
    pub fn journals(&self) -> bool {
        matches!(self, Applied::Table(_) | Applied::Office(_) | Applied::Genesis | Applied::Keys)
    }
}

/// The whole controller state.
#[derive(Clone, Debug)]
pub struct State {
    config: Arc<Config>,
    /// Every pool of the rulebooks, kept by the engine.
    engine: Engine,
    data: Data,
}

impl State {
    /// A new controller: every pool at its minimum, every table closed.
    pub fn new(config: Arc<Config>) -> State {
        let engine = Engine::new(&config.rulebooks);
        let mut data = Data::default();
        for table in &config.layout.tables {
            let seats = (0..table.seats).map(|_| Seat::new()).collect();
            data.tables.insert(
                table.id.clone(),
                Table {
                    id: table.id.clone(),
                    pool: table.pool.clone(),
                    game: table.game,
                    open: false,
                    phase: Phase::Betting,
                    round: 1,
                    last_sequence: 0,
                    last_payload_sha256: String::new(),
                    last_reply: None,
                    last_round: false,
                    carried: false,
                    seats,
                    pending: Vec::new(),
                    accepted: Vec::new(),
                    instant_card: None,
                },
            );
        }
        State { config, engine, data }
    }

    /// The state a snapshot kept; its pools must balance and match the configuration.
    pub fn restore(config: Arc<Config>, snapshot: Snapshot) -> Result<State, String> {
        if snapshot.config_hash != config.hash {
            return Err(format!("snapshot taken under configuration {}, not {}", snapshot.config_hash, config.hash));
        }
        let engine = Engine::restore(&config.rulebooks, &snapshot.pools).map_err(|error| error.to_string())?;
        Ok(State { config, engine, data: snapshot.data })
    }

    pub fn snapshot(&self) -> Snapshot {
        Snapshot { config_hash: self.config.hash.clone(), pools: self.engine.states(), data: self.data.clone() }
    }

    pub fn config(&self) -> &Arc<Config> {
        &self.config
    }

    pub fn journal_sequence(&self) -> u64 {
        self.data.journal_sequence
    }

    /// Every pool, by id.
    pub fn pools(&self) -> impl Iterator<Item = &Pool> {
        self.engine.pools()
    }

    /// A pool of the configuration (tables only name configured pools).
    pub fn pool(&self, id: &str) -> &Pool {
        self.engine.pool(id).expect("the layout names only configured pools")
    }

    pub fn data(&self) -> &Data {
        &self.data
    }

    pub fn table(&self, id: &str) -> Option<&Table> {
        self.data.tables.get(id)
    }

    /// How far every pool is from conservation; all zero when the books balance.
    pub fn conservation(&self) -> Vec<(String, Money)> {
        self.engine.conservation()
    }

    /// Applies one command as journal entry `sequence` at `time_ms`.
    pub fn apply(&mut self, sequence: u64, time_ms: u64, command: &Command) -> Result<Applied, Refusal> {
        let applied = match command {
            Command::Genesis { config_hash, keys, .. } => {
                if sequence != 1 || *config_hash != self.config.hash {
                    return Err(precondition("a genesis entry comes first and matches the configuration"));
                }
                self.data.keys = keys.clone();
                Applied::Genesis
            }
            Command::Table(command) => self.apply_table(sequence, time_ms, command)?,
            Command::Office(command) => self.apply_office(sequence, time_ms, command)?,
            Command::Keys { keys, .. } => {
                if *keys == self.data.keys {
                    return Err(precondition("keys: the same key set as the journal's: nothing changed"));
                }
                self.data.keys = keys.clone();
                Applied::Keys
            }
        };
        if applied.journals() {
            debug_assert_eq!(sequence, self.data.journal_sequence + 1, "entries apply in order");
            self.data.journal_sequence = sequence;
        }
        Ok(applied)
    }

    // ------------------------------------------------------------------------- tables

    fn apply_table(&mut self, sequence: u64, time_ms: u64, command: &TableCommand) -> Result<Applied, Refusal> {
        let table = self.data.tables.get(&command.table_id).ok_or_else(|| Refusal {
            kind: RefusalKind::NotFound,
            message: format!("table_id: no table `{}` in the layout", command.table_id),
        })?;
        // Exactly once: the last applied command may be retried; anything else must be next.
        let expected = table.last_sequence + 1;
        if command.sequence == table.last_sequence && command.sequence > 0 {
            if command.payload_sha256 == table.last_payload_sha256 {
                let reply = table.last_reply.clone().expect("an applied command left its reply");
                return Ok(Applied::Duplicate(reply));
            }
            return Err(Refusal {
                kind: RefusalKind::AlreadyExists,
                message: format!(
                    "sequence: {} was already used by another command of table {}; the next is {expected}",
                    command.sequence, table.id
                ),
            });
        }
        if command.sequence < table.last_sequence {
            return Err(Refusal {
                kind: RefusalKind::AlreadyExists,
                message: format!(
                    "sequence: {} is older than the last applied, {}; the next is {expected}",
                    command.sequence, table.last_sequence
                ),
            });
        }
        if command.sequence != expected {
            return Err(precondition(format!(
                "sequence: {} skips ahead; table {} expects {expected} (no command may be lost)",
                command.sequence, table.id
            )));
        }
        let (outcome, awards) = self.table_op(sequence, time_ms, &command.table_id, &command.op, command.card.as_ref())?;
        let table = self.data.tables.get_mut(&command.table_id).expect("the table exists");
        table.last_sequence = command.sequence;
        table.last_payload_sha256 = command.payload_sha256.clone();
        // The view the reply carries is the table as this command left it.
        let view = self.table_view(&command.table_id).expect("the table exists");
        let reply = TableReply {
            table_id: command.table_id.clone(),
            sequence: command.sequence,
            journal_sequence: sequence,
            outcome,
            awards,
            view,
        };
        self.table_mut(&command.table_id).last_reply = Some(reply.clone());
        Ok(Applied::Table(reply))
    }

    /// Validates and applies one table operation. Every check comes before the
    /// first change.
    fn table_op(
        &mut self,
        sequence: u64,
        time_ms: u64,
        table_id: &str,
        op: &TableOp,
        card: Option<&Card>,
    ) -> Result<(String, Vec<AwardRecord>), Refusal> {
        let table = self.data.tables.get(table_id).expect("checked by the caller");
        let pool = self.pool(&table.pool);
        let side_bet = pool.rules().side_bet;
        let day = jornada_and_hour(&self.config, time_ms);
        match op {
            TableOp::OpenTable => {
                if table.open {
                    return Err(precondition(format!("table {table_id} is already open")));
                }
                // 4.6: opening clears any bet left loaded on the buttons.
                let table = self.table_mut(table_id);
                table.open = true;
                table.phase = Phase::Betting;
                table.carried = false;
                table.last_round = false;
                for seat in &mut table.seats {
                    seat.bet = Bet::None;
                }
                Ok((format!("Apertura de Mesa {table_id}"), Vec::new()))
            }
            TableOp::CloseTable => {
                table.require_open()?;
                if table.phase != Phase::Betting {
                    return Err(precondition(format!("table {table_id}: FINALIZAR JUEGO before Cierre de Mesa (4.7.7)")));
                }
                if let Some((index, seat)) = table.seats.iter().enumerate().find(|(_, seat)| seat.credits > 0) {
                    return Err(precondition(format!(
                        "seat {}: {} credits not returned; pay them back before Cierre de Mesa (12.8.1)",
                        index + 1,
                        seat.credits
                    )));
                }
                // Card tables: a bet pressed and not played is voided first (4.3.2). Roulette: a
                // sale not yet played is returned at the close (3.7.9, below).
                let roulette = table.is_roulette();
                if let Some(index) = table.seats.iter().position(|seat| seat.bet != Bet::None && !roulette) {
                    return Err(precondition(format!(
                        "seat {}: a bet is loaded; void it or play the round before Cierre de Mesa (4.7.7)",
                        index + 1
                    )));
                }
                if self
                    .data
                    .gold_turns
                    .get(&table.pool)
                    .is_some_and(|turn| turn.holder.as_deref() == Some(table_id) || turn.waiting.iter().any(|id| id == table_id))
                {
                    return Err(precondition(format!(
                        "table {table_id} holds or awaits the gold turn; play the gold first (4.3.5, 3.9.2)"
                    )));
                }
                // 4.7.5: "se asentará, bajo la sigla FP – Fichas Poceado – la cantidad de Grillos
                // existentes al cierre de mesa": every grillo still held is counted. Of them
                // (docs/readings.md, "Grillos at Cierre de Mesa"):
                // - three bronzes sold and never played are the player's bet, returned (3.7.9:
                //   "En caso que el Apostador decidiera no jugar los tres Grillos de Bronce le
                //   será devuelta su apuesta"): the contribution comes out, the money goes back;
                // - the grillos of a series already played in (silver, gold, bronzes kept under
                //   3.7.10) end with the table: their bet was played and stays in the pool.
                let fichas: u32 = table.seats.iter().map(Seat::grillos).sum();
                let unplayed: Vec<(u32, Contribution, u64)> = table
                    .seats
                    .iter()
                    .enumerate()
                    .filter_map(|(index, seat)| match seat.bet {
                        Bet::Registered { contribution, registered_ms } => Some((index as u32 + 1, contribution, registered_ms)),
                        _ => None,
                    })
                    .collect();
                let pool_id = table.pool.clone();
                // Every reversal is tried on a copy first: the close changes nothing or all.
                let mut trial = self.pool(&pool_id).clone();
                for (_, contribution, _) in &unplayed {
                    trial.reverse_bet(*contribution).map_err(engine_refusal)?;
                }
                for (seat, contribution, registered_ms) in &unplayed {
                    self.reverse_seat_bet(*registered_ms, &pool_id, table_id, *seat, *contribution)?;
                    // The credit the sale took is paid back with the rest (12.5.3.5).
                    self.table_mut(table_id).seat_mut(*seat).credits = 0;
                    self.book_credits_returned(&day.0, table_id, 1, side_bet);
                }
                let returned = unplayed.len();
                let table = self.table_mut(table_id);
                table.open = false;
                for seat in &mut table.seats {
                    seat.bet = Bet::None;
                    seat.bronze = 0;
                    seat.silver = 0;
                    seat.gold = 0;
                }
                self.day_mut(&day.0, table_id).fp += fichas;
                let detail = if returned == 1 {
                    " (1 venta de Grillos de Bronce no jugada, apuesta devuelta, 3.7.9)".to_owned()
                } else if returned > 1 {
                    format!(" ({returned} ventas de Grillos de Bronce no jugadas, apuestas devueltas, 3.7.9)")
                } else {
                    String::new()
                };
                Ok((format!("Cierre de Mesa {table_id}: FP {fichas}{detail}"), Vec::new()))
            }
            TableOp::SellCredits { seat, credits } => {
                table.require_open()?;
                let current = table.seat(*seat)?.credits;
                if !CREDIT_STEPS.contains(credits) {
                    return Err(invalid(format!("credits: {credits} is not one of 1, 5, 10, 20 (12.5.3.3)")));
                }
                if table.phase != Phase::Betting {
                    return Err(precondition("credits are sold only while the round is not started (12.5.3.2)"));
                }
                if table.last_round {
                    return Err(precondition("last round announced: no more credits are sold (3.9.1, 11.10.1)"));
                }
                if current + credits > SEAT_CREDITS_MAX {
                    return Err(invalid(format!("credits: seat {seat} would hold more than {SEAT_CREDITS_MAX}")));
                }
                self.table_mut(table_id).seat_mut(*seat).credits += credits;
                let meters = self.day_mut(&day.0, table_id);
                meters.credits_sold += u64::from(*credits);
                meters.credits_sold_amount += side_bet * Decimal::from(*credits);
                Ok((format!("Venta de créditos: posición {seat}, {credits} créditos"), Vec::new()))
            }
            TableOp::RefundCredits { seat } => {
                table.require_open()?;
                let current = table.seat(*seat)?;
                let credits = current.credits;
                if current.bet != Bet::None {
                    return Err(precondition(format!(
                        "seat {seat}: its button is lit (a bet this round); pago de créditos needs it off (12.5.3.5.2)"
                    )));
                }
                if credits == 0 {
                    return Err(precondition(format!("seat {seat} has no credits to pay back (12.5.3.5)")));
                }
                self.table_mut(table_id).seat_mut(*seat).credits = 0;
                self.book_credits_returned(&day.0, table_id, credits, side_bet);
                Ok((format!("Pago de créditos: posición {seat}, {credits} créditos"), Vec::new()))
            }
            TableOp::Press { seat } => self.press(time_ms, table_id, *seat),
            TableOp::StartRound => self.start_round(time_ms, table_id, card),
            TableOp::EnterPrize { seat, code, high } => {
                self.enter_prize(sequence, time_ms, table_id, *seat, code, high.as_deref())
            }
            TableOp::Accept => self.accept(sequence, time_ms, table_id),
            TableOp::FinishRound => self.finish_round(table_id),
            TableOp::VoidBet { seat } => self.void_bet(table_id, *seat),
            TableOp::CarryBets => {
                table.require_open()?;
                if table.phase != Phase::Playing || !table.pending.is_empty() || !table.accepted.is_empty() {
                    return Err(precondition("a round is burnt only after INICIAR JUEGO and before any prize (11.8.1.1)"));
                }
                if table.is_roulette() {
                    return Err(precondition("roulette bets are not carried: a ball is never burnt (11.8.1.1 is Black Jack)"));
                }
                let table = self.table_mut(table_id);
                table.phase = Phase::Betting;
                table.carried = true;
                table.round += 1;
                Ok(("Talla quemada: las apuestas compiten en la próxima mano (11.8.1.1)".to_owned(), Vec::new()))
            }
            TableOp::RefundBet { seat } => self.refund_bet(table_id, *seat),
            TableOp::LastRound => {
                table.require_open()?;
                if table.last_round {
                    return Err(precondition("the last round is already announced"));
                }
                let refunds: Vec<(usize, u32)> = if table.is_roulette() {
                    Vec::new()
                } else {
                    // 11.10.1: "debiendo reintegrar a los Apostadores los créditos a su favor".
                    table.seats.iter().enumerate().filter(|(_, seat)| seat.credits > 0).map(|(i, s)| (i, s.credits)).collect()
                };
                let table = self.table_mut(table_id);
                table.last_round = true;
                for (index, _) in &refunds {
                    table.seats[*index].credits = 0;
                }
                let returned: u32 = refunds.iter().map(|(_, credits)| credits).sum();
                if returned > 0 {
                    self.book_credits_returned(&day.0, table_id, returned, side_bet);
                }
                Ok((format!("Última bola / último pase anunciado: {returned} créditos reintegrados (3.9, 11.10)"), Vec::new()))
            }
            TableOp::RequestGoldTurn => {
                table.require_open()?;
                if !table.is_roulette() {
                    return Err(precondition("the gold turn is for roulette grillos (4.3.4)"));
                }
                if !table.seats.iter().any(|seat| seat.gold > 0) {
                    return Err(precondition(format!(
                        "no seat of table {table_id} holds a Grillo de Oro; a gold is won with a silver (3.1.3)"
                    )));
                }
                let pool = table.pool.clone();
                let turn = self.data.gold_turns.entry(pool.clone()).or_default();
                if turn.holder.as_deref() == Some(table_id) || turn.waiting.iter().any(|id| id == table_id) {
                    return Err(precondition(format!("table {table_id} already holds or awaits the gold turn")));
                }
                if turn.holder.is_none() {
                    turn.holder = Some(table_id.to_owned());
                    Ok((format!("Se juega Grillo de Oro en la mesa {table_id} (4.3.5)"), Vec::new()))
                } else {
                    let holder = turn.holder.clone().unwrap_or_default();
                    turn.waiting.push_back(table_id.to_owned());
                    Ok((
                        format!("Se juega Grillo de Oro en la mesa {holder}: la mesa {table_id} espera su turno (4.3.5)"),
                        Vec::new(),
                    ))
                }
            }
        }
    }

    fn press(&mut self, time_ms: u64, table_id: &str, seat_number: u32) -> Result<(String, Vec<AwardRecord>), Refusal> {
        let table = &self.data.tables[table_id];
        table.require_open()?;
        let seat = table.seat(seat_number)?;
        if table.phase != Phase::Betting {
            return Err(precondition(format!(
                "seat {seat_number}: betting is closed after INICIAR JUEGO; no side bet until FINALIZAR JUEGO (12.5.1.1)"
            )));
        }
        if table.carried {
            return Err(precondition("the bets of the burnt round compete in this hand: no new bets (11.8.1.1)"));
        }
        if seat.credits == 0 {
            return Err(precondition(format!("seat {seat_number} has no credits: sell credits first (12.5.3.4)")));
        }
        if table.is_roulette() {
            if table.last_round {
                return Err(precondition("last ball announced: Grillos de Bronce are no longer sold (3.9.1)"));
            }
            if seat.grillos() > 0 || seat.bet != Bet::None {
                return Err(precondition(format!(
                    "seat {seat_number} holds {} bronze, {} silver, {} gold: a new series would put more than 3 bronze / 2 silver / 1 gold in play (3.7.3)",
                    seat.bronze, seat.silver, seat.gold
                )));
            }
        } else if seat.bet != Bet::None {
            return Err(precondition(format!("seat {seat_number} already has its side bet this round (11.4: one per box)")));
        }
        let roulette = table.is_roulette();
        let pool_id = table.pool.clone();
        let day = jornada_and_hour(&self.config, time_ms);
        if roulette {
            // 4.4.2: roulette bets are registered at the press: the sale of 3 Grillos de Bronce (3.1.3).
            let bet = self.pool(&pool_id).rules().side_bet;
            let contribution = self.engine.register_bet(&pool_id, bet).map_err(engine_refusal)?;
            let seat = self.table_mut(table_id).seat_mut(seat_number);
            seat.credits -= 1;
            seat.bet = Bet::Registered { contribution, registered_ms: time_ms };
            seat.bronze = 3;
            self.book_ipa(&day, table_id, contribution.bet, 1);
        } else {
            let seat = self.table_mut(table_id).seat_mut(seat_number);
            seat.credits -= 1;
            seat.bet = Bet::Pressed;
        }
        self.day_mut(&day.0, table_id).presses += 1;
        Ok((format!("Apuesta a pozo registrada: posición {seat_number}"), Vec::new()))
    }

    fn start_round(&mut self, time_ms: u64, table_id: &str, card: Option<&Card>) -> Result<(String, Vec<AwardRecord>), Refusal> {
        let table = &self.data.tables[table_id];
        table.require_open()?;
        if table.phase != Phase::Betting {
            return Err(precondition("INICIAR JUEGO: the round is already started; FINALIZAR JUEGO first (12.5.2.3)"));
        }
        if table.is_roulette() && table.seats.iter().any(|seat| seat.gold > 0) {
            let turn = self.data.gold_turns.get(&table.pool);
            if turn.and_then(|turn| turn.holder.as_deref()) != Some(table_id) {
                let holder = turn.and_then(|turn| turn.holder.clone());
                return Err(precondition(match holder {
                    Some(holder) => {
                        format!("Se juega Grillo de Oro en la mesa {holder}: table {table_id} waits for its gold turn (4.3.5)")
                    }
                    None => format!("table {table_id} holds a Grillo de Oro: request the gold turn first (4.3.5)"),
                }));
            }
        }
        // 15.11.2: the card "en forma aleatoria y sorpresiva aparece en el monitor": the
        // server decides, with the rulebook's chance, whether one appears in this round
        // and which (docs/readings.md, "When the instant card appears"); one in play
        // stays until won (15.11.4).
        let draw_card = table.plays_instant_prize() && table.instant_card.is_none() && card.is_some();
        let pool_id = table.pool.clone();
        let pressed: Vec<u32> = table
            .seats
            .iter()
            .enumerate()
            .filter(|(_, seat)| seat.bet == Bet::Pressed)
            .map(|(index, _)| index as u32 + 1)
            .collect();
        let day = jornada_and_hour(&self.config, time_ms);
        // 12.5.1.1: INICIAR JUEGO registers the bets pressed so far; 16.4.2.1.6 drops the chips.
        let bet = self.pool(&pool_id).rules().side_bet;
        for seat in &pressed {
            let contribution = self.engine.register_bet(&pool_id, bet).map_err(engine_refusal)?;
            self.table_mut(table_id).seat_mut(*seat).bet = Bet::Registered { contribution, registered_ms: time_ms };
            self.book_ipa(&day, table_id, contribution.bet, 1);
        }
        let table = self.table_mut(table_id);
        table.phase = Phase::Playing;
        table.carried = false;
        if draw_card {
            table.instant_card = card.cloned();
        }
        let card_text = if draw_card {
            card.map(|card| format!("; premio instantáneo en juego: {} de {}", card.rank, card.suit)).unwrap_or_default()
        } else {
            String::new()
        };
        Ok((format!("INICIAR JUEGO: {} apuestas registradas{card_text}", pressed.len()), Vec::new()))
    }

    fn enter_prize(
        &mut self,
        sequence: u64,
        time_ms: u64,
        table_id: &str,
        seat_number: u32,
        code: &str,
        high: Option<&str>,
    ) -> Result<(String, Vec<AwardRecord>), Refusal> {
        let table = &self.data.tables[table_id];
        table.require_open()?;
        let seat = table.seat(seat_number)?;
        if table.phase != Phase::Playing {
            return Err(precondition("prizes are entered after INICIAR JUEGO and before ACEPTAR (12.5.2.1)"));
        }
        let pool = self.pool(&table.pool);
        let Some(prize) = pool.rules().prize(code) else {
            let codes: Vec<&str> = pool.rules().prizes.iter().map(|prize| prize.code.as_str()).collect();
            return Err(invalid(format!(
                "code: `{code}` is not in the paytable of pool `{}` ({})",
                table.pool,
                codes.join(", ")
            )));
        };
        if table.pending.len() >= PENDING_PRIZES_MAX {
            return Err(precondition(format!("prizes: at most {PENDING_PRIZES_MAX} in one round; ACEPTAR those entered first")));
        }
        if table.is_roulette() {
            // 3.1.3, 3.7.3: a grillo wins only if the seat holds one of that metal.
            let grillo = Grillo::of_code(code);
            let (held, metal) = match grillo {
                Some(Grillo::Bronce) => (seat.bronze, Grillo::Bronce.name()),
                Some(Grillo::Plata) => (seat.silver, Grillo::Plata.name()),
                Some(Grillo::Oro) => (seat.gold, Grillo::Oro.name()),
                None => (0, "grillo"),
            };
            if held == 0 {
                let rule = if grillo == Some(Grillo::Oro) { "a gold is won with a silver (3.1.3)" } else { "3.1.3" };
                return Err(precondition(format!("seat {seat_number} holds no {metal} in this ball: {rule}")));
            }
            if grillo == Some(Grillo::Oro) {
                let holder = self.data.gold_turns.get(&table.pool).and_then(|turn| turn.holder.as_deref());
                if holder != Some(table_id) {
                    return Err(precondition("the gold is played only in the table's gold turn (4.3.5)"));
                }
            }
        } else if !matches!(seat.bet, Bet::Registered { .. }) {
            return Err(precondition(format!("seat {seat_number} has no side bet registered in this round (11.11.5)")));
        }
        if code == INSTANT_PRIZE && table.instant_card.is_none() {
            return Err(precondition("no premio instantáneo is in play at this table (15.11)"));
        }
        if code == INSTANT_PRIZE {
            // 16.4.2.5.1: "Identificado el naipe correspondiente al PREMIO INSTANTÁNEO,
            // procederá a su pago en forma inmediata": its own event, settled alone, before
            // the hand and never prorated with the round's prizes (15.9).
            let entry = PrizeEntry { seat: seat_number, code: code.to_owned(), high: None };
            let winners = winners_of(table, std::slice::from_ref(&entry), pool.rules().side_bet)?;
            let pool_id = table.pool.clone();
            let round = table.round;
            let settlement = self.engine.settle_round(&pool_id, &winners).map_err(engine_refusal)?;
            let awards = self.book_settlement(sequence, time_ms, table_id, round, &settlement);
            let table = self.table_mut(table_id);
            // 15.11.4: won, the card leaves the monitor; another may appear in a later round.
            table.instant_card = None;
            table.accepted.extend(awards.iter().cloned());
            let paid = pozo_engine::format_ars(settlement.total_paid());
            return Ok((format!("Premio instantáneo pagado: posición {seat_number}, {paid} (16.4.2.5.1)"), awards));
        }
        let entry = PrizeEntry { seat: seat_number, code: code.to_owned(), high: high.map(str::to_owned) };
        // The engine checks the whole round as it will be accepted: the paytable, the
        // bet a ×bet prize needs, a combination marked twice, the rank of 6.4.
        let mut entries = table.pending.clone();
        entries.push(entry.clone());
        let winners = winners_of(table, &entries, pool.rules().side_bet)?;
        pool.preview_round(&winners).map_err(engine_refusal)?;
        let name = prize.name.clone();
        self.table_mut(table_id).pending.push(entry);
        Ok((format!("Premio ingresado: posición {seat_number}, {name}"), Vec::new()))
    }

    fn accept(&mut self, sequence: u64, time_ms: u64, table_id: &str) -> Result<(String, Vec<AwardRecord>), Refusal> {
        let table = &self.data.tables[table_id];
        table.require_open()?;
        if table.phase != Phase::Playing {
            return Err(precondition("ACEPTAR validates prizes entered after INICIAR JUEGO (12.5.2.1)"));
        }
        if table.pending.is_empty() {
            return Err(precondition("ACEPTAR: no prize entered (seat + winning combination first, 12.5.2.1)"));
        }
        let pool_id = table.pool.clone();
        let round = table.round;
        let winners = winners_of(table, &table.pending, self.pool(&pool_id).rules().side_bet)?;
        // 3.5.1: the award is fixed now, from what the display shows now.
        let settlement = self.engine.settle_round(&pool_id, &winners).map_err(engine_refusal)?;
        let awards = self.book_settlement(sequence, time_ms, table_id, round, &settlement);
        let total = settlement.total_paid();
        let table = self.table_mut(table_id);
        table.pending.clear();
        table.accepted.extend(awards.iter().cloned());
        table.phase = Phase::Accepted;
        let factor = settlement.factor.map(|factor| format!(" (FACTOR {})", factor.round_dp(6))).unwrap_or_default();
        Ok((format!("ACEPTAR: {} premios, {} a pagar{factor}", awards.len(), pozo_engine::format_ars(total)), awards))
    }

    /// Books a settlement: payout orders for Venta-Pagos, the round kept while an
    /// order is pending, PPPA of the jornada and hour, the pool's last hits and the
    /// cartel's last win. Returns the awards as the reply carries them.
    fn book_settlement(
        &mut self,
        sequence: u64,
        time_ms: u64,
        table_id: &str,
        round: u64,
        settlement: &pozo_engine::Settlement,
    ) -> Vec<AwardRecord> {
        let pool_id = settlement.pool.clone();
        // The engine field alone: the payout orders below go into `self.data`.
        let rules = self.engine.pool(&pool_id).expect("settled just above").rules();
        let threshold = rules.venta_pagos_over;
        let mut awards = Vec::with_capacity(settlement.awards.len());
        for award in &settlement.awards {
            let percent = rules.prize(&award.code).is_some_and(|prize| matches!(prize.value, PrizeValue::Percent { .. }));
            // 3.5.2, 11.6.1.2, 15.8.2: percentages and awards over the rulebook's threshold go to
            // Venta-Pagos (docs/readings.md, "The Venta-Pagos threshold").
            let order_id = (award.award > Money::ZERO && (percent || award.award > threshold)).then(|| {
                let facts = OrderFacts {
                    pool: pool_id.clone(),
                    table_id: table_id.to_owned(),
                    seat: award.seat,
                    round,
                    code: award.code.clone(),
                    amount: award.award,
                };
                self.data.file_order(facts, sequence, time_ms)
            });
            awards.push(AwardRecord {
                seat: award.seat,
                code: award.code.clone(),
                unlimited: award.unlimited,
                award: award.award,
                payout_order_id: order_id,
                grants: award.grants.as_ref().map(|grant| (grant.code.clone(), grant.count)),
            });
        }
        if awards.iter().any(|award| award.payout_order_id.is_some()) {
            // Kept while an order of the round is pending: a rejection re-settles from it.
            self.data.rounds.insert(sequence, settlement.book.clone());
        }
        let day = jornada_and_hour(&self.config, time_ms);
        let total = settlement.total_paid();
        {
            let meters = self.day_mut(&day.0, table_id);
            meters.pppa += total;
            meters.hours.entry(day.1).or_default().1 += total;
        }
        let hits = self.data.hits.entry(pool_id.clone()).or_default();
        // The last hits are prizes that paid money: a bronze exchanged for silver is not one.
        for award in awards.iter().filter(|award| award.award > Money::ZERO) {
            hits.push_front(Hit {
                table_id: table_id.to_owned(),
                seat: award.seat,
                code: award.code.clone(),
                amount: award.award,
                time_ms,
                journal_sequence: sequence,
            });
        }
        hits.truncate(POOL_HITS_KEPT);
        // The cartel shows a win that pays money; a bronze exchanged for silver pays none.
        if let Some(top) = awards.iter().filter(|_| total > Money::ZERO).max_by_key(|award| award.award) {
            self.data.last_wins.insert(
                pool_id.clone(),
                LastWin {
                    table_id: table_id.to_owned(),
                    seat: top.seat,
                    code: top.code.clone(),
                    amount: total,
                    journal_sequence: sequence,
                },
            );
        }
        awards
    }

    fn finish_round(&mut self, table_id: &str) -> Result<(String, Vec<AwardRecord>), Refusal> {
        let table = &self.data.tables[table_id];
        table.require_open()?;
        if table.phase == Phase::Betting {
            return Err(precondition("FINALIZAR JUEGO ends a round started with INICIAR JUEGO (12.5.2.3)"));
        }
        if !table.pending.is_empty() {
            return Err(precondition("prizes entered and not accepted: ACEPTAR first (12.5.2.1)"));
        }
        let roulette = table.is_roulette();
        let pool_id = table.pool.clone();
        let played_gold = table.seats.iter().any(|seat| seat.gold > 0);
        // 3.1.3: a bronze hit grants silvers, a silver hit a gold (the rulebook's counts).
        let bronze_grant = self.grant_count(&pool_id, Grillo::Bronce, 2);
        let silver_grant = self.grant_count(&pool_id, Grillo::Plata, 1);
        let table = self.table_mut(table_id);
        let hits: Vec<(u32, String)> = table.accepted.iter().map(|award| (award.seat, award.code.clone())).collect();
        for (index, seat) in table.seats.iter_mut().enumerate() {
            seat.bet = Bet::None;
            if roulette {
                let hit = |grillo: Grillo| {
                    hits.iter().any(|(hit_seat, hit_code)| *hit_seat == index as u32 + 1 && hit_code == grillo.code())
                };
                // 3.1.3: every grillo held was played in this ball; a hit exchanges it for the next metal.
                let (bronze, silver, gold) = if hit(Grillo::Bronce) {
                    (0, bronze_grant, 0)
                } else if hit(Grillo::Plata) {
                    (0, 0, silver_grant)
                } else {
                    (0, 0, 0)
                };
                seat.bronze = bronze;
                seat.silver = silver;
                seat.gold = gold;
            }
        }
        table.pending.clear();
        table.accepted.clear();
        table.phase = Phase::Betting;
        table.round += 1;
        let mut outcome = format!("FINALIZAR JUEGO: ronda {} terminada, paneles habilitados", table.round - 1);
        if roulette && played_gold {
            // 4.3.5: the gold is played; the next table waiting for its turn plays now.
            if let Some(turn) = self.data.gold_turns.get_mut(&pool_id)
                && turn.holder.as_deref() == Some(table_id)
            {
                turn.holder = turn.waiting.pop_front();
                if let Some(next) = &turn.holder {
                    outcome.push_str(&format!("; se juega Grillo de Oro en la mesa {next}"));
                }
            }
        }
        Ok((outcome, Vec::new()))
    }

    fn grant_count(&self, pool_id: &str, grillo: Grillo, default: u32) -> u32 {
        self.pool(pool_id)
            .rules()
            .prize(grillo.code())
            .and_then(|prize| prize.grants.as_ref())
            .map(|grant| grant.count)
            .unwrap_or(default)
    }

    fn void_bet(&mut self, table_id: &str, seat_number: u32) -> Result<(String, Vec<AwardRecord>), Refusal> {
        let table = &self.data.tables[table_id];
        table.require_open()?;
        let seat = table.seat(seat_number)?;
        if table.phase != Phase::Betting {
            return Err(precondition(
                "a bet is voided before it is played: after INICIAR JUEGO refund the box instead (4.3.2, 11.8.1.2)",
            ));
        }
        let pool_id = table.pool.clone();
        match seat.bet {
            Bet::None => Err(precondition(format!("seat {seat_number} has no bet to void (4.3.2)"))),
            Bet::Pressed => {
                let seat = self.table_mut(table_id).seat_mut(seat_number);
                seat.bet = Bet::None;
                seat.credits += 1;
                Ok((format!("Anulada: posición {seat_number}, crédito devuelto (4.3.2)"), Vec::new()))
            }
            Bet::Registered { contribution, registered_ms } => {
                // 4.3.2: the bet handed back takes its contribution out of the pool.
                self.reverse_seat_bet(registered_ms, &pool_id, table_id, seat_number, contribution)?;
                Ok((format!("Anulada: posición {seat_number}, aporte revertido, crédito devuelto (4.3.2)"), Vec::new()))
            }
        }
    }

    fn refund_bet(&mut self, table_id: &str, seat_number: u32) -> Result<(String, Vec<AwardRecord>), Refusal> {
        let table = &self.data.tables[table_id];
        table.require_open()?;
        let seat = table.seat(seat_number)?;
        if table.phase != Phase::Playing {
            return Err(precondition("a box is voided and its side bet refunded after INICIAR JUEGO (11.8.1.2)"));
        }
        // A prize entered, or one already paid in this round (the premio instantáneo,
        // 16.4.2.5.1): a winning box is not voided.
        if table.pending.iter().any(|entry| entry.seat == seat_number)
            || table.accepted.iter().any(|award| award.seat == seat_number)
        {
            return Err(precondition(format!("seat {seat_number} has a prize entered; a winning box is not voided")));
        }
        let Bet::Registered { contribution, registered_ms } = seat.bet else {
            return Err(precondition(format!("seat {seat_number} has no side bet registered to refund (11.8.1.2)")));
        };
        let pool_id = table.pool.clone();
        self.reverse_seat_bet(registered_ms, &pool_id, table_id, seat_number, contribution)?;
        Ok((format!("Casillero anulado: posición {seat_number}, apuesta reintegrada (11.8.1.2)"), Vec::new()))
    }

    /// Takes a registered bet's contribution out of its pool and gives the seat its
    /// credit back (4.3.2, 11.8.1.2). The engine refuses before anything changes.
    fn reverse_seat_bet(
        &mut self,
        registered_ms: u64,
        pool_id: &str,
        table_id: &str,
        seat_number: u32,
        contribution: Contribution,
    ) -> Result<(), Refusal> {
        self.engine.reverse_bet(pool_id, contribution).map_err(engine_refusal)?;
        let seat = self.table_mut(table_id).seat_mut(seat_number);
        seat.bet = Bet::None;
        seat.credits += 1;
        seat.bronze = 0;
        // Off the IPA of the jornada and hour the bet was registered in (Forms 4104,
        // 4109 and 4218 close per jornada); one already dropped is not recreated.
        let day = jornada_and_hour(&self.config, registered_ms);
        if self.data.days.contains_key(&day.0) {
            self.book_ipa(&day, table_id, -contribution.bet, -1);
        }
        Ok(())
    }

    // ------------------------------------------------------------------------- Venta-Pagos

    fn apply_office(&mut self, sequence: u64, time_ms: u64, command: &OfficeCommand) -> Result<Applied, Refusal> {
        let (order_id, expect) = match &command.op {
            OfficeOp::Confirm { order_id, expect, .. } | OfficeOp::Reject { order_id, expect, .. } => (order_id, expect),
        };
        let order = self
            .data
            .orders
            .get(order_id)
            .ok_or_else(|| Refusal { kind: RefusalKind::NotFound, message: format!("order_id: no payout order `{order_id}`") })?;
        // A decision names the order by what it is, not only by its number: a number
        // from another journal, or a stale screen, never decides another order.
        if let Some((field, is, shown)) = order.facts.difference(expect) {
            return Err(precondition(format!(
                "expect.{field}: order {order_id} has {field} `{is}`, not `{shown}` as shown: it is not the order you were shown; list the orders again"
            )));
        }
        match &command.op {
            OfficeOp::Confirm { form_number, .. } => {
                if form_number.trim().is_empty() || form_number.len() > 64 {
                    return Err(invalid("form_number: required, 1–64 characters (3.5.2: the form is issued)"));
                }
                match order.status {
                    OrderStatus::Confirmed if order.operator_id == command.key_id && order.form_number == *form_number => {
                        Ok(Applied::OfficeDuplicate(order.clone()))
                    }
                    OrderStatus::Pending => {
                        let order = self.data.orders.get_mut(order_id).expect("found above");
                        order.decide(OrderStatus::Confirmed, command, sequence, time_ms);
                        order.form_number = form_number.clone();
                        let order = order.clone();
                        self.forget_decided_round(order.journal_sequence);
                        Ok(Applied::Office(order))
                    }
                    status => Err(precondition(format!("order {order_id} is already {}", decided_by(order, status)))),
                }
            }
            OfficeOp::Reject { reason, .. } => {
                if reason.trim().is_empty() || reason.len() > 256 {
                    return Err(invalid("reason: required, 1–256 characters"));
                }
                match order.status {
                    OrderStatus::Rejected if order.operator_id == command.key_id && order.reason == *reason => {
                        Ok(Applied::OfficeDuplicate(order.clone()))
                    }
                    OrderStatus::Pending => {
                        let order = order.clone();
                        self.reject_order(sequence, time_ms, command, &order, reason)
                    }
                    status => Err(precondition(format!("order {order_id} is already {}", decided_by(order, status)))),
                }
            }
        }
    }

    /// Rejects a pending order: its award is undone, and only it (docs/readings.md,
    /// "What a Venta-Pagos rejection undoes"). The pending orders of the same round
    /// are re-settled as if the rejected winner had not competed; paid awards stand.
    fn reject_order(
        &mut self,
        sequence: u64,
        time_ms: u64,
        command: &OfficeCommand,
        order: &PayoutOrder,
        reason: &str,
    ) -> Result<Applied, Refusal> {
        let round_sequence = order.journal_sequence;
        let mut book = self.data.rounds.get(&round_sequence).cloned().ok_or_else(|| {
            precondition(format!(
                "order {}: the round it was marked in (journal entry {round_sequence}) is not kept; it cannot be undone",
                order.order_id
            ))
        })?;
        // The other orders of the round still waiting for Venta-Pagos: (id, seat, code).
        let waiting: Vec<(String, u32, String)> = self
            .data
            .orders
            .values()
            .filter(|other| {
                other.journal_sequence == round_sequence
                    && other.status == OrderStatus::Pending
                    && other.order_id != order.order_id
            })
            .map(|other| (other.order_id.clone(), other.facts.seat, other.facts.code.clone()))
            .collect();
        let order_of = |seat: u32, code: &str| waiting.iter().find(|(_, s, c)| *s == seat && c == code).map(|(id, _, _)| id);
        let rejection = self
            .engine
            .reject_award(&mut book, order.facts.seat, &order.facts.code, |seat, code| order_of(seat, code).is_some())
            .map_err(engine_refusal)?;
        // The re-settled orders carry their new amounts; the jornada and hour of the
        // marking lose the rejected award and gain what the others were raised by.
        let mut pppa_change = -rejection.returned;
        for raised in &rejection.resettled {
            pppa_change += raised.after - raised.before;
            match order_of(raised.seat, &raised.code) {
                Some(id) => self.data.orders.get_mut(id).expect("a waiting order").facts.amount = raised.after,
                // An award fixed at zero, now worth money: the cashier pays it through its
                // own order of the same round (docs/readings.md).
                None => {
                    let facts =
                        OrderFacts { seat: raised.seat, code: raised.code.clone(), amount: raised.after, ..order.facts.clone() };
                    self.data.file_order(facts, order.journal_sequence, order.time_ms);
                }
            }
        }
        // A jornada already dropped from the reports (over 62 ago) is not recreated.
        let (jornada, hour) = jornada_and_hour(&self.config, order.time_ms);
        if let Some(meters) =
            self.data.days.get_mut(&jornada).and_then(|tables| Arc::make_mut(tables).get_mut(&order.facts.table_id))
        {
            meters.pppa += pppa_change;
            meters.hours.entry(hour).or_default().1 += pppa_change;
        }
        self.data.rounds.insert(round_sequence, book);
        let order = self.data.orders.get_mut(&order.order_id).expect("the order exists");
        order.decide(OrderStatus::Rejected, command, sequence, time_ms);
        order.reason = reason.to_owned();
        let order = order.clone();
        self.forget_decided_round(round_sequence);
        Ok(Applied::Office(order))
    }

    /// Drops a round's book once none of its orders is pending: nothing can undo it now.
    fn forget_decided_round(&mut self, round_sequence: u64) {
        let pending = self
            .data
            .orders
            .values()
            .any(|order| order.journal_sequence == round_sequence && order.status == OrderStatus::Pending);
        if !pending {
            self.data.rounds.remove(&round_sequence);
        }
    }

    // ------------------------------------------------------------------------- views and books

    fn table_mut(&mut self, id: &str) -> &mut Table {
        self.data.tables.get_mut(id).expect("tables are fixed by the layout")
    }

    fn day_mut(&mut self, jornada: &str, table_id: &str) -> &mut TableDay {
        if !self.data.days.contains_key(jornada) {
            self.data.days.insert(jornada.to_owned(), Arc::default());
            while self.data.days.len() > JORNADAS_KEPT {
                self.data.days.pop_first();
            }
        }
        let days = Arc::make_mut(self.data.days.entry(jornada.to_owned()).or_default());
        days.entry(table_id.to_owned()).or_default()
    }

    fn book_ipa(&mut self, day: &(String, u32), table_id: &str, amount: Money, bets: i64) {
        let meters = self.day_mut(&day.0, table_id);
        meters.ipa += amount;
        meters.bets = meters.bets.saturating_add_signed(bets);
        meters.hours.entry(day.1).or_default().0 += amount;
    }

    fn book_credits_returned(&mut self, jornada: &str, table_id: &str, credits: u32, side_bet: Money) {
        let meters = self.day_mut(jornada, table_id);
        meters.credits_returned += u64::from(credits);
        meters.credits_returned_amount += side_bet * Decimal::from(credits);
    }

    /// The table as its panels show it now.
    pub fn table_view(&self, id: &str) -> Option<TableView> {
        let table = self.data.tables.get(id)?;
        let turn = self.data.gold_turns.get(&table.pool);
        let gold_turn = match turn {
            Some(turn) if turn.holder.as_deref() == Some(id) => GoldTurnView::Granted,
            Some(turn) if turn.waiting.iter().any(|waiting| waiting == id) => GoldTurnView::Waiting,
            _ => GoldTurnView::None,
        };
        let betting = table.open && table.phase == Phase::Betting && !table.carried;
        let seats = table
            .seats
            .iter()
            .enumerate()
            .map(|(index, seat)| {
                let recorded = seat.bet != Bet::None || (table.is_roulette() && seat.grillos() > 0);
                // 11.11.5: the light is on only for a bet the server durably recorded.
                let light = if recorded && table.open {
                    Light::On
                } else if betting && !table.last_round {
                    // After the last round is announced no new bet can be made (3.9.1, 11.10.1).
                    Light::Blue
                } else {
                    Light::Off
                };
                SeatView {
                    seat: index as u32 + 1,
                    light,
                    credits: seat.credits,
                    bronze: seat.bronze,
                    silver: seat.silver,
                    gold: seat.gold,
                }
            })
            .collect();
        let state = if !table.open {
            "cerrada"
        } else {
            match table.phase {
                Phase::Betting => "apuestas",
                Phase::Playing => "en juego",
                Phase::Accepted => "aceptado",
            }
        };
        Some(TableView {
            table_id: table.id.clone(),
            pool_id: table.pool.clone(),
            game: table.game,
            state: state.to_owned(),
            round: table.round,
            last_sequence: table.last_sequence,
            last_round: table.last_round,
            seats,
            pending_prizes: table.pending.clone(),
            instant_card: table.instant_card.clone(),
            gold_turn,
            displayed: self.pool(&table.pool).displayed(),
        })
    }

    /// The jornada a moment belongs to, for the reports.
    pub fn jornada_of(&self, time_ms: u64) -> String {
        jornada_and_hour(&self.config, time_ms).0
    }
}

/// The round's entries as the engine's winners; a seat's own bet where it matters.
fn winners_of(table: &Table, entries: &[PrizeEntry], side_bet: Money) -> Result<Vec<Winner>, Refusal> {
    entries
        .iter()
        .map(|entry| {
            let bet = match table.seats.get(entry.seat as usize - 1).map(|seat| seat.bet) {
                Some(Bet::Registered { contribution, .. }) => contribution.bet,
                _ => side_bet,
            };
            let high = match entry.high.as_deref() {
                None | Some("") => None,
                Some(text) => Some(text.parse::<Rank>().map_err(|problem| invalid(format!("high: {problem}")))?),
            };
            Ok(Winner { seat: entry.seat, code: entry.code.clone(), bet: Some(bet), high })
        })
        .collect()
}

pub use crate::jornada::jornada_and_hour;

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the one mapping of the engine's errors to refusal kinds (and so to gRPC codes):
    // a bad field, an unknown pool and a state that does not allow it are told apart.
    #[test]
    fn engine_errors_map_to_their_own_refusal_kinds() {
        let cases = [
            (EngineError::invalid("bet", "must be greater than zero, found 0"), RefusalKind::InvalidArgument),
            (EngineError::UnknownPool { pool: "x".into(), known: "y".into() }, RefusalKind::NotFound),
            (EngineError::not_now("award", "seat 2 `P` was already rejected"), RefusalKind::FailedPrecondition),
        ];
        for (error, kind) in cases {
            let text = error.to_string();
            let refusal = engine_refusal(error);
            assert_eq!(refusal.kind, kind, "{text}");
            assert_eq!(refusal.message, text, "the message names the field and the rule");
        }
    }

    #[test]
    fn a_refund_comes_off_the_hour_the_bet_was_registered_in() {
        // 11.8.1.2 with Form 4218: a bet registered at 14:59 and refunded at 15:01 (local)
        // leaves hour 14 at zero and books nothing negative in hour 15.
        let config = Arc::new(Config::embedded());
        let mut state = State::new(Arc::clone(&config));
        let genesis =
            Command::Genesis { config_hash: config.hash.clone(), texts: config.texts.clone(), keys: vec![], by: String::new() };
        state.apply(1, 0, &genesis).expect("genesis");
        let local_midnight_ms = 1_795_305_600_000 + 3 * 3_600_000; // 2026-11-22 00:00 in UTC-03:00
        let at = |hour: u64, minute: u64| local_midnight_ms + (hour * 60 + minute) * 60_000;
        let ops = [
            (at(14, 50), TableOp::OpenTable),
            (at(14, 51), TableOp::SellCredits { seat: 2, credits: 5 }),
            (at(14, 52), TableOp::Press { seat: 2 }),
            (at(14, 59), TableOp::StartRound),
            (at(15, 1), TableOp::RefundBet { seat: 2 }),
        ];
        for (index, (time_ms, op)) in ops.into_iter().enumerate() {
            let sequence = index as u64 + 1;
            let command = Command::Table(TableCommand {
                table_id: "B1".into(),
                sequence,
                payload_sha256: format!("{sequence}"),
                op,
                card: None,
            });
            state.apply(sequence + 1, time_ms, &command).expect("applied");
        }
        let day = &state.data().days["2026-11-22"]["B1"];
        assert_eq!(day.ipa, Money::ZERO);
        assert_eq!(day.hours.get(&14).map(|(ipa, _)| *ipa), Some(Money::ZERO));
        assert_eq!(day.hours.get(&15).map(|(ipa, _)| *ipa).unwrap_or_default(), Money::ZERO);
        assert_eq!(day.bets, 0);
    }

    #[test]
    fn card_index_covers_the_deck() {
        let cards: std::collections::BTreeSet<(String, String)> =
            (0..52).map(Card::from_index).map(|card| (card.rank, card.suit)).collect();
        assert_eq!(cards.len(), 52);
    }
}
