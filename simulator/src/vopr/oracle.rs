//! The oracle: the journal as the disk holds it, replayed by the pure core, and every
//! invariant checked against it after every step.
//!
//! It reads the disk's image directly (never through the controller), checks the chain,
//! applies each entry with `pozo_core::State` as recovery and `verify` do, and keeps, for
//! every entry, the pools' balances and displayed amounts after it: what any answer, panel,
//! sign or report naming that entry must agree with.

use std::collections::BTreeMap;
use std::sync::Arc;

use pozo_engine::money::Money;
use pozo_server::config::Config;
use pozo_server::journal::{Hash, Record, entry_hash};
use pozo_server::state::{Command, Context, OfficeOp, State};

/// A pool's figures after an entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolFigures {
    pub balance: Money,
    pub displayed: Money,
    /// What each level holds, first level first (one in a pool of one level).
    pub levels: Vec<crate::levels::Held>,
}

/// An award as an answer or the replay gives it: seat, code, amount.
pub type Paid = (u32, String, Money);

/// The journal replayed so far.
pub struct Oracle {
    config: Arc<Config>,
    state: State,
    /// The hash of the last entry replayed (the genesis's predecessor is the identity's,
    /// which the oracle does not know: the first entry's is taken as given).
    last_hash: Option<Hash>,
    /// The pools after each entry, by sequence (index 0: after entry 1).
    pub history: Vec<BTreeMap<String, PoolFigures>>,
    /// Each entry's hash, by sequence (index 0: entry 1's).
    pub hashes: Vec<Hash>,
    /// The awards each table command journaled paid, as the pure core computes them: entry → awards.
    pub awards: BTreeMap<u64, Vec<Paid>>,
    /// Each table command journaled: (table, its sequence) → the entry.
    pub table_commands: BTreeMap<(String, u64), u64>,
    /// The Venta-Pagos decisions journaled: order → the entry.
    pub decisions: BTreeMap<String, u64>,
    /// Each mystery draw journaled: (pool, level, cycle) → (its entry, its commitment).
    pub draws: BTreeMap<(String, String, u64), (u64, String)>,
    /// Each mystery hit journaled, in order.
    pub hits: Vec<Hit>,
}

/// A mystery level's hit as the journal replayed shows it (docs/readings.md, "The mystery
/// level"): the reveal's entry, its trigger and the range its draw committed to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    pub entry: u64,
    pub pool: String,
    pub level: String,
    pub cycle: u64,
    pub trigger: Money,
    pub from: Money,
    pub ceiling: Money,
    /// The seats the hot seat was drawn among (none for a level without one).
    pub eligible: usize,
}

impl Oracle {
    pub fn new(config: Arc<Config>) -> Oracle {
        Oracle {
            state: State::new(Arc::clone(&config)),
            config,
            last_hash: None,
            history: Vec::new(),
            hashes: Vec::new(),
            awards: BTreeMap::new(),
            table_commands: BTreeMap::new(),
            decisions: BTreeMap::new(),
            draws: BTreeMap::new(),
            hits: Vec::new(),
        }
    }

    /// The state after the entries replayed.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// The entries replayed.
    pub fn entries(&self) -> u64 {
        self.history.len() as u64
    }

