//! A streaming RFC 4180 CSV tokenizer, fed chunks cut anywhere (inside a quoted field, a CRLF
//! or a UTF-8 character).
//!
//! [`CsvReader::push`] appends bytes, [`CsvReader::finish`] marks the end of input, and
//! [`CsvReader::next_record`] returns the next whole record, or `None` when it needs more
//! input (or, after `finish`, when everything is consumed). A record's raw bytes and fields
//! stay readable through [`CsvReader::raw`] and [`CsvReader::fields`] until the next call to
//! `next_record` or `push`. The state machine resumes where the last chunk ended, so each
//! input byte is scanned once however the input is cut.
//!
//! Rules:
//! - Records end at LF, CR or CRLF outside quotes. A CRLF split across chunks ends the record
//!   at the CR; the LF is then skipped. Completely empty lines are skipped, as are lines whose
//!   first byte is the comment character. A UTF-8 byte order mark at offset 0 is skipped.
//! - A field is quoted when its first byte (after blanks, when trimming) is the quote. Inside
//!   quotes, delimiters and line ends are data; a quote is written `""` when the escape is the
//!   quote itself, or `\"` with a separate escape byte (which also escapes itself; before any
//!   other byte it is kept as is). After the closing quote only blanks (when trimming), the
//!   delimiter or a line end may follow. Outside quotes every byte but the delimiter and line
//!   ends is data, including quotes in the middle of a field.
//! - Trimming drops spaces and tabs (unless the tab is the delimiter) around unquoted fields
//!   and around the quotes of quoted ones, never inside quotes.
//! - Each field remembers whether it was quoted, so that the caller can tell `,,` (an
//!   unquoted empty field) from `,"",` (a quoted empty string).
//! - A record longer than [`CsvOptions::max_record_bytes`] is reported as bad once it ends,
//!   with only its first bytes kept ([`OVERSIZED_RAW_KEPT`] at most); the rest is scanned
//!   (quotes still count, to find the real end of the record) and dropped as it arrives, so
//!   memory stays bounded by the cap plus one chunk. Line numbers and offsets stay exact.

use std::fmt;

use super::record_buffer::{RawSource, RecordBuffer};

/// The default cap on one record's raw size.
pub const DEFAULT_MAX_RECORD_BYTES: usize = 64 << 20;
/// The most fields one record may have: a bound statement has at most 65535 values, and the
/// cap keeps a record of nothing but delimiters from costing a span per byte.
pub const MAX_FIELDS: usize = 65_536;
/// How much of an oversized record is kept for the bad file.
pub const OVERSIZED_RAW_KEPT: usize = 1 << 20;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// How to read CSV.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvOptions {
    /// Any ASCII byte but CR, LF and the quote: `,` `\t` `|` `;`.
    pub delimiter: u8,
    pub quote: u8,
    /// Escapes a quote inside a quoted field. Equal to `quote` (the default) for RFC 4180's
    /// `""`; or e.g. `\` for `\"`.
    pub escape: u8,
    /// Lines starting with this byte are skipped.
    pub comment: Option<u8>,
    /// Whether the first record names the fields. The tokenizer itself returns it like any
    /// other record; the bulk encoder maps columns by it.
    pub header: bool,
    /// Drop blanks around fields.
    pub trim: bool,
    /// Records longer than this (in raw bytes, line end excluded) are bad.
    pub max_record_bytes: usize,
}

impl Default for CsvOptions {
    fn default() -> Self {
        CsvOptions {
            delimiter: b',',
            quote: b'"',
            escape: b'"',
            comment: None,
            header: true,
            trim: false,
            max_record_bytes: DEFAULT_MAX_RECORD_BYTES,
        }
    }
}

