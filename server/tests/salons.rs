//! Salons and wide-area pools (docs/operations.md §17), against the real controller on
//! 127.0.0.1:0 with the example layout of two salons (`config/examples/salones.toml`): the
//! Black Jack pool is fed by B1 and B2 in the Salón Central and by B3 and B4 in the Salón
//! Norte; the roulette and AJ pools by the Central only, Central Póker and the Andalusian
//! pools by the Norte only. Bets at both salons raise the one shared pool, each salon's signs
//! (gRPC feed and `/cartel?salon=`) show its own pools, and the reports split each pool by
//! salon, adding up exactly.

mod common;

use std::time::Duration;

use common::*;
use pozo_engine::Money;
use pozo_engine::rulebook::EMBEDDED;
use pozo_proto::v1 as pb;
use pozo_server::config::{Config, KEYS_EMBEDDED};
use reqwest::StatusCode;
use tonic::Code;

/// Every wait for something that should happen at once.
const WAIT: Duration = Duration::from_secs(10);

/// The example layout of two salons, with the embedded rulebooks and keys.
fn salones() -> Config {
    let layout = ("config/examples/salones.toml", include_str!("../../config/examples/salones.toml"));
    let mut texts = vec![(layout.0.to_owned(), layout.1.to_owned())];
    texts.extend(EMBEDDED.iter().map(|(name, text)| ((*name).to_owned(), (*text).to_owned())));
    Config::from_texts(texts).and_then(|config| config.with_keys(KEYS_EMBEDDED.0, KEYS_EMBEDDED.1)).expect("the example layout")
}

fn money(value: &Option<pb::Amount>) -> Money {
    amount(value).parse().unwrap_or_else(|_| panic!("an amount: {value:?}"))
}

/// What one registered Black Jack side bet adds to its pool: the bet times the increment
/// (11.2.3: the main share; the reserve share, none in IPLyC).
fn blackjack_increment(config: &Config) -> Money {
    let rules = config.rulebooks.pool("iplyc-blackjack").expect("the Black Jack pool");
    rules.side_bet * (rules.contribution_rate + rules.reserve_rate)
}

async fn balance(client: &mut Client, pool: &str) -> Money {
    let status = client.pools.status(pb::PoolStatusRequest { pool_ids: vec![pool.to_owned()] }).await.expect("pools");
    money(&status.into_inner().pools[0].balance)
}

/// The pools of a display update, sorted.
fn pool_ids(update: &pb::DisplayUpdate) -> Vec<String> {
    let mut ids: Vec<String> = update.pools.iter().map(|pool| pool.pool_id.clone()).collect();
    ids.sort();
    ids
}

/// The display feed of `salon_id`.
async fn salon_feed(client: &mut Client, salon_id: &str) -> tonic::Streaming<pb::DisplayUpdate> {
    let request = pb::WatchDisplays { salon_id: salon_id.to_owned(), ..Default::default() };
    client.display.watch(request).await.unwrap_or_else(|status| panic!("the feed of {salon_id}: {status:?}")).into_inner()
}

/// `pozo_displays_watching` on `/metrics`.
async fn displays_watching(server: &TestServer) -> String {
    let text = reqwest::get(format!("{}/metrics", server.pages_url())).await.expect("metrics").text().await.expect("text");
    text.lines()
        .find_map(|line| line.strip_prefix("pozo_displays_watching "))
        .unwrap_or_else(|| panic!("pozo_displays_watching in {text}"))
        .to_owned()
}

