//! The jornada's books per level (issue 43, item 5; docs/readings.md, "Levels", "The books of a
//! pool with levels") and the payout order's level over gRPC, through the real controller on
//! 127.0.0.1:0 with the market's example configurations (`common::market`): two market nights
//! on the four-level Black Jack link and Three Card Poker, and a night on the cross-game link
//! with a meter per flor.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use common::market::{enlace, mercado};
use common::*;
use pozo_engine::Money;
use pozo_proto::v1 as pb;
use pozo_server::clock::ManualClock;
use pozo_server::config::Config;
use reqwest::StatusCode;

/// 2026-11-22 20:00, UTC-03:00: the first night's jornada is 2026-11-22.
const NIGHT_ONE: u64 = 1_795_305_600_000 + 23 * 3_600_000;
const DAY: u64 = 24 * 3_600_000;

fn money(value: &Option<pb::Amount>) -> Money {
    amount(value).parse().unwrap_or_else(|_| panic!("an amount: {value:?}"))
}

fn pesos(text: &str) -> Money {
    text.parse().expect("an amount")
}

/// A controller with `config`, its pages, and a clock the test sets.
struct Night {
    embedded: pozo_server::Embedded,
    client: Client,
    clock: Arc<ManualClock>,
    _directory: tempfile::TempDir,
}

impl Night {
    async fn start(config: Config) -> Night {
        let directory = tempfile::tempdir().expect("a temporary directory");
        let clock = Arc::new(ManualClock::at(NIGHT_ONE));
        let options = pozo_server::ServeOptions {
            clock: clock.clone(),
            pages: Some("127.0.0.1:0".parse().expect("an address")),
            ..Default::default()
        };
        let embedded =
            pozo_server::Embedded::start(config, &directory.path().join("data"), options).await.expect("the server started");
        let client = connect(&embedded.address.to_string()).await;
        Night { embedded, client, clock, _directory: directory }
    }

    async fn books(&mut self, jornada: &str, through: &str) -> pb::ReconciliationReport {
        let request = pb::ReconciliationRequest { jornada: jornada.to_owned(), through: through.to_owned() };
        self.client.reports.reconciliation(request).await.expect("the books").into_inner()
    }

    async fn stop(self) {
        self.embedded.stop().await.expect("server stopped cleanly");
    }
}

/// The money lines of a pool's or a level's books, by name, in one order.
fn lines(
    opening: (&Option<pb::Amount>, &Option<pb::Amount>),
    amounts: [&Option<pb::Amount>; 12],
    closing: (&Option<pb::Amount>, &Option<pb::Amount>),
) -> Vec<Money> {
    let mut all = vec![money(opening.0), money(opening.1)];
    all.extend(amounts.iter().map(|value| money(value)));
    all.extend([money(closing.0), money(closing.1)]);
    all
}

fn pool_lines(books: &pb::PoolBooks) -> (Vec<Money>, [u64; 6]) {
    let b = books;
    (
        lines(
            (&b.opening_balance, &b.opening_reserve),
            [
                &b.bets_amount,
                &b.contributions,
                &b.replenishments,
                &b.transfers_in,
                &b.adjustments_up,
                &b.awards,
                &b.awards_returned,
                &b.awards_reclaimed,
                &b.replenishments_withdrawn,
                &b.transfers_out,
                &b.adjustments_down,
                &b.difference,
            ],
            (&b.closing_balance, &b.closing_reserve),
        ),
        [b.bets, b.reversals, b.adjustments, b.hits, b.rejections, b.reclaims],
    )
}

fn level_lines(books: &pb::LevelBooks) -> (Vec<Money>, [u64; 6]) {
    let b = books;
    (
        lines(
            (&b.opening_balance, &b.opening_reserve),
            [
                &b.bets_amount,
                &b.contributions,
                &b.replenishments,
                &b.transfers_in,
                &b.adjustments_up,
                &b.awards,
                &b.awards_returned,
                &b.awards_reclaimed,
                &b.replenishments_withdrawn,
                &b.transfers_out,
                &b.adjustments_down,
                &b.difference,
            ],
            (&b.closing_balance, &b.closing_reserve),
        ),
        [b.bets, b.reversals, b.adjustments, b.hits, b.rejections, b.reclaims],
    )
}

