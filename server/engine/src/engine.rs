//! Every pool of the loaded rulebooks, by id: the state a controller keeps.
//!
//! Each operation names its pool and either changes exactly that pool or, when the
//! input is refused, changes nothing at all.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::error::EngineError;
use crate::ids::PoolId;
use crate::money::Money;
use crate::moves::{Retirement, Transfer};
use crate::pool::{Contribution, Pool, PoolState, Reversal};
use crate::reject::Rejection;
use crate::rulebook::Rulebooks;
use crate::settle::{RoundBook, Seat, Settlement, Winner};

/// All pools, each opened at its minimum (11.2.1, 15.2.1, 3.2.1, AJ 2.5.6.3).
#[derive(Clone, Debug)]
pub struct Engine {
    pools: BTreeMap<PoolId, Pool>,
}

/// Money summed over every pool: what an auditor ties to zero at night's end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub bets: u64,
    pub bets_amount: Money,
    pub commission: Money,
    /// Net of reversals, main and reserve pools together.
    pub contributions: Money,
    pub replenishments: Money,
    pub awards: Money,
    pub hits: u64,
    /// Main and reserve balances together.
    pub balances: Money,
    /// Money moved between pools (transfers and retirements, `moves.rs`): every
    /// centavo out of one pool is into another, so the two are equal.
    pub transfers_in: Money,
    pub transfers_out: Money,
    /// Documented corrections of main balances, up and down.
    pub adjustments_up: Money,
    pub adjustments_down: Money,
}

impl Engine {
    pub fn new(rulebooks: &Rulebooks) -> Engine {
        let pools = rulebooks.pools().map(|rules| (rules.id.clone(), Pool::open(Arc::new(rules.clone())))).collect();
        Engine { pools }
    }

    /// The pools as a snapshot kept them, under the rules of `rulebooks`; every
    /// pool of the rulebooks must be there and balance. A pool of the snapshot the
    /// rulebooks lack is left out, unless it is retired or moved money to or from other
    /// pools (pools are retired, never dropped, `moves.rs`); and the transfers of the
    /// snapshot must tie: as much in as out over all pools.
    pub fn restore(rulebooks: &Rulebooks, states: &BTreeMap<PoolId, PoolState>) -> Result<Engine, EngineError> {
        let mut pools = BTreeMap::new();
        for rules in rulebooks.pools() {
            let state = states
                .get(&rules.id)
                .ok_or_else(|| EngineError::invalid("snapshot", format!("pool `{}` is missing", rules.id)))?;
            pools.insert(rules.id.clone(), Pool::restore(Arc::new(rules.clone()), state.clone())?);
        }
        let moved =
            |state: &PoolState| state.retired || !state.meters.transfers_in.is_zero() || !state.meters.transfers_out.is_zero();
        if let Some((id, _)) = states.iter().find(|(id, state)| !pools.contains_key(*id) && moved(state)) {
            return Err(EngineError::invalid(
                "rulebooks",
                format!(
                    "pool `{id}` of the snapshot is not in the rulebooks; it moved money to or from other pools, and a pool is retired, never dropped"
                ),
            ));
        }
        let (transfers_in, transfers_out) = pools.values().fold((Money::ZERO, Money::ZERO), |(in_, out), pool| {
            (in_ + pool.meters().transfers_in, out + pool.meters().transfers_out)
        });
        if transfers_in != transfers_out {
            return Err(EngineError::invalid(
                "snapshot",
                format!("the pools' transfers do not tie: {transfers_in} in, {transfers_out} out; the snapshot is damaged"),
            ));
        }
        Ok(Engine { pools })
    }

