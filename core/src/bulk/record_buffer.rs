//! The input buffer shared by the CSV and JSON Lines readers.
//!
//! Both readers are fed chunks cut anywhere and hand out records that borrow the buffer, so
//! both must keep the record in progress across pushes, drop everything before it (memory
//! stays bounded however long the input), and keep counting offsets in the whole input. The
//! readers own the scanning; this owns the bytes and the bookkeeping around them.

use std::ops::Range;

use super::csv::OVERSIZED_RAW_KEPT;

/// Where the raw bytes of the record last handed out live: an oversized record's head had to
/// be copied out, because its start was dropped from the input while scanning for its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum RawSource {
    Input(Range<usize>),
    Kept,
}

#[derive(Debug)]
pub(super) struct RecordBuffer {
    /// From `start`: the record in progress, then the bytes not scanned yet.
    input: Vec<u8>,
    /// Absolute offset of `input[0]`, so that offsets survive the draining of `input`.
    base: u64,
    /// The reader's position in `input`.
    pub(super) scan: usize,
    /// Where in `input` the record in progress starts; nothing before it is needed again.
    pub(super) start: usize,
    kept: Vec<u8>,
    raw: RawSource,
    /// Whether `raw` describes the record last handed out: a push or the search for the next
    /// record may move or drop its bytes.
    current: bool,
    eof: bool,
    consumed: u64,
    pushed: u64,
}

impl RecordBuffer {
    pub(super) fn new() -> Self {
        RecordBuffer {
            input: Vec::new(),
            base: 0,
            scan: 0,
            start: 0,
            kept: Vec::new(),
            raw: RawSource::Input(0..0),
            current: false,
            eof: false,
            consumed: 0,
            pushed: 0,
        }
    }

    /// Appends a chunk after dropping what lies before `start`: it was all handed out or
    /// skipped, and keeping it would make memory grow with the input.
    pub(super) fn append(&mut self, chunk: &[u8]) {
        self.input.drain(..self.start);
        self.base += self.start as u64;
        self.scan -= self.start;
        self.start = 0;
        self.input.extend_from_slice(chunk);
        self.pushed += chunk.len() as u64;
    }

    pub(super) fn input(&self) -> &[u8] {
        &self.input
    }

    pub(super) fn unscanned(&self) -> &[u8] {
        self.input.get(self.scan..).unwrap_or(&[])
    }

    pub(super) fn absolute(&self, index: usize) -> u64 {
        self.base + index as u64
    }

    pub(super) fn scan_offset(&self) -> u64 {
        self.absolute(self.scan)
    }

    pub(super) fn finish(&mut self) {
        self.eof = true;
    }

    pub(super) fn is_finished(&self) -> bool {
        self.eof
    }

    pub(super) fn bytes_pushed(&self) -> u64 {
        self.pushed
    }

    pub(super) fn consumed_offset(&self) -> u64 {
        self.consumed
    }

    /// Everything scanned so far lies between records (blank lines, comments, a byte order
    /// mark): it will not be needed again, and a restart may begin after it.
    pub(super) fn skip_to_scan(&mut self) {
        self.start = self.scan;
        self.consumed = self.scan_offset();
    }

    /// Hands out the record that ends at `scan`: its bytes stay readable through
    /// [`RecordBuffer::raw`] until the next release, and a restart may begin after it.
    pub(super) fn hand_out(&mut self, raw: RawSource) {
        self.raw = raw;
        self.current = true;
        self.consumed = self.scan_offset();
    }

    /// Ends access to the record last handed out, whose bytes may now move. Returns whether
    /// there was one.
    pub(super) fn release_current(&mut self) -> bool {
        std::mem::replace(&mut self.current, false)
    }

    pub(super) fn is_current(&self) -> bool {
        self.current
    }

    /// The raw bytes of the record last handed out, or nothing once it was released.
    pub(super) fn raw(&self) -> &[u8] {
        if !self.current {
            return &[];
        }
        match &self.raw {
            RawSource::Input(range) => self.input.get(range.clone()).unwrap_or(&[]),
            RawSource::Kept => &self.kept,
        }
    }

    /// Copies the head of the oversized record `start..end` (at most `max_record` bytes, and
    /// at most [`OVERSIZED_RAW_KEPT`]) for the bad file, since the rest is dropped as it is
    /// scanned and its start may be drained by the next push.
    pub(super) fn keep_head(&mut self, end: usize, max_record: usize) {
        let kept = end.saturating_sub(self.start).min(max_record).min(OVERSIZED_RAW_KEPT);
        self.kept.clear();
        if let Some(head) = self.input.get(self.start..self.start + kept) {
            self.kept.extend_from_slice(head);
        }
    }

    pub(super) fn kept_len(&self) -> usize {
        self.kept.len()
    }
}
