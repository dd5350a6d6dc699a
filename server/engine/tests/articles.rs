//! One test per rule, named after its article. Each computes the expected amounts
//! by hand from the article (shown in the comments) and checks the engine's to the
//! last centavo, and checks conservation after every step.
//!
//! Articles: IPLyC Res. 1452/12 (`art_…`), AJ Bolivia RR
//! 01-00002-13 (`aj_…`, 001), Andalucía Orden 4-2-2010 (`and_…`, 002).

use std::sync::Arc;

use pozo_engine::money;
use pozo_engine::{Engine, EngineError, Money, Policy, Pool, PoolRules, PrizeValue, Rank, Rulebooks, Settlement, Winner};
use rust_decimal_macros::dec;

fn rules(pool: &str) -> Arc<PoolRules> {
    Arc::new(Rulebooks::embedded().pool(pool).unwrap_or_else(|| panic!("pool {pool} is embedded")).clone())
}

/// The embedded pool `pool` under the IPLyC rulebook with its fixed side bet (3.3.1,
/// 11.4.1, 15.1.2: "Su monto será fijo y determinado de antemano") set, by editing the
/// file's text, to another stipulated amount.
fn iplyc_rules_with_side_bet(pool: &str, side_bet: &str) -> Arc<PoolRules> {
    let line = match pool {
        "iplyc-blackjack" => "side_bet = \"10.00\"               # EXAMPLE: 11.4.1",
        "iplyc-central-poker" => "side_bet = \"10.00\"               # EXAMPLE: 15.1.2",
        other => panic!("no stipulated side bet line for {other}"),
    };
    let text = include_str!("../../../config/iplyc.toml");
    assert!(text.contains(line), "the rulebook states the side bet as `{line}`");
    let edited = text.replace(line, &format!("side_bet = \"{side_bet}\" # 11.4.1, 15.1.2"));
    let rulebooks = Rulebooks::parse_all([("config/iplyc.toml", edited.as_str())]).expect("a valid rulebook");
    Arc::new(rulebooks.pool(pool).expect("the pool").clone())
}

fn pool_with(pool: &str, balance: Money) -> Pool {
    Pool::with_balances(rules(pool), balance, Money::ZERO)
}

fn winner(seat: u32, code: &str) -> Winner {
    Winner { seat, code: code.into(), bet: None, high: None, at: None }
}

fn winner_bet(seat: u32, code: &str, bet: Money) -> Winner {
    Winner { bet: Some(bet), ..winner(seat, code) }
}

fn winner_high(seat: u32, code: &str, bet: Money, high: &str) -> Winner {
    Winner { high: Some(high.parse::<Rank>().expect("a card rank")), ..winner_bet(seat, code, bet) }
}

/// The amount paid to `seat` for `code`, failing the test when it was not paid.
fn paid(settlement: &Settlement, seat: u32, code: &str) -> Money {
    settlement
        .awards
        .iter()
        .find(|award| award.seat == seat && award.code == code)
        .unwrap_or_else(|| panic!("seat {seat} {code} was paid: {settlement:#?}"))
        .award
}

fn assert_conserved(pool: &Pool) {
    assert_eq!(pool.conservation_difference(), Money::ZERO, "conservation: {pool:?}");
}

// ---------------------------------------------------------------- the 65% increment

#[test]
fn art_3_2_1_sixty_five_percent_of_each_grillo_sale() {
    // 3.2.1: the roulette pool grows by 65% of each registered bet; the grillo price
    // is the rulebook's example $30.00 → 19.50 per sale.
    let mut pool = Pool::open(rules("iplyc-ruleta"));
    let minimum = pool.rules().minimum;
    let contribution = pool.register_bet(money!(30.00)).expect("a valid bet");
    assert_eq!(contribution.main, money!(19.50));
    assert_eq!(pool.balance(), minimum + money!(19.50));
    assert_conserved(&pool);
}

#[test]
fn art_11_2_3_sixty_five_percent_keeps_every_fraction() {
    // 11.2.3 with docs/rules.md, "Money and conservation": 65% of 2.50 is 1.625, and the half centavo is kept.
    // Three such bets add 4.875 exactly: no rounding anywhere before a payout. The side bet
    // is fixed beforehand (11.4.1); this Instituto fixed it at 2.50.
    let mut pool = Pool::open(iplyc_rules_with_side_bet("iplyc-blackjack", "2.50"));
    for _ in 0..3 {
        assert_eq!(pool.register_bet(money!(2.50)).expect("a valid bet").main, money!(1.625));
    }
    assert_eq!(pool.balance(), money!(5004.875));
    assert_eq!(pool.displayed(), money!(5004.875));
    assert_eq!(pool.meters().bets, 3);
    assert_eq!(pool.meters().bets_amount, money!(7.50));
    assert_eq!(pool.meters().contributions, money!(4.875));
    assert_conserved(&pool);
}

