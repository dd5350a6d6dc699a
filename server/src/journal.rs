//! The journal: every applied command, in order, on sled.
//!
//! Entries live in the tree `journal`, keyed by their sequence as a big-endian
//! u64 so that sled's order is the journal's order. An entry's value is the
//! SHA-256 of the previous entry's value (32 bytes) followed by the JSON of the
//! [`Record`]: each entry names the one before it, so an edited, removed or
//! reordered entry breaks the chain (`pozo-server verify`). The first entry's
//! predecessor is [`Identity::genesis_previous`]: the chain is bound to its
//! installation.
//!
//! The tree `meta` keeps the journal's [`Identity`] (fixed at genesis; a restore
//! starts a new epoch) and the latest snapshot: the state after some entry, with
//! that entry's hash, so that start-up is snapshot + replay of what follows.

use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::state::{Command, Snapshot};

/// A SHA-256 hash.
pub type Hash = [u8; 32];

const SNAPSHOT_KEY: &[u8] = b"snapshot";
const SNAPSHOT_SEAL_KEY: &[u8] = b"snapshot-seal";
const IDENTITY_KEY: &[u8] = b"identity";

/// Who a journal is: an installation id drawn at genesis, and the epoch, moved on by
/// each restore from a backup. Every signed envelope names `journal_id()`, so one
/// captured on another journal, or before a restore, is refused (docs/security.md).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// 16 random bytes, hex.
    pub installation: String,
    pub epoch: u32,
}

impl Identity {
    /// A new installation, epoch 1, from the operating system's CSPRNG.
    pub fn generate() -> Identity {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).expect("the operating system's random source");
        Identity { installation: hex::encode(bytes), epoch: 1 }
    }

    /// `<installation>-<epoch>`: what envelopes are signed for.
    pub fn journal_id(&self) -> String {
        format!("{}-{}", self.installation, self.epoch)
    }

    /// The predecessor hash of entry 1: SHA-256 of "pozo.v1 genesis", a zero byte and
    /// the installation id. A journal cannot be passed off as another installation's.
    pub fn genesis_previous(&self) -> Hash {
        Sha256::new().chain_update(b"pozo.v1 genesis\0").chain_update(self.installation.as_bytes()).finalize().into()
    }
}

/// sled's page cache. Its default (1 GiB) let the controller grow about 0.5 MiB per
/// 1,000 entries written; the journal is written once and read back only at start-up
/// and by `Reports.Entries`, so a small cache costs nothing measurable (docs/benchmarks.md).
pub const CACHE_BYTES: u64 = 16 * 1024 * 1024;

/// How long opening waits for a journal closed just before to let go of its lock (sled's
/// flusher wakes every 500 ms; a loaded 2-core machine can take longer).
pub const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The tip record, in the entries' own tree so that it is written in the same
/// atomic batch as they are: the last sequence (8 bytes), its hash and its seal
/// under the journal key (`mark::Sealer::tip_seal`). It sorts after every entry key
/// (a sequence's first byte is 0x00 for the next 2^56 entries).
const TIP_KEY: &[u8] = b"~tip";

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
    #[error("journal storage: {0}")]
    Storage(#[from] sled::Error),
    #[error("journal entry {sequence}: {problem}")]
    Corrupt { sequence: u64, problem: String },
}

/// Cheap to clone: sled's handles are shared; readers other than the writer use
/// [`Journal::read_after`] bounded by the durable tip.
#[derive(Clone)]
pub struct Journal {
    db: sled::Db,
    entries: sled::Tree,
    meta: sled::Tree,
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

/// sled 0.34 reports a directory locked by another handle as `ErrorKind::Other` with the OS
/// error only in its message ("could not acquire lock on …: Os { … WouldBlock … }").
fn is_lock_held(error: &std::io::Error) -> bool {
    error.kind() == std::io::ErrorKind::WouldBlock || error.to_string().contains("could not acquire lock")
}

impl Journal {
    pub fn open(directory: &Path) -> Result<Journal, JournalError> {
        // sled's lock on the directory outlives a closed journal by a moment (its flusher
        // thread lets go last): a journal closed just before is waited for, briefly; one
        // held by a running server still fails after LOCK_WAIT.
        let started = std::time::Instant::now();
        let db = loop {
            match sled::Config::new().path(directory).cache_capacity(CACHE_BYTES).open() {
                Err(sled::Error::Io(error)) if is_lock_held(&error) && started.elapsed() < LOCK_WAIT => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                other => break other?,
            }
        };
        let entries = db.open_tree("journal")?;
        let meta = db.open_tree("meta")?;
        Ok(Journal { db, entries, meta })
    }

