//! Which input records become rows, and how many bad ones a load tolerates: DSBulk's
//! `skipRecords`, `maxRecords` and `maxErrors` (a count or a percentage).
//!
//! A record is a data row of the input, good or bad (a CSV header, blank line or comment is
//! none). The first `skip` records are read and dropped: they are neither rows nor bad rows,
//! and the watermark passes them. After `max` more, the input ends there: later bytes are
//! never read. The error percentage is judged only once `ERROR_RATIO_MIN_SAMPLE` records
//! were read, so one bad row at the start does not stop a load (DSBulk does the same).

/// Records read before a percentage of bad ones can stop the load.
pub const ERROR_RATIO_MIN_SAMPLE: u64 = 100;

/// How many bad rows stop the load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ErrorLimit {
    #[default]
    Unlimited,
    /// Stop at the row that makes more than this many bad ones.
    Count(u64),
    /// Stop once more than this share of the records read (in hundredths of a percent:
    /// 250 is 2.5%) were bad.
    BasisPoints(u32),
}

/// The record limits of one load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RecordLimits {
    pub skip: u64,
    pub max: Option<u64>,
    pub errors: ErrorLimit,
}

/// What to do with the record just read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    Row,
    Skip,
}

/// Counts records against [`RecordLimits`].
#[derive(Debug, Clone, Default)]
pub struct RecordCounter {
    limits: RecordLimits,
    /// Records read, skipped ones included.
    read: u64,
    /// Bad rows among the records admitted.
    bad: u64,
}

impl RecordCounter {
    pub fn new(limits: RecordLimits) -> Self {
        RecordCounter { limits, read: 0, bad: 0 }
    }

    /// No record may be read any more: `max` records were admitted.
    pub fn exhausted(&self) -> bool {
        self.limits.max.is_some_and(|max| self.read >= self.limits.skip.saturating_add(max))
    }

    /// Counts one record read (good or bad).
    pub fn admit(&mut self) -> Admit {
        self.read += 1;
        if self.read <= self.limits.skip {
            Admit::Skip
        } else {
            Admit::Row
        }
    }

    /// Counts one admitted bad row; returns the error that stops the load, if this row is one
    /// too many.
    pub fn bad_row(&mut self) -> Option<LimitExceeded> {
        self.bad += 1;
        let admitted = self.read.saturating_sub(self.limits.skip);
        match self.limits.errors {
            ErrorLimit::Unlimited => None,
            ErrorLimit::Count(limit) => (self.bad > limit).then_some(LimitExceeded::Count { limit }),
            ErrorLimit::BasisPoints(limit) => {
                // bad / admitted > limit / 10000, in integers.
                let over = u128::from(self.bad) * 10_000 > u128::from(admitted) * u128::from(limit);
                (admitted >= ERROR_RATIO_MIN_SAMPLE && over).then_some(LimitExceeded::Share {
                    basis_points: limit,
                    bad: self.bad,
                    records: admitted,
                })
            }
        }
    }
}

/// The error limit a load went past.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitExceeded {
    Count { limit: u64 },
    Share { basis_points: u32, bad: u64, records: u64 },
}

/// A share in basis points as a percentage without trailing zeros: 250 is "2.5".
pub fn percent_text(basis_points: u32) -> String {
    let whole = basis_points / 100;
    match basis_points % 100 {
        0 => whole.to_string(),
        f if f % 10 == 0 => format!("{whole}.{}", f / 10),
        f => format!("{whole}.{f:02}"),
    }
}

