//! The articles of Lotería Nacional Res. 123/2013 ("Normas generales para torneos de poker en la
//! variante Texas Hold'em") that the tournament's books and records answer to, one test each,
//! every one through the real server: each test quotes its article and asserts what it requires
//! (docs/rules.md, "Res. 123/2013"; docs/readings.md, "The tournament's prize pool").

mod common;

use common::TestServer;
use common::tournament::*;
use pozo_proto::v1 as pb;
use rust_decimal::Decimal;
use tonic::Code;

const T: &str = "multimesa-semanal";

fn d(text: &str) -> Decimal {
    text.parse().expect("a decimal")
}

fn ds(texts: &[&str]) -> Vec<Decimal> {
    texts.iter().map(|text| d(text)).collect()
}

/// The books as the server states them tie to zero (art. 62, 63).
fn tied(view: &pb::TournamentView) {
    let books = view.books.as_ref().expect("books");
    assert!(books.tied, "{}", books.untied);
    assert_eq!(value(&books.sold) - value(&books.refunds), value(&books.prizes) + value(&books.house));
}

/// A refused operation on `tournament`: its code, the journal and the tournament unchanged; the message.
async fn refused(
    client: &mut common::Client,
    tournament: &str,
    key: &str,
    command: pb::tournament_command::Command,
    code: Code,
) -> String {
    let before = (client.journal().await.entries, get(client, DIRECTOR, tournament).await);
    let status = submit(client, key, command).await.expect_err("refused");
    assert_eq!(status.code(), code, "{status:?}");
    let after = (client.journal().await.entries, get(client, DIRECTOR, tournament).await);
    assert_eq!(before, after, "a refusal changes nothing");
    status.message().to_owned()
}

/// A structure refused at the door: INVALID_ARGUMENT, the message.
async fn refused_structure(client: &common::Client, text: String) -> String {
    let what = pb::propose_change::What::Tournament(pb::TournamentStructure { text });
    let status =
        common::changes::change(client, common::changes::CARLA, common::changes::propose(what)).await.expect_err("refused");
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    status.message().to_owned()
}

/// Eliminates `orders` one by one (one a hand), in the order given.
async fn eliminate_each(client: &common::Client, tournament: &str, orders: impl IntoIterator<Item = u32>) -> pb::TournamentView {
    let mut view = None;
    for order in orders {
        view = Some(ok(client, DIRECTOR, eliminate(tournament, &[order], "T1", u64::from(order), false)).await);
    }
    view.expect("at least one")
}

/// `entrants` buy-ins of multimesa-semanal, registration and rebuys closed: the pool fixed.
async fn in_play(client: &common::Client, text: &str, tournament: &str, entrants: u32, price: &str) -> pb::TournamentView {
    set_up(client, text).await;
    register(client, tournament, 1..=entrants, price).await;
    ok(client, DIRECTOR, close_registration(tournament)).await;
    ok(client, DIRECTOR, close_rebuys(tournament)).await
}

