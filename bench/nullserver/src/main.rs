//! A null CQL server for client benchmarks: protocol v4, one thread, no storage.
//!
//! It answers the handshake, the system-table queries drivers make when they connect
//! (`system.local` with one row; `system.peers`, `system.peers_v2` and `system_schema.*`
//! empty, except that the Scylla personality describes the benchmark's tables: see
//! `schema.rs`), PREPARE and EXECUTE for statements on its catalog's tables, and gives Void
//! for writes and one row for selects on the benchmark's tables. Everything it sends in answer to one readiness event of a
//! connection goes out in one write, so the server's own syscalls stay far below one per
//! request and the client is what a benchmark measures.
//!
//! Usage: `cqlwire-nullserver [HOST:PORT] [--scylla-shards N [--scylla-shard-port P]
//! [--scylla-nat] [--scylla-rate-limit-every K] [--scylla-tablets] [--scylla-warmup K]]` (default 127.0.0.1:9043). It prints
//! `listening on ADDR` once ready and runs until killed. Whenever a connection closes it prints
//! one JSON line with its own totals so far: connections, requests answered, read and write
//! syscalls, and the CPU time (user + sys) it has used; with the Scylla personality
//! (see `scylla.rs`) also which shards served the EXECUTEs.

mod catalog;
mod query;
mod schema;
mod scylla;

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::SocketAddr;

use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token};

use catalog::{CqlType, Table};
use cqlwire_core::cluster::routing_token;
use query::Statement;

const LISTENER: Token = Token(usize::MAX);
const SHARD_LISTENER: Token = Token(usize::MAX - 1);

const OP_ERROR: u8 = 0x00;
const OP_STARTUP: u8 = 0x01;
const OP_READY: u8 = 0x02;
const OP_OPTIONS: u8 = 0x05;
const OP_SUPPORTED: u8 = 0x06;
const OP_QUERY: u8 = 0x07;
const OP_RESULT: u8 = 0x08;
const OP_PREPARE: u8 = 0x09;
const OP_EXECUTE: u8 = 0x0A;
const OP_REGISTER: u8 = 0x0B;
const OP_BATCH: u8 = 0x0D;
const OP_AUTH_RESPONSE: u8 = 0x0F;
const OP_AUTH_SUCCESS: u8 = 0x10;

const ERR_PROTOCOL: i32 = 0x000A;
const ERR_INVALID: i32 = 0x2200;
const ERR_UNPREPARED: i32 = 0x2500;

const RESULT_VOID: i32 = 1;
const RESULT_ROWS: i32 = 2;
const RESULT_SET_KEYSPACE: i32 = 3;
const RESULT_PREPARED: i32 = 4;

const ROWS_GLOBAL_TABLES_SPEC: i32 = 0x0001;
const ROWS_NO_METADATA: i32 = 0x0004;

const EXECUTE_FLAG_VALUES: u8 = 0x01;
const EXECUTE_FLAG_SKIP_METADATA: u8 = 0x02;
const EXECUTE_FLAG_NAMES_FOR_VALUES: u8 = 0x40;

const HEADER_LEN: usize = 9;
const SUPPORTED_VERSION: u8 = 4;
/// Frame flag: a custom payload precedes the body (the Scylla personality's tablets).
const FLAG_CUSTOM_PAYLOAD: u8 = 0x04;
/// A frame body longer than this closes the connection: no benchmark sends one.
const MAX_BODY_LEN: usize = 64 * 1024 * 1024;
const READ_CHUNK: usize = 256 * 1024;
/// Past this much unsent output a connection stops reading until the client drains it.
const OUTPUT_HIGH_WATER: usize = 8 * 1024 * 1024;
const PREPARED_ID_MAGIC: [u8; 8] = *b"nullsrv\x01";

/// A prepared statement's answers, built once at PREPARE so EXECUTE only copies bytes.
struct Prepared {
    id: [u8; 16],
    /// The body of the RESULT Prepared message.
    prepared_body: Vec<u8>,
    reply: PreparedReply,
    /// Which bound values make the partition key, in key order (empty: not routable).
    pk_indexes: Vec<usize>,
}

