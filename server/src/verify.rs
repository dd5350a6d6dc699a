//! `pozo-server verify`: replays the whole journal from zero under the
//! configuration its genesis entry recorded, checks the hash chain, the
//! conservation of every pool after every entry, and that the stored snapshot is
//! exactly the state replay reaches at its entry.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use serde::Serialize;

use crate::award::money_text;
use crate::journal::{GENESIS_PREVIOUS, Journal};
use crate::state::State;
use crate::writer::{genesis_config, replay_until};

#[derive(Debug, Serialize)]
pub struct VerifyReport {
    pub entries: u64,
    pub tip: String,
    pub chain: String,
    pub conservation: String,
    pub snapshot: String,
    pub pools: BTreeMap<String, PoolSummary>,
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
        self.chain == "ok" && self.conservation == "ok" && (self.snapshot == "ok" || self.snapshot == "none")
    }
}

/// Verifies the journal in `directory`. An unreadable or empty journal is an
/// error; a broken chain, books or snapshot is reported in the result.
pub fn verify(directory: &Path) -> anyhow::Result<VerifyReport> {
    if !directory.exists() {
        anyhow::bail!("{}: no such data directory", directory.display());
    }
    let journal = Journal::open(directory)?;
    let config = genesis_config(&journal)
        .map_err(anyhow::Error::msg)?
        .ok_or_else(|| anyhow::anyhow!("{}: the journal is empty", directory.display()))?;
    let mut state = State::new(Arc::new(config));
    let stored = journal.load_snapshot()?;
    let mut chain = "ok".to_owned();
    let mut snapshot = "none".to_owned();
    let mut conservation = "ok".to_owned();
    let mut tip = crate::writer::JournalTip { entries: 0, hash: GENESIS_PREVIOUS };
    // Entry by entry, so that conservation is checked after every one of them.
    loop {
        let before = tip.entries;
        match replay_until(&mut state, &journal, tip.entries, tip.hash, tip.entries + 1) {
            Ok(next) => tip = next,
            Err(error) => {
                chain = error;
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
        && let Err(problem) = crate::writer::check_tip(&journal, &tip)
    {
        chain = problem;
    }
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
                balance: money_text(pool.balance()),
                reserve: money_text(pool.reserve()),
                displayed: money_text(pool.displayed()),
                contributions: money_text(m.net_contributions()),
                replenishments: money_text(m.replenishments),
                awards: money_text(m.awards),
                awards_returned: money_text(m.awards_returned),
                replenishments_withdrawn: money_text(m.replenishments_withdrawn),
                hits: m.hits,
            };
            (pool.rules().id.clone(), summary)
        })
        .collect();
    Ok(VerifyReport { entries: tip.entries, tip: hex::encode(tip.hash), chain, conservation, snapshot, pools })
}
