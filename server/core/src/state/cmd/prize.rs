//! A premio code entered for a seat (12.5.2.1); the premio instantáneo is paid at once (16.4.2.5.1).

use pozo_engine::Grillo;
use pozo_engine::TableId;

use crate::state::model::{Bet, Phase, Table};
use crate::state::panel::PrizeEntry;
use crate::state::refusal::{engine_refusal, invalid, precondition};
use crate::state::{Context, Done, INSTANT_PRIZE, PENDING_PRIZES_MAX, Refusal, State, winners_of};

impl State {
    pub(in crate::state) fn enter_prize(
        &mut self,
        context: Context,
        table_id: &TableId,
        seat_number: u32,
        code: &str,
        high: Option<&str>,
    ) -> Result<Done, Refusal> {
        let name = self.prize_allowed(table_id, seat_number, code)?;
        if code == INSTANT_PRIZE {
            return self.pay_instant_prize(context, table_id, seat_number, code);
        }
        let table = &self.data.tables[table_id];
        let pool = self.pool(&table.pool);
        let entry = PrizeEntry { seat: seat_number, code: code.into(), high: high.map(str::to_owned) };
        // The engine checks the whole round as it will be accepted: the paytable, the
        // bet a ×bet prize needs, a combination marked twice, the rank of 6.4.
        let mut entries = table.pending.clone();
        entries.push(entry.clone());
        let winners = winners_of(table, &entries, pool.rules().side_bet_for(table.game))?;
        pool.preview_round_at(&winners, Some(&self.bank_of(table_id))).map_err(engine_refusal)?;
        self.table_mut(table_id).pending.push(entry);
        Ok((format!("Premio ingresado: posición {seat_number}, {name}"), Vec::new()))
    }

    /// The checks of a premio entered, before anything changes: an open seat at an open
    /// table, in the phase that takes it, a code of the paytable, room among the round's
    /// prizes, and a seat that can win it. The premio's name.
    fn prize_allowed(&self, table_id: &TableId, seat_number: u32, code: &str) -> Result<String, Refusal> {
        let table = &self.data.tables[table_id];
        table.require_open()?;
        let seat = table.seat(seat_number)?;
        seat.require_open(seat_number)?;
        prize_phase(table, code)?;
        let pool = self.pool(&table.pool);
        let Some(prize) = pool.rules().prize(code) else {
            let codes: Vec<&str> = pool.rules().prizes.iter().map(|prize| prize.code.as_str()).collect();
            return Err(invalid(format!(
                "code: `{code}` is not in the paytable of pool `{}` ({})",
                table.pool,
                codes.join(", ")
            ))
            .castellano(format!(
                "El premio {code} no está en la tabla de premios del pozo {}; los códigos son: {}.",
                table.pool,
                codes.join(", ")
            )));
        };
        // A mystery level's hit and a hot seat are the controller's draw, never a dealer's entry
        // (docs/readings.md, "The mystery level").
        if pool.rules().is_drawn(code) {
            return Err(invalid(format!(
                "code: `{code}` is paid by the controller's draw (a mystery level or a hot seat), never entered"
            ))
            .castellano(format!(
                "El premio {code} lo decide el sorteo del controlador (pozo misterioso o asiento caliente): no se ingresa."
            )));
        }
        // A link across games: each game marks its own paytable's codes; an envy bonus
        // follows the hand it envies and is never entered (docs/readings.md, "Levels").
        if !pool.rules().game_marks(table.game, code) {
            let why = match prize.envy_of.as_deref() {
                Some(hand) => (
                    format!("`{code}` is the envy bonus of `{hand}`: it is paid when that hand is accepted, never entered"),
                    format!("El premio {code} es el bono por envidia de {hand}: se paga al aceptar esa mano, no se ingresa."),
                ),
                None => (
                    format!("`{code}` is not paid at a table of `{}` in pool `{}`", table.game, table.pool),
                    format!("El premio {code} no se paga en una mesa de {} del pozo {}.", table.game, table.pool),
                ),
            };
            return Err(invalid(format!("code: {}", why.0)).castellano(why.1));
        }
        if table.pending.len() >= PENDING_PRIZES_MAX {
            return Err(precondition(format!("prizes: at most {PENDING_PRIZES_MAX} in one round; ACEPTAR those entered first"))
                .castellano(format!(
                    "Se ingresan a lo sumo {PENDING_PRIZES_MAX} premios por jugada: primero ACEPTAR los ingresados."
                )));
        }
        if table.is_roulette() {
            self.grillo_can_win(table_id, seat_number, code)?;
        } else if !matches!(seat.bet, Bet::Registered { .. }) {
            return Err(precondition(format!("seat {seat_number} has no side bet registered in this round (11.11.5)"))
                .castellano(format!("Box {seat_number}: no tiene apuesta al pozo registrada en esta jugada (11.11.5).")));
        }
        if code == INSTANT_PRIZE && table.instant_card.is_none() {
            return Err(precondition("no premio instantáneo is in play at this table (15.11)")
                .castellano("No hay premio instantáneo en juego en esta mesa (15.11)."));
        }
        Ok(prize.name.clone())
    }