    /// The same pools, balances and meters under new rules (the settings of live pools
    /// changed: minimum, rates, paytable…). A pool new in `rulebooks` opens at its
    /// minimum, contributed by the house ([`Pool::open`]); a pool of this engine missing
    /// from `rulebooks` is refused: pools are retired, never dropped. Nothing changes in
    /// `self`. A reserve a pool's new rules no longer draw on stays where it is until the
    /// pool is retired; a round settled before the change is rejected under the new
    /// rules, and refused if one of its codes left the paytable.
    pub fn with_rulebooks(&self, rulebooks: &Rulebooks) -> Result<Engine, EngineError> {
        let missing: Vec<String> =
            self.pools.keys().filter(|id| rulebooks.pool(id.as_str()).is_none()).map(|id| format!("`{id}`")).collect();
        if !missing.is_empty() {
            let (pools, are) = if missing.len() == 1 { ("pool", "is") } else { ("pools", "are") };
            return Err(EngineError::invalid(
                "rulebooks",
                format!("{pools} {} {are} missing from the new rulebooks: a pool is retired, never dropped", missing.join(", ")),
            ));
        }
        // A level's money is never dropped: new rules keep every level a pool has, by name, and
        // its first level first (its balances are the pool's own); a level may be added.
        for pool in self.pools.values() {
            let Some(rules) = rulebooks.pool(pool.rules().id.as_str()) else { continue };
            let had = &pool.rules().levels;
            if let Some(gone) = had.iter().find(|level| !rules.levels.iter().any(|new| new.name == level.name)) {
                return Err(EngineError::invalid(
                    "rulebooks",
                    format!(
                        "pool `{}`: level `{}` is missing from the new rulebooks: a level's money is never dropped (set its share to 0, or retire the pool into another)",
                        rules.id, gone.name
                    ),
                ));
            }
            if let (Some(first), Some(new_first)) = (had.first(), rules.levels.first())
                && first.name != new_first.name
            {
                return Err(EngineError::invalid(
                    "rulebooks",
                    format!("pool `{}`: the first level stays `{}` (its balances are the pool's own)", rules.id, first.name),
                ));
            }
            // A retired level stays retired: nothing feeds it or is paid from it again.
            for (index, level) in had.iter().enumerate().skip(1).filter(|(index, _)| pool.level(*index).is_retired()) {
                let Some(now) = rules.levels.iter().position(|new| new.name == level.name) else { continue };
                let fed = !rules.levels[now].share.is_zero() || !rules.levels[now].reserve_share.is_zero();
                let paid = rules.prizes.iter().any(|prize| prize.level == now);
                let overflowed = rules
                    .levels
                    .iter()
                    .any(|other| matches!(other.cap, Some((_, crate::rulebook::Overflow::Level(at))) if at == now));
                if fed || paid || overflowed {
                    return Err(EngineError::invalid(
                        "rulebooks",
                        format!(
                            "pool `{}`: level `{}` is retired (index {index}): its share and reserve share stay 0 and no prize or overflow goes to it",
                            rules.id, level.name
                        ),
                    ));
                }
            }
            if had.is_empty() && !rules.levels.is_empty() {
                return Err(EngineError::invalid(
                    "rulebooks",
                    format!("pool `{}` of one level cannot take levels while live: open a new pool with them", rules.id),
                ));
            }
        }
        let pools = rulebooks
            .pools()
            .map(|rules| {
                let rules = Arc::new(rules.clone());
                let pool = match self.pools.get(&rules.id) {
                    Some(pool) => pool.with_rules(rules),
                    None => Pool::open(rules),
                };
                (pool.rules().id.clone(), pool)
            })
            .collect();
        Ok(Engine { pools })
    }

    /// Every pool's balances and meters, for a snapshot.
    pub fn states(&self) -> BTreeMap<PoolId, PoolState> {
        self.pools.iter().map(|(id, pool)| (id.clone(), pool.state())).collect()
    }

    /// How far each pool is from conservation; all zero when the books balance.
    pub fn conservation(&self) -> Vec<(PoolId, Money)> {
        self.pools.iter().map(|(id, pool)| (id.clone(), pool.conservation_difference())).collect()
    }

    pub fn pool(&self, id: &str) -> Result<&Pool, EngineError> {
        self.pools.get(id).ok_or_else(|| self.unknown(id))
    }

    pub fn pools(&self) -> impl Iterator<Item = &Pool> {
        self.pools.values()
    }

