//! The bulk encoder end to end: its mapping parser, the CQL type text of its columns, and CSV
//! or JSON Lines input pushed in chunks.
//!
//! Input: a control byte (bit 0: JSON Lines; bit 1: CSV header; bit 2: trim; bits 3-4:
//! delimiter; the rest: chunk size), then three lines: the column types (`;`-separated CQL
//! type text), the mapping (`field=column,...`), and the rest is the input. Invariants: no
//! panic on a stack the size of the WASM build's; every row's values are a well-formed value
//! list with one value per column.
#![no_main]

use cqlwire_core::bulk::csv::CsvOptions;
use cqlwire_core::bulk::{BulkConfig, BulkEncoder, Format, Mapping, RowOutcome};
use cqlwire_core::types::ColumnType;
use cqlwire_core_fuzz::on_wasm_stack;
use libfuzzer_sys::fuzz_target;

fn line<'a>(data: &mut &'a [u8]) -> &'a [u8] {
    let end = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    let (head, rest) = data.split_at(end);
    *data = rest.get(1..).unwrap_or(&[]);
    head
}

/// `[n: u16][value]*` with -1 null and -2 unset: one value per column.
fn check_values(values: &[u8], columns: usize) {
    let n = u16::from_be_bytes([values[0], values[1]]) as usize;
    assert_eq!(n, columns, "one value per column");
    let mut at = 2;
    for _ in 0..n {
        let len = i32::from_be_bytes(values[at..at + 4].try_into().unwrap());
        at += 4 + usize::try_from(len).unwrap_or(0);
        assert!(len >= -2 && at <= values.len(), "value length {len}");
    }
    assert_eq!(at, values.len(), "no bytes after the last value");
}

fn run(data: &[u8]) {
    let Some((&control, mut data)) = data.split_first() else { return };
    let types = String::from_utf8_lossy(line(&mut data)).into_owned();
    let mapping = String::from_utf8_lossy(line(&mut data)).into_owned();
    let columns: Vec<(String, ColumnType)> = types
        .split(';')
        .enumerate()
        .filter_map(|(i, text)| ColumnType::parse_cql(text).ok().map(|ty| (format!("c{i}"), ty)))
        .collect();
    if columns.is_empty() {
        return;
    }
    let format = if control & 1 != 0 {
        Format::jsonl()
    } else {
        let delimiter = [b',', b'\t', b'|', b';'][usize::from(control >> 3 & 3)];
        Format::Csv(CsvOptions { delimiter, header: control & 2 != 0, trim: control & 4 != 0, ..CsvOptions::default() })
    };
    let mut config = BulkConfig::new(format, columns);
    let Ok(mapping) = Mapping::parse(&mapping) else { return };
    config.mapping = mapping;
    config.pk_indexes = vec![0];
    let width = config.columns.len();
    let Ok(mut encoder) = BulkEncoder::new(config) else { return };
    let chunk = usize::from(control >> 5) * 37 + 1;
    let drain = |encoder: &mut BulkEncoder| {
        while let Some(row) = encoder.next_row() {
            if let RowOutcome::Good { values, .. } = row {
                check_values(values, width);
            }
        }
    };
    for piece in data.chunks(chunk) {
        encoder.push(piece);
        drain(&mut encoder);
    }
    encoder.finish();
    drain(&mut encoder);
}

fuzz_target!(|data: &[u8]| on_wasm_stack(data, run));
