//! The audit corrections: each test is built from an article's own numbers and
//! failed on the engine before it was corrected (docs/readings.md names each
//! reading and the test that pins it).

use std::sync::Arc;

use pozo_engine::money;
use pozo_engine::{MinimumKind, Money, Pool, PoolRules, Rulebooks, Winner};

fn rules(id: &str) -> Arc<PoolRules> {
    Arc::new(Rulebooks::embedded().pool(id).expect("an embedded pool").clone())
}

fn winner(seat: u32, code: &str, bet: Money) -> Winner {
    Winner { seat, code: code.into(), bet: Some(bet), high: None, at: None }
}

fn assert_conserved(pool: &Pool) {
    assert_eq!(pool.conservation_difference(), Money::ZERO, "{:?}", pool.meters());
}

// ---------------------------------------------------------------- ×bet prizes in full

#[test]
fn aj_2_5_6_2_item_2_five_pokers_are_each_paid_in_full() {
    // 2.5.6.2 item 2: "Si más de un jugador obtiene la combinación de cartas que
    // constituye las jugadas Color, Full o Poker, que pagan un número de veces la
    // apuesta adicional, se pagará el monto correspondiente según la jugada del
    // jugador ganador." Five Pókers at a 10.00 bet are 500 × 10 = 5,000 each, 25,000
    // on a 20,000 pool: each is paid 5,000 (not 4,000). The 5,000 the pool lacks
    // comes from the reserve first (2.5.6.3: "para su uso futuro"), then the house.
    let mut pool = Pool::with_balances(rules("aj-poker"), money!(20000), money!(2000));
    let winners: Vec<Winner> = (1..=5).map(|seat| winner(seat, "POKER", money!(10.00))).collect();
    let settlement = pool.settle_round(&winners).expect("a valid round");
    assert!(settlement.awards.iter().all(|award| award.award == money!(5000)), "{:?}", settlement.awards);
    assert_eq!(settlement.factor, None, "a ×bet prize is never prorated");
    assert_eq!((settlement.reserve_used, settlement.replenishment), (money!(2000), money!(3000)));
    assert_eq!((pool.balance(), pool.reserve()), (Money::ZERO, Money::ZERO));
    // 20,000 + 2,000 from the reserve + 3,000 from the house − 25,000 paid: the sign shows
    // 0. The base value is where the pool starts and restarts after a 100% prize, not a
    // floor (2.5.6.3 "valor inicial o base"; docs/readings.md, "The AJ base value after
    // ×bet prizes").
    assert_eq!(pool.displayed(), Money::ZERO, "the sign shows the balance");
    assert_conserved(&pool);
}

#[test]
fn aj_2_5_6_2_item_5_percentages_share_only_what_the_bet_multiples_left() {
    // Item 5: "se pagarán primero los premios que multiplican … y luego los premios de
    // porcentajes sobre la cantidad restante". Four Pókers of 5,000 leave nothing of
    // 20,000: the straight flush's 10% of the remainder is 0 (docs/readings.md,
    // "×bet prizes over the pool").
    let mut pool = Pool::with_balances(rules("aj-poker"), money!(20000), Money::ZERO);
    let mut winners: Vec<Winner> = (1..=4).map(|seat| winner(seat, "POKER", money!(10.00))).collect();
    winners.push(winner(6, "ESCALERA_COLOR", money!(10.00)));
    let settlement = pool.settle_round(&winners).expect("a valid round");
    let paid = |seat: u32| settlement.awards.iter().find(|award| award.seat == seat).expect("paid").award;
    assert_eq!((paid(1), paid(4), paid(6)), (money!(5000), money!(5000), money!(0)));
    assert_conserved(&pool);
}

