//! The liability statement: what the casino owes its players at one moment, part by part
//! (docs/readings.md, "The liability to players"), and the same summed as each jornada opened.
//!
//! ```text
//! liability = Σ per pool (balance above the house's seed, the minimum) + reserve
//!           + payout orders pending at Venta-Pagos (3.5.2, 11.6.1.2, 15.8.2)
//!           + credits held at the seats × the pool's side bet (12.5.3)
//!           + stakes pressed and not yet registered (12.5.1, AJ 2.5.4.1)
//!           + what the bank holds in custody (11.8.3, 15.14.5.2), a prize still to be paid
//!             into it by its pending order counted once, as that order
//! ```
//!
//! Grillos held (3.1.3) are listed and counted, and add no amount: the bet that bought them is
//! already in its pool, and what they may win is paid from it. Every figure is `Money`: the
//! total is the exact sum of the parts, and each part the exact sum of its lines.

use std::collections::BTreeMap;
use std::sync::Arc;

use pozo_engine::money::Money;
use pozo_engine::{Pool, PoolId, TableId};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::model::{Bet, Custody, Grillos, OrderStatus, PayoutOrder, Table};

pub use super::model::{LiabilityOpenings as Openings, Sums};

/// One pool's part: its balances, what of them is the house's seed, and what is owed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PoolOwed {
    pub pool: PoolId,
    pub balance: Money,
    pub reserve: Money,
    /// The reset value the house puts in (11.2.1, 15.2.1: "aportado por el Instituto"; 3.2.1;
    /// AND 6.2; AJ 2.5.6.3 the base).
    pub minimum: Money,
    /// What of the main balance is the house's: the balance up to the minimum.
    pub seed: Money,
    /// What is owed to the players: the main balance above the minimum, and the whole reserve.
    pub owed: Money,
    pub retired: bool,
}

impl PoolOwed {
    /// The pool's part. Prizes are paid from the players' money first: a balance under the
    /// minimum is all seed, and the house completes it for the next prize (3.2.2, 11.2.2, 15.2.3).
    pub fn of(pool: &Pool) -> PoolOwed {
        // A pool with levels: each level's seed is its balance up to its reset.
        let levels = pool.levels();
        let (balance, reserve) = (pool.balance(), pool.reserve());
        let minimum: Money = levels.iter().map(|level| level.reset).sum();
        let seed: Money = levels.iter().map(|level| level.balance.min(level.reset).max(Money::ZERO)).sum();
        PoolOwed {
            pool: pool.rules().id.clone(),
            balance,
            reserve,
            minimum,
            seed,
            owed: balance - seed + reserve,
            retired: pool.is_retired(),
        }
    }
}

/// Credits held at a seat, worth the pool's side bet each (12.5.3.3, 12.5.3.5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatCredits {
    pub table_id: TableId,
    pub seat: u32,
    pub credits: u32,
    pub amount: Money,
}

/// A stake pressed and not yet registered (card tables, until INICIAR JUEGO): its credits left
/// the seat's display, its contribution is not yet in the pool; a void gives them back (4.3.2).
/// The same lines as credits held, and the same wire message.
pub type SeatStake = SeatCredits;

/// Grillos held at a roulette seat (3.1.3), its player absent or not (3.7.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatGrillos {
    pub table_id: TableId,
    pub seat: u32,
    pub bronze: u32,
    pub silver: u32,
    pub gold: u32,
    pub absent: bool,
}

/// What the seats hold, line by line: made from what the writer read off the tables after each
/// batch ([`TableHeld`]), since the read model does not keep the tables.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Seats {
    pub credits: Vec<SeatCredits>,
    pub stakes: Vec<SeatStake>,
    pub grillos: Vec<SeatGrillos>,
}

/// What the seats hold, table by table, in the order of the tables' ids: a table is read
/// again only when a command touched it, and a batch copies only the runs of tables it
/// changed (`shared`); the rest is shared with the read models.
pub type SeatsByTable = super::shared::SharedMap<TableId, Arc<TableHeld>>;