impl CsvOptions {
    /// Checks that the special bytes are usable and distinct.
    pub fn validate(&self) -> Result<(), String> {
        let specials =
            [("delimiter", Some(self.delimiter)), ("quote", Some(self.quote)), ("escape", Some(self.escape))];
        for (name, byte) in specials.iter().chain(&[("comment", self.comment)]) {
            if let Some(b) = byte {
                if !b.is_ascii() || *b == b'\r' || *b == b'\n' {
                    return Err(format!("the CSV {name} must be an ASCII byte other than CR and LF, not 0x{b:02x}"));
                }
            }
        }
        if self.delimiter == self.quote {
            return Err("the CSV delimiter and quote must differ".into());
        }
        if self.delimiter == self.escape {
            return Err("the CSV delimiter and escape must differ".into());
        }
        if let Some(c) = self.comment {
            if c == self.delimiter || c == self.quote {
                return Err("the CSV comment character must differ from the delimiter and the quote".into());
            }
        }
        if self.max_record_bytes == 0 {
            return Err("the CSV record size limit must be at least 1 byte".into());
        }
        Ok(())
    }
}

/// One field of the current record: `start..end` in the reader's field buffer (quotes and
/// escapes already removed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldSpan {
    pub start: usize,
    pub end: usize,
    pub quoted: bool,
}

/// Why a record is bad.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CsvFault {
    /// The record's raw size passed the limit; only its first `kept` bytes are in `raw`.
    TooLong {
        limit: usize,
        kept: usize,
    },
    TooManyFields {
        limit: usize,
    },
    /// Input ended inside the quoted field `field` (0-based).
    UnterminatedQuote {
        field: usize,
    },
    /// Something other than a delimiter or line end followed the closing quote of field
    /// `field`, at absolute byte `offset`.
    TextAfterClosingQuote {
        field: usize,
        offset: u64,
    },
}

impl CsvFault {
    /// The 0-based field the fault is in, when it is in one.
    pub fn field(&self) -> Option<usize> {
        match *self {
            CsvFault::UnterminatedQuote { field } | CsvFault::TextAfterClosingQuote { field, .. } => Some(field),
            CsvFault::TooLong { .. } | CsvFault::TooManyFields { .. } => None,
        }
    }
}

impl fmt::Display for CsvFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            CsvFault::TooLong { limit, kept } => {
                write!(f, "record exceeds {limit} bytes (only its first {kept} bytes are kept)")
            }
            CsvFault::TooManyFields { limit } => write!(f, "record has more than {limit} fields"),
            CsvFault::UnterminatedQuote { field } => {
                write!(f, "unterminated quoted field {} at end of input", field + 1)
            }
            CsvFault::TextAfterClosingQuote { field, offset } => {
                write!(f, "unexpected text after the closing quote of field {} at byte {offset}", field + 1)
            }
        }
    }
}

/// A record found by [`CsvReader::next_record`]. Its raw bytes and fields are read from the
/// reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CsvRecord {
    /// 1-based line where the record starts.
    pub line: u64,
    /// Absolute byte offset of the record's first byte.
    pub offset: u64,
    /// Absolute byte offset just past the record's line end (or the end of input).
    pub end_offset: u64,
    /// Set when the record is bad; its fields are then incomplete.
    pub fault: Option<CsvFault>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between records: skips blank lines, comments and the byte order mark.
    RecordStart,
    FieldStart,
    Unquoted,
    Quoted,
    /// A quote inside a quoted field whose escape is the quote: a doubled quote or the end.
    QuotedQuote,
    /// The escape byte inside a quoted field (escape differs from the quote).
    QuotedEscape,
    AfterQuoted,
    Comment,
}

/// The tokenizer. See the module documentation.
#[derive(Debug)]
pub struct CsvReader {
    opts: CsvOptions,
    /// Its `start` is where the record in progress, or the text skipped before it, begins.
    buf: RecordBuffer,
    record_offset: u64,
    record_line: u64,
    line: u64,
    last_was_cr: bool,
    state: State,
    field_buf: Vec<u8>,
    spans: Vec<FieldSpan>,
    field_start: usize,
    field_quoted: bool,
    fault: Option<CsvFault>,
    /// Past the size limit: scanning for the record's end without keeping anything.
    discarding: bool,
    bom_checked: bool,
}

fn is_blank(b: u8, delimiter: u8) -> bool {
    (b == b' ' || b == b'\t') && b != delimiter
}

impl CsvReader {
    pub fn new(opts: CsvOptions) -> Result<Self, String> {
        opts.validate()?;
        Ok(CsvReader {
            opts,
            buf: RecordBuffer::new(),
            record_offset: 0,
            record_line: 1,
            line: 1,
            last_was_cr: false,
            state: State::RecordStart,
            field_buf: Vec::new(),
            spans: Vec::new(),
            field_start: 0,
            field_quoted: false,
            fault: None,
            discarding: false,
            bom_checked: false,
        })
    }

