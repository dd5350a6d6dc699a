//! Undoing one award the Venta-Pagos office rejected, and only it
//! (docs/readings.md, "What a Venta-Pagos rejection undoes").
//!
//! A rejected award is undone as if that winner had never been entered in the
//! round, and nothing else changes:
//!
//! - the amount returns to the pool it came from;
//! - whatever the house or the reserve put in *because of* that award (completing
//!   the minimum to pay it, 3.2.2 / 11.2.2 / 15.2.3; the reset after a 100% prize,
//!   15.2.2; a shortfall, AJ 2.5.6.3) comes back out to whoever put it in;
//! - winners of the same round whose orders are still pending are re-settled as if
//!   the rejected one had not competed: their factor or share can only grow;
//! - amounts already paid (at the table, or confirmed by Venta-Pagos) stand;
//! - contributions and awards of later rounds stand: they were fixed when they
//!   were marked (3.5.1).
//!
//! The round is replayed twice from the balances it was marked on: as it stands
//! now and as it stands after the rejection. The difference between the two is
//! what moves in the live pool, so later contributions stay where they are.

use crate::error::EngineError;
use crate::ids::{PrizeCode, TableId};
use crate::money::Money;
use crate::pool::{Funding, Pool};
use crate::rulebook::PrizeValue;
use crate::settle::{self, Award, BookedAward, RoundBook, RoundEffect, Seat, Winner};

/// An award of the same round that a rejection raised: one still pending, or one
/// fixed at zero and so never paid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resettled {
    pub seat: Seat,
    pub code: PrizeCode,
    /// The seat's table, where the round names tables (an envy bonus across the link).
    pub at: Option<TableId>,
    pub before: Money,
    pub after: Money,
}

/// The live pool's balances after a rejection, and what the house and the reserve put in
/// (negative: what they take back).
#[derive(Clone, Copy)]
struct Moved {
    balance: Money,
    reserve: Money,
    house_in: Money,
    reserve_in: Money,
}

/// What one rejection moved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    /// The rejected award, back in the pool.
    pub returned: Money,
    /// Pending awards of the same round raised by the re-settlement.
    pub resettled: Vec<Resettled>,
    /// House money taken back out (negative when the house had to put more in).
    pub house_withdrawn: Money,
    /// Reserve money moved back from the main pool to the reserve.
    pub reserve_returned: Money,
}

impl Pool {
    /// Undoes the award of `seat`/`code` in the round `book` keeps; `pending` tells
    /// which awards of that round are still unpaid (their orders pending), so they
    /// are re-settled; every other award stands. Refused, changing nothing, when the
    /// award is not in the round, was rejected already, or the book is of another pool.
    pub fn reject_award(
        &mut self,
        book: &mut RoundBook,
        seat: Seat,
        code: &str,
        pending: impl Fn(Seat, &str) -> bool,
    ) -> Result<Rejection, EngineError> {
        self.reject_award_at(book, None, seat, code, |_, seat, code| pending(seat, code))
    }

    /// [`Pool::reject_award`] of a seat at table `at`, where the round names tables (an envy
    /// bonus across the link, [`Winner::at`]); `pending` is asked with each award's table.
    pub fn reject_award_at(
        &mut self,
        book: &mut RoundBook,
        at: Option<&TableId>,
        seat: Seat,
        code: &str,
        pending: impl Fn(Option<&TableId>, Seat, &str) -> bool,
    ) -> Result<Rejection, EngineError> {
        let bank = book.bank.clone();
        self.in_bank(bank.as_ref(), |pool| pool.reject_here(book, at, seat, code, pending))
    }

    fn reject_here(
        &mut self,
        book: &mut RoundBook,
        at: Option<&TableId>,
        seat: Seat,
        code: &str,
        pending: impl Fn(Option<&TableId>, Seat, &str) -> bool,
    ) -> Result<Rejection, EngineError> {
        if self.further_levels() > 0 {
            // A pool with levels: the award is undone in the level that paid it, from that
            // level's book; the round's other levels are untouched (each prorated alone).
            let Some(level_book) = book.level_book_mut(at, seat, code) else {
                return Err(no_award(at, seat, code));
            };
            let level = level_book.level;
            if level > self.further_levels() {
                return Err(EngineError::invalid("award", format!("the round's level {level} is not a level of this pool")));
            }
            let more = std::mem::take(&mut level_book.more);
            let rejection = self.level_mut(level).reject_in_level(level_book, at, seat, code, pending);
            level_book.more = more;
            self.assert_conservation();
            return rejection;
        }
        self.reject_in_level(book, at, seat, code, pending)
    }

