//! What the controller acknowledged, kept apart from the journal, and the seal
//! that binds both to the journal key (docs/security.md).
//!
//! sled recovers a damaged log by cutting it at the damage: after a crash and a
//! flipped byte, a journal can open shorter than what the controller had already
//! answered for. The **acknowledgement mark** is how the next start knows: a small
//! file outside the data directory (by default `<data>.acknowledged`, beside it),
//! written and synced after every durable batch and before any of its answers.
//! It holds the journal's identity, the last acknowledged entry and its hash. A
//! journal that ends before the mark, or whose entry there has another hash, is
//! refused: the controller fails closed rather than serve fewer entries than it
//! acknowledged.
//!
//! The file has two slots written in turn, each sealed on its own: a write torn by
//! a power cut leaves the other slot whole. The **seal** is HMAC-SHA256 under the
//! journal key over the slot; the journal's tip record carries the same kind of seal.
//! Without the key, whoever can write the data directory can neither forge a mark
//! nor rewrite history and recompute the hashes unnoticed.

use std::fs::File;
use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};

use super::identity::{Hash, Identity};
use super::seal::Sealer;
use crate::config::JournalKey;

const MAGIC: &[u8; 8] = b"POZOACK1";
/// Magic, installation (16), epoch (4), sequence (8), hash (32).
const BODY: usize = 8 + 16 + 4 + 8 + 32;
const SLOT: usize = BODY + 32;
/// Where each slot starts: one per 512-byte sector, so a torn write spoils only one.
const OFFSETS: [u64; 2] = [0, 512];

/// The mark file of a data directory: `<data>.acknowledged`, beside it.
pub fn default_path(data: &Path) -> PathBuf {
    let mut name = data.file_name().map(|name| name.to_os_string()).unwrap_or_else(|| "pozo-data".into());
    name.push(".acknowledged");
    data.with_file_name(name)
}

impl Sealer {
    fn slot(&self, sequence: u64, hash: &Hash) -> [u8; SLOT] {
        let mut slot = [0u8; SLOT];
        slot[..8].copy_from_slice(MAGIC);
        slot[8..24].copy_from_slice(&self.installation);
        slot[24..28].copy_from_slice(&self.epoch.to_be_bytes());
        slot[28..36].copy_from_slice(&sequence.to_be_bytes());
        slot[36..68].copy_from_slice(hash);
        let seal = self.mac(b"pozo.v1.mark\0", &slot[..BODY]);
        slot[BODY..].copy_from_slice(&seal);
        slot
    }
}

/// A slot as it is stored (magic checked, seal not yet).
struct StoredSlot<'a> {
    bytes: &'a [u8],
    epoch: u32,
    sequence: u64,
    hash: Hash,
}

/// The slots of a mark file's bytes, in slot order; `None` for one never written.
fn slots(bytes: &[u8]) -> [Option<StoredSlot<'_>>; 2] {
    OFFSETS.map(|offset| {
        let slot = bytes.get(offset as usize..offset as usize + SLOT).filter(|slot| &slot[..8] == MAGIC)?;
        Some(StoredSlot {
            bytes: slot,
            epoch: u32::from_be_bytes(slot[24..28].try_into().expect("4 bytes")),
            sequence: u64::from_be_bytes(slot[28..36].try_into().expect("8 bytes")),
            hash: slot[36..68].try_into().expect("32 bytes"),
        })
    })
}

/// The last acknowledged entry, as the mark file records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Acknowledged {
    pub sequence: u64,
    pub hash: Hash,
}

/// Why a mark file cannot be trusted.
#[derive(Debug, thiserror::Error)]
pub enum MarkError {
    #[error("{path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error(
        "{path}: no slot of the acknowledgement mark carries a valid seal: it is damaged, or was not written with this journal key"
    )]
    Unsealed { path: String },
    #[error("{path}: the acknowledgement mark belongs to another journal (installation or epoch differ)")]
    OtherJournal { path: String },
}

/// Syncs the directory holding `path`, so that a file created or renamed there survives a crash.
pub(crate) fn sync_directory_of(path: &Path) -> Result<(), MarkError> {
    let directory = path.parent().filter(|parent| !parent.as_os_str().is_empty()).unwrap_or(Path::new("."));
    File::open(directory)
        .and_then(|directory| directory.sync_all())
        .map_err(|error| MarkError::Io { path: directory.display().to_string(), error })
}

/// Reads the mark at `path`: `None` when there is no file.
pub fn read(path: &Path, sealer: &Sealer) -> Result<Option<Acknowledged>, MarkError> {
    let name = path.display().to_string();
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(MarkError::Io { path: name, error }),
    };
    // Created but never written (a stop between its creation and the first batch): as no file.
    if bytes.is_empty() {
        return Ok(None);
    }
    let mut best: Option<Acknowledged> = None;
    let mut other_journal = false;
    for slot in slots(&bytes).into_iter().flatten() {
        let resealed = sealer.slot(slot.sequence, &slot.hash);
        // Resealed for this journal: equal only if the slot is whole, under this key, for this journal.
        if resealed[..] == slot.bytes[..] {
            if best.is_none_or(|best| best.sequence < slot.sequence) {
                best = Some(Acknowledged { sequence: slot.sequence, hash: slot.hash });
            }
        } else if slot.bytes[8..28] != resealed[8..28] {
            other_journal = true;
        }
    }
    match best {
        Some(acknowledged) => Ok(Some(acknowledged)),
        None if other_journal => Err(MarkError::OtherJournal { path: name }),
        None => Err(MarkError::Unsealed { path: name }),
    }
}