enum PreparedReply {
    Void,
    /// A system table's rows (`schema.rs`), kept where each `WHERE column = ?` (or `IN ?`)
    /// bind matches: drivers read their metadata through prepared statements too.
    SystemRows {
        table: &'static Table,
        columns: Vec<(&'static str, CqlType)>,
        binds: Vec<query::Bind>,
    },
    /// One row. Each result column either echoes a bound value or is a fixed filler.
    OneRow {
        prefix_with_metadata: Vec<u8>,
        prefix_without_metadata: Vec<u8>,
        cells: Vec<Cell>,
    },
}

enum Cell {
    Bound(usize),
    Fixed(Vec<u8>),
}

#[derive(Default)]
struct Totals {
    connections: u64,
    requests: u64,
    reads: u64,
    writes: u64,
}

struct Server {
    totals: Totals,
    prepared: Vec<Prepared>,
    prepared_by_text: HashMap<(Option<String>, String), usize>,
    /// Bound values of the EXECUTE being answered, as (start, end) into its frame; reused.
    bound: Vec<Option<(usize, usize)>>,
    scylla: scylla::Personality,
}

struct Conn {
    stream: TcpStream,
    local_addr: SocketAddr,
    input: Vec<u8>,
    input_start: usize,
    input_end: usize,
    output: Vec<u8>,
    output_sent: usize,
    keyspace: Option<String>,
    reading_paused: bool,
    /// The Scylla shard serving it (0 without the Scylla personality).
    shard: u16,
}

fn main() {
    let (addr, scylla) = match parse_args(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("nullserver: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = serve(addr, scylla) {
        eprintln!("nullserver: {e}");
        std::process::exit(1);
    }
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<(SocketAddr, scylla::Options), String> {
    let mut addr_text = "127.0.0.1:9043".to_owned();
    let mut o = scylla::Options::default();
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--scylla-shards" => o.shards = value(&a)?.parse().map_err(|e| format!("--scylla-shards: {e}"))?,
            "--scylla-shard-port" => o.shard_port = Some(value(&a)?.parse().map_err(|e| format!("--scylla-shard-port: {e}"))?),
            "--scylla-rate-limit-every" => {
                o.rate_limit_every = value(&a)?.parse().map_err(|e| format!("--scylla-rate-limit-every: {e}"))?
            }
            "--scylla-warmup" => o.warmup = value(&a)?.parse().map_err(|e| format!("--scylla-warmup: {e}"))?,
            "--scylla-nat" => o.nat = true,
            "--scylla-tablets" => o.tablets = true,
            _ if !a.starts_with("--") => addr_text = a,
            _ => return Err(format!("unknown option {a}")),
        }
    }
    let addr = addr_text.parse().map_err(|e| format!("bad listen address {addr_text:?}: {e}"))?;
    Ok((addr, o))
}

fn serve(addr: SocketAddr, mut scylla: scylla::Options) -> io::Result<()> {
    let mut poll = Poll::new()?;
    let mut listener = TcpListener::bind(addr)?;
    poll.registry().register(&mut listener, LISTENER, Interest::READABLE)?;
    println!("listening on {}", listener.local_addr()?);
    let mut shard_listener = match scylla.shard_port {
        Some(p) if scylla.shards > 0 => {
            let mut l = TcpListener::bind(SocketAddr::new(addr.ip(), p))?;
            poll.registry().register(&mut l, SHARD_LISTENER, Interest::READABLE)?;
            // Port 0 takes a free one: SUPPORTED then tells the one taken.
            scylla.shard_port = Some(l.local_addr()?.port());
            println!("shard-aware port on {}", l.local_addr()?);
            Some(l)
        }
        _ => None,
    };
    io::stdout().flush()?;

    let mut server = Server {
        totals: Totals::default(),
        prepared: Vec::new(),
        prepared_by_text: HashMap::new(),
        bound: Vec::new(),
        scylla: scylla::Personality::new(scylla),
    };
    let mut conns: Vec<Option<Conn>> = Vec::new();
    let mut events = Events::with_capacity(1024);
    loop {
        if let Err(e) = poll.poll(&mut events, None) {
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        for event in events.iter() {
            if event.token() == LISTENER {
                server.totals.connections += accept_all(&poll, &listener, false, &mut server.scylla, &mut conns)?;
                continue;
            }
            if let (SHARD_LISTENER, Some(l)) = (event.token(), shard_listener.as_mut()) {
                server.totals.connections += accept_all(&poll, l, true, &mut server.scylla, &mut conns)?;
                continue;
            }
            let slot = event.token().0;
            let Some(Some(conn)) = conns.get_mut(slot) else { continue };
            let mut alive = true;
            if event.is_writable() {
                alive = flush(&mut server.totals, conn);
                if alive && conn.reading_paused && conn.output.len() - conn.output_sent < OUTPUT_HIGH_WATER {
                    alive = service(&mut server, conn);
                }
            }
            if alive && (event.is_readable() || event.is_read_closed()) {
                alive = service(&mut server, conn);
            }
            if !alive {
                if let Some(mut dead) = conns[slot].take() {
                    let _ = poll.registry().deregister(&mut dead.stream);
                }
                report_totals(&server.totals, &server.scylla);
            }
        }
    }
}

/// Accepts every pending connection; returns how many.
fn accept_all(
    poll: &Poll,
    listener: &TcpListener,
    shard_aware: bool,
    scylla: &mut scylla::Personality,
    conns: &mut Vec<Option<Conn>>,
) -> io::Result<u64> {
    let mut accepted = 0;
    loop {
        let (mut stream, peer) = match listener.accept() {
            Ok(pair) => pair,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(accepted),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                eprintln!("nullserver: accept failed: {e}");
                return Ok(accepted);
            }
        };
        accepted += 1;
        stream.set_nodelay(true)?;
        let local_addr = stream.local_addr()?;
        let slot = conns.iter().position(Option::is_none).unwrap_or_else(|| {
            conns.push(None);
            conns.len() - 1
        });
        // Edge-triggered: registering for both once means no re-registration per write.
        poll.registry().register(&mut stream, Token(slot), Interest::READABLE | Interest::WRITABLE)?;
        conns[slot] = Some(Conn {
            stream,
            local_addr,
            input: vec![0; READ_CHUNK * 2],
            input_start: 0,
            input_end: 0,
            output: Vec::with_capacity(READ_CHUNK),
            output_sent: 0,
            keyspace: None,
            reading_paused: false,
            shard: if scylla.enabled() { scylla.assign(shard_aware.then_some(peer.port())) } else { 0 },
        });
    }
}

/// Reads everything available, answers every complete frame, then writes once.
/// Returns false when the connection is finished.
fn service(server: &mut Server, conn: &mut Conn) -> bool {
    conn.reading_paused = false;
    loop {
        if conn.output.len() - conn.output_sent >= OUTPUT_HIGH_WATER {
            conn.reading_paused = true;
            break;
        }
        if conn.input_start == conn.input_end {
            conn.input_start = 0;
            conn.input_end = 0;
        } else if conn.input.len() - conn.input_end < READ_CHUNK / 4 && conn.input_start > 0 {
            conn.input.copy_within(conn.input_start..conn.input_end, 0);
            conn.input_end -= conn.input_start;
            conn.input_start = 0;
        }
        if conn.input.len() - conn.input_end < READ_CHUNK / 4 {
            let grown = conn.input.len() * 2;
            conn.input.resize(grown, 0);
        }
        server.totals.reads += 1;
        match conn.stream.read(&mut conn.input[conn.input_end..]) {
            Ok(0) => return false,
            Ok(n) => {
                conn.input_end += n;
                if !answer_frames(server, conn) {
                    let _ = flush(&mut server.totals, conn);
                    return false;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return false,
        }
    }
    flush(&mut server.totals, conn)
}

/// Writes pending output; false when the peer is gone.
fn flush(totals: &mut Totals, conn: &mut Conn) -> bool {
    while conn.output_sent < conn.output.len() {
        totals.writes += 1;
        match conn.stream.write(&conn.output[conn.output_sent..]) {
            Ok(0) => return false,
            Ok(n) => conn.output_sent += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return false,
        }
    }
    conn.output.clear();
    conn.output_sent = 0;
    true
}

/// Answers each complete frame in the input buffer; false on a frame that ends the connection.
fn answer_frames(server: &mut Server, conn: &mut Conn) -> bool {
    while conn.input_end - conn.input_start >= HEADER_LEN {
        let header = &conn.input[conn.input_start..conn.input_start + HEADER_LEN];
        let version = header[0] & 0x7f;
        let flags = header[1];
        let stream = i16::from_be_bytes([header[2], header[3]]);
        let opcode = header[4];
        let body_len = u32::from_be_bytes([header[5], header[6], header[7], header[8]]) as usize;
        if version != SUPPORTED_VERSION {
            let message = format!(
                "Invalid or unsupported protocol version ({version}); the lowest supported version is 4 and the greatest is 4"
            );
            write_error(&mut conn.output, stream, ERR_PROTOCOL, &message);
            // Cassandra keeps the connection open so the driver can retry with a lower version.
            conn.input_start = conn.input_end;
            return true;
        }
        if body_len > MAX_BODY_LEN {
            write_error(&mut conn.output, stream, ERR_PROTOCOL, "frame body too long for the null server");
            return false;
        }
        let frame_end = conn.input_start + HEADER_LEN + body_len;
        if frame_end > conn.input_end {
            if frame_end - conn.input_start > conn.input.len() {
                let needed = (frame_end - conn.input_start).next_power_of_two().max(conn.input.len() * 2);
                conn.input.resize(needed, 0);
            }
            return true;
        }
        let body_start = conn.input_start + HEADER_LEN;
        conn.input_start = frame_end;
        server.totals.requests += 1;
        if flags & 0x01 != 0 {
            write_error(&mut conn.output, stream, ERR_PROTOCOL, "the null server does not support compression");
            continue;
        }
        let Conn { input, output, keyspace, local_addr, shard, .. } = conn;
        let body = &input[body_start..frame_end];
        answer(server, output, keyspace, (*local_addr, *shard), stream, opcode, body);
    }
    true
}

/// One JSON line of the server's totals so far, with its own CPU time.
fn report_totals(t: &Totals, scylla: &scylla::Personality) {
    // SAFETY: getrusage only writes the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let micros = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000 + tv.tv_usec as u64;
    let scylla = if scylla.enabled() { format!(",\"scylla\":{}", scylla.report()) } else { String::new() };
    println!(
        "{{\"connections\":{},\"requests\":{},\"reads\":{},\"writes\":{},\"cpu_us\":{}{scylla}}}",
        t.connections,
        t.requests,
        t.reads,
        t.writes,
        micros(usage.ru_utime) + micros(usage.ru_stime)
    );
    let _ = io::stdout().flush();
}

fn answer(
    server: &mut Server,
    out: &mut Vec<u8>,
    keyspace: &mut Option<String>,
    (local_addr, shard): (SocketAddr, u16),
    stream: i16,
    opcode: u8,
    body: &[u8],
) {
    match opcode {
        OP_EXECUTE => answer_execute(server, out, (local_addr, shard), stream, body),
        OP_STARTUP | OP_REGISTER => {
            let start = begin_frame(out, stream, OP_READY);
            end_frame(out, start);
        }
        OP_OPTIONS => {
            let start = begin_frame(out, stream, OP_SUPPORTED);
            let mut supported: Vec<(&str, Vec<String>)> = vec![
                ("CQL_VERSION", vec!["3.4.7".to_owned()]),
                ("COMPRESSION", vec![]),
                ("PROTOCOL_VERSIONS", vec!["4/v4".to_owned()]),
            ];
            if server.scylla.enabled() {
                supported.extend(server.scylla.supported(shard));
            }
            put_u16(out, supported.len() as u16);
            for (key, values) in &supported {
                put_string(out, key);
                put_u16(out, values.len() as u16);
                for v in values {
                    put_string(out, v);
                }
            }
            end_frame(out, start);
        }
        OP_AUTH_RESPONSE => {
            let start = begin_frame(out, stream, OP_AUTH_SUCCESS);
            put_i32(out, -1);
            end_frame(out, start);
        }
        OP_QUERY => match read_long_string(body, 0) {
            Some((text, next)) => {
                let ctx = schema_context(&server.scylla, local_addr);
                answer_query(out, &mut server.bound, keyspace, ctx, stream, (text, &body[next..]))
            }
            None => write_error(out, stream, ERR_PROTOCOL, "QUERY body too short for its query string"),
        },
        OP_PREPARE => match read_long_string(body, 0) {
            Some((text, _)) => answer_prepare(server, out, keyspace.as_deref(), stream, text),
            None => write_error(out, stream, ERR_PROTOCOL, "PREPARE body too short for its query string"),
        },
        OP_BATCH => answer_batch(server, out, stream, body),
        _ => write_error(out, stream, ERR_PROTOCOL, &format!("the null server does not handle opcode 0x{opcode:02x}")),
    }
}

fn answer_execute(server: &mut Server, out: &mut Vec<u8>, (local_addr, shard): (SocketAddr, u16), stream: i16, body: &[u8]) {
    let Some((id, at)) = read_short_bytes(body, 0) else {
        return write_error(out, stream, ERR_PROTOCOL, "EXECUTE body too short for the statement id");
    };
    let Some(prepared) = lookup_prepared(&server.prepared, id) else {
        let start = begin_frame(out, stream, OP_ERROR);
        put_i32(out, ERR_UNPREPARED);
        put_string(out, "unknown prepared statement id");
        put_u16(out, id.len() as u16);
        out.extend_from_slice(id);
        return end_frame(out, start);
    };
    let scylla = server.scylla.enabled();
    if !scylla && matches!(prepared.reply, PreparedReply::Void) {
        return write_void(out, stream);
    }
    let flags = match read_values(body, at, &mut server.bound) {
        Ok(flags) => flags,
        Err(message) => return write_error(out, stream, ERR_PROTOCOL, message),
    };
    // A driver's metadata read: answered, but neither counted nor rate-limited as a request.
    if let PreparedReply::SystemRows { table, columns, binds } = &prepared.reply {
        let rows = matching_rows(table, schema_context(&server.scylla, local_addr), binds, &server.bound, body);
        return write_rows(out, stream, (table, columns), &rows, flags & EXECUTE_FLAG_SKIP_METADATA != 0);
    }
    let mut tablet_payload = None;
    if scylla {
        let key: Option<Vec<&[u8]>> = (!prepared.pk_indexes.is_empty())
            .then(|| prepared.pk_indexes.iter().map(|&i| server.bound.get(i).copied().flatten().map(|(a, b)| &body[a..b])).collect())
            .flatten();
        let token = key.and_then(|k| routing_token(&k).ok());
        tablet_payload = server.scylla.tablet_payload(shard, token);
        server.scylla.count_execute(shard, token);
        let is_write = matches!(prepared.reply, PreparedReply::Void);
        if server.scylla.refuse() {
            return write_rate_limit_error(out, stream, is_write);
        }
        if is_write {
            server.scylla.record_written(token);
        }
    }
    let start = begin_frame(out, stream, OP_RESULT);
    if let Some(payload) = &tablet_payload {
        out[start + 1] |= FLAG_CUSTOM_PAYLOAD;
        out.extend_from_slice(payload);
    }
    let PreparedReply::OneRow { prefix_with_metadata, prefix_without_metadata, cells } = &prepared.reply else {
        put_i32(out, RESULT_VOID);
        return end_frame(out, start);
    };
    if flags & EXECUTE_FLAG_SKIP_METADATA != 0 {
        out.extend_from_slice(prefix_without_metadata);
    } else {
        out.extend_from_slice(prefix_with_metadata);
    }
    for cell in cells {
        match cell {
            Cell::Fixed(value) => put_bytes(out, Some(value)),
            Cell::Bound(i) => match server.bound.get(*i).copied().flatten() {
                Some((a, b)) => put_bytes(out, Some(&body[a..b])),
                None => put_bytes(out, None),
            },
        }
    }
    end_frame(out, start);
}

/// Reads a QUERY's or EXECUTE's consistency, flags and bound values (as ranges of `body`
/// into `bound`) from `at`; returns the flags.
fn read_values(body: &[u8], mut at: usize, bound: &mut Vec<Option<(usize, usize)>>) -> Result<u8, &'static str> {
    // consistency [short], flags [byte], then the values.
    let &flags = body.get(at + 2).ok_or("request body too short for its flags")?;
    at += 3;
    bound.clear();
    if flags & EXECUTE_FLAG_VALUES == 0 {
        return Ok(flags);
    }
    let count = read_u16(body, at).ok_or("request body too short for its value count")?;
    at += 2;
    for _ in 0..count {
        if flags & EXECUTE_FLAG_NAMES_FOR_VALUES != 0 {
            at = read_string(body, at).ok_or("request value name cut short")?.1;
        }
        let len = read_i32(body, at).ok_or("request value length cut short")?;
        at += 4;
        if len < 0 {
            bound.push(None);
            continue;
        }
        let end = at + len as usize;
        if end > body.len() {
            return Err("request value longer than the frame");
        }
        bound.push(Some((at, end)));
        at = end;
    }
    Ok(flags)
}

fn schema_context(scylla: &scylla::Personality, local_addr: SocketAddr) -> schema::Context {
    schema::Context { local_addr, scylla: scylla.enabled(), tablets: scylla.options.tablets }
}

/// The table's rows that every `WHERE` bind matches (a null bind matches none).
fn matching_rows(
    table: &Table,
    ctx: schema::Context,
    binds: &[query::Bind],
    bound: &[Option<(usize, usize)>],
    body: &[u8],
) -> Vec<schema::Row> {
    let mut rows = schema::rows(table, ctx);
    for (bind, value) in binds.iter().zip(bound) {
        match value {
            Some((a, b)) => schema::filter(&mut rows, &bind.column, &body[*a..*b], bind.is_list),
            None => rows.clear(),
        }
    }
    rows
}

/// A Rows result; `skip_metadata` when the client asked for none (it has the prepared one).
fn write_rows(
    out: &mut Vec<u8>,
    stream: i16,
    (table, columns): (&Table, &[(&str, CqlType)]),
    rows: &[schema::Row],
    skip_metadata: bool,
) {
    let start = begin_frame(out, stream, OP_RESULT);
    if skip_metadata {
        put_i32(out, RESULT_ROWS);
        put_i32(out, ROWS_NO_METADATA);
        put_i32(out, columns.len() as i32);
    } else {
        write_rows_metadata(out, table, columns, false);
    }
    put_i32(out, rows.len() as i32);
    for row in rows {
        for (name, _) in columns {
            put_bytes(out, row.iter().find(|(c, _)| c == name).map(|(_, v)| v.as_slice()));
        }
    }
    end_frame(out, start);
}

/// Scylla's rate-limit error: `<op_type><rejected_by_coordinator>` after the message.
fn write_rate_limit_error(out: &mut Vec<u8>, stream: i16, is_write: bool) {
    let start = begin_frame(out, stream, OP_ERROR);
    put_i32(out, scylla::RATE_LIMIT_ERROR);
    put_string(out, "Per-partition rate limit reached (the null server's --scylla-rate-limit-every)");
    out.extend_from_slice(&[u8::from(is_write), 1]);
    end_frame(out, start);
}

/// With the Scylla personality a BATCH is rate-limited as a whole and its statements'
/// rows are recorded as written; without it, it is only acknowledged.
fn answer_batch(server: &mut Server, out: &mut Vec<u8>, stream: i16, body: &[u8]) {
    if !server.scylla.enabled() {
        return write_void(out, stream);
    }
    let tokens = match batch_tokens(&server.prepared, body) {
        Ok(tokens) => tokens,
        Err(message) => return write_error(out, stream, ERR_PROTOCOL, message),
    };
    server.scylla.count_batch();
    if server.scylla.refuse() {
        return write_rate_limit_error(out, stream, true);
    }
    for token in tokens {
        server.scylla.record_written(token);
    }
    write_void(out, stream);
}

/// The partition token of each statement of a BATCH body (`None` for a query string or a
/// statement without its whole partition key bound).
fn batch_tokens(prepared: &[Prepared], body: &[u8]) -> Result<Vec<Option<i64>>, &'static str> {
    let count = read_u16(body, 1).ok_or("BATCH body too short for its statement count")?;
    let mut at = 3;
    let mut tokens = Vec::new();
    for _ in 0..count {
        let kind = *body.get(at).ok_or("BATCH statement kind cut short")?;
        let statement = match kind {
            0 => {
                at = read_long_string(body, at + 1).ok_or("BATCH query string cut short")?.1;
                None
            }
            1 => {
                let (id, next) = read_short_bytes(body, at + 1).ok_or("BATCH statement id cut short")?;
                at = next;
                lookup_prepared(prepared, id)
            }
            _ => return Err("BATCH statement kind is neither 0 nor 1"),
        };
        let values = read_u16(body, at).ok_or("BATCH value count cut short")?;
        at += 2;
        let mut bound = Vec::new();
        for _ in 0..values {
            let len = read_i32(body, at).ok_or("BATCH value length cut short")?;
            at += 4;
            // A negative length is a null (or unset) value.
            let Ok(len) = usize::try_from(len) else {
                bound.push(None);
                continue;
            };
            bound.push(Some(body.get(at..at + len).ok_or("BATCH value longer than the frame")?));
            at += len;
        }
        let key: Option<Vec<&[u8]>> = statement
            .filter(|p| !p.pk_indexes.is_empty())
            .and_then(|p| p.pk_indexes.iter().map(|&i| bound.get(i).copied().flatten()).collect());
        tokens.push(key.and_then(|k| routing_token(&k).ok()));
    }
    Ok(tokens)
}

fn lookup_prepared<'a>(prepared: &'a [Prepared], id: &[u8]) -> Option<&'a Prepared> {
    if id.len() != 16 || id[..8] != PREPARED_ID_MAGIC {
        return None;
    }
    let index = u64::from_be_bytes(id[8..16].try_into().ok()?) as usize;
    prepared.get(index).filter(|p| p.id == id)
}

