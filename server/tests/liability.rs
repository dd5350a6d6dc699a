//! The liability statement (docs/readings.md, "The liability to players"; docs/api.md,
//! `Reports/Liability`) through the real server on 127.0.0.1:0: a played night, and what
//! `Reports/Liability`, `pozo-server status --json`, `/sala/pasivo.csv` and the sala page say of
//! it, each part checked against what was played and the total against the parts.

mod common;

use common::*;
use pozo_proto::v1 as pb;
use pozo_proto::v1::table_command::Command as C;
use rust_decimal::Decimal;
use tonic::Code;

fn pesos(text: &str) -> Decimal {
    text.parse().unwrap_or_else(|error| panic!("`{text}` is not an amount: {error}"))
}

fn decimal(value: &Option<pb::Amount>) -> Decimal {
    pesos(&amount(value))
}

async fn liability(client: &mut Client, jornada: &str) -> Result<pb::LiabilityReport, tonic::Status> {
    let request = pb::LiabilityRequest { jornada: jornada.to_owned() };
    client.reports.liability(request).await.map(tonic::Response::into_inner)
}

/// The sums a report gives, as decimals: pools, pending orders, credits, stakes, custody, total.
fn parts(sums: &pb::LiabilitySums) -> [Decimal; 6] {
    [&sums.pools, &sums.pending_orders, &sums.credits, &sums.stakes, &sums.custody, &sums.total].map(decimal)
}

/// The supervisor's browser on the pages, signed in (a cookie jar and the login's CSRF token).
async fn signed_in(base: &str) -> reqwest::Client {
    let http = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("an HTTP client");
    let form = http.get(format!("{base}/ingresar")).send().await.expect("login page").text().await.expect("a body");
    let marker = "name=\"csrf\" value=\"";
    let start = form.find(marker).expect("the login form carries a csrf token") + marker.len();
    let token = &form[start..start + form[start..].find('"').expect("the token ends")];
    let login = [("usuario", "sup-carla"), ("contrasena", "carla-ejemplo"), ("csrf", token), ("destino", "")];
    let response = http.post(format!("{base}/ingresar")).form(&login).send().await.expect("login");
    assert_eq!(response.status(), reqwest::StatusCode::SEE_OTHER, "sup-carla signs in");
    http
}

