//! The conversion settings users give for real files (time zone, patterns, boolean words,
//! number formats, blob encoding, overflow and rounding), read once into [`TextOptions`].
//!
//! [`ConversionSettings`] is the host-facing form: camelCase keys, every key optional,
//! unknown keys refused by name. [`ConversionSettings::apply`] checks each setting and
//! writes its typed form into the options [`super::encode_text`] reads.

use std::borrow::Cow;

use crate::json_fields::{integer_of, pair_of, Fields, Value};

use super::pattern::{self, Pattern};
use super::temporal::Reason;
use super::text::{EpochUnit, TextOptions};
use super::zone::{Transition, ZoneRules};

/// How numbers are written: the decimal separator and an optional grouping separator
/// (`1.234,5` is `decimal: ','`, `grouping: Some('.')`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NumberFormat {
    pub decimal: char,
    pub grouping: Option<char>,
}

impl Default for NumberFormat {
    fn default() -> Self {
        NumberFormat { decimal: '.', grouping: None }
    }
}

impl NumberFormat {
    /// `s` in the plain form the readers take (`.` as decimal point, no grouping); borrowed
    /// when nothing needs changing.
    pub(crate) fn plain<'s>(&self, s: &'s str) -> Cow<'s, str> {
        let grouped = self.grouping.is_some_and(|g| s.contains(g));
        if !grouped && (self.decimal == '.' || !s.contains(self.decimal)) {
            return Cow::Borrowed(s);
        }
        let mut out = String::with_capacity(s.len());
        for c in s.chars() {
            if Some(c) == self.grouping {
                continue;
            }
            out.push(if c == self.decimal { '.' } else { c });
        }
        Cow::Owned(out)
    }
}

/// How blobs are written in the file (besides `0x...`, which is always read as hex).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BlobFormat {
    #[default]
    Hex,
    Base64,
}

/// What a number that does not fit its column becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Overflow {
    /// The row is bad.
    #[default]
    Reject,
    /// The type's largest or smallest value.
    Saturate,
}

/// How a number with a fraction becomes an integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Rounding {
    /// A fraction is an error (a zero fraction, `3.00`, is not).
    #[default]
    Unnecessary,
    HalfEven,
    HalfUp,
    HalfDown,
    /// Toward zero.
    Down,
    /// Away from zero.
    Up,
    Floor,
    Ceiling,
}

/// The conversion settings as the host gives them. See the module documentation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConversionSettings {
    /// A null field leaves its column unset (default true). Read by the bulk encoder.
    pub null_to_unset: Option<bool>,
    /// The zone of timestamps written without one: `UTC`, a fixed offset (`+02:00`, `-0530`),
    /// or a zone name (`Europe/Paris`) whose offsets the host gives in `time_zone_offsets`.
    pub time_zone: Option<String>,
    /// The named zone's offsets, as the host's time zone database gives them:
    /// `[from_utc_millis, offset_seconds]` in increasing order; the first offset also holds
    /// before its instant. The core has no database of its own.
    pub time_zone_offsets: Option<Vec<(i64, i32)>>,
    /// `iso` (default) or a `strftime`-like pattern ([`Pattern`]).
    pub timestamp_format: Option<String>,
    pub date_format: Option<String>,
    pub time_format: Option<String>,
    /// Unit of timestamps written as integers: `s`, `ms` (default), `us` or `ns`.
    pub epoch_unit: Option<String>,
    pub true_words: Option<Vec<String>>,
    pub false_words: Option<Vec<String>>,
    /// One character (default `.`).
    pub decimal_separator: Option<String>,
    /// One character (default: none).
    pub grouping_separator: Option<String>,
    /// `hex` (default) or `base64`.
    pub blob_format: Option<String>,
    /// `reject` (default) or `saturate`.
    pub overflow: Option<String>,
    /// `unnecessary` (default), `half-even`, `half-up`, `half-down`, `down`, `up`, `floor`, `ceiling`.
    pub rounding: Option<String>,
}

fn one_char(key: &str, text: &str) -> Result<char, String> {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Ok(c),
        _ => Err(format!("{key} must be one character, got {text:?}")),
    }
}

