//! Result pages as JSON text, formatted straight from the wire bytes (no value tree):
//! - JSON Lines (`Client.streamJson`, `query --format json`, `unload --format jsonl`): one
//!   object per row, `{"column":value,...}`, values as [`format_json`] writes them;
//! - cell lines (`Client.streamCells`, the CLI's table): one JSON array per row of each
//!   cell's CQL text as [`format_text`] writes it (null for null), for a host that lays the
//!   text out itself.
//! Both end each row with `\n`; [`format_column_names`] gives the page's column names.

use crate::error::ProtocolError;
use crate::rows::Rows;
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
    let mut result = Ok(());
    rows.for_each_row(|cells| {
        if result.is_err() {
            return;
        }
        out.push('{');
        for (i, (cell, column)) in cells.iter().zip(&rows.columns).enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_json_string(column.name, out);
            out.push(':');
            match cell {
                None => out.push_str("null"),
                Some(bytes) => {
                    if let Err(e) = format_json(&column.ty, bytes, out) {
                        result = Err(e);
                        return;
                    }
                }
            }
        }
        out.push_str("}\n");
    });
    result
}

/// One JSON array per row of the cells' CQL text (null for null).
pub fn format_cell_lines(rows: &Rows, out: &mut String) -> Result<(), ProtocolError> {
    let mut result = Ok(());
    rows.for_each_row(|cells| {
        if result.is_err() {
            return;
        }
        out.push('[');
        for (i, (cell, column)) in cells.iter().zip(&rows.columns).enumerate() {
            if i > 0 {
                out.push(',');
            }
            match cell {
                None => out.push_str("null"),
                Some(bytes) => {
                    let start = out.len();
                    if let Err(e) = format_text(&column.ty, bytes, out) {
                        result = Err(e);
                        return;
                    }
                    quote_json_in_place(out, start);
                }
            }
        }
        out.push_str("]\n");
    });
    result
}
