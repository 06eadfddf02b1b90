//! `session`: the whole session-level path of a prepared INSERT, as the host drives it at
//! many requests in flight: `Session::start_request` for a burst of requests, `poll_transmit`,
//! the burst's Void answers fed to `handle_bytes` in one chunk, and `poll_event` until drained.
//! The node is a scripted responder in this process (handshake, the control connection's
//! system tables, PREPARE), so the count is deterministic and needs no server.
//!
//! `session1`: one request at a time, each asked of the core as the wasm facade asks at 1 in
//! flight (`round_trip`): what is pending after the start (`executeStaged`), the transmit
//! (`pollTransmit`), the answer fed with what is pending after it (`handleStaged`), the
//! events with their sizes (`pollEvents`), then the release of the drained bodies. The work
//! of a turn that a burst of 64 shares is paid here by every request.

use cqlwire_core::connection::Request;
use cqlwire_core::frame::Opcode;
use cqlwire_core::message::QueryOptions;
use cqlwire_core::session::{Command, RequestSpec, Session, SessionConfig, SessionEvent};

use crate::insert_values;

const PREPARED_ID: &[u8] = b"hotpath-session!";
const CONTACT: &str = "127.0.0.1:9042";
const INSERT: &str = "INSERT INTO bench.kv (k, v) VALUES (?, ?)";
/// Requests started per turn before the host flushes (a burst, as at many in flight); the
/// last burst of a run may be shorter.
pub const BURST: u64 = 64;

fn frame(out: &mut Vec<u8>, stream: [u8; 2], opcode: Opcode, body: &[u8]) {
    out.extend_from_slice(&[0x84, 0, stream[0], stream[1], opcode as u8]);
    out.extend_from_slice(&(body.len() as u32).to_be_bytes());
    out.extend_from_slice(body);
}

fn string(b: &mut Vec<u8>, s: &str) {
    b.extend_from_slice(&(s.len() as u16).to_be_bytes());
    b.extend_from_slice(s.as_bytes());
}

fn bytes(b: &mut Vec<u8>, v: &[u8]) {
    b.extend_from_slice(&(v.len() as i32).to_be_bytes());
    b.extend_from_slice(v);
}

fn text_collection(items: &[&str]) -> Vec<u8> {
    let mut b = (items.len() as i32).to_be_bytes().to_vec();
    for i in items {
        bytes(&mut b, i.as_bytes());
    }
    b
}

/// A Rows body with a global table spec; `columns` are (name, raw `[option]` bytes).
fn rows(table: &str, columns: &[(&str, &[u8])], data: &[Vec<Vec<u8>>]) -> Vec<u8> {
    let mut b = 2i32.to_be_bytes().to_vec();
    b.extend_from_slice(&1i32.to_be_bytes());
    b.extend_from_slice(&(columns.len() as i32).to_be_bytes());
    string(&mut b, "system");
    string(&mut b, table);
    for (name, ty) in columns {
        string(&mut b, name);
        b.extend_from_slice(ty);
    }
    b.extend_from_slice(&(data.len() as i32).to_be_bytes());
    for row in data {
        for cell in row {
            bytes(&mut b, cell);
        }
    }
    b
}

const VARCHAR: &[u8] = &[0, 0x0D];
const SET_OF_VARCHAR: &[u8] = &[0, 0x22, 0, 0x0D];
const MAP_OF_VARCHAR: &[u8] = &[0, 0x21, 0, 0x0D, 0, 0x0D];

fn answer_query(cql: &str) -> Vec<u8> {
    if cql.contains("system.local") {
        let columns: [(&str, &[u8]); 5] = [
            ("data_center", VARCHAR),
            ("rack", VARCHAR),
            ("tokens", SET_OF_VARCHAR),
            ("host_id", &[0, 0x0C]),
            ("rpc_address", &[0, 0x10]),
        ];
        let row = vec![b"dc1".to_vec(), b"r1".to_vec(), text_collection(&["0"]), vec![7; 16], vec![127, 0, 0, 1]];
        rows("local", &columns, &[row])
    } else if cql.contains("system.peers") {
        rows("peers_v2", &[("peer", &[0, 0x10]), ("native_address", &[0, 0x10])], &[])
    } else if cql.contains("system_schema.keyspaces") {
        let replication = {
            let mut b = 2i32.to_be_bytes().to_vec();
            for s in ["class", "SimpleStrategy", "replication_factor", "1"] {
                bytes(&mut b, s.as_bytes());
            }
            b
        };
        rows(
            "keyspaces",
            &[("keyspace_name", VARCHAR), ("replication", MAP_OF_VARCHAR)],
            &[vec![b"bench".to_vec(), replication]],
        )
    } else {
        1i32.to_be_bytes().to_vec() // Void
    }
}