fn pattern_or_iso(key: &str, text: &Option<String>) -> Result<Option<Pattern>, String> {
    match text.as_deref() {
        None | Some("iso") | Some("ISO") => Ok(None),
        Some(p) => Pattern::parse(p).map(Some).map_err(|e| format!("{key}: {e}")),
    }
}

/// `UTC`, `Z`, `GMT` or `±HH[:MM]` into minutes east of UTC.
pub fn parse_time_zone(text: &str) -> Result<i32, String> {
    match pattern::zone(text.trim()) {
        Some((offset, "")) => Ok(offset),
        _ => Err(format!(
            "time zone {text:?}: not UTC, a fixed offset such as +02:00, or a zone name this runtime knows (Europe/Paris)"
        )),
    }
}

/// The zone of `time_zone`: from the host's offsets when it gave them, else a fixed offset.
fn zone_rules(name: Option<&str>, offsets: Option<&[(i64, i32)]>) -> Result<Option<ZoneRules>, String> {
    let Some(offsets) = offsets else {
        return name.map(|n| parse_time_zone(n).map(ZoneRules::fixed_minutes)).transpose();
    };
    let label = name.unwrap_or("(unnamed)");
    let Some(&(_, initial)) = offsets.first() else {
        return Err(format!("time zone {label:?}: timeZoneOffsets is empty"));
    };
    let transitions =
        offsets.iter().map(|&(at_millis, offset_seconds)| Transition { at_millis, offset_seconds }).collect();
    ZoneRules::named(initial, transitions).map(Some).map_err(|e| format!("time zone {label:?}: {e}"))
}

/// A `[from_utc_millis, offset_seconds]` pair of `timeZoneOffsets`.
fn zone_offset_of(v: Value) -> Option<(i64, i32)> {
    let (at, offset) = pair_of(v)?;
    Some((i64::try_from(integer_of(&at)?).ok()?, i32::try_from(integer_of(&offset)?).ok()?))
}

impl ConversionSettings {
    /// Reads the settings from their JSON text (`what` names them in errors).
    pub fn from_json(what: &'static str, json: &str) -> Result<Self, String> {
        ConversionSettings::read(Fields::parse(what, json)?)
    }

    /// The settings nested under `conversion` in other options (`what` names them in errors).
    pub fn take_nested(f: &mut Fields, what: &'static str) -> Option<Self> {
        let value = f.take("conversion")?;
        f.nested(Fields::of(what, value).and_then(ConversionSettings::read))
    }

    /// Reads the settings object; an unknown key or a value of the wrong type is an error naming it.
    pub fn read(mut f: Fields) -> Result<Self, String> {
        let settings = ConversionSettings {
            null_to_unset: f.bool("nullToUnset"),
            time_zone: f.string("timeZone"),
            time_zone_offsets: f.array("timeZoneOffsets", "[milliseconds, seconds] integer pairs", zone_offset_of),
            timestamp_format: f.string("timestampFormat"),
            date_format: f.string("dateFormat"),
            time_format: f.string("timeFormat"),
            epoch_unit: f.string("epochUnit"),
            true_words: f.strings("trueWords"),
            false_words: f.strings("falseWords"),
            decimal_separator: f.string("decimalSeparator"),
            grouping_separator: f.string("groupingSeparator"),
            blob_format: f.string("blobFormat"),
            overflow: f.string("overflow"),
            rounding: f.string("rounding"),
        };
        f.finish(settings)
    }

