//! Carrying the books to a new journal (docs/journal.md, "Closing a journal").
//!
//! `pozo-server close` replays a stopped controller's journal from its first entry, as `verify`
//! does, and, when it verifies, writes a **closing statement**: the predecessor (journal id,
//! entries, tip hash), the closing time, the configuration's files in force, the books an
//! auditor reads (every pool's balances, meters and retirement, the payout orders pending, the
//! credits and grillos held at each seat, what is in custody, the tables open) and the whole
//! state snapshot the new journal continues from. It is sealed with HMAC-SHA256 under the
//! journal key over its canonical bytes (the statement serialized compactly, in its fields'
//! order), in a context of its own. The files in force are written beside it
//! (`STATEMENT.files/`), and the data directory gets `pozo.closed` (sealed too): the controller
//! never serves a closed journal again.
//!
//! `serve --open-from` checks a statement (seal, files, books against the snapshot, the
//! configuration given is its files in force) and begins a new journal in an empty data
//! directory whose genesis entry carries the sealed statement whole; the state starts from its
//! snapshot. `verify` checks the statement a journal was opened from and, given the
//! predecessor's data directory, that the statement is exactly that journal's end.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hmac::{Hmac, KeyInit, Mac};
use pozo_engine::{PoolId, PoolState, TableId};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::verify::{Check, Closed, OpenedFrom, Replayed, VerifyReport, replay};
use crate::config::{Config, JournalKey};
use crate::writer::CLOSED_FILE;
use pozo_core::state::liability::{SeatCredits, SeatGrillos};
use pozo_core::state::{Custody, PayoutOrder, Phase, Snapshot, State};

/// What a closing statement says it is.
pub const FORMAT: &str = "pozo.v1 closing statement";

/// The seal's context: a statement's seal is no other seal of the journal key.
const STATEMENT_CONTEXT: &[u8] = b"pozo.v1.statement\0";

/// The closed mark's context.
const CLOSED_CONTEXT: &[u8] = b"pozo.v1.closed\0";

/// The largest statement file read (a year of reports and orders is a few MiB).
const STATEMENT_BYTES_MAX: u64 = 256 * 1024 * 1024;

/// A closing statement and its seal: the statement file, and what a new journal's genesis
/// entry carries (`opened_from`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sealed {
    pub statement: Statement,
    /// HMAC-SHA256 (hex) under the journal key of `"pozo.v1.statement" 0 ‖ the statement's
    /// canonical bytes`.
    pub seal: String,
}

/// The books of a journal at its end, for the auditor and for the journal that continues them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Statement {
    /// [`FORMAT`].
    pub format: String,
    pub predecessor: Predecessor,
    /// When it was closed, Unix milliseconds, and the same in UTC (RFC 3339).
    pub closed_ms: u64,
    pub closed_at: String,
    /// The configuration in force: its hash and its files, `[[name, text], …]`, layout first.
    pub config_hash: String,
    pub files: Vec<(String, String)>,
    /// What an auditor reads: all of it is what `snapshot` holds, checked to agree.
    pub books: Books,
    /// The whole state after the predecessor's last entry.
    pub snapshot: Snapshot,
}

/// The journal a statement closed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Predecessor {
    pub journal_id: String,
    pub entries: u64,
    /// The SHA-256 of its last entry, hex.
    pub tip: String,
}

/// The books at the close, by what they owe.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Books {
    /// Every pool: balance, reserve, meters, retired.
    pub pools: BTreeMap<PoolId, PoolState>,
    pub pending_orders: Vec<PayoutOrder>,
    /// Credits held per table and seat, with what they are worth (the pool's side bet each).
    pub credits: Vec<SeatCredits>,
    pub grillos: Vec<SeatGrillos>,
    /// What the bank holds in custody, not released.
    pub custody: Vec<Custody>,
    /// The tables open at the close: their round goes on in the new journal.
    pub open_tables: Vec<OpenTable>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenTable {
    pub table_id: TableId,
    pub round: u64,
    pub phase: Phase,
}

