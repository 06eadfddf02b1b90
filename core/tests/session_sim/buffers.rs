//! What the session holds in memory and hands out before it is drained: `buffer_bytes`,
//! `release_drained`, `pending_events`.

use super::*;
use cqlwire_core::connection::BUFFER_KEEP;

/// A query of `cql`, answered by the simulated node; its id.
fn query(sim: &mut Sim, cql: &str) -> u32 {
    let request = Request::Query { cql, values: &[], options: QueryOptions::default() };
    let id = sim.session.start_request(sim.now, RequestSpec::new(request)).unwrap();
    sim.pump();
    assert!(sim.responses.contains_key(&id), "{:?}", sim.failures.get(&id));
    id
}

/// One node, ready, the insert prepared.
fn one_node() -> Sim {
    let mut sim = Sim::new(1, config());
    sim.start();
    sim.prepare();
    sim
}

#[test]
fn a_small_request_body_is_kept_for_the_next_request_and_a_large_one_is_freed() {
    let mut sim = one_node();
    let start = sim.session.buffer_bytes();
    query(&mut sim, &format!("SELECT 1{}", " ".repeat(20_000)));
    let after_20k = sim.session.buffer_bytes();
    // The body is pooled (its capacity, grown by doubling, stays under 64 KB) and the
    // connection keeps the buffer it was written into: 20 KB at least in each.
    assert!((40_000..200_000).contains(&(after_20k - start)), "{start} -> {after_20k}");
    query(&mut sim, &format!("SELECT 1{}", " ".repeat(600_000)));
    let after_600k = sim.session.buffer_bytes();
    assert!(after_600k < after_20k + 600_000, "the 600 KB body is not kept: {after_20k} -> {after_600k}");
}

#[test]
fn a_statement_prepared_again_counts_the_buffer_it_was_encoded_in() {
    let mut sim = one_node();
    let padded = format!("{INSERT}{}", " ".repeat(100_000));
    let id = sim.session.start_request(sim.now, RequestSpec::prepare(&padded, None)).unwrap();
    sim.pump();
    assert!(sim.responses.contains_key(&id), "{:?}", sim.failures.get(&id));
    sim.nodes[0].prepared.clear();
    let before = sim.session.buffer_bytes();
    let id = sim.insert(5, false);
    assert!(sim.responses.contains_key(&id), "{:?}", sim.failures.get(&id));
    assert_eq!(sim.session.metrics().reprepares, 1);
    // The session encoded the 100 KB PREPARE in its own buffer and keeps it; the request
    // bodies it pools are small, and the connection's buffers had grown to 100 KB before.
    let after = sim.session.buffer_bytes();
    assert!((95_000..400_000).contains(&(after - before)), "{before} -> {after}");
}

#[test]
fn release_drained_shrinks_the_arena_of_a_large_result_at_once() {
    let mut sim = one_node();
    sim.nodes[0].replies = vec![("big", [2i32.to_be_bytes().to_vec(), vec![0; 1 << 20]].concat())];
    query(&mut sim, "SELECT big");
    let held = sim.session.buffer_bytes();
    assert!(held > 1 << 20, "{held}");
    sim.session.release_drained();
    let released = sim.session.buffer_bytes();
    // The arena keeps BUFFER_KEEP of the megabyte it grew to.
    assert!(held - released >= (1 << 20) - BUFFER_KEEP, "{held} -> {released}");
}

#[test]
fn pending_events_counts_a_ddl_answer_released_by_agreement() {
    let mut sim = Sim::new(3, agreement_config());
    sim.start();
    // The peers already run the version the DDL moves the control node to.
    sim.nodes[1].schema_version = 1;
    sim.nodes[2].schema_version = 1;
    let request = Request::Query { cql: DDL, values: &[], options: QueryOptions::default() };
    let id = sim.session.start_request(sim.now, RequestSpec::new(request)).unwrap();
    sim.pump_undrained();
    // RESULT SchemaChange: kind, then CREATED, TABLE, ks1, t2 as [string]s.
    assert_eq!(sim.session.pending_events(), (1, 4 + 9 + 7 + 5 + 4));
    sim.pump();
    assert_eq!(answered_at(&sim, id), Some(sim.now));
    assert_eq!(sim.session.pending_events(), (0, 0));
}
