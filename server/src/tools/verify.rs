//! `pozo-server verify`: replays the whole journal from zero under the
//! configuration its genesis entry recorded, checks the hash chain and its seal
//! under the journal key, the conservation of every pool after every entry, that
//! the stored snapshot is exactly the state replay reaches at its entry, and that
//! every entry the controller acknowledged (crate::journal::mark) is there.
//!
//! It never writes into the data directory: sled recovers (and may truncate) a log
//! when it opens one, so verify copies the directory to a temporary one and opens
//! the copy.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use pozo_engine::PoolId;
use serde::Serialize;

use crate::config::JournalKey;
use crate::journal::Journal;
use crate::journal::Sealer;
use crate::journal::recovery::{check_tip, genesis_config, replay_until};
use pozo_core::state::State;
use pozo_engine::money::plain_text;

#[derive(Debug, Serialize)]
pub struct VerifyReport {
    pub entries: u64,
    /// The last entry that replays with an unbroken chain.
    pub last_good_entry: u64,
    pub tip: String,
    pub chain: String,
    /// "ok", "none" (no mark: a backup copy), or what is missing.
    pub acknowledged: String,
    pub conservation: String,
    pub snapshot: String,
    pub pools: BTreeMap<PoolId, PoolSummary>,
}

#[derive(Debug, Serialize)]
pub struct PoolSummary {
    pub balance: String,
    pub reserve: String,
    pub displayed: String,
    pub contributions: String,
    pub replenishments: String,
    pub awards: String,
    pub awards_returned: String,
    pub replenishments_withdrawn: String,
    pub hits: u64,
}

impl VerifyReport {
    pub fn ok(&self) -> bool {
        self.chain == "ok"
            && self.conservation == "ok"
            && (self.snapshot == "ok" || self.snapshot == "none")
            && (self.acknowledged == "ok" || self.acknowledged.starts_with("none"))
    }
}

/// Copies a directory tree (regular files and directories only).
pub fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_tree(&entry.path(), &to.join(entry.file_name()))?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name()))?;
        }
    }
    Ok(())
}

/// Verifies the journal in `directory` with the journal key, and against the
/// acknowledgement mark at `mark` (`None`, or no file there: a backup checked on its own). An
/// unreadable or empty journal is an error; a broken chain, seal, books, snapshot
/// or a missing acknowledged entry is reported in the result.
pub fn verify(directory: &Path, journal_key: &JournalKey, mark: Option<&Path>) -> anyhow::Result<VerifyReport> {
    if !directory.is_dir() {
        anyhow::bail!("{}: no such data directory", directory.display());
    }
    // Read-only: sled may truncate a damaged log when it opens it; the copy takes that, never the original.
    let copy = tempfile::tempdir()?;
    copy_tree(directory, copy.path()).map_err(|error| anyhow::anyhow!("{}: could not be read: {error}", directory.display()))?;
    let journal = {
        let copy = copy.path().to_path_buf();
        std::thread::spawn(move || Journal::open(&copy)).join().map_err(|_| {
            anyhow::anyhow!("{}: the journal could not be opened (sled failed on it): it is damaged", directory.display())
        })??
    };
    verify_journal(&journal, &directory.display().to_string(), journal_key, mark)
}

/// Verifies the journal in the PostgreSQL database at `url` (docs/journal.md, "On
/// PostgreSQL"), read in a read-only session that takes no writer's lock: it may run while the
/// controller serves, and checks the journal as far as it was committed when it read it.
pub fn verify_store(url: &str, journal_key: &JournalKey, mark: Option<&Path>) -> anyhow::Result<VerifyReport> {
    // The serving controller writes its mark after each commit: the mark is copied before the
    // database's snapshot is taken, so it never names an entry the snapshot cannot hold.
    let copy = tempfile::tempdir()?;
    let mark = match mark {
        Some(mark) if mark.exists() => {
            let copied = copy.path().join("acknowledged");
            std::fs::copy(mark, &copied).map_err(|error| anyhow::anyhow!("{}: could not be read: {error}", mark.display()))?;
            Some(copied)
        }
        other => other.map(Path::to_path_buf),
    };
    let mark = mark.as_deref();
    let store = crate::journal::postgres::PgStore::open_reader(url)?;
    let name = store.database().to_owned();
    verify_journal(&Journal::on(store), &name, journal_key, mark)
}