#[test]
fn and_poquer_6_3_bet_multiples_are_paid_in_full_from_the_visor() {
    // Póquer sin descarte 6.3: the prizes "serán descontados de la suma acumulada en el
    // visor en la medida que se vayan produciendo" and are fixed multiples of the bet.
    // The visor has gone down to 500 with earlier payments; three Pókers at the
    // stipulated 1.00 are 300 × 1 = 300 each, 900 on 500: each is paid in full; there is
    // no reserve, so the house puts in the 400.
    let mut pool = Pool::with_balances(rules("and-carrusel"), money!(500), Money::ZERO);
    let winners: Vec<Winner> = (1..=3).map(|seat| winner(seat, "POKER", money!(1.00))).collect();
    let settlement = pool.settle_round(&winners).expect("a valid round");
    assert_eq!(settlement.displayed, money!(500), "the visor shows what it holds (6.3)");
    assert!(settlement.awards.iter().all(|award| award.award == money!(300.00)), "{:?}", settlement.awards);
    assert_eq!(settlement.replenishment, money!(900) - money!(500));
    assert_conserved(&pool);
}

// ---------------------------------------------------------------- the bolsa's one bet

#[test]
fn and_veintiuno_e_the_bolsa_takes_only_the_stipulated_bet() {
    // Veintiuno e: "Para jugar a Bolsa se deberá apostar una cantidad única
    // estipulada". Any other amount is refused, naming the field, and changes nothing.
    let mut pool = Pool::open(rules("and-bolsa"));
    let state = pool.state();
    let error = pool.register_bet(money!(2.00)).expect_err("not the stipulated bet");
    assert_eq!(error.field(), "bet");
    assert!(error.to_string().contains("only 1.00 is played"), "{error}");
    let error = pool.settle_round(&[winner(1, "TRES_SIETES", money!(5.00))]).expect_err("not the stipulated bet");
    assert_eq!(error.field(), "winners[0].bet");
    assert_eq!(pool.state(), state);
    pool.register_bet(money!(1.00)).expect("the stipulated bet");
}

#[test]
fn and_veintiuno_e_two_suited_sevens_share_the_bolsa_each_never_under_3000_bets() {
    // Veintiuno e: three 7s of one suit take "el valor total de la Bolsa que en ningún
    // caso podrá ser inferior a 3.000 veces el valor de la apuesta". Two in one round:
    // they share the bolsa equally (as 6.4 shares royal flushes) and each share is
    // raised to 3,000 × the bet by the house (docs/readings.md, "Two three-suited-sevens").
    let mut pool = Pool::with_balances(rules("and-bolsa"), money!(8000.00), Money::ZERO);
    let settlement = pool
        .settle_round(&[winner(2, "TRES_SIETES_MISMO_PALO", money!(1)), winner(5, "TRES_SIETES_MISMO_PALO", money!(1))])
        .expect("a valid round");
    assert!(settlement.awards.iter().all(|award| award.award == money!(4000.00)));
    let mut pool = Pool::with_balances(rules("and-bolsa"), money!(3000.00), Money::ZERO);
    let settlement = pool
        .settle_round(&[winner(2, "TRES_SIETES_MISMO_PALO", money!(1)), winner(5, "TRES_SIETES_MISMO_PALO", money!(1))])
        .expect("a valid round");
    assert!(settlement.awards.iter().all(|award| award.award == money!(3000.00)));
    assert_eq!(settlement.stages[0].floor_topup, money!(3000.00));
    assert_conserved(&pool);
}

// ---------------------------------------------------------------- one hand, one prize

