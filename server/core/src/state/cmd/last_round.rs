//! Última bola / último pase (3.9, 11.10).

use crate::state::refusal::precondition;
use crate::state::{Context, Done, Refusal, State, jornada_and_hour};
use pozo_engine::TableId;

impl State {
    /// The last round is announced: no more sales, card credits returned (3.9.1, 11.10.1).
    pub(in crate::state) fn last_round(&mut self, context: Context, table_id: &TableId) -> Result<Done, Refusal> {
        let table = &self.data.tables[table_id];
        let side_bet = self.pool(&table.pool).rules().side_bet_for(table.game);
        let day = jornada_and_hour(&self.config, context.time_ms);
        table.require_open()?;
        if table.last_round {
            return Err(precondition("the last round is already announced")
                .castellano("La última bola o el último pase ya fue anunciado."));
        }
        let refunds: Vec<(usize, u32)> = if table.is_roulette() {
            Vec::new()
        } else {
            // 11.10.1: "debiendo reintegrar a los Apostadores los créditos a su favor".
            table.seats.iter().enumerate().filter(|(_, seat)| seat.credits > 0).map(|(i, s)| (i, s.credits)).collect()
        };
        let table = self.table_mut(table_id);
        table.last_round = true;
        for (index, _) in &refunds {
            table.seats[*index].credits = 0;
        }
        let returned: u32 = refunds.iter().map(|(_, credits)| credits).sum();
        if returned > 0 {
            self.book_credits_returned(&day.0, table_id, returned, side_bet);
        }
        let returned = crate::state::spanish_count(returned, "crédito reintegrado", "créditos reintegrados");
        Ok((format!("Última bola / último pase anunciado: {returned} (3.9, 11.10)"), Vec::new()))
    }
}
