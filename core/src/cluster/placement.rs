//! Replica placement: which nodes hold the data of a token range, in Cassandra's order (the
//! first is the primary replica).
//!
//! Both strategies mirror Cassandra's `calculateNaturalReplicas`:
//! - `SimpleStrategy` walks the ring clockwise from the range and takes the first `rf`
//!   distinct nodes.
//! - `NetworkTopologyStrategy` walks the ring once, tracking every datacenter at the same
//!   time. Within a datacenter a node from a rack not yet used is always taken; a node from an
//!   already-used rack is taken only while the datacenter has fewer racks than its factor
//!   (`acceptableRackRepeats = rf - rackCount`), so every rack still gets a replica. The
//!   effective factor is capped at the datacenter's node count.

use crate::name_map::NameMap;

use super::ring::Ring;

const NO_LOCATION: u32 = u32::MAX;

/// Datacenters and racks interned to small indices, for the nodes on the ring.
#[derive(Clone, Debug, Default)]
pub(crate) struct Locations {
    /// By node id: the datacenter's index (its value in `dc_ids`), or `NO_LOCATION` for a node
    /// not on the ring.
    dc_of: Vec<u32>,
    /// By node id: index of the node's (datacenter, rack) pair.
    rack_of: Vec<u32>,
    /// Datacenter name → index, numbered in the order the ring walk meets them.
    dc_ids: NameMap<u32>,
    /// By datacenter index: nodes on the ring, and distinct racks among them.
    dc_node_count: Vec<u32>,
    dc_rack_count: Vec<u32>,
    rack_total: usize,
}

impl Locations {
    /// `location_of(id)` gives a node's (datacenter, rack); `slots` is the size of the id space.
    pub fn build<'a>(ring: &Ring, slots: usize, location_of: impl Fn(u32) -> Option<(&'a str, &'a str)>) -> Self {
        // Racks are keyed by a (datacenter, rack) pair, which a `NameMap` does not take: sorted,
        // searched by bisection (each key type given a BTreeMap got its own copy of the tree
        // code in the WASM module).
        let mut rack_index: Vec<(&str, &str, u32)> = Vec::new();
        let mut locations =
            Locations { dc_of: vec![NO_LOCATION; slots], rack_of: vec![NO_LOCATION; slots], ..Locations::default() };
        for id in ring.walk(0) {
            let slot = id as usize;
            if locations.dc_of.get(slot).copied() != Some(NO_LOCATION) {
                continue;
            }
            let Some((dc, rack)) = location_of(id) else { continue };
            let next_dc = locations.dc_ids.len() as u32;
            let dc_id = *locations.dc_ids.get_or_insert(dc, next_dc);
            if dc_id == next_dc {
                locations.dc_node_count.push(0);
                locations.dc_rack_count.push(0);
            }
            let rack_id = match rack_index.binary_search_by(|&(d, r, _)| (d, r).cmp(&(dc, rack))) {
                Ok(at) => rack_index[at].2,
                Err(at) => {
                    let next_rack = rack_index.len() as u32;
                    rack_index.insert(at, (dc, rack, next_rack));
                    locations.dc_rack_count[dc_id as usize] += 1;
                    next_rack
                }
            };
            locations.dc_node_count[dc_id as usize] += 1;
            locations.dc_of[slot] = dc_id;
            locations.rack_of[slot] = rack_id;
        }
        locations.rack_total = rack_index.len();
        locations
    }

    fn dc_index(&self, name: &str) -> Option<u32> {
        self.dc_ids.get(name).copied()
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct DcFill {
    rf_left: u32,
    rack_repeats_left: i64,
}

/// A replication strategy resolved against one ring, with scratch space reused across ranges.
pub(crate) enum Placement<'a> {
    Simple {
        rf: usize,
    },
    NetworkTopology {
        locations: &'a Locations,
        /// (datacenter index, replication factor) for datacenters that have nodes.
        factors: Vec<(u32, u32)>,
        seen_racks: Vec<bool>,
        fills: Vec<Option<DcFill>>,
    },
}

impl<'a> Placement<'a> {
    pub fn simple(rf: u32) -> Self {
        Placement::Simple { rf: rf as usize }
    }

    pub fn network_topology(locations: &'a Locations, factors: &NameMap<u32>) -> Self {
        let factors = factors.iter().filter_map(|(dc, &rf)| locations.dc_index(dc).map(|index| (index, rf))).collect();
        Placement::NetworkTopology {
            locations,
            factors,
            seen_racks: vec![false; locations.rack_total],
            fills: vec![None; locations.dc_ids.len()],
        }
    }

