//! The two type-text parsers (CQL text and marshal class names) and the `[option]` reader,
//! on any text up to megabytes long.
//!
//! Input: the text (lossily UTF-8). Invariants: no panic and no stack overflow on a stack the
//! size of the WASM build's, whatever the nesting; whatever parses is at most
//! `MAX_TYPE_DEPTH` deep and reads back to itself from its `{:#}` text, its `[option]` and
//! its marshal class.
#![no_main]

use cqlwire_core::types::{ColumnType, MAX_TYPE_DEPTH};
use cqlwire_core::wire::{Reader, Writer};
use cqlwire_core_fuzz::on_wasm_stack;
use libfuzzer_sys::fuzz_target;

fn depth(ty: &ColumnType) -> usize {
    1 + match ty {
        ColumnType::List(e) | ColumnType::Set(e) | ColumnType::Vector(e, _) => depth(e),
        ColumnType::Map(k, v) => depth(k).max(depth(v)),
        ColumnType::Tuple(items) => items.iter().map(depth).max().unwrap_or(0),
        ColumnType::Udt(u) => u.fields.iter().map(|(_, t)| depth(t)).max().unwrap_or(0),
        _ => 0,
    }
}

/// Whether every custom class inside a vector is a plain class name. A vector travels as its
/// marshal class text, in which a custom class holding `,`, `:`, parentheses or blanks (which
/// CQL text allows inside quotes) cannot be told apart from the vector's own syntax.
fn marshal_safe(ty: &ColumnType, in_vector: bool) -> bool {
    match ty {
        ColumnType::Custom(class) => !in_vector || !class.bytes().any(|b| b",:()\0".contains(&b) || b.is_ascii_whitespace()),
        ColumnType::List(e) | ColumnType::Set(e) => marshal_safe(e, in_vector),
        ColumnType::Vector(e, _) => marshal_safe(e, true),
        ColumnType::Map(k, v) => marshal_safe(k, in_vector) && marshal_safe(v, in_vector),
        ColumnType::Tuple(items) => items.iter().all(|t| marshal_safe(t, in_vector)),
        ColumnType::Udt(u) => u.fields.iter().all(|(_, t)| marshal_safe(t, in_vector)),
        _ => true,
    }
}

fn reads_back(ty: &ColumnType) {
    assert!(depth(ty) <= MAX_TYPE_DEPTH, "{ty:#} is deeper than the limit");
    assert_eq!(ColumnType::parse_cql(&format!("{ty:#}")).as_ref(), Ok(ty), "CQL text of {ty:#}");
    let mut option = Vec::new();
    if marshal_safe(ty, false) && ty.write(&mut Writer::new(&mut option)).is_ok() {
        let mut r = Reader::new(&option);
        assert_eq!(ColumnType::read(&mut r).as_ref(), Ok(ty), "[option] of {ty:#}");
    }
}

fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(ty) = ColumnType::parse_cql(&text) {
        reads_back(&ty);
    }
    if let Ok(ty) = ColumnType::parse_marshal_class(&text) {
        assert!(depth(&ty) <= MAX_TYPE_DEPTH, "{ty:#} is deeper than the limit");
    }
    // The same bytes as an `[option]`, whose custom classes go through the marshal parser.
    if let Ok(ty) = ColumnType::read(&mut Reader::new(data)) {
        assert!(depth(&ty) <= MAX_TYPE_DEPTH, "{ty:#} is deeper than the limit");
    }
}

fuzz_target!(|data: &[u8]| on_wasm_stack(data, run));
