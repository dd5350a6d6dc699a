//! `pozo-sim vopr`: the whole controller in one thread under one seed, with the faults a
//! disk, a network, a clock and an operator's kill can produce, every invariant checked
//! after every step, and any failure replayed bit for bit from its seed (after TigerBeetle's
//! VOPR; docs/architecture.md, "The seeded simulation").
//!
//! What runs is the controller as `serve` runs it (recovery, the writer and its batches, the
//! services over tonic), on a current-thread tokio runtime whose clock is paused (time moves
//! only when every task waits), with the journal on [`disk::Disk`] behind the store trait,
//! the mark in a file, connections over [`net::Net`], and its wall clock a [`net::SimClock`].
//! A crash drops the whole runtime (every task of the controller and of the floor, as kill -9
//! does), the disk keeps what [`disk::Disk::crash`] decides, and the next run begins on a new
//! runtime from what is left. Work the controller sends off its thread (the mark's fsync, a
//! snapshot's encoding) runs inline here (`pozo_server::blocking`), so that one seed is one
//! order of events.
//!
//! - [`disk`]: the store, two images (written, synced), and what a crash keeps.
//! - [`net`]: in-memory connections with delays and cuts, partitions, the clock.
//! - [`floor`]: the agents, the office, the signs and panels, with their retries.
//! - [`oracle`]: the journal on the disk replayed by the pure core; the invariants.
//! - `checks`: the invariants checked after each step and at each start.
//! - `pair`: a writer and its hot standby on a shared database.

mod checks;
pub mod disk;
pub mod floor;
pub mod net;
pub mod oracle;
mod pair;

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use pozo_proto::v1 as pb;
use pozo_server::config::Config;
use pozo_server::exit::ExitClass;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sha2::{Digest, Sha256};

use disk::{Crash, Disk, DiskCounts, DiskFaults};
use floor::{Agent, Done, Seen};
use net::{Net, NetCounts, NetFaults, SimClock};
use oracle::Oracle;

pub use crate::casino::Rulebooks;
pub use pozo_server::planted::Bug;

/// A snapshot every this many entries: often, so that recoveries start from one, and a torn
/// or lost one is met.
const SNAPSHOT_EVERY: u64 = 64;

/// The ceiling of the link's mystery level on the market floor (config/mercado.toml has
/// 60.000,00 above a reset of 20.000,00): 400,00 above the reset, about 20 Black Jack bets'
/// shares, so that the level is drawn, hit and drawn again through the crashes of every seed.
pub const MYSTERY_CEILING: &str = "20400.00";

/// How long a request may wait before the agent counts it unanswered.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(2);

/// The controllers' addresses: the one controller's, or the writer's and its standby's
/// (either may be the writer).
const ADDRESSES: [&str; 2] = ["controller-a.sim", "controller-b.sim"];

/// The floor's actions under way: which agent's (`None` the office's, `usize::MAX` the
/// supervisors'), and what each came to.
type Actions = FuturesUnordered<std::pin::Pin<Box<dyn std::future::Future<Output = (Option<usize>, Option<Done>)>>>>;

/// Who on the floor has an action under way.
struct Busy {
    agents: Vec<bool>,
    office: bool,
    supervisors: bool,
}

/// One seed's run.
#[derive(Clone, Debug)]
pub struct Options {
    pub seed: u64,
    /// Steps (answered actions) to play.
    pub steps: u64,
    /// Faults injected (false: only the crashes and restarts).
    pub faults: bool,
    /// A bug planted in the controller (only with the `planted-bugs` feature).
    pub plant: Option<Bug>,
    /// A writer and its hot standby on a shared database instead of one controller on its
    /// own disk.
    pub pair: Pair,
    /// The rulebooks and layout the controller serves: the embedded ones, or the market's
    /// example (`config/examples/mercado-casino.toml` with `config/iplyc.toml` and
    /// `config/mercado.toml`: pools with levels, the house's level, the envy bonus).
    pub rulebooks: Rulebooks,
}

