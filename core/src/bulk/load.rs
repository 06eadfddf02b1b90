//! A bulk load driven through a [`Session`]: rows from a [`BulkEncoder`] become EXECUTEs
//! of one prepared statement, routed by their token, with a concurrency window that grows
//! while the cluster keeps up and halves when it pushes back (AIMD), retries with backoff,
//! and a checkpoint watermark. No JS object (or host call) per row: the host pushes input
//! chunks and reads counters.
//!
//! The host's loop, after [`Session::start_request`]-style draining of events:
//! 1. while [`BulkLoad::wants_input`], read a chunk and [`BulkLoad::push`] it (or
//!    [`BulkLoad::finish`] at the end);
//! 2. [`BulkLoad::pump`] starts as many rows as the window allows;
//! 3. every session event whose id [`BulkLoad::owns`] goes to [`BulkLoad::on_response`] or
//!    [`BulkLoad::on_failure`] instead of to a promise;
//! 4. [`BulkLoad::poll_bad`] yields rows for the bad file, [`BulkLoad::watermark`] the input
//!    offset below which every row is settled (acknowledged or in the bad file).

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap, VecDeque};

use super::write_order::{RowKey, WriteClock};
use super::{BadColumn, BadRowKind, BulkEncoder, BulkError, RowOutcome};
use crate::cluster::{Backoff, Jitter};
use crate::connection::{Request, RequestError};
use crate::message::{BatchStatement, BatchType, ErrorDetails, QueryOptions};
use crate::session::{request_error_message, RequestSpec, Session, SessionError, SessionRequestId};

#[derive(Debug, Clone)]
pub struct LoadConfig {
    pub consistency: Option<u16>,
    pub serial_consistency: Option<u16>,
    /// A write timestamp (µs since the epoch) for every row. Without one (and but for
    /// counter updates, which take none), each row gets its own client-side timestamp when it
    /// is read, increasing in input order (see [`super::write_order`]), so that of rows with
    /// the same primary key the last one read wins, as in a sequential replay.
    pub default_timestamp: Option<i64>,
    /// The bind positions of the primary key (partition and clustering columns): two rows
    /// with the same values there never share a batch. Empty: the partition key's, so rows
    /// of one partition never share a batch (right, if slower, when the clustering columns
    /// are not known).
    pub key_indexes: Vec<u16>,
    pub initial_concurrency: usize,
    pub max_concurrency: usize,
    /// Inserts are; counter updates are not (and are then never retried on another node).
    pub idempotent: bool,
    /// Further attempts of a row after the session gave up on it (timeouts, overload).
    pub max_retries: u32,
    pub retry_base_us: u64,
    pub retry_max_us: u64,
    pub timeout_us: Option<u64>,
    pub seed: u64,
    /// Rows starting at or after this input offset are left alone (`--split` by byte
    /// range: the row crossing the range's end is this process's, the next one is not).
    pub stop_at_offset: Option<u64>,
    /// How long no node at all may be reachable before the load gives up (rows not yet
    /// acknowledged stay past the watermark, for a resume).
    pub unreachable_timeout_us: u64,
    /// Rows per request: above 1, rows that share a group (see `batch_by`) go out together
    /// as one UNLOGGED (or COUNTER) BATCH, as `cqlsh COPY` and DSBulk do.
    pub batch_size: usize,
    pub batch_by: BatchGrouping,
    /// A batch closes before its rows' values pass this many bytes (Cassandra refuses
    /// batches over `batch_size_fail_threshold`, 50 KiB by default).
    pub batch_max_bytes: usize,
    /// Rows held (read, not yet acknowledged or bad) stop being read once their values and
    /// raw records pass this many bytes: memory stays bounded by bytes, not by the request
    /// window alone, which with wide rows would hold window x batch rows (each with its
    /// values, its raw record and its request body) and grow the WASM memory, which never
    /// shrinks.
    pub max_held_bytes: usize,
    /// The statement updates counters: batches are COUNTER batches.
    pub counter: bool,
    /// Parse and convert every row and send none: a good row counts as acknowledged, so the
    /// counters, bad rows and watermark are those of a real load that the server accepted.
    pub dry_run: bool,
    /// Report every row's start and acknowledgement as [`JournalEntry`]s (a non-idempotent
    /// load's write-ahead journal: the host persists a row's start before its bytes leave).
    pub journal: bool,
    /// Offsets of rows an earlier run saw acknowledged: settled at once, counted in
    /// `rows_previous`.
    pub resume_acked: BTreeSet<u64>,
    /// Offsets of rows an earlier run started but never saw acknowledged: not sent again
    /// (they may have been applied), reported as [`BadRowKind::Uncertain`] bad rows.
    pub resume_sent: BTreeSet<u64>,
    /// A resumed load's `(watermark_timestamp, last_timestamp)` from the interrupted run's
    /// checkpoint: its rows count up from there (see [`WriteClock::resumed`]).
    pub resume_timestamps: Option<(i64, i64)>,
}

/// What the journal of a load says about one row (by the input offset of its first byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JournalEntry {
    /// Its request was started: it may be applied from now on.
    Sent(u64),
    /// Its request was acknowledged.
    Acked(u64),
}

/// Rows per batch by default, as DSBulk's `maxBatchStatements`. A row whose group has not
/// filled when the input read so far runs out goes alone (an EXECUTE, not a batch of one), so
/// data without locality loses nothing.
pub const DEFAULT_BATCH_SIZE: usize = 32;

/// Bytes of values and raw records a load holds at most (see [`LoadConfig::max_held_bytes`]).
/// On one local node the server takes ~10k wide (1 KB) rows/s at tens of ms per batch: a few
/// hundred KB in flight keep it busy, so 4 MiB costs no throughput and caps what wide rows
/// hold (with their request bodies, about one and a half times this).
pub const DEFAULT_MAX_HELD_BYTES: usize = 4 * 1024 * 1024;

/// Which rows may share a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchGrouping {
    /// Rows whose partitions have the same replicas: the coordinator is one of them and
    /// writes locally or to the same peers. Falls back to `Partition` without token-aware
    /// plans.
    Replicas,
    /// Rows of the same partition (same token) only.
    Partition,
}

