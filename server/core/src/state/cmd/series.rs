//! The roulette series (3.1.3) as 3.7.3 names them: numbered at their sale by its entry,
//! counted in the balls they play, paid their awards (`accept.rs`), and kept while the jornada
//! of their sale is (`Series`). What annuls one is `grillos.rs`.

use std::sync::Arc;

use pozo_engine::TableId;
use pozo_engine::money::Money;

use crate::state::model::Series;
use crate::state::refusal::{invalid, precondition};
use crate::state::{Context, Refusal, State};

/// The longest series number accepted on the wire ("SE-000007").
pub(crate) const SERIES_ID_MAX: usize = 32;

impl State {
    /// The series `id` names, checked to be one kept of this table's seat.
    pub(super) fn named_series(&self, table_id: &TableId, seat_number: u32, id: &str) -> Result<String, Refusal> {
        if id.len() > SERIES_ID_MAX {
            return Err(invalid(format!("series: longer than {SERIES_ID_MAX} characters"))
                .castellano(format!("El número de serie tiene más de {SERIES_ID_MAX} caracteres.")));
        }
        let series = self.data.series.get(id).ok_or_else(|| {
            Refusal::new(
                crate::state::RefusalKind::NotFound,
                format!(
                    "series: no series `{id}` is kept: a series is kept while the jornada of its sale is, once paid (3.7.3, docs/readings.md)"
                ),
            )
            .castellano(format!("No se conserva la serie {id}: se conserva pagada mientras se conserve la jornada de su venta (3.7.3)."))
        })?;
        if series.table_id != *table_id || series.seat != seat_number {
            return Err(precondition(format!(
                "series: {id} was sold at table {}, position {}, not table {table_id}, position {seat_number}",
                series.table_id, series.seat
            ))
            .castellano(format!(
                "La serie {id} se vendió en la mesa {}, posición {}; no en la mesa {table_id}, posición {seat_number}.",
                series.table_id, series.seat
            )));
        }
        Ok(id.to_owned())
    }

    /// The newest series of the seat that was paid an award and is not annulled.
    pub(super) fn last_paid_series(&self, table_id: &TableId, seat_number: u32) -> Option<String> {
        self.data
            .series
            .values()
            .filter(|series| {
                series.table_id == *table_id
                    && series.seat == seat_number
                    && series.annulled_sequence.is_none()
                    && series.awards.iter().any(|award| award.amount > Money::ZERO)
            })
            .max_by_key(|series| (series.generation, series.sale_sequence))
            .map(|series| series.series_id.clone())
    }

    /// 3.1.3, 4.4.2: a press at roulette sells a series of three Grillos de Bronce; it is
    /// numbered and kept, and the seat's previous series ends. Returns its number.
    pub(in crate::state) fn sell_series(
        &mut self,
        context: Context,
        jornada: &str,
        table_id: &TableId,
        seat_number: u32,
    ) -> String {
        let previous = self.table_mut(table_id).seat_mut(seat_number).series_id.take();
        if let Some(previous) = previous {
            self.end_series(&previous);
        }
        // Its number is its sale's entry: the same in a replay from zero as from any snapshot.
        let series_id = match self.data.generation {
            0 => format!("SE-{:06}", context.sequence),
            generation => format!("SE-{generation}-{:06}", context.sequence),
        };
        let table = &self.data.tables[table_id];
        let series = Series {
            series_id: series_id.clone(),
            table_id: table.id.clone(),
            pool: table.pool.clone(),
            seat: seat_number,
            sale_sequence: context.sequence,
            generation: self.data.generation,
            sale_ms: context.time_ms,
            jornada: jornada.to_owned(),
            balls: 0,
            awards: Vec::new(),
            annulled_sequence: None,
            annulled_generation: 0,
        };
        self.data.series.insert(series_id.clone(), Arc::new(series));
        self.table_mut(table_id).seat_mut(seat_number).series_id = Some(series_id.clone());
        series_id
    }

    /// INICIAR JUEGO at roulette: each seat's series whose player is at the table plays this ball.
    pub(in crate::state) fn series_in_ball(&mut self, table_id: &TableId) {
        let table = &self.data.tables[table_id];
        if !table.is_roulette() {
            return;
        }
        let playing: Vec<String> = table
            .seats
            .iter()
            .filter(|seat| !seat.absent && seat.grillos() > 0)
            .filter_map(|seat| seat.series_id.clone())
            .collect();
        if playing.is_empty() {
            return;
        }
        for id in playing {
            if let Some(series) = self.data.series.get_mut(id.as_str()) {
                Arc::make_mut(series).balls += 1;
            }
        }
    }

    /// 3.7.3 is applied to the jornadas kept: once the jornada of a series' sale is no longer
    /// kept, the series goes with it (a seat's current series stays: its table is open). Run
    /// after each command, never in the middle of one.
    ///
    /// The look at every series is made only when the oldest jornada kept has passed the floor
    /// (`State::series_floor`): no series kept was sold before the floor, and every series sold
    /// since was sold in the jornada of its command, never before one kept. So the floor is a
    /// lower bound of the series' jornadas, and the look it spares would find none to forget
    /// (checked against the whole look in the tests' builds).
    pub(in crate::state) fn forget_series_of_jornadas_gone(&mut self) {
        let Some(oldest) = self.data.days.keys().next() else { return };
        if self.series_floor.as_ref().is_some_and(|floor| floor >= oldest) {
            debug_assert!(
                !self.data.series.values().any(|series| series.jornada < *oldest),
                "a series sold before the floor {:?}",
                self.series_floor
            );
            return;
        }
        let oldest = oldest.clone();
        if self.data.series.values().any(|series| series.jornada < oldest) {
            let current: Vec<String> = self
                .data
                .tables
                .values()
                .flat_map(|table| table.seats.iter().filter_map(|seat| seat.series_id.clone()))
                .collect();
            self.data.series.retain(|id, series| series.jornada >= oldest || current.contains(id));
        }
        // What is left: a seat's current series may be older than the oldest jornada kept.
        let floor = self.data.series.values().map(|series| &series.jornada).min().filter(|floor| **floor < oldest);
        self.series_floor = Some(floor.cloned().unwrap_or(oldest));
    }

    /// A series is no longer a seat's: one never paid has nothing 3.7.3 could reclaim and is
    /// dropped; a paid or annulled one stays while the jornada of its sale is kept.
    pub(in crate::state) fn end_series(&mut self, series_id: &str) {
        let unpaid =
            self.data.series.get(series_id).is_some_and(|series| series.annulled_sequence.is_none() && series.awards.is_empty());
        if unpaid {
            self.data.series.remove(series_id);
        }
    }
}
