//! A change or a money movement: proposed by one supervisor, approved by another person
//! (a supervisor or the regulator's inspector), or withdrawn (docs/operations.md §8). No
//! single person changes anything: the approver is another key and another name.

use std::sync::Arc;

use pozo_engine::money::Money;

use crate::config::{Config, KeyRecord, Role, Subject, stable_name};
use crate::state::command::{ChangeCommand, ChangeOp, Effect, Proposed};

use crate::state::proposal::{PROPOSALS_KEPT, Person, Proposal, ProposalStatus, REASON_CHARS_MAX};
use crate::state::refusal::{denied, engine_refusal, invalid, not_found, precondition};
use crate::state::view::Applied;
use crate::state::{Context, Refusal, State};

impl State {
    pub(in crate::state) fn apply_change(&mut self, context: Context, command: &ChangeCommand) -> Result<Applied, Refusal> {
        match &command.op {
            ChangeOp::Propose { proposed, reason, authorisation } => {
                self.propose(context, &command.key_id, proposed, reason, authorisation)
            }
            ChangeOp::Approve { proposal_id } => self.approve(context, &command.key_id, proposal_id),
            ChangeOp::Withdraw { proposal_id, reason } => self.withdraw(context, &command.key_id, proposal_id, reason),
        }
    }

    /// The holder of `key_id` as the journaled keys name them, if their role is one of `roles`.
    fn person(&self, context: Context, key_id: &str, roles: &[Role], doing: &str) -> Result<Person, Refusal> {
        let key = self.key_in_role(key_id, roles, doing, "", " (docs/operations.md §8)")?;
        Ok(Person {
            key_id: key.id.clone(),
            name: key.name.clone(),
            role: key.role.name().to_owned(),
            sequence: context.sequence,
            time_ms: context.time_ms,
        })
    }

    /// The key `key_id` names, if its holder's role is one of `roles`: refused otherwise, saying
    /// what it may not do (`doing`; `where_spanish`, " en un torneo", for the staff's text) and
    /// the rule (`cite`). Shared by the changes and the tournaments.
    pub(super) fn key_in_role(
        &self,
        key_id: &str,
        roles: &[Role],
        doing: &str,
        where_spanish: &str,
        cite: &str,
    ) -> Result<&KeyRecord, Refusal> {
        let key = self.data.keys.iter().find(|key| key.id == key_id).ok_or_else(|| {
            denied(format!("key_id: no key `{key_id}`")).castellano(format!("La clave {key_id} no está registrada."))
        })?;
        if !roles.contains(&key.role) {
            let may: Vec<&str> = roles.iter().map(|role| role.name()).collect();
            let may_spanish: Vec<&str> = roles.iter().map(|role| role.spanish()).collect();
            return Err(denied(format!(
                "key_id: {} key may not {doing}; only {} keys may{cite}",
                key.role.with_article(),
                may.join(" or ")
            ))
            .castellano(format!(
                "Una clave de {} no puede hacer esto{where_spanish}; solo pueden las de {}{cite}.",
                key.role.spanish(),
                may_spanish.join(" o ")
            )));
        }
        Ok(key)
    }

