//! Blackjack: the deal, the simulated player's strategy, the premio codes on hand-made hands, the
//! exact probabilities against every sequence of a box's first cards, and a million box-hands per
//! game against those probabilities.

use std::collections::BTreeMap;

use pozo_sim::blackjack::{
    self, BoxHand, CUT_CARD, Decision, Game, MAX_HAND_CARDS, MAX_ROUND_CARDS, Play, Reshuffle, Round, Table, deal_round, decide,
    exact_odds, falling, play_box, premio,
};
use pozo_sim::cards::{Card, deck};
use pozo_sim::odds::odds;

const HEARTS: u8 = 0;
const DIAMONDS: u8 = 1;
const CLUBS: u8 = 2;
const SPADES: u8 = 3;
const ACE: u8 = 14;
const KING: u8 = 13;
const QUEEN: u8 = 12;

fn c(rank: u8, suit: u8) -> Card {
    Card::new(rank, suit)
}

/// Deals a round from `cards` in this order, and checks every card was used.
fn stacked(game: Game, seats: &[u32], cards: &[Card]) -> Round {
    let mut source = cards.iter().copied();
    let round = deal_round(game.rules(), seats, &mut || source.next().expect("the stacked cards suffice"));
    assert_eq!(source.count(), 0, "every stacked card dealt: {round:?}");
    round
}

/// Plays one box on its two first cards and then `draws`, and checks it took exactly them.
fn hand(cards: &[Card]) -> BoxHand {
    let mut draws = cards[2..].iter().copied();
    let played = play_box(1, cards[0], cards[1], &mut || draws.next().expect("the hand takes no more cards"));
    assert_eq!(draws.count(), 0, "the hand takes every card given: {played:?}");
    played
}

#[test]
fn iplyc_deals_box_cards_the_up_card_second_cards_the_hole_card_then_play() {
    // Seats 5 and 2, dealt in seat order: 2 first (10.5.2.2.1).
    let cards = [
        c(10, CLUBS),   // seat 2, first
        c(5, HEARTS),   // seat 5, first
        c(9, SPADES),   // dealer's up card (CARTA SUPERIOR)
        c(7, CLUBS),    // seat 2, second: 17, stands
        c(3, DIAMONDS), // seat 5, second: 8, hits
        c(2, SPADES),   // dealer's hole card (CARTA CUBIERTA): 11
        c(4, HEARTS),   // seat 5: 12
        c(6, HEARTS),   // seat 5: 18, stands
        c(3, CLUBS),    // dealer: 14
        c(KING, CLUBS), // dealer: 24
    ];
    let round = stacked(Game::Blackjack, &[5, 2], &cards);
    assert_eq!(round.boxes[0], BoxHand { seat: 2, cards: vec![c(10, CLUBS), c(7, CLUBS)], play: Play::Stood });
    assert_eq!(round.boxes[1].seat, 5);
    assert_eq!(round.boxes[1].cards, [c(5, HEARTS), c(3, DIAMONDS), c(4, HEARTS), c(6, HEARTS)]);
    assert_eq!(round.dealer, [c(9, SPADES), c(2, SPADES), c(3, CLUBS), c(KING, CLUBS)]);
    assert_eq!(round.cards(), cards.len());
}

#[test]
fn the_veintiuno_dealer_has_no_hole_card_and_does_not_draw_when_every_box_busted() {
    let cards = [
        c(10, CLUBS),    // seat 1, first
        c(ACE, HEARTS),  // dealer's card
        c(6, CLUBS),     // seat 1, second: 16, hits
        c(KING, SPADES), // seat 1: 26, busted
    ];
    let round = stacked(Game::Veintiuno, &[1], &cards);
    assert!(round.boxes[0].busted());
    assert_eq!(round.dealer, [c(ACE, HEARTS)], "no second card: no box left in play (V.1.a)");
    // With a box standing, the dealer draws to 17 (soft 17 stands).
    let cards = [c(10, CLUBS), c(ACE, HEARTS), c(8, CLUBS), c(6, SPADES)];
    let round = stacked(Game::Veintiuno, &[1], &cards);
    assert_eq!(round.dealer, [c(ACE, HEARTS), c(6, SPADES)]);
    // IPLyC: the hole card is dealt and, every box busted, nothing more (9.10.3).
    let cards = [c(10, CLUBS), c(ACE, HEARTS), c(6, CLUBS), c(2, SPADES), c(KING, SPADES)];
    let round = stacked(Game::Blackjack, &[1], &cards);
    assert_eq!(round.dealer, [c(ACE, HEARTS), c(2, SPADES)]);
}

