//! Protocol v5 outer frames: the shared vectors in `tests/vectors/v5_frames.json` and round
//! trips through `FrameEncoder` / `FrameDecoder`.
//!
//! The vectors were produced with the DataStax python driver's `SegmentCodec`
//! (cassandra-driver 3.30.1, `cassandra/segment.py`, with the `lz4` package), an implementation
//! independent of ours. A vector has `compression: "lz4"` when LZ4 framing was negotiated
//! (absent means uncompressed framing).

mod common;

use cqlwire_core::error::{ProtocolError, Side};
use cqlwire_core::v5::{crc24, crc32_cassandra, FrameDecoder, FrameEncoder, MAX_PAYLOAD};
use serde_json::Value;

const TRAILING: &[u8] = &[0xde, 0xad, 0xbe, 0xef, 0x01];

fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex length");
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex digit")).collect()
}

struct Vector {
    name: String,
    compression: bool,
    bytes: Vec<u8>,
    expect: Option<(bool, Vec<u8>)>,
    error: Option<String>,
}

fn vectors() -> Vec<Vector> {
    let text = common::vector_file("v5_frames.json");
    let all: Vec<Value> = serde_json::from_str(&text).expect("parse v5_frames.json");
    assert!(all.len() >= 10, "expected the full vector set");
    all.into_iter()
        .map(|v| {
            assert_eq!(v["protocol"], 5);
            let compression = match v.get("compression").and_then(Value::as_str) {
                None => false,
                Some("lz4") => true,
                Some(other) => panic!("unknown compression {other}"),
            };
            let expect = v.get("expect").map(|e| {
                (
                    e["selfContained"].as_bool().expect("selfContained"),
                    unhex(e["payloadHex"].as_str().expect("payloadHex")),
                )
            });
            let error = v.get("error").map(|e| e.as_str().expect("error").to_owned());
            assert!(expect.is_some() != error.is_some());
            Vector {
                name: v["name"].as_str().expect("name").to_owned(),
                compression,
                bytes: unhex(v["hex"].as_str().expect("hex")),
                expect,
                error,
            }
        })
        .collect()
}

/// A decoded frame, and the input left after it.
struct Decoded {
    self_contained: bool,
    payload: Vec<u8>,
    rest: Vec<u8>,
}

/// Feeds `bytes` to `next_frame` in pieces of `step` bytes until a frame comes out.
fn next_frame_in_steps(compression: bool, bytes: &[u8], step: usize) -> Result<Option<Decoded>, ProtocolError> {
    let mut dec = FrameDecoder::new(compression);
    for chunk in bytes.chunks(step) {
        let mut input = chunk;
        if let Some(frame) = dec.next_frame(&mut input)? {
            return Ok(Some(Decoded {
                self_contained: frame.self_contained,
                payload: frame.payload.to_vec(),
                rest: input.to_vec(),
            }));
        }
        assert!(input.is_empty(), "an incomplete frame consumes all input");
    }
    Ok(None)
}

/// Feeds `bytes` to `decode` in pieces of `step` bytes, collecting envelopes.
fn decode_in_steps(compression: bool, bytes: &[u8], step: usize) -> Result<Vec<u8>, ProtocolError> {
    let mut dec = FrameDecoder::new(compression);
    let mut envelopes = Vec::new();
    for chunk in bytes.chunks(step) {
        dec.decode_all(chunk, &mut envelopes)?;
    }
    assert_eq!(dec.pending_len(), 0, "nothing left over after whole frames");
    Ok(envelopes)
}

