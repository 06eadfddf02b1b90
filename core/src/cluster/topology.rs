//! Nodes and keyspaces, built from rows of the system tables that another layer has
//! already decoded into plain values.

use crate::cluster::ring::sort_tokens;
use crate::name_map::NameMap;

use crate::error::ProtocolError;

/// How the load-balancing policy treats a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Distance {
    /// In the local datacenter: a first-choice coordinator.
    Local,
    /// In another datacenter, and remote datacenters are allowed: a fallback coordinator.
    Remote,
    /// Never used as a coordinator (remote datacenters disallowed, or excluded by the
    /// allow/deny lists). It still owns data, so replica placement still counts it.
    Ignored,
}

impl Distance {
    /// The name hosts see (`Client.state()`): a fixed string, so reporting it needs no
    /// formatting machinery (a Debug format lowercased pulled ~12 KB of Unicode case tables
    /// into the WASM module).
    pub fn name(self) -> &'static str {
        match self {
            Distance::Local => "local",
            Distance::Remote => "remote",
            Distance::Ignored => "ignored",
        }
    }
}

/// One Cassandra node as the driver sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Dense index into the view's node table. Stable for as long as the node (by host ID)
    /// stays in the cluster; a slot freed by a removed node can be reused by a new one.
    pub id: u32,
    /// The native-protocol endpoint, `host:port` (IPv6 hosts in brackets).
    pub address: String,
    pub datacenter: String,
    pub rack: String,
    pub tokens: Vec<i64>,
    pub host_id: [u8; 16],
    pub up: bool,
    pub distance: Distance,
    pub release_version: Option<String>,
}

/// One row of `system.local`, `system.peers_v2` or `system.peers`, already decoded.
///
/// `system.local` and `system.peers` give `rpc_address` (and the port is the one the driver
/// connected to); `system.peers_v2` gives `native_address` + `native_port`. `peer` is the
/// internode (listen) address, used only when the node advertises a bind-any RPC address.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PeerRow {
    pub rpc_address: Option<String>,
    pub native_address: Option<String>,
    pub native_port: Option<u16>,
    pub peer: Option<String>,
    pub data_center: Option<String>,
    pub rack: Option<String>,
    pub tokens: Vec<String>,
    pub host_id: Option<[u8; 16]>,
    pub release_version: Option<String>,
}

/// One row of `system_schema.keyspaces`, already decoded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyspaceRow {
    pub keyspace_name: String,
    /// The `replication` map, in wire order.
    pub replication: Vec<(String, String)>,
}

/// A keyspace's replication strategy, reduced to what placement needs.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Replication {
    Simple {
        rf: u32,
    },
    /// Datacenter name → replication factor, sorted by name.
    NetworkTopology(NameMap<u32>),
    /// `LocalStrategy`: every node holds its own copy; any coordinator will do.
    Local,
    /// `EverywhereStrategy`, or a class we do not model (named here): placement is unknown
    /// or total, so requests use the non-token-aware plan.
    Everywhere(String),
}

fn strategy_name(class: &str) -> &str {
    class.rsplit('.').next().unwrap_or(class)
}

/// Cassandra 4 writes transient replication as `"<all>/<transient>"`; every replica, full
/// or transient, can coordinate, so the total is what placement uses.
fn parse_rf(value: &str, field: &'static str, position: usize) -> Result<u32, ProtocolError> {
    let total = value.split('/').next().unwrap_or(value).trim();
    total.parse::<u32>().map_err(|_| {
        ProtocolError::remote(field, position, format!("replication factor {value:?} is not a non-negative integer"))
    })
}