#[test]
fn art_15_2_4_sixty_five_percent_of_the_slot_chip() {
    // 15.2.4: 65% of each registered chip, "una ficha, de un monto fijo" (15.1.2): the
    // rulebook's 10.00 chip contributes 6.50.
    let mut pool = Pool::open(rules("iplyc-central-poker"));
    assert_eq!(pool.register_bet(money!(10.00)).expect("the stipulated chip").main, money!(6.50));
    assert_eq!(pool.balance(), money!(10006.50));
    assert_conserved(&pool);
    // A casino whose chip is 0.01: 0.0065 per chip, kept whole.
    let mut pool = Pool::open(iplyc_rules_with_side_bet("iplyc-central-poker", "0.01"));
    pool.register_bet(money!(0.01)).expect("the stipulated chip");
    pool.register_bet(money!(0.01)).expect("the stipulated chip");
    assert_eq!(pool.balance(), money!(10000.013));
    assert_conserved(&pool);
}

#[test]
fn art_11_2_1_pool_opens_at_minimum_contributed_by_the_instituto() {
    // 11.2.1 / 15.2.1: the pools open at $5,000 and $10,000, booked as the
    // Instituto's contribution (a replenishment), so the books balance from the start.
    for (id, minimum) in [("iplyc-blackjack", money!(5000)), ("iplyc-central-poker", money!(10000))] {
        let pool = Pool::open(rules(id));
        assert_eq!(pool.rules().minimum, minimum, "{id}");
        assert_eq!(pool.balance(), minimum, "{id}");
        assert_eq!(pool.meters().replenishments, minimum, "{id}");
        assert_conserved(&pool);
    }
}

#[test]
fn bets_that_break_a_rule_are_refused_and_change_nothing() {
    // A bet must be positive, in whole centavos and bounded; a refused one leaves
    // the pool exactly as it was.
    let mut pool = Pool::open(rules("iplyc-blackjack"));
    let before = pool.clone();
    for bad in [money!(0), money!(-1), money!(0.001), money!(10000000)] {
        let error = pool.register_bet(bad).expect_err("refused");
        assert!(matches!(error, EngineError::Invalid { ref field, .. } if field == "bet"), "{error}");
    }
    assert_eq!(pool.balance(), before.balance());
    assert_eq!(pool.meters(), before.meters());
}

// ---------------------------------------------------------------- void and refund

#[test]
fn art_4_3_2_void_reverses_exactly_the_contribution() {
    // 4.3.2 (Anular) and 11.8.2: a bet handed back takes out exactly what it put in.
    let mut pool = Pool::open(rules("iplyc-ruleta"));
    let kept = pool.register_bet(money!(30.00)).expect("a valid bet");
    let voided = pool.register_bet(money!(30.00)).expect("a valid bet");
    let reversal = pool.reverse_bet(voided).expect("a registered bet");
    assert_eq!(reversal.contribution.main, money!(19.50));
    assert_eq!(reversal.replenishment, Money::ZERO);
    assert_eq!(pool.balance(), pool.rules().minimum + kept.main);
    assert_eq!(pool.meters().reversals, 1);
    assert_conserved(&pool);
}

#[test]
fn art_4_3_2_cannot_reverse_more_than_was_registered() {
    // A contribution that was never registered, or one that does not match this
    // pool's rates, is refused and changes nothing.
    let mut pool = Pool::open(rules("iplyc-blackjack"));
    let other = Pool::open(rules("aj-poker")).contribution_of(money!(10));
    let foreign = pool.reverse_bet(other).expect_err("AJ rates are not IPLyC rates");
    assert_eq!(foreign.field(), "contribution");
    let never = pool.contribution_of(money!(10));
    let error = pool.reverse_bet(never).expect_err("nothing was registered");
    assert_eq!(error.field(), "contribution.bet");
    assert_eq!(pool.balance(), money!(5000));
    assert_eq!(pool.meters().reversals, 0);
}

// ---------------------------------------------------------------- the minimum

#[test]
fn art_11_2_2_completes_the_minimum_for_the_first_prize() {
    // 11.2.2: four aces ($500) leave 5,200 → 4,700, under the $5,000 minimum; the
    // display still shows 5,000 (R1), and the next 100% prize pays 5,000: the
    // Instituto completes the missing 300, then resets the pool to 5,000.
    let mut pool = pool_with("iplyc-blackjack", money!(5200));
    let aces = pool.settle_round(&[winner(2, "CUATRO_ASES")]).expect("a valid round");
    assert_eq!(paid(&aces, 2, "CUATRO_ASES"), money!(500.00));
    assert_eq!(pool.balance(), money!(4700));
    assert_eq!(pool.displayed(), money!(5000));

    let first = pool.settle_round(&[winner(5, "TRES_SIETES_CORAZONES")]).expect("a valid round");
    assert_eq!(first.displayed, money!(5000));
    assert_eq!(paid(&first, 5, "TRES_SIETES_CORAZONES"), money!(5000.00));
    assert_eq!(first.replenishment, money!(300) + money!(5000), "300 to complete, 5,000 to reset");
    assert_eq!(first.balance_after, money!(5000));
    assert_conserved(&pool);
}

