//! The table agent at a pool with levels (docs/readings.md, "Levels"; docs/agent.md): a real
//! controller on 127.0.0.1:0 with the market's example layout and rulebooks
//! (`config/examples/mercado-casino.toml`, `config/iplyc.toml`, `config/mercado.toml`) and the
//! agent's library on channels. B1 plays the four-level Black Jack link `mercado-blackjack`;
//! R1 the regulations' roulette pool, of one level.

mod common;

use common::*;
use pozo_server::config::{Config, KEYS_EMBEDDED};
use serde_json::{Value, json};

/// The market's example layout, rulebooks and the example keys (as server/tests/market.rs).
fn mercado() -> Config {
    let texts = [
        ("config/examples/mercado-casino.toml", include_str!("../../config/examples/mercado-casino.toml")),
        ("config/iplyc.toml", include_str!("../../config/iplyc.toml")),
        ("config/mercado.toml", include_str!("../../config/mercado.toml")),
    ];
    let texts = texts.iter().map(|(name, text)| ((*name).to_owned(), (*text).to_owned())).collect();
    Config::from_texts(texts).and_then(|config| config.with_keys(KEYS_EMBEDDED.0, KEYS_EMBEDDED.1)).expect("the market's example")
}

fn prize<'a>(prizes: &'a Value, code: &str) -> &'a Value {
    prizes["prizes"]
        .as_array()
        .and_then(|list| list.iter().find(|prize| prize["code"] == code))
        .unwrap_or_else(|| panic!("{code} in {prizes}"))
}

// Proves the agent speaks levels: at B1 its panel carries the four meters of
// `mercado-blackjack`, first level first, each opening at its reset as config/mercado.toml
// writes it, and its `prizes` line says each prize's level and what it pays (the house's
// fixed prize paid by the house); at R1, a pool of one level, neither appears.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_prints_each_levels_meter_and_what_each_prize_pays() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let start = pozo_server::Embedded::start(mercado(), directory.path(), Default::default());
    let server = tokio::time::timeout(WAIT, start).await.expect("the server starts in time").expect("the server started");

    let mut link = Agent::spawn(&server.url, "B1", table_key("B1"));
    let prizes = link.out.find_anywhere("B1's paytable", WAIT, |value| kind(value) == "prizes").await.value;
    assert_eq!(prizes["pool"], "mercado-blackjack", "{prizes}");
    let grand = prize(&prizes, "TRES_SIETES_CORAZONES");
    assert_eq!((&grand["level"], &grand["pays"]), (&json!("Grand"), &json!("100 % del Grand")), "{grand}");
    let mini = prize(&prizes, "TRES_SIETES");
    assert_eq!((&mini["level"], &mini["pays"]), (&json!("Mini"), &json!("100 % del Mini")), "{mini}");
    let fixed = prize(&prizes, "DOBLE_10_11_MISMO_PALO");
    assert_eq!(fixed["pays"], "10 veces la apuesta, pagado por la casa", "{fixed}");
    let panel = link.live().await;
    let meters: Vec<(String, String)> = panel["levels"]
        .as_array()
        .unwrap_or_else(|| panic!("the panel carries the levels: {panel}"))
        .iter()
        .map(|level| {
            (level["name"].as_str().unwrap_or_default().to_owned(), level["displayed"].as_str().unwrap_or_default().to_owned())
        })
        .collect();
    let opening = [("Grand", "2000000.00"), ("Major", "200000.00"), ("Minor", "50000.00"), ("Mini", "10000.00")];
    assert_eq!(meters, opening.map(|(name, amount)| (name.to_owned(), amount.to_owned())), "{panel}");
    for level in panel["levels"].as_array().into_iter().flatten() {
        assert_eq!(level["reset"], level["displayed"], "a level opens at its reset: {level}");
    }

    let mut roulette = Agent::spawn(&server.url, "R1", table_key("R1"));
    let paytable = roulette.out.find_anywhere("R1's paytable", WAIT, |value| kind(value) == "prizes").await;
    assert!(!paytable.text.contains("\"level\""), "a pool of one level names no level: {}", paytable.text);
    roulette.live().await;
    let one = roulette.out.find_anywhere("R1's live panel", WAIT, is_live_panel).await;
    assert!(!one.text.contains("levels"), "a pool of one level prints no levels: {}", one.text);
    assert!(one.value["displayed"].as_str().is_some_and(|amount| !amount.is_empty()), "{}", one.text);

    link.stop().await;
    roulette.stop().await;
    tokio::time::timeout(PROCESS_WAIT, server.stop())
        .await
        .expect("the server stops in time")
        .expect("the server stopped cleanly");
}
