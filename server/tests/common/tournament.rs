//! A poker tournament played through the real server's Tournaments service (Res. 123/2013):
//! its structure approved by two supervisors, purchases booked by the cashier (`vp-ana`), the
//! director's records (`sup-carla`), prizes paid and confirmed (`vp-bruno`).

use pozo_proto::v1 as pb;
use pozo_proto::v1::tournament_command::Command as T;
use prost::Message;

use super::Client;
use super::changes::{CARLA, DIEGO, approve, change, propose};

/// The cashier who books purchases and pays prizes.
pub const CASHIER: &str = "vp-ana";
/// Another person of the Venta-Pagos office, who confirms a large prize.
pub const OFFICE: &str = "vp-bruno";
/// The tournament director.
pub const DIRECTOR: &str = CARLA;

/// The multi-table example of config/torneos.toml, its amounts as written there.
pub fn multimesa() -> String {
    structure("multimesa-semanal")
}

/// One `[[torneo]]` of config/torneos.toml, by id.
pub fn structure(id: &str) -> String {
    let text = include_str!("../../../config/torneos.toml");
    let mut blocks = text.split("\n[[torneo]]\n").skip(1);
    let block = blocks.find(|block| block.starts_with(&format!("id = \"{id}\""))).expect("a structure of config/torneos.toml");
    format!("[[torneo]]\n{block}")
}

/// The structure proposed by Carla and approved by Diego; the approved proposal.
pub async fn set_up(client: &Client, text: &str) -> pb::Proposal {
    let what = pb::propose_change::What::Tournament(pb::TournamentStructure { text: text.to_owned() });
    let proposal = change(client, CARLA, propose(what)).await.expect("proposed");
    change(client, DIEGO, approve(&proposal)).await.expect("approved")
}

/// Signs `command` as `key_id` and submits it.
pub async fn submit(client: &Client, key_id: &str, command: T) -> Result<pb::TournamentReply, tonic::Status> {
    let payload = pb::TournamentCommand { command: Some(command) }.encode_to_vec();
    let envelope = client.envelope_as(key_id, pozo_proto::Purpose::TournamentCommand, payload);
    let mut service = pb::tournaments_client::TournamentsClient::new(client.channel.clone());
    service.submit(envelope).await.map(tonic::Response::into_inner)
}

/// Like [`submit`], expecting it done.
pub async fn ok(client: &Client, key_id: &str, command: T) -> pb::TournamentView {
    let shown = format!("{command:?}");
    submit(client, key_id, command)
        .await
        .unwrap_or_else(|status| panic!("{shown} refused: {status:?}"))
        .tournament
        .expect("the tournament after it")
}

/// The tournament as `key_id` reads it.
pub async fn get(client: &Client, key_id: &str, tournament: &str) -> pb::TournamentView {
    let payload = pb::TournamentCommand { command: Some(T::List(pb::ListTournaments { tournament_id: tournament.to_owned() })) }
        .encode_to_vec();
    let envelope = client.envelope_as(key_id, pozo_proto::Purpose::TournamentCommand, payload);
    let mut service = pb::tournaments_client::TournamentsClient::new(client.channel.clone());
    service.list(envelope).await.expect("listed").into_inner().tournaments.pop().expect("the tournament")
}

pub fn dni(number: &str) -> Option<pb::IdentityDocument> {
    Some(pb::IdentityDocument { kind: "DNI".into(), number: number.into() })
}

pub fn money(value: &str) -> Option<pb::Amount> {
    Some(pb::Amount { value: value.into() })
}

/// A purchase of `item` ("IN", "RB", "AD") at `price`.
pub fn purchase(tournament: &str, item: &str, order: u32, name: &str, document: &str, price: &str) -> T {
    T::Purchase(pb::TournamentPurchase {
        tournament_id: tournament.into(),
        item: item.into(),
        order,
        player_name: name.into(),
        document: dni(document),
        amount: money(price),
    })
}

pub fn refund(tournament: &str, order: u32) -> T {
    T::Refund(pb::TournamentRefund { tournament_id: tournament.into(), order })
}

pub fn close_registration(tournament: &str) -> T {
    T::CloseRegistration(pb::TournamentClose { tournament_id: tournament.into() })
}

pub fn close_rebuys(tournament: &str) -> T {
    T::CloseRebuys(pb::TournamentClose { tournament_id: tournament.into() })
}

