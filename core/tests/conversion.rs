//! Conversion settings (time zone, patterns, epoch units, boolean words, number formats,
//! blob encoding, overflow and rounding) as `encode_text` applies them, compared with the
//! value bytes worked out by hand.

use cqlwire_core::types::{encode_text, format_text_with, ColumnType, ConversionSettings, TextOptions};

fn options(json: &str) -> TextOptions {
    let settings = ConversionSettings::from_json("conversion settings", json).unwrap();
    let mut opts = TextOptions::default();
    settings.apply(&mut opts).unwrap();
    opts
}

/// The value bytes (after the length) of `field` read as type `t`, or the error text.
fn enc(t: &str, field: &str, opts: &TextOptions) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    encode_text(&ColumnType::parse_cql(t).unwrap(), field, opts, &mut out).map_err(|e| e.to_string())?;
    Ok(out[4..].to_vec())
}

fn millis(n: i64) -> Vec<u8> {
    n.to_be_bytes().to_vec()
}

/// 2024-03-05T06:07:08.009Z in milliseconds since the epoch.
const T: i64 = 1_709_618_828_009;

#[test]
fn time_zone_applies_to_timestamps_without_one() {
    let plus2 = options(r#"{"timeZone": "+02:00"}"#);
    assert_eq!(enc("timestamp", "2024-03-05 08:07:08.009", &plus2), Ok(millis(T)));
    // A zone in the text wins.
    assert_eq!(enc("timestamp", "2024-03-05T06:07:08.009Z", &plus2), Ok(millis(T)));
    assert_eq!(enc("timestamp", "2024-03-05T00:37:08.009-0530", &options(r#"{"timeZone": "UTC"}"#)), Ok(millis(T)));
    assert_eq!(enc("timestamp", "2024-03-05 06:07:08.009", &TextOptions::default()), Ok(millis(T)));
}

#[test]
fn timestamp_date_and_time_patterns() {
    let opts = options(
        r#"{"timestampFormat": "%d/%m/%Y %I:%M:%S.%f %p", "dateFormat": "%b %e, %Y", "timeFormat": "%Hh%M",
            "timeZone": "-01:00"}"#,
    );
    assert_eq!(enc("timestamp", "05/03/2024 05:07:08.009 AM", &opts), Ok(millis(T)));
    let days = 19_787u32; // 2024-03-05
    assert_eq!(enc("date", "Mar  5, 2024", &opts), Ok((days + (1 << 31)).to_be_bytes().to_vec()));
    assert_eq!(enc("time", "06h07", &opts), Ok(((6 * 3600 + 7 * 60) as i64 * 1_000_000_000).to_be_bytes().to_vec()));
    // Epoch numbers are still numbers.
    assert_eq!(enc("timestamp", "1709618828009", &opts), Ok(millis(T)));
    assert_eq!(
        enc("timestamp", "2024-03-05T06:07:08Z", &opts),
        Err("expected timestamp, got '2024-03-05T06:07:08Z' (at byte 0): does not match pattern '%d/%m/%Y %I:%M:%S.%f %p' at byte 2".into())
    );
}

#[test]
fn epoch_units() {
    assert_eq!(enc("timestamp", "1709618828", &options(r#"{"epochUnit": "s"}"#)), Ok(millis(T - 9)));
    assert_eq!(enc("timestamp", "1709618828009000000", &options(r#"{"epochUnit": "ns"}"#)), Ok(millis(T)));
    assert_eq!(
        enc("timestamp", "1709618828009000001", &options(r#"{"epochUnit": "ns"}"#)).unwrap_err(),
        "expected timestamp, got '1709618828009000001' (at byte 0): timestamps hold milliseconds: the sub-millisecond digits would be lost"
    );
}

#[test]
fn boolean_words() {
    let opts = options(r#"{"trueWords": ["ja"], "falseWords": ["nein"]}"#);
    assert_eq!(enc("boolean", "JA", &opts), Ok(vec![1]));
    assert_eq!(enc("boolean", "nein", &opts), Ok(vec![0]));
    assert_eq!(
        enc("boolean", "true", &opts).unwrap_err(),
        "expected boolean, got 'true' (at byte 0): not a boolean spelling"
    );
}

#[test]
fn locale_number_formats() {
    let opts = options(r#"{"decimalSeparator": ",", "groupingSeparator": "."}"#);
    assert_eq!(enc("int", "1.234.567", &opts), Ok(1_234_567i32.to_be_bytes().to_vec()));
    assert_eq!(enc("double", "-1.234,5", &opts), Ok((-1234.5f64).to_be_bytes().to_vec()));
    // decimal 1234.50: scale 2, unscaled 123450.
    assert_eq!(enc("decimal", "1.234,50", &opts), Ok([&2i32.to_be_bytes()[..], &[0x01, 0xe2, 0x3a]].concat()));
    assert_eq!(enc("varint", "12.345", &opts), Ok(vec![0x30, 0x39]));
    let spaced = options(r#"{"groupingSeparator": " "}"#);
    assert_eq!(enc("bigint", "9 007 199 254 740 993", &spaced), Ok(9_007_199_254_740_993i64.to_be_bytes().to_vec()));
}

#[test]
fn overflow_is_an_error_by_default_or_saturates() {
    let default = TextOptions::default();
    assert_eq!(enc("tinyint", "128", &default).unwrap_err(), "expected tinyint, got '128' (at byte 0): out of range");
    assert_eq!(
        enc("bigint", "9223372036854775808", &default).unwrap_err(),
        "expected bigint, got '9223372036854775808' (at byte 0): out of range"
    );
    assert_eq!(enc("float", "1e39", &default).unwrap_err(), "expected float, got '1e39' (at byte 0): out of range");
    let saturate = options(r#"{"overflow": "saturate"}"#);
    assert_eq!(enc("tinyint", "128", &saturate), Ok(vec![0x7f]));
    assert_eq!(enc("smallint", "-99999999999999999999999999999999999999999", &saturate), Ok(vec![0x80, 0x00]));
    assert_eq!(enc("bigint", "9223372036854775808", &saturate), Ok(i64::MAX.to_be_bytes().to_vec()));
    assert_eq!(enc("float", "-1e39", &saturate), Ok(f32::MIN.to_be_bytes().to_vec()));
    // Infinity is a value, not an overflow.
    assert_eq!(enc("float", "-Infinity", &saturate), Ok(f32::NEG_INFINITY.to_be_bytes().to_vec()));
}

#[test]
fn fractions_in_integer_columns_need_a_rounding_rule() {
    let default = TextOptions::default();
    const FRACTION: &str = "expected int, got '2.5' (at byte 0): has a fraction (choose a rounding rule to round it)";
    assert_eq!(enc("int", "2.5", &default).unwrap_err(), FRACTION);
    // Without a fraction the value is exact, however it is written (DSBulk reads it so).
    assert_eq!(enc("int", "2.0", &default), Ok(2i32.to_be_bytes().to_vec()));
    assert_eq!(enc("bigint", "25e-1", &default).unwrap_err(), FRACTION.replace("int, got '2.5'", "bigint, got '25e-1'"));
    let half_even = options(r#"{"rounding": "half-even"}"#);
    assert_eq!(enc("int", "2.5", &half_even), Ok(2i32.to_be_bytes().to_vec()));
    assert_eq!(enc("int", "-3.5", &half_even), Ok((-4i32).to_be_bytes().to_vec()));
    assert_eq!(enc("varint", "-0.4", &half_even), Ok(vec![0x00]));
    assert_eq!(enc("bigint", "7.2", &options(r#"{"rounding": "ceiling"}"#)), Ok(8i64.to_be_bytes().to_vec()));
    let rounded_then_saturated = options(r#"{"rounding": "up", "overflow": "saturate"}"#);
    assert_eq!(enc("tinyint", "127.1", &rounded_then_saturated), Ok(vec![0x7f]));
    assert_eq!(
        enc("tinyint", "127.1", &options(r#"{"rounding": "up"}"#)).unwrap_err(),
        "expected tinyint, got '127.1' (at byte 0): out of range"
    );
    assert_eq!(
        enc("int", "2.5", &options(r#"{"rounding": "unnecessary"}"#)).unwrap_err(),
        FRACTION
    );
}

#[test]
fn blobs_as_hex_or_base64() {
    assert_eq!(
        enc("blob", "3q2+7w==", &TextOptions::default()).unwrap_err(),
        "expected blob, got '3q2+7w==' (at byte 0): expected 0x followed by hex digits"
    );
    let base64 = options(r#"{"blobFormat": "base64"}"#);
    assert_eq!(enc("blob", "3q2+7w==", &base64), Ok(vec![0xde, 0xad, 0xbe, 0xef]));
    assert_eq!(enc("blob", "0xdeadbeef", &base64), Ok(vec![0xde, 0xad, 0xbe, 0xef]));
    let list =
        [&2i32.to_be_bytes()[..], &4i32.to_be_bytes(), &[0xde, 0xad, 0xbe, 0xef], &2i32.to_be_bytes(), &[0xfb, 0xff]];
    assert_eq!(enc("list<blob>", "['3q2+7w', '+/8=']", &base64), Ok(list.concat()));
}

/// Formats `bytes` with `opts`, checks the text, and reads it back with the same options.
fn round_trip(t: &str, bytes: &[u8], opts: &TextOptions, text: &str) {
    let mut out = String::from("keep:");
    format_text_with(&ColumnType::parse_cql(t).unwrap(), bytes, opts, &mut out).unwrap();
    assert_eq!(out, format!("keep:{text}"), "{t}");
    assert_eq!(enc(t, text, opts), Ok(bytes.to_vec()), "{t} {text:?} read back");
}

#[test]
fn unload_writes_what_load_reads_with_the_same_settings() {
    let opts = options(
        r#"{"timestampFormat": "%d %B %Y, %I:%M:%S.%f %p %z", "dateFormat": "%d.%m.%y", "timeFormat": "%H:%M:%S.%f",
            "timeZone": "-05:30", "trueWords": ["ja"], "falseWords": ["nein", "n"], "decimalSeparator": ",",
            "blobFormat": "base64"}"#,
    );
    round_trip("timestamp", &millis(T), &opts, "05 March 2024, 12:37:08.009 AM -05:30");
    round_trip("date", &(19_787u32 + (1 << 31)).to_be_bytes(), &opts, "05.03.24");
    round_trip("time", &123_456_789_012i64.to_be_bytes(), &opts, "00:02:03.456789012");
    round_trip("boolean", &[1], &opts, "ja");
    round_trip("boolean", &[0], &opts, "nein");
    round_trip("double", &(-1234.5f64).to_be_bytes(), &opts, "-1234,5");
    round_trip("decimal", &[&2i32.to_be_bytes()[..], &[0x01, 0xe2, 0x3a]].concat(), &opts, "1234,50");
    round_trip("blob", &[0xfb, 0xff, 0x00, 0x01], &opts, "+/8AAQ==");
    // A zone alone gives ISO 8601 in local time with the offset.
    round_trip("timestamp", &millis(T), &options(r#"{"timeZone": "+02:00"}"#), "2024-03-05T08:07:08.009+02:00");
    // Defaults are format_text's text.
    round_trip("timestamp", &millis(T), &TextOptions::default(), "2024-03-05T06:07:08.009Z");
    round_trip("blob", &[0xca, 0xfe], &TextOptions::default(), "0xcafe");
    // Inside a literal, values keep CQL syntax.
    round_trip("list<boolean>", &[&1i32.to_be_bytes()[..], &1i32.to_be_bytes(), &[1]].concat(), &opts, "[true]");
}
