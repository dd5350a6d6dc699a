//! Where the journal's bytes are kept: a small trait, and sled behind it.
//!
//! The store knows nothing of records, hashes or seals ([`crate::journal`] does): it
//! keeps entries by sequence in order, one tip record written atomically with them, and
//! a few named meta values. Everything is durable once [`Store::append`],
//! [`Store::put_tip`] or [`Store::flush`] completes. sled 0.34 is the one store today
//! ([`SledStore`]); nothing outside this file touches sled.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;

/// sled's page cache. Its default (1 GiB) let the controller grow about 0.5 MiB per
/// 1,000 entries written; the journal is written once and read back only at start-up
/// and by `Reports.Entries`, so a small cache costs nothing measurable (docs/benchmarks.md).
pub const CACHE_BYTES: u64 = 16 * 1024 * 1024;

/// How long opening waits for a journal closed just before to let go of its lock (sled's
/// flusher wakes every 500 ms; a loaded 2-core machine can take longer).
pub const LOCK_WAIT: Duration = Duration::from_secs(5);

/// The file in the data directory a controller holds an exclusive lock on while it has
/// the journal open: a second one is told so by the operating system (a typed
/// `WouldBlock`), not by reading sled's error text.
pub const LOCK_FILE: &str = "pozo.lock";

/// The tip record's key, in the entries' own tree so that it is written in the same
/// atomic batch as they are. It sorts after every entry key (a sequence's first byte is
/// 0x00 for the next 2^56 entries).
const TIP_KEY: &[u8] = b"~tip";

/// Why the store could not do what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("journal storage: {0}")]
    Sled(#[from] sled::Error),
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: std::io::Error },
    #[error(
        "{}: another pozo-server holds this data directory (it keeps {LOCK_FILE} locked while it runs): stop it first, \
         or start this one with another --data", directory.display()
    )]
    Locked { directory: PathBuf },
    #[error("journal storage: an entry key of {0} bytes, not 8")]
    Key(usize),
}

/// One entry as stored: its sequence and its bytes.
pub type Stored = (u64, Vec<u8>);

/// The journal's bytes, in order.
pub trait Store: Send + Sync {
    /// Writes `entries` (in sequence order) and the new tip record atomically; durable when
    /// the future completes.
    fn append(&self, entries: Vec<Stored>, tip: Vec<u8>) -> BoxFuture<'_, Result<(), StoreError>>;
    /// Replaces the tip record alone; durable when the future completes.
    fn put_tip(&self, tip: Vec<u8>) -> BoxFuture<'_, Result<(), StoreError>>;
    /// The tip record last written, if any.
    fn tip(&self) -> Result<Option<Vec<u8>>, StoreError>;
    /// The entry of `sequence`, if stored.
    fn entry(&self, sequence: u64) -> Result<Option<Vec<u8>>, StoreError>;
    /// The entry with the greatest sequence, if any.
    fn last(&self) -> Result<Option<Stored>, StoreError>;
    /// Every entry after `after`, in order.
    fn after(&self, after: u64) -> Box<dyn Iterator<Item = Result<Stored, StoreError>> + Send + '_>;
    /// A named meta value (identity, snapshot, seal).
    fn meta(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError>;
    /// Writes meta values together; durable with the next append, tip or flush.
    fn put_meta(&self, values: Vec<(&'static str, Vec<u8>)>) -> Result<(), StoreError>;
    /// Makes everything written so far durable.
    fn flush(&self) -> BoxFuture<'_, Result<(), StoreError>>;
}

/// The journal on sled: the tree `journal` holds entries keyed by their sequence as a
/// big-endian u64 (sled's order is the journal's) and the tip record; the tree `meta`
/// the named values (docs/journal.md).
pub struct SledStore {
    db: sled::Db,
    entries: sled::Tree,
    meta: sled::Tree,
    /// The data directory's lock, held while the store lives; dropped after `db`.
    _lock: std::fs::File,
}

impl SledStore {
    /// Opens (or creates) the store in `directory`. Refused with [`StoreError::Locked`]
    /// while another process holds it, after [`LOCK_WAIT`].
    pub fn open(directory: &Path) -> Result<Arc<SledStore>, StoreError> {
        let started = Instant::now();
        std::fs::create_dir_all(directory).map_err(|error| StoreError::Io { path: directory.to_path_buf(), error })?;
        let lock_path = directory.join(LOCK_FILE);
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|error| StoreError::Io { path: lock_path.clone(), error })?;
        // A journal closed just before lets go of its lock a moment later: waited for,
        // briefly; one held by a running server is still refused after LOCK_WAIT.
        loop {
            match lock.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if started.elapsed() < LOCK_WAIT => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(StoreError::Locked { directory: directory.to_path_buf() });
                }
                Err(std::fs::TryLockError::Error(error)) => return Err(StoreError::Io { path: lock_path, error }),
            }
        }
        // Under our lock, sled's own lock can only be held by the flusher thread of a handle
        // of this process closed just before (it lets go last): waited for likewise.
        let db = loop {
            match sled::Config::new().path(directory).cache_capacity(CACHE_BYTES).open() {
                Err(sled::Error::Io(error)) if error.kind() == std::io::ErrorKind::Other && started.elapsed() < LOCK_WAIT => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                other => break other?,
            }
        };
        let entries = db.open_tree("journal")?;
        let meta = db.open_tree("meta")?;
        Ok(Arc::new(SledStore { db, entries, meta, _lock: lock }))
    }
}

