//! The bulk encoder end to end: the shared vectors (tests/vectors/bulk/cases.json) fed whole,
//! byte by byte and cut at random; a round trip of random values of every type through
//! `format_text` and CSV; no allocation per good row; bounded memory on a huge line; and
//! restarting from `consumed_offset`.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use core::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use cqlwire_core::bulk::{
    BadColumn, BulkConfig, BulkEncoder, BulkError, CsvOptions, FieldRef, Format, Mapping, RowOutcome,
};
use cqlwire_core::cluster::{routing_token, SplitMix64};
use cqlwire_core::types::{format_text, ColumnType, CqlValue, TextOptions};
use serde_json::Value as Json;

// ---------------------------------------------------------------------------------------------
// A counting allocator: allocations and live bytes per thread, so the harness's other threads
// do not disturb a measurement.

struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

fn grew(by: i64) {
    let _ = LIVE.try_with(|live| {
        let now = live.get() + by;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        grew(layout.size() as i64);
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        grew(layout.size() as i64);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        grew(new_size as i64 - layout.size() as i64);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        grew(-(layout.size() as i64));
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

/// Resets the peak to the current live size and returns that size.
fn reset_peak() -> i64 {
    let live = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(live));
    live
}

fn peak() -> i64 {
    PEAK.with(Cell::get)
}

// ---------------------------------------------------------------------------------------------
// Driving the encoder

#[derive(Debug, Clone, PartialEq)]
enum Row {
    Good { values: Vec<u8>, token: Option<i64>, line: u64, offset: u64, end_offset: u64 },
    Bad { raw: Vec<u8>, line: u64, offset: u64, end_offset: u64, column: Option<BadColumn>, reason: String },
}

#[derive(Debug, PartialEq)]
struct Run {
    rows: Vec<Row>,
    error: Option<BulkError>,
    consumed: u64,
}

fn drain(encoder: &mut BulkEncoder, rows: &mut Vec<Row>) {
    while let Some(outcome) = encoder.next_row() {
        rows.push(match outcome {
            RowOutcome::Good { values, token, line, offset, end_offset, .. } => {
                Row::Good { values: values.to_vec(), token, line, offset, end_offset }
            }
            RowOutcome::Bad { raw, line, offset, end_offset, column, reason, .. } => {
                Row::Bad { raw: raw.to_vec(), line, offset, end_offset, column, reason }
            }
        });
    }
}

/// Feeds `input` cut before each of `cuts` (ascending).
fn run_cut(config: &BulkConfig, input: &[u8], cuts: &[usize]) -> Run {
    let mut encoder = BulkEncoder::new(config.clone()).unwrap_or_else(|e| panic!("{e}"));
    let mut rows = Vec::new();
    let mut start = 0;
    for &cut in cuts.iter().chain(std::iter::once(&input.len())) {
        encoder.push(&input[start..cut]);
        drain(&mut encoder, &mut rows);
        start = cut;
    }
    encoder.finish();
    drain(&mut encoder, &mut rows);
    if encoder.error().is_none() {
        assert_eq!(encoder.stats().bytes_pushed, input.len() as u64);
    }
    Run { rows, error: encoder.error().cloned(), consumed: encoder.consumed_offset() }
}

/// Runs whole, byte by byte and at random cuts; all must agree.
fn run_every_way(config: &BulkConfig, input: &[u8], what: &str) -> Run {
    let whole = run_cut(config, input, &[]);
    let bytewise: Vec<usize> = (1..input.len()).collect();
    assert_eq!(run_cut(config, input, &bytewise), whole, "{what}: byte by byte");
    let mut rng = SplitMix64::new(input.len() as u64);
    for attempt in 0..8 {
        let mut cuts: Vec<usize> =
            (0..rng.between(1, 12)).map(|_| rng.between(0, input.len() as u64) as usize).collect();
        cuts.sort_unstable();
        assert_eq!(run_cut(config, input, &cuts), whole, "{what}: cut at {cuts:?} (attempt {attempt})");
    }
    whole
}

/// `[n][value]*` as (None = null, Some(None) = unset... ) strings comparable to the vectors.
fn value_list(blob: &[u8]) -> Vec<Json> {
    let n = u16::from_be_bytes([blob[0], blob[1]]) as usize;
    let mut at = 2;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let len = i32::from_be_bytes(blob[at..at + 4].try_into().unwrap());
        at += 4;
        out.push(match len {
            -1 => Json::Null,
            -2 => Json::String("unset".into()),
            len => {
                let bytes = &blob[at..at + len as usize];
                at += len as usize;
                Json::String(hex(bytes))
            }
        });
    }
    assert_eq!(at, blob.len(), "trailing bytes after the value list");
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap()).collect()
}

// ---------------------------------------------------------------------------------------------
// The shared vectors

fn one_byte(case: &Json, key: &str) -> Option<u8> {
    case.get(key).and_then(Json::as_str).map(|s| {
        assert_eq!(s.len(), 1, "{key} must be one byte");
        s.as_bytes()[0]
    })
}

fn config_of(case: &Json) -> BulkConfig {
    let columns = case["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let ty = c[1].as_str().unwrap();
            (c[0].as_str().unwrap().to_owned(), ColumnType::parse_cql(ty).unwrap_or_else(|e| panic!("{ty}: {e}")))
        })
        .collect();
    let format = match case["format"].as_str().unwrap() {
        "csv" => {
            let mut opts = CsvOptions::default();
            if let Some(o) = case.get("csv") {
                opts.delimiter = one_byte(o, "delimiter").unwrap_or(opts.delimiter);
                opts.quote = one_byte(o, "quote").unwrap_or(opts.quote);
                opts.escape = one_byte(o, "escape").unwrap_or(opts.escape);
                opts.comment = one_byte(o, "comment");
                opts.header = o.get("header").and_then(Json::as_bool).unwrap_or(true);
                opts.trim = o.get("trim").and_then(Json::as_bool).unwrap_or(false);
                if let Some(max) = o.get("max_record_bytes").and_then(Json::as_u64) {
                    opts.max_record_bytes = max as usize;
                }
            }
            Format::Csv(opts)
        }
        "jsonl" => match case.get("jsonl").and_then(|o| o.get("max_record_bytes")).and_then(Json::as_u64) {
            Some(max) => Format::Jsonl { max_record_bytes: max as usize },
            None => Format::jsonl(),
        },
        other => panic!("unknown format {other}"),
    };
    let mut config = BulkConfig::new(format, columns);
    if let Some(mapping) = case.get("mapping").and_then(Json::as_str) {
        config.mapping = Mapping::parse(mapping).unwrap();
    }
    if let Some(constants) = case.get("constants").and_then(Json::as_array) {
        config.constants =
            constants.iter().map(|c| (c[0].as_str().unwrap().into(), c[1].as_str().unwrap().into())).collect();
    }
    if let Some(pk) = case.get("pk").and_then(Json::as_array) {
        config.pk_indexes = pk.iter().map(|i| i.as_u64().unwrap() as u16).collect();
    }
    if let Some(markers) = case.get("null_markers").and_then(Json::as_array) {
        config.text.null_markers = markers.iter().map(|m| m.as_str().unwrap().to_owned()).collect();
    }
    config.ignore_unknown = case.get("ignore_unknown").and_then(Json::as_bool).unwrap_or(false);
    config.null_to_unset = case.get("null_to_unset").and_then(Json::as_bool).unwrap_or(true);
    if let Some(limit) = case.get("max_errors").and_then(Json::as_u64) {
        config.limits.errors = cqlwire_core::bulk::ErrorLimit::Count(limit);
    }
    config
}

