//! JSON Lines: a streaming line splitter and an allocation-free scanner for the one JSON
//! object on each line.
//!
//! [`JsonlReader`] is fed chunks cut anywhere and returns whole lines (LF or CRLF ended; a
//! last line may lack its line end). Lines holding only blanks are skipped. A line longer
//! than the limit is reported once it ends, with only its first bytes kept; the rest is
//! dropped as it arrives, so memory stays bounded by the limit plus one chunk.
//!
//! [`ObjectScanner::scan`] walks one line's object: for each top-level key it asks the
//! caller which slot (if any) the key fills, and records where the value is. Strings are
//! unescaped into a buffer the scanner reuses; numbers, literals, arrays and objects are
//! checked against the JSON grammar and left as ranges of the line, so that a nested value
//! can be handed on as its own JSON text. Nothing is allocated once the buffers are warm.
//!
//! This is the core's one JSON reader: the option objects (`crate::json_fields`) are read
//! with it too, through [`ObjectScanner::read_value`] (one whole value),
//! [`ObjectScanner::scan_entries`] (every key of an object) and [`ObjectScanner::scan_items`]
//! (an array's items).

use std::fmt;

use super::csv::DEFAULT_MAX_RECORD_BYTES;
use super::record_buffer::{RawSource, RecordBuffer};

/// Arrays and objects may nest this deep inside a top-level value. Deeper than any CQL type
/// can be (`MAX_TYPE_DEPTH` is 32), and shallow enough for the scanner's recursion.
pub const MAX_JSON_DEPTH: usize = 64;

/// A line found by [`JsonlReader::next_line`]; its bytes are read with
/// [`JsonlReader::raw`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonlLine {
    /// 1-based line number.
    pub line: u64,
    /// Absolute byte offset of the line's first byte.
    pub offset: u64,
    /// Absolute byte offset just past the line end (or the end of input).
    pub end_offset: u64,
    /// Set when the line passed the size limit: `(limit, kept)`, and only the first `kept`
    /// bytes are in `raw`.
    pub too_long: Option<(usize, usize)>,
}

/// Splits pushed bytes into lines. See the module documentation.
#[derive(Debug)]
pub struct JsonlReader {
    max_record: usize,
    /// Its `start` is where the line in progress begins.
    pub(super) buf: RecordBuffer,
    line_offset: u64,
    line: u64,
    discarding: bool,
}

impl Default for JsonlReader {
    fn default() -> Self {
        JsonlReader::new(DEFAULT_MAX_RECORD_BYTES)
    }
}

impl JsonlReader {
    /// `max_record_bytes` caps a line's size, line end excluded (at least 1).
    pub fn new(max_record_bytes: usize) -> Self {
        JsonlReader {
            max_record: max_record_bytes.max(1),
            buf: RecordBuffer::new(),
            line_offset: 0,
            line: 1,
            discarding: false,
        }
    }

    /// Appends input. Ignored after [`JsonlReader::finish`]. Ends access to the current line.
    pub fn push(&mut self, chunk: &[u8]) {
        if self.buf.is_finished() {
            return;
        }
        self.release_current();
        self.buf.append(chunk);
    }

    pub fn finish(&mut self) {
        self.buf.finish();
    }

    pub fn is_finished(&self) -> bool {
        self.buf.is_finished()
    }

    pub fn bytes_pushed(&self) -> u64 {
        self.buf.bytes_pushed()
    }

    /// The absolute offset up to which input has been returned as lines or skipped.
    pub fn consumed_offset(&self) -> u64 {
        self.buf.consumed_offset()
    }

    /// The line last returned, without its line end. Empty once `next_line` or `push` is
    /// called again.
    pub fn raw(&self) -> &[u8] {
        self.buf.raw()
    }

    fn release_current(&mut self) {
        if self.buf.release_current() {
            self.buf.start = self.buf.scan;
            self.line_offset = self.buf.scan_offset();
        }
    }

