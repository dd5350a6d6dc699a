//! Hit frequencies: each premio code's observed frequency against its exact
//! probability, with the deviation in standard errors. docs/odds.md derives the
//! probabilities.

use rand::seq::SliceRandom;
use serde::Serialize;

use crate::blackjack::{self, Game, Reshuffle, Table};
use crate::cards::{self, Card};
use crate::poker::{self, Category};

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

/// The games whose side bet is judged on five cards dealt from one deck: the
/// player's first five (Central Póker 15.1.2, Caribbean, Draw before the change,
/// Póquer sin descarte) or 3 own + 2 community (Go Poker, AJ 2.3.5.3) — either way
/// five cards drawn at random from 52.
pub const POKER_GAMES: [&str; 5] = ["central-poker", "caribbean-poker", "go-poker", "draw-poker", "poker-sin-descarte"];

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
fn blackjack_odds(game: Game, hands: u64, seed: u64) -> OddsReport {
    let mut table = Table::with_reshuffle(game, seed, Reshuffle::EveryRounds(game.rules().safe_rounds_per_shoe()));
    let seats: Vec<u32> = (1..=blackjack::MAX_BOXES as u32).collect();
    let mut observed = std::collections::BTreeMap::<&str, u64>::new();
    let mut dealt = 0;
    while dealt < hands {
        let boxes = (hands - dealt).min(seats.len() as u64) as usize;
        for (_, code) in table.play_round(&seats[..boxes]) {
            *observed.entry(code).or_default() += 1;
        }
        dealt += boxes as u64;
    }
    let codes: Vec<CodeOdds> = blackjack::exact_odds(game)
        .iter()
        .map(|exact| {
            let (numerator, denominator) = exact.fraction();
            compare(exact.code, numerator, denominator, observed.get(exact.code).copied().unwrap_or(0), hands)
        })
        .collect();
    let max_abs_deviation_se = codes.iter().map(|code| code.deviation_se.abs()).fold(0.0, f64::max);
    OddsReport { game: game.name().to_owned(), pool: game.pool().to_owned(), hands, seed, codes, max_abs_deviation_se }
}

/// Grillo series on the double-zero wheel: a bronze hit 3/38, a silver hit
/// 3/38 × 2/38, a gold hit 3/38 × 2/38 × 1/38 per series (docs/odds.md).
fn roulette_odds(series: u64, seed: u64) -> OddsReport {
    let mut rng = cards::rng(seed);
    let (mut bronze, mut silver, mut gold) = (0, 0, 0);
    for _ in 0..series {
        let played = crate::roulette::play_series(&mut rng);
        bronze += u64::from(played.bronze_hit);
        silver += u64::from(played.silver_hit);
        gold += u64::from(played.gold_hit);
    }
    let codes = vec![
        compare("GRILLO_BRONCE", 3, 38, bronze, series),
        compare("GRILLO_PLATA", 3 * 2, 38 * 38, silver, series),
        compare("GRILLO_ORO", 3 * 2, 38 * 38 * 38, gold, series),
    ];
    let max_abs_deviation_se = codes.iter().map(|code| code.deviation_se.abs()).fold(0.0, f64::max);
    OddsReport { game: ROULETTE.to_owned(), pool: "iplyc-ruleta".to_owned(), hands: series, seed, codes, max_abs_deviation_se }
}

#[derive(Debug, Serialize)]
pub struct CodeOdds {
    pub code: String,
    /// Hands in the paytable's category, out of 2,598,960 (0 for the grillo series and blackjack).
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
}

/// Deals `hands` hands for `game` (five-card hands, grillo series, or blackjack box-hands)
/// from a seed and compares each premio code's frequency with its exact probability.
// Statistics, not money: floats are right here.
#[allow(clippy::float_arithmetic)]
pub fn odds(game: &str, hands: u64, seed: u64) -> Result<OddsReport, String> {
    if hands == 0 {
        return Err("--hands must be at least 1".to_owned());
    }
    if game == ROULETTE {
        return Ok(roulette_odds(hands, seed));
    }
    if let Some(game) = Game::from_name(game) {
        return Ok(blackjack_odds(game, hands, seed));
    }
    if !POKER_GAMES.contains(&game) {
        return Err(format!(
            "--game {game}: odds are computed for {}, {ROULETTE}, {}",
            POKER_GAMES.join(", "),
            Game::ALL.map(Game::name).join(", ")
        ));
    }
    let pool = poker::pool_of_game(game).expect("every poker game has a pool");
    let mut rng = cards::rng(seed);
    let mut deck: Vec<Card> = cards::deck();
    let mut observed = std::collections::BTreeMap::<Category, u64>::new();
    for _ in 0..hands {
        // Five cards drawn without replacement: a fresh deck each hand.
        let (chosen, _) = deck.partial_shuffle(&mut rng, 5);
        let hand: [Card; 5] = [chosen[0], chosen[1], chosen[2], chosen[3], chosen[4]];
        *observed.entry(poker::evaluate(&hand).category).or_default() += 1;
    }
    let n = hands as f64;
    let mut codes = Vec::new();
    for category in Category::ALL {
        let Some(code) = poker::premio(pool, category) else { continue };
        let count = five_card_count(category);
        let probability = count as f64 / FIVE_CARD_HANDS as f64;
        let expected = n * probability;
        let standard_error = (n * probability * (1.0 - probability)).sqrt();
        let seen = observed.get(&category).copied().unwrap_or(0);
        let deviation_se = (seen as f64 - expected) / standard_error;
        codes.push(CodeOdds {
            code: code.to_owned(),
            hands_of_2598960: count,
            probability,
            observed: seen,
            expected,
            standard_error,
            deviation_se,
        });
    }
    let max_abs_deviation_se = codes.iter().map(|code| code.deviation_se.abs()).fold(0.0, f64::max);
    Ok(OddsReport { game: game.to_owned(), pool: pool.to_owned(), hands, seed, codes, max_abs_deviation_se })
}