impl Books {
    /// The books of `state`: what its snapshot holds, as the auditor reads it. The orders,
    /// seats and custody are the liability statement's (`pozo_core::state::liability`).
    pub fn of(state: &State) -> Books {
        let liability = state.liability();
        let open_tables = state
            .data()
            .tables
            .values()
            .filter(|table| table.open)
            .map(|table| OpenTable { table_id: table.id.clone(), round: table.round, phase: table.phase })
            .collect();
        Books {
            pools: state.pools().map(|pool| (pool.rules().id.clone(), pool.state())).collect(),
            pending_orders: liability.pending_orders,
            credits: liability.credits,
            grillos: liability.grillos,
            custody: liability.custody,
            open_tables,
        }
    }

    /// The first part of the books `other` has otherwise, by its field's name.
    fn difference(&self, other: &Books) -> Option<&'static str> {
        [
            ("pools", self.pools == other.pools),
            ("pending_orders", self.pending_orders == other.pending_orders),
            ("credits", self.credits == other.credits),
            ("grillos", self.grillos == other.grillos),
            ("custody", self.custody == other.custody),
            ("open_tables", self.open_tables == other.open_tables),
        ]
        .into_iter()
        .find_map(|(field, same)| (!same).then_some(field))
    }
}

impl Statement {
    /// The bytes the seal covers: the statement serialized compactly, fields in their order.
    pub fn canonical(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("statements serialize")
    }

    /// SHA-256 of the canonical bytes, hex: the statement's name, which needs no key.
    pub fn sha256(&self) -> String {
        hex::encode(Sha256::digest(self.canonical()))
    }
}

/// The HMAC-SHA256 under the journal key of `context ‖ body`, not yet finalized.
fn mac(key: &JournalKey, context: &[u8], body: &[u8]) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(&key.0).expect("HMAC takes any key length");
    mac.update(context);
    mac.update(body);
    mac
}

/// True when `seal_hex` is the journal key's seal of `body` in `context` (constant time).
fn sealed_by(key: &JournalKey, context: &[u8], body: &[u8], seal_hex: &str) -> bool {
    let Ok(seal) = hex::decode(seal_hex) else { return false };
    mac(key, context, body).verify_slice(&seal).is_ok()
}

/// `closed_ms` in UTC, RFC 3339.
fn closed_at(closed_ms: u64) -> String {
    i64::try_from(closed_ms)
        .ok()
        .and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok())
        .map(|at| at.to_string())
        .unwrap_or_default()
}

impl Sealed {
    /// The statement of the journal `replayed` reached, closed at `closed_ms`, sealed.
    fn of(replayed: &Replayed, closed_ms: u64, key: &JournalKey) -> Sealed {
        let state = &replayed.state;
        let statement = Statement {
            format: FORMAT.to_owned(),
            predecessor: Predecessor {
                journal_id: replayed.identity.journal_id(),
                entries: replayed.report.entries,
                tip: replayed.report.tip.clone(),
            },
            closed_ms,
            closed_at: closed_at(closed_ms),
            config_hash: state.config().hash.clone(),
            files: state.config().texts.clone(),
            books: Books::of(state),
            snapshot: state.snapshot(),
        };
        let seal = hex::encode(mac(key, STATEMENT_CONTEXT, &statement.canonical()).finalize().into_bytes());
        Sealed { statement, seal }
    }

