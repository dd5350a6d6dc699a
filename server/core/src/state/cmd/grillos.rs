//! The anomalies of roulette poceada (3.7): an absent player's grillos kept and played
//! when he returns, grillos not played in a ball kept for the next, and a series found
//! invalid after payment annulled.

use pozo_engine::money::Money;
use pozo_engine::{Grillo, TableId};

use crate::state::model::{Bet, Grillos, OrderStatus, Phase, Table};
use crate::state::refusal::{engine_refusal, invalid, precondition};
use crate::state::{Done, Refusal, State};

impl State {
    /// 3.7.1: "Cuando una indisposición le impida al Apostador jugar las 3 bolas
    /// consecutivas": his grillos are set aside for him, between balls, and the table
    /// plays on. A gold turn kept only for his gold is let go (4.3.5).
    pub(in crate::state) fn player_absent(&mut self, table_id: &TableId, seat_number: u32) -> Result<Done, Refusal> {
        let table = roulette_between_balls(&self.data.tables[table_id])?;
        let seat = table.seat(seat_number)?;
        if seat.absent {
            return Err(precondition(format!("seat {seat_number}: the player is already absent (3.7.1)"))
                .castellano(format!("Posición {seat_number}: el apostador ya está ausente (3.7.1).")));
        }
        if seat.grillos() == 0 {
            return Err(precondition(format!("seat {seat_number} holds no grillo to keep (3.7.1)"))
                .castellano(format!("Posición {seat_number}: no tiene grillos para guardar (3.7.1).")));
        }
        self.table_mut(table_id).seat_mut(seat_number).absent = true;
        let released = self.release_gold_turn_if_unused(table_id);
        let held = self.data.tables[table_id].seats[seat_number as usize - 1].held();
        let mut outcome = format!(
            "Apostador ausente, posición {seat_number}: se guardan {} bronce, {} plata, {} oro (3.7.1)",
            held.bronze, held.silver, held.gold
        );
        if released {
            outcome.push_str("; la mesa deja el turno del Grillo de Oro (4.3.5)");
        }
        Ok((outcome, Vec::new()))
    }

    /// 3.7.1.1: "si regresare con los dos Grillos de Plata se cambiarán por tres Grillos
    /// de Bronce; debiendo comenzar con la serie nuevamente"; 3.7.1.2: "Si regresare con
    /// el Grillo de Oro se le permitirá jugarlo" (in the table's gold turn, 4.3.5).
    pub(in crate::state) fn player_returns(&mut self, table_id: &TableId, seat_number: u32) -> Result<Done, Refusal> {
        let table = roulette_between_balls(&self.data.tables[table_id])?;
        let seat = table.seat(seat_number)?;
        if !seat.absent {
            return Err(precondition(format!("seat {seat_number}: no absent player's grillos are kept (3.7.1)"))
                .castellano(format!("Posición {seat_number}: no hay grillos guardados de un apostador ausente (3.7.1).")));
        }
        let held = seat.held();
        let seat = self.table_mut(table_id).seat_mut(seat_number);
        seat.absent = false;
        let outcome = if held.gold > 0 {
            format!("Regresa el apostador, posición {seat_number}: juega su Grillo de Oro en el turno de la mesa (3.7.1.2)")
        } else if held.silver > 0 {
            seat.set_held(Grillos { bronze: 3, silver: 0, gold: 0 });
            format!(
                "Regresa el apostador, posición {seat_number}: {} Grillos de Plata cambiados por 3 Grillos de Bronce; la serie comienza de nuevo (3.7.1.1)",
                held.silver
            )
        } else {
            format!("Regresa el apostador, posición {seat_number}: juega sus {} Grillos de Bronce (3.7.10)", held.bronze)
        };
        Ok((outcome, Vec::new()))
    }

