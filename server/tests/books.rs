//! The books tied to zero (docs/reports.md? see docs/api.md, `Reports/Reconciliation`): each
//! pool's reconciliation over the jornada, through the real server, with a Venta-Pagos
//! rejection and a refund on their own lines.

mod common;

use common::*;
use pozo_proto::v1 as pb;
use tonic::Code;

fn pesos(value: &Option<pb::Amount>) -> rust_decimal::Decimal {
    amount(value).parse().expect("a decimal amount")
}

async fn books(client: &mut Client, jornada: &str) -> Result<pb::ReconciliationReport, tonic::Status> {
    period(client, jornada, "").await
}

async fn period(client: &mut Client, jornada: &str, through: &str) -> Result<pb::ReconciliationReport, tonic::Status> {
    let request = pb::ReconciliationRequest { jornada: jornada.to_owned(), through: through.to_owned() };
    client.reports.reconciliation(request).await.map(tonic::Response::into_inner)
}

// A jornada at the Black Jack tables: bets on B1 and B3, one refunded (11.8.1.2), a 20 % prize
// whose order Venta-Pagos rejects (docs/readings.md: the award returns to the pool). The
// jornada's books tie to zero on every pool, and each movement is on its own line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jornada_s_books_tie_to_zero_with_a_rejection_and_a_refund_on_their_own_lines() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let before = books(&mut client, "").await.expect("the current jornada's books");
    assert!(before.tied, "{before:?}");

    client.ok("B1", open()).await;
    client.sell_and_press("B1", [1, 2], 5).await;
    client.ok("B1", start()).await;
    client.ok("B1", refund_bet(2)).await;
    client.ok("B1", finish()).await;
    client.ok("B3", open()).await;
    let order = a_pending_order(&mut client, 4).await;
    let rejected = client.reject(&order, "Cartas mal leídas").await.expect("rejected");

    let report = books(&mut client, &before.jornada).await.expect("the jornada's books");
    assert_eq!(report.jornada, before.jornada);
    assert!(report.tied, "every pool ties: {report:?}");
    assert!(report.pools.iter().all(|pool| pesos(&pool.difference).is_zero()));
    let blackjack = report.pools.iter().find(|pool| pool.pool_id == "iplyc-blackjack").expect("the Black Jack pool");
    assert_eq!(blackjack.pool_name, "Black Jack Carta Descubierta Poceado");
    // Two bets stand (B1 seat 1, B3 seat 4), one refunded: 2 × 6.50 (11.2.3).
    assert_eq!((blackjack.bets, blackjack.reversals), (2, 1));
    assert_eq!(pesos(&blackjack.contributions), "13.00".parse().expect("13"));
    assert_eq!((blackjack.hits, blackjack.rejections), (1, 1));
    assert_eq!(pesos(&blackjack.awards), pesos(&rejected.amount), "the award is on its line");
    assert_eq!(pesos(&blackjack.awards_returned), pesos(&rejected.amount), "and its return on its own");
    // Opening + lines = closing, recomputed here from the lines as sent.
    let made = pesos(&blackjack.opening_balance)
        + pesos(&blackjack.opening_reserve)
        + pesos(&blackjack.contributions)
        + pesos(&blackjack.replenishments)
        + pesos(&blackjack.transfers_in)
        + pesos(&blackjack.adjustments_up)
        - pesos(&blackjack.awards)
        + pesos(&blackjack.awards_returned)
        + pesos(&blackjack.awards_reclaimed)
        - pesos(&blackjack.replenishments_withdrawn)
        - pesos(&blackjack.transfers_out)
        - pesos(&blackjack.adjustments_down);
    assert_eq!(made, pesos(&blackjack.closing_balance) + pesos(&blackjack.closing_reserve));
    // Its tables tie to it: B1's bet and B3's, 10.00 each (the refunded one off B1's IPA), and
    // B3's prize off its PPPA once rejected.
    assert!(pesos(&blackjack.ipa_difference).is_zero() && pesos(&blackjack.pppa_difference).is_zero(), "{blackjack:?}");
    let table = |id: &str| blackjack.tables.iter().find(|table| table.table_id == id).expect("the table").clone();
    assert_eq!((pesos(&table("B1").ipa), table("B1").bets), ("10.00".parse().expect("10"), 1));
    assert_eq!((pesos(&table("B3").ipa), pesos(&table("B3").pppa)), ("10.00".parse().expect("10"), rust_decimal::Decimal::ZERO));
    assert_eq!(pesos(&table("B2").ipa), rust_decimal::Decimal::ZERO, "every table of the pool is listed");
    let pool = client.pool("iplyc-blackjack").await;
    assert_eq!(pesos(&blackjack.closing_balance), pesos(&pool.balance), "the closing is the pool as it stands");

    // A period that runs on past today is today's books; one that ends before it starts is refused.
    let on = period(&mut client, &before.jornada, "2099-12-31").await.expect("a period");
    assert_eq!((on.through.as_str(), &on.pools), ("2099-12-31", &report.pools));
    assert_eq!(report.through, report.jornada, "one jornada: it is its own last");
    let refused = period(&mut client, &before.jornada, "2020-01-01").await.expect_err("backwards");
    assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    assert!(refused.message().starts_with("through:"), "{refused:?}");
    // A jornada this journal holds no entry of, and a date that is not one.
    let refused = books(&mut client, "2020-01-01").await.expect_err("no books kept");
    assert_eq!(refused.code(), Code::NotFound, "{refused:?}");
    let refused = books(&mut client, "ayer").await.expect_err("not a date");
    assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    server.stop().await;
}
