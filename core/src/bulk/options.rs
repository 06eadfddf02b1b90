//! The bulk-load options as the host writes them (JSON, camelCase): one typed contract,
//! read key by key (`json_fields`). An unknown key is an error that names it, so a misspelt option is never
//! silently ignored.

use std::collections::BTreeSet;

use super::limits::{parse_error_limit, ErrorLimit, RecordLimits};
use super::load::{BatchGrouping, LoadConfig};
use super::{BulkConfig, BulkError, CellTime, CellTimes, CsvOptions, FieldRef, Format, Mapping};
use crate::json_fields::{entries_of, integer_of, items_of, pair_of, string_of, u64_of, Fields, Value};
use crate::types::{ColumnType, ConversionSettings, EpochUnit};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InputFormat {
    #[default]
    Csv,
    Jsonl,
    /// A JSON document that is one array of objects.
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EpochUnitName {
    Seconds,
    Millis,
    Micros,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchByName {
    Replica,
    Partition,
}

/// A CSV field: a 0-based position or a header name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldName {
    Position(usize),
    Name(String),
}

impl From<FieldName> for FieldRef {
    fn from(field: FieldName) -> FieldRef {
        match field {
            FieldName::Position(position) => FieldRef::Index(position),
            FieldName::Name(name) => FieldRef::Name(name),
        }
    }
}

/// `maxErrors`: a count (a JSON number) or text, `N` or `N%`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MaxErrors {
    Count(u64),
    Text(String),
}

/// The mapping: `field=column,...` text, or `[field, column]` pairs (any name can be said
/// in pairs, and one field may feed several columns).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MappingOption {
    Text(String),
    Pairs(Vec<(FieldName, String)>),
}

/// The fields that carry a column's write time (µs) and TTL (s); see [`super::cell_times`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellTimeFields {
    pub column: String,
    pub writetime: Option<FieldName>,
    pub ttl: Option<FieldName>,
}

/// Every option of a bulk load; absent (or `null`) keys take the defaults.
#[derive(Debug, Clone, Default)]
pub struct BulkOptions {
    pub format: Option<InputFormat>,
    pub delimiter: Option<String>,
    pub quote: Option<String>,
    pub escape: Option<String>,
    pub comment: Option<String>,
    pub header: Option<bool>,
    pub trim: Option<bool>,
    pub max_record_bytes: Option<usize>,
    pub null_values: Option<Vec<String>>,
    pub true_words: Option<Vec<String>>,
    pub false_words: Option<Vec<String>>,
    pub epoch_unit: Option<EpochUnitName>,
    /// `field=column,...` (see [`Mapping::parse`]) or `[field, column]` pairs.
    pub mapping: Option<MappingOption>,
    /// CSV without a header: a record must have exactly this many fields (default: as many
    /// as the mapping needs, or more).
    pub field_count: Option<usize>,
    /// Column to CQL text, the same on every row.
    pub constants: Option<Vec<(String, String)>>,
    /// A count of bad rows, or a share of the records read as the text `N%`.
    pub max_errors: Option<MaxErrors>,
    /// Records (data rows, good or bad) to skip at the start of the input.
    pub skip_records: Option<u64>,
    /// Records to read at most, after the skipped ones; the rest of the input is not read.
    pub max_records: Option<u64>,
    pub ignore_unknown: Option<bool>,
    /// Text options and null-to-unset, applied after the keys above.
    pub conversion: Option<ConversionSettings>,
    /// Per-cell write times and TTLs; the statement ends `USING TIMESTAMP ? AND TTL ?`.
    pub cell_times: Option<Vec<CellTimeFields>>,
    pub consistency: Option<u16>,
    /// Write timestamp (µs since the epoch) of every row.
    pub timestamp: Option<i64>,
    /// The table's primary key columns (partition and clustering): rows with the same values
    /// in those the statement binds never share a batch. Default: the partition key.
    pub key_columns: Option<Vec<String>>,
    pub max_concurrency: Option<usize>,
    pub initial_concurrency: Option<usize>,
    pub idempotent: Option<bool>,
    pub max_retries: Option<u32>,
    pub timeout_ms: Option<u64>,
    pub seed: Option<u64>,
    pub stop_at_offset: Option<u64>,
    pub batch_size: Option<usize>,
    pub batch_by: Option<BatchByName>,
    pub batch_max_bytes: Option<usize>,
    pub counter: Option<bool>,
    /// Parse and convert, send nothing.
    pub dry_run: Option<bool>,
    /// Report each row's offset when its request is started and when it is acknowledged
    /// (the write-ahead journal of a non-idempotent load).
    pub journal: Option<bool>,
    /// Offsets of rows an earlier run saw acknowledged: skipped, counted as loaded before.
    pub resume_acked: Option<Vec<u64>>,
    /// Offsets of rows an earlier run sent without an acknowledgement: not sent again,
    /// reported as uncertain bad rows.
    pub resume_sent: Option<Vec<u64>>,
    /// The interrupted run's write timestamp at its checkpoint and its last one: the rows
    /// count up from there (both or neither).
    pub resume_timestamp: Option<i64>,
    pub resume_last_timestamp: Option<i64>,
}

