//! The pure pool engine of Pozo: rulebooks, contributions, awards, replenishments
//! and resets, exactly as the articles say, and the transfers, retirements and
//! adjustments a documented procedure makes. No I/O, no clock, no randomness: the
//! caller reads the rulebook files, and time and chance are inputs, so every rule
//! is a plain function and every run can be replayed bit for bit.
//!
//! # Layout
//! - [`ids`]: the typed identifiers [`TableId`], [`PoolId`] and [`PrizeCode`].
//! - [`money`](mod@money): the [`Money`] newtype (exact decimal, never a float) and the
//!   [`money!`] literal, rounding down to the payout unit, `$ 12.345,67`.
//! - [`rulebook`]: the pools of the regulations as validated data (`config/*.toml`).
//! - [`pool`]: one pool's balances and meters; every movement of money, with
//!   conservation asserted after each; its levels and banks' meters in `pool/levels.rs`.
//! - [`settle`]: paying the winners of one round at one table under the pool's
//!   multiple-winner policy (IPLyC factor, AJ order, Andalucía order), and the book a
//!   settled round keeps ([`RoundBook`], `settle/book.rs`).
//! - [`envy`]: the envy bonus a top hand gives the other seats in force, at the table or
//!   across the link.
//! - [`reject`]: undoing one award the Venta-Pagos office rejected, and only it.
//! - [`moves`]: money a documented procedure moves: a transfer between pools, a pool's
//!   retirement into another, a level's retirement into another level, a correction of a main
//!   balance.
//! - [`engine`]: every pool of the loaded rulebooks, by id.
//! - [`error`]: the one error type, naming the field and the rule.
//! - [`suggest`]: the nearest valid name to a misspelt one ("did you mean …?").
//! - [`tournament`]: a poker tournament's prize arithmetic (Res. 123/2013): its structure as
//!   validated data (`config/torneos.toml`), the prize pool and the house's part of each item,
//!   each position's prize, and the equal splits of ties and of a disqualified player's prize.
//!
//! Each module uses only those above it in this order (ids, money, error, rulebook, pool,
//! settle, envy, reject, moves, engine): no two import each other.

pub mod engine;
pub mod envy;
pub mod error;
pub mod ids;
pub mod money;
pub mod moves;
pub mod pool;
pub mod reconcile;
pub mod reject;
pub mod rulebook;
pub mod settle;
pub mod suggest;
pub mod tournament;

pub use engine::{Engine, Totals};
pub use envy::{InForce, envy_winners, with_envy};
pub use error::EngineError;
pub use ids::{PoolId, PrizeCode, TableId};
#[doc(hidden)]
pub use money::__dec;
pub use money::{Money, format_ars};
pub use moves::{LevelRetirement, Retirement, Transfer};
pub use pool::{Contribution, LevelContribution, LevelView, Meters, Pool, PoolState, Reversal};
pub use reconcile::{LevelBooks, LevelFigures, PoolFigures, Reconciliation};
pub use reject::{Rejection, Resettled};
pub use rulebook::{
    Bank, BankBy, Envy, EnvyScope, Game, Grillo, INSTANT_PRIZE, LevelRules, MinimumKind, Overflow, Policy, PoolRules, Prize,
    PrizeValue, RulebookError, Rulebooks, SeatsMax, Shortfall,
};
pub use settle::{Award, BookedAward, Rank, RoundBook, RoundEffect, Seat, Settlement, Stage, Winner};
pub use suggest::nearest;