    /// Writes the given settings into `opts`, leaving the others as they are.
    pub fn apply(&self, opts: &mut TextOptions) -> Result<(), String> {
        if let Some(zone) = zone_rules(self.time_zone.as_deref(), self.time_zone_offsets.as_deref())? {
            opts.zone = zone;
        }
        opts.timestamp_pattern = pattern_or_iso("timestampFormat", &self.timestamp_format)?;
        opts.date_pattern = pattern_or_iso("dateFormat", &self.date_format)?;
        opts.time_pattern = pattern_or_iso("timeFormat", &self.time_format)?;
        if let Some(unit) = &self.epoch_unit {
            opts.epoch_unit = match unit.as_str() {
                "s" | "seconds" => EpochUnit::Seconds,
                "ms" | "millis" | "milliseconds" => EpochUnit::Millis,
                "us" | "micros" | "microseconds" => EpochUnit::Micros,
                "ns" | "nanos" | "nanoseconds" => EpochUnit::Nanos,
                other => return Err(format!("epochUnit {other:?}: use s, ms, us or ns")),
            };
        }
        if let Some(words) = &self.true_words {
            opts.true_words = words.clone();
        }
        if let Some(words) = &self.false_words {
            opts.false_words = words.clone();
        }
        if let Some(word) = opts.true_words.iter().find(|w| opts.false_words.iter().any(|f| f.eq_ignore_ascii_case(w)))
        {
            return Err(format!("{word:?} is both a true and a false word"));
        }
        if let Some(c) = &self.decimal_separator {
            opts.number.decimal = one_char("decimalSeparator", c)?;
        }
        if let Some(c) = &self.grouping_separator {
            opts.number.grouping = Some(one_char("groupingSeparator", c)?);
        }
        if opts.number.grouping == Some(opts.number.decimal) {
            return Err("the decimal and grouping separators must differ".into());
        }
        if let Some(format) = &self.blob_format {
            opts.blob = match format.as_str() {
                "hex" => BlobFormat::Hex,
                "base64" => BlobFormat::Base64,
                other => return Err(format!("blobFormat {other:?}: use hex or base64")),
            };
        }
        if let Some(overflow) = &self.overflow {
            opts.overflow = match overflow.as_str() {
                "reject" => Overflow::Reject,
                "saturate" => Overflow::Saturate,
                other => return Err(format!("overflow {other:?}: use reject or saturate")),
            };
        }
        if let Some(rounding) = &self.rounding {
            opts.rounding = match rounding.as_str() {
                "unnecessary" => Rounding::Unnecessary,
                "half-even" => Rounding::HalfEven,
                "half-up" => Rounding::HalfUp,
                "half-down" => Rounding::HalfDown,
                "down" => Rounding::Down,
                "up" => Rounding::Up,
                "floor" => Rounding::Floor,
                "ceiling" => Rounding::Ceiling,
                other => {
                    return Err(format!(
                        "rounding {other:?}: use unnecessary, half-even, half-up, half-down, down, up, floor or ceiling"
                    ))
                }
            };
        }
        Ok(())
    }
}

/// An integer read from decimal text (`12`, `12.0`, `1.5e3`), rounded by `rounding`: sign
/// and magnitude, or `None` for a magnitude beyond 2^127 (an overflow for every fixed-width
/// type). As Java's `RoundingMode.UNNECESSARY` (DSBulk's default), a value without a
/// fraction is exact whatever its spelling; only a fraction needs a rule.
pub(crate) fn rounded_integer(s: &str, rounding: Rounding) -> Result<(bool, Option<u128>), Reason> {
    let (negative, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], Some(&body[at + 1..])),
        None => (body, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits_only = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty()) || !digits_only(whole) || !digits_only(fraction) {
        return Err(Cow::Borrowed("not a number"));
    }
    let shifted;
    let (whole, fraction) = match exponent {
        None => (whole, fraction),
        Some(e) => {
            shifted = shift_point(whole, fraction, exponent_of(e)?);
            (&shifted.0[..], &shifted.1[..])
        }
    };
    let whole = whole.trim_start_matches('0');
    let mut magnitude =
        if whole.len() > 38 { None } else { Some(whole.bytes().fold(0u128, |v, d| v * 10 + u128::from(d - b'0'))) };
    let first = fraction.bytes().next().map_or(0, |d| d - b'0');
    let rest_nonzero = fraction.bytes().skip(1).any(|d| d != b'0');
    if first == 0 && !rest_nonzero {
        return Ok((negative, magnitude));
    }
    // b'0' is even, so an ASCII digit has the parity of its value.
    let odd = whole.bytes().last().is_some_and(|d| d % 2 == 1);
    let away = match rounding {
        Rounding::Unnecessary => return Err(Cow::Borrowed("has a fraction (choose a rounding rule to round it)")),
        Rounding::Down => false,
        Rounding::Up => true,
        Rounding::Floor => negative,
        Rounding::Ceiling => !negative,
        Rounding::HalfUp => first >= 5,
        Rounding::HalfDown => first > 5 || (first == 5 && rest_nonzero),
        Rounding::HalfEven => first > 5 || (first == 5 && (rest_nonzero || odd)),
    };
    if away {
        magnitude = magnitude.and_then(|m| m.checked_add(1));
    }
    Ok((negative, magnitude))
}

