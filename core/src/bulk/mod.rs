//! The bulk path: raw CSV or JSON Lines bytes in, one serialised value list per row out,
//! ready for an EXECUTE of the prepared INSERT.
//!
//! # How the host drives it
//!
//! Build a [`BulkEncoder`] from a [`BulkConfig`]: the input format, the prepared statement's
//! bind markers as `(name, type)` in order, how input fields map to them, constants, the
//! partition key indexes from the PREPARED metadata and an error budget. Then, for each chunk
//! of the (already decompressed) file, of any size and cut anywhere:
//!
//! ```text
//! encoder.push(chunk);
//! while let Some(outcome) = encoder.next_row() {
//!     match outcome {
//!         RowOutcome::Good { values, token, end_offset, .. } => { /* EXECUTE with `values`,
//!             routed by `token`; the row's input ends at `end_offset` */ }
//!         RowOutcome::Bad { raw, line, column, reason, .. } => { /* `raw` + newline to the
//!             bad file, `line`/`column`/`reason` to the log */ }
//!     }
//! }
//! ```
//!
//! At end of input call [`BulkEncoder::finish`] and drain `next_row` once more: a last
//! line without a line end becomes a row, an open quote a bad row. When `next_row` returns
//! `None`, check [`BulkEncoder::error`]: a header that does not fit the statement, or more
//! bad rows than `limits.errors` allows, stops the encoder for good (later pushes are
//! ignored). [`BulkEncoder::records_exhausted`] says `limits.max` records were read: the input
//! ends there (see [`limits`]).
//!
//! `values` is `[n: u16][value]*` in bind-marker order, each value `[len: i32][bytes]`, -1
//! for null and -2 for unset (a column no input field maps to). It lives in a buffer the
//! encoder reuses, so it must be copied (into the frame being built) before the next call;
//! a good row allocates nothing once the buffers have grown to the largest row. `token` is
//! the Murmur3 token of the partition key when `pk_indexes` is given.
//!
//! Offsets count the bytes pushed (after decompression). [`BulkEncoder::consumed_offset`] is
//! where a restarted load would begin: every byte before it went into a row already returned
//! (good or bad) or was skipped (header, blank lines, comments). A checkpoint is the smallest
//! `offset` of the rows not yet acknowledged, or `consumed_offset` when all are.
//!
//! # Field text
//!
//! Each field is read by its column's type with [`encode_text`]. In CSV an unquoted field
//! equal to one of [`TextOptions::null_markers`] is null (by default only the empty field:
//! `a,,c`), while a quoted field is always text, never a null marker: `a,"",c` is an empty
//! string, as in DSBulk (and, for a non-text column, an error: an empty string is no number).
//! In JSON Lines `null` is null; strings are read as field text (never as null markers);
//! numbers and `true`/`false` by their JSON text; arrays and objects (collections, tuples,
//! UDTs, vectors) as their JSON text. A key no column maps to is ignored; a missing key
//! leaves its column unset.
//!
//! # Mapping
//!
//! - [`Mapping::Auto`]: CSV with a header maps each header name to the column of that name
//!   (exact, else a unique case-insensitive match); a name matching no column is a
//!   [`BulkError`] unless `ignore_unknown`. CSV without a header maps fields by position to
//!   the columns that have no constant, and rows must have exactly that many fields. JSON
//!   Lines maps keys to columns by name the same way.
//! - [`Mapping::Explicit`]: only the given `field=column` pairs are read. A field is a header
//!   name or key, or a 0-based position (CSV only; without a header rows must have at least
//!   as many fields as the highest position needs).
//! - Constants give a column the same value on every row, encoded once up front; a constant
//!   column cannot also be read from the input (for JSON Lines, its key is ignored).
//! - A partition key column (`pk_indexes`) that is null or unset makes the row bad, since
//!   the server would refuse it; in CSV, leaving one unmapped is a [`BulkError`].
//!
//! # Null or unset
//!
//! With [`BulkConfig::null_to_unset`] (the default, as DSBulk's `nullToUnset`) a null field
//! (a null marker in CSV, `null` in JSON Lines) leaves its column unset (-2) rather than
//! binding null (-1): an unset column is not written, so an existing value stays and no
//! tombstone is created. Partition key columns keep null, so the row is reported as having a
//! null key. Nulls inside collections, tuples and UDTs are elements, never unset.

pub mod cell_times;
pub mod csv;
pub mod header;
pub mod json_array;
pub mod jsonl;
pub mod limits;
pub mod load;
mod options;
mod record_buffer;
pub mod registry;
pub mod sniff;
mod sniff_types;
pub mod write_order;

use crate::name_map::NameMap;
use std::fmt;
use std::ops::Range;

use crate::session::token_from_values;
use crate::types::{encode_text, ColumnType, ConversionSettings, TextOptions};

use self::cell_times::{read_time, Parts, Resolved};
pub use self::cell_times::{CellTime, CellTimes};
pub use self::csv::{CsvFault, CsvOptions, CsvReader, CsvRecord, FieldSpan, DEFAULT_MAX_RECORD_BYTES};
use self::json_array::{JsonArrayReader, JsonRecords};
pub use self::jsonl::{JsonFault, JsonKind, JsonValue, JsonlLine, JsonlReader, ObjectScanner};
use self::limits::{Admit, LimitExceeded, RecordCounter};
pub use self::limits::{ErrorLimit, RecordLimits};
pub use self::options::BulkOptions;

/// The input format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    Csv(CsvOptions),
    /// One JSON object per line; `max_record_bytes` caps a line's size.
    Jsonl {
        max_record_bytes: usize,
    },
    /// One JSON array of objects, read element by element ([`json_array`]); each object is
    /// read as a JSON Lines line is.
    JsonArray {
        max_record_bytes: usize,
    },
}

impl Format {
    /// JSON Lines with the default line size limit.
    pub fn jsonl() -> Self {
        Format::Jsonl { max_record_bytes: DEFAULT_MAX_RECORD_BYTES }
    }
}

/// An input field: a header name or JSON key, or a 0-based position in a CSV record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldRef {
    Name(String),
    Index(usize),
}

/// How input fields map to the statement's columns.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Mapping {
    /// By name (CSV header, JSON keys), or by position for CSV without a header.
    #[default]
    Auto,
    /// Only these `(field, column)` pairs.
    Explicit(Vec<(FieldRef, String)>),
}

impl Mapping {
    /// Reads `field=column` pairs separated by commas (`name=name, 0=id`); a field of digits
    /// only is a position. An empty text or `*` is [`Mapping::Auto`].
    pub fn parse(text: &str) -> Result<Mapping, BulkError> {
        let text = text.trim();
        if text.is_empty() || text == "*" {
            return Ok(Mapping::Auto);
        }
        let mut pairs = Vec::new();
        for pair in text.split(',') {
            let Some((field, column)) = pair.split_once('=') else {
                return Err(BulkError::Config(format!("mapping entry '{}' is not field=column", pair.trim())));
            };
            let (field, column) = (field.trim(), column.trim());
            if field.is_empty() || column.is_empty() {
                return Err(BulkError::Config(format!("mapping entry '{}' is not field=column", pair.trim())));
            }
            let field = match field.parse::<usize>() {
                Ok(index) if field.bytes().all(|b| b.is_ascii_digit()) => FieldRef::Index(index),
                _ => FieldRef::Name(field.to_owned()),
            };
            pairs.push((field, column.to_owned()));
        }
        Ok(Mapping::Explicit(pairs))
    }
}

/// Everything a [`BulkEncoder`] needs to know.
#[derive(Debug, Clone)]
pub struct BulkConfig {
    pub format: Format,
    pub text: TextOptions,
    /// The bind markers of the prepared INSERT, in order.
    pub columns: Vec<(String, ColumnType)>,
    pub mapping: Mapping,
    /// `(column, text)`: the column takes this value (read by its type) on every row.
    pub constants: Vec<(String, String)>,
    /// The partition key's bind marker indexes, from the PREPARED metadata, in key order.
    pub pk_indexes: Vec<u16>,
    /// Records to skip and to read at most, and the bad rows that stop the load.
    pub limits: RecordLimits,
    /// CSV header names that match no column are skipped instead of failing.
    pub ignore_unknown: bool,
    /// A null field leaves its column unset instead of binding null (default true).
    pub null_to_unset: bool,
    /// Per-cell write times and TTLs to load back (CSV only). See [`cell_times`].
    pub cell_times: Option<CellTimes>,
    /// CSV without a header: the exact number of fields of a record.
    pub field_count: Option<usize>,
}

