//! Retry and speculative-execution decisions.
//!
//! The default rules follow the DataStax drivers' default retry policy, with every retry of
//! a request that might already have been applied gated on idempotence. An Unavailable was
//! refused by the coordinator before any replica saw it, so it is retried once on the next
//! node whatever the statement, as the DataStax drivers, gocql and scylla-rust-driver do.

use super::Decision;

/// The `writeType` of a WRITE_TIMEOUT / WRITE_FAILURE error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WriteType {
    Simple,
    Batch,
    UnloggedBatch,
    Counter,
    BatchLog,
    Cas,
    View,
    Cdc,
    Other,
}

impl WriteType {
    /// Reads the protocol's `writeType` string; anything unrecognised is `Other`.
    pub fn parse(text: &str) -> WriteType {
        match text {
            "SIMPLE" => WriteType::Simple,
            "BATCH" => WriteType::Batch,
            "UNLOGGED_BATCH" => WriteType::UnloggedBatch,
            "COUNTER" => WriteType::Counter,
            "BATCH_LOG" => WriteType::BatchLog,
            "CAS" => WriteType::Cas,
            "VIEW" => WriteType::View,
            "CDC" => WriteType::Cdc,
            _ => WriteType::Other,
        }
    }
}

/// What went wrong with an attempt, as far as retrying is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// UNAVAILABLE: the coordinator knew too few replicas were alive; nothing was applied.
    Unavailable,
    /// OVERLOADED: the coordinator refused the request.
    Overloaded,
    /// IS_BOOTSTRAPPING: the coordinator is still joining.
    IsBootstrapping,
    /// TRUNCATE_ERROR.
    TruncateError,
    /// READ_TIMEOUT with its structured fields.
    ReadTimeout { received: i32, block_for: i32, data_present: bool },
    /// WRITE_TIMEOUT with its write type.
    WriteTimeout { write_type: WriteType },
    /// Our own per-request deadline passed before any response.
    ClientTimeout,
    /// The connection closed after the request was written to it: the outcome is unknown.
    ConnectionClosed,
    /// The connection closed before the request was written: nothing reached the server.
    NotWritten,
    /// SERVER_ERROR.
    ServerError,
    /// Scylla's per-partition rate limit: the extension's document says the caller decides.
    RateLimited,
    /// Anything else (syntax, invalid, unauthorized, read/write failure, ...).
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RetryDecision {
    /// Try the next node of the query plan.
    RetryNextNode,
    /// Try the same node again.
    RetrySameNode,
    /// Give the error to the caller.
    Rethrow,
    /// Report success with an empty result. The default rules never choose it; a policy
    /// layered on top (say, for best-effort writes) may, and the session must honour it.
    Ignore,
}

/// Why a request that was written and then got no answer (a client timeout, or the
/// connection closed) is not sent again.
pub const NOT_RESENT: &str = "no response: statement may have been applied and is not idempotent";

/// The default retry rules, with a cap on attempts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts per request, the first one included. 1 disables retries.
    pub max_attempts: u32,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy { max_attempts: 3 }
    }
}

impl RetryPolicy {
    /// Decides what to do after attempt number `attempt` (0 for the first try) failed with
    /// `error`.
    pub fn decide(&self, error: ErrorKind, attempt: u32, idempotent: bool, is_lwt: bool) -> Decision<RetryDecision> {
        use RetryDecision::*;
        let rule = Self::rule(error, attempt, idempotent, is_lwt);
        if matches!(rule.value, RetryNextNode | RetrySameNode) && attempt.saturating_add(1) >= self.max_attempts {
            return Decision { value: Rethrow, reason: "attempt limit reached" };
        }
        rule
    }

