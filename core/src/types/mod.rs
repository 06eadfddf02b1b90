//! CQL types and values.
//!
//! - [`ColumnType`]: the type tree, from result metadata (`[option]`), CQL type text
//!   (`map<text, frozen<list<int>>>`, as in `system_schema.columns.type`) or a marshal class
//!   name (how `vector<float, 3>` travels), and back to CQL text.
//! - [`ColumnType::validate`] and [`RowsValidator`]: zero-copy checks of values and of whole
//!   Rows results straight off the wire, allocation-free unless something is wrong.
//! - [`CqlValue`]: an owned value with decode, encode and the canonical JSON of the shared
//!   test vectors (tests/vectors/README.md). For tests, unload and debugging, not hot paths.
//! - [`encode_text`] / [`format_text`]: CSV/JSON field text to wire bytes and back, with no
//!   `CqlValue` in between, appending to caller-owned buffers.
//!
//! Decisions the protocol spec leaves open, made as Cassandra's own serializers make them:
//! - A zero-length value of boolean, int, bigint, counter, float, double, decimal, varint,
//!   timestamp, uuid, timeuuid or inet is the legacy "empty" value ([`CqlValue::Empty`],
//!   canonical JSON `null`). For tinyint, smallint, date, time, duration, collections and
//!   vectors zero bytes is an error; for text, ascii, blob and custom it is the empty value,
//!   and for tuples and UDTs a value with no components.
//! - Tuples and UDTs may carry fewer components than declared; the missing ones are absent
//!   (not null) in [`CqlValue`] and in canonical JSON.
//! - A `[bytes]` element with any negative length is null.
//! - Vector elements of boolean, int, float, bigint, counter, double, timestamp, uuid,
//!   timeuuid (and vectors of those) are packed bare; every other element type is preceded by
//!   an unsigned vint length (Cassandra 5's `valueLengthIfFixed`, which treats tinyint,
//!   smallint, date and time as variable-size).
//! - timeuuid must be version 1; time must lie in `0..86_400_000_000_000`; duration parts
//!   must not have mixed signs.

mod bignum;
mod column_type;
mod conversion;
mod json_out;
mod json_writer;
mod pattern;
mod scalar;
mod temporal;
mod text;
mod text_out;
mod validate;
mod value;
mod zone;

pub use bignum::{MAX_DECIMAL_DIGITS, MAX_RENDERED_BYTES};
pub use column_type::{ColumnType, TypeParseError, UdtType, MAX_TYPE_DEPTH};
pub use conversion::{parse_time_zone, BlobFormat, ConversionSettings, NumberFormat, Overflow, Rounding};
pub use json_out::{push_json_string, quote_in_place as quote_json_in_place};
pub use json_writer::JsonWriter;
pub use pattern::Pattern;
pub use text_out::format_text_with;
pub use text::{encode_text, format_json, format_text, EpochUnit, FieldError, TextOptions};
pub(crate) use text::format_text_file;
pub use validate::{validate_rows, RowsValidator};
pub use zone::{Transition, ZoneRules, MAX_TRANSITIONS};
pub use value::{push_uuid, CqlValue, ValueError};
