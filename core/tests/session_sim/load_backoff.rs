//! The delay before a bulk load's group goes again: its own attempts drive it (a retry's
//! delay belongs to its request), and only failures that say the whole cluster struggles
//! raise a load-wide level, until the next acknowledgement. Times are exact: the simulated
//! node answers at once, so a retry goes out at its failure's time plus the delay drawn.

use super::bulk_load::{csv, new_load, one_node_one_attempt, run};
use super::*;
use cqlwire_core::bulk::load::LoadConfig;
use cqlwire_core::bulk::BadRowKind;
use cqlwire_core::cluster::{Backoff, Jitter};

/// Each EXECUTE node 0 read: (simulated time, the row's key `k`).
fn executes(sim: &Sim) -> Vec<(u64, i64)> {
    let bodies = sim.nodes[0].request_bodies.iter().filter(|(op, _)| *op == 0x0A);
    let times = sim.nodes[0].execute_times.iter();
    times
        .zip(bodies)
        .map(|(&t, (_, body))| {
            // [short bytes id][consistency u16][flags u8][u16 values] then k as [int 8][bigint]
            let at = 2 + u16::from_be_bytes([body[0], body[1]]) as usize + 5 + 4;
            (t, i64::from_be_bytes(body[at..at + 8].try_into().unwrap()))
        })
        .collect()
}

/// The delays a load with the default retry settings draws at these backoff levels, in turn.
fn delays(levels: impl IntoIterator<Item = u32>) -> Vec<u64> {
    let c = LoadConfig::default();
    let mut backoff = Backoff::new(c.retry_base_us, c.retry_max_us, Jitter::Full, c.seed);
    levels.into_iter().map(|level| backoff.full_jitter(level)).collect()
}

/// One node that answers the rows marked 0xee with a server error (0x0000) each time.
fn node_failing_marked_rows() -> Sim {
    let mut sim = one_node_one_attempt();
    sim.nodes[0].refuse_marker = Some(0xee);
    sim.nodes[0].refuse_as_server_error = true;
    sim
}

#[test]
fn a_row_failing_alone_waits_by_its_own_attempts_while_the_good_rows_are_acknowledged() {
    let mut sim = node_failing_marked_rows();
    let id = new_load(&mut sim, LoadConfig { batch_size: 1, max_retries: 3, ..LoadConfig::default() });
    let start = sim.now;
    run(&mut sim, id, &csv(10, &[0]), 1 << 20);
    // Its levels are its own attempts, 0, 1, 2 (ceilings 0.1, 0.2, 0.4 s), although the
    // nine rows acknowledged meanwhile reset anything load-wide (they used to bring the one
    // shared backoff back to level 0 before each of its retries).
    let d = delays([0, 1, 2]);
    let sent = executes(&sim);
    let bad: Vec<u64> = sent.iter().filter(|(_, k)| *k == 0).map(|(t, _)| t - start).collect();
    assert_eq!(bad, [0, d[0], d[0] + d[1], d[0] + d[1] + d[2]]);
    let good: Vec<u64> = sent.iter().filter(|(_, k)| *k != 0).map(|(t, _)| t - start).collect();
    assert_eq!(good, [0; 9]);
    assert_eq!(sim.now - start, d[0] + d[1] + d[2], "done at its last answer");
    let load = sim.loads.get_mut(id).unwrap();
    let stats = load.stats();
    assert_eq!((stats.rows_ok, stats.rows_rejected, stats.retries), (9, 1, 3));
    let row = load.poll_bad().unwrap();
    assert_eq!((row.kind, row.server_code, row.attempts, row.line), (BadRowKind::Rejected, Some(0x0000), 4, 1));
}

#[test]
fn rows_each_failing_alone_do_not_slow_each_other_down() {
    // 50 rows, every one answered 0x0000 each time: each still waits at most its own
    // ceilings, 0.1 + 0.2 + 0.4 s. One backoff shared by the load grew with every one of
    // the 150 failures to its 10 s ceiling.
    let mut sim = node_failing_marked_rows();
    let id = new_load(&mut sim, LoadConfig { batch_size: 1, max_retries: 3, ..LoadConfig::default() });
    let start = sim.now;
    let rows: Vec<usize> = (0..50).collect();
    run(&mut sim, id, &csv(50, &rows), 1 << 20);
    let sent = executes(&sim);
    for k in 0..50 {
        let times: Vec<u64> = sent.iter().filter(|(_, key)| *key == k).map(|(t, _)| *t).collect();
        assert_eq!((times.len(), times[0]), (4, start), "row {k}: {times:?}");
        for (level, gap) in times.windows(2).map(|w| w[1] - w[0]).enumerate() {
            assert!(gap <= (100 * MS) << level, "row {k}, retry {level}: {gap} µs after the failure");
        }
    }
    assert!(sim.now - start <= 700 * MS, "the load took {} µs", sim.now - start);
    let stats = sim.loads.get(id).unwrap().stats();
    assert_eq!((stats.rows_ok, stats.rows_rejected, stats.retries), (0, 50, 150));
}

