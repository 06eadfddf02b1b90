//! Proves that routing a request allocates nothing: a counting global allocator watches
//! `plan_for(...).next()` and whole-plan iteration on a warm view.
//!
//! The counters are per thread, so the test harness's own threads do not disturb them.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use cqlwire_core::cluster::{
    murmur3_token, routing_token, ClusterView, KeyspaceRow, PeerRow, PolicyConfig, SplitMix64,
};

struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static BYTES: Cell<u64> = const { Cell::new(0) };
}

fn record(size: usize) {
    let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
    let _ = BYTES.try_with(|bytes| bytes.set(bytes.get() + size as u64));
}

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// (allocations, bytes) made on this thread while `f` runs.
fn allocations_during<T>(f: impl FnOnce() -> T) -> (u64, u64, T) {
    let (count_before, bytes_before) = (ALLOCATIONS.with(Cell::get), BYTES.with(Cell::get));
    let value = f();
    (ALLOCATIONS.with(Cell::get) - count_before, BYTES.with(Cell::get) - bytes_before, value)
}

/// 12 nodes in 2 datacenters × 2 racks, 16 vnodes each, tokens from a fixed seed.
fn warm_view() -> ClusterView {
    let mut rng = SplitMix64::new(2024);
    let rows: Vec<PeerRow> = (0..12u8)
        .map(|i| PeerRow {
            rpc_address: Some(format!("10.0.{}.{}", i % 2, i + 1)),
            data_center: Some(format!("dc{}", i % 2 + 1)),
            rack: Some(format!("r{}", i / 2 % 2 + 1)),
            tokens: (0..16).map(|_| (rng.next_u64() as i64).to_string()).collect(),
            host_id: Some([i + 1; 16]),
            ..PeerRow::default()
        })
        .collect();
    let config = PolicyConfig { local_rack: Some("r1".into()), allow_remote_dcs: true, ..PolicyConfig::default() };
    let mut view = ClusterView::new(config);
    let applied = view.apply_topology("10.0.0.1:9042", &rows[0], &rows[1..], 9042);
    assert!(applied.skipped.is_empty());
    let replication = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    view.apply_keyspaces(&[
        KeyspaceRow {
            keyspace_name: "app".into(),
            replication: replication(&[("class", "NetworkTopologyStrategy"), ("dc1", "3"), ("dc2", "2")]),
        },
        KeyspaceRow {
            keyspace_name: "simple".into(),
            replication: replication(&[("class", "SimpleStrategy"), ("replication_factor", "3")]),
        },
    ]);
    // One node down, so iteration also exercises the skipping path.
    assert!(view.set_up("10.0.1.4:9042", false));
    view
}

#[test]
fn routing_a_request_allocates_nothing() {
    let view = warm_view();
    let tokens: Vec<i64> = (0..64u32).map(|i| murmur3_token(&i.to_be_bytes())).collect();
    // Warm-up: the first call on a thread may set up thread-locals.
    let _ = view.plan_for(Some("app"), Some(tokens[0]), 0).next();

    for keyspace in [Some("app"), Some("simple"), Some("unknown"), None] {
        for (i, &token) in tokens.iter().enumerate() {
            let rotation = i as u32 * 7;
            let (count, bytes, first) =
                allocations_during(|| view.plan_for(keyspace, Some(token), rotation).next().map(|n| n.id));
            assert!(first.is_some());
            assert_eq!((count, bytes), (0, 0), "first target of {keyspace:?} token {token}");

            let (count, bytes, visited) = allocations_during(|| view.plan_for(keyspace, Some(token), rotation).count());
            assert_eq!(visited, 11, "every live node once");
            assert_eq!((count, bytes), (0, 0), "whole plan of {keyspace:?} token {token}");

            let (count, bytes, rest) = allocations_during(|| {
                let mut plan = view.plan_for_lwt(keyspace, Some(token));
                plan.next();
                let cursor = plan.into_cursor();
                view.resume(cursor).count()
            });
            assert_eq!(rest, 10);
            assert_eq!((count, bytes), (0, 0), "resumed plan of {keyspace:?} token {token}");
        }
    }

    let (count, _, _) = allocations_during(|| {
        let key: &[&[u8]] = &[b"tenant-42", &7u64.to_be_bytes()];
        (routing_token(key).unwrap(), murmur3_token(b"partition"))
    });
    assert_eq!(count, 0, "token computation");
}

#[test]
fn the_counter_sees_allocations() {
    let (count, bytes, _) = allocations_during(|| std::hint::black_box(vec![0u8; 100]));
    assert_eq!(count, 1);
    assert!(bytes >= 100);
}
