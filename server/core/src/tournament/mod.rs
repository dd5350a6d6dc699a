//! A poker tournament's primitives that must be auditable or private (Res. 123/2013, "Normas
//! generales para torneos de poker en la variante Texas Hold'em"), pure: the randomness and the
//! keys are the caller's inputs, nothing here draws, stores or tells the time.
//!
//! - [`seats`]: the random assignment of tables and seats (Res. 123/2013 art. 11, 15, 88;
//!   Anexo IV 8.1), committed before the players it seats are known and revealed after, so
//!   anyone with the journal recomputes it.
//! - [`identity`]: a player's identity document (Res. 123/2013 Anexo IV 1.1–1.3, art. 66),
//!   personal data: normalized, shown masked, matched by a keyed fingerprint and kept sealed
//!   under a key derived from the journal key, never in clear in the journal.

pub mod identity;
pub mod seats;

pub use identity::{DocumentKind, Identity, IdentityKeys};
pub use seats::{PlayerRef, SeatDrawHead, SeatDrawReason, Seating, TableSeats};

/// Input a tournament primitive refused, naming the field and the rule, in the style of a
/// refused rulebook (``field `number`: …``). Never quotes an identity document's number.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TournamentError {
    #[error("field `{field}`: {problem}")]
    Field {
        field: String,
        /// For programs and logs: the rule broken, in English.
        problem: String,
        /// For the staff who typed it (the cashier, the floor): the same in the regulation's
        /// Spanish, where written.
        spanish: Option<String>,
    },
}

impl TournamentError {
    pub(crate) fn field(field: &str, problem: impl std::fmt::Display) -> TournamentError {
        TournamentError::Field { field: field.to_owned(), problem: problem.to_string(), spanish: None }
    }

    /// The same error, in the words the staff read.
    #[must_use]
    pub(crate) fn castellano(self, text: impl Into<String>) -> TournamentError {
        match self {
            TournamentError::Field { field, problem, .. } => {
                TournamentError::Field { field, problem, spanish: Some(text.into()) }
            }
        }
    }

    /// The field the error is about.
    pub fn field_name(&self) -> &str {
        match self {
            TournamentError::Field { field, .. } => field,
        }
    }

    /// What a person reads: the Spanish where written, else the English message.
    pub fn for_people(&self) -> String {
        match self {
            TournamentError::Field { spanish: Some(text), .. } => text.clone(),
            TournamentError::Field { .. } => self.to_string(),
        }
    }
}
