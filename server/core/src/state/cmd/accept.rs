//! ACEPTAR: the round's prizes settled and their awards fixed (12.5.2.1 d, 3.5.1).

use pozo_engine::{PoolId, TableId};
use std::sync::Arc;

use pozo_engine::PrizeValue;
use pozo_engine::money::Money;

use crate::state::command::OrderFacts;
use crate::state::model::{Hit, LastWin, Phase, SeriesAward};
use crate::state::panel::{AwardRecord, LinkAward};
use crate::state::refusal::{engine_refusal, precondition};
use crate::state::{Context, Done, POOL_HITS_KEPT, Refusal, State, winners_of};

impl State {
    pub(in crate::state) fn accept(&mut self, context: Context, table_id: &TableId) -> Result<Done, Refusal> {
        let table = &self.data.tables[table_id];
        table.require_open()?;
        // 12.5.2.1 d: ACEPTAR validates the prizes entered, after FINALIZAR JUEGO closed
        // their entry (c) or straight after them.
        if !matches!(table.phase, Phase::Playing | Phase::Entered) {
            return Err(precondition("ACEPTAR validates prizes entered after INICIAR JUEGO (12.5.2.1)")
                .castellano("ACEPTAR valida los premios ingresados después de INICIAR JUEGO (12.5.2.1)."));
        }
        if table.pending.is_empty() {
            return Err(precondition("ACEPTAR: no prize entered (seat + winning combination first, 12.5.2.1)")
                .castellano("No hay premios ingresados para ACEPTAR: primero el box y la combinación ganadora (12.5.2.1)."));
        }
        let pool_id = table.pool.clone();
        let round = table.round;
        let winners = winners_of(table, &table.pending, self.pool(&pool_id).rules().side_bet_for(table.game))?;
        // The envy bonus: every other seat with a bet in force at the table — or at every table
        // of the link, as the rulebook says — wins it too (docs/readings.md, "The envy bonus");
        // each its own award, journaled with its seat and, across the link, its table.
        let in_force = self.in_force(&pool_id, table_id);
        let winners = pozo_engine::with_envy(self.pool(&pool_id).rules(), winners, table_id, &in_force);
        // 3.5.1: the award is fixed now, from what the display shows now.
        let bank = self.bank_of(table_id);
        let settlement = self.engine.settle_round_at(&pool_id, &winners, Some(&bank)).map_err(engine_refusal)?;
        let awards = self.book_settlement(context, table_id, round, &settlement);
        let total = settlement.total_paid();
        let table = self.table_mut(table_id);
        table.pending.clear();
        table.accepted.extend(awards.iter().cloned());
        table.phase = Phase::Accepted;
        let factor = settlement.factor.map(|factor| format!(" (FACTOR {})", factor.round_dp(6))).unwrap_or_default();
        // 3.7.3: each roulette award names its series, by which it may be annulled later.
        let mut series: Vec<String> = Vec::new();
        for award in &awards {
            if let Some(id) = table.seats.get(award.seat as usize - 1).and_then(|seat| seat.series_id.as_deref()) {
                let named = format!("posición {} serie {id}", award.seat);
                if !series.contains(&named) {
                    series.push(named);
                }
            }
        }
        let series = if series.is_empty() { String::new() } else { format!("; {}", series.join(", ")) };
        let count = awards.len();
        let prizes = crate::state::spanish_count(count as u64, "premio", "premios");
        Ok((format!("ACEPTAR: {prizes}, {} a pagar{factor}{series}", pozo_engine::format_ars(total)), awards))
    }

