//! The five-card evaluator over every one of the 2,598,960 hands of a deck, against
//! the known category counts; and the odds of each poker game's codes.

use pozo_sim::cards::{Card, deck};
use pozo_sim::odds::{FIVE_CARD_HANDS, POKER_GAMES, five_card_count, odds};
use pozo_sim::poker::{Category, evaluate};

#[test]
fn every_five_card_hand_falls_in_its_known_category() {
    let cards = deck();
    let mut counts = std::collections::BTreeMap::<Category, u64>::new();
    let mut total = 0u64;
    for a in 0..52 {
        for b in a + 1..52 {
            for c in b + 1..52 {
                for d in c + 1..52 {
                    for e in d + 1..52 {
                        let hand = [cards[a], cards[b], cards[c], cards[d], cards[e]];
                        *counts.entry(evaluate(&hand).category).or_default() += 1;
                        total += 1;
                    }
                }
            }
        }
    }
    assert_eq!(total, FIVE_CARD_HANDS);
    for category in Category::ALL {
        assert_eq!(counts.get(&category).copied().unwrap_or(0), five_card_count(category), "{category:?}");
    }
    // The known counts themselves add up to every hand.
    assert_eq!(Category::ALL.iter().map(|category| five_card_count(*category)).sum::<u64>(), FIVE_CARD_HANDS);
}

#[test]
fn hands_compare_as_poker_ranks_them() {
    let hand = |cards: [(u8, u8); 5]| evaluate(&cards.map(|(rank, suit)| Card::new(rank, suit)));
    let wheel = hand([(14, 0), (2, 1), (3, 2), (4, 3), (5, 0)]);
    let six_high = hand([(6, 0), (2, 1), (3, 2), (4, 3), (5, 0)]);
    assert_eq!(wheel.category, Category::Straight);
    assert_eq!(wheel.high(), 5, "A-2-3-4-5 is five-high");
    assert!(six_high > wheel);
    let royal = hand([(10, 2), (11, 2), (12, 2), (13, 2), (14, 2)]);
    assert_eq!(royal.category, Category::RoyalFlush);
    let kings_full = hand([(13, 0), (13, 1), (13, 2), (2, 0), (2, 1)]);
    let queens_full = hand([(12, 0), (12, 1), (12, 2), (14, 0), (14, 1)]);
    assert!(kings_full > queens_full, "the three of a kind decides a full house");
}

#[test]
fn a_million_hands_stay_within_4_standard_errors_for_every_code() {
    for game in POKER_GAMES {
        let report = odds(game, 1_000_000, 7).expect("a poker game");
        assert!(!report.codes.is_empty());
        for code in &report.codes {
            assert!(
                code.deviation_se.abs() <= 4.0,
                "{game} {}: {:.2} SE ({} observed, {:.1} expected)",
                code.code,
                code.deviation_se,
                code.observed,
                code.expected
            );
        }
    }
}

#[test]
fn a_million_grillo_series_stay_within_4_standard_errors() {
    let report = odds("ruleta-americana", 1_000_000, 7).expect("roulette");
    let codes: Vec<&str> = report.codes.iter().map(|code| code.code.as_str()).collect();
    assert_eq!(codes, ["GRILLO_BRONCE", "GRILLO_PLATA", "GRILLO_ORO"]);
    for code in &report.codes {
        assert!(
            code.deviation_se.abs() <= 4.0,
            "{}: {:.2} SE ({} observed, {:.1} expected)",
            code.code,
            code.deviation_se,
            code.observed,
            code.expected
        );
    }
}

#[test]
fn the_same_seed_gives_the_same_counts() {
    let first = odds("central-poker", 20_000, 3).expect("a poker game");
    let second = odds("central-poker", 20_000, 3).expect("a poker game");
    let counts = |report: &pozo_sim::odds::OddsReport| report.codes.iter().map(|code| code.observed).collect::<Vec<_>>();
    assert_eq!(counts(&first), counts(&second));
    assert!(odds("baccarat", 10, 1).is_err(), "unknown game");
}
