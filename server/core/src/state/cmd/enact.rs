//! An approved proposal put in force: a configuration at once, or, when it changes money
//! settings of a live pool, at its moment (after the pool's next top prize, or from a
//! jornada), never while one of the pool's tables is in a round; a money movement at once
//! (docs/operations.md §8).

use std::sync::Arc;

use pozo_engine::PoolId;

use crate::config::{Config, Subject, TableConfig};
use crate::state::command::{Effect, Proposed};
use crate::state::model::{Bet, OrderStatus, Phase, Seat, Table};
use crate::state::proposal::{Proposal, ProposalStatus};
use crate::state::refusal::{engine_refusal, precondition};
use crate::state::{Context, Refusal, State};

impl State {
    /// Puts an approved proposal in force, or schedules it; refused, nothing changes.
    pub(in crate::state) fn enact(&mut self, context: Context, proposal: &mut Proposal) -> Result<(), Refusal> {
        match &proposal.proposed.clone() {
            Proposed::Configuration { files, effect } => {
                if self.config.hash != proposal.base_hash {
                    return Err(precondition(format!(
                        "proposal_id: the configuration changed since {} was proposed; propose it again on the one in force",
                        proposal.proposal_id
                    ))
                    .castellano(format!(
                        "La configuración cambió desde que se propuso {}: propóngalo de nuevo sobre la que está en vigor.",
                        proposal.proposal_id
                    )));
                }
                let (after, differences) = self.check_configuration(context, files, effect)?;
                proposal.differences = differences;
                match money_pool(proposal) {
                    Some(pool) => self.schedule(proposal, &pool),
                    None => {
                        self.check_tables(&after)?;
                        self.put_in_force(after)?;
                        proposal.status = ProposalStatus::InForce;
                        (proposal.effective_sequence, proposal.effective_ms) = (context.sequence, context.time_ms);
                    }
                }
            }
            Proposed::Transfer { from, to, amount } => {
                self.engine.transfer(from, to, *amount).map_err(engine_refusal)?;
                self.in_force_now(context, proposal);
            }
            Proposed::RetirePool { pool, to } => {
                if let Some(table) = self.config.layout.tables.iter().find(|table| table.pool == *pool) {
                    return Err(precondition(format!(
                        "pool: table {} still feeds pool `{pool}`; move or retire its tables first",
                        table.id
                    )));
                }
                self.engine.retire(pool, to).map_err(engine_refusal)?;
                self.in_force_now(context, proposal);
            }
            Proposed::RetireLevel { pool, level, to } => {
                // Nothing of the level may still move: no bet in force at the pool's tables (a
                // reversal takes back what a bet gave each level), no order pending (a rejection
                // returns an award to the level that paid it).
                if let Some(table) = self.data.tables.values().find(|table| table.pool == *pool && table.phase != Phase::Betting)
                {
                    return Err(precondition(format!(
                        "pool: table {} of pool `{pool}` is in a round; a level is retired between rounds",
                        table.id
                    ))
                    .castellano(format!(
                        "La mesa {} del pozo {pool} está en una ronda: un nivel se retira entre rondas.",
                        table.id
                    )));
                }
                if let Some(order) =
                    self.data.orders.values().find(|order| order.facts.pool == *pool && order.status == OrderStatus::Pending)
                {
                    return Err(precondition(format!(
                        "pool: order {} of pool `{pool}` is pending at Venta-Pagos; a level is retired once none is",
                        order.order_id
                    ))
                    .castellano(format!(
                        "La orden {} del pozo {pool} está pendiente en Venta-Pagos: un nivel se retira cuando no queda ninguna.",
                        order.order_id
                    )));
                }
                self.engine.retire_level(pool, level, to).map_err(engine_refusal)?;
                self.in_force_now(context, proposal);
            }
            Proposed::Adjust { pool, amount } => {
                self.engine.adjust(pool, *amount).map_err(engine_refusal)?;
                self.in_force_now(context, proposal);
            }
            Proposed::Tournament { text } => {
                // Checked again at approval: another tournament may have taken its id meanwhile.
                let structure = self.check_tournament(text)?;
                let tournament = crate::state::tournament::Tournament::new(&structure, text, &proposal.proposal_id);
                self.data.tournaments.insert(tournament.id.clone(), std::sync::Arc::new(tournament));
                self.in_force_now(context, proposal);
            }
        }
        Ok(())
    }