// Proves the wide-area pool: a bet at a table of the Salón Central and a bet at a table of the
// Salón Norte each raise the one Black Jack pool by the increment, both tables show the same
// amount, and the pools of one salon do not move. The salons are part of the settings hashed
// into the journal's genesis: a restart with the same layout keeps the books, and the same
// tables without the salons are another configuration, refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bets_at_tables_of_two_salons_raise_the_one_shared_pool() {
    let config = salones();
    let increment = blackjack_increment(&config);
    let server = TestServer::with_config(salones()).await;
    let mut client = server.client().await;
    for table in ["B1", "B3"] {
        client.open_with_credits(table, &[(1, 5)]).await;
    }
    let start_balance = balance(&mut client, "iplyc-blackjack").await;
    let ruleta = balance(&mut client, "iplyc-ruleta").await;
    let central_poker = balance(&mut client, "iplyc-central-poker").await;

    // Salón Central.
    client.ok("B1", press(1)).await;
    let b1 = client.ok("B1", start()).await.table.expect("B1's view");
    assert_eq!(balance(&mut client, "iplyc-blackjack").await, start_balance + increment, "B1 (central) raised the pool");
    assert_eq!(money(&client.view("B3").await.displayed), money(&b1.displayed), "B3, in the Norte, shows the same amount");

    // Salón Norte.
    client.ok("B3", press(1)).await;
    let b3 = client.ok("B3", start()).await.table.expect("B3's view");
    let shared = balance(&mut client, "iplyc-blackjack").await;
    assert_eq!(shared, start_balance + increment + increment, "B3 (norte) raised the same pool");
    assert_eq!(money(&client.view("B1").await.displayed), money(&b3.displayed), "B1 shows what B3 raised");
    assert_eq!(balance(&mut client, "iplyc-ruleta").await, ruleta, "the Central's own pool did not move");
    assert_eq!(balance(&mut client, "iplyc-central-poker").await, central_poker, "the Norte's own pool did not move");
    assert_eq!(client.report("B1").await.salon_id, "central");
    assert_eq!(client.report("B3").await.salon_id, "norte");

    // The same layout on the same journal: the books as they were.
    let data = server.data.clone();
    let directory = server.stop().await;
    let server = TestServer::start_config_on(salones(), data.clone()).await;
    let mut client = server.client().await;
    assert_eq!(balance(&mut client, "iplyc-blackjack").await, shared, "replayed under the same salons");
    server.stop().await;
    // The same tables without the salons: another configuration, refused at start.
    let refused = pozo_server::Embedded::start(Config::embedded(), &data, pozo_server::ServeOptions::default())
        .await
        .err()
        .expect("another layout is refused on this journal");
    assert!(
        format!("{refused:#}").contains("the configuration differs from the one this journal was started with"),
        "{refused:#}"
    );
    drop(directory);
}

// Proves the display feed per salon: the Central's feed has its own pools and the shared one,
// not the Norte's own; the Norte's likewise; a bet in the Norte reaches the Central's feed
// through the shared pool. An unknown salon is NOT_FOUND naming the field and the known ids,
// and opens nothing; a pool the salon does not feed is INVALID_ARGUMENT.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_display_feed_of_a_salon_sends_the_pools_its_tables_feed() {
    let config = salones();
    let server = TestServer::with_config(salones()).await;
    let mut client = server.client().await;
    let mut central = salon_feed(&mut client, "central").await;
    let mut norte = salon_feed(&mut client, "norte").await;
    let first = central.message().await.expect("the feed").expect("a first update");
    assert_eq!(pool_ids(&first), ["aj-poker", "iplyc-blackjack", "iplyc-ruleta"]);
    let first_norte = norte.message().await.expect("the feed").expect("a first update");
    assert_eq!(pool_ids(&first_norte), ["and-bolsa", "and-carrusel", "iplyc-blackjack", "iplyc-central-poker"]);

    // A bet in the Norte: the Central's sign shows the shared pool rising.
    let before = first.pools.iter().find(|pool| pool.pool_id == "iplyc-blackjack").map(|pool| money(&pool.displayed));
    client.open_with_bets("B3", &[(2, 5)], &[2]).await;
    let raised = money(&client.ok("B3", start()).await.table.expect("view").displayed);
    assert!(before.is_some_and(|before| raised > before), "{before:?} → {raised}");
    let seen = tokio::time::timeout(WAIT, async {
        loop {
            let update = central.message().await.expect("the feed").expect("an update");
            assert!(!update.pools.iter().any(|pool| pool.pool_id == "iplyc-central-poker"), "the Norte's own pool: {update:?}");
            if update.pools.iter().any(|pool| pool.pool_id == "iplyc-blackjack" && money(&pool.displayed) == raised) {
                return update;
            }
        }
    })
    .await
    .expect("the Central's feed shows the bet made in the Norte");
    assert_eq!(pool_ids(&seen), ["aj-poker", "iplyc-blackjack", "iplyc-ruleta"]);

    // Refusals open nothing: two feeds stay open.
    assert_eq!(displays_watching(&server).await, "2");
    let unknown = client
        .display
        .watch(pb::WatchDisplays { salon_id: "sur".into(), ..Default::default() })
        .await
        .expect_err("an unknown salon");
    assert_eq!(unknown.code(), Code::NotFound, "{}", unknown.message());
    assert_eq!(unknown.message(), "salon_id: no salon `sur` in the layout (known: central, norte)");
    let other = client
        .display
        .watch(pb::WatchDisplays { salon_id: "central".into(), pool_ids: vec!["iplyc-central-poker".into()] })
        .await
        .expect_err("a pool of the other salon");
    assert_eq!(other.code(), Code::InvalidArgument, "{}", other.message());
    assert!(
        other.message().starts_with("pool_ids: no table of salon `central` feeds pool `iplyc-central-poker`"),
        "{}",
        other.message()
    );
    assert_eq!(displays_watching(&server).await, "2", "a refused feed is not counted: nothing was opened");
    // A pool the salon feeds, named: that pool only.
    let mut one = client
        .display
        .watch(pb::WatchDisplays { salon_id: "norte".into(), pool_ids: vec!["iplyc-blackjack".into()] })
        .await
        .expect("a pool of the salon")
        .into_inner();
    assert_eq!(pool_ids(&one.message().await.expect("feed").expect("update")), ["iplyc-blackjack"]);
    assert_eq!(config.salon_ids(), "central, norte");
    drop((central, norte, one));
    server.stop().await;
}

