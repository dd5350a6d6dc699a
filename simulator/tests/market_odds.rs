//! `pozo-sim odds --rulebooks market` (docs/odds.md, "The market's paytables"): the dealt hands
//! played into the market's example paytables (config/mercado.toml), each level's hits held
//! against its exact odds, and each paytable's return, exact and as played through the engine.

use std::process::Command;

use pozo_sim::casino::Rulebooks;
use pozo_sim::odds::odds_on;

const BIN: &str = env!("CARGO_BIN_EXE_pozo-sim");

/// Within this many standard errors (as `odds` holds the codes).
const TOLERANCE_SE: f64 = 4.0;

fn measured(game: &str, hands: u64) -> pozo_sim::market::Measured {
    let report = odds_on(game, Rulebooks::Market, hands, 11, &indicatif::ProgressBar::hidden()).expect("dealt");
    report.market.expect("the market's figures")
}

// Proves the link's four levels and the house's are hit as the blackjack odds say (300,000
// box-hands, seed 11), and that the link played through the engine returns what the rulebook's
// shares, resets and caps make of the exact odds, within what 300,000 bets can show (a Grand hit
// is 2,000 units of reset alone; the exact 22.08% is held in `market.rs`'s tests and measured at
// 22.09% over 100,000,000 box-hands, docs/odds.md).
#[test]
fn the_links_levels_are_hit_as_the_odds_say_and_return_what_the_rulebook_makes_of_them() {
    let market = measured("blackjack", 300_000);
    let names: Vec<&str> = market.levels.iter().map(|level| level.level.as_str()).collect();
    assert_eq!(names, ["Grand", "Major", "Minor", "Mini", "Pagado por la casa"]);
    assert_eq!(market.levels[0].codes, ["TRES_SIETES_CORAZONES"]);
    assert_eq!(market.levels[4].codes, ["DOBLE_10_11_MISMO_PALO", "BJ_AS_REY_MISMO_PALO"]);
    for level in &market.levels {
        assert!(level.deviation_se.abs() < TOLERANCE_SE, "{level:?}");
    }
    let paytable = &market.paytable;
    assert_eq!(paytable.pool, "mercado-blackjack");
    assert_eq!(paytable.bets, 300_000);
    assert!((0.2208..0.2209).contains(&paytable.exact_total), "{paytable:?}");
    assert!((paytable.measured - paytable.exact_total).abs() < 0.03, "{paytable:?}");
    // The Mini's overflow goes to a reserve no reset draws on: it only grows.
    let mini = &paytable.levels_after[3];
    assert_eq!(mini.0, "Mini");
    assert!(mini.2 > pozo_engine::Money::ZERO, "{mini:?}");
    assert!(paytable.never_drawn > 0.0);
}

// Proves Three Card Poker's meter and the house's prizes are hit as the exact counts say
// (300,000 seat-hands, seed 11), and its return at a full table — 15% of each bet, the reset of
// 5,000 units, the fixed prizes and the envy from each of five other seats — as played.
#[test]
fn three_card_pokers_meter_and_envy_are_hit_and_returned_as_the_counts_say() {
    let market = measured("three-card-poker", 300_000);
    assert_eq!(market.levels[0].level, "Mini Royal");
    assert_eq!(market.levels[0].codes, ["MINI_ROYAL_PICAS"]);
    assert_eq!(market.levels[1].codes, ["MINI_ROYAL", "ESCALERA_COLOR", "PIERNA"]);
    for level in &market.levels {
        assert!(level.deviation_se.abs() < TOLERANCE_SE, "{level:?}");
    }
    let paytable = &market.paytable;
    let exact = 0.15 + (5_000.0 + 8_500.0 + 5.0 * 175.0) / 22_100.0;
    assert!((paytable.exact_total - exact).abs() < 1e-12, "{paytable:?}");
    assert_eq!(paytable.seats_in_force, 6);
    assert!((paytable.measured - exact).abs() < 0.06, "{paytable:?}");
}

// Proves the binary prints the levels and the return, writes them to the JSON, and refuses a game
// the market's rulebooks have no paytable for.
#[test]
fn the_binary_prints_each_level_and_the_paytables_return() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let json = directory.path().join("link.json");
    let output = Command::new(BIN)
        .args(["odds", "--game", "blackjack", "--rulebooks", "market", "--hands", "70000", "--seed", "3", "--json"])
        .arg(&json)
        .output()
        .expect("pozo-sim runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.starts_with("blackjack (mercado-blackjack): 70000 hands, seed 3"), "{stdout}");
    for line in ["Grand ", "Major ", "Minor ", "Mini ", "Pagado por la casa "] {
        assert!(stdout.lines().any(|printed| printed.starts_with(line)), "{line}: {stdout}");
    }
    let exact = stdout.lines().find(|line| line.trim_start().starts_with("exact, in the long run")).expect("the exact return");
    assert!(exact.trim_end().ends_with("22.0842%"), "{exact}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("the JSON")).expect("JSON");
    assert_eq!(report["market"]["levels"].as_array().map(Vec::len), Some(5));
    assert!(report["market"]["paytable"]["exact_total"].as_f64().is_some_and(|total| (0.2208..0.2209).contains(&total)));

    assert_eq!(report["link"]["pool"], "mercado-gran-sala");
    assert!(stdout.contains("the cross-game link mercado-gran-sala at blackjack"), "{stdout}");

    let refused = Command::new(BIN)
        .args(["odds", "--game", "central-poker", "--rulebooks", "market", "--hands", "10"])
        .output()
        .expect("pozo-sim runs");
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains(
            "the market's paytables are played at blackjack and three-card-poker, the cross-game link at ruleta-americana, \
             blackjack, three-card-poker"
        ),
        "{stderr}"
    );
}