/// `request`: the query text and the rest of the body (consistency, flags, values).
fn answer_query(
    out: &mut Vec<u8>,
    bound: &mut Vec<Option<(usize, usize)>>,
    keyspace: &mut Option<String>,
    ctx: schema::Context,
    stream: i16,
    (text, rest): (&str, &[u8]),
) {
    let statement = match query::parse(text) {
        Ok(s) => s,
        Err(message) => return write_error(out, stream, ERR_INVALID, &message),
    };
    match statement {
        Statement::Use { keyspace: name } => {
            let start = begin_frame(out, stream, OP_RESULT);
            put_i32(out, RESULT_SET_KEYSPACE);
            put_string(out, &name);
            end_frame(out, start);
            *keyspace = Some(name);
        }
        Statement::Select { table, columns, binds } => {
            let Some(table) = catalog::find(keyspace.as_deref(), &table, ctx.scylla) else {
                return write_error(out, stream, ERR_INVALID, &format!("unconfigured table {table}"));
            };
            let columns = match result_columns(table, &columns) {
                Ok(c) => c,
                Err(message) => return write_error(out, stream, ERR_INVALID, &message),
            };
            if let Err(message) = read_values(rest, 0, bound) {
                return write_error(out, stream, ERR_PROTOCOL, message);
            }
            let rows = matching_rows(table, ctx, &binds, bound, rest);
            write_rows(out, stream, (table, &columns), &rows, false);
        }
        Statement::Insert { .. } | Statement::Other => write_void(out, stream),
    }
}

