//! The one writer: a single task owns the state, takes commands in batches,
//! applies each, appends the batch to the journal, flushes once (group commit),
//! and only then answers every caller of the batch and publishes what changed.
//! The flush runs on a task of its own: while batch N is being made durable, the
//! requests that arrive are applied and wait as batch N+1, sealed the moment N is
//! durable, so applying and flushing overlap and answers still go out in order.
//!
//! Readers never queue here: after each durable batch the writer swaps in a new
//! [`ReadModel`] (and pushes the table views and the displays) before it answers, so no
//! reader ever sees a bet that is not yet on disk: a light turns on only for a durable
//! bet (11.11.5; docs/agent.md).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use pozo_engine::{Money, PoolId, TableId};
use tokio::sync::{mpsc, oneshot, watch};
use tracing::{debug, info};

use crate::clock::Clock;
use crate::config::Config;
use crate::exit::{JournalRefused, StorageFailed};
use crate::journal::Sealer;
use crate::journal::mark::Mark;
use crate::journal::recovery::{
    NoMarkHere, RecoveryError, apply_entry, check_acknowledged, check_tip, check_tip_record, genesis_config, recover_until,
};
use crate::journal::{Identity, Journal, JournalError, JournalTip, Record, StoredSnapshot};
use crate::metrics::Metrics;
use crate::read::ReadModel;
use pozo_core::state::{Applied, Command, Context, GoldTurn, Hit, LastWin, OrderStatus, Refusal, State, TableView};

/// Requests waiting for the writer; senders wait when it is full (backpressure).
pub const QUEUE_CAPACITY: usize = 8192;

/// The most requests applied and flushed together.
pub const BATCH_MAX: usize = 1024;

/// A snapshot every this many entries by default, so a restart replays at most that many.
pub const SNAPSHOT_EVERY: u64 = 10_000;

/// A command waiting for the writer, with where its answer goes.
struct Request {
    command: Command,
    reply: oneshot::Sender<Result<Applied, Refusal>>,
}

/// What a table's panels are pushed.
#[derive(Clone, Debug, PartialEq)]
pub struct TablePush {
    pub journal_sequence: u64,
    pub view: TableView,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PoolDisplay {
    pub pool_id: PoolId,
    pub displayed: Money,
    pub minimum: Money,
    /// The share of each bet the pool grows by (3.2.1; AJ 2.5.4.1: "su incremento").
    pub increment_rate: rust_decimal::Decimal,
    pub last_win: Option<LastWin>,
    /// The prizes of this pool waiting for Venta-Pagos (3.5.2, 11.6.1.2, 15.8.2): the
    /// sign shows PENDIENTE DE PAGO while there is one. Oldest first.
    pub pending: Arc<[PrizeView]>,
    /// The last [`SIGN_HITS`] hits, newest first, each with how its payment stands.
    /// (Shared: a batch that changes no prize passes them on without a copy.)
    pub hits: Arc<[PrizeView]>,
}

/// The hits a sign shows per pool.
pub const SIGN_HITS: usize = 5;

/// How a hit's payment stands, for the signs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrizeStatus {
    /// Paid at the table by the dealer (no payout order).
    Paid,
    /// Waiting for Venta-Pagos.
    Pending,
    /// Venta-Pagos confirmed it.
    Confirmed,
    /// Venta-Pagos rejected it: the award was undone (docs/readings.md).
    Rejected,
}

impl PrizeStatus {
    /// As the sign and the office say it.
    pub fn spanish(self) -> &'static str {
        match self {
            PrizeStatus::Paid => "pagado",
            PrizeStatus::Pending => "pendiente",
            PrizeStatus::Confirmed => "confirmado",
            PrizeStatus::Rejected => "rechazado",
        }
    }
}

/// One prize as the signs show it: the hit, and how its payment stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrizeView {
    pub hit: Hit,
    pub status: PrizeStatus,
}

/// What every cartel luminoso is pushed.
#[derive(Clone, Debug, PartialEq)]
pub struct DisplayPush {
    pub journal_sequence: u64,
    pub pools: Vec<PoolDisplay>,
    /// When the batch that made this push became durable (microseconds since the Unix
    /// epoch, this machine's clock): what the display latency is measured from.
    pub durable_unix_us: u64,
}

/// Why a request got no answer from the writer.
#[derive(Debug, thiserror::Error)]
pub enum WriterError {
    #[error("the controller is stopping")]
    Stopped,
    /// A hot standby (docs/journal.md, "On PostgreSQL"): commands go to the writer.
    #[error(
        "this controller is the standby: another controller is the journal's writer and takes the commands; \
         send them there (docs/operations.md §16)"
    )]
    Standby,
}

/// How the rest of the server talks to the writer.
#[derive(Clone)]
pub struct Handle {
    requests: mpsc::Sender<Request>,
    tables: Arc<BTreeMap<TableId, watch::Receiver<TablePush>>>,
    display: watch::Receiver<DisplayPush>,
    config: Arc<Config>,
    /// The journal to read from: the standby's reading connection, then the writer's.
    journal: watch::Receiver<Journal>,
    identity: Arc<Identity>,
    journal_id: Arc<str>,
    model: watch::Receiver<Arc<ReadModel>>,
    role: watch::Receiver<Role>,
    clock: Arc<dyn Clock>,
    metrics: Arc<Metrics>,
}

impl Handle {
    /// The writer takes commands: false once it has stopped.
    pub fn is_serving(&self) -> bool {
        !self.requests.is_closed()
    }

    /// What `/metrics` shows (crate::metrics).
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// The entries durable and acknowledged so far.
    pub fn durable_entries(&self) -> u64 {
        self.model.borrow().tip.entries
    }

    /// Now, by the controller's clock (crate::clock): the writer's time.
    pub fn now_ms(&self) -> u64 {
        self.clock.now_ms()
    }

    /// The state as of the last durable batch (crate::read): never waits for the writer.
    pub fn read(&self) -> Arc<ReadModel> {
        Arc::clone(&self.model.borrow())
    }

    /// The journal's identity (docs/security.md).
    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// What every envelope must be signed for: `<installation>-<epoch>`.
    pub fn journal_id(&self) -> &str {
        &self.journal_id
    }

    /// The writer, or a hot standby following the writer's journal.
    pub fn role(&self) -> Role {
        *self.role.borrow()
    }

    /// Changes of [`Handle::role`]: a standby becomes the writer once, when it takes over.
    pub fn role_changes(&self) -> watch::Receiver<Role> {
        self.role.clone()
    }

    /// Applies a command; answered once it is durable. A standby refuses it at once.
    pub async fn submit(&self, command: Command) -> Result<Result<Applied, Refusal>, WriterError> {
        if self.role() == Role::Standby {
            return Err(WriterError::Standby);
        }
        let started = std::time::Instant::now();
        let (reply, answer) = oneshot::channel();
        self.requests.send(Request { command, reply }).await.map_err(|_| WriterError::Stopped)?;
        let answer = answer.await.map_err(|_| WriterError::Stopped)?;
        self.metrics.answered(started.elapsed());
        Ok(answer)
    }

    pub fn table(&self, id: &str) -> Option<watch::Receiver<TablePush>> {
        self.tables.get(id).cloned()
    }

    pub fn display(&self) -> watch::Receiver<DisplayPush> {
        self.display.clone()
    }

    pub fn config(&self) -> &Arc<Config> {
        &self.config
    }

    /// The journal, for reading entries; only those up to the durable tip
    /// ([`Handle::durable_entries`]) are answered: a batch being written is not yet durable.
    pub fn journal(&self) -> Journal {
        self.journal.borrow().clone()
    }
}

