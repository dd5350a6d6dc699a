//! What `/proc` says of a process: CPU ticks and memory.

use super::*;

/// A field of `/proc/PID/status` in KiB (`VmHWM`, `VmRSS`).
pub(super) fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    text.lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|value| value.split_whitespace().next()?.parse().ok())
}

/// Busy CPU ticks of the whole machine, every core (`/proc/stat`: all but idle and iowait).
pub(super) fn machine_busy_ticks() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    let fields: Vec<u64> = text.lines().next()?.strip_prefix("cpu ")?.split_whitespace().filter_map(|f| f.parse().ok()).collect();
    let total: u64 = fields.iter().take(8).sum();
    Some(total - fields.get(3)? - fields.get(4)?)
}

/// User + system CPU ticks of a process (`"self"` or a pid).
pub(super) fn cpu_ticks(pid: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces: the fields start after its closing parenthesis.
    let fields: Vec<&str> = text.rsplit_once(')')?.1.split_whitespace().collect();
    // Fields 14 and 15 (utime, stime), counted from 1; the first after ')' is field 3.
    let user: u64 = fields.get(11)?.parse().ok()?;
    let system: u64 = fields.get(12)?.parse().ok()?;
    Some(user + system)
}

pub(super) fn machine(load_average_at_start: String) -> Machine {
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
pub(super) fn disk_bytes(path: &Path) -> u64 {
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