impl Replication {
    /// Interprets a `replication` map. A bad entry is reported with its index in the map as
    /// the error's offset.
    pub fn from_map(entries: &[(String, String)]) -> Result<Self, ProtocolError> {
        let class =
            entries.iter().find(|(key, _)| key == "class").map(|(_, value)| value.as_str()).ok_or_else(|| {
                ProtocolError::remote("replication.class", 0, "the replication map has no \"class\" entry")
            })?;
        match strategy_name(class) {
            "SimpleStrategy" => {
                let (position, (_, value)) =
                    entries.iter().enumerate().find(|(_, (key, _))| key == "replication_factor").ok_or_else(|| {
                        ProtocolError::remote(
                            "replication.replication_factor",
                            0,
                            "SimpleStrategy without a \"replication_factor\" entry",
                        )
                    })?;
                Ok(Replication::Simple { rf: parse_rf(value, "replication.replication_factor", position)? })
            }
            "NetworkTopologyStrategy" => {
                let mut dcs = NameMap::default();
                for (position, (key, value)) in entries.iter().enumerate() {
                    // `replication_factor` is expanded into per-DC entries by the server; a
                    // leftover one carries no placement of its own.
                    if key == "class" || key == "replication_factor" {
                        continue;
                    }
                    dcs.insert(key, parse_rf(value, "replication.datacenter", position)?);
                }
                Ok(Replication::NetworkTopology(dcs))
            }
            "LocalStrategy" => Ok(Replication::Local),
            other => Ok(Replication::Everywhere(other.to_string())),
        }
    }
}

/// Joins a host and port into the `host:port` form used for every node address.
pub fn format_address(host: &str, port: u16) -> String {
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// The host and port of an address in the [`format_address`] form (`host:port`,
/// `[v6]:port`); the port is 0 when the text has none that fits.
pub fn split_address(address: &str) -> (&str, u16) {
    let (host, port) = address.rsplit_once(':').unwrap_or((address, ""));
    let host = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    (host, port.parse().unwrap_or(0))
}

fn is_bind_any(host: &str) -> bool {
    host == "0.0.0.0" || host == "::" || host == "0:0:0:0:0:0:0:0"
}

/// Why a peer row did not become a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedRow {
    /// Index in the peers slice; `None` for the `system.local` row.
    pub peer_index: Option<usize>,
    pub reason: &'static str,
}

/// A node as described by its row, before ids and distances are assigned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NodeDescription {
    pub address: String,
    pub datacenter: String,
    pub rack: String,
    pub tokens: Vec<i64>,
    pub host_id: [u8; 16],
    pub release_version: Option<String>,
}

/// Cassandra's num_tokens is at most 1536 per node in practice; 65536 leaves ample room for
/// any real vnode layout while keeping a hostile reply from building a ring of millions.
const MAX_TOKENS_PER_NODE: usize = 65_536;

