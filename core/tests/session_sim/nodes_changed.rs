//! `SessionEvent::NodesChanged`: a refresh of the topology that adds or removes a node says
//! so once, after the refresh (DataStax's control connection emits hostAdd/hostRemove then),
//! and a refresh that adds and removes nothing says nothing.

use super::*;

fn nodes_changed(sim: &Sim) -> usize {
    sim.events.iter().filter(|e| *e == "NodesChanged").count()
}

fn addresses(sim: &Sim) -> Vec<String> {
    let mut out: Vec<String> = sim.session.view().nodes().map(|n| n.address.clone()).collect();
    out.sort();
    out
}

#[test]
fn a_refresh_that_adds_or_removes_a_node_says_so_once() {
    let mut sim = Sim::new(3, config());
    sim.start();
    assert_eq!(nodes_changed(&sim), 0, "the start's own topology is no change");

    // A node moved: the view changes, the set of nodes does not.
    sim.nodes[2].tokens = vec![7];
    sim.new_node_event_from_node_0([127, 0, 0, 3]);
    assert_eq!(sim.session.view().node_by_address("127.0.0.3:9042").map(|n| n.tokens.clone()), Some(vec![7]));
    assert_eq!(nodes_changed(&sim), 0, "{:?}", sim.events);

    sim.nodes.push(SimNode {
        address: "127.0.0.4:9042".into(),
        tokens: vec![42],
        host_id: [4; 16],
        up: true,
        ..SimNode::default()
    });
    sim.new_node_event_from_node_0([127, 0, 0, 4]);
    assert_eq!(addresses(&sim), ["127.0.0.1:9042", "127.0.0.2:9042", "127.0.0.3:9042", "127.0.0.4:9042"]);
    assert_eq!(nodes_changed(&sim), 1, "{:?}", sim.events);

    // The same rows again: nothing to say.
    sim.new_node_event_from_node_0([127, 0, 0, 4]);
    assert_eq!(nodes_changed(&sim), 1, "{:?}", sim.events);

    // Node 4 goes down, then leaves the cluster: no NodeDown comes for it any more.
    sim.kill(3);
    sim.nodes.pop();
    sim.new_node_event_from_node_0([127, 0, 0, 4]);
    assert_eq!(addresses(&sim), ["127.0.0.1:9042", "127.0.0.2:9042", "127.0.0.3:9042"]);
    assert_eq!(nodes_changed(&sim), 2, "{:?}", sim.events);
}
