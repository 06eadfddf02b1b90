//! ScyllaDB's tablets: per-table token ranges whose replicas (and the shard on each) the
//! server tells us lazily, in the `tablets-routing-v1` custom payload of the answer to a
//! request that reached a node or shard that does not own its tablet
//! (`docs/dev/protocol-extensions.md` of scylladb/scylladb).
//!
//! The payload is peer bytes: every count is bounded by the bytes present and every error
//! names the field, so a hostile server can only make us route badly, never panic.

use std::collections::BTreeMap;

use crate::error::ProtocolError;
use crate::wire::Reader;

/// The custom payload key the server attaches tablet routing under.
pub const TABLETS_ROUTING_V1_PAYLOAD: &str = "tablets-routing-v1";

/// Replicas kept per tablet; Scylla's replication factors are far below this.
const MAX_REPLICAS: usize = 16;

/// One replica of a tablet: the node by host id, and the shard on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TabletReplica {
    pub host_id: [u8; 16],
    pub shard: u16,
}

/// The tokens `(first, last]` and their replicas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tablet {
    pub first: i64,
    pub last: i64,
    pub replicas: Vec<TabletReplica>,
}

impl Tablet {
    fn contains(&self, token: i64) -> bool {
        self.first < token && token <= self.last
    }

    fn overlaps(&self, other: &Tablet) -> bool {
        self.first < other.last && other.first < self.last
    }
}

fn element<'a>(r: &mut Reader<'a>, field: &'static str) -> Result<&'a [u8], ProtocolError> {
    r.bytes_opt(field)?.ok_or_else(|| r.error(field, "null"))
}

fn long(r: &mut Reader<'_>, field: &'static str) -> Result<i64, ProtocolError> {
    let b = element(r, field)?;
    let a: [u8; 8] = b.try_into().map_err(|_| r.error(field, format!("{} bytes, not 8", b.len())))?;
    Ok(i64::from_be_bytes(a))
}

fn replica(r: &mut Reader<'_>) -> Result<TabletReplica, ProtocolError> {
    let mut t = Reader::new(element(r, "tablet replica")?);
    let id = element(&mut t, "tablet replica host id")?;
    let host_id: [u8; 16] =
        id.try_into().map_err(|_| t.error("tablet replica host id", format!("{} bytes, not 16", id.len())))?;
    let shard = element(&mut t, "tablet replica shard")?;
    let shard: [u8; 4] =
        shard.try_into().map_err(|_| t.error("tablet replica shard", format!("{} bytes, not 4", shard.len())))?;
    let shard = u16::try_from(i32::from_be_bytes(shard))
        .map_err(|_| t.error("tablet replica shard", format!("{} is no shard", i32::from_be_bytes(shard))))?;
    Ok(TabletReplica { host_id, shard })
}

/// Decodes `TupleType(LongType, LongType, ListType(TupleType(UUIDType, Int32Type)))`.
pub fn decode_tablet(payload: &[u8]) -> Result<Tablet, ProtocolError> {
    let mut r = Reader::new(payload);
    let first = long(&mut r, "tablet first token")?;
    let last = long(&mut r, "tablet last token")?;
    if first >= last {
        return Err(r.error("tablet last token", format!("({first}, {last}] is empty")));
    }
    let mut list = Reader::new(element(&mut r, "tablet replicas")?);
    let n = list.i32("tablet replica count")?;
    // Each replica takes at least 4 bytes: a count beyond that (or below 0) is a lie, not an
    // allocation.
    let fits = usize::try_from(n).is_ok_and(|count| count <= list.remaining() / 4);
    if !fits {
        return Err(list.error("tablet replica count", format!("{n} replicas in {} bytes", list.remaining())));
    }
    let mut replicas = Vec::with_capacity((n as usize).min(MAX_REPLICAS));
    for _ in 0..n {
        let rep = replica(&mut list)?;
        if replicas.len() < MAX_REPLICAS {
            replicas.push(rep);
        }
    }
    if replicas.is_empty() {
        return Err(list.error("tablet replica count", "no replicas"));
    }
    Ok(Tablet { first, last, replicas })
}

/// The `tablets-routing-v1` tablet among a response's custom payload entries, if any.
/// `body` starts at the response prefix that `frame_flags` announce.
pub fn tablet_from_response(body: &[u8], frame_flags: u8) -> Result<Option<Tablet>, ProtocolError> {
    if frame_flags & crate::frame::flags::CUSTOM_PAYLOAD == 0 {
        return Ok(None);
    }
    let mut found = None;
    crate::connection::visit_response_prefix(body, frame_flags, |key, value| {
        if key == TABLETS_ROUTING_V1_PAYLOAD {
            found = value;
        }
    })?;
    found.map(decode_tablet).transpose()
}

/// Tablets per table, each table's sorted by last token and never overlapping.
#[derive(Debug, Default)]
pub struct TabletMap {
    tables: BTreeMap<u32, Vec<Tablet>>,
}

