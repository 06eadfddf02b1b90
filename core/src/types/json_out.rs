//! Values as JSON text (`query --format json`, `unload --format jsonl`, `Client.streamJson`):
//! the one JSON formatter. Numbers stay JSON numbers with every digit (bigint, varint and
//! decimal are never rounded through a double); NaN and the infinities, which JSON has no
//! number for, are strings; text, blobs (`0x..`), times, UUIDs and addresses are strings
//! in the same form [`format_text`] writes them; lists, sets, tuples and vectors are arrays;
//! maps and UDTs are objects (a map key that is not text is keyed by its CQL literal text).
//! The bulk loader's JSON reader takes these forms back.

use super::column_type::ColumnType;
use super::scalar::{collection_count, element, no_trailing, vector_element};
use super::text::format_text;
use crate::error::ProtocolError;
use crate::wire::Reader;

/// Appends the JSON text of `bytes` (a value of `ty`) to `out`; on error `out` is left as
/// it was. `scratch` holds the CQL text of scalars on the way.
pub fn format_json(ty: &ColumnType, bytes: &[u8], scratch: &mut String, out: &mut String) -> Result<(), ProtocolError> {
    let start = out.len();
    let result = json_value(ty, Reader::new(bytes), scratch, out);
    if result.is_err() {
        out.truncate(start);
    }
    result
}

fn json_value(ty: &ColumnType, r: Reader<'_>, scratch: &mut String, out: &mut String) -> Result<(), ProtocolError> {
    if r.is_empty() && ty.allows_empty() {
        out.push_str("null");
        return Ok(());
    }
    match ty {
        ColumnType::List(e) | ColumnType::Set(e) => {
            let field = if matches!(ty, ColumnType::List(_)) { "list element" } else { "set element" };
            let mut r = r;
            let n = collection_count(&mut r, "collection element count", 1)?;
            out.push('[');
            for i in 0..n {
                if i > 0 {
                    out.push(',');
                }
                json_element(e, element(&mut r, field)?, scratch, out)?;
            }
            no_trailing(&r, "collection")?;
            out.push(']');
        }
        ColumnType::Map(k, v) => {
            let mut r = r;
            let n = collection_count(&mut r, "map entry count", 2)?;
            out.push('{');
            for i in 0..n {
                if i > 0 {
                    out.push(',');
                }
                json_key(k, element(&mut r, "map key")?, scratch, out)?;
                out.push(':');
                json_element(v, element(&mut r, "map value")?, scratch, out)?;
            }
            no_trailing(&r, "map")?;
            out.push('}');
        }
        ColumnType::Tuple(types) => {
            let mut r = r;
            out.push('[');
            for (i, component) in types.iter().enumerate() {
                if r.is_empty() {
                    break;
                }
                if i > 0 {
                    out.push(',');
                }
                json_element(component, element(&mut r, "tuple component")?, scratch, out)?;
            }
            no_trailing(&r, "tuple component")?;
            out.push(']');
        }
        ColumnType::Udt(udt) => {
            let mut r = r;
            out.push('{');
            for (i, (name, field_type)) in udt.fields.iter().enumerate() {
                if r.is_empty() {
                    break;
                }
                if i > 0 {
                    out.push(',');
                }
                push_json_string(name, out);
                out.push(':');
                json_element(field_type, element(&mut r, "udt field")?, scratch, out)?;
            }
            no_trailing(&r, "udt field")?;
            out.push('}');
        }
        ColumnType::Vector(e, dimension) => json_vector(e, *dimension, r, scratch, out)?,
        _ => json_scalar(ty, r.rest(), scratch, out)?,
    }
    Ok(())
}

fn json_vector(e: &ColumnType, dimension: u32, r: Reader<'_>, scratch: &mut String, out: &mut String) -> Result<(), ProtocolError> {
    let mut r = r;
    let fixed_len = e.vector_fixed_len();
    if let Some(size) = fixed_len {
        let want = size.saturating_mul(u64::from(dimension));
        if r.remaining() as u64 != want {
            return Err(r.error(
                "vector value",
                format!("{dimension} elements of {size} bytes need {want} bytes, got {}", r.remaining()),
            ));
        }
    }
    out.push('[');
    for i in 0..dimension {
        if i > 0 {
            out.push(',');
        }
        let item = match fixed_len {
            Some(size) => r.sub(size as usize, "vector element")?,
            None => vector_element(&mut r)?,
        };
        json_value(e, item, scratch, out)?;
    }
    no_trailing(&r, "vector value")?;
    out.push(']');
    Ok(())
}

fn json_element(ty: &ColumnType, value: Option<Reader<'_>>, scratch: &mut String, out: &mut String) -> Result<(), ProtocolError> {
    match value {
        Some(r) => json_value(ty, r, scratch, out),
        None => {
            out.push_str("null");
            Ok(())
        }
    }
}

/// A JSON object key is text: a text key as it is, any other by its CQL literal text.
fn json_key(ty: &ColumnType, value: Option<Reader<'_>>, scratch: &mut String, out: &mut String) -> Result<(), ProtocolError> {
    scratch.clear();
    if let Some(r) = value {
        format_text(ty, r.rest(), scratch)?;
    }
    push_json_string(scratch, out);
    Ok(())
}

/// Scalars by their CQL text: numbers bare when JSON can read them as numbers, the rest as
/// strings.
fn json_scalar(ty: &ColumnType, bytes: &[u8], scratch: &mut String, out: &mut String) -> Result<(), ProtocolError> {
    scratch.clear();
    format_text(ty, bytes, scratch)?;
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
        | ColumnType::Double => is_json_number(scratch),
        _ => false,
    };
    if bare {
        out.push_str(scratch);
    } else {
        push_json_string(scratch, out);
    }
    Ok(())
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
        let (mut scratch, mut out) = (String::new(), String::new());
        format_json(&ty, bytes, &mut scratch, &mut out).unwrap();
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
        assert_eq!(json("float", &(-0.0f32).to_be_bytes()), "-0");
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
        let (mut scratch, mut out) = (String::new(), String::from("kept"));
        let err = format_json(&ty, &[0, 0, 0, 9], &mut scratch, &mut out).unwrap_err();
        assert_eq!(err.field, "collection element count");
        assert_eq!(out, "kept");
    }

    #[test]
    fn json_number_grammar() {
        for ok in ["0", "-0", "12", "1.5", "-0.25", "1e10", "3.4028235E+38", "1.0e-7"] {
            assert!(is_json_number(ok), "{ok}");
        }
        for bad in ["", "-", "01", "1.", ".5", "1e", "NaN", "Infinity", "+1", "1.5e+"] {
            assert!(!is_json_number(bad), "{bad}");
        }
    }
}