    pub fn options(&self) -> &CsvOptions {
        &self.opts
    }

    /// Appends input. Ignored after [`CsvReader::finish`]. Ends access to the current record.
    pub fn push(&mut self, chunk: &[u8]) {
        if self.buf.is_finished() {
            return;
        }
        self.buf.release_current();
        if self.state == State::RecordStart {
            self.buf.start = self.buf.scan;
        }
        self.buf.append(chunk);
    }

    /// Marks the end of input: a last record without a line end is complete, and an open
    /// quote is an error.
    pub fn finish(&mut self) {
        self.buf.finish();
    }

    pub fn is_finished(&self) -> bool {
        self.buf.is_finished()
    }

    /// Bytes pushed so far.
    pub fn bytes_pushed(&self) -> u64 {
        self.buf.bytes_pushed()
    }

    /// The absolute offset up to which input has been returned as records or skipped (blank
    /// lines, comments, the byte order mark): where a restart would begin.
    pub fn consumed_offset(&self) -> u64 {
        self.buf.consumed_offset()
    }

    /// The raw bytes of the record last returned, line end excluded (for a record that was
    /// too long, only its first bytes). Empty once `next_record` or `push` is called again.
    pub fn raw(&self) -> &[u8] {
        self.buf.raw()
    }

    /// The fields of the record last returned.
    pub fn fields(&self) -> &[FieldSpan] {
        if self.buf.is_current() {
            &self.spans
        } else {
            &[]
        }
    }

    /// The text of one field of the record last returned.
    pub fn field_bytes(&self, span: FieldSpan) -> &[u8] {
        self.field_buf.get(span.start..span.end).unwrap_or(&[])
    }

    /// Field `index` of the record last returned.
    pub fn field(&self, index: usize) -> Option<&[u8]> {
        self.fields().get(index).map(|span| self.field_bytes(*span))
    }