impl Default for LoadConfig {
    fn default() -> Self {
        LoadConfig {
            consistency: None,
            serial_consistency: None,
            default_timestamp: None,
            key_indexes: Vec::new(),
            initial_concurrency: 32,
            max_concurrency: 1024,
            idempotent: true,
            max_retries: 5,
            retry_base_us: 100_000,
            retry_max_us: 10_000_000,
            timeout_us: None,
            seed: 0,
            stop_at_offset: None,
            unreachable_timeout_us: 30_000_000,
            // Measured in bench/LOADER_BATCHES.md: 1.8x the rows/s of single rows on data with
            // partition locality, 1.6x on random keys (one node), at less client CPU.
            batch_size: DEFAULT_BATCH_SIZE,
            batch_by: BatchGrouping::Replicas,
            batch_max_bytes: 32 * 1024,
            max_held_bytes: DEFAULT_MAX_HELD_BYTES,
            counter: false,
            dry_run: false,
            journal: false,
            resume_acked: BTreeSet::new(),
            resume_sent: BTreeSet::new(),
            resume_timestamps: None,
        }
    }
}

/// A row that will not be loaded, with why: the contract the host writes bad files and
/// logs from, field by field, without reading the reason's text.
#[derive(Debug, Clone, PartialEq)]
pub struct BadRow {
    pub kind: BadRowKind,
    /// The record's bytes exactly as read (line end excluded; for an oversized record, its
    /// head only).
    pub raw: Vec<u8>,
    /// 1-based line where the record starts.
    pub line: u64,
    /// Input offset of the record's first byte.
    pub offset: u64,
    /// The statement's column at fault.
    pub column: Option<String>,
    /// The 0-based CSV field at fault (the one feeding `column`, or one feeding none).
    pub field: Option<u32>,
    /// The 0-based byte in the record at fault (JSON syntax, invalid UTF-8 in a line).
    pub byte: Option<u64>,
    /// The server's error code, for a row the server refused with an ERROR.
    pub server_code: Option<i32>,
    /// Requests that carried the row (0 when it was never sent).
    pub attempts: u32,
    /// What went wrong, in words (the converter's or the server's message).
    pub reason: String,
    /// The text of the field at fault (its first 256 bytes), when one field is.
    pub value: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct LoadStats {
    pub rows_ok: u64,
    pub rows_bad: u64,
    pub rows_rejected: u64,
    pub retries: u64,
    pub in_flight: usize,
    pub window: usize,
    pub waiting_retry: usize,
    pub watermark: u64,
    /// The line where the first row past the watermark starts.
    pub watermark_line: u64,
    /// Rows below the watermark that were acknowledged, and that went to the bad rows.
    pub watermark_rows_ok: u64,
    pub watermark_rows_bad: u64,
    pub bytes_pushed: u64,
    /// Rows an earlier run had loaded ([`LoadConfig::resume_acked`]), skipped.
    pub rows_previous: u64,
    /// Rows sent without an acknowledgement (by an earlier run, or by this one when the
    /// answer was lost and the write is not idempotent), set aside.
    pub rows_uncertain: u64,
    /// Bytes of values and raw records of the rows read and not yet settled (bounded by
    /// `max_held_bytes`).
    pub held_bytes: usize,
    /// With client timestamps: no row past the watermark was given an earlier one (the first
    /// such row's, or the next row's lowest possible), and the last one given. A checkpoint
    /// keeps both for [`LoadConfig::resume_timestamps`].
    pub watermark_timestamp: Option<i64>,
    pub last_timestamp: Option<i64>,
}

/// Why the rows of a group were given up on after sending (or trying to).
struct Rejection {
    kind: BadRowKind,
    server_code: Option<i32>,
    attempts: u32,
    reason: String,
}

struct RowSlot {
    seq: u64,
    values: Vec<u8>,
    raw: Vec<u8>,
    line: u64,
    offset: u64,
    token: Option<i64>,
    /// More parts of the same input row follow: this one is not counted as a row.
    continues: bool,
    /// Its write timestamp, given when it was read (0 without client timestamps).
    timestamp: i64,
    /// [`RowKey::hash`] of its values, set when it joins a batch being filled.
    key_hash: u64,
}

impl RowSlot {
    /// What the row keeps while it is held: its values, and its raw record for the bad file.
    fn held_bytes(&self) -> usize {
        self.values.len() + self.raw.len()
    }
}

/// Copies a row's bytes into a slot's buffer, reused from row to row (slots live as long as
/// the load, and WASM memory never shrinks). It grows to the exact size, where
/// `extend_from_slice` alone doubles (a slot given a row a byte wider than its last kept twice
/// the row), and a buffer over twice what it now takes is cut down, so the slots hold at most
/// about twice their rows' bytes whatever widths came before. On the 2 GB wide CSV (~1 KB
/// rows) the slots held 12.5 MB with a 4 MiB budget of values: ~4,100 rows, each with 1 KB of
/// values and 2 KB of raw-record capacity (bench/LOADER_MEMORY.md).
fn refill(buf: &mut Vec<u8>, bytes: &[u8]) {
    buf.clear();
    if buf.capacity() > 2 * bytes.len() {
        buf.shrink_to(bytes.len());
    }
    buf.reserve_exact(bytes.len());
    buf.extend_from_slice(bytes);
}

/// What one request carries: one row, or the rows of a batch. Kept and reused by index.
#[derive(Default)]
struct Group {
    rows: Vec<usize>,
    value_bytes: usize,
    /// While filling: the grouping key it takes rows for.
    key: u64,
    /// Further attempts so far; the rows of a group always go out together.
    attempts: u32,
    /// A row sent alone after its batch failed with a server error (0x0000): that error
    /// again, alone, is taken as the row's value (not retried).
    split_on_server_error: bool,
    /// The write timestamp of every attempt: its first row's (see [`BulkLoad::clock`]).
    timestamp: Option<i64>,
}

/// Groups still taking rows are few (one per replica set, or per partition within a
/// chunk); past this many the fullest is sent rather than another opened.
const MAX_OPEN_GROUPS: usize = 64;

pub struct BulkLoad {
    encoder: BulkEncoder,
    prepared_id: Vec<u8>,
    result_metadata_id: Vec<u8>,
    /// The keyspace of the prepared statement, once the session knows it.
    keyspace: Option<String>,
    config: LoadConfig,
    window: usize,
    successes_since_growth: usize,
    slots: Vec<RowSlot>,
    free_slots: Vec<usize>,
    groups: Vec<Group>,
    free_groups: Vec<usize>,
    /// Groups taking rows, not yet sent.
    open_groups: Vec<usize>,
    /// Groups due to go out that found the window full: a full one, or every group that was
    /// open when the view changed (see [`BulkLoad::retire_groups_if_view_changed`]).
    ready: Vec<usize>,
    /// What the open groups' keys were computed under: a token's replica set key holds only
    /// while the view's plans (its epoch), the keyspace's table in them (the keyspace mapping,
    /// which moves without the epoch when a keyspace takes another keyspace's replication)
    /// and whether the statement's keyspace is known stay the same.
    grouped_under: (u64, u64, bool),
    by_request: HashMap<SessionRequestId, usize>,
    /// Groups waiting to be sent again, by when.
    retry_at: BinaryHeap<Reverse<(u64, usize)>>,
    /// The retry delays' formula (full jitter, `retry_base_us` doubling up to `retry_max_us`)
    /// and their one random stream; see [`BulkLoad::retry_delay`].
    backoff: Backoff,
    /// Failures since the last acknowledgement that said the whole cluster struggles: the
    /// load-wide floor of every retry's backoff level.
    storm: u32,
    /// `(seq, end_offset, next row's line, settled, acknowledged, write timestamp)` in input
    /// order, for the watermark.
    order: VecDeque<(u64, u64, u64, bool, bool, i64)>,
    watermark_rows_ok: u64,
    watermark_rows_bad: u64,
    first_seq: u64,
    next_seq: u64,
    watermark: u64,
    watermark_line: u64,
    bad: VecDeque<BadRow>,
    journal: Vec<JournalEntry>,
    stats: LoadStats,
    finished: bool,
    stopped: bool,
    unreachable_since: Option<u64>,
    /// Why the load gave up (the cluster stayed unreachable).
    failure: Option<String>,
    /// The encoder has no row left, ever (input finished and read, or the load stopped).
    drained: bool,
    /// Bytes of the rows in slots (read, not settled): bounded by `max_held_bytes`.
    held_bytes: usize,
    /// Client-side write timestamps, one per row in input order; `None` with a
    /// `default_timestamp` or for counters. A group is sent with its first row's: groups of
    /// one key are filled one after another (one open group per grouping key, and every open
    /// group retired when the view that gives the keys changes), so a later group's first row
    /// comes after every row of an earlier one, and with no key twice in a group, of two rows
    /// with the same key the later one always has the later timestamp.
    clock: Option<WriteClock>,
    /// The primary key, compared within the group being filled.
    row_key: RowKey,
}

/// The line after a record that starts at `line` (quoted fields may hold line breaks).
fn next_line(line: u64, raw: &[u8]) -> u64 {
    line + 1 + raw.iter().filter(|&&b| b == b'\n').count() as u64
}

/// Whether the failure says the cluster is saturated: it timed out or said Overloaded or
/// WriteTimeout or Scylla's rate limit (for "no node left", any node that was tried).
fn is_pushback(error: &SessionError) -> bool {
    matches!(&error.error, RequestError::Timeout { .. })
        || matches!(&error.error, RequestError::Server(e) if matches!(e.code, 0x1001 | 0x1100))
        || rate_limit(error).is_some()
        || (error.no_host_available && error.errors.iter().any(|e| e.is_pushback()))
}

/// Whether the failure says the cluster as a whole struggles, not this request alone:
/// push-back (saturation), or Unavailable (too few replicas alive), from the one node tried
/// or, when no node was left, from any of them.
fn is_cluster_wide(error: &SessionError) -> bool {
    is_pushback(error)
        || matches!(&error.error, RequestError::Server(e) if e.code == 0x1000)
        || (error.no_host_available && error.errors.iter().any(|e| e.code == Some(0x1000)))
}

/// Scylla's per-partition rate limit, known by the code its SUPPORTED announced (the
/// connection decoded it into its own details): `Some(rejected_by_coordinator)`.
fn rate_limit(error: &SessionError) -> Option<bool> {
    match &error.error {
        RequestError::Server(e) => match e.details {
            ErrorDetails::RateLimitReached { rejected_by_coordinator, .. } => Some(rejected_by_coordinator),
            _ => None,
        },
        _ => None,
    }
}

/// Whether the write may have been applied although it failed: a timeout (the client's or
/// the replicas' WriteTimeout), a connection that closed after the request was written to
/// it, an internal server error, or a rate limit that replicas (not the coordinator)
/// enforced, after some of them may have written.
fn may_have_applied(error: &SessionError) -> bool {
    rate_limit(error) == Some(false)
        || match &error.error {
            RequestError::Timeout { .. } | RequestError::Closed { written: true, .. } => true,
            RequestError::Server(e) => matches!(e.code, 0x1100 | 0x0000),
            RequestError::Protocol { .. } => true,
            RequestError::Closed { written: false, .. } => false,
        }
}

/// Whether another attempt may succeed: the node was unavailable, overloaded, bootstrapping,
/// timed out, failed internally (0x0000), rate-limited the partition (a later attempt finds
/// the limit's window moved on), or the connection closed. WriteFailure (0x1500) and every
/// other refusal are final, as in the Java driver's default retry policy.
fn is_transient(error: &SessionError) -> bool {
    error.no_host_available
        || rate_limit(error).is_some()
        || match &error.error {
            RequestError::Timeout { .. } | RequestError::Closed { .. } => true,
            RequestError::Server(e) => matches!(e.code, 0x1000 | 0x1001 | 0x1002 | 0x1100 | 0x1200 | 0x0000),
            RequestError::Protocol { .. } => false,
        }
}

/// The server's error code and its own message, or no code and the failure in words.
fn rejection_reason(error: &SessionError) -> (Option<i32>, String) {
    match &error.error {
        RequestError::Server(e) => (Some(e.code), e.message.clone()),
        other => (None, request_error_message(other)),
    }
}

impl BulkLoad {
    pub fn new(encoder: BulkEncoder, prepared_id: &[u8], result_metadata_id: &[u8], config: LoadConfig) -> Self {
        let window = config.initial_concurrency.clamp(1, config.max_concurrency.max(1));
        let backoff = Backoff::new(config.retry_base_us, config.retry_max_us, Jitter::Full, config.seed);
        let clock = (config.default_timestamp.is_none() && !config.counter).then(|| match config.resume_timestamps {
            Some((first, last)) => WriteClock::resumed(first, last),
            None => WriteClock::default(),
        });
        let key_indexes =
            if config.key_indexes.is_empty() { encoder.pk_indexes().to_vec() } else { config.key_indexes.clone() };
        BulkLoad {
            clock,
            row_key: RowKey::new(key_indexes),
            encoder,
            prepared_id: prepared_id.to_vec(),
            result_metadata_id: result_metadata_id.to_vec(),
            keyspace: None,
            config,
            window,
            successes_since_growth: 0,
            slots: Vec::new(),
            free_slots: Vec::new(),
            groups: Vec::new(),
            free_groups: Vec::new(),
            open_groups: Vec::new(),
            ready: Vec::new(),
            grouped_under: (0, 0, false),
            by_request: HashMap::new(),
            retry_at: BinaryHeap::new(),
            backoff,
            storm: 0,
            order: VecDeque::new(),
            first_seq: 0,
            next_seq: 0,
            watermark: 0,
            watermark_line: 1,
            watermark_rows_ok: 0,
            watermark_rows_bad: 0,
            bad: VecDeque::new(),
            journal: Vec::new(),
            stats: LoadStats::default(),
            finished: false,
            stopped: false,
            unreachable_since: None,
            failure: None,
            drained: false,
            held_bytes: 0,
        }
    }

