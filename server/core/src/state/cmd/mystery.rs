//! The mystery level and its hot seat (docs/readings.md, "The mystery level"; docs/journal.md,
//! "draw" and "reveal"): the contributions a cycle is checked against, the draw the controller
//! journals at each reset, and the reveal at the hit, checked here in full, so that replaying
//! the journal — the server's recovery, `verify`, the offline verifier — proves each hit came
//! at the first contribution that reached a trigger committed to before it.

use pozo_engine::money::Money;
use pozo_engine::{Contribution, PoolId, TableId};

use crate::state::command::{DrawCommand, RevealCommand};
use crate::state::draw::{self, DrawHead, LastFed, Mystery, OpenDraw, SeatAt};
use crate::state::model::Bet;
use crate::state::panel::LinkAward;
use crate::state::refusal::{engine_refusal, invalid, precondition};
use crate::state::{Applied, Context, Refusal, State};

/// The most hex digits a sealed draw takes (its trigger and nonce, sealed, with their tag).
const SEALED_MAX: usize = 512;

impl State {
    /// Notes a seat's contribution against the pool's open mystery cycles: the meter before
    /// and after each command that fed a level, each seat's share in order.
    pub(in crate::state) fn feed_mystery(
        &mut self,
        context: Context,
        pool_id: &PoolId,
        table_id: &TableId,
        seat: u32,
        contribution: &Contribution,
    ) {
        let rules = self.pool(pool_id).rules();
        let fed: Vec<(String, Money, Money)> = rules
            .mystery_levels()
            .filter_map(|(index, level)| {
                let share = contribution.levels.get(index.checked_sub(1)?)?.main;
                let meter = self.pool(pool_id).level_balance(index)?;
                (share > Money::ZERO).then(|| (level.name.clone(), share, meter))
            })
            .collect();
        for (level, share, meter) in fed {
            let Some(cycle) = self.mystery_mut(pool_id, &level).filter(|cycle| cycle.open.is_some()) else { continue };
            let at = SeatAt { table: table_id.clone(), seat };
            match cycle.last.as_mut() {
                Some(last) if last.sequence == context.sequence => {
                    last.fed.push((at, share));
                    last.end = meter;
                }
                _ => {
                    if let Some(last) = cycle.last.take() {
                        cycle.peak = cycle.peak.max(last.end);
                    }
                    cycle.last = Some(LastFed { sequence: context.sequence, start: meter - share, end: meter, fed: vec![(at, share)] });
                }
            }
        }
    }

    /// The mystery levels of the live pools awaiting a draw: each the head its draw will have
    /// (the next cycle, from the level's reset — or its meter, were it above — to its ceiling
    /// in force). The controller draws them at once, in the batch that left them so.
    pub fn draws_due(&self) -> Vec<DrawHead> {
        let mut due = Vec::new();
        for pool in self.pools().filter(|pool| !pool.is_retired()) {
            let rules = pool.rules();
            for (index, level) in rules.mystery_levels() {
                let Some(ceiling) = level.must_hit_by else { continue };
                if pool.level_retired(index) {
                    continue;
                }
                let cycle = self.mystery(&rules.id, &level.name);
                if cycle.is_some_and(|cycle| cycle.open.is_some()) {
                    continue;
                }
                let meter = pool.level_balance(index).unwrap_or_default();
                let from = level.reset.max(meter);
                if from >= ceiling {
                    // Nothing to draw from: the level waits (a change must raise its ceiling).
                    continue;
                }
                due.push(DrawHead {
                    pool: rules.id.clone(),
                    level: level.name.clone(),
                    cycle: cycle.map_or(1, |cycle| cycle.cycle + 1),
                    from,
                    ceiling,
                });
            }
        }
        due
    }

    /// Every mystery cycle, open or awaiting its draw (the controller unseals the open ones).
    pub fn mysteries(&self) -> &[Mystery] {
        &self.data.mystery
    }

    /// The meter of a pool's level named `level` now.
    pub fn level_meter(&self, pool_id: &str, level: &str) -> Option<Money> {
        let pool = self.engine.pool(pool_id).ok()?;
        let index = pool.rules().levels.iter().position(|rules| rules.name == level && !rules.house)?;
        pool.level_balance(index)
    }

