//! Sniffing: the column types, null words and timestamp formats of an input, from a sample
//! of its first records, for `load --create-table`.
//!
//! The host passes the input's first bytes (bounded by it), the load's own options and how
//! many records to read at most. Records are read with the load's readers (CSV with its
//! header, JSON Lines, a JSON array); every value is tried against the type ladder
//! ([`super::sniff_types`]) with the load's converter, so the load accepts every sampled
//! value as its sniffed type. A field's type is the narrowest one that accepted every
//! non-null value: boolean, int, bigint, varint, double, decimal, date, time, timestamp,
//! timeuuid, uuid, inet, blob (`0x..`), list<...> (JSON arrays), text.
//!
//! # Null words
//!
//! Unless the options give `nullValues`, an unquoted CSV field that is one of
//! [`NULL_WORDS`] may be a null word. A word becomes one of the load's null words when some
//! field needs it as null (its other values share a type other than text, or it has no
//! other value), unless in some field the word and the other values share a type other than
//! text: `NaN` among numbers is a double, never a null; `NA` among numbers is a null. Among
//! text only, a word is a value, as a hand-made table would load it (birdstrikes.csv's
//! damage levels are `None`, `Minor`, `Medium`, ...), except `NULL`, `null` and `\N`, which
//! no text means. A word that is no null word is a value everywhere (a text field keeps it as
//! text); one that is, is null in every field (the load has one set of null words). The empty unquoted field is always null (the load's default). JSON `null` is null;
//! JSON strings are never null words (as in the load).
//!
//! # Formats
//!
//! Timestamps and dates are tried as ISO 8601 (with or without a zone, `T` or a space
//! between date and time, `.fff`) and then as a few day/month patterns; the first field that
//! sniffs to a timestamp fixes the load's timestamp format, and other fields' timestamps in
//! another format fall back to text (a load reads every timestamp with one setting). Likewise
//! dates. Integers are never sniffed as epoch numbers, days or nanoseconds: they stay
//! integers. A timestamp without a zone is read in the load's time zone (UTC by default).
//!
//! # Bounds
//!
//! The sample is what the host passed: at most `max_records` records are read, and a
//! record cut at the end of the bytes (when `at_end` is false) is not. Nothing the input or
//! the options declare sizes an allocation: fields grow with the names actually present,
//! up to [`MAX_FIELDS`]. A record that cannot be read (CSV quoting, JSON syntax, not UTF-8,
//! a field count other than the header's) is counted in `skipped`, not sampled.

use crate::name_map::NameMap;

use super::csv::CsvReader;
use super::json_array::{JsonArrayReader, JsonRecords};
use super::jsonl::{JsonKind, JsonValue, JsonlReader, ObjectScanner};
use super::sniff_types::{FormatChoice, Ladder, ValueKind};
use super::{BulkError, BulkOptions, Format};

/// Words that stand for a missing value in files from R, pandas, SQL dumps and
/// spreadsheets, in the order they are reported.
pub const NULL_WORDS: [&str; 8] = ["NA", "N/A", "NULL", "null", "None", "NaN", "nan", "\\N"];

/// The words no text means but null (SQL dumps): a null word also among text only.
const SQL_NULL_WORDS: [&str; 3] = ["NULL", "null", "\\N"];

/// The most fields a sampled input may have.
pub const MAX_FIELDS: usize = 4096;

/// The default number of records sampled.
pub const DEFAULT_SAMPLE_RECORDS: usize = 1000;

/// A field of the input and what the sample says it is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct SniffedField {
    /// The header name or JSON key, as written.
    pub name: String,
    /// The CQL type (`int`, `list<text>`).
    pub cql_type: String,
    /// Sampled records where the field was null, missing or a null word.
    pub nulls: u64,
    /// Sampled records where it had a value.
    pub values: u64,
}

/// The settings the load must read the input with so every sampled value fits its type.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct SniffedSettings {
    /// The null words, the empty field first (for CSV; the options' own when given).
    pub null_values: Vec<String>,
    /// `iso` or a pattern, when a field is a timestamp.
    pub timestamp_format: Option<String>,
    /// `iso` or a pattern, when a field is a date.
    pub date_format: Option<String>,
}

/// What a sample of an input is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct Sniffed {
    pub fields: Vec<SniffedField>,
    pub settings: SniffedSettings,
    /// Records sampled.
    pub records: u64,
    /// Records that could not be read and were left out of the sample.
    pub skipped: u64,
}

