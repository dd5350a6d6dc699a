//! A writer and its hot standby on one shared database (as two controllers on PostgreSQL):
//! both run in the seed's runtime, each its own process with its own mark, on the disk's
//! [`Disk::shared`](super::disk::Disk::shared) sessions. Beside the faults of one controller,
//! a pair's run kills one of them alone (the other goes on; the writer's lock, if it held it,
//! is free), and cuts the writer off from the database (its lock lost to the standby, the
//! append it had in flight committed or not). Whatever stops is started again a moment later,
//! as a standby. The floor's clients try one controller, then the other, as an agent given
//! both addresses does.
//!
//! Checked besides the oracle's invariants: every controller that serves (the writer, and the
//! standby with its reads) serves the journal's figures at the entry it names, under the one
//! journal's identity; a controller stops by itself only with a storage failure (exit class
//! 6), and only when a flush failed or the database cut it off; and the lock changes hands.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use pozo_proto::v1 as pb;
use pozo_server::exit::ExitClass;
use rand::Rng;
use tokio::sync::{mpsc, oneshot};

use super::floor::{self, Agent};
use super::{ADDRESSES, Actions, Busy, Failure, REQUEST_TIMEOUT, RunEnd, SNAPSHOT_EVERY, World, net, until};

/// Per thousand steps: the writer is cut off from the database (its lock lost to the standby).
const CUT_WRITER: u32 = 4;
/// Per thousand steps: one controller is killed alone.
const KILL_ONE: u32 = 3;
/// How long a controller that stopped stays down before it is started again (ms).
const DOWN_MS: std::ops::Range<u64> = 100..5_000;

/// What a controller's process told the world.
enum Event {
    Ready(u64),
    Ended(u64, Result<anyhow::Result<()>, tokio::task::JoinError>),
}

/// One controller's process.
struct Process {
    slot: usize,
    /// Its number, never used again: the disk's owner of its sessions.
    owner: u64,
    stop: Option<oneshot::Sender<()>>,
    ready: bool,
    /// Killed by the world: how it ends is not judged.
    killed: bool,
    /// Flushes that had failed when it started: one more, and its storage failure is expected.
    flush_failures: u64,
    /// Appends fenced when it started: one more is two writers.
    fenced: u64,
    oracle: tonic::transport::Channel,
}

impl World {
    /// Starts controller `slot` (a new process) as a standby of the shared database: it
    /// becomes the writer at once if no one holds the writer's lock.
    fn spawn_process(&mut self, slot: usize, events: &mpsc::UnboundedSender<Event>) -> Process {
        self.outcome.processes += 1;
        let owner = self.outcome.processes;
        let address = ADDRESSES[slot];
        let incoming = self.net.listen(address);
        let (stop, stopped) = oneshot::channel::<()>();
        let options = pozo_server::ServeOptions {
            snapshot_every: SNAPSHOT_EVERY,
            cards: pozo_server::cards::CardSource::Seeded(self.options.seed),
            mark: Some(self.mark.with_extension(format!("acknowledged-{slot}"))),
            changed_by: Some(format!("vopr-{slot}")),
            clock: Arc::clone(&self.clock) as Arc<dyn pozo_server::clock::Clock>,
            store: Some(pozo_server::writer::StoreChoice::Shared(self.disk.shared(owner))),
            ..Default::default()
        };
        let config = (*self.config).clone();
        let data = self.data.join(address);
        let told = events.clone();
        let server = tokio::task::spawn_local(async move {
            pozo_server::serve_incoming(
                move || incoming,
                address.into(),
                config,
                &data,
                options,
                async move {
                    let _ = stopped.await;
                },
                move |_| {
                    let _ = told.send(Event::Ready(owner));
                },
            )
            .await
        });
        let watcher = events.clone();
        tokio::task::spawn_local(async move {
            let ended = server.await;
            let _ = watcher.send(Event::Ended(owner, ended));
        });
        self.say(format!("{address} starts (process {owner})"));
        Process {
            slot,
            owner,
            stop: Some(stop),
            ready: false,
            killed: false,
            flush_failures: self.disk.counts().flush_failed,
            fenced: self.disk.counts().fenced,
            oracle: net::channel(&self.net, address, true, Duration::from_secs(30)),
        }
    }

    /// Kills `process` alone: its sessions and the writer's lock (if it held it) gone with
    /// its connections; the other controller goes on.
    fn kill_one(&mut self, process: &mut Process) {
        process.killed = true;
        let address = ADDRESSES[process.slot];
        self.say(format!("{address} (process {}) killed alone", process.owner));
        if let Some(line) = self.disk.process_gone(process.owner) {
            self.say(format!("kill: {line}"));
        }
        self.net.gone(address);
        // Its tasks are told to stop: with its sessions gone, they can write nothing.
        if let Some(stop) = process.stop.take() {
            let _ = stop.send(());
        }
    }