    /// 3.7.10: "En caso que el Apostador por desconocimiento jugare una cantidad menor de
    /// los Grillos establecidos en cualquiera de las instancias, se le permitirá jugarlos
    /// en la bola siguiente"; 3.7.4: a grillo played off a pleno is handed back "con
    /// opción a jugarlo nuevamente". The dealer says how many of the seat's grillos of
    /// `code` were played on plenos in this ball; the rest stay on the seat.
    pub(in crate::state) fn grillos_played(
        &mut self,
        table_id: &TableId,
        seat_number: u32,
        code: &str,
        played: u32,
    ) -> Result<Done, Refusal> {
        let table = &self.data.tables[table_id];
        table.require_open()?;
        if !table.is_roulette() {
            return Err(precondition("grillos are played at roulette poceada (3.1)")
                .castellano("Los grillos se juegan en la ruleta poceada (3.1)."));
        }
        let seat = table.seat(seat_number)?;
        let grillo = Grillo::of_code(code).ok_or_else(|| {
            invalid(format!("code: `{code}` is not a grillo (GRILLO_BRONCE, GRILLO_PLATA, GRILLO_ORO)"))
                .castellano(format!("El código {code} no es un grillo: GRILLO_BRONCE, GRILLO_PLATA o GRILLO_ORO."))
        })?;
        if table.phase != Phase::Playing {
            return Err(precondition(
                "the grillos played are said during the ball: after INICIAR JUEGO, before ACEPTAR (3.7.10)",
            )
            .castellano(
                "Los grillos jugados se indican durante la bola: después de INICIAR JUEGO y antes de ACEPTAR (3.7.10).",
            ));
        }
        if seat.absent {
            return Err(precondition(format!("seat {seat_number}: the player is absent; his grillos are not played (3.7.1)"))
                .castellano(format!("Posición {seat_number}: el apostador está ausente; sus grillos no se juegan (3.7.1).")));
        }
        let held = seat.held().of(grillo);
        if played >= held {
            return Err(invalid(format!(
                "played: {played} of the {held} {} held; say only when fewer were played (3.7.10)",
                grillo.name()
            ))
            .castellano(format!(
                "Posición {seat_number}: se indicaron {played} jugados de {held} {} que tiene; se indica solo cuando se jugaron menos (3.7.10).",
                grillo.name()
            )));
        }
        if played == 0 && table.pending.iter().any(|entry| entry.seat == seat_number && entry.code == code) {
            return Err(precondition(format!(
                "seat {seat_number} has a {} prize entered in this ball: at least one was played",
                grillo.name()
            ))
            .castellano(format!(
                "Posición {seat_number}: tiene un premio de {} ingresado en esta bola; al menos uno se jugó.",
                grillo.name()
            )));
        }
        // 3.7.2: a hit of the metal below, entered in this ball, grants this metal; those
        // kept may not join the grant over 2 silver or 1 gold.
        let mut kept = seat.not_played;
        *kept.of_mut(grillo) = held - played;
        if let Some(below) = Grillo::ALL.into_iter().find(|below| below.next() == Some(grillo))
            && table.pending.iter().any(|entry| entry.seat == seat_number && entry.code == below.code())
            && self.grant_over_limit(&table.pool, below, &kept)
        {
            return Err(precondition(format!(
                "seat {seat_number}: with the {} hit entered in this ball, keeping {} {} would put more than {} in play (3.7.2)",
                below.name(),
                held - played,
                grillo.name(),
                grillo.most_in_play()
            ))
            .castellano(format!(
                "Posición {seat_number}: con el acierto de {} ingresado en esta bola, guardar {} {} pondría en juego más de {} (3.7.2).",
                below.name(),
                held - played,
                grillo.name(),
                grillo.most_in_play()
            )));
        }
        self.table_mut(table_id).seat_mut(seat_number).not_played = kept;
        Ok((
            format!(
                "Posición {seat_number}: {played} de {held} {} jugados; {} se juegan en la bola siguiente (3.7.10)",
                grillo.name(),
                held - played
            ),
            Vec::new(),
        ))
    }