/// What one field has shown so far.
#[derive(Debug, Clone)]
struct FieldStats {
    name: String,
    /// The candidates that accepted every value (null words aside).
    mask: u64,
    /// Bit `i`: [`NULL_WORDS`]`[i]` occurred unquoted.
    words: u16,
    nulls: u64,
    /// Null-word occurrences, per word.
    word_counts: [u64; NULL_WORDS.len()],
    values: u64,
}

/// The sampler: the ladder, the fields and the null rules.
struct Sampler {
    ladder: Ladder,
    fields: Vec<FieldStats>,
    /// Field positions by name.
    index: NameMap<usize>,
    /// The null markers given in the options (then no word is guessed).
    given_nulls: Option<Vec<String>>,
    records: u64,
    skipped: u64,
}

impl Sampler {
    fn field(&mut self, name: &str) -> Result<usize, BulkError> {
        if let Some(&at) = self.index.get(name) {
            return Ok(at);
        }
        if self.fields.len() >= MAX_FIELDS {
            return Err(BulkError::Document(format!("the sample has more than {MAX_FIELDS} fields")));
        }
        self.fields.push(FieldStats {
            name: name.to_owned(),
            mask: self.ladder.all(),
            words: 0,
            // A field first seen in a later JSON record was missing (null) in the earlier ones.
            nulls: self.records,
            word_counts: [0; NULL_WORDS.len()],
            values: 0,
        });
        self.index.insert(name, self.fields.len() - 1);
        Ok(self.fields.len() - 1)
    }

    /// One CSV field's text (`quoted`: it was written in quotes, so never null).
    fn csv_value(&mut self, field: usize, text: &str, quoted: bool) {
        let Some(stats) = self.fields.get_mut(field) else { return };
        if !quoted {
            let null = match &self.given_nulls {
                Some(markers) => markers.iter().any(|m| m == text),
                None => text.is_empty(),
            };
            if null {
                stats.nulls += 1;
                return;
            }
            if self.given_nulls.is_none() {
                if let Some(word) = NULL_WORDS.iter().position(|w| *w == text) {
                    stats.words |= 1 << word;
                    if let Some(count) = stats.word_counts.get_mut(word) {
                        *count += 1;
                    }
                    return;
                }
            }
        }
        stats.values += 1;
        stats.mask = self.ladder.accepting(stats.mask, ValueKind::Text, text);
    }

    fn json_value(&mut self, field: usize, kind: ValueKind, text: &str) {
        let Some(stats) = self.fields.get_mut(field) else { return };
        stats.values += 1;
        stats.mask = self.ladder.accepting(stats.mask, kind, text);
    }

    fn json_null(&mut self, field: usize) {
        if let Some(stats) = self.fields.get_mut(field) {
            stats.nulls += 1;
        }
    }

    /// The null words: those seen that no field takes as a value of its type, and that some
    /// field needs as null: one whose other values share a type other than text, or that has
    /// no other value. Among text only, a word is a value (`None` beside `Minor` is a damage
    /// level) unless it is one of [`SQL_NULL_WORDS`].
    fn null_words(&mut self) -> u16 {
        let mut needed = 0u16;
        let mut values = 0u16;
        let text = self.ladder.text_only();
        for stats in &self.fields {
            for (i, word) in NULL_WORDS.iter().enumerate() {
                if stats.words & (1 << i) == 0 {
                    continue;
                }
                if stats.values == 0 || SQL_NULL_WORDS.contains(word) {
                    needed |= 1 << i;
                } else if self.ladder.accepting(stats.mask, ValueKind::Text, word) & !text != 0 {
                    values |= 1 << i;
                } else if stats.mask & !text != 0 {
                    needed |= 1 << i;
                }
            }
        }
        needed & !values
    }

