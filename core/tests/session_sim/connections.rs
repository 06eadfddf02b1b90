//! Connections and the control connection: what closes, what reopens, who holds the control,
//! as the nodes and the host see it.

use super::*;

/// The system tables node `node` was asked for, in order, by short name.
fn system_queries(sim: &Sim, node: usize) -> Vec<&'static str> {
    sim.nodes[node]
        .queries
        .iter()
        .filter_map(|(_, q)| match q {
            q if q.contains("schema_version") => None,
            q if q.contains("system.local") => Some("local"),
            q if q.contains("system.peers_v2") => Some("peers_v2"),
            q if q.contains("system.peers") => Some("peers"),
            q if q.contains("system_schema.keyspaces") => Some("keyspaces"),
            _ => None,
        })
        .collect()
}

const METADATA: [&str; 3] = ["local", "peers_v2", "keyspaces"];

#[test]
fn losing_the_control_node_moves_the_control_to_the_first_ready_node_and_only_then() {
    let mut sim = Sim::new(3, config());
    sim.start();
    assert_eq!([0, 1, 2].map(|n| system_queries(&sim, n)), [METADATA.to_vec(), vec![], vec![]]);
    // A node that is not the control one goes: nobody is asked anything again.
    sim.kill(2);
    assert_eq!([0, 1, 2].map(|n| system_queries(&sim, n)), [METADATA.to_vec(), vec![], vec![]]);
    // The control node goes: the next ready connection (node 2's) reads the metadata afresh.
    sim.kill(0);
    assert_eq!([0, 1, 2].map(|n| system_queries(&sim, n)), [METADATA.to_vec(), METADATA.to_vec(), vec![]]);
    assert_eq!(sim.session.view().nodes().count(), 3, "the topology read again names every node");
}

/// After recycling, every node's pool still serves its own tokens.
fn assert_every_owner_answers(sim: &mut Sim) {
    for k in 0..30i64 {
        let owner = sim.owner(murmur3_token(&k.to_be_bytes()));
        let id = sim.insert(k, false);
        assert_eq!(sim.responses.get(&id), Some(&sim.nodes[owner].address), "k={k}: {:?}", sim.failures.get(&id));
    }
}

#[test]
fn a_recycled_connection_is_closed_once_and_every_other_pool_keeps_serving() {
    let (mut sim, _) = sim_draining_a_connection_to(2);
    let m = sim.session.metrics();
    assert_eq!((m.connections_opened, m.connections_closed), (4, 1), "three pools and the replacement; the drained one closed");
    sim.nodes[2].silent = false;
    assert_every_owner_answers(&mut sim);
    assert_eq!([0, 1, 2].map(|n| system_queries(&sim, n)), [METADATA.to_vec(), vec![], vec![]], "the control stays");
}

#[test]
fn a_drained_control_connection_hands_the_control_to_the_first_other_ready_connection() {
    let (mut sim, _) = sim_draining_a_connection_to(0);
    assert_eq!(sim.session.metrics().connections_closed, 1);
    // Node 2's connection, the first ready one after the drained one, reads the metadata.
    assert_eq!([0, 1, 2].map(|n| system_queries(&sim, n)), [METADATA.to_vec(), METADATA.to_vec(), vec![]]);
    sim.nodes[0].silent = false;
    assert_every_owner_answers(&mut sim);
}

#[test]
fn contact_points_naming_one_node_twice_or_by_another_port_leave_one_connection_per_node() {
    let mut sim = Sim::new(3, config());
    // The first is node 1 itself; the second names it again; the third reaches node 2 on a
    // port the cluster does not advertise, so no node has that address.
    sim.session.start(sim.now, &["127.0.0.1:9042", "127.0.0.1:9042", "127.0.0.2:9043"]);
    sim.pump();
    assert!(sim.session.is_ready());
    let m = sim.session.metrics();
    // Node 2 and node 3 get a pool connection each; the duplicate and the stray one close.
    assert_eq!((m.connections_opened, m.connections_closed), (5, 2));
    let mut per_node: Vec<usize> = sim.conns.values().copied().collect();
    per_node.sort();
    assert_eq!(per_node, [0, 1, 2]);
    let states: Vec<(String, bool)> = sim.session.connection_states().into_iter().filter(|s| s.5).map(|s| (s.1, s.5)).collect();
    assert_eq!(states.len(), 3, "{states:?}");
    assert_eq!(system_queries(&sim, 0), METADATA, "the first contact point keeps the control");
}

