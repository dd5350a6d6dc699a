//! The writer's loop: take up to [`BATCH_MAX`] requests, apply each to the state, seal the
//! batch, flush it once (group commit) while the next batch is applied, then publish the
//! read model and the pushes and answer every caller, in journal order.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use pozo_engine::{PoolId, TableId};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;
use tracing::{debug, info};

use super::amounts::{Amounts, PoolAmounts};
use super::handle::{BATCH_MAX, Request, TablePanels};
use crate::clock::Clock;
use crate::journal::Sealer;
use crate::journal::mark::Mark;
use crate::journal::store::PreparedSnapshot;
use crate::journal::{Journal, JournalError, JournalTip, Record, StoredSnapshot, Unflushed};
use crate::read::ReadModel;
use crate::read::metrics::Metrics;
use crate::read::signs::{DisplayPush, TablePush, display_of};
use pozo_core::state::liability::SeatsByTable;
use pozo_core::state::{Applied, Context, GoldTurn, Refusal, State, TableView};

/// The most draws and reveals journaled after one command: a reveal and a draw per mystery
/// level of every pool a command can touch, with room to spare.
const DRAWS_PER_COMMAND_MAX: usize = 256;

pub(super) struct Writer {
    /// The published read model (crate::read), swapped after each durable batch.
    pub(super) model: watch::Sender<Arc<ReadModel>>,
    /// Read once per round of requests: the time every command of it is applied and journaled at.
    pub(super) clock: Arc<dyn Clock>,
    pub(super) state: State,
    pub(super) journal: Journal,
    pub(super) sealer: Sealer,
    /// The acknowledgement mark; with the flush task while a batch is being made durable.
    pub(super) mark: Option<Mark>,
    /// The tip of everything applied: durable, or sealed and being flushed, or pending.
    pub(super) tip: JournalTip,
    pub(super) last_snapshot: u64,
    /// The last snapshot's encoded size, with an eighth to spare: the next one's buffer.
    pub(super) snapshot_bytes: usize,
    pub(super) last_time_ms: u64,
    pub(super) snapshot_every: u64,
    /// Every table's panel watch, by pool.
    pub(super) pool_tables: PoolPanels,
    /// The handle's side of the panels, by table.
    pub(super) table_panels: TablePanels,
    /// The configuration the panels are wired for: an approved change makes another.
    pub(super) wired: Arc<pozo_core::config::Config>,
    /// The panels given a pool's amounts without waking their watchers, and until when (`amounts.rs`).
    pub(super) amounts: Amounts,
    /// The gold turns as last prepared for publication: a change there changes every panel of the pool.
    pub(super) gold_turns: BTreeMap<PoolId, GoldTurn>,
    pub(super) display: watch::Sender<DisplayPush>,
    /// Each pool's newest hit as last prepared: a new one changes the signs' prize lists.
    pub(super) hit_heads: BTreeMap<PoolId, u64>,
    /// The snapshot being encoded off the writer's path: its sequence and bytes.
    pub(super) encoding: Option<futures_util::future::BoxFuture<'static, Result<EncodedSnapshot, crate::blocking::Failed>>>,
    /// An encoded snapshot waiting for a moment with no flush under way to be stored.
    pub(super) encoded: Option<EncodedSnapshot>,
    /// Applied in memory, not yet sealed: waits for the batch in flight.
    pub(super) pending: Pending,
    /// Sealed and being made durable: at most one at a time, answered in order.
    pub(super) in_flight: Option<Sealed>,
    pub(super) metrics: Arc<Metrics>,
    /// The mystery levels' open draws, sealed in the journal and held here (`draws.rs`).
    pub(super) draws: super::draws::Draws,
    /// What the seats hold, table by table, as of the last sealed batch: shared with the read
    /// models, each batch reading again only the tables it touched.
    pub(super) seats: Arc<SeatsByTable>,
    /// The configuration `seats` was read under: another (a side bet, a table retired) reads all.
    pub(super) seats_config: Arc<pozo_core::config::Config>,
}

