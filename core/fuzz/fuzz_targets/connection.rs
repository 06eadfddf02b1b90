//! A ready connection (v4, v5 or v4 with LZ4) fed arbitrary bytes in arbitrary chunks, with
//! requests in flight. Invariants: no panic, and hostile bytes either produce events or close
//! the connection with a protocol error; memory stays bounded by the frame cap.
#![no_main]

use cqlwire_core::compression::Compression;
use cqlwire_core::connection::{Config, Connection, Event, Request};
use cqlwire_core::message::QueryOptions;
use cqlwire_core_fuzz::on_wasm_stack;
use libfuzzer_sys::fuzz_target;

fn ready(version: u8, compression: Compression) -> Connection {
    let mut c = Connection::new(Config { protocol_version: version, compression, max_frame_bytes: 1 << 20, ..Config::default() });
    c.start(0);
    let mut sink = Vec::new();
    c.poll_transmit(&mut sink);
    let v = 0x80 | version;
    c.handle_bytes(1, &[v, 0, 0, 0, 0x06, 0, 0, 0, 2, 0, 0]);
    c.handle_bytes(2, &[v, 0, 0, 0, 0x02, 0, 0, 0, 0]);
    while c.poll_event().is_some() {}
    c
}

fn run(data: &[u8]) {
    let Some((&control, rest)) = data.split_first() else { return };
    let (version, compression) = match control % 3 {
        0 => (4, Compression::None),
        1 => (5, Compression::None),
        _ => (4, Compression::Lz4),
    };
    let mut c = ready(version, compression);
    for _ in 0..(control >> 4) {
        let _ = c.start_request(3, Request::Query { cql: "SELECT 1", values: &[], options: QueryOptions::default() }, None);
    }
    let mut sink = Vec::new();
    c.poll_transmit(&mut sink);
    let chunk = usize::from(control >> 2 & 3) * 7 + 1;
    for piece in rest.chunks(chunk) {
        c.handle_bytes(4, piece);
        while let Some(e) = c.poll_event() {
            if let Event::Response { body, .. } = e {
                assert!(body.len() <= 1 << 20);
            }
        }
    }
    c.handle_timeout(u64::MAX / 2);
    while c.poll_event().is_some() {}
}

fuzz_target!(|data: &[u8]| on_wasm_stack(data, run));
