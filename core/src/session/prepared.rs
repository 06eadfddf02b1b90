//! The statements prepared through the session, by id and by handle: an EXECUTE whose host
//! holds the handle ([`Session::prepared_handle`]) finds its metadata by index, without
//! hashing the id bytes on every request (issue #17).

use super::{PreparedMeta, Session};
use crate::id_map::{id_map, IdMap};

pub(super) struct PreparedCache {
    handles: IdMap<Vec<u8>, u32>,
    /// By handle; entries are replaced in place (a statement prepared again), never removed,
    /// so a handle keeps naming the same id.
    statements: Vec<(Vec<u8>, PreparedMeta)>,
}

impl PreparedCache {
    pub(super) fn new() -> Self {
        PreparedCache { handles: id_map(), statements: Vec::new() }
    }

    pub(super) fn handle(&self, id: &[u8]) -> Option<u32> {
        self.handles.get(id).copied()
    }

    pub(super) fn get(&self, id: &[u8]) -> Option<&PreparedMeta> {
        let handle = self.handle(id)?;
        self.statements.get(handle as usize).map(|(_, meta)| meta)
    }

    /// By `handle` when it names `id` (one compare of the id bytes), else by `id`: a stale or
    /// wrong handle costs a lookup, never another statement's routing.
    pub(super) fn get_by_handle(&self, handle: Option<u32>, id: &[u8]) -> Option<&PreparedMeta> {
        match handle.and_then(|h| self.statements.get(h as usize)) {
            Some((known, meta)) if known.as_slice() == id => Some(meta),
            _ => self.get(id),
        }
    }

    pub(super) fn insert(&mut self, id: &[u8], meta: PreparedMeta) {
        match self.handle(id).and_then(|h| self.statements.get_mut(h as usize)) {
            Some(entry) => entry.1 = meta,
            None => {
                self.handles.insert(id.to_vec(), self.statements.len() as u32);
                self.statements.push((id.to_vec(), meta));
            }
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.statements.is_empty()
    }

    pub(super) fn values(&self) -> impl Iterator<Item = &PreparedMeta> {
        self.statements.iter().map(|(_, meta)| meta)
    }
}

impl Session {
    /// The handle of a statement this session prepared: pass it in
    /// [`super::RequestSpec::prepared`] with each EXECUTE of `id`, to spare hashing the id.
    pub fn prepared_handle(&self, id: &[u8]) -> Option<u32> {
        self.prepared.handle(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(cql: &str, pk: u16) -> PreparedMeta {
        PreparedMeta {
            cql: cql.into(),
            keyspace: None,
            table: None,
            pk_indexes: vec![pk],
            lwt: false,
            bind_columns: Vec::new(),
        }
    }

    #[test]
    fn a_handle_finds_its_statement_and_a_handle_of_another_falls_back_to_the_id() {
        let mut cache = PreparedCache::new();
        assert!(cache.is_empty());
        cache.insert(b"id-a", meta("A", 0));
        cache.insert(b"id-b", meta("B", 1));
        let (a, b) = (cache.handle(b"id-a"), cache.handle(b"id-b"));
        assert_eq!((a, b), (Some(0), Some(1)));
        let cql = |m: Option<&PreparedMeta>| m.map(|m| m.cql.clone());
        assert_eq!(cql(cache.get_by_handle(a, b"id-a")), Some("A".into()));
        // B's handle with A's id: A, never B's routing.
        assert_eq!(cql(cache.get_by_handle(b, b"id-a")), Some("A".into()));
        assert_eq!(cql(cache.get_by_handle(Some(9), b"id-b")), Some("B".into()));
        assert_eq!(cql(cache.get_by_handle(None, b"id-b")), Some("B".into()));
        assert_eq!(cql(cache.get_by_handle(a, b"id-c")), None);
        // Prepared again: replaced where it was, its handle unchanged.
        cache.insert(b"id-a", meta("A2", 0));
        assert_eq!(cache.handle(b"id-a"), a);
        assert_eq!(cql(cache.get_by_handle(a, b"id-a")), Some("A2".into()));
        let all: Vec<String> = cache.values().map(|m| m.cql.clone()).collect();
        assert_eq!(all, ["A2", "B"]);
        assert!(!cache.is_empty());
    }
}