#[test]
fn a_server_event_counts_its_decision() {
    let mut sim = Sim::new(3, config());
    sim.start();
    sim.new_node_event_from_node_0([127, 0, 0, 3]);
    sim.new_node_event_from_node_0([127, 0, 0, 3]);
    assert_eq!(sim.session.metrics().decisions.get("node joined: re-read peers"), Some(&2));
}

#[test]
fn an_event_during_a_metadata_read_waits_for_it_then_reads_everything_once_more() {
    let mut sim = Sim::new(3, quick_connect_config());
    // system.peers_v2 goes unanswered until the connect timeout (500 ms while joining) asks again.
    sim.nodes[0].swallowed = vec!["system.peers_v2"];
    sim.start();
    sim.advance(100 * MS);
    sim.new_node_event_from_node_0([127, 0, 0, 3]);
    sim.advance(1_000 * MS);
    assert!(sim.session.is_ready());
    let asked: Vec<(u64, &str)> = sim.nodes[0]
        .queries
        .iter()
        .map(|(t, q)| (*t / MS, ["system.local", "system.peers_v2", "system_schema.keyspaces"].into_iter().find(|k| q.contains(k)).unwrap()))
        .collect();
    let (local, peers, keyspaces) = ("system.local", "system.peers_v2", "system_schema.keyspaces");
    // Nothing at 100 ms: the first read was not complete. Once it is, one more whole read.
    assert_eq!(asked, [(0, local), (0, peers), (0, keyspaces), (500, peers), (500, local), (500, peers), (500, keyspaces)]);
}

/// Node 2 goes down and is replaced at the same address by a node with another host id,
/// which the control node's topology names while it is still down; the session then tries
/// to reach it once (still down, or `up_again`) and it comes up for good. Its events.
fn events_of_a_node_replaced_while_down(up_again: bool) -> Vec<String> {
    let mut sim = Sim::new(3, config());
    sim.start();
    sim.kill(1);
    sim.nodes[1].host_id = [9; 16];
    sim.new_node_event_from_node_0([127, 0, 0, 2]);
    sim.nodes[1].up = up_again;
    sim.advance(2_000 * MS);
    sim.nodes[1].up = true;
    sim.advance(60_000 * MS);
    assert!(sim.conns.values().any(|n| *n == 1), "reconnected");
    sim.events.into_iter().filter(|e| e.starts_with("Node") && e.contains("127.0.0.2")).collect()
}

#[test]
fn a_node_replaced_while_down_is_reported_up_when_reached_and_down_when_not() {
    let down = "NodeDown { address: \"127.0.0.2:9042\", reason: \"the server closed the connection\" }";
    let refused = "NodeDown { address: \"127.0.0.2:9042\", reason: \"could not connect: connection refused\" }";
    let up = "NodeUp { address: \"127.0.0.2:9042\" }";
    // The view took the replacement for up; the host had last heard it was down.
    assert_eq!(events_of_a_node_replaced_while_down(true), [down, up]);
    // Not reachable after all: the view marks it down again, and says so.
    assert_eq!(events_of_a_node_replaced_while_down(false), [down, refused, up]);
}

/// Joining through two contact points; the first one's handshake ends first and it answers
/// everything but `swallowed`.
fn join_through_two_contact_points(swallowed: &'static str, config: SessionConfig) -> Sim {
    let mut sim = Sim::new(3, config);
    sim.nodes[0].swallowed = vec![swallowed];
    sim.session.start(sim.now, &["127.0.0.1:9042", "127.0.0.2:9042"]);
    sim.pump();
    sim
}

#[test]
fn a_storm_of_events_during_a_metadata_read_gives_one_more_read_not_one_per_event() {
    let mut sim = Sim::new(3, quick_connect_config());
    // system.peers_v2 goes unanswered until the connect timeout (500 ms while joining) asks again.
    sim.nodes[0].swallowed = vec!["system.peers_v2"];
    sim.start();
    sim.advance(100 * MS);
    for i in 0..1000u32 {
        sim.new_node_event_from_node_0([10, 0, (i >> 8) as u8, i as u8]);
    }
    sim.advance(1_000 * MS);
    assert!(sim.session.is_ready());
    let reads = system_queries(&sim, 0).iter().filter(|q| **q == "local").count();
    assert_eq!(reads, 2, "the first read, and one more for all 1000 events: {:?}", system_queries(&sim, 0));
}