    // ---- getters ------------------------------------------------------------------------

    pub fn stats(&self) -> LoadStats {
        LoadStats {
            in_flight: self.by_request.len(),
            window: self.window,
            waiting_retry: self.retry_at.len(),
            watermark: self.watermark,
            watermark_line: self.watermark_line,
            watermark_rows_ok: self.watermark_rows_ok,
            watermark_rows_bad: self.watermark_rows_bad,
            bytes_pushed: self.encoder.stats().bytes_pushed,
            held_bytes: self.held_bytes,
            watermark_timestamp: self.watermark_timestamp(),
            last_timestamp: self.clock.as_ref().and_then(WriteClock::last),
            ..self.stats
        }
    }

    /// Bytes of capacity the row slots' buffers hold, free slots' included (they keep theirs
    /// for the next rows): the load's own memory, bounded by about twice `max_held_bytes`.
    pub fn slot_bytes(&self) -> usize {
        self.slots.iter().map(|s| s.values.capacity() + s.raw.capacity()).sum()
    }

    /// The timestamp of the first row past the watermark, or the next row's lowest.
    fn watermark_timestamp(&self) -> Option<i64> {
        let clock = self.clock.as_ref()?;
        match self.order.front() {
            Some(&(_, _, _, false, _, ts)) => Some(ts),
            _ => clock.floor(),
        }
    }