/// The most zeros a shifted point pads with: past 40 whole digits every fixed-width integer
/// has overflowed, and a fraction starting 40 zeros down rounds as one further down does.
const MAX_PADDING: u64 = 40;

/// An exponent's `[+-]digits`, saturated far beyond any padding that matters.
fn exponent_of(text: &str) -> Result<i64, Reason> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Cow::Borrowed("not a number"));
    }
    let value = digits.bytes().fold(0i64, |v, d| v.saturating_mul(10).saturating_add(i64::from(d - b'0')));
    Ok(if negative { -value } else { value })
}

/// `whole.fraction` with the point moved `by` places right (left when negative), padded
/// with at most [`MAX_PADDING`] zeros.
fn shift_point(whole: &str, fraction: &str, by: i64) -> (String, String) {
    let digits: String = [whole, fraction].concat();
    let point = (whole.len() as i64).saturating_add(by);
    if point <= 0 {
        ("0".to_owned(), "0".repeat(point.unsigned_abs().min(MAX_PADDING) as usize) + &digits)
    } else if point.unsigned_abs() >= digits.len() as u64 {
        let padding = (point.unsigned_abs() - digits.len() as u64).min(MAX_PADDING);
        (digits + &"0".repeat(padding as usize), String::new())
    } else {
        let (w, f) = digits.split_at(point as usize);
        (w.to_owned(), f.to_owned())
    }
}