/// Res. 123/2013 art. 62: «El dinero destinado en premios será indicado en las características
/// del torneo, no siendo inferior al 70% del total recaudado en concepto de compra de fichas
/// iniciales (Buyin), recompras (Rebuy) y compras adicionales (Add-on), pudiéndose aplicar
/// distintos porcentajes de premios a las recompras (Rebuy) y a las compras Adicionales
/// (add-on).» Anexo IV 6: «se determinará el beneficio del Casino el cual no podrá exceder el 30%
/// del total de cada ítem».
///
/// Each item's share under 70 % is refused at the door, even when the total would be over it
/// (item by item); at exactly 70 % each item gives at least 70 % of what it collected, rounded
/// the players' way, and the house keeps at most 30 % (art. 63).
#[tokio::test]
async fn art_62_and_anexo_iv_6_each_item_gives_at_least_seventy_percent_to_prizes() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let text = multimesa();
    for (from, item) in
        [("to_prizes = \"0.80\"", "buy_in"), ("to_prizes = \"0.90\"", "rebuy"), ("to_prizes = \"0.95\"", "add_on")]
    {
        assert!(text.contains(from), "{from}");
        let message = refused_structure(&client, text.replace(from, "to_prizes = \"0.69\"")).await;
        assert!(message.contains(&format!("{item}.to_prizes")) || message.contains("to_prizes"), "{message}");
        assert!(message.contains("0.69") && message.contains("art. 62") && message.contains("Anexo IV 6"), "{message}");
    }
    // Anexo IV 6: item by item. A buy-in at 95 % does not make up for a rebuy at 69 %.
    let message = refused_structure(
        &client,
        text.replace("to_prizes = \"0.80\"", "to_prizes = \"0.95\"").replace("to_prizes = \"0.90\"", "to_prizes = \"0.69\""),
    )
    .await;
    assert!(message.contains("0.69") && message.contains("Anexo IV 6"), "{message}");

    // Exactly 70 % for each item, and a buy-in whose 70 % is not a whole centavo.
    let text = text
        .replace("to_prizes = \"0.80\"", "to_prizes = \"0.70\"")
        .replace("to_prizes = \"0.90\"", "to_prizes = \"0.70\"")
        .replace("to_prizes = \"0.95\"", "to_prizes = \"0.70\"")
        .replace("price = \"20000.00\"", "price = \"20000.01\"");
    set_up(&client, &text).await;
    register(&client, T, 1..=3, "20000.01").await;
    ok(&client, CASHIER, purchase(T, "RB", 4, "Jugador 1", &document_of(1), "10000.00")).await;
    let view = ok(&client, CASHIER, purchase(T, "AD", 5, "Jugador 2", &document_of(2), "10000.00")).await;
    tied(&view);
    let books = view.books.clone().expect("books");
    // 3 × 20.000,01 × 0,70 = 42.000,021; + 7.000 + 7.000 = 56.000,021, rounded up to the centavo.
    assert_eq!(value(&books.sold), d("80000.03"));
    assert_eq!(value(&books.prizes), d("56000.03"));
    assert_eq!(value(&books.house), d("24000.00"));
    let each_item_at_70 = d("0.70") * d("60000.03") + d("0.70") * d("10000.00") + d("0.70") * d("10000.00");
    assert!(value(&books.prizes) >= each_item_at_70, "never under 70 % of any item");
    assert!(value(&books.house) <= d("0.30") * value(&books.sold), "the house at most 30 %");
    // A purchase refused changes nothing: the 70 % rule is checked on the structure, not bargained per sale.
    refused(&mut client, T, CASHIER, purchase(T, "IN", 6, "Jugador 6", &document_of(6), "20000.00"), Code::InvalidArgument).await;
}

/// Res. 123/2013 art. 64: «El pozo total en premios será determinado luego de finalizar plazo de
/// recompras (rebuy) y compras adicionales (add-on) estipulado para el torneo.»
///
/// The pool moves with every purchase while the period is open, is fixed when it closes, and
/// then a rebuy or an add-on is refused and the amounts stay as they were; no elimination is
/// recorded before the pool is fixed.
#[tokio::test]
async fn art_64_the_pool_is_fixed_when_the_rebuy_period_ends() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    set_up(&client, &multimesa()).await;
    let view = register(&client, T, 1..=10, "20000.00").await;
    assert_eq!((value(&view.prizes), view.pool_fixed), (d("160000.00"), false));
    let view = ok(&client, CASHIER, purchase(T, "RB", 11, "Jugador 1", &document_of(1), "10000.00")).await;
    assert_eq!(value(&view.prizes), d("169000.00"), "live: 10 × 16.000 + 9.000");
    ok(&client, DIRECTOR, close_registration(T)).await;
    // Registration closed, the rebuy period still open: the pool still moves.
    let message = refused(&mut client, T, DIRECTOR, eliminate(T, &[10], "T1", 1, false), Code::FailedPrecondition).await;
    assert!(message.contains("art. 64"), "{message}");
    let view = ok(&client, CASHIER, purchase(T, "AD", 12, "Jugador 2", &document_of(2), "10000.00")).await;
    assert_eq!(value(&view.prizes), d("178500.00"), "+ 9.500 of an add-on at 95 %");
    assert!(!view.pool_fixed);

    let fixed = ok(&client, DIRECTOR, close_rebuys(T)).await;
    assert!(fixed.pool_fixed);
    assert_eq!(value(&fixed.prizes), d("178500.00"));
    assert_eq!(values(&fixed.places), ds(&["89250.00", "53550.00", "35700.00"]));
    tied(&fixed);
    let message = refused(
        &mut client,
        T,
        CASHIER,
        purchase(T, "RB", 13, "Jugador 3", &document_of(3), "10000.00"),
        Code::FailedPrecondition,
    )
    .await;
    assert!(message.contains("art. 64"), "{message}");
    refused(&mut client, T, CASHIER, purchase(T, "AD", 13, "Jugador 3", &document_of(3), "10000.00"), Code::FailedPrecondition)
        .await;
    let after = ok(&client, DIRECTOR, eliminate(T, &[10], "T1", 1, false)).await;
    assert_eq!(
        (value(&after.collected), value(&after.prizes), value(&after.house), values(&after.places)),
        (value(&fixed.collected), value(&fixed.prizes), value(&fixed.house), values(&fixed.places)),
        "the pool fixed stays fixed"
    );
}