#[test]
fn art_11_2_2_percent_on_minimum_when_below() {
    // 11.2.2: "En caso de pagarse el segundo premio (20%) se realizará sobre el monto
    // inicial de $ 5.000": with the balance at 4,700 the 20% is 1,000, not 940.
    let mut pool = pool_with("iplyc-blackjack", money!(4700));
    let second = pool.settle_round(&[winner(1, "TRES_SIETES_MISMO_PALO")]).expect("a valid round");
    assert_eq!(paid(&second, 1, "TRES_SIETES_MISMO_PALO"), money!(1000.00));
    assert_eq!(pool.balance(), money!(3700));
    assert_eq!(second.replenishment, Money::ZERO, "the balance covered it");
    assert!(!second.full_pool_paid);
    assert_conserved(&pool);
}

#[test]
fn art_15_2_3_ten_percent_on_minimum_when_below() {
    // 15.2.3: the straight flush's 10% is computed on the $10,000 minimum.
    let mut pool = pool_with("iplyc-central-poker", money!(9000.50));
    let settlement = pool.settle_round(&[winner(3, "ESCALERA_COLOR")]).expect("a valid round");
    assert_eq!(paid(&settlement, 3, "ESCALERA_COLOR"), money!(1000.00));
    assert_eq!(pool.balance(), money!(8000.50));
    assert_conserved(&pool);
}

#[test]
fn art_3_2_2_fixed_prize_larger_than_balance_is_completed_by_the_house() {
    // 3.2.2: a pool left under a prize by earlier prizes is completed to pay it. A
    // roulette pool of 200 pays the $300 silver prize: the house adds 100.
    let mut pool = pool_with("iplyc-ruleta", money!(200));
    let settlement = pool.settle_round(&[winner(7, "GRILLO_PLATA")]).expect("a valid round");
    assert_eq!(paid(&settlement, 7, "GRILLO_PLATA"), money!(300.00));
    assert_eq!(settlement.replenishment, money!(100));
    assert_eq!(pool.balance(), Money::ZERO);
    assert_eq!(pool.displayed(), pool.rules().minimum);
    assert_conserved(&pool);
}

#[test]
fn art_15_2_2_reset_to_minimum_after_the_whole_pool() {
    // 15.2.2: "Se repondrá esta cifra cada vez que sea pagado el total del Pozo". A
    // pool of 12,345.675 pays 12,345.67 (rounded down); the half centavo stays and
    // the Instituto adds 9,999.995 to bring it back to 10,000.
    let mut pool = pool_with("iplyc-central-poker", money!(12345.675));
    let settlement = pool.settle_round(&[winner(4, "ESCALERA_REAL_MAYOR")]).expect("a valid round");
    assert_eq!(paid(&settlement, 4, "ESCALERA_REAL_MAYOR"), money!(12345.67));
    assert!(settlement.full_pool_paid);
    assert_eq!(settlement.replenishment, money!(9999.995));
    assert_eq!(settlement.balance_after, money!(10000));
    assert_eq!(pool.meters().resets, 1);
    assert_conserved(&pool);
}

// ---------------------------------------------------------------- roulette grillos

#[test]
fn art_3_4_1_1_bronze_pays_no_money_and_grants_two_silver() {
    // 3.4.1.1: a bronze hit is exchanged for two Grillos de Plata; the pool is untouched.
    let mut pool = pool_with("iplyc-ruleta", money!(25000));
    let settlement = pool.settle_round(&[winner(2, "GRILLO_BRONCE")]).expect("a valid round");
    let award = &settlement.awards[0];
    assert_eq!(award.award, Money::ZERO);
    let grants = award.grants.as_ref().expect("silver granted");
    assert_eq!((grants.code.as_str(), grants.count), ("GRILLO_PLATA", 2));
    assert_eq!(pool.balance(), money!(25000));
    assert_eq!(pool.meters().hits, 1);
}

#[test]
fn art_3_4_1_2_silver_pays_the_fixed_amount_and_grants_the_gold() {
    // 3.4.1.2: the silver hit pays the "monto adicional fijo" and gives the Grillo de Oro.
    let mut pool = pool_with("iplyc-ruleta", money!(25000));
    let silver = pool.rules().prize("GRILLO_PLATA").expect("in the paytable").clone();
    let PrizeValue::Fixed { amount } = silver.value else { panic!("silver pays a fixed amount") };
    let settlement = pool.settle_round(&[winner(2, "GRILLO_PLATA")]).expect("a valid round");
    assert_eq!(paid(&settlement, 2, "GRILLO_PLATA"), amount);
    assert_eq!(settlement.awards[0].grants.as_ref().map(|grant| grant.code.as_str()), Some("GRILLO_ORO"));
    assert_eq!(pool.balance(), money!(25000) - amount);
}

#[test]
fn art_3_4_2_gold_first_then_silver_from_the_replenished_pool() {
    // 3.4.2: gold and silver in the same ball at one table: the gold is entered first
    // and takes 100% (25,000.50); the pool is replenished to its 20,000 minimum; the
    // silver's 300 comes out of that. No factor, even though 25,000.50 + 300 exceeds
    // the display: the exception takes precedence over 3.6 (docs/readings.md, "Gold before silver"). The order
    // the dealer typed them in does not matter.
    let mut pool = pool_with("iplyc-ruleta", money!(25000.50));
    let settlement = pool.settle_round(&[winner(3, "GRILLO_PLATA"), winner(5, "GRILLO_ORO")]).expect("a valid round");
    assert_eq!(settlement.awards[0].code, "GRILLO_ORO", "gold is paid first");
    assert_eq!(paid(&settlement, 5, "GRILLO_ORO"), money!(25000.50));
    assert_eq!(paid(&settlement, 3, "GRILLO_PLATA"), money!(300.00));
    assert_eq!(settlement.factor, None);
    assert_eq!(settlement.stages.len(), 2);
    assert_eq!(settlement.stages[1].displayed, money!(20000), "silver paid from the replenished pool");
    assert_eq!(settlement.replenishment, money!(20000));
    assert_eq!(settlement.balance_after, money!(19700));
    assert_eq!(settlement.displayed_after, money!(20000));
    assert_conserved(&pool);
}

