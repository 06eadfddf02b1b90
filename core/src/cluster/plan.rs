//! Precomputed query plans, and the allocation-free iterator that walks them.
//!
//! On every topology or keyspace change the view computes, for each distinct replication
//! setting and each ring range, the replicas ordered for the policy and split in three
//! groups: local rack (or the whole local datacenter when not rack-aware), the rest of the
//! local datacenter, and remote datacenters. It also keeps the non-replica fallback lists:
//! local-rack nodes, local nodes, remote nodes. A plan is then a walk over six slices:
//!
//! | segment | slice                                   |
//! |---------|-----------------------------------------|
//! | 0       | replicas in the preferred group         |
//! | 1       | other local replicas (rack-aware only)  |
//! | 2       | remote replicas (remote DCs allowed)    |
//! | 3       | local-rack nodes (rack-aware only)      |
//! | 4       | local-datacenter nodes                  |
//! | 5       | remote nodes (remote DCs allowed)       |
//!
//! Each slice is read from `rotation % len` onwards, wrapping, so that successive requests
//! start at different replicas. Down nodes are skipped when met; a bitset of node ids already
//! yielded removes the duplicates between segments. Nothing is allocated.

use super::placement::Locations;
use super::ring::Ring;
use super::topology::Replication;
use super::view::ClusterView;
use super::Node;

/// The largest node id a plan can track (the size of its visited bitset).
pub const MAX_NODES: usize = 1024;

const SEGMENTS: u8 = 6;
const FIRST_FALLBACK_SEGMENT: u8 = 3;
const NO_TABLE: u32 = u32::MAX;

/// Load-balancing settings that shape the precomputed plans.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PolicyConfig {
    /// The local datacenter. When `None`, the datacenter of the `system.local` row (the node
    /// of the first control connection) is used.
    pub local_dc: Option<String>,
    /// When set, replicas and nodes in this rack of the local datacenter come first.
    pub local_rack: Option<String>,
    /// Whether nodes of other datacenters may coordinate at all.
    pub allow_remote_dcs: bool,
    /// When not empty, only these nodes are used. An entry is `host:port` or a bare host.
    pub allow_list: Vec<String>,
    /// These nodes are never used. An entry is `host:port` or a bare host.
    pub deny_list: Vec<String>,
}

/// Why the plan is ordered the way it is; goes in the request trace and metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlanKind {
    /// Replicas of the token first.
    TokenAware,
    /// The request has no routing token.
    NoToken,
    /// The request names no keyspace.
    NoKeyspace,
    /// The keyspace is not known to the view (yet).
    UnknownKeyspace,
    /// The keyspace uses LocalStrategy or a strategy we do not model.
    KeyspaceNotRoutable,
    /// No node has tokens (the ring is empty).
    EmptyRing,
}

impl PlanKind {
    pub fn reason(self) -> &'static str {
        match self {
            PlanKind::TokenAware => "token-aware: replicas first",
            PlanKind::NoToken => "round-robin: request has no routing token",
            PlanKind::NoKeyspace => "round-robin: request names no keyspace",
            PlanKind::UnknownKeyspace => "round-robin: keyspace not in metadata",
            PlanKind::KeyspaceNotRoutable => "round-robin: keyspace strategy has no token placement",
            PlanKind::EmptyRing => "round-robin: token ring is empty",
        }
    }
}

/// Replicas of every ring range for one replication setting, ordered for the policy.
#[derive(Clone, Debug, Default)]
pub(crate) struct ReplicaTable {
    pub replication: Option<Replication>,
    /// All ranges' replica lists, concatenated.
    pub ids: Vec<u32>,
    /// Range `r` is `ids[offsets[r]..offsets[r + 1]]`.
    pub offsets: Vec<u32>,
    /// Per range: where segment 0 ends and where segment 1 ends, relative to the range start.
    pub group_ends: Vec<[u16; 2]>,
}

impl ReplicaTable {
    /// The replicas of ring range `range`, ordered for the policy.
    pub(crate) fn range(&self, range: usize) -> &[u32] {
        let start = self.offsets.get(range).copied().unwrap_or(0) as usize;
        let end = self.offsets.get(range + 1).copied().unwrap_or(0) as usize;
        self.ids.get(start..end).unwrap_or(&[])
    }

    fn segment(&self, range: usize, segment: u8) -> &[u32] {
        let all = self.range(range);
        let [end0, end1] = self.group_ends.get(range).copied().unwrap_or([0, 0]);
        let (end0, end1) = (end0 as usize, end1 as usize);
        let bounds = match segment {
            0 => 0..end0,
            1 => end0..end1,
            2 => end1..all.len(),
            _ => 0..0,
        };
        all.get(bounds).unwrap_or(&[])
    }
}

/// Everything derived from topology + keyspaces + policy; replaced as a whole on rebuild.
#[derive(Clone, Debug, Default)]
pub(crate) struct Plans {
    pub ring: Ring,
    pub locations: Locations,
    pub tables: Vec<ReplicaTable>,
    pub local_rack_nodes: Vec<u32>,
    pub local_nodes: Vec<u32>,
    pub remote_nodes: Vec<u32>,
}

