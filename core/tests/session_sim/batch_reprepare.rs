//! A BATCH of prepared statements answered UNPREPARED: the session prepares the statement the
//! error names again on that node and sends the batch again there, as it does for an EXECUTE.

use super::*;
use cqlwire_core::message::{BatchStatement, BatchType};

const TTL_ID: &[u8] = b"prep-insert-ttl";
const INSERT_ID: &[u8] = b"prep-insert";

/// Three nodes with both inserts prepared on every one; then every node forgets `lost`.
fn sim_that_lost(lost: &[&[u8]]) -> Sim {
    let mut sim = Sim::new(3, config());
    sim.start();
    sim.prepare();
    let id = sim.session.start_request(sim.now, RequestSpec::prepare(INSERT_TTL, None)).unwrap();
    sim.pump();
    assert!(sim.responses.contains_key(&id), "{:?}", sim.failures.get(&id));
    for n in sim.nodes.iter_mut() {
        for id in lost {
            n.prepared.remove(*id);
        }
        n.log.clear();
    }
    sim
}

/// A logged BATCH of one row (key `k`) per statement id; its request id.
fn batch(sim: &mut Sim, k: i64, ids: &[&[u8]]) -> u32 {
    let mut values = 2u16.to_be_bytes().to_vec();
    bytes(&mut values, Some(&k.to_be_bytes()));
    bytes(&mut values, Some(&[7u8; 32]));
    let statements: Vec<BatchStatement> = ids.iter().map(|id| BatchStatement::Prepared { id, values: &values }).collect();
    let request = Request::Batch { kind: BatchType::Logged, statements: &statements, options: QueryOptions::default() };
    let id = sim.session.start_request(sim.now, RequestSpec::new(request)).unwrap();
    sim.pump();
    id
}

/// What each node read of PREPAREs and BATCHes since the statements were lost.
fn logs(sim: &Sim) -> Vec<Vec<String>> {
    sim.nodes.iter().map(|n| n.log.clone()).collect()
}

/// The log of the node that owns key `k` holding `owned`, the others' empty.
fn only_on_owner(sim: &Sim, k: i64, owned: &[&str]) -> Vec<Vec<String>> {
    let owner = sim.owner(murmur3_token(&k.to_be_bytes()));
    (0..sim.nodes.len()).map(|i| if i == owner { owned.iter().map(|s| s.to_string()).collect() } else { vec![] }).collect()
}

fn assert_unprepared(sim: &Sim, id: u32) {
    let (_, error) = sim.errors.iter().find(|(i, _)| *i == id).unwrap_or_else(|| panic!("request {id} did not fail"));
    match &error.error {
        RequestError::Server(e) => {
            assert_eq!((e.code, e.message.as_str()), (0x2500, "unprepared"));
            assert_eq!(e.details, cqlwire_core::message::ErrorDetails::Unprepared { unprepared_id: TTL_ID.to_vec() });
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_batch_whose_node_lost_one_statement_is_sent_again_after_preparing_it_there() {
    let mut sim = sim_that_lost(&[TTL_ID]);
    let id = batch(&mut sim, 5, &[INSERT_ID, TTL_ID]);
    assert!(sim.responses.contains_key(&id), "{:?}", sim.failures.get(&id));
    let sent = "BATCH prep-insert prep-insert-ttl";
    assert_eq!(logs(&sim), only_on_owner(&sim, 5, &[sent, &format!("PREPARE {INSERT_TTL}"), sent]));
    assert_eq!(sim.session.metrics().reprepares, 1);
}

#[test]
fn a_batch_whose_node_lost_both_statements_prepares_each_in_turn() {
    let mut sim = sim_that_lost(&[INSERT_ID, TTL_ID]);
    let id = batch(&mut sim, 5, &[INSERT_ID, TTL_ID, INSERT_ID]);
    assert!(sim.responses.contains_key(&id), "{:?}", sim.failures.get(&id));
    let sent = "BATCH prep-insert prep-insert-ttl prep-insert";
    let expected = [sent, &format!("PREPARE {INSERT}"), sent, &format!("PREPARE {INSERT_TTL}"), sent];
    assert_eq!(logs(&sim), only_on_owner(&sim, 5, &expected));
    assert_eq!(sim.session.metrics().reprepares, 2);
}

#[test]
fn a_statement_this_session_never_prepared_fails_the_batch_with_the_servers_error() {
    // The nodes know the TTL insert, but it was prepared by another client: this session
    // has no CQL for it.
    let mut sim = Sim::new(3, config());
    sim.start();
    sim.prepare();
    for n in sim.nodes.iter_mut() {
        n.log.clear();
    }
    let id = batch(&mut sim, 5, &[INSERT_ID, TTL_ID]);
    assert_unprepared(&sim, id);
    assert_eq!(logs(&sim), only_on_owner(&sim, 5, &["BATCH prep-insert prep-insert-ttl"]));
    assert_eq!(sim.session.metrics().reprepares, 0);
}

#[test]
fn a_node_that_keeps_forgetting_is_asked_to_prepare_at_most_the_distinct_statements_plus_two() {
    let mut sim = sim_that_lost(&[TTL_ID]);
    for n in sim.nodes.iter_mut() {
        n.forget_prepared = true;
    }
    // Two distinct statements (one of them twice): 2 + 2 re-preparations, then the error.
    let id = batch(&mut sim, 5, &[INSERT_ID, TTL_ID, INSERT_ID]);
    assert_unprepared(&sim, id);
    let sent = "BATCH prep-insert prep-insert-ttl prep-insert";
    let prepare = format!("PREPARE {INSERT_TTL}");
    let expected = [sent, &prepare, sent, &prepare, sent, &prepare, sent, &prepare, sent];
    assert_eq!(logs(&sim), only_on_owner(&sim, 5, &expected));
    assert_eq!(sim.session.metrics().reprepares, 4);
}