const WHAT: &str = "bulk options";
const INPUT_FORMATS: [InputFormat; 3] = [InputFormat::Csv, InputFormat::Jsonl, InputFormat::Json];
/// Each unit's name and its long alias, in the order of [`EPOCH_UNITS`].
const EPOCH_UNIT_NAMES: [&str; 6] = ["s", "seconds", "ms", "millis", "us", "micros"];
const EPOCH_UNITS: [EpochUnitName; 3] = [EpochUnitName::Seconds, EpochUnitName::Millis, EpochUnitName::Micros];
const BATCH_BYS: [BatchByName; 3] = [BatchByName::Replica, BatchByName::Replica, BatchByName::Partition];
const FIELD: &str = "a field position (an integer from 0) or name (a string)";

fn offset_of(v: Value) -> Option<u64> {
    u64_of(&v)
}

fn field_name_of(v: Value) -> Option<FieldName> {
    match v {
        Value::String(name) => Some(FieldName::Name(name)),
        other => Some(FieldName::Position(usize::try_from(integer_of(&other)?).ok()?)),
    }
}

/// `mapping`: `field=column,...` text or `[field, column]` pairs.
fn read_mapping(f: &mut Fields) -> Option<MappingOption> {
    match f.take("mapping")? {
        Value::String(text) => Some(MappingOption::Text(text)),
        Value::Array(pairs) => {
            let pair = |v: Value| {
                let (field, column) = pair_of(v)?;
                Some((field_name_of(field)?, string_of(column)?))
            };
            let expected = "[field, column] pairs (a field position or name, a column name)";
            f.items("mapping", expected, pairs, pair).map(MappingOption::Pairs)
        }
        other => f.wrong("mapping", "field=column text or an array of [field, column] pairs", &other),
    }
}

/// `constants`: an object of column name to CQL text.
/// Sorted by column, as the object's entries are.
fn read_constants(f: &mut Fields) -> Option<Vec<(String, String)>> {
    match f.take("constants")? {
        Value::Object(raw) => {
            let map = f.nested(entries_of("bulk options: constants", raw))?;
            let mut constants = Vec::with_capacity(map.len());
            for (column, text) in map {
                match text {
                    Value::String(text) => constants.push((column, text)),
                    other => return f.wrong("constants", "an object of strings (CQL text)", &other),
                };
            }
            Some(constants)
        }
        other => f.wrong("constants", "an object of column names to CQL text", &other),
    }
}

/// `maxErrors`: a count or `N` / `N%` text.
fn read_max_errors(f: &mut Fields) -> Option<MaxErrors> {
    match f.take("maxErrors")? {
        Value::String(text) => Some(MaxErrors::Text(text)),
        other => match u64_of(&other) {
            Some(count) => Some(MaxErrors::Count(count)),
            None => f.wrong("maxErrors", "a count (an integer from 0) or text, N or N%", &other),
        },
    }
}

/// One `cellTimes` object: `column` and the fields of its write time and TTL.
fn read_cell_time(value: Value) -> Result<CellTimeFields, String> {
    let mut cell = Fields::of("bulk options: cellTimes", value)?;
    let column = cell.required_string("column");
    let mut field = |key: &'static str| {
        let v = cell.take(key)?;
        field_name_of(v.clone()).or_else(|| cell.wrong(key, FIELD, &v))
    };
    let (writetime, ttl) = (field("writetime"), field("ttl"));
    // A missing column is a fault that `finish` returns, so the `None` arm is not reached.
    let column = cell.finish(column)?.ok_or("bulk options: cellTimes: incomplete")?;
    Ok(CellTimeFields { column, writetime, ttl })
}

