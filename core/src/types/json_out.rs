//! Values as JSON text (`query --format json`, `unload --format jsonl`, `Client.streamJson`):
//! the one JSON formatter. Numbers stay JSON numbers with every digit (bigint, varint and
//! decimal are never rounded through a double); NaN and the infinities, which JSON has no
//! number for, are strings; text, blobs (`0x..`), times, UUIDs and addresses are strings
//! in the same form [`format_text`] writes them; lists, sets, tuples and vectors are arrays;
//! maps and UDTs are objects (a map key that is not text is keyed by its CQL literal text, a
//! tuple or frozen collection key by its JSON text, as DSBulk writes and reads them).
//! The bulk loader's JSON reader takes these forms back. The walk over the bytes is
//! `text.rs`'s (one walk, two spellings); this file holds what only JSON needs.

use super::column_type::ColumnType;

/// Wraps the CQL text of a scalar, written from `start` on, as JSON: booleans and numbers
/// that JSON can read stay bare, everything else becomes a string.
pub(super) fn finish_scalar(ty: &ColumnType, out: &mut String, start: usize) {
    let bare = match ty {
        ColumnType::Boolean => true,
        ColumnType::Tinyint
        | ColumnType::Smallint
        | ColumnType::Int
        | ColumnType::Bigint
        | ColumnType::Counter
        | ColumnType::Varint
        | ColumnType::Decimal
        | ColumnType::Float
        | ColumnType::Double => is_json_number(&out[start..]),
        _ => false,
    };
    if !bare {
        quote_in_place(out, start);
    } else if matches!(ty, ColumnType::Float | ColumnType::Double) && &out[start..] == "-0" {
        // JSON readers take `-0` for the integer 0 and lose the sign (DSBulk loads 0.0); `-0.0` is a float.
        out.push_str(".0");
    }
}

/// Makes the text written from `start` on a JSON string, without a copy when nothing in it
/// needs an escape.
pub fn quote_in_place(out: &mut String, start: usize) {
    if out[start..].chars().any(needs_escape) {
        let text = out.split_off(start);
        push_json_string(&text, out);
    } else {
        out.insert(start, '"');
        out.push('"');
    }
}

fn needs_escape(c: char) -> bool {
    c == '"' || c == '\\' || (c as u32) < 0x20
}