    fn rule(error: ErrorKind, attempt: u32, idempotent: bool, is_lwt: bool) -> Decision<RetryDecision> {
        use RetryDecision::*;
        let decision = |value, reason| Decision { value, reason };
        match error {
            ErrorKind::Unavailable if attempt > 0 => decision(Rethrow, "unavailable: already retried once"),
            ErrorKind::Unavailable => {
                decision(RetryNextNode, "unavailable: another coordinator may see more live replicas")
            }

            ErrorKind::Overloaded | ErrorKind::IsBootstrapping | ErrorKind::TruncateError if !idempotent => {
                decision(Rethrow, "coordinator refused: statement is not idempotent")
            }
            ErrorKind::Overloaded => decision(RetryNextNode, "overloaded: trying another coordinator"),
            ErrorKind::IsBootstrapping => decision(RetryNextNode, "bootstrapping: trying another coordinator"),
            ErrorKind::TruncateError => decision(RetryNextNode, "truncate error: trying another coordinator"),

            ErrorKind::ReadTimeout { .. } if attempt > 0 => decision(Rethrow, "read timeout: already retried once"),
            ErrorKind::ReadTimeout { received, block_for, .. } if received < block_for => {
                decision(Rethrow, "read timeout: too few replicas answered")
            }
            ErrorKind::ReadTimeout { data_present: true, .. } => {
                decision(Rethrow, "read timeout: data was present, the replicas are slow")
            }
            ErrorKind::ReadTimeout { .. } => {
                decision(RetrySameNode, "read timeout: enough replicas answered but not the one with the data")
            }

            ErrorKind::WriteTimeout { write_type: WriteType::BatchLog } if attempt == 0 => {
                decision(RetrySameNode, "write timeout on the batch log: replaying the batch is safe")
            }
            ErrorKind::WriteTimeout { write_type: WriteType::BatchLog } => {
                decision(Rethrow, "write timeout on the batch log: already retried once")
            }
            ErrorKind::WriteTimeout { write_type } if is_lwt || write_type == WriteType::Cas => {
                decision(Rethrow, "write timeout in a lightweight transaction: outcome unknown")
            }
            ErrorKind::WriteTimeout { .. } if idempotent => {
                decision(RetryNextNode, "write timeout: statement is idempotent")
            }
            ErrorKind::WriteTimeout { .. } => decision(Rethrow, "write timeout: statement is not idempotent"),

            ErrorKind::ClientTimeout | ErrorKind::ConnectionClosed if !idempotent => {
                decision(Rethrow, NOT_RESENT)
            }
            ErrorKind::ClientTimeout => decision(RetryNextNode, "client timeout: statement is idempotent"),
            ErrorKind::NotWritten => {
                decision(RetryNextNode, "connection closed before the request was written: nothing was applied")
            }
            ErrorKind::ConnectionClosed => decision(RetryNextNode, "connection closed: statement is idempotent"),

            ErrorKind::ServerError => decision(Rethrow, "server error: not retried"),
            ErrorKind::RateLimited => decision(Rethrow, "rate limit reached: never retried, the caller decides"),
            ErrorKind::Other => decision(Rethrow, "error is not retryable"),
        }
    }
}

/// Speculative executions: for idempotent statements only, start another attempt on the
/// next node of the plan when no response arrived after `delay_us`, up to `max_extra` times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpeculativePolicy {
    pub delay_us: u64,
    pub max_extra: u32,
}

impl SpeculativePolicy {
    pub const DISABLED: SpeculativePolicy = SpeculativePolicy { delay_us: 0, max_extra: 0 };