    /// Encodes an entry: the previous hash, then the record's JSON. Returns the bytes and their hash.
    pub fn encode(previous: &Hash, record: &Record) -> (Vec<u8>, Hash) {
        let mut value = Vec::with_capacity(256);
        value.extend_from_slice(previous);
        serde_json::to_writer(&mut value, record).expect("records always serialize");
        let hash = entry_hash(previous, &value[32..]);
        (value, hash)
    }

    fn decode(key: &[u8], value: &[u8]) -> Result<ReadEntry, JournalError> {
        let sequence = u64::from_be_bytes(
            key.try_into()
                .map_err(|_| JournalError::Corrupt { sequence: 0, problem: format!("key of {} bytes, not 8", key.len()) })?,
        );
        let corrupt = |problem: String| JournalError::Corrupt { sequence, problem };
        if value.len() < 32 {
            return Err(corrupt("shorter than its previous-entry hash".into()));
        }
        let previous: Hash = value[..32].try_into().expect("32 bytes");
        let record: Record = serde_json::from_slice(&value[32..]).map_err(|error| corrupt(format!("not a record: {error}")))?;
        if record.sequence != sequence {
            return Err(corrupt(format!("records sequence {} under key {sequence}", record.sequence)));
        }
        let hash = entry_hash(&previous, &value[32..]);
        Ok(ReadEntry { record, json: value[32..].to_vec(), previous, hash })
    }

    /// Writes a batch of encoded entries, with the new tip, atomically, and
    /// flushes once: durable when it returns.
    pub async fn append(&self, batch: Vec<(u64, Vec<u8>)>, tip: (u64, Hash), seal: [u8; 32]) -> Result<(), JournalError> {
        let mut writes = sled::Batch::default();
        for (sequence, value) in batch {
            writes.insert(&sequence.to_be_bytes(), value);
        }
        writes.insert(TIP_KEY, Journal::tip_record(tip, seal));
        self.entries.apply_batch(writes)?;
        self.db.flush_async().await?;
        Ok(())
    }

    fn tip_record(tip: (u64, Hash), seal: [u8; 32]) -> Vec<u8> {
        let mut record = Vec::with_capacity(72);
        record.extend_from_slice(&tip.0.to_be_bytes());
        record.extend_from_slice(&tip.1);
        record.extend_from_slice(&seal);
        record
    }

    /// Replaces the tip record's seal (a restore's new epoch); durable when it returns.
    pub async fn reseal_tip(&self, tip: (u64, Hash), seal: [u8; 32]) -> Result<(), JournalError> {
        self.entries.insert(TIP_KEY, Journal::tip_record(tip, seal))?;
        self.db.flush_async().await?;
        Ok(())
    }

    /// The tip record written with the last batch: its sequence, hash and seal.
    pub fn stored_tip(&self) -> Result<Option<(u64, Hash, [u8; 32])>, JournalError> {
        match self.entries.get(TIP_KEY)? {
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
        match self.entries.range(..TIP_KEY).next_back().transpose()? {
            None => Ok((0, [0; 32])),
            Some((key, value)) => {
                let entry = Journal::decode(&key, &value)?;
                Ok((entry.record.sequence, entry.hash))
            }
        }
    }

    /// Every entry after `after`, in order, each checked against its key.
    pub fn read_after(&self, after: u64) -> impl Iterator<Item = Result<ReadEntry, JournalError>> + '_ {
        // Past the last possible sequence nothing follows: an empty range at the tip key.
        let start = after.checked_add(1).map(|next| next.to_be_bytes().to_vec()).unwrap_or_else(|| TIP_KEY.to_vec());
        self.entries.range(start.as_slice()..TIP_KEY).map(|item| {
            let (key, value) = item?;
            Journal::decode(&key, &value)
        })
    }

