//! What the read side shows of a pool with levels (docs/readings.md, "Levels"; docs/api.md,
//! "Levels"), through the real controller on 127.0.0.1:0 with the market's example
//! configuration (`config/examples/mercado-casino.toml` with `config/iplyc.toml` and
//! `config/mercado.toml`): the four-level Black Jack link at B1–B4 in Reports/Pool, Pools/Status,
//! the display feed, the tables' pushes and paytable, the pages and `/metrics`; and a pool of one
//! level, which lists no levels anywhere.

mod common;

use common::market::*;
use common::*;
use pozo_engine::Money;
use pozo_proto::v1 as pb;
use prost::Message;
use reqwest::StatusCode;
use reqwest::header::LOCATION;

const LINK: &str = "mercado-blackjack";
const HOUSE: &str = "Pagado por la casa";

fn pesos(text: &str) -> Money {
    text.parse().unwrap_or_else(|_| panic!("an amount: {text}"))
}

fn money(value: &Option<pb::Amount>) -> Money {
    pesos(&amount(value))
}

/// Bets of one credit at seats 1 and 2 of B1, B2 and B3, each table's round started: six bets of
/// $ 1.000,00 into the link, each split by the rulebook (config/mercado.toml): 80 to the Grand and
/// 20 to its reserve, 50 to the Major, 30 to the Minor, 20 to the Mini.
async fn six_bets(client: &mut Client) {
    for table in ["B1", "B2", "B3"] {
        client.ok(table, open()).await;
        for seat in [1, 2] {
            client.ok(table, sell(seat, 1)).await;
            client.ok(table, press(seat)).await;
        }
        client.ok(table, start()).await;
    }
}

/// The Grand at B2 seat 1 (100 % of its meter: through Venta-Pagos, 3.5.2) and a Black Jack of
/// ace and king of one suit at seat 2 (5 × the bet, paid by the house at the table).
async fn grand_at_b2(client: &mut Client) -> pb::SubmitReply {
    client.ok("B2", prize(1, "TRES_SIETES_CORAZONES")).await;
    client.ok("B2", prize(2, "BJ_AS_REY_MISMO_PALO")).await;
    client.ok("B2", accept()).await
}

/// One level as the tests compare it: (name, balance, reserve, displayed, reset, house).
type Amounts = (String, Money, Money, Money, Money, bool);

fn amounts(level: &pb::Level) -> Amounts {
    (level.name.clone(), money(&level.balance), money(&level.reserve), money(&level.displayed), money(&level.reset), level.house)
}

fn level(name: &str, balance: &str, reserve: &str, displayed: &str, reset: &str, house: bool) -> Amounts {
    (name.to_owned(), pesos(balance), pesos(reserve), pesos(displayed), pesos(reset), house)
}

/// The four meters after the six bets.
fn four_after_bets() -> Vec<Amounts> {
    vec![
        level("Grand", "2000480.00", "120.00", "2000480.00", "2000000.00", false),
        level("Major", "200300.00", "0.00", "200300.00", "200000.00", false),
        level("Minor", "50180.00", "0.00", "50180.00", "50000.00", false),
        level("Mini", "10120.00", "0.00", "10120.00", "10000.00", false),
    ]
}

/// A level's books tie to zero: balance + reserve = contributions + replenishments + transfers in
/// + adjustments up − awards − transfers out − adjustments down, and the report says so.
fn assert_ties(level: &pb::Level) {
    let lines = money(&level.contributions) + money(&level.replenishments) + money(&level.transfers_in)
        - money(&level.awards)
        - money(&level.transfers_out)
        + money(&level.adjustments_up)
        - money(&level.adjustments_down);
    assert_eq!(money(&level.balance) + money(&level.reserve), lines, "{level:?}");
    assert_eq!(money(&level.difference), Money::ZERO, "{level:?}");
}

/// The report's levels add up to the pool's figures (docs/api.md, "Levels").
fn assert_levels_add_up(report: &pb::PoolReport) {
    let sum = |field: fn(&pb::Level) -> &Option<pb::Amount>| report.levels.iter().map(|level| money(field(level))).sum::<Money>();
    assert_eq!(sum(|level| &level.balance), money(&report.balance));
    assert_eq!(sum(|level| &level.reserve), money(&report.reserve));
    assert_eq!(sum(|level| &level.contributions), money(&report.contributions));
    assert_eq!(
        sum(|level| &level.awards),
        money(&report.awards) - money(&report.awards_returned) - money(&report.awards_reclaimed)
    );
    assert_eq!(sum(|level| &level.replenishments), money(&report.replenishments) - money(&report.replenishments_withdrawn));
    assert_eq!(report.levels.iter().map(|level| level.hits).sum::<u64>(), report.hits);
}

