//! A Venta-Pagos rejection undoes the rejected award, and only it (3.5.2, 11.6.1.2,
//! 15.8.2; docs/readings.md, "What a Venta-Pagos rejection undoes"): the amount
//! returns to its pool, what the house or the reserve put in because of it comes
//! back out, the pending winners of the same round are re-settled as if the rejected
//! one had not competed, and what was already paid stands.
//!
//! The examples are built from the articles' own numbers; the property test plays
//! random bets, rounds and rejections on every pool of the embedded rulebooks and
//! checks conservation after every event.

use std::collections::BTreeSet;
use std::sync::Arc;

use pozo_engine::money;
use pozo_engine::{Money, Pool, PoolRules, Rank, RoundBook, Rulebooks, Winner};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{Index, select};
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use rust_decimal::Decimal;
use rust_decimal_macros::dec;

fn rules(id: &str) -> Arc<PoolRules> {
    Arc::new(Rulebooks::embedded().pool(id).expect("an embedded pool").clone())
}

fn pool_with(id: &str, balance: Money) -> Pool {
    Pool::with_balances(rules(id), balance, Money::ZERO)
}

fn winner(seat: u32, code: &str, bet: Money) -> Winner {
    Winner { seat, code: code.into(), bet: Some(bet), high: None, at: None }
}

fn award(book: &RoundBook, seat: u32, code: &str) -> Money {
    book.award(seat, code).expect("an award of the round").award
}

fn assert_conserved(pool: &Pool) {
    assert_eq!(pool.conservation_difference(), Money::ZERO, "{:?}", pool.meters());
}

/// Two side bets of the stipulated 10.00 (11.4.1: "Su monto será fijo y determinado de
/// antemano") at 65% (11.2.3): 13.00 for the next jackpot (3.5.1).
fn later_bets(pool: &mut Pool) {
    assert_eq!(pool.rules().side_bet, money!(10.00), "the rulebook's stipulated side bet");
    for _ in 0..2 {
        pool.register_bet(money!(10.00)).expect("the stipulated bet");
    }
}

#[test]
fn rejecting_one_of_two_prorated_100_percent_prizes_re_settles_the_other_11_7() {
    // 11.7: two 21s with three 7s of hearts on a display of 8,329.00 are worth 8,329.00
    // each; FACTOR = 8,329 / 16,658 = 0.5, so each is paid 4,164.50; 11.2.2 then brings
    // the pool back to $5,000. Ten later bets add 13.00: the pool shows 5,013.00.
    let mut pool = pool_with("iplyc-blackjack", money!(8329.00));
    let round = pool
        .settle_round(&[winner(1, "TRES_SIETES_CORAZONES", money!(10)), winner(5, "TRES_SIETES_CORAZONES", money!(10))])
        .expect("a valid round");
    assert_eq!(round.factor, Some(dec!(0.5)));
    let mut book = round.book;
    later_bets(&mut pool);
    assert_eq!(pool.balance(), money!(5013.00));
    let house_before = pool.meters().net_replenishments();

    // Venta-Pagos rejects seat 1; seat 5's order is still pending. As if seat 1 had
    // never competed, seat 5 alone takes the whole 8,329.00, the pool is reset as
    // before, and the later bets stay where they are. The old code added the
    // 4,164.50 back on top of the reset: 9,177.50.
    let rejection = pool.reject_award(&mut book, 1, "TRES_SIETES_CORAZONES", |_, _| true).expect("a pending award");
    assert_eq!(rejection.returned, money!(4164.50));
    assert_eq!(award(&book, 5, "TRES_SIETES_CORAZONES"), money!(8329.00));
    assert_eq!(rejection.resettled.len(), 1);
    assert_eq!(pool.balance(), money!(5013.00));
    assert_eq!(pool.meters().net_replenishments(), house_before, "the house put in the reset for seat 5 too");
    assert_eq!(pool.meters().net_awards(), money!(8329.00));
    assert_conserved(&pool);
}