    fn finish(mut self) -> Sniffed {
        let null_words = if self.given_nulls.is_some() { 0 } else { self.null_words() };
        // A word that is no null word is a value where it occurs.
        for (i, word) in NULL_WORDS.iter().enumerate() {
            for stats in self.fields.iter_mut() {
                if stats.words & (1 << i) == 0 {
                    continue;
                }
                let count = stats.word_counts[i];
                if null_words & (1 << i) != 0 {
                    stats.nulls += count;
                } else {
                    stats.values += count;
                    stats.mask = self.ladder.accepting(stats.mask, ValueKind::Text, word);
                }
            }
        }
        let (timestamp, date) = self.choose_formats();
        let fields = self
            .fields
            .iter()
            .map(|stats| {
                let mask = if stats.values == 0 { self.ladder.text_only() } else { stats.mask };
                let best = self.ladder.best(mask);
                let cql_type = self.ladder.candidates.get(best).map(|c| c.ty.to_string()).unwrap_or_default();
                SniffedField { name: stats.name.clone(), cql_type, nulls: stats.nulls, values: stats.values }
            })
            .collect();
        let null_values = match self.given_nulls {
            Some(markers) => markers,
            None => std::iter::once(String::new())
                .chain(
                    NULL_WORDS
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| null_words & (1 << i) != 0)
                        .map(|(_, w)| (*w).to_owned()),
                )
                .collect(),
        };
        Sniffed {
            fields,
            settings: SniffedSettings { null_values, timestamp_format: timestamp, date_format: date },
            records: self.records,
            skipped: self.skipped,
        }
    }

    /// Fixes one timestamp and one date format (those of the first field of each kind) and
    /// drops the others from every field's candidates.
    fn choose_formats(&mut self) -> (Option<String>, Option<String>) {
        let mut chosen = (None, None);
        for at in 0..self.fields.len() {
            let mask = self.fields[at].mask;
            let best = self.ladder.best(mask);
            let Some(candidate) = self.ladder.candidates.get(best) else { continue };
            let slot = if candidate.is_timestamp() {
                &mut chosen.0
            } else if candidate.is_date() {
                &mut chosen.1
            } else {
                continue;
            };
            if slot.is_none() {
                *slot = Some(best);
                for stats in self.fields.iter_mut() {
                    stats.mask = self.ladder.only_format(stats.mask, best);
                }
            }
        }
        let name = |choice: Option<usize>| {
            choice
                .and_then(|at| self.ladder.candidates.get(at))
                .map(|c| c.pattern.clone().unwrap_or_else(|| "iso".into()))
        };
        (name(chosen.0), name(chosen.1))
    }
}

/// Sniffs `input` (the first bytes of an input; `at_end`: all of it) read with `options`
/// (the load's own), sampling at most `max_records` records.
pub fn sniff(input: &[u8], options: BulkOptions, max_records: usize, at_end: bool) -> Result<Sniffed, BulkError> {
    let given_nulls = options.null_values.clone();
    let user_words = options.true_words.is_some()
        || options.false_words.is_some()
        || options.conversion.as_ref().is_some_and(|c| c.true_words.is_some() || c.false_words.is_some());
    let user_format =
        |text: Option<&String>| text.map(|t| if t.eq_ignore_ascii_case("iso") { None } else { Some(t.clone()) });
    let formats = FormatChoice {
        timestamp: user_format(options.conversion.as_ref().and_then(|c| c.timestamp_format.as_ref())),
        date: user_format(options.conversion.as_ref().and_then(|c| c.date_format.as_ref())),
    };
    let (bulk, _) = options.into_configs(Vec::new(), Vec::new())?;
    let ladder = Ladder::new(&bulk.text, user_words, &formats).map_err(BulkError::Config)?;
    let mut sampler =
        Sampler { ladder, fields: Vec::new(), index: NameMap::default(), given_nulls, records: 0, skipped: 0 };
    let skip = bulk.limits.skip;
    match bulk.format {
        Format::Csv(csv) => {
            if !csv.header {
                return Err(BulkError::Config("sniffing needs a CSV header to name the fields".into()));
            }
            let mut reader = CsvReader::new(csv).map_err(BulkError::Config)?;
            reader.push(input);
            if at_end {
                reader.finish();
            }
            sample_csv(&mut reader, &mut sampler, skip, max_records)?;
        }
        Format::Jsonl { max_record_bytes } => {
            let mut records = JsonRecords::Lines(JsonlReader::new(max_record_bytes));
            sample_json(&mut records, input, at_end, &mut sampler, skip, max_records)?;
        }
        Format::JsonArray { max_record_bytes } => {
            let mut records = JsonRecords::Array(JsonArrayReader::new(max_record_bytes));
            sample_json(&mut records, input, at_end, &mut sampler, skip, max_records)?;
        }
    }
    if sampler.records == 0 {
        return Err(BulkError::Document(format!(
            "no record to sniff in the sample ({} could not be read)",
            sampler.skipped
        )));
    }
    Ok(sampler.finish())
}

