//! Last row in file order wins: what a bulk load puts on the wire when its input holds the
//! same key more than once. Read from the bodies the simulated nodes received: every request
//! carries a client timestamp, a row's timestamp never changes between attempts (retries,
//! a batch split into single rows), rows with the same key get increasing timestamps in
//! input order, and no batch holds a key twice (one timestamp per batch: a tie would be
//! decided by value, not by order).

use std::collections::{BTreeMap, BTreeSet};

use super::bulk_load::{new_load, run, run_observed};
use super::*;
use cqlwire_core::bulk::load::{BatchGrouping, LoadConfig};

/// One request as received: its timestamp and its rows as (key `k`, row number).
struct Sent {
    timestamp: Option<i64>,
    rows: Vec<(i64, u32)>,
}

/// A `(k bigint, v blob)` row's values: `k`, and the row number `v` carries in its last 3 bytes.
fn row_of(values: &[u8]) -> ((i64, u32), usize) {
    assert_eq!(&values[..2], &[0, 2], "two values");
    assert_eq!(&values[2..6], &8i32.to_be_bytes());
    let k = i64::from_be_bytes(values[6..14].try_into().unwrap());
    assert_eq!(&values[14..18], &4i32.to_be_bytes());
    let n = u32::from_be_bytes([0, values[19], values[20], values[21]]);
    ((k, n), 22)
}

/// The timestamp after the flags byte at `at` (v4: `[consistency u16][flags u8]`), which
/// must end the body (no paging, serial consistency or keyspace in a bulk load's requests).
fn timestamp_at(body: &[u8], at: usize) -> Option<i64> {
    let flags = body[at];
    if flags & 0x20 == 0 {
        assert_eq!(body.len(), at + 1, "nothing after the flags");
        return None;
    }
    assert_eq!(body.len(), at + 9, "the timestamp ends the body");
    Some(i64::from_be_bytes(body[at + 1..].try_into().unwrap()))
}

fn parse(opcode: u8, body: &[u8]) -> Sent {
    let short = |at: usize| u16::from_be_bytes([body[at], body[at + 1]]) as usize;
    if opcode == 0x0A {
        // [short bytes id][consistency u16][flags u8][values]
        let at = 2 + short(0) + 2;
        let (row, len) = row_of(&body[at + 1..]);
        let flags = body[at];
        // The values sit between the flags and the timestamp: move the flags next to it.
        let mut rest = vec![flags];
        rest.extend_from_slice(&body[at + 1 + len..]);
        return Sent { timestamp: timestamp_at(&rest, 0), rows: vec![row] };
    }
    // [type u8][n u16] n x ([kind 1][short bytes id][values]), then [consistency u16][flags u8]
    let mut at = 3;
    let mut rows = Vec::new();
    for _ in 0..short(1) {
        at += 1 + 2 + short(at + 1);
        let (row, len) = row_of(&body[at..]);
        rows.push(row);
        at += len;
    }
    Sent { timestamp: timestamp_at(body, at + 2), rows }
}

fn sent(sim: &Sim) -> Vec<Sent> {
    let bodies = sim.nodes.iter().flat_map(|n| &n.request_bodies);
    bodies.filter(|(op, _)| matches!(op, 0x0A | 0x0D)).map(|(op, body)| parse(*op, body)).collect()
}

/// `rows` rows over `keys` keys: row n writes `k = key(n)`, `v` = n (refused rows marked
/// 0xee). Keys repeat far apart (n % keys) and, every 7th row, right after (the row before's).
fn input(rows: u32, keys: u32, refused: &[u32]) -> (Vec<u8>, Vec<i64>) {
    let mut out = String::new();
    let mut key_of = Vec::new();
    for n in 0..rows {
        let k = if n % 7 == 6 { key_of[n as usize - 1] } else { (n.wrapping_mul(2_654_435_761) % keys) as i64 };
        key_of.push(k);
        let marker = if refused.contains(&n) { "ee" } else { "00" };
        out.push_str(&format!("{k},0x{marker}{n:06x}\n"));
    }
    (out.into_bytes(), key_of)
}

/// Loads `input` batched, on three nodes that answer the first BATCHes Overloaded and refuse
/// rows marked 0xee; checks what went on the wire; returns the requests and the load's retries.
fn load_with_duplicates(chunk: usize, seed: u64) -> (Vec<Sent>, Vec<i64>, u64) {
    // One attempt per request in the session: a failure is the load's to retry.
    let mut sim = Sim::new(3, SessionConfig { retry: RetryPolicy { max_attempts: 1 }, ..config() });
    for n in &mut sim.nodes {
        n.fail_next_batch = vec![server_error(0x1001, "overloaded", &[]); 4];
        n.refuse_marker = Some(0xee);
    }
    sim.start();
    let config = LoadConfig { batch_size: 8, batch_by: BatchGrouping::Replicas, seed, ..LoadConfig::default() };
    let id = new_load(&mut sim, config);
    let (input, key_of) = input(3000, 40, &[100, 2001]);
    run(&mut sim, id, &input, chunk);
    let stats = sim.loads.get(id).unwrap().stats();
    assert_eq!((stats.rows_ok, stats.rows_rejected), (2998, 2), "{stats:?}");
    (sent(&sim), key_of, stats.retries)
}