/// Res. 123/2013 art. 65: «la cantidad de jugadores premiados y el porcentaje del pozo que le
/// corresponde a cada posición de clasificación se determinará en función de la cantidad de
/// jugadores inscriptos luego de agotar los plazos de inscripción.»
///
/// The row of the prize table is the one for the entrants at the close of registration (not for
/// those who ever bought, nor for the money): 10 bought and one refunded is 9, two places; 10 is
/// three; a rebuy after the close adds money but not places; one entrant has no row.
#[tokio::test]
async fn art_65_the_places_paid_follow_the_entrants_at_the_close() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (a, b, c) = ("semanal-a", "semanal-b", "semanal-c");
    set_up(&client, &renamed(&multimesa(), a)).await;
    set_up(&client, &renamed(&multimesa(), b)).await;
    set_up(&client, &renamed(&multimesa(), c)).await;
    register(&client, a, 1..=10, "20000.00").await;
    ok(&client, CASHIER, refund(a, 10)).await;
    register(&client, b, 1..=10, "20000.00").await;
    register(&client, c, 1..=1, "20000.00").await;

    let view = ok(&client, DIRECTOR, close_registration(a)).await;
    assert_eq!(view.entrants, 9);
    ok(&client, CASHIER, purchase(a, "RB", 11, "Jugador 1", &document_of(1), "10000.00")).await;
    let view = ok(&client, DIRECTOR, close_rebuys(a)).await;
    // 9 × 16.000 + 9.000 = 153.000 in the row for 2 to 9: 65 %, 35 %.
    assert_eq!(values(&view.places), ds(&["99450.00", "53550.00"]));

    ok(&client, DIRECTOR, close_registration(b)).await;
    let view = ok(&client, DIRECTOR, close_rebuys(b)).await;
    assert_eq!(view.entrants, 10);
    // 10 × 16.000 = 160.000 in the row for 10 to 20: 50 %, 30 %, 20 %.
    assert_eq!(values(&view.places), ds(&["80000.00", "48000.00", "32000.00"]));

    let message = refused(&mut client, c, DIRECTOR, close_registration(c), Code::FailedPrecondition).await;
    assert!(message.contains("art. 65"), "{message}");
}

/// Res. 123/2013 art. 26: «La distribución de premios para los torneos Sit&Go de una única mesa
/// dependerá de la cantidad de jugadores. Hasta 9 jugadores recibirán premios los dos (2) primeros
/// clasificados. En torneos de 10 jugadores recibirán premios los tres (3) primeros
/// clasificados.»
///
/// Played to the end: 9 players pay 2, 10 pay 3. A Sit & Go structure that pays otherwise, or
/// seats more than one table of 10, is refused at the door.
#[tokio::test]
async fn art_26_a_sit_and_go_of_nine_pays_two_and_of_ten_pays_three() {
    let server = TestServer::start().await;
    let client = server.client().await;
    let text = structure("sit-and-go-10");
    let message = refused_structure(&client, text.replace("max_entrants = 10", "max_entrants = 11")).await;
    assert!(message.contains("art. 26"), "{message}");
    let three_at_nine = text.replacen("places = [\"65\", \"35\"]", "places = [\"50\", \"30\", \"20\"]", 1);
    assert_ne!(three_at_nine, text);
    refused_structure(&client, three_at_nine).await;

    for (players, paid, places) in
        [(9u32, 2usize, ds(&["26325.00", "14175.00"])), (10, 3, ds(&["22500.00", "13500.00", "9000.00"]))]
    {
        let id = format!("sng-{players}");
        set_up(&client, &renamed(&text, &id)).await;
        register(&client, &id, 1..=players, "5000.00").await;
        ok(&client, DIRECTOR, close_registration(&id)).await;
        let view = ok(&client, DIRECTOR, close_rebuys(&id)).await;
        assert_eq!(values(&view.places), places, "{players} players");
        let view = eliminate_each(&client, &id, (2..=players).rev()).await;
        assert_eq!(view.phase, "FINALIZADO");
        let collecting: Vec<u32> = view.players.iter().filter(|p| value(&p.due) > Decimal::ZERO).map(|p| p.position).collect();
        assert_eq!(collecting.len(), paid, "{players} players: the first {paid} collect");
        assert!(collecting.iter().all(|position| *position <= paid as u32));
        tied(&view);
    }
}