/// Every table's panel watch, by pool, in the layout's order.
pub(super) type PoolPanels = BTreeMap<PoolId, Vec<(TableId, watch::Sender<TablePush>)>>;

/// A caller and the answer it gets once its batch is durable.
pub(super) type Answer = (oneshot::Sender<Result<Applied, Refusal>>, Result<Applied, Refusal>);

/// An encoded snapshot: its sequence, its length in bytes, and the bytes written where the
/// store keeps them, to be committed (or why they could not be).
pub(super) type EncodedSnapshot = (u64, usize, Result<PreparedSnapshot, JournalError>);

/// Requests applied in memory while the batch before them is being flushed.
#[derive(Default)]
pub(super) struct Pending {
    pub(super) writes: Vec<(u64, Vec<u8>)>,
    pub(super) answers: Vec<Answer>,
    pub(super) pools: BTreeSet<PoolId>,
    pub(super) tables: BTreeSet<TableId>,
    pub(super) decided: BTreeSet<PoolId>,
    /// A command that may change seats beyond its own table's (an office decision, a change, a
    /// tournament's operation): every table's seats are read again with the batch.
    pub(super) every_seat: bool,
}

impl Pending {
    /// Notes what an applied command changes: its pool, its table, a Venta-Pagos decision.
    pub(super) fn touch(&mut self, applied: &Applied) {
        match applied {
            Applied::Table(reply) => {
                self.pools.insert(reply.view.pool_id.clone());
                self.tables.insert(reply.view.table_id.clone());
                self.tables.extend(reply.linked.iter().cloned());
            }
            Applied::Office(order) => {
                self.pools.insert(order.facts.pool.clone());
                self.decided.insert(order.facts.pool.clone());
            }
            Applied::Drawn { pool } => {
                self.pools.insert(pool.clone());
            }
            Applied::Revealed { pool, tables } => {
                self.pools.insert(pool.clone());
                self.tables.extend(tables.iter().cloned());
            }
            _ => self.every_seat = true,
        }
    }
}

/// A batch being made durable, with everything that waits for it: the read model and
/// pushes of the state just after it (built when it was sealed) and its answers. A batch of
/// refusals alone, waiting for the store to confirm the writer's lock, has no entries and
/// nothing to publish (`None`).
pub(super) struct Sealed {
    pub(super) flush: tokio::task::JoinHandle<Result<Mark, JournalError>>,
    pub(super) entries: usize,
    pub(super) published: Option<(Arc<ReadModel>, Publication)>,
    pub(super) answers: Vec<Answer>,
}

/// The pushes of one batch, built from the state just after it, sent once it is durable.
pub(super) struct Publication {
    pub(super) sequence: u64,
    /// The configuration the panels were listed under when it was prepared: the places in
    /// `pools` are of its lists.
    pub(super) wired: Arc<pozo_core::config::Config>,
    /// One per touched pool.
    pub(super) pools: Vec<PoolPush>,
    pub(super) display: DisplayPush,
}

/// A touched pool's pushes: the whole new views of the tables that need one (by index in the
/// pool's list, ascending); the others get only its amounts, their watchers woken at most once
/// every [`AMOUNTS_EVERY`](super::amounts::AMOUNTS_EVERY) (`amounts.rs`).
pub(super) struct PoolPush {
    pub(super) pool: PoolId,
    pub(super) amounts: PoolAmounts,
    pub(super) views: Vec<(usize, TableView)>,
}

/// What woke the writer.
pub(super) enum Wake {
    Stop,
    Requests,
    /// The quiet panels' watchers are due to be woken (`amounts.rs`).
    Amounts,
    Flushed(Result<Result<Mark, JournalError>, tokio::task::JoinError>),
    Encoded(Result<EncodedSnapshot, crate::blocking::Failed>),
}

