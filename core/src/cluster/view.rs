//! `ClusterView`: nodes, keyspaces and the plans derived from them.
//!
//! Maps here are [`NameMap`]s (sorted Vecs: no tree code per key and value type in the WASM
//! module), filled one insert at a time, and slices sorted unstably: a `BTreeMap` collected
//! from an iterator stable-sorts its items first, and every element type stable-sorted got its
//! own ~5–15 KB copy of the stable sort in the WASM module. This code runs on topology changes
//! only, so the few extra comparisons of one insert at a time don't matter.

use crate::name_map::NameMap;

use super::placement::{Locations, Placement};
use super::plan::{PlanCursor, PlanIter, PlanKind, Plans, PolicyConfig, ReplicaTable, MAX_NODES};
use super::ring::Ring;
use super::topology::{describe_row, Distance, KeyspaceRow, Node, NodeDescription, PeerRow, Replication, SkippedRow};
use crate::error::ProtocolError;

/// What an `apply_*` call did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// The view's content changed.
    pub changed: bool,
    /// The plans were recomputed (and the epoch advanced).
    pub rebuilt: bool,
    /// The epoch after the call.
    pub epoch: u64,
    /// A topology refresh added or removed a node address (what DataStax's hostAdd and
    /// hostRemove report); false for any other call.
    pub nodes_changed: bool,
    /// Rows that were not used, and why.
    pub skipped: Vec<SkippedRow>,
}

/// The driver's model of the cluster.
#[derive(Clone, Debug, Default)]
pub struct ClusterView {
    config: PolicyConfig,
    /// Indexed by node id; `None` is a slot freed by a removed node.
    slots: Vec<Option<Node>>,
    by_address: NameMap<u32>,
    /// Learnt from the first `system.local` row when the config names no local datacenter.
    inferred_local_dc: Option<String>,
    keyspaces: NameMap<Replication>,
    /// Keyspace → index in `plans.tables`.
    keyspace_tables: NameMap<u32>,
    /// Advances each time `keyspace_tables` is recomputed (see [`KeyspacePlans`]).
    keyspace_mapping: u64,
    plans: Plans,
    epoch: u64,
}

/// Where a keyspace's plans are, as [`ClusterView::keyspace_plans`] resolves its name: a
/// caller routing many requests to one keyspace keeps it while
/// [`ClusterView::keyspace_mapping`] stays the same, instead of a lookup by name per request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyspacePlans {
    /// Token-aware, by this table of precomputed plans.
    Table(u32),
    /// Known, with a strategy that places no token.
    NotRoutable,
    Unknown,
}

fn address_matches(entry: &str, address: &str) -> bool {
    if entry == address {
        return true;
    }
    // A bare host matches any port: strip ":port" from the address, keeping IPv6 brackets' content.
    let host = match address.rfind(':') {
        Some(colon) => &address[..colon],
        None => address,
    };
    let host = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    entry == host
}

impl ClusterView {
    pub fn new(config: PolicyConfig) -> Self {
        ClusterView { config, ..ClusterView::default() }
    }

