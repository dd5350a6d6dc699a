//! What the kernel says of a process and of the machine: CPU ticks and memory, read
//! through the `procfs` crate.

use procfs::process::Process;
use procfs::{Current as _, CurrentSI as _};

use super::*;

/// Peak (`VmHWM`) and current (`VmRSS`) resident memory of a process, in KiB.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Resident {
    pub peak_kib: u64,
    pub now_kib: u64,
}

pub(super) fn resident(pid: u32) -> Resident {
    let status = i32::try_from(pid).ok().and_then(|pid| Process::new(pid).ok()?.status().ok());
    status.map(|status| Resident { peak_kib: status.vmhwm.unwrap_or(0), now_kib: status.vmrss.unwrap_or(0) }).unwrap_or_default()
}

/// Busy CPU ticks of the whole machine, every core: all but idle and iowait.
pub(super) fn machine_busy_ticks() -> Option<u64> {
    let total = procfs::KernelStats::current().ok()?.total;
    let optional = [total.irq, total.softirq, total.steal].into_iter().flatten().sum::<u64>();
    Some(total.user + total.nice + total.system + optional)
}

/// User + system CPU ticks of a process: this one (`None`) or `pid`.
pub(super) fn cpu_ticks(pid: Option<u32>) -> Option<u64> {
    let process = match pid {
        None => Process::myself().ok()?,
        Some(pid) => Process::new(i32::try_from(pid).ok()?).ok()?,
    };
    let stat = process.stat().ok()?;
    Some(stat.utime + stat.stime)
}

/// The machine's one-, five- and fifteen-minute load averages, as a person reads them.
pub(super) fn load_average() -> String {
    procfs::LoadAverage::current().map(|load| format!("{:.2} {:.2} {:.2}", load.one, load.five, load.fifteen)).unwrap_or_default()
}

pub(super) fn machine(load_average_at_start: String) -> Machine {
    let cpu = procfs::CpuInfo::current().ok().and_then(|info| info.model_name(0).map(str::to_owned)).unwrap_or_default();
    let memory_bytes = procfs::Meminfo::current().map(|info| info.mem_total).unwrap_or(0);
    Machine {
        cores: std::thread::available_parallelism().map(|cores| cores.get()).unwrap_or(1),
        cpu,
        memory_mb: memory_bytes / (1024 * 1024),
        os: std::env::consts::OS.to_owned(),
        // The release as the kernel names itself (`6.1.0-25-amd64`): one line, read whole.
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