    /// Books a settlement: payout orders for Venta-Pagos, the round kept while an
    /// order is pending, PPPA of the jornada and hour, the pool's last hits and the
    /// cartel's last win. Returns the awards as the reply carries them.
    pub(in crate::state) fn book_settlement(
        &mut self,
        context: Context,
        table_id: &TableId,
        round: u64,
        settlement: &pozo_engine::Settlement,
    ) -> Vec<AwardRecord> {
        let Context { sequence, time_ms } = context;
        // Each award at its own table: the hitting table's, or across the link another's, each
        // with its own round, orders, PPPA and series (docs/readings.md, "The envy bonus").
        let mut tables: Vec<&TableId> = vec![table_id];
        for award in &settlement.awards {
            if let Some(at) = award.at.as_ref().filter(|at| !tables.contains(at)) {
                tables.push(at);
            }
        }
        let mut home = Vec::new();
        let mut any_order = false;
        let mut all = Vec::new();
        for table in tables {
            let here: Vec<&pozo_engine::Award> =
                settlement.awards.iter().filter(|award| award.at.as_ref().unwrap_or(table_id) == table).collect();
            if here.is_empty() {
                continue;
            }
            let at_home = table == table_id;
            let table_round = if at_home { round } else { self.data.tables[table].round };
            let mut awards = self.file_orders(context, table, table_round, &settlement.pool, &here);
            // Each award names the level that paid it; a bank's meter, the hitting table's bank's.
            let (rules, bank) = (self.pool(&settlement.pool).rules(), self.bank_of(table_id));
            for award in &mut awards {
                award.level = crate::state::view::award_level(rules, &award.code, &bank);
            }
            // 3.7.3: what a roulette series was paid, should it be found invalid afterwards.
            if self.data.tables[table].is_roulette() {
                self.keep_series(context, table, &awards);
            }
            any_order |= awards.iter().any(|award| award.payout_order_id.is_some());
            let day = self.day_at(time_ms);
            let paid: Money = awards.iter().map(|award| award.award).sum();
            {
                let meters = self.day_mut(&day.0, table);
                meters.pppa += paid;
                meters.hours.at(day.1).1 += paid;
            }
            all.extend(awards.iter().map(|award| (table.clone(), award.clone())));
            if at_home {
                home = awards;
            } else {
                let from = self.data.tables[table_id].id.clone();
                self.linked.push(table.clone());
                let linked = &mut self.table_mut(table).link_awards;
                linked.extend(awards.into_iter().map(|award| LinkAward { from: from.clone(), award }));
            }
        }
        if any_order {
            // Kept while an order of the round is pending: a rejection re-settles from it.
            let key = crate::state::model::round_key(self.data.generation, sequence);
            self.data.rounds.insert(key, settlement.book.clone());
        }
        self.record_hits(context, table_id, &settlement.pool, &all, settlement.total_paid());
        home
    }

    /// The settlement's awards as the reply carries them, each with the payout order it
    /// files for Venta-Pagos when it goes there.
    fn file_orders(
        &mut self,
        context: Context,
        table_id: &TableId,
        round: u64,
        pool_id: &PoolId,
        settled: &[&pozo_engine::Award],
    ) -> Vec<AwardRecord> {
        let Context { sequence, time_ms } = context;
        let table_key = self.data.tables[table_id].id.clone();
        // The engine field alone: the payout orders below go into `self.data`.
        let rules = self.engine.pool(pool_id).expect("settled just above").rules();
        let mut awards = Vec::with_capacity(settled.len());
        for award in settled {
            let percent = rules.prize(&award.code).is_some_and(|prize| matches!(prize.value, PrizeValue::Percent { .. }));
            // 3.5.2, 11.6.1.2, 15.8.2: percentages and awards over the rulebook's threshold go to
            // Venta-Pagos (docs/readings.md, "The Venta-Pagos threshold").
            // A pool with levels may set it per level or per prize (docs/readings.md, "Levels").
            let threshold = rules.venta_pagos_over_for(&award.code);
            let order_id = (award.award > Money::ZERO && (percent || award.award > threshold)).then(|| {
                let facts = OrderFacts {
                    pool: pool_id.clone(),
                    table_id: table_key.clone(),
                    seat: award.seat,
                    round,
                    code: award.code.clone(),
                    amount: award.award,
                };
                let id = self.data.file_order(facts, sequence, time_ms);
                if award.at.is_some() {
                    Arc::make_mut(&mut self.data.orders).get_mut(&id).expect("just filed").at = award.at.clone();
                }
                id
            });
            awards.push(AwardRecord {
                seat: award.seat,
                code: award.code.clone(),
                unlimited: award.unlimited,
                award: award.award,
                payout_order_id: order_id,
                grants: award.grants.as_ref().map(|grant| (grant.code.clone(), grant.count)),
                level: String::new(),
            });
        }
        awards
    }