#[test]
fn art_11_3_four_aces_and_a_blackjack_in_one_hand_are_refused() {
    // 11.3 lists six combinations, each a different hand: four aces on a split (9.3.2),
    // a two-card Black Jack of ace and king, three-card 21s. One box cannot make two of
    // them in one round: the second is refused, naming it, and nothing changes.
    let mut pool = Pool::with_balances(rules("iplyc-blackjack"), money!(6000), Money::ZERO);
    let state = pool.state();
    let error = pool
        .settle_round(&[winner(3, "CUATRO_ASES", money!(10)), winner(3, "BJ_AS_REY_MISMO_PALO", money!(10))])
        .expect_err("one hand, one combination");
    assert_eq!(error.field(), "winners[1].code");
    assert!(error.to_string().contains("seat 3 already has `CUATRO_ASES`"), "{error}");
    assert_eq!(pool.state(), state);
    // Two boxes may each make one.
    pool.settle_round(&[winner(3, "CUATRO_ASES", money!(10)), winner(4, "BJ_AS_REY_MISMO_PALO", money!(10))]).expect("two hands");
}

#[test]
fn art_15_7_1_a_hand_is_one_category_and_the_instant_prize_is_apart_15_11() {
    // 15.7.1: five cards make one category; 15.11.3: the instant card is "recibido en
    // las cinco cartas iniciales", whatever the hand. A Póker and a Full on one seat are
    // refused; a Póker and the premio instantáneo are not.
    let mut pool = Pool::open(rules("iplyc-central-poker"));
    let error = pool.settle_round(&[winner(1, "POKER", money!(10)), winner(1, "FULL", money!(10))]).expect_err("one category");
    assert_eq!(error.field(), "winners[1].code");
    pool.settle_round(&[winner(1, "POKER", money!(10)), winner(1, "PREMIO_INSTANTANEO", money!(10))]).expect("both");
}

// ---------------------------------------------------------------- what the minimum means

fn assert_pays(settlement: &pozo_engine::Settlement, seat: u32, code: &str, amount: Money) {
    let award = settlement
        .awards
        .iter()
        .find(|award| award.seat == seat && award.code == code)
        .unwrap_or_else(|| panic!("seat {seat} {code} was paid: {settlement:#?}"));
    assert_eq!(award.award, amount, "seat {seat} {code}");
}

fn no_bet(seat: u32, code: &str) -> Winner {
    Winner { seat, code: code.into(), bet: None, high: None, at: None }
}

#[test]
fn and_poquer_6_3_the_visor_goes_down_with_every_payment() {
    // 6.3: the prizes "serán descontados de la suma acumulada en el visor en la medida que
    // se vayan produciendo"; 6.2 floors only the starting amount: "no podrá ser inferior al
    // resultado de multiplicar por 5.000 la apuesta". The carrusel starts at 5,000 (the
    // stipulated bet of 1 × 5,000). A Póquer, "300 veces la apuesta" (6.3 c), is 300: the
    // visor shows 5,000 − 300 = 4,700, not 5,000.
    let carrusel = rules("and-carrusel");
    assert_eq!((carrusel.minimum, carrusel.side_bet), (money!(5000), money!(1.00)));
    let mut pool = Pool::open(Arc::clone(&carrusel));
    let poker = pool.settle_round(&[winner(2, "POKER", money!(1.00))]).expect("a valid round");
    assert_pays(&poker, 2, "POKER", money!(300) * money!(1.00).decimal());
    assert_eq!(pool.displayed(), money!(5000) - money!(300));
    assert_eq!(poker.displayed_after, money!(4700));

    // The royal flush takes "el importe del acumulado" (6.3 a): the 4,700 the visor shows;
    // the carrusel then restarts at its 5,000 (6.2), put in by the house.
    let royal = pool.settle_round(&[no_bet(4, "ESCALERA_REAL_COLOR")]).expect("a valid round");
    assert_eq!(royal.displayed, money!(4700));
    assert_pays(&royal, 4, "ESCALERA_REAL_COLOR", money!(4700));
    assert!(royal.full_pool_paid);
    assert_eq!((pool.balance(), pool.displayed()), (money!(5000), money!(5000)));
    assert_eq!(royal.replenishment, money!(5000));
    assert_conserved(&pool);
}

