//! The mystery ("must hit by") level and its hot seat (issue 44; docs/readings.md, "The mystery
//! level"; docs/journal.md, "draw" and "reveal"), through the real controller on 127.0.0.1:0
//! with the market's cross-game link (`config/mercado.toml`, `mercado-gran-sala`), its ceiling
//! brought down to 20.100,00 so that a few Black Jack bets (20,00 each to the level) reach it.

mod common;

use common::*;
use pozo_core::state::draw::{self, DrawHead};
use pozo_engine::Money;
use pozo_proto::v1 as pb;
use pozo_server::config::Config;
use serde_json::Value;

const POOL: &str = "mercado-gran-sala";

/// The link with the mystery level's ceiling at `ceiling` (the example's is 60.000,00).
fn link_with_ceiling(ceiling: &str) -> Config {
    let text = common::market::MERCADO.replacen(
        "must_hit_by = \"60000.00\"",
        &format!("must_hit_by = \"{ceiling}\""),
        1,
    );
    assert_ne!(text, common::market::MERCADO, "the example has the mystery level's ceiling");
    common::market::enlace_edited(&text)
}

async fn entries(client: &mut Client) -> Vec<Value> {
    let request = pb::JournalEntriesRequest { after: 0, limit: 1000 };
    let page = client.reports.entries(request).await.expect("the journal").into_inner();
    page.entries.iter().map(|entry| serde_json::from_str(&entry.record_json).expect("a record")).collect()
}

fn of_kind<'a>(records: &'a [Value], kind: &str) -> Vec<&'a Value> {
    records.iter().filter(|record| record["command"]["kind"] == kind).collect()
}

fn money(value: &Value) -> Money {
    serde_json::from_value(value.clone()).expect("an amount")
}

async fn level(client: &mut Client, name: &str) -> pb::Level {
    let pool = client.pool(POOL).await;
    pool.levels.into_iter().find(|level| level.name == name).expect("the level")
}

/// One Black Jack round at B1 with a bet at each of `seats`: sold, pressed, INICIAR JUEGO
/// (which registers them), FINALIZAR JUEGO.
async fn round(client: &mut Client, seats: &[u32]) {
    for seat in seats {
        client.ok("B1", sell(*seat, 1)).await;
        client.ok("B1", press(*seat)).await;
    }
    client.ok("B1", start()).await;
    client.ok("B1", finish()).await;
}