    /// Checks the seal under `key`, then that the statement holds together: its files are its
    /// configuration, its snapshot was taken under it at the predecessor's end, and its books
    /// are what the snapshot holds. What is wrong names the field.
    pub fn check(&self, key: &JournalKey) -> Result<(), String> {
        let statement = &self.statement;
        if !sealed_by(key, STATEMENT_CONTEXT, &statement.canonical(), &self.seal) {
            return Err("seal: not the journal key's seal of this statement: it was changed after `pozo-server close` \
                        sealed it, or the keys given do not hold the predecessor's journal key (a journal opened from \
                        a statement keeps its predecessor's journal key)"
                .to_owned());
        }
        if statement.format != FORMAT {
            return Err(format!("format: `{}`, not `{FORMAT}`", statement.format));
        }
        let config = Config::from_texts(statement.files.clone()).map_err(|error| format!("files: {error}"))?;
        let snapshot = &statement.snapshot;
        if config.hash != statement.config_hash || snapshot.config_hash != statement.config_hash {
            return Err(format!(
                "config_hash: {} is not the hash of its files ({}) and of its snapshot's configuration ({})",
                statement.config_hash, config.hash, snapshot.config_hash
            ));
        }
        if snapshot.data.journal_sequence != statement.predecessor.entries {
            return Err(format!(
                "snapshot: taken after entry {}, not at the predecessor's end (entry {})",
                snapshot.data.journal_sequence, statement.predecessor.entries
            ));
        }
        if statement.closed_at != closed_at(statement.closed_ms) {
            return Err(format!("closed_at: `{}` is not closed_ms {} in UTC", statement.closed_at, statement.closed_ms));
        }
        let state = State::restore(Arc::new(config), snapshot.clone()).map_err(|problem| format!("snapshot: {problem}"))?;
        match Books::of(&state).difference(&statement.books) {
            Some(field) => Err(format!("books.{field}: not what the statement's snapshot holds")),
            None => Ok(()),
        }
    }
}

/// Reads a statement file.
pub fn read_statement(path: &Path) -> anyhow::Result<Sealed> {
    use std::io::Read as _;
    let file = std::fs::File::open(path).map_err(|error| anyhow::anyhow!("{}: cannot read: {error}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(STATEMENT_BYTES_MAX + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| anyhow::anyhow!("{}: cannot read: {error}", path.display()))?;
    anyhow::ensure!(bytes.len() as u64 <= STATEMENT_BYTES_MAX, "{}: over {STATEMENT_BYTES_MAX} bytes", path.display());
    serde_json::from_slice(&bytes).map_err(|error| anyhow::anyhow!("{}: not a closing statement: {error}", path.display()))
}

/// Where `close` writes the files in force: `STATEMENT.files/` beside the statement.
pub fn files_directory(statement: &Path) -> PathBuf {
    statement.with_extension("files")
}

/// The name each file in force is written under in [`files_directory`]: its own file name,
/// numbered in front when two share one.
fn file_names(files: &[(String, String)]) -> Vec<String> {
    let base = |name: &str| Path::new(name).file_name().map(|base| base.to_string_lossy().into_owned()).unwrap_or_default();
    let bases: Vec<String> = files.iter().map(|(name, _)| base(name)).collect();
    bases
        .iter()
        .enumerate()
        .map(|(index, name)| {
            let shared = name.is_empty() || bases.iter().filter(|other| *other == name).count() > 1;
            if shared { format!("{index}-{}", if name.is_empty() { "file.toml" } else { name }) } else { name.clone() }
        })
        .collect()
}

/// The `serve` flags that give the files in force as `close` wrote them: the layout first.
pub fn serve_flags(directory: &Path, files: &[(String, String)]) -> Vec<String> {
    file_names(files)
        .into_iter()
        .enumerate()
        .flat_map(|(index, name)| {
            let flag = if index == 0 { "--config" } else { "--rulebook" };
            [flag.to_owned(), directory.join(name).display().to_string()]
        })
        .collect()
}

/// A running controller holds the data directory: `close` closes a stopped one's journal only.
#[derive(Debug, thiserror::Error)]
#[error(
    "--data {0}: a running controller holds it (it keeps pozo.lock locked while it runs): `close` closes the journal \
     of a stopped controller; stop it first (docs/operations.md §3)"
)]
pub struct Running(pub String);