    /// The next record, or `None` when more input is needed (or none is left after
    /// [`CsvReader::finish`]).
    pub fn next_record(&mut self) -> Option<CsvRecord> {
        self.buf.release_current();
        if self.state == State::RecordStart {
            // The record last returned is no longer needed.
            self.buf.start = self.buf.scan;
        }
        let delimiter = self.opts.delimiter;
        let quote = self.opts.quote;
        let escape = self.opts.escape;
        loop {
            let in_record = !matches!(self.state, State::RecordStart | State::Comment);
            if in_record && !self.discarding && self.buf.scan_offset() - self.record_offset > self.max_record() {
                self.begin_discard();
            }
            let Some(&b) = self.buf.unscanned().first() else {
                return self.out_of_input();
            };
            match self.state {
                State::RecordStart => {
                    if !self.bom_checked {
                        if self.buf.scan_offset() != 0 {
                            self.bom_checked = true;
                        } else {
                            let available = self.buf.unscanned();
                            if available.starts_with(UTF8_BOM) {
                                self.bom_checked = true;
                                self.buf.scan += UTF8_BOM.len();
                                self.buf.skip_to_scan();
                                continue;
                            }
                            if UTF8_BOM.starts_with(available) && !self.buf.is_finished() {
                                return None;
                            }
                            self.bom_checked = true;
                        }
                    }
                    match b {
                        b'\n' => {
                            if !self.last_was_cr {
                                self.line += 1;
                            }
                            self.last_was_cr = false;
                            self.buf.scan += 1;
                            self.buf.skip_to_scan();
                        }
                        b'\r' => {
                            self.line += 1;
                            self.last_was_cr = true;
                            self.buf.scan += 1;
                            self.buf.skip_to_scan();
                        }
                        // The comment state skips to the line end from here: the comment byte
                        // is never one.
                        _ if Some(b) == self.opts.comment => {
                            self.state = State::Comment;
                            self.last_was_cr = false;
                        }
                        _ => self.begin_record(),
                    }
                }
                State::Comment => {
                    let rest = self.buf.unscanned();
                    match rest.iter().position(|&c| c == b'\n' || c == b'\r') {
                        // The line end is then handled as a blank line's.
                        Some(i) => {
                            self.buf.scan += i;
                            self.state = State::RecordStart;
                        }
                        None => self.buf.scan = self.buf.input().len(),
                    }
                }
                State::FieldStart => {
                    self.last_was_cr = false;
                    // A line end here ends an empty field: the unquoted state does that.
                    if b == delimiter {
                        self.end_field();
                        self.buf.scan += 1;
                    } else if b == quote {
                        self.field_quoted = true;
                        self.state = State::Quoted;
                        self.buf.scan += 1;
                    } else if self.opts.trim && is_blank(b, delimiter) {
                        self.buf.scan += 1;
                    } else {
                        self.state = State::Unquoted;
                    }
                }
                State::Unquoted => {
                    let budget = self.budget();
                    let rest = self.buf.unscanned();
                    let window = &rest[..rest.len().min(budget)];
                    let stop = window.iter().position(|&c| c == delimiter || c == b'\n' || c == b'\r');
                    let run = stop.unwrap_or(window.len());
                    let stop_byte = stop.and_then(|i| rest.get(i).copied());
                    self.take_run(run);
                    if let Some(c) = stop_byte {
                        self.end_field();
                        if c == delimiter {
                            self.buf.scan += 1;
                            self.state = State::FieldStart;
                        } else {
                            return Some(self.end_record(c));
                        }
                    }
                }
                State::Quoted => {
                    let budget = self.budget();
                    let rest = self.buf.unscanned();
                    let window = &rest[..rest.len().min(budget)];
                    let stop = window.iter().position(|&c| c == quote || c == escape || c == b'\n' || c == b'\r');
                    let run = stop.unwrap_or(window.len());
                    let stop_byte = stop.and_then(|i| rest.get(i).copied());
                    self.take_run(run);
                    if let Some(c) = stop_byte {
                        self.buf.scan += 1;
                        if c == quote {
                            self.last_was_cr = false;
                            self.state = if escape == quote { State::QuotedQuote } else { State::AfterQuoted };
                        } else if c == escape {
                            self.last_was_cr = false;
                            self.state = State::QuotedEscape;
                        } else {
                            if c == b'\r' || !self.last_was_cr {
                                self.line += 1;
                            }
                            self.last_was_cr = c == b'\r';
                            self.push_field_byte(c);
                        }
                    }
                }
                State::QuotedQuote => {
                    if b == quote {
                        self.push_field_byte(quote);
                        self.buf.scan += 1;
                        self.state = State::Quoted;
                    } else {
                        self.state = State::AfterQuoted;
                    }
                }
                State::QuotedEscape => {
                    if b == quote || b == escape {
                        self.push_field_byte(b);
                        self.buf.scan += 1;
                    } else {
                        self.push_field_byte(escape);
                    }
                    self.state = State::Quoted;
                }
                State::AfterQuoted => {
                    if b == delimiter {
                        self.end_field();
                        self.buf.scan += 1;
                        self.state = State::FieldStart;
                    } else if b == b'\n' || b == b'\r' {
                        self.end_field();
                        return Some(self.end_record(b));
                    } else if self.opts.trim && is_blank(b, delimiter) {
                        self.buf.scan += 1;
                    } else {
                        if self.fault.is_none() {
                            let offset = self.buf.scan_offset();
                            self.fault = Some(CsvFault::TextAfterClosingQuote { field: self.spans.len(), offset });
                        }
                        self.state = State::Unquoted;
                    }
                }
            }
        }
    }

    fn max_record(&self) -> u64 {
        self.opts.max_record_bytes as u64
    }

    /// How many more bytes the record may take before it is one too many.
    fn budget(&self) -> usize {
        if self.discarding {
            return usize::MAX;
        }
        let used = self.buf.scan_offset() - self.record_offset;
        usize::try_from(self.max_record() + 1 - used.min(self.max_record())).unwrap_or(usize::MAX)
    }

    /// Consumes `len` data bytes at `scan` (no delimiter, quote or line end among them).
    fn take_run(&mut self, len: usize) {
        if len == 0 {
            return;
        }
        if !self.discarding {
            if let Some(bytes) = self.buf.unscanned().get(..len) {
                self.field_buf.extend_from_slice(bytes);
            }
        }
        self.buf.scan += len;
        self.last_was_cr = false;
    }