    /// Why the encoder stopped for good (a header that fits no column, too many bad rows).
    pub fn error(&self) -> Option<&BulkError> {
        self.encoder.error()
    }

    /// Why the load stopped: the encoder's error, or a cluster that stayed unreachable.
    pub fn failure(&self) -> Option<String> {
        self.failure.clone().or_else(|| self.encoder.error().map(|e| e.to_string()))
    }

    /// The input offset below which every row is acknowledged or in the bad file: resume
    /// from here after a crash and no row is lost.
    pub fn watermark(&self) -> u64 {
        self.watermark
    }

    /// More input would be turned into requests now.
    pub fn wants_input(&self) -> bool {
        !self.finished
            && self.failure.is_none()
            && self.encoder.error().is_none()
            && self.ready.is_empty()
            && self.by_request.len() < self.window
            && !self.holds_enough()
    }

    /// The rows held reach the byte budget: no more are read until some settle.
    fn holds_enough(&self) -> bool {
        self.held_bytes >= self.config.max_held_bytes
    }

    /// Everything pushed is settled (or the encoder stopped and nothing is in flight).
    pub fn is_done(&self) -> bool {
        if self.failure.is_some() {
            return self.by_request.is_empty();
        }
        let idle = self.by_request.is_empty()
            && self.retry_at.is_empty()
            && self.ready.is_empty()
            && self.open_groups.is_empty();
        idle && ((self.finished && self.drained) || self.encoder.error().is_some())
    }

    pub fn owns(&self, id: SessionRequestId) -> bool {
        self.by_request.contains_key(&id)
    }

    pub fn next_timeout(&self) -> Option<u64> {
        self.retry_at.peek().map(|Reverse((t, _))| *t)
    }

    // ---- inputs -------------------------------------------------------------------------

    pub fn push(&mut self, chunk: &[u8]) {
        self.encoder.push(chunk);
    }

    pub fn finish(&mut self) {
        self.encoder.finish();
        self.finished = true;
    }

    /// Ends the input where it stands: rows already parsed still go out, a record cut by the
    /// last chunk is dropped (not parsed as a short row), and the watermark stops before it.
    pub fn stop(&mut self) {
        self.finished = true;
        self.stopped = true;
        self.drained = true;
    }

    pub fn poll_bad(&mut self) -> Option<BadRow> {
        self.bad.pop_front()
    }

    /// The journal entries since the last call, in order (empty unless
    /// [`LoadConfig::journal`]). A host that persists them before it transmits the
    /// session's bytes has every started row on record before it can be applied.
    pub fn take_journal(&mut self) -> Vec<JournalEntry> {
        std::mem::take(&mut self.journal)
    }

    /// Starts requests while the window has room: retries that are due first, then new
    /// rows. With batching, a group goes out when it is full, and every partly filled group
    /// when the input runs dry (so rows never wait on input that may not come).
    pub fn pump(&mut self, now: u64, session: &mut Session) {
        if self.failure.is_some() {
            return;
        }
        while self.by_request.len() < self.window {
            match self.retry_at.peek() {
                Some(Reverse((t, _))) if *t <= now => {
                    let Some(Reverse((_, group))) = self.retry_at.pop() else { break };
                    if !self.send(now, session, group) {
                        return;
                    }
                    continue;
                }
                _ => {}
            }
            if let Some(group) = self.ready.pop() {
                if !self.send(now, session, group) {
                    return;
                }
                continue;
            }
            if self.holds_enough() {
                // No new rows: partly filled groups go now, since only settling frees bytes.
                let Some(group) = self.open_groups.pop() else { return };
                self.ready.push(group);
                continue;
            }
            match self.next_good_row(now) {
                Some(slot) if self.config.dry_run => {
                    // A row in parts (cell times) counts once, at its last part, as on_response counts it.
                    if !self.slots[slot].continues {
                        self.stats.rows_ok += 1;
                    }
                    self.settle(slot, true);
                }
                Some(slot) => {
                    if let Some(full) = self.add_to_group(session, slot) {
                        self.ready.push(full);
                    }
                }
                None => {
                    // Input ran dry (or ended): partly filled groups go now.
                    let Some(group) = self.open_groups.pop() else { return };
                    self.ready.push(group);
                }
            }
        }
    }

    pub fn on_response(&mut self, id: SessionRequestId) {
        let Some(group) = self.by_request.remove(&id) else { return };
        let rows = &self.groups[group].rows;
        if self.config.journal {
            self.journal.extend(rows.iter().map(|&slot| JournalEntry::Acked(self.slots[slot].offset)));
        }
        self.stats.rows_ok += rows.iter().filter(|&&slot| !self.slots[slot].continues).count() as u64;
        self.unreachable_since = None;
        self.successes_since_growth += 1;
        // Additive increase: one more in flight per window's worth of successes.
        if self.successes_since_growth >= self.window && self.window < self.config.max_concurrency {
            self.window += 1;
            self.successes_since_growth = 0;
        }
        self.storm = 0;
        self.settle_group(group, true);
    }

