//! The response frame vectors (tests/vectors/frames.json, made with the python driver by
//! tests/vectors/gen/frames.py) through the core: each frame's header; RESULT, ERROR and EVENT
//! frames through a ready connection (v4 plain, v5 in outer frames), whole, one byte at a
//! time and followed by the start of the next frame; SUPPORTED, READY, AUTHENTICATE,
//! AUTH_CHALLENGE and AUTH_SUCCESS during the handshake; and the RESULT bodies the core reads
//! itself (Rows, Prepared) field by field.

mod common;

use std::sync::{Arc, Mutex};

use cqlwire_core::connection::{
    Authenticator, AuthenticatorFactory, Config, Connection, Event, Request, State,
};
use cqlwire_core::frame::{FrameHeader, Opcode, HEADER_LEN};
use cqlwire_core::message::{decode_prepared, hex, QueryOptions};
use cqlwire_core::rows::Rows;
use cqlwire_core::types::{ColumnType, CqlValue};
use cqlwire_core::v5::FrameEncoder;
use serde_json::{json, Value as Json};

struct Vector {
    name: String,
    protocol: u8,
    opcode: String,
    bytes: Vec<u8>,
    expect: Json,
}

impl Vector {
    fn body(&self) -> &[u8] {
        &self.bytes[HEADER_LEN..]
    }
    /// The frame on another stream (the one the connection's request went out on).
    fn on_stream(&self, stream: i16) -> Vec<u8> {
        let mut b = self.bytes.clone();
        b[2..4].copy_from_slice(&stream.to_be_bytes());
        b
    }
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn vectors() -> Vec<Vector> {
    let text = common::vector_file("frames.json");
    let raw: Vec<Json> = serde_json::from_str(&text).unwrap();
    assert!(raw.len() > 90, "frames.json holds {} vectors", raw.len());
    raw.into_iter()
        .map(|v| Vector {
            name: v["name"].as_str().unwrap().to_owned(),
            protocol: v["protocol"].as_u64().unwrap() as u8,
            opcode: v["opcode"].as_str().unwrap().to_owned(),
            bytes: unhex(v["hex"].as_str().unwrap()),
            expect: v["expect"].clone(),
        })
        .collect()
}

fn of(opcodes: &[&str]) -> Vec<Vector> {
    let all: Vec<Vector> = vectors().into_iter().filter(|v| opcodes.contains(&v.opcode.as_str())).collect();
    assert!(!all.is_empty(), "no {opcodes:?} vectors");
    all
}

fn opcode_named(name: &str) -> Opcode {
    match name {
        "ERROR" => Opcode::Error,
        "READY" => Opcode::Ready,
        "AUTHENTICATE" => Opcode::Authenticate,
        "SUPPORTED" => Opcode::Supported,
        "RESULT" => Opcode::Result,
        "EVENT" => Opcode::Event,
        "AUTH_CHALLENGE" => Opcode::AuthChallenge,
        "AUTH_SUCCESS" => Opcode::AuthSuccess,
        other => panic!("unknown opcode {other}"),
    }
}

#[test]
fn every_frame_header_decodes_and_a_partial_header_waits() {
    for v in vectors() {
        let h = FrameHeader::decode(&v.bytes, 1 << 20).unwrap().unwrap();
        assert_eq!(
            (h.version, h.is_response, h.opcode, h.body_len as usize),
            (v.protocol, true, opcode_named(&v.opcode), v.body().len()),
            "{}",
            v.name
        );
        for cut in 0..HEADER_LEN {
            assert_eq!(FrameHeader::decode(&v.bytes[..cut], 1 << 20).unwrap(), None, "{} cut at {cut}", v.name);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// A connection on simulated time

fn frame(version: u8, stream: i16, opcode: u8, body: &[u8]) -> Vec<u8> {
    let mut f = vec![0x80 | version, 0];
    f.extend_from_slice(&stream.to_be_bytes());
    f.push(opcode);
    f.extend_from_slice(&(body.len() as u32).to_be_bytes());
    f.extend_from_slice(body);
    f
}

/// SUPPORTED with just CQL_VERSION.
fn supported(version: u8) -> Vec<u8> {
    let mut b = vec![0, 1, 0, 11];
    b.extend_from_slice(b"CQL_VERSION");
    b.extend_from_slice(&[0, 1, 0, 5]);
    b.extend_from_slice(b"3.4.7");
    frame(version, 0, 0x06, &b)
}

/// What goes on the wire for `envelopes` once the handshake is past READY: v5 wraps them in
/// one self-contained outer frame.
fn on_wire(version: u8, envelopes: &[u8]) -> Vec<u8> {
    if version < 5 {
        return envelopes.to_vec();
    }
    let mut out = Vec::new();
    FrameEncoder::new(false).encode_self_contained(envelopes, &mut out).unwrap();
    out
}

fn config(version: u8) -> Config {
    Config { protocol_version: version, heartbeat_interval_us: 0, ..Config::default() }
}

fn ready(version: u8) -> Connection {
    let mut c = Connection::new(config(version));
    c.start(0);
    c.poll_transmit(&mut Vec::new());
    c.handle_bytes(1, &supported(version));
    c.handle_bytes(2, &frame(version, 0, 0x02, &[]));
    assert!(matches!(c.poll_event(), Some(Event::Ready { .. })));
    assert_eq!(c.state(), State::Ready);
    c.poll_transmit(&mut Vec::new());
    c
}

/// Sends a query and returns the stream it went out on.
fn query(c: &mut Connection) -> (u32, i16) {
    let id = c
        .start_request(3, Request::Query { cql: "SELECT 1", values: &[], options: QueryOptions::default() }, None)
        .unwrap();
    let mut out = Vec::new();
    c.poll_transmit(&mut out);
    // v5 wraps the envelope in a 6-byte outer header (no compression).
    let at = if c.protocol_version() >= 5 { 6 } else { 0 };
    (id, i16::from_be_bytes([out[at + 2], out[at + 3]]))
}

/// An event as comparable JSON: a response's body as hex, a failure or server event as the
/// core serialises it.
fn event_json(e: Event<'_>) -> Json {
    match e {
        Event::Response { id, body, .. } => json!({ "response": id, "body": hex(body) }),
        Event::Failed { id, error } => json!({ "failed": id, "error": error }),
        Event::ServerEvent(ev) => json!({ "event": ev }),
        Event::Ready { .. } => json!("ready"),
        Event::Closed(r) => json!({ "closed": r }),
        Event::Auth(step) => json!({ "auth": format!("{step:?}") }),
    }
}

fn drain(c: &mut Connection) -> Vec<Json> {
    std::iter::from_fn(|| c.poll_event().map(event_json)).collect()
}

#[derive(Clone, Copy, Debug)]
enum Feed {
    Whole,
    ByteByByte,
    /// The frame, then the first bytes of the next one, then the rest of it.
    ThenNext,
}

/// Feeds `bytes` as `feed` says; every event seen, and for byte-by-byte the first byte after
/// which any event appeared.
fn feed(c: &mut Connection, bytes: &[u8], how: Feed, next: &[u8]) -> (Vec<Json>, Vec<Json>) {
    match how {
        Feed::Whole => {
            c.handle_bytes(10, bytes);
            (drain(c), Vec::new())
        }
        Feed::ByteByByte => {
            for (i, b) in bytes.iter().enumerate() {
                c.handle_bytes(10, std::slice::from_ref(b));
                if i + 1 < bytes.len() {
                    assert_eq!(drain(c), Vec::<Json>::new(), "an event before the frame's last byte ({i})");
                    assert_eq!(c.state(), State::Ready);
                }
            }
            (drain(c), Vec::new())
        }
        Feed::ThenNext => {
            let split = next.len().min(7);
            let mut first = bytes.to_vec();
            first.extend_from_slice(&next[..split]);
            c.handle_bytes(10, &first);
            let events = drain(c);
            c.handle_bytes(11, &next[split..]);
            (events, drain(c))
        }
    }
}

fn server_error_json(v: &Vector) -> Json {
    let mut e = v.expect.clone();
    e["kind"] = json!("server");
    e
}

#[test]
fn results_and_errors_arrive_whole_byte_by_byte_and_before_the_next_frame() {
    for v in of(&["RESULT", "ERROR"]) {
        for how in [Feed::Whole, Feed::ByteByByte, Feed::ThenNext] {
            let label = format!("{} ({how:?})", v.name);
            let mut c = ready(v.protocol);
            let (id, stream) = query(&mut c);
            let (id2, stream2) = query(&mut c);
            let next = on_wire(v.protocol, &frame(v.protocol, stream2, 0x08, &1i32.to_be_bytes()));
            let (events, after) = feed(&mut c, &on_wire(v.protocol, &v.on_stream(stream)), how, &next);
            let want = match v.opcode.as_str() {
                "RESULT" => json!({ "response": id, "body": hex(v.body()) }),
                _ => json!({ "failed": id, "error": server_error_json(&v) }),
            };
            assert_eq!(events, vec![want], "{label}");
            if let Feed::ThenNext = how {
                assert_eq!(after, vec![json!({ "response": id2, "body": "00000001" })], "{label}: the next frame");
            }
            assert_eq!((c.state(), c.in_flight()), (State::Ready, if matches!(how, Feed::ThenNext) { 0 } else { 1 }), "{label}");
        }
    }
}

#[test]
fn events_arrive_whole_byte_by_byte_and_before_the_next_frame() {
    for v in of(&["EVENT"]) {
        for how in [Feed::Whole, Feed::ByteByByte, Feed::ThenNext] {
            let label = format!("{} ({how:?})", v.name);
            let mut c = ready(v.protocol);
            let next = on_wire(v.protocol, &v.bytes);
            let (events, after) = feed(&mut c, &on_wire(v.protocol, &v.bytes), how, &next);
            assert_eq!(events, vec![json!({ "event": v.expect })], "{label}");
            if let Feed::ThenNext = how {
                assert_eq!(after, vec![json!({ "event": v.expect })], "{label}: the next frame");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The handshake

/// Records what the server's authentication messages gave the authenticator.
#[derive(Default)]
struct Seen {
    class: Option<String>,
    challenges: Vec<Option<Vec<u8>>>,
}

struct Recording(Arc<Mutex<Seen>>);

impl Authenticator for Recording {
    fn initial_response(&mut self, class: &str) -> Result<Vec<u8>, String> {
        self.0.lock().unwrap().class = Some(class.to_owned());
        Ok(b"first".to_vec())
    }
    fn evaluate_challenge(&mut self, challenge: Option<&[u8]>) -> Result<Vec<u8>, String> {
        self.0.lock().unwrap().challenges.push(challenge.map(<[u8]>::to_vec));
        Ok(b"again".to_vec())
    }
}

fn authenticating(version: u8) -> (Connection, Arc<Mutex<Seen>>) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let s = seen.clone();
    let factory = AuthenticatorFactory(Arc::new(move || Box::new(Recording(s.clone())) as Box<dyn Authenticator>));
    let mut c = Connection::new(Config { authenticator: Some(factory), ..config(version) });
    c.start(0);
    c.handle_bytes(1, &supported(version));
    c.poll_transmit(&mut Vec::new());
    (c, seen)
}

fn feed_handshake(c: &mut Connection, bytes: &[u8], how: Feed) {
    match how {
        Feed::ByteByByte => {
            for b in bytes {
                c.handle_bytes(5, std::slice::from_ref(b));
            }
        }
        _ => c.handle_bytes(5, bytes),
    }
}

#[test]
fn handshake_messages_whole_and_byte_by_byte() {
    for v in of(&["SUPPORTED", "READY", "AUTHENTICATE", "AUTH_CHALLENGE", "AUTH_SUCCESS"]) {
        for how in [Feed::Whole, Feed::ByteByByte] {
            let label = format!("{} ({how:?})", v.name);
            let version = v.protocol;
            match v.opcode.as_str() {
                "SUPPORTED" => {
                    let mut c = Connection::new(config(version));
                    c.start(0);
                    feed_handshake(&mut c, &v.bytes, how);
                    let got: Vec<Json> = c.supported().iter().map(|(k, vs)| json!([k, vs])).collect();
                    assert_eq!(Json::Array(got), v.expect, "{label}");
                    assert_eq!(c.state(), State::Startup, "{label}");
                }
                "READY" => {
                    let mut c = Connection::new(config(version));
                    c.start(0);
                    c.handle_bytes(1, &supported(version));
                    feed_handshake(&mut c, &v.bytes, how);
                    assert_eq!(drain(&mut c), vec![json!("ready")], "{label}");
                }
                "AUTHENTICATE" => {
                    let (mut c, seen) = authenticating(version);
                    feed_handshake(&mut c, &v.bytes, how);
                    assert_eq!(seen.lock().unwrap().class.as_deref(), v.expect["authenticator"].as_str(), "{label}");
                    assert_eq!(c.state(), State::Authenticating, "{label}");
                }
                _ => {
                    let (mut c, seen) = authenticating(version);
                    c.handle_bytes(1, &frame(version, 0, 0x03, &[0, 1, b'A']));
                    feed_handshake(&mut c, &on_wire(version, &v.bytes), how);
                    if v.opcode == "AUTH_CHALLENGE" {
                        let token = v.expect["token"].as_str().map(unhex);
                        assert_eq!(seen.lock().unwrap().challenges, vec![token], "{label}");
                        assert_eq!(c.state(), State::Authenticating, "{label}");
                    } else {
                        // The core reads nothing of AUTH_SUCCESS's token: it is done.
                        assert_eq!(drain(&mut c), vec![json!("ready")], "{label}");
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The RESULT bodies the core reads itself

/// A type as the vectors write it, in the core's self-describing form.
fn type_text(ty: &ColumnType) -> String {
    format!("{ty:#}")
}

fn expected_type(text: &str) -> String {
    type_text(&ColumnType::parse_cql(text).unwrap_or_else(|e| panic!("{text}: {e}")))
}

fn columns_json<'a>(cols: impl Iterator<Item = (&'a str, &'a str, &'a str, &'a ColumnType)>) -> Json {
    cols.map(|(k, t, n, ty)| json!({ "keyspace": k, "table": t, "name": n, "type": type_text(ty) })).collect()
}

fn normalise_columns(expect: &Json) -> Json {
    expect
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let mut c = c.clone();
            c["type"] = json!(expected_type(c["type"].as_str().unwrap()));
            c
        })
        .collect()
}

#[test]
fn rows_results_decode_to_the_python_drivers_values() {
    let rows_vectors: Vec<Vector> =
        of(&["RESULT"]).into_iter().filter(|v| v.expect["kind"] == "rows").collect();
    assert!(rows_vectors.len() >= 8);
    for v in rows_vectors {
        let rows = Rows::parse(v.body()).unwrap_or_else(|e| panic!("{}: {e}", v.name));
        let got = columns_json(rows.columns.iter().map(|c| (c.keyspace, c.table, c.name, &c.ty)));
        assert_eq!(got, normalise_columns(&v.expect["columns"]), "{}: columns", v.name);
        let mut values = Vec::new();
        rows.for_each_row(|cells| {
            let row: Vec<Json> = cells
                .iter()
                .zip(&rows.columns)
                .map(|(cell, c)| match cell {
                    None => Json::Null,
                    Some(b) => CqlValue::decode(&c.ty, b).unwrap().to_canonical_json().unwrap(),
                })
                .collect();
            values.push(Json::Array(row));
        });
        assert_eq!(Json::Array(values), v.expect["rows"], "{}: rows", v.name);
        assert_eq!(rows.paging_state.map(hex), v.expect["pageState"].as_str().map(str::to_owned), "{}", v.name);
        assert_eq!(rows.new_metadata_id.map(hex), v.expect["newMetadataId"].as_str().map(str::to_owned), "{}", v.name);
        // Every cut of the body is refused, never read past; a trailing byte is refused at
        // that byte, with the check the TypeScript decoder names (tests/ts/frames_test.ts).
        for cut in 0..v.body().len() {
            let e = Rows::parse(&v.body()[..cut]).unwrap_err();
            assert!(e.offset <= cut, "{} cut at {cut}: {e}", v.name);
        }
        let longer = [v.body(), &[0]].concat();
        let e = Rows::parse(&longer).unwrap_err();
        assert_eq!((e.field, e.offset), ("rows result", v.body().len()), "{} with a trailing byte", v.name);
    }
}

#[test]
fn prepared_results_decode_to_the_python_drivers_values() {
    let prepared: Vec<Vector> =
        of(&["RESULT"]).into_iter().filter(|v| v.expect["kind"] == "prepared").collect();
    assert_eq!(prepared.len(), 6);
    for v in prepared {
        let p = decode_prepared(v.body(), v.protocol).unwrap_or_else(|e| panic!("{}: {e}", v.name));
        assert_eq!(hex(p.id), v.expect["id"].as_str().unwrap(), "{}", v.name);
        assert_eq!(p.result_metadata_id.map(hex), v.expect["resultMetadataId"].as_str().map(str::to_owned), "{}", v.name);
        assert_eq!(json!(p.pk_indexes), v.expect["pkIndexes"], "{}", v.name);
        let binds = normalise_columns(&v.expect["bindColumns"]);
        let names: Vec<Json> = p.bind_columns.iter().map(|(n, t)| json!([n, type_text(t)])).collect();
        let want: Vec<Json> = binds.as_array().unwrap().iter().map(|c| json!([c["name"], c["type"]])).collect();
        assert_eq!(names, want, "{}: bind columns", v.name);
        assert_eq!(p.keyspace, binds.get(0).and_then(|c| c["keyspace"].as_str()), "{}", v.name);
        assert_eq!(p.table, binds.get(0).and_then(|c| c["table"].as_str()), "{}", v.name);
    }
}
