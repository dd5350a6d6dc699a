//! `pozo-server verify`: replays the whole journal from zero under the
//! configuration its genesis entry recorded, checks the hash chain and its seal
//! under the journal key, the conservation of every pool after every entry, that
//! the stored snapshot is exactly the state replay reaches at its entry, and that
//! every entry the controller acknowledged (crate::journal::mark) is there.
//!
//! It never writes into the data directory: sled recovers (and may truncate) a log
//! when it opens one, so verify copies the directory to a temporary one and opens
//! the copy.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use pozo_engine::PoolId;
use serde::{Serialize, Serializer};

use crate::config::JournalKey;
use crate::journal::Sealer;
use crate::journal::recovery::{apply_entry, check_tip, genesis_config};
use crate::journal::{Identity, Journal, StoredSnapshot};
use pozo_core::state::{Command, State};
use pozo_engine::money::plain_text;

#[derive(Debug, Serialize)]
pub struct VerifyReport {
    pub entries: u64,
    /// The last entry that replays with an unbroken chain.
    pub last_good_entry: u64,
    pub tip: String,
    pub chain: Check,
    pub acknowledged: MarkCheck,
    pub conservation: Check,
    pub snapshot: SnapshotCheck,
    /// The mystery levels' draws (docs/journal.md, "draw" and "reveal"): how many commitments
    /// and reveals the journal holds, every one checked as `pozo-verifier` checks them.
    pub draws: DrawsCheck,
    pub pools: BTreeMap<PoolId, PoolSummary>,
    /// A journal opened from a closing statement: its predecessor and the statement's checks
    /// (`crate::tools::close`); absent for any other journal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opened_from: Option<OpenedFrom>,
    /// A journal `pozo-server close` closed: where, by which statement, and its mark's check.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closed: Option<Closed>,
    /// Every build that wrote to the journal, in the order it first started: the entry of its
    /// first start, of its last, how many starts, its version and the SHA-256 of its executable
    /// (docs/operations.md §8, "Upgrades"); empty for an older release's.
    pub builds: Vec<BuildLine>,
    /// The configuration in force at the journal's end (its hash), and every change put in
    /// force by an approved proposal: id, entry, what it changed, who proposed and approved.
    pub config_hash: String,
    pub changes: Vec<ChangeLine>,
}

/// A build that wrote to the journal: every start journals one entry.
#[derive(Debug, Serialize)]
pub struct BuildLine {
    /// The entry of its first start.
    pub entry: u64,
    /// The entry of its last start.
    pub last_entry: u64,
    pub starts: u64,
    pub version: String,
    pub sha256: String,
}

/// The journal's starts, one line per build in the order it first started.
fn build_lines(records: &[pozo_core::state::BuildRecord]) -> Vec<BuildLine> {
    let mut lines: Vec<BuildLine> = Vec::new();
    for record in records {
        match lines.iter_mut().find(|line| line.version == record.build.version && line.sha256 == record.build.sha256) {
            Some(line) => {
                line.last_entry = record.sequence;
                line.starts += 1;
            }
            None => lines.push(BuildLine {
                entry: record.sequence,
                last_entry: record.sequence,
                starts: 1,
                version: record.build.version.clone(),
                sha256: record.build.sha256.clone(),
            }),
        }
    }
    lines
}

/// A change or money movement in force.
#[derive(Debug, Serialize)]
pub struct ChangeLine {
    pub proposal_id: String,
    pub entry: u64,
    pub summary: String,
    pub proposed_by: String,
    pub approved_by: String,
    pub reason: String,
    pub authorisation: String,
}

/// What `verify` says of the closing statement a journal was opened from (docs/journal.md).
#[derive(Debug, Serialize)]
pub struct OpenedFrom {
    /// The predecessor's journal id, entries and tip hash, as the statement gives them.
    pub journal_id: String,
    pub entries: u64,
    pub tip: String,
    pub closed_ms: u64,
    /// SHA-256 of the statement's canonical bytes: what the predecessor's closed mark names.
    pub statement_sha256: String,
    /// Its seal under the journal key, its files and its books against its snapshot.
    pub statement: Check,
    /// Given the predecessor's data directory (`--predecessor`): that the statement is exactly
    /// that journal's end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predecessor: Option<Check>,
}

