//! Streaming bzip2 for the CLI. Push-based and bounded: `push` only stores the input, and
//! `pull` hands out at most `PULL_LIMIT` bytes per call, so a small input that expands a lot
//! (a decompression bomb) never sizes an allocation beyond that.

use bzip2::{Action, Compress, Compression, Decompress, Status};
use wasm_bindgen::prelude::*;

const PULL_LIMIT: usize = 256 * 1024;

/// A bzip2 decoder of one input: concatenated streams (as `pbzip2` writes) are read in turn.
#[wasm_bindgen]
pub struct Bzip2Decoder {
    inner: Decompress,
    input: Vec<u8>,
    consumed: usize,
    /// The current stream ended; a next one starts with the next input byte.
    stream_ended: bool,
    /// Bytes of the input consumed before the current stream began.
    stream_start: u64,
}

#[wasm_bindgen]
impl Bzip2Decoder {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Bzip2Decoder {
        Bzip2Decoder {
            inner: Decompress::new(false),
            input: Vec::new(),
            consumed: 0,
            stream_ended: false,
            stream_start: 0,
        }
    }

    /// Keeps `bytes` for the next pulls.
    pub fn push(&mut self, bytes: &[u8]) {
        self.input.drain(..self.consumed);
        self.consumed = 0;
        self.input.extend_from_slice(bytes);
    }

    /// Up to 256 KiB of output; empty when the input pushed so far is used up.
    pub fn pull(&mut self) -> Result<Vec<u8>, JsError> {
        let mut out = Vec::with_capacity(PULL_LIMIT);
        while out.len() < PULL_LIMIT && self.consumed < self.input.len() {
            if self.stream_ended {
                self.stream_start = self.compressed_offset();
                self.inner = Decompress::new(false);
                self.stream_ended = false;
            }
            let before_in = self.inner.total_in();
            let before_out = out.len();
            let status = self.inner.decompress_vec(&self.input[self.consumed..], &mut out).map_err(|error| {
                JsError::new(&format!("{error} (at or before compressed byte {})", self.compressed_offset()))
            })?;
            self.consumed += (self.inner.total_in() - before_in) as usize;
            if status == Status::StreamEnd {
                self.stream_ended = true;
            } else if self.inner.total_in() == before_in && out.len() == before_out {
                break;
            }
        }
        Ok(out)
    }

    /// Fails unless the input ended at the end of a stream (a cut file is an error).
    pub fn finish(&self) -> Result<(), JsError> {
        if self.stream_ended && self.consumed == self.input.len() {
            return Ok(());
        }
        Err(JsError::new(&format!(
            "the bzip2 data ends in the middle of a stream (after compressed byte {})",
            self.compressed_offset()
        )))
    }

    /// Compressed bytes consumed so far, over all streams.
    fn compressed_offset(&self) -> u64 {
        self.stream_start + self.inner.total_in()
    }
}

impl Default for Bzip2Decoder {
    fn default() -> Self {
        Self::new()
    }
}

/// A bzip2 encoder (block size 900k, bzip2's default).
#[wasm_bindgen]
pub struct Bzip2Encoder {
    inner: Compress,
}

#[wasm_bindgen]
impl Bzip2Encoder {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Bzip2Encoder {
        Bzip2Encoder { inner: Compress::new(Compression::default(), 30) }
    }

    /// Compresses `bytes`, returning what is ready (bzip2 holds up to a block back).
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<u8>, JsError> {
        self.run(bytes, Action::Run)
    }

    /// The rest of the stream, its trailer included.
    pub fn finish(&mut self) -> Result<Vec<u8>, JsError> {
        self.run(&[], Action::Finish)
    }

    fn run(&mut self, bytes: &[u8], action: Action) -> Result<Vec<u8>, JsError> {
        let mut out = Vec::with_capacity(bytes.len() / 2 + 1024);
        let mut used = 0usize;
        loop {
            if out.capacity() - out.len() < 1024 {
                out.reserve(out.capacity().max(64 * 1024));
            }
            let before = self.inner.total_in();
            let status = self
                .inner
                .compress_vec(&bytes[used..], &mut out, action)
                .map_err(|error| JsError::new(&error.to_string()))?;
            used += (self.inner.total_in() - before) as usize;
            match action {
                Action::Finish if status == Status::StreamEnd => return Ok(out),
                Action::Finish => continue,
                _ if used == bytes.len() => return Ok(out),
                _ => continue,
            }
        }
    }
}

impl Default for Bzip2Encoder {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(decoder: &mut Bzip2Decoder, input: &[u8], piece: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for chunk in input.chunks(piece) {
            decoder.push(chunk);
            loop {
                let part = decoder.pull().ok().unwrap_or_default();
                assert!(part.len() <= PULL_LIMIT, "a pull hands out at most {PULL_LIMIT} bytes");
                if part.is_empty() {
                    break;
                }
                out.extend_from_slice(&part);
            }
        }
        out
    }

    fn encode(data: &[u8]) -> Vec<u8> {
        let mut encoder = Bzip2Encoder::new();
        let mut packed = Vec::new();
        for chunk in data.chunks(7777) {
            packed.extend(encoder.push(chunk).ok().unwrap_or_default());
        }
        packed.extend(encoder.finish().ok().unwrap_or_default());
        packed
    }

    #[test]
    fn round_trip_in_odd_pieces_and_two_concatenated_streams() {
        let data: Vec<u8> = (0..60_000u32).flat_map(|i| format!("{i},name {i}\n").into_bytes()).collect();
        let packed = encode(&data);
        assert_eq!(&packed[..3], b"BZh");
        let mut twice = packed.clone();
        twice.extend_from_slice(&encode(b"tail\n"));
        let mut decoder = Bzip2Decoder::new();
        let out = decode_all(&mut decoder, &twice, 1000);
        let mut expected = data.clone();
        expected.extend_from_slice(b"tail\n");
        assert_eq!(out, expected);
        assert!(decoder.finish().is_ok());
    }

    #[test]
    fn a_small_input_that_expands_a_lot_comes_out_in_bounded_pulls() {
        let data = vec![b'a'; 4 * 1024 * 1024];
        let packed = encode(&data);
        assert!(packed.len() < 64 * 1024, "{} bytes", packed.len());
        let mut decoder = Bzip2Decoder::new();
        assert_eq!(decode_all(&mut decoder, &packed, packed.len()).len(), data.len());
    }
}