async fn status_of(client: &mut Client, pool: &str) -> pb::PoolStatus {
    let request = pb::PoolStatusRequest { pool_ids: vec![pool.to_owned()] };
    client.pools.status(request).await.expect("Pools/Status").into_inner().pools.remove(0)
}

async fn display_of(client: &mut Client, pool: &str) -> pb::PoolDisplay {
    let request = pb::WatchDisplays { pool_ids: vec![pool.to_owned()], salon_id: String::new() };
    let mut feed = client.display.watch(request).await.expect("Display/Watch").into_inner();
    feed.message().await.expect("the feed").expect("a first update").pools.remove(0)
}

async fn prizes_of(client: &mut Client, table: &str) -> pb::PrizeList {
    let payload = pb::WatchTable { table_id: table.to_owned(), ..Default::default() }.encode_to_vec();
    let envelope = client.envelope_as(&format!("mesa-{table}"), pozo_proto::Purpose::WatchTable, payload);
    client.table.prizes(envelope).await.expect("Table/Prizes").into_inner()
}

async fn get(url: String) -> String {
    let response = reqwest::get(&url).await.expect("GET answered");
    assert_eq!(response.status(), StatusCode::OK, "{url}");
    response.text().await.expect("a body")
}

/// The pool's section of the cartel page.
fn section<'a>(html: &'a str, pool: &str) -> &'a str {
    let section = html.split(&format!("id=\"pozo-{pool}\"")).nth(1).unwrap_or_else(|| panic!("{pool} on the sign: {html}"));
    section.split("</section>").next().expect("closed")
}

/// A supervisor's browser on the pages (the example keys' page password).
async fn supervisor(base: &str) -> reqwest::Client {
    let http = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("an HTTP client");
    let login = http.get(format!("{base}/ingresar")).send().await.expect("GET").text().await.expect("a body");
    let marker = "name=\"csrf\" value=\"";
    let start = login.find(marker).expect("a csrf token") + marker.len();
    let token = &login[start..start + login[start..].find('"').expect("closed")];
    let form = [("usuario", "sup-carla"), ("contrasena", "carla-ejemplo"), ("csrf", token), ("destino", "/sala")];
    let response = http.post(format!("{base}/ingresar")).form(&form).send().await.expect("POST");
    assert_eq!(response.status(), StatusCode::SEE_OTHER, "signed in: {:?}", response.headers().get(LOCATION));
    http
}

async fn page(http: &reqwest::Client, url: String) -> String {
    let response = http.get(&url).send().await.expect("GET answered");
    assert_eq!(response.status(), StatusCode::OK, "{url}");
    response.text().await.expect("a body")
}

