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

// Proves the panel carries the round's awards (docs/agent.md §3, `awards`): at B1 the Mini's
// prize for box 3, fixed at ACEPTAR (3.5.1), with its name and the level that paid it, to
// Venta-Pagos as every percentage prize is (3.5.2); the `ack` names the level too; and the
// next round's panel (after FINALIZAR JUEGO) carries none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_panel_carries_the_rounds_awards_with_their_level_until_the_next_round() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let start = pozo_server::Embedded::start(mercado(), directory.path(), Default::default());
    let server = tokio::time::timeout(WAIT, start).await.expect("the server starts in time").expect("the server started");
    let mut link = Agent::spawn(&server.url, "B1", table_key("B1"));
    link.out.find_anywhere("B1's paytable", WAIT, |value| kind(value) == "prizes").await;
    link.live().await;
    for line in ["open", "credits 3 5", "press 3", "start", "prize 3 TRES_SIETES", "finish"] {
        link.ack(line).await;
    }
    let accepted = link.ack("accept").await;
    let award = &accepted["awards"][0];
    assert_eq!((&award["seat"], &award["level"]), (&json!(3), &json!("Mini")), "{accepted}");
    let fixed = award["award"].as_str().expect("an amount").to_owned();
    let order = award["payout_order_id"].as_str().expect("an order").to_owned();
    assert!(!order.is_empty(), "a percentage prize goes to Venta-Pagos: {accepted}");
    let panel = link
        .out
        .find_anywhere("the panel with the award", WAIT, |value| kind(value) == "panel" && value["awards"].is_array())
        .await;
    assert_eq!(
        panel.value["awards"],
        json!([{"seat": 3, "code": "TRES_SIETES", "name": "Tres sietes", "level": "Mini", "award": fixed, "payout_order_id": order}]),
        "{}",
        panel.text
    );
    link.ack("finish").await;
    let next =
        link.out.find_anywhere("the next round's panel", WAIT, |value| kind(value) == "panel" && value["round"] == 2).await;
    assert!(!next.text.contains("awards"), "the last round's awards are gone: {}", next.text);
    link.stop().await;
    tokio::time::timeout(PROCESS_WAIT, server.stop())
        .await
        .expect("the server stops in time")
        .expect("the server stopped cleanly");
}