    /// The next non-blank line, or `None` when more input is needed (or none is left after
    /// [`JsonlReader::finish`]).
    pub fn next_line(&mut self) -> Option<JsonlLine> {
        self.release_current();
        loop {
            let rest = self.buf.unscanned();
            if self.discarding {
                match rest.iter().position(|&c| c == b'\n') {
                    Some(i) => {
                        self.buf.scan += i + 1;
                        return Some(self.complete(self.buf.scan, true));
                    }
                    None => {
                        self.buf.scan = self.buf.input().len();
                        self.buf.start = self.buf.scan;
                        if !self.buf.is_finished() {
                            return None;
                        }
                        return Some(self.complete(self.buf.scan, false));
                    }
                }
            }
            // Enough to see `max_record` bytes, a CR and the LF.
            let used = self.buf.scan - self.buf.start;
            let budget = (self.max_record + 2).saturating_sub(used);
            let window = &rest[..rest.len().min(budget)];
            match window.iter().position(|&c| c == b'\n') {
                Some(i) => {
                    self.buf.scan += i + 1;
                    if let Some(line) = self.line_ended(self.buf.scan - 1, true) {
                        return Some(line);
                    }
                }
                None => {
                    self.buf.scan += window.len();
                    if self.buf.scan - self.buf.start > self.max_record + 1 {
                        self.begin_discard();
                        continue;
                    }
                    if !self.buf.is_finished() {
                        return None;
                    }
                    if self.buf.scan == self.buf.start {
                        self.buf.skip_to_scan();
                        return None;
                    }
                    return self.line_ended(self.buf.scan, false);
                }
            }
        }
    }

    /// A line ends at `content_end` (the LF's index, or the end of input). Returns it, or
    /// `None` when it was blank and skipped.
    fn line_ended(&mut self, mut content_end: usize, had_lf: bool) -> Option<JsonlLine> {
        if had_lf && content_end > self.buf.start && self.buf.input().get(content_end - 1) == Some(&b'\r') {
            content_end -= 1;
        }
        let content = self.buf.input().get(self.buf.start..content_end).unwrap_or(&[]);
        if content.iter().all(|&c| matches!(c, b' ' | b'\t' | b'\r')) {
            if had_lf {
                self.line += 1;
            }
            self.buf.skip_to_scan();
            self.line_offset = self.buf.scan_offset();
            return None;
        }
        if content.len() > self.max_record {
            self.buf.keep_head(content_end, self.max_record);
            return Some(self.complete(self.buf.scan, had_lf));
        }
        let line =
            JsonlLine { line: self.line, offset: self.line_offset, end_offset: self.buf.scan_offset(), too_long: None };
        self.finish_line(RawSource::Input(self.buf.start..content_end), had_lf);
        Some(line)
    }

    fn begin_discard(&mut self) {
        self.buf.keep_head(self.buf.scan, self.max_record);
        self.discarding = true;
        self.buf.start = self.buf.scan;
    }

    /// Reports the too-long line ending at `scan`.
    fn complete(&mut self, end: usize, had_lf: bool) -> JsonlLine {
        self.discarding = false;
        let line = JsonlLine {
            line: self.line,
            offset: self.line_offset,
            end_offset: self.buf.absolute(end),
            too_long: Some((self.max_record, self.buf.kept_len())),
        };
        self.finish_line(RawSource::Kept, had_lf);
        line
    }

    fn finish_line(&mut self, raw: RawSource, had_lf: bool) {
        if had_lf {
            self.line += 1;
        }
        self.buf.hand_out(raw);
    }
}

// ---------------------------------------------------------------------------------------------
// One line's object

/// What a top-level value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonKind {
    String,
    Number,
    True,
    False,
    Null,
    Array,
    Object,
}

/// Where a top-level value is: for [`JsonKind::String`] a range of the scanner's unescaped
/// strings ([`ObjectScanner::string`]), otherwise a range of the line (its JSON text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonValue {
    pub kind: JsonKind,
    pub start: usize,
    pub end: usize,
}

/// A line that is not one JSON object, or whose object fills a slot twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonFault {
    /// Byte offset in the line.
    pub offset: usize,
    pub reason: &'static str,
    /// The slot involved, for a duplicate key.
    pub slot: Option<usize>,
}

impl fmt::Display for JsonFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid JSON at byte {}: {}", self.offset, self.reason)
    }
}

fn fault(offset: usize, reason: &'static str) -> JsonFault {
    JsonFault { offset, reason, slot: None }
}

/// The brackets of a JSON object or array, and what a fault in each place is called.
struct Sequence {
    open: u8,
    close: u8,
    no_open: &'static str,
    no_separator: &'static str,
    trailing: &'static str,
}

const OBJECT: Sequence = Sequence {
    open: b'{',
    close: b'}',
    no_open: "expected '{' to start the line's object",
    no_separator: "expected ',' or '}' after a value",
    trailing: "unexpected text after the object",
};

const ARRAY: Sequence = Sequence {
    open: b'[',
    close: b']',
    no_open: "expected '[' to start an array",
    no_separator: "expected ',' or ']' in an array",
    trailing: "unexpected text after the array",
};

