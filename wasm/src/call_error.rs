//! The one error value a facade call throws: typed fields, so the driver maps it to its
//! error classes without parsing text (see driver/src/core_errors.ts).

use cqlwire_core::error::{ProtocolError, Side};
use wasm_bindgen::prelude::*;

/// Thrown by a failing facade call. `code` is stable (`ERR_CONFIG`, `ERR_PROTOCOL`, ...);
/// a protocol error also names the side that broke the rules, the field and the byte offset.
#[wasm_bindgen(getter_with_clone)]
pub struct CallError {
    pub code: String,
    pub message: String,
    /// `local` or `remote`; set only for protocol errors.
    pub side: Option<String>,
    pub field: Option<String>,
    pub offset: Option<u32>,
    /// The protocol error's reason without the side/field/offset preamble.
    pub reason: Option<String>,
}

/// A call refused for a reason other than a protocol violation.
pub fn call_error(code: &str, message: impl std::fmt::Display) -> CallError {
    CallError { code: code.to_string(), message: message.to_string(), side: None, field: None, offset: None, reason: None }
}

/// A protocol violation, with the side, field and offset carried as fields.
pub fn protocol_error(e: ProtocolError) -> CallError {
    let side = match e.side {
        Side::Local => "local",
        Side::Remote => "remote",
    };
    CallError {
        code: "ERR_PROTOCOL".to_string(),
        message: e.to_string(),
        side: Some(side.to_string()),
        field: Some(e.field.to_string()),
        offset: Some(u32::try_from(e.offset).unwrap_or(u32::MAX)),
        reason: Some(e.reason),
    }
}
