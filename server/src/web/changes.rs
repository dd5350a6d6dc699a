//! Changes from the sala (docs/operations.md §8): a jefe de sala proposes a change to the
//! configuration in force (a pool's or a prize's setting, a table added, moved, out of or back
//! in service, retired) or a movement of a pool's money (a transfer, a pool retired, an
//! adjustment), with its reason and the regulator's authorisation; another person (another
//! jefe de sala or the inspector) approves it; either of them may withdraw it while it waits.
//!
//! Each step is a `change` command signed with the session's key and journaled exactly as one
//! sent over gRPC (Changes): the state machine says who may do what and refuses the rest (the
//! proposer approving their own change, a missing reason), and the page shows its refusal with
//! the status it maps to. A money setting of a live pool is PROGRAMADO until its moment.

use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum_extra::extract::CookieJar;
use pozo_engine::rulebook::PrizeValue;
use pozo_engine::{Game, Money};
use serde::Deserialize;

use super::auth;
use super::context::Web;
use super::error::{PageError, page};
use super::sessions::Session;
use super::view;
use crate::config::{Config, Edit, POOL_SETTINGS, Role, TableConfig};
use pozo_core::state::proposal::PROPOSAL_TTL_MS;
use pozo_core::state::{Applied, ChangeCommand, ChangeOp, Command, Effect, Person, Proposal, ProposalStatus, Proposed};

/// Who sees the changes, approves and withdraws: the jefe de sala and the inspector.
const READERS: &[Role] = &[Role::Supervisor, Role::Inspector];
/// Who proposes: a jefe de sala.
const PROPOSERS: &[Role] = &[Role::Supervisor];
/// The longest text field of a change form, in characters (a reason is checked by the state).
const FIELD_CHARS_MAX: usize = 200;

// ----------------------------------------------------------------------------- a change as the pages show it

/// One who signed a step of a change.
struct PersonRow {
    name: String,
    key_id: String,
    role: &'static str,
    moment: String,
    sequence: u64,
}

fn person_row(config: &Config, person: &Person) -> PersonRow {
    PersonRow {
        name: person.name.clone(),
        key_id: person.key_id.clone(),
        role: if person.role == Role::Inspector.name() { "inspector" } else { "jefe de sala" },
        moment: view::moment(config, person.time_ms),
        sequence: person.sequence,
    }
}

/// A proposal as the sala shows it.
struct ChangeRow {
    id: String,
    status: &'static str,
    /// The label's class (its colour).
    class: &'static str,
    /// What it changes, line by line, in plain Spanish.
    lines: Vec<String>,
    /// When a money setting takes effect; empty when at its approval.
    effect: String,
    reason: String,
    authorisation: String,
    proposed_by: PersonRow,
    approved_by: Option<PersonRow>,
    withdrawn_by: Option<PersonRow>,
    withdrawn_reason: String,
    /// When it expires if nobody approves it.
    expires: String,
    effective: String,
    effective_sequence: u64,
    /// Waiting for a second person, and not expired.
    pending: bool,
    scheduled: bool,
    expired: bool,
    /// Pending, and the viewer is not the one who proposed it.
    approvable: bool,
}

fn change_row(config: &Config, proposal: &Proposal, now_ms: u64, viewer: Option<&Session>) -> ChangeRow {
    let expired = proposal.expired(now_ms);
    let pending = proposal.status == ProposalStatus::Pending && !expired;
    let proposer = &proposal.proposed_by;
    let own = viewer.is_some_and(|viewer| viewer.key_id == proposer.key_id || same_name(&viewer.name, &proposer.name));
    let class = match proposal.status {
        _ if expired => "cerrada",
        ProposalStatus::Pending => "pendiente",
        ProposalStatus::Scheduled => "en-juego",
        ProposalStatus::InForce => "activo",
        ProposalStatus::Withdrawn => "rechazada",
    };
    let lines = match proposal.differences.is_empty() {
        true => vec![view::unbroken(&proposal.summary())],
        false => proposal.differences.iter().map(|difference| view::unbroken(&difference.describe())).collect(),
    };
    ChangeRow {
        id: proposal.proposal_id.clone(),
        status: proposal.status_spanish(now_ms),
        class,
        lines,
        effect: proposal.effect_spanish(),
        reason: proposal.reason.clone(),
        authorisation: proposal.authorisation.clone(),
        proposed_by: person_row(config, proposer),
        approved_by: proposal.approved_by.as_ref().map(|person| person_row(config, person)),
        withdrawn_by: proposal.withdrawn_by.as_ref().map(|person| person_row(config, person)),
        withdrawn_reason: proposal.withdrawn_reason.clone(),
        expires: view::moment(config, proposer.time_ms.saturating_add(PROPOSAL_TTL_MS)),
        effective: view::moment(config, proposal.effective_ms),
        effective_sequence: proposal.effective_sequence,
        pending,
        scheduled: proposal.status == ProposalStatus::Scheduled,
        expired,
        approvable: pending && !own,
    }
}