#[test]
fn the_strategy_splits_aces_doubles_hard_10_and_11_and_hits_to_17() {
    let two = |a: Card, b: Card| decide(&[a, b]);
    assert_eq!(two(c(ACE, HEARTS), c(ACE, SPADES)), Decision::SplitAces);
    assert_eq!(two(c(5, HEARTS), c(5, HEARTS)), Decision::Double, "5-5 is a hard 10, never split");
    assert_eq!(two(c(6, CLUBS), c(4, HEARTS)), Decision::Double);
    assert_eq!(two(c(2, CLUBS), c(9, HEARTS)), Decision::Double);
    assert_eq!(two(c(ACE, CLUBS), c(9, CLUBS)), Decision::Stand, "A-9 is soft 20: not doubled");
    assert_eq!(two(c(ACE, CLUBS), c(KING, CLUBS)), Decision::Stand, "a Black Jack stands");
    assert_eq!(two(c(ACE, CLUBS), c(5, CLUBS)), Decision::Hit, "soft 16 hits");
    assert_eq!(two(c(ACE, CLUBS), c(6, CLUBS)), Decision::Stand, "soft 17 stands");
    assert_eq!(two(c(7, CLUBS), c(7, HEARTS)), Decision::Hit, "7-7 hits");
    assert_eq!(two(c(8, CLUBS), c(8, HEARTS)), Decision::Hit, "8-8 is 16: hit, never split");
    assert_eq!(two(c(9, CLUBS), c(3, HEARTS)), Decision::Hit, "hard 12 is no double");
    assert_eq!(two(c(4, CLUBS), c(5, HEARTS)), Decision::Hit, "hard 9 is no double");
    assert_eq!(two(c(KING, CLUBS), c(QUEEN, HEARTS)), Decision::Stand, "20: never split tens");
    assert_eq!(decide(&[c(2, CLUBS), c(3, CLUBS), c(5, CLUBS)]), Decision::Hit, "a three-card 10 is no double");
    assert_eq!(decide(&[c(7, CLUBS), c(7, CLUBS), c(ACE, CLUBS), c(ACE, CLUBS)]), Decision::Hit, "hard 16");

    // Each split ace takes exactly one card; a double exactly one, however low the total.
    let split = hand(&[c(ACE, CLUBS), c(ACE, HEARTS), c(2, CLUBS), c(3, CLUBS)]);
    assert_eq!((split.play, split.cards.len(), split.busted()), (Play::SplitAces, 4, false));
    let doubled = hand(&[c(2, CLUBS), c(8, CLUBS), c(2, HEARTS)]);
    assert_eq!((doubled.play, best(&doubled)), (Play::Doubled, 12));
    let soft = hand(&[c(ACE, CLUBS), c(9, CLUBS)]);
    assert_eq!((soft.play, soft.cards.len()), (Play::Stood, 2), "A-9 neither doubles nor hits");
    let sevens = hand(&[c(7, CLUBS), c(7, HEARTS), c(7, SPADES)]);
    assert_eq!(best(&sevens), 21, "7-7-7 stops at 21");
    let low = hand(&[c(7, CLUBS), c(7, HEARTS), c(2, SPADES), c(ACE, SPADES)]);
    assert_eq!(best(&low), 17, "7-7-2 is 16: one more card");
    let busted = hand(&[c(10, CLUBS), c(6, HEARTS), c(9, SPADES)]);
    assert!(busted.busted());
}

