//! The simulated disk: the journal's store behind the controller's own `Store` trait, and
//! what a crash leaves of it.
//!
//! What the trait promises is what a real store keeps: an append (entries and the tip record,
//! atomically) is durable when its future completes; a meta value (the identity, a snapshot
//! and its seal) only with the next append, tip or flush. The disk keeps two images: what
//! was *written* (what reads see) and what was *synced* (what survives the machine losing its
//! power). A process killed keeps what was written and loses the meta values not yet made
//! durable; the machine losing power keeps only what was synced, and with it the appends the
//! disk lied about (said synced, were not). An append in flight at the crash is lost or lands
//! whole (sled's batch and PostgreSQL's transaction are atomic: a torn batch is not a fault a
//! real store produces), a meta value being written may be left torn, and a read during a
//! recovery may return a damaged byte. Every choice comes from the seed's generator.
//!
//! The same disk may instead be a database several controllers reach ([`Disk::shared`]: a
//! writer and its hot standby, as on PostgreSQL): each controller's connections are sessions,
//! the writer's lock is one session's, and an append is durable when it returns. A controller
//! killed loses its sessions and the lock with them; a writer cut off from the database loses
//! its session and its lock (the append it had in flight committed or not), and the standby
//! takes the lock over. An append at an entry already committed is refused
//! ([`StoreError::Fenced`]), as PostgreSQL's primary key refuses it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_util::future::BoxFuture;
use pozo_server::journal::store::{Candidate, Shared, Store, StoreError};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// How often each disk fault is drawn: per append, per crash, per recovery read.
#[derive(Clone, Copy, Debug)]
pub struct DiskFaults {
    /// An append that fails (the writer stops: fail-stop).
    pub flush_fails: f64,
    /// An append that begins a spell of up to 30 the disk says it synced and did not (a write
    /// cache that ignores flushes): lost if the power goes before a sync it honours.
    pub lies: f64,
    /// At a crash, the append in flight lands whole (else it is lost).
    pub in_flight_lands: f64,
    /// At a crash, a meta value being made durable is left torn (else it is lost).
    pub meta_torn: f64,
    /// At a crash, the snapshot is lost (the next start replays from the first entry).
    pub snapshot_lost: f64,
    /// During one recovery, a read returns a damaged byte.
    pub read_damaged: f64,
}

impl DiskFaults {
    pub const NONE: DiskFaults =
        DiskFaults { flush_fails: 0.0, lies: 0.0, in_flight_lands: 0.0, meta_torn: 0.0, snapshot_lost: 0.0, read_damaged: 0.0 };

    pub const DEFAULT: DiskFaults = DiskFaults {
        flush_fails: 0.002,
        lies: 0.05,
        in_flight_lands: 0.5,
        // A torn snapshot needs a crash while one is unsynced, which few seeds meet: when they do,
        // it is torn nine times in ten, so that 40 seeds meet it whatever the journal's sizes.
        meta_torn: 0.9,
        snapshot_lost: 0.1,
        read_damaged: 0.05,
    };

    /// A database's: a commit is durable when it returns and atomic with the meta values
    /// (no lies, nothing torn or lost); a commit may still fail, and one in flight when its
    /// session is cut off lands or not.
    pub const DATABASE: DiskFaults =
        DiskFaults { flush_fails: 0.002, lies: 0.0, in_flight_lands: 0.5, meta_torn: 0.0, snapshot_lost: 0.0, read_damaged: 0.0 };
}

/// How many of each disk fault a run injected.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct DiskCounts {
    pub appends: u64,
    pub flush_failed: u64,
    pub lied: u64,
    pub in_flight_landed: u64,
    pub in_flight_lost: u64,
    pub meta_torn: u64,
    pub meta_lost: u64,
    pub snapshot_lost: u64,
    pub read_damaged: u64,
    pub lost_to_power: u64,
    /// Writers cut off from the shared database (their lock lost).
    pub locks_lost: u64,
    /// Appends refused because another writer had committed the entry.
    pub fenced: u64,
}