pub fn eliminate(tournament: &str, players: &[u32], table: &str, hand: u64, simultaneous: bool) -> T {
    T::Eliminate(pb::TournamentElimination {
        tournament_id: tournament.into(),
        players: players.to_vec(),
        table: table.into(),
        hand,
        simultaneous,
    })
}

pub fn disqualify(tournament: &str, player: u32, reason: &str) -> T {
    T::Disqualify(pb::TournamentDisqualification { tournament_id: tournament.into(), player, reason: reason.into() })
}

pub fn seal_chips(tournament: &str, player: u32, chips: u64, receipt: &str, jornada: u32) -> T {
    T::SealChips(pb::TournamentChipSeal { tournament_id: tournament.into(), player, chips, receipt: receipt.into(), jornada })
}

pub fn pay_prize(tournament: &str, player: u32, document: &str) -> T {
    T::PayPrize(pb::TournamentPrize { tournament_id: tournament.into(), player, document: dni(document) })
}

pub fn confirm_prize(tournament: &str, player: u32, document: &str) -> T {
    T::ConfirmPrize(pb::TournamentPrize { tournament_id: tournament.into(), player, document: dni(document) })
}

/// A seat draw over `tables` (name, number of seats from 1).
pub fn draw_seats(tournament: &str, reason: &str, tables: &[(&str, u32)]) -> T {
    T::DrawSeats(pb::TournamentSeatDraw {
        tournament_id: tournament.into(),
        reason: reason.into(),
        tables: tables
            .iter()
            .map(|(table, seats)| pb::TournamentTable { table: (*table).into(), seats: (1..=*seats).collect() })
            .collect(),
    })
}

/// A player's document: 30.000.000 + order.
pub fn document_of(order: u32) -> String {
    (30_000_000 + order).to_string()
}

pub fn value(amount: &Option<pb::Amount>) -> rust_decimal::Decimal {
    amount.as_ref().expect("an amount").value.parse().expect("a decimal")
}

/// `text` (one `[[torneo]]`) under another id, so that one journal holds several tournaments.
pub fn renamed(text: &str, id: &str) -> String {
    let line = text.lines().find(|line| line.starts_with("id = ")).expect("an id line");
    text.replacen(line, &format!("id = \"{id}\""), 1)
}

/// Buy-ins (IN) for `orders`, one by one, each player `Jugador N` with [`document_of`]; the view after the last.
pub async fn register(
    client: &Client,
    tournament: &str,
    orders: std::ops::RangeInclusive<u32>,
    price: &str,
) -> pb::TournamentView {
    let mut view = None;
    for order in orders {
        view = Some(
            ok(client, CASHIER, purchase(tournament, "IN", order, &format!("Jugador {order}"), &document_of(order), price)).await,
        );
    }
    view.expect("at least one buy-in")
}

/// Amounts as decimals.
pub fn values(amounts: &[pb::Amount]) -> Vec<rust_decimal::Decimal> {
    amounts.iter().map(|amount| amount.value.parse().expect("a decimal")).collect()
}

/// A player of the view, by the order number of his buy-in.
pub fn player(view: &pb::TournamentView, order: u32) -> &pb::TournamentPlayer {
    view.players.iter().find(|p| p.order == order).unwrap_or_else(|| panic!("player {order}"))
}

/// Checks a seat draw as an inspector would, offline, from what the server shows: the nonce opens
/// the commitment and gives the seating claimed (Res. 123/2013 art. 11, 15, 88; Anexo IV 8.1).
pub fn draw_checks(tournament: &str, line: &pb::TournamentSeatDrawLine) -> Result<(), String> {
    use pozo_core::tournament::seats::{self, PlayerRef, SeatDrawHead, Seating, TableSeats};
    let reason = line.reason.parse().map_err(|error| format!("{error}"))?;
    let head = SeatDrawHead { tournament: tournament.into(), draw: line.draw, reason };
    let bytes = |text: &str| -> [u8; 32] { hex::decode(text).expect("hex").try_into().expect("32 bytes") };
    let players: Vec<PlayerRef> = line.players.iter().map(|order| PlayerRef { order: u64::from(*order) }).collect();
    let tables: Vec<TableSeats> =
        line.tables.iter().map(|t| TableSeats { table: t.table.as_str().into(), seats: t.seats.clone() }).collect();
    let claimed: Vec<Seating> = line
        .seating
        .iter()
        .map(|s| Seating { order: u64::from(s.order), table: s.table.as_str().into(), seat: s.seat })
        .collect();
    seats::check(&head, &bytes(&line.commitment), &bytes(&line.nonce), &players, &tables, &claimed)
        .map_err(|error| error.to_string())
}