/// A long request timeout (60 s) and a short connect timeout (1 s): the driver's connect
/// deadline (3 × 1 s) must not run out before the control queries give up on a contact point.
fn slow_reads_quick_connects() -> SessionConfig {
    let mut c = config();
    c.connection.request_timeout_us = 60_000 * MS;
    c.connection.handshake_timeout_us = 1_000 * MS;
    c
}

#[test]
fn while_joining_a_control_query_waits_the_connect_timeout_not_the_request_timeout() {
    for (table, name) in [("system.local", "Local"), ("system.peers_v2", "PeersV2"), ("system_schema.keyspaces", "Keyspaces")] {
        let mut sim = join_through_two_contact_points(table, slow_reads_quick_connects());
        sim.advance(999 * MS);
        assert!(!sim.session.is_ready(), "{table}: not before the connect timeout");
        sim.advance(MS);
        assert!(sim.session.is_ready(), "{table}: {:?}", sim.events);
        assert_eq!(system_queries(&sim, 1), METADATA, "{table}: node 2 read the metadata");
        let log = format!("Log {{ message: \"control query {name} failed: no response within 1000 ms (host 127.0.0.1:9042)\" }}");
        assert!(sim.timeline.iter().any(|(t, e)| *t == 1_000 * MS && *e == log), "{table}: {:?}", sim.timeline);
        assert_eq!(sim.session.metrics().connections_closed, 1, "{table}: the first contact point's connection is closed");
        assert_eq!(sim.session.view().nodes().count(), 3, "{table}");
    }
}

#[test]
fn once_ready_a_control_query_waits_the_request_timeout() {
    let mut sim = Sim::new(3, slow_reads_quick_connects());
    sim.start();
    assert!(sim.session.is_ready());
    sim.nodes[0].swallowed = vec!["system.peers_v2"];
    sim.new_node_event_from_node_0([10, 0, 0, 9]);
    let asked = |sim: &Sim| sim.nodes[0].queries.iter().filter(|(_, q)| q.contains("system.peers_v2")).map(|(t, _)| *t).collect::<Vec<u64>>();
    assert_eq!(asked(&sim), [0, 0], "the event asks the topology again");
    sim.advance(59_999 * MS);
    assert_eq!(asked(&sim), [0, 0], "not asked again before the request timeout");
    sim.advance(MS);
    assert_eq!(asked(&sim), [0, 0, 60_000 * MS], "asked again when the request timeout ran out");
}

/// The connection of node `node` that sent REGISTER, answered or not, and when.
fn registers_of(sim: &Sim, node: usize) -> Vec<(u64, ConnId)> {
    sim.registers.iter().copied().filter(|(_, c)| sim.conns.get(c) == Some(&node)).collect()
}

