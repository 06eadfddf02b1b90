//! The time zone of timestamps written without one: a fixed offset, or a named zone's
//! offsets over time. The core has no time zone database (it has no OS); a host that can
//! resolve a name such as `Europe/Paris` (JavaScript's `Intl` can) hands over the zone's
//! transitions as data, and the core only looks them up.

use std::borrow::Cow;

use super::temporal::Reason;

/// Offsets further than this from UTC are refused (the IANA database's extremes are ±15:56).
const MAX_OFFSET_SECONDS: i32 = 18 * 3600;
/// More transitions than any IANA zone has in centuries: a cap on what a host may hand over.
pub const MAX_TRANSITIONS: usize = 10_000;
const MILLIS_PER_DAY: i64 = 86_400_000;

/// From `at_millis` (UTC, inclusive) on, local time is UTC plus `offset_seconds`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transition {
    pub at_millis: i64,
    pub offset_seconds: i32,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ZoneRules {
    /// The offset before the first transition (the only one for a fixed offset).
    initial_seconds: i32,
    /// Strictly increasing by `at_millis`.
    transitions: Vec<Transition>,
}

impl ZoneRules {
    pub fn fixed_minutes(minutes: i32) -> ZoneRules {
        ZoneRules { initial_seconds: minutes * 60, transitions: Vec::new() }
    }

    /// A named zone from its host-resolved offsets: `initial_seconds` before the first of
    /// `transitions`, which must be in increasing order, each within ±18 hours.
    pub fn named(initial_seconds: i32, transitions: Vec<Transition>) -> Result<ZoneRules, String> {
        if transitions.len() > MAX_TRANSITIONS {
            return Err(format!("{} time zone transitions: at most {MAX_TRANSITIONS}", transitions.len()));
        }
        let offsets = std::iter::once(initial_seconds).chain(transitions.iter().map(|t| t.offset_seconds));
        if let Some(bad) = offsets.into_iter().find(|o| o.abs() > MAX_OFFSET_SECONDS) {
            return Err(format!("a time zone offset of {bad} s is beyond ±18 hours"));
        }
        if let Some(i) = transitions.windows(2).position(|w| w[0].at_millis >= w[1].at_millis) {
            return Err(format!("time zone transition {} is not after the one before it", i + 1));
        }
        Ok(ZoneRules { initial_seconds, transitions })
    }

    /// True when every instant is at UTC (no conversion needed on output).
    pub fn is_utc(&self) -> bool {
        self.initial_seconds == 0 && self.transitions.iter().all(|t| t.offset_seconds == 0)
    }

    /// The offset east of UTC, in seconds, at an instant.
    pub fn offset_seconds_at(&self, utc_millis: i64) -> i32 {
        let after = self.transitions.partition_point(|t| t.at_millis <= utc_millis);
        match after.checked_sub(1) {
            Some(i) => self.transitions[i].offset_seconds,
            None => self.initial_seconds,
        }
    }

