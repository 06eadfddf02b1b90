//! Result pages as CSV (`unload`, `Client.streamCsv`): the one CSV formatter. What it writes,
//! the bulk loader reads back to the same values when given the same delimiter, quote,
//! escape, null word and conversion settings.

use crate::json_fields::Fields;

use crate::bulk::CsvOptions;
use crate::error::ProtocolError;
use crate::rows::Rows;
use crate::types::{format_json, format_text_file, format_text_with, ConversionSettings, TextOptions};

/// How collections, tuples, UDTs and vectors are spelled in a CSV field.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CollectionFormat {
    /// CQL literals, as `cqlsh COPY TO` writes them: `['a', 'b']`, `{1: 'x'}`, `(1, 'a')`.
    #[default]
    Cql,
    /// JSON, as DSBulk writes and reads them: `["a","b"]`, `{"1":"x"}`, `[1,"a"]`, UDTs as
    /// objects ([`format_json`]).
    Json,
}

/// How [`format_csv`] writes a page.
#[derive(Debug, Clone)]
pub struct CsvFormat {
    pub delimiter: u8,
    pub quote: u8,
    /// Written before a quote (and before itself) inside a quoted field; equal to `quote`
    /// for RFC 4180's doubled quote.
    pub escape: u8,
    /// The text of a null, unquoted. A value with this text is quoted to stay a value.
    pub null_word: String,
    pub header: bool,
    pub collections: CollectionFormat,
    /// Top-level values follow these (patterns, zone, boolean words, separators, blobs).
    pub text: TextOptions,
}

impl Default for CsvFormat {
    fn default() -> Self {
        CsvFormat {
            delimiter: b',',
            quote: b'"',
            escape: b'"',
            null_word: String::new(),
            header: false,
            collections: CollectionFormat::Cql,
            text: TextOptions::default(),
        }
    }
}

/// The host's CSV output settings, as JSON (camelCase keys); each one optional.
#[derive(Debug, Clone, Default)]
pub struct CsvFormatSettings {
    pub delimiter: Option<String>,
    pub quote: Option<String>,
    pub escape: Option<String>,
    pub null_word: Option<String>,
    pub header: Option<bool>,
    /// `cql` (default) or `json`: see [`CollectionFormat`].
    pub collection_format: Option<String>,
    pub conversion: Option<ConversionSettings>,
}

impl CsvFormatSettings {
    /// Reads the settings from JSON; an unknown key or a value of the wrong type is an error naming it.
    pub fn from_json(json: &str) -> Result<Self, String> {
        let mut f = Fields::parse("CSV settings", json)?;
        let settings = CsvFormatSettings {
            delimiter: f.string("delimiter"),
            quote: f.string("quote"),
            escape: f.string("escape"),
            null_word: f.string("nullWord"),
            header: f.bool("header"),
            collection_format: f.string("collectionFormat"),
            conversion: ConversionSettings::take_nested(&mut f, "CSV settings: conversion"),
        };
        f.finish(settings)
    }
}

fn one_byte(key: &str, text: &Option<String>, default: u8) -> Result<u8, String> {
    match text.as_deref() {
        None => Ok(default),
        Some(t) if t.len() == 1 => Ok(t.as_bytes()[0]),
        Some(t) => Err(format!("the CSV {key} must be one ASCII character, got {t:?}")),
    }
}

impl CsvFormat {
    /// Checks the settings as the loader checks its own (same rules, same messages).
    pub fn from_settings(s: &CsvFormatSettings) -> Result<CsvFormat, String> {
        let mut f = CsvFormat::default();
        f.delimiter = one_byte("delimiter", &s.delimiter, f.delimiter)?;
        f.quote = one_byte("quote", &s.quote, f.quote)?;
        f.escape = one_byte("escape", &s.escape, f.quote)?;
        CsvOptions { delimiter: f.delimiter, quote: f.quote, escape: f.escape, ..CsvOptions::default() }.validate()?;
        if let Some(word) = &s.null_word {
            if word.bytes().any(|b| b == f.delimiter || b == f.quote || b == b'\r' || b == b'\n') {
                return Err(format!("the null word {word:?} must not hold the delimiter, the quote or a line end"));
            }
            f.null_word = word.clone();
        }
        f.header = s.header.unwrap_or(false);
        f.collections = match s.collection_format.as_deref() {
            None | Some("cql") => CollectionFormat::Cql,
            Some("json") => CollectionFormat::Json,
            Some(other) => return Err(format!("the collection format {other:?} must be cql or json")),
        };
        if let Some(conversion) = &s.conversion {
            conversion.apply(&mut f.text)?;
        }
        Ok(f)
    }
}

/// The header line of a page's columns (column names, quoted where needed).
pub fn format_csv_header(rows: &Rows, f: &CsvFormat, out: &mut Vec<u8>) {
    for (i, c) in rows.columns.iter().enumerate() {
        if i > 0 {
            out.push(f.delimiter);
        }
        write_csv_field(c.name, f, out, false);
    }
    out.extend_from_slice(b"\r\n");
}