/// Res. 123/2013 art. 72: «En caso que se estuviera jugando manos simultáneas, los jugadores
/// eliminados en mesas diferentes en la misma mano dividirán en partes iguales el premio de las
/// posiciones en juego.»
///
/// Three out in the same hand with five left share positions 3 to 5 (35.200 + 0 + 0) in equal
/// parts; the centavo the division leaves goes to the earliest order number (docs/readings.md).
#[tokio::test]
async fn art_72_eliminated_in_the_same_hand_at_different_tables_share_equally() {
    let server = TestServer::start().await;
    let client = server.client().await;
    let view = in_play(&client, &multimesa(), T, 11, "20000.00").await;
    assert_eq!(values(&view.places), ds(&["88000.00", "52800.00", "35200.00"]));
    eliminate_each(&client, T, (6..=11).rev()).await;
    let view = ok(&client, DIRECTOR, eliminate(T, &[5, 2, 4], "T1 y T2", 40, true)).await;
    let line = view.eliminations.last().expect("recorded");
    assert_eq!((line.players.as_slice(), line.first, line.last), ([2, 4, 5].as_slice(), 3, 5));
    assert_eq!(line.tie, "simultánea (art. 72)");
    // 35.200,00 / 3 = 11.733,33 and one centavo left, to order 2.
    assert_eq!(values(&line.amounts), ds(&["11733.34", "11733.33", "11733.33"]));
    for (order, amount) in [(2, "11733.34"), (4, "11733.33"), (5, "11733.33")] {
        assert_eq!((player(&view, order).position, value(&player(&view, order).prize)), (3, d(amount)));
    }
    tied(&view);
}

/// Res. 123/2013 art. 71: «Si resultara imposible determinar el orden de eliminación en mesas
/// diferentes, dividirán en partes iguales el premio de las posiciones en juego.»
///
/// Three out with four left, their order unknown, share positions 2 to 4 (52.800 + 35.200 + 0)
/// equally, the odd centavo to the earliest order number; the one left wins.
#[tokio::test]
async fn art_71_an_order_of_elimination_that_cannot_be_told_shares_equally() {
    let server = TestServer::start().await;
    let client = server.client().await;
    in_play(&client, &multimesa(), T, 11, "20000.00").await;
    eliminate_each(&client, T, (5..=11).rev()).await;
    let view = ok(&client, DIRECTOR, eliminate(T, &[4, 3, 2], "T1 y T2", 50, false)).await;
    let line = view.eliminations.last().expect("recorded");
    assert_eq!((line.players.as_slice(), line.first, line.last), ([2, 3, 4].as_slice(), 2, 4));
    assert_eq!(line.tie, "orden indeterminable (art. 71)");
    // 88.000,00 / 3 = 29.333,33 and one centavo left, to order 2.
    assert_eq!(values(&line.amounts), ds(&["29333.34", "29333.33", "29333.33"]));
    assert_eq!(view.phase, "FINALIZADO");
    assert_eq!((player(&view, 1).standing.as_str(), value(&player(&view, 1).due)), ("ganador", d("88000.00")));
    tied(&view);
}

/// Res. 123/2013 Anexo II (penalidades): «Descalificación: Ante la descalificación de un jugador,
/// las fichas restantes serán retiradas del torneo y el jugador inmediatamente deberá retirarse
/// del área de torneo. Si el jugador descalificado estuviese en zona de premios, el premio que le
/// corresponda será repartido entre los participantes activos al momento de la descalificación.»
///
/// One out in the money and not yet paid, then disqualified: his prize shared among the two still
/// active, the odd centavo to the earliest; then an active player in the money disqualified: his
/// position's prize and what he had gained shared to the last one, who wins it all. Neither
/// disqualified player collects.
#[tokio::test]
async fn anexo_ii_a_disqualified_player_in_the_money_loses_his_prize_to_the_active() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let text = multimesa().replace("price = \"20000.00\"", "price = \"20000.01\"");
    let view = in_play(&client, &text, T, 11, "20000.01").await;
    // 11 × 20.000,01 × 0,80 = 176.000,088, up to 176.000,09; 50/30/20 rounded down, the rest to 1st.
    assert_eq!(value(&view.prizes), d("176000.09"));
    assert_eq!(values(&view.places), ds(&["88000.06", "52800.02", "35200.01"]));
    eliminate_each(&client, T, (3..=11).rev()).await;
    let view = ok(&client, DIRECTOR, disqualify(T, 3, "Cedió fichas a otro jugador")).await;
    let line = view.disqualifications.last().expect("recorded");
    assert_eq!((line.player, line.position, value(&line.forfeited)), (3, 3, d("35200.01")));
    assert_eq!(line.shared_to, [1, 2]);
    assert_eq!(values(&line.shared), ds(&["17600.01", "17600.00"]));
    assert_eq!(player(&view, 3).standing, "descalificado");
    assert_eq!(value(&player(&view, 3).due), Decimal::ZERO);
    tied(&view);
    let message = refused(&mut client, T, CASHIER, pay_prize(T, 3, &document_of(3)), Code::FailedPrecondition).await;
    assert!(message.contains("art. 66"), "{message}");

    // An active player disqualified in the money: position 2 and what was shared to him, to player 1.
    let view = ok(&client, DIRECTOR, disqualify(T, 2, "Colusión comprobada por el director")).await;
    let line = view.disqualifications.last().expect("recorded");
    assert_eq!((line.player, line.position, value(&line.forfeited)), (2, 2, d("52800.02") + d("17600.00")));
    assert_eq!(line.shared_to, [1]);
    assert_eq!(view.phase, "FINALIZADO");
    assert_eq!(value(&player(&view, 1).due), value(&view.prizes), "the one left active collects it all");
    tied(&view);
    refused(&mut client, T, DIRECTOR, disqualify(T, 2, "otra vez"), Code::FailedPrecondition).await;
}

