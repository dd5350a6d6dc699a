//! A whole poker tournament played through the real server (Res. 123/2013): set up through the
//! two-person door, registration with refunds, rebuys and add-ons, the pool fixed, seats drawn
//! and checked offline, eliminations with a tie and a disqualification, chips sealed between
//! jornadas, prizes paid at the cashier and through Venta-Pagos; its books tie to zero at every
//! step, and every refusal changes nothing.

mod common;

use common::TestServer;
use common::tournament::*;
use pozo_core::tournament::seats::{self, PlayerRef, SeatDrawHead, Seating, TableSeats};
use pozo_proto::v1 as pb;
use rust_decimal::Decimal;
use tonic::Code;

const T: &str = "multimesa-semanal";

fn d(text: &str) -> Decimal {
    text.parse().expect("a decimal")
}

/// The books as the server states them tie to zero (art. 62, 63: sold − refunds = prizes + house).
fn tied(view: &pb::TournamentView) {
    let books = view.books.as_ref().expect("books");
    assert!(books.tied, "{}", books.untied);
    assert_eq!(value(&books.sold) - value(&books.refunds), value(&books.prizes) + value(&books.house));
}

/// A refused operation: its code, and the journal and the tournament unchanged.
async fn refused(client: &mut common::Client, key: &str, command: pb::tournament_command::Command, code: Code) -> String {
    let before = (client.journal().await.entries, get(client, DIRECTOR, T).await);
    let status = submit(client, key, command).await.expect_err("refused");
    assert_eq!(status.code(), code, "{status:?}");
    let after = (client.journal().await.entries, get(client, DIRECTOR, T).await);
    assert_eq!(before, after, "a refusal changes nothing");
    status.message().to_owned()
}

/// The seating a draw claims is the one its nonce gives, and the nonce opens the commitment
/// journaled before (art. 11, 15, 88; Anexo IV 8.1): checked here as an inspector would, offline.
fn check_draw(line: &pb::TournamentSeatDrawLine) {
    let head = SeatDrawHead { tournament: T.into(), draw: line.draw, reason: line.reason.parse().expect("a reason") };
    let commitment: [u8; 32] = hex::decode(&line.commitment).expect("hex").try_into().expect("32 bytes");
    let nonce: [u8; 32] = hex::decode(&line.nonce).expect("hex").try_into().expect("32 bytes");
    let players: Vec<PlayerRef> = line.players.iter().map(|order| PlayerRef { order: u64::from(*order) }).collect();
    let tables: Vec<TableSeats> =
        line.tables.iter().map(|t| TableSeats { table: t.table.as_str().into(), seats: t.seats.clone() }).collect();
    let claimed: Vec<Seating> = line
        .seating
        .iter()
        .map(|s| Seating { order: u64::from(s.order), table: s.table.as_str().into(), seat: s.seat })
        .collect();
    seats::check(&head, &commitment, &nonce, &players, &tables, &claimed).expect("the draw checks offline");
    let mut other = nonce;
    other[0] ^= 1;
    assert!(seats::check(&head, &commitment, &other, &players, &tables, &claimed).is_err(), "another nonce does not open it");
}

