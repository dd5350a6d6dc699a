//! A seat closed to the progressive because its light does not work, and opened again
//! (AJ 2.5.6.1; the light is the proof of the bet, 11.11.5, 15.14.5.1).

use pozo_engine::TableId;

use crate::state::model::{Bet, Phase};
use crate::state::refusal::precondition;
use crate::state::{Context, Done, Refusal, State, jornada_and_hour};

impl State {
    /// AJ 2.5.6.1: "si una posición de la mesa presenta dispositivos luminosos defectuosos
    /// o que no funcionan correctamente, deberá ser cerrada, no pudiendo participar en el
    /// pozo progresivo". Its credits are paid back with the close (12.5.3.5).
    pub(in crate::state) fn close_seat(
        &mut self,
        context: Context,
        table_id: &TableId,
        seat_number: u32,
    ) -> Result<Done, Refusal> {
        let table = &self.data.tables[table_id];
        let side_bet = self.pool(&table.pool).rules().side_bet_for(table.game);
        table.require_open()?;
        let seat = table.seat(seat_number)?;
        if seat.closed {
            return Err(precondition(format!("seat {seat_number} is already closed to the progressive (AJ 2.5.6.1)"))
                .castellano(format!("Box {seat_number}: ya está cerrado al pozo (AJ 2.5.6.1).")));
        }
        if table.phase != Phase::Betting || seat.bet != Bet::None {
            return Err(precondition(format!(
                "seat {seat_number} has a side bet or the round is in play: void or refund it and FINALIZAR JUEGO before closing the seat (AJ 2.5.6.1, 4.3.2)"
            ))
            .castellano(format!(
                "Box {seat_number}: tiene apuesta al pozo o la jugada está en curso; anule o reintegre la apuesta y FINALIZAR JUEGO antes de cerrar el box (AJ 2.5.6.1, 4.3.2)."
            )));
        }
        if seat.grillos() > 0 {
            return Err(precondition(format!("seat {seat_number} holds grillos of a series in play: complete it first (3.8.1)"))
                .castellano(format!(
                    "Posición {seat_number}: tiene grillos de una serie en juego; complétela primero (3.8.1)."
                )));
        }
        let credits = seat.credits;
        let day = jornada_and_hour(&self.config, context.time_ms);
        let seat = self.table_mut(table_id).seat_mut(seat_number);
        seat.closed = true;
        seat.credits = 0;
        let mut outcome = format!("Posición {seat_number} cerrada al pozo: su luz no funciona (AJ 2.5.6.1)");
        if credits > 0 {
            self.book_credits_returned(&day.0, table_id, credits, side_bet);
            let paid = crate::state::spanish_count(credits, "crédito pagado", "créditos pagados");
            outcome.push_str(&format!("; {paid} (12.5.3.5)"));
        }
        Ok((outcome, Vec::new()))
    }

    /// The light mended: the seat plays for the progressive again.
    pub(in crate::state) fn open_seat(&mut self, table_id: &TableId, seat_number: u32) -> Result<Done, Refusal> {
        let table = &self.data.tables[table_id];
        table.require_open()?;
        if !table.seat(seat_number)?.closed {
            return Err(precondition(format!("seat {seat_number} is not closed"))
                .castellano(format!("Box {seat_number}: no está cerrado al pozo.")));
        }
        self.table_mut(table_id).seat_mut(seat_number).closed = false;
        Ok((format!("Posición {seat_number} habilitada al pozo"), Vec::new()))
    }
}
