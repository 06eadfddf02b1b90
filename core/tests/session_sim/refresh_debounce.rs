//! TOPOLOGY_CHANGE and SCHEMA_CHANGE events refresh the cluster view as the DataStax drivers
//! do: debounced by `refresh_delay_us`, sliding, at most 20 events to one refresh.

use super::*;

const DELAY: u64 = 1_000 * MS;

/// Three nodes, the control on node 1 (index 0), events debounced by [`DELAY`].
fn debounced_sim() -> Sim {
    let mut sim = Sim::new(3, SessionConfig { refresh_delay_us: DELAY, ..config() });
    sim.start();
    // Past the start's own reads, at time 0.
    sim.advance(MS);
    sim
}

/// The simulated times at which the control node was asked for system.local,
/// system.peers_v2 and system_schema.keyspaces since `since`, by short name.
fn refreshes_since(sim: &Sim, since: u64) -> Vec<(u64, &'static str)> {
    sim.nodes[0]
        .queries
        .iter()
        .filter(|(t, _)| *t >= since)
        .filter_map(|(t, q)| match q {
            q if q.contains("schema_version") => None,
            q if q.contains("system.local") => Some((*t, "local")),
            q if q.contains("system.peers_v2") => Some((*t, "peers_v2")),
            q if q.contains("system_schema.keyspaces") => Some((*t, "keyspaces")),
            _ => None,
        })
        .collect()
}

/// One node, events debounced by [`DELAY`], past the start's own reads.
fn one_node_sim() -> Sim {
    let mut sim = Sim::new(1, SessionConfig { refresh_delay_us: DELAY, ..config() });
    sim.start();
    sim.advance(MS);
    sim
}

fn one_refresh_at(t: u64) -> Vec<(u64, &'static str)> {
    vec![(t, "local"), (t, "peers_v2"), (t, "keyspaces")]
}

/// A SCHEMA_CHANGE (UPDATED KEYSPACE ks1) on the control connection.
fn keyspace_event(sim: &mut Sim) {
    let control = sim.registers.last().unwrap().1;
    let mut body = Vec::new();
    for s in ["SCHEMA_CHANGE", "UPDATED", "KEYSPACE", "ks1"] {
        string(&mut body, s);
    }
    sim.session.handle_bytes(sim.now, control, &frame(-1, 0x0C, &body));
    sim.pump();
}

#[test]
fn events_within_the_delay_bring_one_refresh_a_delay_after_the_last() {
    let mut sim = debounced_sim();
    let t0 = sim.now;
    keyspace_event(&mut sim);
    for _ in 0..4 {
        sim.advance(300 * MS);
        keyspace_event(&mut sim);
    }
    let last = sim.now;
    assert_eq!(last, t0 + 1_200 * MS);
    assert_eq!(sim.session.poll_timeout(), Some(last + DELAY), "the host wakes for the refresh");
    sim.advance(DELAY - 1);
    assert_eq!(refreshes_since(&sim, t0), vec![], "not before the delay after the last event");
    sim.advance(1);
    assert_eq!(refreshes_since(&sim, t0), one_refresh_at(last + DELAY));
    sim.advance(10 * DELAY);
    assert_eq!(refreshes_since(&sim, t0), one_refresh_at(last + DELAY), "and no other");
}

#[test]
fn events_further_apart_than_the_delay_bring_one_refresh_each() {
    let mut sim = debounced_sim();
    let t0 = sim.now;
    let mut expected = Vec::new();
    for _ in 0..3 {
        let at = sim.now;
        sim.new_node_event_from_node_0([127, 0, 0, 3]);
        sim.advance(DELAY + 500 * MS);
        expected.extend(one_refresh_at(at + DELAY));
    }
    assert_eq!(refreshes_since(&sim, t0), expected);
}

#[test]
fn a_storm_that_never_pauses_refreshes_at_every_twentieth_event() {
    let mut sim = debounced_sim();
    let t0 = sim.now;
    for _ in 0..19 {
        keyspace_event(&mut sim);
        sim.advance(100 * MS);
    }
    assert_eq!(refreshes_since(&sim, t0), vec![], "19 events 100 ms apart: still sliding");
    keyspace_event(&mut sim);
    let twentieth = t0 + 1_900 * MS;
    assert_eq!(refreshes_since(&sim, t0), one_refresh_at(twentieth), "the twentieth refreshes at once");
    assert_eq!(sim.session.poll_timeout().filter(|t| *t <= twentieth + DELAY), None, "nothing left pending");
    // The next batch counts from zero again.
    for _ in 0..19 {
        sim.advance(100 * MS);
        keyspace_event(&mut sim);
    }
    assert_eq!(refreshes_since(&sim, t0).len(), 3);
    sim.advance(100 * MS);
    keyspace_event(&mut sim);
    assert_eq!(refreshes_since(&sim, twentieth + MS), one_refresh_at(twentieth + 2_000 * MS));
}

#[test]
fn with_no_delay_each_event_refreshes_at_once() {
    let mut sim = Sim::new(3, SessionConfig { refresh_delay_us: 0, ..config() });
    sim.start();
    sim.advance(MS);
    let t0 = sim.now;
    keyspace_event(&mut sim);
    assert_eq!(refreshes_since(&sim, t0), one_refresh_at(t0));
    sim.advance(10 * MS);
    keyspace_event(&mut sim);
    let mut expected = one_refresh_at(t0);
    expected.extend(one_refresh_at(t0 + 10 * MS));
    assert_eq!(refreshes_since(&sim, t0), expected);
}

