//! Cluster awareness: the decisions a session makes about nodes, with no I/O and no clock.
//!
//! Everything here is a pure function of what the session feeds in: decoded system-table
//! rows, server events, errors, a `now` in µs and a seed. Nothing reads a clock or the OS's
//! randomness, so a test can replay any scenario exactly.
//!
//! # How the session layer uses it
//!
//! **Metadata.** On the control connection, the session reads `system.local` and
//! `system.peers_v2` (falling back to `system.peers` on servers without it), decodes the rows
//! into [`PeerRow`]s and calls [`ClusterView::apply_topology`] with the address it is
//! connected to and the default native port. It then reads `system_schema.keyspaces` into
//! [`KeyspaceRow`]s and calls [`ClusterView::apply_keyspaces`]. Each `apply_*` returns an
//! [`Applied`]: whether anything changed, whether the plans were rebuilt (the
//! [`ClusterView::epoch`] then advanced) and which rows were skipped and why (log those).
//! Node ids are dense, stable while a node stays, and index the session's pool table.
//!
//! **Events.** The session registers for TOPOLOGY_CHANGE, STATUS_CHANGE and SCHEMA_CHANGE,
//! decodes each EVENT into a [`ClusterEvent`] (addresses via [`format_address`]) and asks
//! [`decide_event`]. [`RefreshAction::Peers`] and [`RefreshAction::Keyspace`] mean "query,
//! then apply" (the session debounces these on its own timers);
//! [`RefreshAction::MarkUp`] / [`RefreshAction::MarkDown`] go straight to
//! [`ClusterView::set_up`], which never rebuilds plans. The session also marks a node down
//! itself when its pool loses every connection, and up when one reconnects.
//!
//! **Routing a request.** For a bound statement whose partition key is known, the session
//! computes the token with [`routing_token`] (or [`murmur3_token`] of a [`routing_key`]) and
//! asks [`ClusterView::plan_for`] with the keyspace, the token and a rotation (a per-session
//! counter, or a value from a [`SplitMix64`] seeded by the host). An LWT uses
//! [`ClusterView::plan_for_lwt`] instead, which always puts the first replica first. The
//! first node of the plan costs no allocation; the session sends there, and keeps
//! [`PlanIter::into_cursor`] in the request's state. [`PlanIter::kind`] says why the plan is
//! shaped as it is, for the trace.
//!
//! **Failures.** When an attempt fails, the session classifies the error into an
//! [`ErrorKind`] and calls [`RetryPolicy::decide`] with the attempt number (0 for the first
//! try), idempotence and whether it is an LWT. `RetryNextNode` resumes the cursor with
//! [`ClusterView::resume`] and takes its next node (`None` there means "no node left": fail
//! with every attempt's error); `RetrySameNode` resends to the same node; `Rethrow` fails the
//! request; `Ignore` completes it with an empty result. The [`Decision::reason`] goes into the
//! request's trace and is counted in metrics.
//!
//! **Speculative executions.** For an idempotent request the session asks
//! [`SpeculativePolicy::next_delay`] when it sends an execution; `Some(delay)` means "arm a
//! timer at now + delay, and if no response has come by then, send to the next node of the
//! same cursor". The first response wins; the others are cancelled (their stream ids become
//! orphans).
//!
//! **Reconnection.** Each node's pool owns a [`Backoff`] seeded with
//! `SplitMix64::derive(host_seed, node_id)`. After a failed connection attempt the session
//! waits [`Backoff::next_delay`] µs (a timer at `now + delay`) before the next one, and calls
//! [`Backoff::reset`] once a connection is ready.

mod backoff;
mod events;
mod murmur3;
mod placement;
mod plan;
mod retry;
mod ring;
mod rng;
mod shard;
mod tablets;
mod topology;
mod view;

pub use backoff::{Backoff, Jitter};
pub use events::{decide_event, ClusterEvent, RefreshAction, SchemaTarget, StatusChange, TopologyChange};
pub use murmur3::{murmur3_token, routing_key, routing_key_into, routing_token, Murmur3Hasher};
pub use plan::{PlanCursor, PlanIter, PlanKind, PolicyConfig, MAX_NODES};
pub use retry::{ErrorKind, RetryDecision, RetryPolicy, SpeculativePolicy, WriteType, NOT_RESENT};
pub use rng::SplitMix64;
pub use shard::{missing_shards, shard_of, PoolSlot};
pub use tablets::{decode_tablet, encode_tablet, tablet_from_response, Tablet, TabletMap, TabletReplica, TABLETS_ROUTING_V1_PAYLOAD};
pub use topology::{format_address, split_address, Distance, KeyspaceRow, Node, PeerRow, Replication, SkippedRow};
pub use view::{Applied, ClusterView, KeyspacePlans};

/// A decision with the reason it was taken, for the request trace and for metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Decision<T> {
    pub value: T,
    pub reason: &'static str,
}
