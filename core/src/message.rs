//! Request bodies we encode and response bodies we decode. Result *rows* are not decoded
//! here: the host decodes a validated page from one buffer.

use crate::error::ProtocolError;
use crate::wire::{Reader, Writer};

/// Consistency levels by protocol code.
pub mod consistency {
    pub const ANY: u16 = 0x0000;
    pub const ONE: u16 = 0x0001;
    pub const QUORUM: u16 = 0x0004;
    pub const ALL: u16 = 0x0005;
    pub const LOCAL_QUORUM: u16 = 0x0006;
    pub const SERIAL: u16 = 0x0008;
    pub const LOCAL_SERIAL: u16 = 0x0009;
    pub const LOCAL_ONE: u16 = 0x000A;

    pub fn name(code: u16) -> &'static str {
        match code {
            0x0000 => "ANY",
            0x0001 => "ONE",
            0x0002 => "TWO",
            0x0003 => "THREE",
            0x0004 => "QUORUM",
            0x0005 => "ALL",
            0x0006 => "LOCAL_QUORUM",
            0x0007 => "EACH_QUORUM",
            0x0008 => "SERIAL",
            0x0009 => "LOCAL_SERIAL",
            0x000A => "LOCAL_ONE",
            _ => "UNKNOWN",
        }
    }
}

/// Per-request parameters, shared by QUERY, EXECUTE and BATCH.
#[derive(Debug, Clone, Default)]
pub struct QueryOptions<'a> {
    pub consistency: Option<u16>,
    pub serial_consistency: Option<u16>,
    pub page_size: Option<i32>,
    pub paging_state: Option<&'a [u8]>,
    pub default_timestamp: Option<i64>,
    pub timeout_us: Option<u64>,
    pub skip_metadata: bool,
    pub idempotent: bool,
    pub tracing: bool,
    pub keyspace: Option<&'a str>,
    pub now_in_seconds: Option<i32>,
}

mod qflags {
    pub const VALUES: u32 = 0x01;
    pub const SKIP_METADATA: u32 = 0x02;
    pub const PAGE_SIZE: u32 = 0x04;
    pub const PAGING_STATE: u32 = 0x08;
    pub const SERIAL_CONSISTENCY: u32 = 0x10;
    pub const DEFAULT_TIMESTAMP: u32 = 0x20;
    pub const KEYSPACE: u32 = 0x80;
    pub const NOW_IN_SECONDS: u32 = 0x100;
}

/// Checks a host-supplied value list (`[n: u16]` then `[bytes]` each, -1 null, -2 unset)
/// and returns its count. A malformed list is the caller's fault: a local error.
pub fn check_values(values: &[u8]) -> Result<u16, ProtocolError> {
    walk_values(values, |_, _| {})
}

/// Checks a value list as [`check_values`] does and hands each value to `visit` on the way,
/// by index (`None` for null and unset): one pass both validates the list and finds what the
/// caller wants in it, such as the partition key (issue #17).
pub fn walk_values<'a>(values: &'a [u8], mut visit: impl FnMut(usize, Option<&'a [u8]>)) -> Result<u16, ProtocolError> {
    if values.is_empty() {
        return Ok(0);
    }
    let mut r = Reader::new(values);
    let local = |e: ProtocolError| ProtocolError::local(e.field, e.offset, e.reason);
    let n = r.u16("values count").map_err(local)?;
    for i in 0..n as usize {
        let len = r.i32("value length").map_err(local)?;
        if len >= 0 {
            visit(i, Some(r.bytes(len as usize, "value").map_err(local)?));
        } else if len == -1 || len == -2 {
            visit(i, None);
        } else {
            return Err(ProtocolError::local("value length", r.offset() - 4, format!("invalid length {len}")));
        }
    }
    if !r.is_empty() {
        return Err(ProtocolError::local(
            "values",
            r.offset(),
            format!("{} bytes after the last value", r.remaining()),
        ));
    }
    Ok(n)
}

fn write_flags(w: &mut Writer, version: u8, flags: u32) {
    if version >= 5 {
        w.u32(flags);
    } else {
        w.u8(flags as u8);
    }
}

/// `<query_parameters>` of QUERY and EXECUTE.
pub fn write_query_parameters(w: &mut Writer, version: u8, values: &[u8], o: &QueryOptions) {
    write_parameters(w, version, o, Some(values));
}

