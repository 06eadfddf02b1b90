//! What one node answered to one attempt of a request, kept as a type so that a caller (the
//! bulk loader's push-back, the driver's per-node errors) decides by code, not by text.

use crate::connection::RequestError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeError {
    pub node: String,
    pub message: String,
    /// The server's error code, when the node answered with an ERROR.
    pub code: Option<i32>,
    /// No answer came within the request timeout.
    pub timed_out: bool,
}

impl NodeError {
    pub fn new(node: String, error: &RequestError) -> Self {
        NodeError {
            node,
            message: super::request_error_message(error),
            code: match error {
                RequestError::Server(e) => Some(e.code),
                _ => None,
            },
            timed_out: matches!(error, RequestError::Timeout { .. }),
        }
    }

    /// The node is saturated: it timed out, or said Overloaded (0x1001) or WriteTimeout
    /// (0x1100).
    pub fn is_pushback(&self) -> bool {
        self.timed_out || matches!(self.code, Some(0x1001 | 0x1100))
    }
}

/// `[node, message, code]` (code `null` when the node answered no ERROR): the shape the
/// driver reads (the WASM facade writes it with `JsonWriter`; this is for tests).
#[cfg(feature = "serde")]
impl serde::Serialize for NodeError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        let mut tuple = serializer.serialize_tuple(3)?;
        tuple.serialize_element(&self.node)?;
        tuple.serialize_element(&self.message)?;
        tuple.serialize_element(&self.code)?;
        tuple.end()
    }
}
