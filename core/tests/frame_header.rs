//! The 9-byte frame header (core/src/frame.rs) at each of its edges: the length that makes a
//! header, every opcode, the version range and direction bit, a body exactly at the size cap,
//! and the bytes a request header is written as. Written to kill the mutants cargo-mutants
//! found surviving in frame.rs (see core/mutants/README.md).

use cqlwire_core::error::{ProtocolError, Side};
use cqlwire_core::frame::{finish_frame, FrameHeader, Opcode, HEADER_LEN};

const ALL_OPCODES: [(u8, Opcode); 16] = [
    (0x00, Opcode::Error),
    (0x01, Opcode::Startup),
    (0x02, Opcode::Ready),
    (0x03, Opcode::Authenticate),
    (0x05, Opcode::Options),
    (0x06, Opcode::Supported),
    (0x07, Opcode::Query),
    (0x08, Opcode::Result),
    (0x09, Opcode::Prepare),
    (0x0A, Opcode::Execute),
    (0x0B, Opcode::Register),
    (0x0C, Opcode::Event),
    (0x0D, Opcode::Batch),
    (0x0E, Opcode::AuthChallenge),
    (0x0F, Opcode::AuthResponse),
    (0x10, Opcode::AuthSuccess),
];

fn header(version: u8, flags: u8, stream: [u8; 2], opcode: u8, len: u32) -> Vec<u8> {
    let mut h = vec![version, flags, stream[0], stream[1], opcode];
    h.extend_from_slice(&len.to_be_bytes());
    h
}

fn refused(bytes: &[u8], max_body: u32) -> ProtocolError {
    FrameHeader::decode(bytes, max_body).expect_err("the header must be refused")
}

#[test]
fn fewer_than_nine_bytes_are_not_a_header_yet_and_nine_are() {
    let full = header(0x84, 0, [0, 1], 0x02, 0);
    for len in 0..HEADER_LEN {
        assert_eq!(FrameHeader::decode(&full[..len], 0), Ok(None), "{len} bytes");
    }
    assert!(FrameHeader::decode(&full, 0).unwrap().is_some());
}

#[test]
fn every_field_is_read_from_its_bytes() {
    let got = FrameHeader::decode(&header(0x85, 0xAB, [0xFF, 0xFE], 0x08, 0x0102_0304), u32::MAX).unwrap().unwrap();
    let want = FrameHeader {
        version: 5,
        is_response: true,
        flags: 0xAB,
        stream: -2,
        opcode: Opcode::Result,
        body_len: 0x0102_0304,
    };
    assert_eq!(got, want);
}

#[test]
fn every_opcode_maps_both_ways_and_nothing_else_is_an_opcode() {
    for (byte, opcode) in ALL_OPCODES {
        assert_eq!(Opcode::from_u8(byte), Some(opcode), "0x{byte:02x}");
        assert_eq!(opcode as u8, byte);
        let h = FrameHeader::decode(&header(0x84, 0, [0, 0], byte, 0), 0).unwrap().unwrap();
        assert_eq!(h.opcode, opcode);
    }
    for byte in (0x00..=0xFF).filter(|b| !ALL_OPCODES.iter().any(|(o, _)| o == b)) {
        assert_eq!(Opcode::from_u8(byte), None, "0x{byte:02x}");
        let err = refused(&header(0x84, 0, [0, 0], byte, 0), 0);
        let want = ProtocolError::remote("frame header opcode", 4, format!("unknown opcode 0x{byte:02x}"));
        assert_eq!(err, want);
    }
}

#[test]
fn versions_three_to_six_in_either_direction_and_no_others() {
    for version in 3..=6u8 {
        for (byte, is_response) in [(version | 0x80, true), (version, false)] {
            let h = FrameHeader::decode(&header(byte, 0, [0, 0], 0x02, 0), 0).unwrap().unwrap();
            assert_eq!((h.version, h.is_response), (version, is_response), "0x{byte:02x}");
        }
    }
    for byte in [0x00, 0x01, 0x02, 0x07, 0x7F, 0x80, 0x82, 0x87, 0xFF] {
        let err = refused(&header(byte, 0, [0, 0], 0x02, 0), 0);
        let want =
            ProtocolError::remote("frame header version", 0, format!("unsupported protocol version byte 0x{byte:02x}"));
        assert_eq!(err, want);
        assert_eq!(err.side, Side::Remote);
    }
}

#[test]
fn a_body_exactly_at_the_cap_is_accepted_and_one_byte_more_is_refused_before_allocating() {
    for cap in [0, 1, 256 << 20, u32::MAX - 1] {
        let at = FrameHeader::decode(&header(0x84, 0, [0, 0], 0x08, cap), cap).unwrap().unwrap();
        assert_eq!(at.body_len, cap);
        let err = refused(&header(0x84, 0, [0, 0], 0x08, cap + 1), cap);
        let want = ProtocolError::remote(
            "frame header length",
            5,
            format!("body of {} bytes exceeds the cap of {cap}", cap + 1),
        );
        assert_eq!(err, want);
    }
}

#[test]
fn a_request_header_is_written_after_what_the_buffer_holds_and_its_length_patched() {
    let mut out = vec![0xEE; 3];
    let start = FrameHeader::begin_request(&mut out, 0x84, 0x05, -3, Opcode::Query);
    assert_eq!(start, 3);
    assert_eq!(out, [0xEE, 0xEE, 0xEE, 0x04, 0x05, 0xFF, 0xFD, 0x07, 0, 0, 0, 0]);
    out.extend_from_slice(&[1, 2, 3, 4, 5]);
    finish_frame(&mut out, start);
    assert_eq!(out, [0xEE, 0xEE, 0xEE, 0x04, 0x05, 0xFF, 0xFD, 0x07, 0, 0, 0, 5, 1, 2, 3, 4, 5]);
    // Read back, it is a request header of that length.
    let h = FrameHeader::decode(&out[start..], 5).unwrap().unwrap();
    let want =
        FrameHeader { version: 4, is_response: false, flags: 0x05, stream: -3, opcode: Opcode::Query, body_len: 5 };
    assert_eq!(h, want);
}

#[test]
fn an_empty_body_patches_a_zero_length() {
    let mut out = Vec::new();
    let start = FrameHeader::begin_request(&mut out, 5, 0, 0, Opcode::Options);
    out[start + 5..start + 9].copy_from_slice(&[9, 9, 9, 9]);
    finish_frame(&mut out, start);
    assert_eq!(out, [0x05, 0, 0, 0, 0x05, 0, 0, 0, 0]);
}
