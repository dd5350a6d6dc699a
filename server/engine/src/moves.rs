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
use crate::rulebook::Overflow;

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

/// What one level's retirement moved: every meter of the level (each bank's, for a banked
/// level), main and reserve, into the main balance of another level of the same pool.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LevelRetirement {
    pub pool: PoolId,
    pub level: String,
    pub to: String,
    pub balance: Money,
    pub reserve: Money,
    pub to_balance_after: Money,
}

impl Pool {
    /// Retires level `level` into level `to` of this pool (docs/readings.md, "Retiring a level"):
    /// everything it holds, main and reserve, every bank's meter of it, goes to `to`'s main
    /// balance, booked as transfers on each level's meters; the level is then retired: it shows
    /// nothing, its meters stay, frozen, and no money moves in it again. Only a level nothing
    /// feeds or pays any more: its share and reserve share already 0 (a change), no prize, envy
    /// or overflow paid from or into it. The first level (the pool's own balances) is never
    /// retired alone: the pool is. Refused, it changes nothing.
    pub fn retire_level(&mut self, level: &str, to: &str) -> Result<LevelRetirement, EngineError> {
        self.check_not_retired("pool")?;
        let rules = self.shared_rules();
        let index = |field: &str, name: &str| {
            rules
                .levels
                .iter()
                .position(|rules| rules.name == name && !rules.house)
                .ok_or_else(|| EngineError::invalid(field, format!("`{name}` is not a level of pool `{}`", rules.id)))
        };
        let (from, into) = (index("level", level)?, index("to", to)?);
        if from == 0 {
            return Err(EngineError::invalid(
                "level",
                format!(
                    "`{level}` is the first level of pool `{}`: it holds the pool's own balances; retire the pool instead",
                    rules.id
                ),
            ));
        }
        if from == into {
            return Err(EngineError::invalid("to", "a retired level's money goes to another level"));
        }
        if rules.levels[into].is_mystery() {
            // Its meter moves by its own share and its hits only (docs/readings.md, "The mystery level").
            return Err(EngineError::invalid("to", format!("`{to}` is a mystery level: it grows by its own share only")));
        }
        let retiring = &rules.levels[from];
        if !retiring.share.is_zero() || !retiring.reserve_share.is_zero() {
            return Err(EngineError::not_now(
                "level",
                format!(
                    "level `{level}` still takes {} of each bet ({} to its reserve): set both to 0 first, by a change",
                    retiring.share, retiring.reserve_share
                ),
            ));
        }
        if let Some(prize) = rules.prizes.iter().find(|prize| prize.level == from) {
            return Err(EngineError::not_now(
                "level",
                format!("`{}` is still paid from level `{level}`: move it to another level first, by a change", prize.code),
            ));
        }
        if let Some(feeding) = rules.levels.iter().find(|other| matches!(other.cap, Some((_, Overflow::Level(at))) if at == from))
        {
            return Err(EngineError::not_now(
                "level",
                format!("level `{}` overflows into `{level}`: send its overflow elsewhere first, by a change", feeding.name),
            ));
        }
        if rules.levels[into].bank.is_some() {
            return Err(EngineError::invalid(
                "to",
                format!("level `{to}` keeps a meter per bank: a retired level's money goes to a level every table shares"),
            ));
        }
        if self.level(from).is_retired() {
            return Err(EngineError::not_now("level", format!("level `{level}` is retired already")));
        }
        if into > 0 && self.level(into).is_retired() {
            return Err(EngineError::not_now("to", format!("level `{to}` is retired: no money moves in it")));
        }
        let held: Money = self.level_meters_of(from).map(|meter| meter.main_balance() + meter.main_reserve()).sum();
        self.level(into).check_room("to", held)?;
        let (mut balance, mut reserve) = (Money::ZERO, Money::ZERO);
        for meter in self.level_meters_of_mut(from) {
            let (main, set_aside) = meter.retire();
            balance += main;
            reserve += set_aside;
        }
        let to_balance_after = self.level_mut(into).transfer_in(balance + reserve);
        self.assert_conservation();
        Ok(LevelRetirement {
            pool: rules.id.clone(),
            level: level.to_owned(),
            to: to.to_owned(),
            balance,
            reserve,
            to_balance_after,
        })
    }

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
