//! Arbitrary-length integers as CQL carries them (varint, and decimal's unscaled part):
//! two's-complement big-endian bytes, converted to and from decimal digits.
//!
//! Both conversions are quadratic (schoolbook), so both are capped: a hostile 200 MB varint
//! is validated and passed around as bytes, but is not turned into digits.

use std::fmt::Write as _;

/// Most digits accepted when parsing decimal text into a varint (about 16 KB of bytes).
pub const MAX_DECIMAL_DIGITS: usize = 39_000;
/// Most bytes of varint rendered as decimal digits (about 39,000 digits).
pub const MAX_RENDERED_BYTES: usize = 16 * 1024;

/// Leading bytes that only repeat the sign of the byte after them.
pub(crate) fn redundant_sign_bytes(bytes: &[u8]) -> usize {
    let mut k = 0;
    while let &[a, b, ..] = &bytes[k..] {
        if (a == 0x00 && b < 0x80) || (a == 0xFF && b >= 0x80) {
            k += 1;
        } else {
            break;
        }
    }
    k
}

/// The shortest two's-complement encoding of the same integer.
pub(crate) fn minimal(bytes: &[u8]) -> &[u8] {
    &bytes[redundant_sign_bytes(bytes)..]
}

pub(crate) fn push_i128_minimal(v: i128, out: &mut Vec<u8>) {
    let be = v.to_be_bytes();
    out.extend_from_slice(minimal(&be));
}

/// Appends, as a minimal two's-complement integer, the number whose decimal digits are the
/// concatenation of `parts` (ASCII digits only, checked by the caller), negated if
/// `negative`. The big case works in place at the end of `out`, so nothing is allocated
/// beyond `out`'s own growth.
pub(crate) fn push_decimal_digits(parts: &[&[u8]], negative: bool, out: &mut Vec<u8>) {
    let count: usize = parts.iter().map(|p| p.len()).sum();
    let digits = parts.iter().flat_map(|p| p.iter()).map(|d| u64::from(d.wrapping_sub(b'0')));
    if count <= 38 {
        // Below 10^38 < 2^127, so the magnitude fits an i128 of either sign.
        let v = digits.fold(0u128, |v, d| v * 10 + u128::from(d)) as i128;
        push_i128_minimal(if negative { -v } else { v }, out);
        return;
    }
    let start = out.len();
    let len = bytes_for_digits(count);
    out.resize(start + len, 0);
    let region = &mut out[start..];
    let mut used = 1;
    let (mut chunk, mut chunk_len) = (0u64, 0u32);
    for d in digits {
        chunk = chunk * 10 + d;
        chunk_len += 1;
        if chunk_len == 9 {
            mul_add(region, &mut used, 1_000_000_000, chunk);
            (chunk, chunk_len) = (0, 0);
        }
    }
    // The last, partial chunk (times 10^0 plus 0 when there is none, which changes nothing).
    mul_add(region, &mut used, 10u64.pow(chunk_len), chunk);
    if negative {
        let mut carry = true;
        for b in region.iter_mut().rev() {
            let (sum, overflow) = (!*b).overflowing_add(u8::from(carry));
            *b = sum;
            carry = overflow;
        }
    }
    let strip = redundant_sign_bytes(region);
    out.copy_within(start + strip.., start);
    out.truncate(start + len - strip);
}

/// Bytes of two's complement that hold any integer of `count` decimal digits:
/// count * log2(10) / 8 < count * 3402 / 8192, plus one byte of rounding and one for the sign.
fn bytes_for_digits(count: usize) -> usize {
    count * 3402 / 8192 + 2
}

/// `region = region * mul + add`, big-endian; `used` counts the low-order bytes in play.
fn mul_add(region: &mut [u8], used: &mut usize, mul: u64, add: u64) {
    let n = region.len();
    let mut carry = add;
    for b in region[n - *used..].iter_mut().rev() {
        let v = u64::from(*b) * mul + carry;
        *b = v as u8;
        carry = v >> 8;
    }
    // The region was sized for the digit count, so the carry always finds room.
    for b in region[..n - *used].iter_mut().rev() {
        if carry == 0 {
            break;
        }
        *b = carry as u8;
        carry >>= 8;
        *used += 1;
    }
}

/// The value was longer than [`MAX_RENDERED_BYTES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooLong;

