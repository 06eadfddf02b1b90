//! An owned value tree, for tests, unload and debugging. The hot paths (rows, bulk load)
//! never build these: they validate and transcode bytes directly.

use std::fmt;
use core::net::{IpAddr, Ipv4Addr, Ipv6Addr};

#[cfg(feature = "serde")]
use serde_json::{json, Value as Json};

use super::bignum;
use super::column_type::ColumnType;
use super::scalar::{
    check_time, check_timeuuid, collection_count, duration_signs_agree, element, fixed, no_trailing, push_duration,
    read_duration, unsigned_vint_bytes, vector_element, DATE_EPOCH, NANOS_PER_DAY,
};
use crate::error::ProtocolError;
use crate::wire::Reader;

/// One CQL value. `None` in a container is a null element.
#[derive(Clone, Debug, PartialEq)]
pub enum CqlValue {
    /// The legacy zero-length value of a type that normally has content (see
    /// [`ColumnType::allows_empty`]); drivers read it as null.
    Empty,
    Ascii(String),
    Text(String),
    Blob(Vec<u8>),
    Custom(Vec<u8>),
    Boolean(bool),
    Tinyint(i8),
    Smallint(i16),
    Int(i32),
    Bigint(i64),
    Counter(i64),
    /// Minimal two's-complement big-endian bytes.
    Varint(Vec<u8>),
    /// `unscaled * 10^-scale`, `unscaled` as minimal two's-complement big-endian bytes.
    Decimal {
        scale: i32,
        unscaled: Vec<u8>,
    },
    Float(f32),
    Double(f64),
    /// Milliseconds since the Unix epoch.
    Timestamp(i64),
    /// Days since 1970-01-01 (the wire value minus 2^31).
    Date(i32),
    /// Nanoseconds since midnight.
    Time(i64),
    Duration {
        months: i32,
        days: i32,
        nanos: i64,
    },
    Uuid([u8; 16]),
    Timeuuid([u8; 16]),
    Inet(IpAddr),
    List(Vec<Option<CqlValue>>),
    Set(Vec<Option<CqlValue>>),
    /// Entries in wire order.
    Map(Vec<(Option<CqlValue>, Option<CqlValue>)>),
    /// The components present; a tuple may carry fewer than its type declares.
    Tuple(Vec<Option<CqlValue>>),
    /// The fields present, in declaration order; trailing fields may be missing.
    Udt(Vec<(String, Option<CqlValue>)>),
    Vector(Vec<CqlValue>),
}

/// A value that does not fit the type it is being encoded as (a local error: the caller's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueError {
    /// The CQL type being encoded at the point of failure.
    pub expected: String,
    pub reason: String,
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot encode as {}: {}", self.expected, self.reason)
    }
}

impl std::error::Error for ValueError {}

fn mismatch(ty: &ColumnType, reason: impl Into<String>) -> ValueError {
    ValueError { expected: ty.to_string(), reason: reason.into() }
}

impl CqlValue {
    /// Decodes a value (without its `[bytes]` length). Accepts exactly what
    /// [`ColumnType::validate`] accepts.
    pub fn decode(ty: &ColumnType, bytes: &[u8]) -> Result<CqlValue, ProtocolError> {
        decode_at(ty, Reader::new(bytes))
    }

    /// Appends this value's bytes (without a `[bytes]` length) to `out`. On error `out` is
    /// left as it was.
    pub fn encode(&self, ty: &ColumnType, out: &mut Vec<u8>) -> Result<(), ValueError> {
        let start = out.len();
        let result = encode_into(self, ty, out);
        if result.is_err() {
            out.truncate(start);
        }
        result
    }

