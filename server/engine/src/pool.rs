//! One pool: its balances, its meters, and every movement of money in it.
//!
//! Every operation validates its input completely before it changes anything, and
//! asserts conservation after it changes something (docs/rules.md, "Money and conservation"):
//!
//! ```text
//! Σ contributions + Σ replenishments + Σ transfers in  + Σ adjustments up
//!     = balance + reserve + Σ awards + Σ transfers out + Σ adjustments down
//! ```
//!
//! (contributions net of reversals, replenishments net of those withdrawn, awards net
//! of those returned or reclaimed). Over any period it is the reconciliation an auditor
//! reads off the meters, with the main and reserve balances at its start and end:
//!
//! ```text
//! opening + contributions + replenishments + transfers in − awards − transfers out ± adjustments = closing
//! ```
//!
//! Transfers are money moved from one pool to another, a retirement's included
//! (`moves.rs`): what leaves one pool as a transfer out arrives in another as a transfer
//! in, so over all pools the two are equal. A broken conservation is a bug, not an
//! operating error, so it panics.

use std::sync::Arc;

use crate::error::EngineError;
use crate::money::{BET_MAX, CENT, Money, is_multiple_of};
use std::collections::BTreeMap;

use crate::rulebook::{Bank, Overflow, PoolRules, Shortfall};

mod levels;
pub use levels::LevelView;

/// The meters a regulator reads off a progressive controller (docs/architecture.md, "What a progressive controller keeps"):
/// everything that ever went into or out of the pool. They only ever grow.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Meters {
    /// Registered side bets (IPA), count and amount.
    pub bets: u64,
    pub bets_amount: Money,
    /// The house commission taken from the bets (AJ 2.5.6.3).
    pub commission: Money,
    /// What the bets added to the main pool (65% in IPLyC 3.2.1).
    pub contributions: Money,
    /// What the bets added to the reserve pool (AJ 2.5.6.3).
    pub reserve_contributions: Money,
    /// Voided or refunded bets (4.3.2, 11.8.2) and what they took back.
    pub reversals: u64,
    pub reversed_amount: Money,
    pub reversed_commission: Money,
    pub reversed_contributions: Money,
    pub reversed_reserve_contributions: Money,
    /// Money the house put in: the opening minimum (11.2.1, 15.2.1), completing
    /// the minimum to pay a prize (3.2.2, 11.2.2) and resets (15.2.2).
    pub replenishments: Money,
    /// Money moved from the reserve pool into the main pool (AJ 2.5.6.3).
    pub reserve_transfers: Money,
    /// Everything awarded (PPPA), and how many prizes were marked.
    pub awards: Money,
    pub hits: u64,
    /// Awards the Venta-Pagos office rejected, returned to the pool (docs/readings.md,
    /// "What a Venta-Pagos rejection undoes"). The awards meter never goes down; a
    /// return is booked here instead.
    pub awards_returned: Money,
    /// How many awards were rejected.
    #[serde(default)]
    pub rejections: u64,
    /// House money taken back out because the award it was put in for was rejected
    /// (the completion to the minimum, a shortfall). The replenishments meter never
    /// goes down; a withdrawal is booked here instead.
    #[serde(default)]
    pub replenishments_withdrawn: Money,
    /// Reserve money moved back from the main pool for the same reason (AJ 2.5.6.3).
    #[serde(default)]
    pub reserve_transfers_returned: Money,
    /// Awards paid and later given back by their winner because the bet that won them
    /// was found invalid (3.7.2–3.7.3: "dar por nula la apuesta y a exigirle la
    /// devolución del monto"). The awards meter never goes down; a reclaim is booked here.
    #[serde(default)]
    pub awards_reclaimed: Money,
    /// How many awards were reclaimed.
    #[serde(default)]
    pub reclaims: u64,
    /// Money moved into the main pool from another pool: a documented transfer, or the
    /// balances of a pool retired into this one (`moves.rs`).
    #[serde(default)]
    pub transfers_in: Money,
    /// Money moved out to another pool: transfers from the main pool, and at retirement
    /// the whole main and reserve pools. Over all pools it equals `transfers_in`.
    #[serde(default)]
    pub transfers_out: Money,
    /// The part of `transfers_out` that left from the reserve pool (only a retirement
    /// moves a reserve; included in `transfers_out`, not in addition to it).
    #[serde(default)]
    pub transfers_out_of_reserve: Money,
    /// Documented corrections of the main pool's balance, up and down (`moves.rs`), and
    /// how many there were. Each direction has its own meter, so neither goes down.
    #[serde(default)]
    pub adjustments_up: Money,
    #[serde(default)]
    pub adjustments_down: Money,
    #[serde(default)]
    pub adjustments: u64,
    /// How many times the whole pool was paid and brought back to its minimum.
    pub resets: u64,
}