#[test]
fn shared_vectors_decode_whole_byte_by_byte_and_with_trailing_bytes() {
    for v in vectors() {
        let with_trailing: Vec<u8> = [&v.bytes[..], TRAILING].concat();
        match (&v.expect, &v.error) {
            (Some((self_contained, payload)), None) => {
                for step in [v.bytes.len(), 1] {
                    let got = next_frame_in_steps(v.compression, &v.bytes, step)
                        .unwrap_or_else(|e| panic!("{}: {e}", v.name))
                        .unwrap_or_else(|| panic!("{}: no frame (step {step})", v.name));
                    assert_eq!(got.self_contained, *self_contained, "{}", v.name);
                    assert_eq!(got.payload, *payload, "{} (step {step})", v.name);
                    assert!(got.rest.is_empty());
                }
                // Trailing bytes stay in the input, untouched.
                let got = next_frame_in_steps(v.compression, &with_trailing, with_trailing.len()).unwrap().unwrap();
                assert_eq!(got.payload, *payload, "{}", v.name);
                assert_eq!(got.rest, TRAILING, "{}", v.name);
                // Through the envelope-level API, a self-contained frame yields its payload.
                if *self_contained {
                    for step in [v.bytes.len(), 1] {
                        let envelopes = decode_in_steps(v.compression, &v.bytes, step).unwrap();
                        assert_eq!(envelopes, *payload, "{}", v.name);
                    }
                }
            }
            (None, Some(field)) => {
                for bytes in [&v.bytes, &with_trailing] {
                    for step in [bytes.len(), 1] {
                        let err = decode_in_steps(v.compression, bytes, step)
                            .expect_err(&format!("{}: must fail (step {step})", v.name));
                        assert_eq!(err.field, field, "{}: {err}", v.name);
                        assert_eq!(err.side, Side::Remote);
                    }
                }
            }
            _ => unreachable!(),
        }
    }
}

#[test]
fn shared_vectors_round_trip_through_our_encoder() {
    for v in vectors() {
        let Some((self_contained, payload)) = &v.expect else {
            continue;
        };
        let mut enc = FrameEncoder::new(v.compression);
        let mut ours = Vec::new();
        enc.encode_frame(payload, *self_contained, &mut ours).unwrap();
        if !v.compression || v.bytes.len() == payload.len() + 12 {
            // No compressor choice involved (uncompressed framing, or a payload the peer
            // stored as is): the bytes must match exactly.
            assert_eq!(ours, v.bytes, "{}", v.name);
        }
        let got = next_frame_in_steps(v.compression, &ours, ours.len()).unwrap().unwrap();
        assert_eq!(got.self_contained, *self_contained, "{}", v.name);
        assert_eq!(got.payload, *payload, "{}", v.name);
    }
}

fn envelope(stream: i16, body_len: usize, compressible: bool) -> Vec<u8> {
    let mut e = vec![0x85, 0x00];
    e.extend_from_slice(&stream.to_be_bytes());
    e.push(0x08);
    e.extend_from_slice(&(body_len as u32).to_be_bytes());
    let mut seed = 0x9e37_79b9u32 ^ body_len as u32;
    e.extend((0..body_len).map(|i| {
        if compressible {
            b"row,value,"[i % 10] ^ (i / 4096) as u8
        } else {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed as u8
        }
    }));
    e
}

/// Sizes of whole envelopes (header included) from the brief: 0- and 1-byte bodies, exactly
/// one full frame, one byte more, and 300 KiB.
const SIZES: [usize; 6] = [9, 10, MAX_PAYLOAD - 1, MAX_PAYLOAD, MAX_PAYLOAD + 1, 9 + 300 * 1024];

#[test]
fn round_trips_whole_and_in_odd_chunks() {
    for compression in [false, true] {
        for compressible in [true, false] {
            for size in SIZES {
                let env = envelope(7, size - 9, compressible);
                let mut wire = Vec::new();
                FrameEncoder::new(compression).encode_self_contained(&env, &mut wire).unwrap();
                let frames_expected = size.div_ceil(MAX_PAYLOAD);
                let mut count = 0;
                let mut input = &wire[..];
                let mut dec = FrameDecoder::new(compression);
                while let Some(frame) = dec.next_frame(&mut input).unwrap() {
                    assert_eq!(frame.self_contained, size <= MAX_PAYLOAD);
                    count += 1;
                }
                assert_eq!(count, frames_expected, "size {size}");
                for step in [wire.len(), 7, 4096, 65536 + 3] {
                    let got = decode_in_steps(compression, &wire, step).unwrap();
                    assert!(got == env, "compression {compression} size {size} step {step}");
                }
            }
        }
    }
}