/// Which seeds run a writer and its hot standby.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pair {
    /// Every third seed (those divisible by 3).
    BySeed,
    Always,
    Never,
}

impl Pair {
    pub fn for_seed(self, seed: u64) -> bool {
        match self {
            Pair::BySeed => seed.is_multiple_of(3),
            Pair::Always => true,
            Pair::Never => false,
        }
    }
}

/// What a seed's run did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Outcome {
    pub seed: u64,
    pub steps: u64,
    pub runs: u64,
    pub crashes_process: u64,
    pub crashes_power: u64,
    pub fail_stops: u64,
    pub refusals_expected: u64,
    pub mark_lost: u64,
    pub mark_stale: u64,
    pub entries: u64,
    pub acknowledged: u64,
    pub refused_commands: u64,
    pub retries: u64,
    pub duplicates: u64,
    pub office_decisions: u64,
    /// Transfers between pools two supervisors made.
    pub changes: u64,
    /// Whether a writer and its hot standby ran on a shared database.
    pub pair: bool,
    /// Controllers killed alone (the other one went on).
    pub kills_alone: u64,
    /// Writers cut off from the database, their lock lost.
    pub locks_lost: u64,
    /// Times a controller took the writer's lock over from another.
    pub takeovers: u64,
    /// Controller processes started (a pair's, each start of either).
    pub processes: u64,
    pub disk: DiskCounts,
    pub net: NetCounts,
    /// SHA-256 of the trace: the same seed gives the same digest.
    pub digest: String,
    /// The journal the controller announced (its installation drawn from the seed).
    pub journal_id: String,
    /// The rulebooks the controller served.
    pub rulebooks: Rulebooks,
    /// The awards the answers paid, per premio code (a command answered again counted once).
    pub awards: std::collections::BTreeMap<String, u64>,
    /// The awards the answers paid, per pool and level, a banked level per bank
    /// ("mercado-gran-sala Major · F4").
    pub level_awards: std::collections::BTreeMap<String, u64>,
    /// Mystery draws the journal holds at the end (docs/readings.md, "The mystery level").
    pub mystery_draws: u64,
    /// Mystery hits the journal holds at the end, each trigger in its draw's range.
    pub mystery_hits: u64,
    /// Recoveries (starts after the first, takeovers) that found open draws, all the same.
    pub draws_recovered: u64,
    /// Hits whose draw was journaled before a recovery or a takeover and revealed after it:
    /// each opened the commitment made before (the pure core checks it on replay).
    pub hits_across_recovery: u64,
    /// Of those, hits whose draw was journaled by one writer of a pair and revealed by the
    /// standby that took its lock over.
    pub hits_across_takeover: u64,
    /// Every action, answer, fault and crash, in order.
    #[serde(skip)]
    pub trace: Vec<String>,
}

/// An invariant broken: the seed and the step that show it, and the trace before it.
#[derive(Clone, Debug)]
pub struct Failure {
    pub seed: u64,
    pub step: u64,
    pub invariant: String,
    pub trace: Vec<String>,
    pub rulebooks: Rulebooks,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "seed {} failed at step {}: {}", self.seed, self.step, self.invariant)?;
        let market = if self.rulebooks == Rulebooks::Market { " --rulebooks market" } else { "" };
        writeln!(f, "the last of the trace (replay it: pozo-sim vopr --seed {}{market}):", self.seed)?;
        for line in self.trace.iter().rev().take(25).rev() {
            writeln!(f, "  {line}")?;
        }
        Ok(())
    }
}

