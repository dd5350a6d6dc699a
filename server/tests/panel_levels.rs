//! What a table's panel says of levels and awards, through the real controller on 127.0.0.1:0
//! (docs/readings.md, "Levels", "The envy bonus"; docs/api.md, `TableView`): each table only the
//! meters it plays for — the shared levels and its own bank's meter of a banked level —, the
//! round's accepted awards on the view with the level that paid each, the envy bonuses won
//! across the link with theirs, and the paytable's lines marking envy bonuses and the house's.

mod common;

use common::market::{enlace, mercado, mercado_edited, mercado_envy_across_the_link};
use common::*;
use pozo_engine::Money;
use pozo_proto::v1 as pb;
use prost::Message;
use std::time::Duration;

fn money(value: &Option<pb::Amount>) -> Money {
    amount(value).parse().unwrap_or_else(|_| panic!("an amount: {value:?}"))
}

fn pesos(text: &str) -> Money {
    text.parse().expect("an amount")
}

/// Each meter of a view: its name, amount and reset.
fn meters(view: &pb::TableView) -> Vec<(String, Money, Money)> {
    view.levels.iter().map(|level| (level.name.clone(), money(&level.displayed), money(&level.reset))).collect()
}

fn meter(name: &str, displayed: &str, reset: &str) -> (String, Money, Money) {
    (name.to_owned(), pesos(displayed), pesos(reset))
}

/// Each award as (seat, code, level, amount).
fn awards(awards: &[pb::AwardView]) -> Vec<(u32, String, String, Money)> {
    awards.iter().map(|award| (award.seat, award.code.clone(), award.level.clone(), money(&award.award))).collect()
}

fn award(seat: u32, code: &str, level: &str, amount: &str) -> (u32, String, String, Money) {
    (seat, code.to_owned(), level.to_owned(), pesos(amount))
}

/// The next push of a table's stream whose view satisfies `wanted` (a push of another batch
/// may come first); fails after five seconds.
async fn pushed(stream: &mut tonic::Streaming<pb::TableEvent>, wanted: impl Fn(&pb::TableView) -> bool) -> pb::TableView {
    tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let view = stream.message().await.expect("the stream").expect("a push").table.expect("a view");
            if wanted(&view) {
                return view;
            }
        }
    })
    .await
    .expect("the push wanted within five seconds")
}

async fn prizes_of(client: &mut Client, table: &str) -> pb::PrizeList {
    let payload = pb::WatchTable { table_id: table.to_owned(), ..Default::default() }.encode_to_vec();
    let envelope = client.envelope_as(&format!("mesa-{table}"), pozo_proto::Purpose::WatchTable, payload);
    client.table.prizes(envelope).await.expect("Table/Prizes").into_inner()
}

// Proves each table's panel shows the meters it plays for: at F2 a Black Jack table shows the
// Grand and F2's Major and Mini, at their resets before F2's first bet (a bet feeds the meters
// at INICIAR JUEGO) (showing them opens
// nothing: Reports/Pool lists no F2 meter yet), never F3's though F3 bet first; an F2 bet moves
// F2's meters on the panel of another F2 table that sent nothing (the pool's push, per flor) and
// leaves an F3 table's Major and Mini where they were.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_shows_the_shared_levels_and_its_own_flors_meters_only() {
    let server = TestServer::with_config(enlace()).await;
    let mut client = server.client().await;
    client.ok("CP1", open()).await;
    client.ok("CP1", sell(1, 1)).await;
    client.ok("CP1", press(1)).await;
    client.ok("CP1", start()).await;
    let view = client.view("B1").await;
    assert_eq!(
        meters(&view),
        [
            meter("Grand", "5000030.00", "5000000.00"),
            meter("Major · F2", "100000.00", "100000.00"),
            meter("Mini · F2", "10000.00", "10000.00"),
            meter("Misterioso", "20010.00", "20000.00"),
        ],
        "F2's meters at their resets, F3's not on an F2 table"
    );
    let report = client.pool("mercado-gran-sala").await;
    let listed: Vec<&str> = report.levels.iter().map(|level| level.name.as_str()).collect();
    assert_eq!(
        listed,
        ["Grand", "Major · F3", "Mini · F3", "Misterioso", "Pagado por la casa"],
        "showing F2's meters opened none"
    );
    assert_eq!(
        meters(&client.view("CP2").await),
        [
            meter("Grand", "5000030.00", "5000000.00"),
            meter("Major · F3", "100020.00", "100000.00"),
            meter("Mini · F3", "10015.00", "10000.00"),
            meter("Misterioso", "20010.00", "20000.00"),
        ],
        "F3's own meters, with CP1's bet"
    );
    // B2 (F2) and CP2 (F3) send nothing: their panels move with the pool's pushes.
    let mut b2 = client.watch("B2").await;
    let mut cp2 = client.watch("CP2").await;
    client.ok("B1", open()).await;
    client.ok("B1", sell(1, 1)).await;
    client.ok("B1", press(1)).await;
    client.ok("B1", start()).await;
    let view = pushed(&mut b2, |view| money(&view.levels[0].displayed) == pesos("5000090.00")).await;
    assert_eq!(
        meters(&view),
        [
            meter("Grand", "5000090.00", "5000000.00"),
            meter("Major · F2", "100040.00", "100000.00"),
            meter("Mini · F2", "10030.00", "10000.00"),
            meter("Misterioso", "20030.00", "20000.00"),
        ],
        "B1's bet on B2's panel: the Grand and F2's meters"
    );
    let view = pushed(&mut cp2, |view| money(&view.levels[0].displayed) == pesos("5000090.00")).await;
    assert_eq!(
        meters(&view),
        [
            meter("Grand", "5000090.00", "5000000.00"),
            meter("Major · F3", "100020.00", "100000.00"),
            meter("Mini · F3", "10015.00", "10000.00"),
            meter("Misterioso", "20030.00", "20000.00"),
        ],
        "B1's bet moves CP2's Grand, not its flor's meters"
    );
    server.stop().await;
}