/// Res. 123/2013 Anexo IV 1.3: «Cada compra de fichas se registrará de manera individual
/// registrando el Nombre completo, N° de orden de inscripción y código de transacción […] Los
/// códigos de transacción para cada tipo de compra de fichas serán: IN = Inscripción / RB = Re Buy
/// / AD = Add On.» Anexo IV 1.2: the vale «en donde constará el número de orden, nombre completo y
/// DNI y monto».
///
/// Each purchase is its own journal entry with its name, order number and code; an order number
/// is used once in the tournament; a rebuy or an add-on beyond what each player may buy, or an
/// unknown code, is refused.
#[tokio::test]
async fn anexo_iv_1_3_each_purchase_is_booked_one_by_one_with_its_code_and_order_number() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    set_up(&client, &multimesa()).await;
    let bought = [
        (1, "IN", 1, "20000.00"),
        (2, "IN", 2, "20000.00"),
        (3, "IN", 3, "20000.00"),
        (4, "RB", 1, "10000.00"),
        (5, "AD", 2, "10000.00"),
    ];
    for (order, item, who, price) in bought {
        let before = client.journal().await.entries;
        let reply = submit(&client, CASHIER, purchase(T, item, order, &format!("Jugador {who}"), &document_of(who), price))
            .await
            .expect("booked");
        assert_eq!(client.journal().await.entries, before + 1, "one purchase, one entry");
        let receipt = reply.receipt.expect("the vale de compra de fichas (Anexo IV 1.2)");
        assert_eq!(
            (
                receipt.order,
                receipt.item.as_str(),
                receipt.player_name.as_str(),
                receipt.document.clone(),
                value(&receipt.amount)
            ),
            (order, item, format!("Jugador {who}").as_str(), format!("DNI {}", document_of(who)), d(price))
        );
    }
    let view = get(&client, DIRECTOR, T).await;
    let lines: Vec<(u32, &str, &str)> =
        view.purchases.iter().map(|p| (p.order, p.item.as_str(), p.player_name.as_str())).collect();
    assert_eq!(
        lines,
        [(1, "IN", "Jugador 1"), (2, "IN", "Jugador 2"), (3, "IN", "Jugador 3"), (4, "RB", "Jugador 1"), (5, "AD", "Jugador 2")]
    );
    assert!(view.purchases.iter().all(|p| p.by.as_ref().is_some_and(|by| by.key_id == CASHIER && by.journal_sequence > 0)));

    // An order number used once: another player, another item, still refused.
    let message =
        refused(&mut client, T, CASHIER, purchase(T, "IN", 3, "Jugador 9", &document_of(9), "20000.00"), Code::AlreadyExists)
            .await;
    assert!(message.contains("order") && message.contains("Anexo IV 1.2, 1.3"), "{message}");
    refused(&mut client, T, CASHIER, purchase(T, "RB", 5, "Jugador 1", &document_of(1), "10000.00"), Code::AlreadyExists).await;
    refused(&mut client, T, CASHIER, purchase(T, "IN", 0, "Jugador 9", &document_of(9), "20000.00"), Code::InvalidArgument).await;
    refused(&mut client, T, CASHIER, purchase(T, "XX", 6, "Jugador 9", &document_of(9), "20000.00"), Code::InvalidArgument).await;
    // Two rebuys and one add-on each (the example's per_player).
    ok(&client, CASHIER, purchase(T, "RB", 6, "Jugador 1", &document_of(1), "10000.00")).await;
    refused(&mut client, T, CASHIER, purchase(T, "RB", 7, "Jugador 1", &document_of(1), "10000.00"), Code::FailedPrecondition)
        .await;
    refused(&mut client, T, CASHIER, purchase(T, "AD", 7, "Jugador 2", &document_of(2), "10000.00"), Code::FailedPrecondition)
        .await;
    tied(&get(&client, DIRECTOR, T).await);
}

