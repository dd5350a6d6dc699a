//! `/torneos/{id}/compras/{order}/vale`: the "vale de compra de fichas" (Anexo IV 1.2), the one
//! page that shows the document in full.

use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum_extra::extract::CookieJar;
use pozo_core::tournament::identity::Identity;

use super::{CASHIERS, Head, by, chips, find, head, item_spanish};
use crate::web::context::Web;
use crate::web::error::{PageError, page};
use crate::web::{auth, view};

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
pub(super) async fn receipt(State(web): State<Web>, jar: CookieJar, Path((id, order)): Path<(String, u32)>) -> Response {
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
