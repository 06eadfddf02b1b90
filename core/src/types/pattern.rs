//! `strftime`-like patterns for timestamps, dates and times in files that do not use ISO
//! 8601: `%d/%m/%Y %H:%M:%S`, `%b %e %Y %I:%M %p`, `%Y%m%d`.
//!
//! | spec | reads |
//! |---|---|
//! | `%Y` | year, 1 to 4 digits, or up to 9 after a sign |
//! | `%y` | two-digit year: 00-68 is 2000-2068, 69-99 is 1969-1999 (as POSIX) |
//! | `%m` `%d` `%e` `%H` `%I` `%M` `%S` | month, day, hour (24h), hour (12h), minute, second: 1 or 2 digits (`%e` may start with a space) |
//! | `%j` | day of the year, 1 to 3 digits |
//! | `%f` | fraction of a second, 1 to 9 digits (the dot is a literal before it) |
//! | `%b` `%B` | English month name, abbreviated or full, any case |
//! | `%p` | `AM` or `PM`, any case |
//! | `%z` | `Z`, `UTC`, `+HH`, `+HHMM` or `+HH:MM` (or `-`) |
//! | `%T` | `%H:%M:%S` |
//! | `%F` | `%Y-%m-%d` |
//! | `%%` | a percent sign |
//!
//! Any other character must appear as written. A pattern is parsed once, when the load is
//! configured, and then matched against every field without allocating.

use std::borrow::Cow;

use super::temporal::{self, Reason};

/// One piece of a pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    Literal(char),
    Year,
    ShortYear,
    Month,
    MonthName,
    MonthFullName,
    Day,
    DayOfYear,
    Hour,
    Hour12,
    AmPm,
    Minute,
    Second,
    Fraction,
    Zone,
}

/// A parsed pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    items: Vec<Item>,
    text: String,
}

/// What a field matched against a pattern gave; absent parts take their defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fields {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub day_of_year: Option<u32>,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub nanos: u32,
    /// Minutes east of UTC, when the text gave a zone.
    pub offset: Option<i32>,
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

