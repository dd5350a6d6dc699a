//! FINALIZAR JUEGO (12.5.2.1 c, 12.5.2.3, 16.4.2.5.6 c, 16.4.2.5.12): with prizes entered
//! it closes their entry, for ACEPTAR to validate; otherwise, at the rack, it ends the
//! round: grillos exchanged, the panels enabled.

use pozo_engine::{Grillo, PrizeCode};
use pozo_engine::{PoolId, TableId};

use crate::state::model::{Bet, Grillos, Phase, Seat};
use crate::state::refusal::precondition;
use crate::state::{Done, Refusal, State};

impl State {
    pub(in crate::state) fn finish_round(&mut self, table_id: &TableId) -> Result<Done, Refusal> {
        let table = &self.data.tables[table_id];
        table.require_open()?;
        match table.phase {
            Phase::Betting => {
                return Err(precondition("FINALIZAR JUEGO ends a round started with INICIAR JUEGO (12.5.2.3)")
                    .castellano("FINALIZAR JUEGO termina una jugada iniciada con INICIAR JUEGO (12.5.2.3)."));
            }
            Phase::Entered => {
                return Err(precondition("the prizes entered wait for ACEPTAR, which validates them (12.5.2.1 d)")
                    .castellano("Los premios ingresados esperan ACEPTAR, que los valida (12.5.2.1 d)."));
            }
            // 12.5.2.1: "ingresará … los datos de los premios ganadores … a) Número de
            // Apostador ganador. b) juego ganador. c) ingresar presionando el botón
            // FINALIZAR JUEGO. d) digitar el botón ACEPTAR para validar el premio."
            Phase::Playing if !table.pending.is_empty() => {
                let count = table.pending.len();
                self.table_mut(table_id).phase = Phase::Entered;
                let (entered, them) = match count {
                    1 => ("1 premio ingresado".to_owned(), "validarlo"),
                    _ => (format!("{count} premios ingresados"), "validarlos"),
                };
                return Ok((format!("FINALIZAR JUEGO: {entered}; ACEPTAR para {them} (12.5.2.1 c–d)"), Vec::new()));
            }
            Phase::Playing | Phase::Accepted => {}
        }
        let roulette = table.is_roulette();
        let pool_id = table.pool.clone();
        // 3.1.3: a bronze hit grants silvers, a silver hit a gold (the rulebook's counts).
        let bronze_grant = self.grant_count(&pool_id, Grillo::Bronce);
        let silver_grant = self.grant_count(&pool_id, Grillo::Plata);
        let table = self.table_mut(table_id);
        let hits: Vec<(u32, PrizeCode)> = table.accepted.iter().map(|award| (award.seat, award.code.clone())).collect();
        end_seats(&mut table.seats, &hits, roulette, (bronze_grant, silver_grant));
        table.pending.clear();
        table.accepted.clear();
        table.link_awards.clear();
        table.phase = Phase::Betting;
        table.round += 1;
        let mut outcome = format!("FINALIZAR JUEGO: ronda {} terminada, paneles habilitados", table.round - 1);
        if roulette && let Some(next) = self.pass_gold_turn(&pool_id, table_id) {
            outcome.push_str(&format!("; se juega Grillo de Oro en la mesa {next}"));
        }
        Ok((outcome, Vec::new()))
    }

    /// 4.3.5: the gold turn was for this ball; the next table waiting plays now. That
    /// table, if one was waiting.
    fn pass_gold_turn(&mut self, pool_id: &PoolId, table_id: &TableId) -> Option<TableId> {
        if let Some(turn) = self.data.gold_turns.get_mut(pool_id)
            && turn.holder.as_deref() == Some(table_id)
        {
            turn.holder = turn.waiting.pop_front();
            return turn.holder.clone();
        }
        None
    }

    /// How many of the next metal a hit of `grillo` grants: the rulebook's count (3.4.1.1:
    /// two silvers for a bronze; 3.4.1.2: the gold for a silver), none for a gold.
    pub(in crate::state) fn grant_count(&self, pool_id: &PoolId, grillo: Grillo) -> u32 {
        self.pool(pool_id).rules().prize(grillo.code()).and_then(|prize| prize.grants.as_ref()).map_or(0, |grant| grant.count)
    }

    /// True when a hit of `hit` would grant more of the next metal than one player may have
    /// in play beside those `kept` unplayed from this ball (3.7.2, 3.7.10).
    pub(in crate::state) fn grant_over_limit(&self, pool_id: &PoolId, hit: Grillo, kept: &Grillos) -> bool {
        hit.next().is_some_and(|next| kept.of(next) + self.grant_count(pool_id, hit) > next.most_in_play())
    }
}

/// Each seat at the end of a round: at a card table its bet ends; at roulette every grillo
/// played is spent and a hit exchanged for the next metal, with `grants` (silvers for a
/// bronze, golds for a silver) the rulebook's counts.
fn end_seats(seats: &mut [Seat], hits: &[(u32, PrizeCode)], roulette: bool, grants: (u32, u32)) {
    let (bronze_grant, silver_grant) = grants;
    for (index, seat) in seats.iter_mut().enumerate() {
        if !roulette {
            seat.bet = Bet::None;
            continue;
        }
        // 3.7.1: an absent player's grillos are kept as they are, unplayed.
        if seat.absent {
            continue;
        }
        let hit =
            |grillo: Grillo| hits.iter().any(|(hit_seat, hit_code)| *hit_seat == index as u32 + 1 && hit_code == grillo.code());
        // 3.1.3: every grillo played in this ball is spent; a hit exchanges it for the
        // next metal. 3.7.4, 3.7.10: those not played (or played off a pleno) stay.
        let kept = seat.not_played;
        let next = Grillos {
            bronze: kept.bronze,
            silver: kept.silver + if hit(Grillo::Bronce) { bronze_grant } else { 0 },
            gold: kept.gold + if hit(Grillo::Plata) { silver_grant } else { 0 },
        };
        // 3.7.9: three bronzes not played at all are still the unplayed sale a close returns.
        let sale_unplayed = matches!(seat.bet, Bet::Registered { .. }) && kept.bronze == seat.bronze && kept.bronze > 0;
        if !sale_unplayed {
            seat.bet = Bet::None;
        }
        seat.set_held(next);
        seat.not_played = Grillos::default();
    }
}
