//! Wire-level pieces shared by validation, decoding and text formatting: vints, fixed-size
//! scalars and the range rules the spec puts on time, timeuuid and duration.

use crate::error::ProtocolError;
use crate::wire::Reader;

/// Nanoseconds in a day: `time` values lie in `0..NANOS_PER_DAY`.
pub(crate) const NANOS_PER_DAY: i64 = 86_400_000_000_000;
/// The `date` wire value of 1970-01-01.
pub(crate) const DATE_EPOCH: i64 = 1 << 31;

/// Reads an `[unsigned vint]`: the count of leading 1 bits in the first byte is the number of
/// extra bytes, big-endian.
pub(crate) fn read_unsigned_vint(r: &mut Reader<'_>, field: &'static str) -> Result<u64, ProtocolError> {
    let first = r.u8(field)?;
    let extra = first.leading_ones();
    // Shift in u32: for 8 extra bytes the first byte contributes no value bits.
    let mut value = u64::from(((0xFFu32 >> extra) as u8) & first);
    for &b in r.bytes(extra as usize, field)? {
        value = (value << 8) | u64::from(b);
    }
    Ok(value)
}

/// Encodes an `[unsigned vint]` in its shortest form; returns the buffer and its used length.
pub(crate) fn unsigned_vint_bytes(value: u64) -> ([u8; 9], usize) {
    let bits = 64 - value.leading_zeros();
    // With `e` extra bytes there are 7 + 7e value bits (e < 8); 8 extra bytes carry all 64.
    let extra: usize = if bits <= 7 { 0 } else { (bits - 7).div_ceil(7).min(8) as usize };
    let mut out = [0u8; 9];
    if extra == 8 {
        out[0] = 0xFF;
        out[1..].copy_from_slice(&value.to_be_bytes());
    } else {
        let be = value.to_be_bytes();
        out[..=extra].copy_from_slice(&be[7 - extra..]);
        out[0] |= !((0xFFu32 >> extra) as u8);
    }
    (out, extra + 1)
}

pub(crate) fn push_unsigned_vint(value: u64, out: &mut Vec<u8>) {
    let (bytes, len) = unsigned_vint_bytes(value);
    out.extend_from_slice(&bytes[..len]);
}

pub(crate) fn zigzag_encode(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

pub(crate) fn zigzag_decode(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Takes exactly `N` bytes, the whole of `r`; `Ok(None)` for the legacy empty value where
/// `empty_ok`.
pub(crate) fn fixed<const N: usize>(
    r: &Reader<'_>,
    field: &'static str,
    empty_ok: bool,
) -> Result<Option<[u8; N]>, ProtocolError> {
    let bytes = r.rest();
    if bytes.is_empty() && empty_ok {
        return Ok(None);
    }
    match <[u8; N]>::try_from(bytes) {
        Ok(array) => Ok(Some(array)),
        Err(_) => Err(r.error(field, format!("expected {N} bytes, got {}", bytes.len()))),
    }
}

pub(crate) fn check_time(nanos: i64, r: &Reader<'_>) -> Result<i64, ProtocolError> {
    if (0..NANOS_PER_DAY).contains(&nanos) {
        Ok(nanos)
    } else {
        Err(r.error("time value", format!("{nanos} ns is outside 0..{NANOS_PER_DAY}")))
    }
}

/// A timeuuid must be a version 1 UUID (the version is the high nibble of byte 6).
pub(crate) fn check_timeuuid(bytes: &[u8; 16], r: &Reader<'_>) -> Result<(), ProtocolError> {
    let version = bytes[6] >> 4;
    if version == 1 {
        Ok(())
    } else {
        Err(ProtocolError::remote("timeuuid value", r.offset() + 6, format!("UUID version {version}, expected 1")))
    }
}

/// Reads a whole duration value: three zigzag vints (months, days, nanos), months and days
/// within i32, and no mixed signs.
pub(crate) fn read_duration(mut r: Reader<'_>) -> Result<(i32, i32, i64), ProtocolError> {
    let start = r;
    let months = zigzag_decode(read_unsigned_vint(&mut r, "duration months")?);
    let months_end = r;
    let days = zigzag_decode(read_unsigned_vint(&mut r, "duration days")?);
    let days_end = r;
    let nanos = zigzag_decode(read_unsigned_vint(&mut r, "duration nanoseconds")?);
    if !r.is_empty() {
        return Err(r.error("duration value", format!("{} bytes after the three vints", r.remaining())));
    }
    let months = i32::try_from(months)
        .map_err(|_| start.error("duration months", format!("{months} does not fit a 32-bit integer")))?;
    let days = i32::try_from(days)
        .map_err(|_| months_end.error("duration days", format!("{days} does not fit a 32-bit integer")))?;
    let all_non_negative = months >= 0 && days >= 0 && nanos >= 0;
    let all_non_positive = months <= 0 && days <= 0 && nanos <= 0;
    if !all_non_negative && !all_non_positive {
        return Err(days_end.error("duration value", format!("mixed signs: {months} months, {days} days, {nanos} ns")));
    }
    Ok((months, days, nanos))
}

pub(crate) fn push_duration(months: i32, days: i32, nanos: i64, out: &mut Vec<u8>) {
    push_unsigned_vint(zigzag_encode(i64::from(months)), out);
    push_unsigned_vint(zigzag_encode(i64::from(days)), out);
    push_unsigned_vint(zigzag_encode(nanos), out);
}

pub(crate) fn duration_signs_agree(months: i32, days: i32, nanos: i64) -> bool {
    (months >= 0 && days >= 0 && nanos >= 0) || (months <= 0 && days <= 0 && nanos <= 0)
}

/// The next `[bytes]` element of a collection, tuple or UDT, as its own reader (absolute
/// offsets kept); `None` for null. Any negative length is null, as the spec's `[bytes]` says.
pub(crate) fn element<'a>(r: &mut Reader<'a>, field: &'static str) -> Result<Option<Reader<'a>>, ProtocolError> {
    let len = r.i32(field)?;
    if len < 0 {
        return Ok(None);
    }
    r.sub(len as usize, field).map(Some)
}

/// The next element of a vector whose element type has no fixed size: an unsigned vint
/// length, then the bytes.
pub(crate) fn vector_element<'a>(r: &mut Reader<'a>) -> Result<Reader<'a>, ProtocolError> {
    let at = r.offset();
    let len = read_unsigned_vint(r, "vector element length")?;
    match usize::try_from(len) {
        Ok(len) if len <= r.remaining() => r.sub(len, "vector element"),
        _ => Err(ProtocolError::remote(
            "vector element length",
            at,
            format!("element of {len} bytes overruns the {} bytes left", r.remaining()),
        )),
    }
}

