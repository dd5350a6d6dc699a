//! A map the writer's state shares with every read model it publishes, copied only where a
//! batch changes it.
//!
//! The writer publishes a read model after each batch; the model keeps the maps of the state
//! as they were (`read::ReadModel`). With one `BTreeMap` behind an `Arc`, the batch after that
//! copied the whole map at its first change, and the model before it freed the whole map: for
//! the 1,000 tables of a floor, every table's meters and seats, for a batch of eight presses
//! at 2,000 presses/s (docs/benchmarks.md, "Half the CPU per press").
//!
//! A [`SharedMap`] keeps its entries in runs of at most [`RUN_MAX`] keys, each run its own
//! shared sorted vector, in key order: a change copies the run that holds its key, the other runs
//! stay shared with the published models. A batch that touches every run copies what one map
//! would have. (A persistent tree copies the path to each key changed, nodes of a few keys
//! each: `immutable-chunkmap` with nodes of eight halved the copies of a small batch but cost
//! a tenth more CPU per press at full load, where a batch touches most tables. A run was a
//! `BTreeMap` until issue 47's step 13: copying one took a node allocation per eleven keys and
//! a walk, where a sorted vector takes one allocation and a copy: docs/benchmarks.md.)
//!
//! It reads as a `BTreeMap` does (in key order, looked up by a borrowed key) and it is written
//! to snapshots exactly as one: a JSON object in key order.

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde::de::{Deserialize, Deserializer};
use serde::ser::{Serialize, Serializer};

use super::sorted::Sorted;

/// The most keys a run holds; a run that grows past it is split in two halves.
pub const RUN_MAX: usize = 32;

/// A run that a removal leaves with fewer keys is joined with a neighbour it fits with: in a
/// map whose keys come and go (the roulette series: each new one at the end, older ones taken
/// from anywhere), runs would otherwise wither to a key or two, and a clone copy a pointer per
/// key.
pub const RUN_MIN: usize = RUN_MAX / 4;

/// An ordered map whose clone copies one pointer per run, and whose change copies one run.
///
/// Invariants: no run is empty; every key of a run is below every key of the next one; `len`
/// counts the keys of every run; a run under [`RUN_MIN`] keys left by a removal has no
/// neighbour it fits with in [`RUN_MAX`] (so no two such runs are neighbours).
#[derive(Clone)]
pub struct SharedMap<K, V> {
    runs: Vec<Arc<Sorted<K, V>>>,
    len: usize,
}

impl<K, V> Default for SharedMap<K, V> {
    fn default() -> Self {
        SharedMap { runs: Vec::new(), len: 0 }
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for SharedMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.runs.iter().flat_map(|run| run.iter())).finish()
    }
}

impl<K: PartialEq, V: PartialEq> PartialEq for SharedMap<K, V> {
    /// The same entries in the same order, however they are cut into runs.
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.runs.iter().flat_map(|run| run.iter()).eq(other.runs.iter().flat_map(|run| run.iter()))
    }
}

impl<K: Eq, V: Eq> Eq for SharedMap<K, V> {}

impl<K: Ord + Clone, V: Clone> SharedMap<K, V> {
    /// The run that holds `key`, or would: the last whose first key is not above it.
    fn run_of<Q>(&self, key: &Q) -> usize
    where
        Q: ?Sized + Ord,
        K: Borrow<Q>,
    {
        let after = self.runs.partition_point(|run| run.first_key().is_some_and(|first| first.borrow() <= key));
        after.saturating_sub(1)
    }

    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        Q: ?Sized + Ord,
        K: Borrow<Q>,
    {
        self.runs.get(self.run_of(key))?.get(key)
    }

    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        Q: ?Sized + Ord,
        K: Borrow<Q>,
    {
        self.get(key).is_some()
    }

    /// The run holding `key` and its place, to change: copied first where a read model shares
    /// it. `None` (and nothing copied) when no run holds the key.
    fn run_holding<Q>(&mut self, key: &Q) -> Option<(usize, &mut Sorted<K, V>)>
    where
        Q: ?Sized + Ord,
        K: Borrow<Q>,
    {
        let at = self.run_of(key);
        let run = self.runs.get_mut(at).filter(|run| run.contains_key(key))?;
        Some((at, Arc::make_mut(run)))
    }