#[test]
fn rows_of_one_key_get_increasing_timestamps_in_input_order_and_never_share_a_batch() {
    for (chunk, seed) in [(1 << 20, 1), (512, 2), (64, 3)] {
        let (requests, key_of, retries) = load_with_duplicates(chunk, seed);
        assert!(retries > 0, "the Overloaded batches went again");
        assert!(requests.iter().any(|r| r.rows.len() > 1), "rows were batched");
        // Each row's timestamp, the same on every request that carried it.
        let mut timestamp_of: BTreeMap<u32, BTreeSet<i64>> = BTreeMap::new();
        let mut carried = 0;
        for request in &requests {
            let ts = request.timestamp.expect("every request carries a client timestamp");
            let keys: BTreeSet<i64> = request.rows.iter().map(|&(k, _)| k).collect();
            assert_eq!(keys.len(), request.rows.len(), "a key twice in one batch: {:?}", request.rows);
            for &(k, n) in &request.rows {
                assert_eq!(k, key_of[n as usize]);
                timestamp_of.entry(n).or_default().insert(ts);
                carried += 1;
            }
        }
        assert!(carried > key_of.len(), "some rows went more than once (retries, splits)");
        assert_eq!(timestamp_of.len(), key_of.len(), "every row was sent");
        let single: BTreeMap<u32, i64> = timestamp_of
            .iter()
            .map(|(&n, set)| {
                assert_eq!(set.len(), 1, "row {n} went with different timestamps: {set:?}");
                (n, *set.first().unwrap())
            })
            .collect();
        // In input order, each key's rows have strictly increasing timestamps.
        let mut last: BTreeMap<i64, (u32, i64)> = BTreeMap::new();
        for (&n, &ts) in &single {
            let k = key_of[n as usize];
            if let Some(&(before, before_ts)) = last.get(&k) {
                assert!(ts > before_ts, "key {k}: row {n} at {ts}, earlier row {before} at {before_ts}");
            }
            last.insert(k, (n, ts));
        }
    }
}

#[test]
fn a_fixed_timestamp_goes_on_every_request_and_counters_carry_none() {
    for (config, expected) in [
        (LoadConfig { default_timestamp: Some(1_234), ..LoadConfig::default() }, Some(1_234)),
        (LoadConfig { counter: true, batch_size: 1, ..LoadConfig::default() }, None),
    ] {
        let mut sim = Sim::new(1, super::config());
        sim.start();
        let id = new_load(&mut sim, config);
        let (input, _) = input(50, 5, &[]);
        run(&mut sim, id, &input, 1 << 20);
        let requests = sent(&sim);
        assert_eq!(requests.iter().map(|r| r.rows.len()).sum::<usize>(), 50);
        assert!(requests.iter().all(|r| r.timestamp == expected));
    }
}

#[test]
fn a_resumed_load_counts_up_from_the_checkpoints_timestamp_then_follows_the_clock() {
    let mut sim = Sim::new(1, config());
    sim.start();
    let config = LoadConfig { batch_size: 1, resume_timestamps: Some((1_000, 1_005)), ..LoadConfig::default() };
    let id = new_load(&mut sim, config);
    let (input, _) = input(10, 1_000, &[]);
    let started = sim.now as i64;
    // With rows in flight, the checkpoint's timestamp is the first unsettled row's, below the next.
    let mut in_flight_marks = Vec::new();
    run_observed(&mut sim, id, &input, 1 << 20, |load| {
        let stats = load.stats();
        if stats.in_flight > 0 {
            in_flight_marks.push((stats.watermark_timestamp, stats.last_timestamp));
        }
    });
    assert!(!in_flight_marks.is_empty());
    for (mark, last) in in_flight_marks {
        assert!(mark.unwrap() >= 1_000 && mark.unwrap() <= last.unwrap(), "{mark:?} {last:?}");
    }
    let mut by_row: Vec<(u32, i64)> = sent(&sim).iter().map(|r| (r.rows[0].1, r.timestamp.unwrap())).collect();
    by_row.sort();
    let timestamps: Vec<i64> = by_row.iter().map(|&(_, ts)| ts).collect();
    // Rows the interrupted run may have written get no later timestamp than it gave them.
    assert_eq!(timestamps[..6], [1_000, 1_001, 1_002, 1_003, 1_004, 1_005]);
    assert!(timestamps[6] >= started.max(1_006) && timestamps.windows(2).all(|w| w[0] < w[1]), "{timestamps:?}");
    // What the next checkpoint records: everything settled, so the next row's lowest.
    let stats = sim.loads.get(id).unwrap().stats();
    assert_eq!((stats.watermark_timestamp, stats.last_timestamp), (Some(timestamps[9] + 1), Some(timestamps[9])));
}