#[test]
fn art_3_6_two_golds_in_one_ball_share_by_the_factor() {
    // 3.6: two Grillos de Oro at one table in one ball each would take 100% of
    // 30,000.01; TOTAL A PAGAR is 60,000.02, FACTOR = 0.5; each gets 15,000.005,
    // rounded down to 15,000.00; the centavo left behind stays in the pool.
    let mut pool = pool_with("iplyc-ruleta", money!(30000.01));
    let settlement = pool.settle_round(&[winner(1, "GRILLO_ORO"), winner(6, "GRILLO_ORO")]).expect("a valid round");
    assert_eq!(settlement.factor, Some(dec!(0.5)));
    assert_eq!(paid(&settlement, 1, "GRILLO_ORO"), money!(15000.00));
    assert_eq!(paid(&settlement, 6, "GRILLO_ORO"), money!(15000.00));
    assert_eq!(settlement.replenishment, money!(19999.99), "0.01 stayed, the reset adds the rest");
    assert_conserved(&pool);
}

// ---------------------------------------------------------------- the proration factor

#[test]
fn art_11_7_factor_prorates_with_rounding_down() {
    // 11.7.1: pool 5,200. Hearts (100%) = 5,200 and another suit (20%) = 1,040; TOTAL
    // A PAGAR 6,240 > MONTO TOTAL 5,200; FACTOR = 5,200 / 6,240 = 0.8333…
    // 5,200 × 0.8333… = 4,333.333… → 4,333.33; 1,040 × 0.8333… = 866.666… → 866.66.
    // Paid 5,199.99: never a centavo over the display; 0.01 stays in the pool.
    let mut pool = pool_with("iplyc-blackjack", money!(5200));
    let settlement =
        pool.settle_round(&[winner(1, "TRES_SIETES_CORAZONES"), winner(4, "TRES_SIETES_MISMO_PALO")]).expect("a valid round");
    let factor = settlement.factor.expect("prorated");
    assert_eq!(factor, money!(5200) / money!(6240));
    assert_eq!(settlement.awards[0].unlimited, money!(5200));
    assert_eq!(settlement.awards[1].unlimited, money!(1040));
    assert_eq!(paid(&settlement, 1, "TRES_SIETES_CORAZONES"), money!(4333.33));
    assert_eq!(paid(&settlement, 4, "TRES_SIETES_MISMO_PALO"), money!(866.66));
    assert_eq!(settlement.total_paid(), money!(5199.99));
    assert_eq!(settlement.replenishment, money!(4999.99));
    assert_eq!(settlement.balance_after, money!(5000));
    assert_conserved(&pool);
}

#[test]
fn art_15_9_factor_includes_fixed_prizes_of_the_same_round() {
    // 15.9.1: pool 10,000, royal flush (100% = 10,000) and four of a kind ($500) in
    // one round: FACTOR = 10,000 / 10,500; 9,523.809… → 9,523.80; 476.190… → 476.19.
    let mut pool = pool_with("iplyc-central-poker", money!(10000));
    let settlement = pool.settle_round(&[winner(1, "ESCALERA_REAL_MAYOR"), winner(2, "POKER")]).expect("a valid round");
    assert!(settlement.factor.is_some());
    assert_eq!(paid(&settlement, 1, "ESCALERA_REAL_MAYOR"), money!(9523.80));
    assert_eq!(paid(&settlement, 2, "POKER"), money!(476.19));
    assert!(settlement.total_paid() <= settlement.displayed);
    assert_conserved(&pool);
}

#[test]
fn art_11_7_no_factor_when_the_prizes_fit() {
    // 11.7.1 applies only when the sum exceeds the pool: 500 + 200 of 5,200 is paid whole.
    let mut pool = pool_with("iplyc-blackjack", money!(5200));
    let settlement = pool.settle_round(&[winner(1, "CUATRO_ASES"), winner(3, "TRES_SIETES")]).expect("a valid round");
    assert_eq!(settlement.factor, None);
    assert_eq!(settlement.total_paid(), money!(700));
    assert_eq!(pool.balance(), money!(4500));
}

