//! Hit frequencies: each premio code's observed frequency against its exact
//! probability, with the deviation in standard errors. docs/odds.md derives the
//! probabilities.
//!
//! Poker is dealt as each rulebook deals a round ([`POKER_DEALS`]): every seat from one
//! 52-card deck, its own five cards (Central, Caribbean, Draw before any change, Póquer sin
//! descarte) or its own three and two community cards (Go Poker; Tripóquer joined to the
//! carrusel, IX.3). Three Card Poker (seed 003) is dealt as its procedures deal a round
//! (`three_card`): three cards to each seat and to the dealer, the progressive judged on the seat's
//! three.

use rand::seq::SliceRandom;
use serde::Serialize;

use crate::casino::Rulebooks;

use crate::blackjack::{self, Game, Reshuffle, Table};
use crate::cards::{self, Card};
use crate::poker::{self, Category};
use crate::three_card;

/// Five-card hands from one 52-card deck: C(52, 5).
pub const FIVE_CARD_HANDS: u64 = 2_598_960;

/// How many of the 2,598,960 five-card hands fall in each category (docs/odds.md).
pub fn five_card_count(category: Category) -> u64 {
    match category {
        Category::RoyalFlush => 4,
        Category::StraightFlush => 36,
        Category::FourOfAKind => 624,
        Category::FullHouse => 3_744,
        Category::Flush => 5_108,
        Category::Straight => 10_200,
        Category::ThreeOfAKind => 54_912,
        Category::TwoPair => 123_552,
        Category::OnePair => 1_098_240,
        Category::HighCard => 1_302_540,
    }
}

/// Where a poker game's community cards come in its deal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Community {
    /// None: each seat's hand is its own five cards.
    None,
    /// Go Poker (AJ 2.3.5.3): the first community card after every seat's first card, the second
    /// after every seat's second card, then every seat's third card.
    AfterFirstAndSecondRound,
    /// Tripóquer joined to the other poker tables (Andalucía, Tripóquer IX.3): two cards common to
    /// every seat, drawn last, after the seats' and the banca's three cards.
    TwoLast,
}

/// How a poker game deals one round, as its rulebook says: from one 52-card deck, one card at a
/// time to each seat in turn and then to the croupier, until each holds its cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PokerDeal {
    pub game: &'static str,
    /// The most seats a round deals, each holding a side bet.
    pub seats: usize,
    /// Each seat's own cards.
    pub own: usize,
    pub community: Community,
    /// The croupier's (banca's) cards, dealt in turn after the last seat.
    pub croupier: usize,
    /// The articles the deal follows (docs/odds.md quotes them).
    pub articles: &'static str,
}