/// Reusable buffers for scanning objects. See the module documentation.
#[derive(Debug, Default)]
pub struct ObjectScanner {
    strings: String,
    key: String,
}

impl ObjectScanner {
    pub fn new() -> Self {
        ObjectScanner::default()
    }

    /// Scans `line`, which must hold one JSON object. For each key, `slot_of` names the slot
    /// it fills (or `None`: the key is ignored, its value still checked), and `slots` gets
    /// the value. `slots` must come in all `None`; a key that fills a filled slot is a fault.
    pub fn scan(
        &mut self,
        line: &str,
        slot_of: impl FnMut(&str) -> Option<usize>,
        slots: &mut [Option<JsonValue>],
    ) -> Result<(), JsonFault> {
        self.walk_object(line, slot_of, |slot, key_at, value| match slots.get_mut(slot) {
            Some(place @ None) => {
                *place = Some(value);
                Ok(())
            }
            Some(Some(_)) => Err(JsonFault { offset: key_at, reason: "duplicate key", slot: Some(slot) }),
            None => Ok(()),
        })
    }

    /// Scans `text`, which must hold one JSON object, handing `entry` each key (unescaped),
    /// the offset of its opening quote and its value, in the order written. Duplicate keys
    /// are the caller's to judge.
    pub fn scan_entries(
        &mut self,
        text: &str,
        entry: impl FnMut(String, usize, JsonValue) -> Result<(), JsonFault>,
    ) -> Result<(), JsonFault> {
        self.walk_object(text, |key| Some(key.to_owned()), entry)
    }

    /// Scans `text`, which must hold one JSON array, handing `item` each item in order.
    pub fn scan_items(
        &mut self,
        text: &str,
        mut item: impl FnMut(JsonValue) -> Result<(), JsonFault>,
    ) -> Result<(), JsonFault> {
        self.strings.clear();
        self.walk_sequence(text, &ARRAY, |scanner, p| {
            let (value, end) = scanner.value(text, p, true)?;
            item(value)?;
            Ok(end)
        })
    }

    /// Reads `text`, which must hold one JSON value of any kind (blanks around it allowed).
    pub fn read_value(&mut self, text: &str) -> Result<JsonValue, JsonFault> {
        self.strings.clear();
        let b = text.as_bytes();
        let (value, end) = self.value(text, skip_ws(b, 0), true)?;
        after(b, end, "unexpected text after the value")?;
        Ok(value)
    }

    /// Walks the object that is the whole of `line`: `want` tells for each key whether its
    /// value is kept (`Some(tag)`; a kept string is unescaped), and `put` gets each kept one.
    fn walk_object<T>(
        &mut self,
        line: &str,
        mut want: impl FnMut(&str) -> Option<T>,
        mut put: impl FnMut(T, usize, JsonValue) -> Result<(), JsonFault>,
    ) -> Result<(), JsonFault> {
        self.strings.clear();
        let b = line.as_bytes();
        self.walk_sequence(line, &OBJECT, |scanner, mut p| {
            if b.get(p) != Some(&b'"') {
                return Err(fault(p, "expected a key (a string)"));
            }
            let key_at = p;
            scanner.key.clear();
            p = read_string(line, p, Some(&mut scanner.key))?;
            let wanted = want(&scanner.key);
            p = skip_ws(b, p);
            if b.get(p) != Some(&b':') {
                return Err(fault(p, "expected ':' after the key"));
            }
            let (value, end) = scanner.value(line, skip_ws(b, p + 1), wanted.is_some())?;
            if let Some(tag) = wanted {
                put(tag, key_at, value)?;
            }
            Ok(end)
        })
    }

    /// Walks the bracketed sequence that is the whole of `text`: the opening bracket, then
    /// `member` (given where a member starts, returning where it ends) for each member until
    /// the closing bracket, with only blanks after it.
    fn walk_sequence(
        &mut self,
        text: &str,
        shape: &Sequence,
        mut member: impl FnMut(&mut Self, usize) -> Result<usize, JsonFault>,
    ) -> Result<(), JsonFault> {
        let b = text.as_bytes();
        let mut p = skip_ws(b, 0);
        if b.get(p) != Some(&shape.open) {
            return Err(fault(p, shape.no_open));
        }
        p = skip_ws(b, p + 1);
        if b.get(p) == Some(&shape.close) {
            return after(b, p + 1, shape.trailing);
        }
        loop {
            p = skip_ws(b, member(self, p)?);
            match b.get(p) {
                Some(b',') => p = skip_ws(b, p + 1),
                Some(&c) if c == shape.close => return after(b, p + 1, shape.trailing),
                _ => return Err(fault(p, shape.no_separator)),
            }
        }
    }

