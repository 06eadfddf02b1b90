//! An UNPREPARED answer: the node lost a statement this session prepared (it restarted, its
//! cache evicted the statement, or a schema change dropped it). As DataStax's and Scylla's
//! drivers do, the session prepares the statement again on that node and sends the request
//! again there, for an EXECUTE and for a BATCH of prepared statements alike.

use super::{ConnId, Session, SessionRequestId};
use crate::frame::Opcode;
use crate::message::ErrorDetails;
use crate::wire::Reader;

/// Re-preparations a request may make beyond one per distinct statement it holds: a statement
/// evicted again by a schema change in progress may need more than one, but not forever.
const EXTRA_REPREPARES: usize = 2;

/// At most this many distinct statements of a batch count towards its re-preparations: each
/// one sends the whole batch again, and a batch rarely mixes more statements than this.
const MAX_COUNTED_STATEMENTS: usize = 16;

impl Session {
    /// Prepares again, on `conn`'s node, the statement an UNPREPARED answer to `req_id` names;
    /// the request goes again once that is done. False when there is nothing to prepare: the
    /// request holds no such statement, this session never prepared it, or the request has
    /// spent its re-preparations. The error then goes on as any other.
    #[inline(never)] // cold: see process_conn_events
    pub(super) fn reprepare_lost(&mut self, now: u64, req_id: SessionRequestId, conn: ConnId, details: &ErrorDetails) -> bool {
        let named = match details {
            ErrorDetails::Unprepared { unprepared_id } => Some(unprepared_id.as_slice()),
            _ => None,
        };
        let Some(req) = self.req(req_id) else { return false };
        let Some((id, distinct)) = statement_to_reprepare(req.opcode, &req.body, named) else { return false };
        let cap = distinct.saturating_add(EXTRA_REPREPARES).min(usize::from(u16::MAX));
        if usize::from(req.reprepares) >= cap {
            return false;
        }
        let Some(cql) = self.prepared.get(id).map(|meta| meta.cql.clone()) else { return false };
        let Some(req) = self.req_mut(req_id) else { return false };
        req.reprepares += 1;
        // The node's error is not the request's: it is answered by preparing.
        req.errors.pop();
        self.metrics.reprepares += 1;
        self.reprepare(now, req_id, conn, &cql);
        true
    }
}

/// The statement to prepare again for an UNPREPARED answer to a request (`opcode`, `body`),
/// with the number of distinct prepared statements the request holds (what bounds its
/// re-preparations; at most [`MAX_COUNTED_STATEMENTS`]): an EXECUTE's own statement, or the
/// one `named` by the error when the BATCH holds it. None for any other request, a batch
/// without that statement, or a body that does not read (the session wrote it, so that is not
/// expected).
pub(crate) fn statement_to_reprepare<'a>(opcode: Opcode, body: &'a [u8], named: Option<&[u8]>) -> Option<(&'a [u8], usize)> {
    match opcode {
        Opcode::Execute => Reader::new(body).short_bytes("execute id").ok().map(|id| (id, 1)),
        Opcode::Batch => {
            let named = named?;
            let mut held = None;
            let mut distinct: Vec<&[u8]> = Vec::new();
            walk_batch_ids(body, |id| {
                if id == named {
                    held = Some(id);
                }
                if distinct.len() < MAX_COUNTED_STATEMENTS && !distinct.contains(&id) {
                    distinct.push(id);
                }
            })?;
            Some((held?, distinct.len()))
        }
        _ => None,
    }
}

