//! Protocol v4 body compression, negotiated by the STARTUP `COMPRESSION` option.
//!
//! In v4 the whole frame body after the 9-byte header is compressed when the header's
//! compression flag is set:
//! - LZ4: a 4-byte big-endian uncompressed length, then one raw LZ4 block;
//! - Snappy: one raw Snappy block (which carries its own varint length), no extra prefix.
//!
//! (v5 compresses per outer frame instead; see [`crate::v5`].)
//!
//! Both directions append to a caller-owned buffer so the connection reuses one allocation.
//! Decompression checks the declared uncompressed length against the caller's cap *before*
//! growing the buffer: a hostile length prefix cannot make us allocate past the cap.
//! Error offsets are relative to the start of the compressed body; a caller that knows where
//! the body starts in its stream adds that base.

use crate::error::ProtocolError;

/// The v4 LZ4 body starts with the uncompressed length as a big-endian u32.
const LZ4_LENGTH_PREFIX: usize = 4;

/// No LZ4 block decompresses to more than 255 bytes per byte: a match costs at least three
/// bytes (token and offset) for at most 19 bytes, and each further length byte adds at most
/// 255; literals are copied one for one. A larger declared length is a lie, refused before
/// the output is allocated.
pub const MAX_LZ4_RATIO: usize = 255;

/// No Snappy block decompresses to more than 22 bytes per byte: its best element, a 2-byte
/// offset copy, spends 3 bytes on at most 64.
pub const MAX_SNAPPY_RATIO: usize = 22;

/// A body compression algorithm, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Compression {
    #[default]
    None,
    Lz4,
    Snappy,
}

impl Compression {
    /// The value of the STARTUP `COMPRESSION` option; `None` sends no such option.
    pub fn name(self) -> Option<&'static str> {
        match self {
            Compression::None => None,
            Compression::Lz4 => Some("lz4"),
            Compression::Snappy => Some("snappy"),
        }
    }

    /// Parses a name as listed in SUPPORTED's `COMPRESSION` entry (case-insensitive).
    pub fn from_name(name: &str) -> Option<Compression> {
        if name.eq_ignore_ascii_case("lz4") {
            Some(Compression::Lz4)
        } else if name.eq_ignore_ascii_case("snappy") {
            Some(Compression::Snappy)
        } else {
            None
        }
    }

    /// Appends the compressed form of `body` to `out`.
    ///
    /// Fails (locally) only when `body` is too large for the algorithm's length field
    /// (4 GiB), far beyond the protocol's 256 MiB body limit.
    pub fn compress(self, body: &[u8], out: &mut Vec<u8>) -> Result<(), ProtocolError> {
        match self {
            Compression::None => {
                out.extend_from_slice(body);
                Ok(())
            }
            Compression::Lz4 => compress_lz4(body, out),
            Compression::Snappy => compress_snappy(body, out),
        }
    }

    /// Appends the decompressed form of `body` to `out`, refusing anything that would
    /// decompress to more than `max_len` bytes. On error `out` is left as it was.
    pub fn decompress(self, body: &[u8], max_len: usize, out: &mut Vec<u8>) -> Result<(), ProtocolError> {
        match self {
            Compression::None => {
                if body.len() > max_len {
                    return Err(over_cap("body", 0, body.len(), max_len));
                }
                out.extend_from_slice(body);
                Ok(())
            }
            Compression::Lz4 => decompress_lz4(body, max_len, out),
            Compression::Snappy => decompress_snappy(body, max_len, out),
        }
    }
}

fn over_cap(field: &'static str, offset: usize, declared: usize, max_len: usize) -> ProtocolError {
    ProtocolError::remote(field, offset, format!("declares {declared} uncompressed bytes, over the limit of {max_len}"))
}

fn check_ratio(field: &'static str, declared: usize, compressed: usize, ratio: usize) -> Result<(), ProtocolError> {
    if declared <= compressed.saturating_mul(ratio) {
        return Ok(());
    }
    Err(ProtocolError::remote(
        field,
        0,
        format!("declares {declared} uncompressed bytes, more than {ratio} times the {compressed} compressed bytes can hold"),
    ))
}

