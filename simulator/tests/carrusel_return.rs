//! The carrusel's ×bet prizes return less than Tripóquer IX.2's 70% (docs/odds.md, "The
//! carrusel's return"; docs/readings.md, "How the carrusel's return is computed"): the
//! guarantee rests on the share of each bet fed to the pool, which the rulebook loader checks.

use pozo_engine::{PrizeValue, Rulebooks};
use pozo_sim::odds::{FIVE_CARD_HANDS, five_card_count};
use pozo_sim::poker::Category;
use rust_decimal::Decimal;

#[test]
fn and_tripoquer_ix_2_the_carrusel_bet_multiples_alone_return_under_70_percent() {
    // Póquer sin descarte 6.3 c–f: Póquer 300, Full 100, Color 50, Escalera 30 times the bet.
    // Each seat's five cards (its own five, or Tripóquer's three own and two community,
    // IX.3) are five cards of one deck: a hand of each category comes with the exact odds
    // count ÷ 2,598,960. The expected ×bet prizes per unit bet are Σ multiple × count ÷
    // 2,598,960 = (300 × 624 + 100 × 3,744 + 50 × 5,108 + 30 × 10,200) ÷ 2,598,960
    // = 1,123,000 ÷ 2,598,960 ≈ 0.4321.
    let rulebooks = Rulebooks::embedded();
    let carrusel = rulebooks.pool("and-carrusel").expect("embedded");
    let categories = [
        ("POKER", Category::FourOfAKind),
        ("FULL", Category::FullHouse),
        ("COLOR", Category::Flush),
        ("ESCALERA", Category::Straight),
    ];
    let mut expected = Decimal::ZERO;
    for (code, category) in categories {
        let prize = carrusel.prize(code).unwrap_or_else(|| panic!("{code} in the carrusel's paytable"));
        let PrizeValue::BetMultiple { multiple } = prize.value else { panic!("{code} pays a multiple of the bet") };
        expected += multiple * Decimal::from(five_card_count(category));
    }
    // Every ×bet line of the paytable is counted: no other one is left out.
    let bet_multiples = carrusel.prizes.iter().filter(|prize| matches!(prize.value, PrizeValue::BetMultiple { .. })).count();
    assert_eq!(bet_multiples, categories.len());
    assert_eq!(expected, Decimal::from(1_123_000), "the article's multiples times the exact counts");
    let per_unit_bet = expected / Decimal::from(FIVE_CARD_HANDS);
    assert_eq!(per_unit_bet.round_dp(4), Decimal::new(4321, 4));
    let guaranteed = Decimal::new(70, 2);
    assert!(per_unit_bet < guaranteed, "{per_unit_bet} is under IX.2's 70%");
    // The share fed to the pool is paid to players sooner or later: that is the guarantee.
    assert!(carrusel.contribution_rate + carrusel.reserve_rate >= guaranteed);
}