    /// Fills `out` with the replicas of ring range `start`, primary first.
    pub fn replicas(&mut self, ring: &Ring, start: usize, out: &mut Vec<u32>) {
        self.replicas_from(ring.walk(start), out);
    }

    /// The replicas of every ring range (index = range) and the number of candidate nodes
    /// examined. Only the first occurrence of a node in a clockwise walk can be taken (a
    /// node skipped once stays skipped: racks stay seen, factors only fall), so each range
    /// is placed from its distinct nodes in first-occurrence order, kept by a backwards
    /// sweep with move-to-front. Work is ranges x nodes examined, never ranges x ring length
    /// (one node announcing 100k tokens with a factor above the node count was ~10^10 steps).
    pub fn replicas_of_all_ranges(&mut self, ring: &Ring) -> (Vec<Vec<u32>>, u64) {
        let len = ring.len();
        let mut order = FirstSeenOrder::new(ring.walk(0).max().map_or(0, |id| id as usize + 1));
        let owners: Vec<u32> = ring.walk(0).collect();
        // First lap seeds the order with every node; the second lap records each range.
        for &id in owners.iter().rev() {
            order.move_to_front(id);
        }
        let mut all = vec![Vec::new(); len];
        let mut steps = 0u64;
        for (range, &id) in owners.iter().enumerate().rev() {
            order.move_to_front(id);
            let mut out = Vec::new();
            let walk = order.iter().inspect(|_| steps += 1);
            self.replicas_from(walk, &mut out);
            if let Some(slot) = all.get_mut(range) {
                *slot = out;
            }
        }
        (all, steps)
    }

    /// Places from `walk`, the ring owners clockwise from a range (repeats allowed).
    fn replicas_from(&mut self, walk: impl Iterator<Item = u32>, out: &mut Vec<u32>) {
        out.clear();
        match self {
            Placement::Simple { rf } => {
                for id in walk {
                    if out.len() >= *rf {
                        break;
                    }
                    if !out.contains(&id) {
                        out.push(id);
                    }
                }
            }
            Placement::NetworkTopology { locations, factors, seen_racks, fills } => {
                seen_racks.fill(false);
                fills.fill(None);
                let mut dcs_to_fill = 0usize;
                for &(dc, rf) in factors.iter() {
                    let node_count = locations.dc_node_count.get(dc as usize).copied().unwrap_or(0);
                    let rack_count = locations.dc_rack_count.get(dc as usize).copied().unwrap_or(0);
                    if rf == 0 || node_count == 0 {
                        continue;
                    }
                    if let Some(fill) = fills.get_mut(dc as usize) {
                        *fill = Some(DcFill {
                            rf_left: rf.min(node_count),
                            rack_repeats_left: rf as i64 - rack_count as i64,
                        });
                        dcs_to_fill += 1;
                    }
                }
                for id in walk {
                    if dcs_to_fill == 0 {
                        break;
                    }
                    let dc = locations.dc_of.get(id as usize).copied().unwrap_or(NO_LOCATION);
                    let rack = locations.rack_of.get(id as usize).copied().unwrap_or(NO_LOCATION);
                    let Some(Some(fill)) = fills.get_mut(dc as usize) else { continue };
                    if fill.rf_left == 0 || out.contains(&id) {
                        continue;
                    }
                    let Some(rack_seen) = seen_racks.get_mut(rack as usize) else { continue };
                    if !*rack_seen {
                        *rack_seen = true;
                    } else if fill.rack_repeats_left > 0 {
                        fill.rack_repeats_left -= 1;
                    } else {
                        continue;
                    }
                    out.push(id);
                    fill.rf_left -= 1;
                    if fill.rf_left == 0 {
                        dcs_to_fill -= 1;
                    }
                }
            }
        }
    }
}

const NIL: u32 = u32::MAX;

/// Node ids in order of first occurrence clockwise from the current range: a doubly linked
/// list over the id space with O(1) move-to-front.
struct FirstSeenOrder {
    head: u32,
    next: Vec<u32>,
    prev: Vec<u32>,
    linked: Vec<bool>,
}

impl FirstSeenOrder {
    fn new(slots: usize) -> Self {
        FirstSeenOrder { head: NIL, next: vec![NIL; slots], prev: vec![NIL; slots], linked: vec![false; slots] }
    }