fn compress_lz4(body: &[u8], out: &mut Vec<u8>) -> Result<(), ProtocolError> {
    let Ok(declared) = u32::try_from(body.len()) else {
        return Err(ProtocolError::local(
            "lz4 uncompressed length",
            0,
            format!("body of {} bytes does not fit the 4-byte length prefix", body.len()),
        ));
    };
    let start = out.len();
    out.extend_from_slice(&declared.to_be_bytes());
    let block_start = out.len();
    out.resize(block_start + lz4_flex::block::get_maximum_output_size(body.len()), 0);
    match lz4_flex::block::compress_into(body, &mut out[block_start..]) {
        Ok(written) => {
            out.truncate(block_start + written);
            Ok(())
        }
        Err(e) => {
            out.truncate(start);
            Err(ProtocolError::local("lz4 compressed body", 0, e.to_string()))
        }
    }
}

fn decompress_lz4(body: &[u8], max_len: usize, out: &mut Vec<u8>) -> Result<(), ProtocolError> {
    let Some((prefix, block)) = body.split_first_chunk::<LZ4_LENGTH_PREFIX>() else {
        return Err(ProtocolError::remote(
            "lz4 uncompressed length",
            0,
            format!("needs {LZ4_LENGTH_PREFIX} bytes, {} left", body.len()),
        ));
    };
    let declared = u32::from_be_bytes(*prefix) as usize;
    if declared > max_len {
        return Err(over_cap("lz4 uncompressed length", 0, declared, max_len));
    }
    check_ratio("lz4 uncompressed length", declared, block.len(), MAX_LZ4_RATIO)?;
    let start = out.len();
    out.resize(start + declared, 0);
    let result = lz4_flex::block::decompress_into(block, &mut out[start..]);
    match result {
        Ok(written) if written == declared => Ok(()),
        Ok(written) => {
            out.truncate(start);
            Err(ProtocolError::remote(
                "lz4 uncompressed length",
                0,
                format!("declares {declared} bytes but the block holds {written}"),
            ))
        }
        Err(e) => {
            out.truncate(start);
            Err(ProtocolError::remote("lz4 compressed body", LZ4_LENGTH_PREFIX, e.to_string()))
        }
    }
}

fn compress_snappy(body: &[u8], out: &mut Vec<u8>) -> Result<(), ProtocolError> {
    let max = snap::raw::max_compress_len(body.len());
    if max == 0 && !body.is_empty() {
        return Err(ProtocolError::local(
            "snappy uncompressed length",
            0,
            format!("body of {} bytes is too large for Snappy", body.len()),
        ));
    }
    let start = out.len();
    out.resize(start + max, 0);
    match snap::raw::Encoder::new().compress(body, &mut out[start..]) {
        Ok(written) => {
            out.truncate(start + written);
            Ok(())
        }
        Err(e) => {
            out.truncate(start);
            Err(ProtocolError::local("snappy compressed body", 0, e.to_string()))
        }
    }
}

