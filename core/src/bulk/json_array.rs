//! A JSON document that is one top-level array of objects (`[{...}, {...}]`, as many tools
//! export), read as a stream: each element is handed out as one record, the way
//! [`JsonlReader`] hands out a line, and then read by the same [`super::jsonl::ObjectScanner`].
//! Nothing but the element in progress is kept, so a document of any size loads in bounded
//! memory; an element past the size limit is reported with only its head kept, like a long
//! line.
//!
//! Finding an element's end needs only a nesting count and whether the scan is inside a
//! string (no recursion); the element itself is checked by the object scanner, whose depth is
//! capped. An element that is not an object becomes a bad row there. What is not an element
//! (text before the `[`, a missing comma, anything after the `]`) is a fault of the document:
//! the load stops there.

use std::fmt;

use super::jsonl::{JsonlLine, JsonlReader};
use super::record_buffer::{RawSource, RecordBuffer};

/// Where the reader is in the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Before the `[` (blanks and a byte order mark may come first).
    Start,
    /// After the `[` or a comma: an element (or, right after the `[`, the `]`) comes next.
    BeforeElement { first: bool },
    /// Inside an element.
    Element,
    /// After an element: a comma or the `]`.
    AfterElement,
    /// After the `]`: only blanks may follow.
    End,
}

/// Something in the document that is no element: the load cannot go on past it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrayFault {
    pub line: u64,
    pub offset: u64,
    pub reason: &'static str,
}

impl fmt::Display for ArrayFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JSON array at line {} (byte {}): {}", self.line, self.offset, self.reason)
    }
}

/// Splits a JSON array document into its elements. See the module documentation.
#[derive(Debug)]
pub struct JsonArrayReader {
    max_record: usize,
    /// Its `start` is where the element in progress begins.
    pub(super) buf: RecordBuffer,
    place: Place,
    /// 1-based line of the byte at `scan`.
    line: u64,
    element_line: u64,
    element_offset: u64,
    /// Arrays and objects open in the element; an element that is a scalar has none.
    depth: u64,
    in_string: bool,
    escaped: bool,
    /// The element passed the size limit: its head is kept, the rest dropped as scanned.
    discarding: bool,
    fault: Option<ArrayFault>,
}

fn is_blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

impl JsonArrayReader {
    /// `max_record_bytes` caps an element's size (at least 1).
    pub fn new(max_record_bytes: usize) -> Self {
        JsonArrayReader {
            max_record: max_record_bytes.max(1),
            buf: RecordBuffer::new(),
            place: Place::Start,
            line: 1,
            element_line: 1,
            element_offset: 0,
            depth: 0,
            in_string: false,
            escaped: false,
            discarding: false,
            fault: None,
        }
    }

    pub fn push(&mut self, chunk: &[u8]) {
        if self.buf.is_finished() {
            return;
        }
        self.release_current();
        if self.discarding {
            // Nothing of the element in progress is needed past its kept head.
            self.buf.start = self.buf.scan;
        }
        self.buf.append(chunk);
    }

    fn release_current(&mut self) {
        if self.buf.release_current() {
            self.buf.start = self.buf.scan;
        }
    }

    fn fail(&mut self, reason: &'static str) -> Option<Result<JsonlLine, ArrayFault>> {
        let fault = ArrayFault { line: self.line, offset: self.buf.scan_offset(), reason };
        self.fault = Some(fault.clone());
        Some(Err(fault))
    }

    /// The next element, `None` when more input is needed (or the document ended well), or
    /// the fault that ends the document.
    pub fn next_element(&mut self) -> Option<Result<JsonlLine, ArrayFault>> {
        if let Some(fault) = &self.fault {
            return Some(Err(fault.clone()));
        }
        self.release_current();
        loop {
            let Some(&c) = self.buf.unscanned().first() else {
                return self.at_end_of_input();
            };
            match self.place {
                Place::Start | Place::BeforeElement { .. } | Place::AfterElement | Place::End if is_blank(c) => {
                    self.advance(c);
                    self.buf.skip_to_scan();
                }
                Place::Start if c == 0xEF || c == 0xBB || c == 0xBF => {
                    // A UTF-8 byte order mark; anything else starting with these bytes fails
                    // at the `[` check below on its next byte.
                    if self.buf.scan_offset() >= 3 {
                        return self.fail("expected [ to open the array");
                    }
                    self.advance(c);
                    self.buf.skip_to_scan();
                }
                Place::Start if c == b'[' => {
                    self.advance(c);
                    self.buf.skip_to_scan();
                    self.place = Place::BeforeElement { first: true };
                }
                Place::Start => return self.fail("expected [ to open the array"),
                Place::BeforeElement { first: true } | Place::AfterElement if c == b']' => {
                    self.advance(c);
                    self.buf.skip_to_scan();
                    self.place = Place::End;
                }
                Place::BeforeElement { .. } if c == b',' || c == b']' => {
                    return self.fail("expected an element after the comma")
                }
                Place::BeforeElement { .. } => {
                    self.element_line = self.line;
                    self.element_offset = self.buf.scan_offset();
                    self.buf.start = self.buf.scan;
                    self.place = Place::Element;
                }
                Place::AfterElement if c == b',' => {
                    self.advance(c);
                    self.buf.skip_to_scan();
                    self.place = Place::BeforeElement { first: false };
                }
                Place::AfterElement => return self.fail("expected , or ] after an element"),
                Place::End => return self.fail("text after the array's closing ]"),
                Place::Element => {
                    if let Some(element) = self.scan_element() {
                        return Some(Ok(element));
                    }
                    if self.buf.unscanned().is_empty() {
                        return self.at_end_of_input();
                    }
                }
            }
        }
    }