/// Two names of one person, whatever the case and spacing (as the state compares them).
fn same_name(a: &str, b: &str) -> bool {
    let normal = |name: &str| name.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    normal(a) == normal(b)
}

// ----------------------------------------------------------------------------- the list

#[derive(askama::Template)]
#[template(path = "cambios.html")]
struct ChangesPage {
    session: Session,
    proposes: bool,
    /// What the last step did, after its redirect.
    notice: String,
    /// Why the last step was refused.
    error: String,
    pending: Vec<ChangeRow>,
    scheduled: Vec<ChangeRow>,
    history: Vec<ChangeRow>,
    /// The files in force by their stable names, layout first (docs/operations.md §8).
    files: String,
}

#[derive(Deserialize, Default)]
struct ChangesQuery {
    #[serde(default)]
    cambio: String,
}

/// The changes page; with a refusal, its message and status.
fn changes_page(web: &Web, session: Session, notice: String, error: Option<PageError>) -> Response {
    let config = web.handle.config();
    let now = web.handle.now_ms();
    let model = web.handle.read();
    let (mut pending, mut scheduled, mut history) = (Vec::new(), Vec::new(), Vec::new());
    for proposal in model.proposals() {
        let row = change_row(&config, proposal, now, Some(&session));
        match (row.pending, row.scheduled) {
            (true, _) => pending.push(row),
            (_, true) => scheduled.push(row),
            _ => history.push(row),
        }
    }
    let status = error.as_ref().map_or(StatusCode::OK, |error| error.status);
    let error = error.map(|error| error.message).unwrap_or_default();
    let proposes = PROPOSERS.contains(&session.role);
    let files = config.names_in_force().join(", ");
    rendered(status, &ChangesPage { session, proposes, notice, error, pending, scheduled, history, files })
}

/// A template rendered as a page with `status`.
fn rendered(status: StatusCode, template: &impl askama::Template) -> Response {
    match template.render() {
        Ok(html) => (status, Html(html)).into_response(),
        Err(error) => PageError::from(error).into_response(),
    }
}

async fn changes(State(web): State<Web>, jar: CookieJar, Query(query): Query<ChangesQuery>) -> Response {
    let session = match auth::require(&web, &jar, READERS, "/sala/cambios") {
        Ok(session) => session,
        Err(response) => return response,
    };
    let notice = web
        .handle
        .read()
        .proposal(&query.cambio)
        .map(|proposal| {
            let summary = view::unbroken(&proposal.summary());
            format!("{}: {} — {}", proposal.proposal_id, proposal.status_spanish(web.handle.now_ms()), summary)
        })
        .unwrap_or_default();
    changes_page(&web, session, notice, None)
}

#[derive(askama::Template)]
#[template(path = "cambios_programados.html")]
struct ScheduledBox {
    scheduled: Vec<ChangeRow>,
    pending: usize,
}

/// `/sala/cambios/programados`: the sala's box of scheduled changes (and how many wait for approval).
async fn scheduled_box(State(web): State<Web>, jar: CookieJar) -> Response {
    if let Err(response) = auth::require(&web, &jar, READERS, "/sala") {
        return response;
    }
    let config = web.handle.config();
    let now = web.handle.now_ms();
    let model = web.handle.read();
    let scheduled = model.scheduled().map(|proposal| change_row(&config, proposal, now, None)).collect();
    let pending =
        model.proposals().filter(|proposal| proposal.status == ProposalStatus::Pending && !proposal.expired(now)).count();
    page(&ScheduledBox { scheduled, pending }).into_response()
}

// ----------------------------------------------------------------------------- a step, journaled