#[tokio::test]
async fn a_whole_tournament_is_played_through_the_server_and_its_books_tie_to_zero() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    // A lower Venta-Pagos threshold than the example's, so that the first prize goes through the office.
    let text = multimesa().replace("venta_pagos_from = \"500000.00\"", "venta_pagos_from = \"100000.00\"");
    assert_ne!(text, multimesa(), "the example names its threshold");
    let approved = set_up(&client, &text).await;
    assert_eq!(approved.kind, "tournament");

    // Registration open, the first seat draw already committed to (art. 11).
    let view = get(&client, CASHIER, T).await;
    assert_eq!(view.phase, "INSCRIPCIÓN ABIERTA");
    assert_eq!((view.next_draw, view.next_commitment.len()), (1, 64));
    let first_commitment = view.next_commitment.clone();

    // Twelve buy-ins (IN), one by one, each with its order number (Anexo IV 1.2, 1.3).
    for order in 1..=12 {
        let reply =
            submit(&client, CASHIER, purchase(T, "IN", order, &format!("Jugador {order}"), &document_of(order), "20000.00"))
                .await
                .expect("booked");
        let receipt = reply.receipt.expect("the vale de compra de fichas");
        assert_eq!((receipt.order, receipt.item.as_str(), receipt.chips), (order, "IN", 10_000));
        assert_eq!(receipt.document, format!("DNI {}", document_of(order)), "the receipt shows the document (Anexo IV 1.2)");
        assert_eq!(receipt.cashier, "Ana Pereyra");
        let view = reply.tournament.expect("view");
        let line = view.purchases.iter().find(|p| p.order == order).expect("booked");
        assert!(line.document_masked.starts_with("DNI ***") && !line.document_masked.contains(&document_of(order)));
        tied(&view);
    }
    // The same purchase sent again (a page submitted twice): its receipt again, nothing journaled.
    let entries = client.journal().await.entries;
    let again =
        submit(&client, CASHIER, purchase(T, "IN", 12, "Jugador 12", &document_of(12), "20000.00")).await.expect("a retry");
    assert_eq!(again.receipt.expect("the receipt again").order, 12);
    assert_eq!(client.journal().await.entries, entries, "a retry journals nothing");
    // Wrong price, a second buy-in of the same document, a rebuy of nobody: refused, nothing changed.
    let message =
        refused(&mut client, CASHIER, purchase(T, "IN", 13, "Otro", "40000000", "19999.99"), Code::InvalidArgument).await;
    assert!(message.contains("amount") && message.contains("Anexo I art. 1"), "{message}");
    refused(&mut client, CASHIER, purchase(T, "IN", 13, "Jugador 1 otra vez", &document_of(1), "20000.00"), Code::AlreadyExists)
        .await;
    refused(&mut client, CASHIER, purchase(T, "RB", 13, "Nadie", "40000000", "10000.00"), Code::FailedPrecondition).await;
    // The director is not the cashier's office for a purchase of the regulator's inspector.
    refused(&mut client, common::changes::ELENA, purchase(T, "IN", 13, "Otro", "40000000", "20000.00"), Code::PermissionDenied)
        .await;

    // A refund at the player's request while registration is open (Anexo IV 1.4).
    let view = ok(&client, CASHIER, refund(T, 12)).await;
    assert_eq!(view.entrants, 11);
    tied(&view);
    // The live pool (art. 64: fixed only later): 11 × 20.000 × 0,80.
    assert_eq!(value(&view.prizes), d("176000.00"));
    assert!(!view.pool_fixed);

    // Rebuys and an add-on (Anexo I art. 1 items 6, 7, 9: each its own share).
    ok(&client, CASHIER, purchase(T, "RB", 13, "Jugador 1", &document_of(1), "10000.00")).await;
    ok(&client, CASHIER, purchase(T, "RB", 14, "Jugador 2", &document_of(2), "10000.00")).await;
    ok(&client, CASHIER, purchase(T, "AD", 15, "Jugador 3", &document_of(3), "10000.00")).await;

    // Registration closes (art. 65): no more buy-ins, no more refunds (Anexo IV 1.4).
    let view = ok(&client, DIRECTOR, close_registration(T)).await;
    assert_eq!(view.entrants, 11);
    refused(&mut client, CASHIER, refund(T, 13), Code::FailedPrecondition).await;
    refused(&mut client, CASHIER, purchase(T, "IN", 16, "Tarde", "40000001", "20000.00"), Code::FailedPrecondition).await;

    // The seats drawn (art. 11): two tables of nine, the nonce committed before registration
    // opened, revealed now, and the next draw committed in turn.
    let view = ok(&client, DIRECTOR, draw_seats(T, "inicio", &[("T1", 9), ("T2", 9)])).await;
    let draw = &view.seat_draws[0];
    assert_eq!((draw.draw, draw.reason.as_str(), draw.commitment.as_str()), (1, "inicio", first_commitment.as_str()));
    assert_eq!(draw.seating.len(), 11);
    check_draw(draw);
    // The controller's next entry, in the same batch, commits to draw 2.
    let view = get(&client, DIRECTOR, T).await;
    assert_eq!((view.next_draw, view.next_commitment.len()), (2, 64));
    assert_ne!(view.next_commitment, first_commitment);
    // `inicio` is the first draw only.
    refused(&mut client, DIRECTOR, draw_seats(T, "inicio", &[("T1", 9), ("T2", 9)]), Code::InvalidArgument).await;

    // The rebuy and add-on period ends: the pool fixed (art. 64), 11 entrants pay three (art. 65).
    let view = ok(&client, DIRECTOR, close_rebuys(T)).await;
    assert!(view.pool_fixed);
    // 11 × 20.000 × 0,80 + 2 × 10.000 × 0,90 + 10.000 × 0,95.
    assert_eq!(value(&view.prizes), d("203500.00"));
    let places: Vec<Decimal> = view.places.iter().map(|p| value(&Some(p.clone()))).collect();
    assert_eq!(places, [d("101750.00"), d("61050.00"), d("40700.00")]);
    tied(&view);
    refused(&mut client, CASHIER, purchase(T, "RB", 16, "Jugador 1", &document_of(1), "10000.00"), Code::FailedPrecondition)
        .await;

    // Eleven to five, one by one.
    let mut hand = 0;
    for order in (5..=11).rev() {
        hand += 1;
        let view = ok(&client, DIRECTOR, eliminate(T, &[order], if order % 2 == 0 { "T1" } else { "T2" }, hand, false)).await;
        assert_eq!(view.players.iter().find(|p| p.order == order).expect("player").position, order);
        tied(&view);
    }
    // Chips counted and sealed at the end of the first jornada (Anexo IV 7.3.2), then the second
    // jornada's seats drawn (art. 15) for the four left.
    for order in 1..=4 {
        ok(&client, DIRECTOR, seal_chips(T, order, 40_000 + u64::from(order), &format!("R-{order:04}"), 1)).await;
    }
    let message = refused(&mut client, DIRECTOR, seal_chips(T, 1, 5, "R-9999", 1), Code::AlreadyExists).await;
    assert!(message.contains("R-0001") && message.contains("7.3.2"), "{message}");
    refused(&mut client, CASHIER, seal_chips(T, 2, 5, "R-9998", 2), Code::PermissionDenied).await;
    let view = ok(&client, DIRECTOR, draw_seats(T, "jornada 2", &[("T1", 9)])).await;
    assert_eq!(view.seals.len(), 4);
    let draw = &view.seat_draws[1];
    assert_eq!(draw.players, [1, 2, 3, 4]);
    check_draw(draw);

    // Players 3 and 4 out in the same hand at different tables (art. 72): positions 3 and 4
    // shared equally — the 3rd prize halved.
    let view = ok(&client, DIRECTOR, eliminate(T, &[3, 4], "T1", 90, true)).await;
    let elimination = view.eliminations.last().expect("recorded");
    assert_eq!((elimination.first, elimination.last, elimination.tie.as_str()), (3, 4, "simultánea (art. 72)"));
    let amounts: Vec<Decimal> = elimination.amounts.iter().map(|a| value(&Some(a.clone()))).collect();
    assert_eq!(amounts, [d("20350.00"), d("20350.00")]);

    // Player 3 disqualified before collecting (Anexo II): his prize shared among the two still active.
    let view = ok(&client, DIRECTOR, disqualify(T, 3, "Colusión comprobada por el director")).await;
    let disqualification = view.disqualifications.last().expect("recorded");
    assert_eq!(value(&disqualification.forfeited), d("20350.00"));
    assert_eq!(disqualification.shared_to, [1, 2]);
    tied(&view);
    refused(&mut client, CASHIER, pay_prize(T, 3, &document_of(3)), Code::FailedPrecondition).await;

    // Player 2 out: player 1 wins. Every position known.
    let view = ok(&client, DIRECTOR, eliminate(T, &[2], "T1", 120, false)).await;
    assert_eq!(view.phase, "FINALIZADO");
    let due = |order: u32| value(&view.players.iter().find(|p| p.order == order).expect("player").due);
    assert_eq!(due(1), d("101750.00") + d("10175.00"));
    assert_eq!(due(2), d("61050.00") + d("10175.00"));
    assert_eq!(due(4), d("20350.00"));
    tied(&view);

    // Paid against identity (art. 66): the wrong document is refused; 2nd and 4th at the cashier.
    let message = refused(&mut client, CASHIER, pay_prize(T, 2, "99999999"), Code::PermissionDenied).await;
    assert!(message.contains("art. 66"), "{message}");
    let view = ok(&client, CASHIER, pay_prize(T, 2, &document_of(2))).await;
    assert_eq!(view.players.iter().find(|p| p.order == 2).expect("2").payment, "pagado");
    ok(&client, CASHIER, pay_prize(T, 4, &document_of(4))).await;
    // The first prize is over the threshold: asked for at the cashier, PENDIENTE DE PAGO, then
    // confirmed by another person of the Venta-Pagos office.
    let view = ok(&client, CASHIER, pay_prize(T, 1, &document_of(1))).await;
    assert_eq!(view.players.iter().find(|p| p.order == 1).expect("1").payment, "PENDIENTE DE PAGO");
    assert_eq!(value(&view.books.as_ref().expect("books").owed), due(1), "owed until the office confirms");
    refused(&mut client, CASHIER, confirm_prize(T, 1, &document_of(1)), Code::PermissionDenied).await;
    refused(&mut client, OFFICE, confirm_prize(T, 1, &document_of(2)), Code::PermissionDenied).await;
    let view = ok(&client, OFFICE, confirm_prize(T, 1, &document_of(1))).await;
    assert_eq!(view.players.iter().find(|p| p.order == 1).expect("1").payment, "pagado, confirmado por Venta-Pagos");
    refused(&mut client, OFFICE, confirm_prize(T, 1, &document_of(1)), Code::AlreadyExists).await;

    // The books tie to zero: collected = prizes + house + refunds, every prize paid.
    let books = view.books.clone().expect("books");
    tied(&view);
    assert_eq!(value(&books.sold), d("12") * d("20000.00") + d("3") * d("10000.00"));
    assert_eq!(value(&books.refunds), d("20000.00"));
    assert_eq!(value(&books.paid), value(&books.prizes));
    assert_eq!(value(&books.owed), Decimal::ZERO);
    assert_eq!(value(&books.sold), value(&books.prizes) + value(&books.house) + value(&books.refunds));

    // The same after a restart: everything came from the journal.
    let data = server.stop().await.expect("the data directory");
    let server = TestServer::start_on(data.path().join("data")).await;
    let client = server.client().await;
    let again = get(&client, CASHIER, T).await;
    assert_eq!(again, view, "the tournament is the journal's");
    drop(data);
}

