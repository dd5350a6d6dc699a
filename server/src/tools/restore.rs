//! `pozo-server restore`: brings a backup of a data directory back into service as
//! a new epoch of its journal (docs/operations.md §6).
//!
//! A backup holds the journal as it was when it was taken; the controller may have
//! acknowledged more since. Served as it is, it would accept again every envelope
//! signed after the backup (same installation, same keys, the table sequences
//! behind). So a restore:
//! 1. refuses a backup that does not verify (chain, seal, books);
//! 2. copies it into an empty data directory;
//! 3. moves the journal's epoch past both the backup's and the one the acknowledgement
//!    mark beside the data directory last named, by a random step of 1 to 65,536 (so
//!    restoring the same backup twice never gives two journals one id, even when the
//!    mark is gone): its journal id changes, every envelope signed before is refused, and
//!    agents re-identify and take the restored record;
//! 4. reseals the tip and writes a fresh acknowledgement mark at the restored tip.

use std::path::Path;

use crate::config::JournalKey;
use crate::journal::Journal;
use crate::journal::Sealer;
use crate::journal::mark::Mark;

/// What a restore did.
#[derive(Debug, serde::Serialize)]
pub(crate) struct Restored {
    pub(crate) entries: u64,
    pub(crate) previous_journal_id: String,
    pub(crate) journal_id: String,
}

/// Restores `backup` into `data` (absent or empty) as a new epoch; the mark at `mark` is replaced.
pub async fn restore(backup: &Path, data: &Path, journal_key: &JournalKey, mark: &Path) -> anyhow::Result<Restored> {
    if std::path::absolute(data)?.starts_with(std::path::absolute(backup)?) {
        anyhow::bail!("--data {}: inside the backup --from {}; restore somewhere else", data.display(), backup.display());
    }
    if data.exists() && std::fs::read_dir(data)?.next().is_some() {
        anyhow::bail!(
            "--data {}: not empty; move the damaged directory aside first (keep it for the investigation), then restore",
            data.display()
        );
    }
    // The backup is checked on its own: it has no mark of its own.
    let report = crate::tools::verify::verify(backup, journal_key, None)?;
    if !report.ok() {
        anyhow::bail!(
            "--from {}: the backup does not verify (chain: {}; books: {}; snapshot: {}): choose another backup",
            backup.display(),
            report.chain,
            report.conservation,
            report.snapshot
        );
    }
    crate::tools::verify::copy_tree(backup, data)?;
    let journal = {
        let data = data.to_path_buf();
        tokio::task::spawn_blocking(move || Journal::open(&data)).await??
    };
    let mut identity = journal.identity()?.ok_or_else(|| anyhow::anyhow!("the backup has no journal identity"))?;
    let previous_journal_id = identity.journal_id();
    // The mark of the journal being replaced names the epoch that was in service last.
    let marked = crate::journal::mark::highest_epoch(mark, journal_key, &identity);
    if marked.is_none() {
        tracing::warn!(mark = %mark.display(), "no readable acknowledgement mark: the new epoch moves past the backup's only");
    }
    let mut step = [0u8; 2];
    getrandom::fill(&mut step).map_err(|error| anyhow::anyhow!("the random source: {error}"))?;
    identity.epoch = identity
        .epoch
        .max(marked.unwrap_or(0))
        .checked_add(1 + u32::from(u16::from_be_bytes(step)))
        .ok_or_else(|| anyhow::anyhow!("the journal's epoch cannot move on any more"))?;
    journal.set_identity(&identity)?;
    let sealer = Sealer::new(journal_key, &identity).map_err(anyhow::Error::msg)?;
    let (entries, hash) = journal.tip()?;
    journal.reseal_tip((entries, hash), sealer.tip_seal(entries, &hash)).await?;
    drop(journal);
    // The new mark is written beside the old one and renamed over it: a crash leaves one or the other whole.
    let fresh = mark.with_extension("restoring");
    let _ = std::fs::remove_file(&fresh);
    Mark::open(&fresh, sealer)?.write(entries, &hash)?;
    std::fs::rename(&fresh, mark).map_err(|error| anyhow::anyhow!("{}: {error}", mark.display()))?;
    crate::journal::mark::sync_directory_of(mark)?;
    Ok(Restored { entries, previous_journal_id, journal_id: identity.journal_id() })
}
