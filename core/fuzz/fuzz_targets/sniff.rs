//! The sniffer of `load --create-table`, then the load over the same input with what it
//! sniffed.
//!
//! Input: a control byte (bits 0-1: CSV, JSON Lines or a JSON array; bits 2-7: the records
//! to sample), then the input. Invariants: no panic on a stack the size of the WASM build's;
//! every sniffed type is CQL type text; when no record was left out of the sample, the load,
//! reading the sampled records with the sniffed types, null words and formats, refuses none
//! of their values.
#![no_main]

use cqlwire_core::bulk::sniff::sniff;
use cqlwire_core::bulk::{BadRowKind, BulkEncoder, BulkOptions, RowOutcome};
use cqlwire_core::types::{ColumnType, ConversionSettings};
use cqlwire_core_fuzz::on_wasm_stack;
use libfuzzer_sys::fuzz_target;

fn run(data: &[u8]) {
    let Some((&control, input)) = data.split_first() else { return };
    let format = ["csv", "jsonl", "json", "csv"][usize::from(control & 3)];
    let records = usize::from(control >> 2) + 1;
    let options = format!(r#"{{"format":"{format}"}}"#);
    let Ok(sniffed) = sniff(input, BulkOptions::from_json(&options).unwrap(), records, true) else { return };
    let columns: Vec<(String, ColumnType)> = sniffed
        .fields
        .iter()
        .map(|f| (f.name.clone(), ColumnType::parse_cql(&f.cql_type).expect("a sniffed type is CQL type text")))
        .collect();
    if sniffed.skipped > 0 {
        return; // a record left out of the sample may hold any value
    }
    let mut load = BulkOptions::from_json(&options).unwrap();
    load.null_values = Some(sniffed.settings.null_values);
    load.max_records = Some(sniffed.records + sniffed.skipped);
    load.conversion = Some(ConversionSettings {
        timestamp_format: sniffed.settings.timestamp_format,
        date_format: sniffed.settings.date_format,
        ..ConversionSettings::default()
    });
    let (config, _) = load.into_configs(columns, Vec::new()).unwrap();
    let Ok(mut encoder) = BulkEncoder::new(config) else { return };
    encoder.push(input);
    encoder.finish();
    while let Some(row) = encoder.next_row() {
        if let RowOutcome::Bad { kind: BadRowKind::Value, line, column, reason, .. } = row {
            panic!("line {line}, {column:?}: the load refused a sampled value: {reason}");
        }
    }
}

fuzz_target!(|data: &[u8]| on_wasm_stack(data, run));