/// What `close` did.
#[derive(Debug, Serialize)]
pub struct ClosedJournal {
    pub journal_id: String,
    pub entries: u64,
    pub tip: String,
    pub closed_ms: u64,
    pub statement: String,
    pub statement_sha256: String,
    /// Where the files in force were written, and the `serve` flags that name them.
    pub files: String,
    pub serve_flags: Vec<String>,
    /// The journal was closed before: the same statement written again.
    pub reissued: bool,
}

/// The closed mark's content (`pozo.closed`, in the data directory), sealed like a statement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct ClosedMark {
    journal_id: String,
    entries: u64,
    tip: String,
    closed_ms: u64,
    statement_sha256: String,
}

/// `pozo.closed` as written: the mark and its seal.
#[derive(Serialize, Deserialize)]
struct ClosedFile {
    closed: ClosedMark,
    seal: String,
}

/// Reads the closed mark of `data`, if there is one; its seal must be the journal key's.
fn read_closed_mark(data: &Path, key: &JournalKey) -> anyhow::Result<Option<ClosedMark>> {
    let path = data.join(CLOSED_FILE);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => anyhow::bail!("{}: cannot read: {error}", path.display()),
    };
    let file: ClosedFile =
        serde_json::from_slice(&bytes).map_err(|error| anyhow::anyhow!("{}: not a closed mark: {error}", path.display()))?;
    let body = serde_json::to_vec(&file.closed).expect("marks serialize");
    anyhow::ensure!(
        sealed_by(key, CLOSED_CONTEXT, &body, &file.seal),
        "{}: seal: not sealed with this journal key: it was written or changed without it, or the keys given are not \
         this journal's",
        path.display()
    );
    Ok(Some(file.closed))
}

/// Writes `bytes` to `path` through a file beside it renamed over it, synced: a crash leaves
/// the old content or the new, whole.
fn write_synced(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use std::io::Write as _;
    let partial = path.with_extension("partial");
    let write = || -> std::io::Result<()> {
        let mut file = std::fs::File::create(&partial)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&partial, path)
    };
    write().map_err(|error| anyhow::anyhow!("{}: cannot write: {error}", path.display()))?;
    crate::journal::mark::sync_directory_of(path)?;
    Ok(())
}

fn write_closed_mark(data: &Path, key: &JournalKey, mark: ClosedMark) -> anyhow::Result<()> {
    let body = serde_json::to_vec(&mark).expect("marks serialize");
    let seal = hex::encode(mac(key, CLOSED_CONTEXT, &body).finalize().into_bytes());
    let text = serde_json::to_vec_pretty(&ClosedFile { closed: mark, seal }).expect("marks serialize");
    write_synced(&data.join(CLOSED_FILE), &text)
}

/// Refuses an `--out` that exists, or whose files' directory does: a statement is never overwritten.
fn check_out(out: &Path) -> anyhow::Result<()> {
    for path in [out.to_path_buf(), files_directory(out)] {
        anyhow::ensure!(
            !path.exists(),
            "--out {}: {} exists: a statement is never written over; choose another --out",
            out.display(),
            path.display()
        );
    }
    Ok(())
}

/// Holds the data directory's lock for as long as the file lives: a controller cannot start on
/// it meanwhile, and one running refuses `close`.
fn lock(data: &Path) -> anyhow::Result<std::fs::File> {
    anyhow::ensure!(data.is_dir(), "--data {}: no such data directory", data.display());
    let path = data.join(crate::journal::store::LOCK_FILE);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(Running(data.display().to_string()).into()),
        Err(std::fs::TryLockError::Error(error)) => Err(anyhow::anyhow!("{}: {error}", path.display())),
    }
}