    /// The value at `p` and its end: a string is unescaped into `strings` when `keep`, else
    /// only checked; any other value is checked and left as a range of `line`.
    fn value(&mut self, line: &str, p: usize, keep: bool) -> Result<(JsonValue, usize), JsonFault> {
        if line.as_bytes().get(p) == Some(&b'"') {
            let start = self.strings.len();
            let end = read_string(line, p, if keep { Some(&mut self.strings) } else { None })?;
            Ok((JsonValue { kind: JsonKind::String, start, end: self.strings.len() }, end))
        } else {
            let (kind, end) = skip_value(line, p, 0)?;
            Ok((JsonValue { kind, start: p, end }, end))
        }
    }

    /// The unescaped text of a [`JsonKind::String`] value.
    pub fn string(&self, value: JsonValue) -> &str {
        self.strings.get(value.start..value.end).unwrap_or("")
    }
}

/// Only blanks may follow the value that ends at `p`.
fn after(b: &[u8], p: usize, reason: &'static str) -> Result<(), JsonFault> {
    let end = skip_ws(b, p);
    if end == b.len() {
        Ok(())
    } else {
        Err(fault(end, reason))
    }
}

fn skip_ws(b: &[u8], mut p: usize) -> usize {
    while matches!(b.get(p), Some(b' ' | b'\t' | b'\r' | b'\n')) {
        p += 1;
    }
    p
}

/// Reads the string whose opening quote is at `p`, appending its unescaped text to `out`
/// when given. Returns the index just past the closing quote.
fn read_string(line: &str, p: usize, mut out: Option<&mut String>) -> Result<usize, JsonFault> {
    let b = line.as_bytes();
    let mut i = p + 1;
    loop {
        let rest = b.get(i..).unwrap_or(&[]);
        let Some(k) = rest.iter().position(|&c| c == b'"' || c == b'\\' || c < 0x20) else {
            return Err(fault(p, "unterminated string"));
        };
        let j = i + k;
        if let Some(out) = out.as_deref_mut() {
            // `i` and `j` sit next to ASCII bytes, so they are character boundaries.
            out.push_str(line.get(i..j).unwrap_or(""));
        }
        match b.get(j) {
            Some(b'"') => return Ok(j + 1),
            Some(b'\\') => {
                let unescaped = match b.get(j + 1) {
                    Some(b'"') => '"',
                    Some(b'\\') => '\\',
                    Some(b'/') => '/',
                    Some(b'b') => '\u{8}',
                    Some(b'f') => '\u{c}',
                    Some(b'n') => '\n',
                    Some(b'r') => '\r',
                    Some(b't') => '\t',
                    Some(b'u') => {
                        let (c, next) = unicode_escape(b, j)?;
                        if let Some(out) = out.as_deref_mut() {
                            out.push(c);
                        }
                        i = next;
                        continue;
                    }
                    _ => return Err(fault(j, "invalid escape in a string")),
                };
                if let Some(out) = out.as_deref_mut() {
                    out.push(unescaped);
                }
                i = j + 2;
            }
            _ => return Err(fault(j, "control character in a string (escape it)")),
        }
    }
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let digits = b.get(at..at + 4)?;
    let mut value = 0u32;
    for &d in digits {
        value = value * 16 + (d as char).to_digit(16)?;
    }
    Some(value)
}

/// The character of the `\uXXXX` escape at `j` (a surrogate pair takes two escapes), and the
/// index after it.
fn unicode_escape(b: &[u8], j: usize) -> Result<(char, usize), JsonFault> {
    let high = hex4(b, j + 2).ok_or(fault(j, "\\u needs four hex digits"))?;
    let (code, next) = match high {
        0xD800..=0xDBFF => {
            let low = if b.get(j + 6..j + 8) == Some(b"\\u") { hex4(b, j + 8) } else { None };
            match low {
                Some(low @ 0xDC00..=0xDFFF) => (0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00), j + 12),
                _ => return Err(fault(j, "unpaired surrogate in a \\u escape")),
            }
        }
        0xDC00..=0xDFFF => return Err(fault(j, "unpaired surrogate in a \\u escape")),
        _ => (high, j + 6),
    };
    let c = char::from_u32(code).ok_or(fault(j, "invalid \\u escape"))?;
    Ok((c, next))
}