    /// The canonical JSON form of tests/vectors/README.md. Fails only for a varint or
    /// decimal too long to render in decimal ([`bignum::MAX_RENDERED_BYTES`]). Only with the
    /// `serde` feature: the tests compare it with the vectors; the module has no use for it.
    #[cfg(feature = "serde")]
    pub fn to_canonical_json(&self) -> Result<Json, ValueError> {
        Ok(match self {
            CqlValue::Empty => Json::Null,
            CqlValue::Ascii(s) | CqlValue::Text(s) => Json::String(s.clone()),
            CqlValue::Blob(b) | CqlValue::Custom(b) => Json::String(hex_string(b)),
            CqlValue::Boolean(b) => Json::Bool(*b),
            CqlValue::Tinyint(v) => json!(v),
            CqlValue::Smallint(v) => json!(v),
            CqlValue::Int(v) => json!(v),
            CqlValue::Date(v) => json!(v),
            CqlValue::Bigint(v) | CqlValue::Counter(v) | CqlValue::Timestamp(v) | CqlValue::Time(v) => {
                Json::String(v.to_string())
            }
            CqlValue::Varint(bytes) => Json::String(decimal_string(bytes)?),
            CqlValue::Decimal { scale, unscaled } => {
                Json::String(format!("{}e{}", decimal_string(unscaled)?, -i64::from(*scale)))
            }
            CqlValue::Float(v) => float_json(f64::from(*v)),
            CqlValue::Double(v) => float_json(*v),
            CqlValue::Duration { months, days, nanos } => {
                json!({ "months": months, "days": days, "nanos": nanos.to_string() })
            }
            CqlValue::Uuid(u) | CqlValue::Timeuuid(u) => Json::String(uuid_string(u)),
            CqlValue::Inet(ip) => Json::String(ip.to_string()),
            CqlValue::List(items) | CqlValue::Set(items) | CqlValue::Tuple(items) => {
                Json::Array(items.iter().map(optional_json).collect::<Result<_, _>>()?)
            }
            CqlValue::Vector(items) => {
                Json::Array(items.iter().map(CqlValue::to_canonical_json).collect::<Result<_, _>>()?)
            }
            CqlValue::Map(entries) => Json::Array(
                entries
                    .iter()
                    .map(|(k, v)| Ok(Json::Array(vec![optional_json(k)?, optional_json(v)?])))
                    .collect::<Result<_, ValueError>>()?,
            ),
            CqlValue::Udt(fields) => {
                let mut object = serde_json::Map::new();
                for (name, value) in fields {
                    object.insert(name.clone(), optional_json(value)?);
                }
                Json::Object(object)
            }
        })
    }
}

#[cfg(feature = "serde")]
fn optional_json(value: &Option<CqlValue>) -> Result<Json, ValueError> {
    value.as_ref().map_or(Ok(Json::Null), CqlValue::to_canonical_json)
}

#[cfg(feature = "serde")]
fn float_json(v: f64) -> Json {
    if v.is_nan() {
        Json::String("NaN".into())
    } else if v.is_infinite() {
        Json::String(if v > 0.0 { "Infinity" } else { "-Infinity" }.into())
    } else if v == 0.0 && v.is_sign_negative() {
        Json::String("-0".into())
    } else {
        serde_json::Number::from_f64(v).map_or(Json::Null, Json::Number)
    }
}

#[cfg(feature = "serde")]
fn decimal_string(bytes: &[u8]) -> Result<String, ValueError> {
    let mut out = String::new();
    bignum::write_decimal(bytes, &mut out).map_err(|_| ValueError {
        expected: "varint".into(),
        reason: format!(
            "{} bytes is too long to render in decimal (limit {} bytes)",
            bytes.len(),
            bignum::MAX_RENDERED_BYTES
        ),
    })?;
    Ok(out)
}

#[cfg(feature = "serde")]
pub(crate) fn hex_string(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(2 + 2 * bytes.len());
    out.push_str("0x");
    push_hex(bytes, &mut out);
    out
}

pub(crate) fn push_hex(bytes: &[u8], out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for b in bytes {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 15)]));
    }
}