impl Plans {
    fn segment(&self, table: u32, range: u32, segment: u8) -> &[u32] {
        match segment {
            0..=2 => match self.tables.get(table as usize) {
                Some(t) => t.segment(range as usize, segment),
                None => &[],
            },
            3 => &self.local_rack_nodes,
            4 => &self.local_nodes,
            5 => &self.remote_nodes,
            _ => &[],
        }
    }
}

/// A fixed-size set of node ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct NodeSet([u64; MAX_NODES / 64]);

impl NodeSet {
    const EMPTY: NodeSet = NodeSet([0; MAX_NODES / 64]);

    fn contains(&self, id: u32) -> bool {
        let id = id as usize;
        self.0.get(id / 64).is_some_and(|word| word & (1 << (id % 64)) != 0)
    }

    fn insert(&mut self, id: u32) {
        let id = id as usize;
        if let Some(word) = self.0.get_mut(id / 64) {
            *word |= 1 << (id % 64);
        }
    }
}

/// The position in a plan, detached from the view so the session layer can keep it in the
/// request's state between attempts. Resume it with [`ClusterView::resume`].
///
/// If the view rebuilt its plans since the cursor was made (its epoch moved on), the replica
/// segments no longer describe this request's token, so the cursor continues with the
/// fallback segments. Nodes already yielded are still never yielded again (a node that was
/// removed and whose id was reused by a new node in the meantime counts as yielded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlanCursor {
    epoch: u64,
    kind: PlanKind,
    table: u32,
    range: u32,
    rotation: u32,
    segment: u8,
    step: u32,
    visited: NodeSet,
}

impl PlanCursor {
    pub(crate) fn new(epoch: u64, kind: PlanKind, table: Option<(u32, u32)>, rotation: u32) -> Self {
        let (table, range, segment) = match table {
            Some((table, range)) => (table, range, 0),
            None => (NO_TABLE, 0, FIRST_FALLBACK_SEGMENT),
        };
        PlanCursor { epoch, kind, table, range, rotation, segment, step: 0, visited: NodeSet::EMPTY }
    }

    pub fn kind(&self) -> PlanKind {
        self.kind
    }

    /// Keeps the plan from yielding `id` (a node already tried outside it).
    pub(crate) fn mark_visited(&mut self, id: u32) {
        self.visited.insert(id);
    }

    /// The next node id to try, or `None` when every usable node has been offered.
    pub fn next_id(&mut self, view: &ClusterView) -> Option<u32> {
        let plans = view.plans();
        if self.epoch != view.epoch() {
            self.epoch = view.epoch();
            self.segment = self.segment.max(FIRST_FALLBACK_SEGMENT);
            self.step = 0;
        }
        while self.segment < SEGMENTS {
            let slice = plans.segment(self.table, self.range, self.segment);
            let len = slice.len() as u32;
            if self.step >= len {
                self.segment += 1;
                self.step = 0;
                continue;
            }
            // Widened so `rotation % len + step` cannot overflow.
            let index = ((self.rotation % len) as u64 + self.step as u64) % len as u64;
            self.step += 1;
            let Some(&id) = slice.get(index as usize) else { continue };
            if self.visited.contains(id) {
                continue;
            }
            match view.node(id) {
                Some(node) if node.up && node.distance != super::Distance::Ignored => {
                    self.visited.insert(id);
                    return Some(id);
                }
                _ => continue,
            }
        }
        None
    }
}

/// A query plan: the nodes to try, best first. The first node costs a map lookup, a binary
/// search and a slice index; the rest is computed only as it is asked for.
#[derive(Clone, Debug)]
pub struct PlanIter<'a> {
    view: &'a ClusterView,
    cursor: PlanCursor,
}

impl<'a> PlanIter<'a> {
    pub(crate) fn new(view: &'a ClusterView, cursor: PlanCursor) -> Self {
        PlanIter { view, cursor }
    }

    pub fn kind(&self) -> PlanKind {
        self.cursor.kind
    }

    /// A copy of the position, to keep in the request's state across attempts.
    pub fn cursor(&self) -> PlanCursor {
        self.cursor
    }

    pub fn into_cursor(self) -> PlanCursor {
        self.cursor
    }
}

impl<'a> Iterator for PlanIter<'a> {
    type Item = &'a Node;

    fn next(&mut self) -> Option<&'a Node> {
        let id = self.cursor.next_id(self.view)?;
        self.view.node(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_set_ignores_ids_beyond_capacity() {
        let mut set = NodeSet::EMPTY;
        set.insert(3);
        set.insert(MAX_NODES as u32 - 1);
        set.insert(MAX_NODES as u32 + 5);
        assert!(set.contains(3));
        assert!(set.contains(MAX_NODES as u32 - 1));
        assert!(!set.contains(MAX_NODES as u32 + 5));
        assert!(!set.contains(4));
    }

    #[test]
    fn out_of_range_table_lookups_are_empty() {
        let table = ReplicaTable::default();
        assert!(table.segment(7, 0).is_empty());
        let plans = Plans::default();
        assert!(plans.segment(0, 0, 0).is_empty());
        assert!(plans.segment(NO_TABLE, 0, 9).is_empty());
    }
}