fn answer_prepare(server: &mut Server, out: &mut Vec<u8>, keyspace: Option<&str>, stream: i16, text: &str) {
    let key = (keyspace.map(str::to_owned), text.to_owned());
    if let Some(&index) = server.prepared_by_text.get(&key) {
        let start = begin_frame(out, stream, OP_RESULT);
        out.extend_from_slice(&server.prepared[index].prepared_body);
        return end_frame(out, start);
    }
    let index = server.prepared.len();
    let mut id = [0u8; 16];
    id[..8].copy_from_slice(&PREPARED_ID_MAGIC);
    id[8..].copy_from_slice(&(index as u64).to_be_bytes());
    let prepared = match build_prepared(id, keyspace, text, server.scylla.enabled()) {
        Ok(p) => p,
        Err(message) => return write_error(out, stream, ERR_INVALID, &message),
    };
    let start = begin_frame(out, stream, OP_RESULT);
    out.extend_from_slice(&prepared.prepared_body);
    end_frame(out, start);
    server.prepared.push(prepared);
    server.prepared_by_text.insert(key, index);
}

/// `scylla`: mark a conditional statement with Scylla's LWT flag, and know Scylla's own tables.
fn build_prepared(id: [u8; 16], keyspace: Option<&str>, text: &str, scylla: bool) -> Result<Prepared, String> {
    let statement = query::parse(text)?;
    let (table_name, binds, result, is_select): (String, Vec<query::Bind>, Vec<String>, bool) = match statement {
        Statement::Insert { table, binds } => (table, binds, Vec::new(), false),
        Statement::Select { table, columns, binds } => (table, binds, columns, true),
        Statement::Use { .. } | Statement::Other => {
            return Err(format!("the null server prepares only INSERT and SELECT, not: {text}"));
        }
    };
    let table = catalog::find(keyspace, &table_name, scylla).ok_or_else(|| format!("unconfigured table {table_name}"))?;
    let mut bind_columns = Vec::with_capacity(binds.len());
    for bind in &binds {
        let ty = table.column_type(&bind.column).ok_or_else(|| format!("undefined column name {}", bind.column))?;
        bind_columns.push((bind.column.as_str(), ty, bind.is_list));
    }

    let mut body = Vec::new();
    put_i32(&mut body, RESULT_PREPARED);
    put_u16(&mut body, id.len() as u16);
    body.extend_from_slice(&id);
    // Bound-variable metadata: flags, count, partition-key indexes, table spec, columns.
    let lwt = if scylla && query::is_conditional(text) { scylla::LWT_FLAG } else { 0 };
    put_i32(&mut body, ROWS_GLOBAL_TABLES_SPEC | lwt);
    put_i32(&mut body, bind_columns.len() as i32);
    let pk_indexes: Vec<u16> = table
        .partition_key
        .iter()
        .filter_map(|pk| bind_columns.iter().position(|(name, _, is_list)| name == pk && !is_list))
        .map(|i| i as u16)
        .collect();
    let routable = pk_indexes.len() == table.partition_key.len();
    if routable {
        put_i32(&mut body, pk_indexes.len() as i32);
        for i in &pk_indexes {
            put_u16(&mut body, *i);
        }
    } else {
        put_i32(&mut body, 0);
    }
    let pk_indexes: Vec<usize> = if routable { pk_indexes.iter().map(|&i| usize::from(i)).collect() } else { Vec::new() };
    put_string(&mut body, table.keyspace);
    put_string(&mut body, table.name);
    for (name, ty, is_list) in &bind_columns {
        put_string(&mut body, name);
        if *is_list {
            put_u16(&mut body, 0x0020);
        }
        ty.write_option(&mut body);
    }

    if !is_select {
        // No result metadata: a write returns Void.
        put_i32(&mut body, ROWS_NO_METADATA);
        put_i32(&mut body, 0);
        return Ok(Prepared { id, prepared_body: body, reply: PreparedReply::Void, pk_indexes });
    }
    let columns = result_columns(table, &result)?;
    write_rows_metadata(&mut body, table, &columns, true);
    if table.keyspace.starts_with("system") {
        return Ok(Prepared { id, prepared_body: body, reply: PreparedReply::SystemRows { table, columns, binds }, pk_indexes });
    }

    let mut prefix_with_metadata = Vec::new();
    write_rows_metadata(&mut prefix_with_metadata, table, &columns, false);
    put_i32(&mut prefix_with_metadata, 1);
    let mut prefix_without_metadata = Vec::new();
    put_i32(&mut prefix_without_metadata, RESULT_ROWS);
    put_i32(&mut prefix_without_metadata, ROWS_NO_METADATA);
    put_i32(&mut prefix_without_metadata, columns.len() as i32);
    put_i32(&mut prefix_without_metadata, 1);
    let cells = columns
        .iter()
        .map(|(name, ty)| match binds.iter().position(|b| b.column == *name && !b.is_list) {
            Some(i) => Cell::Bound(i),
            None => Cell::Fixed(ty.filler()),
        })
        .collect();
    Ok(Prepared {
        id,
        prepared_body: body,
        reply: PreparedReply::OneRow { prefix_with_metadata, prefix_without_metadata, cells },
        pk_indexes,
    })
}