/// Checks a collection count against the bytes left: each element needs at least its 4-byte
/// length, so a larger count cannot be honest (and must not size an allocation).
pub(crate) fn collection_count(
    r: &mut Reader<'_>,
    field: &'static str,
    lengths_per_entry: usize,
) -> Result<usize, ProtocolError> {
    let at = r.offset();
    let n = r.i32(field)?;
    if n < 0 {
        return Err(ProtocolError::remote(field, at, format!("negative count {n}")));
    }
    let n = n as usize;
    if n.saturating_mul(4 * lengths_per_entry) > r.remaining() {
        return Err(ProtocolError::remote(
            field,
            at,
            format!("{n} entries cannot fit in the {} bytes left", r.remaining()),
        ));
    }
    Ok(n)
}

pub(crate) fn no_trailing(r: &Reader<'_>, field: &'static str) -> Result<(), ProtocolError> {
    if r.is_empty() {
        Ok(())
    } else {
        Err(r.error(field, format!("{} unexpected trailing bytes", r.remaining())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vint(value: u64) -> Vec<u8> {
        let mut out = Vec::new();
        push_unsigned_vint(value, &mut out);
        out
    }

    #[test]
    fn vints_follow_the_spec_example() {
        // "256 000 will be encoded on 3 bytes as [110]00011 11101000 00000000".
        assert_eq!(vint(256_000), [0b1100_0011, 0b1110_1000, 0]);
        assert_eq!(vint(0), [0]);
        assert_eq!(vint(127), [0x7F]);
        assert_eq!(vint(128), [0x80, 0x80]);
        assert_eq!(vint(u64::MAX), [0xFF; 9]);
        assert_eq!(vint(1 << 56), [0xFF, 1, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(vint((1 << 56) - 1), [0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]);
    }

    #[test]
    fn vints_round_trip() {
        let mut v = 1u64;
        for _ in 0..64 {
            for candidate in [v - 1, v, v + 1] {
                let bytes = vint(candidate);
                let mut r = Reader::new(&bytes);
                assert_eq!(read_unsigned_vint(&mut r, "t").unwrap(), candidate);
                assert!(r.is_empty());
            }
            v = v.wrapping_mul(2);
            if v == 0 {
                break;
            }
        }
        assert_eq!(
            read_unsigned_vint(&mut Reader::new(&[0xC0, 0]), "t").unwrap_err(),
            ProtocolError::remote("t", 1, "needs 2 bytes, 1 left")
        );
        assert_eq!(
            read_unsigned_vint(&mut Reader::new(&[]), "t").unwrap_err(),
            ProtocolError::remote("t", 0, "needs 1 bytes, 0 left")
        );
    }

    #[test]
    fn a_count_that_exactly_fits_is_read_and_one_more_is_refused() {
        let count = |bytes: &[u8], per_entry| collection_count(&mut Reader::new(bytes), "n", per_entry);
        // One list element, one map entry: their lengths alone fill the bytes left.
        assert_eq!(count(&[0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF], 1), Ok(1));
        assert_eq!(count(&[0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], 2), Ok(1));
        assert_eq!(count(&[0, 0, 0, 0], 2), Ok(0));
        assert_eq!(
            count(&[0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 2),
            Err(ProtocolError::remote("n", 0, "2 entries cannot fit in the 12 bytes left"))
        );
        assert_eq!(
            count(&[0, 0, 0, 2, 0, 0, 0, 0], 1),
            Err(ProtocolError::remote("n", 0, "2 entries cannot fit in the 4 bytes left"))
        );
        assert_eq!(count(&[0xFF, 0xFF, 0xFF, 0xFE], 1), Err(ProtocolError::remote("n", 0, "negative count -2")));
    }

    #[test]
    fn elements_null_empty_and_whole() {
        let mut r = Reader::new(&[0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFE, 0, 0, 0, 1, 7]);
        assert_eq!(element(&mut r, "e").unwrap().map(|e| (e.offset(), e.rest())), Some((4, &[][..])));
        assert_eq!(element(&mut r, "e").unwrap().map(|e| e.offset()), None);
        assert_eq!(element(&mut r, "e").unwrap().map(|e| (e.offset(), e.rest())), Some((12, &[7][..])));
        assert!(r.is_empty());
    }

    #[test]
    fn a_vector_element_may_fill_the_bytes_left_and_not_overrun_them() {
        let mut r = Reader::new(&[2, 8, 9]);
        let e = vector_element(&mut r).unwrap();
        assert_eq!((e.offset(), e.rest()), (1, &[8, 9][..]));
        assert!(r.is_empty());
        let mut r = Reader::new(&[9, 0, 3, 8, 9]);
        assert_eq!(r.bytes(2, "skip").map(drop), Ok(()));
        assert_eq!(
            vector_element(&mut r).map(|e| e.offset()),
            Err(ProtocolError::remote("vector element length", 2, "element of 3 bytes overruns the 2 bytes left"))
        );
    }

    #[test]
    fn durations_of_every_sign_pattern() {
        // Every combination of -1, 0 and 1: the signs agree unless one part is positive and
        // another negative.
        for months in -1..=1 {
            for days in -1..=1 {
                for nanos in -1i64..=1 {
                    let parts = [i64::from(months), i64::from(days), nanos];
                    let mixed = parts.iter().any(|&p| p > 0) && parts.iter().any(|&p| p < 0);
                    assert_eq!(duration_signs_agree(months, days, nanos), !mixed, "{parts:?}");
                    let mut bytes = vec![0xAA];
                    push_duration(months, days, nanos, &mut bytes);
                    let expected = if mixed {
                        Err(ProtocolError::remote(
                            "duration value",
                            3,
                            format!("mixed signs: {months} months, {days} days, {nanos} ns"),
                        ))
                    } else {
                        Ok((months, days, nanos))
                    };
                    assert_eq!(read_duration(Reader::with_base(&bytes[1..], 1)), expected, "{parts:?}");
                }
            }
        }
    }

    #[test]
    fn a_duration_reports_each_part_at_its_own_offset() {
        let mut bytes = vec![0xAA, 0xAA];
        push_duration(i32::MAX, -5, -(1 << 40), &mut bytes);
        assert_eq!(
            read_duration(Reader::with_base(&bytes[2..], 2)),
            Err(ProtocolError::remote("duration value", 8, format!("mixed signs: {} months, -5 days, {} ns", i32::MAX, -(1i64 << 40))))
        );
        // Months beyond i32 at the first vint, days beyond i32 at the second.
        let mut bytes = Vec::new();
        push_unsigned_vint(zigzag_encode(1 << 31), &mut bytes);
        bytes.extend_from_slice(&[0, 0]);
        assert_eq!(
            read_duration(Reader::with_base(&bytes, 10)),
            Err(ProtocolError::remote("duration months", 10, "2147483648 does not fit a 32-bit integer"))
        );
        let mut bytes = vec![0];
        push_unsigned_vint(zigzag_encode(-(1 << 31) - 1), &mut bytes);
        push_unsigned_vint(0, &mut bytes);
        assert_eq!(
            read_duration(Reader::with_base(&bytes, 10)),
            Err(ProtocolError::remote("duration days", 11, "-2147483649 does not fit a 32-bit integer"))
        );
        assert_eq!(
            read_duration(Reader::with_base(&[2, 4, 6, 0, 0], 10)),
            Err(ProtocolError::remote("duration value", 13, "2 bytes after the three vints"))
        );
    }

    #[test]
    fn zigzag_matches_the_spec() {
        for (n, z) in [(0i64, 0u64), (-1, 1), (1, 2), (-2, 3), (2, 4), (i64::MIN, u64::MAX), (i64::MAX, u64::MAX - 1)] {
            assert_eq!(zigzag_encode(n), z);
            assert_eq!(zigzag_decode(z), n);
        }
    }
}