/// What `verify` says of a journal `pozo-server close` closed (its `pozo.closed`).
#[derive(Debug, Serialize)]
pub struct Closed {
    pub entries: u64,
    pub closed_ms: u64,
    pub statement_sha256: String,
    /// The mark's seal, and that the journal ends where it was closed: not served on after.
    pub check: Check,
}

/// A check that has something to check every time: the chain and its seal, the books.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// Written "ok".
    Ok,
    /// What is wrong, as the operator reads it (docs/operations.md §6).
    Failed(String),
}

/// The stored snapshot against the replayed state: a journal may have none yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SnapshotCheck {
    /// Written "ok".
    Ok,
    /// No snapshot stored: written "none".
    NoSnapshot,
    /// What is wrong with the snapshot.
    Failed(String),
}

/// The draws of the mystery levels, as the replay checked them (`pozo_verifier::draws`): written
/// "sorteos: 3 compromisos, 2 revelados, todos conformes", or "NO CONFORME: asiento 57: sorteo:
/// …" naming the first entry that breaks a rule of the draws, and the rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrawsCheck {
    pub committed: u64,
    pub revealed: u64,
    /// The first entry that breaks a rule of the draws, and what it breaks (in Spanish).
    pub problem: Option<(u64, String)>,
}

impl DrawsCheck {
    pub fn passed(&self) -> bool {
        self.problem.is_none()
    }

    /// As the report writes it.
    fn text(&self) -> Cow<'_, str> {
        match &self.problem {
            None => format!("sorteos: {}", pozo_verifier::draws::summary(self.committed, self.revealed)).into(),
            Some((entry, problem)) => {
                format!("NO CONFORME: asiento {}: sorteo: {problem}", pozo_verifier::entries(*entry)).into()
            }
        }
    }
}

/// The acknowledgement mark against the journal: a backup has no mark of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MarkCheck {
    /// The acknowledged entry is there with the hash the mark recorded: written "ok".
    Ok,
    /// No mark to check against: none was given ("none (a backup: no mark)") or there is no
    /// file at `at` ("none (no mark at PATH)").
    NoMark { at: Option<PathBuf> },
    /// What is missing or wrong.
    Failed(String),
}

impl Check {
    pub fn passed(&self) -> bool {
        matches!(self, Check::Ok)
    }
}

impl SnapshotCheck {
    /// No snapshot is not a failure: the controller has not taken one yet.
    pub fn passed(&self) -> bool {
        matches!(self, SnapshotCheck::Ok | SnapshotCheck::NoSnapshot)
    }
}

impl MarkCheck {
    /// No mark is not a failure: a backup is checked on its own.
    pub fn passed(&self) -> bool {
        matches!(self, MarkCheck::Ok | MarkCheck::NoMark { .. })
    }
}

impl Check {
    /// As the report writes it.
    fn text(&self) -> Cow<'_, str> {
        match self {
            Check::Ok => "ok".into(),
            Check::Failed(problem) => problem.into(),
        }
    }
}

impl SnapshotCheck {
    /// As the report writes it.
    fn text(&self) -> Cow<'_, str> {
        match self {
            SnapshotCheck::Ok => "ok".into(),
            SnapshotCheck::NoSnapshot => "none".into(),
            SnapshotCheck::Failed(problem) => problem.into(),
        }
    }
}

impl MarkCheck {
    /// As the report writes it.
    fn text(&self) -> Cow<'_, str> {
        match self {
            MarkCheck::Ok => "ok".into(),
            MarkCheck::NoMark { at: None } => "none (a backup: no mark)".into(),
            MarkCheck::NoMark { at: Some(path) } => format!("none (no mark at {})", path.display()).into(),
            MarkCheck::Failed(problem) => problem.into(),
        }
    }
}

