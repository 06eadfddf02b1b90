//! Runs the shared CQL value vectors (tests/vectors/types.json, format in
//! tests/vectors/README.md) through every path of `cqlwire_core::types`: decode, validate,
//! re-encode, text round trip, truncation and trailing bytes, and the row validator. Also
//! checks that the hot paths (validation, text encoding) do not allocate.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};

use cqlwire_core::error::{ProtocolError, Side};
use cqlwire_core::types::{encode_text, format_text, ColumnType, CqlValue, RowsValidator, TextOptions};
use cqlwire_core::wire::{Reader, Writer};
use serde_json::Value as Json;

// ---------------------------------------------------------------------------------------------
// Allocation counting, per thread so that tests running in parallel do not disturb each other.

struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count_one() {
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_one();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

// ---------------------------------------------------------------------------------------------
// Loading

struct Vector {
    name: String,
    type_text: String,
    ty: ColumnType,
    bytes: Vec<u8>,
    /// What a canonical encoder produces for this value (`canonical_hex`, else `hex`).
    canonical: Vec<u8>,
    expect: Option<Json>,
    /// The check that must fail and the byte offset it reports (error vectors).
    error: Option<(String, usize)>,
}

fn unhex(hex: &str) -> Vec<u8> {
    assert!(hex.len().is_multiple_of(2), "odd hex {hex}");
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
}

fn load_file(name: &str) -> Vec<Vector> {
    let text = common::vector_file(name);
    let raw: Vec<Json> = serde_json::from_str(&text).unwrap_or_else(|e| panic!("tests/vectors/{name}: {e}"));
    raw.into_iter()
        .map(|v| {
            let field = |key: &str| v.get(key).and_then(Json::as_str).map(str::to_owned);
            let name = field("name").expect("vector without a name");
            let type_text = field("type").unwrap_or_else(|| panic!("{name}: no type"));
            let ty = ColumnType::parse_cql(&type_text).unwrap_or_else(|e| panic!("{name}: type: {e}"));
            let bytes = unhex(&field("hex").unwrap_or_else(|| panic!("{name}: no hex")));
            let canonical = field("canonical_hex").map_or_else(|| bytes.clone(), |h| unhex(&h));
            let expect = v.get("expect").cloned();
            let error = field("error").map(|check| {
                let offset = v
                    .get("offset")
                    .and_then(Json::as_u64)
                    .unwrap_or_else(|| panic!("{name}: error without an offset"));
                (check, usize::try_from(offset).unwrap())
            });
            assert!(expect.is_some() != error.is_some(), "{name}: needs exactly one of expect and error");
            Vector { name, type_text, ty, bytes, canonical, expect, error }
        })
        .collect()
}

fn vectors() -> Vec<Vector> {
    load_file("types.json")
}

/// Our vectors, then the TypeScript side's extra ones (a missing file fails): both
/// decoders must agree on every vector either side wrote.
fn all_vectors() -> Vec<Vector> {
    let mut all = vectors();
    all.extend(load_file("types_ts_extra.json"));
    all
}

/// JSON equality with numbers compared by value: `1` and `1.0` are the same double.
fn same_json(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => same_double(x, y),
            _ => false,
        },
        (Json::Array(x), Json::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_json(a, b)),
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

/// serde_json without its `float_roundtrip` feature may parse a long decimal one ULP off
/// (e.g. "3.4028234663852886e+38"), so the expectation read from the file is allowed that
/// much; our own output comes from exact `f64`s.
fn same_double(x: f64, y: f64) -> bool {
    x == y || (x.is_sign_negative() == y.is_sign_negative() && x.to_bits().abs_diff(y.to_bits()) <= 1)
}

fn contains_empty(value: &CqlValue) -> bool {
    let nested = |item: &Option<CqlValue>| item.as_ref().is_some_and(contains_empty);
    match value {
        CqlValue::Empty => true,
        CqlValue::List(items) | CqlValue::Set(items) | CqlValue::Tuple(items) => items.iter().any(nested),
        CqlValue::Map(entries) => entries.iter().any(|(k, v)| nested(k) || nested(v)),
        CqlValue::Udt(fields) => fields.iter().any(|(_, v)| nested(v)),
        CqlValue::Vector(items) => items.iter().any(contains_empty),
        _ => false,
    }
}

/// Whether a list, set or map anywhere in `value` holds a null: a value Cassandra refuses,
/// which the loader's text reader refuses too (the wire decoder still reads it).
fn null_in_collection(value: &CqlValue) -> bool {
    let nested = |item: &Option<CqlValue>| item.as_ref().is_some_and(null_in_collection);
    let null_or_nested = |item: &Option<CqlValue>| item.is_none() || nested(item);
    match value {
        CqlValue::List(items) | CqlValue::Set(items) => items.iter().any(null_or_nested),
        CqlValue::Map(entries) => entries.iter().any(|(k, v)| null_or_nested(k) || null_or_nested(v)),
        CqlValue::Tuple(items) => items.iter().any(nested),
        CqlValue::Udt(fields) => fields.iter().any(|(_, v)| nested(v)),
        _ => false,
    }
}

fn round_trip_options() -> TextOptions {
    // Without null markers an empty field is an empty string, as a quoted CSV field would be.
    TextOptions { null_markers: Vec::new(), ..TextOptions::default() }
}

// ---------------------------------------------------------------------------------------------
// Per-vector checks

#[test]
fn good_vectors_decode_to_their_canonical_json() {
    for v in all_vectors() {
        let Some(expect) = &v.expect else { continue };
        let value = CqlValue::decode(&v.ty, &v.bytes).unwrap_or_else(|e| panic!("{}: {e}", v.name));
        let json = value.to_canonical_json().unwrap_or_else(|e| panic!("{}: {e}", v.name));
        assert!(same_json(&json, expect), "{}: got {json}, expected {expect}", v.name);
        v.ty.validate(&v.bytes).unwrap_or_else(|e| panic!("{}: validate: {e}", v.name));
    }
}

#[test]
fn error_vectors_fail_to_decode_and_to_validate() {
    for v in all_vectors() {
        if v.expect.is_some() {
            continue;
        }
        let (check, offset) = v.error.as_ref().expect("an error vector names its check");
        let named = |what: &str, outcome: Result<(), ProtocolError>| {
            let e = outcome.err().unwrap_or_else(|| panic!("{}: {what} succeeded", v.name));
            assert_eq!((e.side, e.field, e.offset), (Side::Remote, check.as_str(), *offset), "{}: {what}: {e}", v.name);
        };
        named("decode", CqlValue::decode(&v.ty, &v.bytes).map(drop));
        named("validate", v.ty.validate(&v.bytes));
        let mut text = String::from("kept");
        named("format_text", format_text(&v.ty, &v.bytes, &mut text));
        assert_eq!(text, "kept", "{}", v.name);
    }
}

/// Byte offsets after each `[bytes]` component of a tuple or UDT value: the prefixes that are
/// themselves a value with fewer components.
fn component_boundaries(bytes: &[u8]) -> BTreeSet<usize> {
    let mut cuts = BTreeSet::from([0]);
    let mut pos = 0;
    while let Some(len) = bytes.get(pos..pos + 4) {
        let len = i32::from_be_bytes(len.try_into().unwrap());
        pos += 4 + usize::try_from(len).unwrap_or(0);
        cuts.insert(pos);
    }
    cuts
}

/// Whether the first `len` bytes of `full` may legitimately be a whole value of `ty`.
fn prefix_may_be_a_value(ty: &ColumnType, full: &[u8], len: usize) -> bool {
    match ty {
        ColumnType::Text | ColumnType::Ascii | ColumnType::Blob | ColumnType::Custom(_) | ColumnType::Varint => true,
        ColumnType::Decimal => len == 0 || len >= 5,
        ColumnType::Inet => len == 0 || len == 4,
        ColumnType::Tuple(_) | ColumnType::Udt(_) => component_boundaries(full).contains(&len),
        _ => len == 0 && ty.allows_empty(),
    }
}

/// The side, check and byte offset of a failure, `None` on success.
fn check_of<T>(outcome: &Result<T, ProtocolError>) -> Option<(Side, &'static str, usize)> {
    outcome.as_ref().err().map(|e| (e.side, e.field, e.offset))
}

#[test]
fn every_strict_prefix_fails_unless_it_is_itself_a_value() {
    for v in all_vectors() {
        for len in 0..v.bytes.len() {
            let prefix = &v.bytes[..len];
            let decoded = CqlValue::decode(&v.ty, prefix);
            let validated = v.ty.validate(prefix);
            // Both paths fail the same way: the same check at the same byte (their wording differs).
            assert_eq!(
                check_of(&decoded),
                check_of(&validated),
                "{}: decode and validate disagree on {len} bytes",
                v.name
            );
            if v.expect.is_some() && !prefix_may_be_a_value(&v.ty, &v.bytes, len) {
                let e = decoded.expect_err(&format!("{}: the {len}-byte prefix decoded", v.name));
                assert!(e.side == Side::Remote && e.offset <= len, "{}: {len}-byte prefix: {e}", v.name);
            }
        }
    }
}

#[test]
fn a_trailing_byte_fails_for_fixed_size_and_container_values() {
    for v in all_vectors() {
        let mut longer = v.bytes.clone();
        longer.push(0);
        let decoded = CqlValue::decode(&v.ty, &longer);
        let validated = v.ty.validate(&longer);
        assert_eq!(check_of(&decoded), check_of(&validated), "{}: decode and validate disagree", v.name);
        let open_ended = matches!(
            v.ty,
            ColumnType::Text
                | ColumnType::Ascii
                | ColumnType::Blob
                | ColumnType::Custom(_)
                | ColumnType::Varint
                | ColumnType::Decimal
        );
        // An empty value plus one byte can be a whole boolean or tinyint.
        let was_empty_fixed = v.bytes.is_empty() && !v.ty.is_container();
        if v.expect.is_some() && !open_ended && !was_empty_fixed {
            let e = decoded.expect_err(&format!("{}: accepted a trailing byte", v.name));
            assert!(e.side == Side::Remote && e.offset <= longer.len(), "{}: trailing byte: {e}", v.name);
        }
    }
}

#[test]
fn values_re_encode_to_canonical_bytes() {
    for v in all_vectors() {
        if v.expect.is_none() {
            continue;
        }
        let value = CqlValue::decode(&v.ty, &v.bytes).unwrap();
        let mut out = vec![0xAB];
        value.encode(&v.ty, &mut out).unwrap_or_else(|e| panic!("{}: {e}", v.name));
        assert_eq!(out[0], 0xAB, "{}", v.name);
        assert_eq!(out[1..], v.canonical[..], "{}", v.name);
    }
}

#[test]
fn text_round_trip_gives_canonical_bytes() {
    let opts = round_trip_options();
    let (mut checked, mut refused) = (0, 0);
    for v in all_vectors() {
        if v.expect.is_none() {
            continue;
        }
        let mut text = String::new();
        format_text(&v.ty, &v.bytes, &mut text).unwrap_or_else(|e| panic!("{}: format: {e}", v.name));
        let value = CqlValue::decode(&v.ty, &v.bytes).unwrap();
        if contains_empty(&value) {
            // The legacy empty value has no text of its own: it reads back as null.
            if value == CqlValue::Empty {
                assert_eq!(text, "", "{}", v.name);
            }
            continue;
        }
        let mut out = Vec::new();
        if null_in_collection(&value) {
            let e = encode_text(&v.ty, &text, &opts, &mut out).expect_err(&v.name);
            assert_eq!(e.reason, "collection elements cannot be null (Cassandra refuses them)", "{}", v.name);
            refused += 1;
            continue;
        }
        encode_text(&v.ty, &text, &opts, &mut out)
            .unwrap_or_else(|e| panic!("{}: {text:?} does not read back: {e}", v.name));
        let len = i32::from_be_bytes(out[..4].try_into().unwrap());
        assert_eq!(len as usize, out.len() - 4, "{}", v.name);
        assert_eq!(out[4..], v.canonical[..], "{}: via {text:?}", v.name);
        checked += 1;
    }
    assert!(checked > 150, "only {checked} vectors went through text");
    assert!(refused >= 5, "only {refused} vectors with a null in a collection");
}

#[test]
fn types_round_trip_through_cql_text_and_options() {
    let mut seen = BTreeSet::new();
    for v in all_vectors() {
        if !seen.insert(v.type_text.clone()) {
            continue;
        }
        let described = format!("{:#}", v.ty);
        assert_eq!(ColumnType::parse_cql(&described).as_ref(), Ok(&v.ty), "{}: via {described}", v.type_text);
        let mut option = Vec::new();
        v.ty.write(&mut Writer::new(&mut option)).unwrap();
        let mut r = Reader::new(&option);
        assert_eq!(ColumnType::read(&mut r).as_ref(), Ok(&v.ty), "{}", v.type_text);
        assert!(r.is_empty(), "{}", v.type_text);
    }
}

/// The kind of a type, for coverage: its CQL name, or its constructor.
fn kind(ty: &ColumnType) -> &'static str {
    match ty {
        ColumnType::List(_) => "list",
        ColumnType::Set(_) => "set",
        ColumnType::Map(..) => "map",
        ColumnType::Tuple(_) => "tuple",
        ColumnType::Udt(_) => "udt",
        ColumnType::Vector(..) => "vector",
        ColumnType::Custom(_) => "custom",
        native => native.native_name().unwrap_or("?"),
    }
}

