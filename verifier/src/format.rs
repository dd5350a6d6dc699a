//! The evidence file, as docs/journal.md ("A jornada's evidence") describes it byte for byte.
//!
//! A file is one JSON object, `{"evidence": {…}, "signature": {…}}`. The signature is Ed25519,
//! by the casino's evidence key, over [`CONTEXT`] followed by the bytes of the `evidence` value
//! **exactly as they stand in the file** (from its `{` to its `}`): nothing is serialized again
//! to check it, so no two programs can disagree about what was signed.

use std::collections::BTreeMap;

use pozo_core::state::{Command, Snapshot};
use pozo_engine::{Meters, Money, PoolFigures, PoolId, Reconciliation};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

/// What an evidence says it is.
pub const FORMAT: &str = "pozo.v1 jornada evidence";

/// What the signature covers before the evidence's bytes: an evidence signature is no other
/// signature of the same key.
pub const CONTEXT: &[u8] = b"pozo.v1.evidence\0";

/// The only signature algorithm.
pub const ALGORITHM: &str = "ed25519";

/// The largest evidence file read: a busy jornada is a few MiB (docs/benchmarks.md).
pub const FILE_BYTES_MAX: u64 = 1 << 30;

/// A SHA-256 hash.
pub type Hash = [u8; 32];

/// A jornada's journal entries and everything needed to check them alone.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    /// [`FORMAT`].
    pub format: String,
    /// The journal: its installation (what the chain is bound to) and its epoch (moved on by a
    /// restore); `journal_id` is `installation-epoch`.
    pub installation: String,
    pub epoch: u32,
    /// The jornada, `YYYY-MM-DD` (4.7, 12.8).
    pub jornada: String,
    /// When the file was made, Unix milliseconds.
    pub made_ms: u64,
    /// The journal held an entry of a later jornada when the file was made: the jornada is over
    /// and these are all its entries. `false` for a jornada still going on.
    pub complete: bool,
    /// The first and last entry of the jornada.
    pub first_entry: u64,
    pub last_entry: u64,
    /// The hash of the entry before the first (the chain's anchor; for entry 1, the genesis
    /// anchor of the installation), and of the last entry, hex.
    pub previous_hash: String,
    pub last_hash: String,
    /// The configuration in force as the jornada opened: its hash and its files, layout first.
    pub config_hash: String,
    pub files: Vec<(String, String)>,
    /// The whole state after the entry before the first; `null` when the first is the genesis entry.
    pub opening: Option<Snapshot>,
    pub entries: Vec<Entry>,
    pub closing: Closing,
}

/// One journal entry, and what the controller computed it did to the pools.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The record's bytes exactly as the journal stores them (the hash covers them), as text.
    pub record: String,
    /// Its hash, hex: `SHA-256(the previous entry's hash ‖ record)`.
    pub hash: String,
    /// Each pool the entry changed: its balance and reserve after it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pools: BTreeMap<PoolId, Balances>,
    /// Each pool with levels whose levels the entry changed: every level's balance and reserve
    /// after it, first level first (docs/readings.md, "Levels"). Absent when none changed, and
    /// in the files of releases before levels.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub levels: BTreeMap<PoolId, Vec<LevelBalances>>,
}

/// A tournament's seat draw as entry `entry` revealed it: the commitment it opens (journaled at
/// entry `committed_at`, in this jornada or an earlier one), the nonce, the players in play by
/// order number and the tables listed, and the seating claimed. It names nobody: players are
/// their order numbers (Res. 123/2013 Anexo IV 1.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatDrawn {
    /// The entry that revealed it (a `tournament` entry, op `draw_seats`).
    pub entry: u64,
    pub tournament: String,
    pub draw: u64,
    pub reason: pozo_core::tournament::seats::SeatDrawReason,
    /// `seats::commitment`, hex.
    pub commitment: String,
    pub committed_at: u64,
    /// 64 hex digits.
    pub nonce: String,
    /// By order number, ascending.
    pub players: Vec<u64>,
    pub tables: Vec<pozo_core::tournament::seats::TableSeats>,
    pub seating: Vec<pozo_core::tournament::seats::Seating>,
}

/// One level of a pool with levels after an entry: its name, balance and reserve.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LevelBalances {
    pub level: String,
    pub balance: Money,
    pub reserve: Money,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Balances {
    pub balance: Money,
    pub reserve: Money,
}