fn best(hand: &BoxHand) -> u32 {
    blackjack::best_total(&hand.cards)
}

fn iplyc(cards: &[Card]) -> Option<&'static str> {
    premio(Game::Blackjack, &hand(cards))
}

fn bolsa(cards: &[Card]) -> Option<&'static str> {
    premio(Game::Veintiuno, &hand(cards))
}

#[test]
fn iplyc_three_sevens_by_suit_11_3_1_11_3_2_11_3_4() {
    assert_eq!(iplyc(&[c(7, HEARTS), c(7, HEARTS), c(7, HEARTS)]), Some("TRES_SIETES_CORAZONES"));
    assert_eq!(iplyc(&[c(7, SPADES), c(7, SPADES), c(7, SPADES)]), Some("TRES_SIETES_MISMO_PALO"));
    assert_eq!(iplyc(&[c(7, DIAMONDS), c(7, DIAMONDS), c(7, DIAMONDS)]), Some("TRES_SIETES_MISMO_PALO"));
    assert_eq!(iplyc(&[c(7, HEARTS), c(7, HEARTS), c(7, SPADES)]), Some("TRES_SIETES"), "not all hearts");
    assert_eq!(iplyc(&[c(7, SPADES), c(7, HEARTS), c(7, CLUBS)]), Some("TRES_SIETES"));
    assert_eq!(iplyc(&[c(7, HEARTS), c(7, HEARTS), c(6, HEARTS)]), None, "20");
    assert_eq!(iplyc(&[c(7, HEARTS), c(7, HEARTS), c(2, HEARTS), c(5, HEARTS)]), None, "21 of four cards");
    assert_eq!(iplyc(&[c(7, HEARTS), c(KING, HEARTS)]), None, "the bolsa's SIETE is not an IPLyC code");
}

#[test]
fn iplyc_four_aces_and_the_ace_king_black_jack_11_3_3_11_3_6() {
    assert_eq!(iplyc(&[c(ACE, SPADES), c(ACE, HEARTS), c(ACE, CLUBS), c(ACE, SPADES)]), Some("CUATRO_ASES"));
    assert_eq!(iplyc(&[c(ACE, SPADES), c(ACE, HEARTS), c(ACE, CLUBS), c(KING, SPADES)]), None, "three aces");
    assert_eq!(iplyc(&[c(ACE, SPADES), c(KING, SPADES)]), Some("BJ_AS_REY_MISMO_PALO"));
    assert_eq!(iplyc(&[c(KING, HEARTS), c(ACE, HEARTS)]), Some("BJ_AS_REY_MISMO_PALO"), "either order");
    assert_eq!(iplyc(&[c(ACE, SPADES), c(KING, CLUBS)]), None, "two suits");
    assert_eq!(iplyc(&[c(ACE, SPADES), c(QUEEN, SPADES)]), None, "a queen");
    assert_eq!(iplyc(&[c(ACE, SPADES), c(10, SPADES)]), None, "a ten");
    // A split ace and a king of its suit on the first column is an ace-king Black Jack (9.6.2.2,
    // 11.4.4); on the second column there is no side bet.
    assert_eq!(iplyc(&[c(ACE, SPADES), c(ACE, HEARTS), c(KING, SPADES), c(2, CLUBS)]), Some("BJ_AS_REY_MISMO_PALO"));
    assert_eq!(iplyc(&[c(ACE, SPADES), c(ACE, HEARTS), c(KING, HEARTS), c(2, CLUBS)]), None, "the king of the other ace's suit");
    assert_eq!(iplyc(&[c(ACE, SPADES), c(ACE, HEARTS), c(2, CLUBS), c(KING, HEARTS)]), None, "the second column");
}