/// Each check is shown and written in the report as its text ("ok", "none", or what is wrong), the JSON
/// that docs/operations.md §6 documents and scripts read; and compares equal to that text, so a
/// test says `report.snapshot == "ok"` as the JSON does.
macro_rules! as_text {
    ($($check:ty),*) => {$(
        impl fmt::Display for $check {
            fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str(&self.text())
            }
        }

        impl Serialize for $check {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&self.text())
            }
        }

        impl PartialEq<&str> for $check {
            fn eq(&self, text: &&str) -> bool {
                self.text() == *text
            }
        }
    )*};
}

as_text!(Check, SnapshotCheck, MarkCheck, DrawsCheck);

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
    /// Money moved by approved procedure (docs/operations.md §8).
    pub transfers_in: String,
    pub transfers_out: String,
    pub adjustments_up: String,
    pub adjustments_down: String,
    pub retired: bool,
    /// A pool with levels: each level, first level first, with the same figures over its own
    /// meters (docs/readings.md, "Levels"); absent for a pool of one level.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub levels: Vec<LevelSummary>,
}

/// One level of a pool with levels, as `verify` reports it.
#[derive(Debug, Serialize)]
pub struct LevelSummary {
    pub name: String,
    pub balance: String,
    pub reserve: String,
    pub displayed: String,
    pub contributions: String,
    pub replenishments: String,
    pub awards: String,
    pub awards_returned: String,
    pub replenishments_withdrawn: String,
    pub hits: u64,
    /// The level the house pays envy bonuses and fixed prizes from, with its own money.
    pub house: bool,
}

impl VerifyReport {
    pub fn ok(&self) -> bool {
        let opened = self
            .opened_from
            .as_ref()
            .is_none_or(|opened| opened.statement.passed() && opened.predecessor.as_ref().is_none_or(Check::passed));
        let closed = self.closed.as_ref().is_none_or(|closed| closed.check.passed());
        self.chain.passed()
            && self.conservation.passed()
            && self.draws.passed()
            && self.snapshot.passed()
            && self.acknowledged.passed()
            && opened
            && closed
    }
}

/// A journal replayed from entry 1 by `verify`: the report, and what the replay reached.
pub(crate) struct Replayed {
    pub(crate) report: VerifyReport,
    /// The state after the last good entry.
    pub(crate) state: State,
    pub(crate) identity: Identity,
    /// The sealed closing statement its genesis entry carries, when it was opened from one.
    pub(crate) opened_from: Option<serde_json::Value>,
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
    replay(directory, journal_key, mark).map(|replayed| replayed.report)
}

/// [`verify`], keeping the state the replay reached: what `close` seals.
pub(crate) fn replay(directory: &Path, journal_key: &JournalKey, mark: Option<&Path>) -> anyhow::Result<Replayed> {
    let (_copy, journal) = open_copy(directory)?;
    verify_journal(&journal, &directory.display().to_string(), journal_key, mark)
}

/// The journal of a copy of `directory`, and the temporary directory holding the copy (kept
/// while the journal is read). Read-only: sled may truncate a damaged log when it opens it; the
/// copy takes that, never the original.
pub(crate) fn open_copy(directory: &Path) -> anyhow::Result<(tempfile::TempDir, Journal)> {
    if !directory.is_dir() {
        anyhow::bail!("{}: no such data directory", directory.display());
    }
    let copy = tempfile::tempdir()?;
    copy_tree(directory, copy.path()).map_err(|error| anyhow::anyhow!("{}: could not be read: {error}", directory.display()))?;
    let journal = {
        let copy = copy.path().to_path_buf();
        std::thread::spawn(move || Journal::open(&copy)).join().map_err(|_| {
            anyhow::anyhow!("{}: the journal could not be opened (sled failed on it): it is damaged", directory.display())
        })??
    };
    Ok((copy, journal))
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
    verify_journal(&Journal::on(store), &name, journal_key, mark).map(|replayed| replayed.report)
}