/// The structure is checked at the door: a share to prizes under 70% is refused when proposed
/// (art. 62; Anexo IV 6), and an unknown tournament is a clear NOT_FOUND.
#[tokio::test]
async fn a_structure_under_seventy_percent_to_prizes_is_refused_at_the_door() {
    let server = TestServer::start().await;
    let client = server.client().await;
    let text = multimesa().replace("to_prizes = \"0.80\"", "to_prizes = \"0.69\"");
    let what = pb::propose_change::What::Tournament(pb::TournamentStructure { text });
    let status =
        common::changes::change(&client, common::changes::CARLA, common::changes::propose(what)).await.expect_err("refused");
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(status.message().contains("0.69") || status.message().contains("0,69"), "{}", status.message());
    let status =
        submit(&client, CASHIER, purchase("no-existe", "IN", 1, "A", "1234567", "1.00")).await.expect_err("no tournament");
    assert_eq!(status.code(), Code::NotFound);
}

/// The seat draw committed before a restart is the one drawn after it: the controller keeps no
/// nonce in memory, it unseals the journaled commitment with the journal key (art. 11; an
/// operator restarting at 3 a.m. changes no draw).
#[tokio::test]
async fn a_restart_between_the_commitment_and_the_draw_draws_the_committed_nonce() {
    let server = TestServer::start().await;
    let client = server.client().await;
    set_up(&client, &structure("sit-and-go-10")).await;
    const S: &str = "sit-and-go-10";
    for order in 1..=10 {
        ok(&client, CASHIER, purchase(S, "IN", order, &format!("Jugador {order}"), &document_of(order), "5000.00")).await;
    }
    let committed = get(&client, DIRECTOR, S).await.next_commitment;
    let data = server.stop().await.expect("the data directory");
    let server = TestServer::start_on(data.path().join("data")).await;
    let client = server.client().await;
    assert_eq!(get(&client, DIRECTOR, S).await.next_commitment, committed, "the commitment is the journal's");
    let view = ok(&client, DIRECTOR, draw_seats(S, "inicio", &[("M1", 10)])).await;
    let draw = &view.seat_draws[0];
    assert_eq!(draw.commitment, committed);
    assert_eq!(draw.seating.len(), 10);
    // Checked offline against this tournament's id.
    let head = SeatDrawHead { tournament: S.into(), draw: 1, reason: "inicio".parse().expect("a reason") };
    let nonce: [u8; 32] = hex::decode(&draw.nonce).expect("hex").try_into().expect("32 bytes");
    assert_eq!(hex::encode(seats::commitment(&head, &nonce)), committed);
    // Ten players at one table of ten: every seat taken once.
    let mut seats_taken: Vec<u32> = draw.seating.iter().map(|s| s.seat).collect();
    seats_taken.sort_unstable();
    assert_eq!(seats_taken, (1..=10).collect::<Vec<_>>());
    // A mesa final over two tables is refused (art. 88), nothing changed.
    let status = submit(&client, DIRECTOR, draw_seats(S, "mesa final", &[("M1", 5), ("M2", 5)])).await.expect_err("two tables");
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(status.message().contains("art. 88"), "{}", status.message());
    drop(data);
}
