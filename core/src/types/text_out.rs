//! Values to field text with the conversion settings (`unload`): [`format_text_with`]
//! writes what [`super::encode_text`] reads back with the same [`TextOptions`]. Only
//! top-level values follow the settings; inside collections, tuples and UDTs values stay in
//! CQL literal syntax, as [`super::format_text`] writes them.

use std::fmt::Write as _;

use super::conversion::BlobFormat;
use super::pattern::Fields;
use super::scalar::DATE_EPOCH;
use super::temporal::push_year;
use super::text::{format_text, TextOptions};
use super::ColumnType;
use crate::error::ProtocolError;

const MILLIS_PER_DAY: i64 = 86_400_000;

/// Appends the text of `bytes` (a value of `ty`) to `out`, as the options ask. The bytes
/// are checked as [`format_text`] checks them; on error `out` is left as it was.
pub fn format_text_with(
    ty: &ColumnType,
    bytes: &[u8],
    opts: &TextOptions,
    out: &mut String,
) -> Result<(), ProtocolError> {
    let start = out.len();
    format_text(ty, bytes, out)?;
    if bytes.is_empty() {
        return Ok(());
    }
    match ty {
        ColumnType::Timestamp => {
            let Ok(raw) = <[u8; 8]>::try_from(bytes) else { return Ok(()) };
            if opts.timestamp_pattern.is_none() && opts.zone.is_utc() {
                return Ok(());
            }
            out.truncate(start);
            let utc = i64::from_be_bytes(raw);
            // Written offsets are whole minutes (only a few local mean times before 1940 had
            // seconds, Paris +00:09:21), so the local time is UTC plus those minutes: the text
            // then names the same instant, a few seconds off the zone's mean time.
            let offset_minutes = opts.zone.offset_seconds_at(utc) / 60;
            let local = utc.saturating_add(i64::from(offset_minutes) * 60_000);
            let (days, ms) = (local.div_euclid(MILLIS_PER_DAY), local.rem_euclid(MILLIS_PER_DAY));
            let fields = Fields::from_parts(days, ms * 1_000_000, Some(offset_minutes));
            match &opts.timestamp_pattern {
                Some(pattern) => pattern.write(&fields, out),
                None => iso_with_offset(&fields, out),
            }
        }
        ColumnType::Date => {
            let (Some(pattern), Ok(raw)) = (&opts.date_pattern, <[u8; 4]>::try_from(bytes)) else { return Ok(()) };
            out.truncate(start);
            let days = i64::from(u32::from_be_bytes(raw)) - DATE_EPOCH;
            pattern.write(&Fields::from_parts(days, 0, None), out);
        }
        ColumnType::Time => {
            let (Some(pattern), Ok(raw)) = (&opts.time_pattern, <[u8; 8]>::try_from(bytes)) else { return Ok(()) };
            out.truncate(start);
            pattern.write(&Fields::from_parts(0, i64::from_be_bytes(raw), None), out);
        }
        ColumnType::Boolean => {
            let words = if bytes[0] != 0 { &opts.true_words } else { &opts.false_words };
            if let Some(word) = words.first() {
                out.truncate(start);
                out.push_str(word);
            }
        }
        ColumnType::Float | ColumnType::Double | ColumnType::Decimal if opts.number.decimal != '.' => {
            let text = out.split_off(start);
            out.extend(text.chars().map(|c| if c == '.' { opts.number.decimal } else { c }));
        }
        ColumnType::Blob if opts.blob == BlobFormat::Base64 => {
            out.truncate(start);
            push_base64(bytes, out);
        }
        _ => {}
    }
    Ok(())
}

/// ISO 8601 in the zone's local time: `2024-03-05T08:07:08.009+02:00`.
fn iso_with_offset(f: &Fields, out: &mut String) {
    push_year(f.year, out);
    let _ = write!(out, "-{:02}-{:02}T{:02}:{:02}:{:02}", f.month, f.day, f.hour, f.minute, f.second);
    if f.nanos != 0 {
        let _ = write!(out, ".{:03}", f.nanos / 1_000_000);
    }
    let m = f.offset.unwrap_or(0);
    let _ = write!(out, "{}{:02}:{:02}", if m < 0 { '-' } else { '+' }, m.abs() / 60, m.abs() % 60);
}