/// The jornada's close: every pool's figures after the last entry, each level's of a pool with
/// levels, each pool's books from the opening (tied to zero), and the SHA-256 of the state after
/// the last entry (its JSON).
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Closing {
    pub pools: BTreeMap<PoolId, PoolFigures>,
    /// Each pool with levels: every level, first level first, its figures after the last entry
    /// and its own books from the opening, tied to zero (every level conserves on its own,
    /// docs/readings.md, "Levels"). Absent when no pool has levels.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub levels: BTreeMap<PoolId, Vec<LevelClosing>>,
    pub reconciliation: BTreeMap<PoolId, Reconciliation>,
    /// Each poker tournament's books after the last entry, by id (Res. 123/2013 art. 62, 63, 66;
    /// docs/readings.md, "The tournament's prize pool"): sold per item less refunds equals prizes
    /// plus house, what was assigned and redistributed, paid and owed. Absent when the state
    /// holds no tournament.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tournaments: BTreeMap<String, pozo_core::state::tournament::TournamentBooks>,
    /// Every tournament seat draw the jornada's entries revealed, in the journal's order (Res.
    /// 123/2013 art. 11, 15, 88; Anexo IV 8.1), each with the seating it claims, which the
    /// verifier recomputes (`pozo_core::tournament::seats::check`). Absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seat_draws: Vec<SeatDrawn>,
    pub snapshot_sha256: String,
}

/// One level of a pool with levels at the close: its name, balance, reserve and meters, and its
/// books from the opening (the lines of a pool's, over this level's meters).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LevelClosing {
    pub level: String,
    pub balance: Money,
    pub reserve: Money,
    pub meters: Meters,
    pub reconciliation: Reconciliation,
}

/// The casino's signature.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Signature {
    /// [`ALGORITHM`].
    pub algorithm: String,
    /// The public half of the key that signed, hex (32 bytes).
    pub public_key: String,
    /// The signature, hex (64 bytes).
    pub value: String,
}

/// The file as read: the evidence's bytes as they stand, and the signature.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignedFile<'a> {
    #[serde(borrow)]
    pub evidence: &'a RawValue,
    pub signature: Signature,
}

/// A journal record (docs/journal.md, "The record").
#[derive(Clone, Debug, Deserialize)]
pub struct Record {
    pub sequence: u64,
    pub time_ms: u64,
    pub command: Command,
}

/// `hash(entry N) = SHA-256(hash(entry N-1) ‖ record bytes of entry N)`.
pub fn entry_hash(previous: &Hash, record: &[u8]) -> Hash {
    Sha256::new().chain_update(previous).chain_update(record).finalize().into()
}

/// The anchor of entry 1: `SHA-256("pozo.v1 genesis" ‖ 0x00 ‖ installation)`.
pub fn genesis_previous(installation: &str) -> Hash {
    Sha256::new().chain_update(b"pozo.v1 genesis\0").chain_update(installation.as_bytes()).finalize().into()
}

/// SHA-256 of a state's JSON, hex: what `closing.snapshot_sha256` holds.
pub fn snapshot_sha256(snapshot: &Snapshot) -> String {
    hex::encode(Sha256::digest(serde_json::to_vec(snapshot).expect("snapshots serialize")))
}

/// An evidence file's bytes: a regular file only (a device such as `/dev/zero`, a FIFO, a
/// directory is refused before it is opened, and the file opened must still be the one looked
/// at), and never more than [`FILE_BYTES_MAX`] bytes, whatever size it reports (`/proc` files
/// report 0).
pub fn read(path: &std::path::Path) -> Result<Vec<u8>, String> {
    use std::io::Read as _;
    let name = crate::visible(&path.to_string_lossy()).into_owned();
    let regular = |metadata: &std::fs::Metadata| {
        if metadata.is_file() {
            Ok(())
        } else {
            Err(format!("{name}: not a regular file: evidence is read from regular files only"))
        }
    };
    // Looked at before it is opened: opening a FIFO would wait for a writer forever.
    let looked = std::fs::metadata(path).map_err(|error| format!("{name}: {error}"))?;
    regular(&looked)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    // Opened without waiting, too: a FIFO swapped in between the look and the open does not
    // block the open (Linux's O_NONBLOCK; on a regular file it changes nothing), and the check
    // of the opened handle below refuses it.
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        const O_NONBLOCK: i32 = 0o4000;
        options.custom_flags(O_NONBLOCK);
    }
    let mut file = options.open(path).map_err(|error| format!("{name}: {error}"))?;
    let opened = file.metadata().map_err(|error| format!("{name}: {error}"))?;
    regular(&opened)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        if (looked.dev(), looked.ino()) != (opened.dev(), opened.ino()) {
            return Err(format!("{name}: changed while it was opened"));
        }
    }
    let mut bytes = Vec::with_capacity(usize::try_from(opened.len().min(FILE_BYTES_MAX)).unwrap_or(0));
    file.by_ref().take(FILE_BYTES_MAX + 1).read_to_end(&mut bytes).map_err(|error| format!("{name}: {error}"))?;
    if bytes.len() as u64 > FILE_BYTES_MAX {
        return Err(format!("{name}: more than the {FILE_BYTES_MAX} bytes an evidence file may have"));
    }
    Ok(bytes)
}
