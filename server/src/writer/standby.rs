//! A hot standby: follows the writer's journal in a [`Shared`] store (PostgreSQL; the seeded
//! simulation's shared disk) through the same `Journal`, applies it through the same
//! `apply_entry`, publishes the signs, and takes over as the writer when the writer's lock is
//! let go (docs/journal.md, "On PostgreSQL").

use std::sync::Arc;

use tokio::sync::{mpsc, watch};
use tracing::{debug, info};

use super::batch::{Pending, Writer};
use super::handle::{FailStop, Request};
use super::keys::{journal_build, journal_key_set};
use crate::config::Config;
use crate::journal::mark::Mark;
use crate::journal::recovery::{NoMarkHere, RecoveryError, apply_entry, check_acknowledged, check_tip_record};
use crate::journal::store::{Candidate, Shared, Store};
use crate::journal::{Journal, JournalError, JournalTip};
use crate::read::ReadModel;
use crate::read::status::Role;

/// How a standby's stop on a damaged journal begins: it exits as a journal refused does.
const DAMAGED: &str = "standby: the writer's journal is damaged";

/// Entries a standby reads and applies per round; a journal further ahead takes more rounds.
const FOLLOW_ENTRIES_MAX: usize = 4_096;

/// How often a standby asks for the writer's lock.
pub(crate) const STANDBY_POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// How long a standby waits before connecting again to a database it lost.
pub(crate) const STANDBY_RECONNECT: std::time::Duration = std::time::Duration::from_secs(1);

/// What a hot standby needs to go on following, and to take over.
pub(super) struct Following {
    pub(super) shared: Arc<dyn Shared>,
    /// Asks for the writer's lock; `None` only while it is asking, off the runtime.
    pub(super) candidate: Option<Box<dyn Candidate>>,
    pub(super) config: Arc<Config>,
    pub(super) mark_path: std::path::PathBuf,
    pub(super) changed_by: String,
    /// The database could not be reached at the last try: an outage is said once, not every poll.
    pub(super) database_lost: bool,
}

impl Following {
    /// The database cannot be reached (however that shows): said once until it is over.
    pub(super) fn database_lost(&mut self) {
        if !self.database_lost {
            tracing::warn!("standby: the database cannot be reached; following again once it can");
            self.database_lost = true;
        }
    }

    pub(super) fn mended(&mut self) {
        if self.database_lost {
            info!("standby: following the writer's journal again");
            self.database_lost = false;
        }
    }
}

/// Asks once for the writer's lock, as blocking work ([`crate::blocking`]): the candidate comes
/// back with its answer.
pub(super) async fn ask(
    mut candidate: Box<dyn Candidate>,
) -> (Box<dyn Candidate>, Result<Option<Arc<dyn Store>>, crate::journal::store::StoreError>) {
    crate::blocking::spawn(move || {
        let asked = candidate.try_take();
        (candidate, asked)
    })
    .await
    .unwrap_or_else(|failed| failed.resume())
}