/// The poker games `odds` deals, in the order of [`POKER_GAMES`]. Every seat's side bet is judged on
/// five cards: its own five, or its own three and the two community cards.
pub const POKER_DEALS: [PokerDeal; 6] = [
    // IPLyC 15.1.2 ("los cinco primeros naipes que recibe el Apostador"), 15.13.1 (one at a time,
    // the Banca included, "hasta completar el juego de cinco unidades"); 16.3.1: "se ubicarán los
    // Apostadores, cinco en total".
    PokerDeal {
        game: "central-poker",
        seats: 5,
        own: 5,
        community: Community::None,
        croupier: 5,
        articles: "IPLyC 15.1.2, 15.13.1, 16.3.1",
    },
    // AJ 2.3.3.2, 2.3.5.1.4: five cards to each player and to the croupier; 7 players (2.3.4.2).
    PokerDeal {
        game: "caribbean-poker",
        seats: 7,
        own: 5,
        community: Community::None,
        croupier: 5,
        articles: "AJ 2.3.3.2, 2.3.4.2, 2.3.5.1.4, 2.5.5.1",
    },
    // AJ 2.3.3.4, 2.3.5.3: 3 own cards each and 2 community cards, no croupier hand; 7 players.
    PokerDeal {
        game: "go-poker",
        seats: 7,
        own: 3,
        community: Community::AfterFirstAndSecondRound,
        croupier: 0,
        articles: "AJ 2.3.3.4, 2.3.4.2, 2.3.5.3",
    },
    // AJ 2.3.3.1, 2.3.5.1.3: five cards to each player and to the croupier, then the change, which
    // leaves the progressive (2.5.5.1): the side bet is on the first five. 6 players (2.3.4.2).
    PokerDeal {
        game: "draw-poker",
        seats: 6,
        own: 5,
        community: Community::None,
        croupier: 5,
        articles: "AJ 2.3.3.1, 2.3.4.2, 2.3.5.1.3, 2.5.5.1",
    },
    // Andalucía, Póquer sin descarte VII.1.f: one at a time to each player "hasta reunir cinco
    // cartas ... hasta acabar dotándose a la banca igualmente de cinco naipes" (read as the banca
    // last in each turn; no seat's five depend on it); seven plazas (IV.1); the carrusel on the
    // player's cards (6.1).
    PokerDeal {
        game: "poker-sin-descarte",
        seats: 7,
        own: 5,
        community: Community::None,
        croupier: 5,
        articles: "Andalucía Póquer sin descarte IV.1, VII.1.f, 6.1",
    },
    // Andalucía, Tripóquer VI.6: three to each player and to the banca; IX.3: joined to the other
    // poker tables, two common cards drawn last make each player's five. Nine players (IV).
    PokerDeal {
        game: "tripoker",
        seats: 9,
        own: 3,
        community: Community::TwoLast,
        croupier: 3,
        articles: "Andalucía Tripóquer IV, VI.6, IX.3",
    },
];

/// The poker games `odds` deals (their deals: [`POKER_DEALS`]).
pub const POKER_GAMES: [&str; 6] =
    ["central-poker", "caribbean-poker", "go-poker", "draw-poker", "poker-sin-descarte", "tripoker"];

/// The deal of a poker game.
pub fn poker_deal(game: &str) -> Option<&'static PokerDeal> {
    POKER_DEALS.iter().find(|deal| deal.game == game)
}

/// One round of a poker game: what each seat, the table and the croupier received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PokerRound {
    /// Each seat's own cards, in the order received.
    pub own: Vec<Vec<Card>>,
    pub community: Vec<Card>,
    pub croupier: Vec<Card>,
}

impl PokerRound {
    /// The five cards a seat's side bet is judged on: its own, then the community cards.
    pub fn hand(&self, seat: usize) -> [Card; 5] {
        let mut hand = self.own[seat].iter().chain(&self.community).copied();
        std::array::from_fn(|_| hand.next().expect("five cards a seat"))
    }
}

impl PokerDeal {
    /// The community cards of a round.
    pub fn community_cards(&self) -> usize {
        match self.community {
            Community::None => 0,
            Community::AfterFirstAndSecondRound | Community::TwoLast => 2,
        }
    }

    /// The cards a round of `seats` seats takes from the deck.
    pub fn cards(&self, seats: usize) -> usize {
        seats * self.own + self.croupier + self.community_cards()
    }

    /// Deals a round of `seats` seats from the top of `deck` (`deck[0]` first), in the rulebook's
    /// order.
    pub fn deal(&self, seats: usize, deck: &[Card]) -> PokerRound {
        assert!(seats <= self.seats, "{} deals at most {} seats", self.game, self.seats);
        assert!(deck.len() >= self.cards(seats), "{} cards for a round of {seats} seats", self.cards(seats));
        let mut next = deck.iter().copied();
        let mut take = || next.next().expect("cards enough for the round");
        let mut round = PokerRound {
            own: vec![Vec::with_capacity(self.own); seats],
            community: Vec::with_capacity(self.community_cards()),
            croupier: Vec::with_capacity(self.croupier),
        };
        for turn in 0..self.own.max(self.croupier) {
            if turn < self.own {
                for cards in &mut round.own {
                    cards.push(take());
                }
            }
            if turn < self.croupier {
                round.croupier.push(take());
            }
            if self.community == Community::AfterFirstAndSecondRound && turn < 2 {
                round.community.push(take());
            }
        }
        if self.community == Community::TwoLast {
            round.community.push(take());
            round.community.push(take());
        }
        round
    }
}