impl Writer {
    /// The writer's loop, a two-stage pipeline: while one batch is being flushed (journal,
    /// then mark, on the flush task), the requests that arrive are applied in memory and
    /// wait as the next batch; it is sealed and flushed the moment the one before it is
    /// durable. Answers and pushes go out strictly in journal order, each batch's only
    /// once it is durable.
    pub(super) async fn run(mut self, mut queue: mpsc::Receiver<Request>, mut stopped: watch::Receiver<bool>) {
        let mut received = Vec::with_capacity(BATCH_MAX);
        // What a start, a restore or a takeover leaves to do for the mystery levels: the open
        // draws unsealed (the same triggers stand), a draw due or a reveal missed journaled now.
        self.draws.recover(&self.state);
        let time_ms = self.clock.now_ms().max(self.last_time_ms);
        self.last_time_ms = time_ms;
        self.follow_draws(time_ms);
        if !self.pending.writes.is_empty() && self.in_flight.is_none() {
            self.seal();
        }
        loop {
            let room = BATCH_MAX.saturating_sub(self.pending.answers.len());
            let amounts_due = self.amounts.due();
            let encoding = self.encoding.as_mut();
            let in_flight = self.in_flight.as_mut();
            let wake = tokio::select! {
                biased;
                _ = stopped.wait_for(|stop| *stop) => Wake::Stop,
                flushed = async { (&mut in_flight.expect("guarded").flush).await }, if in_flight.is_some() => Wake::Flushed(flushed),
                _ = tokio::time::sleep_until(amounts_due.unwrap_or_else(Instant::now)), if amounts_due.is_some() => Wake::Amounts,
                // A snapshot is stored as soon as it is encoded and no flush is under way, even on an idle floor.
                encoded = async { encoding.expect("guarded").await }, if encoding.is_some() => Wake::Encoded(encoded),
                count = queue.recv_many(&mut received, room), if room > 0 => if count == 0 { Wake::Stop } else { Wake::Requests },
            };
            match wake {
                Wake::Requests => {
                    self.apply(&mut received);
                    if self.in_flight.is_none() {
                        self.seal();
                    }
                }
                Wake::Flushed(flushed) => {
                    self.durable(flushed).await;
                    self.seal();
                }
                Wake::Amounts => self.wake_amounts(),
                Wake::Encoded(encoded) => {
                    self.encoding = None;
                    let encoded = unwrap_encoded(encoded);
                    match self.in_flight {
                        None => self.store_snapshot(encoded).await,
                        Some(_) => self.encoded = Some(encoded),
                    }
                }
                Wake::Stop => {
                    // What was applied is made durable and answered before the writer stops.
                    self.finish_in_flight().await;
                    self.seal();
                    self.finish_in_flight().await;
                    if let Some(encoding) = self.encoding.take() {
                        self.store_snapshot(unwrap_encoded(encoding.await)).await;
                    }
                    self.wake_amounts();
                    info!(entries = self.tip.entries, "writer stopped");
                    return;
                }
            }
        }
    }

    /// Applies a round of requests in memory, at one clock reading (never going backwards),
    /// adding them to the pending batch. Nothing is answered here.
    pub(super) fn apply(&mut self, received: &mut Vec<Request>) {
        let time_ms = self.clock.now_ms().max(self.last_time_ms);
        self.last_time_ms = time_ms;
        for Request { mut command, reply } in received.drain(..) {
            if let Err(refusal) = self.draws.fill_seats(&self.state, &mut command) {
                self.metrics.refusal(refusal.kind.name());
                self.pending.answers.push((reply, Err(refusal)));
                continue;
            }
            if let Some(refusal) = self.draws.refusal(&self.state, &command) {
                self.metrics.refusal(refusal.kind.name());
                self.pending.answers.push((reply, Err(refusal)));
                continue;
            }
            let sequence = self.tip.entries + 1;
            let result = self.state.apply(&command, Context { sequence, time_ms });
            match &result {
                Ok(applied) if applied.journals() => {
                    self.metrics.command(command.kind());
                    let record = Record { sequence, time_ms, command };
                    let (value, hash) = Journal::encode(&self.tip.hash, &record);
                    debug!(sequence, command = ?record.command, "applied");
                    self.pending.writes.push((sequence, value));
                    self.tip = JournalTip { entries: sequence, hash };
                    self.pending.touch(applied);
                    if matches!(applied, Applied::Change(_)) {
                        self.pending.pools.extend(self.state.pools().map(|pool| pool.rules().id.clone()));
                    }
                    self.rewire();
                    self.follow_draws(time_ms);
                }
                Ok(_) => {
                    self.metrics.retry();
                    debug!(command = ?command, "retry answered from the state");
                }
                Err(refusal) => {
                    self.metrics.refusal(refusal.kind.name());
                    debug!(command = ?command, %refusal, "refused");
                }
            }
            self.pending.answers.push((reply, result));
        }
    }