#[test]
fn rejecting_a_100_percent_prize_takes_out_the_house_completion_and_reset_11_2_2() {
    // 11.2.2: "se completará esta cifra para el pago del primer premio". A pool of
    // 4,164.50 shows $5,000 (the minimum), so the prize is 5,000.00: the house puts in
    // 835.50 to pay it and 5,000.00 to reset (15.2.2 likewise). Rejected, both come
    // back out: the pool is what it was, plus the 13.00 bet since.
    let mut pool = pool_with("iplyc-blackjack", money!(4164.50));
    let round = pool.settle_round(&[winner(2, "TRES_SIETES_CORAZONES", money!(10))]).expect("a valid round");
    assert_eq!(round.awards[0].award, money!(5000.00));
    assert_eq!(round.replenishment, money!(835.50) + money!(5000.00));
    let mut book = round.book;
    later_bets(&mut pool);
    let house_before = pool.meters().net_replenishments();

    let rejection = pool.reject_award(&mut book, 2, "TRES_SIETES_CORAZONES", |_, _| true).expect("a pending award");
    assert_eq!(rejection.returned, money!(5000.00));
    assert_eq!(rejection.house_withdrawn, money!(5835.50));
    assert_eq!(pool.balance(), money!(4177.50), "4,164.50 + 13.00: as if never entered");
    assert_eq!(pool.displayed(), money!(5000.00));
    assert_eq!(pool.meters().net_replenishments(), house_before - money!(5835.50));
    assert_eq!(pool.meters().net_awards(), Money::ZERO);
    assert_conserved(&pool);

    // Twice is refused and changes nothing.
    let state = pool.state();
    let error = pool.reject_award(&mut book, 2, "TRES_SIETES_CORAZONES", |_, _| true).expect_err("already rejected");
    assert_eq!(error.field(), "award");
    assert!(matches!(error, pozo_engine::EngineError::NotNow { .. }), "not a bad field: the award's state: {error}");
    assert_eq!(pool.state(), state);
}

#[test]
fn a_paid_award_stands_when_another_of_its_round_is_rejected_15_9() {
    // 15.9: a royal flush and a straight flush on 10,000.00: 10,000 + 1,000 exceed the
    // display, FACTOR = 10/11. The straight flush's 909.09 was confirmed (paid); the
    // royal flush is rejected. Paid stands: 909.09 stays paid. Without the royal flush
    // no 100% prize stands, so there is no reset (15.2.2): the pool keeps 10,000.00 −
    // 909.09, and what the house put in for the reset comes back out.
    let mut pool = pool_with("iplyc-central-poker", money!(10000.00));
    let round = pool
        .settle_round(&[winner(1, "ESCALERA_REAL_MAYOR", money!(10)), winner(3, "ESCALERA_COLOR", money!(10))])
        .expect("a valid round");
    let mut book = round.book;
    assert_eq!(award(&book, 1, "ESCALERA_REAL_MAYOR"), money!(9090.90));
    assert_eq!(award(&book, 3, "ESCALERA_COLOR"), money!(909.09));
    let pending = |seat: u32, _: &str| seat == 1;
    let rejection = pool.reject_award(&mut book, 1, "ESCALERA_REAL_MAYOR", pending).expect("a pending award");
    assert!(rejection.resettled.is_empty(), "the straight flush was paid: it stands at 909.09");
    assert_eq!(award(&book, 3, "ESCALERA_COLOR"), money!(909.09));
    assert_eq!(pool.balance(), money!(10000.00) - money!(909.09));
    assert_eq!(pool.meters().net_replenishments(), money!(10000.00), "only the opening amount is the house's");
    assert_conserved(&pool);
}

#[test]
fn rejecting_an_aj_royal_flush_gives_the_reserve_back_what_it_reset_2_5_6_3() {
    // AJ 2.5.6.3: the reserve pools fund the reset. A royal flush takes the whole main
    // pool (20,000); the reserve of 3,000 and the house 17,000 bring it back to the base
    // value. Rejected: the reserve gets its 3,000 back, the house its 17,000.
    let mut pool = Pool::with_balances(rules("aj-poker"), money!(20000), money!(3000));
    let round = pool.settle_round(&[winner(4, "ESCALERA_REAL", money!(10))]).expect("a valid round");
    assert_eq!(round.reserve_used, money!(3000));
    let mut book = round.book;
    let rejection = pool.reject_award(&mut book, 4, "ESCALERA_REAL", |_, _| true).expect("a pending award");
    assert_eq!((pool.balance(), pool.reserve()), (money!(20000), money!(3000)));
    assert_eq!(rejection.reserve_returned, money!(3000));
    assert_eq!(rejection.house_withdrawn, money!(17000));
    assert_conserved(&pool);
}

