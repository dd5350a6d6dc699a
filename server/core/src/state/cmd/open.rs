//! Apertura de Mesa (4.6).

use crate::state::model::{Bet, Phase};
use crate::state::refusal::precondition;
use crate::state::{Done, Refusal, State};
use pozo_engine::TableId;

impl State {
    /// Apertura de Mesa: the table opens with every button cleared (4.6).
    pub(in crate::state) fn open_table(&mut self, table_id: &TableId) -> Result<Done, Refusal> {
        let table = &self.data.tables[table_id];
        if table.open {
            return Err(precondition(format!("table {table_id} is already open"))
                .castellano(format!("La mesa {table_id} ya está abierta.")));
        }
        // An approved change took it out of service (docs/operations.md §8): another puts it back.
        if self.config.table(table_id).is_some_and(|table| !table.in_service) {
            return Err(precondition(format!(
                "table {table_id} is out of service by an approved change; a change puts it back in service first"
            ))
            .castellano(format!(
                "La mesa {table_id} está fuera de servicio por un cambio aprobado; otro cambio debe volver a habilitarla primero."
            )));
        }
        // 4.6: opening clears any bet left loaded on the buttons.
        let table = self.table_mut(table_id);
        table.open = true;
        table.phase = Phase::Betting;
        table.carried = false;
        table.last_round = false;
        for seat in &mut table.seats {
            seat.bet = Bet::None;
        }
        Ok((format!("Apertura de Mesa {table_id}"), Vec::new()))
    }
}
