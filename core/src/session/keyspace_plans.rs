//! Each interned keyspace's place among the view's precomputed plans, resolved once per
//! keyspace mapping of the view rather than looked up by name for every request (issue #17).

use super::Session;
use crate::cluster::KeyspacePlans;

/// The resolutions, valid for one `ClusterView::keyspace_mapping`.
#[derive(Default)]
pub(super) struct KeyspacePlansCache {
    mapping: u64,
    /// By interned keyspace id; grows only up to the number of interned names.
    resolved: Vec<Option<KeyspacePlans>>,
}

impl Session {
    /// Where the plans of interned keyspace `keyspace` are in the view.
    pub(super) fn keyspace_plans(&mut self, keyspace: u32) -> KeyspacePlans {
        let cache = &mut self.keyspace_plans;
        let mapping = self.view.keyspace_mapping();
        if cache.mapping != mapping {
            cache.mapping = mapping;
            cache.resolved.clear();
        }
        let i = keyspace as usize;
        if let Some(Some(known)) = cache.resolved.get(i) {
            return *known;
        }
        let name = self.keyspace_names.get(i).map(String::as_str).unwrap_or("");
        let plans = self.view.keyspace_plans(name);
        // `keyspace` is an interned id: the table grows no further than the interned names,
        // and `i` is in range once it has grown.
        let len = cache.resolved.len().max(i + 1);
        cache.resolved.resize(len, None);
        cache.resolved[i] = Some(plans);
        plans
    }
}
