//! Where the journal's bytes are kept: a small trait, and sled behind it.
//!
//! The store knows nothing of records, hashes or seals ([`crate::journal`] does): it
//! keeps entries by sequence in order, one tip record written atomically with them, and
//! a few named meta values. sled keeps each appended batch in runs of entries of up to
//! [`RUN_BYTES`], one value per run (docs/journal.md): a key per entry cost the writer a
//! tenth of its CPU in sled's tree (docs/benchmarks.md). Everything is durable once [`Store::append`],
//! [`Store::put_tip`] or [`Store::flush`] completes. sled 0.34 is the one store today
//! ([`SledStore`]); nothing outside this file touches sled.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;

/// sled's page cache. Its default (1 GiB) let the controller grow about 0.5 MiB per
/// 1,000 entries written; the journal is written once and read back only at start-up
/// and by `Reports.Entries`, so a small cache costs little (docs/benchmarks.md).
/// 8 MiB since the snapshot left sled for a file of its own: the peak at 1,000 tables fell
/// by 3–7 MiB in every pair measured, the restart on 1,000,000 entries slower in some pairs
/// and faster in others (docs/benchmarks.md, issue 47 step 12).
pub(crate) const CACHE_BYTES: u64 = 8 * 1024 * 1024;

/// How long opening waits for a journal closed just before to let go of its lock (sled's
/// flusher wakes every 500 ms; a loaded 2-core machine can take longer).
pub(crate) const LOCK_WAIT: Duration = Duration::from_secs(5);

/// The file in the data directory a controller holds an exclusive lock on while it has
/// the journal open: a second one is told so by the operating system (a typed
/// `WouldBlock`), not by reading sled's error text.
pub(crate) const LOCK_FILE: &str = "pozo.lock";

/// The tip record's key, in the batches' own tree so that it is written in the same
/// atomic sled batch as they are. It sorts after every batch key (a sequence's first byte
/// is 0x00 for the next 2^56 entries).
const TIP_KEY: &[u8] = b"~tip";

/// The tree of the journal's batches (docs/journal.md).
const BATCHES: &str = "batches";

/// Where sled's store keeps its snapshots, in the data directory: one file each, named by its
/// seal, written and synced by the thread that encoded it. Inside sled, a snapshot of megabytes
/// was one of its blobs, written and synced while the writer waited, and every press waited
/// behind it (docs/benchmarks.md, issue 47 step 11).
pub(crate) const SNAPSHOTS_DIRECTORY: &str = "snapshots";

/// How much of a snapshot's file is written before it is synced and the next piece written.
const SNAPSHOT_PIECE_BYTES: usize = 256 * 1024;

/// The meta value that names the stored snapshot's file.
const SNAPSHOT_FILE_KEY: &str = "snapshot-file";

/// The snapshot files `meta` names (`SledStore::snapshot_files`).
#[derive(Default)]
struct SnapshotFiles {
    named: Option<String>,
    durable: Option<String>,
}

/// The name of a snapshot's file: its seal in hex.
fn snapshot_file_name(seal: &[u8; 32]) -> String {
    format!("{}.json", hex::encode(seal))
}

/// The tree an earlier format kept one entry per key in: a data directory that has it is
/// refused, not misread.
const ENTRIES_BEFORE: &str = "journal";

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
    #[error("journal storage: a run key of {0} bytes, not 8")]
    Key(usize),
    #[error("journal storage: the run of entries starting at entry {first} is damaged: {problem}")]
    Run { first: u64, problem: &'static str },
    #[error("{what}: {error}")]
    Postgres { what: String, error: tokio_postgres::Error },
    #[error("--store {database}: not a PostgreSQL address: write postgres://user:password@host:port/database")]
    Address { database: String },
    #[error("{database}: the journal's tables could not be brought up to date: {problem}")]
    Migrations { database: String, problem: String },
    #[error(
        "{database}: another pozo-server is the writer of this journal (it holds the writer's lock while it runs): \
         stop it first, or start this one as its standby"
    )]
    WriterElsewhere { database: String },
    #[error(
        "{database}: entry {first} was already committed by another writer: this controller stops writing \
         (docs/journal.md, \"On PostgreSQL\")"
    )]
    Fenced { first: u64, database: String },
    #[error(
        "{}: this data directory was written by an earlier Pozo, which kept one sled key per entry; this one keeps one \
         per batch (docs/journal.md) and does not read it", directory.display()
    )]
    EarlierFormat { directory: PathBuf },
}