#[test]
fn iplyc_doubling_to_21_with_one_suit_11_3_5() {
    assert_eq!(iplyc(&[c(6, DIAMONDS), c(5, DIAMONDS), c(KING, DIAMONDS)]), Some("DOBLE_10_11_MISMO_PALO"));
    assert_eq!(iplyc(&[c(2, CLUBS), c(9, CLUBS), c(10, CLUBS)]), Some("DOBLE_10_11_MISMO_PALO"));
    assert_eq!(iplyc(&[c(6, DIAMONDS), c(4, DIAMONDS), c(ACE, DIAMONDS)]), Some("DOBLE_10_11_MISMO_PALO"));
    assert_eq!(iplyc(&[c(5, CLUBS), c(5, CLUBS), c(ACE, CLUBS)]), Some("DOBLE_10_11_MISMO_PALO"), "5-5 doubles");
    assert_eq!(iplyc(&[c(6, DIAMONDS), c(4, SPADES), c(ACE, DIAMONDS)]), None, "hard 10 to 21, two suits");
    assert_eq!(iplyc(&[c(6, DIAMONDS), c(5, DIAMONDS), c(KING, CLUBS)]), None, "the third card of another suit");
    assert_eq!(iplyc(&[c(6, DIAMONDS), c(5, DIAMONDS), c(9, DIAMONDS)]), None, "20");
    assert_eq!(iplyc(&[c(6, DIAMONDS), c(5, DIAMONDS), c(ACE, DIAMONDS)]), None, "12");
    assert_eq!(iplyc(&[c(5, CLUBS), c(5, CLUBS), c(10, CLUBS)]), None, "20");
    // A soft 10 stands: no double, no prize; 21 of three suited cards without doubling neither.
    assert_eq!(iplyc(&[c(ACE, HEARTS), c(9, HEARTS)]), None);
    assert_eq!(iplyc(&[c(4, HEARTS), c(4, HEARTS), c(3, HEARTS), c(10, HEARTS)]), None, "hit, not doubled");
}

#[test]
fn the_bolsa_pays_only_the_highest_rule_e() {
    assert_eq!(bolsa(&[c(7, HEARTS), c(7, HEARTS), c(7, HEARTS)]), Some("TRES_SIETES_MISMO_PALO"));
    assert_eq!(bolsa(&[c(7, CLUBS), c(7, CLUBS), c(7, CLUBS)]), Some("TRES_SIETES_MISMO_PALO"), "any suit");
    assert_eq!(bolsa(&[c(7, HEARTS), c(7, HEARTS), c(7, SPADES)]), Some("TRES_SIETES"), "not two suited sevens");
    assert_eq!(bolsa(&[c(7, HEARTS), c(7, SPADES), c(7, CLUBS)]), Some("TRES_SIETES"));
    assert_eq!(bolsa(&[c(7, HEARTS), c(7, HEARTS), c(5, SPADES)]), Some("DOS_SIETES_MISMO_PALO"));
    assert_eq!(bolsa(&[c(7, HEARTS), c(7, SPADES), c(2, SPADES), c(4, SPADES)]), Some("DOS_SIETES"));
    assert_eq!(bolsa(&[c(7, HEARTS), c(KING, SPADES)]), Some("SIETE"));
    assert_eq!(bolsa(&[c(7, HEARTS), c(2, SPADES), c(7, SPADES), c(2, CLUBS)]), Some("SIETE"), "the third 7 is late");
    assert_eq!(bolsa(&[c(KING, HEARTS), c(7, HEARTS)]), None, "the first card decides");
    assert_eq!(bolsa(&[c(ACE, SPADES), c(KING, SPADES)]), None, "IPLyC codes are not the bolsa's");
}

#[test]
fn the_same_seed_deals_the_same_rounds() {
    for game in Game::ALL {
        let seats = [1, 2, 3, 4, 5, 6, 7];
        let deal = |seed| {
            let mut table = Table::new(game, seed);
            let rounds: Vec<Round> = (0..100).map(|_| table.deal_round(&seats)).collect();
            assert!(table.shoes() > 2, "the rounds cross shoes");
            rounds
        };
        assert_eq!(deal(11), deal(11));
        assert_ne!(deal(11), deal(12));
        let codes = |seed| {
            let mut table = Table::new(game, seed);
            (0..20_000).flat_map(|_| table.play_round(&seats)).collect::<Vec<_>>()
        };
        let first = codes(5);
        assert!(!first.is_empty());
        assert_eq!(first, codes(5));
    }
}

