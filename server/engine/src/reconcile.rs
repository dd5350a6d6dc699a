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
//!
//! In a pool with levels every level conserves on its own (docs/readings.md, "Levels"), so the
//! same lines are drawn for each level over its own meters and tied to zero on their own: the
//! house level ("Pagado por la casa") too, whose replenishments and awards are what the house
//! paid, and each bank's meter of a banked level ("Major · F2") as a level of its own. The
//! levels' lines add up to the pool's, line by line.

use serde::{Deserialize, Serialize};

use crate::money::Money;
use crate::pool::{Meters, Pool};

/// A pool's balances and meters at one moment: what a reconciliation starts or ends at.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolFigures {
    pub balance: Money,
    pub reserve: Money,
    pub meters: Meters,
    /// In a pool with levels, each level's, first level first, as [`Pool::levels`] lists them
    /// (each bank's meter of a banked level its own, the house level last). Empty in a pool of
    /// one level, and absent from what it serializes to, so its snapshots keep their bytes;
    /// empty too in the openings an earlier release kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub levels: Vec<LevelFigures>,
}

/// One level of a pool with levels at one moment: its name as the reports show it ("Grand",
/// "Major · F2", "Pagado por la casa"), whether it is the house level, its balances and meters.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LevelFigures {
    pub name: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub house: bool,
    pub balance: Money,
    pub reserve: Money,
    pub meters: Meters,
}

impl Pool {
    /// The pool's balances and meters now, each level's in a pool with levels.
    pub fn figures(&self) -> PoolFigures {
        let levels = if self.rules().levels.is_empty() {
            Vec::new()
        } else {
            self.levels()
                .into_iter()
                .map(|level| LevelFigures {
                    name: level.name.unwrap_or_default(),
                    house: level.house,
                    balance: level.balance,
                    reserve: level.reserve,
                    meters: level.meters,
                })
                .collect()
        };
        PoolFigures { balance: self.balance(), reserve: self.reserve(), meters: self.meters(), levels }
    }
}

/// One level's books over a period: [`Reconciliation`]'s lines over the level's own meters.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LevelBooks {
    pub name: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub house: bool,
    pub books: Reconciliation,
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
    /// In a pool with levels, each level's books ([`Reconciliation::between`] says which),
    /// first level first; empty in a pool of one level, and then absent from what it
    /// serializes to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub levels: Vec<LevelBooks>,
}

impl Reconciliation {
    /// The books between `opening` and `closing` (a later moment of the same pool), and in a
    /// pool with levels each level's: a level is matched by its name, a level (or a bank's
    /// meter) the period opened opens from nothing (its reset is the house's first
    /// replenishment), and one it removed closes at nothing. The levels' lines are drawn only
    /// when both ends know the levels (or the pool is new or gone at one end): an opening kept
    /// by an earlier release, or of a pool that had no levels then, gives the pool's line alone.
    pub fn between(opening: &PoolFigures, closing: &PoolFigures) -> Reconciliation {
        let mut books = Reconciliation::lines(opening, closing);
        books.levels = level_books(opening, closing);
        books
    }

