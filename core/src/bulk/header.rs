//! The header record of CSV input, read on its own: the host builds its statement and field
//! mapping from the names before the load starts, with the same reader the load uses.

use super::csv::{CsvOptions, CsvReader};
use super::options::{byte_option, comment_option};
use super::BulkError;
use crate::json_fields::Fields;

/// The CSV settings a header is read with (the load's own keys and defaults).
#[derive(Debug, Clone, Default)]
pub struct HeaderOptions {
    pub delimiter: Option<String>,
    pub quote: Option<String>,
    pub escape: Option<String>,
    pub comment: Option<String>,
    pub trim: Option<bool>,
    pub max_record_bytes: Option<usize>,
}

/// What the first record of some input is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "status", rename_all = "camelCase"))]
pub enum HeaderRead {
    /// The input so far holds no complete record: push more (or say it ended).
    NeedMore,
    /// The input has no record at all.
    Empty,
    /// The header: its field names, where its bytes are (`start..start + raw_length`, line
    /// end excluded; `start` is past a byte order mark) and where the data starts (`end`).
    #[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
    Record { fields: Vec<String>, start: u64, raw_length: u64, end: u64, line: u64, next_line: u64 },
    /// The first record cannot be read (an open quote, over the size limit, not UTF-8).
    #[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
    Fault { reason: String, start: u64, raw_length: u64, end: u64, line: u64, next_line: u64 },
}

impl HeaderOptions {
    pub fn from_json(json: &str) -> Result<Self, BulkError> {
        HeaderOptions::read(json).map_err(BulkError::Config)
    }

    fn read(json: &str) -> Result<Self, String> {
        let mut f = Fields::parse("header options", json)?;
        let options = HeaderOptions {
            delimiter: f.string("delimiter"),
            quote: f.string("quote"),
            escape: f.string("escape"),
            comment: f.string("comment"),
            trim: f.bool("trim"),
            max_record_bytes: f.usize("maxRecordBytes"),
        };
        f.finish(options)
    }

    fn csv(&self) -> Result<CsvOptions, BulkError> {
        let defaults = CsvOptions::default();
        let quote = byte_option("quote", self.quote.as_deref(), defaults.quote)?;
        Ok(CsvOptions {
            delimiter: byte_option("delimiter", self.delimiter.as_deref(), defaults.delimiter)?,
            quote,
            escape: byte_option("escape", self.escape.as_deref(), quote)?,
            comment: comment_option(self.comment.as_deref())?,
            header: true,
            trim: self.trim.unwrap_or(false),
            max_record_bytes: self.max_record_bytes.unwrap_or(defaults.max_record_bytes),
        })
    }
}

/// Reads the first record of `input` (the input's first bytes; `at_end`: all of it).
pub fn read_header(options: &HeaderOptions, input: &[u8], at_end: bool) -> Result<HeaderRead, BulkError> {
    let mut reader = CsvReader::new(options.csv()?).map_err(BulkError::Config)?;
    reader.push(input);
    if at_end {
        reader.finish();
    }
    let Some(record) = reader.next_record() else {
        return Ok(if at_end { HeaderRead::Empty } else { HeaderRead::NeedMore });
    };
    let raw = reader.raw();
    let (start, raw_length, end, line) = (record.offset, raw.len() as u64, record.end_offset, record.line);
    let next_line = line + 1 + raw.iter().filter(|&&b| b == b'\n').count() as u64;
    let fault = |reason: String| HeaderRead::Fault { reason, start, raw_length, end, line, next_line };
    if let Some(fault_kind) = record.fault {
        return Ok(fault(fault_kind.to_string()));
    }
    let mut fields = Vec::with_capacity(reader.fields().len());
    for (position, span) in reader.fields().iter().enumerate() {
        match std::str::from_utf8(reader.field_bytes(*span)) {
            Ok(name) => fields.push(name.to_owned()),
            Err(e) => return Ok(fault(format!("field {} is not UTF-8 (at byte {})", position + 1, e.valid_up_to()))),
        }
    }
    Ok(HeaderRead::Record { fields, start, raw_length, end, line, next_line })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(input: &[u8], at_end: bool) -> HeaderRead {
        read_header(&HeaderOptions::default(), input, at_end).unwrap()
    }

    #[test]
    fn a_header_is_read_past_a_byte_order_mark_with_its_positions() {
        assert_eq!(read(b"\xEF\xBB\xBFa,\"b\nc\"", false), HeaderRead::NeedMore);
        assert_eq!(
            read(b"\xEF\xBB\xBFa,\"b\nc\"\r\n1,2\n", false),
            HeaderRead::Record {
                fields: vec!["a".into(), "b\nc".into()],
                start: 3,
                raw_length: 7,
                // A CR ends the record; the LF after it is skipped before the next one.
                end: 11,
                line: 1,
                next_line: 3
            }
        );
        assert_eq!(read(b"", true), HeaderRead::Empty);
    }

    #[test]
    fn an_unreadable_header_is_a_fault_not_an_error() {
        let HeaderRead::Fault { reason, end, .. } = read(b"a,\"b\n1,2\n", true) else { panic!() };
        assert_eq!((reason.as_str(), end), ("unterminated quoted field 2 at end of input", 9));
        let HeaderRead::Fault { reason, .. } = read(b"a,\xFF\n", true) else { panic!() };
        assert_eq!(reason, "field 2 is not UTF-8 (at byte 0)");
        assert!(matches!(
            read_header(&HeaderOptions { quote: Some("ab".into()), ..HeaderOptions::default() }, b"a\n", true),
            Err(BulkError::Config(_))
        ));
    }

    #[test]
    fn the_options_are_the_load_s_csv_settings() {
        let options = HeaderOptions::from_json(r##"{"delimiter":";","comment":"#"}"##).unwrap();
        assert_eq!(
            read_header(&options, b"# note\na;b\n", true).unwrap(),
            HeaderRead::Record {
                fields: vec!["a".into(), "b".into()],
                start: 7,
                raw_length: 3,
                end: 11,
                line: 2,
                next_line: 3
            }
        );
        assert_eq!(
            HeaderOptions::from_json(r#"{"delimitr":";"}"#).unwrap_err(),
            BulkError::Config(
                "header options: unknown field `delimitr`, expected one of `delimiter`, `quote`, `escape`, `comment`, `trim`, `maxRecordBytes`".into()
            )
        );
    }
}