/// The text of a panic caught from a blocking task.
fn panic_text(failed: tokio::task::JoinError) -> String {
    match failed.try_into_panic() {
        Ok(panic) => panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|text| (*text).to_owned()))
            .unwrap_or_else(|| "a panic".to_owned()),
        Err(error) => error.to_string(),
    }
}

/// The first entry of a journal: the configuration it runs under, texts and hash.
/// `by` is who started it (`serve --changed-by`, or the system user and host).
pub fn genesis(config: &Config, time_ms: u64, by: &str) -> Record {
    Record {
        sequence: 1,
        time_ms,
        command: Command::Genesis {
            config_hash: config.hash.clone(),
            texts: config.texts.clone(),
            keys: config.key_records(),
            by: by.to_owned(),
        },
    }
}

/// What changed between two journaled key sets, for the log: "added vp-dora; rotated mesa-B1".
fn key_changes(before: &[crate::config::KeyRecord], after: &[crate::config::KeyRecord]) -> String {
    let find = |set: &[crate::config::KeyRecord], id: &str| set.iter().find(|key| key.id == id).cloned();
    let mut changes = Vec::new();
    for key in after {
        match find(before, &key.id) {
            None => changes.push(format!("added {}", key.id)),
            Some(old) if old.fingerprint != key.fingerprint => changes.push(format!("rotated {}", key.id)),
            Some(old) if old != *key => changes.push(format!("changed {}", key.id)),
            Some(_) => {}
        }
    }
    changes.extend(before.iter().filter(|key| find(after, &key.id).is_none()).map(|key| format!("removed {}", key.id)));
    changes.join("; ")
}

/// Where the journal is kept when not in sled: a PostgreSQL address, and whether this
/// controller starts as a hot standby while another is the writer.
#[derive(Clone)]
pub struct StoreChoice {
    pub url: String,
    pub standby: bool,
}

/// Never the address itself: it may hold a password.
impl std::fmt::Debug for StoreChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreChoice")
            .field("database", &crate::journal::postgres::describe(&self.url))
            .field("standby", &self.standby)
            .finish()
    }
}

/// What a controller is to its journal: the one writer, or a hot standby that follows the
/// writer's journal in PostgreSQL, serves reads and the signs, refuses commands, and takes
/// over when the writer's lock is let go (docs/journal.md, "On PostgreSQL").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Writer,
    Standby,
}

impl Role {
    /// As `/status` and the metrics say it.
    pub fn name(self) -> &'static str {
        match self {
            Role::Writer => "writer",
            Role::Standby => "standby",
        }
    }
}

/// Stops the writer: it finishes the batch in hand, answers it, and closes the journal.
pub struct Stopper(watch::Sender<bool>);

impl Stopper {
    pub fn stop(&self) {
        let _ = self.0.send(true);
    }
}

/// Where [`start_writer`] finds its journal.
enum Opening {
    Sled,
    Postgres(String),
    /// A standby's: the writer's lock already held.
    Taken(Arc<crate::journal::postgres::PgStore>),
}

/// Opens the journal in `directory` (or the PostgreSQL store `store` names), recovers the
/// state (snapshot + replay, see [`crate::journal::recovery`]), and starts the writer; a standby
/// (`store.standby`) starts following the writer's journal instead when another controller
/// holds the writer's lock. The returned handle is how services talk to it.
pub async fn start(
    config: Config,
    directory: &Path,
    store: Option<&StoreChoice>,
    mark_path: &Path,
    snapshot_every: u64,
    changed_by: &str,
    clock: Arc<dyn Clock>,
) -> anyhow::Result<(Handle, tokio::task::JoinHandle<()>, Stopper)> {
    assert!(snapshot_every > 0, "a snapshot interval of zero entries");
    anyhow::ensure!(
        !changed_by.trim().is_empty() && changed_by.chars().count() <= 64,
        "--changed-by: 1 to 64 characters naming who starts the controller"
    );
    let opening = match store {
        None => Opening::Sled,
        Some(choice) if !choice.standby => Opening::Postgres(choice.url.clone()),
        Some(choice) => {
            let url = choice.url.clone();
            // The wait ends when this future is dropped (a stop asked before it began).
            let cancelled = CancelOnDrop(Arc::default());
            let cancel = Arc::clone(&cancelled.0);
            let begun = tokio::task::spawn_blocking(move || standby_begin(&url, &cancel))
                .await
                .map_err(|failed| anyhow::anyhow!("standby: {}", panic_text(failed)))??;
            drop(cancelled);
            match begun {
                Begin::Writer(store) => {
                    info!("standby: the writer's lock is ours (no other controller writes); starting as the writer");
                    Opening::Taken(store)
                }
                Begin::Follow { reader, candidate } => {
                    let config = Arc::new(config);
                    let following = Following {
                        url: choice.url.clone(),
                        candidate: Some(*candidate),
                        config: Arc::clone(&config),
                        mark_path: mark_path.to_path_buf(),
                        changed_by: changed_by.to_owned(),
                        database_lost: false,
                    };
                    return start_standby(config, reader, following, snapshot_every, clock).await;
                }
            }
        }
    };
    start_writer(config, directory, opening, mark_path, snapshot_every, changed_by, clock).await
}

/// How a standby begins: the writer's lock was free (it is the writer at once), or another
/// controller writes a journal it can follow.
enum Begin {
    Writer(Arc<crate::journal::postgres::PgStore>),
    Follow { reader: Arc<crate::journal::postgres::PgStore>, candidate: Box<crate::journal::postgres::Candidate> },
}

/// Asks for the writer's lock; while another controller holds it, waits for a journal to
/// follow (a writer that has only just started may not have one yet). A database that cannot
/// be reached is waited for; a wrong address or password ends the wait.
fn standby_begin(url: &str, cancel: &std::sync::atomic::AtomicBool) -> anyhow::Result<Begin> {
    use crate::journal::postgres::{Candidate, PgStore, STANDBY_RECONNECT};
    use crate::journal::store::StoreError;
    let mut candidate = Candidate::new(url);
    let mut said = String::new();
    let mut say = |what: &str| {
        if what != said {
            info!("{what}");
            said = what.to_owned();
        }
    };
    loop {
        anyhow::ensure!(!cancel.load(std::sync::atomic::Ordering::Relaxed), "standby: stopped before it began");
        match candidate.try_take() {
            Ok(Some(store)) => return Ok(Begin::Writer(store)),
            Ok(None) => match PgStore::open_follower(url).and_then(|reader| {
                let begun = crate::journal::store::Store::last(&*reader)?.is_some();
                Ok((reader, begun))
            }) {
                Ok((reader, true)) => return Ok(Begin::Follow { reader, candidate: Box::new(candidate) }),
                Ok((_, false)) | Err(StoreError::Migrations { .. }) => {
                    say("standby: another controller is the writer and its journal is not begun yet; waiting");
                }
                Err(error) if error.is_refusal() => return Err(error.into()),
                Err(error) => {
                    say("standby: the journal cannot be read yet; trying again");
                    debug!(%error, "standby: the journal cannot be read");
                }
            },
            Err(error) if error.is_refusal() => return Err(error.into()),
            Err(error) => {
                say("standby: the database cannot be reached; trying again");
                debug!(%error, "standby: the database cannot be reached");
            }
        }
        // Not a poll: a connection per try (the lock's is kept), so once a second.
        std::thread::sleep(STANDBY_RECONNECT);
    }
}