/// PREPARED for `INSERT INTO bench.kv (k, v)`: k bigint (the partition key), v blob.
fn prepared() -> Vec<u8> {
    let mut b = 4i32.to_be_bytes().to_vec();
    b.extend_from_slice(&(PREPARED_ID.len() as u16).to_be_bytes());
    b.extend_from_slice(PREPARED_ID);
    b.extend_from_slice(&1i32.to_be_bytes()); // global table spec
    b.extend_from_slice(&2i32.to_be_bytes()); // columns
    b.extend_from_slice(&1i32.to_be_bytes()); // partition key columns
    b.extend_from_slice(&0u16.to_be_bytes());
    string(&mut b, "bench");
    string(&mut b, "kv");
    string(&mut b, "k");
    b.extend_from_slice(&[0, 0x02]);
    string(&mut b, "v");
    b.extend_from_slice(&[0, 0x03]);
    b.extend_from_slice(&4i32.to_be_bytes()); // result metadata: none
    b.extend_from_slice(&0i32.to_be_bytes());
    b
}

/// Every frame in `sent`, answered into `out`.
fn respond(sent: &[u8], out: &mut Vec<u8>) {
    let void = 1i32.to_be_bytes();
    let mut at = 0;
    while at + 9 <= sent.len() {
        let stream = [sent[at + 2], sent[at + 3]];
        let opcode = Opcode::from_u8(sent[at + 4]);
        let len = u32::from_be_bytes([sent[at + 5], sent[at + 6], sent[at + 7], sent[at + 8]]) as usize;
        let body = &sent[at + 9..at + 9 + len];
        match opcode {
            Some(Opcode::Execute) => frame(out, stream, Opcode::Result, &void),
            Some(Opcode::Options) => frame(out, stream, Opcode::Supported, &[0, 0]),
            Some(Opcode::Startup | Opcode::Register) => frame(out, stream, Opcode::Ready, &[]),
            Some(Opcode::Query) => {
                let n = u32::from_be_bytes([body[0], body[1], body[2], body[3]]) as usize;
                let cql = std::str::from_utf8(&body[4..4 + n]).expect("utf-8 cql");
                frame(out, stream, Opcode::Result, &answer_query(cql))
            }
            Some(Opcode::Prepare) => frame(out, stream, Opcode::Result, &prepared()),
            other => panic!("unexpected opcode {other:?}"),
        }
        at += 9 + len;
    }
}

pub struct SessionBench {
    session: Session,
    now: u64,
    values: Vec<u8>,
    sent: Vec<u8>,
    answers: Vec<u8>,
    conn: u32,
    /// The statement's handle, as the wasm facade keeps it.
    handle: Option<u32>,
}

impl SessionBench {
    /// A ready session with the INSERT prepared.
    pub fn new() -> Self {
        let config = SessionConfig { seed: 1, ..SessionConfig::default() };
        let mut b = SessionBench {
            session: Session::new(config),
            now: 1_000_000,
            values: Vec::new(),
            sent: Vec::new(),
            answers: Vec::new(),
            conn: u32::MAX,
            handle: None,
        };
        b.session.start(b.now, &[CONTACT]);
        for _ in 0..32 {
            b.pump();
        }
        assert!(b.session.is_ready(), "the session did not become ready");
        let prepare = RequestSpec::prepare(INSERT, None);
        b.session.start_request(b.now, prepare).expect("prepare");
        for _ in 0..8 {
            b.pump();
        }
        b.handle = b.session.prepared_handle(PREPARED_ID);
        assert!(b.handle.is_some(), "the statement was not prepared");
        b
    }

    /// One turn of a host: commands, transmit, answers, events (not measured).
    fn pump(&mut self) {
        self.now += 10;
        while let Some(c) = self.session.poll_command() {
            if let Command::Connect { conn, .. } = c {
                self.session.handle_connected(self.now, conn);
            }
        }
        loop {
            self.sent.clear();
            let Some(conn) = self.session.poll_transmit(&mut self.sent) else { break };
            self.answers.clear();
            respond(&self.sent, &mut self.answers);
            self.session.handle_bytes(self.now, conn, &self.answers);
            self.conn = conn;
        }
        while let Some(e) = self.session.poll_event() {
            if let SessionEvent::Failed { id, error } = e {
                panic!("request {id} failed: {error:?}");
            }
        }
    }