/// One image of the disk: entries by sequence (from 1, in order), the tip record, the meta values.
#[derive(Clone, Debug, Default)]
pub struct Image {
    pub entries: Vec<Vec<u8>>,
    pub tip: Option<Vec<u8>>,
    pub meta: BTreeMap<String, Vec<u8>>,
}

/// How a run of the controller ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Crash {
    /// The process killed (kill -9, or its own fail-stop): what was written stays.
    Process,
    /// The machine lost its power: only what was synced stays.
    Power,
}

/// An append's entries and tip record.
type Append = (Vec<(u64, Vec<u8>)>, Vec<u8>);

struct State {
    written: Image,
    synced: Image,
    /// Meta values written since the last append, tip or flush.
    unsynced_meta: BTreeMap<String, Vec<u8>>,
    /// The append under way: its entries and tip.
    in_flight: Option<Append>,
    /// What the last power loss took, given back when the operator restores it.
    lost: Option<Image>,
    /// A read of this recovery returns a damaged byte at this entry.
    damaged_read: Option<u64>,
    /// An append failed since the controller last served.
    flush_failed: bool,
    /// Appends the disk goes on lying about.
    lying_for: u32,
    faults: DiskFaults,
    rng: ChaCha8Rng,
    counts: DiskCounts,
    /// The shared database's sessions: each one's controller (a process, by its number).
    sessions: BTreeMap<u64, u64>,
    /// The session holding the writer's lock.
    lock: Option<u64>,
    /// Processes gone (killed): every session of theirs fails.
    gone: BTreeSet<u64>,
    /// Sessions cut off by the database.
    cut: BTreeSet<u64>,
}

impl State {
    /// A session's calls fail once its process is gone or the database cut it off.
    fn alive(&self, session: Option<u64>) -> Result<(), StoreError> {
        let Some(session) = session else { return Ok(()) };
        let owner = self.sessions.get(&session).copied().unwrap_or(u64::MAX);
        if self.cut.contains(&session) || self.gone.contains(&owner) {
            return Err(injected("the connection to the database was lost"));
        }
        Ok(())
    }

    /// The writer's session ended: the append it had in flight (only the writer appends)
    /// committed or not, now, before another writer can take the lock.
    fn settle_in_flight(&mut self) -> Option<String> {
        // Its meta values not yet committed go with its session.
        self.unsynced_meta.clear();
        let (entries, tip) = self.in_flight.take()?;
        if self.rng.random_bool(self.faults.in_flight_lands) {
            self.counts.in_flight_landed += 1;
            apply(&mut self.written, &entries, tip, BTreeMap::new());
            self.synced = self.written.clone();
            Some(format!("the append of entries {:?} in flight committed", span(&entries)))
        } else {
            self.counts.in_flight_lost += 1;
            Some(format!("the append of entries {:?} in flight did not commit", span(&entries)))
        }
    }

    fn open_session(&mut self, owner: u64) -> Result<u64, StoreError> {
        if self.gone.contains(&owner) {
            return Err(injected("a controller that is gone connects to nothing"));
        }
        let session = self.sessions.len() as u64 + 1;
        self.sessions.insert(session, owner);
        Ok(session)
    }
}

/// The disk, shared by every run of the controller of one seed.
#[derive(Clone)]
pub struct Disk(Arc<Mutex<State>>);

impl Disk {
    pub fn new(faults: DiskFaults, rng: ChaCha8Rng) -> Disk {
        Disk(Arc::new(Mutex::new(State {
            written: Image::default(),
            synced: Image::default(),
            unsynced_meta: BTreeMap::new(),
            in_flight: None,
            lost: None,
            damaged_read: None,
            flush_failed: false,
            lying_for: 0,
            faults,
            rng,
            counts: DiskCounts::default(),
            sessions: BTreeMap::new(),
            lock: None,
            gone: BTreeSet::new(),
            cut: BTreeSet::new(),
        })))
    }

