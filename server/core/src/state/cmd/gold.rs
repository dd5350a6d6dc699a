//! The Grillo de Oro turn of a roulette pool (4.3.4, 4.3.5).

use crate::state::refusal::precondition;
use crate::state::{Done, Refusal, State};
use pozo_engine::TableId;

impl State {
    /// A table asks to play its Grillo de Oro; one table of the pool at a time (4.3.5).
    pub(in crate::state) fn request_gold_turn(&mut self, table_id: &TableId) -> Result<Done, Refusal> {
        let table = &self.data.tables[table_id];
        table.require_open()?;
        if !table.is_roulette() {
            return Err(precondition("the gold turn is for roulette grillos (4.3.4)")
                .castellano("El turno del Grillo de Oro es para los grillos de la ruleta (4.3.4)."));
        }
        if !table.seats.iter().any(|seat| seat.plays_gold()) {
            return Err(precondition(format!(
                "no seat of table {table_id} holds a Grillo de Oro to play; a gold is won with a silver (3.1.3), an absent player's waits for him (3.7.1.2)"
            ))
            .castellano(format!(
                "Ninguna posición de la mesa {table_id} tiene un Grillo de Oro para jugar: el Oro se gana con un Grillo de Plata, y el de un apostador ausente lo espera a él (3.1.3, 3.7.1.2)."
            )));
        }
        let pool = table.pool.clone();
        let turn = self.data.gold_turns.entry(pool.clone()).or_default();
        if turn.holder.as_deref() == Some(table_id) || turn.waiting.iter().any(|id| id == table_id) {
            return Err(precondition(format!("table {table_id} already holds or awaits the gold turn"))
                .castellano(format!("La mesa {table_id} ya tiene o espera el turno del Grillo de Oro.")));
        }
        if turn.holder.is_none() {
            turn.holder = Some(table_id.clone());
            Ok((format!("Se juega Grillo de Oro en la mesa {table_id} (4.3.5)"), Vec::new()))
        } else {
            let holder = turn.holder.clone().unwrap_or_default();
            turn.waiting.push_back(table_id.clone());
            Ok((format!("Se juega Grillo de Oro en la mesa {holder}: la mesa {table_id} espera su turno (4.3.5)"), Vec::new()))
        }
    }
}
