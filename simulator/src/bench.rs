//! `pozo-sim bench`: what the controller sustains on this machine, measured
//! against a bare gRPC echo of the same messages in the same run.
//!
//! The controller runs as a child process (`pozo-sim bench-child server`, this
//! same binary) so that its memory is its own; the bare echo likewise
//! (`pozo-sim bench-child echo`). The load generator is this process: one client
//! loop per table, signing every command with the table's key exactly as an agent
//! does, over a few HTTP/2 connections. Phases, in order:
//!
//! 1. **Setup**: a generated casino of `--tables` tables (fresh journal); every
//!    table is opened and sells its first credits. RSS is read here.
//! 2. **Latency**: presses paced open-loop at `--rate` per second over every
//!    table; each press's latency counts from the moment it was due, so a stall
//!    is not hidden (no coordinated omission).
//! 3. **Durable throughput**: every table sends its next command as soon as the
//!    last one is acknowledged (one in flight per table: sequences are serial),
//!    for `--seconds` after a short warm-up. The controller's peak memory
//!    (`VmHWM`) is read at the end.
//! 4. **Echo**: the same client loops against a bare tonic echo of the same
//!    service, answering a reply captured from the controller (the same sizes).
//! 5. **Restart**: a journal of `--entries` entries is written directly (the
//!    state machine applies every entry, so chain, tip, snapshot and books are
//!    what the writer would have written), with its last snapshot as far behind
//!    the tip as the snapshot interval allows (the worst case); a controller is
//!    started on it and timed until it serves.
//!
//! Every child is killed when its handle drops, error or not; everything runs on
//! loopback; every count and duration is bounded by the options' ranges.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{Parser, Subcommand};
use hmac::{Hmac, Mac};
use pozo_proto::v1 as pb;
use pozo_proto::v1::table_command::Command as Wire;
use pozo_server::config::Config;
use pozo_server::journal::{Hash, Identity, Journal, Record, StoredSnapshot};
use pozo_server::service::{payload_sha256, table_op};
use pozo_server::state::{Card, Command, State, TableCommand, plays_instant_prize};
use pozo_server::{MESSAGE_BYTES_MAX, ServeOptions, writer};
use prost::Message;
use serde::Serialize;
use sha2::Sha256;
use tonic::transport::Channel;

use crate::{casino, runtime};

/// Credits a seat buys when it runs out: the largest sale (12.5.3.3).
const CREDITS_SOLD: u32 = 20;

/// How long a child has to print its `listening` line.
const READY_TIMEOUT: Duration = Duration::from_secs(120);

/// How long a child has to exit after its stdin closes, before it is killed.
const STOP_TIMEOUT: Duration = Duration::from_secs(15);

/// The longest warm-up before a throughput window.
const WARMUP_MAX: Duration = Duration::from_secs(2);

/// Entries written (and flushed) together while building the restart journal.
const BUILD_BATCH: usize = 10_000;

/// `/proc/PID/stat` counts CPU time in USER_HZ ticks, 100 a second on Linux.
const CLOCK_TICKS_PER_SECOND: u64 = 100;

/// The targets of the issue, on the 2-core machine.
const TARGET_PRESSES_PER_S: f64 = 20_000.0;
const TARGET_ECHO_RATIO: f64 = 0.7;
const TARGET_P99_MS: f64 = 10.0;
const TARGET_MEMORY_MB: f64 = 150.0;
const TARGET_READY_MS: f64 = 3_000.0;

/// Measure acknowledged presses per second (durable) against a bare gRPC echo of the same
/// messages, ack latency at a moderate rate, the controller's memory and its restart time.
#[derive(Parser, Debug)]
#[command(name = "pozo-sim bench", long_about = None)]
struct Args {
    /// Write the figures as JSON to FILE (without it, the JSON goes to stdout).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Seconds of each throughput window (durable and echo), after a short warm-up.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=600))]
    seconds: u64,
    /// Seconds of the paced latency phase.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=120))]
    latency_seconds: u64,
    /// Presses per second of the latency phase, spread over every table.
    #[arg(long, default_value_t = 2_000, value_parser = clap::value_parser!(u64).range(1..=50_000))]
    rate: u64,
    /// Tables of the generated casino (one client loop each).
    #[arg(long, default_value_t = 1_000, value_parser = clap::value_parser!(u64).range(1..=casino::TABLES_MAX as u64))]
    tables: u64,
    /// HTTP/2 connections the tables share.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=256))]
    connections: u64,
    /// Entries of the journal the restart is timed on (the genesis entry included).
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(2..=10_000_000))]
    entries: u64,
    /// The controller's snapshot interval, in entries.
    #[arg(long, default_value_t = writer::SNAPSHOT_EVERY, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    snapshot_every: u64,
    /// Seed of the generated casino's keys.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Cartel luminoso streams (`/cartel/eventos`) to hold open during a second durable
    /// throughput window, measuring durable batch → sign latency and the throughput cost
    /// against the first window (without signs). 0: no sign phase.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=2_000))]
    signs: u64,
    /// Rounds of the sign phase: each a window with the signs open then one without, every
    /// window `--seconds` long. The throughput ratio is the median over the rounds, each
    /// against the windows without signs on either side of it, so that the machine's drift
    /// from one window to the next averages out.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=30))]
    sign_rounds: u64,
}

/// The processes `bench` starts.
#[derive(Parser, Debug)]
#[command(name = "pozo-sim bench-child")]
struct ChildArgs {
    #[command(subcommand)]
    role: ChildRole,
}

#[derive(Subcommand, Debug)]
enum ChildRole {
    /// The controller on a generated casino; stops when stdin closes.
    Server {
        #[arg(long)]
        data: PathBuf,
        #[arg(long)]
        tables: usize,
        #[arg(long)]
        seed: u64,
        #[arg(long, default_value = "127.0.0.1:0")]
        listen: String,
        #[arg(long, default_value_t = writer::SNAPSHOT_EVERY)]
        snapshot_every: u64,
        /// Serve the pages too (the signs' streams), on a free loopback port.
        #[arg(long)]
        pages: bool,
    },
    /// A bare `pozo.v1.Table` echo answering a canned reply; stops when stdin closes.
    Echo {
        #[arg(long, default_value = "127.0.0.1:0")]
        listen: String,
        /// The encoded `SubmitReply` to answer, hex.
        #[arg(long)]
        reply_hex: String,
    },
}

/// Parses `args` as `program ARGS…`; `Err` carries the exit code after clap printed.
fn parse<T: Parser>(program: &str, args: Vec<String>) -> Result<T, ExitCode> {
    T::try_parse_from(std::iter::once(program.to_owned()).chain(args)).map_err(|error| {
        let _ = error.print();
        ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2))
    })
}