/// The named columns (all of them for `*`), with their types.
fn result_columns(table: &'static Table, names: &[String]) -> Result<Vec<(&'static str, CqlType)>, String> {
    if names.len() == 1 && names[0] == "*" {
        return Ok(table.columns.to_vec());
    }
    names
        .iter()
        .map(|name| match table.columns.iter().find(|(c, _)| c == name) {
            Some(&column) => Ok(column),
            // Unknown system columns (newer server versions add some) read as null text.
            None if table.keyspace.starts_with("system") => Ok((leak(name), CqlType::Text)),
            None => Err(format!("undefined column name {name}")),
        })
        .collect()
}

fn leak(name: &str) -> &'static str {
    Box::leak(name.to_owned().into_boxed_str())
}

/// `as_prepared_result` writes the result metadata of a PREPARED message (no kind, no count).
fn write_rows_metadata(out: &mut Vec<u8>, table: &Table, columns: &[(&str, CqlType)], as_prepared_result: bool) {
    if !as_prepared_result {
        put_i32(out, RESULT_ROWS);
    }
    put_i32(out, ROWS_GLOBAL_TABLES_SPEC);
    put_i32(out, columns.len() as i32);
    put_string(out, table.keyspace);
    put_string(out, table.name);
    for (name, ty) in columns {
        put_string(out, name);
        ty.write_option(out);
    }
}