// Proves the round's awards are on the view from ACEPTAR to FINALIZAR JUEGO, each with the level
// that paid it as the header names it: F2's Major for Cuatro ases at B1 ("Major · F2"); at the
// Three Card Poker table the Mini Royal and its envy bonus, paid by the house ("Pagado por la
// casa"); a view read afresh (an agent restarted) has them; FINALIZAR JUEGO takes them off.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_accepted_awards_are_on_the_view_with_their_levels_until_the_round_ends() {
    let server = TestServer::with_config(enlace()).await;
    let mut client = server.client().await;
    client.ok("B1", open()).await;
    for seat in [1, 2] {
        client.ok("B1", sell(seat, 1)).await;
        client.ok("B1", press(seat)).await;
    }
    client.ok("B1", start()).await;
    client.ok("B1", prize(1, "CUATRO_ASES")).await;
    let reply = client.ok("B1", accept()).await;
    let expected = [award(1, "CUATRO_ASES", "Major · F2", "100080.00")];
    assert_eq!(awards(&reply.awards), expected, "the reply names the level");
    assert_eq!(awards(&reply.table.expect("a view").accepted), expected, "and its view has them");
    assert_eq!(awards(&client.view("B1").await.accepted), expected, "a view read afresh too");
    assert!(client.view("B2").await.accepted.is_empty(), "another table's view has none");
    client.ok("B1", finish()).await;
    assert!(client.view("B1").await.accepted.is_empty(), "FINALIZAR JUEGO ends the round");
    server.stop().await;

    let server = TestServer::with_config(mercado()).await;
    let mut client = server.client().await;
    client.ok("CP1", open()).await;
    for seat in [1, 2] {
        client.ok("CP1", sell(seat, 1)).await;
        client.ok("CP1", press(seat)).await;
    }
    client.ok("CP1", start()).await;
    client.ok("CP1", prize(2, "MINI_ROYAL_PICAS")).await;
    let meter = money(&client.view("CP1").await.levels[0].displayed);
    client.ok("CP1", accept()).await;
    let view = client.view("CP1").await;
    assert_eq!(
        awards(&view.accepted),
        [
            (2, "MINI_ROYAL_PICAS".to_owned(), "Mini Royal".to_owned(), meter),
            award(1, "ENVIDIA_MINI_ROYAL_PICAS", "Pagado por la casa", "50000.00"),
        ]
    );
    // The paytable marks the envy bonus and the house's prizes: the agent reads no wording.
    let list = prizes_of(&mut client, "CP1").await;
    let line = |code: &str| list.prizes.iter().find(|line| line.code == code).cloned().expect("a paytable line");
    let (royal, envy, house) = (line("MINI_ROYAL_PICAS"), line("ENVIDIA_MINI_ROYAL_PICAS"), line("MINI_ROYAL"));
    assert_eq!((royal.envy, royal.house, royal.level.as_str()), (false, false, "Mini Royal"));
    assert_eq!((envy.envy, envy.house, envy.level.as_str()), (true, true, "Pagado por la casa"));
    assert_eq!((house.envy, house.house), (false, true), "the house's fixed Mini Royal");
    server.stop().await;
}

// Proves an envy bonus across the link (the spades Mini Royal's envy edited to `scope = "link"`)
// shows on the other table's view with its level, not among that table's accepted awards, until
// that table's FINALIZAR JUEGO; the hitting table's view has its own awards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_envy_bonus_across_the_link_shows_on_the_other_tables_view_with_its_level() {
    let edited = mercado_envy_across_the_link();
    let server = TestServer::with_config(mercado_edited(&edited)).await;
    let mut client = server.client().await;
    for (table, seats) in [("CP1", [1, 2]), ("CP2", [2, 3])] {
        client.ok(table, open()).await;
        for seat in seats {
            client.ok(table, sell(seat, 1)).await;
            client.ok(table, press(seat)).await;
        }
        client.ok(table, start()).await;
    }
    client.ok("CP1", prize(2, "MINI_ROYAL_PICAS")).await;
    client.ok("CP1", accept()).await;
    let view = client.view("CP2").await;
    let linked: Vec<(String, (u32, String, String, Money))> = view
        .link_awards
        .iter()
        .map(|linked| {
            let award = linked.award.as_ref().expect("an award");
            (linked.from_table_id.clone(), awards(std::slice::from_ref(award)).remove(0))
        })
        .collect();
    let envy = |seat: u32| ("CP1".to_owned(), award(seat, "ENVIDIA_MINI_ROYAL_PICAS", "Pagado por la casa", "150000.00"));
    assert_eq!(linked, [envy(2), envy(3)]);
    assert!(view.accepted.is_empty(), "CP2 accepted nothing of its own");
    let home = client.view("CP1").await;
    let levels: Vec<(u32, String)> = home.accepted.iter().map(|award| (award.seat, award.level.clone())).collect();
    assert_eq!(levels, [(2, "Mini Royal".to_owned()), (1, "Pagado por la casa".to_owned())]);
    assert!(home.link_awards.is_empty());
    client.ok("CP2", finish()).await;
    assert!(client.view("CP2").await.link_awards.is_empty(), "CP2's FINALIZAR JUEGO ends them");
    server.stop().await;
}
