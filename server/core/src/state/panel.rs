//! What a table's panel shows and a table command answers: the seats' lights, the gold
//! turn, the prizes entered and the awards fixed. The state keeps each table's last answer
//! (a retry gets it again), so these are part of what it keeps, below the model.

use pozo_engine::Game;
use pozo_engine::money::Money;
use pozo_engine::{PoolId, PrizeCode, TableId};
use serde::{Deserialize, Serialize};

use super::command::Card;

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
    /// The level that paid it as the table's header names it ([`super::view::award_level`]):
    /// "Grand", "Major · F2" for a bank's meter, "Pagado por la casa" for the house's; empty,
    /// and absent from the record, in a pool of one level (and in a record of an earlier release).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub level: String,
}

/// An award a seat of this table won in another table's round of the link (an envy bonus
/// across the link): paid at this table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkAward {
    /// The table whose hand gave it.
    pub from: TableId,
    pub award: AwardRecord,
}

/// What a table command answers; kept per table so a retry gets the same answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableReply {
    pub table_id: TableId,
    pub sequence: u64,
    pub journal_sequence: u64,
    pub outcome: String,
    pub awards: Vec<AwardRecord>,
    pub view: TableView,
    /// The other tables this command changed (across the link, their seats' envy awards): their
    /// panels are pushed too. Absent from the record when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub linked: Vec<TableId>,
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
    /// The credits staked this round (AJ 2.5.4.1); 0 with no bet.
    #[serde(default)]
    pub stake: u32,
    pub bronze: u32,
    pub silver: u32,
    pub gold: u32,
    /// Closed to the progressive: its light does not work (AJ 2.5.6.1).
    #[serde(default)]
    pub closed: bool,
    /// Roulette: the player is absent, his grillos kept (3.7.1).
    #[serde(default)]
    pub absent: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GoldTurnView {
    None,
    Waiting,
    Granted,
}

/// Where a table stands, as panels, replies and the floor say it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TableState {
    /// Closed: Cierre de Mesa, or never opened (4.6, 4.7.7).
    #[serde(rename = "cerrada")]
    Closed,
    /// Open, panels enabled (12.5.3).
    #[serde(rename = "apuestas")]
    Betting,
    /// After INICIAR JUEGO (12.5.1.1).
    #[serde(rename = "en juego")]
    Playing,
    /// Prizes entered and FINALIZAR JUEGO pressed: ACEPTAR validates them (12.5.2.1 c–d).
    #[serde(rename = "premios ingresados")]
    Entered,
    /// After ACEPTAR, waiting for FINALIZAR JUEGO (12.5.2.1, 12.5.2.3).
    #[serde(rename = "aceptado")]
    Accepted,
}

impl TableState {
    /// As the wire and the journal write it.
    pub fn as_str(self) -> &'static str {
        match self {
            TableState::Closed => "cerrada",
            TableState::Betting => "apuestas",
            TableState::Playing => "en juego",
            TableState::Entered => "premios ingresados",
            TableState::Accepted => "aceptado",
        }
    }

    /// In a round: between INICIAR JUEGO and FINALIZAR JUEGO.
    pub fn in_round(self) -> bool {
        matches!(self, TableState::Playing | TableState::Entered | TableState::Accepted)
    }
}

/// A table as its panels show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableView {
    pub table_id: TableId,
    pub pool_id: PoolId,
    pub game: Game,
    pub state: TableState,
    pub round: u64,
    pub last_sequence: u64,
    pub last_round: bool,
    pub seats: Vec<SeatView>,
    pub pending_prizes: Vec<PrizeEntry>,
    pub instant_card: Option<Card>,
    pub gold_turn: GoldTurnView,
    pub displayed: Money,
    /// A pool with levels: each meter the table plays for, first level first: the shared
    /// levels and its own bank's meter of a banked level, never the house's nor a retired level
    /// ([`super::view::table_level_meters`]); empty for a pool of one level, so its view reads
    /// (and is kept) as an earlier release's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub levels: Vec<LevelMeter>,
    /// What its seats won this round in another table's round of the link (an envy bonus across
    /// the link): to pay here. Empty, and absent, otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub link_awards: Vec<LinkAward>,
    /// The awards the table accepted this round (ACEPTAR, 12.5.2.1 d), until its FINALIZAR JUEGO:
    /// an agent restarted after ACEPTAR still shows them. Empty, and absent, otherwise (a view
    /// kept by an earlier release reads with none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accepted: Vec<AwardRecord>,
}

/// One level's meter as the signs and the table's panels show it (docs/readings.md, "Levels").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LevelMeter {
    /// As the rulebook names it ("Grand").
    pub name: String,
    /// What its meter shows: the most a prize of it can be (3.5.1).
    pub displayed: Money,
    /// What it opens at and goes back to once won whole.
    pub reset: Money,
    /// A mystery level: the ceiling its open draw's trigger lies at or below, "Debe salir antes
    /// de …" (its rules' `must_hit_by` until a draw is open). Never the trigger. `None`, and
    /// absent, for every other level (docs/readings.md, "The mystery level").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub must_hit_by: Option<Money>,
}
