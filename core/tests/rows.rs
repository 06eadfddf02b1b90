//! The core's own reader of RESULT Rows (`cqlwire_core::rows`): what it refuses, by check and
//! byte, and the cell decoders it reads system tables with. Well-formed results of every type
//! are in frames.rs (python-made vectors).

use cqlwire_core::rows::{cell, Rows};

fn int(v: i32) -> Vec<u8> {
    v.to_be_bytes().to_vec()
}

fn string(s: &str) -> Vec<u8> {
    let mut b = (s.len() as u16).to_be_bytes().to_vec();
    b.extend_from_slice(s.as_bytes());
    b
}

/// A Rows body: `flags`, `count` columns declared, then `rest`.
fn rows(flags: i32, count: i32, rest: &[&[u8]]) -> Vec<u8> {
    [&int(2)[..], &int(flags), &int(count), &rest.concat()].concat()
}

fn refusal(body: &[u8]) -> (&'static str, usize, String) {
    let e = Rows::parse(body).unwrap_err();
    (e.field, e.offset, e.reason)
}

#[test]
fn other_kinds_no_metadata_and_implausible_counts_are_refused() {
    assert_eq!(refusal(&int(1)), ("result kind", 4, "expected Rows (2), got 1".to_owned()));
    assert_eq!(
        refusal(&rows(0x0004, 1, &[&int(0)])),
        ("rows metadata flags", 12, "a result the core reads itself must carry metadata".to_owned())
    );
    assert_eq!(refusal(&rows(0, -1, &[])), ("rows metadata columns_count", 12, "implausible count -1".to_owned()));
    assert_eq!(refusal(&rows(0, 65536, &[])), ("rows metadata columns_count", 12, "implausible count 65536".to_owned()));
    // 65535 columns are plausible: the first missing spec is what fails.
    assert_eq!(refusal(&rows(0, 65535, &[])).0, "column keyspace");
}

#[test]
fn a_bad_cell_is_refused_when_parsed_not_while_iterating() {
    let spec = [string("ks"), string("t"), string("a"), vec![0, 0x09]].concat();
    let body = rows(0, 1, &[&spec, &int(1), &int(3), &[1, 2, 3]]);
    let e = Rows::parse(&body).unwrap_err();
    assert_eq!((e.field, e.offset), ("int value", body.len() - 3));
    let good = rows(0, 1, &[&spec, &int(2), &int(4), &int(7), &int(-1)]);
    let r = Rows::parse(&good).unwrap();
    assert_eq!((r.column_index("a"), r.column_index("b")), (Some(0), None));
    assert_eq!((r.columns[0].keyspace, r.columns[0].table, r.columns[0].name), ("ks", "t", "a"));
    let mut seen = Vec::new();
    r.for_each_row(|cells| seen.push(cells.iter().map(|c| cell::int(*c)).collect::<Vec<_>>()));
    assert_eq!(seen, vec![vec![Some(7)], vec![None]]);
}

#[test]
fn system_table_cells_decode_or_give_nothing() {
    assert_eq!(cell::text(Some(b"dc1")), Some("dc1".to_owned()));
    assert_eq!(cell::text(Some(&[0xC3])), None);
    assert_eq!(cell::text(None), None);
    assert_eq!(cell::inet(Some(&[127, 0, 0, 1])), Some("127.0.0.1".to_owned()));
    assert_eq!(cell::inet(Some(&[0; 16])), Some("::".to_owned()));
    assert_eq!(cell::inet(Some(&[1, 2, 3])), None);
    assert_eq!(cell::inet(Some(&[0; 15])), None);
    assert_eq!(cell::int(Some(&[0, 0, 1, 0])), Some(256));
    assert_eq!(cell::int(Some(&[0, 1, 0])), None);
    assert_eq!(cell::uuid(Some(&[7; 16])), Some([7; 16]));
    assert_eq!(cell::uuid(Some(&[7; 15])), None);

    let set = [int(2), int(1), b"a".to_vec(), int(2), b"bc".to_vec()].concat();
    assert_eq!(cell::text_collection(Some(&set)), ["a", "bc"]);
    // Stops at a null or torn element; a negative count is empty.
    let torn = [int(3), int(1), b"a".to_vec(), int(-1), int(1), b"z".to_vec()].concat();
    assert_eq!(cell::text_collection(Some(&torn)), ["a"]);
    assert_eq!(cell::text_collection(Some(&int(-5))), Vec::<String>::new());
    assert_eq!(cell::text_collection(Some(&[0, 0])), Vec::<String>::new());
    assert_eq!(cell::text_collection(None), Vec::<String>::new());

    let map = [int(2), int(1), b"k".to_vec(), int(1), b"v".to_vec(), int(2), b"k2".to_vec(), int(2), b"v2".to_vec()].concat();
    assert_eq!(cell::text_map(Some(&map)), [("k".to_owned(), "v".to_owned()), ("k2".to_owned(), "v2".to_owned())]);
    let null_value = [int(2), int(1), b"k".to_vec(), int(-1), int(1), b"x".to_vec(), int(1), b"y".to_vec()].concat();
    assert_eq!(cell::text_map(Some(&null_value)), Vec::<(String, String)>::new());
    assert_eq!(cell::text_map(Some(&int(-1))), Vec::<(String, String)>::new());
    assert_eq!(cell::text_map(Some(&[1])), Vec::<(String, String)>::new());
    assert_eq!(cell::text_map(None), Vec::<(String, String)>::new());
}