    /// `n` requests with keys from `from` on, answered (only the session's work is measured).
    pub fn burst(&mut self, from: u64, n: u64) {
        self.now += 10;
        measured_session_start(self, from, n);
        self.answers.clear();
        respond(&self.sent, &mut self.answers);
        let answered = measured_session_answer(self);
        assert_eq!(answered, n as usize);
    }
}

impl SessionBench {
    /// One request started, sent, answered and drained, as at 1 in flight.
    pub fn round_trip(&mut self, k: u64) {
        self.now += 10;
        let pending = measured_session1_start(self, k);
        assert_eq!(pending & PENDING_TRANSMIT, PENDING_TRANSMIT);
        self.answers.clear();
        respond(&self.sent, &mut self.answers);
        self.now += 10;
        assert_eq!(measured_session1_answer(self), 1);
    }
}

/// The facade's `PENDING_*` bits (wasm/src/lib.rs).
const PENDING_COMMANDS: u32 = 1;
const PENDING_TRANSMIT: u32 = 2;
const PENDING_EVENTS: u32 = 4;
const PENDING_TIMEOUT: u32 = 8;

/// `WasmSession::pending_outputs` with no bulk load running and no timer armed yet.
fn pending_outputs(session: &Session) -> u32 {
    let mut bits = 0;
    if session.has_commands() {
        bits |= PENDING_COMMANDS;
    }
    if session.has_transmit() {
        bits |= PENDING_TRANSMIT;
    }
    if session.has_events() {
        bits |= PENDING_EVENTS;
    }
    if session.poll_timeout().is_some() {
        bits |= PENDING_TIMEOUT;
    }
    bits
}

/// The INSERT of `values`, as `executeStaged` hands it to the session.
fn execute_spec(values: &[u8], handle: Option<u32>) -> RequestSpec<'_> {
    let options = QueryOptions { consistency: Some(1), ..QueryOptions::default() };
    RequestSpec {
        request: Request::Execute { id: PREPARED_ID, result_metadata_id: None, values, options },
        idempotent: true,
        token: None,
        routing_key: None,
        keyspace: None,
        timeout_us: None,
        prepared: handle,
    }
}

/// `executeStaged` (the start and what is pending), then `pollTransmit` (until `None`).
#[inline(never)]
fn measured_session1_start(b: &mut SessionBench, k: u64) -> u32 {
    insert_values(k as i64, &mut b.values);
    b.session.start_request(b.now, execute_spec(&b.values, b.handle)).expect("start_request");
    let pending = pending_outputs(&b.session);
    b.sent.clear();
    while let Some(conn) = b.session.poll_transmit(&mut b.sent) {
        b.conn = conn;
    }
    pending
}

/// `handleStaged` (the answer and what is pending), then `pollEvents` and the release.
#[inline(never)]
fn measured_session1_answer(b: &mut SessionBench) -> usize {
    b.session.handle_bytes(b.now, b.conn, &b.answers);
    let pending = pending_outputs(&b.session);
    assert_eq!(pending & PENDING_EVENTS, PENDING_EVENTS);
    let (events, _) = b.session.pending_events();
    let mut answered = 0;
    while let Some(e) = b.session.poll_event() {
        if let SessionEvent::Response { body, .. } = e {
            answered += usize::from(body.len() == 4);
        }
    }
    b.session.release_drained();
    answered.min(events)
}

#[inline(never)]
fn measured_session_start(b: &mut SessionBench, from: u64, n: u64) {
    for k in from..from + n {
        insert_values(k as i64, &mut b.values);
        let options = QueryOptions { consistency: Some(1), ..QueryOptions::default() };
        let spec = RequestSpec {
            request: Request::Execute { id: PREPARED_ID, result_metadata_id: None, values: &b.values, options },
            idempotent: true,
            token: None,
            routing_key: None,
            keyspace: None,
            timeout_us: None,
            prepared: b.handle,
        };
        b.session.start_request(b.now, spec).expect("start_request");
    }
    b.sent.clear();
    b.conn = b.session.poll_transmit(&mut b.sent).expect("bytes to send");
}

#[inline(never)]
fn measured_session_answer(b: &mut SessionBench) -> usize {
    b.session.handle_bytes(b.now, b.conn, &b.answers);
    let mut answered = 0;
    while let Some(e) = b.session.poll_event() {
        if let SessionEvent::Response { body, .. } = e {
            answered += usize::from(body.len() == 4);
        }
    }
    answered
}