/// Reads one row. `connected_address` is given for the `system.local` row: the node we are
/// connected to is reachable at the address we used, whatever it advertises.
pub(crate) fn describe_row(
    row: &PeerRow,
    default_port: u16,
    connected_address: Option<&str>,
) -> Result<(NodeDescription, bool), &'static str> {
    let host_id = row.host_id.ok_or("row has no host_id")?;
    let address = match connected_address {
        Some(address) => address.to_string(),
        None => {
            let usable = |host: &&str| !host.is_empty();
            let (advertised, port) = match row.native_address.as_deref().filter(usable) {
                Some(native) => (native, row.native_port.unwrap_or(default_port)),
                None => (
                    row.rpc_address
                        .as_deref()
                        .filter(usable)
                        .ok_or("row has neither native_address nor rpc_address")?,
                    default_port,
                ),
            };
            let host = if is_bind_any(advertised) {
                row.peer
                    .as_deref()
                    .filter(|peer| usable(peer) && !is_bind_any(peer))
                    .ok_or("row advertises a bind-any address and no peer address")?
            } else {
                advertised
            };
            format_address(host, port)
        }
    };
    let datacenter = row.data_center.clone().ok_or("row has no data_center")?;
    let rack = row.rack.clone().ok_or("row has no rack")?;
    if row.tokens.len() > MAX_TOKENS_PER_NODE {
        return Err("row's tokens: more than 65536 tokens for one node");
    }
    let mut tokens = Vec::with_capacity(row.tokens.len());
    let mut tokens_ok = true;
    for text in &row.tokens {
        match text.trim().parse::<i64>() {
            Ok(token) => tokens.push((token, 0)),
            Err(_) => tokens_ok = false,
        }
    }
    if !tokens_ok {
        // Not Murmur3 tokens (another partitioner): the node still coordinates, but owns
        // nothing we can place.
        tokens.clear();
    }
    sort_tokens(&mut tokens);
    let tokens = tokens.into_iter().map(|(token, _)| token).collect();
    Ok((
        NodeDescription { address, datacenter, rack, tokens, host_id, release_version: row.release_version.clone() },
        tokens_ok,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_distance_is_named_as_client_state_always_reported_it() {
        // Client.state() reported the Debug name lowercased before `name` existed.
        for distance in [Distance::Local, Distance::Remote, Distance::Ignored] {
            assert_eq!(distance.name(), format!("{distance:?}").to_lowercase());
        }
        assert_eq!(
            [Distance::Local.name(), Distance::Remote.name(), Distance::Ignored.name()],
            ["local", "remote", "ignored"]
        );
    }

    #[test]
    fn an_address_splits_back_into_its_host_and_port() {
        for (host, port) in [("10.0.0.1", 9042), ("::1", 19042), ("node-a.example", 1), ("fe80::1%eth0", 9042)] {
            assert_eq!(split_address(&format_address(host, port)), (host, port));
        }
        assert_eq!(split_address("no-port"), ("no-port", 0));
    }

    fn map(entries: &[(&str, &str)]) -> Vec<(String, String)> {
        entries.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn replication_classes() {
        assert_eq!(
            Replication::from_map(&map(&[
                ("class", "org.apache.cassandra.locator.SimpleStrategy"),
                ("replication_factor", "3")
            ]))
            .unwrap(),
            Replication::Simple { rf: 3 }
        );
        let nts =
            Replication::from_map(&map(&[("class", "NetworkTopologyStrategy"), ("dc2", "1"), ("dc1", "3/1")])).unwrap();
        let expected: NameMap<u32> = [("dc1".to_string(), 3), ("dc2".to_string(), 1)].into_iter().collect();
        assert_eq!(nts, Replication::NetworkTopology(expected));
        assert_eq!(
            Replication::from_map(&map(&[("class", "org.apache.cassandra.locator.LocalStrategy")])).unwrap(),
            Replication::Local
        );
        assert_eq!(
            Replication::from_map(&map(&[("class", "com.datastax.bdp.db.EverywhereStrategy")])).unwrap(),
            Replication::Everywhere("EverywhereStrategy".to_string())
        );
    }

    #[test]
    fn bad_replication_maps_name_the_entry() {
        let err =
            Replication::from_map(&map(&[("class", "SimpleStrategy"), ("replication_factor", "three")])).unwrap_err();
        assert_eq!((err.field, err.offset), ("replication.replication_factor", 1));
        let err = Replication::from_map(&map(&[("class", "NetworkTopologyStrategy"), ("dc1", "-1")])).unwrap_err();
        assert_eq!((err.field, err.offset), ("replication.datacenter", 1));
        assert_eq!(Replication::from_map(&map(&[("dc1", "1")])).unwrap_err().field, "replication.class");
        assert_eq!(
            Replication::from_map(&map(&[("class", "SimpleStrategy")])).unwrap_err(),
            ProtocolError::remote(
                "replication.replication_factor",
                0,
                "SimpleStrategy without a \"replication_factor\" entry"
            )
        );
    }

    #[test]
    fn each_bind_any_form_takes_the_peer_address_and_no_other_does() {
        let row = |rpc: &str, peer: Option<&str>| PeerRow {
            rpc_address: Some(rpc.into()),
            peer: peer.map(Into::into),
            data_center: Some("dc1".into()),
            rack: Some("r1".into()),
            host_id: Some([1; 16]),
            ..PeerRow::default()
        };
        for bind_any in ["0.0.0.0", "::", "0:0:0:0:0:0:0:0"] {
            assert_eq!(describe_row(&row(bind_any, Some("10.0.0.7")), 9042, None).unwrap().0.address, "10.0.0.7:9042");
            // A peer that is itself bind-any (or empty) names no reachable host.
            for peer in [None, Some(""), Some("0.0.0.0"), Some("::"), Some("0:0:0:0:0:0:0:0")] {
                assert_eq!(
                    describe_row(&row(bind_any, peer), 9042, None).unwrap_err(),
                    "row advertises a bind-any address and no peer address",
                    "{bind_any} with peer {peer:?}"
                );
            }
        }
        for host in ["10.0.0.3", "::1", "0.0.0.1"] {
            assert_eq!(
                describe_row(&row(host, Some("10.0.0.7")), 9042, None).unwrap().0.address,
                format_address(host, 9042)
            );
        }
    }

    #[test]
    fn an_empty_native_address_falls_back_to_the_rpc_address_on_the_default_port() {
        let row = PeerRow {
            native_address: Some(String::new()),
            native_port: Some(19042),
            rpc_address: Some("10.0.0.4".into()),
            data_center: Some("dc1".into()),
            rack: Some("r1".into()),
            host_id: Some([1; 16]),
            ..PeerRow::default()
        };
        assert_eq!(describe_row(&row, 9042, None).unwrap().0.address, "10.0.0.4:9042");
        let neither = PeerRow { rpc_address: Some(String::new()), ..row.clone() };
        assert_eq!(describe_row(&neither, 9042, None).unwrap_err(), "row has neither native_address nor rpc_address");
        let no_dc = PeerRow { data_center: None, ..row.clone() };
        assert_eq!(describe_row(&no_dc, 9042, None).unwrap_err(), "row has no data_center");
        let no_rack = PeerRow { rack: None, ..row };
        assert_eq!(describe_row(&no_rack, 9042, None).unwrap_err(), "row has no rack");
    }

    #[test]
    fn a_leftover_replication_factor_is_no_datacenter() {
        let nts = Replication::from_map(&map(&[
            ("replication_factor", "2"),
            ("class", "org.apache.cassandra.locator.NetworkTopologyStrategy"),
            ("dc1", " 2 "),
        ]))
        .unwrap();
        let expected: NameMap<u32> = [("dc1".to_string(), 2)].into_iter().collect();
        assert_eq!(nts, Replication::NetworkTopology(expected));
        // The factor is found wherever it is in the map, and its index names it when bad.
        let simple = map(&[("replication_factor", "1"), ("class", "SimpleStrategy")]);
        assert_eq!(Replication::from_map(&simple).unwrap(), Replication::Simple { rf: 1 });
        let err = Replication::from_map(&map(&[("class", "SimpleStrategy"), ("x", "1"), ("replication_factor", "")]))
            .unwrap_err();
        assert_eq!((err.field, err.offset), ("replication.replication_factor", 2));
    }

    #[test]
    fn addresses() {
        assert_eq!(format_address("10.0.0.1", 9042), "10.0.0.1:9042");
        assert_eq!(format_address("::1", 9042), "[::1]:9042");
        let row = PeerRow {
            native_address: Some("10.0.0.2".into()),
            native_port: Some(19042),
            rpc_address: Some("10.9.9.9".into()),
            data_center: Some("dc1".into()),
            rack: Some("r1".into()),
            host_id: Some([1; 16]),
            tokens: vec!["5".into(), "-3".into()],
            ..PeerRow::default()
        };
        let (node, tokens_ok) = describe_row(&row, 9042, None).unwrap();
        assert_eq!(node.address, "10.0.0.2:19042");
        assert_eq!(node.tokens, vec![-3, 5]);
        assert!(tokens_ok);

        let bind_any = PeerRow {
            native_address: None,
            rpc_address: Some("0.0.0.0".into()),
            peer: Some("10.0.0.7".into()),
            ..row.clone()
        };
        assert_eq!(describe_row(&bind_any, 9042, None).unwrap().0.address, "10.0.0.7:9042");

        let at_cap = PeerRow { tokens: (0..65_536).map(|t: i64| t.to_string()).collect(), ..row.clone() };
        assert_eq!(describe_row(&at_cap, 9042, None).unwrap().0.tokens.len(), 65_536);
        let over_cap = PeerRow { tokens: (0..65_537).map(|t: i64| t.to_string()).collect(), ..row.clone() };
        assert_eq!(
            describe_row(&over_cap, 9042, None).unwrap_err(),
            "row's tokens: more than 65536 tokens for one node"
        );

        let no_peer = PeerRow { peer: None, ..bind_any.clone() };
        assert_eq!(
            describe_row(&no_peer, 9042, None).unwrap_err(),
            "row advertises a bind-any address and no peer address"
        );
        assert_eq!(describe_row(&no_peer, 9042, Some("127.0.0.1:9142")).unwrap().0.address, "127.0.0.1:9142");

        let no_host_id = PeerRow { host_id: None, ..row.clone() };
        assert_eq!(describe_row(&no_host_id, 9042, None).unwrap_err(), "row has no host_id");

        let random_partitioner = PeerRow { tokens: vec!["170141183460469231731687303715884105727".into()], ..row };
        let (node, tokens_ok) = describe_row(&random_partitioner, 9042, None).unwrap();
        assert!(node.tokens.is_empty());
        assert!(!tokens_ok);
    }
}