    fn propose(
        &mut self,
        context: Context,
        key_id: &str,
        proposed: &Proposed,
        reason: &str,
        authorisation: &str,
    ) -> Result<Applied, Refusal> {
        let person = self.person(context, key_id, &[Role::Supervisor], "propose a change")?;
        let reason = written("reason", reason)?;
        let authorisation = written("authorisation", authorisation)?;
        let differences = match proposed {
            Proposed::Configuration { files, effect } => self.check_configuration(context, files, effect)?.1,
            Proposed::Tournament { text } => {
                self.check_tournament(text)?;
                Vec::new()
            }
            money => {
                self.check_money_move(money)?;
                Vec::new()
            }
        };
        self.data.next_proposal += 1;
        let proposal = Proposal {
            proposal_id: format!("CB-{:06}", self.data.next_proposal),
            proposed: proposed.clone(),
            reason,
            authorisation,
            proposed_by: person,
            base_hash: self.config.hash.clone(),
            differences,
            status: ProposalStatus::Pending,
            approved_by: None,
            withdrawn_by: None,
            withdrawn_reason: String::new(),
            top_prizes_at_approval: 0,
            effective_sequence: 0,
            effective_ms: 0,
        };
        let proposals = Arc::make_mut(&mut self.data.proposals);
        proposals.insert(proposal.proposal_id.clone(), proposal.clone());
        while proposals.len() > PROPOSALS_KEPT {
            let oldest = proposals
                .iter()
                .find(|(_, kept)| kept.status != ProposalStatus::Pending && kept.status != ProposalStatus::Scheduled);
            let Some(id) = oldest.map(|(id, _)| id.clone()) else { break };
            proposals.remove(&id);
        }
        Ok(Applied::Change(Box::new(proposal)))
    }

    /// A configuration as proposed: read and validated whole, allowed on a live journal,
    /// changing something, and a money setting alone on one pool. The result and what changes.
    pub(in crate::state) fn check_configuration(
        &self,
        context: Context,
        files: &[(String, String)],
        effect: &Effect,
    ) -> Result<(Config, Vec<crate::config::Difference>), Refusal> {
        self.none_scheduled_on(files)?;
        let after = self.config.with_files(files).map_err(|error| {
            invalid(format!("files: {error}")).castellano(format!("La configuración que resultaría no es válida: {error}"))
        })?;
        let differences = self.config.differences(&after).map_err(|error| {
            invalid(error.to_string()).castellano(format!("Ese cambio no se permite en un registro en marcha: {error}"))
        })?;
        // The pools' money under the new rules: a level is never dropped (docs/readings.md, "Levels").
        self.engine.with_rulebooks(&after.rulebooks).map_err(|error| {
            invalid(format!("files: {error}")).castellano(format!("Ese cambio no se permite en un pozo en juego: {error}"))
        })?;
        if differences.is_empty() {
            return Err(invalid("files: they change nothing in the configuration in force")
                .castellano("El cambio no modifica nada de la configuración en vigor."));
        }
        let money_pools: std::collections::BTreeSet<&Subject> =
            differences.iter().filter(|difference| difference.money).map(|difference| &difference.subject).collect();
        if !money_pools.is_empty() && (money_pools.len() > 1 || differences.iter().any(|difference| !difference.money)) {
            return Err(invalid(
                "files: a money setting of a live pool waits for its moment, so it is proposed alone: one pool's \
                 money settings per proposal, tables and other settings in another (docs/operations.md §8)",
            )
            .castellano(
                "Un valor de dinero de un pozo en juego espera su momento: se propone solo, los de un pozo por \
                 propuesta, y las mesas y demás valores en otra (docs/operations.md §8).",
            ));
        }
        if let Effect::Jornada { jornada } = effect {
            let today = crate::jornada::jornada_and_hour(&self.config, context.time_ms).0;
            if jornada.len() != 10 || jornada.parse::<jiff::civil::Date>().is_err() || *jornada <= today {
                return Err(invalid(format!("effect.jornada: `{jornada}` is not a jornada (YYYY-MM-DD) after today's, {today}"))
                    .castellano(format!(
                        "La jornada «{jornada}» no es una jornada (AAAA-MM-DD) posterior a la de hoy, {today}."
                    )));
            }
        }
        for table in &after.layout.tables {
            if self.engine.pool(&table.pool).is_ok_and(|pool| pool.is_retired()) {
                return Err(invalid(format!("files: table `{}` on pool `{}`, which is retired", table.id, table.pool))
                    .castellano(format!("La mesa {} quedaría en el pozo {}, que está retirado.", table.id, table.pool)));
            }
        }
        Ok((after, differences))
    }

