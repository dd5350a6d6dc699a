//! The anomalies of roulette poceada (3.7): an absent player's grillos kept and played
//! when he returns, grillos not played in a ball kept for the next, and a series found
//! invalid after payment annulled.

use std::sync::Arc;

use pozo_engine::money::Money;
use pozo_engine::{Grillo, TableId};

use crate::state::model::{Bet, Grillos, OrderStatus, Phase, Table};
use crate::state::refusal::{engine_refusal, invalid, precondition};
use crate::state::{Context, Done, Refusal, State};

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
            match held.bronze {
                1 => format!("Regresa el apostador, posición {seat_number}: juega su Grillo de Bronce (3.7.10)"),
                bronze => format!("Regresa el apostador, posición {seat_number}: juega sus {bronze} Grillos de Bronce (3.7.10)"),
            }
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
                "Posición {seat_number}: {played} de {held} {} jugados; {} en la bola siguiente (3.7.10)",
                grillo.name(),
                crate::state::spanish_count(held - played, "se juega", "se juegan")
            ),
            Vec::new(),
        ))
    }

    /// 3.7.2: more than three bronze, two silver or one gold played by one player: "la
    /// jugada al Pozo Acumulado no será válida"; 3.7.3: "Si dicha circunstancia fuese
    /// advertida después de efectuado el pago se procederá a dar por nula la apuesta y a
    /// exigirle la devolución del monto". The series is the one named (`SE-000007`), or the
    /// seat's current one: whenever it is found, while the jornada of its sale is kept, across
    /// a Cierre de Mesa and a close → open. Its awards go back to the pool (booked as
    /// reclaimed, off the PPPA of the jornada they were paid in); if it is still the seat's,
    /// its grillos are taken off the seat; the bet stays played, and a bet that played no ball
    /// is never taken (docs/readings.md, "A series found invalid after payment"). An award
    /// still waiting for Venta-Pagos is rejected there instead.
    pub(in crate::state) fn annul_series(
        &mut self,
        context: Context,
        table_id: &TableId,
        seat_number: u32,
        named: Option<&str>,
    ) -> Result<Done, Refusal> {
        let table = roulette(&self.data.tables[table_id])?;
        if table.open && table.phase != Phase::Betting {
            return Err(precondition("a series is annulled between balls: after FINALIZAR JUEGO, before INICIAR JUEGO (3.7.3)")
                .castellano("Una serie se anula entre bolas: después de FINALIZAR JUEGO y antes de INICIAR JUEGO (3.7.3)."));
        }
        let seat = table.seat(seat_number)?;
        let series_id = match named {
            Some(id) => self.named_series(table_id, seat_number, id)?,
            None => seat.series_id.clone().filter(|_| table.open).ok_or_else(|| {
                precondition(format!(
                    "seat {seat_number} has no series to annul (3.7.3); a past series is named by its number (`annul-series {seat_number} SE-000007`), given at its sale"
                ))
                .castellano(format!(
                    "Posición {seat_number}: no tiene serie para anular (3.7.3); una serie anterior se nombra por su número (SE-000007), dado en su venta."
                ))
            })?,
        };
        let series = &self.data.series[&series_id];
        if let Some(sequence) = series.annulled_sequence {
            let (journal, registro) = match series.annulled_generation {
                generation if generation == self.data.generation => (String::new(), String::new()),
                generation => {
                    (format!(" of the journal of generation {generation}"), format!(" (registro de generación {generation})"))
                }
            };
            return Err(precondition(format!(
                "series: {series_id} was already annulled at journal entry {sequence}{journal} (3.7.3)"
            ))
            .castellano(format!("La serie {series_id} ya fue anulada, asiento {sequence} del registro{registro} (3.7.3).")));
        }
        let current = table.open && seat.series_id.as_deref() == Some(series_id.as_str());
        // A bet that played no ball was not played: 3.7.3 annuls what was paid, and this
        // series was paid nothing; its bet is the seat's (void it, or Cierre de Mesa returns it, 3.7.9).
        if series.balls == 0 {
            let last_paid = self.last_paid_series(table_id, seat_number).filter(|last| *last != series_id);
            let hint =
                last_paid.as_ref().map(|last| format!("; the series last paid at this seat is {last}")).unwrap_or_default();
            let pista =
                last_paid.map(|last| format!(" La última serie pagada en esta posición es la {last}.")).unwrap_or_default();
            return Err(precondition(format!(
                "series: {series_id} has played no ball: nothing was paid to give back and its bet is not taken (3.7.3){hint}"
            ))
            .castellano(format!(
                "La serie {series_id} no jugó ninguna bola: no se le pagó nada y su apuesta no se toma (3.7.3).{pista}"
            )));
        }
        // The series' awards as they stand now: those paid at the table, and every order of
        // its rounds for this seat, as the office decided it (a re-settlement after another
        // winner's rejection may have raised one, or filed one for an award fixed at zero).
        let rounds: Vec<u64> =
            series.awards.iter().map(|award| crate::state::model::round_key(award.generation, award.journal_sequence)).collect();
        let orders: Vec<&crate::state::model::PayoutOrder> = self
            .data
            .orders
            .values()
            .filter(|order| {
                order.facts.table_id == *table_id && order.facts.seat == seat_number && rounds.contains(&order.round_key())
            })
            .collect();
        // Any order of its rounds still pending, whoever's: a rejection re-settles the round and
        // could raise this series' share (even one fixed at zero) after it was annulled.
        let pending = self.data.orders.values().find(|order| {
            order.status == OrderStatus::Pending && order.facts.table_id == *table_id && rounds.contains(&order.round_key())
        });
        if let Some(order) = pending {
            return Err(precondition(format!(
                "order {} of series {series_id} is pending: Venta-Pagos rejects it, undoing its award (3.5.2), before the series is annulled",
                order.order_id
            ))
            .castellano(format!(
                "La orden {} de la serie {series_id} está pendiente: antes de anular la serie, Venta-Pagos la rechaza y así se deshace su premio (3.5.2).",
                order.order_id
            )));
        }
        let pool_id = series.pool.clone();
        // A rejected order's award is already back in the pool.
        let reclaim: Vec<(Money, u64)> = series
            .awards
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
        // The PPPA each award came off must still be kept, after this entry (whose jornada, if
        // new, lets the oldest go): a series is kept only as long as the jornada of its sale.
        let today = crate::state::jornada_and_hour(&self.config, context.time_ms).0;
        let going = (!self.data.days.contains_key(&today) && self.data.days.len() >= crate::state::JORNADAS_KEPT)
            .then(|| self.data.days.keys().next().cloned())
            .flatten();
        let kept = |jornada: &str| self.data.days.contains_key(jornada) && going.as_deref() != Some(jornada);
        if !kept(&series.jornada) {
            return Err(Refusal::new(
                crate::state::RefusalKind::NotFound,
                format!(
                    "series: {series_id} was sold in jornada {}, no longer kept; 3.7.3 is applied to the jornadas kept",
                    series.jornada
                ),
            )
            .castellano(format!(
                "La serie {series_id} se vendió en la jornada {}, que ya no se conserva (3.7.3).",
                series.jornada
            )));
        }
        if let Some((_, time_ms)) =
            reclaim.iter().find(|(_, time_ms)| !kept(&crate::state::jornada_and_hour(&self.config, *time_ms).0))
        {
            let jornada = crate::state::jornada_and_hour(&self.config, *time_ms).0;
            return Err(precondition(format!(
                "series: {series_id} was paid in jornada {jornada}, no longer kept; 3.7.3 is applied to the jornadas kept"
            ))
            .castellano(format!("La serie {series_id} se pagó en la jornada {jornada}, que ya no se conserva (3.7.3).")));
        }
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
        let generation = self.data.generation;
        // Found above; nothing drops a series in the middle of a command.
        if let Some(series) = self.data.series.get_mut(series_id.as_str()).map(Arc::make_mut) {
            series.annulled_sequence = Some(context.sequence);
            series.annulled_generation = generation;
        }
        let mut released = false;
        if current {
            let seat = self.table_mut(table_id).seat_mut(seat_number);
            seat.series_id = None;
            seat.set_held(Grillos::default());
            seat.not_played = Grillos::default();
            seat.absent = false;
            seat.bet = Bet::None;
            released = self.release_gold_turn_if_unused(table_id);
        }
        let mut outcome = format!(
            "Serie {series_id} anulada, posición {seat_number}: {} devueltos al pozo (3.7.3)",
            pozo_engine::format_ars(total)
        );
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
    roulette(table)?;
    if table.phase != Phase::Betting {
        return Err(precondition("between balls only: after FINALIZAR JUEGO, before INICIAR JUEGO (3.7.1)")
            .castellano("Solo entre bolas: después de FINALIZAR JUEGO y antes de INICIAR JUEGO (3.7.1)."));
    }
    Ok(table)
}