    /// [`Pool::reject_award`] in one level, whose book `book` is.
    fn reject_in_level(
        &mut self,
        book: &mut RoundBook,
        at: Option<&TableId>,
        seat: Seat,
        code: &str,
        pending: impl Fn(Option<&TableId>, Seat, &str) -> bool,
    ) -> Result<Rejection, EngineError> {
        let index = self.award_to_reject(book, at, seat, code)?;
        let returned = book.awards[index].award;
        let counterfactual = self.without_rejected(book, index);
        let (awards, resettled) = self.resettle(book, index, &counterfactual, pending);
        let effect = self.replay(book, &awards);
        let moved = self.live_difference(book.effect, effect);
        let raised: Money = resettled.iter().map(|award| award.after - award.before).sum();
        self.book_rejection(returned, raised, moved);
        book.awards = awards;
        book.effect = effect;
        Ok(Rejection { returned, resettled, house_withdrawn: -moved.house_in, reserve_returned: -moved.reserve_in })
    }

    /// The index in the book of the award to reject: of this pool, in the round, and not
    /// rejected already. The pool must still be live (a retired pool moves no money,
    /// `moves.rs`), and every code of the round still in its paytable: the round is
    /// replayed under the pool's rules, which may have changed since (`Engine::with_rulebooks`).
    fn award_to_reject(&self, book: &RoundBook, at: Option<&TableId>, seat: Seat, code: &str) -> Result<usize, EngineError> {
        if book.pool != self.rules().id {
            return Err(EngineError::invalid(
                "pool",
                format!("the round was settled in `{}`, not `{}`", book.pool, self.rules().id),
            ));
        }
        self.check_not_retired("pool")?;
        let codes = book.winners.iter().map(|winner| &winner.code).chain(book.awards.iter().map(|award| &award.code));
        if let Some(gone) = codes.into_iter().find(|code| self.rules().prize(code).is_none()) {
            return Err(EngineError::not_now(
                "award",
                format!(
                    "the round's `{gone}` is no longer in the paytable of pool `{}`: its rules changed since the round was settled",
                    self.rules().id
                ),
            ));
        }
        let Some(index) = book.awards.iter().position(|award| award.is(at, seat, code)) else {
            return Err(no_award(at, seat, code));
        };
        if book.awards[index].rejected {
            return Err(EngineError::not_now("award", format!("{} `{code}` was already rejected", seat_named(at, seat))));
        }
        Ok(index)
    }

    /// The round as if the rejected winner (and every earlier rejected one) had not
    /// competed, settled from the balances it was marked on.
    fn without_rejected(&self, book: &RoundBook, index: usize) -> Vec<Award> {
        let rejected = |winner: &Winner| {
            book.awards.iter().enumerate().any(|(position, award)| {
                (award.rejected || position == index) && award.is(winner.at.as_ref(), winner.seat, &winner.code)
            })
        };
        let remaining: Vec<Winner> = book.winners.iter().filter(|winner| !rejected(winner)).cloned().collect();
        if remaining.is_empty() {
            Vec::new()
        } else {
            let mut scratch = self.scratch(book.balance_before, book.reserve_before);
            settle::settle(&mut scratch, &remaining).awards
        }
    }

    /// The round's awards after the rejection: pending awards take the re-settled amount
    /// (never less than they had); paid ones stand; the rejected one is zero. With them,
    /// the awards the re-settlement raised.
    fn resettle(
        &self,
        book: &RoundBook,
        index: usize,
        counterfactual: &[Award],
        pending: impl Fn(Option<&TableId>, Seat, &str) -> bool,
    ) -> (Vec<BookedAward>, Vec<Resettled>) {
        let mut awards = book.awards.clone();
        let mut resettled = Vec::new();
        for (at, award) in awards.iter_mut().enumerate() {
            if at == index {
                award.rejected = true;
                award.award = Money::ZERO;
                continue;
            }
            // An award fixed at zero (a share of nothing left) was never paid: it is
            // re-settled like a pending one. A grant (bronze → silver) pays no money.
            let unpaid = award.award.is_zero()
                && !matches!(self.rules().prize(&award.code).map(|prize| &prize.value), Some(PrizeValue::Grant) | None);
            if award.rejected || !(pending(award.at.as_ref(), award.seat, &award.code) || unpaid) {
                continue;
            }
            let again = counterfactual
                .iter()
                .find(|other| other.seat == award.seat && other.at == award.at && other.code == award.code)
                .map(|other| other.award)
                .unwrap_or(award.award);
            if again > award.award {
                resettled.push(Resettled {
                    seat: award.seat,
                    code: award.code.clone(),
                    at: award.at.clone(),
                    before: award.award,
                    after: again,
                });
                award.award = again;
            }
        }
        (awards, resettled)
    }

