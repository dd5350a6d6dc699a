//! Venta and pago de créditos (12.5.3.3, 12.5.3.5).

use pozo_engine::TableId;
use rust_decimal::Decimal;

use crate::state::model::{Bet, Phase};
use crate::state::refusal::{invalid, precondition};
use crate::state::{CREDIT_STEPS, Context, Done, Refusal, SEAT_CREDITS_MAX, State, jornada_and_hour};

impl State {
    /// Venta de créditos in steps of 1, 5, 10 or 20 (12.5.3.3).
    pub(in crate::state) fn sell_credits(
        &mut self,
        context: Context,
        table_id: &TableId,
        seat: u32,
        credits: u32,
    ) -> Result<Done, Refusal> {
        let table = &self.data.tables[table_id];
        let side_bet = self.pool(&table.pool).rules().side_bet_for(table.game);
        let day = jornada_and_hour(&self.config, context.time_ms);
        table.require_open()?;
        let current = table.seat(seat)?.credits;
        table.seat(seat)?.require_open(seat)?;
        if !CREDIT_STEPS.contains(&credits) {
            return Err(invalid(format!("credits: {credits} is not one of 1, 5, 10, 20 (12.5.3.3)"))
                .castellano(format!("Los créditos se venden de a 1, 5, 10 o 20, no de a {credits} (12.5.3.3).")));
        }
        if table.phase != Phase::Betting {
            return Err(precondition("credits are sold only while the round is not started (12.5.3.2)")
                .castellano("Los créditos se venden solo mientras la jugada no está iniciada (12.5.3.2)."));
        }
        if table.last_round {
            return Err(precondition("last round announced: no more credits are sold (3.9.1, 11.10.1)")
                .castellano("Se anunció la última bola o el último pase: no se venden más créditos (3.9.1, 11.10.1)."));
        }
        if current + credits > SEAT_CREDITS_MAX {
            return Err(invalid(format!("credits: seat {seat} would hold more than {SEAT_CREDITS_MAX}"))
                .castellano(format!("Box {seat}: con esta venta tendría más de {SEAT_CREDITS_MAX} créditos.")));
        }
        self.table_mut(table_id).seat_mut(seat).credits += credits;
        let meters = self.day_mut(&day.0, table_id);
        meters.credits_sold += u64::from(credits);
        meters.credits_sold_amount += side_bet * Decimal::from(credits);
        Ok((
            format!("Venta de créditos: posición {seat}, {}", crate::state::spanish_count(credits, "crédito", "créditos")),
            Vec::new(),
        ))
    }

    /// Pago de créditos: a seat's credits paid back, its button off (12.5.3.5).
    pub(in crate::state) fn refund_credits(&mut self, context: Context, table_id: &TableId, seat: u32) -> Result<Done, Refusal> {
        let table = &self.data.tables[table_id];
        let side_bet = self.pool(&table.pool).rules().side_bet_for(table.game);
        let day = jornada_and_hour(&self.config, context.time_ms);
        table.require_open()?;
        let current = table.seat(seat)?;
        let credits = current.credits;
        if current.bet != Bet::None {
            return Err(precondition(format!(
                "seat {seat}: its button is lit (a bet this round); pago de créditos needs it off (12.5.3.5.2)"
            ))
            .castellano(format!(
                "Box {seat}: su botón está encendido porque apostó en esta jugada; el pago de créditos requiere el botón apagado (12.5.3.5.2)."
            )));
        }
        if credits == 0 {
            return Err(precondition(format!("seat {seat} has no credits to pay back (12.5.3.5)"))
                .castellano(format!("Box {seat}: no tiene créditos para pagar (12.5.3.5).")));
        }
        self.table_mut(table_id).seat_mut(seat).credits = 0;
        self.book_credits_returned(&day.0, table_id, credits, side_bet);
        Ok((
            format!("Pago de créditos: posición {seat}, {}", crate::state::spanish_count(credits, "crédito", "créditos")),
            Vec::new(),
        ))
    }
}
