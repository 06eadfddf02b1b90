//! The core's hot paths, one operation per call of a `measured_*` function:
//!
//! - `encode`: a prepared INSERT (bigint, 32-byte blob; the values already encoded, as the
//!   host hands them over) as an EXECUTE frame, through `Connection::start_request` on a ready
//!   v4 connection, drained with `poll_transmit`;
//! - `decode`: a one-row Rows response to the SELECT fed to `Connection::handle_bytes`, taken
//!   with `poll_event` and validated with `RowsValidator` against the prepared columns;
//! - `route`: the token of the bound key and the first node of `ClusterView::plan_for` on a
//!   12-node, 2-datacenter view;
//! - `session`: the whole session-level path of that INSERT (`session_op.rs`): start, transmit,
//!   answer, event, in bursts of 64 requests; the figure is per request;
//! - `session1`: the same INSERT one request at a time, with what the wasm facade asks the
//!   session per round trip at 1 in flight (pending outputs, next deadline, drained release).
//!
//! `cqlwire-hotpath OP ITERATIONS` runs OP that many times (after as many warm-up calls) and
//! prints `{"op":…,"iterations":…,"allocations_per_op":…,"bytes_allocated_per_op":…}`, counted
//! by a counting allocator over the measured calls. bench/run counts instructions by running
//! it under `valgrind --tool=callgrind --toggle-collect=*measured_OP*`: the collected count
//! divided by the number of calls (2 × ITERATIONS) is the figure per operation.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

use cqlwire_core::cluster::{murmur3_token, ClusterView, KeyspaceRow, PeerRow, PolicyConfig, SplitMix64};
use cqlwire_core::connection::{Config, Connection, Event, Request, State};
use cqlwire_core::message::QueryOptions;
use cqlwire_core::types::{ColumnType, RowsValidator};
use cqlwire_core::wire::Reader;

mod session_op;

struct CountingAllocator;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

const OP_OPTIONS: u8 = 0x05;
const OP_STARTUP: u8 = 0x01;
const OP_REGISTER: u8 = 0x0B;
const OP_READY: u8 = 0x02;
const OP_SUPPORTED: u8 = 0x06;
const OP_RESULT: u8 = 0x08;
const PREPARED_ID: [u8; 16] = *b"hotpath-prepared";

fn response_frame(stream: [u8; 2], opcode: u8, body: &[u8]) -> Vec<u8> {
    let mut frame = vec![0x84, 0, stream[0], stream[1], opcode];
    frame.extend_from_slice(&(body.len() as u32).to_be_bytes());
    frame.extend_from_slice(body);
    frame
}

/// A connection past its handshake, answered by a scripted server.
fn ready_connection() -> Connection {
    let mut conn = Connection::new(Config::default());
    conn.start(0);
    let mut out = Vec::new();
    for _ in 0..8 {
        out.clear();
        conn.poll_transmit(&mut out);
        let mut at = 0;
        while at + 9 <= out.len() {
            let stream = [out[at + 2], out[at + 3]];
            let opcode = out[at + 4];
            let len = u32::from_be_bytes([out[at + 5], out[at + 6], out[at + 7], out[at + 8]]) as usize;
            let reply = match opcode {
                OP_OPTIONS => response_frame(stream, OP_SUPPORTED, &[0, 0]),
                OP_STARTUP | OP_REGISTER => response_frame(stream, OP_READY, &[]),
                other => panic!("unexpected handshake opcode 0x{other:02x}"),
            };
            conn.handle_bytes(0, &reply);
            at += 9 + len;
        }
        while conn.poll_event().is_some() {}
        if conn.state() == State::Ready {
            return conn;
        }
    }
    panic!("the connection did not become ready: {:?}", conn.state());
}

/// `[n][bytes]…` for (bigint k, 32-byte blob), as the host encodes bound values.
fn insert_values(k: i64, out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(&2u16.to_be_bytes());
    out.extend_from_slice(&8i32.to_be_bytes());
    out.extend_from_slice(&k.to_be_bytes());
    out.extend_from_slice(&32i32.to_be_bytes());
    out.extend_from_slice(&[0xab; 32]);
}

