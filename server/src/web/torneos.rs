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
//! Every action is the same command the Tournaments gRPC service submits
//! (`crate::grpc::tournament_op`, `crate::grpc::submit_tournament`), signed as the signed-in
//! person's key: a refusal is the state's, shown in Spanish with its 4xx, and changes nothing.

use axum::Form;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum_extra::extract::CookieJar;
use pozo_core::state::tournament::{Actor, Entrant, Tournament, TournamentPhase};
use pozo_core::tournament::identity::{DocumentKind, Identity};
use pozo_engine::Money;
use pozo_engine::money::plain_text;
use pozo_engine::tournament::{Item, payouts};
use pozo_proto::v1 as pb;
use pozo_proto::v1::tournament_command::Command as C;
use serde::Deserialize;

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

// ----------------------------------------------------------------------------- /torneos/{id}

#[derive(askama::Template)]
#[template(path = "torneo.html")]
struct CashierPage {
    session: Session,
    head: Head,
    pool: PoolView,
    offered: Vec<Offered>,
    kinds: Vec<&'static str>,
    next_order: u32,
    purchases: Vec<PurchaseRow>,
    players: Vec<PlayerRow>,
    pending: Vec<PendingPrize>,
    venta_pagos_from: String,
    director: bool,
}

async fn cashier(State(web): State<Web>, jar: CookieJar, Path(id): Path<String>) -> Response {
    let session = match auth::require(&web, &jar, CASHIERS, &format!("/torneos/{}", view::bounded(&id))) {
        Ok(session) => session,
        Err(response) => return response,
    };
    let tournament = match find(&web, &id) {
        Ok(tournament) => tournament,
        Err(error) => return error.into_response(),
    };
    let config = web.handle.config();
    let structure = tournament.structure();
    let registration_open = tournament.phase == TournamentPhase::Registration;
    // What is still sold: everything while registration is open, rebuys and add-ons until their
    // period ends (Res. 123/2013 art. 64, 65), nothing after. The state refuses the rest anyway.
    let on_sale = |item: Item| match tournament.phase {
        TournamentPhase::Registration => true,
        TournamentPhase::Rebuys => item != Item::BuyIn,
        TournamentPhase::Play | TournamentPhase::Finished => false,
    };
    let offered = Item::ALL
        .into_iter()
        .filter(|item| on_sale(*item))
        .filter_map(|item| structure.offer(item).map(|offer| (item, offer)))
        .map(|(item, offer)| Offered {
            code: item.code(),
            name: item_spanish(item),
            price_plain: plain_text(offer.price),
            price: view::pesos(offer.price),
            chips: chips(offer.chips),
        })
        .collect();
    let purchases = tournament
        .purchases
        .iter()
        .map(|purchase| PurchaseRow {
            order: purchase.order,
            code: purchase.item.code(),
            name: purchase.player_name.clone(),
            document: purchase.document_masked.clone(),
            amount: view::pesos(purchase.amount),
            cashier: format!("{} ({})", purchase.by.name, purchase.by.key_id),
            when: view::moment(&config, purchase.by.time_ms),
            refunded: purchase.refunded.as_ref().map(|actor| by(&config, actor)).unwrap_or_default(),
            refundable: registration_open && purchase.refunded.is_none(),
        })
        .collect();
    let next_order = tournament.purchases.iter().map(|purchase| purchase.order).max().unwrap_or(0).saturating_add(1);
    let pending = pending_prizes(&web).into_iter().filter(|prize| prize.tournament == tournament.id).collect();
    page(&CashierPage {
        director: DIRECTORS.contains(&session.role),
        session,
        head: head(&tournament),
        pool: pool(&tournament),
        offered,
        kinds: kinds(),
        next_order,
        purchases,
        players: tournament.players.values().map(|player| player_row(&config, player)).collect(),
        pending,
        venta_pagos_from: view::pesos(structure.venta_pagos_from()),
    })
    .into_response()
}

/// The purchase form (Anexo IV 1.2, 1.3): item, full name, document, order number, amount.
#[derive(Deserialize)]
struct PurchaseForm {
    csrf: Option<String>,
    #[serde(default)]
    item: String,
    #[serde(default)]
    nombre: String,
    #[serde(default)]
    tipo: String,
    #[serde(default)]
    documento: String,
    #[serde(default)]
    orden: String,
    #[serde(default)]
    monto: String,
}