impl StoreError {
    /// An error that trying again cannot mend: a wrong address, or a password or user the
    /// database refuses.
    pub(crate) fn is_refusal(&self) -> bool {
        match self {
            StoreError::Address { .. } => true,
            StoreError::Postgres { error, .. } => error.code().is_some_and(|code| {
                code == &tokio_postgres::error::SqlState::INVALID_PASSWORD
                    || code == &tokio_postgres::error::SqlState::INVALID_AUTHORIZATION_SPECIFICATION
                    || code == &tokio_postgres::error::SqlState::INVALID_CATALOG_NAME
            }),
            _ => false,
        }
    }
}

/// One entry as stored: its sequence and its bytes.
pub(crate) type Stored = (u64, Vec<u8>);

/// The journal's bytes, in order.
pub trait Store: Send + Sync {
    /// Writes `entries` (in sequence order) and the new tip record atomically; durable when
    /// the future completes.
    fn append(&self, entries: Vec<Stored>, tip: Vec<u8>) -> BoxFuture<'_, Result<(), StoreError>>;
    /// This store as one whose append is made in two calls that block and wake no other
    /// thread ([`AppendsHere`]), where it is one (sled's); `None` where its append is a future.
    fn appends_here(self: Arc<Self>) -> Option<Arc<dyn AppendsHere>> {
        None
    }
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
    /// Writes a snapshot's bytes where [`Store::commit_snapshot`] can name them: called off
    /// the writer's path, on the thread that encoded them. A store that keeps its snapshot
    /// among its meta values keeps the bytes for the commit.
    fn prepare_snapshot(&self, bytes: Vec<u8>, seal: [u8; 32]) -> Result<PreparedSnapshot, StoreError> {
        Ok(PreparedSnapshot { seal, content: Prepared::Bytes(bytes) })
    }
    /// Makes a prepared snapshot, with its seal, the stored one in a single write: durable
    /// with the next append, tip or flush.
    fn commit_snapshot(&self, prepared: PreparedSnapshot) -> Result<(), StoreError> {
        match prepared.content {
            Prepared::Bytes(bytes) => self.put_meta(vec![(SNAPSHOT_KEY, bytes), (SNAPSHOT_SEAL_KEY, prepared.seal.to_vec())]),
            Prepared::File(name) => Err(StoreError::Io {
                path: PathBuf::from(name),
                error: std::io::Error::other("this store keeps no snapshot files"),
            }),
        }
    }
    /// The stored snapshot's bytes, and its seal if one was stored with it.
    fn snapshot(&self) -> Result<Option<StoredBytes>, StoreError> {
        let Some(bytes) = self.meta(SNAPSHOT_KEY)? else { return Ok(None) };
        Ok(Some((bytes, self.meta(SNAPSHOT_SEAL_KEY)?)))
    }
    /// Whether this store's writer may lose its lock while it lives (a [`Shared`] journal's:
    /// its session cut off, and a standby taking over). sled's cannot: the data directory's lock
    /// is the process's.
    fn lock_can_be_lost(&self) -> bool {
        false
    }
    /// Confirms this store still holds the writer's lock ([`Store::lock_can_be_lost`]): what a
    /// refusal waits for, judged on a state that is current only while no other writer writes.
    fn confirm_writer(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async { Ok(()) })
    }
}

/// A store's append in two calls, each on a thread that may block, waking no other thread: the
/// writer makes the journal and then the acknowledgement mark durable on one blocking thread,
/// with no thread woken between the two syncs (docs/architecture.md).
pub trait AppendsHere: Send + Sync {
    /// What [`Store::append`] writes, not yet durable: [`AppendsHere::flush_here`] makes it so.
    fn write_batch(&self, entries: Vec<Stored>, tip: Vec<u8>) -> Result<(), StoreError>;
    /// [`Store::flush`] on the calling thread, which must be one that may block.
    fn flush_here(&self) -> Result<(), StoreError>;
}

/// The meta value a store that keeps its snapshot among its meta values keeps it under, and
/// its seal's (sled kept it there too before [`SNAPSHOTS_DIRECTORY`]).
pub(crate) const SNAPSHOT_KEY: &str = "snapshot";
pub(crate) const SNAPSHOT_SEAL_KEY: &str = "snapshot-seal";

