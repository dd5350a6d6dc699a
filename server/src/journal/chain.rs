//! The journal: every applied command, in order, hash-chained, over a [`Store`].
//!
//! An entry's value is the SHA-256 of the previous entry's value (32 bytes) followed
//! by the JSON of the [`Record`]: each entry names the one before it, so an edited,
//! removed or reordered entry breaks the chain (`pozo-server verify`). The first
//! entry's predecessor is [`Identity::genesis_previous`]: the chain is bound to its
//! installation. The format, byte for byte, is in docs/journal.md.
//!
//! Beside the entries the store keeps the tip record (the last sequence, its hash and
//! its seal, written atomically with them), the journal's [`Identity`] (fixed at
//! genesis; a restore starts a new epoch) and the latest snapshot: the state after
//! some entry, with that entry's hash, so that start-up is snapshot + replay of what
//! follows. Where the bytes are kept is the store's business ([`super::store`]).

use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::identity::{Hash, Identity};
use super::seal::Sealer;
use super::store::{AppendsHere, PreparedSnapshot, SledStore, Store, StoreError};
use pozo_core::state::{Command, Snapshot};

/// The meta values a journal keeps beside its entries, tip and snapshot: what `migrate` copies
/// with them.
pub(crate) const META_KEYS: [&str; 1] = [IDENTITY_KEY];

pub(crate) const IDENTITY_KEY: &str = "identity";

/// The journal's length and the hash of its last entry.
#[derive(Clone, Copy, Debug)]
pub struct JournalTip {
    pub entries: u64,
    pub hash: Hash,
}

/// One journal entry's content.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub sequence: u64,
    pub time_ms: u64,
    pub command: Command,
}

/// The latest snapshot as stored: the state after entry `sequence`, whose hash is `tip`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StoredSnapshot {
    pub sequence: u64,
    pub tip: String,
    pub snapshot: Snapshot,
}

#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("journal entry {sequence}: {problem}")]
    Corrupt { sequence: u64, problem: String },
}

/// Cheap to clone: the store is shared; readers other than the writer use
/// [`Journal::read_after`] bounded by the durable tip.
#[derive(Clone)]
pub struct Journal {
    store: Arc<dyn Store>,
}

/// A batch written and not yet durable ([`Journal::write_batch`]).
#[must_use = "the batch is not durable until flushed"]
pub struct Unflushed(Arc<dyn AppendsHere>);

impl Unflushed {
    /// Makes the batch durable, on this thread (one that may block).
    pub fn flush_here(self) -> Result<(), JournalError> {
        self.0.flush_here()?;
        Ok(())
    }
}

/// An entry read back, checked against its own key.
pub struct ReadEntry {
    pub record: Record,
    /// The record's bytes as stored (after the previous hash): what the hash covers.
    pub json: Vec<u8>,
    pub previous: Hash,
    pub hash: Hash,
}

/// An entry's hash: SHA-256 of the previous entry's hash followed by the record's JSON bytes.
pub fn entry_hash(previous: &[u8], json: &[u8]) -> Hash {
    Sha256::new().chain_update(previous).chain_update(json).finalize().into()
}

impl Journal {
    /// Opens (or creates) the journal on sled in `directory` (see [`SledStore::open`]).
    pub fn open(directory: &Path) -> Result<Journal, JournalError> {
        Ok(Journal::on(SledStore::open(directory)?))
    }

    /// The journal kept in `store`.
    pub fn on(store: Arc<dyn Store>) -> Journal {
        Journal { store }
    }

    /// Encodes an entry: the previous hash, then the record's JSON. Returns the bytes and their hash.
    pub fn encode(previous: &Hash, record: &Record) -> (Vec<u8>, Hash) {
        let mut value = Vec::with_capacity(256);
        value.extend_from_slice(previous);
        serde_json::to_writer(&mut value, record).expect("records always serialize");
        let hash = entry_hash(previous, &value[32..]);
        (value, hash)
    }

    /// Decodes an entry as the store gave it; its bytes become the record's `json` in place
    /// (the 32-byte previous hash is drained from the front, nothing is copied).
    fn decode(sequence: u64, mut value: Vec<u8>) -> Result<ReadEntry, JournalError> {
        let corrupt = |problem: String| JournalError::Corrupt { sequence, problem };
        if value.len() < 32 {
            return Err(corrupt("shorter than its previous-entry hash".into()));
        }
        let previous: Hash = value[..32].try_into().expect("32 bytes");
        value.drain(..32);
        let record: Record = serde_json::from_slice(&value).map_err(|error| corrupt(format!("not a record: {error}")))?;
        if record.sequence != sequence {
            return Err(corrupt(format!("records sequence {} under key {sequence}", record.sequence)));
        }
        let hash = entry_hash(&previous, &value);
        Ok(ReadEntry { record, json: value, previous, hash })
    }