    /// The disk as a database that controller `owner` (a process: a number never used again)
    /// reaches, for a writer and its standby.
    pub fn shared(&self, owner: u64) -> Arc<dyn Shared> {
        Arc::new(SimShared { disk: self.clone(), owner })
    }

    /// The controller holding the writer's lock, if one does.
    pub fn writer(&self) -> Option<u64> {
        let state = self.state();
        state.lock.and_then(|session| state.sessions.get(&session).copied())
    }

    /// Controller `owner` is gone (killed, or stopped by itself): its sessions fail, and the
    /// writer's lock, if it held it, is free.
    pub fn process_gone(&self, owner: u64) -> Option<String> {
        let mut state = self.state();
        state.gone.insert(owner);
        if state.lock.is_some_and(|session| state.sessions.get(&session) == Some(&owner)) {
            state.lock = None;
            return state.settle_in_flight();
        }
        None
    }

    /// The database cuts the writer's session off (a network fault between them, or an
    /// administrator ending it): the lock is free; the writer's next call fails. Returns the
    /// controller that held it.
    pub fn cut_writer(&self) -> Option<(u64, Option<String>)> {
        let mut state = self.state();
        let session = state.lock.take()?;
        state.cut.insert(session);
        state.counts.locks_lost += 1;
        let owner = state.sessions.get(&session).copied()?;
        Some((owner, state.settle_in_flight()))
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.0.lock().expect("the disk's lock is never poisoned")
    }

    /// The store a run of the controller opens.
    pub fn store(&self) -> Arc<dyn Store> {
        Arc::new(SimStore(self.clone(), None))
    }

    /// What reads see now.
    pub fn written(&self) -> Image {
        self.state().written.clone()
    }

    /// How many entries the disk holds (as reads see them).
    pub fn entries(&self) -> u64 {
        self.state().written.entries.len() as u64
    }

    pub fn counts(&self) -> DiskCounts {
        self.state().counts
    }

    /// The crash: what the disk keeps of a run that ended abruptly. Returns what it did.
    pub fn crash(&self, crash: Crash) -> Vec<String> {
        let mut state = self.state();
        let state = &mut *state;
        let mut done = Vec::new();
        // Every controller is gone: their sessions, and the writer's lock with them.
        state.lock = None;
        let owners: Vec<u64> = state.sessions.values().copied().collect();
        state.gone.extend(owners);
        if let Some((entries, tip)) = state.in_flight.take() {
            if state.rng.random_bool(state.faults.in_flight_lands) {
                state.counts.in_flight_landed += 1;
                done.push(format!("the append of entries {:?} in flight landed whole", span(&entries)));
                // Its sync reached the disk: with everything written before it.
                apply(&mut state.written, &entries, tip, std::mem::take(&mut state.unsynced_meta));
                state.synced = state.written.clone();
            } else {
                state.counts.in_flight_lost += 1;
                done.push(format!("the append of entries {:?} in flight was lost", span(&entries)));
            }
        }
        // Meta values not made durable: lost, or one of them torn.
        let unsynced = std::mem::take(&mut state.unsynced_meta);
        let mut kept_meta = state.synced.meta.clone();
        if crash == Crash::Process {
            // The process's own buffers go; what reached the disk stays.
            kept_meta = state.written.meta.clone();
            for key in unsynced.keys() {
                match state.synced.meta.get(key) {
                    Some(value) => kept_meta.insert(key.clone(), value.clone()),
                    None => kept_meta.remove(key),
                };
            }
        }
        for (key, value) in unsynced {
            // Only a snapshot and its seal are written after a journal begins (the identity goes
            // with the genesis entry): they are what a crash can leave torn.
            if key.starts_with(SNAPSHOT) && state.rng.random_bool(state.faults.meta_torn) && value.len() > 1 {
                let cut = state.rng.random_range(1..value.len());
                kept_meta.insert(key.clone(), value[..cut].to_vec());
                state.counts.meta_torn += 1;
                done.push(format!("meta `{key}` left torn at {cut} of {} bytes", value.len()));
            } else {
                state.counts.meta_lost += 1;
                done.push(format!("meta `{key}` not made durable: lost"));
            }
        }
        match crash {
            Crash::Process => {
                state.written.meta = kept_meta;
                state.synced = state.written.clone();
            }
            Crash::Power => {
                let lost = state.written.entries.len() - state.synced.entries.len();
                if lost > 0 {
                    state.counts.lost_to_power += lost as u64;
                    done.push(format!(
                        "the power took entries {}..={} (the disk had said they were synced)",
                        state.synced.entries.len() + 1,
                        state.written.entries.len()
                    ));
                    state.lost = Some(state.written.clone());
                }
                state.synced.meta = kept_meta;
                state.written = state.synced.clone();
            }
        }
        if state.rng.random_bool(state.faults.snapshot_lost) && state.written.meta.contains_key(SNAPSHOT) {
            state.counts.snapshot_lost += 1;
            done.push("the snapshot was lost".into());
            for image in [&mut state.written, &mut state.synced] {
                image.meta.remove(SNAPSHOT);
                image.meta.remove(SNAPSHOT_SEAL);
            }
        }
        // The next recovery may read a damaged byte.
        state.damaged_read = None;
        if !state.written.entries.is_empty() && state.rng.random_bool(state.faults.read_damaged) {
            let at = state.rng.random_range(1..=state.written.entries.len() as u64);
            state.damaged_read = Some(at);
            state.counts.read_damaged += 1;
            done.push(format!("the next start reads entry {at} damaged"));
        }
        done
    }

