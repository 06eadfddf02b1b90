//! Shard awareness for Scylla nodes: a pool holds connections per shard, a request goes to a
//! connection of the shard owning its token, and the pool fills shard by shard, through the
//! shard-aware port when the host can choose its local port, blindly otherwise.

use super::{Command, ConnId, ConnStatus, EventOut, Session};
use crate::cluster::{missing_shards, shard_of, PoolSlot};
use crate::connection::State;

/// What a connection to the shard-aware port asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardTarget {
    pub shard: u16,
    pub nr_shards: u16,
}

/// A Scylla node's sharding, as its first connection's SUPPORTED described it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct NodeShards {
    nr_shards: u16,
    ignore_msb: u8,
    shard_aware_port: Option<u16>,
    /// The shard-aware port gave a connection another shard than it asked for (a NAT
    /// rewrote the source port): connect to the regular port from now on.
    port_unusable: bool,
    /// Connections opened to the regular port to fill missing shards, against the bound.
    blind_attempts: u32,
}

/// Blind connections per shard a pool may open before it settles for the shards it has.
const BLIND_ATTEMPTS_PER_SHARD: u32 = 4;

/// `host:port` with the port replaced (IPv6 hosts keep their brackets).
fn with_port(address: &str, port: u16) -> String {
    let host = address.rsplit_once(':').map_or(address, |(h, _)| h);
    format!("{host}:{port}")
}

impl Session {
    /// The shard of `token` on `node`, when that node is sharded.
    fn owning_shard(&self, node: u32, token: Option<i64>) -> Option<u16> {
        let s = self.pools.get(node as usize)?.sharding?;
        Some(shard_of(token?, s.nr_shards, s.ignore_msb))
    }

    /// A ready connection of `node` with the fewest requests in flight, on the shard owning
    /// `token` when there is one; any shard's while that shard has no connection.
    pub(super) fn pick_conn(&self, node: u32, token: Option<i64>) -> Option<ConnId> {
        self.pick_conn_on_shard(node, self.owning_shard(node, token))
    }

    /// A ready connection of `node` with the fewest requests in flight, on shard `wanted`
    /// when it has one there.
    pub(super) fn pick_conn_on_shard(&self, node: u32, wanted: Option<u16>) -> Option<ConnId> {
        let pool = self.pools.get(node as usize)?;
        let mut best: Option<(bool, usize, ConnId)> = None;
        for &id in &pool.conns {
            let Some(c) = self.conn(id) else { continue };
            if c.status != ConnStatus::Ready || c.inner.state() != State::Ready {
                continue;
            }
            let on_shard = wanted.is_some() && c.shard == wanted;
            let load = c.inner.in_flight() + c.inner.queued();
            if best.is_none_or(|(s, l, _)| (on_shard && !s) || (on_shard == s && load < l)) {
                best = Some((on_shard, load, id));
            }
        }
        best.map(|(_, _, id)| id)
    }

    /// Connections a sharded node wants: `connections_per_node` on each shard.
    pub(super) fn wanted_sharded(&self, node: u32) -> Option<usize> {
        let s = self.pools.get(node as usize)?.sharding?;
        Some(usize::from(s.nr_shards) * self.config.connections_per_node.max(1))
    }

    /// Notes a ready connection's shard and, once it belongs to a node, that node's sharding.
    /// Returns the shard it asked for and the one it got.
    fn note_shard(&mut self, conn: ConnId) -> Option<(Option<u16>, u16, u32)> {
        let c = self.conn_mut(conn)?;
        let features = c.inner.scylla().clone();
        let sharding = features.sharding?;
        c.shard = Some(sharding.shard);
        // A shard asked for with another shard count (the node restarted with a different
        // one since) says nothing about a NAT: the node applied its own count to the source
        // port. Such a connection counts as a blind one.
        let asked = c.asked_shard.filter(|t| t.nr_shards == sharding.nr_shards).map(|t| t.shard);
        let node = c.node?;
        let port = if self.config.tls { features.shard_aware_port_ssl } else { features.shard_aware_port };
        let fresh = NodeShards {
            nr_shards: sharding.nr_shards,
            ignore_msb: sharding.ignore_msb,
            shard_aware_port: port,
            port_unusable: false,
            blind_attempts: 0,
        };
        let known = self.pool_mut(node).sharding.get_or_insert(fresh);
        if known.nr_shards != fresh.nr_shards || known.ignore_msb != fresh.ignore_msb {
            // The node restarted with other shards: start over.
            *known = fresh;
        }
        Some((asked, sharding.shard, node))
    }

