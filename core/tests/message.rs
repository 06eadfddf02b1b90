//! Request bodies byte for byte, and the response decoders' refusals by check and byte
//! (`cqlwire_core::message`). The well-formed responses are in frames.rs (python-made vectors).

use cqlwire_core::error::{ProtocolError, Side};
use cqlwire_core::message::{
    check_values, consistency, decode_prepared, decode_supported, error_code_name, format_ip, write_batch,
    write_query_parameters, BatchStatement, BatchType, ErrorDetails, QueryOptions, ServerError, ServerEvent,
};
use cqlwire_core::wire::Writer;

fn check(e: ProtocolError) -> (Side, &'static str, usize, String) {
    (e.side, e.field, e.offset, e.reason)
}

fn be(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

fn string(s: &str) -> Vec<u8> {
    let mut b = (s.len() as u16).to_be_bytes().to_vec();
    b.extend_from_slice(s.as_bytes());
    b
}

#[test]
fn consistency_and_error_codes_have_their_spec_names() {
    let names: Vec<&str> = (0..=0x000B).map(consistency::name).collect();
    assert_eq!(
        names,
        [
            "ANY", "ONE", "TWO", "THREE", "QUORUM", "ALL", "LOCAL_QUORUM", "EACH_QUORUM", "SERIAL", "LOCAL_SERIAL",
            "LOCAL_ONE", "UNKNOWN"
        ]
    );
    assert_eq!(
        [consistency::ANY, consistency::ONE, consistency::QUORUM, consistency::ALL, consistency::LOCAL_QUORUM],
        [0, 1, 4, 5, 6]
    );
    assert_eq!([consistency::SERIAL, consistency::LOCAL_SERIAL, consistency::LOCAL_ONE], [8, 9, 10]);
    assert_eq!(error_code_name(0x1800), "Unknown");
    assert_eq!(error_code_name(-1), "Unknown");
}

#[test]
fn addresses_format_by_length() {
    assert_eq!(format_ip(&[10, 0, 0, 1]), "10.0.0.1");
    assert_eq!(format_ip(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]), "::1");
    // Neither IPv4 nor IPv6: shown as hex rather than guessed at.
    assert_eq!(format_ip(&[1, 2, 0xab]), "0102ab");
    assert_eq!(format_ip(&[]), "");
}

#[test]
fn value_lists_are_checked_with_the_byte_of_each_fault() {
    assert_eq!(check_values(&[]), Ok(0));
    // One value, one null, one unset.
    let good = be(&[&[0, 3], &2i32.to_be_bytes(), &[7, 8], &(-1i32).to_be_bytes(), &(-2i32).to_be_bytes()]);
    assert_eq!(check_values(&good), Ok(3));
    let local = |field, offset, reason: &str| (Side::Local, field, offset, reason.to_owned());
    assert_eq!(check(check_values(&[0]).unwrap_err()).1, "values count");
    let bad_len = be(&[&[0, 1], &(-3i32).to_be_bytes()]);
    assert_eq!(check(check_values(&bad_len).unwrap_err()), local("value length", 2, "invalid length -3"));
    let short = be(&[&[0, 1], &3i32.to_be_bytes(), &[1, 2]]);
    let e = check_values(&short).unwrap_err();
    assert_eq!((e.side, e.field, e.offset), (Side::Local, "value", 6));
    let no_length = [0, 2, 0, 0, 0, 0, 0, 0];
    let e = check_values(&no_length).unwrap_err();
    assert_eq!((e.side, e.field, e.offset), (Side::Local, "value length", 6));
    let mut trailing = good.clone();
    trailing.extend_from_slice(&[9, 9]);
    assert_eq!(
        check(check_values(&trailing).unwrap_err()),
        local("values", good.len(), "2 bytes after the last value")
    );
}

fn parameters(version: u8, values: &[u8], o: &QueryOptions) -> Vec<u8> {
    let mut out = Vec::new();
    write_query_parameters(&mut Writer::new(&mut out), version, values, o);
    out
}

fn every_option() -> QueryOptions<'static> {
    QueryOptions {
        consistency: Some(consistency::QUORUM),
        serial_consistency: Some(consistency::LOCAL_SERIAL),
        page_size: Some(100),
        paging_state: Some(&[0xAB, 0xCD]),
        default_timestamp: Some(0x0102_0304_0506_0708),
        timeout_us: Some(5),
        skip_metadata: true,
        idempotent: true,
        tracing: true,
        keyspace: Some("ks"),
        now_in_seconds: Some(77),
    }
}