impl Writer {
    /// The hot standby's loop: every [`STANDBY_POLL`] it applies what the
    /// writer committed since (publishing the read model, the panels and the signs as the
    /// writer did), then asks for the writer's lock. Once the lock is ours it takes over
    /// ([`Writer::take_over`]) and runs as the writer, on the same state, panels and signs:
    /// displays watching it see no break.
    pub(super) async fn follow(
        mut self,
        mut following: Following,
        role: watch::Sender<Role>,
        journals: watch::Sender<Journal>,
        queue: mpsc::Receiver<Request>,
        mut stopped: watch::Receiver<bool>,
    ) {
        loop {
            let mut pause = STANDBY_POLL;
            match self.catch_up().await {
                // Further behind than a round reads: on at once.
                Ok(true) => pause = std::time::Duration::ZERO,
                Ok(false) => {
                    let candidate = following.candidate.take().expect("the candidate is back after each ask");
                    let (candidate, asked) = ask(candidate).await;
                    following.candidate = Some(candidate);
                    match asked {
                        Ok(Some(store)) => {
                            let started = std::time::Instant::now();
                            self.take_over(store, &following).await;
                            journals.send_replace(self.journal.clone());
                            role.send_replace(Role::Writer);
                            info!(
                                entries = self.tip.entries,
                                took_ms = started.elapsed().as_millis() as u64,
                                "standby: the writer's lock is ours; took over as the writer"
                            );
                            return self.run(queue, stopped).await;
                        }
                        Ok(None) => following.mended(),
                        Err(error) => {
                            following.database_lost();
                            debug!(%error, "standby: cannot ask for the writer's lock");
                            pause = STANDBY_RECONNECT;
                        }
                    }
                }
                // An entry that does not decode is damage, not a lost connection.
                Err(error @ JournalError::Corrupt { .. }) => self.damaged(error),
                Err(error) => {
                    following.database_lost();
                    debug!(%error, "standby: the writer's journal cannot be read");
                    pause = STANDBY_RECONNECT;
                    let shared = Arc::clone(&following.shared);
                    match crate::blocking::spawn(move || shared.follower()).await {
                        Ok(Ok(reader)) => {
                            self.journal = Journal::on(reader);
                            journals.send_replace(self.journal.clone());
                        }
                        Ok(Err(error)) => debug!(%error, "standby: connecting again failed"),
                        Err(failed) => debug!(problem = %failed, "standby: connecting again failed"),
                    }
                }
            }
            tokio::select! {
                _ = stopped.wait_for(|stop| *stop) => {
                    info!(entries = self.tip.entries, "standby stopped");
                    return;
                }
                _ = tokio::time::sleep(pause) => {}
            }
        }
    }

    /// Reads what the writer committed after this standby's tip (at most
    /// [`FOLLOW_ENTRIES_MAX`] entries), checks the tip record's seal, applies the entries with
    /// the chain checked, checks the tip record's hash once it reaches it, and publishes the new
    /// state. True while the journal holds more. A read that fails is a [`JournalError::Store`]
    /// to retry; a damaged journal stops the controller ([`Writer::damaged`]).
    pub(super) async fn catch_up(&mut self) -> Result<bool, JournalError> {
        if pozo_core::planted::on(pozo_core::planted::Bug::TakeOverBehind) {
            return Ok(false);
        }
        let journal = self.journal.clone();
        let after = self.tip.entries;
        let read = crate::blocking::spawn(move || -> Result<_, JournalError> {
            let Some(stored) = journal.stored_tip()? else { return Ok(None) };
            let wanted = stored.0.saturating_sub(after).min(FOLLOW_ENTRIES_MAX as u64) as usize;
            let entries = journal.read_after(after).take(wanted).collect::<Result<Vec<_>, _>>()?;
            Ok(Some((stored, wanted, entries)))
        })
        .await
        .unwrap_or_else(|failed| failed.resume())?;
        let Some((stored, wanted, read)) = read else {
            self.damaged(format!("its tip record is gone (this standby followed it to entry {})", self.tip.entries))
        };
        let (entries, hash, seal) = stored;
        // The seal first: nothing is applied on the word of a tip record the journal key did not seal.
        if self.sealer.tip_seal(entries, &hash) != seal {
            self.damaged(RecoveryError::TipUnsealed { entries });
        }
        if entries < self.tip.entries {
            self.damaged(format!(
                "it now ends at entry {entries}, but this standby followed it to entry {}: entries were removed \
                 (a journal restored on the writer's side is started anew, not followed)",
                self.tip.entries
            ));
        }
        if read.len() < wanted {
            let last = after + read.len() as u64;
            self.damaged(RecoveryError::Gap { sequence: entries, after: last });
        }
        let mut touched = Pending::default();
        let applied_any = !read.is_empty();
        for entry in read {
            match apply_entry(&mut self.state, &self.tip, &entry) {
                Ok(applied) => {
                    touched.touch(&applied);
                    if matches!(applied, pozo_core::state::Applied::Change(_)) {
                        touched.pools.extend(self.state.pools().map(|pool| pool.rules().id.clone()));
                    }
                }
                Err(problem) => self.damaged(problem),
            }
            self.tip = JournalTip { entries: entry.record.sequence, hash: entry.hash };
            self.last_time_ms = self.last_time_ms.max(entry.record.time_ms);
        }
        if self.tip.entries == entries
            && let Err(problem) = check_tip_record(stored, &self.tip, &self.sealer)
        {
            self.damaged(problem);
        }
        self.rewire();
        let rewired = std::mem::take(&mut self.pending);
        touched.pools.extend(rewired.pools);
        touched.tables.extend(rewired.tables);
        if applied_any {
            self.publish(&touched);
        }
        Ok(self.tip.entries < entries)
    }

