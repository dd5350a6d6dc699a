//! A night on the market's progressives (`pozo-sim run --rulebooks market`: config/mercado.toml
//! beside the IPLyC roulette, docs/simulator.md): Three Card Poker dealt at the CP tables, Black
//! Jack on the four-level link at the B tables, the cross-game link `mercado-gran-sala` at the
//! LR, LB and LCP tables, through real agents and the real controller,
//! every award checked against the engine's settlement on the simulator's own count of each level,
//! and every level tied to zero on the journal replayed.

use std::process::Command;

use pozo_engine::Money;
use pozo_sim::casino::Rulebooks;
use pozo_sim::night::{self, Pace, RunOptions};

const BIN: &str = env!("CARGO_BIN_EXE_pozo-sim");

fn market(tables: usize, rounds: u32, seed: u64) -> RunOptions {
    RunOptions {
        tables,
        rounds,
        seed,
        server: None,
        layout: None,
        keys: None,
        bet_percent: 100,
        record: None,
        progress: false,
        rulebooks: Rulebooks::Market,
    }
}

// Proves a market night closes its books level by level: seed 1396's 40 rounds at 12 tables pay
// the Three Card Poker meter (the Mini Royal of picas at CP1, whole, through Venta-Pagos) with the
// envy bonus to each of the five other seats in force, the link's Mini and the house's fixed
// prizes, each the amount the engine settles on the simulator's count of the levels; and the
// cross-game link `mercado-gran-sala` (LR, LB and LCP tables in flores F1–F3): its Grand won by a
// Mini Royal of picas at LCP1, the Major of F3 by a straight flush at LCP2, the Mini of F2 by a
// trío at LCP1, the roulettes' grillos on the Minis of F1 and F3, each flor's meters fed by its
// own tables only at each game's own bet. Every level of every pool, each flor's meters on their
// own, ties to zero on the journal replayed and holds what the simulator counted; and the
// recorded night replays to the same books.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_market_night_ties_every_level_and_pays_the_meter_the_envy_and_the_house() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let record = directory.path().join("market.jsonl");
    let started = std::time::Instant::now();
    let report = night::run(RunOptions { record: Some(record.clone()), ..market(12, 40, 1396) }).await.expect("a night");
    println!("a market night of 12 tables × 40 rounds, seed 1396: {:.1} s", started.elapsed().as_secs_f64());
    assert_eq!(report.books, "ok", "{:?}", report.differences);
    assert_eq!(report.level_books, "ok", "{:?}", report.differences);
    assert_eq!((report.verify.as_str(), report.reconciliation.as_str()), ("ok", "ok"));
    assert_eq!(report.rulebooks, "market");
    let hits = |code: &str| report.codes.get(code).map_or(0, |books| books.hits);
    // One Mini Royal of picas at CP1 (the progressive's meter), one at LCP1 (the link's Grand).
    assert_eq!(hits("MINI_ROYAL_PICAS"), 2, "{:?}", report.codes);
    // Every seat bets (100%): the five other seats of the six are in force; the link has no envy.
    assert_eq!(hits("ENVIDIA_MINI_ROYAL_PICAS"), 5, "{:?}", report.codes);
    assert_eq!(report.codes["ENVIDIA_MINI_ROYAL_PICAS"].amount, Money::from(250_000), "5 × 50,000 (config/mercado.toml)");
    assert!(hits("TRES_SIETES") >= 1 && hits("BJ_AS_REY_MISMO_PALO") >= 1 && hits("PIERNA") >= 1, "{:?}", report.codes);

    // The link: four levels and the house's, each on its own books.
    let link = &report.levels["mercado-blackjack"];
    let names: Vec<&str> = link.iter().map(|level| level.name.as_str()).collect();
    assert_eq!(&names[..4], ["Grand", "Major", "Minor", "Mini"]);
    assert!(link[4].house && link[..4].iter().all(|level| !level.house));
    assert!(link.iter().all(|level| level.difference.is_zero()), "{link:?}");
    // The Mini was won (whole) and reset (no Black Jack table of the cross-game link made three
    // sevens this night); the house paid its fixed prizes, holding nothing (the link's Black
    // Jack tables mark neither fixed prize: the cross-game link pays none).
    assert_eq!(link[3].hits, hits("TRES_SIETES"));
    assert_eq!(link[4].hits, hits("BJ_AS_REY_MISMO_PALO") + hits("DOBLE_10_11_MISMO_PALO"));
    assert_eq!(link[4].awards, link[4].replenishments, "the house's level pays with the house's money");
    assert_eq!((link[4].balance, link[4].reserve), (Money::ZERO, Money::ZERO));
    // Each level's share of every bet (config/mercado.toml: 8 + 2, 5, 3, 2 per cent of 1,000).
    let bets = report.pools["mercado-blackjack"].bets as i64;
    let shares = [100, 50, 30, 20].map(|share| Money::from_cents(bets * share * 100));
    let fed: Vec<Money> = link[..4].iter().map(|level| level.contributions).collect();
    // Caps move shares up (never reached on a fresh night): each level its own share here.
    assert_eq!(fed, shares, "{link:?}");

    // Three Card Poker: the meter paid whole and back at its reset plus what came after; the
    // envy and the fixed prizes the house's.
    let tcp = &report.levels["mercado-tcp"];
    assert_eq!((tcp[0].name.as_str(), tcp[0].hits), ("Mini Royal", 1));
    assert!(tcp[1].house && tcp[1].awards == tcp[1].replenishments && tcp[1].awards >= Money::from(250_000));
    assert!(tcp.iter().all(|level| level.difference.is_zero()), "{tcp:?}");

    // The cross-game link: one Grand, a Major and a Mini per flor, each meter on its own books.
    let sala = &report.levels["mercado-gran-sala"];
    let names: Vec<&str> = sala.iter().map(|level| level.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Grand",
            "Major · F1",
            "Major · F2",
            "Major · F3",
            "Mini · F1",
            "Mini · F2",
            "Mini · F3",
            "Misterioso",
            "Pagado por la casa"
        ]
    );
    assert!(sala.iter().all(|level| level.difference.is_zero()), "{sala:?}");
    let level = |name: &str| sala.iter().find(|level| level.name == name).expect(name);
    // The mystery level (docs/readings.md, "The mystery level"): each hit paid its trigger, above
    // the reset (20.000,00) and never above the ceiling (60.000,00); the hot seats the house's.
    let mystery = level("Misterioso");
    assert!(mystery.hits >= 1, "the night hits the mystery level: {mystery:?}");
    let hits = rust_decimal::Decimal::from(mystery.hits);
    assert!(mystery.awards > Money::from(20_000) * hits && mystery.awards <= Money::from(60_000) * hits, "{mystery:?}");
    let house = level("Pagado por la casa");
    assert!(house.awards >= Money::from(10_000) * hits, "a hot seat of 10.000,00 at each hit: {house:?}");
    assert_eq!(level("Grand").hits, 1, "the Mini Royal of picas at LCP1: {sala:?}");
    assert!(level("Grand").awards >= Money::from(5_000_000), "the Grand whole, from its reset up");
    assert_eq!((level("Major · F3").hits, level("Major · F1").hits, level("Major · F2").hits), (1, 0, 0));
    assert_eq!(level("Mini · F2").hits, 1, "the trío at LCP1");
    assert!(level("Mini · F1").hits > 0 && level("Mini · F3").hits > 0, "the roulettes' grillos: {sala:?}");
    // Each flor's meters are fed by its own tables, 4% and 3% of their bets: together the link's
    // 4% and 3% of every bet, each game at its own (3,000 roulette, 1,000 Black Jack, 500 Three
    // Card Poker), F2's two tables fed less than F3's three.
    let pool = &report.pools["mercado-gran-sala"];
    let share = |rate: i64| pool.bets_amount * rust_decimal::Decimal::new(rate, 2);
    let majors: Money = ["F1", "F2", "F3"].map(|flor| level(&format!("Major · {flor}")).contributions).into_iter().sum();
    let minis: Money = ["F1", "F2", "F3"].map(|flor| level(&format!("Mini · {flor}")).contributions).into_iter().sum();
    assert_eq!((majors, minis), (share(4), share(3)), "{sala:?}");
    for flor in ["F1", "F2", "F3"] {
        let (major, mini) = (level(&format!("Major · {flor}")), level(&format!("Mini · {flor}")));
        assert_eq!(major.contributions * rust_decimal::Decimal::from(3), mini.contributions * rust_decimal::Decimal::from(4));
    }
    assert!(level("Major · F2").contributions < level("Major · F3").contributions);
    assert_ne!(pool.bets_amount, Money::from(1000) * rust_decimal::Decimal::from(pool.bets), "each game its own bet");

    let replayed = night::replay(&record, Pace::Fast, None).await.expect("a replay");
    assert!(replayed.same_books, "{} ≠ {}", replayed.night.books_sha256, replayed.recorded_books_sha256);
    assert_eq!(replayed.night.level_books, "ok", "{:?}", replayed.night.differences);
    assert_eq!(replayed.night.levels, report.levels, "the same levels again");
}

