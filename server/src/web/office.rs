//! The Venta-Pagos office (3.5.2, 11.6.1.2, 15.8.2): the pending payout orders, live;
//! confirm with the form number or reject with a reason, each asked twice and journaled
//! with the operator; a printable receipt per decided order; the history by jornada and
//! table, as a page and as CSV.

use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum_extra::extract::CookieJar;
use pozo_engine::Money;
use serde::Deserialize;

use super::auth;
use super::context::Web;
use super::error::{PageError, page};
use super::sessions::Session;
use super::view;
use crate::config::{Config, Role};
use pozo_core::jornada::jornada_and_hour;
use pozo_core::state::{Applied, Command, OfficeCommand, OfficeOp, OrderFacts, OrderStatus, PayoutOrder};
use pozo_engine::money::plain_text;

/// Who sees the office pages; only [`Role::Office`] decides.
const OFFICE_READERS: &[Role] = &[Role::Office, Role::Supervisor];
const DECIDERS: &[Role] = &[Role::Office];
/// The most orders a history page or CSV lists.
const HISTORY_MAX: usize = 5000;

/// A payout order as the office pages show it.
struct OrderRow {
    id: String,
    pool: String,
    pool_name: String,
    table: String,
    seat: u32,
    round: u64,
    code: String,
    prize_name: String,
    /// The level the prize is paid from ("Grand"; docs/readings.md, "Levels"): empty in a pool of
    /// one level.
    level: String,
    amount: String,
    /// The amount as the decision must repeat it ("8329.00").
    amount_plain: String,
    marked: String,
    marked_ms: u64,
    jornada: String,
    age: String,
    status: &'static str,
    pending: bool,
    operator_id: String,
    operator_name: String,
    form_number: String,
    reason: String,
    journal_sequence: u64,
    resolved_sequence: u64,
    decided: String,
}

fn row(config: &Config, order: &PayoutOrder, now_ms: u64) -> OrderRow {
    let facts = &order.facts;
    OrderRow {
        id: order.order_id.clone(),
        pool: facts.pool.to_string(),
        pool_name: view::pool_name(config, &facts.pool),
        table: facts.table_id.to_string(),
        seat: facts.seat,
        round: facts.round,
        code: facts.code.to_string(),
        prize_name: view::prize_name(config, &facts.pool, &facts.code),
        level: config
            .rulebooks
            .pool(&facts.pool)
            .map(|rules| crate::read::signs::paid_from(rules, &facts.code).0)
            .unwrap_or_default(),
        amount: view::pesos(facts.amount),
        amount_plain: plain_text(facts.amount),
        marked: view::moment(config, order.time_ms),
        marked_ms: order.time_ms,
        jornada: jornada_and_hour(config, order.time_ms).0,
        age: view::age(now_ms, order.time_ms),
        status: order.status.spanish(),
        pending: order.status == OrderStatus::Pending,
        operator_id: order.operator_id.clone(),
        operator_name: order.operator_name.clone(),
        form_number: order.form_number.clone(),
        reason: order.reason.clone(),
        journal_sequence: order.journal_sequence,
        resolved_sequence: order.resolved_sequence,
        decided: view::moment(config, order.decided_ms),
    }
}

/// The orders `keep` wants, as of the last durable batch (crate::read).
fn orders(web: &Web, keep: impl Fn(&PayoutOrder) -> bool) -> Vec<PayoutOrder> {
    web.handle.read().orders().filter(|order| keep(order)).cloned().collect()
}

fn pending_rows(web: &Web) -> Vec<OrderRow> {
    let now = web.handle.now_ms();
    let config = web.handle.config();
    web.handle.read().pending_orders().map(|order| row(&config, order, now)).collect()
}

fn find_order(web: &Web, id: &str) -> Result<PayoutOrder, PageError> {
    web.handle
        .read()
        .order(id)
        .cloned()
        .ok_or_else(|| PageError::not_found(format!("No existe la orden de pago `{}`.", view::bounded(id))))
}

#[derive(askama::Template)]
#[template(path = "venta_pagos.html")]
struct OfficePage {
    session: Session,
    orders: Vec<OrderRow>,
    decides: bool,
    /// Tournament prizes PENDIENTE DE PAGO (Res. 123/2013 art. 66): confirmed on `/torneos`.
    tournament_prizes: usize,
}

#[derive(askama::Template)]
#[template(path = "pendientes.html")]
struct PendingFragment {
    orders: Vec<OrderRow>,
}

