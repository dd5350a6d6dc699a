//! Each poker game of `pozo-sim odds` deals its round as its rulebook says (docs/odds.md quotes the
//! articles): how many seats, own, community and croupier cards, in which order, from one deck; and
//! its counts stay within 4 standard errors at a fixed seed.

use std::collections::BTreeSet;

use pozo_sim::cards::{self, Card};
use pozo_sim::odds::{Community, FIVE_CARD_HANDS, POKER_DEALS, POKER_GAMES, five_card_count, odds, poker_deal, seat_pair_count};
use pozo_sim::poker::Category;
use rand::seq::SliceRandom;

#[test]
fn each_game_deals_the_cards_its_rulebook_says() {
    // (game, seats, own cards, community cards, croupier cards)
    let expected = [
        ("central-poker", 5, 5, 0, 5),      // IPLyC 15.1.2, 15.13.1; 16.3.1: five seats
        ("caribbean-poker", 7, 5, 0, 5),    // AJ 2.3.4.2, 2.3.5.1.4
        ("go-poker", 7, 3, 2, 0),           // AJ 2.3.3.4, 2.3.4.2, 2.3.5.3
        ("draw-poker", 6, 5, 0, 5),         // AJ 2.3.4.2, 2.3.5.1.3: the first five, before any change
        ("poker-sin-descarte", 7, 5, 0, 5), // Andalucía Póquer sin descarte IV.1, VII.1.f
        ("tripoker", 9, 3, 2, 3),           // Andalucía Tripóquer IV, VI.6, IX.3
    ];
    assert_eq!(POKER_GAMES.len(), expected.len());
    for (game, seats, own, community, croupier) in expected {
        let deal = poker_deal(game).unwrap_or_else(|| panic!("{game} has a deal"));
        assert_eq!((deal.seats, deal.own, deal.community_cards(), deal.croupier), (seats, own, community, croupier), "{game}");
        assert_eq!(own + community, 5, "{game}: the side bet is judged on five cards");
        assert!(deal.cards(seats) <= 52, "{game}: a full round fits one deck");
    }
    for (deal, game) in POKER_DEALS.iter().zip(POKER_GAMES) {
        assert_eq!(deal.game, game);
    }
    // Draw Poker: a full table, then every player and the croupier changing two cards, still fits
    // one deck (AJ 2.3.3.1: "a lo más, dos cartas").
    assert!(poker_deal("draw-poker").expect("draw").cards(6) + 7 * 2 <= 52);
}

/// The deck's positions (0 = the top card) each seat, the table and the croupier receive when
/// `game` deals `seats` seats from an unshuffled deck.
fn positions(game: &str, seats: usize) -> (Vec<Vec<usize>>, Vec<usize>, Vec<usize>) {
    let deck = cards::deck();
    let at = |card: &Card| deck.iter().position(|other| other == card).expect("a card of the deck");
    let round = poker_deal(game).expect("a poker game").deal(seats, &deck);
    (
        round.own.iter().map(|cards| cards.iter().map(at).collect()).collect(),
        round.community.iter().map(at).collect(),
        round.croupier.iter().map(at).collect(),
    )
}

#[test]
fn the_cards_come_in_the_order_the_rulebooks_give() {
    // Caribbean (AJ 2.3.5.1.4): one at a time to each of 3 players, then the croupier, five times.
    let (own, community, croupier) = positions("caribbean-poker", 3);
    assert_eq!(own, [vec![0, 4, 8, 12, 16], vec![1, 5, 9, 13, 17], vec![2, 6, 10, 14, 18]]);
    assert!(community.is_empty());
    assert_eq!(croupier, [3, 7, 11, 15, 19]);
    // Draw (AJ 2.3.5.1.3): the same for the first five; a full table of 6.
    let (own, _, croupier) = positions("draw-poker", 6);
    assert_eq!(own[5], [5, 12, 19, 26, 33]);
    assert_eq!(croupier, [6, 13, 20, 27, 34]);
    // Go (AJ 2.3.5.3): a card to each player and the first community card, a second card to each
    // and the second community card, then the third card to each; no croupier hand.
    let (own, community, croupier) = positions("go-poker", 3);
    assert_eq!(own, [vec![0, 4, 8], vec![1, 5, 9], vec![2, 6, 10]]);
    assert_eq!(community, [3, 7]);
    assert!(croupier.is_empty());
    // Tripóquer (VI.6, IX.3): three to each player and to the banca, the two common cards last.
    let (own, community, croupier) = positions("tripoker", 2);
    assert_eq!(own, [vec![0, 3, 6], vec![1, 4, 7]]);
    assert_eq!(croupier, [2, 5, 8]);
    assert_eq!(community, [9, 10]);
    // Central Póker (15.13.1): five each, the Banca in the rotation.
    let (own, _, croupier) = positions("central-poker", 1);
    assert_eq!((own[0].clone(), croupier), (vec![0, 2, 4, 6, 8], vec![1, 3, 5, 7, 9]));
}