/// Appends a UUID in its canonical lower-case 8-4-4-4-12 form (the one UUID formatter; the
/// wasm facade uses it for node host ids).
pub fn push_uuid(u: &[u8; 16], out: &mut String) {
    for (i, chunk) in [&u[0..4], &u[4..6], &u[6..8], &u[8..10], &u[10..16]].into_iter().enumerate() {
        if i > 0 {
            out.push('-');
        }
        push_hex(chunk, out);
    }
}

#[cfg(feature = "serde")]
fn uuid_string(u: &[u8; 16]) -> String {
    let mut out = String::with_capacity(36);
    push_uuid(u, &mut out);
    out
}

pub(crate) fn inet_from_bytes(bytes: &[u8]) -> Option<IpAddr> {
    if let Ok(v4) = <[u8; 4]>::try_from(bytes) {
        Some(IpAddr::V4(Ipv4Addr::from(v4)))
    } else if let Ok(v6) = <[u8; 16]>::try_from(bytes) {
        Some(IpAddr::V6(Ipv6Addr::from(v6)))
    } else {
        None
    }
}

fn decode_at(ty: &ColumnType, r: Reader<'_>) -> Result<CqlValue, ProtocolError> {
    macro_rules! fixed_value {
        ($n:literal, $field:literal, $empty_ok:literal, $make:expr) => {
            match fixed::<$n>(&r, $field, $empty_ok)? {
                Some(bytes) => $make(bytes),
                None => CqlValue::Empty,
            }
        };
    }
    Ok(match ty {
        ColumnType::Ascii => {
            super::validate::check_value(ty, r)?;
            // Checked ASCII, hence UTF-8.
            CqlValue::Ascii(String::from_utf8_lossy(r.rest()).into_owned())
        }
        ColumnType::Text => match std::str::from_utf8(r.rest()) {
            Ok(s) => CqlValue::Text(s.to_owned()),
            Err(e) => return Err(ProtocolError::remote("text value", r.offset() + e.valid_up_to(), "invalid UTF-8")),
        },
        ColumnType::Blob => CqlValue::Blob(r.rest().to_vec()),
        ColumnType::Custom(_) => CqlValue::Custom(r.rest().to_vec()),
        ColumnType::Varint if r.is_empty() => CqlValue::Empty,
        ColumnType::Varint => CqlValue::Varint(bignum::minimal(r.rest()).to_vec()),
        ColumnType::Boolean => fixed_value!(1, "boolean value", true, |b: [u8; 1]| CqlValue::Boolean(b[0] != 0)),
        ColumnType::Tinyint => fixed_value!(1, "tinyint value", false, |b| CqlValue::Tinyint(i8::from_be_bytes(b))),
        ColumnType::Smallint => fixed_value!(2, "smallint value", false, |b| CqlValue::Smallint(i16::from_be_bytes(b))),
        ColumnType::Int => fixed_value!(4, "int value", true, |b| CqlValue::Int(i32::from_be_bytes(b))),
        ColumnType::Float => fixed_value!(4, "float value", true, |b| CqlValue::Float(f32::from_be_bytes(b))),
        ColumnType::Date => fixed_value!(4, "date value", false, |b| {
            CqlValue::Date((i64::from(u32::from_be_bytes(b)) - DATE_EPOCH) as i32)
        }),
        ColumnType::Bigint => fixed_value!(8, "bigint value", true, |b| CqlValue::Bigint(i64::from_be_bytes(b))),
        ColumnType::Counter => fixed_value!(8, "counter value", true, |b| CqlValue::Counter(i64::from_be_bytes(b))),
        ColumnType::Double => fixed_value!(8, "double value", true, |b| CqlValue::Double(f64::from_be_bytes(b))),
        ColumnType::Timestamp => {
            fixed_value!(8, "timestamp value", true, |b| CqlValue::Timestamp(i64::from_be_bytes(b)))
        }
        ColumnType::Time => {
            let bytes = fixed::<8>(&r, "time value", false)?.unwrap_or_default();
            CqlValue::Time(check_time(i64::from_be_bytes(bytes), &r)?)
        }
        ColumnType::Uuid => fixed_value!(16, "uuid value", true, CqlValue::Uuid),
        ColumnType::Timeuuid => match fixed::<16>(&r, "timeuuid value", true)? {
            Some(bytes) => {
                check_timeuuid(&bytes, &r)?;
                CqlValue::Timeuuid(bytes)
            }
            None => CqlValue::Empty,
        },
        ColumnType::Inet if r.is_empty() => CqlValue::Empty,
        ColumnType::Inet => match inet_from_bytes(r.rest()) {
            Some(ip) => CqlValue::Inet(ip),
            None => return Err(r.error("inet value", format!("address of {} bytes, expected 4 or 16", r.remaining()))),
        },
        ColumnType::Decimal if r.is_empty() => CqlValue::Empty,
        ColumnType::Decimal => {
            let mut r = r;
            let scale = r.i32("decimal scale")?;
            if r.is_empty() {
                return Err(r.error("decimal unscaled value", "missing (needs at least one byte)"));
            }
            CqlValue::Decimal { scale, unscaled: bignum::minimal(r.rest()).to_vec() }
        }
        ColumnType::Duration => {
            let (months, days, nanos) = read_duration(r)?;
            CqlValue::Duration { months, days, nanos }
        }
        ColumnType::List(e) | ColumnType::Set(e) => {
            let mut r = r;
            let field = if matches!(ty, ColumnType::List(_)) { "list element" } else { "set element" };
            let n = collection_count(&mut r, "collection element count", 1)?;
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(element(&mut r, field)?.map(|value| decode_at(e, value)).transpose()?);
            }
            no_trailing(&r, "collection")?;
            if matches!(ty, ColumnType::List(_)) {
                CqlValue::List(items)
            } else {
                CqlValue::Set(items)
            }
        }
        ColumnType::Map(k, v) => {
            let mut r = r;
            let n = collection_count(&mut r, "map entry count", 2)?;
            let mut entries = Vec::with_capacity(n);
            for _ in 0..n {
                let key = element(&mut r, "map key")?.map(|b| decode_at(k, b)).transpose()?;
                let value = element(&mut r, "map value")?.map(|b| decode_at(v, b)).transpose()?;
                entries.push((key, value));
            }
            no_trailing(&r, "map")?;
            CqlValue::Map(entries)
        }
        ColumnType::Tuple(types) => {
            let mut r = r;
            let mut items = Vec::new();
            for ty in types {
                if r.is_empty() {
                    break;
                }
                items.push(element(&mut r, "tuple component")?.map(|b| decode_at(ty, b)).transpose()?);
            }
            no_trailing(&r, "tuple component")?;
            CqlValue::Tuple(items)
        }
        ColumnType::Udt(udt) => {
            let mut r = r;
            let mut fields = Vec::new();
            for (name, ty) in &udt.fields {
                if r.is_empty() {
                    break;
                }
                let value = element(&mut r, "udt field")?.map(|b| decode_at(ty, b)).transpose()?;
                fields.push((name.clone(), value));
            }
            no_trailing(&r, "udt field")?;
            CqlValue::Udt(fields)
        }
        ColumnType::Vector(e, dimension) => {
            let mut r = r;
            let mut items = Vec::new();
            if let Some(size) = e.vector_fixed_len() {
                let want = size.saturating_mul(u64::from(*dimension));
                if r.remaining() as u64 != want {
                    return Err(r.error(
                        "vector value",
                        format!("{dimension} elements of {size} bytes need {want} bytes, got {}", r.remaining()),
                    ));
                }
                for _ in 0..*dimension {
                    items.push(decode_at(e, r.sub(size as usize, "vector element")?)?);
                }
            } else {
                for _ in 0..*dimension {
                    items.push(decode_at(e, vector_element(&mut r)?)?);
                }
                no_trailing(&r, "vector value")?;
            }
            CqlValue::Vector(items)
        }
    })
}