#[test]
fn failures_that_say_the_cluster_struggles_raise_every_retrys_level_and_others_do_not() {
    // Eight rows sent at once, each failing once with `error`. A failure that says the
    // cluster as a whole struggles raises the load-wide level by one: the eight retries are
    // drawn at levels 0..8 (ceilings 0.1 s to 10 s), as the one shared backoff did. Any
    // other failure leaves it, and each group retries at its own first level.
    let unavailable = server_error(0x1000, "unavailable", &timeout_body(2, 1, &[]));
    let cases = [
        ("overloaded", server_error(0x1001, "busy", &[]), true),
        ("write timeout", write_timeout("SIMPLE"), true),
        ("unavailable", unavailable, true),
        ("server error", server_error(0x0000, "internal", &[]), false),
        ("bootstrapping", server_error(0x1002, "joining", &[]), false),
    ];
    for (name, error, cluster_wide) in cases {
        let mut sim = one_node_one_attempt();
        sim.nodes[0].fail_next = vec![error; 8];
        let id = new_load(&mut sim, LoadConfig { batch_size: 1, initial_concurrency: 8, ..LoadConfig::default() });
        let start = sim.now;
        run(&mut sim, id, &csv(8, &[]), 1 << 20);
        let sent = executes(&sim);
        assert_eq!(sent[..8].iter().map(|(t, _)| t - start).collect::<Vec<_>>(), [0; 8], "{name}");
        let mut retried: Vec<u64> = sent[8..].iter().map(|(t, _)| t - start).collect();
        retried.sort_unstable();
        let levels: Vec<u32> = if cluster_wide { (0..8).collect() } else { vec![0; 8] };
        let mut expected = delays(levels);
        expected.sort_unstable();
        assert_eq!(retried, expected, "{name}");
        let stats = sim.loads.get(id).unwrap().stats();
        assert_eq!((stats.rows_ok, stats.retries), (8, 8), "{name}");
    }
}

#[test]
fn an_acknowledgement_brings_the_load_wide_level_back_to_zero() {
    let mut sim = one_node_one_attempt();
    let config = LoadConfig { batch_size: 1, initial_concurrency: 2, max_concurrency: 2, ..LoadConfig::default() };
    let id = new_load(&mut sim, config);
    let start = sim.now;
    // Two rows refused as Overloaded at once: drawn at levels 0 and 1, the level is now 2.
    sim.nodes[0].fail_next = vec![server_error(0x1001, "busy", &[]); 2];
    sim.loads.push(sim.now, &mut sim.session, id, b"1,0x01\n2,0x01\n");
    sim.pump();
    // A third row is acknowledged: the level is 0 again.
    sim.loads.push(sim.now, &mut sim.session, id, b"3,0x01\n");
    sim.pump();
    assert_eq!(sim.loads.get(id).unwrap().stats().rows_ok, 1);
    // The first retry is refused again: drawn at its own level, 1 (it would be 2 had the
    // acknowledgement not reset the load-wide one); the other retry is acknowledged.
    sim.nodes[0].fail_next = vec![server_error(0x1001, "busy", &[])];
    run(&mut sim, id, b"", 1);
    let d = delays([0, 1, 1]);
    let (first, second) = (d[0].min(d[1]), d[0].max(d[1]));
    let mut sent: Vec<u64> = executes(&sim).iter().map(|(t, _)| t - start).collect();
    sent.sort_unstable();
    let mut expected = vec![0, 0, 0, first, second, first + d[2]];
    expected.sort_unstable();
    assert_eq!(sent, expected);
    let stats = sim.loads.get(id).unwrap().stats();
    assert_eq!((stats.rows_ok, stats.retries), (3, 3));
}