#[test]
fn a_new_shoe_comes_at_the_cut_card_never_in_a_round() {
    for game in Game::ALL {
        let rules = game.rules();
        let mut table = Table::for_game(game.name(), 3).expect("a blackjack game");
        assert_eq!(table.game(), game);
        assert_eq!(table.remaining(), rules.shoe_cards() - rules.burn);
        let mut largest = 0;
        for round in 0..5_000u32 {
            let seats: Vec<u32> = (1..=1 + round % 7).collect();
            let (before, shoes) = (table.remaining(), table.shoes());
            let dealt = table.deal_round(&seats);
            largest = largest.max(dealt.cards());
            assert!(dealt.boxes.iter().all(|hand| hand.cards.len() <= MAX_HAND_CARDS) && dealt.dealer.len() <= MAX_HAND_CARDS);
            if before < CUT_CARD {
                assert_eq!(table.shoes(), shoes + 1);
                assert_eq!(table.remaining(), rules.shoe_cards() - rules.burn - dealt.cards());
            } else {
                assert_eq!(table.shoes(), shoes);
                assert_eq!(table.remaining(), before - dealt.cards());
            }
            if rules.hole_card {
                assert!(dealt.dealer.len() >= 2);
            }
        }
        assert!(largest <= MAX_ROUND_CARDS, "{largest} cards in a round");
        let mut every = Table::with_reshuffle(game, 3, Reshuffle::EveryRounds(rules.safe_rounds_per_shoe()));
        for round in 0..100 {
            every.deal_round(&[1, 2, 3, 4, 5, 6, 7]);
            assert_eq!(every.shoes(), 1 + round / u64::from(rules.safe_rounds_per_shoe()));
        }
    }
}

/// The longest hand a drawing rule can take, over every sequence of ranks (suits do not matter).
fn longest(first_two: bool) -> usize {
    fn walk(prefix: &mut Vec<Card>, first_two: bool) -> usize {
        // The hand's length on these cards, and whether it wants a card past them.
        let (length, wants_more) = if !first_two {
            (prefix.len(), blackjack::dealer_draws(prefix))
        } else if prefix.len() < 2 {
            (prefix.len(), true)
        } else {
            let ran_out = std::cell::Cell::new(false);
            let mut rest = prefix[2..].iter().copied();
            let mut next = || {
                rest.next().unwrap_or_else(|| {
                    ran_out.set(true);
                    Card::new(KING, CLUBS)
                })
            };
            let length = play_box(1, prefix[0], prefix[1], &mut next).cards.len();
            (length, ran_out.get())
        };
        if !wants_more {
            return length;
        }
        (2..=ACE)
            .map(|rank| {
                prefix.push(Card::new(rank, HEARTS));
                let length = walk(prefix, first_two);
                prefix.pop();
                length
            })
            .max()
            .unwrap_or(0)
    }
    walk(&mut Vec::new(), first_two)
}

#[test]
fn no_hand_takes_more_than_12_cards() {
    // The dealer: six aces, a six, four aces, one more card.
    assert_eq!(longest(false), MAX_HAND_CARDS);
    // The player never holds two aces (split), so at most 11.
    assert_eq!(longest(true), 11);
}

/// Every sequence of a box's first cards (up to four), weighted by how many ways a shoe of
/// `decks` decks deals it, with the code the strategy makes of it: (ways per code, all ways), in
/// units of 1 / (n·(n−1)·(n−2)·(n−3)).
fn every_first_four(game: Game) -> (BTreeMap<&'static str, u128>, u128) {
    let rules = game.rules();
    let types = deck();
    let n = rules.shoe_cards() as u64;
    let mut ways = BTreeMap::new();
    let mut total = 0u128;
    let mut left = vec![rules.decks as u128; types.len()];
    let mut prefix = Vec::new();
    walk(game, &types, n, &mut left, &mut prefix, 1, &mut ways, &mut total);
    (ways, total)
}