/// Ordered pairs of disjoint five-card hands: two seats with five own cards each, C(52,5) · C(47,5).
pub const SEAT_PAIRS_OWN_FIVE: u64 = 2_598_960 * 1_533_939;

/// Two seats sharing two community cards, three own cards each: C(52,2) · C(50,3) · C(47,3).
pub const SEAT_PAIRS_THREE_PLUS_TWO: u64 = 1_326 * 19_600 * 16_215;

/// All the ways two seats of one round can be dealt: [`SEAT_PAIRS_THREE_PLUS_TWO`] when they share
/// community cards, else [`SEAT_PAIRS_OWN_FIVE`].
pub fn seat_pairs(shared_community: bool) -> u64 {
    if shared_community { SEAT_PAIRS_THREE_PLUS_TWO } else { SEAT_PAIRS_OWN_FIVE }
}

/// Of [`seat_pairs`], how many give both seats the category (the categories some pool pays; `None`
/// for the others). Counted by walking every hand (`tests/odds_pairs.rs`; docs/odds.md).
pub fn seat_pair_count(shared_community: bool, category: Category) -> Option<u64> {
    let (own_five, three_plus_two) = match category {
        Category::RoyalFlush => (OWN_FIVE_ROYAL, SHARED_ROYAL),
        Category::StraightFlush => (OWN_FIVE_STRAIGHT_FLUSH, SHARED_STRAIGHT_FLUSH),
        Category::FourOfAKind => (OWN_FIVE_FOUR, SHARED_FOUR),
        Category::FullHouse => (OWN_FIVE_FULL, SHARED_FULL),
        Category::Flush => (OWN_FIVE_FLUSH, SHARED_FLUSH),
        Category::Straight => (OWN_FIVE_STRAIGHT, SHARED_STRAIGHT),
        _ => return None,
    };
    Some(if shared_community { three_plus_two } else { own_five })
}

// Two seats with their own five cards each (Central, Caribbean, Draw, Póquer sin descarte): e.g.
// royal flushes 4 × 3 (two suits); straight flushes 36 × 35 less the 4 × 52 ordered pairs of one
// suit that overlap (two of the nine starts A–9 are disjoint only 5 or more apart).
const OWN_FIVE_ROYAL: u64 = 12;
const OWN_FIVE_STRAIGHT_FLUSH: u64 = 1_052;
const OWN_FIVE_FOUR: u64 = 295_152;
const OWN_FIVE_FULL: u64 = 10_048_896;
const OWN_FIVE_FLUSH: u64 = 19_852_668;
const OWN_FIVE_STRAIGHT: u64 = 63_665_904;
// Two seats sharing the two community cards (Go Poker, Tripóquer): two royal flushes would need
// the same three cards of one suit, so none.
const SHARED_ROYAL: u64 = 0;
const SHARED_STRAIGHT_FLUSH: u64 = 48;
const SHARED_FOUR: u64 = 2_496;
const SHARED_FULL: u64 = 1_928_160;
const SHARED_FLUSH: u64 = 2_838_136;
const SHARED_STRAIGHT: u64 = 9_944_664;

/// Ruleta Americana Poceada: one "hand" is one grillo series (3.1.2).
pub const ROULETTE: &str = "ruleta-americana";

