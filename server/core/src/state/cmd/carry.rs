//! Talla quemada: a burnt round's bets compete in the next hand (11.8.1.1, 15.14.1.3).

use crate::state::model::Phase;
use crate::state::refusal::precondition;
use crate::state::{Done, Refusal, State};
use pozo_engine::TableId;

impl State {
    /// A burnt round before play: the bets stay, no new bets (11.8.1.1).
    pub(in crate::state) fn carry_bets(&mut self, table_id: &TableId) -> Result<Done, Refusal> {
        let table = &self.data.tables[table_id];
        table.require_open()?;
        if table.phase != Phase::Playing || !table.pending.is_empty() || !table.accepted.is_empty() {
            return Err(precondition("a round is burnt only after INICIAR JUEGO and before any prize (11.8.1.1)")
                .castellano("Una talla se quema solo después de INICIAR JUEGO y antes de cualquier premio (11.8.1.1)."));
        }
        if table.is_roulette() {
            return Err(precondition("roulette bets are not carried: a ball is never burnt (11.8.1.1 is Black Jack)")
                .castellano("En la ruleta las apuestas no pasan a la bola siguiente: una bola nunca se quema (11.8.1.1 es de Black Jack)."));
        }
        let table = self.table_mut(table_id);
        table.phase = Phase::Betting;
        table.carried = true;
        table.round += 1;
        Ok(("Talla quemada: las apuestas compiten en la próxima mano (11.8.1.1)".to_owned(), Vec::new()))
    }
}