/// Res. 123/2013 Anexo IV 1.4: «Se considerará como condición para la devolución de compra de
/// fichas, que el jugador dé aviso hasta la finalización del período de inscripción. Una vez
/// finalizado este plazo, el jugador pierde el derecho a reclamarlas».
///
/// A refund while registration is open takes the price out of the books; once, and a buy-in
/// only after the player's rebuys; once registration closes, every refund is refused.
#[tokio::test]
async fn anexo_iv_1_4_a_purchase_is_refunded_only_before_registration_closes() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    set_up(&client, &multimesa()).await;
    register(&client, T, 1..=4, "20000.00").await;
    ok(&client, CASHIER, purchase(T, "RB", 5, "Jugador 1", &document_of(1), "10000.00")).await;
    let view = ok(&client, CASHIER, refund(T, 4)).await;
    assert_eq!(view.entrants, 3);
    assert_eq!(value(&view.books.as_ref().expect("books").refunds), d("20000.00"));
    assert!(view.purchases.iter().find(|p| p.order == 4).expect("kept").refunded.is_some(), "kept, marked refunded");
    tied(&view);
    refused(&mut client, T, CASHIER, refund(T, 4), Code::FailedPrecondition).await;
    // The buy-in of a player who holds a rebuy: the rebuy first.
    refused(&mut client, T, CASHIER, refund(T, 1), Code::FailedPrecondition).await;
    ok(&client, CASHIER, refund(T, 5)).await;
    let view = ok(&client, CASHIER, refund(T, 1)).await;
    assert_eq!((view.entrants, value(&view.books.as_ref().expect("books").refunds)), (2, d("50000.00")));
    tied(&view);

    ok(&client, DIRECTOR, close_registration(T)).await;
    let message = refused(&mut client, T, CASHIER, refund(T, 2), Code::FailedPrecondition).await;
    assert!(message.contains("Anexo IV 1.4"), "{message}");
}

/// Res. 123/2013 art. 11: «La asignación de la mesa y ubicación será realizada en forma aleatoria»;
/// art. 15: «Al determinarse la posición que le corresponde por sorteo»; art. 88: «Las posiciones
/// serán asignadas en forma aleatoria, al inicio de cada jornada, cuando el torneo se reduzca a
/// tres mesas (dependiendo de la cantidad de inscriptos), a dos mesas y a la mesa final.» Anexo
/// IV 8.1: «Cada vez que se deban asignar las posiciones de los jugadores en la mesa […] se
/// utilizará un mecanismo aleatorio».
///
/// Every draw was committed to in the journal before it was asked for, its nonce opens that
/// commitment, and the seating it claims is the one the nonce gives, checked offline; another
/// seating does not check. `tres mesas`, `dos mesas` and `mesa final` seat 3, 2 and 1 tables;
/// `inicio` is the first draw only.
#[tokio::test]
async fn art_11_15_88_and_anexo_iv_8_1_seats_are_drawn_at_random_committed_before() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    set_up(&client, &multimesa()).await;
    register(&client, T, 1..=20, "20000.00").await;
    ok(&client, DIRECTOR, close_registration(T)).await;
    // Tables of ten seats: twenty players fit in two.
    let ten = |n: u32| -> Vec<(String, u32)> { (1..=n).map(|t| (format!("T{t}"), 10)).collect() };
    fn tables(list: &[(String, u32)]) -> Vec<(&str, u32)> {
        list.iter().map(|(t, s)| (t.as_str(), *s)).collect()
    }

    let mut draws = 0;
    for (reason, wrong, right) in [("inicio", None, 3u32), ("tres mesas", Some(2u32), 3), ("dos mesas", Some(3), 2)] {
        if let Some(wrong) = wrong {
            let message =
                refused(&mut client, T, DIRECTOR, draw_seats(T, reason, &tables(&ten(wrong))), Code::InvalidArgument).await;
            assert!(message.contains("art. 88"), "{message}");
        }
        let committed = get(&client, DIRECTOR, T).await.next_commitment;
        let view = ok(&client, DIRECTOR, draw_seats(T, reason, &tables(&ten(right)))).await;
        draws += 1;
        let line = view.seat_draws.last().expect("drawn");
        assert_eq!((line.draw, line.reason.as_str(), line.commitment.as_str()), (draws, reason, committed.as_str()));
        assert!(line.committed_at < line.by.as_ref().expect("by").journal_sequence, "committed before");
        assert_eq!(line.seating.len(), 20);
        assert_eq!(draw_checks(T, line), Ok(()));
        // Two players' places exchanged: another seating, which the nonce does not give.
        let mut other = line.clone();
        let first = other.seating[0].order;
        other.seating[0].order = other.seating[1].order;
        other.seating[1].order = first;
        assert!(draw_checks(T, &other).is_err(), "another seating does not check");
    }
    refused(&mut client, T, DIRECTOR, draw_seats(T, "inicio", &tables(&ten(2))), Code::InvalidArgument).await;
    ok(&client, DIRECTOR, close_rebuys(T)).await;
    eliminate_each(&client, T, (10..=20).rev()).await;
    let view = ok(&client, DIRECTOR, draw_seats(T, "jornada 2", &tables(&ten(1)))).await;
    assert_eq!(draw_checks(T, view.seat_draws.last().expect("drawn")), Ok(()));
    let message = refused(&mut client, T, DIRECTOR, draw_seats(T, "mesa final", &tables(&ten(2))), Code::InvalidArgument).await;
    assert!(message.contains("art. 88"), "{message}");
    let view = ok(&client, DIRECTOR, draw_seats(T, "mesa final", &tables(&ten(1)))).await;
    let line = view.seat_draws.last().expect("drawn");
    assert_eq!((line.reason.as_str(), line.players.as_slice()), ("mesa final", [1, 2, 3, 4, 5, 6, 7, 8, 9].as_slice()));
    assert_eq!(draw_checks(T, line), Ok(()));
    assert_eq!(view.seat_draws.len(), 5);
}

