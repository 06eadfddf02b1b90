//! Last row in file order wins: the two pieces that make a bulk load replay an input with
//! repeated primary keys as a sequential load would.
//!
//! - [`WriteClock`] gives each row a client-side write timestamp when it is read, as the
//!   DataStax drivers' monotonic generator does: `max(now, previous + 1)`. A row read later
//!   always has a later timestamp, whatever order the requests reach the replicas in, and a
//!   retry resends the timestamp it was given.
//! - [`RowKey`] compares the primary key (partition and clustering values) of two encoded
//!   rows without allocating, so that a batch (which carries one timestamp) never holds two
//!   rows of the same key: with equal timestamps Cassandra keeps the greater value, not the
//!   later row.

use crate::message::walk_values;

/// The monotonic write-timestamp generator of one load (µs since the epoch).
#[derive(Debug, Clone, Default)]
pub struct WriteClock {
    last: Option<i64>,
    /// A resumed load counts up from the interrupted run's timestamp at the checkpoint, one
    /// µs a row, up to the last timestamp that run gave: a row it read got at least as late
    /// a timestamp then (it counted one a row or more), so a row it wrote is never overwritten
    /// with an earlier row's values, and rows of the same key keep their order.
    replay_until: Option<i64>,
}

impl WriteClock {
    /// The clock of a load resumed at a checkpoint: `first` was the timestamp of the first
    /// row past it, `last` the last timestamp the interrupted run gave.
    pub fn resumed(first: i64, last: i64) -> Self {
        WriteClock { last: Some(first.saturating_sub(1)), replay_until: Some(last) }
    }

    /// The last timestamp given, or (resumed) the interrupted run's last, if later: what a
    /// checkpoint records for the next resume.
    pub fn last(&self) -> Option<i64> {
        match (self.last, self.replay_until) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }

    /// The lowest timestamp the next row can get (`None` before the first: `now` decides).
    pub fn floor(&self) -> Option<i64> {
        self.last.map(|last| last.saturating_add(1))
    }

    /// The timestamp of the row read at `now` (µs since the epoch, from the host's clock):
    /// `now`, or one more than the previous row's when the clock did not move on (or went
    /// back).
    pub fn next(&mut self, now: u64) -> i64 {
        let now = i64::try_from(now).unwrap_or(i64::MAX);
        let ts = match self.last {
            Some(last) if self.replay_until.is_some_and(|until| last < until) => last + 1,
            Some(last) => now.max(last.saturating_add(1)),
            None => now,
        };
        self.last = Some(ts);
        ts
    }
}

/// The bind positions of a statement's primary key columns.
#[derive(Debug, Clone, Default)]
pub struct RowKey {
    indexes: Vec<u16>,
}

/// FNV-1a, over the key values with their lengths (so `ab|c` and `a|bc` differ).
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

fn fnv(mut hash: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        hash = (hash ^ b as u64).wrapping_mul(FNV_PRIME);
    }
    hash
}

impl RowKey {
    pub fn new(indexes: Vec<u16>) -> Self {
        RowKey { indexes }
    }

    fn is_key(&self, index: usize) -> bool {
        self.indexes.iter().any(|&k| k as usize == index)
    }

    /// A hash of the key values of an encoded value list (`[n][len][bytes]...`): equal keys
    /// hash equal; unequal keys are told apart by [`RowKey::same`].
    pub fn hash(&self, values: &[u8]) -> u64 {
        let mut hash = FNV_OFFSET;
        // A malformed list was refused by the encoder already; it hashes as far as it reads.
        let _ = walk_values(values, |i, value| {
            if self.is_key(i) {
                hash = match value {
                    Some(v) => fnv(fnv(hash, &(v.len() as u32).to_be_bytes()), v),
                    None => fnv(hash, &[0xff; 4]),
                };
            }
        });
        hash
    }

    /// Whether two encoded value lists have the same key values.
    pub fn same(&self, a: &[u8], b: &[u8]) -> bool {
        let mut a = Values::new(a);
        let mut b = Values::new(b);
        let last = self.indexes.iter().copied().max().map_or(0, |m| m as usize + 1);
        for i in 0..last {
            match (a.next(), b.next()) {
                (Some(x), Some(y)) if !self.is_key(i) || x == y => {}
                _ => return false,
            }
        }
        true
    }
}

/// The values of an encoded list one by one: `Some(None)` for null or unset, `None` at its
/// end or at a malformed length.
struct Values<'a> {
    rest: &'a [u8],
}