/// A stored snapshot's bytes, and its seal if one was stored with it.
pub type StoredBytes = (Vec<u8>, Option<Vec<u8>>);

/// A snapshot written by [`Store::prepare_snapshot`], for [`Store::commit_snapshot`].
pub struct PreparedSnapshot {
    seal: [u8; 32],
    content: Prepared,
}

enum Prepared {
    /// The bytes themselves, for a store that keeps them among its meta values.
    Bytes(Vec<u8>),
    /// The name of the file in the data directory's [`SNAPSHOTS_DIRECTORY`] that holds them.
    File(String),
}

/// A journal several controllers reach, one of them writing at a time: PostgreSQL, whose
/// session advisory lock is the writer's; or the seeded simulation's shared disk. What a hot
/// standby follows and takes over (`writer::standby`; docs/journal.md, "On PostgreSQL").
pub trait Shared: Send + Sync {
    /// Names it in messages: never a password.
    fn describe(&self) -> String;
    /// A reader of the journal the writer writes; it takes no lock and writes nothing.
    fn follower(&self) -> Result<Arc<dyn Store>, StoreError>;
    /// One who asks for the writer's lock (connecting at its first ask).
    fn candidate(&self) -> Box<dyn Candidate>;
}

/// Asks for the writer's lock of a [`Shared`] journal without waiting. The lock is lost with
/// the connection that holds it (a writer killed or cut off); a writer that goes on writing
/// after losing it is refused ([`StoreError::Fenced`]) or loses its connection, and stops.
pub trait Candidate: Send + Sync {
    /// The writer's store once the lock is ours; `None` while another controller holds it. An
    /// error leaves the candidate unconnected: the next ask connects again.
    fn try_take(&mut self) -> Result<Option<Arc<dyn Store>>, StoreError>;
}

/// The journal on sled: the tree `batches` holds each appended batch in runs of up to
/// [`RUN_BYTES`], each under its first entry's sequence as a big-endian u64 (sled's order
/// is the journal's), its entries one after another, each behind its length as a
/// big-endian u32, and the tip record; the tree
/// `meta` the named values (docs/journal.md).
pub(crate) struct SledStore {
    db: sled::Db,
    /// The data directory: its [`SNAPSHOTS_DIRECTORY`] is the store's.
    directory: PathBuf,
    /// The snapshot files `meta` named: as last committed, and as of the last flush that
    /// completed. Neither file is removed while they are (a commit is durable only with the
    /// flush after it).
    snapshot_files: std::sync::Mutex<SnapshotFiles>,
    batches: sled::Tree,
    meta: sled::Tree,
    /// The data directory's lock, held while the store lives; dropped after `db`.
    _lock: std::fs::File,
}

/// Whether a running controller holds `directory` now: it keeps [`LOCK_FILE`] locked for
/// as long as it runs. Only reads; a directory without the lock file is not held.
pub fn held(directory: &Path) -> bool {
    let Ok(lock) = std::fs::File::open(directory.join(LOCK_FILE)) else { return false };
    matches!(lock.try_lock_shared(), Err(std::fs::TryLockError::WouldBlock))
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
        if db.tree_names().iter().any(|name| name.as_ref() == ENTRIES_BEFORE.as_bytes())
            && !db.open_tree(ENTRIES_BEFORE)?.is_empty()
        {
            return Err(StoreError::EarlierFormat { directory: directory.to_path_buf() });
        }
        let batches = db.open_tree(BATCHES)?;
        let meta = db.open_tree("meta")?;
        let named = meta.get(SNAPSHOT_FILE_KEY)?.map(|name| String::from_utf8_lossy(&name).into_owned());
        let snapshot_files = std::sync::Mutex::new(SnapshotFiles { durable: named.clone(), named });
        Ok(Arc::new(SledStore { db, directory: directory.to_path_buf(), snapshot_files, batches, meta, _lock: lock }))
    }
}

impl SledStore {
    /// The run holding `sequence` (the last one starting at or before it): its first
    /// sequence and its value.
    fn run_of(&self, sequence: u64) -> Result<Option<(u64, sled::IVec)>, StoreError> {
        match self.batches.range(..=sequence.to_be_bytes()).next_back().transpose()? {
            None => Ok(None),
            Some((key, value)) => Ok(Some((sequence_of(&key)?, value))),
        }
    }
}