#[test]
fn and_poquer_6_3_a_straight_flush_after_a_poquer_is_ten_percent_of_what_the_visor_shows() {
    // 6.3 b: the straight flush is "el 10% de la cantidad acumulada"; after a Póquer (300)
    // the visor shows 4,700: 10% of it is 470, not 10% of the 5,000 start (500).
    let mut pool = Pool::open(rules("and-carrusel"));
    pool.settle_round(&[winner(2, "POKER", money!(1.00))]).expect("a valid round");
    let flush = pool
        .settle_round(&[Winner { high: Some("K".parse().expect("a rank")), ..winner(5, "ESCALERA_COLOR", money!(1.00)) }])
        .expect("a valid round");
    assert_eq!(flush.displayed, money!(4700));
    assert_pays(&flush, 5, "ESCALERA_COLOR", money!(4700) * rust_decimal::Decimal::new(10, 2));
    assert_eq!(pool.displayed(), money!(4700) - money!(470));
    assert_conserved(&pool);
}

#[test]
fn and_poquer_6_3_a_poquer_and_a_royal_flush_pay_the_same_in_one_round_or_two() {
    // 6.3 with 6.4 (×bet first, docs/readings.md "Andalucía: ×bet before percentages"):
    // in one round the Póquer takes 300 and the royal flush what remains of 5,000, 4,700:
    // exactly what two rounds pay, and the carrusel restarts at 5,000 either way.
    let mut one = Pool::open(rules("and-carrusel"));
    let round = one.settle_round(&[no_bet(4, "ESCALERA_REAL_COLOR"), winner(2, "POKER", money!(1.00))]).expect("a valid round");
    assert_pays(&round, 2, "POKER", money!(300));
    assert_pays(&round, 4, "ESCALERA_REAL_COLOR", money!(5000) - money!(300));

    let mut two = Pool::open(rules("and-carrusel"));
    let first = two.settle_round(&[winner(2, "POKER", money!(1.00))]).expect("a valid round");
    let second = two.settle_round(&[no_bet(4, "ESCALERA_REAL_COLOR")]).expect("a valid round");
    assert_eq!(round.total_paid(), first.total_paid() + second.total_paid());
    assert_eq!(one.state(), two.state(), "the same money moved, the same hits and reset");
    assert_eq!(one.displayed(), money!(5000));
    assert_conserved(&one);
}

#[test]
fn aj_2_5_6_3_the_base_value_is_not_a_floor_after_bet_multiples() {
    // 2.5.6.3: the main pool's "valor inicial o base"; 2.5.6.2 item 5: the ×bet prizes
    // first, "y luego los premios de porcentajes sobre la cantidad restante". At the
    // 20,000 base a Full at a bet of 10 is 100 × 10 = 1,000; in the next round a straight
    // flush is "10% del pozo acumulado principal": 10% of 19,000 = 1,900 (under its cap of
    // 5,000 × 10). In one round item 5 pays the same: 1,000, then 10% of what remains.
    let mut pool = Pool::open(rules("aj-poker"));
    assert_eq!(pool.displayed(), money!(20000));
    pool.settle_round(&[winner(2, "FULL", money!(10))]).expect("a valid round");
    assert_eq!(pool.displayed(), money!(20000) - money!(1000), "the base is not shown again");
    let flush = pool.settle_round(&[winner(3, "ESCALERA_COLOR", money!(10))]).expect("a valid round");
    assert_pays(&flush, 3, "ESCALERA_COLOR", money!(1900));
    assert!(money!(1900) < money!(5000) * money!(10).decimal(), "the cap does not bind");

    let mut one = Pool::open(rules("aj-poker"));
    let round =
        one.settle_round(&[winner(3, "ESCALERA_COLOR", money!(10)), winner(2, "FULL", money!(10))]).expect("a valid round");
    assert_pays(&round, 2, "FULL", money!(1000));
    assert_pays(&round, 3, "ESCALERA_COLOR", money!(1900));
    assert_eq!((one.balance(), one.reserve()), (pool.balance(), pool.reserve()));
    assert_conserved(&pool);
}

