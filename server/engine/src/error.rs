//! The engine's one error type: input that breaks a rule. Nothing is changed when
//! one is returned. A broken invariant (conservation) is a bug and panics instead.

/// Input the engine refused, naming the field and the rule.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// A field breaks a rule: `winners[1].code: `FOO` is not in the paytable…`.
    #[error("{field}: {problem}")]
    Invalid { field: String, problem: String },
    /// No pool of that id in the loaded rulebooks.
    #[error("pool: unknown pool `{pool}` (known: {known})")]
    UnknownPool { pool: String, known: String },
    /// Well formed, but what the pool has recorded does not allow it now: an award
    /// rejected twice, more reversed than was registered.
    #[error("{field}: {problem}")]
    NotNow { field: String, problem: String },
}

impl EngineError {
    pub fn invalid(field: &str, problem: impl Into<String>) -> EngineError {
        EngineError::Invalid { field: field.to_owned(), problem: problem.into() }
    }

    pub fn not_now(field: &str, problem: impl Into<String>) -> EngineError {
        EngineError::NotNow { field: field.to_owned(), problem: problem.into() }
    }

    /// The field the error is about, for a caller that maps errors to its own protocol.
    pub fn field(&self) -> &str {
        match self {
            EngineError::Invalid { field, .. } | EngineError::NotNow { field, .. } => field,
            EngineError::UnknownPool { .. } => "pool",
        }
    }
}
