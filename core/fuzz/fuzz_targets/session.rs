//! A whole `Session`, handshake included, fed arbitrary server bytes on every connection it
//! opens (the control connection too), with time passing and requests coming and going.
//!
//! Input: a config byte (bit 0: v5; bits 1-2: none, LZ4, Snappy on v4 only, none; bit 3:
//! credentials; bit 4: two connections per node), then records `[op][len: u16 LE][payload]`:
//! - op & 7 = 0..=2: the payload arrives on connection `(op >> 4) % open`; with bit 3 set it
//!   is first wrapped as the server would send it once the handshake is done (each v4 frame's
//!   body compressed, or v5 framing with valid CRCs), so the fuzzer gets past the wire;
//! - 3: that connection reaches end of stream; 4: `len` × 10 ms pass (no payload);
//! - 5: a request (QUERY of the payload, PREPARE, or EXECUTE of it as an id), 6: a connect
//!   attempt fails (the next one), 7: the newest request is cancelled.
//! Invariants: no panic, on a stack the size of the WASM build's; no response body larger
//! than the frame cap; the session settles when time runs on.
#![no_main]

use cqlwire_core::compression::Compression;
use cqlwire_core::connection::{Config, Credentials, Request};
use cqlwire_core::message::QueryOptions;
use cqlwire_core::session::{Command, ConnId, RequestSpec, Session, SessionConfig, SessionEvent};
use cqlwire_core::v5::{FrameEncoder, MAX_PAYLOAD};
use cqlwire_core_fuzz::on_wasm_stack;
use libfuzzer_sys::fuzz_target;

const MAX_FRAME: u32 = 2 << 20;

/// `SESSION_FUZZ_TRACE=1` prints every session event (to check that seeds get as far as
/// they should: Ready, then responses).
static TRACE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
const MS: u64 = 1_000;

struct Harness {
    session: Session,
    version: u8,
    compression: Compression,
    now: u64,
    /// Connections the harness connected, in the order it did.
    open: Vec<ConnId>,
    /// The next connect attempt fails.
    refuse_next: bool,
    requests: Vec<u32>,
    sink: Vec<u8>,
}

impl Harness {
    fn settle(&mut self) {
        while let Some(command) = self.session.poll_command() {
            match command {
                Command::Connect { conn, .. } if std::mem::take(&mut self.refuse_next) => {
                    self.session.handle_connect_failed(self.now, conn, "refused");
                }
                Command::Connect { conn, .. } => {
                    self.session.handle_connected(self.now, conn);
                    self.open.push(conn);
                }
                Command::Close { conn } => self.open.retain(|c| *c != conn),
            }
        }
        while self.session.poll_transmit(&mut self.sink).is_some() {
            self.sink.clear();
        }
        while let Some(event) = self.session.poll_event() {
            if *TRACE.get_or_init(|| std::env::var_os("SESSION_FUZZ_TRACE").is_some()) {
                eprintln!("{event:?}");
            }
            if let SessionEvent::Response { body, .. } = event {
                assert!(body.len() <= MAX_FRAME as usize, "a body of {} bytes", body.len());
            }
        }
    }

    /// The payload as the server sends it after the handshake.
    fn wrap(&self, payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        if self.version >= 5 {
            let mut encoder = FrameEncoder::new(self.compression == Compression::Lz4);
            for chunk in payload.chunks(MAX_PAYLOAD) {
                let _ = encoder.encode_frame(chunk, true, &mut out);
            }
            return out;
        }
        // v4: compress the body of each whole frame; a trailing partial frame goes as is.
        let mut at = 0;
        while let Some(header) = payload.get(at..at + 9) {
            let len = u32::from_be_bytes([header[5], header[6], header[7], header[8]]) as usize;
            let Some(body) = payload.get(at + 9..(at + 9).saturating_add(len)) else { break };
            let start = out.len();
            out.extend_from_slice(header);
            if self.compression.compress(body, &mut out).is_ok() && self.compression != Compression::None {
                out[start + 1] |= 0x01;
                let compressed = (out.len() - start - 9) as u32;
                out[start + 5..start + 9].copy_from_slice(&compressed.to_be_bytes());
            }
            at += 9 + len;
        }
        out.extend_from_slice(&payload[at.min(payload.len())..]);
        out
    }