    /// Whether the writer's lock on this journal can be lost while it lives (PostgreSQL's).
    pub fn lock_can_be_lost(&self) -> bool {
        self.store.lock_can_be_lost()
    }

    /// Confirms this controller still holds the writer's lock (always, on sled).
    pub async fn confirm_writer(&self) -> Result<(), JournalError> {
        self.store.confirm_writer().await?;
        Ok(())
    }

    /// Writes a batch of encoded entries, with the new tip, atomically, and
    /// flushes once: durable when it returns.
    pub async fn append(&self, batch: Vec<(u64, Vec<u8>)>, tip: (u64, Hash), seal: [u8; 32]) -> Result<(), JournalError> {
        self.store.append(batch, Journal::tip_record(tip, seal)).await?;
        Ok(())
    }

    fn tip_record(tip: (u64, Hash), seal: [u8; 32]) -> Vec<u8> {
        let mut record = Vec::with_capacity(72);
        record.extend_from_slice(&tip.0.to_be_bytes());
        record.extend_from_slice(&tip.1);
        record.extend_from_slice(&seal);
        record
    }

    /// Writes a batch as [`Journal::append`] does. Where the store makes its append in two
    /// calls ([`Store::appends_here`], sled's), the batch is not yet durable: the
    /// [`Unflushed`] returned makes it so, on a thread that may block. Elsewhere it is
    /// appended, durable when this returns, and `None` is left to do.
    pub async fn write_batch(
        &self,
        batch: Vec<(u64, Vec<u8>)>,
        tip: (u64, Hash),
        seal: [u8; 32],
    ) -> Result<Option<Unflushed>, JournalError> {
        let record = Journal::tip_record(tip, seal);
        match Arc::clone(&self.store).appends_here() {
            Some(store) => {
                store.write_batch(batch, record)?;
                Ok(Some(Unflushed(store)))
            }
            None => {
                self.store.append(batch, record).await?;
                Ok(None)
            }
        }
    }

    /// Replaces the tip record's seal (a restore's new epoch); durable when it returns.
    pub async fn reseal_tip(&self, tip: (u64, Hash), seal: [u8; 32]) -> Result<(), JournalError> {
        self.store.put_tip(Journal::tip_record(tip, seal)).await?;
        Ok(())
    }

    /// The tip record written with the last batch: its sequence, hash and seal.
    pub fn stored_tip(&self) -> Result<Option<(u64, Hash, [u8; 32])>, JournalError> {
        match self.store.tip()? {
            None => Ok(None),
            Some(value) if value.len() == 72 => {
                let sequence = u64::from_be_bytes(value[..8].try_into().expect("8 bytes"));
                Ok(Some((sequence, value[8..40].try_into().expect("32 bytes"), value[40..].try_into().expect("32 bytes"))))
            }
            Some(value) => {
                Err(JournalError::Corrupt { sequence: 0, problem: format!("tip record of {} bytes, not 72", value.len()) })
            }
        }
    }

    /// How many entries, and the hash of the last.
    pub fn tip(&self) -> Result<(u64, Hash), JournalError> {
        match self.store.last()? {
            None => Ok((0, [0; 32])),
            Some((sequence, value)) => {
                let entry = Journal::decode(sequence, value)?;
                Ok((entry.record.sequence, entry.hash))
            }
        }
    }

