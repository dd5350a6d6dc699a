//! A box voided after play started: its side bet refunded (11.8.1.2, 11.8.2).

use pozo_engine::Contribution;
use pozo_engine::{PoolId, TableId};

use crate::state::model::{Bet, Phase};
use crate::state::refusal::{engine_refusal, precondition};
use crate::state::{Done, Refusal, State, jornada_and_hour};

impl State {
    pub(in crate::state) fn refund_bet(&mut self, table_id: &TableId, seat_number: u32) -> Result<Done, Refusal> {
        let table = &self.data.tables[table_id];
        table.require_open()?;
        let seat = table.seat(seat_number)?;
        if table.phase != Phase::Playing {
            return Err(precondition("a box is voided and its side bet refunded after INICIAR JUEGO (11.8.1.2)"));
        }
        // A prize entered, or one already paid in this round (the premio instantáneo,
        // 16.4.2.5.1): a winning box is not voided.
        if table.pending.iter().any(|entry| entry.seat == seat_number)
            || table.accepted.iter().any(|award| award.seat == seat_number)
        {
            return Err(precondition(format!("seat {seat_number} has a prize entered; a winning box is not voided")));
        }
        let Bet::Registered { contribution, registered_ms } = seat.bet else {
            return Err(precondition(format!("seat {seat_number} has no side bet registered to refund (11.8.1.2)")));
        };
        let pool_id = table.pool.clone();
        self.reverse_seat_bet(registered_ms, &pool_id, table_id, seat_number, contribution)?;
        Ok((format!("Casillero anulado: posición {seat_number}, apuesta reintegrada (11.8.1.2)"), Vec::new()))
    }

    /// Takes a registered bet's contribution out of its pool and gives the seat its
    /// credit back (4.3.2, 11.8.1.2). The engine refuses before anything changes.
    pub(in crate::state) fn reverse_seat_bet(
        &mut self,
        registered_ms: u64,
        pool_id: &PoolId,
        table_id: &TableId,
        seat_number: u32,
        contribution: Contribution,
    ) -> Result<(), Refusal> {
        self.engine.reverse_bet(pool_id, contribution).map_err(engine_refusal)?;
        let seat = self.table_mut(table_id).seat_mut(seat_number);
        seat.bet = Bet::None;
        seat.credits += 1;
        seat.bronze = 0;
        // Off the IPA of the jornada and hour the bet was registered in (Forms 4104,
        // 4109 and 4218 close per jornada); one already dropped is not recreated.
        let day = jornada_and_hour(&self.config, registered_ms);
        if self.data.days.contains_key(&day.0) {
            self.book_ipa(&day, table_id, -contribution.bet, -1);
        }
        Ok(())
    }
}