/// The highest epoch of `identity`'s installation that a sealed slot of the mark at
/// `path` names, whatever the epoch of `identity`: what a restore must move past, so
/// that restoring the same backup twice never gives two journals one id.
pub(crate) fn highest_epoch(path: &Path, key: &JournalKey, identity: &Identity) -> Option<u32> {
    let bytes = std::fs::read(path).ok()?;
    slots(&bytes)
        .into_iter()
        .flatten()
        .filter_map(|slot| {
            let sealer = Sealer::new(key, &Identity { installation: identity.installation.clone(), epoch: slot.epoch }).ok()?;
            (sealer.slot(slot.sequence, &slot.hash)[..] == slot.bytes[..]).then_some(slot.epoch)
        })
        .max()
}

/// The mark file, open for the writer: one slot written and synced per durable batch.
pub struct Mark {
    path: PathBuf,
    file: File,
    sealer: Sealer,
    next_slot: usize,
}

impl Mark {
    /// Opens (creating) the mark file at `path`, readable by the server's user only. The
    /// first write goes to the slot holding the older entry, so the newer one stays whole.
    pub fn open(path: &Path, sealer: Sealer) -> Result<Mark, MarkError> {
        use std::os::unix::fs::OpenOptionsExt as _;
        let io = |error| MarkError::Io { path: path.display().to_string(), error };
        let existed = path.exists();
        let file =
            std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).mode(0o600).open(path).map_err(io)?;
        if !existed {
            // A new file's name is durable only once its directory is.
            sync_directory_of(path)?;
        }
        let bytes = std::fs::read(path).map_err(io)?;
        let [first, second] = slots(&bytes).map(|slot| slot.map_or(0, |slot| slot.sequence));
        let next_slot = usize::from(second < first);
        Ok(Mark { path: path.to_path_buf(), file, sealer, next_slot })
    }

    /// Records `sequence` (whose hash is `hash`) as acknowledged: written to the older
    /// slot and synced to disk before it returns. Called before any answer of the batch.
    pub fn write(&mut self, sequence: u64, hash: &Hash) -> Result<(), MarkError> {
        let slot = self.sealer.slot(sequence, hash);
        let io = |error| MarkError::Io { path: self.path.display().to_string(), error };
        self.file.write_all_at(&slot, OFFSETS[self.next_slot]).map_err(io)?;
        self.file.sync_data().map_err(io)?;
        self.next_slot = 1 - self.next_slot;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealer(epoch: u32) -> Sealer {
        let identity = Identity { installation: "00112233445566778899aabbccddeeff".into(), epoch };
        Sealer::new(&JournalKey(b"a journal key of some length".to_vec()), &identity).expect("a sealer")
    }

    #[test]
    fn the_newest_whole_slot_is_read_and_a_torn_one_is_ignored() {
        let directory = tempfile::tempdir().expect("a directory");
        let path = directory.path().join("mark");
        let mut mark = Mark::open(&path, sealer(1)).expect("opened");
        assert_eq!(read(&path, &sealer(1)).expect("an empty file"), None, "created, nothing written yet: as no file");
        mark.write(7, &[7; 32]).expect("written");
        mark.write(9, &[9; 32]).expect("written");
        assert_eq!(read(&path, &sealer(1)).expect("read"), Some(Acknowledged { sequence: 9, hash: [9; 32] }));
        // Tear the newer slot (offset 512): the older one still stands.
        let mut bytes = std::fs::read(&path).expect("bytes");
        bytes[512 + 40] ^= 0xff;
        std::fs::write(&path, &bytes).expect("torn");
        assert_eq!(read(&path, &sealer(1)).expect("read"), Some(Acknowledged { sequence: 7, hash: [7; 32] }));
        // Both torn: refused, never taken as "nothing acknowledged".
        bytes[40] ^= 0xff;
        std::fs::write(&path, &bytes).expect("torn");
        assert!(matches!(read(&path, &sealer(1)), Err(MarkError::Unsealed { .. })));
    }

    #[test]
    fn a_mark_of_another_epoch_or_key_is_refused() {
        let directory = tempfile::tempdir().expect("a directory");
        let path = directory.path().join("mark");
        Mark::open(&path, sealer(1)).expect("opened").write(3, &[3; 32]).expect("written");
        assert!(matches!(read(&path, &sealer(2)), Err(MarkError::OtherJournal { .. })));
        let other_key = Sealer::new(
            &JournalKey(b"another key".to_vec()),
            &Identity { installation: "00112233445566778899aabbccddeeff".into(), epoch: 1 },
        )
        .expect("a sealer");
        assert!(matches!(read(&path, &other_key), Err(MarkError::Unsealed { .. })));
        assert_eq!(read(&directory.path().join("none"), &sealer(1)).expect("no file"), None);
    }
}