    /// The instant of a local time (milliseconds since the epoch as if local were UTC), as
    /// java.time's `ZonedDateTime.ofLocal` resolves it, which is what DSBulk users get: in an
    /// overlap (clocks set back) the earlier instant; in a gap (clocks set forward) the local
    /// time moved forward by the gap's length.
    pub fn utc_of_local(&self, local_millis: i64) -> Result<i64, Reason> {
        let instant = |offset: i32| {
            local_millis
                .checked_sub(i64::from(offset) * 1000)
                .ok_or(Cow::Borrowed("timestamp out of the 64-bit millisecond range"))
        };
        // The offsets in force a day either side cover any one transition near this time.
        let before = self.offset_seconds_at(local_millis.saturating_sub(MILLIS_PER_DAY));
        let after = self.offset_seconds_at(local_millis.saturating_add(MILLIS_PER_DAY));
        let with_before = instant(before)?;
        let with_after = instant(after)?;
        let valid = |utc: i64, offset: i32| self.offset_seconds_at(utc) == offset;
        Ok(match (valid(with_before, before), valid(with_after, after)) {
            (true, true) => with_before.min(with_after),
            (false, true) => with_after,
            // A gap: the offset from before it moves the local time forward past it.
            _ => with_before,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i32 = 3600;
    /// 2024-03-31 01:00 UTC and 2024-10-27 01:00 UTC: Paris moves to +2, then back to +1.
    const SPRING: i64 = 1_711_846_800_000;
    const AUTUMN: i64 = 1_729_990_800_000;

    fn paris() -> ZoneRules {
        ZoneRules::named(
            H,
            vec![
                Transition { at_millis: SPRING, offset_seconds: 2 * H },
                Transition { at_millis: AUTUMN, offset_seconds: H },
            ],
        )
        .unwrap()
    }

    #[test]
    fn offsets_change_at_the_transition_instant() {
        let z = paris();
        assert_eq!(
            [
                z.offset_seconds_at(SPRING - 1),
                z.offset_seconds_at(SPRING),
                z.offset_seconds_at(AUTUMN - 1),
                z.offset_seconds_at(AUTUMN)
            ],
            [H, 2 * H, 2 * H, H]
        );
    }

    #[test]
    fn local_times_resolve_as_java_time_does() {
        let z = paris();
        let local = |utc: i64, offset: i32| utc + i64::from(offset) * 1000;
        // An ordinary winter and summer time.
        assert_eq!(z.utc_of_local(local(SPRING - 7_200_000, H)), Ok(SPRING - 7_200_000));
        assert_eq!(z.utc_of_local(local(SPRING + 7_200_000, 2 * H)), Ok(SPRING + 7_200_000));
        // 02:30 on the spring day does not exist: it becomes 03:30 +02:00, i.e. 01:30 UTC.
        assert_eq!(z.utc_of_local(local(SPRING, H) + 1_800_000), Ok(SPRING + 1_800_000));
        // 02:30 on the autumn day happens twice: the earlier, 00:30 UTC (+02:00).
        assert_eq!(z.utc_of_local(local(AUTUMN, H) + 1_800_000), Ok(AUTUMN - 1_800_000));
        // 03:00 local after the overlap is only +01:00.
        assert_eq!(z.utc_of_local(local(AUTUMN, H) + 3_600_000), Ok(AUTUMN + 3_600_000));
    }

    #[test]
    fn a_fixed_offset_is_one_offset_everywhere() {
        let z = ZoneRules::fixed_minutes(-330);
        assert_eq!([z.offset_seconds_at(i64::MIN), z.offset_seconds_at(i64::MAX)], [-330 * 60, -330 * 60]);
        assert_eq!(z.utc_of_local(0), Ok(330 * 60_000));
        assert!(!z.is_utc());
        assert!(ZoneRules::fixed_minutes(0).is_utc());
        assert!(!paris().is_utc());
        // A named zone is at UTC only when every one of its offsets is zero.
        let t = |at_millis, offset_seconds| Transition { at_millis, offset_seconds };
        assert!(ZoneRules::named(0, vec![t(5, 0)]).unwrap().is_utc());
        assert!(!ZoneRules::named(0, vec![t(5, 0), t(9, H)]).unwrap().is_utc());
    }

    #[test]
    fn a_local_time_valid_at_two_offsets_is_the_earlier_instant() {
        // Offsets 0, then +2 h, then 0, then +2 h again within hours of the local time L:
        // L is valid at +2 h (the instant L - 2 h) and at 0 (the instant L). Whichever
        // offset was in force a day before, the earlier instant wins, as in java.time.
        const L: i64 = 1_700_000_000_000;
        const HOUR: i64 = 3_600_000;
        let t = |at_millis, offset_seconds| Transition { at_millis, offset_seconds };
        let z = ZoneRules::named(0, vec![t(L - 3 * HOUR, 2 * H), t(L - HOUR, 0), t(L + HOUR, 2 * H)]).unwrap();
        assert_eq!(z.utc_of_local(L), Ok(L - 2 * HOUR));
    }

    #[test]
    fn the_extremes_of_the_range_are_errors_not_overflows() {
        assert_eq!(
            ZoneRules::fixed_minutes(-60).utc_of_local(i64::MAX),
            Err(Cow::Borrowed("timestamp out of the 64-bit millisecond range"))
        );
        assert_eq!(
            ZoneRules::fixed_minutes(60).utc_of_local(i64::MIN),
            Err(Cow::Borrowed("timestamp out of the 64-bit millisecond range"))
        );
    }

    #[test]
    fn bad_rules_are_refused_with_what_is_wrong() {
        let t = |at_millis, offset_seconds| Transition { at_millis, offset_seconds };
        assert_eq!(
            ZoneRules::named(0, vec![t(5, 0), t(5, H)]),
            Err("time zone transition 1 is not after the one before it".into())
        );
        assert_eq!(
            ZoneRules::named(0, vec![t(5, 0), t(4, H)]),
            Err("time zone transition 1 is not after the one before it".into())
        );
        assert_eq!(
            ZoneRules::named(19 * H, vec![]),
            Err(format!("a time zone offset of {} s is beyond ±18 hours", 19 * H))
        );
        assert_eq!(
            ZoneRules::named(0, vec![t(1, -19 * H)]),
            Err(format!("a time zone offset of {} s is beyond ±18 hours", -19 * H))
        );
        assert!(ZoneRules::named(18 * H, vec![t(1, -18 * H)]).is_ok());
        let most = (0..MAX_TRANSITIONS as i64).map(|i| t(i, 0)).collect();
        assert!(ZoneRules::named(0, most).is_ok());
        let many = (0..=MAX_TRANSITIONS as i64).map(|i| t(i, 0)).collect();
        assert_eq!(
            ZoneRules::named(0, many),
            Err(format!("{} time zone transitions: at most {MAX_TRANSITIONS}", MAX_TRANSITIONS + 1))
        );
    }
}
