//! What the books keep of a settled round while any of its awards may still be rejected by
//! Venta-Pagos (docs/readings.md, "What a Venta-Pagos rejection undoes"): the balances it was
//! marked on, its winners, each award as it stands, and what it did to the pool, level by level.

use serde::{Deserialize, Serialize};

use super::*;

/// A settled round as the books keep it while any of its awards may be rejected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundBook {
    pub pool: PoolId,
    /// The main and reserve balances when the prizes were marked (3.5.1).
    pub balance_before: Money,
    pub reserve_before: Money,
    /// The winners that competed (a combination superseded by a higher one of the
    /// same seat, Veintiuno e, never did).
    pub winners: Vec<Winner>,
    /// Every award of the round as it stands now.
    pub awards: Vec<BookedAward>,
    /// What the round, as it stands now, did to the pool.
    pub effect: RoundEffect,
    /// The level these awards were paid from (a pool with levels prorates per level); 0, and
    /// absent from the record, in a pool of one level.
    #[serde(default, skip_serializing_if = "is_first_level")]
    pub level: usize,
    /// The same round's awards from the pool's other levels, each its own book.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more: Vec<RoundBook>,
    /// In a pool with banked levels, the bank of the table the round was played at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bank: Option<crate::rulebook::Bank>,
}

fn is_first_level(level: &usize) -> bool {
    *level == 0
}

/// One award of a booked round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BookedAward {
    pub seat: Seat,
    pub code: PrizeCode,
    /// The seat's table, where the round names tables ([`Winner::at`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<TableId>,
    /// What it pays now: fixed at marking, raised only by a re-settlement.
    pub award: Money,
    pub rejected: bool,
}

/// What a round did to its pool, replayed from the balances it was marked on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundEffect {
    pub balance_after: Money,
    pub reserve_after: Money,
    /// What the house put in for the round's awards (completion, shortfall, reset).
    pub(crate) from_house: Money,
    /// What the reserve pool put in for them (AJ 2.5.6.3).
    pub(crate) from_reserve: Money,
}

impl RoundBook {
    /// The award of `seat` and `code` in this round, from whichever level paid it.
    pub fn award(&self, seat: Seat, code: &str) -> Option<&BookedAward> {
        self.award_at(None, seat, code)
    }

    /// [`RoundBook::award`] of a seat at table `at`, where the round names tables.
    pub fn award_at(&self, at: Option<&TableId>, seat: Seat, code: &str) -> Option<&BookedAward> {
        self.awards
            .iter()
            .find(|award| award.is(at, seat, code))
            .or_else(|| self.more.iter().find_map(|book| book.award_at(at, seat, code)))
    }

    /// Every award of the round, every level's.
    pub fn all_awards(&self) -> impl Iterator<Item = &BookedAward> {
        self.awards.iter().chain(self.more.iter().flat_map(|book| book.awards.iter()))
    }

    /// The book of the level that paid `seat` `code`, mutable.
    pub(crate) fn level_book_mut(&mut self, at: Option<&TableId>, seat: Seat, code: &str) -> Option<&mut RoundBook> {
        if self.awards.iter().any(|award| award.is(at, seat, code)) {
            return Some(self);
        }
        self.more.iter_mut().find(|book| book.awards.iter().any(|award| award.is(at, seat, code)))
    }
}

impl BookedAward {
    /// The award of `seat` (at table `at`, where the round names tables) for `code`.
    pub fn is(&self, at: Option<&TableId>, seat: Seat, code: &str) -> bool {
        self.seat == seat && self.at.as_ref() == at && self.code == code
    }
}