impl Store for SledStore {
    fn append(&self, entries: Vec<Stored>, tip: Vec<u8>) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            AppendsHere::write_batch(self, entries, tip)?;
            self.flushed().await
        })
    }

    fn appends_here(self: Arc<Self>) -> Option<Arc<dyn AppendsHere>> {
        Some(self)
    }

    fn put_tip(&self, tip: Vec<u8>) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            self.batches.insert(TIP_KEY, tip)?;
            self.flushed().await
        })
    }

    fn tip(&self) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.batches.get(TIP_KEY)?.map(|value| value.to_vec()))
    }

    fn entry(&self, sequence: u64) -> Result<Option<Vec<u8>>, StoreError> {
        let Some((first, value)) = self.run_of(sequence)? else { return Ok(None) };
        for item in decode_run(first, &value) {
            let (at, bytes) = item?;
            if at == sequence {
                return Ok(Some(bytes.to_vec()));
            }
        }
        Ok(None)
    }

    fn last(&self) -> Result<Option<Stored>, StoreError> {
        let Some((key, value)) = self.batches.range(..TIP_KEY).next_back().transpose()? else { return Ok(None) };
        let mut last = None;
        for item in decode_run(sequence_of(&key)?, &value) {
            let (sequence, bytes) = item?;
            last = Some((sequence, bytes));
        }
        Ok(last.map(|(sequence, bytes)| (sequence, bytes.to_vec())))
    }

    fn after(&self, after: u64) -> Box<dyn Iterator<Item = Result<Stored, StoreError>> + Send + '_> {
        let Some(next) = after.checked_add(1) else { return Box::new(std::iter::empty()) };
        // From the run holding the next entry (or the first run after it).
        let start = match self.run_of(next) {
            Ok(Some((first, _))) => first,
            Ok(None) => next,
            Err(error) => return Box::new(std::iter::once(Err(error))),
        };
        let start = start.to_be_bytes();
        Box::new(
            self.batches
                .range(&start[..]..TIP_KEY)
                .flat_map(|item| -> Vec<Result<Stored, StoreError>> {
                    let (key, value) = match item {
                        Ok(run) => run,
                        Err(error) => return vec![Err(error.into())],
                    };
                    let first = match sequence_of(&key) {
                        Ok(first) => first,
                        Err(error) => return vec![Err(error)],
                    };
                    // Every entry before a damaged place, then the error.
                    decode_run(first, &value).map(|item| item.map(|(sequence, bytes)| (sequence, bytes.to_vec()))).collect()
                })
                .filter(move |item| item.as_ref().map_or(true, |(sequence, _)| *sequence > after)),
        )
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
        Box::pin(self.flushed())
    }

    fn prepare_snapshot(&self, bytes: Vec<u8>, seal: [u8; 32]) -> Result<PreparedSnapshot, StoreError> {
        let directory = self.directory.join(SNAPSHOTS_DIRECTORY);
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |error| StoreError::Io { path, error }
        };
        if !directory.is_dir() {
            std::fs::create_dir_all(&directory).map_err(io(&directory))?;
            sync_directory(&self.directory)?;
        }
        let name = snapshot_file_name(&seal);
        let path = directory.join(&name);
        let partial = directory.join(format!("{name}.partial"));
        {
            use std::io::Write as _;
            let mut file = std::fs::File::create(&partial).map_err(io(&partial))?;
            // Synced a piece at a time: megabytes handed to the disk at once held the batches'
            // syncs behind them for as long (docs/benchmarks.md, issue 47 step 11).
            for piece in bytes.chunks(SNAPSHOT_PIECE_BYTES) {
                file.write_all(piece).map_err(io(&partial))?;
                file.sync_data().map_err(io(&partial))?;
            }
            file.sync_all().map_err(io(&partial))?;
        }
        std::fs::rename(&partial, &path).map_err(io(&path))?;
        sync_directory(&directory)?;
        Ok(PreparedSnapshot { seal, content: Prepared::File(name) })
    }

    fn commit_snapshot(&self, prepared: PreparedSnapshot) -> Result<(), StoreError> {
        let mut writes = sled::Batch::default();
        writes.insert(SNAPSHOT_SEAL_KEY.as_bytes(), &prepared.seal[..]);
        let kept = match prepared.content {
            Prepared::File(name) => {
                writes.insert(SNAPSHOT_FILE_KEY.as_bytes(), name.as_bytes());
                writes.remove(SNAPSHOT_KEY.as_bytes());
                Some(name)
            }
            Prepared::Bytes(bytes) => {
                writes.insert(SNAPSHOT_KEY.as_bytes(), bytes);
                writes.remove(SNAPSHOT_FILE_KEY.as_bytes());
                None
            }
        };
        // The lock is held from the write to the removals: a flush completing meanwhile reads
        // the name this commit wrote only once it is in `named`.
        let mut files = self.snapshot_files.lock().expect("the snapshot files");
        self.meta.apply_batch(writes)?;
        // The files of older snapshots go; kept are this one, the one named before it, and
        // the one named at the last flush: this commit is durable only with the next flush.
        // Nothing is being written meanwhile: one snapshot at a time (`writer::batch`).
        let before = std::mem::replace(&mut files.named, kept.clone());
        let keep = [kept, before, files.durable.clone()];
        let directory = self.directory.join(SNAPSHOTS_DIRECTORY);
        let Ok(entries) = std::fs::read_dir(&directory) else { return Ok(()) };
        for file in entries.flatten() {
            let name = file.file_name().to_string_lossy().into_owned();
            if !keep.iter().flatten().any(|kept| *kept == name)
                && let Err(error) = std::fs::remove_file(file.path())
            {
                tracing::warn!(file = %file.path().display(), %error, "an old snapshot's file could not be removed");
            }
        }
        Ok(())
    }

    fn snapshot(&self) -> Result<Option<StoredBytes>, StoreError> {
        let seal = self.meta.get(SNAPSHOT_SEAL_KEY)?.map(|seal| seal.to_vec());
        // A snapshot inside sled is newer than any file named: a commit removes it, and only a
        // release before files writes it (one run on this directory after this one).
        if let Some(bytes) = self.meta.get(SNAPSHOT_KEY)? {
            return Ok(Some((bytes.to_vec(), seal)));
        }
        let Some(name) = self.meta.get(SNAPSHOT_FILE_KEY)? else { return Ok(None) };
        let name = String::from_utf8_lossy(&name).into_owned();
        let directory = self.directory.join(SNAPSHOTS_DIRECTORY);
        let expected = seal.as_deref().and_then(|seal| <&[u8; 32]>::try_from(seal).ok()).map(snapshot_file_name);
        if expected.as_ref() != Some(&name) {
            return Err(StoreError::Io {
                path: directory.join(&name),
                error: std::io::Error::other("`meta` names a snapshot file that is not its seal's"),
            });
        }
        let path = directory.join(&name);
        let bytes = std::fs::read(&path).map_err(|error| StoreError::Io { path, error })?;
        Ok(Some((bytes, seal)))
    }
}