impl Meters {
    /// These meters and `other`'s, added: a pool's meters over its levels.
    pub fn add(&mut self, other: &Meters) {
        let Meters {
            bets,
            bets_amount,
            commission,
            contributions,
            reserve_contributions,
            reversals,
            reversed_amount,
            reversed_commission,
            reversed_contributions,
            reversed_reserve_contributions,
            replenishments,
            reserve_transfers,
            awards,
            hits,
            awards_returned,
            rejections,
            replenishments_withdrawn,
            reserve_transfers_returned,
            awards_reclaimed,
            reclaims,
            transfers_in,
            transfers_out,
            transfers_out_of_reserve,
            adjustments_up,
            adjustments_down,
            adjustments,
            resets,
        } = other;
        self.bets += bets;
        self.bets_amount += *bets_amount;
        self.commission += *commission;
        self.contributions += *contributions;
        self.reserve_contributions += *reserve_contributions;
        self.reversals += reversals;
        self.reversed_amount += *reversed_amount;
        self.reversed_commission += *reversed_commission;
        self.reversed_contributions += *reversed_contributions;
        self.reversed_reserve_contributions += *reversed_reserve_contributions;
        self.replenishments += *replenishments;
        self.reserve_transfers += *reserve_transfers;
        self.awards += *awards;
        self.hits += hits;
        self.awards_returned += *awards_returned;
        self.rejections += rejections;
        self.replenishments_withdrawn += *replenishments_withdrawn;
        self.reserve_transfers_returned += *reserve_transfers_returned;
        self.awards_reclaimed += *awards_reclaimed;
        self.reclaims += reclaims;
        self.transfers_in += *transfers_in;
        self.transfers_out += *transfers_out;
        self.transfers_out_of_reserve += *transfers_out_of_reserve;
        self.adjustments_up += *adjustments_up;
        self.adjustments_down += *adjustments_down;
        self.adjustments += adjustments;
        self.resets += resets;
    }

    /// Registered side bets less those voided or refunded (4.3.2, 11.8.2).
    pub fn net_bets(&self) -> u64 {
        self.bets - self.reversals
    }

    /// Their amount (IPA for the pool).
    pub fn net_bets_amount(&self) -> Money {
        self.bets_amount - self.reversed_amount
    }

    /// The house commission kept (AJ 2.5.6.3), net of reversals.
    pub fn net_commission(&self) -> Money {
        self.commission - self.reversed_commission
    }

    /// What the bets added to the main and reserve pools, net of reversals.
    pub fn net_contributions(&self) -> Money {
        self.contributions + self.reserve_contributions - self.reversed_contributions - self.reversed_reserve_contributions
    }

    /// What the house put in, net of what it took back after rejections.
    pub fn net_replenishments(&self) -> Money {
        self.replenishments - self.replenishments_withdrawn
    }

    /// What was awarded, net of rejected and reclaimed awards.
    pub fn net_awards(&self) -> Money {
        self.awards - self.awards_returned - self.awards_reclaimed
    }

    /// What other pools put in less what went out to them (transfers and retirements).
    pub fn net_transfers(&self) -> Money {
        self.transfers_in - self.transfers_out
    }

    /// Corrections up less corrections down.
    pub fn net_adjustments(&self) -> Money {
        self.adjustments_up - self.adjustments_down
    }
}