async fn purchase(State(web): State<Web>, jar: CookieJar, Path(id): Path<String>, Form(form): Form<PurchaseForm>) -> Response {
    let session = match person(&web, &jar, CASHIERS, &format!("/torneos/{}", view::bounded(&id)), form.csrf.as_deref()) {
        Ok(session) => session,
        Err(response) => return response,
    };
    async {
        let order: u32 = number("orden", &form.orden)?;
        let amount = form.monto.trim();
        if amount.parse::<Money>().is_err() {
            return Err(PageError::bad_request(format!("monto: `{}` no es un importe (\"20000.00\")", view::bounded(amount))));
        }
        let command = C::Purchase(pb::TournamentPurchase {
            tournament_id: id.clone(),
            item: form.item.trim().to_owned(),
            order,
            player_name: form.nombre.trim().to_owned(),
            document: Some(document(&form.tipo, &form.documento)?),
            amount: Some(pb::Amount { value: amount.to_owned() }),
        });
        let tournament = submit(&web, &session, command).await?;
        Ok::<_, PageError>(back_to(format!("/torneos/{}/compras/{order}/vale", tournament.id)))
    }
    .await
    .unwrap_or_else(IntoResponse::into_response)
}

#[derive(Deserialize)]
struct PlainForm {
    csrf: Option<String>,
}

async fn refund(
    State(web): State<Web>,
    jar: CookieJar,
    Path((id, order)): Path<(String, u32)>,
    Form(form): Form<PlainForm>,
) -> Response {
    let session = match person(&web, &jar, CASHIERS, &format!("/torneos/{}", view::bounded(&id)), form.csrf.as_deref()) {
        Ok(session) => session,
        Err(response) => return response,
    };
    // Res. 123/2013 Anexo IV 1.4: refunded only at the player's request before registration closes (the state checks).
    let command = C::Refund(pb::TournamentRefund { tournament_id: id.clone(), order });
    match submit(&web, &session, command).await {
        Ok(tournament) => back_to(format!("/torneos/{}#compras", tournament.id)),
        Err(error) => error.into_response(),
    }
}

/// A prize asked for or confirmed against the player's document (art. 66).
#[derive(Deserialize)]
struct PrizeForm {
    csrf: Option<String>,
    #[serde(default)]
    jugador: String,
    #[serde(default)]
    tipo: String,
    #[serde(default)]
    documento: String,
}

async fn pay(State(web): State<Web>, jar: CookieJar, Path(id): Path<String>, Form(form): Form<PrizeForm>) -> Response {
    let session = match person(&web, &jar, CASHIERS, &format!("/torneos/{}", view::bounded(&id)), form.csrf.as_deref()) {
        Ok(session) => session,
        Err(response) => return response,
    };
    async {
        let player = number("jugador", &form.jugador)?;
        let document = Some(document(&form.tipo, &form.documento)?);
        // Res. 123/2013 art. 66: paid at the cashier against the player's identity; from the
        // structure's `venta_pagos_from` on, PENDIENTE DE PAGO until the office confirms.
        let command = C::PayPrize(pb::TournamentPrize { tournament_id: id.clone(), player, document });
        let tournament = submit(&web, &session, command).await?;
        Ok::<_, PageError>(back_to(format!("/torneos/{}#premios", tournament.id)))
    }
    .await
    .unwrap_or_else(IntoResponse::into_response)
}

async fn confirm(
    State(web): State<Web>,
    jar: CookieJar,
    Path((id, player)): Path<(String, u32)>,
    Form(form): Form<PrizeForm>,
) -> Response {
    let session = match person(&web, &jar, CASHIERS, &format!("/torneos/{}", view::bounded(&id)), form.csrf.as_deref()) {
        Ok(session) => session,
        Err(response) => return response,
    };
    async {
        let document = Some(document(&form.tipo, &form.documento)?);
        // Another person of the office than who asked for it confirms (the state refuses the same one).
        let command = C::ConfirmPrize(pb::TournamentPrize { tournament_id: id.clone(), player, document });
        let tournament = submit(&web, &session, command).await?;
        Ok::<_, PageError>(back_to(format!("/torneos/{}#premios", tournament.id)))
    }
    .await
    .unwrap_or_else(IntoResponse::into_response)
}

// ----------------------------------------------------------------------------- the receipt

