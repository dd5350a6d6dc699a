//! The mystery level and its hot seat on every screen (issue 44, item 7; docs/readings.md, "The
//! mystery level"; docs/pages.md): the ceiling "debe salir antes de" on the signs, the panels,
//! the reports and the pages; the hits named "Pozo misterioso" and "Asiento caliente" with their
//! table and seat; the books and the liability tied across a hit; the award calculator saying
//! what a mystery hit pays instead of computing it. Through the real controller on 127.0.0.1:0
//! with the market's link (`mercado-gran-sala`), its ceiling brought down to 20.100,00.

mod common;

use std::time::Duration;

use common::mystery::{link_with_ceiling, records};
use common::*;
use pozo_engine::Money;
use pozo_proto::v1 as pb;
use prost::Message;
use serde_json::Value;

const POOL: &str = "mercado-gran-sala";
const WAIT: Duration = Duration::from_secs(10);

/// Every reveal so far, oldest first.
async fn reveals(client: &mut Client) -> Vec<Value> {
    records(client)
        .await
        .into_iter()
        .filter(|record| record["command"]["kind"] == "reveal")
        .map(|record| record["command"].clone())
        .collect()
}

async fn get(base: &str, path: &str) -> String {
    let response = reqwest::get(format!("{base}{path}")).await.expect("answered");
    assert!(response.status().is_success(), "{path}: {}", response.status());
    response.text().await.expect("a body")
}

/// A browser signed in as `user`.
async fn signed_in(base: &str, user: &str, password: &str) -> reqwest::Client {
    let http = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("an HTTP client");
    let login = http.get(format!("{base}/ingresar")).send().await.expect("login").text().await.expect("a body");
    let marker = "name=\"csrf\" value=\"";
    let start = login.find(marker).expect("a csrf token") + marker.len();
    let token = &login[start..start + login[start..].find('"').expect("its end")];
    let answer = http
        .post(format!("{base}/ingresar"))
        .form(&[("usuario", user), ("contrasena", password), ("csrf", token), ("destino", "")])
        .send()
        .await
        .expect("signed in");
    assert_eq!(answer.status(), reqwest::StatusCode::SEE_OTHER);
    http
}

async fn signed_page(http: &reqwest::Client, base: &str, path: &str) -> String {
    let response = http.get(format!("{base}{path}")).send().await.expect("answered");
    assert!(response.status().is_success(), "{path}: {}", response.status());
    response.text().await.expect("a body")
}

/// The sign's first `pozos` event for which `wanted` holds, as JSON (the feed's frames are made
/// off the writer's path: the first one a sign gets may be a batch behind).
async fn sign_floor(base: &str, wanted: impl Fn(&Value) -> bool) -> Value {
    let mut response = reqwest::get(format!("{base}/cartel/eventos")).await.expect("the sign's events");
    let mut text = String::new();
    tokio::time::timeout(WAIT, async {
        loop {
            while let Some(end) = text.find("\n\n") {
                let event: String = text.drain(..end + 2).collect();
                if !event.starts_with("event: pozos") {
                    continue;
                }
                let data = event.lines().find_map(|line| line.strip_prefix("data: ")).expect("its data");
                let floor: Value = serde_json::from_str(data).expect("JSON");
                if wanted(&floor) {
                    return floor;
                }
            }
            let chunk = response.chunk().await.expect("a chunk").expect("more");
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
    })
    .await
    .expect("a pozos event as wanted")
}

fn level<'a>(levels: &'a [pb::Level], name: &str) -> &'a pb::Level {
    levels.iter().find(|level| level.name == name).unwrap_or_else(|| panic!("level {name} in {levels:?}"))
}

