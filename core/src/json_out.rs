//! Result pages as JSON text, formatted straight from the wire bytes (no value tree):
//! - JSON Lines (`Client.streamJson`, `query --format json`, `unload --format jsonl`): one
//!   object per row, `{"column":value,...}`, values as [`format_json`] writes them;
//! - cell lines (`Client.streamCells`, the CLI's table): one JSON array per row of each
//!   cell's CQL text as [`format_text`](crate::types::format_text) writes it (null for
//!   null), for a host that lays the text out itself.
//!
//! Both end each row with `\n`; [`format_column_names`] gives the page's column names.
//! Top-level timestamps are written in the zone of the [`TextOptions`] ([`json_page_options`],
//! `query --time-zone`), by [`format_text_with`], as `unload` writes them; inside collections,
//! tuples and UDTs they stay UTC, as unload's do.

use crate::error::ProtocolError;
use crate::rows::{Column, Rows};
use crate::types::{
    format_json, format_text_with, push_json_string, quote_json_in_place, ColumnType, ConversionSettings, TextOptions,
};

/// The options of the JSON page formatters from the host's settings (JSON of the conversion
/// settings): only `timeZone` and its `timeZoneOffsets` apply to them; an unknown zone, or any
/// other key, is an error naming it.
pub fn json_page_options(json: &str) -> Result<TextOptions, String> {
    let settings = ConversionSettings::from_json("JSON page settings", json)?;
    let zone_only = ConversionSettings {
        time_zone: settings.time_zone.clone(),
        time_zone_offsets: settings.time_zone_offsets.clone(),
        ..ConversionSettings::default()
    };
    if settings != zone_only {
        return Err("JSON page settings: only timeZone and timeZoneOffsets apply".into());
    }
    let mut opts = TextOptions::default();
    settings.apply(&mut opts)?;
    Ok(opts)
}

/// `["name",...]`: the page's column names as a JSON array.
pub fn format_column_names(rows: &Rows, out: &mut String) {
    out.push('[');
    for (i, c) in rows.columns.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_json_string(c.name, out);
    }
    out.push(']');
}

/// One JSON object per row.
pub fn format_json_lines(rows: &Rows, opts: &TextOptions, out: &mut String) -> Result<(), ProtocolError> {
    let zoned = !opts.zone.is_utc();
    format_lines(rows, ('{', '}'), out, |column, bytes, out| {
        push_json_string(column.name, out);
        out.push(':');
        match bytes {
            None => out.push_str("null"),
            // An empty timestamp is null, as format_json writes it.
            Some(bytes) if zoned && column.ty == ColumnType::Timestamp && !bytes.is_empty() => {
                let start = out.len();
                format_text_with(&column.ty, bytes, opts, out)?;
                quote_json_in_place(out, start);
            }
            Some(bytes) => format_json(&column.ty, bytes, out)?,
        }
        Ok(())
    })
}

/// One JSON array per row of the cells' CQL text (null for null).
pub fn format_cell_lines(rows: &Rows, opts: &TextOptions, out: &mut String) -> Result<(), ProtocolError> {
    format_lines(rows, ('[', ']'), out, |column, bytes, out| {
        match bytes {
            None => out.push_str("null"),
            Some(bytes) => {
                let start = out.len();
                format_text_with(&column.ty, bytes, opts, out)?;
                quote_json_in_place(out, start);
            }
        }
        Ok(())
    })
}

/// Each row between `brackets`, its cells written by `cell` and separated by commas, then `\n`.
/// The first cell that cannot be formatted stops the page.
fn format_lines(
    rows: &Rows,
    brackets: (char, char),
    out: &mut String,
    mut cell: impl FnMut(&Column<'_>, Option<&[u8]>, &mut String) -> Result<(), ProtocolError>,
) -> Result<(), ProtocolError> {
    let mut result = Ok(());
    rows.for_each_row(|cells| {
        if result.is_err() {
            return;
        }
        out.push(brackets.0);
        for (i, (bytes, column)) in cells.iter().zip(&rows.columns).enumerate() {
            if i > 0 {
                out.push(',');
            }
            if let Err(e) = cell(column, *bytes, out) {
                result = Err(e);
                return;
            }
        }
        out.push(brackets.1);
        out.push('\n');
    });
    result
}
