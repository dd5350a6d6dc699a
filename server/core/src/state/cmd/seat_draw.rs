//! A tournament's seat draws (Res. 123/2013 art. 11, 15, 88; Anexo IV 8.1): the controller's
//! commitment to the next draw (`seat_commit`, journaled by the controller itself), and the
//! draw the director asks for, made with the committed nonce the writer fills in.

use crate::state::command::SeatCommitCommand;
use crate::state::refusal::{invalid, not_found, precondition};
use crate::state::tournament::{Actor, SeatCommitment, SeatDraw, Tournament, TournamentPhase};
use crate::state::view::Applied;
use crate::state::{Context, Refusal, State};
use crate::tournament::seats::{self, PlayerRef, SeatDrawHead, SeatDrawReason, TableSeats};

/// The most seat draws one tournament makes (the start, each jornada, three, two and one table).
const SEAT_DRAWS_MAX: usize = 128;

impl State {
    /// The tournaments whose next seat draw is to be committed: (tournament, draw number).
    pub fn seat_commits_due(&self) -> impl Iterator<Item = (&str, u64)> {
        self.data
            .tournaments
            .values()
            .filter(|t| t.seat_commitment.is_none() && t.phase != TournamentPhase::Finished)
            .map(|t| (t.id.as_str(), t.seat_draws.len() as u64 + 1))
    }

    /// The controller's commitment to a tournament's next seat draw (docs/journal.md, "seat_commit").
    pub(in crate::state) fn apply_seat_commit(
        &mut self,
        context: Context,
        command: &SeatCommitCommand,
    ) -> Result<Applied, Refusal> {
        let id = &command.tournament;
        let tournament = self.data.tournaments.get(id).ok_or_else(|| not_found(format!("tournament: no tournament `{id}`")))?;
        let next = tournament.seat_draws.len() as u64 + 1;
        if tournament.seat_commitment.is_some() || command.draw != next || tournament.phase == TournamentPhase::Finished {
            return Err(precondition(format!(
                "draw: `{id}` awaits no commitment to draw {} (next {next}, one open: {})",
                command.draw,
                tournament.seat_commitment.is_some()
            )));
        }
        if crate::state::draw::nonce_of(&command.commitment).is_none() {
            return Err(invalid("commitment: 64 hex digits"));
        }
        super::tournament_fields::sealed(&command.sealed)?;
        let mut after = (**tournament).clone();
        after.seat_commitment = Some(SeatCommitment {
            draw: command.draw,
            commitment: command.commitment.clone(),
            sealed: command.sealed.clone(),
            at: context.sequence,
        });
        self.data.tournaments.insert(after.id.clone(), std::sync::Arc::new(after.clone()));
        Ok(Applied::Tournament(Box::new(after)))
    }
}

/// Tables and seats drawn with the committed nonce (art. 11, 15, 88; Anexo IV 8.1): the nonce
/// must open the commitment journaled before, and the state computes the seating itself.
pub(super) fn draw_seats(
    tournament: &mut Tournament,
    reason: SeatDrawReason,
    tables: &[TableSeats],
    nonce_hex: &str,
    by: Actor,
) -> Result<(), Refusal> {
    if tournament.phase == TournamentPhase::Finished {
        return Err(precondition(format!("tournament: `{}` is finished: no seats to draw", tournament.id))
            .castellano(format!("El torneo {} terminó: no hay ubicaciones que sortear.", tournament.id)));
    }
    if tournament.seat_draws.len() >= SEAT_DRAWS_MAX {
        return Err(precondition(format!(
            "tournament: `{}` has made {SEAT_DRAWS_MAX} seat draws, the most one makes",
            tournament.id
        ))
        .castellano(format!("El torneo {} ya hizo {SEAT_DRAWS_MAX} sorteos de ubicaciones, el máximo.", tournament.id)));
    }
    let Some(open) = tournament.seat_commitment.clone() else {
        return Err(precondition(format!(
            "tournament: `{}` has no seat draw committed yet: the controller commits one first (Res. 123/2013 art. 11)",
            tournament.id
        ))
        .castellano(format!("El sorteo de ubicaciones del torneo {} aún no está comprometido: reintente.", tournament.id)));
    };
    let wanted = match reason {
        SeatDrawReason::Inicio => (open.draw == 1).then_some(()).ok_or(
            "`inicio` is the tournament's first draw only (art. 11); later ones are `jornada N`, `tres mesas`, `dos mesas`, `mesa final`",
        ),
        SeatDrawReason::Jornada(_) => (open.draw > 1).then_some(()).ok_or("the first draw is `inicio` (art. 11)"),
        SeatDrawReason::TresMesas => (tables.len() == 3).then_some(()).ok_or("`tres mesas` seats three tables (art. 88)"),
        SeatDrawReason::DosMesas => (tables.len() == 2).then_some(()).ok_or("`dos mesas` seats two tables (art. 88)"),
        SeatDrawReason::MesaFinal => (tables.len() == 1).then_some(()).ok_or("`mesa final` seats one table (art. 88)"),
    };
    if let Err(rule) = wanted {
        return Err(invalid(format!("reason: `{reason}` for draw {}: {rule}", open.draw))
            .castellano(format!("El motivo «{reason}» no corresponde a este sorteo: {rule}.")));
    }
    if tables.is_empty() || tables.len() > 64 {
        return Err(invalid("tables: 1 to 64 tables, each with its seats")
            .castellano("Indique de 1 a 64 mesas, cada una con sus asientos."));
    }
    let nonce = crate::state::draw::nonce_of(nonce_hex).ok_or_else(|| {
        invalid("nonce: 64 hex digits, filled in by the controller").castellano("Falta el número del sorteo: reintente.")
    })?;
    let head = SeatDrawHead { tournament: tournament.id.clone(), draw: open.draw, reason };
    if hex::encode(seats::commitment(&head, &nonce)) != open.commitment {
        return Err(precondition(format!(
            "nonce: does not open draw {}'s commitment of entry {} (Res. 123/2013 art. 11, 15, 88)",
            open.draw, open.at
        ))
        .castellano("El sorteo no coincide con el comprometido: no se ubica a nadie. Avise al jefe de sala."));
    }
    let players: Vec<u64> = tournament.to_seat();
    let refs: Vec<PlayerRef> = players.iter().map(|order| PlayerRef { order: *order }).collect();
    let seating = seats::assign(&nonce, &refs, tables).map_err(|error| {
        invalid(format!("tables: {error}")).castellano(format!("Las mesas indicadas no sirven para el sorteo: {error}"))
    })?;
    tournament.seat_draws.push(SeatDraw {
        draw: open.draw,
        reason,
        commitment: open.commitment,
        committed_at: open.at,
        nonce: nonce_hex.to_owned(),
        players,
        tables: tables.to_vec(),
        seating,
        by,
    });
    tournament.seat_commitment = None;
    Ok(())
}