fn column_text(column: &Option<BadColumn>) -> Option<String> {
    column.as_ref().map(|c| match c {
        BadColumn::Name(name) => name.clone(),
        BadColumn::Field(k) => format!("#{k}"),
        BadColumn::Byte(k) => format!("@{k}"),
    })
}

fn check_row(name: &str, index: usize, row: &Row, expect: &Json, pk: &[usize]) {
    let what = format!("{name}: row {index}");
    let (line, offset, end_offset) = match row {
        Row::Good { line, offset, end_offset, .. } | Row::Bad { line, offset, end_offset, .. } => {
            (*line, *offset, *end_offset)
        }
    };
    assert_eq!(Some(line), expect["line"].as_u64(), "{what}: line of {row:?}");
    if let Some(o) = expect.get("offset") {
        assert_eq!(Some(offset), o.as_u64(), "{what}: offset");
    }
    if let Some(o) = expect.get("end_offset") {
        assert_eq!(Some(end_offset), o.as_u64(), "{what}: end_offset");
    }
    match (row, expect.get("values"), expect.get("bad")) {
        (Row::Good { values, token, .. }, Some(want), None) => {
            let got = value_list(values);
            assert_eq!(&Json::Array(got.clone()), want, "{what}: values");
            if pk.is_empty() {
                assert_eq!(*token, None, "{what}: token without a key");
            } else {
                let parts: Vec<Vec<u8>> = pk.iter().map(|&i| unhex(got[i].as_str().unwrap())).collect();
                let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
                assert_eq!(*token, Some(routing_token(&refs).unwrap()), "{what}: token");
            }
        }
        (Row::Bad { raw, column, reason, .. }, None, Some(want)) => {
            assert!(reason.contains(want.as_str().unwrap()), "{what}: reason {reason:?} lacks {want}");
            let want_column = expect.get("column").and_then(Json::as_str).map(str::to_owned);
            assert_eq!(column_text(column), want_column, "{what}: column ({reason})");
            if let Some(r) = expect.get("raw").and_then(Json::as_str) {
                assert_eq!(String::from_utf8_lossy(raw), r, "{what}: raw");
            }
            if let Some(r) = expect.get("raw_hex").and_then(Json::as_str) {
                assert_eq!(hex(raw), r, "{what}: raw");
            }
        }
        _ => panic!("{what}: got {row:?}, expected {expect}"),
    }
    if let (Row::Good { .. }, Some(r)) = (row, expect.get("raw")) {
        // For a good row, `raw` states what the row spans: check it against the offsets.
        assert_eq!(r.as_str().unwrap().len() as u64, end_offset - offset - 1, "{what}: span");
    }
}