/// `pozo-sim bench ARGS…`.
pub fn command(args: Vec<String>) -> ExitCode {
    let line = std::iter::once("pozo-sim bench".to_owned()).chain(args.iter().cloned()).collect::<Vec<_>>().join(" ");
    let args: Args = match parse("pozo-sim bench", args) {
        Ok(args) => args,
        Err(code) => return code,
    };
    match bench(&args, line) {
        Ok(report) => {
            print_summary(&report);
            let text = serde_json::to_string_pretty(&report).expect("reports serialize");
            match &args.json {
                Some(path) => {
                    if let Err(error) = std::fs::write(path, text + "\n") {
                        eprintln!("pozo-sim: {}: {error}", path.display());
                        return ExitCode::from(2);
                    }
                }
                None => println!("{text}"),
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("pozo-sim: bench: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// `pozo-sim bench-child ARGS…`: the processes the benchmark starts (hidden).
pub fn child(args: Vec<String>) -> ExitCode {
    let args: ChildArgs = match parse("pozo-sim bench-child", args) {
        Ok(args) => args,
        Err(code) => return code,
    };
    let result = runtime().map_err(anyhow::Error::from).and_then(|runtime| {
        runtime.block_on(async {
            match args.role {
                ChildRole::Server { data, tables, seed, listen, snapshot_every, pages } => {
                    serve_child(&data, tables, seed, &listen, snapshot_every, pages).await
                }
                ChildRole::Echo { listen, reply_hex } => echo_child(&listen, &reply_hex).await,
            }
        })
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("pozo-sim bench-child: {error:#}");
            ExitCode::FAILURE
        }
    }
}

// ----------------------------------------------------------------------------- the report

#[derive(Debug, Serialize)]
pub struct Report {
    /// The command line that produced these figures.
    pub command: String,
    pub durable: Durable,
    pub echo: Echo,
    /// Durable requests per second over echo requests per second (the same command mix).
    pub ratio: f64,
    pub latency_at_2000_per_s: Latency,
    pub memory_1000_tables: Memory,
    pub restart_1m_entries: Restart,
    /// The second durable window with `--signs` streams open; `None` without `--signs`.
    pub signs: Option<Signs>,
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
    pub server_cpu_percent: f64,
    pub client_cpu_percent: f64,
    pub other_cpu_percent: f64,
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
    /// `/proc/loadavg` when the run started: other work on the machine skews every figure.
    pub load_average_at_start: String,
}

#[derive(Debug, Serialize)]
pub struct Target {
    pub target: f64,
    pub value: f64,
    pub met: bool,
}

#[derive(Debug, Serialize)]
pub struct Targets {
    /// At least this many durable presses per second.
    pub durable_presses_per_s: Target,
    /// At least this fraction of the echo's rate.
    pub echo_ratio: Target,
    /// At most this p99 at the paced rate.
    pub p99_ms: Target,
    /// At most this peak memory.
    pub memory_mb: Target,
    /// At most this long from start to serving.
    pub restart_ready_ms: Target,
}

// Statistics, not money: floats are right here.
#[allow(clippy::float_arithmetic)]
fn print_summary(report: &Report) {
    let durable = &report.durable;
    let echo = &report.echo;
    let latency = &report.latency_at_2000_per_s;
    let memory = &report.memory_1000_tables;
    let restart = &report.restart_1m_entries;
    let mark = |target: &Target| if target.met { "met" } else { "MISSED" };
    println!(
        "durable: {:.0} presses/s ({:.0} commands/s), {} tables, {} connections, {:.1} s; CPU: server {:.0}%, client {:.0}%, other {:.0}%  [{}]",
        durable.presses_per_s,
        durable.commands_per_s,
        durable.tables,
        durable.connections,
        durable.seconds,
        durable.server_cpu_percent,
        durable.client_cpu_percent,
        durable.other_cpu_percent,
        mark(&report.targets.durable_presses_per_s)
    );
    println!(
        "echo: {:.0} requests/s ({:.0} presses/s); CPU: echo {:.0}%, client {:.0}%, other {:.0}%; ratio {:.3}  [{}]",
        echo.requests_per_s,
        echo.presses_per_s,
        echo.server_cpu_percent,
        echo.client_cpu_percent,
        echo.other_cpu_percent,
        report.ratio,
        mark(&report.targets.echo_ratio)
    );
    println!(
        "latency at {} presses/s (achieved {:.0}): p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms; CPU: other {:.0}%  [{}]",
        latency.rate,
        latency.achieved_rate,
        latency.p50_ms,
        latency.p90_ms,
        latency.p99_ms,
        latency.max_ms,
        latency.other_cpu_percent,
        mark(&report.targets.p99_ms)
    );
    println!(
        "memory with {} tables: peak {:.1} MiB, RSS {:.1} MiB (RSS {:.1} MiB once open)  [{}]",
        memory.tables,
        memory.peak_mb,
        memory.rss_mb,
        memory.rss_open_mb,
        mark(&report.targets.memory_mb)
    );
    println!(
        "restart with {} entries: ready in {:.0} ms (snapshot at {}, {} replayed)  [{}]",
        restart.entries,
        restart.ready_ms,
        restart.snapshot_at,
        restart.replayed_entries,
        mark(&report.targets.restart_ready_ms)
    );
    if let Some(signs) = &report.signs {
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
            "  durable batch → sign: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms over {} events; the oldest batch of each event: p99 ≤ {:.1} ms  [{}]; the signs are read by the load generator, on the same 2 cores",
            signs.p50_ms,
            signs.p99_ms,
            signs.max_ms,
            signs.events,
            signs.oldest_p99_ms,
            if signs.oldest_p99_ms <= 100.0 { "met: p99 ≤ 100 ms" } else { "NOT met: p99 ≤ 100 ms" }
        );
    }
    println!("wall time {:.1} s", report.wall_seconds);
}

// Statistics, not money: floats are right here.
#[allow(clippy::float_arithmetic)]
fn per_second(count: u64, elapsed: Duration) -> f64 {
    let seconds = elapsed.as_secs_f64();
    if seconds > 0.0 { count as f64 / seconds } else { 0.0 }
}

// Statistics, not money.
#[allow(clippy::float_arithmetic)]
fn micros_to_ms(micros: u64) -> f64 {
    micros as f64 / 1_000.0
}

// Statistics, not money.
#[allow(clippy::float_arithmetic)]
fn kib_to_mib(kib: u64) -> f64 {
    kib as f64 / 1_024.0
}

// Statistics, not money.
#[allow(clippy::float_arithmetic)]
fn ratio(numerator: f64, denominator: f64) -> f64 {
    if denominator > 0.0 { numerator / denominator } else { 0.0 }
}

/// CPU over a window as percent of one core.
// Statistics, not money.
#[allow(clippy::float_arithmetic)]
fn cpu_percent(before: Option<u64>, after: Option<u64>, elapsed: Duration) -> f64 {
    match (before, after) {
        (Some(before), Some(after)) => {
            let seconds = after.saturating_sub(before) as f64 / CLOCK_TICKS_PER_SECOND as f64;
            100.0 * ratio(seconds, elapsed.as_secs_f64())
        }
        _ => 0.0,
    }
}

/// The machine's busy CPU not used by the server or the client (other processes, the kernel's own work).
// Statistics, not money.
#[allow(clippy::float_arithmetic)]
fn other_cpu(machine: f64, server: f64, client: f64) -> f64 {
    (machine - server - client).max(0.0)
}

/// The nearest-rank percentile `per_mille`/1000 of sorted samples.
fn percentile(sorted: &[u32], per_mille: usize) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (sorted.len() * per_mille).div_ceil(1000).clamp(1, sorted.len());
    u64::from(sorted[rank - 1])
}

// ----------------------------------------------------------------------------- /proc

/// A field of `/proc/PID/status` in KiB (`VmHWM`, `VmRSS`).
fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    text.lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|value| value.split_whitespace().next()?.parse().ok())
}

/// Busy CPU ticks of the whole machine, every core (`/proc/stat`: all but idle and iowait).
fn machine_busy_ticks() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    let fields: Vec<u64> = text.lines().next()?.strip_prefix("cpu ")?.split_whitespace().filter_map(|f| f.parse().ok()).collect();
    let total: u64 = fields.iter().take(8).sum();
    Some(total - fields.get(3)? - fields.get(4)?)
}