/// A roulette table: where grillos are played (3.1, 3.7).
fn roulette(table: &Table) -> Result<&Table, Refusal> {
    if !table.is_roulette() {
        return Err(precondition("grillos are played at roulette poceada (3.1, 3.7)")
            .castellano("Los grillos se juegan en la ruleta poceada (3.1, 3.7)."));
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::config::Config;
    use crate::state::command::{Command, TableOp};
    use crate::state::{Context, JORNADAS_KEPT, RefusalKind, State};

    const DAY_MS: u64 = 86_400_000;
    const START_MS: u64 = 1_795_360_000_000;

    /// Applies `ops` at `table` at `time_ms`, each as the table's next command.
    fn play(state: &mut State, table: &str, time_ms: u64, ops: Vec<TableOp>) -> Vec<String> {
        let mut outcomes = Vec::new();
        for op in ops {
            let next = state.data().tables[table].last_sequence + 1;
            let sequence = state.journal_sequence() + 1;
            let command = Command::dealer(table, next, format!("{table}-{next}"), op);
            outcomes.push(outcome(state.apply(&command, Context { sequence, time_ms }).expect("applied")));
        }
        outcomes
    }

    fn ball(seat: u32, code: &str) -> Vec<TableOp> {
        vec![
            TableOp::StartRound,
            TableOp::EnterPrize { seat, code: code.into(), high: None },
            TableOp::Accept,
            TableOp::FinishRound,
        ]
    }

    fn annul(state: &mut State, seat: u32, series: &str, time_ms: u64) -> Result<String, crate::state::Refusal> {
        let next = state.data().tables["R1"].last_sequence + 1;
        let command =
            Command::dealer("R1", next, format!("R1-{next}"), TableOp::AnnulSeries { seat, series: Some(series.into()) });
        let sequence = state.journal_sequence() + 1;
        state.apply(&command, Context { sequence, time_ms }).map(outcome)
    }

    fn outcome(applied: crate::state::view::Applied) -> String {
        match applied {
            crate::state::view::Applied::Table(reply) => reply.outcome.clone(),
            other => panic!("a table's reply, not {other:?}"),
        }
    }

    /// A journal with R1's seat 4 paid a Grillo de Plata ($ 300,00, 3.4.1.2) by series
    /// SE-000004 (its sale is entry 4) on the first jornada, then the table closed (Cierre de Mesa).
    fn a_paid_series() -> (Arc<Config>, State) {
        let config = Arc::new(Config::embedded());
        let mut state = State::new(Arc::clone(&config));
        let genesis = Command::genesis(&config, "", None, None);
        state.apply(&genesis, Context { sequence: 1, time_ms: START_MS }).expect("genesis");
        let mut ops =
            vec![TableOp::OpenTable, TableOp::SellCredits { seat: 4, credits: 1 }, TableOp::Press { seat: 4, credits: None }];
        ops.extend(ball(4, "GRILLO_BRONCE"));
        ops.extend(ball(4, "GRILLO_PLATA"));
        ops.push(TableOp::CloseTable);
        let outcomes = play(&mut state, "R1", START_MS, ops);
        assert!(outcomes[2].ends_with("serie SE-000004"), "the sale's entry names it: {}", outcomes[2]);
        (config, state)
    }

    /// 3.7.3 ("Si dicha circunstancia fuese advertida después de efectuado el pago…") is applied
    /// whenever the series is found: in a later jornada, and in the journal opened from this
    /// one's closing statement, where the carried series is annulled and its $ 300,00 comes back.
    #[test]
    fn a_series_is_annulled_in_a_later_jornada_and_across_close_and_open() {
        let (config, old) = a_paid_series();
        let statement = serde_json::json!({ "statement": { "snapshot": old.snapshot() } });
        let mut new = State::new(Arc::clone(&config));
        let genesis = Command::genesis(&config, "", None, Some(Box::new(statement)));
        let later = START_MS + 3 * DAY_MS;
        new.apply(&genesis, Context { sequence: 1, time_ms: later }).expect("opened from the statement");
        let reclaimed = new.pool("iplyc-ruleta").meters().awards_reclaimed;
        let outcome = annul(&mut new, 4, "SE-000004", later).expect("annulled three jornadas later, in the next journal");
        assert!(outcome.contains("$ 300,00 devueltos al pozo (3.7.3)"), "{outcome}");
        assert_eq!(new.pool("iplyc-ruleta").meters().awards_reclaimed - reclaimed, pozo_engine::money::Money::from_cents(30_000));
        let refused = annul(&mut new, 4, "SE-000004", later).expect_err("once only");
        assert!(refused.message.contains("already annulled"), "{refused:?}");
    }

    /// On the edge: 62 jornadas kept, the oldest the series' sale's, and the annulment the first
    /// entry of a new jornada, which lets that one go: refused before anything moves (the pool
    /// does not take the money back while the books lose the jornada to amend).
    #[test]
    fn a_series_whose_jornada_goes_with_the_annulments_entry_is_refused_whole() {
        let (_, mut state) = a_paid_series();
        for day in 1..JORNADAS_KEPT as u64 {
            play(&mut state, "B1", START_MS + day * DAY_MS, vec![TableOp::OpenTable, TableOp::CloseTable]);
        }
        assert_eq!(state.data().days.len(), JORNADAS_KEPT);
        let pool = state.pool("iplyc-ruleta").state();
        let refused =
            annul(&mut state, 4, "SE-000004", START_MS + JORNADAS_KEPT as u64 * DAY_MS).expect_err("its jornada goes now");
        assert_eq!(refused.kind, RefusalKind::NotFound, "{refused:?}");
        assert_eq!(state.pool("iplyc-ruleta").state(), pool, "nothing moved");
    }

    /// A series is kept as long as the jornada of its sale: once that jornada is no longer
    /// kept (62 later ones), naming it is NOT_FOUND, and nothing changes.
    #[test]
    fn a_series_older_than_the_jornadas_kept_is_not_found() {
        let (_, mut state) = a_paid_series();
        for day in 1..=JORNADAS_KEPT as u64 {
            play(&mut state, "B1", START_MS + day * DAY_MS, vec![TableOp::OpenTable, TableOp::CloseTable]);
        }
        let balance = state.pool("iplyc-ruleta").state().balance;
        let refused = annul(&mut state, 4, "SE-000004", START_MS + 63 * DAY_MS).expect_err("no longer kept");
        assert_eq!(refused.kind, RefusalKind::NotFound, "{refused:?}");
        assert_eq!(state.pool("iplyc-ruleta").state().balance, balance);
    }
}