/// Sets its flag when dropped: a blocking wait that polls it ends with the future that started it.
struct CancelOnDrop(Arc<std::sync::atomic::AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// A recovered journal: its state and tip, identity, sealer, and the snapshot it started from.
struct Recovered {
    state: State,
    tip: JournalTip,
    identity: Identity,
    sealer: Sealer,
    snapshot_at: u64,
}

/// Recovers a journal that has entries: the configuration must be the genesis one, the
/// journal key this journal's, the chain whole and the tip record sealed.
///
/// A standby (`following`) recovers up to the tip record it reads first, and checks the chain
/// ends there: its writer goes on committing meanwhile.
fn recover_existing(
    journal: &Journal,
    config: &Arc<Config>,
    entries: u64,
    data: &str,
    following: bool,
) -> anyhow::Result<Recovered> {
    let journal_key =
        config.journal_key.clone().ok_or_else(|| anyhow::anyhow!("the keys have no journal key (role = \"journal\")"))?;
    let journaled = genesis_config(journal)?.ok_or_else(|| anyhow::anyhow!("journal without genesis"))?;
    if journaled.hash != config.hash {
        anyhow::bail!(
            "the configuration differs from the one this journal was started with ({} ≠ {}): settings do not change \
             while pools are live (docs/operations.md §8); start with the original --config/--rulebook, or a new --data directory",
            config.hash,
            journaled.hash
        );
    }
    let identity = journal.identity()?.ok_or_else(|| {
        JournalRefused(format!(
            "{data}: the journal has entries but no identity record: the data directory is damaged; restore it from a \
             backup (docs/operations.md §6)"
        ))
    })?;
    let sealer = Sealer::new(&journal_key, &identity).map_err(anyhow::Error::msg)?;
    let stored_tip = if following { journal.stored_tip()? } else { None };
    let (entries, until) = match stored_tip {
        Some((tip, _, _)) => (tip, tip),
        None => (entries, u64::MAX),
    };
    let (state, tip, recovery) = recover_until(journal, &identity, &sealer, config, entries, until).map_err(|error| {
        // A failing disk is a storage failure; anything else is a journal that cannot be served.
        let storage = crate::exit::ExitClass::of_recovery(&error) == crate::exit::ExitClass::Storage;
        let message = format!(
            "{data}: {error:#}. The journal is damaged: the controller does not serve it. Keep a copy for the \
             investigation and restore the last backup (docs/operations.md §6); `pozo-server verify` names the last good entry"
        );
        if storage { anyhow::Error::new(StorageFailed(message)) } else { anyhow::Error::new(JournalRefused(message)) }
    })?;
    // The journal key is fixed for the life of a journal: a different one is named as such.
    let journaled_key = state.data().keys.iter().find(|key| key.id == crate::config::JOURNAL_KEY_RECORD);
    let given = crate::config::fingerprint(&journal_key.0);
    if let Some(journaled) = journaled_key
        && journaled.fingerprint != given
    {
        anyhow::bail!(
            "{data}: the journal key given (fingerprint {given}) is not the one this journal is sealed with ({}): the \
             journal key never changes for a journal; start with the keys file that holds it (docs/security.md)",
            journaled.fingerprint
        );
    }
    let checked = match stored_tip {
        Some(stored) => check_tip_record(stored, &tip, &sealer),
        None => check_tip(journal, &tip, &sealer),
    };
    checked.map_err(|problem| {
        JournalRefused(format!("{data}: {problem}. The controller does not serve it (docs/operations.md §6)"))
    })?;
    Ok(Recovered { state, tip, identity, sealer, snapshot_at: recovery.snapshot_at })
}

/// Opens the journal as its writer, recovers it (or begins a new one), journals a changed key
/// set, writes the mark and starts the writer.
async fn start_writer(
    config: Config,
    directory: &Path,
    opening: Opening,
    mark_path: &Path,
    snapshot_every: u64,
    changed_by: &str,
    clock: Arc<dyn Clock>,
) -> anyhow::Result<(Handle, tokio::task::JoinHandle<()>, Stopper)> {
    let started = std::time::Instant::now();
    let data = directory.display();
    let in_database = !matches!(opening, Opening::Sled);
    // Opening may wait (store::LOCK_WAIT) for a journal closed just before: not on a runtime thread.
    let journal = {
        let directory = directory.to_path_buf();
        let open = move || match opening {
            Opening::Sled => Journal::open(&directory),
            // docs/journal.md, "On PostgreSQL": the journal in the database, the mark in --data's place.
            Opening::Postgres(url) => Ok(Journal::on(crate::journal::postgres::PgStore::open(&url)?)),
            Opening::Taken(store) => Ok(Journal::on(store)),
        };
        let damaged = |why: String| {
            JournalRefused(format!(
                "{data}: the journal could not be opened ({why}): the data directory is damaged; do not serve from it. \
                 Keep a copy of it for the investigation and restore the last backup (docs/operations.md §6)"
            ))
        };
        match tokio::task::spawn_blocking(open).await {
            Ok(Ok(journal)) => journal,
            // sled reads its own files as corrupted (a damaged `conf` or log): refused, saying what to do.
            Ok(Err(JournalError::Store(crate::journal::store::StoreError::Sled(
                error @ (sled::Error::Corruption { .. } | sled::Error::ReportableBug(_)),
            )))) => return Err(damaged(error.to_string()).into()),
            Ok(Err(error)) => return Err(error.into()),
            // sled may panic on data it cannot make sense of: a damaged directory, refused.
            Err(failed) => return Err(damaged(panic_text(failed)).into()),
        }
    };
    let journal_key =
        config.journal_key.clone().ok_or_else(|| anyhow::anyhow!("the keys have no journal key (role = \"journal\")"))?;
    let config = Arc::new(config);
    let (entries, _) = journal.tip()?;
    let marked = mark_path.metadata().map(|metadata| metadata.len() > 0).unwrap_or(false);
    if entries == 0 && (journal.stored_tip()?.is_some() || journal.load_snapshot()?.is_some() || journal.identity()?.is_some()) {
        return Err(JournalRefused(format!(
            "{data}: the journal's entries are gone but its tip record, identity or snapshot remain: the data directory is damaged; \
             restore it from a backup (docs/operations.md §6), do not start a new journal here"
        ))
        .into());
    }
    if entries == 0 && marked {
        return Err(JournalRefused(format!(
            "{data}: no journal here, but the acknowledgement mark {} says this controller acknowledged entries: the data \
             directory is missing or damaged. Restore it from a backup (docs/operations.md §6); if this really is a new \
             installation, remove the old mark file first",
            mark_path.display()
        ))
        .into());
    }
    let (state, tip, identity, sealer) = if entries == 0 {
        tracing::warn!(
            data = %directory.display(),
            "no journal here: a new one is created and every pool opens at its minimum (check --data if a journal was expected)"
        );
        let mut state = State::new(Arc::clone(&config));
        let record = genesis(&config, clock.now_ms(), changed_by);
        state
            .apply(&record.command, Context { sequence: 1, time_ms: record.time_ms })
            .map_err(|refusal| anyhow::anyhow!("genesis: {refusal}"))?;
        let identity = Identity::generate();
        let sealer = Sealer::new(&journal_key, &identity).map_err(anyhow::Error::msg)?;
        journal.set_identity(&identity)?;
        let (value, hash) = Journal::encode(&identity.genesis_previous(), &record);
        journal.append(vec![(1, value)], (1, hash), sealer.tip_seal(1, &hash)).await?;
        info!(journal_id = %identity.journal_id(), "new journal");
        (state, JournalTip { entries: 1, hash }, identity, sealer)
    } else {
        let Recovered { state, tip, identity, sealer, snapshot_at } =
            recover_existing(&journal, &config, entries, &data.to_string(), false)?;
        let no_mark = if in_database { NoMarkHere::StartAtTip } else { NoMarkHere::Refuse };
        if in_database && !marked && tip.entries > 1 {
            tracing::warn!(
                mark = %mark_path.display(),
                "no acknowledgement mark here: the journal is in PostgreSQL; this controller's mark starts at its tip"
            );
        }
        check_acknowledged(&journal, &tip, mark_path, &sealer, no_mark)?;
        info!(
            entries = tip.entries,
            from_snapshot = snapshot_at,
            elapsed_ms = started.elapsed().as_millis() as u64,
            journal_id = %identity.journal_id(),
            "journal recovered"
        );
        (state, tip, identity, sealer)
    };
    let (mut state, tip) = (state, tip);
    let tip = journal_key_set(&mut state, tip, &journal, &sealer, &config, changed_by, &clock).await?;
    // The mark now says what the journal holds, before anything is answered.
    let mut mark = Mark::open(mark_path, sealer.clone())?;
    mark.write(tip.entries, &tip.hash)?;
    let assembled = assemble(config, state, tip, journal, sealer, identity, Some(mark), snapshot_every, clock, Role::Writer)?;
    let task = tokio::spawn(assembled.writer.run(assembled.queue, assembled.stopped));
    Ok((assembled.handle, task, assembled.stopper))
}

/// A key set other than the journal's (a key added, removed or rotated since the last
/// start) is journaled, with who started the controller with it, before anything is served.
/// Returns the new tip.
async fn journal_key_set(
    state: &mut State,
    tip: JournalTip,
    journal: &Journal,
    sealer: &Sealer,
    config: &Config,
    changed_by: &str,
    clock: &Arc<dyn Clock>,
) -> anyhow::Result<JournalTip> {
    let keys = config.key_records();
    if state.data().keys == keys {
        return Ok(tip);
    }
    let changes = key_changes(&state.data().keys, &keys);
    let sequence = tip.entries + 1;
    let time_ms = clock.now_ms().max(journal.entry(tip.entries)?.map(|entry| entry.record.time_ms).unwrap_or(0));
    let record = Record { sequence, time_ms, command: Command::Keys { keys, by: changed_by.to_owned() } };
    state.apply(&record.command, Context { sequence, time_ms }).map_err(|refusal| anyhow::anyhow!("keys: {refusal}"))?;
    let (value, hash) = Journal::encode(&tip.hash, &record);
    journal.append(vec![(sequence, value)], (sequence, hash), sealer.tip_seal(sequence, &hash)).await?;
    tracing::warn!(entry = sequence, by = changed_by, %changes, "the key set changed since the last start: journaled");
    Ok(JournalTip { entries: sequence, hash })
}

/// Recovers the writer's journal read from PostgreSQL and starts following it as the hot
/// standby: the read model, the panels and the signs kept current, commands refused, the
/// writer's lock asked for every [`crate::journal::postgres::STANDBY_POLL`].
async fn start_standby(
    config: Arc<Config>,
    reader: Arc<crate::journal::postgres::PgStore>,
    following: Following,
    snapshot_every: u64,
    clock: Arc<dyn Clock>,
) -> anyhow::Result<(Handle, tokio::task::JoinHandle<()>, Stopper)> {
    let started = std::time::Instant::now();
    let database = reader.database().to_owned();
    let journal = Journal::on(reader);
    let (entries, _) = journal.tip()?;
    let Recovered { state, tip, identity, sealer, snapshot_at } = recover_existing(&journal, &config, entries, &database, true)?;
    // This controller's mark is checked now, not when the writer is gone: one from another
    // journal, or ahead of this one, is refused while the writer still serves.
    check_acknowledged(&journal, &tip, &following.mark_path, &sealer, NoMarkHere::StartAtTip).map_err(|problem| {
        JournalRefused(format!("{database}: {problem}. The standby does not follow it (docs/operations.md §16)"))
    })?;
    if state.data().keys != config.key_records() {
        tracing::warn!(
            changes = %key_changes(&state.data().keys, &config.key_records()),
            "standby: the keys given differ from the writer's journaled key set; taking over would journal these \
             keys (check --keys is the writer's: a key revoked there would come back)"
        );
    }
    info!(
        entries = tip.entries,
        from_snapshot = snapshot_at,
        elapsed_ms = started.elapsed().as_millis() as u64,
        journal_id = %identity.journal_id(),
        %database,
        "standby: another controller is the writer; following its journal (reads and signs served, commands refused)"
    );
    let assembled = assemble(config, state, tip, journal, sealer, identity, None, snapshot_every, clock, Role::Standby)?;
    let Assembled { writer, handle, queue, stopped, stopper, role, journals } = assembled;
    let task = tokio::spawn(writer.follow(following, role, journals, queue, stopped));
    Ok((handle, task, stopper))
}

/// A writer ready to run (or to follow), and the handle to it.
struct Assembled {
    writer: Writer,
    handle: Handle,
    queue: mpsc::Receiver<Request>,
    stopped: watch::Receiver<bool>,
    stopper: Stopper,
    role: watch::Sender<Role>,
    journals: watch::Sender<Journal>,
}

/// Builds the writer around a recovered state: the table panels, the signs, the read model,
/// the request queue and the handle.
#[allow(clippy::too_many_arguments)]
fn assemble(
    config: Arc<Config>,
    state: State,
    tip: JournalTip,
    journal: Journal,
    sealer: Sealer,
    identity: Identity,
    mark: Option<Mark>,
    snapshot_every: u64,
    clock: Arc<dyn Clock>,
    role: Role,
) -> anyhow::Result<Assembled> {
    let mut pool_tables: BTreeMap<PoolId, Vec<(TableId, watch::Sender<TablePush>)>> = BTreeMap::new();
    let mut table_receivers = BTreeMap::new();
    for table in &config.layout.tables {
        let view = state.table_view(&table.id).expect("every configured table has a view");
        let pool = view.pool_id.clone();
        let (sender, receiver) = watch::channel(TablePush { journal_sequence: tip.entries, view });
        pool_tables.entry(pool).or_default().push((table.id.clone(), sender));
        table_receivers.insert(table.id.clone(), receiver);
    }
    let gold_turns = state.data().gold_turns.clone();
    let hit_heads = state
        .data()
        .hits
        .iter()
        .filter_map(|(pool, hits)| hits.front().map(|hit| (pool.clone(), hit.journal_sequence)))
        .collect();
    let (display_sender, display_receiver) = watch::channel(display_of(&state, tip.entries, None, None));
    let (requests, queue) = mpsc::channel(QUEUE_CAPACITY);
    let last_snapshot = journal.load_snapshot()?.map(|stored| stored.sequence).unwrap_or(0);
    // Journal time never goes backwards, even after a restart on a clock that is behind.
    let last_time_ms = journal.entry(tip.entries)?.map(|entry| entry.record.time_ms).unwrap_or(0);
    let (journals, journal_receiver) = watch::channel(journal.clone());
    let (model, model_receiver) = watch::channel(Arc::new(ReadModel::of(&state, tip)));
    let (role, role_receiver) = watch::channel(role);
    let metrics = Arc::new(Metrics::new());
    let writer = Writer {
        clock: Arc::clone(&clock),
        model,
        state,
        journal,
        sealer,
        mark,
        tip,
        last_snapshot,
        last_time_ms,
        snapshot_every,
        pool_tables,
        gold_turns,
        display: display_sender,
        hit_heads,
        encoding: None,
        encoded: None,
        pending: Pending::default(),
        in_flight: None,
        metrics: Arc::clone(&metrics),
    };
    let (stop, stopped) = watch::channel(false);
    let journal_id = identity.journal_id();
    let handle = Handle {
        requests,
        tables: Arc::new(table_receivers),
        display: display_receiver,
        config,
        journal: journal_receiver,
        identity: Arc::new(identity),
        journal_id: Arc::from(journal_id),
        model: model_receiver,
        role: role_receiver,
        clock,
        metrics,
    };
    Ok(Assembled { writer, handle, queue, stopped, stopper: Stopper(stop), role, journals })
}

fn unix_us() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|elapsed| elapsed.as_micros() as u64).unwrap_or(0)
}

