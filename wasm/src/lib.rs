//! The wasm-bindgen facade over `cqlwire-core`: marshalling only. See README.md for the
//! byte layouts that cross the boundary.

use cqlwire_core::connection::{Config, Connection, Credentials, Event, Request, RequestError};
use cqlwire_core::message::{BatchStatement, BatchType, QueryOptions};
use serde_json::Value;
use wasm_bindgen::prelude::*;

const EVENT_READY: u8 = 1;
const EVENT_RESPONSE: u8 = 2;
const EVENT_FAILED: u8 = 3;
const EVENT_SERVER: u8 = 4;
const EVENT_CLOSED: u8 = 5;

/// Microseconds arrive as f64 (exact up to 2^53 µs, ~285 years).
fn micros(now: f64) -> u64 {
    if now.is_finite() && now > 0.0 { now as u64 } else { 0 }
}

fn js_error(code: &str, message: impl std::fmt::Display) -> JsError {
    JsError::new(&format!("[{code}] {message}"))
}

#[wasm_bindgen]
pub struct WasmConnection {
    inner: Connection,
    transmit: Vec<u8>,
    events: Vec<u8>,
    batch_scratch: Vec<(u8, usize, usize, usize, usize)>,
}

fn parse_config(json: &str) -> Result<Config, JsError> {
    let v: Value = serde_json::from_str(json).map_err(|e| js_error("ERR_CONFIG", format!("connection config is not JSON: {e}")))?;
    let mut c = Config::default();
    let num = |k: &str| v.get(k).and_then(Value::as_f64);
    if let Some(p) = num("protocolVersion") {
        if p != 4.0 && p != 5.0 {
            return Err(js_error("ERR_CONFIG", format!("protocolVersion must be 4 or 5, got {p}")));
        }
        c.protocol_version = p as u8;
    }
    if let Some(k) = v.get("keyspace").and_then(Value::as_str) {
        c.keyspace = Some(k.to_owned());
    }
    if let Some(cr) = v.get("credentials") {
        let username = cr.get("username").and_then(Value::as_str).unwrap_or_default().to_owned();
        let password = cr.get("password").and_then(Value::as_str).unwrap_or_default().to_owned();
        c.credentials = Some(Credentials { username, password });
    }
    if let Some(n) = num("maxFrameBytes") {
        c.max_frame_bytes = n as u32;
    }
    if let Some(n) = num("maxStreams") {
        c.max_streams = (n as usize).clamp(2, cqlwire_core::connection::MAX_STREAMS);
    }
    if let Some(n) = num("requestTimeoutMs") {
        c.request_timeout_us = (n * 1000.0) as u64;
    }
    if let Some(n) = num("heartbeatIntervalMs") {
        c.heartbeat_interval_us = (n * 1000.0) as u64;
    }
    if let Some(n) = num("orphanLimit") {
        c.orphan_limit = n as usize;
    }
    Ok(c)
}

struct Descriptor<'a> {
    options: QueryOptions<'a>,
    timeout_us: Option<u64>,
}

fn le_u16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}
fn le_u32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}
fn le_i32(b: &[u8], at: usize) -> Option<i32> {
    Some(i32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}
fn le_i64(b: &[u8], at: usize) -> Option<i64> {
    Some(i64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

fn parse_options(b: &[u8]) -> Result<Descriptor<'_>, JsError> {
    let bad = || js_error("ERR_OPTIONS", "malformed request options descriptor");
    if b.is_empty() {
        return Ok(Descriptor { options: QueryOptions::default(), timeout_us: None });
    }
    let consistency = le_u16(b, 0).ok_or_else(bad)?;
    let serial = le_u16(b, 2).ok_or_else(bad)?;
    let page_size = le_i32(b, 4).ok_or_else(bad)?;
    let timestamp = le_i64(b, 8).ok_or_else(bad)?;
    let timeout_ms = le_u32(b, 16).ok_or_else(bad)?;
    let flags = le_u32(b, 20).ok_or_else(bad)?;
    let ps_len = le_u32(b, 24).ok_or_else(bad)? as usize;
    let paging_state = if ps_len > 0 { Some(b.get(28..28 + ps_len).ok_or_else(bad)?) } else { None };
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
            ..QueryOptions::default()
        },
        timeout_us: (timeout_ms > 0).then_some(timeout_ms as u64 * 1000),
    })
}