/// One code's comparison, from its exact probability as a fraction.
// Statistics, not money.
#[allow(clippy::float_arithmetic)]
fn compare(code: &str, numerator: u64, denominator: u64, observed: u64, trials: u64) -> CodeOdds {
    let probability = numerator as f64 / denominator as f64;
    let n = trials as f64;
    let expected = n * probability;
    let standard_error = (n * probability * (1.0 - probability)).sqrt();
    CodeOdds {
        code: code.to_owned(),
        hands_of_2598960: 0,
        probability,
        observed,
        expected,
        standard_error,
        deviation_se: (observed as f64 - expected) / standard_error,
    }
}

/// Blackjack box-hands: rounds of [`blackjack::MAX_BOXES`] boxes (fewer in the last round) until
/// `hands` box-hands are dealt, each box's code counted against its exact probability
/// ([`blackjack::exact_odds`]). The table takes a new shoe every
/// [`blackjack::Rules::safe_rounds_per_shoe`] rounds, a decision that depends on no card, so each
/// box-hand's expected count is exactly its probability (with the cut card it is not quite:
/// docs/odds.md, the cut-card effect).
///
/// With `market`, the rounds are also played into the market's link (`mercado-blackjack`): each
/// box's bet registered, each code settled on its level ([`crate::market`]).
fn blackjack_odds(
    game: Game,
    hands: u64,
    seed: u64,
    progress: &indicatif::ProgressBar,
    plays: &mut [crate::market::Play],
) -> OddsReport {
    let mut table = Table::with_reshuffle(game, seed, Reshuffle::EveryRounds(game.rules().safe_rounds_per_shoe()));
    let seats: Vec<u32> = (1..=blackjack::MAX_BOXES as u32).collect();
    let mut observed = std::collections::BTreeMap::<&str, u64>::new();
    let (mut dealt, mut shown) = (0, 0);
    while dealt < hands {
        let boxes = (hands - dealt).min(seats.len() as u64) as usize;
        let prizes = table.play_round(&seats[..boxes]);
        for (_, code) in &prizes {
            *observed.entry(*code).or_default() += 1;
        }
        for play in plays.iter_mut() {
            play.round(boxes as u32, &prizes);
        }
        dealt += boxes as u64;
        advance(progress, &mut shown, dealt);
    }
    let codes: Vec<CodeOdds> = blackjack::exact_odds(game)
        .iter()
        .map(|exact| {
            let (numerator, denominator) = exact.fraction();
            compare(exact.code, numerator, denominator, observed.get(exact.code).copied().unwrap_or(0), hands)
        })
        .collect();
    let max_abs_deviation_se = codes.iter().map(|code| code.deviation_se.abs()).fold(0.0, f64::max);
    OddsReport {
        game: game.name().to_owned(),
        pool: game.pool().to_owned(),
        hands,
        seed,
        codes,
        max_abs_deviation_se,
        three_card_poker: None,
        market: None,
        link: None,
    }
}

/// Grillo series on the double-zero wheel: a bronze hit 3/38, a silver hit
/// 3/38 × 2/38, a gold hit 3/38 × 2/38 × 1/38 per series (docs/odds.md).
///
/// With `plays`, each series is also played into the cross-game link (`mercado-gran-sala`): its
/// bet registered at the press, each metal's hit settled when its ball falls (the bronze's grant,
/// the silver's fixed prize from the flor's Mini, the gold's Grand; 3.4.1).
fn roulette_odds(series: u64, seed: u64, progress: &indicatif::ProgressBar, plays: &mut [crate::market::Play]) -> OddsReport {
    let mut rng = cards::rng(seed);
    let (mut bronze, mut silver, mut gold, mut shown) = (0, 0, 0, 0);
    for played in 0..series {
        advance(progress, &mut shown, played);
        let played = crate::roulette::play_series(&mut rng);
        bronze += u64::from(played.bronze_hit);
        silver += u64::from(played.silver_hit);
        gold += u64::from(played.gold_hit);
        for play in plays.iter_mut() {
            play.round(1, if played.bronze_hit { &[(1, "GRILLO_BRONCE")] } else { &[] });
            for (hit, code) in [(played.silver_hit, "GRILLO_PLATA"), (played.gold_hit, "GRILLO_ORO")] {
                if hit {
                    play.round(0, &[(1, code)]);
                }
            }
        }
    }
    let codes = vec![
        compare("GRILLO_BRONCE", 3, 38, bronze, series),
        compare("GRILLO_PLATA", 3 * 2, 38 * 38, silver, series),
        compare("GRILLO_ORO", 3 * 2, 38 * 38 * 38, gold, series),
    ];
    let max_abs_deviation_se = codes.iter().map(|code| code.deviation_se.abs()).fold(0.0, f64::max);
    OddsReport {
        game: ROULETTE.to_owned(),
        pool: "iplyc-ruleta".to_owned(),
        hands: series,
        seed,
        codes,
        max_abs_deviation_se,
        three_card_poker: None,
        market: None,
        link: None,
    }
}

