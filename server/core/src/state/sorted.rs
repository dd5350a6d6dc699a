//! Entries sorted by key in one vector: what [`SharedMap`](super::shared::SharedMap) keeps in
//! each run and a table's meters keep their hours in (docs/benchmarks.md, issue 47 step 13).

use std::borrow::Borrow;

/// Entries sorted by key in one vector: copied with one allocation, looked up by a binary search.
/// A [`SharedMap`](super::shared::SharedMap)'s run, and a table's hours (`hours::Hours`).
#[derive(Clone, Default, PartialEq, Eq)]
pub(crate) struct Sorted<K, V>(Vec<(K, V)>);

impl<K, V> Sorted<K, V> {
    pub(crate) fn first_key(&self) -> Option<&K> {
        self.0.first().map(|(key, _)| key)
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = (&K, &V)> + '_ {
        self.0.iter().map(|(key, value)| (key, value))
    }

    /// The entries, in key order.
    pub(crate) fn as_slice(&self) -> &[(K, V)] {
        &self.0
    }

    /// Entries already in key order, each key once.
    pub(crate) fn from_sorted(entries: Vec<(K, V)>) -> Sorted<K, V> {
        Sorted(entries)
    }

    /// Every value to change, in key order.
    pub(crate) fn values_mut(&mut self) -> impl Iterator<Item = &mut V> + '_ {
        self.0.iter_mut().map(|(_, value)| value)
    }

    /// Keeps the entries `keep` holds to.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&K, &V) -> bool) {
        self.0.retain(|(key, value)| keep(key, value));
    }
    #[cfg(test)]
    pub(crate) fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + '_ {
        self.0.iter().map(|(key, _)| key)
    }
}

impl<K: Ord, V> Sorted<K, V> {
    /// A run of one entry.
    pub(crate) fn of(key: K, value: V) -> Sorted<K, V> {
        Sorted(vec![(key, value)])
    }

    /// Where `key` is, or would go.
    pub(crate) fn find<Q>(&self, key: &Q) -> Result<usize, usize>
    where
        Q: ?Sized + Ord,
        K: Borrow<Q>,
    {
        self.0.binary_search_by(|(held, _)| held.borrow().cmp(key))
    }

    pub(crate) fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        Q: ?Sized + Ord,
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|at| &self.0[at].1)
    }

    pub(crate) fn contains_key<Q>(&self, key: &Q) -> bool
    where
        Q: ?Sized + Ord,
        K: Borrow<Q>,
    {
        self.find(key).is_ok()
    }

    pub(crate) fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        Q: ?Sized + Ord,
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|at| &mut self.0[at].1)
    }

    pub(crate) fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(at) => Some(std::mem::replace(&mut self.0[at].1, value)),
            Err(at) => {
                self.0.insert(at, (key, value));
                None
            }
        }
    }

    pub(crate) fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        Q: ?Sized + Ord,
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|at| self.0.remove(at).1)
    }

    /// The value at `key` to change, `make`'s inserted first where there is none.
    pub(crate) fn get_mut_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        let at = match self.find(&key) {
            Ok(at) => at,
            Err(at) => {
                self.0.insert(at, (key, make()));
                at
            }
        };
        &mut self.0[at].1
    }

    /// The value of the entry at `at` (an index [`Sorted::find`] gave).
    pub(crate) fn entry_mut(&mut self, at: usize) -> &mut V {
        &mut self.0[at].1
    }

    /// Appends `other`'s entries, every key of which is above this one's.
    pub(crate) fn append(&mut self, other: &mut Sorted<K, V>) {
        debug_assert!(
            match (self.0.last(), other.0.first()) {
                (Some((last, _)), Some((first, _))) => last < first,
                _ => true,
            },
            "appended keys out of order"
        );
        self.0.append(&mut other.0);
    }

    /// The upper half, taken off this run, each half holding no more room than it needs.
    pub(crate) fn split_half(&mut self) -> Sorted<K, V> {
        let upper = self.0.split_off(self.0.len() / 2);
        self.0.shrink_to_fit();
        Sorted(upper)
    }
}
