//! The closing sheet (planilla de cierre, `/sala/planilla/{mesa}/{jornada}`): per table and
//! jornada, one printable A4 page with the figures the inspector copies into the forms the
//! articles name, in their words — IPA and PPPA on the Form 4109 (estado de banca) and FP, the
//! grillos at the close (4.7.4–4.7.5; 12.8.4 and 16.10.1.17 at the card tables); IPA and PPPA
//! for the reverse of the Form 4020 (4.7.6; 12.8.5, 16.10.1.18); the credits sold and returned
//! (12.8.1); the hourly statistics of the Form 4218 (2.8.1.2, 4.3.3) — with the table, the
//! jornada, who opened and closed the table, and the journal entries the figures come from.
//!
//! Read by whoever reads the flor's tables (`FLOR_READERS`): the jefe de sala and the inspector,
//! from the jornada's report, and the floor inspector who closes the table and fills the forms
//! (4.7.6), from the flor's page. Printing is the browser's: "Imprimir / Guardar PDF" calls
//! `window.print()` (`static/imprimir.js`), and `static/planilla.css` lays the page out on A4.

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum_extra::extract::CookieJar;
use pozo_core::state::{Grillos, TableAct, TableDay};
use pozo_engine::{Game, Money};

use super::auth;
use super::context::Web;
use super::error::{PageError, page};
use super::sessions::Session;
use super::tables::FLOR_READERS;
use super::view;

pub(super) fn routes() -> axum::Router<Web> {
    axum::Router::new().route("/sala/planilla/{mesa}/{jornada}", axum::routing::get(sheet_page))
}

/// The path of the closing sheet of `table` in `jornada` (`2026-11-27`).
pub(super) fn path(table: &str, jornada: &str) -> String {
    format!("/sala/planilla/{table}/{jornada}")
}

/// The articles each section cites, by the table's game: roulette's section 4, Black Jack's
/// 12.8 and Central Póker's 16.10 name the forms. The other games' regulations name none: their
/// sheets cite the IPLyC card table's (docs/readings.md, "The closing sheet").
struct Articles {
    /// Form 4109: IPA and PPPA.
    estado_de_banca: &'static str,
    /// Form 4020, reverse.
    integracion: &'static str,
    /// The game's own regulation names the forms.
    own: bool,
}

fn articles(game: Game) -> Articles {
    match game {
        Game::RuletaAmericana => Articles { estado_de_banca: "4.7.4", integracion: "4.7.6", own: true },
        Game::Blackjack => Articles { estado_de_banca: "12.8.4", integracion: "12.8.5", own: true },
        Game::CentralPoker => Articles { estado_de_banca: "16.10.1.17", integracion: "16.10.1.18", own: true },
        _ => Articles { estado_de_banca: "12.8.4", integracion: "12.8.5", own: false },
    }
}

/// A seat's grillos at the close (4.7.5).
struct GrilloRow {
    seat: String,
    bronze: u32,
    silver: u32,
    gold: u32,
    total: u32,
}

impl GrilloRow {
    fn of(seat: String, grillos: &Grillos) -> GrilloRow {
        GrilloRow {
            seat,
            bronze: grillos.bronze,
            silver: grillos.silver,
            gold: grillos.gold,
            total: grillos.bronze + grillos.silver + grillos.gold,
        }
    }
}

/// One hour of the Form 4218.
struct HourRow {
    hour: String,
    ipa: String,
    pppa: String,
}