impl<'a> Values<'a> {
    fn new(values: &'a [u8]) -> Self {
        Values { rest: values.get(2..).unwrap_or(&[]) }
    }

    fn next(&mut self) -> Option<Option<&'a [u8]>> {
        let (len, rest) = self.rest.split_first_chunk::<4>()?;
        let len = i32::from_be_bytes(*len);
        if len < 0 {
            self.rest = rest;
            return Some(None);
        }
        let value = rest.get(..len as usize)?;
        self.rest = &rest[len as usize..];
        Some(Some(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An encoded value list.
    fn values(items: &[Option<&[u8]>]) -> Vec<u8> {
        let mut out = (items.len() as u16).to_be_bytes().to_vec();
        for item in items {
            match item {
                Some(v) => {
                    out.extend_from_slice(&(v.len() as i32).to_be_bytes());
                    out.extend_from_slice(v);
                }
                None => out.extend_from_slice(&(-1i32).to_be_bytes()),
            }
        }
        out
    }

    #[test]
    fn the_clock_follows_now_and_never_repeats_or_goes_back() {
        let mut clock = WriteClock::default();
        let seen: Vec<i64> = [100, 100, 100, 250, 90, 251, 400].iter().map(|&now| clock.next(now)).collect();
        assert_eq!(seen, [100, 101, 102, 250, 251, 252, 400]);
        // A clock past i64 saturates rather than wrapping to the past.
        let mut far = WriteClock::default();
        assert_eq!((far.next(u64::MAX), far.next(u64::MAX)), (i64::MAX, i64::MAX));
    }

    #[test]
    fn a_resumed_clock_counts_up_from_the_checkpoint_to_the_interrupted_runs_last_then_follows_now() {
        let mut clock = WriteClock::resumed(1_000, 1_003);
        assert_eq!(clock.last(), Some(1_003));
        let seen: Vec<i64> = (0..6).map(|_| clock.next(5_000)).collect();
        assert_eq!(seen, [1_000, 1_001, 1_002, 1_003, 5_000, 5_001]);
        assert_eq!(clock.last(), Some(5_001));
        // Interrupted again before its last: the next resume still counts up to the first run's.
        let mut again = WriteClock::resumed(1_000, 1_003);
        again.next(5_000);
        assert_eq!(again.last(), Some(1_003));
    }

    #[test]
    fn rows_with_the_same_key_values_are_the_same_key_whatever_else_they_hold() {
        // (k, v, c) with the key (k, c).
        let key = RowKey::new(vec![0, 2]);
        let a = values(&[Some(b"k1"), Some(b"v1"), Some(b"c")]);
        let b = values(&[Some(b"k1"), Some(b"other"), Some(b"c")]);
        let other_c = values(&[Some(b"k1"), Some(b"v1"), Some(b"d")]);
        let shifted = values(&[Some(b"k"), Some(b"v1"), Some(b"1c")]);
        let null_c = values(&[Some(b"k1"), Some(b"v1"), None]);
        assert!(key.same(&a, &b) && key.hash(&a) == key.hash(&b));
        for different in [&other_c, &shifted, &null_c] {
            assert!(!key.same(&a, different));
            assert_ne!(key.hash(&a), key.hash(different));
        }
        // A list cut short is never the same key as a whole one.
        assert!(!key.same(&a, &a[..a.len() - 1]));
    }

    #[test]
    fn an_empty_value_is_not_a_missing_one_and_unset_reads_past_itself() {
        let key = RowKey::new(vec![0, 1]);
        let empty = values(&[Some(b"k"), Some(b"")]);
        let null = values(&[Some(b"k"), None]);
        assert!(!key.same(&empty, &null) && !key.same(&null, &empty));
        // Unset (-2) has no bytes after its length, as null: the value after it is read.
        let unset = |last: &[u8]| {
            let mut out = vec![0, 3];
            out.extend_from_slice(&(-2i32).to_be_bytes());
            out.extend_from_slice(&1i32.to_be_bytes());
            out.push(b'k');
            out.extend_from_slice(&(last.len() as i32).to_be_bytes());
            out.extend_from_slice(last);
            out
        };
        let key = RowKey::new(vec![0, 1, 2]);
        assert!(key.same(&unset(b"c"), &unset(b"c")));
        assert!(!key.same(&unset(b"c"), &unset(b"d")));
    }
}