    pub fn on_failure(&mut self, now: u64, id: SessionRequestId, error: &SessionError) {
        let Some(group) = self.by_request.remove(&id) else { return };
        if error.no_host_available && error.errors.is_empty() {
            // No node could even be tried: not this row's fault. It waits; if the whole
            // cluster stays out of reach, the load stops and the row stays past the watermark.
            let since = *self.unreachable_since.get_or_insert(now);
            if now.saturating_sub(since) >= self.config.unreachable_timeout_us {
                self.failure = Some(format!(
                    "no node of the cluster was reachable for {} s; rows not acknowledged are left for --resume",
                    self.config.unreachable_timeout_us / 1_000_000
                ));
            }
            let delay = self.retry_delay(group, true);
            self.retry_at.push(Reverse((now.saturating_add(delay), group)));
            return;
        }
        let transient = is_transient(error);
        if is_pushback(error) {
            // Multiplicative decrease: the cluster is saturated.
            self.window = (self.window / 2).max(1);
            self.successes_since_growth = 0;
        }
        let retry_ok = transient && (self.config.idempotent || !may_have_applied(error));
        let attempts = self.groups[group].attempts;
        // Cassandra 5 answers a value it cannot read with a server error (0x0000), which
        // retries only repeat, with a backoff that grows while nothing succeeds: a batch
        // failing so is split at once, and a row of it failing so again alone is bad. (20000
        // rows, 1 in 100 refused so, on a fake node: 12.7 s with 3 retries of each batch,
        // 23.8 s split at once with 3 retries of the row alone, 0.4-1.1 s so: the requests of
        // --max-retries 0.)
        let server_error = matches!(&error.error, RequestError::Server(e) if e.code == 0x0000);
        let split_now = server_error && (self.groups[group].rows.len() > 1 || self.groups[group].split_on_server_error);
        if retry_ok && attempts < self.config.max_retries && !split_now {
            let delay = self.retry_delay(group, is_cluster_wide(error));
            self.groups[group].attempts += 1;
            self.stats.retries += 1;
            self.retry_at.push(Reverse((now.saturating_add(delay), group)));
            return;
        }
        if self.groups[group].rows.len() > 1 && (!transient || (retry_ok && !is_pushback(error))) {
            // The server refused the batch as a whole (a bad value, too large), or kept
            // failing it with an error that is not push-back (Cassandra 5 answers a value it
            // cannot read with a server error, 0x0000, which is transient): each row goes
            // again alone, so only the rows at fault end in the bad file, with their own
            // reason. A batch that may have been applied and must not be sent twice, or
            // one the cluster pushed back on, is not split.
            let rows = std::mem::take(&mut self.groups[group].rows);
            let timestamp = self.groups[group].timestamp;
            for &slot in &rows {
                let single = self.new_group(0);
                self.groups[single].rows.push(slot);
                self.groups[single].value_bytes = self.slots[slot].values.len();
                self.groups[single].attempts = attempts;
                self.groups[single].split_on_server_error = server_error;
                // The batch may have been applied in part: its rows keep its timestamp.
                self.groups[single].timestamp = timestamp;
                self.retry_at.push(Reverse((now, single)));
            }
            self.release_group(group, rows);
            return;
        }
        let (server_code, reason) = rejection_reason(error);
        // Sent, never acknowledged, not idempotent: it may have been applied, so it is set
        // aside as uncertain, never among the bad rows a person would simply load again.
        let kind = if transient && !self.config.idempotent && may_have_applied(error) {
            BadRowKind::Uncertain
        } else {
            BadRowKind::Rejected
        };
        let rejection = Rejection { kind, server_code, attempts: attempts + error.attempts.max(1), reason };
        self.reject_group(group, &rejection);
    }

    // ---- internals ----------------------------------------------------------------------

    /// The delay before `group` goes again. A retry's delay belongs to its request, as in the
    /// DataStax drivers: the group's own attempts drive it (0.1, 0.2, 0.4 s ceilings by
    /// default), and other groups keep flowing meanwhile. One delay shared by the whole load
    /// grew with every failure until a success: 5,000 rows each answered 0x0000 alone (a
    /// value Cassandra 5 cannot read) took 29 s on a fake node, 1.8 s so. The shared level
    /// stays for what it was for, a cluster that struggles as a whole (`cluster_wide`: push-back,
    /// Unavailable, no node reachable, the session not connected): each such failure raises
    /// the floor of every retry's level until the next acknowledgement, so a storm of them
    /// backs the whole load off instead of every group retrying at its first delay.
    fn retry_delay(&mut self, group: usize, cluster_wide: bool) -> u64 {
        let level = self.groups[group].attempts.max(self.storm);
        if cluster_wide {
            self.storm = self.storm.saturating_add(1);
        }
        self.backoff.full_jitter(level)
    }

    fn new_group(&mut self, key: u64) -> usize {
        let group = match self.free_groups.pop() {
            Some(g) => g,
            None => {
                self.groups.push(Group::default());
                self.groups.len() - 1
            }
        };
        let g = &mut self.groups[group];
        g.rows.clear();
        g.value_bytes = 0;
        g.key = key;
        g.attempts = 0;
        g.split_on_server_error = false;
        g.timestamp = None;
        group
    }

    /// Adds a row to a group; the first row gives the group its timestamp.
    fn push_row(&mut self, group: usize, slot: usize) {
        let g = &mut self.groups[group];
        if g.rows.is_empty() && self.clock.is_some() {
            g.timestamp = Some(self.slots[slot].timestamp);
        }
        g.rows.push(slot);
        g.value_bytes += self.slots[slot].values.len();
    }

    /// Whether `group` already holds a row with the primary key of `slot` (another input row:
    /// the parts of one row with cell times write different cells of the same key).
    fn holds_key_of(&self, group: usize, slot: usize) -> bool {
        let row = &self.slots[slot];
        self.groups[group].rows.iter().any(|&other| {
            let other = &self.slots[other];
            other.key_hash == row.key_hash
                && other.offset != row.offset
                && self.row_key.same(&other.values, &row.values)
        })
    }

    /// Retires every open group when the view the grouping keys come from changed since
    /// they were formed: a token may now have another key, the key of a group opened before
    /// an earlier row of the same primary key was read (and so with an earlier timestamp),
    /// which that row would then overwrite. Retired groups take no more rows and go out as
    /// they are, before new rows; they are not retries (no attempt is counted).
    fn retire_groups_if_view_changed(&mut self, session: &Session) {
        let view = session.view();
        let grouping = (view.epoch(), view.keyspace_mapping(), self.keyspace.is_some());
        if grouping != self.grouped_under {
            self.grouped_under = grouping;
            self.ready.append(&mut self.open_groups);
        }
    }