    /// One run of the pair, inside its runtime.
    pub(super) async fn run_pair(&mut self, down: Duration) -> Result<RunEnd, Box<Failure>> {
        self.clock.start_run(down);
        self.seen.borrow_mut().run_began = Some(tokio::time::Instant::now());
        let (events_to, mut events) = mpsc::unbounded_channel();
        let mut processes: Vec<Process> = vec![self.spawn_process(0, &events_to), self.spawn_process(1, &events_to)];
        let mut restart_at: [Option<tokio::time::Instant>; 2] = [None, None];
        let mut cut_off: Vec<u64> = Vec::new();
        let mut last_writer: Option<u64> = None;
        let floor_channel = net::Controllers::new(&self.net, &ADDRESSES, REQUEST_TIMEOUT);
        let mut journal_id: Option<String> = None;
        let mut watchers = Vec::new();
        let mut actions: Actions = FuturesUnordered::new();
        let mut busy = Busy { agents: vec![false; self.agents.len()], office: false, supervisors: false };
        // The whole floor's crash (both machines), as in a run of one controller.
        let crash_after = self.step + self.rng.random_range(20..400);
        let crash_in = Duration::from_micros(self.rng.random_range(0..4_000));
        let mut crash_at: Option<tokio::time::Instant> = None;
        let ended = loop {
            if let Some(journal_id) = &journal_id {
                self.more_actions(&mut actions, &mut busy, &floor_channel, journal_id);
            }
            let restart = restart_at.iter().flatten().min().copied();
            tokio::select! {
                biased;
                _ = until(crash_at) => break RunEnd::Crash(super::disk::Crash::Process),
                event = events.recv() => {
                    let event = event.expect("the run holds a sender");
                    match event {
                        Event::Ready(owner) => {
                            let Some(at) = processes.iter().position(|process| process.owner == owner) else { continue };
                            if processes[at].killed {
                                continue;
                            }
                            processes[at].ready = true;
                            let id = self.ready(&processes[at], journal_id.as_deref()).await?;
                            if journal_id.is_none() && let Some(id) = id {
                                self.outcome.journal_id.clone_from(&id);
                                for agent in &self.agents {
                                    watchers.push(tokio::task::spawn_local(Agent::watch(
                                        std::rc::Rc::clone(agent),
                                        floor_channel.clone(),
                                        id.clone(),
                                        std::rc::Rc::clone(&self.seen),
                                        self.disk.clone(),
                                    )));
                                }
                                watchers.push(tokio::task::spawn_local(floor::signs(
                                    floor_channel.clone(),
                                    std::rc::Rc::clone(&self.seen),
                                    self.disk.clone(),
                                )));
                                journal_id = Some(id);
                            }
                        }
                        Event::Ended(owner, ended) => {
                            let Some(at) = processes.iter().position(|process| process.owner == owner) else { continue };
                            let process = processes.swap_remove(at);
                            self.say(format!("{} (process {owner}) ended", ADDRESSES[process.slot]));
                            if !process.killed {
                                self.judge_end(&process, ended, &cut_off)?;
                                self.disk.process_gone(owner);
                                self.net.gone(ADDRESSES[process.slot]);
                            }
                            let down = Duration::from_millis(self.rng.random_range(DOWN_MS));
                            restart_at[process.slot] = Some(tokio::time::Instant::now() + down);
                        }
                    }
                }
                _ = until(restart) => {
                    let now = tokio::time::Instant::now();
                    let due: Vec<usize> = restart_at
                        .iter_mut()
                        .enumerate()
                        .filter_map(|(slot, at)| at.take_if(|at| *at <= now).map(|_| slot))
                        .collect();
                    for slot in due {
                        let process = self.spawn_process(slot, &events_to);
                        processes.push(process);
                    }
                }
                next = actions.next(), if !actions.is_empty() => {
                    let Some((who, _done)) = next else { continue };
                    busy.done(who);
                    self.step += 1;
                    for line in self.net.step(&self.clock) {
                        self.say(format!("step {}: {line}", self.step));
                    }
                    if self.options.faults {
                        self.pair_faults(&mut processes, &mut cut_off);
                    }
                    self.check_journal()?;
                    let journal = journal_id.clone().unwrap_or_default();
                    let serving: Vec<_> =
                        processes.iter().filter(|process| process.ready && !process.killed).map(|process| process.oracle.clone()).collect();
                    for oracle in serving {
                        self.check_reports(&oracle, &journal, true).await?;
                    }
                    if self.step >= self.options.steps {
                        break RunEnd::Done;
                    }
                    if crash_at.is_none() && self.step >= crash_after {
                        crash_at = Some(tokio::time::Instant::now() + crash_in);
                    }
                }
            }
            // The writer's lock changed hands: a takeover.
            if let Some(writer) = self.disk.writer()
                && last_writer != Some(writer)
            {
                if let Some(before) = last_writer {
                    self.outcome.takeovers += 1;
                    // The new writer's draws are the old one's (docs/readings.md, "The mystery level").
                    self.replay(false)?;
                    self.same_draws()?;
                    self.recovered_at.push(self.disk.entries());
                    self.taken_over_at.push(self.disk.entries());
                    self.say(format!("process {writer} took the writer's lock over from process {before}"));
                }
                last_writer = Some(writer);
            }
        };
        for watcher in watchers {
            watcher.abort();
        }
        self.clock.stop_run();
        Ok(ended)
    }