    fn pool_mut(&mut self, id: &str) -> Result<&mut Pool, EngineError> {
        if !self.pools.contains_key(id) {
            return Err(self.unknown(id));
        }
        Ok(self.pools.get_mut(id).expect("checked above"))
    }

    fn unknown(&self, id: &str) -> EngineError {
        let known: Vec<&str> = self.pools.keys().map(PoolId::as_str).collect();
        EngineError::UnknownPool { pool: id.to_owned(), known: known.join(", ") }
    }

    /// Registers a side bet in a pool (3.2.1, 11.2.3, 15.2.4, AJ 2.5.6.3).
    pub fn register_bet(&mut self, pool: &str, bet: Money) -> Result<Contribution, EngineError> {
        self.pool_mut(pool)?.register_bet(bet)
    }

    /// [`Engine::register_bet`] at a table of `bank` (a pool with banked levels needs it).
    pub fn register_bet_at(
        &mut self,
        pool: &str,
        bet: Money,
        bank: Option<&crate::rulebook::Bank>,
    ) -> Result<Contribution, EngineError> {
        self.pool_mut(pool)?.register_bet_at(bet, bank)
    }

    /// [`Engine::settle_round`] at a table of `bank` (a pool with banked levels needs it).
    pub fn settle_round_at(
        &mut self,
        pool: &str,
        winners: &[Winner],
        bank: Option<&crate::rulebook::Bank>,
    ) -> Result<Settlement, EngineError> {
        self.pool_mut(pool)?.settle_round_at(winners, bank)
    }

    /// Reverses a registered bet that was voided or refunded (4.3.2, 11.8.2).
    pub fn reverse_bet(&mut self, pool: &str, contribution: Contribution) -> Result<Reversal, EngineError> {
        self.pool_mut(pool)?.reverse_bet(contribution)
    }

    /// Pays the winners of one round at one table (docs/readings.md, "A round is one round at one table").
    pub fn settle_round(&mut self, pool: &str, winners: &[Winner]) -> Result<Settlement, EngineError> {
        self.pool_mut(pool)?.settle_round(winners)
    }

    /// Undoes one award the Venta-Pagos office rejected, and only it (docs/readings.md,
    /// "What a Venta-Pagos rejection undoes").
    pub fn reject_award(
        &mut self,
        book: &mut RoundBook,
        seat: Seat,
        code: &str,
        pending: impl Fn(Seat, &str) -> bool,
    ) -> Result<Rejection, EngineError> {
        let pool = book.pool.clone();
        self.pool_mut(&pool)?.reject_award(book, seat, code, pending)
    }

    /// [`Engine::reject_award`] of a seat at table `at`, where the round names tables (an envy
    /// bonus across the link); `pending` is asked with each award's table.
    pub fn reject_award_at(
        &mut self,
        book: &mut RoundBook,
        at: Option<&crate::ids::TableId>,
        seat: Seat,
        code: &str,
        pending: impl Fn(Option<&crate::ids::TableId>, Seat, &str) -> bool,
    ) -> Result<Rejection, EngineError> {
        let pool = book.pool.clone();
        self.pool_mut(&pool)?.reject_award_at(book, at, seat, code, pending)
    }

    /// A mystery level's hit at `trigger`: its meter beyond the trigger to its reserve ([`Pool::mystery_spill`]).
    pub fn mystery_spill(&mut self, pool: &str, level: usize, trigger: Money) -> Result<Money, EngineError> {
        self.pool_mut(pool)?.mystery_spill(level, trigger)
    }

    /// Puts back an award its winner returned because the bet was invalid (3.7.3).
    pub fn reclaim_award(&mut self, pool: &str, amount: Money) -> Result<(), EngineError> {
        self.pool_mut(pool)?.reclaim_award(amount)
    }