#[derive(askama::Template)]
#[template(path = "torneo_vale.html")]
struct ReceiptPage {
    casino: String,
    head: Head,
    order: u32,
    code: &'static str,
    item: &'static str,
    name: String,
    /// In full: `DNI 30000001` (Anexo IV 1.2), on this page only.
    document: String,
    amount: String,
    chips: String,
    cashier: String,
    when: String,
    journal_id: String,
    sequence: u64,
    refunded: String,
    printed: String,
}

/// The "vale de compra de fichas" of a purchase (Res. 123/2013 Anexo IV 1.2): order number, full
/// name, DNI and amount, with the item, chips, cashier, moment and journal entry. The document is
/// unsealed here, for a signed-in person of the office or a supervisor, and never stored in clear.
async fn receipt(State(web): State<Web>, jar: CookieJar, Path((id, order)): Path<(String, u32)>) -> Response {
    if let Err(response) = auth::require(&web, &jar, CASHIERS, &format!("/torneos/{}/compras/{order}/vale", view::bounded(&id))) {
        return response;
    }
    let result = (|| {
        let tournament = find(&web, &id)?;
        let purchase = tournament.purchases.iter().find(|purchase| purchase.order == order).ok_or_else(|| {
            PageError::not_found(format!("No hay compra con el número de orden {order} en el torneo {}.", tournament.id))
        })?;
        let sealed = hex::decode(&purchase.document_sealed)
            .map_err(|_| PageError::new(StatusCode::INTERNAL_SERVER_ERROR, "El documento guardado no se puede leer."))?;
        let identity = Identity::unseal(web.handle.identity_keys().seal_key(), &tournament.id, u64::from(order), &sealed)
            .map_err(|error| PageError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("documento: {}", error.for_people())))?;
        let config = web.handle.config();
        let structure = tournament.structure();
        Ok::<_, PageError>(ReceiptPage {
            casino: config.layout.casino.clone(),
            head: head(&tournament),
            order,
            code: purchase.item.code(),
            item: item_spanish(purchase.item),
            name: purchase.player_name.clone(),
            document: format!("{} {}", identity.kind().as_str(), identity.number()),
            amount: view::pesos(purchase.amount),
            chips: chips(structure.offer(purchase.item).map_or(0, |offer| offer.chips)),
            cashier: format!("{} ({})", purchase.by.name, purchase.by.key_id),
            when: view::moment(&config, purchase.by.time_ms),
            journal_id: web.handle.journal_id().to_owned(),
            sequence: purchase.by.sequence,
            refunded: purchase.refunded.as_ref().map(|actor| by(&config, actor)).unwrap_or_default(),
            printed: view::moment(&config, web.handle.now_ms()),
        })
    })();
    match result.and_then(|receipt| page(&receipt)) {
        Ok(mut response) => {
            // The document in full: kept by no cache, browser's or proxy's.
            response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            response
        }
        Err(error) => error.into_response(),
    }
}

// ----------------------------------------------------------------------------- the director

struct EliminationRow {
    players: String,
    positions: String,
    amounts: String,
    table: String,
    hand: u64,
    tie: &'static str,
    by: String,
}

struct DisqualificationRow {
    player: u32,
    reason: String,
    position: String,
    forfeited: String,
    shared: String,
    by: String,
}

struct SealRow {
    player: u32,
    chips: String,
    receipt: String,
    jornada: u32,
    by: String,
}

struct DrawRow {
    draw: u64,
    reason: String,
    commitment: String,
    committed_at: u64,
    nonce: String,
    tables: String,
    /// (order, table, seat), by table and seat.
    seating: Vec<(u64, String, u32)>,
    by: String,
}

#[derive(askama::Template)]
#[template(path = "torneo_director.html")]
struct DirectorPage {
    session: Session,
    head: Head,
    pool: PoolView,
    players: Vec<PlayerRow>,
    active: String,
    eliminations: Vec<EliminationRow>,
    disqualifications: Vec<DisqualificationRow>,
    seals: Vec<SealRow>,
    draws: Vec<DrawRow>,
    next_draw: u64,
    next_commitment: String,
    closed_registration: String,
    closed_rebuys: String,
}

fn joined<T: std::fmt::Display>(values: impl IntoIterator<Item = T>) -> String {
    values.into_iter().map(|value| value.to_string()).collect::<Vec<_>>().join(", ")
}