/// Journals `op` as the session's person; the proposal as it stands after it.
async fn submit(web: &Web, session: &Session, op: ChangeOp) -> Result<Proposal, PageError> {
    let Some(key) = web.handle.key(&session.key_id) else {
        return Err(PageError::new(StatusCode::FORBIDDEN, "Su clave ya no está en el archivo de claves: vuelva a ingresar."));
    };
    let command = Command::Change(ChangeCommand { key_id: key.id.clone(), op });
    match web.handle.submit(command).await? {
        Ok(Applied::Change(proposal)) => Ok(*proposal),
        Ok(_) => Err(PageError::new(StatusCode::INTERNAL_SERVER_ERROR, "El controlador respondió otra cosa.")),
        Err(refusal) => Err(PageError::from(refusal)),
    }
}

fn done(proposal: &Proposal, by: &Session, what: &'static str) -> Response {
    tracing::info!(proposal = %proposal.proposal_id, by = %by.key_id, status = proposal.status.spanish(), "pages: change {what}");
    Redirect::to(&format!("/sala/cambios?cambio={}", proposal.proposal_id)).into_response()
}

/// Approval or withdrawal: the CSRF token and, to withdraw, the reason.
#[derive(Deserialize, Default)]
struct StepForm {
    csrf: Option<String>,
    #[serde(default)]
    motivo: String,
}

async fn step(web: Web, jar: CookieJar, id: String, form: StepForm, withdraw: bool) -> Response {
    let session = match auth::require(&web, &jar, READERS, "/sala/cambios") {
        Ok(session) => session,
        Err(response) => return response,
    };
    if let Err(error) = auth::check_csrf(&session, form.csrf.as_deref()) {
        return error.into_response();
    }
    if web.handle.read().proposal(&id).is_none() {
        return PageError::not_found(format!("No existe el cambio `{}`.", view::bounded(&id))).into_response();
    }
    let op = match withdraw {
        true => ChangeOp::Withdraw { proposal_id: id, reason: form.motivo },
        false => ChangeOp::Approve { proposal_id: id },
    };
    match submit(&web, &session, op).await {
        Ok(proposal) => done(&proposal, &session, if withdraw { "withdrawn" } else { "approved" }),
        Err(error) => changes_page(&web, session, String::new(), Some(error)),
    }
}

async fn approve(State(web): State<Web>, jar: CookieJar, Path(id): Path<String>, Form(form): Form<StepForm>) -> Response {
    step(web, jar, id, form, false).await
}

async fn withdraw(State(web): State<Web>, jar: CookieJar, Path(id): Path<String>, Form(form): Form<StepForm>) -> Response {
    step(web, jar, id, form, true).await
}

// ----------------------------------------------------------------------------- proposing

/// Every form of the new-change page: `tipo` says which, the others are its fields.
#[derive(Clone, Default, Deserialize)]
#[serde(default)]
struct ProposeForm {
    csrf: Option<String>,
    tipo: String,
    /// The pool (of a setting, an adjustment, a table added or moved; a transfer's source).
    pozo: String,
    /// The pool a transfer or a retired pool's money goes to.
    hacia: String,
    ajuste: String,
    valor: String,
    /// The jornada a money setting takes effect from; empty: after the pool's next top prize.
    jornada: String,
    /// `pool:CODE`.
    premio: String,
    mesa: String,
    flor: String,
    juego: String,
    puestos: String,
    salon: String,
    /// `si` (back in service) or `no` (out of service).
    servicio: String,
    monto: String,
    /// A tournament's `[[torneo]]` (Res. 123/2013 Anexo I art. 1), as config/torneos.toml writes it.
    estructura: String,
    motivo: String,
    autorizacion: String,
}

/// The longest tournament structure the form takes (the form's body is bounded at 16 KiB).
const STRUCTURE_BYTES_MAX: usize = 12_000;

fn bad(message: impl Into<String>) -> PageError {
    PageError::bad_request(message)
}

/// A field that must be filled: trimmed, at most [`FIELD_CHARS_MAX`] characters.
fn required(field: &str, text: &str) -> Result<String, PageError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(bad(format!("{field}: falta")));
    }
    if text.chars().count() > FIELD_CHARS_MAX {
        return Err(bad(format!("{field}: más de {FIELD_CHARS_MAX} caracteres")));
    }
    Ok(text.to_owned())
}

/// An amount as an operator writes it: `1500.00`, `1.500,00`, `$ 1.500,00`, `-250,50`.
fn amount(field: &str, text: &str) -> Result<Money, PageError> {
    let written: String =
        text.chars().filter(|c| !c.is_whitespace() && *c != '$').map(|c| if c == '−' { '-' } else { c }).collect();
    let plain = if written.contains(',') {
        written.replace('.', "").replace(',', ".")
    } else if written.rsplit_once('.').is_some_and(|(_, after)| after.len() == 3) {
        return Err(bad(format!("{field}: `{}` es ambiguo: escriba 1500.00 o 1.500,00", view::bounded(text))));
    } else {
        written
    };
    plain.parse::<Money>().map_err(|_| bad(format!("{field}: `{}` no es un importe (1500.00 o 1.500,00)", view::bounded(text))))
}