    /// At roulette, a hit is a grillo the seat holds and played in this ball, whose grant
    /// keeps within the grillos in play, and a gold only in the table's gold turn.
    fn grillo_can_win(&self, table_id: &TableId, seat_number: u32, code: &str) -> Result<(), Refusal> {
        let table = &self.data.tables[table_id];
        let seat = table.seat(seat_number)?;
        if seat.absent {
            return Err(precondition(format!(
                "seat {seat_number}: the player is absent; his grillos are kept, not played (3.7.1)"
            ))
            .castellano(format!(
                "Posición {seat_number}: el apostador está ausente; sus grillos se guardan, no se juegan (3.7.1)."
            )));
        }
        // 3.1.3, 3.7.2: a grillo wins only if the seat holds one of that metal, played
        // in this ball (3.7.10: those not played wait for the next).
        let grillo = Grillo::of_code(code);
        let (held, played, metal) = match grillo {
            Some(grillo) => (seat.held().of(grillo), seat.held().of(grillo) - seat.not_played.of(grillo), grillo.name()),
            None => (0, 0, "grillo"),
        };
        if held == 0 {
            let (rule, regla) = match grillo == Some(Grillo::Oro) {
                true => ("a gold is won with a silver (3.1.3)", "; el Oro se gana con un Grillo de Plata"),
                false => ("3.1.3", ""),
            };
            return Err(precondition(format!("seat {seat_number} holds no {metal} in this ball: {rule}"))
                .castellano(format!("Posición {seat_number}: no tiene {metal} en esta bola{regla} (3.1.3).")));
        }
        if played == 0 {
            return Err(precondition(format!(
                "seat {seat_number} holds no {metal} in this ball that was played: those not played wait for the next (3.7.10)"
            ))
            .castellano(format!(
                "Posición {seat_number}: no jugó ningún {metal} en esta bola; los no jugados esperan a la siguiente (3.7.10)."
            )));
        }
        // 3.7.2: no more than 2 silvers or 1 gold in play; a hit whose grant would
        // join grillos kept from this ball over that is refused.
        if grillo.is_some_and(|hit| self.grant_over_limit(&table.pool, hit, &seat.not_played)) {
            return Err(precondition(format!(
                "seat {seat_number}: with the grillos kept from this ball, this hit would put more than 2 silver or 1 gold in play (3.7.2)"
            ))
            .castellano(format!(
                "Posición {seat_number}: con los grillos guardados de esta bola, este acierto pondría en juego más de 2 de plata o 1 de oro (3.7.2)."
            )));
        }
        if grillo == Some(Grillo::Oro) {
            let holder = self.data.gold_turns.get(&table.pool).and_then(|turn| turn.holder.as_deref());
            if holder != Some(table_id) {
                return Err(precondition("the gold is played only in the table's gold turn (4.3.5)")
                    .castellano("El Grillo de Oro se juega solo en el turno de la mesa (4.3.5)."));
            }
        }
        Ok(())
    }

    /// 16.4.2.5.1: "Identificado el naipe correspondiente al PREMIO INSTANTÁNEO,
    /// procederá a su pago en forma inmediata": its own event, settled alone, before
    /// the hand and never prorated with the round's prizes (15.9).
    fn pay_instant_prize(&mut self, context: Context, table_id: &TableId, seat_number: u32, code: &str) -> Result<Done, Refusal> {
        let table = &self.data.tables[table_id];
        let pool = self.pool(&table.pool);
        let entry = PrizeEntry { seat: seat_number, code: code.into(), high: None };
        let winners = winners_of(table, std::slice::from_ref(&entry), pool.rules().side_bet_for(table.game))?;
        let pool_id = table.pool.clone();
        let round = table.round;
        let bank = self.bank_of(table_id);
        let settlement = self.engine.settle_round_at(&pool_id, &winners, Some(&bank)).map_err(engine_refusal)?;
        let awards = self.book_settlement(context, table_id, round, &settlement);
        let table = self.table_mut(table_id);
        // 15.11.4: won, the card leaves the monitor; another may appear in a later round.
        table.instant_card = None;
        table.accepted.extend(awards.iter().cloned());
        let paid = pozo_engine::format_ars(settlement.total_paid());
        Ok((format!("Premio instantáneo pagado: posición {seat_number}, {paid} (16.4.2.5.1)"), awards))
    }
}

/// The phase a premio is entered in: the premio instantáneo until FINALIZAR JUEGO (15.11.5),
/// any other between INICIAR JUEGO and FINALIZAR JUEGO, before ACEPTAR (12.5.2.1).
fn prize_phase(table: &Table, code: &str) -> Result<(), Refusal> {
    if code == INSTANT_PRIZE && table.plays_instant_prize() {
        // 15.11.5: "Una vez ingresados los naipes al descartero no se aceptarán
        // reclamos sobre el Premio Instantáneo": it may be claimed until FINALIZAR
        // JUEGO, pressed when the cards go into the rack (16.4.2.5.12, 12.5.2.3).
        if table.phase == Phase::Betting {
            return Err(precondition(
                "the cards are in the rack (FINALIZAR JUEGO): no claim on the premio instantáneo is accepted (15.11.5, 16.4.2.5.12)",
            )
            .castellano(
                "Los naipes ya están en el descartero (FINALIZAR JUEGO): no se aceptan reclamos por el premio instantáneo \
                 (15.11.5, 16.4.2.5.12).",
            ));
        }
    } else if table.phase == Phase::Entered {
        return Err(precondition(
            "the prizes were entered with FINALIZAR JUEGO: ACEPTAR validates them before another is entered (12.5.2.1 c–d)",
        )
        .castellano("Los premios se ingresaron con FINALIZAR JUEGO: ACEPTAR los valida antes de ingresar otro (12.5.2.1 c–d)."));
    } else if table.phase != Phase::Playing {
        return Err(precondition("prizes are entered after INICIAR JUEGO and before ACEPTAR (12.5.2.1)")
            .castellano("Los premios se ingresan después de INICIAR JUEGO y antes de ACEPTAR (12.5.2.1)."));
    }
    Ok(())
}