/// What one registered side bet did to the pool; reversing it undoes exactly this.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Contribution {
    pub bet: Money,
    pub commission: Money,
    /// What went to the first level (the pool, in a pool of one level) and its reserve.
    pub main: Money,
    pub reserve: Money,
    /// In a pool with levels, what went to each further level and its reserve, in the
    /// rulebook's order (a cap's overflow included where it went); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub levels: Vec<LevelContribution>,
    /// In a pool with banked levels, the bank of the table the bet was made at: its banked
    /// levels' shares went to that bank's meters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bank: Option<Bank>,
}

/// What a bet added to one further level of a pool with levels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LevelContribution {
    pub main: Money,
    pub reserve: Money,
}

impl Contribution {
    /// What the bet added to every level and reserve: the bet less the commission.
    pub fn fed(&self) -> Money {
        self.main + self.reserve + self.levels.iter().map(|level| level.main + level.reserve).sum::<Money>()
    }
}

/// What reversing a bet did, including any replenishment it forced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reversal {
    pub contribution: Contribution,
    pub replenishment: Money,
}

/// A pool with its rules, balances and meters.
#[derive(Clone, Debug)]
pub struct Pool {
    rules: Arc<PoolRules>,
    balance: Money,
    reserve: Money,
    meters: Meters,
    /// Retired into another pool: no money moves in it any more (`moves.rs`).
    retired: bool,
    /// In a pool with levels, levels 1 … each as a pool of one level under its own rules
    /// ([`PoolRules::level_rules`]); this pool's own balances are the first level's. Empty in
    /// a pool of one level. Every level conserves on its own. A banked level's slot holds an
    /// empty placeholder at rest and its bank's meter while an operation runs ([`Pool::in_bank`]).
    levels: Vec<Pool>,
    /// The meters of banked levels, by level and bank, opened at the level's reset when the
    /// bank's first bet comes.
    banks: BTreeMap<(usize, String), Pool>,
}

impl Pool {
    /// A new pool at its minimum, contributed by the house: "se iniciará con un
    /// mínimo de $ 5.000 aportado por el Instituto" (11.2.1, 15.2.1, 3.2.1; the AJ
    /// base value, 2.5.6.3).
    pub fn open(rules: Arc<PoolRules>) -> Pool {
        let minimum = rules.minimum;
        Pool::with_balances(rules, minimum, Money::ZERO)
    }

    /// A pool holding the given balances, as a dispute or an audit states them. The
    /// opening amounts are booked as replenishments so that conservation holds.
    pub fn with_balances(rules: Arc<PoolRules>, balance: Money, reserve: Money) -> Pool {
        assert!(balance >= Money::ZERO && reserve >= Money::ZERO, "opening balances are never negative");
        let meters = Meters { replenishments: balance + reserve, ..Meters::default() };
        // Each further level opens at its reset, contributed by the house like the first.
        // A banked level opens per bank, when its bank's first bet comes: here an empty placeholder.
        let levels = (1..rules.levels.len())
            .map(|index| {
                let level_rules = Arc::new(rules.level_rules(index));
                match rules.levels[index].bank {
                    Some(_) => Pool::placeholder(level_rules),
                    None => Pool::open(level_rules),
                }
            })
            .collect();
        let pool = Pool { rules, balance, reserve, meters, retired: false, levels, banks: BTreeMap::new() };
        pool.assert_conservation();
        pool
    }

    pub fn rules(&self) -> &PoolRules {
        &self.rules
    }

    /// What a snapshot keeps of the pool: its balances, meters and whether it is
    /// retired. The rules come from the rulebooks at restore.
    pub fn state(&self) -> PoolState {
        PoolState {
            balance: self.balance,
            reserve: self.reserve,
            meters: self.meters.clone(),
            retired: self.retired,
            levels: self.levels.iter().map(Pool::state).collect(),
            banks: self
                .banks
                .iter()
                .map(|((level, bank), meter)| BankState { level: *level, bank: bank.clone(), state: meter.state() })
                .collect(),
        }
    }

