//! The controller's pure core: what the controller decides, with nothing of how it talks,
//! stores or tells the time. This crate depends on the rules (`pozo_engine`) and on no
//! crate that does I/O (no tokio, tonic, sled or clock), so the compiler keeps I/O out of it.
//!
//! # Layout
//! Each module imports only from the ones above it in this list; none imports in a circle.
//! - [`config`]: the casino layout, the keys' records and the rulebooks, parsed from their
//!   texts and validated together (reading the files is the server's `config` room).
//! - [`jornada`]: the casino day and local hour of a moment (4.7, 12.8).
//! - [`planted`]: known bugs planted for the seeded simulation to find; compiled in only
//!   with the `planted-bugs` feature.
//! - [`random`]: a uniform choice from a source of uniform words, by rejection sampling.
//! - [`tournament`]: a poker tournament's seat draw and its players' identity documents
//!   (Res. 123/2013), pure: the nonces and the keys are the caller's.
//! - [`state`]: the deterministic state machine: tables, rounds, grillos, gold turns,
//!   credits, payout orders and report meters, changed only by `State::apply`, with one
//!   file per command in `state/cmd/`.

pub mod config;
pub mod jornada;
pub mod planted;
pub mod random;
pub mod state;
pub mod tournament;
