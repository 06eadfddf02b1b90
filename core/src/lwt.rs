//! Is a statement a lightweight transaction? Scylla says so in the prepared metadata flags
//! (with `SCYLLA_LWT_ADD_METADATA_MARK`); elsewhere the statement's text is all there is.

/// Whether a prepared statement is an LWT, by Scylla's flag when the node announced its mask,
/// else by its text.
pub fn is_lwt(cql: &str, metadata_flags: i32, lwt_flag_mask: Option<u32>) -> bool {
    match lwt_flag_mask {
        Some(mask) => (metadata_flags as u32) & mask != 0,
        None => has_condition(cql),
    }
}

/// An INSERT, UPDATE or DELETE with an `IF` clause, looking only at CQL words: the insides
/// of string literals, quoted names and comments never count.
pub fn has_condition(cql: &str) -> bool {
    let mut words = Words { rest: cql.as_bytes() };
    let is_dml = words
        .next()
        .is_some_and(|w| ["INSERT", "UPDATE", "DELETE"].iter().any(|k| w.eq_ignore_ascii_case(k.as_bytes())));
    is_dml && words.any(|w| w.eq_ignore_ascii_case(b"IF"))
}

/// The bare words of a CQL text (identifiers and keywords), skipping literals and comments.
struct Words<'a> {
    rest: &'a [u8],
}

impl<'a> Words<'a> {
    /// Drops bytes up to and including the first `end` after `from`.
    fn skip_past(&mut self, from: usize, end: &[u8]) {
        let tail = self.rest.get(from..).unwrap_or(&[]);
        let at = tail.windows(end.len()).position(|w| w == end);
        self.rest = match at {
            Some(i) => &tail[i + end.len()..],
            None => &[],
        };
    }
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        loop {
            let &first = self.rest.first()?;
            let second = self.rest.get(1).copied();
            match (first, second) {
                // '' inside a literal is an escaped quote: two literals back to back skip the same.
                (b'\'', _) => self.skip_past(1, b"'"),
                (b'"', _) => self.skip_past(1, b"\""),
                (b'$', Some(b'$')) => self.skip_past(2, b"$$"),
                (b'-', Some(b'-')) | (b'/', Some(b'/')) => self.skip_past(2, b"\n"),
                (b'/', Some(b'*')) => self.skip_past(2, b"*/"),
                (c, _) if c.is_ascii_alphanumeric() || c == b'_' => {
                    let len = self
                        .rest
                        .iter()
                        .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
                        .unwrap_or(self.rest.len());
                    let (word, rest) = self.rest.split_at(len);
                    self.rest = rest;
                    return Some(word);
                }
                _ => self.rest = &self.rest[1..],
            }
        }
    }
}