impl Pattern {
    /// Parses `%`-specs; an unknown spec or a lone `%` at the end is an error.
    pub fn parse(text: &str) -> Result<Pattern, String> {
        let mut items = Vec::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                items.push(Item::Literal(c));
                continue;
            }
            let spec = chars.next().ok_or_else(|| format!("pattern '{text}' ends with a lone %"))?;
            match spec {
                'Y' => items.push(Item::Year),
                'y' => items.push(Item::ShortYear),
                'm' => items.push(Item::Month),
                'b' | 'h' => items.push(Item::MonthName),
                'B' => items.push(Item::MonthFullName),
                'd' | 'e' => items.push(Item::Day),
                'j' => items.push(Item::DayOfYear),
                'H' | 'k' => items.push(Item::Hour),
                'I' | 'l' => items.push(Item::Hour12),
                'p' | 'P' => items.push(Item::AmPm),
                'M' => items.push(Item::Minute),
                'S' => items.push(Item::Second),
                'f' => items.push(Item::Fraction),
                'z' | 'Z' => items.push(Item::Zone),
                'T' => items.extend([Item::Hour, Item::Literal(':'), Item::Minute, Item::Literal(':'), Item::Second]),
                'F' => items.extend([Item::Year, Item::Literal('-'), Item::Month, Item::Literal('-'), Item::Day]),
                '%' => items.push(Item::Literal('%')),
                other => return Err(format!("pattern '{text}': unknown spec %{other}")),
            }
        }
        Ok(Pattern { items, text: text.to_owned() })
    }

    /// The pattern as given.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Matches the whole of `s`.
    pub(crate) fn read(&self, s: &str) -> Result<Fields, Reason> {
        let mut f = Fields {
            year: 1970,
            month: 1,
            day: 1,
            day_of_year: None,
            hour: 0,
            minute: 0,
            second: 0,
            nanos: 0,
            offset: None,
        };
        let mut pm: Option<bool> = None;
        let mut hour12: Option<u32> = None;
        let mut rest = s;
        for item in &self.items {
            rest = match *item {
                Item::Literal(c) => rest.strip_prefix(c).ok_or_else(|| self.mismatch(s, rest))?,
                Item::Year => {
                    let (negative, body) = match rest.as_bytes().first() {
                        Some(b'-') => (true, &rest[1..]),
                        Some(b'+') => (false, &rest[1..]),
                        _ => (false, rest),
                    };
                    // Four digits, so that `%Y%m%d` works; a signed year may be longer.
                    let longest = if body.len() == rest.len() { 4 } else { 9 };
                    let (n, tail) = digits(body, 1, longest).ok_or_else(|| self.mismatch(s, rest))?;
                    f.year = if negative { -(n as i64) } else { n as i64 };
                    tail
                }
                Item::ShortYear => {
                    let (n, tail) = digits(rest, 2, 2).ok_or_else(|| self.mismatch(s, rest))?;
                    f.year = if n < 69 { 2000 + n as i64 } else { 1900 + n as i64 };
                    tail
                }
                Item::Month => number(rest, 2, &mut f.month).ok_or_else(|| self.mismatch(s, rest))?,
                Item::Day => number(rest.strip_prefix(' ').unwrap_or(rest), 2, &mut f.day)
                    .ok_or_else(|| self.mismatch(s, rest))?,
                Item::DayOfYear => {
                    let (n, tail) = digits(rest, 1, 3).ok_or_else(|| self.mismatch(s, rest))?;
                    f.day_of_year = Some(n as u32);
                    tail
                }
                Item::Hour => number(rest.strip_prefix(' ').unwrap_or(rest), 2, &mut f.hour)
                    .ok_or_else(|| self.mismatch(s, rest))?,
                Item::Hour12 => {
                    let mut h = 0;
                    let tail = number(rest.strip_prefix(' ').unwrap_or(rest), 2, &mut h)
                        .ok_or_else(|| self.mismatch(s, rest))?;
                    hour12 = Some(h);
                    tail
                }
                Item::Minute => number(rest, 2, &mut f.minute).ok_or_else(|| self.mismatch(s, rest))?,
                Item::Second => number(rest, 2, &mut f.second).ok_or_else(|| self.mismatch(s, rest))?,
                Item::Fraction => {
                    let (_, tail) = digits(rest, 1, 9).ok_or_else(|| self.mismatch(s, rest))?;
                    let used = &rest[..rest.len() - tail.len()];
                    f.nanos = used
                        .bytes()
                        .chain(std::iter::repeat(b'0'))
                        .take(9)
                        .fold(0, |v, d| v * 10 + u32::from(d - b'0'));
                    tail
                }
                Item::MonthName | Item::MonthFullName => {
                    let (month, tail) = month_name(rest).ok_or_else(|| self.mismatch(s, rest))?;
                    f.month = month;
                    tail
                }
                Item::AmPm => {
                    let head = rest.get(..2).ok_or_else(|| self.mismatch(s, rest))?;
                    pm = Some(match head.to_ascii_uppercase().as_str() {
                        "AM" => false,
                        "PM" => true,
                        _ => return Err(self.mismatch(s, rest)),
                    });
                    &rest[2..]
                }
                Item::Zone => {
                    let (offset, tail) = zone(rest).ok_or_else(|| self.mismatch(s, rest))?;
                    f.offset = Some(offset);
                    tail
                }
            };
        }
        if !rest.is_empty() {
            return Err(Cow::Owned(format!("unexpected text '{rest}' after pattern '{}'", self.text)));
        }
        if let Some(h) = hour12 {
            if !(1..=12).contains(&h) {
                return Err(Cow::Owned(format!("hour {h} is not a 12-hour clock hour")));
            }
            f.hour = (h % 12) + if pm == Some(true) { 12 } else { 0 };
        }
        if f.hour > 23 || f.minute > 59 || f.second > 59 {
            return Err(Cow::Owned(format!("{:02}:{:02}:{:02} is not a time of day", f.hour, f.minute, f.second)));
        }
        Ok(f)
    }

    /// Writes `f` in this pattern: numbers zero-padded, `%f` as 3 digits (9 when the
    /// nanoseconds need them), `%z` as `Z` or `+HH:MM`. What it writes, [`Pattern::read`] reads.
    pub(crate) fn write(&self, f: &Fields, out: &mut String) {
        use std::fmt::Write as _;
        let hour12 = if f.hour.is_multiple_of(12) { 12 } else { f.hour % 12 };
        for item in &self.items {
            let _ = match *item {
                Item::Literal(c) => write!(out, "{c}"),
                Item::Year if (0..=9999).contains(&f.year) => write!(out, "{:04}", f.year),
                Item::Year => write!(out, "{:+}", f.year),
                Item::ShortYear => write!(out, "{:02}", f.year.rem_euclid(100)),
                Item::Month => write!(out, "{:02}", f.month),
                Item::MonthName | Item::MonthFullName => {
                    let name = MONTHS.get(f.month.saturating_sub(1) as usize).copied().unwrap_or("?");
                    let name = if *item == Item::MonthName { &name[..3.min(name.len())] } else { name };
                    let mut chars = name.chars();
                    let first = chars.next().map(|c| c.to_ascii_uppercase()).unwrap_or('?');
                    write!(out, "{first}{}", chars.as_str())
                }
                Item::Day => write!(out, "{:02}", f.day),
                Item::DayOfYear => {
                    let yday = f.days().map_or(0, |d| d - temporal::days_from_civil(f.year, 1, 1) + 1);
                    write!(out, "{yday:03}")
                }
                Item::Hour => write!(out, "{:02}", f.hour),
                Item::Hour12 => write!(out, "{hour12:02}"),
                Item::AmPm => write!(out, "{}", if f.hour < 12 { "AM" } else { "PM" }),
                Item::Minute => write!(out, "{:02}", f.minute),
                Item::Second => write!(out, "{:02}", f.second),
                Item::Fraction if f.nanos.is_multiple_of(1_000_000) => write!(out, "{:03}", f.nanos / 1_000_000),
                Item::Fraction => write!(out, "{:09}", f.nanos),
                Item::Zone => match f.offset.unwrap_or(0) {
                    0 => write!(out, "Z"),
                    m => write!(out, "{}{:02}:{:02}", if m < 0 { '-' } else { '+' }, m.abs() / 60, m.abs() % 60),
                },
            };
        }
    }

    fn mismatch(&self, s: &str, rest: &str) -> Reason {
        let at = s.len() - rest.len();
        Cow::Owned(format!("does not match pattern '{}' at byte {at}", self.text))
    }
}