    /// Whether a power loss took entries since the last start that served: entries the mark
    /// may cover (answered, or about to be) that are gone.
    pub fn power_took_entries(&self) -> bool {
        self.state().lost.is_some()
    }

    /// Whether the next recovery reads a damaged byte.
    pub fn damaged_read(&self) -> Option<u64> {
        self.state().damaged_read
    }

    /// A start served: the damaged byte was a fault of that read alone, and what a power loss
    /// took is no backup to restore any more (the controller writes on from what is left).
    pub fn served(&self) {
        let mut state = self.state();
        state.damaged_read = None;
        state.lost = None;
        state.flush_failed = false;
    }

    /// Whether an append failed since the controller last served (a start that fails to
    /// write its first entries stops with a storage failure, exit 6).
    pub fn flush_failed(&self) -> bool {
        self.state().flush_failed
    }

    /// The process ended without a crash's faults (a start refused): its own buffers gone.
    pub fn process_exit(&self) {
        let mut state = self.state();
        state.unsynced_meta.clear();
        state.in_flight = None;
    }

    /// The operator's repair after a refusal: the damaged read gone (a new disk), and the
    /// entries a power loss took given back (the backup restored). Returns what was mended.
    pub fn repair(&self) -> Vec<String> {
        let mut state = self.state();
        let mut done = Vec::new();
        if state.damaged_read.take().is_some() {
            done.push("the damaged read mended".to_owned());
        }
        if let Some(lost) = state.lost.take()
            && lost.entries.len() > state.written.entries.len()
        {
            done.push(format!("entries {}..={} restored", state.written.entries.len() + 1, lost.entries.len()));
            state.written = lost.clone();
            state.synced = lost;
        }
        done
    }
}

/// The meta key the controller stores its snapshot under (`pozo_server::journal`).
pub const SNAPSHOT: &str = "snapshot";
const SNAPSHOT_SEAL: &str = "snapshot-seal";

fn span(entries: &[(u64, Vec<u8>)]) -> std::ops::RangeInclusive<u64> {
    entries.first().map(|entry| entry.0).unwrap_or(0)..=entries.last().map(|entry| entry.0).unwrap_or(0)
}