/// Base64 (standard or URL-safe alphabet, padding optional) appended to `out`.
pub(crate) fn decode_base64(s: &str, out: &mut Vec<u8>) -> Result<(), Reason> {
    let start = out.len();
    let body = s.trim_end_matches('=');
    if s.len() - body.len() > 2 || body.len() % 4 == 1 {
        return Err(Cow::Borrowed("not base64 (bad length or padding)"));
    }
    let mut acc: u32 = 0;
    let mut bits = 0;
    for b in body.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => {
                out.truncate(start);
                return Err(Cow::Borrowed("not a base64 character"));
            }
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_rules() {
        let r = |s, mode| rounded_integer(s, mode).map(|(neg, m)| (neg, m.unwrap()));
        assert_eq!(r("2.5", Rounding::HalfEven), Ok((false, 2)));
        assert_eq!(r("3.5", Rounding::HalfEven), Ok((false, 4)));
        assert_eq!(r("2.5", Rounding::HalfUp), Ok((false, 3)));
        assert_eq!(r("2.5", Rounding::HalfDown), Ok((false, 2)));
        assert_eq!(r("2.51", Rounding::HalfDown), Ok((false, 3)));
        assert_eq!(r("-2.1", Rounding::Floor), Ok((true, 3)));
        assert_eq!(r("-2.1", Rounding::Ceiling), Ok((true, 2)));
        assert_eq!(r("2.1", Rounding::Up), Ok((false, 3)));
        assert_eq!(r("2.9", Rounding::Down), Ok((false, 2)));
        assert_eq!(r("7.000", Rounding::Unnecessary), Ok((false, 7)));
        assert_eq!(
            r("7.01", Rounding::Unnecessary).unwrap_err(),
            "has a fraction (choose a rounding rule to round it)"
        );
        // An exponent moves the point; the value decides, not its spelling.
        assert_eq!(r("1e3", Rounding::Unnecessary), Ok((false, 1000)));
        assert_eq!(r("1.5E+3", Rounding::Unnecessary), Ok((false, 1500)));
        assert_eq!(r("-12.50e1", Rounding::Unnecessary), Ok((true, 125)));
        assert_eq!(r("125e-1", Rounding::HalfEven), Ok((false, 12)));
        assert_eq!(r("125e-1", Rounding::HalfUp), Ok((false, 13)));
        assert_eq!(r(".5e1", Rounding::Unnecessary), Ok((false, 5)));
        assert_eq!(r("1e-99999", Rounding::Ceiling), Ok((false, 1)));
        assert_eq!(r("0e99999", Rounding::Unnecessary), Ok((false, 0)));
        assert_eq!(rounded_integer("1e99999", Rounding::Unnecessary), Ok((false, None)));
        assert_eq!(rounded_integer("1e37", Rounding::Unnecessary), Ok((false, Some(10u128.pow(37)))));
        assert_eq!(rounded_integer("1e38", Rounding::Unnecessary), Ok((false, None)));
        // Leading zeros count: the point moves past them, whatever the padding cap.
        assert_eq!(r("0.000000000000000000001e45", Rounding::Unnecessary), Ok((false, 10u128.pow(24))));
        assert_eq!(r("1000000000000000000000000e-24", Rounding::Unnecessary), Ok((false, 1)));
        assert_eq!(
            rounded_integer("1.25e1", Rounding::Unnecessary).unwrap_err(),
            "has a fraction (choose a rounding rule to round it)"
        );
        for bad in ["1e", "1e+", "e3", "1e3.5", "1ee3", "1e3x"] {
            assert_eq!(rounded_integer(bad, Rounding::Down).unwrap_err(), "not a number", "{bad}");
        }
        assert_eq!(rounded_integer(&"9".repeat(39), Rounding::Down), Ok((false, None)));
    }

    #[test]
    fn every_rounding_rule_on_every_kind_of_fraction() {
        use Rounding::*;
        let rules = [HalfEven, HalfUp, HalfDown, Down, Up, Floor, Ceiling];
        // The magnitude under each rule, in the order of `rules`.
        let table: [(&str, bool, [u128; 7]); 17] = [
            ("2.5", false, [2, 3, 2, 2, 3, 2, 3]),
            ("3.5", false, [4, 4, 3, 3, 4, 3, 4]),
            ("12.5", false, [12, 13, 12, 12, 13, 12, 13]),
            ("13.5", false, [14, 14, 13, 13, 14, 13, 14]),
            ("2.50", false, [2, 3, 2, 2, 3, 2, 3]),
            ("2.51", false, [3, 3, 3, 2, 3, 2, 3]),
            ("2.4", false, [2, 2, 2, 2, 3, 2, 3]),
            ("2.41", false, [2, 2, 2, 2, 3, 2, 3]),
            ("3.4", false, [3, 3, 3, 3, 4, 3, 4]),
            ("2.6", false, [3, 3, 3, 2, 3, 2, 3]),
            ("2.05", false, [2, 2, 2, 2, 3, 2, 3]),
            ("-2.5", true, [2, 3, 2, 2, 3, 3, 2]),
            ("-3.5", true, [4, 4, 3, 3, 4, 4, 3]),
            ("-2.4", true, [2, 2, 2, 2, 3, 3, 2]),
            ("+7.5", false, [8, 8, 7, 7, 8, 7, 8]),
            ("0.5", false, [0, 1, 0, 0, 1, 0, 1]),
            (".5", false, [0, 1, 0, 0, 1, 0, 1]),
        ];
        for (text, negative, magnitudes) in table {
            for (rule, magnitude) in rules.into_iter().zip(magnitudes) {
                assert_eq!(rounded_integer(text, rule), Ok((negative, Some(magnitude))), "{text} {rule:?}");
            }
            assert_eq!(
                rounded_integer(text, Unnecessary),
                Err(Cow::Borrowed("has a fraction (choose a rounding rule to round it)")),
                "{text}"
            );
        }
        // No fraction, or a zero one: the same under every rule.
        for (text, expected) in
            [("7", (false, 7)), ("-7", (true, 7)), ("+7", (false, 7)), ("5.", (false, 5)), ("-0.00", (true, 0))]
        {
            for rule in rules.into_iter().chain([Unnecessary]) {
                assert_eq!(rounded_integer(text, rule), Ok((expected.0, Some(expected.1))), "{text} {rule:?}");
            }
        }
        for bad in ["", "-", "+", ".", "-.", "1.2.3", "1.2e", "e3", "a", "--1", " 1"] {
            assert_eq!(rounded_integer(bad, Up), Err(Cow::Borrowed("not a number")), "{bad:?}");
        }
    }

    #[test]
    fn magnitudes_beyond_38_digits_overflow() {
        let max38 = "9".repeat(38);
        assert_eq!(rounded_integer(&max38, Rounding::Down), Ok((false, Some(10u128.pow(38) - 1))));
        assert_eq!(rounded_integer(&format!("{max38}.5"), Rounding::Up), Ok((false, Some(10u128.pow(38)))));
        assert_eq!(rounded_integer(&format!("1{}", "0".repeat(38)), Rounding::Down), Ok((false, None)));
        assert_eq!(rounded_integer(&format!("-{}", "9".repeat(40)), Rounding::Up), Ok((true, None)));
        // Leading zeros are not digits of the magnitude.
        assert_eq!(rounded_integer(&format!("{}1", "0".repeat(50)), Rounding::Down), Ok((false, Some(1))));
    }

    #[test]
    fn plain_numbers_are_borrowed_and_others_rewritten() {
        let dot = NumberFormat::default();
        let comma = NumberFormat { decimal: ',', grouping: None };
        let german = NumberFormat { decimal: ',', grouping: Some('.') };
        let spaced = NumberFormat { decimal: '.', grouping: Some(' ') };
        assert!(matches!(dot.plain("-1.5"), Cow::Borrowed("-1.5")));
        assert!(matches!(comma.plain("15"), Cow::Borrowed("15")));
        assert!(matches!(spaced.plain("1234.5"), Cow::Borrowed("1234.5")));
        assert!(matches!(german.plain("12"), Cow::Borrowed("12")));
        assert_eq!(comma.plain("-1,5"), Cow::<str>::Owned("-1.5".into()));
        assert_eq!(german.plain("1.234.567,89"), Cow::<str>::Owned("1234567.89".into()));
        assert_eq!(german.plain("1.234"), Cow::<str>::Owned("1234".into()));
        assert_eq!(spaced.plain("9 007 199.5"), Cow::<str>::Owned("9007199.5".into()));
    }

    #[test]
    fn base64_every_character_and_padding() {
        let decode = |s: &str| {
            let mut out = vec![0xAA];
            decode_base64(s, &mut out).map(|()| out.split_off(1))
        };
        let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let bytes = [
            0x00, 0x10, 0x83, 0x10, 0x51, 0x87, 0x20, 0x92, 0x8b, 0x30, 0xd3, 0x8f, 0x41, 0x14, 0x93, 0x51, 0x55, 0x97,
            0x61, 0x96, 0x9b, 0x71, 0xd7, 0x9f, 0x82, 0x18, 0xa3, 0x92, 0x59, 0xa7, 0xa2, 0x9a, 0xab, 0xb2, 0xdb, 0xaf,
            0xc3, 0x1c, 0xb3, 0xd3, 0x5d, 0xb7, 0xe3, 0x9e, 0xbb, 0xf3, 0xdf, 0xbf,
        ];
        assert_eq!(decode(alphabet), Ok(bytes.to_vec()));
        assert_eq!(decode(&alphabet.replace('+', "-").replace('/', "_")), Ok(bytes.to_vec()));
        assert_eq!(decode("QQ=="), Ok(vec![0x41]));
        assert_eq!(decode("QUI="), Ok(vec![0x41, 0x42]));
        assert_eq!(decode("QUI"), Ok(vec![0x41, 0x42]));
        assert_eq!(decode("QUJD"), Ok(vec![0x41, 0x42, 0x43]));
        assert_eq!(decode("3q2+7w"), Ok(vec![0xde, 0xad, 0xbe, 0xef]));
        assert_eq!(decode(""), Ok(vec![]));
        for bad in ["QQ===", "====", "Q", "QUJDR", "QUJDR==="] {
            assert_eq!(decode(bad), Err(Cow::Borrowed("not base64 (bad length or padding)")), "{bad}");
        }
        for bad in ["QU=I", "QUJ.", "QU\u{e9}"] {
            assert_eq!(decode(bad), Err(Cow::Borrowed("not a base64 character")), "{bad}");
        }
    }

    #[test]
    fn base64_both_alphabets() {
        let mut out = Vec::new();
        decode_base64("+/8=", &mut out).unwrap();
        decode_base64("-_8", &mut out).unwrap();
        assert_eq!(out, [0xfb, 0xff, 0xfb, 0xff]);
        assert_eq!(decode_base64("a", &mut out).unwrap_err(), "not base64 (bad length or padding)");
        assert_eq!(decode_base64("ab!d", &mut out).unwrap_err(), "not a base64 character");
        assert_eq!(out.len(), 4);
    }

    #[test]
    fn settings_are_checked_and_named() {
        let mut opts = TextOptions::default();
        let parse = |json: &str| ConversionSettings::from_json("conversion", json);
        assert!(parse(r#"{"timeZone": "+01:00", "bogus": 1}"#)
            .unwrap_err()
            .starts_with("conversion: unknown field `bogus`, expected one of `nullToUnset`, `timeZone`,"));
        assert_eq!(
            parse(r#"{"timeZoneOffsets": [[0, 3600], [1, 2.5]]}"#).unwrap_err(),
            "conversion: `timeZoneOffsets`[1] must be [milliseconds, seconds] integer pairs, got an array"
        );
        parse(r#"{"timeZone": "-05:30", "decimalSeparator": ",", "groupingSeparator": "."}"#)
            .unwrap()
            .apply(&mut opts)
            .unwrap();
        assert_eq!(
            (opts.zone.clone(), opts.number.plain("1.234,5")),
            (ZoneRules::fixed_minutes(-330), Cow::Owned("1234.5".into()))
        );
        let error = |json: &str| parse(json).unwrap().apply(&mut TextOptions::default()).unwrap_err();
        assert_eq!(
            error(r#"{"timeZone": "Europe/Paris"}"#),
            "time zone \"Europe/Paris\": not UTC, a fixed offset such as +02:00, or a zone name this runtime knows (Europe/Paris)"
        );
        let paris = r#"{"timeZone": "Europe/Paris", "timeZoneOffsets": [[-2208988800000, 561], [-1855958961000, 0], [1711846800000, 7200]]}"#;
        parse(paris).unwrap().apply(&mut opts).unwrap();
        assert_eq!(
            opts.zone,
            ZoneRules::named(
                561,
                vec![
                    Transition { at_millis: -2_208_988_800_000, offset_seconds: 561 },
                    Transition { at_millis: -1_855_958_961_000, offset_seconds: 0 },
                    Transition { at_millis: 1_711_846_800_000, offset_seconds: 7200 }
                ]
            )
            .unwrap()
        );
        assert_eq!(
            error(r#"{"timeZone": "X/Y", "timeZoneOffsets": []}"#),
            "time zone \"X/Y\": timeZoneOffsets is empty"
        );
        assert_eq!(
            error(r#"{"timeZone": "X/Y", "timeZoneOffsets": [[5, 0], [5, 3600]]}"#),
            "time zone \"X/Y\": time zone transition 1 is not after the one before it"
        );
        assert_eq!(error(r#"{"timestampFormat": "%d/%q"}"#), "timestampFormat: pattern '%d/%q': unknown spec %q");
        assert_eq!(error(r#"{"trueWords": ["x"], "falseWords": ["X"]}"#), "\"x\" is both a true and a false word");
        assert_eq!(error(r#"{"groupingSeparator": "."}"#), "the decimal and grouping separators must differ");
        assert_eq!(error(r#"{"rounding": "nearest"}"#).split(':').next(), Some("rounding \"nearest\""));
    }
}
