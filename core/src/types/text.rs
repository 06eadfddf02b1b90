//! Text fields straight to wire bytes (the bulk path) and wire bytes back to text (unload),
//! with no [`super::CqlValue`] in between.
//!
//! A top-level field is the bare text of one value: `42`, `2024-01-02T03:04:05Z`, `0xcafe`,
//! `hello` (text is taken verbatim). Collections, tuples, UDTs and vectors are literals, in CQL
//! syntax or JSON syntax, mixed freely:
//!
//! | type | CQL | JSON |
//! |---|---|---|
//! | list, vector | `[1, 2]` | `[1, 2]` |
//! | set | `{1, 2}` | `[1, 2]` |
//! | map | `{'a': 1}` | `{"a": 1}` |
//! | tuple | `(1, 'x')` | `[1, "x"]` |
//! | udt | `{field: 'v'}` | `{"field": "v"}` |
//!
//! Inside a literal, text must be quoted: `'it''s'` (CQL), `"say \"hi\""` (JSON escapes;
//! `""` also stands for a quote) or `$$raw$$`; other values may be quoted or bare, and
//! `null` is a null element. Unquoted UDT field names are case-insensitive, quoted ones
//! exact (falling back to a unique case-insensitive match).
//!
//! [`format_text`] writes the CQL form; [`encode_text`] of its output gives back the same
//! bytes for every value, except the legacy empty value of non-text types, which has no
//! text of its own (it is written as an empty field, or `null` inside a literal).

use std::borrow::Cow;
use std::fmt::{self, Write as _};
use core::net::{Ipv4Addr, Ipv6Addr};

use super::bignum;
use super::column_type::{ColumnType, UdtType};
use super::conversion::{decode_base64, rounded_integer, BlobFormat, NumberFormat, Overflow, Rounding};
use super::pattern::Pattern;
use super::scalar::{
    check_time, check_timeuuid, collection_count, element as wire_element, fixed, no_trailing, push_duration,
    read_duration, vector_element, DATE_EPOCH,
};
use super::temporal::{self, Reason};
use super::validate::check_value;
use super::zone::ZoneRules;
use super::value::{inet_from_bytes, insert_vint_prefix, push_hex, push_uuid};
use crate::error::ProtocolError;
use crate::wire::Reader;

/// How bare integers in timestamp fields are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EpochUnit {
    Seconds,
    #[default]
    Millis,
    Micros,
    Nanos,
}

/// How [`encode_text`] reads fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextOptions {
    /// Top-level fields exactly equal to one of these are null. Default: `[""]`.
    pub null_markers: Vec<String>,
    /// Spellings of true, matched case-insensitively.
    pub true_words: Vec<String>,
    /// Spellings of false, matched case-insensitively.
    pub false_words: Vec<String>,
    /// The unit of a timestamp written as a bare integer. Default: milliseconds.
    pub epoch_unit: EpochUnit,
    /// The zone of timestamps written without one (and of unload's output). Default: UTC.
    pub zone: ZoneRules,
    /// Timestamps, dates and times in this pattern instead of ISO 8601 (integers are still
    /// epoch numbers, days and nanoseconds).
    pub timestamp_pattern: Option<Pattern>,
    pub date_pattern: Option<Pattern>,
    pub time_pattern: Option<Pattern>,
    /// Decimal and grouping separators of numbers.
    pub number: NumberFormat,
    /// How blobs without a `0x` prefix are read.
    pub blob: BlobFormat,
    /// A number beyond its column's range: an error, or the nearest value that fits.
    pub overflow: Overflow,
    /// A fraction in an integer column: an error, or rounded by this rule.
    pub rounding: Rounding,
}

impl Default for TextOptions {
    fn default() -> Self {
        let words = |list: &[&str]| list.iter().map(|w| (*w).to_owned()).collect();
        TextOptions {
            null_markers: vec![String::new()],
            true_words: words(&["true", "yes", "y", "1", "t", "on"]),
            false_words: words(&["false", "no", "n", "0", "f", "off"]),
            epoch_unit: EpochUnit::Millis,
            zone: ZoneRules::default(),
            timestamp_pattern: None,
            date_pattern: None,
            time_pattern: None,
            number: NumberFormat::default(),
            blob: BlobFormat::default(),
            overflow: Overflow::default(),
            rounding: Rounding::default(),
        }
    }
}

/// A field that is not a value of its column's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The CQL type expected where the text went wrong (an element's type inside a literal).
    pub expected: String,
    /// The offending text, truncated to 40 characters.
    pub value: String,
    /// Byte offset of `value` in the field.
    pub offset: usize,
    pub reason: String,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected {}, got '{}' (at byte {}): {}", self.expected, self.value, self.offset, self.reason)
    }
}

impl std::error::Error for FieldError {}

/// Where and why parsing failed; becomes a [`FieldError`] only on the way out.
struct Fail<'t> {
    ty: &'t ColumnType,
    start: usize,
    end: usize,
    reason: Reason,
}

type Parsed<'t, T = ()> = Result<T, Fail<'t>>;

fn fail<'t>(ty: &'t ColumnType, start: usize, end: usize, reason: impl Into<Reason>) -> Fail<'t> {
    Fail { ty, start, end, reason: reason.into() }
}

const MAX_VALUE_CHARS: usize = 40;

impl Fail<'_> {
    fn into_field_error(self, field: &str) -> FieldError {
        let start = floor_char_boundary(field, self.start);
        let end = if self.end > self.start { floor_char_boundary(field, self.end.max(start)) } else { field.len() };
        let text = &field[start..end.max(start)];
        let value = match text.char_indices().nth(MAX_VALUE_CHARS) {
            Some((cut, _)) => format!("{}…", &text[..cut]),
            None => text.to_owned(),
        };
        FieldError { expected: self.ty.to_string(), value, offset: start, reason: self.reason.into_owned() }
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Appends the `[value]` for `field` to `out`: an i32 length then the bytes, or length -1
/// when the field is one of the null markers. Allocates nothing when `out` has room. On
/// error `out` is left as it was.
pub fn encode_text(ty: &ColumnType, field: &str, opts: &TextOptions, out: &mut Vec<u8>) -> Result<(), FieldError> {
    if opts.null_markers.iter().any(|marker| marker == field) {
        out.extend_from_slice(&(-1i32).to_be_bytes());
        return Ok(());
    }
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    let result = top_level(ty, field, opts, out).and_then(|()| patch_length(ty, out, start, field.len()));
    result.map_err(|failure| {
        out.truncate(start);
        failure.into_field_error(field)
    })
}

fn patch_length<'t>(ty: &'t ColumnType, out: &mut [u8], start: usize, field_len: usize) -> Parsed<'t> {
    let len =
        i32::try_from(out.len() - start - 4).map_err(|_| fail(ty, 0, field_len, "value longer than 2^31-1 bytes"))?;
    out[start..start + 4].copy_from_slice(&len.to_be_bytes());
    Ok(())
}

fn top_level<'t>(ty: &'t ColumnType, field: &str, opts: &TextOptions, out: &mut Vec<u8>) -> Parsed<'t> {
    match ty {
        ColumnType::Text => {
            out.extend_from_slice(field.as_bytes());
            Ok(())
        }
        ColumnType::Ascii => push_ascii(ty, field, out),
        _ if ty.is_container() => {
            let mut src = Src { text: field, pos: 0 };
            src.skip_ws();
            literal(ty, &mut src, opts, out)?;
            src.skip_ws();
            if src.at_end() {
                Ok(())
            } else {
                Err(fail(ty, src.pos, field.len(), "unexpected text after the value"))
            }
        }
        _ => {
            let trimmed = field.trim_start();
            let at = field.len() - trimmed.len();
            scalar(ty, trimmed.trim_end(), at, opts, out)
        }
    }
}

/// A top-level ascii field, verbatim (its only caller: inside literals ascii is quoted).
fn push_ascii<'t>(ty: &'t ColumnType, s: &str, out: &mut Vec<u8>) -> Parsed<'t> {
    match s.bytes().position(|b| !b.is_ascii()) {
        None => {
            out.extend_from_slice(s.as_bytes());
            Ok(())
        }
        Some(i) => Err(fail(ty, i, s.len(), "not ASCII")),
    }
}

// ---------------------------------------------------------------------------------------------
// Scalars

/// One scalar other than text and ascii (which never come here: they are verbatim at the top
/// level and quoted inside literals) from its bare text `s` (trimmed), at byte `at` of the field.
fn scalar<'t>(ty: &'t ColumnType, s: &str, at: usize, opts: &TextOptions, out: &mut Vec<u8>) -> Parsed<'t> {
    let wrap = |reason: Reason| fail(ty, at, at + s.len(), reason);
    if s.is_empty() {
        // In base64 no text is the empty blob: DSBulk (base64 by default) writes one as `""`.
        if *ty == ColumnType::Blob && opts.blob == BlobFormat::Base64 {
            return Ok(());
        }
        return Err(wrap(Cow::Borrowed("empty")));
    }
    match ty {
        ColumnType::Boolean => {
            let value = if opts.true_words.iter().any(|w| w.eq_ignore_ascii_case(s)) {
                true
            } else if opts.false_words.iter().any(|w| w.eq_ignore_ascii_case(s)) {
                false
            } else {
                return Err(wrap(Cow::Borrowed("not a boolean spelling")));
            };
            out.push(u8::from(value));
        }
        ColumnType::Tinyint => out.extend_from_slice(&fixed_int::<i8>(s, opts).map_err(wrap)?.to_be_bytes()),
        ColumnType::Smallint => out.extend_from_slice(&fixed_int::<i16>(s, opts).map_err(wrap)?.to_be_bytes()),
        ColumnType::Int => out.extend_from_slice(&fixed_int::<i32>(s, opts).map_err(wrap)?.to_be_bytes()),
        ColumnType::Bigint | ColumnType::Counter => {
            out.extend_from_slice(&fixed_int::<i64>(s, opts).map_err(wrap)?.to_be_bytes())
        }
        ColumnType::Varint => varint(&opts.number.plain(s), opts.rounding, out).map_err(wrap)?,
        ColumnType::Decimal => decimal(&opts.number.plain(s), out).map_err(wrap)?,
        ColumnType::Float => out.extend_from_slice(&float::<f32>(&opts.number.plain(s), opts.overflow).map_err(wrap)?.to_be_bytes()),
        ColumnType::Double => out.extend_from_slice(&float::<f64>(&opts.number.plain(s), opts.overflow).map_err(wrap)?.to_be_bytes()),
        ColumnType::Timestamp => out.extend_from_slice(&timestamp(s, opts).map_err(wrap)?.to_be_bytes()),
        ColumnType::Date => {
            let days = match (temporal::integer(s), &opts.date_pattern) {
                (Some(days), _) => days.and_then(temporal::check_date_days),
                (None, Some(pattern)) => pattern.read(s).and_then(|f| f.days()).and_then(temporal::check_date_days),
                (None, None) => temporal::parse_date(s),
            }
            .map_err(wrap)?;
            out.extend_from_slice(&((days + DATE_EPOCH) as u32).to_be_bytes());
        }
        ColumnType::Time => {
            let nanos = match (temporal::integer(s), &opts.time_pattern) {
                (Some(nanos), _) => nanos.and_then(temporal::check_time_nanos),
                (None, Some(pattern)) => pattern.read(s).map(|f| f.time_nanos()),
                (None, None) => temporal::parse_time(s),
            }
            .map_err(wrap)?;
            out.extend_from_slice(&nanos.to_be_bytes());
        }
        ColumnType::Duration => {
            let (months, days, nanos) = temporal::parse_duration(s).map_err(wrap)?;
            push_duration(months, days, nanos, out);
        }
        ColumnType::Uuid => out.extend_from_slice(&uuid(s).map_err(wrap)?),
        ColumnType::Timeuuid => {
            let bytes = uuid(s).map_err(wrap)?;
            if bytes[6] >> 4 != 1 {
                return Err(wrap(Cow::Borrowed("not a version 1 (time-based) UUID")));
            }
            out.extend_from_slice(&bytes);
        }
        ColumnType::Inet => {
            if let Ok(v4) = s.parse::<Ipv4Addr>() {
                out.extend_from_slice(&v4.octets());
            } else if let Ok(v6) = s.parse::<Ipv6Addr>() {
                out.extend_from_slice(&v6.octets());
            } else {
                return Err(wrap(Cow::Borrowed("not an IPv4 or IPv6 address")));
            }
        }
        ColumnType::Blob | ColumnType::Custom(_) => blob(s, opts.blob, out).map_err(wrap)?,
        _ => return Err(wrap(Cow::Borrowed("expected a literal"))),
    }
    Ok(())
}

/// A fixed-width integer: plain digits, or any decimal text (`12.0`, `1.5e3`) whose value is
/// an integer, as DSBulk reads it; a fraction is rounded by the options' rule (by default
/// it is an error), then the value fitted by their overflow rule.
fn fixed_int<T: TryFrom<i128> + Bounded>(s: &str, opts: &TextOptions) -> Result<T, Reason> {
    let plain = opts.number.plain(s);
    let (negative, magnitude) = match temporal::integer(&plain) {
        Some(Ok(v)) => (v < 0, Some(v.unsigned_abs() as u128)),
        _ => rounded_integer(&plain, opts.rounding).map_err(|e| {
            if e == "not a number" { Cow::Borrowed("not an integer") } else { e }
        })?,
    };
    let value = magnitude.and_then(|m| i128::try_from(m).ok()).map(|m| if negative { -m } else { m });
    match (value.and_then(|v| T::try_from(v).ok()), opts.overflow) {
        (Some(v), _) => Ok(v),
        (None, Overflow::Saturate) => Ok(if negative { T::MIN } else { T::MAX }),
        (None, Overflow::Reject) => Err(Cow::Borrowed("out of range")),
    }
}

trait Bounded {
    const MIN: Self;
    const MAX: Self;
}
macro_rules! bounded {
    ($($t:ty),*) => {$(impl Bounded for $t { const MIN: $t = <$t>::MIN; const MAX: $t = <$t>::MAX; })*};
}
bounded!(i8, i16, i32, i64);

fn split_sign(s: &str) -> (bool, &str) {
    match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    }
}

fn too_many_digits() -> Reason {
    Cow::Owned(format!("more than {} digits", bignum::MAX_DECIMAL_DIGITS))
}

fn varint(s: &str, rounding: Rounding, out: &mut Vec<u8>) -> Result<(), Reason> {
    if s.contains(['.', 'e', 'E']) {
        // Decimal text (`12.0`, `1e3`) whose value is an integer, or a fraction rounded by
        // the rule; such varints stay within 2^127 (plain digits have no such limit).
        let (negative, magnitude) = rounded_integer(s, rounding).map_err(|e| {
            if e == "not a number" { Cow::Borrowed("not an integer") } else { e }
        })?;
        let magnitude = magnitude.ok_or(Cow::Borrowed("out of range for rounding (38 digits at most)"))?;
        let digits = magnitude.to_string();
        bignum::push_decimal_digits(&[digits.as_bytes()], negative && magnitude != 0, out);
        return Ok(());
    }
    let (negative, digits) = split_sign(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Cow::Borrowed("not an integer"));
    }
    if digits.len() > bignum::MAX_DECIMAL_DIGITS {
        return Err(too_many_digits());
    }
    bignum::push_decimal_digits(&[digits.as_bytes()], negative, out);
    Ok(())
}

