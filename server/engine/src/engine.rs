//! Every pool of the loaded rulebooks, by id: the state a controller keeps.
//!
//! Each operation names its pool and either changes exactly that pool or, when the
//! input is refused, changes nothing at all.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::error::EngineError;
use crate::ids::PoolId;
use crate::money::Money;
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
}

impl Engine {
    pub fn new(rulebooks: &Rulebooks) -> Engine {
        let pools = rulebooks.pools().map(|rules| (rules.id.clone(), Pool::open(Arc::new(rules.clone())))).collect();
        Engine { pools }
    }

    /// The pools as a snapshot kept them, under the rules of `rulebooks`; every
    /// pool of the rulebooks must be there and balance.
    pub fn restore(rulebooks: &Rulebooks, states: &BTreeMap<PoolId, PoolState>) -> Result<Engine, EngineError> {
        let mut pools = BTreeMap::new();
        for rules in rulebooks.pools() {
            let state = states
                .get(&rules.id)
                .ok_or_else(|| EngineError::invalid("snapshot", format!("pool `{}` is missing", rules.id)))?;
            pools.insert(rules.id.clone(), Pool::restore(Arc::new(rules.clone()), state.clone())?);
        }
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

    /// Puts back an award its winner returned because the bet was invalid (3.7.3).
    pub fn reclaim_award(&mut self, pool: &str, amount: Money) -> Result<(), EngineError> {
        self.pool_mut(pool)?.reclaim_award(amount)
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
        }
        debug_assert_eq!(
            totals.contributions + totals.replenishments - totals.balances - totals.awards,
            Money::ZERO,
            "every pool conserves, so their sum does"
        );
        totals
    }
}