    fn move_to_front(&mut self, id: u32) {
        let slot = id as usize;
        if slot >= self.linked.len() || self.head == id {
            return;
        }
        if self.linked[slot] {
            let (before, after) = (self.prev[slot], self.next[slot]);
            if let Some(n) = self.next.get_mut(before as usize) {
                *n = after;
            }
            if let Some(p) = self.prev.get_mut(after as usize) {
                *p = before;
            }
        }
        self.linked[slot] = true;
        self.prev[slot] = NIL;
        self.next[slot] = self.head;
        if let Some(p) = self.prev.get_mut(self.head as usize) {
            *p = id;
        }
        self.head = id;
    }

    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        std::iter::successors(Some(self.head).filter(|&h| h != NIL), |&id| {
            self.next.get(id as usize).copied().filter(|&n| n != NIL)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ring of ids 0..n with token = 10 * position; locations from the table.
    fn setup(layout: &[(&'static str, &'static str)]) -> (Ring, Locations) {
        let tokens: Vec<[i64; 1]> = (0..layout.len()).map(|i| [i as i64 * 10]).collect();
        let ring = Ring::build(tokens.iter().enumerate().map(|(i, t)| (i as u32, &t[..])));
        let locations = Locations::build(&ring, layout.len(), |id| layout.get(id as usize).copied());
        (ring, locations)
    }

    fn nts(ring: &Ring, locations: &Locations, factors: &[(&str, u32)], start: usize) -> Vec<u32> {
        let factors: NameMap<u32> = factors.iter().map(|(d, r)| (d.to_string(), *r)).collect();
        let mut placement = Placement::network_topology(locations, &factors);
        let mut out = Vec::new();
        placement.replicas(ring, start, &mut out);
        out
    }

    #[test]
    fn distinct_racks_are_preferred_over_ring_order() {
        // dc1 in ring order: 0 (r1), 1 (r1), 2 (r2): the second r1 node is skipped.
        let (ring, loc) = setup(&[("dc1", "r1"), ("dc1", "r1"), ("dc1", "r2")]);
        assert_eq!(nts(&ring, &loc, &[("dc1", 2)], 0), vec![0, 2]);
    }

    #[test]
    fn rack_repeats_fill_in_walk_order_when_racks_are_fewer_than_rf() {
        // 2 racks, rf 3: one repeat allowed, taken by the first repeated-rack node met.
        let (ring, loc) = setup(&[("dc1", "r1"), ("dc1", "r1"), ("dc1", "r1"), ("dc1", "r2")]);
        assert_eq!(nts(&ring, &loc, &[("dc1", 3)], 0), vec![0, 1, 3]);
    }

    #[test]
    fn rf_above_node_count_takes_every_node() {
        let (ring, loc) = setup(&[("dc1", "r1"), ("dc2", "r1"), ("dc1", "r2")]);
        assert_eq!(nts(&ring, &loc, &[("dc1", 5), ("dc2", 1)], 1), vec![1, 2, 0]);
        assert_eq!(nts(&ring, &loc, &[("nowhere", 3)], 0), Vec::<u32>::new());
    }

    #[test]
    fn simple_strategy_takes_distinct_nodes_clockwise() {
        let a = [0i64, 20];
        let b = [10i64];
        let ring = Ring::build([(0u32, &a[..]), (1u32, &b[..])].into_iter());
        let mut out = Vec::new();
        Placement::simple(2).replicas(&ring, 2, &mut out);
        assert_eq!(out, vec![0, 1]);
        Placement::simple(5).replicas(&ring, 1, &mut out);
        assert_eq!(out, vec![1, 0]);
    }
}

#[cfg(test)]
mod sweep_tests {
    use super::*;

    /// `nodes` nodes, `per_node` tokens each, interleaved: position p is owned by p % nodes.
    fn interleaved(nodes: u32, per_node: i64) -> (Ring, Locations) {
        let tokens: Vec<Vec<i64>> =
            (0..nodes as i64).map(|n| (0..per_node).map(|k| k * nodes as i64 + n).collect()).collect();
        let ring = Ring::build(tokens.iter().enumerate().map(|(i, t)| (i as u32, t.as_slice())));
        let locations = Locations::build(&ring, nodes as usize, |id| (id < nodes).then_some(("dc1", "r1")));
        (ring, locations)
    }

    fn factors(entries: &[(&str, u32)]) -> NameMap<u32> {
        entries.iter().map(|(d, r)| (d.to_string(), *r)).collect()
    }

    #[test]
    fn sweep_matches_walking_every_range() {
        // Uneven, clustered ownership over several datacenters and racks.
        let layout = [("dc1", "r1"), ("dc1", "r2"), ("dc2", "r1"), ("dc1", "r1"), ("dc2", "r2"), ("dc1", "r3")];
        let mut tokens: Vec<Vec<i64>> = vec![Vec::new(); layout.len()];
        let mut x = 7u64;
        for token in 0..300i64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            tokens[((x >> 33) % layout.len() as u64) as usize].push(token);
        }
        let ring = Ring::build(tokens.iter().enumerate().map(|(i, t)| (i as u32, t.as_slice())));
        let locations = Locations::build(&ring, layout.len(), |id| layout.get(id as usize).copied());
        let strategies = [
            Placement::simple(1),
            Placement::simple(3),
            Placement::simple(9),
            Placement::network_topology(&locations, &factors(&[("dc1", 2), ("dc2", 1)])),
            Placement::network_topology(&locations, &factors(&[("dc1", 5), ("dc2", 3)])),
            Placement::network_topology(&locations, &factors(&[("dc1", 3)])),
        ];
        for mut placement in strategies {
            let (all, _) = placement.replicas_of_all_ranges(&ring);
            assert_eq!(all.len(), ring.len());
            let mut out = Vec::new();
            for (range, swept) in all.iter().enumerate() {
                placement.replicas(&ring, range, &mut out);
                assert_eq!(swept, &out, "range {range}");
            }
        }
    }

    #[test]
    fn one_node_with_100k_tokens_and_rf_3_is_linear() {
        let (ring, locations) = interleaved(1, 100_000);
        let (all, steps) = Placement::simple(3).replicas_of_all_ranges(&ring);
        assert_eq!(all.len(), 100_000);
        assert_eq!(all[0], vec![0]);
        assert_eq!(all[99_999], vec![0]);
        // One candidate per range (the only node), not a walk of the whole ring.
        assert_eq!(steps, 100_000);
        let (all, steps) =
            Placement::network_topology(&locations, &factors(&[("dc1", 3)])).replicas_of_all_ranges(&ring);
        assert_eq!((all[50_000].clone(), steps), (vec![0], 100_000));
    }

    #[test]
    fn a_datacenter_with_rf_0_or_no_nodes_does_not_make_the_sweep_walk_the_ring() {
        // `{'dc1': 1, 'dc2': 0}` and `{'dc1': 1, 'gone': 2}` place exactly as `{'dc1': 1}`: each
        // range stops at its first node. A datacenter that can never be filled must not keep
        // the walk going (through every node in the sweep, round the whole ring in `replicas`).
        // Four nodes interleaved (position p owned by p % 4); node 3 alone is in dc2.
        let (ring, _) = interleaved(4, 1_000);
        let locations = Locations::build(&ring, 4, |id| Some(if id < 3 { ("dc1", "r1") } else { ("dc2", "r1") }));
        for extra in [("dc2", 0), ("gone", 2)] {
            let mut placement = Placement::network_topology(&locations, &factors(&[("dc1", 1), extra]));
            let (all, steps) = placement.replicas_of_all_ranges(&ring);
            // Range 3's owner is in dc2: one more candidate. Every range pulls one node past
            // its last replica before it stops (4,000 ranges, 1,000 of them dc2's).
            assert_eq!((all[1_001].clone(), all[1_003].clone(), steps), (vec![1], vec![0], 9_000), "{extra:?}");
        }
    }

    #[test]
    fn three_nodes_with_30k_tokens_and_nts_rf_5_is_linear() {
        let (ring, locations) = interleaved(3, 30_000);
        let mut placement = Placement::network_topology(&locations, &factors(&[("dc1", 5)]));
        let (all, steps) = placement.replicas_of_all_ranges(&ring);
        assert_eq!(all.len(), 90_000);
        assert_eq!(all[0], vec![0, 1, 2]);
        assert_eq!(all[1], vec![1, 2, 0]);
        assert_eq!(all[89_999], vec![2, 0, 1]);
        // Three candidates per range: every node once, then the factor (capped at 3) is met.
        assert_eq!(steps, 3 * 90_000);
        let (all, steps) = Placement::simple(5).replicas_of_all_ranges(&ring);
        assert_eq!((all[2].clone(), steps), (vec![2, 0, 1], 3 * 90_000));
    }
}
