//! What one node answered to one attempt of a request, kept as a type so that a caller (the
//! bulk loader's push-back, the driver's per-node errors and per-attempt request trackers)
//! decides by code, not by text.

use crate::cluster::RetryDecision;
use crate::connection::RequestError;

#[derive(Debug, Clone, PartialEq)]
pub struct NodeError {
    pub node: String,
    pub message: String,
    /// The server's error code, when the node answered with an ERROR.
    pub code: Option<i32>,
    /// No answer came within the request timeout.
    pub timed_out: bool,
    /// The attempt's error as the request would have failed with it (a server error with
    /// its details): what the DataStax driver hands a request tracker per execution.
    pub error: RequestError,
    /// Microseconds from this attempt's execution being sent to its failure.
    pub elapsed_us: u64,
    /// What the retry policy decided after it; `None` when no decision was taken (another
    /// execution was still running, or the statement was prepared again on that node).
    pub decision: Option<RetryDecision>,
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
            error: error.clone(),
            elapsed_us: 0,
            decision: None,
        }
    }

    /// The node is saturated: it timed out, or said Overloaded (0x1001) or WriteTimeout
    /// (0x1100).
    pub fn is_pushback(&self) -> bool {
        self.timed_out || matches!(self.code, Some(0x1001 | 0x1100))
    }
}

/// `[node, message, code, attempt]` (code `null` when the node answered no ERROR; attempt
/// the error's fields, `elapsed_us` and `decision`): the shape the driver reads (the WASM
/// facade writes it with `JsonWriter`; this is for tests).
#[cfg(feature = "serde")]
impl serde::Serialize for NodeError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        #[derive(serde::Serialize)]
        struct Attempt<'a> {
            #[serde(flatten)]
            error: &'a RequestError,
            elapsed_us: u64,
            decision: Option<&'static str>,
        }
        let decision = self.decision.map(|d| match d {
            RetryDecision::RetryNextNode | RetryDecision::RetrySameNode => "retry",
            RetryDecision::Rethrow => "rethrow",
            RetryDecision::Ignore => "ignore",
        });
        let mut tuple = serializer.serialize_tuple(4)?;
        tuple.serialize_element(&self.node)?;
        tuple.serialize_element(&self.message)?;
        tuple.serialize_element(&self.code)?;
        tuple.serialize_element(&Attempt { error: &self.error, elapsed_us: self.elapsed_us, decision })?;
        tuple.end()
    }
}