    /// Puts a fresh row in its group; returns a group that is now due to go out.
    fn add_to_group(&mut self, session: &Session, slot: usize) -> Option<usize> {
        let bytes = self.slots[slot].values.len();
        let token = self.slots[slot].token;
        let key = match (self.config.batch_size > 1, token) {
            (true, Some(token)) => match self.config.batch_by {
                BatchGrouping::Replicas => {
                    // The statement's keyspace never changes: looked up once, not per row.
                    if self.keyspace.is_none() {
                        self.keyspace = session.prepared_keyspace(&self.prepared_id).map(str::to_owned);
                    }
                    self.retire_groups_if_view_changed(session);
                    let replicas = self.keyspace.as_deref().and_then(|ks| session.view().replica_set_key(ks, token));
                    replicas.unwrap_or(token as u64)
                }
                BatchGrouping::Partition => token as u64,
            },
            // Unbatched, or no token to group by: the row goes alone.
            _ => {
                let single = self.new_group(0);
                self.push_row(single, slot);
                return Some(single);
            }
        };
        if self.clock.is_some() {
            self.slots[slot].key_hash = self.row_key.hash(&self.slots[slot].values);
        }
        let open = self.open_groups.iter().position(|&g| self.groups[g].key == key);
        // A row that would take its group over the byte limit sends the group first; so does
        // one whose key the group holds already (one timestamp per batch: the later row
        // must go in a later group, which has a later timestamp).
        let mut due = None;
        let open = match open {
            Some(i) if self.groups[self.open_groups[i]].value_bytes + bytes > self.config.batch_max_bytes => {
                due = Some(self.open_groups.swap_remove(i));
                None
            }
            Some(i) if self.clock.is_some() && self.holds_key_of(self.open_groups[i], slot) => {
                due = Some(self.open_groups.swap_remove(i));
                None
            }
            other => other,
        };
        let group = match open {
            Some(i) => self.open_groups[i],
            None => {
                if due.is_none() && self.open_groups.len() >= MAX_OPEN_GROUPS {
                    let fullest =
                        (0..self.open_groups.len()).max_by_key(|&i| self.groups[self.open_groups[i]].rows.len());
                    due = fullest.map(|i| self.open_groups.swap_remove(i));
                }
                let g = self.new_group(key);
                self.open_groups.push(g);
                g
            }
        };
        self.push_row(group, slot);
        if due.is_none() && self.groups[group].rows.len() >= self.config.batch_size {
            if let Some(i) = self.open_groups.iter().position(|&g| g == group) {
                self.open_groups.swap_remove(i);
            }
            due = Some(group);
        }
        // A second due group (the byte-limit or key case and a full one at once) cannot happen:
        // a group just opened holds one row, and batch_size > 1 here.
        due
    }

    fn send(&mut self, now: u64, session: &mut Session, group: usize) -> bool {
        let options = QueryOptions {
            consistency: self.config.consistency,
            serial_consistency: self.config.serial_consistency,
            default_timestamp: self.groups[group].timestamp.or(self.config.default_timestamp),
            skip_metadata: true,
            ..QueryOptions::default()
        };
        let rows = &self.groups[group].rows;
        let Some(&first) = rows.first() else {
            // Nothing to send: groups are never empty when sent, but an empty one costs nothing.
            let rows = std::mem::take(&mut self.groups[group].rows);
            self.release_group(group, rows);
            return true;
        };
        let first = &self.slots[first];
        let statements: Vec<BatchStatement<'_>>;
        let request = if rows.len() == 1 {
            // Empty when the server gave none (v4): written as the same empty short bytes as None.
            let rmid = Some(self.result_metadata_id.as_slice());
            Request::Execute { id: &self.prepared_id, result_metadata_id: rmid, values: &first.values, options }
        } else {
            // One allocation per batch, not per row.
            statements = rows
                .iter()
                .map(|&slot| BatchStatement::Prepared { id: &self.prepared_id, values: &self.slots[slot].values })
                .collect();
            let kind = if self.config.counter { BatchType::Counter } else { BatchType::Unlogged };
            Request::Batch { kind, statements: &statements, options }
        };
        let spec = RequestSpec {
            request,
            idempotent: self.config.idempotent,
            token: first.token,
            routing_key: None,
            keyspace: None,
            timeout_us: self.config.timeout_us,
            prepared: None,
        };
        match session.start_request(now, spec) {
            Ok(id) => {
                if self.config.journal {
                    let rows = &self.groups[group].rows;
                    self.journal.extend(rows.iter().map(|&slot| JournalEntry::Sent(self.slots[slot].offset)));
                }
                self.by_request.insert(id, group);
                true
            }
            Err(e) => {
                // The session cannot take requests now (not connected): keep the rows for later.
                if self.groups[group].attempts >= self.config.max_retries {
                    let rejection =
                        Rejection { kind: BadRowKind::NotSent, server_code: None, attempts: 0, reason: e.to_string() };
                    self.reject_group(group, &rejection);
                    return true;
                }
                let delay = self.retry_delay(group, true);
                self.groups[group].attempts += 1;
                self.retry_at.push(Reverse((now.saturating_add(delay), group)));
                false
            }
        }
    }