    fn push_field_byte(&mut self, b: u8) {
        if !self.discarding {
            self.field_buf.push(b);
        }
    }

    fn begin_record(&mut self) {
        self.buf.start = self.buf.scan;
        self.record_offset = self.buf.scan_offset();
        self.record_line = self.line;
        self.field_buf.clear();
        self.spans.clear();
        self.field_start = 0;
        self.field_quoted = false;
        self.fault = None;
        self.state = State::FieldStart;
    }

    fn end_field(&mut self) {
        if self.discarding {
            return;
        }
        if self.spans.len() >= MAX_FIELDS {
            self.fault.get_or_insert(CsvFault::TooManyFields { limit: MAX_FIELDS });
            self.field_buf.truncate(self.field_start);
            self.field_quoted = false;
            return;
        }
        let mut end = self.field_buf.len();
        if self.opts.trim && !self.field_quoted {
            while end > self.field_start
                && self.field_buf.get(end - 1).is_some_and(|&c| is_blank(c, self.opts.delimiter))
            {
                end -= 1;
            }
            self.field_buf.truncate(end);
        }
        self.spans.push(FieldSpan { start: self.field_start, end, quoted: self.field_quoted });
        self.field_start = end;
        self.field_quoted = false;
    }

    /// Ends the record at the line end byte `c` (at `scan`).
    fn end_record(&mut self, c: u8) -> CsvRecord {
        self.line += 1;
        self.last_was_cr = c == b'\r';
        let raw_end = self.buf.scan;
        self.buf.scan += 1;
        self.complete(raw_end)
    }

    fn complete(&mut self, raw_end: usize) -> CsvRecord {
        let (raw, fault) = if self.discarding {
            let kept = self.buf.kept_len();
            (RawSource::Kept, Some(CsvFault::TooLong { limit: self.opts.max_record_bytes, kept }))
        } else {
            (RawSource::Input(self.buf.start..raw_end), self.fault.take())
        };
        self.discarding = false;
        self.state = State::RecordStart;
        // `start` moves past this record only when the next one begins or input is pushed, so
        // that `raw` stays readable until then.
        self.buf.hand_out(raw);
        let end_offset = self.buf.scan_offset();
        CsvRecord { line: self.record_line, offset: self.record_offset, end_offset, fault }
    }

    fn begin_discard(&mut self) {
        self.buf.keep_head(self.buf.scan, self.opts.max_record_bytes);
        self.discarding = true;
        self.field_buf.clear();
        // Give back what the oversized record made the buffers grow to.
        self.field_buf.shrink_to(OVERSIZED_RAW_KEPT);
        self.spans.clear();
        self.spans.shrink_to(1024);
        self.buf.start = self.buf.scan;
    }

