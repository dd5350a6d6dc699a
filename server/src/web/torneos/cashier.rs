//! `/torneos/{id}`: the cashier's page, and what it posts: purchases (Anexo IV 1.2, 1.3), refunds
//! while registration is open (Anexo IV 1.4), prize payments against the player's document (art.
//! 66) and the office's confirmation of a prize PENDIENTE DE PAGO.

use axum::Form;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum_extra::extract::CookieJar;
use pozo_core::state::tournament::TournamentPhase;
use pozo_engine::Money;
use pozo_engine::money::plain_text;
use pozo_engine::tournament::Item;
use pozo_proto::v1 as pb;
use pozo_proto::v1::tournament_command::Command as C;
use serde::Deserialize;

use super::{
    CASHIERS, DIRECTORS, Head, Offered, PendingPrize, PlayerRow, PoolView, PurchaseRow, back_to, by, chips, document, head,
    item_spanish, kinds, number, pending_prizes, person, player_row, pool, shown, submit,
};
use crate::web::context::Web;
use crate::web::error::{PageError, page};
use crate::web::sessions::Session;
use crate::web::view;

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

pub(super) async fn cashier(State(web): State<Web>, jar: CookieJar, Path(id): Path<String>) -> Response {
    let (session, tournament) = match shown(&web, &jar, CASHIERS, &format!("/torneos/{}", view::bounded(&id)), &id) {
        Ok(shown) => shown,
        Err(response) => return response,
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
pub(super) struct PurchaseForm {
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

pub(super) async fn purchase(
    State(web): State<Web>,
    jar: CookieJar,
    Path(id): Path<String>,
    Form(form): Form<PurchaseForm>,
) -> Response {
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
pub(super) struct PlainForm {
    csrf: Option<String>,
}

pub(super) async fn refund(
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
pub(super) struct PrizeForm {
    csrf: Option<String>,
    #[serde(default)]
    jugador: String,
    #[serde(default)]
    tipo: String,
    #[serde(default)]
    documento: String,
}

pub(super) async fn pay(State(web): State<Web>, jar: CookieJar, Path(id): Path<String>, Form(form): Form<PrizeForm>) -> Response {
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

pub(super) async fn confirm(
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