impl TabletMap {
    /// Keeps `tablet` for `table`, evicting every tablet it overlaps (they describe a layout
    /// the server has since split, merged or moved).
    pub fn insert(&mut self, table: u32, tablet: Tablet) {
        // An empty range holds no token (`decode_tablet` refuses one): kept, it would sit
        // beside the tablet ending at the same token, which it does not overlap.
        if tablet.first >= tablet.last {
            return;
        }
        let list = self.tables.entry(table).or_default();
        list.retain(|t| !t.overlaps(&tablet));
        let at = list.partition_point(|t| t.last < tablet.last);
        list.insert(at, tablet);
    }

    pub fn lookup(&self, table: u32, token: i64) -> Option<&Tablet> {
        let list = self.tables.get(&table)?;
        let at = list.partition_point(|t| t.last < token);
        list.get(at).filter(|t| t.contains(token))
    }

    /// Forgets the tables `drop` selects (a schema change may have recreated them).
    pub fn retain_tables(&mut self, keep: impl Fn(u32) -> bool) {
        self.tables.retain(|&t, _| keep(t));
    }

    /// Forgets everything (a topology change moves tablets between nodes).
    pub fn clear(&mut self) {
        self.tables.clear();
    }

    pub fn len(&self, table: u32) -> usize {
        self.tables.get(&table).map_or(0, Vec::len)
    }
}

