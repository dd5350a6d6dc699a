//! `pozo-server migrate --from DIR --to postgres://…`: moves a salon's journal from sled to
//! PostgreSQL (docs/journal.md, "On PostgreSQL"; docs/operations.md §16). The source must be a
//! stopped server's data directory that `verify` accepts; the target an empty database. Entries
//! are copied byte for byte, in order, in batches, each with the source's tip record (a copy cut
//! short is refused at start, its tip beyond its entries); then the meta values; then the copy
//! is verified on its own and must end at the same entry with the same hash.

use std::path::Path;

use serde::Serialize;

use crate::config::JournalKey;
use crate::exit::JournalRefused;
use crate::journal::postgres::PgStore;
use crate::journal::store::{SledStore, Store, Stored};

/// Entries per statement while copying.
const COPY_BATCH: usize = 1_000;

#[derive(Debug, Serialize)]
pub struct MigrateReport {
    pub from: String,
    pub to: String,
    pub entries: u64,
    pub tip: String,
    /// `verify` of the copy: "ok".
    pub verified: String,
}

pub fn migrate(from: &Path, to: &str, journal_key: &JournalKey) -> anyhow::Result<MigrateReport> {
    // A closed journal is never served again (docs/operations.md §8): copying it where its
    // closed mark does not follow would let a controller serve it on.
    if from.join(crate::writer::CLOSED_FILE).exists() {
        return Err(JournalRefused(format!(
            "{}: this journal was closed by `pozo-server close` ({}): it is archived, never migrated to be served              again; open its successor from the statement instead (docs/operations.md §8)",
            from.display(),
            crate::writer::CLOSED_FILE
        ))
        .into());
    }
    let source = crate::tools::verify::verify(from, journal_key, None)?;
    if !source.ok() {
        return Err(JournalRefused(format!(
            "{}: verify does not accept this journal (chain: {}; books: {}; snapshot: {}): nothing was copied",
            from.display(),
            source.chain,
            source.conservation,
            source.snapshot
        ))
        .into());
    }
    let sled = SledStore::open(from)?;
    let target = PgStore::open(to)?;
    let to_name = target.database().to_owned();
    if target.last()?.is_some() || target.tip()?.is_some() {
        anyhow::bail!("{to_name}: the database already holds a journal: migrate only into an empty one");
    }
    let tip = sled.tip()?.ok_or_else(|| anyhow::anyhow!("{}: the journal has no tip record", from.display()))?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    // Until the copy is verified its tip record is empty, which no controller serves: a copy
    // cut short, or one that does not verify, is refused at start.
    let unusable = Vec::new();
    let mut batch: Vec<Stored> = Vec::with_capacity(COPY_BATCH);
    let mut copied = 0u64;
    for entry in sled.after(0) {
        batch.push(entry?);
        if batch.len() == COPY_BATCH {
            copied += batch.len() as u64;
            runtime.block_on(target.append(std::mem::take(&mut batch), unusable.clone()))?;
        }
    }
    if !batch.is_empty() {
        copied += batch.len() as u64;
        runtime.block_on(target.append(batch, unusable.clone()))?;
    }
    let meta: Vec<(&'static str, Vec<u8>)> = crate::journal::META_KEYS
        .into_iter()
        .filter_map(|key| sled.meta(key).transpose().map(|value| value.map(|value| (key, value))))
        .collect::<Result<_, _>>()?;
    target.put_meta(meta)?;
    // The snapshot as the source stores it, seal and all (sled keeps it in a file of its own).
    if let Some((bytes, Some(seal))) = sled.snapshot()? {
        let seal: [u8; 32] = seal
            .as_slice()
            .try_into()
            .map_err(|_| anyhow::anyhow!("{}: a snapshot seal of {} bytes", from.display(), seal.len()))?;
        target.commit_snapshot(target.prepare_snapshot(bytes, seal)?)?;
    }
    anyhow::ensure!(copied == source.entries, "{}: {copied} entries read, verify counted {}", from.display(), source.entries);
    // The meta values and the real tip record, together.
    runtime.block_on(target.put_tip(tip))?;
    drop(sled);
    // The copy on its own: the same length and the same last hash as the source.
    let copy = crate::tools::verify::verify_store(to, journal_key, None)?;
    if !(copy.ok() && copy.entries == source.entries && copy.tip == source.tip) {
        runtime.block_on(target.put_tip(unusable))?;
        return Err(JournalRefused(format!(
            "{to_name}: the copy does not verify as the source did (entries {} against {}, chain: {}); its tip record \
             is left empty so that no controller serves it",
            copy.entries, source.entries, copy.chain
        ))
        .into());
    }
    drop(target);
    Ok(MigrateReport {
        from: from.display().to_string(),
        to: to_name,
        entries: copy.entries,
        tip: copy.tip,
        verified: "ok".to_owned(),
    })
}