// A night at the real server: credits sold at B1, a bet registered, a sick player's bet in
// custody (11.8.3.1.2), a stake pressed for the next round; a 20 % prize at B3 pending at
// Venta-Pagos (11.2.2, 3.5.2) and another one rejected; a sale of three bronzes at R1 (3.1.3).
// Each part of `Reports/Liability` is what was played, the total is their sum, the rejection
// moved nothing from nowhere, and the status, the CSV and the sala page carry the same figures.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_liability_is_the_sum_of_its_parts_after_a_played_night() {
    let server = TestServer::with_pages().await;
    let base = server.pages_url();
    let mut client = server.client().await;
    let opened = liability(&mut client, "").await.expect("the liability now");
    assert_eq!(parts(opened.now.as_ref().expect("now")), [Decimal::ZERO; 6], "every pool at its seed, nothing else: {opened:?}");

    // B1: seats 1 and 2 bet $10 each (11.4.1); seat 2 falls sick and his stake goes to the
    // bank's custody; seat 3 presses for the next round.
    client.open_with_bets("B1", &[(1, 5), (2, 10), (3, 1)], &[1, 2]).await;
    client.ok("B1", start()).await;
    client.ok("B1", C::CustodyBet(pb::CustodyBet { seat: 2 })).await;
    client.ok("B1", finish()).await;
    client.ok("B1", press(3)).await;
    // B3: a 20 % prize pending (seat 4), then another (seat 5) that Venta-Pagos rejects.
    let order = client.open_b3_with_a_pending_order(4).await;
    let before_round = liability(&mut client, "").await.expect("before the rejected round");
    let rejected = a_pending_order(&mut client, 5).await;
    client.reject(&rejected, "Cartas mal leídas").await.expect("rejected");
    let after_rejection = liability(&mut client, "").await.expect("after the rejection");
    // R1: a sale of three bronzes, $30 (3.1.3, 3.3.1).
    client.open_with_bets("R1", &[(1, 1)], &[1]).await;

    let report = liability(&mut client, "").await.expect("the liability after the night");
    let now = report.now.as_ref().expect("now");
    let [pools, orders, credits, stakes, custody, total] = parts(now);
    // The pools: Black Jack got 65 % of three bets that stand (11.2.3: 3 × 6.50, with the
    // rejected round's), and paid 20 % of 5,013.00 (11.2.2): 4,016.90, under its $5,000 minimum,
    // all the house's seed. The roulette got 65 % of $30 above its $20,000 minimum (3.2.1).
    let pool = |id: &str| report.pools.iter().find(|pool| pool.pool_id == id).unwrap_or_else(|| panic!("pool {id}"));
    let blackjack = pool("iplyc-blackjack");
    assert_eq!(
        [&blackjack.balance, &blackjack.seed, &blackjack.owed].map(decimal),
        [pesos("4016.90"), pesos("4016.90"), Decimal::ZERO]
    );
    let ruleta = pool("iplyc-ruleta");
    assert_eq!([&ruleta.seed, &ruleta.owed].map(decimal), [pesos("20000.00"), pesos("19.50")]);
    assert_eq!(pools, pesos("19.50"));
    assert_eq!(pools, report.pools.iter().map(|pool| decimal(&pool.owed)).sum::<Decimal>());
    // The order pending, for 20 % of 5,013.00; the rejected one is not owed.
    assert_eq!(report.pending_orders.iter().map(|order| order.order_id.as_str()).collect::<Vec<_>>(), [order.as_str()]);
    assert_eq!((now.orders, orders), (1, pesos("1002.60")));
    // Credits: B1 seat 1 has 4, seat 2 has 9, seat 3 pressed its one; B3 seats 4 and 5 have 4
    // each: 21 credits of $10 (12.5.3.3). The stake pressed at B1 seat 3: $10.
    assert_eq!((now.credits_held, credits), (21, pesos("210.00")));
    assert_eq!(credits, report.credits.iter().map(|seat| decimal(&seat.amount)).sum::<Decimal>());
    assert_eq!(report.stakes.len(), 1);
    assert_eq!((report.stakes[0].table_id.as_str(), report.stakes[0].seat, stakes), ("B1", 3, pesos("10.00")));
    // The sick player's stake, held whole by B1's bank (11.8.3.1.2).
    assert_eq!(report.custody.len(), 1);
    let held = report.custody[0].item.as_ref().expect("the item");
    assert!(report.custody[0].counted && held.table_id == "B1" && held.seat == 2, "{held:?}");
    assert_eq!((now.custody_items, custody), (1, pesos("10.00")));
    // Grillos: counted, no amount.
    assert_eq!((now.bronze, now.silver, now.gold), (3, 0, 0));
    assert_eq!(report.grillos.len(), 1);
    // The total is the sum of the parts, and what the night left.
    assert_eq!(total, pools + orders + credits + stakes + custody);
    assert_eq!(total, pesos("1252.10"));
    // The change since the jornada opened (owing nothing): all of it.
    let change = report.change.as_ref().expect("the change");
    assert_eq!(decimal(&report.opening.as_ref().expect("the opening").total), Decimal::ZERO);
    assert_eq!((decimal(&change.total), change.orders, change.bronze), (total, 1, 3));

    // The rejection moved nothing from nowhere: the order went, the award came back under the
    // pool's minimum, and what stays is the round's bet in the pool and the 4 credits left.
    let [pools_before, orders_before, credits_before, _, _, total_before] = parts(before_round.now.as_ref().expect("now"));
    let [pools_after, orders_after, credits_after, _, _, total_after] = parts(after_rejection.now.as_ref().expect("now"));
    assert!(after_rejection.pending_orders.iter().all(|pending| pending.order_id != rejected));
    assert_eq!((pools_after, orders_after), (pools_before, orders_before));
    assert_eq!((credits_after, total_after), (credits_before + pesos("40.00"), total_before + pesos("40.00")));

    // A jornada that is no date, one that has not begun, one before this journal.
    assert_eq!(liability(&mut client, "2026-13-45").await.expect_err("no date").code(), Code::InvalidArgument);
    assert_eq!(liability(&mut client, "2999-01-01").await.expect_err("not begun").code(), Code::InvalidArgument);
    assert_eq!(liability(&mut client, "2001-01-01").await.expect_err("before the journal").code(), Code::NotFound);

    // `pozo-server status --json`: the same total, parts and change.
    let output = run(vec!["status".into(), "--pages".into(), base.clone(), "--json".into()]).await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let status: pozo_server::read::status::Status = serde_json::from_slice(&output.stdout).expect("the status as JSON");
    let owed = &status.liability;
    assert_eq!(owed.jornada, report.jornada);
    assert_eq!(
        [owed.parts.pools, owed.parts.pending_orders, owed.parts.credits, owed.parts.stakes, owed.parts.custody, owed.total]
            .map(|amount| amount.decimal()),
        [pools, orders, credits, stakes, custody, total]
    );
    assert_eq!(owed.change.as_ref().expect("the change").total.decimal(), total);
    let json = String::from_utf8_lossy(&output.stdout);
    assert!(json.contains("\"total\":\"1252.10\""), "written as the gRPC services write it: {json}");
    let output = run(vec!["status".into(), "--pages".into(), base.clone()]).await;
    let line = String::from_utf8_lossy(&output.stdout);
    assert!(
        line.contains(
            "Pasivo con los jugadores: $ 1.252,10 (pozos $ 19,50, órdenes pendientes $ 1.002,60, créditos $ 210,00, apuestas \
             marcadas $ 10,00, custodia $ 10,00; 3 grillos en juego, sin importe); desde la apertura de la jornada"
        ),
        "{line}"
    );

    // `/sala/pasivo.csv`: every line, the lines adding up to the total row.
    let http = signed_in(&base).await;
    let response = http.get(format!("{base}/sala/pasivo.csv")).send().await.expect("the CSV");
    assert_eq!(response.status(), reqwest::StatusCode::OK);
    let csv = response.text().await.expect("a body");
    assert!(csv.starts_with("parte,referencia,pozo,mesa,posicion,cantidad,importe,detalle\n"), "{csv}");
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let rows: Vec<csv::StringRecord> = reader.records().map(|row| row.expect("a CSV row")).collect();
    let importe = |row: &csv::StringRecord| if row[6].is_empty() { Decimal::ZERO } else { pesos(&row[6]) };
    let part = |name: &str| rows.iter().filter(|row| &row[0] == name).map(importe).sum::<Decimal>();
    assert_eq!(
        ["pozo", "orden_pendiente", "creditos", "apuesta_marcada", "custodia"].map(part),
        [pools, orders, credits, stakes, custody]
    );
    assert_eq!(part("total"), total);
    assert_eq!(part("cambio"), total);
    let lines: Decimal = rows.iter().filter(|row| !["total", "cambio"].contains(&&row[0])).map(importe).sum();
    assert_eq!(lines, total, "the lines add up to the total: {csv}");
    assert!(rows.iter().any(|row| &row[0] == "orden_pendiente" && row[1] == *order && &row[6] == "1002.60"), "{csv}");
    assert!(rows.iter().any(|row| &row[0] == "grillos" && &row[3] == "R1" && &row[5] == "3"), "{csv}");

    // The sala page: the section, its parts and total, the chart, the CSV link.
    let html = http.get(format!("{base}/sala")).send().await.expect("the sala").text().await.expect("a body");
    assert!(html.contains("<h2>Pasivo con los jugadores</h2>"), "{html}");
    assert!(html.contains("<th class=\"num\" id=\"pasivo-total\">$\u{a0}1.252,10</th>"), "{html}");
    assert!(html.contains("<th class=\"num\" id=\"pasivo-cambio\">+$\u{a0}1.252,10</th>"), "{html}");
    assert!(
        html.contains(
            "data-parte=\"ordenes\"><td>Órdenes de pago pendientes (Venta-Pagos) (1)</td><td class=\"num\">$\u{a0}1.002,60</td>"
        ),
        "{html}"
    );
    assert!(html.contains("id=\"grafico-pasivo\"") && html.contains("class=\"pasivo-ordenes\""), "the chart: {html}");
    assert!(html.contains("<title>Ahora: $\u{a0}1.252,10</title>"), "{html}");
    assert!(html.contains("href=\"/sala/pasivo.csv\""), "{html}");
    assert!(html.contains("Grillos en juego: 3 de bronce, 0 de plata, 0 de oro"), "{html}");
    server.stop().await;
}
