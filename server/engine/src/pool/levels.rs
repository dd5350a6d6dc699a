//! A pool's levels (docs/readings.md, "Levels"): the further levels beside the first (whose
//! balances are the pool's own fields), each bank's meter of a banked level swapped in for an
//! operation at that bank's tables, the views the signs and reports read, what is owed to the
//! players level by level, and where a capped level's share overflows.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::*;

/// One level of a pool as the signs and reports read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelView {
    /// Its name (`None` in a pool of one level).
    pub name: Option<String>,
    pub balance: Money,
    pub reserve: Money,
    /// What its meter shows: as its `minimum_kind` says.
    pub displayed: Money,
    pub reset: Money,
    pub meters: Meters,
    /// The level the house pays envy bonuses from: holds nothing, off the signs.
    pub house: bool,
    /// For a banked level, the bank (flor or salon) whose meter this is (also in `name`:
    /// "Major · F2").
    pub bank: Option<String>,
    /// Retired by the procedure (`moves.rs`, [`Pool::retire_level`]): it holds nothing, its meters
    /// stay, frozen, in the reports; off the signs and the panels.
    pub retired: bool,
}

/// The share of level `index` in a contribution: the first level's `main`, or a further level's.
pub(super) fn level_share(contribution: &mut Contribution, index: usize) -> &mut Money {
    if index == 0 { &mut contribution.main } else { &mut contribution.levels[index - 1].main }
}

impl Pool {
    /// A pool with levels as a dispute or an audit states it: each level's balance and reserve,
    /// first level first; a banked level's are those of `bank`'s meter. Booked as
    /// replenishments, like [`Pool::with_balances`]. Refused unless one pair per level is given.
    pub fn with_level_balances(rules: Arc<PoolRules>, balances: &[(Money, Money)], bank: &Bank) -> Result<Pool, EngineError> {
        if balances.len() != rules.level_count()
            || balances.iter().any(|(balance, reserve)| *balance < Money::ZERO || *reserve < Money::ZERO)
        {
            return Err(EngineError::invalid(
                "levels",
                format!("pool `{}` has {} levels: one balance, never negative, for each", rules.id, rules.level_count()),
            ));
        }
        let mut pool = Pool::with_balances(Arc::clone(&rules), balances[0].0, balances[0].1);
        for (index, (balance, reserve)) in balances.iter().enumerate().skip(1) {
            let meter = Pool::with_balances(Arc::new(rules.level_rules(index)), *balance, *reserve);
            match rules.levels[index].bank {
                Some(by) => {
                    pool.banks.insert((index, bank.key(by).to_owned()), meter);
                }
                None => pool.levels[index - 1] = meter,
            }
        }
        pool.assert_conservation();
        Ok(pool)
    }

    /// A banked level's slot at rest: nothing in it, nothing booked.
    pub(super) fn placeholder(rules: Arc<PoolRules>) -> Pool {
        Pool {
            rules,
            balance: Money::ZERO,
            reserve: Money::ZERO,
            meters: Meters::default(),
            retired: false,
            levels: Vec::new(),
            banks: BTreeMap::new(),
        }
    }