#[allow(clippy::too_many_arguments)]
fn walk(
    game: Game,
    types: &[Card],
    n: u64,
    left: &mut [u128],
    prefix: &mut Vec<usize>,
    weight: u128,
    ways: &mut BTreeMap<&'static str, u128>,
    total: &mut u128,
) {
    if prefix.len() >= 2 {
        // Play the box on the prefix; past its end, a filler card.
        let play = |filler: Card| {
            let mut rest = prefix[2..].iter().map(|index| types[*index]).chain(std::iter::repeat(filler));
            play_box(1, types[prefix[0]], types[prefix[1]], &mut || rest.next().expect("endless"))
        };
        let played = play(Card::new(KING, CLUBS));
        if played.cards.len() <= prefix.len() || prefix.len() == 4 {
            assert!(played.cards.len() >= prefix.len(), "the walk goes no further than the hand: {played:?}");
            let code = premio(game, &played);
            if played.cards.len() > prefix.len() {
                // Past four cards, the code does not depend on the cards that follow.
                assert_eq!(code, premio(game, &play(Card::new(2, DIAMONDS))), "{played:?}");
                assert_eq!(code, premio(game, &play(Card::new(7, HEARTS))), "{played:?}");
                assert_eq!(code, premio(game, &play(Card::new(ACE, SPADES))), "{played:?}");
            }
            let leaf = weight * u128::from(falling(n - prefix.len() as u64, 4 - prefix.len() as u32));
            *total += leaf;
            if let Some(code) = code {
                assert!(game.codes().contains(&code), "{code}");
                *ways.entry(code).or_default() += leaf;
            }
            return;
        }
    }
    for index in 0..types.len() {
        let copies = left[index];
        left[index] -= 1;
        prefix.push(index);
        walk(game, types, n, left, prefix, weight * copies, ways, total);
        prefix.pop();
        left[index] += 1;
    }
}

#[test]
fn the_exact_odds_count_every_first_four_cards() {
    for game in Game::ALL {
        let n = game.rules().shoe_cards() as u64;
        let (ways, total) = every_first_four(game);
        assert_eq!(total, u128::from(falling(n, 4)), "{game:?}: every sequence once");
        let exact = exact_odds(game);
        assert_eq!(exact.iter().map(|code| code.code).collect::<Vec<_>>(), game.codes());
        for code in &exact {
            let found = ways.get(code.code).copied().unwrap_or(0);
            assert!(found > 0, "{}", code.code);
            // ordered / sequences == found / n(n−1)(n−2)(n−3)
            assert_eq!(
                u128::from(code.ordered) * u128::from(falling(n, 4)),
                found * u128::from(code.sequences),
                "{game:?} {}",
                code.code
            );
        }
        assert_eq!(ways.len(), exact.len());
    }
}