/// What the opening and a level's lines make, less its closing: zero when it ties (reconcile.rs).
fn level_difference(b: &pb::LevelBooks) -> Money {
    money(&b.closing_balance) + money(&b.closing_reserve)
        - (money(&b.opening_balance)
            + money(&b.opening_reserve)
            + money(&b.contributions)
            + money(&b.replenishments)
            + money(&b.transfers_in)
            + money(&b.adjustments_up)
            - money(&b.awards)
            + money(&b.awards_returned)
            + money(&b.awards_reclaimed)
            - money(&b.replenishments_withdrawn)
            - money(&b.transfers_out)
            - money(&b.adjustments_down))
}

/// Every pool's books tie, one-level pools have no level lines, and each pool with levels has
/// its levels' lines, each tied to zero on its own, adding up to the pool's line by line.
fn check_levels_add_up(report: &pb::ReconciliationReport, leveled: &[&str]) {
    assert!(report.tied, "{report:?}");
    for pool in &report.pools {
        if !leveled.contains(&pool.pool_id.as_str()) {
            assert!(pool.levels.is_empty(), "a pool of one level has no level lines: {pool:?}");
            continue;
        }
        assert!(!pool.levels.is_empty(), "{} has its levels' lines", pool.pool_id);
        let (mut sums, mut counts) = (vec![Money::ZERO; 16], [0u64; 6]);
        for level in &pool.levels {
            assert_eq!(money(&level.difference), Money::ZERO, "{}: {level:?}", pool.pool_id);
            assert_eq!(level_difference(level), Money::ZERO, "the level's lines make its closing: {level:?}");
            let (amounts, level_counts) = level_lines(level);
            for (sum, line) in sums.iter_mut().zip(amounts) {
                *sum += line;
            }
            for (sum, count) in counts.iter_mut().zip(level_counts) {
                *sum += count;
            }
        }
        let (amounts, pool_counts) = pool_lines(pool);
        assert_eq!(sums, amounts, "{}: the levels' lines add up to the pool's", pool.pool_id);
        assert_eq!(counts, pool_counts, "{}: the levels' counts add up to the pool's", pool.pool_id);
    }
}

fn pool<'a>(report: &'a pb::ReconciliationReport, id: &str) -> &'a pb::PoolBooks {
    report.pools.iter().find(|pool| pool.pool_id == id).unwrap_or_else(|| panic!("{id} in {report:?}"))
}

fn level<'a>(books: &'a pb::PoolBooks, name: &str) -> &'a pb::LevelBooks {
    books.levels.iter().find(|level| level.name == name).unwrap_or_else(|| panic!("level {name} in {books:?}"))
}

fn names(books: &pb::PoolBooks) -> Vec<&str> {
    books.levels.iter().map(|level| level.name.as_str()).collect()
}

/// A page signed in as the supervisor `sup-carla` (docs/pages.md): its body, after checking it is 200.
async fn page(base: &str, paths: &[&str]) -> Vec<String> {
    let http = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("an HTTP client");
    let login = http.get(format!("{base}/ingresar")).send().await.expect("the login page").text().await.expect("a body");
    let marker = "name=\"csrf\" value=\"";
    let start = login.find(marker).expect("a csrf token") + marker.len();
    let token = &login[start..start + login[start..].find('"').expect("its end")];
    let form = [("usuario", "sup-carla"), ("contrasena", "carla-ejemplo"), ("csrf", token), ("destino", "")];
    let signed = http.post(format!("{base}/ingresar")).form(&form).send().await.expect("signed in");
    assert_eq!(signed.status(), StatusCode::SEE_OTHER, "sup-carla signs in");
    let mut bodies = Vec::new();
    for path in paths {
        let response = http.get(format!("{base}{path}")).send().await.expect("answered");
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        bodies.push(response.text().await.expect("a body"));
    }
    bodies
}

