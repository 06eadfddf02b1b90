//! Protocol v5 outer framing (native_protocol_v5.spec, section 2).
//!
//! After the STARTUP exchange, v5 wraps envelopes (the v4-style 9-byte header plus body) in
//! frames whose integers are all little-endian:
//!
//! ```text
//! uncompressed: [3: payload len (17 bits) | self-contained (1) | padding (6)] [3: CRC24 of those 3]
//!               payload (<= 131071 bytes) [4: CRC32 of payload]
//! LZ4:          [5: compressed len (17) | uncompressed len (17) | self-contained (1) | padding (5)]
//!               [3: CRC24 of those 5] raw LZ4 block [4: CRC32 of the compressed bytes]
//! ```
//!
//! An LZ4 frame whose uncompressed length is 0 carries its payload as is (compression did not
//! shrink it). The spec says "the remaining 4 bytes" hold the LZ4 header's CRC24; Cassandra's
//! `FrameEncoderLZ4` actually writes the CRC24 into the 3 bytes after the first 5, which is what
//! is implemented here. The CRC32 is the standard (zlib/IEEE) CRC32 but, as in Cassandra's
//! `Crc.crc32()`, it is first fed the four bytes `FA 2D 55 CA`, which the spec does not mention.
//!
//! A self-contained frame holds one or more whole envelopes. An envelope too large for one
//! frame travels in a run of non-self-contained frames; the receiver knows the run is over when
//! it has the number of bytes the envelope header announced.
//!
//! Both halves are sans-IO and own their buffers, so steady-state framing allocates nothing:
//! [`FrameEncoder`] appends frames to a caller-owned output buffer, and [`FrameDecoder`] takes
//! socket reads cut anywhere and appends whole envelopes to a caller-owned buffer.

use std::sync::OnceLock;

use crate::error::ProtocolError;

/// Largest payload of one frame (uncompressed, and also the largest compressed payload).
pub const MAX_PAYLOAD: usize = (1 << 17) - 1;
/// Header length of an uncompressed frame.
pub const UNCOMPRESSED_HEADER_LEN: usize = 6;
/// Header length of an LZ4 frame.
pub const LZ4_HEADER_LEN: usize = 8;
/// Length of the CRC32 trailer.
pub const TRAILER_LEN: usize = 4;
/// Length of an envelope header: version, flags, stream (i16), opcode, body length (u32), BE.
pub const ENVELOPE_HEADER_LEN: usize = 9;
/// Default cap on one envelope reassembled from several frames: the spec's 256 MB body limit.
pub const DEFAULT_MAX_ENVELOPE_LEN: usize = ENVELOPE_HEADER_LEN + 256 * 1024 * 1024;

/// After a large envelope, keep at most this much of the reassembly buffer: one huge result
/// must not pin its size for the life of the connection.
const LARGE_BUFFER_KEEP: usize = 4 * (MAX_PAYLOAD + 1);

const LENGTH_MASK: u64 = 0x1_FFFF;

/// The capacity a large envelope is put together in: its bytes (all present) and whatever
/// follows it, rounded up to a whole MiB, so that the same result in the next burst needs the
/// same block and fits the hole this one leaves (WebAssembly memory only grows; a size that
/// varied with how the reads fell left holes a few KB too small).
/// At most how many bytes `envelopes` bytes take once framed uncompressed: every frame but
/// the last of a group is at least half full, so there are at most two frames per
/// [`MAX_PAYLOAD`] bytes, plus one, each with a header and a trailer.
pub fn framed_len_bound(envelopes: usize) -> usize {
    let frames = envelopes / MAX_PAYLOAD * 2 + 2;
    envelopes.saturating_add(frames.saturating_mul(UNCOMPRESSED_HEADER_LEN + TRAILER_LEN))
}

pub fn large_envelope_capacity(present: usize) -> usize {
    present.div_ceil(1 << 20).saturating_mul(1 << 20)
}

// ---------------------------------------------------------------------------------------------
// Checksums

const CRC24_INIT: u32 = 0x87_5060;
/// Koopman's polynomial as written in Cassandra's `Crc.java`, with the x^24 term included.
const CRC24_POLY: u32 = 0x197_4F0B;
/// Reflected CRC-32/ISO-HDLC polynomial (zlib, Java's `CRC32`).
const CRC32_POLY_REFLECTED: u32 = 0xEDB8_8320;
/// Bytes Cassandra feeds into every payload CRC32 before the payload (`Crc.initialBytes`).
const CRC32_CASSANDRA_PREFIX: [u8; 4] = [0xFA, 0x2D, 0x55, 0xCA];
const CRC32_CASSANDRA_SEED: u32 = crc32_bitwise_const(0xFFFF_FFFF, &CRC32_CASSANDRA_PREFIX);

/// The checksums' lookup tables, computed on first use rather than stored in the binary: as
/// constants they were 9 KB of incompressible data, ~3% of the gzipped WASM module, while an
/// empty `OnceLock` takes no bytes there. Once filled, the loops read them at a fixed address,
/// as they read the constants.
struct Tables {
    /// `crc24[b]`: the CRC24 contribution of top byte `b`.
    crc24: [u32; 256],
    /// Slicing-by-8: `crc32[k][b]` is the CRC of byte `b` followed by `k` zero bytes.
    /// Frames are up to 128 KiB, and this checksum runs over every byte we send and receive.
    crc32: [[u32; 256]; 8],
}

static TABLES: OnceLock<Tables> = OnceLock::new();

#[inline]
fn tables() -> &'static Tables {
    TABLES.get_or_init(build_tables)
}