// Proves Reports/Pool of the four-level link: after six bets at B1–B3 and the Grand won at B2
// (with a Black Jack of one suit the house pays at the same table), it lists the four levels and
// the house's, each with its exact balance, reserve, meter, reset and net meters, each tied to
// zero, and the pool's figures are the levels' added; its last hits name the level each was paid
// from. Pools/Status and the display feed list the four meters with their exact amounts, never
// the house's level; the feed names the level of the last win and of each hit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_report_status_and_feed_read_a_four_level_link_level_by_level() {
    let server = TestServer::with_config(mercado()).await;
    let mut client = server.client().await;
    six_bets(&mut client).await;

    let report = client.pool(LINK).await;
    let listed: Vec<Amounts> = report.levels.iter().map(amounts).collect();
    let mut expected = four_after_bets();
    expected.push(level(HOUSE, "0.00", "0.00", "0.00", "0.00", true));
    assert_eq!(listed, expected);
    report.levels.iter().for_each(assert_ties);
    assert_levels_add_up(&report);
    let status = status_of(&mut client, LINK).await;
    assert_eq!(status.levels.iter().map(amounts).collect::<Vec<_>>(), four_after_bets(), "no house level: {status:?}");
    let display = display_of(&mut client, LINK).await;
    let meters: Vec<(String, Money)> = display.levels.iter().map(|level| (level.name.clone(), money(&level.displayed))).collect();
    let four: Vec<(String, Money)> = four_after_bets().into_iter().map(|level| (level.0, level.3)).collect();
    assert_eq!(meters, four, "the feed's meters, never the house's");
    assert_eq!(display.increment_rate, "0.18", "the link grows by its levels' shares: 8 + 5 + 3 + 2 %");

    let reply = grand_at_b2(&mut client).await;
    let paid: Vec<(String, Money)> = reply.awards.iter().map(|award| (award.code.clone(), money(&award.award))).collect();
    assert_eq!(
        paid,
        [("TRES_SIETES_CORAZONES".to_owned(), pesos("2000480.00")), ("BJ_AS_REY_MISMO_PALO".to_owned(), pesos("5000.00"))]
    );
    let report = client.pool(LINK).await;
    // The Grand paid whole and reset: its reserve first, then the house (1,999,880.00); the house
    // paid the Black Jack with its own money, booked as its replenishment.
    let grand = &report.levels[0];
    assert_eq!(amounts(grand), level("Grand", "2000000.00", "0.00", "2000000.00", "2000000.00", false));
    assert_eq!(
        (money(&grand.contributions), money(&grand.replenishments), money(&grand.awards), grand.hits),
        (pesos("600.00"), pesos("3999880.00"), pesos("2000480.00"), 1)
    );
    for (index, (name, balance, contributions, reset)) in [
        ("Major", "200300.00", "300.00", "200000.00"),
        ("Minor", "50180.00", "180.00", "50000.00"),
        ("Mini", "10120.00", "120.00", "10000.00"),
    ]
    .into_iter()
    .enumerate()
    {
        let level = &report.levels[index + 1];
        assert_eq!(amounts(level), (name.to_owned(), pesos(balance), Money::ZERO, pesos(balance), pesos(reset), false));
        assert_eq!(
            (money(&level.contributions), money(&level.replenishments), money(&level.awards), level.hits),
            (pesos(contributions), pesos(reset), Money::ZERO, 0),
            "{name} did not move"
        );
    }
    let house = &report.levels[4];
    assert_eq!(amounts(house), level(HOUSE, "0.00", "0.00", "0.00", "0.00", true));
    assert_eq!(
        (money(&house.contributions), money(&house.replenishments), money(&house.awards), house.hits),
        (Money::ZERO, pesos("5000.00"), pesos("5000.00"), 1),
        "what the house paid"
    );
    report.levels.iter().for_each(assert_ties);
    assert_levels_add_up(&report);
    let hits: Vec<(&str, &str, &str)> =
        report.last_hits.iter().map(|hit| (hit.code.as_str(), hit.level.as_str(), hit.table_id.as_str())).collect();
    assert_eq!(hits, [("BJ_AS_REY_MISMO_PALO", HOUSE, "B2"), ("TRES_SIETES_CORAZONES", "Grand", "B2")]);

    let status = status_of(&mut client, LINK).await;
    let names: Vec<&str> = status.levels.iter().map(|level| level.name.as_str()).collect();
    assert_eq!(names, ["Grand", "Major", "Minor", "Mini"]);
    assert_eq!(money(&status.levels[0].displayed), pesos("2000000.00"));
    assert_eq!(status.levels.iter().map(|level| money(&level.balance)).sum::<Money>(), money(&status.balance));
    let display = display_of(&mut client, LINK).await;
    assert_eq!(display.levels.len(), 4, "{display:?}");
    assert_eq!((display.levels[0].name.as_str(), money(&display.levels[0].displayed)), ("Grand", pesos("2000000.00")));
    let win = display.last_win.as_ref().expect("the last win");
    assert_eq!((win.table_id.as_str(), win.code.as_str(), win.level.as_str()), ("B2", "TRES_SIETES_CORAZONES", "Grand"));
    let pending: Vec<(&str, &str)> = display.pending.iter().map(|hit| (hit.level.as_str(), hit.table_id.as_str())).collect();
    assert_eq!(pending, [("Grand", "B2")], "the Grand waits for Venta-Pagos");
    let feed_hits: Vec<(&str, &str)> = display.hits.iter().map(|hit| (hit.code.as_str(), hit.level.as_str())).collect();
    assert_eq!(feed_hits, [("BJ_AS_REY_MISMO_PALO", HOUSE), ("TRES_SIETES_CORAZONES", "Grand")]);
    server.stop().await;
}

