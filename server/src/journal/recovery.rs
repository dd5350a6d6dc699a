//! Recovery: the state of a journal rebuilt at start-up (snapshot, then replay with the
//! chain checked), and the checks that refuse a journal that lost or changed what was
//! acknowledged. The writer, `verify` and the bench's restart all recover through here.
//!
//! Every way a journal can fail is a [`RecoveryError`] variant; the caller adds where
//! (the data directory) and what to do.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::{Config, ConfigError};
use crate::journal::ReadEntry;
use crate::journal::Sealer;
use crate::journal::mark::MarkError;
use crate::journal::{Hash, Identity, Journal, JournalError, JournalTip};
use pozo_core::state::{Applied, Command, Context, Refusal, State};

/// What the controller tells an operator to do when acknowledged entries are gone.
const WHAT_TO_DO: &str = "The controller does not serve a journal that lost acknowledged entries. Keep a copy of the \
                          data directory for the investigation and restore the last backup with `pozo-server restore` \
                          (docs/operations.md §6)";

/// Why a journal cannot be recovered.
#[derive(Debug, thiserror::Error)]
pub enum RecoveryError {
    #[error(transparent)]
    Storage(#[from] JournalError),
    #[error(transparent)]
    Mark(#[from] MarkError),
    #[error("journal entry {sequence} follows {after}: entries are missing")]
    Gap { sequence: u64, after: u64 },
    #[error("journal entry {sequence}: its previous-entry hash does not match entry {after}: the chain is broken")]
    Broken { sequence: u64, after: u64 },
    #[error("journal entry {sequence} changes nothing when replayed")]
    Inert { sequence: u64 },
    #[error("journal entry {sequence} is refused when replayed: {refusal}")]
    Refused { sequence: u64, refusal: Refusal },
    #[error(
        "the journal's tip record (entry {entries}) is not sealed with this journal key: the journal was rewritten \
         without the key, or the key given is not this journal's"
    )]
    TipUnsealed { entries: u64 },
    #[error(
        "the journal ends at entry {entries} (hash {hash}) but its tip record names entry {recorded} (hash \
         {recorded_hash}): entries were removed or altered"
    )]
    TipMismatch { entries: u64, hash: String, recorded: u64, recorded_hash: String },
    #[error("the journal has no tip record")]
    NoTip,
    #[error(
        "no acknowledgement mark at {}: this controller cannot tell whether entries after {entries} were acknowledged. \
         If the data directory was copied or restored here on purpose, bring it in with `pozo-server restore` \
         (docs/operations.md §6)", mark.display()
    )]
    NoMark { mark: PathBuf, entries: u64 },
    #[error(
        "the journal ends at entry {entries} (the last good one) but entry {acknowledged} was acknowledged (mark {}): \
         {} acknowledged entries are missing. {WHAT_TO_DO}", mark.display(), acknowledged - entries
    )]
    Lost { entries: u64, acknowledged: u64, mark: PathBuf },
    #[error(
        "journal entry {sequence} is not the entry that was acknowledged there (mark {}): the journal was replaced or \
         rewritten. {WHAT_TO_DO}", mark.display()
    )]
    Replaced { sequence: u64, mark: PathBuf },
    #[error("journal entry 1 is not the genesis entry")]
    NotGenesis,
    #[error("genesis configuration: {0}")]
    Genesis(ConfigError),
    #[error("snapshot tip is not a hash")]
    SnapshotTip,
    #[error("snapshot: {0}")]
    Snapshot(String),
}

/// Replays the entries after `after` onto `state`, checking the chain from
/// `previous`. Returns the new tip.
pub fn replay(state: &mut State, journal: &Journal, after: u64, previous: Hash) -> Result<JournalTip, RecoveryError> {
    replay_until(state, journal, after, previous, u64::MAX)
}

/// [`replay`], stopping after entry `until`.
pub(crate) fn replay_until(
    state: &mut State,
    journal: &Journal,
    after: u64,
    previous: Hash,
    until: u64,
) -> Result<JournalTip, RecoveryError> {
    let mut tip = JournalTip { entries: after, hash: previous };
    // What a planted bug waits for (`planted-bugs` only; nothing otherwise).
    pozo_core::planted::replaying(true);
    let _replayed = Replayed;
    for entry in journal.read_after(after) {
        if tip.entries >= until {
            break;
        }
        let entry = entry?;
        apply_entry(state, &tip, &entry)?;
        tip = JournalTip { entries: entry.record.sequence, hash: entry.hash };
    }
    Ok(tip)
}

/// The end of a replay, however it ends (see `pozo_core::planted`).
struct Replayed;

impl Drop for Replayed {
    fn drop(&mut self) {
        pozo_core::planted::replaying(false);
    }
}