impl AppendsHere for SledStore {
    fn write_batch(&self, entries: Vec<Stored>, tip: Vec<u8>) -> Result<(), StoreError> {
        self.batches.apply_batch(runs::batch(&entries, TIP_KEY, tip))?;
        Ok(())
    }

    /// sled's flush on this thread: it writes the log's last buffer here too, where
    /// `flush_async` hands the flush to one of sled's threads and that thread the buffer's
    /// write to another (vendor/sled/PATCHED.md, third change).
    fn flush_here(&self) -> Result<(), StoreError> {
        let named = self.snapshot_files.lock().expect("the snapshot files").named.clone();
        self.db.flush()?;
        self.snapshot_files.lock().expect("the snapshot files").durable = named;
        Ok(())
    }
}

impl SledStore {
    /// Flushes, then records the snapshot file named when the flush began as durable.
    async fn flushed(&self) -> Result<(), StoreError> {
        let named = self.snapshot_files.lock().expect("the snapshot files").named.clone();
        self.db.flush_async().await?;
        self.snapshot_files.lock().expect("the snapshot files").durable = named;
        Ok(())
    }
}

/// Makes a directory's entries (a file created or renamed in it) durable.
fn sync_directory(directory: &Path) -> Result<(), StoreError> {
    std::fs::File::open(directory)
        .and_then(|handle| handle.sync_all())
        .map_err(|error| StoreError::Io { path: directory.to_path_buf(), error })
}

mod runs;
#[cfg(test)]
use runs::RUN_BYTES;
use runs::{decode_run, decode_run_owned, encode_run, sequence_of};