#[cold]
#[inline(never)]
fn build_tables() -> Tables {
    let mut t = Tables { crc24: [0; 256], crc32: [[0; 256]; 8] };
    for byte in 0..256 {
        let mut crc24 = (byte as u32) << 16;
        for _ in 0..8 {
            crc24 <<= 1;
            if crc24 & 0x100_0000 != 0 {
                crc24 ^= CRC24_POLY;
            }
        }
        t.crc24[byte] = crc24;
        t.crc32[0][byte] = crc32_bitwise_const(0, &[byte as u8]);
    }
    for k in 1..8 {
        for byte in 0..256 {
            let prev = t.crc32[k - 1][byte];
            t.crc32[k][byte] = (prev >> 8) ^ t.crc32[0][(prev & 0xFF) as usize];
        }
    }
    t
}

/// The v5 header CRC24: MSB-first (not reflected), init 0x875060, polynomial 0x1974F0B, no
/// final xor, over the header bytes in wire order. The result fits in 24 bits.
pub fn crc24(bytes: &[u8]) -> u32 {
    let t = &tables().crc24;
    bytes.iter().fold(CRC24_INIT, |crc, &byte| {
        // The low 16 bits shift up without reaching bit 24, so only the top byte needs the
        // table (CRC linearity).
        ((crc << 8) & 0xFF_FFFF) ^ t[usize::from((crc >> 16) as u8 ^ byte)]
    })
}

/// The reflected CRC-32 of `bytes` from `crc`, a bit at a time: for the constant seed (and,
/// from a zero byte, the table's first row).
const fn crc32_bitwise_const(mut crc: u32, bytes: &[u8]) -> u32 {
    let mut i = 0;
    while i < bytes.len() {
        crc ^= bytes[i] as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ CRC32_POLY_REFLECTED } else { crc >> 1 };
            bit += 1;
        }
        i += 1;
    }
    crc
}

fn crc32_update(mut crc: u32, bytes: &[u8]) -> u32 {
    let t = &tables().crc32;
    let at = |k: usize, i: u32| t[k][i as usize];
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let lo = crc ^ u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        let hi = u32::from_le_bytes([w[4], w[5], w[6], w[7]]);
        crc = at(7, lo & 0xFF)
            ^ at(6, (lo >> 8) & 0xFF)
            ^ at(5, (lo >> 16) & 0xFF)
            ^ at(4, lo >> 24)
            ^ at(3, hi & 0xFF)
            ^ at(2, (hi >> 8) & 0xFF)
            ^ at(1, (hi >> 16) & 0xFF)
            ^ at(0, hi >> 24);
    }
    for &byte in words.remainder() {
        crc = (crc >> 8) ^ at(0, (crc ^ u32::from(byte)) & 0xFF);
    }
    crc
}

/// Plain CRC-32 (zlib, IEEE 802.3); kept for checking the table against the standard check value.
#[cfg(test)]
fn crc32(bytes: &[u8]) -> u32 {
    !crc32_update(0xFFFF_FFFF, bytes)
}

/// The v5 payload CRC32: standard CRC-32 of `FA 2D 55 CA` followed by `bytes`.
pub fn crc32_cassandra(bytes: &[u8]) -> u32 {
    !crc32_update(CRC32_CASSANDRA_SEED, bytes)
}

// ---------------------------------------------------------------------------------------------
// Envelope headers

/// Total length (header included) of the envelope starting at `pos`, or `None` if fewer than
/// 9 bytes remain.
fn envelope_len_at(bytes: &[u8], pos: usize) -> Option<usize> {
    let header = bytes.get(pos..)?.first_chunk::<ENVELOPE_HEADER_LEN>()?;
    let body = u32::from_be_bytes([header[5], header[6], header[7], header[8]]);
    // u32 always fits in usize on our 32- and 64-bit targets; saturate rather than assume.
    Some(usize::try_from(body).unwrap_or(usize::MAX).saturating_add(ENVELOPE_HEADER_LEN))
}

// ---------------------------------------------------------------------------------------------
// Encoder

/// Frames outgoing envelopes. One per connection; its LZ4 scratch buffer is reused.
#[derive(Debug, Default)]
pub struct FrameEncoder {
    compression: bool,
    scratch: Vec<u8>,
}

impl FrameEncoder {
    /// `compression` is whether LZ4 was negotiated in STARTUP.
    pub fn new(compression: bool) -> Self {
        Self { compression, scratch: Vec::new() }
    }

    pub fn compression(&self) -> bool {
        self.compression
    }

    /// Appends to `out` the frames carrying `envelopes`: one or more whole envelopes back to
    /// back. Consecutive envelopes are packed into self-contained frames of at most
    /// [`MAX_PAYLOAD`] bytes, never splitting an envelope; an envelope too large for one frame
    /// goes out on its own through [`Self::encode_large`]. Empty input writes nothing.
    ///
    /// Fails (a local error, `out` untouched) if `envelopes` does not end on an envelope
    /// boundary.
    pub fn encode_self_contained(&mut self, envelopes: &[u8], out: &mut Vec<u8>) -> Result<(), ProtocolError> {
        check_envelopes(envelopes, 0, ProtocolError::local)?;
        let mut group_start = 0;
        let mut pos = 0;
        while let Some(len) = envelope_len_at(envelopes, pos) {
            // check_envelopes guarantees the envelope is whole.
            let end = pos + len;
            if len > MAX_PAYLOAD {
                self.write_group(&envelopes[group_start..pos], out);
                self.split_large(&envelopes[pos..end], out);
                group_start = end;
            } else if end - group_start > MAX_PAYLOAD {
                self.write_group(&envelopes[group_start..pos], out);
                group_start = pos;
            }
            pos = end;
        }
        self.write_group(&envelopes[group_start..], out);
        Ok(())
    }

