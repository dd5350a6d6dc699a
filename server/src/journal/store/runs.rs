//! The journal's entries as sled keeps them: in runs, each run one sled value under the
//! sequence of its first entry (big-endian), each entry behind its length (docs/journal.md).

use super::{StoreError, Stored};

/// The most bytes of entries one sled value holds. A value per batch (up to 1,024 entries,
/// a few hundred KiB) cut sled's CPU but doubled the controller's memory: sled copies a
/// whole leaf (up to 16 values) on every insert into it and frees the old copy later, so
/// big values meant megabytes held per insert (peak 263 MiB against 134 MiB with 1,000
/// tables; 180 MiB with runs of 8 KiB). Runs of 2 KiB (about six entries) keep the CPU
/// saved and the memory where it was (docs/benchmarks.md).
pub(super) const RUN_BYTES: usize = 2 * 1024;

pub(super) fn sequence_of(key: &[u8]) -> Result<u64, StoreError> {
    Ok(u64::from_be_bytes(key.try_into().map_err(|_| StoreError::Key(key.len()))?))
}

/// One run's value: each entry behind its length (u32, big-endian), in order.
pub(super) fn encode_run(entries: &[Stored]) -> Vec<u8> {
    let mut value = Vec::with_capacity(entries.iter().map(|(_, bytes)| 4 + bytes.len()).sum());
    for (_, bytes) in entries {
        let length = u32::try_from(bytes.len()).expect("an entry under 4 GiB");
        value.extend_from_slice(&length.to_be_bytes());
        value.extend_from_slice(bytes);
    }
    value
}

/// The entries of the run stored under `first`, as owned values.
pub(super) fn decode_run_owned(first: u64, value: &[u8]) -> Result<Vec<Stored>, StoreError> {
    decode_run(first, value).map(|item| item.map(|(sequence, bytes)| (sequence, bytes.to_vec()))).collect()
}

/// The entries of the run stored under `first`, with their sequences.
pub(super) fn decode_run(first: u64, value: &[u8]) -> impl Iterator<Item = Result<(u64, &[u8]), StoreError>> + '_ {
    let mut rest = value;
    let mut sequence = first;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let Some((length, after)) = rest.split_first_chunk::<4>() else {
            rest = &[];
            return Some(Err(StoreError::Run { first, problem: "a length cut short" }));
        };
        let length = u32::from_be_bytes(*length) as usize;
        if after.len() < length {
            rest = &[];
            return Some(Err(StoreError::Run { first, problem: "an entry longer than what is left of the run" }));
        }
        let (entry, after) = after.split_at(length);
        rest = after;
        let item = (sequence, entry);
        sequence += 1;
        Some(Ok(item))
    })
}

/// A batch's entries in runs of up to [`RUN_BYTES`], and the tip record under `tip_key`: one
/// sled batch, written atomically.
pub(super) fn batch(entries: &[Stored], tip_key: &[u8], tip: Vec<u8>) -> sled::Batch {
    debug_assert!(entries.windows(2).all(|pair| pair[1].0 == pair[0].0 + 1), "a batch's sequences follow each other");
    let mut writes = sled::Batch::default();
    let mut rest = entries;
    while let Some(&(first, _)) = rest.first() {
        // As many entries as fit in RUN_BYTES, at least one.
        let mut bytes = 0;
        let count = rest
            .iter()
            .take_while(|(_, entry)| {
                bytes += 4 + entry.len();
                bytes <= RUN_BYTES
            })
            .count()
            .max(1);
        let (run, after) = rest.split_at(count);
        writes.insert(&first.to_be_bytes(), encode_run(run));
        rest = after;
    }
    writes.insert(tip_key, tip);
    writes
}