/// `[+-]digits[.digits][(e|E)[+-]digits]`: scale is the fraction length minus the exponent.
fn decimal(s: &str, out: &mut Vec<u8>) -> Result<(), Reason> {
    let (negative, rest) = split_sign(s);
    let b = rest.as_bytes();
    let int_len = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let (int_digits, mut pos) = (&b[..int_len], int_len);
    let mut frac_digits: &[u8] = &[];
    if b.get(pos) == Some(&b'.') {
        let n = b[pos + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        frac_digits = &b[pos + 1..pos + 1 + n];
        pos += 1 + n;
    }
    if int_digits.is_empty() && frac_digits.is_empty() {
        return Err(Cow::Borrowed("not a decimal number"));
    }
    let mut exponent: i64 = 0;
    if matches!(b.get(pos), Some(b'e' | b'E')) {
        let text = &rest[pos + 1..];
        let body = text.strip_prefix(['+', '-']).unwrap_or(text);
        if body.is_empty() || body.len() > 12 || !body.bytes().all(|c| c.is_ascii_digit()) {
            return Err(Cow::Borrowed("bad exponent"));
        }
        exponent = text.parse().map_err(|_| Cow::Borrowed("bad exponent"))?;
        pos = b.len();
    }
    if pos != b.len() {
        return Err(Cow::Borrowed("not a decimal number"));
    }
    if int_digits.len() + frac_digits.len() > bignum::MAX_DECIMAL_DIGITS {
        return Err(too_many_digits());
    }
    let scale = i32::try_from(frac_digits.len() as i64 - exponent)
        .map_err(|_| Cow::Borrowed("scale out of the 32-bit range"))?;
    out.extend_from_slice(&scale.to_be_bytes());
    bignum::push_decimal_digits(&[int_digits, frac_digits], negative, out);
    Ok(())
}

trait Float: std::str::FromStr + Copy {
    fn is_infinite(self) -> bool;
    fn is_nan(self) -> bool;
    const NAN: Self;
    /// The largest finite value, and its negation.
    const MAX: Self;
    const MIN: Self;
}
impl Float for f32 {
    fn is_infinite(self) -> bool {
        f32::is_infinite(self)
    }
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
    const NAN: f32 = f32::NAN;
    const MAX: f32 = f32::MAX;
    const MIN: f32 = f32::MIN;
}
impl Float for f64 {
    fn is_infinite(self) -> bool {
        f64::is_infinite(self)
    }
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
    const NAN: f64 = f64::NAN;
    const MAX: f64 = f64::MAX;
    const MIN: f64 = f64::MIN;
}

/// Decimal or exponent notation, `NaN`, `Infinity`, `-Infinity` (also `inf`), any case.
/// A finite number too large for the type is an error rather than infinity.
fn float<T: Float>(s: &str, overflow: Overflow) -> Result<T, Reason> {
    let v: T = s.parse().map_err(|_| Cow::Borrowed("not a number"))?;
    if v.is_nan() {
        // One NaN, whatever sign or spelling came in.
        return Ok(T::NAN);
    }
    if v.is_infinite() {
        let word = s.trim_start_matches(['+', '-']);
        if !(word.eq_ignore_ascii_case("infinity") || word.eq_ignore_ascii_case("inf")) {
            return match overflow {
                Overflow::Reject => Err(Cow::Borrowed("out of range")),
                Overflow::Saturate if s.starts_with('-') => Ok(T::MIN),
                Overflow::Saturate => Ok(T::MAX),
            };
        }
    }
    Ok(v)
}

fn timestamp(s: &str, opts: &TextOptions) -> Result<i64, Reason> {
    let Some(n) = temporal::integer(s) else {
        let Some(pattern) = &opts.timestamp_pattern else {
            return temporal::parse_timestamp(s, &opts.zone);
        };
        let fields = pattern.read(s)?;
        return temporal::timestamp_in(fields.days()?, fields.time_nanos(), fields.offset, &opts.zone);
    };
    let n = n?;
    match opts.epoch_unit {
        EpochUnit::Millis => Ok(n),
        EpochUnit::Seconds => n.checked_mul(1000).ok_or(Cow::Borrowed("out of range")),
        EpochUnit::Micros if n % 1000 == 0 => Ok(n / 1000),
        EpochUnit::Micros => {
            Err(Cow::Borrowed("timestamps hold milliseconds: the sub-millisecond digits would be lost"))
        }
        EpochUnit::Nanos if n % 1_000_000 == 0 => Ok(n / 1_000_000),
        EpochUnit::Nanos => {
            Err(Cow::Borrowed("timestamps hold milliseconds: the sub-millisecond digits would be lost"))
        }
    }
}

fn hex_digit(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Lower- or upper-case hex, hyphenated 8-4-4-4-12.
fn uuid(s: &str) -> Result<[u8; 16], Reason> {
    let b = s.as_bytes();
    let bad = || Cow::Borrowed("not a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)");
    if b.len() != 36 || [8, 13, 18, 23].iter().any(|&i| b[i] != b'-') {
        return Err(bad());
    }
    let mut out = [0u8; 16];
    let mut nibbles = b.iter().filter(|&&c| c != b'-');
    for byte in &mut out {
        let (Some(&hi), Some(&lo)) = (nibbles.next(), nibbles.next()) else { return Err(bad()) };
        *byte = (hex_digit(hi).ok_or_else(bad)? << 4) | hex_digit(lo).ok_or_else(bad)?;
    }
    Ok(out)
}

fn blob(s: &str, format: BlobFormat, out: &mut Vec<u8>) -> Result<(), Reason> {
    let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) else {
        return match format {
            BlobFormat::Hex => Err(Cow::Borrowed("expected 0x followed by hex digits")),
            BlobFormat::Base64 => decode_base64(s, out),
        };
    };
    if !hex.len().is_multiple_of(2) {
        return Err(Cow::Borrowed("odd number of hex digits"));
    }
    let start = out.len();
    for pair in hex.as_bytes().chunks_exact(2) {
        match (hex_digit(pair[0]), hex_digit(pair[1])) {
            (Some(hi), Some(lo)) => out.push((hi << 4) | lo),
            _ => {
                out.truncate(start);
                return Err(Cow::Borrowed("not a hex digit"));
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Literals

/// A cursor over the field text. Positions only ever stop on ASCII delimiters, so they are
/// always char boundaries.
#[derive(Clone, Copy)]
struct Src<'a> {
    text: &'a str,
    pos: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    /// `'...'`, `''` for a quote.
    Single,
    /// `"..."`: JSON backslash escapes, and `""` for a quote.
    Double,
    /// `$$...$$`, no escapes.
    Dollar,
}

/// A quoted string: its kind, the byte range of its content, and whether it has escapes.
struct Quoted {
    kind: Quote,
    start: usize,
    end: usize,
    escaped: bool,
}

fn is_delimiter(b: u8) -> bool {
    b.is_ascii_whitespace() || matches!(b, b',' | b':' | b'[' | b']' | b'{' | b'}' | b'(' | b')' | b'\'' | b'"')
}

impl<'a> Src<'a> {
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }
    fn peek(&self) -> Option<u8> {
        self.bytes().get(self.pos).copied()
    }
    fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }
    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn at_null(&self) -> bool {
        let b = self.bytes();
        b.get(self.pos..self.pos + 4).is_some_and(|w| w.eq_ignore_ascii_case(b"null"))
            && b.get(self.pos + 4).is_none_or(|&c| is_delimiter(c))
    }

    fn at_quote(&self) -> bool {
        match self.peek() {
            Some(b'\'' | b'"') => true,
            Some(b'$') => self.bytes().get(self.pos + 1) == Some(&b'$'),
            _ => false,
        }
    }

    /// Consumes a quoted string starting here.
    fn quoted<'t>(&mut self, ty: &'t ColumnType) -> Parsed<'t, Quoted> {
        let open = self.pos;
        let b = self.bytes();
        let (kind, start) = match b.get(open) {
            Some(b'\'') => (Quote::Single, open + 1),
            Some(b'"') => (Quote::Double, open + 1),
            _ => (Quote::Dollar, open + 2),
        };
        let mut i = start;
        let mut escaped = false;
        let unterminated = || fail(ty, open, b.len(), "unterminated string");
        loop {
            let Some(&c) = b.get(i) else { return Err(unterminated()) };
            match (kind, c) {
                (Quote::Single, b'\'') | (Quote::Double, b'"') => {
                    if b.get(i + 1) == Some(&c) {
                        escaped = true;
                        i += 2;
                    } else {
                        self.pos = i + 1;
                        return Ok(Quoted { kind, start, end: i, escaped });
                    }
                }
                (Quote::Double, b'\\') => {
                    escaped = true;
                    i += 2;
                }
                (Quote::Dollar, b'$') if b.get(i + 1) == Some(&b'$') => {
                    self.pos = i + 2;
                    return Ok(Quoted { kind, start, end: i, escaped });
                }
                _ => i += 1,
            }
        }
    }

    /// Consumes a bare token (anything up to a delimiter) and returns its start.
    fn bare_token(&mut self) -> usize {
        let start = self.pos;
        while self.peek().is_some_and(|b| !is_delimiter(b)) {
            self.pos += 1;
        }
        start
    }

    /// Skips one value without interpreting it (to find where UDT entries end). Iterative:
    /// the nesting of the text, unlike that of the type, is the user's to choose.
    fn skip_value<'t>(&mut self, ty: &'t ColumnType) -> Parsed<'t> {
        self.skip_ws();
        let mut depth = 0usize;
        let start = self.pos;
        loop {
            match self.peek() {
                None if depth == 0 => return Ok(()),
                None => return Err(fail(ty, start, self.pos, "unterminated literal")),
                Some(b',') if depth == 0 => return Ok(()),
                Some(b']' | b'}' | b')') => {
                    if depth == 0 {
                        return Ok(());
                    }
                    depth -= 1;
                    self.pos += 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                Some(b'[' | b'{' | b'(') => {
                    depth += 1;
                    self.pos += 1;
                }
                Some(_) if self.at_quote() => {
                    self.quoted(ty)?;
                }
                Some(_) => self.pos += 1,
            }
        }
    }
}

/// Appends the content of a quoted string with its escapes resolved.
fn unescape_into<'t>(ty: &'t ColumnType, src: &Src<'_>, q: &Quoted, out: &mut Vec<u8>) -> Parsed<'t> {
    let raw = &src.text[q.start..q.end];
    if !q.escaped {
        out.extend_from_slice(raw.as_bytes());
        return Ok(());
    }
    let b = raw.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let quote_pair = matches!((q.kind, c), (Quote::Single, b'\'') | (Quote::Double, b'"'));
        if quote_pair {
            out.push(c);
            i += 2;
        } else if q.kind == Quote::Double && c == b'\\' {
            let at = q.start + i;
            let bad = |reason: &'static str| fail(ty, at, at + 2, reason);
            let simple = match b.get(i + 1) {
                Some(b'"') => b'"',
                Some(b'\\') => b'\\',
                Some(b'/') => b'/',
                Some(b'b') => 0x08,
                Some(b'f') => 0x0C,
                Some(b'n') => b'\n',
                Some(b'r') => b'\r',
                Some(b't') => b'\t',
                Some(b'u') => 0,
                _ => return Err(bad("unknown escape sequence")),
            };
            if b[i + 1] != b'u' {
                out.push(simple);
                i += 2;
                continue;
            }
            let unit = |j: usize| -> Option<u32> {
                let digits = b.get(j..j + 4)?;
                digits.iter().try_fold(0u32, |v, &d| Some(v * 16 + u32::from(hex_digit(d)?)))
            };
            let high = unit(i + 2).ok_or_else(|| bad("expected four hex digits after \\u"))?;
            let (code, used) = if (0xD800..0xDC00).contains(&high) {
                let low = (b.get(i + 6..i + 8) == Some(b"\\u")).then(|| unit(i + 8)).flatten();
                match low {
                    Some(low) if (0xDC00..0xE000).contains(&low) => {
                        (0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00), 12)
                    }
                    _ => return Err(bad("unpaired UTF-16 surrogate")),
                }
            } else {
                (high, 6)
            };
            let ch = char::from_u32(code).ok_or_else(|| bad("unpaired UTF-16 surrogate"))?;
            let mut utf8 = [0u8; 4];
            out.extend_from_slice(ch.encode_utf8(&mut utf8).as_bytes());
            i += used;
        } else {
            out.push(c);
            i += 1;
        }
    }
    Ok(())
}

/// A container literal starting at `src` (whitespace already skipped).
fn literal<'t>(ty: &'t ColumnType, src: &mut Src<'_>, opts: &TextOptions, out: &mut Vec<u8>) -> Parsed<'t> {
    let open_at = src.pos;
    let opened = |src: &mut Src<'_>, pairs: &[(u8, u8)], what: &'static str| -> Parsed<'t, u8> {
        match pairs.iter().find(|(open, _)| src.peek() == Some(*open)) {
            Some(&(_, close)) => {
                src.pos += 1;
                Ok(close)
            }
            None => Err(fail(ty, open_at, src.text.len(), what)),
        }
    };
    match ty {
        ColumnType::List(e) => {
            let close = opened(src, &[(b'[', b']')], "expected '[' to start a list")?;
            counted_sequence(ty, e, src, close, opts, out)
        }
        ColumnType::Set(e) => {
            let close = opened(src, &[(b'{', b'}'), (b'[', b']')], "expected '{' or '[' to start a set")?;
            counted_sequence(ty, e, src, close, opts, out)
        }
        ColumnType::Map(k, v) => {
            opened(src, &[(b'{', b'}')], "expected '{' to start a map")?;
            let count_at = out.len();
            out.extend_from_slice(&[0; 4]);
            let mut n = 0usize;
            let more = |src: &mut Src<'_>| -> Parsed<'t, bool> { list_separator(ty, src, b'}') };
            src.skip_ws();
            if !src.eat(b'}') {
                loop {
                    map_key(k, src, opts, out)?;
                    src.skip_ws();
                    if !src.eat(b':') {
                        return Err(fail(ty, src.pos, src.text.len(), "expected ':' after a map key"));
                    }
                    element(v, src, opts, out, Framing::Element)?;
                    n += 1;
                    if !more(src)? {
                        break;
                    }
                }
            }
            patch_count(ty, out, count_at, n, open_at, src.pos)
        }
        ColumnType::Tuple(types) => {
            let close = opened(src, &[(b'(', b')'), (b'[', b']')], "expected '(' or '[' to start a tuple")?;
            let mut n = 0usize;
            src.skip_ws();
            if !src.eat(close) {
                loop {
                    let Some(component) = types.get(n) else {
                        return Err(fail(
                            ty,
                            src.pos,
                            src.text.len(),
                            format!("a {ty} has {} components", types.len()),
                        ));
                    };
                    element(component, src, opts, out, Framing::Bytes)?;
                    n += 1;
                    if !list_separator(ty, src, close)? {
                        break;
                    }
                }
            }
            Ok(())
        }
        ColumnType::Udt(udt) => {
            opened(src, &[(b'{', b'}')], "expected '{' to start a UDT")?;
            udt_literal(ty, udt, src, opts, out)
        }
        ColumnType::Vector(e, dimension) => {
            opened(src, &[(b'[', b']')], "expected '[' to start a vector")?;
            let framing = match e.vector_fixed_len() {
                Some(size) => Framing::Fixed(size),
                None => Framing::VintLength,
            };
            let mut n = 0u64;
            src.skip_ws();
            if !src.eat(b']') {
                loop {
                    element(e, src, opts, out, framing)?;
                    n += 1;
                    if !list_separator(ty, src, b']')? {
                        break;
                    }
                }
            }
            if n != u64::from(*dimension) {
                return Err(fail(ty, open_at, src.pos, format!("{n} elements for dimension {dimension}")));
            }
            Ok(())
        }
        _ => Err(fail(ty, open_at, src.text.len(), "not a container type")),
    }
}