// Proves what a table of the link is pushed and shown: B4, where nothing was played, is pushed
// the four meters as the bets at B1–B3 and the Grand at B2 move them (never the house's level),
// and its paytable names each prize's level and what it pays in words; Three Card Poker's envy
// bonus says whose hand gives it and that the house pays it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_of_the_link_is_pushed_every_meter_and_told_each_prizes_level() {
    let server = TestServer::with_config(mercado()).await;
    let mut client = server.client().await;
    let meters = |view: &pb::TableView| -> Vec<(String, Money, Money)> {
        view.levels.iter().map(|level| (level.name.clone(), money(&level.displayed), money(&level.reset))).collect()
    };
    let before = client.view("B4").await;
    assert_eq!(
        meters(&before),
        [
            ("Grand".to_owned(), pesos("2000000.00"), pesos("2000000.00")),
            ("Major".to_owned(), pesos("200000.00"), pesos("200000.00")),
            ("Minor".to_owned(), pesos("50000.00"), pesos("50000.00")),
            ("Mini".to_owned(), pesos("10000.00"), pesos("10000.00")),
        ]
    );
    six_bets(&mut client).await;
    let after_bets: Vec<(String, Money, Money)> =
        four_after_bets().into_iter().map(|level| (level.0, level.3, level.4)).collect();
    assert_eq!(meters(&client.view("B4").await), after_bets, "B4 is pushed what B1–B3 did");
    let reply = grand_at_b2(&mut client).await;
    let view = reply.table.expect("the table");
    assert_eq!((view.levels[0].name.as_str(), money(&view.levels[0].displayed)), ("Grand", pesos("2000000.00")));
    assert_eq!(meters(&client.view("B4").await), meters(&view), "every table of the link shows the same meters");

    let list = prizes_of(&mut client, "B4").await;
    let line = |code: &str| {
        let line = list.prizes.iter().find(|line| line.code == code).unwrap_or_else(|| panic!("{code} in {list:?}"));
        (line.level.clone(), line.pays.clone())
    };
    assert_eq!(line("TRES_SIETES_CORAZONES"), ("Grand".to_owned(), "100 % del Grand".to_owned()));
    assert_eq!(line("TRES_SIETES"), ("Mini".to_owned(), "100 % del Mini".to_owned()));
    assert_eq!(line("BJ_AS_REY_MISMO_PALO"), (HOUSE.to_owned(), "5 veces la apuesta, pagado por la casa".to_owned()));
    let list = prizes_of(&mut client, "CP1").await;
    let envy = list.prizes.iter().find(|line| line.code == "ENVIDIA_MINI_ROYAL_PICAS").expect("the envy line");
    assert_eq!(envy.level, HOUSE);
    assert_eq!(
        envy.pays,
        "envidia por Mini Royal de picas: $ 50.000,00 a cada otro puesto con apuesta de la mesa, pagado por la casa"
    );
    let royal = list.prizes.iter().find(|line| line.code == "MINI_ROYAL_PICAS").expect("the meter's prize");
    assert_eq!(
        (royal.level.as_str(), royal.pays.as_str()),
        ("Mini Royal", "100 % del Mini Royal; da envidia a los demás puestos con apuesta")
    );
    server.stop().await;
}