// Proves the ceiling, and only the ceiling, is on every screen while the cycle is open: the
// reports, the pools' status, the display feed, a table's panel (the view its agent prints for
// the monitor), the sign's page and feed, the floor and the pool's page; the paytable the
// monitor offers marks the drawn prizes, which no dealer enters.
#[tokio::test]
async fn the_ceiling_is_on_every_screen_and_the_drawn_prizes_are_marked() {
    let server = TestServer::with_config(link_with_ceiling("20100.00")).await;
    let mut client = server.client().await;
    let base = server.pages_url();
    client.ok("B1", open()).await;

    let report = client.pool(POOL).await;
    let mystery = level(&report.levels, "Misterioso");
    assert!(mystery.mystery, "{mystery:?}");
    assert_eq!(amount(&mystery.must_hit_by), "20100.00");
    assert_eq!(amount(&mystery.reset), "20000.00");
    for other in report.levels.iter().filter(|level| level.name != "Misterioso") {
        assert!(!other.mystery && other.must_hit_by.is_none(), "only the mystery level has a ceiling: {other:?}");
    }
    let status = client.pools.status(pb::PoolStatusRequest { pool_ids: vec![POOL.into()] }).await.expect("status").into_inner();
    assert_eq!(amount(&level(&status.pools[0].levels, "Misterioso").must_hit_by), "20100.00");
    let mut feed = client
        .display
        .watch(pb::WatchDisplays { pool_ids: vec![POOL.into()], ..Default::default() })
        .await
        .expect("feed")
        .into_inner();
    let update = tokio::time::timeout(WAIT, feed.message()).await.expect("an update").expect("the feed").expect("one");
    let sign = level(&update.pools[0].levels, "Misterioso");
    assert!(sign.mystery && amount(&sign.must_hit_by) == "20100.00", "{sign:?}");
    let view = client.view("B1").await;
    let panel = level(&view.levels, "Misterioso");
    assert!(panel.mystery && amount(&panel.must_hit_by) == "20100.00", "{panel:?}");
    assert!(!level(&view.levels, "Mini · F2").mystery);

    // The paytable the monitor offers: the drawn prizes are marked, the others not.
    let payload = pb::WatchTable { table_id: "B1".into(), ..Default::default() }.encode_to_vec();
    let envelope = client.envelope_as("mesa-B1", pozo_proto::Purpose::WatchTable, payload);
    let prizes = client.table.prizes(envelope).await.expect("the paytable").into_inner().prizes;
    let drawn: Vec<&str> = prizes.iter().filter(|prize| prize.drawn).map(|prize| prize.code.as_str()).collect();
    assert!(drawn.contains(&"MISTERIOSO") && drawn.contains(&"ASIENTO_CALIENTE"), "{drawn:?}");
    assert_eq!(drawn.len(), 2, "{drawn:?}");

    // The sign: its page and its feed say "Debe salir antes de $ 20.100,00" under the meter.
    let cartel = get(&base, "/cartel?pozo=mercado-gran-sala").await;
    assert!(cartel.contains("Debe salir antes de $\u{a0}20.100,00"), "{cartel}");
    let floor = sign_floor(&base, |_| true).await;
    let pool = floor["pozos"].as_array().unwrap().iter().find(|pool| pool["id"] == POOL).expect("the link on the sign");
    let meter = pool["niveles"].as_array().unwrap().iter().find(|level| level["nombre"] == "Misterioso").expect("the meter");
    assert_eq!(meter["tope"], "Debe salir antes de $ 20.100,00");
    let grand = pool["niveles"].as_array().unwrap().iter().find(|level| level["nombre"] == "Grand").expect("the Grand");
    assert!(grand.get("tope").is_none(), "{grand}");

    // The floor, the pool's page and a flor's (the table's meters as its panel has them).
    let supervisor = signed_in(&base, "sup-carla", "carla-ejemplo").await;
    let sala = signed_page(&supervisor, &base, "/sala/mesas").await;
    assert!(
        sala.contains("Nivel Misterioso <small class=\"tope-nivel\">(debe salir antes de $\u{a0}20.100,00)</small>"),
        "{sala}"
    );
    let pool_page = signed_page(&supervisor, &base, "/sala/pozos/mercado-gran-sala").await;
    assert!(
        pool_page.contains("debe salir antes de $\u{a0}20.100,00; asiento caliente $\u{a0}10.000,00 por acierto"),
        "{pool_page}"
    );
    assert!(pool_page.contains("id=\"misterioso\""), "the page says what a mystery level is");
    let flor = signed_page(&supervisor, &base, "/sala/flor/F2").await;
    assert!(flor.contains("(debe salir antes de $\u{a0}20.100,00)"), "{flor}");
    server.stop().await;
}