/// The checks of [`verify`] on an opened journal; `name` says where it is in messages.
fn verify_journal(journal: &Journal, name: &str, journal_key: &JournalKey, mark: Option<&Path>) -> anyhow::Result<VerifyReport> {
    let config = genesis_config(journal)?.ok_or_else(|| anyhow::anyhow!("{name}: the journal is empty"))?;
    let identity =
        journal.identity()?.ok_or_else(|| anyhow::anyhow!("{name}: the journal has no identity record: the data is damaged"))?;
    let sealer = Sealer::new(journal_key, &identity).map_err(anyhow::Error::msg)?;
    let mut state = State::new(Arc::new(config));
    let stored = journal.load_snapshot()?;
    let mut chain = "ok".to_owned();
    let mut snapshot = "none".to_owned();
    let mut conservation = "ok".to_owned();
    let mut tip = crate::journal::JournalTip { entries: 0, hash: identity.genesis_previous() };
    // Entry by entry, so that conservation is checked after every one of them.
    loop {
        let before = tip.entries;
        match replay_until(&mut state, journal, tip.entries, tip.hash, tip.entries + 1) {
            Ok(next) => tip = next,
            Err(error) => {
                chain = error.to_string();
                break;
            }
        }
        if tip.entries == before {
            break;
        }
        if let Some((pool, difference)) = state.conservation().into_iter().find(|(_, difference)| !difference.is_zero()) {
            conservation = format!("broken after entry {}: pool `{pool}` off by {difference}", tip.entries);
            break;
        }
        if let Some(stored) = &stored
            && stored.sequence == tip.entries
        {
            snapshot = if stored.snapshot != state.snapshot() {
                format!("differs from the replayed state at entry {}", stored.sequence)
            } else if stored.tip != hex::encode(tip.hash) {
                format!("records a tip hash that is not entry {}'s", stored.sequence)
            } else {
                "ok".to_owned()
            };
        }
    }
    if chain == "ok"
        && conservation == "ok"
        && let Err(problem) = check_tip(journal, &tip, &sealer)
    {
        chain = problem.to_string();
    }
    let acknowledged = match mark.map(|mark| (mark, crate::journal::mark::read(mark, &sealer))) {
        None => "none (a backup: no mark)".to_owned(),
        Some((mark, Ok(None))) => format!("none (no mark at {})", mark.display()),
        Some((_, Ok(Some(marked)))) if marked.sequence > tip.entries => {
            format!("missing: entry {} was acknowledged, the journal is good up to entry {}", marked.sequence, tip.entries)
        }
        Some((_, Ok(Some(marked)))) => match journal.entry(marked.sequence) {
            Ok(Some(entry)) if entry.hash == marked.hash => "ok".to_owned(),
            _ => format!("entry {} is not the entry acknowledged there", marked.sequence),
        },
        Some((_, Err(error))) => error.to_string(),
    };
    if let Some(stored) = &stored
        && stored.sequence > tip.entries
    {
        snapshot = format!("taken at entry {} but the journal ends at {}", stored.sequence, tip.entries);
    }
    let pools = state
        .pools()
        .map(|pool| {
            let m = pool.meters();
            let summary = PoolSummary {
                balance: plain_text(pool.balance()),
                reserve: plain_text(pool.reserve()),
                displayed: plain_text(pool.displayed()),
                contributions: plain_text(m.net_contributions()),
                replenishments: plain_text(m.replenishments),
                awards: plain_text(m.awards),
                awards_returned: plain_text(m.awards_returned),
                replenishments_withdrawn: plain_text(m.replenishments_withdrawn),
                hits: m.hits,
            };
            (pool.rules().id.clone(), summary)
        })
        .collect();
    Ok(VerifyReport {
        entries: tip.entries,
        last_good_entry: tip.entries,
        tip: hex::encode(tip.hash),
        chain,
        acknowledged,
        conservation,
        snapshot,
        pools,
    })
}

/// [`verify`] with the journal key of `config` and the mark beside the data directory.
pub fn verify_data(directory: &Path, config: &crate::config::Config) -> anyhow::Result<VerifyReport> {
    let journal_key = config.journal_key.as_ref().ok_or_else(|| anyhow::anyhow!("the configuration has no journal key"))?;
    verify(directory, journal_key, Some(&crate::journal::mark::default_path(directory)))
}