async fn director(State(web): State<Web>, jar: CookieJar, Path(id): Path<String>) -> Response {
    let session = match auth::require(&web, &jar, DIRECTORS, &format!("/torneos/{}/director", view::bounded(&id))) {
        Ok(session) => session,
        Err(response) => return response,
    };
    let tournament = match find(&web, &id) {
        Ok(tournament) => tournament,
        Err(error) => return error.into_response(),
    };
    let config = web.handle.config();
    let eliminations = tournament
        .eliminations
        .iter()
        .map(|e| EliminationRow {
            players: joined(&e.players),
            positions: if e.first == e.last { format!("{}.º", e.first) } else { format!("{}.º a {}.º", e.first, e.last) },
            amounts: joined(e.amounts.iter().map(|amount| view::pesos(*amount))),
            table: e.table.clone(),
            hand: e.hand,
            tie: crate::grpc::tournament_tie(e.tie),
            by: by(&config, &e.by),
        })
        .collect();
    let disqualifications = tournament
        .disqualifications
        .iter()
        .map(|d| DisqualificationRow {
            player: d.player,
            reason: d.reason.clone(),
            position: format!("{}.º", d.position),
            forfeited: view::pesos(d.forfeited),
            shared: joined(d.shared.iter().map(|(order, amount)| format!("{order}: {}", view::pesos(*amount)))),
            by: by(&config, &d.by),
        })
        .collect();
    let seals = tournament
        .seals
        .iter()
        .map(|s| SealRow {
            player: s.player,
            chips: chips(s.chips),
            receipt: s.receipt.clone(),
            jornada: s.jornada,
            by: by(&config, &s.by),
        })
        .collect();
    let draws = tournament
        .seat_draws
        .iter()
        .map(|d| {
            let mut seating: Vec<(u64, String, u32)> = d.seating.iter().map(|s| (s.order, s.table.to_string(), s.seat)).collect();
            seating.sort_by(|a, b| (&a.1, a.2).cmp(&(&b.1, b.2)));
            DrawRow {
                draw: d.draw,
                reason: d.reason.to_string(),
                commitment: d.commitment.clone(),
                committed_at: d.committed_at,
                nonce: d.nonce.clone(),
                tables: joined(d.tables.iter().map(|t| format!("{}:{}", t.table, t.seats.len()))),
                seating,
                by: by(&config, &d.by),
            }
        })
        .collect();
    page(&DirectorPage {
        session,
        head: head(&tournament),
        pool: pool(&tournament),
        players: tournament.players.values().map(|player| player_row(&config, player)).collect(),
        active: joined(tournament.active()),
        eliminations,
        disqualifications,
        seals,
        draws,
        next_draw: tournament.seat_commitment.as_ref().map_or(0, |c| c.draw),
        next_commitment: tournament.seat_commitment.as_ref().map(|c| c.commitment.clone()).unwrap_or_default(),
        closed_registration: tournament.registration_closed.as_ref().map(|actor| by(&config, actor)).unwrap_or_default(),
        closed_rebuys: tournament.rebuys_closed.as_ref().map(|actor| by(&config, actor)).unwrap_or_default(),
    })
    .into_response()
}

/// Every form of the director's page: each action reads the fields it needs.
#[derive(Deserialize)]
struct DirectorForm {
    csrf: Option<String>,
    #[serde(default)]
    jugadores: String,
    #[serde(default)]
    mesa: String,
    #[serde(default)]
    mano: String,
    #[serde(default)]
    simultanea: Option<String>,
    #[serde(default)]
    jugador: String,
    #[serde(default)]
    motivo: String,
    #[serde(default)]
    fichas: String,
    #[serde(default)]
    recibo: String,
    #[serde(default)]
    jornada: String,
    #[serde(default)]
    mesas: String,
}

/// "T1:9, T2:9": each table and its seats, 1 to n.
fn tables(text: &str) -> Result<Vec<pb::TournamentTable>, PageError> {
    let bad = |part: &str| {
        PageError::bad_request(format!(
            "mesas: `{}` no es mesa:asientos (por ejemplo `T1:9, T2:9`, de 1 a {SEATS_MAX} asientos)",
            view::bounded(part)
        ))
    };
    text.split(',')
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .map(|part| {
            let (table, seats) = part.split_once(':').ok_or_else(|| bad(part))?;
            let seats: u32 = seats.trim().parse().map_err(|_| bad(part))?;
            if table.trim().is_empty() || !(1..=SEATS_MAX).contains(&seats) {
                return Err(bad(part));
            }
            Ok(pb::TournamentTable { table: table.trim().to_owned(), seats: (1..=seats).collect() })
        })
        .collect()
}