/// `cellTimes`: an array of [`CellTimeFields`] objects.
fn read_cell_times(f: &mut Fields) -> Option<Vec<CellTimeFields>> {
    match f.take("cellTimes")? {
        Value::Array(raw) => {
            let items = f.nested(items_of("bulk options: cellTimes", raw))?;
            let mut cells = Vec::with_capacity(items.len());
            for item in items {
                cells.push(f.nested(read_cell_time(item))?);
            }
            Some(cells)
        }
        other => f.wrong("cellTimes", "an array of {column, writetime, ttl} objects", &other),
    }
}

fn config_error(reason: String) -> BulkError {
    BulkError::Config(reason)
}

/// One ASCII byte given as a one-character string (`\t` spelled out is a tab).
pub(super) fn byte_option(key: &str, value: Option<&str>, default: u8) -> Result<u8, BulkError> {
    match value {
        None => Ok(default),
        Some("\\t") => Ok(b'\t'),
        Some(s) if s.len() == 1 => Ok(s.as_bytes()[0]),
        Some(s) => Err(config_error(format!("{key} must be a single ASCII character, got {s:?}"))),
    }
}

/// The comment byte: none when absent or empty, else exactly one ASCII character. A longer
/// value is refused rather than ignored: reading `##` as "no comment" would load comment
/// lines as rows.
pub(super) fn comment_option(value: Option<&str>) -> Result<Option<u8>, BulkError> {
    match value {
        None | Some("") => Ok(None),
        Some(_) => byte_option("comment", value, 0).map(Some),
    }
}

impl BulkOptions {
    /// Reads the options from JSON; an unknown key or a value of the wrong type is an error
    /// naming the key.
    pub fn from_json(json: &str) -> Result<Self, BulkError> {
        BulkOptions::read(json).map_err(config_error)
    }

    fn read(json: &str) -> Result<Self, String> {
        let mut f = Fields::parse(WHAT, json)?;
        let options = BulkOptions {
            format: f.one_of("format", &["csv", "jsonl", "json"]).map(|i| INPUT_FORMATS[i]),
            delimiter: f.string("delimiter"),
            quote: f.string("quote"),
            escape: f.string("escape"),
            comment: f.string("comment"),
            header: f.bool("header"),
            trim: f.bool("trim"),
            max_record_bytes: f.usize("maxRecordBytes"),
            null_values: f.strings("nullValues"),
            true_words: f.strings("trueWords"),
            false_words: f.strings("falseWords"),
            epoch_unit: f.one_of("epochUnit", &EPOCH_UNIT_NAMES).map(|i| EPOCH_UNITS[i / 2]),
            mapping: read_mapping(&mut f),
            field_count: f.usize("fieldCount"),
            constants: read_constants(&mut f),
            max_errors: read_max_errors(&mut f),
            skip_records: f.u64("skipRecords"),
            max_records: f.u64("maxRecords"),
            ignore_unknown: f.bool("ignoreUnknown"),
            conversion: ConversionSettings::take_nested(&mut f, "bulk options: conversion"),
            cell_times: read_cell_times(&mut f),
            consistency: f.u16("consistency"),
            timestamp: f.i64("timestamp"),
            key_columns: f.strings("keyColumns"),
            max_concurrency: f.usize("maxConcurrency"),
            initial_concurrency: f.usize("initialConcurrency"),
            idempotent: f.bool("idempotent"),
            max_retries: f.u32("maxRetries"),
            timeout_ms: f.u64("timeoutMs"),
            seed: f.u64("seed"),
            stop_at_offset: f.u64("stopAtOffset"),
            batch_size: f.usize("batchSize"),
            batch_by: f.one_of("batchBy", &["replica", "replicas", "partition"]).map(|i| BATCH_BYS[i]),
            batch_max_bytes: f.usize("batchMaxBytes"),
            counter: f.bool("counter"),
            dry_run: f.bool("dryRun"),
            journal: f.bool("journal"),
            resume_acked: f.array("resumeAcked", "offsets (integers from 0)", offset_of),
            resume_sent: f.array("resumeSent", "offsets (integers from 0)", offset_of),
            resume_timestamp: f.i64("resumeTimestamp"),
            resume_last_timestamp: f.i64("resumeLastTimestamp"),
        };
        f.finish(options)
    }

