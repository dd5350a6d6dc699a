//! Opening a journal: genesis for a new one, recovery (snapshot, replay, chain and mark
//! checks) for an existing one, in sled or PostgreSQL, and assembling the writer and its
//! [`Handle`] over it.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use pozo_engine::TableId;
use tokio::sync::{mpsc, watch};
use tracing::{debug, info};

use super::batch::{Pending, PoolPanels, Writer};
use super::handle::{Handle, QUEUE_CAPACITY, Request, Stopper, TablePanels};
use super::keys::{journal_build, journal_key_set, key_changes};
use super::standby::Following;
use crate::cards::CardSource;
use crate::clock::Clock;
use crate::config::Config;
use crate::exit::{JournalRefused, StorageFailed};
use crate::journal::Sealer;
use crate::journal::mark::Mark;
use crate::journal::recovery::{
    NoMarkHere, check_acknowledged, check_tip, check_tip_record, genesis_config, genesis_damaged, recover_until,
};
use crate::journal::store::{Candidate, Shared};
use crate::journal::{Identity, Journal, JournalError, JournalTip, Record};
use crate::read::ReadModel;
use crate::read::metrics::Metrics;
use crate::read::signs::{TablePush, display_of};
use crate::read::status::Role;
use pozo_core::state::{Command, Context, State};

/// The first entry of a journal: the configuration it runs under, texts and hash.
/// `by` is who started it (`serve --changed-by`, or the system user and host).
pub fn genesis(config: &Config, time_ms: u64, by: &str) -> Record {
    genesis_opened(config, time_ms, by, None)
}

/// [`genesis`] of a journal opened from its predecessor's sealed closing statement
/// (`opened_from`, docs/journal.md), when there is one.
fn genesis_opened(config: &Config, time_ms: u64, by: &str, opened_from: Option<Box<serde_json::Value>>) -> Record {
    Record { sequence: 1, time_ms, command: Command::genesis(config, by, Some(crate::build::current().clone()), opened_from) }
}

/// The file `pozo-server close` leaves in a data directory whose books it carried to a new
/// journal: the controller never serves that journal again (docs/journal.md, "Closing a journal").
pub(crate) const CLOSED_FILE: &str = "pozo.closed";

/// Refuses a data directory `pozo-server close` closed, naming where and by which statement.
fn refuse_closed(directory: &Path) -> anyhow::Result<()> {
    let path = directory.join(CLOSED_FILE);
    if !path.exists() {
        return Ok(());
    }
    let said: Option<serde_json::Value> = std::fs::read(&path).ok().and_then(|bytes| serde_json::from_slice(&bytes).ok());
    let field = |name: &str| said.as_ref().and_then(|said| said.pointer(&format!("/closed/{name}"))).map(ToString::to_string);
    Err(JournalRefused(format!(
        "{}: this journal was closed by `pozo-server close` at entry {} (statement sha256 {}; {}): its books were carried \
         to a new journal, the one to serve; a closed journal is never served again. It stays readable: `pozo-server \
         verify --data {}` (docs/journal.md, \"Closing a journal\")",
        directory.display(),
        field("entries").unwrap_or_else(|| "?".into()),
        field("statement_sha256").unwrap_or_else(|| "?".into()).trim_matches('"'),
        path.display(),
        directory.display()
    ))
    .into())
}

