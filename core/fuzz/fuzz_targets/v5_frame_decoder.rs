//! Arbitrary bytes, cut into arbitrary chunks, fed to the v5 frame decoder.
//!
//! Input: one control byte (bit 0: LZ4 framing; bit 1: rewrite the CRCs so frames pass them
//! and the fuzzer reaches decompression and envelope reassembly; the rest: how the stream is
//! cut), then the stream. Invariants: no panic; memory stays within the decoder's caps; what comes out is
//! whole envelopes only; and the outcome (envelopes delivered, then the error if any) does not
//! depend on where the stream was cut.
#![no_main]

use cqlwire_core::error::ProtocolError;
use cqlwire_core::v5::{
    crc24, crc32_cassandra, FrameDecoder, ENVELOPE_HEADER_LEN, LZ4_HEADER_LEN, MAX_PAYLOAD, TRAILER_LEN,
    UNCOMPRESSED_HEADER_LEN,
};
use cqlwire_core_fuzz::on_wasm_stack;
use libfuzzer_sys::fuzz_target;

/// Small cap so that a fuzzed large envelope cannot make a run slow.
const MAX_ENVELOPE: usize = 1 << 20;

fn run(compression: bool, stream: &[u8], cut: impl Fn(usize) -> usize) -> (Vec<u8>, Option<ProtocolError>) {
    let mut decoder = FrameDecoder::new(compression).with_max_envelope_len(MAX_ENVELOPE);
    let mut envelopes = Vec::new();
    let mut rest = stream;
    let mut call = 0;
    while !rest.is_empty() {
        let (chunk, tail) = rest.split_at(cut(call).clamp(1, rest.len()));
        rest = tail;
        call += 1;
        if let Err(err) = decoder.decode_all(chunk, &mut envelopes) {
            // Failed for good: the same error again, and nothing more delivered.
            let before = envelopes.len();
            assert_eq!(decoder.decode_all(b"\x00", &mut envelopes), Err(err.clone()));
            assert_eq!(envelopes.len(), before);
            return (envelopes, Some(err));
        }
        // At most one frame in flight plus one capped envelope under reassembly.
        assert!(decoder.pending_len() <= LZ4_HEADER_LEN + MAX_PAYLOAD + TRAILER_LEN + MAX_ENVELOPE);
    }
    (envelopes, None)
}

fn assert_whole_envelopes(mut bytes: &[u8]) {
    while !bytes.is_empty() {
        assert!(bytes.len() >= ENVELOPE_HEADER_LEN, "torn envelope header delivered");
        let body = u32::from_be_bytes([bytes[5], bytes[6], bytes[7], bytes[8]]) as usize;
        assert!(bytes.len() - ENVELOPE_HEADER_LEN >= body, "torn envelope body delivered");
        bytes = &bytes[ENVELOPE_HEADER_LEN + body..];
    }
}

/// Makes every frame's header CRC24 and payload CRC32 correct, leaving the rest as fuzzed.
fn fix_crcs(compression: bool, stream: &mut [u8]) {
    let header_len = if compression { LZ4_HEADER_LEN } else { UNCOMPRESSED_HEADER_LEN };
    let fields_len = header_len - 3;
    let mut pos = 0;
    while pos + header_len <= stream.len() {
        let crc = crc24(&stream[pos..pos + fields_len]).to_le_bytes();
        stream[pos + fields_len..pos + header_len].copy_from_slice(&crc[..3]);
        let mut word = [0u8; 8];
        word[..fields_len].copy_from_slice(&stream[pos..pos + fields_len]);
        let payload_end = pos + header_len + (u64::from_le_bytes(word) & 0x1_FFFF) as usize;
        if payload_end + TRAILER_LEN > stream.len() {
            return;
        }
        let crc = crc32_cassandra(&stream[pos + header_len..payload_end]).to_le_bytes();
        stream[payload_end..payload_end + TRAILER_LEN].copy_from_slice(&crc);
        pos = payload_end + TRAILER_LEN;
    }
}

fn fuzz_one(data: &[u8]) {
    let Some((&control, stream)) = data.split_first() else {
        return;
    };
    let compression = control & 1 != 0;
    let step = usize::from(control >> 2) + 1;
    let mut fixed;
    let stream = if control & 2 != 0 {
        fixed = stream.to_vec();
        fix_crcs(compression, &mut fixed);
        &fixed[..]
    } else {
        stream
    };

    let whole = run(compression, stream, |_| usize::MAX);
    assert_whole_envelopes(&whole.0);
    let cut = run(compression, stream, |call| (call * 7919 + step) % (step * 3 + 1));
    assert_eq!(whole, cut, "outcome depends on how the stream was cut");
    let bytewise = run(compression, stream, |_| 1);
    assert_eq!(whole, bytewise, "outcome differs when fed byte by byte");
}

fuzz_target!(|data: &[u8]| on_wasm_stack(data, fuzz_one));
