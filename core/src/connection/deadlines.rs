//! The connection's request deadlines, in the order a single min-heap of
//! `(deadline, stream, request id)` would give them, at queue cost in the common case.
//!
//! A request's deadline is its start plus its timeout, so with one timeout they arrive in
//! order: those go to the back of a sorted queue (a push and a pop are O(1)). Only an entry
//! that sorts before the queue's back (a shorter timeout, a tie on a lower stream) goes to
//! a heap. At 1024 in flight the heap's sift up and down was ~150 instructions a request
//! (issue #17).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::RequestId;

/// `(deadline µs, stream id or -1 while queued, request id)`.
pub(super) type Deadline = (u64, i16, RequestId);

#[derive(Default)]
pub(super) struct Deadlines {
    /// Non-decreasing from front to back.
    sorted: VecDeque<Deadline>,
    out_of_order: BinaryHeap<Reverse<Deadline>>,
}

impl Deadlines {
    pub(super) fn push(&mut self, d: Deadline) {
        if self.sorted.back().is_none_or(|&back| back <= d) {
            self.sorted.push_back(d);
        } else {
            self.out_of_order.push(Reverse(d));
        }
    }

    /// The earliest entry.
    pub(super) fn peek(&self) -> Option<Deadline> {
        match (self.sorted.front(), self.out_of_order.peek()) {
            (Some(&a), Some(&Reverse(b))) => Some(a.min(b)),
            (a, b) => a.copied().or(b.map(|r| r.0)),
        }
    }

    /// Removes the earliest entry.
    pub(super) fn pop(&mut self) -> Option<Deadline> {
        let from_sorted = match (self.sorted.front(), self.out_of_order.peek()) {
            (Some(a), Some(Reverse(b))) => a <= b,
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

    /// A fixed pseudo-random walk: pushes mostly in order, some out of order, ties on the
    /// deadline, pops in between; every pop and peek matches a plain min-heap's.
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
        let mut now = 1_000u64;
        for id in 0..5_000u32 {
            now += next() % 3;
            let timeout = if next() % 10 == 0 { 50 } else { 500 };
            let d = (now + timeout, (next() % 40) as i16 - 1, id);
            ours.push(d);
            heap.push(Reverse(d));
            assert_eq!(ours.peek(), heap.peek().map(|r| r.0));
            if next() % 3 != 0 {
                assert_eq!(ours.pop(), heap.pop().map(|r| r.0));
            }
        }
        while let Some(Reverse(d)) = heap.pop() {
            assert_eq!(ours.pop(), Some(d));
        }
        assert_eq!((ours.pop(), ours.peek()), (None, None));
    }

    #[test]
    fn an_entry_sorting_before_the_back_is_still_popped_first() {
        let mut d = Deadlines::default();
        d.push((10, 1, 1));
        d.push((30, 1, 2));
        d.push((20, 1, 3));
        d.push((20, 0, 4));
        let order: Vec<_> = std::iter::from_fn(|| d.pop()).collect();
        assert_eq!(order, [(10, 1, 1), (20, 0, 4), (20, 1, 3), (30, 1, 2)]);
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
