//! The v4 frame (and v5 envelope) header: 9 bytes, big-endian.

use crate::error::ProtocolError;

pub const HEADER_LEN: usize = 9;

pub mod flags {
    pub const COMPRESSION: u8 = 0x01;
    pub const TRACING: u8 = 0x02;
    pub const CUSTOM_PAYLOAD: u8 = 0x04;
    pub const WARNING: u8 = 0x08;
    pub const BETA: u8 = 0x10;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Opcode {
    Error = 0x00,
    Startup = 0x01,
    Ready = 0x02,
    Authenticate = 0x03,
    Options = 0x05,
    Supported = 0x06,
    Query = 0x07,
    Result = 0x08,
    Prepare = 0x09,
    Execute = 0x0A,
    Register = 0x0B,
    Event = 0x0C,
    Batch = 0x0D,
    AuthChallenge = 0x0E,
    AuthResponse = 0x0F,
    AuthSuccess = 0x10,
}

impl Opcode {
    pub fn from_u8(v: u8) -> Option<Self> {
        use Opcode::*;
        Some(match v {
            0x00 => Error,
            0x01 => Startup,
            0x02 => Ready,
            0x03 => Authenticate,
            0x05 => Options,
            0x06 => Supported,
            0x07 => Query,
            0x08 => Result,
            0x09 => Prepare,
            0x0A => Execute,
            0x0B => Register,
            0x0C => Event,
            0x0D => Batch,
            0x0E => AuthChallenge,
            0x0F => AuthResponse,
            0x10 => AuthSuccess,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameHeader {
    /// Protocol version without the direction bit.
    pub version: u8,
    pub is_response: bool,
    pub flags: u8,
    pub stream: i16,
    pub opcode: Opcode,
    pub body_len: u32,
}

impl FrameHeader {
    /// Decodes a response header. `None` when fewer than 9 bytes are buffered.
    /// `max_body` caps the declared length before anything is allocated for it.
    pub fn decode(buf: &[u8], max_body: u32) -> Result<Option<Self>, ProtocolError> {
        if buf.len() < HEADER_LEN {
            return Ok(None);
        }
        let version_byte = buf[0];
        let version = version_byte & 0x7F;
        if !(3..=6).contains(&version) {
            return Err(ProtocolError::remote(
                "frame header version",
                0,
                format!("unsupported protocol version byte 0x{version_byte:02x}"),
            ));
        }
        let opcode = Opcode::from_u8(buf[4]).ok_or_else(|| {
            ProtocolError::remote("frame header opcode", 4, format!("unknown opcode 0x{:02x}", buf[4]))
        })?;
        let body_len = u32::from_be_bytes([buf[5], buf[6], buf[7], buf[8]]);
        if body_len > max_body {
            return Err(ProtocolError::remote(
                "frame header length",
                5,
                format!("body of {body_len} bytes exceeds the cap of {max_body}"),
            ));
        }
        Ok(Some(Self {
            version,
            is_response: version_byte & 0x80 != 0,
            flags: buf[1],
            stream: i16::from_be_bytes([buf[2], buf[3]]),
            opcode,
            body_len,
        }))
    }

    /// Appends a request header; the length is patched by [`finish_frame`].
    pub fn begin_request(out: &mut Vec<u8>, version: u8, flags: u8, stream: i16, opcode: Opcode) -> usize {
        let start = out.len();
        out.push(version & 0x7F);
        out.push(flags);
        out.extend_from_slice(&stream.to_be_bytes());
        out.push(opcode as u8);
        out.extend_from_slice(&[0, 0, 0, 0]);
        start
    }
}

/// Patches the body length of a frame begun at `start`.
pub fn finish_frame(out: &mut [u8], start: usize) {
    let body_len = (out.len() - start - HEADER_LEN) as u32;
    out[start + 5..start + 9].copy_from_slice(&body_len.to_be_bytes());
}