impl WasmConnection {
    fn push_event(&mut self, kind: u8, id: u32, payload: &[u8]) {
        self.events.push(kind);
        self.events.extend_from_slice(&id.to_le_bytes());
        self.events.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        self.events.extend_from_slice(payload);
    }

    fn push_json(&mut self, kind: u8, id: u32, value: &impl serde::Serialize) {
        let json = serde_json::to_vec(value).unwrap_or_else(|_| b"{\"kind\":\"local\",\"message\":\"unserialisable error\"}".to_vec());
        self.push_event(kind, id, &json);
    }

    fn submit(&mut self, now: f64, request: Request, timeout_us: Option<u64>) -> Result<u32, JsError> {
        self.inner.start_request(micros(now), request, timeout_us).map_err(|e| js_error("ERR_REQUEST", e))
    }
}

#[wasm_bindgen]
impl WasmConnection {
    #[wasm_bindgen(constructor)]
    pub fn new(config_json: &str) -> Result<WasmConnection, JsError> {
        Ok(WasmConnection {
            inner: Connection::new(parse_config(config_json)?),
            transmit: Vec::new(),
            events: Vec::new(),
            batch_scratch: Vec::new(),
        })
    }

    pub fn start(&mut self, now: f64) {
        self.inner.start(micros(now));
    }

    #[wasm_bindgen(js_name = handleBytes)]
    pub fn handle_bytes(&mut self, now: f64, chunk: &[u8]) {
        self.inner.handle_bytes(micros(now), chunk);
    }

    #[wasm_bindgen(js_name = handleEof)]
    pub fn handle_eof(&mut self, now: f64) {
        self.inner.handle_eof(micros(now));
    }

    #[wasm_bindgen(js_name = handleTimeout)]
    pub fn handle_timeout(&mut self, now: f64) {
        self.inner.handle_timeout(micros(now));
    }

    pub fn query(&mut self, now: f64, cql: &str, values: &[u8], options: &[u8]) -> Result<u32, JsError> {
        let d = parse_options(options)?;
        self.submit(now, Request::Query { cql, values, options: d.options }, d.timeout_us)
    }

    pub fn prepare(&mut self, now: f64, cql: &str, keyspace: Option<String>) -> Result<u32, JsError> {
        self.submit(now, Request::Prepare { cql, keyspace: keyspace.as_deref() }, None)
    }

    pub fn execute(&mut self, now: f64, prepared_id: &[u8], result_metadata_id: &[u8], values: &[u8], options: &[u8]) -> Result<u32, JsError> {
        let d = parse_options(options)?;
        let rmid = (!result_metadata_id.is_empty()).then_some(result_metadata_id);
        self.submit(now, Request::Execute { id: prepared_id, result_metadata_id: rmid, values, options: d.options }, d.timeout_us)
    }