    /// The value at `key` to change, its run copied first where a read model shares it.
    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        Q: ?Sized + Ord,
        K: Borrow<Q>,
    {
        let at = self.run_of(key);
        let run = self.runs.get_mut(at)?;
        // A run this map alone holds (copied by an earlier change since the last publication)
        // is looked up once; a run a read model shares is first asked whether it holds the
        // key, so that a miss copies nothing.
        if Arc::get_mut(run).is_none() && !run.contains_key(key) {
            return None;
        }
        Arc::make_mut(run).get_mut(key)
    }

    /// The value at `key` to change, `make`'s entry inserted first where there is none (its key
    /// must be `key`): one search where a `contains_key` and a `get_mut` made two or three. The
    /// run is copied first where a read model shares it.
    pub fn get_mut_or_insert_with<Q>(&mut self, key: &Q, make: impl FnOnce() -> (K, V)) -> &mut V
    where
        Q: ?Sized + Ord,
        K: Borrow<Q>,
    {
        let at = self.run_of(key);
        if let Some(Ok(found)) = self.runs.get(at).map(|run| run.find(key)) {
            return Arc::make_mut(&mut self.runs[at]).entry_mut(found);
        }
        let (new, value) = make();
        debug_assert!(new.borrow() == key, "the entry made is not at the key asked for");
        self.insert(new, value);
        self.get_mut(key).expect("just inserted")
    }

    /// Inserts `value` at `key`, giving back the value it replaces.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        if self.runs.is_empty() {
            self.runs.push(Arc::new(Sorted::of(key, value)));
            self.len = 1;
            return None;
        }
        let at = self.run_of(&key);
        let run = Arc::make_mut(&mut self.runs[at]);
        let replaced = run.insert(key, value);
        if replaced.is_none() {
            self.len += 1;
            if run.len() > RUN_MAX {
                let upper = run.split_half();
                self.runs.insert(at + 1, Arc::new(upper));
            }
        }
        replaced
    }

    /// Removes the entry at `key`, giving back its value.
    pub fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        Q: ?Sized + Ord,
        K: Borrow<Q>,
    {
        let (at, run) = self.run_holding(key)?;
        let removed = run.remove(key);
        if run.is_empty() {
            self.runs.remove(at);
        } else {
            self.join_small(at);
        }
        self.len -= 1;
        removed
    }

    /// Joins the run at `at`, while it holds fewer than [`RUN_MIN`] keys, with the next run or
    /// else the previous one, where the two fit in [`RUN_MAX`]; gives back where its keys are
    /// now. Both runs are copied where a read model shares them (at most `RUN_MAX` entries).
    fn join_small(&mut self, mut at: usize) -> usize {
        while self.runs[at].len() < RUN_MIN {
            let fits = |other: usize| self.runs[at].len() + self.runs[other].len() <= RUN_MAX;
            let (first, second) = if at + 1 < self.runs.len() && fits(at + 1) {
                (at, at + 1)
            } else if at > 0 && fits(at - 1) {
                (at - 1, at)
            } else {
                break;
            };
            // Every key of the second run is above the first's: appended in order.
            let mut moved = Arc::unwrap_or_clone(self.runs.remove(second));
            Arc::make_mut(&mut self.runs[first]).append(&mut moved);
            at = first;
        }
        at
    }

    /// Keeps the entries `keep` holds to, in key order; runs left under [`RUN_MIN`] keys are
    /// joined as after a removal. A run losing none stays shared, uncopied: so `keep` may be
    /// asked twice about an entry (the entries of a run up to the first it drops), and must
    /// give the same answer each time.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &V) -> bool) {
        for run in &mut self.runs {
            if !run.iter().all(|(key, value)| keep(key, value)) {
                Arc::make_mut(run).retain(&mut keep);
            }
        }
        self.runs.retain(|run| !run.is_empty());
        let mut at = 0;
        while at < self.runs.len() {
            at = self.join_small(at) + 1;
        }
        self.len = self.runs.iter().map(|run| run.len()).sum();
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every entry, in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&K, &V)> + '_ {
        self.runs.iter().flat_map(|run| run.iter())
    }

    /// Every value to change, in key order: every run is copied first where a read model shares it.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> + '_ {
        self.runs.iter_mut().flat_map(|run| Arc::make_mut(run).values_mut())
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + '_ {
        self.iter().map(|(_, value)| value)
    }
}