/// Poker seat-hands: rounds of `deal.seats` seats (fewer in the last round) until `hands` seats
/// are dealt, each round from a freshly shuffled 52-card deck in the rulebook's order, each seat's
/// five cards counted against the five-card probability. Every seat's five are five cards drawn at
/// random from 52, so N seats expect N·p; the seats of one round are not independent (one deck, and
/// in Go Poker and Tripóquer the same two community cards), so the standard error is that of the
/// sum of the rounds: each round of k seats has variance k·p(1 − p) + k(k − 1)(q − p²), q the
/// probability that two given seats of the round both make the category ([`seat_pair_count`]).
fn poker_odds(deal: &PokerDeal, hands: u64, seed: u64, progress: &indicatif::ProgressBar) -> OddsReport {
    let pool = poker::pool_of_game(deal.game).expect("every poker game has a pool");
    let mut rng = cards::rng(seed);
    let mut deck: Vec<Card> = cards::deck();
    let mut observed = std::collections::BTreeMap::<Category, u64>::new();
    // rounds[k]: the rounds dealt to k seats.
    let mut rounds = vec![0u64; deal.seats + 1];
    let (mut dealt, mut shown) = (0, 0);
    while dealt < hands {
        advance(progress, &mut shown, dealt);
        let seats = (hands - dealt).min(deal.seats as u64) as usize;
        // The top cards of a freshly shuffled deck, in order.
        let (top, _) = deck.partial_shuffle(&mut rng, deal.cards(seats));
        let round = deal.deal(seats, top);
        for seat in 0..seats {
            *observed.entry(poker::evaluate(&round.hand(seat)).category).or_default() += 1;
        }
        rounds[seats] += 1;
        dealt += seats as u64;
    }
    let shared = deal.community != Community::None;
    let mut codes = Vec::new();
    for category in Category::ALL {
        let Some(code) = poker::premio(pool, category) else { continue };
        let count = five_card_count(category);
        let pair = seat_pair_count(shared, category).expect("every paid category has its pair count");
        let seen = observed.get(&category).copied().unwrap_or(0);
        let mut odds = compare_seats(code, (count, FIVE_CARD_HANDS), (pair, seat_pairs(shared)), &rounds, seen, hands);
        odds.hands_of_2598960 = count;
        codes.push(odds);
    }
    let max_abs_deviation_se = codes.iter().map(|code| code.deviation_se.abs()).fold(0.0, f64::max);
    OddsReport {
        game: deal.game.to_owned(),
        pool: pool.to_owned(),
        hands,
        seed,
        codes,
        max_abs_deviation_se,
        three_card_poker: None,
        market: None,
        link: None,
    }
}

