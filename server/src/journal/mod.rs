//! The journal room: where every applied command is kept, in order, and how a journal
//! is proven whole and brought back.
//!
//! # Layout
//! Each module imports only from the ones above it in this list.
//! - `identity`: who a journal is, and the hash that chains its entries.
//! - `seal`: HMAC-SHA256 under the journal key, bound to one identity.
//! - [`store`]: where the bytes are kept: the `Store` trait, sled behind it.
//! - [`postgres`]: the PostgreSQL store, for a salon with a hot standby.
//! - `chain`: the hash-chained journal over a store, its tip and its snapshots.
//! - [`mark`]: the acknowledgement mark beside the data directory.
//! - [`recovery`]: a journal's state rebuilt at start-up (snapshot, replay, chain and
//!   acknowledgement checks), one typed error for every way it can fail.

mod chain;
mod identity;
pub mod mark;
pub mod postgres;
pub mod recovery;
mod seal;
pub mod store;

pub(crate) use chain::META_KEYS;
pub use chain::{Journal, JournalError, JournalTip, ReadEntry, Record, StoredSnapshot, Unflushed, entry_hash};
pub use identity::{Hash, Identity};
pub use seal::Sealer;