// Proves the market's casino is another casino: the same seed on the regulations' rulebooks
// plays other pools; and that a night on pools with levels refuses a running controller, whose
// levels no report gives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_market_night_is_its_own_casino_and_refuses_a_running_controller() {
    let short = night::run(market(6, 2, 3)).await.expect("a night");
    assert_eq!((short.books.as_str(), short.level_books.as_str()), ("ok", "ok"), "{:?}", short.differences);
    let pools: Vec<&str> = short.pools.keys().map(String::as_str).collect();
    assert_eq!(pools, ["iplyc-ruleta", "mercado-blackjack", "mercado-gran-sala", "mercado-tcp"]);
    let regulations = night::run(RunOptions { rulebooks: Rulebooks::Regulations, ..market(6, 2, 3) }).await.expect("a night");
    assert_eq!(regulations.level_books, "no pool with levels");
    assert!(regulations.levels.is_empty() && !regulations.pools.contains_key("mercado-tcp"));

    let error = night::run(RunOptions { server: Some("http://127.0.0.1:1".into()), ..market(6, 1, 1) })
        .await
        .expect_err("a running controller");
    assert!(error.to_string().contains("plays on its own embedded controller"), "{error:#}");
    let refused = Command::new(BIN)
        .args(["run", "--rulebooks", "market", "--server", "http://127.0.0.1:1"])
        .output()
        .expect("pozo-sim runs");
    assert_eq!(refused.status.code(), Some(2), "{}", String::from_utf8_lossy(&refused.stderr));
}

// Proves the binary prints each level under its pool and writes the levels' books to the JSON.
#[test]
fn the_binary_prints_every_level_and_writes_the_level_books() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let json = directory.path().join("market.json");
    let output = Command::new(BIN)
        .args(["run", "--rulebooks", "market", "--tables", "3", "--rounds", "2", "--seed", "5", "--json"])
        .arg(&json)
        .output()
        .expect("pozo-sim runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    for level in ["  Grand", "  Major", "  Minor", "  Mini ", "  Mini Royal", "  Pagado por la casa"] {
        assert!(stdout.lines().any(|line| line.starts_with(level)), "{level}: {stdout}");
    }
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("the JSON")).expect("JSON");
    assert_eq!(report["level_books"], "ok");
    assert_eq!(report["rulebooks"], "market");
    assert_eq!(report["levels"]["mercado-blackjack"].as_array().map(Vec::len), Some(5));
    for level in report["levels"]["mercado-blackjack"].as_array().into_iter().flatten() {
        let difference: rust_decimal::Decimal = level["difference"].as_str().expect("an amount").parse().expect("a decimal");
        assert!(difference.is_zero(), "{level}");
    }
}
