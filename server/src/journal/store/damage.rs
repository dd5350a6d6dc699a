//! Damage done on purpose, for the tests that show a damaged journal is refused: what a
//! disk fault or a hand with sled could do to a stopped server's data directory. Not part
//! of the controller.

use super::*;

/// Replaces the bytes of every entry given (which must be stored), each run kept
/// whole; the tip record is left as it is.
pub fn rewrite_entries(directory: &Path, mut entries: std::collections::BTreeMap<u64, Vec<u8>>) -> Result<(), StoreError> {
    let store = SledStore::open(directory)?;
    let runs: Vec<(sled::IVec, sled::IVec)> = store.batches.range(..TIP_KEY).collect::<Result<_, _>>()?;
    for (key, value) in runs {
        let first = sequence_of(&key)?;
        let mut stored = decode_run_owned(first, &value)?;
        for (sequence, bytes) in &mut stored {
            if let Some(new) = entries.remove(sequence) {
                *bytes = new;
            }
        }
        store.batches.insert(key, encode_run(&stored))?;
    }
    if let Some((&sequence, _)) = entries.first_key_value() {
        return Err(StoreError::Run { first: sequence, problem: "no such entry" });
    }
    store.db.flush()?;
    Ok(())
}

/// Replaces entry `sequence` by what `edit` makes of it, or removes it when `edit` gives
/// `None` (the entries around it keep their sequences: its run is split in two, as a
/// lost record would leave a gap), and returns the entry as it was. The tip record is
/// left as it is.
pub fn edit_entry(directory: &Path, sequence: u64, edit: impl FnOnce(&[u8]) -> Option<Vec<u8>>) -> Result<Vec<u8>, StoreError> {
    let store = SledStore::open(directory)?;
    let missing = StoreError::Run { first: sequence, problem: "no such entry" };
    let (first, run) = store.run_of(sequence)?.ok_or(missing)?;
    let mut entries = decode_run_owned(first, &run)?;
    let index = entries
        .iter()
        .position(|(at, _)| *at == sequence)
        .ok_or(StoreError::Run { first: sequence, problem: "no such entry" })?;
    let original = match edit(&entries[index].1) {
        Some(value) => {
            let original = std::mem::replace(&mut entries[index].1, value);
            store.batches.insert(first.to_be_bytes(), encode_run(&entries))?;
            original
        }
        None => {
            let after = entries.split_off(index + 1);
            let (_, original) = entries.pop().expect("the entry removed");
            match entries.is_empty() {
                true => store.batches.remove(first.to_be_bytes()).map(|_| ())?,
                false => store.batches.insert(first.to_be_bytes(), encode_run(&entries)).map(|_| ())?,
            }
            if !after.is_empty() {
                store.batches.insert((sequence + 1).to_be_bytes(), encode_run(&after))?;
            }
            original
        }
    };
    store.db.flush()?;
    Ok(original)
}