    /// Replays what `entries` (the disk's, from entry 1) holds beyond what was replayed; starts
    /// again from nothing when the disk holds fewer entries than were replayed (a power loss)
    /// or when `again` says the image was replaced. An error names the entry and the invariant.
    pub fn catch_up(&mut self, entries: &[Vec<u8>], again: bool) -> Result<(), String> {
        if again || (entries.len() as u64) < self.entries() {
            *self = Oracle::new(Arc::clone(&self.config));
        }
        for (index, value) in entries.iter().enumerate().skip(self.history.len()) {
            let sequence = index as u64 + 1;
            if value.len() < 32 {
                return Err(format!("chain: entry {sequence} is shorter than its previous-entry hash"));
            }
            let previous: Hash = value[..32].try_into().expect("32 bytes");
            if let Some(last) = self.last_hash
                && last != previous
            {
                return Err(format!("chain: entry {sequence} does not name entry {} as its predecessor", sequence - 1));
            }
            let record: Record = serde_json::from_slice(&value[32..])
                .map_err(|error| format!("chain: entry {sequence} is not a record: {error}"))?;
            if record.sequence != sequence {
                return Err(format!("chain: entry {sequence} records sequence {}", record.sequence));
            }
            let hash = entry_hash(&previous, &value[32..]);
            self.last_hash = Some(hash);
            self.hashes.push(hash);
            match &record.command {
                Command::Table(command) => {
                    let key = (command.table_id.to_string(), command.sequence);
                    if let Some(before) = self.table_commands.insert(key.clone(), sequence) {
                        return Err(format!(
                            "exactly once: table {} command {} is journaled twice, at entries {before} and {sequence}",
                            key.0, key.1
                        ));
                    }
                }
                Command::Office(office) => {
                    let (OfficeOp::Confirm { order_id, .. } | OfficeOp::Reject { order_id, .. }) = &office.op;
                    if let Some(before) = self.decisions.insert(order_id.clone(), sequence) {
                        return Err(format!(
                            "exactly once: order {order_id} is decided twice, at entries {before} and {sequence}"
                        ));
                    }
                }
                Command::Draw(draw) => {
                    let key = (draw.head.pool.to_string(), draw.head.level.clone(), draw.head.cycle);
                    if let Some((before, _)) = self.draws.insert(key, (sequence, draw.commitment.clone())) {
                        return Err(format!(
                            "mystery: pool {} level {} cycle {} is drawn twice, at entries {before} and {sequence} (a redraw)",
                            draw.head.pool, draw.head.level, draw.head.cycle
                        ));
                    }
                }
                _ => {}
            }
            // The draw a reveal opens, as committed before it.
            let revealed = match &record.command {
                Command::Reveal(reveal) => self
                    .state
                    .mysteries()
                    .iter()
                    .find(|cycle| cycle.pool == reveal.pool && cycle.level == reveal.level)
                    .and_then(|cycle| cycle.head())
                    .map(|head| Hit {
                        entry: sequence,
                        pool: reveal.pool.to_string(),
                        level: reveal.level.clone(),
                        cycle: reveal.cycle,
                        trigger: reveal.trigger,
                        from: head.from,
                        ceiling: head.ceiling,
                        eligible: reveal.eligible.len(),
                    }),
                _ => None,
            };
            let applied = self
                .state
                .apply(&record.command, Context { sequence, time_ms: record.time_ms })
                .map_err(|refusal| format!("replay: entry {sequence} is refused by the pure core: {refusal}"))?;
            if !applied.journals() {
                return Err(format!("replay: entry {sequence} changes nothing (a retry journaled?)"));
            }
            if let pozo_server::state::Applied::Table(reply) = &applied
                && !reply.awards.is_empty()
            {
                let paid = reply.awards.iter().map(|award| (award.seat, award.code.to_string(), award.award)).collect();
                self.awards.insert(sequence, paid);
            }
            // The pure core opened the reveal (its commitment, its range, its contribution):
            // the hit stands where the draw put it (docs/readings.md, "The mystery level").
            if let Some(hit) = revealed {
                if !(hit.from < hit.trigger && hit.trigger <= hit.ceiling) {
                    return Err(format!(
                        "mystery: entry {sequence} reveals {} for pool {} level {} cycle {}, outside ({}, {}]",
                        hit.trigger, hit.pool, hit.level, hit.cycle, hit.from, hit.ceiling
                    ));
                }
                self.hits.push(hit);
            }
            // A meter that stood at its ceiling (so at or past its trigger) after one command and
            // was fed again by another without a reveal between: a hit missed.
            if let Some(cycle) =
                self.state.mysteries().iter().find(|cycle| cycle.open.as_ref().is_some_and(|open| cycle.peak >= open.ceiling))
            {
                return Err(format!(
                    "mystery: after entry {sequence}, pool {} level {} cycle {} was fed past its meter of {} (its ceiling {}) \
                     with no reveal: a hit missed",
                    cycle.pool,
                    cycle.level,
                    cycle.cycle,
                    cycle.peak,
                    cycle.open.as_ref().map(|open| open.ceiling).unwrap_or_default()
                ));
            }
            // Conservation on every pool, to the centavo (every rule's money accounted for).
            if let Some((pool, off)) = self.state.conservation().into_iter().find(|(_, off)| !off.is_zero()) {
                return Err(format!("conservation: after entry {sequence}, pool {pool} is off by {off}"));
            }
            // And on every level of a pool with levels, each on its own books (docs/readings.md,
            // "Levels"): a share booked to the wrong level cancels out in the pool's sum.
            for pool in self.state.pools() {
                if let Some((level, off)) = crate::levels::unbalanced(pool) {
                    return Err(format!(
                        "conservation: after entry {sequence}, pool {} {level} is off by {off}",
                        pool.rules().id
                    ));
                }
            }
            self.history.push(
                self.state
                    .pools()
                    .map(|pool| {
                        let figures = PoolFigures {
                            balance: pool.balance(),
                            displayed: pool.displayed(),
                            levels: crate::levels::held(pool),
                        };
                        (pool.rules().id.to_string(), figures)
                    })
                    .collect(),
            );
        }
        Ok(())
    }