// Damage done on purpose, for the tests (`store/damage.rs`); not part of the controller.
#[doc(hidden)]
pub mod damage;

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

    /// The writer's path on sled: a batch written, then flushed on this thread. When
    /// `flush_here` returns, the batch's bytes are in sled's files on disk (sled's own buffer
    /// written by the flushing thread: vendor/sled/PATCHED.md), and read back after a reopen.
    #[test]
    fn a_batch_flushed_here_is_in_the_files_when_the_flush_returns() {
        let directory = tempfile::tempdir().expect("directory");
        let store = Arc::new(SledStore::open(directory.path()).expect("open"));
        let here = <SledStore as Store>::appends_here(Arc::clone(&store)).expect("sled's append is made here");
        let marker = b"flushed-here-7f3c9a".to_vec();
        here.write_batch(vec![(1, marker.clone())], b"tip-1".to_vec()).expect("write");
        here.flush_here().expect("flush");
        let in_files = |directory: &Path| {
            let mut pending = vec![directory.to_path_buf()];
            while let Some(path) = pending.pop() {
                if path.is_dir() {
                    pending.extend(std::fs::read_dir(&path).expect("list").map(|entry| entry.expect("entry").path()));
                } else if std::fs::read(&path).expect("read").windows(marker.len()).any(|window| window == marker.as_slice()) {
                    return true;
                }
            }
            false
        };
        assert!(in_files(directory.path()), "the batch is not in sled's files once flushed");
        drop((here, store));
        let store = SledStore::open(directory.path()).expect("reopen");
        assert_eq!(store.entry(1).expect("entry"), Some(marker));
        assert_eq!(store.tip().expect("tip"), Some(b"tip-1".to_vec()));
    }

    #[tokio::test]
    async fn a_batch_is_stored_in_runs_and_reads_start_inside_them() {
        let directory = tempfile::tempdir().expect("directory");
        let store = SledStore::open(directory.path()).expect("open");
        let batch = |from: u64, to: u64| (from..=to).map(|sequence| (sequence, format!("e{sequence}").into_bytes())).collect();
        store.append(batch(1, 3), b"tip-3".to_vec()).await.expect("append");
        store.append(batch(4, 7), b"tip-7".to_vec()).await.expect("append");
        assert_eq!(store.batches.len(), 3, "two batches and the tip record");
        let sequences = |after| store.after(after).map(|item| item.expect("read").0).collect::<Vec<_>>();
        assert_eq!(sequences(0), vec![1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(sequences(2), vec![3, 4, 5, 6, 7], "from the middle of the first batch");
        assert_eq!(sequences(5), vec![6, 7], "from the middle of the second");
        assert_eq!(sequences(7), Vec::<u64>::new());
        assert_eq!(store.entry(5).expect("entry"), Some(b"e5".to_vec()));
        assert_eq!(store.entry(8).expect("entry"), None);
        assert_eq!(store.last().expect("last"), Some((7, b"e7".to_vec())));

        // A batch bigger than a run is stored as several runs, read back as one sequence.
        let long: Vec<Stored> = (8..=407).map(|sequence| (sequence, vec![sequence as u8; 100])).collect();
        store.append(long.clone(), b"tip-407".to_vec()).await.expect("append");
        let runs = store.batches.len() - 3;
        assert_eq!(runs, 400usize.div_ceil(RUN_BYTES / 104), "as many entries of 104 bytes as fit in RUN_BYTES per run");
        assert_eq!(store.after(7).collect::<Result<Vec<_>, _>>().expect("read"), long);
        assert_eq!(sequences(300).len(), 107);
        assert_eq!(store.entry(300).expect("entry"), Some(vec![300u64 as u8; 100]));
        assert_eq!(store.last().expect("last").map(|(sequence, _)| sequence), Some(407));

        // A batch whose lengths do not add up is an error naming it, never a short journal.
        let mut damaged = store.batches.get(4u64.to_be_bytes()).expect("read").expect("the batch").to_vec();
        damaged.truncate(damaged.len() - 1);
        store.batches.insert(4u64.to_be_bytes(), damaged).expect("write");
        let error = store.after(0).find_map(Result::err).expect("the damage is reported");
        assert!(matches!(error, StoreError::Run { first: 4, .. }), "{error}");
        assert!(store.entry(7).is_err());
    }

    #[tokio::test]
    async fn a_snapshot_is_a_file_of_its_own_named_by_a_small_write_and_the_older_files_go() {
        let directory = tempfile::tempdir().expect("directory");
        let files = || {
            let mut names: Vec<String> = std::fs::read_dir(directory.path().join(SNAPSHOTS_DIRECTORY))
                .map(|entries| entries.map(|entry| entry.expect("entry").file_name().to_string_lossy().into_owned()).collect())
                .unwrap_or_default();
            names.sort();
            names
        };
        let name = |seal: u8| format!("{}.json", hex::encode([seal; 32]));
        {
            let store = SledStore::open(directory.path()).expect("open");
            // A snapshot stored as an earlier release stored it, inside sled: still read.
            store.put_meta(vec![(SNAPSHOT_KEY, b"inline".to_vec()), (SNAPSHOT_SEAL_KEY, vec![1; 32])]).expect("meta");
            assert_eq!(store.snapshot().expect("read"), Some((b"inline".to_vec(), Some(vec![1; 32]))));

            // Written, not yet stored: the stored one is still the earlier.
            let prepared = store.prepare_snapshot(b"second".to_vec(), [2; 32]).expect("written");
            assert_eq!(files(), vec![name(2)]);
            assert_eq!(store.snapshot().expect("read"), Some((b"inline".to_vec(), Some(vec![1; 32]))));
            store.commit_snapshot(prepared).expect("stored");
            assert_eq!(store.snapshot().expect("read"), Some((b"second".to_vec(), Some(vec![2; 32]))));
            assert_eq!(store.meta(SNAPSHOT_KEY).expect("meta"), None, "the copy inside sled is gone");

            // A write cut short by a crash is left over; the next commit takes it away with every
            // file but its own and the one stored before it.
            std::fs::write(directory.path().join(SNAPSHOTS_DIRECTORY).join("cut.json.partial"), b"half").expect("write");
            let third = store.prepare_snapshot(b"third".to_vec(), [3; 32]).expect("written");
            store.commit_snapshot(third).expect("stored");
            assert_eq!(files(), vec![name(2), name(3)]);
            let fourth = store.prepare_snapshot(b"fourth".to_vec(), [4; 32]).expect("written");
            store.commit_snapshot(fourth).expect("stored");
            assert_eq!(files(), vec![name(3), name(4)]);
            store.flush().await.expect("flush");

            // Two commits before the next flush: the file named at the last flush stays, as
            // it is the one a crash now would find named.
            for seal in [5, 6] {
                let prepared = store.prepare_snapshot(vec![b's', seal], [seal; 32]).expect("written");
                store.commit_snapshot(prepared).expect("stored");
            }
            assert_eq!(files(), vec![name(4), name(5), name(6)]);
            store.flush().await.expect("flush");
        }
        // After a restart the file named is read, with its seal.
        let store = SledStore::open(directory.path()).expect("reopen");
        assert_eq!(store.snapshot().expect("read"), Some((vec![b's', 6], Some(vec![6; 32]))));
        // A file gone is an error naming it, never another snapshot.
        std::fs::remove_file(directory.path().join(SNAPSHOTS_DIRECTORY).join(name(6))).expect("remove");
        let error = store.snapshot().expect_err("refused");
        assert!(error.to_string().contains(&name(6)), "{error}");
        // A seal that is not the named file's is refused, not paired with it.
        store.put_meta(vec![(SNAPSHOT_SEAL_KEY, vec![5; 32])]).expect("meta");
        let error = store.snapshot().expect_err("refused");
        assert!(error.to_string().contains("not its seal's"), "{error}");
        // A release before snapshot files, run on this directory, writes the snapshot inside
        // sled again: that one is the newer, and is read.
        store.put_meta(vec![(SNAPSHOT_KEY, b"older release".to_vec()), (SNAPSHOT_SEAL_KEY, vec![7; 32])]).expect("meta");
        assert_eq!(store.snapshot().expect("read"), Some((b"older release".to_vec(), Some(vec![7; 32]))));
    }

    #[test]
    fn a_directory_of_the_earlier_one_key_per_entry_format_is_refused() {
        let directory = tempfile::tempdir().expect("directory");
        {
            let db = sled::open(directory.path()).expect("sled");
            db.open_tree(ENTRIES_BEFORE).expect("tree").insert(1u64.to_be_bytes(), b"an entry".to_vec()).expect("write");
            db.flush().expect("flush");
        }
        let error = SledStore::open(directory.path()).err().expect("refused");
        assert!(matches!(error, StoreError::EarlierFormat { .. }), "{error}");
        assert!(error.to_string().contains("one sled key per entry"), "{error}");
    }
}
