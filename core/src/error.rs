//! Errors, split by who broke the rules: the remote peer, or us (h11's distinction).

use std::fmt;

/// Which side violated the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Side {
    /// We produced something the protocol forbids, or the caller asked for it.
    Local,
    /// The peer sent bytes we cannot accept.
    Remote,
}

/// A protocol violation that names the field and the byte offset where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtocolError {
    pub side: Side,
    pub field: &'static str,
    pub offset: usize,
    pub reason: String,
}

impl ProtocolError {
    pub fn remote(field: &'static str, offset: usize, reason: impl Into<String>) -> Self {
        Self { side: Side::Remote, field, offset, reason: reason.into() }
    }
    pub fn local(field: &'static str, offset: usize, reason: impl Into<String>) -> Self {
        Self { side: Side::Local, field, offset, reason: reason.into() }
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let who = match self.side {
            Side::Local => "local",
            Side::Remote => "remote",
        };
        write!(f, "{who} protocol error in {} at byte {}: {}", self.field, self.offset, self.reason)
    }
}

impl std::error::Error for ProtocolError {}