/// Checks the value at `p` (not a top-level string) and returns its kind and end.
fn skip_value(line: &str, p: usize, depth: usize) -> Result<(JsonKind, usize), JsonFault> {
    let b = line.as_bytes();
    let literal = |word: &'static [u8], kind: JsonKind| {
        if b.get(p..p + word.len()) == Some(word) {
            Ok((kind, p + word.len()))
        } else {
            Err(fault(p, "invalid literal (expected true, false or null)"))
        }
    };
    match b.get(p) {
        Some(b'"') => Ok((JsonKind::String, read_string(line, p, None)?)),
        Some(b't') => literal(b"true", JsonKind::True),
        Some(b'f') => literal(b"false", JsonKind::False),
        Some(b'n') => literal(b"null", JsonKind::Null),
        Some(b'-' | b'0'..=b'9') => Ok((JsonKind::Number, number(b, p)?)),
        Some(open @ (b'[' | b'{')) => {
            if depth >= MAX_JSON_DEPTH {
                return Err(fault(p, "arrays and objects nested too deep"));
            }
            let is_object = *open == b'{';
            let close = if is_object { b'}' } else { b']' };
            let mut q = skip_ws(b, p + 1);
            if b.get(q) == Some(&close) {
                let kind = if is_object { JsonKind::Object } else { JsonKind::Array };
                return Ok((kind, q + 1));
            }
            loop {
                if is_object {
                    if b.get(q) != Some(&b'"') {
                        return Err(fault(q, "expected a key (a string)"));
                    }
                    q = skip_ws(b, read_string(line, q, None)?);
                    if b.get(q) != Some(&b':') {
                        return Err(fault(q, "expected ':' after the key"));
                    }
                    q = skip_ws(b, q + 1);
                }
                q = skip_ws(b, skip_value(line, q, depth + 1)?.1);
                match b.get(q) {
                    Some(b',') => q = skip_ws(b, q + 1),
                    Some(c) if *c == close => {
                        let kind = if is_object { JsonKind::Object } else { JsonKind::Array };
                        return Ok((kind, q + 1));
                    }
                    _ if is_object => return Err(fault(q, "expected ',' or '}' in an object")),
                    _ => return Err(fault(q, "expected ',' or ']' in an array")),
                }
            }
        }
        Some(_) => Err(fault(p, "unexpected character where a value should be")),
        None => Err(fault(p, "missing value")),
    }
}