impl ProposeForm {
    /// What the form asks for, as the state machine takes it: edits written into the files in force.
    fn proposed(&self, config: &Config) -> Result<Proposed, PageError> {
        let pool = || required("pozo", &self.pozo);
        let table = || required("mesa", &self.mesa);
        let edit = match self.tipo.as_str() {
            "pozo" => Edit::Pool {
                pool_id: pool()?.into(),
                setting: required("ajuste", &self.ajuste)?,
                value: required("valor", &self.valor)?,
            },
            "premio" => self.prize(config)?,
            "mesa-nueva" => Edit::AddTable(self.table()?),
            "mesa-mover" => Edit::MoveTable { table_id: table()?.into(), pool_id: pool()?.into() },
            "mesa-servicio" => Edit::Service {
                table_id: table()?.into(),
                in_service: match self.servicio.as_str() {
                    "si" => true,
                    "no" => false,
                    _ => return Err(bad("servicio: elija fuera de servicio o de vuelta en servicio")),
                },
            },
            "mesa-retirar" => Edit::RetireTable { table_id: table()?.into() },
            "transferencia" => {
                let (from, to) = (pool()?.into(), required("hacia", &self.hacia)?.into());
                return Ok(Proposed::Transfer { from, to, amount: amount("monto", &self.monto)? });
            }
            "retiro-pozo" => {
                return Ok(Proposed::RetirePool { pool: pool()?.into(), to: required("hacia", &self.hacia)?.into() });
            }
            "ajuste" => return Ok(Proposed::Adjust { pool: pool()?.into(), amount: amount("monto", &self.monto)? }),
            // A tournament set up through the same door (Res. 123/2013 Anexo I art. 1): the state
            // checks the structure when proposed and again when approved.
            "torneo" => {
                let text = self.estructura.trim();
                if text.is_empty() || text.len() > STRUCTURE_BYTES_MAX {
                    return Err(bad(format!("estructura: falta, o tiene más de {STRUCTURE_BYTES_MAX} bytes")));
                }
                return Ok(Proposed::Tournament { text: text.to_owned() });
            }
            other => return Err(bad(format!("tipo: `{}` no es un cambio que se proponga aquí", view::bounded(other)))),
        };
        let files = config.edited(&[edit]).map_err(|error| bad(error.to_string()))?;
        Ok(Proposed::Configuration { files, effect: Effect::from_jornada(&self.jornada) })
    }

    /// A paytable line's amount, percent or multiple: whichever the line pays by.
    fn prize(&self, config: &Config) -> Result<Edit, PageError> {
        let chosen = required("premio", &self.premio)?;
        let (pool, code) = chosen.rsplit_once(':').ok_or_else(|| bad("premio: elija un premio de la lista"))?;
        let prize = config
            .rulebooks
            .pool(pool)
            .and_then(|rules| rules.prize(code))
            .ok_or_else(|| bad(format!("premio: el pozo `{pool}` no tiene el premio `{code}`")))?;
        let setting = match prize.value {
            PrizeValue::Fixed { .. } => "amount",
            PrizeValue::Percent { .. } => "percent",
            PrizeValue::BetMultiple { .. } => "multiple",
            PrizeValue::Grant => return Err(bad(format!("premio: `{code}` no paga dinero: no tiene importe que cambiar"))),
        };
        Ok(Edit::Prize {
            pool_id: pool.into(),
            code: code.to_owned(),
            setting: setting.to_owned(),
            value: required("valor", &self.valor)?,
        })
    }

    fn table(&self) -> Result<TableConfig, PageError> {
        let seats = self.puestos.trim();
        let seats = seats.parse::<u32>().map_err(|_| bad(format!("puestos: `{}` no es un número", view::bounded(seats))))?;
        let game = Game::parse(self.juego.trim()).map_err(|problem| bad(format!("juego: {problem}")))?;
        Ok(TableConfig::added(
            &required("mesa", &self.mesa)?,
            &required("flor", &self.flor)?,
            &required("pozo", &self.pozo)?,
            game,
            seats,
            &self.salon,
        ))
    }