    /// Advances each time the plans are recomputed, and only then.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    pub(crate) fn plans(&self) -> &Plans {
        &self.plans
    }

    pub fn node(&self, id: u32) -> Option<&Node> {
        self.slots.get(id as usize).and_then(Option::as_ref)
    }

    pub fn node_by_address(&self, address: &str) -> Option<&Node> {
        self.by_address.get(address).and_then(|&id| self.node(id))
    }

    /// Every node, by id.
    pub fn nodes(&self) -> impl Iterator<Item = &Node> {
        self.slots.iter().flatten()
    }

    pub fn replication(&self, keyspace: &str) -> Option<&Replication> {
        self.keyspaces.get(keyspace)
    }

    /// The local datacenter in effect: configured, or else inferred from `system.local`.
    pub fn local_dc(&self) -> Option<&str> {
        self.config.local_dc.as_deref().or(self.inferred_local_dc.as_deref())
    }

    /// Replaces the topology with the rows of one refresh: the `system.local` row of the
    /// node at `control_address` (used when that row names no address of its own), then
    /// every `system.peers_v2` (or `system.peers`) row. `default_port` is the native port
    /// for rows that carry none. Nodes keep their id and up/down state across refreshes,
    /// matched by host ID; new nodes start up. At most [`MAX_NODES`] nodes are kept; rows past
    /// that are reported in `skipped`.
    pub fn apply_topology(
        &mut self,
        control_address: &str,
        local: &PeerRow,
        peers: &[PeerRow],
        default_port: u16,
    ) -> Applied {
        let mut skipped = Vec::new();
        let mut described: Vec<NodeDescription> = Vec::with_capacity(peers.len() + 1);
        // Sorted, searched by bisection: sets of this size need no tree, and each key type
        // given a BTreeSet or BTreeMap got its own copy of the tree code in the WASM module.
        let mut host_ids: Vec<[u8; 16]> = Vec::new();
        let mut addresses: Vec<String> = Vec::new();
        let rows = std::iter::once((None, local, Some(control_address)))
            .chain(peers.iter().enumerate().map(|(i, row)| (Some(i), row, None)));
        for (peer_index, row, connected_address) in rows {
            let (node, tokens_ok) = match describe_row(row, default_port, connected_address) {
                Ok(described) => described,
                Err(reason) => {
                    skipped.push(SkippedRow { peer_index, reason });
                    continue;
                }
            };
            let id_at = host_ids.binary_search(&node.host_id);
            let address_at = addresses.binary_search(&node.address);
            let reason = if id_at.is_ok() {
                "duplicate host_id"
            } else if address_at.is_ok() {
                "duplicate address"
            } else if described.len() >= MAX_NODES {
                "more nodes than MAX_NODES"
            } else {
                if !tokens_ok {
                    skipped.push(SkippedRow {
                        peer_index,
                        reason: "tokens are not Murmur3 tokens; node kept without ring ownership",
                    });
                }
                host_ids.insert(id_at.unwrap_or_else(|at| at), node.host_id);
                addresses.insert(address_at.unwrap_or_else(|at| at), node.address.clone());
                described.push(node);
                continue;
            };
            skipped.push(SkippedRow { peer_index, reason });
        }
        if self.inferred_local_dc.is_none() {
            self.inferred_local_dc = local.data_center.clone();
        }

        // Old nodes are found by a scan: at most MAX_NODES² comparisons of 16 bytes, on a
        // topology change only.
        let unchanged = described.len() == self.nodes().count()
            && described.iter().all(|d| {
                self.nodes().find(|n| n.host_id == d.host_id).is_some_and(|n| {
                    n.address == d.address
                        && n.datacenter == d.datacenter
                        && n.rack == d.rack
                        && n.tokens == d.tokens
                        && n.release_version == d.release_version
                })
            });
        if unchanged {
            return Applied { changed: false, rebuilt: false, epoch: self.epoch, nodes_changed: false, skipped };
        }

        let mut old: Vec<Option<Node>> = std::mem::take(&mut self.slots);
        let mut slots: Vec<Option<Node>> = vec![None; old.len()];
        let mut fresh = Vec::new();
        for d in described {
            let previous = old.iter_mut().find(|n| n.as_ref().is_some_and(|n| n.host_id == d.host_id)).and_then(Option::take);
            match previous {
                Some(previous) => {
                    let id = previous.id;
                    slots[id as usize] = Some(Node {
                        id,
                        address: d.address,
                        datacenter: d.datacenter,
                        rack: d.rack,
                        tokens: d.tokens,
                        host_id: d.host_id,
                        up: previous.up,
                        distance: previous.distance,
                        release_version: d.release_version,
                    });
                }
                None => fresh.push(d),
            }
        }
        let mut free = (0..slots.len()).filter(|&i| slots[i].is_none()).collect::<Vec<_>>().into_iter();
        for d in fresh {
            let id = free.next().unwrap_or_else(|| {
                slots.push(None);
                slots.len() - 1
            });
            slots[id] = Some(Node {
                id: id as u32,
                address: d.address,
                datacenter: d.datacenter,
                rack: d.rack,
                tokens: d.tokens,
                host_id: d.host_id,
                up: true,
                distance: Distance::Ignored,
                release_version: d.release_version,
            });
        }
        while matches!(slots.last(), Some(None)) {
            slots.pop();
        }
        self.slots = slots;
        let by_address: NameMap<u32> = self.nodes().map(|n| (n.address.clone(), n.id)).collect();
        // Both are sorted by address: equal key sequences are equal sets.
        let nodes_changed = !by_address.iter().map(|(a, _)| a).eq(self.by_address.iter().map(|(a, _)| a));
        self.by_address = by_address;
        self.rebuild();
        Applied { changed: true, rebuilt: true, epoch: self.epoch, nodes_changed, skipped }
    }

    /// Replaces every keyspace with the rows of a full `system_schema.keyspaces` read. A row
    /// whose replication map cannot be read is skipped (its keyspace gets round-robin plans).
    pub fn apply_keyspaces(&mut self, rows: &[KeyspaceRow]) -> Applied {
        let mut skipped = Vec::new();
        let mut keyspaces = NameMap::default();
        for (index, row) in rows.iter().enumerate() {
            match Replication::from_map(&row.replication) {
                Ok(replication) => {
                    keyspaces.insert(&row.keyspace_name, replication);
                }
                Err(_) => skipped.push(SkippedRow { peer_index: Some(index), reason: "unreadable replication map" }),
            }
        }
        let mut applied = self.replace_keyspaces(keyspaces);
        applied.skipped = skipped;
        applied
    }

    /// Refreshes one keyspace after a SCHEMA_CHANGE: `Some(row)` when it exists, `None` when
    /// it was dropped.
    pub fn apply_keyspace(&mut self, name: &str, row: Option<&KeyspaceRow>) -> Result<Applied, ProtocolError> {
        let mut keyspaces = self.keyspaces.clone();
        match row {
            Some(row) => {
                keyspaces.insert(name, Replication::from_map(&row.replication)?);
            }
            None => {
                keyspaces.remove(name);
            }
        }
        Ok(self.replace_keyspaces(keyspaces))
    }

    fn replace_keyspaces(&mut self, keyspaces: NameMap<Replication>) -> Applied {
        if keyspaces == self.keyspaces {
            return self.unchanged();
        }
        // Tables are per distinct replication setting: a keyspace that reuses one already
        // computed only needs its name mapped, not a rebuild.
        let needs_rebuild = keyspaces.values().filter(|r| is_placeable(r)).any(|r| self.table_for(r).is_none());
        self.keyspaces = keyspaces;
        if needs_rebuild {
            self.rebuild();
        } else {
            self.map_keyspaces();
        }
        Applied { changed: true, rebuilt: needs_rebuild, epoch: self.epoch, nodes_changed: false, skipped: Vec::new() }
    }

    /// What a call that found nothing to change did.
    fn unchanged(&self) -> Applied {
        Applied { changed: false, rebuilt: false, epoch: self.epoch, nodes_changed: false, skipped: Vec::new() }
    }

    /// Changes the load-balancing settings; distances and plans are recomputed.
    pub fn set_config(&mut self, config: PolicyConfig) -> Applied {
        if config == self.config {
            return self.unchanged();
        }
        self.config = config;
        self.rebuild();
        Applied { changed: true, rebuilt: true, epoch: self.epoch, nodes_changed: false, skipped: Vec::new() }
    }

    /// Marks a node up or down. Plans are not recomputed: they skip down nodes as they are
    /// walked. Returns whether the node exists and its state changed.
    pub fn set_up(&mut self, address: &str, up: bool) -> bool {
        let Some(&id) = self.by_address.get(address) else { return false };
        match self.slots.get_mut(id as usize).and_then(Option::as_mut) {
            Some(node) if node.up != up => {
                node.up = up;
                true
            }
            _ => false,
        }
    }

    /// The plan for a request. `rotation` picks which replica goes first (pass a counter or a
    /// seeded random value); an LWT should use [`ClusterView::plan_for_lwt`] instead.
    pub fn plan_for(&self, keyspace: Option<&str>, token: Option<i64>, rotation: u32) -> PlanIter<'_> {
        let (kind, table) = self.locate(keyspace, token);
        PlanIter::new(self, PlanCursor::new(self.epoch, kind, table, rotation))
    }

    /// The plan for a lightweight transaction: always the first replica first, so that
    /// concurrent Paxos rounds on one partition meet at the same coordinator instead of
    /// contending. With a local rack configured, that is the first replica in the local rack.
    pub fn plan_for_lwt(&self, keyspace: Option<&str>, token: Option<i64>) -> PlanIter<'_> {
        self.plan_for(keyspace, token, 0)
    }

    /// [`ClusterView::plan_for`] with the keyspace already resolved by
    /// [`ClusterView::keyspace_plans`] (in this keyspace mapping).
    pub fn plan_for_resolved(&self, keyspace: Option<KeyspacePlans>, token: Option<i64>, rotation: u32) -> PlanIter<'_> {
        let (kind, table) = self.locate_resolved(keyspace, token);
        PlanIter::new(self, PlanCursor::new(self.epoch, kind, table, rotation))
    }

    /// Where `keyspace`'s plans are; holds until [`ClusterView::keyspace_mapping`] changes.
    pub fn keyspace_plans(&self, keyspace: &str) -> KeyspacePlans {
        match self.keyspace_tables.get(keyspace) {
            Some(&table) => KeyspacePlans::Table(table),
            None if self.keyspaces.contains_key(keyspace) => KeyspacePlans::NotRoutable,
            None => KeyspacePlans::Unknown,
        }
    }

    /// Advances whenever what [`ClusterView::keyspace_plans`] answers may change.
    pub fn keyspace_mapping(&self) -> u64 {
        self.keyspace_mapping
    }

    /// Continues a plan whose cursor the request kept between attempts.
    pub fn resume(&self, cursor: PlanCursor) -> PlanIter<'_> {
        PlanIter::new(self, cursor)
    }

    fn locate(&self, keyspace: Option<&str>, token: Option<i64>) -> (PlanKind, Option<(u32, u32)>) {
        // Resolved only with a token, as before: a request without one never pays the lookup.
        match token {
            Some(_) => self.locate_resolved(keyspace.map(|k| self.keyspace_plans(k)), token),
            None => self.locate_resolved(keyspace.map(|_| KeyspacePlans::Unknown), None),
        }
    }

    fn locate_resolved(&self, keyspace: Option<KeyspacePlans>, token: Option<i64>) -> (PlanKind, Option<(u32, u32)>) {
        let Some(keyspace) = keyspace else { return (PlanKind::NoKeyspace, None) };
        let Some(token) = token else { return (PlanKind::NoToken, None) };
        let table = match keyspace {
            KeyspacePlans::Table(table) => table,
            KeyspacePlans::NotRoutable => return (PlanKind::KeyspaceNotRoutable, None),
            KeyspacePlans::Unknown => return (PlanKind::UnknownKeyspace, None),
        };
        if self.plans.ring.is_empty() {
            return (PlanKind::EmptyRing, None);
        }
        (PlanKind::TokenAware, Some((table, self.plans.ring.range_of(token) as u32)))
    }

    /// A key equal for tokens whose ranges have the same replicas (in any order) in this
    /// epoch's plans: rows with equal keys can share one batch without a coordinator
    /// forwarding to replicas it is not. `None` when `keyspace` has no token-aware plans.
    /// Allocates nothing.
    pub fn replica_set_key(&self, keyspace: &str, token: i64) -> Option<u64> {
        let (PlanKind::TokenAware, Some((table, range))) = self.locate(Some(keyspace), Some(token)) else {
            return None;
        };
        let table = self.plans.tables.get(table as usize)?;
        // Order-independent: a sum of well-mixed ids (SplitMix64 mixes id 0 to non-zero too).
        Some(
            table
                .range(range as usize)
                .iter()
                .fold(0u64, |acc, &id| acc.wrapping_add(crate::cluster::SplitMix64::new(u64::from(id)).next_u64())),
        )
    }

    /// The replicas of `token` in `keyspace` in Cassandra's placement order (primary first),
    /// whatever their distance or state; `None` when the keyspace has no token placement.
    pub fn natural_replicas(&self, keyspace: &str, token: i64) -> Option<Vec<u32>> {
        let replication = self.keyspaces.get(keyspace)?;
        let mut placement = self.placement(replication)?;
        if self.plans.ring.is_empty() {
            return Some(Vec::new());
        }
        let mut out = Vec::new();
        placement.replicas(&self.plans.ring, self.plans.ring.range_of(token), &mut out);
        Some(out)
    }

    fn placement<'a>(&'a self, replication: &Replication) -> Option<Placement<'a>> {
        match replication {
            Replication::Simple { rf } => Some(Placement::simple(*rf)),
            Replication::NetworkTopology(factors) => Some(Placement::network_topology(&self.plans.locations, factors)),
            Replication::Local | Replication::Everywhere(_) => None,
        }
    }

    fn table_for(&self, replication: &Replication) -> Option<u32> {
        self.plans.tables.iter().position(|t| t.replication.as_ref() == Some(replication)).map(|i| i as u32)
    }

    fn map_keyspaces(&mut self) {
        self.keyspace_tables = self
            .keyspaces
            .iter()
            .filter_map(|(name, replication)| self.table_for(replication).map(|t| (name.clone(), t)))
            .collect();
        self.keyspace_mapping += 1;
    }

    fn distance_of(&self, node: &Node) -> Distance {
        let config = &self.config;
        if !config.allow_list.is_empty() && !config.allow_list.iter().any(|e| address_matches(e, &node.address)) {
            return Distance::Ignored;
        }
        if config.deny_list.iter().any(|e| address_matches(e, &node.address)) {
            return Distance::Ignored;
        }
        match self.local_dc() {
            Some(local) if local == node.datacenter => Distance::Local,
            // Without any notion of a local datacenter, every node is local.
            None => Distance::Local,
            Some(_) if config.allow_remote_dcs => Distance::Remote,
            Some(_) => Distance::Ignored,
        }
    }

    fn rebuild(&mut self) {
        let distances: Vec<Option<Distance>> =
            self.slots.iter().map(|slot| slot.as_ref().map(|n| self.distance_of(n))).collect();
        for (slot, distance) in self.slots.iter_mut().zip(distances) {
            if let (Some(node), Some(distance)) = (slot.as_mut(), distance) {
                node.distance = distance;
            }
        }

        let ring = Ring::build(self.nodes().map(|n| (n.id, n.tokens.as_slice())));
        let locations = Locations::build(&ring, self.slots.len(), |id| {
            self.node(id).map(|n| (n.datacenter.as_str(), n.rack.as_str()))
        });
        self.plans = Plans { ring, locations, ..Plans::default() };

        let local_rack = self.config.local_rack.clone();
        let in_local_rack = |n: &Node| n.distance == Distance::Local && local_rack.as_deref() == Some(n.rack.as_str());
        let rack_aware = local_rack.is_some();

        // One table per distinct replication, in their order, by insertion into a sorted Vec:
        // a `sort_unstable` of `&Replication` was a quicksort instantiation of its own (~7 KB
        // of WASM) for this cold path, and the replications are few.
        let mut replications: Vec<&Replication> = Vec::new();
        for replication in self.keyspaces.values().filter(|r| is_placeable(r)) {
            if let Err(at) = replications.binary_search(&replication) {
                replications.insert(at, replication);
            }
        }
        let mut tables = Vec::with_capacity(replications.len());
        for replication in replications {
            let Some(mut placement) = self.placement(replication) else { continue };
            let ranges = self.plans.ring.len();
            let mut table = ReplicaTable {
                replication: Some(replication.clone()),
                ids: Vec::new(),
                offsets: Vec::with_capacity(ranges + 1),
                group_ends: Vec::with_capacity(ranges),
            };
            table.offsets.push(0);
            let (all_natural, _steps) = placement.replicas_of_all_ranges(&self.plans.ring);
            for natural in &all_natural {
                let nodes = natural.iter().filter_map(|&id| self.node(id));
                let start = table.ids.len();
                if rack_aware {
                    table.ids.extend(nodes.clone().filter(|n| in_local_rack(n)).map(|n| n.id));
                }
                let end0 = table.ids.len() - start;
                table.ids.extend(
                    nodes
                        .clone()
                        .filter(|n| n.distance == Distance::Local && !(rack_aware && in_local_rack(n)))
                        .map(|n| n.id),
                );
                let end1 = table.ids.len() - start;
                table.ids.extend(nodes.filter(|n| n.distance == Distance::Remote).map(|n| n.id));
                // Without rack awareness the whole local datacenter is the preferred group.
                let ends = if rack_aware { [end0, end1] } else { [end1, end1] };
                table.group_ends.push(ends.map(|e| e.min(u16::MAX as usize) as u16));
                table.offsets.push(table.ids.len() as u32);
            }
            tables.push(table);
        }
        self.plans.tables = tables;
        self.plans.local_rack_nodes =
            if rack_aware { self.nodes().filter(|n| in_local_rack(n)).map(|n| n.id).collect() } else { Vec::new() };
        self.plans.local_nodes = self.nodes().filter(|n| n.distance == Distance::Local).map(|n| n.id).collect();
        self.plans.remote_nodes = self.nodes().filter(|n| n.distance == Distance::Remote).map(|n| n.id).collect();
        self.map_keyspaces();
        self.epoch += 1;
    }
}

