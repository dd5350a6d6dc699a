//! The mystery level's tests' common room (docs/readings.md, "The mystery level"): the market's
//! cross-game link with the ceiling brought down, the journal's records read back, and a round
//! at B1.

// Not every test binary plays the mystery level.
#![allow(dead_code)]

use pozo_engine::Money;
use pozo_proto::v1 as pb;
use pozo_server::config::Config;
use serde_json::Value;

use super::{Client, finish, press, sell, start};

/// The link (`config/examples/mercado-enlace.toml`) with its mystery level's ceiling at `ceiling`
/// (the example's is 60.000,00): a few Black Jack bets (20,00 each to the level) reach it.
pub fn link_with_ceiling(ceiling: &str) -> Config {
    let text = super::market::MERCADO.replacen("must_hit_by = \"60000.00\"", &format!("must_hit_by = \"{ceiling}\""), 1);
    assert_ne!(text, super::market::MERCADO, "the example has the mystery level's ceiling");
    super::market::enlace_edited(&text)
}

/// Every record of the journal, oldest first (`Reports/Entries`, page after page).
pub async fn records(client: &mut Client) -> Vec<Value> {
    let mut all: Vec<Value> = Vec::new();
    loop {
        let request = pb::JournalEntriesRequest { after: all.len() as u64, limit: 1000 };
        let page = client.reports.entries(request).await.expect("the journal").into_inner();
        if page.entries.is_empty() {
            return all;
        }
        all.extend(page.entries.iter().map(|entry| serde_json::from_str::<Value>(&entry.record_json).expect("a record")));
    }
}

/// The records of one command kind (`draw`, `reveal`, …).
pub fn of_kind<'a>(records: &'a [Value], kind: &str) -> Vec<&'a Value> {
    records.iter().filter(|record| record["command"]["kind"] == kind).collect()
}

/// An amount as the journal writes it.
pub fn money(value: &Value) -> Money {
    serde_json::from_value(value.clone()).expect("an amount")
}

/// The level's open draw: the latest draw entry whose cycle has no reveal.
pub fn open_draw(records: &[Value]) -> Value {
    let revealed: Vec<u64> = of_kind(records, "reveal").iter().filter_map(|record| record["command"]["cycle"].as_u64()).collect();
    of_kind(records, "draw")
        .into_iter()
        .rev()
        .find(|record| !revealed.contains(&record["command"]["cycle"].as_u64().unwrap_or(0)))
        .cloned()
        .expect("an open draw")
}

/// One Black Jack round at B1 with a bet at each of `seats`: sold, pressed, INICIAR JUEGO (which
/// registers them), FINALIZAR JUEGO.
pub async fn round(client: &mut Client, seats: &[u32]) {
    for seat in seats {
        client.ok("B1", sell(*seat, 1)).await;
        client.ok("B1", press(*seat)).await;
    }
    client.ok("B1", start()).await;
    client.ok("B1", finish()).await;
}