    /// 3.7.3: each seat's series keeps what it was paid, every award, a share fixed at zero
    /// too: a rejection may later pay it (reject.rs).
    fn keep_series(&mut self, context: Context, table_id: &TableId, awards: &[AwardRecord]) {
        let Context { sequence, time_ms } = context;
        let generation = self.data.generation;
        for award in awards {
            let series_id = self.data.tables[table_id].seats.get(award.seat as usize - 1).and_then(|seat| seat.series_id.clone());
            let Some(series) = series_id.and_then(|id| self.data.series.get_mut(id.as_str()).map(Arc::make_mut)) else {
                // A seat holding grillos from a snapshot of a release before series were
                // numbered: its award cannot be named, so it cannot be annulled.
                continue;
            };
            series.awards.push(SeriesAward {
                code: award.code.clone(),
                amount: award.award,
                journal_sequence: sequence,
                generation,
                time_ms,
                payout_order_id: award.payout_order_id.clone(),
            });
        }
    }

    /// The pool's last hits and the cartel's last win, of the awards that paid money, each at
    /// its own table; the last win is the hitting table's.
    fn record_hits(
        &mut self,
        context: Context,
        table_id: &TableId,
        pool_id: &PoolId,
        awards: &[(TableId, AwardRecord)],
        total: Money,
    ) {
        let Context { sequence, time_ms } = context;
        let table_key = self.data.tables[table_id].id.clone();
        let hits = Arc::make_mut(&mut self.data.hits).entry(pool_id.clone()).or_default();
        // The last hits are prizes that paid money: a bronze exchanged for silver is not one.
        for (table, award) in awards.iter().filter(|(_, award)| award.award > Money::ZERO) {
            hits.push_front(Hit {
                table_id: table.clone(),
                seat: award.seat,
                code: award.code.clone(),
                amount: award.award,
                time_ms,
                journal_sequence: sequence,
            });
        }
        hits.truncate(POOL_HITS_KEPT);
        // The cartel shows a win that pays money; a bronze exchanged for silver pays none.
        let home = awards.iter().filter(|(table, _)| table == table_id).map(|(_, award)| award);
        if let Some(top) = home.filter(|_| total > Money::ZERO).max_by_key(|award| award.award) {
            self.data.last_wins.insert(
                pool_id.clone(),
                LastWin {
                    table_id: table_key.clone(),
                    seat: top.seat,
                    code: top.code.clone(),
                    amount: total,
                    journal_sequence: sequence,
                },
            );
        }
    }

    /// The seats with a side bet in force now: at `table_id`, and — where the pool's paytable
    /// has an envy bonus across the link — at the pool's other tables, in the layout's order.
    pub(in crate::state) fn in_force(&self, pool_id: &PoolId, table_id: &TableId) -> pozo_engine::InForce {
        let registered = |table: &crate::state::model::Table| -> Vec<(u32, Money)> {
            table
                .seats
                .iter()
                .enumerate()
                .filter_map(|(index, seat)| match &seat.bet {
                    crate::state::model::Bet::Registered { contribution, .. } => Some((index as u32 + 1, contribution.bet)),
                    _ => None,
                })
                .collect()
        };
        let here = registered(&self.data.tables[table_id]);
        let across = self
            .pool(pool_id)
            .rules()
            .prizes
            .iter()
            .any(|prize| prize.envy.as_ref().is_some_and(|envy| envy.scope == pozo_engine::EnvyScope::Link));
        let elsewhere = if across {
            self.data
                .tables
                .values()
                .filter(|table| &table.pool == pool_id && &table.id != table_id)
                .flat_map(|table| registered(table).into_iter().map(|(seat, bet)| (table.id.clone(), seat, bet)))
                .collect()
        } else {
            Vec::new()
        };
        pozo_engine::InForce { here, elsewhere }
    }
}