/// The displays' view of every pool. The prize lists (pending orders, last hits) are
/// rebuilt only for the pools in `prizes_changed` (a hit or a Venta-Pagos decision) and
/// taken from `previous` for the others: finding the pending orders reads every order.
fn display_of(
    state: &State,
    journal_sequence: u64,
    previous: Option<&DisplayPush>,
    prizes_changed: Option<&BTreeSet<PoolId>>,
) -> DisplayPush {
    DisplayPush {
        journal_sequence,
        durable_unix_us: unix_us(),
        pools: state
            .pools()
            .enumerate()
            .map(|(index, pool)| {
                let id = &pool.rules().id;
                let kept = previous
                    .and_then(|previous| previous.pools.get(index))
                    .filter(|kept| &kept.pool_id == id && !prizes_changed.is_some_and(|changed| changed.contains(id)));
                let (pending, hits) = match kept {
                    Some(kept) => (Arc::clone(&kept.pending), Arc::clone(&kept.hits)),
                    None => prizes_of(state, id),
                };
                PoolDisplay {
                    pool_id: id.clone(),
                    displayed: pool.displayed(),
                    minimum: pool.rules().minimum,
                    increment_rate: pool.rules().contribution_rate,
                    last_win: state.data().last_wins.get(id).cloned(),
                    pending,
                    hits,
                }
            })
            .collect(),
    }
}