fn kinds_within(ty: &ColumnType, out: &mut BTreeSet<&'static str>) {
    out.insert(kind(ty));
    match ty {
        ColumnType::List(e) | ColumnType::Set(e) | ColumnType::Vector(e, _) => kinds_within(e, out),
        ColumnType::Map(k, v) => {
            kinds_within(k, out);
            kinds_within(v, out);
        }
        ColumnType::Tuple(items) => items.iter().for_each(|t| kinds_within(t, out)),
        ColumnType::Udt(u) => u.fields.iter().for_each(|(_, t)| kinds_within(t, out)),
        _ => {}
    }
}

#[test]
fn every_type_is_covered_by_our_vectors() {
    let all_kinds: Vec<&str> =
        ColumnType::native_names().chain(["list", "set", "map", "tuple", "udt", "vector", "custom"]).collect();
    let mut good: BTreeMap<&str, usize> = BTreeMap::new();
    let mut bad: BTreeMap<&str, usize> = BTreeMap::new();
    for v in vectors() {
        if v.expect.is_some() {
            *good.entry(kind(&v.ty)).or_default() += 1;
        } else {
            let mut kinds = BTreeSet::new();
            kinds_within(&v.ty, &mut kinds);
            for k in kinds {
                *bad.entry(k).or_default() += 1;
            }
        }
    }
    for k in all_kinds.iter().copied() {
        assert!(good.get(k).copied().unwrap_or(0) >= 2, "{k}: fewer than 2 good vectors");
        // Any bytes are a custom value, so custom alone has no error vectors.
        if k != "custom" {
            assert!(bad.get(k).copied().unwrap_or(0) >= 1, "{k}: no error vector");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Rows and allocation

/// A Rows body (`<rows_count><rows_content>`) with one column per vector, `rows` times.
fn rows_body(cells: &[&Vector], rows: usize) -> Vec<u8> {
    let mut body = (rows as i32).to_be_bytes().to_vec();
    for row in 0..rows {
        for (i, v) in cells.iter().enumerate() {
            if (row + i) % 5 == 4 {
                body.extend_from_slice(&(-1i32).to_be_bytes());
            } else {
                body.extend_from_slice(&(v.bytes.len() as i32).to_be_bytes());
                body.extend_from_slice(&v.bytes);
            }
        }
    }
    body
}

#[test]
fn rows_validator_walks_every_cell_without_allocating() {
    let all = vectors();
    let good: Vec<&Vector> = all.iter().filter(|v| v.expect.is_some()).collect();
    let columns: Vec<ColumnType> = good.iter().map(|v| v.ty.clone()).collect();
    let mut body = rows_body(&good, 20);
    body.extend_from_slice(b"after");
    let validator = RowsValidator::new(&columns);
    let mut rows = 0;
    let allocations = allocations_during(|| {
        let mut r = Reader::new(&body);
        rows = validator.validate(&mut r).unwrap();
        assert_eq!(r.rest(), b"after");
    });
    assert_eq!(rows, 20);
    assert_eq!(allocations, 0, "validating {} cells allocated", 20 * columns.len());

    // One bad cell anywhere fails the result and names its row and column.
    let bad = all.iter().find(|v| v.expect.is_none() && matches!(v.ty, ColumnType::Map(..))).unwrap();
    let mut cells = good.clone();
    cells[7] = bad;
    let mut columns = columns.clone();
    columns[7] = bad.ty.clone();
    let body = rows_body(&cells, 3);
    let err = RowsValidator::new(&columns).validate(&mut Reader::new(&body)).unwrap_err();
    assert!(err.reason.starts_with("row 0, column 7 (map<text, int>)"), "{err}");
}

#[test]
fn validate_does_not_allocate_on_good_values() {
    for v in vectors() {
        if v.expect.is_some() {
            let allocations = allocations_during(|| v.ty.validate(&v.bytes).unwrap());
            assert_eq!(allocations, 0, "{}", v.name);
        }
    }
}

#[test]
fn encode_text_does_not_allocate_when_the_buffer_has_room() {
    let opts = TextOptions::default();
    let long_varint = "7".repeat(10_000);
    let fields: &[(&str, &str)] = &[
        ("int", "-42"),
        ("text", "it's 😀"),
        ("boolean", "Yes"),
        ("varint", "-123456789012345678901234567890123456789012345"),
        ("varint", &long_varint),
        ("decimal", "-12345678901234567890123456789012345678901234.5e-7"),
        ("double", "-1.5e300"),
        ("float", "NaN"),
        ("timestamp", "2024-01-02 03:04:05.123+0200"),
        ("date", "-0044-03-15"),
        ("time", "23:59:59.999999999"),
        ("duration", "P1Y2M3DT4H5M6S"),
        ("uuid", "550e8400-e29b-41d4-a716-446655440000"),
        ("inet", "2001:db8::ff00:42:8329"),
        ("blob", "0xdeadbeef"),
        ("list<text>", r#"["a\"b", 'c''d', $$e$$, "\ud83d\ude00"]"#),
        ("map<text, frozen<list<int>>>", "{'k': [1, 2], \"j\": []}"),
        ("tuple<int, text>", "(null, 'x')"),
        ("set<timestamp>", "{'1970-01-01', 0}"),
        ("tuple<int, text, inet>", "(1, 'x', '::1')"),
        ("udt<ks.a>{x:int,\"Y\":text,z:date}", r#"{z: '2024-01-01', "\u0059": 'b'}"#),
        ("vector<float, 3>", "[0.1, -0.0, Infinity]"),
        ("vector<text, 2>", "['a', \"bb\"]"),
        ("int", ""),
    ];
    for (type_text, field) in fields {
        let ty = ColumnType::parse_cql(type_text).unwrap();
        let mut out = Vec::with_capacity(64 * 1024);
        let allocations = allocations_during(|| {
            encode_text(&ty, field, &opts, &mut out).unwrap_or_else(|e| panic!("{type_text} {field:?}: {e}"));
        });
        assert_eq!(allocations, 0, "{type_text} {field:?}");
        // And what was written is a valid value of the type.
        let len = i32::from_be_bytes(out[..4].try_into().unwrap());
        if len >= 0 {
            ty.validate(&out[4..]).unwrap_or_else(|e| panic!("{type_text} {field:?}: {e}"));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Garbage in: never a panic, and the three readers agree.

/// xorshift64*: deterministic, so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn mutated_bytes_never_panic_and_all_readers_agree() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for v in vectors() {
        if v.bytes.len() > 4096 {
            continue;
        }
        for _ in 0..200 {
            let mut bytes = v.bytes.clone();
            for _ in 0..1 + rng.below(3) {
                match rng.below(4) {
                    0 if !bytes.is_empty() => {
                        let i = rng.below(bytes.len());
                        bytes[i] = rng.next() as u8;
                    }
                    1 if !bytes.is_empty() => {
                        let i = rng.below(bytes.len());
                        bytes[i] = [0x00, 0x7F, 0x80, 0xFF][rng.below(4)];
                    }
                    2 => bytes.truncate(rng.below(bytes.len() + 1)),
                    _ => bytes.insert(rng.below(bytes.len() + 1), rng.next() as u8),
                }
            }
            let decoded = CqlValue::decode(&v.ty, &bytes);
            let validated = v.ty.validate(&bytes);
            let mut text = String::new();
            let formatted = format_text(&v.ty, &bytes, &mut text);
            assert_eq!(decoded.is_ok(), validated.is_ok(), "{}: {bytes:02x?}", v.name);
            assert_eq!(formatted.is_ok(), validated.is_ok(), "{}: {bytes:02x?}", v.name);
            if let Ok(value) = decoded {
                let mut out = Vec::new();
                value.encode(&v.ty, &mut out).unwrap_or_else(|e| panic!("{}: {bytes:02x?}: {e}", v.name));
                v.ty.validate(&out).unwrap();
            }
        }
    }
}

#[test]
fn random_text_never_panics_and_what_it_accepts_is_valid() {
    const PIECES: &[&str] = &[
        "[",
        "]",
        "{",
        "}",
        "(",
        ")",
        ",",
        ":",
        " ",
        "'",
        "''",
        "\"",
        "\\",
        "\\u00e9",
        "\\ud83d",
        "$$",
        "null",
        "0",
        "1",
        "-",
        "+",
        "9",
        ".",
        "e",
        "E",
        "x",
        "0x",
        "ff",
        "NaN",
        "Infinity",
        "true",
        "no",
        "T",
        "Z",
        "P",
        "h",
        "mo",
        "µs",
        "é",
        "😀",
        "::",
        "2024-01-02",
        "12:30:00",
        "550e8400-e29b-41d4-a716-446655440000",
        "street",
        "zip",
    ];
    let opts = TextOptions::default();
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let mut accepted = 0;
    for v in vectors() {
        for _ in 0..100 {
            let field: String = (0..rng.below(12)).map(|_| PIECES[rng.below(PIECES.len())]).collect();
            let mut out = vec![0x55];
            match encode_text(&v.ty, &field, &opts, &mut out) {
                Ok(()) => {
                    accepted += 1;
                    let len = i32::from_be_bytes(out[1..5].try_into().unwrap());
                    if len >= 0 {
                        v.ty.validate(&out[5..])
                            .unwrap_or_else(|e| panic!("{}: {field:?} gave invalid bytes: {e}", v.type_text));
                    }
                }
                Err(e) => {
                    assert_eq!(out, [0x55], "{}: {field:?}", v.type_text);
                    assert!(e.value.chars().count() <= 41, "{e}");
                }
            }
        }
    }
    assert!(accepted > 100, "only {accepted} random fields were accepted");
}