    /// Appends to `out` the frames carrying exactly one envelope. If it exceeds
    /// [`MAX_PAYLOAD`] it is cut into non-self-contained frames of at most that size;
    /// otherwise it fits one self-contained frame, which is what it gets.
    pub fn encode_large(&mut self, envelope: &[u8], out: &mut Vec<u8>) -> Result<(), ProtocolError> {
        match envelope_len_at(envelope, 0) {
            Some(len) if len == envelope.len() => {
                if len > MAX_PAYLOAD {
                    self.split_large(envelope, out);
                } else {
                    self.write_frame(envelope, true, out);
                }
                Ok(())
            }
            Some(len) => Err(ProtocolError::local(
                "envelope length",
                5,
                format!("header announces {len} bytes, {} given", envelope.len()),
            )),
            None => Err(ProtocolError::local(
                "envelope header",
                0,
                format!("needs {ENVELOPE_HEADER_LEN} bytes, {} given", envelope.len()),
            )),
        }
    }

    /// Appends one frame carrying `payload` as is, which must be at most [`MAX_PAYLOAD`]
    /// bytes. A building block for tests and tools: the caller is responsible for the payload
    /// being whole envelopes (self-contained) or the next part of one (not self-contained).
    pub fn encode_frame(
        &mut self,
        payload: &[u8],
        self_contained: bool,
        out: &mut Vec<u8>,
    ) -> Result<(), ProtocolError> {
        if payload.len() > MAX_PAYLOAD {
            return Err(ProtocolError::local(
                "v5 frame payload length",
                0,
                format!("{} bytes, over the limit of {MAX_PAYLOAD}", payload.len()),
            ));
        }
        self.write_frame(payload, self_contained, out);
        Ok(())
    }

    fn split_large(&mut self, envelope: &[u8], out: &mut Vec<u8>) {
        for chunk in envelope.chunks(MAX_PAYLOAD) {
            self.write_frame(chunk, false, out);
        }
    }

    /// Writes a self-contained frame unless there is nothing to carry.
    fn write_group(&mut self, envelopes: &[u8], out: &mut Vec<u8>) {
        if !envelopes.is_empty() {
            self.write_frame(envelopes, true, out);
        }
    }

    /// Writes one frame; `payload.len() <= MAX_PAYLOAD` (checked by every caller).
    fn write_frame(&mut self, payload: &[u8], self_contained: bool, out: &mut Vec<u8>) {
        debug_assert!(payload.len() <= MAX_PAYLOAD);
        if !self.compression {
            let header = payload.len() as u32 | (u32::from(self_contained) << 17);
            let header = header.to_le_bytes();
            let crc = crc24(&header[..3]).to_le_bytes();
            out.reserve(UNCOMPRESSED_HEADER_LEN + payload.len() + TRAILER_LEN);
            out.extend_from_slice(&header[..3]);
            out.extend_from_slice(&crc[..3]);
            out.extend_from_slice(payload);
            out.extend_from_slice(&crc32_cassandra(payload).to_le_bytes());
            return;
        }
        let worst = lz4_flex::block::get_maximum_output_size(payload.len());
        if self.scratch.len() < worst {
            // Grows once to the worst case for a full frame; later frames reuse it.
            self.scratch.resize(lz4_flex::block::get_maximum_output_size(MAX_PAYLOAD).max(worst), 0);
        }
        let compressed = match lz4_flex::block::compress_into(payload, &mut self.scratch[..worst]) {
            Ok(n) if n < payload.len() => Some(&self.scratch[..n]),
            // Not smaller (or, impossibly with a worst-case buffer, failed): send as is.
            _ => None,
        };
        let (body, uncompressed_len) = match compressed {
            Some(body) => (body, payload.len()),
            None => (payload, 0),
        };
        let header = body.len() as u64 | ((uncompressed_len as u64) << 17) | (u64::from(self_contained) << 34);
        let header = header.to_le_bytes();
        let crc = crc24(&header[..5]).to_le_bytes();
        out.reserve(LZ4_HEADER_LEN + body.len() + TRAILER_LEN);
        out.extend_from_slice(&header[..5]);
        out.extend_from_slice(&crc[..3]);
        out.extend_from_slice(body);
        out.extend_from_slice(&crc32_cassandra(body).to_le_bytes());
    }
}