/// Encodes a tablet as the server does: for tests and test servers.
pub fn encode_tablet(tablet: &Tablet) -> Vec<u8> {
    fn element(out: &mut Vec<u8>, b: &[u8]) {
        out.extend_from_slice(&(b.len() as i32).to_be_bytes());
        out.extend_from_slice(b);
    }
    let mut list = (tablet.replicas.len() as i32).to_be_bytes().to_vec();
    for r in &tablet.replicas {
        let mut tuple = Vec::new();
        element(&mut tuple, &r.host_id);
        element(&mut tuple, &i32::from(r.shard).to_be_bytes());
        element(&mut list, &tuple);
    }
    let mut out = Vec::new();
    element(&mut out, &tablet.first.to_be_bytes());
    element(&mut out, &tablet.last.to_be_bytes());
    element(&mut out, &list);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tablet(first: i64, last: i64, host: u8) -> Tablet {
        Tablet { first, last, replicas: vec![TabletReplica { host_id: [host; 16], shard: 1 }] }
    }

    #[test]
    fn decodes_what_it_encodes() {
        let t = Tablet {
            first: i64::MIN,
            last: -5,
            replicas: vec![TabletReplica { host_id: [7; 16], shard: 3 }, TabletReplica { host_id: [9; 16], shard: 0 }],
        };
        assert_eq!(decode_tablet(&encode_tablet(&t)).unwrap(), t);
    }

    #[test]
    fn every_truncation_is_an_error_naming_a_field() {
        let bytes = encode_tablet(&tablet(1, 10, 2));
        for cut in 0..bytes.len() {
            let e = decode_tablet(&bytes[..cut]).unwrap_err();
            assert!(e.to_string().contains("tablet"), "{cut}: {e}");
        }
    }

    #[test]
    fn a_lying_replica_count_is_refused_before_allocating() {
        let mut bytes = encode_tablet(&tablet(1, 10, 2));
        let at = 12 + 12 + 4; // two longs with lengths, then the list's length
        bytes[at..at + 4].copy_from_slice(&i32::MAX.to_be_bytes());
        let e = decode_tablet(&bytes).unwrap_err();
        assert!(e.to_string().contains("tablet replica count"), "{e}");
    }

    #[test]
    fn an_empty_range_or_a_negative_shard_is_refused() {
        assert!(decode_tablet(&encode_tablet(&tablet(5, 5, 1))).unwrap_err().to_string().contains("is empty"));
        let mut bytes = encode_tablet(&tablet(1, 10, 2));
        let n = bytes.len();
        bytes[n - 4..].copy_from_slice(&(-1i32).to_be_bytes());
        assert!(decode_tablet(&bytes).unwrap_err().to_string().contains("-1 is no shard"));
    }

    /// The replica list of a tablet (1, 10]: its count, then the given bytes.
    fn with_replica_list(count: i32, replicas: &[u8]) -> Vec<u8> {
        let mut list = count.to_be_bytes().to_vec();
        list.extend_from_slice(replicas);
        let mut out = encode_tablet(&tablet(1, 10, 2));
        out.truncate(24);
        out.extend_from_slice(&(list.len() as i32).to_be_bytes());
        out.extend_from_slice(&list);
        out
    }

    #[test]
    fn a_replica_count_is_checked_against_four_bytes_a_replica() {
        // Two empty replicas fill exactly 8 bytes: the count passes, the first replica fails.
        let e = decode_tablet(&with_replica_list(2, &[0; 8])).unwrap_err();
        assert_eq!((e.field, e.reason.as_str()), ("tablet replica host id", "needs 4 bytes, 0 left"));
        for (count, reason) in [(3, "3 replicas in 8 bytes"), (-1, "-1 replicas in 8 bytes")] {
            let e = decode_tablet(&with_replica_list(count, &[0; 8])).unwrap_err();
            assert_eq!(e, ProtocolError::remote("tablet replica count", 4, reason), "{count}");
        }
        let e = decode_tablet(&with_replica_list(i32::MIN, &[])).unwrap_err();
        assert_eq!(e, ProtocolError::remote("tablet replica count", 4, "-2147483648 replicas in 0 bytes"));
        let e = decode_tablet(&with_replica_list(0, &[])).unwrap_err();
        assert_eq!(e, ProtocolError::remote("tablet replica count", 4, "no replicas"));
    }

    #[test]
    fn replicas_past_the_sixteenth_are_read_and_dropped() {
        let replicas = |n: u8| (0..n).map(|i| TabletReplica { host_id: [i; 16], shard: u16::from(i) }).collect();
        let many = Tablet { first: -10, last: 10, replicas: replicas(17) };
        let decoded = decode_tablet(&encode_tablet(&many)).unwrap();
        assert_eq!(decoded, Tablet { replicas: replicas(16), ..many });
        let sixteen = Tablet { first: -10, last: 10, replicas: replicas(16) };
        assert_eq!(decode_tablet(&encode_tablet(&sixteen)).unwrap(), sixteen);
    }

    /// A response prefix of custom payload entries, as `CUSTOM_PAYLOAD` announces it.
    fn payload(entries: &[(&str, Option<&[u8]>)]) -> Vec<u8> {
        let mut out = (entries.len() as u16).to_be_bytes().to_vec();
        for (key, value) in entries {
            out.extend_from_slice(&(key.len() as u16).to_be_bytes());
            out.extend_from_slice(key.as_bytes());
            match value {
                Some(v) => {
                    out.extend_from_slice(&(v.len() as i32).to_be_bytes());
                    out.extend_from_slice(v);
                }
                None => out.extend_from_slice(&(-1i32).to_be_bytes()),
            }
        }
        out
    }

    #[test]
    fn the_tablet_is_read_from_its_own_payload_entry_only() {
        use crate::frame::flags::{CUSTOM_PAYLOAD, TRACING};
        let t = tablet(-5, 5, 3);
        let encoded = encode_tablet(&t);
        let body = payload(&[("other", Some(b"junk")), (TABLETS_ROUTING_V1_PAYLOAD, Some(&encoded)), ("x", None)]);
        assert_eq!(tablet_from_response(&body, CUSTOM_PAYLOAD), Ok(Some(t)));
        let body = payload(&[("other", Some(&encoded))]);
        assert_eq!(tablet_from_response(&body, CUSTOM_PAYLOAD), Ok(None));
        // Without the flag the body is not read at all, even where the prefix it would
        // describe is missing.
        assert_eq!(tablet_from_response(&[], TRACING), Ok(None));
        let e = tablet_from_response(&payload(&[(TABLETS_ROUTING_V1_PAYLOAD, Some(&[0; 3]))]), CUSTOM_PAYLOAD);
        assert_eq!(e.unwrap_err().field, "tablet first token");
    }

    #[test]
    fn a_tablet_inserted_just_below_another_keeps_it() {
        let mut m = TabletMap::default();
        m.insert(0, tablet(30, 40, 3));
        m.insert(0, tablet(20, 30, 2));
        m.insert(0, tablet(40, 50, 4));
        assert_eq!(m.len(0), 3);
        for (token, host) in [(25, Some(2)), (30, Some(2)), (31, Some(3)), (40, Some(3)), (41, Some(4)), (51, None)] {
            assert_eq!(m.lookup(0, token).map(|t| t.replicas[0].host_id[0]), host, "{token}");
        }
        // An empty range is no tablet: it neither evicts (30, 40] nor is kept.
        m.insert(0, tablet(40, 40, 6));
        m.insert(0, tablet(45, 44, 6));
        assert_eq!(m.len(0), 3);
        assert_eq!(m.lookup(0, 40).map(|t| t.replicas[0].host_id[0]), Some(3));
        m.insert(1, tablet(0, 10, 5));
        m.retain_tables(|t| t == 1);
        assert_eq!((m.len(0), m.len(1)), (0, 1));
        m.clear();
        assert_eq!(m.len(1), 0);
    }

    #[test]
    fn lookup_is_half_open_and_insert_evicts_overlaps() {
        let mut m = TabletMap::default();
        m.insert(0, tablet(0, 10, 1));
        m.insert(0, tablet(10, 20, 2));
        m.insert(0, tablet(30, 40, 3));
        assert_eq!(m.lookup(0, 0), None);
        assert_eq!(m.lookup(0, 10).map(|t| t.replicas[0].host_id[0]), Some(1));
        assert_eq!(m.lookup(0, 11).map(|t| t.replicas[0].host_id[0]), Some(2));
        assert_eq!(m.lookup(0, 25), None);
        assert_eq!(m.lookup(1, 11), None);
        // A merge of (0, 20] replaces both halves but keeps (30, 40].
        m.insert(0, tablet(5, 15, 4));
        assert_eq!(m.len(0), 2);
        assert_eq!(m.lookup(0, 3), None);
        assert_eq!(m.lookup(0, 12).map(|t| t.replicas[0].host_id[0]), Some(4));
        assert_eq!(m.lookup(0, 35).map(|t| t.replicas[0].host_id[0]), Some(3));
    }
}