impl BulkConfig {
    /// Automatic mapping, default text options, no constants, no routing, no error limit.
    pub fn new(format: Format, columns: Vec<(String, ColumnType)>) -> Self {
        BulkConfig {
            format,
            text: TextOptions::default(),
            columns,
            mapping: Mapping::Auto,
            constants: Vec::new(),
            pk_indexes: Vec::new(),
            limits: RecordLimits::default(),
            ignore_unknown: false,
            null_to_unset: true,
            cell_times: None,
            field_count: None,
        }
    }
}

impl BulkConfig {
    /// Applies the host's conversion settings (text options and null-to-unset).
    pub fn apply_conversion(&mut self, settings: &ConversionSettings) -> Result<(), BulkError> {
        settings.apply(&mut self.text).map_err(BulkError::Config)?;
        if let Some(null_to_unset) = settings.null_to_unset {
            self.null_to_unset = null_to_unset;
        }
        Ok(())
    }
}

/// Why the encoder cannot go on: the configuration, or the input as a whole, is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BulkError {
    /// Options, mapping, constants or key indexes that do not fit the statement.
    Config(String),
    /// The CSV header (at `line`) does not fit the mapping or the statement.
    Header { line: u64, reason: String },
    /// More than `limit` rows were bad.
    TooManyErrors { limit: u64 },
    /// The input as a whole is malformed where no row can be told apart (a JSON array's
    /// structure).
    Document(String),
    /// More than `basis_points` / 100 percent of the `records` read were bad.
    TooManyErrorsShare { basis_points: u32, bad: u64, records: u64 },
}

impl fmt::Display for BulkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BulkError::Config(reason) => write!(f, "bulk configuration: {reason}"),
            BulkError::Header { line, reason } => write!(f, "header at line {line}: {reason}"),
            BulkError::TooManyErrors { limit } => write!(f, "more than {limit} bad rows: stopping"),
            BulkError::Document(reason) => write!(f, "{reason}"),
            BulkError::TooManyErrorsShare { basis_points, bad, records } => write!(
                f,
                "{bad} of {records} rows were bad, more than {}%: stopping",
                limits::percent_text(*basis_points)
            ),
        }
    }
}

impl std::error::Error for BulkError {}

/// Where in a bad row the problem is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BadColumn {
    /// The statement's column.
    Name(String),
    /// A 0-based CSV field that maps to no column.
    Field(usize),
    /// A 0-based byte offset in the record (for JSON syntax and invalid UTF-8 in a line).
    Byte(usize),
}

impl fmt::Display for BadColumn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadColumn::Name(name) => write!(f, "column {name}"),
            BadColumn::Field(index) => write!(f, "field {}", index + 1),
            BadColumn::Byte(offset) => write!(f, "byte {offset}"),
        }
    }
}

/// Why a row will not be loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum BadRowKind {
    /// The record cannot be read: CSV quoting, JSON syntax, the number of fields.
    Syntax,
    /// The record is over a limit (its bytes, its number of fields): only its head is kept.
    Size,
    /// A field or line is not valid UTF-8.
    Encoding,
    /// A field's value does not fit its column, or a partition key column is null or unset.
    Value,
    /// The server refused the row (its error code travels beside it when it answered one).
    Rejected,
    /// The session could not send the row (not connected, the statement unknown).
    NotSent,
    /// An earlier run of a non-idempotent load sent the row and saw no acknowledgement: it
    /// may have been applied, so it is not sent again.
    Uncertain,
}

impl BadRowKind {
    /// The number that carries the kind across the WASM boundary.
    pub fn code(self) -> u8 {
        match self {
            BadRowKind::Syntax => 1,
            BadRowKind::Size => 2,
            BadRowKind::Encoding => 3,
            BadRowKind::Value => 4,
            BadRowKind::Rejected => 5,
            BadRowKind::NotSent => 6,
            BadRowKind::Uncertain => 7,
        }
    }
}

/// One input row, encoded or refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowOutcome<'a> {
    Good {
        /// `[n: u16][value]*`, valid until the next call on the encoder.
        values: &'a [u8],
        /// The row's bytes as read, line end excluded: what goes to the bad file if the
        /// server later rejects the row.
        raw: &'a [u8],
        token: Option<i64>,
        /// 1-based line where the row starts.
        line: u64,
        /// Absolute byte offset of the row's first byte.
        offset: u64,
        /// Absolute byte offset just past the row's line end (equal to `offset` while
        /// `continues`).
        end_offset: u64,
        /// More parts of the same input row follow (per-cell write times, see
        /// [`cell_times`]).
        continues: bool,
    },
    Bad {
        /// The row's bytes as read, line end excluded (for an oversized row, its head only).
        raw: &'a [u8],
        line: u64,
        offset: u64,
        end_offset: u64,
        kind: BadRowKind,
        column: Option<BadColumn>,
        reason: String,
    },
}

/// Counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BulkStats {
    pub good_rows: u64,
    pub bad_rows: u64,
    pub bytes_pushed: u64,
    pub consumed_offset: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    /// No input field: the value is unset.
    Unset,
    /// A range of the encoded constants.
    Constant(Range<usize>),
    /// A CSV field position, or for JSON Lines the column's own slot.
    Field(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Width {
    Exactly(usize),
    AtLeast(usize),
}

/// The mapping once resolved against the input's fields.
#[derive(Debug, Clone)]
struct Plan {
    sources: Vec<Source>,
    /// CSV only.
    width: Width,
}

#[derive(Debug)]
enum Input {
    Csv(CsvReader),
    Jsonl {
        reader: JsonRecords,
        scanner: ObjectScanner,
        slots: Vec<Option<JsonValue>>,
        /// Key to column.
        keys: NameMap<usize>,
        /// Whether keys also match column names case-insensitively.
        fold_case: bool,
    },
}

/// What one step of [`BulkEncoder::next_row`] found; holds no borrow, so that the outcome
/// can borrow the encoder afresh.
enum Step {
    Good {
        token: Option<i64>,
        line: u64,
        offset: u64,
        end_offset: u64,
    },
    Bad {
        line: u64,
        offset: u64,
        end_offset: u64,
        kind: BadRowKind,
        column: Option<BadColumn>,
        reason: String,
        value: Option<String>,
    },
    /// Something that is not a row (the header) was consumed.
    Skipped,
    NeedInput,
    Fatal(BulkError),
}

/// A bad row's kind, column and reason.
struct RowError {
    kind: BadRowKind,
    column: Option<BadColumn>,
    reason: String,
    /// The text of the field at fault, when one field is.
    value: Option<String>,
}

/// The field text kept with a bad row: enough to recognise it in a log line.
const BAD_VALUE_KEPT: usize = 256;

fn bad_value(text: &str) -> Option<String> {
    let mut end = text.len().min(BAD_VALUE_KEPT);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Some(text[..end].to_owned())
}

/// Parses input and encodes rows. See the module documentation.
#[derive(Debug)]
pub struct BulkEncoder {
    input: Input,
    columns: Vec<(String, ColumnType)>,
    text: TextOptions,
    /// `text` without null markers, for quoted CSV fields and JSON values.
    literal: TextOptions,
    /// Each constant's `[value]`, by column.
    constants: Vec<u8>,
    constant_of: Vec<Option<Range<usize>>>,
    /// Resolved explicit mapping: (field, column index).
    explicit: Option<Vec<(FieldRef, usize)>>,
    plan: Option<Plan>,
    pk_indexes: Vec<u16>,
    records: RecordCounter,
    ignore_unknown: bool,
    /// By column: a null field binds unset (-2) instead of null (-1).
    null_is_unset: Vec<bool>,
    cell_times: Option<Resolved>,
    /// The parts of the current row not yet returned (with cell times).
    parts: Parts,
    values: Vec<u8>,
    starts: Vec<usize>,
    fatal: Option<BulkError>,
    good_rows: u64,
    bad_rows: u64,
    /// The field text at fault in the last bad row returned, when one field was.
    bad_value: Option<String>,
}

/// The columns `name` maps to: every one of exactly that name (a named bind marker may appear
/// twice in a statement), else the only case-insensitive match.
fn same_named(columns: &[(String, ColumnType)], name: &str) -> Vec<usize> {
    let exact: Vec<usize> = columns.iter().enumerate().filter(|(_, (c, _))| c == name).map(|(i, _)| i).collect();
    if exact.is_empty() {
        find_column(columns, name).into_iter().collect()
    } else {
        exact
    }
}

/// The column called `name`: an exact match, else the only case-insensitive one.
fn find_column(columns: &[(String, ColumnType)], name: &str) -> Option<usize> {
    if let Some(i) = columns.iter().position(|(c, _)| c == name) {
        return Some(i);
    }
    let mut matches = columns.iter().enumerate().filter(|(_, (c, _))| c.eq_ignore_ascii_case(name));
    match (matches.next(), matches.next()) {
        (Some((i, _)), None) => Some(i),
        _ => None,
    }
}

fn column_list(columns: &[(String, ColumnType)]) -> String {
    columns.iter().map(|(name, _)| name.as_str()).collect::<Vec<_>>().join(", ")
}

impl BulkEncoder {
    pub fn new(config: BulkConfig) -> Result<Self, BulkError> {
        let BulkConfig {
            format,
            text,
            columns,
            mapping,
            constants,
            pk_indexes,
            limits,
            ignore_unknown,
            null_to_unset,
            cell_times,
            field_count,
        } = config;
        let config_error = |reason: String| BulkError::Config(reason);
        if columns.len() > u16::MAX as usize {
            return Err(config_error(format!("{} columns; a statement binds at most {}", columns.len(), u16::MAX)));
        }
        for &pk in &pk_indexes {
            if pk as usize >= columns.len() {
                return Err(config_error(format!(
                    "partition key index {pk} is beyond the statement's {} columns",
                    columns.len()
                )));
            }
        }
        let lookup = |name: &str| {
            find_column(&columns, name).ok_or_else(|| {
                config_error(format!("no column '{name}' in the statement (columns: {})", column_list(&columns)))
            })
        };

        let mut constant_bytes = Vec::new();
        let mut constant_of: Vec<Option<Range<usize>>> = vec![None; columns.len()];
        for (column, value) in &constants {
            let index = lookup(column)?;
            let (name, ty) = &columns[index];
            let start = constant_bytes.len();
            encode_text(ty, value, &text, &mut constant_bytes)
                .map_err(|e| config_error(format!("constant for column {name}: {e}")))?;
            if constant_of[index].replace(start..constant_bytes.len()).is_some() {
                return Err(config_error(format!("column {name} has two constants")));
            }
        }

        let explicit = match &mapping {
            Mapping::Auto => None,
            Mapping::Explicit(pairs) => {
                let mut resolved = Vec::with_capacity(pairs.len());
                let mut mapped = vec![false; columns.len()];
                for (field, column) in pairs {
                    // A named marker used twice in a statement binds twice: the field feeds both.
                    lookup(column)?;
                    for index in same_named(&columns, column) {
                        let name = &columns[index].0;
                        if constant_of[index].is_some() {
                            return Err(config_error(format!("column {name} has a constant and is also mapped")));
                        }
                        if std::mem::replace(&mut mapped[index], true) {
                            return Err(config_error(format!("column {name} is mapped twice")));
                        }
                        resolved.push((field.clone(), index));
                    }
                }
                Some(resolved)
            }
        };

        let array = matches!(format, Format::JsonArray { .. });
        let (input, plan) = match format {
            Format::Csv(opts) => {
                let header = opts.header;
                let reader = CsvReader::new(opts).map_err(config_error)?;
                // Without a header the mapping is known now; with one, once it is read.
                let plan = if header {
                    None
                } else {
                    let mut plan = Self::headerless_plan(&columns, &constant_of, &explicit)?;
                    if let Some(count) = field_count {
                        plan.width = Width::Exactly(count);
                    }
                    Some(plan)
                };
                (Input::Csv(reader), plan)
            }
            Format::Jsonl { max_record_bytes } | Format::JsonArray { max_record_bytes } => {
                let mut keys = NameMap::default();
                let mut sources: Vec<Source> = vec![Source::Unset; columns.len()];
                match &explicit {
                    None => {
                        for (index, (name, _)) in columns.iter().enumerate() {
                            if constant_of[index].is_none() {
                                keys.insert(name, index);
                                sources[index] = Source::Field(index);
                            }
                        }
                    }
                    Some(pairs) => {
                        for (field, index) in pairs {
                            match field {
                                FieldRef::Name(key) => {
                                    // One key may feed several columns: they share its slot.
                                    let slot = *keys.get_or_insert(key, *index);
                                    sources[*index] = Source::Field(slot);
                                }
                                FieldRef::Index(position) => {
                                    return Err(config_error(format!(
                                        "JSON Lines fields are keys, not positions ({position})"
                                    )))
                                }
                            }
                        }
                    }
                }
                let fold_case = explicit.is_none();
                let input = Input::Jsonl {
                    reader: if array {
                        JsonRecords::Array(JsonArrayReader::new(max_record_bytes))
                    } else {
                        JsonRecords::Lines(JsonlReader::new(max_record_bytes))
                    },
                    scanner: ObjectScanner::new(),
                    slots: Vec::with_capacity(columns.len()),
                    keys,
                    fold_case,
                };
                (input, Some(Plan { sources, width: Width::AtLeast(0) }))
            }
        };

        let null_is_unset = (0..columns.len()).map(|i| null_to_unset && !pk_indexes.contains(&(i as u16))).collect();
        let cell_times = match (&cell_times, &input) {
            (None, _) => None,
            (Some(_), Input::Jsonl { .. }) => return Err(config_error("cell times need CSV input".into())),
            (Some(config), Input::Csv(_)) => {
                let mut resolved = Resolved::new(config, |name| find_column(&columns, name)).map_err(config_error)?;
                if plan.is_some() {
                    if explicit.is_none() {
                        return Err(config_error("cell times without a header need an explicit mapping".into()));
                    }
                    resolved.place(None).map_err(config_error)?;
                }
                Some(resolved)
            }
        };
        let mut encoder = BulkEncoder {
            input,
            literal: TextOptions { null_markers: Vec::new(), ..text.clone() },
            text,
            constants: constant_bytes,
            constant_of,
            explicit,
            plan: None,
            pk_indexes,
            records: RecordCounter::new(limits),
            ignore_unknown,
            null_is_unset,
            cell_times,
            parts: Parts::default(),
            values: Vec::new(),
            starts: vec![0; columns.len()],
            columns,
            fatal: None,
            good_rows: 0,
            bad_rows: 0,
            bad_value: None,
        };
        if let Some(plan) = plan {
            encoder.install_plan(plan, matches!(encoder.input, Input::Csv(_))).map_err(config_error)?;
        }
        Ok(encoder)
    }

    /// The CSV plan without a header: by position, or by the explicit positions.
    fn headerless_plan(
        columns: &[(String, ColumnType)],
        constant_of: &[Option<Range<usize>>],
        explicit: &Option<Vec<(FieldRef, usize)>>,
    ) -> Result<Plan, BulkError> {
        let mut sources = vec![Source::Unset; columns.len()];
        let width = match explicit {
            None => {
                let mut position = 0;
                for (index, source) in sources.iter_mut().enumerate() {
                    if constant_of[index].is_none() {
                        *source = Source::Field(position);
                        position += 1;
                    }
                }
                Width::Exactly(position)
            }
            Some(pairs) => {
                let mut needed = 0;
                for (field, index) in pairs {
                    match field {
                        FieldRef::Index(position) => {
                            sources[*index] = Source::Field(*position);
                            needed = needed.max(position.saturating_add(1));
                        }
                        FieldRef::Name(name) => {
                            return Err(BulkError::Config(format!(
                                "field '{name}' is mapped by name, but the CSV has no header"
                            )))
                        }
                    }
                }
                Width::AtLeast(needed)
            }
        };
        Ok(Plan { sources, width })
    }

    /// The CSV plan from the header's field names.
    fn header_plan(&self, names: &[&str]) -> Result<Plan, String> {
        let columns = &self.columns;
        let mut sources = vec![Source::Unset; columns.len()];
        match &self.explicit {
            None => {
                for (position, name) in names.iter().enumerate() {
                    if self.cell_times.as_ref().is_some_and(|r| r.fields().any(|field| field == position)) {
                        continue;
                    }
                    let Some(index) = find_column(columns, name) else {
                        if self.ignore_unknown {
                            continue;
                        }
                        return Err(format!(
                            "field '{name}' matches no column of the statement (columns: {})",
                            column_list(columns)
                        ));
                    };
                    let column = &columns[index].0;
                    if self.constant_of[index].is_some() {
                        return Err(format!("field '{name}' feeds column {column}, which has a constant"));
                    }
                    if sources[index] != Source::Unset {
                        return Err(format!("two fields feed column {column}"));
                    }
                    sources[index] = Source::Field(position);
                }
            }
            Some(pairs) => {
                for (field, index) in pairs {
                    let position = match field {
                        FieldRef::Index(position) if *position < names.len() => *position,
                        FieldRef::Index(position) => {
                            return Err(format!("mapped field position {position} but the header has {}", names.len()))
                        }
                        FieldRef::Name(name) => {
                            let mut found = names.iter().enumerate().filter(|(_, n)| *n == name);
                            match (found.next(), found.next()) {
                                (Some((position, _)), None) => position,
                                (Some(_), Some(_)) => return Err(format!("the header names field '{name}' twice")),
                                (None, _) => return Err(format!("mapped field '{name}' is not in the header")),
                            }
                        }
                    };
                    sources[*index] = Source::Field(position);
                }
            }
        }
        Ok(Plan { sources, width: Width::Exactly(names.len()) })
    }

    /// Fills constants into `plan` and checks that the partition key is fed.
    fn install_plan(&mut self, mut plan: Plan, check_key: bool) -> Result<(), String> {
        for (index, source) in plan.sources.iter_mut().enumerate() {
            if let Some(range) = &self.constant_of[index] {
                *source = Source::Constant(range.clone());
            }
        }
        if check_key {
            for &pk in &self.pk_indexes {
                if plan.sources.get(pk as usize) == Some(&Source::Unset) {
                    let name = self.columns.get(pk as usize).map_or("?", |(n, _)| n.as_str());
                    return Err(format!("partition key column {name} is not mapped to any field"));
                }
            }
        }
        self.plan = Some(plan);
        Ok(())
    }

    /// Appends input. Ignored once the encoder has stopped or after [`BulkEncoder::finish`].
    pub fn push(&mut self, chunk: &[u8]) {
        if self.fatal.is_some() {
            return;
        }
        match &mut self.input {
            Input::Csv(reader) => reader.push(chunk),
            Input::Jsonl { reader, .. } => reader.push(chunk),
        }
    }

    /// Marks the end of input.
    pub fn finish(&mut self) {
        match &mut self.input {
            Input::Csv(reader) => reader.finish(),
            Input::Jsonl { reader, .. } => reader.finish(),
        }
    }

    /// `limits.max` records were read: the input ends here, whatever follows.
    pub fn records_exhausted(&self) -> bool {
        self.records.exhausted()
    }

    /// The text of the field at fault in the last bad row returned, when one field was
    /// (cut to its first 256 bytes).
    pub fn bad_value(&self) -> Option<&str> {
        self.bad_value.as_deref()
    }

    /// Why the encoder stopped, if it did.
    pub fn error(&self) -> Option<&BulkError> {
        self.fatal.as_ref()
    }

    /// The statement's columns, as configured.
    pub fn columns(&self) -> &[(String, ColumnType)] {
        &self.columns
    }

    /// The 0-based CSV field that feeds `column`, once the mapping is known (`None` for JSON
    /// Lines, whose fields are keys).
    pub fn input_field(&self, column: &str) -> Option<usize> {
        if !matches!(self.input, Input::Csv(_)) {
            return None;
        }
        let index = self.columns.iter().position(|(name, _)| name == column)?;
        match self.plan.as_ref()?.sources.get(index)? {
            Source::Field(position) => Some(*position),
            _ => None,
        }
    }

    /// The partition key's bind positions (from the PREPARED metadata).
    pub fn pk_indexes(&self) -> &[u16] {
        &self.pk_indexes
    }

    /// Where a restarted load would begin: every byte before it is in a row already
    /// returned, or was skipped.
    pub fn consumed_offset(&self) -> u64 {
        match &self.input {
            Input::Csv(reader) => reader.consumed_offset(),
            Input::Jsonl { reader, .. } => reader.consumed_offset(),
        }
    }

    pub fn stats(&self) -> BulkStats {
        let bytes_pushed = match &self.input {
            Input::Csv(reader) => reader.bytes_pushed(),
            Input::Jsonl { reader, .. } => reader.bytes_pushed(),
        };
        BulkStats {
            good_rows: self.good_rows,
            bad_rows: self.bad_rows,
            bytes_pushed,
            consumed_offset: self.consumed_offset(),
        }
    }

    /// The next row, or `None` when more input is needed, all input is consumed, or the
    /// encoder stopped ([`BulkEncoder::error`]).
    pub fn next_row(&mut self) -> Option<RowOutcome<'_>> {
        if self.parts.pending() {
            return Some(self.next_part());
        }
        loop {
            if self.fatal.is_some() || self.records.exhausted() {
                return None;
            }
            let step = match self.input {
                Input::Csv(_) => self.csv_step(),
                Input::Jsonl { .. } => self.jsonl_step(),
            };
            if matches!(step, Step::Good { .. } | Step::Bad { .. }) && self.records.admit() == Admit::Skip {
                continue;
            }
            match step {
                Step::NeedInput => return None,
                Step::Skipped => continue,
                Step::Fatal(error) => {
                    self.fatal = Some(error);
                    return None;
                }
                Step::Good { token, line, offset, end_offset } if self.cell_times.is_some() => {
                    match self.start_parts(token, line, offset, end_offset) {
                        Ok(()) => {
                            self.good_rows += 1;
                            return Some(self.next_part());
                        }
                        Err(RowError { column, reason, kind, value }) => {
                            self.bad_rows += 1;
                            self.bad_value = value;
                            let raw = match &self.input {
                                Input::Csv(reader) => reader.raw(),
                                Input::Jsonl { reader, .. } => reader.raw(),
                            };
                            return Some(RowOutcome::Bad { raw, line, offset, end_offset, column, reason, kind });
                        }
                    }
                }
                Step::Good { token, line, offset, end_offset } => {
                    self.good_rows += 1;
                    let raw = match &self.input {
                        Input::Csv(reader) => reader.raw(),
                        Input::Jsonl { reader, .. } => reader.raw(),
                    };
                    let values = &self.values;
                    return Some(RowOutcome::Good { values, raw, token, line, offset, end_offset, continues: false });
                }
                Step::Bad { line, offset, end_offset, kind, column, reason, value } => {
                    self.bad_rows += 1;
                    self.bad_value = value;
                    self.fatal = self.records.bad_row().map(|exceeded| match exceeded {
                        LimitExceeded::Count { limit } => BulkError::TooManyErrors { limit },
                        LimitExceeded::Share { basis_points, bad, records } => {
                            BulkError::TooManyErrorsShare { basis_points, bad, records }
                        }
                    });
                    let raw = match &self.input {
                        Input::Csv(reader) => reader.raw(),
                        Input::Jsonl { reader, .. } => reader.raw(),
                    };
                    return Some(RowOutcome::Bad { raw, line, offset, end_offset, kind, column, reason });
                }
            }
        }
    }

    /// Reads the current CSV row's cell times and groups its encoded values into parts.
    fn start_parts(&mut self, token: Option<i64>, line: u64, offset: u64, end_offset: u64) -> Result<(), RowError> {
        let (Some(resolved), Input::Csv(reader)) = (&self.cell_times, &self.input) else { return Ok(()) };
        let parts = &mut self.parts;
        parts.full.clear();
        parts.full.extend_from_slice(&self.values);
        parts.starts.clear();
        parts.starts.extend_from_slice(&self.starts);
        parts.times.clear();
        let field = |position: Option<usize>| -> &str {
            let span = position.and_then(|p| reader.fields().get(p).copied());
            span.and_then(|span| std::str::from_utf8(reader.field_bytes(span)).ok()).unwrap_or("")
        };
        for cell in &resolved.timed {
            let name = self.columns.get(cell.column).map_or("?", |(n, _)| n.as_str());
            let fail = |reason: std::borrow::Cow<'static, str>| RowError {
                kind: BadRowKind::Value,
                column: Some(BadColumn::Name(name.to_owned())),
                reason: format!("column {name}: {reason}"),
                value: None,
            };
            let at = parts.starts.get(cell.column).copied().unwrap_or(0);
            let unset = parts.full.get(at..at + 4) == Some(&(-2i32).to_be_bytes()[..]);
            let writetime = read_time::<i64>(field(cell.writetime), "write time").map_err(fail)?;
            let ttl = read_time::<i32>(field(cell.ttl), "TTL").map_err(fail)?;
            parts.times.push((!unset).then_some((writetime, ttl)));
        }
        parts.group();
        (parts.token, parts.line, parts.offset, parts.end_offset) = (token, line, offset, end_offset);
        Ok(())
    }

    /// The next part of the current row (see [`cell_times`]).
    fn next_part(&mut self) -> RowOutcome<'_> {
        let last = match &self.cell_times {
            Some(resolved) => self.parts.build(resolved, &self.columns, &mut self.values, &mut self.starts),
            None => true,
        };
        let raw = match &self.input {
            Input::Csv(reader) => reader.raw(),
            Input::Jsonl { reader, .. } => reader.raw(),
        };
        let Parts { token, line, offset, end_offset, .. } = self.parts;
        let end_offset = if last { end_offset } else { offset };
        RowOutcome::Good { values: &self.values, raw, token, line, offset, end_offset, continues: !last }
    }

    fn csv_step(&mut self) -> Step {
        let Input::Csv(reader) = &mut self.input else { return Step::NeedInput };
        let Some(record) = reader.next_record() else { return Step::NeedInput };
        let bad = |kind, column, reason| Step::Bad {
            line: record.line,
            offset: record.offset,
            end_offset: record.end_offset,
            kind,
            column,
            reason,
            value: None,
        };
        let Some(plan) = &self.plan else {
            return match self.read_header(record) {
                Ok(()) => Step::Skipped,
                Err(reason) => Step::Fatal(BulkError::Header { line: record.line, reason }),
            };
        };
        let Input::Csv(reader) = &self.input else { return Step::NeedInput };
        if let Some(fault) = record.fault {
            let column = fault.field().map(|field| self.field_column(plan, field));
            let kind = match fault {
                CsvFault::TooLong { .. } | CsvFault::TooManyFields { .. } => BadRowKind::Size,
                CsvFault::UnterminatedQuote { .. } | CsvFault::TextAfterClosingQuote { .. } => BadRowKind::Syntax,
            };
            return bad(kind, column, fault.to_string());
        }
        let found = reader.fields().len();
        match plan.width {
            Width::Exactly(n) if found != n => {
                return bad(BadRowKind::Syntax, None, format!("expected {n} fields, found {found}"))
            }
            Width::AtLeast(n) if found < n => {
                return bad(BadRowKind::Syntax, None, format!("expected at least {n} fields, found {found}"))
            }
            _ => {}
        }
        let BulkEncoder { columns, text, literal, constants, values, starts, null_is_unset, .. } = self;
        let encoded = encode_row(columns, &plan.sources, constants, values, starts, |index, name, ty, out| {
            let Some(&Source::Field(position)) = plan.sources.get(index) else { return Ok(()) };
            let Some(&span) = reader.fields().get(position) else {
                return Err(RowError {
                    kind: BadRowKind::Syntax,
                    column: Some(BadColumn::Name(name.to_owned())),
                    reason: "missing field".into(),
                    value: None,
                });
            };
            let field = std::str::from_utf8(reader.field_bytes(span)).map_err(|e| RowError {
                kind: BadRowKind::Encoding,
                column: Some(BadColumn::Name(name.to_owned())),
                reason: format!("column {name}: invalid UTF-8 at byte {} of the field", e.valid_up_to()),
                value: None,
            })?;
            let opts = if span.quoted { &*literal } else { &*text };
            let at = out.len();
            encode_text(ty, field, opts, out).map_err(|e| RowError {
                kind: BadRowKind::Value,
                column: Some(BadColumn::Name(name.to_owned())),
                reason: format!("column {name}: {e}"),
                value: bad_value(field),
            })?;
            if null_is_unset.get(index) == Some(&true) {
                null_to_unset(out, at);
            }
            Ok(())
        });
        self.finish_row(encoded, record.line, record.offset, record.end_offset)
    }

    /// The column a bad field feeds, by a scan of the plan: bad rows only, and no table sized by
    /// the largest position a mapping declares (`99999999=k` must not allocate 99,999,999 slots).
    fn field_column(&self, plan: &Plan, field: usize) -> BadColumn {
        let column = plan.sources.iter().rposition(|source| *source == Source::Field(field));
        match column.and_then(|c| self.columns.get(c)) {
            Some((name, _)) => BadColumn::Name(name.clone()),
            None => BadColumn::Field(field),
        }
    }

    fn read_header(&mut self, record: CsvRecord) -> Result<(), String> {
        let Input::Csv(reader) = &self.input else { return Ok(()) };
        if let Some(fault) = record.fault {
            return Err(fault.to_string());
        }
        let mut names = Vec::with_capacity(reader.fields().len());
        for (position, span) in reader.fields().iter().enumerate() {
            let name = std::str::from_utf8(reader.field_bytes(*span))
                .map_err(|e| format!("field {} is not UTF-8 (at byte {})", position + 1, e.valid_up_to()))?;
            names.push(name);
        }
        if let Some(resolved) = &mut self.cell_times {
            resolved.place(Some(&names))?;
        }
        let plan = self.header_plan(&names)?;
        self.install_plan(plan, true)
    }

    fn jsonl_step(&mut self) -> Step {
        let BulkEncoder { input, columns, text: _, literal, constants, values, starts, plan, null_is_unset, .. } = self;
        let Input::Jsonl { reader, scanner, slots, keys, fold_case } = input else { return Step::NeedInput };
        let line = match reader.next_record() {
            None => return Step::NeedInput,
            Some(Ok(line)) => line,
            Some(Err(fault)) => return Step::Fatal(BulkError::Document(fault.to_string())),
        };
        let Some(plan) = plan.as_ref() else { return Step::NeedInput };
        let bad = |kind, column, reason| Step::Bad {
            line: line.line,
            offset: line.offset,
            end_offset: line.end_offset,
            kind,
            column,
            reason,
            value: None,
        };
        if let Some((limit, kept)) = line.too_long {
            let reason = format!("record exceeds {limit} bytes (only its first {kept} bytes are kept)");
            return bad(BadRowKind::Size, None, reason);
        }
        let text = match std::str::from_utf8(reader.raw()) {
            Ok(text) => text,
            Err(e) => {
                let at = e.valid_up_to();
                return bad(BadRowKind::Encoding, Some(BadColumn::Byte(at)), format!("invalid UTF-8 at byte {at}"));
            }
        };
        slots.clear();
        slots.resize(columns.len(), None);
        let slot_of = |key: &str| match keys.get(key) {
            Some(&index) => Some(index),
            None if *fold_case => {
                find_column(columns, key).filter(|&i| matches!(plan.sources.get(i), Some(Source::Field(_))))
            }
            None => None,
        };
        if let Err(fault) = scanner.scan(text, slot_of, slots) {
            let column = match fault.slot.and_then(|s| columns.get(s)) {
                Some((name, _)) => BadColumn::Name(name.clone()),
                None => BadColumn::Byte(fault.offset),
            };
            return bad(BadRowKind::Syntax, Some(column), fault.to_string());
        }
        let encoded = encode_row(columns, &plan.sources, constants, values, starts, |index, name, ty, out| {
            let slot = match plan.sources.get(index) {
                Some(&Source::Field(slot)) => slot,
                _ => index,
            };
            let Some(value) = slots.get(slot).copied().flatten() else {
                out.extend_from_slice(&(-2i32).to_be_bytes());
                return Ok(());
            };
            let field = match value.kind {
                JsonKind::Null => {
                    let length: i32 = if null_is_unset.get(index) == Some(&true) { -2 } else { -1 };
                    out.extend_from_slice(&length.to_be_bytes());
                    return Ok(());
                }
                JsonKind::True | JsonKind::False if *ty == ColumnType::Boolean => {
                    out.extend_from_slice(&1i32.to_be_bytes());
                    out.push(u8::from(value.kind == JsonKind::True));
                    return Ok(());
                }
                JsonKind::String => scanner.string(value),
                _ => text.get(value.start..value.end).unwrap_or(""),
            };
            encode_text(ty, field, literal, out).map_err(|e| RowError {
                kind: BadRowKind::Value,
                column: Some(BadColumn::Name(name.to_owned())),
                reason: format!("column {name}: {e}"),
                value: bad_value(field),
            })
        });
        let (line_no, offset, end_offset) = (line.line, line.offset, line.end_offset);
        self.finish_row(encoded, line_no, offset, end_offset)
    }

    /// Checks the partition key and computes the token of an encoded row.
    fn finish_row(&self, encoded: Result<(), RowError>, line: u64, offset: u64, end_offset: u64) -> Step {
        if let Err(RowError { kind, column, reason, value }) = encoded {
            return Step::Bad { line, offset, end_offset, kind, column, reason, value };
        }
        if self.pk_indexes.is_empty() {
            return Step::Good { token: None, line, offset, end_offset };
        }
        for &pk in &self.pk_indexes {
            let at = self.starts.get(pk as usize).copied().unwrap_or(0);
            let len = self.values.get(at..at + 4).map_or(-1, |b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]));
            if len < 0 {
                let name = self.columns.get(pk as usize).map_or("?", |(n, _)| n.as_str());
                let state = if len == -1 { "null" } else { "unset" };
                return Step::Bad {
                    line,
                    offset,
                    end_offset,
                    kind: BadRowKind::Value,
                    column: Some(BadColumn::Name(name.to_owned())),
                    reason: format!("partition key column {name} is {state}"),
                    value: None,
                };
            }
        }
        let token = token_from_values(&self.values, &self.pk_indexes);
        Step::Good { token, line, offset, end_offset }
    }
}