/// Checks that `bytes` is a sequence of whole envelopes. `base` is added to error offsets.
fn check_envelopes(
    bytes: &[u8],
    base: usize,
    error: fn(&'static str, usize, String) -> ProtocolError,
) -> Result<(), ProtocolError> {
    let mut pos = 0;
    while pos < bytes.len() {
        let Some(len) = envelope_len_at(bytes, pos) else {
            return Err(error(
                "envelope header",
                base.wrapping_add(pos),
                format!("needs {ENVELOPE_HEADER_LEN} bytes, {} left in the payload", bytes.len() - pos),
            ));
        };
        if len > bytes.len() - pos {
            return Err(error(
                "envelope length",
                base.wrapping_add(pos + 5),
                format!(
                    "envelope of {len} bytes overruns the self-contained payload ({} bytes left)",
                    bytes.len() - pos
                ),
            ));
        }
        pos += len;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Decoder

/// One decoded frame, as returned by [`FrameDecoder::next_frame`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame<'a> {
    pub self_contained: bool,
    /// The payload, decompressed if it was compressed.
    pub payload: &'a [u8],
}

#[derive(Debug, Clone, Copy)]
struct Header {
    /// Payload bytes on the wire (the compressed length for LZ4 frames).
    wire_len: usize,
    /// For LZ4 frames, the decompressed length; 0 when the payload is stored as is.
    uncompressed_len: usize,
    self_contained: bool,
}

/// Decodes incoming frames. One per connection; feed it socket reads cut anywhere.
///
/// Two ways to use it (pick one per decoder):
/// - [`Self::decode`] / [`Self::decode_all`]: appends whole envelopes to a buffer of yours,
///   reassembling large envelopes from their non-self-contained frames.
/// - [`Self::next_frame`]: raw frames, for tests and tools.
///
/// Limits: at most one frame (12 + 131071 bytes) is buffered, and a reassembled envelope is
/// capped at [`DEFAULT_MAX_ENVELOPE_LEN`] (see [`Self::with_max_envelope_len`]). After an
/// error the decoder stays failed and returns the same error: the stream cannot be resynced.
#[derive(Debug)]
pub struct FrameDecoder {
    compression: bool,
    max_envelope_len: usize,
    /// Bytes of a frame whose end has not arrived yet.
    partial: Vec<u8>,
    /// Stream offset of the first byte of the frame in `partial`.
    partial_offset: usize,
    /// The last frame's payload lives in `payload[..payload_len]`; the buffer only grows, so
    /// decompressing into it needs no zeroing once it reached full size.
    payload: Vec<u8>,
    payload_len: usize,
    /// A large envelope being reassembled from non-self-contained frames: its first frame's
    /// payload here, each later one in `large_pieces`, put together once at its size when
    /// all is present (a buffer grown by doubling held up to twice the envelope and left its
    /// abandoned halves in WebAssembly memory for good; issue #17).
    large: Vec<u8>,
    large_pieces: Vec<Vec<u8>>,
    /// Bytes of the large envelope received so far.
    large_have: usize,
    /// That envelope's total length, once its header has arrived.
    large_len: Option<usize>,
    /// Bytes of the framed stream consumed so far: the base of every error offset. Wraps
    /// (after 4 GiB on wasm32) rather than overflow: it only labels errors.
    consumed: usize,
    failed: Option<ProtocolError>,
}

impl FrameDecoder {
    /// `compression` is whether LZ4 was negotiated in STARTUP.
    pub fn new(compression: bool) -> Self {
        Self {
            compression,
            max_envelope_len: DEFAULT_MAX_ENVELOPE_LEN,
            partial: Vec::new(),
            partial_offset: 0,
            payload: Vec::new(),
            payload_len: 0,
            large: Vec::new(),
            large_pieces: Vec::new(),
            large_have: 0,
            large_len: None,
            consumed: 0,
            failed: None,
        }
    }

    /// Caps the size (header included) of an envelope reassembled from several frames.
    pub fn with_max_envelope_len(mut self, max_envelope_len: usize) -> Self {
        self.max_envelope_len = max_envelope_len;
        self
    }

    pub fn compression(&self) -> bool {
        self.compression
    }

    /// Bytes of capacity held by the decoder's buffers (partial frame, payload, large
    /// envelope): bounded by one frame plus [`LARGE_BUFFER_KEEP`] between envelopes.
    pub fn buffer_capacity(&self) -> usize {
        let pieces: usize = self.large_pieces.iter().map(|p| p.capacity()).sum();
        self.partial.capacity() + self.payload.capacity() + self.large.capacity() + pieces
    }

    /// Bytes of the framed stream consumed so far, modulo `usize::MAX + 1`.
    pub fn consumed(&self) -> usize {
        self.consumed
    }

    /// Bytes received but not yet delivered: a frame still arriving, plus the part of a large
    /// envelope reassembled so far. Non-zero at end of stream means the peer stopped mid-way.
    pub fn pending_len(&self) -> usize {
        self.partial.len() + self.large_have
    }

    fn header_len(&self) -> usize {
        if self.compression {
            LZ4_HEADER_LEN
        } else {
            UNCOMPRESSED_HEADER_LEN
        }
    }

    /// Reads at most one frame from the front of `input`, advancing it past the bytes used.
    /// Returns `Ok(None)` once `input` is exhausted before the frame ended (the bytes are kept
    /// for the next call). Bytes after the frame stay in `input`.
    pub fn next_frame(&mut self, input: &mut &[u8]) -> Result<Option<Frame<'_>>, ProtocolError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        match self.read_frame(input) {
            Ok(Some(header)) => {
                Ok(Some(Frame { self_contained: header.self_contained, payload: &self.payload[..self.payload_len] }))
            }
            Ok(None) => Ok(None),
            Err(err) => Err(self.fail(err)),
        }
    }

    /// Reads at most one frame from the front of `input` (as [`Self::next_frame`]) and appends
    /// to `envelopes` the whole envelopes it completes: all of a self-contained frame's, or a
    /// large envelope whose last frame this was. Returns `Ok(None)` if `input` ran out first,
    /// else `Ok(Some(bytes appended))`, which is 0 for a frame in the middle of a large
    /// envelope. On error nothing is appended.
    pub fn decode(&mut self, input: &mut &[u8], envelopes: &mut Vec<u8>) -> Result<Option<usize>, ProtocolError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        let result = self.read_frame(input).and_then(|header| match header {
            None => Ok(None),
            // What is left of the input may complete more envelopes right after this one.
            Some(header) => self.deliver(header, envelopes, input.len()).map(Some),
        });
        result.map_err(|err| self.fail(err))
    }

    /// Feeds all of `input` and appends every whole envelope it completes to `envelopes`.
    /// Returns the number of bytes appended.
    pub fn decode_all(&mut self, mut input: &[u8], envelopes: &mut Vec<u8>) -> Result<usize, ProtocolError> {
        let mut appended = 0;
        while let Some(n) = self.decode(&mut input, envelopes)? {
            appended += n;
        }
        Ok(appended)
    }

    fn fail(&mut self, err: ProtocolError) -> ProtocolError {
        self.failed = Some(err.clone());
        err
    }

    /// Moves the payload now in `self.payload` to `envelopes` if it completes envelopes.
    /// `spare`: bytes of input after this frame, room reserved beside a large envelope.
    fn deliver(&mut self, header: Header, envelopes: &mut Vec<u8>, spare: usize) -> Result<usize, ProtocolError> {
        let payload = &self.payload[..self.payload_len];
        // Offsets inside a payload are reported from the frame's payload start; for an LZ4
        // frame they are positions in the decompressed payload.
        let payload_offset = self.consumed.wrapping_sub(TRAILER_LEN + header.wire_len);
        if header.self_contained {
            // Whole envelopes only, so that the caller's buffer never holds a torn envelope
            // that the next frame's bytes would silently complete.
            check_envelopes(payload, payload_offset, ProtocolError::remote)?;
            envelopes.extend_from_slice(payload);
            return Ok(payload.len());
        }
        if payload.is_empty() {
            return Ok(0);
        }
        let expected = match self.large_len {
            Some(expected) => {
                if payload.len() > expected - self.large_have {
                    return Err(overrun(payload_offset, expected));
                }
                self.large_pieces.push(payload.to_vec());
                self.large_have += payload.len();
                expected
            }
            None => {
                // Until the envelope header is whole this holds at most one frame's payload.
                self.large.extend_from_slice(payload);
                self.large_have = self.large.len();
                let Some(len) = envelope_len_at(&self.large, 0) else {
                    return Ok(0);
                };
                if len > self.max_envelope_len {
                    return Err(ProtocolError::remote(
                        "envelope length",
                        payload_offset,
                        format!("large envelope of {len} bytes is over the limit of {}", self.max_envelope_len),
                    ));
                }
                if self.large.len() > len {
                    return Err(overrun(payload_offset, len));
                }
                self.large_len = Some(len);
                len
            }
        };
        if self.large_have < expected {
            return Ok(0);
        }
        envelopes.reserve_exact(large_envelope_capacity(envelopes.len() + expected + spare) - envelopes.len());
        envelopes.extend_from_slice(&self.large);
        for piece in self.large_pieces.drain(..) {
            envelopes.extend_from_slice(&piece);
        }
        // Freed, not kept: a small block left among the freed pieces would split their space.
        self.large_pieces = Vec::new();
        self.large.clear();
        self.large.shrink_to(LARGE_BUFFER_KEEP);
        self.large_have = 0;
        self.large_len = None;
        Ok(expected)
    }

    /// Reads one frame into `self.payload`; see [`Self::next_frame`].
    fn read_frame(&mut self, input: &mut &[u8]) -> Result<Option<Header>, ProtocolError> {
        let header_len = self.header_len();
        if self.partial.is_empty() {
            // Fast path: the whole frame is in `input`, so it is checked in place.
            if let Some(header_bytes) = input.get(..header_len) {
                let header = parse_header(header_bytes, self.compression, self.consumed)?;
                let frame_len = header_len + header.wire_len + TRAILER_LEN;
                if let Some((frame, rest)) = input.split_at_checked(frame_len) {
                    self.unpack(frame, header, self.consumed)?;
                    *input = rest;
                    self.consumed = self.consumed.wrapping_add(frame_len);
                    return Ok(Some(header));
                }
            }
            self.partial_offset = self.consumed;
        }
        if self.partial.len() < header_len {
            self.take_into_partial(input, header_len);
            if self.partial.len() < header_len {
                return Ok(None);
            }
        }
        let header = parse_header(&self.partial[..header_len], self.compression, self.partial_offset)?;
        let frame_len = header_len + header.wire_len + TRAILER_LEN;
        self.take_into_partial(input, frame_len);
        if self.partial.len() < frame_len {
            return Ok(None);
        }
        let partial = std::mem::take(&mut self.partial);
        let result = self.unpack(&partial, header, self.partial_offset);
        self.partial = partial;
        self.partial.clear();
        result.map(|()| Some(header))
    }

    /// Moves bytes from `input` to `partial` until it holds `target` bytes or `input` is empty.
    fn take_into_partial(&mut self, input: &mut &[u8], target: usize) {
        let wanted = target.saturating_sub(self.partial.len());
        let (taken, rest) = input.split_at(wanted.min(input.len()));
        self.partial.extend_from_slice(taken);
        self.consumed = self.consumed.wrapping_add(taken.len());
        *input = rest;
    }

    /// Checks the payload CRC of a whole `frame` and leaves its payload in `self.payload`.
    fn unpack(&mut self, frame: &[u8], header: Header, frame_offset: usize) -> Result<(), ProtocolError> {
        let header_len = self.header_len();
        // `frame` is exactly header + wire payload + trailer, as measured from the header.
        let wire = &frame[header_len..header_len + header.wire_len];
        let trailer_at = header_len + header.wire_len;
        let trailer = &frame[trailer_at..];
        let read = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
        let computed = crc32_cassandra(wire);
        if read != computed {
            return Err(ProtocolError::remote(
                "v5 frame payload crc32",
                frame_offset.wrapping_add(trailer_at),
                format!("read {read:08x}, computed {computed:08x}"),
            ));
        }
        let len = if header.uncompressed_len == 0 { header.wire_len } else { header.uncompressed_len };
        if self.payload.len() < len {
            self.payload.resize(len, 0);
        }
        let out = &mut self.payload[..len];
        if header.uncompressed_len == 0 {
            out.copy_from_slice(wire);
        } else {
            match lz4_flex::block::decompress_into(wire, out) {
                Ok(n) if n == len => {}
                Ok(n) => {
                    return Err(ProtocolError::remote(
                        "v5 frame uncompressed length",
                        frame_offset,
                        format!("header declares {len} bytes, the LZ4 block holds {n}"),
                    ))
                }
                Err(err) => {
                    return Err(ProtocolError::remote(
                        "v5 frame compressed payload",
                        frame_offset.wrapping_add(header_len),
                        format!("invalid LZ4 block for {len} uncompressed bytes: {err}"),
                    ))
                }
            }
        }
        self.payload_len = len;
        Ok(())
    }
}

