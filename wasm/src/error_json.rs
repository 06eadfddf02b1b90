//! Errors and server events as the JSON the driver reads (`driver/src/session.ts`), written
//! with the core's [`JsonWriter`]. The shapes are those serde's derives wrote (tests pin them
//! against serde_json): a request error's `kind` and fields flattened into the session
//! error, a server error's details flattened into it.

use cqlwire_core::connection::{CloseReason, RequestError};
use cqlwire_core::error::Side;
use cqlwire_core::message::{hex, ErrorDetails, ServerError, ServerEvent};
use cqlwire_core::cluster::RetryDecision;
use cqlwire_core::session::{NodeError, SessionError};
use cqlwire_core::types::JsonWriter;

/// A FAILED event's payload.
pub fn session_error_json(e: &SessionError) -> String {
    let mut w = JsonWriter::new();
    w.open('{');
    request_error_fields(&mut w, &e.error);
    w.key("node").string(&e.node).key("attempts").number(e.attempts);
    w.key("no_host_available").boolean(e.no_host_available).key("errors");
    node_errors(&mut w, &e.errors);
    w.key("trace").open('[');
    for t in &e.trace {
        w.open('{')
            .key("node")
            .string(&t.node)
            .key("decision")
            .string(t.decision)
            .key("reason")
            .string(t.reason)
            .close('}');
    }
    w.close(']').close('}');
    w.finish()
}

/// A CONNECT_FAILED event's payload: `{"errors": [[address, reason], ...]}`.
pub fn connect_failed_json(errors: &[(String, CloseReason)]) -> String {
    let mut w = JsonWriter::new();
    w.open('{').key("errors").open('[');
    for (address, reason) in errors {
        w.open('[').string(address);
        close_reason(&mut w, reason);
        w.close(']');
    }
    w.close(']').close('}');
    w.finish()
}

/// A server-pushed EVENT, tagged by its `type`.
pub fn server_event_json(e: &ServerEvent) -> String {
    let mut w = JsonWriter::new();
    w.open('{');
    match e {
        ServerEvent::TopologyChange { change, address } => {
            w.key("type").string("TOPOLOGY_CHANGE").key("change").string(change).key("address").string(address);
        }
        ServerEvent::StatusChange { change, address } => {
            w.key("type").string("STATUS_CHANGE").key("change").string(change).key("address").string(address);
        }
        ServerEvent::SchemaChange { change, target, keyspace, name, arg_types } => {
            w.key("type").string("SCHEMA_CHANGE").key("change").string(change).key("target").string(target);
            w.key("keyspace").string(keyspace).key("name").opt_string(name.as_deref()).key("arg_types");
            strings(&mut w, arg_types);
        }
    }
    w.close('}');
    w.finish()
}

fn strings(w: &mut JsonWriter, items: &[String]) {
    w.open('[');
    for item in items {
        w.string(item);
    }
    w.close(']');
}

fn side(s: Side) -> &'static str {
    match s {
        Side::Local => "local",
        Side::Remote => "remote",
    }
}

fn protocol_fields(w: &mut JsonWriter, message: &str, s: Side, field: &str, offset: usize) {
    w.key("message")
        .string(message)
        .key("side")
        .string(side(s))
        .key("field")
        .string(field)
        .key("offset")
        .number(offset);
}

/// `kind` and the fields of a request error, inside an object the caller opened.
/// Each failed attempt as `[node, message, code, attempt]`: `code` null when the node
/// answered no ERROR; `attempt` the error's own fields (as a FAILED event's), `elapsed_us`
/// (from its execution being sent to its failure) and `decision` (`"retry"`, `"rethrow"`,
/// `"ignore"`, or null when none was taken after it).
pub fn node_errors(w: &mut JsonWriter, errors: &[NodeError]) {
    w.open('[');
    for n in errors {
        w.open('[').string(&n.node).string(&n.message).opt_number(n.code).open('{');
        request_error_fields(w, &n.error);
        w.key("elapsed_us").number(n.elapsed_us).key("decision");
        match n.decision {
            Some(RetryDecision::RetryNextNode | RetryDecision::RetrySameNode) => w.string("retry"),
            Some(RetryDecision::Rethrow) => w.string("rethrow"),
            Some(RetryDecision::Ignore) => w.string("ignore"),
            None => w.null(),
        };
        w.close('}').close(']');
    }
    w.close(']');
}

fn request_error_fields(w: &mut JsonWriter, e: &RequestError) {
    match e {
        RequestError::Server(s) => {
            w.key("kind").string("server");
            server_error_fields(w, s);
        }
        RequestError::Timeout { message, timeout_ms } => {
            w.key("kind").string("timeout").key("message").string(message).key("timeout_ms").number(timeout_ms);
        }
        RequestError::Closed { message, written } => {
            w.key("kind").string("closed").key("message").string(message).key("written").boolean(*written);
        }
        RequestError::Protocol { message, side, field, offset } => {
            w.key("kind").string("protocol");
            protocol_fields(w, message, *side, field, *offset);
        }
    }
}

