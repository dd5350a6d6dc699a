//! `pozo-server backup --to DIR`: a consistent copy of the journal of a running controller
//! (docs/operations.md §4), verified after the copy.
//!
//! The copy is of the durable journal at one tip: every entry up to it (each is immutable once
//! durable), the journal's identity, the stored snapshot when it is not past the tip, and a tip
//! record sealed for that tip with the journal key. Batches made durable meanwhile are not in
//! it; the controller goes on serving throughout. The copy is then checked with `verify` (chain,
//! seal, books) before it is reported done. It is brought back with `pozo-server restore`, as
//! any backup (§6).
//!
//! Who may ask: whoever holds the journal key (the operator with the keys file on the
//! controller's machine). The request to the pages' listener carries an HMAC-SHA256 under the
//! journal key of [`request_text`]; without it nothing is written.

use std::path::{Path, PathBuf};

use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::config::JournalKey;
use crate::journal::Sealer;
use crate::journal::{Identity, Journal, JournalTip};

/// Entries written to the copy per sled batch.
const CHUNK_ENTRIES: usize = 4096;

/// The header that carries the request's MAC, hex.
pub const MAC_HEADER: &str = "x-pozo-journal-mac";

/// What `POST /backup` takes.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BackupRequest {
    /// An absolute path on the controller's machine: absent, or an empty directory.
    pub(crate) to: PathBuf,
}

/// What a backup did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackupDone {
    pub to: String,
    pub journal_id: String,
    /// Entries in the copy: the durable tip when the backup began.
    pub entries: u64,
    pub tip: String,
    /// The snapshot copied with it (its entry), if any.
    pub snapshot: Option<u64>,
    /// `verify` of the copy: "ok".
    pub verify: String,
}

/// The text the MAC covers: the purpose, the journal and the target.
pub(crate) fn request_text(journal_id: &str, to: &Path) -> Vec<u8> {
    let mut text = b"pozo.v1 backup\0".to_vec();
    text.extend_from_slice(journal_id.as_bytes());
    text.push(0);
    text.extend_from_slice(to.as_os_str().as_encoded_bytes());
    text
}

/// The HMAC-SHA256 of a backup request under the journal key, not yet finalized.
fn request_hmac(key: &JournalKey, journal_id: &str, to: &Path) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(&key.0).expect("HMAC takes any key length");
    mac.update(&request_text(journal_id, to));
    mac
}

/// The MAC of a backup request under the journal key, hex.
pub(crate) fn request_mac(key: &JournalKey, journal_id: &str, to: &Path) -> String {
    hex::encode(request_hmac(key, journal_id, to).finalize().into_bytes())
}

/// True when `mac_hex` is the journal key's MAC of the request (compared in constant time).
pub(crate) fn request_allowed(key: &JournalKey, journal_id: &str, to: &Path, mac_hex: &str) -> bool {
    let Ok(given) = hex::decode(mac_hex.trim()) else { return false };
    request_hmac(key, journal_id, to).verify_slice(&given).is_ok()
}

/// Why a backup was not made: the path (a person's mistake) or the copy itself.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("to: {0}")]
    Target(String),
    #[error("{0:#}")]
    Failed(anyhow::Error),
}

/// Copies the journal durable at `durable` into `to`, then verifies the copy.
pub async fn backup(
    journal: Journal,
    identity: Identity,
    key: JournalKey,
    durable: JournalTip,
    data: PathBuf,
    to: PathBuf,
) -> Result<BackupDone, BackupError> {
    check_target(&data, &to)?;
    tokio::task::spawn_blocking(move || copy(&journal, &identity, &key, durable, &to))
        .await
        .map_err(|error| BackupError::Failed(anyhow::anyhow!("the copy stopped: {error}")))?
        .map_err(BackupError::Failed)
}

fn check_target(data: &Path, to: &Path) -> Result<(), BackupError> {
    if !to.is_absolute() {
        return Err(BackupError::Target(format!("{}: give an absolute path", to.display())));
    }
    let data = std::path::absolute(data).map_err(|error| BackupError::Target(error.to_string()))?;
    if to.starts_with(&data) || data.starts_with(to) {
        return Err(BackupError::Target(format!(
            "{}: inside the data directory {}, or holding it",
            to.display(),
            data.display()
        )));
    }
    if to.exists() {
        let mut entries = std::fs::read_dir(to).map_err(|error| BackupError::Target(format!("{}: {error}", to.display())))?;
        if entries.next().is_some() {
            return Err(BackupError::Target(format!("{}: not empty; a backup goes into a new directory", to.display())));
        }
    }
    Ok(())
}

fn copy(journal: &Journal, identity: &Identity, key: &JournalKey, durable: JournalTip, to: &Path) -> anyhow::Result<BackupDone> {
    let runtime = tokio::runtime::Handle::current();
    let sealer = Sealer::new(key, identity).map_err(anyhow::Error::msg)?;
    let seal = sealer.tip_seal(durable.entries, &durable.hash);
    let tip = (durable.entries, durable.hash);
    let target = Journal::open(to)?;
    target.set_identity(identity)?;
    let snapshot = journal.load_snapshot()?.filter(|stored| stored.sequence <= durable.entries);
    if let Some(stored) = &snapshot {
        target.save_snapshot(stored, &sealer)?;
    }
    let mut chunk = Vec::with_capacity(CHUNK_ENTRIES);
    let mut copied = 0;
    for entry in journal.read_after(0) {
        let entry = entry?;
        if entry.record.sequence > durable.entries {
            break;
        }
        let mut value = Vec::with_capacity(32 + entry.json.len());
        value.extend_from_slice(&entry.previous);
        value.extend_from_slice(&entry.json);
        chunk.push((entry.record.sequence, value));
        copied = entry.record.sequence;
        if chunk.len() == CHUNK_ENTRIES {
            runtime.block_on(target.append(std::mem::take(&mut chunk), tip, seal))?;
        }
    }
    anyhow::ensure!(copied == durable.entries, "the journal ends at entry {copied}, before its durable tip {}", durable.entries);
    if !chunk.is_empty() {
        runtime.block_on(target.append(chunk, tip, seal))?;
    }
    drop(target);
    let report = crate::tools::verify::verify(to, key, None)?;
    anyhow::ensure!(
        report.ok() && report.entries == durable.entries,
        "the copy does not verify (entries {}, chain: {}; books: {}; snapshot: {}): it is not a backup",
        report.entries,
        report.chain,
        report.conservation,
        report.snapshot
    );
    Ok(BackupDone {
        to: to.display().to_string(),
        journal_id: identity.journal_id(),
        entries: durable.entries,
        tip: hex::encode(durable.hash),
        snapshot: snapshot.map(|stored| stored.sequence),
        verify: "ok".to_owned(),
    })
}