/// The parameters QUERY, EXECUTE and BATCH share: consistency, flags, then each flagged
/// field in protocol order. `values` is `None` for BATCH, whose values sit with each
/// statement and which has no paging or result metadata to skip.
fn write_parameters(w: &mut Writer, version: u8, o: &QueryOptions, values: Option<&[u8]>) {
    let single = values.is_some();
    let values = values.unwrap_or(&[]);
    let mut flags = 0u32;
    let mut flag = |on: bool, bit: u32| {
        if on {
            flags |= bit;
        }
    };
    flag(!values.is_empty(), qflags::VALUES);
    flag(single && o.skip_metadata, qflags::SKIP_METADATA);
    flag(single && o.page_size.is_some(), qflags::PAGE_SIZE);
    flag(single && o.paging_state.is_some(), qflags::PAGING_STATE);
    flag(o.serial_consistency.is_some(), qflags::SERIAL_CONSISTENCY);
    flag(o.default_timestamp.is_some(), qflags::DEFAULT_TIMESTAMP);
    flag(version >= 5 && o.keyspace.is_some(), qflags::KEYSPACE);
    flag(version >= 5 && o.now_in_seconds.is_some(), qflags::NOW_IN_SECONDS);
    w.u16(o.consistency.unwrap_or(consistency::LOCAL_ONE));
    write_flags(w, version, flags);
    if !values.is_empty() {
        w.raw(values);
    }
    if single {
        if let Some(p) = o.page_size {
            w.i32(p);
        }
        if let Some(s) = o.paging_state {
            w.bytes(Some(s));
        }
    }
    if let Some(s) = o.serial_consistency {
        w.u16(s);
    }
    if let Some(t) = o.default_timestamp {
        w.i64(t);
    }
    if version >= 5 {
        if let Some(k) = o.keyspace {
            w.string(k);
        }
        if let Some(n) = o.now_in_seconds {
            w.i32(n);
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchType {
    Logged = 0,
    Unlogged = 1,
    Counter = 2,
}

/// One statement of a BATCH, borrowed from the host's descriptor.
pub enum BatchStatement<'a> {
    Query { cql: &'a str, values: &'a [u8] },
    Prepared { id: &'a [u8], values: &'a [u8] },
}

pub fn write_batch(w: &mut Writer, version: u8, kind: BatchType, statements: &[BatchStatement], o: &QueryOptions) {
    w.u8(kind as u8);
    w.u16(statements.len() as u16);
    for s in statements {
        let values = match s {
            BatchStatement::Query { cql, values } => {
                w.u8(0);
                w.long_string(cql);
                values
            }
            BatchStatement::Prepared { id, values } => {
                w.u8(1);
                w.short_bytes(id);
                values
            }
        };
        if values.is_empty() {
            w.u16(0);
        } else {
            w.raw(values);
        }
    }
    write_parameters(w, version, o, None);
}

/// An ERROR body, with every field the protocol defines for its code.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ServerError {
    pub code: i32,
    #[cfg_attr(feature = "serde", serde(rename = "name"))]
    pub code_name: &'static str,
    pub message: String,
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub details: ErrorDetails,
}

#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
pub enum ErrorDetails {
    None {},
    Unavailable {
        consistency: &'static str,
        required: i32,
        alive: i32,
    },
    WriteTimeout {
        consistency: &'static str,
        received: i32,
        block_for: i32,
        write_type: String,
        contentions: Option<u16>,
    },
    ReadTimeout {
        consistency: &'static str,
        received: i32,
        block_for: i32,
        data_present: bool,
    },
    ReadFailure {
        consistency: &'static str,
        received: i32,
        block_for: i32,
        reasons: Vec<(String, u16)>,
        num_failures: i32,
        data_present: bool,
    },
    WriteFailure {
        consistency: &'static str,
        received: i32,
        block_for: i32,
        reasons: Vec<(String, u16)>,
        num_failures: i32,
        write_type: String,
    },
    FunctionFailure {
        keyspace: String,
        function: String,
        arg_types: Vec<String>,
    },
    AlreadyExists {
        keyspace: String,
        table: String,
    },
    /// The id of the statement the node does not know, as bytes: the session looks it up
    /// among the statements it prepared to prepare it again (JSON and the tests spell it in hex).
    Unprepared {
        #[cfg_attr(feature = "serde", serde(serialize_with = "serialize_hex"))]
        unprepared_id: Vec<u8>,
    },
    CasWriteUnknown {
        consistency: &'static str,
        received: i32,
        block_for: i32,
    },
    /// Scylla's per-partition rate limit (its code is the one SUPPORTED announced).
    RateLimitReached {
        op_type: &'static str,
        rejected_by_coordinator: bool,
    },
}

/// The name of Scylla's rate-limit error, whatever code the node gave it.
pub const RATE_LIMIT_REACHED: &str = "RateLimitReached";

pub fn error_code_name(code: i32) -> &'static str {
    match code {
        0x0000 => "ServerError",
        0x000A => "ProtocolError",
        0x0100 => "AuthenticationError",
        0x1000 => "Unavailable",
        0x1001 => "Overloaded",
        0x1002 => "IsBootstrapping",
        0x1003 => "TruncateError",
        0x1100 => "WriteTimeout",
        0x1200 => "ReadTimeout",
        0x1300 => "ReadFailure",
        0x1400 => "FunctionFailure",
        0x1500 => "WriteFailure",
        0x1600 => "CdcWriteFailure",
        0x1700 => "CasWriteUnknown",
        0x2000 => "SyntaxError",
        0x2100 => "Unauthorized",
        0x2200 => "Invalid",
        0x2300 => "ConfigError",
        0x2400 => "AlreadyExists",
        0x2500 => "Unprepared",
        _ => "Unknown",
    }
}