/// Closes the journal of the stopped controller in `data`: replayed and verified with its mark,
/// its statement written to `out` (and its files in force beside it), and the directory marked
/// closed. A journal already closed gets the same statement again, at the time it was closed.
pub fn close(data: &Path, key: &JournalKey, mark: &Path, out: &Path, now_ms: u64) -> anyhow::Result<ClosedJournal> {
    check_out(out)?;
    let _lock = lock(data)?;
    let replayed = replay(data, key, Some(mark))?;
    let report = &replayed.report;
    anyhow::ensure!(
        report.ok(),
        "--data {}: the journal does not verify (chain: {}; books: {}; snapshot: {}; acknowledged: {}): only a journal \
         that verifies is closed; `pozo-server verify --data {}` says what is wrong (docs/operations.md §5)",
        data.display(),
        report.chain,
        report.conservation,
        report.snapshot,
        report.acknowledged,
        data.display()
    );
    let closed_before = read_closed_mark(data, key)?;
    let closed_ms = closed_before.as_ref().map_or(now_ms, |mark| mark.closed_ms);
    let sealed = Sealed::of(&replayed, closed_ms, key);
    let statement_sha256 = sealed.statement.sha256();
    if let Some(before) = &closed_before {
        anyhow::ensure!(
            before.statement_sha256 == statement_sha256,
            "--data {}: closed at entry {} by statement {}, but it now ends at entry {} and gives statement {statement_sha256}: \
             it changed after it was closed; keep it as evidence (docs/journal.md, \"Closing a journal\")",
            data.display(),
            before.entries,
            before.statement_sha256,
            report.entries
        );
    }
    // The files first (beside --out: its directory is writable), then the mark, then the
    // statement: after a crash, `close` again writes the same statement.
    let files = files_directory(out);
    write_files(&files, &sealed.statement.files)?;
    let mark = ClosedMark {
        journal_id: sealed.statement.predecessor.journal_id.clone(),
        entries: report.entries,
        tip: report.tip.clone(),
        closed_ms,
        statement_sha256: statement_sha256.clone(),
    };
    if closed_before.is_none() {
        write_closed_mark(data, key, mark.clone())?;
    }
    write_synced(out, &serde_json::to_vec_pretty(&sealed).expect("statements serialize"))?;
    Ok(ClosedJournal {
        journal_id: mark.journal_id,
        entries: mark.entries,
        tip: mark.tip,
        closed_ms,
        statement: out.display().to_string(),
        statement_sha256,
        files: files.display().to_string(),
        serve_flags: serve_flags(&files, &sealed.statement.files),
        reissued: closed_before.is_some(),
    })
}

/// Writes the files in force into `directory` (new), under [`file_names`].
fn write_files(directory: &Path, files: &[(String, String)]) -> anyhow::Result<()> {
    std::fs::create_dir_all(directory).map_err(|error| anyhow::anyhow!("{}: {error}", directory.display()))?;
    for (name, (_, text)) in file_names(files).into_iter().zip(files) {
        write_synced(&directory.join(name), text.as_bytes())?;
    }
    Ok(())
}

/// Refuses a data directory that is not empty (or not a directory), naming what it holds.
fn check_empty(data: &Path) -> anyhow::Result<()> {
    if !data.exists() {
        return Ok(());
    }
    let held: Vec<String> = std::fs::read_dir(data)
        .map_err(|error| anyhow::anyhow!("--data {}: {error}", data.display()))?
        .filter_map(|entry| entry.ok().map(|entry| format!("`{}`", entry.file_name().to_string_lossy())))
        .collect();
    anyhow::ensure!(
        held.is_empty(),
        "--data {}: not empty (it holds {}): a journal is opened from a closing statement only in an empty data \
         directory; if it already holds the journal opened from this statement, start it without --open-from",
        data.display(),
        held.join(", ")
    );
    Ok(())
}