/// Appends the decimal form of a non-empty two's-complement big-endian integer.
pub(crate) fn write_decimal(bytes: &[u8], out: &mut String) -> Result<(), TooLong> {
    let bytes = minimal(bytes);
    let Some(&first) = bytes.first() else {
        out.push('0');
        return Ok(());
    };
    let negative = first >= 0x80;
    if bytes.len() <= 16 {
        let mut be = if negative { [0xFF; 16] } else { [0; 16] };
        be[16 - bytes.len()..].copy_from_slice(bytes);
        let _ = write!(out, "{}", i128::from_be_bytes(be));
        return Ok(());
    }
    if bytes.len() > MAX_RENDERED_BYTES {
        return Err(TooLong);
    }
    // The magnitude as little-endian u32 limbs; the top limb sign-extended so that negating
    // the whole width yields the magnitude.
    let mut limbs: Vec<u32> = bytes
        .rchunks(4)
        .map(|chunk| {
            let fill = if negative { u32::MAX } else { 0 };
            chunk.iter().fold(fill, |w, &b| (w << 8) | u32::from(b))
        })
        .collect();
    if negative {
        let mut carry = true;
        for limb in &mut limbs {
            let (sum, overflow) = (!*limb).overflowing_add(u32::from(carry));
            *limb = sum;
            carry = overflow;
        }
    }
    const BASE: u64 = 1_000_000_000;
    // Each base-10^9 chunk takes just under 30 bits of the magnitude.
    let mut chunks: Vec<u32> = Vec::with_capacity(limbs.len() * 32 / 29 + 1);
    let mut top = limbs.len();
    loop {
        while top > 0 && limbs[top - 1] == 0 {
            top -= 1;
        }
        if top == 0 {
            break;
        }
        let mut rem = 0u64;
        for limb in limbs[..top].iter_mut().rev() {
            let cur = (rem << 32) | u64::from(*limb);
            *limb = (cur / BASE) as u32;
            rem = cur % BASE;
        }
        chunks.push(rem as u32);
    }
    if negative {
        out.push('-');
    }
    let mut from_top = chunks.iter().rev();
    if let Some(most) = from_top.next() {
        let _ = write!(out, "{most}");
    }
    for chunk in from_top {
        let _ = write!(out, "{chunk:09}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn to_bytes(text: &str) -> Vec<u8> {
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let mut out = vec![0xAA];
        push_decimal_digits(&[digits.as_bytes()], negative, &mut out);
        assert_eq!(out[0], 0xAA, "the bytes before are kept");
        out.split_off(1)
    }

    fn to_text(bytes: &[u8]) -> String {
        let mut out = String::new();
        write_decimal(bytes, &mut out).unwrap();
        out
    }

    #[test]
    fn spec_examples() {
        for (n, hex) in [
            ("0", &[0x00][..]),
            ("1", &[0x01]),
            ("127", &[0x7F]),
            ("128", &[0x00, 0x80]),
            ("129", &[0x00, 0x81]),
            ("-1", &[0xFF]),
            ("-128", &[0x80]),
            ("-129", &[0xFF, 0x7F]),
        ] {
            assert_eq!(to_bytes(n), hex, "{n}");
            assert_eq!(to_text(hex), n);
        }
        assert_eq!(to_bytes("-0"), [0]);
        assert_eq!(to_bytes("000123"), [123]);
        assert_eq!(to_text(&[0x00, 0x00, 0x01]), "1");
        assert_eq!(to_text(&[0xFF, 0xFF]), "-1");
    }

    #[test]
    fn big_values_round_trip_at_every_size_boundary() {
        // Powers of two and their neighbours cross every byte and limb boundary.
        let mut digits = vec![1u8]; // little-endian base-10 digits of 2^k
        for k in 0..700 {
            let pos: String = digits.iter().rev().map(|d| char::from(b'0' + d)).collect();
            for text in [pos.clone(), format!("-{pos}")] {
                let bytes = to_bytes(&text);
                assert_eq!(bytes, minimal(&bytes), "{text} is not minimal");
                assert_eq!(to_text(&bytes), text, "2^{k}");
            }
            let mut carry = 0;
            for d in digits.iter_mut() {
                let v = *d * 2 + carry;
                *d = v % 10;
                carry = v / 10;
            }
            if carry > 0 {
                digits.push(carry);
            }
        }
    }

    #[test]
    fn ten_thousand_digits_round_trip() {
        let text: String = (0..10_000).map(|i| char::from(b'1' + (i * 7 % 9) as u8)).collect();
        let bytes = to_bytes(&text);
        assert_eq!(to_text(&bytes), text);
        let negative = format!("-{text}");
        assert_eq!(to_text(&to_bytes(&negative)), negative);
    }

    #[test]
    fn rendering_is_capped() {
        assert_eq!(MAX_RENDERED_BYTES, 16_384);
        let mut huge = vec![0x7F; MAX_RENDERED_BYTES + 1];
        huge[1] = 0x01;
        assert_eq!(write_decimal(&huge, &mut String::new()), Err(TooLong));
        // Exactly at the cap (after the redundant sign byte is dropped) it renders.
        // Digits worked out with Python's int.from_bytes.
        let rendered = |bytes: &[u8]| {
            let mut out = String::new();
            write_decimal(bytes, &mut out).map(|()| (out.len(), out[..20].to_owned(), out[out.len() - 20..].to_owned()))
        };
        let digits = |len, head: &str, tail: &str| Ok((len, head.to_owned(), tail.to_owned()));
        assert_eq!(rendered(&huge[1..]), digits(39_455, "23489560256399756142", "71727026741637513087"));
        let mut negative = vec![0xFF; MAX_RENDERED_BYTES + 1];
        negative[1] = 0x80;
        assert_eq!(rendered(&negative), digits(39_458, "-1991385887181953148", "78742829916049375233"));
        negative.insert(1, 0x7F);
        assert_eq!(write_decimal(&negative, &mut String::new()), Err(TooLong));
    }

    #[test]
    fn the_region_is_sized_tightly_for_its_digits() {
        // 10^count needs count * log2(10) bits and a sign bit: 39 digits take 130 bits.
        assert_eq!(bytes_for_digits(39), 18);
        assert_eq!(bytes_for_digits(1_000), 417);
        assert_eq!(bytes_for_digits(MAX_DECIMAL_DIGITS), 16_198);
        for count in [39, 100, 1_000, MAX_DECIMAL_DIGITS] {
            // At least count * log2(10) + 1 bits (3.3219 < log2(10) < 3.3220).
            assert!(bytes_for_digits(count) * 8 * 10_000 >= count * 33_220 + 10_000, "{count}");
        }
    }

    #[test]
    fn split_digit_runs_join() {
        let mut out = Vec::new();
        push_decimal_digits(&[b"123", b"45"], false, &mut out);
        assert_eq!(out, [0x30, 0x39]);
        let long_int = "9".repeat(30);
        let long_frac = "1".repeat(30);
        let mut out = Vec::new();
        push_decimal_digits(&[long_int.as_bytes(), long_frac.as_bytes()], true, &mut out);
        assert_eq!(to_text(&out), format!("-{long_int}{long_frac}"));
    }
}