struct EncodeBench {
    conn: Connection,
    values: Vec<u8>,
    transmit: Vec<u8>,
}

/// `b.values` holds the bound values already (the host encodes them).
#[inline(never)]
fn measured_encode(b: &mut EncodeBench) -> [u8; 2] {
    let options = QueryOptions { consistency: Some(1), ..QueryOptions::default() };
    let request = Request::Execute { id: &PREPARED_ID, result_metadata_id: None, values: &b.values, options };
    b.conn.start_request(1, request, None).expect("start_request");
    b.transmit.clear();
    b.conn.poll_transmit(&mut b.transmit);
    [b.transmit[2], b.transmit[3]]
}

/// Completes the request with a Void result, so its stream id is free again (not measured).
fn complete_void(conn: &mut Connection, stream: [u8; 2]) {
    conn.handle_bytes(2, &response_frame(stream, OP_RESULT, &1i32.to_be_bytes()));
    while conn.poll_event().is_some() {}
}

fn rows_response(stream: [u8; 2], k: i64) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&2i32.to_be_bytes()); // Rows
    body.extend_from_slice(&4i32.to_be_bytes()); // NO_METADATA: the driver asked to skip it
    body.extend_from_slice(&2i32.to_be_bytes()); // columns
    body.extend_from_slice(&1i32.to_be_bytes()); // rows
    body.extend_from_slice(&8i32.to_be_bytes());
    body.extend_from_slice(&k.to_be_bytes());
    body.extend_from_slice(&32i32.to_be_bytes());
    body.extend_from_slice(&[0xab; 32]);
    response_frame(stream, OP_RESULT, &body)
}

#[inline(never)]
fn measured_decode(conn: &mut Connection, validator: &RowsValidator, frame: &[u8]) -> usize {
    conn.handle_bytes(3, frame);
    let mut rows = 0;
    while let Some(event) = conn.poll_event() {
        if let Event::Response { body, .. } = event {
            let mut r = Reader::new(body);
            let kind = r.i32("kind").expect("kind");
            let flags = r.i32("flags").expect("flags");
            let columns = r.i32("columns").expect("columns");
            assert!(kind == 2 && flags == 4 && columns == 2);
            rows = validator.validate(&mut r).expect("a valid page");
        }
    }
    rows
}

/// Starts a SELECT so a response can be decoded on its stream (not measured).
fn start_select(conn: &mut Connection, values: &mut Vec<u8>, transmit: &mut Vec<u8>, k: i64) -> [u8; 2] {
    values.clear();
    values.extend_from_slice(&1u16.to_be_bytes());
    values.extend_from_slice(&8i32.to_be_bytes());
    values.extend_from_slice(&k.to_be_bytes());
    let options = QueryOptions { consistency: Some(1), skip_metadata: true, ..QueryOptions::default() };
    let request = Request::Execute { id: &PREPARED_ID, result_metadata_id: None, values, options };
    conn.start_request(1, request, None).expect("start_request");
    transmit.clear();
    conn.poll_transmit(transmit);
    [transmit[2], transmit[3]]
}

/// 12 nodes in 2 datacenters × 2 racks, 16 vnodes each, `bench` replicated 3 + 2.
fn warm_view() -> ClusterView {
    let mut rng = SplitMix64::new(2024);
    let rows: Vec<PeerRow> = (0..12u8)
        .map(|i| PeerRow {
            rpc_address: Some(format!("10.0.{}.{}", i % 2, i + 1)),
            data_center: Some(format!("dc{}", i % 2 + 1)),
            rack: Some(format!("r{}", i / 2 % 2 + 1)),
            tokens: (0..16).map(|_| (rng.next_u64() as i64).to_string()).collect(),
            host_id: Some([i + 1; 16]),
            ..PeerRow::default()
        })
        .collect();
    let config = PolicyConfig { local_rack: Some("r1".into()), allow_remote_dcs: true, ..PolicyConfig::default() };
    let mut view = ClusterView::new(config);
    view.apply_topology("10.0.0.1:9042", &rows[0], &rows[1..], 9042);
    let replication = [("class", "NetworkTopologyStrategy"), ("dc1", "3"), ("dc2", "2")]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    view.apply_keyspaces(&[KeyspaceRow { keyspace_name: "bench".into(), replication }]);
    view
}

