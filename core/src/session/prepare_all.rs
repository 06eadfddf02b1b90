//! The DataStax driver's `prepareOnAllHosts` and `rePrepareOnUp`: a statement prepared on one
//! node is prepared on the other connected nodes too, and again on a node that comes back,
//! so its first EXECUTE there does not pay an UNPREPARED round trip. Nobody waits for these
//! answers: a node that refuses still gets the lazy re-prepare on UNPREPARED.

use super::{ConnId, Purpose, Session};
use crate::connection::{encode_body, Request};
use crate::frame::Opcode;

impl Session {
    /// After PREPARE (`body`) was answered on `answered`: the same PREPARE to every other node
    /// with a ready connection.
    pub(super) fn prepare_on_other_nodes(&mut self, now: u64, body: &[u8], answered: ConnId) {
        if !self.config.prepare_on_all_hosts {
            return;
        }
        let skip = self.conn(answered).and_then(|c| c.node);
        for node in 0..self.pools.len() as u32 {
            if Some(node) == skip {
                continue;
            }
            if let Some(conn) = self.pick_conn(node, None) {
                self.send_unawaited(now, conn, Opcode::Prepare, body);
            }
        }
    }

    /// A node came back up on `conn`: every statement this session prepared, prepared there.
    pub(super) fn reprepare_on_up(&mut self, now: u64, conn: ConnId) {
        if !self.config.reprepare_on_up || self.prepared.is_empty() {
            return;
        }
        let version = self.config.connection.protocol_version;
        let statements: Vec<String> = self.prepared.values().map(|m| m.cql.clone()).collect();
        let mut body = Vec::new();
        for cql in statements {
            body.clear();
            if encode_body(&mut body, version, &Request::Prepare { cql: &cql, keyspace: None }).is_ok() {
                self.send_unawaited(now, conn, Opcode::Prepare, &body);
            }
        }
    }

    fn send_unawaited(&mut self, now: u64, conn: ConnId, opcode: Opcode, body: &[u8]) {
        if let Some(c) = self.conn_mut(conn) {
            // No free stream id: skip, the lazy re-prepare covers it.
            if let Ok(id) = c.inner.start_encoded(now, opcode, 0, body, None) {
                c.in_flight.insert(id, Purpose::Internal);
            }
        }
    }
}