/// `serve --open-from`: checks the statement at `path` (its seal under the journal key of
/// `config`, its books, and that `config` is its files in force) and that `data` is empty, then
/// begins the new journal there from it. Nothing is written when anything is refused.
pub async fn open(path: &Path, config: Config, data: &Path, mark: &Path, changed_by: &str, now_ms: u64) -> anyhow::Result<()> {
    let sealed = read_statement(path)?;
    let key = config.journal_key.as_ref().ok_or_else(|| anyhow::anyhow!("the keys have no journal key (role = \"journal\")"))?;
    sealed.check(key).map_err(|problem| anyhow::anyhow!("--open-from {}: {problem}; nothing was written", path.display()))?;
    let statement = &sealed.statement;
    if config.hash != statement.config_hash {
        // The one place the time zone and the hour the jornada starts change: the new journal's
        // layout may differ from the statement's in them, and in nothing else (docs/operations.md §8).
        let carried = Config::from_texts(statement.files.clone())?;
        if config.with_jornada_of(&carried).map(|given| given.hash).ok().as_deref() != Some(carried.hash.as_str()) {
            anyhow::bail!(
                "--open-from {}: the configuration given (hash {}) is not the statement's files in force (hash {}): a \
                 journal opens under the files its predecessor was closed with, but for the layout's time_zone and \
                 jornada_starts_hour; start with those `close` wrote beside the statement: {}",
                path.display(),
                config.hash,
                statement.config_hash,
                serve_flags(&files_directory(path), &statement.files).join(" ")
            );
        }
        // Jornadas never go back: refused here, before anything is written (the genesis entry
        // is refused likewise when applied).
        let today = pozo_core::jornada::jornada_and_hour(&config, now_ms).0;
        let today_before = pozo_core::jornada::jornada_and_hour(&carried, now_ms).0;
        let data = &statement.snapshot.data;
        if let Some(last) = data
            .days
            .keys()
            .chain(data.openings.keys())
            .max()
            .filter(|last| pozo_core::jornada::goes_back(&today, &today_before, last))
        {
            anyhow::bail!(
                "--open-from {}: under the time_zone and jornada_starts_hour given this moment is in jornada {today}, \
                 and {last}, the last jornada the statement booked, is over or still to come: jornadas never go back \
                 nor reopen; open the new journal once a jornada after {last} has begun under the new settings; \
                 nothing was written",
                path.display()
            );
        }
        tracing::warn!(
            time_zone = %config.layout.time_zone,
            jornada_starts_hour = config.layout.jornada_starts_hour,
            statement_time_zone = %carried.layout.time_zone,
            statement_jornada_starts_hour = carried.layout.jornada_starts_hour,
            "the new journal's jornada settings differ from the statement's: its genesis records both"
        );
    }
    check_empty(data)?;
    let predecessor = statement.predecessor.clone();
    let value = serde_json::to_value(&sealed).expect("statements serialize");
    let (identity, tip) = crate::writer::open_from(config, data, mark, value, now_ms, changed_by).await?;
    tracing::info!(
        journal_id = %identity.journal_id(),
        tip = %hex::encode(tip.hash),
        predecessor = %predecessor.journal_id,
        predecessor_entries = predecessor.entries,
        "new journal opened from a closing statement: the predecessor's books carried"
    );
    Ok(())
}

/// `verify` of the journal in `data`, with what it says of a closing statement: the one its
/// genesis entry carries (and, given `predecessor`, that it is exactly that journal's end), and
/// its closed mark when `close` closed it.
pub fn verify(data: &Path, key: &JournalKey, mark: Option<&Path>, predecessor: Option<&Path>) -> anyhow::Result<VerifyReport> {
    let replayed = replay(data, key, mark)?;
    let mut report = replayed.report;
    report.closed = closed_check(data, key, &report);
    match replayed.opened_from {
        Some(statement) => report.opened_from = Some(opened_check(statement, key, predecessor)),
        None if predecessor.is_some() => {
            anyhow::bail!(
                "--predecessor: {} was not opened from a closing statement: its genesis entry carries none",
                data.display()
            )
        }
        None => {}
    }
    Ok(report)
}

/// `verify --statement`: a statement file checked on its own, and against `predecessor`.
pub fn verify_statement(path: &Path, key: &JournalKey, predecessor: Option<&Path>) -> anyhow::Result<OpenedFrom> {
    let sealed = read_statement(path)?;
    Ok(opened_check(serde_json::to_value(&sealed).expect("statements serialize"), key, predecessor))
}