fn overrun(payload_offset: usize, expected: usize) -> ProtocolError {
    ProtocolError::remote(
        "v5 frame payload",
        payload_offset,
        format!("non-self-contained frame runs past the end of its {expected}-byte envelope"),
    )
}

/// Parses and checks a frame header (`bytes` is exactly the header).
fn parse_header(bytes: &[u8], compression: bool, frame_offset: usize) -> Result<Header, ProtocolError> {
    let fields_len = if compression { 5 } else { 3 };
    let (fields, crc) = bytes.split_at(fields_len);
    let read = u32::from_le_bytes([crc[0], crc[1], crc[2], 0]);
    let computed = crc24(fields);
    if read != computed {
        return Err(ProtocolError::remote(
            "v5 frame header crc24",
            frame_offset.wrapping_add(fields_len),
            format!("read {read:06x}, computed {computed:06x}"),
        ));
    }
    let mut word = [0u8; 8];
    word[..fields_len].copy_from_slice(fields);
    let word = u64::from_le_bytes(word);
    let wire_len = (word & LENGTH_MASK) as usize;
    Ok(if compression {
        Header {
            wire_len,
            uncompressed_len: ((word >> 17) & LENGTH_MASK) as usize,
            self_contained: word & (1 << 34) != 0,
        }
    } else {
        Header { wire_len, uncompressed_len: 0, self_contained: word & (1 << 17) != 0 }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cassandra's `Crc.crc24` as written, bit by bit: the reference for the table version.
    fn crc24_bitwise(bytes: &[u8]) -> u32 {
        let mut crc: u32 = 0x875060;
        for &b in bytes {
            crc ^= u32::from(b) << 16;
            for _ in 0..8 {
                crc <<= 1;
                if crc & 0x100_0000 != 0 {
                    crc ^= 0x197_4F0B;
                }
            }
        }
        crc
    }

    /// Textbook reflected CRC-32, bit by bit: the reference for slicing-by-8.
    fn crc32_bitwise(bytes: &[u8]) -> u32 {
        let mut crc = 0xFFFF_FFFFu32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
            }
        }
        !crc
    }

    fn pseudo_random(len: usize, mut seed: u32) -> Vec<u8> {
        (0..len)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                seed as u8
            })
            .collect()
    }

    fn envelope(stream: i16, body: &[u8]) -> Vec<u8> {
        let mut e = vec![0x05, 0, 0, 0, 0x07];
        e[2..4].copy_from_slice(&stream.to_be_bytes());
        e.extend_from_slice(&(body.len() as u32).to_be_bytes());
        e.extend_from_slice(body);
        e
    }

    #[test]
    fn crc24_matches_gocql_vectors() {
        // apache/cassandra-gocql-driver crc_test.go, TestKoopmanChecksum ("manually generated
        // using [the] impl in Cassandra").
        assert_eq!(crc24(&[0, 0, 0]), 8251255);
        assert_eq!(crc24(&[0, 0, 0, 0, 0]), 11185162);
        assert_eq!(crc24(&[64, 226, 1]), 5891942);
        assert_eq!(crc24(&[64, 226, 1, 0, 0]), 8775784);
    }

    #[test]
    fn crc24_table_matches_cassandra_bitwise_algorithm() {
        assert_eq!(crc24(&[]), 0x875060);
        for len in 0..=8 {
            for seed in 1..200 {
                let bytes = pseudo_random(len, seed);
                assert_eq!(crc24(&bytes), crc24_bitwise(&bytes), "{bytes:02x?}");
                assert!(crc24(&bytes) < 1 << 24);
            }
        }
    }

    #[test]
    fn crc32_is_standard_crc32() {
        // The CRC-32/ISO-HDLC check value.
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
        for len in [0, 1, 7, 8, 9, 15, 16, 17, 1000, 4099] {
            let bytes = pseudo_random(len, 7 + len as u32);
            assert_eq!(crc32(&bytes), crc32_bitwise(&bytes), "len {len}");
        }
    }

    #[test]
    fn crc32_cassandra_matches_gocql_vectors() {
        // apache/cassandra-gocql-driver crc_test.go, TestChecksumIEEE.
        assert_eq!(crc32_cassandra(&[]), 1148681939);
        assert_eq!(crc32_cassandra(&[0, 0, 0, 0, 0]), 1178391023);
        assert_eq!(crc32_cassandra(&[1, 2, 3, 4, 5, 6]), 3536190002);
        // ...and is CRC-32 over the four seed bytes, then the data.
        let bytes = pseudo_random(100, 3);
        let mut prefixed = vec![0xFA, 0x2D, 0x55, 0xCA];
        prefixed.extend_from_slice(&bytes);
        assert_eq!(crc32_cassandra(&bytes), crc32_bitwise(&prefixed));
    }

    /// The header as a bit string, fields first: mirrors the python driver's
    /// `SegmentCodecTest._header_to_bits` so the layout is checked the way a peer checks it.
    fn header_bits(header: &[u8]) -> String {
        let n = if header.len() == 6 { 3 } else { 5 };
        let word = header[..n].iter().rev().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        let bits = format!("{word:0width$b}", width = n * 8);
        if n == 3 {
            // payload length, self-contained, padding
            format!("{}{}{}", &bits[7..24], &bits[6..7], &bits[..6])
        } else {
            // compressed length, uncompressed length, self-contained, padding
            format!("{}{}{}{}", &bits[23..40], &bits[6..23], &bits[5..6], &bits[..5])
        }
    }

    #[test]
    fn uncompressed_header_layout() {
        let env = envelope(0, &[b'b'; 41]); // 50 bytes, as in the python driver's test
        let mut out = Vec::new();
        FrameEncoder::new(false).encode_self_contained(&env, &mut out).unwrap();
        assert_eq!(out.len(), 6 + 50 + 4);
        assert_eq!(header_bits(&out[..6]), format!("{}1000000", "00000000000110010"));
        assert_eq!(&out[..3], &[50, 0, 2]);
        assert_eq!(u32::from_le_bytes([out[3], out[4], out[5], 0]), crc24(&[50, 0, 2]));
        assert_eq!(&out[6..56], &env[..]);
        assert_eq!(&out[56..], &crc32_cassandra(&env).to_le_bytes());
    }

    #[test]
    fn uncompressed_header_of_full_non_self_contained_frame() {
        let env = envelope(1, &vec![b'b'; MAX_PAYLOAD + 1]);
        let mut out = Vec::new();
        FrameEncoder::new(false).encode_large(&env, &mut out).unwrap();
        assert_eq!(header_bits(&out[..6]), format!("{}0000000", "1".repeat(17)));
    }

    #[test]
    fn lz4_header_layout() {
        let env = envelope(0, &[b'b'; 41]);
        let mut out = Vec::new();
        FrameEncoder::new(true).encode_self_contained(&env, &mut out).unwrap();
        let compressed_len = out.len() - 12;
        assert!(compressed_len < 50);
        assert_eq!(header_bits(&out[..8]), format!("{compressed_len:017b}{:017b}100000", 50));
        assert_eq!(u32::from_le_bytes([out[5], out[6], out[7], 0]), crc24(&out[..5]));
    }

    #[test]
    fn tiny_payload_is_stored_uncompressed_in_lz4_frame() {
        let env = envelope(0, b"b");
        let mut out = Vec::new();
        FrameEncoder::new(true).encode_self_contained(&env, &mut out).unwrap();
        assert_eq!(out.len(), 8 + 10 + 4);
        assert_eq!(header_bits(&out[..8]), format!("{:017b}{}100000", 10, "0".repeat(17)));
        assert_eq!(&out[8..18], &env[..]);
    }

    #[test]
    fn self_contained_packing_splits_only_between_envelopes() {
        // Three envelopes of 60000 bytes: two fit one frame (120000), the third starts another.
        let envs: Vec<Vec<u8>> = (0..3).map(|i| envelope(i, &vec![i as u8; 60000 - 9])).collect();
        let all = envs.concat();
        let mut out = Vec::new();
        FrameEncoder::new(false).encode_self_contained(&all, &mut out).unwrap();
        let mut input = &out[..];
        let mut dec = FrameDecoder::new(false);
        let first = dec.next_frame(&mut input).unwrap().unwrap();
        assert!(first.self_contained);
        assert_eq!(first.payload, &all[..120000]);
        let second = dec.next_frame(&mut input).unwrap().unwrap();
        assert_eq!(second.payload, &all[120000..]);
        assert!(input.is_empty());
    }

    #[test]
    fn encoder_rejects_torn_envelopes() {
        let env = envelope(0, b"hello");
        let mut out = Vec::new();
        let mut enc = FrameEncoder::new(false);
        let err = enc.encode_self_contained(&env[..env.len() - 1], &mut out).unwrap_err();
        assert_eq!(err.field, "envelope length");
        assert_eq!(err.side, crate::error::Side::Local);
        assert_eq!(enc.encode_self_contained(&env[..4], &mut out).unwrap_err().field, "envelope header");
        let mut two = env.clone();
        two.extend_from_slice(&env);
        assert_eq!(enc.encode_large(&two, &mut out).unwrap_err().field, "envelope length");
        assert!(out.is_empty());
    }

    #[test]
    fn corrupted_header_names_crc24_with_offset() {
        let env = envelope(0, b"hello");
        for compression in [false, true] {
            let mut out = Vec::new();
            FrameEncoder::new(compression).encode_self_contained(&env, &mut out).unwrap();
            // Put a good frame first so the offset is absolute in the stream.
            let mut stream = out.clone();
            stream.extend_from_slice(&out);
            let second = out.len();
            stream[second] ^= 0x01;
            let mut dec = FrameDecoder::new(compression);
            let mut envelopes = Vec::new();
            let err = dec.decode_all(&stream, &mut envelopes).unwrap_err();
            assert_eq!(err.field, "v5 frame header crc24");
            assert_eq!(err.side, crate::error::Side::Remote);
            assert_eq!(err.offset, second + if compression { 5 } else { 3 });
            assert_eq!(envelopes, env, "the good frame before it was delivered");
            // The decoder stays failed.
            assert_eq!(dec.decode_all(&out, &mut envelopes).unwrap_err(), err);
        }
    }

    #[test]
    fn corrupted_payload_and_trailer_name_crc32() {
        let env = envelope(0, &pseudo_random(500, 9));
        for compression in [false, true] {
            let mut out = Vec::new();
            FrameEncoder::new(compression).encode_self_contained(&env, &mut out).unwrap();
            let header_len = if compression { 8 } else { 6 };
            for at in [header_len, out.len() - 5, out.len() - 1] {
                let mut bad = out.clone();
                bad[at] ^= 0x80;
                let mut dec = FrameDecoder::new(compression);
                let err = dec.decode_all(&bad, &mut Vec::new()).unwrap_err();
                assert_eq!(err.field, "v5 frame payload crc32", "byte {at}");
                assert_eq!(err.offset, out.len() - 4);
            }
        }
    }

    #[test]
    fn lz4_block_not_matching_declared_length() {
        // A valid LZ4 block for 13 bytes, framed with a header claiming 14.
        let plain = b"abcdefghijklm";
        let mut block = vec![0u8; 64];
        let n = lz4_flex::block::compress_into(plain, &mut block).unwrap();
        block.truncate(n);
        let frame = |declared: u64, block: &[u8]| {
            let word = (block.len() as u64 | declared << 17 | 1 << 34).to_le_bytes();
            let mut f = word[..5].to_vec();
            f.extend_from_slice(&crc24(&word[..5]).to_le_bytes()[..3]);
            f.extend_from_slice(block);
            f.extend_from_slice(&crc32_cassandra(block).to_le_bytes());
            f
        };
        let mut dec = FrameDecoder::new(true);
        let err = dec.next_frame(&mut &frame(14, &block)[..]).unwrap_err();
        assert_eq!(err.field, "v5 frame uncompressed length");
        let mut dec = FrameDecoder::new(true);
        let err = dec.next_frame(&mut &frame(12, &block)[..]).unwrap_err();
        assert_eq!(err.field, "v5 frame compressed payload");
        let mut dec = FrameDecoder::new(true);
        let got = dec.next_frame(&mut &frame(13, &block)[..]).unwrap().unwrap();
        assert_eq!(got.payload, plain);
        // Garbage that passes the CRC still cannot panic the block decoder.
        let mut dec = FrameDecoder::new(true);
        let garbage = [0xFFu8; 40];
        let err = dec.next_frame(&mut &frame(1000, &garbage)[..]).unwrap_err();
        assert_eq!(err.field, "v5 frame compressed payload");
    }

    #[test]
    fn self_contained_payload_must_hold_whole_envelopes() {
        let env = envelope(0, b"hello");
        let mut frame = Vec::new();
        // Frame a torn envelope by hand (the encoder refuses to).
        let payload = &env[..env.len() - 1];
        let word = (payload.len() as u32 | 1 << 17).to_le_bytes();
        frame.extend_from_slice(&word[..3]);
        frame.extend_from_slice(&crc24(&word[..3]).to_le_bytes()[..3]);
        frame.extend_from_slice(payload);
        frame.extend_from_slice(&crc32_cassandra(payload).to_le_bytes());
        let mut dec = FrameDecoder::new(false);
        let mut envelopes = Vec::new();
        let err = dec.decode_all(&frame, &mut envelopes).unwrap_err();
        assert_eq!(err.field, "envelope length");
        assert_eq!(err.offset, 6 + 5);
        assert!(envelopes.is_empty());
    }

    #[test]
    fn large_envelope_over_cap_is_refused_before_buffering_it() {
        let env = envelope(0, &vec![1u8; 300_000]);
        let mut out = Vec::new();
        FrameEncoder::new(false).encode_large(&env, &mut out).unwrap();
        let mut dec = FrameDecoder::new(false).with_max_envelope_len(200_000);
        let err = dec.decode_all(&out, &mut Vec::new()).unwrap_err();
        assert_eq!(err.field, "envelope length");
        assert!(dec.pending_len() <= MAX_PAYLOAD + 12 + MAX_PAYLOAD);
    }

    #[test]
    fn non_self_contained_frames_may_not_overrun_their_envelope() {
        let env = envelope(0, &vec![1u8; MAX_PAYLOAD]); // two frames
        let mut out = Vec::new();
        let mut enc = FrameEncoder::new(false);
        enc.encode_large(&env, &mut out).unwrap();
        // A third non-self-contained frame carrying an extra byte after the envelope ends... is
        // the start of a new large envelope, which is fine; but one frame that carries both the
        // end of this envelope and a byte more is not.
        let tail_start = MAX_PAYLOAD;
        let mut tail = env[tail_start..].to_vec();
        tail.push(0x05);
        let mut stream = out[..6 + MAX_PAYLOAD + 4].to_vec();
        enc.write_frame(&tail, false, &mut stream);
        let mut dec = FrameDecoder::new(false);
        let err = dec.decode_all(&stream, &mut Vec::new()).unwrap_err();
        assert_eq!(err.field, "v5 frame payload");
    }

    #[test]
    fn self_contained_frames_may_interleave_with_a_large_envelope() {
        // Cassandra's decoder (AbstractMessageHandler.processIntactFrame) accepts this.
        let large = envelope(1, &pseudo_random(200_000, 5));
        let small = envelope(2, b"small");
        let mut enc = FrameEncoder::new(false);
        let mut frames = Vec::new();
        enc.encode_large(&large, &mut frames).unwrap();
        let first_len = 6 + MAX_PAYLOAD + 4;
        let mut stream = frames[..first_len].to_vec();
        enc.encode_self_contained(&small, &mut stream).unwrap();
        stream.extend_from_slice(&frames[first_len..]);
        let mut envelopes = Vec::new();
        let mut dec = FrameDecoder::new(false);
        assert_eq!(dec.decode_all(&stream, &mut envelopes).unwrap(), small.len() + large.len());
        assert_eq!(&envelopes[..small.len()], &small[..]);
        assert_eq!(&envelopes[small.len()..], &large[..]);
        assert_eq!(dec.pending_len(), 0);
    }

    #[test]
    fn large_envelope_header_split_across_frames() {
        // A peer may cut a large envelope anywhere, even inside its 9-byte header.
        let env = envelope(3, &pseudo_random(150_000, 11));
        let mut enc = FrameEncoder::new(false);
        let mut stream = Vec::new();
        for chunk in [&env[..4], &env[4..100_000], &env[100_000..]] {
            enc.write_frame(chunk, false, &mut stream);
        }
        let mut dec = FrameDecoder::new(false);
        let mut envelopes = Vec::new();
        let mut input = &stream[..];
        assert_eq!(dec.decode(&mut input, &mut envelopes).unwrap(), Some(0));
        assert_eq!(dec.decode(&mut input, &mut envelopes).unwrap(), Some(0));
        assert_eq!(dec.decode(&mut input, &mut envelopes).unwrap(), Some(env.len()));
        assert_eq!(envelopes, env);
    }

    #[test]
    fn buffers_are_reused_in_steady_state() {
        let env = envelope(0, &pseudo_random(MAX_PAYLOAD - 9, 1));
        let mut enc = FrameEncoder::new(true);
        let mut dec = FrameDecoder::new(true);
        let mut wire = Vec::new();
        let mut envelopes = Vec::new();
        enc.encode_self_contained(&env, &mut wire).unwrap();
        dec.decode_all(&wire[..100], &mut envelopes).unwrap();
        dec.decode_all(&wire[100..], &mut envelopes).unwrap();
        let capacities =
            |enc: &FrameEncoder, dec: &FrameDecoder| (enc.scratch.as_ptr(), dec.payload.as_ptr(), dec.partial.as_ptr());
        let before = capacities(&enc, &dec);
        for _ in 0..3 {
            wire.clear();
            envelopes.clear();
            enc.encode_self_contained(&env, &mut wire).unwrap();
            dec.decode_all(&wire[..100], &mut envelopes).unwrap();
            dec.decode_all(&wire[100..], &mut envelopes).unwrap();
            assert_eq!(envelopes, env);
        }
        assert_eq!(capacities(&enc, &dec), before);
    }
}