// Proves issue 43 item 5 on a market night and the next: bets on the four-level link (one
// refunded), a Mini hit confirmed, a Grand hit sent to Venta-Pagos and rejected, a fixed prize and
// an envy bonus paid by the house; each jornada's books have a line per level, each tied to zero,
// adding up to the pool's line by line; the house level shows exactly what the house paid; the
// second night's levels open where the first's closed; the Grand's payout order carries "Grand";
// the sala's report and its CSV show the level rows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_level_s_books_tie_to_zero_and_add_up_to_the_pool_s_over_two_nights() {
    let mut night = Night::start(mercado()).await;
    let client = &mut night.client;
    // The market's rulebook has three pools with levels, whichever layout plays them.
    let leveled = ["mercado-tcp", "mercado-blackjack", "mercado-gran-sala"];

    // Night one: bets of 1.000,00 at B1–B3, seat 2 of B3 refunded.
    for table in ["B1", "B2", "B3"] {
        client.ok(table, open()).await;
        client.sell_and_press(table, [1, 2], 1).await;
        client.ok(table, start()).await;
    }
    client.ok("B3", refund_bet(2)).await;
    // The Mini at B2, confirmed; the Grand at B1, rejected; a Black Jack of ace and king of one
    // suit at B3, 5 × the bet, paid by the house.
    client.ok("B2", prize(2, "TRES_SIETES")).await;
    client.ok("B2", accept()).await;
    client.ok("B1", prize(1, "TRES_SIETES_CORAZONES")).await;
    client.ok("B1", accept()).await;
    client.ok("B3", prize(1, "BJ_AS_REY_MISMO_PALO")).await;
    let house_prize = client.ok("B3", accept()).await.awards;
    assert_eq!(house_prize.len(), 1, "{house_prize:?}");
    let house_prize = money(&house_prize[0].award);
    assert_eq!(house_prize, pesos("5000.00"), "5 × 1.000,00");
    for table in ["B1", "B2", "B3"] {
        client.ok(table, finish()).await;
    }
    // Three Card Poker: the Mini Royal of spades at seat 2, the envy bonus to seats 1 and 3.
    client.ok("CP1", open()).await;
    client.sell_and_press("CP1", [1, 2, 3], 1).await;
    client.ok("CP1", start()).await;
    client.ok("CP1", prize(2, "MINI_ROYAL_PICAS")).await;
    let envy: Money = client
        .ok("CP1", accept())
        .await
        .awards
        .iter()
        .filter(|award| award.code == "ENVIDIA_MINI_ROYAL_PICAS")
        .map(|award| money(&award.award))
        .sum();
    assert_eq!(envy, pesos("100000.00"), "two envy bonuses of 50.000,00");
    client.ok("CP1", finish()).await;

    // The payout orders carry their prize's level.
    let orders = client.orders().await;
    let by_code =
        |code: &str| orders.iter().find(|order| order.code == code).unwrap_or_else(|| panic!("{code}: {orders:?}")).clone();
    let (grand, mini, royal) = (by_code("TRES_SIETES_CORAZONES"), by_code("TRES_SIETES"), by_code("MINI_ROYAL_PICAS"));
    assert_eq!((grand.level.as_str(), mini.level.as_str(), royal.level.as_str()), ("Grand", "Mini", "Mini Royal"));
    let rejected = client.reject(&grand.order_id, "Cartas mal leídas").await.expect("rejected");
    assert_eq!((rejected.status.as_str(), rejected.level.as_str()), ("rechazada", "Grand"), "the decision's reply too");
    let confirmed = client.confirm(&mini.order_id, "F-1").await.expect("confirmed");
    assert_eq!(confirmed.level, "Mini");
    client.confirm(&royal.order_id, "F-2").await.expect("confirmed");

    let one = night.books("2026-11-22", "").await;
    check_levels_add_up(&one, &leveled);
    let link = pool(&one, "mercado-blackjack");
    assert_eq!(names(link), ["Grand", "Major", "Minor", "Mini", "Pagado por la casa"]);
    assert_eq!((link.bets, link.reversals), (5, 1), "six bets, one refunded");
    let grand_books = level(link, "Grand");
    assert_eq!((grand_books.bets, grand_books.reversals, grand_books.hits, grand_books.rejections), (5, 1, 1, 1));
    assert_eq!(money(&grand_books.awards), money(&grand.amount));
    assert_eq!(money(&grand_books.awards_returned), money(&grand.amount), "the rejected Grand back in the Grand");
    assert_eq!(
        money(&grand_books.closing_balance) + money(&grand_books.closing_reserve),
        money(&grand_books.opening_balance) + money(&grand_books.opening_reserve) + money(&grand_books.contributions),
        "the rejection undid the Grand's award and its reset"
    );
    // The Grand's 8 % and its reserve's 2 % of five bets net (reconcile.rs: net of the refunded).
    assert_eq!(money(&grand_books.contributions), pesos("500.00"));
    let mini_books = level(link, "Mini");
    assert_eq!((mini_books.bets, mini_books.hits, mini_books.rejections), (0, 1, 0));
    assert_eq!(money(&mini_books.awards), money(&mini.amount));
    assert_eq!(money(&mini_books.contributions), pesos("100.00"), "2 % of five bets");
    assert_eq!(money(&mini_books.replenishments), pesos("10000.00"), "the Mini's reset, the house's money");
    for untouched in ["Major", "Minor"] {
        let books = level(link, untouched);
        assert_eq!((books.hits, money(&books.awards)), (0, Money::ZERO), "{books:?}");
    }
    // The house level holds nothing and shows exactly what the house paid.
    let house = level(link, "Pagado por la casa");
    assert!(house.house);
    assert_eq!((money(&house.awards), money(&house.replenishments), house.hits), (house_prize, house_prize, 1));
    assert_eq!(money(&house.closing_balance) + money(&house.closing_reserve), Money::ZERO);
    let poker = pool(&one, "mercado-tcp");
    assert_eq!(names(poker), ["Mini Royal", "Pagado por la casa"]);
    let house = level(poker, "Pagado por la casa");
    assert!(house.house && !level(poker, "Mini Royal").house);
    assert_eq!((money(&house.awards), money(&house.replenishments), house.hits), (envy, envy, 2), "the envy bonuses, no more");
    assert_eq!(money(&level(poker, "Mini Royal").awards), money(&royal.amount));

    // The sala's report and its CSV: a row per level under its pool's.
    let base = format!("http://{}", night.embedded.pages.expect("pages"));
    let bodies = page(&base, &["/sala/informe?jornada=2026-11-22", "/sala/conciliacion.csv?jornada=2026-11-22"]).await;
    let (html, csv) = (&bodies[0], &bodies[1]);
    assert!(html.contains("Los libros de todos los pozos cuadran en cero"), "{html}");
    for name in ["Grand", "Major", "Minor", "Mini", "Pagado por la casa"] {
        let marker = format!("data-pozo=\"mercado-blackjack\" data-nivel=\"{name}\" class=\"nivel\"><td>nivel {name}</td>");
        assert!(html.contains(&marker), "{marker} in {html}");
    }
    assert!(!html.contains("data-pozo=\"iplyc-ruleta\" data-nivel"), "a pool of one level has no level rows");
    let header = csv.lines().next().expect("a header");
    assert!(header.ends_with(",diferencia_pppa,nivel"), "{header}");
    let grand_row =
        csv.lines().find(|line| line.contains(",mercado-blackjack,") && line.ends_with(",Grand")).expect("the Grand's row");
    let fields: Vec<&str> = grand_row.split(',').collect();
    assert_eq!(fields.len(), 25, "{grand_row}");
    assert_eq!((fields[12], fields[19], fields[20]), (amount(&grand.amount).as_str(), "0.00", ""), "{grand_row}");

    // Night two: the Mini again at B1.
    night.clock.set(NIGHT_ONE + DAY);
    let client = &mut night.client;
    client.sell_and_press("B1", [1, 2], 1).await;
    client.ok("B1", start()).await;
    client.ok("B1", prize(1, "TRES_SIETES")).await;
    client.ok("B1", accept()).await;
    client.ok("B1", finish()).await;
    let again = client.orders().await.into_iter().find(|order| order.code == "TRES_SIETES" && order.status == "pendiente");
    let again = again.expect("the second Mini's order");
    assert_eq!(again.level, "Mini");
    client.confirm(&again.order_id, "F-3").await.expect("confirmed");

    // Night one's books closed where night two's open, level by level.
    let one = night.books("2026-11-22", "").await;
    check_levels_add_up(&one, &leveled);
    let two = night.books("2026-11-23", "").await;
    check_levels_add_up(&two, &leveled);
    for id in leveled {
        let closed: BTreeMap<&str, (Money, Money)> = pool(&one, id)
            .levels
            .iter()
            .map(|level| (level.name.as_str(), (money(&level.closing_balance), money(&level.closing_reserve))))
            .collect();
        let opened: BTreeMap<&str, (Money, Money)> = pool(&two, id)
            .levels
            .iter()
            .map(|level| (level.name.as_str(), (money(&level.opening_balance), money(&level.opening_reserve))))
            .collect();
        assert_eq!(closed, opened, "{id}: each level opens where it closed");
    }
    let mini_two = level(pool(&two, "mercado-blackjack"), "Mini");
    assert_eq!((mini_two.hits, money(&mini_two.awards)), (1, money(&again.amount)));
    assert_eq!(level(pool(&two, "mercado-blackjack"), "Grand").hits, 0);
    // The two nights as one period: the lines of both, still adding up and tied.
    let both = night.books("2026-11-22", "2026-11-23").await;
    check_levels_add_up(&both, &leveled);
    assert_eq!(level(pool(&both, "mercado-blackjack"), "Mini").hits, 2);
    night.stop().await;
}