/// The closed mark of `data` against the journal `report` replayed: sealed, and the journal
/// ends where it was closed.
fn closed_check(data: &Path, key: &JournalKey, report: &VerifyReport) -> Option<Closed> {
    let mark = match read_closed_mark(data, key) {
        Ok(None) => return None,
        Ok(Some(mark)) => mark,
        Err(problem) => {
            let check = Check::Failed(format!("{problem:#}"));
            return Some(Closed { entries: 0, closed_ms: 0, statement_sha256: String::new(), check });
        }
    };
    let check = if (mark.entries, &mark.tip) == (report.entries, &report.tip) {
        Check::Ok
    } else {
        Check::Failed(format!(
            "closed at entry {} (tip {}), but the journal ends at entry {} (tip {}): it was written to after it was closed",
            mark.entries, mark.tip, report.entries, report.tip
        ))
    };
    Some(Closed { entries: mark.entries, closed_ms: mark.closed_ms, statement_sha256: mark.statement_sha256, check })
}

/// What `verify` says of a sealed statement (a genesis entry's `opened_from`, or a file).
fn opened_check(statement: serde_json::Value, key: &JournalKey, predecessor: Option<&Path>) -> OpenedFrom {
    let sealed: Sealed = match serde_json::from_value(statement) {
        Ok(sealed) => sealed,
        Err(error) => {
            return OpenedFrom {
                journal_id: String::new(),
                entries: 0,
                tip: String::new(),
                closed_ms: 0,
                statement_sha256: String::new(),
                statement: Check::Failed(format!("not a closing statement: {error}")),
                predecessor: predecessor.map(|_| Check::Failed("no statement to compare".to_owned())),
            };
        }
    };
    let checked = match sealed.check(key) {
        Ok(()) => Check::Ok,
        Err(problem) => Check::Failed(problem),
    };
    let statement = &sealed.statement;
    OpenedFrom {
        journal_id: statement.predecessor.journal_id.clone(),
        entries: statement.predecessor.entries,
        tip: statement.predecessor.tip.clone(),
        closed_ms: statement.closed_ms,
        statement_sha256: statement.sha256(),
        predecessor: predecessor.map(|directory| match check_predecessor(statement, directory, key) {
            Ok(()) => Check::Ok,
            Err(problem) => Check::Failed(problem),
        }),
        statement: checked,
    }
}