/// Hands `visit` the id of each prepared statement of a BATCH body, in order, repeats
/// included; None when the statements do not read. Each statement takes at least 5 bytes, so
/// the walk ends within the bytes present whatever the count says.
fn walk_batch_ids<'a>(body: &'a [u8], mut visit: impl FnMut(&'a [u8])) -> Option<()> {
    let mut r = Reader::new(body);
    r.u8("batch type").ok()?;
    let count = r.u16("batch count").ok()?;
    for _ in 0..count {
        match r.u8("statement kind").ok()? {
            0 => drop(r.long_string("statement query").ok()?),
            1 => visit(r.short_bytes("statement id").ok()?),
            _ => return None,
        }
        let values = r.u16("values count").ok()?;
        for _ in 0..values {
            // A negative length (null, unset) has no bytes.
            if let Ok(len) = usize::try_from(r.i32("value length").ok()?) {
                r.bytes(len, "value").ok()?;
            }
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{write_batch, BatchStatement, BatchType, QueryOptions};
    use crate::wire::Writer;

    fn batch(statements: &[BatchStatement]) -> Vec<u8> {
        let mut body = Vec::new();
        write_batch(&mut Writer::new(&mut body), 4, BatchType::Logged, statements, &QueryOptions::default());
        body
    }

    const TWO_VALUES: &[u8] = &[0, 2, 0, 0, 0, 1, 7, 0xFF, 0xFF, 0xFF, 0xFF];

    #[test]
    fn a_batch_names_the_statement_the_error_names_and_counts_its_distinct_statements() {
        let body = batch(&[
            BatchStatement::Prepared { id: b"a", values: TWO_VALUES },
            BatchStatement::Query { cql: "INSERT INTO t (k) VALUES (1)", values: &[] },
            BatchStatement::Prepared { id: b"bb", values: TWO_VALUES },
            BatchStatement::Prepared { id: b"a", values: &[] },
        ]);
        assert_eq!(statement_to_reprepare(Opcode::Batch, &body, Some(b"bb")), Some((&b"bb"[..], 2)));
        assert_eq!(statement_to_reprepare(Opcode::Batch, &body, Some(b"a")), Some((&b"a"[..], 2)));
        assert_eq!(statement_to_reprepare(Opcode::Batch, &body, Some(b"c")), None);
        assert_eq!(statement_to_reprepare(Opcode::Batch, &body, None), None);
    }

    #[test]
    fn at_most_sixteen_distinct_statements_count() {
        let ids: Vec<[u8; 2]> = (0..40u8).map(|i| [b'x', i]).collect();
        let statements: Vec<BatchStatement> =
            ids.iter().chain(&ids).map(|id| BatchStatement::Prepared { id, values: &[] }).collect();
        let body = batch(&statements);
        assert_eq!(statement_to_reprepare(Opcode::Batch, &body, Some(b"x\x27")), Some((&b"x\x27"[..], 16)));
        assert_eq!(statement_to_reprepare(Opcode::Batch, &body, Some(b"x\x00")), Some((&b"x\x00"[..], 16)));
    }

    #[test]
    fn an_execute_names_its_own_statement_whatever_the_error_says() {
        let mut body = vec![0, 2];
        body.extend_from_slice(b"id");
        body.extend_from_slice(&[0, 1, 0]);
        assert_eq!(statement_to_reprepare(Opcode::Execute, &body, Some(b"other")), Some((&b"id"[..], 1)));
        assert_eq!(statement_to_reprepare(Opcode::Execute, &[0], None), None);
        assert_eq!(statement_to_reprepare(Opcode::Query, &body, Some(b"id")), None);
    }

    #[test]
    fn a_batch_body_that_does_not_read_names_nothing() {
        let body = batch(&[BatchStatement::Prepared { id: b"a", values: TWO_VALUES }]);
        // Cut anywhere in the statements (the options after them are not read).
        let statements_end = 3 + 1 + 2 + 1 + TWO_VALUES.len();
        assert_eq!(statement_to_reprepare(Opcode::Batch, &body[..statements_end], Some(b"a")), Some((&b"a"[..], 1)));
        for cut in 0..statements_end {
            assert_eq!(statement_to_reprepare(Opcode::Batch, &body[..cut], Some(b"a")), None, "cut at {cut}");
        }
        let mut wrong_kind = body.clone();
        wrong_kind[3] = 2;
        assert_eq!(statement_to_reprepare(Opcode::Batch, &wrong_kind, Some(b"a")), None);
        // A count far beyond the bytes present stops at their end.
        let mut huge = body;
        huge[1..3].copy_from_slice(&u16::MAX.to_be_bytes());
        assert_eq!(statement_to_reprepare(Opcode::Batch, &huge, Some(b"a")), None);
    }
}