#[tokio::test]
async fn a_mystery_level_hits_at_the_first_contribution_that_reaches_its_committed_trigger() {
    let server = TestServer::with_config(link_with_ceiling("20100.00")).await;
    let mut client = server.client().await;
    // The first draw is journaled as the controller starts, before any command: a commitment,
    // no trigger (B1's opening is answered once everything before it is durable).
    client.ok("B1", open()).await;
    let records = entries(&mut client).await;
    assert_eq!(records[1]["command"]["kind"], "draw", "the draw comes right after genesis");
    let draws = of_kind(&records, "draw");
    assert_eq!(draws.len(), 1, "one draw at the start: {records:?}");
    let first = draws[0]["command"].clone();
    assert_eq!((first["pool"].as_str(), first["level"].as_str(), first["cycle"].as_u64()), (Some(POOL), Some("Misterioso"), Some(1)));
    assert_eq!((money(&first["from"]), money(&first["ceiling"])), ("20000.00".parse().unwrap(), "20100.00".parse().unwrap()));
    assert!(first.get("trigger").is_none() && first.get("nonce").is_none(), "the draw holds no secret in the clear: {first}");

    // A second table of the link has a bet in force: a hot seat's candidate.
    client.ok("CP1", open()).await;
    client.ok("CP1", sell(3, 1)).await;
    client.ok("CP1", press(3)).await;
    client.ok("CP1", start()).await;
    let mut rounds = 0;
    while of_kind(&entries(&mut client).await, "reveal").is_empty() {
        rounds += 1;
        assert!(rounds <= 5, "100,00 of range is reached within five rounds of two 20,00 shares");
        round(&mut client, &[1, 2]).await;
    }
    let records = entries(&mut client).await;
    let reveal = of_kind(&records, "reveal")[0]["command"].clone();
    let trigger = money(&reveal["trigger"]);
    assert!(trigger > "20000.00".parse().unwrap() && trigger <= "20100.00".parse().unwrap(), "{trigger}");
    // The reveal opens the commitment journaled before the trigger could matter.
    let head = DrawHead {
        pool: POOL.into(),
        level: "Misterioso".into(),
        cycle: 1,
        from: money(&first["from"]),
        ceiling: money(&first["ceiling"]),
    };
    let nonce = draw::nonce_of(reveal["nonce"].as_str().unwrap()).expect("a nonce");
    assert_eq!(hex::encode(draw::commitment(&head, trigger, &nonce)), first["commitment"].as_str().unwrap());
    // It follows at once the INICIAR JUEGO whose bets reached it; a new cycle is drawn after it.
    let at = records.iter().position(|record| record["command"]["kind"] == "reveal").unwrap();
    assert_eq!(records[at - 1]["sequence"].as_u64(), reveal["after"].as_u64());
    assert_eq!(records[at - 1]["command"]["op"]["op"], "start_round");
    assert_eq!(records[at + 1]["command"]["kind"], "draw");
    assert_eq!(records[at + 1]["command"]["cycle"], 2);
    // The hot seat's candidates: every seat with a bet in force in the link, CP1's included.
    let eligible: Vec<(String, u64)> = reveal["eligible"]
        .as_array()
        .expect("the hot seat's candidates")
        .iter()
        .map(|seat| (seat["table"].as_str().unwrap().to_owned(), seat["seat"].as_u64().unwrap()))
        .collect();
    assert_eq!(eligible, vec![("B1".to_owned(), 1), ("B1".to_owned(), 2), ("CP1".to_owned(), 3)]);
    let picked = &eligible[draw::hot_seat_index(&nonce, eligible.len())];

    // The level paid exactly the trigger, through Venta-Pagos (a share of a meter), to the
    // seat whose share reached it; the meter is back at its reset.
    let orders = client.orders().await;
    let won: Vec<&pb::PayoutOrder> = orders.iter().filter(|order| facts(order).code == "MISTERIOSO").collect();
    assert_eq!(won.len(), 1, "{orders:?}");
    assert_eq!(amount(&facts(won[0]).amount).parse::<Money>().unwrap(), trigger);
    assert_eq!(facts(won[0]).table_id, "B1");
    let mystery = level(&mut client, "Misterioso").await;
    assert_eq!(amount(&mystery.balance), "20000.00");
    assert_eq!(mystery.hits, 1);
    // The hot seat: the house's fixed amount, at the seat the nonce picks among those listed
    // (its panel showed it until that table's FINALIZAR JUEGO; the pool's last hits keep it).
    let hits = client.pool(POOL).await.last_hits;
    let hot: Vec<&pb::Hit> = hits.iter().filter(|hit| hit.code == "ASIENTO_CALIENTE").collect();
    assert_eq!(hot.len(), 1, "{hits:?}");
    assert_eq!((hot[0].table_id.clone(), u64::from(hot[0].seat)), picked.clone());
    assert_eq!(amount(&hot[0].amount), "10000.00");
    let mystery_hit: Vec<&pb::Hit> = hits.iter().filter(|hit| hit.code == "MISTERIOSO").collect();
    assert_eq!(amount(&mystery_hit[0].amount).parse::<Money>().unwrap(), trigger);

    // Nobody enters a drawn prize.
    client.ok("B1", sell(4, 1)).await;
    client.ok("B1", press(4)).await;
    client.ok("B1", start()).await;
    let refused = client.refused("B1", prize(4, "MISTERIOSO"), tonic::Code::InvalidArgument).await;
    assert!(refused.contains("MISTERIOSO"), "{refused}");
    server.stop().await;
}

#[tokio::test]
async fn a_restart_keeps_the_committed_trigger_and_draws_nothing_again() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let data = directory.path().join("data");
    let config = link_with_ceiling("20100.00");
    let server = TestServer::start_config_on(config.clone(), data.clone()).await;
    let mut client = server.client().await;
    client.ok("B1", open()).await;
    round(&mut client, &[1]).await;
    let before = entries(&mut client).await;
    let draws_before: Vec<Value> = of_kind(&before, "draw").into_iter().cloned().collect();
    assert_eq!(draws_before.len(), 1);
    server.stop().await;

    // Restarted on the same journal: the same draw stands, none is added, and the level goes on
    // to hit at the committed trigger.
    let sequences = client.sequences.clone();
    let server = TestServer::start_config_on(config, data).await;
    let mut client = server.client().await;
    client.sequences = sequences;
    let after = entries(&mut client).await;
    assert_eq!(of_kind(&after, "draw").into_iter().cloned().collect::<Vec<Value>>(), draws_before);
    let mut rounds = 0;
    while of_kind(&entries(&mut client).await, "reveal").is_empty() {
        rounds += 1;
        assert!(rounds <= 6);
        round(&mut client, &[1]).await;
    }
    let records = entries(&mut client).await;
    let reveal = of_kind(&records, "reveal")[0]["command"].clone();
    let head = DrawHead {
        pool: POOL.into(),
        level: "Misterioso".into(),
        cycle: 1,
        from: money(&draws_before[0]["command"]["from"]),
        ceiling: money(&draws_before[0]["command"]["ceiling"]),
    };
    let nonce = draw::nonce_of(reveal["nonce"].as_str().unwrap()).unwrap();
    assert_eq!(
        hex::encode(draw::commitment(&head, money(&reveal["trigger"]), &nonce)),
        draws_before[0]["command"]["commitment"].as_str().unwrap(),
        "the trigger revealed after the restart is the one committed before it"
    );
    server.stop().await;
}