    /// A pool as a snapshot kept it. Conservation is checked: a snapshot that does
    /// not balance is refused, and so is a retired pool still holding money (a
    /// retirement moves all of it, `moves.rs`).
    pub fn restore(rules: Arc<PoolRules>, state: PoolState) -> Result<Pool, EngineError> {
        let further = rules.levels.len().saturating_sub(1);
        if state.levels.len() != further {
            return Err(EngineError::invalid(
                "snapshot",
                format!(
                    "pool `{}` has {} levels in the snapshot and {} in its rules; the snapshot is of other rules",
                    rules.id,
                    state.levels.len() + 1,
                    further + 1
                ),
            ));
        }
        let levels = state
            .levels
            .into_iter()
            .enumerate()
            .map(|(index, level)| Pool::restore(Arc::new(rules.level_rules(index + 1)), level))
            .collect::<Result<Vec<Pool>, EngineError>>()?;
        let mut banks = BTreeMap::new();
        for BankState { level, bank, state } in state.banks {
            if rules.levels.get(level).is_none_or(|rules| rules.bank.is_none()) {
                return Err(EngineError::invalid("snapshot", format!("pool `{}` has no banked level {level}", rules.id)));
            }
            banks.insert((level, bank), Pool::restore(Arc::new(rules.level_rules(level)), state)?);
        }
        let pool = Pool {
            rules,
            balance: state.balance,
            reserve: state.reserve,
            meters: state.meters,
            retired: state.retired,
            levels: Vec::new(),
            banks: BTreeMap::new(),
        };
        let difference = pool.conservation_difference();
        if !difference.is_zero() || pool.balance < Money::ZERO || pool.reserve < Money::ZERO {
            return Err(EngineError::invalid(
                "snapshot",
                format!("pool `{}` does not balance (difference {difference}); the snapshot is damaged", pool.rules.id),
            ));
        }
        if pool.retired && !(pool.balance.is_zero() && pool.reserve.is_zero()) {
            return Err(EngineError::invalid(
                "snapshot",
                format!(
                    "pool `{}` is retired but holds {} and {} in reserve; the snapshot is damaged",
                    pool.rules.id, pool.balance, pool.reserve
                ),
            ));
        }
        Ok(Pool { levels, banks, ..pool })
    }

    /// The same pool, balances, meters and retirement, under other rules: the rules of a
    /// live pool changed (`Engine::with_rulebooks`). Nothing moves; a level the new rules
    /// add opens at its reset, contributed by the house (the caller refuses rules with fewer
    /// levels: a level's money is never dropped).
    pub(crate) fn with_rules(&self, rules: Arc<PoolRules>) -> Pool {
        debug_assert_eq!(rules.id, self.rules.id, "a pool keeps its id under new rules");
        // Levels by name (the caller checks that none is dropped and the first stays first).
        let levels = (1..rules.levels.len())
            .map(|index| {
                let level_rules = Arc::new(rules.level_rules(index));
                let kept = self.rules.levels.iter().position(|old| old.name == rules.levels[index].name).filter(|at| *at > 0);
                match kept.and_then(|at| self.levels.get(at - 1)) {
                    Some(level) => Pool { rules: level_rules, ..level.clone() },
                    None if rules.levels[index].bank.is_some() => Pool::placeholder(level_rules),
                    None => Pool::open(level_rules),
                }
            })
            .collect();
        // Each bank's meters under the level's new rules and index.
        let banks = self
            .banks
            .iter()
            .filter_map(|((at, bank), meter)| {
                let index = rules.levels.iter().position(|level| level.name == self.rules.levels[*at].name)?;
                Some(((index, bank.clone()), Pool { rules: Arc::new(rules.level_rules(index)), ..meter.clone() }))
            })
            .collect();
        let pool = Pool { rules, levels, banks, ..self.clone() };
        pool.assert_conservation();
        pool
    }

    /// True once the pool was retired into another (`Engine::retire`): its meters stay,
    /// frozen, and no money moves in it any more.
    pub fn is_retired(&self) -> bool {
        self.retired
    }

