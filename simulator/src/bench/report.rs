//! The report: every figure of a run, its targets, and the summary printed at the end.

use super::*;

#[derive(Debug, Serialize)]
pub struct Report {
    /// The command line that produced these figures.
    pub command: String,
    /// How the tables sent their commands, to the controller and the echo alike (`--transport`).
    pub transport: super::Transport,
    pub durable: Durable,
    pub echo: Echo,
    /// Durable requests per second over echo requests per second (the same command mix).
    pub ratio: f64,
    pub latency_at_2000_per_s: Latency,
    /// The disk's own sync, measured first in the same run (`disk.rs`).
    pub disk_sync: super::disk::DiskSync,
    pub memory_1000_tables: Memory,
    /// `None` with `--store`: the restart is timed on a journal written into sled only.
    pub restart_1m_entries: Option<Restart>,
    /// Where the journal was: `sled`, or the PostgreSQL database, described.
    pub store: String,
    /// The second durable window with `--signs` streams open; `None` without `--signs`.
    pub signs: Option<Signs>,
    /// With `--watch`: the pushes every table's watched panel got; `None` without.
    pub watching: Option<Watching>,
    pub machine: Machine,
    pub targets: Targets,
    pub wall_seconds: f64,
}

#[derive(Debug, Serialize)]
pub struct Durable {
    /// Acknowledged (durable) `Press` commands per second.
    pub presses_per_s: f64,
    /// Every acknowledged command per second: presses, INICIAR, FINALIZAR, credit sales.
    pub commands_per_s: f64,
    pub presses: u64,
    pub commands: u64,
    /// Commands acknowledged in each second of the window.
    pub commands_each_second: Vec<u64>,
    pub seconds: f64,
    pub tables: u64,
    pub connections: u64,
    /// The controller process's CPU over the window, percent of one core.
    pub server_cpu_percent: f64,
    /// The load generator's CPU over the window, percent of one core.
    pub client_cpu_percent: f64,
    /// Other CPU busy on the machine over the window (other processes), percent of one core.
    pub other_cpu_percent: f64,
    /// The controller's CPU time (from its own /proc figures) per durable press acknowledged, µs.
    pub server_cpu_us_per_press: f64,
    /// The same per acknowledged command of any kind, µs.
    pub server_cpu_us_per_command: f64,
}

#[derive(Debug, Serialize)]
pub struct Echo {
    pub requests_per_s: f64,
    pub presses_per_s: f64,
    pub requests: u64,
    /// Requests answered in each second of the window.
    pub requests_each_second: Vec<u64>,
    pub seconds: f64,
    /// Size of the canned reply (a real `Press` reply of the controller), bytes.
    pub reply_bytes: usize,
    pub server_cpu_percent: f64,
    pub client_cpu_percent: f64,
    pub other_cpu_percent: f64,
    /// The echo server's CPU time per request answered, µs.
    pub server_cpu_us_per_request: f64,
    /// The same per press answered, µs.
    pub server_cpu_us_per_press: f64,
    /// The echo at the paced rate (`--rate`), as the controller's `latency_at_2000_per_s`:
    /// the transport's and the client's share of the controller's paced latency.
    pub latency_at_rate: Latency,
    /// The same echo answering each command only after a sync of the disk that covers it, one
    /// sync for all that waited (`bench-child echo --sync-dir`): an acknowledgement with one
    /// sync per batch and nothing else behind it.
    pub synced_latency_at_rate: Latency,
}

#[derive(Debug, Serialize)]
pub struct Latency {
    /// Presses per second asked (`--rate`).
    pub rate: u64,
    pub achieved_rate: f64,
    /// Every command per second of the phase (INICIAR, FINALIZAR and sales included).
    pub commands_per_s: f64,
    pub samples: usize,
    pub seconds: u64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub max_ms: f64,
    /// The same presses from the moment each was sent: the controller's answer without the
    /// client's timer (docs/benchmarks.md, step 14).
    pub answered: Answered,
    pub server_cpu_percent: f64,
    pub client_cpu_percent: f64,
    pub other_cpu_percent: f64,
    /// The controller's CPU over the phase, per press and per command acknowledged: at this
    /// rate a batch holds a few commands, so what each batch costs shows here (docs/benchmarks.md).
    pub server_cpu_us_per_press: f64,
    pub server_cpu_us_per_command: f64,
}