    /// No change of a file a scheduled change waits to change: it would be undone when that one
    /// takes effect, or undo it (docs/operations.md §8: "While a scheduled change waits to
    /// change a file, another change of that file is refused").
    fn none_scheduled_on(&self, files: &[(String, String)]) -> Result<(), Refusal> {
        for waiting in &self.data.scheduled {
            let Some(Proposed::Configuration { files: other, .. }) = self.data.proposals.get(waiting).map(|p| &p.proposed) else {
                continue;
            };
            let same = |(name, _): &&(String, String)| other.iter().any(|(known, _)| stable_name(known) == stable_name(name));
            if let Some((name, _)) = files.iter().find(same) {
                let name = stable_name(name);
                return Err(precondition(format!(
                    "files: {waiting} is scheduled to change {name}; while it waits, another change of {name} is refused \
                     (it would be undone when {waiting} takes effect): propose it again once {waiting} is in force, or \
                     withdraw {waiting} (docs/operations.md §8)"
                ))
                .castellano(format!(
                    "El cambio {waiting} está programado sobre {name}: mientras espera, no se admite otro cambio de {name} \
                     (se desharía cuando {waiting} entre en vigor). Propóngalo de nuevo cuando {waiting} esté en vigor, \
                     o retire {waiting} (docs/operations.md §8)."
                )));
            }
        }
        Ok(())
    }

    /// A transfer, a retirement or an adjustment as proposed: its pools and its amount.
    fn check_money_move(&self, proposed: &Proposed) -> Result<(), Refusal> {
        let known = |field: &str, pool: &str| {
            self.engine.pool(pool).map(|_| ()).map_err(|_| {
                not_found(format!("{field}: no pool `{pool}` in the rulebooks"))
                    .castellano(format!("No existe el pozo {pool} en los reglamentos."))
            })
        };
        let whole = |amount: Money| amount != Money::ZERO && amount.normalize().scale() <= 2;
        match proposed {
            Proposed::Transfer { from, to, amount } => {
                known("from", from)?;
                known("to", to)?;
                if from == to {
                    return Err(invalid("to: a transfer goes to another pool").castellano("Una transferencia va a otro pozo."));
                }
                if !whole(*amount) || *amount < Money::ZERO {
                    return Err(invalid(format!("amount: {amount} is not a positive amount in whole centavos")).castellano(
                        format!("{} no es un monto positivo en centavos enteros.", pozo_engine::format_ars(*amount)),
                    ));
                }
            }
            Proposed::RetirePool { pool, to } => {
                known("pool", pool)?;
                known("to", to)?;
                if pool == to {
                    return Err(invalid("to: a retired pool's money goes to another pool")
                        .castellano("El dinero de un pozo retirado va a otro pozo."));
                }
            }
            Proposed::RetireLevel { pool, level, to } => {
                known("pool", pool)?;
                // Checked on a copy now, as the approval will: refused at once, naming the rule.
                self.engine.clone().retire_level(pool, level, to).map_err(engine_refusal)?;
            }
            Proposed::Adjust { pool, amount } => {
                known("pool", pool)?;
                if !whole(*amount) {
                    return Err(invalid(format!("amount: {amount} is not a non-zero amount in whole centavos")).castellano(
                        format!("{} no es un monto distinto de cero en centavos enteros.", pozo_engine::format_ars(*amount)),
                    ));
                }
            }
            Proposed::Configuration { .. } | Proposed::Tournament { .. } => {
                unreachable!("configurations and tournaments are checked on their own")
            }
        }
        Ok(())
    }

