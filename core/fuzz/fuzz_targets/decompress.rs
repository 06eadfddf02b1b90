//! v4 body decompression with a cap, for each algorithm.
//!
//! Input: one control byte (low 2 bits: algorithm; the rest: the cap, in units of 257 bytes),
//! then the compressed body. Invariants: no panic; never more than the cap appended; on error
//! the output is left as it was; and compressing then decompressing the input gives it back.
#![no_main]

use cqlwire_core::compression::Compression;
use cqlwire_core_fuzz::on_wasm_stack;
use libfuzzer_sys::fuzz_target;

const MARKER: &[u8] = b"keep";

fn run(data: &[u8]) {
    let Some((&control, body)) = data.split_first() else {
        return;
    };
    let algorithm = match control & 3 {
        0 => Compression::None,
        1 | 3 => Compression::Lz4,
        _ => Compression::Snappy,
    };
    let cap = usize::from(control >> 2) * 257;

    let mut out = MARKER.to_vec();
    match algorithm.decompress(body, cap, &mut out) {
        Ok(()) => assert!(out.len() - MARKER.len() <= cap, "appended past the cap"),
        Err(_) => assert_eq!(out, MARKER, "output changed on error"),
    }

    let mut compressed = Vec::new();
    algorithm.compress(body, &mut compressed).expect("small inputs compress");
    let mut plain = Vec::new();
    algorithm.decompress(&compressed, body.len(), &mut plain).expect("our own output decompresses");
    assert!(plain == body, "round trip changed the body");
}

fuzz_target!(|data: &[u8]| on_wasm_stack(data, run));