/// The paced presses' latency from the moment each was sent (from its due moment where its agent
/// was still busy then), and how late the client's timer sent them.
#[derive(Debug, Serialize)]
pub struct Answered {
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub max_ms: f64,
    /// From each press's due moment to its send.
    pub sent_late_p50_ms: f64,
    pub sent_late_p99_ms: f64,
}

/// `--watch`: every table's panel watched (`Table/Watch`) through the paced and durable phases.
#[derive(Debug, Serialize)]
pub struct Watching {
    /// Panels watched: one per table.
    pub tables: u64,
    /// Over the paced phase: from before its first press to after its last answer.
    pub paced: Watched,
    /// Over the durable throughput window, as its presses are counted.
    pub durable: Watched,
}

/// The pushes the watched panels got over a phase.
#[derive(Debug, Serialize)]
pub struct Watched {
    pub pushes: u64,
    pub pushes_per_s: f64,
    /// Pushes over the phase's presses acknowledged.
    pub pushes_per_press: f64,
}

/// One round of the sign phase: a window with the signs open between two without.
#[derive(Debug, Serialize)]
pub struct SignRound {
    pub presses_per_s_without_before: f64,
    pub presses_per_s_with: f64,
    pub presses_per_s_without_after: f64,
    /// With over the mean of the two without.
    pub ratio: f64,
}

/// Durable throughput with cartel streams open, against windows without them on either side.
#[derive(Debug, Serialize)]
pub struct Signs {
    /// Streams opened in each round (`--signs`), and the fewest still open at the end of a round.
    pub opened: u64,
    pub connected_at_end: u64,
    pub rounds: Vec<SignRound>,
    /// Durable presses per second, mean over the windows without signs, and over those with.
    pub presses_per_s_without: f64,
    pub presses_per_s_with: f64,
    /// The median of the rounds' ratios.
    pub ratio: f64,
    /// `pozos` and `montos` events received over every stream, every round.
    pub events: u64,
    /// From the batch becoming durable (the event's `durable_us`) to the event read by a
    /// sign, over every event of every stream, ms.
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// The same for the oldest batch an event folds in, bounded from above by the
    /// durability of the event before it, ms.
    pub oldest_p99_ms: f64,
    /// Mean over the windows with signs.
    pub server_cpu_percent: f64,
    /// The load generator's CPU, which here also reads every sign's stream.
    pub client_cpu_percent: f64,
}

#[derive(Debug, Serialize)]
pub struct Memory {
    pub tables: u64,
    /// The controller's peak resident set (`VmHWM`) after the latency and throughput phases, MiB.
    pub peak_mb: f64,
    /// Its resident set (`VmRSS`) then, MiB.
    pub rss_mb: f64,
    /// Its resident set once every table was open, before the load, MiB.
    pub rss_open_mb: f64,
    /// Journal entries written by then.
    pub journal_entries: u64,
}

#[derive(Debug, Serialize)]
pub struct Restart {
    pub entries: u64,
    /// From starting the process to the controller serving, ms.
    pub ready_ms: f64,
    pub snapshot_every: u64,
    /// The snapshot restored, and the entries replayed after it.
    pub snapshot_at: u64,
    pub replayed_entries: u64,
    /// Peak resident set of the restarted controller, MiB.
    pub peak_mb: f64,
    /// Size of the data directory on disk, MiB.
    pub journal_mb: f64,
    pub build_seconds: f64,
    pub breakdown_ms: RestartBreakdown,
}

/// The recovery steps timed again in this process, after the child's restart.
#[derive(Debug, Serialize)]
pub struct RestartBreakdown {
    /// Generating the casino's configuration (in the child).
    pub config: f64,
    pub journal_open: f64,
    pub snapshot_load: f64,
    pub state_restore: f64,
    pub replay: f64,
}

#[derive(Debug, Serialize)]
pub struct Machine {
    pub cores: usize,
    pub cpu: String,
    pub memory_mb: u64,
    pub os: String,
    pub kernel: String,
    /// The load averages when the run started: other work on the machine skews every figure.
    pub load_average_at_start: String,
}

