//! A pulsador or slot drop: the seat's side bet (4.4.2, 12.3.1, 15.1.2), in credits (AJ 2.5.4.1).

use pozo_engine::pool::check_bet_allowed;

use crate::state::model::{Bet, Phase, Seat, Table};
use crate::state::refusal::{engine_refusal, invalid, precondition, with_citation};
use crate::state::{Context, Done, Refusal, SEAT_CREDITS_MAX, State};
use pozo_engine::TableId;
use pozo_engine::money::Money;

impl State {
    /// A press staking `credits` credits. AJ 2.5.4.1: "Para apostar, el jugador debe
    /// presionar el botón respectivo, seleccionando el monto de su apuesta, expresado en
    /// créditos"; the bet is `credits` × the credit value, within the pool's bets.
    pub(in crate::state) fn press(
        &mut self,
        context: Context,
        table_id: &TableId,
        seat_number: u32,
        credits: u32,
    ) -> Result<Done, Refusal> {
        let time_ms = context.time_ms;
        let bet = self.press_allowed(table_id, seat_number, credits)?;
        let day = self.day_at(time_ms);
        let table = &self.data.tables[table_id];
        let roulette = table.is_roulette();
        let pool_id = table.pool.clone();
        if roulette {
            // 4.4.2: roulette bets are registered at the press: the sale of 3 Grillos de Bronce (3.1.3).
            let bank = self.bank_for_levels(table);
            let contribution = self.engine.register_bet_at(&pool_id, bet, Some(&bank)).map_err(engine_refusal)?;
            if crate::planted::on(crate::planted::Bug::ForgetContribution) && crate::planted::is_replaying() {
                // Planted (`planted-bugs` only): recovery forgets what the press gave the pool.
                self.engine.reverse_bet(&pool_id, contribution.clone()).map_err(engine_refusal)?;
            }
            self.feed_mystery(context, &pool_id, table_id, seat_number, &contribution);
            let seat = self.table_mut(table_id).seat_mut(seat_number);
            seat.credits -= credits;
            let bet = contribution.bet;
            seat.bet = Bet::Registered { contribution, registered_ms: time_ms, credits };
            seat.bronze = 3;
            self.book_ipa(&day, table_id, bet, 1);
        } else {
            let seat = self.table_mut(table_id).seat_mut(seat_number);
            seat.credits -= credits;
            seat.bet = Bet::Pressed { credits };
        }
        self.day_mut(&day.0, table_id).presses += 1;
        let stake = if credits == 1 { String::new() } else { format!(", {credits} créditos") };
        // A new series (3.1.3): what 3.7.3 could make the player give back starts here, named.
        let series = match roulette {
            true => format!(", serie {}", self.sell_series(context, &day.0, table_id, seat_number)),
            false => String::new(),
        };
        Ok((format!("Apuesta a pozo registrada: posición {seat_number}{stake}{series}"), Vec::new()))
    }

