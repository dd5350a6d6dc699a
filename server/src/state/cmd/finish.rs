//! FINALIZAR JUEGO: the round ends, grillos exchanged, the panels enabled (12.5.2.3, 3.1.3).

use pozo_engine::{Grillo, PrizeCode};
use pozo_engine::{PoolId, TableId};

use crate::state::model::{Bet, Phase};
use crate::state::refusal::precondition;
use crate::state::{Done, Refusal, State};

impl State {
    pub(in crate::state) fn finish_round(&mut self, table_id: &TableId) -> Result<Done, Refusal> {
        let table = &self.data.tables[table_id];
        table.require_open()?;
        if table.phase == Phase::Betting {
            return Err(precondition("FINALIZAR JUEGO ends a round started with INICIAR JUEGO (12.5.2.3)"));
        }
        if !table.pending.is_empty() {
            return Err(precondition("prizes entered and not accepted: ACEPTAR first (12.5.2.1)"));
        }
        let roulette = table.is_roulette();
        let pool_id = table.pool.clone();
        let played_gold = table.seats.iter().any(|seat| seat.gold > 0);
        // 3.1.3: a bronze hit grants silvers, a silver hit a gold (the rulebook's counts).
        let bronze_grant = self.grant_count(&pool_id, Grillo::Bronce, 2);
        let silver_grant = self.grant_count(&pool_id, Grillo::Plata, 1);
        let table = self.table_mut(table_id);
        let hits: Vec<(u32, PrizeCode)> = table.accepted.iter().map(|award| (award.seat, award.code.clone())).collect();
        for (index, seat) in table.seats.iter_mut().enumerate() {
            seat.bet = Bet::None;
            if roulette {
                let hit = |grillo: Grillo| {
                    hits.iter().any(|(hit_seat, hit_code)| *hit_seat == index as u32 + 1 && hit_code == grillo.code())
                };
                // 3.1.3: every grillo held was played in this ball; a hit exchanges it for the next metal.
                let (bronze, silver, gold) = if hit(Grillo::Bronce) {
                    (0, bronze_grant, 0)
                } else if hit(Grillo::Plata) {
                    (0, 0, silver_grant)
                } else {
                    (0, 0, 0)
                };
                seat.bronze = bronze;
                seat.silver = silver;
                seat.gold = gold;
            }
        }
        table.pending.clear();
        table.accepted.clear();
        table.phase = Phase::Betting;
        table.round += 1;
        let mut outcome = format!("FINALIZAR JUEGO: ronda {} terminada, paneles habilitados", table.round - 1);
        if roulette && played_gold {
            // 4.3.5: the gold is played; the next table waiting for its turn plays now.
            if let Some(turn) = self.data.gold_turns.get_mut(&pool_id)
                && turn.holder.as_deref() == Some(table_id)
            {
                turn.holder = turn.waiting.pop_front();
                if let Some(next) = &turn.holder {
                    outcome.push_str(&format!("; se juega Grillo de Oro en la mesa {next}"));
                }
            }
        }
        Ok((outcome, Vec::new()))
    }

    pub(in crate::state) fn grant_count(&self, pool_id: &PoolId, grillo: Grillo, default: u32) -> u32 {
        self.pool(pool_id)
            .rules()
            .prize(grillo.code())
            .and_then(|prize| prize.grants.as_ref())
            .map(|grant| grant.count)
            .unwrap_or(default)
    }
}
