//! `NameMap`: the core's small maps keyed by a name (datacenters, keyspaces, node addresses,
//! JSON keys and fields), iterated in name order as a `BTreeMap` is.
//!
//! A Vec sorted by name and searched by bisection: as fast as a tree for these few entries,
//! which are filled once per load or topology change. Each key and value type given a
//! `BTreeMap` got its own copy of the tree code in the WASM module (~3 KB gzipped apiece).

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NameMap<V>(Vec<(String, V)>);

impl<V> Default for NameMap<V> {
    fn default() -> Self {
        NameMap(Vec::new())
    }
}

impl<V> NameMap<V> {
    fn find(&self, name: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(name))
    }

    pub fn get(&self, name: &str) -> Option<&V> {
        self.find(name).ok().and_then(|at| self.0.get(at)).map(|(_, value)| value)
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.find(name).is_ok()
    }

    /// Sets `name`'s value, replacing one already there.
    pub fn insert(&mut self, name: &str, value: V) {
        match self.find(name) {
            Ok(at) => self.0[at].1 = value,
            Err(at) => self.0.insert(at, (name.to_owned(), value)),
        }
    }

    /// As `insert`, for a name the caller owns already (no copy of it is made).
    pub fn insert_owned(&mut self, name: String, value: V) {
        match self.find(&name) {
            Ok(at) => self.0[at].1 = value,
            Err(at) => self.0.insert(at, (name, value)),
        }
    }

    /// Adds `name` unless it is there already, with one search. When it is, the first value
    /// stays, `value` is dropped and `name` comes back as the error (to name the duplicate).
    pub fn insert_new(&mut self, name: String, value: V) -> Result<(), String> {
        match self.find(&name) {
            Ok(_) => Err(name),
            Err(at) => {
                self.0.insert(at, (name, value));
                Ok(())
            }
        }
    }

    /// `name`'s value, set to `value` first when it has none.
    pub fn get_or_insert(&mut self, name: &str, value: V) -> &mut V {
        let at = match self.find(name) {
            Ok(at) => at,
            Err(at) => {
                self.0.insert(at, (name.to_owned(), value));
                at
            }
        };
        &mut self.0[at].1
    }

    pub fn remove(&mut self, name: &str) -> Option<V> {
        self.find(name).ok().map(|at| self.0.remove(at).1)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The entries in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &V)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.0.iter().map(|(_, v)| v)
    }
}

/// A JSON object (or any serde map) of its entries in name order, as a `BTreeMap`'s.
#[cfg(feature = "serde")]
impl<V: serde::Serialize> serde::Serialize for NameMap<V> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<V> IntoIterator for NameMap<V> {
    type Item = (String, V);
    type IntoIter = std::vec::IntoIter<(String, V)>;

    /// The entries in name order.
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<V> FromIterator<(String, V)> for NameMap<V> {
    /// One insert at a time, a later value replacing an earlier one of the same name (a
    /// collect-and-sort would bring a copy of the sort per entry type into the module).
    fn from_iter<I: IntoIterator<Item = (String, V)>>(entries: I) -> Self {
        let mut map = NameMap::default();
        for (name, value) in entries {
            map.insert_owned(name, value);
        }
        map
    }
}

#[cfg(test)]
mod tests {
    use super::NameMap;

    #[test]
    fn insert_replaces_get_or_insert_keeps_the_first_and_iteration_is_by_name() {
        let mut map = NameMap::default();
        map.insert("b", 1);
        map.insert("a", 2);
        map.insert("c", 3);
        map.insert("b", 4);
        assert_eq!(map.get_or_insert("a", 9), &2);
        assert_eq!(map.get_or_insert("d", 5), &5);
        *map.get_or_insert("d", 6) += 1;
        assert_eq!(map.get_or_insert("d", 6), &6);
        let found: Vec<Option<&i32>> = ["a", "b", "c", "d", "e", ""].iter().map(|k| map.get(k)).collect();
        assert_eq!(found, [Some(&2), Some(&4), Some(&3), Some(&6), None, None]);
        assert!(map.contains_key("c") && !map.contains_key("cc") && !map.contains_key(""));
        assert_eq!(map.len(), 4);
        assert_eq!((map.remove("b"), map.remove("x")), (Some(4), None));
        let entries: Vec<(&str, i32)> = map.iter().map(|(k, &v)| (k.as_str(), v)).collect();
        assert_eq!(entries, [("a", 2), ("c", 3), ("d", 6)]);
        assert_eq!(map.values().copied().collect::<Vec<_>>(), [2, 3, 6]);
        assert!(!map.is_empty() && NameMap::<i32>::default().is_empty());
        assert_eq!(
            map.clone().into_iter().collect::<Vec<_>>(),
            [("a".to_string(), 2), ("c".to_string(), 3), ("d".to_string(), 6)]
        );
        let mut owned = NameMap::default();
        owned.insert_owned("n".to_string(), 1);
        owned.insert_owned("m".to_string(), 2);
        owned.insert_owned("n".to_string(), 3);
        assert_eq!(owned.insert_new("l".to_string(), 4), Ok(()));
        assert_eq!(owned.insert_new("n".to_string(), 5), Err("n".to_string()));
        assert_eq!(owned.insert_new("l".to_string(), 6), Err("l".to_string()));
        assert_eq!(owned.iter().map(|(k, &v)| (k.as_str(), v)).collect::<Vec<_>>(), [("l", 4), ("m", 2), ("n", 3)]);
        let collected: NameMap<i32> =
            [("z".to_string(), 1), ("y".to_string(), 2), ("z".to_string(), 3)].into_iter().collect();
        assert_eq!(collected.iter().map(|(k, &v)| (k.as_str(), v)).collect::<Vec<_>>(), [("y", 2), ("z", 3)]);
    }
}
