//! Property tests over every pool of the embedded rulebooks (docs/rules.md, "Money and conservation"; docs/readings.md).
//!
//! Each test plays random sequences of steps on a fresh pool: side bets registered
//! (whole centavos, sometimes exactly the rulebook's side bet), earlier bets reversed
//! (each at most once, 4.3.2), rounds of one to six winners settled, and the main
//! balance adjusted up or down. The engine's test adds transfers between pools,
//! retirements and rule changes. After every step one property is checked, exactly:
//! money is `Decimal`, so there is no tolerance anywhere.
//!
//! Every test runs `PROPTEST_CASES` cases (default 1,000) per pool. Failures are not
//! persisted to a regressions file; the minimal failing input is in the panic message.

use std::collections::BTreeSet;
use std::sync::Arc;

use pozo_engine::money;
use pozo_engine::settle::{SEAT_MAX, WINNERS_MAX};
use pozo_engine::{
    Contribution, Engine, EngineError, Meters, MinimumKind, Money, Policy, Pool, PoolFigures, PoolRules, PrizeValue, Rank,
    Reconciliation, Reversal, Rulebooks, Settlement, Winner,
};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{Index, select};
use proptest::strategy::Union;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use rust_decimal::Decimal;

// ---------------------------------------------------------------------------
// Running the properties
// ---------------------------------------------------------------------------

/// Cases per pool and per test: `PROPTEST_CASES` when set, 1,000 otherwise.
fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|cases| cases.parse().ok()).unwrap_or(1_000);
    Config { cases, failure_persistence: None, ..Config::default() }
}

/// Runs `check` after every step of random sequences of valid steps, on every pool.
fn check_every_pool(check: impl Fn(&Observed<'_>) -> Result<(), TestCaseError>) {
    check_every_pool_with(steps, check);
}

/// Runs `check` after every step of the sequences `scenario` generates, on every pool.
fn check_every_pool_with<S: Strategy<Value = Vec<Step>>>(
    scenario: impl Fn(&PoolRules) -> S,
    check: impl Fn(&Observed<'_>) -> Result<(), TestCaseError>,
) {
    let rulebooks = Rulebooks::embedded();
    for rules in rulebooks.pools() {
        let mut runner = TestRunner::new(config());
        if let Err(failure) = runner.run(&scenario(rules), |steps| play(rules, &steps, &check)) {
            panic!("pool `{}`: {failure}", rules.id);
        }
    }
}

/// One step of a scenario.
#[derive(Clone, Debug)]
enum Step {
    /// Register a side bet of this amount.
    Bet(Money),
    /// Reverse one of the contributions registered so far and not yet reversed.
    Reverse(Index),
    /// Settle one round at one table with these (valid) winners.
    Round(Vec<Winner>),
    /// Settle a round the engine must refuse, broken by `defect`.
    Broken { defect: Defect, winners: Vec<Winner> },
    /// Give back one award paid so far and not yet given back: its series was invalid (3.7.3).
    Reclaim(Index),
    /// Correct the main balance up, or down by at most what it holds (`moves.rs`).
    Adjust { up: bool, amount: Money },
    /// Move money from this pool's main balance to the pool `to` picks (engine only).
    Transfer { to: Index, amount: Moved },
    /// Retire this pool into the pool `to` picks (engine only).
    Retire { to: Index },
    /// Put the same rulebooks on the live pools again (engine only).
    NewRules,
}

/// How much a generated transfer moves, against the source's main balance when it runs.
#[derive(Clone, Copy, Debug)]
enum Moved {
    /// This many thousandths of the balance, in whole centavos (zero is refused).
    Share(u16),
    /// A centavo or more over the balance: refused.
    OverBalance(Money),
    /// Half a centavo: refused.
    FinerThanCentavo,
}

/// What one step did.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // a test's record of one step: size does not matter
enum Outcome {
    Opened,
    Registered(Contribution),
    Reversed(Reversal),
    Reclaimed(Money),
    Adjusted(Money),
    Settled { winners: Vec<Winner>, settlement: Settlement },
    Refused { winners: Vec<Winner>, error: EngineError },
}

/// The pool before and after one step, and what the step did.
struct Observed<'a> {
    rules: &'a PoolRules,
    before: &'a Pool,
    after: &'a Pool,
    outcome: &'a Outcome,
    /// How the round was broken on purpose, when it was.
    defect: Option<Defect>,
}

impl Observed<'_> {
    /// The round's winners and settlement, when the step settled a round.
    fn settled(&self) -> Option<(&[Winner], &Settlement)> {
        match self.outcome {
            Outcome::Settled { winners, settlement } => Some((winners, settlement)),
            _ => None,
        }
    }
}