/// Reads `N` or `N%` (0 < N < 100, at most two decimals) as the host writes `maxErrors`.
pub fn parse_error_limit(text: &str) -> Result<ErrorLimit, String> {
    let text = text.trim();
    let Some(number) = text.strip_suffix('%') else {
        return text
            .parse::<u64>()
            .map(ErrorLimit::Count)
            .map_err(|_| format!("maxErrors must be a count or a percentage like 5%, got {text:?}"));
    };
    if number.ends_with('.') {
        return Err(format!(
            "maxErrors percentage must be above 0 and below 100, with at most two decimals, got {text:?}"
        ));
    }
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let digits_ok = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || whole.len() > 2 || fraction.len() > 2 || !digits_ok(whole) || !digits_ok(fraction) {
        return Err(format!(
            "maxErrors percentage must be above 0 and below 100, with at most two decimals, got {text:?}"
        ));
    }
    let whole: u32 = whole.parse().unwrap_or(0);
    let fraction: u32 = format!("{fraction:0<2}").parse().unwrap_or(0);
    match whole * 100 + fraction {
        0 => Err(format!("maxErrors percentage must be above 0 and below 100, got {text:?}")),
        basis_points => Ok(ErrorLimit::BasisPoints(basis_points)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skipped_records_come_first_and_max_counts_after_them() {
        let mut counter = RecordCounter::new(RecordLimits { skip: 2, max: Some(3), errors: ErrorLimit::Unlimited });
        let mut seen = Vec::new();
        while !counter.exhausted() {
            seen.push(counter.admit());
        }
        assert_eq!(seen, [Admit::Skip, Admit::Skip, Admit::Row, Admit::Row, Admit::Row]);
    }

    #[test]
    fn a_count_stops_at_the_row_past_it() {
        let mut counter = RecordCounter::new(RecordLimits { errors: ErrorLimit::Count(1), ..Default::default() });
        counter.admit();
        assert_eq!(counter.bad_row(), None);
        counter.admit();
        assert_eq!(counter.bad_row(), Some(LimitExceeded::Count { limit: 1 }));
    }

    #[test]
    fn a_share_waits_for_the_minimum_sample_and_counts_admitted_records_only() {
        let mut counter =
            RecordCounter::new(RecordLimits { skip: 5, max: None, errors: ErrorLimit::BasisPoints(1000) });
        for _ in 0..5 {
            counter.admit();
        }
        // 10 bad among the first 99 admitted: 10% is not over 10%, and the sample is short.
        for i in 0..99 {
            counter.admit();
            if i % 10 == 0 {
                assert_eq!(counter.bad_row(), None);
            }
        }
        counter.admit();
        assert_eq!(counter.bad_row(), Some(LimitExceeded::Share { basis_points: 1000, bad: 11, records: 100 }));
    }

    #[test]
    fn a_share_exactly_at_the_limit_is_not_over_it() {
        let mut counter =
            RecordCounter::new(RecordLimits { errors: ErrorLimit::BasisPoints(1000), ..Default::default() });
        // 10 bad among 100 records: exactly 10%, once the sample is full.
        for i in 0..100 {
            counter.admit();
            if i >= 90 {
                assert_eq!(counter.bad_row(), None, "record {}", i + 1);
            }
        }
        counter.admit();
        assert_eq!(counter.bad_row(), Some(LimitExceeded::Share { basis_points: 1000, bad: 11, records: 101 }));
    }

    #[test]
    fn bad_limits_are_errors_that_quote_the_text() {
        let shape = |t: &str| {
            Err(format!("maxErrors percentage must be above 0 and below 100, with at most two decimals, got {t:?}"))
        };
        for bad in ["x%", "1.x%", "x.5%", "5.%", ".5%", "100%", "1.234%"] {
            assert_eq!(parse_error_limit(bad), shape(bad), "{bad}");
        }
        assert_eq!(
            parse_error_limit(" 0.00% "),
            Err("maxErrors percentage must be above 0 and below 100, got \"0.00%\"".into())
        );
        assert_eq!(
            parse_error_limit("1e3"),
            Err("maxErrors must be a count or a percentage like 5%, got \"1e3\"".into())
        );
        assert_eq!(parse_error_limit(" 7 "), Ok(ErrorLimit::Count(7)));
        assert_eq!(parse_error_limit("7%"), Ok(ErrorLimit::BasisPoints(700)));
        assert_eq!(parse_error_limit("12.3%"), Ok(ErrorLimit::BasisPoints(1230)));
        assert_eq!(
            (percent_text(1230), percent_text(9999), percent_text(0)),
            ("12.3".into(), "99.99".into(), "0".into())
        );
    }

    #[test]
    fn limits_read_from_text() {
        assert_eq!(parse_error_limit("0"), Ok(ErrorLimit::Count(0)));
        assert_eq!(parse_error_limit("12"), Ok(ErrorLimit::Count(12)));
        assert_eq!(parse_error_limit("2.5%"), Ok(ErrorLimit::BasisPoints(250)));
        assert_eq!(parse_error_limit("0.01%"), Ok(ErrorLimit::BasisPoints(1)));
        assert_eq!(parse_error_limit("99.99%"), Ok(ErrorLimit::BasisPoints(9999)));
        for bad in ["0%", "100%", "-1", "5.%", ".5%", "1.234%", "x%", "", "1e3"] {
            assert!(parse_error_limit(bad).is_err(), "{bad}");
        }
        assert_eq!((percent_text(250), percent_text(1), percent_text(500)), ("2.5".into(), "0.01".into(), "5".into()));
    }
}