impl<K: Ord + Clone, V: Clone> FromIterator<(K, V)> for SharedMap<K, V> {
    /// In runs of half of [`RUN_MAX`], so that the first changes split none.
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let sorted: BTreeMap<K, V> = iter.into_iter().collect();
        let len = sorted.len();
        let mut runs = Vec::with_capacity(len.div_ceil(RUN_MAX / 2));
        let mut run = Vec::with_capacity(RUN_MAX / 2);
        for entry in sorted {
            run.push(entry);
            if run.len() == RUN_MAX / 2 {
                runs.push(Arc::new(Sorted::from_sorted(std::mem::replace(&mut run, Vec::with_capacity(RUN_MAX / 2)))));
            }
        }
        if !run.is_empty() {
            runs.push(Arc::new(Sorted::from_sorted(run)));
        }
        SharedMap { runs, len }
    }
}

impl<K: Ord + Clone, V: Clone, Q> std::ops::Index<&Q> for SharedMap<K, V>
where
    Q: ?Sized + Ord,
    K: Borrow<Q>,
{
    type Output = V;
    fn index(&self, key: &Q) -> &V {
        self.get(key).expect("no entry for the key")
    }
}

impl<K: Serialize, V: Serialize> Serialize for SharedMap<K, V> {
    /// As a `BTreeMap`: one map, in key order.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.runs.iter().flat_map(|run| run.iter()))
    }
}

