//! INICIAR JUEGO: the pressed bets registered, betting closed (12.5.1.1, 16.4.2.1.6).

use crate::state::command::Card;
use crate::state::model::{Bet, Phase};
use crate::state::refusal::{engine_refusal, precondition};
use crate::state::{Context, Done, Refusal, State};
use pozo_engine::TableId;

impl State {
    pub(in crate::state) fn start_round(
        &mut self,
        context: Context,
        table_id: &TableId,
        card: Option<&Card>,
    ) -> Result<Done, Refusal> {
        let time_ms = context.time_ms;
        let table = &self.data.tables[table_id];
        table.require_open()?;
        if table.phase != Phase::Betting {
            return Err(precondition("INICIAR JUEGO: the round is already started; FINALIZAR JUEGO first (12.5.2.3)")
                .castellano("La jugada ya está iniciada: primero FINALIZAR JUEGO (12.5.2.3)."));
        }
        // 3.7.1.2: an absent player's gold waits for him; the table plays on without it.
        if table.is_roulette() && table.seats.iter().any(|seat| seat.plays_gold()) {
            let turn = self.data.gold_turns.get(&table.pool);
            if turn.and_then(|turn| turn.holder.as_deref()) != Some(table_id) {
                let holder = turn.and_then(|turn| turn.holder.clone());
                return Err(match holder {
                    Some(holder) => precondition(format!(
                        "Se juega Grillo de Oro en la mesa {holder}: table {table_id} waits for its gold turn (4.3.5)"
                    ))
                    .castellano(format!(
                        "Se juega Grillo de Oro en la mesa {holder}: la mesa {table_id} espera su turno (4.3.5)."
                    )),
                    None => precondition(format!("table {table_id} holds a Grillo de Oro: request the gold turn first (4.3.5)"))
                        .castellano(format!(
                            "La mesa {table_id} tiene un Grillo de Oro: primero pida el turno del Grillo de Oro (4.3.5)."
                        )),
                });
            }
        }
        // 15.11.2: the card "en forma aleatoria y sorpresiva aparece en el monitor": the
        // server decides, with the rulebook's chance, whether one appears in this round
        // and which (docs/readings.md, "When the instant card appears"); one in play
        // stays until won (15.11.4).
        let draw_card = table.plays_instant_prize() && table.instant_card.is_none() && card.is_some();
        let pool_id = table.pool.clone();
        let game = table.game;
        let bank = self.bank_of(table_id);
        let pressed: Vec<(u32, u32)> = table
            .seats
            .iter()
            .enumerate()
            .filter_map(|(index, seat)| match seat.bet {
                Bet::Pressed { credits } => Some((index as u32 + 1, credits)),
                _ => None,
            })
            .collect();
        let day = self.day_at(time_ms);
        // 12.5.1.1: INICIAR JUEGO registers the bets pressed so far; 16.4.2.1.6 drops the
        // chips. Each is its stake in credits (AJ 2.5.4.1), checked at the press.
        // Every bet is tried on a copy first: INICIAR JUEGO registers all of them or none.
        let mut trial = self.pool(&pool_id).clone();
        for (_, credits) in &pressed {
            trial.register_bet_at(trial.rules().bet_for(game, *credits), Some(&bank)).map_err(engine_refusal)?;
        }
        for (seat, credits) in &pressed {
            let bet = trial.rules().bet_for(game, *credits);
            let contribution = self.engine.register_bet_at(&pool_id, bet, Some(&bank)).map_err(engine_refusal)?;
            crate::planted::book_to_another_level(&mut self.engine, &self.config.rulebooks, &pool_id, &contribution);
            self.feed_mystery(context, &pool_id, table_id, *seat, &contribution);
            let bet = contribution.bet;
            self.table_mut(table_id).seat_mut(*seat).bet =
                Bet::Registered { contribution, registered_ms: time_ms, credits: *credits };
            self.book_ipa(&day, table_id, bet, 1);
        }
        // 3.7.3: each series whose player is at the table takes part in this ball.
        self.series_in_ball(table_id);
        let table = self.table_mut(table_id);
        table.phase = Phase::Playing;
        table.carried = false;
        if draw_card {
            table.instant_card = card.cloned();
        }
        let card_text = if draw_card {
            card.map(|card| format!("; premio instantáneo en juego: {} de {}", card.rank, card.suit)).unwrap_or_default()
        } else {
            String::new()
        };
        let registered = crate::state::spanish_count(pressed.len() as u64, "apuesta registrada", "apuestas registradas");
        Ok((format!("INICIAR JUEGO: {registered}{card_text}"), Vec::new()))
    }
}