#[inline(never)]
fn measured_route(view: &ClusterView, k: i64, rotation: u32) -> Option<u32> {
    let token = murmur3_token(&k.to_be_bytes());
    view.plan_for(Some("bench"), Some(token), rotation).next().map(|node| node.id)
}

fn counted<T>(f: impl FnOnce() -> T) -> (u64, u64, T) {
    let (a, b) = (ALLOCATIONS.load(Ordering::Relaxed), BYTES.load(Ordering::Relaxed));
    let value = f();
    (ALLOCATIONS.load(Ordering::Relaxed) - a, BYTES.load(Ordering::Relaxed) - b, value)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (op, iterations) = match args.as_slice() {
        [op, n] => (op.as_str(), n.parse::<u64>().unwrap_or_else(|e| panic!("bad ITERATIONS {n:?}: {e}"))),
        _ => {
            eprintln!("usage: cqlwire-hotpath encode|decode|route|session|session1 ITERATIONS");
            std::process::exit(2);
        }
    };
    // The same number of calls warms up and is measured: callgrind counts every call.
    let (allocations, bytes) = match op {
        "encode" => {
            let mut b = EncodeBench { conn: ready_connection(), values: Vec::new(), transmit: Vec::new() };
            let run = |b: &mut EncodeBench, from: u64| {
                let mut allocations = (0, 0);
                for k in from..from + iterations {
                    insert_values(k as i64, &mut b.values);
                    let (a, by, stream) = counted(|| measured_encode(b));
                    allocations = (allocations.0 + a, allocations.1 + by);
                    complete_void(&mut b.conn, stream);
                }
                allocations
            };
            run(&mut b, 0);
            run(&mut b, iterations)
        }
        "decode" => {
            let mut conn = ready_connection();
            let columns = [ColumnType::Bigint, ColumnType::Blob];
            let validator = RowsValidator::new(&columns);
            let (mut values, mut transmit) = (Vec::new(), Vec::new());
            let mut run = |from: u64| {
                let mut allocations = (0, 0);
                for k in from..from + iterations {
                    let stream = start_select(&mut conn, &mut values, &mut transmit, k as i64);
                    let frame = rows_response(stream, k as i64);
                    let (a, by, rows) = counted(|| measured_decode(&mut conn, &validator, &frame));
                    assert_eq!(rows, 1);
                    allocations = (allocations.0 + a, allocations.1 + by);
                }
                allocations
            };
            run(0);
            run(iterations)
        }
        "route" => {
            let view = warm_view();
            let run = |from: u64| {
                let mut allocations = (0, 0);
                for k in from..from + iterations {
                    let (a, by, node) = counted(|| measured_route(&view, k as i64, k as u32));
                    black_box(node.expect("a live node"));
                    allocations = (allocations.0 + a, allocations.1 + by);
                }
                allocations
            };
            run(0);
            run(iterations)
        }
        "session" => {
            let mut b = session_op::SessionBench::new();
            let mut run = |from: u64| {
                let mut allocations = (0, 0);
                for k in (from..from + iterations).step_by(session_op::BURST as usize) {
                    let n = session_op::BURST.min(from + iterations - k);
                    let (a, by, ()) = counted(|| b.burst(k, n));
                    allocations = (allocations.0 + a, allocations.1 + by);
                }
                allocations
            };
            run(0);
            run(iterations)
        }
        "session1" => {
            let mut b = session_op::SessionBench::new();
            let mut run = |from: u64| {
                let mut allocations = (0, 0);
                for k in from..from + iterations {
                    let (a, by, ()) = counted(|| b.round_trip(k));
                    allocations = (allocations.0 + a, allocations.1 + by);
                }
                allocations
            };
            run(0);
            run(iterations)
        }
        other => {
            eprintln!("unknown op {other}: expected encode, decode, route, session or session1");
            std::process::exit(2);
        }
    };
    println!(
        "{{\"op\":\"{op}\",\"iterations\":{iterations},\"allocations_per_op\":{},\"bytes_allocated_per_op\":{}}}",
        allocations as f64 / iterations as f64,
        bytes as f64 / iterations as f64
    );
}
