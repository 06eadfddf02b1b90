//! The wasm-bindgen facade over `cqlwire-core`: marshalling only. See README.md for the
//! byte layouts that cross the boundary.

use cqlwire_core::connection::{AuthStep, Request};
use cqlwire_core::bulk::registry::BulkLoads;
use cqlwire_core::session::{Command, Metrics, RequestSpec, Session, SessionEvent, Tried};
use cqlwire_core::message::{BatchStatement, BatchType, QueryOptions};
use cqlwire_core::types::JsonWriter;
use wasm_bindgen::prelude::*;

const EVENT_READY: u8 = 1;
const EVENT_RESPONSE: u8 = 2;
const EVENT_FAILED: u8 = 3;
const EVENT_SERVER: u8 = 4;
const EVENT_CONNECT_FAILED: u8 = 5;
const EVENT_NODE_UP: u8 = 6;
const EVENT_NODE_DOWN: u8 = 7;
const EVENT_LOG: u8 = 8;
const EVENT_AUTH: u8 = 9;
/// A response whose body stays where the core holds it: `[flags][attempts][node u16 LE][at
/// u32 LE][len u32 LE]`, the body's place in linear memory, valid until the next call that
/// feeds the core. The host copies it out once, as it copies any event buffer out.
const EVENT_RESPONSE_AT: u8 = 10;
/// A topology refresh added or removed a node (no payload): the host reads `state()` again.
const EVENT_NODES_CHANGED: u8 = 11;

/// Response bodies above this size are handed over in place, not copied into the event
/// buffer: a large result page is held once in linear memory, not twice (issue #17).
const IN_PLACE_BODY_BYTES: usize = cqlwire_core::connection::BUFFER_KEEP;

const COMMAND_CONNECT: u8 = 1;
const COMMAND_CLOSE: u8 = 2;
/// A connect to Scylla's shard-aware port: the address is followed by `[shard u16 LE]
/// [nr_shards u16 LE]`, and the host binds a local port of that residue.
const COMMAND_CONNECT_SHARD: u8 = 3;

/// Bits of `pendingOutputs`: which polls have something to return.
const PENDING_COMMANDS: u32 = 1;
const PENDING_TRANSMIT: u32 = 2;
const PENDING_EVENTS: u32 = 4;
/// The next deadline is earlier than the host's timer (or the host has none): `pollTimeout`.
const PENDING_TIMEOUT: u32 = 8;
/// Bits of a staged call's answer: the poll the host asked for in the call ran in it, and its
/// output lies where `outputSlot` says (a round trip at 1 in flight then crosses twice).
const POLLED_TRANSMIT: u32 = 16;
const POLLED_EVENTS: u32 = 32;

/// Microseconds arrive as f64 (exact up to 2^53 µs, ~285 years).
fn micros(now: f64) -> u64 {
    if now.is_finite() && now > 0.0 { now as u64 } else { 0 }
}

mod bulk_json;
mod call_error;
mod error_json;
use call_error::{call_error as js_error, protocol_error, CallError};
mod session_config;
use session_config::parse_session_config;

struct Descriptor<'a> {
    options: QueryOptions<'a>,
    timeout_us: Option<u64>,
    idempotent: bool,
    token: Option<i64>,
}

fn le_u16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at.checked_add(2)?)?.try_into().ok()?))
}
fn le_u32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at.checked_add(4)?)?.try_into().ok()?))
}
fn le_i32(b: &[u8], at: usize) -> Option<i32> {
    Some(i32::from_le_bytes(b.get(at..at.checked_add(4)?)?.try_into().ok()?))
}
fn le_i64(b: &[u8], at: usize) -> Option<i64> {
    Some(i64::from_le_bytes(b.get(at..at.checked_add(8)?)?.try_into().ok()?))
}

fn parse_options(b: &[u8]) -> Result<Descriptor<'_>, CallError> {
    let bad = || js_error("ERR_OPTIONS", "malformed request options descriptor");
    if b.is_empty() {
        return Ok(Descriptor { options: QueryOptions::default(), timeout_us: None, idempotent: false, token: None });
    }
    let consistency = le_u16(b, 0).ok_or_else(bad)?;
    let serial = le_u16(b, 2).ok_or_else(bad)?;
    let page_size = le_i32(b, 4).ok_or_else(bad)?;
    let timestamp = le_i64(b, 8).ok_or_else(bad)?;
    let timeout_ms = le_u32(b, 16).ok_or_else(bad)?;
    let flags = le_u32(b, 20).ok_or_else(bad)?;
    let ps_len = le_u32(b, 24).ok_or_else(bad)? as usize;
    let routing_token = le_i64(b, 28).ok_or_else(bad)?;
    let now_in_seconds = le_i32(b, 36).ok_or_else(bad)?;
    let ks_len = le_u16(b, 40).ok_or_else(bad)? as usize;
    let keyspace = if ks_len > 0 {
        Some(std::str::from_utf8(b.get(42..42 + ks_len).ok_or_else(bad)?).map_err(|_| bad())?)
    } else {
        None
    };
    let ps_at = 42 + ks_len;
    let paging_state = if ps_len > 0 { Some(b.get(ps_at..ps_at.checked_add(ps_len).ok_or_else(bad)?).ok_or_else(bad)?) } else { None };
    Ok(Descriptor {
        options: QueryOptions {
            consistency: (consistency != 0xFFFF).then_some(consistency),
            serial_consistency: (serial != 0xFFFF).then_some(serial),
            page_size: (page_size > 0).then_some(page_size),
            paging_state,
            default_timestamp: (timestamp != i64::MIN).then_some(timestamp),
            skip_metadata: flags & 1 != 0,
            idempotent: flags & 2 != 0,
            tracing: flags & 4 != 0,
            keyspace,
            now_in_seconds: (flags & 16 != 0).then_some(now_in_seconds),
            ..QueryOptions::default()
        },
        timeout_us: (timeout_ms > 0).then_some(timeout_ms as u64 * 1000),
        idempotent: flags & 2 != 0,
        token: (flags & 8 != 0).then_some(routing_token),
    })
}

#[wasm_bindgen]
pub struct WasmSession {
    inner: Session,
    batch_index: Vec<(u8, usize, usize, usize, usize)>,
    loads: BulkLoads,
    now: u64,
    /// `(prepared id, result metadata id, the core's handle)` by handle, so an EXECUTE crosses
    /// with one buffer and the core finds its statement without hashing the id.
    prepared: Vec<(Vec<u8>, Vec<u8>, Option<u32>)>,
    /// Why the last `executeStaged` was refused, until `takeError` hands it out.
    refused: Option<CallError>,
    /// Where the host writes an EXECUTE's `[options][values]` (`stagingArea`), so the bytes
    /// cross without the malloc, copy and free a `&[u8]` argument costs on every request.
    staging: Vec<u8>,
    /// The last `pollTransmit`'s and `pollEvents`' output, kept until the next poll of its
    /// kind (or `releaseOutput`): the host copies it out of linear memory itself, so no
    /// buffer is allocated, handed over and freed across the boundary per poll.
    transmit_out: Vec<u8>,
    events_out: Vec<u8>,
    /// `[address u32][length u32]` of the last poll's output, then `[pending u32]`: the
    /// `pendingOutputs` bits after the last `executeStaged` that started a request; read by
    /// the host in linear memory (`outputSlot`).
    output: Box<[u32; 3]>,
}