    /// How the live pool moves: by the difference between the round as it was (`before`)
    /// and as it is (`after`).
    fn live_difference(&self, before: RoundEffect, after: RoundEffect) -> Moved {
        let mut balance = self.main_balance() + after.balance_after - before.balance_after;
        let mut reserve = self.main_reserve() + after.reserve_after - before.reserve_after;
        let mut house_in = after.from_house - before.from_house;
        let mut reserve_in = after.from_reserve - before.from_reserve;
        // Later prizes may have spent what would go back: the main pool keeps what
        // keeps it from going negative, taken first from what the reserve was to get
        // back, then from what the house was to take back.
        if balance < Money::ZERO && reserve_in < Money::ZERO {
            let kept = (-balance).min(-reserve_in).min(reserve);
            reserve -= kept;
            balance += kept;
            reserve_in += kept;
        }
        if balance < Money::ZERO {
            house_in -= balance;
            balance = Money::ZERO;
        }
        if reserve < Money::ZERO {
            house_in -= reserve;
            reserve = Money::ZERO;
        }
        Moved { balance, reserve, house_in, reserve_in }
    }

    /// The live pool's new balances, and the meters of what the rejection moved.
    fn book_rejection(&mut self, returned: Money, raised: Money, moved: Moved) {
        let Moved { balance, reserve, house_in, reserve_in } = moved;
        self.set_balances(balance, reserve);
        let meters = self.meters_mut();
        meters.awards_returned += returned;
        meters.awards += raised;
        meters.rejections += 1;
        if house_in >= Money::ZERO {
            meters.replenishments += house_in;
        } else {
            meters.replenishments_withdrawn -= house_in;
        }
        if reserve_in >= Money::ZERO {
            meters.reserve_transfers += reserve_in;
        } else {
            meters.reserve_transfers_returned -= reserve_in;
        }
        self.assert_conservation();
    }

    /// What the round's awards, at the amounts given, do to the balances it was
    /// marked on: each stage paid (the shortfall completed, reserve first), then the
    /// reset where a 100% prize stands (3.2.2, 11.2.2, 15.2.2, 3.4.2, AJ 2.5.6.3).
    fn replay(&self, book: &RoundBook, awards: &[BookedAward]) -> RoundEffect {
        let rules = self.rules();
        let mut stages = [(Money::ZERO, 0_u64, false); 2];
        for award in awards.iter().filter(|award| !award.rejected) {
            let prize = rules.prize(&award.code).expect("a booked award is in the paytable");
            let stage = &mut stages[settle::stage_of(rules, prize)];
            stage.0 += award.award;
            stage.1 += 1;
            stage.2 |= prize.value.is_full_pool();
        }
        let mut scratch = self.scratch(book.balance_before, book.reserve_before);
        let mut funding = Funding::default();
        for (paid, hits, full_pool) in stages {
            if hits == 0 {
                continue;
            }
            funding += scratch.pay(paid, hits);
            if full_pool {
                funding += scratch.reset();
            }
        }
        RoundEffect {
            balance_after: scratch.main_balance(),
            reserve_after: scratch.main_reserve(),
            from_house: funding.from_house,
            from_reserve: funding.from_reserve,
        }
    }
}

/// "seat 3", or "seat 3 of B2" where the round names tables.
fn seat_named(at: Option<&TableId>, seat: Seat) -> String {
    match at {
        Some(table) => format!("seat {seat} of {table}"),
        None => format!("seat {seat}"),
    }
}

fn no_award(at: Option<&TableId>, seat: Seat, code: &str) -> EngineError {
    EngineError::invalid("award", format!("{} has no `{code}` award in this round", seat_named(at, seat)))
}