fn apply(image: &mut Image, entries: &[(u64, Vec<u8>)], tip: Vec<u8>, meta: BTreeMap<String, Vec<u8>>) {
    for (sequence, bytes) in entries {
        let index = (*sequence - 1) as usize;
        assert_eq!(index, image.entries.len(), "appends follow each other");
        image.entries.push(bytes.clone());
    }
    image.tip = Some(tip);
    image.meta.extend(meta);
}

fn injected(what: &str) -> StoreError {
    StoreError::Io { path: "simulated-disk".into(), error: std::io::Error::other(format!("injected fault: {what}")) }
}

/// How long a sync takes on the simulated disk.
const SYNC: std::ops::Range<u64> = 200..2_000;

/// The store; with a session of the shared database, or the one controller's own (`None`).
struct SimStore(Disk, Option<u64>);

impl SimStore {
    /// A read of entry `sequence`, damaged if this recovery's fault says so.
    fn read(state: &State, sequence: u64) -> Option<Vec<u8>> {
        let mut bytes = state.written.entries.get(sequence.checked_sub(1)? as usize)?.clone();
        if state.damaged_read == Some(sequence) && !bytes.is_empty() {
            let at = bytes.len() / 2;
            bytes[at] ^= 0x20;
        }
        Some(bytes)
    }

    async fn sync(&self) {
        let micros = self.0.state().rng.random_range(SYNC);
        tokio::time::sleep(Duration::from_micros(micros)).await;
    }
}