/// User + system CPU ticks of a process (`"self"` or a pid).
fn cpu_ticks(pid: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces: the fields start after its closing parenthesis.
    let fields: Vec<&str> = text.rsplit_once(')')?.1.split_whitespace().collect();
    // Fields 14 and 15 (utime, stime), counted from 1; the first after ')' is field 3.
    let user: u64 = fields.get(11)?.parse().ok()?;
    let system: u64 = fields.get(12)?.parse().ok()?;
    Some(user + system)
}

fn machine(load_average_at_start: String) -> Machine {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find_map(|line| line.strip_prefix("model name")?.split_once(':').map(|(_, name)| name.trim().to_owned()))
        .unwrap_or_default();
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let memory_kib: u64 =
        meminfo.lines().find_map(|line| line.strip_prefix("MemTotal:")?.split_whitespace().next()?.parse().ok()).unwrap_or(0);
    Machine {
        cores: std::thread::available_parallelism().map(|cores| cores.get()).unwrap_or(1),
        cpu,
        memory_mb: memory_kib / 1024,
        os: std::env::consts::OS.to_owned(),
        kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default().trim().to_owned(),
        load_average_at_start,
    }
}

/// Bytes on disk under `path`.
fn disk_bytes(path: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(path) else { return 0 };
    entries
        .flatten()
        .map(|entry| match entry.metadata() {
            Ok(metadata) if metadata.is_dir() => disk_bytes(&entry.path()),
            Ok(metadata) => metadata.len(),
            Err(_) => 0,
        })
        .sum()
}

// ----------------------------------------------------------------------------- child processes

/// A child process of the benchmark: killed when dropped unless it was stopped.
struct ChildProcess {
    name: &'static str,
    child: Child,
    stdin: Option<ChildStdin>,
    /// Its `listening` line, without the word.
    address: String,
    /// `key=value` figures of its `listening` line.
    figures: Vec<(String, String)>,
    /// From spawning to its `listening` line.
    ready: Duration,
}

impl ChildProcess {
    /// Starts `pozo-sim bench-child ARGS…` and waits for its `listening ADDRESS …` line.
    fn start(name: &'static str, args: &[String]) -> anyhow::Result<ChildProcess> {
        let exe = std::env::current_exe().context("the benchmark's own binary")?;
        let started = Instant::now();
        let mut child = std::process::Command::new(exe)
            .arg("bench-child")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("starting the {name}"))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        // Wrapped at once: from here on the child is killed on any error.
        let mut process = ChildProcess { name, child, stdin, address: String::new(), figures: Vec::new(), ready: Duration::ZERO };
        let (lines, line) = std::sync::mpsc::sync_channel::<String>(1);
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut first = String::new();
            if reader.read_line(&mut first).is_ok() && !first.is_empty() {
                let _ = lines.send(first);
            }
            // Drain the rest so the child never blocks on a full pipe.
            let _ = std::io::copy(&mut reader, &mut std::io::sink());
        });
        let first = line
            .recv_timeout(READY_TIMEOUT)
            .map_err(|_| anyhow::anyhow!("the {name} exited or did not serve within {} s", READY_TIMEOUT.as_secs()))?;
        process.ready = started.elapsed();
        let mut words =
            first.strip_prefix("listening ").with_context(|| format!("the {name} printed {first:?}"))?.split_whitespace();
        process.address = words.next().with_context(|| format!("the {name} printed no address"))?.to_owned();
        process.figures =
            words.filter_map(|word| word.split_once('=').map(|(key, value)| (key.to_owned(), value.to_owned()))).collect();
        Ok(process)
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    fn figure(&self, key: &str) -> Option<&str> {
        self.figures.iter().find(|(name, _)| name == key).map(|(_, value)| value.as_str())
    }

    /// Closes its stdin (it stops gracefully) and waits; kills it if it lingers.
    fn stop(mut self) -> anyhow::Result<()> {
        drop(self.stdin.take());
        let deadline = Instant::now() + STOP_TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait()? {
                anyhow::ensure!(status.success(), "the {} exited with {status}", self.name);
                return Ok(());
            }
            if Instant::now() >= deadline {
                anyhow::bail!("the {} did not stop within {} s: killed", self.name, STOP_TIMEOUT.as_secs());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// Resolves when this process's stdin closes: the parent is done, or gone.
fn stdin_closed() -> tokio::sync::oneshot::Receiver<()> {
    let (closed, on_close) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
        let _ = closed.send(());
    });
    on_close
}

fn announce(address: std::net::SocketAddr, figures: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "listening {address}{figures}");
    let _ = stdout.flush();
}

async fn serve_child(
    data: &Path,
    tables: usize,
    seed: u64,
    listen: &str,
    snapshot_every: u64,
    pages: bool,
) -> anyhow::Result<()> {
    let started = Instant::now();
    let config = casino::generated(tables, seed)?;
    let config_ms = started.elapsed().as_millis();
    let listener = tokio::net::TcpListener::bind(listen).await?;
    let address = listener.local_addr()?;
    anyhow::ensure!(address.ip().is_loopback(), "--listen {listen}: the benchmark listens on loopback only");
    let stop = stdin_closed();
    let pages = pages.then(|| std::net::SocketAddr::from(([127, 0, 0, 1], 0)));
    let options = ServeOptions { snapshot_every, pages, ..ServeOptions::default() };
    pozo_server::serve(
        listener,
        config,
        data,
        options,
        async move {
            let _ = stop.await;
        },
        move |started: &pozo_server::Started| {
            let pages = started.pages.map(|pages| format!(" pages={pages}")).unwrap_or_default();
            announce(address, &format!(" config_ms={config_ms}{pages}"))
        },
    )
    .await
}

/// A bare `pozo.v1.Table`: answers every submit with the same reply, checks nothing.
struct EchoTable {
    reply: pb::SubmitReply,
}

#[tonic::async_trait]
impl pb::table_server::Table for EchoTable {
    async fn submit(&self, _request: tonic::Request<pb::Envelope>) -> Result<tonic::Response<pb::SubmitReply>, tonic::Status> {
        Ok(tonic::Response::new(self.reply.clone()))
    }

    type WatchStream = tonic::codegen::tokio_stream::Empty<Result<pb::TableEvent, tonic::Status>>;

    async fn watch(&self, _request: tonic::Request<pb::Envelope>) -> Result<tonic::Response<Self::WatchStream>, tonic::Status> {
        Err(tonic::Status::unimplemented("the echo pushes nothing"))
    }
}