/// Everything one seed keeps across the controller's runs.
struct World {
    options: Options,
    config: Arc<Config>,
    disk: Disk,
    net: Net,
    clock: Arc<SimClock>,
    rng: ChaCha8Rng,
    seen: Rc<RefCell<Seen>>,
    agents: Vec<Rc<RefCell<Agent>>>,
    oracle: Oracle,
    /// The mark, and the directory the controller is told is its data's.
    _home: tempfile::TempDir,
    mark: std::path::PathBuf,
    data: std::path::PathBuf,
    /// The mark as it was at the crash before the last one (a stale copy, as a restore brings).
    mark_before: Option<Vec<u8>>,
    /// The mark taken away by a fault, given back by the repair.
    mark_taken: Option<Vec<u8>>,
    step: u64,
    checked_signs: usize,
    /// The last snapshot checked: its entry and tip.
    checked_snapshot: Option<(u64, String)>,
    /// The mystery draws the disk's journal held at the last check: what a recovery must find
    /// again, entry for entry (`checks.rs`).
    draws_journaled: std::collections::BTreeMap<(String, String, u64), (u64, String)>,
    /// The journal's length at each start that served and each takeover.
    recovered_at: Vec<u64>,
    /// The journal's length at each takeover.
    taken_over_at: Vec<u64>,
    outcome: Outcome,
}

/// How one run of the controller ended.
enum RunEnd {
    /// The steps are all played.
    Done,
    Crash(Crash),
    /// The controller stopped by itself (fail-stop) after serving.
    Stopped(String),
    /// It refused to start: the exit class and the message.
    Refused(ExitClass, String),
}

