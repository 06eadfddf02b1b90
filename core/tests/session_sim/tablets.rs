//! Tablet maps per table: a table's tablets serve every statement on it, never another
//! table's, and a schema change forgets only its own keyspace's tables.

use super::*;

/// Inserts keys 0..200 through the prepared statement `id`; returns the misroutes they cost.
fn misroutes_of(sim: &mut Sim, id: &'static [u8]) -> usize {
    let before = tablet_counts(sim).1;
    for k in 0..200i64 {
        let mut values = 2u16.to_be_bytes().to_vec();
        bytes(&mut values, Some(&k.to_be_bytes()));
        bytes(&mut values, Some(&[7u8; 32]));
        let request =
            Request::Execute { id, result_metadata_id: None, values: &values, options: QueryOptions::default() };
        let req = sim.session.start_request(sim.now, RequestSpec::new(request)).unwrap();
        sim.pump();
        assert!(sim.responses.contains_key(&req), "{:?}", sim.failures.get(&req));
    }
    tablet_counts(sim).1 - before
}

/// A SCHEMA_CHANGE event naming `keyspace`, on the control connection.
fn schema_event(sim: &mut Sim, keyspace: &str) {
    let control = sim.registers.iter().rev().map(|(_, c)| *c).find(|c| sim.conns.contains_key(c)).unwrap();
    let mut body = Vec::new();
    for s in ["SCHEMA_CHANGE", "UPDATED", "KEYSPACE", keyspace] {
        string(&mut body, s);
    }
    sim.session.handle_bytes(sim.now, control, &frame(-1, 0x0C, &body));
    sim.pump();
}

const T1: &[u8] = b"prep-insert";
const T3: &[u8] = b"prep-insert-ttl";

/// `prep-insert` on ks1.t and `prep-insert-ttl` on ks3.t, both tables' tablets learned.
fn two_tables() -> Sim {
    let mut sim = tablet_sim();
    // The simulated nodes describe a statement prepared while they mark LWTs as ks3.t.
    for n in sim.nodes.iter_mut() {
        n.lwt_marked = Some(false);
    }
    let id = sim.session.start_request(sim.now, RequestSpec::prepare(INSERT_TTL, None)).unwrap();
    sim.pump();
    assert!(sim.responses.contains_key(&id), "{:?}", sim.failures.get(&id));
    let learned = misroutes_of(&mut sim, T1);
    assert!((1..=SIM_TABLETS as usize).contains(&learned), "{learned}");
    // Another table: its tablets are its own, learned by misroutes of its own.
    let learned = misroutes_of(&mut sim, T3);
    assert!((1..=SIM_TABLETS as usize).contains(&learned), "{learned}");
    assert_eq!((misroutes_of(&mut sim, T1), misroutes_of(&mut sim, T3)), (0, 0), "both maps kept");
    sim
}

#[test]
fn a_second_statement_on_a_table_uses_the_tablets_the_first_learned() {
    let mut sim = tablet_sim();
    assert!(misroutes_of(&mut sim, T1) > 0);
    let id = sim.session.start_request(sim.now, RequestSpec::prepare(INSERT_TTL, None)).unwrap();
    sim.pump();
    assert!(sim.responses.contains_key(&id), "{:?}", sim.failures.get(&id));
    assert_eq!(misroutes_of(&mut sim, T3), 0, "ks1.t again: the same table, the same tablets");
}

#[test]
fn a_schema_change_forgets_the_tablets_of_its_keyspace_only() {
    let mut sim = two_tables();
    schema_event(&mut sim, "ks3");
    assert_eq!(misroutes_of(&mut sim, T1), 0, "ks1.t kept");
    let again = misroutes_of(&mut sim, T3);
    assert!((1..=SIM_TABLETS as usize).contains(&again), "ks3.t forgotten and learned again: {again}");
    schema_event(&mut sim, "ks1");
    assert_eq!(misroutes_of(&mut sim, T3), 0, "ks3.t kept");
    assert!(misroutes_of(&mut sim, T1) > 0, "ks1.t forgotten");
    // A keyspace the session never interned forgets nothing.
    schema_event(&mut sim, "other");
    assert_eq!((misroutes_of(&mut sim, T1), misroutes_of(&mut sim, T3)), (0, 0));
}