#[test]
fn shared_vectors_give_the_same_rows_however_the_input_is_cut() {
    let text = common::vector_file("bulk/cases.json");
    let cases: Vec<Json> = serde_json::from_str(&text).unwrap();
    assert!(cases.len() >= 30, "only {} cases", cases.len());
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let input = match (case.get("input"), case.get("input_hex")) {
            (Some(text), None) => text.as_str().unwrap().as_bytes().to_vec(),
            (None, Some(h)) => unhex(h.as_str().unwrap()),
            _ => panic!("{name}: needs input or input_hex"),
        };
        let config = config_of(case);
        let pk: Vec<usize> = config.pk_indexes.iter().map(|&i| i as usize).collect();
        let run = run_every_way(&config, &input, name);
        let expect = case["expect"].as_array().unwrap();
        assert_eq!(run.rows.len(), expect.len(), "{name}: {:#?}", run.rows);
        for (i, (row, want)) in run.rows.iter().zip(expect).enumerate() {
            check_row(name, i, row, want, &pk);
        }
        match case.get("error").and_then(Json::as_str) {
            Some(want) => {
                let error = run.error.unwrap_or_else(|| panic!("{name}: no error"));
                assert!(error.to_string().contains(want), "{name}: {error}");
            }
            None => {
                assert_eq!(run.error, None, "{name}");
                assert_eq!(run.consumed, input.len() as u64, "{name}: consumed offset");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Configuration

fn id_name() -> Vec<(String, ColumnType)> {
    vec![("id".into(), ColumnType::Int), ("name".into(), ColumnType::Text)]
}

#[test]
fn configuration_errors_are_reported_up_front() {
    let csv = || Format::Csv(CsvOptions::default());
    let bad = |config: BulkConfig, want: &str| {
        let err = BulkEncoder::new(config).unwrap_err();
        assert!(matches!(err, BulkError::Config(_)), "{err:?}");
        assert!(err.to_string().contains(want), "{err} lacks {want}");
    };
    let mut c = BulkConfig::new(csv(), id_name());
    c.mapping = Mapping::parse("a=nope").unwrap();
    bad(c, "no column 'nope'");
    let mut c = BulkConfig::new(csv(), id_name());
    c.mapping = Mapping::parse("a=id,b=ID").unwrap();
    bad(c, "mapped twice");
    let mut c = BulkConfig::new(csv(), id_name());
    c.constants = vec![("id".into(), "x".into())];
    bad(c, "constant for column id: expected int");
    let mut c = BulkConfig::new(csv(), id_name());
    c.constants = vec![("id".into(), "1".into())];
    c.mapping = Mapping::parse("a=id").unwrap();
    bad(c, "has a constant and is also mapped");
    let mut c = BulkConfig::new(csv(), id_name());
    c.pk_indexes = vec![2];
    bad(c, "partition key index 2");
    let c = BulkConfig::new(Format::Csv(CsvOptions { quote: b',', ..CsvOptions::default() }), id_name());
    bad(c, "delimiter and quote must differ");
    let mut c = BulkConfig::new(Format::jsonl(), id_name());
    c.mapping = Mapping::Explicit(vec![(FieldRef::Index(0), "id".into())]);
    bad(c, "not positions");
    let mut c = BulkConfig::new(Format::Csv(CsvOptions { header: false, ..CsvOptions::default() }), id_name());
    c.mapping = Mapping::parse("label=name").unwrap();
    bad(c, "no header");
    let mut c = BulkConfig::new(Format::Csv(CsvOptions { header: false, ..CsvOptions::default() }), id_name());
    c.mapping = Mapping::parse("1=name").unwrap();
    c.pk_indexes = vec![0];
    bad(c, "partition key column id is not mapped");
}

#[test]
fn mapping_text() {
    assert_eq!(Mapping::parse(" ").unwrap(), Mapping::Auto);
    assert_eq!(Mapping::parse("*").unwrap(), Mapping::Auto);
    assert_eq!(
        Mapping::parse("a = x, 2=y").unwrap(),
        Mapping::Explicit(vec![(FieldRef::Name("a".into()), "x".into()), (FieldRef::Index(2), "y".into())])
    );
    assert_eq!(Mapping::parse("a").unwrap_err(), BulkError::Config("mapping entry 'a' is not field=column".into()));
    assert_eq!(Mapping::parse("a=").unwrap_err(), BulkError::Config("mapping entry 'a=' is not field=column".into()));
    assert!(
        Mapping::parse("+1=x").is_ok_and(|m| m == Mapping::Explicit(vec![(FieldRef::Name("+1".into()), "x".into())]))
    );
}

#[test]
fn header_errors_stop_the_encoder_and_later_input_is_ignored() {
    let mut encoder = BulkEncoder::new(BulkConfig::new(Format::Csv(CsvOptions::default()), id_name())).unwrap();
    encoder.push(b"id,\"open\n");
    encoder.finish();
    assert!(encoder.next_row().is_none());
    let err = encoder.error().cloned().unwrap();
    assert!(matches!(&err, BulkError::Header { line: 1, reason } if reason.contains("unterminated")), "{err:?}");
    encoder.push(b"1,a\n");
    assert!(encoder.next_row().is_none());
    assert_eq!(encoder.stats().bytes_pushed, 9);

    let mut encoder = BulkEncoder::new(BulkConfig::new(Format::Csv(CsvOptions::default()), id_name())).unwrap();
    encoder.push(b"id,\xff\n1,a\n");
    assert!(encoder.next_row().is_none());
    assert!(encoder.error().unwrap().to_string().contains("not UTF-8"));
}

// ---------------------------------------------------------------------------------------------
// Round trip: random values → format_text → CSV → BulkEncoder → the same bytes

/// Beside every native type (`ColumnType::native_names`).
const ROUND_TRIP_COMPOSITES: &[&str] = &[
    "'org.example.MyType'",
    "list<int>",
    "set<text>",
    "map<text, frozen<list<int>>>",
    "frozen<map<timestamp, tuple<double, blob>>>",
    "tuple<int, text, inet>",
    "udt<ks.addr>{street:text,zip:int,\"Mixed Case\":date,tags:frozen<set<ascii>>}",
    "vector<float, 3>",
    "vector<text, 2>",
    "list<frozen<tuple<duration, varint, decimal>>>",
];

const TEXT_PIECES: &[&str] = &[
    "a", "Z", " ", ",", "\"", "'", "''", "\n", "\r", "\r\n", "\t", "é", "😀", "日本", "\\", "$$", "null", "NULL", "[",
    "]", "{", "}", ":", "0x", "-1",
];

fn random_text(rng: &mut SplitMix64, ascii_only: bool) -> String {
    let mut s = String::new();
    for _ in 0..rng.between(0, 6) {
        let piece = TEXT_PIECES[rng.between(0, TEXT_PIECES.len() as u64 - 1) as usize];
        if !ascii_only || piece.is_ascii() {
            s.push_str(piece);
        }
    }
    s
}

fn random_bytes(rng: &mut SplitMix64, max: u64) -> Vec<u8> {
    (0..rng.between(0, max)).map(|_| rng.next_u32() as u8).collect()
}

/// A signed integer of random magnitude, so that small and extreme values both turn up.
fn random_i64(rng: &mut SplitMix64) -> i64 {
    let bits = rng.between(0, 64) as u32;
    let v = if bits == 0 { 0 } else { rng.next_u64() >> (64 - bits) };
    v as i64
}

fn random_value(ty: &ColumnType, rng: &mut SplitMix64, depth: usize) -> CqlValue {
    let small = |rng: &mut SplitMix64| rng.between(0, 3) as usize;
    match ty {
        ColumnType::Custom(_) => CqlValue::Custom(random_bytes(rng, 6)),
        ColumnType::Ascii => CqlValue::Ascii(random_text(rng, true)),
        ColumnType::Text => CqlValue::Text(random_text(rng, false)),
        ColumnType::Blob => CqlValue::Blob(random_bytes(rng, 8)),
        ColumnType::Boolean => CqlValue::Boolean(rng.between(0, 1) == 1),
        ColumnType::Tinyint => CqlValue::Tinyint(random_i64(rng) as i8),
        ColumnType::Smallint => CqlValue::Smallint(random_i64(rng) as i16),
        ColumnType::Int => CqlValue::Int(random_i64(rng) as i32),
        ColumnType::Bigint => CqlValue::Bigint(random_i64(rng)),
        ColumnType::Counter => CqlValue::Counter(random_i64(rng)),
        ColumnType::Varint => {
            let mut bytes = random_bytes(rng, 20);
            bytes.push(rng.next_u32() as u8);
            CqlValue::Varint(bytes)
        }
        ColumnType::Decimal => {
            let mut unscaled = random_bytes(rng, 12);
            unscaled.push(rng.next_u32() as u8);
            let scale = match rng.between(0, 9) {
                0 => i32::MAX,
                1 => i32::MIN,
                _ => rng.between(0, 60) as i32 - 30,
            };
            CqlValue::Decimal { scale, unscaled }
        }
        ColumnType::Float => {
            let x = f32::from_bits(rng.next_u32());
            CqlValue::Float(if x.is_nan() { f32::NAN } else { x })
        }
        ColumnType::Double => {
            let x = f64::from_bits(rng.next_u64());
            CqlValue::Double(if x.is_nan() { f64::NAN } else { x })
        }
        ColumnType::Timestamp => CqlValue::Timestamp(random_i64(rng)),
        ColumnType::Date => CqlValue::Date(rng.next_u32() as i32),
        ColumnType::Time => CqlValue::Time(rng.between(0, 86_399_999_999_999) as i64),
        ColumnType::Duration => {
            let sign = if rng.between(0, 1) == 0 { 1 } else { -1 };
            CqlValue::Duration {
                months: sign * rng.between(0, 1000) as i32,
                days: sign * rng.between(0, 100_000) as i32,
                nanos: i64::from(sign) * (random_i64(rng) & i64::MAX),
            }
        }
        ColumnType::Uuid => CqlValue::Uuid(
            rng.next_u64()
                .to_be_bytes()
                .into_iter()
                .chain(rng.next_u64().to_be_bytes())
                .collect::<Vec<_>>()
                .try_into()
                .unwrap(),
        ),
        ColumnType::Timeuuid => {
            let mut bytes: [u8; 16] = rng
                .next_u64()
                .to_be_bytes()
                .into_iter()
                .chain(rng.next_u64().to_be_bytes())
                .collect::<Vec<_>>()
                .try_into()
                .unwrap();
            bytes[6] = 0x10 | (bytes[6] & 0x0F);
            CqlValue::Timeuuid(bytes)
        }
        ColumnType::Inet => CqlValue::Inet(if rng.between(0, 1) == 0 {
            IpAddr::V4(Ipv4Addr::from(rng.next_u32()))
        } else {
            IpAddr::V6(Ipv6Addr::from(((rng.next_u64() as u128) << 64) | rng.next_u64() as u128))
        }),
        ColumnType::List(inner) => {
            CqlValue::List((0..small(rng)).map(|_| Some(random_value(inner, rng, depth + 1))).collect())
        }
        ColumnType::Set(inner) => {
            CqlValue::Set((0..small(rng)).map(|_| Some(random_value(inner, rng, depth + 1))).collect())
        }
        ColumnType::Map(k, v) => CqlValue::Map(
            (0..small(rng))
                .map(|_| (Some(random_value(k, rng, depth + 1)), Some(random_value(v, rng, depth + 1))))
                .collect(),
        ),
        ColumnType::Tuple(items) => CqlValue::Tuple(items.iter().map(|t| maybe_value(t, rng, depth + 1)).collect()),
        ColumnType::Udt(udt) => {
            CqlValue::Udt(udt.fields.iter().map(|(name, t)| (name.clone(), maybe_value(t, rng, depth + 1))).collect())
        }
        ColumnType::Vector(inner, n) => {
            CqlValue::Vector((0..*n).map(|_| random_value(inner, rng, depth + 1)).collect())
        }
    }
}

/// A random value of `ty`, or (one time in eight) a null: only where Cassandra takes one, a
/// tuple component or UDT field (never a list, set or map element, which the loader refuses).
fn maybe_value(ty: &ColumnType, rng: &mut SplitMix64, depth: usize) -> Option<CqlValue> {
    if rng.between(0, 7) == 0 {
        None
    } else {
        Some(random_value(ty, rng, depth))
    }
}

/// A CSV field for `text`, quoted when it must be (or, at random, when it need not be).
fn csv_field(text: &str, rng: &mut SplitMix64, out: &mut String) {
    let must = text.is_empty() || text.contains([',', '"', '\r', '\n']);
    if must || rng.between(0, 3) == 0 {
        out.push('"');
        out.push_str(&text.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(text);
    }
}

#[test]
fn random_values_of_every_type_round_trip_through_csv() {
    let types: Vec<&str> = ColumnType::native_names().chain(ROUND_TRIP_COMPOSITES.iter().copied()).collect();
    let columns: Vec<(String, ColumnType)> = types
        .iter()
        .enumerate()
        .map(|(i, t)| (format!("c{i}"), ColumnType::parse_cql(t).unwrap_or_else(|e| panic!("{t}: {e}"))))
        .collect();
    let mut rng = SplitMix64::new(0xB01C);
    let mut csv = columns.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(",");
    csv.push_str("\r\n");
    let mut expected: Vec<Vec<u8>> = Vec::new();
    let mut texts: Vec<Vec<String>> = Vec::new();
    for _ in 0..400 {
        let mut blob = (columns.len() as u16).to_be_bytes().to_vec();
        let mut row_texts = Vec::new();
        for (i, (_, ty)) in columns.iter().enumerate() {
            if i > 0 {
                csv.push(',');
            }
            if rng.between(0, 15) == 0 {
                // An unquoted empty field: null.
                blob.extend_from_slice(&(-1i32).to_be_bytes());
                row_texts.push("<null>".to_owned());
                continue;
            }
            let value = random_value(ty, &mut rng, 0);
            let mut bytes = Vec::new();
            value.encode(ty, &mut bytes).unwrap_or_else(|e| panic!("{ty}: {value:?}: {e}"));
            // Canonical bytes: what decoding and re-encoding gives (minimal varints, ...).
            let mut canonical = Vec::new();
            CqlValue::decode(ty, &bytes).unwrap().encode(ty, &mut canonical).unwrap();
            let mut text = String::new();
            format_text(ty, &bytes, &mut text).unwrap_or_else(|e| panic!("{ty}: {value:?}: {e}"));
            csv_field(&text, &mut rng, &mut csv);
            blob.extend_from_slice(&(canonical.len() as i32).to_be_bytes());
            blob.extend_from_slice(&canonical);
            row_texts.push(text);
        }
        csv.push_str(if rng.between(0, 1) == 0 { "\n" } else { "\r\n" });
        expected.push(blob);
        texts.push(row_texts);
    }
    let mut config = BulkConfig::new(Format::Csv(CsvOptions::default()), columns.clone());
    // A null goes out as an empty field and must come back as null, not unset.
    config.null_to_unset = false;
    let mut rng = SplitMix64::new(7);
    let mut cuts: Vec<usize> = (0..300).map(|_| rng.between(0, csv.len() as u64) as usize).collect();
    cuts.sort_unstable();
    let run = run_cut(&config, csv.as_bytes(), &cuts);
    assert_eq!(run.error, None);
    assert_eq!(run.rows.len(), expected.len());
    for (i, (row, want)) in run.rows.iter().zip(&expected).enumerate() {
        match row {
            Row::Good { values, .. } => {
                if values != want {
                    let (got, want) = (value_list(values), value_list(want));
                    for (c, (g, w)) in got.iter().zip(&want).enumerate() {
                        assert_eq!(g, w, "row {i} column {} ({}) from {:?}", c, types[c], texts[i][c]);
                    }
                    assert_eq!(got, want, "row {i}");
                }
            }
            Row::Bad { reason, line, .. } => panic!("row {i} (line {line}) is bad: {reason}"),
        }
    }
    assert_eq!(run.consumed, csv.len() as u64);
}

// ---------------------------------------------------------------------------------------------
// No allocation per good row

const ALLOC_TYPES: &[(&str, &str)] = &[
    ("id", "int"),
    ("name", "text"),
    ("at", "timestamp"),
    ("key", "uuid"),
    ("score", "double"),
    ("nums", "list<int>"),
    ("attrs", "map<text, int>"),
    ("ok", "boolean"),
    ("price", "decimal"),
    ("addr", "udt<ks.addr>{street:text,zip:int}"),
];

fn alloc_columns() -> Vec<(String, ColumnType)> {
    ALLOC_TYPES.iter().map(|(n, t)| ((*n).to_owned(), ColumnType::parse_cql(t).unwrap())).collect()
}

fn alloc_csv_row(i: usize, out: &mut String) {
    use std::fmt::Write as _;
    let k = i % 97;
    let _ = writeln!(
        out,
        "{i},\"name {k} \"\"quoted\"\", with comma\",2024-01-{:02}T03:04:05.{k:03}Z,550e8400-e29b-41d4-a716-4466554400{:02},\
         {k}.5,\"[{k}, {}, 3]\",\"{{'a': {k}, 'b{k}': 2}}\",{},{k}.{k}e-3,\"{{street: 'Main {k}', zip: {k}}}\"",
        k % 28 + 1,
        k % 100,
        k * 7,
        if k.is_multiple_of(2) { "true" } else { "no" },
    );
}

fn alloc_jsonl_row(i: usize, out: &mut String) {
    use std::fmt::Write as _;
    let k = i % 97;
    let _ = writeln!(
        out,
        "{{\"id\": {i}, \"name\": \"name {k} \\\"q\\\" \\u00e9\", \"at\": \"2024-01-{:02}T03:04:05Z\", \
         \"key\": \"550e8400-e29b-41d4-a716-4466554400{:02}\", \"score\": {k}.5, \"nums\": [{k}, 2], \
         \"attrs\": {{\"a\": {k}}}, \"ok\": {}, \"price\": \"{k}.{k}\", \"addr\": {{\"street\": \"S{k}\", \"zip\": {k}}}, \
         \"ignored\": [1, {{\"x\": null}}]}}",
        k % 28 + 1,
        k % 100,
        k.is_multiple_of(2),
    );
}

/// Feeds `rows` rows in `chunk`-byte pieces; after the first `warm` rows, counts allocations.
fn steady_state_allocations(format: Format, row: fn(usize, &mut String), rows: usize, warm: usize) -> (u64, u64) {
    let mut input = String::new();
    if matches!(format, Format::Csv(_)) {
        input.push_str(&ALLOC_TYPES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(","));
        input.push('\n');
    }
    let mut warm_end = 0;
    for i in 0..rows {
        row(i, &mut input);
        if i + 1 == warm {
            warm_end = input.len();
        }
    }
    let mut config = BulkConfig::new(format, alloc_columns());
    config.pk_indexes = vec![0, 3];
    let mut encoder = BulkEncoder::new(config).unwrap();
    let bytes = input.as_bytes();
    const CHUNK: usize = 4096;
    let mut good = 0u64;
    let mut checksum = 0i64;
    let mut feed = |encoder: &mut BulkEncoder, range: std::ops::Range<usize>| {
        for piece in bytes[range].chunks(CHUNK) {
            encoder.push(piece);
            while let Some(outcome) = encoder.next_row() {
                match outcome {
                    RowOutcome::Good { values, token, .. } => {
                        good += 1;
                        checksum = checksum.wrapping_add(token.unwrap()).wrapping_add(values.len() as i64);
                    }
                    RowOutcome::Bad { reason, line, .. } => panic!("line {line}: {reason}"),
                }
            }
        }
    };
    // Warm up with whole chunks, so that the measured part is cut the same way.
    let warm_end = warm_end / CHUNK * CHUNK;
    feed(&mut encoder, 0..warm_end);
    let before = allocations();
    feed(&mut encoder, warm_end..bytes.len());
    let during = allocations() - before;
    encoder.finish();
    assert!(encoder.next_row().is_none() || encoder.error().is_none());
    assert_ne!(checksum, 0);
    (during, good)
}

#[test]
fn good_csv_rows_allocate_nothing_in_steady_state() {
    let (allocations, good) =
        steady_state_allocations(Format::Csv(CsvOptions::default()), alloc_csv_row, 12_000, 1_000);
    assert!(good >= 11_900, "only {good} rows");
    assert_eq!(allocations, 0, "{allocations} allocations over the steady-state rows");
}

#[test]
fn good_jsonl_rows_allocate_nothing_in_steady_state() {
    let (allocations, good) = steady_state_allocations(Format::jsonl(), alloc_jsonl_row, 12_000, 1_000);
    assert!(good >= 11_900, "only {good} rows");
    assert_eq!(allocations, 0, "{allocations} allocations over the steady-state rows");
}

// ---------------------------------------------------------------------------------------------
// Bounded memory

/// Pushes `head`, then `filler` repeated to `size` bytes in 64 KiB chunks, then `tail`,
/// draining rows as it goes; returns the rows and the peak growth of live heap bytes.
fn feed_huge(config: BulkConfig, head: &[u8], filler: u8, size: usize, tail: &[u8]) -> (Vec<Row>, i64) {
    let mut encoder = BulkEncoder::new(config).unwrap();
    let chunk = vec![filler; 64 * 1024];
    let mut rows = Vec::with_capacity(16);
    let base = reset_peak();
    encoder.push(head);
    drain(&mut encoder, &mut rows);
    let mut sent = 0;
    while sent < size {
        let n = chunk.len().min(size - sent);
        encoder.push(&chunk[..n]);
        drain(&mut encoder, &mut rows);
        sent += n;
    }
    encoder.push(tail);
    encoder.finish();
    drain(&mut encoder, &mut rows);
    assert_eq!(encoder.consumed_offset(), (head.len() + size + tail.len()) as u64);
    (rows, peak() - base)
}

#[test]
fn a_huge_line_is_skipped_in_bounded_memory() {
    const CAP: usize = 1 << 20;
    const HUGE: usize = 96 << 20;
    let csv = Format::Csv(CsvOptions { max_record_bytes: CAP, ..CsvOptions::default() });
    let (rows, peak) = feed_huge(BulkConfig::new(csv, id_name()), b"id,name\n1,a\n2,", b'x', HUGE, b"\n3,b\n");
    eprintln!("CSV: peak heap growth {peak} bytes");
    assert!(peak < 6 * CAP as i64, "peak heap growth {peak} bytes for a {HUGE}-byte line");
    assert_eq!(rows.len(), 3);
    match &rows[1] {
        Row::Bad { raw, line, offset, end_offset, reason, .. } => {
            assert_eq!((*line, *offset, *end_offset), (3, 12, 12 + 2 + HUGE as u64 + 1));
            assert_eq!(raw.len(), CAP);
            assert!(raw.starts_with(b"2,xxx"));
            assert!(reason.contains(&format!("record exceeds {CAP} bytes")), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(&rows[2], Row::Good { line: 4, .. }));

    let jsonl = Format::Jsonl { max_record_bytes: CAP };
    let (rows, peak) =
        feed_huge(BulkConfig::new(jsonl, id_name()), b"{\"id\": 1}\n{\"name\": \"", b'y', HUGE, b"\"}\n{\"id\": 3}");
    eprintln!("JSONL: peak heap growth {peak} bytes");
    assert!(peak < 6 * CAP as i64, "peak heap growth {peak} bytes for a {HUGE}-byte line");
    assert_eq!(rows.len(), 3);
    assert!(matches!(&rows[1], Row::Bad { line: 2, raw, .. } if raw.len() == CAP));
    assert!(matches!(&rows[2], Row::Good { line: 3, .. }));
}

// ---------------------------------------------------------------------------------------------
// Checkpoints

#[test]
fn restarting_at_the_consumed_offset_gives_the_remaining_rows() {
    let mut input = String::new();
    for i in 0..200 {
        input.push_str(&format!("{i},\"line {i}\nwith a newline\"\r\n"));
        if i % 10 == 0 {
            input.push_str("# comment\n\n");
        }
    }
    let opts = CsvOptions { header: false, comment: Some(b'#'), ..CsvOptions::default() };
    let config = BulkConfig::new(Format::Csv(opts), id_name());
    let all = run_cut(&config, input.as_bytes(), &[]);
    assert_eq!(all.rows.len(), 200);

    // Stop part-way through a chunk, as a host would when its checkpoint is taken.
    let mut encoder = BulkEncoder::new(config.clone()).unwrap();
    encoder.push(&input.as_bytes()[..input.len() / 3]);
    let mut taken = 0;
    while taken < 37 {
        assert!(encoder.next_row().is_some());
        taken += 1;
    }
    let checkpoint = encoder.consumed_offset() as usize;
    let Row::Good { end_offset, .. } = &all.rows[36] else { panic!() };
    assert_eq!(checkpoint as u64, *end_offset);

    let rest = run_cut(&config, &input.as_bytes()[checkpoint..], &[]);
    let values = |rows: &[Row]| -> Vec<Vec<u8>> {
        rows.iter()
            .map(|r| match r {
                Row::Good { values, .. } => values.clone(),
                Row::Bad { reason, .. } => panic!("{reason}"),
            })
            .collect()
    };
    assert_eq!(values(&rest.rows), values(&all.rows[37..]));
    // Offsets of the restarted run are relative to the checkpoint.
    if let (Row::Good { offset: a, .. }, Row::Good { offset: b, .. }) = (&rest.rows[0], &all.rows[37]) {
        assert_eq!(a + checkpoint as u64, *b);
    }
}

#[test]
fn counters() {
    let mut config = BulkConfig::new(Format::Csv(CsvOptions::default()), id_name());
    config.text = TextOptions::default();
    let run_input = b"id,name\n1,a\nx,b\n2,c\n";
    let mut encoder = BulkEncoder::new(config).unwrap();
    encoder.push(run_input);
    encoder.finish();
    let mut rows = Vec::new();
    drain(&mut encoder, &mut rows);
    let stats = encoder.stats();
    assert_eq!((stats.good_rows, stats.bad_rows), (2, 1));
    assert_eq!((stats.bytes_pushed, stats.consumed_offset), (run_input.len() as u64, run_input.len() as u64));
}

// ---------------------------------------------------------------------------------------------
// Garbage in: never a panic, and the same outcome however the input is cut

const GARBAGE_PIECES: &[&[u8]] = &[
    b",",
    b";",
    b"\t",
    b"\"",
    b"\"\"",
    b"\\",
    b"\\\"",
    b"\r",
    b"\n",
    b"\r\n",
    b"#",
    b" ",
    b"1",
    b"x",
    b"-",
    b"\xEF\xBB\xBF",
    b"\xEF",
    b"\xFF",
    b"\xC3\xA9",
    b"\xF0\x9F\x98",
    b"\x80",
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b"\"id\"",
    b"\"name\"",
    b"null",
    b"true",
    b"\\u00e9",
    b"\\ud83d",
    b"0123456789",
];

fn garbage(rng: &mut SplitMix64) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..rng.between(0, 40) {
        out.extend_from_slice(GARBAGE_PIECES[rng.between(0, GARBAGE_PIECES.len() as u64 - 1) as usize]);
    }
    out
}

#[test]
fn garbage_never_panics_and_cutting_never_changes_the_outcome() {
    let mut rng = SplitMix64::new(0x6A2B);
    let mut rows = 0;
    for round in 0..300 {
        let input = garbage(&mut rng);
        let csv = CsvOptions {
            delimiter: [b',', b';', b'\t'][round % 3],
            escape: if round % 4 == 0 { b'\\' } else { b'"' },
            comment: if round % 5 == 0 { Some(b'#') } else { None },
            header: round % 2 == 0,
            trim: round % 7 < 3,
            max_record_bytes: [8, 40, 1 << 20][round % 3],
            ..CsvOptions::default()
        };
        let mut config = BulkConfig::new(Format::Csv(csv), id_name());
        config.ignore_unknown = true;
        config.pk_indexes = vec![0];
        let run = run_every_way(&config, &input, &format!("csv garbage {:?}", String::from_utf8_lossy(&input)));
        if run.error.is_none() {
            assert_eq!(run.consumed, input.len() as u64);
        }
        rows += run.rows.len();

        let mut config = BulkConfig::new(Format::Jsonl { max_record_bytes: [8, 40, 1 << 20][round % 3] }, id_name());
        config.pk_indexes = if round % 2 == 0 { vec![0] } else { vec![] };
        let run = run_every_way(&config, &input, &format!("jsonl garbage {:?}", String::from_utf8_lossy(&input)));
        assert_eq!(run.consumed, input.len() as u64);
        rows += run.rows.len();
    }
    assert!(rows > 300, "only {rows} rows came out of the garbage");
}

/// Unload → load: a page formatted as CSV by the core loads back to the very same values.
/// A Rows body as the server would return it for these cells (CQL text, None for null), with
/// the columns and each row's encoded values (as the loader must produce them again).
fn rows_body_of(
    types: &[&str],
    cells: &[Vec<Option<&str>>],
) -> (Vec<u8>, Vec<(String, cqlwire_core::types::ColumnType)>, Vec<Vec<u8>>) {
    use cqlwire_core::types::ColumnType;
    let columns: Vec<(String, ColumnType)> =
        types.iter().enumerate().map(|(i, t)| (format!("c{i}"), ColumnType::parse_cql(t).unwrap())).collect();
    let mut body = 2i32.to_be_bytes().to_vec();
    body.extend_from_slice(&1i32.to_be_bytes());
    body.extend_from_slice(&(types.len() as i32).to_be_bytes());
    for s in ["ks", "t"] {
        body.extend_from_slice(&(s.len() as u16).to_be_bytes());
        body.extend_from_slice(s.as_bytes());
    }
    for (name, ty) in &columns {
        body.extend_from_slice(&(name.len() as u16).to_be_bytes());
        body.extend_from_slice(name.as_bytes());
        let mut w = Vec::new();
        ty.write(&mut cqlwire_core::wire::Writer::new(&mut w)).unwrap();
        body.extend_from_slice(&w);
    }
    body.extend_from_slice(&(cells.len() as i32).to_be_bytes());
    let opts = cqlwire_core::types::TextOptions { null_markers: vec![], ..Default::default() };
    let mut expected = Vec::new();
    for row in cells {
        let mut values = (types.len() as u16).to_be_bytes().to_vec();
        for (cell, (_, ty)) in row.iter().zip(&columns) {
            match cell {
                Some(text) => cqlwire_core::types::encode_text(ty, text, &opts, &mut values).unwrap(),
                None => values.extend_from_slice(&(-1i32).to_be_bytes()),
            }
        }
        body.extend_from_slice(&values[2..]);
        expected.push(values);
    }
    (body, columns, expected)
}

/// Every row the loader reads from `input`, as encoded values; a bad row fails the test.
fn load_all(format: cqlwire_core::bulk::Format, columns: Vec<(String, cqlwire_core::types::ColumnType)>, input: &[u8]) -> Vec<Vec<u8>> {
    use cqlwire_core::bulk::{BulkConfig, BulkEncoder, RowOutcome};
    let mut config = BulkConfig::new(format, columns);
    // A null goes out as an empty field (or JSON null) and must come back as null, not unset.
    config.null_to_unset = false;
    let mut encoder = BulkEncoder::new(config).unwrap();
    encoder.push(input);
    encoder.finish();
    let mut got = Vec::new();
    while let Some(outcome) = encoder.next_row() {
        match outcome {
            RowOutcome::Good { values, .. } => got.push(values.to_vec()),
            RowOutcome::Bad { reason, raw, .. } => panic!("{reason}: {}", String::from_utf8_lossy(raw)),
        }
    }
    got
}

const ROUND_TRIP_TYPES: [&str; 7] = ["int", "text", "list<text>", "map<text, int>", "blob", "double", "timestamp"];

fn round_trip_cells() -> Vec<Vec<Option<&'static str>>> {
    vec![
        vec![Some("1"), Some("a, \"quoted\"\nline"), Some("['x', 'y''s']"), Some("{'k': 1}"), Some("0x00ff"), Some("NaN"), Some("2024-01-02T03:04:05.678Z")],
        vec![Some("2"), Some(""), None, None, Some("0x"), Some("-0.0"), None],
        vec![Some("3"), Some(" padded "), Some("[]"), Some("{}"), None, Some("1e308"), Some("1969-12-31T23:59:59.999Z")],
    ]
}

#[test]
fn csv_formatted_pages_load_back_to_the_same_bytes() {
    use cqlwire_core::bulk::{CsvOptions, Format};
    use cqlwire_core::rows::{format_csv, CsvFormat, Rows};
    let (body, columns, expected) = rows_body_of(&ROUND_TRIP_TYPES, &round_trip_cells());
    let rows = Rows::parse(&body).unwrap();
    let mut csv = Vec::new();
    format_csv(&rows, &CsvFormat { header: true, ..CsvFormat::default() }, &mut String::new(), &mut csv).unwrap();
    let got = load_all(Format::Csv(CsvOptions::default()), columns, &csv);
    assert_eq!(got, expected, "csv:\n{}", String::from_utf8_lossy(&csv));
}

/// `collectionFormat: json`: containers in DSBulk's JSON notation (the strings DSBulk 1.10
/// itself unloads for these values, but for its base64 blobs, `-0.0` and Java's number
/// spellings), everything else as in the CQL notation, and the file loads back.
#[test]
fn csv_pages_with_json_collections_are_dsbulk_s_notation_and_load_back() {
    use cqlwire_core::bulk::{CsvOptions, Format};
    use cqlwire_core::rows::{format_csv, CsvFormat, CsvFormatSettings, Rows};
    let types = [
        "int",
        "list<text>",
        "set<int>",
        "map<int, text>",
        "map<frozen<tuple<int, int>>, text>",
        "tuple<int, text, blob>",
        "udt<ks.addr>{street:text,num:int,tags:set<text>}",
        "list<frozen<map<text, frozen<list<int>>>>>",
        "map<uuid, timestamp>",
        "text",
    ];
    let cells = vec![
        vec![
            Some("1"),
            Some("['a\"b', 'c\\d', 'e,f', 'line\ntwo\ttab\u{1}', 'é✓', '']"),
            Some("{1, 2}"),
            Some("{1: 'x', 2: 'y'}"),
            Some("{(1, 2): 'tp'}"),
            Some("(1, 'o''k', 0xcafe)"),
            Some("{street: 'Main \"St\"', num: null, tags: {'x', 'y'}}"),
            Some("[{'a': [1, 2]}, {'b': []}]"),
            Some("{123e4567-e89b-12d3-a456-426614174000: '2024-03-05T06:07:08.009Z'}"),
            Some("top ['a']"),
        ],
        vec![Some("2"), None, None, None, None, Some("(null, null, null)"), Some("{street: null, num: 3}"), None, None, None],
    ];
    let (body, columns, expected) = rows_body_of(&types, &cells);
    let rows = Rows::parse(&body).unwrap();
    let settings = CsvFormatSettings::from_json(r#"{"escape": "\\", "collectionFormat": "json"}"#).unwrap();
    let format = CsvFormat::from_settings(&settings).unwrap();
    let mut csv = Vec::new();
    format_csv(&rows, &format, &mut String::new(), &mut csv).unwrap();
    let want = [
        r#"1,"[\"a\\\"b\",\"c\\\\d\",\"e,f\",\"line\\ntwo\\ttab\\u0001\",\"é✓\",\"\"]","[1,2]","{\"1\":\"x\",\"2\":\"y\"}","#.to_owned()
            + r#""{\"[1,2]\":\"tp\"}","[1,\"o'k\",\"0xcafe\"]","{\"street\":\"Main \\\"St\\\"\",\"num\":null,\"tags\":[\"x\",\"y\"]}","#
            + r#""[{\"a\":[1,2]},{\"b\":[]}]","{\"123e4567-e89b-12d3-a456-426614174000\":\"2024-03-05T06:07:08.009Z\"}",top ['a']"#,
        r#"2,,,,,"[null,null,null]","{\"street\":null,\"num\":3}",,,"#.to_owned(),
    ];
    assert_eq!(String::from_utf8(csv.clone()).unwrap(), want.map(|line| line + "\r\n").concat());
    let csv_options = CsvOptions { escape: b'\\', ..CsvOptions::default() };
    let mut with_header = b"c0,c1,c2,c3,c4,c5,c6,c7,c8,c9\r\n".to_vec();
    with_header.extend_from_slice(&csv);
    assert_eq!(load_all(Format::Csv(csv_options), columns, &with_header), expected);
}

#[test]
fn the_collection_format_is_cql_or_json() {
    use cqlwire_core::rows::{CollectionFormat, CsvFormat, CsvFormatSettings};
    let of = |json: &str| CsvFormat::from_settings(&CsvFormatSettings::from_json(json).unwrap()).map(|f| f.collections);
    assert_eq!(of("{}"), Ok(CollectionFormat::Cql));
    assert_eq!(of(r#"{"collectionFormat": "cql"}"#), Ok(CollectionFormat::Cql));
    assert_eq!(of(r#"{"collectionFormat": "json"}"#), Ok(CollectionFormat::Json));
    assert_eq!(of(r#"{"collectionFormat": "JSON"}"#), Err(r#"the collection format "JSON" must be cql or json"#.to_owned()));
}

#[test]
fn json_lines_pages_load_back_to_the_same_bytes() {
    use cqlwire_core::bulk::Format;
    use cqlwire_core::rows::{format_json_lines, Rows};
    let (body, columns, expected) = rows_body_of(&ROUND_TRIP_TYPES, &round_trip_cells());
    let rows = Rows::parse(&body).unwrap();
    let mut json = String::new();
    format_json_lines(&rows, &TextOptions::default(), &mut json).unwrap();
    assert_eq!(
        json.lines().next().unwrap(),
        r#"{"c0":1,"c1":"a, \"quoted\"\nline","c2":["x","y's"],"c3":{"k":1},"c4":"0x00ff","c5":"NaN","c6":"2024-01-02T03:04:05.678Z"}"#
    );
    let got = load_all(Format::Jsonl { max_record_bytes: 1 << 20 }, columns, json.as_bytes());
    assert_eq!(got, expected, "json:\n{json}");
}

/// `query --time-zone`: top-level timestamps in the zone's local time with its offset (the text
/// unload writes), on both sides of New York's spring change; nulls, empty values and a timestamp
/// inside a list stay as in UTC. The settings take only the zone, and name what they refuse.
#[test]
fn json_pages_write_timestamps_in_the_zone_asked_for() {
    use cqlwire_core::rows::{format_cell_lines, format_json_lines, json_page_options, Rows};
    // 2024-03-10 06:59:59 and 07:00:00 UTC: the last second of EST and the first of EDT.
    let cells = vec![
        vec![Some("2024-03-10T06:59:59.000Z"), Some("['2024-03-10T07:00:00.000Z']")],
        vec![Some("2024-03-10T07:00:00.250Z"), None],
        vec![None, Some("[]")],
    ];
    let (body, _, _) = rows_body_of(&["timestamp", "list<timestamp>"], &cells);
    let rows = Rows::parse(&body).unwrap();
    let new_york = json_page_options(
        r#"{"timeZone":"America/New_York","timeZoneOffsets":[[-2208988800000,-18000],[1710054000000,-14400]]}"#,
    )
    .unwrap();
    let (mut json, mut text) = (String::new(), String::new());
    format_json_lines(&rows, &new_york, &mut json).unwrap();
    format_cell_lines(&rows, &new_york, &mut text).unwrap();
    assert_eq!(
        json,
        concat!(
            r#"{"c0":"2024-03-10T01:59:59-05:00","c1":["2024-03-10T07:00:00.000Z"]}"#, "\n",
            r#"{"c0":"2024-03-10T03:00:00.250-04:00","c1":null}"#, "\n",
            r#"{"c0":null,"c1":[]}"#, "\n",
        )
    );
    assert_eq!(
        text,
        concat!(
            r#"["2024-03-10T01:59:59-05:00","['2024-03-10T07:00:00.000Z']"]"#, "\n",
            r#"["2024-03-10T03:00:00.250-04:00",null]"#, "\n",
            r#"[null,"[]"]"#, "\n",
        )
    );
    let fixed = json_page_options(r#"{"timeZone":"+05:30"}"#).unwrap();
    text.clear();
    format_cell_lines(&rows, &fixed, &mut text).unwrap();
    assert_eq!(text.lines().next().unwrap(), r#"["2024-03-10T12:29:59+05:30","['2024-03-10T07:00:00.000Z']"]"#);
    let utc = json_page_options("{}").unwrap();
    text.clear();
    format_cell_lines(&rows, &utc, &mut text).unwrap();
    assert_eq!(text.lines().next().unwrap(), r#"["2024-03-10T06:59:59.000Z","['2024-03-10T07:00:00.000Z']"]"#);
    assert_eq!(
        json_page_options(r#"{"timeZone":"Mars/Olympus_Mons"}"#).unwrap_err(),
        r#"time zone "Mars/Olympus_Mons": not UTC, a fixed offset such as +02:00, or a zone name this runtime knows (Europe/Paris)"#
    );
    assert_eq!(
        json_page_options(r#"{"timeZone":"UTC","trueWords":["ja"]}"#).unwrap_err(),
        "JSON page settings: only timeZone and timeZoneOffsets apply"
    );
}

#[test]
fn cell_lines_are_each_cells_cql_text() {
    use cqlwire_core::rows::{format_cell_lines, format_column_names, Rows};
    let (body, _, _) = rows_body_of(&ROUND_TRIP_TYPES, &round_trip_cells());
    let rows = Rows::parse(&body).unwrap();
    let (mut names, mut cells) = (String::new(), String::new());
    format_column_names(&rows, &mut names);
    format_cell_lines(&rows, &TextOptions::default(), &mut cells).unwrap();
    assert_eq!(names, r#"["c0","c1","c2","c3","c4","c5","c6"]"#);
    assert_eq!(
        cells.lines().nth(1).unwrap(),
        r#"["2","",null,null,"0x","-0",null]"#
    );
}