impl Fields {
    /// The civil fields of `days` since 1970-01-01 and `time_nanos` since midnight.
    pub(crate) fn from_parts(days: i64, time_nanos: i64, offset: Option<i32>) -> Fields {
        let (year, month, day) = temporal::civil_from_days(days);
        let seconds = (time_nanos / 1_000_000_000) as u32;
        Fields {
            year,
            month,
            day,
            day_of_year: None,
            hour: seconds / 3600,
            minute: seconds / 60 % 60,
            second: seconds % 60,
            nanos: (time_nanos % 1_000_000_000) as u32,
            offset,
        }
    }

    /// Days since 1970-01-01, checking the calendar.
    pub(crate) fn days(&self) -> Result<i64, Reason> {
        if let Some(yday) = self.day_of_year {
            let length = if temporal::days_in_month(self.year, 2) == 29 { 366 } else { 365 };
            if !(1..=length).contains(&yday) {
                return Err(Cow::Owned(format!("day {yday} is not a day of year {}", self.year)));
            }
            return Ok(temporal::days_from_civil(self.year, 1, 1) + i64::from(yday) - 1);
        }
        if !(1..=12).contains(&self.month) || self.day < 1 || self.day > temporal::days_in_month(self.year, self.month)
        {
            return Err(Cow::Owned(format!("{:04}-{:02}-{:02} is not a date", self.year, self.month, self.day)));
        }
        Ok(temporal::days_from_civil(self.year, self.month, self.day))
    }

    /// Nanoseconds since midnight.
    pub(crate) fn time_nanos(&self) -> i64 {
        i64::from(self.hour * 3600 + self.minute * 60 + self.second) * 1_000_000_000 + i64::from(self.nanos)
    }
}

/// `min..=max` ASCII digits at the start of `s`, as a number, and the rest.
fn digits(s: &str, min: usize, max: usize) -> Option<(u64, &str)> {
    let n = s.bytes().take(max).take_while(u8::is_ascii_digit).count();
    if n < min {
        return None;
    }
    let value = s.as_bytes()[..n].iter().fold(0u64, |v, d| v * 10 + u64::from(d - b'0'));
    Some((value, &s[n..]))
}

fn number<'s>(s: &'s str, max: usize, into: &mut u32) -> Option<&'s str> {
    let (n, tail) = digits(s, 1, max)?;
    *into = n as u32;
    Some(tail)
}