fn is_placeable(replication: &Replication) -> bool {
    matches!(replication, Replication::Simple { .. } | Replication::NetworkTopology(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_and_deny_entries_match_address_or_bare_host() {
        assert!(address_matches("10.0.0.1:9042", "10.0.0.1:9042"));
        assert!(address_matches("10.0.0.1", "10.0.0.1:9042"));
        assert!(!address_matches("10.0.0.1:9043", "10.0.0.1:9042"));
        assert!(address_matches("::1", "[::1]:9042"));
        assert!(!address_matches("10.0.0.11", "10.0.0.1:9042"));
    }

    fn row(host: u8, token: &str) -> PeerRow {
        PeerRow {
            rpc_address: Some(format!("10.0.0.{host}")),
            data_center: Some("dc1".into()),
            rack: Some("r1".into()),
            tokens: vec![token.into()],
            host_id: Some([host; 16]),
            release_version: Some("5.0.0".into()),
            ..PeerRow::default()
        }
    }

    fn simple(name: &str, rf: &str) -> KeyspaceRow {
        let replication = [("class", "SimpleStrategy"), ("replication_factor", rf)];
        KeyspaceRow {
            keyspace_name: name.into(),
            replication: replication.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        }
    }

    #[test]
    fn the_keyspace_mapping_advances_whenever_a_keyspace_may_resolve_anew() {
        let mut view = ClusterView::new(PolicyConfig::default());
        assert_eq!(view.keyspace_mapping(), 0);
        view.apply_topology("10.0.0.1:9042", &row(1, "100"), &[row(2, "200")], 9042);
        assert_eq!(view.keyspace_mapping(), 1, "a rebuild maps the keyspaces anew");
        assert!(view.apply_keyspaces(&[simple("a", "1")]).rebuilt);
        assert_eq!((view.keyspace_mapping(), view.keyspace_plans("a")), (2, KeyspacePlans::Table(0)));
        // The same replication: no rebuild, but "b" now resolves, so the mapping advances.
        let applied = view.apply_keyspace("b", Some(&simple("b", "1"))).unwrap();
        assert_eq!((applied.changed, applied.rebuilt), (true, false));
        assert_eq!((view.keyspace_mapping(), view.keyspace_plans("b")), (3, KeyspacePlans::Table(0)));
        // Nothing changed: nothing to resolve anew.
        assert!(!view.apply_keyspace("b", Some(&simple("b", "1"))).unwrap().changed);
        assert_eq!(view.keyspace_mapping(), 3);
    }

    #[test]
    fn tokens_share_a_replica_set_key_exactly_when_their_replicas_are_the_same() {
        let mut view = ClusterView::new(PolicyConfig::default());
        view.apply_topology("10.0.0.1:9042", &row(1, "100"), &[row(2, "200"), row(3, "300")], 9042);
        let local = KeyspaceRow {
            keyspace_name: "local".into(),
            replication: vec![("class".into(), "LocalStrategy".into())],
        };
        view.apply_keyspaces(&[simple("rf1", "1"), simple("rf2", "2"), simple("rf3", "3"), local]);
        let keys = |ks: &str| [100, 150, 200, 250, 301].map(|t| view.replica_set_key(ks, t));
        // Ranges (300, 100] and (100, 200] and (200, 300], owned by nodes 0, 1 and 2.
        let [a, b, c, d, e] = keys("rf1");
        assert!(a.is_some() && b.is_some() && d.is_some());
        assert_eq!((a, c), (e, b), "the same owner, the same key");
        assert!(a != b && b != d && a != d, "{a:?} {b:?} {d:?}");
        // RF 2: {0, 1}, {1, 2}, {2, 0}: each differs from the others and from RF 1's.
        let [a2, b2, _, d2, _] = keys("rf2");
        assert!(a2 != b2 && b2 != d2 && a2 != d2 && a2 != a && b2 != b);
        // RF 3: every range has all three, in another order each: one key.
        let [a3, b3, c3, d3, e3] = keys("rf3");
        assert!(a3.is_some() && [b3, c3, d3, e3] == [a3; 4]);
        assert_eq!((view.replica_set_key("local", 1), view.replica_set_key("unknown", 1)), (None, None));
    }

    #[test]
    fn a_refresh_that_changes_any_one_field_of_a_node_is_applied() {
        type Change = fn(&mut PeerRow);
        let changes: [(&str, Change); 5] = [
            ("address", |r| r.rpc_address = Some("10.0.0.9".into())),
            ("datacenter", |r| r.data_center = Some("dc2".into())),
            ("rack", |r| r.rack = Some("r2".into())),
            ("tokens", |r| r.tokens = vec!["300".into()]),
            ("release_version", |r| r.release_version = Some("5.0.1".into())),
        ];
        for (field, change) in changes {
            let mut view = ClusterView::new(PolicyConfig::default());
            let peers = [row(2, "200"), row(3, "-100")];
            assert!(view.apply_topology("10.0.0.1:9042", &row(1, "100"), &peers, 9042).changed);
            let same = view.apply_topology("10.0.0.1:9042", &row(1, "100"), &peers, 9042);
            assert_eq!((same.changed, same.rebuilt), (false, false), "{field}");
            let mut changed = peers.clone();
            change(&mut changed[0]);
            let applied = view.apply_topology("10.0.0.1:9042", &row(1, "100"), &changed, 9042);
            assert_eq!((applied.changed, applied.rebuilt), (true, true), "{field}");
            // The node keeps its id and takes the row's new description.
            let node = view.node(1).unwrap();
            let (description, _) = describe_row(&changed[0], 9042, None).unwrap();
            let now = (&node.address, &node.datacenter, &node.rack, &node.tokens, &node.release_version);
            let d = &description;
            assert_eq!(now, (&d.address, &d.datacenter, &d.rack, &d.tokens, &d.release_version), "{field}");
            assert_eq!(node.host_id, [2; 16]);
        }
    }
}