fn link(game: &str, hands: u64) -> pozo_sim::market::LinkOdds {
    let report = odds_on(game, Rulebooks::Market, hands, 11, &indicatif::ProgressBar::hidden()).expect("dealt");
    report.link.expect("the cross-game link's figures")
}

// Proves the cross-game link (`mercado-gran-sala`) is measured at each of its games: its Grand,
// the flor's Major and Mini hit as the exact odds of the codes the game marks say (three sevens
// of one suit are the link's "Tres sietes", a Mini Royal of hearts its "Escalera de color"), and
// its return per unit of the game's own bet: exact at Black Jack and Three Card Poker from the
// shares (6 + 1, 4 and 3 per cent) and the resets (5,000,000, 100,000, 10,000) over the game's
// bet; measured only at roulette, whose Grillo de Plata is a fixed prize from the Mini's meter.
#[test]
fn the_cross_game_link_is_hit_and_returns_at_each_game_as_its_codes_say() {
    let blackjack = link("blackjack", 300_000);
    let names: Vec<&str> = blackjack.levels.iter().map(|level| level.level.as_str()).collect();
    assert_eq!(names, ["Grand", "Major", "Mini"]);
    assert_eq!(blackjack.levels[2].codes, ["TRES_SIETES"]);
    let odds = |code: &str| {
        let exact = pozo_sim::blackjack::exact_odds(pozo_sim::blackjack::Game::Blackjack);
        let (numerator, denominator) = exact.iter().find(|exact| exact.code == code).expect(code).fraction();
        numerator as f64 / denominator as f64
    };
    assert!((blackjack.levels[2].probability - odds("TRES_SIETES") - odds("TRES_SIETES_MISMO_PALO")).abs() < 1e-15);
    let paytable = blackjack.paytable.as_ref().expect("read exactly at Black Jack");
    // The mystery level (2 %, reset 20.000,00, ceiling 60.000,00: a hit every 40.000,01 / 2 of its
    // meter's growth, on average): its share, the house's reset at each hit, and the hot seat's
    // 10.000,00 (docs/readings.md, "The mystery level"), the same per unit of every game's bet.
    let mystery = 0.02 + 2.0 * 0.02 * (20_000.0 + 10_000.0) / 40_000.01;
    let exact = 0.13
        + mystery
        + 5_000.0 * odds("TRES_SIETES_CORAZONES")
        + 100.0 * odds("CUATRO_ASES")
        + 10.0 * (odds("TRES_SIETES") + odds("TRES_SIETES_MISMO_PALO"));
    assert!((paytable.exact_total - exact).abs() < 1e-12, "{paytable:?}");
    assert_eq!(blackjack.side_bet, pozo_engine::Money::from(1000));

    let three_card = link("three-card-poker", 300_000);
    assert_eq!(
        three_card.levels.iter().map(|level| level.codes.concat()).collect::<Vec<_>>(),
        ["MINI_ROYAL_PICAS", "ESCALERA_COLOR", "PIERNA"]
    );
    // 47 straight flushes (the Mini Royals of hearts, diamonds and clubs among them), 52 tríos.
    assert!((three_card.levels[1].probability - 47.0 / 22_100.0).abs() < 1e-15);
    let paytable = three_card.paytable.as_ref().expect("read exactly at Three Card Poker");
    let exact = 0.13 + mystery + (10_000.0 + 200.0 * 47.0 + 20.0 * 52.0) / 22_100.0;
    assert!((paytable.exact_total - exact).abs() < 1e-12, "{paytable:?}");
    assert!(paytable.exact_total > 1.0, "the example's Major pays 200 units 1 hand in 470: over 100%");

    let roulette = link("ruleta-americana", 300_000);
    let names: Vec<&str> = roulette.levels.iter().map(|level| level.level.as_str()).collect();
    assert_eq!(names, ["Grand", "Mini"], "no Major at roulette");
    assert!(roulette.paytable.is_none() && roulette.measured_only.as_deref().is_some_and(|why| why.contains("GRILLO_PLATA")));
    assert!(roulette.measured > 0.13, "{roulette:?}");
    for level in blackjack.levels.iter().chain(&three_card.levels).chain(&roulette.levels) {
        assert!(level.deviation_se.abs() < TOLERANCE_SE, "{level:?}");
    }
}