#[test]
fn the_minimum_kinds_of_the_embedded_rulebooks() {
    // IPLyC 3.2.2, 11.2.2, 15.2.3: "se completará esta cifra para el pago del primer
    // premio": a floor. Póquer sin descarte 6.2–6.3 (the carrusel and, as it, the bolsa)
    // and AJ 2.5.6.3 ("valor inicial o base"): the starting amount only.
    let rulebooks = Rulebooks::embedded();
    for (id, kind) in [
        ("iplyc-ruleta", MinimumKind::Floor),
        ("iplyc-blackjack", MinimumKind::Floor),
        ("iplyc-central-poker", MinimumKind::Floor),
        ("and-carrusel", MinimumKind::Start),
        ("and-bolsa", MinimumKind::Start),
        ("aj-poker", MinimumKind::Start),
    ] {
        let rules = rulebooks.pool(id).expect("embedded");
        assert_eq!(rules.minimum_kind, kind, "{id}");
        let under = rules.minimum - money!(1);
        let shown = if kind == MinimumKind::Floor { rules.minimum } else { under };
        assert_eq!(rules.displayed_for(under), shown, "{id}");
        let over = rules.minimum + money!(1);
        assert_eq!(rules.displayed_for(over), over, "{id}");
    }
}

// ---------------------------------------------------------------- fixed side bets

#[test]
fn art_3_3_1_11_4_1_15_1_2_the_iplyc_side_bets_are_fixed() {
    // 3.3.1 and 11.4.1: "Su monto será fijo y determinado de antemano"; 15.1.2: "una
    // ficha, de un monto fijo". Each IPLyC pool takes its side_bet and no other amount:
    // another is refused naming `bet` and the article, and nothing changes.
    for (id, article) in [("iplyc-ruleta", "3.3.1"), ("iplyc-blackjack", "11.4.1"), ("iplyc-central-poker", "15.1.2")] {
        let mut pool = Pool::open(rules(id));
        assert!(pool.rules().fixed_bet(), "{id}");
        let stipulated = pool.rules().side_bet;
        let state = pool.state();
        for other in [stipulated + money!(0.01), stipulated - money!(0.01), stipulated * rust_decimal::Decimal::TWO] {
            let error = pool.register_bet(other).expect_err("not the stipulated bet");
            assert_eq!(error.field(), "bet", "{id}");
            assert!(error.to_string().contains(&format!("only {stipulated} is played ({article})")), "{id}: {error}");
            assert_eq!(pool.state(), state, "{id}: nothing changed");
        }
        pool.register_bet(stipulated).expect("the stipulated bet");
    }
}

#[test]
fn and_poquer_6_2_the_carrusel_takes_one_stipulated_bet() {
    // 6.2: "la apuesta que el jugador o jugadora deba realizar para optar al premio": one
    // stipulated bet (docs/readings.md, "Which bet the carrusel takes").
    let mut pool = Pool::open(rules("and-carrusel"));
    let state = pool.state();
    let error = pool.register_bet(money!(2.00)).expect_err("not the stipulated bet");
    assert_eq!(error.field(), "bet");
    assert!(error.to_string().contains("only 1.00 is played (Póquer sin descarte 6.2)"), "{error}");
    assert_eq!(pool.state(), state);
}

// ---------------------------------------------------------------- Central Póker's instant prize