async fn office(State(web): State<Web>, jar: CookieJar) -> Response {
    let session = match auth::require(&web, &jar, OFFICE_READERS, "/venta-pagos") {
        Ok(session) => session,
        Err(response) => return response,
    };
    let result = async {
        let orders = pending_rows(&web);
        let decides = DECIDERS.contains(&session.role);
        let tournament_prizes = super::torneos::pending_count(&web);
        page(&OfficePage { session, orders, decides, tournament_prizes })
    };
    result.await.into_response()
}

async fn pending(State(web): State<Web>, jar: CookieJar) -> Response {
    if let Err(response) = auth::require(&web, &jar, OFFICE_READERS, "/venta-pagos") {
        return response;
    }
    async { page(&PendingFragment { orders: pending_rows(&web) }) }.await.into_response()
}

#[derive(askama::Template)]
#[template(path = "orden.html")]
struct OrderPage {
    session: Session,
    order: OrderRow,
    decides: bool,
}

async fn order(State(web): State<Web>, jar: CookieJar, Path(id): Path<String>) -> Response {
    let session = match auth::require(&web, &jar, OFFICE_READERS, &format!("/venta-pagos/ordenes/{id}")) {
        Ok(session) => session,
        Err(response) => return response,
    };
    async {
        let order = row(&web.handle.config(), &find_order(&web, &id)?, web.handle.now_ms());
        let decides = DECIDERS.contains(&session.role);
        page(&OrderPage { session, order, decides })
    }
    .await
    .into_response()
}

/// A decision's form: the CSRF token, what was decided, the facts the operator was
/// shown (repeated by the confirmation step) and whether it was confirmed.
#[derive(Deserialize)]
struct DecisionForm {
    csrf: Option<String>,
    #[serde(default)]
    formulario: String,
    #[serde(default)]
    motivo: String,
    #[serde(default)]
    confirmado: String,
    #[serde(default)]
    pozo: String,
    #[serde(default)]
    mesa: String,
    #[serde(default)]
    asiento: String,
    #[serde(default)]
    ronda: String,
    #[serde(default)]
    premio: String,
    #[serde(default)]
    monto: String,
}