#[test]
fn art_12_5_2_1_code_not_in_the_paytable_is_refused_and_changes_nothing() {
    // 12.5.2.1: prizes are entered as seat + winning combination of this pool's
    // paytable; anything else is refused, naming the field, and nothing is paid.
    let mut pool = pool_with("iplyc-blackjack", money!(5200));
    let error = pool.settle_round(&[winner(1, "CUATRO_ASES"), winner(2, "ESCALERA_REAL")]).expect_err("refused");
    assert_eq!(error.field(), "winners[1].code");
    assert!(error.to_string().contains("not in the paytable"), "{error}");
    let error = pool.settle_round(&[winner(0, "CUATRO_ASES")]).expect_err("refused");
    assert_eq!(error.field(), "winners[0].seat");
    let error = pool.settle_round(&[winner(1, "CUATRO_ASES"), winner(1, "CUATRO_ASES")]).expect_err("refused");
    assert_eq!(error.field(), "winners[1].code");
    assert_eq!(pool.balance(), money!(5200));
    assert_eq!(pool.meters().hits, 0);
}

// ---------------------------------------------------------------- AJ Bolivia

#[test]
fn aj_2_5_6_3_commission_main_and_reserve_split() {
    // 2.5.6.3: the commission comes off every bet; the rest feeds the main pool and
    // the reserve by the approved allocation (example rulebook: 10% / 70% / 20%).
    let mut pool = Pool::open(rules("aj-poker"));
    let contribution = pool.register_bet(money!(10)).expect("a valid bet");
    assert_eq!((contribution.commission, contribution.main, contribution.reserve), (money!(1.0), money!(7.0), money!(2.0)));
    let contribution = pool.register_bet(money!(2.50)).expect("a valid bet");
    assert_eq!((contribution.commission, contribution.main, contribution.reserve), (money!(0.25), money!(1.75), money!(0.5)));
    assert_eq!(pool.balance(), money!(20008.75));
    assert_eq!(pool.reserve(), money!(2.5));
    assert_eq!(pool.meters().commission, money!(1.25));
    assert_conserved(&pool);
}

#[test]
fn aj_2_5_6_3_reset_funded_from_the_reserve_first() {
    // 2.5.6.3: the reserve pools accumulate "para su uso futuro": after a royal flush
    // takes the main pool, the base value is restored from the reserve first (3,000),
    // and the house adds only the rest (17,000).
    let mut pool = Pool::with_balances(rules("aj-poker"), money!(25000), money!(3000));
    let settlement = pool.settle_round(&[winner(1, "ESCALERA_REAL")]).expect("a valid round");
    assert_eq!(paid(&settlement, 1, "ESCALERA_REAL"), money!(25000));
    assert_eq!(settlement.reserve_used, money!(3000));
    assert_eq!(settlement.replenishment, money!(17000));
    assert_eq!((pool.balance(), pool.reserve()), (money!(20000), Money::ZERO));
    assert_conserved(&pool);

    // A reserve larger than the need covers it all.
    let mut pool = Pool::with_balances(rules("aj-poker"), money!(25000), money!(50000));
    let settlement = pool.settle_round(&[winner(1, "ESCALERA_REAL")]).expect("a valid round");
    assert_eq!((settlement.reserve_used, settlement.replenishment), (money!(20000), Money::ZERO));
    assert_eq!(pool.reserve(), money!(30000));
    assert_conserved(&pool);
}

#[test]
fn aj_2_5_6_2_bet_multiples_before_percentages() {
    // 2.5.6.2 items 1 and 5: smallest first; the full house (100 × 10 = 1,000) is paid,
    // then the royal flush takes 100% of what remains: 30,000 − 1,000 = 29,000.
    let mut pool = pool_with("aj-poker", money!(30000));
    let settlement = pool.settle_round(&[winner(5, "ESCALERA_REAL"), winner_bet(2, "FULL", money!(10))]).expect("a valid round");
    assert_eq!(settlement.awards[0].code, "FULL", "smallest first");
    assert_eq!(paid(&settlement, 2, "FULL"), money!(1000));
    assert_eq!(paid(&settlement, 5, "ESCALERA_REAL"), money!(29000));
    assert_eq!(settlement.total_paid(), money!(30000));
    assert_conserved(&pool);
}

#[test]
fn aj_2_5_6_2_each_bet_multiple_on_its_own_bet() {
    // 2.5.6.2 item 2: two flushes are each paid on their own bet: 50 × 10 and 50 × 25.
    let mut pool = pool_with("aj-poker", money!(30000));
    let settlement =
        pool.settle_round(&[winner_bet(1, "COLOR", money!(10)), winner_bet(3, "COLOR", money!(25))]).expect("a valid round");
    assert_eq!(paid(&settlement, 1, "COLOR"), money!(500));
    assert_eq!(paid(&settlement, 3, "COLOR"), money!(1250));
}

#[test]
fn aj_2_5_6_2_ten_percent_then_hundred_of_the_remainder() {
    // 2.5.6.2 item 4: first the 10% (3,000 of 30,000), then 100% of the remainder
    // (27,000, "es decir, el 90% del pozo acumulado principal original").
    let mut pool = pool_with("aj-poker", money!(30000));
    let settlement =
        pool.settle_round(&[winner(1, "ESCALERA_REAL"), winner_bet(3, "ESCALERA_COLOR", money!(10))]).expect("a valid round");
    assert_eq!(settlement.awards[0].code, "ESCALERA_COLOR");
    assert_eq!(paid(&settlement, 3, "ESCALERA_COLOR"), money!(3000));
    assert_eq!(paid(&settlement, 1, "ESCALERA_REAL"), money!(27000));
    assert_conserved(&pool);
}