impl Seats {
    /// The lines of every table's seats, one table after the other, each list in the order of
    /// the tables and then of their seats.
    pub fn joined<'a>(tables: impl Iterator<Item = &'a TableHeld>) -> Seats {
        let mut seats = Seats::default();
        for table in tables {
            let worth = |credits: u32| table.credit * Decimal::from(credits);
            for held in &table.seats {
                let seat = held.seat;
                let table_id = || table.table_id.clone();
                if held.credits > 0 {
                    let credits = held.credits;
                    seats.credits.push(SeatCredits { table_id: table_id(), seat, credits, amount: worth(credits) });
                }
                if let Some(credits) = held.stake {
                    seats.stakes.push(SeatStake { table_id: table_id(), seat, credits, amount: worth(credits) });
                }
                if held.grillos.total() > 0 {
                    let Grillos { bronze, silver, gold } = held.grillos;
                    seats.grillos.push(SeatGrillos { table_id: table_id(), seat, bronze, silver, gold, absent: held.absent });
                }
            }
        }
        seats
    }

    /// Whether no seat holds anything.
    pub fn is_empty(&self) -> bool {
        self.credits.is_empty() && self.stakes.is_empty() && self.grillos.is_empty()
    }

    /// What the seats of `tables` hold; `side_bet` is the credit value of a table's pool.
    pub fn of<'a>(tables: impl Iterator<Item = &'a Table>, side_bet: impl Fn(&Table) -> Money) -> Seats {
        let held: Vec<TableHeld> = tables.map(|table| TableHeld::of(table, side_bet(table))).collect();
        Seats::joined(held.iter())
    }
}

/// What one table's seats hold: the seats holding credits, a stake pressed or grillos, and what
/// a credit is worth there. The writer reads a table again after each batch that touched it
/// ([`SeatsByTable`]); the lines of [`Seats`], with their amounts, are made from it only when
/// the liability is asked for ([`Seats::joined`]). Reading three lists of lines for every
/// touched table, each line with its table's id and amount, was 3.7 % of the controller's CPU
/// at full load (docs/benchmarks.md, issue 47 step 13).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableHeld {
    table_id: TableId,
    /// A credit's worth: the pool's side bet (12.5.3.3, 12.5.3.5).
    credit: Money,
    seats: Vec<SeatHeld>,
}

/// One seat holding something, as [`TableHeld`] keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SeatHeld {
    seat: u32,
    credits: u32,
    /// The credits of a stake pressed and not yet registered (12.5.1, AJ 2.5.4.1).
    stake: Option<u32>,
    grillos: Grillos,
    absent: bool,
}

impl TableHeld {
    /// What `table`'s seats hold, a credit there being worth `credit`.
    pub fn of(table: &Table, credit: Money) -> TableHeld {
        let holds = |held: &super::model::Seat| held.credits > 0 || matches!(held.bet, Bet::Pressed { .. }) || held.grillos() > 0;
        let mut seats = Vec::with_capacity(table.seats.iter().filter(|held| holds(held)).count());
        for (seat, held) in (1..).zip(&table.seats).filter(|(_, held)| holds(held)) {
            let stake = match held.bet {
                Bet::Pressed { credits } => Some(credits),
                _ => None,
            };
            seats.push(SeatHeld { seat, credits: held.credits, stake, grillos: held.held(), absent: held.absent });
        }
        TableHeld { table_id: table.id.clone(), credit, seats }
    }

    /// Whether no seat holds anything.
    pub fn is_empty(&self) -> bool {
        self.seats.is_empty()
    }
}

impl Sums {
    /// How the liability changed from `earlier` to these sums, part by part.
    pub fn since(&self, earlier: &Sums) -> Change {
        let count = |now: u64, then: u64| i64::try_from(now).unwrap_or(i64::MAX) - i64::try_from(then).unwrap_or(i64::MAX);
        let (grillos, before) = (&self.grillos, &earlier.grillos);
        Change {
            pools: self.pools - earlier.pools,
            pending_orders: self.pending_orders - earlier.pending_orders,
            credits: self.credits - earlier.credits,
            stakes: self.stakes - earlier.stakes,
            custody: self.custody - earlier.custody,
            total: self.total - earlier.total,
            orders: count(self.orders, earlier.orders),
            credits_held: count(self.credits_held, earlier.credits_held),
            stakes_pressed: count(self.stakes_pressed, earlier.stakes_pressed),
            custody_items: count(self.custody_items, earlier.custody_items),
            bronze: i64::from(grillos.bronze) - i64::from(before.bronze),
            silver: i64::from(grillos.silver) - i64::from(before.silver),
            gold: i64::from(grillos.gold) - i64::from(before.gold),
        }
    }
}