fn director_command(id: &str, action: &str, form: &DirectorForm) -> Result<C, PageError> {
    let tournament_id = id.to_owned();
    Ok(match action {
        // Res. 123/2013 art. 65: the entrants fixed at the close of registration.
        "cerrar-inscripcion" => C::CloseRegistration(pb::TournamentClose { tournament_id }),
        // Res. 123/2013 art. 64: the pool fixed at the end of the rebuy and add-on period.
        "cerrar-recompras" => C::CloseRebuys(pb::TournamentClose { tournament_id }),
        // Res. 123/2013 art. 71, 72: several players in one record share their positions' prizes.
        "eliminar" => {
            let players = form
                .jugadores
                .split([',', ' '])
                .filter(|part| !part.trim().is_empty())
                .map(|part| number("jugadores", part))
                .collect::<Result<Vec<u32>, _>>()?;
            if players.is_empty() {
                return Err(PageError::bad_request(
                    "jugadores: el número de orden de cada jugador eliminado (por ejemplo `7` o `3, 4`)",
                ));
            }
            C::Eliminate(pb::TournamentElimination {
                tournament_id,
                players,
                table: form.mesa.trim().to_owned(),
                hand: number("mano", &form.mano)?,
                simultaneous: form.simultanea.is_some(),
            })
        }
        // Res. 123/2013 Anexo II: chips withdrawn; a prize in the money shared among the active players.
        "descalificar" => C::Disqualify(pb::TournamentDisqualification {
            tournament_id,
            player: number("jugador", &form.jugador)?,
            reason: form.motivo.trim().to_owned(),
        }),
        // Res. 123/2013 Anexo IV 7.3.2: a player's chips counted and sealed against a receipt.
        "precintar" => C::SealChips(pb::TournamentChipSeal {
            tournament_id,
            player: number("jugador", &form.jugador)?,
            chips: number("fichas", &form.fichas)?,
            receipt: form.recibo.trim().to_owned(),
            jornada: number("jornada", &form.jornada)?,
        }),
        // Res. 123/2013 art. 11, 15, 88; Anexo IV 8.1: seats drawn at random, the nonce committed before.
        "sortear" => C::DrawSeats(pb::TournamentSeatDraw {
            tournament_id,
            reason: form.motivo.trim().to_owned(),
            tables: tables(&form.mesas)?,
        }),
        other => return Err(PageError::not_found(format!("No existe la acción `{}` del director.", view::bounded(other)))),
    })
}

async fn direct(
    State(web): State<Web>,
    jar: CookieJar,
    Path((id, action)): Path<(String, String)>,
    Form(form): Form<DirectorForm>,
) -> Response {
    let back = format!("/torneos/{}/director", view::bounded(&id));
    let session = match person(&web, &jar, DIRECTORS, &back, form.csrf.as_deref()) {
        Ok(session) => session,
        Err(response) => return response,
    };
    async {
        let command = director_command(&id, &action, &form)?;
        let tournament = submit(&web, &session, command).await?;
        Ok::<_, PageError>(back_to(format!("/torneos/{}/director#registros", tournament.id)))
    }
    .await
    .unwrap_or_else(IntoResponse::into_response)
}

pub(super) fn routes() -> axum::Router<Web> {
    axum::Router::new()
        .route("/torneos", get(list))
        .route("/torneos/{id}", get(cashier))
        .route("/torneos/{id}/compras", post(purchase))
        .route("/torneos/{id}/compras/{order}/vale", get(receipt))
        .route("/torneos/{id}/compras/{order}/devolver", post(refund))
        .route("/torneos/{id}/premios", post(pay))
        .route("/torneos/{id}/premios/{player}/confirmar", post(confirm))
        .route("/torneos/{id}/director", get(director))
        .route("/torneos/{id}/director/{action}", post(direct))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seat_draw_reads_its_tables_and_refuses_what_is_not_one() {
        let read = tables("T1:9, T2:3").expect("two tables");
        assert_eq!(read.len(), 2);
        assert_eq!((read[0].table.as_str(), read[0].seats.len()), ("T1", 9));
        assert_eq!(read[1].seats, [1, 2, 3]);
        assert_eq!(
            (chips(0), chips(999), chips(10_000), chips(1_234_567)),
            ("0".into(), "999".into(), "10.000".into(), "1.234.567".into())
        );
        for bad in ["T1", "T1:0", "T1:x", ":9", "T1:100"] {
            let error = tables(bad).expect_err(bad);
            assert!(error.message.starts_with("mesas: "), "{}", error.message);
        }
    }
}