fn close_reason(w: &mut JsonWriter, r: &CloseReason) {
    w.open('{');
    match r {
        CloseReason::Eof { message } => {
            w.key("kind").string("eof").key("message").string(message);
        }
        CloseReason::Protocol { message, side, field, offset } => {
            w.key("kind").string("protocol");
            protocol_fields(w, message, *side, field, *offset);
        }
        CloseReason::Auth { message, code } => {
            w.key("kind").string("auth").key("message").string(message).key("code").opt_number(*code);
        }
        CloseReason::Handshake { message, error } => {
            w.key("kind").string("handshake").key("message").string(message).key("error");
            match error {
                Some(e) => {
                    w.open('{');
                    server_error_fields(w, e);
                    w.close('}');
                }
                None => {
                    w.null();
                }
            }
        }
        CloseReason::VersionRefused { message, fallback } => {
            w.key("kind").string("version_refused").key("message").string(message).key("fallback").number(fallback);
        }
        CloseReason::HeartbeatTimeout { message } => {
            w.key("kind").string("heartbeat_timeout").key("message").string(message);
        }
        CloseReason::HandshakeTimeout { message } => {
            w.key("kind").string("handshake_timeout").key("message").string(message);
        }
        CloseReason::Local { message } => {
            w.key("kind").string("local").key("message").string(message);
        }
    }
    w.close('}');
}

/// `code`, `name`, `message` and the code's details, inside an object the caller opened.
fn server_error_fields(w: &mut JsonWriter, e: &ServerError) {
    w.key("code").number(e.code).key("name").string(e.code_name).key("message").string(&e.message);
    details(w, &e.details);
}

fn reasons(w: &mut JsonWriter, reasons: &[(String, u16)]) {
    w.key("reasons").open('[');
    for (address, code) in reasons {
        w.open('[').string(address).number(code).close(']');
    }
    w.close(']');
}

fn consistency_counts(w: &mut JsonWriter, consistency: &str, received: i32, block_for: i32) {
    w.key("consistency").string(consistency).key("received").number(received).key("block_for").number(block_for);
}

fn details(w: &mut JsonWriter, d: &ErrorDetails) {
    match d {
        ErrorDetails::None {} => {}
        ErrorDetails::Unavailable { consistency, required, alive } => {
            w.key("consistency").string(consistency).key("required").number(required).key("alive").number(alive);
        }
        ErrorDetails::WriteTimeout { consistency, received, block_for, write_type, contentions } => {
            consistency_counts(w, consistency, *received, *block_for);
            w.key("write_type").string(write_type).key("contentions").opt_number(*contentions);
        }
        ErrorDetails::ReadTimeout { consistency, received, block_for, data_present } => {
            consistency_counts(w, consistency, *received, *block_for);
            w.key("data_present").boolean(*data_present);
        }
        ErrorDetails::ReadFailure { consistency, received, block_for, reasons: r, num_failures, data_present } => {
            consistency_counts(w, consistency, *received, *block_for);
            reasons(w, r);
            w.key("num_failures").number(num_failures).key("data_present").boolean(*data_present);
        }
        ErrorDetails::WriteFailure { consistency, received, block_for, reasons: r, num_failures, write_type } => {
            consistency_counts(w, consistency, *received, *block_for);
            reasons(w, r);
            w.key("num_failures").number(num_failures).key("write_type").string(write_type);
        }
        ErrorDetails::FunctionFailure { keyspace, function, arg_types } => {
            w.key("keyspace").string(keyspace).key("function").string(function).key("arg_types");
            strings(w, arg_types);
        }
        ErrorDetails::AlreadyExists { keyspace, table } => {
            w.key("keyspace").string(keyspace).key("table").string(table);
        }
        ErrorDetails::Unprepared { unprepared_id } => {
            w.key("unprepared_id").string(&hex(unprepared_id));
        }
        ErrorDetails::CasWriteUnknown { consistency, received, block_for } => {
            consistency_counts(w, consistency, *received, *block_for);
        }
        ErrorDetails::RateLimitReached { op_type, rejected_by_coordinator } => {
            w.key("op_type").string(op_type).key("rejected_by_coordinator").boolean(*rejected_by_coordinator);
        }
    }
}

/// Every variant against serde_json's output for the derives the driver was built against.
#[cfg(test)]
mod tests {
    use super::*;
    use cqlwire_core::session::TraceEntry;

    fn server(code: i32, details: ErrorDetails) -> ServerError {
        ServerError {
            code,
            code_name: cqlwire_core::message::error_code_name(code),
            message: "m \"q\"\u{7}".into(),
            details,
        }
    }