    /// Refuses any movement of money in a retired pool, naming `field` (the pool's
    /// field in the caller's input). Every money operation checks it first.
    pub(crate) fn check_not_retired(&self, field: &str) -> Result<(), EngineError> {
        if self.retired {
            return Err(EngineError::not_now(
                field,
                format!("pool `{}` is retired: its money went to another pool and no money moves in it", self.rules.id),
            ));
        }
        Ok(())
    }

    pub(crate) fn mark_retired(&mut self) {
        self.retired = true;
    }

    pub(crate) fn shared_rules(&self) -> Arc<PoolRules> {
        Arc::clone(&self.rules)
    }

    /// The main pool's balance, with every fraction the contributions left; in a pool with
    /// levels, every level's.
    pub fn balance(&self) -> Money {
        self.balance + self.further().map(Pool::balance).sum::<Money>()
    }

    /// The reserve pool's balance (zero where the rulebook has none); in a pool with levels,
    /// every level's reserve.
    pub fn reserve(&self) -> Money {
        self.reserve + self.further().map(Pool::reserve).sum::<Money>()
    }

    /// The first level's balance: the pool's, in a pool of one level.
    pub(crate) fn main_balance(&self) -> Money {
        self.balance
    }

    /// The first level's reserve.
    pub(crate) fn main_reserve(&self) -> Money {
        self.reserve
    }

    /// The amount on the cartel luminoso and the most any award can be (3.5.1): as the
    /// rulebook's `minimum_kind` says, max(balance, minimum) where the minimum is a floor
    /// (IPLyC 3.2.2, 11.2.2, 15.2.3), the balance where it is only the starting amount
    /// (Póquer sin descarte 6.3, AJ 2.5.6.3) ([`PoolRules::displayed_for`]).
    ///
    /// A retired pool is off the signs and holds nothing: it shows zero, whatever its
    /// minimum (a floor is completed only to pay a prize, and a retired pool pays none).
    pub fn displayed(&self) -> Money {
        if self.retired {
            return Money::ZERO;
        }
        self.rules.displayed_for(self.balance)
    }

    /// The pool's meters; in a pool with levels, every level's added.
    pub fn meters(&self) -> Meters {
        let mut meters = self.meters.clone();
        for level in self.further() {
            meters.add(&level.meters);
        }
        meters
    }

    /// How far the books are from conservation; zero when they balance (the identity
    /// at the head of this file). In a pool with levels, the first difference found among its
    /// levels: zero only when each level conserves on its own.
    pub fn conservation_difference(&self) -> Money {
        let m = &self.meters;
        let money_in = m.net_contributions() + m.net_replenishments() + m.transfers_in + m.adjustments_up;
        let money_held_or_out = self.balance + self.reserve + m.net_awards() + m.transfers_out + m.adjustments_down;
        let own = money_in - money_held_or_out;
        // Zero only when every level conserves on its own: one level's gain never hides
        // another's loss (the first level's difference first, then each further level's).
        if !own.is_zero() {
            return own;
        }
        self.further().map(Pool::conservation_difference).find(|difference| !difference.is_zero()).unwrap_or(Money::ZERO)
    }

    pub(crate) fn assert_conservation(&self) {
        for level in self.further() {
            level.assert_conservation();
        }
        let difference = self.conservation_difference();
        assert!(difference.is_zero(), "conservation broken in pool `{}` by {difference}: {self:?}", self.rules.id);
    }

    /// The contribution a bet of `bet` makes: 65% to the main pool in IPLyC (3.2.1,
    /// 11.2.3, 15.2.4); in AJ the commission, main and reserve shares (2.5.6.3).
    /// Fractions are kept: 65% of 2.50 is 1.625.
    pub fn contribution_of(&self, bet: Money) -> Contribution {
        let mut contribution = Contribution {
            bet,
            commission: bet * self.rules.commission_rate,
            main: bet * self.rules.contribution_rate,
            reserve: bet * self.rules.reserve_rate,
            levels: self
                .levels
                .iter()
                .map(|level| LevelContribution {
                    main: bet * level.rules.contribution_rate,
                    reserve: bet * level.rules.reserve_rate,
                })
                .collect(),
            bank: None,
        };
        self.overflow(&mut contribution);
        contribution
    }