#[test]
fn query_parameters_carry_each_flag_and_field_in_protocol_order() {
    let values = [0, 1, 0, 0, 0, 1, 5];
    let tail = be(&[&100i32.to_be_bytes(), &2i32.to_be_bytes(), &[0xAB, 0xCD], &[0, 9], &0x0102_0304_0506_0708i64.to_be_bytes()]);
    // v4: a one-byte flags field; no keyspace or now_in_seconds.
    assert_eq!(parameters(4, &values, &every_option()), be(&[&[0, 4], &[0x3F], &values, &tail]));
    // v5: four bytes of flags, then the keyspace and now_in_seconds.
    let v5_tail = be(&[&tail, &string("ks"), &77i32.to_be_bytes()]);
    assert_eq!(parameters(5, &values, &every_option()), be(&[&[0, 4], &0x1BFu32.to_be_bytes(), &values, &v5_tail]));
    // Nothing set: LOCAL_ONE and no flags; no values, no VALUES flag.
    assert_eq!(parameters(4, &[], &QueryOptions::default()), [0, 0x0A, 0]);
    assert_eq!(parameters(5, &[], &QueryOptions::default()), [0, 0x0A, 0, 0, 0, 0]);
}

#[test]
fn batches_carry_statements_then_the_parameters_a_batch_may_have() {
    let values = [0, 1, 0, 0, 0, 1, 5];
    let statements = [
        BatchStatement::Query { cql: "INSERT 1", values: &values },
        BatchStatement::Prepared { id: &[0xEE, 0xFF], values: &[] },
    ];
    let mut out = Vec::new();
    write_batch(&mut Writer::new(&mut out), 5, BatchType::Unlogged, &statements, &every_option());
    let head = be(&[&[1], &[0, 2], &[0], &8i32.to_be_bytes(), b"INSERT 1", &values, &[1], &[0, 2, 0xEE, 0xFF], &[0, 0]]);
    // No page size, paging state or skip-metadata in a BATCH, even when asked for; nor VALUES.
    let params = be(&[&[0, 4], &0x1B0u32.to_be_bytes(), &[0, 9], &0x0102_0304_0506_0708i64.to_be_bytes(), &string("ks"), &77i32.to_be_bytes()]);
    assert_eq!(out, be(&[&head, &params]));
    assert_eq!([BatchType::Logged as u8, BatchType::Unlogged as u8, BatchType::Counter as u8], [0, 1, 2]);
}

fn error_body(code: i32, rest: &[u8]) -> Vec<u8> {
    be(&[&code.to_be_bytes(), &string("m"), rest])
}

#[test]
fn scyllas_rate_limit_error_reads_its_code_from_supported() {
    for (op, name) in [(0u8, "read"), (1, "write"), (2, "unknown")] {
        let body = error_body(0x4321, &[op, 1]);
        let e = ServerError::decode_with(&body, 4, Some(0x4321)).unwrap();
        assert_eq!((e.code_name, e.details), ("RateLimitReached", ErrorDetails::RateLimitReached { op_type: name, rejected_by_coordinator: true }));
    }
    let e = ServerError::decode_with(&error_body(0x4321, &[1, 0]), 4, Some(0x4321)).unwrap();
    assert_eq!(e.details, ErrorDetails::RateLimitReached { op_type: "write", rejected_by_coordinator: false });
    // Without that code announced it is an unknown error with no details.
    let e = ServerError::decode(&error_body(0x4321, &[1, 0]), 4).unwrap();
    assert_eq!((e.code_name, e.details), ("Unknown", ErrorDetails::None {}));
}

#[test]
fn write_timeout_contentions_only_follow_cas() {
    let fields = |write_type: &str, tail: &[u8]| {
        error_body(0x1100, &be(&[&[0, 1], &1i32.to_be_bytes(), &2i32.to_be_bytes(), &string(write_type), tail]))
    };
    let contentions = |body: &[u8]| match ServerError::decode(body, 5).unwrap().details {
        ErrorDetails::WriteTimeout { contentions, .. } => contentions,
        other => panic!("{other:?}"),
    };
    assert_eq!(contentions(&fields("CAS", &[0, 3])), Some(3));
    assert_eq!(contentions(&fields("CAS", &[])), None);
    assert_eq!(contentions(&fields("SIMPLE", &[0, 3])), None);
}

#[test]
fn error_bodies_are_refused_at_the_field_that_is_missing() {
    let at = |body: &[u8], version| {
        let e = ServerError::decode(body, version).unwrap_err();
        (e.side, e.field, e.offset)
    };
    let head = be(&[&[0, 1], &1i32.to_be_bytes(), &2i32.to_be_bytes()]);
    let negative = error_body(0x1300, &be(&[&head, &(-1i32).to_be_bytes(), &[0]]));
    assert_eq!(at(&negative, 5), (Side::Remote, "failure reason count", 21));
    assert_eq!(at(&negative, 4), (Side::Remote, "failure reason count", 21));
    // v5: the reason map's endpoint and code.
    let torn = error_body(0x1500, &be(&[&head, &1i32.to_be_bytes(), &[4, 10, 0, 0, 1, 0]]));
    assert_eq!(at(&torn, 5), (Side::Remote, "failure reason code", 26));
    let no_data_present = error_body(0x1300, &be(&[&head, &0i32.to_be_bytes()]));
    assert_eq!(at(&no_data_present, 4), (Side::Remote, "read failure data_present", 21));
    assert_eq!(at(&error_body(0x1000, &[0, 1]), 4).1, "unavailable required");
    assert_eq!(at(&error_body(0x2500, &[0, 9]), 4).1, "unprepared id");
    assert_eq!(at(&[0, 0], 4), (Side::Remote, "error code", 0));
}

