//! `/torneos/{id}/director`: the director's page (supervisor keys) and its actions: closes (art.
//! 64, 65), eliminations (art. 71, 72), disqualifications (Anexo II), chip seals (Anexo IV 7.3.2)
//! and seat draws (art. 11, 15, 88; Anexo IV 8.1).

use axum::Form;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum_extra::extract::CookieJar;
use pozo_proto::v1 as pb;
use pozo_proto::v1::tournament_command::Command as C;
use serde::Deserialize;

use super::{
    DIRECTORS, Head, PlayerRow, PoolView, SEATS_MAX, back_to, by, chips, head, number, person, player_row, pool, shown, submit,
};
use crate::web::context::Web;
use crate::web::error::{PageError, page};
use crate::web::sessions::Session;
use crate::web::view;

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

pub(super) async fn director(State(web): State<Web>, jar: CookieJar, Path(id): Path<String>) -> Response {
    let (session, tournament) = match shown(&web, &jar, DIRECTORS, &format!("/torneos/{}/director", view::bounded(&id)), &id) {
        Ok(shown) => shown,
        Err(response) => return response,
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
pub(super) struct DirectorForm {
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

pub(super) async fn direct(
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
