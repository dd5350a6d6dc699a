//! The poker tournament's pages (Lotería Nacional Res. 123/2013; docs/readings.md, "The
//! tournament's prize pool"), for the staff:
//!
//! - `/torneos`: every tournament (name, phase, entrants, live pool) and every tournament prize
//!   PENDIENTE DE PAGO, for the cashier and the Venta-Pagos office (office and supervisor keys).
//! - `/torneos/{id}`: the cashier's page: the prize pool (collected, prizes, the house's share on
//!   its own line, each position's amount), the purchase form (IN, RB, AD: Anexo IV 1.2, 1.3),
//!   the purchases booked with the document masked, the refund while registration is open
//!   (Anexo IV 1.4), the prize payment against the player's document (art. 66) and the prizes
//!   PENDIENTE DE PAGO with the office's confirmation.
//! - `/torneos/{id}/compras/{order}/vale`: the "vale de compra de fichas" (Anexo IV 1.2), the one
//!   page that shows the document in full.
//! - `/torneos/{id}/director`: the director's page (supervisor keys): the closes (art. 64, 65),
//!   eliminations (art. 71, 72), disqualifications (Anexo II), chip seals (Anexo IV 7.3.2), seat
//!   draws (art. 11, 15, 88; Anexo IV 8.1) and the records so far.
//!
//! # Layout
//! - this file: what the pages share (the tournament's head and pool, the rows, the door to the
//!   state) and `/torneos`.
//! - `cashier`: `/torneos/{id}` and its forms.
//! - `vale`: the purchase's receipt.
//! - `director`: `/torneos/{id}/director` and its actions.
//!
//! Every action is the same command the Tournaments gRPC service submits
//! (`crate::grpc::tournament_op`, `crate::grpc::submit_tournament`), signed as the signed-in
//! person's key: a refusal is the state's, shown in Spanish with its 4xx, and changes nothing.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum_extra::extract::CookieJar;
use pozo_core::state::tournament::{Actor, Entrant, Tournament, TournamentPhase};
use pozo_core::tournament::identity::{DocumentKind, Identity};
use pozo_engine::tournament::{Item, payouts};
use pozo_proto::v1 as pb;
use pozo_proto::v1::tournament_command::Command as C;

mod cashier;
mod director;
mod vale;

use super::auth;
use super::context::Web;
use super::error::{PageError, page};
use super::sessions::Session;
use super::view;
use crate::config::{Config, Role};
use crate::grpc::ApiError;

/// Who keeps the cashier's pages: the Venta-Pagos office and the supervisors.
const CASHIERS: &[Role] = &[Role::Office, Role::Supervisor];
/// Who directs a tournament: the supervisors.
const DIRECTORS: &[Role] = &[Role::Supervisor];
/// The most seats a table of a seat draw has, as a page takes it (a bound on the form, not a rule).
const SEATS_MAX: u32 = 99;

// ----------------------------------------------------------------------------- what the pages show

/// The tournament's header on every page.
pub(super) struct Head {
    pub(super) id: String,
    pub(super) name: String,
    pub(super) kind: &'static str,
    pub(super) phase: &'static str,
    /// `abierta`, `recompras`, `en-juego`, `finalizado`: the phase's label's class.
    pub(super) phase_class: &'static str,
}

pub(super) fn head(tournament: &Tournament) -> Head {
    let structure = tournament.structure();
    Head {
        id: tournament.id.clone(),
        name: structure.name().to_owned(),
        kind: match structure.kind() {
            pozo_engine::tournament::Kind::Multimesa => "Multimesa",
            pozo_engine::tournament::Kind::SitAndGo => "Sit & Go",
        },
        phase: tournament.phase.spanish(),
        phase_class: match tournament.phase {
            TournamentPhase::Registration => "abierta",
            TournamentPhase::Rebuys => "recompras",
            TournamentPhase::Play => "en-juego",
            TournamentPhase::Finished => "finalizado",
        },
    }
}

/// The prize pool as it stands: live until the rebuy and add-on period closes, fixed after
/// (art. 64); each position's amount for the entrants so far (art. 65).
pub(super) struct PoolView {
    pub(super) collected: String,
    pub(super) prizes: String,
    /// The house's share (art. 63): on the staff's pages only, never on the room display.
    pub(super) house: String,
    pub(super) fixed: bool,
    pub(super) entrants: u32,
    /// ("1.º", "$ 101.750,00"), first place first.
    pub(super) places: Vec<(String, String)>,
}