#[cfg(feature = "serde")]
fn serialize_hex<S: serde::Serializer>(id: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&hex(id))
}

pub fn hex(b: &[u8]) -> String {
    const D: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(b.len() * 2);
    for &x in b {
        s.push(D[(x >> 4) as usize] as char);
        s.push(D[(x & 15) as usize] as char);
    }
    s
}

/// Reads the failure reason map, whose shape differs by version: v5 maps `<inet>` to a
/// code, v4 only gives the count.
fn read_reasons(r: &mut Reader, version: u8) -> Result<(Vec<(String, u16)>, i32), ProtocolError> {
    let n = r.i32("failure reason count")?;
    if n < 0 {
        return Err(r.error("failure reason count", format!("negative count {n}")));
    }
    if version < 5 {
        return Ok((Vec::new(), n));
    }
    let mut reasons = Vec::with_capacity((n as usize).min(64));
    for _ in 0..n {
        let len = r.u8("failure reason endpoint")? as usize;
        let addr = r.bytes(len, "failure reason endpoint")?;
        let code = r.u16("failure reason code")?;
        reasons.push((format_ip(addr), code));
    }
    Ok((reasons, n))
}

pub fn format_ip(addr: &[u8]) -> String {
    match addr.len() {
        4 => format!("{}.{}.{}.{}", addr[0], addr[1], addr[2], addr[3]),
        16 => {
            let mut a = [0u8; 16];
            a.copy_from_slice(addr);
            core::net::Ipv6Addr::from(a).to_string()
        }
        _ => hex(addr),
    }
}

/// What Scylla's rate-limit error names as the limited operation.
fn rate_limit_op(byte: u8) -> &'static str {
    match byte {
        0 => "read",
        1 => "write",
        _ => "unknown",
    }
}

impl ServerError {
    pub fn decode(body: &[u8], version: u8) -> Result<Self, ProtocolError> {
        Self::decode_with(body, version, None)
    }