/// The checks of [`verify`] on an opened journal; `name` says where it is in messages.
fn verify_journal(journal: &Journal, name: &str, journal_key: &JournalKey, mark: Option<&Path>) -> anyhow::Result<Replayed> {
    let config = genesis_config(journal)?.ok_or_else(|| anyhow::anyhow!("{name}: the journal is empty"))?;
    let identity =
        journal.identity()?.ok_or_else(|| anyhow::anyhow!("{name}: the journal has no identity record: the data is damaged"))?;
    let sealer = Sealer::new(journal_key, &identity).map_err(anyhow::Error::msg)?;
    let mut state = State::new(Arc::new(config));
    let stored = journal.load_snapshot()?;
    let Walked { tip, mut chain, conservation, mut snapshot, draws } = walk(journal, &mut state, &identity, stored.as_ref());
    if chain.passed()
        && conservation.passed()
        && let Err(problem) = check_tip(journal, &tip, &sealer)
    {
        chain = Check::Failed(problem.to_string());
    }
    let acknowledged = check_mark(journal, mark, &sealer, &tip);
    if let Some(stored) = &stored
        && stored.sequence > tip.entries
    {
        snapshot = SnapshotCheck::Failed(format!("taken at entry {} but the journal ends at {}", stored.sequence, tip.entries));
    }
    let report = VerifyReport {
        entries: tip.entries,
        last_good_entry: tip.entries,
        tip: hex::encode(tip.hash),
        chain,
        acknowledged,
        conservation,
        snapshot,
        draws,
        pools: pool_summaries(&state),
        opened_from: None,
        closed: None,
        builds: build_lines(&state.data().builds),
        config_hash: state.config().hash.clone(),
        changes: state
            .data()
            .proposals
            .values()
            .filter(|proposal| proposal.effective_sequence > 0)
            .map(|proposal| ChangeLine {
                proposal_id: proposal.proposal_id.clone(),
                entry: proposal.effective_sequence,
                summary: proposal.summary(),
                proposed_by: proposal.proposed_by.name.clone(),
                approved_by: proposal.approved_by.as_ref().map(|person| person.name.clone()).unwrap_or_default(),
                reason: proposal.reason.clone(),
                authorisation: proposal.authorisation.clone(),
            })
            .collect(),
    };
    let opened_from = match journal.entry(1)?.map(|entry| entry.record.command) {
        Some(Command::Genesis { opened_from, .. }) => opened_from.map(|statement| *statement),
        _ => None,
    };
    Ok(Replayed { report, state, identity, opened_from })
}

/// Where the replay of [`walk`] stopped, and what it found on the way.
struct Walked {
    tip: crate::journal::JournalTip,
    chain: Check,
    conservation: Check,
    snapshot: SnapshotCheck,
    draws: DrawsCheck,
}

