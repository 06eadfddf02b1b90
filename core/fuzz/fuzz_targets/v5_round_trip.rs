//! Envelopes built from fuzz input, framed by `FrameEncoder`, must come back unchanged from
//! `FrameDecoder`, whichever way the stream is cut.
//!
//! Input: one control byte (bit 0: LZ4; bit 1: send as one large envelope; the rest: how the
//! stream is cut), then bodies separated by 0xff. Bodies are stretched by a repeat count (the
//! first byte of each) so that multi-frame envelopes are reached with small inputs.
#![no_main]

use cqlwire_core::v5::{FrameDecoder, FrameEncoder};
use cqlwire_core_fuzz::on_wasm_stack;
use libfuzzer_sys::fuzz_target;

/// Just over one frame, so large envelopes are reached while runs stay fast.
const MAX_BODY: usize = 140_000;
/// All envelopes together: stretching every part of a 1 MB input would make gigabytes.
const MAX_TOTAL: usize = 4 << 20;

fn run(data: &[u8]) {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    let compression = control & 1 != 0;
    let large = control & 2 != 0;
    let step = usize::from(control >> 2) * 1031 + 97;

    let mut envelopes = Vec::new();
    for (stream, part) in rest.split(|&b| b == 0xff).enumerate() {
        let (repeat, body) = match part.split_first() {
            Some((&r, body)) => (usize::from(r) * 64 + 1, body),
            None => (1, part),
        };
        let len = (body.len() * repeat).min(MAX_BODY);
        let body: Vec<u8> = body.iter().copied().cycle().take(len).collect();
        envelopes.extend_from_slice(&[0x85, 0, 0, stream as u8, 0x08]);
        envelopes.extend_from_slice(&(body.len() as u32).to_be_bytes());
        envelopes.extend_from_slice(&body);
        if large || envelopes.len() >= MAX_TOTAL {
            break;
        }
    }

    let mut encoder = FrameEncoder::new(compression);
    let mut wire = Vec::new();
    if large {
        encoder.encode_large(&envelopes, &mut wire).expect("one whole envelope");
    } else {
        encoder.encode_self_contained(&envelopes, &mut wire).expect("whole envelopes");
    }

    let mut decoder = FrameDecoder::new(compression);
    let mut decoded = Vec::new();
    for chunk in wire.chunks(step) {
        decoder.decode_all(chunk, &mut decoded).expect("our own frames decode");
    }
    assert!(decoded == envelopes, "round trip changed the envelopes");
    assert_eq!(decoder.pending_len(), 0);
}

fuzz_target!(|data: &[u8]| on_wasm_stack(data, run));