    fn in_force_now(&mut self, context: Context, proposal: &mut Proposal) {
        proposal.status = ProposalStatus::InForce;
        (proposal.effective_sequence, proposal.effective_ms) = (context.sequence, context.time_ms);
    }

    /// A money setting of a live pool waits for its moment; one scheduled change per file at a
    /// time, so that neither undoes the other (checked with the configuration, `none_scheduled_on`).
    fn schedule(&mut self, proposal: &mut Proposal, pool: &PoolId) {
        proposal.status = ProposalStatus::Scheduled;
        proposal.top_prizes_at_approval = self.top_prizes(pool, proposal);
        self.data.scheduled.push(proposal.proposal_id.clone());
    }

    /// Every table the change retires, moves or takes out of service is closed and holds
    /// nothing (no bet, credit, grillo, prize or gold turn); every table it adds has its key.
    fn check_tables(&self, after: &Config) -> Result<(), Refusal> {
        for retired in self.config.layout.tables.iter().filter(|table| after.table(&table.id).is_none()) {
            if retired.in_service {
                return Err(precondition(format!(
                    "files: table `{}` is in service: take it out of service first (a change of its own), then retire \
                     it (docs/operations.md §8)",
                    retired.id
                ))
                .castellano(format!(
                    "La mesa {} está en servicio: primero se la pone fuera de servicio (un cambio aparte) y después se \
                     retira (docs/operations.md §8).",
                    retired.id
                )));
            }
        }
        for table in self.data.tables.values() {
            let kept = after.table(&table.id);
            let same = kept.is_some_and(|kept| {
                kept.pool == table.pool && kept.in_service == self.config.table(&table.id).is_none_or(|now| now.in_service)
            });
            if !same {
                self.idle(table)?;
            }
        }
        for added in after.layout.tables.iter().filter(|table| self.config.table(&table.id).is_none()) {
            let keyed = self.data.keys.iter().any(|key| key.table.as_deref() == Some(added.id.as_str()));
            if !keyed {
                return Err(precondition(format!(
                    "files: table `{}` has no key: add its key to the keys file and restart the controller (the key is \
                     journaled), then approve the table (docs/operations.md §8)",
                    added.id
                ))
                .castellano(format!(
                    "La mesa {} no tiene clave: agréguela al archivo de claves y reinicie el controlador; luego apruebe \
                     la mesa (docs/operations.md §8).",
                    added.id
                )));
            }
            if self.data.tables.contains_key(&added.id)
                || self.data.retired_tables.contains_key(&added.id)
                || self.data.days.values().any(|day| day.contains_key(&added.id))
            {
                return Err(precondition(format!(
                    "files: table id `{}` was used by a retired table in this journal's reports; give the new table another id",
                    added.id
                ))
                .castellano(format!(
                    "El nombre {} ya lo usó una mesa retirada en los informes de este registro: use otro para la mesa nueva.",
                    added.id
                )));
            }
        }
        Ok(())
    }

    /// A table that holds nothing: closed (Cierre de Mesa, 4.7.7), between rounds, no bet,
    /// credit, grillo, prize, custody or gold turn of its own.
    fn idle(&self, table: &Table) -> Result<(), Refusal> {
        let id = &table.id;
        let busy = |what: &str, spanish: &str| {
            Err(precondition(format!("files: table {id} {what}; close it with nothing pending first"))
                .castellano(format!("La mesa {id} {spanish}: ciérrela sin nada pendiente primero.")))
        };
        if table.open || table.phase != Phase::Betting || table.carried {
            return busy("is open or in a round", "está abierta o en una jugada");
        }
        if !table.pending.is_empty() || !table.accepted.is_empty() {
            return busy("has prizes entered", "tiene premios ingresados");
        }
        let holds = |seat: &Seat| seat.credits > 0 || seat.bet != Bet::None || seat.grillos() > 0 || seat.absent;
        if let Some(index) = table.seats.iter().position(holds) {
            return busy(
                &format!("seat {} still holds credits, a bet or grillos", index + 1),
                &format!("tiene créditos, una apuesta o grillos en el box {}", index + 1),
            );
        }
        if self.data.gold_turns.values().any(|turn| turn.holder.as_deref() == Some(id) || turn.waiting.iter().any(|w| w == id)) {
            return busy("holds or waits for a Grillo de Oro turn", "tiene o espera un turno de Grillo de Oro");
        }
        if self.data.custody.values().any(|held| held.table_id == *id && held.released_sequence.is_none()) {
            return busy("has something in custody", "tiene algo en custodia");
        }
        Ok(())
    }

