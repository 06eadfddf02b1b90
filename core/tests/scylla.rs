//! Scylla's protocol extensions in the core: token -> shard vectors, SUPPORTED parsing,
//! what STARTUP asks for, the rate-limit error and the LWT classifiers.

mod common;

use cqlwire_core::cluster::{missing_shards, shard_of, PoolSlot};
use cqlwire_core::lwt::{has_condition, is_lwt};
use cqlwire_core::message::{ErrorDetails, ServerError};
use cqlwire_core::scylla::{ScyllaFeatures, Sharding};

#[derive(serde::Deserialize)]
struct ShardVector {
    name: String,
    token: String,
    nr_shards: u16,
    ignore_msb: u8,
    shard: u16,
}

#[test]
fn token_to_shard_matches_the_independent_vectors() {
    let text = common::vector_file("scylla_shards.json");
    let vectors: Vec<ShardVector> = serde_json::from_str(&text).unwrap();
    assert!(vectors.len() > 900);
    for v in &vectors {
        let token: i64 = v.token.parse().unwrap();
        assert_eq!(shard_of(token, v.nr_shards, v.ignore_msb), v.shard, "{}: token {token}", v.name);
    }
}

#[test]
fn degenerate_sharding_parameters_do_not_panic() {
    assert_eq!(shard_of(i64::MAX, 0, 0), 0);
    assert_eq!(shard_of(i64::MAX, 4, 200), shard_of(i64::MAX, 4, 63));
}

#[test]
fn missing_shards_counts_blind_connections_against_the_gaps() {
    use PoolSlot::*;
    assert_eq!(missing_shards(&[On(0)], 4, 1), vec![1, 2, 3]);
    assert_eq!(missing_shards(&[On(0), Asking(2)], 4, 1), vec![1, 3]);
    assert_eq!(missing_shards(&[On(0), Blind, Blind], 4, 1), vec![1]);
    assert_eq!(missing_shards(&[On(1), On(1)], 2, 2), vec![0, 0]);
    assert_eq!(missing_shards(&[On(9)], 2, 1), vec![0, 1], "a shard beyond the count is ignored");
}

fn supported(pairs: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect())).collect()
}

const SCYLLA: &[(&str, &[&str])] = &[
    ("SCYLLA_SHARD", &["3"]),
    ("SCYLLA_NR_SHARDS", &["12"]),
    ("SCYLLA_PARTITIONER", &["org.apache.cassandra.dht.Murmur3Partitioner"]),
    ("SCYLLA_SHARDING_ALGORITHM", &["biased-token-round-robin"]),
    ("SCYLLA_SHARDING_IGNORE_MSB", &["12"]),
    ("SCYLLA_SHARD_AWARE_PORT", &["19042"]),
    ("SCYLLA_SHARD_AWARE_PORT_SSL", &["19142"]),
    ("TABLETS_ROUTING_V1", &[]),
    ("SCYLLA_LWT_ADD_METADATA_MARK", &["LWT_OPTIMIZATION_META_BIT_MASK=2147483648"]),
    ("SCYLLA_RATE_LIMIT_ERROR", &["ERROR_CODE=61440"]),
];

#[test]
fn supported_reads_every_scylla_key() {
    let f = ScyllaFeatures::parse(&supported(SCYLLA)).unwrap();
    assert_eq!(
        f,
        ScyllaFeatures {
            sharding: Some(Sharding { shard: 3, nr_shards: 12, ignore_msb: 12 }),
            shard_aware_port: Some(19042),
            shard_aware_port_ssl: Some(19142),
            tablets_routing_v1: true,
            lwt_flag_mask: Some(0x8000_0000),
            rate_limit_error_code: Some(61440),
        }
    );
    assert_eq!(ScyllaFeatures::parse(&supported(&[("CQL_VERSION", &["3.4.7"])])).unwrap(), ScyllaFeatures::default());
}

#[test]
fn an_unknown_sharding_algorithm_routes_the_node_as_a_whole() {
    let mut s = supported(SCYLLA);
    s[3].1 = vec!["some-future-algorithm".into()];
    assert_eq!(ScyllaFeatures::parse(&s).unwrap().sharding, None);
}