pub(super) fn pool(tournament: &Tournament) -> PoolView {
    let structure = tournament.structure();
    let seated = u32::try_from(tournament.to_seat().len()).unwrap_or(u32::MAX);
    let entrants = if tournament.entrants > 0 { tournament.entrants } else { seated };
    let (collected, prizes, house, places) = match &tournament.pool {
        Some(fixed) => (fixed.collected, fixed.prizes, fixed.house, fixed.places.clone()),
        None => {
            let live = tournament.prize_pool();
            // Res. 123/2013 art. 65: the positions paid depend on the entrants; at least two.
            let places = payouts(&structure, entrants.max(2), live.prizes).unwrap_or_default();
            (live.collected, live.prizes, live.house, places)
        }
    };
    PoolView {
        collected: view::pesos(collected),
        prizes: view::pesos(prizes),
        house: view::pesos(house),
        fixed: tournament.pool.is_some(),
        entrants,
        places: places.iter().enumerate().map(|(index, amount)| (format!("{}.º", index + 1), view::pesos(*amount))).collect(),
    }
}

/// Who did something, as a line: "Ana Pereyra (vp-ana), 29/11/2026 21:04:05, asiento 12".
fn by(config: &Config, actor: &Actor) -> String {
    format!("{} ({}), {}, asiento {}", actor.name, actor.key_id, view::moment(config, actor.time_ms), actor.sequence)
}

/// `10.000`: a count of chips as a person reads it.
fn chips(count: u64) -> String {
    let digits = count.to_string();
    let mut text = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            text.push('.');
        }
        text.push(digit);
    }
    text
}

fn item_spanish(item: Item) -> &'static str {
    match item {
        Item::BuyIn => "Inscripción (IN)",
        Item::Rebuy => "Recompra (RB)",
        Item::AddOn => "Adición (AD)",
    }
}

struct PurchaseRow {
    order: u32,
    code: &'static str,
    name: String,
    /// Masked: `DNI ***4567`, never the number.
    document: String,
    amount: String,
    cashier: String,
    when: String,
    refunded: String,
    refundable: bool,
}

struct PlayerRow {
    order: u32,
    name: String,
    standing: &'static str,
    position: String,
    due: String,
    payment: &'static str,
    pending: bool,
    requested_by: String,
}

fn player_row(config: &Config, player: &Entrant) -> PlayerRow {
    PlayerRow {
        order: player.order,
        name: player.player_name.clone(),
        standing: crate::grpc::tournament_standing(player.standing),
        position: player.position.map(|position| format!("{position}.º")).unwrap_or_default(),
        due: view::pesos(player.due()),
        payment: crate::grpc::tournament_payment(player),
        pending: player.requested.is_some() && player.paid.is_none(),
        requested_by: player.requested.as_ref().map(|actor| by(config, actor)).unwrap_or_default(),
    }
}

/// An item on sale, for the purchase form.
struct Offered {
    code: &'static str,
    name: &'static str,
    /// As the form sends it: "20000.00".
    price_plain: String,
    price: String,
    chips: String,
}

/// A prize PENDIENTE DE PAGO, for the office.
struct PendingPrize {
    tournament: String,
    tournament_name: String,
    player: PlayerRow,
}

fn find(web: &Web, id: &str) -> Result<Tournament, PageError> {
    web.handle
        .read()
        .tournament(id)
        .cloned()
        .ok_or_else(|| PageError::not_found(format!("No existe el torneo `{}`.", view::bounded(id))))
}

fn pending_prizes(web: &Web) -> Vec<PendingPrize> {
    let config = web.handle.config();
    let read = web.handle.read();
    let mut pending = Vec::new();
    for tournament in read.tournaments() {
        let waiting = tournament.players.values().filter(|player| player.requested.is_some() && player.paid.is_none());
        for player in waiting {
            pending.push(PendingPrize {
                tournament: tournament.id.clone(),
                tournament_name: tournament.structure().name().to_owned(),
                player: player_row(&config, player),
            });
        }
    }
    pending
}

/// How many tournament prizes wait for the office (the Venta-Pagos page says so).
pub(super) fn pending_count(web: &Web) -> usize {
    let read = web.handle.read();
    read.tournaments().map(|tournament| tournament.owed().iter().filter(|(_, _, waiting)| *waiting).count()).sum()
}

// ----------------------------------------------------------------------------- the door

/// A refusal of the door as a page: the state's in Spanish, with its status.
fn refused(error: ApiError) -> PageError {
    match error {
        ApiError::Refused(refusal) => PageError::from(refusal),
        ApiError::Stopping(stopping) => PageError::from(stopping),
        ApiError::Invalid(message) => PageError::bad_request(message),
        ApiError::NotFound(message) => PageError::not_found(message),
        ApiError::Unauthenticated(message) | ApiError::Denied(message) => PageError::new(StatusCode::FORBIDDEN, message),
        ApiError::Internal(message) => PageError::new(StatusCode::INTERNAL_SERVER_ERROR, message),
    }
}

