//! The disk's own sync, measured in the same run as the controller: what a batch's
//! acknowledgement cannot be faster than, and what the paced p99 is held against (docs/benchmarks.md).

use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use super::report::{micros_to_ms, percentile};

/// How many syncs are timed: enough for a p99, a fraction of a second on a fast disk.
pub(super) const SYNCS: usize = 200;

/// The bytes each sync makes durable: one page, as the acknowledgement mark writes.
const PAGE: usize = 4_096;

#[derive(Debug, Serialize)]
pub struct DiskSync {
    /// Where it was measured: the kind of directory the controller's journal is written to.
    pub directory: String,
    pub syncs: usize,
    /// A 4 KiB overwrite at the start of a file made durable (`fdatasync`), as the mark does.
    pub p50_ms: f64,
    pub p99_ms: f64,
}

/// One page at the start of a file, overwritten and made durable again and again: a sync as
/// the acknowledgement mark pays it.
pub(super) struct SyncedPage {
    file: std::fs::File,
    page: [u8; PAGE],
    round: u64,
}

impl SyncedPage {
    /// Creates `path` holding one durable page.
    pub(super) fn create(path: &Path) -> std::io::Result<SyncedPage> {
        let file = std::fs::OpenOptions::new().create(true).truncate(true).read(true).write(true).open(path)?;
        file.write_all_at(&[0; PAGE], 0)?;
        file.sync_all()?;
        Ok(SyncedPage { file, page: [0; PAGE], round: 0 })
    }

    /// Overwrites the page with the next round's bytes (not yet durable).
    pub(super) fn write(&mut self) -> std::io::Result<()> {
        self.round += 1;
        self.page[..8].copy_from_slice(&self.round.to_be_bytes());
        self.file.write_all_at(&self.page, 0)
    }

    /// Makes what was written durable (`fdatasync`).
    pub(super) fn sync(&self) -> std::io::Result<()> {
        self.file.sync_data()
    }
}

/// Times [`SYNCS`] overwrites of one page in a file under `directory`, each made durable before
/// the next; the file is removed with the directory.
pub(super) fn measure(directory: &Path) -> anyhow::Result<DiskSync> {
    let path = directory.join("disk-sync");
    let mut page = SyncedPage::create(&path)?;
    let mut micros = Vec::with_capacity(SYNCS);
    for _ in 0..SYNCS {
        page.write()?;
        let started = Instant::now();
        page.sync()?;
        micros.push(u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX));
    }
    drop(page);
    std::fs::remove_file(&path)?;
    micros.sort_unstable();
    Ok(DiskSync {
        directory: directory.display().to_string(),
        syncs: SYNCS,
        p50_ms: micros_to_ms(percentile(&micros, 500)),
        p99_ms: micros_to_ms(percentile(&micros, 990)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sync_is_timed_and_the_file_is_gone() {
        let directory = tempfile::tempdir().expect("a temporary directory");
        let sync = measure(directory.path()).expect("measured");
        assert_eq!(sync.syncs, SYNCS);
        assert!(0.0 < sync.p99_ms || sync.p50_ms == 0.0, "{sync:?}");
        assert!(sync.p50_ms <= sync.p99_ms, "{sync:?}");
        assert!(!directory.path().join("disk-sync").exists());
    }
}