    /// The configuration in force becomes `after`: the pools under its rules (new ones
    /// opened at their minimum, booked), tables added closed, retired ones dropped (their
    /// reports stay), moved ones on their new pool.
    pub(in crate::state) fn put_in_force(&mut self, after: Config) -> Result<(), Refusal> {
        let engine = self.engine.with_rulebooks(&after.rulebooks).map_err(engine_refusal)?;
        self.engine = engine;
        for retired in self.config.layout.tables.iter().filter(|table| after.table(&table.id).is_none()) {
            self.data.retired_tables.insert(retired.id.clone(), retired.clone());
        }
        self.data.tables.retain(|id, _| after.table(id).is_some());
        // A table moved to another pool: what it booked in the jornada stays its old pool's.
        let (jornada, _) = crate::jornada::jornada_and_hour(&self.config, self.now_ms);
        for table in &after.layout.tables {
            let moved = self.data.tables.get(&table.id).is_some_and(|kept| kept.pool != table.pool);
            if moved
                && let Some(days) = self.data.days.get_mut(&jornada)
                && let Some(day) = days.get_mut(&table.id)
            {
                Arc::make_mut(day).move_to(&table.pool);
            }
            match self.data.tables.get_mut(&table.id) {
                Some(kept) => kept.pool = table.pool.clone(),
                None => {
                    self.data.tables.insert(table.id.clone(), new_table(table));
                }
            }
        }
        self.config = Arc::new(after);
        self.data.configuration_changed = true;
        Ok(())
    }

    /// After every journaled command: a scheduled change whose moment came takes effect, once
    /// none of its pool's tables is in a round. Its entry is the command's own.
    pub(in crate::state) fn take_effects(&mut self, context: Context) {
        if self.data.scheduled.is_empty() {
            return;
        }
        for proposal_id in self.data.scheduled.clone() {
            let Some(proposal) = self.data.proposals.get(&proposal_id).cloned() else { continue };
            let (Some(pool), Proposed::Configuration { files, effect }) = (money_pool(&proposal), &proposal.proposed) else {
                continue;
            };
            if !self.moment_came(context, &pool, effect, &proposal) || self.in_a_round(&pool) {
                continue;
            }
            let mut proposal = proposal.clone();
            // On top of the files in force now: what it changes then must be what was approved,
            // never more (an approved change it would undo stays in force, and this one is not
            // put in force behind anyone's back).
            let applied = self.config.with_files(files).map_err(|error| error.to_string()).and_then(|after| {
                let found = self.config.differences(&after).map_err(|error| error.to_string())?;
                match found.iter().find(|difference| !proposal.differences.contains(difference)) {
                    Some(undone) => Err(format!("it would also change what it was not approved for: {}", undone.describe())),
                    None => Ok(after),
                }
            });
            match applied {
                Ok(after) => {
                    self.put_in_force(after).expect("a scheduled change keeps every pool");
                    proposal.status = ProposalStatus::InForce;
                    (proposal.effective_sequence, proposal.effective_ms) = (context.sequence, context.time_ms);
                }
                Err(error) => {
                    proposal.status = ProposalStatus::Withdrawn;
                    proposal.withdrawn_reason = format!("no longer valid when its moment came: {error}");
                }
            }
            self.data.scheduled.retain(|id| *id != proposal_id);
            Arc::make_mut(&mut self.data.proposals).insert(proposal_id, proposal);
        }
    }

