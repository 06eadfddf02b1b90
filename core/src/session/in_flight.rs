//! What each request in flight on a connection is for, by the connection's request id.
//!
//! Most ids name their stream ([`stream_of_id`]): a table indexed by stream finds them with
//! no hashing (issue #17: a hash insert and remove per request was a share of the core's CPU).
//! An id whose stream's entry is taken goes to a map: a queued request's id names no stream,
//! and a stream can be reused by a new request (a retry started while the events of a read
//! are handled) before the answer on it to the previous request is handled.

use super::Purpose;
use crate::connection::{stream_of_id, RequestId};
use crate::id_map::{id_map, IdMap};

pub(super) struct InFlight {
    by_stream: Vec<Option<(RequestId, Purpose)>>,
    others: IdMap<RequestId, Purpose>,
}

impl InFlight {
    pub(super) fn new() -> Self {
        Self { by_stream: Vec::new(), others: id_map() }
    }

    pub(super) fn insert(&mut self, id: RequestId, purpose: Purpose) {
        if let Some(s) = stream_of_id(id) {
            if self.by_stream.len() <= s {
                self.by_stream.resize(s + 1, None);
            }
            if self.by_stream[s].is_none() {
                self.by_stream[s] = Some((id, purpose));
                return;
            }
        }
        self.others.insert(id, purpose);
    }

    pub(super) fn remove(&mut self, id: RequestId) -> Option<Purpose> {
        if let Some(entry) = stream_of_id(id).and_then(|s| self.by_stream.get_mut(s)) {
            if entry.is_some_and(|(held, _)| held == id) {
                return entry.take().map(|(_, purpose)| purpose);
            }
        }
        self.others.remove(&id)
    }

    pub(super) fn contains(&self, id: RequestId) -> bool {
        let in_table = stream_of_id(id).and_then(|s| self.by_stream.get(s)).is_some_and(|e| e.is_some_and(|(held, _)| held == id));
        in_table || self.others.contains_key(&id)
    }

    /// Every entry, emptying the table (the connection closed).
    pub(super) fn drain(&mut self) -> Vec<(RequestId, Purpose)> {
        let mut all: Vec<(RequestId, Purpose)> = self.by_stream.drain(..).flatten().collect();
        all.extend(self.others.drain());
        all
    }
}

#[cfg(test)]
mod tests {
    use super::{InFlight, Purpose};

    const STREAM_5: u32 = 1 << 16 | 5;
    const STREAM_5_AGAIN: u32 = 2 << 16 | 5;
    const QUEUED: u32 = 0x8000 | 7;

    fn user(req: u32) -> Purpose {
        Purpose::User { req }
    }

    /// A stream reused before the answer on it to the previous request was handled: both ids
    /// keep their own purpose, and each is removed once.
    #[test]
    fn a_reused_stream_keeps_both_requests_apart() {
        let mut t = InFlight::new();
        t.insert(STREAM_5, user(1));
        t.insert(STREAM_5_AGAIN, user(2));
        t.insert(QUEUED, Purpose::Internal);
        assert!(t.contains(STREAM_5) && t.contains(STREAM_5_AGAIN) && t.contains(QUEUED));
        assert!(!t.contains(3 << 16 | 5) && !t.contains(0x8000 | 8) && !t.contains(1 << 16 | 6));
        assert_eq!(t.remove(STREAM_5_AGAIN), Some(user(2)));
        assert_eq!(t.remove(STREAM_5_AGAIN), None);
        assert!(t.contains(STREAM_5));
        assert_eq!(t.remove(3 << 16 | 5), None, "another id of the same stream");
        assert_eq!(t.remove(STREAM_5), Some(user(1)));
        assert_eq!(t.remove(STREAM_5), None);
        assert_eq!(t.remove(QUEUED), Some(Purpose::Internal));
        assert!(!t.contains(QUEUED));
    }

    #[test]
    fn drain_hands_out_every_entry_once() {
        let mut t = InFlight::new();
        t.insert(STREAM_5, user(1));
        t.insert(STREAM_5_AGAIN, user(2));
        t.insert(1 << 16 | 2, user(3));
        t.insert(QUEUED, Purpose::Internal);
        let mut all = t.drain();
        all.sort_by_key(|e| e.0);
        assert_eq!(all, vec![(QUEUED, Purpose::Internal), (1 << 16 | 2, user(3)), (STREAM_5, user(1)), (STREAM_5_AGAIN, user(2))]);
        assert!(t.drain().is_empty());
        assert!(!t.contains(STREAM_5) && !t.contains(QUEUED));
    }
}