    /// Registers one side bet and adds its contribution (3.2.1, 11.2.3, 15.2.4); in a pool
    /// with levels, each level's share and reserve share.
    pub fn register_bet(&mut self, bet: Money) -> Result<Contribution, EngineError> {
        self.register_bet_at(bet, None)
    }

    /// [`Pool::register_bet`] at a table of `bank`: a banked level's share goes to that bank's
    /// meter (required in a pool with banked levels, ignored elsewhere).
    pub fn register_bet_at(&mut self, bet: Money, bank: Option<&Bank>) -> Result<Contribution, EngineError> {
        let banked = self.rules.has_banks();
        let mut contribution = self.in_bank(bank, |pool| pool.register_here(bet))?;
        if banked {
            contribution.bank = bank.cloned();
        }
        Ok(contribution)
    }

    fn register_here(&mut self, bet: Money) -> Result<Contribution, EngineError> {
        self.check_not_retired("pool")?;
        check_bet("bet", bet)?;
        check_bet_allowed(&self.rules, "bet", bet)?;
        let contribution = self.contribution_of(bet);
        self.balance += contribution.main;
        self.reserve += contribution.reserve;
        let m = &mut self.meters;
        m.bets += 1;
        m.bets_amount += bet;
        m.commission += contribution.commission;
        m.contributions += contribution.main;
        m.reserve_contributions += contribution.reserve;
        for (level, share) in self.levels.iter_mut().zip(&contribution.levels) {
            level.balance += share.main;
            level.reserve += share.reserve;
            level.meters.contributions += share.main;
            level.meters.reserve_contributions += share.reserve;
        }
        self.assert_conservation();
        Ok(contribution)
    }

    /// A contribution this pool could have made for its bet: the commission the rules take,
    /// one share per level, nothing negative, and every centavo of the bet accounted. In a
    /// pool with caps the split depends on the meters when the bet was registered, so it is
    /// checked by its sums, not recomputed.
    fn check_contribution(&self, contribution: &Contribution) -> Result<(), EngineError> {
        if self.levels.is_empty() {
            if *contribution != self.contribution_of(contribution.bet) {
                return Err(EngineError::invalid(
                    "contribution",
                    "does not match what a bet of that amount contributes to this pool (4.3.2 reverses the recorded contribution)",
                ));
            }
            return Ok(());
        }
        let parts = std::iter::once(contribution.main)
            .chain(std::iter::once(contribution.reserve))
            .chain(contribution.levels.iter().flat_map(|level| [level.main, level.reserve]));
        let whole = contribution.commission + contribution.fed();
        if contribution.levels.len() != self.levels.len()
            || contribution.commission != contribution.bet * self.rules.commission_rate
            || whole != contribution.bet
            || parts.into_iter().any(|part| part < Money::ZERO)
        {
            return Err(EngineError::invalid(
                "contribution",
                "does not match what a bet of that amount contributes to this pool's levels (4.3.2 reverses the recorded contribution)",
            ));
        }
        Ok(())
    }

    /// Reverses a registered bet that was voided or refunded (Anular, 4.3.2;
    /// 11.8.2): exactly the contribution it made comes out of the pool. Should a
    /// prize have emptied the pool meanwhile, the house covers the difference so no
    /// balance goes negative (booked as a replenishment).
    pub fn reverse_bet(&mut self, contribution: Contribution) -> Result<Reversal, EngineError> {
        let bank = contribution.bank.clone();
        self.in_bank(bank.as_ref(), |pool| pool.reverse_here(contribution))
    }