/// Turns the null (length -1) just written at `at` into unset (length -2).
fn null_to_unset(out: &mut [u8], at: usize) {
    if let Some(length) = out.get_mut(at..at + 4) {
        if length == (-1i32).to_be_bytes() {
            length.copy_from_slice(&(-2i32).to_be_bytes());
        }
    }
}

/// Writes `[n][value]*` into `values`: constants and unset columns here, input fields by
/// `field(column index, name, type, out)`. Records where each value starts in `starts`.
fn encode_row(
    columns: &[(String, ColumnType)],
    sources: &[Source],
    constants: &[u8],
    values: &mut Vec<u8>,
    starts: &mut [usize],
    mut field: impl FnMut(usize, &str, &ColumnType, &mut Vec<u8>) -> Result<(), RowError>,
) -> Result<(), RowError> {
    values.clear();
    values.extend_from_slice(&(columns.len() as u16).to_be_bytes());
    for (index, ((name, ty), source)) in columns.iter().zip(sources).enumerate() {
        if let Some(start) = starts.get_mut(index) {
            *start = values.len();
        }
        match source {
            Source::Unset => values.extend_from_slice(&(-2i32).to_be_bytes()),
            Source::Constant(range) => values.extend_from_slice(constants.get(range.clone()).unwrap_or(&[])),
            Source::Field(_) => field(index, name, ty, values)?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row of `input`, read whole: the values of a good row, the reason of a bad one.
    fn encode_all(config: BulkConfig, input: &[u8]) -> (BulkEncoder, Vec<Result<Vec<u8>, String>>) {
        let mut encoder = BulkEncoder::new(config).unwrap();
        encoder.push(input);
        encoder.finish();
        let mut out = Vec::new();
        while let Some(outcome) = encoder.next_row() {
            out.push(match outcome {
                RowOutcome::Good { values, .. } => Ok(values.to_vec()),
                RowOutcome::Bad { reason, .. } => Err(reason),
            });
        }
        (encoder, out)
    }

    fn rows(config: BulkConfig, input: &[u8]) -> Vec<Result<Vec<u8>, String>> {
        encode_all(config, input).1
    }

    #[test]
    fn json_literals_bypass_the_text_spellings() {
        let columns = vec![("flag".to_owned(), ColumnType::Boolean), ("note".to_owned(), ColumnType::Text)];
        let mut config = BulkConfig::new(Format::jsonl(), columns);
        // Spellings that do not include JSON's own literals.
        config.text.true_words = vec!["oui".into()];
        config.text.false_words = vec!["non".into()];
        let got = rows(config, b"{\"flag\": true, \"note\": false}\n{\"flag\": \"non\"}\n{\"flag\": \"true\"}\n");
        assert_eq!(got[0], Ok(vec![0, 2, 0, 0, 0, 1, 1, 0, 0, 0, 5, b'f', b'a', b'l', b's', b'e']));
        assert_eq!(got[1], Ok(vec![0, 2, 0, 0, 0, 1, 0, 0xFF, 0xFF, 0xFF, 0xFE]));
        assert!(got[2].as_ref().is_err_and(|e| e.contains("column flag")), "{:?}", got[2]);
    }

    #[test]
    fn one_field_feeds_every_marker_of_its_name_and_several_columns() {
        // `UPDATE t SET v = :v WHERE k = :k IF v = :v`: the marker `v` binds twice.
        let columns = || {
            vec![
                ("v".to_owned(), ColumnType::Int),
                ("k".to_owned(), ColumnType::Int),
                ("v".to_owned(), ColumnType::Int),
            ]
        };
        let mut config = BulkConfig::new(Format::Csv(CsvOptions { header: false, ..CsvOptions::default() }), columns());
        config.mapping = Mapping::Explicit(vec![(FieldRef::Index(1), "v".into()), (FieldRef::Index(0), "k".into())]);
        let int = |n: u8| [0, 0, 0, 4, 0, 0, 0, n];
        let want = [&[0u8, 3][..], &int(9), &int(1), &int(9)].concat();
        assert_eq!(rows(config, b"1,9\n"), vec![Ok(want.clone())]);
        // JSON Lines: one key mapped to two columns (and to both markers of one name).
        let mut config = BulkConfig::new(Format::jsonl(), columns());
        config.mapping = Mapping::Explicit(vec![
            (FieldRef::Name("x".into()), "v".into()),
            (FieldRef::Name("x,=".into()), "k".into()),
        ]);
        let got = rows(config, b"{\"x\": 9, \"x,=\": 1}\n");
        assert_eq!(got, vec![Ok(want)]);
        let mut config =
            BulkConfig::new(Format::jsonl(), vec![("a".into(), ColumnType::Int), ("b".into(), ColumnType::Int)]);
        config.mapping =
            Mapping::Explicit(vec![(FieldRef::Name("x".into()), "a".into()), (FieldRef::Name("x".into()), "b".into())]);
        assert_eq!(rows(config, b"{\"x\": 7}\n"), vec![Ok([&[0u8, 2][..], &int(7), &int(7)].concat())]);
    }

    #[test]
    fn a_headerless_field_count_is_exact_when_given() {
        let columns = vec![("a".to_owned(), ColumnType::Int)];
        let mut config = BulkConfig::new(Format::Csv(CsvOptions { header: false, ..CsvOptions::default() }), columns);
        config.mapping = Mapping::Explicit(vec![(FieldRef::Index(0), "a".into())]);
        config.field_count = Some(2);
        let got = rows(config, b"1,x\n2\n3,y,z\n");
        assert_eq!(got[0], Ok(vec![0, 1, 0, 0, 0, 4, 0, 0, 0, 1]));
        assert_eq!(got[1], Err("expected 2 fields, found 1".into()));
        assert_eq!(got[2], Err("expected 2 fields, found 3".into()));
    }

    #[test]
    fn csv_faults_name_the_column_or_the_unmapped_field() {
        let columns = vec![("a".to_owned(), ColumnType::Text)];
        let mut config = BulkConfig::new(Format::Csv(CsvOptions { header: false, ..CsvOptions::default() }), columns);
        config.mapping = Mapping::parse("1=a").unwrap();
        let mut encoder = BulkEncoder::new(config).unwrap();
        encoder.push(b"\"x\"y,z\nq,\"r\"s\n");
        let mut columns = Vec::new();
        while let Some(outcome) = encoder.next_row() {
            if let RowOutcome::Bad { column, .. } = outcome {
                columns.push(column);
            }
        }
        assert_eq!(columns, vec![Some(BadColumn::Field(0)), Some(BadColumn::Name("a".into()))]);
    }

    #[test]
    fn a_declared_field_position_sizes_nothing() {
        // The fuzzer's out-of-memory input (CI, 2026-11-26): `77004558=c0` once made a table of
        // 77 million slots. The largest position, and `usize::MAX` (no `+ 1` overflow), are
        // checked against each record's fields instead.
        for (position, at_least) in [(77_004_558, 77_004_559), (usize::MAX, usize::MAX)] {
            let columns = vec![("k".to_owned(), ColumnType::Int), ("v".to_owned(), ColumnType::Text)];
            let mut config =
                BulkConfig::new(Format::Csv(CsvOptions { header: false, ..CsvOptions::default() }), columns);
            config.mapping = Mapping::parse(&format!("0=k,{position}=v")).unwrap();
            let mut encoder = BulkEncoder::new(config).unwrap();
            encoder.push(b"1,x\n");
            encoder.finish();
            let Some(RowOutcome::Bad { reason, raw, .. }) = encoder.next_row() else { panic!("a bad row") };
            assert_eq!(raw, b"1,x");
            assert_eq!(reason, format!("expected at least {at_least} fields, found 2"));
            assert!(encoder.next_row().is_none());
        }
    }

    /// The records an encoder returns for an int column `a` and a header.
    fn limited(limits: RecordLimits, input: &[u8]) -> (Vec<Result<Vec<u8>, String>>, bool, Option<BulkError>) {
        let mut config = BulkConfig::new(Format::Csv(CsvOptions::default()), vec![("a".to_owned(), ColumnType::Int)]);
        config.limits = limits;
        let mut encoder = BulkEncoder::new(config).unwrap();
        encoder.push(input);
        let mut out = Vec::new();
        while let Some(outcome) = encoder.next_row() {
            out.push(match outcome {
                RowOutcome::Good { values, .. } => Ok(values.to_vec()),
                RowOutcome::Bad { raw, .. } => Err(String::from_utf8_lossy(raw).into_owned()),
            });
        }
        (out, encoder.records_exhausted(), encoder.error().cloned())
    }

    fn int_row(v: i32) -> Vec<u8> {
        let mut row = vec![0, 1, 0, 0, 0, 4];
        row.extend_from_slice(&v.to_be_bytes());
        row
    }

    #[test]
    fn a_json_array_loads_its_objects_and_a_scalar_is_a_bad_row() {
        let columns = vec![("a".to_owned(), ColumnType::Int), ("b".to_owned(), ColumnType::Text)];
        let config = BulkConfig::new(Format::JsonArray { max_record_bytes: 1 << 20 }, columns);
        let input = b"[\n  {\"a\": 1, \"b\": \"x\"},\n  7,\n  {\"b\": null, \"a\": 2}\n]\n";
        let mut one = vec![0, 2, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 1, b'x'];
        let two = vec![0, 2, 0, 0, 0, 4, 0, 0, 0, 2, 0xff, 0xff, 0xff, 0xfe];
        let got = rows(config.clone(), input);
        assert_eq!(got.len(), 3);
        assert_eq!(got[0], Ok(std::mem::take(&mut one)));
        assert!(got[1].is_err());
        assert_eq!(got[2], Ok(two));
        // The structure broken after the first element: the encoder stops with the place.
        let mut encoder = BulkEncoder::new(config).unwrap();
        encoder.push(b"[{\"a\": 1} {\"a\": 2}]");
        encoder.finish();
        while encoder.next_row().is_some() {}
        assert_eq!(
            encoder.error().map(ToString::to_string).as_deref(),
            Some("JSON array at line 1 (byte 10): expected , or ] after an element")
        );
    }

    #[test]
    fn skipped_records_count_bad_ones_and_max_records_ends_the_input() {
        let input = b"a\nx\n1\n\n2\ny\n3\n4\n";
        let limits = RecordLimits { skip: 2, max: Some(3), errors: ErrorLimit::Unlimited };
        // The header and the blank line are no records; "x" is skipped although bad.
        let (rows, exhausted, error) = limited(limits, input);
        assert_eq!(rows, vec![Ok(int_row(2)), Err("y".into()), Ok(int_row(3))]);
        assert!(exhausted);
        assert_eq!(error, None);
        let (rows, exhausted, _) = limited(RecordLimits { skip: 7, ..limits }, input);
        assert_eq!((rows, exhausted), (vec![], false));
    }

    #[test]
    fn bad_row_kinds_cross_the_boundary_as_their_numbers() {
        use BadRowKind::*;
        let kinds = [Syntax, Size, Encoding, Value, Rejected, NotSent, Uncertain];
        assert_eq!(kinds.map(BadRowKind::code), [1, 2, 3, 4, 5, 6, 7]);
    }

    #[test]
    fn bad_columns_read_as_words_with_1_based_fields_and_0_based_bytes() {
        assert_eq!(BadColumn::Name("v".into()).to_string(), "column v");
        assert_eq!(BadColumn::Field(0).to_string(), "field 1");
        assert_eq!(BadColumn::Byte(7).to_string(), "byte 7");
    }

    fn headerless(columns: Vec<(String, ColumnType)>) -> BulkConfig {
        BulkConfig::new(Format::Csv(CsvOptions { header: false, ..CsvOptions::default() }), columns)
    }

    #[test]
    fn a_bad_rows_field_text_is_kept_to_256_bytes_cut_on_a_character_boundary() {
        let mut encoder = BulkEncoder::new(headerless(vec![("a".to_owned(), ColumnType::Int)])).unwrap();
        let long = format!("{}z", "x".repeat(300));
        // "é" takes bytes 255 and 256: the text kept stops before it.
        let split = format!("{}éz", "x".repeat(255));
        encoder.push(format!("abc\n{long}\n{split}\n1,2\n").as_bytes());
        let mut kept = Vec::new();
        while let Some(outcome) = encoder.next_row() {
            assert!(matches!(outcome, RowOutcome::Bad { .. }));
            kept.push(encoder.bad_value().map(str::to_owned));
        }
        let (x255, x256) = ("x".repeat(255), "x".repeat(256));
        // The last row has one field too many: no field is at fault.
        assert_eq!(kept, vec![Some("abc".to_owned()), Some(x256), Some(x255), None]);
    }

    #[test]
    fn input_field_names_the_csv_position_feeding_a_column() {
        let columns = vec![("k".to_owned(), ColumnType::Int), ("v".to_owned(), ColumnType::Text)];
        let encoder = BulkEncoder::new(headerless(columns.clone())).unwrap();
        assert_eq!(encoder.columns(), &columns[..]);
        assert_eq!((encoder.input_field("k"), encoder.input_field("v"), encoder.input_field("w")), (Some(0), Some(1), None));
        // A constant column is fed by no field; the others shift down.
        let mut config = headerless(columns.clone());
        config.constants = vec![("k".into(), "1".into())];
        let encoder = BulkEncoder::new(config).unwrap();
        assert_eq!((encoder.input_field("k"), encoder.input_field("v")), (None, Some(0)));
        // JSON Lines fields are keys: no position.
        let encoder = BulkEncoder::new(BulkConfig::new(Format::jsonl(), columns)).unwrap();
        assert_eq!((encoder.input_field("k"), encoder.input_field("v")), (None, None));
    }

    #[test]
    fn conversion_settings_set_the_text_options_and_null_to_unset() {
        let mut config = headerless(vec![("a".to_owned(), ColumnType::Boolean)]);
        let settings = ConversionSettings {
            null_to_unset: Some(false),
            true_words: Some(vec!["oui".into()]),
            ..ConversionSettings::default()
        };
        config.apply_conversion(&settings).unwrap();
        assert_eq!((config.null_to_unset, config.text.true_words.clone()), (false, vec!["oui".to_owned()]));
        // Unset is left as it was.
        config.apply_conversion(&ConversionSettings::default()).unwrap();
        assert!(!config.null_to_unset);
        let bad = ConversionSettings { epoch_unit: Some("weeks".into()), ..ConversionSettings::default() };
        assert_eq!(
            config.apply_conversion(&bad),
            Err(BulkError::Config("epochUnit \"weeks\": use s, ms, us or ns".into()))
        );
    }

    fn id_name() -> Vec<(String, ColumnType)> {
        vec![("id".to_owned(), ColumnType::Int), ("name".to_owned(), ColumnType::Text)]
    }

    /// The rows of `input` (CSV with a header, columns `id int, name text`) and the error
    /// that stopped the encoder.
    fn with_header(adjust: impl FnOnce(&mut BulkConfig), input: &[u8]) -> (Vec<Result<Vec<u8>, String>>, Option<BulkError>) {
        let mut config = BulkConfig::new(Format::Csv(CsvOptions::default()), id_name());
        adjust(&mut config);
        let (encoder, out) = encode_all(config, input);
        (out, encoder.error().cloned())
    }

    #[test]
    fn header_errors_say_exactly_what_does_not_fit() {
        let explicit = |text: &'static str| move |c: &mut BulkConfig| c.mapping = Mapping::parse(text).unwrap();
        let header = |reason: &str| Some(BulkError::Header { line: 1, reason: reason.into() });
        let cases: Vec<(Box<dyn FnOnce(&mut BulkConfig)>, &[u8], Option<BulkError>)> = vec![
            (Box::new(|_| {}), b"id,x\n", header("field 'x' matches no column of the statement (columns: id, name)")),
            (Box::new(|_| {}), b"id,ID\n", header("two fields feed column id")),
            (
                Box::new(|c| c.constants = vec![("id".into(), "1".into())]),
                b"name,id\n",
                header("field 'id' feeds column id, which has a constant"),
            ),
            (Box::new(|c| c.pk_indexes = vec![0]), b"name\n", header("partition key column id is not mapped to any field")),
            (Box::new(explicit("2=id")), b"a,b\n", header("mapped field position 2 but the header has 2")),
            (Box::new(explicit("a=id")), b"a,a\n", header("the header names field 'a' twice")),
            (Box::new(explicit("q=id")), b"a,b\n", header("mapped field 'q' is not in the header")),
        ];
        for (adjust, input, want) in cases {
            let (rows, error) = with_header(adjust, input);
            assert_eq!((rows, error), (vec![], want), "{}", String::from_utf8_lossy(input));
        }
        let unknown = BulkEncoder::new(BulkConfig { mapping: Mapping::parse("a=nope").unwrap(), ..BulkConfig::new(Format::jsonl(), id_name()) });
        assert_eq!(unknown.unwrap_err(), BulkError::Config("no column 'nope' in the statement (columns: id, name)".into()));
    }

    #[test]
    fn header_fields_feed_their_columns_by_name_by_position_or_not_at_all() {
        let row = |id: u8, name: &[u8]| {
            let mut v = vec![0, 2, 0, 0, 0, 4, 0, 0, 0, id, 0, 0, 0, name.len() as u8];
            v.extend_from_slice(name);
            Ok(v)
        };
        let explicit = |text: &'static str| move |c: &mut BulkConfig| c.mapping = Mapping::parse(text).unwrap();
        assert_eq!(with_header(explicit("b=id,a=name"), b"a,b\nn,5\n"), (vec![row(5, b"n")], None));
        assert_eq!(with_header(explicit("1=id,0=name"), b"a,b\nn,5\n"), (vec![row(5, b"n")], None));
        let ignore = |c: &mut BulkConfig| c.ignore_unknown = true;
        assert_eq!(with_header(ignore, b"x,NAME,id\nq,n,5\n"), (vec![row(5, b"n")], None));
    }

    #[test]
    fn explicit_positions_need_at_least_the_highest_position_plus_one_fields() {
        let mut config = headerless(vec![("a".to_owned(), ColumnType::Int)]);
        config.mapping = Mapping::parse("1=a").unwrap();
        let got = rows(config, b"x\nx,5\nx,6,y\n");
        let int = |n: u8| Ok(vec![0, 1, 0, 0, 0, 4, 0, 0, 0, n]);
        assert_eq!(got, vec![Err("expected at least 2 fields, found 1".into()), int(5), int(6)]);
    }

    #[test]
    fn json_keys_match_columns_case_insensitively_only_without_an_explicit_mapping() {
        let int = |n: u8| vec![0, 0, 0, 4, 0, 0, 0, n];
        let unset = [0xff, 0xff, 0xff, 0xfe];
        let config = BulkConfig::new(Format::jsonl(), id_name());
        let want = [&[0u8, 2][..], &int(5), &[0, 0, 0, 1, b'n']].concat();
        assert_eq!(rows(config.clone(), b"{\"ID\": 5, \"Name\": \"n\"}\n"), vec![Ok(want)]);
        let explicit = BulkConfig { mapping: Mapping::parse("x=id").unwrap(), ..config };
        let want = [&[0u8, 2][..], &unset, &unset].concat();
        assert_eq!(rows(explicit.clone(), b"{\"ID\": 5, \"id\": 6}\n"), vec![Ok(want)]);
        let want = [&[0u8, 2][..], &int(7), &unset].concat();
        assert_eq!(rows(explicit, b"{\"x\": 7}\n"), vec![Ok(want)]);
    }

    #[test]
    fn a_partition_key_may_be_empty_but_not_null_or_unset() {
        let columns = vec![("k".to_owned(), ColumnType::Text), ("v".to_owned(), ColumnType::Int)];
        let mut config = headerless(columns.clone());
        config.pk_indexes = vec![0];
        config.text.null_markers = vec!["NULL".into()];
        let got = rows(config, b"\"\",1\nNULL,2\n");
        assert_eq!(got, vec![Ok(vec![0, 2, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 1]), Err("partition key column k is null".into())]);
        let mut config = BulkConfig::new(Format::jsonl(), columns);
        config.pk_indexes = vec![0];
        let got = rows(config, b"{\"v\": 1}\n{\"k\": null, \"v\": 1}\n");
        assert_eq!(got, vec![Err("partition key column k is unset".into()), Err("partition key column k is null".into())]);
    }

    #[test]
    fn a_row_whose_cell_time_cannot_be_read_is_one_bad_row() {
        let columns = vec![
            ("id".to_owned(), ColumnType::Int),
            ("a".to_owned(), ColumnType::Int),
            ("[timestamp]".to_owned(), ColumnType::Bigint),
            ("[ttl]".to_owned(), ColumnType::Int),
        ];
        let mut config = BulkConfig::new(Format::Csv(CsvOptions::default()), columns);
        config.cell_times = Some(CellTimes {
            timestamp_marker: "[timestamp]".into(),
            ttl_marker: "[ttl]".into(),
            cells: vec![CellTime {
                column: "a".into(),
                writetime: Some(FieldRef::Name("writetime(a)".into())),
                ttl: None,
            }],
        });
        let mut encoder = BulkEncoder::new(config).unwrap();
        encoder.push(b"id,a,writetime(a)\n1,2,soon\n");
        let Some(RowOutcome::Bad { raw, line, kind, column, reason, .. }) = encoder.next_row() else { panic!("a bad row") };
        assert_eq!(
            (raw, line, kind, column, reason.as_str()),
            (&b"1,2,soon"[..], 2, BadRowKind::Value, Some(BadColumn::Name("a".into())), "column a: write time 'soon' is not an integer")
        );
        assert_eq!(encoder.bad_value(), None);
        assert_eq!((encoder.stats().good_rows, encoder.stats().bad_rows), (0, 1));
    }

    #[test]
    fn a_share_of_bad_records_stops_the_encoder_with_its_figures() {
        // 200 records; records 91, 101, 111, ... 191 are bad (11 of 200, 5.5%).
        let mut input = b"a\n".to_vec();
        for i in 0..200 {
            input.extend_from_slice(if i >= 90 && i % 10 == 0 { b"x\n" } else { b"1\n" });
        }
        let limits = RecordLimits { errors: ErrorLimit::BasisPoints(999), ..RecordLimits::default() };
        let (rows, _, error) = limited(limits, &input);
        assert_eq!((error, rows.len()), (None, 200));
        let limits = RecordLimits { errors: ErrorLimit::BasisPoints(50), ..RecordLimits::default() };
        let (rows, _, error) = limited(limits, &input);
        // 0.5%: record 91 (1 of 91 bad) comes before the minimum sample of 100; record 101
        // makes 2 of 101, and stops the encoder after it.
        assert_eq!(rows.len(), 101);
        assert_eq!(error, Some(BulkError::TooManyErrorsShare { basis_points: 50, bad: 2, records: 101 }));
        assert_eq!(error.unwrap().to_string(), "2 of 101 rows were bad, more than 0.5%: stopping");
    }
}