    /// What was typed in `field`, if this is the form `tipo` (a refused form keeps its values).
    fn kept(&self, tipo: &str, field: &str) -> &str {
        if self.tipo != tipo {
            return "";
        }
        match field {
            "pozo" => &self.pozo,
            "hacia" => &self.hacia,
            "ajuste" => &self.ajuste,
            "valor" => &self.valor,
            "jornada" => &self.jornada,
            "premio" => &self.premio,
            "mesa" => &self.mesa,
            "flor" => &self.flor,
            "juego" => &self.juego,
            "puestos" => &self.puestos,
            "salon" => &self.salon,
            "servicio" => &self.servicio,
            "monto" => &self.monto,
            "estructura" => &self.estructura,
            "motivo" => &self.motivo,
            "autorizacion" => &self.autorizacion,
            _ => "",
        }
    }
}

async fn propose(State(web): State<Web>, jar: CookieJar, Form(form): Form<ProposeForm>) -> Response {
    let session = match auth::require(&web, &jar, PROPOSERS, "/sala/cambios/nuevo") {
        Ok(session) => session,
        Err(response) => return response,
    };
    if let Err(error) = auth::check_csrf(&session, form.csrf.as_deref()) {
        return error.into_response();
    }
    let proposed = form.proposed(&web.handle.config());
    let result = match proposed {
        Ok(proposed) => {
            let op = ChangeOp::Propose { proposed, reason: form.motivo.clone(), authorisation: form.autorizacion.clone() };
            submit(&web, &session, op).await
        }
        Err(error) => Err(error),
    };
    match result {
        Ok(proposal) => done(&proposal, &session, "proposed"),
        Err(error) => new_page(&web, session, form, Some(error)),
    }
}

// ----------------------------------------------------------------------------- the forms

/// A choice of a list: its value and what the operator reads.
struct Choice {
    value: String,
    label: String,
}

/// A pool's paytable lines that pay money, for the prize form.
struct PrizeGroup {
    pool: String,
    prizes: Vec<Choice>,
}

#[derive(askama::Template)]
#[template(path = "cambio_nuevo.html")]
struct NewPage {
    session: Session,
    error: String,
    kept: ProposeForm,
    pools: Vec<Choice>,
    settings: Vec<Choice>,
    prizes: Vec<PrizeGroup>,
    tables: Vec<Choice>,
    games: Vec<&'static str>,
    salons: Vec<Choice>,
}

impl NewPage {
    /// What was typed in `field` of the form `tipo`, kept after a refusal.
    fn v(&self, tipo: &str, field: &str) -> &str {
        self.kept.kept(tipo, field)
    }

    /// ` selected` for the option `value` of `field` chosen in the form `tipo` before a refusal.
    fn sel(&self, tipo: &str, field: &str, value: &str) -> &'static str {
        if self.kept.kept(tipo, field) == value { " selected" } else { "" }
    }
}

/// A pool setting as the sala reads it, beside its name in the files.
fn setting_label(setting: &str) -> &'static str {
    match setting {
        "name" => "nombre",
        "minimum" => "mínimo",
        "minimum_kind" => "significado del mínimo (floor: piso del cartel; start: sólo el inicial)",
        "side_bet" => "apuesta al pozo",
        "bet_min" => "apuesta mínima",
        "bet_max" => "apuesta máxima",
        "contribution_rate" => "incremento (parte de cada apuesta al pozo)",
        "reserve_rate" => "parte de cada apuesta a la reserva",
        "commission_rate" => "comisión de la casa",
        "instant_card_chance" => "probabilidad del premio instantáneo",
        "venta_pagos_over" => "Venta-Pagos por encima de (todo el reglamento del pozo)",
        _ => "",
    }
}

fn prize_groups(config: &Config) -> Vec<PrizeGroup> {
    let current = |value: &PrizeValue| match value {
        PrizeValue::Fixed { amount } => Some(view::pesos(*amount)),
        PrizeValue::Percent { percent, .. } => Some(format!("{percent} % del pozo")),
        PrizeValue::BetMultiple { multiple } => Some(format!("{multiple} veces la apuesta")),
        PrizeValue::Grant => None,
    };
    let group = |rules: &pozo_engine::rulebook::PoolRules| PrizeGroup {
        pool: format!("{} ({})", rules.name, rules.id),
        prizes: rules
            .prizes
            .iter()
            .filter_map(|prize| {
                let now = current(&prize.value)?;
                Some(Choice {
                    value: format!("{}:{}", rules.id, prize.code),
                    label: format!("{} ({}): {now}", prize.name, prize.code),
                })
            })
            .collect(),
    };
    config.rulebooks.pools().map(group).filter(|group| !group.prizes.is_empty()).collect()
}

