//! A journal's key set: the keys the controller starts with are journaled when they differ
//! from the last ones recorded (added, rotated, changed or removed), on a new writer and
//! on a standby taking over alike.

use std::sync::Arc;

use crate::clock::Clock;
use crate::config::Config;
use crate::journal::{Journal, JournalTip, Record, Sealer};
use pozo_core::state::{Command, Context, State};

/// A key set other than the journal's (a key added, removed or rotated since the last
/// start) is journaled, with who started the controller with it, before anything is served.
/// Returns the new tip.
pub(super) async fn journal_key_set(
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

/// Every start journals the build serving (its version and the SHA-256 of its own
/// executable) with who started it, before anything is served: the journal lists every
/// start and every build that wrote to it. Returns the new tip.
pub(super) async fn journal_build(
    state: &mut State,
    tip: JournalTip,
    journal: &Journal,
    sealer: &Sealer,
    changed_by: &str,
    clock: &Arc<dyn Clock>,
) -> anyhow::Result<JournalTip> {
    let build = crate::build::current();
    let new_build = !state.data().builds.iter().any(|record| record.build == *build);
    let sequence = tip.entries + 1;
    let time_ms = clock.now_ms().max(journal.entry(tip.entries)?.map(|entry| entry.record.time_ms).unwrap_or(0));
    let record = Record { sequence, time_ms, command: Command::Build { build: build.clone(), by: changed_by.to_owned() } };
    state.apply(&record.command, Context { sequence, time_ms }).map_err(|refusal| anyhow::anyhow!("build: {refusal}"))?;
    let (value, hash) = Journal::encode(&tip.hash, &record);
    journal.append(vec![(sequence, value)], (sequence, hash), sealer.tip_seal(sequence, &hash)).await?;
    if new_build {
        tracing::info!(entry = sequence, version = %build.version, sha256 = %build.sha256, "a build new to this journal: journaled");
    } else {
        tracing::info!(entry = sequence, version = %build.version, "start journaled");
    }
    Ok(JournalTip { entries: sequence, hash })
}

/// What changed between two journaled key sets, for the log: "added vp-dora; rotated mesa-B1".
pub(super) fn key_changes(before: &[crate::config::KeyRecord], after: &[crate::config::KeyRecord]) -> String {
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