/// Applies one entry read back onto `state`, whose journal ends at `tip`: it must be the next
/// entry (sequence), chained to the one before (previous hash), and change something when
/// applied, as every journaled command did. Recovery and a following standby apply through here.
pub(crate) fn apply_entry(state: &mut State, tip: &JournalTip, entry: &ReadEntry) -> Result<Applied, RecoveryError> {
    let sequence = entry.record.sequence;
    if sequence != tip.entries + 1 {
        return Err(RecoveryError::Gap { sequence, after: tip.entries });
    }
    if entry.previous != tip.hash {
        return Err(RecoveryError::Broken { sequence, after: tip.entries });
    }
    match state.apply(&entry.record.command, Context { sequence, time_ms: entry.record.time_ms }) {
        Ok(applied) if applied.journals() => Ok(applied),
        Ok(_) => Err(RecoveryError::Inert { sequence }),
        Err(refusal) => Err(RecoveryError::Refused { sequence, refusal }),
    }
}

/// Checks the replayed journal ends where its tip record says: entries removed
/// from the end, or an edited last entry, would otherwise go unnoticed.
/// The tip record's seal is checked under the journal key too: history rewritten
/// with recomputed hashes but without the key is caught here.
pub(crate) fn check_tip(journal: &Journal, tip: &JournalTip, sealer: &Sealer) -> Result<(), RecoveryError> {
    match journal.stored_tip()? {
        Some(stored) => check_tip_record(stored, tip, sealer),
        None => Err(RecoveryError::NoTip),
    }
}

/// A tip record as stored: its entries, hash and seal.
pub(crate) type TipRecord = (u64, Hash, [u8; 32]);

/// Checks a tip record read earlier against the journal replayed to `tip`: the same entry and
/// hash, sealed under the journal key.
pub(crate) fn check_tip_record((entries, hash, seal): TipRecord, tip: &JournalTip, sealer: &Sealer) -> Result<(), RecoveryError> {
    if entries != tip.entries || hash != tip.hash {
        return Err(RecoveryError::TipMismatch {
            entries: tip.entries,
            hash: hex::encode(tip.hash),
            recorded: entries,
            recorded_hash: hex::encode(hash),
        });
    }
    if sealer.tip_seal(entries, &hash) != seal {
        return Err(RecoveryError::TipUnsealed { entries });
    }
    Ok(())
}

/// What a controller makes of a journal with entries but no mark of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NoMarkHere {
    /// A data directory copied or restored here by hand: refused (`pozo-server restore`).
    Refuse,
    /// A journal in PostgreSQL, which outlives this machine: a controller started elsewhere (a
    /// standby taking over) has no mark of the last writer's; what was committed is durable
    /// there, and this controller's mark starts at the tip it finds.
    StartAtTip,
}

/// Fails closed when the journal holds fewer entries than the controller acknowledged
/// (the mark, crate::journal::mark), or another entry where the mark points.
pub(crate) fn check_acknowledged(
    journal: &Journal,
    tip: &JournalTip,
    mark: &Path,
    sealer: &Sealer,
    no_mark: NoMarkHere,
) -> Result<(), RecoveryError> {
    match crate::journal::mark::read(mark, sealer)? {
        None if tip.entries > 1 && no_mark == NoMarkHere::Refuse => {
            Err(RecoveryError::NoMark { mark: mark.to_path_buf(), entries: tip.entries })
        }
        None => Ok(()),
        Some(acknowledged) if acknowledged.sequence > tip.entries => {
            Err(RecoveryError::Lost { entries: tip.entries, acknowledged: acknowledged.sequence, mark: mark.to_path_buf() })
        }
        Some(acknowledged) => {
            let entry = journal.entry(acknowledged.sequence)?.map(|entry| entry.hash);
            if entry == Some(acknowledged.hash) {
                Ok(())
            } else {
                Err(RecoveryError::Replaced { sequence: acknowledged.sequence, mark: mark.to_path_buf() })
            }
        }
    }
}

/// Reads the genesis entry's configuration; `None` for an empty journal.
pub(crate) fn genesis_config(journal: &Journal) -> Result<Option<Config>, RecoveryError> {
    let Some(entry) = journal.entry(1)? else { return Ok(None) };
    match entry.record.command {
        Command::Genesis { texts, .. } => Config::from_texts(texts).map(Some).map_err(RecoveryError::Genesis),
        _ => Err(RecoveryError::NotGenesis),
    }
}