    /// Runs `operation` with each banked level's slot holding `bank`'s meter (opened at its
    /// reset, by the house, if this is the bank's first), then puts the meters back. Refused,
    /// the operation changes nothing, and a meter it would have opened is not kept. A pool
    /// without banked levels runs it as it is.
    pub(crate) fn in_bank<R>(
        &mut self,
        bank: Option<&Bank>,
        operation: impl FnOnce(&mut Pool) -> Result<R, EngineError>,
    ) -> Result<R, EngineError> {
        if !self.rules.has_banks() {
            return operation(self);
        }
        let Some(bank) = bank else {
            return Err(EngineError::invalid(
                "bank",
                format!("pool `{}` keeps levels per flor or salon: the table's bank is required", self.rules.id),
            ));
        };
        let banked: Vec<(usize, String)> = self
            .rules
            .levels
            .iter()
            .enumerate()
            .filter_map(|(index, level)| level.bank.map(|by| (index, bank.key(by).to_owned())))
            .collect();
        let mut opened = Vec::new();
        for key in &banked {
            let meter = match self.banks.remove(key) {
                Some(meter) => meter,
                None => {
                    opened.push(key.clone());
                    let rules = Arc::new(self.rules.level_rules(key.0));
                    if self.levels[key.0 - 1].retired {
                        // A retired level opens no new bank's meter at its reset: the house
                        // seeds nothing in it (docs/readings.md, "Retiring a level").
                        let mut meter = Pool::placeholder(rules);
                        meter.mark_retired();
                        meter
                    } else {
                        Pool::open(rules)
                    }
                }
            };
            let placeholder = std::mem::replace(&mut self.levels[key.0 - 1], meter);
            self.banks.insert(key.clone(), placeholder);
        }
        let outcome = operation(self);
        for key in &banked {
            let placeholder = self.banks.remove(key).expect("put aside above");
            let meter = std::mem::replace(&mut self.levels[key.0 - 1], placeholder);
            if outcome.is_ok() || !opened.contains(key) {
                self.banks.insert(key.clone(), meter);
            }
        }
        outcome
    }

    /// Every further level's meter: the unbanked levels and each bank's meter of a banked one
    /// (a banked level's placeholder holds nothing, so sums over these are the pool's).
    pub(super) fn further(&self) -> impl Iterator<Item = &Pool> {
        self.levels.iter().chain(self.banks.values())
    }

    /// Every meter of further level `index` (≥ 1): the level's own, and each bank's of a banked one.
    pub(crate) fn level_meters_of(&self, index: usize) -> impl Iterator<Item = &Pool> {
        std::iter::once(&self.levels[index - 1])
            .chain(self.banks.iter().filter(move |((at, _), _)| *at == index).map(|(_, meter)| meter))
    }

    /// [`Pool::level_meters_of`], mutable.
    pub(crate) fn level_meters_of_mut(&mut self, index: usize) -> impl Iterator<Item = &mut Pool> {
        std::iter::once(&mut self.levels[index - 1])
            .chain(self.banks.iter_mut().filter(move |((at, _), _)| *at == index).map(|(_, meter)| meter))
    }

    /// Each level as the signs and reports read it, first level first; one in a pool of one
    /// level; a banked level once per bank whose meter is open, its bank named.
    pub fn levels(&self) -> Vec<LevelView> {
        // A bank's meter is named with its bank ("Major · F2"): every reader tells them apart.
        let view = |index: usize, level: &Pool, bank: Option<&str>| LevelView {
            name: self.rules.level_name(index).map(|name| match bank {
                Some(bank) => format!("{name} · {bank}"),
                None => name.to_owned(),
            }),
            balance: level.balance,
            reserve: level.reserve,
            displayed: if self.retired { Money::ZERO } else { level.rules.displayed_for(level.balance) },
            reset: level.rules.minimum,
            meters: level.meters.clone(),
            house: self.rules.levels.get(index).is_some_and(|rules| rules.house),
            bank: bank.map(str::to_owned),
            retired: level.retired && index > 0,
        };
        let mut views = Vec::with_capacity(self.levels.len() + self.banks.len() + 1);
        for (index, level) in std::iter::once(self).chain(&self.levels).enumerate() {
            if self.rules.levels.get(index).is_some_and(|rules| rules.bank.is_some()) {
                views.extend(
                    self.banks
                        .iter()
                        .filter(|((at, _), _)| *at == index)
                        .map(|((_, bank), meter)| view(index, meter, Some(bank))),
                );
            } else {
                views.push(view(index, level, None));
            }
        }
        views
    }

    /// The level index of each of [`Pool::levels`]'s views, in the same order.
    pub fn level_indexes(&self) -> Vec<usize> {
        let mut indexes = Vec::new();
        for index in 0..self.rules.level_count() {
            if self.rules.levels.get(index).is_some_and(|rules| rules.bank.is_some()) {
                indexes.extend(self.banks.keys().filter(|(at, _)| *at == index).map(|_| index));
            } else {
                indexes.push(index);
            }
        }
        indexes
    }