    /// How many times the change's level was won whole so far: the pool's resets in a pool of
    /// one level; in a pool with levels, those of the level whose settings the change touches,
    /// so that "a level's money settings come into force after that level's next hit"
    /// (docs/readings.md, "Levels").
    fn top_prizes(&self, pool: &str, proposal: &Proposal) -> u64 {
        let Ok(pool) = self.engine.pool(pool) else { return 0 };
        match crate::config::money_level(&proposal.differences, pool.rules()) {
            Some(level) => pool.level_resets(level),
            None => pool.meters().resets,
        }
    }

    /// A scheduled money change of `pool` for its level `level` whose moment came, waiting for
    /// the pool's rounds to end: a mystery level's next draw waits for it, so that a new ceiling
    /// is in force from the reset after the hit (docs/readings.md, "The mystery level").
    pub(in crate::state) fn change_waits_for_level(&self, context: Context, pool: &str, level: usize) -> bool {
        self.data.scheduled.iter().filter_map(|id| self.data.proposals.get(id)).any(|proposal| {
            let Proposed::Configuration { effect, .. } = &proposal.proposed else { return false };
            let Ok(live) = self.engine.pool(pool) else { return false };
            money_pool(proposal).as_deref() == Some(pool)
                && crate::config::money_level(&proposal.differences, live.rules()) == Some(level)
                && self.moment_came(context, pool, effect, proposal)
        })
    }

    fn moment_came(&self, context: Context, pool: &str, effect: &Effect, proposal: &Proposal) -> bool {
        match effect {
            Effect::NextTopPrize => self.top_prizes(pool, proposal) > proposal.top_prizes_at_approval,
            Effect::Jornada { jornada } => crate::jornada::jornada_and_hour(&self.config, context.time_ms).0 >= *jornada,
        }
    }

    /// A table of the pool is between INICIAR JUEGO and FINALIZAR JUEGO.
    fn in_a_round(&self, pool: &str) -> bool {
        self.data.tables.values().any(|table| table.pool == pool && table.phase != Phase::Betting)
    }
}

/// The pool whose money settings a configuration change touches, if it does.
fn money_pool(proposal: &Proposal) -> Option<PoolId> {
    proposal.differences.iter().find(|difference| difference.money).and_then(|difference| match &difference.subject {
        Subject::Pool { pool_id } => Some(pool_id.clone()),
        _ => None,
    })
}