fn encode_into(value: &CqlValue, ty: &ColumnType, out: &mut Vec<u8>) -> Result<(), ValueError> {
    match (ty, value) {
        (ty, CqlValue::Empty) if ty.allows_empty() => {}
        (ColumnType::Ascii, CqlValue::Ascii(s) | CqlValue::Text(s)) => {
            if !s.is_ascii() {
                return Err(mismatch(ty, "the string is not ASCII"));
            }
            out.extend_from_slice(s.as_bytes());
        }
        (ColumnType::Text, CqlValue::Ascii(s) | CqlValue::Text(s)) => out.extend_from_slice(s.as_bytes()),
        (ColumnType::Blob | ColumnType::Custom(_), CqlValue::Blob(b) | CqlValue::Custom(b)) => out.extend_from_slice(b),
        (ColumnType::Boolean, CqlValue::Boolean(b)) => out.push(u8::from(*b)),
        (ColumnType::Tinyint, CqlValue::Tinyint(v)) => out.extend_from_slice(&v.to_be_bytes()),
        (ColumnType::Smallint, CqlValue::Smallint(v)) => out.extend_from_slice(&v.to_be_bytes()),
        (ColumnType::Int, CqlValue::Int(v)) => out.extend_from_slice(&v.to_be_bytes()),
        (ColumnType::Bigint, CqlValue::Bigint(v))
        | (ColumnType::Counter, CqlValue::Counter(v))
        | (ColumnType::Timestamp, CqlValue::Timestamp(v)) => out.extend_from_slice(&v.to_be_bytes()),
        (ColumnType::Float, CqlValue::Float(v)) => out.extend_from_slice(&v.to_be_bytes()),
        (ColumnType::Double, CqlValue::Double(v)) => out.extend_from_slice(&v.to_be_bytes()),
        (ColumnType::Varint, CqlValue::Varint(bytes)) => {
            if bytes.is_empty() {
                return Err(mismatch(ty, "a varint needs at least one byte"));
            }
            out.extend_from_slice(bignum::minimal(bytes));
        }
        (ColumnType::Decimal, CqlValue::Decimal { scale, unscaled }) => {
            if unscaled.is_empty() {
                return Err(mismatch(ty, "the unscaled value needs at least one byte"));
            }
            out.extend_from_slice(&scale.to_be_bytes());
            out.extend_from_slice(bignum::minimal(unscaled));
        }
        (ColumnType::Date, CqlValue::Date(days)) => {
            out.extend_from_slice(&((i64::from(*days) + DATE_EPOCH) as u32).to_be_bytes());
        }
        (ColumnType::Time, CqlValue::Time(nanos)) => {
            if !(0..NANOS_PER_DAY).contains(nanos) {
                return Err(mismatch(ty, format!("{nanos} ns is outside 0..{NANOS_PER_DAY}")));
            }
            out.extend_from_slice(&nanos.to_be_bytes());
        }
        (ColumnType::Duration, CqlValue::Duration { months, days, nanos }) => {
            if !duration_signs_agree(*months, *days, *nanos) {
                return Err(mismatch(ty, "months, days and nanoseconds must not have mixed signs"));
            }
            push_duration(*months, *days, *nanos, out);
        }
        (ColumnType::Uuid, CqlValue::Uuid(u)) => out.extend_from_slice(u),
        (ColumnType::Timeuuid, CqlValue::Timeuuid(u)) => {
            if u[6] >> 4 != 1 {
                return Err(mismatch(ty, "not a version 1 UUID"));
            }
            out.extend_from_slice(u);
        }
        (ColumnType::Inet, CqlValue::Inet(IpAddr::V4(ip))) => out.extend_from_slice(&ip.octets()),
        (ColumnType::Inet, CqlValue::Inet(IpAddr::V6(ip))) => out.extend_from_slice(&ip.octets()),
        (ColumnType::List(e), CqlValue::List(items)) | (ColumnType::Set(e), CqlValue::Set(items)) => {
            push_count(ty, items.len(), out)?;
            for item in items {
                encode_element(item.as_ref(), e, out)?;
            }
        }
        (ColumnType::Map(k, v), CqlValue::Map(entries)) => {
            push_count(ty, entries.len(), out)?;
            for (key, value) in entries {
                encode_element(key.as_ref(), k, out)?;
                encode_element(value.as_ref(), v, out)?;
            }
        }
        (ColumnType::Tuple(types), CqlValue::Tuple(items)) => {
            if items.len() > types.len() {
                return Err(mismatch(ty, format!("{} components for a tuple of {}", items.len(), types.len())));
            }
            for (item, ty) in items.iter().zip(types) {
                encode_element(item.as_ref(), ty, out)?;
            }
        }
        (ColumnType::Udt(udt), CqlValue::Udt(fields)) => {
            if fields.len() > udt.fields.len() {
                return Err(mismatch(ty, format!("{} fields for a type of {}", fields.len(), udt.fields.len())));
            }
            for ((name, value), (declared, field_type)) in fields.iter().zip(&udt.fields) {
                if name != declared {
                    return Err(mismatch(ty, format!("field '{name}' where '{declared}' is declared")));
                }
                encode_element(value.as_ref(), field_type, out)?;
            }
        }
        (ColumnType::Vector(e, dimension), CqlValue::Vector(items)) => {
            if items.len() as u64 != u64::from(*dimension) {
                return Err(mismatch(ty, format!("{} elements for dimension {dimension}", items.len())));
            }
            let fixed_len = e.vector_fixed_len();
            for item in items {
                let start = out.len();
                encode_into(item, e, out)?;
                let len = out.len() - start;
                match fixed_len {
                    Some(size) if len as u64 != size => {
                        return Err(mismatch(e, format!("vector elements of this type take {size} bytes, got {len}")));
                    }
                    Some(_) => {}
                    None => insert_vint_prefix(out, start),
                }
            }
        }
        (ty, value) => return Err(mismatch(ty, format!("got a value of another type: {value:?}"))),
    }
    Ok(())
}

