//! `SessionConfig::warmup` (DataStax's `pooling.warmup`): `Ready` waits until every local
//! node's pool has a connection up or failed to open one, so requests made as soon as the
//! host sees `Ready` can go to every node, not only the control node. A silent node holds it
//! until its handshake deadline and no longer; remote nodes do not hold it at all.

use super::*;

fn ready_times(sim: &Sim) -> Vec<u64> {
    sim.timeline.iter().filter(|(_, e)| e.starts_with("Ready")).map(|(t, _)| *t).collect()
}

fn position(sim: &Sim, prefix: &str) -> Option<usize> {
    sim.timeline.iter().position(|(_, e)| e.starts_with(prefix))
}

#[test]
fn a_silent_local_node_holds_ready_until_its_handshake_deadline() {
    let mut sim = Sim::new(3, quick_connect_config());
    sim.nodes[2].mute = true;
    sim.start();
    assert_eq!(sim.session.view().nodes().count(), 3, "the metadata is read");
    assert!(!sim.session.is_ready());
    sim.advance(499 * MS);
    assert_eq!(ready_times(&sim), Vec::<u64>::new(), "{:?}", sim.timeline);
    assert!(!sim.session.is_ready());
    sim.advance(MS);
    assert_eq!(ready_times(&sim), [500 * MS], "{:?}", sim.timeline);
    assert!(sim.session.is_ready());
    let down = position(&sim, "NodeDown { address: \"127.0.0.3:9042\"");
    assert!(down.is_some_and(|d| Some(d) < position(&sim, "Ready")), "the silent node is down before Ready: {:?}", sim.timeline);
    let up: HashSet<String> = sim.session.connection_states().into_iter().filter(|s| s.5).map(|s| s.1).collect();
    assert_eq!(up, HashSet::from(["127.0.0.1:9042".to_string(), "127.0.0.2:9042".to_string()]));
}

#[test]
fn without_warmup_ready_comes_with_the_metadata() {
    let mut sim = Sim::new(3, SessionConfig { warmup: false, ..quick_connect_config() });
    sim.nodes[2].mute = true;
    sim.start();
    assert_eq!(ready_times(&sim), [0], "{:?}", sim.timeline);
    assert!(sim.session.is_ready());
}

#[test]
fn a_refused_local_node_settles_at_once() {
    let mut sim = Sim::new(3, quick_connect_config());
    sim.nodes[2].up = false;
    sim.start();
    assert_eq!(ready_times(&sim), [0], "{:?}", sim.timeline);
    let down = position(&sim, "NodeDown { address: \"127.0.0.3:9042\"");
    assert!(down.is_some_and(|d| Some(d) < position(&sim, "Ready")), "{:?}", sim.timeline);
}

#[test]
fn a_silent_remote_node_does_not_hold_ready() {
    let mut config = quick_connect_config();
    config.policy.local_dc = Some("dc1".into());
    config.policy.allow_remote_dcs = true;
    let mut sim = Sim::new(3, config);
    sim.nodes[2].data_center = Some("dc2");
    sim.nodes[2].mute = true;
    sim.start();
    assert_eq!(ready_times(&sim), [0], "{:?}", sim.timeline);
    let opened: HashSet<usize> = sim.conns.values().copied().collect();
    assert!(opened.contains(&2), "the remote node gets its connection, only not waited for");
}

#[test]
fn ready_is_announced_once_whatever_opens_after_it() {
    let mut sim = Sim::new(3, quick_connect_config());
    sim.start();
    sim.prepare();
    sim.kill(1);
    sim.nodes[1].up = true;
    sim.advance(60_000 * MS);
    sim.assert_node_2_is_back();
    assert_eq!(ready_times(&sim), [0], "{:?}", sim.timeline);
}
