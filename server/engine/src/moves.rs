//! Money a documented procedure moves in live pools, outside play: a transfer from one
//! pool to another, a pool's retirement into another, and a correction of a main
//! balance. In a casino's year a live pool's money moves only this way, each move
//! approved by two people; the approval is the caller's, the money moves are here.
//!
//! Each move is checked whole before anything changes (refused, it changes nothing) and
//! is booked on meters of its own that only grow, so conservation keeps holding in every
//! pool (pool.rs, the identity at its head):
//!
//! - a **transfer** takes whole centavos from one main pool (`transfers_out`) and puts
//!   them in another's (`transfers_in`): over all pools the two meters are equal;
//! - a **retirement** moves everything the pool holds, main and reserve to the last
//!   fraction, into another pool's main pool, booked as a transfer (the reserve's part
//!   also on `transfers_out_of_reserve`); the pool is then retired: its meters stay,
//!   frozen, it shows zero, and no money moves in it again;
//! - an **adjustment** corrects a main balance up (`adjustments_up`) or down
//!   (`adjustments_down`), never below zero.
//!
//! What arrives in a pool goes to its main pool, on its sign at once: a reserve is fed
//! only by its own pool's bets (AJ 2.5.6.3). No move goes over [`BALANCE_MAX`], the
//! largest balance the award arithmetic is bounded for.

use crate::error::EngineError;
use crate::ids::PoolId;
use crate::money::{BALANCE_MAX, CENT, Money, is_multiple_of};
use crate::pool::Pool;

/// What one transfer moved, and the main balances it left.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Transfer {
    pub from: PoolId,
    pub to: PoolId,
    pub amount: Money,
    pub from_balance_after: Money,
    pub to_balance_after: Money,
}

/// What one retirement moved: the retired pool's main and reserve balances, all of
/// them, into the main pool of `to`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Retirement {
    pub pool: PoolId,
    pub to: PoolId,
    /// The retired pool's main balance, with every fraction it held.
    pub balance: Money,
    /// Its reserve balance.
    pub reserve: Money,
    pub to_balance_after: Money,
}

impl Retirement {
    /// Everything the retired pool held, now in `to`.
    pub fn total(&self) -> Money {
        self.balance + self.reserve
    }
}

/// An amount a procedure moves: positive and whole centavos (a fraction of a centavo
/// is never paid or counted out, money.rs).
fn check_amount(field: &str, amount: Money) -> Result<(), EngineError> {
    if amount <= Money::ZERO {
        return Err(EngineError::invalid(field, format!("must be greater than zero, found {amount}")));
    }
    if !is_multiple_of(amount, CENT) {
        return Err(EngineError::invalid(field, format!("{amount} is finer than one centavo")));
    }
    Ok(())
}

impl Pool {
    /// Corrects the main balance by `amount`: up when positive, down when negative, a
    /// documented correction approved outside the engine. Non-zero, whole centavos, never
    /// leaving the balance negative nor over [`BALANCE_MAX`]; refused in a retired pool.
    /// Booked on `adjustments_up` or `adjustments_down`, and counted.
    pub fn adjust(&mut self, amount: Money) -> Result<(), EngineError> {
        self.check_not_retired("pool")?;
        if amount.is_zero() {
            return Err(EngineError::invalid("amount", "an adjustment of zero corrects nothing"));
        }
        check_amount("amount", amount.abs())?;
        if self.main_balance() + amount < Money::ZERO {
            return Err(EngineError::not_now(
                "amount",
                format!(
                    "{amount} would leave pool `{}` at {}: its main balance is {} and never goes negative",
                    self.rules().id,
                    self.main_balance() + amount,
                    self.main_balance()
                ),
            ));
        }
        self.check_room("amount", amount)?;
        let (balance, reserve) = (self.main_balance() + amount, self.main_reserve());
        self.set_balances(balance, reserve);
        let meters = self.meters_mut();
        if amount > Money::ZERO {
            meters.adjustments_up += amount;
        } else {
            meters.adjustments_down -= amount;
        }
        meters.adjustments += 1;
        self.assert_conservation();
        Ok(())
    }

    /// `amount` may leave this main pool by a transfer: whole centavos, at most the
    /// main balance (the reserve is moved only by a retirement).
    pub(crate) fn check_transfer_out(&self, field: &str, amount: Money) -> Result<(), EngineError> {
        check_amount(field, amount)?;
        if amount > self.main_balance() {
            return Err(EngineError::not_now(
                field,
                format!("{amount} is more than the main balance of pool `{}`, {}", self.rules().id, self.main_balance()),
            ));
        }
        Ok(())
    }

    /// Adding `amount` keeps the main balance within [`BALANCE_MAX`].
    pub(crate) fn check_room(&self, field: &str, amount: Money) -> Result<(), EngineError> {
        let after = self.main_balance() + amount;
        if after > BALANCE_MAX {
            return Err(EngineError::not_now(
                field,
                format!(
                    "would bring pool `{}` to {after}, over the largest balance the engine holds, {BALANCE_MAX}",
                    self.rules().id
                ),
            ));
        }
        Ok(())
    }

    /// Takes a checked `amount` out of the main pool for another pool; the new balance.
    pub(crate) fn transfer_out(&mut self, amount: Money) -> Money {
        debug_assert!(amount >= Money::ZERO && amount <= self.main_balance() && !self.is_retired());
        let (balance, reserve) = (self.main_balance() - amount, self.main_reserve());
        self.set_balances(balance, reserve);
        self.meters_mut().transfers_out += amount;
        self.assert_conservation();
        balance
    }

    /// Puts a checked `amount` from another pool into the main pool; the new balance.
    pub(crate) fn transfer_in(&mut self, amount: Money) -> Money {
        debug_assert!(amount >= Money::ZERO && !self.is_retired());
        let (balance, reserve) = (self.main_balance() + amount, self.main_reserve());
        self.set_balances(balance, reserve);
        self.meters_mut().transfers_in += amount;
        self.assert_conservation();
        balance
    }

    /// Empties the pool, main and reserve, for another pool and marks it retired; what
    /// it held, (main, reserve). Booked as transfers out, the reserve's part also on
    /// `transfers_out_of_reserve`.
    pub(crate) fn retire(&mut self) -> (Money, Money) {
        debug_assert!(!self.is_retired());
        // A pool with levels empties every level: all of it goes to the other pool.
        let (mut balance, mut reserve) = (Money::ZERO, Money::ZERO);
        for level in self.further_levels_mut() {
            let (main, set_aside) = level.retire();
            balance += main;
            reserve += set_aside;
        }
        let (main, set_aside) = (self.main_balance(), self.main_reserve());
        self.set_balances(Money::ZERO, Money::ZERO);
        let meters = self.meters_mut();
        meters.transfers_out += main + set_aside;
        meters.transfers_out_of_reserve += set_aside;
        self.mark_retired();
        self.assert_conservation();
        (balance + main, reserve + set_aside)
    }
}