    fn out_of_input(&mut self) -> Option<CsvRecord> {
        if self.discarding || self.state == State::Comment {
            // Nothing scanned so far will be needed again.
            self.buf.start = self.buf.scan;
        }
        if !self.buf.is_finished() {
            return None;
        }
        match self.state {
            State::RecordStart | State::Comment => {
                self.buf.skip_to_scan();
                None
            }
            State::Quoted | State::QuotedEscape => {
                if self.fault.is_none() {
                    self.fault = Some(CsvFault::UnterminatedQuote { field: self.spans.len() });
                }
                Some(self.complete(self.buf.scan))
            }
            State::FieldStart | State::Unquoted | State::QuotedQuote | State::AfterQuoted => {
                self.end_field();
                Some(self.complete(self.buf.scan))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every record of `input`, fed in pieces of `chunk` bytes, as (line, offset,
    /// end_offset, fields as (text, quoted), raw, fault).
    type Parsed = (u64, u64, u64, Vec<(String, bool)>, Vec<u8>, Option<CsvFault>);

    fn parse(opts: &CsvOptions, input: &[u8], chunk: usize) -> Vec<Parsed> {
        let mut reader = CsvReader::new(opts.clone()).unwrap();
        let mut out = Vec::new();
        let mut drain = |reader: &mut CsvReader| {
            while let Some(rec) = reader.next_record() {
                let fields = reader
                    .fields()
                    .iter()
                    .map(|s| (String::from_utf8_lossy(reader.field_bytes(*s)).into_owned(), s.quoted))
                    .collect();
                out.push((rec.line, rec.offset, rec.end_offset, fields, reader.raw().to_vec(), rec.fault));
            }
        };
        for piece in input.chunks(chunk.max(1)) {
            reader.push(piece);
            drain(&mut reader);
        }
        reader.finish();
        drain(&mut reader);
        assert_eq!(reader.consumed_offset(), input.len() as u64);
        out
    }

    fn all_ways(opts: &CsvOptions, input: &[u8]) -> Vec<Parsed> {
        let whole = parse(opts, input, usize::MAX);
        for chunk in 1..8 {
            assert_eq!(parse(opts, input, chunk), whole, "chunk size {chunk} on {:?}", String::from_utf8_lossy(input));
        }
        whole
    }

    fn fields(opts: &CsvOptions, input: &str) -> Vec<Vec<(String, bool)>> {
        all_ways(opts, input.as_bytes()).into_iter().map(|r| r.3).collect()
    }

    fn plain(rows: &[&[&str]]) -> Vec<Vec<(String, bool)>> {
        rows.iter().map(|r| r.iter().map(|f| ((*f).to_owned(), false)).collect()).collect()
    }

    #[test]
    fn simple_records_with_each_line_end() {
        let opts = CsvOptions::default();
        for input in ["a,b\nc,d\n", "a,b\r\nc,d\r\n", "a,b\rc,d\r", "a,b\nc,d"] {
            assert_eq!(fields(&opts, input), plain(&[&["a", "b"], &["c", "d"]]), "{input:?}");
        }
        let recs = all_ways(&opts, b"a,b\r\nc,d\r\n");
        assert_eq!((recs[0].0, recs[0].1, recs[0].2), (1, 0, 4));
        // The LF of a CRLF is skipped before the next record, which starts after it.
        assert_eq!((recs[1].0, recs[1].1, recs[1].2), (2, 5, 9));
        assert_eq!(recs[0].4, b"a,b");
    }

    #[test]
    fn quoted_fields_hold_delimiters_line_ends_and_quotes() {
        let opts = CsvOptions::default();
        let recs = all_ways(&opts, b"\"a,b\",\"say \"\"hi\"\"\",\"x\r\ny\"\nnext,\"\"\n");
        assert_eq!(recs[0].3, vec![("a,b".into(), true), ("say \"hi\"".into(), true), ("x\r\ny".into(), true)]);
        assert_eq!(recs[0].4, b"\"a,b\",\"say \"\"hi\"\"\",\"x\r\ny\"");
        assert_eq!(recs[1].0, 3, "the CRLF inside quotes counts as one line");
        assert_eq!(recs[1].3, vec![("next".into(), false), (String::new(), true)]);
    }

    #[test]
    fn line_ends_inside_and_right_after_quotes() {
        let opts = CsvOptions::default();
        // A lone LF and two CRs inside quotes are three lines; a CR after a closing quote ends
        // the record.
        let recs = all_ways(&opts, b"\"a\nb\",\"c\r\rd\"\r\"z\"\r");
        assert_eq!(recs.iter().map(|r| (r.0, r.1, r.2)).collect::<Vec<_>>(), vec![(1, 0, 13), (5, 13, 17)]);
        assert_eq!(recs[0].3, vec![("a\nb".into(), true), ("c\r\rd".into(), true)]);
        assert_eq!(recs[1].3, vec![("z".into(), true)]);
        // Without trimming, a blank after the closing quote is text.
        let recs = all_ways(&opts, b"\"a\" ,b\n");
        assert_eq!(recs[0].5, Some(CsvFault::TextAfterClosingQuote { field: 0, offset: 3 }));
        assert_eq!(recs[0].3, vec![("a ".into(), true), ("b".into(), false)]);
    }

    #[test]
    fn backslash_escape() {
        let opts = CsvOptions { escape: b'\\', ..CsvOptions::default() };
        let got = fields(&opts, "\"a\\\"b\",\"c\\\\d\",\"e\\nf\",g\\h\n");
        assert_eq!(
            got,
            vec![vec![("a\"b".into(), true), ("c\\d".into(), true), ("e\\nf".into(), true), ("g\\h".into(), false)]]
        );
    }

    #[test]
    fn empty_and_quoted_empty_fields_differ() {
        let got = fields(&CsvOptions::default(), ",\"\",\n");
        assert_eq!(got, vec![vec![(String::new(), false), (String::new(), true), (String::new(), false)]]);
    }

    #[test]
    fn blank_lines_comments_and_bom_are_skipped() {
        let opts = CsvOptions { comment: Some(b'#'), ..CsvOptions::default() };
        let recs = all_ways(&opts, "\u{FEFF}a\n\n# note, \"unbalanced\n\r\nb\r\n#last".as_bytes());
        assert_eq!(
            recs.iter().map(|r| (r.0, r.1, r.3.clone())).collect::<Vec<_>>(),
            vec![(1, 3, vec![("a".into(), false)]), (5, 28, vec![("b".into(), false)])]
        );
        // A BOM anywhere else is data.
        assert_eq!(fields(&CsvOptions::default(), "a\n\u{FEFF}b\n")[1], vec![("\u{FEFF}b".into(), false)]);
        // A lone first byte of a BOM at the end of input is data too.
        assert_eq!(all_ways(&CsvOptions::default(), b"\xEF")[0].4, b"\xEF");
    }

    #[test]
    fn trimming() {
        let opts = CsvOptions { trim: true, ..CsvOptions::default() };
        assert_eq!(
            fields(&opts, "  a  , \" b \" ,c\t\n"),
            vec![vec![("a".into(), false), (" b ".into(), true), ("c".into(), false)]]
        );
        let untrimmed = fields(&CsvOptions::default(), "  a  , \" b \"\n");
        assert_eq!(untrimmed, vec![vec![("  a  ".into(), false), (" \" b \"".into(), false)]]);
        // With a tab delimiter, tabs separate fields even when trimming.
        let tsv = CsvOptions { delimiter: b'\t', trim: true, ..CsvOptions::default() };
        assert_eq!(fields(&tsv, " a \t\tb\n"), plain(&[&["a", "", "b"]]));
    }

    #[test]
    fn trimming_a_blank_field_stops_at_its_start() {
        let opts = CsvOptions { trim: true, ..CsvOptions::default() };
        assert_eq!(
            fields(&opts, "\" a \",  ,\t\n"),
            vec![vec![(" a ".into(), true), (String::new(), false), (String::new(), false)]]
        );
    }

    #[test]
    fn a_record_may_have_max_fields_and_not_one_more() {
        let opts = CsvOptions::default();
        let at_cap = ",".repeat(MAX_FIELDS - 1);
        let recs = parse(&opts, format!("{at_cap}\n").as_bytes(), usize::MAX);
        assert_eq!((recs[0].3.len(), recs[0].5), (MAX_FIELDS, None));
        let recs = parse(&opts, format!("{at_cap},x\ny\n").as_bytes(), usize::MAX);
        assert_eq!((recs[0].3.len(), recs[0].5), (MAX_FIELDS, Some(CsvFault::TooManyFields { limit: MAX_FIELDS })));
        assert_eq!(recs[1].3, plain(&[&["y"]])[0]);
    }

    #[test]
    fn other_delimiters() {
        for d in [b'\t', b'|', b';'] {
            let opts = CsvOptions { delimiter: d, ..CsvOptions::default() };
            let d = d as char;
            let input = format!("a{d}\"b{d}c\"{d}\n");
            assert_eq!(
                fields(&opts, &input),
                vec![vec![("a".into(), false), (format!("b{d}c"), true), (String::new(), false)]]
            );
        }
    }

    #[test]
    fn unterminated_quote_and_text_after_quote_are_faults() {
        let recs = all_ways(&CsvOptions::default(), b"a,\"b\nc");
        assert_eq!(recs.len(), 1);
        assert_eq!(recs[0].5, Some(CsvFault::UnterminatedQuote { field: 1 }));
        assert_eq!(recs[0].4, b"a,\"b\nc");
        let recs = all_ways(&CsvOptions::default(), b"\"a\"x,b\nc\n");
        assert_eq!(recs[0].5, Some(CsvFault::TextAfterClosingQuote { field: 0, offset: 3 }));
        assert_eq!(recs[1].3, plain(&[&["c"]])[0]);
    }

    #[test]
    fn oversized_records_resynchronise_after_their_line_end() {
        let opts = CsvOptions { max_record_bytes: 10, ..CsvOptions::default() };
        let input = b"ok\n0123456789ABCDEF,\"quoted\nnewline\"\nnext\n0123456789\n";
        let recs = all_ways(&opts, input);
        assert_eq!(recs.len(), 4);
        assert_eq!(recs[0].3, plain(&[&["ok"]])[0]);
        assert_eq!(recs[1].5, Some(CsvFault::TooLong { limit: 10, kept: 10 }));
        assert_eq!(recs[1].4, b"0123456789");
        assert_eq!((recs[1].0, recs[1].1, recs[1].2), (2, 3, 37));
        assert_eq!((recs[2].0, recs[2].3.clone()), (4, plain(&[&["next"]])[0].clone()));
        // Exactly at the limit is fine.
        assert_eq!(recs[3].3, plain(&[&["0123456789"]])[0]);
    }

    #[test]
    fn the_reader_reports_its_options_input_and_end() {
        let opts = CsvOptions { delimiter: b';', ..CsvOptions::default() };
        let mut reader = CsvReader::new(opts.clone()).unwrap();
        assert_eq!(reader.options(), &opts);
        assert!(!reader.is_finished());
        reader.push(b"a;b\n");
        assert!(reader.next_record().is_some());
        assert_eq!((reader.field(0), reader.field(1), reader.field(2)), (Some(&b"a"[..]), Some(&b"b"[..]), None));
        reader.push(b"c");
        assert_eq!(reader.bytes_pushed(), 5);
        // Pushing ends access to the record last returned.
        assert_eq!(reader.field(0), None);
        reader.finish();
        assert!(reader.is_finished());
        // Input after the end is ignored.
        reader.push(b"more");
        assert_eq!(reader.bytes_pushed(), 5);
    }

    #[test]
    fn a_long_comment_or_oversized_record_is_not_kept_while_it_streams_in() {
        let opts = CsvOptions { comment: Some(b'#'), max_record_bytes: 8, ..CsvOptions::default() };
        let mut reader = CsvReader::new(opts).unwrap();
        for start in [&b"#"[..], b"\nx"] {
            reader.push(start);
            assert_eq!(reader.next_record(), None);
            for _ in 0..100 {
                reader.push(b"0123456789");
                assert_eq!(reader.next_record(), None);
                // Only the last chunk is held (plus the oversized record's kept head).
                assert!(reader.buf.input().len() <= 11, "{} bytes held", reader.buf.input().len());
            }
        }
        reader.push(b"\n");
        let rec = reader.next_record().unwrap();
        assert_eq!((rec.line, rec.offset, rec.end_offset), (2, 1002, 2004));
        assert_eq!((rec.fault, reader.raw()), (Some(CsvFault::TooLong { limit: 8, kept: 8 }), &b"x0123456"[..]));
    }

    #[test]
    fn options_are_checked() {
        let bad = [
            (CsvOptions { delimiter: b'"', ..CsvOptions::default() }, "the CSV delimiter and quote must differ"),
            (
                CsvOptions { delimiter: b'\n', ..CsvOptions::default() },
                "the CSV delimiter must be an ASCII byte other than CR and LF, not 0x0a",
            ),
            (
                CsvOptions { quote: 0xC3, ..CsvOptions::default() },
                "the CSV quote must be an ASCII byte other than CR and LF, not 0xc3",
            ),
            (
                CsvOptions { comment: Some(b','), ..CsvOptions::default() },
                "the CSV comment character must differ from the delimiter and the quote",
            ),
            (
                CsvOptions { max_record_bytes: 0, ..CsvOptions::default() },
                "the CSV record size limit must be at least 1 byte",
            ),
        ];
        for (opts, reason) in bad {
            assert_eq!(CsvReader::new(opts.clone()).err().as_deref(), Some(reason), "{opts:?}");
        }
    }
}
