//! The simulator: real games dealt from a seed, their hit frequencies against the
//! exact probabilities, and (to come) nights played through real table agents.
//!
//! # Layout
//! - [`bench`](mod@bench): `pozo-sim bench`: throughput against a bare echo, latency, memory, restart.
//! - [`blackjack`]: blackjack rounds from the shoe (IPLyC 8 decks, Andalucía 6) and their premio codes.
//! - [`cards`]: cards, decks, seeded shoes.
//! - [`casino`]: a generated casino of N tables, and the embedded controller.
//! - [`poker`]: the five-card evaluator and each paytable's names for hands.
//! - [`roulette`]: the double-zero wheel and the grillo series.
//! - [`three_card`]: Three Card Poker (seed 003): its deal, the three-card evaluator, the dealer's
//!   queen, the market progressive's codes and the exact returns over the 22,100 hands.
//! - [`journal`]: the journal decoded from `docs/journal.md` alone, with its own hash chain (the audit's reader).
//! - [`levels`]: every level of a pool on its own books (conservation per level, what each holds).
//! - [`link`]: one table's agent, in process, fed hardware lines.
//! - [`market`]: the market's progressives measured: each level's hits against its exact odds, and
//!   each example paytable's return (`odds --rulebooks market`).
//! - [`mystery`]: `odds --draws`: the mystery level's triggers and hot seats held against
//!   uniformity (Pearson's chi-square).
//! - [`night`]: `pozo-sim run` and `replay`: a night through real agents, and its books
//!   (`night/`: the floor, the dealers, the books and audit, the record).
//! - [`odds`]: exact probabilities and the `odds` comparison.
//! - [`plot`]: `run --plot FILE.svg`, each pool's balance over the night (plotters).
//! - [`tournament`]: `pozo-sim tournament`: a poker tournament (Res. 123/2013) played through the
//!   real server from a seed, its books tied to zero and its seat draws checked offline.
//! - [`vopr`]: `pozo-sim vopr`: the whole controller in one thread under a seed, with injected
//!   faults and every invariant checked after every step.

pub mod bench;
pub mod blackjack;
pub mod cards;
pub mod casino;
pub mod journal;
pub mod levels;
pub mod link;
pub mod market;
pub mod marks;
pub mod mystery;
pub mod night;
pub mod odds;
pub mod plot;
pub mod poker;
pub mod roulette;
pub mod three_card;
pub mod tournament;
pub mod vopr;

/// The multi-threaded tokio runtime every command of `pozo-sim` runs on.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build()
}