    fn advance(&mut self, c: u8) {
        self.buf.scan += 1;
        if c == b'\n' {
            self.line += 1;
        }
    }

    /// Scans the element in progress; returns it once it ended.
    fn scan_element(&mut self) -> Option<JsonlLine> {
        while let Some(&c) = self.buf.unscanned().first() {
            if self.in_string {
                self.advance(c);
                if self.escaped {
                    self.escaped = false;
                } else if c == b'\\' {
                    self.escaped = true;
                } else if c == b'"' {
                    self.in_string = false;
                }
            } else {
                match c {
                    // A scalar element ends before the comma or bracket that follows it.
                    b',' | b']' if self.depth == 0 => return Some(self.element_ended()),
                    b'"' => self.in_string = true,
                    b'{' | b'[' => self.depth += 1,
                    // At depth 0 a `}` is unbalanced: the element ends with it, and the object
                    // scanner reports it as a bad row.
                    b'}' | b']' => {
                        self.depth = self.depth.saturating_sub(1);
                        if self.depth == 0 {
                            self.advance(c);
                            // The closing byte counts towards the limit too.
                            self.check_size();
                            return Some(self.element_ended());
                        }
                    }
                    _ => {}
                }
                self.advance(c);
            }
            self.check_size();
        }
        None
    }

    /// Past the size limit, keeps the element's head and drops the rest as it is scanned.
    fn check_size(&mut self) {
        if !self.discarding && self.buf.scan - self.buf.start > self.max_record {
            self.buf.keep_head(self.buf.scan, self.max_record);
            self.discarding = true;
        }
    }

    /// The element ends at `scan`: hands it out without the blanks around it.
    fn element_ended(&mut self) -> JsonlLine {
        self.place = Place::AfterElement;
        self.depth = 0;
        let line = self.element_line;
        let offset = self.element_offset;
        let end_offset = self.buf.scan_offset();
        if std::mem::take(&mut self.discarding) {
            let kept = self.buf.kept_len();
            self.buf.hand_out(RawSource::Kept);
            return JsonlLine { line, offset, end_offset, too_long: Some((self.max_record, kept)) };
        }
        let mut end = self.buf.scan;
        while end > self.buf.start && self.buf.input().get(end - 1).copied().is_some_and(is_blank) {
            end -= 1;
        }
        self.buf.hand_out(RawSource::Input(self.buf.start..end));
        JsonlLine { line, offset, end_offset, too_long: None }
    }

    fn at_end_of_input(&mut self) -> Option<Result<JsonlLine, ArrayFault>> {
        if !self.buf.is_finished() {
            return None;
        }
        match self.place {
            Place::End => None,
            Place::Start if self.buf.bytes_pushed() == self.buf.consumed_offset() && self.line == 1 => {
                // An empty file holds no rows.
                None
            }
            Place::Element if self.depth == 0 && !self.in_string => {
                // A scalar element cut by the end of input: the missing `]` is reported next.
                Some(Ok(self.element_ended()))
            }
            _ => self.fail("the input ended inside the array (no closing ])"),
        }
    }
}

/// The records of a JSON input: lines of JSON Lines, or the elements of a JSON array.
#[derive(Debug)]
pub enum JsonRecords {
    Lines(JsonlReader),
    Array(JsonArrayReader),
}

impl JsonRecords {
    pub fn push(&mut self, chunk: &[u8]) {
        match self {
            JsonRecords::Lines(reader) => reader.push(chunk),
            JsonRecords::Array(reader) => reader.push(chunk),
        }
    }