/// Opens the pool at its minimum and plays `steps`, handing every state to `check`.
fn play(
    rules: &PoolRules,
    steps: &[Step],
    check: &impl Fn(&Observed<'_>) -> Result<(), TestCaseError>,
) -> Result<(), TestCaseError> {
    let mut pool = Pool::open(Arc::new(rules.clone()));
    check(&Observed { rules, before: &pool, after: &pool, outcome: &Outcome::Opened, defect: None })?;
    let mut reversible: Vec<Contribution> = Vec::new();
    let mut reclaimable: Vec<Money> = Vec::new();
    for step in steps {
        let before = pool.clone();
        let outcome = match step {
            Step::Bet(bet) => {
                let contribution = pool.register_bet(*bet).map_err(refused_valid)?;
                reversible.push(contribution.clone());
                Outcome::Registered(contribution)
            }
            Step::Reverse(index) => {
                if reversible.is_empty() {
                    continue;
                }
                let contribution = reversible.swap_remove(index.index(reversible.len()));
                Outcome::Reversed(pool.reverse_bet(contribution).map_err(refused_valid)?)
            }
            Step::Reclaim(index) => {
                if reclaimable.is_empty() {
                    continue;
                }
                let amount = reclaimable.swap_remove(index.index(reclaimable.len()));
                pool.reclaim_award(amount)
                    .map_err(|error| TestCaseError::fail(format!("a paid award's reclaim refused: {error}")))?;
                Outcome::Reclaimed(amount)
            }
            Step::Adjust { up, amount } => {
                let Some(amount) = adjustment(&pool, *up, *amount) else { continue };
                pool.adjust(amount).map_err(|error| TestCaseError::fail(format!("a valid adjustment refused: {error}")))?;
                Outcome::Adjusted(amount)
            }
            Step::Transfer { .. } | Step::Retire { .. } | Step::NewRules => continue,
            Step::Round(winners) | Step::Broken { winners, .. } => match pool.settle_round(winners) {
                Ok(settlement) => {
                    reclaimable.extend(settlement.awards.iter().map(|award| award.award).filter(|award| *award > Money::ZERO));
                    Outcome::Settled { winners: winners.clone(), settlement }
                }
                Err(error) => Outcome::Refused { winners: winners.clone(), error },
            },
        };
        let defect = match step {
            Step::Broken { defect, .. } => Some(*defect),
            _ => None,
        };
        check(&Observed { rules, before: &before, after: &pool, outcome: &outcome, defect })?;
    }
    Ok(())
}

/// The signed amount of an adjustment step on `pool`: down by at most the whole centavos
/// the main balance holds; `None` when that is nothing.
fn adjustment(pool: &Pool, up: bool, amount: Money) -> Option<Money> {
    if up {
        return Some(amount);
    }
    let most = pozo_engine::money::floor_to_unit(pool.balance(), money!(0.01));
    let down = amount.min(most);
    (!down.is_zero()).then_some(-down)
}

fn refused_valid(error: EngineError) -> TestCaseError {
    TestCaseError::fail(format!("a valid bet or reversal was refused: {error}"))
}

// ---------------------------------------------------------------------------
// Generating steps
// ---------------------------------------------------------------------------

/// Card ranks as a dealer types them, 2 to ace.
const RANKS: [&str; 13] = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];

/// The seats a generated round uses.
const SEATS: std::ops::RangeInclusive<u32> = 1..=8;

/// An amount in whole centavos within `cents`.
fn centavos(cents: std::ops::RangeInclusive<i64>) -> impl Strategy<Value = Money> {
    cents.prop_map(Money::from_cents)
}

/// A side bet: often the rulebook's own, sometimes a few centavos (which brings the
/// AJ 5,000×bet cap into play), otherwise anything from 0.01 to 1,000.00.
/// Always within the rulebook's `bet_min`–`bet_max` (just the stipulated bet where
/// it is fixed: Veintiuno e).
fn bet(rules: &PoolRules) -> impl Strategy<Value = Money> + use<> {
    let cents = |bet: Money| (bet * Decimal::ONE_HUNDRED).decimal().trunc().mantissa() as i64;
    let (low, high) = (cents(rules.bet_min), cents(rules.bet_max).min(100_000));
    prop_oneof![
        2 => Just(rules.side_bet),
        1 => centavos(low..=(low + 99).min(high)),
        3 => centavos(low..=high),
    ]
}

/// The one bet a pool accepts, where its rulebook guarantees a floor in multiples of
/// the bet: the bolsa is played for "una cantidad única estipulada" (Veintiuno e),
/// and the rulebook checks `minimum >= floor × side_bet` for that amount only.
fn stipulated_bet(rules: &PoolRules) -> Option<Money> {
    rules.fixed_bet().then_some(rules.side_bet)
}

fn winner_bet(rules: &PoolRules) -> BoxedStrategy<Money> {
    match stipulated_bet(rules) {
        Some(bet) => Just(bet).boxed(),
        None => bet(rules).boxed(),
    }
}

/// One to six winners on seats 1–8 with codes of the pool's paytable, each with its
/// bet and highest card. A seat never gets the same code twice in one round, nor two
/// codes that cannot occur in one hand (the engine rightly refuses both: a
/// combination is marked once; the rulebook's `exclusive`).
fn winners(rules: &PoolRules) -> impl Strategy<Value = Vec<Winner>> + use<> {
    let exclusive = rules.clone();
    let codes: Vec<pozo_engine::PrizeCode> = rules.prizes.iter().map(|prize| prize.code.clone()).collect();
    let winner = (SEATS, select(codes), winner_bet(rules), select(RANKS.to_vec())).prop_map(|(seat, code, bet, high)| Winner {
        seat,
        code,
        bet: Some(bet),
        high: Some(high.parse::<Rank>().expect("RANKS are card ranks")),
        at: None,
    });
    vec(winner, 1..=6).prop_map(move |mut winners| {
        let mut marked: BTreeSet<(u32, String)> = BTreeSet::new();
        winners.retain(|winner| {
            let clash = marked.iter().any(|(seat, code)| *seat == winner.seat && exclusive.excludes(code, &winner.code));
            !clash && marked.insert((winner.seat, winner.code.to_string()))
        });
        winners
    })
}