#[test]
fn prepared_results_refuse_other_kinds_and_implausible_counts() {
    let at = |body: &[u8]| {
        let e = decode_prepared(body, 4).unwrap_err();
        (e.field, e.offset, e.reason)
    };
    assert_eq!(at(&1i32.to_be_bytes()), ("result kind", 4, "expected Prepared, got 1".to_owned()));
    let head = |flags: i32, columns: i32, pk: i32| be(&[&4i32.to_be_bytes(), &[0, 1, 7], &flags.to_be_bytes(), &columns.to_be_bytes(), &pk.to_be_bytes()]);
    assert_eq!(at(&head(0, 0, -1)), ("prepared metadata pk_count", 19, "implausible count -1".to_owned()));
    assert_eq!(at(&head(0, 0, 1025)), ("prepared metadata pk_count", 19, "implausible count 1025".to_owned()));
    assert_eq!(at(&head(0, -1, 0)), ("prepared metadata columns_count", 19, "implausible count -1".to_owned()));
    assert_eq!(at(&head(0, 65536, 0)), ("prepared metadata columns_count", 19, "implausible count 65536".to_owned()));
    // 1024 partition key indexes are plausible; their bytes must then be there.
    assert_eq!(at(&head(0, 0, 1024)).0, "prepared metadata pk_index");
    // 65535 columns are plausible; the first one's bytes must then be there.
    assert_eq!(at(&head(0, 65535, 0)).0, "prepared column keyspace");
    let flagged = head(0x10, 0, 0);
    let p = decode_prepared(&flagged, 4).unwrap();
    assert_eq!((p.flags, p.keyspace, p.bind_columns.len()), (0x10, None, 0));
}

#[test]
fn events_refuse_unknown_types_and_targets() {
    let e = ServerEvent::decode(&string("NEW_EVENT")).unwrap_err();
    assert_eq!((e.field, e.offset, e.reason.as_str()), ("event type", 11, "unknown event type NEW_EVENT"));
    let body = be(&[&string("SCHEMA_CHANGE"), &string("CREATED"), &string("VIEW"), &string("ks")]);
    let e = ServerEvent::decode(&body).unwrap_err();
    assert_eq!((e.field, e.offset, e.reason.as_str()), ("schema change target", body.len(), "unknown target VIEW"));
}

#[test]
fn supported_refuses_a_torn_multimap() {
    let e = decode_supported(&be(&[&[0, 2], &string("K"), &[0, 1], &string("v")])).unwrap_err();
    assert_eq!((e.field, e.offset), ("supported key", 10));
    assert_eq!(decode_supported(&[0, 0]).unwrap(), Vec::<(String, Vec<String>)>::new());
}

#[test]
fn a_batch_is_refused_for_a_malformed_value_list_or_more_statements_than_its_count_holds() {
    use cqlwire_core::connection::{encode_body, Request};
    let batch = |statements: &[BatchStatement]| {
        let mut out = Vec::new();
        let request = Request::Batch { kind: BatchType::Logged, statements, options: QueryOptions::default() };
        encode_body(&mut out, 4, &request).map(|()| out)
    };
    let good = [0u8, 1, 0, 0, 0, 1, 5];
    // The second statement's one value declares 2 bytes and holds 1.
    let short = [0u8, 1, 0, 0, 0, 2, 5];
    let statements = [
        BatchStatement::Query { cql: "INSERT 1", values: &good },
        BatchStatement::Prepared { id: &[1], values: &short },
    ];
    assert_eq!(batch(&statements).unwrap_err().0, "local protocol error in value at byte 6: needs 2 bytes, 1 left");
    assert!(batch(&statements[..1]).is_ok());
    // The count is a u16: 65,535 statements fit, one more does not.
    let many = |n: usize| (0..n).map(|_| BatchStatement::Prepared { id: &[1], values: &[] }).collect::<Vec<_>>();
    let body = batch(&many(65_535)).unwrap();
    assert_eq!(body[1..3], [0xFF, 0xFF]);
    assert_eq!(batch(&many(65_536)).unwrap_err().0, "a batch holds at most 65535 statements, got 65536");
}