#[test]
fn round_trips_byte_by_byte() {
    for compression in [false, true] {
        for size in SIZES {
            let env = envelope(1, size - 9, true);
            let mut wire = Vec::new();
            FrameEncoder::new(compression).encode_self_contained(&env, &mut wire).unwrap();
            let mut dec = FrameDecoder::new(compression);
            let mut envelopes = Vec::new();
            let mut delivered_at = Vec::new();
            for (i, byte) in wire.iter().enumerate() {
                let mut input = std::slice::from_ref(byte);
                if dec.decode(&mut input, &mut envelopes).unwrap().is_some_and(|n| n > 0) {
                    delivered_at.push(i);
                }
                assert!(input.is_empty());
            }
            // Delivered exactly once, on the very last byte of the last frame.
            assert_eq!(delivered_at, [wire.len() - 1], "size {size}");
            assert!(envelopes == env);
        }
    }
}

#[test]
fn many_envelopes_pack_into_few_frames_and_come_back_in_order() {
    for compression in [false, true] {
        let envs: Vec<Vec<u8>> =
            (0..50).map(|i| envelope(i as i16, [0, 1, 500, 20_000, 140_000][i % 5], i % 2 == 0)).collect();
        let all = envs.concat();
        let mut wire = Vec::new();
        FrameEncoder::new(compression).encode_self_contained(&all, &mut wire).unwrap();
        for step in [wire.len(), 1000, 131_083] {
            let got = decode_in_steps(compression, &wire, step).unwrap();
            assert!(got == all, "compression {compression} step {step}");
        }
    }
}

#[test]
fn incompressible_payload_is_sent_with_uncompressed_length_zero() {
    let env = envelope(2, 50_000, false);
    let mut wire = Vec::new();
    FrameEncoder::new(true).encode_self_contained(&env, &mut wire).unwrap();
    assert_eq!(wire.len(), 8 + env.len() + 4);
    let word = u64::from_le_bytes([wire[0], wire[1], wire[2], wire[3], wire[4], 0, 0, 0]);
    assert_eq!(word & 0x1_FFFF, env.len() as u64, "compressed length = stored length");
    assert_eq!((word >> 17) & 0x1_FFFF, 0, "uncompressed length 0 = stored as is");
    assert_eq!(word >> 34, 1, "self-contained, zero padding");
    assert_eq!(u32::from_le_bytes([wire[5], wire[6], wire[7], 0]), crc24(&wire[..5]));
    assert_eq!(&wire[8..8 + env.len()], &env[..]);
    assert_eq!(&wire[8 + env.len()..], &crc32_cassandra(&env).to_le_bytes());

    // A compressible one is actually compressed.
    let env = envelope(2, 50_000, true);
    let mut wire = Vec::new();
    FrameEncoder::new(true).encode_self_contained(&env, &mut wire).unwrap();
    assert!(wire.len() < env.len() / 2);
    let word = u64::from_le_bytes([wire[0], wire[1], wire[2], wire[3], wire[4], 0, 0, 0]);
    assert_eq!((word >> 17) & 0x1_FFFF, env.len() as u64);
}

#[test]
fn trailing_bytes_of_the_next_frame_stay_buffered() {
    for compression in [false, true] {
        let a = envelope(1, 100, true);
        let b = envelope(2, 200, true);
        let mut enc = FrameEncoder::new(compression);
        let mut wire = Vec::new();
        enc.encode_self_contained(&a, &mut wire).unwrap();
        let first_len = wire.len();
        enc.encode_self_contained(&b, &mut wire).unwrap();
        let cut = first_len + 5;
        let mut dec = FrameDecoder::new(compression);
        let mut envelopes = Vec::new();
        assert_eq!(dec.decode_all(&wire[..cut], &mut envelopes).unwrap(), a.len());
        assert_eq!(envelopes, a);
        assert_eq!(dec.pending_len(), 5, "the next frame's first bytes are kept");
        envelopes.clear();
        assert_eq!(dec.decode_all(&wire[cut..], &mut envelopes).unwrap(), b.len());
        assert_eq!(envelopes, b);
        assert_eq!(dec.pending_len(), 0);
        assert_eq!(dec.consumed(), wire.len());
    }
}