async fn echo_child(listen: &str, reply_hex: &str) -> anyhow::Result<()> {
    let bytes = hex::decode(reply_hex).context("--reply-hex: not hex")?;
    let reply = pb::SubmitReply::decode(bytes.as_slice()).context("--reply-hex: not a SubmitReply")?;
    let listener = tokio::net::TcpListener::bind(listen).await?;
    let address = listener.local_addr()?;
    anyhow::ensure!(address.ip().is_loopback(), "--listen {listen}: the benchmark listens on loopback only");
    let incoming = tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true));
    let stop = stdin_closed();
    let service = pb::table_server::TableServer::new(EchoTable { reply }).max_decoding_message_size(MESSAGE_BYTES_MAX);
    // The controller's transport settings, so that only the work behind them differs.
    let server = pozo_server::server_builder().add_service(service);
    announce(address, "");
    server
        .serve_with_incoming_shutdown(incoming, async move {
            let _ = stop.await;
        })
        .await?;
    Ok(())
}

// ----------------------------------------------------------------------------- a table's loop

/// One step of a table's cycle: open once, then round after round press every
/// seat (buying credits when a seat has none), INICIAR JUEGO, FINALIZAR JUEGO.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Open,
    Sell(u32),
    Press(u32),
    Start,
    Finish,
}

impl Step {
    fn wire(self) -> Wire {
        match self {
            Step::Open => Wire::OpenTable(pb::OpenTable {}),
            Step::Sell(seat) => Wire::SellCredits(pb::SellCredits { seat, credits: CREDITS_SOLD }),
            Step::Press(seat) => Wire::Press(pb::Press { seat }),
            Step::Start => Wire::StartRound(pb::StartRound {}),
            Step::Finish => Wire::FinishRound(pb::FinishRound {}),
        }
    }
}

/// Where a table is in its cycle, as its agent knows it.
#[derive(Clone, Debug)]
struct Cycle {
    open: bool,
    credits: Vec<u32>,
    /// The next seat to press, from 1; past the last, the round is played.
    next_seat: u32,
    started: bool,
}

impl Cycle {
    fn new(seats: u32) -> Cycle {
        Cycle { open: false, credits: vec![0; seats as usize], next_seat: 1, started: false }
    }

    fn next(&self) -> Step {
        if !self.open {
            Step::Open
        } else if let Some(credits) = self.credits.get(self.next_seat as usize - 1) {
            if *credits == 0 { Step::Sell(self.next_seat) } else { Step::Press(self.next_seat) }
        } else if !self.started {
            Step::Start
        } else {
            Step::Finish
        }
    }

    fn applied(&mut self, step: Step) {
        match step {
            Step::Open => self.open = true,
            Step::Sell(seat) => self.credits[seat as usize - 1] += CREDITS_SOLD,
            Step::Press(seat) => {
                self.credits[seat as usize - 1] -= 1;
                self.next_seat += 1;
            }
            Step::Start => self.started = true,
            Step::Finish => {
                self.started = false;
                self.next_seat = 1;
            }
        }
    }
}

/// A table's agent as far as the load goes: signs each command with the table's
/// key over the exact payload bytes, one command in flight.
struct Agent {
    table: String,
    key_id: String,
    /// The journal the envelopes are signed for.
    journal_id: String,
    /// The HMAC keyed with the table's secret and fed the envelope's context and
    /// journal id (docs/api.md §2), cloned for each command.
    mac: Hmac<Sha256>,
    /// The next sequence.
    sequence: u64,
    cycle: Cycle,
    client: pb::table_client::TableClient<Channel>,
}

impl Agent {
    fn envelope(&self, step: Step) -> pb::Envelope {
        let payload = pb::TableCommand { table_id: self.table.clone(), sequence: self.sequence, command: Some(step.wire()) }
            .encode_to_vec();
        let mut mac = self.mac.clone();
        mac.update(&payload);
        pb::Envelope {
            payload,
            key_id: self.key_id.clone(),
            mac: mac.finalize().into_bytes().to_vec(),
            journal_id: self.journal_id.clone(),
        }
    }

    /// Sends `step`; on its acknowledgement the cycle and the sequence move on.
    async fn send(&mut self, step: Step) -> anyhow::Result<pb::SubmitReply> {
        let envelope = self.envelope(step);
        let reply = self.client.submit(envelope).await.map_err(|status| {
            anyhow::anyhow!(
                "table {}: {step:?} (sequence {}) refused: {:?} {}",
                self.table,
                self.sequence,
                status.code(),
                status.message()
            )
        })?;
        self.sequence += 1;
        self.cycle.applied(step);
        Ok(reply.into_inner())
    }

    /// Sends what comes before the next press (credits, INICIAR, FINALIZAR); returns how many.
    async fn ready_to_press(&mut self) -> anyhow::Result<u64> {
        let mut sent = 0;
        loop {
            let step = self.cycle.next();
            if matches!(step, Step::Press(_)) {
                return Ok(sent);
            }
            self.send(step).await?;
            sent += 1;
        }
    }
}

/// One client per table over `connections` HTTP/2 connections to `url`, signing
/// for the journal the controller announces (`None`: the bare echo, which has none).
async fn agents(config: &Config, url: &str, connections: u64, identify: bool) -> anyhow::Result<Vec<Agent>> {
    let mut channels = Vec::new();
    for _ in 0..connections.min(config.layout.tables.len() as u64) {
        let channel = Channel::from_shared(url.to_owned())?
            .tcp_nodelay(true)
            .connect()
            .await
            .with_context(|| format!("connecting to {url}"))?;
        channels.push(channel);
    }
    let journal_id = match (identify, channels.first()) {
        (true, Some(channel)) => {
            pb::controller_client::ControllerClient::new(channel.clone())
                .identify(pb::IdentifyRequest {})
                .await?
                .into_inner()
                .journal_id
        }
        _ => "echo".to_owned(),
    };
    config
        .layout
        .tables
        .iter()
        .enumerate()
        .map(|(index, table)| {
            let key = casino::table_key(config, &table.id)?;
            // pozo_proto::sign's prefix, fed once.
            let mac = pozo_proto::envelope_mac(&key.secret, pozo_proto::Purpose::TableCommand, &journal_id);
            let channel = channels[index % channels.len()].clone();
            Ok(Agent {
                table: table.id.clone(),
                key_id: key.id,
                journal_id: journal_id.clone(),
                mac,
                sequence: 1,
                cycle: Cycle::new(table.seats),
                client: pb::table_client::TableClient::new(channel).max_decoding_message_size(MESSAGE_BYTES_MAX),
            })
        })
        .collect()
}

/// Runs `work` on every agent at once; returns the agents, in order.
async fn on_every<F, Fut, T>(agents: Vec<Agent>, work: F) -> anyhow::Result<(Vec<Agent>, Vec<T>)>
where
    F: Fn(Agent) -> Fut,
    Fut: std::future::Future<Output = (Agent, anyhow::Result<T>)> + Send + 'static,
    T: Send + 'static,
{
    let tasks: Vec<_> = agents.into_iter().map(|agent| tokio::spawn(work(agent))).collect();
    let mut agents = Vec::with_capacity(tasks.len());
    let mut results = Vec::with_capacity(tasks.len());
    let mut failure = None;
    for task in tasks {
        let (agent, result) = task.await?;
        agents.push(agent);
        match result {
            Ok(value) => results.push(value),
            Err(error) => failure = failure.or(Some(error)),
        }
    }
    match failure {
        Some(error) => Err(error),
        None => Ok((agents, results)),
    }
}

#[derive(Default)]
struct Counters {
    presses: AtomicU64,
    commands: AtomicU64,
}

struct Window {
    presses: u64,
    commands: u64,
    /// Commands acknowledged in each second of the window.
    each_second: Vec<u64>,
    elapsed: Duration,
    server_cpu: f64,
    client_cpu: f64,
    other_cpu: f64,
}