    /// Pulls the next good row into a slot, passing bad rows to the bad queue on the way.
    fn next_good_row(&mut self, now: u64) -> Option<usize> {
        if self.stopped {
            self.drained = true;
            return None;
        }
        loop {
            let seq = self.next_seq;
            let Some(outcome) = self.encoder.next_row() else {
                // After finish(), no row now means no row ever; so too once the records the
                // load may read (maxRecords) were read: the rest of the input stays unread.
                if self.encoder.records_exhausted() {
                    self.finished = true;
                }
                self.drained |= self.finished;
                return None;
            };
            match outcome {
                RowOutcome::Good { offset, .. } | RowOutcome::Bad { offset, .. }
                    if self.config.stop_at_offset.is_some_and(|stop| offset >= stop) =>
                {
                    self.finished = true;
                    self.drained = true;
                    return None;
                }
                RowOutcome::Good { raw, line, offset, end_offset, continues, .. }
                    if self.config.resume_acked.contains(&offset) || self.config.resume_sent.contains(&offset) =>
                {
                    // Settled by an earlier run's journal: never sent again.
                    let next = if continues { line } else { next_line(line, raw) };
                    let acked = self.config.resume_acked.contains(&offset);
                    if acked && !continues {
                        self.stats.rows_previous += 1;
                    } else if !acked && !continues {
                        self.stats.rows_uncertain += 1;
                        self.bad.push_back(BadRow {
                            kind: BadRowKind::Uncertain,
                            raw: raw.to_vec(),
                            line,
                            offset,
                            column: None,
                            field: None,
                            byte: None,
                            server_code: None,
                            attempts: 0,
                            reason: "sent before the interruption but never acknowledged: it may or may not have been \
                                     applied, and the write is not idempotent, so it was not sent again"
                                .into(),
                            value: None,
                        });
                    }
                    self.next_seq += 1;
                    self.order.push_back((seq, end_offset, next, true, acked, 0));
                    self.advance_watermark();
                }
                RowOutcome::Good { values, raw, token, line, offset, end_offset, continues } => {
                    let slot = match self.free_slots.pop() {
                        Some(s) => s,
                        None => {
                            self.slots.push(RowSlot {
                                seq: 0,
                                values: Vec::new(),
                                raw: Vec::new(),
                                line: 0,
                                offset: 0,
                                token: None,
                                continues: false,
                                timestamp: 0,
                                key_hash: 0,
                            });
                            self.slots.len() - 1
                        }
                    };
                    let row = &mut self.slots[slot];
                    row.seq = seq;
                    refill(&mut row.values, values);
                    refill(&mut row.raw, raw);
                    row.line = line;
                    row.offset = offset;
                    row.token = token;
                    row.continues = continues;
                    row.timestamp = self.clock.as_mut().map_or(0, |clock| clock.next(now));
                    self.held_bytes += row.held_bytes();
                    self.next_seq += 1;
                    // A row's parts but the last keep the watermark at the row's start.
                    let next = if continues { line } else { next_line(line, raw) };
                    self.order.push_back((seq, end_offset, next, false, false, row.timestamp));
                    return Some(slot);
                }
                RowOutcome::Bad { raw, line, offset, end_offset, kind, column, reason } => {
                    self.stats.rows_bad += 1;
                    let next = next_line(line, raw);
                    let raw = raw.to_vec();
                    let (column, field, byte) = match column {
                        Some(BadColumn::Name(name)) => {
                            let field = self.encoder.input_field(&name).map(|f| f as u32);
                            (Some(name), field, None)
                        }
                        Some(BadColumn::Field(field)) => (None, Some(field as u32), None),
                        Some(BadColumn::Byte(byte)) => (None, None, Some(byte as u64)),
                        None => (None, None, None),
                    };
                    let value = self.encoder.bad_value().map(str::to_owned);
                    let row = BadRow {
                        kind,
                        raw,
                        line,
                        offset,
                        column,
                        field,
                        byte,
                        server_code: None,
                        attempts: 0,
                        reason,
                        value,
                    };
                    self.bad.push_back(row);
                    self.next_seq += 1;
                    self.order.push_back((seq, end_offset, next, true, false, 0));
                    self.advance_watermark();
                }
            }
        }
    }

    fn settle_group(&mut self, group: usize, acknowledged: bool) {
        let rows = std::mem::take(&mut self.groups[group].rows);
        for &slot in &rows {
            self.settle(slot, acknowledged);
        }
        self.release_group(group, rows);
    }

    /// Every row of `group` goes to the bad rows with `rejection`, and the group is settled.
    fn reject_group(&mut self, group: usize, rejection: &Rejection) {
        for &slot in &self.groups[group].rows {
            let row = &self.slots[slot];
            match rejection.kind {
                BadRowKind::Uncertain => self.stats.rows_uncertain += 1,
                _ => self.stats.rows_rejected += 1,
            }
            self.bad.push_back(BadRow {
                kind: rejection.kind,
                raw: row.raw.clone(),
                line: row.line,
                offset: row.offset,
                column: None,
                field: None,
                byte: None,
                server_code: rejection.server_code,
                attempts: rejection.attempts,
                reason: rejection.reason.clone(),
                value: None,
            });
        }
        self.settle_group(group, false);
    }

    /// Returns a group to the pool, with its row list (taken out to be walked) for reuse.
    fn release_group(&mut self, group: usize, mut rows: Vec<usize>) {
        rows.clear();
        self.groups[group].rows = rows;
        self.free_groups.push(group);
    }

    fn settle(&mut self, slot: usize, acknowledged: bool) {
        let seq = self.slots[slot].seq;
        self.held_bytes = self.held_bytes.saturating_sub(self.slots[slot].held_bytes());
        if let Some(entry) = seq.checked_sub(self.first_seq).and_then(|i| self.order.get_mut(i as usize)) {
            entry.3 = true;
            entry.4 = acknowledged;
        }
        self.free_slots.push(slot);
        self.advance_watermark();
    }