fn new_page(web: &Web, session: Session, kept: ProposeForm, error: Option<PageError>) -> Response {
    let config = web.handle.config();
    let pools = config
        .rulebooks
        .pools()
        .map(|rules| Choice { value: rules.id.to_string(), label: format!("{} ({})", rules.name, rules.id) })
        .collect();
    let settings = POOL_SETTINGS
        .iter()
        .copied()
        .chain(["venta_pagos_over"])
        .map(|setting| Choice { value: setting.to_owned(), label: format!("{} ({setting})", setting_label(setting)) })
        .collect();
    let tables = config
        .layout
        .tables
        .iter()
        .map(|table| Choice {
            value: table.id.to_string(),
            label: format!(
                "{} — flor {}, pozo {}{}",
                table.id,
                table.flor,
                table.pool,
                if table.in_service { "" } else { ", FUERA DE SERVICIO" }
            ),
        })
        .collect();
    let salons = config.layout.salons.iter().map(|salon| Choice { value: salon.id.clone(), label: salon.name.clone() }).collect();
    let status = error.as_ref().map_or(StatusCode::OK, |error| error.status);
    let error = error.map(|error| error.message).unwrap_or_default();
    let games = Game::ALL.iter().map(|game| game.name()).collect();
    let prizes = prize_groups(&config);
    rendered(status, &NewPage { session, error, kept, pools, settings, prizes, tables, games, salons })
}

async fn new_change(State(web): State<Web>, jar: CookieJar) -> Response {
    match auth::require(&web, &jar, PROPOSERS, "/sala/cambios/nuevo") {
        Ok(session) => new_page(&web, session, ProposeForm::default(), None),
        Err(response) => response,
    }
}

pub(super) fn routes() -> axum::Router<Web> {
    axum::Router::new()
        .route("/sala/cambios", get(changes).post(propose))
        .route("/sala/cambios/nuevo", get(new_change))
        .route("/sala/cambios/programados", get(scheduled_box))
        .route("/sala/cambios/{id}/aprobar", post(approve))
        .route("/sala/cambios/{id}/retirar", post(withdraw))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pozo_engine::money;

    #[test]
    fn amounts_are_read_as_operators_write_them() {
        assert_eq!(amount("monto", "1500.00").ok(), Some(money!(1500.00)));
        assert_eq!(amount("monto", "$ 1.500,50").ok(), Some(money!(1500.50)));
        assert_eq!(amount("monto", "-250,5").ok(), Some(money!(-250.5)));
        assert_eq!(amount("monto", "− 20").ok(), Some(money!(-20)));
        let ambiguous = amount("monto", "1.500").expect_err("1.5 or 1500?");
        assert!(ambiguous.message.contains("ambiguo"), "{}", ambiguous.message);
        assert!(amount("monto", "mil").expect_err("not an amount").message.starts_with("monto:"));
    }

    #[test]
    fn a_form_becomes_the_files_in_force_with_the_edit() {
        let config = Config::embedded();
        let form = ProposeForm {
            tipo: "pozo".into(),
            pozo: "iplyc-blackjack".into(),
            ajuste: "minimum".into(),
            valor: "6000.00".into(),
            ..ProposeForm::default()
        };
        let Ok(Proposed::Configuration { files, effect }) = form.proposed(&config) else { panic!("a configuration") };
        assert_eq!(effect, Effect::NextTopPrize);
        let after = config.with_files(&files).expect("valid");
        assert_eq!(after.rulebooks.pool("iplyc-blackjack").expect("pool").minimum, money!(6000.00));
        let form =
            ProposeForm { tipo: "premio".into(), premio: "iplyc-blackjack:CUATRO_ASES".into(), valor: "600.00".into(), ..form };
        let Ok(Proposed::Configuration { files, .. }) = form.proposed(&config) else { panic!("a configuration") };
        let after = config.with_files(&files).expect("valid");
        let prize = after.rulebooks.pool("iplyc-blackjack").and_then(|rules| rules.prize("CUATRO_ASES")).expect("prize");
        assert_eq!(prize.value, PrizeValue::Fixed { amount: money!(600.00) });
        let refused = ProposeForm { tipo: "mesa-retirar".into(), ..ProposeForm::default() }.proposed(&config);
        assert_eq!(refused.err().map(|error| error.message), Some("mesa: falta".to_owned()));
    }
}