/// Standard base64 with padding.
fn push_base64(bytes: &[u8], out: &mut String) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::ConversionSettings;
    use super::*;

    fn options(json: &str) -> TextOptions {
        let mut opts = TextOptions::default();
        ConversionSettings::from_json("conversion", json).unwrap().apply(&mut opts).unwrap();
        opts
    }

    fn text(t: &str, bytes: &[u8], opts: &TextOptions) -> String {
        let mut out = String::from("kept:");
        format_text_with(&ColumnType::parse_cql(t).unwrap(), bytes, opts, &mut out).unwrap();
        out
    }

    #[test]
    fn base64_pads_each_last_group() {
        let opts = options(r#"{"blobFormat": "base64"}"#);
        for (bytes, expected) in [
            (&b"A"[..], "QQ=="),
            (b"AB", "QUI="),
            (b"ABC", "QUJD"),
            (b"ABCD", "QUJDRA=="),
            (&[0xFB, 0xFF, 0xBF], "+/+/"),
            (&[0x00, 0x10, 0x83], "ABCD"),
        ] {
            assert_eq!(text("blob", bytes, &opts), format!("kept:{expected}"), "{bytes:02x?}");
        }
        // An empty blob is the empty text, as format_text writes it.
        assert_eq!(text("blob", &[], &opts), "kept:0x");
    }

    #[test]
    fn timestamps_in_a_zone_without_a_pattern_are_iso_with_the_offset() {
        // 2024-03-05T06:07:08Z, whole seconds: no fraction is written.
        let t = 1_709_618_828_000i64.to_be_bytes();
        assert_eq!(text("timestamp", &t, &options(r#"{"timeZone": "-09:30"}"#)), "kept:2024-03-04T20:37:08-09:30");
        assert_eq!(text("timestamp", &t, &options(r#"{"timeZone": "+05:45"}"#)), "kept:2024-03-05T11:52:08+05:45");
        let ms = 1_709_618_828_070i64.to_be_bytes();
        assert_eq!(text("timestamp", &ms, &options(r#"{"timeZone": "+01:00"}"#)), "kept:2024-03-05T07:07:08.070+01:00");
        // UTC without a pattern is format_text's own text.
        assert_eq!(text("timestamp", &t, &options(r#"{"timeZone": "UTC"}"#)), "kept:2024-03-05T06:07:08.000Z");
        // A pattern applies in UTC too.
        let pattern = options(r#"{"timestampFormat": "%Y/%m/%d %H.%M.%S"}"#);
        assert_eq!(text("timestamp", &t, &pattern), "kept:2024/03/05 06.07.08");
    }

    #[test]
    fn timestamps_in_a_zone_keep_their_instant_at_the_edges() {
        // Paris kept local mean time, +00:09:21, until 1911: the written offset has whole
        // minutes, so the local time written is UTC plus those (it read back 21 s late).
        let mut paris = TextOptions::default();
        let switch = -1_855_958_961_000; // 1911-03-11T00:00:00+00:09:21, then +00:00
        paris.zone = super::super::ZoneRules::named(
            561,
            vec![super::super::Transition { at_millis: switch, offset_seconds: 0 }],
        )
        .unwrap();
        let t1900 = -2_208_988_799_999i64; // 1900-01-01T00:00:00.001Z
        assert_eq!(text("timestamp", &t1900.to_be_bytes(), &paris), "kept:1900-01-01T00:09:00.001+00:09");
        assert_eq!(text("timestamp", &switch.to_be_bytes(), &paris), "kept:1911-03-10T23:50:39+00:00");
        // Past 9999 and before year 0 the year has a sign, as in UTC (Java, hence DSBulk, needs it).
        let plus_one = options(r#"{"timeZone": "+01:00"}"#);
        let last = 253_402_300_799_999i64; // 9999-12-31T23:59:59.999Z
        assert_eq!(text("timestamp", &last.to_be_bytes(), &plus_one), "kept:+10000-01-01T00:59:59.999+01:00");
        let minus_one = options(r#"{"timeZone": "-01:00"}"#);
        let year0 = -62_167_219_200_000i64; // 0000-01-01T00:00:00Z
        assert_eq!(text("timestamp", &year0.to_be_bytes(), &minus_one), "kept:-0001-12-31T23:00:00-01:00");
        assert_eq!(text("timestamp", &(year0 + 3_600_000).to_be_bytes(), &minus_one), "kept:0000-01-01T00:00:00-01:00");
    }

    #[test]
    fn options_apply_only_where_set() {
        let plain = TextOptions::default();
        assert_eq!(text("date", &(19_787u32 + (1 << 31)).to_be_bytes(), &plain), "kept:2024-03-05");
        assert_eq!(text("time", &3_723_000_000_000i64.to_be_bytes(), &plain), "kept:01:02:03");
        assert_eq!(text("boolean", &[1], &plain), "kept:true");
        assert_eq!(text("double", &2.5f64.to_be_bytes(), &plain), "kept:2.5");
        let words = options(r#"{"trueWords": ["oui", "o"], "falseWords": []}"#);
        assert_eq!(text("boolean", &[2], &words), "kept:oui");
        assert_eq!(text("boolean", &[0], &words), "kept:false");
        let comma = options(r#"{"decimalSeparator": ","}"#);
        assert_eq!(text("float", &(-0.5f32).to_be_bytes(), &comma), "kept:-0,5");
        assert_eq!(text("int", &7i32.to_be_bytes(), &comma), "kept:7");
        // The legacy empty value stays empty whatever the options.
        assert_eq!(text("timestamp", &[], &options(r#"{"timeZone": "+01:00"}"#)), "kept:");
        let patterns = options(r#"{"dateFormat": "%d/%m/%Y", "timeFormat": "%H:%M"}"#);
        assert_eq!(text("date", &((1u32 << 31) - 1).to_be_bytes(), &patterns), "kept:31/12/1969");
        assert_eq!(text("time", &3_723_000_000_000i64.to_be_bytes(), &patterns), "kept:01:02");
    }
}