    fn request(&mut self, op: u8, payload: &[u8]) {
        let cql = std::str::from_utf8(payload).unwrap_or("SELECT * FROM ks.t");
        let request = match op >> 4 & 3 {
            0 => Request::Query { cql, values: &[], options: QueryOptions::default() },
            1 => Request::Prepare { cql, keyspace: None },
            _ => Request::Execute { id: payload, result_metadata_id: None, values: &[], options: QueryOptions::default() },
        };
        let spec = RequestSpec { request, idempotent: op & 0x40 != 0, token: None, routing_key: None, keyspace: None, timeout_us: None, prepared: None };
        if let Ok(id) = self.session.start_request(self.now, spec) {
            self.requests.push(id);
        }
    }

    fn advance(&mut self, by: u64) {
        let target = self.now.saturating_add(by);
        for _ in 0..10_000 {
            match self.session.poll_timeout() {
                Some(t) if t <= target => {
                    self.now = self.now.max(t);
                    self.session.handle_timeout(self.now);
                    self.settle();
                }
                _ => break,
            }
        }
        self.now = target;
    }
}

fn run(data: &[u8]) {
    let Some((&config, mut script)) = data.split_first() else { return };
    let version = if config & 1 != 0 { 5 } else { 4 };
    let compression = match (config >> 1 & 3, version) {
        (1, _) | (2, 5) => Compression::Lz4,
        (2, _) => Compression::Snappy,
        _ => Compression::None,
    };
    let credentials = (config & 8 != 0).then(|| Credentials { username: "u".into(), password: "p".into() });
    let connection = Config {
        protocol_version: version,
        compression,
        credentials,
        keyspace: (config & 0x20 != 0).then(|| "ks".to_owned()),
        max_frame_bytes: MAX_FRAME,
        ..Config::default()
    };
    let session_config = SessionConfig {
        connection,
        connections_per_node: if config & 0x10 != 0 { 2 } else { 1 },
        seed: 7,
        ..SessionConfig::default()
    };
    let mut h = Harness {
        session: Session::new(session_config),
        version,
        compression,
        now: 0,
        open: Vec::new(),
        refuse_next: false,
        requests: Vec::new(),
        sink: Vec::new(),
    };
    h.session.start(h.now, &["10.0.0.1:9042"]);
    h.settle();
    while let Some((&op, rest)) = script.split_first() {
        let Some((len, rest)) = rest.split_first_chunk::<2>() else { break };
        let len = usize::from(u16::from_le_bytes(*len));
        let conn = (!h.open.is_empty()).then(|| h.open[usize::from(op >> 4) % h.open.len()]);
        script = rest;
        match op & 7 {
            3 => {
                if let Some(conn) = conn {
                    h.session.handle_eof(h.now, conn);
                }
            }
            4 => h.advance(len as u64 * 10 * MS),
            6 => h.refuse_next = true,
            7 => {
                if let Some(id) = h.requests.pop() {
                    h.session.cancel(h.now, id);
                }
            }
            kind => {
                let (payload, rest) = script.split_at(len.min(script.len()));
                script = rest;
                if kind == 5 {
                    h.request(op, payload);
                } else if let Some(conn) = conn {
                    let bytes = if op & 8 != 0 { h.wrap(payload) } else { payload.to_vec() };
                    h.session.handle_bytes(h.now, conn, &bytes);
                }
            }
        }
        h.settle();
    }
    // Every deadline fires: handshakes, requests, heartbeats, reconnections, agreement.
    for _ in 0..8 {
        h.advance(60_000 * MS);
    }
}

fuzz_target!(|data: &[u8]| on_wasm_stack(data, run));