/// One code of seat-hands dealt in rounds: `single` its hands of all hands (p), `pair` the ordered
/// pairs of two seats of one round both making it of all such pairs (q); `rounds[k]` the rounds of
/// k seats. Each round of k seats has variance k·p(1 − p) + k(k − 1)(q − p²).
// Statistics, not money.
#[allow(clippy::float_arithmetic)]
fn compare_seats(code: &str, single: (u64, u64), pair: (u64, u64), rounds: &[u64], observed: u64, hands: u64) -> CodeOdds {
    let p = single.0 as f64 / single.1 as f64;
    let q = pair.0 as f64 / pair.1 as f64;
    let variance: f64 = rounds
        .iter()
        .enumerate()
        .map(|(k, &times)| {
            let k = k as f64;
            times as f64 * (k * p * (1.0 - p) + k * (k - 1.0) * (q - p * p))
        })
        .sum();
    let expected = hands as f64 * p;
    let standard_error = variance.sqrt();
    CodeOdds {
        code: code.to_owned(),
        hands_of_2598960: 0,
        probability: p,
        observed,
        expected,
        standard_error,
        deviation_se: (observed as f64 - expected) / standard_error,
    }
}

/// Three Card Poker seat-hands: rounds of [`three_card::SEATS`] seats (fewer in the last round)
/// until `hands` seats are dealt, each round from a freshly shuffled 52-card deck as 3.5.6–3.5.8
/// deal it, each seat's three cards judged by the market progressive (the highest code only) and
/// counted against its exact probability out of the 22,100 hands; the standard error sums the
/// rounds as for poker ([`three_card::seat_pair_count`]). The report carries the exact returns
/// ([`three_card::returns`], the meter at [`three_card::REFERENCE_METER_UNITS`]).
///
/// With `market`, the rounds are also played into the progressive's pool (`mercado-tcp`): every
/// seat's bet registered, the codes and their envy awards settled ([`crate::market`]).
fn three_card_odds(hands: u64, seed: u64, progress: &indicatif::ProgressBar, plays: &mut [crate::market::Play]) -> OddsReport {
    let mut rng = cards::rng(seed);
    let mut deck: Vec<Card> = cards::deck();
    let mut observed = std::collections::BTreeMap::<&str, u64>::new();
    let mut rounds = vec![0u64; three_card::SEATS + 1];
    let (mut dealt, mut shown) = (0, 0);
    while dealt < hands {
        advance(progress, &mut shown, dealt);
        let seats = (hands - dealt).min(three_card::SEATS as u64) as usize;
        let (top, _) = deck.partial_shuffle(&mut rng, three_card::cards(seats));
        let round = three_card::deal(seats, top);
        let mut prizes = Vec::new();
        for (seat, hand) in round.seats.iter().enumerate() {
            if let Some(code) = three_card::premio(hand) {
                *observed.entry(code).or_default() += 1;
                prizes.push((seat as u32 + 1, code));
            }
        }
        for play in plays.iter_mut() {
            play.round(seats as u32, &prizes);
        }
        rounds[seats] += 1;
        dealt += seats as u64;
    }
    let codes: Vec<CodeOdds> = three_card::PROGRESSIVE
        .iter()
        .map(|line| {
            let single = (three_card::premio_count(line.code), three_card::HANDS);
            let pair = (three_card::seat_pair_count(line.code), three_card::SEAT_PAIRS);
            compare_seats(line.code, single, pair, &rounds, observed.get(line.code).copied().unwrap_or(0), hands)
        })
        .collect();
    let max_abs_deviation_se = codes.iter().map(|code| code.deviation_se.abs()).fold(0.0, f64::max);
    OddsReport {
        game: three_card::GAME.to_owned(),
        pool: three_card::POOL.to_owned(),
        hands,
        seed,
        codes,
        max_abs_deviation_se,
        three_card_poker: Some(three_card::returns(three_card::REFERENCE_METER_UNITS)),
        market: None,
        link: None,
    }
}

#[derive(Debug, Serialize)]
pub struct CodeOdds {
    pub code: String,
    /// Hands in the paytable's category, out of 2,598,960 (0 for the grillo series, blackjack and
    /// Three Card Poker, whose counts out of 22,100 are in [`OddsReport::three_card_poker`]).
    pub hands_of_2598960: u64,
    pub probability: f64,
    pub observed: u64,
    pub expected: f64,
    pub standard_error: f64,
    /// (observed − expected) ÷ standard error.
    pub deviation_se: f64,
}