    /// The encoder's and the load's configuration, for a statement binding `columns` with
    /// its partition key at `pk_indexes`.
    pub fn into_configs(
        self,
        columns: Vec<(String, ColumnType)>,
        pk_indexes: Vec<u16>,
    ) -> Result<(BulkConfig, LoadConfig), BulkError> {
        let max_record_bytes = self.max_record_bytes.unwrap_or(64 << 20);
        let format = match self.format.unwrap_or_default() {
            InputFormat::Csv => {
                let defaults = CsvOptions::default();
                let quote = byte_option("quote", self.quote.as_deref(), defaults.quote)?;
                let comment = comment_option(self.comment.as_deref())?;
                Format::Csv(CsvOptions {
                    delimiter: byte_option("delimiter", self.delimiter.as_deref(), defaults.delimiter)?,
                    quote,
                    escape: byte_option("escape", self.escape.as_deref(), quote)?,
                    comment,
                    header: self.header.unwrap_or(true),
                    trim: self.trim.unwrap_or(false),
                    max_record_bytes,
                })
            }
            InputFormat::Jsonl => Format::Jsonl { max_record_bytes },
            InputFormat::Json => Format::JsonArray { max_record_bytes },
        };
        // A key column the statement does not bind (a literal in it) is the same on every row.
        let key_indexes = self
            .key_columns
            .iter()
            .flatten()
            .filter_map(|name| columns.iter().position(|(column, _)| column == name).map(|i| i as u16))
            .collect();
        let mut bulk = BulkConfig::new(format, columns);
        bulk.pk_indexes = pk_indexes;
        if let Some(markers) = self.null_values {
            bulk.text.null_markers = markers;
        }
        if let Some(words) = self.true_words {
            bulk.text.true_words = words;
        }
        if let Some(words) = self.false_words {
            bulk.text.false_words = words;
        }
        bulk.text.epoch_unit = match self.epoch_unit {
            None | Some(EpochUnitName::Millis) => EpochUnit::Millis,
            Some(EpochUnitName::Seconds) => EpochUnit::Seconds,
            Some(EpochUnitName::Micros) => EpochUnit::Micros,
        };
        match self.mapping {
            None => {}
            Some(MappingOption::Text(text)) => bulk.mapping = Mapping::parse(&text)?,
            Some(MappingOption::Pairs(pairs)) => {
                bulk.mapping =
                    Mapping::Explicit(pairs.into_iter().map(|(field, column)| (field.into(), column)).collect());
            }
        }
        bulk.field_count = self.field_count;
        bulk.constants = self.constants.unwrap_or_default();
        bulk.limits = RecordLimits {
            skip: self.skip_records.unwrap_or(0),
            max: self.max_records,
            errors: match self.max_errors {
                None => ErrorLimit::Unlimited,
                Some(MaxErrors::Count(count)) => ErrorLimit::Count(count),
                Some(MaxErrors::Text(text)) => parse_error_limit(&text).map_err(config_error)?,
            },
        };
        bulk.ignore_unknown = self.ignore_unknown.unwrap_or(false);
        if let Some(settings) = &self.conversion {
            bulk.apply_conversion(settings)?;
        }
        bulk.cell_times = self.cell_times.map(|cells| CellTimes {
            timestamp_marker: "[timestamp]".into(),
            ttl_marker: "[ttl]".into(),
            cells: cells
                .into_iter()
                .map(|cell| CellTime {
                    column: cell.column,
                    writetime: cell.writetime.map(FieldRef::from),
                    ttl: cell.ttl.map(FieldRef::from),
                })
                .collect(),
        });

        let defaults = LoadConfig::default();
        let max_concurrency = self.max_concurrency.unwrap_or(defaults.max_concurrency).max(1);
        let idempotent = self.idempotent.unwrap_or(defaults.idempotent);
        let counter = self.counter.unwrap_or(false);
        // Batches by default only where a refused batch may be sent again row by row: a
        // counter or non-idempotent batch refused after a partial write would apply twice.
        let default_batch = if idempotent && !counter { defaults.batch_size } else { 1 };
        let resume_timestamps = match (self.resume_timestamp, self.resume_last_timestamp) {
            (Some(first), Some(last)) => Some((first, last)),
            (None, None) => None,
            _ => return Err(config_error("resumeTimestamp and resumeLastTimestamp go together".into())),
        };
        let load = LoadConfig {
            consistency: self.consistency,
            default_timestamp: self.timestamp,
            key_indexes,
            max_concurrency,
            initial_concurrency: self
                .initial_concurrency
                .unwrap_or(defaults.initial_concurrency)
                .clamp(1, max_concurrency),
            idempotent,
            max_retries: self.max_retries.unwrap_or(defaults.max_retries),
            timeout_us: self.timeout_ms.map(|ms| ms.saturating_mul(1000)),
            seed: self.seed.unwrap_or(defaults.seed),
            stop_at_offset: self.stop_at_offset,
            batch_size: self.batch_size.unwrap_or(default_batch).max(1),
            batch_by: match self.batch_by {
                None | Some(BatchByName::Replica) => BatchGrouping::Replicas,
                Some(BatchByName::Partition) => BatchGrouping::Partition,
            },
            batch_max_bytes: self.batch_max_bytes.unwrap_or(defaults.batch_max_bytes).max(1),
            counter,
            dry_run: self.dry_run.unwrap_or(false),
            journal: self.journal.unwrap_or(false),
            resume_acked: offset_set(self.resume_acked.unwrap_or_default()),
            resume_sent: offset_set(self.resume_sent.unwrap_or_default()),
            resume_timestamps,
            ..defaults
        };
        Ok((bulk, load))
    }
}