/// Res. 123/2013 Anexo IV 7.3.2 (Cambio de Jornada): «cada jugador activo continuará participando
/// con su mismo stack, para ello deberá contabilizar y embolsar sus fichas en una bolsa […] la
/// cual será controlada y precintada en presencia del jugador a quien se le entregará un
/// comprobante con el detalle de fichas con la que llega a la final.»
///
/// Each active player's chips sealed with the count, the receipt, the jornada and who did it (the
/// director's key, her name, the journal entry); no seal of an empty stack, of a player who is out,
/// of jornada 0, nor by the cashier.
#[tokio::test]
async fn anexo_iv_7_3_2_chips_are_sealed_with_who_and_the_receipt() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    in_play(&client, &multimesa(), T, 10, "20000.00").await;
    eliminate_each(&client, T, (5..=10).rev()).await;
    for order in 1..=4 {
        ok(&client, DIRECTOR, seal_chips(T, order, 20_000 * u64::from(order), &format!("CF-{order:04}"), 1)).await;
    }
    let view = get(&client, DIRECTOR, T).await;
    let seals: Vec<(u32, u64, &str, u32)> =
        view.seals.iter().map(|s| (s.player, s.chips, s.receipt.as_str(), s.jornada)).collect();
    assert_eq!(
        seals,
        [(1, 20_000, "CF-0001", 1), (2, 40_000, "CF-0002", 1), (3, 60_000, "CF-0003", 1), (4, 80_000, "CF-0004", 1)]
    );
    for seal in &view.seals {
        let by = seal.by.as_ref().expect("who sealed");
        assert_eq!((by.key_id.as_str(), by.name.as_str()), (DIRECTOR, "Carla Medina"));
        assert!(by.journal_sequence > 0);
    }
    refused(&mut client, T, DIRECTOR, seal_chips(T, 1, 0, "CF-0009", 1), Code::InvalidArgument).await;
    refused(&mut client, T, DIRECTOR, seal_chips(T, 1, 10, "CF-0009", 0), Code::InvalidArgument).await;
    refused(&mut client, T, DIRECTOR, seal_chips(T, 10, 10, "CF-0009", 1), Code::FailedPrecondition).await;
    refused(&mut client, T, CASHIER, seal_chips(T, 1, 10, "CF-0009", 1), Code::PermissionDenied).await;
}