// Proves the cartel per salon: `/cartel?salon=central` names the salon and shows its pools
// only (the shared one included, the Norte's own not); an unknown salon is 404 in Spanish.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cartel_of_a_salon_shows_its_name_and_its_pools_only() {
    let server = TestServer::with_config(salones()).await;
    let base = server.pages_url();
    let page = |query: &'static str| {
        let base = base.clone();
        async move {
            let response = reqwest::get(format!("{base}/cartel{query}")).await.expect("GET");
            (response.status(), response.text().await.expect("a body"))
        }
    };
    let (status, html) = page("?salon=central").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("<h1 class=\"salon\" id=\"salon\">Salón Central</h1>"), "{html}");
    assert!(html.contains("data-pozos=\"aj-poker,iplyc-blackjack,iplyc-ruleta\""), "{html}");
    assert!(!html.contains("pozo-iplyc-central-poker") && !html.contains("Salón Norte"), "{html}");
    let (status, html) = page("?salon=norte").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("Salón Norte") && !html.contains("Salón Central"), "{html}");
    assert!(html.contains("data-pozos=\"and-bolsa,and-carrusel,iplyc-blackjack,iplyc-central-poker\""), "{html}");
    assert!(!html.contains("pozo-iplyc-ruleta"), "{html}");
    // The whole floor, as before, names no salon.
    let (status, html) = page("").await;
    assert_eq!(status, StatusCode::OK);
    assert!(!html.contains("class=\"salon\""), "{html}");
    let (status, html) = page("?salon=sur").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(html.contains("salon: no existe el salón `sur` (salones: central, norte)"), "{html}");
    server.stop().await;
}

/// The supervisor's browser on the pages, signed in (docs/pages.md, "Accounts").
async fn supervisor(base: &str) -> reqwest::Client {
    let http = reqwest::Client::builder().cookie_store(true).redirect(reqwest::redirect::Policy::none()).build().expect("HTTP");
    let form = http.get(format!("{base}/ingresar")).send().await.expect("login form").text().await.expect("html");
    let marker = "name=\"csrf\" value=\"";
    let start = form.find(marker).expect("the login form's csrf") + marker.len();
    let csrf = &form[start..start + form[start..].find('"').expect("end")];
    let fields = [("usuario", "sup-carla"), ("contrasena", "carla-ejemplo"), ("csrf", csrf), ("destino", "")];
    let response = http.post(format!("{base}/ingresar")).form(&fields).send().await.expect("login");
    assert_eq!(response.status(), StatusCode::SEE_OTHER, "sup-carla signs in");
    http
}