#[derive(askama::Template)]
#[template(path = "planilla.html")]
struct SheetPage {
    session: Session,
    casino: String,
    salon: String,
    flor: String,
    table: String,
    game: &'static str,
    pool: String,
    /// `2026-11-27`, and as printed: `27/11/2026`.
    jornada: String,
    jornada_date: String,
    opened: String,
    closed: String,
    /// The table was closed more than once in the jornada: what the figures add up.
    closings: String,
    /// "Asientos del diario N a M", or why there are none.
    entries: String,
    estado_de_banca: &'static str,
    integracion: &'static str,
    /// The game's regulation names no form: the sheet says whose articles it cites.
    borrowed: bool,
    roulette: bool,
    ipa: String,
    pppa: String,
    fp: u32,
    grillos: Vec<GrilloRow>,
    grillos_total: GrilloRow,
    credits_sold: u64,
    credits_sold_amount: String,
    credits_returned: u64,
    credits_returned_amount: String,
    bets: u64,
    hours: Vec<HourRow>,
    /// What else the jornada's figures hold: reclaimed awards, custody.
    notes: Vec<String>,
    /// No movement of the table in the jornada.
    idle: bool,
    /// The jornada's meters were kept by a release before the sheet: no entries, names or grillos.
    unkept: bool,
    back: String,
    back_text: &'static str,
    printed: String,
}

/// An Apertura or Cierre de Mesa as the sheet names it: who (the floor inspector, or the table's
/// own agent), when, and at which entry.
fn act_text(config: &crate::config::Config, act: Option<&TableAct>, none: &str) -> String {
    let Some(act) = act else { return none.to_owned() };
    let who = if act.inspector_id.is_empty() {
        "— (desde la mesa, sin inspector)".to_owned()
    } else {
        format!("{} ({})", act.inspector_name, act.inspector_id)
    };
    format!("{who}, {} (asiento {})", view::moment(config, act.time_ms), act.sequence)
}

/// The journal entries the figures come from, in the sheet's words.
fn entries_text(day: &TableDay) -> String {
    match day.entries {
        None => "—".to_owned(),
        Some(range) => {
            let mut text = format!("Asientos del diario {} a {}", range.first, range.last);
            if range.generation > 0 {
                text.push_str(&format!(" (diario n.º {} de la cadena de registros)", range.generation + 1));
            }
            if range.earlier {
                text.push_str("; la mesa tiene también asientos de la jornada en el diario anterior");
            }
            text
        }
    }
}

/// `/sala/planilla/{mesa}/{jornada}`: the closing sheet; 404 for a table the layout does not
/// have or a jornada the controller keeps no figures of, 400 for a jornada that is not a date.
async fn sheet_page(State(web): State<Web>, jar: CookieJar, Path((table_id, jornada)): Path<(String, String)>) -> Response {
    let here = format!("/sala/planilla/{}/{}", view::bounded(&table_id), view::bounded(&jornada));
    let session = match auth::require(&web, &jar, FLOR_READERS, &here) {
        Ok(session) => session,
        Err(response) => return response,
    };
    sheet(&web, session, &table_id, &jornada).into_response()
}