    /// After a handshake: note the connection's shard, detect a NAT in front of the
    /// shard-aware port, drop a blind connection whose shard is already covered while the
    /// pool may still try for another, and open what the pool still lacks.
    pub(super) fn on_conn_sharding(&mut self, conn: ConnId) {
        let Some((asked, got, node)) = self.note_shard(conn) else { return };
        let pool = self.pool_mut(node);
        if let (Some(a), Some(known)) = (asked, pool.sharding.as_mut()) {
            if a != got && !known.port_unusable {
                known.port_unusable = true;
                let message = format!(
                    "{}: asked the shard-aware port for shard {a} and got shard {got}: a NAT rewrites source ports; using the regular port",
                    pool.address
                );
                self.events.push_back(EventOut::Log(message));
            }
        }
        if asked.is_none() && Some(conn) != self.control && self.shard_crowded(node, conn, got) {
            let may_retry = self.pools[node as usize]
                .sharding
                .is_some_and(|s| s.blind_attempts < BLIND_ATTEMPTS_PER_SHARD * u32::from(s.nr_shards));
            if may_retry {
                self.close_conn(conn);
            }
        }
        self.fill_pool(node);
    }

    /// Whether `shard` already has its share of ready connections besides `conn`.
    fn shard_crowded(&self, node: u32, conn: ConnId, shard: u16) -> bool {
        let Some(pool) = self.pools.get(node as usize) else { return false };
        let others = pool
            .conns
            .iter()
            .filter(|&&id| id != conn)
            .filter_map(|&id| self.conn(id))
            .filter(|c| c.status == ConnStatus::Ready && c.shard == Some(shard))
            .count();
        others >= self.config.connections_per_node.max(1)
    }

    /// Opens connections for the shards a sharded node's pool lacks; false when the node is
    /// not (yet) known to be sharded.
    pub(super) fn fill_sharded_pool(&mut self, node: u32) -> bool {
        if self.pools.get(node as usize).is_some_and(|p| p.sharding.is_none()) {
            // Connections that were ready before the topology named their node.
            let conns = self.pools[node as usize].conns.clone();
            for id in conns {
                self.note_shard(id);
            }
        }
        let Some(s) = self.pools.get(node as usize).and_then(|p| p.sharding) else { return false };
        let slots: Vec<PoolSlot> = self.pools[node as usize]
            .conns
            .iter()
            .filter_map(|&id| self.conn(id))
            .filter(|c| c.status != ConnStatus::Closed)
            .map(|c| match (c.shard, c.asked_shard) {
                // Its SUPPORTED named its shard: the handshake is done, or nearly (a pool
                // learning its sharding notes connections still handshaking).
                (Some(x), _) => PoolSlot::On(x),
                // Asked with the count in force: it will serve that shard.
                (_, Some(t)) if t.nr_shards == s.nr_shards => PoolSlot::Asking(t.shard),
                _ => PoolSlot::Blind,
            })
            .collect();
        let address = self.pools[node as usize].address.clone();
        let per_shard = self.config.connections_per_node.max(1);
        let port = s.shard_aware_port.filter(|_| self.config.can_bind_local_port && !s.port_unusable);
        for shard in missing_shards(&slots, s.nr_shards, per_shard) {
            match port {
                Some(port) => {
                    let target = ShardTarget { shard, nr_shards: s.nr_shards };
                    self.open_shard_conn(address.clone(), node, with_port(&address, port), target);
                }
                None => {
                    let Some(known) = self.pools[node as usize].sharding.as_mut() else { break };
                    if known.blind_attempts >= BLIND_ATTEMPTS_PER_SHARD * u32::from(known.nr_shards) {
                        break;
                    }
                    known.blind_attempts += 1;
                    self.open_conn(address.clone(), Some(node));
                }
            }
        }
        true
    }

    /// A connection to the shard-aware port `dial`, asking for `target.shard`; it belongs to
    /// the node at `address` like any other.
    fn open_shard_conn(&mut self, address: String, node: u32, dial: String, target: ShardTarget) {
        let id = self.open_conn(address, Some(node));
        if let Some(c) = self.conn_mut(id) {
            c.asked_shard = Some(target);
        }
        if let Some(Command::Connect { address, shard, .. }) = self.commands.back_mut() {
            *address = dial;
            *shard = Some(target);
        }
    }
}