// Proves the split of the reports: 4 Black Jack bets in the Central (B1 and B2) and 3 in the
// Norte (B3), one of them refunded (11.8.1.2), and a prize at B3; the pool report gives each
// salon exactly its tables' bets × the increment, the salons add up exactly to the jornada's
// total and to the pool's own meters, each salon's prizes are its own; a pool of one salon has
// one line; the report page and its CSV show the same figures.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_report_splits_each_pool_by_salon_adding_up_exactly() {
    let config = salones();
    let increment = blackjack_increment(&config);
    let side_bet = config.rulebooks.pool("iplyc-blackjack").expect("pool").side_bet;
    let server = TestServer::with_config(salones()).await;
    let mut client = server.client().await;
    for (table, seats) in [("B1", &[1, 2, 3][..]), ("B2", &[4]), ("B3", &[1, 2, 3])] {
        client.ok(table, open()).await;
        client.sell_and_press(table, seats.iter().copied(), 5).await;
        client.ok(table, start()).await;
    }
    client.ok("B3", refund_bet(3)).await;
    client.ok("B3", prize(1, "TRES_SIETES_MISMO_PALO")).await;
    client.ok("B3", accept()).await;
    client.open_with_bets("R1", &[(1, 5)], &[1]).await;

    let report = client.pool("iplyc-blackjack").await;
    let salons: Vec<(&str, &str, u64)> =
        report.salons.iter().map(|salon| (salon.salon_id.as_str(), salon.name.as_str(), salon.bets)).collect();
    assert_eq!(salons, [("central", "Salón Central", 4), ("norte", "Salón Norte", 2)]);
    let (central, norte) = (&report.salons[0], &report.salons[1]);
    assert_eq!(money(&central.contributions), increment * rust_decimal::Decimal::from(4), "4 bets × the increment");
    assert_eq!(money(&norte.contributions), increment * rust_decimal::Decimal::from(2), "3 bets, one refunded, × the increment");
    assert_eq!(money(&central.bets_amount), side_bet * rust_decimal::Decimal::from(4));
    // Exactly the pool's total, for the jornada and on the pool's own meters (one jornada here).
    let total = report.jornada_total.as_ref().expect("the jornada's total");
    let sum: Money = report.salons.iter().map(|salon| money(&salon.contributions)).sum();
    assert_eq!(sum, money(&total.contributions));
    assert_eq!(sum, money(&report.contributions), "the salons add up to the pool's contributions meter");
    let bets: Money = report.salons.iter().map(|salon| money(&salon.bets_amount)).sum();
    assert_eq!(bets, money(&report.bets_amount));
    assert_eq!(report.salons.iter().map(|salon| salon.bets).sum::<u64>(), report.bets);
    // The prize was paid at B3: the Norte's, all of the pool's awards.
    assert!(money(&report.awards) > Money::ZERO);
    assert_eq!(money(&norte.awards), money(&report.awards));
    assert_eq!(money(&central.awards), Money::ZERO);
    // A pool of one salon: one line.
    let ruleta = client.pool("iplyc-ruleta").await;
    let lines: Vec<(&str, u64)> = ruleta.salons.iter().map(|salon| (salon.salon_id.as_str(), salon.bets)).collect();
    assert_eq!(lines, [("central", 1)]);
    assert_eq!(money(&ruleta.salons[0].contributions), money(&ruleta.contributions));

    // The jornada named; a jornada without play; a jornada that is not a date.
    let jornada = report.jornada.clone();
    let named = client
        .reports
        .pool(pb::PoolReportRequest { pool_id: "iplyc-blackjack".into(), jornada: jornada.clone() })
        .await
        .expect("the jornada named")
        .into_inner();
    assert_eq!(named.salons, report.salons);
    let quiet = client
        .reports
        .pool(pb::PoolReportRequest { pool_id: "iplyc-blackjack".into(), jornada: "2001-02-03".into() })
        .await
        .expect("a jornada without play")
        .into_inner();
    assert_eq!(quiet.salons.len(), 2);
    assert!(quiet.salons.iter().all(|salon| salon.bets == 0 && money(&salon.contributions) == Money::ZERO), "{quiet:?}");
    let refused = client
        .reports
        .pool(pb::PoolReportRequest { pool_id: "iplyc-blackjack".into(), jornada: "2026-13-45".into() })
        .await
        .expect_err("not a date");
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert_eq!(refused.message(), "jornada: `2026-13-45` is not a date YYYY-MM-DD");

    // The report page and its CSV.
    let base = server.pages_url();
    let carla = supervisor(&base).await;
    let html =
        carla.get(format!("{base}/sala/informe?jornada={jornada}")).send().await.expect("report").text().await.expect("html");
    let row = |salon: &str| {
        let marker = format!("data-pozo=\"iplyc-blackjack\" data-salon=\"{salon}\"");
        let start = html.find(&marker).unwrap_or_else(|| panic!("the line of `{salon}`: {html}"));
        html[start..start + html[start..].find("</tr>").expect("row end")].to_owned()
    };
    // A page holds an amount to its `$` with a non-breaking space (issue 45, point 8).
    let pesos = |value: &Option<pb::Amount>| pozo_engine::format_ars(money(value)).replacen(' ', "\u{a0}", 1);
    assert!(
        row("central").contains("Salón Central") && row("central").contains(&pesos(&central.contributions)),
        "{}",
        row("central")
    );
    assert!(
        row("norte").contains(&pesos(&norte.contributions)) && row("norte").contains(&pesos(&norte.awards)),
        "{}",
        row("norte")
    );
    assert!(row("").contains("Total del pozo") && row("").contains(&pesos(&report.contributions)), "{}", row(""));
    let csv = carla
        .get(format!("{base}/sala/informe-salones.csv?jornada={jornada}"))
        .send()
        .await
        .expect("CSV")
        .text()
        .await
        .expect("text");
    assert!(csv.starts_with("jornada,pozo,salon,nombre_salon,apuestas,ipa,aportes,pppa\n"), "{csv}");
    for salon in &report.salons {
        let line = format!(
            "{jornada},iplyc-blackjack,{},{},{},{},{},{}",
            salon.salon_id,
            salon.name,
            salon.bets,
            amount(&salon.bets_amount),
            amount(&salon.contributions),
            amount(&salon.awards)
        );
        assert!(csv.lines().any(|csv_line| csv_line == line), "{line} in {csv}");
    }
    assert!(csv.lines().any(|line| line.starts_with(&format!("{jornada},iplyc-ruleta,central,"))), "{csv}");
    assert!(!csv.lines().any(|line| line.starts_with(&format!("{jornada},iplyc-ruleta,norte,"))), "{csv}");
    server.stop().await;
}