impl<'de, K, V> Deserialize<'de> for SharedMap<K, V>
where
    K: Deserialize<'de> + Ord + Clone,
    V: Deserialize<'de> + Clone,
{
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        BTreeMap::<K, V>::deserialize(deserializer).map(|map| map.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;

    /// The invariants: runs not empty, each sorted, in key order, none past `RUN_MAX`, `len` their sum.
    fn check<K: Ord, V>(map: &SharedMap<K, V>) {
        assert!(map.runs.iter().all(|run| !run.is_empty() && run.len() <= RUN_MAX));
        assert!(map.runs.iter().all(|run| run.keys().zip(run.keys().skip(1)).all(|(a, b)| a < b)), "a run out of order");
        assert!(map.runs.windows(2).all(|pair| pair[0].keys().next_back() < pair[1].keys().next()));
        assert_eq!(map.len, map.runs.iter().map(|run| run.len()).sum::<usize>());
        assert!(
            map.runs.windows(2).all(|pair| pair[0].len() >= RUN_MIN || pair[1].len() >= RUN_MIN),
            "two neighbouring runs under RUN_MIN: {:?}",
            map.runs.iter().map(|run| run.len()).collect::<Vec<_>>()
        );
    }

    proptest! {
        /// Read, changed and written as a `BTreeMap` is, whatever the order of the changes
        /// (runs split as they grow, emptied runs dropped); and a clone taken before the
        /// changes (a published read model) keeps what it held.
        #[test]
        fn it_is_a_btree_map_and_a_clone_keeps_what_it_held(
            before in proptest::collection::vec((0u16..300, any::<u32>()), 0..400),
            changes in proptest::collection::vec((0u16..300, any::<u32>(), 0u8..40), 0..300),
        ) {
            let mut shared: SharedMap<String, u32> = before.iter().map(|(k, v)| (format!("T{k:03}"), *v)).collect();
            let mut plain: BTreeMap<String, u32> = before.iter().map(|(k, v)| (format!("T{k:03}"), *v)).collect();
            check(&shared);
            let published = shared.clone();
            let published_plain = plain.clone();
            for (key, value, kind) in &changes {
                let key = format!("T{key:03}");
                match kind {
                    0..10 => prop_assert_eq!(shared.remove(key.as_str()), plain.remove(&key)),
                    10..20 => prop_assert_eq!(shared.insert(key.clone(), *value), plain.insert(key.clone(), *value)),
                    20..24 => {
                        let held = shared.get_mut_or_insert_with(key.as_str(), || (key.clone(), *value));
                        *held = held.wrapping_add(1);
                        let plain_held = plain.entry(key.clone()).or_insert(*value);
                        *plain_held = plain_held.wrapping_add(1);
                    }
                    38 => {
                        shared.values_mut().for_each(|held| *held = held.wrapping_add(*value));
                        plain.values_mut().for_each(|held| *held = held.wrapping_add(*value));
                    }
                    // Now and then a sweep: about a fifth of the entries go, a different fifth each time.
                    39 => {
                        shared.retain(|_, held| (held ^ value) % 5 != 0);
                        plain.retain(|_, held| (*held ^ value) % 5 != 0);
                    }
                    _ => match (shared.get_mut(key.as_str()), plain.get_mut(&key)) {
                        (Some(held), Some(plain_held)) => {
                            *held = held.wrapping_add(*value);
                            *plain_held = plain_held.wrapping_add(*value);
                        }
                        (None, None) => {}
                        (held, plain_held) => prop_assert!(false, "{key}: {held:?} against {plain_held:?}"),
                    },
                }
                check(&shared);
                prop_assert_eq!(shared.get(key.as_str()), plain.get(&key));
            }
            prop_assert!(shared.iter().eq(plain.iter()), "in key order, the same entries");
            prop_assert!(shared.iter().rev().eq(plain.iter().rev()));
            prop_assert_eq!(shared.len(), plain.len());
            prop_assert!(published.iter().eq(published_plain.iter()), "the clone is untouched");
            prop_assert_eq!(serde_json::to_string(&shared).expect("json"), serde_json::to_string(&plain).expect("json"));
            let read: SharedMap<String, u32> = serde_json::from_str(&serde_json::to_string(&plain).expect("json")).expect("read back");
            check(&read);
            prop_assert!(read == shared);
        }
    }

    /// `get_mut_or_insert_with` finds an entry without making one, makes one where there is
    /// none (below the first run, in an empty map, and enough to split runs, as `insert` does),
    /// and copies only the run it changes.
    #[test]
    fn get_or_insert_finds_or_makes_and_copies_one_run() {
        let evens = |key: u32| (key * 2 + 10, key);
        let mut map: SharedMap<u32, u32> = (0..RUN_MAX as u32 * 4).map(evens).collect();
        let mut expected: BTreeMap<u32, u32> = (0..RUN_MAX as u32 * 4).map(evens).collect();
        let published = map.clone();
        let mut made = 0;
        *map.get_mut_or_insert_with(&20, || {
            made += 1;
            (20, 0)
        }) += 100;
        *expected.get_mut(&20).expect("there") += 100;
        assert_eq!((made, map.get(&20), published.get(&20)), (0, Some(&105), Some(&5)));
        let copied = map.runs.iter().zip(&published.runs).filter(|(run, old)| !Arc::ptr_eq(run, old)).count();
        assert_eq!(copied, 1, "only the run holding the key is copied");
        let runs = map.runs.len();
        // Below the first run, then every odd key of the first half: runs fill and split.
        for key in std::iter::once(1).chain((11..RUN_MAX as u32 * 4).step_by(2)) {
            *map.get_mut_or_insert_with(&key, || (key, 0)) += key;
            *expected.entry(key).or_insert(0) += key;
            check(&map);
        }
        assert!(map.runs.len() > runs, "runs split: {} runs, {runs} before", map.runs.len());
        assert_eq!(map.iter().map(|(k, v)| (*k, *v)).collect::<BTreeMap<_, _>>(), expected);
        assert_eq!(map.len(), expected.len());
        assert_eq!(published.len(), RUN_MAX * 4, "the published clone keeps what it held");
        let mut empty: SharedMap<u32, u32> = SharedMap::default();
        *empty.get_mut_or_insert_with(&7, || (7, 1)) += 1;
        check(&empty);
        assert_eq!((empty.len(), empty.get(&7)), (1, Some(&2)));
    }

    /// A change copies the run that holds its key, not the map: every other run is still the
    /// published model's.
    #[test]
    fn a_change_copies_one_run() {
        let mut map: SharedMap<u32, u32> = (0..1_000).map(|key| (key, key)).collect();
        let published = map.clone();
        *map.get_mut(&500).expect("there") += 1;
        let shared = map.runs.iter().zip(&published.runs).filter(|(run, before)| Arc::ptr_eq(run, before)).count();
        assert_eq!(shared, map.runs.len() - 1, "one run of {} copied", map.runs.len());
        assert_eq!(published.get(&500), Some(&500));
        assert_eq!(map.get(&500), Some(&501));
        // Asked again, the copied run is changed in place; a key no run holds, in a run still
        // shared (past the last key) or in the copied one (501, removed), copies nothing.
        assert_eq!(map.remove(&501), Some(501));
        let copied = map.runs.iter().map(Arc::as_ptr).collect::<Vec<_>>();
        *map.get_mut(&500).expect("there") += 1;
        assert_eq!(map.get_mut(&501), None);
        assert_eq!(map.get_mut(&5_000), None);
        assert_eq!(map.runs.iter().map(Arc::as_ptr).collect::<Vec<_>>(), copied, "no run copied again");
        assert_eq!((published.get(&500), map.get(&500)), (Some(&500), Some(&502)));
        assert_eq!(published.get(&501), Some(&501));
    }

    /// A sweep copies only the runs it takes an entry from; the published clone keeps them all.
    /// Runs it leaves under `RUN_MIN` are joined.
    #[test]
    fn a_sweep_copies_only_the_runs_it_changes() {
        let mut map: SharedMap<u32, u32> = (0..1_000).map(|key| (key, key)).collect();
        let published = map.clone();
        let runs = map.runs.len();
        // The first run loses every entry (it goes), a run in the middle loses one; no other changes.
        let first = *map.runs[0].keys().next_back().expect("not empty");
        let middle = *map.runs[runs / 2].keys().next().expect("not empty");
        map.retain(|key, _| *key > first && *key != middle);
        check(&map);
        assert_eq!(map.runs.len(), runs - 1, "the emptied run is gone");
        let shared = map.runs.iter().filter(|run| published.runs.iter().any(|before| Arc::ptr_eq(run, before))).count();
        assert_eq!(shared, runs - 2, "only the middle run copied");
        assert_eq!(map.len(), 1_000 - (first as usize + 1) - 1);
        assert_eq!((map.get(&middle), map.get(&first), map.get(&(first + 1))), (None, None, Some(&(first + 1))));
        assert_eq!(published.len(), 1_000, "the clone is untouched");
        assert_eq!(published.get(&middle), Some(&middle));

        // A sweep that leaves one key in sixteen: the runs of one key each are joined.
        let mut sparse: SharedMap<u32, u32> = (0..1_000).map(|key| (key, key)).collect();
        sparse.retain(|key, _| key % 16 == 0);
        check(&sparse);
        assert_eq!(sparse.len(), 63);
        assert!(sparse.runs.len() <= 2 * 63 / RUN_MIN + 1, "{} runs for 63 keys", sparse.runs.len());
        assert!(sparse.iter().map(|(key, _)| *key).eq((0..1_000).filter(|key| key % 16 == 0)));
    }

    /// Keys that come and go as the roulette series do (each new one at the end, an older one
    /// taken from anywhere) keep the runs full: without joining, they withered to a key or two
    /// and a clone copied a pointer per key.
    #[test]
    fn keys_that_come_and_go_keep_the_runs_full() {
        let mut map: SharedMap<u32, u32> = SharedMap::default();
        let mut held: Vec<u32> = Vec::new();
        let mut seed = 7u64;
        for key in 0..20_000u32 {
            assert_eq!(map.insert(key, key), None);
            held.push(key);
            if held.len() > 1_000 {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                let gone = held.swap_remove(usize::try_from(seed >> 33).expect("31 bits") % held.len());
                assert_eq!(map.remove(&gone), Some(gone));
            }
            check(&map);
        }
        assert_eq!(map.len(), 1_000);
        // No two neighbours under RUN_MIN (`check`): at most one run in two is, so the runs
        // hold RUN_MIN keys or more on average over every pair.
        assert!(map.runs.len() <= 2 * 1_000 / RUN_MIN + 1, "{} runs for 1,000 keys", map.runs.len());
        let mut keys: Vec<u32> = held.clone();
        keys.sort_unstable();
        assert!(map.iter().map(|(key, _)| *key).eq(keys), "the same keys, in order");
    }
}
