//! Whole rounds over gRPC against the real controller on 127.0.0.1:0: credits,
//! presses, INICIAR JUEGO, prizes, ACEPTAR, FINALIZAR JUEGO; the roulette series
//! with the gold turn; the Central Póker instant prize; Venta-Pagos.

mod common;

use common::*;
use pozo_proto::v1 as pb;
use tonic::Code;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_blackjack_round() {
    let (server, mut client) = TestServer::with_client().await;

    let opened = client.ok("B1", open()).await;
    assert_eq!(opened.table.as_ref().expect("view").state, "apuestas");
    assert_eq!(light(opened.table.as_ref().expect("view"), 3), pb::Light::Blue, "betting open");
    client.ok("B1", sell(3, 5)).await;
    client.ok("B1", sell(5, 1)).await;
    let pressed = client.ok("B1", press(3)).await;
    let view = pressed.table.expect("view");
    // 11.11.5: the light is on once the bet is durable, which the answer proves.
    assert_eq!(light(&view, 3), pb::Light::On);
    assert_eq!(view.seats[2].credits, 4);
    assert!(pressed.journal_sequence > 1);
    client.ok("B1", press(5)).await;

    // 12.5.1.1: INICIAR JUEGO registers the two bets: 2 × 65% × 10.00 on the $5,000 minimum.
    let started = client.ok("B1", start()).await.table.expect("view");
    assert_eq!(started.state, "en juego");
    assert_eq!(amount(&started.displayed), "5013.00");
    assert_eq!(light(&started, 1), pb::Light::Off, "no bet, betting closed");
    assert_eq!(light(&started, 3), pb::Light::On);

    client.ok("B1", prize(3, "CUATRO_ASES")).await;
    let accepted = client.ok("B1", accept()).await;
    assert_eq!(accepted.awards.len(), 1);
    assert_eq!(amount(&accepted.awards[0].award), "500.00");
    assert!(accepted.awards[0].payout_order_id.is_empty(), "a $500 prize is paid at the table");
    assert_eq!(amount(&accepted.table.as_ref().expect("view").displayed), "5000.00", "4,513 shown as the minimum (R1)");

    let finished = client.ok("B1", finish()).await.table.expect("view");
    assert_eq!(finished.state, "apuestas");
    assert_eq!(finished.round, 2);
    assert_eq!(light(&finished, 3), pb::Light::Blue, "panels enabled again (12.5.2.3)");

    let report = client.report("B1").await;
    assert_eq!((amount(&report.ipa), amount(&report.pppa)), ("20.00".to_owned(), "500.00".to_owned()));
    assert_eq!((report.presses, report.bets, report.credits_sold), (2, 2, 6));
    assert_eq!(amount(&report.credits_sold_amount), "60.00");
    assert_eq!(report.hours.iter().map(|hour| amount(&hour.pppa)).collect::<Vec<_>>(), ["500.00"]);

    let pool = client.pool("iplyc-blackjack").await;
    assert_eq!((pool.hits, amount(&pool.balance), amount(&pool.contributions)), (1, "4513.00".to_owned(), "13.00".to_owned()));
    assert_eq!(pool.last_hits[0].table_id, "B1");
    assert_eq!((pool.last_hits[0].seat, amount(&pool.last_hits[0].amount)), (3, "500.00".to_owned()));

    // The cartel shows the winning table and the amount paid, with the new amount.
    let mut display = client
        .display
        .watch(pb::WatchDisplays { pool_ids: vec!["iplyc-blackjack".into()], ..Default::default() })
        .await
        .expect("display")
        .into_inner();
    let update = display.message().await.expect("stream").expect("a push");
    let shown = &update.pools[0];
    let win = shown.last_win.as_ref().expect("a last win");
    assert_eq!((win.table_id.as_str(), amount(&win.amount)), ("B1", "500.00".to_owned()));
    assert_eq!(amount(&shown.displayed), "5000.00");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_command_gets_the_same_answer_and_changes_nothing() {
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_credits("B2", &[(1, 5)]).await;
    let envelope = client.envelope("mesa-B2", Client::payload("B2", 3, press(1)));
    let first = client.table.submit(envelope.clone()).await.expect("applied").into_inner();
    let journal = client.journal().await;
    // The answer was lost on the way; the agent sends the very same bytes again.
    let second = client.table.submit(envelope).await.expect("answered again").into_inner();
    assert_eq!(first, second, "the same answer");
    assert_eq!(client.journal().await, journal, "nothing journaled twice");
    let view = client.view("B2").await;
    assert_eq!(view.seats[0].credits, 4, "one credit spent, not two");
    assert_eq!(client.pool("iplyc-blackjack").await.bets, 0, "registered at INICIAR JUEGO only");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_roulette_series_with_two_tables_contending_for_the_gold_turn() {
    let (server, mut client) = TestServer::with_client().await;
    for (table, seat) in [("R1", 1), ("R2", 2)] {
        client.open_with_credits(table, &[(seat, 1)]).await;
        // 4.4.2: roulette bets register at the press: three Grillos de Bronce.
        let view = client.ok(table, press(seat)).await.table.expect("view");
        assert_eq!(view.seats[seat as usize - 1].bronze, 3);
    }
    assert_eq!(amount(&client.pool("iplyc-ruleta").await.contributions), "39.00", "2 × 65% × 30.00 (3.2.1)");

    // Ball 1: a bronze hit turns into two silver (3.4.1.1).
    for (table, seat) in [("R1", 1), ("R2", 2)] {
        client.ok(table, start()).await;
        client.ok(table, prize(seat, "GRILLO_BRONCE")).await;
        let accepted = client.ok(table, accept()).await;
        assert_eq!(amount(&accepted.awards[0].award), "0.00");
        assert_eq!((accepted.awards[0].grants_code.as_str(), accepted.awards[0].grants_count), ("GRILLO_PLATA", 2));
        let view = client.ok(table, finish()).await.table.expect("view");
        assert_eq!((view.seats[seat as usize - 1].bronze, view.seats[seat as usize - 1].silver), (0, 2));
    }
    // Ball 2: a silver hit pays the fixed amount and gives the gold (3.4.1.2).
    for (table, seat) in [("R1", 1), ("R2", 2)] {
        client.ok(table, start()).await;
        client.ok(table, prize(seat, "GRILLO_PLATA")).await;
        assert_eq!(amount(&client.ok(table, accept()).await.awards[0].award), "300.00");
        let view = client.ok(table, finish()).await.table.expect("view");
        assert_eq!(view.seats[seat as usize - 1].gold, 1);
    }

    // 4.3.4–4.3.5: both tables hold a gold; they play it one at a time.
    let message = client.refused("R1", start(), Code::FailedPrecondition).await;
    assert!(message.contains("request the gold turn first (4.3.5)"), "{message}");
    let granted = client.ok("R1", gold_turn()).await.table.expect("view");
    assert_eq!(pb::GoldTurn::try_from(granted.gold_turn), Ok(pb::GoldTurn::Granted));
    let waiting = client.ok("R2", gold_turn()).await.table.expect("view");
    assert_eq!(pb::GoldTurn::try_from(waiting.gold_turn), Ok(pb::GoldTurn::Waiting));
    let message = client.refused("R2", start(), Code::FailedPrecondition).await;
    assert!(message.contains("Se juega Grillo de Oro en la mesa R1"), "{message}");

    // R2's agent watches its table: it is told the moment its turn comes.
    let mut r2_stream = client.watch("R2").await;
    let first = r2_stream.message().await.expect("stream").expect("push").table.expect("view");
    assert_eq!(pb::GoldTurn::try_from(first.gold_turn), Ok(pb::GoldTurn::Waiting));

    let before = client.pool("iplyc-ruleta").await;
    client.ok("R1", start()).await;
    client.ok("R1", prize(1, "GRILLO_ORO")).await;
    let gold = client.ok("R1", accept()).await;
    // 3.4.1.3 and 3.5.1: 100% of what the display showed at the marking.
    assert_eq!(amount(&gold.awards[0].award), amount(&before.displayed));
    assert!(!gold.awards[0].payout_order_id.is_empty(), "the Pago Máximo goes to Venta-Pagos (3.5.2)");
    client.ok("R1", finish()).await;

    let granted = loop {
        let view = r2_stream.message().await.expect("stream").expect("push").table.expect("view");
        if pb::GoldTurn::try_from(view.gold_turn) == Ok(pb::GoldTurn::Granted) {
            break view;
        }
    };
    assert_eq!(granted.seats[1].gold, 1);
    client.ok("R2", start()).await;
    client.ok("R2", prize(2, "GRILLO_ORO")).await;
    let second_gold = client.ok("R2", accept()).await;
    assert_eq!(amount(&second_gold.awards[0].award), "20000.00", "the replenished minimum (3.2.2)");
    let view = client.ok("R2", finish()).await.table.expect("view");
    assert_eq!(view.seats[1].gold, 0, "the series is complete");
    assert_eq!(pb::GoldTurn::try_from(view.gold_turn), Ok(pb::GoldTurn::None));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_15_11_the_instant_card_appears_at_random_and_stays_until_won() {
    // 15.11.2: the card "en forma aleatoria y sorpresiva aparece en el monitor" (with the
    // rulebook's instant_card_chance at each INICIAR JUEGO with no card in play);
    // 15.11.4: not received, "se definirá en las siguientes tallas".
    let (server, mut client) = TestServer::seeded_with_client(3).await;
    client.open_with_credits("CP1", &[(1, 20), (2, 20)]).await;
    assert!(client.view("CP1").await.instant_card.is_none(), "no card before the first round");
    let (card, rounds_without_card) = client.until_instant_card("CP1", &[1]).await;
    assert!(rounds_without_card > 0, "not every round shows a card (seed 3: the first rounds show none)");
    assert!(pozo_server::state::Card::RANKS.contains(&card.rank.as_str()));
    client.ok("CP1", finish()).await;
    client.ok("CP1", press(2)).await;
    let again = client.ok("CP1", start()).await.table.expect("view").instant_card.expect("still in play");
    assert_eq!(again, card, "carried over until won (15.11.4)");

    // 16.4.2.5.1: seat 2 receives it: paid at once, $30 (15.7.1.6), off the monitor; no
    // ACEPTAR is needed, and nothing is left for one.
    let message = client.refused("CP1", prize(1, "PREMIO_INSTANTANEO"), Code::FailedPrecondition).await;
    assert!(message.contains("seat 1 has no side bet registered"), "{message}");
    let paid = client.ok("CP1", prize(2, "PREMIO_INSTANTANEO")).await;
    assert_eq!(paid.awards.iter().map(|award| amount(&award.award)).collect::<Vec<_>>(), ["30.00"]);
    assert!(paid.table.expect("view").instant_card.is_none(), "won: off the monitor");
    client.refused("CP1", prize(2, "PREMIO_INSTANTANEO"), Code::FailedPrecondition).await;
    client.refused("CP1", accept(), Code::FailedPrecondition).await;
    client.ok("CP1", finish()).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_16_4_2_5_1_the_instant_prize_is_paid_whole_before_the_round_is_prorated_15_9() {
    // 16.4.2.5.1 pays the instant prize "en forma inmediata", before the hand is settled:
    // its own event. The round's royal flush and straight flush are then prorated by
    // 15.9's FACTOR on what the display shows after it; the $30 is never cut.
    let (server, mut client) = TestServer::seeded_with_client(3).await;
    client.open_until_instant_card("CP1", &[1, 2, 3]).await;
    let displayed = |report: &pb::PoolReport| amount(&report.displayed).parse::<rust_decimal::Decimal>().expect("decimal");
    let before = displayed(&client.pool("iplyc-central-poker").await);
    let instant = client.ok("CP1", prize(1, "PREMIO_INSTANTANEO")).await;
    assert_eq!(amount(&instant.awards[0].award), "30.00", "whole: not prorated with the round");
    client.ok("CP1", prize(2, "ESCALERA_REAL_MAYOR")).await;
    client.ok("CP1", prize(3, "ESCALERA_COLOR")).await;
    let accepted = client.ok("CP1", accept()).await;
    assert!(accepted.outcome.contains("FACTOR"), "{}", accepted.outcome);
    let total: rust_decimal::Decimal =
        accepted.awards.iter().map(|award| amount(&award.award).parse::<rust_decimal::Decimal>().expect("decimal")).sum();
    assert!(total <= before - rust_decimal::Decimal::new(3000, 2), "the round shares what the display shows after the $30");
    assert!(accepted.awards.iter().all(|award| award.code != "PREMIO_INSTANTANEO"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn venta_pagos_confirms_one_payout_and_rejects_another() {
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_credits("B3", &[(1, 5), (2, 5)]).await;

    // Round 1: the 20% prize on the $5,000 minimum (11.2.2) → a payout order.
    client.ok("B3", press(1)).await;
    let accepted = client.play_round("B3", &[(1, "TRES_SIETES_MISMO_PALO")]).await.accepted;
    let first_order = accepted.awards[0].payout_order_id.clone();
    assert!(!first_order.is_empty());
    assert_eq!(amount(&accepted.awards[0].award), "1001.30", "20% of 5,006.50");

    // Round 2: another one, to be rejected.
    client.ok("B3", press(2)).await;
    let second = client.play_round("B3", &[(2, "TRES_SIETES_MISMO_PALO")]).await.accepted.awards[0].clone();

    let list = client.office_envelope(pb::office_command::Command::List(pb::ListPayouts { status: String::new() }));
    let pending = client.office.list(list).await.expect("listed").into_inner().orders;
    assert_eq!(pending.len(), 2);
    let order = pending.iter().find(|order| order.order_id == first_order).expect("the first order");
    assert_eq!((order.table_id.as_str(), order.seat, order.code.as_str()), ("B3", 1, "TRES_SIETES_MISMO_PALO"));
    assert_eq!((amount(&order.amount), order.status.as_str(), order.round), ("1001.30".to_owned(), "pendiente", 1));

    // A table key is refused at the office (docs/architecture.md: a table key never confirms a payout).
    let confirm = client.confirm_command(&first_order, "F-4104-0001").await;
    let forged = client.office_envelope_as("mesa-B3", confirm.clone());
    let status = client.office.confirm(forged).await.expect_err("a table key");
    assert_eq!(status.code(), Code::PermissionDenied, "{}", status.message());

    let confirmed = {
        let envelope = client.office_envelope(confirm.clone());
        client.office.confirm(envelope).await
    }
    .expect("confirmed")
    .into_inner();
    assert_eq!((confirmed.status.as_str(), confirmed.form_number.as_str()), ("confirmada", "F-4104-0001"));
    // Who confirmed comes from the key that signed, never from the message.
    assert_eq!((confirmed.operator_id.as_str(), confirmed.operator_name.as_str()), ("vp-ana", "Ana Pereyra"));
    assert!(confirmed.decided_ms >= confirmed.marked_ms && confirmed.marked_ms > 0);
    let again = {
        let envelope = client.office_envelope(confirm);
        client.office.confirm(envelope).await
    }
    .expect("idempotent")
    .into_inner();
    assert_eq!(again, confirmed);

    let before = client.pool("iplyc-blackjack").await;
    let table_day = |report: pb::TableReport| amount(&report.pppa).parse::<rust_decimal::Decimal>().expect("decimal");
    let pppa_before = table_day(client.report("B3").await);
    let reject = client.reject_command(&second.payout_order_id, "naipes marcados").await;
    let rejected = {
        let envelope = client.office_envelope(reject);
        client.office.reject(envelope).await
    }
    .expect("rejected")
    .into_inner();
    assert_eq!(rejected.status, "rechazada");
    let after = client.pool("iplyc-blackjack").await;
    // docs/readings.md, "What a Venta-Pagos rejection undoes": a 20% prize forced no house
    // money, so the award goes back to its pool, booked as such.
    let returned: rust_decimal::Decimal = amount(&second.award).parse().expect("decimal");
    let balance = |report: &pb::PoolReport| amount(&report.balance).parse::<rust_decimal::Decimal>().expect("decimal");
    assert_eq!(balance(&after), balance(&before) + returned);
    assert_eq!(amount(&after.awards_returned), amount(&second.award));
    assert_eq!(amount(&after.awards), amount(&before.awards), "the awards meter never goes down");
    let pppa_after = table_day(client.report("B3").await);
    assert_eq!(pppa_after, pppa_before - returned, "a rejected prize was not paid: off the table's PPPA");

    let confirm_rejected = client.confirm_command(&second.payout_order_id, "F-2").await;
    let status = {
        let envelope = client.office_envelope(confirm_rejected);
        client.office.confirm(envelope).await
    }
    .expect_err("already rejected");
    assert_eq!(status.code(), Code::FailedPrecondition);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejection_undoes_the_award_and_only_it_3_5_2_11_2_2() {
    // docs/readings.md, "What a Venta-Pagos rejection undoes". Two 21s of three 7s of
    // hearts on 5,013.00 share it (11.7, FACTOR 0.5): 2,506.50 each, both to Venta-Pagos;
    // the pool is reset to $5,000 by the house (15.2.2 / 11.2.2). A later bet adds 6.50.
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_bets("B1", &[(1, 5), (2, 5)], &[1, 2]).await;
    let prizes = [(1, "TRES_SIETES_CORAZONES"), (2, "TRES_SIETES_CORAZONES")];
    let awards = client.play_round("B1", &prizes).await.accepted.awards;
    assert_eq!(awards.iter().map(|award| amount(&award.award)).collect::<Vec<_>>(), ["2506.50", "2506.50"]);
    client.ok("B1", press(1)).await;
    client.ok("B1", start()).await;
    client.ok("B1", finish()).await;
    let before = client.pool("iplyc-blackjack").await;
    assert_eq!(amount(&before.balance), "5006.50");

    // Seat 1 rejected while seat 2 waits: seat 2 is re-settled as if alone (the whole
    // 5,013.00), the reset stands (seat 2's 100% prize still needs it), and the pool
    // keeps exactly what it had. The old code put 2,506.50 on top: 7,513.00.
    let order = |seat: u32| awards.iter().find(|award| award.seat == seat).expect("an award").payout_order_id.clone();
    let reject = client.reject_command(&order(1), "naipes marcados").await;
    let envelope = client.office_envelope(reject);
    assert_eq!(client.office.reject(envelope).await.expect("rejected").into_inner().status, "rechazada");
    let after = client.pool("iplyc-blackjack").await;
    assert_eq!(amount(&after.balance), "5006.50");
    assert_eq!(amount(&after.replenishments), amount(&before.replenishments));
    assert_eq!(amount(&after.awards_returned), "2506.50");
    assert_eq!(after.rejections, 1);
    let list = client.office_envelope(pb::office_command::Command::List(pb::ListPayouts { status: "pendiente".into() }));
    let pending = client.office.list(list).await.expect("listed").into_inner().orders;
    assert_eq!(pending.len(), 1);
    assert_eq!((pending[0].order_id.clone(), amount(&pending[0].amount)), (order(2), "5013.00".to_owned()));

    // Seat 2 rejected too: no 100% prize stands, so the house takes its reset back
    // and the pool is 5,013.00 + 6.50, as if nobody had been entered.
    let reject = client.reject_command(&order(2), "naipes marcados").await;
    let envelope = client.office_envelope(reject);
    client.office.reject(envelope).await.expect("rejected");
    let last = client.pool("iplyc-blackjack").await;
    assert_eq!(amount(&last.balance), "5019.50");
    assert_eq!(amount(&last.replenishments_withdrawn), "5000.00");
    assert_eq!(amount(&last.awards), amount(&last.awards_returned), "nothing stays awarded");
    let report = client.report("B1").await;
    assert_eq!(amount(&report.pppa), "0.00", "nothing was paid at B1");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejection_pays_a_share_that_was_nothing_through_a_new_order_2_5_6_2() {
    // AJ 2.5.6.2: five Pókers are 5,000 each in full (item 2), 25,000 on a pool showing
    // 20,042.00; the royal flush's 100% "de la cantidad restante" (item 5) is 0, and no
    // order is made for nothing. One Póker rejected: as if it had not competed, the
    // royal flush gets what four Pókers leave, 42, through a new order of the round.
    let (server, mut client) = TestServer::with_client().await;
    client.ok("C1", open()).await;
    client.sell_and_press("C1", 1..=6, 1).await;
    client.ok("C1", start()).await;
    for seat in 1..=5 {
        client.ok("C1", prize(seat, "POKER")).await;
    }
    client.ok("C1", prize(6, "ESCALERA_REAL")).await;
    let awards = client.ok("C1", accept()).await.awards;
    let royal = awards.iter().find(|award| award.seat == 6).expect("the royal flush");
    assert_eq!((amount(&royal.award), royal.payout_order_id.as_str()), ("0.00".to_owned(), ""));
    let poker = awards.iter().find(|award| award.seat == 1).expect("a Póker").payout_order_id.clone();
    let reject = client.reject_command(&poker, "naipes marcados").await;
    let envelope = client.office_envelope(reject);
    client.office.reject(envelope).await.expect("rejected");
    let list = client.office_envelope(pb::office_command::Command::List(pb::ListPayouts { status: "pendiente".into() }));
    let pending = client.office.list(list).await.expect("listed").into_inner().orders;
    let new = pending.iter().find(|order| order.seat == 6).expect("an order for the royal flush");
    assert_eq!((new.code.as_str(), amount(&new.amount), new.table_id.as_str()), ("ESCALERA_REAL", "42.00".to_owned(), "C1"));
    assert_eq!(pending.len(), 5, "four Pókers and the royal flush");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_11_8_1_2_a_box_paid_the_instant_prize_is_not_refunded_16_4_2_5_1() {
    // The premio instantáneo is paid at once (16.4.2.5.1): the box that won it is a
    // winning box, neither refunded (11.8.1.2) nor carried to a burnt round (11.8.1.1).
    let (server, mut client) = TestServer::seeded_with_client(3).await;
    client.open_until_instant_card("CP3", &[2]).await;
    client.ok("CP3", prize(2, "PREMIO_INSTANTANEO")).await;
    let message = client.refused("CP3", refund_bet(2), Code::FailedPrecondition).await;
    assert!(message.contains("a winning box is not voided"), "{message}");
    let message = client.refused("CP3", carry_bets(), Code::FailedPrecondition).await;
    assert!(message.contains("11.8.1.1"), "{message}");
    server.stop().await;
}
