//! `pozo-sim odds --game three-card-poker`: the market progressive's codes dealt as seed 003's
//! procedures deal a round, within 4 standard errors at a fixed seed, and the exact returns in the
//! report (docs/odds.md, "Three Card Poker (seed 003) and its market progressive").

use std::process::Command;

use pozo_sim::odds::{odds, odds_with_progress};
use pozo_sim::three_card;

#[test]
fn three_card_poker_stays_within_4_standard_errors_at_a_fixed_seed() {
    let report = odds(three_card::GAME, 300_000, 11).expect("three-card-poker has odds");
    assert_eq!((report.game.as_str(), report.pool.as_str(), report.hands), (three_card::GAME, three_card::POOL, 300_000));
    let codes: Vec<&str> = report.codes.iter().map(|code| code.code.as_str()).collect();
    assert_eq!(codes, ["MINI_ROYAL_PICAS", "MINI_ROYAL", "ESCALERA_COLOR", "PIERNA"]);
    for (code, hands) in report.codes.iter().zip([1, 3, 44, 52]) {
        assert_eq!(code.probability, hands as f64 / 22_100.0, "{}", code.code);
        assert!(
            code.deviation_se.abs() <= 4.0,
            "{}: {:.2} SE ({} observed, {:.1} expected)",
            code.code,
            code.deviation_se,
            code.observed,
            code.expected
        );
    }
    let returns = report.three_card_poker.expect("the exact returns");
    assert_eq!(returns, three_card::returns(three_card::REFERENCE_METER_UNITS));
    assert_eq!(returns.progressive.over(returns.hands), 13_500);
    assert!(odds("go-poker", 10, 1).expect("go-poker").three_card_poker.is_none());
}

/// Seats of one round are dealt from one deck: a seat's three of a kind leaves the other seats 12
/// whole ranks of 49 cards, so two seats make `PIERNA` together a little more often than
/// independent seats would (q / p² ≈ 1.11) and its standard error is wider than the binomial one;
/// two seats cannot both hold the one A-K-Q of picas, and its standard error is narrower.
// Statistics, not money.
#[allow(clippy::float_arithmetic)]
#[test]
fn the_standard_error_counts_the_seats_of_a_round_together() {
    let report = odds(three_card::GAME, 60_000, 3).expect("three-card-poker has odds");
    for code in &report.codes {
        let binomial = (60_000.0 * code.probability * (1.0 - code.probability)).sqrt();
        let ratio = code.standard_error / binomial;
        match code.code.as_str() {
            "PIERNA" | "ESCALERA_COLOR" => assert!(ratio > 1.0, "{}: {ratio}", code.code),
            _ => assert!(ratio < 1.0, "{}: {ratio}", code.code),
        }
        assert!((ratio - 1.0).abs() < 0.01, "{}: {ratio}", code.code);
    }
}

#[test]
fn the_progress_bar_reaches_every_hand_and_changes_no_count() {
    let hands = 40_001;
    let bar = indicatif::ProgressBar::hidden();
    let with = odds_with_progress(three_card::GAME, hands, 5, &bar).expect("three-card-poker has odds");
    let without = odds(three_card::GAME, hands, 5).expect("three-card-poker has odds");
    assert_eq!((bar.position(), bar.length()), (hands, Some(hands)));
    let observed = |report: &pozo_sim::odds::OddsReport| report.codes.iter().map(|code| code.observed).collect::<Vec<_>>();
    assert_eq!(observed(&with), observed(&without));
}

#[test]
fn the_command_prints_and_writes_the_exact_returns() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let json = directory.path().join("odds.json");
    let output = Command::new(env!("CARGO_BIN_EXE_pozo-sim"))
        .args(["odds", "--game", "three-card-poker", "--hands", "50000", "--seed", "3", "--json"])
        .arg(&json)
        .output()
        .expect("pozo-sim runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8_lossy(&output.stdout);
    for words in ["MINI_ROYAL_PICAS", "PIERNA", "(1 × meter + 8500) / 22100 = 61.09% at 5000 units", "20492/22100 = 92.72%"] {
        assert!(text.contains(words), "{words} in {text}");
    }
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("json written")).expect("JSON");
    let returns = &report["three_card_poker"];
    assert_eq!(returns["hands"], 22_100);
    assert_eq!(returns["categories"][0], serde_json::json!({"name": "straight flush", "hands": 48}));
    assert_eq!(returns["codes"][0], serde_json::json!({"name": "MINI_ROYAL_PICAS", "hands": 1}));
    assert_eq!(returns["progressive_fixed_units"], 8_500);
    assert_eq!(returns["envy_per_other_seat"]["numerator"], 7);
    assert_eq!(returns["envy_per_other_seat"]["denominator"], 884);
    assert_eq!(returns["pair_plus"]["numerator"], 5_123);
    assert_eq!(returns["pair_plus"]["denominator"], 5_525);
}