/// One sign's stream: for every `pozos` or `montos` event, µs from the durability of the batch it
/// carries (`durable_us`), and from that of the event before it (an upper bound for the
/// oldest batch the event carries: every batch it folds in became durable after that).
///
/// The reader is as cheap as a sign can be, so that the load generator, on the same two
/// cores, takes as little as it can from the controller: one plain `GET` on a socket,
/// then a byte scan for `"durable_us":` (the server writes each event whole, as one
/// chunk, so a chunk-size line never falls inside one).
async fn read_sign(pages: String, open: Arc<AtomicU64>, done: Arc<AtomicBool>) -> anyhow::Result<(Vec<u32>, Vec<u32>)> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(&pages).await?;
    stream.write_all(format!("GET /cartel/eventos HTTP/1.1\r\nHost: {pages}\r\n\r\n").as_bytes()).await?;
    let mut buffer = vec![0u8; 64 * 1024];
    let mut pending = Vec::<u8>::new();
    let (mut newest, mut oldest) = (Vec::new(), Vec::new());
    let mut previous: Option<u64> = None;
    let mut counted = false;
    const FIELD: &[u8] = b"\"durable_us\":";
    loop {
        let read = stream.read(&mut buffer).await?;
        anyhow::ensure!(read > 0, "the sign's stream ended");
        if !counted {
            anyhow::ensure!(buffer.starts_with(b"HTTP/1.1 200"), "the sign's stream was refused");
            open.fetch_add(1, Ordering::Relaxed);
            counted = true;
        }
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_micros() as u64;
        pending.extend_from_slice(&buffer[..read]);
        let mut consumed = 0;
        while let Some(at) = pending[consumed..].windows(FIELD.len()).position(|window| window == FIELD) {
            let start = consumed + at + FIELD.len();
            let digits = pending[start..].iter().take_while(|byte| byte.is_ascii_digit()).count();
            if start + digits == pending.len() {
                break; // the number goes on in the next read
            }
            let durable: u64 = std::str::from_utf8(&pending[start..start + digits])?.parse()?;
            // The first event is the state when the sign connected, not a new batch.
            if let Some(previous) = previous {
                newest.push(u32::try_from(now.saturating_sub(durable)).unwrap_or(u32::MAX));
                oldest.push(u32::try_from(now.saturating_sub(previous)).unwrap_or(u32::MAX));
            }
            previous = Some(durable);
            consumed = start + digits;
        }
        // Keep only what may hold the start of the next field.
        let keep_from = pending.len().saturating_sub(FIELD.len() + 20).max(consumed);
        pending.drain(..keep_from);
        if done.load(Ordering::Relaxed) {
            return Ok((newest, oldest));
        }
    }
}

/// `count` signs reading `/cartel/eventos`, until `done`.
struct OpenSigns {
    readers: Vec<tokio::task::JoinHandle<anyhow::Result<(Vec<u32>, Vec<u32>)>>>,
    open: Arc<AtomicU64>,
    done: Arc<AtomicBool>,
}

impl OpenSigns {
    async fn open(pages: &str, count: u64) -> anyhow::Result<OpenSigns> {
        let open = Arc::new(AtomicU64::new(0));
        let done = Arc::new(AtomicBool::new(false));
        let readers =
            (0..count).map(|_| tokio::spawn(read_sign(pages.to_owned(), Arc::clone(&open), Arc::clone(&done)))).collect();
        let deadline = Instant::now() + READY_TIMEOUT;
        while open.load(Ordering::Relaxed) < count {
            anyhow::ensure!(Instant::now() < deadline, "only {} of {count} signs connected", open.load(Ordering::Relaxed));
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        Ok(OpenSigns { readers, open, done })
    }

    /// Closes every stream; the signs still open, and every reader's latencies.
    async fn close(self, latencies: &mut Vec<u32>, oldest: &mut Vec<u32>) -> anyhow::Result<u64> {
        let connected = self.open.load(Ordering::Relaxed);
        self.done.store(true, Ordering::Relaxed);
        for reader in self.readers {
            // Each reader returns at its next event (a heartbeat comes every 300 ms).
            match tokio::time::timeout(Duration::from_secs(5), reader).await {
                Ok(Ok(Ok((mut newest, mut older)))) => {
                    latencies.append(&mut newest);
                    oldest.append(&mut older);
                }
                Ok(Ok(Err(error))) => anyhow::bail!("a sign's stream failed: {error:#}"),
                Ok(Err(error)) => anyhow::bail!("a sign's reader panicked: {error}"),
                Err(_) => anyhow::bail!("a sign's stream went silent"),
            }
        }
        Ok(connected)
    }
}

/// After the durable window `without`: `rounds` times, a window with `count` signs
/// reading `/cartel/eventos` throughout, then one without.
// Statistics, not money: floats are right here.
#[allow(clippy::float_arithmetic)]
async fn with_signs(
    mut agents: Vec<Agent>,
    pages: &str,
    count: u64,
    rounds: u64,
    seconds: u64,
    server_pid: u32,
    without: &Window,
) -> anyhow::Result<(Vec<Agent>, Signs)> {
    let (mut latencies, mut oldest) = (Vec::new(), Vec::new());
    let mut connected_at_end = count;
    let mut before = per_second(without.presses, without.elapsed);
    let (mut withs, mut withouts) = (Vec::new(), vec![before]);
    let (mut server_cpu, mut client_cpu) = (0.0, 0.0);
    let mut results = Vec::new();
    for round in 1..=rounds {
        progress(&format!("round {round} of {rounds}: durable throughput with {count} signs open: {seconds} s"));
        let signs = OpenSigns::open(pages, count).await?;
        let (back, window) = saturate(agents, seconds, server_pid).await?;
        connected_at_end = connected_at_end.min(signs.close(&mut latencies, &mut oldest).await?);
        // The windows without signs before and after this one: the ratio is against their
        // mean, so a drift (the journal growing, the machine) counts neither for nor
        // against the signs.
        progress(&format!("round {round} of {rounds}: durable throughput without signs: {seconds} s"));
        let (back, after) = saturate(back, seconds, server_pid).await?;
        agents = back;
        let with = per_second(window.presses, window.elapsed);
        let after = per_second(after.presses, after.elapsed);
        results.push(SignRound {
            presses_per_s_without_before: before,
            presses_per_s_with: with,
            presses_per_s_without_after: after,
            ratio: ratio(with, (before + after) / 2.0),
        });
        server_cpu += window.server_cpu;
        client_cpu += window.client_cpu;
        withs.push(with);
        withouts.push(after);
        before = after;
    }
    latencies.sort_unstable();
    oldest.sort_unstable();
    let mut ratios: Vec<f64> = results.iter().map(|round| round.ratio).collect();
    ratios.sort_by(f64::total_cmp);
    let median = match ratios.len() {
        0 => 0.0,
        length if length % 2 == 1 => ratios[length / 2],
        length => (ratios[length / 2 - 1] + ratios[length / 2]) / 2.0,
    };
    let mean = |values: &[f64]| ratio(values.iter().sum(), values.len() as f64);
    Ok((
        agents,
        Signs {
            opened: count,
            connected_at_end,
            presses_per_s_without: mean(&withouts),
            presses_per_s_with: mean(&withs),
            rounds: results,
            ratio: median,
            events: latencies.len() as u64,
            p50_ms: micros_to_ms(percentile(&latencies, 500)),
            p99_ms: micros_to_ms(percentile(&latencies, 990)),
            max_ms: micros_to_ms(latencies.last().copied().unwrap_or(0).into()),
            oldest_p99_ms: micros_to_ms(percentile(&oldest, 990)),
            server_cpu_percent: ratio(server_cpu, rounds as f64),
            client_cpu_percent: ratio(client_cpu, rounds as f64),
        },
    ))
}

/// Every agent sends its next command as soon as the last is acknowledged; counts
/// over `seconds` after a warm-up.
async fn saturate(agents: Vec<Agent>, seconds: u64, server_pid: u32) -> anyhow::Result<(Vec<Agent>, Window)> {
    let counters = Arc::new(Counters::default());
    let stop = Arc::new(AtomicBool::new(false));
    let tasks: Vec<_> = agents
        .into_iter()
        .map(|mut agent| {
            let counters = Arc::clone(&counters);
            let stop = Arc::clone(&stop);
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    let step = agent.cycle.next();
                    if let Err(error) = agent.send(step).await {
                        return (agent, Err(error));
                    }
                    counters.commands.fetch_add(1, Ordering::Relaxed);
                    if matches!(step, Step::Press(_)) {
                        counters.presses.fetch_add(1, Ordering::Relaxed);
                    }
                }
                (agent, Ok(()))
            })
        })
        .collect();
    let warmup = (Duration::from_secs(seconds) / 5).min(WARMUP_MAX);
    tokio::time::sleep(warmup).await;
    let sample = || {
        (
            counters.presses.load(Ordering::Relaxed),
            counters.commands.load(Ordering::Relaxed),
            Instant::now(),
            cpu_ticks(&server_pid.to_string()),
            cpu_ticks("self"),
            machine_busy_ticks(),
        )
    };
    let (presses, commands, started, server_cpu, client_cpu, busy) = sample();
    // Each second's commands too: a rate that sags as the journal grows shows here.
    let mut each_second = Vec::with_capacity(seconds as usize);
    let mut last = commands;
    let mut ticks =
        tokio::time::interval_at(tokio::time::Instant::from_std(started) + Duration::from_secs(1), Duration::from_secs(1));
    for _ in 0..seconds {
        ticks.tick().await;
        let now = counters.commands.load(Ordering::Relaxed);
        each_second.push(now - last);
        last = now;
    }
    let (presses_end, commands_end, ended, server_cpu_end, client_cpu_end, busy_end) = sample();
    stop.store(true, Ordering::Relaxed);
    let mut agents = Vec::with_capacity(tasks.len());
    let mut failure = None;
    for task in tasks {
        let (agent, result) = task.await?;
        agents.push(agent);
        if let Err(error) = result {
            failure = failure.or(Some(error));
        }
    }
    if let Some(error) = failure {
        return Err(error);
    }
    let elapsed = ended - started;
    let window = Window {
        presses: presses_end - presses,
        commands: commands_end - commands,
        each_second,
        elapsed,
        server_cpu: cpu_percent(server_cpu, server_cpu_end, elapsed),
        client_cpu: cpu_percent(client_cpu, client_cpu_end, elapsed),
        other_cpu: other_cpu(
            cpu_percent(busy, busy_end, elapsed),
            cpu_percent(server_cpu, server_cpu_end, elapsed),
            cpu_percent(client_cpu, client_cpu_end, elapsed),
        ),
    };
    Ok((agents, window))
}