fn sheet(web: &Web, session: Session, table_id: &str, jornada: &str) -> Result<Response, PageError> {
    let config = web.handle.config();
    let model = web.handle.read();
    // A table of the layout, or one a change retired: its closing sheets stay (docs/operations.md §8).
    let table = model.table(table_id).ok_or_else(|| {
        PageError::not_found(format!("mesa: no existe la mesa `{}` en la configuración del casino.", view::bounded(table_id)))
    })?;
    let canonical = jiff::civil::Date::strptime("%Y-%m-%d", jornada).ok().map(|_| view::date(jornada));
    if canonical.is_none() || jornada.len() != 10 {
        return Err(PageError::bad_request(format!("jornada: `{}` no es una fecha AAAA-MM-DD", view::bounded(jornada))));
    }
    let now = web.handle.now_ms();
    let today = pozo_core::jornada::jornada_and_hour(&config, now).0;
    let kept: Vec<&str> = model.jornadas().collect();
    if jornada != today && !kept.contains(&jornada) {
        let range = match (kept.last(), kept.first()) {
            (Some(oldest), Some(newest)) => format!("del {} al {}", view::date(oldest), view::date(newest)),
            _ => "todavía ninguna".to_owned(),
        };
        return Err(PageError::not_found(format!(
            "jornada: el controlador no tiene registros de la jornada {}: guarda las últimas 62 jornadas con movimiento ({range}).",
            view::date(jornada)
        )));
    }
    let day = model.day(jornada, table_id);
    let roulette = table.game.is_roulette();
    let articles = articles(table.game);
    let idle = day == TableDay::default();
    let unkept = !idle && day.entries.is_none();
    let seats = table.seats as usize;
    let mut held = day.grillos_at_close.clone();
    if roulette && held.len() < seats {
        held.resize(seats, Grillos::default());
    }
    let grillos: Vec<GrilloRow> =
        held.iter().enumerate().map(|(index, grillos)| GrilloRow::of(format!("Box {}", index + 1), grillos)).collect();
    let total = held.iter().fold(Grillos::default(), |total, seat| Grillos {
        bronze: total.bronze + seat.bronze,
        silver: total.silver + seat.silver,
        gold: total.gold + seat.gold,
    });
    // The hours in the jornada's order: from the hour it starts, round the clock.
    let start = config.layout.jornada_starts_hour;
    let mut hours: Vec<(u32, (Money, Money))> = day.hours.iter().map(|(hour, figures)| (*hour, *figures)).collect();
    hours.sort_by_key(|(hour, _)| (hour + 24 - start % 24) % 24);
    let mut notes = Vec::new();
    if day.pppa_reclaimed != Money::ZERO {
        notes.push(format!(
            "El PPPA ya descuenta {} de premios reintegrados por sus ganadores al anularse una serie (3.7.3).",
            view::pesos(day.pppa_reclaimed)
        ));
    }
    if day.custody_in != Money::ZERO || day.custody_released != Money::ZERO {
        notes.push(format!(
            "En custodia de la Banca (11.8.3, 15.14.5.2): ingresó {}, se entregó {}.",
            view::pesos(day.custody_in),
            view::pesos(day.custody_released)
        ));
    }
    // A layout of one salon names it after the casino: said once.
    let salon = config
        .salon(config.salon_of(table))
        .map(|salon| salon.name.clone())
        .filter(|salon| *salon != config.layout.casino)
        .unwrap_or_default();
    let (back, back_text) = match session.role {
        crate::config::Role::FloorInspector => (format!("/sala/flor/{}", table.flor), "Volver a la flor"),
        _ => (format!("/sala/informe?jornada={jornada}"), "Volver al informe de la jornada"),
    };
    let none = if unkept { "— (no registrada por la versión que llevó la jornada)" } else { "—" };
    let closings = match day.closings {
        0 | 1 => String::new(),
        closings => {
            format!("La mesa se cerró {closings} veces en la jornada: FP y los grillos al cierre suman los {closings} cierres.")
        }
    };
    page(&SheetPage {
        casino: config.layout.casino.clone(),
        salon,
        flor: table.flor.clone(),
        table: table.id.to_string(),
        game: view::game_name(table.game),
        pool: view::pool_name(&config, &table.pool),
        jornada: jornada.to_owned(),
        jornada_date: view::date(jornada),
        opened: act_text(&config, day.opened.as_ref(), if idle || unkept { none } else { "— (la mesa venía abierta)" }),
        closed: act_text(
            &config,
            day.closed.as_ref(),
            if idle || unkept { none } else { "— (la mesa no se cerró en la jornada)" },
        ),
        closings,
        entries: if idle { "Sin asientos de la mesa en la jornada".to_owned() } else { entries_text(&day) },
        estado_de_banca: articles.estado_de_banca,
        integracion: articles.integracion,
        borrowed: !articles.own,
        roulette,
        ipa: view::pesos(day.ipa),
        pppa: view::pesos(day.pppa),
        fp: day.fp,
        grillos,
        grillos_total: GrilloRow::of("Total (FP)".to_owned(), &total),
        credits_sold: day.credits_sold,
        credits_sold_amount: view::pesos(day.credits_sold_amount),
        credits_returned: day.credits_returned,
        credits_returned_amount: view::pesos(day.credits_returned_amount),
        bets: day.bets,
        hours: hours
            .into_iter()
            .map(|(hour, (ipa, pppa))| HourRow {
                hour: format!("{hour:02}:00 a {:02}:00", (hour + 1) % 24),
                ipa: view::pesos(ipa),
                pppa: view::pesos(pppa),
            })
            .collect(),
        notes,
        idle,
        unkept,
        back,
        back_text,
        printed: view::moment(&config, now),
        session,
    })
}