impl Store for SimStore {
    fn append(&self, entries: Vec<(u64, Vec<u8>)>, tip: Vec<u8>) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            {
                let mut state = self.0.state();
                state.alive(self.1)?;
                // The primary key: an entry another writer committed is never written twice.
                let next = state.written.entries.len() as u64 + 1;
                if let Some(&(first, _)) = entries.first()
                    && first != next
                {
                    state.counts.fenced += 1;
                    return Err(StoreError::Fenced { first, database: "the simulated database".into() });
                }
                state.counts.appends += 1;
                let fails = state.faults.flush_fails;
                if state.rng.random_bool(fails) {
                    state.counts.flush_failed += 1;
                    state.flush_failed = true;
                    return Err(injected("the journal's flush failed"));
                }
                state.in_flight = Some((entries.clone(), tip.clone()));
            }
            // Dropped here by a crash, the append stays in flight: `Disk::crash` decides.
            self.sync().await;
            let mut state = self.0.state();
            let state = &mut *state;
            // Cut off while it committed: `Disk::cut_writer` settled whether it landed; the
            // writer hears neither.
            state.alive(self.1)?;
            state.in_flight = None;
            let meta = std::mem::take(&mut state.unsynced_meta);
            apply(&mut state.written, &entries, tip.clone(), meta);
            let lies = state.faults.lies;
            if state.lying_for == 0 && state.rng.random_bool(lies) {
                state.lying_for = state.rng.random_range(1..=30);
            }
            if state.lying_for > 0 {
                state.lying_for -= 1;
                state.counts.lied += 1;
            } else {
                state.synced = state.written.clone();
            }
            Ok(())
        })
    }

    fn put_tip(&self, tip: Vec<u8>) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            self.0.state().alive(self.1)?;
            self.sync().await;
            let mut state = self.0.state();
            let state = &mut *state;
            state.alive(self.1)?;
            state.written.tip = Some(tip);
            let meta = std::mem::take(&mut state.unsynced_meta);
            state.written.meta.extend(meta);
            state.synced = state.written.clone();
            Ok(())
        })
    }

    fn tip(&self) -> Result<Option<Vec<u8>>, StoreError> {
        let state = self.0.state();
        state.alive(self.1)?;
        Ok(state.written.tip.clone())
    }

    fn entry(&self, sequence: u64) -> Result<Option<Vec<u8>>, StoreError> {
        let state = self.0.state();
        state.alive(self.1)?;
        Ok(SimStore::read(&state, sequence))
    }

    fn last(&self) -> Result<Option<(u64, Vec<u8>)>, StoreError> {
        let state = self.0.state();
        state.alive(self.1)?;
        let count = state.written.entries.len() as u64;
        Ok(SimStore::read(&state, count).map(|bytes| (count, bytes)))
    }

    fn after(&self, after: u64) -> Box<dyn Iterator<Item = Result<(u64, Vec<u8>), StoreError>> + Send + '_> {
        let state = self.0.state();
        if let Err(lost) = state.alive(self.1) {
            return Box::new(std::iter::once(Err(lost)));
        }
        let count = state.written.entries.len() as u64;
        let read: Vec<_> = (after.saturating_add(1)..=count)
            .filter_map(|sequence| SimStore::read(&state, sequence).map(|bytes| Ok((sequence, bytes))))
            .collect();
        Box::new(read.into_iter())
    }

    fn meta(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let state = self.0.state();
        state.alive(self.1)?;
        // The values pending are the writer's own: another session reads what was committed.
        if self.1.is_some() && state.lock != self.1 {
            return Ok(state.written.meta.get(key).cloned());
        }
        Ok(state.unsynced_meta.get(key).or_else(|| state.written.meta.get(key)).cloned())
    }

    fn put_meta(&self, values: Vec<(&'static str, Vec<u8>)>) -> Result<(), StoreError> {
        let mut state = self.0.state();
        state.alive(self.1)?;
        // Pending until the next append, tip or flush commits them (a database's transaction
        // too: `PgStore` keeps them for its next statement).
        for (key, value) in values {
            state.unsynced_meta.insert(key.to_owned(), value);
        }
        Ok(())
    }

    fn lock_can_be_lost(&self) -> bool {
        self.1.is_some()
    }

    fn confirm_writer(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            self.sync().await;
            let state = self.0.state();
            state.alive(self.1)?;
            if self.1.is_some() && state.lock != self.1 {
                return Err(StoreError::WriterElsewhere { database: "the simulated database".into() });
            }
            Ok(())
        })
    }

    fn flush(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            self.0.state().alive(self.1)?;
            self.sync().await;
            let mut state = self.0.state();
            let state = &mut *state;
            state.alive(self.1)?;
            let meta = std::mem::take(&mut state.unsynced_meta);
            state.written.meta.extend(meta);
            state.synced = state.written.clone();
            Ok(())
        })
    }
}

/// The disk as the database one controller reaches.
struct SimShared {
    disk: Disk,
    owner: u64,
}

impl Shared for SimShared {
    fn describe(&self) -> String {
        "the simulated database".to_owned()
    }

    fn follower(&self) -> Result<Arc<dyn Store>, StoreError> {
        let session = self.disk.state().open_session(self.owner)?;
        Ok(Arc::new(SimStore(self.disk.clone(), Some(session))))
    }

    fn candidate(&self) -> Box<dyn Candidate> {
        Box::new(SimCandidate { disk: self.disk.clone(), owner: self.owner, session: None })
    }
}

/// A session that asks for the writer's lock (`pg_try_advisory_lock`).
struct SimCandidate {
    disk: Disk,
    owner: u64,
    session: Option<u64>,
}

impl Candidate for SimCandidate {
    fn try_take(&mut self) -> Result<Option<Arc<dyn Store>>, StoreError> {
        let mut state = self.disk.state();
        if let Err(lost) = state.alive(self.session) {
            self.session = None;
            return Err(lost);
        }
        let session = match self.session {
            Some(session) => session,
            None => state.open_session(self.owner)?,
        };
        if state.lock.is_some() {
            self.session = Some(session);
            return Ok(None);
        }
        state.lock = Some(session);
        self.session = None;
        Ok(Some(Arc::new(SimStore(self.disk.clone(), Some(session)))))
    }
}