#[test]
fn rejecting_the_gold_leaves_the_silver_paid_from_the_reset_3_4_2() {
    // 3.4.2: gold first (100%), then the silver's fixed 300 from the replenished pool.
    // The gold rejected: the silver (paid at the table) stands, and with no 100% prize
    // there is no reset; the pool pays the 300 from its own 25,000.
    let mut pool = pool_with("iplyc-ruleta", money!(25000));
    let round =
        pool.settle_round(&[winner(2, "GRILLO_PLATA", money!(30)), winner(6, "GRILLO_ORO", money!(30))]).expect("a valid round");
    let mut book = round.book;
    assert_eq!(pool.balance(), money!(20000) - money!(300));
    let pending = |seat: u32, _: &str| seat == 6;
    pool.reject_award(&mut book, 6, "GRILLO_ORO", pending).expect("a pending award");
    assert_eq!(pool.balance(), money!(25000) - money!(300));
    assert_eq!(pool.meters().net_awards(), money!(300));
    assert_conserved(&pool);
}

#[test]
fn a_rejection_after_later_prizes_leaves_no_balance_negative() {
    // The reset the house would take back was spent by later prizes: the house leaves
    // in what keeps the balance at zero.
    let mut pool = pool_with("iplyc-blackjack", money!(100.00));
    let mut book = pool.settle_round(&[winner(1, "TRES_SIETES_CORAZONES", money!(10))]).expect("a valid round").book;
    for _ in 0..9 {
        pool.settle_round(&[winner(2, "CUATRO_ASES", money!(10))]).expect("a valid round");
    }
    assert_eq!(pool.balance(), money!(500.00));
    pool.reject_award(&mut book, 1, "TRES_SIETES_CORAZONES", |_, _| true).expect("a pending award");
    assert_eq!(pool.balance(), Money::ZERO);
    assert_eq!(pool.displayed(), money!(5000.00));
    assert_conserved(&pool);
}

#[test]
fn a_share_of_nothing_is_re_settled_when_the_award_before_it_is_rejected_2_5_6_2() {
    // AJ 2.5.6.2 items 2 and 5: a Póker at a 100.00 bet is 50,000 in full; on a 20,000
    // pool the royal flush's 100% "de la cantidad restante" is 0. The Póker rejected,
    // the royal flush is re-settled as if alone: the whole 20,000, though it was never
    // an order (a zero award was never paid).
    let mut pool = Pool::with_balances(rules("aj-poker"), money!(20000), Money::ZERO);
    let round =
        pool.settle_round(&[winner(1, "POKER", money!(100)), winner(2, "ESCALERA_REAL", money!(100))]).expect("a valid round");
    let mut book = round.book;
    assert_eq!((award(&book, 1, "POKER"), award(&book, 2, "ESCALERA_REAL")), (money!(50000), money!(0)));
    let rejection = pool.reject_award(&mut book, 1, "POKER", |_, _| false).expect("rejected");
    assert_eq!(award(&book, 2, "ESCALERA_REAL"), money!(20000));
    assert_eq!(rejection.resettled.len(), 1);
    assert_eq!(pool.balance(), money!(20000), "reset to the base value for the royal flush");
    assert_eq!(pool.meters().net_awards(), money!(20000));
    assert_conserved(&pool);
}

#[test]
fn a_rejection_leaves_the_reserve_short_before_the_house_pays_in_2_5_6_3() {
    // The reserve paid the reset of a 100% prize; later prizes spent the main pool. The
    // rejection gives back to the reserve only what the main pool can spare: the house
    // puts nothing in for a rejection.
    let mut pool = Pool::with_balances(rules("aj-poker"), money!(10000), money!(50000));
    let mut book = pool.settle_round(&[winner(1, "ESCALERA_REAL", money!(10))]).expect("a valid round").book;
    // The display showed the 10,000 balance (the 20,000 base value is where the pool
    // starts, not a floor: 2.5.6.3 "valor inicial o base"; docs/readings.md, "The AJ base
    // value after ×bet prizes"): the royal flush took it, and the reserve put in 20,000 to
    // reset.
    assert_eq!((pool.balance(), pool.reserve()), (money!(20000), money!(30000)), "the reserve reset the pool");
    for seat in 2..=4 {
        pool.settle_round(&[winner(seat, "POKER", money!(10))]).expect("a valid round");
    }
    assert_eq!(pool.balance(), money!(5000));
    let house_before = pool.meters().replenishments;
    let rejection = pool.reject_award(&mut book, 1, "ESCALERA_REAL", |_, _| true).expect("a pending award");
    assert_eq!(pool.meters().replenishments, house_before, "no house money for a rejection");
    assert!(rejection.house_withdrawn >= Money::ZERO);
    assert_eq!(pool.balance(), Money::ZERO);
    // As if never entered the main pool would hold 10,000 − 15,000: the reserve gets its
    // 20,000 back less the 5,000 that keep the main pool at zero: 30,000 + 15,000.
    assert_eq!(pool.reserve(), money!(30000) + money!(15000));
    assert_eq!(rejection.reserve_returned, money!(20000) - money!(5000));
    assert_conserved(&pool);
}