#[derive(Debug, Serialize)]
pub struct OddsReport {
    pub game: String,
    pub pool: String,
    pub hands: u64,
    pub seed: u64,
    pub codes: Vec<CodeOdds>,
    /// The largest |deviation| in standard errors.
    pub max_abs_deviation_se: f64,
    /// Three Card Poker only: the exact counts over the 22,100 hands and the returns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub three_card_poker: Option<three_card::Returns>,
    /// `--rulebooks market`: each level's hits and the example paytable's return ([`crate::market`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub market: Option<crate::market::Measured>,
    /// `--rulebooks market` at a game of the cross-game link (`mercado-gran-sala`): its levels'
    /// hits at the game and its return per unit of the game's bet ([`crate::market::LinkOdds`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<crate::market::LinkOdds>,
}

/// Deals `hands` hands for `game` (poker and Three Card Poker seat-hands dealt in rounds as the game
/// deals them, grillo series, or blackjack box-hands) from a seed and compares each premio code's frequency with its exact probability.
pub fn odds(game: &str, hands: u64, seed: u64) -> Result<OddsReport, String> {
    odds_with_progress(game, hands, seed, &indicatif::ProgressBar::hidden())
}

/// The hands between two moves of a progress bar: a bar moved per hand would cost as much
/// as the dealing.
const PROGRESS_STEP: u64 = 16_384;

/// Moves `progress` to `dealt` when it has gone [`PROGRESS_STEP`] hands since `*shown`.
fn advance(progress: &indicatif::ProgressBar, shown: &mut u64, dealt: u64) {
    if dealt >= *shown + PROGRESS_STEP {
        progress.set_position(dealt);
        *shown = dealt;
    }
}

/// [`odds`], moving `progress` (its length set to `hands`) as the hands are dealt.
pub fn odds_with_progress(game: &str, hands: u64, seed: u64, progress: &indicatif::ProgressBar) -> Result<OddsReport, String> {
    odds_on(game, Rulebooks::Regulations, hands, seed, progress)
}

/// [`odds_with_progress`] on `rulebooks`: on the market's, the game's hands are also played into
/// its example paytable (`blackjack` the four-level link, `three-card-poker` its progressive):
/// each level's hits against its exact odds, and the paytable's return ([`crate::market`]).
pub fn odds_on(
    game: &str,
    rulebooks: Rulebooks,
    hands: u64,
    seed: u64,
    progress: &indicatif::ProgressBar,
) -> Result<OddsReport, String> {
    progress.set_length(hands);
    let report = match rulebooks {
        Rulebooks::Regulations => odds_dealt(game, hands, seed, progress),
        Rulebooks::Market => market_odds(game, hands, seed, progress),
    };
    progress.set_position(hands);
    report
}

/// The pools of the market's paytables: (game, pool, seats in force each round).
const MARKET_PAYTABLES: [(&str, &str, u32); 2] = [
    ("blackjack", "mercado-blackjack", blackjack::MAX_BOXES as u32),
    (three_card::GAME, three_card::POOL, three_card::SEATS as u32),
];

/// The games of the cross-game link (`mercado-gran-sala`) and the seats in force each round.
const LINK_GAMES: [(&str, u32); 3] =
    [(ROULETTE, 1), ("blackjack", blackjack::MAX_BOXES as u32), (three_card::GAME, three_card::SEATS as u32)];

fn market_odds(game: &str, hands: u64, seed: u64, progress: &indicatif::ProgressBar) -> Result<OddsReport, String> {
    let own = MARKET_PAYTABLES.iter().find(|(name, _, _)| *name == game);
    let link = LINK_GAMES.iter().find(|(name, _)| *name == game);
    let (None, None) = (own, link) else {
        return market_odds_of(game, own.copied(), link.map(|(_, seats)| *seats), hands, seed, progress);
    };
    let games: Vec<&str> = MARKET_PAYTABLES.iter().map(|(name, _, _)| *name).collect();
    let link: Vec<&str> = LINK_GAMES.iter().map(|(name, _)| *name).collect();
    Err(format!(
        "--game {game} --rulebooks market: the market's paytables are played at {}, the cross-game link at {}",
        games.join(" and "),
        link.join(", ")
    ))
}