    /// Journals what the controller does of its own after a command (`draws.rs`): a reveal the
    /// moment a contribution reached a mystery level's trigger — before any other command, so
    /// the hit is at that contribution — and a draw for each level a reset left awaiting one.
    /// Bounded: each pass reveals or draws one level, and a refused one holds its pool.
    pub(super) fn follow_draws(&mut self, time_ms: u64) {
        for _ in 0..DRAWS_PER_COMMAND_MAX {
            let Some(command) = self.draws.next(&self.state) else { return };
            let sequence = self.tip.entries + 1;
            match self.state.apply(&command, Context { sequence, time_ms }) {
                Ok(applied) => {
                    self.metrics.command(command.kind());
                    let record = Record { sequence, time_ms, command };
                    let (value, hash) = Journal::encode(&self.tip.hash, &record);
                    self.pending.writes.push((sequence, value));
                    self.tip = JournalTip { entries: sequence, hash };
                    self.pending.touch(&applied);
                }
                Err(refusal) => self.draws.refused(&command, &refusal),
            }
        }
        tracing::error!("more draws and reveals after one command than the pools have mystery levels: stopped here");
    }

    /// After an approved change (or one taking effect): the panels follow the tables in force
    /// (new ones wired, retired ones dropped, moved ones under their new pool), and every pool
    /// and table is pushed anew with the batch.
    pub(super) fn rewire(&mut self) {
        if Arc::ptr_eq(self.state.config(), &self.wired) {
            return;
        }
        // The quiet panels are marked by their places in the lists about to change: woken now.
        self.wake_amounts();
        self.wired = Arc::clone(self.state.config());
        let mut senders: BTreeMap<TableId, watch::Sender<TablePush>> =
            std::mem::take(&mut self.pool_tables).into_values().flatten().collect();
        let mut receivers = self.table_panels.write().expect("the panels' lock is never poisoned");
        for table in &self.wired.layout.tables {
            let view = self.state.table_view(&table.id).expect("every table in force has a view");
            let pool = view.pool_id.clone();
            let sender = senders.remove(&table.id).unwrap_or_else(|| {
                let (sender, receiver) = watch::channel(TablePush { journal_sequence: self.tip.entries, view });
                receivers.insert(table.id.clone(), receiver);
                sender
            });
            self.pool_tables.entry(pool).or_default().push((table.id.clone(), sender));
            self.pending.tables.insert(table.id.clone());
        }
        for retired in senders.keys() {
            receivers.remove(retired);
        }
        self.pending.pools.extend(self.state.pools().map(|pool| pool.rules().id.clone()));
    }