#[test]
fn the_delay_is_a_second_by_default_as_datastax_refresh_schema_delay() {
    assert_eq!(SessionConfig::default().refresh_delay_us, 1_000_000);
}

#[test]
fn a_node_reported_up_is_reconnected_at_once_not_after_the_delay() {
    let mut sim = debounced_sim();
    sim.prepare();
    sim.kill(1);
    sim.nodes[1].up = true;
    let control = sim.registers.last().unwrap().1;
    let mut body = Vec::new();
    string(&mut body, "STATUS_CHANGE");
    string(&mut body, "UP");
    body.push(4);
    body.extend_from_slice(&[127, 0, 0, 2]);
    body.extend_from_slice(&9042i32.to_be_bytes());
    sim.session.handle_bytes(sim.now, control, &frame(-1, 0x0C, &body));
    sim.pump();
    sim.advance(0);
    assert!(sim.conns.values().any(|n| *n == 1), "node 2 reconnected at once");
}

#[test]
fn an_own_ddl_agreed_on_runs_the_pending_refresh_at_once_and_is_not_delayed() {
    let mut sim = debounced_sim();
    let t0 = sim.now;
    // The DDL's event is pushed before the answer's agreement: its refresh is pending.
    keyspace_event(&mut sim);
    let id = start_ddl(&mut sim);
    assert_eq!(answered_at(&sim, id), None, "node 2 and 3 are still on the old schema");
    sim.advance(100 * MS);
    for n in sim.nodes.iter_mut() {
        n.schema_version = 1;
    }
    sim.advance(100 * MS);
    let agreed = t0 + 200 * MS;
    assert_eq!(answered_at(&sim, id), Some(agreed), "the agreement's own 200 ms polls, no debounce");
    assert_eq!(refreshes_since(&sim, t0), one_refresh_at(agreed), "the pending refresh ran on agreement");
    sim.advance(10 * DELAY);
    assert_eq!(refreshes_since(&sim, t0), one_refresh_at(agreed), "and not again at the delay");
}

#[test]
fn an_own_ddl_agreed_on_reads_the_view_again_at_once_though_its_event_has_not_come() {
    let mut sim = debounced_sim();
    let t0 = sim.now;
    let id = start_ddl(&mut sim);
    sim.advance(100 * MS);
    for n in sim.nodes.iter_mut() {
        n.schema_version = 1;
    }
    sim.advance(100 * MS);
    let agreed = t0 + 200 * MS;
    assert_eq!(answered_at(&sim, id), Some(agreed));
    assert_eq!(refreshes_since(&sim, t0), one_refresh_at(agreed), "read on agreement, no event needed");
    // Its event, late, is debounced as any other: one more read a delay after it.
    keyspace_event(&mut sim);
    let late = sim.now;
    sim.advance(10 * DELAY);
    let mut expected = one_refresh_at(agreed);
    expected.extend(one_refresh_at(late + DELAY));
    assert_eq!(refreshes_since(&sim, t0), expected);
}

#[test]
fn on_one_node_an_own_ddl_reads_the_view_again_when_answered() {
    let mut sim = one_node_sim();
    let t0 = sim.now;
    let id = start_ddl(&mut sim);
    assert_eq!(answered_at(&sim, id), Some(t0), "nothing to agree on with one node");
    assert_eq!(refreshes_since(&sim, t0), one_refresh_at(t0), "read at once, not a delay later");
    sim.advance(10 * DELAY);
    assert_eq!(refreshes_since(&sim, t0), one_refresh_at(t0));
}

#[test]
fn on_one_node_an_own_ddl_answered_with_a_warning_reads_the_view_again_too() {
    let mut sim = one_node_sim();
    let t0 = sim.now;
    // The result kind comes after the warnings: the answer's prefix is walked, not skipped.
    let mut body = 1u16.to_be_bytes().to_vec();
    string(&mut body, "Aggregation query used without partition key");
    body.extend(5i32.to_be_bytes());
    for s in ["CREATED", "TABLE", "ks1", "t2"] {
        string(&mut body, s);
    }
    sim.nodes[0].replies = vec![("CREATE TABLE", body)];
    sim.nodes[0].reply_flags = 0x08; // WARNING
    let id = start_ddl(&mut sim);
    assert_eq!(answered_at(&sim, id), Some(t0));
    assert_eq!(refreshes_since(&sim, t0), one_refresh_at(t0), "read at once, not a delay later");
}

#[test]
fn an_answer_whose_tracing_id_looks_like_a_schema_change_reads_nothing_again() {
    let mut sim = one_node_sim();
    let t0 = sim.now;
    // A VOID result (kind 1) after a tracing id whose first bytes are those of kind 5, no
    // warnings and no payload: only the kind after the whole prefix counts.
    let mut body = vec![0, 0, 0, 5];
    body.extend([7; 12]);
    body.extend([0, 0, 0, 0]);
    body.extend(1i32.to_be_bytes());
    sim.nodes[0].replies = vec![("CREATE TABLE", body)];
    sim.nodes[0].reply_flags = 0x02 | 0x04 | 0x08; // TRACING, CUSTOM_PAYLOAD, WARNING
    let id = start_ddl(&mut sim);
    assert_eq!(answered_at(&sim, id), Some(t0));
    sim.advance(10 * DELAY);
    assert_eq!(refreshes_since(&sim, t0), vec![], "a VOID answer is no schema change");
}