// Proves a hit and its hot seat are named on the sign, the feed, the pool's page and the
// reports, each with its table and seat; the winner's panel shows the award; and the books and
// the liability tie across the hit, the level's own books included.
#[tokio::test]
async fn a_hit_and_its_hot_seat_are_named_with_their_table_and_seat_and_the_books_tie() {
    let server = TestServer::with_config(link_with_ceiling("20100.00")).await;
    let mut client = server.client().await;
    let base = server.pages_url();
    client.ok("B1", open()).await;
    client.ok("CP1", open()).await;
    client.ok("CP1", sell(3, 1)).await;
    client.ok("CP1", press(3)).await;
    client.ok("CP1", start()).await;
    // CP1's INICIAR JUEGO alone may reach a low trigger: the hit looked at is B1's.
    let before = reveals(&mut client).await.len();
    let mut rounds = 0;
    let reveal = loop {
        rounds += 1;
        assert!(rounds <= 5, "100,00 of range is reached within five rounds of two 20,00 shares");
        for seat in [1, 2] {
            client.ok("B1", sell(seat, 1)).await;
            client.ok("B1", press(seat)).await;
        }
        client.ok("B1", start()).await;
        let all = reveals(&mut client).await;
        if all.len() == before {
            client.ok("B1", finish()).await;
            continue;
        }
        let reveal = all.last().cloned().expect("a reveal");
        // The INICIAR JUEGO that reached the trigger: the award is on the winner's panel, with
        // its level, until FINALIZAR JUEGO.
        let view = client.view("B1").await;
        let award = view.link_awards.iter().filter_map(|linked| linked.award.as_ref()).find(|award| award.code == "MISTERIOSO");
        let award = award.unwrap_or_else(|| panic!("the winner's panel shows the hit: {view:?}"));
        assert_eq!(award.level, "Misterioso");
        assert_eq!(award.award, reveal["trigger"].as_str().map(|value| pb::Amount { value: value.to_owned() }));
        client.ok("B1", finish()).await;
        break reveal;
    };
    let trigger: Money = serde_json::from_value(reveal["trigger"].clone()).expect("the trigger");
    let hits = client.pool(POOL).await.last_hits;
    let hit = hits.iter().find(|hit| hit.code == "MISTERIOSO").expect("the mystery hit");
    let hot = hits.iter().find(|hit| hit.code == "ASIENTO_CALIENTE").expect("the hot seat");
    assert_eq!(hit.level, "Misterioso");
    assert_eq!(amount(&hit.amount).parse::<Money>().unwrap(), trigger);

    // The sign names both, each with its table and seat.
    let ars = |amount: Money| pozo_engine::format_ars(amount).replacen(' ', "\u{a0}", 1);
    let cartel = get(&base, "/cartel?pozo=mercado-gran-sala").await;
    let mystery_line = format!("Pozo misterioso · Mesa {} · Pos. {} · {}", hit.table_id, hit.seat, ars(trigger));
    assert!(cartel.contains(&mystery_line), "{mystery_line} in {cartel}");
    let hot_line = format!("Asiento caliente · Mesa {} · Pos. {} · {}", hot.table_id, hot.seat, ars("10000.00".parse().unwrap()));
    assert!(cartel.contains(&hot_line), "{hot_line} in {cartel}");
    let with_hits = |floor: &Value| {
        floor["pozos"]
            .as_array()
            .unwrap()
            .iter()
            .any(|pool| pool["id"] == POOL && pool["ultimos"].as_array().is_some_and(|hits| hits.len() >= 2))
    };
    let floor = sign_floor(&base, with_hits).await;
    let pool = floor["pozos"].as_array().unwrap().iter().find(|pool| pool["id"] == POOL).expect("the link");
    let named: Vec<(String, bool)> = pool["ultimos"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| (hit["nombre"].as_str().unwrap().to_owned(), hit["sorteado"] == true))
        .collect();
    assert!(
        named.contains(&("Pozo misterioso".to_owned(), true)) && named.contains(&("Asiento caliente".to_owned(), true)),
        "{named:?}"
    );
    // After the hit the new cycle's ceiling is on the sign again.
    let meter = pool["niveles"].as_array().unwrap().iter().find(|level| level["nombre"] == "Misterioso").unwrap();
    assert_eq!(meter["tope"], "Debe salir antes de $ 20.100,00");

    // The pool's page lists both hits with their table and seat, and the level's one hit.
    let supervisor = signed_in(&base, "sup-carla", "carla-ejemplo").await;
    let pool_page = signed_page(&supervisor, &base, "/sala/pozos/mercado-gran-sala").await;
    for (prize, at) in [("Pozo misterioso", hit), ("Asiento caliente", hot)] {
        let row = format!("<td>{}</td><td>{}</td><td>{prize}</td>", at.table_id, at.seat);
        assert!(pool_page.contains(&row), "{row} in {pool_page}");
    }

    // The books tie with the hit: the pool's, the mystery level's own (its award exactly the
    // trigger), and the house level's (the hot seat); and the liability's pool line adds up.
    let books = client.reports.reconciliation(pb::ReconciliationRequest::default()).await.expect("books").into_inner();
    assert!(books.tied, "{books:?}");
    let link = books.pools.iter().find(|pool| pool.pool_id == POOL).expect("the link's books");
    let level_books = link.levels.iter().find(|level| level.name == "Misterioso").expect("the level's books");
    assert_eq!(amount(&level_books.difference), "0.00");
    let all = reveals(&mut client).await;
    let triggers: Money = all.iter().map(|reveal| serde_json::from_value::<Money>(reveal["trigger"].clone()).unwrap()).sum();
    assert_eq!((amount(&level_books.awards).parse::<Money>().unwrap(), level_books.hits), (triggers, all.len() as u64));
    let house = link.levels.iter().find(|level| level.house).expect("the house's books");
    assert!(amount(&house.awards).parse::<Money>().unwrap() >= "10000.00".parse().unwrap(), "{house:?}");
    let liability = client.reports.liability(pb::LiabilityRequest::default()).await.expect("liability").into_inner();
    let owed = liability.pools.iter().find(|pool| pool.pool_id == POOL).expect("the link's liability");
    let money = |value: &Option<pb::Amount>| amount(value).parse::<Money>().unwrap();
    assert_eq!(money(&owed.owed), money(&owed.balance) - money(&owed.seed) + money(&owed.reserve), "{owed:?}");
    let report = client.pool(POOL).await;
    assert_eq!(money(&owed.balance), money(&report.balance));
    let sums = liability.now.expect("the sums");
    let pools: Money = liability.pools.iter().map(|pool| money(&pool.owed)).sum();
    assert_eq!(money(&sums.pools), pools);
    assert_eq!(
        money(&sums.total),
        money(&sums.pools) + money(&sums.pending_orders) + money(&sums.credits) + money(&sums.stakes) + money(&sums.custody)
    );
    server.stop().await;
}

