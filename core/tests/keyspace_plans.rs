//! A keyspace resolved once (`ClusterView::keyspace_plans`) and kept while the view's
//! keyspace mapping holds, as the session does per interned keyspace: the same plans as a
//! lookup by name per request, and a mapping that advances whenever the answer may change,
//! including when a keyspace is added without the plans being rebuilt.

use cqlwire_core::cluster::{ClusterView, KeyspacePlans, KeyspaceRow, PeerRow, PolicyConfig, SplitMix64};

fn keyspace(name: &str, pairs: &[(&str, &str)]) -> KeyspaceRow {
    KeyspaceRow {
        keyspace_name: name.into(),
        replication: pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
    }
}

const SIMPLE_2: &[(&str, &str)] = &[("class", "SimpleStrategy"), ("replication_factor", "2")];
const LOCAL: &[(&str, &str)] = &[("class", "LocalStrategy")];

fn view() -> ClusterView {
    let mut rng = SplitMix64::new(7);
    let rows: Vec<PeerRow> = (0..5u8)
        .map(|i| PeerRow {
            rpc_address: Some(format!("10.0.0.{}", i + 1)),
            data_center: Some("dc1".into()),
            rack: Some("r1".into()),
            tokens: (0..8).map(|_| (rng.next_u64() as i64).to_string()).collect(),
            host_id: Some([i + 1; 16]),
            ..PeerRow::default()
        })
        .collect();
    let mut view = ClusterView::new(PolicyConfig::default());
    view.apply_topology("10.0.0.1:9042", &rows[0], &rows[1..], 9042);
    view.apply_keyspaces(&[keyspace("app", SIMPLE_2), keyspace("sys", LOCAL)]);
    view
}

fn plan(view: &ClusterView, keyspace: Option<&str>, token: Option<i64>, rotation: u32) -> Vec<u32> {
    view.plan_for(keyspace, token, rotation).map(|n| n.id).collect()
}

fn resolved_plan(view: &ClusterView, keyspace: Option<&str>, token: Option<i64>, rotation: u32) -> Vec<u32> {
    let resolved = keyspace.map(|k| view.keyspace_plans(k));
    view.plan_for_resolved(resolved, token, rotation).map(|n| n.id).collect()
}

#[test]
fn a_resolved_keyspace_gives_the_plan_a_lookup_by_name_gives() {
    let view = view();
    let table = match view.keyspace_plans("app") {
        KeyspacePlans::Table(t) => t,
        other => panic!("app is token-aware, got {other:?}"),
    };
    assert_eq!(view.keyspace_plans("sys"), KeyspacePlans::NotRoutable);
    assert_eq!(view.keyspace_plans("nope"), KeyspacePlans::Unknown);
    let mut rng = SplitMix64::new(3);
    for i in 0..200u32 {
        let token = Some(rng.next_u64() as i64).filter(|_| i % 10 != 0);
        for ks in [Some("app"), Some("sys"), Some("nope"), None] {
            assert_eq!(resolved_plan(&view, ks, token, i), plan(&view, ks, token, i), "{ks:?} {token:?} {i}");
        }
        assert_eq!(
            view.plan_for_resolved(Some(KeyspacePlans::Table(table)), token, i).kind(),
            view.plan_for(Some("app"), token, i).kind()
        );
    }
}

#[test]
fn the_mapping_advances_when_a_keyspace_appears_without_a_rebuild() {
    let mut view = view();
    let (epoch, mapping) = (view.epoch(), view.keyspace_mapping());
    assert_eq!(view.keyspace_plans("late"), KeyspacePlans::Unknown);
    // The same replication as `app`: its table is reused, the plans are not rebuilt.
    let applied =
        view.apply_keyspaces(&[keyspace("app", SIMPLE_2), keyspace("sys", LOCAL), keyspace("late", SIMPLE_2)]);
    assert!(applied.changed && !applied.rebuilt);
    assert_eq!(view.epoch(), epoch, "no rebuild, so the plan epoch alone would not tell");
    assert!(view.keyspace_mapping() > mapping, "a resolution kept from before must be dropped");
    assert_eq!(view.keyspace_plans("late"), view.keyspace_plans("app"));
    // Unchanged keyspaces leave the mapping as it is.
    let mapping = view.keyspace_mapping();
    view.apply_keyspaces(&[keyspace("app", SIMPLE_2), keyspace("sys", LOCAL), keyspace("late", SIMPLE_2)]);
    assert_eq!(view.keyspace_mapping(), mapping);
}
