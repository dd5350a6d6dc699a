//! What the panels and the replies show: a table as its seats' lights see it, and
//! what applying a command did.

use super::State;
use super::model::{Bet, PayoutOrder, Phase};
use super::panel::{GoldTurnView, LevelMeter, Light, SeatView, TableReply, TableState, TableView};

/// What applying a command did.
#[derive(Clone, Debug)]
pub enum Applied {
    /// A new entry: the writer journals the command.
    Table(TableReply),
    Office(PayoutOrder),
    Genesis,
    /// A new key set, journaled.
    Keys,
    /// A build new to the journal, journaled at a start.
    Build,
    /// A proposal made, approved (put in force or scheduled) or withdrawn.
    Change(Box<super::proposal::Proposal>),
    /// A retry of the last applied command: answered from the state, nothing journaled.
    Duplicate(TableReply),
    /// An office decision already taken, asked again: nothing journaled.
    OfficeDuplicate(PayoutOrder),
}

impl Applied {
    pub fn journals(&self) -> bool {
        matches!(
            self,
            Applied::Table(_) | Applied::Office(_) | Applied::Genesis | Applied::Keys | Applied::Build | Applied::Change(_)
        )
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
            levels: level_meters(self.pool(&table.pool)),
            link_awards: table.link_awards.clone(),
        })
    }
}

/// A pool's meters as the signs and the panels show them (docs/readings.md, "Levels"): each
/// level's name, amount and reset, first level first. Never the house's level: it holds nothing
/// and pays with the house's money, off the signs. Empty for a pool of one level, whose one
/// meter is the pool's own amount.
pub fn level_meters(pool: &pozo_engine::Pool) -> Vec<LevelMeter> {
    if pool.rules().levels.is_empty() {
        return Vec::new();
    }
    pool.levels()
        .into_iter()
        .filter(|level| !level.house && !level.retired)
        .map(|level| LevelMeter { name: level.name.unwrap_or_default(), displayed: level.displayed, reset: level.reset })
        .collect()
}