    fn reverse_here(&mut self, contribution: Contribution) -> Result<Reversal, EngineError> {
        self.check_not_retired("pool")?;
        check_bet("contribution.bet", contribution.bet)?;
        self.check_contribution(&contribution)?;
        let m = &self.meters;
        if m.reversals >= m.bets || m.reversed_amount + contribution.bet > m.bets_amount {
            return Err(EngineError::not_now("contribution.bet", "more would be reversed than was ever registered"));
        }
        self.balance -= contribution.main;
        self.reserve -= contribution.reserve;
        let mut replenishment = Money::ZERO;
        if self.balance < Money::ZERO {
            replenishment += -self.balance;
            self.balance = Money::ZERO;
        }
        if self.reserve < Money::ZERO {
            replenishment += -self.reserve;
            self.reserve = Money::ZERO;
        }
        let m = &mut self.meters;
        m.reversals += 1;
        m.reversed_amount += contribution.bet;
        m.reversed_commission += contribution.commission;
        m.reversed_contributions += contribution.main;
        m.reversed_reserve_contributions += contribution.reserve;
        m.replenishments += replenishment;
        for (level, share) in self.levels.iter_mut().zip(&contribution.levels) {
            replenishment += level.take_back(*share);
        }
        self.assert_conservation();
        Ok(Reversal { contribution, replenishment })
    }

    /// A further level gives back what a reversed bet added to it; the house covers what a
    /// prize already paid out of it, so nothing goes negative. What the house put in.
    fn take_back(&mut self, share: LevelContribution) -> Money {
        self.balance -= share.main;
        self.reserve -= share.reserve;
        let mut replenishment = Money::ZERO;
        if self.balance < Money::ZERO {
            replenishment += -self.balance;
            self.balance = Money::ZERO;
        }
        if self.reserve < Money::ZERO {
            replenishment += -self.reserve;
            self.reserve = Money::ZERO;
        }
        let m = &mut self.meters;
        m.reversed_contributions += share.main;
        m.reversed_reserve_contributions += share.reserve;
        m.replenishments += replenishment;
        replenishment
    }

    /// Puts back an award already paid that its winner returned (3.7.3: the series was
    /// invalid, "se procederá a dar por nula la apuesta y a exigirle la devolución del
    /// monto"): the amount goes back to the main pool it came from, booked as
    /// `awards_reclaimed`. Nothing the house or the reserve put in for it comes back out:
    /// the award was paid and stood, later prizes were fixed on the pool it left
    /// (docs/readings.md, "A series found invalid after payment").
    pub fn reclaim_award(&mut self, amount: Money) -> Result<(), EngineError> {
        self.check_not_retired("pool")?;
        if amount <= Money::ZERO {
            return Err(EngineError::invalid("amount", format!("{amount}: only an award of money is given back (3.7.3)")));
        }
        if self.meters.awards_reclaimed + self.meters.awards_returned + amount > self.meters.awards {
            return Err(EngineError::not_now("amount", "more would be given back than this pool ever awarded (3.7.3)"));
        }
        self.balance += amount;
        self.meters.awards_reclaimed += amount;
        self.meters.reclaims += 1;
        self.assert_conservation();
        Ok(())
    }

    /// Takes `paid` out of the main pool. When the award exceeds the balance the
    /// difference is completed (3.2.2, 11.2.2, 15.2.3): from the reserve pool first
    /// where the rulebook has one (2.5.6.3), then by the house.
    pub(crate) fn pay(&mut self, paid: Money, hits: u64) -> Funding {
        debug_assert!(paid >= Money::ZERO);
        self.balance -= paid;
        self.meters.awards += paid;
        self.meters.hits += hits;
        let shortfall = (-self.balance).max(Money::ZERO);
        self.fund(shortfall)
    }

    /// A scratch pool holding `balance` and `reserve` under the same rules, with no
    /// history: what a round would do is replayed on it (a rejection re-settles).
    pub(crate) fn scratch(&self, balance: Money, reserve: Money) -> Pool {
        Pool {
            rules: Arc::clone(&self.rules),
            balance,
            reserve,
            meters: Meters::default(),
            retired: false,
            levels: Vec::new(),
            banks: BTreeMap::new(),
        }
    }

    pub(crate) fn meters_mut(&mut self) -> &mut Meters {
        &mut self.meters
    }