fn push_count(ty: &ColumnType, n: usize, out: &mut Vec<u8>) -> Result<(), ValueError> {
    let n = i32::try_from(n).map_err(|_| mismatch(ty, "more than 2^31-1 elements"))?;
    out.extend_from_slice(&n.to_be_bytes());
    Ok(())
}

/// `[bytes]`: an i32 length (back-patched once the value is written), or -1 for null.
fn encode_element(value: Option<&CqlValue>, ty: &ColumnType, out: &mut Vec<u8>) -> Result<(), ValueError> {
    let Some(value) = value else {
        out.extend_from_slice(&(-1i32).to_be_bytes());
        return Ok(());
    };
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    encode_into(value, ty, out)?;
    let len = i32::try_from(out.len() - start - 4).map_err(|_| mismatch(ty, "value longer than 2^31-1 bytes"))?;
    out[start..start + 4].copy_from_slice(&len.to_be_bytes());
    Ok(())
}

/// Puts the unsigned-vint length of `out[start..]` in front of it, shifting it in place.
pub(crate) fn insert_vint_prefix(out: &mut Vec<u8>, start: usize) {
    let len = out.len() - start;
    let end = out.len();
    let (bytes, n) = unsigned_vint_bytes(len as u64);
    out.resize(end + n, 0);
    out.copy_within(start..end, start + n);
    out[start..start + n].copy_from_slice(&bytes[..n]);
}