#[derive(Debug, Serialize)]
pub struct Target {
    pub target: f64,
    pub value: f64,
    pub met: bool,
}

/// Figures of the same run that the controller's paced p99 from the send cannot be below: every
/// acknowledgement waits for at least one whole sync of the disk (after the journal's write) and
/// crosses the same transport as the bare echo, whatever the design; the echo synced once per
/// batch does both with nothing else, as the controller would with one sync per batch instead
/// of two. Where any is above the target, the target is out of reach on this machine for a
/// controller that answers after a group commit (docs/architecture.md, "Two syncs per batch").
#[derive(Debug, Serialize)]
pub struct Floor {
    /// The disk's own sync p99 ([`DiskSync`](super::disk::DiskSync)).
    pub disk_sync_p99_ms: f64,
    /// The bare echo's p99 from the send at the same paced rate (no journal, no disk).
    pub echo_p99_ms: f64,
    /// The echo synced once per batch, its p99 from the send at the same paced rate.
    pub synced_echo_p99_ms: f64,
    /// Whether the target is at or above every floor (`false`: out of reach here).
    pub target_reachable: bool,
}

impl Floor {
    pub(super) fn of(target_ms: f64, disk: &super::disk::DiskSync, echo: &Echo) -> Self {
        let (echo_p99_ms, synced_echo_p99_ms) =
            (echo.latency_at_rate.answered.p99_ms, echo.synced_latency_at_rate.answered.p99_ms);
        Floor {
            disk_sync_p99_ms: disk.p99_ms,
            echo_p99_ms,
            synced_echo_p99_ms,
            target_reachable: [disk.p99_ms, echo_p99_ms, synced_echo_p99_ms].iter().all(|floor| *floor <= target_ms),
        }
    }
}

#[derive(Debug, Serialize)]
pub struct Targets {
    /// At least this many durable presses per second.
    pub durable_presses_per_s: Target,
    /// At most this much of the controller's CPU per durable press, in µs (issue 47).
    pub cpu_us_per_press: Target,
    /// At least this fraction of the echo's rate.
    pub echo_ratio: Target,
    /// At most this p99 at the paced rate.
    pub p99_ms: Target,
    /// The paced p99 from the send ([`Answered`]) at most twice the disk's own sync p50 (issue 47).
    pub p99_within_disk_syncs: Target,
    /// What the paced p99 from the send cannot be below on this machine.
    pub p99_floor: Floor,
    /// At most this peak memory.
    pub memory_mb: Target,
    /// At most this long from start to serving (`None`: not timed, with `--store`).
    pub restart_ready_ms: Option<Target>,
}

pub(super) fn print_summary(report: &Report) {
    print_figures(report);
    println!(
        "journal: {}; commands sent by {}",
        report.store,
        match report.transport {
            super::Transport::Stream => "one Table/Commands stream per table",
            super::Transport::Unary => "one Table/Submit call per command",
        }
    );
    if let Some(watching) = &report.watching {
        println!(
            "watched: {} tables' panels (Table/Watch); paced: {:.0} pushes/s ({:.2} per press); durable: {:.0} pushes/s ({:.2} per press)",
            watching.tables,
            watching.paced.pushes_per_s,
            watching.paced.pushes_per_press,
            watching.durable.pushes_per_s,
            watching.durable.pushes_per_press
        );
    }
    if let Some(signs) = &report.signs {
        print_signs(signs);
    }
    println!("wall time {:.1} s", report.wall_seconds);
}