/// After an element: `,` (true: more follow) or the closing bracket (false).
fn list_separator<'t>(ty: &'t ColumnType, src: &mut Src<'_>, close: u8) -> Parsed<'t, bool> {
    src.skip_ws();
    if src.eat(b',') {
        Ok(true)
    } else if src.eat(close) {
        Ok(false)
    } else {
        Err(fail(ty, src.pos, src.text.len(), format!("expected ',' or '{}'", char::from(close))))
    }
}

fn counted_sequence<'t>(
    ty: &'t ColumnType,
    e: &'t ColumnType,
    src: &mut Src<'_>,
    close: u8,
    opts: &TextOptions,
    out: &mut Vec<u8>,
) -> Parsed<'t> {
    let open_at = src.pos.saturating_sub(1);
    let count_at = out.len();
    out.extend_from_slice(&[0; 4]);
    let mut n = 0usize;
    src.skip_ws();
    if !src.eat(close) {
        loop {
            element(e, src, opts, out, Framing::Element)?;
            n += 1;
            if !list_separator(ty, src, close)? {
                break;
            }
        }
    }
    patch_count(ty, out, count_at, n, open_at, src.pos)
}

fn patch_count<'t>(ty: &'t ColumnType, out: &mut [u8], at: usize, n: usize, start: usize, end: usize) -> Parsed<'t> {
    let n = i32::try_from(n).map_err(|_| fail(ty, start, end, "more than 2^31-1 elements"))?;
    out[at..at + 4].copy_from_slice(&n.to_be_bytes());
    Ok(())
}

/// How an element is framed inside its container.
/// A map key. JSON keys are strings, so a tuple or frozen collection key may come as one
/// whose content is its literal (`{"[1,2]": "x"}`, as DSBulk and the JSON formatter write it).
fn map_key<'t>(k: &'t ColumnType, src: &mut Src<'_>, opts: &TextOptions, out: &mut Vec<u8>) -> Parsed<'t> {
    src.skip_ws();
    if !(k.is_container() && src.peek() == Some(b'"')) {
        return element(k, src, opts, out, Framing::Element);
    }
    let q = src.quoted(k)?;
    let mut content = Vec::new();
    unescape_into(k, src, &q, &mut content)?;
    // An error inside the key points at the whole key: its positions are the string's, not the field's.
    let whole = |e: Fail<'t>| Fail { start: q.start, end: q.end, ..e };
    let text = std::str::from_utf8(&content).map_err(|_| fail(k, q.start, q.end, "not UTF-8"))?;
    let mut inner = Src { text, pos: 0 };
    let value_at = out.len();
    out.extend_from_slice(&[0; 4]);
    inner.skip_ws();
    literal(k, &mut inner, opts, out).map_err(whole)?;
    inner.skip_ws();
    if !inner.at_end() {
        return Err(fail(k, q.start, q.end, "unexpected text after the key's value"));
    }
    patch_length(k, out, value_at, src.text.len())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Framing {
    /// `[bytes]`: i32 length, -1 for null (a tuple component or UDT field).
    Bytes,
    /// `[bytes]` of a list or set element or a map key or value, never null: Cassandra
    /// refuses null inside collections (5.0 answers a bound one with a server error, a
    /// NullPointerException, that says nothing of the row).
    Element,
    /// A vector element of a fixed-size type: the bare bytes.
    Fixed(u64),
    /// A vector element of a variable-size type: unsigned vint length, then the bytes.
    VintLength,
}

fn element<'t>(
    ty: &'t ColumnType,
    src: &mut Src<'_>,
    opts: &TextOptions,
    out: &mut Vec<u8>,
    framing: Framing,
) -> Parsed<'t> {
    src.skip_ws();
    let start = src.pos;
    if src.at_null() {
        src.pos += 4;
        match framing {
            Framing::Bytes => {}
            Framing::Element => {
                return Err(fail(ty, start, src.pos, "collection elements cannot be null (Cassandra refuses them)"))
            }
            Framing::Fixed(_) | Framing::VintLength => {
                return Err(fail(ty, start, src.pos, "vector elements cannot be null"))
            }
        }
        out.extend_from_slice(&(-1i32).to_be_bytes());
        return Ok(());
    }
    let value_at = out.len();
    if matches!(framing, Framing::Bytes | Framing::Element) {
        out.extend_from_slice(&[0; 4]);
    }
    element_body(ty, src, opts, out)?;
    match framing {
        Framing::Bytes | Framing::Element => patch_length(ty, out, value_at, src.text.len()),
        Framing::Fixed(size) => {
            if (out.len() - value_at) as u64 == size {
                Ok(())
            } else {
                Err(fail(ty, start, src.pos, format!("vector elements of this type take {size} bytes")))
            }
        }
        Framing::VintLength => {
            insert_vint_prefix(out, value_at);
            Ok(())
        }
    }
}

fn element_body<'t>(ty: &'t ColumnType, src: &mut Src<'_>, opts: &TextOptions, out: &mut Vec<u8>) -> Parsed<'t> {
    if ty.is_container() {
        return literal(ty, src, opts, out);
    }
    if src.at_quote() {
        let q = src.quoted(ty)?;
        return match ty {
            ColumnType::Text => unescape_into(ty, src, &q, out),
            ColumnType::Ascii => {
                let from = out.len();
                unescape_into(ty, src, &q, out)?;
                match out[from..].iter().position(|b| !b.is_ascii()) {
                    None => Ok(()),
                    Some(_) => Err(fail(ty, q.start, q.end, "not ASCII")),
                }
            }
            _ if q.escaped => Err(fail(ty, q.start, q.end, "escape sequences are not allowed here")),
            _ => {
                let content = &src.text[q.start..q.end];
                let trimmed = content.trim_start();
                let at = q.start + (content.len() - trimmed.len());
                scalar(ty, trimmed.trim_end(), at, opts, out)
            }
        };
    }
    let start = src.bare_token();
    let token = &src.text[start..src.pos];
    if token.is_empty() {
        return Err(fail(ty, start, src.text.len(), "expected a value"));
    }
    if matches!(ty, ColumnType::Text | ColumnType::Ascii) {
        return Err(fail(ty, start, src.pos, "text inside a literal must be quoted ('...' or \"...\")"));
    }
    // A bare true/false is literal syntax (CQL and JSON), whatever the boolean words are.
    if *ty == ColumnType::Boolean && (token == "true" || token == "false") {
        out.push(u8::from(token == "true"));
        return Ok(());
    }
    scalar(ty, token, start, opts, out)
}

/// Which declared field a key names: unquoted keys fold case, quoted ones match exactly
/// (or, failing that, case-insensitively if only one field matches that way).
fn udt_key<'t>(ty: &'t ColumnType, udt: &UdtType, src: &mut Src<'_>, out: &mut Vec<u8>) -> Parsed<'t, usize> {
    src.skip_ws();
    let start = src.pos;
    let index = if src.at_quote() {
        let q = src.quoted(ty)?;
        // The unescaped key lives at the end of `out` just long enough to compare it.
        let mark = out.len();
        unescape_into(ty, src, &q, out)?;
        let key = &out[mark..];
        let exact = udt.fields.iter().position(|(name, _)| name.as_bytes() == key);
        let index = exact.or_else(|| {
            let mut matches =
                udt.fields.iter().enumerate().filter(|(_, (name, _))| name.as_bytes().eq_ignore_ascii_case(key));
            match (matches.next(), matches.next()) {
                (Some((i, _)), None) => Some(i),
                _ => None,
            }
        });
        out.truncate(mark);
        index
    } else {
        while src.peek().is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_') {
            src.pos += 1;
        }
        let key = &src.bytes()[start..src.pos];
        if key.is_empty() {
            return Err(fail(ty, start, src.text.len(), "expected a field name"));
        }
        udt.fields.iter().position(|(name, _)| {
            name.len() == key.len() && name.bytes().zip(key).all(|(n, k)| n == k.to_ascii_lowercase())
        })
    };
    let Some(index) = index else {
        return Err(fail(ty, start, src.pos, format!("no such field in {ty}")));
    };
    src.skip_ws();
    if !src.eat(b':') {
        return Err(fail(ty, src.pos, src.text.len(), "expected ':' after a field name"));
    }
    Ok(index)
}

/// A field written with no value (`{street: , num: 5}`) is null: cqlsh COPY TO writes null
/// fields so, and its COPY FROM reads them back (an empty text is always quoted, `''`).
fn no_value(mut value: Src<'_>) -> bool {
    value.skip_ws();
    matches!(value.peek(), Some(b',' | b'}'))
}

fn skip_field_value<'t>(ty: &'t ColumnType, scan: &mut Src<'_>) -> Parsed<'t> {
    if no_value(*scan) {
        scan.skip_ws();
        return Ok(());
    }
    scan.skip_value(ty)
}

/// A UDT literal after its `{`. Fields may come in any order; they are written in declared
/// order, up to the last one mentioned (unmentioned ones before it are null). The text is
/// scanned once per written field instead of buffering entries: no scratch memory.
fn udt_literal<'t>(
    ty: &'t ColumnType,
    udt: &'t UdtType,
    src: &mut Src<'_>,
    opts: &TextOptions,
    out: &mut Vec<u8>,
) -> Parsed<'t> {
    let body = *src;
    // Pass 1: check every key, find the last field mentioned and the end of the literal.
    let mut last: Option<usize> = None;
    let mut scan = body;
    scan.skip_ws();
    if !scan.eat(b'}') {
        loop {
            let index = udt_key(ty, udt, &mut scan, out)?;
            last = last.max(Some(index));
            skip_field_value(ty, &mut scan)?;
            if !list_separator(ty, &mut scan, b'}')? {
                break;
            }
        }
    }
    let end = scan.pos;
    for (i, (_, field_type)) in udt.fields.iter().enumerate().take(last.map_or(0, |l| l + 1)) {
        let mut found = None;
        let mut scan = body;
        scan.skip_ws();
        if !scan.eat(b'}') {
            loop {
                scan.skip_ws();
                let key_at = scan.pos;
                let index = udt_key(ty, udt, &mut scan, out)?;
                scan.skip_ws();
                if index == i {
                    if found.is_some() {
                        return Err(fail(ty, key_at, scan.pos, "field given twice"));
                    }
                    found = Some(scan);
                }
                skip_field_value(ty, &mut scan)?;
                if !list_separator(ty, &mut scan, b'}')? {
                    break;
                }
            }
        }
        match found {
            Some(value) if no_value(value) => out.extend_from_slice(&(-1i32).to_be_bytes()),
            Some(mut value) => {
                element(field_type, &mut value, opts, out, Framing::Bytes)?;
                value.skip_ws();
                if !matches!(value.peek(), Some(b',' | b'}')) {
                    return Err(fail(field_type, value.pos, value.text.len(), "unexpected text after the value"));
                }
            }
            None => out.extend_from_slice(&(-1i32).to_be_bytes()),
        }
    }
    src.pos = end;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Bytes to text

/// Appends the text of a value (without its `[bytes]` length) in the form [`encode_text`]
/// reads back: bare at the top level, CQL literal syntax for containers. Fails on bytes that
/// are not a valid value (and, locally, on varints too long to render). On error `out` is
/// left as it was.
pub fn format_text(ty: &ColumnType, bytes: &[u8], out: &mut String) -> Result<(), ProtocolError> {
    format_in(ty, bytes, Style::Cql, out)
}

/// As [`format_text`], for a file: a UDT's null fields are written as nothing (`Style::CqlFile`).
pub(crate) fn format_text_file(ty: &ColumnType, bytes: &[u8], out: &mut String) -> Result<(), ProtocolError> {
    format_in(ty, bytes, Style::CqlFile, out)
}

/// Appends the JSON text of `bytes` (a value of `ty`) to `out`, as [`super::json_out`]
/// describes it; on error `out` is left as it was.
pub fn format_json(ty: &ColumnType, bytes: &[u8], out: &mut String) -> Result<(), ProtocolError> {
    format_in(ty, bytes, Style::Json, out)
}

fn format_in(ty: &ColumnType, bytes: &[u8], style: Style, out: &mut String) -> Result<(), ProtocolError> {
    let start = out.len();
    let result = format_value(ty, Reader::new(bytes), out, true, style);
    if result.is_err() {
        out.truncate(start);
    }
    result
}

/// The two spellings of a value: CQL literal text, or JSON. They differ only in
/// punctuation and in how scalars are wrapped, so one walk over the bytes writes both.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Cql,
    /// CQL literals for a file `cqlsh COPY FROM` reads: as `Cql`, but a UDT writes every field
    /// and a null one as nothing (`{street: 'x', num: , tags: }`), as cqlsh COPY TO does: its
    /// COPY FROM refuses `null` there, and `{}` inside a list.
    CqlFile,
    Json,
}

impl Style {
    fn separator(self) -> &'static str {
        if self == Style::Json { "," } else { ", " }
    }

    fn key_separator(self) -> &'static str {
        if self == Style::Json { ":" } else { ": " }
    }
}