    /// The input buffer, which keeps the counts and the record last handed out.
    fn buf(&self) -> &RecordBuffer {
        match self {
            JsonRecords::Lines(reader) => &reader.buf,
            JsonRecords::Array(reader) => &reader.buf,
        }
    }

    pub fn finish(&mut self) {
        match self {
            JsonRecords::Lines(reader) => reader.buf.finish(),
            JsonRecords::Array(reader) => reader.buf.finish(),
        }
    }

    pub fn bytes_pushed(&self) -> u64 {
        self.buf().bytes_pushed()
    }

    pub fn consumed_offset(&self) -> u64 {
        self.buf().consumed_offset()
    }

    /// The record last returned (a line without its end, an element without the blanks
    /// around it).
    pub fn raw(&self) -> &[u8] {
        self.buf().raw()
    }

    /// The next record; `None` when more input is needed or none is left.
    pub fn next_record(&mut self) -> Option<Result<JsonlLine, ArrayFault>> {
        match self {
            JsonRecords::Lines(reader) => reader.next_line().map(Ok),
            JsonRecords::Array(reader) => reader.next_element(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element (or the fault) of `input` pushed in pieces of `cut` bytes.
    fn elements(input: &[u8], cut: usize, max: usize) -> Vec<Result<(String, u64, u64, u64), String>> {
        let mut reader = JsonArrayReader::new(max);
        let mut out = Vec::new();
        let take = |reader: &mut JsonArrayReader, out: &mut Vec<_>| loop {
            match reader.next_element() {
                None => return false,
                Some(Ok(e)) => {
                    let raw = String::from_utf8_lossy(reader.buf.raw()).into_owned();
                    out.push(Ok((raw, e.line, e.offset, e.end_offset)));
                }
                Some(Err(fault)) => {
                    out.push(Err(fault.to_string()));
                    return true;
                }
            }
        };
        for chunk in input.chunks(cut.max(1)) {
            reader.push(chunk);
            if take(&mut reader, &mut out) {
                return out;
            }
        }
        reader.buf.finish();
        take(&mut reader, &mut out);
        out
    }

    #[test]
    fn elements_come_out_whole_wherever_the_input_is_cut() {
        let input = b"\xEF\xBB\xBF [\n {\"a\": \"x,]}\\\"\", \"b\": [1, {\"c\": 2}]},\n  {\"a\":null} , 3 ]\n";
        let want = vec![
            Ok(("{\"a\": \"x,]}\\\"\", \"b\": [1, {\"c\": 2}]}".to_owned(), 2, 7, 42)),
            Ok(("{\"a\":null}".to_owned(), 3, 46, 56)),
            Ok(("3".to_owned(), 3, 59, 61)),
        ];
        for cut in 1..=input.len() {
            assert_eq!(elements(input, cut, 1 << 20), want, "cut {cut}");
        }
    }

    #[test]
    fn an_empty_array_and_an_empty_file_hold_no_rows() {
        assert_eq!(elements(b" [ ] ", 2, 100), vec![]);
        assert_eq!(elements(b"", 2, 100), vec![]);
    }

    #[test]
    fn what_is_no_element_ends_the_document_with_its_place() {
        let fault = |s: &str| Err::<(String, u64, u64, u64), String>(s.to_owned());
        assert_eq!(
            elements(b"{\"a\":1}", 3, 100),
            vec![fault("JSON array at line 1 (byte 0): expected [ to open the array")]
        );
        assert_eq!(
            elements(b"[{\"a\":1} {\"a\":2}]", 3, 100),
            vec![
                Ok(("{\"a\":1}".into(), 1, 1, 8)),
                fault("JSON array at line 1 (byte 9): expected , or ] after an element")
            ]
        );
        assert_eq!(
            elements(b"[1,,2]", 1, 100)[1],
            fault("JSON array at line 1 (byte 3): expected an element after the comma")
        );
        assert_eq!(
            elements(b"[1]\nx", 1, 100)[1],
            fault("JSON array at line 2 (byte 4): text after the array's closing ]")
        );
        assert_eq!(
            elements(b"[{\"a\": \"open", 4, 100),
            vec![fault("JSON array at line 1 (byte 12): the input ended inside the array (no closing ])")]
        );
    }

    #[test]
    fn the_input_ending_inside_an_element_or_string_is_a_fault() {
        let fault = |s: &str| Err::<(String, u64, u64, u64), String>(s.to_owned());
        let unclosed = "the input ended inside the array (no closing ])";
        // A scalar cut by the end of input comes out; the missing `]` is reported next.
        assert_eq!(
            elements(b"[12", 1, 100),
            vec![Ok(("12".into(), 1, 1, 3)), fault(&format!("JSON array at line 1 (byte 3): {unclosed}"))]
        );
        // A string at depth 0 is no scalar that ended.
        assert_eq!(elements(b"[\"ab", 1, 100), vec![fault(&format!("JSON array at line 1 (byte 4): {unclosed}"))]);
        // Blanks over more than one line are not an empty file.
        assert_eq!(elements(b" \n ", 1, 100), vec![fault(&format!("JSON array at line 2 (byte 3): {unclosed}"))]);
        assert_eq!(
            elements(b"[1,]", 1, 100)[1],
            fault("JSON array at line 1 (byte 3): expected an element after the comma")
        );
    }

    #[test]
    fn only_one_byte_order_mark_is_skipped() {
        assert_eq!(
            elements(b"\xEF\xBB\xBF\xEF\xBB\xBF[]", 1, 100),
            vec![Err("JSON array at line 1 (byte 3): expected [ to open the array".to_owned())]
        );
    }

    #[test]
    fn a_fault_is_returned_again_and_input_after_the_end_is_ignored() {
        let mut reader = JsonArrayReader::new(100);
        reader.push(b"x");
        let fault = ArrayFault { line: 1, offset: 0, reason: "expected [ to open the array" };
        assert_eq!(reader.next_element(), Some(Err(fault.clone())));
        assert_eq!(reader.next_element(), Some(Err(fault)));
        let mut records = JsonRecords::Array(JsonArrayReader::new(100));
        records.push(b"[{\"a\":1}, ");
        assert_eq!(records.next_record(), Some(Ok(JsonlLine { line: 1, offset: 1, end_offset: 8, too_long: None })));
        assert_eq!(records.raw(), b"{\"a\":1}");
        assert_eq!((records.bytes_pushed(), records.consumed_offset()), (10, 8));
        records.push(b"2");
        // Pushing ends access to the record last returned.
        assert_eq!(records.raw(), b"");
        records.finish();
        records.push(b"]");
        assert_eq!(records.next_record(), Some(Ok(JsonlLine { line: 1, offset: 10, end_offset: 11, too_long: None })));
        assert_eq!(records.raw(), b"2");
        let unclosed = ArrayFault { line: 1, offset: 11, reason: "the input ended inside the array (no closing ])" };
        assert_eq!(records.next_record(), Some(Err(unclosed)));
        assert_eq!((records.bytes_pushed(), records.consumed_offset()), (11, 11));
    }

    #[test]
    fn json_lines_records_are_the_lines() {
        let mut records = JsonRecords::Lines(JsonlReader::new(100));
        records.push(b"{}\n\n{\"b\":2}");
        assert_eq!(records.next_record(), Some(Ok(JsonlLine { line: 1, offset: 0, end_offset: 3, too_long: None })));
        assert_eq!(records.raw(), b"{}");
        assert_eq!(records.next_record(), None);
        records.finish();
        assert_eq!(records.next_record(), Some(Ok(JsonlLine { line: 3, offset: 4, end_offset: 11, too_long: None })));
        assert_eq!(records.raw(), b"{\"b\":2}");
        assert_eq!((records.bytes_pushed(), records.consumed_offset()), (11, 11));
    }

    #[test]
    fn an_element_exactly_at_the_limit_is_whole_and_one_byte_more_is_too_long() {
        assert_eq!(elements(b"[{\"a\":1}]", 1, 7), vec![Ok(("{\"a\":1}".into(), 1, 1, 8))]);
        let mut reader = JsonArrayReader::new(6);
        reader.push(b"[{\"a\":1}]");
        reader.buf.finish();
        assert_eq!(
            reader.next_element(),
            Some(Ok(JsonlLine { line: 1, offset: 1, end_offset: 8, too_long: Some((6, 6)) }))
        );
    }

    #[test]
    fn a_long_element_keeps_its_head_and_the_next_one_comes_out_whole() {
        let long = format!("{{\"a\": \"{}\"}}", "x".repeat(5000));
        let input = format!("[{long}, {{\"a\": 1}}]");
        for cut in [1, 7, 64, 10_000] {
            let mut reader = JsonArrayReader::new(100);
            let mut seen = Vec::new();
            for chunk in input.as_bytes().chunks(cut) {
                reader.push(chunk);
                while let Some(Ok(e)) = reader.next_element() {
                    seen.push((reader.buf.raw().len(), e.too_long));
                }
            }
            reader.buf.finish();
            while let Some(Ok(e)) = reader.next_element() {
                seen.push((reader.buf.raw().len(), e.too_long));
            }
            assert_eq!(seen, vec![(100, Some((100, 100))), (8, None)], "cut {cut}");
        }
    }
}