/// Why entry 1 is not the entry the journal chains from, if it is not: entry 2 (or, alone, the
/// tip record) names another hash. A genesis damaged on disk reads as another configuration;
/// this tells the two apart (found by `pozo-sim vopr --seed 355`).
pub(crate) fn genesis_damaged(journal: &Journal) -> Result<Option<String>, RecoveryError> {
    let Some(first) = journal.entry(1)? else { return Ok(None) };
    let named = match journal.entry(2)? {
        Some(second) => second.previous,
        None => match journal.stored_tip()? {
            Some((1, hash, _)) => hash,
            _ => return Ok(None),
        },
    };
    Ok((named != first.hash)
        .then(|| "journal entry 1 (the genesis) is damaged: its bytes do not hash to what the journal names after it".to_owned()))
}

/// How a start-up recovered the state: from which snapshot, and how long each step took.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Recovery {
    /// The entry the snapshot was taken after; 0 when replayed from the first.
    pub(crate) snapshot_at: u64,
    pub(crate) snapshot_load: std::time::Duration,
    pub(crate) state_restore: std::time::Duration,
    pub(crate) replay: std::time::Duration,
}

/// The state of a journal of `entries` entries: its latest snapshot (when it is not
/// past the journal's end), then the entries after it replayed with the chain checked.
pub(crate) fn recover(
    journal: &Journal,
    identity: &Identity,
    sealer: &Sealer,
    config: &Arc<Config>,
    entries: u64,
) -> Result<(State, JournalTip, Recovery), RecoveryError> {
    recover_until(journal, identity, sealer, config, entries, u64::MAX)
}

/// [`recover`], replaying no further than entry `until`: a standby recovers a journal its
/// writer goes on appending to up to the tip record it read first.
pub(crate) fn recover_until(
    journal: &Journal,
    identity: &Identity,
    sealer: &Sealer,
    config: &Arc<Config>,
    entries: u64,
    until: u64,
) -> Result<(State, JournalTip, Recovery), RecoveryError> {
    let started = std::time::Instant::now();
    let stored = journal.load_sealed_snapshot(sealer)?;
    let loaded = started.elapsed();
    let (mut state, after, previous) = match stored {
        // A snapshot of a release before the series were numbered (`Data::series_numbered`) has
        // no series records: the state is replayed from zero instead, as any later snapshot is.
        Some(stored) if stored.sequence <= entries && stored.snapshot.data.series_numbered => {
            let previous: Hash =
                hex::decode(&stored.tip).ok().and_then(|bytes| bytes.try_into().ok()).ok_or(RecoveryError::SnapshotTip)?;
            let state = State::restore(Arc::clone(config), stored.snapshot).map_err(RecoveryError::Snapshot)?;
            (state, stored.sequence, previous)
        }
        _ => (State::new(Arc::clone(config)), 0, identity.genesis_previous()),
    };
    let restored = started.elapsed();
    let tip = replay_until(&mut state, journal, after, previous, until)?;
    let recovery = Recovery {
        snapshot_at: after,
        snapshot_load: loaded,
        state_restore: restored - loaded,
        replay: started.elapsed() - restored,
    };
    Ok((state, tip, recovery))
}

/// How long each step of a recovery took, and how many entries it replayed.
#[derive(Clone, Copy, Debug)]
pub struct RecoveryTimes {
    /// Opening the journal's store.
    pub journal_open: std::time::Duration,
    pub snapshot_load: std::time::Duration,
    pub state_restore: std::time::Duration,
    pub replay: std::time::Duration,
    /// The entries replayed after the snapshot.
    pub replayed: u64,
}

/// Opens the sled journal in `directory` and runs [`recover`] on it, the snapshot load and the
/// replay the writer's start-up runs too, timing each step: the restart benchmark's breakdown
/// of what a restart spends. It leaves out what the writer checks around it (the genesis
/// configuration, the tip record, the acknowledgement mark), which the benchmark's own
/// `ready_ms` includes.
pub fn measure(directory: &Path, config: &Config) -> anyhow::Result<RecoveryTimes> {
    let started = std::time::Instant::now();
    let journal = Journal::open(directory)?;
    let journal_open = started.elapsed();
    let (entries, _) = journal.tip()?;
    let identity = journal.identity()?.ok_or_else(|| anyhow::anyhow!("{}: the journal has no identity", directory.display()))?;
    let journal_key = config.journal_key.as_ref().ok_or_else(|| anyhow::anyhow!("the keys have no journal key"))?;
    let sealer = Sealer::new(journal_key, &identity).map_err(anyhow::Error::msg)?;
    let (_, tip, recovery) = recover(&journal, &identity, &sealer, &Arc::new(config.clone()), entries)?;
    Ok(RecoveryTimes {
        journal_open,
        snapshot_load: recovery.snapshot_load,
        state_restore: recovery.state_restore,
        replay: recovery.replay,
        replayed: tip.entries - recovery.snapshot_at,
    })
}