fn sample_csv(reader: &mut CsvReader, sampler: &mut Sampler, skip: u64, max: usize) -> Result<(), BulkError> {
    let header = reader.next_record().ok_or_else(|| BulkError::Document("the sample holds no CSV header".into()))?;
    if let Some(fault) = header.fault {
        return Err(BulkError::Header { line: header.line, reason: fault.to_string() });
    }
    let mut columns = Vec::new();
    for (position, span) in reader.fields().to_vec().into_iter().enumerate() {
        let name = std::str::from_utf8(reader.field_bytes(span)).map_err(|_| BulkError::Header {
            line: header.line,
            reason: format!("field {} is not UTF-8", position + 1),
        })?;
        if name.is_empty() {
            return Err(BulkError::Header { line: header.line, reason: format!("field {} has no name", position + 1) });
        }
        if sampler.index.contains_key(name) {
            return Err(BulkError::Header { line: header.line, reason: format!("field name {name:?} appears twice") });
        }
        columns.push(sampler.field(name)?);
    }
    let mut seen = 0u64;
    while (sampler.records as usize) < max {
        let Some(record) = reader.next_record() else { break };
        seen += 1;
        if seen <= skip {
            continue;
        }
        let spans = reader.fields();
        let texts: Option<Vec<(&str, bool)>> = (record.fault.is_none() && spans.len() == columns.len())
            .then(|| {
                spans.iter().map(|s| std::str::from_utf8(reader.field_bytes(*s)).ok().map(|t| (t, s.quoted))).collect()
            })
            .flatten();
        let Some(texts) = texts else {
            sampler.skipped += 1;
            continue;
        };
        for (&field, (text, quoted)) in columns.iter().zip(texts) {
            sampler.csv_value(field, text, quoted);
        }
        sampler.records += 1;
    }
    Ok(())
}

fn sample_json(
    records: &mut JsonRecords,
    input: &[u8],
    at_end: bool,
    sampler: &mut Sampler,
    skip: u64,
    max: usize,
) -> Result<(), BulkError> {
    records.push(input);
    if at_end {
        records.finish();
    }
    let mut scanner = ObjectScanner::new();
    let mut seen = 0u64;
    while (sampler.records as usize) < max {
        let Some(record) = records.next_record() else { break };
        let record = record.map_err(|fault| BulkError::Document(format!("line {}: {}", fault.line, fault.reason)))?;
        seen += 1;
        if seen <= skip {
            continue;
        }
        let Ok(line) = std::str::from_utf8(records.raw()) else {
            sampler.skipped += 1;
            continue;
        };
        if record.too_long.is_some() || !sample_object(line, &mut scanner, sampler)? {
            sampler.skipped += 1;
            continue;
        }
        sampler.records += 1;
    }
    Ok(())
}

/// One JSON object's members; `false` when it is not one object.
fn sample_object(line: &str, scanner: &mut ObjectScanner, sampler: &mut Sampler) -> Result<bool, BulkError> {
    // First the names (new ones become fields), then the values, one slot per field.
    let mut names: Vec<String> = Vec::new();
    let mut none: [Option<JsonValue>; 0] = [];
    let scanned = scanner.scan(
        line,
        |key| {
            names.push(key.to_owned());
            None
        },
        &mut none,
    );
    if scanned.is_err() {
        return Ok(false);
    }
    for name in &names {
        sampler.field(name)?;
    }
    let mut slots: Vec<Option<JsonValue>> = vec![None; sampler.fields.len()];
    if scanner.scan(line, |key| sampler.index.get(key).copied(), &mut slots).is_err() {
        return Ok(false); // a duplicate key too: the load refuses the record
    }
    for (field, slot) in slots.iter().enumerate() {
        let Some(value) = slot else {
            // A field a record lacks is null there (its column is left unset).
            sampler.json_null(field);
            continue;
        };
        let kind = match value.kind {
            JsonKind::Null => {
                sampler.json_null(field);
                continue;
            }
            JsonKind::String => ValueKind::Text,
            JsonKind::Number => ValueKind::Number,
            JsonKind::True | JsonKind::False => ValueKind::Boolean,
            JsonKind::Array => ValueKind::Array,
            JsonKind::Object => ValueKind::Object,
        };
        let text = if kind == ValueKind::Text {
            scanner.string(*value)
        } else {
            line.get(value.start..value.end).unwrap_or("")
        };
        sampler.json_value(field, kind, text);
    }
    Ok(true)
}