    fn all_details() -> Vec<ErrorDetails> {
        let reasons = vec![("10.0.0.1".to_string(), 5u16), ("::1".to_string(), 0)];
        vec![
            ErrorDetails::None {},
            ErrorDetails::Unavailable { consistency: "QUORUM", required: 2, alive: 1 },
            ErrorDetails::WriteTimeout {
                consistency: "ONE",
                received: 0,
                block_for: 1,
                write_type: "CAS".into(),
                contentions: Some(3),
            },
            ErrorDetails::WriteTimeout {
                consistency: "ONE",
                received: 0,
                block_for: 1,
                write_type: "SIMPLE".into(),
                contentions: None,
            },
            ErrorDetails::ReadTimeout { consistency: "ALL", received: 1, block_for: 3, data_present: true },
            ErrorDetails::ReadFailure {
                consistency: "ALL",
                received: 1,
                block_for: 3,
                reasons: reasons.clone(),
                num_failures: 2,
                data_present: false,
            },
            ErrorDetails::WriteFailure {
                consistency: "ALL",
                received: 1,
                block_for: 3,
                reasons,
                num_failures: 2,
                write_type: "BATCH".into(),
            },
            ErrorDetails::FunctionFailure {
                keyspace: "ks".into(),
                function: "f".into(),
                arg_types: vec!["int".into(), "text".into()],
            },
            ErrorDetails::AlreadyExists { keyspace: "ks".into(), table: "".into() },
            ErrorDetails::Unprepared { unprepared_id: vec![0xab, 0xcd] },
            ErrorDetails::CasWriteUnknown { consistency: "SERIAL", received: 0, block_for: 2 },
            ErrorDetails::RateLimitReached { op_type: "write", rejected_by_coordinator: true },
        ]
    }

    fn request_errors() -> Vec<RequestError> {
        let mut errors: Vec<RequestError> =
            all_details().into_iter().map(|d| RequestError::Server(server(0x1100, d))).collect();
        errors.push(RequestError::Timeout { message: "t".into(), timeout_ms: u64::MAX });
        errors.push(RequestError::Closed { message: "c".into(), written: true });
        errors.push(RequestError::Protocol { message: "p".into(), side: Side::Remote, field: "f", offset: 7 });
        errors.push(RequestError::Protocol { message: "p".into(), side: Side::Local, field: "g", offset: 0 });
        errors
    }

    #[test]
    fn session_errors_match_serde_for_every_request_error_and_detail() {
        for error in request_errors() {
            let attempt = NodeError { elapsed_us: 3, decision: Some(RetryDecision::Rethrow), ..NodeError::new("a".into(), &error) };
            let e = SessionError {
                error,
                node: "n:9042".into(),
                attempts: 2,
                no_host_available: true,
                errors: vec![attempt],
                trace: vec![TraceEntry { node: "a".into(), decision: "retry", reason: "overloaded" }],
            };
            assert_eq!(session_error_json(&e), serde_json::to_string(&e).unwrap());
        }
    }

    #[test]
    fn close_reasons_match_serde() {
        let mut reasons = vec![
            CloseReason::Eof { message: "e".into() },
            CloseReason::Protocol { message: "p".into(), side: Side::Remote, field: "f", offset: 3 },
            CloseReason::Auth { message: "a".into(), code: Some(256) },
            CloseReason::Auth { message: "a".into(), code: None },
            CloseReason::Handshake { message: "h".into(), error: None },
            CloseReason::VersionRefused { message: "v".into(), fallback: 4 },
            CloseReason::HeartbeatTimeout { message: "hb".into() },
            CloseReason::HandshakeTimeout { message: "ht".into() },
            CloseReason::Local { message: "l".into() },
        ];
        reasons.extend(
            all_details()
                .into_iter()
                .map(|d| CloseReason::Handshake { message: "h".into(), error: Some(server(0x2200, d)) }),
        );
        let errors: Vec<(String, CloseReason)> = reasons.into_iter().map(|r| ("h:1".to_string(), r)).collect();
        // The event was `json!({ "errors": errors })`, whose `Value` sorts keys: the same
        // document, each reason's keys now in declaration order.
        let expected = serde_json::json!({ "errors": errors });
        let written: serde_json::Value = serde_json::from_str(&connect_failed_json(&errors)).unwrap();
        assert_eq!(written, expected);
        let one = [("h:1".to_string(), CloseReason::Auth { message: "a".into(), code: None })];
        assert_eq!(connect_failed_json(&one), r#"{"errors":[["h:1",{"kind":"auth","message":"a","code":null}]]}"#);
        assert_eq!(connect_failed_json(&[]), r#"{"errors":[]}"#);
    }

    #[test]
    fn server_events_match_serde() {
        let events = [
            ServerEvent::TopologyChange { change: "NEW_NODE".into(), address: "1.2.3.4:9042".into() },
            ServerEvent::StatusChange { change: "DOWN".into(), address: "[::1]:9042".into() },
            ServerEvent::SchemaChange {
                change: "CREATED".into(),
                target: "TABLE".into(),
                keyspace: "ks".into(),
                name: Some("t".into()),
                arg_types: vec![],
            },
            ServerEvent::SchemaChange {
                change: "DROPPED".into(),
                target: "FUNCTION".into(),
                keyspace: "ks".into(),
                name: None,
                arg_types: vec!["int".into()],
            },
        ];
        for e in &events {
            assert_eq!(server_event_json(e), serde_json::to_string(e).unwrap());
        }
    }
}