fn write_void(out: &mut Vec<u8>, stream: i16) {
    let start = begin_frame(out, stream, OP_RESULT);
    put_i32(out, RESULT_VOID);
    end_frame(out, start);
}

fn write_error(out: &mut Vec<u8>, stream: i16, code: i32, message: &str) {
    let start = begin_frame(out, stream, OP_ERROR);
    put_i32(out, code);
    put_string(out, message);
    end_frame(out, start);
}

fn begin_frame(out: &mut Vec<u8>, stream: i16, opcode: u8) -> usize {
    let start = out.len();
    let [s0, s1] = stream.to_be_bytes();
    out.extend_from_slice(&[0x80 | SUPPORTED_VERSION, 0, s0, s1, opcode, 0, 0, 0, 0]);
    start
}

fn end_frame(out: &mut [u8], start: usize) {
    let len = (out.len() - start - HEADER_LEN) as u32;
    out[start + 5..start + HEADER_LEN].copy_from_slice(&len.to_be_bytes());
}

pub(crate) fn put_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_be_bytes());
}

pub(crate) fn put_i32(out: &mut Vec<u8>, v: i32) {
    out.extend_from_slice(&v.to_be_bytes());
}

pub(crate) fn put_string(out: &mut Vec<u8>, s: &str) {
    put_u16(out, s.len() as u16);
    out.extend_from_slice(s.as_bytes());
}

pub(crate) fn put_bytes(out: &mut Vec<u8>, value: Option<&[u8]>) {
    match value {
        Some(v) => {
            put_i32(out, v.len() as i32);
            out.extend_from_slice(v);
        }
        None => put_i32(out, -1),
    }
}

fn read_u16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

fn read_i32(b: &[u8], at: usize) -> Option<i32> {
    Some(i32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn read_short_bytes(b: &[u8], at: usize) -> Option<(&[u8], usize)> {
    let len = read_u16(b, at)? as usize;
    Some((b.get(at + 2..at + 2 + len)?, at + 2 + len))
}

fn read_string(b: &[u8], at: usize) -> Option<(&str, usize)> {
    let (bytes, next) = read_short_bytes(b, at)?;
    Some((std::str::from_utf8(bytes).ok()?, next))
}

fn read_long_string(b: &[u8], at: usize) -> Option<(&str, usize)> {
    let len = usize::try_from(read_i32(b, at)?).ok()?;
    let bytes = b.get(at + 4..at + 4 + len)?;
    Some((std::str::from_utf8(bytes).ok()?, at + 4 + len))
}
