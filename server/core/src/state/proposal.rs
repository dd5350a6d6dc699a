//! What the state keeps of a change or a money movement: who proposed it, who approved it,
//! why, under which authorisation, what it changes, and when it took effect
//! (docs/operations.md §8).

use serde::{Deserialize, Serialize};

use super::command::{Effect, Proposed};
use crate::config::Difference;

/// How long a proposal waits for its approval, by the journal's clock: a week.
pub const PROPOSAL_TTL_MS: u64 = 7 * 24 * 3_600_000;

/// The most proposals kept; the oldest decided ones go first.
pub(crate) const PROPOSALS_KEPT: usize = 1_000;

/// The longest reason, authorisation reference or withdrawal reason, in characters.
pub const REASON_CHARS_MAX: usize = 500;

/// A person who signed a step, as the journaled keys name them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Person {
    pub key_id: String,
    pub name: String,
    /// `supervisor` or `inspector`.
    pub role: String,
    pub sequence: u64,
    pub time_ms: u64,
}

/// Where a proposal stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProposalStatus {
    /// Waiting for a second person (until it expires, [`PROPOSAL_TTL_MS`]).
    Pending,
    /// Approved, a money setting of a live pool waiting for its moment ([`Effect`]).
    Scheduled,
    /// In force since `effective_sequence`.
    InForce,
    Withdrawn,
}

impl ProposalStatus {
    /// As the sala shows it.
    pub fn spanish(self) -> &'static str {
        match self {
            ProposalStatus::Pending => "PENDIENTE DE APROBACIÓN",
            ProposalStatus::Scheduled => "PROGRAMADO",
            ProposalStatus::InForce => "EN VIGOR",
            ProposalStatus::Withdrawn => "RETIRADO",
        }
    }
}

/// A proposal and what became of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposal {
    /// `CB-000001`: its number in this journal.
    pub proposal_id: String,
    pub proposed: Proposed,
    pub reason: String,
    /// The regulator's authorisation reference (a resolution, a note number).
    pub authorisation: String,
    pub proposed_by: Person,
    /// The configuration it was proposed against (its hash): approved only on that one.
    pub base_hash: String,
    /// What it changes, setting by setting, as the approver is shown it.
    pub differences: Vec<Difference>,
    pub status: ProposalStatus,
    pub approved_by: Option<Person>,
    /// Withdrawn: by whom and why.
    pub withdrawn_by: Option<Person>,
    pub withdrawn_reason: String,
    /// Scheduled on a pool: its top prizes (`resets`) when approved, to know the next one.
    pub top_prizes_at_approval: u64,
    /// The journal entry it took effect at, and when; 0 while it has not.
    pub effective_sequence: u64,
    pub effective_ms: u64,
}

impl Proposal {
    /// Pending and past its week, at `now_ms`.
    pub fn expired(&self, now_ms: u64) -> bool {
        self.status == ProposalStatus::Pending && now_ms > self.proposed_by.time_ms + PROPOSAL_TTL_MS
    }

    /// The status at `now_ms`, as the sala shows it: an expired one is VENCIDO.
    pub fn status_spanish(&self, now_ms: u64) -> &'static str {
        if self.expired(now_ms) { "VENCIDO" } else { self.status.spanish() }
    }

    /// The effect a configuration change waits for, if it is one.
    pub fn effect(&self) -> Option<&Effect> {
        match &self.proposed {
            Proposed::Configuration { effect, .. } => Some(effect),
            _ => None,
        }
    }

    /// When it takes effect, in plain Spanish: empty for a change in force at its approval.
    pub fn effect_spanish(&self) -> String {
        let money = self.differences.iter().any(|difference| difference.money);
        match self.effect() {
            Some(Effect::NextTopPrize) if money => "tras el próximo premio mayor del pozo, fuera de toda jugada".to_owned(),
            Some(Effect::Jornada { jornada }) if money => format!("desde la jornada {jornada}, fuera de toda jugada"),
            _ => String::new(),
        }
    }

    /// In plain Spanish, one line: what it does.
    pub fn summary(&self) -> String {
        use pozo_engine::money::{Money, format_ars};
        match &self.proposed {
            Proposed::Configuration { .. } => self.differences.iter().map(Difference::describe).collect::<Vec<_>>().join("; "),
            Proposed::Transfer { from, to, amount } => {
                format!("Transferencia de {} del pozo {from} al pozo {to}", format_ars(*amount))
            }
            Proposed::RetirePool { pool, to } => format!("Retiro del pozo {pool}: su saldo y su reserva pasan al pozo {to}"),
            Proposed::RetireLevel { pool, level, to } => {
                format!("Retiro del nivel {level} del pozo {pool}: su saldo y su reserva pasan al nivel {to}")
            }
            Proposed::Adjust { pool, amount } if *amount < Money::ZERO => {
                format!("Ajuste del pozo {pool}: − {}", format_ars(amount.abs()))
            }
            Proposed::Adjust { pool, amount } => format!("Ajuste del pozo {pool}: + {}", format_ars(*amount)),
            Proposed::Tournament { text } => match pozo_engine::tournament::Structure::parse(text) {
                Ok(structures) if structures.len() == 1 => {
                    let structure = &structures[0];
                    format!(
                        "Alta del torneo {} «{}»: inscripción {} (Res. 123/2013 Anexo I art. 1)",
                        structure.id(),
                        structure.name(),
                        format_ars(structure.buy_in().price)
                    )
                }
                _ => "Alta de un torneo".to_owned(),
            },
        }
    }
}
