//! Anular: a bet handed back before it is played (4.3.2).

use crate::state::model::{Bet, Phase};
use crate::state::refusal::precondition;
use crate::state::{Done, Refusal, State};
use pozo_engine::TableId;

impl State {
    pub(in crate::state) fn void_bet(&mut self, table_id: &TableId, seat_number: u32) -> Result<Done, Refusal> {
        let table = &self.data.tables[table_id];
        table.require_open()?;
        let seat = table.seat(seat_number)?;
        if table.phase != Phase::Betting {
            return Err(precondition(
                "a bet is voided before it is played: after INICIAR JUEGO refund the box instead (4.3.2, 11.8.1.2)",
            )
            .castellano(
                "Una apuesta se anula antes de jugarse: después de INICIAR JUEGO, se reintegra el box (4.3.2, 11.8.1.2).",
            ));
        }
        let pool_id = table.pool.clone();
        match seat.bet.clone() {
            Bet::None => Err(precondition(format!("seat {seat_number} has no bet to void (4.3.2)"))
                .castellano(format!("Box {seat_number}: no tiene apuesta para anular (4.3.2)."))),
            Bet::Pressed { credits } => {
                let seat = self.table_mut(table_id).seat_mut(seat_number);
                seat.bet = Bet::None;
                seat.credits += credits;
                Ok((format!("Anulada: posición {seat_number}, {} (4.3.2)", credits_returned(credits)), Vec::new()))
            }
            Bet::Registered { contribution, registered_ms, credits } => {
                // 4.3.2: the bet handed back takes its contribution out of the pool.
                self.reverse_seat_bet(registered_ms, &pool_id, table_id, seat_number, contribution)?;
                self.table_mut(table_id).seat_mut(seat_number).credits += credits;
                Ok((
                    format!("Anulada: posición {seat_number}, aporte revertido, {} (4.3.2)", credits_returned(credits)),
                    Vec::new(),
                ))
            }
        }
    }
}

/// "1 crédito devuelto", "3 créditos devueltos".
fn credits_returned(credits: u32) -> String {
    crate::state::spanish_count(credits, "crédito devuelto", "créditos devueltos")
}
