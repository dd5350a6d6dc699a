//! What the panels and the replies show: a table as its seats' lights see it, and
//! what applying a command did.

use pozo_engine::money::Money;
use pozo_engine::{Bank, Pool, PoolRules, TableId};

use super::State;
use super::model::{Bet, PayoutOrder, Phase, Table};
use super::panel::{GoldTurnView, LevelMeter, Light, SeatView, TableReply, TableState, TableView};

/// What applying a command did.
#[derive(Clone, Debug)]
pub enum Applied {
    /// A new entry: the writer journals the command.
    Table(std::sync::Arc<TableReply>),
    Office(PayoutOrder),
    Genesis,
    /// A new key set, journaled.
    Keys,
    /// A build new to the journal, journaled at a start.
    Build,
    /// A proposal made, approved (put in force or scheduled) or withdrawn.
    Change(Box<super::proposal::Proposal>),
    /// A mystery level's trigger drawn and committed (docs/journal.md, "draw").
    Drawn {
        pool: pozo_engine::PoolId,
    },
    /// A mystery level's hit revealed and paid: the pool, and the tables whose panels show an award.
    Revealed {
        pool: pozo_engine::PoolId,
        tables: Vec<pozo_engine::TableId>,
    },
    /// A retry of the last applied command: answered from the state, nothing journaled.
    Duplicate(std::sync::Arc<TableReply>),
    /// An office decision already taken, asked again: nothing journaled.
    OfficeDuplicate(PayoutOrder),
    /// A tournament operation applied: the tournament as it left it.
    Tournament(Box<super::tournament::Tournament>),
    /// A purchase booked already, sent again whole (a cashier's page submitted twice, a client's
    /// retry): answered from the state, nothing journaled.
    TournamentDuplicate(Box<super::tournament::Tournament>),
}

impl Applied {
    pub fn journals(&self) -> bool {
        matches!(
            self,
            Applied::Table(_)
                | Applied::Office(_)
                | Applied::Genesis
                | Applied::Keys
                | Applied::Build
                | Applied::Change(_)
                | Applied::Drawn { .. }
                | Applied::Revealed { .. }
                | Applied::Tournament(_)
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
            levels: self
                .with_open_ceilings(&table.pool, table_level_meters(self.pool(&table.pool), &self.bank_for_levels(table))),
            link_awards: table.link_awards.clone(),
            accepted: table.accepted.clone(),
        })
    }

    /// `meters` of pool `pool_id` with each mystery level's ceiling as its open draw has it (a
    /// new `must_hit_by` comes into force at the next draw): "Debe salir antes de …". Never the
    /// trigger, which the state does not hold.
    pub fn with_open_ceilings(&self, pool_id: &str, mut meters: Vec<LevelMeter>) -> Vec<LevelMeter> {
        for cycle in self.data.mystery.iter().filter(|cycle| cycle.pool.as_str() == pool_id) {
            let Some(open) = cycle.open.as_ref() else { continue };
            for meter in meters.iter_mut().filter(|meter| meter.name == cycle.level) {
                meter.must_hit_by = Some(open.ceiling);
            }
        }
        meters
    }

    /// The bank of `table` for its own pool's levels: none looked up in a pool without banked
    /// levels, where no level reads it (every press and every view asks).
    pub(in crate::state) fn bank_for_levels(&self, table: &Table) -> Bank {
        match self.pool(&table.pool).rules().has_banks() {
            true => self.bank_of(&table.id),
            false => Bank::default(),
        }
    }

    /// Where a table is for its pool's banked levels (its flor and salon): what its panel's
    /// meters ([`table_level_meters`]) and its awards' levels ([`award_level`]) are named by.
    pub fn panel_bank(&self, table_id: &TableId) -> Bank {
        self.bank_of(table_id)
    }
}

/// The meters a table's panel shows (docs/readings.md, "Levels"): the levels every table of
/// the pool shares and, of each banked level, only the meter of the table's own bank ("Major ·
/// F2"), shown at its reset while that bank has taken no bet yet (showing it opens nothing: the
/// meter opens with the bank's first bet, `Pool::in_bank`). Never the house's level nor a
/// retired one. Empty for a pool of one level. The signs show every meter: [`level_meters`].
pub fn table_level_meters(pool: &Pool, bank: &Bank) -> Vec<LevelMeter> {
    let rules = pool.rules();
    if rules.levels.is_empty() {
        return Vec::new();
    }
    let views = pool.levels();
    let indexes = pool.level_indexes();
    let mut meters = Vec::with_capacity(rules.levels.len());
    for (index, level) in rules.levels.iter().enumerate().filter(|(_, level)| !level.house) {
        let key = level.bank.map(|by| bank.key(by));
        let shown = views.iter().zip(&indexes).find(|(view, at)| **at == index && view.bank.as_deref() == key);
        match (shown, key) {
            (Some((view, _)), _) if view.retired => {}
            (Some((view, _)), _) => meters.push(LevelMeter {
                name: view.name.clone().unwrap_or_default(),
                displayed: view.displayed,
                reset: view.reset,
                must_hit_by: level.must_hit_by,
            }),
            (None, Some(key)) => {
                // The bank's meter is not open yet: it opens at the level's reset (`Pool::open`)
                // with its bank's first bet; a retired level opens none.
                let retired = index > 0 && pool.state().levels.get(index - 1).is_some_and(|state| state.retired);
                if !retired {
                    let displayed = if pool.is_retired() { Money::ZERO } else { level.reset };
                    meters.push(LevelMeter {
                        name: format!("{} · {key}", level.name),
                        displayed,
                        reset: level.reset,
                        must_hit_by: None,
                    });
                }
            }
            (None, None) => {}
        }
    }
    meters
}

/// The level an award of `code` is paid from, as the panel of a table at `bank` names it
/// (docs/readings.md, "Levels"): the level's name ("Grand"; "Pagado por la casa" for the
/// house's), a banked level's with the bank whose meter paid it ("Major · F2"); empty in a pool
/// of one level.
pub fn award_level(rules: &PoolRules, code: &str, bank: &Bank) -> String {
    let Some(level) = rules.levels.get(rules.level_of(code)) else { return String::new() };
    match level.bank {
        Some(by) => format!("{} · {}", level.name, bank.key(by)),
        None => level.name.clone(),
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
    let rules = pool.rules();
    pool.levels()
        .into_iter()
        .zip(pool.level_indexes())
        .filter(|(level, _)| !level.house && !level.retired)
        .map(|(level, index)| LevelMeter {
            name: level.name.unwrap_or_default(),
            displayed: level.displayed,
            reset: level.reset,
            must_hit_by: rules.levels.get(index).and_then(|rules| rules.must_hit_by),
        })
        .collect()
}