/// The summary's lines of the figures with a target: durable, echo, latency, memory, restart.
fn print_figures(report: &Report) {
    let durable = &report.durable;
    let echo = &report.echo;
    let latency = &report.latency_at_2000_per_s;
    let memory = &report.memory_1000_tables;
    let restart = report.restart_1m_entries.as_ref();
    let mark = |target: &Target| if target.met { "met" } else { "MISSED" };
    println!(
        "durable: {:.0} presses/s ({:.0} commands/s), {} tables, {} connections, {:.1} s; CPU: server {:.0}%, client {:.0}%, other {:.0}%; server CPU {:.1} µs/press ({:.1} µs/command)  [{}; CPU {}]",
        durable.presses_per_s,
        durable.commands_per_s,
        durable.tables,
        durable.connections,
        durable.seconds,
        durable.server_cpu_percent,
        durable.client_cpu_percent,
        durable.other_cpu_percent,
        durable.server_cpu_us_per_press,
        durable.server_cpu_us_per_command,
        mark(&report.targets.durable_presses_per_s),
        mark(&report.targets.cpu_us_per_press)
    );
    println!(
        "echo: {:.0} requests/s ({:.0} presses/s); CPU: echo {:.0}%, client {:.0}%, other {:.0}%; echo CPU {:.1} µs/request ({:.1} µs/press); ratio {:.3}  [{}]",
        echo.requests_per_s,
        echo.presses_per_s,
        echo.server_cpu_percent,
        echo.client_cpu_percent,
        echo.other_cpu_percent,
        echo.server_cpu_us_per_request,
        echo.server_cpu_us_per_press,
        report.ratio,
        mark(&report.targets.echo_ratio)
    );
    println!(
        "  echo at {} presses/s: from each press's send p50 {:.3} ms, p99 {:.3} ms (from its due moment p50 {:.2} ms, p99 {:.2} ms)",
        echo.latency_at_rate.rate,
        echo.latency_at_rate.answered.p50_ms,
        echo.latency_at_rate.answered.p99_ms,
        echo.latency_at_rate.p50_ms,
        echo.latency_at_rate.p99_ms,
    );
    println!(
        "  echo synced once per batch at {} presses/s: from each press's send p50 {:.3} ms, p90 {:.3} ms, p99 {:.3} ms",
        echo.synced_latency_at_rate.rate,
        echo.synced_latency_at_rate.answered.p50_ms,
        echo.synced_latency_at_rate.answered.p90_ms,
        echo.synced_latency_at_rate.answered.p99_ms,
    );
    println!(
        "latency at {} presses/s (achieved {:.0}): p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms; CPU: server {:.0}%, other {:.0}%; server CPU {:.1} µs/press ({:.1} µs/command)  [{}]",
        latency.rate,
        latency.achieved_rate,
        latency.p50_ms,
        latency.p90_ms,
        latency.p99_ms,
        latency.max_ms,
        latency.server_cpu_percent,
        latency.other_cpu_percent,
        latency.server_cpu_us_per_press,
        latency.server_cpu_us_per_command,
        mark(&report.targets.p99_ms)
    );
    println!(
        "  from each press's send: p50 {:.3} ms, p90 {:.3} ms, p99 {:.3} ms, max {:.2} ms; sent after its due moment by p50 {:.3} ms, p99 {:.3} ms",
        latency.answered.p50_ms,
        latency.answered.p90_ms,
        latency.answered.p99_ms,
        latency.answered.max_ms,
        latency.answered.sent_late_p50_ms,
        latency.answered.sent_late_p99_ms,
    );
    println!(
        "disk sync (4 KiB overwrite, fdatasync, {} times): p50 {:.3} ms, p99 {:.3} ms; paced p99 from the send {:.3} ms, within {:.3} ms (2 × p50)  [{}]",
        report.disk_sync.syncs,
        report.disk_sync.p50_ms,
        report.disk_sync.p99_ms,
        report.targets.p99_within_disk_syncs.value,
        report.targets.p99_within_disk_syncs.target,
        mark(&report.targets.p99_within_disk_syncs)
    );
    let floor = &report.targets.p99_floor;
    println!(
        "  {}: a whole sync's p99 {:.3} ms; the echo's from the send {:.3} ms; the echo synced once per batch {:.3} ms",
        if floor.target_reachable { "within reach here" } else { "out of reach here" },
        floor.disk_sync_p99_ms,
        floor.echo_p99_ms,
        floor.synced_echo_p99_ms
    );
    println!(
        "memory with {} tables: peak {:.1} MiB, RSS {:.1} MiB (RSS {:.1} MiB once open)  [{}]",
        memory.tables,
        memory.peak_mb,
        memory.rss_mb,
        memory.rss_open_mb,
        mark(&report.targets.memory_mb)
    );
    if let (Some(restart), Some(target)) = (restart, &report.targets.restart_ready_ms) {
        println!(
            "restart with {} entries: ready in {:.0} ms (snapshot at {}, {} replayed)  [{}]",
            restart.entries,
            restart.ready_ms,
            restart.snapshot_at,
            restart.replayed_entries,
            mark(target)
        );
    }
}