/// Begins a new journal in the sled data directory `directory`, empty, whose genesis entry
/// carries `statement`, a predecessor's sealed closing statement (`serve --open-from`): the
/// state starts from the statement's snapshot, pools at its balances. Its seal, books and
/// files are the caller's to check first; the snapshot is checked against the configuration
/// when the genesis entry is applied. Returns the new journal's identity and tip.
pub async fn open_from(
    config: Config,
    directory: &Path,
    mark_path: &Path,
    statement: serde_json::Value,
    time_ms: u64,
    changed_by: &str,
) -> anyhow::Result<(Identity, JournalTip)> {
    let journal_key =
        config.journal_key.clone().ok_or_else(|| anyhow::anyhow!("the keys have no journal key (role = \"journal\")"))?;
    let journal = open_journal(directory, Opening::Sled).await?;
    let (entries, _) = journal.tip()?;
    anyhow::ensure!(
        entries == 0,
        "--data {}: the journal has {entries} entries: a journal is opened from a closing statement only in an empty data directory",
        directory.display()
    );
    let marked = mark_path.metadata().map(|metadata| metadata.len() > 0).unwrap_or(false);
    refuse_leftovers(&journal, marked, directory, mark_path)?;
    let opened = Some(Box::new(statement));
    let (_, tip, identity, _) = begin(&journal, &Arc::new(config), &journal_key, time_ms, changed_by, opened).await?;
    Ok((identity, tip))
}

/// Where the journal is kept when not in sled.
#[derive(Clone)]
pub enum StoreChoice {
    /// PostgreSQL at `url`; `standby`: start as the hot standby while another controller is
    /// the writer.
    Postgres { url: String, standby: bool },
    /// A store the caller made: the seeded simulation's disk (`pozo-sim vopr`). It is used as
    /// sled is (the mark beside it is required once the journal has entries).
    Given(Arc<dyn crate::journal::store::Store>),
    /// A journal several controllers reach, started as a hot standby while another controller
    /// holds its writer's lock (as `Postgres { standby: true }`): the seeded simulation's shared
    /// disk, where a standby follows the writer and takes its lock over.
    Shared(Arc<dyn Shared>),
}

/// Never the address itself: it may hold a password.
impl std::fmt::Debug for StoreChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreChoice::Postgres { url, standby } => f
                .debug_struct("Postgres")
                .field("database", &crate::journal::postgres::describe(url))
                .field("standby", standby)
                .finish(),
            StoreChoice::Given(_) => f.write_str("Given"),
            StoreChoice::Shared(shared) => f.debug_tuple("Shared").field(&shared.describe()).finish(),
        }
    }
}

/// Where [`start_writer`] finds its journal.
pub(super) enum Opening {
    Sled,
    Given(Arc<dyn crate::journal::store::Store>),
    Postgres(String),
    /// A standby's: the writer's lock already held.
    Taken(Arc<dyn crate::journal::store::Store>),
}

/// Opens the journal in `directory` (or the PostgreSQL store `store` names), recovers the
/// state (snapshot + replay, see [`crate::journal::recovery`]), and starts the writer; a standby
/// (`store.standby`) starts following the writer's journal instead when another controller
/// holds the writer's lock. The returned handle is how services talk to it.
#[allow(clippy::too_many_arguments)]
pub async fn start(
    config: Config,
    directory: &Path,
    store: Option<&StoreChoice>,
    mark_path: &Path,
    snapshot_every: u64,
    changed_by: &str,
    clock: Arc<dyn Clock>,
    cards: CardSource,
) -> anyhow::Result<(Handle, tokio::task::JoinHandle<()>, Stopper)> {
    assert!(snapshot_every > 0, "a snapshot interval of zero entries");
    anyhow::ensure!(
        !changed_by.trim().is_empty() && changed_by.chars().count() <= 64,
        "--changed-by: 1 to 64 characters naming who starts the controller"
    );
    let shared: Arc<dyn Shared> = match store {
        None => return start_writer(config, directory, Opening::Sled, mark_path, snapshot_every, changed_by, clock, cards).await,
        Some(StoreChoice::Given(store)) => {
            let opening = Opening::Given(Arc::clone(store));
            return start_writer(config, directory, opening, mark_path, snapshot_every, changed_by, clock, cards).await;
        }
        Some(StoreChoice::Postgres { url, standby: false }) => {
            let opening = Opening::Postgres(url.clone());
            return start_writer(config, directory, opening, mark_path, snapshot_every, changed_by, clock, cards).await;
        }
        Some(StoreChoice::Postgres { url, standby: true }) => Arc::new(crate::journal::postgres::PgShared::new(url)),
        Some(StoreChoice::Shared(shared)) => Arc::clone(shared),
    };
    // The wait ends when this future is dropped (a stop asked before it began).
    match standby_begin(&shared).await? {
        Begin::Writer(store) => {
            info!("standby: the writer's lock is ours (no other controller writes); starting as the writer");
            start_writer(config, directory, Opening::Taken(store), mark_path, snapshot_every, changed_by, clock, cards).await
        }
        Begin::Follow { reader, candidate } => {
            let config = Arc::new(config);
            let following = Following {
                shared,
                candidate: Some(candidate),
                config: Arc::clone(&config),
                mark_path: mark_path.to_path_buf(),
                changed_by: changed_by.to_owned(),
                database_lost: false,
            };
            start_standby(config, reader, following, snapshot_every, clock, cards).await
        }
    }
}

