//! RESULT bodies: the core's own Rows reader and the value validators over arbitrary bytes.
//! Invariants: no panic; whatever `Rows::parse` accepts, every cell of it validates and
//! iterates without failing.
#![no_main]

use cqlwire_core::rows::Rows;
use cqlwire_core::types::{ColumnType, CqlValue};
use cqlwire_core::wire::Reader;
use cqlwire_core_fuzz::on_wasm_stack;
use libfuzzer_sys::fuzz_target;

fn run(data: &[u8]) {
    if let Ok(rows) = Rows::parse(data) {
        let mut cells = 0usize;
        rows.for_each_row(|row| cells += row.len());
        assert_eq!(cells, rows.row_count * rows.columns.len());
    }
    // A type option followed by a value of that type.
    let mut r = Reader::new(data);
    if let Ok(ty) = ColumnType::read(&mut r) {
        let value = r.rest();
        let valid = ty.validate(value).is_ok();
        let decoded = CqlValue::decode(&ty, value);
        assert_eq!(valid, decoded.is_ok(), "validate and decode disagree for {ty}");
    }
}

fuzz_target!(|data: &[u8]| on_wasm_stack(data, run));