    /// What the pool owes its players: each level's balance above its reset and each reserve
    /// (money contributed and not yet won).
    pub fn owed(&self) -> Money {
        std::iter::once(self)
            .chain(self.further())
            .filter(|level| !(level.balance.is_zero() && level.reserve.is_zero() && level.meters == Meters::default()))
            .map(|level| (level.balance - level.rules.minimum).max(Money::ZERO) + level.reserve)
            .sum()
    }

    /// A capped level's share above its cap goes where the rulebook says: another level, or
    /// the capped level's reserve (docs/readings.md, "Levels"). Followed level by level until
    /// nothing is over its cap (an overflow never goes round in a circle: the rulebook is
    /// checked for it), so the bet's split still adds to what it fed.
    pub(super) fn overflow(&self, contribution: &mut Contribution) {
        let levels = self.rules.levels.len();
        for _ in 0..levels {
            let mut moved = false;
            for index in 0..levels {
                let Some((cap, to)) = self.rules.levels[index].cap else { continue };
                let balance = if index == 0 { self.balance } else { self.levels[index - 1].balance };
                let share = if index == 0 { contribution.main } else { contribution.levels[index - 1].main };
                let over = (balance + share - cap).max(Money::ZERO).min(share);
                if over.is_zero() {
                    continue;
                }
                moved = true;
                *level_share(contribution, index) -= over;
                match to {
                    Overflow::Level(other) => *level_share(contribution, other) += over,
                    Overflow::Reserve if index == 0 => contribution.reserve += over,
                    Overflow::Reserve => contribution.levels[index - 1].reserve += over,
                }
            }
            if !moved {
                break;
            }
        }
    }

    /// Whether level `index` (≥ 1) was retired by the procedure ([`Pool::retire_level`]).
    pub fn level_retired(&self, index: usize) -> bool {
        index > 0 && self.levels.get(index - 1).is_some_and(|level| level.retired)
    }

    /// The meter (balance) of level `index`, a mystery level's trigger is compared with.
    pub fn level_balance(&self, index: usize) -> Option<Money> {
        (index <= self.levels.len()).then(|| self.level(index).balance)
    }

    /// A mystery level's hit at `trigger` (docs/readings.md, "The mystery level"): what its
    /// meter holds beyond the trigger goes to its reserve, which funds its next reset, so that
    /// it pays exactly the trigger. Nothing is booked: the money stays in the level. Returns
    /// what moved.
    pub fn mystery_spill(&mut self, index: usize, trigger: Money) -> Result<Money, EngineError> {
        if !self.rules.levels.get(index).is_some_and(crate::rulebook::LevelRules::is_mystery) {
            return Err(EngineError::invalid("level", format!("level {index} of pool `{}` is not a mystery level", self.rules.id)));
        }
        let level = self.level_mut(index);
        if level.balance < trigger {
            return Err(EngineError::not_now(
                "trigger",
                format!("the meter holds {}, under the trigger {trigger}: the level has not hit", level.balance),
            ));
        }
        let beyond = level.balance - trigger;
        let (balance, reserve) = (trigger, level.reserve + beyond);
        level.set_balances(balance, reserve);
        self.assert_conservation();
        Ok(beyond)
    }

    /// Level `index` of the pool: the pool itself for the first, a further level otherwise.
    pub(crate) fn level(&self, index: usize) -> &Pool {
        if index == 0 { self } else { &self.levels[index - 1] }
    }

    /// Level `index` of the pool, mutable.
    pub(crate) fn level_mut(&mut self, index: usize) -> &mut Pool {
        if index == 0 { self } else { &mut self.levels[index - 1] }
    }

    /// How many further levels (besides the first) the pool keeps.
    pub(crate) fn further_levels(&self) -> usize {
        self.levels.len()
    }

    /// The further levels, each bank's meters included, mutable (`moves.rs`: a retirement
    /// empties them all).
    pub(crate) fn further_levels_mut(&mut self) -> impl Iterator<Item = &mut Pool> {
        self.levels.iter_mut().chain(self.banks.values_mut())
    }
}