/// Submits `command` as the signed-in person's key, through the Tournaments service's door.
async fn submit(web: &Web, session: &Session, command: C) -> Result<Tournament, PageError> {
    let Some(key) = web.handle.key(&session.key_id) else {
        return Err(PageError::new(StatusCode::FORBIDDEN, "Su clave ya no está en el archivo de claves: vuelva a ingresar."));
    };
    let (op, _) = crate::grpc::tournament_op(&web.handle, command).map_err(refused)?;
    let tournament = crate::grpc::submit_tournament(&web.handle, key, op).await.map_err(refused)?;
    tracing::info!(tournament = %tournament.id, by = %session.key_id, "pages: tournament command done");
    Ok(tournament)
}

/// The signed-in person of a tournament's page and the tournament it shows; otherwise the sign-in
/// page (back to `back` after it), or the tournament's absence in Spanish.
#[expect(clippy::result_large_err, reason = "the refusal is the page's response, returned as is by the handler")]
fn shown(web: &Web, jar: &CookieJar, roles: &[Role], back: &str, id: &str) -> Result<(Session, Tournament), Response> {
    let session = auth::require(web, jar, roles, back)?;
    let tournament = find(web, id).map_err(IntoResponse::into_response)?;
    Ok((session, tournament))
}

/// The signed-in person of a form, its CSRF token checked.
#[expect(clippy::result_large_err, reason = "the refusal is the page's response, returned as is by the handler")]
fn person(web: &Web, jar: &CookieJar, roles: &[Role], back: &str, csrf: Option<&str>) -> Result<Session, Response> {
    let session = auth::require(web, jar, roles, back)?;
    auth::check_csrf(&session, csrf).map_err(IntoResponse::into_response)?;
    Ok(session)
}

fn number<T: std::str::FromStr>(field: &str, text: &str) -> Result<T, PageError> {
    text.trim().parse().map_err(|_| PageError::bad_request(format!("{field}: `{}` no es un número", view::bounded(text.trim()))))
}

/// A document as typed, in the staff's words when it is not one (Anexo IV 1.2).
fn document(kind: &str, number: &str) -> Result<pb::IdentityDocument, PageError> {
    Identity::new(kind, number).map_err(|error| PageError::bad_request(format!("documento: {}", error.for_people())))?;
    Ok(pb::IdentityDocument { kind: kind.to_owned(), number: number.trim().to_owned() })
}

/// The document kinds a form offers, as the receipt prints them.
fn kinds() -> Vec<&'static str> {
    DocumentKind::ALL.iter().map(|kind| kind.as_str()).collect()
}

fn back_to(path: String) -> Response {
    Redirect::to(&path).into_response()
}

// ----------------------------------------------------------------------------- /torneos

struct ListRow {
    head: Head,
    entrants: u32,
    prizes: String,
    fixed: bool,
}

#[derive(askama::Template)]
#[template(path = "torneos.html")]
struct ListPage {
    session: Session,
    tournaments: Vec<ListRow>,
    pending: Vec<PendingPrize>,
    kinds: Vec<&'static str>,
}

async fn list(State(web): State<Web>, jar: CookieJar) -> Response {
    let session = match auth::require(&web, &jar, CASHIERS, "/torneos") {
        Ok(session) => session,
        Err(response) => return response,
    };
    let tournaments = web
        .handle
        .read()
        .tournaments()
        .map(|tournament| {
            let pool = pool(tournament);
            ListRow { head: head(tournament), entrants: pool.entrants, prizes: pool.prizes, fixed: pool.fixed }
        })
        .collect();
    page(&ListPage { session, tournaments, pending: pending_prizes(&web), kinds: kinds() }).into_response()
}

pub(super) fn routes() -> axum::Router<Web> {
    axum::Router::new()
        .route("/torneos", get(list))
        .route("/torneos/{id}", get(cashier::cashier))
        .route("/torneos/{id}/compras", post(cashier::purchase))
        .route("/torneos/{id}/compras/{order}/vale", get(vale::receipt))
        .route("/torneos/{id}/compras/{order}/devolver", post(cashier::refund))
        .route("/torneos/{id}/premios", post(cashier::pay))
        .route("/torneos/{id}/premios/{player}/confirmar", post(cashier::confirm))
        .route("/torneos/{id}/director", get(director::director))
        .route("/torneos/{id}/director/{action}", post(director::direct))
}
