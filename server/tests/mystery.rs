//! The mystery ("must hit by") level and its hot seat (issue 44; docs/readings.md, "The mystery
//! level"; docs/journal.md, "draw" and "reveal"), through the real controller on 127.0.0.1:0
//! with the market's cross-game link (`config/mercado.toml`, `mercado-gran-sala`), its ceiling
//! brought down to 20.100,00 so that a few Black Jack bets (20,00 each to the level) reach it.

mod common;

use common::mystery::records as journal;
use common::mystery::{link_with_ceiling, money, of_kind, round};
use common::*;
use pozo_core::state::draw::{self, DrawHead};
use pozo_engine::Money;
use pozo_proto::v1 as pb;
use serde_json::Value;

const POOL: &str = "mercado-gran-sala";

async fn level(client: &mut Client, name: &str) -> pb::Level {
    let pool = client.pool(POOL).await;
    pool.levels.into_iter().find(|level| level.name == name).expect("the level")
}

#[tokio::test]
async fn a_mystery_level_hits_at_the_first_contribution_that_reaches_its_committed_trigger() {
    let server = TestServer::with_config(link_with_ceiling("20100.00")).await;
    let mut client = server.client().await;
    // The first draw is journaled as the controller starts, before any command: a commitment,
    // no trigger (B1's opening is answered once everything before it is durable).
    client.ok("B1", open()).await;
    let records = journal(&mut client).await;
    assert_eq!(records[1]["command"]["kind"], "draw", "the draw comes right after genesis");
    let draws = of_kind(&records, "draw");
    assert_eq!(draws.len(), 1, "one draw at the start: {records:?}");
    let first = draws[0]["command"].clone();
    assert_eq!(
        (first["pool"].as_str(), first["level"].as_str(), first["cycle"].as_u64()),
        (Some(POOL), Some("Misterioso"), Some(1))
    );
    assert_eq!((money(&first["from"]), money(&first["ceiling"])), ("20000.00".parse().unwrap(), "20100.00".parse().unwrap()));
    assert!(first.get("trigger").is_none() && first.get("nonce").is_none(), "the draw holds no secret in the clear: {first}");

    // A second table of the link has a bet in force: a hot seat's candidate.
    client.ok("CP1", open()).await;
    client.ok("CP1", sell(3, 1)).await;
    client.ok("CP1", press(3)).await;
    client.ok("CP1", start()).await;
    let mut rounds = 0;
    while of_kind(&journal(&mut client).await, "reveal").is_empty() {
        rounds += 1;
        assert!(rounds <= 5, "100,00 of range is reached within five rounds of two 20,00 shares");
        round(&mut client, &[1, 2]).await;
    }
    let records = journal(&mut client).await;
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
    // (CP1's own 10,00 may reach a trigger of 20.010,00 or less, before B1 bets: then it wins.)
    let hitting = records[at - 1]["command"]["table_id"].as_str().expect("a table").to_owned();
    let expected: Vec<(String, u64)> = match hitting.as_str() {
        "CP1" => vec![("CP1".to_owned(), 3)],
        _ => vec![("B1".to_owned(), 1), ("B1".to_owned(), 2), ("CP1".to_owned(), 3)],
    };
    assert_eq!(eligible, expected);
    let picked = &eligible[draw::hot_seat_index(&nonce, eligible.len())];

    // The level paid exactly the trigger, through Venta-Pagos (a share of a meter), to the
    // seat whose share reached it; the meter is back at its reset.
    let orders = client.orders().await;
    let won: Vec<&pb::PayoutOrder> = orders.iter().filter(|order| facts(order).code == "MISTERIOSO").collect();
    assert_eq!(won.len(), 1, "{orders:?}");
    assert_eq!(amount(&facts(won[0]).amount).parse::<Money>().unwrap(), trigger);
    assert_eq!(facts(won[0]).table_id, hitting);
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
    // (One round may already have hit a low trigger: then cycle 2 is the open one.)
    let before = journal(&mut client).await;
    let draws_before: Vec<Value> = of_kind(&before, "draw").into_iter().cloned().collect();
    let reveals_before = of_kind(&before, "reveal").len();
    let open = draws_before.last().expect("a draw")["command"].clone();
    server.stop().await;

    // Restarted on the same journal: the same draws stand, none is added, and the level goes on
    // to hit the open cycle at its committed trigger.
    let sequences = client.sequences.clone();
    let server = TestServer::start_config_on(config, data).await;
    let mut client = server.client().await;
    client.sequences = sequences;
    let after = journal(&mut client).await;
    assert_eq!(of_kind(&after, "draw").into_iter().cloned().collect::<Vec<Value>>(), draws_before);
    let mut rounds = 0;
    while of_kind(&journal(&mut client).await, "reveal").len() == reveals_before {
        rounds += 1;
        assert!(rounds <= 6);
        round(&mut client, &[1]).await;
    }
    let records = journal(&mut client).await;
    let reveal = of_kind(&records, "reveal")[reveals_before]["command"].clone();
    assert_eq!(reveal["cycle"], open["cycle"], "the cycle open at the restart is the one revealed");
    let head = DrawHead {
        pool: POOL.into(),
        level: "Misterioso".into(),
        cycle: open["cycle"].as_u64().unwrap(),
        from: money(&open["from"]),
        ceiling: money(&open["ceiling"]),
    };
    let nonce = draw::nonce_of(reveal["nonce"].as_str().unwrap()).unwrap();
    assert_eq!(
        hex::encode(draw::commitment(&head, money(&reveal["trigger"]), &nonce)),
        open["commitment"].as_str().unwrap(),
        "the trigger revealed after the restart is the one committed before it"
    );
    server.stop().await;
}

