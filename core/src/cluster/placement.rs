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

use std::collections::BTreeMap;

use super::ring::Ring;

const NO_LOCATION: u32 = u32::MAX;

/// Datacenters and racks interned to small indices, for the nodes on the ring.
#[derive(Clone, Debug, Default)]
pub(crate) struct Locations {
    /// By node id: index into `dc_names`, or `NO_LOCATION` for a node not on the ring.
    dc_of: Vec<u32>,
    /// By node id: index of the node's (datacenter, rack) pair.
    rack_of: Vec<u32>,
    dc_names: Vec<String>,
    /// By datacenter index: nodes on the ring, and distinct racks among them.
    dc_node_count: Vec<u32>,
    dc_rack_count: Vec<u32>,
    rack_total: usize,
}

impl Locations {
    /// `location_of(id)` gives a node's (datacenter, rack); `slots` is the size of the id space.
    pub fn build<'a>(ring: &Ring, slots: usize, location_of: impl Fn(u32) -> Option<(&'a str, &'a str)>) -> Self {
        let mut dc_index: BTreeMap<&str, u32> = BTreeMap::new();
        let mut rack_index: BTreeMap<(&str, &str), u32> = BTreeMap::new();
        let mut locations =
            Locations { dc_of: vec![NO_LOCATION; slots], rack_of: vec![NO_LOCATION; slots], ..Locations::default() };
        for id in ring.walk(0) {
            let slot = id as usize;
            if locations.dc_of.get(slot).copied() != Some(NO_LOCATION) {
                continue;
            }
            let Some((dc, rack)) = location_of(id) else { continue };
            let next_dc = dc_index.len() as u32;
            let dc_id = *dc_index.entry(dc).or_insert_with(|| {
                locations.dc_names.push(dc.to_string());
                locations.dc_node_count.push(0);
                locations.dc_rack_count.push(0);
                next_dc
            });
            let next_rack = rack_index.len() as u32;
            let rack_id = *rack_index.entry((dc, rack)).or_insert_with(|| {
                locations.dc_rack_count[dc_id as usize] += 1;
                next_rack
            });
            locations.dc_node_count[dc_id as usize] += 1;
            locations.dc_of[slot] = dc_id;
            locations.rack_of[slot] = rack_id;
        }
        locations.rack_total = rack_index.len();
        locations
    }

    fn dc_index(&self, name: &str) -> Option<u32> {
        self.dc_names.iter().position(|n| n == name).map(|i| i as u32)
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

    pub fn network_topology(locations: &'a Locations, factors: &BTreeMap<String, u32>) -> Self {
        let factors = factors.iter().filter_map(|(dc, &rf)| locations.dc_index(dc).map(|index| (index, rf))).collect();
        Placement::NetworkTopology {
            locations,
            factors,
            seen_racks: vec![false; locations.rack_total],
            fills: vec![None; locations.dc_names.len()],
        }
    }

    /// Fills `out` with the replicas of ring range `start`, primary first.
    pub fn replicas(&mut self, ring: &Ring, start: usize, out: &mut Vec<u32>) {
        out.clear();
        match self {
            Placement::Simple { rf } => {
                for id in ring.walk(start) {
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
                for id in ring.walk(start) {
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
        let factors: BTreeMap<String, u32> = factors.iter().map(|(d, r)| (d.to_string(), *r)).collect();
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
