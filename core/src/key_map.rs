//! [`KeyMap`] and [`KeySet`]: maps and sets kept as one sorted list.
//!
//! The crate's maps hold record ids and md5s: hundreds to a few thousand
//! keys, built once per call and probed a few times per image. A sorted list
//! with binary search does that in a fraction of the wasm a hash table needs
//! (no hasher, no probing code per key type), and iterates in key order.

use core::borrow::Borrow;

/// A map from `K` to `V`, keys in ascending order.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K, V> Default for KeyMap<K, V> {
    fn default() -> Self {
        KeyMap {
            entries: Vec::new(),
        }
    }
}

impl<K: Ord, V> KeyMap<K, V> {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    fn find<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.entries.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    /// The value of `key`.
    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| &self.entries[i].1)
    }

    /// The value of `key`, to change.
    pub fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        match self.find(key) {
            Ok(i) => Some(&mut self.entries[i].1),
            Err(_) => None,
        }
    }

    /// Whether the map has `key`.
    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.find(key).is_ok()
    }

    /// Sets `key` to `value`, returning the value it replaced.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(i) => Some(core::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (key, value));
                None
            }
        }
    }

    /// Removes `key`, returning its value.
    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        let i = self.find(key).ok()?;
        Some(self.entries.remove(i).1)
    }

    /// The number of keys.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.entries.iter().map(|(k, _)| k)
    }

    /// The values in key order.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.iter().map(|(_, v)| v)
    }

    /// The values in key order, the map consumed.
    pub fn into_values(self) -> impl Iterator<Item = V> {
        self.entries.into_iter().map(|(_, v)| v)
    }

    /// Keeps the entries for which `keep` says yes.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for KeyMap<K, V> {
    /// Sorts once; of repeated keys the last one wins, as with `insert`.
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut entries: Vec<(usize, (K, V))> = iter.into_iter().enumerate().collect();
        entries.sort_unstable_by(|(i, (a, _)), (j, (b, _))| a.cmp(b).then(i.cmp(j)));
        let mut out: Vec<(K, V)> = Vec::with_capacity(entries.len());
        for (_, (k, v)) in entries {
            match out.last_mut() {
                Some(last) if last.0 == k => last.1 = v,
                _ => out.push((k, v)),
            }
        }
        KeyMap { entries: out }
    }
}

impl<K: Ord, V> Extend<(K, V)> for KeyMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl<K, V> IntoIterator for KeyMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

/// A set of `K`, in ascending order.
#[derive(Debug, Clone, PartialEq)]
pub struct KeySet<K> {
    map: KeyMap<K, ()>,
}

impl<K> Default for KeySet<K> {
    fn default() -> Self {
        KeySet {
            map: KeyMap::default(),
        }
    }
}

impl<K: Ord> KeySet<K> {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `key`; `false` when it was there already.
    pub fn insert(&mut self, key: K) -> bool {
        self.map.insert(key, ()).is_none()
    }

    /// Whether the set has `key`.
    pub fn contains<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.map.contains_key(key)
    }

    /// Removes `key`; `false` when it was not there.
    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.map.remove(key).is_some()
    }

    /// The number of keys.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The keys in order.
    pub fn iter(&self) -> impl Iterator<Item = &K> {
        self.map.keys()
    }
}

impl<K: Ord> FromIterator<K> for KeySet<K> {
    fn from_iter<I: IntoIterator<Item = K>>(iter: I) -> Self {
        KeySet {
            map: iter.into_iter().map(|k| (k, ())).collect(),
        }
    }
}

impl<K: Ord> Extend<K> for KeySet<K> {
    fn extend<I: IntoIterator<Item = K>>(&mut self, iter: I) {
        for k in iter {
            self.insert(k);
        }
    }
}

impl<K: Ord, const N: usize> From<[K; N]> for KeySet<K> {
    fn from(keys: [K; N]) -> Self {
        keys.into_iter().collect()
    }
}

impl<K> IntoIterator for KeySet<K> {
    type Item = K;
    type IntoIter = core::iter::Map<std::vec::IntoIter<(K, ())>, fn((K, ())) -> K>;
    fn into_iter(self) -> Self::IntoIter {
        self.map.entries.into_iter().map(|(k, ())| k)
    }
}

impl<'a, K> IntoIterator for &'a KeySet<K> {
    type Item = &'a K;
    type IntoIter = core::iter::Map<core::slice::Iter<'a, (K, ())>, fn(&'a (K, ())) -> &'a K>;
    fn into_iter(self) -> Self::IntoIter {
        self.map.entries.iter().map(|(k, ())| k)
    }
}

#[cfg(test)]
mod tests;
