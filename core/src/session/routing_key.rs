//! The partition key of a bound value list, found in the same pass that checks the list
//! (`message::walk_values`): an EXECUTE's values are read once per request, not once to
//! check them and again to route (issue #17).

use crate::cluster::{murmur3_token, routing_token};
use crate::connection::{local_error, LocalError};
use crate::error::ProtocolError;
use crate::message::walk_values;

/// A composite partition key of more columns than this is not routed (no allocation per
/// request: the components live in a fixed array).
const MAX_COMPONENTS: usize = 16;

/// The key components of one value list, by the statement's partition-key indexes.
struct KeyParts<'a, 'k> {
    pk_indexes: &'k [u16],
    components: [&'a [u8]; MAX_COMPONENTS],
    /// Components present; a null or unset one is not counted, so such a key is not routed.
    found: usize,
}

impl<'a, 'k> KeyParts<'a, 'k> {
    fn new(pk_indexes: &'k [u16]) -> Self {
        KeyParts { pk_indexes, components: [&[]; MAX_COMPONENTS], found: 0 }
    }

    fn visit(&mut self, i: usize, value: Option<&'a [u8]>) {
        let pos = self.pk_indexes.iter().position(|&p| p as usize == i);
        if let (Some(slot), Some(v)) = (pos.and_then(|pos| self.components.get_mut(pos)), value) {
            *slot = v;
            self.found += 1;
        }
    }

    fn token(&self) -> Option<i64> {
        let n = self.pk_indexes.len();
        if n == 0 || self.found != n {
            return None;
        }
        routing_token(self.components.get(..n)?).ok()
    }
}

/// Checks `values` (see `message::check_values`) and, in the same pass, computes the routing
/// token of the partition key at `pk_indexes` (`None` when a component is null, unset or
/// absent, or the key has more than 16 columns).
pub(crate) fn check_values_and_token(values: &[u8], pk_indexes: &[u16]) -> Result<Option<i64>, LocalError> {
    walk_for_token(values, pk_indexes).map_err(local_error)
}

fn walk_for_token(values: &[u8], pk_indexes: &[u16]) -> Result<Option<i64>, ProtocolError> {
    match pk_indexes {
        [only] => {
            // The common key of one column, kept without the composite's array to fill.
            let (only, mut key) = (*only as usize, None);
            walk_values(values, |i, v| {
                if i == only {
                    key = v;
                }
            })?;
            Ok(key.map(murmur3_token))
        }
        _ if pk_indexes.len() > MAX_COMPONENTS => walk_values(values, |_, _| {}).map(|_| None),
        _ => {
            let mut parts = KeyParts::new(pk_indexes);
            walk_values(values, |i, v| parts.visit(i, v))?;
            Ok(parts.token())
        }
    }
}

/// The routing token of an EXECUTE's values, by the prepared partition-key indexes; `None`
/// also for a malformed list. Allocation-free: components live in a fixed array.
pub fn token_from_values(values: &[u8], pk_indexes: &[u16]) -> Option<i64> {
    walk_for_token(values, pk_indexes).ok().flatten()
}