/// How a standby begins: the writer's lock was free (it is the writer at once), or another
/// controller writes a journal it can follow.
pub(super) enum Begin {
    Writer(Arc<dyn crate::journal::store::Store>),
    Follow { reader: Arc<dyn crate::journal::store::Store>, candidate: Box<dyn Candidate> },
}

/// Asks for the writer's lock; while another controller holds it, waits for a journal to
/// follow (a writer that has only just started may not have one yet). A database that cannot
/// be reached is waited for; a wrong address or password ends the wait. Each ask is blocking
/// work ([`crate::blocking`]); the wait between them is the runtime's, so dropping the future
/// ends the wait (an ask already under way finishes on its own: a lock it took is let go when
/// its store is dropped).
pub(super) async fn standby_begin(shared: &Arc<dyn Shared>) -> anyhow::Result<Begin> {
    use crate::journal::store::StoreError;
    let mut candidate = shared.candidate();
    let mut said = String::new();
    let mut say = |what: &str| {
        if what != said {
            info!("{what}");
            said = what.to_owned();
        }
    };
    loop {
        let asked;
        (candidate, asked) = super::standby::ask(candidate).await;
        match asked {
            Ok(Some(store)) => return Ok(Begin::Writer(store)),
            Ok(None) => {
                let reaching = Arc::clone(shared);
                let opened = crate::blocking::spawn(move || {
                    reaching.follower().and_then(|reader| {
                        let begun = reader.last()?.is_some();
                        Ok((reader, begun))
                    })
                })
                .await
                .unwrap_or_else(|failed| failed.resume());
                match opened {
                    Ok((reader, true)) => return Ok(Begin::Follow { reader, candidate }),
                    Ok((_, false)) | Err(StoreError::Migrations { .. }) => {
                        say("standby: another controller is the writer and its journal is not begun yet; waiting");
                    }
                    Err(error) if error.is_refusal() => return Err(error.into()),
                    Err(error) => {
                        say("standby: the journal cannot be read yet; trying again");
                        debug!(%error, "standby: the journal cannot be read");
                    }
                }
            }
            Err(error) if error.is_refusal() => return Err(error.into()),
            Err(error) => {
                say("standby: the database cannot be reached; trying again");
                debug!(%error, "standby: the database cannot be reached");
            }
        }
        // Not a poll: a connection per try (the lock's is kept), so once a second.
        tokio::time::sleep(super::standby::STANDBY_RECONNECT).await;
    }
}

/// A recovered journal: its state and tip, identity, sealer, and the snapshot it started from.
pub(super) struct Recovered {
    pub(super) state: State,
    pub(super) tip: JournalTip,
    pub(super) identity: Identity,
    pub(super) sealer: Sealer,
    pub(super) snapshot_at: u64,
}

