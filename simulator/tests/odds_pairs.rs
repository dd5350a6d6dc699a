//! The exact joint probabilities behind the standard errors of `pozo-sim odds` for poker: how many
//! ways two seats of one round, dealt from one deck, both make a category (docs/odds.md, "Seats of
//! one round"). Each count is recomputed here by walking every hand, and must equal the constant
//! `odds::seat_pair_count` uses.

use std::collections::HashMap;

use pozo_sim::cards::{Card, deck};
use pozo_sim::odds::{SEAT_PAIRS_OWN_FIVE, SEAT_PAIRS_THREE_PLUS_TWO, seat_pair_count, seat_pairs};
use pozo_sim::poker::{Category, evaluate};

/// The categories some pool pays: royal flush down to straight, the first six of
/// `Category::ALL`.
const PAID: [Category; 6] = *Category::ALL.first_chunk::<6>().expect("ten categories");

fn mask(cards: &[usize]) -> u64 {
    cards.iter().fold(0, |mask, card| mask | 1 << card)
}

/// Σ over the hands A of `hits` of how many hands B of `hits` share no card with A:
/// Σ_A Σ_{S ⊆ A} (−1)^|S| · #{B ∈ hits : S ⊆ B} (inclusion–exclusion on A's cards).
fn disjoint_pairs(hits: &[u64]) -> u64 {
    let submasks = |hand: u64| {
        let cards: Vec<u64> = (0..52).filter(|card| hand >> card & 1 == 1).map(|card| 1u64 << card).collect();
        (0..1u32 << cards.len()).map(move |pick| {
            let subset = (0..cards.len()).filter(|bit| pick >> bit & 1 == 1).fold(0, |mask, bit| mask | cards[bit]);
            (subset, pick.count_ones())
        })
    };
    let mut containing = HashMap::<u64, i64>::new();
    for &hand in hits {
        for (subset, _) in submasks(hand) {
            *containing.entry(subset).or_default() += 1;
        }
    }
    let total: i64 = hits
        .iter()
        .map(|&hand| {
            submasks(hand)
                .map(|(subset, size)| if size % 2 == 0 { containing[&subset] } else { -containing[&subset] })
                .sum::<i64>()
        })
        .sum();
    u64::try_from(total).expect("a count")
}

/// Two seats with five own cards each: ordered pairs (A, B) of disjoint five-card hands, both in the
/// category, out of C(52,5) · C(47,5).
fn own_five_pairs() -> HashMap<Category, u64> {
    let cards = deck();
    let mut hits = HashMap::<Category, Vec<u64>>::new();
    for a in 0..52 {
        for b in a + 1..52 {
            for c in b + 1..52 {
                for d in c + 1..52 {
                    for e in d + 1..52 {
                        let category = evaluate(&[cards[a], cards[b], cards[c], cards[d], cards[e]]).category;
                        if PAID.contains(&category) {
                            hits.entry(category).or_default().push(mask(&[a, b, c, d, e]));
                        }
                    }
                }
            }
        }
    }
    PAID.iter().map(|category| (*category, disjoint_pairs(&hits[category]))).collect()
}

/// Two seats with three own cards each and the same two community cards: (community, A, B) with A
/// and B disjoint triples of the other 50 cards, both seats' five in the category, out of
/// C(52,2) · C(50,3) · C(47,3). The community pairs are walked up to the suits' symmetry: a pair of
/// one rank stands for its C(4,2) = 6 suit choices, two ranks of one suit for 4, of two suits for 12.
/// Also returns the single-seat counts (community, A), which must be C(5,2) = 10 times the
/// five-card counts: each five-card hand splits into 2 community + 3 own cards in 10 ways.
fn three_plus_two_pairs() -> (HashMap<Category, u64>, HashMap<Category, u64>) {
    let cards = deck();
    let index = |card: Card| cards.iter().position(|other| *other == card).expect("a card of the deck");
    let mut classes = Vec::new();
    for low in 2..=14u8 {
        for high in low..=14u8 {
            if low == high {
                classes.push(([Card::new(low, 0), Card::new(high, 1)], 6));
            } else {
                classes.push(([Card::new(low, 0), Card::new(high, 0)], 4));
                classes.push(([Card::new(low, 0), Card::new(high, 1)], 12));
            }
        }
    }
    assert_eq!(classes.iter().map(|(_, weight)| weight).sum::<u64>(), 52 * 51 / 2);
    let mut pairs = HashMap::<Category, u64>::new();
    let mut singles = HashMap::<Category, u64>::new();
    for (community, weight) in classes {
        let taken = [index(community[0]), index(community[1])];
        let rest: Vec<usize> = (0..52).filter(|card| !taken.contains(card)).collect();
        let mut hits = HashMap::<Category, Vec<u64>>::new();
        for a in 0..rest.len() {
            for b in a + 1..rest.len() {
                for c in b + 1..rest.len() {
                    let hand = [cards[rest[a]], cards[rest[b]], cards[rest[c]], community[0], community[1]];
                    let category = evaluate(&hand).category;
                    if PAID.contains(&category) {
                        hits.entry(category).or_default().push(mask(&[rest[a], rest[b], rest[c]]));
                    }
                }
            }
        }
        for category in PAID {
            let own = hits.get(&category).map(Vec::as_slice).unwrap_or_default();
            *pairs.entry(category).or_default() += weight * disjoint_pairs(own);
            *singles.entry(category).or_default() += weight * own.len() as u64;
        }
    }
    (pairs, singles)
}

#[test]
fn two_seats_with_their_own_five_cards_make_a_category_together_as_counted() {
    let pairs = own_five_pairs();
    for category in PAID {
        eprintln!("own five {category:?}: {}", pairs[&category]);
    }
    for category in PAID {
        assert_eq!(Some(pairs[&category]), seat_pair_count(false, category), "{category:?}");
    }
    assert_eq!(SEAT_PAIRS_OWN_FIVE, 2_598_960 * 1_533_939);
    assert_eq!(seat_pairs(false), SEAT_PAIRS_OWN_FIVE);
}

#[test]
fn two_seats_sharing_two_community_cards_make_a_category_together_as_counted() {
    let (pairs, singles) = three_plus_two_pairs();
    for category in PAID {
        eprintln!("3 + 2 {category:?}: {} (single {})", pairs[&category], singles[&category]);
    }
    for category in PAID {
        assert_eq!(singles[&category], 10 * pozo_sim::odds::five_card_count(category), "{category:?}");
        assert_eq!(Some(pairs[&category]), seat_pair_count(true, category), "{category:?}");
    }
    assert_eq!(SEAT_PAIRS_THREE_PLUS_TWO, 1_326 * 19_600 * 16_215);
    assert_eq!(seat_pairs(true), SEAT_PAIRS_THREE_PLUS_TWO);
}