/// A full or three-letter English month name, any case.
fn month_name(s: &str) -> Option<(u32, &str)> {
    for (index, name) in MONTHS.iter().enumerate() {
        for candidate in [*name, &name[..3]] {
            if s.get(..candidate.len()).is_some_and(|head| head.eq_ignore_ascii_case(candidate)) {
                return Some((index as u32 + 1, &s[candidate.len()..]));
            }
        }
    }
    None
}

/// `Z`, `UTC`, `GMT`, or `+HH[[:]MM]` / `-HH[[:]MM]` at the start of `s`: minutes east of UTC.
pub(crate) fn zone(s: &str) -> Option<(i32, &str)> {
    for utc in ["UTC", "GMT", "Z"] {
        if s.get(..utc.len()).is_some_and(|head| head.eq_ignore_ascii_case(utc)) {
            let rest = &s[utc.len()..];
            // `UTC+02:00` is an offset from UTC.
            return match rest.as_bytes().first() {
                Some(b'+' | b'-') if utc != "Z" => zone(rest),
                _ => Some((0, rest)),
            };
        }
    }
    let sign = match s.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let (hours, tail) = digits(&s[1..], 2, 2)?;
    let tail_after_colon = tail.strip_prefix(':').unwrap_or(tail);
    let (minutes, tail) = match digits(tail_after_colon, 2, 2) {
        Some((m, t)) => (m, t),
        None if tail_after_colon.len() == tail.len() => (0, tail),
        None => return None,
    };
    if hours > 18 || minutes > 59 {
        return None;
    }
    Some((sign * (hours * 60 + minutes) as i32, tail))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pattern: &str, s: &str) -> Result<Fields, Reason> {
        Pattern::parse(pattern).unwrap().read(s)
    }

    #[test]
    fn day_month_year_with_a_12_hour_clock() {
        let f = read("%d/%m/%Y %I:%M:%S %p", "03/11/2024 07:05:09 pm").unwrap();
        assert_eq!((f.year, f.month, f.day, f.hour, f.minute, f.second), (2024, 11, 3, 19, 5, 9));
        assert_eq!(read("%I %p", "12 AM").unwrap().hour, 0);
        assert_eq!(read("%I %p", "12 PM").unwrap().hour, 12);
        assert_eq!(read("%I %p", "13 PM").unwrap_err(), "hour 13 is not a 12-hour clock hour");
    }

    #[test]
    fn month_names_fractions_and_zones() {
        let f = read("%b %e %Y %T.%f %z", "Mar  7 2021 23:59:58.25 +05:30").unwrap();
        assert_eq!((f.month, f.day, f.nanos, f.offset), (3, 7, 250_000_000, Some(330)));
        assert_eq!(read("%B %d, %Y", "september 01, 1999").unwrap().month, 9);
        assert_eq!(read("%F%z", "2020-02-29UTC").unwrap().offset, Some(0));
        assert_eq!(read("%F %z", "2020-02-29 UTC-08").unwrap().offset, Some(-480));
        assert_eq!(read("%Y%m%d", "20240102").unwrap().days(), Ok(19724));
        assert_eq!(read("%y-%j", "24-366").unwrap().days(), Ok(temporal::days_from_civil(2024, 12, 31)));
    }

    #[test]
    fn mismatches_name_the_pattern_and_the_byte() {
        assert_eq!(read("%d/%m/%Y", "03-11-2024").unwrap_err(), "does not match pattern '%d/%m/%Y' at byte 2");
        assert_eq!(read("%d/%m/%Y", "03/11/2024x").unwrap_err(), "unexpected text 'x' after pattern '%d/%m/%Y'");
        assert_eq!(read("%F", "2023-02-29").unwrap().days().unwrap_err(), "2023-02-29 is not a date");
        assert_eq!(read("%T", "24:00:00").unwrap_err(), "24:00:00 is not a time of day");
        assert_eq!(Pattern::parse("%Q").unwrap_err(), "pattern '%Q': unknown spec %Q");
        assert_eq!(Pattern::parse("x%").unwrap_err(), "pattern 'x%' ends with a lone %");
    }

    fn fields(year: i64, month: u32, day: u32, hour: u32, minute: u32, second: u32, nanos: u32) -> Fields {
        Fields { year, month, day, day_of_year: None, hour, minute, second, nanos, offset: None }
    }

    fn write(pattern: &str, f: &Fields) -> String {
        let mut out = String::new();
        Pattern::parse(pattern).unwrap().write(f, &mut out);
        out
    }

    #[test]
    fn keeps_the_pattern_text() {
        assert_eq!(Pattern::parse("%d/%m/%Y").unwrap().as_str(), "%d/%m/%Y");
    }

    #[test]
    fn years_signed_long_and_two_digit() {
        assert_eq!(read("%Y", "-0044").unwrap().year, -44);
        assert_eq!(read("%Y", "+12345").unwrap().year, 12345);
        assert_eq!(read("%Y", "-123456789").unwrap().year, -123_456_789);
        // An unsigned year stops after four digits, a signed one after nine.
        assert_eq!(read("%Y", "12345").unwrap_err(), "unexpected text '5' after pattern '%Y'");
        assert_eq!(read("%Y", "+1234567890").unwrap_err(), "unexpected text '0' after pattern '%Y'");
        assert_eq!(read("%F", "+12345-06-07").map(|f| (f.year, f.month, f.day)), Ok((12345, 6, 7)));
        // POSIX: 00-68 is this century, 69-99 the last.
        for (text, year) in [("00", 2000), ("24", 2024), ("68", 2068), ("69", 1969), ("99", 1999)] {
            assert_eq!(read("%y", text).unwrap().year, year, "{text}");
        }
        assert_eq!(read("%y", "4").unwrap_err(), "does not match pattern '%y' at byte 0");
        assert_eq!(read("%y", "123").unwrap_err(), "unexpected text '3' after pattern '%y'");
        assert_eq!(read("x%m", "xy").unwrap_err(), "does not match pattern 'x%m' at byte 1");
    }

    #[test]
    fn fractions_are_scaled_to_nanoseconds() {
        assert_eq!(read("%S.%fZ", "07.123456789Z").unwrap().nanos, 123_456_789);
        assert_eq!(read("%S.%fZ", "07.000001Z").unwrap().nanos, 1_000);
        assert_eq!(read("%f", "5").unwrap().nanos, 500_000_000);
        assert_eq!(read("%f", "1234567890").unwrap_err(), "unexpected text '0' after pattern '%f'");
    }

    #[test]
    fn twelve_hour_clock_without_am_pm_is_morning() {
        assert_eq!(read("%I", "07").unwrap().hour, 7);
        assert_eq!(read("%I", "12").unwrap().hour, 0);
        assert_eq!(read("%I %p", "01 AM").unwrap().hour, 1);
        assert_eq!(read("%I %p", "11 pM").unwrap().hour, 23);
        assert_eq!(read("%I %p", "00 AM").unwrap_err(), "hour 0 is not a 12-hour clock hour");
        assert_eq!(read("%I %p", "07 XM").unwrap_err(), "does not match pattern '%I %p' at byte 3");
        assert_eq!(read("%I %p", "07 A").unwrap_err(), "does not match pattern '%I %p' at byte 3");
    }

    #[test]
    fn time_of_day_bounds() {
        let f = read("%H:%M:%S", "23:59:59").unwrap();
        assert_eq!((f.hour, f.minute, f.second), (23, 59, 59));
        assert_eq!(read("%H:%M:%S", "24:00:00").unwrap_err(), "24:00:00 is not a time of day");
        assert_eq!(read("%H:%M:%S", "00:60:00").unwrap_err(), "00:60:00 is not a time of day");
        assert_eq!(read("%H:%M:%S", "00:00:60").unwrap_err(), "00:00:60 is not a time of day");
    }

    #[test]
    fn calendar_checks() {
        let days = |text: &str| read("%Y-%m-%d", text).unwrap().days();
        assert_eq!(days("2024-04-30"), Ok(temporal::days_from_civil(2024, 4, 30)));
        assert_eq!(days("2024-04-01"), Ok(temporal::days_from_civil(2024, 4, 1)));
        assert_eq!(days("1970-01-01"), Ok(0));
        assert_eq!(days("1969-12-31"), Ok(-1));
        assert_eq!(days("2024-04-31").unwrap_err(), "2024-04-31 is not a date");
        assert_eq!(days("2024-04-00").unwrap_err(), "2024-04-00 is not a date");
        assert_eq!(days("2024-00-05").unwrap_err(), "2024-00-05 is not a date");
        assert_eq!(days("2024-13-05").unwrap_err(), "2024-13-05 is not a date");
        let yday = |text: &str| read("%Y-%j", text).unwrap().days();
        assert_eq!(yday("2023-365"), Ok(temporal::days_from_civil(2023, 12, 31)));
        assert_eq!(yday("2023-001"), Ok(temporal::days_from_civil(2023, 1, 1)));
        assert_eq!(yday("2023-032"), Ok(temporal::days_from_civil(2023, 2, 1)));
        assert_eq!(yday("2023-366").unwrap_err(), "day 366 is not a day of year 2023");
        assert_eq!(yday("2024-000").unwrap_err(), "day 0 is not a day of year 2024");
    }

    #[test]
    fn zones() {
        assert_eq!(zone("+05"), Some((300, "")));
        assert_eq!(zone("-0130x"), Some((-90, "x")));
        assert_eq!(zone("+18:59"), Some((1139, "")));
        assert_eq!(zone("+19:00"), None);
        assert_eq!(zone("+18:60"), None);
        assert_eq!(zone("+05:"), None);
        assert_eq!(zone("+5"), None);
        assert_eq!(zone("gmt+01"), Some((60, "")));
        assert_eq!(zone("z"), Some((0, "")));
        assert_eq!(zone("05:00"), None);
        assert_eq!(zone(""), None);
        // After `Z` a sign is not an offset.
        assert_eq!(zone("Z+01:00"), Some((0, "+01:00")));
        assert_eq!(read("%z", "Z+01:00").unwrap_err(), "unexpected text '+01:00' after pattern '%z'");
        assert_eq!(read("%z", "+05:").unwrap_err(), "does not match pattern '%z' at byte 0");
    }

    #[test]
    fn fields_from_days_and_nanoseconds() {
        let nanos = ((13 * 60 + 4) * 60 + 5) * 1_000_000_000 + 6;
        let f = Fields::from_parts(19_787, nanos, Some(-90));
        assert_eq!(f, Fields { offset: Some(-90), ..fields(2024, 3, 5, 13, 4, 5, 6) });
        assert_eq!(f.time_nanos(), nanos);
        assert_eq!(fields(1970, 1, 1, 0, 0, 0, 999_999_999).time_nanos(), 999_999_999);
        assert_eq!(fields(1970, 1, 1, 23, 59, 59, 0).time_nanos(), 86_399_000_000_000);
    }

    #[test]
    fn writes_what_it_reads() {
        let f = fields(2024, 3, 5, 13, 4, 5, 250_000_000);
        assert_eq!(write("%Y-%m-%d %H:%M:%S.%f %z", &f), "2024-03-05 13:04:05.250 Z");
        assert_eq!(write("%d %b %B %y %I%p %%", &f), "05 Mar March 24 01PM %");
        assert_eq!(write("%j", &f), "065");
        assert_eq!(write("%j", &fields(2024, 12, 31, 0, 0, 0, 0)), "366");
        assert_eq!(write("%I %p", &fields(2024, 1, 1, 0, 0, 0, 0)), "12 AM");
        assert_eq!(write("%I %p", &fields(2024, 1, 1, 12, 0, 0, 0)), "12 PM");
        assert_eq!(write("%I %p", &fields(2024, 1, 1, 11, 0, 0, 0)), "11 AM");
        assert_eq!(write("%f", &fields(2024, 1, 1, 0, 0, 0, 123_456_789)), "123456789");
        assert_eq!(write("%f", &fields(2024, 1, 1, 0, 0, 0, 0)), "000");
        assert_eq!(write("%Y", &fields(12345, 1, 1, 0, 0, 0, 0)), "+12345");
        assert_eq!(write("%Y", &fields(-44, 1, 1, 0, 0, 0, 0)), "-44");
        assert_eq!(write("%Y", &fields(9999, 1, 1, 0, 0, 0, 0)), "9999");
        assert_eq!(write("%Y", &fields(7, 1, 1, 0, 0, 0, 0)), "0007");
        assert_eq!(write("%z", &Fields { offset: Some(-90), ..f }), "-01:30");
        assert_eq!(write("%z", &Fields { offset: Some(330), ..f }), "+05:30");
        let text = write("%Y-%m-%d %I:%M:%S.%f %p %z", &Fields { offset: Some(-90), ..f });
        assert_eq!(read("%Y-%m-%d %I:%M:%S.%f %p %z", &text), Ok(Fields { offset: Some(-90), ..f }));
    }
}