fn sequence_of(key: &[u8]) -> Result<u64, StoreError> {
    Ok(u64::from_be_bytes(key.try_into().map_err(|_| StoreError::Key(key.len()))?))
}

impl Store for SledStore {
    fn append(&self, entries: Vec<Stored>, tip: Vec<u8>) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let mut writes = sled::Batch::default();
            for (sequence, value) in entries {
                writes.insert(&sequence.to_be_bytes(), value);
            }
            writes.insert(TIP_KEY, tip);
            self.entries.apply_batch(writes)?;
            self.db.flush_async().await?;
            Ok(())
        })
    }

    fn put_tip(&self, tip: Vec<u8>) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            self.entries.insert(TIP_KEY, tip)?;
            self.db.flush_async().await?;
            Ok(())
        })
    }

    fn tip(&self) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.entries.get(TIP_KEY)?.map(|value| value.to_vec()))
    }

    fn entry(&self, sequence: u64) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.entries.get(sequence.to_be_bytes())?.map(|value| value.to_vec()))
    }

    fn last(&self) -> Result<Option<Stored>, StoreError> {
        match self.entries.range(..TIP_KEY).next_back().transpose()? {
            None => Ok(None),
            Some((key, value)) => Ok(Some((sequence_of(&key)?, value.to_vec()))),
        }
    }

    fn after(&self, after: u64) -> Box<dyn Iterator<Item = Result<Stored, StoreError>> + Send + '_> {
        // Past the last possible sequence nothing follows: an empty range at the tip key.
        let start = after.checked_add(1).map(|next| next.to_be_bytes().to_vec()).unwrap_or_else(|| TIP_KEY.to_vec());
        Box::new(self.entries.range(start.as_slice()..TIP_KEY).map(|item| {
            let (key, value) = item?;
            Ok((sequence_of(&key)?, value.to_vec()))
        }))
    }

    fn meta(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.meta.get(key.as_bytes())?.map(|value| value.to_vec()))
    }

    fn put_meta(&self, values: Vec<(&'static str, Vec<u8>)>) -> Result<(), StoreError> {
        let mut writes = sled::Batch::default();
        for (key, value) in values {
            writes.insert(key.as_bytes(), value);
        }
        self.meta.apply_batch(writes)?;
        Ok(())
    }

    fn flush(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            self.db.flush_async().await?;
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_closed_while_opening_is_waited_for() {
        let directory = tempfile::tempdir().expect("directory");
        let held = SledStore::open(directory.path()).expect("first open");
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            drop(held);
        });
        let started = Instant::now();
        let store = SledStore::open(directory.path());
        release.join().expect("release thread");
        assert!(store.is_ok(), "opened after {:?}: {:?}", started.elapsed(), store.err());
    }

    #[test]
    fn a_store_held_open_is_refused_after_the_wait() {
        let directory = tempfile::tempdir().expect("directory");
        let _held = SledStore::open(directory.path()).expect("first open");
        let started = Instant::now();
        let second = SledStore::open(directory.path());
        let waited = started.elapsed();
        let error = second.err().expect("a held store is refused");
        assert!(matches!(&error, StoreError::Locked { directory: held } if held == directory.path()), "{error:?}");
        assert!(error.to_string().contains("another pozo-server holds this data directory"), "{error}");
        assert!(waited >= LOCK_WAIT, "refused after {waited:?}, before LOCK_WAIT");
    }

    #[tokio::test]
    async fn entries_come_back_in_sequence_order_with_the_tip_written_with_them() {
        let directory = tempfile::tempdir().expect("directory");
        let store = SledStore::open(directory.path()).expect("open");
        assert_eq!((store.last().expect("last"), store.tip().expect("tip")), (None, None));
        // 256 sorts before 2 as text, not as a big-endian sequence.
        store.append(vec![(1, b"a".to_vec()), (2, b"b".to_vec())], b"tip-2".to_vec()).await.expect("append");
        store.append(vec![(256, b"c".to_vec())], b"tip-256".to_vec()).await.expect("append");
        let after: Vec<Stored> = store.after(1).collect::<Result<_, _>>().expect("read");
        assert_eq!(after, vec![(2, b"b".to_vec()), (256, b"c".to_vec())], "the tip record is not an entry");
        assert_eq!(store.last().expect("last"), Some((256, b"c".to_vec())));
        assert_eq!(store.tip().expect("tip"), Some(b"tip-256".to_vec()));
        assert_eq!(store.after(u64::MAX).count(), 0);
        assert_eq!(store.entry(2).expect("entry"), Some(b"b".to_vec()));
        store.put_meta(vec![("identity", b"x".to_vec())]).expect("meta");
        assert_eq!(store.meta("identity").expect("meta"), Some(b"x".to_vec()));
    }
}