thread_local! {
    /// Panics of this thread while a seed runs: the controller's fail-stops, into the trace.
    static PANICS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Runs one seed.
pub fn run(options: Options) -> Result<Outcome, Box<Failure>> {
    pozo_server::blocking::run_inline();
    pozo_server::journal::Identity::seed_for_simulation(options.seed);
    pozo_server::planted::plant(options.plant);
    // The controller's fail-stop is a panic of its writer: expected here, kept for the trace.
    // A panic of the simulation itself (outside every task) is told as usual.
    let hook: Arc<dyn Fn(&std::panic::PanicHookInfo<'_>) + Send + Sync> = Arc::from(std::panic::take_hook());
    let told = Arc::clone(&hook);
    std::panic::set_hook(Box::new(move |info| {
        if tokio::task::try_id().is_none() {
            return told(info);
        }
        let text = info.to_string();
        PANICS.with(|panics| panics.borrow_mut().push(text.lines().next().unwrap_or_default().to_owned()));
    }));
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let config = Arc::new(match options.rulebooks {
        Rulebooks::Regulations => Config::embedded(),
        Rulebooks::Market => {
            crate::casino::market_floor_with_ceiling(MYSTERY_CEILING).expect("the market's floor is validated by the tests")
        }
    });
    let pair = options.pair.for_seed(options.seed);
    let (disk_faults, net_faults) = match (options.faults, pair) {
        (true, false) => (DiskFaults::DEFAULT, NetFaults::DEFAULT),
        (true, true) => (DiskFaults::DATABASE, NetFaults::DEFAULT),
        (false, _) => (DiskFaults::NONE, NetFaults::NONE),
    };
    let home = tempfile::tempdir().map_err(|error| failure(&options, 0, format!("setup: a temporary directory: {error}")))?;
    let agents = floor::tables(options.rulebooks)
        .iter()
        .map(|table| Rc::new(RefCell::new(Agent::new(&config, table, rng.random()))))
        .collect();
    let mut world = World {
        disk: Disk::new(disk_faults, ChaCha8Rng::seed_from_u64(rng.random())),
        net: Net::new(net_faults, ChaCha8Rng::seed_from_u64(rng.random())),
        clock: Arc::new(SimClock::new()),
        oracle: Oracle::new(Arc::clone(&config)),
        config,
        seen: Rc::default(),
        agents,
        mark: home.path().join("pozo.acknowledged"),
        data: home.path().join("data"),
        _home: home,
        mark_before: None,
        mark_taken: None,
        step: 0,
        checked_signs: 0,
        checked_snapshot: None,
        draws_journaled: Default::default(),
        recovered_at: Vec::new(),
        taken_over_at: Vec::new(),
        outcome: Outcome {
            seed: options.seed,
            steps: 0,
            runs: 0,
            crashes_process: 0,
            crashes_power: 0,
            fail_stops: 0,
            refusals_expected: 0,
            mark_lost: 0,
            mark_stale: 0,
            entries: 0,
            acknowledged: 0,
            refused_commands: 0,
            retries: 0,
            duplicates: 0,
            office_decisions: 0,
            changes: 0,
            pair,
            kills_alone: 0,
            locks_lost: 0,
            takeovers: 0,
            processes: 0,
            disk: DiskCounts::default(),
            net: NetCounts::default(),
            digest: String::new(),
            journal_id: String::new(),
            rulebooks: options.rulebooks,
            awards: Default::default(),
            level_awards: Default::default(),
            mystery_draws: 0,
            mystery_hits: 0,
            draws_recovered: 0,
            hits_across_recovery: 0,
            hits_across_takeover: 0,
            trace: Vec::new(),
        },
        rng,
        options,
    };
    let result = world.play();
    std::panic::set_hook(Box::new(move |info| hook(info)));
    pozo_server::planted::plant(None);
    result?;
    world.finish()
}

/// One line for a seed that passed.
pub fn summary(outcome: &Outcome) -> String {
    format!(
        "seed {}{}: ok{}, {} steps, {} runs ({} killed, {} power lost, {} fail-stops, {} refusals as documented), {} entries, \
         {} acknowledged, {} retries, digest {}",
        outcome.seed,
        if outcome.rulebooks == Rulebooks::Market { " (market)" } else { "" },
        if outcome.pair {
            format!(
                " (writer and standby: {} killed alone, {} locks lost, {} takeovers)",
                outcome.kills_alone, outcome.locks_lost, outcome.takeovers
            )
        } else {
            String::new()
        },
        outcome.steps,
        outcome.runs,
        outcome.crashes_process,
        outcome.crashes_power,
        outcome.fail_stops,
        outcome.refusals_expected,
        outcome.entries,
        outcome.acknowledged,
        outcome.retries,
        &outcome.digest[..16]
    )
}

/// The faults a set of seeds injected, kind by kind, on one line.
pub fn faults_injected(outcomes: &[Outcome]) -> String {
    let sum = |count: fn(&Outcome) -> u64| outcomes.iter().map(count).sum::<u64>();
    let kinds: [(&str, u64); 20] = [
        ("kill -9", sum(|o| o.crashes_process)),
        ("power lost", sum(|o| o.crashes_power)),
        ("flush failed", sum(|o| o.disk.flush_failed)),
        ("append in flight lost", sum(|o| o.disk.in_flight_lost)),
        ("append in flight landed", sum(|o| o.disk.in_flight_landed)),
        ("appends lied about", sum(|o| o.disk.lied)),
        ("entries taken by the power", sum(|o| o.disk.lost_to_power)),
        ("snapshot torn", sum(|o| o.disk.meta_torn)),
        ("meta not made durable", sum(|o| o.disk.meta_lost)),
        ("snapshot lost", sum(|o| o.disk.snapshot_lost)),
        ("damaged reads", sum(|o| o.disk.read_damaged)),
        ("mark lost", sum(|o| o.mark_lost)),
        ("mark stale", sum(|o| o.mark_stale)),
        ("connections cut", sum(|o| o.net.cuts)),
        ("partitions", sum(|o| o.net.partitions)),
        ("delay spikes", sum(|o| o.net.spikes)),
        ("clock jumps", sum(|o| o.net.clock_jumps)),
        ("one of a pair killed alone", sum(|o| o.kills_alone)),
        ("writer's lock lost", sum(|o| o.locks_lost)),
        ("takeovers", sum(|o| o.takeovers)),
    ];
    kinds.iter().map(|(kind, count)| format!("{kind} {count}")).collect::<Vec<_>>().join(", ")
}

/// Sleeps until `at`, or for ever when there is none (a crash or a restart not yet due).
async fn until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// The controller ended by itself: a fail-stop (or a bug).
fn stopped(ended: Result<anyhow::Result<()>, tokio::task::JoinError>) -> RunEnd {
    RunEnd::Stopped(match ended {
        Ok(Ok(())) => "it ended unasked".to_owned(),
        Ok(Err(error)) => format!("{error:#}"),
        Err(_) => "it panicked".to_owned(),
    })
}

fn failure(options: &Options, step: u64, invariant: String) -> Box<Failure> {
    Box::new(Failure { seed: options.seed, step, invariant, trace: Vec::new(), rulebooks: options.rulebooks })
}

impl Busy {
    fn done(&mut self, who: Option<usize>) {
        match who {
            Some(usize::MAX) => self.supervisors = false,
            Some(index) => self.agents[index] = false,
            None => self.office = false,
        }
    }
}

impl World {
    fn fail(&self, invariant: String) -> Box<Failure> {
        Box::new(Failure {
            seed: self.options.seed,
            step: self.step,
            invariant,
            trace: self.seen.borrow().trace.clone(),
            rulebooks: self.options.rulebooks,
        })
    }

    fn say(&self, line: String) {
        self.seen.borrow_mut().say(line);
    }

    /// Runs the controller again and again until the steps are played.
    fn play(&mut self) -> Result<(), Box<Failure>> {
        let mut down = Duration::ZERO;
        while self.step < self.options.steps {
            self.outcome.runs += 1;
            // tokio's own random choices (a `select!`'s first branch) from the seed too.
            let mut seed = [0u8; 16];
            seed[..8].copy_from_slice(&self.options.seed.to_le_bytes());
            seed[8..].copy_from_slice(&self.outcome.runs.to_le_bytes());
            let mut builder = tokio::runtime::Builder::new_current_thread();
            builder.enable_time().start_paused(true);
            // `.cargo/config.toml` builds with `--cfg tokio_unstable`; a RUSTFLAGS of one's own
            // replaces it, and the simulation then runs without the seeded choices.
            #[cfg(tokio_unstable)]
            builder.rng_seed(tokio::runtime::RngSeed::from_bytes(&seed));
            #[cfg(not(tokio_unstable))]
            let _ = seed;
            let runtime = builder.build().map_err(|error| self.fail(format!("setup: a runtime: {error}")))?;
            let local = tokio::task::LocalSet::new();
            let pair = self.outcome.pair;
            let ended = local.block_on(&runtime, async { if pair { self.run_pair(down).await } else { self.run(down).await } });
            drop(local);
            drop(runtime);
            self.seen.borrow_mut().run_began = None;
            self.net.reset();
            for panic in PANICS.with(|panics| std::mem::take(&mut *panics.borrow_mut())) {
                self.say(format!("panicked: {panic}"));
            }
            let ended = ended?;
            down = Duration::from_millis(self.rng.random_range(100..30_000));
            match ended {
                RunEnd::Done => {}
                RunEnd::Crash(crash) => {
                    self.say(format!("crash ({crash:?}) at step {}", self.step));
                    match crash {
                        Crash::Process => self.outcome.crashes_process += 1,
                        Crash::Power => self.outcome.crashes_power += 1,
                    }
                    for line in self.disk.crash(crash) {
                        self.say(format!("crash ({crash:?}): {line}"));
                    }
                    if !pair {
                        self.mark_faults();
                    }
                }
                RunEnd::Stopped(why) => {
                    self.outcome.fail_stops += 1;
                    self.say(format!("the controller stopped by itself: {why}"));
                    for line in self.disk.crash(Crash::Process) {
                        self.say(format!("stop: {line}"));
                    }
                }
                RunEnd::Refused(class, why) => {
                    self.disk.process_exit();
                    self.judge_refusal(class, &why)?;
                    for line in self.disk.repair() {
                        self.say(format!("repair: {line}"));
                    }
                    if let Some(mark) = self.mark_taken.take() {
                        std::fs::write(&self.mark, mark).map_err(|error| self.fail(format!("setup: the mark: {error}")))?;
                        self.say("repair: the mark restored".into());
                    }
                }
            }
            // The draws a recovery must find again: those the crash left on the disk (one the
            // power took was never durable, so never used: its cycle is drawn anew).
            let kept = self.disk.entries();
            self.draws_journaled.retain(|_, (entry, _)| *entry <= kept);
            // The disk as the crash left it: still a journal the pure core replays, books tied.
            self.replay(true)?;
        }
        Ok(())
    }

    /// The mark's own faults at a crash: lost (the next start must refuse: it cannot know
    /// what was acknowledged), or a stale copy (the journal is ahead of it: it serves). One
    /// witness at a time: not in a crash whose power loss took entries from the journal (then
    /// the mark is what must tell, and with both gone nothing can).
    fn mark_faults(&mut self) {
        let current = std::fs::read(&self.mark).ok();
        if self.options.faults && current.is_some() && !self.disk.power_took_entries() {
            let roll = self.rng.random_range(0..100);
            if roll < 4 {
                self.mark_taken = current.clone();
                let _ = std::fs::remove_file(&self.mark);
                self.outcome.mark_lost += 1;
                self.say("crash: the mark file was lost".into());
            } else if roll < 8
                && let Some(before) = &self.mark_before
            {
                let _ = std::fs::write(&self.mark, before);
                self.outcome.mark_stale += 1;
                self.say("crash: the mark file is an older copy".into());
            }
        }
        self.mark_before = current;
    }

    /// A start refused: right only when entries the mark may cover are gone (acknowledged to a
    /// client, or written to the mark with their answers on the way), the mark is lost, or the
    /// start read a damaged entry; and then with the documented exit class.
    fn judge_refusal(&mut self, class: ExitClass, why: &str) -> Result<(), Box<Failure>> {
        let acked_max = self.seen.borrow().acked_max;
        // Entries the mark covers are gone: what the controller may have answered (its answer on
        // the way when the power went) as much as what a client saw answered.
        let marked = self.marked().unwrap_or(0);
        let short = acked_max > self.disk.entries() || marked > self.disk.entries();
        let damaged = self.disk.damaged_read().is_some();
        let mark_lost = self.mark_taken.is_some();
        let storage = class == ExitClass::Storage && self.disk.flush_failed();
        // The message names paths and hashes a seed does not fix: the class goes in the trace.
        self.say(format!("the start was refused ({class:?})"));
        if !(short || damaged || mark_lost || storage) {
            return Err(self.fail(format!("recovery: a start was refused with nothing lost or damaged ({class:?}): {why}")));
        }
        if !matches!(class, ExitClass::JournalRefused | ExitClass::Storage) {
            return Err(self.fail(format!("recovery: a refusal with exit class {class:?}, not 5 or 6: {why}")));
        }
        self.outcome.refusals_expected += 1;
        Ok(())
    }

    /// The last entry the acknowledgement mark records, read as the controller reads it.
    fn marked(&self) -> Option<u64> {
        let identity: pozo_server::journal::Identity = serde_json::from_slice(self.disk.written().meta.get("identity")?).ok()?;
        let sealer = pozo_server::journal::Sealer::new(self.config.journal_key.as_ref()?, &identity).ok()?;
        Some(pozo_server::journal::mark::read(&self.mark, &sealer).ok()??.sequence)
    }

    /// One run of the controller, inside its runtime.
    async fn run(&mut self, down: Duration) -> Result<RunEnd, Box<Failure>> {
        self.clock.start_run(down);
        self.seen.borrow_mut().run_began = Some(tokio::time::Instant::now());
        let incoming = self.net.listen(ADDRESSES[0]);
        let (ready, is_ready) = tokio::sync::oneshot::channel::<()>();
        let options = pozo_server::ServeOptions {
            snapshot_every: SNAPSHOT_EVERY,
            cards: pozo_server::cards::CardSource::Seeded(self.options.seed),
            mark: Some(self.mark.clone()),
            changed_by: Some("vopr".into()),
            clock: Arc::clone(&self.clock) as Arc<dyn pozo_server::clock::Clock>,
            store: Some(pozo_server::writer::StoreChoice::Given(self.disk.store())),
            ..Default::default()
        };
        let config = (*self.config).clone();
        let data = self.data.clone();
        let mut server = tokio::task::spawn_local(async move {
            pozo_server::serve_incoming(
                move || incoming,
                ADDRESSES[0].into(),
                config,
                &data,
                options,
                std::future::pending(),
                |_| {
                    let _ = ready.send(());
                },
            )
            .await
        });
        tokio::select! {
            biased;
            ended = &mut server => {
                let error = match ended {
                    Ok(Ok(())) => return Err(self.fail("recovery: the controller ended before serving, unasked".into())),
                    Ok(Err(error)) => error,
                    Err(panic) => return Err(self.fail(format!("recovery: the controller panicked: {panic}"))),
                };
                self.clock.stop_run();
                return Ok(RunEnd::Refused(ExitClass::of(&error), format!("{error:#}")));
            }
            _ = is_ready => {}
        }
        // A start that served: nothing acknowledged is gone, and it serves the disk's journal.
        let oracle_channel = net::channel(&self.net, ADDRESSES[0], true, Duration::from_secs(30));
        let journal_id = pb::controller_client::ControllerClient::new(oracle_channel.clone())
            .identify(pb::IdentifyRequest {})
            .await
            .map_err(|status| self.fail(format!("recovery: Identify: {status}")))?
            .into_inner()
            .journal_id;
        self.outcome.journal_id.clone_from(&journal_id);
        self.served()?;
        self.check_everything(&oracle_channel, &journal_id).await?;
        self.say(format!("run {} serves {} entries", self.outcome.runs, self.disk.entries()));

        // The floor: panels and signs watched, agents acting, the office deciding.
        let floor_channel = net::Controllers::new(&self.net, &ADDRESSES[..1], REQUEST_TIMEOUT);
        let mut watchers = Vec::new();
        for agent in &self.agents {
            watchers.push(tokio::task::spawn_local(Agent::watch(
                Rc::clone(agent),
                floor_channel.clone(),
                journal_id.clone(),
                Rc::clone(&self.seen),
                self.disk.clone(),
            )));
        }
        watchers.push(tokio::task::spawn_local(floor::signs(floor_channel.clone(), Rc::clone(&self.seen), self.disk.clone())));
        let ended = self.steps(&floor_channel, &oracle_channel, &journal_id, &mut server).await;
        for watcher in watchers {
            watcher.abort();
        }
        self.clock.stop_run();
        ended
    }

    /// Steps until the crash this run is given, the controller stops, or the steps are played.
    async fn steps(
        &mut self,
        floor_channel: &net::Controllers,
        oracle_channel: &tonic::transport::Channel,
        journal_id: &str,
        server: &mut tokio::task::JoinHandle<anyhow::Result<()>>,
    ) -> Result<RunEnd, Box<Failure>> {
        // The crash: after some steps, at an instant within a few milliseconds of the last
        // step (inside a flush, between an append and the mark, or between batches).
        let crash_after = self.step + self.rng.random_range(20..400);
        let crash_in = Duration::from_micros(self.rng.random_range(0..4_000));
        let crash = if self.rng.random_bool(0.3) { Crash::Power } else { Crash::Process };
        let mut crash_at: Option<tokio::time::Instant> = None;
        let mut actions: Actions = FuturesUnordered::new();
        let mut busy = Busy { agents: vec![false; self.agents.len()], office: false, supervisors: false };
        loop {
            self.more_actions(&mut actions, &mut busy, floor_channel, journal_id);
            let next = tokio::select! {
                biased;
                _ = until(crash_at) => return Ok(RunEnd::Crash(crash)),
                ended = &mut *server => return Ok(stopped(ended)),
                next = actions.next() => next,
            };
            let Some((who, _done)) = next else { continue };
            busy.done(who);
            self.step += 1;
            for line in self.net.step(&self.clock) {
                self.say(format!("step {}: {line}", self.step));
            }
            // The controller may stop by itself (a failed flush) while it is asked.
            tokio::select! {
                biased;
                ended = &mut *server => return Ok(stopped(ended)),
                checked = self.check_everything(oracle_channel, journal_id) => checked?,
            }
            if self.step >= self.options.steps {
                return Ok(RunEnd::Done);
            }
            if crash_at.is_none() && self.step >= crash_after {
                crash_at = Some(tokio::time::Instant::now() + crash_in);
            }
        }
    }

    /// Every agent without an action under way gets one; the office and the supervisors now
    /// and then.
    fn more_actions(&mut self, actions: &mut Actions, busy: &mut Busy, floor_channel: &net::Controllers, journal_id: &str) {
        for (index, agent) in self.agents.iter().enumerate() {
            if !busy.agents[index] {
                busy.agents[index] = true;
                let action = Agent::act(
                    Rc::clone(agent),
                    floor_channel.clone(),
                    journal_id.to_owned(),
                    Rc::clone(&self.seen),
                    self.disk.clone(),
                );
                actions.push(Box::pin(async move { (Some(index), Some(action.await)) }));
            }
        }
        if !busy.office && self.rng.random_bool(0.2) {
            busy.office = true;
            let channel = floor_channel.clone();
            let config = Arc::clone(&self.config);
            let journal_id = journal_id.to_owned();
            let seen = Rc::clone(&self.seen);
            let disk = self.disk.clone();
            let mut rng = ChaCha8Rng::seed_from_u64(self.rng.random());
            actions.push(Box::pin(async move {
                let done = floor::office(channel, &config, &journal_id, &mut rng, &seen, &disk).await;
                (None, done)
            }));
        }
        if !busy.supervisors && self.rng.random_bool(0.01) {
            busy.supervisors = true;
            let channel = floor_channel.clone();
            let config = Arc::clone(&self.config);
            let journal_id = journal_id.to_owned();
            let seen = Rc::clone(&self.seen);
            let mut rng = ChaCha8Rng::seed_from_u64(self.rng.random());
            let pools = floor::transfer_pools(self.options.rulebooks);
            actions.push(Box::pin(async move {
                let done = floor::supervisors(channel, &config, &journal_id, &mut rng, &seen, pools).await;
                (Some(usize::MAX), done)
            }));
        }
    }

    fn finish(mut self) -> Result<Outcome, Box<Failure>> {
        let seen = self.seen.borrow();
        let mut digest = Sha256::new();
        for line in &seen.trace {
            digest.update(line.as_bytes());
            digest.update(b"\n");
        }
        self.outcome.steps = self.step;
        self.outcome.entries = self.disk.entries();
        self.outcome.acknowledged = seen.acked.len() as u64;
        self.outcome.refused_commands = seen.refusals;
        self.outcome.retries = seen.retries;
        self.outcome.duplicates = seen.duplicates;
        self.outcome.office_decisions = seen.office_decisions;
        self.outcome.changes = seen.changes;
        self.outcome.awards = seen.awards.clone();
        self.outcome.level_awards = seen.level_awards.clone();
        self.outcome.mystery_draws = self.oracle.draws.len() as u64;
        self.outcome.mystery_hits = self.oracle.hits.len() as u64;
        let across = |points: &[u64]| {
            self.oracle
                .hits
                .iter()
                .filter(|hit| {
                    let key = (hit.pool.clone(), hit.level.clone(), hit.cycle);
                    let drawn = self.oracle.draws.get(&key).map(|(entry, _)| *entry);
                    drawn.is_some_and(|drawn| points.iter().any(|at| drawn <= *at && *at < hit.entry))
                })
                .count() as u64
        };
        self.outcome.hits_across_recovery = across(&self.recovered_at);
        self.outcome.hits_across_takeover = across(&self.taken_over_at);
        self.outcome.disk = self.disk.counts();
        self.outcome.net = self.net.counts();
        self.outcome.digest = hex::encode(digest.finalize());
        self.outcome.trace = seen.trace.clone();
        drop(seen);
        Ok(self.outcome)
    }
}