    /// The pair's own faults after a step: the writer cut off from the database, or one
    /// controller killed alone (started again a moment later).
    fn pair_faults(&mut self, processes: &mut [Process], cut_off: &mut Vec<u64>) {
        let roll = self.rng.random_range(0..1_000);
        if roll < CUT_WRITER {
            if let Some((owner, settled)) = self.disk.cut_writer() {
                self.outcome.locks_lost += 1;
                cut_off.push(owner);
                self.say(format!("the database cut the writer (process {owner}) off: its lock is free"));
                if let Some(line) = settled {
                    self.say(format!("cut: {line}"));
                }
            }
        } else if roll < CUT_WRITER + KILL_ONE {
            let live: Vec<usize> = (0..processes.len()).filter(|&at| !processes[at].killed).collect();
            if !live.is_empty() {
                let at = live[self.rng.random_range(0..live.len())];
                self.outcome.kills_alone += 1;
                self.kill_one(&mut processes[at]);
            }
        }
    }

    /// A controller of the pair serves (as the writer or the standby): the journal's identity
    /// is the one the floor signs for, nothing acknowledged is gone, and its reports are the
    /// journal's. Returns the journal's identity, unless the controller went before it answered.
    async fn ready(&mut self, process: &Process, journal_id: Option<&str>) -> Result<Option<String>, Box<Failure>> {
        let address = ADDRESSES[process.slot];
        let identified =
            pb::controller_client::ControllerClient::new(process.oracle.clone()).identify(pb::IdentifyRequest {}).await;
        let id = match identified {
            Ok(answer) => answer.into_inner().journal_id,
            Err(status) if floor::no_answer(&status) => return Ok(None),
            Err(status) => return Err(self.fail(format!("recovery: Identify at {address}: {status}"))),
        };
        if let Some(known) = journal_id
            && known != id
        {
            return Err(self.fail(format!("recovery: {address} serves journal {id}, the pair's is {known}")));
        }
        self.served()?;
        self.check_reports(&process.oracle, &id, true).await?;
        self.say(format!("{address} (process {}) serves; the disk holds {} entries", process.owner, self.disk.entries()));
        Ok(Some(id))
    }

    /// A controller of the pair stopped by itself: only as a storage failure (exit class 6),
    /// and only when a flush failed in its life or the database cut it off.
    fn judge_end(
        &mut self,
        process: &Process,
        ended: Result<anyhow::Result<()>, tokio::task::JoinError>,
        cut_off: &[u64],
    ) -> Result<(), Box<Failure>> {
        let address = ADDRESSES[process.slot];
        let error = match ended {
            Ok(Ok(())) => return Err(self.fail(format!("{address} (process {}) ended unasked", process.owner))),
            Ok(Err(error)) => error,
            Err(panic) => return Err(self.fail(format!("{address} (process {}) panicked: {panic}", process.owner))),
        };
        let class = ExitClass::of(&error);
        self.outcome.fail_stops += 1;
        self.say(format!("{address} (process {}) stopped by itself ({class:?})", process.owner));
        let counts = self.disk.counts();
        if counts.fenced > process.fenced {
            return Err(self.fail(format!(
                "takeover: {address} (process {}) wrote at an entry another writer had committed (fenced), and stopped \
                 ({class:?}): two writers",
                process.owner
            )));
        }
        let expected = counts.flush_failed > process.flush_failures || cut_off.contains(&process.owner);
        if class != ExitClass::Storage || !expected {
            return Err(self.fail(format!(
                "takeover: {address} (process {}) stopped ({class:?}) with no flush failed and its session whole: {error:#}",
                process.owner
            )));
        }
        Ok(())
    }
}