    /// Like [`ServerError::decode`], reading `rate_limit_code` as Scylla's rate-limit error
    /// (`<op_type><rejected_by_coordinator>` after the message).
    pub fn decode_with(body: &[u8], version: u8, rate_limit_code: Option<i32>) -> Result<Self, ProtocolError> {
        let mut r = Reader::new(body);
        let code = r.i32("error code")?;
        let message = r.string("error message")?.to_owned();
        if rate_limit_code == Some(code) {
            let op_type = rate_limit_op(r.u8("rate limit op_type")?);
            let rejected_by_coordinator = r.u8("rate limit rejected_by_coordinator")? != 0;
            let details = ErrorDetails::RateLimitReached { op_type, rejected_by_coordinator };
            return Ok(Self { code, code_name: RATE_LIMIT_REACHED, message, details });
        }
        let cl = |r: &mut Reader| -> Result<&'static str, ProtocolError> {
            Ok(consistency::name(r.u16("error consistency")?))
        };
        let details = match code {
            0x1000 => ErrorDetails::Unavailable {
                consistency: cl(&mut r)?,
                required: r.i32("unavailable required")?,
                alive: r.i32("unavailable alive")?,
            },
            0x1100 => {
                let consistency = cl(&mut r)?;
                let received = r.i32("write timeout received")?;
                let block_for = r.i32("write timeout blockfor")?;
                let write_type = r.string("write timeout writeType")?.to_owned();
                let contentions =
                    if write_type == "CAS" && !r.is_empty() { Some(r.u16("write timeout contentions")?) } else { None };
                ErrorDetails::WriteTimeout { consistency, received, block_for, write_type, contentions }
            }
            0x1200 => ErrorDetails::ReadTimeout {
                consistency: cl(&mut r)?,
                received: r.i32("read timeout received")?,
                block_for: r.i32("read timeout blockfor")?,
                data_present: r.u8("read timeout data_present")? != 0,
            },
            0x1300 => {
                let consistency = cl(&mut r)?;
                let received = r.i32("read failure received")?;
                let block_for = r.i32("read failure blockfor")?;
                let (reasons, num_failures) = read_reasons(&mut r, version)?;
                let data_present = r.u8("read failure data_present")? != 0;
                ErrorDetails::ReadFailure { consistency, received, block_for, reasons, num_failures, data_present }
            }
            0x1500 => {
                let consistency = cl(&mut r)?;
                let received = r.i32("write failure received")?;
                let block_for = r.i32("write failure blockfor")?;
                let (reasons, num_failures) = read_reasons(&mut r, version)?;
                let write_type = r.string("write failure writeType")?.to_owned();
                ErrorDetails::WriteFailure { consistency, received, block_for, reasons, num_failures, write_type }
            }
            0x1400 => ErrorDetails::FunctionFailure {
                keyspace: r.string("function failure keyspace")?.to_owned(),
                function: r.string("function failure function")?.to_owned(),
                arg_types: r.string_list("function failure arg_types")?.map(str::to_owned).collect(),
            },
            0x2400 => ErrorDetails::AlreadyExists {
                keyspace: r.string("already exists keyspace")?.to_owned(),
                table: r.string("already exists table")?.to_owned(),
            },
            0x2500 => ErrorDetails::Unprepared { unprepared_id: r.short_bytes("unprepared id")?.to_vec() },
            0x1700 => ErrorDetails::CasWriteUnknown {
                consistency: cl(&mut r)?,
                received: r.i32("cas write unknown received")?,
                block_for: r.i32("cas write unknown blockfor")?,
            },
            _ => ErrorDetails::None {},
        };
        Ok(Self { code, code_name: error_code_name(code), message, details })
    }
}

/// The parts of a RESULT Prepared body that the core itself needs.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedInfo<'a> {
    pub id: &'a [u8],
    pub result_metadata_id: Option<&'a [u8]>,
    pub pk_indexes: Vec<u16>,
    /// The keyspace of the bound columns, which routing needs; `None` without bind markers.
    pub keyspace: Option<&'a str>,
    /// The table of the bound columns (Scylla keeps tablets per table).
    pub table: Option<&'a str>,
    /// The bind markers' names and types, in order.
    pub bind_columns: Vec<(&'a str, crate::types::ColumnType)>,
    /// The prepared metadata flags (Scylla marks LWTs there).
    pub flags: i32,
}

pub const RESULT_VOID: i32 = 1;
pub const RESULT_ROWS: i32 = 2;
pub const RESULT_SET_KEYSPACE: i32 = 3;
pub const RESULT_PREPARED: i32 = 4;
pub const RESULT_SCHEMA_CHANGE: i32 = 5;