// Proves the pages of the link (docs/pages.md): the cartel, as an HTTP GET, shows the four level
// names with their amounts the Argentine way (a non-breaking space after `$`) and never the
// house's level, and after the Grand at B2 its last hits say the level won and the table
// (COMAR 36.05.03.24 F(3)(c)); the sign's feed carries the levels; `/metrics` has one line per
// level; `/status` lists the levels; the sala and the flor show the meters per level; the
// Venta-Pagos office shows the order's level.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pages_show_each_levels_meter_and_where_a_level_was_won() {
    let server = TestServer::with_config(mercado()).await;
    let base = server.pages_url();
    let mut client = server.client().await;
    six_bets(&mut client).await;

    let html = get(format!("{base}/cartel?pozo={LINK}")).await;
    let sign = section(&html, LINK);
    for (name, shown) in [("Grand", "2.000.480,00"), ("Major", "200.300,00"), ("Minor", "50.180,00"), ("Mini", "10.120,00")] {
        assert!(
            sign.contains(&format!(
                "<span class=\"nombre-nivel\">{name}</span> <span class=\"monto-nivel\">$\u{a0}{shown}</span>"
            )),
            "{name} $ {shown}: {sign}"
        );
    }
    assert!(!sign.contains(HOUSE), "the house's level is on no sign: {sign}");
    assert!(sign.contains("Incremento: 18 % de cada apuesta (Grand 8 %, Major 5 %, Minor 3 %, Mini 2 %)"), "{sign}");

    grand_at_b2(&mut client).await;
    let html = get(format!("{base}/cartel?pozo={LINK}")).await;
    let sign = section(&html, LINK);
    assert!(sign.contains("<span class=\"monto-nivel\">$\u{a0}2.000.000,00</span>"), "the Grand back at its reset: {sign}");
    // Each hit says on screen what was won and how its payment stands (issue 45, point 9).
    assert!(
        sign.contains(" · Grand · Tres sietes de corazones · Mesa B2 · Pos. 1 · $\u{a0}2.000.480,00 · PENDIENTE DE PAGO</li>"),
        "{sign}"
    );
    let house = " · Black Jack de As y Rey del mismo palo · Mesa B2 · Pos. 2 · $\u{a0}5.000,00 · pagado</li>";
    let level_before = sign.split(house).next().and_then(|before| before.rsplit(" · ").next()).unwrap_or_default();
    assert!(
        sign.contains(house) && level_before.ends_with(|c: char| c.is_ascii_digit()),
        "the house's prize, without a level: {sign}"
    );
    assert!(!sign.contains(HOUSE), "{sign}");

    // The sign's own feed (`pozos` events, at most one frame every 50 ms: the first state a sign
    // gets may be a frame old); the state after the hit lists the levels and names the level won.
    let mut events = reqwest::get(format!("{base}/cartel/eventos")).await.expect("the feed opens");
    let mut text = String::new();
    let floor = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        loop {
            while let Some(end) = text.find("\n\n") {
                let block: String = text.drain(..end + 2).collect();
                let Some(data) = block
                    .strip_prefix("event: pozos\n")
                    .and_then(|rest| rest.lines().find_map(|line| line.strip_prefix("data: ")))
                else {
                    continue;
                };
                let floor: serde_json::Value = serde_json::from_str(data).expect("JSON");
                let link = floor["pozos"].as_array().expect("pozos").iter().find(|pool| pool["id"] == LINK).expect("the link");
                if !link["ultimos"].as_array().expect("ultimos").is_empty() {
                    return floor;
                }
            }
            let chunk = events.chunk().await.expect("the feed").expect("an event");
            text.push_str(std::str::from_utf8(&chunk).expect("UTF-8"));
        }
    })
    .await
    .expect("the hit on the sign's feed");
    let pool = floor["pozos"].as_array().expect("pozos").iter().find(|pool| pool["id"] == LINK).expect("the link");
    let levels: Vec<(&str, &str)> = pool["niveles"]
        .as_array()
        .expect("niveles")
        .iter()
        .map(|level| (level["nombre"].as_str().expect("nombre"), level["monto"].as_str().expect("monto")))
        .collect();
    assert_eq!(
        levels,
        [("Grand", "$ 2.000.000,00"), ("Major", "$ 200.300,00"), ("Minor", "$ 50.180,00"), ("Mini", "$ 10.120,00")]
    );
    assert_eq!((pool["ultimos"][1]["nivel"].as_str(), pool["ultimos"][1]["mesa"].as_str()), (Some("Grand"), Some("B2")));
    assert!(pool["ultimos"][0].get("nivel").is_none(), "the house's prize names no level on a sign: {pool}");
    drop(events);

    let metrics = get(format!("{base}/metrics")).await;
    let lines: Vec<&str> = metrics.lines().filter(|line| line.starts_with("pozo_level_displayed_centavos{")).collect();
    for (name, centavos) in [("Grand", 200_000_000), ("Major", 20_030_000), ("Minor", 5_018_000), ("Mini", 1_012_000)] {
        let line = format!("pozo_level_displayed_centavos{{pool=\"{LINK}\",level=\"{name}\"}} {centavos}");
        assert!(lines.contains(&line.as_str()), "{line} in {lines:?}");
    }
    assert_eq!(lines.iter().filter(|line| line.contains(LINK)).count(), 4, "{lines:?}");
    assert!(!lines.iter().any(|line| line.contains(HOUSE)), "{lines:?}");
    assert!(!lines.iter().any(|line| line.contains("iplyc-ruleta")), "a pool of one level has no level line: {lines:?}");

    let status: serde_json::Value = serde_json::from_str(&get(format!("{base}/status")).await).expect("JSON");
    let pool = status["pools"].as_array().expect("pools").iter().find(|pool| pool["pool"] == LINK).expect("the link");
    let levels: Vec<(&str, &str)> = pool["levels"]
        .as_array()
        .expect("levels")
        .iter()
        .map(|level| (level["name"].as_str().expect("name"), level["displayed"].as_str().expect("displayed")))
        .collect();
    assert_eq!(levels, [("Grand", "2000000.00"), ("Major", "200300.00"), ("Minor", "50180.00"), ("Mini", "10120.00")]);
    let ruleta = status["pools"].as_array().expect("pools").iter().find(|pool| pool["pool"] == "iplyc-ruleta").expect("ruleta");
    assert!(ruleta.get("levels").is_none(), "{ruleta}");

    let carla = supervisor(&base).await;
    let sala = page(&carla, format!("{base}/sala/mesas")).await;
    assert!(
        sala.contains(&format!(
            "<tr class=\"nivel\" data-pozo=\"{LINK}\" data-nivel=\"Major\">\n    <td>Nivel Major</td><td class=\"num\">$\u{a0}200.300,00</td>"
        )),
        "{sala}"
    );
    assert!(!sala.contains(&format!("data-nivel=\"{HOUSE}\"")), "{sala}");
    let flor = page(&carla, format!("{base}/sala/flor/F2")).await;
    let b4 = flor.split("data-mesa=\"B4\"").nth(1).expect("B4 on the flor");
    assert!(
        b4.contains("<span class=\"nivel\" data-nivel=\"Mini\">Mini <strong class=\"monto\">$\u{a0}10.120,00</strong></span>"),
        "{b4}"
    );
    let pool_page = page(&carla, format!("{base}/sala/pozos/{LINK}")).await;
    assert!(pool_page.contains(&format!("<tr data-nivel=\"{HOUSE}\" class=\"casa\"><th>{HOUSE}</th>")), "{pool_page}");
    let office = page(&carla, format!("{base}/venta-pagos")).await;
    assert!(office.contains("<span class=\"nivel\">Nivel Grand</span> · Tres sietes de corazones"), "{office}");
    server.stop().await;
}