fn file_change(text: &str) -> pb::propose_change::What {
    pb::propose_change::What::Configuration(pb::ConfigurationChange {
        files: vec![pb::ConfigFile { name: "mercado.toml".to_owned(), text: text.to_owned() }],
        ..Default::default()
    })
}

/// A new ceiling approved by two people comes into force at the level's next reset: the open
/// draw keeps the ceiling it was drawn under, the draw after the hit has the new one (it waits
/// for the round the hit came in to end, as every money change of a level does).
#[tokio::test]
async fn a_new_ceiling_comes_into_force_at_the_next_reset() {
    use common::changes::{CARLA, DIEGO, approve, change, propose};
    let text = common::market::MERCADO.replacen("must_hit_by = \"60000.00\"", "must_hit_by = \"20100.00\"", 1);
    let server = TestServer::with_config(common::market::enlace_edited(&text)).await;
    let mut client = server.client().await;
    let raised = text.replacen("must_hit_by = \"20100.00\"", "must_hit_by = \"20200.00\"", 1);
    let proposed = change(&client, CARLA, propose(file_change(&raised))).await.expect("proposed");
    assert!(
        proposed.differences.iter().any(|line| line.text.contains("nivel Misterioso: debe salir antes de")
            && line.text.contains("$ 20.100,00")
            && line.text.contains("$ 20.200,00")),
        "the change says the ceiling in pesos: {:?}",
        proposed.differences
    );
    let approved = change(&client, DIEGO, approve(&proposed)).await.expect("approved");
    assert_eq!(approved.status, "PROGRAMADO", "it waits for the level's next hit: {approved:?}");
    client.ok("B1", open()).await;
    let ceilings = |records: &[Value]| -> Vec<String> {
        of_kind(records, "draw").iter().map(|draw| money(&draw["command"]["ceiling"]).to_string()).collect()
    };
    assert_eq!(ceilings(&journal(&mut client).await), vec!["20100.00"], "the open draw keeps its ceiling");
    // Play until the hit, the round it came in still open: no draw yet.
    let mut rounds = 0;
    loop {
        rounds += 1;
        assert!(rounds <= 5);
        for seat in [1, 2] {
            client.ok("B1", sell(seat, 1)).await;
            client.ok("B1", press(seat)).await;
        }
        client.ok("B1", start()).await;
        if !of_kind(&journal(&mut client).await, "reveal").is_empty() {
            break;
        }
        client.ok("B1", finish()).await;
    }
    assert_eq!(ceilings(&journal(&mut client).await).len(), 1, "the next draw waits for the round to end");
    client.ok("B1", finish()).await;
    let records = journal(&mut client).await;
    assert_eq!(ceilings(&records), vec!["20100.00", "20200.00"], "the new ceiling from the reset after the hit");
    let second = of_kind(&records, "draw")[1]["command"].clone();
    assert_eq!(second["cycle"], 2);
    assert_eq!(money(&second["from"]).to_string(), "20000.00");
    server.stop().await;
}

/// A Venta-Pagos rejection of a mystery hit undoes that award only, and what comes back stays in
/// the level's reserve: the meter does not jump towards the next trigger (docs/readings.md, "The
/// mystery level"). The books still tie, level by level.
#[tokio::test]
async fn a_rejected_mystery_hit_goes_back_to_the_levels_reserve_not_its_meter() {
    let server = TestServer::with_config(link_with_ceiling("20100.00")).await;
    let mut client = server.client().await;
    client.ok("B1", open()).await;
    let mut rounds = 0;
    while of_kind(&journal(&mut client).await, "reveal").is_empty() {
        rounds += 1;
        assert!(rounds <= 5);
        round(&mut client, &[1, 2]).await;
    }
    let before = level(&mut client, "Misterioso").await;
    let order = client.orders().await.into_iter().find(|order| facts(order).code == "MISTERIOSO").expect("the hit's order");
    let paid: Money = amount(&facts(&order).amount).parse().unwrap();
    client.reject(&order.order_id, "Apuesta no registrada en la mesa").await.expect("rejected");
    let after = level(&mut client, "Misterioso").await;
    assert_eq!(amount(&after.balance), amount(&before.balance), "the meter stands where it stood");
    let reserve = |level: &pb::Level| amount(&level.reserve).parse::<Money>().unwrap();
    let balance = |level: &pb::Level| amount(&level.balance).parse::<Money>().unwrap();
    // What the level holds grew by the rejected award less the house's reset money withdrawn.
    assert!(reserve(&after) > reserve(&before), "{before:?} → {after:?}");
    assert!(balance(&after) + reserve(&after) <= balance(&before) + reserve(&before) + paid);
    let books = client.books().await;
    let pool = books.pools.iter().find(|pool| pool.pool_id == POOL).expect("the link's books");
    assert_eq!(amount(&pool.difference), "0.00", "{pool:?}");
    for level in &pool.levels {
        assert_eq!(amount(&level.difference), "0.00", "{level:?}");
    }
    server.stop().await;
}
