//! Why a command is refused: one kind per gRPC status, and the message that names the
//! field and the rule.

use pozo_engine::EngineError;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefusalKind {
    /// A field breaks a rule whatever the state (credits not 1/5/10/20, unknown code).
    InvalidArgument,
    /// Not allowed in the table's current state (press after INICIAR, a gap in sequence).
    FailedPrecondition,
    /// No such table or order.
    NotFound,
    /// A sequence already used by another command, or an older one.
    AlreadyExists,
    /// The key's holder may not do this (a table key proposing a change, a person approving
    /// their own proposal: docs/operations.md §8).
    PermissionDenied,
}

impl RefusalKind {
    /// Every kind.
    pub const ALL: [RefusalKind; 5] = [
        RefusalKind::InvalidArgument,
        RefusalKind::FailedPrecondition,
        RefusalKind::NotFound,
        RefusalKind::AlreadyExists,
        RefusalKind::PermissionDenied,
    ];

    /// The kind's name, as the metrics label it (`pozo_refusals_total{kind=…}`).
    pub fn name(self) -> &'static str {
        match self {
            RefusalKind::InvalidArgument => "invalid_argument",
            RefusalKind::FailedPrecondition => "failed_precondition",
            RefusalKind::NotFound => "not_found",
            RefusalKind::AlreadyExists => "already_exists",
            RefusalKind::PermissionDenied => "permission_denied",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Refusal {
    pub kind: RefusalKind,
    /// For programs and logs: the field and the rule, in English (`key_id: …`).
    pub message: String,
    /// For people: the same refusal in the regulation's Spanish, where it is written (the
    /// pages show it instead of `message`).
    pub spanish: Option<String>,
}

impl Refusal {
    pub fn new(kind: RefusalKind, message: impl Into<String>) -> Refusal {
        Refusal { kind, message: message.into(), spanish: None }
    }

    /// The same refusal, in the words the pages show.
    #[must_use]
    pub fn castellano(mut self, text: impl Into<String>) -> Refusal {
        self.spanish = Some(text.into());
        self
    }

    /// What a person reads: the Spanish where written, else the message.
    pub fn for_people(&self) -> &str {
        self.spanish.as_deref().unwrap_or(&self.message)
    }
}

pub(in crate::state) fn invalid(message: impl Into<String>) -> Refusal {
    Refusal::new(RefusalKind::InvalidArgument, message)
}

pub(in crate::state) fn denied(message: impl Into<String>) -> Refusal {
    Refusal::new(RefusalKind::PermissionDenied, message)
}

pub(in crate::state) fn precondition(message: impl Into<String>) -> Refusal {
    Refusal::new(RefusalKind::FailedPrecondition, message)
}

pub(in crate::state) fn not_found(message: impl Into<String>) -> Refusal {
    Refusal::new(RefusalKind::NotFound, message)
}

/// The one mapping of the engine's errors: a field that breaks a rule, a pool that is
/// not there, a pool whose record does not allow it now.
pub(in crate::state) fn engine_refusal(error: EngineError) -> Refusal {
    let kind = match &error {
        EngineError::Invalid { .. } => RefusalKind::InvalidArgument,
        EngineError::UnknownPool { .. } => RefusalKind::NotFound,
        EngineError::NotNow { .. } => RefusalKind::FailedPrecondition,
    };
    Refusal::new(kind, error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the one mapping of the engine's errors to refusal kinds (and so to gRPC codes):
    // a bad field, an unknown pool and a state that does not allow it are told apart.
    #[test]
    fn engine_errors_map_to_their_own_refusal_kinds() {
        let cases = [
            (EngineError::invalid("bet", "must be greater than zero, found 0"), RefusalKind::InvalidArgument),
            (EngineError::UnknownPool { pool: "x".into(), known: "y".into() }, RefusalKind::NotFound),
            (EngineError::not_now("award", "seat 2 `P` was already rejected"), RefusalKind::FailedPrecondition),
        ];
        for (error, kind) in cases {
            let text = error.to_string();
            let refusal = engine_refusal(error);
            assert_eq!(refusal.kind, kind, "{text}");
            assert_eq!(refusal.message, text, "the message names the field and the rule");
        }
    }
}