/// The summary's lines of the sign phase: each round, the ratio, and durable batch → sign.
fn print_signs(signs: &Signs) {
    for (number, round) in signs.rounds.iter().enumerate() {
        println!(
            "  round {}: {:.0} durable presses/s with the signs against {:.0} before and {:.0} after without, ratio {:.3}",
            number + 1,
            round.presses_per_s_with,
            round.presses_per_s_without_before,
            round.presses_per_s_without_after,
            round.ratio
        );
    }
    println!(
        "with {} signs open ({} at the end), {} round(s): {:.0} durable presses/s against {:.0} without, median ratio {:.3}  [{}]",
        signs.opened,
        signs.connected_at_end,
        signs.rounds.len(),
        signs.presses_per_s_with,
        signs.presses_per_s_without,
        signs.ratio,
        if signs.ratio >= 0.95 { "met: ≥ 0.95" } else { "NOT met: ≥ 0.95" }
    );
    println!(
        "  durable batch → sign: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms over {} events; the oldest batch of each event: p99 ≤ {:.1} ms  [{}]; the signs are read by the load generator's process on a thread of its own, on the same 2 cores",
        signs.p50_ms,
        signs.p99_ms,
        signs.max_ms,
        signs.events,
        signs.oldest_p99_ms,
        if signs.oldest_p99_ms <= 100.0 { "met: p99 ≤ 100 ms" } else { "NOT met: p99 ≤ 100 ms" }
    );
}

// Statistics, not money: floats are right here.
#[allow(clippy::float_arithmetic)]
pub(super) fn per_second(count: u64, elapsed: Duration) -> f64 {
    let seconds = elapsed.as_secs_f64();
    if seconds > 0.0 { count as f64 / seconds } else { 0.0 }
}

// Statistics, not money.
#[allow(clippy::float_arithmetic)]
pub(super) fn micros_to_ms(micros: u64) -> f64 {
    micros as f64 / 1_000.0
}

// Statistics, not money.
#[allow(clippy::float_arithmetic)]
pub(super) fn kib_to_mib(kib: u64) -> f64 {
    kib as f64 / 1_024.0
}

// Statistics, not money.
#[allow(clippy::float_arithmetic)]
pub(super) fn ratio(numerator: f64, denominator: f64) -> f64 {
    if denominator > 0.0 { numerator / denominator } else { 0.0 }
}

/// CPU over a window as percent of one core.
// Statistics, not money.
#[allow(clippy::float_arithmetic)]
pub(super) fn cpu_percent(before: Option<u64>, after: Option<u64>, elapsed: Duration) -> f64 {
    match (before, after) {
        (Some(before), Some(after)) => {
            let seconds = after.saturating_sub(before) as f64 / procfs::ticks_per_second() as f64;
            100.0 * ratio(seconds, elapsed.as_secs_f64())
        }
        _ => 0.0,
    }
}

/// A process's CPU time per item, µs: `cpu_percent` (of one core) over `seconds`, spread over
/// `count` items; 0 without items.
// Statistics, not money.
#[allow(clippy::float_arithmetic)]
pub(super) fn cpu_us_per(cpu_percent: f64, seconds: f64, count: u64) -> f64 {
    if count == 0 { 0.0 } else { cpu_percent / 100.0 * seconds * 1_000_000.0 / count as f64 }
}

/// The machine's busy CPU not used by the server or the client (other processes, the kernel's own work).
// Statistics, not money.
#[allow(clippy::float_arithmetic)]
pub(super) fn other_cpu(machine: f64, server: f64, client: f64) -> f64 {
    (machine - server - client).max(0.0)
}

/// The nearest-rank percentile `per_mille`/1000 of sorted samples.
pub(super) fn percentile(sorted: &[u32], per_mille: usize) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (sorted.len() * per_mille).div_ceil(1000).clamp(1, sorted.len());
    u64::from(sorted[rank - 1])
}