/// The market's example rulebook, from the repository (run from the crate's directory).
const MERCADO_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../config/mercado.toml");

fn award(round: &str, extra: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("round.json");
    std::fs::write(&path, round).expect("round file written");
    let mut args = vec!["award", "--round", path.to_str().unwrap(), "--rulebook", MERCADO_FILE];
    args.extend_from_slice(extra);
    std::process::Command::new(BIN).args(&args).output().expect("pozo-server runs")
}

// Proves the calculator says what a mystery hit pays — the trigger, drawn between the reset and
// the ceiling, unknown until the hit — and refuses to compute a drawn prize as if entered.
#[test]
fn the_calculator_says_what_a_mystery_hit_pays_and_refuses_to_compute_one() {
    let levels = r#""levels": {"Major": {"balance": "200000.00"}, "Mini": {"balance": "10120.00"}}"#;
    let round = |code: &str| {
        format!(
            r#"{{"pool": "{POOL}", "balance": "1000000.00", {levels}, "winners": [{{"seat": 1, "code": "{code}", "bet": "1000.00"}}]}}"#
        )
    };
    for code in ["MISTERIOSO", "ASIENTO_CALIENTE"] {
        let output = award(&round(code), &[]);
        assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stdout));
        let refused = String::from_utf8_lossy(&output.stderr);
        assert!(refused.contains("winners[0].code") && refused.contains(code), "{refused}");
        assert!(refused.contains("never entered") || refused.contains("no round file decides it"), "{refused}");
    }
    let refused = String::from_utf8_lossy(&award(&round("MISTERIOSO"), &[]).stderr).into_owned();
    assert!(
        refused.contains("$ 20.000,00") && refused.contains("$ 60.000,00") && refused.contains("unknown until the hit"),
        "{refused}"
    );

    // A hand's prize: computed as ever, the report saying what the mystery level pays.
    let prizes: Vec<String> = {
        let rules = common::market::enlace();
        let rules = rules.rulebooks.pool(POOL).expect("the link");
        rules
            .prizes
            .iter()
            .filter(|prize| !rules.is_drawn(&prize.code) && prize.envy_of.is_none())
            .map(|prize| prize.code.to_string())
            .collect()
    };
    let output = award(&round(&prizes[0]), &[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(report["mystery"][0]["level"], "Misterioso");
    assert_eq!(report["mystery"][0]["code"], "MISTERIOSO");
    assert_eq!(
        (report["mystery"][0]["from"].as_str(), report["mystery"][0]["must_hit_by"].as_str()),
        (Some("20000.00"), Some("60000.00"))
    );
    assert_eq!(report["mystery"][0]["hot_seat"]["amount"], "10000.00");
    let words = award(&round(&prizes[0]), &["--text"]);
    let words = String::from_utf8_lossy(&words.stdout);
    assert!(
        words.contains("Nivel misterioso Misterioso (MISTERIOSO)") && words.contains("desconocido hasta el acierto"),
        "{words}"
    );
}