/// Replays the journal onto `state` entry by entry from the first, checking the chain, the
/// conservation of every pool after every entry, and the `stored` snapshot at its entry.
fn walk(journal: &Journal, state: &mut State, identity: &Identity, stored: Option<&StoredSnapshot>) -> Walked {
    let mut chain = Check::Ok;
    let mut snapshot = SnapshotCheck::NoSnapshot;
    let mut conservation = Check::Ok;
    let mut tip = crate::journal::JournalTip { entries: 0, hash: identity.genesis_previous() };
    let mut draws = pozo_verifier::draws::Draws::new();
    let mut draw_problem = None;
    // What a planted bug waits for (`planted-bugs` only; nothing otherwise), as recovery's replay.
    pozo_core::planted::replaying(true);
    let _replaying = Replaying;
    let mut entries = journal.read_after(0);
    // Entry by entry, so that conservation is checked after every one of them.
    loop {
        let entry = match entries.next() {
            None => break,
            Some(Err(error)) => {
                chain = Check::Failed(crate::journal::recovery::RecoveryError::from(error).to_string());
                break;
            }
            Some(Ok(entry)) => entry,
        };
        let sequence = entry.record.sequence;
        let command = &entry.record.command;
        // The mystery levels' draws, each rule checked before the entry is applied (the core
        // refuses most of what breaks them too): the first that breaks one is named.
        if draw_problem.is_none()
            && let Err(problem) = draws.before(state, sequence, command)
        {
            draw_problem = Some((sequence, problem));
        }
        let cycles = pozo_verifier::draws::Draws::wants_before(command).then(|| state.mysteries().to_vec());
        if let Err(error) = apply_entry(state, &tip, &entry) {
            chain = Check::Failed(error.to_string());
            break;
        }
        draws.after(cycles.as_deref(), state, sequence, command);
        tip = crate::journal::JournalTip { entries: sequence, hash: entry.hash };
        if let Some((pool, difference)) = state.conservation().into_iter().find(|(_, difference)| !difference.is_zero()) {
            conservation = Check::Failed(format!("broken after entry {}: pool `{pool}` off by {difference}", tip.entries));
            break;
        }
        if let Some((pool, level, difference)) = level_conservation(state) {
            conservation =
                Check::Failed(format!("broken after entry {}: pool `{pool}` level `{level}` off by {difference}", tip.entries));
            break;
        }
        if let Some(stored) = stored
            && stored.sequence == tip.entries
        {
            let mut replayed = state.snapshot();
            // A snapshot an older release stored lacks what it did not keep: compared without it.
            replayed.as_its_release_kept(&stored.snapshot);
            snapshot = if stored.snapshot != replayed {
                SnapshotCheck::Failed(format!("differs from the replayed state at entry {}", stored.sequence))
            } else if stored.tip != hex::encode(tip.hash) {
                SnapshotCheck::Failed(format!("records a tip hash that is not entry {}'s", stored.sequence))
            } else {
                SnapshotCheck::Ok
            };
        }
    }
    let draws = DrawsCheck { committed: draws.committed, revealed: draws.revealed, problem: draw_problem };
    Walked { tip, chain, conservation, snapshot, draws }
}

/// The end of a replay, however it ends (see `pozo_core::planted`).
struct Replaying;

impl Drop for Replaying {
    fn drop(&mut self) {
        pozo_core::planted::replaying(false);
    }
}

/// The first level of a pool with levels that does not conserve on its own, and by how much:
/// every level does (docs/readings.md, "Levels"), and a pool's sum would hide one level's money
/// made by another's lost.
fn level_conservation(state: &State) -> Option<(PoolId, String, pozo_engine::Money)> {
    state.pools().filter(|pool| pool.rules().levels.len() > 1).find_map(|pool| {
        pool.levels().into_iter().find_map(|level| {
            let difference = pozo_verifier::conservation_difference(level.balance, level.reserve, &level.meters);
            (!difference.is_zero()).then(|| (pool.rules().id.clone(), level.name.unwrap_or_default(), difference))
        })
    })
}

/// What the acknowledgement mark says against the journal good up to `tip`: every
/// acknowledged entry must be there, with the hash acknowledged.
fn check_mark(journal: &Journal, mark: Option<&Path>, sealer: &Sealer, tip: &crate::journal::JournalTip) -> MarkCheck {
    match mark.map(|mark| (mark, crate::journal::mark::read(mark, sealer))) {
        None => MarkCheck::NoMark { at: None },
        Some((mark, Ok(None))) => MarkCheck::NoMark { at: Some(mark.to_path_buf()) },
        Some((_, Ok(Some(marked)))) if marked.sequence > tip.entries => MarkCheck::Failed(format!(
            "missing: entry {} was acknowledged, the journal is good up to entry {}",
            marked.sequence, tip.entries
        )),
        Some((_, Ok(Some(marked)))) => match journal.entry(marked.sequence) {
            Ok(Some(entry)) if entry.hash == marked.hash => MarkCheck::Ok,
            _ => MarkCheck::Failed(format!("entry {} is not the entry acknowledged there", marked.sequence)),
        },
        Some((_, Err(error))) => MarkCheck::Failed(error.to_string()),
    }
}