    /// The pools after entry `sequence`.
    pub fn at(&self, sequence: u64) -> Option<&BTreeMap<String, PoolFigures>> {
        self.history.get(sequence.checked_sub(1)? as usize)
    }

    /// Entry `sequence`'s hash, as the disk's journal replayed has it.
    pub fn hash_of(&self, sequence: u64) -> Option<&Hash> {
        self.hashes.get(sequence.checked_sub(1)? as usize)
    }

    /// A snapshot the controller stored (the state after its entry `sequence`, whose hash is
    /// `tip`) against the journal replayed: every level of every pool holds what the replay
    /// holds after that entry (docs/readings.md, "Levels"). `None` when they agree, or when
    /// the snapshot is not of this journal's entry (one the disk no longer holds, or of entries
    /// a power loss took): those are recovery's to refuse, not a level's.
    pub fn snapshot_difference(&self, stored: &pozo_server::journal::StoredSnapshot) -> Option<String> {
        let hash = self.hash_of(stored.sequence)?;
        if hex::encode(hash) != stored.tip {
            return None;
        }
        let pools = self.at(stored.sequence)?;
        for (pool, figures) in pools {
            let Some(state) = stored.snapshot.pools.get(pool.as_str()) else {
                return Some(format!("pool {pool} is missing from the controller's snapshot at entry {}", stored.sequence));
            };
            if let Some(differs) = crate::levels::first_difference(&figures.levels, &crate::levels::held_in(state)) {
                return Some(format!(
                    "levels: pool {pool}, {}: the controller's snapshot at entry {} holds {} (+ {} in reserve), the journal \
                     replayed {} (+ {})",
                    differs.level, stored.sequence, differs.theirs.0, differs.theirs.1, differs.ours.0, differs.ours.1
                ));
            }
        }
        None
    }

    /// Every jornada's books tie to zero on every pool (the reconciliation).
    pub fn books_tie(&self) -> Result<(), String> {
        let jornadas: Vec<String> = self.state.data().openings.keys().cloned().collect();
        for jornada in jornadas {
            for (pool, books) in self.state.reconciliation(&jornada).unwrap_or_default() {
                if !books.difference.is_zero() {
                    return Err(format!("books: jornada {jornada}, pool {pool} does not tie: {books:?}"));
                }
            }
        }
        Ok(())
    }
}