    /// Moves `amount` from the main pool of `from` to the main pool of `to` (`moves.rs`):
    /// two live pools, whole centavos, at most what `from`'s main pool holds. Refused, it
    /// changes nothing.
    pub fn transfer(&mut self, from: &str, to: &str, amount: Money) -> Result<Transfer, EngineError> {
        let (source, destination) = self.two_live_pools(("from", from), ("to", to))?;
        source.check_transfer_out("amount", amount)?;
        destination.check_room("amount", amount)?;
        let (from, to) = (source.rules().id.clone(), destination.rules().id.clone());
        let from_balance_after = self.pool_mut(&from)?.transfer_out(amount);
        let to_balance_after = self.pool_mut(&to)?.transfer_in(amount);
        Ok(Transfer { from, to, amount, from_balance_after, to_balance_after })
    }

    /// Retires `pool` into `to` (`moves.rs`): its whole main and reserve balances go to
    /// the main pool of `to`, and from then no money moves in it; its meters stay. Both
    /// must be live and different. Refused, it changes nothing.
    pub fn retire(&mut self, pool: &str, to: &str) -> Result<Retirement, EngineError> {
        let (retiring, destination) = self.two_live_pools(("pool", pool), ("to", to))?;
        destination.check_room("to", retiring.balance() + retiring.reserve())?;
        let (pool, to) = (retiring.rules().id.clone(), destination.rules().id.clone());
        let (balance, reserve) = self.pool_mut(&pool)?.retire();
        let to_balance_after = self.pool_mut(&to)?.transfer_in(balance + reserve);
        Ok(Retirement { pool, to, balance, reserve, to_balance_after })
    }

    /// Retires level `level` of `pool` into its level `to` ([`Pool::retire_level`]).
    pub fn retire_level(&mut self, pool: &str, level: &str, to: &str) -> Result<crate::moves::LevelRetirement, EngineError> {
        self.pool_mut(pool)?.retire_level(level, to)
    }

    /// Corrects the main balance of `pool` by `amount`, up or down ([`Pool::adjust`]).
    pub fn adjust(&mut self, pool: &str, amount: Money) -> Result<(), EngineError> {
        self.pool_mut(pool)?.adjust(amount)
    }

    /// Two different pools, both known and live, for a move from the first to the
    /// second; each named by its field in the caller's input.
    fn two_live_pools(
        &self,
        (from_field, from): (&str, &str),
        (to_field, to): (&str, &str),
    ) -> Result<(&Pool, &Pool), EngineError> {
        let (source, destination) = (self.pool(from)?, self.pool(to)?);
        if from == to {
            return Err(EngineError::invalid(
                to_field,
                format!("`{to}` is also the `{from_field}`: money moves from one pool to another"),
            ));
        }
        source.check_not_retired(from_field)?;
        destination.check_not_retired(to_field)?;
        Ok((source, destination))
    }

    /// The displayed amount of a pool: the Pago Máximo at this moment (3.5.1).
    pub fn displayed(&self, pool: &str) -> Result<Money, EngineError> {
        Ok(self.pool(pool)?.displayed())
    }

    pub fn totals(&self) -> Totals {
        let mut totals = Totals::default();
        for pool in self.pools.values() {
            let m = pool.meters();
            totals.bets += m.net_bets();
            totals.bets_amount += m.net_bets_amount();
            totals.commission += m.net_commission();
            totals.contributions += m.net_contributions();
            totals.replenishments += m.net_replenishments();
            totals.awards += m.net_awards();
            totals.hits += m.hits;
            totals.balances += pool.balance() + pool.reserve();
            totals.transfers_in += m.transfers_in;
            totals.transfers_out += m.transfers_out;
            totals.adjustments_up += m.adjustments_up;
            totals.adjustments_down += m.adjustments_down;
        }
        debug_assert_eq!(
            totals.contributions + totals.replenishments + totals.transfers_in + totals.adjustments_up
                - totals.balances
                - totals.awards
                - totals.transfers_out
                - totals.adjustments_down,
            Money::ZERO,
            "every pool conserves, so their sum does"
        );
        debug_assert_eq!(totals.transfers_in, totals.transfers_out, "what leaves one pool arrives in another");
        totals
    }
}