#[test]
fn aj_2_5_6_2_straight_flush_capped_at_5000_bets() {
    // 2.5.6.2: "10% del pozo acumulado principal, con un máximo de 5.000 veces el valor
    // de la apuesta": 10% of 100,000 is 10,000, but a bet of 1 caps it at 5,000.
    let mut pool = pool_with("aj-poker", money!(100000));
    let settlement = pool.settle_round(&[winner_bet(2, "ESCALERA_COLOR", money!(1))]).expect("a valid round");
    assert_eq!(settlement.awards[0].unlimited, money!(10000));
    assert_eq!(paid(&settlement, 2, "ESCALERA_COLOR"), money!(5000));
    assert_eq!(pool.balance(), money!(95000));
    assert_conserved(&pool);
}

#[test]
fn aj_2_5_6_2_equal_split_of_a_shared_percentage() {
    // 2.5.6.2 item 3: n winners of the same percentage prize share it equally:
    // two royal flushes on 30,000 get 15,000 each.
    let mut pool = pool_with("aj-poker", money!(30000));
    let settlement = pool.settle_round(&[winner(4, "ESCALERA_REAL"), winner(2, "ESCALERA_REAL")]).expect("a valid round");
    assert_eq!(paid(&settlement, 2, "ESCALERA_REAL"), money!(15000));
    assert_eq!(paid(&settlement, 4, "ESCALERA_REAL"), money!(15000));
}

#[test]
fn aj_2_5_6_2_indivisible_unit_to_position_1() {
    // 2.5.6.2 item 3: "el peso no divisible se le otorgará al jugador ubicado en la
    // posición más cercana a la mano derecha del croupier (posición N°1)": 30,001
    // between seats 4 and 2 → seat 2 (nearest position 1) gets 15,001.
    let mut pool = pool_with("aj-poker", money!(30001));
    let settlement = pool.settle_round(&[winner(4, "ESCALERA_REAL"), winner(2, "ESCALERA_REAL")]).expect("a valid round");
    assert_eq!(paid(&settlement, 2, "ESCALERA_REAL"), money!(15001));
    assert_eq!(paid(&settlement, 4, "ESCALERA_REAL"), money!(15000));
    assert_eq!(settlement.total_paid(), money!(30001));

    // "3 jugadores con un monto a repartir par": 10% of 30,020 = 3,002 among three
    // straight flushes: 1,000 each and the 2 indivisible pesos to position 1.
    let mut pool = pool_with("aj-poker", money!(30020));
    let winners: Vec<Winner> = [6, 1, 3].iter().map(|seat| winner_bet(*seat, "ESCALERA_COLOR", money!(10))).collect();
    let settlement = pool.settle_round(&winners).expect("a valid round");
    assert_eq!(paid(&settlement, 1, "ESCALERA_COLOR"), money!(1002));
    assert_eq!(paid(&settlement, 3, "ESCALERA_COLOR"), money!(1000));
    assert_eq!(paid(&settlement, 6, "ESCALERA_COLOR"), money!(1000));
    assert_conserved(&pool);
}

#[test]
fn aj_2_5_6_2_awards_rounded_down_to_the_peso() {
    // The AJ payout unit is the peso: 100% of 20,500.75 pays 20,500; the 0.75 stays.
    let mut pool = pool_with("aj-poker", money!(20500.75));
    let settlement = pool.settle_round(&[winner(1, "ESCALERA_REAL")]).expect("a valid round");
    assert_eq!(paid(&settlement, 1, "ESCALERA_REAL"), money!(20500));
    assert_eq!(pool.balance(), money!(20000), "0.75 stayed, the reset added 19,999.25");
    assert_conserved(&pool);
}

// ---------------------------------------------------------------- Andalucía

#[test]
fn and_poquer_6_2_carrusel_starts_at_5000_bets() {
    // Póquer sin descarte 6.2: the starting amount is never under 5,000 × the bet.
    let carrusel = rules("and-carrusel");
    assert!(carrusel.minimum >= dec!(5000) * carrusel.side_bet);
    let text = include_str!("../../../config/andalucia.toml").replace("minimum = \"5000.00\"", "minimum = \"4999.99\"");
    let error = Rulebooks::parse_all([("config/andalucia.toml", text.as_str())]).expect_err("under 5,000 bets");
    assert!(error.to_string().contains("pool `and-carrusel`: field `minimum`"), "{error}");
}

#[test]
fn and_poquer_6_4_successive_ten_percent_highest_first() {
    // 6.4: two straight flushes: the higher (K) takes 10% of 10,000 = 1,000; after
    // deducting it from the display, the other (9) takes 10% of 9,000 = 900.
    let mut pool = pool_with("and-carrusel", money!(10000));
    let settlement = pool
        .settle_round(&[winner_high(1, "ESCALERA_COLOR", money!(1), "9"), winner_high(3, "ESCALERA_COLOR", money!(1), "K")])
        .expect("a valid round");
    assert_eq!(settlement.awards[0].seat, 3, "the highest is paid first");
    assert_eq!(paid(&settlement, 3, "ESCALERA_COLOR"), money!(1000.00));
    assert_eq!(paid(&settlement, 1, "ESCALERA_COLOR"), money!(900.00));
    assert_eq!(pool.balance(), money!(8100));
    assert_conserved(&pool);
}