/// A table as a layout entry starts it: closed, every seat empty, round 1.
pub(in crate::state) fn new_table(table: &TableConfig) -> Table {
    Table {
        id: table.id.clone(),
        pool: table.pool.clone(),
        game: table.game,
        open: false,
        phase: Phase::Betting,
        round: 1,
        last_sequence: 0,
        last_payload_sha256: String::new(),
        last_reply: None,
        last_round: false,
        carried: false,
        seats: (0..table.seats).map(|_| Seat::new()).collect(),
        pending: Vec::new(),
        accepted: Vec::new(),
        link_awards: Vec::new(),
        instant_card: None,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::config::{Config, Edit};
    use crate::state::command::{ChangeCommand, ChangeOp, Command, Effect, Proposed};
    use crate::state::proposal::{PROPOSAL_TTL_MS, ProposalStatus};
    use crate::state::{Context, RefusalKind, State};

    /// 2026-11-22 12:00 in Buenos Aires (UTC-03:00): jornada 2026-11-22.
    const NOON: u64 = 1_795_316_400_000 + 12 * 3_600_000;
    const DAY: u64 = 24 * 3_600_000;

    fn started() -> (State, u64) {
        let config = Arc::new(Config::embedded());
        let mut state = State::new(Arc::clone(&config));
        let genesis = Command::genesis(&config, "", None, None);
        state.apply(&genesis, Context { sequence: 1, time_ms: NOON }).expect("genesis");
        (state, 1)
    }

    fn apply(state: &mut State, sequence: &mut u64, time_ms: u64, key_id: &str, op: ChangeOp) -> Result<(), RefusalKind> {
        let command = Command::Change(ChangeCommand { key_id: key_id.into(), op });
        state.apply(&command, Context { sequence: *sequence + 1, time_ms }).map_err(|refusal| refusal.kind)?;
        *sequence += 1;
        Ok(())
    }

    fn minimum(state: &State, value: &str, effect: Effect) -> ChangeOp {
        let edit = Edit::Pool { pool_id: "iplyc-blackjack".into(), setting: "minimum".into(), value: value.into() };
        let files = state.config().edited(&[edit]).expect("written");
        ChangeOp::Propose { proposed: Proposed::Configuration { files, effect }, reason: "r".into(), authorisation: "a".into() }
    }

    #[test]
    fn a_money_setting_for_a_jornada_takes_effect_at_its_first_entry() {
        let (mut state, mut sequence) = started();
        let effect = Effect::Jornada { jornada: "2026-11-24".into() };
        {
            let op = minimum(&state, "7000.00", effect);
            apply(&mut state, &mut sequence, NOON, "sup-carla", op)
        }
        .expect("proposed");
        apply(&mut state, &mut sequence, NOON, "sup-diego", ChangeOp::Approve { proposal_id: "CB-000001".into() }).expect("ok");
        let pool = |state: &State| state.pool("iplyc-blackjack").rules().minimum.to_string();
        assert_eq!(pool(&state), "5000.00");
        // An entry on the 23rd changes nothing; the first of the 24th's jornada (from 06:00) does.
        let withdraw_other = |id: &str| ChangeOp::Withdraw { proposal_id: id.into(), reason: "x".into() };
        let transfer = Proposed::Transfer {
            from: "iplyc-ruleta".into(),
            to: "iplyc-blackjack".into(),
            amount: "1.00".parse().expect("money"),
        };
        let op = ChangeOp::Propose { proposed: transfer, reason: "r".into(), authorisation: "a".into() };
        apply(&mut state, &mut sequence, NOON + DAY, "sup-carla", op).expect("ok");
        assert_eq!(pool(&state), "5000.00");
        apply(&mut state, &mut sequence, NOON + 2 * DAY, "sup-carla", withdraw_other("CB-000002")).expect("withdrawn");
        assert_eq!(pool(&state), "7000.00");
        assert_eq!(state.data().proposals["CB-000001"].status, ProposalStatus::InForce);
        assert_eq!(state.data().proposals["CB-000001"].effective_sequence, sequence);
    }

    /// docs/operations.md §8: "While a scheduled change waits to change a file, another change
    /// of that file is refused", at the proposal and at the approval; another file is free.
    #[test]
    fn a_change_of_a_file_a_scheduled_change_waits_on_is_refused_at_proposal_and_approval() {
        let (mut state, mut sequence) = started();
        let threshold = |state: &State| {
            let edit =
                Edit::Pool { pool_id: "iplyc-blackjack".into(), setting: "venta_pagos_over".into(), value: "400.00".into() };
            let files = state.config().edited(&[edit]).expect("written");
            ChangeOp::Propose {
                proposed: Proposed::Configuration { files, effect: Effect::NextTopPrize },
                reason: "r".into(),
                authorisation: "a".into(),
            }
        };
        // Proposed before the minimum is approved: its approval is refused once the minimum waits.
        let op = minimum(&state, "6000.00", Effect::NextTopPrize);
        apply(&mut state, &mut sequence, NOON, "sup-carla", op).expect("proposed");
        let op = threshold(&state);
        apply(&mut state, &mut sequence, NOON, "sup-carla", op).expect("proposed");
        apply(&mut state, &mut sequence, NOON, "insp-elena", ChangeOp::Approve { proposal_id: "CB-000001".into() }).expect("ok");
        assert_eq!(state.data().scheduled, ["CB-000001"]);
        let approve = ChangeOp::Approve { proposal_id: "CB-000002".into() };
        assert_eq!(apply(&mut state, &mut sequence, NOON, "sup-diego", approve), Err(RefusalKind::FailedPrecondition));
        let op = threshold(&state);
        assert_eq!(apply(&mut state, &mut sequence, NOON, "sup-carla", op), Err(RefusalKind::FailedPrecondition));
        // The layout is another file: a table taken out of service is not held up.
        let edit = Edit::Service { table_id: "R1".into(), in_service: false };
        let files = state.config().edited(&[edit]).expect("written");
        let op = ChangeOp::Propose {
            proposed: Proposed::Configuration { files, effect: Effect::NextTopPrize },
            reason: "r".into(),
            authorisation: "a".into(),
        };
        apply(&mut state, &mut sequence, NOON, "sup-carla", op).expect("another file");
    }

    /// The guard at the moment (issue 42, point 3): a scheduled change is put in force on top of
    /// the files in force then, and never undoes an approved change. A threshold changed under
    /// it (as a journal written before the refusal could hold) stays; the scheduled change is
    /// not put in force, and says why.
    #[test]
    fn a_scheduled_change_never_undoes_a_change_in_force_since_its_approval() {
        let (mut state, mut sequence) = started();
        let op = minimum(&state, "7000.00", Effect::Jornada { jornada: "2026-11-24".into() });
        apply(&mut state, &mut sequence, NOON, "sup-carla", op).expect("proposed");
        apply(&mut state, &mut sequence, NOON, "sup-diego", ChangeOp::Approve { proposal_id: "CB-000001".into() }).expect("ok");
        let edit = Edit::Pool { pool_id: "iplyc-blackjack".into(), setting: "venta_pagos_over".into(), value: "400.00".into() };
        let files = state.config().edited(&[edit]).expect("written");
        let lowered = state.config().with_files(&files).expect("valid");
        state.put_in_force(lowered).expect("in force");
        let threshold = |state: &State| state.pool("iplyc-blackjack").rules().venta_pagos_over.to_string();
        assert_eq!(threshold(&state), "400.00");
        // An entry of the 24th's jornada: the moment came.
        let transfer = Proposed::Transfer {
            from: "iplyc-ruleta".into(),
            to: "iplyc-blackjack".into(),
            amount: "1.00".parse().expect("money"),
        };
        let op = ChangeOp::Propose { proposed: transfer, reason: "r".into(), authorisation: "a".into() };
        apply(&mut state, &mut sequence, NOON + 2 * DAY, "sup-carla", op).expect("ok");
        assert_eq!(threshold(&state), "400.00", "the approved threshold stays");
        assert_eq!(state.pool("iplyc-blackjack").rules().minimum.to_string(), "5000.00");
        let scheduled = &state.data().proposals["CB-000001"];
        assert_eq!(scheduled.status, ProposalStatus::Withdrawn);
        assert!(
            scheduled.withdrawn_reason.contains("umbral de Venta-Pagos: $ 400,00 → $ 1.000,00"),
            "{}",
            scheduled.withdrawn_reason
        );
        assert!(state.data().scheduled.is_empty());
    }

    #[test]
    fn a_proposal_expires_after_a_week_and_a_scheduled_one_can_be_withdrawn() {
        let (mut state, mut sequence) = started();
        {
            let op = minimum(&state, "6000.00", Effect::NextTopPrize);
            apply(&mut state, &mut sequence, NOON, "sup-carla", op)
        }
        .expect("ok");
        let approve = ChangeOp::Approve { proposal_id: "CB-000001".into() };
        let late = apply(&mut state, &mut sequence, NOON + PROPOSAL_TTL_MS + 1, "sup-diego", approve.clone());
        assert_eq!(late, Err(RefusalKind::FailedPrecondition));
        assert_eq!(state.data().proposals["CB-000001"].status_spanish(NOON + PROPOSAL_TTL_MS + 1), "VENCIDO");
        {
            let op = minimum(&state, "6000.00", Effect::NextTopPrize);
            apply(&mut state, &mut sequence, NOON, "sup-carla", op)
        }
        .expect("ok");
        apply(&mut state, &mut sequence, NOON, "insp-elena", ChangeOp::Approve { proposal_id: "CB-000002".into() }).expect("ok");
        assert_eq!(state.data().scheduled, ["CB-000002"]);
        let withdraw = ChangeOp::Withdraw { proposal_id: "CB-000002".into(), reason: "El Instituto lo dejó sin efecto".into() };
        apply(&mut state, &mut sequence, NOON, "sup-diego", withdraw).expect("withdrawn");
        assert!(state.data().scheduled.is_empty());
        assert_eq!(state.data().proposals["CB-000002"].status, ProposalStatus::Withdrawn);
    }
}