#[test]
fn large_envelope_split_mid_stream_reports_pending_bytes() {
    let env = envelope(3, 300 * 1024, true);
    let mut wire = Vec::new();
    FrameEncoder::new(false).encode_large(&env, &mut wire).unwrap();
    let mut dec = FrameDecoder::new(false);
    let mut envelopes = Vec::new();
    // Two whole frames out of three: nothing delivered yet, everything held.
    let two_frames = 2 * (6 + MAX_PAYLOAD + 4);
    assert_eq!(dec.decode_all(&wire[..two_frames], &mut envelopes).unwrap(), 0);
    assert_eq!(dec.pending_len(), 2 * MAX_PAYLOAD);
    assert_eq!(dec.decode_all(&wire[two_frames..], &mut envelopes).unwrap(), env.len());
    assert!(envelopes == env);
}

#[test]
fn every_single_bit_flip_is_caught_by_a_crc() {
    let envs = [envelope(1, 40, true), envelope(2, 0, true)].concat();
    for compression in [false, true] {
        let mut wire = Vec::new();
        FrameEncoder::new(compression).encode_self_contained(&envs, &mut wire).unwrap();
        let header_len = if compression { 8 } else { 6 };
        for at in 0..wire.len() {
            for bit in 0..8 {
                let mut bad = wire.clone();
                bad[at] ^= 1 << bit;
                let mut dec = FrameDecoder::new(compression);
                let mut envelopes = Vec::new();
                match dec.decode_all(&bad, &mut envelopes) {
                    Err(err) if at < header_len => {
                        assert_eq!(err.field, "v5 frame header crc24", "flip at {at}.{bit}");
                    }
                    Err(err) => {
                        assert_eq!(err.field, "v5 frame payload crc32", "flip at {at}.{bit}")
                    }
                    // CRCs catch every single-bit error, including in a length field (the
                    // header is checked before waiting for the payload it announces).
                    Ok(n) => panic!("flip at {at}.{bit} went unnoticed ({n} bytes delivered)"),
                }
            }
        }
    }
}

/// `framed_len_bound` is what a burst's wire buffer is reserved at: never less than the
/// uncompressed framing of those envelopes takes (else the buffer grows by doubling, the
/// peak it exists to avoid), and no more than a header and trailer for two frames per
/// payload's worth, plus two.
#[test]
fn the_framed_length_bound_holds_every_grouping_and_stays_tight() {
    use cqlwire_core::v5::{framed_len_bound, TRAILER_LEN, UNCOMPRESSED_HEADER_LEN};
    let per_frame = UNCOMPRESSED_HEADER_LEN + TRAILER_LEN;
    let groups: [&[usize]; 6] = [
        &[0],
        &[MAX_PAYLOAD - 9],
        &[MAX_PAYLOAD - 8, 1],
        &[MAX_PAYLOAD / 2 + 1; 5],
        &[3 * MAX_PAYLOAD, 10, MAX_PAYLOAD + 7],
        &[64 * 1024; 40],
    ];
    for bodies in groups {
        let envelopes: Vec<u8> = bodies.iter().enumerate().flat_map(|(i, &n)| envelope(i as i16, n, false)).collect();
        let mut framed = Vec::new();
        FrameEncoder::new(false).encode_self_contained(&envelopes, &mut framed).unwrap();
        let bound = framed_len_bound(envelopes.len());
        assert!(framed.len() <= bound, "{bodies:?}: {} framed, bound {bound}", framed.len());
        assert_eq!(bound, envelopes.len() + (envelopes.len() / MAX_PAYLOAD * 2 + 2) * per_frame, "{bodies:?}");
    }
    assert_eq!(framed_len_bound(usize::MAX), usize::MAX, "saturates");
}
