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
