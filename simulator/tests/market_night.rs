//! A night on the market's progressives (`pozo-sim run --rulebooks market`: config/mercado.toml
//! beside the IPLyC roulette, docs/simulator.md): Three Card Poker dealt at the CP tables, Black
//! Jack on the four-level link at the B tables, through real agents and the real controller,
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

// Proves a market night closes its books level by level: seed 1's 40 rounds at 12 tables pay the
// Three Card Poker meter (the Mini Royal of picas, whole, through Venta-Pagos) with the envy bonus
// to each of the five other seats in force, the link's Mini and the house's fixed prizes, each the
// amount the engine settles on the simulator's count of the levels; every level of both pools ties
// to zero on the journal replayed and holds what the simulator counted; and the recorded night
// replays to the same books.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_market_night_ties_every_level_and_pays_the_meter_the_envy_and_the_house() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let record = directory.path().join("market.jsonl");
    let report = night::run(RunOptions { record: Some(record.clone()), ..market(12, 40, 1) }).await.expect("a night");
    assert_eq!(report.books, "ok", "{:?}", report.differences);
    assert_eq!(report.level_books, "ok", "{:?}", report.differences);
    assert_eq!((report.verify.as_str(), report.reconciliation.as_str()), ("ok", "ok"));
    assert_eq!(report.rulebooks, "market");
    let hits = |code: &str| report.codes.get(code).map_or(0, |books| books.hits);
    assert_eq!(hits("MINI_ROYAL_PICAS"), 1, "{:?}", report.codes);
    // Every seat bets (100%): the five other seats of the six are in force.
    assert_eq!(hits("ENVIDIA_MINI_ROYAL_PICAS"), 5, "{:?}", report.codes);
    assert_eq!(report.codes["ENVIDIA_MINI_ROYAL_PICAS"].amount, Money::from(250_000), "5 × 50,000 (config/mercado.toml)");
    assert!(hits("TRES_SIETES") >= 1 && hits("BJ_AS_REY_MISMO_PALO") >= 1 && hits("PIERNA") >= 1, "{:?}", report.codes);

    // The link: four levels and the house's, each on its own books.
    let link = &report.levels["mercado-blackjack"];
    let names: Vec<&str> = link.iter().map(|level| level.name.as_str()).collect();
    assert_eq!(&names[..4], ["Grand", "Major", "Minor", "Mini"]);
    assert!(link[4].house && link[..4].iter().all(|level| !level.house));
    assert!(link.iter().all(|level| level.difference.is_zero()), "{link:?}");
    // The Mini was won (whole) and reset; the house paid its fixed prizes, holding nothing.
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
    assert_eq!(pools, ["iplyc-ruleta", "mercado-blackjack", "mercado-tcp"]);
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
