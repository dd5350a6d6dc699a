//! What the articles allow at a table beyond a plain round, over gRPC against the real
//! controller: a bet of several credits (AJ 2.5.4.1) and the fixed IPLyC bets (3.3.1,
//! 11.4.1, 15.1.2); a seat closed to the progressive (AJ 2.5.6.1); the grillos of an
//! absent player (3.7.1), grillos not played (3.7.4, 3.7.10) and a series annulled after
//! payment (3.7.2–3.7.3); the bank's custody (11.8.3, 15.14.5.2); the instant prize until
//! the rack (15.11.5).

mod common;

use common::*;
use pozo_proto::v1 as pb;
use pozo_proto::v1::table_command::Command as C;
use tonic::Code;

fn press_credits(seat: u32, credits: u32) -> C {
    C::Press(pb::Press { seat, credits })
}
fn close_seat(seat: u32) -> C {
    C::CloseSeat(pb::CloseSeat { seat })
}
fn open_seat(seat: u32) -> C {
    C::OpenSeat(pb::OpenSeat { seat })
}
fn absent(seat: u32) -> C {
    C::PlayerAbsent(pb::PlayerAbsent { seat })
}
fn returns(seat: u32) -> C {
    C::PlayerReturns(pb::PlayerReturns { seat })
}
fn played(seat: u32, code: &str, played: u32) -> C {
    C::GrillosPlayed(pb::GrillosPlayed { seat, code: code.to_owned(), played })
}
fn annul_series(seat: u32) -> C {
    C::AnnulSeries(pb::AnnulSeries { seat, series: String::new() })
}
fn annul_named_series(seat: u32, series: &str) -> C {
    C::AnnulSeries(pb::AnnulSeries { seat, series: series.to_owned() })
}
fn custody_bet(seat: u32) -> C {
    C::CustodyBet(pb::CustodyBet { seat })
}
fn custody_prize(seat: u32) -> C {
    C::CustodyPrize(pb::CustodyPrize { seat })
}
fn release(custody_id: &str) -> C {
    C::ReleaseCustody(pb::ReleaseCustody { custody_id: custody_id.to_owned() })
}

fn seat(view: &pb::TableView, seat: u32) -> &pb::SeatView {
    &view.seats[seat as usize - 1]
}

fn grillos(view: &pb::TableView, number: u32) -> (u32, u32, u32) {
    let seat = seat(view, number);
    (seat.bronze, seat.silver, seat.gold)
}

/// Money as the reports write it, for sums.
fn money(value: &Option<pb::Amount>) -> rust_decimal::Decimal {
    amount(value).parse().expect("a decimal amount")
}