    /// A hot seat's candidates: every seat with a side bet in force at a table of the pool,
    /// by table and seat.
    pub fn hot_seat_candidates(&self, pool_id: &PoolId) -> Vec<SeatAt> {
        let mut seats: Vec<SeatAt> = self
            .data
            .tables
            .values()
            .filter(|table| &table.pool == pool_id && table.open)
            .flat_map(|table| {
                table.seats.iter().enumerate().filter_map(|(index, seat)| match seat.bet {
                    Bet::Registered { .. } => Some(SeatAt { table: table.id.clone(), seat: index as u32 + 1 }),
                    _ => None,
                })
            })
            .collect();
        seats.sort();
        seats
    }

    /// A draw journaled by the controller: the next cycle of a mystery level awaiting one,
    /// from and ceiling as the rules in force say, committed and sealed. A committed value is
    /// never drawn again: a second draw of a cycle is refused.
    pub(in crate::state) fn apply_draw(&mut self, context: Context, command: &DrawCommand) -> Result<Applied, Refusal> {
        let head = &command.head;
        let due = self.draws_due().into_iter().find(|due| due.pool == head.pool && due.level == head.level);
        let Some(due) = due else {
            return Err(precondition(format!(
                "draw: level `{}` of pool `{}` is not a mystery level awaiting a draw; a committed value is never drawn again",
                head.level, head.pool
            )));
        };
        if due != *head {
            return Err(invalid(format!(
                "draw: cycle {} from {} to {} is not the draw due (cycle {} from {} to {})",
                head.cycle, head.from, head.ceiling, due.cycle, due.from, due.ceiling
            )));
        }
        if draw::nonce_of(&command.commitment).is_none() {
            return Err(invalid("draw: commitment is not 64 hex digits"));
        }
        if command.sealed.is_empty() || command.sealed.len() > SEALED_MAX || hex::decode(&command.sealed).is_err() {
            return Err(invalid(format!("draw: sealed is not hex of at most {SEALED_MAX} digits")));
        }
        let meter = self.level_meter(&head.pool, &head.level).unwrap_or_default();
        let open = OpenDraw {
            from: head.from,
            ceiling: head.ceiling,
            commitment: command.commitment.clone(),
            sealed: command.sealed.clone(),
            drawn_at: context.sequence,
        };
        let cycle = self.mystery_entry(&head.pool, &head.level);
        cycle.cycle = head.cycle;
        cycle.open = Some(open);
        cycle.peak = meter;
        cycle.last = None;
        Ok(Applied::Drawn { pool: head.pool.clone() })
    }