// ---------------------------------------------------------------- the property

/// Cases per pool: `PROPTEST_CASES` when set, 300 otherwise.
fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|cases| cases.parse().ok()).unwrap_or(300);
    Config { cases, failure_persistence: None, ..Config::default() }
}

#[derive(Clone, Debug)]
enum Event {
    Bet,
    /// A round; each award's order is pending (true) or was paid (false).
    Round(Vec<Winner>, Vec<bool>),
    Reject(Index, Index),
}

/// One to five winners, at most one combination per seat, all with the pool's own bet.
fn winners(rules: &PoolRules) -> impl Strategy<Value = Vec<Winner>> + use<> {
    let codes: Vec<pozo_engine::PrizeCode> = rules.prizes.iter().map(|prize| prize.code.clone()).collect();
    let bet = rules.side_bet;
    let ranks = ["2", "5", "9", "J", "A"];
    let one = (1..=5_u32, select(codes), select(ranks.to_vec())).prop_map(move |(seat, code, high)| Winner {
        seat,
        code,
        bet: Some(bet),
        high: Some(high.parse::<Rank>().expect("a rank")),
        at: None,
    });
    vec(one, 1..=5).prop_map(|mut winners| {
        let mut seats = BTreeSet::new();
        winners.retain(|winner| seats.insert(winner.seat));
        winners
    })
}

fn events(rules: &PoolRules) -> impl Strategy<Value = Vec<Event>> + use<> {
    let event = prop_oneof![
        4 => Just(Event::Bet),
        2 => (winners(rules), vec(any::<bool>(), 5)).prop_map(|(winners, pending)| Event::Round(winners, pending)),
        3 => (any::<Index>(), any::<Index>()).prop_map(|(round, award)| Event::Reject(round, award)),
    ];
    vec(event, 1..=24)
}

/// A round still open to rejections, as the caller keeps it.
struct Kept {
    book: RoundBook,
    /// (seat, code) of the awards whose orders are still pending.
    pending: BTreeSet<(u32, pozo_engine::PrizeCode)>,
    /// Main and reserve contributions since the round, while nothing else happened.
    clean_since: Option<(Money, Money)>,
}