/// A valid step: bets most often, then rounds, then reversals.
fn step(rules: &PoolRules) -> impl Strategy<Value = Step> + use<> {
    prop_oneof![
        4 => bet(rules).prop_map(Step::Bet),
        1 => any::<Index>().prop_map(Step::Reverse),
        2 => winners(rules).prop_map(Step::Round),
        1 => any::<Index>().prop_map(Step::Reclaim),
        1 => (any::<bool>(), centavos(1..=5_000_000)).prop_map(|(up, amount)| Step::Adjust { up, amount }),
    ]
}

/// A scenario of valid steps.
fn steps(rules: &PoolRules) -> impl Strategy<Value = Vec<Step>> + use<> {
    vec(step(rules), 1..=32)
}

/// A scenario where some rounds are broken and must be refused.
fn steps_with_refusals(rules: &PoolRules) -> impl Strategy<Value = Vec<Step>> + use<> {
    let broken = (winners(rules), select(Defect::ALL.to_vec()), any::<Index>())
        .prop_map(|(winners, defect, index)| Step::Broken { defect, winners: defect.apply(winners, index) });
    vec(prop_oneof![3 => step(rules), 1 => broken], 1..=32)
}

/// A way to break an otherwise valid round.
#[derive(Clone, Copy, Debug)]
enum Defect {
    NoWinners,
    TooManyWinners,
    SameCombinationTwice,
    SeatZero,
    SeatOverMax,
    CodeNotInPaytable,
    ZeroBet,
    BetFinerThanCentavo,
    BetOverMax,
}

impl Defect {
    const ALL: [Defect; 9] = [
        Defect::NoWinners,
        Defect::TooManyWinners,
        Defect::SameCombinationTwice,
        Defect::SeatZero,
        Defect::SeatOverMax,
        Defect::CodeNotInPaytable,
        Defect::ZeroBet,
        Defect::BetFinerThanCentavo,
        Defect::BetOverMax,
    ];

    fn apply(self, mut winners: Vec<Winner>, index: Index) -> Vec<Winner> {
        let at = index.index(winners.len());
        match self {
            Defect::NoWinners => winners.clear(),
            // Refused for their number before anything else is looked at.
            Defect::TooManyWinners => winners = std::iter::repeat_n(winners[0].clone(), WINNERS_MAX + 1).collect(),
            Defect::SameCombinationTwice => winners.push(winners[at].clone()),
            Defect::SeatZero => winners[at].seat = 0,
            Defect::SeatOverMax => winners[at].seat = SEAT_MAX + 1,
            Defect::CodeNotInPaytable => winners[at].code = "NO_ES_UN_PREMIO".into(),
            Defect::ZeroBet => winners[at].bet = Some(Money::ZERO),
            Defect::BetFinerThanCentavo => winners[at].bet = Some(money!(0.005)),
            Defect::BetOverMax => winners[at].bet = Some(pozo_engine::money::BET_MAX + money!(0.01)),
        }
        winners
    }
}

// ---------------------------------------------------------------------------
// Helpers over settlements
// ---------------------------------------------------------------------------

/// The floor a prize guarantees for this bet, rounded down to the payout unit, if any.
fn guaranteed_floor(rules: &PoolRules, code: &str, bet: Money) -> Option<Money> {
    match rules.prize(code)?.value {
        PrizeValue::Percent { floor_bet_multiple: Some(multiple), .. } => {
            let floor = multiple * bet;
            Some(floor - floor % rules.payout_unit)
        }
        _ => None,
    }
}

/// The bet of the winner an award was paid to (seat + code is unique in a round).
fn bet_of(winners: &[Winner], seat: u32, code: &str) -> Money {
    winners
        .iter()
        .find(|winner| winner.seat == seat && winner.code == code)
        .and_then(|winner| winner.bet)
        .expect("every award belongs to a generated winner with a bet")
}

fn is_full_pool(rules: &PoolRules, code: &str) -> bool {
    rules.prize(code).is_some_and(|prize| prize.value.is_full_pool())
}

fn is_percent(rules: &PoolRules, code: &str) -> bool {
    rules.prize(code).is_some_and(|prize| matches!(prize.value, PrizeValue::Percent { .. }))
}

fn pays_a_floor(rules: &PoolRules, code: &str) -> bool {
    rules.prize(code).is_some_and(|prize| matches!(prize.value, PrizeValue::Percent { floor_bet_multiple: Some(_), .. }))
}

