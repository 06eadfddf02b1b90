//! Joining a cluster: SASL through the host's authenticator, a protocol version refused, a
//! node known only by its address.

use super::*;

/// Each SASL step the host was handed, as (address, step), in order.
fn auth_steps(sim: &Sim) -> Vec<(String, &'static str)> {
    let step = |e: &str| ["Start", "Challenge", "Success"].into_iter().find(|s| e.contains(&format!("step: {s} ")));
    sim.events
        .iter()
        .filter(|e| e.starts_with("Auth {"))
        .map(|e| {
            let address = e.split('"').nth(1).unwrap_or_default().to_owned();
            (address, step(e).unwrap_or("?"))
        })
        .collect()
}

fn sasl_sim(answer: Result<&'static [u8], &'static str>) -> Sim {
    let mut c = config();
    c.connection.host_authenticator = true;
    let mut sim = Sim::new(3, c);
    for n in sim.nodes.iter_mut() {
        n.sasl = true;
    }
    sim.auth_answer = answer;
    sim.start();
    sim
}

#[test]
fn every_connection_of_a_sasl_cluster_is_authenticated_by_the_hosts_answer() {
    let mut sim = sasl_sim(Ok(SASL_TOKEN));
    assert!(sim.session.is_ready(), "{:?}", sim.events);
    let steps = auth_steps(&sim);
    let expected: Vec<(String, &str)> = ["127.0.0.1:9042", "127.0.0.2:9042", "127.0.0.3:9042"]
        .iter()
        .flat_map(|a| [(a.to_string(), "Start"), (a.to_string(), "Success")])
        .collect();
    let mut sorted = steps.clone();
    sorted.sort();
    assert_eq!(sorted, expected, "{steps:?}");
    assert!(sim.events.iter().any(|e| e.contains("authenticator_class: \"org.apache.cassandra.auth.PasswordAuthenticator\"")));
    sim.prepare();
    let id = sim.insert(5, false);
    assert!(sim.responses.contains_key(&id), "{:?}", sim.failures.get(&id));
}

#[test]
fn a_host_authenticator_that_fails_fails_the_connection_with_its_reason() {
    let sim = sasl_sim(Err("no key for this realm"));
    assert!(!sim.session.is_ready());
    assert_eq!(auth_steps(&sim), [("127.0.0.1:9042".to_string(), "Start")]);
    let failed: Vec<&String> = sim.events.iter().filter(|e| e.starts_with("ConnectFailed")).collect();
    assert_eq!(failed.len(), 1, "{:?}", sim.events);
    assert!(failed[0].contains("authenticator failed: no key for this realm"), "{}", failed[0]);
}

#[test]
fn a_contact_point_that_refuses_protocol_v5_is_joined_again_speaking_v4() {
    let mut c = config();
    c.connection.protocol_version = 5;
    let mut sim = Sim::new(3, c);
    for n in sim.nodes.iter_mut() {
        n.max_version = 4;
    }
    sim.start();
    assert!(sim.session.is_ready(), "{:?}", sim.events);
    assert_eq!(sim.session.protocol_version(), 4);
    assert!(sim.events.contains(&"Ready { protocol_version: 4 }".to_string()), "{:?}", sim.events);
    let m = sim.session.metrics();
    // The refused connection, its v4 successor (the control), and the two peers' pools.
    assert_eq!((m.connections_opened, m.connections_closed), (4, 1));
    sim.prepare();
    let id = sim.insert(5, false);
    assert!(sim.responses.contains_key(&id), "{:?}", sim.failures.get(&id));
}

/// The host ids the view gives each node, by address.
fn host_ids(sim: &Sim) -> Vec<(String, [u8; 16])> {
    let mut ids: Vec<(String, [u8; 16])> = sim.session.view().nodes().map(|n| (n.address.clone(), n.host_id)).collect();
    ids.sort();
    ids
}

#[test]
fn a_control_node_without_a_host_id_is_kept_under_a_stand_in_id_drawn_from_its_address() {
    // The stand-in ids are pinned: a host that keys what it knows of a node by host id finds
    // it again after a restart or an upgrade. FNV-1a of the address, folded into 16 bytes.
    // A name longer than 16 bytes folds onto bytes it already set.
    let long = "cassandra-node-one.example.com";
    let cases: [(usize, Option<&str>, [u8; 16]); 3] = [
        (0, None, [209, 242, 76, 183, 69, 199, 173, 43, 4, 60, 108, 50, 139, 69, 0, 0]),
        (1, None, [118, 84, 208, 232, 12, 72, 153, 200, 4, 60, 105, 179, 166, 12, 0, 0]),
        (0, Some(long), [102, 218, 166, 86, 152, 207, 102, 51, 148, 225, 33, 213, 60, 22, 227, 0]),
    ];
    for (control, name, stand_in) in cases {
        let mut sim = Sim::new(3, config());
        sim.nodes[control].local_host_id_unknown = true;
        let contact = match name {
            Some(name) => {
                sim.nodes[control].hostname = name;
                format!("{name}:9042")
            }
            None => sim.nodes[control].address.clone(),
        };
        sim.session.start(sim.now, &[contact.as_str()]);
        sim.pump();
        assert!(sim.session.is_ready(), "{:?}", sim.events);
        let mut expected: Vec<(String, [u8; 16])> = sim.nodes.iter().map(|n| (n.address.clone(), n.host_id)).collect();
        expected[control] = (contact.clone(), stand_in);
        expected.sort();
        assert_eq!(host_ids(&sim), expected, "control node {control}");
        // It serves its own tokens, and a topology read again keeps its id.
        let k = (0..100i64).find(|k| sim.owner(murmur3_token(&k.to_be_bytes())) == control).unwrap();
        sim.prepare();
        let id = sim.insert(k, false);
        assert_eq!(sim.responses.get(&id), Some(&contact));
        sim.new_node_event_from_node_0([127, 0, 0, 3]);
        assert_eq!(host_ids(&sim), expected, "control node {control}, read again");
    }
}

#[test]
fn a_node_that_refuses_v5_after_the_session_speaks_it_is_reported_down_not_spoken_to_in_v4() {
    let mut c = config();
    c.connection.protocol_version = 5;
    let mut sim = Sim::new(3, c);
    sim.nodes[1].max_version = 4;
    sim.start();
    assert!(sim.session.is_ready(), "{:?}", sim.events);
    assert!(sim.events.contains(&"Ready { protocol_version: 5 }".to_string()), "{:?}", sim.events);
    // The session's version is settled: one node cannot move it.
    assert_eq!(sim.session.protocol_version(), 5);
    let down: Vec<&String> = sim.events.iter().filter(|e| e.starts_with("NodeDown")).collect();
    assert_eq!(down.len(), 1, "{:?}", sim.events);
    assert!(down[0].starts_with("NodeDown { address: \"127.0.0.2:9042\", reason: \"the server refused protocol v5: "), "{}", down[0]);
    for _ in 0..30 {
        let request = Request::Query { cql: "SELECT 1", values: &[], options: QueryOptions::default() };
        let id = sim.session.start_request(sim.now, RequestSpec::new(request)).unwrap();
        sim.pump();
        assert!(sim.responses.contains_key(&id), "{:?}", sim.failures.get(&id));
    }
    let asked: Vec<usize> = sim.nodes.iter().map(|n| n.queries.iter().filter(|(_, q)| q == "SELECT 1").count()).collect();
    assert_eq!(asked[1], 0, "nothing is sent to the node that refused v5: {asked:?}");
    assert_eq!(asked.iter().sum::<usize>(), 30);
}