fn decompress_snappy(body: &[u8], max_len: usize, out: &mut Vec<u8>) -> Result<(), ProtocolError> {
    if body.is_empty() {
        // Even an empty body compresses to one byte (its varint length), so zero bytes is a
        // truncated block rather than an empty one.
        return Err(ProtocolError::remote("snappy uncompressed length", 0, "empty body: the varint length is missing"));
    }
    let declared = snap::raw::decompress_len(body)
        .map_err(|e| ProtocolError::remote("snappy uncompressed length", 0, e.to_string()))?;
    if declared > max_len {
        return Err(over_cap("snappy uncompressed length", 0, declared, max_len));
    }
    check_ratio("snappy uncompressed length", declared, body.len(), MAX_SNAPPY_RATIO)?;
    let start = out.len();
    out.resize(start + declared, 0);
    match snap::raw::Decoder::new().decompress(body, &mut out[start..]) {
        Ok(written) if written == declared => Ok(()),
        Ok(written) => {
            out.truncate(start);
            Err(ProtocolError::remote(
                "snappy uncompressed length",
                0,
                format!("declares {declared} bytes but the block holds {written}"),
            ))
        }
        Err(e) => {
            out.truncate(start);
            Err(ProtocolError::remote("snappy compressed body", 0, e.to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Side;

    const ALL: [Compression; 3] = [Compression::None, Compression::Lz4, Compression::Snappy];

    fn sample(len: usize) -> Vec<u8> {
        // Compressible but not trivially so: a repeating sentence with a counter mixed in.
        let text = b"SELECT * FROM ks.table WHERE pk = ? AND ck > ?;";
        (0..len).map(|i| text[i % text.len()] ^ ((i / 997) as u8)).collect()
    }

    #[test]
    fn startup_names() {
        assert_eq!(Compression::None.name(), None);
        assert_eq!(Compression::Lz4.name(), Some("lz4"));
        assert_eq!(Compression::Snappy.name(), Some("snappy"));
        assert_eq!(Compression::from_name("LZ4"), Some(Compression::Lz4));
        assert_eq!(Compression::from_name("snappy"), Some(Compression::Snappy));
        assert_eq!(Compression::from_name("zstd"), None);
    }

    #[test]
    fn round_trips_append_after_existing_bytes() {
        for algorithm in ALL {
            for len in [0, 1, 13, 4096, 200_000] {
                let body = sample(len);
                let mut compressed = b"head".to_vec();
                algorithm.compress(&body, &mut compressed).unwrap();
                assert_eq!(&compressed[..4], b"head");
                let mut plain = b"keep".to_vec();
                algorithm.decompress(&compressed[4..], len, &mut plain).unwrap();
                assert_eq!(&plain[..4], b"keep", "{algorithm:?} {len}");
                assert_eq!(&plain[4..], &body[..], "{algorithm:?} {len}");
            }
        }
    }

    #[test]
    fn lz4_body_is_prefixed_with_big_endian_length() {
        let body = sample(300);
        let mut out = Vec::new();
        Compression::Lz4.compress(&body, &mut out).unwrap();
        assert_eq!(&out[..4], &[0, 0, 1, 44]);
        // The rest is a plain LZ4 block, readable by any block decoder.
        let mut plain = vec![0u8; 300];
        assert_eq!(lz4_flex::block::decompress_into(&out[4..], &mut plain).unwrap(), 300);
        assert_eq!(plain, body);
    }

    #[test]
    fn lz4_grows_the_output_only_by_what_the_block_may_need() {
        // The connection reuses one output buffer, so its capacity is memory held for the
        // connection's life: compressing must reserve the prefix and the block's worst case,
        // not a multiple of them (as `block_start * max` instead of `+` would: 4x here).
        let body = sample(200_000);
        let need = LZ4_LENGTH_PREFIX + lz4_flex::block::get_maximum_output_size(body.len());
        let mut out = Vec::new();
        Compression::Lz4.compress(&body, &mut out).unwrap();
        // An empty Vec grows to exactly what one resize asks for; 2x leaves room for any
        // amortised-growth policy while still refusing the 4x over-allocation.
        assert!(out.capacity() >= need && out.capacity() < 2 * need, "capacity {} for {need}", out.capacity());
        let mut plain = Vec::new();
        Compression::Lz4.decompress(&out, body.len(), &mut plain).unwrap();
        assert_eq!(plain, body);
    }

    #[test]
    fn snappy_body_has_no_extra_prefix() {
        let body = sample(300);
        let mut out = Vec::new();
        Compression::Snappy.compress(&body, &mut out).unwrap();
        // Snappy's own varint length, 300 = 0xac 0x02, comes first.
        assert_eq!(&out[..2], &[0xac, 0x02]);
    }

    #[test]
    fn hostile_length_prefix_is_refused_before_allocating() {
        // LZ4: claims 4 GiB - 1.
        let mut out = Vec::new();
        let err = Compression::Lz4.decompress(&[0xff, 0xff, 0xff, 0xff, 0x00], 1 << 20, &mut out).unwrap_err();
        assert_eq!(err.field, "lz4 uncompressed length");
        assert_eq!(err.side, Side::Remote);
        assert_eq!(out.capacity(), 0);
        // Snappy: varint for 2^32 - 1.
        let err = Compression::Snappy.decompress(&[0xff, 0xff, 0xff, 0xff, 0x0f, 0x00], 1 << 20, &mut out).unwrap_err();
        assert_eq!(err.field, "snappy uncompressed length");
        assert_eq!(out.capacity(), 0);
        // None: the body itself is the size.
        let err = Compression::None.decompress(&[1, 2, 3], 2, &mut out).unwrap_err();
        assert_eq!(err.field, "body");
    }

    #[test]
    fn a_declared_length_beyond_the_algorithm_ratio_is_refused_before_allocating() {
        // Issue #12: a 1-byte LZ4 block that claims 256 MiB, under the frame cap.
        let cap = 256 << 20;
        let mut out = Vec::new();
        let err = Compression::Lz4.decompress(&[0x10, 0, 0, 0, 0], cap, &mut out).unwrap_err();
        assert_eq!((err.side, err.field, err.offset), (Side::Remote, "lz4 uncompressed length", 0));
        assert_eq!(
            err.reason,
            "declares 268435456 uncompressed bytes, more than 255 times the 1 compressed bytes can hold"
        );
        assert_eq!(out.capacity(), 0);
        // Snappy: a 4-byte varint claiming 256 MiB (0x80 0x80 0x80 0x80 0x01) and one byte.
        let err = Compression::Snappy.decompress(&[0x80, 0x80, 0x80, 0x80, 0x01, 0x00], cap, &mut out).unwrap_err();
        assert_eq!((err.field, err.offset), ("snappy uncompressed length", 0));
        assert_eq!(
            err.reason,
            "declares 268435456 uncompressed bytes, more than 22 times the 6 compressed bytes can hold"
        );
        assert_eq!(out.capacity(), 0);
    }

    #[test]
    fn the_best_real_ratios_stay_within_the_bounds() {
        // Runs of one byte are each algorithm's best case.
        for (algorithm, ratio) in [(Compression::Lz4, MAX_LZ4_RATIO), (Compression::Snappy, MAX_SNAPPY_RATIO)] {
            for len in [1, 100, 70_000, 1 << 20] {
                let body = vec![7u8; len];
                let mut compressed = Vec::new();
                algorithm.compress(&body, &mut compressed).unwrap();
                let block = if algorithm == Compression::Lz4 { compressed.len() - 4 } else { compressed.len() };
                assert!(len <= block * ratio, "{algorithm:?} {len} from {block}");
                let mut out = Vec::new();
                algorithm.decompress(&compressed, len, &mut out).unwrap();
                assert_eq!(out, body);
            }
        }
    }

    #[test]
    fn cap_is_inclusive() {
        for algorithm in ALL {
            let body = sample(1000);
            let mut compressed = Vec::new();
            algorithm.compress(&body, &mut compressed).unwrap();
            let mut out = Vec::new();
            algorithm.decompress(&compressed, 1000, &mut out).unwrap();
            out.clear();
            let err = algorithm.decompress(&compressed, 999, &mut out).unwrap_err();
            let field = match algorithm {
                Compression::None => "body",
                Compression::Lz4 => "lz4 uncompressed length",
                Compression::Snappy => "snappy uncompressed length",
            };
            let want = ProtocolError::remote(field, 0, "declares 1000 uncompressed bytes, over the limit of 999");
            assert_eq!(err, want, "{algorithm:?}");
            assert!(out.is_empty());
        }
    }

    #[test]
    fn lz4_length_prefix_must_match_the_block() {
        let body = sample(100);
        let mut compressed = Vec::new();
        Compression::Lz4.compress(&body, &mut compressed).unwrap();
        // Claim fewer bytes than the block holds: the block overruns the output.
        compressed[3] = 99;
        let mut out = vec![7u8];
        let err = Compression::Lz4.decompress(&compressed, 1000, &mut out).unwrap_err();
        assert_eq!(err.field, "lz4 compressed body");
        assert_eq!(out, [7]);
        // Claim more bytes than the block holds.
        compressed[3] = 101;
        let err = Compression::Lz4.decompress(&compressed, 1000, &mut out).unwrap_err();
        assert_eq!(err.field, "lz4 uncompressed length");
        assert_eq!(out, [7]);
    }

    #[test]
    fn truncated_and_garbage_bodies_fail_without_panicking() {
        for algorithm in [Compression::Lz4, Compression::Snappy] {
            let body = sample(5000);
            let mut compressed = Vec::new();
            algorithm.compress(&body, &mut compressed).unwrap();
            for cut in [0, 1, 3, 4, 5, compressed.len() / 2, compressed.len() - 1] {
                let mut out = Vec::new();
                let result = algorithm.decompress(&compressed[..cut], 5000, &mut out);
                // The first 5 bytes hold the length prefix (LZ4's 4, Snappy's varint of 5000
                // and its first tag); a later cut ends inside the compressed body.
                let err = result.unwrap_err();
                let name = if matches!(algorithm, Compression::Lz4) { "lz4" } else { "snappy" };
                let (part, offset) = match (cut <= 5, name) {
                    (true, _) => ("uncompressed length", 0),
                    (false, "lz4") => ("compressed body", 4),
                    (false, _) => ("compressed body", 0),
                };
                let got = (err.side, err.field.to_string(), err.offset);
                assert_eq!(got, (Side::Remote, format!("{name} {part}"), offset), "{algorithm:?} cut at {cut}: {err}");
                assert!(out.is_empty());
            }
        }
        let mut out = Vec::new();
        assert_eq!(Compression::Lz4.decompress(&[0, 0, 0], 10, &mut out).unwrap_err().field, "lz4 uncompressed length");
        assert_eq!(Compression::Snappy.decompress(&[], 10, &mut out).unwrap_err().field, "snappy uncompressed length");
    }
}
