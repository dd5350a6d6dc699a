//! Cierre de Mesa (4.7.5, 4.7.7, 12.8).

use pozo_engine::Contribution;
use pozo_engine::TableId;

use crate::state::model::{Bet, Phase, Seat, Table};
use crate::state::refusal::{engine_refusal, precondition};
use crate::state::{Context, Done, Refusal, State, jornada_and_hour};

impl State {
    /// Cierre de Mesa: FP counted, unplayed roulette sales returned (4.7.5, 3.7.9).
    pub(in crate::state) fn close_table(&mut self, context: Context, table_id: &TableId) -> Result<Done, Refusal> {
        let table = &self.data.tables[table_id];
        let side_bet = self.pool(&table.pool).rules().side_bet_for(table.game);
        let day = jornada_and_hour(&self.config, context.time_ms);
        self.close_allowed(table_id)?;
        let table = &self.data.tables[table_id];
        // 4.7.5: "se asentará, bajo la sigla FP – Fichas Poceado – la cantidad de Grillos
        // existentes al cierre de mesa": every grillo still held is counted. Of them
        // (docs/readings.md, "Grillos at Cierre de Mesa"):
        // - three bronzes sold and never played are the player's bet, returned (3.7.9:
        //   "En caso que el Apostador decidiera no jugar los tres Grillos de Bronce le
        //   será devuelta su apuesta"): the contribution comes out, the money goes back;
        // - the grillos of a series already played in (silver, gold, bronzes kept under
        //   3.7.10) end with the table: their bet was played and stays in the pool.
        let fichas: u32 = table.seats.iter().map(Seat::grillos).sum();
        let unplayed = unplayed_sales(table);
        let pool_id = table.pool.clone();
        // Every reversal is tried on a copy first: the close changes nothing or all.
        let mut trial = self.pool(&pool_id).clone();
        for (_, contribution, _, _) in &unplayed {
            trial.reverse_bet(contribution.clone()).map_err(engine_refusal)?;
        }
        for (seat, contribution, registered_ms, credits) in &unplayed {
            self.reverse_seat_bet(*registered_ms, &pool_id, table_id, *seat, contribution.clone())?;
            // The credits the sale took are paid back with the rest (12.5.3.5).
            self.book_credits_returned(&day.0, table_id, *credits, side_bet);
        }
        let returned = unplayed.len();
        let table = self.table_mut(table_id);
        table.open = false;
        let series: Vec<String> = table.seats.iter_mut().filter_map(|seat| seat.series_id.take()).collect();
        end_grillos(&mut table.seats);
        for series_id in &series {
            self.end_series(series_id);
        }
        self.day_mut(&day.0, table_id).fp += fichas;
        let detail = if returned == 1 {
            " (1 venta de Grillos de Bronce no jugada, apuesta devuelta, 3.7.9)".to_owned()
        } else if returned > 1 {
            format!(" ({returned} ventas de Grillos de Bronce no jugadas, apuestas devueltas, 3.7.9)")
        } else {
            String::new()
        };
        Ok((format!("Cierre de Mesa {table_id}: FP {fichas}{detail}"), Vec::new()))
    }

    /// The checks of a Cierre de Mesa, before anything changes: an open table between
    /// rounds, no credits left at a seat, no card bet loaded, and no gold turn held or awaited.
    fn close_allowed(&self, table_id: &TableId) -> Result<(), Refusal> {
        let table = &self.data.tables[table_id];
        table.require_open()?;
        if table.phase != Phase::Betting {
            return Err(precondition(format!("table {table_id}: FINALIZAR JUEGO before Cierre de Mesa (4.7.7)"))
                .castellano(format!("Mesa {table_id}: antes del Cierre de Mesa, FINALIZAR JUEGO (4.7.7).")));
        }
        if let Some((index, seat)) = table.seats.iter().enumerate().find(|(_, seat)| seat.credits > 0) {
            return Err(precondition(format!(
                "seat {}: {} credits not returned; pay them back before Cierre de Mesa (12.8.1)",
                index + 1,
                seat.credits
            ))
            .castellano(format!(
                "Box {}: tiene {} créditos sin pagar; páguelos antes del Cierre de Mesa (12.8.1).",
                index + 1,
                seat.credits
            )));
        }
        // Card tables: a bet pressed and not played is voided first (4.3.2). Roulette: a
        // sale not yet played is returned at the close (3.7.9, below).
        let roulette = table.is_roulette();
        if let Some(index) = table.seats.iter().position(|seat| seat.bet != Bet::None && !roulette) {
            return Err(precondition(format!(
                "seat {}: a bet is loaded; void it or play the round before Cierre de Mesa (4.7.7)",
                index + 1
            ))
            .castellano(format!(
                "Box {}: tiene una apuesta cargada; anúlela o juegue la jugada antes del Cierre de Mesa (4.7.7).",
                index + 1
            )));
        }
        if self
            .data
            .gold_turns
            .get(&table.pool)
            .is_some_and(|turn| turn.holder.as_deref() == Some(table_id) || turn.waiting.iter().any(|id| id == table_id))
        {
            return Err(precondition(format!(
                "table {table_id} holds or awaits the gold turn; play the gold first (4.3.5, 3.9.2)"
            ))
            .castellano(format!(
                "La mesa {table_id} tiene o espera el turno del Grillo de Oro; primero se juega el Oro (4.3.5, 3.9.2)."
            )));
        }
        Ok(())
    }
}

/// The sales of three bronzes never played (3.7.9): each seat's number, the contribution,
/// when it was registered and the credits it took.
fn unplayed_sales(table: &Table) -> Vec<(u32, Contribution, u64, u32)> {
    table
        .seats
        .iter()
        .enumerate()
        .filter_map(|(index, seat)| match &seat.bet {
            Bet::Registered { contribution, registered_ms, credits } => {
                Some((index as u32 + 1, contribution.clone(), *registered_ms, *credits))
            }
            _ => None,
        })
        .collect()
}

/// Every grillo ends with the table, counted in its FP (4.7.5).
fn end_grillos(seats: &mut [Seat]) {
    for seat in seats {
        seat.bet = Bet::None;
        seat.bronze = 0;
        seat.silver = 0;
        seat.gold = 0;
        // An absent player's grillos end with the table too (docs/readings.md,
        // "Grillos at Cierre de Mesa"): they are in the FP counted above.
        seat.absent = false;
        seat.not_played = Default::default();
    }
}