/// A node's token moves while a batched load has groups open: rows of one key read before
/// and after the move must still go out with increasing timestamps. Under the old view the
/// key's rows had a group of their own; under the new one its token has the replicas (the
/// grouping key) of a group opened before its first row was read, with that group's earlier
/// timestamp: a later row joining it would lose to the earlier one.
#[test]
fn a_key_whose_replicas_change_mid_load_still_has_its_later_row_win() {
    // One request at a time, batches of two, the clock standing still (timestamps count up
    // one per row read).
    let mut sim = Sim::new(3, config());
    sim.start();
    let config = LoadConfig {
        batch_size: 2,
        batch_by: BatchGrouping::Replicas,
        initial_concurrency: 1,
        max_concurrency: 1,
        ..LoadConfig::default()
    };
    let id = new_load(&mut sim, config);
    let token = |k: i64| murmur3_token(&k.to_be_bytes());
    let keys_on = |node: usize| (0..1000i64).filter(|&k| sim.owner(token(k)) == node).collect::<Vec<_>>();
    let (x, y, z) = (keys_on(2)[0], keys_on(1)[0], keys_on(0));
    let rows = |rows: &[(i64, u32)]| rows.iter().map(|(k, n)| format!("{k},0x00{n:06x}\n")).collect::<String>();

    // x opens a group on node 3, y one on node 2; z's two rows fill node 1's, which goes out
    // and fills the window: the other two stay open.
    let load = sim.loads.get_mut(id).unwrap();
    load.push(rows(&[(x, 0), (y, 1), (z[0], 2), (z[1], 3)]).as_bytes());
    load.pump(sim.now, &mut sim.session);
    assert_eq!(load.stats().in_flight, 1);
    // Its answer waits among the events while node 2's token moves next to node 1's: y's
    // range passes to node 3, x's owner, so y's grouping key becomes that of x's open group.
    sim.pump_undrained();
    let epoch = sim.session.view().epoch();
    sim.nodes[1].tokens = vec![sim.nodes[0].tokens[0] + 1];
    assert_eq!(sim.owner(token(y)), 2);
    let control = sim.registers.iter().rev().map(|(_, c)| *c).find(|c| sim.conns.contains_key(c)).unwrap();
    let mut body = Vec::new();
    string(&mut body, "TOPOLOGY_CHANGE");
    string(&mut body, "MOVED_NODE");
    body.push(4);
    body.extend_from_slice(&[127, 0, 0, 2]);
    body.extend_from_slice(&9042i32.to_be_bytes());
    sim.session.handle_bytes(sim.now, control, &frame(-1, 0x0C, &body));
    sim.pump_undrained();
    assert!(sim.session.view().epoch() > epoch, "the view took the move");

    // y again, read after the move; then the load runs to its end.
    sim.loads.get_mut(id).unwrap().push(rows(&[(y, 4)]).as_bytes());
    run(&mut sim, id, &[], 1);
    assert_eq!(sim.loads.get(id).unwrap().stats().rows_ok, 5);

    // On the wire: y's second row went with a strictly later timestamp than its first.
    let requests = sent(&sim);
    // (A node that did not know the statement yet answered Unprepared: the session sent
    // the same request again after preparing it there, with the same timestamp.)
    let timestamp_of = |n: u32| {
        let carrying: BTreeSet<i64> =
            requests.iter().filter(|r| r.rows.iter().any(|&(_, m)| m == n)).map(|r| r.timestamp.unwrap()).collect();
        assert_eq!(carrying.len(), 1, "row {n} went with one timestamp: {carrying:?}");
        *carrying.first().unwrap()
    };
    let (first, second) = (timestamp_of(1), timestamp_of(4));
    assert!(second > first, "y's later row at {second}, its earlier one at {first}: the earlier row wins");
    // Rows of one key never tie, and never share a request.
    for request in &requests {
        let keys: BTreeSet<i64> = request.rows.iter().map(|&(k, _)| k).collect();
        assert_eq!(keys.len(), request.rows.len(), "{:?}", request.rows);
    }
}