// Proves that a layout without salons keeps working: one salon, `principal`, named after the
// casino, feeds every pool; its feed is the whole floor, and its report line is the pool's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_layout_without_salons_is_one_salon_named_after_the_casino() {
    let (server, mut client) = TestServer::with_client().await;
    let mut feed = salon_feed(&mut client, "principal").await;
    let every = pool_ids(&feed.message().await.expect("feed").expect("update"));
    let mut all = client.display.watch(pb::WatchDisplays::default()).await.expect("every pool").into_inner();
    assert_eq!(every, pool_ids(&all.message().await.expect("feed").expect("update")));
    client.ok("B3", open()).await;
    let _ = a_pending_order(&mut client, 2).await;
    let report = client.pool("iplyc-blackjack").await;
    let lines: Vec<(&str, &str)> = report.salons.iter().map(|salon| (salon.salon_id.as_str(), salon.name.as_str())).collect();
    assert_eq!(lines, [("principal", "Casino de ejemplo")]);
    assert_eq!(money(&report.salons[0].contributions), money(&report.contributions));
    assert_eq!(client.report("B3").await.salon_id, "principal");
    let unknown =
        client.display.watch(pb::WatchDisplays { salon_id: "central".into(), ..Default::default() }).await.expect_err("no such");
    assert_eq!(unknown.message(), "salon_id: no salon `central` in the layout (known: principal)");
    drop((feed, all));
    server.stop().await;
}