#[cfg(test)]
mod tests {
    use super::super::column_type::UdtType;
    use super::*;

    fn ty(text: &str) -> ColumnType {
        ColumnType::parse_cql(text).unwrap()
    }

    /// The bytes `value` encodes to as `t`; on error, checks that `out` was left as it was.
    fn encode(t: &ColumnType, value: &CqlValue) -> Result<Vec<u8>, ValueError> {
        let mut out = vec![0xAA];
        match value.encode(t, &mut out) {
            Ok(()) => Ok(out.split_off(1)),
            Err(e) => {
                assert_eq!(out, [0xAA], "{value:?}");
                Err(e)
            }
        }
    }

    fn refused(expected: &str, reason: &str) -> Result<Vec<u8>, ValueError> {
        Err(ValueError { expected: expected.into(), reason: reason.into() })
    }

    fn point() -> ColumnType {
        ColumnType::Udt(Box::new(UdtType {
            keyspace: "ks".into(),
            name: "point".into(),
            fields: vec![("x".into(), ColumnType::Int), ("y".into(), ColumnType::Int)],
        }))
    }

    #[test]
    fn values_that_do_not_fit_their_type_are_refused_by_name() {
        use CqlValue::*;
        assert_eq!(encode(&ty("ascii"), &Text("é".into())), refused("ascii", "the string is not ASCII"));
        assert_eq!(encode(&ty("varint"), &Varint(vec![])), refused("varint", "a varint needs at least one byte"));
        assert_eq!(
            encode(&ty("decimal"), &Decimal { scale: 1, unscaled: vec![] }),
            refused("decimal", "the unscaled value needs at least one byte")
        );
        for nanos in [-1, NANOS_PER_DAY] {
            let reason = format!("{nanos} ns is outside 0..86400000000000");
            assert_eq!(encode(&ty("time"), &Time(nanos)), refused("time", &reason));
        }
        assert_eq!(encode(&ty("time"), &Time(NANOS_PER_DAY - 1)), Ok((NANOS_PER_DAY - 1).to_be_bytes().to_vec()));
        assert_eq!(
            encode(&ty("duration"), &Duration { months: 1, days: 0, nanos: -1 }),
            refused("duration", "months, days and nanoseconds must not have mixed signs")
        );
        let mut v4 = [0u8; 16];
        v4[6] = 0x41;
        assert_eq!(encode(&ty("timeuuid"), &Timeuuid(v4)), refused("timeuuid", "not a version 1 UUID"));
        v4[6] = 0x1F;
        assert_eq!(encode(&ty("timeuuid"), &Timeuuid(v4)), Ok(v4.to_vec()));
        assert_eq!(
            encode(&ty("tuple<int, int>"), &Tuple(vec![None, None, None])),
            refused("tuple<int, int>", "3 components for a tuple of 2")
        );
        assert_eq!(encode(&ty("tuple<int, int>"), &Tuple(vec![None])), Ok(vec![0xFF; 4]));
        assert_eq!(
            encode(&point(), &Udt(vec![("x".into(), None), ("y".into(), None), ("z".into(), None)])),
            refused("ks.point", "3 fields for a type of 2")
        );
        assert_eq!(
            encode(&point(), &Udt(vec![("y".into(), Some(Int(1)))])),
            refused("ks.point", "field 'y' where 'x' is declared")
        );
        assert_eq!(
            encode(&ty("vector<int, 2>"), &Vector(vec![Int(1)])),
            refused("vector<int, 2>", "1 elements for dimension 2")
        );
        // The legacy empty int is a value of int, but not one a vector element can hold.
        assert_eq!(
            encode(&ty("vector<int, 1>"), &Vector(vec![Empty])),
            refused("int", "vector elements of this type take 4 bytes, got 0")
        );
        assert_eq!(encode(&ty("int"), &Empty), Ok(vec![]));
        assert_eq!(encode(&ty("list<int>"), &Empty), refused("list<int>", "got a value of another type: Empty"));
        assert_eq!(encode(&ty("bigint"), &Int(1)), refused("bigint", "got a value of another type: Int(1)"));
        // An error inside a collection leaves nothing of the collection behind.
        assert_eq!(
            encode(&ty("list<ascii>"), &List(vec![Some(Ascii("a".into())), Some(Text("é".into()))])),
            refused("ascii", "the string is not ASCII")
        );
        assert_eq!(
            ValueError { expected: "ascii".into(), reason: "the string is not ASCII".into() }.to_string(),
            "cannot encode as ascii: the string is not ASCII"
        );
    }