    pub fn entry(&self, sequence: u64) -> Result<Option<ReadEntry>, JournalError> {
        match self.entries.get(sequence.to_be_bytes())? {
            None => Ok(None),
            Some(value) => Journal::decode(&sequence.to_be_bytes(), &value).map(Some),
        }
    }

    /// The journal's identity; `None` before genesis.
    pub fn identity(&self) -> Result<Option<Identity>, JournalError> {
        match self.meta.get(IDENTITY_KEY)? {
            None => Ok(None),
            Some(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|error| JournalError::Corrupt { sequence: 0, problem: format!("identity unreadable: {error}") }),
        }
    }

    /// Records the journal's identity; durable with the next append.
    pub fn set_identity(&self, identity: &Identity) -> Result<(), JournalError> {
        self.meta.insert(IDENTITY_KEY, serde_json::to_vec(identity).expect("identities serialize"))?;
        Ok(())
    }

    /// Stores a snapshot with its seal (`mark::Sealer::snapshot_seal` of the bytes);
    /// durable with the next append (or the journal's close).
    pub fn save_snapshot(&self, stored: &StoredSnapshot, sealer: &crate::mark::Sealer) -> Result<(), JournalError> {
        let bytes = Journal::encode_snapshot(stored);
        let seal = sealer.snapshot_seal(&bytes);
        self.store_snapshot(bytes, seal)
    }

    fn store_snapshot(&self, bytes: Vec<u8>, seal: [u8; 32]) -> Result<(), JournalError> {
        let mut writes = sled::Batch::default();
        writes.insert(SNAPSHOT_KEY, bytes);
        writes.insert(SNAPSHOT_SEAL_KEY, &seal[..]);
        self.meta.apply_batch(writes)?;
        Ok(())
    }

    /// A snapshot as it is stored: the costly part, which needs no journal.
    pub fn encode_snapshot(stored: &StoredSnapshot) -> Vec<u8> {
        serde_json::to_vec(stored).expect("snapshots always serialize")
    }

    /// Stores a snapshot encoded by [`Journal::encode_snapshot`] with its seal, durably: on
    /// an idle floor no append follows to flush it, and a kill would lose it.
    pub async fn save_snapshot_bytes(&self, bytes: Vec<u8>, seal: [u8; 32]) -> Result<(), JournalError> {
        self.store_snapshot(bytes, seal)?;
        self.db.flush_async().await?;
        Ok(())
    }

    /// The stored snapshot if its seal is this journal's: one written without the journal
    /// key (an edited state) is not trusted, and start-up replays from the first entry.
    pub fn load_sealed_snapshot(&self, sealer: &crate::mark::Sealer) -> Result<Option<StoredSnapshot>, JournalError> {
        let Some(bytes) = self.meta.get(SNAPSHOT_KEY)? else { return Ok(None) };
        let sealed = self.meta.get(SNAPSHOT_SEAL_KEY)?.is_some_and(|seal| seal[..] == sealer.snapshot_seal(&bytes)[..]);
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
        match self.meta.get(SNAPSHOT_KEY)? {
            None => Ok(None),
            Some(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|error| JournalError::Corrupt { sequence: 0, problem: format!("snapshot unreadable: {error}") }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn a_journal_closed_while_opening_is_waited_for() {
        let directory = tempfile::tempdir().expect("directory");
        let held = Journal::open(directory.path()).expect("first open");
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            drop(held);
        });
        let started = Instant::now();
        let journal = Journal::open(directory.path());
        release.join().expect("release thread");
        assert!(journal.is_ok(), "opened after {:?}: {:?}", started.elapsed(), journal.err());
    }

    #[test]
    fn a_journal_held_open_is_refused_after_the_wait() {
        let directory = tempfile::tempdir().expect("directory");
        let _held = Journal::open(directory.path()).expect("first open");
        let started = Instant::now();
        let second = Journal::open(directory.path());
        let waited = started.elapsed();
        let error = second.err().expect("a held journal is refused");
        assert!(error.to_string().contains("could not acquire lock"), "{error}");
        assert!(waited >= LOCK_WAIT, "refused after {waited:?}, before LOCK_WAIT");
    }
}