    /// Publishes the state as the writer does a durable batch: the read model, then the pushes.
    pub(super) fn publish(&mut self, touched: &Pending) {
        let publication = self.prepare(&touched.pools, &touched.tables, &touched.decided);
        // Every table's seats read again (a standby's round is no hot path), and kept for the
        // writer this standby may become.
        self.read_every_seat();
        self.model.send_replace(Arc::new(ReadModel::with_seats(&self.state, self.tip, Arc::clone(&self.seats))));
        self.send(publication);
        // A standby's loop has no timer for the panels' watchers: woken with each round.
        self.wake_amounts();
    }

    /// Fail-stop: a standby does not serve, nor take over, a journal whose chain or tip it
    /// cannot check. (It exits as for any journal refused: docs/operations.md §15.)
    pub(super) fn damaged(&self, problem: impl std::fmt::Display) -> ! {
        let message = format!(
            "{DAMAGED}: {problem}. This controller neither serves nor takes over a damaged journal; \
             `pozo-server verify --store` names the last good entry (docs/operations.md §6)"
        );
        tracing::error!("{message}");
        std::panic::panic_any(FailStop::JournalDamaged(message))
    }

    /// The writer's lock is ours: reads the rest of what the writer before committed through
    /// the writer's own connection, journals a changed key set, writes the mark here (starting
    /// at the tip if this controller has none), and is ready to run as the writer. Fail-stop on
    /// any problem: with the lock held, a standby that cannot take over must let it go, which
    /// its stopping does.
    pub(super) async fn take_over(&mut self, store: Arc<dyn Store>, following: &Following) {
        self.journal = Journal::on(store);
        let fail = |error: anyhow::Error| -> ! {
            panic!("standby: taking over as the writer failed: {error:#}; this controller stops and lets the lock go")
        };
        loop {
            match self.catch_up().await {
                Ok(true) => {}
                Ok(false) => break,
                Err(error) => fail(error.into()),
            }
        }
        // The mark is checked before anything is written: a controller that cannot serve this
        // journal writes nothing to it.
        let (journal, tip, sealer, mark_path) =
            (self.journal.clone(), self.tip, self.sealer.clone(), following.mark_path.clone());
        let mut mark = crate::blocking::spawn(move || -> anyhow::Result<Mark> {
            check_acknowledged(&journal, &tip, &mark_path, &sealer, NoMarkHere::StartAtTip)?;
            Ok(Mark::open(&mark_path, sealer)?)
        })
        .await
        .map_err(|failed| anyhow::anyhow!("the mark: {failed}"))
        .and_then(|mark| mark)
        .unwrap_or_else(|error| fail(error));
        let before = self.tip.entries;
        self.tip = journal_key_set(
            &mut self.state,
            self.tip,
            &self.journal,
            &self.sealer,
            &following.config,
            &following.changed_by,
            &self.clock,
        )
        .await
        .unwrap_or_else(|error| fail(error));
        self.tip = journal_build(&mut self.state, self.tip, &self.journal, &self.sealer, &following.changed_by, &self.clock)
            .await
            .unwrap_or_else(|error| fail(error));
        if self.tip.entries != before {
            let time_ms = self.journal.entry(self.tip.entries).ok().flatten().map(|entry| entry.record.time_ms);
            self.last_time_ms = self.last_time_ms.max(time_ms.unwrap_or(0));
            self.publish(&Pending::default());
        }
        let tip = self.tip;
        let mark = crate::blocking::spawn(move || -> anyhow::Result<Mark> {
            mark.write(tip.entries, &tip.hash)?;
            Ok(mark)
        })
        .await
        .map_err(|failed| anyhow::anyhow!("the mark: {failed}"))
        .and_then(|mark| mark)
        .unwrap_or_else(|error| fail(error));
        self.mark = Some(mark);
        self.last_snapshot =
            self.journal.load_snapshot().unwrap_or_else(|error| fail(error.into())).map(|stored| stored.sequence).unwrap_or(0);
    }
}
