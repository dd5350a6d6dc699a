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
    mercado_with(MERCADO)
}

/// The market's rulebook as `config/mercado.toml` has it.
const MERCADO: &str = include_str!("../../config/mercado.toml");

/// [`mercado`] with the market's rulebook text `mercado` (the example's, edited by a test).
fn mercado_with(mercado: &str) -> Config {
    let texts = [
        ("config/examples/mercado-casino.toml", include_str!("../../config/examples/mercado-casino.toml")),
        ("config/iplyc.toml", include_str!("../../config/iplyc.toml")),
        ("config/mercado.toml", mercado),
    ];
    let texts = texts.iter().map(|(name, text)| ((*name).to_owned(), (*text).to_owned())).collect();
    Config::from_texts(texts).and_then(|config| config.with_keys(KEYS_EMBEDDED.0, KEYS_EMBEDDED.1)).expect("the market's example")
}

/// The example's rulebook with the spades Mini Royal's envy bonus across the link, 150.000,00
/// (as server/tests/market.rs edits it).
fn envy_across_the_link() -> String {
    let edited = MERCADO.replacen(
        "amount = \"50000.00\", scope = \"table\", paid_by = \"house\" }",
        "amount = \"150000.00\", scope = \"link\", paid_by = \"house\" }",
        1,
    );
    assert_ne!(edited, MERCADO, "the example's spades Mini Royal has an envy bonus of the table's scope");
    edited
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

// Proves the panel's awards are the server's record (`TableView.accepted`): an agent restarted
// after ACEPTAR shows the round's awards still, with their names and levels — the Mini Royal's
// meter and the envy bonus paid by the house, marked as the paytable's flags say —, until the
// table's FINALIZAR JUEGO.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_restarted_after_aceptar_shows_the_rounds_awards() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let start = pozo_server::Embedded::start(mercado(), directory.path(), Default::default());
    let server = tokio::time::timeout(WAIT, start).await.expect("the server starts in time").expect("the server started");
    let mut first = Agent::spawn(&server.url, "CP1", table_key("CP1"));
    first.out.find_anywhere("CP1's paytable", WAIT, |value| kind(value) == "prizes").await;
    first.live().await;
    for line in ["open", "credits 1 1", "press 1", "credits 2 1", "press 2", "start", "prize 2 MINI_ROYAL_PICAS"] {
        first.ack(line).await;
    }
    let accepted = first.ack("accept").await;
    let royal = accepted["awards"][0]["award"].as_str().expect("an amount").to_owned();
    first.stop().await;

    let mut again = Agent::spawn(&server.url, "CP1", table_key("CP1"));
    let panel = again
        .out
        .find_anywhere("the restarted agent's panel with the awards", WAIT, |value| {
            is_live_panel(value) && value["awards"].is_array()
        })
        .await;
    let order = panel.value["awards"][0]["payout_order_id"].as_str().unwrap_or_default().to_owned();
    assert!(!order.is_empty(), "the meter's prize goes to Venta-Pagos: {}", panel.text);
    assert_eq!(
        panel.value["awards"],
        json!([
            {"seat": 2, "code": "MINI_ROYAL_PICAS", "name": "Mini Royal de picas", "level": "Mini Royal",
             "award": royal, "payout_order_id": order},
            {"seat": 1, "code": "ENVIDIA_MINI_ROYAL_PICAS", "name": "Envidia: Mini Royal de picas",
             "level": "Pagado por la casa", "house": true, "envy": true, "award": "50000.00", "payout_order_id": ""},
        ]),
        "{}",
        panel.text
    );
    again.ack("finish").await;
    let next =
        again.out.find_anywhere("the next round's panel", WAIT, |value| kind(value) == "panel" && value["round"] == 2).await;
    assert!(!next.text.contains("awards"), "FINALIZAR JUEGO ends the round's awards: {}", next.text);
    again.stop().await;
    tokio::time::timeout(PROCESS_WAIT, server.stop())
        .await
        .expect("the server stops in time")
        .expect("the server stopped cleanly");
}

// Proves an envy bonus across the link reaches the other table's panel: a spades Mini Royal at
// CP1 pays CP2's seats with the side bet in force, and CP2's agent, which sent nothing since,
// shows each with the table whose hand gave it (`from`), paid by the house, until CP2's
// FINALIZAR JUEGO.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_envy_bonus_across_the_link_shows_on_the_other_tables_panel() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let start = pozo_server::Embedded::start(mercado_with(&envy_across_the_link()), directory.path(), Default::default());
    let server = tokio::time::timeout(WAIT, start).await.expect("the server starts in time").expect("the server started");
    let mut cp1 = Agent::spawn(&server.url, "CP1", table_key("CP1"));
    let mut cp2 = Agent::spawn(&server.url, "CP2", table_key("CP2"));
    for agent in [&mut cp1, &mut cp2] {
        agent.out.find_anywhere("the paytable", WAIT, |value| kind(value) == "prizes").await;
        agent.live().await;
    }
    for line in ["open", "credits 2 1", "press 2", "start"] {
        cp1.ack(line).await;
    }
    for line in ["open", "credits 3 1", "press 3", "start"] {
        cp2.ack(line).await;
    }
    cp1.ack("prize 2 MINI_ROYAL_PICAS").await;
    cp1.ack("accept").await;
    let panel = cp2
        .out
        .find_anywhere("CP2's panel with the envy bonus", WAIT, |value| is_live_panel(value) && value["awards"].is_array())
        .await;
    let order = panel.value["awards"][0]["payout_order_id"].as_str().unwrap_or_default().to_owned();
    assert!(!order.is_empty(), "150.000,00 is over the Venta-Pagos threshold: {}", panel.text);
    assert_eq!(
        panel.value["awards"],
        json!([{"seat": 3, "code": "ENVIDIA_MINI_ROYAL_PICAS", "name": "Envidia: Mini Royal de picas",
                "level": "Pagado por la casa", "house": true, "envy": true, "from": "CP1", "award": "150000.00",
                "payout_order_id": order}]),
        "{}",
        panel.text
    );
    cp2.ack("finish").await;
    let next = cp2.out.find_anywhere("CP2's next round", WAIT, |value| kind(value) == "panel" && value["round"] == 2).await;
    assert!(!next.text.contains("awards"), "CP2's FINALIZAR JUEGO ends them: {}", next.text);
    cp1.stop().await;
    cp2.stop().await;
    tokio::time::timeout(PROCESS_WAIT, server.stop())
        .await
        .expect("the server stops in time")
        .expect("the server stopped cleanly");
}