#[test]
fn an_unanswered_register_is_logged_and_the_control_moves_to_another_node() {
    let mut sim = Sim::new(3, slow_reads_quick_connects());
    sim.nodes[0].swallowed_registers = 1;
    sim.nodes[1].swallowed_registers = 1;
    sim.start();
    assert!(sim.session.is_ready(), "the metadata does not wait for REGISTER");
    let [(_, first)] = registers_of(&sim, 0)[..] else { panic!("{:?}", sim.registers) };
    // Sent while joining: REGISTER waits the connect timeout (1 s), then the control moves,
    // preferably to another node; the new control reads the metadata and registers afresh.
    sim.advance(999 * MS);
    assert!(system_queries(&sim, 1).is_empty());
    sim.advance(MS);
    let moved = "control query Register failed: no response within 1000 ms (host 127.0.0.1:9042): no events from it; the control moves to 127.0.0.2:9042";
    assert!(sim.timeline.contains(&(1_000 * MS, format!("Log {{ message: \"{moved}\" }}"))), "{:?}", sim.timeline);
    assert_eq!(system_queries(&sim, 1), METADATA, "node 2 reads the metadata");
    let [(at, second)] = registers_of(&sim, 1)[..] else { panic!("{:?}", sim.registers) };
    assert_eq!(at, 1_000 * MS);
    // The first connection stays open for requests, but its events are no longer read: a
    // REGISTER answered late would otherwise tell every event twice.
    assert!(sim.conns.contains_key(&first));
    sim.new_node_event_on(first, [127, 0, 0, 3]);
    assert_eq!((system_queries(&sim, 0), system_queries(&sim, 1)), (METADATA.to_vec(), METADATA.to_vec()), "no refresh");
    // Once ready, REGISTER waits the request timeout (60 s): node 2 leaves it unanswered too.
    sim.advance(59_999 * MS);
    assert_eq!(registers_of(&sim, 0).len() + registers_of(&sim, 2).len(), 1, "{:?}", sim.registers);
    sim.advance(MS);
    let again = "control query Register failed: no response within 60000 ms (host 127.0.0.2:9042): no events from it; the control moves to 127.0.0.1:9042";
    assert!(sim.timeline.contains(&(61_000 * MS, format!("Log {{ message: \"{again}\" }}"))), "{:?}", sim.timeline);
    let [(_, _), (at, third)] = registers_of(&sim, 0)[..] else { panic!("{:?}", sim.registers) };
    assert_eq!((at, third), (61_000 * MS, first), "back on the first node's connection, which now answers");
    // Events come from the control connection, and only from it.
    sim.new_node_event_on(second, [127, 0, 0, 3]);
    assert_eq!(system_queries(&sim, 0), [METADATA, METADATA].concat());
    sim.new_node_event_on(first, [127, 0, 0, 3]);
    assert_eq!(system_queries(&sim, 0), [METADATA, METADATA, ["local", "peers_v2", "keyspaces"]].concat(), "the event re-reads the topology");
}

#[test]
fn an_unanswered_register_moves_the_control_to_another_node_before_another_connection_of_its_own() {
    // Two connections per node: the first node's second connection is ready too, but a node
    // that left REGISTER unanswered is the last choice.
    let mut sim = Sim::new(3, SessionConfig { connections_per_node: 2, ..slow_reads_quick_connects() });
    sim.nodes[0].swallowed_registers = 1;
    sim.start();
    assert_eq!(sim.conns.values().filter(|&&n| n == 0).count(), 2, "{:?}", sim.conns);
    sim.advance(1_000 * MS);
    let moved = "control query Register failed: no response within 1000 ms (host 127.0.0.1:9042): no events from it; the control moves to 127.0.0.2:9042";
    assert!(sim.timeline.contains(&(1_000 * MS, format!("Log {{ message: \"{moved}\" }}"))), "{:?}", sim.timeline);
    assert_eq!(system_queries(&sim, 1), METADATA, "node 2 reads the metadata");
}

#[test]
fn an_unanswered_register_on_the_only_connection_is_logged_and_sent_again() {
    let mut sim = Sim::new(1, quick_connect_config());
    sim.nodes[0].swallowed_registers = 1;
    sim.start();
    assert!(sim.session.is_ready());
    sim.advance(500 * MS);
    let log = "control query Register failed: no response within 500 ms (host 127.0.0.1:9042): no events from it; asked again";
    assert!(sim.timeline.contains(&(500 * MS, format!("Log {{ message: \"{log}\" }}"))), "{:?}", sim.timeline);
    let conn = registers_of(&sim, 0)[0].1;
    assert_eq!(registers_of(&sim, 0), [(0, conn), (500 * MS, conn)]);
    assert_eq!(system_queries(&sim, 0), METADATA, "the metadata is not read again");
    sim.advance(10_000 * MS);
    assert_eq!(registers_of(&sim, 0).len(), 2, "answered the second time");
}