fn play(rules: &PoolRules, events: &[Event]) -> Result<(), TestCaseError> {
    let mut pool = Pool::open(Arc::new(rules.clone()));
    let mut kept: Vec<Kept> = Vec::new();
    for event in events {
        let before = pool.clone();
        match event {
            Event::Bet => {
                let contribution = pool.register_bet(rules.side_bet).map_err(|error| TestCaseError::fail(error.to_string()))?;
                for round in &mut kept {
                    if let Some((main, reserve)) = &mut round.clean_since {
                        *main += contribution.main;
                        *reserve += contribution.reserve;
                    }
                }
            }
            Event::Round(winners, pending) => {
                let Ok(settlement) = pool.settle_round(winners) else {
                    prop_assert_eq!(pool.state(), before.state(), "a refused round changes nothing");
                    continue;
                };
                for round in &mut kept {
                    round.clean_since = None;
                }
                let pending = settlement
                    .awards
                    .iter()
                    .zip(pending.iter().cycle())
                    .filter(|(award, pending)| **pending && award.award > Money::ZERO)
                    .map(|(award, _)| (award.seat, award.code.clone()))
                    .collect();
                kept.push(Kept { book: settlement.book, pending, clean_since: Some((Money::ZERO, Money::ZERO)) });
            }
            Event::Reject(round_index, award_index) => {
                let open: Vec<usize> = (0..kept.len()).filter(|at| !kept[*at].pending.is_empty()).collect();
                if open.is_empty() {
                    continue;
                }
                let at = open[round_index.index(open.len())];
                let targets: Vec<(u32, pozo_engine::PrizeCode)> = kept[at].pending.iter().cloned().collect();
                let (seat, code) = targets[award_index.index(targets.len())].clone();
                let others_pending = kept[at].book.awards.iter().all(|award| {
                    award.rejected
                        || (award.seat == seat && award.code == code)
                        || kept[at].pending.contains(&(award.seat, award.code.clone()))
                });
                let counterfactual = kept[at].clean_since.filter(|_| others_pending).map(|since| {
                    let book = &kept[at].book;
                    let remaining: Vec<Winner> = book
                        .winners
                        .iter()
                        .filter(|winner| {
                            let this_one = winner.seat == seat && winner.code == code;
                            let rejected_before = book.award(winner.seat, &winner.code).is_some_and(|award| award.rejected);
                            !this_one && !rejected_before
                        })
                        .cloned()
                        .collect();
                    let mut alone = Pool::with_balances(Arc::new(rules.clone()), book.balance_before, book.reserve_before);
                    let awards = if remaining.is_empty() {
                        Vec::new()
                    } else {
                        alone.settle_round(&remaining).expect("a subset of a valid round is valid").awards
                    };
                    (alone.balance() + since.0, alone.reserve() + since.1, awards)
                });
                let Kept { book, pending, .. } = &mut kept[at];
                let booked_before = book.award(seat, &code).expect("a booked award").award;
                let awards_before: Vec<(u32, pozo_engine::PrizeCode, Money)> =
                    book.awards.iter().map(|award| (award.seat, award.code.clone(), award.award)).collect();
                let pending_now = pending.clone();
                let rejection = pool
                    .reject_award(book, seat, &code, |s, c| pending_now.contains(&(s, c.into())) && !(s == seat && c == code))
                    .map_err(|error| TestCaseError::fail(format!("a pending award was refused: {error}")))?;
                pending.remove(&(seat, code.clone()));
                prop_assert_eq!(rejection.returned, booked_before);
                // No pending award went down; no paid one moved.
                for (s, c, amount) in awards_before.clone() {
                    let now = book.award(s, &c).expect("still booked").award;
                    if s == seat && c == code {
                        prop_assert_eq!(now, Money::ZERO);
                    } else if pending.contains(&(s, c.clone())) || amount.is_zero() {
                        prop_assert!(now >= amount, "a pending or unpaid award went down: {} → {}", amount, now);
                    } else {
                        prop_assert_eq!(now, amount, "a paid award moved");
                    }
                }
                let raised: Money = rejection.resettled.iter().map(|r| r.after - r.before).sum();
                prop_assert_eq!(pool.meters().net_awards(), before.meters().net_awards() - booked_before + raised);
                // As if the rejected winner had never been entered.
                // Where rounding would lower a pending award by the odd unit a shared
                // prize left (docs/readings.md), it keeps its amount, and the pool is that
                // much lower than if the winner had never been entered: nothing more.
                if let Some((balance, reserve, awards)) = counterfactual {
                    let had = |s: u32, c: &str| {
                        awards_before.iter().find(|(a, b, _)| *a == s && b == c).map(|(_, _, amount)| *amount).expect("booked")
                    };
                    let mut lowered = Money::ZERO;
                    for alone in &awards {
                        let old = had(alone.seat, &alone.code);
                        lowered += (old - alone.award).max(Money::ZERO);
                        prop_assert_eq!(book.award(alone.seat, &alone.code).expect("booked").award, alone.award.max(old));
                    }
                    if lowered.is_zero() {
                        prop_assert_eq!(pool.balance(), balance, "balance as if never entered");
                        prop_assert_eq!(pool.reserve(), reserve, "reserve as if never entered");
                    } else {
                        prop_assert!(
                            lowered <= rules.payout_unit * Decimal::from(awards.len()),
                            "only rounding lowers: {}",
                            lowered
                        );
                        let held = pool.balance() + pool.reserve();
                        prop_assert!(
                            (balance + reserve - held).abs() <= lowered,
                            "{} held, {} as if never entered",
                            held,
                            balance + reserve
                        );
                    }
                }
                for round in &mut kept {
                    round.clean_since = None;
                }
            }
        }
        // After every event: money is neither created nor destroyed, nothing negative.
        prop_assert_eq!(pool.conservation_difference(), Money::ZERO, "{:?}", pool.meters());
        prop_assert!(pool.balance() >= Money::ZERO && pool.reserve() >= Money::ZERO);
        let (m, b) = (pool.meters(), before.meters());
        prop_assert!(m.awards >= b.awards && m.replenishments >= b.replenishments && m.awards_returned >= b.awards_returned);
    }
    Ok(())
}

#[test]
fn conservation_holds_after_every_rejection_in_every_pool() {
    for rules in Rulebooks::embedded().pools() {
        let mut runner = TestRunner::new(config());
        if let Err(failure) = runner.run(&events(rules), |events| play(rules, &events)) {
            panic!("pool `{}`: {failure}", rules.id);
        }
    }
}