    /// Seals the pending batch, when no flush is under way: one that journals nothing is
    /// answered at once (everything before it is durable); one that does gets its read
    /// model and pushes built from the state as it stands (just after it) and goes to the
    /// flush task, which appends it to the journal, flushes once (group commit) and then
    /// writes the acknowledgement mark (crate::journal::mark): a journal later found shorter than
    /// the mark is refused, never served.
    pub(super) fn seal(&mut self) {
        debug_assert!(self.in_flight.is_none(), "one batch in flight at a time");
        let mut pending = std::mem::take(&mut self.pending);
        if pozo_core::planted::on(pozo_core::planted::Bug::AnswerBeforeFlush) {
            // Planted (`planted-bugs` only): answered before the batch is durable.
            for (reply, result) in pending.answers.drain(..) {
                let _ = reply.send(result);
            }
        }
        if pending.writes.is_empty() {
            let refusals = pending.answers.iter().any(|(_, result)| result.is_err());
            if !(refusals && self.journal.lock_can_be_lost()) {
                for (reply, result) in pending.answers {
                    let _ = reply.send(result);
                }
                return;
            }
            // A refusal is judged on this writer's state, current only while no other writer
            // writes: where the lock can be lost (PostgreSQL), it waits until the store confirms
            // the lock is still this controller's. A writer cut off from the database, not knowing
            // it yet, would otherwise refuse commands from a state its standby has moved past
            // (found by `pozo-sim vopr`: "skips ahead; expects 34"); now it stops, as for a
            // failed flush, and the callers try the new writer.
            let journal = self.journal.clone();
            let mark = self.mark.take().expect("the mark is back after each flush");
            let flush = tokio::spawn(async move {
                journal.confirm_writer().await?;
                Ok(mark)
            });
            self.in_flight = Some(Sealed { flush, entries: 0, published: None, answers: pending.answers });
            return;
        }
        let (sequence, hash) = (self.tip.entries, self.tip.hash);
        let seal = self.sealer.tip_seal(sequence, &hash);
        self.follow_seats(&pending.tables, pending.every_seat);
        let model = Arc::new(ReadModel::with_seats(&self.state, self.tip, Arc::clone(&self.seats)));
        let publication = self.prepare(&pending.pools, &pending.tables, &pending.decided);
        let journal = self.journal.clone();
        let mut mark = self.mark.take().expect("the mark is back after each flush");
        let entries = pending.writes.len();
        let writes = pending.writes;
        let metrics = Arc::clone(&self.metrics);
        let flush = tokio::spawn(async move {
            let started = std::time::Instant::now();
            // The journal durable, then the mark: on one blocking thread where the store writes
            // on it (sled), so a batch wakes no thread between its two syncs (docs/architecture.md).
            let unflushed = journal.write_batch(writes, (sequence, hash), seal).await?;
            let (mark, marked) = crate::blocking::spawn(move || {
                if let Some(Err(error)) = unflushed.map(Unflushed::flush_here) {
                    return (mark, Err(error));
                }
                if pozo_core::planted::on(pozo_core::planted::Bug::SkipMark) {
                    // Planted (`planted-bugs` only): the mark is never written.
                    return (mark, Ok(()));
                }
                let marked =
                    mark.write(sequence, &hash).map_err(|error| JournalError::Corrupt { sequence, problem: error.to_string() });
                (mark, marked)
            })
            .await
            .map_err(|error| JournalError::Corrupt {
                sequence,
                problem: format!("the journal's flush or the acknowledgement mark: {error}"),
            })?;
            marked?;
            metrics.batch(entries, started.elapsed());
            Ok(mark)
        });
        self.in_flight = Some(Sealed { flush, entries, published: Some((model, publication)), answers: pending.answers });
        // The snapshot is of the state just after this batch; it is stored only once no
        // flush is under way, so never ahead of the durable journal.
        if self.encoding.is_none() && self.encoded.is_none() && sequence.saturating_sub(self.last_snapshot) >= self.snapshot_every
        {
            self.snapshot();
        }
    }

    /// Brings what the seats hold up to the state just sealed: the tables the batch touched are
    /// read again, the others kept (walking every table's seats for each batch was most of the
    /// writer's CPU at 2,000 presses/s: docs/benchmarks.md); all of them after a command that
    /// may change seats elsewhere, or under another configuration.
    fn follow_seats(&mut self, tables: &BTreeSet<TableId>, every_seat: bool) {
        if every_seat || !Arc::ptr_eq(self.state.config(), &self.seats_config) {
            self.read_every_seat();
            return;
        }
        if !tables.is_empty() {
            let seats = Arc::make_mut(&mut self.seats);
            for table in tables {
                match self.state.table_seats(table).filter(|seats| !seats.is_empty()) {
                    Some(held) => {
                        seats.insert(table.clone(), Arc::new(held));
                    }
                    None => {
                        seats.remove(table);
                    }
                }
            }
        }
        debug_assert_eq!(*self.seats, self.state.seats_by_table(), "a table's seats changed and were not read again");
    }