    fn approve(&mut self, context: Context, key_id: &str, proposal_id: &str) -> Result<Applied, Refusal> {
        let person = self.person(context, key_id, &[Role::Supervisor, Role::Inspector], "approve a change")?;
        let proposal = self.proposal(proposal_id)?;
        if proposal.status != ProposalStatus::Pending {
            return Err(precondition(format!(
                "proposal_id: {proposal_id} is {}, not waiting for approval",
                proposal.status.spanish()
            ))
            .castellano(format!("El cambio {proposal_id} está {}: no espera aprobación.", proposal.status.spanish())));
        }
        if proposal.expired(context.time_ms) {
            return Err(precondition(format!(
                "proposal_id: {proposal_id} expired a week after it was proposed; propose it again"
            ))
            .castellano(format!("El cambio {proposal_id} venció a la semana de propuesto: propóngalo de nuevo.")));
        }
        let proposer = &proposal.proposed_by;
        if proposer.key_id == person.key_id || same_name(&proposer.name, &person.name) {
            return Err(denied(format!(
                "key_id: {proposal_id} was proposed by {}; another person approves it (no single person changes anything, \
                 docs/operations.md §8)",
                proposer.name
            ))
            .castellano(format!(
                "El cambio {proposal_id} lo propuso {}: lo aprueba otra persona (nadie cambia nada solo, docs/operations.md §8).",
                proposer.name
            )));
        }
        let mut proposal = proposal.clone();
        proposal.approved_by = Some(person);
        self.enact(context, &mut proposal)?;
        Arc::make_mut(&mut self.data.proposals).insert(proposal.proposal_id.clone(), proposal.clone());
        Ok(Applied::Change(Box::new(proposal)))
    }

    fn withdraw(&mut self, context: Context, key_id: &str, proposal_id: &str, reason: &str) -> Result<Applied, Refusal> {
        let person = self.person(context, key_id, &[Role::Supervisor, Role::Inspector], "withdraw a change")?;
        let reason = written("reason", reason)?;
        let proposal = self.proposal(proposal_id)?;
        if !matches!(proposal.status, ProposalStatus::Pending | ProposalStatus::Scheduled) {
            return Err(precondition(format!(
                "proposal_id: {proposal_id} is {}: nothing to withdraw",
                proposal.status.spanish()
            ))
            .castellano(format!("El cambio {proposal_id} está {}: no hay nada que retirar.", proposal.status.spanish())));
        }
        let mut proposal = proposal.clone();
        proposal.status = ProposalStatus::Withdrawn;
        proposal.withdrawn_by = Some(person);
        proposal.withdrawn_reason = reason;
        self.data.scheduled.retain(|id| id != proposal_id);
        Arc::make_mut(&mut self.data.proposals).insert(proposal.proposal_id.clone(), proposal.clone());
        Ok(Applied::Change(Box::new(proposal)))
    }

    fn proposal(&self, proposal_id: &str) -> Result<&Proposal, Refusal> {
        self.data.proposals.get(proposal_id).ok_or_else(|| {
            not_found(format!("proposal_id: no proposal `{proposal_id}`"))
                .castellano(format!("No existe el cambio {proposal_id}."))
        })
    }
}

/// A reason or an authorisation reference: written, and not a book.
fn written(field: &str, text: &str) -> Result<String, Refusal> {
    let text = text.trim();
    if text.is_empty() {
        return Err(invalid(format!("{field}: required: every change carries its reason and the regulator's authorisation"))
            .castellano(format!(
                "Falta {}: todo cambio lleva su motivo y la autorización del organismo.",
                field_spanish(field)
            )));
    }
    if text.chars().count() > REASON_CHARS_MAX || text.chars().any(char::is_control) {
        return Err(invalid(format!("{field}: one line of at most {REASON_CHARS_MAX} characters")).castellano(format!(
            "{}: una sola línea de hasta {REASON_CHARS_MAX} caracteres.",
            capitalised(field_spanish(field))
        )));
    }
    Ok(text.to_owned())
}

/// A written field's name as the forms show it.
fn field_spanish(field: &str) -> &'static str {
    match field {
        "reason" => "el motivo",
        "authorisation" => "la autorización",
        _ => "un dato",
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// Two keys held by one person: the same name, whatever the case and spacing.
fn same_name(a: &str, b: &str) -> bool {
    let normal = |name: &str| name.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    normal(a) == normal(b)
}