/// Decodes the head of a Prepared result: id, result-metadata id and partition-key indexes.
pub fn decode_prepared(body: &[u8], version: u8) -> Result<PreparedInfo<'_>, ProtocolError> {
    let mut r = Reader::new(body);
    let kind = r.i32("result kind")?;
    if kind != RESULT_PREPARED {
        return Err(r.error("result kind", format!("expected Prepared, got {kind}")));
    }
    let id = r.short_bytes("prepared id")?;
    let result_metadata_id = if version >= 5 { Some(r.short_bytes("result metadata id")?) } else { None };
    let flags = r.i32("prepared metadata flags")?;
    let columns = r.i32("prepared metadata columns_count")?;
    let pk_count = r.i32("prepared metadata pk_count")?;
    if !(0..=1024).contains(&pk_count) {
        return Err(r.error("prepared metadata pk_count", format!("implausible count {pk_count}")));
    }
    // Sized by the bytes present (2 per index), not by the count the peer declares.
    let mut pk_indexes = Vec::with_capacity((pk_count as usize).min(r.remaining() / 2));
    for _ in 0..pk_count {
        pk_indexes.push(r.u16("prepared metadata pk_index")?);
    }
    if !(0..=65535).contains(&columns) {
        return Err(r.error("prepared metadata columns_count", format!("implausible count {columns}")));
    }
    let global = flags & 0x0001 != 0;
    let (mut keyspace, mut table) = (None, None);
    if global {
        keyspace = Some(r.string("prepared metadata keyspace")?);
        table = Some(r.string("prepared metadata table")?);
    }
    // Each column takes at least a name length and a type id.
    let mut bind_columns = Vec::with_capacity((columns as usize).min(r.remaining() / 4));
    for _ in 0..columns {
        if !global {
            let ks = r.string("prepared column keyspace")?;
            keyspace.get_or_insert(ks);
            let t = r.string("prepared column table")?;
            table.get_or_insert(t);
        }
        let name = r.string("prepared column name")?;
        bind_columns.push((name, crate::types::ColumnType::read(&mut r)?));
    }
    Ok(PreparedInfo { id, result_metadata_id, pk_indexes, keyspace, table, bind_columns, flags })
}

/// A server-pushed EVENT.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "type"))]
pub enum ServerEvent {
    #[cfg_attr(feature = "serde", serde(rename = "TOPOLOGY_CHANGE"))]
    TopologyChange { change: String, address: String },
    #[cfg_attr(feature = "serde", serde(rename = "STATUS_CHANGE"))]
    StatusChange { change: String, address: String },
    #[cfg_attr(feature = "serde", serde(rename = "SCHEMA_CHANGE"))]
    SchemaChange { change: String, target: String, keyspace: String, name: Option<String>, arg_types: Vec<String> },
}

impl ServerEvent {
    pub fn decode(body: &[u8]) -> Result<Self, ProtocolError> {
        let mut r = Reader::new(body);
        let kind = r.string("event type")?;
        match kind {
            "TOPOLOGY_CHANGE" | "STATUS_CHANGE" => {
                let change = r.string("event change")?.to_owned();
                let (addr, port) = r.inet("event address")?;
                let address = format!("{}:{}", format_ip(addr), port);
                Ok(if kind == "TOPOLOGY_CHANGE" {
                    ServerEvent::TopologyChange { change, address }
                } else {
                    ServerEvent::StatusChange { change, address }
                })
            }
            "SCHEMA_CHANGE" => {
                let change = r.string("schema change type")?.to_owned();
                let target = r.string("schema change target")?.to_owned();
                let keyspace = r.string("schema change keyspace")?.to_owned();
                let (name, arg_types) = match target.as_str() {
                    "KEYSPACE" => (None, Vec::new()),
                    "TABLE" | "TYPE" => (Some(r.string("schema change name")?.to_owned()), Vec::new()),
                    "FUNCTION" | "AGGREGATE" => (
                        Some(r.string("schema change name")?.to_owned()),
                        r.string_list("schema change arg types")?.map(str::to_owned).collect(),
                    ),
                    _ => return Err(r.error("schema change target", format!("unknown target {target}"))),
                };
                Ok(ServerEvent::SchemaChange { change, target, keyspace, name, arg_types })
            }
            other => Err(r.error("event type", format!("unknown event type {other}"))),
        }
    }
}

/// SUPPORTED: the server's options, e.g. COMPRESSION and PROTOCOL_VERSIONS.
pub fn decode_supported(body: &[u8]) -> Result<Vec<(String, Vec<String>)>, ProtocolError> {
    let mut r = Reader::new(body);
    let n = r.u16("supported count")?;
    let mut out = Vec::with_capacity(n.min(64) as usize);
    for _ in 0..n {
        let k = r.string("supported key")?.to_owned();
        let v = r.string_list("supported values")?.map(str::to_owned).collect();
        out.push((k, v));
    }
    Ok(out)
}