    /// Reads what every table's seats hold, under the configuration in force.
    pub(super) fn read_every_seat(&mut self) {
        self.seats = Arc::new(self.state.seats_by_table());
        self.seats_config = Arc::clone(self.state.config());
    }

    /// Waits for the batch in flight, if any, and finishes it ([`Writer::durable`]).
    pub(super) async fn finish_in_flight(&mut self) {
        if let Some(sealed) = self.in_flight.as_mut() {
            let flushed = (&mut sealed.flush).await;
            self.durable(flushed).await;
        }
    }

    /// The batch in flight is durable: its read model is swapped in, its pushes sent, then
    /// its callers answered; a snapshot waiting for this moment is stored.
    pub(super) async fn durable(&mut self, flushed: Result<Result<Mark, JournalError>, tokio::task::JoinError>) {
        let sealed = self.in_flight.take().expect("a batch in flight");
        match flushed {
            Ok(Ok(mark)) => self.mark = Some(mark),
            // Fail-stop: state applied in memory that cannot be made durable must not be
            // served. Recovery replays the journal on the next start.
            Ok(Err(error)) => panic!("journal write failed, stopping the controller: {error}"),
            Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
            Err(error) => panic!("journal write did not finish, stopping the controller: {error}"),
        }
        if let Some((model, publication)) = sealed.published {
            // Swapped in before the answers: a caller who reads after its answer sees its command.
            let tip = model.tip.entries;
            self.model.send_replace(model);
            // At debug: at info, a line per batch is hundreds a second on a busy floor.
            debug!(entries = sealed.entries, tip, requests = sealed.answers.len(), "batch durable");
            // Pushed before the answers: an agent that reads its answer and then
            // watches its table never sees the state from before its own command.
            self.send(publication);
        }
        for (reply, result) in sealed.answers {
            let _ = reply.send(result);
        }
        if let Some(encoded) = self.encoded.take() {
            self.store_snapshot(encoded).await;
        }
    }

    /// Takes a snapshot of the state as of the last sealed batch and has it encoded and
    /// written off the writer's path; only the copy is made here, and the commit once it is
    /// written and no flush is under way. Encoding it inline held every answer behind it
    /// (16 ms with 1,000 tables and one jornada of meters, far more with the 62 jornadas the
    /// reports keep: docs/benchmarks.md). Its bytes go where the store keeps them from the
    /// same thread (sled's store: a file of its own, synced), and only the commit, a small
    /// write that names them, stays with the writer: stored inside sled, a snapshot of
    /// megabytes was one of sled's blobs, written and synced while the writer waited (issue
    /// 47 step 11), and written from another thread it held sled's log, and the flushes
    /// behind it, for as long (a max latency of 78 ms). One snapshot at a time, in order.
    pub(super) fn snapshot(&mut self) {
        let stored =
            StoredSnapshot { sequence: self.tip.entries, tip: hex::encode(self.tip.hash), snapshot: self.state.snapshot() };
        self.last_snapshot = self.tip.entries;
        let sealer = self.sealer.clone();
        let journal = self.journal.clone();
        let capacity = self.snapshot_bytes;
        self.encoding = Some(crate::blocking::spawn(move || {
            let bytes = Journal::encode_snapshot_sized(&stored, capacity);
            let seal = sealer.snapshot_seal(&bytes);
            let length = bytes.len();
            (stored.sequence, length, journal.prepare_snapshot(bytes, seal))
        }));
    }

    /// Stores a written snapshot, durably. Fail-stop when it cannot be: the journal's
    /// storage is failing.
    pub(super) async fn store_snapshot(&mut self, (sequence, length, prepared): EncodedSnapshot) {
        self.snapshot_bytes = length + length / 8;
        let stored = match prepared {
            Ok(prepared) => self.journal.commit_snapshot_durably(prepared).await,
            Err(error) => Err(error),
        };
        if let Err(error) = stored {
            panic!("snapshot write failed, stopping the controller: {error}");
        }
        info!(sequence, "snapshot saved");
    }