    /// A reveal journaled by the controller at a hit, checked in full: it opens the open
    /// draw's commitment; the trigger lay in (from, ceiling]; no earlier command of the cycle
    /// reached it and command `after`, the latest to feed the level, did; the hot seat's
    /// candidates are the seats in force. The seat whose share reached it wins the level — the
    /// trigger exactly, what its meter held beyond going to its reserve — and a hot seat, if
    /// the level has one, goes to the candidate the nonce picks; each award at its own table.
    pub(in crate::state) fn apply_reveal(&mut self, context: Context, command: &RevealCommand) -> Result<Applied, Refusal> {
        let (pool_id, trigger) = (&command.pool, command.trigger);
        let Some(cycle) = self.mystery(pool_id, &command.level).filter(|cycle| cycle.cycle == command.cycle) else {
            return Err(precondition(format!(
                "reveal: level `{}` of pool `{}` has no draw of cycle {}",
                command.level, pool_id, command.cycle
            )));
        };
        let Some(head) = cycle.head() else {
            return Err(precondition(format!("reveal: cycle {} of level `{}` was already revealed", command.cycle, command.level)));
        };
        let Some(nonce) = draw::nonce_of(&command.nonce) else {
            return Err(invalid("reveal: nonce is not 64 hex digits"));
        };
        let open = cycle.open.as_ref().expect("a head has its draw");
        if hex::encode(draw::commitment(&head, trigger, &nonce)) != open.commitment {
            return Err(invalid(format!(
                "reveal: trigger {trigger} and its nonce do not open the commitment of entry {} (cycle {} of `{}`)",
                open.drawn_at, command.cycle, command.level
            )));
        }
        if trigger <= head.from || trigger > head.ceiling {
            return Err(invalid(format!(
                "reveal: trigger {trigger} is outside ({}, {}], the range entry {} drew in",
                head.from, head.ceiling, open.drawn_at
            )));
        }
        if cycle.peak >= trigger {
            return Err(invalid(format!(
                "reveal: the meter stood at {} before entry {}, already at the trigger {trigger}: the hit came late",
                cycle.peak, command.after
            )));
        }
        let reached = cycle.last.as_ref().filter(|last| last.sequence == command.after && last.end >= trigger);
        if reached.is_none() {
            return Err(invalid(format!(
                "reveal: entry {} is not the latest to feed level `{}` up to the trigger {trigger}",
                command.after, command.level
            )));
        }
        let winner = cycle.crossing(trigger).cloned().expect("the latest command reached the trigger");
        let rules = self.pool(pool_id).rules();
        let index = rules.levels.iter().position(|level| level.name == command.level).expect("a cycle is of a level");
        let prize = rules.mystery_prize(index).expect("a mystery level has its prize").code.clone();
        let hot_seat = rules.levels[index].hot_seat.clone();
        let candidates = if hot_seat.is_some() { self.hot_seat_candidates(pool_id) } else { Vec::new() };
        if command.eligible != candidates {
            return Err(invalid(format!(
                "reveal: the hot seat's candidates listed ({}) are not the {} seats with a bet in force",
                command.eligible.len(),
                candidates.len()
            )));
        }
        // The level pays exactly the trigger: its meter beyond goes to its reserve.
        self.engine.mystery_spill(pool_id, index, trigger).map_err(engine_refusal)?;
        let mut winners = vec![pozo_engine::Winner {
            seat: winner.seat,
            code: prize,
            bet: None,
            high: None,
            at: Some(winner.table.clone()),
        }];
        if let (Some(code), false) = (hot_seat, candidates.is_empty()) {
            let picked = &candidates[draw::hot_seat_index(&nonce, candidates.len())];
            winners.push(pozo_engine::Winner { seat: picked.seat, code, bet: None, high: None, at: Some(picked.table.clone()) });
        }
        let bank = self.bank_of(&winner.table);
        let settlement = self.engine.settle_round_at(pool_id, &winners, Some(&bank)).map_err(engine_refusal)?;
        let round = self.data.tables[&winner.table].round;
        self.linked.clear();
        let home = self.book_settlement(context, &winner.table, round, &settlement);
        let table = self.table_mut(&winner.table);
        table.link_awards.extend(home.into_iter().map(|award| LinkAward { from: winner.table.clone(), award }));
        let mut tables = std::mem::take(&mut self.linked);
        tables.insert(0, winner.table.clone());
        let cycle = self.mystery_mut(pool_id, &command.level).expect("found above");
        cycle.open = None;
        cycle.last = None;
        cycle.peak = Money::ZERO;
        cycle.hits += 1;
        Ok(Applied::Revealed { pool: pool_id.clone(), tables })
    }

    /// After a Venta-Pagos rejection re-settled a pool: what came back to a mystery level's
    /// meter goes to its reserve, so the meter stands where it stood (docs/readings.md, "The
    /// mystery level": a rejected hit does not bring the level nearer its next trigger).
    pub(in crate::state) fn mystery_meters(&self, pool_id: &PoolId) -> Vec<(usize, Money)> {
        let pool = self.pool(pool_id);
        pool.rules().mystery_levels().filter_map(|(index, _)| Some((index, pool.level_balance(index)?))).collect()
    }

    pub(in crate::state) fn keep_mystery_meters(&mut self, pool_id: &PoolId, before: &[(usize, Money)]) -> Result<(), Refusal> {
        for (index, meter) in before {
            let now = self.pool(pool_id).level_balance(*index).unwrap_or_default();
            if now > *meter {
                self.engine.mystery_spill(pool_id, *index, *meter).map_err(engine_refusal)?;
            }
        }
        Ok(())
    }

    fn mystery(&self, pool_id: &str, level: &str) -> Option<&Mystery> {
        self.data.mystery.iter().find(|cycle| cycle.pool.as_str() == pool_id && cycle.level == level)
    }

    fn mystery_mut(&mut self, pool_id: &str, level: &str) -> Option<&mut Mystery> {
        self.data.mystery.iter_mut().find(|cycle| cycle.pool.as_str() == pool_id && cycle.level == level)
    }

    fn mystery_entry(&mut self, pool_id: &PoolId, level: &str) -> &mut Mystery {
        if self.mystery(pool_id, level).is_none() {
            self.data.mystery.push(Mystery {
                pool: pool_id.clone(),
                level: level.to_owned(),
                cycle: 0,
                open: None,
                peak: Money::ZERO,
                last: None,
                hits: 0,
            });
        }
        self.mystery_mut(pool_id, level).expect("just added")
    }
}