#[test]
fn a_round_deals_every_card_once_and_the_seats_share_the_community_cards() {
    let mut rng = cards::rng(5);
    let mut deck = cards::deck();
    for deal in &POKER_DEALS {
        for seats in 1..=deal.seats {
            deck.shuffle(&mut rng);
            let round = deal.deal(seats, &deck);
            assert_eq!(round.own.len(), seats);
            let dealt: Vec<Card> = round.own.iter().flatten().chain(&round.community).chain(&round.croupier).copied().collect();
            assert_eq!(dealt.len(), deal.cards(seats), "{}", deal.game);
            assert_eq!(dealt.iter().collect::<BTreeSet<_>>().len(), dealt.len(), "{}: one deck, no card twice", deal.game);
            let top: BTreeSet<Card> = deck[..dealt.len()].iter().copied().collect();
            assert_eq!(dealt.iter().copied().collect::<BTreeSet<_>>(), top, "{}: the top cards of the deck", deal.game);
            for seat in 0..seats {
                let hand = round.hand(seat);
                assert_eq!(hand[..deal.own], round.own[seat][..], "{}", deal.game);
                assert_eq!(hand[deal.own..], round.community[..], "{}: every seat the same community cards", deal.game);
            }
        }
    }
}

#[test]
fn each_poker_game_stays_within_4_standard_errors_at_a_fixed_seed() {
    for game in POKER_GAMES {
        let report = odds(game, 300_000, 11).expect("a poker game");
        assert_eq!(report.hands, 300_000);
        let codes: Vec<&str> = report.codes.iter().map(|code| code.code.as_str()).collect();
        let pool_codes: &[&str] = match report.pool.as_str() {
            "iplyc-central-poker" => &["ESCALERA_REAL_MAYOR", "ESCALERA_COLOR", "POKER", "FULL", "COLOR"],
            "aj-poker" => &["ESCALERA_REAL", "ESCALERA_COLOR", "POKER", "FULL", "COLOR"],
            "and-carrusel" => &["ESCALERA_REAL_COLOR", "ESCALERA_COLOR", "POKER", "FULL", "COLOR", "ESCALERA"],
            other => panic!("{game}: pool {other}"),
        };
        assert_eq!(codes, pool_codes, "{game}");
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
    assert_eq!(odds("tripoker", 1, 1).expect("tripoker").pool, "and-carrusel", "Tripóquer IX.3 joins the carrusel");
}

// Statistics, not money.
#[allow(clippy::float_arithmetic)]
#[test]
fn the_standard_error_counts_the_seats_of_a_round_together() {
    // Seats sharing two community cards make a flush or a full house together more often than
    // independent seats would (two suited community cards help every seat): the standard error of
    // Go Poker and Tripóquer is wider than the binomial one. Four of a kind the other way: a pair
    // on the table leaves two cards of its rank, which two seats cannot both hold.
    let shared = |category| seat_pair_count(true, category).expect("a paid category") as f64 / (1_326.0 * 19_600.0 * 16_215.0);
    let p = |category| five_card_count(category) as f64 / FIVE_CARD_HANDS as f64;
    assert!(shared(Category::Flush) > 1.5 * p(Category::Flush).powi(2));
    assert!(shared(Category::FullHouse) > 2.0 * p(Category::FullHouse).powi(2));
    assert!(shared(Category::FourOfAKind) < 0.2 * p(Category::FourOfAKind).powi(2));
    for game in ["go-poker", "tripoker"] {
        assert_ne!(poker_deal(game).expect("a game").community, Community::None);
        let report = odds(game, 70_000, 3).expect("a poker game");
        for code in &report.codes {
            let binomial = (70_000.0 * code.probability * (1.0 - code.probability)).sqrt();
            let ratio = code.standard_error / binomial;
            match code.code.as_str() {
                "COLOR" | "FULL" => assert!(ratio > 1.004, "{game} {}: {ratio}", code.code),
                "POKER" => assert!(ratio < 1.0, "{game} {}: {ratio}", code.code),
                _ => {}
            }
        }
    }
}

/// The progress bar follows the dealing to the last hand and changes no count: the same seed
/// gives the same report with it as without it, for each kind of game.
#[test]
fn the_progress_bar_reaches_every_hand_and_changes_no_count() {
    for game in ["ruleta-americana", "blackjack", "go-poker"] {
        let hands = 40_001;
        let bar = indicatif::ProgressBar::hidden();
        let with = pozo_sim::odds::odds_with_progress(game, hands, 5, &bar).expect("a game with odds");
        let without = pozo_sim::odds::odds(game, hands, 5).expect("a game with odds");
        assert_eq!((bar.position(), bar.length()), (hands, Some(hands)), "{game}");
        let observed = |report: &pozo_sim::odds::OddsReport| report.codes.iter().map(|code| code.observed).collect::<Vec<_>>();
        assert_eq!(observed(&with), observed(&without), "{game}");
    }
}
