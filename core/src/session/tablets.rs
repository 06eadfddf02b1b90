//! Tablet routing for Scylla tables that use tablets: the session keeps the tablet map that
//! `tablets-routing-v1` payloads fill, and sends a request on a tablet table to a replica of
//! its tablet (on that replica's shard) ahead of the token ring's plan.

use super::{ConnId, Session, SessionRequestId};
use crate::cluster::tablet_from_response;

impl Session {
    /// The interned id of `keyspace.table`.
    pub(super) fn intern_table(&mut self, keyspace: u32, table: &str) -> u32 {
        if let Some(i) = self.table_names.iter().position(|(k, t)| *k == keyspace && t == table) {
            return i as u32;
        }
        self.table_names.push((keyspace, table.to_owned()));
        (self.table_names.len() - 1) as u32
    }

    /// The tablet replica (node id, shard) a request should try first, rotated among the
    /// tablet's live replicas; `None` for a table whose tablet we have not been told of.
    pub(super) fn tablet_target(&self, table: Option<u32>, token: Option<i64>, rotation: u32) -> Option<(u32, u16)> {
        let tablet = self.tablets.lookup(table?, token?)?;
        let live = |r: &&crate::cluster::TabletReplica| {
            self.view.nodes().find(|n| n.host_id == r.host_id).filter(|n| n.up).map(|n| (n.id, r.shard))
        };
        let replicas: Vec<(u32, u16)> = tablet.replicas.iter().filter_map(|r| live(&r)).collect();
        let n = replicas.len() as u32;
        if n == 0 {
            return None;
        }
        replicas.get((rotation % n) as usize).copied()
    }

    /// Sends the request to its tablet replica when it has one; false when it has none or
    /// that replica has no ready connection (the ring's plan then goes on).
    pub(super) fn send_to_tablet_replica(&mut self, now: u64, req_id: SessionRequestId) -> bool {
        let Some(req) = self.req_mut(req_id) else { return false };
        let Some((node, shard)) = req.tablet.take() else { return false };
        if let Some(cursor) = req.cursor.as_mut() {
            // The ring's plan must not send a retry to the replica that just failed.
            cursor.mark_visited(node);
        }
        let Some(conn) = self.pick_conn_on_shard(node, Some(shard)) else { return false };
        let sent = self.send_on(now, req_id, conn, super::Purpose::User { req: req_id });
        if sent {
            *self.metrics.decisions.get_or_insert("tablet replica", 0) += 1;
        }
        sent
    }

    /// Keeps the tablet a response's custom payload describes for the request's table. A
    /// payload we cannot decode is logged and otherwise ignored: the answer itself is good.
    pub(super) fn learn_tablet(&mut self, table: Option<u32>, conn: ConnId, frame_flags: u8, start: usize, end: usize) {
        // Most answers carry no payload at all: known before reaching for the connection.
        let Some(table) = table.filter(|_| frame_flags & crate::frame::flags::CUSTOM_PAYLOAD != 0) else { return };
        let Some(c) = self.conn(conn) else { return };
        match tablet_from_response(c.inner.arena_slice(start, end), frame_flags) {
            Ok(Some(tablet)) => {
                *self.metrics.decisions.get_or_insert("tablet learned", 0) += 1;
                self.tablets.insert(table, tablet);
            }
            Ok(None) => {}
            Err(e) => self.events.push_back(super::EventOut::Log(format!("tablets-routing-v1 payload ignored: {e}"))),
        }
    }

    /// A schema change in `keyspace` may have dropped and recreated its tables.
    pub(super) fn forget_tablets_of(&mut self, keyspace: &str) {
        let Some(ks) = self.keyspace_names.iter().position(|k| k == keyspace) else { return };
        let names = &self.table_names;
        self.tablets.retain_tables(|t| names.get(t as usize).is_none_or(|(k, _)| *k as usize != ks));
    }
}