/// Presses paced at `rate` a second over every table (each table at `rate / tables`,
/// offsets spread evenly); a press's latency counts from the moment it was due.
async fn paced(agents: Vec<Agent>, rate: u64, seconds: u64, server_pid: u32) -> anyhow::Result<(Vec<Agent>, Latency)> {
    let tables = agents.len() as u64;
    let period = Duration::from_nanos(1_000_000_000 * tables / rate);
    let start = tokio::time::Instant::now() + Duration::from_millis(100);
    let end = start + Duration::from_secs(seconds);
    let work = |(index, mut agent): (u64, Agent)| async move {
        let mut latencies = Vec::new();
        let mut commands = 0u64;
        let mut interval = tokio::time::interval_at(start + fraction(period, index, tables), period);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
        let result = async {
            commands += agent.ready_to_press().await?;
            loop {
                let due = interval.tick().await;
                if due >= end {
                    return Ok(());
                }
                let step = agent.cycle.next();
                agent.send(step).await?;
                let micros = u32::try_from(due.elapsed().as_micros()).unwrap_or(u32::MAX);
                latencies.push(micros);
                commands += 1;
                // INICIAR, FINALIZAR and credits now, between this press and the next.
                commands += agent.ready_to_press().await?;
            }
        }
        .await;
        (agent, result.map(|()| (latencies, commands)))
    };
    let cpu = || (cpu_ticks(&server_pid.to_string()), cpu_ticks("self"), machine_busy_ticks(), Instant::now());
    let (server_cpu, client_cpu, busy, started) = cpu();
    let indexed: Vec<(u64, Agent)> = (0..tables).zip(agents).collect();
    let tasks: Vec<_> = indexed.into_iter().map(|item| tokio::spawn(work(item))).collect();
    let mut agents = Vec::with_capacity(tasks.len());
    let mut samples: Vec<u32> = Vec::new();
    let mut commands = 0u64;
    let mut failure = None;
    for task in tasks {
        let (agent, result) = task.await?;
        agents.push(agent);
        match result {
            Ok((latencies, sent)) => {
                samples.extend(latencies);
                commands += sent;
            }
            Err(error) => failure = failure.or(Some(error)),
        }
    }
    let (server_cpu_end, client_cpu_end, busy_end, ended) = cpu();
    if let Some(error) = failure {
        return Err(error);
    }
    let elapsed = ended - started;
    let server_cpu = cpu_percent(server_cpu, server_cpu_end, elapsed);
    let client_cpu = cpu_percent(client_cpu, client_cpu_end, elapsed);
    samples.sort_unstable();
    let window = Duration::from_secs(seconds);
    let latency = Latency {
        rate,
        achieved_rate: per_second(samples.len() as u64, window),
        commands_per_s: per_second(commands, window),
        samples: samples.len(),
        seconds,
        p50_ms: micros_to_ms(percentile(&samples, 500)),
        p90_ms: micros_to_ms(percentile(&samples, 900)),
        p99_ms: micros_to_ms(percentile(&samples, 990)),
        p999_ms: micros_to_ms(percentile(&samples, 999)),
        max_ms: micros_to_ms(samples.last().copied().map(u64::from).unwrap_or(0)),
        server_cpu_percent: server_cpu,
        client_cpu_percent: client_cpu,
        other_cpu_percent: other_cpu(cpu_percent(busy, busy_end, elapsed), server_cpu, client_cpu),
    };
    Ok((agents, latency))
}

/// `period × index / count`, in whole nanoseconds.
fn fraction(period: Duration, index: u64, count: u64) -> Duration {
    let nanos = period.as_nanos() * u128::from(index) / u128::from(count.max(1));
    Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
}

// ----------------------------------------------------------------------------- the restart journal