/// Checks the JSON number at `p`; returns its end.
fn number(b: &[u8], p: usize) -> Result<usize, JsonFault> {
    let digits = |mut i: usize| {
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        (i, i > start)
    };
    let mut i = p;
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(i).0,
        _ => return Err(fault(p, "invalid number")),
    }
    if b.get(i) == Some(&b'.') {
        let (end, any) = digits(i + 1);
        if !any {
            return Err(fault(p, "invalid number (no digits after '.')"));
        }
        i = end;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let (end, any) = digits(i);
        if !any {
            return Err(fault(p, "invalid number (no digits in the exponent)"));
        }
        i = end;
    }
    Ok(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], chunk: usize, max: usize) -> Vec<(JsonlLine, Vec<u8>)> {
        let mut reader = JsonlReader::new(max);
        let mut out = Vec::new();
        for piece in input.chunks(chunk.max(1)) {
            reader.push(piece);
            while let Some(line) = reader.next_line() {
                out.push((line, reader.raw().to_vec()));
            }
        }
        reader.finish();
        while let Some(line) = reader.next_line() {
            out.push((line, reader.raw().to_vec()));
        }
        assert_eq!(reader.consumed_offset(), input.len() as u64);
        out
    }

    #[test]
    fn lines_split_the_same_however_the_input_is_cut() {
        let input = b"{\"a\":1}\r\n\n  \r\n{\"b\":2}\n0123456789ABC\n{}";
        let whole = lines(input, usize::MAX, 10);
        for chunk in 1..6 {
            assert_eq!(lines(input, chunk, 10), whole, "chunk {chunk}");
        }
        let summary: Vec<_> =
            whole.iter().map(|(l, raw)| (l.line, l.offset, l.end_offset, l.too_long, raw.clone())).collect();
        assert_eq!(
            summary,
            vec![
                (1, 0, 9, None, b"{\"a\":1}".to_vec()),
                (4, 14, 22, None, b"{\"b\":2}".to_vec()),
                (5, 22, 36, Some((10, 10)), b"0123456789".to_vec()),
                (6, 36, 38, None, b"{}".to_vec()),
            ]
        );
    }

    fn summary(input: &[u8], max: usize) -> Vec<(u64, u64, u64, Option<(usize, usize)>, Vec<u8>)> {
        let whole = lines(input, usize::MAX, max);
        for chunk in 1..6 {
            assert_eq!(lines(input, chunk, max), whole, "chunk {chunk}");
        }
        whole.into_iter().map(|(l, raw)| (l.line, l.offset, l.end_offset, l.too_long, raw)).collect()
    }

    #[test]
    fn lines_at_and_past_the_limit() {
        // Exactly at the limit, with LF, CRLF or nothing after it: whole.
        assert_eq!(
            summary(b"0123\n4567\r\n89ab", 4),
            vec![
                (1, 0, 5, None, b"0123".to_vec()),
                (2, 5, 11, None, b"4567".to_vec()),
                (3, 11, 15, None, b"89ab".to_vec()),
            ]
        );
        // One byte more: too long, whatever ends it.
        assert_eq!(
            summary(b"01234\n56789\r\nabcde", 4),
            vec![
                (1, 0, 6, Some((4, 4)), b"0123".to_vec()),
                (2, 6, 13, Some((4, 4)), b"5678".to_vec()),
                (3, 13, 18, Some((4, 4)), b"abcd".to_vec()),
            ]
        );
        // Far past it, then a blank line and a short one.
        assert_eq!(
            summary(b"0123456789abcdef\r\n \t\n{}", 4),
            vec![(1, 0, 18, Some((4, 4)), b"0123".to_vec()), (3, 21, 23, None, b"{}".to_vec())]
        );
        // Blank lines at the very start; a CR is stripped only before an LF.
        assert_eq!(summary(b"\n\r\n{}\r", 4), vec![(3, 3, 6, None, b"{}\r".to_vec())]);
        // A limit of 0 is 1.
        assert_eq!(
            summary(b"a\nbc\n", 0),
            vec![(1, 0, 2, None, b"a".to_vec()), (2, 2, 5, Some((1, 1)), b"b".to_vec())]
        );
    }

    #[test]
    fn the_reader_reports_its_input_and_end() {
        let mut reader = JsonlReader::default();
        assert!(!reader.is_finished());
        reader.push(b"{}\n{");
        assert_eq!(reader.bytes_pushed(), 4);
        assert!(reader.next_line().is_some());
        assert_eq!((reader.consumed_offset(), reader.raw()), (3, &b"{}"[..]));
        reader.push(b"}");
        // Pushing ends access to the line last returned.
        assert_eq!(reader.raw(), b"");
        reader.finish();
        assert!(reader.is_finished());
        reader.push(b"ignored");
        assert_eq!(reader.bytes_pushed(), 5);
    }

    fn scan(line: &str, keys: &[&str]) -> Result<Vec<Option<(JsonKind, String)>>, JsonFault> {
        let mut scanner = ObjectScanner::new();
        let mut slots = vec![None; keys.len()];
        scanner.scan(line, |k| keys.iter().position(|x| *x == k), &mut slots)?;
        Ok(slots
            .iter()
            .map(|s| {
                s.map(|v| {
                    let text = if v.kind == JsonKind::String { scanner.string(v) } else { &line[v.start..v.end] };
                    (v.kind, text.to_owned())
                })
            })
            .collect())
    }

    #[test]
    fn values_of_every_kind() {
        let got = scan(
            r#" { "s": "a\"b\\c\u00e9\ud83d\ude00\n", "n": -1.5e+3, "t": true, "f": false, "z": null,
                 "a": [1, {"x": [2]}, "]"], "o": {"k": "}"}, "ignored": {"deep": [[]]} } "#,
            &["s", "n", "t", "f", "z", "a", "o", "missing"],
        )
        .unwrap();
        assert_eq!(
            got,
            vec![
                Some((JsonKind::String, "a\"b\\cé😀\n".into())),
                Some((JsonKind::Number, "-1.5e+3".into())),
                Some((JsonKind::True, "true".into())),
                Some((JsonKind::False, "false".into())),
                Some((JsonKind::Null, "null".into())),
                Some((JsonKind::Array, r#"[1, {"x": [2]}, "]"]"#.into())),
                Some((JsonKind::Object, r#"{"k": "}"}"#.into())),
                None,
            ]
        );
        assert_eq!(scan("{}", &["a"]).unwrap(), vec![None]);
        // Keys with escapes are matched by their unescaped text.
        assert_eq!(scan(r#"{"\u0061": 1}"#, &["a"]).unwrap(), vec![Some((JsonKind::Number, "1".into()))]);
    }

    #[test]
    fn every_escape_and_number_form() {
        let got = scan(
            r#"{"s": "a b\/\b\f\r\t\u00E9\u00e9", "n": [0, -0, 0.5, 1E5, 1e-2, 12e+3, -12.25], "u": "\ud83d\ude00x"}"#,
            &["s", "n", "u"],
        )
        .unwrap();
        assert_eq!(
            got,
            vec![
                Some((JsonKind::String, "a b/\u{8}\u{c}\r\téé".into())),
                Some((JsonKind::Array, "[0, -0, 0.5, 1E5, 1e-2, 12e+3, -12.25]".into())),
                Some((JsonKind::String, "😀x".into())),
            ]
        );
    }

    #[test]
    fn bad_json_is_an_exact_fault() {
        let at = |offset, reason| Err(JsonFault { offset, reason, slot: None });
        let number = |line: &str| scan(line, &["a"]).map(|_| ());
        assert_eq!(number(r#"{"a": 1e}"#), at(6, "invalid number (no digits in the exponent)"));
        assert_eq!(number(r#"{"a": 1e+}"#), at(6, "invalid number (no digits in the exponent)"));
        assert_eq!(number(r#"{"a": -x}"#), at(6, "invalid number"));
        assert_eq!(number(r#"{"a": "\u12"}"#), at(7, "\\u needs four hex digits"));
        assert_eq!(number(r#"{"a": "\u12G4"}"#), at(7, "\\u needs four hex digits"));
        assert_eq!(number(r#"{"a": "x\udc00"}"#), at(8, "unpaired surrogate in a \\u escape"));
        assert_eq!(number(r#"{"a": "\ud800\u0041"}"#), at(7, "unpaired surrogate in a \\u escape"));
        assert_eq!(number(r#"{"a": "\ud800\ud800"}"#), at(7, "unpaired surrogate in a \\u escape"));
        assert_eq!(number(r#"{"a": {"b": 1 "c"}}"#), at(14, "expected ',' or '}' in an object"));
        assert_eq!(number(r#"{"a": {1: 2}}"#), at(7, "expected a key (a string)"));
        assert_eq!(number(r#"{"a": @}"#), at(6, "unexpected character where a value should be"));
        assert_eq!(number(r#"{"a": 1 "b": 2}"#), at(8, "expected ',' or '}' after a value"));
        assert_eq!(number(r#"{1: 2}"#), at(1, "expected a key (a string)"));
        assert_eq!(number(" \t"), at(2, "expected '{' to start the line's object"));
        assert_eq!(number(r#"{} {}"#), at(3, "unexpected text after the object"));
        assert_eq!(
            scan(r#"{"a": 1, "a": 2}"#, &["a"]),
            Err(JsonFault { offset: 9, reason: "duplicate key", slot: Some(0) })
        );
        assert_eq!(at(3, "missing value").unwrap_err().to_string(), "invalid JSON at byte 3: missing value");
        // Ignored keys are still checked; empty nested values and blanks everywhere are fine.
        assert_eq!(number(r#"{"x": [1,]}"#), at(9, "unexpected character where a value should be"));
        assert_eq!(
            scan(" {\t\"x\" : { } , \"a\" : [ ] }\r\n", &["a"]),
            Ok(vec![Some((JsonKind::Array, "[ ]".into()))])
        );
    }

    #[test]
    fn whole_values_items_and_entries() {
        let mut scanner = ObjectScanner::new();
        let v = scanner.read_value(" \"a\\u00e9\" ").unwrap();
        assert_eq!((v.kind, scanner.string(v)), (JsonKind::String, "aé"));
        assert_eq!(scanner.read_value("\t-1.5e3\r\n"), Ok(JsonValue { kind: JsonKind::Number, start: 1, end: 7 }));
        assert_eq!(scanner.read_value("[1, {}]"), Ok(JsonValue { kind: JsonKind::Array, start: 0, end: 7 }));
        assert_eq!(scanner.read_value("1 2"), Err(fault(2, "unexpected text after the value")));
        assert_eq!(scanner.read_value("{}}"), Err(fault(2, "unexpected text after the value")));
        assert_eq!(scanner.read_value(" "), Err(fault(1, "missing value")));

        let text = r#"[ 1, "x\ny", [2, 3], {"a": null}, true ]"#;
        let mut items = Vec::new();
        scanner.scan_items(text, |v| Ok(items.push(v))).unwrap();
        let shown: Vec<(JsonKind, &str)> = items
            .iter()
            .map(|&v| (v.kind, if v.kind == JsonKind::String { scanner.string(v) } else { &text[v.start..v.end] }))
            .collect();
        assert_eq!(
            shown,
            [
                (JsonKind::Number, "1"),
                (JsonKind::String, "x\ny"),
                (JsonKind::Array, "[2, 3]"),
                (JsonKind::Object, r#"{"a": null}"#),
                (JsonKind::True, "true"),
            ]
        );
        let mut count = 0;
        assert_eq!(scanner.scan_items(" [ ] ", |_| Ok(count += 1)), Ok(()));
        assert_eq!(count, 0);
        // Every proper prefix is refused, and so is anything after the array.
        for end in 0..text.len() {
            assert!(scanner.scan_items(&text[..end], |_| Ok(())).is_err(), "{end}");
        }
        assert_eq!(scanner.scan_items("[1] x", |_| Ok(())), Err(fault(4, "unexpected text after the array")));
        assert_eq!(
            scanner.scan_items("[1,]", |_| Ok(())),
            Err(fault(3, "unexpected character where a value should be"))
        );
        assert_eq!(scanner.scan_items("[1 2]", |_| Ok(())), Err(fault(3, "expected ',' or ']' in an array")));
        assert_eq!(scanner.scan_items("{}", |_| Ok(())), Err(fault(0, "expected '[' to start an array")));
        // The callback's fault stops the walk.
        let stop = fault(9, "stop");
        assert_eq!(scanner.scan_items("[1, 2]", |_| Err(stop)), Err(stop));

        let text = r#"{"b": "x", "\u0061": [1], "b": 2}"#;
        let mut entries = Vec::new();
        scanner.scan_entries(text, |key, at, v| Ok(entries.push((key, at, v.kind)))).unwrap();
        // In the order written, keys unescaped, duplicates left to the caller.
        assert_eq!(
            entries,
            [
                ("b".to_string(), 1, JsonKind::String),
                ("a".into(), 11, JsonKind::Array),
                ("b".into(), 26, JsonKind::Number)
            ]
        );
        for end in 0..text.len() {
            assert!(scanner.scan_entries(&text[..end], |_, _, _| Ok(())).is_err(), "{end}");
        }
        assert_eq!(
            scanner.scan_entries(r#"{"a": 1} 1"#, |_, _, _| Ok(())),
            Err(fault(9, "unexpected text after the object"))
        );
        assert_eq!(scanner.scan_entries(r#"{"a": 1}"#, |_, _, _| Err(stop)), Err(stop));
    }

    #[test]
    fn a_slot_past_the_given_ones_is_ignored_and_a_string_range_past_the_strings_is_empty() {
        let mut scanner = ObjectScanner::new();
        let mut slots = [None];
        assert_eq!(scanner.scan(r#"{"a": "xyz", "b": 1}"#, |k| (k == "a").then_some(5), &mut slots), Ok(()));
        assert_eq!(slots, [None]);
        assert_eq!(scanner.string(JsonValue { kind: JsonKind::String, start: 0, end: 9 }), "");
    }

    #[test]
    fn bad_json_names_the_offset() {
        for (line, offset, reason) in [
            ("[1]", 0, "expected '{'"),
            ("{\"a\" 1}", 5, "expected ':'"),
            ("{\"a\": 1,}", 8, "expected a key"),
            ("{\"a\": 01}", 7, "expected ','"),
            ("{\"a\": -}", 6, "invalid number"),
            ("{\"a\": 1.}", 6, "no digits after"),
            ("{\"a\": tru}", 6, "invalid literal"),
            ("{\"a\": \"x}", 6, "unterminated string"),
            ("{\"a\": \"\\x\"}", 7, "invalid escape"),
            ("{\"a\": \"\\ud800\"}", 7, "unpaired surrogate"),
            ("{\"a\": \"\t\"}", 7, "control character"),
            ("{\"a\": [1 2]}", 9, "expected ',' or ']'"),
            ("{\"a\": {\"b\" 2}}", 11, "expected ':'"),
            ("{\"a\": 1} x", 9, "unexpected text after"),
            ("{\"a\": 1, \"a\": 2}", 9, "duplicate key"),
            ("{\"a\": ", 6, "missing value"),
        ] {
            let err = scan(line, &["a"]).unwrap_err();
            assert_eq!(err.offset, offset, "{line}: {err}");
            assert!(err.reason.contains(reason), "{line}: {err}");
        }
        let deep = format!("{{\"a\": {}{}}}", "[".repeat(MAX_JSON_DEPTH + 1), "]".repeat(MAX_JSON_DEPTH + 1));
        assert!(scan(&deep, &["a"]).unwrap_err().reason.contains("too deep"));
        let ok_depth = format!("{{\"a\": {}{}}}", "[".repeat(MAX_JSON_DEPTH), "]".repeat(MAX_JSON_DEPTH));
        assert!(scan(&ok_depth, &["a"]).is_ok());
    }
}
