//! The audit corrections: each test is built from an article's own numbers and
//! failed on the engine before it was corrected (docs/readings.md names each
//! reading and the test that pins it).

use std::sync::Arc;

use pozo_engine::money;
use pozo_engine::{Money, Pool, PoolRules, Rulebooks, Winner};

fn rules(id: &str) -> Arc<PoolRules> {
    Arc::new(Rulebooks::embedded().pool(id).expect("an embedded pool").clone())
}

fn winner(seat: u32, code: &str, bet: Money) -> Winner {
    Winner { seat, code: code.into(), bet: Some(bet), high: None }
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
    assert_eq!(pool.displayed(), money!(20000), "the base value is shown again (2.5.6.3)");
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
    // Three Pókers at 10.00 are 300 × 10 = 3,000 each, 9,000 on a 5,000 carrusel: each
    // is paid in full; there is no reserve, so the house puts in the 4,000.
    let mut pool = Pool::with_balances(rules("and-carrusel"), money!(5000), Money::ZERO);
    let winners: Vec<Winner> = (1..=3).map(|seat| winner(seat, "POKER", money!(10.00))).collect();
    let settlement = pool.settle_round(&winners).expect("a valid round");
    assert!(settlement.awards.iter().all(|award| award.award == money!(3000.00)), "{:?}", settlement.awards);
    assert_eq!(settlement.replenishment, money!(4000));
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