#[test]
fn the_exact_fractions_as_docs_odds_md_writes_them() {
    let fractions = |game| exact_odds(game).iter().map(|code| (code.code, code.fraction())).collect::<Vec<_>>();
    // IPLyC, 8 decks, n = 416 (9.8.1).
    assert_eq!(
        fractions(Game::Blackjack),
        [
            ("TRES_SIETES_CORAZONES", reduce(8 * 7 * 6, 416 * 415 * 414)),
            ("TRES_SIETES_MISMO_PALO", reduce(3 * 8 * 7 * 6, 416 * 415 * 414)),
            ("CUATRO_ASES", reduce(32 * 31 * 30 * 29, 416 * 415 * 414 * 413)),
            ("TRES_SIETES", reduce(32 * 31 * 30 - 4 * 8 * 7 * 6, 416 * 415 * 414)),
            // hard 11: 4 suits × 8 ordered rank pairs × 8 × 8 × 32 tens of the suit;
            // hard 10: 4 suits × (6 ordered pairs × 8 × 8 + 5-5: 8 × 7) × 8 aces of the suit.
            ("DOBLE_10_11_MISMO_PALO", reduce(4 * 8 * 64 * 32 + 4 * (6 * 64 + 56) * 8, 416 * 415 * 414)),
            ("BJ_AS_REY_MISMO_PALO", reduce(2 * 4 * 8 * 8 * 414 + 32 * 31 * 8, 416 * 415 * 414)),
        ]
    );
    // Andalucía, 6 decks, n = 312 (Veintiuno II.1).
    assert_eq!(
        fractions(Game::Veintiuno),
        [
            ("TRES_SIETES_MISMO_PALO", reduce(4 * 6 * 5 * 4, 312 * 311 * 310)),
            ("TRES_SIETES", reduce(24 * 23 * 22 - 4 * 6 * 5 * 4, 312 * 311 * 310)),
            ("DOS_SIETES_MISMO_PALO", reduce(24 * 5 * 288, 312 * 311 * 310)),
            ("DOS_SIETES", reduce(24 * 18 * 288, 312 * 311 * 310)),
            ("SIETE", reduce(24 * 288, 312 * 311)),
        ]
    );
}

fn reduce(numerator: u64, denominator: u64) -> (u64, u64) {
    let (mut a, mut b) = (numerator, denominator);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    (numerator / a, denominator / a)
}

#[test]
fn a_million_box_hands_stay_within_4_standard_errors_for_every_code() {
    // Expected per million box-hands (docs/odds.md): IPLyC TRES_SIETES_CORAZONES 4.70,
    // TRES_SIETES_MISMO_PALO 14.10, CUATRO_ASES 29.24, TRES_SIETES 397.58, DOBLE_10_11_MISMO_PALO
    // 1,113.93, BJ_AS_REY_MISMO_PALO 3,076.74; bolsa TRES_SIETES_MISMO_PALO 15.96, TRES_SIETES
    // 387.77, DOS_SIETES_MISMO_PALO 1,148.94, DOS_SIETES 4,136.18, SIETE 71,234.23. At 4.70 expected
    // the rarest code only fails from 14 up (standard error 2.17); the exhaustive count above is
    // what pins its probability.
    for game in Game::ALL {
        let report = odds(game.name(), 1_000_000, 7).expect("a blackjack game");
        assert_eq!(report.pool, game.pool());
        assert_eq!(report.codes.iter().map(|code| code.code.as_str()).collect::<Vec<_>>(), game.codes());
        for code in &report.codes {
            assert!(
                code.deviation_se.abs() <= 4.0,
                "{} {}: {:.2} SE ({} observed, {:.1} expected)",
                game.name(),
                code.code,
                code.deviation_se,
                code.observed,
                code.expected
            );
        }
    }
}

#[test]
fn the_cut_card_table_stays_within_4_standard_errors_too() {
    // The cut card makes the rounds of a shoe depend on its cards (docs/odds.md): the effect is far
    // under a standard error at this size, which this checks.
    for game in Game::ALL {
        let mut table = Table::new(game, 9);
        let seats = [1, 2, 3, 4, 5, 6, 7];
        let rounds = 1_000_000 / seats.len() as u64;
        let mut observed = BTreeMap::<&str, u64>::new();
        for _ in 0..rounds {
            for (_, code) in table.play_round(&seats) {
                *observed.entry(code).or_default() += 1;
            }
        }
        let hands = rounds * seats.len() as u64;
        for exact in exact_odds(game) {
            let (numerator, denominator) = exact.fraction();
            let seen = observed.get(exact.code).copied().unwrap_or(0);
            // |seen − N·p| ≤ 4·√(N·p·(1−p)), squared, in integers: (seen·d − N·m)² ≤ 16·N·m·(d − m).
            let (seen, hands, m, d) = (i128::from(seen), i128::from(hands), i128::from(numerator), i128::from(denominator));
            let gap = seen * d - hands * m;
            assert!(gap * gap <= 16 * hands * m * (d - m), "{} {}: {seen} observed", game.name(), exact.code);
        }
    }
}
