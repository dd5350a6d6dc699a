//! The operator's tools: what `pozo-server` does besides serving. Each works on a journal
//! through the journal room and the pure core, never through a second path.
//!
//! # Layout
//! - [`verify`]: replaying a journal from zero to check its chain, seals and books.
//! - [`close`]: a stopped journal's books sealed in a closing statement, carried to a new
//!   journal (`serve --open-from`), and checked by `verify`.
//! - [`evidence`]: a jornada's evidence signed with the casino's Ed25519 key, for `pozo-verifier`.
//! - [`backup`]: a verified copy of the durable journal of a running controller.
//! - [`restore`]: bringing a backup in as a new epoch.
//! - [`migrate`]: copying a journal between stores (sled and PostgreSQL).
//! - `award`: the award calculator for disputes and audits.

pub(crate) mod award;
pub mod backup;
pub mod close;
pub mod evidence;
pub mod migrate;
pub(crate) mod restore;
pub mod verify;