/// Res. 123/2013 art. 66: «Los premios son intransferibles, el jugador premiado deberá presentar
/// en la caja el comprobante de clasificación e identificación válida (DNI, pasaporte, etc.),
/// para su cobro.»
///
/// A prize is paid once, to a finished position, against the document of the player's buy-in;
/// from the structure's threshold it goes through the Venta-Pagos office: PENDIENTE DE PAGO until
/// another person of the office confirms it against the same document.
#[tokio::test]
async fn art_66_prizes_are_paid_against_identity_and_large_ones_through_venta_pagos() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let text = multimesa().replace("venta_pagos_from = \"500000.00\"", "venta_pagos_from = \"50000.00\"");
    assert_ne!(text, multimesa());
    let view = in_play(&client, &text, T, 10, "20000.00").await;
    assert_eq!(values(&view.places), ds(&["80000.00", "48000.00", "32000.00"]));
    eliminate_each(&client, T, (3..=10).rev()).await;
    // Another document, not his: refused.
    let message = refused(&mut client, T, CASHIER, pay_prize(T, 3, &document_of(4)), Code::PermissionDenied).await;
    assert!(message.contains("art. 66"), "{message}");
    refused(&mut client, T, CASHIER, pay_prize(T, 2, &document_of(2)), Code::FailedPrecondition).await;
    refused(&mut client, T, CASHIER, pay_prize(T, 10, &document_of(10)), Code::FailedPrecondition).await;
    let view = ok(&client, CASHIER, pay_prize(T, 3, &document_of(3))).await;
    assert_eq!(player(&view, 3).payment, "pagado");
    refused(&mut client, T, CASHIER, pay_prize(T, 3, &document_of(3)), Code::AlreadyExists).await;

    eliminate_each(&client, T, [2]).await;
    refused(&mut client, T, OFFICE, confirm_prize(T, 2, &document_of(2)), Code::FailedPrecondition).await;
    ok(&client, CASHIER, pay_prize(T, 2, &document_of(2))).await;
    // 80.000 ≥ 50.000: asked for at the cashier, owed until the office confirms.
    let view = ok(&client, CASHIER, pay_prize(T, 1, &document_of(1))).await;
    assert_eq!(player(&view, 1).payment, "PENDIENTE DE PAGO");
    assert_eq!(value(&view.books.as_ref().expect("books").owed), d("80000.00"));
    refused(&mut client, T, CASHIER, confirm_prize(T, 1, &document_of(1)), Code::PermissionDenied).await;
    refused(&mut client, T, DIRECTOR, confirm_prize(T, 1, &document_of(1)), Code::PermissionDenied).await;
    refused(&mut client, T, OFFICE, confirm_prize(T, 1, &document_of(2)), Code::PermissionDenied).await;
    let view = ok(&client, OFFICE, confirm_prize(T, 1, &document_of(1))).await;
    assert_eq!(player(&view, 1).payment, "pagado, confirmado por Venta-Pagos");
    assert_eq!(player(&view, 1).paid.as_ref().expect("paid").key_id, OFFICE);
    let books = view.books.clone().expect("books");
    assert_eq!((value(&books.paid), value(&books.owed)), (value(&books.prizes), Decimal::ZERO));
    tied(&view);
}

/// Res. 123/2013 Anexo I, 32: «Cada jugador podrá inscribirse las veces que desee hasta el tope
/// determinado para cada evento, en el caso que existiera un límite de reinscripciones.»
///
/// The structure states the cap (`entries_per_player`): at 2, the same document buys a second
/// inscription, each its own entrant with its own order number, and a third is refused naming the
/// rule; the example structures, which state none, take one inscription per document.
#[tokio::test]
async fn anexo_i_32_a_player_registers_again_up_to_the_events_cap() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let text = multimesa().replace("max_entrants = 200", "max_entrants = 200\nentries_per_player = 2");
    assert_ne!(text, multimesa());
    set_up(&client, &text).await;
    ok(&client, CASHIER, purchase(T, "IN", 1, "Jugadora Uno", &document_of(1), "20000.00")).await;
    let view = ok(&client, CASHIER, purchase(T, "IN", 2, "Jugadora Uno", &document_of(1), "20000.00")).await;
    assert_eq!(view.entrants, 2, "each inscription is an entrant");
    let message =
        refused(&mut client, T, CASHIER, purchase(T, "IN", 3, "Jugadora Uno", &document_of(1), "20000.00"), Code::AlreadyExists)
            .await;
    assert!(message.contains("Anexo I, 32") && message.contains("allows 2"), "{message}");
    tied(&view);

    // Without a stated cap: one inscription per document.
    const S: &str = "sit-and-go-10";
    set_up(&client, &structure(S)).await;
    ok(&client, CASHIER, purchase(S, "IN", 1, "Jugadora Uno", &document_of(1), "5000.00")).await;
    let message =
        refused(&mut client, S, CASHIER, purchase(S, "IN", 2, "Jugadora Uno", &document_of(1), "5000.00"), Code::AlreadyExists)
            .await;
    assert!(message.contains("allows 1"), "{message}");
}
