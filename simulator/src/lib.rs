//! The simulator: real games dealt from a seed, their hit frequencies against the
//! exact probabilities, and (to come) nights played through real table agents.
//!
//! # Layout
//! - [`cards`]: cards, decks, seeded shoes.
//! - [`poker`]: the five-card evaluator and each paytable's names for hands.
//! - [`roulette`]: the double-zero wheel and the grillo series.
//! - [`odds`]: exact probabilities and the `odds` comparison.

pub mod cards;
pub mod odds;
pub mod poker;
pub mod roulette;