/// That `statement` is exactly the end of the journal in `directory`: it verifies (with the
/// mark beside it), it is the journal named, it ends at the statement's entry and tip, its state
/// there is the statement's snapshot, and its closed mark names this statement.
fn check_predecessor(statement: &Statement, directory: &Path, key: &JournalKey) -> Result<(), String> {
    let at = directory.display();
    let mark = crate::journal::mark::default_path(directory);
    let replayed = replay(directory, key, Some(&mark)).map_err(|error| format!("{at}: {error:#}"))?;
    let report = &replayed.report;
    if !report.ok() {
        return Err(format!(
            "{at}: the predecessor does not verify (chain: {}; books: {}; snapshot: {}; acknowledged: {})",
            report.chain, report.conservation, report.snapshot, report.acknowledged
        ));
    }
    let named = &statement.predecessor;
    let journal_id = replayed.identity.journal_id();
    if journal_id != named.journal_id {
        return Err(format!("predecessor.journal_id: the statement names {}, {at} is journal {journal_id}", named.journal_id));
    }
    if (report.entries, &report.tip) != (named.entries, &named.tip) {
        return Err(format!(
            "predecessor: the statement ends it at entry {} (tip {}), but {at} ends at entry {} (tip {})",
            named.entries, named.tip, report.entries, report.tip
        ));
    }
    // A statement of an earlier release is compared as that release kept it, as `verify`
    // compares a stored snapshot (`Snapshot::as_its_release_kept`).
    let mut replayed_snapshot = replayed.state.snapshot();
    replayed_snapshot.as_its_release_kept(&statement.snapshot);
    if replayed_snapshot != statement.snapshot {
        return Err(format!("snapshot: not the state {at} replays to at entry {}", report.entries));
    }
    match read_closed_mark(directory, key).map_err(|problem| format!("{problem:#}"))? {
        None => Err(format!(
            "{at}: no closed mark ({CLOSED_FILE}): `close` leaves one; without it the predecessor could be served on"
        )),
        Some(mark) if mark.statement_sha256 != statement.sha256() => {
            Err(format!("{at}: {CLOSED_FILE} names statement {}, not this one", mark.statement_sha256))
        }
        Some(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statement() -> Sealed {
        let config = Arc::new(Config::embedded());
        let state = State::new(Arc::clone(&config));
        let statement = Statement {
            format: FORMAT.to_owned(),
            predecessor: Predecessor { journal_id: "00".repeat(16) + "-1", entries: 0, tip: "11".repeat(32) },
            closed_ms: 1_795_305_600_000,
            closed_at: closed_at(1_795_305_600_000),
            config_hash: config.hash.clone(),
            files: config.texts.clone(),
            books: Books::of(&state),
            snapshot: state.snapshot(),
        };
        let key = config.journal_key.clone().expect("the embedded journal key");
        let seal = hex::encode(mac(&key, STATEMENT_CONTEXT, &statement.canonical()).finalize().into_bytes());
        Sealed { statement, seal }
    }

    /// The seal covers the canonical bytes: what is read back gives the same bytes.
    #[test]
    fn a_statement_read_back_has_the_same_canonical_bytes_and_seal() {
        let sealed = statement();
        let key = Config::embedded().journal_key.expect("a journal key");
        let text = serde_json::to_vec_pretty(&sealed).expect("serializes");
        let read: Sealed = serde_json::from_slice(&text).expect("reads back");
        assert_eq!(read.statement.canonical(), sealed.statement.canonical());
        assert_eq!(read.check(&key), Ok(()));
        let value = serde_json::to_value(&sealed).expect("a value");
        let through_value: Sealed = serde_json::from_value(value).expect("reads back");
        assert_eq!(through_value.check(&key), Ok(()), "as a genesis entry carries it");
    }

    #[test]
    fn an_amount_changed_breaks_the_seal_and_books_that_disagree_are_named() {
        let key = Config::embedded().journal_key.expect("a journal key");
        let mut sealed = statement();
        let pool = sealed.statement.books.pools.values_mut().next().expect("a pool");
        pool.balance += pozo_engine::Money::from_cents(1);
        assert!(sealed.check(&key).expect_err("changed").starts_with("seal:"));
        // Resealed by whoever holds the key, the books still disagree with the snapshot.
        sealed.seal = hex::encode(mac(&key, STATEMENT_CONTEXT, &sealed.statement.canonical()).finalize().into_bytes());
        assert_eq!(sealed.check(&key), Err("books.pools: not what the statement's snapshot holds".to_owned()));
    }

    #[test]
    fn files_are_written_under_their_own_names_numbered_when_two_share_one() {
        let files = |names: &[&str]| names.iter().map(|name| ((*name).to_owned(), String::new())).collect::<Vec<_>>();
        assert_eq!(file_names(&files(&["config/casino.toml", "/etc/pozo/iplyc.toml"])), ["casino.toml", "iplyc.toml"]);
        assert_eq!(file_names(&files(&["a/x.toml", "b/x.toml", "c.toml"])), ["0-x.toml", "1-x.toml", "c.toml"]);
        let flags = serve_flags(Path::new("/s.files"), &files(&["config/casino.toml", "config/iplyc.toml"]));
        assert_eq!(flags, ["--config", "/s.files/casino.toml", "--rulebook", "/s.files/iplyc.toml"]);
    }
}