// Proves a banked level's meters are each their own line: on the cross-game link, bets at F2
// (Black Jack) and F3 (Three Card Poker) open a Major and a Mini per flor in the jornada (from
// nothing: each reset is the house's first replenishment), named as Reports/Pool names them; four
// aces at B1 take F2's Major only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_flors_meter_has_its_own_line_in_the_books() {
    let mut night = Night::start(enlace()).await;
    let client = &mut night.client;
    for table in ["B1", "CP1"] {
        client.ok(table, open()).await;
        client.sell_and_press(table, [1, 2], 1).await;
        client.ok(table, start()).await;
    }
    client.ok("B1", prize(1, "CUATRO_ASES")).await;
    let paid = client.ok("B1", accept()).await.awards;
    let major = money(&paid[0].award);
    let report = client.pool("mercado-gran-sala").await;
    let books = night.books("", "").await;
    check_levels_add_up(&books, &["mercado-tcp", "mercado-blackjack", "mercado-gran-sala"]);
    let link = pool(&books, "mercado-gran-sala");
    let reported: Vec<&str> = report.levels.iter().map(|level| level.name.as_str()).collect();
    assert_eq!(names(link), reported, "the books' levels are Reports/Pool's");
    assert_eq!(names(link), ["Grand", "Major · F2", "Major · F3", "Mini · F2", "Mini · F3", "Misterioso", "Pagado por la casa"]);
    let f2 = level(link, "Major · F2");
    assert_eq!((f2.hits, money(&f2.awards)), (1, major));
    assert_eq!(money(&f2.opening_balance), Money::ZERO, "opened in the jornada, from nothing");
    assert_eq!(money(&f2.replenishments), pesos("200000.00"), "its reset at its first bet, and again after the hit");
    let f3 = level(link, "Major · F3");
    assert_eq!((f3.hits, money(&f3.replenishments)), (0, pesos("100000.00")));
    night.stop().await;
}

// Proves a pool of one level is as it was: with the regulations' configuration, a payout order
// carries no level, no pool's books have level lines, and the books' CSV has no `nivel` column.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pool_of_one_level_has_no_level_lines_and_its_orders_no_level() {
    let server = TestServer::with_pages().await;
    let mut client = server.client().await;
    client.ok("B3", open()).await;
    let order = a_pending_order(&mut client, 4).await;
    assert_eq!(client.order(&order).await.level, "", "a pool of one level");
    let rejected = client.reject(&order, "Cartas mal leídas").await.expect("rejected");
    assert_eq!(rejected.level, "");
    let books = client.books().await;
    check_levels_add_up(&books, &[]);
    let bodies = page(&server.pages_url(), &[&format!("/sala/conciliacion.csv?jornada={}", books.jornada)]).await;
    let header = bodies[0].lines().next().expect("a header");
    assert!(header.ends_with(",diferencia_ipa,diferencia_pppa"), "no `nivel` column: {header}");
    assert!(bodies[0].lines().skip(1).all(|line| line.split(',').count() == 24), "{}", bodies[0]);
    server.stop().await;
}
