//! Result pages as JSON text, formatted straight from the wire bytes (no value tree):
//! - JSON Lines (`Client.streamJson`, `query --format json`, `unload --format jsonl`): one
//!   object per row, `{"column":value,...}`, values as [`format_json`] writes them;
//! - cell lines (`Client.streamCells`, the CLI's table): one JSON array per row of each
//!   cell's CQL text as [`format_text`] writes it (null for null), for a host that lays the
//!   text out itself.
//! Both end each row with `\n`; [`format_column_names`] gives the page's column names.

use crate::error::ProtocolError;
use crate::rows::{Column, Rows};
use crate::types::{format_json, format_text, push_json_string, quote_json_in_place};

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
pub fn format_json_lines(rows: &Rows, out: &mut String) -> Result<(), ProtocolError> {
    format_lines(rows, ('{', '}'), out, |column, bytes, out| {
        push_json_string(column.name, out);
        out.push(':');
        match bytes {
            None => out.push_str("null"),
            Some(bytes) => format_json(&column.ty, bytes, out)?,
        }
        Ok(())
    })
}

/// One JSON array per row of the cells' CQL text (null for null).
pub fn format_cell_lines(rows: &Rows, out: &mut String) -> Result<(), ProtocolError> {
    format_lines(rows, ('[', ']'), out, |column, bytes, out| {
        match bytes {
            None => out.push_str("null"),
            Some(bytes) => {
                let start = out.len();
                format_text(&column.ty, bytes, out)?;
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