    /// How long after the latest execution started to start another one, given that
    /// `extra_started` speculative executions already run; `None` for never.
    pub fn next_delay(&self, idempotent: bool, extra_started: u32) -> Decision<Option<u64>> {
        if self.max_extra == 0 || self.delay_us == 0 {
            return Decision { value: None, reason: "speculative execution disabled" };
        }
        if !idempotent {
            return Decision { value: None, reason: "speculative execution needs an idempotent statement" };
        }
        if extra_started >= self.max_extra {
            return Decision { value: None, reason: "speculative executions exhausted" };
        }
        Decision { value: Some(self.delay_us), reason: "speculative execution scheduled" }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_types_parse() {
        // Every write type of the v4/v5 specs (section 9, WRITE_TIMEOUT), exactly as spelled.
        let all = [
            ("SIMPLE", WriteType::Simple),
            ("BATCH", WriteType::Batch),
            ("UNLOGGED_BATCH", WriteType::UnloggedBatch),
            ("COUNTER", WriteType::Counter),
            ("BATCH_LOG", WriteType::BatchLog),
            ("CAS", WriteType::Cas),
            ("VIEW", WriteType::View),
            ("CDC", WriteType::Cdc),
        ];
        for (text, write_type) in all {
            assert_eq!(WriteType::parse(text), write_type, "{text}");
        }
        assert_eq!(WriteType::parse("batch_log"), WriteType::Other);
        assert_eq!(WriteType::parse(""), WriteType::Other);
    }

    #[test]
    fn an_unavailable_goes_once_to_the_next_node_idempotent_or_not() {
        let policy = RetryPolicy::default();
        for (idempotent, lwt) in [(false, false), (false, true), (true, false), (true, true)] {
            let d = policy.decide(ErrorKind::Unavailable, 0, idempotent, lwt);
            assert_eq!(
                (d.value, d.reason),
                (RetryDecision::RetryNextNode, "unavailable: another coordinator may see more live replicas"),
                "idempotent {idempotent}, lwt {lwt}"
            );
            let d = policy.decide(ErrorKind::Unavailable, 1, idempotent, lwt);
            assert_eq!((d.value, d.reason), (RetryDecision::Rethrow, "unavailable: already retried once"));
        }
    }

    #[test]
    fn limit_overrides_a_retry_but_keeps_a_rethrow_reason() {
        let policy = RetryPolicy { max_attempts: 1 };
        let d = policy.decide(ErrorKind::Overloaded, 0, true, false);
        assert_eq!((d.value, d.reason), (RetryDecision::Rethrow, "attempt limit reached"));
        let d = policy.decide(ErrorKind::ServerError, 0, true, false);
        assert_eq!(d.reason, "server error: not retried");
    }

    #[test]
    fn a_closed_connection_retries_a_written_request_only_when_idempotent() {
        let policy = RetryPolicy::default();
        let d = policy.decide(ErrorKind::ConnectionClosed, 0, false, false);
        assert_eq!((d.value, d.reason), (RetryDecision::Rethrow, NOT_RESENT));
        let d = policy.decide(ErrorKind::ConnectionClosed, 0, true, false);
        assert_eq!((d.value, d.reason), (RetryDecision::RetryNextNode, "connection closed: statement is idempotent"));
        // Never written: safe to send elsewhere, idempotent or not, LWT or not.
        for (idempotent, lwt) in [(false, false), (false, true), (true, false)] {
            let d = policy.decide(ErrorKind::NotWritten, 0, idempotent, lwt);
            assert_eq!(d.value, RetryDecision::RetryNextNode);
        }
        assert_eq!(policy.decide(ErrorKind::NotWritten, 2, false, false).reason, "attempt limit reached");
    }

    #[test]
    fn speculative_only_for_idempotent_and_bounded() {
        let policy = SpeculativePolicy { delay_us: 5_000, max_extra: 2 };
        assert_eq!(policy.next_delay(true, 0).value, Some(5_000));
        assert_eq!(policy.next_delay(true, 1).value, Some(5_000));
        assert_eq!(policy.next_delay(true, 2).value, None);
        assert_eq!(policy.next_delay(false, 0).value, None);
        assert_eq!(SpeculativePolicy::DISABLED.next_delay(true, 0).value, None);
        // Either setting at 0 turns it off: a delay of 0 must not mean "at once", and no
        // count must not read as "exhausted".
        let no_delay = SpeculativePolicy { delay_us: 0, max_extra: 2 }.next_delay(true, 0);
        assert_eq!((no_delay.value, no_delay.reason), (None, "speculative execution disabled"));
        let no_count = SpeculativePolicy { delay_us: 5_000, max_extra: 0 }.next_delay(true, 0);
        assert_eq!((no_count.value, no_count.reason), (None, "speculative execution disabled"));
    }
}