    /// 3.7.2: more than three bronze, two silver or one gold played by one player: "la
    /// jugada al Pozo Acumulado no será válida"; 3.7.3: "Si dicha circunstancia fuese
    /// advertida después de efectuado el pago se procederá a dar por nula la apuesta y a
    /// exigirle la devolución del monto". The series' awards go back to the pool (booked
    /// as reclaimed, off the PPPA of the jornada they were paid in), its grillos are taken
    /// off the seat, and the bet stays played (docs/readings.md, "A series found invalid
    /// after payment"). An award still waiting for Venta-Pagos is rejected there instead.
    pub(in crate::state) fn annul_series(&mut self, table_id: &TableId, seat_number: u32) -> Result<Done, Refusal> {
        let table = roulette_between_balls(&self.data.tables[table_id])?;
        let seat = table.seat(seat_number)?;
        if seat.series.is_empty() && seat.grillos() == 0 && seat.bet == Bet::None {
            return Err(precondition(format!("seat {seat_number} has no series to annul (3.7.3)"))
                .castellano(format!("Posición {seat_number}: no tiene serie para anular (3.7.3).")));
        }
        // The series' awards as they stand now: those paid at the table, and every order of
        // its rounds for this seat, as the office decided it (a re-settlement after another
        // winner's rejection may have raised one, or filed one for an award fixed at zero).
        let rounds: Vec<u64> =
            seat.series.iter().map(|award| crate::state::model::round_key(award.generation, award.journal_sequence)).collect();
        let orders: Vec<&crate::state::model::PayoutOrder> = self
            .data
            .orders
            .values()
            .filter(|order| {
                order.facts.table_id == *table_id && order.facts.seat == seat_number && rounds.contains(&order.round_key())
            })
            .collect();
        if let Some(order) = orders.iter().find(|order| order.status == OrderStatus::Pending) {
            return Err(precondition(format!(
                "order {} of this series is pending: Venta-Pagos rejects it, undoing its award (3.5.2), before the series is annulled",
                order.order_id
            ))
            .castellano(format!(
                "La orden {} de esta serie está pendiente: antes de anular la serie, Venta-Pagos la rechaza y así se deshace su premio (3.5.2).",
                order.order_id
            )));
        }
        let pool_id = table.pool.clone();
        // A rejected order's award is already back in the pool.
        let reclaim: Vec<(Money, u64)> = seat
            .series
            .iter()
            .filter(|award| award.payout_order_id.is_none() && award.amount > Money::ZERO)
            .map(|award| (award.amount, award.time_ms))
            .chain(
                orders
                    .iter()
                    .filter(|order| order.status == OrderStatus::Confirmed && order.facts.amount > Money::ZERO)
                    .map(|order| (order.facts.amount, order.time_ms)),
            )
            .collect();
        let total: Money = reclaim.iter().map(|(amount, _)| *amount).sum();
        // Tried on a copy first: the annulment changes everything or nothing.
        let mut trial = self.pool(&pool_id).clone();
        for (amount, _) in &reclaim {
            trial.reclaim_award(*amount).map_err(engine_refusal)?;
        }
        for (amount, time_ms) in &reclaim {
            self.engine.reclaim_award(&pool_id, *amount).map_err(engine_refusal)?;
            if let Some(meters) = self.amend_pppa(*time_ms, table_id, &pool_id, -*amount) {
                meters.pppa_reclaimed += *amount;
            }
        }
        let seat = self.table_mut(table_id).seat_mut(seat_number);
        seat.series.clear();
        seat.set_held(Grillos::default());
        seat.not_played = Grillos::default();
        seat.absent = false;
        seat.bet = Bet::None;
        let released = self.release_gold_turn_if_unused(table_id);
        let mut outcome =
            format!("Serie anulada, posición {seat_number}: {} devueltos al pozo (3.7.3)", pozo_engine::format_ars(total));
        if released {
            outcome.push_str("; la mesa deja el turno del Grillo de Oro (4.3.5)");
        }
        Ok((outcome, Vec::new()))
    }

    /// Lets go of the pool's gold turn for this table when no player at it holds a gold
    /// any more: the next table waiting plays (4.3.5). True when it let go of one.
    pub(in crate::state) fn release_gold_turn_if_unused(&mut self, table_id: &TableId) -> bool {
        let table = &self.data.tables[table_id];
        if table.seats.iter().any(|seat| seat.plays_gold()) {
            return false;
        }
        let Some(turn) = self.data.gold_turns.get_mut(&table.pool) else { return false };
        if turn.holder.as_deref() == Some(table_id) {
            turn.holder = turn.waiting.pop_front();
            return true;
        }
        let before = turn.waiting.len();
        turn.waiting.retain(|waiting| waiting != table_id);
        turn.waiting.len() != before
    }
}

/// A roulette table, open, between balls: where grillos are kept, returned or annulled.
fn roulette_between_balls(table: &Table) -> Result<&Table, Refusal> {
    table.require_open()?;
    if !table.is_roulette() {
        return Err(precondition("grillos are played at roulette poceada (3.1, 3.7)")
            .castellano("Los grillos se juegan en la ruleta poceada (3.1, 3.7)."));
    }
    if table.phase != Phase::Betting {
        return Err(precondition("between balls only: after FINALIZAR JUEGO, before INICIAR JUEGO (3.7.1)")
            .castellano("Solo entre bolas: después de FINALIZAR JUEGO y antes de INICIAR JUEGO (3.7.1)."));
    }
    Ok(table)
}