#[test]
fn and_poquer_6_4_equal_straight_flushes_share_the_ten_percent() {
    // 6.4: "Si las Escaleras de color fuesen de igual valor, se repartirá a partes
    // iguales entre cada jugador el 10%": two K-high ones share 1,000 → 500 each.
    let mut pool = pool_with("and-carrusel", money!(10000));
    let settlement = pool
        .settle_round(&[winner_high(1, "ESCALERA_COLOR", money!(1), "K"), winner_high(3, "ESCALERA_COLOR", money!(1), "K")])
        .expect("a valid round");
    assert_eq!(paid(&settlement, 1, "ESCALERA_COLOR"), money!(500.00));
    assert_eq!(paid(&settlement, 3, "ESCALERA_COLOR"), money!(500.00));
}

#[test]
fn and_poquer_6_4_several_straight_flushes_need_their_rank() {
    // 6.4 orders straight flushes by value, so each needs its highest card.
    let mut pool = pool_with("and-carrusel", money!(10000));
    let error = pool
        .settle_round(&[winner_bet(1, "ESCALERA_COLOR", money!(1)), winner_high(3, "ESCALERA_COLOR", money!(1), "K")])
        .expect_err("refused");
    assert_eq!(error.field(), "winners[0].high");
    assert_eq!(pool.balance(), money!(10000));
}

#[test]
fn and_poquer_6_4_royal_flushes_share_the_carrusel_equally() {
    // 6.4: "el importe del acumulado se distribuirá entre ellos a partes iguales":
    // 10,000.01 between two → 5,000.00 each; the centavo stays for the reset.
    let mut pool = pool_with("and-carrusel", money!(10000.01));
    let settlement =
        pool.settle_round(&[winner(2, "ESCALERA_REAL_COLOR"), winner(5, "ESCALERA_REAL_COLOR")]).expect("a valid round");
    assert_eq!(paid(&settlement, 2, "ESCALERA_REAL_COLOR"), money!(5000.00));
    assert_eq!(paid(&settlement, 5, "ESCALERA_REAL_COLOR"), money!(5000.00));
    assert!(settlement.full_pool_paid);
    assert_eq!(settlement.replenishment, money!(4999.99));
    assert_conserved(&pool);
}

#[test]
fn and_poquer_6_3_bet_multiples_deducted_before_the_ten_percent() {
    // 6.3: prizes are deducted from the display "en la medida que se vayan
    // produciendo"; as in AJ 2.5.6.2.5 the ×bet prizes come first: four of a kind
    // (300 × 1) leaves 9,700, and the straight flush takes 10% of it: 970.
    let mut pool = pool_with("and-carrusel", money!(10000));
    let settlement = pool
        .settle_round(&[winner_high(4, "ESCALERA_COLOR", money!(1), "Q"), winner_bet(2, "POKER", money!(1))])
        .expect("a valid round");
    assert_eq!(paid(&settlement, 2, "POKER"), money!(300.00));
    assert_eq!(paid(&settlement, 4, "ESCALERA_COLOR"), money!(970.00));
    assert_conserved(&pool);
}

#[test]
fn and_veintiuno_e_only_the_highest_combination_is_paid() {
    // Veintiuno e: "sólo se pagará la combinación o jugada mayor". A first 7 (2×) then
    // a second 7 of another suit (10×) pays only the 10×; another seat's 7 is paid.
    let mut pool = pool_with("and-bolsa", money!(4000));
    let settlement = pool
        .settle_round(&[
            winner_bet(1, "SIETE", money!(1)),
            winner_bet(1, "DOS_SIETES", money!(1)),
            winner_bet(2, "SIETE", money!(1)),
        ])
        .expect("a valid round");
    assert_eq!(settlement.awards.len(), 2);
    assert_eq!(paid(&settlement, 1, "DOS_SIETES"), money!(10.00));
    assert_eq!(paid(&settlement, 2, "SIETE"), money!(2.00));
    assert_eq!(settlement.superseded.len(), 1);
    assert_eq!((settlement.superseded[0].seat, settlement.superseded[0].code.as_str()), (1, "SIETE"));
    assert_eq!(pool.balance(), money!(3988));
}