#[test]
fn art_16_4_2_5_1_settle_as_marked_pays_the_instant_prize_alone_first_15_9() {
    // 16.4.2.5.1: "Identificado el naipe correspondiente al PREMIO INSTANTÁNEO, procederá a
    // su pago en forma inmediata": its $30 (15.7.1.6) is paid whole, alone. The round's
    // prizes are then prorated (15.9) on what the sign shows after it: on 12,000, the
    // instant prize leaves 11,970; a royal flush (100% = 11,970) and a Póker ($500) make
    // TOTAL A PAGAR 12,470 > 11,970: each is 11,970 × its amount ÷ 12,470, rounded down.
    let mut pool = Pool::with_balances(rules("iplyc-central-poker"), money!(12000), Money::ZERO);
    let winners = [no_bet(1, "ESCALERA_REAL_MAYOR"), no_bet(2, "PREMIO_INSTANTANEO"), no_bet(3, "POKER")];
    let settlements = pool.settle_as_marked(&winners).expect("a valid round");
    assert_eq!(settlements.len(), 2);
    assert_eq!(settlements[0].awards.len(), 1);
    assert_pays(&settlements[0], 2, pozo_engine::INSTANT_PRIZE, money!(30.00));
    assert_eq!(settlements[0].factor, None);
    let shown = money!(12000) - money!(30);
    assert_eq!(settlements[1].displayed, shown);
    let total = shown + money!(500);
    let prorated = |amount: Money| pozo_engine::money::floor_to_unit(shown * amount.decimal() / total.decimal(), money!(0.01));
    assert_pays(&settlements[1], 1, "ESCALERA_REAL_MAYOR", prorated(shown));
    assert_pays(&settlements[1], 3, "POKER", prorated(money!(500)));
    assert_conserved(&pool);

    // In a pool whose games play no instant prize, every winner is one round.
    let mut aj = Pool::open(rules("aj-poker"));
    assert_eq!(aj.settle_as_marked(&[winner(1, "FULL", money!(10)), winner(2, "COLOR", money!(10))]).expect("valid").len(), 1);
}

#[test]
fn art_16_4_2_5_1_settle_as_marked_refused_changes_nothing() {
    // Every winner is checked before anything is paid, the instant prize included: a
    // refused round (12.5.2.1: a code not in the paytable) names its field as in the
    // round, and the pool is as it was.
    let mut pool = Pool::with_balances(rules("iplyc-central-poker"), money!(12000), Money::ZERO);
    let state = pool.state();
    let error = pool.settle_as_marked(&[no_bet(2, "PREMIO_INSTANTANEO"), no_bet(1, "ESCALERA_REAL")]).expect_err("refused");
    assert_eq!(error.field(), "winners[1].code");
    assert_eq!(pool.state(), state);
}

// ---------------------------------------------------------------- readings with tests

#[test]
fn art_11_2_2_15_2_3_the_second_prize_is_on_the_minimum_only_under_it() {
    // 11.2.2: "Cuando como consecuencia de pagar premios el Pozo Acumulado quede por debajo
    // del umbral de los $ 5.000, se completará esta cifra para el pago del primer premio. En
    // caso de pagarse el segundo premio (20%) se realizará sobre el monto inicial de $
    // 5.000." The sentence belongs to the pool under the minimum: over it, 20% of the
    // sign. 15.2.3 says the same of Central Póker's 10% and $10.000.
    let cases = [
        ("iplyc-blackjack", "TRES_SIETES_MISMO_PALO", 20, money!(8000), money!(8000)),
        ("iplyc-blackjack", "TRES_SIETES_MISMO_PALO", 20, money!(4000), money!(5000)),
        ("iplyc-central-poker", "ESCALERA_COLOR", 10, money!(12000), money!(12000)),
        ("iplyc-central-poker", "ESCALERA_COLOR", 10, money!(9000), money!(10000)),
    ];
    for (id, code, percent, balance, on) in cases {
        let mut pool = Pool::with_balances(rules(id), balance, Money::ZERO);
        let settlement = pool.settle_round(&[no_bet(1, code)]).expect("a valid round");
        let expected = on * rust_decimal::Decimal::from(percent) / rust_decimal::Decimal::ONE_HUNDRED;
        assert_pays(&settlement, 1, code, expected);
        assert_conserved(&pool);
    }
    // The article's figures: 1,600; 1,000; 1,200; 1,000.
    let figures = [money!(1600), money!(1000), money!(1200), money!(1000)];
    for ((id, code, _, balance, _), figure) in cases.into_iter().zip(figures) {
        let settlement = Pool::with_balances(rules(id), balance, Money::ZERO).preview_round(&[no_bet(1, code)]).expect("valid");
        assert_pays(&settlement, 1, code, figure);
    }
}