/// Recovers a journal that has entries: the configuration must be the genesis one, the
/// journal key this journal's, the chain whole and the tip record sealed.
///
/// A standby (`following`) recovers up to the tip record it reads first, and checks the chain
/// ends there: its writer goes on committing meanwhile.
pub(super) fn recover_existing(
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
        // A genesis damaged on disk reads as another configuration: the chain tells which.
        if let Some(problem) = genesis_damaged(journal)? {
            return Err(JournalRefused(format!(
                "{data}: {problem}. The journal is damaged: the controller does not serve it. Keep a copy for the \
                 investigation and restore the last backup (docs/operations.md §6); `pozo-server verify` names the last good entry"
            ))
            .into());
        }
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
#[allow(clippy::too_many_arguments)]
pub(super) async fn start_writer(
    config: Config,
    directory: &Path,
    opening: Opening,
    mark_path: &Path,
    snapshot_every: u64,
    changed_by: &str,
    clock: Arc<dyn Clock>,
    cards: CardSource,
) -> anyhow::Result<(Handle, tokio::task::JoinHandle<()>, Stopper)> {
    let started = std::time::Instant::now();
    let data = directory.display();
    let in_database = matches!(opening, Opening::Postgres(_) | Opening::Taken(_));
    if !in_database {
        refuse_closed(directory)?;
    }
    let journal = open_journal(directory, opening).await?;
    let journal_key =
        config.journal_key.clone().ok_or_else(|| anyhow::anyhow!("the keys have no journal key (role = \"journal\")"))?;
    let config = Arc::new(config);
    let (entries, _) = journal.tip()?;
    let marked = mark_path.metadata().map(|metadata| metadata.len() > 0).unwrap_or(false);
    if entries == 0 {
        refuse_leftovers(&journal, marked, directory, mark_path)?;
    }
    let (state, tip, identity, sealer) = if entries == 0 {
        tracing::warn!(
            data = %directory.display(),
            "no journal here: a new one is created and every pool opens at its minimum (check --data if a journal was expected)"
        );
        begin(&journal, &config, &journal_key, clock.now_ms(), changed_by, None).await?
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
    // Genesis records the first start's build; every later start journals its own.
    let tip = if entries == 0 { tip } else { journal_build(&mut state, tip, &journal, &sealer, changed_by, &clock).await? };
    // The mark now says what the journal holds, before anything is answered.
    let mut mark = Mark::open(mark_path, sealer.clone())?;
    mark.write(tip.entries, &tip.hash)?;
    let assembled = assemble(state, tip, journal, sealer, identity, Some(mark), snapshot_every, clock, cards, Role::Writer)?;
    let task = tokio::spawn(assembled.writer.run(assembled.queue, assembled.stopped));
    Ok((assembled.handle, task, assembled.stopper))
}

/// Opens the journal the writer writes: sled in `directory`, or PostgreSQL. sled reading its
/// own files as damaged (or panicking on them) is a journal refused, saying what to do.
async fn open_journal(directory: &Path, opening: Opening) -> anyhow::Result<Journal> {
    let data = directory.display();
    // Opening may wait (store::LOCK_WAIT) for a journal closed just before: not on a runtime thread.
    let directory = directory.to_path_buf();
    let open = move || match opening {
        Opening::Sled => Journal::open(&directory),
        // docs/journal.md, "On PostgreSQL": the journal in the database, the mark in --data's place.
        Opening::Postgres(url) => Ok(Journal::on(crate::journal::postgres::PgStore::open(&url)?)),
        Opening::Taken(store) => Ok(Journal::on(store)),
        Opening::Given(store) => Ok(Journal::on(store)),
    };
    let damaged = |why: String| {
        JournalRefused(format!(
            "{data}: the journal could not be opened ({why}): the data directory is damaged; do not serve from it. \
             Keep a copy of it for the investigation and restore the last backup (docs/operations.md §6)"
        ))
    };
    match crate::blocking::spawn(open).await {
        Ok(Ok(journal)) => Ok(journal),
        // sled reads its own files as corrupted (a damaged `conf` or log; a `conf` it cannot parse
        // at all it calls `Unsupported`, as if an older sled wrote it): refused, saying what to do.
        Ok(Err(JournalError::Store(crate::journal::store::StoreError::Sled(
            error @ (sled::Error::Corruption { .. } | sled::Error::ReportableBug(_) | sled::Error::Unsupported(_)),
        )))) => Err(damaged(error.to_string()).into()),
        Ok(Err(error)) => Err(error.into()),
        // sled may panic on data it cannot make sense of: a damaged directory, refused.
        Err(failed) => Err(damaged(failed.text()).into()),
    }
}

/// A journal with no entries is begun only where nothing says one was there: no tip record,
/// identity or snapshot left, and no acknowledgement mark (`marked`).
fn refuse_leftovers(journal: &Journal, marked: bool, directory: &Path, mark_path: &Path) -> anyhow::Result<()> {
    let data = directory.display();
    if journal.stored_tip()?.is_some() || journal.load_snapshot()?.is_some() || journal.identity()?.is_some() {
        return Err(JournalRefused(format!(
            "{data}: the journal's entries are gone but its tip record, identity or snapshot remain: the data directory is damaged; \
             restore it from a backup (docs/operations.md §6), do not start a new journal here"
        ))
        .into());
    }
    if marked {
        return Err(JournalRefused(format!(
            "{data}: no journal here, but the acknowledgement mark {} says this controller acknowledged entries: the data \
             directory is missing or damaged. Restore it from a backup (docs/operations.md §6); if this really is a new \
             installation, remove the old mark file first",
            mark_path.display()
        ))
        .into());
    }
    Ok(())
}

/// Begins a new journal: a new identity, and the genesis entry at `time_ms` applied and
/// appended; `opened_from`, a predecessor's sealed closing statement, when it carries one.
async fn begin(
    journal: &Journal,
    config: &Arc<Config>,
    journal_key: &crate::config::JournalKey,
    time_ms: u64,
    changed_by: &str,
    opened_from: Option<Box<serde_json::Value>>,
) -> anyhow::Result<(State, JournalTip, Identity, Sealer)> {
    let mut state = State::new(Arc::clone(config));
    let record = genesis_opened(config, time_ms, changed_by, opened_from);
    state
        .apply(&record.command, Context { sequence: 1, time_ms: record.time_ms })
        .map_err(|refusal| anyhow::anyhow!("genesis: {refusal}"))?;
    let identity = Identity::generate();
    let sealer = Sealer::new(journal_key, &identity).map_err(anyhow::Error::msg)?;
    journal.set_identity(&identity)?;
    let (value, hash) = Journal::encode(&identity.genesis_previous(), &record);
    journal.append(vec![(1, value)], (1, hash), sealer.tip_seal(1, &hash)).await?;
    info!(journal_id = %identity.journal_id(), "new journal");
    Ok((state, JournalTip { entries: 1, hash }, identity, sealer))
}

/// Recovers the writer's journal read from PostgreSQL and starts following it as the hot
/// standby: the read model, the panels and the signs kept current, commands refused, the
/// writer's lock asked for every [`super::standby::STANDBY_POLL`].
pub(super) async fn start_standby(
    config: Arc<Config>,
    reader: Arc<dyn crate::journal::store::Store>,
    following: Following,
    snapshot_every: u64,
    clock: Arc<dyn Clock>,
    cards: CardSource,
) -> anyhow::Result<(Handle, tokio::task::JoinHandle<()>, Stopper)> {
    let started = std::time::Instant::now();
    let database = following.shared.describe();
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
    let assembled = assemble(state, tip, journal, sealer, identity, None, snapshot_every, clock, cards, Role::Standby)?;
    let Assembled { writer, handle, queue, stopped, stopper, role, journals } = assembled;
    let task = tokio::spawn(writer.follow(following, role, journals, queue, stopped));
    Ok((handle, task, stopper))
}

/// A writer ready to run (or to follow), and the handle to it.
pub(super) struct Assembled {
    pub(super) writer: Writer,
    pub(super) handle: Handle,
    pub(super) queue: mpsc::Receiver<Request>,
    pub(super) stopped: watch::Receiver<bool>,
    pub(super) stopper: Stopper,
    pub(super) role: watch::Sender<Role>,
    pub(super) journals: watch::Sender<Journal>,
}

/// Builds the writer around a recovered state: the table panels, the signs, the read model,
/// the request queue and the handle.
#[allow(clippy::too_many_arguments)]
pub(super) fn assemble(
    state: State,
    tip: JournalTip,
    journal: Journal,
    sealer: Sealer,
    identity: Identity,
    mark: Option<Mark>,
    snapshot_every: u64,
    clock: Arc<dyn Clock>,
    cards: CardSource,
    role: Role,
) -> anyhow::Result<Assembled> {
    let mut draws = super::draws::Draws::new(&sealer, cards);
    let identity_keys = Arc::new(sealer.identity_keys());
    draws.recover(&state);
    let (pool_tables, table_receivers) = panels(state.config(), &state, tip);
    let table_panels: TablePanels = Arc::new(std::sync::RwLock::new(table_receivers));
    let wired = Arc::clone(state.config());
    let gold_turns = state.data().gold_turns.clone();
    let hit_heads = state
        .data()
        .hits
        .iter()
        .filter_map(|(pool, hits)| hits.front().map(|hit| (pool.clone(), hit.journal_sequence)))
        .collect();
    let (display_sender, display_receiver) = watch::channel(display_of(&state, tip.entries, clock.now_us(), None, None));
    let (requests, queue) = mpsc::channel(QUEUE_CAPACITY);
    // The snapshot recovery started from: one it ignored (not sealed with the journal key, or
    // unreadable) counts as none, and a new one is taken soon (found by `pozo-sim vopr`).
    let last_snapshot = journal.load_sealed_snapshot(&sealer).ok().flatten().map(|stored| stored.sequence).unwrap_or(0);
    // Journal time never goes backwards, even after a restart on a clock that is behind.
    let last_time_ms = journal.entry(tip.entries)?.map(|entry| entry.record.time_ms).unwrap_or(0);
    let (journals, journal_receiver) = watch::channel(journal.clone());
    let seats = Arc::new(state.seats_by_table());
    let (model, model_receiver) = watch::channel(Arc::new(ReadModel::with_seats(&state, tip, Arc::clone(&seats))));
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
        snapshot_bytes: 0,
        last_time_ms,
        snapshot_every,
        pool_tables,
        table_panels: Arc::clone(&table_panels),
        wired: Arc::clone(&wired),
        amounts: Default::default(),
        gold_turns,
        display: display_sender,
        hit_heads,
        encoding: None,
        encoded: None,
        pending: Pending::default(),
        in_flight: None,
        metrics: Arc::clone(&metrics),
        draws,
        seats,
        seats_config: Arc::clone(&wired),
    };
    let (stop, stopped) = watch::channel(false);
    let journal_id = identity.journal_id();
    let keys = wired.keys.values().map(|key| (key.id.clone(), super::handle::SigningKey::new(key, &journal_id))).collect();
    let handle = Handle {
        requests,
        tables: table_panels,
        display: display_receiver,
        keys: Arc::new(keys),
        journal: journal_receiver,
        identity: Arc::new(identity),
        journal_id: Arc::from(journal_id),
        model: model_receiver,
        role: role_receiver,
        clock,
        metrics,
        identity_keys,
    };
    Ok(Assembled { writer, handle, queue, stopped, stopper: Stopper(stop), role, journals })
}

/// Every table's panel watch, by pool for the writer and by table for the handle.
fn panels(config: &Config, state: &State, tip: JournalTip) -> (PoolPanels, BTreeMap<TableId, watch::Receiver<TablePush>>) {
    let mut pool_tables: PoolPanels = BTreeMap::new();
    let mut table_receivers = BTreeMap::new();
    for table in &config.layout.tables {
        let view = state.table_view(&table.id).expect("every configured table has a view");
        let pool = view.pool_id.clone();
        let (sender, receiver) = watch::channel(TablePush { journal_sequence: tip.entries, view });
        pool_tables.entry(pool).or_default().push((table.id.clone(), sender));
        table_receivers.insert(table.id.clone(), receiver);
    }
    (pool_tables, table_receivers)
}