/// The resume offsets as a set, filled by `extend`: collecting a `BTreeSet` stable-sorts the
/// items first, which brought a ~7 KB copy of the stable sort into the WASM module for this
/// one start-up call.
fn offset_set(offsets: Vec<u64>) -> BTreeSet<u64> {
    let mut set = BTreeSet::new();
    set.extend(offsets);
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_key_is_an_error_naming_it() {
        let error = BulkOptions::from_json(r#"{"format":"csv","batchSise":10}"#).unwrap_err();
        let BulkError::Config(message) = error else { panic!("{error:?}") };
        assert!(message.starts_with("bulk options: unknown field `batchSise`, expected one of"), "{message}");
    }

    #[test]
    fn a_value_out_of_its_set_is_an_error_listing_the_set() {
        let error = BulkOptions::from_json(r#"{"epochUnit":"fortnights"}"#).unwrap_err();
        assert_eq!(
            error,
            BulkError::Config(
                "bulk options: `epochUnit` must be one of \"s\", \"seconds\", \"ms\", \"millis\", \"us\", \"micros\", got the string \"fortnights\""
                    .into()
            )
        );
    }

    #[test]
    fn each_epoch_unit_name_and_its_alias_is_that_unit() {
        let unit = |name: &str| BulkOptions::from_json(&format!(r#"{{"epochUnit":"{name}"}}"#)).unwrap().epoch_unit;
        let units: Vec<_> = EPOCH_UNIT_NAMES.iter().map(|name| unit(name)).collect();
        let (s, ms, us) = (Some(EpochUnitName::Seconds), Some(EpochUnitName::Millis), Some(EpochUnitName::Micros));
        assert_eq!(units, [s, s, ms, ms, us, us]);
        assert_eq!(configs(r#"{"epochUnit":"us"}"#).0.text.epoch_unit, EpochUnit::Micros);
        assert_eq!(configs(r#"{"epochUnit":"seconds"}"#).0.text.epoch_unit, EpochUnit::Seconds);
        assert_eq!(configs("{}").0.text.epoch_unit, EpochUnit::Millis);
    }

    #[test]
    fn the_union_options_take_each_of_their_forms_and_name_a_wrong_one() {
        let options = BulkOptions::from_json(
            r#"{"mapping":[[0,"a"],["b","c"]],"maxErrors":"5%","cellTimes":[{"column":"a","writetime":2,"ttl":"t"}],"constants":{"d":"1"},"resumeAcked":[3]}"#,
        )
        .unwrap();
        let pairs = vec![(FieldName::Position(0), "a".to_string()), (FieldName::Name("b".into()), "c".into())];
        assert_eq!(options.mapping, Some(MappingOption::Pairs(pairs)));
        assert_eq!(options.max_errors, Some(MaxErrors::Text("5%".into())));
        let cell = CellTimeFields {
            column: "a".into(),
            writetime: Some(FieldName::Position(2)),
            ttl: Some(FieldName::Name("t".into())),
        };
        assert_eq!(options.cell_times, Some(vec![cell]));
        assert_eq!(options.constants, Some(vec![("d".to_string(), "1".to_string())]));
        assert_eq!(options.resume_acked, Some(vec![3]));
        assert_eq!(
            BulkOptions::from_json(r#"{"maxErrors":7,"mapping":"a=b"}"#).unwrap().max_errors,
            Some(MaxErrors::Count(7))
        );
        let error = |json: &str| match BulkOptions::from_json(json).unwrap_err() {
            BulkError::Config(message) => message,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            error(r#"{"mapping":[[-1,"a"]]}"#),
            "bulk options: `mapping`[0] must be [field, column] pairs (a field position or name, a column name), got an array"
        );
        assert_eq!(
            error(r#"{"maxErrors":-1}"#),
            "bulk options: `maxErrors` must be a count (an integer from 0) or text, N or N%, got the number -1"
        );
        assert_eq!(
            error(r#"{"cellTimes":[{"column":"a","ttl":1.5}]}"#),
            "bulk options: cellTimes: `ttl` must be a field position (an integer from 0) or name (a string), got the number 1.5"
        );
        assert_eq!(
            error(r#"{"cellTimes":[{"column":"a","writetim":1}]}"#),
            "bulk options: cellTimes: unknown field `writetim`, expected one of `column`, `writetime`, `ttl`"
        );
        assert_eq!(
            error(r#"{"constants":{"d":1}}"#),
            "bulk options: `constants` must be an object of strings (CQL text), got the number 1"
        );
        assert_eq!(
            error(r#"{"conversion":{"timeZone":5}}"#),
            "bulk options: conversion: `timeZone` must be a string, got the number 5"
        );
        // The range's end is usize::MAX, which differs between the host and WASM.
        let message = error(r#"{"batchSize":"8"}"#);
        assert!(message.starts_with("bulk options: `batchSize` must be an integer from 0 to "), "{message}");
        assert!(message.ends_with(", got the string \"8\""), "{message}");
    }

    #[test]
    fn only_idempotent_loads_batch_by_default() {
        let columns = || vec![("a".to_owned(), ColumnType::Int)];
        let batch =
            |json: &str| BulkOptions::from_json(json).unwrap().into_configs(columns(), vec![0]).unwrap().1.batch_size;
        assert_eq!(batch("{}"), LoadConfig::default().batch_size);
        assert_eq!(batch(r#"{"counter":true,"idempotent":false}"#), 1);
        assert_eq!(batch(r#"{"idempotent":false}"#), 1);
        assert_eq!(batch(r#"{"counter":true}"#), 1);
        assert_eq!(batch(r#"{"idempotent":false,"batchSize":8}"#), 8);
    }

    #[test]
    fn absent_and_null_keys_take_the_defaults() {
        let options = BulkOptions::from_json(r#"{"comment":null,"delimiter":"\\t","batchBy":"partition"}"#).unwrap();
        let (bulk, load) = options.into_configs(vec![("a".into(), ColumnType::Int)], vec![0]).unwrap();
        let Format::Csv(csv) = bulk.format else { panic!("csv by default") };
        assert_eq!((csv.delimiter, csv.quote, csv.escape, csv.comment, csv.header), (b'\t', b'"', b'"', None, true));
        assert_eq!(load.batch_by, BatchGrouping::Partition);
        assert_eq!(load.batch_size, LoadConfig::default().batch_size);
    }

    #[test]
    fn resume_timestamps_go_together() {
        for json in [r#"{"resumeTimestamp":5}"#, r#"{"resumeLastTimestamp":5}"#] {
            let error = BulkOptions::from_json(json).unwrap().into_configs(Vec::new(), Vec::new()).unwrap_err();
            assert_eq!(error, BulkError::Config("resumeTimestamp and resumeLastTimestamp go together".into()));
        }
    }

    fn configs(json: &str) -> (BulkConfig, LoadConfig) {
        let columns = vec![("a".into(), ColumnType::Int), ("v".into(), ColumnType::Int), ("c".into(), ColumnType::Int)];
        BulkOptions::from_json(json).unwrap().into_configs(columns, vec![0]).unwrap()
    }

    #[test]
    fn every_load_option_reaches_the_load_config() {
        let (_, load) = configs(
            r#"{"consistency":6,"timestamp":-5,"maxConcurrency":7,"initialConcurrency":9,"idempotent":false,
                "maxRetries":2,"timeoutMs":1500,"seed":42,"stopAtOffset":100,"batchSize":3,"batchBy":"partition",
                "batchMaxBytes":999,"counter":true,"dryRun":true,"journal":true,"resumeAcked":[4,1],"resumeSent":[8],
                "keyColumns":["a","fixed","c"],"resumeTimestamp":1000,"resumeLastTimestamp":1003}"#,
        );
        let expected = LoadConfig {
            consistency: Some(6),
            default_timestamp: Some(-5),
            // By bind position; "fixed" is not bound (a literal in the statement).
            key_indexes: vec![0, 2],
            max_concurrency: 7,
            // Clamped to the most requests in flight.
            initial_concurrency: 7,
            idempotent: false,
            max_retries: 2,
            timeout_us: Some(1_500_000),
            seed: 42,
            stop_at_offset: Some(100),
            batch_size: 3,
            batch_by: BatchGrouping::Partition,
            batch_max_bytes: 999,
            counter: true,
            dry_run: true,
            journal: true,
            resume_acked: [1, 4].into(),
            resume_sent: [8].into(),
            resume_timestamps: Some((1000, 1003)),
            ..LoadConfig::default()
        };
        // LoadConfig has no PartialEq: its Debug text shows every field.
        assert_eq!(format!("{load:?}"), format!("{expected:?}"));
        let (_, load) = configs(r#"{"initialConcurrency":2}"#);
        assert_eq!(
            format!("{load:?}"),
            format!("{:?}", LoadConfig { initial_concurrency: 2, ..LoadConfig::default() })
        );
    }

    #[test]
    fn csv_bytes_record_size_and_comment() {
        let csv = |json: &str| match configs(json).0.format {
            Format::Csv(csv) => csv,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            csv(r##"{"delimiter":";","quote":"'","comment":"#"}"##),
            CsvOptions {
                delimiter: b';',
                quote: b'\'',
                escape: b'\'',
                comment: Some(b'#'),
                header: true,
                trim: false,
                max_record_bytes: 64 << 20
            }
        );
        // An empty comment is none; a longer one is refused, not ignored.
        assert_eq!(csv(r#"{"comment":""}"#).comment, None);
        assert_eq!(
            BulkOptions::from_json(r###"{"comment":"##"}"###)
                .unwrap()
                .into_configs(Vec::new(), Vec::new())
                .unwrap_err(),
            BulkError::Config("comment must be a single ASCII character, got \"##\"".into())
        );
        assert_eq!(
            BulkOptions::from_json(r#"{"delimiter":";;"}"#).unwrap().into_configs(Vec::new(), Vec::new()).unwrap_err(),
            BulkError::Config("delimiter must be a single ASCII character, got \";;\"".into())
        );
        assert_eq!(configs(r#"{"format":"jsonl","maxRecordBytes":5}"#).0.format, Format::Jsonl { max_record_bytes: 5 });
    }

    #[test]
    fn fields_are_positions_or_names() {
        let (bulk, _) =
            configs(r#"{"mapping":[[0,"a"],["x","a"]],"cellTimes":[{"column":"a","writetime":2,"ttl":"ttl(a)"}]}"#);
        assert_eq!(
            bulk.mapping,
            Mapping::Explicit(vec![(FieldRef::Index(0), "a".into()), (FieldRef::Name("x".into()), "a".into())])
        );
        assert_eq!(
            bulk.cell_times,
            Some(CellTimes {
                timestamp_marker: "[timestamp]".into(),
                ttl_marker: "[ttl]".into(),
                cells: vec![CellTime {
                    column: "a".into(),
                    writetime: Some(FieldRef::Index(2)),
                    ttl: Some(FieldRef::Name("ttl(a)".into()))
                }]
            })
        );
    }
}
