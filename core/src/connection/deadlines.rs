//! The connection's request deadlines, earliest first, at queue cost in the common case.
//!
//! A request's deadline is its start plus its timeout, so with one timeout they arrive in
//! order (the host's clock is read once per turn: many tie): those go to the back of a
//! sorted queue, where a push and a pop are O(1). Only a deadline before the queue's back
//! (a shorter timeout) goes to a heap. At 1024 in flight the heap's sift up and down was
//! ~150 instructions a request (issue #17). Entries with equal deadlines come out in no
//! particular order: they expire in the same call.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::RequestId;

/// `(deadline µs, stream id or -1 while queued, request id)`.
pub(super) type Deadline = (u64, i16, RequestId);

#[derive(Default)]
pub(super) struct Deadlines {
    /// Deadlines non-decreasing from front to back.
    sorted: VecDeque<Deadline>,
    out_of_order: BinaryHeap<Reverse<Deadline>>,
}

impl Deadlines {
    pub(super) fn push(&mut self, d: Deadline) {
        if self.sorted.back().is_none_or(|back| back.0 <= d.0) {
            self.sorted.push_back(d);
        } else {
            self.out_of_order.push(Reverse(d));
        }
    }

    /// The earliest entry.
    pub(super) fn peek(&self) -> Option<Deadline> {
        match (self.sorted.front(), self.out_of_order.peek()) {
            (Some(&a), Some(&Reverse(b))) => Some(if a.0 <= b.0 { a } else { b }),
            (a, b) => a.copied().or(b.map(|r| r.0)),
        }
    }

    /// Removes the earliest entry.
    pub(super) fn pop(&mut self) -> Option<Deadline> {
        let from_sorted = match (self.sorted.front(), self.out_of_order.peek()) {
            (Some(a), Some(Reverse(b))) => a.0 <= b.0,
            (a, _) => a.is_some(),
        };
        if from_sorted {
            self.sorted.pop_front()
        } else {
            self.out_of_order.pop().map(|r| r.0)
        }
    }

    /// Drops the entries before the first `live` one of each part. Dropping a finished
    /// request's entry early changes nothing: an expiry skips entries that are not live.
    pub(super) fn prune(&mut self, live: impl Fn(Deadline) -> bool) {
        while let Some(&d) = self.sorted.front() {
            if live(d) {
                break;
            }
            self.sorted.pop_front();
        }
        while let Some(&Reverse(d)) = self.out_of_order.peek() {
            if live(d) {
                break;
            }
            self.out_of_order.pop();
        }
    }

    pub(super) fn clear(&mut self) {
        self.sorted.clear();
        self.out_of_order.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fixed pseudo-random walk: pushes mostly in order, some out of order, many ties on
    /// the deadline, pops in between; every pop and peek has a plain min-heap's deadline, and
    /// every entry comes out once.
    #[test]
    fn pops_in_the_order_of_a_single_min_heap() {
        let (mut ours, mut heap) = (Deadlines::default(), BinaryHeap::new());
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut popped = Vec::new();
        let mut pop_both = |ours: &mut Deadlines, heap: &mut BinaryHeap<Reverse<Deadline>>| {
            let d = ours.pop().expect("an entry");
            assert_eq!(Some(d.0), heap.pop().map(|r| r.0 .0));
            popped.push(d.2);
        };
        let mut now = 1_000u64;
        for id in 0..5_000u32 {
            now += next() % 2;
            let timeout = if next() % 10 == 0 { 50 } else { 500 };
            let d = (now + timeout, (next() % 40) as i16 - 1, id);
            ours.push(d);
            heap.push(Reverse(d));
            assert_eq!(ours.peek().map(|d| d.0), heap.peek().map(|r| r.0 .0));
            if next() % 3 != 0 {
                pop_both(&mut ours, &mut heap);
            }
        }
        while !heap.is_empty() {
            assert_eq!(ours.peek().map(|d| d.0), heap.peek().map(|r| r.0 .0));
            pop_both(&mut ours, &mut heap);
        }
        assert_eq!((ours.pop(), ours.peek()), (None, None));
        popped.sort_unstable();
        assert_eq!(popped, (0..5_000).collect::<Vec<u32>>(), "every entry once");
    }

    #[test]
    fn an_entry_sorting_before_the_back_is_still_popped_first() {
        let mut d = Deadlines::default();
        d.push((10, 1, 1));
        d.push((30, 1, 2));
        d.push((20, 1, 3));
        d.push((30, 0, 4));
        d.push((5, 0, 5));
        let order: Vec<_> = std::iter::from_fn(|| d.pop()).map(|(at, _, id)| (at, id)).collect();
        assert_eq!(order, [(5, 5), (10, 1), (20, 3), (30, 2), (30, 4)]);
    }

    #[test]
    fn prune_drops_dead_entries_up_to_the_first_live_one_of_each_part() {
        let mut d = Deadlines::default();
        for e in [(10, 0, 1), (20, 0, 2), (30, 0, 3), (25, 0, 4), (26, 0, 5), (40, 0, 6)] {
            d.push(e);
        }
        // Sorted: 1 2 3 6; out of order: 4 5. Live: 2, 5 and 6.
        d.prune(|(_, _, id)| matches!(id, 2 | 5 | 6));
        let order: Vec<_> = std::iter::from_fn(|| d.pop()).map(|(_, _, id)| id).collect();
        assert_eq!(order, [2, 5, 3, 6]);
        d.push((5, 0, 7));
        d.clear();
        assert_eq!(d.peek(), None);
    }
}
