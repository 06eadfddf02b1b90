//! Hash maps of the per-request path. Their keys are the core's own request ids and the
//! server's prepared-statement ids: a fixed-seed fast hasher is enough, and it keeps the core
//! free of the OS randomness std's `RandomState` draws (and of SipHash's cost per lookup).

use std::collections::HashMap;

pub(crate) type IdMap<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

/// An empty map (`HashMap::new` exists only for `RandomState`).
pub(crate) fn id_map<K, V>() -> IdMap<K, V> {
    HashMap::with_hasher(foldhash::fast::FixedState::default())
}

#[cfg(test)]
mod tests {
    use std::hash::BuildHasher;

    /// Two maps hash a key alike: nothing per map or per process (no OS randomness) seeds them.
    #[test]
    fn every_map_hashes_a_key_the_same_way() {
        let (a, b) = (super::id_map::<u32, ()>(), super::id_map::<u32, ()>());
        assert_eq!(a.hasher().hash_one(7u32), b.hasher().hash_one(7u32));
        assert_ne!(a.hasher().hash_one(7u32), a.hasher().hash_one(8u32));
    }
}