/// How the liability changed between two moments, part by part: amounts and counts signed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    pub pools: Money,
    pub pending_orders: Money,
    pub credits: Money,
    pub stakes: Money,
    pub custody: Money,
    pub total: Money,
    pub orders: i64,
    pub credits_held: i64,
    pub stakes_pressed: i64,
    pub custody_items: i64,
    pub bronze: i64,
    pub silver: i64,
    pub gold: i64,
}

/// The liability statement at one moment: every part, line by line, and its sums.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Liability {
    /// Every pool, by id.
    pub pools: Vec<PoolOwed>,
    /// The payout orders PENDIENTE DE PAGO, by number: their awards left the pool when marked
    /// (3.5.1) and are owed until Venta-Pagos pays them or rejects them.
    pub pending_orders: Vec<PayoutOrder>,
    pub credits: Vec<SeatCredits>,
    pub stakes: Vec<SeatStake>,
    pub grillos: Vec<SeatGrillos>,
    /// Everything the bank holds in custody, not yet handed over, by number.
    pub custody: Vec<Custody>,
    pub sums: Sums,
    /// The poker tournaments' prizes assigned and not yet collected at the cashier (Res. 123/2013
    /// art. 66), by tournament: listed apart, not in `sums` (whose parts and openings a jornada's
    /// liability movement reconciles, and which books no tournament money yet).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tournaments: Vec<TournamentOwed>,
}

/// A tournament's prizes owed: what finished players are to collect, less what was paid.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TournamentOwed {
    pub tournament: String,
    /// Prizes of finished positions, with what disqualifications added to them.
    pub assigned: Money,
    pub paid: Money,
    /// `assigned − paid`.
    pub owed: Money,
}

impl Liability {
    /// The liability of these pools, seats, orders and custody items (all of them: the pending
    /// and the held are picked here).
    pub fn of<'a>(
        pools: impl Iterator<Item = &'a Pool>,
        seats: &Seats,
        orders: &BTreeMap<String, PayoutOrder>,
        custody: &BTreeMap<String, Custody>,
    ) -> Liability {
        let pools: Vec<PoolOwed> = pools.map(PoolOwed::of).collect();
        let pending_orders: Vec<PayoutOrder> =
            orders.values().filter(|order| order.status == OrderStatus::Pending).cloned().collect();
        let custody: Vec<Custody> = custody.values().filter(|item| item.held()).cloned().collect();
        let mut liability = Liability {
            pools,
            pending_orders,
            credits: seats.credits.clone(),
            stakes: seats.stakes.clone(),
            grillos: seats.grillos.clone(),
            custody,
            sums: Sums::default(),
            tournaments: Vec::new(),
        };
        liability.sums = liability.summed();
        liability
    }

    /// The same statement with the tournaments' prizes owed listed (`tournament.rs`): every
    /// tournament with a prize assigned.
    #[must_use]
    pub fn with_tournaments<'a>(mut self, tournaments: impl Iterator<Item = &'a super::tournament::Tournament>) -> Liability {
        self.tournaments = tournaments
            .map(super::tournament::Tournament::books)
            .filter(|books| books.paid + books.owed > Money::ZERO)
            .map(|books| TournamentOwed {
                tournament: books.tournament,
                assigned: books.paid + books.owed,
                paid: books.paid,
                owed: books.owed,
            })
            .collect();
        self
    }

    /// What the tournaments owe their players in all.
    pub fn tournaments_owed(&self) -> Money {
        self.tournaments.iter().map(|owed| owed.owed).sum()
    }

    /// Whether a custody item's amount is in the custody part: not a prize Venta-Pagos is still
    /// to pay into custody (11.8.3.2.2), which its pending order already counts.
    pub fn counts_custody(&self, item: &Custody) -> bool {
        !item.payout_order_id.as_deref().is_some_and(|id| self.pending_orders.iter().any(|order| order.order_id == id))
    }

    /// Each part added up from its lines, and the total from the parts.
    fn summed(&self) -> Sums {
        let counted: Vec<&Custody> = self.custody.iter().filter(|item| self.counts_custody(item)).collect();
        let mut sums = Sums {
            pools: self.pools.iter().map(|pool| pool.owed).sum(),
            pending_orders: self.pending_orders.iter().map(|order| order.facts.amount).sum(),
            credits: self.credits.iter().map(|seat| seat.amount).sum(),
            stakes: self.stakes.iter().map(|seat| seat.amount).sum(),
            custody: counted.iter().map(|item| item.amount).sum(),
            total: Money::ZERO,
            orders: self.pending_orders.len() as u64,
            credits_held: self.credits.iter().map(|seat| u64::from(seat.credits)).sum(),
            stakes_pressed: self.stakes.len() as u64,
            custody_items: counted.len() as u64,
            grillos: Grillos::default(),
        };
        for seat in &self.grillos {
            sums.grillos.bronze += seat.bronze;
            sums.grillos.silver += seat.silver;
            sums.grillos.gold += seat.gold;
        }
        sums.total = sums.pools + sums.pending_orders + sums.credits + sums.stakes + sums.custody;
        sums
    }
}

