//! The anomalies and the end of the night, over gRPC against the real controller:
//! a bet voided (4.3.2), a burnt round carried (11.8.1.1), a void box refunded
//! (11.8.1.2), the last ball and the last round (3.9, 11.10), Cierre de Mesa (4.7, 12.8).

mod common;

use common::*;
use pozo_proto::v1 as pb;
use tonic::Code;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_4_3_2_a_voided_grillo_sale_takes_its_contribution_back() {
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_bets("R3", &[(4, 1)], &[4]).await;
    assert_eq!(amount(&client.pool("iplyc-ruleta").await.contributions), "19.50");
    // Ingresos → Anular → SÍ: the bronze handed back before the ball.
    let view = client.ok("R3", void_bet(4)).await.table.expect("view");
    assert_eq!((view.seats[3].bronze, view.seats[3].credits), (0, 1), "credit returned");
    assert_eq!(light(&view, 4), pb::Light::Blue);
    let pool = client.pool("iplyc-ruleta").await;
    assert_eq!((amount(&pool.contributions), amount(&pool.balance), pool.bets), ("0.00".to_owned(), "20000.00".to_owned(), 0));
    let day = client.report("R3").await;
    assert_eq!((amount(&day.ipa), day.bets), ("0.00".to_owned(), 0));
    // Once the ball is spun the bet is played: no void then.
    client.ok("R3", press(4)).await;
    client.ok("R3", start()).await;
    let message = client.refused("R3", void_bet(4), Code::FailedPrecondition).await;
    assert!(message.contains("4.3.2"), "{message}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_11_8_1_1_a_burnt_round_carries_its_bets_without_new_ones() {
    let (server, mut client) = TestServer::with_client().await;
    client.round_started("B4", &[(1, 5), (2, 5)], &[1]).await;
    let contributions = amount(&client.pool("iplyc-blackjack").await.contributions);
    assert_eq!(contributions, "6.50");
    // Burnt before play started: seat 1's bet competes in the next hand.
    let view = client.ok("B4", carry_bets()).await.table.expect("view");
    assert_eq!(light(&view, 1), pb::Light::On, "the carried bet keeps its light");
    assert_eq!(light(&view, 2), pb::Light::Off, "no new bets in the carried hand");
    let message = client.refused("B4", press(2), Code::FailedPrecondition).await;
    assert!(message.contains("11.8.1.1"), "{message}");
    client.ok("B4", start()).await;
    assert_eq!(amount(&client.pool("iplyc-blackjack").await.contributions), contributions, "contributed once, not twice");
    client.ok("B4", prize(1, "BJ_AS_REY_MISMO_PALO")).await;
    assert_eq!(amount(&client.ok("B4", accept()).await.awards[0].award), "50.00");
    client.ok("B4", finish()).await;
    client.ok("B4", press(2)).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_11_8_1_2_a_void_box_gets_its_side_bet_refunded() {
    let (server, mut client) = TestServer::with_client().await;
    client.round_started("B1", &[(6, 1)], &[6]).await;
    let view = client.ok("B1", refund_bet(6)).await.table.expect("view");
    assert_eq!((view.seats[5].credits, light(&view, 6)), (1, pb::Light::Off));
    let pool = client.pool("iplyc-blackjack").await;
    assert_eq!((amount(&pool.contributions), pool.bets), ("0.00".to_owned(), 0));
    let message = client.refused("B1", prize(6, "CUATRO_ASES"), Code::FailedPrecondition).await;
    assert!(message.contains("no side bet registered"), "{message}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_11_10_the_last_round_returns_credits_and_sells_no_more() {
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_bets("B2", &[(1, 10), (3, 5)], &[1]).await;
    let reply = client.ok("B2", last_round()).await;
    let view = reply.table.expect("view");
    // 11.10.1: "debiendo reintegrar a los Apostadores los créditos a su favor".
    assert_eq!((view.seats[0].credits, view.seats[2].credits), (0, 0));
    assert!(view.last_round);
    assert_eq!(light(&view, 1), pb::Light::On, "the bet already pressed plays the last round");
    assert_eq!(light(&view, 3), pb::Light::Off, "no new bet can be made: not blue");
    let message = client.refused("B2", sell(3, 1), Code::FailedPrecondition).await;
    assert!(message.contains("11.10.1"), "{message}");
    let day = client.report("B2").await;
    assert_eq!((day.credits_sold, day.credits_returned), (15, 14));
    assert_eq!(amount(&day.credits_returned_amount), "140.00");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_3_9_the_last_ball_stops_bronze_sales_and_completes_series() {
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_bets("R4", &[(1, 5), (2, 5)], &[1]).await;
    client.ok("R4", last_round()).await;
    let message = client.refused("R4", press(2), Code::FailedPrecondition).await;
    assert!(message.contains("3.9.1"), "{message}");
    // The series started goes on: bronze → silver → gold, then the gold turn.
    client.play_round("R4", &[(1, "GRILLO_BRONCE")]).await;
    client.play_round("R4", &[(1, "GRILLO_PLATA")]).await;
    // 3.9.2: one more ball only for the gold.
    client.ok("R4", gold_turn()).await;
    client.ok("R4", start()).await;
    client.ok("R4", finish()).await;
    let view = client.view("R4").await;
    assert_eq!(view.seats[0].gold, 0, "the gold was played and missed");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_4_7_5_cierre_de_mesa_counts_the_grillos_held_as_fp_and_returns_unplayed_sales_3_7_9() {
    // 4.7.5: "la cantidad de Grillos existentes al cierre de mesa" is the FP. Seat 5 won a
    // bronze and holds 2 Grillos de Plata of a series in play; seat 3 bought 3 Grillos de
    // Bronce and never played them: 3.7.9 "le será devuelta su apuesta".
    let (server, mut client) = TestServer::with_client().await;
    client.round_started("R2", &[(5, 5)], &[5]).await;
    client.settle_round("R2", &[(5, "GRILLO_BRONCE")]).await;
    client.ok("R2", sell(3, 1)).await;
    client.ok("R2", press(3)).await;
    let pool_before = client.pool("iplyc-ruleta").await;
    // 12.8.1: the credits are paid back before the close (12.5.3.5.2: with the button off).
    let message = client.refused("R2", close(), Code::FailedPrecondition).await;
    assert!(message.contains("12.8.1"), "{message}");
    client.ok("R2", refund_credits(5)).await;
    let closed = client.ok("R2", close()).await;
    assert_eq!(closed.outcome, "Cierre de Mesa R2: FP 5 (1 venta de Grillos de Bronce no jugada, apuesta devuelta, 3.7.9)");
    let view = closed.table.expect("view");
    assert_eq!(view.state, "cerrada");
    assert!(view.seats.iter().all(|seat| seat.bronze + seat.silver + seat.gold == 0), "the system holds none after the close");
    assert!(view.seats.iter().all(|seat| pb::Light::try_from(seat.light) == Ok(pb::Light::Off)));
    let day = client.report("R2").await;
    assert_eq!(day.fp, 5, "2 silver + 3 unplayed bronze");
    assert_eq!(amount(&day.ipa), "30.00", "seat 3's sale returned: only seat 5's played bet stays");
    assert_eq!(day.credits_returned, 4 + 1, "seat 5's four credits, and seat 3's returned sale");
    let pool_after = client.pool("iplyc-ruleta").await;
    let balance = |report: &pb::PoolReport| amount(&report.balance).parse::<rust_decimal::Decimal>().expect("decimal");
    assert_eq!(balance(&pool_before) - balance(&pool_after), rust_decimal::Decimal::new(1950, 2), "65% of 30.00 comes back out");
    // 4.7.7: the buttons are blocked: nothing enters outside opening hours.
    let message = client.refused("R2", sell(5, 1), Code::FailedPrecondition).await;
    assert!(message.contains("closed"), "{message}");
    // 4.6.1.3: the next Apertura finds no play loaded.
    let view = client.ok("R2", open()).await.table.expect("view");
    assert!(view.seats.iter().all(|seat| seat.bronze + seat.silver + seat.gold == 0));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_12_5_3_5_2_credits_are_paid_back_with_the_button_off() {
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_bets("B3", &[(2, 5)], &[2]).await;
    let message = client.refused("B3", refund_credits(2), Code::FailedPrecondition).await;
    assert!(message.contains("12.5.3.5.2"), "{message}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_15_11_2_one_instant_card_one_winner() {
    // 15.11.2: "al naipe - uno solo y de cualquier palo": paid to one seat, it leaves the monitor.
    let (server, mut client) = TestServer::seeded_with_client(5).await;
    client.open_until_instant_card("CP2", &[1, 2]).await;
    client.ok("CP2", prize(1, "PREMIO_INSTANTANEO")).await;
    let message = client.refused("CP2", prize(2, "PREMIO_INSTANTANEO"), Code::FailedPrecondition).await;
    assert!(message.contains("no premio instantáneo is in play") && message.contains("15.11"), "{message}");
    server.stop().await;
}