    /// Every entry after `after`, in order, each checked against its key.
    pub fn read_after(&self, after: u64) -> impl Iterator<Item = Result<ReadEntry, JournalError>> + '_ {
        self.store.after(after).map(|item| {
            let (sequence, value) = item?;
            Journal::decode(sequence, value)
        })
    }

    pub fn entry(&self, sequence: u64) -> Result<Option<ReadEntry>, JournalError> {
        match self.store.entry(sequence)? {
            None => Ok(None),
            Some(value) => Journal::decode(sequence, value).map(Some),
        }
    }

    /// The journal's identity; `None` before genesis.
    pub fn identity(&self) -> Result<Option<Identity>, JournalError> {
        match self.store.meta(IDENTITY_KEY)? {
            None => Ok(None),
            Some(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|error| JournalError::Corrupt { sequence: 0, problem: format!("identity unreadable: {error}") }),
        }
    }

    /// Records the journal's identity; durable with the next append.
    pub(crate) fn set_identity(&self, identity: &Identity) -> Result<(), JournalError> {
        self.store.put_meta(vec![(IDENTITY_KEY, serde_json::to_vec(identity).expect("identities serialize"))])?;
        Ok(())
    }

    /// Stores a snapshot with its seal (`Sealer::snapshot_seal` of the bytes);
    /// durable with the next append (or the journal's close).
    pub fn save_snapshot(&self, stored: &StoredSnapshot, sealer: &Sealer) -> Result<(), JournalError> {
        let bytes = Journal::encode_snapshot(stored);
        let seal = sealer.snapshot_seal(&bytes);
        self.store_snapshot(bytes, seal)
    }

    fn store_snapshot(&self, bytes: Vec<u8>, seal: [u8; 32]) -> Result<(), JournalError> {
        let prepared = self.prepare_snapshot(bytes, seal)?;
        self.commit_snapshot(prepared)
    }

    /// Writes an encoded snapshot where the store keeps it, without storing it yet: the costly
    /// part, done by the thread that encoded it, off the writer's path.
    pub(crate) fn prepare_snapshot(&self, bytes: Vec<u8>, seal: [u8; 32]) -> Result<PreparedSnapshot, JournalError> {
        Ok(self.store.prepare_snapshot(bytes, seal)?)
    }

    /// Makes a prepared snapshot the stored one; durable with the next append or flush.
    pub(crate) fn commit_snapshot(&self, prepared: PreparedSnapshot) -> Result<(), JournalError> {
        self.store.commit_snapshot(prepared)?;
        Ok(())
    }

    /// [`Journal::commit_snapshot`], durably: on an idle floor no append follows to flush it.
    pub(crate) async fn commit_snapshot_durably(&self, prepared: PreparedSnapshot) -> Result<(), JournalError> {
        self.commit_snapshot(prepared)?;
        self.store.flush().await?;
        Ok(())
    }

    /// A snapshot as it is stored: the costly part, which needs no journal.
    pub fn encode_snapshot(stored: &StoredSnapshot) -> Vec<u8> {
        Journal::encode_snapshot_sized(stored, 0)
    }

    /// [`Journal::encode_snapshot`] into a buffer of `capacity` bytes: the writer asks for the
    /// last snapshot's size, as a snapshot of megabytes grown from nothing is copied at every
    /// doubling, onto pages the kernel must fault in each time (docs/benchmarks.md, step 9).
    pub fn encode_snapshot_sized(stored: &StoredSnapshot, capacity: usize) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(capacity);
        serde_json::to_writer(&mut bytes, stored).expect("snapshots always serialize");
        bytes
    }

    /// Stores a snapshot encoded by [`Journal::encode_snapshot`] with its seal, durably: on
    /// an idle floor no append follows to flush it, and a kill would lose it.
    pub async fn save_snapshot_bytes(&self, bytes: Vec<u8>, seal: [u8; 32]) -> Result<(), JournalError> {
        self.commit_snapshot_durably(self.prepare_snapshot(bytes, seal)?).await
    }

    /// The stored snapshot if its seal is this journal's: one written without the journal
    /// key (an edited state) is not trusted, and start-up replays from the first entry.
    pub(crate) fn load_sealed_snapshot(&self, sealer: &Sealer) -> Result<Option<StoredSnapshot>, JournalError> {
        let stored = match self.store.snapshot() {
            Ok(stored) => stored,
            // Only a shortcut: a snapshot's file gone or unreadable is replayed around, as an
            // unsealed one is (sled's store keeps it in a file of its own: docs/journal.md).
            Err(StoreError::Io { path, error }) => {
                tracing::warn!(
                    file = %path.display(), %error,
                    "the stored snapshot's file cannot be read: it is ignored, and the journal replayed from its first entry"
                );
                return Ok(None);
            }
            Err(error) => return Err(error.into()),
        };
        let Some((bytes, seal)) = stored else { return Ok(None) };
        let sealed = seal.is_some_and(|seal| seal[..] == sealer.snapshot_seal(&bytes)[..]);
        if !sealed {
            tracing::warn!(
                "the stored snapshot is not sealed with the journal key: it is ignored, and the journal replayed from its first entry"
            );
            return Ok(None);
        }
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|error| JournalError::Corrupt { sequence: 0, problem: format!("snapshot unreadable: {error}") })
    }

    pub fn load_snapshot(&self) -> Result<Option<StoredSnapshot>, JournalError> {
        match self.store.snapshot()? {
            None => Ok(None),
            Some((bytes, _)) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|error| JournalError::Corrupt { sequence: 0, problem: format!("snapshot unreadable: {error}") }),
        }
    }
}