/// The liability as `jornada` opened, from the `openings` kept and the sums `now`: the jornada's
/// own opening when one is kept; for a jornada with no entry (none applied in it yet, or a day
/// the casino did not play) the next kept opening after it, or `now`, since nothing changed in
/// between. `None` for a jornada before the first opening kept: over 62 jornadas old, before
/// this journal, or before a release that kept them.
pub fn opening(openings: &Openings, now: &Sums, jornada: &str) -> Option<Sums> {
    if let Some(kept) = openings.get(jornada) {
        return Some(*kept);
    }
    let first = openings.keys().next()?;
    if jornada < first.as_str() {
        return None;
    }
    let next = openings.range::<str, _>((std::ops::Bound::Excluded(jornada), std::ops::Bound::Unbounded)).next();
    Some(next.map_or(*now, |(_, sums)| *sums))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::config::Config;
    use crate::state::{Command, Context, OfficeCommand, OfficeOp, State, TableOp};

    fn pesos(text: &str) -> Money {
        text.parse().expect("an amount")
    }

    /// 2026-11-22 21:00 in the casino's UTC-03:00.
    const NIGHT_MS: u64 = 1_795_305_600_000 + 3 * 3_600_000 + 21 * 3_600_000;

    /// A controller past its genesis, commands applied one a minute at its tables.
    struct Night {
        state: State,
        sequences: BTreeMap<String, u64>,
    }

    impl Night {
        fn new() -> Night {
            let config = Arc::new(Config::embedded());
            let mut state = State::new(Arc::clone(&config));
            state.apply(&Command::genesis(&config, "", None, None), Context { sequence: 1, time_ms: NIGHT_MS }).expect("genesis");
            Night { state, sequences: BTreeMap::new() }
        }

        fn entry(&self) -> Context {
            let sequence = self.state.data().journal_sequence + 1;
            Context { sequence, time_ms: NIGHT_MS + sequence * 60_000 }
        }

        fn play(&mut self, table: &str, ops: impl IntoIterator<Item = TableOp>) {
            for op in ops {
                let sequence = self.sequences.entry(table.to_owned()).or_insert(0);
                *sequence += 1;
                let command = Command::dealer(table, *sequence, format!("{table}-{sequence}"), op.clone());
                let context = self.entry();
                self.state.apply(&command, context).unwrap_or_else(|refusal| panic!("{op:?}: {}", refusal.message));
            }
        }

        fn reject_pending(&mut self) {
            let order = self.state.data().orders.values().find(|order| order.status == OrderStatus::Pending).expect("pending");
            let op = OfficeOp::Reject { order_id: order.order_id.clone(), reason: "prueba".into(), expect: order.facts.clone() };
            let command = Command::Office(OfficeCommand { key_id: "vp-ana".into(), operator_name: "Ana".into(), op });
            let context = self.entry();
            self.state.apply(&command, context).expect("rejected");
        }

        fn liability(&self) -> Liability {
            self.state.liability()
        }
    }

    fn press(seat: u32) -> TableOp {
        TableOp::Press { seat, credits: None }
    }

    fn sell(seat: u32, credits: u32) -> TableOp {
        TableOp::SellCredits { seat, credits }
    }

    fn prize(seat: u32, code: &str) -> TableOp {
        TableOp::EnterPrize { seat, code: code.into(), high: None }
    }

    /// Every part is the exact sum of its lines, and the total the sum of the parts.
    fn assert_adds_up(liability: &Liability) {
        let sums = &liability.sums;
        let owed: Money = liability.pools.iter().map(|pool| pool.owed).sum();
        let orders: Money = liability.pending_orders.iter().map(|order| order.facts.amount).sum();
        let credits: Money = liability.credits.iter().map(|seat| seat.amount).sum();
        let stakes: Money = liability.stakes.iter().map(|seat| seat.amount).sum();
        let custody: Money = liability.custody.iter().filter(|item| liability.counts_custody(item)).map(|item| item.amount).sum();
        assert_eq!(
            (sums.pools, sums.pending_orders, sums.credits, sums.stakes, sums.custody),
            (owed, orders, credits, stakes, custody)
        );
        assert_eq!(sums.total, owed + orders + credits + stakes + custody, "{sums:?}");
        for pool in &liability.pools {
            assert_eq!(pool.seed + pool.owed, pool.balance + pool.reserve, "{pool:?}");
            assert!(pool.seed <= pool.minimum && pool.owed >= Money::ZERO, "{pool:?}");
        }
    }

    /// The lines of what the seats hold, pinned: credits where there are any, a stake for every
    /// bet pressed (even of no credits), grillos where any are held (an absent player's too),
    /// each with its seat's number and its credits' worth (12.5.3.3); a seat holding nothing
    /// gives none, and a table holding nothing is kept as nothing.
    #[test]
    fn the_seats_lines_are_what_each_seat_holds() {
        let config = Config::embedded();
        let new_table = || super::super::cmd::new_table(config.table("B1").expect("B1 in the embedded layout"));
        let mut table = new_table();
        table.seats[0].credits = 4;
        table.seats[0].bet = Bet::Pressed { credits: 2 };
        table.seats[2].bet = Bet::Pressed { credits: 0 };
        (table.seats[4].bronze, table.seats[4].gold, table.seats[4].absent) = (2, 1, true);
        let seats = Seats::of(std::iter::once(&table), |_| pesos("10"));
        let line = |seat: u32, credits: u32, amount: &str| SeatCredits {
            table_id: table.id.clone(),
            seat,
            credits,
            amount: pesos(amount),
        };
        assert_eq!(seats.credits, [line(1, 4, "40")]);
        assert_eq!(seats.stakes, [line(1, 2, "20"), line(3, 0, "0")]);
        let grillos = SeatGrillos { table_id: table.id.clone(), seat: 5, bronze: 2, silver: 0, gold: 1, absent: true };
        assert_eq!(seats.grillos, [grillos]);
        let held = TableHeld::of(&table, pesos("10"));
        assert!(!held.is_empty());
        assert_eq!(Seats::joined([&held, &held].into_iter()).credits.len(), 2, "one table after the other");
        assert!(TableHeld::of(&new_table(), pesos("10")).is_empty());
    }

    /// A night with every part in it: credits held, a stake pressed, a prize pending at
    /// Venta-Pagos, a sick player's bet in custody, grillos at roulette. Each part is what was
    /// played, and the total is their sum.
    #[test]
    fn the_total_is_the_sum_of_its_parts_each_what_was_played() {
        let mut night = Night::new();
        assert_eq!(night.liability().sums.total, Money::ZERO, "a new controller owes nothing: every pool at its seed");
        // B1: seat 1 wins a 20 % prize (11.2.2, through Venta-Pagos), seat 2 falls sick (11.8.3.1.2),
        // seat 3 keeps 4 credits; then seat 4 presses for the next round.
        night.play("B1", [TableOp::OpenTable, sell(1, 5), sell(2, 5), sell(3, 5), sell(4, 1), press(1), press(2), press(3)]);
        night.play("B1", [TableOp::StartRound, TableOp::CustodyBet { seat: 2 }, prize(1, "TRES_SIETES_MISMO_PALO")]);
        night.play("B1", [TableOp::FinishRound, TableOp::Accept, TableOp::FinishRound, press(4)]);
        // R1: a sale of three bronzes (3.1.3).
        night.play("R1", [TableOp::OpenTable, sell(1, 1), press(1)]);

        let liability = night.liability();
        assert_adds_up(&liability);
        let sums = liability.sums;
        // 11.2.3: 65 % of the two $10 bets that stand; the 20 % prize was fixed on the $5,000
        // minimum plus them, and left the pool: what stays above the minimum is owed.
        let blackjack = liability.pools.iter().find(|pool| pool.pool.as_str() == "iplyc-blackjack").expect("the pool");
        let order = &liability.pending_orders[0];
        assert_eq!(order.facts.amount, pesos("1002.60"), "20 % of 5,013.00 (11.2.2)");
        assert_eq!(blackjack.balance, pesos("4010.40"));
        assert_eq!((blackjack.seed, blackjack.owed), (pesos("4010.40"), Money::ZERO), "under the minimum: all the house's seed");
        // R1: 65 % of the $30 sale above the $20,000 minimum (3.2.1).
        let ruleta = liability.pools.iter().find(|pool| pool.pool.as_str() == "iplyc-ruleta").expect("the pool");
        assert_eq!((ruleta.seed, ruleta.owed), (pesos("20000.00"), pesos("19.50")));
        assert_eq!(sums.pools, pesos("19.50"));
        assert_eq!((sums.orders, sums.pending_orders), (1, pesos("1002.60")));
        // Seats 1–3 keep 4 credits each, and seat 4 pressed its only one: $10 a credit (11.4.1).
        assert_eq!((sums.credits_held, sums.credits), (12, pesos("120.00")));
        assert_eq!((sums.stakes_pressed, sums.stakes), (1, pesos("10.00")));
        // The sick player's stake, all of it, held by the bank (11.8.3.1.2).
        assert_eq!((sums.custody_items, sums.custody), (1, pesos("10.00")));
        assert_eq!(sums.grillos, Grillos { bronze: 3, silver: 0, gold: 0 }, "counted, no amount");
        assert_eq!(sums.total, pesos("1162.10"));

        // The winner falls sick too: his prize is held in custody, paid into it by its order,
        // and counted once.
        let mut held = Night::new();
        held.play("B1", [TableOp::OpenTable, sell(1, 5), press(1), TableOp::StartRound, prize(1, "TRES_SIETES_MISMO_PALO")]);
        held.play("B1", [TableOp::FinishRound, TableOp::Accept, TableOp::CustodyPrize { seat: 1 }]);
        let liability = held.liability();
        assert_adds_up(&liability);
        assert_eq!(liability.custody.len(), 1);
        assert!(!liability.counts_custody(&liability.custody[0]), "its pending order counts it");
        assert_eq!(liability.sums.custody, Money::ZERO);
        assert_eq!(liability.sums.total, pesos("1001.30") + pesos("40.00"), "the order, and 4 credits left");
    }

    /// A rejection leaves the liability exactly as if the winner had never been entered
    /// (docs/readings.md, "What a Venta-Pagos rejection undoes"): the order goes, the award
    /// comes back to the pool, the house's completion goes back out, and nothing else moves.
    #[test]
    fn a_rejection_leaves_the_liability_as_if_the_prize_had_never_been_entered() {
        let round = |prize_entered: bool| {
            let mut night = Night::new();
            night.play("B1", [TableOp::OpenTable, sell(1, 5), sell(2, 5), press(1), press(2), TableOp::StartRound]);
            if prize_entered {
                night.play("B1", [prize(1, "TRES_SIETES_CORAZONES"), TableOp::FinishRound, TableOp::Accept]);
            }
            night.play("B1", [TableOp::FinishRound]);
            night
        };
        let mut rejected = round(true);
        let pending = rejected.liability();
        assert_adds_up(&pending);
        // The 100 % prize took the whole pool, 5,013.00; the house put its 5,000 back (11.2.1):
        // the order is owed, the pool owes nothing above its seed.
        assert_eq!((pending.sums.pending_orders, pending.sums.pools), (pesos("5013.00"), Money::ZERO));
        rejected.reject_pending();
        let after = rejected.liability();
        assert_adds_up(&after);
        assert_eq!(after, round(false).liability(), "as if never entered");
        assert_eq!(after.sums.total, pending.sums.total - pesos("5000.00"), "only the house's seed left the total");
    }

    /// Refunds and voids move nothing from nowhere: the stake goes back exactly where it came
    /// from (4.3.2, 11.8.1.2), the contribution comes out of the pool, and a pago de créditos
    /// (12.5.3.5) takes off the total exactly what was paid back.
    #[test]
    fn refunds_and_voids_give_back_exactly_what_was_taken() {
        let mut night = Night::new();
        night.play("B1", [TableOp::OpenTable, sell(1, 5), sell(2, 10)]);
        let sold = night.liability();
        assert_eq!(sold.sums.total, pesos("150.00"), "15 credits of $10 (12.5.3.3)");
        night.play("B1", [press(1)]);
        assert_eq!(night.liability().sums.total, sold.sums.total, "a press moves credits to a stake");
        night.play("B1", [TableOp::VoidBet { seat: 1 }]);
        assert_eq!(night.liability(), sold, "a void gives the credit back (4.3.2)");
        night.play("B1", [press(1), press(2), TableOp::StartRound]);
        let registered = night.liability();
        assert_adds_up(&registered);
        // INICIAR JUEGO: two $10 stakes spent, 65 % of each into the pool above its minimum (11.2.3).
        assert_eq!(registered.sums.pools, pesos("13.00"));
        assert_eq!(registered.sums.total, sold.sums.total - pesos("7.00"));
        night.play("B1", [TableOp::RefundBet { seat: 2 }]);
        let refunded = night.liability();
        assert_eq!(refunded.sums.pools, pesos("6.50"), "the refunded contribution came out (11.8.1.2)");
        assert_eq!(refunded.sums.credits, registered.sums.credits + pesos("10.00"), "the stake back as a credit");
        night.play("B1", [TableOp::FinishRound, TableOp::RefundCredits { seat: 1 }]);
        let paid = night.liability();
        assert_eq!(paid.sums.total, refunded.sums.total - pesos("40.00"), "seat 1's 4 credits paid back (12.5.3.5)");
        assert_eq!((paid.sums.pools, paid.sums.credits), (refunded.sums.pools, refunded.sums.credits - pesos("40.00")));
        assert_adds_up(&paid);
    }

    /// Each jornada's opening keeps the liability as it was before its first entry; a jornada
    /// with no entry yet opened at what the liability is now.
    #[test]
    fn each_jornada_keeps_the_liability_it_opened_with() {
        let mut night = Night::new();
        night.play("B1", [TableOp::OpenTable, sell(1, 5)]);
        let first = night.state.data().liability_openings.clone();
        assert_eq!(first.len(), 1, "{first:?}");
        assert_eq!(first["2026-11-22"].total, Money::ZERO, "the night opened owing nothing");
        let now = night.liability().sums;
        let openings = &night.state.data().liability_openings;
        assert_eq!(opening(openings, &now, "2026-11-22"), Some(Sums::default()));
        assert_eq!(opening(openings, &now, "2026-11-23"), Some(now), "nothing applied in it yet");
        assert_eq!(opening(openings, &now, "2026-11-21"), None, "before this journal");
        assert_eq!(now.since(&Sums::default()).total, pesos("50.00"));
    }
}