#[test]
fn a_control_query_left_on_the_connection_the_control_moved_away_from_is_dropped() {
    let mut sim = Sim::new(3, slow_reads_quick_connects());
    sim.nodes[0].swallowed_registers = 1;
    sim.start();
    // A re-read of the topology under way on node 1 when the control moves: its late failure
    // neither asks node 1 again nor is logged (nor would its answer mix with node 2's).
    sim.nodes[0].swallowed = vec!["system.peers_v2"];
    sim.advance(100 * MS);
    sim.new_node_event_from_node_0([127, 0, 0, 3]);
    sim.advance(900 * MS);
    assert_eq!(system_queries(&sim, 1), METADATA, "the control moved at 1 s");
    sim.advance(100_000 * MS);
    assert_eq!(system_queries(&sim, 0), [METADATA, METADATA].concat(), "not asked again");
    assert!(!sim.events.iter().any(|e| e.contains("control query PeersV2 failed")), "{:?}", sim.events);
    assert_eq!(sim.session.view().nodes().count(), 3);
}

#[test]
fn a_register_refused_again_moves_the_control_to_another_node_which_registers_and_is_heard() {
    let mut sim = Sim::new(3, config());
    sim.nodes[0].refused_registers = 2;
    sim.start();
    assert!(sim.session.is_ready());
    // Refused while the pools to the other nodes still open: asked again at once, refused
    // again; after the backoff the control moves to node 2, whose connection is ready by then.
    let conn = registers_of(&sim, 0)[0].1;
    assert_eq!(registers_of(&sim, 0), [(0, conn), (0, conn)]);
    sim.advance(1_000 * MS);
    let logs: Vec<&str> =
        sim.events.iter().filter_map(|e| e.split_once("no events from it; ")).map(|(_, then)| then).collect();
    assert_eq!(logs.len(), 2, "{:?}", sim.events);
    assert_eq!(logs[0], "asked again\" }");
    assert!(logs[1].starts_with("tried again in "), "{logs:?}");
    assert_eq!(system_queries(&sim, 1), METADATA, "node 2 reads the metadata");
    let [(at, second)] = registers_of(&sim, 1)[..] else { panic!("{:?}", sim.registers) };
    assert!(at > 0 && at <= 200 * MS, "after the first backoff (200 ms, full jitter): {at}");
    assert_eq!(registers_of(&sim, 0).len() + registers_of(&sim, 2).len(), 2, "{:?}", sim.registers);
    // Node 2's events are heard: a new node is read into the view; node 1's are not.
    sim.new_node_event_on(conn, [127, 0, 0, 3]);
    assert_eq!(system_queries(&sim, 1), METADATA);
    sim.new_node_event_on(second, [127, 0, 0, 3]);
    assert_eq!(system_queries(&sim, 1), [METADATA, METADATA].concat());
}

#[test]
fn a_register_refused_again_on_the_only_node_is_sent_again_after_the_reconnection_backoff() {
    let mut sim = Sim::new(1, config());
    sim.nodes[0].refused_registers = 3;
    sim.start();
    assert!(sim.session.is_ready());
    // The first refusal asks again at once, as the move would; the second waits the backoff.
    let conn = registers_of(&sim, 0)[0].1;
    assert_eq!(registers_of(&sim, 0), [(0, conn), (0, conn)]);
    let logs: Vec<&String> = sim.events.iter().filter(|e| e.contains("Register failed")).collect();
    let prefix = "Log { message: \"control query Register failed: Unauthorized (8448): no permission to register (host 127.0.0.1:9042): no events from it; ";
    assert_eq!(logs[0], &format!("{prefix}asked again\" }}"));
    let first_wait: u64 = logs[1]
        .strip_prefix(&format!("{prefix}tried again in "))
        .and_then(|r| r.strip_suffix(" ms\" }"))
        .unwrap()
        .parse()
        .unwrap();
    assert!(first_wait <= 200, "within the base delay (200 ms, full jitter): {first_wait}");
    assert_eq!(sim.session.poll_timeout().map(|t| t / MS), Some(first_wait), "the host wakes for it");
    sim.advance(60_000 * MS);
    let registers = registers_of(&sim, 0);
    assert_eq!(registers.len(), 4, "refused three times, answered the fourth: {registers:?}");
    assert_eq!(registers[2].0 / MS, first_wait);
    assert!(registers[3].0 > registers[2].0 && registers[3].0 <= registers[2].0 + 400 * MS, "{registers:?}");
    assert_eq!(system_queries(&sim, 0), METADATA, "the metadata is not read again");
    // Registered: its events are heard.
    sim.new_node_event_on(conn, [127, 0, 0, 3]);
    assert_eq!(system_queries(&sim, 0), [METADATA, METADATA].concat());
}