fn format_value(ty: &ColumnType, r: Reader<'_>, out: &mut String, top: bool, style: Style) -> Result<(), ProtocolError> {
    if r.is_empty() && ty.allows_empty() {
        if !top || style == Style::Json {
            out.push_str("null");
        }
        return Ok(());
    }
    if style == Style::Json && !ty.is_container() {
        // A JSON scalar is its top-level CQL text, bare when it is a JSON number.
        let start = out.len();
        format_value(ty, r, out, true, Style::Cql)?;
        super::json_out::finish_scalar(ty, out, start);
        return Ok(());
    }
    // Values CQL writes quoted inside literals (their text has ':' or '-' in it).
    let quoted = !top && matches!(ty, ColumnType::Timestamp | ColumnType::Date | ColumnType::Time | ColumnType::Inet);
    if quoted {
        out.push('\'');
    }
    match ty {
        ColumnType::Ascii | ColumnType::Text => {
            check_value(ty, r)?;
            let s = std::str::from_utf8(r.rest()).unwrap_or_default();
            if top {
                out.push_str(s);
            } else {
                push_cql_string(s, out);
            }
        }
        ColumnType::Blob | ColumnType::Custom(_) => {
            out.push_str("0x");
            push_hex(r.rest(), out);
        }
        ColumnType::Boolean => {
            let b = fixed::<1>(&r, "boolean value", true)?.unwrap_or_default();
            out.push_str(if b[0] != 0 { "true" } else { "false" });
        }
        ColumnType::Tinyint => {
            let _ = write!(out, "{}", i8::from_be_bytes(fixed::<1>(&r, "tinyint value", false)?.unwrap_or_default()));
        }
        ColumnType::Smallint => {
            let _ = write!(out, "{}", i16::from_be_bytes(fixed::<2>(&r, "smallint value", false)?.unwrap_or_default()));
        }
        ColumnType::Int => {
            let _ = write!(out, "{}", i32::from_be_bytes(fixed::<4>(&r, "int value", true)?.unwrap_or_default()));
        }
        ColumnType::Bigint | ColumnType::Counter => {
            // The same check name as decoding and validation give (the error vectors assert it).
            let field = if matches!(ty, ColumnType::Counter) { "counter value" } else { "bigint value" };
            let _ = write!(out, "{}", i64::from_be_bytes(fixed::<8>(&r, field, true)?.unwrap_or_default()));
        }
        ColumnType::Varint => push_big_decimal(&r, r.rest(), out)?,
        ColumnType::Decimal => {
            let mut r = r;
            let scale = r.i32("decimal scale")?;
            if r.is_empty() {
                return Err(r.error("decimal unscaled value", "missing (needs at least one byte)"));
            }
            let digits_at = out.len() + usize::from(r.rest()[0] >= 0x80);
            push_big_decimal(&r, r.rest(), out)?;
            push_decimal_point(out, digits_at, scale);
        }
        ColumnType::Float => {
            push_float(f32::from_be_bytes(fixed::<4>(&r, "float value", true)?.unwrap_or_default()), f32::MIN_POSITIVE.into(), out);
        }
        ColumnType::Double => {
            push_float(f64::from_be_bytes(fixed::<8>(&r, "double value", true)?.unwrap_or_default()), f64::MIN_POSITIVE, out);
        }
        ColumnType::Timestamp => {
            let millis = i64::from_be_bytes(fixed::<8>(&r, "timestamp value", true)?.unwrap_or_default());
            temporal::format_timestamp(millis, out);
        }
        ColumnType::Date => {
            let raw = u32::from_be_bytes(fixed::<4>(&r, "date value", false)?.unwrap_or_default());
            temporal::format_date(i64::from(raw) - DATE_EPOCH, out);
        }
        ColumnType::Time => {
            let nanos = i64::from_be_bytes(fixed::<8>(&r, "time value", false)?.unwrap_or_default());
            temporal::format_time(check_time(nanos, &r)?, out);
        }
        ColumnType::Duration => {
            let (months, days, nanos) = read_duration(r)?;
            temporal::format_duration(months, days, nanos, out);
        }
        ColumnType::Uuid => push_uuid(&fixed::<16>(&r, "uuid value", true)?.unwrap_or_default(), out),
        ColumnType::Timeuuid => {
            let bytes = fixed::<16>(&r, "timeuuid value", true)?.unwrap_or_default();
            check_timeuuid(&bytes, &r)?;
            push_uuid(&bytes, out);
        }
        ColumnType::Inet => match inet_from_bytes(r.rest()) {
            Some(ip) => {
                let _ = write!(out, "{ip}");
            }
            None => return Err(r.error("inet value", format!("address of {} bytes, expected 4 or 16", r.remaining()))),
        },
        ColumnType::List(e) | ColumnType::Set(e) => {
            let (open, close, field) = match ty {
                ColumnType::List(_) => ('[', ']', "list element"),
                _ if style == Style::Json => ('[', ']', "set element"),
                _ => ('{', '}', "set element"),
            };
            let mut r = r;
            let n = collection_count(&mut r, "collection element count", 1)?;
            out.push(open);
            for i in 0..n {
                if i > 0 {
                    out.push_str(style.separator());
                }
                format_element(e, wire_element(&mut r, field)?, out, style)?;
            }
            no_trailing(&r, "collection")?;
            out.push(close);
        }
        ColumnType::Map(k, v) => {
            let mut r = r;
            let n = collection_count(&mut r, "map entry count", 2)?;
            out.push('{');
            for i in 0..n {
                if i > 0 {
                    out.push_str(style.separator());
                }
                let key = wire_element(&mut r, "map key")?;
                if style == Style::Json {
                    // A JSON key is a string: a scalar key's CQL text, a tuple's or frozen
                    // collection's JSON text (`"[1,2]"`), which DSBulk parses as JSON.
                    let start = out.len();
                    let key_style = if k.is_container() { Style::Json } else { Style::Cql };
                    match key {
                        Some(key) => format_value(k, key, out, true, key_style)?,
                        None => out.push_str("null"),
                    }
                    super::json_out::quote_in_place(out, start);
                } else {
                    format_element(k, key, out, style)?;
                }
                out.push_str(style.key_separator());
                format_element(v, wire_element(&mut r, "map value")?, out, style)?;
            }
            no_trailing(&r, "map")?;
            out.push('}');
        }
        ColumnType::Tuple(types) => {
            let mut r = r;
            let (open, close) = if style == Style::Json { ('[', ']') } else { ('(', ')') };
            out.push(open);
            for (i, component) in types.iter().enumerate() {
                if r.is_empty() {
                    break;
                }
                if i > 0 {
                    out.push_str(style.separator());
                }
                format_element(component, wire_element(&mut r, "tuple component")?, out, style)?;
            }
            no_trailing(&r, "tuple component")?;
            out.push(close);
        }
        ColumnType::Udt(udt) => {
            let mut r = r;
            out.push('{');
            for (i, (name, field_type)) in udt.fields.iter().enumerate() {
                if r.is_empty() && style != Style::CqlFile {
                    break;
                }
                let value = if r.is_empty() { None } else { wire_element(&mut r, "udt field")? };
                if i > 0 {
                    out.push_str(style.separator());
                }
                if style == Style::Json {
                    super::json_out::push_json_string(name, out);
                } else {
                    push_field_name(name, out);
                }
                out.push_str(style.key_separator());
                if value.is_some() || style != Style::CqlFile {
                    format_element(field_type, value, out, style)?;
                }
            }
            no_trailing(&r, "udt field")?;
            out.push('}');
        }
        ColumnType::Vector(e, dimension) => {
            let mut r = r;
            let fixed_len = e.vector_fixed_len();
            if let Some(size) = fixed_len {
                let want = size.saturating_mul(u64::from(*dimension));
                if r.remaining() as u64 != want {
                    return Err(r.error(
                        "vector value",
                        format!("{dimension} elements of {size} bytes need {want} bytes, got {}", r.remaining()),
                    ));
                }
            }
            out.push('[');
            for i in 0..*dimension {
                if i > 0 {
                    out.push_str(style.separator());
                }
                let item = match fixed_len {
                    Some(size) => r.sub(size as usize, "vector element")?,
                    None => vector_element(&mut r)?,
                };
                format_value(e, item, out, false, style)?;
            }
            no_trailing(&r, "vector value")?;
            out.push(']');
        }
    }
    if quoted {
        out.push('\'');
    }
    Ok(())
}

fn format_element(ty: &ColumnType, value: Option<Reader<'_>>, out: &mut String, style: Style) -> Result<(), ProtocolError> {
    match value {
        Some(r) => format_value(ty, r, out, false, style),
        None => {
            out.push_str("null");
            Ok(())
        }
    }
}

fn push_cql_string(s: &str, out: &mut String) {
    out.push('\'');
    for (i, part) in s.split('\'').enumerate() {
        if i > 0 {
            out.push_str("''");
        }
        out.push_str(part);
    }
    out.push('\'');
}

/// Lower-case identifiers bare, anything else double-quoted (`""` for a quote).
fn push_field_name(name: &str, out: &mut String) {
    let bare = name.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if bare {
        out.push_str(name);
    } else {
        out.push('"');
        for (i, part) in name.split('"').enumerate() {
            if i > 0 {
                out.push_str("\"\"");
            }
            out.push_str(part);
        }
        out.push('"');
    }
}

fn push_big_decimal(r: &Reader<'_>, bytes: &[u8], out: &mut String) -> Result<(), ProtocolError> {
    bignum::write_decimal(bytes, out).map_err(|_| {
        ProtocolError::local(
            "varint value",
            r.offset(),
            format!("{} bytes is too long to render in decimal (limit {})", bytes.len(), bignum::MAX_RENDERED_BYTES),
        )
    })
}

/// Turns the unscaled digits written at `digits_at..` into `unscaled * 10^-scale` as Java's
/// `BigDecimal.toString` writes it (and so Cassandra's `SELECT JSON`, DSBulk and cqlsh's Python
/// `Decimal`): plain (`123.45`, `0.000001`) when the scale is positive and the exponent of the
/// first digit is at least -6, else one digit before the point and a signed exponent
/// (`1.2345E-7`, `1E+10`, `-1.2E+3`).
fn push_decimal_point(out: &mut String, digits_at: usize, scale: i32) {
    let digits = (out.len() - digits_at) as i64;
    let scale = i64::from(scale);
    if scale == 0 {
        return;
    }
    let adjusted = digits - 1 - scale;
    if scale > 0 && adjusted >= -6 {
        if scale < digits {
            out.insert(out.len() - scale as usize, '.');
        } else {
            let zeros = (scale - digits) as usize;
            out.insert_str(digits_at, "0.");
            for _ in 0..zeros {
                out.insert(digits_at + 2, '0');
            }
        }
        return;
    }
    if digits > 1 {
        out.insert(digits_at + 1, '.');
    }
    // Never 0 here (a negative scale makes it at least 1, a positive one came here below -6),
    // so Java always writes the exponent, with its sign.
    let _ = write!(out, "E{adjusted:+}");
}

fn push_float<T: fmt::Display + fmt::LowerExp + Into<f64> + Copy + std::str::FromStr + PartialEq>(
    v: T,
    smallest_normal: f64,
    out: &mut String,
) {
    let wide: f64 = v.into();
    if wide.is_nan() {
        out.push_str("NaN");
    } else if wide.is_infinite() {
        out.push_str(if wide > 0.0 { "Infinity" } else { "-Infinity" });
    } else if wide == 0.0 || (1e-5..1e16).contains(&wide.abs()) {
        // Rust prints the shortest text that parses back to the same value.
        let _ = write!(out, "{v}");
    } else {
        let start = out.len();
        let _ = write!(out, "{v:e}");
        if wide.abs() < smallest_normal {
            java_two_digits(v, out, start);
        }
    }
}

