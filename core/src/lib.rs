//! cqlwire-core: a sans-IO engine for the CQL native protocol.
//!
//! In: bytes, `now` (µs, supplied by the host) and commands. Out: bytes, events and the
//! next deadline. No sockets, no clock, no OS randomness, no async runtime.

pub mod bulk;
pub mod cluster;
pub mod compression;
pub mod connection;
mod csv_out;
mod json_out;
pub mod error;
pub mod frame;
pub mod json_fields;
mod id_map;
pub mod lwt;
pub mod message;
pub mod name_map;
pub mod rows;
pub mod scylla;
pub mod session;
pub mod types;
pub mod v5;
pub mod wire;