    /// The pool's own lines, without its levels'.
    fn lines(opening: &PoolFigures, closing: &PoolFigures) -> Reconciliation {
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
            levels: Vec::new(),
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

    /// Whether the books tie to zero: the pool's, and each level's on its own.
    pub fn ties(&self) -> bool {
        self.difference.is_zero() && self.levels.iter().all(|level| level.books.ties())
    }
}

/// Each level's books between `opening` and `closing` ([`Reconciliation::between`]).
fn level_books(opening: &PoolFigures, closing: &PoolFigures) -> Vec<LevelBooks> {
    let nothing = PoolFigures::default();
    let known = |figures: &PoolFigures| !figures.levels.is_empty() || *figures == nothing;
    if (opening.levels.is_empty() && closing.levels.is_empty()) || !known(opening) || !known(closing) {
        return Vec::new();
    }
    let as_pool = |level: &LevelFigures| PoolFigures {
        balance: level.balance,
        reserve: level.reserve,
        meters: level.meters.clone(),
        levels: Vec::new(),
    };
    let named = |levels: &[LevelFigures], name: &str| levels.iter().find(|level| level.name == name).map(as_pool);
    let closed = closing.levels.iter().map(|level| (level, named(&opening.levels, &level.name), Some(as_pool(level))));
    let gone = opening
        .levels
        .iter()
        .filter(|level| !closing.levels.iter().any(|closed| closed.name == level.name))
        .map(|level| (level, Some(as_pool(level)), None));
    closed
        .chain(gone)
        .map(|(level, from, to)| LevelBooks {
            name: level.name.clone(),
            house: level.house,
            books: Reconciliation::lines(&from.unwrap_or_default(), &to.unwrap_or_default()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::rulebook::Rulebooks;

    fn pool(file: &str, text: &str, id: &str) -> Pool {
        let rulebooks = Rulebooks::parse_all([(file, text)]).expect("a valid rulebook");
        Pool::open(Arc::new(rulebooks.pool(id).expect("the pool").clone()))
    }

    fn link() -> Pool {
        pool("config/mercado.toml", include_str!("../../../config/mercado.toml"), "mercado-blackjack")
    }

    fn pesos(text: &str) -> Money {
        text.parse().expect("an amount")
    }

    /// The sum of the levels' books, line by line (their levels none).
    fn added(books: &Reconciliation) -> Reconciliation {
        let mut sum = Reconciliation::default();
        for level in &books.levels {
            let b = &level.books;
            sum.opening_balance += b.opening_balance;
            sum.opening_reserve += b.opening_reserve;
            sum.bets += b.bets;
            sum.bets_amount += b.bets_amount;
            sum.contributions += b.contributions;
            sum.reversals += b.reversals;
            sum.replenishments += b.replenishments;
            sum.transfers_in += b.transfers_in;
            sum.adjustments_up += b.adjustments_up;
            sum.adjustments += b.adjustments;
            sum.awards += b.awards;
            sum.hits += b.hits;
            sum.awards_returned += b.awards_returned;
            sum.rejections += b.rejections;
            sum.awards_reclaimed += b.awards_reclaimed;
            sum.reclaims += b.reclaims;
            sum.replenishments_withdrawn += b.replenishments_withdrawn;
            sum.transfers_out += b.transfers_out;
            sum.adjustments_down += b.adjustments_down;
            sum.closing_balance += b.closing_balance;
            sum.closing_reserve += b.closing_reserve;
            sum.difference += b.difference;
        }
        sum
    }

    // Proves docs/readings.md, "Levels", "Books": each level of the four-level link has its own
    // line, named, the house's last, each tied to zero, the lines adding up to the pool's; the
    // bets are counted at the first level.
    #[test]
    fn each_level_has_its_line_and_the_lines_add_up_to_the_pool_s() {
        let mut pool = link();
        let opening = pool.figures();
        for _ in 0..3 {
            pool.register_bet(pesos("1000.00")).expect("a bet");
        }
        let books = Reconciliation::between(&opening, &pool.figures());
        let names: Vec<(&str, bool)> = books.levels.iter().map(|level| (level.name.as_str(), level.house)).collect();
        assert_eq!(names, [("Grand", false), ("Major", false), ("Minor", false), ("Mini", false), ("Pagado por la casa", true)]);
        assert!(books.ties() && books.levels.iter().all(|level| level.books.ties()), "{books:?}");
        assert_eq!(added(&books), Reconciliation { levels: Vec::new(), ..books.clone() });
        assert_eq!((books.levels[0].books.bets, books.levels[1].books.bets), (3, 0));
        assert_eq!(books.levels[3].books.contributions, pesos("60.00"), "the Mini's 2 % of three bets");
        // From nothing: every level opens at zero, its reset the house's.
        let life = Reconciliation::between(&PoolFigures::default(), &pool.figures());
        assert!(life.ties());
        assert_eq!(life.levels[1].books.replenishments, pesos("200000.00"), "the Major's reset");
        assert_eq!(added(&life), Reconciliation { levels: Vec::new(), ..life.clone() });
    }

    // Proves a level's difference is the books' difference even when the pool's is zero, and an
    // opening that kept no levels (an earlier release's) gives the pool's line alone.
    #[test]
    fn a_level_off_unties_the_books_and_an_opening_without_levels_gives_the_pool_s_line_alone() {
        let mut pool = link();
        let opening = pool.figures();
        pool.register_bet(pesos("1000.00")).expect("a bet");
        let mut closing = pool.figures();
        // A centavo moved from the Mini to the Grand: the pool's books still tie, the levels' not.
        closing.levels[0].balance += pesos("0.01");
        closing.levels[3].balance -= pesos("0.01");
        let books = Reconciliation::between(&opening, &closing);
        assert!(books.difference.is_zero());
        assert!(!books.ties(), "{books:?}");
        assert_eq!((books.levels[0].books.difference, books.levels[3].books.difference), (pesos("0.01"), pesos("-0.01")));
        let earlier = PoolFigures { levels: Vec::new(), ..opening };
        let books = Reconciliation::between(&earlier, &pool.figures());
        assert!(books.levels.is_empty() && books.ties());
    }

    // Proves a pool of one level is as before: no level lines, nothing new in what it serializes to.
    #[test]
    fn a_pool_of_one_level_has_no_level_lines_and_serializes_as_before() {
        let mut pool = pool("config/iplyc.toml", include_str!("../../../config/iplyc.toml"), "iplyc-blackjack");
        let opening = pool.figures();
        pool.register_bet(pesos("10.00")).expect("a bet");
        let books = Reconciliation::between(&opening, &pool.figures());
        assert!(opening.levels.is_empty() && books.levels.is_empty() && books.ties());
        let text = serde_json::to_string(&(&opening, &books)).expect("JSON");
        assert!(!text.contains("levels"), "{text}");
    }
}