/// Where the shortest text has one digit, Java's `toString` writes the two-digit decimal nearest
/// the value (`4.9E-324`, not `5e-324`), and DSBulk refuses any other digits for a float or
/// double. Only subnormals can differ (a normal value's nearest two digits are `d.0`: its
/// precision is far finer than a tenth of a digit), so only they come here.
fn java_two_digits<T: fmt::LowerExp + Copy + std::str::FromStr + PartialEq>(v: T, out: &mut String, start: usize) {
    if out[start..].contains('.') {
        return;
    }
    let two = format!("{v:.1e}");
    let round_trips = two.parse::<T>().is_ok_and(|back| back == v);
    if round_trips && !two.contains(".0e") {
        out.truncate(start);
        out.push_str(&two);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(text: &str) -> ColumnType {
        ColumnType::parse_cql(text).unwrap()
    }

    /// The value bytes (without the length) for `field`, with default options.
    fn enc(t: &str, field: &str) -> Result<Vec<u8>, FieldError> {
        enc_with(t, field, &TextOptions::default())
    }

    fn enc_with(t: &str, field: &str, opts: &TextOptions) -> Result<Vec<u8>, FieldError> {
        let mut out = vec![0xEE];
        let result = encode_text(&ty(t), field, opts, &mut out);
        match result {
            Ok(()) => {
                let len = i32::from_be_bytes([out[1], out[2], out[3], out[4]]);
                assert!(len == -1 || len as usize == out.len() - 5, "length prefix");
                Ok(out[5..].to_vec())
            }
            Err(e) => {
                assert_eq!(out, [0xEE], "output restored after an error");
                Err(e)
            }
        }
    }

    fn ok(t: &str, field: &str) -> Vec<u8> {
        enc(t, field).unwrap_or_else(|e| panic!("{t} {field:?}: {e}"))
    }

    fn bad(t: &str, field: &str) -> FieldError {
        match enc(t, field) {
            Ok(bytes) => panic!("{t} {field:?} accepted as {bytes:02x?}"),
            Err(e) => e,
        }
    }

    fn fmt(t: &str, bytes: &[u8]) -> String {
        let mut out = String::new();
        format_text(&ty(t), bytes, &mut out).unwrap();
        out
    }

    #[test]
    fn nulls_follow_the_markers() {
        let mut out = Vec::new();
        encode_text(&ty("int"), "", &TextOptions::default(), &mut out).unwrap();
        assert_eq!(out, [0xFF; 4]);
        let opts = TextOptions { null_markers: vec!["\\N".into(), "NULL".into()], ..TextOptions::default() };
        out.clear();
        encode_text(&ty("text"), "NULL", &opts, &mut out).unwrap();
        assert_eq!(out, [0xFF; 4]);
        out.clear();
        encode_text(&ty("text"), "", &opts, &mut out).unwrap();
        assert_eq!(out, [0, 0, 0, 0]);
        // Only exact matches count.
        assert!(enc_with("text", "null", &opts).is_ok());
        assert_eq!(enc_with("int", " ", &opts).unwrap_err().reason, "empty");
    }

    #[test]
    fn booleans() {
        for word in ["true", "TRUE", "yes", "Y", "1", "t", "On"] {
            assert_eq!(ok("boolean", word), [1], "{word}");
        }
        for word in ["false", "No", "n", "0", "F", "OFF"] {
            assert_eq!(ok("boolean", word), [0], "{word}");
        }
        for word in ["2", "yess", "tru", "-1"] {
            bad("boolean", word);
        }
        let opts =
            TextOptions { true_words: vec!["ja".into()], false_words: vec!["nein".into()], ..Default::default() };
        assert_eq!(enc_with("boolean", "JA", &opts).unwrap(), [1]);
        assert_eq!(
            enc_with("boolean", "true", &opts).unwrap_err(),
            FieldError {
                expected: "boolean".into(),
                value: "true".into(),
                offset: 0,
                reason: "not a boolean spelling".into()
            }
        );
    }

    #[test]
    fn integers() {
        assert_eq!(ok("tinyint", "-128"), [0x80]);
        assert_eq!(ok("smallint", " +32767 "), [0x7F, 0xFF]);
        assert_eq!(ok("int", "-2147483648"), [0x80, 0, 0, 0]);
        assert_eq!(ok("bigint", "-9223372036854775808"), [0x80, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(ok("counter", "007"), [0, 0, 0, 0, 0, 0, 0, 7]);
        for (t, s) in [
            ("tinyint", "128"),
            ("smallint", "-32769"),
            ("int", "2147483648"),
            ("bigint", "9223372036854775808"),
            ("int", "1.5"),
            ("int", "1e-3"),
            ("int", "1e10"),
            ("int", "1e"),
            ("int", "0x10"),
            ("int", "1 2"),
            ("int", "--1"),
            ("int", "+"),
        ] {
            bad(t, s);
        }
        let e = bad("int", "abc");
        assert_eq!((e.expected.as_str(), e.value.as_str(), e.reason.as_str()), ("int", "abc", "not an integer"));
        // Decimal text whose value is an integer is that integer (DSBulk's rounding
        // UNNECESSARY): the `12.0` a float column with gaps exports as, or `1e3`.
        assert_eq!(ok("int", "12.0"), 12i32.to_be_bytes());
        assert_eq!(ok("bigint", "-1.5E+3"), (-1500i64).to_be_bytes());
        assert_eq!(ok("tinyint", "1e2"), [100]);
        assert_eq!(ok("list<int>", "[1.0, 2e0]"), [0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 2]);
        assert_eq!(bad("tinyint", "1e3").reason, "out of range");
    }

    #[test]
    fn varints_and_decimals() {
        assert_eq!(ok("varint", "128"), [0, 0x80]);
        assert_eq!(ok("varint", "-129"), [0xFF, 0x7F]);
        assert_eq!(ok("varint", "+0"), [0]);
        assert_eq!(ok("decimal", "123.45"), [0, 0, 0, 2, 0x30, 0x39]);
        assert_eq!(ok("decimal", "-1.5"), [0, 0, 0, 1, 0xF1]);
        assert_eq!(ok("decimal", "1E3"), [0xFF, 0xFF, 0xFF, 0xFD, 1]);
        assert_eq!(ok("decimal", "1.5e-3"), [0, 0, 0, 4, 15]);
        assert_eq!(ok("decimal", ".5"), [0, 0, 0, 1, 5]);
        assert_eq!(ok("decimal", "5."), [0, 0, 0, 0, 5]);
        assert_eq!(ok("decimal", "0.00"), [0, 0, 0, 2, 0]);
        assert_eq!(ok("decimal", "1E-2147483647"), [0x7F, 0xFF, 0xFF, 0xFF, 1]);
        assert_eq!(ok("decimal", "1E2147483648"), [0x80, 0, 0, 0, 1]);
        assert_eq!(ok("varint", "12.0"), [12]);
        assert_eq!(ok("varint", "-1e3"), (-1000i16).to_be_bytes());
        for (t, s) in [
            ("varint", "1.5"),
            ("varint", "-"),
            ("varint", "1e-3"),
            ("varint", "1e"),
            ("varint", "12a"),
            ("decimal", "."),
            ("decimal", "1e"),
            ("decimal", "1.2.3"),
            ("decimal", "1E2147483649"),
            ("decimal", "NaN"),
            ("decimal", "1,5"),
        ] {
            bad(t, s);
        }
        let huge = "9".repeat(bignum::MAX_DECIMAL_DIGITS + 1);
        assert!(bad("varint", &huge).reason.contains("digits"));
        assert_eq!(bad("varint", &huge).value.chars().count(), 41);
    }

    #[test]
    fn floats() {
        assert_eq!(ok("float", "1.5"), 1.5f32.to_be_bytes());
        assert_eq!(ok("float", "0.1"), [0x3D, 0xCC, 0xCC, 0xCD]);
        assert_eq!(ok("double", "-0"), (-0.0f64).to_be_bytes());
        assert_eq!(ok("double", "1e300"), 1e300f64.to_be_bytes());
        assert_eq!(ok("double", "NaN"), f64::NAN.to_be_bytes());
        assert_eq!(ok("double", "-nan"), f64::NAN.to_be_bytes());
        // A negative NaN parses with its sign bit set: one NaN goes out, whatever came in.
        assert_eq!(ok("float", "-nan"), f32::NAN.to_be_bytes());
        assert_eq!(ok("float", "Infinity"), f32::INFINITY.to_be_bytes());
        assert_eq!(ok("float", "-inf"), f32::NEG_INFINITY.to_be_bytes());
        for (t, s) in [
            ("float", "3.5e38"),
            ("double", "1e309"),
            ("double", "one"),
            ("double", "1.5f"),
            ("float", "0x1p3"),
            ("double", "Infinityx"),
        ] {
            bad(t, s);
        }
    }

    #[test]
    fn temporal_fields() {
        assert_eq!(ok("timestamp", "2024-01-02T03:04:05Z"), 1_704_164_645_000i64.to_be_bytes());
        assert_eq!(ok("timestamp", "-1"), (-1i64).to_be_bytes());
        let seconds = TextOptions { epoch_unit: EpochUnit::Seconds, ..Default::default() };
        assert_eq!(enc_with("timestamp", "1704164645", &seconds).unwrap(), 1_704_164_645_000i64.to_be_bytes());
        assert_eq!(
            enc_with("timestamp", "9223372036854776", &seconds).unwrap_err(),
            FieldError {
                expected: "timestamp".into(),
                value: "9223372036854776".into(),
                offset: 0,
                reason: "out of range".into()
            }
        );
        let micros = TextOptions { epoch_unit: EpochUnit::Micros, ..Default::default() };
        assert_eq!(enc_with("timestamp", "1704164645123000", &micros).unwrap(), 1_704_164_645_123i64.to_be_bytes());
        assert_eq!(
            enc_with("timestamp", "1704164645123001", &micros).unwrap_err(),
            FieldError {
                expected: "timestamp".into(),
                value: "1704164645123001".into(),
                offset: 0,
                reason: "timestamps hold milliseconds: the sub-millisecond digits would be lost".into()
            }
        );
        let plus_two = TextOptions { zone: ZoneRules::fixed_minutes(120), ..Default::default() };
        assert_eq!(
            enc_with("timestamp", "2024-01-02 05:04:05", &plus_two).unwrap(),
            1_704_164_645_000i64.to_be_bytes()
        );
        assert_eq!(ok("date", "1970-01-01"), [0x80, 0, 0, 0]);
        assert_eq!(ok("date", "-1"), [0x7F, 0xFF, 0xFF, 0xFF]);
        assert_eq!(ok("date", "-2147483648"), [0, 0, 0, 0]);
        assert_eq!(ok("time", "00:00:01"), 1_000_000_000i64.to_be_bytes());
        assert_eq!(ok("time", "86399999999999"), 86_399_999_999_999i64.to_be_bytes());
        assert_eq!(ok("duration", "1mo2d3ns"), [2, 4, 6]);
        assert_eq!(ok("duration", "-1mo2d3ns"), [1, 3, 5]);
        assert_eq!(ok("duration", "P1DT2H"), [0, 2, 0xFC, 0x0D, 0x18, 0xC2, 0xE2, 0x80, 0x00]);
        for (t, s) in [
            ("date", "2147483648"),
            ("date", "2024-02-30"),
            ("time", "86400000000000"),
            ("time", "-1"),
            ("time", "1:00:00"),
            ("duration", "1 h"),
            ("duration", "5"),
            ("timestamp", "yesterday"),
        ] {
            bad(t, s);
        }
    }

    #[test]
    fn uuids_inets_and_blobs() {
        let u = "550e8400-e29b-41d4-a716-446655440000";
        assert_eq!(ok("uuid", u)[..4], [0x55, 0x0E, 0x84, 0x00]);
        assert_eq!(ok("uuid", &u.to_uppercase()), ok("uuid", u));
        assert_eq!(ok("timeuuid", "d2177dd0-eaa2-11de-a572-001b779c76e3")[6], 0x11);
        for (t, s) in [
            ("uuid", "550e8400e29b41d4a716446655440000"),
            ("uuid", "550e8400-e29b-41d4-a716-44665544000g"),
            ("uuid", "{550e8400-e29b-41d4-a716-446655440000}"),
            ("timeuuid", u),
        ] {
            bad(t, s);
        }
        assert_eq!(ok("inet", "127.0.0.1"), [127, 0, 0, 1]);
        assert_eq!(ok("inet", "::1"), [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(ok("inet", "::ffff:1.2.3.4")[10..], [0xFF, 0xFF, 1, 2, 3, 4]);
        for s in ["256.0.0.1", "1.2.3", "::1::", "[::1]", "localhost", "1.2.3.4:80"] {
            bad("inet", s);
        }
        assert_eq!(ok("blob", "0xCAfe"), [0xCA, 0xFE]);
        assert!(ok("blob", "0x").is_empty());
        for s in ["cafe", "0xcaf", "0xzz", "0x 00"] {
            bad("blob", s);
        }
    }

    #[test]
    fn text_is_verbatim_at_top_level() {
        assert_eq!(ok("text", " it's 😀 "), " it's 😀 ".as_bytes());
        assert_eq!(ok("ascii", "plain"), b"plain");
        let e = bad("ascii", "caf\u{e9}");
        assert_eq!((e.offset, e.reason.as_str()), (3, "not ASCII"));
    }

    #[test]
    fn collections_in_both_syntaxes() {
        let list = [0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 2];
        assert_eq!(ok("list<int>", "[1, 2]"), list);
        assert_eq!(ok("list<int>", " [ 1 ,2 ] "), list);
        assert_eq!(ok("set<int>", "{1, 2}"), list);
        assert_eq!(ok("set<int>", "[1,2]"), list);
        assert_eq!(ok("list<int>", "['1', \"2\"]"), list);
        let strings = [0, 0, 0, 2, 0, 0, 0, 1, b'a', 0, 0, 0, 4, b'i', b't', b'\'', b's'];
        assert_eq!(ok("list<text>", "['a', 'it''s']"), strings);
        assert_eq!(ok("list<text>", r#"["a","it's"]"#), strings);
        assert_eq!(ok("list<text>", r#"["a","it\u0027s"]"#), strings);
        assert_eq!(ok("list<text>", "[$$a$$, $$it's$$]"), strings);
        assert_eq!(ok("list<text>", r#"["\ud83d\ude00"]"#), [0, 0, 0, 1, 0, 0, 0, 4, 0xF0, 0x9F, 0x98, 0x80]);
        assert_eq!(ok("list<text>", r#"["a""b"]"#), [0, 0, 0, 1, 0, 0, 0, 3, b'a', b'"', b'b']);
        assert_eq!(ok("list<int>", "[]"), [0, 0, 0, 0]);
        let map = [0, 0, 0, 1, 0, 0, 0, 1, b'a', 0, 0, 0, 4, 0, 0, 0, 1];
        assert_eq!(ok("map<text, int>", "{'a': 1}"), map);
        assert_eq!(ok("map<text, int>", r#"{"a":1}"#), map);
        assert_eq!(ok("map<int, text>", r#"{"1": "x"}"#), [0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 1, b'x']);
        assert_eq!(
            ok("map<text, frozen<list<int>>>", "{'k': [1]}"),
            [0, 0, 0, 1, 0, 0, 0, 1, b'k', 0, 0, 0, 12, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1]
        );
        assert_eq!(
            ok("list<timestamp>", "['1970-01-01T00:00:00.001Z', 2, \"1970-01-01\"]")[..],
            [
                [0, 0, 0, 3].as_slice(),
                &[0, 0, 0, 8],
                &1i64.to_be_bytes(),
                &[0, 0, 0, 8],
                &2i64.to_be_bytes(),
                &[0, 0, 0, 8],
                &0i64.to_be_bytes()
            ]
            .concat()[..]
        );
        assert_eq!(ok("list<boolean>", "[yes, off]"), [0, 0, 0, 2, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0]);
    }

    #[test]
    fn collection_errors_point_at_the_element() {
        let e = bad("list<int>", "[1, x, 3]");
        assert_eq!((e.expected.as_str(), e.value.as_str(), e.offset), ("int", "x", 4));
        let e = bad("map<text, int>", "{'a': 1, 'b': 'two'}");
        assert_eq!((e.expected.as_str(), e.value.as_str(), e.offset), ("int", "two", 15));
        for (t, s) in [
            ("list<int>", "[1, 2"),
            ("list<int>", "[1 2]"),
            ("list<int>", "[1,]"),
            ("list<int>", "1, 2"),
            ("list<int>", "{1, 2}"),
            ("list<int>", "[1] x"),
            ("list<text>", "[a]"),
            ("list<text>", "['a]"),
            ("list<text>", r#"["a\x"]"#),
            ("list<text>", r#"["\ud83d"]"#),
            ("list<ascii>", "['é']"),
            ("list<int>", "['1''']"),
            ("map<text, int>", "{'a' 1}"),
            ("map<text, int>", "{'a': 1"),
            ("map<text, int>", "['a', 1]"),
            ("set<int>", "{1, 2]"),
            ("list<frozen<list<int>>>", "[[1], 2]"),
        ] {
            bad(t, s);
        }
    }

    #[test]
    fn tuples_udts_and_vectors() {
        let t = "tuple<int, text>";
        let both = [0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 1, b'x'];
        assert_eq!(ok(t, "(1, 'x')"), both);
        assert_eq!(ok(t, r#"[1, "x"]"#), both);
        assert_eq!(ok(t, "(1)"), [0, 0, 0, 4, 0, 0, 0, 1]);
        assert!(ok(t, "()").is_empty());
        assert_eq!(ok(t, "(null, 'x')"), [255, 255, 255, 255, 0, 0, 0, 1, b'x']);
        bad(t, "(1, 'x', 2)");
        bad(t, "(1, 'x'");

        let u = "udt<ks.address>{street:text,\"Zip Code\":int,extra:int}";
        let full = [0, 0, 0, 3, b'a', b'b', b'c', 0, 0, 0, 4, 0, 0, 0x30, 0x39];
        assert_eq!(ok(u, "{street: 'abc', \"Zip Code\": 12345}"), full);
        assert_eq!(ok(u, r#"{"zip code": 12345, "street": "abc"}"#), full);
        assert_eq!(ok(u, "{STREET: 'abc', 'Zip Code': '12345'}"), full);
        assert_eq!(ok(u, "{street: 'abc'}"), [0, 0, 0, 3, b'a', b'b', b'c']);
        assert_eq!(ok(u, "{\"Zip Code\": 1}"), [255, 255, 255, 255, 0, 0, 0, 4, 0, 0, 0, 1]);
        assert_eq!(ok(u, "{extra: null}"), [255; 12]);
        assert!(ok(u, "{}").is_empty());
        assert_eq!(ok(u, "{street: '}, x: ['}"), [0, 0, 0, 7, b'}', b',', b' ', b'x', b':', b' ', b'[']);
        for s in [
            "{street: 'a', street: 'b'}",
            "{nope: 1}",
            "{zip code: 1}",
            "{street 'a'}",
            "{street: 'a'",
            "{street: 'a' 'b'}",
            "{\"Zip Code\": [[[[[[[[[[[[1]]]]]]]]]]]]}",
            "[1]",
        ] {
            bad(u, s);
        }
        let deep = format!("{{extra: {}}}", "[".repeat(100_000));
        bad(u, &deep);

        assert_eq!(ok("vector<float, 2>", "[1, -0.0]"), [0x3F, 0x80, 0, 0, 0x80, 0, 0, 0]);
        assert_eq!(ok("vector<text, 2>", "['a', \"😀\"]"), [1, b'a', 4, 0xF0, 0x9F, 0x98, 0x80]);
        assert_eq!(ok("vector<smallint, 2>", "[1, -1]"), [2, 0, 1, 2, 0xFF, 0xFF]);
        let long = "a".repeat(200);
        let mut want = vec![0x80, 200];
        want.extend_from_slice(long.as_bytes());
        assert_eq!(ok("vector<text, 1>", &format!("['{long}']")), want);
        for (t, s) in [
            ("vector<float, 2>", "[1]"),
            ("vector<float, 2>", "[1, 2, 3]"),
            ("vector<float, 2>", "[1, null]"),
            ("vector<text, 1>", "[null]"),
            ("vector<float, 2>", "{1, 2}"),
        ] {
            bad(t, s);
        }
    }

    #[test]
    fn errors_truncate_long_values() {
        let field = format!("[{}x]", "1".repeat(100));
        let e = bad("list<int>", &field);
        assert_eq!(e.value, format!("{}…", "1".repeat(40)));
        assert!(e.to_string().starts_with("expected int, got '1111"), "{e}");
    }

    const NULL_ELEMENT: &str = "collection elements cannot be null (Cassandra refuses them)";

    #[test]
    fn formats_cql_literals() {
        assert_eq!(fmt("text", b"it's"), "it's");
        assert_eq!(fmt("list<text>", &ok("list<text>", "['it''s', '']")), "['it''s', '']");
        assert_eq!(
            fmt("map<text, frozen<list<int>>>", &ok("map<text, frozen<list<int>>>", "{'k': [1, 2]}")),
            "{'k': [1, 2]}"
        );
        assert_eq!(fmt("set<inet>", &ok("set<inet>", "{'::1', '10.0.0.1'}")), "{'::1', '10.0.0.1'}");
        assert_eq!(
            fmt("tuple<date, time, timestamp>", &ok("tuple<date, time, timestamp>", "('2024-01-02', '01:02:03', 0)")),
            "('2024-01-02', '01:02:03', '1970-01-01T00:00:00.000Z')"
        );
        assert_eq!(
            fmt("udt<ks.a>{x:int,\"Y\":text}", &ok("udt<ks.a>{x:int,\"Y\":text}", "{x: 1, \"Y\": 'b'}")),
            "{x: 1, \"Y\": 'b'}"
        );
        assert_eq!(fmt("vector<float, 3>", &ok("vector<float, 3>", "[0.1, NaN, -Infinity]")), "[0.1, NaN, -Infinity]");
        assert_eq!(fmt("duration", &[1, 3, 5]), "-1mo2d3ns");
        assert_eq!(fmt("double", &1e300f64.to_be_bytes()), "1e300");
        assert_eq!(fmt("double", &1e-7f64.to_be_bytes()), "1e-7");
        assert_eq!(fmt("double", &123.25f64.to_be_bytes()), "123.25");
        assert_eq!(fmt("float", &3.4028235e38f32.to_be_bytes()), "3.4028235e38");
        assert_eq!(fmt("int", &[]), "");
        assert_eq!(fmt("list<int>", &[0, 0, 0, 1, 0, 0, 0, 0]), "[null]");
    }

    #[test]
    fn formats_tiny_subnormals_as_java_so_dsbulk_reads_them() {
        // DSBulk 1.10 refuses a float whose text is not Java's `toString` digits ("Cannot convert
        // 5E-324 from BigDecimal to Double"); Java writes two digits where the shortest has one.
        assert_eq!(fmt("double", &5e-324f64.to_be_bytes()), "4.9e-324");
        assert_eq!(fmt("double", &1e-323f64.to_be_bytes()), "9.9e-324");
        assert_eq!(fmt("double", &(-5e-324f64).to_be_bytes()), "-4.9e-324");
        assert_eq!(fmt("float", &1e-45f32.to_be_bytes()), "1.4e-45");
        assert_eq!(fmt("float", &3e-45f32.to_be_bytes()), "2.8e-45");
        // Java's two digits end in 0 here, so the shortest text is its value too.
        assert_eq!(fmt("float", &7e-45f32.to_be_bytes()), "7e-45");
        assert_eq!(fmt("double", &1e300f64.to_be_bytes()), "1e300");
        assert_eq!(fmt("double", &2e-308f64.to_be_bytes()), "2e-308");
        for v in [5e-324f64, 1e-323, 2.5e-322, 1e-310] {
            assert_eq!(fmt("double", &v.to_be_bytes()).parse::<f64>().unwrap(), v);
        }
        assert_eq!(fmt("list<double>", &[0, 0, 0, 1, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 1]), "[4.9e-324]");
    }

    #[test]
    fn formats_decimals_plainly_when_short() {
        for (field, text) in [
            ("123.45", "123.45"),
            ("-1.5", "-1.5"),
            ("0.001", "0.001"),
            ("-0.000001", "-0.000001"),
            ("0.0000001", "1E-7"),
            ("0.00", "0.00"),
            ("1E3", "1E+3"),
            ("120", "120"),
            ("1E-2147483647", "1E-2147483647"),
        ] {
            assert_eq!(fmt("decimal", &ok("decimal", field)), text, "{field}");
        }
    }

    #[test]
    fn format_rejects_bad_bytes_and_restores_output() {
        let mut out = String::from("keep");
        assert_eq!(
            format_text(&ty("list<int>"), &[0, 0, 0, 1, 0, 0, 0, 2, 0, 1], &mut out).unwrap_err(),
            ProtocolError::remote("int value", 8, "expected 4 bytes, got 2")
        );
        assert_eq!(
            format_text(&ty("text"), &[0xC3], &mut out).unwrap_err(),
            ProtocolError::remote("text value", 0, "invalid UTF-8")
        );
        assert_eq!(
            format_text(&ty("time"), &(-1i64).to_be_bytes(), &mut out).unwrap_err(),
            ProtocolError::remote("time value", 0, "-1 ns is outside 0..86400000000000")
        );
        assert_eq!(out, "keep");
    }

    /// `(type, field, expected, value, offset, reason)`: the whole error of a rejected field.
    type ErrorCase<'a> = (&'a str, &'a str, &'a str, &'a str, usize, &'a str);

    fn assert_errors(cases: &[ErrorCase<'_>], opts: &TextOptions) {
        for &(t, field, expected, value, offset, reason) in cases {
            let want = FieldError { expected: expected.into(), value: value.into(), offset, reason: reason.into() };
            assert_eq!(enc_with(t, field, opts), Err(want), "{t} {field:?}");
        }
    }

    #[test]
    fn scalar_errors_name_the_text_offset_and_reason() {
        const NOT_UUID: &str = "not a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)";
        const U: &str = "550e8400-e29b-41d4-a716-446655440000";
        const V0: &str = "00000000-0000-0100-0000-000000000000";
        const NOT_ISO: &str = "not ISO 8601: expected a year of 4 to 10 digits (yyyy-mm-dd)";
        let cases: &[ErrorCase<'_>] = &[
            ("int", " 12x ", "int", "12x", 1, "not an integer"),
            ("int", "1.5", "int", "1.5", 0, "has a fraction (choose a rounding rule to round it)"),
            ("int", "1.5e", "int", "1.5e", 0, "not an integer"),
            ("int", "--1", "int", "--1", 0, "not an integer"),
            ("tinyint", "128", "tinyint", "128", 0, "out of range"),
            ("smallint", "-32769", "smallint", "-32769", 0, "out of range"),
            ("int", "2147483648", "int", "2147483648", 0, "out of range"),
            ("bigint", "9223372036854775808", "bigint", "9223372036854775808", 0, "out of range"),
            ("varint", "-", "varint", "-", 0, "not an integer"),
            ("varint", "+", "varint", "+", 0, "not an integer"),
            ("varint", "12a", "varint", "12a", 0, "not an integer"),
            ("varint", "1.5", "varint", "1.5", 0, "has a fraction (choose a rounding rule to round it)"),
            ("varint", "1.5e", "varint", "1.5e", 0, "not an integer"),
            ("decimal", ".", "decimal", ".", 0, "not a decimal number"),
            ("decimal", "e5", "decimal", "e5", 0, "not a decimal number"),
            ("decimal", "1.5x", "decimal", "1.5x", 0, "not a decimal number"),
            ("decimal", "1.2.3", "decimal", "1.2.3", 0, "not a decimal number"),
            ("decimal", "1e", "decimal", "1e", 0, "bad exponent"),
            ("decimal", "1e+", "decimal", "1e+", 0, "bad exponent"),
            ("decimal", "1e1x", "decimal", "1e1x", 0, "bad exponent"),
            // 13 exponent digits are refused before parsing; 12 parse, then miss the i32 scale.
            ("decimal", "1e1234567890123", "decimal", "1e1234567890123", 0, "bad exponent"),
            ("decimal", "1e123456789012", "decimal", "1e123456789012", 0, "scale out of the 32-bit range"),
            ("decimal", "1E2147483649", "decimal", "1E2147483649", 0, "scale out of the 32-bit range"),
            ("float", "3.5e38", "float", "3.5e38", 0, "out of range"),
            ("double", "-1e309", "double", "-1e309", 0, "out of range"),
            ("double", "Infinityx", "double", "Infinityx", 0, "not a number"),
            ("timestamp", "yesterday", "timestamp", "yesterday", 0, NOT_ISO),
            ("date", "2147483648", "date", "2147483648", 0, "date out of range (-5877641-06-23 to 5881580-07-11)"),
            ("time", "-1", "time", "-1", 0, "time must be 0 to 86399999999999 ns"),
            ("timeuuid", U, "timeuuid", U, 0, "not a version 1 (time-based) UUID"),
            ("timeuuid", V0, "timeuuid", V0, 0, "not a version 1 (time-based) UUID"),
            ("inet", "::1::", "inet", "::1::", 0, "not an IPv4 or IPv6 address"),
            ("blob", "cafe", "blob", "cafe", 0, "expected 0x followed by hex digits"),
            ("blob", "0xcaf", "blob", "0xcaf", 0, "odd number of hex digits"),
            ("blob", "0x0g", "blob", "0x0g", 0, "not a hex digit"),
            ("blob", "0xg0", "blob", "0xg0", 0, "not a hex digit"),
            ("blob", "0x00gg", "blob", "0x00gg", 0, "not a hex digit"),
            ("boolean", " maybe ", "boolean", "maybe", 1, "not a boolean spelling"),
            ("ascii", "ab\u{e9}cd", "ascii", "\u{e9}cd", 2, "not ASCII"),
            ("int", "[1]", "int", "[1]", 0, "not an integer"),
        ];
        assert_errors(cases, &TextOptions::default());
        for field in [
            "550e8400e29b41d4a716446655440000",
            "550e8400xe29b-41d4-a716-446655440000",
            "550e8400-e29bx41d4-a716-446655440000",
            "550e8400-e29b-41d4xa716-446655440000",
            "550e8400-e29b-41d4-a716x446655440000",
            "550e8400-e29b-41d4-a716-4466554400-0",
            "550e8400-e29b-41d4-a716-44665544000g",
        ] {
            assert_errors(&[("uuid", field, "uuid", field, 0, NOT_UUID)], &TextOptions::default());
        }
        let no_markers = TextOptions { null_markers: vec![], ..Default::default() };
        assert_errors(
            &[
                ("int", "", "int", "", 0, "empty"),
                ("blob", "  ", "blob", "", 2, "empty"),
                ("list<int>", "  ", "list<int>", "", 2, "expected '[' to start a list"),
            ],
            &no_markers,
        );
        assert_eq!(enc_with("text", "", &no_markers).unwrap(), b"");
        assert_eq!(enc_with("ascii", "", &no_markers).unwrap(), b"");
        // DSBulk's unload writes an empty blob as `""`: in base64 that is the empty blob.
        let base64 = TextOptions { blob: BlobFormat::Base64, ..no_markers };
        assert_eq!(enc_with("blob", "", &base64).unwrap(), b"");
        assert_eq!(enc_with("blob", "AP8=", &base64).unwrap(), [0x00, 0xff]);
        assert_errors(&[("list<int>", "", "list<int>", "", 0, "expected '[' to start a list")], &base64);
    }

    #[test]
    fn scalars_read_every_spelling_exactly() {
        assert_eq!(ok("varint", "-5"), [0xFB]);
        assert_eq!(ok("decimal", "1e+5"), [0xFF, 0xFF, 0xFF, 0xFB, 1]);
        assert_eq!(ok("decimal", "1e-5"), [0, 0, 0, 5, 1]);
        assert_eq!(ok("decimal", "-.5"), [0, 0, 0, 1, 0xFB]);
        assert_eq!(ok("decimal", "+1.25"), [0, 0, 0, 2, 125]);
        assert_eq!(ok("decimal", "12.5E1"), [0, 0, 0, 0, 125]);
        assert_eq!(ok("float", "+inf"), f32::INFINITY.to_be_bytes());
        assert_eq!(ok("double", "INF"), f64::INFINITY.to_be_bytes());
        assert_eq!(ok("double", "-Infinity"), f64::NEG_INFINITY.to_be_bytes());
        assert_eq!(ok("double", "1e-400"), 0f64.to_be_bytes());
        assert_eq!(ok("date", "2024-01-02"), [0x80, 0, 0x4D, 0x0C]);
        assert_eq!(ok("date", "3"), [0x80, 0, 0, 3]);
        assert_eq!(ok("time", "5"), 5i64.to_be_bytes());
        assert_eq!(
            ok("uuid", "00112233-4455-6677-8899-aabbccddeeff"),
            [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF]
        );
        assert_eq!(
            ok("uuid", "AABBCCDD-EEFF-0011-2233-445566778899"),
            [0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99]
        );
        assert_eq!(
            ok("timeuuid", "00000000-0000-1000-0000-000000000000"),
            [0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(
            ok("blob", "0X0123456789abcdefABCDEF"),
            [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0xAB, 0xCD, 0xEF]
        );
        assert_eq!(ok("boolean", " true "), [1]);
    }

    #[test]
    fn options_saturate_round_decode_and_scale() {
        let sat = TextOptions { overflow: Overflow::Saturate, ..Default::default() };
        for (t, field, want) in [
            ("float", "3.5e38", f32::MAX.to_be_bytes().to_vec()),
            ("float", "-3.5e38", f32::MIN.to_be_bytes().to_vec()),
            ("float", "-Infinity", f32::NEG_INFINITY.to_be_bytes().to_vec()),
            ("double", "1e309", f64::MAX.to_be_bytes().to_vec()),
            ("double", "-1e309", f64::MIN.to_be_bytes().to_vec()),
            ("tinyint", "300", vec![0x7F]),
            ("tinyint", "-300", vec![0x80]),
            ("smallint", "40000", vec![0x7F, 0xFF]),
            ("bigint", "-99999999999999999999", i64::MIN.to_be_bytes().to_vec()),
        ] {
            assert_eq!(enc_with(t, field, &sat).unwrap(), want, "{t} {field}");
        }
        let half_up = TextOptions { rounding: Rounding::HalfUp, ..Default::default() };
        for (t, field, want) in [
            ("int", "1.5", vec![0, 0, 0, 2]),
            ("int", "-1.5", vec![0xFF, 0xFF, 0xFF, 0xFE]),
            ("varint", "2.5", vec![3]),
            ("varint", "-2.5", vec![0xFD]),
            // Rounded to zero, the sign goes: no negative zero.
            ("varint", "-0.4", vec![0]),
            ("varint", "7", vec![7]),
        ] {
            assert_eq!(enc_with(t, field, &half_up).unwrap(), want, "{t} {field}");
        }
        let big = "1234567890123456789012345678901234567890.5";
        let cut = "1234567890123456789012345678901234567890…";
        const NO_ROUNDING: &str = "out of range for rounding (38 digits at most)";
        assert_errors(
            &[
                ("int", "abc", "int", "abc", 0, "not an integer"),
                ("int", "1e40", "int", "1e40", 0, "out of range"),
                ("int", "1e4x", "int", "1e4x", 0, "not an integer"),
                ("tinyint", "127.5", "tinyint", "127.5", 0, "out of range"),
                ("varint", "1.x", "varint", "1.x", 0, "not an integer"),
                ("varint", big, "varint", cut, 0, NO_ROUNDING),
            ],
            &half_up,
        );
        let base64 = TextOptions { blob: BlobFormat::Base64, ..Default::default() };
        assert_eq!(enc_with("blob", "AAE=", &base64).unwrap(), [0, 1]);
        assert_eq!(enc_with("blob", "0x0001", &base64).unwrap(), [0, 1]);
        assert_errors(&[("blob", "!!", "blob", "!!", 0, "not a base64 character")], &base64);
        const LOST: &str = "timestamps hold milliseconds: the sub-millisecond digits would be lost";
        let nanos = TextOptions { epoch_unit: EpochUnit::Nanos, ..Default::default() };
        assert_eq!(enc_with("timestamp", "1704164645123000000", &nanos).unwrap(), 1_704_164_645_123i64.to_be_bytes());
        assert_eq!(enc_with("timestamp", "-2000000", &nanos).unwrap(), (-2i64).to_be_bytes());
        assert_errors(
            &[
                ("timestamp", "1000", "timestamp", "1000", 0, LOST),
                ("timestamp", "1704164645123000001", "timestamp", "1704164645123000001", 0, LOST),
            ],
            &nanos,
        );
        let micros = TextOptions { epoch_unit: EpochUnit::Micros, ..Default::default() };
        assert_eq!(enc_with("timestamp", "-2000", &micros).unwrap(), (-2i64).to_be_bytes());
        assert_eq!(enc_with("timestamp", "5000", &micros).unwrap(), 5i64.to_be_bytes());
        assert_errors(&[("timestamp", "999", "timestamp", "999", 0, LOST)], &micros);
        let seconds = TextOptions { epoch_unit: EpochUnit::Seconds, ..Default::default() };
        assert_eq!(enc_with("timestamp", "-2", &seconds).unwrap(), (-2000i64).to_be_bytes());
        let comma = TextOptions { number: NumberFormat { decimal: ',', grouping: Some('.') }, ..Default::default() };
        assert_eq!(enc_with("int", "1.234", &comma).unwrap(), 1234i32.to_be_bytes());
        assert_eq!(enc_with("decimal", "1.234,5", &comma).unwrap(), [0, 0, 0, 1, 0x30, 0x39]);
        assert_eq!(enc_with("double", "1,5", &comma).unwrap(), 1.5f64.to_be_bytes());
        assert_eq!(enc_with("float", "2,5", &comma).unwrap(), 2.5f32.to_be_bytes());
        assert_eq!(enc_with("varint", "1.000.000", &comma).unwrap(), [0x0F, 0x42, 0x40]);
    }

    #[test]
    fn literal_errors_point_at_the_offending_text() {
        let cases: &[ErrorCase<'_>] = &[
            ("list<int>", "[1, 2", "list<int>", "", 5, "expected ',' or ']'"),
            ("list<int>", "[1 2]", "list<int>", "2]", 3, "expected ',' or ']'"),
            ("list<int>", "[1,]", "int", "]", 3, "expected a value"),
            ("list<int>", "{1, 2}", "list<int>", "{1, 2}", 0, "expected '[' to start a list"),
            ("list<int>", "[1] x", "list<int>", "x", 4, "unexpected text after the value"),
            ("list<int>", "[nullx]", "int", "nullx", 1, "not an integer"),
            ("list<int>", "[null1]", "int", "null1", 1, "not an integer"),
            ("list<int>", "[nul]", "int", "nul", 1, "not an integer"),
            ("list<int>", "[1, null", "int", "null", 4, NULL_ELEMENT),
            ("list<int>", "[1, null, NULL]", "int", "null", 4, NULL_ELEMENT),
            ("list<int>", "[NuLl,null ]", "int", "NuLl", 1, NULL_ELEMENT),
            ("set<text>", "{'a', null}", "text", "null", 6, NULL_ELEMENT),
            ("set<text>", "[\"a\", null]", "text", "null", 6, NULL_ELEMENT),
            ("map<text, int>", "{'k': null}", "int", "null", 6, NULL_ELEMENT),
            ("map<text, int>", "{\"k\": null}", "int", "null", 6, NULL_ELEMENT),
            ("map<int, text>", "{null: 'a'}", "int", "null", 1, NULL_ELEMENT),
            ("map<text, frozen<list<int>>>", "{'k': [1, null]}", "int", "null", 10, NULL_ELEMENT),
            // An empty quoted value shows the text from where it went wrong to the end.
            ("list<int>", "['']", "int", "']", 2, "empty"),
            // Blanks inside the quotes are skipped, and counted in the offset.
            ("list<int>", "['  x ']", "int", "x", 4, "not an integer"),
            ("list<int>", "['1''']", "int", "1''", 2, "escape sequences are not allowed here"),
            ("list<int>", "[\"1\\n\"]", "int", "1\\n", 2, "escape sequences are not allowed here"),
            ("list<text>", "[a]", "text", "a", 1, "text inside a literal must be quoted ('...' or \"...\")"),
            ("list<text>", "[$a$]", "text", "$a$", 1, "text inside a literal must be quoted ('...' or \"...\")"),
            ("list<text>", "['a]", "text", "'a]", 1, "unterminated string"),
            ("list<text>", "[$$a]", "text", "$$a]", 1, "unterminated string"),
            ("list<text>", "[\"\\\"]", "text", "\"\\\"]", 1, "unterminated string"),
            ("list<ascii>", "['ab\u{e9}']", "ascii", "ab\u{e9}", 2, "not ASCII"),
            ("list<ascii>", "[\"a\\u00e9\"]", "ascii", "a\\u00e9", 2, "not ASCII"),
            ("list<boolean>", "[maybe]", "boolean", "maybe", 1, "not a boolean spelling"),
            ("list<frozen<list<int>>>", "[[1], 2]", "list<int>", "2]", 6, "expected '[' to start a list"),
            ("set<int>", "{1, 2]", "set<int>", "]", 5, "expected ',' or '}'"),
            ("map<text, int>", "{'a' 1}", "map<text, int>", "1}", 5, "expected ':' after a map key"),
            ("map<text, int>", "{'a': 1", "map<text, int>", "", 7, "expected ',' or '}'"),
            ("map<text, int>", "['a', 1]", "map<text, int>", "['a', 1]", 0, "expected '{' to start a map"),
            ("tuple<int, text>", "(1, 'x', 2)", "tuple<int, text>", " 2)", 8, "a tuple<int, text> has 2 components"),
            ("tuple<int, text>", "(1 'x')", "tuple<int, text>", "'x')", 3, "expected ',' or ')'"),
            ("tuple<int>", "{1}", "tuple<int>", "{1}", 0, "expected '(' or '[' to start a tuple"),
            ("vector<float, 2>", "[1]", "vector<float, 2>", "[1]", 0, "1 elements for dimension 2"),
            ("vector<float, 2>", "[1, 2, 3]", "vector<float, 2>", "[1, 2, 3]", 0, "3 elements for dimension 2"),
            ("vector<float, 2>", "[1, null]", "float", "null", 4, "vector elements cannot be null"),
            ("vector<text, 1>", "[null]", "text", "null", 1, "vector elements cannot be null"),
            ("vector<float, 2>", "{1, 2}", "vector<float, 2>", "{1, 2}", 0, "expected '[' to start a vector"),
            ("vector<int, 1>", "[1 2]", "vector<int, 1>", "2]", 3, "expected ',' or ']'"),
            // A tuple key written as a JSON string: an error inside it points at the whole key.
            ("map<frozen<tuple<int>>, int>", r#"{"[x]": 1}"#, "int", "[x]", 2, "not an integer"),
            ("map<frozen<tuple<int>>, int>", r#"{"[1] 2": 1}"#, "tuple<int>", "[1] 2", 2, "unexpected text after the key's value"),
        ];
        assert_errors(cases, &TextOptions::default());
        // A tuple or frozen collection key as a JSON string holding its literal, JSON or CQL.
        let tuple_key = [0, 0, 0, 1, 0, 0, 0, 13, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 1, b'"', 0, 0, 0, 1, b'x'];
        assert_eq!(ok("map<frozen<tuple<int, text>>, text>", r#"{"[1,\"\\\"\"]": "x"}"#), tuple_key);
        assert_eq!(ok("map<frozen<tuple<int, text>>, text>", r#"{" (1, '\"') ": 'x'}"#), tuple_key);
        assert_eq!(ok("map<frozen<tuple<int, text>>, text>", r#"{(1, '"'): 'x'}"#), tuple_key);
        assert_eq!(
            ok("map<frozen<list<int>>, int>", r#"{"[]": 1}"#),
            [0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 1]
        );
        // Inside a tuple or a UDT a null is a value: only collections refuse it.
        assert_eq!(ok("tuple<int, int>", "(null, NULL)"), [255, 255, 255, 255, 255, 255, 255, 255]);
        assert_eq!(ok("list<int>", "[' 7 ']"), [0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 7]);
        assert_eq!(ok("list<int>", "[$$8$$]"), [0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 8]);
        assert_eq!(ok("tuple<int, int>", "[1,2]"), [0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 2]);
        assert_eq!(ok("vector<varint, 2>", "[1, 300]"), [1, 1, 2, 1, 0x2C]);
        assert_eq!(ok("vector<boolean, 1>", "[true]"), [1]);
        assert_eq!(
            ok("list<boolean>", "[true, false, True, 'true', yes]"),
            [0, 0, 0, 5, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1]
        );
    }

    #[test]
    fn quoted_strings_resolve_every_escape() {
        let one = |content: &[u8]| -> Vec<u8> {
            let mut want = vec![0, 0, 0, 1];
            want.extend_from_slice(&(content.len() as i32).to_be_bytes());
            want.extend_from_slice(content);
            want
        };
        assert_eq!(ok("list<text>", r#"["\"\\\/\b\f\n\r\t"]"#), one(b"\"\\/\x08\x0C\n\r\t"));
        assert_eq!(ok("list<text>", r#"["\u0041\u00e9\u20ac"]"#), one("A\u{e9}\u{20ac}".as_bytes()));
        assert_eq!(ok("list<text>", r#"["x\uD83D\uDE00y"]"#), one("x\u{1F600}y".as_bytes()));
        // The first and the last surrogate pairs.
        assert_eq!(ok("list<text>", r#"["\ud800\udc00\udbff\udfff"]"#), one("\u{10000}\u{10FFFF}".as_bytes()));
        assert_eq!(ok("list<text>", r#"["a"""]"#), one(b"a\""));
        assert_eq!(
            ok("list<text>", "['a''b''c', '''', 'x']"),
            [0, 0, 0, 3, 0, 0, 0, 5, b'a', b'\'', b'b', b'\'', b'c', 0, 0, 0, 1, b'\'', 0, 0, 0, 1, b'x']
        );
        assert_eq!(
            ok("list<text>", "[$$a$b$$, $$$$, $$'\"$$]"),
            [0, 0, 0, 3, 0, 0, 0, 3, b'a', b'$', b'b', 0, 0, 0, 0, 0, 0, 0, 2, b'\'', b'"']
        );
        let cases: &[ErrorCase<'_>] = &[
            ("list<text>", r#"["ab\q"]"#, "text", "\\q", 4, "unknown escape sequence"),
            // The span ends inside the 'é' after the backslash: it is cut back to a char boundary.
            ("list<text>", "[\"\\\u{e9}\"]", "text", "\\", 2, "unknown escape sequence"),
            ("list<text>", r#"["\u12"]"#, "text", "\\u", 2, "expected four hex digits after \\u"),
            ("list<text>", r#"["\u00zz"]"#, "text", "\\u", 2, "expected four hex digits after \\u"),
            ("list<text>", r#"["\ud83d"]"#, "text", "\\u", 2, "unpaired UTF-16 surrogate"),
            ("list<text>", r#"["\ud83d\u0041"]"#, "text", "\\u", 2, "unpaired UTF-16 surrogate"),
            ("list<text>", r#"["\ud83d\ue000"]"#, "text", "\\u", 2, "unpaired UTF-16 surrogate"),
            ("list<text>", r#"["\ude00"]"#, "text", "\\u", 2, "unpaired UTF-16 surrogate"),
            ("list<text>", r#"["\ud83dx\ude00"]"#, "text", "\\u", 2, "unpaired UTF-16 surrogate"),
        ];
        assert_errors(cases, &TextOptions::default());
    }

    #[test]
    fn udt_fields_by_name_in_any_order() {
        let u = "udt<ks.address>{street:text,\"Zip Code\":int,extra:int}";
        let street_x_extra_1 = [0, 0, 0, 1, b'x', 255, 255, 255, 255, 0, 0, 0, 4, 0, 0, 0, 1];
        assert_eq!(ok(u, "{extra: 1, street: 'x'}"), street_x_extra_1);
        assert_eq!(ok(u, "{extra:1,street:'x'}"), street_x_extra_1);
        assert_eq!(ok(u, "{extra : 1 , street : 'x' }"), street_x_extra_1);
        assert_eq!(ok(u, " { } "), b"");
        let zip_2 = [255, 255, 255, 255, 0, 0, 0, 4, 0, 0, 0, 2];
        assert_eq!(ok(u, "{'zip code': 2}"), zip_2);
        assert_eq!(ok(u, "{\"ZIP CODE\": 2}"), zip_2);
        assert_eq!(ok(u, "{\"Extra\": 1}"), [[255; 8].as_slice(), &[0, 0, 0, 4, 0, 0, 0, 1]].concat());
        assert_eq!(ok(u, r#"{"st\u0072eet": 'a'}"#), [0, 0, 0, 1, b'a']);
        let cases: &[(&str, &str, &str, usize, &str)] = &[
            ("{street: 'a', street: 'b'}", "ks.address", "street: ", 14, "field given twice"),
            ("{extra: 5, extra: 6}", "ks.address", "extra: ", 11, "field given twice"),
            ("{STREET: 'a', Street: 'b'}", "ks.address", "Street: ", 14, "field given twice"),
            ("{nope: 1}", "ks.address", "nope", 1, "no such field in ks.address"),
            ("{zip code: 1}", "ks.address", "zip", 1, "no such field in ks.address"),
            ("{'nope': 1}", "ks.address", "'nope'", 1, "no such field in ks.address"),
            ("{street 'a'}", "ks.address", "'a'}", 8, "expected ':' after a field name"),
            ("{: 1}", "ks.address", ": 1}", 1, "expected a field name"),
            ("{extra: 1,}", "ks.address", "}", 10, "expected a field name"),
            ("{street: 'a'", "ks.address", "", 12, "expected ',' or '}'"),
            ("{street: 'a' 'b'}", "text", "'b'}", 13, "unexpected text after the value"),
            ("{extra: 1 2}", "int", "2}", 10, "unexpected text after the value"),
            ("{extra: 3 ]", "ks.address", "]", 10, "expected ',' or '}'"),
            ("{extra: ]}", "ks.address", "]}", 8, "expected ',' or '}'"),
            ("{extra: [}", "ks.address", "", 10, "expected ',' or '}'"),
            ("{extra: 'a}b', street: \"c}d\"}", "int", "a}b", 9, "not an integer"),
            ("{extra: $$x}$$}", "int", "x}", 10, "not an integer"),
            ("{street: 's'} x", "ks.address", "x", 14, "unexpected text after the value"),
            ("[1]", "ks.address", "[1]", 0, "expected '{' to start a UDT"),
        ];
        for &(field, expected, value, offset, reason) in cases {
            assert_errors(&[(u, field, expected, value, offset, reason)], &TextOptions::default());
        }
        // An exact quoted name wins over a case-insensitive one; unquoted names fold case.
        let two = "udt<ks.a>{x:int,\"X\":int}";
        assert_eq!(ok(two, "{\"X\": 1}"), [255, 255, 255, 255, 0, 0, 0, 4, 0, 0, 0, 1]);
        assert_eq!(ok(two, "{\"x\": 1}"), [0, 0, 0, 4, 0, 0, 0, 1]);
        assert_eq!(ok(two, "{X: 1}"), [0, 0, 0, 4, 0, 0, 0, 1]);
        let ambiguous = "udt<ks.a>{\"aB\":int,\"Ab\":int}";
        assert_errors(&[(ambiguous, "{'ab': 1}", "ks.a", "'ab'", 1, "no such field in ks.a")], &TextOptions::default());
        assert_eq!(ok(ambiguous, "{'Ab': 1}"), [255, 255, 255, 255, 0, 0, 0, 4, 0, 0, 0, 1]);
    }

    #[test]
    fn udt_field_with_no_value_is_null_as_cqlsh_copy_writes_it() {
        // cqlsh COPY TO writes a null field of a UDT as nothing (`{street: , num: 5}`), and its
        // COPY FROM reads that back as null; an empty text is always quoted ('').
        let u = "udt<ks.address>{street:text,\"Zip Code\":int,extra:int}";
        let null = [255u8; 4];
        assert_eq!(ok(u, "{street: , extra: 1}"), [&null[..], &null, &[0, 0, 0, 4, 0, 0, 0, 1]].concat());
        assert_eq!(ok(u, "{street:,'zip code':  ,extra:}"), [null; 3].concat());
        assert_eq!(ok(u, "{extra: 2, street: }"), [&null[..], &null, &[0, 0, 0, 4, 0, 0, 0, 2]].concat());
        assert_eq!(ok(u, "{street: '', extra: }"), [&[0u8, 0, 0, 0][..], &null, &null].concat());
        let cases: &[(&str, &str, &str, usize, &str)] = &[
            ("{street: , street: }", "ks.address", "street: ", 11, "field given twice"),
            ("{extra: ,,}", "ks.address", ",}", 9, "expected a field name"),
        ];
        for &(field, expected, value, offset, reason) in cases {
            assert_errors(&[(u, field, expected, value, offset, reason)], &TextOptions::default());
        }
    }

    #[test]
    fn a_file_writes_a_udts_null_fields_as_nothing_for_cqlsh_copy_from() {
        let u = "list<frozen<udt<ks.a>{street:text,num:int,tags:frozen<list<text>>}>>";
        let value = ok(u, "[{street: 'm', num: null, tags: ['t']}, {num: 5}, {}]");
        let file = |t: &str, bytes: &[u8]| {
            let mut out = String::new();
            format_text_file(&ty(t), bytes, &mut out).unwrap();
            out
        };
        assert_eq!(
            file(u, &value),
            "[{street: 'm', num: , tags: ['t']}, {street: , num: 5, tags: }, {street: , num: , tags: }]"
        );
        // (A value's trailing fields may be absent from its bytes: `{num: 5}` holds two.)
        assert_eq!(fmt(u, &value), "[{street: 'm', num: null, tags: ['t']}, {street: null, num: 5}, {}]");
        // Read back, a field with no value is null: the same value (every field now present).
        assert_eq!(file(u, &ok(u, &file(u, &value))), file(u, &value));
        // Nulls elsewhere (a tuple's) stay written.
        let t = "tuple<int, text>";
        assert_eq!(file(t, &ok(t, "(null, 'x')")), "(null, 'x')");
    }

    #[test]
    fn udt_values_are_skipped_whole_when_scanning_for_keys() {
        let u = "udt<ks.n>{a:frozen<list<frozen<map<int, text>>>>,b:frozen<tuple<int, text>>,c:int}";
        let nested = "{a: [{1: ']}, c: 1'}, {}], b: (2, ')'), c: 9}";
        // Brackets, commas and colons inside nested values and strings do not end an entry.
        let a = [0, 0, 0, 2, 0, 0, 0, 24, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 8]
            .iter()
            .chain(b"]}, c: 1")
            .chain(&[0, 0, 0, 4, 0, 0, 0, 0])
            .copied()
            .collect::<Vec<u8>>();
        let b = [0, 0, 0, 13, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 1, b')'];
        let c = [0, 0, 0, 4, 0, 0, 0, 9];
        let mut want = (a.len() as i32).to_be_bytes().to_vec();
        want.extend_from_slice(&a);
        want.extend_from_slice(&b);
        want.extend_from_slice(&c);
        assert_eq!(ok(u, nested), want);
        assert_eq!(ok(u, "{c: 9, b: (2, $$,)$$), a: null}")[..4], [255, 255, 255, 255]);
        assert_eq!(ok(u, "{a: null, b: null, c: 9}"), [[255; 8].as_slice(), &c].concat());
        assert_errors(&[(u, "{c: 9, a: [[[}", "ks.n", "[[[}", 10, "unterminated literal")], &TextOptions::default());
    }

    #[test]
    fn ascii_is_verbatim_at_top_level_too() {
        assert_eq!(ok("ascii", " a b "), b" a b ");
        assert_errors(&[("ascii", " \u{e9} ", "ascii", "\u{e9} ", 1, "not ASCII")], &TextOptions::default());
    }

    fn fmt_both(t: &str, bytes: &[u8]) -> (String, String) {
        let (mut cql, mut json) = (String::from("K"), String::from("K"));
        format_text(&ty(t), bytes, &mut cql).unwrap_or_else(|e| panic!("{t} {bytes:?}: {e}"));
        format_json(&ty(t), bytes, &mut json).unwrap_or_else(|e| panic!("{t} {bytes:?}: {e}"));
        (cql[1..].to_owned(), json[1..].to_owned())
    }

    #[test]
    fn formats_every_scalar_in_cql_and_json() {
        for (t, bytes, cql, json) in [
            ("boolean", vec![1], "true", "true"),
            ("boolean", vec![0], "false", "false"),
            ("tinyint", vec![0xFF], "-1", "-1"),
            ("smallint", vec![0x80, 0], "-32768", "-32768"),
            ("counter", vec![0xFF; 8], "-1", "-1"),
            ("varint", vec![0x80], "-128", "-128"),
            ("date", vec![0x7F, 0xFF, 0xFF, 0xFF], "1969-12-31", "\"1969-12-31\""),
            ("date", vec![0x80, 0, 0, 1], "1970-01-02", "\"1970-01-02\""),
            ("time", 1i64.to_be_bytes().to_vec(), "00:00:00.000000001", "\"00:00:00.000000001\""),
            ("duration", vec![2, 4, 6], "1mo2d3ns", "\"1mo2d3ns\""),
            ("ascii", b"ab".to_vec(), "ab", "\"ab\""),
            ("blob", vec![], "0x", "\"0x\""),
            ("int", vec![], "", "null"),
            ("varint", vec![], "", "null"),
            ("text", vec![], "", "\"\""),
            (
                "timeuuid",
                vec![0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                "00000000-0000-1000-0000-000000000000",
                "\"00000000-0000-1000-0000-000000000000\"",
            ),
        ] {
            assert_eq!(fmt_both(t, &bytes), (cql.to_owned(), json.to_owned()), "{t} {bytes:?}");
        }
    }

    #[test]
    fn formats_decimals_at_the_plain_and_exponent_boundaries() {
        for (bytes, text) in [
            (&[0, 0, 0, 2, 12][..], "0.12"),
            (&[0, 0, 0, 2, 0xF4], "-0.12"),
            (&[0, 0, 0, 1, 0xF4], "-1.2"),
            (&[0, 0, 0, 3, 0x30, 0x39], "12.345"),
            (&[0, 0, 0, 5, 0x30, 0x39], "0.12345"),
            // Five leading zeros after the point are the most written plainly.
            (&[0, 0, 0, 10, 0x30, 0x39], "0.0000012345"),
            (&[0, 0, 0, 11, 0x30, 0x39], "1.2345E-7"),
            (&[0, 0, 0, 6, 1], "0.000001"),
            (&[0, 0, 0, 6, 0xFF], "-0.000001"),
            (&[0, 0, 0, 7, 0xFF], "-1E-7"),
            (&[0xFF, 0xFF, 0xFF, 0xFE, 0xF4], "-1.2E+3"),
            // Java's BigDecimal.toString: a negative scale is always written with an
            // exponent, which is left out only when it is 0 (`12E1` has one before the point).
            (&[0xFF, 0xFF, 0xFF, 0xFF, 12], "1.2E+2"),
            (&[0xFF, 0xFF, 0xFF, 0xFF, 0], "0E+1"),
            (&[0, 0, 0, 7, 0x30, 0x39], "0.0012345"),
            (&[0, 0, 0, 12, 0xCF, 0xC7], "-1.2345E-8"),
            (&[0x80, 0, 0, 0, 1], "1E+2147483648"),
        ] {
            assert_eq!(fmt("decimal", bytes), text, "{bytes:?}");
        }
    }

    #[test]
    fn formats_floats_plainly_between_1e_minus_5_and_1e16() {
        for (v, text) in [
            (1e-5f64, "0.00001"),
            (-1e-5, "-0.00001"),
            (9.999e-6, "9.999e-6"),
            (9999999999999998.0, "9999999999999998"),
            (1e16, "1e16"),
            (-1e16, "-1e16"),
            (-0.0, "-0"),
            (0.5, "0.5"),
            (-2.5e-300, "-2.5e-300"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
        ] {
            assert_eq!(fmt("double", &v.to_be_bytes()), text, "{v}");
        }
        assert_eq!(fmt("float", &1e16f32.to_be_bytes()), "1e16");
        assert_eq!(fmt("float", &(-0.0f32).to_be_bytes()), "-0");
        assert_eq!(fmt("float", &f32::NEG_INFINITY.to_be_bytes()), "-Infinity");
    }

    #[test]
    fn formats_containers_in_cql_and_json() {
        let udt = "udt<ks.a>{a_1:int,\"1a\":int,\"Ab\":int,\"q\"\"x\":int,\"\":int}";
        let udt_bytes =
            [0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 2, 255, 255, 255, 255, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 0];
        for (t, bytes, cql, json) in [
            (
                udt,
                &udt_bytes[..],
                r#"{a_1: 1, "1a": 2, "Ab": null, "q""x": 4, "": null}"#,
                r#"{"a_1":1,"1a":2,"Ab":null,"q\"x":4,"":null}"#,
            ),
            ("udt<ks.a>{a:int,b:text}", &[0, 0, 0, 4, 0, 0, 0, 1], "{a: 1}", r#"{"a":1}"#),
            ("tuple<int, text>", &[0, 0, 0, 4, 0, 0, 0, 1], "(1)", "[1]"),
            ("tuple<int, text>", &[0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 1, b'x'], "(1, 'x')", r#"[1,"x"]"#),
            ("set<int>", &[0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 2], "{1, 2}", "[1,2]"),
            ("list<text>", &[0, 0, 0, 2, 0, 0, 0, 1, b'\'', 0, 0, 0, 0], "['''', '']", r#"["'",""]"#),
            ("list<ascii>", &[0, 0, 0, 1, 0, 0, 0, 1, b'\''], "['''']", r#"["'"]"#),
            ("list<blob>", &[0, 0, 0, 1, 0, 0, 0, 0], "[0x]", r#"["0x"]"#),
            // The unscaled digits start after what is already written.
            (
                "list<decimal>",
                &[0, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0, 2, 12, 0, 0, 0, 5, 0, 0, 0, 2, 0xF4],
                "[0.12, -0.12]",
                "[0.12,-0.12]",
            ),
            ("list<timestamp>", &[0, 0, 0, 1, 0, 0, 0, 0], "[null]", "[null]"),
            ("list<date>", &[0, 0, 0, 1, 0, 0, 0, 4, 0x80, 0, 0, 0], "['1970-01-01']", r#"["1970-01-01"]"#),
            (
                "list<time>",
                &[0, 0, 0, 1, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 1],
                "['00:00:00.000000001']",
                r#"["00:00:00.000000001"]"#,
            ),
            ("list<inet>", &[0, 0, 0, 1, 0, 0, 0, 4, 1, 2, 3, 4], "['1.2.3.4']", r#"["1.2.3.4"]"#),
            (
                "map<int, text>",
                &[0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 1, b'a', 0, 0, 0, 4, 0, 0, 0, 2, 255, 255, 255, 255],
                "{1: 'a', 2: null}",
                r#"{"1":"a","2":null}"#,
            ),
            ("map<int, text>", &[0, 0, 0, 1, 255, 255, 255, 255, 0, 0, 0, 1, b'a'], "{null: 'a'}", r#"{"null":"a"}"#),
            // A tuple key is its JSON text as a string, which DSBulk reads back (it refuses `"(1, 'x')"`).
            (
                "map<frozen<tuple<int, text>>, int>",
                &[0, 0, 0, 1, 0, 0, 0, 13, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 1, b'"', 0, 0, 0, 4, 0, 0, 0, 2],
                r#"{(1, '"'): 2}"#,
                r#"{"[1,\"\\\"\"]":2}"#,
            ),
            ("vector<float, 2>", &[0x3F, 0x80, 0, 0, 0x40, 0, 0, 0], "[1, 2]", "[1,2]"),
            ("vector<text, 2>", &[1, b'a', 0], "['a', '']", r#"["a",""]"#),
        ] {
            assert_eq!(fmt_both(t, bytes), (cql.to_owned(), json.to_owned()), "{t} {bytes:?}");
        }
    }

    #[test]
    fn format_errors_name_the_field_offset_and_reason() {
        let too_long = vec![1u8; bignum::MAX_RENDERED_BYTES + 1];
        for (t, bytes, want) in [
            ("bigint", &[0xFF; 7][..], ProtocolError::remote("bigint value", 0, "expected 8 bytes, got 7")),
            ("inet", &[1, 2, 3, 4, 5], ProtocolError::remote("inet value", 0, "address of 5 bytes, expected 4 or 16")),
            (
                "decimal",
                &[0, 0, 0, 1],
                ProtocolError::remote("decimal unscaled value", 4, "missing (needs at least one byte)"),
            ),
            (
                "vector<float, 2>",
                &[0; 7],
                ProtocolError::remote("vector value", 0, "2 elements of 4 bytes need 8 bytes, got 7"),
            ),
            (
                "vector<text, 2>",
                &[1, b'a', 0, 5],
                ProtocolError::remote("vector value", 3, "1 unexpected trailing bytes"),
            ),
            (
                "tuple<int, text>",
                &[0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 1, b'x', 9],
                ProtocolError::remote("tuple component", 13, "1 unexpected trailing bytes"),
            ),
            (
                "udt<ks.a>{a:int,b:text}",
                &[0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 1, b'x', 7],
                ProtocolError::remote("udt field", 13, "1 unexpected trailing bytes"),
            ),
            (
                "map<int, text>",
                &[0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 1, b'a', 0],
                ProtocolError::remote("map", 17, "1 unexpected trailing bytes"),
            ),
            (
                "list<int>",
                &[0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1, 0],
                ProtocolError::remote("collection", 12, "1 unexpected trailing bytes"),
            ),
            (
                "timeuuid",
                &[0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                ProtocolError::remote("timeuuid value", 6, "UUID version 2, expected 1"),
            ),
            (
                "varint",
                &too_long,
                ProtocolError::local("varint value", 0, "16385 bytes is too long to render in decimal (limit 16384)"),
            ),
        ] {
            let (mut cql, mut json) = (String::from("K"), String::from("K"));
            assert_eq!(format_text(&ty(t), bytes, &mut cql), Err(want.clone()), "{t}");
            assert_eq!(format_json(&ty(t), bytes, &mut json), Err(want), "{t}");
            assert_eq!((cql.as_str(), json.as_str()), ("K", "K"), "{t}: output restored");
        }
    }

    #[test]
    fn digit_limits_are_inclusive() {
        // Leading zeros count as digits (and keep the conversion cheap).
        let max = format!("{}7", "0".repeat(bignum::MAX_DECIMAL_DIGITS - 1));
        assert_eq!(ok("varint", &max), [7]);
        let (int, frac) = max.split_at(bignum::MAX_DECIMAL_DIGITS - 1);
        assert_eq!(ok("decimal", &format!("{int}.{frac}")), [0, 0, 0, 1, 7]);
        let reason = format!("more than {} digits", bignum::MAX_DECIMAL_DIGITS);
        // One digit over, counted across the point: the whole integer part and one fraction digit.
        let over = format!("{max}.7");
        assert_eq!((bad("decimal", &over).offset, bad("decimal", &over).reason), (0, reason.clone()));
        assert_eq!(bad("varint", &format!("{max}7")).reason, reason);
    }

    #[test]
    fn uuids_need_every_hyphen_and_exactly_36_characters() {
        const NOT_UUID: &str = "not a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)";
        for field in [
            // 32 hex digits, but a hyphen moved from byte 8 to the end.
            "550e84000e29b-41d4-a716-44665544000-",
            // One hex digit too many.
            "550e8400-e29b-41d4-a716-4466554400000",
        ] {
            assert_errors(&[("uuid", field, "uuid", field, 0, NOT_UUID)], &TextOptions::default());
        }
    }

    #[test]
    fn bare_true_and_false_are_literal_syntax_whatever_the_words() {
        let opts =
            TextOptions { true_words: vec!["ja".into()], false_words: vec!["nein".into()], ..Default::default() };
        assert_eq!(
            enc_with("list<boolean>", "[true, false, ja, nein]", &opts).unwrap(),
            [0, 0, 0, 4, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0]
        );
    }

    #[test]
    fn empty_maps_and_prefixes_of_field_names() {
        assert_eq!(ok("map<text, int>", "{}"), [0, 0, 0, 0]);
        assert_eq!(ok("map<text, int>", " { } "), [0, 0, 0, 0]);
        let u = "udt<ks.address>{street:text,\"Zip Code\":int,extra:int}";
        assert_errors(
            &[(u, "{stree: 'a'}", "ks.address", "stree", 1, "no such field in ks.address")],
            &TextOptions::default(),
        );
        assert_errors(
            &[(u, "{streets: 'a'}", "ks.address", "streets", 1, "no such field in ks.address")],
            &TextOptions::default(),
        );
    }
}