/// Every pool's balance, reserve, sign and meters after the replay, as the report gives them.
fn pool_summaries(state: &State) -> BTreeMap<PoolId, PoolSummary> {
    state
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
                transfers_in: plain_text(m.transfers_in),
                transfers_out: plain_text(m.transfers_out),
                adjustments_up: plain_text(m.adjustments_up),
                adjustments_down: plain_text(m.adjustments_down),
                retired: pool.is_retired(),
                levels: match pool.rules().levels.len() > 1 {
                    true => pool.levels().into_iter().map(level_summary).collect(),
                    false => Vec::new(),
                },
            };
            (pool.rules().id.clone(), summary)
        })
        .collect()
}

/// One level as the report gives it.
fn level_summary(level: pozo_engine::LevelView) -> LevelSummary {
    let m = &level.meters;
    LevelSummary {
        name: level.name.clone().unwrap_or_default(),
        balance: plain_text(level.balance),
        reserve: plain_text(level.reserve),
        displayed: plain_text(level.displayed),
        contributions: plain_text(m.net_contributions()),
        replenishments: plain_text(m.replenishments),
        awards: plain_text(m.awards),
        awards_returned: plain_text(m.awards_returned),
        replenishments_withdrawn: plain_text(m.replenishments_withdrawn),
        hits: m.hits,
        house: level.house,
    }
}

/// [`verify`] with the journal key of `config` and the mark beside the data directory.
pub fn verify_data(directory: &Path, config: &crate::config::Config) -> anyhow::Result<VerifyReport> {
    let journal_key = config.journal_key.as_ref().ok_or_else(|| anyhow::anyhow!("the configuration has no journal key"))?;
    verify(directory, journal_key, Some(&crate::journal::mark::default_path(directory)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(check: impl Serialize) -> String {
        serde_json::to_value(check).expect("serializes").as_str().expect("a string").to_owned()
    }

    #[test]
    fn each_check_is_written_as_the_text_docs_operations_md_documents() {
        let failed = "journal entry 3: not sealed with this journal key";
        assert_eq!((written(Check::Ok), written(Check::Failed(failed.into()))), ("ok".into(), failed.into()));
        assert_eq!((written(SnapshotCheck::Ok), written(SnapshotCheck::NoSnapshot)), ("ok".into(), "none".into()));
        assert_eq!(written(MarkCheck::Ok), "ok");
        assert_eq!(written(MarkCheck::NoMark { at: None }), "none (a backup: no mark)");
        let at = Some(PathBuf::from("/tmp/pozo.acknowledged"));
        assert_eq!(written(MarkCheck::NoMark { at }), "none (no mark at /tmp/pozo.acknowledged)");
        assert_eq!(written(MarkCheck::Failed(failed.into())), failed);
        assert!(SnapshotCheck::NoSnapshot.passed() && MarkCheck::NoMark { at: None }.passed());
        assert!(!Check::Failed(failed.into()).passed() && !SnapshotCheck::Failed(failed.into()).passed());
    }

    /// A damaged mark fails verify whatever its path: the string report passed any text
    /// starting with "none", so a mark at `none.acknowledged` (`--data none`) whose seal was
    /// broken counted as no mark at all.
    #[test]
    fn a_damaged_mark_fails_even_when_its_path_begins_with_none() {
        let damaged = MarkCheck::Failed("none.acknowledged: no slot carries a valid seal".into());
        assert!(written(&damaged).starts_with("none"));
        assert!(!damaged.passed());
        assert!(MarkCheck::NoMark { at: Some(PathBuf::from("none.acknowledged")) }.passed());
    }
}