/// A staging area up to this size is kept between requests; a larger one is freed after its
/// request, so one huge EXECUTE does not pin its size.
const STAGING_KEEP: usize = 64 * 1024;

/// A JSON event: `[kind u8][id u32 LE][len u32 LE][json]`.
fn push_json(out: &mut Vec<u8>, kind: u8, id: u32, json: &str) {
    out.push(kind);
    out.extend_from_slice(&id.to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(json.as_bytes());
}

/// `{"errors": [[node, message, code, attempt], ...], "speculative_executions",
/// "answered_in_us"}` (see [`error_json::node_errors`]).
fn tried_json(tried: &Tried) -> String {
    let mut w = JsonWriter::new();
    w.open('{').key("errors");
    error_json::node_errors(&mut w, &tried.errors);
    w.key("speculative_executions").number(tried.speculative_executions);
    w.key("answered_in_us").number(tried.answered_in_us).close('}');
    w.finish()
}

/// The session's counters under their field names, then `decisions` and `per_node` as
/// objects of counts (keys in order). The destructuring makes a new field a compile error here.
fn metrics_json(m: &Metrics) -> String {
    let Metrics {
        requests,
        responses,
        failures,
        retries,
        speculative_executions,
        client_timeouts,
        no_host_available,
        reprepares,
        connections_opened,
        connections_closed,
        connections_recycled,
        decisions,
        per_node,
    } = m;
    let counters = [
        ("requests", requests),
        ("responses", responses),
        ("failures", failures),
        ("retries", retries),
        ("speculative_executions", speculative_executions),
        ("client_timeouts", client_timeouts),
        ("no_host_available", no_host_available),
        ("reprepares", reprepares),
        ("connections_opened", connections_opened),
        ("connections_closed", connections_closed),
        ("connections_recycled", connections_recycled),
    ];
    let mut w = JsonWriter::new();
    w.open('{');
    for (key, n) in counters {
        w.key(key).number(n);
    }
    w.key("decisions").open('{');
    for (key, n) in decisions.iter() {
        w.key(key).number(n);
    }
    w.close('}').key("per_node").open('{');
    for (key, n) in per_node.iter() {
        w.key(key).number(n);
    }
    w.close('}').close('}');
    w.finish()
}

/// The AUTH event: `{"address", "step", "authenticatorClass", "token"}`; the class is null
/// but at the start, the token (an array of byte values) null when absent.
fn auth_json(address: &str, step: &AuthStep) -> String {
    let (kind, class, token) = match step {
        AuthStep::Start { authenticator_class } => ("start", Some(authenticator_class.as_str()), None),
        AuthStep::Challenge { token } => ("challenge", None, token.as_deref()),
        AuthStep::Success { token } => ("success", None, token.as_deref()),
    };
    let mut w = JsonWriter::new();
    w.open('{').key("address").string(address).key("step").string(kind).key("authenticatorClass").opt_string(class);
    w.key("token");
    match token {
        Some(bytes) => w.bytes(bytes),
        None => w.null(),
    };
    w.close('}');
    w.finish()
}

/// Bytes `marshal_event` adds to a response body: kind, id, length, flags, attempts, node.
const EVENT_OVERHEAD: usize = 1 + 4 + 4 + 4;

/// Whether `body` is handed over in place (an [`EVENT_RESPONSE_AT`] event).
fn in_place(body: &[u8]) -> bool {
    body.len() > IN_PLACE_BODY_BYTES
}

/// One event, packed: `[kind u8][request id u32 LE][len u32 LE][payload]`.
/// `body_in_place`: a large body is handed over where it lies ([`EVENT_RESPONSE_AT`]).
fn marshal_event(out: &mut Vec<u8>, event: SessionEvent<'_>, body_in_place: bool) {
    match event {
        SessionEvent::Response { id, frame_flags, body, node_id, attempts, .. } if body_in_place && in_place(body) => {
            out.push(EVENT_RESPONSE_AT);
            out.extend_from_slice(&id.to_le_bytes());
            out.extend_from_slice(&12u32.to_le_bytes());
            out.push(frame_flags);
            out.push(attempts.min(255) as u8);
            out.extend_from_slice(&(node_id.min(0xFFFF) as u16).to_le_bytes());
            // Linear memory addresses are 32-bit on wasm32, where this runs.
            out.extend_from_slice(&(body.as_ptr() as usize as u32).to_le_bytes());
            out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        }
        SessionEvent::Response { id, frame_flags, body, node_id, attempts, .. } => {
            // The coordinator travels as a node id: its address is in `state()`.
            out.push(EVENT_RESPONSE);
            out.extend_from_slice(&id.to_le_bytes());
            out.extend_from_slice(&((body.len() + 4) as u32).to_le_bytes());
            out.push(frame_flags);
            out.push(attempts.min(255) as u8);
            out.extend_from_slice(&(node_id.min(0xFFFF) as u16).to_le_bytes());
            out.extend_from_slice(body);
        }
        other => marshal_rare_event(out, other),
    }
}

/// Every event but a response, as JSON. Kept out of line: inlined, these arms made
/// `marshal_event` 14 KB of WASM that V8 re-compiles with TurboFan (a 9.7 MB compile zone,
/// 45 KB of machine code) because its response arms are hot (issue #17, client memory).
#[cold]
#[inline(never)]
fn marshal_rare_event(out: &mut Vec<u8>, event: SessionEvent<'_>) {
    match event {
        // Not reached: `marshal_event` takes responses itself.
        response @ SessionEvent::Response { .. } => marshal_event(out, response, false),
        SessionEvent::Ready { protocol_version } => {
            let mut w = JsonWriter::new();
            w.open('{').key("protocolVersion").number(protocol_version).close('}');
            push_json(out, EVENT_READY, 0, &w.finish())
        }
        SessionEvent::Failed { id, error } => push_json(out, EVENT_FAILED, id, &error_json::session_error_json(&error)),
        SessionEvent::ServerEvent(e) => push_json(out, EVENT_SERVER, 0, &error_json::server_event_json(&e)),
        SessionEvent::ConnectFailed { errors } => {
            push_json(out, EVENT_CONNECT_FAILED, 0, &error_json::connect_failed_json(&errors))
        }
        SessionEvent::NodeUp { address } => {
            let mut w = JsonWriter::new();
            w.open('{').key("address").string(&address).close('}');
            push_json(out, EVENT_NODE_UP, 0, &w.finish())
        }
        SessionEvent::NodeDown { address, reason } => {
            let mut w = JsonWriter::new();
            w.open('{').key("address").string(&address).key("reason").string(&reason).close('}');
            push_json(out, EVENT_NODE_DOWN, 0, &w.finish())
        }
        SessionEvent::NodesChanged => push_json(out, EVENT_NODES_CHANGED, 0, ""),
        SessionEvent::Log { message } => {
            let mut w = JsonWriter::new();
            w.open('{').key("message").string(&message).close('}');
            push_json(out, EVENT_LOG, 0, &w.finish())
        }
        SessionEvent::Auth { conn, address, step } => push_json(out, EVENT_AUTH, conn, &auth_json(&address, &step)),
    }
}

/// An output buffer emptied for the next poll: one that grew past `STAGING_KEEP` (a burst)
/// is dropped rather than kept at its peak.
fn take_output(buf: &mut Vec<u8>) -> Vec<u8> {
    let mut out = std::mem::take(buf);
    if out.capacity() > STAGING_KEEP {
        return Vec::new();
    }
    out.clear();
    out
}

/// Records where `out` lies for the host (`outputSlot`); returns its length.
fn set_output(slot: &mut [u32; 3], out: &[u8]) -> u32 {
    // Linear memory addresses and lengths are 32-bit on wasm32, where this runs.
    slot[0] = out.as_ptr() as usize as u32;
    slot[1] = out.len() as u32;
    out.len() as u32
}

impl WasmSession {
    /// An EXECUTE of a registered statement, started (see `executeStaged`).
    fn start_execute(&mut self, now: f64, handle: u32, staged: &[u8], options_len: u32) -> Result<u32, CallError> {
        let (id, rmid, core_handle) = self.prepared.get(handle as usize).ok_or_else(|| js_error("ERR_REQUEST", "unknown prepared statement handle"))?;
        let split = (options_len as usize).min(staged.len());
        let (options, values) = staged.split_at(split);
        let d = parse_options(options)?;
        let rmid = (!rmid.is_empty()).then_some(rmid.as_slice());
        let spec = RequestSpec {
            request: Request::Execute { id, result_metadata_id: rmid, values, options: d.options },
            idempotent: d.idempotent,
            token: d.token,
            routing_key: None,
            keyspace: None,
            timeout_us: d.timeout_us,
            prepared: *core_handle,
        };
        // `id` borrows `self.prepared`: the session is reached apart from it.
        self.inner.start_request(micros(now), spec).map_err(|e| js_error("ERR_REQUEST", e))
    }

    fn submit(&mut self, now: f64, spec: RequestSpec) -> Result<u32, CallError> {
        self.inner.start_request(micros(now), spec).map_err(|e| js_error("ERR_REQUEST", e))
    }
}

#[wasm_bindgen]
impl WasmSession {
    #[wasm_bindgen(constructor)]
    pub fn new(config_json: &str) -> Result<WasmSession, CallError> {
        Ok(WasmSession {
            inner: Session::new(parse_session_config(config_json)?),
            batch_index: Vec::new(),
            loads: BulkLoads::new(),
            now: 0,
            prepared: Vec::new(),
            refused: None,
            staging: Vec::new(),
            transmit_out: Vec::new(),
            events_out: Vec::new(),
            output: Box::new([0; 3]),
        })
    }

    /// `contact_points` is a comma-separated list of `host:port`.
    pub fn start(&mut self, now: f64, contact_points: &str) {
        let cps: Vec<&str> = contact_points.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
        self.inner.start(micros(now), &cps);
    }

    #[wasm_bindgen(js_name = handleConnected)]
    pub fn handle_connected(&mut self, now: f64, conn: u32) {
        self.now = micros(now);
        self.inner.handle_connected(micros(now), conn);
    }

    #[wasm_bindgen(js_name = handleConnectFailed)]
    pub fn handle_connect_failed(&mut self, now: f64, conn: u32, message: &str) {
        self.now = micros(now);
        self.inner.handle_connect_failed(micros(now), conn, message);
    }

    #[wasm_bindgen(js_name = handleBytes)]
    pub fn handle_bytes(&mut self, now: f64, conn: u32, chunk: &[u8]) {
        self.now = micros(now);
        self.inner.handle_bytes(micros(now), conn, chunk);
    }

    /// One socket read that the host wrote into the staging area (`stagingArea`): its first
    /// `len` bytes. Returns `pendingOutputs(timer_at)` after it, so a read costs one crossing
    /// and no byte array; -1 when `len` is beyond the area (nothing was read). With
    /// `PENDING_EVENTS` in `polls` (a host that drains at once), pending events are drained
    /// here too, as `pollEvents` does, unless a bulk load runs (draining pumps its rows) or
    /// commands are pending (the host carries those out first): the answer then has
    /// `POLLED_EVENTS` instead of `PENDING_EVENTS`.
    #[wasm_bindgen(js_name = handleStaged)]
    pub fn handle_staged(&mut self, now: f64, conn: u32, len: u32, timer_at: f64, polls: u32) -> i32 {
        let staging = std::mem::take(&mut self.staging);
        let fed = match staging.get(..len as usize) {
            Some(chunk) => {
                self.now = micros(now);
                self.inner.handle_bytes(self.now, conn, chunk);
                true
            }
            None => false,
        };
        if staging.len() <= STAGING_KEEP {
            self.staging = staging;
        }
        if !fed {
            return -1;
        }
        let bits = self.pending_outputs(timer_at);
        // Not with commands pending: the host opens and closes sockets before it drains.
        if bits & polls & PENDING_EVENTS != 0 && bits & PENDING_COMMANDS == 0 && !self.loads.has_running() {
            self.poll_events();
            return ((bits & !PENDING_EVENTS) | POLLED_EVENTS) as i32;
        }
        bits as i32
    }

    /// The host authenticator's answer to an auth step of `conn`: `token`, or `error` when
    /// it failed (then the connection closes with an authentication error).
    #[wasm_bindgen(js_name = authAnswer)]
    pub fn auth_answer(&mut self, now: f64, conn: u32, token: Option<Vec<u8>>, error: Option<String>) {
        self.now = micros(now);
        let answer = match (&token, &error) {
            (_, Some(e)) => Err(e.as_str()),
            (Some(t), None) => Ok(t.as_slice()),
            (None, None) => Ok(&[][..]),
        };
        self.inner.auth_answer(micros(now), conn, answer);
    }

    #[wasm_bindgen(js_name = handleEof)]
    pub fn handle_eof(&mut self, now: f64, conn: u32) {
        self.now = micros(now);
        self.inner.handle_eof(micros(now), conn);
    }

    #[wasm_bindgen(js_name = handleTimeout)]
    pub fn handle_timeout(&mut self, now: f64) {
        self.now = micros(now);
        self.inner.handle_timeout(self.now);
        // Bulk rows whose retry is due go out.
        self.loads.pump(self.now, &mut self.inner);
    }

    /// `routing_key` (empty for none) and `keyspace` route an unprepared statement.
    pub fn query(&mut self, now: f64, cql: &str, values: &[u8], options: &[u8], keyspace: Option<String>, routing_key: &[u8]) -> Result<u32, CallError> {
        let d = parse_options(options)?;
        let spec = RequestSpec {
            request: Request::Query { cql, values, options: d.options },
            idempotent: d.idempotent,
            token: d.token,
            routing_key: (!routing_key.is_empty()).then_some(routing_key),
            keyspace: keyspace.as_deref(),
            timeout_us: d.timeout_us,
            prepared: None,
        };
        self.submit(now, spec)
    }

    pub fn prepare(&mut self, now: f64, cql: &str, keyspace: Option<String>) -> Result<u32, CallError> {
        self.submit(now, RequestSpec::prepare(cql, keyspace.as_deref()))
    }

    pub fn execute(&mut self, now: f64, prepared_id: &[u8], result_metadata_id: &[u8], values: &[u8], options: &[u8]) -> Result<u32, CallError> {
        let d = parse_options(options)?;
        let rmid = (!result_metadata_id.is_empty()).then_some(result_metadata_id);
        let spec = RequestSpec {
            request: Request::Execute { id: prepared_id, result_metadata_id: rmid, values, options: d.options },
            idempotent: d.idempotent,
            token: d.token,
            routing_key: None,
            keyspace: None,
            timeout_us: d.timeout_us,
            prepared: None,
        };
        self.submit(now, spec)
    }

    #[wasm_bindgen(js_name = registerPrepared)]
    pub fn register_prepared(&mut self, prepared_id: &[u8], result_metadata_id: &[u8]) -> u32 {
        let core_handle = self.inner.prepared_handle(prepared_id);
        if let Some(i) = self.prepared.iter().position(|(id, _, _)| id == prepared_id) {
            self.prepared[i].1 = result_metadata_id.to_vec();
            self.prepared[i].2 = core_handle;
            return i as u32;
        }
        self.prepared.push((prepared_id.to_vec(), result_metadata_id.to_vec(), core_handle));
        (self.prepared.len() - 1) as u32
    }

    #[wasm_bindgen(js_name = updatePrepared)]
    pub fn update_prepared(&mut self, handle: u32, result_metadata_id: &[u8]) {
        if let Some(p) = self.prepared.get_mut(handle as usize) {
            p.1 = result_metadata_id.to_vec();
        }
    }

    /// The staging area, at least `len` bytes long: its address in this instance's memory
    /// (`wasmMemory`). The host writes an EXECUTE's bytes there, then calls `executeStaged`.
    /// The address holds until a call with a larger `len`, or an `executeStaged` of more
    /// than 64 KiB; a view of it must be taken again whenever the memory grows.
    #[wasm_bindgen(js_name = stagingArea)]
    pub fn staging_area(&mut self, len: u32) -> u32 {
        if self.staging.len() < len as usize {
            self.staging.resize(len as usize, 0);
        }
        self.staging.as_ptr() as usize as u32
    }

    /// EXECUTE of a registered statement whose first `len` bytes of the staging area are the
    /// options descriptor (`options_len` bytes) followed by the values. Returns the request
    /// id, or -1 when refused (the reason is then `takeError`'s): a plain number crosses
    /// without the array a `Result` return allocates on the JavaScript side, per request.
    /// A started request leaves `pendingOutputs(timer_at)` in the output slot's third word,
    /// so the turn that sends it need not cross to ask. With `PENDING_TRANSMIT` in `polls` (a
    /// host that sends the request at once), the bytes are polled here too, as `pollTransmit`
    /// does, unless events are pending (the host drains those first, which would take the
    /// output slot): the bits then have `POLLED_TRANSMIT` instead of `PENDING_TRANSMIT`.
    #[wasm_bindgen(js_name = executeStaged)]
    pub fn execute_staged(&mut self, now: f64, handle: u32, len: u32, options_len: u32, timer_at: f64, polls: u32) -> f64 {
        let staging = std::mem::take(&mut self.staging);
        let started = match staging.get(..len as usize) {
            Some(staged) => self.start_execute(now, handle, staged, options_len),
            None => Err(js_error("ERR_REQUEST", "staged bytes beyond the staging area")),
        };
        if staging.len() <= STAGING_KEEP {
            self.staging = staging;
        }
        match started {
            Ok(id) => {
                let mut bits = self.pending_outputs(timer_at);
                if bits & polls & PENDING_TRANSMIT != 0 && bits & PENDING_EVENTS == 0 {
                    self.poll_transmit();
                    bits = (bits & !PENDING_TRANSMIT) | POLLED_TRANSMIT;
                }
                self.output[2] = bits;
                f64::from(id)
            }
            Err(e) => {
                self.refused = Some(e);
                -1.0
            }
        }
    }

    /// Why the last refused `executeStaged` was refused (once).
    #[wasm_bindgen(js_name = takeError)]
    pub fn take_error(&mut self) -> Option<CallError> {
        self.refused.take()
    }


    pub fn batch(&mut self, now: f64, desc: &[u8], options: &[u8]) -> Result<u32, CallError> {
        let bad = || js_error("ERR_BATCH", "malformed batch descriptor");
        let d = parse_options(options)?;
        let kind = match desc.first().ok_or_else(bad)? {
            0 => BatchType::Logged,
            1 => BatchType::Unlogged,
            2 => BatchType::Counter,
            k => return Err(js_error("ERR_BATCH", format!("unknown batch type {k}"))),
        };
        let n = le_u16(desc, 1).ok_or_else(bad)? as usize;
        self.batch_index.clear();
        let mut at = 3;
        for _ in 0..n {
            let stmt_kind = *desc.get(at).ok_or_else(bad)?;
            let len = le_u32(desc, at + 1).ok_or_else(bad)? as usize;
            let body = at + 5;
            let vlen_at = body.checked_add(len).ok_or_else(bad)?;
            let vlen = le_u32(desc, vlen_at).ok_or_else(bad)? as usize;
            let vstart = vlen_at + 4;
            // Checked: on wasm32 a length near 4 GiB would wrap past the check and trap below.
            let vend = vstart.checked_add(vlen).filter(|&end| end <= desc.len()).ok_or_else(bad)?;
            self.batch_index.push((stmt_kind, body, len, vstart, vlen));
            at = vend;
        }
        let mut statements = Vec::with_capacity(n);
        for &(k, body, len, vstart, vlen) in &self.batch_index {
            let values = &desc[vstart..vstart + vlen];
            statements.push(match k {
                0 => BatchStatement::Query {
                    cql: std::str::from_utf8(&desc[body..body + len]).map_err(|_| js_error("ERR_BATCH", "batch statement is not UTF-8"))?,
                    values,
                },
                _ => BatchStatement::Prepared { id: &desc[body..body + len], values },
            });
        }
        let spec = RequestSpec {
            request: Request::Batch { kind, statements: &statements, options: d.options },
            idempotent: d.idempotent,
            token: d.token,
            routing_key: None,
            keyspace: None,
            timeout_us: d.timeout_us,
            prepared: None,
        };
        self.submit(now, spec)
    }

    pub fn cancel(&mut self, now: f64, id: u32) {
        self.inner.cancel(micros(now), id);
    }

    /// Sockets to open or close, packed: `[kind u8][conn u32 LE][host len u16 LE][host][port u16 LE]`, and
    /// for [`COMMAND_CONNECT_SHARD`] `[shard u16 LE][nr_shards u16 LE]` after it.
    #[wasm_bindgen(js_name = pollCommands)]
    pub fn poll_commands(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        while let Some(c) = self.inner.poll_command() {
            let (kind, conn, address, shard) = match &c {
                Command::Connect { conn, address, shard: None } => (COMMAND_CONNECT, *conn, address.as_str(), None),
                Command::Connect { conn, address, shard: Some(t) } => (COMMAND_CONNECT_SHARD, *conn, address.as_str(), Some(*t)),
                Command::Close { conn } => (COMMAND_CLOSE, *conn, "", None),
            };
            let (host, port) = cqlwire_core::cluster::split_address(address);
            out.push(kind);
            out.extend_from_slice(&conn.to_le_bytes());
            out.extend_from_slice(&(host.len() as u16).to_le_bytes());
            out.extend_from_slice(host.as_bytes());
            out.extend_from_slice(&port.to_le_bytes());
            if let Some(t) = shard {
                out.extend_from_slice(&t.shard.to_le_bytes());
                out.extend_from_slice(&t.nr_shards.to_le_bytes());
            }
        }
        out
    }

    /// Every connection's pending bytes, packed: `[bytes][conn u32 LE][len u32 LE]` per
    /// connection (read from the end), so one call serves a flush of every socket. Trailing
    /// the bytes, the header lets a large first output move here with its buffer instead of
    /// being copied (`Connection::poll_transmit`; issue #17). Returns the length; the bytes
    /// lie where `outputSlot` says until the next `pollTransmit` or `releaseOutput`.
    #[wasm_bindgen(js_name = pollTransmit)]
    pub fn poll_transmit(&mut self) -> u32 {
        let mut out = take_output(&mut self.transmit_out);
        loop {
            let start = out.len();
            let Some(conn) = self.inner.poll_transmit(&mut out) else { break };
            let len = (out.len() - start) as u32;
            // Exactly: a moved buffer that is full must not double for 8 bytes.
            out.reserve_exact(8);
            out.extend_from_slice(&conn.to_le_bytes());
            out.extend_from_slice(&len.to_le_bytes());
        }
        self.transmit_out = out;
        set_output(&mut self.output, &self.transmit_out)
    }

    /// Where the host reads the last `pollTransmit`'s or `pollEvents`' output: the address of
    /// `[address u32 LE][length u32 LE]` in this instance's memory, fixed for the session.
    #[wasm_bindgen(js_name = outputSlot)]
    pub fn output_slot(&self) -> u32 {
        self.output.as_ptr() as usize as u32
    }

    /// The host copied a large output out: its memory serves the next burst now, not after
    /// the next poll of its kind (which, after a burst, may never come).
    #[wasm_bindgen(js_name = releaseOutput)]
    pub fn release_output(&mut self) {
        drop(take_output(&mut self.transmit_out));
        drop(take_output(&mut self.events_out));
        set_output(&mut self.output, &[]);
    }

    /// Which of `pollCommands`, `pollTransmit` and `pollEvents` have something, as
    /// `PENDING_*` bits: an empty poll still costs the host a fresh buffer, this a number.
    /// Events are pending while a bulk load runs, because draining them pumps its rows.
    /// `timer_at` is the deadline the host's timer is armed for (-1: none): the
    /// `PENDING_TIMEOUT` bit says the core's next deadline is earlier, so `pollTimeout` is
    /// asked only then.
    #[wasm_bindgen(js_name = pendingOutputs)]
    pub fn pending_outputs(&self, timer_at: f64) -> u32 {
        let mut bits = 0;
        if self.inner.has_commands() {
            bits |= PENDING_COMMANDS;
        }
        if self.inner.has_transmit() {
            bits |= PENDING_TRANSMIT;
        }
        if self.inner.has_events() || self.loads.has_running() {
            bits |= PENDING_EVENTS;
        }
        let next = self.poll_timeout();
        if next >= 0.0 && (timer_at < 0.0 || next < timer_at) {
            bits |= PENDING_TIMEOUT;
        }
        bits
    }

    #[wasm_bindgen(js_name = pollTimeout)]
    pub fn poll_timeout(&self) -> f64 {
        self.inner.poll_timeout().into_iter().chain(self.loads.next_timeout()).min().map(|t| t as f64).unwrap_or(-1.0)
    }

    /// Starts a bulk load of raw CSV/JSONL input through a statement prepared on this
    /// session; rows are encoded, routed and acknowledged in the core. Returns a load id.
    #[wasm_bindgen(js_name = bulkStart)]
    pub fn bulk_start(&mut self, now: f64, prepared_id: &[u8], result_metadata_id: &[u8], options_json: &str) -> Result<u32, CallError> {
        self.now = micros(now);
        self.loads.start(&self.inner, prepared_id, result_metadata_id, options_json).map_err(|e| js_error("ERR_BULK", e))
    }

    /// Feeds one chunk of input (cut anywhere) and starts what the window allows.
    #[wasm_bindgen(js_name = bulkPush)]
    pub fn bulk_push(&mut self, now: f64, load: u32, chunk: &[u8]) {
        self.now = micros(now);
        self.loads.push(self.now, &mut self.inner, load, chunk);
    }

    #[wasm_bindgen(js_name = bulkStop)]
    pub fn bulk_stop(&mut self, now: f64, load: u32) {
        self.now = micros(now);
        self.loads.stop(self.now, &mut self.inner, load);
    }

    #[wasm_bindgen(js_name = bulkFinish)]
    pub fn bulk_finish(&mut self, now: f64, load: u32) {
        self.now = micros(now);
        self.loads.finish(self.now, &mut self.inner, load);
    }

    /// `{ counters: {...}, status: { wantsInput, done, error } }` as JSON (README.md).
    #[wasm_bindgen(js_name = bulkState)]
    pub fn bulk_state(&self, load: u32) -> String {
        bulk_json::bulk_status_json(self.loads.status(load).as_ref())
    }

    /// Rows that will not be loaded, packed: `[kind u8][line u64 LE][offset u64 LE]
    /// [attempts u32 LE][server code i32 LE, -1: none][field u32 LE, u32::MAX: none]
    /// [byte u64 LE, u64::MAX: none][column len u16 LE][column][reason len u32 LE][reason]
    /// [raw len u32 LE][raw]`.
    #[wasm_bindgen(js_name = bulkBadRows)]
    pub fn bulk_bad_rows(&mut self, load: u32) -> Vec<u8> {
        let mut out = Vec::new();
        while let Some(b) = self.loads.poll_bad(load) {
            let column = b.column.unwrap_or_default();
            out.push(b.kind.code());
            out.extend_from_slice(&b.line.to_le_bytes());
            out.extend_from_slice(&b.offset.to_le_bytes());
            out.extend_from_slice(&b.attempts.to_le_bytes());
            out.extend_from_slice(&b.server_code.unwrap_or(-1).to_le_bytes());
            out.extend_from_slice(&b.field.unwrap_or(u32::MAX).to_le_bytes());
            out.extend_from_slice(&b.byte.unwrap_or(u64::MAX).to_le_bytes());
            out.extend_from_slice(&(column.len().min(u16::MAX as usize) as u16).to_le_bytes());
            out.extend_from_slice(&column.as_bytes()[..column.len().min(u16::MAX as usize)]);
            out.extend_from_slice(&(b.reason.len() as u32).to_le_bytes());
            out.extend_from_slice(b.reason.as_bytes());
            out.extend_from_slice(&(b.raw.len() as u32).to_le_bytes());
            out.extend_from_slice(&b.raw);
            let value = b.value.as_deref().map(str::as_bytes);
            out.extend_from_slice(&value.map_or(u32::MAX, |v| v.len() as u32).to_le_bytes());
            out.extend_from_slice(value.unwrap_or_default());
        }
        out
    }

    /// The load's journal since the last call, packed: `[kind u8: 1 sent, 2 acknowledged]
    /// [offset u64 LE]` per row. The host persists it before its next `pollTransmit`.
    #[wasm_bindgen(js_name = bulkJournal)]
    pub fn bulk_journal(&mut self, load: u32) -> Vec<u8> {
        use cqlwire_core::bulk::load::JournalEntry;
        let entries = self.loads.get_mut(load).map(|l| l.take_journal()).unwrap_or_default();
        let mut out = Vec::with_capacity(entries.len() * 9);
        for entry in entries {
            let (kind, offset) = match entry {
                JournalEntry::Sent(offset) => (1u8, offset),
                JournalEntry::Acked(offset) => (2u8, offset),
            };
            out.push(kind);
            out.extend_from_slice(&offset.to_le_bytes());
        }
        out
    }

    /// The Murmur3 token of a value list (`[n u16][bytes]*`), from the partition-key
    /// positions given; `None` when a key component is null or missing.
    #[wasm_bindgen(js_name = routingToken)]
    pub fn routing_token(values: &[u8], pk_indexes: &[u16]) -> Option<i64> {
        cqlwire_core::session::token_from_values(values, pk_indexes)
    }

    #[wasm_bindgen(js_name = bulkClose)]
    pub fn bulk_close(&mut self, load: u32) {
        self.loads.close(load);
    }

    /// Every pending event, packed: `[kind u8][request id u32 LE][len u32 LE][payload]`.
    /// Responses to bulk-load rows are counted by their load, not reported. Returns the
    /// length; the bytes lie where `outputSlot` says until the next `pollEvents` or
    /// `releaseOutput`.
    #[wasm_bindgen(js_name = pollEvents)]
    pub fn poll_events(&mut self) -> u32 {
        let mut out = take_output(&mut self.events_out);
        // Sized once: a large result is copied into `out` once, not grown into by doubling
        // (which held up to twice its size, plus the copy it grew from).
        let (events, body_bytes) = self.inner.pending_events();
        let pumping = self.loads.has_running();
        let copied = if pumping { body_bytes } else { body_bytes.min(events * IN_PLACE_BODY_BYTES) };
        out.reserve(copied + events * EVENT_OVERHEAD);
        // Events handing a body over in place come first, so the host copies those bodies
        // before any other event's handler can feed the core (which releases them). While a
        // bulk load runs, draining feeds the core: bodies are copied as before.
        let mut first = Vec::new();
        self.loads.drain_events(self.now, &mut self.inner, |event| {
            if matches!(&event, SessionEvent::Response { body, .. } if !pumping && in_place(body)) {
                marshal_event(&mut first, event, true)
            } else {
                marshal_event(&mut out, event, false)
            }
        });
        if first.is_empty() {
            self.inner.release_drained();
        } else {
            // Until the host calls `releaseDrained` (or feeds the core), the bodies stay.
            first.extend_from_slice(&out);
            out = first;
        }
        self.events_out = out;
        set_output(&mut self.output, &self.events_out)
    }

    /// The host copied the bodies `pollEvents` handed over in place: their memory is free
    /// for the next burst now, not at the next input (which, after a burst, may never come).
    #[wasm_bindgen(js_name = releaseDrained)]
    pub fn release_drained(&mut self) {
        self.inner.release_drained();
    }

    /// Bytes of capacity the core's byte buffers hold (connections and session pools).
    #[wasm_bindgen(js_name = bufferBytes)]
    pub fn buffer_bytes(&self) -> f64 {
        self.inner.buffer_bytes() as f64
    }

    /// The size of this instance's linear memory. WebAssembly memory only grows: this is the
    /// peak the allocator ever needed, which the next burst reuses.
    #[wasm_bindgen(js_name = memoryBytes)]
    pub fn memory_bytes() -> f64 {
        #[cfg(target_arch = "wasm32")]
        return (core::arch::wasm32::memory_size(0) * 65536) as f64;
        #[cfg(not(target_arch = "wasm32"))]
        return 0.0;
    }

    /// How request `id` got its answer beyond its first execution, as JSON `{ errors:
    /// [[node, message, code], ...], speculative_executions }`; asked only for responses after
    /// more than one execution.
    #[wasm_bindgen(js_name = takeTried)]
    pub fn take_tried(&mut self, id: u32) -> String {
        tried_json(&self.inner.take_tried(id))
    }

    /// The length of request `id`'s frame body while it is in flight, else 0 (see the core's
    /// `request_length`): asked only by a host that reports lengths to a request tracker.
    #[wasm_bindgen(js_name = requestLength)]
    pub fn request_length(&self, id: u32) -> u32 {
        u32::try_from(self.inner.request_length(id)).unwrap_or(u32::MAX)
    }

    /// Counters and decisions, as JSON.
    pub fn metrics(&self) -> String {
        metrics_json(&self.inner.metrics())
    }

    /// Nodes and connections, as JSON.
    pub fn state(&self) -> String {
        let mut w = JsonWriter::new();
        w.open('{').key("protocolVersion").number(self.inner.protocol_version()).key("nodes").open('[');
        for n in self.inner.view().nodes() {
            w.open('{').key("id").number(n.id).key("address").string(&n.address);
            w.key("datacenter").string(&n.datacenter).key("rack").string(&n.rack).key("up").boolean(n.up);
            w.key("distance").string(n.distance.name()).key("tokens").number(n.tokens.len());
            w.key("releaseVersion").opt_string(n.release_version.as_deref());
            // host_id from system.local / system.peers, as its canonical UUID text (cqlwire's
            // form of a uuid; compat wraps it as DataStax's `Uuid`).
            let mut host_id = String::with_capacity(36);
            cqlwire_core::types::push_uuid(&n.host_id, &mut host_id);
            w.key("hostId").string(&host_id).close('}');
        }
        w.close(']').key("connections").open('[');
        for (id, address, in_flight, queued, orphans, ready) in self.inner.connection_states() {
            w.open('{').key("id").number(id).key("address").string(&address).key("inFlight").number(in_flight);
            w.key("queued").number(queued).key("orphans").number(orphans).key("ready").boolean(ready).close('}');
        }
        w.close(']').close('}');
        w.finish()
    }

    #[wasm_bindgen(js_name = protocolVersion)]
    pub fn protocol_version(&self) -> u8 {
        self.inner.protocol_version()
    }

    /// The ring as JSON `[[start, end, [replica addresses]], ...]`, tokens as decimal strings
    /// (they do not fit a JS number).
    #[wasm_bindgen(js_name = tokenRanges)]
    pub fn token_ranges(&self, keyspace: Option<String>) -> String {
        let mut w = JsonWriter::new();
        w.open('[');
        for (start, end, replicas) in self.inner.token_ranges(keyspace.as_deref()) {
            w.open('[').string(&start.to_string()).string(&end.to_string()).open('[');
            for replica in &replicas {
                w.string(replica);
            }
            w.close(']').close(']');
        }
        w.close(']');
        w.finish()
    }
}

/// This instance's `WebAssembly.Memory`, where the host reads and writes the staging area
/// and reads the bodies of [`EVENT_RESPONSE_AT`] events.
#[wasm_bindgen(js_name = wasmMemory)]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}

/// The first record of CSV input (`options`: JSON of delimiter, quote, escape, comment, trim,
/// maxRecordBytes), as JSON: `{status: "needMore" | "empty" | "record" | "fault", ...}`.
#[wasm_bindgen(js_name = csvHeader)]
pub fn csv_header(input: &[u8], options: &str, at_end: bool) -> Result<String, CallError> {
    use cqlwire_core::bulk::header::{read_header, HeaderOptions};
    let options = HeaderOptions::from_json(options).map_err(|e| js_error("ERR_CONFIG", e))?;
    let read = read_header(&options, input, at_end).map_err(|e| js_error("ERR_CONFIG", e))?;
    Ok(bulk_json::header_read_json(&read))
}

/// What a sample of an input is (`options`: JSON of the load's bulk options; at most
/// `max_records` records), as JSON of the core's `Sniffed`.
#[wasm_bindgen(js_name = sniffInput)]
pub fn sniff_input(input: &[u8], options: &str, max_records: u32, at_end: bool) -> Result<String, CallError> {
    use cqlwire_core::bulk::{sniff::sniff, BulkOptions};
    let options = BulkOptions::from_json(options).map_err(|e| js_error("ERR_CONFIG", e))?;
    let sniffed = sniff(input, options, max_records as usize, at_end).map_err(|e| js_error("ERR_CONFIG", e))?;
    Ok(bulk_json::sniffed_json(&sniffed))
}

/// The core's CSV formatter for result pages, set up once per stream (`Client.streamCsv`).
#[wasm_bindgen]
pub struct CsvPageFormatter {
    format: cqlwire_core::rows::CsvFormat,
    scratch: String,
}

#[wasm_bindgen]
impl CsvPageFormatter {
    /// `settings`: JSON of the core's `CsvFormatSettings` (delimiter, quote, escape,
    /// nullWord, header, collectionFormat, conversion); refused with ERR_CONFIG when they do not hold.
    #[wasm_bindgen(constructor)]
    pub fn new(settings: &str) -> Result<CsvPageFormatter, CallError> {
        let s = cqlwire_core::rows::CsvFormatSettings::from_json(settings).map_err(|e| js_error("ERR_CONFIG", e))?;
        let mut format = cqlwire_core::rows::CsvFormat::from_settings(&s).map_err(|e| js_error("ERR_CONFIG", e))?;
        // The header line comes apart in every page; the host decides where it goes.
        format.header = false;
        Ok(CsvPageFormatter { format, scratch: String::new() })
    }

    /// A Rows RESULT body (with metadata) as CSV, with its header line apart:
    /// `[rows u32 LE][paging state length u32 LE][paging state][header length u32 LE][header][csv]`.
    pub fn format(&mut self, body: &[u8]) -> Result<Vec<u8>, CallError> {
        let rows = cqlwire_core::rows::Rows::parse(body).map_err(protocol_error)?;
        let mut out = page_envelope(&rows, body.len());
        let at = out.len();
        out.extend_from_slice(&[0; 4]);
        cqlwire_core::rows::format_csv_header(&rows, &self.format, &mut out);
        let header_len = (out.len() - at - 4) as u32;
        out[at..at + 4].copy_from_slice(&header_len.to_le_bytes());
        cqlwire_core::rows::format_csv(&rows, &self.format, &mut self.scratch, &mut out).map_err(protocol_error)?;
        Ok(out)
    }
}

/// `[rows u32 LE][paging state length u32 LE][paging state]`, the start of every formatted page.
fn page_envelope(rows: &cqlwire_core::rows::Rows, body_len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(body_len + body_len / 2);
    out.extend_from_slice(&(rows.row_count as u32).to_le_bytes());
    let ps = rows.paging_state.unwrap_or(&[]);
    out.extend_from_slice(&(ps.len() as u32).to_le_bytes());
    out.extend_from_slice(ps);
    out
}

/// What a [`JsonPageFormatter`] writes for each row.
#[wasm_bindgen]
#[derive(Clone, Copy)]
pub enum JsonPageKind {
    /// One JSON object per row (`Client.streamJson`).
    Objects,
    /// One JSON array of the cells' CQL text per row (`Client.streamCells`).
    Cells,
}

/// The core's JSON formatters for result pages (`Client.streamJson`, `Client.streamCells`).
#[wasm_bindgen]
pub struct JsonPageFormatter {
    kind: JsonPageKind,
    options: cqlwire_core::types::TextOptions,
}

#[wasm_bindgen]
impl JsonPageFormatter {
    /// `settings`: JSON of the zone the timestamps are written in (`timeZone`, with the
    /// `timeZoneOffsets` of a named one); `{}` for UTC. Refused with ERR_CONFIG when it does not hold.
    #[wasm_bindgen(constructor)]
    pub fn new(kind: JsonPageKind, settings: &str) -> Result<JsonPageFormatter, CallError> {
        let options = cqlwire_core::rows::json_page_options(settings).map_err(|e| js_error("ERR_CONFIG", e))?;
        Ok(JsonPageFormatter { kind, options })
    }

    /// A Rows RESULT body (with metadata) as JSON lines, after the page's column names:
    /// `[rows u32 LE][paging state length u32 LE][paging state][names length u32 LE]
    /// [names: a JSON array][lines]`.
    pub fn format(&mut self, body: &[u8]) -> Result<Vec<u8>, CallError> {
        let rows = cqlwire_core::rows::Rows::parse(body).map_err(protocol_error)?;
        let mut names = String::new();
        cqlwire_core::rows::format_column_names(&rows, &mut names);
        let mut head = page_envelope(&rows, 0);
        head.extend_from_slice(&(names.len() as u32).to_le_bytes());
        head.extend_from_slice(names.as_bytes());
        // The lines go into the buffer that is returned, with room for the head, which then
        // goes in front of them in place: the page's text is not copied into a second buffer
        // (issue #17), and nothing of it stays here after the page.
        let mut text = String::with_capacity(head.len() + body.len() + body.len() / 2);
        match self.kind {
            JsonPageKind::Objects => cqlwire_core::rows::format_json_lines(&rows, &self.options, &mut text),
            JsonPageKind::Cells => cqlwire_core::rows::format_cell_lines(&rows, &self.options, &mut text),
        }
        .map_err(protocol_error)?;
        let mut out = text.into_bytes();
        let lines = out.len();
        out.resize(lines + head.len(), 0);
        out.copy_within(0..lines, head.len());
        out[..head.len()].copy_from_slice(&head);
        Ok(out)
    }
}

/// The JSON the driver reads, pinned: each writer's output equals what serde_json wrote for
/// the same value before (`JSON.parse` on the TypeScript side reads these keys and types).
#[cfg(test)]
mod json_shape_tests {
    use super::*;
    use cqlwire_core::cluster::RetryDecision;
    use cqlwire_core::connection::RequestError;
    use cqlwire_core::message::{ErrorDetails, ServerError};
    use cqlwire_core::session::NodeError;

    #[test]
    fn tried_is_errors_as_triples_and_the_speculative_count() {
        let overloaded = RequestError::Server(ServerError {
            code: 0x1001,
            code_name: "Overloaded",
            message: "Overloaded \"x\"\n".into(),
            details: ErrorDetails::None {},
        });
        let mut first = NodeError::new("10.0.0.1:9042".into(), &overloaded);
        (first.elapsed_us, first.decision) = (1500, Some(RetryDecision::RetryNextNode));
        let timeout = RequestError::Timeout { message: "timed out".into(), timeout_ms: 20 };
        let second = NodeError::new("10.0.0.2:9042".into(), &timeout);
        let tried = Tried { errors: vec![first, second], speculative_executions: 2, answered_in_us: 7 };
        assert_eq!(tried_json(&tried), serde_json::to_string(&tried).unwrap());
        assert_eq!(
            tried_json(&tried),
            concat!(
                r#"{"errors":[["10.0.0.1:9042","Overloaded (4097): Overloaded \"x\"\n",4097,"#,
                r#"{"kind":"server","code":4097,"name":"Overloaded","message":"Overloaded \"x\"\n","elapsed_us":1500,"decision":"retry"}],"#,
                r#"["10.0.0.2:9042","timed out",null,{"kind":"timeout","message":"timed out","timeout_ms":20,"elapsed_us":0,"decision":null}]],"#,
                r#""speculative_executions":2,"answered_in_us":7}"#
            )
        );
        assert_eq!(tried_json(&Tried::default()), r#"{"errors":[],"speculative_executions":0,"answered_in_us":0}"#);
    }

    #[test]
    fn metrics_keep_every_counter_and_u64_in_full() {
        let mut m = Metrics { requests: u64::MAX, connections_recycled: 3, ..Metrics::default() };
        m.decisions.insert("retry_next", 4);
        m.decisions.insert("ignore", 1);
        m.per_node.insert("[::1]:9042", 7);
        assert_eq!(metrics_json(&m), serde_json::to_string(&m).unwrap());
        assert_eq!(metrics_json(&Metrics::default()), serde_json::to_string(&Metrics::default()).unwrap());
    }

    #[test]
    fn auth_steps_as_the_driver_reads_them() {
        let start = AuthStep::Start { authenticator_class: "org.apache.cassandra.auth.PasswordAuthenticator".into() };
        assert_eq!(
            auth_json("h:9042", &start),
            r#"{"address":"h:9042","step":"start","authenticatorClass":"org.apache.cassandra.auth.PasswordAuthenticator","token":null}"#
        );
        let challenge = AuthStep::Challenge { token: Some(vec![0, 127, 255]) };
        assert_eq!(auth_json("h:9042", &challenge), r#"{"address":"h:9042","step":"challenge","authenticatorClass":null,"token":[0,127,255]}"#);
        let success = AuthStep::Success { token: None };
        assert_eq!(auth_json("h", &success), r#"{"address":"h","step":"success","authenticatorClass":null,"token":null}"#);
    }

    #[test]
    fn events_carry_their_json_after_kind_id_and_length() {
        let mut out = Vec::new();
        marshal_rare_event(&mut out, SessionEvent::NodeDown { address: "a:1".into(), reason: "eof \u{1}".into() });
        let json = br#"{"address":"a:1","reason":"eof \u0001"}"#;
        let mut expected = vec![EVENT_NODE_DOWN, 0, 0, 0, 0];
        expected.extend_from_slice(&(json.len() as u32).to_le_bytes());
        expected.extend_from_slice(json);
        assert_eq!(out, expected);
        let mut out = Vec::new();
        marshal_rare_event(&mut out, SessionEvent::Ready { protocol_version: 5 });
        assert_eq!(&out[9..], br#"{"protocolVersion":5}"#);
    }
}