    fn advance_watermark(&mut self) {
        while let Some(&(_, end, line, true, acknowledged, _)) = self.order.front() {
            self.watermark = end;
            self.watermark_line = line;
            if acknowledged {
                self.watermark_rows_ok += 1;
            } else {
                self.watermark_rows_bad += 1;
            }
            self.order.pop_front();
            self.first_seq += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{ErrorDetails, ServerError};
    use crate::session::NodeError;

    fn server(code: i32, message: &str) -> RequestError {
        RequestError::Server(ServerError {
            code,
            code_name: "",
            message: message.into(),
            details: ErrorDetails::None {},
        })
    }

    fn no_node_left(answers: &[RequestError]) -> SessionError {
        SessionError {
            error: RequestError::Closed { message: "no node left to try".into(), written: false },
            node: String::new(),
            attempts: answers.len() as u32,
            no_host_available: true,
            errors: answers.iter().enumerate().map(|(i, e)| NodeError::new(format!("10.0.0.{i}:9042"), e)).collect(),
            trace: Vec::new(),
        }
    }

    #[test]
    fn push_back_is_decided_by_what_each_node_answered_not_by_its_words() {
        // Every node overloaded: push-back, whatever the message says.
        assert!(is_pushback(&no_node_left(&[server(0x1001, "busy"), server(0x1001, "busy")])));
        // A node that timed out (a client-side deadline) is push-back too.
        let timeout = RequestError::Timeout { message: "late".into(), timeout_ms: 10 };
        assert!(is_pushback(&no_node_left(&[server(0x2200, "x"), timeout])));
        // Messages that merely mention overload are not.
        assert!(!is_pushback(&no_node_left(&[server(0x2200, "Overloaded"), server(0x0000, "WriteTimeout")])));
    }

    fn rate_limited(code: i32, rejected_by_coordinator: bool) -> SessionError {
        SessionError {
            error: RequestError::Server(ServerError {
                code,
                code_name: crate::message::RATE_LIMIT_REACHED,
                message: "Per-partition rate limit reached".into(),
                details: ErrorDetails::RateLimitReached { op_type: "write", rejected_by_coordinator },
            }),
            node: "10.0.0.1:9042".into(),
            attempts: 1,
            no_host_available: false,
            errors: Vec::new(),
            trace: Vec::new(),
        }
    }

    #[test]
    fn scylla_rate_limit_is_push_back_by_its_negotiated_code_not_by_a_fixed_one() {
        // Whatever code SUPPORTED announced: the connection decoded it into RateLimitReached.
        for code in [0xF000, 0x2400] {
            assert!(is_pushback(&rate_limited(code, true)));
            assert!(is_transient(&rate_limited(code, true)));
        }
        // Refused by the coordinator: nothing was written, so even a non-idempotent row goes
        // again; refused by replicas: some may have written, as after a timeout.
        assert!(!may_have_applied(&rate_limited(0xF000, true)));
        assert!(may_have_applied(&rate_limited(0xF000, false)));
        // The same code without the negotiated details is a plain unknown error, final.
        let plain = SessionError { error: server(0xF000, "Per-partition rate limit reached"), ..rate_limited(0xF000, true) };
        assert!(!is_transient(&plain) && !is_pushback(&plain));
    }

    /// The failure of a request that went to one node.
    fn alone(error: RequestError) -> SessionError {
        SessionError {
            error,
            node: "10.0.0.1:9042".into(),
            attempts: 1,
            no_host_available: false,
            errors: Vec::new(),
            trace: Vec::new(),
        }
    }

    #[test]
    fn a_server_error_is_retried_and_a_write_failure_is_not() {
        assert!(is_transient(&alone(server(0x0000, "internal"))));
        assert!(!is_transient(&alone(server(0x1500, "write failure"))));
        assert_eq!(rejection_reason(&alone(server(0x2200, "bad key"))), (Some(0x2200), "bad key".to_owned()));
    }

    #[test]
    fn a_lost_answer_may_have_been_applied_and_a_refusal_was_not() {
        let closed = |written| RequestError::Closed { message: "connection closed".into(), written };
        let timeout = RequestError::Timeout { message: "late".into(), timeout_ms: 10 };
        for applied in [closed(true), timeout, server(0x1100, "write timeout"), server(0x0000, "internal")] {
            assert!(may_have_applied(&alone(applied.clone())), "{applied:?}");
        }
        for refused in [closed(false), server(0x1000, "unavailable"), server(0x1001, "busy"), server(0x1002, "joining")] {
            assert!(!may_have_applied(&alone(refused.clone())), "{refused:?}");
        }
        // The connection closing is worth another attempt either way; whether it may go again
        // is the idempotence's to say.
        assert!(is_transient(&alone(closed(true))) && is_transient(&alone(closed(false))));
    }

    #[test]
    fn every_failure_kind_on_one_node_is_classified_exactly() {
        let closed = |written| RequestError::Closed { message: "connection closed".into(), written };
        let timeout = RequestError::Timeout { message: "late".into(), timeout_ms: 10 };
        let protocol =
            RequestError::Protocol { message: "bad frame".into(), side: crate::error::Side::Remote, field: "x", offset: 3 };
        // (failure, push-back, transient, may have applied, says the cluster struggles)
        let cases = [
            (timeout, true, true, true, true),
            (closed(true), false, true, true, false),
            (closed(false), false, true, false, false),
            (protocol, false, false, true, false),
            (server(0x0000, "internal"), false, true, true, false),
            (server(0x1000, "unavailable"), false, true, false, true),
            (server(0x1001, "overloaded"), true, true, false, true),
            (server(0x1002, "bootstrapping"), false, true, false, false),
            (server(0x1100, "write timeout"), true, true, true, true),
            (server(0x1200, "read timeout"), false, true, false, false),
            (server(0x1500, "write failure"), false, false, false, false),
            (server(0x2200, "invalid"), false, false, false, false),
        ];
        for (failure, pushback, transient, applied, cluster_wide) in cases {
            let error = alone(failure.clone());
            let seen = (is_pushback(&error), is_transient(&error), may_have_applied(&error), is_cluster_wide(&error));
            assert_eq!((seen, rate_limit(&error)), ((pushback, transient, applied, cluster_wide), None), "{failure:?}");
        }
        // Without an ERROR the reason is the failure in words, and no code.
        let error = alone(RequestError::Timeout { message: "no answer within 10 ms".into(), timeout_ms: 10 });
        assert_eq!(rejection_reason(&error), (None, "no answer within 10 ms".to_owned()));
    }

    #[test]
    fn no_node_left_is_transient_and_push_back_only_when_a_node_pushed_back() {
        let refused = no_node_left(&[server(0x2200, "x")]);
        assert_eq!((is_transient(&refused), is_pushback(&refused)), (true, false));
        // Push-back tried on the nodes only when no node was left: one node's answer alone is not.
        let one = SessionError { no_host_available: false, ..no_node_left(&[server(0x1001, "busy")]) };
        assert!(!is_pushback(&one));
    }

    #[test]
    fn no_node_left_says_the_cluster_struggles_when_a_node_was_unavailable_or_pushed_back() {
        let unavailable = no_node_left(&[server(0x2200, "x"), server(0x1000, "unavailable")]);
        let overloaded = no_node_left(&[server(0x1001, "busy")]);
        let refused = no_node_left(&[server(0x2200, "x"), server(0x0000, "internal")]);
        let seen = [&unavailable, &overloaded, &refused].map(is_cluster_wide);
        assert_eq!(seen, [true, true, false]);
        // One node's Unavailable among the answers counts only when no node was left.
        assert!(!is_cluster_wide(&SessionError { no_host_available: false, ..unavailable }));
    }

    #[test]
    fn a_slot_buffer_grows_to_the_row_and_lets_go_of_more_than_twice_it() {
        let mut buf = Vec::new();
        refill(&mut buf, &[1; 100]);
        refill(&mut buf, &[2; 101]);
        // A byte wider: the exact size, not twice the last.
        assert_eq!(buf, [2; 101]);
        assert!(buf.capacity() < 150, "{}", buf.capacity());
        let mut buf = Vec::new();
        refill(&mut buf, &[3; 100]);
        refill(&mut buf, &[4; 50]);
        // Twice what it takes: kept.
        assert_eq!(buf, [4; 50]);
        assert!(buf.capacity() >= 100, "{}", buf.capacity());
        refill(&mut buf, &[5; 49]);
        // More than twice: cut down.
        assert_eq!(buf, [5; 49]);
        assert!(buf.capacity() < 98, "{}", buf.capacity());
    }

    #[test]
    fn the_default_held_bytes_budget_is_4_mib() {
        assert_eq!(DEFAULT_MAX_HELD_BYTES, 4_194_304);
        assert_eq!(LoadConfig::default().max_held_bytes, 4_194_304);
    }
}