/// Writes a journal of `entries` entries in `directory` for `config`: the genesis
/// entry, then every table's cycle in turn, each command applied by the state
/// machine before it is journaled (so chain, tip, snapshot and books are valid:
/// `pozo-server verify` passes). The snapshot is left `snapshot_every - 1`
/// entries behind the tip, the longest replay a restart can meet. Returns the
/// snapshot's entry (0 for none).
async fn build_journal(directory: &Path, config: Config, entries: u64, snapshot_every: u64) -> anyhow::Result<u64> {
    struct Table {
        id: String,
        sequence: u64,
        cycle: Cycle,
        cards: bool,
    }
    let config = Arc::new(config);
    let journal = Journal::open(directory)?;
    let mut state = State::new(Arc::clone(&config));
    // One millisecond of journal time every thousand entries, ending about now.
    let base_ms = writer::now_ms().saturating_sub(entries / 1000 + 1000);
    let genesis = writer::genesis(&config, base_ms, "pozo-sim bench");
    state.apply(1, base_ms, &genesis.command).map_err(|refusal| anyhow::anyhow!("genesis: {refusal}"))?;
    let identity = Identity::generate();
    journal.set_identity(&identity)?;
    let journal_key = config.journal_key.as_ref().context("the keys have a journal key")?;
    let sealer = pozo_server::mark::Sealer::new(journal_key, &identity).map_err(anyhow::Error::msg)?;
    let (value, mut hash): (Vec<u8>, Hash) = Journal::encode(&identity.genesis_previous(), &genesis);
    let mut batch = Vec::with_capacity(BUILD_BATCH);
    batch.push((1, value));
    let snapshot_at = if entries > snapshot_every { entries - (snapshot_every - 1) } else { 0 };
    let mut tables: Vec<Table> = config
        .layout
        .tables
        .iter()
        .map(|table| Table {
            id: table.id.clone(),
            sequence: 1,
            cycle: Cycle::new(table.seats),
            cards: plays_instant_prize(&table.game),
        })
        .collect();
    for sequence in 2..=entries {
        let index = (sequence as usize - 2) % tables.len();
        let table = &mut tables[index];
        let step = table.cycle.next();
        let wire = step.wire();
        let op = table_op(wire.clone()).map_err(|status| anyhow::anyhow!("{step:?}: {}", status.message()))?;
        let payload =
            pb::TableCommand { table_id: table.id.clone(), sequence: table.sequence, command: Some(wire) }.encode_to_vec();
        let card = (step == Step::Start && table.cards).then(|| Card::from_index((sequence % 52) as u8));
        let command = Command::Table(TableCommand {
            table_id: table.id.clone(),
            sequence: table.sequence,
            payload_sha256: payload_sha256(&payload),
            op,
            card,
        });
        let time_ms = base_ms + sequence / 1000;
        match state.apply(sequence, time_ms, &command) {
            Ok(applied) if applied.journals() => {}
            Ok(_) => anyhow::bail!("entry {sequence}: {step:?} at table {} changed nothing", table.id),
            Err(refusal) => anyhow::bail!("entry {sequence}: {step:?} at table {} refused: {refusal}", table.id),
        }
        table.cycle.applied(step);
        table.sequence += 1;
        let record = Record { sequence, time_ms, command };
        let (value, next) = Journal::encode(&hash, &record);
        hash = next;
        batch.push((sequence, value));
        if sequence == snapshot_at {
            let stored = StoredSnapshot { sequence, tip: hex::encode(hash), snapshot: state.snapshot() };
            journal.save_snapshot(&stored, &sealer)?;
        }
        if batch.len() >= BUILD_BATCH {
            let seal = sealer.tip_seal(sequence, &hash);
            journal.append(std::mem::replace(&mut batch, Vec::with_capacity(BUILD_BATCH)), (sequence, hash), seal).await?;
        }
    }
    if !batch.is_empty() {
        journal.append(batch, (entries, hash), sealer.tip_seal(entries, &hash)).await?;
    }
    // What a controller that wrote this journal would have acknowledged: all of it.
    pozo_server::mark::Mark::open(&pozo_server::mark::default_path(directory), sealer)?.write(entries, &hash)?;
    Ok(snapshot_at)
}

/// The recovery steps of `writer::start`, timed one by one (ms).
fn time_recovery(directory: &Path, config: Config) -> anyhow::Result<(f64, f64, f64, f64, u64)> {
    let started = Instant::now();
    let journal = Journal::open(directory)?;
    let opened = started.elapsed();
    let (entries, _) = journal.tip()?;
    let identity = journal.identity()?.context("the built journal has an identity")?;
    let sealer = pozo_server::mark::Sealer::new(config.journal_key.as_ref().context("a journal key")?, &identity)
        .map_err(anyhow::Error::msg)?;
    let (_, tip, recovery) = writer::recover(&journal, &identity, &sealer, &Arc::new(config), entries)?;
    let ms = |duration: Duration| micros_to_ms(duration.as_micros() as u64);
    Ok((
        ms(opened),
        ms(recovery.snapshot_load),
        ms(recovery.state_restore),
        ms(recovery.replay),
        tip.entries - recovery.snapshot_at,
    ))
}

// ----------------------------------------------------------------------------- the run

fn progress(text: &str) {
    eprintln!("pozo-sim bench: {text}");
}