    /// Builds the pushes of the batch just sealed: the new state of every table of a pool
    /// that changed, and the displays. Sent by [`Writer::send`] once the batch is durable.
    ///
    /// A command changes only its own table, its pool and that pool's gold turn. So a
    /// table's view is rebuilt when a command of the batch was its own or its pool's gold
    /// turn moved; the other tables of a touched pool get only the pool's new amount
    /// (a whole view rebuilt for each of them cost a third of the CPU at 2,000 presses/s
    /// with 1,000 tables: docs/benchmarks.md).
    pub(super) fn prepare(
        &mut self,
        pools: &BTreeSet<PoolId>,
        tables: &BTreeSet<TableId>,
        decided: &BTreeSet<PoolId>,
    ) -> Publication {
        let sequence = self.tip.entries;
        let mut prepared = Vec::with_capacity(pools.len());
        for pool in pools {
            let Some(senders) = self.pool_tables.get(pool) else { continue };
            let turn = self.state.data().gold_turns.get(pool);
            let turn_moved = turn != self.gold_turns.get(pool);
            if turn_moved {
                match turn {
                    Some(turn) => self.gold_turns.insert(pool.clone(), turn.clone()),
                    None => self.gold_turns.remove(pool),
                };
            }
            let displayed = self.state.pool(pool).displayed();
            // Each table shows its own bank's meters of a banked level (docs/readings.md,
            // "Levels"): one list per bank (flor or salon), one for all in a pool without banks.
            let banked = self.state.pool(pool).rules().has_banks();
            let mut levels: Vec<Vec<pozo_core::state::panel::LevelMeter>> = Vec::new();
            let mut of_bank: BTreeMap<pozo_engine::Bank, usize> = BTreeMap::new();
            let mut of_table = Vec::with_capacity(if banked { senders.len() } else { 0 });
            if !banked {
                let meters = pozo_core::state::view::table_level_meters(self.state.pool(pool), &pozo_engine::Bank::default());
                levels.push(self.state.with_open_ceilings(pool, meters));
            }
            for (id, _) in senders.iter().filter(|_| banked) {
                let bank = self.state.panel_bank(id);
                let at = match of_bank.get(&bank) {
                    Some(at) => *at,
                    None => {
                        let meters = pozo_core::state::view::table_level_meters(self.state.pool(pool), &bank);
                        levels.push(self.state.with_open_ceilings(pool, meters));
                        of_bank.insert(bank, levels.len() - 1);
                        levels.len() - 1
                    }
                };
                of_table.push(at);
            }
            let amounts = PoolAmounts { sequence, displayed, levels, of_table };
            // At most every panel of the pool, and no more than the batch touched unless the turn moved.
            let mut views = Vec::with_capacity(if turn_moved { senders.len() } else { tables.len().min(senders.len()) });
            for (index, (id, sender)) in senders.iter().enumerate() {
                if turn_moved || tables.contains(id) {
                    if let Some(view) = self.state.table_view(id) {
                        views.push((index, view));
                    }
                } else {
                    // Only the amounts can have changed: checked on every batch of the tests.
                    // (What the watch holds is the last batch's: it was sent before this one was sealed.)
                    debug_assert_eq!(
                        Some({
                            let mut view = sender.borrow().view.clone();
                            view.displayed = amounts.displayed;
                            view.levels.clone_from(&amounts.levels[amounts.of_table.get(index).copied().unwrap_or(0)]);
                            view
                        }),
                        self.state.table_view(id),
                        "table {id} changed unpublished"
                    );
                }
            }
            prepared.push(PoolPush { pool: pool.clone(), amounts, views });
        }
        // The prize lists change with a hit (a new head of the pool's hits) or a decision.
        let mut prizes_changed = decided.clone();
        for pool in pools {
            let head = self.state.data().hits.get(pool).and_then(|hits| hits.front()).map(|hit| hit.journal_sequence);
            if self.hit_heads.get(pool).copied() != head {
                match head {
                    Some(head) => self.hit_heads.insert(pool.clone(), head),
                    None => self.hit_heads.remove(pool),
                };
                prizes_changed.insert(pool.clone());
            }
        }
        let display = display_of(&self.state, sequence, self.clock.now_us(), Some(&self.display.borrow()), Some(&prizes_changed));
        Publication { sequence, wired: Arc::clone(&self.wired), pools: prepared, display }
    }

