//! What the panels and the replies show: a table as its seats' lights see it, and
//! what applying a command did.

use pozo_engine::Game;
use pozo_engine::money::Money;
use pozo_engine::{PoolId, TableId};
use serde::{Deserialize, Serialize};

use super::State;
use super::command::Card;
use super::model::{AwardRecord, Bet, PayoutOrder, Phase, PrizeEntry};

/// What a table command answers; kept per table so a retry gets the same answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableReply {
    pub table_id: TableId,
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

impl State {
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
                let light = if seat.closed {
                    // AJ 2.5.6.1: a closed seat takes no bet: its panel is dark.
                    Light::Off
                } else if recorded && table.open {
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
                    stake: seat.bet.stake(),
                    bronze: seat.bronze,
                    silver: seat.silver,
                    gold: seat.gold,
                    closed: seat.closed,
                    absent: seat.absent,
                }
            })
            .collect();
        let state = match (table.open, table.phase) {
            (false, _) => TableState::Closed,
            (true, Phase::Betting) => TableState::Betting,
            (true, Phase::Playing) => TableState::Playing,
            (true, Phase::Entered) => TableState::Entered,
            (true, Phase::Accepted) => TableState::Accepted,
        };
        Some(TableView {
            table_id: table.id.clone(),
            pool_id: table.pool.clone(),
            game: table.game,
            state,
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
}