#[test]
fn aj_2_5_6_2_the_straight_flush_cap_applies_to_each_winners_share() {
    // 2.5.6.2: "10% del pozo acumulado principal, con un máximo de 5.000 veces el valor de
    // la apuesta"; item 3: winners of the same prize share it equally. Two straight flushes
    // on 200,000 share 20,000: 10,000 each; seat 1 bet 1, so its share is capped at 5,000
    // × 1 = 5,000; seat 4 bet 10, cap 50,000: it keeps its 10,000. The cap is on each
    // winner's own bet, after the split; what the cap holds back stays in the pool.
    let mut pool = Pool::with_balances(rules("aj-poker"), money!(200000), Money::ZERO);
    let settlement = pool
        .settle_round(&[winner(1, "ESCALERA_COLOR", money!(1)), winner(4, "ESCALERA_COLOR", money!(10))])
        .expect("a valid round");
    assert_pays(&settlement, 1, "ESCALERA_COLOR", money!(5000) * money!(1).decimal());
    assert_pays(&settlement, 4, "ESCALERA_COLOR", money!(20000) / rust_decimal::Decimal::TWO);
    assert_eq!(pool.balance(), money!(200000) - money!(5000) - money!(10000));
    assert_conserved(&pool);
}

#[test]
fn aj_2_5_6_2_item_3_several_indivisible_pesos_all_go_to_position_1() {
    // Item 3: "el peso no divisible se le otorgará al jugador ubicado en la posición más
    // cercana a la mano derecha del croupier (posición N°1)". Three straight flushes share
    // 10% of 980 = 98: 32 each and 2 indivisible pesos, both to the lowest seat (the
    // article names one position and one player): 34, 32, 32.
    let mut pool = Pool::with_balances(rules("aj-poker"), money!(980), Money::ZERO);
    let winners: Vec<Winner> = [5, 2, 7].iter().map(|seat| winner(*seat, "ESCALERA_COLOR", money!(10))).collect();
    let settlement = pool.settle_round(&winners).expect("a valid round");
    assert_pays(&settlement, 2, "ESCALERA_COLOR", money!(32) + money!(2));
    assert_pays(&settlement, 5, "ESCALERA_COLOR", money!(32));
    assert_pays(&settlement, 7, "ESCALERA_COLOR", money!(32));
    assert_eq!(settlement.total_paid(), money!(98));
    assert_conserved(&pool);
}

#[test]
fn and_veintiuno_e_the_bolsa_pays_2_a_1_and_keeps_the_stake() {
    // Veintiuno e: "se pagará 2 a 1 el valor de la apuesta de Bolsa" for a first seven:
    // the prize is 2 × the bet, paid from the bolsa. The stake, dropped in the slot and
    // shared between the bolsa and the house, is not returned (as AJ 2.5.6.2 says of the
    // same kind of side bet: "el jugador ganador sólo se queda con el monto del premio
    // pagado, excluyendo el valor de su apuesta"). The bolsa falls by exactly 2.00.
    let mut pool = Pool::open(rules("and-bolsa"));
    pool.register_bet(money!(1.00)).expect("the stipulated bet");
    let before = pool.balance();
    let settlement = pool.settle_round(&[winner(3, "SIETE", money!(1.00))]).expect("a valid round");
    assert_pays(&settlement, 3, "SIETE", money!(1.00) * rust_decimal::Decimal::TWO);
    assert_eq!(pool.balance(), before - money!(2.00));
    assert_eq!(settlement.replenishment, Money::ZERO);
    assert_conserved(&pool);
}