    /// Sends a durable batch's pushes: whole views where they changed, the amounts to the
    /// other tables of each touched pool (written at once, their watchers woken at once or
    /// later: `amounts.rs`), and the displays (stamped with now, when the batch became durable).
    pub(super) fn send(&mut self, publication: Publication) {
        let Publication { sequence, wired, pools, mut display } = publication;
        // Prepared before an approved change listed the panels anew (`rewire`, while this batch
        // was being flushed): its views go by table, its amounts are left (the change's own
        // batch sends every table its whole view).
        let relisted = !Arc::ptr_eq(&wired, &self.wired);
        for PoolPush { pool, amounts, views } in pools {
            if relisted {
                for (_, view) in views {
                    let panel = self.pool_tables.values().flatten().find(|(id, _)| *id == view.table_id);
                    if let Some((_, sender)) = panel {
                        send_view(sender, sequence, view);
                    }
                }
                continue;
            }
            let Some(panels) = self.pool_tables.get(&pool) else { continue };
            let mut viewed = Vec::with_capacity(views.len());
            let mut woken = Vec::with_capacity(views.len());
            for (index, view) in views {
                let Some((_, sender)) = panels.get(index) else { continue };
                viewed.push(index);
                if send_view(sender, sequence, view) {
                    woken.push(index);
                }
            }
            self.amounts.write(&pool, &amounts, panels, &viewed, &woken);
        }
        let now = Instant::now();
        if self.amounts.open(now) && self.wake_quiet() {
            self.amounts.woken(now);
        }
        display.durable_unix_us = self.clock.now_us();
        self.display.send_if_modified(|push| {
            if push.pools == display.pools {
                return false;
            }
            *push = display;
            true
        });
    }

    /// Wakes the watchers of every quiet panel now: when due, before the panels are listed
    /// anew, when the writer stops, after a standby's round.
    pub(super) fn wake_amounts(&mut self) {
        let now = Instant::now();
        if self.wake_quiet() {
            self.amounts.woken(now);
        }
    }

    /// Wakes the watchers of every quiet panel; whether any was.
    fn wake_quiet(&mut self) -> bool {
        let mut woke = false;
        for (pool, quiet) in self.amounts.take() {
            let Some(panels) = self.pool_tables.get(&pool) else { continue };
            debug_assert_eq!(panels.len(), quiet.len(), "quiet panels are woken before their pool's list changes");
            for ((_, sender), quiet) in panels.iter().zip(quiet) {
                if quiet {
                    sender.send_modify(|_| {});
                    woke = true;
                }
            }
        }
        woke
    }
}

/// Sends a table its whole view; whether it changed the panel (and so woke its watchers).
fn send_view(sender: &watch::Sender<TablePush>, sequence: u64, view: TableView) -> bool {
    sender.send_if_modified(|push| {
        if push.view == view {
            return false;
        }
        *push = TablePush { journal_sequence: sequence, view };
        true
    })
}

/// An encoded snapshot, or the panic that stopped its encoding (fail-stop).
pub(super) fn unwrap_encoded(encoded: Result<EncodedSnapshot, crate::blocking::Failed>) -> EncodedSnapshot {
    match encoded {
        Ok(encoded) => encoded,
        Err(crate::blocking::Failed::Panicked(payload)) => std::panic::resume_unwind(payload),
        Err(error) => panic!("snapshot encoding did not finish, stopping the controller: {error}"),
    }
}