#[test]
fn and_veintiuno_e_bolsa_never_under_3000_bets() {
    // Veintiuno e: three suited 7s take the whole bolsa, "que en ningún caso podrá ser
    // inferior a 3.000 veces el valor de la apuesta". Alone on 4,000.50 it pays
    // 4,000.50. Two such hands share the bolsa (our reading, docs/rules.md R6): half
    // of 3,500 is 1,750, under the floor, so each is raised to 3,000 by the house.
    let mut pool = pool_with("and-bolsa", money!(4000.50));
    let alone = pool.settle_round(&[winner_bet(3, "TRES_SIETES_MISMO_PALO", money!(1))]).expect("a valid round");
    assert_eq!(paid(&alone, 3, "TRES_SIETES_MISMO_PALO"), money!(4000.50));
    assert_eq!(alone.stages[0].floor_topup, Money::ZERO);

    let mut pool = pool_with("and-bolsa", money!(3500));
    let shared = pool
        .settle_round(&[winner_bet(1, "TRES_SIETES_MISMO_PALO", money!(1)), winner_bet(4, "TRES_SIETES_MISMO_PALO", money!(1))])
        .expect("a valid round");
    assert_eq!(paid(&shared, 1, "TRES_SIETES_MISMO_PALO"), money!(3000.00));
    assert_eq!(paid(&shared, 4, "TRES_SIETES_MISMO_PALO"), money!(3000.00));
    assert_eq!(shared.stages[0].floor_topup, money!(2500.00));
    assert_eq!(shared.replenishment, money!(2500) + money!(3000), "the floor top-up, then the reset");
    assert_conserved(&pool);
}

// ---------------------------------------------------------------- Venta-Pagos and snapshots

#[test]
fn venta_pagos_rejection_returns_the_award_to_its_pool() {
    // docs/readings.md, "What a Venta-Pagos rejection undoes": a prize the office
    // rejects goes back to the pool it came from, booked as such; the awards meter
    // itself never goes down (§10). A 20% prize forces no house money, so the
    // balance is exactly what it was.
    let mut pool = pool_with("iplyc-blackjack", money!(5200));
    let settlement = pool.settle_round(&[winner(1, "TRES_SIETES_MISMO_PALO")]).expect("a valid round");
    assert_eq!(paid(&settlement, 1, "TRES_SIETES_MISMO_PALO"), money!(1040.00));
    let mut book = settlement.book;
    pool.reject_award(&mut book, 1, "TRES_SIETES_MISMO_PALO", |_, _| true).expect("it was awarded");
    assert_eq!(pool.balance(), money!(5200));
    assert_eq!((pool.meters().awards, pool.meters().awards_returned), (money!(1040.00), money!(1040.00)));
    assert_conserved(&pool);
    let error = pool.reject_award(&mut book, 1, "CUATRO_ASES", |_, _| true).expect_err("not awarded");
    assert_eq!(error.field(), "award");
    assert_eq!(pool.balance(), money!(5200));
}

#[test]
fn a_pool_restored_from_its_state_is_the_same_pool() {
    // Snapshots keep balances and meters; a damaged one that does not balance is refused.
    let mut pool = Pool::open(rules("aj-poker"));
    pool.register_bet(money!(10)).expect("a valid bet");
    let restored = Pool::restore(rules("aj-poker"), pool.state()).expect("balances");
    assert_eq!(restored.state(), pool.state());
    let mut damaged = pool.state();
    damaged.balance += money!(0.01);
    assert_eq!(Pool::restore(rules("aj-poker"), damaged).expect_err("refused").field(), "snapshot");
}

// ---------------------------------------------------------------- all pools together

#[test]
fn award_fixed_at_marking_later_contributions_belong_to_the_next_jackpot() {
    // 3.5.1 / 11.6.1.1: the award is the display at the moment the prize is marked;
    // a bet registered right after it feeds the new pool, not the paid one.
    // Ten bets of the stipulated 10.00 (11.4.1) add 10 × 6.50 = 65 to the 5,000.
    let mut engine = Engine::new(&Rulebooks::embedded());
    for _ in 0..10 {
        engine.register_bet("iplyc-blackjack", money!(10.00)).expect("the stipulated bet");
    }
    let settlement = engine.settle_round("iplyc-blackjack", &[winner(1, "TRES_SIETES_CORAZONES")]).expect("a valid round");
    assert_eq!(settlement.awards[0].award, money!(5065.00));
    for _ in 0..10 {
        engine.register_bet("iplyc-blackjack", money!(10.00)).expect("the stipulated bet");
    }
    assert_eq!(engine.displayed("iplyc-blackjack").expect("known pool"), money!(5065));
    let totals = engine.totals();
    assert_eq!(totals.contributions + totals.replenishments, totals.balances + totals.awards);
    let error = engine.register_bet("iplyc-baccarat", money!(1)).expect_err("unknown pool");
    assert!(error.to_string().contains("unknown pool `iplyc-baccarat`"), "{error}");
}

#[test]
fn every_pool_has_the_policy_its_regulation_sets() {
    // 3.6 / 11.7 / 15.9 (IPLyC), 2.5.6.2 (AJ), Póquer sin descarte 6.4 and Veintiuno e (Andalucía).
    let rulebooks = Rulebooks::embedded();
    let policy = |id: &str| rulebooks.pool(id).expect("embedded").policy;
    assert_eq!(policy("iplyc-ruleta"), Policy::IplycGoldFirst);
    assert_eq!(policy("iplyc-blackjack"), Policy::IplycFactor);
    assert_eq!(policy("iplyc-central-poker"), Policy::IplycFactor);
    assert_eq!(policy("aj-poker"), Policy::AjOrdered);
    assert_eq!(policy("and-carrusel"), Policy::AndaluciaOrdered);
    assert_eq!(policy("and-bolsa"), Policy::AndaluciaOrdered);
    assert!(rulebooks.pool("and-bolsa").expect("embedded").highest_only);
}