// Proves the choice docs/api.md states: a pool of one level (every pool of the regulations) lists
// no levels — not in Reports/Pool, Pools/Status, the display feed or a table's pushes — its own
// figures are its one level's; its hits and paytable name no level, and its sign keeps its one
// amount.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pool_of_one_level_lists_no_levels() {
    let server = TestServer::with_pages().await;
    let mut client = server.client().await;
    client.ok("B3", open()).await;
    client.sell_and_press("B3", [1, 2], 5).await;
    client.ok("B3", start()).await;
    client.ok("B3", prize(1, "TRES_SIETES_CORAZONES")).await;
    client.ok("B3", accept()).await;
    let report = client.pool("iplyc-blackjack").await;
    assert_eq!(report.hits, 1);
    assert!(report.levels.is_empty(), "{:?}", report.levels);
    assert_eq!(report.last_hits[0].level, "", "no level to name");
    assert!(status_of(&mut client, "iplyc-blackjack").await.levels.is_empty());
    let display = display_of(&mut client, "iplyc-blackjack").await;
    assert!(display.levels.is_empty());
    assert_eq!(display.last_win.as_ref().map(|win| win.level.as_str()), Some(""));
    assert_eq!(display.increment_rate, "0.65", "11.2.3: 65 % of each bet, as before");
    assert!(client.view("B3").await.levels.is_empty());
    let list = prizes_of(&mut client, "B3").await;
    assert!(list.prizes.iter().all(|line| line.level.is_empty()), "{list:?}");
    let top = list.prizes.iter().find(|line| line.code == "TRES_SIETES_CORAZONES").expect("11.5.1");
    assert!(top.pays.ends_with(" del pozo"), "{top:?}");
    let html = get(format!("{}/cartel?pozo=iplyc-blackjack", server.pages_url())).await;
    let sign = section(&html, "iplyc-blackjack");
    assert!(sign.contains("<div class=\"monto\" data-campo=\"monto\">—</div>") && !sign.contains("niveles"), "{sign}");
    server.stop().await;
}
