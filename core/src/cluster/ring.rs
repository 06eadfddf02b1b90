//! The token ring: every node's tokens, sorted, each mapped to its owner.
//!
//! Range `i` is `(tokens[i-1], tokens[i]]` (range 0 wraps around from the last token), owned
//! by `owners[i]`. A key's token lands in the range of the first ring token ≥ it, wrapping to
//! range 0 past the last token, as Cassandra's `TokenMetadata.firstToken` does.

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Ring {
    tokens: Vec<i64>,
    owners: Vec<u32>,
}

/// Sorts `(token, owner)` pairs and keeps the first of each token (the lowest owner). The
/// one token sort of the core: a node's own tokens go through it too (with owner 0), since
/// each `sort_unstable` on another element type is another quicksort instantiation (~4 KB of
/// WASM) for these cold paths.
#[inline(never)]
pub(crate) fn sort_tokens(entries: &mut Vec<(i64, u32)>) {
    entries.sort_unstable();
    entries.dedup_by_key(|(token, _)| *token);
}

impl Ring {
    /// Builds the ring from `(node id, tokens)` pairs. Two nodes claiming one token (seen
    /// briefly while a node replaces another) is resolved in favour of the lower id, so the
    /// ring is the same whatever order the rows came in.
    pub fn build<'a>(owned: impl Iterator<Item = (u32, &'a [i64])>) -> Ring {
        let mut entries: Vec<(i64, u32)> =
            owned.flat_map(|(id, tokens)| tokens.iter().map(move |&token| (token, id))).collect();
        sort_tokens(&mut entries);
        let (tokens, owners) = entries.into_iter().unzip();
        Ring { tokens, owners }
    }

    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The index of the range that holds `token`. Meaningless on an empty ring (returns 0).
    pub fn range_of(&self, token: i64) -> usize {
        let index = self.tokens.partition_point(|&t| t < token);
        if index == self.tokens.len() {
            0
        } else {
            index
        }
    }

    #[cfg(test)]
    pub fn owner(&self, index: usize) -> Option<u32> {
        self.owners.get(index).copied()
    }

    /// Owners walking clockwise from range `start`, once around the ring.
    pub fn walk(&self, start: usize) -> impl Iterator<Item = u32> + '_ {
        let len = self.owners.len();
        let start = if len == 0 { 0 } else { start % len };
        self.owners[start..].iter().chain(&self.owners[..start]).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_wrap_around() {
        let a = [-100i64, 100];
        let b = [0i64];
        let ring = Ring::build([(0u32, &a[..]), (1u32, &b[..])].into_iter());
        assert_eq!(ring.len(), 3);
        assert_eq!(ring.range_of(-100), 0);
        assert_eq!(ring.range_of(-99), 1);
        assert_eq!(ring.range_of(0), 1);
        assert_eq!(ring.range_of(1), 2);
        assert_eq!(ring.range_of(100), 2);
        assert_eq!(ring.range_of(101), 0);
        assert_eq!(ring.range_of(i64::MIN), 0);
        assert_eq!(ring.range_of(i64::MAX), 0);
        assert_eq!(ring.walk(2).collect::<Vec<_>>(), vec![0, 0, 1]);
    }

    #[test]
    fn duplicate_token_goes_to_lower_id_regardless_of_order() {
        let t = [7i64];
        let one = Ring::build([(3u32, &t[..]), (1u32, &t[..])].into_iter());
        let two = Ring::build([(1u32, &t[..]), (3u32, &t[..])].into_iter());
        assert_eq!(one, two);
        assert_eq!(one.owner(0), Some(1));
    }

    #[test]
    fn empty_ring_walks_nowhere() {
        let ring = Ring::build(std::iter::empty());
        assert!(ring.is_empty());
        assert_eq!(ring.walk(5).count(), 0);
        assert_eq!(ring.owner(0), None);
    }
}