/// Every meter that counts money, by name.
fn money_meters(meters: &Meters) -> [(&'static str, Money); 20] {
    // Exhaustive on purpose: a new meter must be added here (or knowingly skipped).
    let &Meters {
        bets: _,
        bets_amount,
        commission,
        contributions,
        reserve_contributions,
        reversals: _,
        reversed_amount,
        reversed_commission,
        reversed_contributions,
        reversed_reserve_contributions,
        replenishments,
        reserve_transfers,
        awards,
        hits: _,
        awards_returned,
        rejections: _,
        replenishments_withdrawn,
        reserve_transfers_returned,
        awards_reclaimed,
        reclaims: _,
        transfers_in,
        transfers_out,
        transfers_out_of_reserve,
        adjustments_up,
        adjustments_down,
        adjustments: _,
        resets: _,
    } = meters;
    [
        ("bets_amount", bets_amount),
        ("commission", commission),
        ("contributions", contributions),
        ("reserve_contributions", reserve_contributions),
        ("reversed_amount", reversed_amount),
        ("reversed_commission", reversed_commission),
        ("reversed_contributions", reversed_contributions),
        ("reversed_reserve_contributions", reversed_reserve_contributions),
        ("replenishments", replenishments),
        ("reserve_transfers", reserve_transfers),
        ("awards", awards),
        ("awards_returned", awards_returned),
        ("replenishments_withdrawn", replenishments_withdrawn),
        ("reserve_transfers_returned", reserve_transfers_returned),
        ("awards_reclaimed", awards_reclaimed),
        ("transfers_in", transfers_in),
        ("transfers_out", transfers_out),
        ("transfers_out_of_reserve", transfers_out_of_reserve),
        ("adjustments_up", adjustments_up),
        ("adjustments_down", adjustments_down),
    ]
}

/// Every meter that counts events, by name.
fn count_meters(meters: &Meters) -> [(&'static str, u64); 7] {
    [
        ("bets", meters.bets),
        ("reversals", meters.reversals),
        ("hits", meters.hits),
        ("resets", meters.resets),
        ("rejections", meters.rejections),
        ("reclaims", meters.reclaims),
        ("adjustments", meters.adjustments),
    ]
}

// ---------------------------------------------------------------------------
// Pool properties
// ---------------------------------------------------------------------------

#[test]
fn conservation_holds_after_every_step() {
    // Proves: contributions + replenishments + transfers in + adjustments up == balance + reserve
    // + awards (net of those given back, 3.7.3) + transfers out + adjustments down after every
    // step, exactly (§4; pool.rs).
    check_every_pool(|step| {
        let pool = step.after;
        let m = pool.meters();
        prop_assert_eq!(pool.conservation_difference(), Money::ZERO);
        let money_in = m.contributions + m.reserve_contributions - m.reversed_contributions - m.reversed_reserve_contributions
            + m.replenishments
            + m.transfers_in
            + m.adjustments_up;
        prop_assert_eq!(
            money_in,
            pool.balance() + pool.reserve() + m.awards - m.awards_returned - m.awards_reclaimed
                + m.transfers_out
                + m.adjustments_down,
            "recomputed from the meters: {:?}",
            m
        );
        Ok(())
    });
}

#[test]
fn the_books_tie_to_zero_over_every_step_and_since_the_pool_opened() {
    // Proves: the reconciliation an auditor reads (opening balance and reserve + contributions +
    // replenishments + transfers in + adjustments up − awards + returned + reclaimed − withdrawn
    // replenishments − transfers out − adjustments down = closing balance and reserve; reconcile.rs)
    // ties to the centavo over each step, refused ones included, and over the pool's whole life
    // from nothing (its opening minimum is a replenishment); and that each line is its meter's growth.
    check_every_pool(|step| {
        let (before, after) = (step.before.figures(), step.after.figures());
        let books = Reconciliation::between(&before, &after);
        prop_assert!(books.ties(), "a step's books do not tie: {:?}", books);
        prop_assert_eq!(books.expected_closing(), after.balance + after.reserve);
        prop_assert_eq!(books.awards, after.meters.awards - before.meters.awards);
        prop_assert_eq!(books.contributions, after.meters.net_contributions() - before.meters.net_contributions());
        let life = Reconciliation::between(&PoolFigures::default(), &after);
        prop_assert!(life.ties(), "the books since the pool opened do not tie: {:?}", life);
        prop_assert_eq!(life.replenishments, after.meters.replenishments);
        Ok(())
    });
}

#[test]
fn displayed_never_under_minimum() {
    // Proves: where the rulebook's minimum is a floor (IPLyC 3.2.2, 11.2.2, 15.2.3: "se
    // completará esta cifra para el pago del primer premio") the displayed amount is
    // max(balance, minimum), never under the minimum; where it is only the starting
    // amount (Póquer sin descarte 6.3: "sus pagos serán descontados de la suma acumulada
    // en el visor"; AJ 2.5.6.3 "valor inicial o base") it is exactly the balance.
    check_every_pool(|step| {
        let pool = step.after;
        match step.rules.minimum_kind {
            MinimumKind::Floor => {
                prop_assert!(
                    pool.displayed() >= step.rules.minimum,
                    "displayed {} < minimum {}",
                    pool.displayed(),
                    step.rules.minimum
                );
                prop_assert_eq!(pool.displayed(), pool.balance().max(step.rules.minimum));
            }
            MinimumKind::Start => prop_assert_eq!(pool.displayed(), pool.balance(), "a start pool shows its balance"),
        }
        Ok(())
    });
}

#[test]
fn balances_never_go_negative() {
    // Proves: neither the main nor the reserve pool is ever negative; a shortfall is always funded (3.2.2, 11.2.2).
    check_every_pool(|step| {
        prop_assert!(step.after.balance() >= Money::ZERO, "balance {}", step.after.balance());
        prop_assert!(step.after.reserve() >= Money::ZERO, "reserve {}", step.after.reserve());
        Ok(())
    });
}

#[test]
fn no_award_is_negative() {
    // Proves: no award, unlimited value, stage payment, floor top-up or replenishment of a round is negative.
    check_every_pool(|step| {
        let Some((_, settlement)) = step.settled() else { return Ok(()) };
        for award in &settlement.awards {
            prop_assert!(award.award >= Money::ZERO, "negative award {:?}", award);
            prop_assert!(award.unlimited >= Money::ZERO, "negative unlimited value {:?}", award);
        }
        for stage in &settlement.stages {
            prop_assert!(stage.paid >= Money::ZERO && stage.floor_topup >= Money::ZERO, "negative stage {:?}", stage);
        }
        prop_assert!(settlement.replenishment >= Money::ZERO && settlement.reserve_used >= Money::ZERO);
        Ok(())
    });
}

#[test]
fn awards_are_whole_payout_units() {
    // Proves: every award is rounded to a whole multiple of the rulebook's payout unit (§4, rounding).
    check_every_pool(|step| {
        let Some((_, settlement)) = step.settled() else { return Ok(()) };
        let unit = step.rules.payout_unit;
        for award in &settlement.awards {
            prop_assert_eq!(award.award % unit, Money::ZERO, "award {:?} is not a multiple of {}", award, unit);
        }
        Ok(())
    });
}

#[test]
fn no_award_exceeds_its_unlimited_value() {
    // Proves: no award exceeds its unlimited value (3.6.1.1) but for a floor or AJ's indivisible units (2.5.6.2).
    check_every_pool(|step| {
        let Some((winners, settlement)) = step.settled() else { return Ok(()) };
        let rules = step.rules;
        for award in &settlement.awards {
            let sharing = settlement.awards.iter().filter(|other| other.code == award.code).count();
            let odd_units = match rules.policy {
                Policy::AjOrdered if is_percent(rules, &award.code) => rules.payout_unit * Decimal::from(sharing - 1),
                _ => Money::ZERO,
            };
            let mut most = award.unlimited + odd_units;
            if let Some(floor) = guaranteed_floor(rules, &award.code, bet_of(winners, award.seat, &award.code)) {
                most = most.max(floor);
            }
            prop_assert!(award.award <= most, "award {:?} over its limit {} (shared by {})", award, most, sharing);
        }
        // What position 1 gets beyond its share is only what the others could not
        // divide: winners sharing a percentage get, on average, at most the equal share.
        // (The average is compared, not the sum of the shares: pot ÷ n is rounded at 28
        // digits, and so is paid ÷ n, the same way.)
        if rules.policy == Policy::AjOrdered {
            let percentages = settlement.awards.iter().map(|award| &award.code).filter(|code| is_percent(rules, code));
            for code in percentages.collect::<BTreeSet<_>>() {
                let shared: Vec<_> = settlement.awards.iter().filter(|award| &award.code == code).collect();
                let paid: Money = shared.iter().map(|award| award.award).sum();
                let average = paid / Decimal::from(shared.len());
                prop_assert!(average <= shared[0].unlimited, "`{}` paid {} to {:?}", code, paid, shared);
            }
        }
        Ok(())
    });
}

#[test]
fn round_awards_never_exceed_displayed_at_marking() {
    // Proves: each stage of a round pays at most what was displayed when it started (3.5.1), plus a guaranteed floor,
    // plus, where the policy pays ×bet prizes in full (AJ 2.5.6.2 item 2; docs/readings.md), those prizes; and then
    // the percentage prizes alone never exceed what the display shows after them.
    check_every_pool(|step| {
        let Some((_, settlement)) = step.settled() else { return Ok(()) };
        let rules = step.rules;
        prop_assert_eq!(settlement.displayed, step.before.displayed(), "marked at another amount than displayed");
        prop_assert!(!settlement.stages.is_empty());
        let in_full: Money = match rules.policy {
            Policy::AjOrdered | Policy::AndaluciaOrdered => {
                settlement.awards.iter().filter(|award| !is_percent(rules, &award.code)).map(|award| award.award).sum()
            }
            Policy::IplycFactor | Policy::IplycGoldFirst => Money::ZERO,
        };
        if in_full > Money::ZERO {
            let percentages = settlement.total_paid() - in_full;
            let left = (settlement.displayed - in_full).max(Money::ZERO);
            let floor_topup: Money = settlement.stages.iter().map(|stage| stage.floor_topup).sum();
            prop_assert!(
                percentages <= left + floor_topup,
                "percentages {} over what the ×bet prizes left, {}",
                percentages,
                left
            );
            return Ok(());
        }
        for stage in &settlement.stages {
            prop_assert!(stage.paid <= stage.displayed + stage.floor_topup, "stage {:?} pays over its displayed amount", stage);
        }
        let staged: Money = settlement.stages.iter().map(|stage| stage.paid).sum();
        prop_assert_eq!(settlement.total_paid(), staged, "awards and stages disagree");
        prop_assert_eq!(settlement.stages[0].displayed, settlement.displayed);
        let floor_topup: Money = settlement.stages.iter().map(|stage| stage.floor_topup).sum();
        if rules.policy == Policy::IplycGoldFirst {
            prop_assert!(settlement.stages.len() <= 2, "gold, then the rest: {:?}", settlement.stages);
            if let [gold, silver] = settlement.stages.as_slice() {
                prop_assert!(settlement.full_pool_paid);
                prop_assert!(gold.paid <= settlement.displayed);
                prop_assert_eq!(silver.displayed, rules.minimum, "the silver is paid from the replenished pool (3.4.2)");
            }
        } else {
            prop_assert_eq!(settlement.stages.len(), 1);
            prop_assert!(
                settlement.total_paid() <= settlement.displayed + floor_topup,
                "paid {} with {} displayed and a floor top-up of {}",
                settlement.total_paid(),
                settlement.displayed,
                floor_topup
            );
        }
        Ok(())
    });
}

#[test]
fn floor_topup_only_where_a_floor_prize_was_paid() {
    // Proves: a round is topped up over its displayed amount only when a prize with a guaranteed floor was paid.
    check_every_pool(|step| {
        let Some((_, settlement)) = step.settled() else { return Ok(()) };
        let floor_paid = settlement.awards.iter().any(|award| pays_a_floor(step.rules, &award.code));
        for stage in &settlement.stages {
            prop_assert!(floor_paid || stage.floor_topup.is_zero(), "top-up without a floor prize: {:?}", settlement);
        }
        Ok(())
    });
}

#[test]
fn floor_prize_never_pays_under_its_guarantee() {
    // Proves: three suited sevens never pay less than 3,000 times the bet, however the bolsa is shared (Veintiuno e).
    check_every_pool(|step| {
        let Some((winners, settlement)) = step.settled() else { return Ok(()) };
        for award in &settlement.awards {
            let bet = bet_of(winners, award.seat, &award.code);
            if let Some(floor) = guaranteed_floor(step.rules, &award.code, bet) {
                prop_assert!(award.award >= floor, "award {:?} under its floor {}", award, floor);
            }
        }
        Ok(())
    });
}

#[test]
fn capped_prize_never_pays_over_its_cap() {
    // Proves: the AJ straight flush never pays more than 5,000 times the winner's bet (2.5.6.2).
    check_every_pool(|step| {
        let Some((winners, settlement)) = step.settled() else { return Ok(()) };
        for award in &settlement.awards {
            let Some(prize) = step.rules.prize(&award.code) else { continue };
            if let PrizeValue::Percent { cap_bet_multiple: Some(cap), .. } = prize.value {
                let most = cap * bet_of(winners, award.seat, &award.code);
                prop_assert!(award.award <= most, "award {:?} over its cap {}", award, most);
            }
        }
        Ok(())
    });
}

#[test]
fn meters_never_decrease() {
    // Proves: every meter only grows: bets, contributions, reversals, replenishments, awards, hits, resets (§10).
    check_every_pool(|step| {
        let (before, after) = (step.before.meters(), step.after.meters());
        for ((name, was), (_, is)) in money_meters(&before).into_iter().zip(money_meters(&after)) {
            prop_assert!(is >= was, "meter {} went down from {} to {}", name, was, is);
        }
        for ((name, was), (_, is)) in count_meters(&before).into_iter().zip(count_meters(&after)) {
            prop_assert!(is >= was, "meter {} went down from {} to {}", name, was, is);
        }
        Ok(())
    });
}

#[test]
fn full_pool_prize_resets_pool_to_minimum() {
    // Proves: a paid 100% prize resets the pool to its minimum (15.2.2); a roulette silver is paid from it (3.4.2).
    check_every_pool(|step| {
        let Some((_, settlement)) = step.settled() else { return Ok(()) };
        let rules = step.rules;
        let full_pool = settlement.awards.iter().any(|award| is_full_pool(rules, &award.code));
        prop_assert_eq!(settlement.full_pool_paid, full_pool, "full_pool_paid disagrees with the awards");
        if full_pool {
            let paid_after_reset: Money = settlement.stages.iter().skip(1).map(|stage| stage.paid).sum();
            prop_assert!(
                step.after.balance() + paid_after_reset >= rules.minimum,
                "balance {} after a 100% prize ({} paid after the reset)",
                step.after.balance(),
                paid_after_reset
            );
            prop_assert_eq!(step.after.meters().resets, step.before.meters().resets + 1);
        } else {
            prop_assert_eq!(step.after.meters().resets, step.before.meters().resets);
        }
        Ok(())
    });
}

#[test]
fn each_step_moves_exactly_what_it_reports() {
    // Proves: what a bet, a reversal or a settlement reports is exactly what moved in the balances and meters.
    check_every_pool(|step| {
        let (before, after) = (step.before, step.after);
        let (was, is) = (before.meters(), after.meters());
        match step.outcome {
            Outcome::Opened => {
                prop_assert_eq!(after.balance(), step.rules.minimum);
                prop_assert_eq!(is.replenishments, step.rules.minimum);
            }
            Outcome::Registered(contribution) => {
                prop_assert_eq!(contribution, &before.contribution_of(contribution.bet));
                prop_assert_eq!(after.balance(), before.balance() + contribution.main);
                prop_assert_eq!(after.reserve(), before.reserve() + contribution.reserve);
                prop_assert_eq!(is.bets, was.bets + 1);
                prop_assert_eq!(
                    contribution.commission + contribution.main + contribution.reserve,
                    contribution.bet * (step.rules.commission_rate + step.rules.contribution_rate + step.rules.reserve_rate)
                );
            }
            Outcome::Reversed(reversal) => {
                let contribution = &reversal.contribution;
                prop_assert_eq!(
                    after.balance() + after.reserve(),
                    before.balance() + before.reserve() - contribution.main - contribution.reserve + reversal.replenishment
                );
                prop_assert_eq!(is.replenishments, was.replenishments + reversal.replenishment);
                prop_assert_eq!(is.reversals, was.reversals + 1);
            }
            Outcome::Reclaimed(amount) => {
                // 3.7.3: the award given back goes to the main pool, booked as reclaimed.
                prop_assert_eq!(after.balance(), before.balance() + *amount);
                prop_assert_eq!(after.reserve(), before.reserve());
                prop_assert_eq!(is.awards_reclaimed, was.awards_reclaimed + *amount);
                prop_assert_eq!(is.awards, was.awards);
            }
            Outcome::Adjusted(amount) => {
                // moves.rs: a correction moves the main balance only, booked by its direction.
                prop_assert_eq!(after.balance(), before.balance() + *amount);
                prop_assert_eq!(after.reserve(), before.reserve());
                prop_assert_eq!(is.adjustments_up - was.adjustments_up - (is.adjustments_down - was.adjustments_down), *amount);
                prop_assert!(is.adjustments_up == was.adjustments_up || is.adjustments_down == was.adjustments_down);
                prop_assert_eq!(is.adjustments, was.adjustments + 1);
            }
            Outcome::Settled { settlement, .. } => {
                prop_assert_eq!(settlement.balance_after, after.balance());
                prop_assert_eq!(settlement.reserve_after, after.reserve());
                prop_assert_eq!(settlement.displayed_after, after.displayed());
                prop_assert_eq!(is.awards, was.awards + settlement.total_paid());
                prop_assert_eq!(is.hits, was.hits + settlement.awards.len() as u64);
                prop_assert_eq!(is.replenishments, was.replenishments + settlement.replenishment);
                prop_assert_eq!(is.reserve_transfers, was.reserve_transfers + settlement.reserve_used);
                prop_assert_eq!(after.reserve(), before.reserve() - settlement.reserve_used);
                prop_assert_eq!(is.contributions, was.contributions);
            }
            Outcome::Refused { .. } => {}
        }
        Ok(())
    });
}

#[test]
fn refused_round_changes_nothing() {
    // Proves: a broken round is refused and leaves balance, reserve and meters untouched; a valid one is accepted.
    check_every_pool_with(steps_with_refusals, |step| {
        match (step.outcome, step.defect) {
            (Outcome::Refused { winners, error }, defect) => {
                prop_assert!(defect.is_some(), "a valid round was refused: {} ({:?})", error, winners);
                prop_assert_eq!(step.after.balance(), step.before.balance());
                prop_assert_eq!(step.after.reserve(), step.before.reserve());
                prop_assert_eq!(step.after.displayed(), step.before.displayed());
                prop_assert_eq!(step.after.meters(), step.before.meters());
            }
            (Outcome::Settled { winners, .. }, Some(defect)) => {
                prop_assert!(false, "a round broken by {:?} was accepted: {:?}", defect, winners);
            }
            _ => {}
        }
        Ok(())
    });
}

// ---------------------------------------------------------------------------
// Engine properties
// ---------------------------------------------------------------------------

/// A step on one pool of the engine: a pool's own steps most often, then transfers, rule
/// changes and, rarely, a retirement.
fn engine_step(rules: &PoolRules) -> impl Strategy<Value = Step> + use<> {
    let moved = prop_oneof![
        6 => (1_u16..=1000).prop_map(Moved::Share),
        1 => centavos(1..=100_000).prop_map(Moved::OverBalance),
        1 => Just(Moved::FinerThanCentavo),
    ];
    prop_oneof![
        24 => step(rules),
        4 => (any::<Index>(), moved).prop_map(|(to, amount)| Step::Transfer { to, amount }),
        1 => any::<Index>().prop_map(|to| Step::Retire { to }),
        1 => Just(Step::NewRules),
    ]
}

/// Steps on random pools of the engine.
fn engine_steps(rulebooks: &Rulebooks) -> impl Strategy<Value = Vec<(pozo_engine::PoolId, Step)>> + use<> {
    let per_pool: Vec<BoxedStrategy<(pozo_engine::PoolId, Step)>> = rulebooks
        .pools()
        .map(|rules| {
            let id = rules.id.clone();
            engine_step(rules).prop_map(move |step| (id.clone(), step)).boxed()
        })
        .collect();
    vec(Union::new(per_pool), 1..=64)
}

/// The engine's totals balance, and are the sums of its pools; every pool conserves, and
/// what left pools for others arrived in others.
fn check_totals(engine: &Engine) -> Result<(), TestCaseError> {
    let totals = engine.totals();
    prop_assert_eq!(
        totals.contributions + totals.replenishments + totals.transfers_in + totals.adjustments_up,
        totals.balances + totals.awards + totals.transfers_out + totals.adjustments_down,
        "{:?}",
        totals
    );
    let sum = |meter: fn(&Pool) -> Money| -> Money { engine.pools().map(meter).sum() };
    prop_assert_eq!(totals.balances, sum(|pool| pool.balance() + pool.reserve()));
    prop_assert_eq!(totals.awards, sum(|pool| pool.meters().awards));
    prop_assert_eq!(totals.replenishments, sum(|pool| pool.meters().replenishments));
    prop_assert_eq!(totals.transfers_in, sum(|pool| pool.meters().transfers_in));
    prop_assert_eq!(totals.adjustments_down, sum(|pool| pool.meters().adjustments_down));
    prop_assert_eq!(sum(|pool| pool.meters().net_transfers()), Money::ZERO, "transfers in and out do not tie");
    prop_assert!(engine.conservation().iter().all(|(_, difference)| difference.is_zero()), "{:?}", engine.conservation());
    for pool in engine.pools().filter(|pool| pool.is_retired()) {
        prop_assert_eq!((pool.balance(), pool.reserve(), pool.displayed()), (Money::ZERO, Money::ZERO, Money::ZERO));
    }
    Ok(())
}

/// What an engine test remembers between steps.
#[derive(Default)]
struct Played {
    reversible: Vec<(pozo_engine::PoolId, Contribution)>,
    /// The meters of each pool when it was retired: they stay so.
    frozen: std::collections::BTreeMap<pozo_engine::PoolId, Meters>,
}

/// Plays one step on `pool`: what the engine answered, and whether the step's input
/// breaks a rule (a retired pool, a transfer to itself or over the balance…) and so
/// must be refused.
fn play_on_engine(
    engine: &mut Engine,
    rulebooks: &Rulebooks,
    played: &mut Played,
    pool: &pozo_engine::PoolId,
    step: &Step,
) -> Option<(Result<(), EngineError>, bool)> {
    let retired = |engine: &Engine, id: &str| engine.pool(id).expect("a pool of the engine").is_retired();
    let ids: Vec<pozo_engine::PoolId> = engine.pools().map(|pool| pool.rules().id.clone()).collect();
    let answered = match step {
        Step::Bet(bet) => {
            let answer = engine.register_bet(pool, *bet);
            if let Ok(contribution) = &answer {
                played.reversible.push((pool.clone(), contribution.clone()));
            }
            (answer.map(drop), retired(engine, pool))
        }
        Step::Reverse(index) => {
            if played.reversible.is_empty() {
                return None;
            }
            let (pool, contribution) = played.reversible.swap_remove(index.index(played.reversible.len()));
            (engine.reverse_bet(&pool, contribution).map(drop), retired(engine, &pool))
        }
        Step::Round(winners) | Step::Broken { winners, .. } => {
            (engine.settle_round(pool, winners).map(drop), retired(engine, pool))
        }
        Step::Reclaim(_) => return None,
        Step::Adjust { up, amount } => {
            let amount = adjustment(engine.pool(pool).expect("a pool of the engine"), *up, *amount).unwrap_or(Money::ZERO);
            (engine.adjust(pool, amount), retired(engine, pool) || amount.is_zero())
        }
        Step::Transfer { to, amount } => {
            let to = &ids[to.index(ids.len())];
            let balance = engine.pool(pool).expect("a pool of the engine").balance();
            let amount = transferred(balance, *amount);
            let broken = pool == to
                || retired(engine, pool)
                || retired(engine, to)
                || amount <= Money::ZERO
                || amount > balance
                || amount % money!(0.01) != Money::ZERO;
            (engine.transfer(pool, to, amount).map(drop), broken)
        }
        Step::Retire { to } => {
            let to = &ids[to.index(ids.len())];
            let broken = pool == to || retired(engine, pool) || retired(engine, to);
            let answer = engine.retire(pool, to);
            if answer.is_ok() {
                played.frozen.insert(pool.clone(), engine.pool(pool).expect("a pool of the engine").meters().clone());
            }
            (answer.map(drop), broken)
        }
        Step::NewRules => {
            let states = engine.states();
            *engine = engine.with_rulebooks(rulebooks).expect("the same rulebooks fit the same pools");
            assert_eq!(engine.states(), states, "new rules moved no money");
            (Ok(()), false)
        }
    };
    Some(answered)
}

/// The amount a transfer step moves out of a main pool holding `balance`.
fn transferred(balance: Money, moved: Moved) -> Money {
    let cents = |amount: Money| pozo_engine::money::floor_to_unit(amount, money!(0.01));
    match moved {
        Moved::Share(permille) => cents(balance * Decimal::from(permille) / Decimal::ONE_THOUSAND),
        Moved::OverBalance(over) => cents(balance) + over,
        Moved::FinerThanCentavo => money!(0.005),
    }
}

#[test]
fn engine_totals_balance_across_pools() {
    // Proves: across all pools, contributions + replenishments + transfers in + adjustments up
    // == balances + awards + transfers out + adjustments down after every operation, transfers
    // and retirements included; transfers in and out tie over all pools (moves.rs); a move is
    // refused exactly when its input breaks a rule, and then changes nothing; a retired pool
    // holds nothing, shows zero and its meters stay as they were at retirement.
    let rulebooks = Rulebooks::embedded();
    let mut runner = TestRunner::new(config());
    let result = runner.run(&engine_steps(&rulebooks), |steps| {
        let mut engine = Engine::new(&rulebooks);
        let mut played = Played::default();
        check_totals(&engine)?;
        for (pool, step) in &steps {
            let (states, totals) = (engine.states(), engine.totals());
            let Some((answer, broken)) = play_on_engine(&mut engine, &rulebooks, &mut played, pool, step) else { continue };
            match answer {
                Ok(()) => prop_assert!(!broken, "{:?} on `{}` was accepted", step, pool),
                Err(error) => {
                    prop_assert!(broken, "{:?} on `{}` was refused: {}", step, pool, error);
                    prop_assert_eq!(engine.states(), states, "a refused step changed the pools: {}", error);
                    prop_assert_eq!(engine.totals(), totals);
                }
            }
            for (id, meters) in &played.frozen {
                prop_assert_eq!(&engine.pool(id).expect("a pool of the engine").meters(), meters, "retired `{}` moved", id);
            }
            check_totals(&engine)?;
        }
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
}