fn bench(args: &Args, command: String) -> anyhow::Result<Report> {
    let wall = Instant::now();
    let load_average = std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim().to_owned();
    let runtime = runtime()?;
    let tables = args.tables as usize;
    let config = casino::generated(tables, args.seed)?;
    let child_server = |data: &Path| -> Vec<String> {
        vec![
            "server".into(),
            "--data".into(),
            data.display().to_string(),
            "--tables".into(),
            tables.to_string(),
            "--seed".into(),
            args.seed.to_string(),
            "--listen".into(),
            "127.0.0.1:0".into(),
            "--snapshot-every".into(),
            args.snapshot_every.to_string(),
        ]
    };
    let with_pages = |data: &Path| -> Vec<String> {
        let mut child = child_server(data);
        if args.signs > 0 {
            child.push("--pages".into());
        }
        child
    };

    // 1–3: the controller on a fresh journal.
    let data = tempfile::tempdir()?;
    progress(&format!("starting the controller with {tables} tables"));
    let server = ChildProcess::start("controller", &with_pages(data.path()))?;
    let url = server.url();
    let server_pid = server.pid();
    let pages = server.figure("pages").map(str::to_owned);
    let (durable, latency, memory, reply, signs) = runtime.block_on(async {
        let agents = agents(&config, &url, args.connections, true).await?;
        let (mut agents, _) = on_every(agents, |mut agent| async move {
            let result = agent.ready_to_press().await;
            (agent, result)
        })
        .await?;
        // One real press reply: the echo answers with these bytes.
        let first = &mut agents[0];
        let reply = first.send(first.cycle.next()).await?;
        first.ready_to_press().await?;
        let rss_open = status_kib(server_pid, "VmRSS").unwrap_or(0);
        progress(&format!("latency: {} presses/s for {} s", args.rate, args.latency_seconds));
        let (agents, latency) = paced(agents, args.rate, args.latency_seconds, server_pid).await?;
        progress(&format!("durable throughput: {} s", args.seconds));
        let (agents, window) = saturate(agents, args.seconds, server_pid).await?;
        let signs = match (&pages, args.signs) {
            (Some(pages), count) if count > 0 => {
                let (_, signs) = with_signs(agents, pages, count, args.sign_rounds, args.seconds, server_pid, &window).await?;
                Some(signs)
            }
            _ => {
                drop(agents);
                None
            }
        };
        let journal_entries = {
            let channel = Channel::from_shared(url.clone())?.connect().await?;
            pb::controller_client::ControllerClient::new(channel).identify(pb::IdentifyRequest {}).await?.into_inner().entries
        };
        let memory = Memory {
            tables: args.tables,
            peak_mb: kib_to_mib(status_kib(server_pid, "VmHWM").unwrap_or(0)),
            rss_mb: kib_to_mib(status_kib(server_pid, "VmRSS").unwrap_or(0)),
            rss_open_mb: kib_to_mib(rss_open),
            journal_entries,
        };
        anyhow::Ok((window, latency, memory, reply, signs))
    })?;
    server.stop()?;
    drop(data);

    // 4: the bare echo of the same messages.
    let reply_bytes = reply.encode_to_vec();
    progress(&format!("echo throughput: {} s", args.seconds));
    let echo = ChildProcess::start("echo", &["echo".into(), "--reply-hex".into(), hex::encode(&reply_bytes)])?;
    let echo_url = echo.url();
    let echo_window = runtime.block_on(async {
        let agents = agents(&config, &echo_url, args.connections, false).await?;
        let (agents, window) = saturate(agents, args.seconds, echo.pid()).await?;
        drop(agents);
        anyhow::Ok(window)
    })?;
    echo.stop()?;

    // 5: a restart on a long journal.
    let data = tempfile::tempdir()?;
    progress(&format!("writing a journal of {} entries", args.entries));
    let built = Instant::now();
    let snapshot_at = runtime.block_on(build_journal(data.path(), config.clone(), args.entries, args.snapshot_every))?;
    let build_seconds = built.elapsed().as_secs_f64();
    progress("restarting the controller on it");
    let restarted = ChildProcess::start("restarted controller", &child_server(data.path()))?;
    let restart_url = restarted.url();
    let entries = runtime.block_on(async {
        let channel = Channel::from_shared(restart_url)?.connect().await?;
        let identity = pb::controller_client::ControllerClient::new(channel).identify(pb::IdentifyRequest {}).await?;
        anyhow::Ok(identity.into_inner().entries)
    })?;
    anyhow::ensure!(entries == args.entries, "the restarted controller reports {entries} entries, not {}", args.entries);
    let ready = restarted.ready;
    let config_ms: f64 = restarted.figure("config_ms").and_then(|value| value.parse().ok()).unwrap_or(0.0);
    let restart_peak = kib_to_mib(status_kib(restarted.pid(), "VmHWM").unwrap_or(0));
    restarted.stop()?;
    let (journal_open, snapshot_load, state_restore, replay, replayed_entries) = time_recovery(data.path(), config)?;
    let journal_mb = kib_to_mib(disk_bytes(data.path()) / 1024);
    drop(data);
    drop(runtime);

    let durable = Durable {
        presses_per_s: per_second(durable.presses, durable.elapsed),
        commands_per_s: per_second(durable.commands, durable.elapsed),
        presses: durable.presses,
        commands: durable.commands,
        commands_each_second: durable.each_second,
        seconds: durable.elapsed.as_secs_f64(),
        tables: args.tables,
        connections: args.connections.min(args.tables),
        server_cpu_percent: durable.server_cpu,
        client_cpu_percent: durable.client_cpu,
        other_cpu_percent: durable.other_cpu,
    };
    let echo = Echo {
        requests_per_s: per_second(echo_window.commands, echo_window.elapsed),
        presses_per_s: per_second(echo_window.presses, echo_window.elapsed),
        requests: echo_window.commands,
        requests_each_second: echo_window.each_second,
        seconds: echo_window.elapsed.as_secs_f64(),
        reply_bytes: reply_bytes.len(),
        server_cpu_percent: echo_window.server_cpu,
        client_cpu_percent: echo_window.client_cpu,
        other_cpu_percent: echo_window.other_cpu,
    };
    let restart = Restart {
        entries,
        ready_ms: micros_to_ms(ready.as_micros() as u64),
        snapshot_every: args.snapshot_every,
        snapshot_at,
        replayed_entries,
        peak_mb: restart_peak,
        journal_mb,
        build_seconds,
        breakdown_ms: RestartBreakdown { config: config_ms, journal_open, snapshot_load, state_restore, replay },
    };
    let ratio = ratio(durable.commands_per_s, echo.requests_per_s);
    let targets = Targets {
        durable_presses_per_s: Target {
            target: TARGET_PRESSES_PER_S,
            value: durable.presses_per_s,
            met: durable.presses_per_s >= TARGET_PRESSES_PER_S,
        },
        echo_ratio: Target { target: TARGET_ECHO_RATIO, value: ratio, met: ratio >= TARGET_ECHO_RATIO },
        p99_ms: Target { target: TARGET_P99_MS, value: latency.p99_ms, met: latency.p99_ms <= TARGET_P99_MS },
        memory_mb: Target { target: TARGET_MEMORY_MB, value: memory.peak_mb, met: memory.peak_mb <= TARGET_MEMORY_MB },
        restart_ready_ms: Target { target: TARGET_READY_MS, value: restart.ready_ms, met: restart.ready_ms <= TARGET_READY_MS },
    };
    Ok(Report {
        command,
        durable,
        echo,
        ratio,
        latency_at_2000_per_s: latency,
        memory_1000_tables: memory,
        restart_1m_entries: restart,
        signs,
        machine: machine(load_average),
        targets,
        wall_seconds: wall.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_restart_journal_is_one_verify_accepts() {
        let directory = tempfile::tempdir().expect("a temporary directory");
        let config = casino::generated(16, 3).expect("a casino");
        let runtime = runtime().expect("a runtime");
        let snapshot_at = runtime.block_on(build_journal(directory.path(), config.clone(), 3_000, 500)).expect("built");
        assert_eq!(snapshot_at, 2_501, "the snapshot as far behind the tip as the interval allows");
        let report = pozo_server::verify::verify_data(directory.path(), &config).expect("verified");
        assert!(report.ok(), "chain {}, conservation {}, snapshot {}", report.chain, report.conservation, report.snapshot);
        assert_eq!(report.acknowledged, "ok", "the built journal's mark is at its tip");
        assert_eq!(report.entries, 3_000);
        assert_eq!(report.snapshot, "ok");
    }

    #[test]
    fn a_table_cycle_buys_credits_presses_every_seat_then_plays_the_round() {
        let mut cycle = Cycle::new(2);
        let mut steps = Vec::new();
        for _ in 0..9 {
            let step = cycle.next();
            cycle.applied(step);
            steps.push(step);
        }
        use Step::*;
        assert_eq!(steps, [Open, Sell(1), Press(1), Sell(2), Press(2), Start, Finish, Press(1), Press(2)]);
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let samples: Vec<u32> = (1..=1000).collect();
        assert_eq!(percentile(&samples, 500), 500);
        assert_eq!(percentile(&samples, 990), 990);
        assert_eq!(percentile(&samples, 999), 999);
        assert_eq!(percentile(&[7], 990), 7);
        assert_eq!(percentile(&[], 500), 0);
        assert_eq!(fraction(Duration::from_millis(500), 1, 4), Duration::from_millis(125));
    }
}