/// The conservation of a pool as its report states it: Σ contributions + Σ
/// replenishments = balance + reserve + Σ awards (net of returns and reclaims).
fn conserves(pool: &pb::PoolReport) {
    let money_in = money(&pool.contributions) + money(&pool.replenishments) - money(&pool.replenishments_withdrawn);
    let held_or_paid = money(&pool.balance) + money(&pool.reserve) + money(&pool.awards)
        - money(&pool.awards_returned)
        - money(&pool.awards_reclaimed);
    assert_eq!(money_in, held_or_paid, "pool {} conserves: {pool:?}", pool.pool_id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aj_2_5_4_1_a_bet_of_several_credits_is_staked_shown_and_paid_by_its_multiple() {
    // AJ 2.5.4.1: "Para apostar, el jugador debe presionar el botón respectivo, seleccionando
    // el monto de su apuesta, expresado en créditos", between the posted minimum and maximum
    // (2.5.5.1). A seat staking 5 credits of $ 10 bets $ 50: the panel shows the stake, the
    // pool receives 70% of 50, and a Full pays 100 × 50 (2.5.6.2).
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_credits("C1", &[(2, 20)]).await;
    let view = client.ok("C1", press_credits(2, 5)).await.table.expect("view");
    assert_eq!((seat(&view, 2).stake, seat(&view, 2).credits), (5, 15));
    assert_eq!(light(&view, 2), pb::Light::On);
    let before = money(&client.pool("aj-poker").await.contributions);
    client.ok("C1", start()).await;
    let pool = client.pool("aj-poker").await;
    // 2.5.6.3: the main (0.70) and reserve (0.20) shares of the bet of 50.
    assert_eq!(money(&pool.contributions) - before, rust_decimal::Decimal::from(45));
    assert_eq!(amount(&client.report("C1").await.ipa), "50.00");
    client.ok("C1", prize(2, "FULL")).await;
    let accepted = client.ok("C1", accept()).await;
    assert_eq!(money(&accepted.awards[0].award), rust_decimal::Decimal::from(5000), "100 × the bet of 50 (2.5.6.2)");
    client.ok("C1", finish()).await;
    conserves(&client.pool("aj-poker").await);
    // A void (4.3.2) or a refund (11.8.1.2) gives the whole stake back.
    assert_eq!(seat(&client.ok("C1", press_credits(2, 3)).await.table.expect("view"), 2).credits, 12);
    assert_eq!(seat(&client.ok("C1", void_bet(2)).await.table.expect("view"), 2).credits, 15);
    client.ok("C1", press_credits(2, 3)).await;
    client.ok("C1", start()).await;
    let view = client.ok("C1", refund_bet(2)).await.table.expect("view");
    assert_eq!((seat(&view, 2).credits, seat(&view, 2).stake), (15, 0));
    client.ok("C1", finish()).await;
    conserves(&client.pool("aj-poker").await);

    // More credits than the seat holds, and a stake over the posted maximum, are refused
    // naming `credits`, and change nothing.
    let fingerprint = client.fingerprint("C1").await;
    let message = client.refused("C1", press_credits(2, 16), Code::FailedPrecondition).await;
    assert!(message.contains("holds 15 credits, fewer than the 16 staked"), "{message}");
    for _ in 0..5 {
        client.ok("C1", sell(3, 20)).await;
    }
    client.ok("C1", sell(3, 5)).await;
    let fingerprint_3 = client.fingerprint("C1").await;
    let message = client.refused("C1", press_credits(3, 101), Code::InvalidArgument).await;
    assert!(message.starts_with("credits:") && message.contains("1000.00") && message.contains("2.5"), "{message}");
    assert_eq!(client.fingerprint("C1").await, fingerprint_3, "a refused stake changes nothing");
    assert_ne!(fingerprint, fingerprint_3);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_3_3_1_11_4_1_15_1_2_the_iplyc_side_bets_are_of_a_fixed_amount_live() {
    // 3.3.1 and 11.4.1: "Su monto será fijo y determinado de antemano"; 15.1.2: "una ficha,
    // de un monto fijo". A stake of two credits at an IPLyC table is refused naming
    // `credits` and the pool's one bet, and changes nothing; one credit is taken.
    let (server, mut client) = TestServer::with_client().await;
    for table in ["R1", "B1", "CP1"] {
        client.open_with_credits(table, &[(1, 5)]).await;
        let fingerprint = client.fingerprint(table).await;
        let message = client.refused(table, press_credits(1, 2), Code::InvalidArgument).await;
        assert!(message.starts_with("credits:") && message.contains("stipulated"), "{table}: {message}");
        assert_eq!(client.fingerprint(table).await, fingerprint, "{table}: nothing changed");
        let view = client.ok(table, press_credits(1, 1)).await.table.expect("view");
        assert_eq!(seat(&view, 1).credits, 4, "{table}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aj_2_5_6_1_a_seat_whose_light_fails_is_closed_to_the_progressive() {
    // AJ 2.5.6.1: "si una posición de la mesa presenta dispositivos luminosos defectuosos o
    // que no funcionan correctamente, deberá ser cerrada, no pudiendo participar en el pozo
    // progresivo". Closed, the seat takes no credit, press or prize; its credits are paid
    // back with the close; opened again, it plays.
    let (server, mut client) = TestServer::with_client().await;
    client.open_with_credits("G1", &[(3, 5), (1, 5)]).await;
    let closed = client.ok("G1", close_seat(3)).await;
    assert!(closed.outcome.contains("5 créditos pagados"), "{}", closed.outcome);
    let view = closed.table.expect("view");
    assert!(seat(&view, 3).closed);
    assert_eq!((light(&view, 3), seat(&view, 3).credits), (pb::Light::Off, 0));
    assert_eq!(light(&view, 1), pb::Light::Blue, "the other seats play on");
    let report = client.report("G1").await;
    assert_eq!((report.credits_returned, amount(&report.credits_returned_amount)), (5, "50.00".to_owned()));
    let fingerprint = client.fingerprint("G1").await;
    for command in [sell(3, 5), press(3)] {
        let message = client.refused("G1", command, Code::FailedPrecondition).await;
        assert!(message.contains("seat 3 is closed to the progressive") && message.contains("2.5.6.1"), "{message}");
    }
    assert_eq!(client.fingerprint("G1").await, fingerprint, "refusals change nothing");
    client.ok("G1", press(1)).await;
    client.ok("G1", start()).await;
    let message = client.refused("G1", prize(3, "COLOR"), Code::FailedPrecondition).await;
    assert!(message.contains("2.5.6.1"), "{message}");
    client.ok("G1", finish()).await;
    let message = client.refused("G1", close_seat(3), Code::FailedPrecondition).await;
    assert!(message.contains("already closed"), "{message}");
    let view = client.ok("G1", open_seat(3)).await.table.expect("view");
    assert_eq!((seat(&view, 3).closed, light(&view, 3)), (false, pb::Light::Blue));
    client.ok("G1", sell(3, 1)).await;
    client.ok("G1", press(3)).await;
    server.stop().await;
}

/// Plays ball after ball at `table` until `seat`'s series holds a Grillo de Oro: a bronze
/// hit, then a silver hit (3.1.3). Returns the silver's award.
async fn series_to_gold(client: &mut Client, table: &str, number: u32) -> String {
    client.sell_and_press(table, [number], 1).await;
    client.play_round(table, &[(number, "GRILLO_BRONCE")]).await;
    let ball = client.play_round(table, &[(number, "GRILLO_PLATA")]).await;
    let silver = amount(&ball.accepted.awards[0].award);
    let view = ball.finished.table.expect("view");
    assert_eq!(grillos(&view, number), (0, 0, 1), "a silver hit gives the gold (3.1.3)");
    silver
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_3_7_1_an_absent_players_grillos_are_kept_and_played_when_he_returns() {
    // 3.7.1: "Cuando una indisposición le impida al Apostador jugar las 3 bolas
    // consecutivas": 3.7.1.1 "si regresare con los dos Grillos de Plata se cambiarán por
    // tres Grillos de Bronce; debiendo comenzar con la serie nuevamente"; 3.7.1.2 "Si
    // regresare con el Grillo de Oro se le permitirá jugarlo". The table goes on meanwhile:
    // his grillos are not burnt at FINALIZAR JUEGO, and his gold needs no gold turn until
    // he is back.
    let (server, mut client) = TestServer::with_client().await;
    client.ok("R1", open()).await;
    // Seat 1 wins two silvers, then leaves.
    client.sell_and_press("R1", [1], 1).await;
    client.play_round("R1", &[(1, "GRILLO_BRONCE")]).await;
    let view = client.ok("R1", absent(1)).await.table.expect("view");
    assert!(seat(&view, 1).absent);
    assert_eq!(grillos(&view, 1), (0, 2, 0));
    client.ok("R1", start()).await;
    let message = client.refused("R1", prize(1, "GRILLO_PLATA"), Code::FailedPrecondition).await;
    assert!(message.contains("absent") && message.contains("3.7.1"), "{message}");
    let view = client.ok("R1", finish()).await.table.expect("view");
    assert_eq!(grillos(&view, 1), (0, 2, 0), "kept, not burnt, while he is away");
    let back = client.ok("R1", returns(1)).await;
    assert!(back.outcome.contains("3.7.1.1"), "{}", back.outcome);
    let view = back.table.expect("view");
    assert_eq!((grillos(&view, 1), seat(&view, 1).absent), ((3, 0, 0), false), "two silvers for three bronzes");

    // Seat 2 reaches the gold and leaves: the table plays on without a gold turn.
    client.ok("R2", open()).await;
    series_to_gold(&mut client, "R2", 2).await;
    client.ok("R2", absent(2)).await;
    client.ok("R2", start()).await;
    let view = client.ok("R2", finish()).await.table.expect("view");
    assert_eq!(grillos(&view, 2), (0, 0, 1), "the gold waits for its player");
    let message = client.refused("R2", gold_turn(), Code::FailedPrecondition).await;
    assert!(message.contains("3.7.1.2"), "{message}");
    let back = client.ok("R2", returns(2)).await;
    assert!(back.outcome.contains("3.7.1.2"), "{}", back.outcome);
    let message = client.refused("R2", start(), Code::FailedPrecondition).await;
    assert!(message.contains("request the gold turn first (4.3.5)"), "{message}");
    client.ok("R2", gold_turn()).await;
    client.ok("R2", start()).await;
    client.ok("R2", prize(2, "GRILLO_ORO")).await;
    let gold = client.ok("R2", accept()).await;
    assert!(!gold.awards[0].payout_order_id.is_empty(), "the 100% goes to Venta-Pagos (3.5.2)");
    let view = client.ok("R2", finish()).await.table.expect("view");
    assert_eq!(grillos(&view, 2), (0, 0, 0));
    conserves(&client.pool("iplyc-ruleta").await);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_3_7_1_a_player_leaving_lets_the_gold_turn_go_to_the_next_table_4_3_5() {
    // 4.3.5: the table with a silver hit plays the gold first, "las restantes deberán
    // esperar". If its player leaves (3.7.1) the turn is not held for him: the table
    // waiting plays.
    let (server, mut client) = TestServer::with_client().await;
    client.ok("R3", open()).await;
    client.ok("R4", open()).await;
    series_to_gold(&mut client, "R3", 1).await;
    series_to_gold(&mut client, "R4", 1).await;
    client.ok("R3", gold_turn()).await;
    let waiting = client.ok("R4", gold_turn()).await;
    assert_eq!(pb::GoldTurn::try_from(waiting.table.expect("view").gold_turn), Ok(pb::GoldTurn::Waiting));
    let left = client.ok("R3", absent(1)).await;
    assert!(left.outcome.contains("deja el turno"), "{}", left.outcome);
    assert_eq!(pb::GoldTurn::try_from(client.view("R4").await.gold_turn), Ok(pb::GoldTurn::Granted));
    client.ok("R3", start()).await;
    client.ok("R3", finish()).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_3_7_10_grillos_not_played_are_played_in_the_next_ball() {
    // 3.7.10: "En caso que el Apostador por desconocimiento jugare una cantidad menor de los
    // Grillos establecidos en cualquiera de las instancias, se le permitirá jugarlos en la
    // bola siguiente"; 3.7.4: "Cualquier Grillo jugado a una suerte distinta a un pleno se
    // devolverá al Apostador con opción a jugarlo nuevamente". The dealer says two of the
    // three bronzes were played; one of them hits: the seat holds the bronze not played
    // and two silvers for the next ball.
    let (server, mut client) = TestServer::with_client().await;
    client.round_started("R1", &[(3, 1)], &[3]).await;
    let message = client.refused("R1", played(3, "GRILLO_BRONCE", 3), Code::InvalidArgument).await;
    assert!(message.starts_with("played:") && message.contains("3.7.10"), "{message}");
    let said = client.ok("R1", played(3, "GRILLO_BRONCE", 2)).await;
    assert!(said.outcome.contains("2 de 3 Grillo de Bronce jugados"), "{}", said.outcome);
    client.ok("R1", prize(3, "GRILLO_BRONCE")).await;
    client.ok("R1", accept()).await;
    let view = client.ok("R1", finish()).await.table.expect("view");
    assert_eq!(grillos(&view, 3), (1, 2, 0));
    // 3.7.2: the bronze hits again; keeping the two silvers unplayed would put four in play.
    client.ok("R1", start()).await;
    client.ok("R1", prize(3, "GRILLO_BRONCE")).await;
    let fingerprint = client.fingerprint("R1").await;
    let message = client.refused("R1", played(3, "GRILLO_PLATA", 0), Code::FailedPrecondition).await;
    assert!(message.contains("more than 2 in play (3.7.2)"), "{message}");
    assert_eq!(client.fingerprint("R1").await, fingerprint);
    client.ok("R1", accept()).await;
    let view = client.ok("R1", finish()).await.table.expect("view");
    assert_eq!(grillos(&view, 3), (0, 2, 0), "the silvers played and lost, two new ones for the bronze");
    // The next ball plays them all; none hits: the series ends.
    client.ok("R1", start()).await;
    let view = client.ok("R1", finish()).await.table.expect("view");
    assert_eq!(grillos(&view, 3), (0, 0, 0));
    // A silver not played at all cannot win, and waits; so does a gold not played in its turn.
    client.ok("R2", open()).await;
    client.sell_and_press("R2", [5, 6], 1).await;
    client.play_round("R2", &[(5, "GRILLO_BRONCE"), (6, "GRILLO_BRONCE")]).await;
    client.ok("R2", start()).await;
    client.ok("R2", played(6, "GRILLO_PLATA", 0)).await;
    let message = client.refused("R2", prize(6, "GRILLO_PLATA"), Code::FailedPrecondition).await;
    assert!(message.contains("3.7.10"), "{message}");
    client.ok("R2", prize(5, "GRILLO_PLATA")).await;
    client.ok("R2", accept()).await;
    let view = client.ok("R2", finish()).await.table.expect("view");
    assert_eq!((grillos(&view, 5), grillos(&view, 6)), ((0, 0, 1), (0, 2, 0)), "seat 6's silvers wait for the next ball");
    client.ok("R2", gold_turn()).await;
    client.ok("R2", start()).await;
    client.ok("R2", played(5, "GRILLO_ORO", 0)).await;
    let view = client.ok("R2", finish()).await.table.expect("view");
    assert_eq!((grillos(&view, 5), grillos(&view, 6)), ((0, 0, 1), (0, 0, 0)), "the gold kept; the silvers played and lost");
    assert_eq!(pb::GoldTurn::try_from(view.gold_turn), Ok(pb::GoldTurn::None), "the turn passed on; asked for again (4.3.5)");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_3_7_3_a_series_found_invalid_after_payment_gives_its_award_back() {
    // 3.7.2: more than three bronze, two silver or one gold played by one player, "la jugada
    // al Pozo Acumulado no será válida"; 3.7.3: "Si dicha circunstancia fuese advertida
    // después de efectuado el pago se procederá a dar por nula la apuesta y a exigirle la
    // devolución del monto". The silver's $ 300 goes back to the pool, off the table's PPPA,
    // booked as reclaimed (no old entry edited); the gold it granted is taken; the bet stays
    // played; the pool conserves.
    let (server, mut client) = TestServer::with_client().await;
    client.ok("R1", open()).await;
    let silver = series_to_gold(&mut client, "R1", 4).await;
    assert_eq!(silver, "300.00", "the Grillo de Plata's fixed amount (3.4.1.2)");
    let pool = client.pool("iplyc-ruleta").await;
    let report = client.report("R1").await;
    assert_eq!(amount(&report.pppa), "300.00");
    let entries = client.journal().await.entries;
    let annulled = client.ok("R1", annul_series(4)).await;
    assert!(annulled.outcome.contains("$ 300,00 devueltos al pozo (3.7.3)"), "{}", annulled.outcome);
    assert_eq!(grillos(&annulled.table.expect("view"), 4), (0, 0, 0), "the gold it granted is taken");
    assert_eq!(client.journal().await.entries, entries + 1, "one new entry; none edited");
    let after = client.pool("iplyc-ruleta").await;
    assert_eq!(money(&after.balance) - money(&pool.balance), "300".parse().unwrap());
    assert_eq!((amount(&after.awards_reclaimed), after.reclaims), ("300.00".to_owned(), 1));
    assert_eq!((after.bets, amount(&after.contributions)), (pool.bets, amount(&pool.contributions)), "the bet stays played");
    conserves(&after);
    let report = client.report("R1").await;
    assert_eq!((amount(&report.pppa), amount(&report.pppa_reclaimed)), ("0.00".to_owned(), "300.00".to_owned()));
    let message = client.refused("R1", annul_series(4), Code::FailedPrecondition).await;
    assert!(message.contains("no series to annul (3.7.3)"), "{message}");
    let message = client.refused("R1", annul_named_series(4, &series_named(&annulled.outcome)), Code::FailedPrecondition).await;
    assert!(message.contains("already annulled"), "{message}");
    server.stop().await;
}

/// The number a series outcome names ("serie SE-000007").
fn series_named(outcome: &str) -> String {
    let at = outcome.find("erie SE-").unwrap_or_else(|| panic!("no series named in {outcome}"));
    outcome[at + "erie ".len()..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect()
}

/// 3.7.3: "Si dicha circunstancia fuese advertida después de efectuado el pago se procederá a
/// dar por nula la apuesta y a exigirle la devolución del monto." The series found invalid is the
/// one annulled, whenever it is found: named by its number, after the player bought a new series,
/// after a Cierre de Mesa and the next Apertura. The new, unplayed series is never taken, and a
/// refusal during a ball cites 3.7.3.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_3_7_3_the_series_found_invalid_is_annulled_whenever_it_is_found() {
    let (server, mut client) = TestServer::with_client().await;
    client.ok("R1", open()).await;
    client.ok("R1", sell(4, 1)).await;
    let sold = client.ok("R1", press(4)).await;
    let paid = series_named(&sold.outcome);
    client.play_round("R1", &[(4, "GRILLO_BRONCE")]).await;
    let silver = client.play_round("R1", &[(4, "GRILLO_PLATA")]).await;
    assert_eq!(series_named(&silver.accepted.outcome), paid, "the award names its series: {}", silver.accepted.outcome);
    assert_eq!(amount(&silver.accepted.awards[0].award), "300.00");
    // The gold is played and misses; the player buys a new series.
    client.ok("R1", gold_turn()).await;
    client.ok("R1", start()).await;
    client.ok("R1", finish()).await;
    client.ok("R1", sell(4, 1)).await;
    let sold = client.ok("R1", press(4)).await;
    let fresh = series_named(&sold.outcome);
    assert_ne!(fresh, paid);

    // The seat's current series played no ball: annulling it would take a bet not played.
    let (pool, report) = (client.pool("iplyc-ruleta").await, client.report("R1").await);
    let entries = client.journal().await.entries;
    let message = client.refused("R1", annul_series(4), Code::FailedPrecondition).await;
    assert!(message.contains(&format!("{fresh} has played no ball")) && message.contains(&paid), "{message}");
    assert_eq!(client.journal().await.entries, entries, "nothing journaled");
    let after = client.pool("iplyc-ruleta").await;
    assert_eq!((amount(&after.balance), amount(&after.contributions)), (amount(&pool.balance), amount(&pool.contributions)));
    assert_eq!(amount(&client.report("R1").await.ipa), amount(&report.ipa), "its bet stays in the IPA, unplayed");

    // Cierre de Mesa (the unplayed sale goes back, 3.7.9) and the next Apertura.
    client.ok("R1", close()).await;
    client.ok("R1", open()).await;
    let message = client.refused("R1", annul_series(4), Code::FailedPrecondition).await;
    assert!(message.contains("no series to annul (3.7.3)"), "{message}");
    let before = client.pool("iplyc-ruleta").await;
    let annulled = client.ok("R1", annul_named_series(4, &paid)).await;
    assert!(annulled.outcome.contains(&format!("Serie {paid} anulada")), "{}", annulled.outcome);
    assert!(annulled.outcome.contains("$ 300,00 devueltos al pozo (3.7.3)"), "{}", annulled.outcome);
    let after = client.pool("iplyc-ruleta").await;
    assert_eq!(money(&after.balance) - money(&before.balance), "300".parse().unwrap(), "the 300 actually paid comes back");
    assert_eq!(money(&after.awards_reclaimed) - money(&before.awards_reclaimed), "300".parse().unwrap());
    assert_eq!(amount(&after.contributions), amount(&before.contributions), "no bet taken");
    conserves(&after);
    let report = client.report("R1").await;
    assert_eq!(amount(&report.pppa_reclaimed), "300.00");
    // The table report lists the series kept, so a supervisor finds the number days later.
    let kept = report.series.iter().find(|series| series.series_id == paid).expect("the paid series is listed");
    assert_eq!((kept.seat, kept.balls, kept.annulled), (4, 3, true), "{kept:?}");
    assert!(kept.awards.iter().any(|award| amount(&award.award) == "300.00"), "{kept:?}");

    // Once only, at its own table and seat; an unknown number is not found.
    let message = client.refused("R1", annul_named_series(4, &paid), Code::FailedPrecondition).await;
    assert!(message.contains("already annulled"), "{message}");
    let message = client.refused("R1", annul_named_series(3, &paid), Code::FailedPrecondition).await;
    assert!(message.starts_with("series:") && message.contains("position 4"), "{message}");
    let message = client.refused("R1", annul_named_series(4, "SE-999999"), Code::NotFound).await;
    assert!(message.starts_with("series:"), "{message}");

    // During a ball the refusal cites the article applied, 3.7.3.
    client.ok("R1", sell(4, 5)).await;
    client.ok("R1", press(4)).await;
    client.ok("R1", start()).await;
    let message = client.refused("R1", annul_series(4), Code::FailedPrecondition).await;
    assert!(message.contains("(3.7.3)") && !message.contains("3.7.1"), "{message}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_11_8_3_a_sick_players_bet_and_prize_are_held_in_custody_and_released() {
    // 11.8.3.1.2: "Con el juego iniciado, sin expresar su voluntad, el casillero no juega …
    // De haber jugado apuesta de Pozo Acumulado ésta será anulada e ingresada a la Banca en
    // custodia"; 11.8.3.2.2: "De haber realizado una apuesta de Pozo Acumulado y conseguido
    // premio éste quedará en la Banca en custodia" (15.14.5.2.2 and 15.14.5.2.5 the same).
    let (server, mut client) = TestServer::with_client().await;
    client.round_started("B2", &[(1, 5), (2, 5)], &[1, 2]).await;
    let held = client.ok("B2", custody_bet(1)).await;
    assert!(held.outcome.contains("en custodia") && held.outcome.contains("CU-000001"), "{}", held.outcome);
    let view = held.table.expect("view");
    assert_eq!((light(&view, 1), seat(&view, 1).credits), (pb::Light::Off, 4), "annulled; the stake is held, not returned");
    let pool = client.pool("iplyc-blackjack").await;
    assert_eq!((pool.bets, amount(&pool.contributions)), (1, "6.50".to_owned()), "seat 1's contribution is out");
    conserves(&pool);
    client.ok("B2", prize(2, "CUATRO_ASES")).await;
    client.ok("B2", accept()).await;
    let held = client.ok("B2", custody_prize(2)).await;
    assert!(held.outcome.contains("$ 500,00") && held.outcome.contains("CU-000002"), "{}", held.outcome);
    let message = client.refused("B2", custody_prize(2), Code::FailedPrecondition).await;
    assert!(message.contains("11.8.3.2.2"), "{message}");
    client.ok("B2", finish()).await;

    let report = client.report("B2").await;
    assert_eq!((amount(&report.ipa), amount(&report.pppa)), ("10.00".to_owned(), "500.00".to_owned()));
    assert_eq!(amount(&report.custody_in), "510.00");
    let items: Vec<(String, String, String)> =
        report.custody_held.iter().map(|item| (item.custody_id.clone(), item.kind.clone(), amount(&item.amount))).collect();
    assert_eq!(
        items,
        [
            ("CU-000001".to_owned(), "apuesta en custodia".to_owned(), "10.00".to_owned()),
            ("CU-000002".to_owned(), "premio en custodia".to_owned(), "500.00".to_owned())
        ]
    );
    assert_eq!(amount(&client.pool("iplyc-blackjack").await.custody_held), "510.00");

    // Handed over: once, at the bank that holds it.
    client.ok("B2", release("CU-000001")).await;
    let message = client.refused("B2", release("CU-000001"), Code::FailedPrecondition).await;
    assert!(message.contains("already handed over"), "{message}");
    client.ok("B1", open()).await;
    let message = client.refused("B1", release("CU-000002"), Code::FailedPrecondition).await;
    assert!(message.contains("held by the bank of table B2"), "{message}");
    let message = client.refused("B2", release("CU-999999"), Code::NotFound).await;
    assert!(message.starts_with("custody_id:"), "{message}");
    let report = client.report("B2").await;
    assert_eq!((amount(&report.custody_released), report.custody_held.len()), ("10.00".to_owned(), 1));
    assert_eq!(amount(&client.pool("iplyc-blackjack").await.custody_held), "500.00");
    conserves(&client.pool("iplyc-blackjack").await);

    // A 20% prize paid through Venta-Pagos is held in custody through its order (3.5.2); the
    // office rejects the order: the award is undone, and the custody holds nothing for it.
    client.ok("B2", sell(3, 5)).await;
    client.ok("B2", press(3)).await;
    client.ok("B2", start()).await;
    client.ok("B2", prize(3, "TRES_SIETES_MISMO_PALO")).await;
    let order = client.ok("B2", accept()).await.awards[0].payout_order_id.clone();
    assert!(!order.is_empty());
    let held = client.ok("B2", custody_prize(3)).await;
    assert!(held.outcome.contains("CU-000003"), "{}", held.outcome);
    client.ok("B2", finish()).await;
    let with_order = money(&client.pool("iplyc-blackjack").await.custody_held);
    assert!(with_order > rust_decimal::Decimal::from(500), "the order's amount is held too");
    client.reject(&order, "premio mal ingresado").await.expect("rejected");
    assert_eq!(amount(&client.pool("iplyc-blackjack").await.custody_held), "500.00", "nothing held for a rejected order");
    let message = client.refused("B2", release("CU-000003"), Code::FailedPrecondition).await;
    assert!(message.contains("voided") && message.contains("3.5.2"), "{message}");
    conserves(&client.pool("iplyc-blackjack").await);
    server.stop().await;
}

/// 11.8.3.2.2: "De haber realizado una apuesta de Pozo Acumulado y conseguido premio éste
/// quedará en la Banca en custodia"; 11.6.1.2: a prize above the maximum is paid by the office's
/// form, not by the bank. A prize held through a payout order still PENDIENTE DE PAGO is not handed
/// over (the refusal names the order); once Venta-Pagos pays it, it is. The bank never hands over
/// money that never came in, so a later rejection can never find it gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_11_8_3_2_2_custody_hands_over_no_prize_venta_pagos_has_not_paid() {
    let (server, mut client) = TestServer::with_client().await;
    client.round_started("B2", &[(3, 5)], &[3]).await;
    client.ok("B2", prize(3, "TRES_SIETES_MISMO_PALO")).await;
    let order = client.ok("B2", accept()).await.awards[0].payout_order_id.clone();
    assert!(!order.is_empty(), "the 20% prize goes to Venta-Pagos");
    let held = client.ok("B2", custody_prize(3)).await;
    assert!(held.outcome.contains("CU-000001"), "{}", held.outcome);
    client.ok("B2", finish()).await;
    let before = client.report("B2").await;

    let message = client.refused("B2", release("CU-000001"), Code::FailedPrecondition).await;
    assert!(message.contains(&order) && message.contains("pending") && message.contains("11.8.3.2.2"), "{message}");
    let after = client.report("B2").await;
    assert_eq!(after.custody_released, before.custody_released, "nothing handed over");
    assert_eq!(after.custody_held.len(), 1, "still held");

    // Paid into custody by the office: now the bank hands it over, for what the order paid.
    let paid = client.confirm(&order, "F-1001").await.expect("confirmed");
    let released = client.ok("B2", release("CU-000001")).await;
    assert!(released.outcome.starts_with("Custodia entregada: CU-000001"), "{}", released.outcome);
    let after = client.report("B2").await;
    assert_eq!(after.custody_held.len(), 0);
    assert_eq!(
        money(&after.custody_released) - money(&before.custody_released),
        money(&paid.amount),
        "handed over what the office paid"
    );
    conserves(&client.pool("iplyc-blackjack").await);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_15_11_5_the_instant_prize_is_claimed_until_the_cards_are_in_the_rack() {
    // 15.11.5: "Una vez ingresados los naipes al descartero no se aceptarán reclamos sobre el
    // Premio Instantáneo"; 16.4.2.5.12: the cards gathered "y depositará en el Descartero
    // de su derecha. Digitará el botón correspondiente – FINALIZAR JUEGO". After ACEPTAR the
    // cards are not yet in the rack: the claim is paid. After FINALIZAR JUEGO it is refused.
    let (server, mut client) = TestServer::seeded_with_client(7).await;
    client.ok("CP1", open()).await;
    for _ in 0..5 {
        client.ok("CP1", sell(1, 20)).await;
        client.ok("CP1", sell(2, 20)).await;
    }
    client.until_instant_card("CP1", &[1, 2]).await;
    client.ok("CP1", prize(2, "FULL")).await;
    client.ok("CP1", finish()).await;
    client.ok("CP1", accept()).await;
    let paid = client.ok("CP1", prize(1, "PREMIO_INSTANTANEO")).await;
    assert_eq!(amount(&paid.awards[0].award), "30.00");
    assert!(paid.table.expect("view").instant_card.is_none(), "won, it leaves the monitor (15.11.4)");
    client.ok("CP1", finish()).await;

    client.until_instant_card("CP1", &[1, 2]).await;
    let view = client.ok("CP1", finish()).await.table.expect("view");
    assert!(view.instant_card.is_some(), "not won: it stays for the next rounds (15.11.4)");
    let fingerprint = client.fingerprint("CP1").await;
    let message = client.refused("CP1", prize(1, "PREMIO_INSTANTANEO"), Code::FailedPrecondition).await;
    assert!(message.contains("15.11.5") && message.contains("16.4.2.5.12"), "{message}");
    assert_eq!(client.fingerprint("CP1").await, fingerprint);
    server.stop().await;
}

/// 3.7.3 with a round still open at Venta-Pagos: a series whose award (here a bronze, fixed at
/// zero) shares a round with another seat's pending order is not annulled until that order is
/// decided — its rejection re-settles the round and could pay the annulled series.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_3_7_3_a_series_is_not_annulled_while_an_order_of_its_rounds_is_pending() {
    let (server, mut client) = TestServer::with_client().await;
    client.ok("R1", open()).await;
    series_to_gold(&mut client, "R1", 5).await;
    client.ok("R1", sell(4, 1)).await;
    let series = series_named(&client.ok("R1", press(4)).await.outcome);
    client.ok("R1", gold_turn()).await;
    let ball = client.play_round("R1", &[(5, "GRILLO_ORO"), (4, "GRILLO_BRONCE")]).await;
    let order = ball.accepted.awards.iter().find(|award| award.seat == 5).expect("the gold").payout_order_id.clone();
    assert!(!order.is_empty(), "the gold goes to Venta-Pagos (3.5.2)");
    let pool = client.pool("iplyc-ruleta").await;
    let message = client.refused("R1", annul_named_series(4, &series), Code::FailedPrecondition).await;
    assert!(message.contains(&order) && message.contains("pending"), "{message}");
    assert_eq!(amount(&client.pool("iplyc-ruleta").await.balance), amount(&pool.balance), "nothing changed");
    client.confirm(&order, "F-77").await.expect("paid");
    let annulled = client.ok("R1", annul_named_series(4, &series)).await;
    assert!(annulled.outcome.contains("$ 0,00 devueltos"), "the bronze paid no money: {}", annulled.outcome);
    conserves(&client.pool("iplyc-ruleta").await);
    server.stop().await;
}

/// 3.7.3 names the series found invalid: annulling a past series, paid, while the seat plays a
/// new one leaves the new series — its bet, its grillos — alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_3_7_3_annulling_a_past_series_leaves_the_seats_new_series_alone() {
    let (server, mut client) = TestServer::with_client().await;
    client.ok("R1", open()).await;
    client.ok("R1", sell(4, 1)).await;
    let paid = series_named(&client.ok("R1", press(4)).await.outcome);
    client.play_round("R1", &[(4, "GRILLO_BRONCE")]).await;
    client.play_round("R1", &[(4, "GRILLO_PLATA")]).await;
    client.ok("R1", gold_turn()).await;
    client.ok("R1", start()).await;
    client.ok("R1", finish()).await;
    client.ok("R1", sell(4, 1)).await;
    let fresh = series_named(&client.ok("R1", press(4)).await.outcome);
    let before = client.pool("iplyc-ruleta").await;
    let annulled = client.ok("R1", annul_named_series(4, &paid)).await;
    assert!(annulled.outcome.contains("$ 300,00 devueltos al pozo (3.7.3)"), "{}", annulled.outcome);
    let view = annulled.table.expect("view");
    assert_eq!(grillos(&view, 4), (3, 0, 0), "the new series keeps its three bronze");
    let after = client.pool("iplyc-ruleta").await;
    assert_eq!((after.bets, amount(&after.contributions)), (before.bets, amount(&before.contributions)), "its bet stays");
    conserves(&after);
    // The new series plays on, and is the seat's current one.
    client.play_round("R1", &[(4, "GRILLO_BRONCE")]).await;
    let message = client.refused("R1", annul_named_series(4, &paid), Code::FailedPrecondition).await;
    assert!(message.contains("already annulled"), "{message}");
    let current = client.ok("R1", annul_series(4)).await;
    assert!(current.outcome.contains(&fresh), "{}", current.outcome);
    server.stop().await;
}

/// What the dealer reads agrees with its number: "1 crédito", "1 apuesta registrada", "1 premio",
/// "1 crédito devuelto" — never "1 créditos", "1 premios" or "crédito(s)".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_outcomes_agree_in_number() {
    let (server, mut client) = TestServer::with_client().await;
    client.ok("B2", open()).await;
    let sold = client.ok("B2", sell(3, 1)).await;
    assert_eq!(sold.outcome, "Venta de créditos: posición 3, 1 crédito");
    client.ok("B2", press(3)).await;
    let voided = client.ok("B2", C::VoidBet(pb::VoidBet { seat: 3 })).await;
    assert_eq!(voided.outcome, "Anulada: posición 3, 1 crédito devuelto (4.3.2)");
    client.ok("B2", press(3)).await;
    let started = client.ok("B2", start()).await;
    assert_eq!(started.outcome, "INICIAR JUEGO: 1 apuesta registrada");
    client.ok("B2", prize(3, "CUATRO_ASES")).await;
    let accepted = client.ok("B2", accept()).await;
    assert!(accepted.outcome.starts_with("ACEPTAR: 1 premio, $ 500,00 a pagar"), "{}", accepted.outcome);
    client.ok("B2", finish()).await;
    let sold = client.ok("B2", sell(3, 5)).await;
    assert_eq!(sold.outcome, "Venta de créditos: posición 3, 5 créditos");
    let paid = client.ok("B2", C::RefundCredits(pb::RefundCredits { seat: 3 })).await;
    assert_eq!(paid.outcome, "Pago de créditos: posición 3, 5 créditos");
    server.stop().await;
}