    #[test]
    fn containers_encode_nulls_lengths_and_vint_prefixes() {
        use CqlValue::*;
        assert_eq!(
            encode(&ty("list<int>"), &List(vec![Some(Int(7)), None])),
            Ok([&[0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 7][..], &[0xFF; 4]].concat())
        );
        assert_eq!(
            encode(&ty("map<text, boolean>"), &Map(vec![(Some(Text("k".into())), Some(Boolean(true)))])),
            Ok(vec![0, 0, 0, 1, 0, 0, 0, 1, b'k', 0, 0, 0, 1, 1])
        );
        let long = "x".repeat(200);
        let mut expected = vec![1, b'a', 0x80, 200];
        expected.extend_from_slice(long.as_bytes());
        assert_eq!(encode(&ty("vector<text, 2>"), &Vector(vec![Text("a".into()), Text(long)])), Ok(expected));
        assert_eq!(
            encode(&point(), &Udt(vec![("x".into(), Some(Int(-2)))])),
            Ok(vec![0, 0, 0, 4, 0xFF, 0xFF, 0xFF, 0xFE])
        );
    }

    #[test]
    fn canonical_json_of_floats_and_long_varints() {
        let json = |v: CqlValue| v.to_canonical_json();
        assert_eq!(json(CqlValue::Double(f64::INFINITY)), Ok(json!("Infinity")));
        assert_eq!(json(CqlValue::Double(f64::NEG_INFINITY)), Ok(json!("-Infinity")));
        assert_eq!(json(CqlValue::Float(f32::NAN)), Ok(json!("NaN")));
        assert_eq!(json(CqlValue::Double(-0.0)), Ok(json!("-0")));
        assert_eq!(json(CqlValue::Double(0.0)), Ok(json!(0.0)));
        assert_eq!(json(CqlValue::Double(-1.5)), Ok(json!(-1.5)));
        assert_eq!(json(CqlValue::Float(2.5)), Ok(json!(2.5)));
        let long = vec![0x7F; bignum::MAX_RENDERED_BYTES + 1];
        let too_long = Err(ValueError {
            expected: "varint".into(),
            reason: "16385 bytes is too long to render in decimal (limit 16384 bytes)".into(),
        });
        assert_eq!(json(CqlValue::List(vec![Some(CqlValue::Varint(long.clone()))])), too_long);
        assert_eq!(json(CqlValue::Decimal { scale: 2, unscaled: long }), too_long);
        assert_eq!(json(CqlValue::Decimal { scale: 2, unscaled: vec![0xFF, 0x85] }), Ok(json!("-123e-2")));
    }

    #[test]
    fn hex_uuid_and_inet_helpers() {
        assert_eq!(hex_string(&[0x00, 0x0F, 0xA5, 0xFF]), "0x000fa5ff");
        let u: [u8; 16] = core::array::from_fn(|i| (i as u8) * 0x11);
        assert_eq!(uuid_string(&u), "00112233-4455-6677-8899-aabbccddeeff");
        assert_eq!(inet_from_bytes(&[10, 0, 0, 1]), Some(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1))));
        assert_eq!(inet_from_bytes(&u), Some(IpAddr::V6(Ipv6Addr::from(u))));
        assert_eq!(inet_from_bytes(&[1, 2, 3]), None);
    }
}