impl DecisionForm {
    /// The facts the operator was shown, as the state machine checks them.
    fn facts(&self) -> Result<OrderFacts, PageError> {
        let number = |field: &str, text: &str| {
            text.trim()
                .parse::<u64>()
                .map_err(|_| PageError::bad_request(format!("{field}: `{}` no es un número", view::bounded(text))))
        };
        let seat =
            u32::try_from(number("asiento", &self.asiento)?).map_err(|_| PageError::bad_request("asiento: fuera de rango"))?;
        let amount: Money = self.monto.trim().parse().map_err(|_| {
            PageError::bad_request(format!("monto: `{}` no es un importe (\"8329.00\")", view::bounded(&self.monto)))
        })?;
        for (field, text) in [("pozo", &self.pozo), ("mesa", &self.mesa), ("premio", &self.premio)] {
            if text.is_empty() || text.len() > 64 {
                return Err(PageError::bad_request(format!("{field}: falta, o pasa de 64 caracteres")));
            }
        }
        Ok(OrderFacts {
            pool: self.pozo.clone().into(),
            table_id: self.mesa.clone().into(),
            seat,
            round: number("ronda", &self.ronda)?,
            code: self.premio.clone().into(),
            amount,
        })
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Decision {
    Confirm,
    Reject,
}

#[derive(askama::Template)]
#[template(path = "confirmar.html")]
struct ConfirmStep {
    session: Session,
    order: OrderRow,
    confirm: bool,
    form_number: String,
    reason: String,
}

async fn decide(web: Web, jar: CookieJar, id: String, form: DecisionForm, decision: Decision) -> Result<Response, PageError> {
    let session = match auth::require(&web, &jar, OFFICE_READERS, &format!("/venta-pagos/ordenes/{id}")) {
        Ok(session) => session,
        Err(response) => return Ok(response),
    };
    auth::check_csrf(&session, form.csrf.as_deref())?;
    if !DECIDERS.contains(&session.role) {
        return Err(PageError::new(
            StatusCode::FORBIDDEN,
            format!(
                "{} ({}) no es operador de Venta-Pagos: sólo un operador confirma o rechaza (3.5.2).",
                session.name, session.key_id
            ),
        ));
    }
    let expect = form.facts()?;
    let form_number = form.formulario.trim().to_owned();
    let reason = form.motivo.trim().to_owned();
    match decision {
        Decision::Confirm if form_number.is_empty() || form_number.chars().count() > 64 => {
            return Err(PageError::bad_request("formulario: el número de formulario es obligatorio (1 a 64 caracteres, 3.5.2)"));
        }
        Decision::Reject if reason.is_empty() || reason.chars().count() > 256 => {
            return Err(PageError::bad_request("motivo: el motivo del rechazo es obligatorio (1 a 256 caracteres)"));
        }
        _ => {}
    }
    let order = find_order(&web, &id)?;
    if form.confirmado != "si" {
        // The first step: the operator reads the order again and confirms.
        let order = row(&web.handle.config(), &order, web.handle.now_ms());
        return page(&ConfirmStep { session, order, confirm: decision == Decision::Confirm, form_number, reason });
    }
    let Some(key) = web.handle.key(&session.key_id) else {
        return Err(PageError::new(StatusCode::FORBIDDEN, "Su clave ya no está en el archivo de claves: vuelva a ingresar."));
    };
    let op = match decision {
        Decision::Confirm => OfficeOp::Confirm { order_id: id.clone(), form_number, expect },
        Decision::Reject => OfficeOp::Reject { order_id: id.clone(), reason, expect },
    };
    let command = Command::Office(OfficeCommand { key_id: key.id.clone(), operator_name: key.name.clone(), op });
    match web.handle.submit(command).await? {
        Ok(Applied::Office(order) | Applied::OfficeDuplicate(order)) => {
            tracing::info!(order = %order.order_id, by = %session.key_id, status = order.status.spanish(), "pages: payout order decided");
            Ok(Redirect::to(&format!("/venta-pagos/ordenes/{}/comprobante", order.order_id)).into_response())
        }
        Ok(_) => Err(PageError::new(StatusCode::INTERNAL_SERVER_ERROR, "El controlador respondió otra cosa.")),
        Err(refusal) => {
            // Someone else decided first: say who, in the office's words.
            let now = find_order(&web, &id)?;
            if now.status != OrderStatus::Pending {
                let config = web.handle.config();
                return Err(PageError::new(
                    StatusCode::CONFLICT,
                    format!(
                        "La orden {} ya fue {} por {} ({}) el {}, asiento {} del registro. No se registró su decisión.",
                        now.order_id,
                        now.status.spanish(),
                        now.operator_name,
                        now.operator_id,
                        view::moment(&config, now.decided_ms),
                        now.resolved_sequence
                    ),
                ));
            }
            Err(PageError::from(refusal))
        }
    }
}

async fn confirm(State(web): State<Web>, jar: CookieJar, Path(id): Path<String>, Form(form): Form<DecisionForm>) -> Response {
    decide(web, jar, id, form, Decision::Confirm).await.into_response()
}

async fn reject(State(web): State<Web>, jar: CookieJar, Path(id): Path<String>, Form(form): Form<DecisionForm>) -> Response {
    decide(web, jar, id, form, Decision::Reject).await.into_response()
}

#[derive(askama::Template)]
#[template(path = "comprobante.html")]
struct Receipt {
    casino: String,
    journal_id: String,
    order: OrderRow,
    confirmed: bool,
    printed: String,
}

async fn receipt(State(web): State<Web>, jar: CookieJar, Path(id): Path<String>) -> Response {
    if let Err(response) = auth::require(&web, &jar, OFFICE_READERS, &format!("/venta-pagos/ordenes/{id}/comprobante")) {
        return response;
    }
    async {
        let order = find_order(&web, &id)?;
        if order.status == OrderStatus::Pending {
            return Err(PageError::new(
                StatusCode::CONFLICT,
                format!("La orden {} está pendiente: el comprobante se emite cuando se confirma o rechaza.", order.order_id),
            ));
        }
        let config = web.handle.config();
        page(&Receipt {
            casino: config.layout.casino.clone(),
            journal_id: web.handle.journal_id().to_owned(),
            confirmed: order.status == OrderStatus::Confirmed,
            order: row(&config, &order, web.handle.now_ms()),
            printed: view::moment(&config, web.handle.now_ms()),
        })
    }
    .await
    .into_response()
}

#[derive(Deserialize, Default)]
struct HistoryQuery {
    #[serde(default)]
    jornada: String,
    #[serde(default)]
    mesa: String,
}

impl HistoryQuery {
    fn check(&self, config: &Config) -> Result<(), PageError> {
        view::check_jornada(&self.jornada)?;
        if !self.mesa.is_empty() && config.table(&self.mesa).is_none() {
            return Err(PageError::not_found(format!("mesa: no existe la mesa `{}`", view::bounded(&self.mesa))));
        }
        Ok(())
    }
}

async fn history_rows(web: &Web, query: &HistoryQuery) -> Result<Vec<OrderRow>, PageError> {
    let config = web.handle.config();
    query.check(&config)?;
    let (jornada, table) = (query.jornada.clone(), query.mesa.clone());
    let mut orders = orders(web, |order| {
        (table.is_empty() || order.facts.table_id == table)
            && (jornada.is_empty() || jornada_and_hour(&config, order.time_ms).0 == jornada)
    });
    orders.reverse();
    orders.truncate(HISTORY_MAX);
    let now = web.handle.now_ms();
    Ok(orders.iter().map(|order| row(&config, order, now)).collect())
}

#[derive(askama::Template)]
#[template(path = "historial.html")]
struct HistoryPage {
    session: Session,
    orders: Vec<OrderRow>,
    jornada: String,
    mesa: String,
    tables: Vec<String>,
    csv: String,
}

fn history_link(query: &HistoryQuery) -> String {
    serde_urlencoded::to_string([("jornada", &query.jornada), ("mesa", &query.mesa)]).unwrap_or_default()
}

async fn history(State(web): State<Web>, jar: CookieJar, Query(query): Query<HistoryQuery>) -> Response {
    let session = match auth::require(&web, &jar, OFFICE_READERS, "/venta-pagos/historial") {
        Ok(session) => session,
        Err(response) => return response,
    };
    async {
        let orders = history_rows(&web, &query).await?;
        page(&HistoryPage {
            session,
            orders,
            csv: format!("/venta-pagos/historial.csv?{}", history_link(&query)),
            tables: web.handle.config().layout.tables.iter().map(|table| table.id.to_string()).collect(),
            jornada: query.jornada,
            mesa: query.mesa,
        })
    }
    .await
    .into_response()
}

async fn history_csv(State(web): State<Web>, jar: CookieJar, Query(query): Query<HistoryQuery>) -> Response {
    if let Err(response) = auth::require(&web, &jar, OFFICE_READERS, "/venta-pagos/historial") {
        return response;
    }
    async {
        let orders = history_rows(&web, &query).await?;
        let body = view::csv(
            &[
                "orden",
                "jornada",
                "marcada",
                "pozo",
                "mesa",
                "posicion",
                "ronda",
                "premio",
                "importe",
                "estado",
                "operador",
                "nombre",
                "formulario",
                "motivo",
                "decidida",
                "registro_marcado",
                "registro_decision",
            ],
            orders.into_iter().map(|order| {
                vec![
                    order.id,
                    order.jornada,
                    order.marked,
                    order.pool,
                    order.table,
                    order.seat.to_string(),
                    order.round.to_string(),
                    order.code,
                    order.amount_plain,
                    order.status.to_owned(),
                    order.operator_id,
                    order.operator_name,
                    order.form_number,
                    order.reason,
                    order.decided,
                    order.journal_sequence.to_string(),
                    order.resolved_sequence.to_string(),
                ]
            }),
        );
        let name = match (query.jornada.as_str(), query.mesa.as_str()) {
            ("", "") => "venta-pagos.csv".to_owned(),
            (jornada, "") => format!("venta-pagos-{jornada}.csv"),
            ("", mesa) => format!("venta-pagos-mesa-{mesa}.csv"),
            (jornada, mesa) => format!("venta-pagos-{jornada}-mesa-{mesa}.csv"),
        };
        Ok::<_, PageError>(view::csv_response(&name, body))
    }
    .await
    .into_response()
}

pub(super) fn routes() -> axum::Router<Web> {
    axum::Router::new()
        .route("/venta-pagos", get(office))
        .route("/venta-pagos/pendientes", get(pending))
        .route("/venta-pagos/historial", get(history))
        .route("/venta-pagos/historial.csv", get(history_csv))
        .route("/venta-pagos/ordenes/{id}", get(order))
        .route("/venta-pagos/ordenes/{id}/confirmar", post(confirm))
        .route("/venta-pagos/ordenes/{id}/rechazar", post(reject))
        .route("/venta-pagos/ordenes/{id}/comprobante", get(receipt))
}