/// A pool's pending payout orders (oldest first) and its last [`SIGN_HITS`] hits.
fn prizes_of(state: &State, pool_id: &str) -> (Arc<[PrizeView]>, Arc<[PrizeView]>) {
    let data = state.data();
    let orders: Vec<_> = data.orders.values().filter(|order| order.facts.pool == pool_id).collect();
    let pending = orders
        .iter()
        .filter(|order| order.status == OrderStatus::Pending)
        .map(|order| PrizeView {
            hit: Hit {
                table_id: order.facts.table_id.clone(),
                seat: order.facts.seat,
                code: order.facts.code.clone(),
                amount: order.facts.amount,
                time_ms: order.time_ms,
                journal_sequence: order.journal_sequence,
            },
            status: PrizeStatus::Pending,
        })
        .collect();
    let hits = data
        .hits
        .get(pool_id)
        .map(|hits| {
            hits.iter()
                .take(SIGN_HITS)
                .map(|hit| {
                    let order = orders.iter().find(|order| {
                        order.journal_sequence == hit.journal_sequence
                            && order.facts.table_id == hit.table_id
                            && order.facts.seat == hit.seat
                            && order.facts.code == hit.code
                    });
                    PrizeView {
                        hit: hit.clone(),
                        status: match order.map(|order| order.status) {
                            None => PrizeStatus::Paid,
                            Some(OrderStatus::Pending) => PrizeStatus::Pending,
                            Some(OrderStatus::Confirmed) => PrizeStatus::Confirmed,
                            Some(OrderStatus::Rejected) => PrizeStatus::Rejected,
                        },
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    (pending, hits)
}

struct Writer {
    /// The published read model (crate::read), swapped after each durable batch.
    model: watch::Sender<Arc<ReadModel>>,
    /// Read once per round of requests: the time every command of it is applied and journaled at.
    clock: Arc<dyn Clock>,
    state: State,
    journal: Journal,
    sealer: Sealer,
    /// The acknowledgement mark; with the flush task while a batch is being made durable.
    mark: Option<Mark>,
    /// The tip of everything applied: durable, or sealed and being flushed, or pending.
    tip: JournalTip,
    last_snapshot: u64,
    last_time_ms: u64,
    snapshot_every: u64,
    /// Every table's panel watch, by pool.
    pool_tables: BTreeMap<PoolId, Vec<(TableId, watch::Sender<TablePush>)>>,
    /// The gold turns as last prepared for publication: a change there changes every panel of the pool.
    gold_turns: BTreeMap<PoolId, GoldTurn>,
    display: watch::Sender<DisplayPush>,
    /// Each pool's newest hit as last prepared: a new one changes the signs' prize lists.
    hit_heads: BTreeMap<PoolId, u64>,
    /// The snapshot being encoded off the writer's path: its sequence and bytes.
    encoding: Option<tokio::task::JoinHandle<EncodedSnapshot>>,
    /// An encoded snapshot waiting for a moment with no flush under way to be stored.
    encoded: Option<EncodedSnapshot>,
    /// Applied in memory, not yet sealed: waits for the batch in flight.
    pending: Pending,
    /// Sealed and being made durable: at most one at a time, answered in order.
    in_flight: Option<Sealed>,
    metrics: Arc<Metrics>,
}

/// A caller and the answer it gets once its batch is durable.
type Answer = (oneshot::Sender<Result<Applied, Refusal>>, Result<Applied, Refusal>);

/// An encoded snapshot: its sequence, its bytes and their seal.
type EncodedSnapshot = (u64, Vec<u8>, [u8; 32]);

/// Requests applied in memory while the batch before them is being flushed.
#[derive(Default)]
struct Pending {
    writes: Vec<(u64, Vec<u8>)>,
    answers: Vec<Answer>,
    pools: BTreeSet<PoolId>,
    tables: BTreeSet<TableId>,
    decided: BTreeSet<PoolId>,
}

impl Pending {
    /// Notes what an applied command changes: its pool, its table, a Venta-Pagos decision.
    fn touch(&mut self, applied: &Applied) {
        match applied {
            Applied::Table(reply) => {
                self.pools.insert(reply.view.pool_id.clone());
                self.tables.insert(reply.view.table_id.clone());
            }
            Applied::Office(order) => {
                self.pools.insert(order.facts.pool.clone());
                self.decided.insert(order.facts.pool.clone());
            }
            _ => {}
        }
    }
}

/// A batch being made durable, with everything that waits for it: the read model and
/// pushes of the state just after it (built when it was sealed) and its answers.
struct Sealed {
    flush: tokio::task::JoinHandle<Result<Mark, JournalError>>,
    entries: usize,
    model: Arc<ReadModel>,
    publication: Publication,
    answers: Vec<Answer>,
}

/// The pushes of one batch, built from the state just after it, sent once it is durable.
struct Publication {
    sequence: u64,
    /// One per touched pool.
    pools: Vec<PoolPush>,
    display: DisplayPush,
}

/// A touched pool's pushes: its displayed amount, and the whole new views of the tables
/// that need one (by index in the pool's list); the others get only the amount.
struct PoolPush {
    pool: PoolId,
    displayed: Money,
    views: Vec<(usize, TableView)>,
}

/// What woke the writer.
enum Wake {
    Stop,
    Requests,
    Flushed(Result<Result<Mark, JournalError>, tokio::task::JoinError>),
    Encoded(Result<EncodedSnapshot, tokio::task::JoinError>),
}

impl Writer {
    /// The writer's loop, a two-stage pipeline: while one batch is being flushed (journal,
    /// then mark, on the flush task), the requests that arrive are applied in memory and
    /// wait as the next batch; it is sealed and flushed the moment the one before it is
    /// durable. Answers and pushes go out strictly in journal order, each batch's only
    /// once it is durable.
    async fn run(mut self, mut queue: mpsc::Receiver<Request>, mut stopped: watch::Receiver<bool>) {
        let mut received = Vec::with_capacity(BATCH_MAX);
        loop {
            let room = BATCH_MAX.saturating_sub(self.pending.answers.len());
            let encoding = self.encoding.as_mut();
            let in_flight = self.in_flight.as_mut();
            let wake = tokio::select! {
                biased;
                _ = stopped.wait_for(|stop| *stop) => Wake::Stop,
                flushed = async { (&mut in_flight.expect("guarded").flush).await }, if in_flight.is_some() => Wake::Flushed(flushed),
                // A snapshot is stored as soon as it is encoded and no flush is under way, even on an idle floor.
                encoded = async { encoding.expect("guarded").await }, if encoding.is_some() => Wake::Encoded(encoded),
                count = queue.recv_many(&mut received, room), if room > 0 => if count == 0 { Wake::Stop } else { Wake::Requests },
            };
            match wake {
                Wake::Requests => {
                    self.apply(&mut received);
                    if self.in_flight.is_none() {
                        self.seal();
                    }
                }
                Wake::Flushed(flushed) => {
                    self.durable(flushed).await;
                    self.seal();
                }
                Wake::Encoded(encoded) => {
                    self.encoding = None;
                    let encoded = unwrap_encoded(encoded);
                    match self.in_flight {
                        None => self.store_snapshot(encoded).await,
                        Some(_) => self.encoded = Some(encoded),
                    }
                }
                Wake::Stop => {
                    // What was applied is made durable and answered before the writer stops.
                    self.finish_in_flight().await;
                    self.seal();
                    self.finish_in_flight().await;
                    if let Some(encoding) = self.encoding.take() {
                        self.store_snapshot(unwrap_encoded(encoding.await)).await;
                    }
                    info!(entries = self.tip.entries, "writer stopped");
                    return;
                }
            }
        }
    }

    /// Applies a round of requests in memory, at one clock reading (never going backwards),
    /// adding them to the pending batch. Nothing is answered here.
    fn apply(&mut self, received: &mut Vec<Request>) {
        let time_ms = self.clock.now_ms().max(self.last_time_ms);
        self.last_time_ms = time_ms;
        let pending = &mut self.pending;
        for Request { command, reply } in received.drain(..) {
            let sequence = self.tip.entries + 1;
            let result = self.state.apply(&command, Context { sequence, time_ms });
            match &result {
                Ok(applied) if applied.journals() => {
                    self.metrics.command(command.kind());
                    let record = Record { sequence, time_ms, command };
                    let (value, hash) = Journal::encode(&self.tip.hash, &record);
                    debug!(sequence, command = ?record.command, "applied");
                    pending.writes.push((sequence, value));
                    self.tip = JournalTip { entries: sequence, hash };
                    pending.touch(applied);
                }
                Ok(_) => {
                    self.metrics.retry();
                    debug!(command = ?command, "retry answered from the state");
                }
                Err(refusal) => {
                    self.metrics.refusal(refusal.kind.name());
                    debug!(command = ?command, %refusal, "refused");
                }
            }
            pending.answers.push((reply, result));
        }
    }

    /// Seals the pending batch, when no flush is under way: one that journals nothing is
    /// answered at once (everything before it is durable); one that does gets its read
    /// model and pushes built from the state as it stands (just after it) and goes to the
    /// flush task, which appends it to the journal, flushes once (group commit) and then
    /// writes the acknowledgement mark (crate::journal::mark): a journal later found shorter than
    /// the mark is refused, never served.
    fn seal(&mut self) {
        debug_assert!(self.in_flight.is_none(), "one batch in flight at a time");
        let pending = std::mem::take(&mut self.pending);
        if pending.writes.is_empty() {
            for (reply, result) in pending.answers {
                let _ = reply.send(result);
            }
            return;
        }
        let (sequence, hash) = (self.tip.entries, self.tip.hash);
        let seal = self.sealer.tip_seal(sequence, &hash);
        let model = Arc::new(ReadModel::of(&self.state, self.tip));
        let publication = self.prepare(&pending.pools, &pending.tables, &pending.decided);
        let journal = self.journal.clone();
        let mut mark = self.mark.take().expect("the mark is back after each flush");
        let entries = pending.writes.len();
        let writes = pending.writes;
        let metrics = Arc::clone(&self.metrics);
        let flush = tokio::spawn(async move {
            let started = std::time::Instant::now();
            journal.append(writes, (sequence, hash), seal).await?;
            let (mark, marked) = tokio::task::spawn_blocking(move || {
                let marked = mark.write(sequence, &hash);
                (mark, marked)
            })
            .await
            .map_err(|error| JournalError::Corrupt { sequence, problem: format!("acknowledgement mark: {error}") })?;
            marked.map_err(|error| JournalError::Corrupt { sequence, problem: error.to_string() })?;
            metrics.batch(entries, started.elapsed());
            Ok(mark)
        });
        self.in_flight = Some(Sealed { flush, entries, model, publication, answers: pending.answers });
        // The snapshot is of the state just after this batch; it is stored only once no
        // flush is under way, so never ahead of the durable journal.
        if self.encoding.is_none() && self.encoded.is_none() && sequence.saturating_sub(self.last_snapshot) >= self.snapshot_every
        {
            self.snapshot();
        }
    }

    /// Waits for the batch in flight, if any, and finishes it ([`Writer::durable`]).
    async fn finish_in_flight(&mut self) {
        if let Some(sealed) = self.in_flight.as_mut() {
            let flushed = (&mut sealed.flush).await;
            self.durable(flushed).await;
        }
    }

    /// The batch in flight is durable: its read model is swapped in, its pushes sent, then
    /// its callers answered; a snapshot waiting for this moment is stored.
    async fn durable(&mut self, flushed: Result<Result<Mark, JournalError>, tokio::task::JoinError>) {
        let sealed = self.in_flight.take().expect("a batch in flight");
        match flushed {
            Ok(Ok(mark)) => self.mark = Some(mark),
            // Fail-stop: state applied in memory that cannot be made durable must not be
            // served. Recovery replays the journal on the next start.
            Ok(Err(error)) => panic!("journal write failed, stopping the controller: {error}"),
            Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
            Err(error) => panic!("journal write did not finish, stopping the controller: {error}"),
        }
        // Swapped in before the answers: a caller who reads after its answer sees its command.
        let tip = sealed.model.tip.entries;
        self.model.send_replace(sealed.model);
        info!(entries = sealed.entries, tip, requests = sealed.answers.len(), "batch durable");
        // Pushed before the answers: an agent that reads its answer and then
        // watches its table never sees the state from before its own command.
        self.send(sealed.publication);
        for (reply, result) in sealed.answers {
            let _ = reply.send(result);
        }
        if let Some(encoded) = self.encoded.take() {
            self.store_snapshot(encoded).await;
        }
    }

    /// Takes a snapshot of the state as of the last sealed batch and has it encoded off the
    /// writer's path; only the copy is made here, and the store once it is encoded and no
    /// flush is under way. Encoding it inline held every answer behind it (16 ms with 1,000
    /// tables and one jornada of meters, far more with the 62 jornadas the reports keep:
    /// docs/benchmarks.md). The store stays with the writer: from another thread it raced
    /// the writer's flushes (a max latency of 78 ms) and the memory sled frees per thread
    /// was held on to. One snapshot at a time, in order.
    fn snapshot(&mut self) {
        let stored =
            StoredSnapshot { sequence: self.tip.entries, tip: hex::encode(self.tip.hash), snapshot: self.state.snapshot() };
        self.last_snapshot = self.tip.entries;
        let sealer = self.sealer.clone();
        self.encoding = Some(tokio::task::spawn_blocking(move || {
            let bytes = Journal::encode_snapshot(&stored);
            let seal = sealer.snapshot_seal(&bytes);
            (stored.sequence, bytes, seal)
        }));
    }

    /// Stores an encoded snapshot, durably. Fail-stop when it cannot be: the journal's
    /// storage is failing.
    async fn store_snapshot(&mut self, (sequence, bytes, seal): EncodedSnapshot) {
        if let Err(error) = self.journal.save_snapshot_bytes(bytes, seal).await {
            panic!("snapshot write failed, stopping the controller: {error}");
        }
        info!(sequence, "snapshot saved");
    }

    /// Builds the pushes of the batch just sealed: the new state of every table of a pool
    /// that changed, and the displays. Sent by [`Writer::send`] once the batch is durable.
    ///
    /// A command changes only its own table, its pool and that pool's gold turn. So a
    /// table's view is rebuilt when a command of the batch was its own or its pool's gold
    /// turn moved; the other tables of a touched pool get only the pool's new amount
    /// (a whole view rebuilt for each of them cost a third of the CPU at 2,000 presses/s
    /// with 1,000 tables: docs/benchmarks.md).
    fn prepare(&mut self, pools: &BTreeSet<PoolId>, tables: &BTreeSet<TableId>, decided: &BTreeSet<PoolId>) -> Publication {
        let sequence = self.tip.entries;
        let mut prepared = Vec::with_capacity(pools.len());
        for pool in pools {
            let Some(senders) = self.pool_tables.get(pool) else { continue };
            let turn = self.state.data().gold_turns.get(pool);
            let turn_moved = turn != self.gold_turns.get(pool);
            if turn_moved {
                match turn {
                    Some(turn) => self.gold_turns.insert(pool.clone(), turn.clone()),
                    None => self.gold_turns.remove(pool),
                };
            }
            let displayed = self.state.pool(pool).displayed();
            let mut views = Vec::new();
            for (index, (id, sender)) in senders.iter().enumerate() {
                if turn_moved || tables.contains(id) {
                    if let Some(view) = self.state.table_view(id) {
                        views.push((index, view));
                    }
                } else {
                    // Only the amount can have changed: checked on every batch of the tests.
                    // (What the watch holds is the last batch's: it was sent before this one was sealed.)
                    debug_assert_eq!(
                        Some({
                            let mut view = sender.borrow().view.clone();
                            view.displayed = displayed;
                            view
                        }),
                        self.state.table_view(id),
                        "table {id} changed unpublished"
                    );
                }
            }
            prepared.push(PoolPush { pool: pool.clone(), displayed, views });
        }
        // The prize lists change with a hit (a new head of the pool's hits) or a decision.
        let mut prizes_changed = decided.clone();
        for pool in pools {
            let head = self.state.data().hits.get(pool).and_then(|hits| hits.front()).map(|hit| hit.journal_sequence);
            if self.hit_heads.get(pool).copied() != head {
                match head {
                    Some(head) => self.hit_heads.insert(pool.clone(), head),
                    None => self.hit_heads.remove(pool),
                };
                prizes_changed.insert(pool.clone());
            }
        }
        let display = display_of(&self.state, sequence, Some(&self.display.borrow()), Some(&prizes_changed));
        Publication { sequence, pools: prepared, display }
    }

    /// Sends a durable batch's pushes: whole views where they changed, the amount to the
    /// other tables of each touched pool, and the displays (stamped with now, when the
    /// batch became durable).
    fn send(&self, publication: Publication) {
        let Publication { sequence, pools, mut display } = publication;
        for PoolPush { pool, displayed, views } in pools {
            let Some(senders) = self.pool_tables.get(&pool) else { continue };
            let mut views = views.into_iter().peekable();
            for (index, (_, sender)) in senders.iter().enumerate() {
                match views.next_if(|(at, _)| *at == index) {
                    Some((_, view)) => {
                        sender.send_if_modified(|push| {
                            if push.view == view {
                                return false;
                            }
                            *push = TablePush { journal_sequence: sequence, view };
                            true
                        });
                    }
                    None => {
                        sender.send_if_modified(|push| {
                            let modified = push.view.displayed != displayed;
                            if modified {
                                push.view.displayed = displayed;
                                push.journal_sequence = sequence;
                            }
                            modified
                        });
                    }
                }
            }
        }
        display.durable_unix_us = unix_us();
        self.display.send_if_modified(|push| {
            if push.pools == display.pools {
                return false;
            }
            *push = display;
            true
        });
    }
}

/// How a standby's stop on a damaged journal begins: it exits as a journal refused does.
pub const DAMAGED: &str = "standby: the writer's journal is damaged";

/// Entries a standby reads and applies per round; a journal further ahead takes more rounds.
pub const FOLLOW_ENTRIES_MAX: usize = 4_096;

/// What a hot standby needs to go on following, and to take over.
struct Following {
    url: String,
    /// Asks for the writer's lock; `None` only while it is asking, off the runtime.
    candidate: Option<crate::journal::postgres::Candidate>,
    config: Arc<Config>,
    mark_path: std::path::PathBuf,
    changed_by: String,
    /// The database could not be reached at the last try: an outage is said once, not every poll.
    database_lost: bool,
}

impl Following {
    /// The database cannot be reached (however that shows): said once until it is over.
    fn database_lost(&mut self) {
        if !self.database_lost {
            tracing::warn!("standby: the database cannot be reached; following again once it can");
            self.database_lost = true;
        }
    }

    fn mended(&mut self) {
        if self.database_lost {
            info!("standby: following the writer's journal again");
            self.database_lost = false;
        }
    }
}

impl Writer {
    /// The hot standby's loop: every [`crate::journal::postgres::STANDBY_POLL`] it applies what the
    /// writer committed since (publishing the read model, the panels and the signs as the
    /// writer did), then asks for the writer's lock. Once the lock is ours it takes over
    /// ([`Writer::take_over`]) and runs as the writer, on the same state, panels and signs:
    /// displays watching it see no break.
    async fn follow(
        mut self,
        mut following: Following,
        role: watch::Sender<Role>,
        journals: watch::Sender<Journal>,
        queue: mpsc::Receiver<Request>,
        mut stopped: watch::Receiver<bool>,
    ) {
        use crate::journal::postgres::{PgStore, STANDBY_POLL, STANDBY_RECONNECT};
        loop {
            let mut pause = STANDBY_POLL;
            match self.catch_up().await {
                // Further behind than a round reads: on at once.
                Ok(true) => pause = std::time::Duration::ZERO,
                Ok(false) => {
                    let mut candidate = following.candidate.take().expect("the candidate is back after each ask");
                    let (candidate, asked) = tokio::task::spawn_blocking(move || {
                        let asked = candidate.try_take();
                        (candidate, asked)
                    })
                    .await
                    .expect("asking for the writer's lock does not panic");
                    following.candidate = Some(candidate);
                    match asked {
                        Ok(Some(store)) => {
                            let started = std::time::Instant::now();
                            self.take_over(store, &following).await;
                            journals.send_replace(self.journal.clone());
                            role.send_replace(Role::Writer);
                            info!(
                                entries = self.tip.entries,
                                took_ms = started.elapsed().as_millis() as u64,
                                "standby: the writer's lock is ours; took over as the writer"
                            );
                            return self.run(queue, stopped).await;
                        }
                        Ok(None) => following.mended(),
                        Err(error) => {
                            following.database_lost();
                            debug!(%error, "standby: cannot ask for the writer's lock");
                            pause = STANDBY_RECONNECT;
                        }
                    }
                }
                // An entry that does not decode is damage, not a lost connection.
                Err(error @ JournalError::Corrupt { .. }) => self.damaged(error),
                Err(error) => {
                    following.database_lost();
                    debug!(%error, "standby: the writer's journal cannot be read");
                    pause = STANDBY_RECONNECT;
                    let url = following.url.clone();
                    match tokio::task::spawn_blocking(move || PgStore::open_follower(&url)).await {
                        Ok(Ok(reader)) => {
                            self.journal = Journal::on(reader);
                            journals.send_replace(self.journal.clone());
                        }
                        Ok(Err(error)) => debug!(%error, "standby: connecting again failed"),
                        Err(failed) => debug!(problem = panic_text(failed), "standby: connecting again failed"),
                    }
                }
            }
            tokio::select! {
                _ = stopped.wait_for(|stop| *stop) => {
                    info!(entries = self.tip.entries, "standby stopped");
                    return;
                }
                _ = tokio::time::sleep(pause) => {}
            }
        }
    }

    /// Reads what the writer committed after this standby's tip (at most
    /// [`FOLLOW_ENTRIES_MAX`] entries), checks the tip record's seal, applies the entries with
    /// the chain checked, checks the tip record's hash once it reaches it, and publishes the new
    /// state. True while the journal holds more. A read that fails is a [`JournalError::Store`]
    /// to retry; a damaged journal stops the controller ([`Writer::damaged`]).
    async fn catch_up(&mut self) -> Result<bool, JournalError> {
        let journal = self.journal.clone();
        let after = self.tip.entries;
        let read = tokio::task::spawn_blocking(move || -> Result<_, JournalError> {
            let Some(stored) = journal.stored_tip()? else { return Ok(None) };
            let wanted = stored.0.saturating_sub(after).min(FOLLOW_ENTRIES_MAX as u64) as usize;
            let entries = journal.read_after(after).take(wanted).collect::<Result<Vec<_>, _>>()?;
            Ok(Some((stored, wanted, entries)))
        })
        .await
        .expect("reading the journal does not panic")?;
        let Some((stored, wanted, read)) = read else {
            self.damaged(format!("its tip record is gone (this standby followed it to entry {})", self.tip.entries))
        };
        let (entries, hash, seal) = stored;
        // The seal first: nothing is applied on the word of a tip record the journal key did not seal.
        if self.sealer.tip_seal(entries, &hash) != seal {
            self.damaged(RecoveryError::TipUnsealed { entries });
        }
        if entries < self.tip.entries {
            self.damaged(format!(
                "it now ends at entry {entries}, but this standby followed it to entry {}: entries were removed \
                 (a journal restored on the writer's side is started anew, not followed)",
                self.tip.entries
            ));
        }
        if read.len() < wanted {
            let last = after + read.len() as u64;
            self.damaged(RecoveryError::Gap { sequence: entries, after: last });
        }
        let mut touched = Pending::default();
        let applied_any = !read.is_empty();
        for entry in read {
            match apply_entry(&mut self.state, &self.tip, &entry) {
                Ok(applied) => touched.touch(&applied),
                Err(problem) => self.damaged(problem),
            }
            self.tip = JournalTip { entries: entry.record.sequence, hash: entry.hash };
            self.last_time_ms = self.last_time_ms.max(entry.record.time_ms);
        }
        if self.tip.entries == entries
            && let Err(problem) = check_tip_record(stored, &self.tip, &self.sealer)
        {
            self.damaged(problem);
        }
        if applied_any {
            self.publish(&touched);
        }
        Ok(self.tip.entries < entries)
    }

    /// Publishes the state as the writer does a durable batch: the read model, then the pushes.
    fn publish(&mut self, touched: &Pending) {
        let publication = self.prepare(&touched.pools, &touched.tables, &touched.decided);
        self.model.send_replace(Arc::new(ReadModel::of(&self.state, self.tip)));
        self.send(publication);
    }

    /// Fail-stop: a standby does not serve, nor take over, a journal whose chain or tip it
    /// cannot check. (It exits as for any journal refused: docs/operations.md §15.)
    fn damaged(&self, problem: impl std::fmt::Display) -> ! {
        panic!(
            "{DAMAGED}: {problem}. This controller neither serves nor takes over a damaged journal; \
             `pozo-server verify --store` names the last good entry (docs/operations.md §6)"
        )
    }

    /// The writer's lock is ours: reads the rest of what the writer before committed through
    /// the writer's own connection, journals a changed key set, writes the mark here (starting
    /// at the tip if this controller has none), and is ready to run as the writer. Fail-stop on
    /// any problem: with the lock held, a standby that cannot take over must let it go, which
    /// its stopping does.
    async fn take_over(&mut self, store: Arc<crate::journal::postgres::PgStore>, following: &Following) {
        self.journal = Journal::on(store);
        let fail = |error: anyhow::Error| -> ! {
            panic!("standby: taking over as the writer failed: {error:#}; this controller stops and lets the lock go")
        };
        loop {
            match self.catch_up().await {
                Ok(true) => {}
                Ok(false) => break,
                Err(error) => fail(error.into()),
            }
        }
        // The mark is checked before anything is written: a controller that cannot serve this
        // journal writes nothing to it.
        let (journal, tip, sealer, mark_path) =
            (self.journal.clone(), self.tip, self.sealer.clone(), following.mark_path.clone());
        let mut mark = tokio::task::spawn_blocking(move || -> anyhow::Result<Mark> {
            check_acknowledged(&journal, &tip, &mark_path, &sealer, NoMarkHere::StartAtTip)?;
            Ok(Mark::open(&mark_path, sealer)?)
        })
        .await
        .map_err(|failed| anyhow::anyhow!("the mark: {}", panic_text(failed)))
        .and_then(|mark| mark)
        .unwrap_or_else(|error| fail(error));
        let before = self.tip.entries;
        self.tip = journal_key_set(
            &mut self.state,
            self.tip,
            &self.journal,
            &self.sealer,
            &following.config,
            &following.changed_by,
            &self.clock,
        )
        .await
        .unwrap_or_else(|error| fail(error));
        if self.tip.entries != before {
            let time_ms = self.journal.entry(self.tip.entries).ok().flatten().map(|entry| entry.record.time_ms);
            self.last_time_ms = self.last_time_ms.max(time_ms.unwrap_or(0));
            self.publish(&Pending::default());
        }
        let tip = self.tip;
        let mark = tokio::task::spawn_blocking(move || -> anyhow::Result<Mark> {
            mark.write(tip.entries, &tip.hash)?;
            Ok(mark)
        })
        .await
        .map_err(|failed| anyhow::anyhow!("the mark: {}", panic_text(failed)))
        .and_then(|mark| mark)
        .unwrap_or_else(|error| fail(error));
        self.mark = Some(mark);
        self.last_snapshot =
            self.journal.load_snapshot().unwrap_or_else(|error| fail(error.into())).map(|stored| stored.sequence).unwrap_or(0);
    }
}

/// An encoded snapshot, or the panic that stopped its encoding (fail-stop).
fn unwrap_encoded(encoded: Result<EncodedSnapshot, tokio::task::JoinError>) -> EncodedSnapshot {
    match encoded {
        Ok(encoded) => encoded,
        Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
        Err(error) => panic!("snapshot encoding did not finish, stopping the controller: {error}"),
    }
}
