//! Text forms of timestamp, date, time and duration, in both directions, over the whole wire
//! range of each (proleptic Gregorian calendar, astronomical year numbering: year 0 is 1 BC).
//!
//! Years outside 0000..=9999 are written with a sign, ISO 8601's expanded form:
//! `+10000-01-01`, `-0001-12-31`. Parsing accepts what formatting writes and more.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::scalar::{DATE_EPOCH, NANOS_PER_DAY};
use super::zone::ZoneRules;

pub(crate) type Reason = Cow<'static, str>;

const MILLIS_PER_DAY: i64 = 86_400_000;
const NANOS_PER_SECOND: u128 = 1_000_000_000;

/// Days from 1970-01-01 to the given civil date (H. Hinnant's `days_from_civil`).
pub(crate) fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from((month + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date `days` after 1970-01-01 (H. Hinnant's `civil_from_days`).
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = (if mp < 10 { mp + 3 } else { mp - 9 }) as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

pub(crate) fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if year.rem_euclid(4) == 0 && (year.rem_euclid(100) != 0 || year.rem_euclid(400) == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn push_date(days: i64, out: &mut String) {
    let (year, month, day) = civil_from_days(days);
    push_year(year, out);
    let _ = write!(out, "-{month:02}-{day:02}");
}

/// A year as ISO 8601 (and java.time) write it: four digits, a sign outside 0000..=9999.
pub(crate) fn push_year(year: i64, out: &mut String) {
    if year < 0 {
        let _ = write!(out, "-{:04}", year.unsigned_abs());
    } else if year > 9999 {
        let _ = write!(out, "+{year}");
    } else {
        let _ = write!(out, "{year:04}");
    }
}

/// `2024-01-02T03:04:05.123Z`, the milliseconds always.
pub(crate) fn format_timestamp(millis: i64, out: &mut String) {
    push_date(millis.div_euclid(MILLIS_PER_DAY), out);
    let ms = millis.rem_euclid(MILLIS_PER_DAY);
    // Always the milliseconds (cli/README.md "Output of values"): fixed-width text sorts
    // and compares as the values do.
    let _ = write!(out, "T{:02}:{:02}:{:02}.{:03}Z", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
}

/// `days` since 1970-01-01 as `YYYY-MM-DD`.
pub(crate) fn format_date(days: i64, out: &mut String) {
    push_date(days, out);
}

/// `HH:MM:SS`, with `.fffffffff` when the nanoseconds are not zero.
pub(crate) fn format_time(nanos: i64, out: &mut String) {
    let secs = nanos / 1_000_000_000;
    let _ = write!(out, "{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
    if nanos % 1_000_000_000 != 0 {
        let _ = write!(out, ".{:09}", nanos % 1_000_000_000);
    }
}

/// CQL's duration literal, e.g. `1y2mo3d4h5m6s7ms8us9ns` or `-1h30m`; zero is `0s`.
pub(crate) fn format_duration(months: i32, days: i32, nanos: i64, out: &mut String) {
    if months == 0 && days == 0 && nanos == 0 {
        out.push_str("0s");
        return;
    }
    if months < 0 || days < 0 || nanos < 0 {
        out.push('-');
    }
    let months = months.unsigned_abs();
    let nanos = nanos.unsigned_abs();
    let parts = [
        (u64::from(months / 12), "y"),
        (u64::from(months % 12), "mo"),
        (u64::from(days.unsigned_abs()), "d"),
        (nanos / 3_600_000_000_000, "h"),
        (nanos / 60_000_000_000 % 60, "m"),
        (nanos / 1_000_000_000 % 60, "s"),
        (nanos / 1_000_000 % 1000, "ms"),
        (nanos / 1000 % 1000, "us"),
        (nanos % 1000, "ns"),
    ];
    for (n, unit) in parts {
        if n != 0 {
            let _ = write!(out, "{n}{unit}");
        }
    }
}

/// A byte cursor over ASCII-structured text.
struct Cursor<'a> {
    s: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn new(s: &'a str) -> Self {
        Cursor { s: s.as_bytes(), pos: 0 }
    }
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn at_end(&self) -> bool {
        self.pos >= self.s.len()
    }
    fn digits(&mut self) -> &'a [u8] {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        &self.s[start..self.pos]
    }
    /// Exactly two digits.
    fn two(&mut self, what: &'static str) -> Result<u32, Reason> {
        match self.s.get(self.pos..self.pos + 2) {
            Some(&[a, b]) if a.is_ascii_digit() && b.is_ascii_digit() => {
                self.pos += 2;
                Ok(u32::from(a - b'0') * 10 + u32::from(b - b'0'))
            }
            _ => Err(Cow::Owned(format!("expected two digits for the {what}"))),
        }
    }
}

fn number(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    Some(digits.iter().fold(0u64, |v, d| v * 10 + u64::from(d - b'0')))
}

/// An optional sign and at least one digit, nothing else: `Some` if `s` looks like an integer
/// (the value may still be out of range: `Err`).
pub(crate) fn integer(s: &str) -> Option<Result<i64, Reason>> {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(s.parse::<i64>().map_err(|_| Cow::Borrowed("integer out of range")))
}

/// `[+-]YYYY-MM-DD` (four or more year digits) into days since 1970-01-01.
fn date_part(c: &mut Cursor<'_>) -> Result<i64, Reason> {
    let negative = c.eat(b'-');
    if !negative {
        c.eat(b'+');
    }
    let digits = c.digits();
    if digits.len() < 4 || digits.len() > 10 {
        return Err(Cow::Borrowed("not ISO 8601: expected a year of 4 to 10 digits (yyyy-mm-dd)"));
    }
    let year = number(digits).unwrap_or(0) as i64;
    let year = if negative { -year } else { year };
    if !c.eat(b'-') {
        return Err(Cow::Borrowed("expected '-' after the year"));
    }
    let month = c.two("month")?;
    if !c.eat(b'-') {
        return Err(Cow::Borrowed("expected '-' after the month"));
    }
    let day = c.two("day")?;
    if !(1..=12).contains(&month) {
        return Err(Cow::Owned(format!("month {month} is not 1 to 12")));
    }
    if day < 1 || day > days_in_month(year, month) {
        return Err(Cow::Owned(format!("day {day} does not exist in {year}-{month:02}")));
    }
    Ok(days_from_civil(year, month, day))
}

/// `HH:MM[:SS[.fraction]]` into (seconds of the day, nanoseconds); the fraction has 1 to 9
/// digits.
fn time_part(c: &mut Cursor<'_>, seconds_required: bool) -> Result<(i64, u32), Reason> {
    let hour = c.two("hour")?;
    if !c.eat(b':') {
        return Err(Cow::Borrowed("expected ':' after the hour"));
    }
    let minute = c.two("minutes")?;
    let mut second = 0;
    let mut nanos = 0;
    if c.eat(b':') {
        second = c.two("seconds")?;
        if c.eat(b'.') {
            let digits = c.digits();
            if digits.is_empty() || digits.len() > 9 {
                return Err(Cow::Borrowed("expected 1 to 9 digits of fraction"));
            }
            let value = number(digits).unwrap_or(0) as u32;
            nanos = value * 10u32.pow(9 - digits.len() as u32);
        }
    } else if seconds_required {
        return Err(Cow::Borrowed("expected ':' and seconds"));
    }
    if hour > 23 || minute > 59 || second > 59 {
        return Err(Cow::Owned(format!("{hour:02}:{minute:02}:{second:02} is not a time of day")));
    }
    Ok((i64::from(hour * 3600 + minute * 60 + second), nanos))
}

/// `Z`, `+HH`, `+HHMM` or `+HH:MM` (or `-`) into minutes east of UTC.
fn zone(c: &mut Cursor<'_>) -> Result<Option<i32>, Reason> {
    if c.eat(b'Z') || c.eat(b'z') {
        return Ok(Some(0));
    }
    let sign = if c.eat(b'+') {
        1
    } else if c.eat(b'-') {
        -1
    } else {
        return Ok(None);
    };
    let hours = c.two("zone hours")?;
    let minutes = if c.eat(b':') || c.peek().is_some_and(|b| b.is_ascii_digit()) { c.two("zone minutes")? } else { 0 };
    if hours > 18 || minutes > 59 {
        return Err(Cow::Borrowed("zone offset out of range"));
    }
    Ok(Some(sign * (hours * 60 + minutes) as i32))
}

/// ISO 8601 date with optional time, fraction and zone: `2024-01-02`,
/// `2024-01-02T03:04:05Z`, `2024-01-02 03:04:05.123+0200`. A missing zone means
/// a local time in `default_zone`. Sub-millisecond digits must be zero.
pub(crate) fn parse_timestamp(s: &str, default_zone: &ZoneRules) -> Result<i64, Reason> {
    let mut c = Cursor::new(s);
    let days = date_part(&mut c)?;
    let mut seconds = 0;
    let mut nanos = 0;
    let separator = c.peek();
    if matches!(separator, Some(b'T' | b't' | b' ')) && c.s.get(c.pos + 1).is_some_and(u8::is_ascii_digit) {
        c.pos += 1;
        (seconds, nanos) = time_part(&mut c, false)?;
    }
    if nanos % 1_000_000 != 0 {
        return Err(Cow::Borrowed("timestamps hold milliseconds: the sub-millisecond digits would be lost"));
    }
    c.eat(b' ');
    let offset = zone(&mut c)?;
    if !c.at_end() {
        return Err(Cow::Borrowed("unexpected text after the timestamp"));
    }
    timestamp_in(days, seconds * 1_000_000_000 + i64::from(nanos), offset, default_zone)
}

/// Milliseconds since the epoch of a civil day and time of day, at the written offset (in
/// minutes east of UTC) or, without one, as a local time in `default_zone`.
pub(crate) fn timestamp_in(
    days: i64,
    time_nanos: i64,
    written: Option<i32>,
    default_zone: &ZoneRules,
) -> Result<i64, Reason> {
    match written {
        Some(offset_minutes) => timestamp_millis(days, time_nanos, offset_minutes),
        None => default_zone.utc_of_local(timestamp_millis(days, time_nanos, 0)?),
    }
}

/// Milliseconds since the epoch of a civil day, a time of day and an offset east of UTC;
/// sub-millisecond digits must be zero.
pub(crate) fn timestamp_millis(days: i64, time_nanos: i64, offset_minutes: i32) -> Result<i64, Reason> {
    if time_nanos % 1_000_000 != 0 {
        return Err(Cow::Borrowed("timestamps hold milliseconds: the sub-millisecond digits would be lost"));
    }
    let millis = i128::from(days) * i128::from(MILLIS_PER_DAY) + i128::from(time_nanos / 1_000_000)
        - i128::from(offset_minutes) * 60_000;
    i64::try_from(millis).map_err(|_| Cow::Borrowed("timestamp out of the 64-bit millisecond range"))
}

/// `[+-]YYYY-MM-DD` into days since 1970-01-01, within the wire range of `date`.
pub(crate) fn parse_date(s: &str) -> Result<i64, Reason> {
    let mut c = Cursor::new(s);
    let days = date_part(&mut c)?;
    if !c.at_end() {
        return Err(Cow::Borrowed("unexpected text after the date"));
    }
    check_date_days(days)
}

pub(crate) fn check_date_days(days: i64) -> Result<i64, Reason> {
    if (-DATE_EPOCH..DATE_EPOCH).contains(&days) {
        Ok(days)
    } else {
        Err(Cow::Borrowed("date out of range (-5877641-06-23 to 5881580-07-11)"))
    }
}

/// `HH:MM[:SS[.fffffffff]]` into nanoseconds since midnight.
pub(crate) fn parse_time(s: &str) -> Result<i64, Reason> {
    let mut c = Cursor::new(s);
    let (seconds, nanos) = time_part(&mut c, false)?;
    if !c.at_end() {
        return Err(Cow::Borrowed("unexpected text after the time"));
    }
    Ok(seconds * 1_000_000_000 + i64::from(nanos))
}

pub(crate) fn check_time_nanos(nanos: i64) -> Result<i64, Reason> {
    if (0..NANOS_PER_DAY).contains(&nanos) {
        Ok(nanos)
    } else {
        Err(Cow::Borrowed("time must be 0 to 86399999999999 ns"))
    }
}

/// Magnitudes of a duration being parsed, before its sign.
#[derive(Default)]
struct DurationParts {
    months: u128,
    days: u128,
    nanos: u128,
}

impl DurationParts {
    fn add(&mut self, n: u64, unit: &[u8]) -> Result<(), Reason> {
        let n = u128::from(n);
        let (slot, scale): (&mut u128, u128) = match unit {
            b"y" | b"Y" => (&mut self.months, 12),
            u if u.eq_ignore_ascii_case(b"mo") => (&mut self.months, 1),
            b"w" | b"W" => (&mut self.days, 7),
            b"d" | b"D" => (&mut self.days, 1),
            b"h" | b"H" => (&mut self.nanos, 3600 * NANOS_PER_SECOND),
            b"m" | b"M" => (&mut self.nanos, 60 * NANOS_PER_SECOND),
            b"s" | b"S" => (&mut self.nanos, NANOS_PER_SECOND),
            u if u.eq_ignore_ascii_case(b"ms") => (&mut self.nanos, 1_000_000),
            u if u.eq_ignore_ascii_case(b"us") || u == "µs".as_bytes() || u == "µS".as_bytes() => {
                (&mut self.nanos, 1000)
            }
            u if u.eq_ignore_ascii_case(b"ns") => (&mut self.nanos, 1),
            _ => return Err(Cow::Borrowed("unknown unit (use y, mo, w, d, h, m, s, ms, us, ns)")),
        };
        // Each input number has at most 19 digits, so this cannot overflow u128 on its own;
        // the sum is range-checked at the end.
        *slot = slot.saturating_add(n * scale);
        Ok(())
    }

    fn finish(self, negative: bool) -> Result<(i32, i32, i64), Reason> {
        fn signed(magnitude: u128, negative: bool, limit: u128) -> Option<i128> {
            // A negative value may reach one further than a positive one.
            if magnitude > limit + u128::from(negative) {
                return None;
            }
            let v = magnitude as i128;
            Some(if negative { -v } else { v })
        }
        let months =
            signed(self.months, negative, i32::MAX as u128).ok_or(Cow::Borrowed("months out of the 32-bit range"))?;
        let days =
            signed(self.days, negative, i32::MAX as u128).ok_or(Cow::Borrowed("days out of the 32-bit range"))?;
        let nanos = signed(self.nanos, negative, i64::MAX as u128)
            .ok_or(Cow::Borrowed("nanoseconds out of the 64-bit range"))?;
        Ok((months as i32, days as i32, nanos as i64))
    }
}

/// A CQL duration literal: `1y2mo3w4d5h6m7s8ms9us10ns` (any subset, case-insensitive,
/// `µs` too), ISO 8601 `P1Y2M3DT4H5M6S` or `P2W`, or the alternative `P0001-02-03T04:05:06`;
/// a leading `-` negates the whole.
pub(crate) fn parse_duration(s: &str) -> Result<(i32, i32, i64), Reason> {
    let mut c = Cursor::new(s);
    let negative = c.eat(b'-');
    let mut parts = DurationParts::default();
    if c.eat(b'P') || c.eat(b'p') {
        iso_duration(&mut c, &mut parts)?;
    } else {
        if c.at_end() {
            return Err(Cow::Borrowed("expected a number and a unit"));
        }
        while !c.at_end() {
            let n = number(c.digits()).ok_or(Cow::Borrowed("expected a number of at most 19 digits"))?;
            let start = c.pos;
            // Units are ASCII letters, or the two bytes of 'µ'.
            while c.peek().is_some_and(|b| b.is_ascii_alphabetic() || b == 0xC2 || b == 0xB5) {
                c.pos += 1;
            }
            parts.add(n, &c.s[start..c.pos])?;
        }
    }
    parts.finish(negative)
}

fn iso_duration(c: &mut Cursor<'_>, parts: &mut DurationParts) -> Result<(), Reason> {
    let rest = &c.s[c.pos..];
    if rest.contains(&b'-') || rest.contains(&b':') {
        // Alternative format: PYYYY-MM-DDThh:mm:ss.
        let mut field = |c: &mut Cursor<'_>, unit: &[u8], end: Option<u8>| -> Result<(), Reason> {
            let n = number(c.digits()).ok_or(Cow::Borrowed("expected PYYYY-MM-DDThh:mm:ss"))?;
            if let Some(end) = end {
                if !c.eat(end) {
                    return Err(Cow::Borrowed("expected PYYYY-MM-DDThh:mm:ss"));
                }
            }
            parts.add(n, unit)
        };
        field(c, b"y", Some(b'-'))?;
        field(c, b"mo", Some(b'-'))?;
        field(c, b"d", Some(b'T'))?;
        field(c, b"h", Some(b':'))?;
        field(c, b"m", Some(b':'))?;
        field(c, b"s", None)?;
    } else {
        let mut any = false;
        let mut in_time = false;
        // Designators must come in this order; `W` stands alone.
        let mut allowed: &[u8] = b"YMWD";
        while !c.at_end() {
            if !in_time && (c.eat(b'T') || c.eat(b't')) {
                in_time = true;
                allowed = b"HMS";
                if c.at_end() {
                    return Err(Cow::Borrowed("expected hours, minutes or seconds after 'T'"));
                }
                continue;
            }
            let n = number(c.digits()).ok_or(Cow::Borrowed("expected a number before each designator"))?;
            let designator = c.peek().map(|b| b.to_ascii_uppercase());
            let Some(index) = designator.and_then(|d| allowed.iter().position(|&a| a == d)) else {
                return Err(Cow::Borrowed("expected designators in the order Y M D T H M S (or nW alone)"));
            };
            c.pos += 1;
            let unit: &[u8] = match (in_time, allowed[index]) {
                (false, b'Y') => b"y",
                (false, b'M') => b"mo",
                (false, b'W') => b"w",
                (false, _) => b"d",
                (true, b'H') => b"h",
                (true, b'M') => b"m",
                (true, _) => b"s",
            };
            if unit == b"w" && (any || !c.at_end()) {
                return Err(Cow::Borrowed("weeks (nW) cannot be combined with other designators"));
            }
            parts.add(n, unit)?;
            any = true;
            allowed = &allowed[index + 1..];
        }
        if !any {
            return Err(Cow::Borrowed("expected at least one component after 'P'"));
        }
    }
    if !c.at_end() {
        return Err(Cow::Borrowed("unexpected text after the duration"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Result<i64, Reason> {
        parse_timestamp(s, &ZoneRules::default())
    }

    fn text(f: impl FnOnce(&mut String)) -> String {
        let mut out = String::new();
        f(&mut out);
        out
    }

    #[test]
    fn civil_conversions_agree_across_the_range() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2024, 1, 1), 19_723);
        assert_eq!(days_from_civil(1900, 1, 1), -25_567);
        assert_eq!(days_from_civil(2000, 2, 29), 11_016);
        assert_eq!(civil_from_days(-DATE_EPOCH), (-5_877_641, 6, 23));
        // The spec's "2^32: 5881580-07-11" is the largest wire value, 2^32 - 1.
        assert_eq!(civil_from_days(DATE_EPOCH - 1), (5_881_580, 7, 11));
        let mut day = -DATE_EPOCH * 50;
        while day < DATE_EPOCH * 50 {
            let (y, m, d) = civil_from_days(day);
            assert_eq!(days_from_civil(y, m, d), day);
            day += 7_777_777;
        }
    }

    #[test]
    fn timestamps_accepted() {
        assert_eq!(ts("1970-01-01"), Ok(0));
        assert_eq!(ts("2024-01-02T03:04:05Z"), Ok(1_704_164_645_000));
        assert_eq!(ts("2024-01-02t03:04:05z"), Ok(1_704_164_645_000));
        assert_eq!(ts("2024-01-02 03:04:05.123+0200"), Ok(1_704_157_445_123));
        assert_eq!(ts("2024-01-02 03:04:05.123 +02:00"), Ok(1_704_157_445_123));
        assert_eq!(ts("2024-01-02T03:04:05.1-01"), Ok(1_704_168_245_100));
        assert_eq!(ts("2024-01-02T03:04"), Ok(1_704_164_640_000));
        assert_eq!(ts("2024-01-02T03:04:05.123000000Z"), Ok(1_704_164_645_123));
        assert_eq!(ts("2024-01-02Z"), Ok(1_704_153_600_000));
        assert_eq!(ts("1969-12-31T23:59:59.999Z"), Ok(-1));
        assert_eq!(ts("+10000-01-01T00:00:00Z"), Ok(253_402_300_800_000));
        assert_eq!(ts("-0001-01-01"), Ok(days_from_civil(-1, 1, 1) * MILLIS_PER_DAY));
        assert_eq!(parse_timestamp("2024-01-02T03:04:05", &ZoneRules::fixed_minutes(120)), Ok(1_704_157_445_000));
        assert_eq!(ts("-292275055-05-16T16:47:04.192Z"), Ok(i64::MIN));
        assert_eq!(ts("+292278994-08-17T07:12:55.807Z"), Ok(i64::MAX));
    }

    #[test]
    fn timestamps_rejected() {
        for (bad, want) in [
            ("", "not ISO 8601: expected a year of 4 to 10 digits (yyyy-mm-dd)"),
            ("2024", "expected '-' after the year"),
            ("2024-1-02", "expected two digits for the month"),
            ("2024-13-01", "month 13 is not 1 to 12"),
            ("2024-02-30", "day 30 does not exist in 2024-02"),
            ("2023-02-29", "day 29 does not exist in 2023-02"),
            ("2024-01-02T24:00:00Z", "24:00:00 is not a time of day"),
            ("2024-01-02T03:60:00Z", "03:60:00 is not a time of day"),
            ("2024-01-02T03:04:60Z", "03:04:60 is not a time of day"),
            ("2024-01-02T03:04:05.1234Z", "timestamps hold milliseconds: the sub-millisecond digits would be lost"),
            ("2024-01-02T03:04:05.Z", "expected 1 to 9 digits of fraction"),
            ("2024-01-02T03:04:05.0123456789Z", "expected 1 to 9 digits of fraction"),
            ("2024-01-02T03Z", "expected ':' after the hour"),
            ("2024-01-02T03:04:05+19:00", "zone offset out of range"),
            ("2024-01-02T03:04:05 PST", "unexpected text after the timestamp"),
            ("2024-01-02T03:04:05Zjunk", "unexpected text after the timestamp"),
            ("+292278994-08-17T07:12:55.808Z", "timestamp out of the 64-bit millisecond range"),
            ("12345678901-01-01", "not ISO 8601: expected a year of 4 to 10 digits (yyyy-mm-dd)"),
            ("24-01-02", "not ISO 8601: expected a year of 4 to 10 digits (yyyy-mm-dd)"),
        ] {
            assert_eq!(ts(bad).unwrap_err(), want, "{bad:?} accepted");
        }
    }

    #[test]
    fn timestamps_round_trip_through_text() {
        for millis in [0, -1, 1, 1_704_164_645_123, -2_208_988_800_000, i64::MIN, i64::MAX, 253_402_300_800_000] {
            let s = text(|out| format_timestamp(millis, out));
            assert_eq!(ts(&s), Ok(millis), "{s}");
        }
        assert_eq!(text(|out| format_timestamp(0, out)), "1970-01-01T00:00:00.000Z");
        assert_eq!(text(|out| format_timestamp(-1, out)), "1969-12-31T23:59:59.999Z");
        assert_eq!(text(|out| format_timestamp(i64::MIN, out)), "-292275055-05-16T16:47:04.192Z");
    }

    #[test]
    fn dates() {
        assert_eq!(parse_date("1970-01-01"), Ok(0));
        assert_eq!(parse_date("-5877641-06-23"), Ok(-DATE_EPOCH));
        assert_eq!(parse_date("+5881580-07-11"), Ok(DATE_EPOCH - 1));
        assert_eq!(parse_date("5881580-07-11"), Ok(DATE_EPOCH - 1));
        assert_eq!(parse_date("0000-02-29"), Ok(days_from_civil(0, 2, 29)));
        for (bad, want) in [
            ("", "not ISO 8601: expected a year of 4 to 10 digits (yyyy-mm-dd)"),
            ("-5877641-06-22", "date out of range (-5877641-06-23 to 5881580-07-11)"),
            ("5881580-07-12", "date out of range (-5877641-06-23 to 5881580-07-11)"),
            ("1970-01-01T00:00", "unexpected text after the date"),
            ("1970-1-1", "expected two digits for the month"),
            ("1970-01-32", "day 32 does not exist in 1970-01"),
            ("0", "not ISO 8601: expected a year of 4 to 10 digits (yyyy-mm-dd)"),
            ("x", "not ISO 8601: expected a year of 4 to 10 digits (yyyy-mm-dd)"),
            // vega-datasets' stocks.csv: the reason says which format was expected.
            ("Jan 1 2000", "not ISO 8601: expected a year of 4 to 10 digits (yyyy-mm-dd)"),
        ] {
            assert_eq!(parse_date(bad).unwrap_err(), want, "{bad:?} accepted");
        }
        for days in [-DATE_EPOCH, -25_567, -1, 0, 19_723, 2_932_896, DATE_EPOCH - 1] {
            let s = text(|out| format_date(days, out));
            assert_eq!(parse_date(&s), Ok(days), "{s}");
        }
        assert_eq!(text(|out| format_date(-DATE_EPOCH, out)), "-5877641-06-23");
        assert_eq!(text(|out| format_date(DATE_EPOCH - 1, out)), "+5881580-07-11");
        assert_eq!(text(|out| format_date(days_from_civil(-1, 12, 31), out)), "-0001-12-31");
    }

    #[test]
    fn times() {
        assert_eq!(parse_time("00:00:00"), Ok(0));
        assert_eq!(parse_time("23:59:59.999999999"), Ok(NANOS_PER_DAY - 1));
        assert_eq!(parse_time("08:12:54.123"), Ok(29_574_123_000_000));
        // Seconds may be left out, as spreadsheets often write times.
        assert_eq!(parse_time("08:12"), Ok(29_520_000_000_000));
        for (bad, want) in [
            ("", "expected two digits for the hour"),
            ("24:00:00", "24:00:00 is not a time of day"),
            ("08", "expected ':' after the hour"),
            ("8:12:54", "expected two digits for the hour"),
            ("08:60:00", "08:60:00 is not a time of day"),
            ("08:12:54.", "expected 1 to 9 digits of fraction"),
            ("08:12:54.1234567890", "expected 1 to 9 digits of fraction"),
            ("08:12:54Z", "unexpected text after the time"),
        ] {
            assert_eq!(parse_time(bad).unwrap_err(), want, "{bad:?} accepted");
        }
        for nanos in [0, 1, 29_574_123_000_000, NANOS_PER_DAY - 1] {
            let s = text(|out| format_time(nanos, out));
            assert_eq!(parse_time(&s), Ok(nanos), "{s}");
        }
        assert_eq!(text(|out| format_time(29_574_123_000_000, out)), "08:12:54.123000000");
        assert_eq!(check_time_nanos(NANOS_PER_DAY).unwrap_err(), "time must be 0 to 86399999999999 ns");
    }

    #[test]
    fn durations_accepted() {
        const H: i64 = 3_600_000_000_000;
        for (s, want) in [
            ("1h30m", (0, 0, H * 3 / 2)),
            ("1mo2d3ns", (1, 2, 3)),
            ("1y2mo3w4d5h6m7s8ms9us10ns", (14, 25, 5 * H + 6 * 60_000_000_000 + 7_008_009_010)),
            ("1MO1M1Ms", (1, 0, 60_001_000_000)),
            ("3µs", (0, 0, 3000)),
            ("-1h", (0, 0, -H)),
            ("0s", (0, 0, 0)),
            ("P1Y2M3DT4H5M6S", (14, 3, 4 * H + 5 * 60_000_000_000 + 6_000_000_000)),
            ("P1DT2H", (0, 1, 2 * H)),
            ("PT1M", (0, 0, 60_000_000_000)),
            ("P2W", (0, 14, 0)),
            ("-P1M", (-1, 0, 0)),
            ("P0001-02-03T04:05:06", (14, 3, 4 * H + 5 * 60_000_000_000 + 6_000_000_000)),
            ("-178956970y8mo", (i32::MIN, 0, 0)),
            ("178956970y7mo", (i32::MAX, 0, 0)),
            ("-9223372036854775808ns", (0, 0, i64::MIN)),
        ] {
            assert_eq!(parse_duration(s), Ok(want), "{s}");
        }
    }

    #[test]
    fn durations_rejected() {
        for (bad, want) in [
            ("", "expected a number and a unit"),
            ("-", "expected a number and a unit"),
            ("1", "unknown unit (use y, mo, w, d, h, m, s, ms, us, ns)"),
            ("h", "expected a number of at most 19 digits"),
            ("1x", "unknown unit (use y, mo, w, d, h, m, s, ms, us, ns)"),
            ("1h 30m", "expected a number of at most 19 digits"),
            ("+1h", "expected a number of at most 19 digits"),
            ("1h-30m", "expected a number of at most 19 digits"),
            ("178956970y8mo", "months out of the 32-bit range"),
            ("2147483648d", "days out of the 32-bit range"),
            ("9223372036854775808ns", "nanoseconds out of the 64-bit range"),
            ("99999999999999999999ns", "expected a number of at most 19 digits"),
            ("P", "expected at least one component after 'P'"),
            ("PT", "expected hours, minutes or seconds after 'T'"),
            ("P1H", "expected designators in the order Y M D T H M S (or nW alone)"),
            ("PT1D", "expected designators in the order Y M D T H M S (or nW alone)"),
            ("P1D2Y", "expected designators in the order Y M D T H M S (or nW alone)"),
            ("P1W1D", "weeks (nW) cannot be combined with other designators"),
            ("P1Y1W", "weeks (nW) cannot be combined with other designators"),
            ("P1.5D", "expected designators in the order Y M D T H M S (or nW alone)"),
            ("P0001-02-03", "expected PYYYY-MM-DDThh:mm:ss"),
            ("P0001-02-03T04:05", "expected PYYYY-MM-DDThh:mm:ss"),
        ] {
            assert_eq!(parse_duration(bad).unwrap_err(), want, "{bad:?} accepted");
        }
    }

    #[test]
    fn durations_round_trip_through_text() {
        for (m, d, n) in [
            (0, 0, 0),
            (1, 2, 3),
            (-1, -2, -3),
            (14, 0, 5_400_000_000_000),
            (i32::MAX, i32::MAX, i64::MAX),
            (i32::MIN, i32::MIN, i64::MIN),
            (0, 0, 1_001_001),
        ] {
            let s = text(|out| format_duration(m, d, n, out));
            assert_eq!(parse_duration(&s), Ok((m, d, n)), "{s}");
        }
        assert_eq!(text(|out| format_duration(0, 0, 5_400_000_000_000, out)), "1h30m");
        assert_eq!(text(|out| format_duration(-14, -1, -1, out)), "-1y2mo1d1ns");
    }

    #[test]
    fn integers() {
        assert_eq!(integer("-12"), Some(Ok(-12)));
        assert_eq!(integer("+12"), Some(Ok(12)));
        assert!(matches!(integer("99999999999999999999"), Some(Err(_))));
        assert_eq!(integer("1970-01-01"), None);
        assert_eq!(integer("-"), None);
        assert_eq!(integer(""), None);
    }

    #[test]
    fn civil_dates_at_leap_days_and_era_ends() {
        // Checked against Python's datetime.date (an independent proleptic Gregorian calendar).
        // 2000-02-29 and 2400-02-29 are the last day of a 400-year era: the only days where
        // the era-length correction in civil_from_days matters.
        for (days, date) in [
            (11_016, (2000, 2, 29)),
            (11_017, (2000, 3, 1)),
            (11_015, (2000, 2, 28)),
            (10_956, (1999, 12, 31)),
            (10_957, (2000, 1, 1)),
            (-135_081, (1600, 2, 29)),
            (-25_509, (1900, 2, 28)),
            (-25_508, (1900, 3, 1)),
            (47_541, (2100, 3, 1)),
            (157_113, (2400, 2, 29)),
            (157_419, (2400, 12, 31)),
            (-719_162, (1, 1, 1)),
            (2_932_896, (9999, 12, 31)),
            (19_782, (2024, 2, 29)),
            (20_088, (2024, 12, 31)),
        ] {
            assert_eq!(civil_from_days(days), date, "{days}");
            assert_eq!(days_from_civil(date.0, date.1, date.2), days, "{date:?}");
        }
    }

    #[test]
    fn month_lengths() {
        let common = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
        let leap = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
        for (year, want) in
            [(2023, common), (2024, leap), (1900, common), (2000, leap), (2100, common), (0, leap), (-4, leap), (-100, common), (-400, leap), (-1, common)]
        {
            let got: Vec<u32> = (1..=12).map(|m| days_in_month(year, m)).collect();
            assert_eq!(got, want, "{year}");
        }
        assert_eq!(parse_date("2024-02-29"), Ok(19_782));
        assert_eq!(parse_date("2000-02-29"), Ok(11_016));
        assert_eq!(parse_date("2024-04-30"), Ok(days_from_civil(2024, 4, 30)));
        for (bad, want) in [
            ("1900-02-29", "day 29 does not exist in 1900-02"),
            ("2100-02-29", "day 29 does not exist in 2100-02"),
            ("2024-04-31", "day 31 does not exist in 2024-04"),
            ("2024-06-31", "day 31 does not exist in 2024-06"),
            ("2024-09-31", "day 31 does not exist in 2024-09"),
            ("2024-11-31", "day 31 does not exist in 2024-11"),
            ("2024-01-00", "day 0 does not exist in 2024-01"),
            ("2024-00-01", "month 0 is not 1 to 12"),
        ] {
            assert_eq!(parse_date(bad).unwrap_err(), want, "{bad:?} accepted");
        }
    }

    #[test]
    fn years_are_written_with_a_sign_only_outside_0000_to_9999() {
        for (days, want) in [
            (days_from_civil(9999, 12, 31), "9999-12-31"),
            (days_from_civil(10_000, 1, 1), "+10000-01-01"),
            (days_from_civil(0, 1, 1), "0000-01-01"),
            (days_from_civil(-1, 12, 31), "-0001-12-31"),
            (days_from_civil(-10_000, 1, 1), "-10000-01-01"),
        ] {
            assert_eq!(text(|out| format_date(days, out)), want);
            assert_eq!(parse_date(want), Ok(days), "{want}");
        }
        assert_eq!(text(|out| format_timestamp(253_402_300_800_000, out)), "+10000-01-01T00:00:00.000Z");
        assert_eq!(text(|out| format_timestamp(253_402_300_799_999, out)), "9999-12-31T23:59:59.999Z");
    }

    #[test]
    fn years_of_ten_digits_are_read() {
        assert_eq!(parse_date("0000001970-01-01"), Ok(0));
        assert_eq!(parse_date("-0000000001-12-31"), Ok(days_from_civil(-1, 12, 31)));
        assert_eq!(ts("0000002024-01-02T03:04:05Z"), Ok(1_704_164_645_000));
    }

    #[test]
    fn zone_offsets() {
        const AT_UTC: i64 = 1_704_164_645_000; // 2024-01-02T03:04:05Z
        for (zone, minutes) in [
            ("+05:30", 330),
            ("+0530", 330),
            ("-09:30", -570),
            ("-0945", -585),
            ("+18:00", 18 * 60),
            ("-18", -18 * 60),
            ("+01:59", 119),
            ("+00:01", 1),
        ] {
            assert_eq!(ts(&format!("2024-01-02T03:04:05{zone}")), Ok(AT_UTC - minutes * 60_000), "{zone}");
        }
        for bad in ["+19", "-19:00", "+01:60", "+0060"] {
            assert_eq!(ts(&format!("2024-01-02T03:04:05{bad}")).unwrap_err(), "zone offset out of range", "{bad}");
        }
    }

    #[test]
    fn a_date_with_a_zone_and_no_time() {
        // A blank or 'T' starts a time only when a digit follows it.
        assert_eq!(ts("2024-01-02 +02:00"), Ok(1_704_146_400_000));
        assert_eq!(ts("2024-01-02 Z"), Ok(1_704_153_600_000));
        assert_eq!(ts("2024-01-02T").unwrap_err(), "unexpected text after the timestamp");
        assert_eq!(ts("2024-01-02TZ").unwrap_err(), "unexpected text after the timestamp");
    }

    #[test]
    fn a_negative_duration_with_one_unit_keeps_its_sign() {
        for (m, d, n, want) in [
            (-1, 0, 0, "-1mo"),
            (-12, 0, 0, "-1y"),
            (0, -1, 0, "-1d"),
            (0, 0, -1, "-1ns"),
            (0, -3, -1, "-3d1ns"),
            (-1, 0, -1, "-1mo1ns"),
            (-1, -1, 0, "-1mo1d"),
            (1, 0, 0, "1mo"),
            (0, 1, 0, "1d"),
            (0, 0, 1, "1ns"),
        ] {
            assert_eq!(text(|out| format_duration(m, d, n, out)), want);
            assert_eq!(parse_duration(want), Ok((m, d, n)), "{want}");
        }
    }

    #[test]
    fn iso_designators_appear_at_most_once() {
        for bad in ["P1Y2Y", "P1M2M", "P1D2D", "PT1H2H", "PT1M2M", "PT1S2S", "P1M2Y"] {
            assert_eq!(
                parse_duration(bad).unwrap_err(),
                "expected designators in the order Y M D T H M S (or nW alone)",
                "{bad:?} accepted"
            );
        }
        assert_eq!(parse_duration("PT1HT2M").unwrap_err(), "expected a number before each designator");
        assert_eq!(parse_duration("p1y2m3dt4h5m6s"), Ok((14, 3, 4 * 3_600_000_000_000 + 306_000_000_000)));
        assert_eq!(parse_duration("3µS"), Ok((0, 0, 3000)));
    }

    #[test]
    fn out_of_range_integers_and_clock_values() {
        assert_eq!(integer("9223372036854775808"), Some(Err(Cow::Borrowed("integer out of range"))));
        assert_eq!(integer("-9223372036854775808"), Some(Ok(i64::MIN)));
        assert_eq!(check_time_nanos(-1).unwrap_err(), "time must be 0 to 86399999999999 ns");
        assert_eq!(check_time_nanos(0), Ok(0));
        assert_eq!(check_time_nanos(NANOS_PER_DAY - 1), Ok(NANOS_PER_DAY - 1));
        assert_eq!(check_date_days(-DATE_EPOCH - 1).unwrap_err(), "date out of range (-5877641-06-23 to 5881580-07-11)");
        assert_eq!(check_date_days(DATE_EPOCH).unwrap_err(), "date out of range (-5877641-06-23 to 5881580-07-11)");
        assert_eq!(check_date_days(-DATE_EPOCH), Ok(-DATE_EPOCH));
    }
}