    pub fn batch(&mut self, now: f64, desc: &[u8], options: &[u8]) -> Result<u32, JsError> {
        let bad = || js_error("ERR_BATCH", "malformed batch descriptor");
        let d = parse_options(options)?;
        let kind = match desc.first().ok_or_else(bad)? {
            0 => BatchType::Logged,
            1 => BatchType::Unlogged,
            2 => BatchType::Counter,
            k => return Err(js_error("ERR_BATCH", format!("unknown batch type {k}"))),
        };
        let n = le_u16(desc, 1).ok_or_else(bad)? as usize;
        self.batch_scratch.clear();
        let mut at = 3;
        for _ in 0..n {
            let stmt_kind = *desc.get(at).ok_or_else(bad)?;
            let len = le_u32(desc, at + 1).ok_or_else(bad)? as usize;
            let body = at + 5;
            let vlen_at = body.checked_add(len).ok_or_else(bad)?;
            let vlen = le_u32(desc, vlen_at).ok_or_else(bad)? as usize;
            let vstart = vlen_at + 4;
            if desc.len() < vstart + vlen {
                return Err(bad());
            }
            self.batch_scratch.push((stmt_kind, body, len, vstart, vlen));
            at = vstart + vlen;
        }
        let mut statements = Vec::with_capacity(n);
        for &(k, body, len, vstart, vlen) in &self.batch_scratch {
            let values = &desc[vstart..vstart + vlen];
            statements.push(match k {
                0 => BatchStatement::Query {
                    cql: std::str::from_utf8(&desc[body..body + len]).map_err(|_| js_error("ERR_BATCH", "batch statement is not UTF-8"))?,
                    values,
                },
                _ => BatchStatement::Prepared { id: &desc[body..body + len], values },
            });
        }
        let r = self.inner.start_request(micros(now), Request::Batch { kind, statements: &statements, options: d.options }, d.timeout_us);
        r.map_err(|e| js_error("ERR_REQUEST", e))
    }

    pub fn register(&mut self, now: f64, event_types_csv: &str) -> Result<u32, JsError> {
        let events: Vec<&str> = event_types_csv.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
        self.submit(now, Request::Register { events: &events }, None)
    }

    pub fn cancel(&mut self, now: f64, id: u32) {
        self.inner.cancel(micros(now), id);
    }

    /// Every pending output byte, copied out once; empty when nothing waits.
    #[wasm_bindgen(js_name = pollTransmit)]
    pub fn poll_transmit(&mut self) -> Vec<u8> {
        self.transmit.clear();
        self.inner.poll_transmit(&mut self.transmit);
        std::mem::take(&mut self.transmit)
    }

    #[wasm_bindgen(js_name = pollTimeout)]
    pub fn poll_timeout(&self) -> f64 {
        self.inner.poll_timeout().map(|t| t as f64).unwrap_or(-1.0)
    }

    /// Every pending event, packed: `[kind u8][request id u32 LE][len u32 LE][payload]`.
    #[wasm_bindgen(js_name = pollEvents)]
    pub fn poll_events(&mut self) -> Vec<u8> {
        let mut events = std::mem::take(&mut self.events);
        events.clear();
        self.events = events;
        while let Some(ev) = self.inner.poll_event() {
            match ev {
                Event::Ready { protocol_version } => {
                    let json = format!("{{\"protocolVersion\":{protocol_version}}}");
                    let (k, j) = (EVENT_READY, json);
                    self.events.push(k);
                    self.events.extend_from_slice(&0u32.to_le_bytes());
                    self.events.extend_from_slice(&(j.len() as u32).to_le_bytes());
                    self.events.extend_from_slice(j.as_bytes());
                }
                Event::Response { id, frame_flags, body } => {
                    self.events.push(EVENT_RESPONSE);
                    self.events.extend_from_slice(&id.to_le_bytes());
                    self.events.extend_from_slice(&((body.len() + 1) as u32).to_le_bytes());
                    self.events.push(frame_flags);
                    self.events.extend_from_slice(body);
                }
                Event::Failed { id, error } => {
                    let error: RequestError = error;
                    self.push_json(EVENT_FAILED, id, &error);
                }
                Event::ServerEvent(e) => self.push_json(EVENT_SERVER, 0, &e),
                Event::Closed(r) => self.push_json(EVENT_CLOSED, 0, &r),
            }
        }
        std::mem::take(&mut self.events)
    }

    #[wasm_bindgen(js_name = inFlight)]
    pub fn in_flight(&self) -> u32 {
        self.inner.in_flight() as u32
    }
    pub fn queued(&self) -> u32 {
        self.inner.queued() as u32
    }
    pub fn orphans(&self) -> u32 {
        self.inner.orphans() as u32
    }
    pub fn state(&self) -> String {
        format!("{:?}", self.inner.state()).to_lowercase()
    }
    #[wasm_bindgen(js_name = protocolVersion)]
    pub fn protocol_version(&self) -> u8 {
        self.inner.protocol_version()
    }
}