#[test]
fn malformed_scylla_values_are_errors_naming_the_key() {
    let cases: &[(&str, &[&str], &str)] = &[
        ("SCYLLA_NR_SHARDS", &["twelve"], "\"twelve\" is not a u16 integer"),
        ("SCYLLA_NR_SHARDS", &["0"], "a node has at least one shard"),
        ("SCYLLA_NR_SHARDS", &["1", "2"], "expected one value, got 2"),
        ("SCYLLA_SHARD", &["12"], "shard 12 of 12"),
        ("SCYLLA_SHARD", &["-1"], "\"-1\" is not a u16 integer"),
        ("SCYLLA_SHARDING_IGNORE_MSB", &["64"], "64 bits of a 64-bit token"),
        ("SCYLLA_SHARD_AWARE_PORT", &["70000"], "\"70000\" is not a u16 integer"),
        ("SCYLLA_LWT_ADD_METADATA_MARK", &["MASK=1"], "no LWT_OPTIMIZATION_META_BIT_MASK=VALUE among [\"MASK=1\"]"),
        ("SCYLLA_RATE_LIMIT_ERROR", &["ERROR_CODE=x"], "\"x\" is not a i32 integer"),
    ];
    for (key, values, reason) in cases {
        let mut s = supported(SCYLLA);
        s.iter_mut().find(|(k, _)| k == key).unwrap().1 = values.iter().map(|v| v.to_string()).collect();
        let e = ScyllaFeatures::parse(&s).unwrap_err();
        assert_eq!((e.field, e.reason.as_str()), (*key, *reason), "{key} = {values:?}");
    }
}

fn put_string(b: &mut Vec<u8>, s: &str) {
    b.extend_from_slice(&(s.len() as u16).to_be_bytes());
    b.extend_from_slice(s.as_bytes());
}

#[test]
fn the_rate_limit_error_decodes_under_the_announced_code() {
    let mut body = 61440i32.to_be_bytes().to_vec();
    put_string(&mut body, "Per-partition rate limit reached");
    body.extend_from_slice(&[1, 1]);
    let e = ServerError::decode_with(&body, 4, Some(61440)).unwrap();
    assert_eq!(
        (e.code, e.code_name, e.message.as_str(), e.details),
        (
            61440,
            "RateLimitReached",
            "Per-partition rate limit reached",
            ErrorDetails::RateLimitReached { op_type: "write", rejected_by_coordinator: true }
        )
    );
    let n = body.len();
    body[n - 2..].copy_from_slice(&[0, 0]);
    let e = ServerError::decode_with(&body, 4, Some(61440)).unwrap();
    assert_eq!(e.details, ErrorDetails::RateLimitReached { op_type: "read", rejected_by_coordinator: false });
    let cut = ServerError::decode_with(&body[..body.len() - 1], 4, Some(61440)).unwrap_err();
    assert_eq!(cut.field, "rate limit rejected_by_coordinator");
    // Without the extension the code means nothing special.
    assert_eq!(ServerError::decode(&body, 4).unwrap().code_name, "Unknown");
}

#[test]
fn lwt_by_text_looks_past_literals_comments_and_quoted_names() {
    assert!(has_condition("INSERT INTO t (k) VALUES (1) IF NOT EXISTS"));
    assert!(has_condition("update t set v = 1 where k = 1\nif v = 0"));
    assert!(has_condition("DELETE FROM t WHERE k = 1 IF EXISTS"));
    assert!(!has_condition("INSERT INTO t (k, v) VALUES (1, ' IF ')"), "a literal");
    assert!(!has_condition("INSERT INTO t (k, v) VALUES (1, 'it''s IF x')"), "an escaped quote");
    assert!(!has_condition("UPDATE t SET v = $$ IF $$ WHERE k = 1"), "a dollar literal");
    assert!(!has_condition("UPDATE \"IF\" SET v = 1 WHERE k = 1"), "a quoted name");
    assert!(!has_condition("UPDATE t SET v = 1 WHERE k = 1 -- IF v = 0"), "a comment");
    assert!(!has_condition("UPDATE t SET v = 1 /* IF */ WHERE k = 1"), "a block comment");
    assert!(!has_condition("SELECT * FROM t WHERE k = 1 IF"), "not a write");
    assert!(!has_condition("UPDATE t SET elif = 1 WHERE k = 1"), "a word containing if");
    // Each skipped part ends where it ends: an IF after it still counts.
    assert!(has_condition("INSERT INTO t (k, v) VALUES (1, 'x') IF NOT EXISTS"), "after a literal");
    assert!(has_condition("UPDATE \"T\" SET v = 1 WHERE k = 1 IF v = 0"), "after a quoted name");
    assert!(has_condition("UPDATE t SET v = $$x$$ WHERE k = 1 IF v = 0"), "after a dollar literal");
    assert!(has_condition("UPDATE t /* c */ SET v = 1 WHERE k = 1 IF v = 0"), "after a block comment");
    assert!(has_condition("UPDATE t -- c\nSET v = 1 WHERE k = 1 IF v = 0"), "after a line comment");
}

#[test]
fn lwt_by_scylla_flag_wins_over_the_text() {
    let mask = Some(0x8000_0000);
    assert!(is_lwt("INSERT INTO t (k) VALUES (?)", i32::MIN, mask));
    assert!(!is_lwt("INSERT INTO t (k) VALUES (?) IF NOT EXISTS", 1, mask));
    assert!(is_lwt("INSERT INTO t (k) VALUES (?) IF NOT EXISTS", 1, None));
}