    /// The checks of a press, before anything changes: an open seat at an open table in
    /// its betting phase, a stake the pool takes and the seat holds, and no bet already in
    /// play. The bet the stake makes.
    fn press_allowed(&self, table_id: &TableId, seat_number: u32, credits: u32) -> Result<Money, Refusal> {
        let table = &self.data.tables[table_id];
        table.require_open()?;
        let seat = table.seat(seat_number)?;
        seat.require_open(seat_number)?;
        if table.phase != Phase::Betting {
            return Err(precondition(format!(
                "seat {seat_number}: betting is closed after INICIAR JUEGO; no side bet until FINALIZAR JUEGO (12.5.1.1)"
            ))
            .castellano(format!(
                "Box {seat_number}: las apuestas al pozo se cerraron con INICIAR JUEGO; hasta FINALIZAR JUEGO no se apuesta (12.5.1.1)."
            )));
        }
        if table.carried {
            return Err(precondition("the bets of the burnt round compete in this hand: no new bets (11.8.1.1)").castellano(
                "Las apuestas de la talla quemada compiten en esta mano: no se aceptan apuestas nuevas (11.8.1.1).",
            ));
        }
        if credits == 0 || credits > SEAT_CREDITS_MAX {
            return Err(invalid(format!("credits: {credits} is not a stake of 1 to {SEAT_CREDITS_MAX} credits (AJ 2.5.4.1)"))
                .castellano(format!(
                    "Una apuesta de {credits} créditos no es válida: se apuesta de 1 a {SEAT_CREDITS_MAX} créditos (AJ 2.5.4.1)."
                )));
        }
        let rules = self.pool(&table.pool).rules();
        // 3.3.1, 11.4.1, 15.1.2 (a fixed amount), AJ 2.5.5.1 (between the posted minimum
        // and maximum): the stake in credits must be a bet the pool takes.
        let bet = rules.bet_for(table.game, credits);
        check_bet_allowed(rules, "credits", bet).map_err(|error| {
            let credit = pozo_engine::format_ars(rules.side_bet_for(table.game));
            let allowed = match rules.fixed_bet() {
                true => format!("solo se juega un crédito de {credit}"),
                false => format!(
                    "se apuesta de {} a {}",
                    pozo_engine::format_ars(rules.bet_min),
                    pozo_engine::format_ars(rules.bet_max)
                ),
            };
            let spanish = with_citation(
                format!("Una apuesta de {credits} créditos de {credit} no es una que acepte el pozo: {allowed}"),
                &error.to_string(),
            );
            invalid(format!("{error} ({credits} credits of {credit})")).castellano(spanish)
        })?;
        if seat.credits == 0 {
            return Err(precondition(format!("seat {seat_number} has no credits: sell credits first (12.5.3.4)"))
                .castellano(format!("Box {seat_number}: no tiene créditos; primero la venta de créditos (12.5.3.4).")));
        }
        if seat.credits < credits {
            return Err(precondition(format!(
                "seat {seat_number} holds {} credits, fewer than the {credits} staked: sell credits first (12.5.3.4)",
                seat.credits
            ))
            .castellano(format!(
                "Box {seat_number}: tiene {} créditos, menos que los {credits} de la apuesta; primero la venta de créditos (12.5.3.4).",
                seat.credits
            )));
        }
        one_bet_in_play(table, seat, seat_number)?;
        Ok(bet)
    }
}

/// One bet in play per seat: at roulette, one series of grillos at a time, never after the
/// last ball nor for an absent player (3.9.1, 3.7.1, 3.7.2); at a card table, one side bet
/// per box (11.4).
fn one_bet_in_play(table: &Table, seat: &Seat, seat_number: u32) -> Result<(), Refusal> {
    if table.is_roulette() {
        if table.last_round {
            return Err(precondition("last ball announced: Grillos de Bronce are no longer sold (3.9.1)")
                .castellano("Se anunció la última bola: ya no se venden Grillos de Bronce (3.9.1)."));
        }
        if seat.absent {
            return Err(precondition(format!(
                "seat {seat_number}: its player is absent and his grillos are kept for him (3.7.1)"
            ))
            .castellano(format!("Posición {seat_number}: el apostador está ausente y sus grillos se le guardan (3.7.1).")));
        }
        if seat.grillos() > 0 || seat.bet != Bet::None {
            return Err(precondition(format!(
                "seat {seat_number} holds {} bronze, {} silver, {} gold: a new series would put more than 3 bronze / 2 silver / 1 gold in play (3.7.2)",
                seat.bronze, seat.silver, seat.gold
            ))
            .castellano(format!(
                "Posición {seat_number}: tiene {} de bronce, {} de plata y {} de oro; una serie nueva pondría en juego más de 3 de bronce, 2 de plata o 1 de oro (3.7.2).",
                seat.bronze, seat.silver, seat.gold
            )));
        }
    } else if seat.bet != Bet::None {
        return Err(precondition(format!("seat {seat_number} already has its side bet this round (11.4: one per box)"))
            .castellano(format!("Box {seat_number}: ya tiene su apuesta al pozo en esta jugada; una por box (11.4).")));
    }
    Ok(())
}