/// JSON's number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
fn is_json_number(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let from = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - from
    };
    let int_at = i;
    let n = digits(&mut i);
    if n == 0 || (n > 1 && b[int_at] == b'0') {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// A JSON string literal: `"`, `\` and control characters escaped, everything else as is.
pub fn push_json_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(HEX[(c as usize) >> 4] as char);
                out.push(HEX[(c as usize) & 15] as char);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(ty: &str, bytes: &[u8]) -> String {
        let ty = ColumnType::parse_cql(ty).unwrap();
        let mut out = String::new();
        super::super::format_json(&ty, bytes, &mut out).unwrap();
        out
    }

    fn list(items: &[&[u8]]) -> Vec<u8> {
        let mut b = (items.len() as i32).to_be_bytes().to_vec();
        for item in items {
            b.extend_from_slice(&(item.len() as i32).to_be_bytes());
            b.extend_from_slice(item);
        }
        b
    }

    #[test]
    fn numbers_keep_every_digit_and_non_finite_floats_are_strings() {
        assert_eq!(json("bigint", &i64::MAX.to_be_bytes()), "9223372036854775807");
        assert_eq!(json("int", &(-7i32).to_be_bytes()), "-7");
        assert_eq!(json("double", &f64::NAN.to_be_bytes()), "\"NaN\"");
        assert_eq!(json("double", &f64::NEG_INFINITY.to_be_bytes()), "\"-Infinity\"");
        assert_eq!(json("float", &(-0.0f32).to_be_bytes()), "-0.0");
        assert_eq!(json("double", &(-0.0f64).to_be_bytes()), "-0.0");
        assert_eq!(json("double", &0.0f64.to_be_bytes()), "0");
        assert_eq!(json("float", &0.1f32.to_be_bytes()), "0.1");
        // varint 2^64: 0x01 followed by eight zero bytes.
        assert_eq!(json("varint", &[1, 0, 0, 0, 0, 0, 0, 0, 0]), "18446744073709551616");
        // decimal 12.345: scale 3, unscaled 12345.
        assert_eq!(json("decimal", &[0, 0, 0, 3, 0x30, 0x39]), "12.345");
        assert_eq!(json("boolean", &[1]), "true");
    }

    #[test]
    fn text_blobs_and_times_are_escaped_strings() {
        assert_eq!(json("text", "a\"b\\c\nd\u{1}é".as_bytes()), "\"a\\\"b\\\\c\\nd\\u0001é\"");
        assert_eq!(json("blob", &[0xca, 0xfe]), "\"0xcafe\"");
        assert_eq!(json("timestamp", &0i64.to_be_bytes()), "\"1970-01-01T00:00:00.000Z\"");
        assert_eq!(json("inet", &[127, 0, 0, 1]), "\"127.0.0.1\"");
        // An empty int is no value.
        assert_eq!(json("int", &[]), "null");
        assert_eq!(json("text", &[]), "\"\"");
    }

    #[test]
    fn containers_nest_as_arrays_and_objects() {
        let l = list(&[&1i32.to_be_bytes(), &2i32.to_be_bytes()]);
        assert_eq!(json("list<int>", &l), "[1,2]");
        let mut m = 2i32.to_be_bytes().to_vec();
        for (k, v) in [(1i32, "x"), (2, "y")] {
            m.extend_from_slice(&4i32.to_be_bytes());
            m.extend_from_slice(&k.to_be_bytes());
            m.extend_from_slice(&(v.len() as i32).to_be_bytes());
            m.extend_from_slice(v.as_bytes());
        }
        assert_eq!(json("map<int, text>", &m), "{\"1\":\"x\",\"2\":\"y\"}");
        let mut t = 4i32.to_be_bytes().to_vec();
        t.extend_from_slice(&9i32.to_be_bytes());
        t.extend_from_slice(&(-1i32).to_be_bytes());
        assert_eq!(json("tuple<int, text>", &t), "[9,null]");
        let v: Vec<u8> = [1.5f32, -2.0].iter().flat_map(|f| f.to_be_bytes()).collect();
        assert_eq!(json("vector<float, 2>", &v), "[1.5,-2]");
    }

    #[test]
    fn malformed_values_are_refused_and_leave_out_as_it_was() {
        let ty = ColumnType::parse_cql("list<int>").unwrap();
        let mut out = String::from("kept");
        let err = super::super::format_json(&ty, &[0, 0, 0, 9], &mut out).unwrap_err();
        assert_eq!(err.field, "collection element count");
        assert_eq!(out, "kept");
    }

    #[test]
    fn each_character_that_needs_an_escape_is_escaped_alone() {
        let quoted = |text: &str| {
            let mut out = format!("kept{text}");
            quote_in_place(&mut out, 4);
            out
        };
        assert_eq!(quoted("\""), "kept\"\\\"\"");
        assert_eq!(quoted("\\"), "kept\"\\\\\"");
        assert_eq!(quoted("\u{1f}"), "kept\"\\u001f\"");
        assert_eq!(quoted("\u{0}"), "kept\"\\u0000\"");
        assert_eq!(quoted("\r\t"), "kept\"\\r\\t\"");
        // Space, DEL and non-ASCII are written as they are.
        assert_eq!(quoted(" \u{7f}é"), "kept\" \u{7f}é\"");
        assert_eq!(quoted(" \u{7f}é\u{1}"), "kept\" \u{7f}é\\u0001\"");
        assert_eq!(quoted(""), "kept\"\"");
    }

    #[test]
    fn json_number_grammar() {
        for ok in ["0", "-0", "12", "-12", "10", "1.5", "-0.25", "1e10", "3.4028235E+38", "1.0e-7", "1e+5", "2E05"] {
            assert!(is_json_number(ok), "{ok}");
        }
        for bad in ["", "-", "01", "-01", "00", "1.", ".5", "1e", "NaN", "Infinity", "+1", "1.5e+", "1.5x", "1e5.0", "1.5.5", "--1"] {
            assert!(!is_json_number(bad), "{bad}");
        }
    }
}