// Probabilities: statistics, not money.
#[allow(clippy::float_arithmetic)]
fn market_odds_of(
    game: &str,
    own: Option<(&str, &str, u32)>,
    link_seats: Option<u32>,
    hands: u64,
    seed: u64,
    progress: &indicatif::ProgressBar,
) -> Result<OddsReport, String> {
    if hands == 0 {
        return Err("--hands must be at least 1".to_owned());
    }
    let mut plays = Vec::new();
    if let Some((_, pool, _)) = own {
        plays.push(crate::market::Play::new(crate::market::rules(pool)?));
    }
    if link_seats.is_some() {
        let of = pozo_engine::Game::parse(game).map_err(|error| format!("--game {game}: {error}"))?;
        plays.push(crate::market::Play::at_game(of)?);
    }
    let mut report = if game == three_card::GAME {
        three_card_odds(hands, seed, progress, &mut plays)
    } else if game == ROULETTE {
        roulette_odds(hands, seed, progress, &mut plays)
    } else {
        blackjack_odds(Game::Blackjack, hands, seed, progress, &mut plays)
    };
    let probability = |code: &str| report.codes.iter().find(|odds| odds.code == code).map_or(0.0, |odds| odds.probability);
    let mut plays = plays.into_iter();
    if let Some((_, pool, seats)) = own {
        let play = plays.next().expect("the market's own paytable is played first");
        report.pool = pool.to_owned();
        report.market = Some(crate::market::Measured {
            levels: play.level_hits(&probability),
            paytable: play.paytable(&probability, seats)?,
        });
    }
    if let (Some(seats), Some(play)) = (link_seats, plays.next()) {
        // A code of the link is marked by every hand whose highest code the link pays is it.
        let of = pozo_engine::Game::parse(game).map_err(|error| format!("--game {game}: {error}"))?;
        let marks = crate::marks::Marks {
            rules: std::sync::Arc::new(crate::market::link_rules(of)?),
            game: of,
            bank: pozo_engine::Bank::default(),
        };
        let marked = |code: &str| {
            report
                .codes
                .iter()
                .filter(|odds| {
                    let dealt = crate::marks::also(&odds.code);
                    marks.first(dealt.iter().copied()) == Some(code)
                })
                .map(|odds| odds.probability)
                .sum::<f64>()
        };
        let link = play.link_odds(&marked, seats);
        if own.is_none() {
            report.pool = link.pool.clone();
        }
        report.link = Some(link);
    }
    Ok(report)
}

fn odds_dealt(game: &str, hands: u64, seed: u64, progress: &indicatif::ProgressBar) -> Result<OddsReport, String> {
    if hands == 0 {
        return Err("--hands must be at least 1".to_owned());
    }
    if game == ROULETTE {
        return Ok(roulette_odds(hands, seed, progress, &mut []));
    }
    if let Some(game) = Game::from_name(game) {
        return Ok(blackjack_odds(game, hands, seed, progress, &mut []));
    }
    if game == three_card::GAME {
        return Ok(three_card_odds(hands, seed, progress, &mut []));
    }
    if !POKER_GAMES.contains(&game) {
        return Err(format!(
            "--game {game}: odds are computed for {}, {}, {ROULETTE}, {}",
            POKER_GAMES.join(", "),
            three_card::GAME,
            Game::ALL.map(Game::name).join(", ")
        ));
    }
    let deal = poker_deal(game).expect("every poker game has a deal");
    Ok(poker_odds(deal, hands, seed, progress))
}