/// Writes every row of a page (after the header when `f.header`), each line ended by CRLF
/// (RFC 4180): null is the null word
/// unquoted (by default an empty field), an empty string is `""`, containers are CQL literals
/// or JSON as `f.collections` says, and any field with a delimiter, quote, escape, line end or edge blank is quoted.
/// Allocation-free per row once `scratch` has grown.
pub fn format_csv(rows: &Rows, f: &CsvFormat, scratch: &mut String, out: &mut Vec<u8>) -> Result<(), ProtocolError> {
    if f.header {
        format_csv_header(rows, f, out);
    }
    let mut result = Ok(());
    rows.for_each_row(|cells| {
        if result.is_err() {
            return;
        }
        for (i, (cell, column)) in cells.iter().zip(&rows.columns).enumerate() {
            if i > 0 {
                out.push(f.delimiter);
            }
            let Some(bytes) = cell else {
                out.extend_from_slice(f.null_word.as_bytes());
                continue;
            };
            scratch.clear();
            let written = if f.collections == CollectionFormat::Json && column.ty.is_container() {
                format_json(&column.ty, bytes, scratch)
            } else if column.ty.is_container() {
                // The settings change only top-level values; a UDT's null fields are written as nothing.
                format_text_file(&column.ty, bytes, scratch)
            } else {
                format_text_with(&column.ty, bytes, &f.text, scratch)
            };
            if let Err(e) = written {
                result = Err(e);
                return;
            }
            write_csv_field(scratch, f, out, true);
        }
        out.extend_from_slice(b"\r\n");
    });
    result
}

fn write_csv_field(text: &str, f: &CsvFormat, out: &mut Vec<u8>, is_value: bool) {
    let b = text.as_bytes();
    let needs_quotes = (is_value && b == f.null_word.as_bytes())
        || b.iter().any(|&c| c == f.delimiter || c == f.quote || c == f.escape || c == b'\n' || c == b'\r')
        || b.first().is_some_and(|c| c.is_ascii_whitespace())
        || b.last().is_some_and(|c| c.is_ascii_whitespace());
    if !needs_quotes {
        out.extend_from_slice(b);
        return;
    }
    out.push(f.quote);
    for &c in b {
        if c == f.quote || c == f.escape {
            out.push(f.escape);
        }
        out.push(c);
    }
    out.push(f.quote);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(text: &str, f: &CsvFormat) -> String {
        let mut out = Vec::new();
        write_csv_field(text, f, &mut out, true);
        String::from_utf8(out).unwrap()
    }

    fn settings(json: &str) -> Result<CsvFormat, String> {
        CsvFormat::from_settings(&CsvFormatSettings::from_json(json).unwrap())
    }

    #[test]
    fn a_field_with_a_line_end_alone_is_quoted() {
        let f = CsvFormat::default();
        assert_eq!(field("a\nb", &f), "\"a\nb\"");
        assert_eq!(field("a\rb", &f), "\"a\rb\"");
    }

    #[test]
    fn a_field_with_a_blank_at_one_edge_is_quoted() {
        let f = CsvFormat::default();
        assert_eq!(field(" a", &f), "\" a\"");
        assert_eq!(field("a\t", &f), "\"a\t\"");
        assert_eq!(field("a b", &f), "a b");
    }

    #[test]
    fn a_field_with_an_escape_other_than_the_quote_is_quoted_and_the_escape_escaped() {
        let f = CsvFormat { escape: b'\\', ..CsvFormat::default() };
        assert_eq!(field("c\\d", &f), "\"c\\\\d\"");
        assert_eq!(field("a\"b", &f), "\"a\\\"b\"");
        assert_eq!(field("ab", &f), "ab");
    }

    #[test]
    fn a_separator_of_more_than_one_byte_is_refused() {
        assert_eq!(
            settings(r#"{"delimiter": ";;"}"#).unwrap_err(),
            r#"the CSV delimiter must be one ASCII character, got ";;""#
        );
        assert_eq!(settings(r#"{"quote": ""}"#).unwrap_err(), r#"the CSV quote must be one ASCII character, got """#);
    }

    #[test]
    fn the_chosen_separators_are_checked_as_the_loader_checks_them() {
        assert_eq!(settings(r#"{"delimiter": "\""}"#).unwrap_err(), "the CSV delimiter and quote must differ");
        assert_eq!(settings(r#"{"delimiter": ";", "quote": ";"}"#).unwrap_err(), "the CSV delimiter and quote must differ");
        assert_eq!(settings(r#"{"escape": ","}"#).unwrap_err(), "the CSV delimiter and escape must differ");
        let f = settings(r#"{"delimiter": ";", "quote": "'", "escape": "\\"}"#).unwrap();
        assert_eq!((f.delimiter, f.quote, f.escape), (b';', b'\'', b'\\'));
    }

    #[test]
    fn a_null_word_with_the_delimiter_quote_or_a_line_end_is_refused() {
        for word in ["a,b", "a\"b", "a\rb", "a\nb"] {
            let json = format!(r#"{{"nullWord": {}}}"#, serde_json::to_string(word).unwrap());
            assert_eq!(
                settings(&json).unwrap_err(),
                format!("the null word {word:?} must not hold the delimiter, the quote or a line end"),
                "{word:?}"
            );
        }
        assert_eq!(settings(r#"{"nullWord": "N/A"}"#).unwrap().null_word, "N/A");
    }
}
