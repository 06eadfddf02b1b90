//! What a bulk load keeps in memory stays bounded by its byte budget, however long the load
//! and however slow the server: the row slots (each read row's values and raw record, kept
//! until it settles, and reused after) are the load's own memory, and in WASM the largest
//! high-water mark grows to is never given back.

use super::bulk_load::new_load_with;
use super::*;
use cqlwire_core::bulk::load::{BulkLoad, LoadConfig};

/// `rows` CSV rows `k,0x…` whose blobs are 200-699 bytes (raw records twice that), of
/// varying width as in real files, so that a slot reused for a wider row than its last one
/// has to grow.
fn varying_rows(rows: usize) -> Vec<u8> {
    let mut out = String::new();
    for k in 0..rows {
        let width = 200 + (k * 7919) % 500;
        out.push_str(&format!("{k},0x{}\n", "ab".repeat(width)));
    }
    out.into_bytes()
}

/// A server that answers each request a turn after it was sent: between two turns the load
/// reads until its byte budget stops it, as against a server slower than the input. `observe`
/// sees the load after every turn.
fn run_against_slow_server(sim: &mut Sim, id: u32, input: &[u8], mut observe: impl FnMut(&BulkLoad)) {
    let mut chunks = input.chunks(64 * 1024);
    let mut answers: Vec<(ConnId, Vec<u8>)> = Vec::new();
    for _ in 0..100_000 {
        bulk_load::feed(sim, id, &mut chunks, &mut |_| {});
        // Last turn's answers arrive; this turn's requests are answered next turn.
        for (conn, reply) in answers.drain(..) {
            sim.session.handle_bytes(sim.now, conn, &reply);
        }
        sim.loads.drain_events(sim.now, &mut sim.session, |_| {});
        let mut out = Vec::new();
        while let Some(conn) = sim.session.poll_transmit(&mut out) {
            answers.push((conn, sim.respond(conn, &out)));
            out.clear();
        }
        observe(sim.loads.get(id).unwrap());
        if sim.loads.get(id).unwrap().is_done() {
            return;
        }
        sim.now += MS;
    }
    panic!("the load did not finish: {:?}", sim.loads.get(id).unwrap().stats());
}

#[test]
fn the_row_slots_stay_within_the_byte_budget_through_a_long_load_against_a_slow_server() {
    let mut sim = Sim::new(1, config());
    sim.start();
    let budget = 64 * 1024;
    let config = LoadConfig { max_held_bytes: budget, ..LoadConfig::default() };
    let id = new_load_with(&mut sim, |_| {}, config);
    // 6,000 rows of ~1.4 KB of raw record each: 8 MB, 130 times the budget.
    let input = varying_rows(6000);
    let widest_row = 2 * 4 + 8 + 699 + 2 + 2 * 699 + 6;
    let (mut most_held, mut most_slot_bytes) = (0, 0);
    run_against_slow_server(&mut sim, id, &input, |load| {
        most_held = most_held.max(load.stats().held_bytes);
        most_slot_bytes = most_slot_bytes.max(load.slot_bytes());
    });
    let load = sim.loads.get(id).unwrap();
    let stats = load.stats();
    assert_eq!((stats.rows_ok, stats.rows_bad, stats.held_bytes), (6000, 0, 0));
    assert_eq!(load.watermark(), input.len() as u64);
    // The budget was reached (the server was the limit), and counts raw records with values.
    assert!(most_held >= budget && most_held < budget + widest_row, "held at most {most_held} bytes of {budget}");
    // Every slot's buffers are at most twice what they last held, so all of them together at
    // most twice the budget (a row past it): not the budget's rows times the widest row's
    // size doubled, as buffers reused across rows of varying width grew before.
    assert!(
        most_slot_bytes >= most_held && most_slot_bytes <= 2 * (budget + widest_row),
        "the row slots grew to {most_slot_bytes} bytes with a budget of {budget}"
    );
}
