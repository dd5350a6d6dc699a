//! The books tied to zero: a pool's reconciliation between two moments (the opening and the
//! close of a jornada, or of a run of jornadas), read off its balances and meters at both ends
//! (docs/rules.md, "Money and conservation"):
//!
//! ```text
//! opening balance and reserve
//!   + contributions (net of voided and refunded bets) + replenishments + transfers in + adjustments up
//!   − awards + awards returned (Venta-Pagos rejections) + awards reclaimed (3.7.3)
//!   − replenishments withdrawn − transfers out − adjustments down
//!   = closing balance and reserve
//! ```
//!
//! Every line is what its meter grew by in the period; the meters only grow, so each line is
//! the sum of the journal entries that booked it. Conservation holds after every entry
//! (`pool.rs`), so the difference is zero: any other figure is a bug, and the report shows it.

use serde::{Deserialize, Serialize};

use crate::money::Money;
use crate::pool::{Meters, Pool};

/// A pool's balances and meters at one moment: what a reconciliation starts or ends at.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolFigures {
    pub balance: Money,
    pub reserve: Money,
    pub meters: Meters,
}

impl Pool {
    /// The pool's balances and meters now.
    pub fn figures(&self) -> PoolFigures {
        PoolFigures { balance: self.balance(), reserve: self.reserve(), meters: self.meters().clone() }
    }
}

/// A pool's books over a period, each line what its meter grew by, and what is left over.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reconciliation {
    pub opening_balance: Money,
    pub opening_reserve: Money,
    /// Side bets registered, net of those voided or refunded, and their amount (IPA).
    pub bets: u64,
    pub bets_amount: Money,
    /// What they added to the main and reserve pools, net of the voided and refunded (3.2.1,
    /// 11.2, 15.2), and how many bets were voided or refunded.
    pub contributions: Money,
    pub reversals: u64,
    /// The house's money put in (the minimum, its completion, resets: 3.2.2, 11.2.2, 15.2.2).
    pub replenishments: Money,
    /// Money from other pools (documented transfers, retirements into this one).
    pub transfers_in: Money,
    /// Documented corrections up, and how many corrections (up and down) there were.
    pub adjustments_up: Money,
    pub adjustments: u64,
    /// Prizes awarded (PPPA), and how many.
    pub awards: Money,
    pub hits: u64,
    /// Awards Venta-Pagos rejected, back in the pool, and how many.
    pub awards_returned: Money,
    pub rejections: u64,
    /// Awards given back by their winner (3.7.3), and how many.
    pub awards_reclaimed: Money,
    pub reclaims: u64,
    /// House money taken back out after a rejection (docs/readings.md).
    pub replenishments_withdrawn: Money,
    /// Money to other pools (transfers, the pool's own retirement).
    pub transfers_out: Money,
    pub adjustments_down: Money,
    pub closing_balance: Money,
    pub closing_reserve: Money,
    /// Closing less what the opening and the lines make: zero when the books tie.
    pub difference: Money,
}

impl Reconciliation {
    /// The books between `opening` and `closing` (a later moment of the same pool).
    pub fn between(opening: &PoolFigures, closing: &PoolFigures) -> Reconciliation {
        let (a, b) = (&opening.meters, &closing.meters);
        let grew = |meter: fn(&Meters) -> Money| meter(b) - meter(a);
        let mut books = Reconciliation {
            opening_balance: opening.balance,
            opening_reserve: opening.reserve,
            bets: b.net_bets().saturating_sub(a.net_bets()),
            bets_amount: grew(Meters::net_bets_amount),
            contributions: grew(Meters::net_contributions),
            reversals: b.reversals.saturating_sub(a.reversals),
            replenishments: grew(|m| m.replenishments),
            transfers_in: grew(|m| m.transfers_in),
            adjustments_up: grew(|m| m.adjustments_up),
            adjustments: b.adjustments.saturating_sub(a.adjustments),
            awards: grew(|m| m.awards),
            hits: b.hits.saturating_sub(a.hits),
            awards_returned: grew(|m| m.awards_returned),
            rejections: b.rejections.saturating_sub(a.rejections),
            awards_reclaimed: grew(|m| m.awards_reclaimed),
            reclaims: b.reclaims.saturating_sub(a.reclaims),
            replenishments_withdrawn: grew(|m| m.replenishments_withdrawn),
            transfers_out: grew(|m| m.transfers_out),
            adjustments_down: grew(|m| m.adjustments_down),
            closing_balance: closing.balance,
            closing_reserve: closing.reserve,
            difference: Money::ZERO,
        };
        books.difference = closing.balance + closing.reserve - books.expected_closing();
        books
    }

    /// What the opening and the lines make: the closing balance and reserve when the books tie.
    pub fn expected_closing(&self) -> Money {
        self.opening_balance
            + self.opening_reserve
            + self.contributions
            + self.replenishments
            + self.transfers_in
            + self.adjustments_up
            - self.awards
            + self.awards_returned
            + self.awards_reclaimed
            - self.replenishments_withdrawn
            - self.transfers_out
            - self.adjustments_down
    }

    /// Whether the books tie to zero.
    pub fn ties(&self) -> bool {
        self.difference.is_zero()
    }
}
