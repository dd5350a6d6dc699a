//! A box voided after play started: its side bet refunded (11.8.1.2, 11.8.2).

use pozo_engine::Contribution;
use pozo_engine::{PoolId, TableId};

use crate::state::model::{Bet, Phase, Table};
use crate::state::refusal::{engine_refusal, precondition};
use crate::state::{Done, Refusal, State, jornada_and_hour};

impl State {
    pub(in crate::state) fn refund_bet(&mut self, table_id: &TableId, seat_number: u32) -> Result<Done, Refusal> {
        let (contribution, registered_ms, credits) =
            self.played_bet(table_id, seat_number, ("refunded", "refund"), ("reintegra", "reintegrar"), "11.8.1.2")?;
        let pool_id = self.data.tables[table_id].pool.clone();
        self.reverse_seat_bet(registered_ms, &pool_id, table_id, seat_number, contribution)?;
        self.table_mut(table_id).seat_mut(seat_number).credits += credits;
        Ok((format!("Casillero anulado: posición {seat_number}, apuesta reintegrada (11.8.1.2)"), Vec::new()))
    }

    /// The registered bet of a box in play that has won nothing: what a refund
    /// (11.8.1.2) or custody (11.8.3.1.2) annuls; the refusals say what is done (`done`,
    /// `to_do`, and in Spanish `hecho`, `a_hacer`) and cite the article.
    pub(in crate::state) fn played_bet(
        &self,
        table_id: &TableId,
        seat_number: u32,
        (done, to_do): (&str, &str),
        (hecho, a_hacer): (&str, &str),
        article: &str,
    ) -> Result<(Contribution, u64, u32), Refusal> {
        let table: &Table = &self.data.tables[table_id];
        table.require_open()?;
        let seat = table.seat(seat_number)?;
        if table.phase != Phase::Playing {
            return Err(precondition(format!(
                "a box's side bet is {done} after INICIAR JUEGO ({article}), before any prize is entered"
            ))
            .castellano(format!(
                "La apuesta al pozo de un box se {hecho} después de INICIAR JUEGO y antes de ingresar premios ({article})."
            )));
        }
        // A prize entered, or one already paid in this round (the premio instantáneo,
        // 16.4.2.5.1): a winning box is not voided.
        if table.pending.iter().any(|entry| entry.seat == seat_number)
            || table.accepted.iter().any(|award| award.seat == seat_number)
            || table.link_awards.iter().any(|linked| linked.award.seat == seat_number)
        {
            return Err(precondition(format!("seat {seat_number} has a prize entered; a winning box is not voided"))
                .castellano(format!("Box {seat_number}: tiene un premio ingresado; un box ganador no se anula.")));
        }
        let Bet::Registered { contribution, registered_ms, credits } = seat.bet.clone() else {
            return Err(precondition(format!("seat {seat_number} has no side bet registered to {to_do} ({article})"))
                .castellano(format!("Box {seat_number}: no tiene apuesta al pozo registrada para {a_hacer} ({article}).")));
        };
        Ok((contribution, registered_ms, credits))
    }

    /// Takes a registered bet's contribution out of its pool and the bet off the seat
    /// (4.3.2, 11.8.1.2, 11.8.3.1.2); the caller says where the stake goes. The engine
    /// refuses before anything changes.
    pub(in crate::state) fn reverse_seat_bet(
        &mut self,
        registered_ms: u64,
        pool_id: &PoolId,
        table_id: &TableId,
        seat_number: u32,
        contribution: Contribution,
    ) -> Result<(), Refusal> {
        let bet = contribution.bet;
        self.engine.reverse_bet(pool_id, contribution).map_err(engine_refusal)?;
        let seat = self.table_mut(table_id).seat_mut(seat_number);
        seat.bet = Bet::None;
        // The sale's bronzes go with it, those said not played too (3.7.10): no grillo
        // outlives the bet that bought it (3.1.3).
        seat.bronze = 0;
        seat.not_played.bronze = 0;
        if seat.grillos() == 0 {
            seat.absent = false;
        }
        // Off the IPA of the jornada and hour the bet was registered in (Forms 4104,
        // 4109 and 4218 close per jornada); one already dropped is not recreated.
        let day = jornada_and_hour(&self.config, registered_ms);
        let later = self.amending_earlier(&day.0, table_id, pool_id, -bet, pozo_engine::money::Money::ZERO);
        if self.data.days.contains_key(&day.0) {
            self.book_ipa(&day, table_id, -bet, -1);
            let meters = self.day_mut(&day.0, table_id);
            match later {
                true => meters.ipa_amended_later -= bet,
                false => meters.for_pool(pool_id, -bet, pozo_engine::money::Money::ZERO),
            }
        }
        Ok(())
    }
}