    pub(crate) fn set_balances(&mut self, balance: Money, reserve: Money) {
        self.balance = balance;
        self.reserve = reserve;
    }

    /// After the whole pool was paid, brings it back to its minimum (15.2.2; Póquer sin
    /// descarte 6.2 and AJ 2.5.6.3 the starting amount, whatever the minimum's kind),
    /// reserve first (2.5.6.3). What rounding left behind stays and counts.
    pub(crate) fn reset(&mut self) -> Funding {
        self.meters.resets += 1;
        let missing = (self.rules.minimum - self.balance).max(Money::ZERO);
        self.fund(missing)
    }

    /// Puts `amount` into the main pool from whoever the rulebook's `shortfall_from` names.
    fn fund(&mut self, amount: Money) -> Funding {
        let from_reserve = match self.rules.shortfall_from {
            Shortfall::ReserveThenHouse => amount.min(self.reserve),
            Shortfall::House => Money::ZERO,
        };
        let from_house = amount - from_reserve;
        self.reserve -= from_reserve;
        self.balance += amount;
        self.meters.reserve_transfers += from_reserve;
        self.meters.replenishments += from_house;
        Funding { from_reserve, from_house }
    }
}

/// A pool's balances and meters, as a snapshot keeps them.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PoolState {
    pub balance: Money,
    pub reserve: Money,
    pub meters: Meters,
    /// Retired into another pool (`moves.rs`); absent in snapshots of earlier releases,
    /// which had no retirement.
    #[serde(default)]
    pub retired: bool,
    /// A pool with levels: levels 1 … (the pool's own fields are the first level's); absent
    /// in a pool of one level, so its snapshot reads as an earlier release's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub levels: Vec<PoolState>,
    /// The meters of banked levels, one per level and bank that took a bet; absent otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub banks: Vec<BankState>,
}

/// One bank's meter of a banked level, as a snapshot keeps it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BankState {
    pub level: usize,
    pub bank: String,
    pub state: PoolState,
}

/// Where money added to the main pool came from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Funding {
    pub from_reserve: Money,
    pub from_house: Money,
}

impl std::ops::AddAssign for Funding {
    fn add_assign(&mut self, other: Funding) {
        self.from_reserve += other.from_reserve;
        self.from_house += other.from_house;
    }
}

/// A side bet must be a positive amount in whole centavos, at most [`BET_MAX`].
pub(crate) fn check_bet(field: &str, bet: Money) -> Result<(), EngineError> {
    if bet <= Money::ZERO {
        return Err(EngineError::invalid(field, format!("must be greater than zero, found {bet}")));
    }
    if bet > BET_MAX {
        return Err(EngineError::invalid(field, format!("{bet} is over the largest accepted bet, {BET_MAX}")));
    }
    if !is_multiple_of(bet, CENT) {
        return Err(EngineError::invalid(field, format!("{bet} is finer than one centavo")));
    }
    Ok(())
}

/// A bet the pool takes: only `side_bet` where the rulebook says `fixed_bet = true`
/// (IPLyC 3.3.1, 11.4.1: "Su monto será fijo y determinado de antemano"; 15.1.2;
/// Veintiuno e: "una cantidad única estipulada"), otherwise one within the
/// rulebook's `bet_min` and `bet_max` (AJ 2.5.5.1).
pub fn check_bet_allowed(rules: &PoolRules, field: &str, bet: Money) -> Result<(), EngineError> {
    if rules.fixed_bet() && !rules.is_a_fixed_bet(bet) {
        return Err(EngineError::invalid(
            field,
            format!(
                "{bet} is not the stipulated side bet of pool `{}`: only {} is played ({})",
                rules.id, rules.side_bet, rules.bet_article
            ),
        ));
    }
    if !rules.fixed_bet() && (bet < rules.bet_min || bet > rules.bet_max) {
        return Err(EngineError::invalid(
            field,
            format!(
                "{bet} is outside the side bets of pool `{}`: {} to {} ({})",
                rules.id, rules.bet_min, rules.bet_max, rules.bet_article
            ),
        ));
    }
    Ok(())
}
