//! The session: pools of connections to a cluster's nodes, cluster metadata, token-aware
//! routing, retries, speculative executions and reconnection. Sans-IO like a
//! [`Connection`]: the host opens and closes sockets when told to, feeds bytes and time in,
//! and drains outputs.
//!
//! - Inputs: [`Session::handle_connected`], [`Session::handle_connect_failed`],
//!   [`Session::handle_bytes`], [`Session::handle_eof`], [`Session::handle_timeout`].
//! - Commands: [`Session::start`], [`Session::start_request`], [`Session::cancel`].
//! - Outputs, drained after every input or command, in this order:
//!   [`Session::poll_command`] (sockets to open or close), [`Session::poll_transmit`] (bytes
//!   per connection), [`Session::poll_timeout`], [`Session::poll_event`].
//!
//! One request is encoded once; each attempt (a retry, or a speculative execution) copies
//! those bytes to the chosen connection. The first target of a plan costs no allocation.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::cluster::{
    routing_token, Backoff, ClusterEvent, ClusterView, Distance, ErrorKind, Jitter, KeyspaceRow,
    PeerRow, PlanCursor, PolicyConfig, RefreshAction, RetryDecision, RetryPolicy, SchemaTarget, SpeculativePolicy,
    SplitMix64, StatusChange, TopologyChange, WriteType, NOT_RESENT,
};
use crate::connection::{check_request, encode_body, local_error, request_kind, write_body, AuthStep, CloseReason, Config, Connection, EventRec, LocalError, Request, RequestError, State};
use crate::frame::Opcode;
use crate::message::{self, ErrorDetails, QueryOptions, ServerEvent};
use crate::name_map::NameMap;
use crate::rows::{cell, Rows};
use crate::wire::Reader;

mod in_flight;
mod node_error;
mod shards;
mod tablets;
pub use node_error::NodeError;
mod prepare_all;
mod keyspace_plans;
mod prepared;
mod refresh_debounce;
mod routing_key;
mod unprepared;
use routing_key::check_values_and_token;
pub use routing_key::token_from_values;
pub use shards::ShardTarget;

pub type ConnId = u32;
pub type SessionRequestId = u32;

#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// The template for every connection (protocol version, credentials, timeouts).
    pub connection: Config,
    pub connections_per_node: usize,
    pub policy: PolicyConfig,
    pub retry: RetryPolicy,
    pub speculative: Option<SpeculativePolicy>,
    /// Seeds replica rotation and reconnection jitter; supplied by the host.
    pub seed: u64,
    pub reconnect_base_us: u64,
    pub reconnect_max_us: u64,
    /// Open pools to nodes discovered through `system.peers`; when false, only to the
    /// contact points.
    pub discover_peers: bool,
    pub default_port: u16,
    /// How long an answer to a schema change waits for every live node to agree.
    pub schema_agreement_timeout_us: u64,
    /// The host can bind a chosen local port (Node can; Deno and Workers cannot), so a
    /// connection to Scylla's shard-aware port can ask for a shard.
    pub can_bind_local_port: bool,
    /// Connections are TLS: Scylla's shard-aware port is then `SCYLLA_SHARD_AWARE_PORT_SSL`.
    pub tls: bool,
    /// A statement prepared on one node is prepared on every connected node too.
    pub prepare_on_all_hosts: bool,
    /// A node that comes back up gets every prepared statement again.
    pub reprepare_on_up: bool,
    /// How long TOPOLOGY_CHANGE and SCHEMA_CHANGE events are gathered into one refresh of
    /// the cluster view (DataStax's `refreshSchemaDelay`); 0 refreshes at each event.
    pub refresh_delay_us: u64,
    /// `Ready` waits until every local node's pool has a connection up or has failed its
    /// first one (DataStax's `pooling.warmup`, on by default there too), so requests made
    /// right after connecting spread over the cluster instead of all going to the control
    /// node. Each attempt has its connect and handshake deadlines: the wait is bounded.
    pub warmup: bool,
}

impl Default for SessionConfig {
    fn default() -> Self {
        Self {
            connection: Config::default(),
            connections_per_node: 1,
            policy: PolicyConfig::default(),
            retry: RetryPolicy::default(),
            speculative: None,
            seed: 0,
            reconnect_base_us: 200_000,
            reconnect_max_us: 30_000_000,
            discover_peers: true,
            default_port: 9042,
            schema_agreement_timeout_us: 10_000_000,
            can_bind_local_port: false,
            tls: false,
            prepare_on_all_hosts: false,
            reprepare_on_up: false,
            refresh_delay_us: 1_000_000,
            warmup: true,
        }
    }
}

/// What the host must do with sockets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `shard`: on Scylla's shard-aware port, the shard this connection is for; the host
    /// binds a local port `p` with `p % nr_shards == shard`.
    Connect {
        conn: ConnId,
        address: String,
        shard: Option<ShardTarget>,
    },
    Close {
        conn: ConnId,
    },
}

/// One step of a request's history: where it went and why.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TraceEntry {
    pub node: String,
    pub decision: &'static str,
    pub reason: &'static str,
}

/// A request's final failure, with every attempt's error.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SessionError {
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub error: RequestError,
    pub node: String,
    pub attempts: u32,
    /// No node was left to try; `errors` says what each tried node answered.
    pub no_host_available: bool,
    pub errors: Vec<NodeError>,
    pub trace: Vec<TraceEntry>,
}

#[derive(Debug)]
pub enum SessionEvent<'a> {
    Ready { protocol_version: u8 },
    /// Not one contact point could be reached; `errors` holds each one's reason.
    ConnectFailed { errors: Vec<(String, CloseReason)> },
    /// `node_id` indexes the cluster view's nodes (`u32::MAX` before the topology is known).
    Response { id: SessionRequestId, frame_flags: u8, body: &'a [u8], node: &'a str, node_id: u32, attempts: u32 },
    Failed { id: SessionRequestId, error: SessionError },
    NodeUp { address: String },
    NodeDown { address: String, reason: String },
    /// A refresh of the topology after the start added or removed a node: `view().nodes()`
    /// has the new set (a host lists its nodes again, as DataStax's hostAdd/hostRemove do).
    NodesChanged,
    ServerEvent(ServerEvent),
    /// Something the host may want to log (rows skipped by the topology, refresh failures).
    Log { message: String },
    /// A SASL step of connection `conn` to `address` for the host's authenticator
    /// (`Config::host_authenticator`); answer Start and Challenge with [`Session::auth_answer`].
    Auth { conn: ConnId, address: String, step: AuthStep },
}

enum EventOut {
    Ready,
    ConnectFailed(Vec<(String, CloseReason)>),
    Response { id: SessionRequestId, conn: ConnId, frame_flags: u8, start: usize, end: usize, attempts: u32 },
    /// A response the session made up (an ignored error completes with RESULT Void).
    Synthetic { id: SessionRequestId, body: &'static [u8], node: u32 },
    /// A response held back (a schema change waiting for agreement), copied out of its
    /// connection's arena.
    Owned { id: SessionRequestId, frame_flags: u8, body: Vec<u8>, node: u32, attempts: u32 },
    Failed { id: SessionRequestId, error: SessionError },
    NodeUp(String),
    NodeDown(String, String),
    NodesChanged,
    ServerEvent(ServerEvent),
    Log(String),
    Auth(ConnId, String, AuthStep),
}

const VOID_RESULT: &[u8] = &[0, 0, 0, 1];
/// How often a request may find no usable node and wait for one (the backoff doubles from
/// the reconnection base to 2 s: about 10 s in all). Attempts actually sent stay bounded by
/// the retry policy.
const MAX_PLAN_RESTARTS: u32 = 8;
const SCHEMA_AGREEMENT_POLL_US: u64 = 200_000;
const NO_NODE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ControlQuery {
    Local,
    PeersV2,
    Peers,
    Keyspaces,
    /// Schema versions, while a DDL statement's answer waits for agreement.
    SchemaVersions,
    SchemaLocal,
    /// REGISTER for topology, status and schema events (answered READY, not rows).
    Register,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Purpose {
    User { req: SessionRequestId },
    Reprepare { req: SessionRequestId },
    Control(ControlQuery),
    Internal,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ConnStatus {
    Connecting,
    Handshaking,
    Ready,
    Closed,
}

struct Conn {
    id: ConnId,
    inner: Connection,
    address: String,
    node: Option<u32>,
    status: ConnStatus,
    in_flight: in_flight::InFlight,
    /// Draining, and a fresh connection already took its place in the pool.
    replaced: bool,
    /// The shard (and the node's shard count it was computed with) asked for through the
    /// shard-aware port.
    asked_shard: Option<ShardTarget>,
    /// The Scylla shard serving it, once its handshake is done.
    shard: Option<u16>,
}

#[derive(Default)]
struct Pool {
    address: String,
    conns: Vec<ConnId>,
    backoff: Option<Backoff>,
    retry_at: Option<u64>,
    down_reported: bool,
    /// A Scylla node's shards, learned from its first connection.
    sharding: Option<shards::NodeShards>,
}

/// How an answered request got its answer, beyond its first execution.
#[derive(Debug, Default, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Tried {
    /// What each node tried before the one that answered said.
    pub errors: Vec<NodeError>,
    pub speculative_executions: u32,
    /// Microseconds from the answering execution being sent to its answer.
    pub answered_in_us: u64,
}

pub struct PreparedMeta {
    pub cql: String,
    keyspace: Option<u32>,
    /// The interned table (see `Session::intern_table`), for tablet routing.
    table: Option<u32>,
    pub pk_indexes: Vec<u16>,
    pub lwt: bool,
    /// Bind marker names and types, in order (what a bulk load encodes rows against).
    pub bind_columns: Vec<(String, crate::types::ColumnType)>,
}

struct Req {
    id: SessionRequestId,
    body: Vec<u8>,
    opcode: Opcode,
    flags: u8,
    timeout_us: Option<u64>,
    keyspace: Option<u32>,
    token: Option<i64>,
    table: Option<u32>,
    /// The tablet replica (node, shard) to try before the plan, once.
    tablet: Option<(u32, u16)>,
    cursor: Option<PlanCursor>,
    /// Times the plan ran out and was started again after a backoff.
    restarts: u32,
    /// Executions actually sent: what `attempts` reports.
    sent: u32,
    attempt: u32,
    idempotent: bool,
    lwt: bool,
    /// Each execution in flight: its connection, its stream request and when it was sent.
    executions: Vec<(ConnId, u32, u64)>,
    speculative_started: u32,
    node: u32,
    /// Re-preparations so far, bounded by the statements the request holds
    /// (`session/unprepared.rs`).
    reprepares: u16,
    trace: Vec<TraceEntry>,
    errors: Vec<NodeError>,
}

/// Where a request goes: its interned keyspace and table, its token, and whether it is an LWT.
type Routing = (Option<u32>, Option<u32>, Option<i64>, bool);

/// A request as the host describes it.
pub struct RequestSpec<'a> {
    pub request: Request<'a>,
    pub idempotent: bool,
    /// Routes to the replicas of this token, overriding what the values say (token-range
    /// scans bind no partition key).
    pub token: Option<i64>,
    /// For an unprepared statement: the routing key (already serialised as Cassandra's
    /// partitioner expects it) and its keyspace.
    pub routing_key: Option<&'a [u8]>,
    pub keyspace: Option<&'a str>,
    pub timeout_us: Option<u64>,
    /// The handle of an EXECUTE's statement ([`Session::prepared_handle`]): its metadata is
    /// then found by index rather than by hashing the id. Checked against the id.
    pub prepared: Option<u32>,
}

impl<'a> RequestSpec<'a> {
    /// `request` as is: not idempotent, routed by what its values say, the session's timeout.
    pub fn new(request: Request<'a>) -> Self {
        RequestSpec { request, idempotent: false, token: None, routing_key: None, keyspace: None, timeout_us: None, prepared: None }
    }

    /// A PREPARE, which is idempotent: preparing twice gives the same id.
    pub fn prepare(cql: &'a str, keyspace: Option<&'a str>) -> Self {
        RequestSpec { idempotent: true, ..Self::new(Request::Prepare { cql, keyspace }) }
    }
}

#[derive(Debug, Default, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Metrics {
    pub requests: u64,
    pub responses: u64,
    pub failures: u64,
    pub retries: u64,
    pub speculative_executions: u64,
    pub client_timeouts: u64,
    pub no_host_available: u64,
    pub reprepares: u64,
    pub connections_opened: u64,
    pub connections_closed: u64,
    /// Connections replaced because too many of their stream ids were orphaned.
    pub connections_recycled: u64,
    /// How often each decision was taken, by its reason.
    pub decisions: NameMap<u64>,
    /// Attempts sent to each node.
    pub per_node: NameMap<u64>,
}

/// Request bodies larger than this are freed when their request ends instead of pooled:
/// ordinary requests reuse pooled bodies, one burst of large ones must not pin its memory.
const POOLED_BODY_KEEP: usize = 64 * 1024;

pub struct Session {
    config: SessionConfig,
    view: ClusterView,
    rng: SplitMix64,
    contact_points: Vec<String>,
    started: bool,
    /// The first topology is applied: requests can be routed.
    ready: bool,
    /// Ready, but not announced yet: local pools are still opening (`SessionConfig::warmup`).
    warming_up: bool,
    connect_errors: Vec<(String, CloseReason)>,

    conns: Vec<Option<Conn>>,
    conn_ids: SlotIds,
    control: Option<ConnId>,
    control_local: Option<PeerRow>,
    control_peers: Option<Vec<PeerRow>>,
    control_keyspaces: Option<Vec<KeyspaceRow>>,
    control_dirty: bool,
    refresh_debounce: refresh_debounce::RefreshDebounce,
    /// REGISTER refused since the last one answered: refusals after the first wait this
    /// backoff before the control tries again (`register_retry_at`).
    register_backoff: Option<Backoff>,
    register_retry_at: Option<u64>,
    pools: Vec<Pool>,

    reqs: Vec<Option<Req>>,
    req_ids: SlotIds,
    /// Request buffers returned by finished requests, so a warm session allocates nothing.
    buffer_pool: Vec<(Vec<u8>, Vec<(ConnId, u32, u64)>)>,
    /// Attempts sent to each node, by node id.
    attempts_per_node: Vec<u64>,
    speculative: BinaryHeap<Reverse<(u64, SessionRequestId)>>,
    /// Requests whose plan ran out on transient errors, to start again after a backoff.
    plan_restarts: BinaryHeap<Reverse<(u64, SessionRequestId)>>,

    prepared: prepared::PreparedCache,
    keyspace_names: Vec<String>,
    keyspace_plans: keyspace_plans::KeyspacePlansCache,
    /// Tables by interned id: (keyspace id, name).
    table_names: Vec<(u32, String)>,
    tablets: crate::cluster::TabletMap,

    commands: VecDeque<Command>,
    events: VecDeque<EventOut>,
    /// Connections whose arenas hold bodies of undrained events.
    arenas_in_use: Vec<ConnId>,
    /// Closed connections kept until their last events are drained.
    graveyard: Vec<ConnId>,
    scratch: Vec<u8>,
    metrics: Metrics,
    /// Answers to schema changes, released once every live node has the same schema.
    awaiting_agreement: Vec<EventOut>,
    /// How answered requests that took more than one execution got there, until the host
    /// takes it (bounded: a host that never asks loses the oldest).
    tried: VecDeque<(SessionRequestId, Tried)>,
    agreement_deadline: u64,
    agreement_check_at: Option<u64>,
    agreement_query_in_flight: bool,
    agreement_local: Option<Option<[u8; 16]>>,
    agreement_peers: Option<Vec<[u8; 16]>>,
    /// Bodies of drained `EventOut::Owned` events, kept until `begin_call` releases them.
    owned_bodies: Vec<Vec<u8>>,
}

/// Ids are a slot index (low 20 bits: a million requests in flight) and a generation (high
/// 12 bits), so a stale id never finds a newer occupant of its slot.
const SLOT_BITS: u32 = 20;

fn slot_of(id: u32) -> usize {
    (id & ((1 << SLOT_BITS) - 1)) as usize
}

/// Hands out slots of a table with generation-tagged ids; freed slots are reused first.
#[derive(Default)]
struct SlotIds {
    generations: Vec<u16>,
    free: Vec<u32>,
}

impl SlotIds {
    /// A slot and its new id; `slot == generations.len() - 1` means the table must grow.
    fn take(&mut self) -> (usize, u32) {
        let slot = match self.free.pop() {
            Some(s) => s as usize,
            None => {
                self.generations.push(0);
                self.generations.len() - 1
            }
        };
        let generation = self.generations[slot].wrapping_add(1) & 0xFFF;
        self.generations[slot] = generation;
        (slot, slot as u32 | (generation as u32) << SLOT_BITS)
    }

    fn release(&mut self, slot: usize) {
        self.free.push(slot as u32);
    }
}

/// Whether a connection has bytes to hand out now (not while its socket is still connecting).
fn transmit_ready(c: &Conn) -> bool {
    c.inner.has_transmit() && c.status != ConnStatus::Connecting
}

fn close_message(r: &CloseReason) -> String {
    r.message().to_owned()
}

impl Session {
    pub fn new(config: SessionConfig) -> Self {
        let view = ClusterView::new(config.policy.clone());
        let rng = SplitMix64::new(config.seed);
        Self {
            config,
            view,
            rng,
            contact_points: Vec::new(),
            started: false,
            ready: false,
            warming_up: false,
            connect_errors: Vec::new(),
            conns: Vec::new(),
            conn_ids: SlotIds::default(),
            control: None,
            control_local: None,
            control_peers: None,
            control_keyspaces: None,
            control_dirty: false,
            refresh_debounce: Default::default(),
            register_backoff: None,
            register_retry_at: None,
            pools: Vec::new(),
            reqs: Vec::new(),
            req_ids: SlotIds::default(),
            buffer_pool: Vec::new(),
            attempts_per_node: Vec::new(),
            speculative: BinaryHeap::new(),
            plan_restarts: BinaryHeap::new(),
            prepared: prepared::PreparedCache::new(),
            keyspace_names: Vec::new(),
            keyspace_plans: Default::default(),
            table_names: Vec::new(),
            tablets: Default::default(),
            commands: VecDeque::new(),
            events: VecDeque::new(),
            arenas_in_use: Vec::new(),
            graveyard: Vec::new(),
            scratch: Vec::new(),
            metrics: Metrics::default(),
            awaiting_agreement: Vec::new(),
            tried: VecDeque::new(),
            agreement_deadline: 0,
            agreement_check_at: None,
            agreement_query_in_flight: false,
            agreement_local: None,
            agreement_peers: None,
            owned_bodies: Vec::new(),
        }
    }

    // ---- getters ----------------------------------------------------------------------

    /// Whether `Ready` was announced.
    pub fn is_ready(&self) -> bool {
        self.ready && !self.warming_up
    }
    pub fn protocol_version(&self) -> u8 {
        self.config.connection.protocol_version
    }
    pub fn view(&self) -> &ClusterView {
        &self.view
    }
    /// The keyspace of the table the prepared statement `id` binds, by name.
    pub fn prepared_keyspace(&self, id: &[u8]) -> Option<&str> {
        let keyspace = self.prepared.get(id)?.keyspace?;
        self.keyspace_names.get(keyspace as usize).map(String::as_str)
    }

    /// What the session learned from a PREPARE it sent, by prepared id.
    pub fn prepared(&self, id: &[u8]) -> Option<&PreparedMeta> {
        self.prepared.get(id)
    }
    /// Bytes of capacity held by the byte buffers of every connection and of the session's
    /// own pools: what must come back down after a burst of large results.
    pub fn buffer_bytes(&self) -> usize {
        let conns: usize = self.conns.iter().flatten().map(|c| c.inner.buffer_capacity()).sum();
        let pooled: usize = self.buffer_pool.iter().map(|(b, _)| b.capacity()).sum();
        conns + pooled + self.scratch.capacity()
    }

    pub fn metrics(&self) -> Metrics {
        let mut m = self.metrics.clone();
        for (id, &count) in self.attempts_per_node.iter().enumerate() {
            if count > 0 {
                let address = self.view.node(id as u32).map(|n| n.address.clone()).unwrap_or_else(|| format!("node {id}"));
                m.per_node.insert_owned(address, count);
            }
        }
        m
    }
    /// What the nodes tried before request `id` was answered said, and how many speculative
    /// executions it started (the DataStax driver's `info.triedHosts` and
    /// `speculativeExecutions`); empty when the first execution answered. Taken once.
    pub fn take_tried(&mut self, id: SessionRequestId) -> Tried {
        match self.tried.iter().position(|(i, _)| *i == id) {
            Some(at) => self.tried.remove(at).map(|(_, t)| t).unwrap_or_default(),
            None => Tried::default(),
        }
    }

    /// The length of request `id`'s frame body while it is in flight (0 once answered): what
    /// the DataStax driver's request trackers are told. Asked by a host that reports to one,
    /// right after starting the request; nothing on the request path records it.
    pub fn request_length(&self, id: SessionRequestId) -> usize {
        self.reqs.get(slot_of(id)).and_then(|r| r.as_ref()).filter(|r| r.id == id).map_or(0, |r| r.body.len())
    }

    fn keep_tried(&mut self, id: SessionRequestId, req: &mut Req, answered_in_us: u64) {
        const MAX_KEPT: usize = 64;
        // A request id is reused once answered: what an earlier request left goes first.
        self.tried.retain(|(i, _)| *i != id);
        if req.errors.is_empty() && req.speculative_started == 0 {
            return;
        }
        if self.tried.len() >= MAX_KEPT {
            self.tried.pop_front();
        }
        let tried = Tried { errors: std::mem::take(&mut req.errors), speculative_executions: req.speculative_started, answered_in_us };
        self.tried.push_back((id, tried));
    }

    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
    }

    /// Whether `poll_command` has a command.
    pub fn has_commands(&self) -> bool {
        !self.commands.is_empty()
    }

    /// Whether `poll_transmit` would name a connection.
    pub fn has_transmit(&self) -> bool {
        self.conns.iter().flatten().any(transmit_ready)
    }

    /// The queued events and the bytes of the response bodies among them: what a host that
    /// packs them into one buffer reserves up front, rather than growing into it by doubling.
    pub fn pending_events(&self) -> (usize, usize) {
        let body_bytes = self
            .events
            .iter()
            .map(|e| match e {
                EventOut::Response { start, end, .. } => end - start,
                EventOut::Synthetic { body, .. } => body.len(),
                EventOut::Owned { body, .. } => body.len(),
                _ => 0,
            })
            .sum();
        (self.events.len(), body_bytes)
    }
    pub fn in_flight(&self) -> usize {
        self.reqs.iter().filter(|r| r.is_some()).count()
    }
    /// The ring's token ranges `(start, end]` with the addresses of their replicas in
    /// `keyspace` (the primary owner alone when the keyspace is unknown), in ring order.
    /// The first range wraps: it starts at the last token.
    pub fn token_ranges(&self, keyspace: Option<&str>) -> Vec<(i64, i64, Vec<String>)> {
        let mut ring: Vec<(i64, u32)> = self.view.nodes().flat_map(|n| n.tokens.iter().map(move |t| (*t, n.id))).collect();
        crate::cluster::sort_tokens(&mut ring);
        let address = |id: u32| self.view.node(id).map(|n| n.address.clone()).unwrap_or_default();
        let mut out = Vec::with_capacity(ring.len());
        for (i, &(end, owner)) in ring.iter().enumerate() {
            let start = if i == 0 { ring[ring.len() - 1].0 } else { ring[i - 1].0 };
            let replicas = keyspace
                .and_then(|ks| self.view.natural_replicas(ks, end))
                .map(|ids| ids.into_iter().map(address).collect())
                .unwrap_or_else(|| vec![address(owner)]);
            out.push((start, end, replicas));
        }
        out
    }

    /// Per connection: address, node, in-flight, queued and orphaned stream ids.
    pub fn connection_states(&self) -> Vec<(ConnId, String, usize, usize, usize, bool)> {
        self.conns
            .iter()
            .flatten()
            .map(|c| (c.id, c.address.clone(), c.inner.in_flight(), c.inner.queued(), c.inner.orphans(), c.status == ConnStatus::Ready))
            .collect()
    }

    // ---- commands ----------------------------------------------------------------------

    /// Connects to every contact point (`host:port`); the first to be ready becomes the
    /// control connection.
    pub fn start(&mut self, _now: u64, contact_points: &[&str]) {
        self.begin_call();
        if self.started {
            return;
        }
        self.started = true;
        self.contact_points = contact_points.iter().map(|s| s.to_string()).collect();
        for cp in contact_points {
            self.open_conn(cp.to_string(), None);
        }
        if contact_points.is_empty() {
            self.events.push_back(EventOut::ConnectFailed(Vec::new()));
        }
    }

    pub fn start_request(&mut self, now: u64, spec: RequestSpec) -> Result<SessionRequestId, LocalError> {
        self.begin_call();
        if !self.ready {
            return Err(LocalError("the session is not connected yet".into()));
        }
        let version = self.config.connection.protocol_version;
        // Checked first, with the partition key found in the same pass: the body is then
        // written without a second check.
        let (keyspace, table, token, lwt) = self.routing(&spec)?;
        let (mut body, executions) = self.buffer_pool.pop().unwrap_or_default();
        body.clear();
        if let Err(e) = write_body(&mut body, version, &spec.request) {
            self.buffer_pool.push((body, executions));
            return Err(e);
        }
        let (opcode, flags) = request_kind(&spec.request);
        let token = spec.token.or(token);
        let id = self.alloc_req(Req {
            id: 0,
            body,
            opcode,
            flags,
            timeout_us: spec.timeout_us,
            keyspace,
            token,
            table,
            tablet: None,
            cursor: None,
            restarts: 0,
            sent: 0,
            attempt: 0,
            idempotent: spec.idempotent,
            lwt,
            executions,
            speculative_started: 0,
            node: NO_NODE,
            reprepares: 0,
            trace: Vec::new(),
            errors: Vec::new(),
        });
        self.metrics.requests += 1;
        self.new_plan(id);
        // Schema changes go to the control node: its own version is then the new one when the
        // answer comes, so the agreement check that holds the answer cannot pass on stale
        // versions that all still agree.
        let sent_to_control = is_ddl(&spec.request)
            && self.control.is_some_and(|c| self.conn(c).is_some_and(|c| c.status == ConnStatus::Ready))
            && self.control.is_some_and(|c| self.send_on(now, id, c, Purpose::User { req: id }));
        if !sent_to_control {
            self.send_to_next_node(now, id, "first attempt");
        }
        self.arm_speculative(now, id);
        Ok(id)
    }

    /// Gives up on a request: every execution's stream id is orphaned.
    pub fn cancel(&mut self, now: u64, id: SessionRequestId) {
        self.begin_call();
        if let Some(mut req) = self.take_req(id) {
            self.cancel_executions(now, &req.executions);
            self.recycle(&mut req);
        }
    }

    // ---- inputs ---------------------------------------------------------------------------

    pub fn handle_connected(&mut self, now: u64, conn: ConnId) {
        self.begin_call();
        if let Some(c) = self.conn_mut(conn) {
            if c.status == ConnStatus::Connecting {
                c.status = ConnStatus::Handshaking;
                c.inner.start(now);
            }
        }
    }

    pub fn handle_connect_failed(&mut self, now: u64, conn: ConnId, message: &str) {
        self.begin_call();
        if self.conn_mut(conn).is_some() {
            self.on_conn_closed(now, conn, CloseReason::Local { message: format!("could not connect: {message}") });
        }
    }

    pub fn handle_bytes(&mut self, now: u64, conn: ConnId, chunk: &[u8]) {
        self.begin_call();
        let Some(c) = self.conn_mut(conn) else { return };
        c.inner.handle_bytes(now, chunk);
        self.process_conn_events(now, conn);
    }

    /// The host's answer to an [`SessionEvent::Auth`] step of `conn`: the token, or why its
    /// authenticator failed. An answer for a connection gone meanwhile is dropped.
    pub fn auth_answer(&mut self, now: u64, conn: ConnId, answer: Result<&[u8], &str>) {
        self.begin_call();
        let Some(c) = self.conn_mut(conn) else { return };
        c.inner.auth_answer(answer);
        self.process_conn_events(now, conn);
    }

    pub fn handle_eof(&mut self, now: u64, conn: ConnId) {
        self.begin_call();
        let Some(c) = self.conn_mut(conn) else { return };
        c.inner.handle_eof(now);
        self.process_conn_events(now, conn);
    }

    pub fn handle_timeout(&mut self, now: u64) {
        self.begin_call();
        let ids: Vec<ConnId> = self.conns.iter().flatten().filter(|c| c.status != ConnStatus::Closed).map(|c| c.id).collect();
        for id in ids {
            let due = self.conn_mut(id).and_then(|c| c.inner.poll_timeout()).is_some_and(|t| t <= now);
            if due {
                if let Some(c) = self.conn_mut(id) {
                    c.inner.handle_timeout(now);
                }
                self.process_conn_events(now, id);
            }
        }
        while let Some(Reverse((at, req))) = self.speculative.peek().copied() {
            if at > now {
                break;
            }
            self.speculative.pop();
            self.speculate(now, req);
        }
        if self.agreement_check_at.is_some_and(|t| t <= now) || (!self.awaiting_agreement.is_empty() && now >= self.agreement_deadline) {
            self.check_schema_agreement(now);
        }
        while let Some(Reverse((at, req))) = self.plan_restarts.peek().copied() {
            if at > now {
                break;
            }
            self.plan_restarts.pop();
            self.restart_plan(now, req);
        }
        if self.refresh_debounce.take_due(now) {
            self.refresh_control(now);
        }
        if self.register_retry_at.is_some_and(|t| t <= now) {
            self.register_retry_at = None;
            if let Some(conn) = self.control {
                self.move_control_or_register(now, conn);
            }
        }
        for node in 0..self.pools.len() {
            if self.pools[node].retry_at.is_some_and(|t| t <= now) {
                self.pools[node].retry_at = None;
                self.fill_pool(node as u32);
            }
        }
    }

    // ---- outputs ----------------------------------------------------------------------------

    pub fn poll_command(&mut self) -> Option<Command> {
        self.commands.pop_front()
    }

    /// Appends the pending bytes of one connection to `buf` and names it; call until `None`.
    pub fn poll_transmit(&mut self, buf: &mut Vec<u8>) -> Option<ConnId> {
        let c = self.conns.iter_mut().flatten().find(|c| transmit_ready(c))?;
        c.inner.poll_transmit(buf);
        Some(c.id)
    }

    pub fn poll_timeout(&self) -> Option<u64> {
        let conns = self.conns.iter().flatten().filter_map(|c| c.inner.poll_timeout());
        let spec = self.speculative.peek().map(|Reverse((t, _))| *t);
        let restarts = self.plan_restarts.peek().map(|Reverse((t, _))| *t);
        let pools = self.pools.iter().filter_map(|p| p.retry_at);
        let agreement = if self.awaiting_agreement.is_empty() {
            None
        } else {
            Some(self.agreement_check_at.unwrap_or(self.agreement_deadline).min(self.agreement_deadline))
        };
        let refresh = self.refresh_debounce.deadline();
        let register = self.register_retry_at;
        conns.chain(spec).chain(restarts).chain(pools).chain(agreement).chain(refresh).chain(register).min()
    }

    pub fn poll_event(&mut self) -> Option<SessionEvent<'_>> {
        let e = self.events.pop_front()?;
        Some(match e {
            EventOut::Ready => SessionEvent::Ready { protocol_version: self.config.connection.protocol_version },
            EventOut::ConnectFailed(errors) => SessionEvent::ConnectFailed { errors },
            EventOut::Response { id, conn, frame_flags, start, end, attempts } => {
                let c = self.conns.get(slot_of(conn)).and_then(|c| c.as_ref()).filter(|c| c.id == conn);
                match c {
                    Some(c) => SessionEvent::Response {
                        id,
                        frame_flags,
                        body: c.inner.arena_slice(start, end),
                        node: &c.address,
                        node_id: c.node.unwrap_or(NO_NODE),
                        attempts,
                    },
                    None => SessionEvent::Response { id, frame_flags, body: &[], node: "", node_id: NO_NODE, attempts },
                }
            }
            EventOut::Synthetic { id, body, node } => SessionEvent::Response {
                id,
                frame_flags: 0,
                body,
                node: self.view.node(node).map(|n| n.address.as_str()).unwrap_or(""),
                node_id: node,
                attempts: 1,
            },
            EventOut::Owned { id, frame_flags, body, node, attempts } => {
                // Kept until the drained events are released, like the arenas' bodies: a
                // host may read every drained body in place (issue #17).
                self.owned_bodies.push(body);
                SessionEvent::Response {
                    id,
                    frame_flags,
                    body: self.owned_bodies.last().map(Vec::as_slice).unwrap_or(&[]),
                    node: self.view.node(node).map(|n| n.address.as_str()).unwrap_or(""),
                    node_id: node,
                    attempts,
                }
            }
            EventOut::Failed { id, error } => SessionEvent::Failed { id, error },
            EventOut::NodeUp(address) => SessionEvent::NodeUp { address },
            EventOut::NodeDown(address, reason) => SessionEvent::NodeDown { address, reason },
            EventOut::NodesChanged => SessionEvent::NodesChanged,
            EventOut::ServerEvent(e) => SessionEvent::ServerEvent(e),
            EventOut::Log(message) => SessionEvent::Log { message },
            EventOut::Auth(conn, address, step) => SessionEvent::Auth { conn, address, step },
        })
    }

    // ---- internals: bookkeeping --------------------------------------------------------------

    /// The owner copied every drained event's body: the connections' arenas may be reused and
    /// shrink now, rather than at the next call (which, after a burst, may never come).
    pub fn release_drained(&mut self) {
        self.begin_call();
    }

    /// Inline, so the common call with nothing to release (every request of a burst after
    /// its first) costs a few compares, not a call (issue #17).
    #[inline]
    fn begin_call(&mut self) {
        let nothing_held = self.arenas_in_use.is_empty() && self.owned_bodies.is_empty() && self.graveyard.is_empty();
        if !self.events.is_empty() || nothing_held {
            return;
        }
        self.release_held();
    }

    #[inline(never)]
    fn release_held(&mut self) {
        // Drained through a swap that keeps the buffer's capacity: no allocation per call.
        let mut arenas = std::mem::take(&mut self.arenas_in_use);
        for id in arenas.drain(..) {
            if let Some(c) = self.conn_mut(id) {
                c.inner.release_arena();
            }
        }
        self.arenas_in_use = arenas;
        self.owned_bodies.clear();
        for id in std::mem::take(&mut self.graveyard) {
            let slot = slot_of(id);
            if self.conns.get(slot).and_then(|c| c.as_ref()).is_some_and(|c| c.id == id) {
                self.conns[slot] = None;
                self.conn_ids.release(slot);
            }
        }
    }

    fn conn_mut(&mut self, id: ConnId) -> Option<&mut Conn> {
        self.conns.get_mut(slot_of(id)).and_then(|c| c.as_mut()).filter(|c| c.id == id)
    }

    fn conn(&self, id: ConnId) -> Option<&Conn> {
        self.conns.get(slot_of(id)).and_then(|c| c.as_ref()).filter(|c| c.id == id)
    }

    fn req(&self, id: SessionRequestId) -> Option<&Req> {
        self.reqs.get(slot_of(id)).and_then(|r| r.as_ref()).filter(|r| r.id == id)
    }

    fn req_mut(&mut self, id: SessionRequestId) -> Option<&mut Req> {
        self.reqs.get_mut(slot_of(id)).and_then(|r| r.as_mut()).filter(|r| r.id == id)
    }

    fn alloc_req(&mut self, mut req: Req) -> SessionRequestId {
        let (slot, id) = self.req_ids.take();
        if slot == self.reqs.len() {
            self.reqs.push(None);
        }
        req.id = id;
        self.reqs[slot] = Some(req);
        id
    }

    fn take_req(&mut self, id: SessionRequestId) -> Option<Req> {
        let slot = slot_of(id);
        let matches = self.reqs.get(slot).and_then(|r| r.as_ref()).is_some_and(|r| r.id == id);
        if !matches {
            return None;
        }
        self.req_ids.release(slot);
        self.reqs[slot].take()
    }

    /// A finished request's slot freed in place, its buffers pooled.
    fn free_req(&mut self, id: SessionRequestId) {
        let slot = slot_of(id);
        let Some(req) = self.reqs.get_mut(slot).and_then(|r| r.as_mut()).filter(|r| r.id == id) else { return };
        let buffers = (std::mem::take(&mut req.body), std::mem::take(&mut req.executions));
        self.reqs[slot] = None;
        self.req_ids.release(slot);
        self.pool_buffers(buffers);
    }

    /// Pools the request's buffers. By reference: moving a `Req` (hundreds of bytes, its plan
    /// cursor included) costs a copy per request (issue #17).
    fn recycle(&mut self, req: &mut Req) {
        self.pool_buffers((std::mem::take(&mut req.body), std::mem::take(&mut req.executions)));
    }

    fn pool_buffers(&mut self, (mut body, mut executions): (Vec<u8>, Vec<(ConnId, u32, u64)>)) {
        // A large request's body would keep its size in the pool for the session's life.
        if body.capacity() > POOLED_BODY_KEEP {
            return;
        }
        body.clear();
        executions.clear();
        self.buffer_pool.push((body, executions));
    }

    fn intern_keyspace(&mut self, name: &str) -> u32 {
        if let Some(i) = self.keyspace_names.iter().position(|k| k == name) {
            return i as u32;
        }
        self.keyspace_names.push(name.to_owned());
        (self.keyspace_names.len() - 1) as u32
    }

    fn open_conn(&mut self, address: String, node: Option<u32>) -> ConnId {
        let (slot, id) = self.conn_ids.take();
        if slot == self.conns.len() {
            self.conns.push(None);
        }
        let mut inner = Connection::new(self.config.connection.clone());
        inner.set_manual_arena(true);
        self.conns[slot] = Some(Conn {
            id,
            inner,
            address: address.clone(),
            node,
            status: ConnStatus::Connecting,
            in_flight: in_flight::InFlight::new(),
            replaced: false,
            asked_shard: None,
            shard: None,
        });
        if let Some(n) = node {
            self.pool_mut(n).conns.push(id);
        }
        self.metrics.connections_opened += 1;
        self.commands.push_back(Command::Connect { conn: id, address, shard: None });
        id
    }

    fn pool_mut(&mut self, node: u32) -> &mut Pool {
        let i = node as usize;
        if self.pools.len() <= i {
            self.pools.resize_with(i + 1, Pool::default);
        }
        &mut self.pools[i]
    }

    // ---- internals: routing ---------------------------------------------------------------------

    /// The keyspace, token and LWT-ness of a request, from the prepared metadata the session
    /// saw or the host's routing key, once the request is checked (`check_request`): an
    /// EXECUTE's values are checked in the pass that finds its key. Allocation-free on a warm
    /// cache.
    fn routing(&mut self, spec: &RequestSpec) -> Result<Routing, LocalError> {
        if let Request::Execute { id, values, .. } = &spec.request {
            return Ok(match self.prepared.get_by_handle(spec.prepared, id) {
                Some(p) => (p.keyspace, p.table, check_values_and_token(values, &p.pk_indexes)?, p.lwt),
                None => {
                    message::check_values(values).map_err(local_error)?;
                    (None, None, None, false)
                }
            });
        }
        check_request(&spec.request)?;
        Ok(match &spec.request {
            Request::Batch { statements, .. } => match statements.first() {
                Some(message::BatchStatement::Prepared { id, values }) => match self.prepared.get(id) {
                    Some(p) => (p.keyspace, p.table, token_from_values(values, &p.pk_indexes), p.lwt),
                    None => (None, None, None, false),
                },
                _ => (None, None, None, false),
            },
            _ => {
                let ks = spec.keyspace.map(|k| self.intern_keyspace(k));
                let token = spec.routing_key.and_then(|k| routing_token(&[k]).ok());
                (ks, None, token, false)
            }
        })
    }

    fn send_on(&mut self, now: u64, req_id: SessionRequestId, conn: ConnId, purpose: Purpose) -> bool {
        let slot = slot_of(req_id);
        let Some(Some(req)) = self.reqs.get(slot) else { return false };
        let (opcode, flags, timeout) = (req.opcode, req.flags, req.timeout_us);
        let Some(c) = self.conns.get_mut(slot_of(conn)).and_then(|c| c.as_mut()).filter(|c| c.id == conn) else {
            return false;
        };
        let body = &self.reqs[slot].as_ref().map(|r| r.body.as_slice()).unwrap_or(&[]);
        match c.inner.start_encoded(now, opcode, flags, body, timeout) {
            Ok(stream_req) => {
                c.in_flight.insert(stream_req, purpose);
                let node = c.node.unwrap_or(NO_NODE);
                if let Some(r) = self.req_mut(req_id) {
                    r.executions.push((conn, stream_req, now));
                    r.node = node;
                    r.sent += 1;
                }
                if let Some(count) = self.attempts_per_node.get_mut(node as usize) {
                    *count += 1;
                } else if node != NO_NODE {
                    self.attempts_per_node.resize(node as usize + 1, 0);
                    self.attempts_per_node[node as usize] = 1;
                }
                true
            }
            Err(_) => false,
        }
    }

    /// Sends to the next node of the request's plan that has a usable connection; fails the
    /// request when the plan is exhausted.
    fn send_to_next_node(&mut self, now: u64, req_id: SessionRequestId, why: &'static str) -> bool {
        if self.send_to_tablet_replica(now, req_id) {
            return true;
        }
        loop {
            // Advanced in place: the cursor is too large to copy out and back per request.
            let req = self.reqs.get_mut(slot_of(req_id)).and_then(|r| r.as_mut()).filter(|r| r.id == req_id);
            let Some(Req { cursor: Some(cursor), .. }) = req else { return false };
            let next = cursor.next_id(&self.view);
            let Some(node) = next else {
                // A retry that ran out of nodes (every replica timed out or was overloaded)
                // waits and starts the plan again, a bounded number of times.
                let base = self.config.reconnect_base_us.max(1000);
                // Waiting is safe for a request never sent anywhere, and for a retry the policy
                // allowed: both wait for a connection (a node reconnecting) with a backoff.
                let restarts = match self.req_mut(req_id) {
                    Some(r) if r.restarts < MAX_PLAN_RESTARTS && (r.sent == 0 || why != "first attempt") => {
                        r.restarts += 1;
                        Some(r.restarts)
                    }
                    _ => None,
                };
                match restarts {
                    Some(n) => {
                        let ceiling = base.saturating_mul(1 << n.min(5)).min(2_000_000);
                        let delay = self.rng.between(ceiling / 2, ceiling);
                        self.plan_restarts.push(Reverse((now.saturating_add(delay), req_id)));
                        *self.metrics.decisions.get_or_insert("plan exhausted: retry after backoff", 0) += 1;
                    }
                    None => self.fail_no_host(req_id),
                }
                return false;
            };
            let token = self.req_mut(req_id).and_then(|r| r.token);
            let Some(conn) = self.pick_conn(node, token) else { continue };
            if self.send_on(now, req_id, conn, Purpose::User { req: req_id }) {
                // The trace only records what happened after the first attempt: the common
                // case stays allocation-free. A retry (attempt > 0) always follows the failed
                // attempt's trace entry, so an empty trace is a first attempt.
                let retried = self.req_mut(req_id).is_some_and(|r| !r.trace.is_empty());
                if retried {
                    let address = self.view.node(node).map(|n| n.address.clone()).unwrap_or_default();
                    let kind = self.req_mut(req_id).and_then(|r| r.cursor).map(|c| c.kind().reason()).unwrap_or_default();
                    if let Some(r) = self.req_mut(req_id) {
                        r.trace.push(TraceEntry { node: address, decision: why, reason: kind });
                    }
                }
                return true;
            }
        }
    }

    /// A fresh plan for the request: replicas of its token first, rotated among them.
    fn new_plan(&mut self, req_id: SessionRequestId) {
        let Some(req) = self.req_mut(req_id) else { return };
        let (keyspace, token, lwt, table) = (req.keyspace, req.token, req.lwt, req.table);
        let rotation = self.rng.next_u32();
        // An LWT goes to the tablet's first replica, like the ring's primary replica.
        let tablet = self.tablet_target(table, token, if lwt { 0 } else { rotation });
        let ks = keyspace.map(|k| self.keyspace_plans(k));
        // An LWT's plan is not rotated (`ClusterView::plan_for_lwt`).
        let cursor = self.view.plan_for_resolved(ks, token, if lwt { 0 } else { rotation }).into_cursor();
        if let Some(r) = self.req_mut(req_id) {
            r.cursor = Some(cursor);
            r.tablet = tablet;
        }
    }

    fn restart_plan(&mut self, now: u64, req_id: SessionRequestId) {
        if self.req_mut(req_id).is_none() {
            return;
        }
        self.new_plan(req_id);
        self.send_to_next_node(now, req_id, "retry after backoff");
    }

    fn arm_speculative(&mut self, now: u64, req_id: SessionRequestId) {
        let Some(policy) = self.config.speculative else { return };
        let Some(req) = self.req_mut(req_id) else { return };
        let d = policy.next_delay(req.idempotent, req.speculative_started);
        if let Some(delay) = d.value {
            self.speculative.push(Reverse((now.saturating_add(delay), req_id)));
        }
    }

    fn speculate(&mut self, now: u64, req_id: SessionRequestId) {
        let Some(req) = self.req_mut(req_id) else { return };
        if req.executions.is_empty() {
            return;
        }
        req.speculative_started += 1;
        self.metrics.speculative_executions += 1;
        *self.metrics.decisions.get_or_insert("speculative execution", 0) += 1;
        let Some(req) = self.req_mut(req_id) else { return };
        let (Some(mut cursor), token) = (req.cursor, req.token) else { return };
        // Unlike a retry, running out of nodes here is no failure: the first execution goes on.
        while let Some(node) = cursor.next_id(&self.view) {
            if let Some(conn) = self.pick_conn(node, token) {
                if let Some(r) = self.req_mut(req_id) {
                    r.cursor = Some(cursor);
                }
                if self.send_on(now, req_id, conn, Purpose::User { req: req_id }) {
                    let address = self.view.node(node).map(|n| n.address.clone()).unwrap_or_default();
                    if let Some(r) = self.req_mut(req_id) {
                        r.trace.push(TraceEntry { node: address, decision: "speculative execution", reason: "no response yet" });
                    }
                    self.arm_speculative(now, req_id);
                    return;
                }
            }
        }
        if let Some(r) = self.req_mut(req_id) {
            r.cursor = Some(cursor);
        }
    }

    fn cancel_executions(&mut self, now: u64, executions: &[(ConnId, u32, u64)]) {
        for &(conn, stream_req, _) in executions {
            if !self.conn(conn).is_some_and(|c| c.in_flight.contains(stream_req)) {
                continue;
            }
            if let Some(c) = self.conn_mut(conn) {
                c.inner.cancel(now, stream_req);
                c.in_flight.remove(stream_req);
            }
        }
    }

    fn fail_no_host(&mut self, req_id: SessionRequestId) {
        let Some(mut req) = self.take_req(req_id) else { return };
        self.metrics.no_host_available += 1;
        self.metrics.failures += 1;
        let last = req.errors.last().map(|e| e.message.clone());
        let error = SessionError {
            // Only attempts the retry policy allowed to go on end here: for a statement that
            // is not idempotent, none of them may have been applied.
            error: RequestError::Closed {
                message: match last {
                    Some(m) => format!("no node left to try; last error: {m}"),
                    None => "no node available: every node of the plan is down or has no ready connection".into(),
                },
                written: false,
            },
            node: req.errors.last().map(|e| e.node.clone()).unwrap_or_default(),
            attempts: req.sent,
            no_host_available: true,
            errors: req.errors.clone(),
            trace: req.trace.clone(),
        };
        self.events.push_back(EventOut::Failed { id: req_id, error });
        self.recycle(&mut req);
    }

    // ---- internals: connection events -----------------------------------------------------------

    // The handlers of the rare events below are `#[inline(never)]`: inlined, they made this hot
    // loop 22 KB of WASM, which V8's optimising tier compiles in a 10 MB zone, ~6 MB of a Node
    // client's max RSS at 1024 in flight (bench/memory, issue #17). The user response stays inline.
    fn process_conn_events(&mut self, now: u64, conn: ConnId) {
        loop {
            let Some(c) = self.conn_mut(conn) else { return };
            let Some(ev) = c.inner.poll_raw_event() else {
                self.recycle_if_draining(now, conn);
                return;
            };
            match ev {
                EventRec::Ready => self.on_conn_ready(now, conn),
                EventRec::Response { id, frame_flags, start, end } => {
                    let purpose = self.conn_mut(conn).and_then(|c| c.in_flight.remove(id));
                    match purpose {
                        Some(Purpose::User { req }) => self.on_user_response(now, req, conn, frame_flags, start, end),
                        Some(Purpose::Reprepare { req }) => self.on_reprepared(now, req, conn, id),
                        Some(Purpose::Control(q)) => self.on_control_response(now, conn, q, frame_flags, start, end),
                        Some(Purpose::Internal) | None => {}
                    }
                }
                EventRec::Failed { id, error } => {
                    let purpose = self.conn_mut(conn).and_then(|c| c.in_flight.remove(id));
                    match purpose {
                        Some(Purpose::User { req }) => self.on_attempt_failed(now, req, conn, error),
                        Some(Purpose::Reprepare { req }) => self.fail_req(now, req, conn, error),
                        Some(Purpose::Control(q)) => self.on_control_failed(now, conn, q, error),
                        Some(Purpose::Internal) | None => {}
                    }
                }
                EventRec::ServerEvent(e) => self.on_server_event(now, conn, e),
                EventRec::Closed(reason) => self.on_conn_closed(now, conn, reason),
                EventRec::Auth(step) => {
                    let address = self.conn(conn).map(|c| c.address.clone()).unwrap_or_default();
                    self.events.push_back(EventOut::Auth(conn, address, step));
                }
            }
        }
    }

    /// A connection with too many orphaned stream ids takes no new requests: a fresh one
    /// replaces it in the pool at once, and it closes when its last request is answered.
    fn recycle_if_draining(&mut self, now: u64, conn: ConnId) {
        let Some(c) = self.conn_mut(conn) else { return };
        if c.status != ConnStatus::Ready || c.inner.state() != State::Draining {
            return;
        }
        if !c.replaced {
            c.replaced = true;
            let (address, node) = (c.address.clone(), c.node);
            for p in self.pools.iter_mut() {
                p.conns.retain(|id| *id != conn);
            }
            self.metrics.connections_recycled += 1;
            self.open_conn(address, node);
        }
        if self.conn(conn).is_some_and(|c| c.inner.in_flight() == 0) {
            if self.control == Some(conn) {
                self.control = None;
                let next = self.conns.iter().flatten().find(|c| c.status == ConnStatus::Ready && c.id != conn).map(|c| c.id);
                if let Some(next) = next {
                    self.make_control(now, next);
                }
            }
            self.close_conn(conn);
        }
    }

    #[inline(never)] // cold: see process_conn_events
    fn on_conn_ready(&mut self, now: u64, conn: ConnId) {
        let Some(c) = self.conn_mut(conn) else { return };
        if c.status == ConnStatus::Closed {
            // Closed while its handshake finished (a pool trimmed to what its node wants):
            // ready is no news, and it must not come back into use (nor be closed twice).
            return;
        }
        c.status = ConnStatus::Ready;
        let node = c.node;
        self.on_conn_sharding(conn);
        if let Some(n) = node {
            if self.on_node_reachable(n) {
                self.reprepare_on_up(now, conn);
            }
        }
        if self.control.is_none() {
            self.make_control(now, conn);
        }
        self.announce_ready_when_warm();
    }

    /// Marks `node` up; true when that is news (it was down, or reported down).
    fn on_node_reachable(&mut self, node: u32) -> bool {
        let address = self.view.node(node).map(|n| n.address.clone());
        let pool = self.pool_mut(node);
        if let Some(b) = pool.backoff.as_mut() {
            b.reset();
        }
        pool.retry_at = None;
        let was_down = std::mem::replace(&mut pool.down_reported, false);
        if let Some(address) = address {
            let changed = self.view.set_up(&address, true);
            if was_down || changed {
                self.events.push_back(EventOut::NodeUp(address));
                return true;
            }
        }
        false
    }

    fn make_control(&mut self, now: u64, conn: ConnId) {
        self.control = Some(conn);
        self.control_dirty = false;
        // It reads everything afresh: a refresh scheduled by the old one's events is moot,
        // and so is a REGISTER waiting to be sent again.
        self.refresh_debounce.take_pending();
        self.register_retry_at = None;
        self.control_local = None;
        self.control_peers = None;
        self.control_keyspaces = None;
        self.send_control(now, conn, ControlQuery::Local);
        self.send_control(now, conn, ControlQuery::PeersV2);
        self.send_control(now, conn, ControlQuery::Keyspaces);
        self.send_control(now, conn, ControlQuery::Register);
    }

    /// What a control request waits for its answer. While joining, the connect timeout (the
    /// handshake's): a contact point that leaves its system tables unanswered is given up as
    /// soon as one that does not answer its handshake, well before the host's connect deadline
    /// (3 × that timeout), however long the request timeout. Once ready, the request timeout.
    fn control_timeout(&self) -> Option<u64> {
        (!self.ready).then_some(self.config.connection.handshake_timeout_us)
    }

    fn send_control(&mut self, now: u64, conn: ConnId, q: ControlQuery) {
        let cql = match q {
            ControlQuery::Local => {
                "SELECT data_center, rack, tokens, host_id, release_version, rpc_address, broadcast_address FROM system.local WHERE key = 'local'"
            }
            ControlQuery::PeersV2 => {
                "SELECT peer, native_address, native_port, data_center, rack, tokens, host_id, release_version FROM system.peers_v2"
            }
            ControlQuery::Peers => "SELECT peer, rpc_address, data_center, rack, tokens, host_id, release_version FROM system.peers",
            ControlQuery::Keyspaces => "SELECT keyspace_name, replication FROM system_schema.keyspaces",
            // One query answers for every node: the control node's own version is in
            // system.local, and it gossips the others' into system.peers.
            ControlQuery::SchemaVersions => "SELECT peer, schema_version FROM system.peers",
            ControlQuery::SchemaLocal => "SELECT schema_version FROM system.local WHERE key = 'local'",
            ControlQuery::Register => "",
        };
        let version = self.config.connection.protocol_version;
        self.scratch.clear();
        let options = QueryOptions { consistency: Some(message::consistency::ONE), ..QueryOptions::default() };
        let events = ["TOPOLOGY_CHANGE", "STATUS_CHANGE", "SCHEMA_CHANGE"];
        let (opcode, request) = match q {
            ControlQuery::Register => (Opcode::Register, Request::Register { events: &events }),
            _ => (Opcode::Query, Request::Query { cql, values: &[], options }),
        };
        if encode_body(&mut self.scratch, version, &request).is_err() {
            return;
        }
        let body = std::mem::take(&mut self.scratch);
        let timeout = self.control_timeout();
        if let Some(c) = self.conn_mut(conn) {
            if let Ok(id) = c.inner.start_encoded(now, opcode, 0, &body, timeout) {
                c.in_flight.insert(id, Purpose::Control(q));
            }
        }
        self.scratch = body;
    }

    fn response_body(&self, conn: ConnId, frame_flags: u8, start: usize, end: usize) -> Vec<u8> {
        let Some(c) = self.conn(conn) else { return Vec::new() };
        let raw = c.inner.arena_slice(start, end);
        crate::connection::skip_response_prefix(raw, frame_flags).map(<[u8]>::to_vec).unwrap_or_default()
    }

    #[inline(never)] // cold: see process_conn_events
    fn on_control_response(&mut self, now: u64, conn: ConnId, q: ControlQuery, frame_flags: u8, start: usize, end: usize) {
        if self.lost_the_control(conn, q) {
            return;
        }
        if q == ControlQuery::Register {
            self.register_backoff = None;
            return;
        }
        // Control results are rare and small: a copy keeps the borrow checker simple.
        let body = self.response_body(conn, frame_flags, start, end);
        let rows = match Rows::parse(&body) {
            Ok(r) => r,
            Err(e) => {
                self.events.push_back(EventOut::Log(format!("could not read {q:?} on the control connection: {e}")));
                if matches!(q, ControlQuery::SchemaVersions | ControlQuery::SchemaLocal) {
                    self.agreement_query_in_flight = false;
                    self.agreement_check_at = Some(now.saturating_add(SCHEMA_AGREEMENT_POLL_US));
                }
                // A server that garbles its own system tables is not trusted further: the
                // connection closes with the error, and another one takes over the control.
                if let Some(c) = self.conn_mut(conn) {
                    c.inner.fail(&e);
                }
                return;
            }
        };
        if matches!(q, ControlQuery::SchemaVersions | ControlQuery::SchemaLocal) {
            self.on_schema_versions(now, q, &rows);
            return;
        }
        match q {
            ControlQuery::SchemaVersions | ControlQuery::SchemaLocal | ControlQuery::Register => {}
            ControlQuery::Local => {
                let mut local = None;
                rows.for_each_row(|cells| local = Some(peer_row(&rows, cells)));
                self.control_local = local;
            }
            ControlQuery::PeersV2 | ControlQuery::Peers => {
                // Grown as rows are read, never presized by the peer's count.
                let mut peers = Vec::new();
                rows.for_each_row(|cells| peers.push(peer_row(&rows, cells)));
                self.control_peers = Some(peers);
            }
            ControlQuery::Keyspaces => {
                let (name_at, repl_at) = (rows.column_index("keyspace_name"), rows.column_index("replication"));
                let mut keyspaces = Vec::new();
                rows.for_each_row(|cells| {
                    let get = |i: Option<usize>| i.and_then(|i| cells.get(i).copied().flatten());
                    if let Some(name) = cell::text(get(name_at)) {
                        keyspaces.push(KeyspaceRow { keyspace_name: name, replication: cell::text_map(get(repl_at)) });
                    }
                });
                self.control_keyspaces = Some(keyspaces);
            }
        }
        self.try_apply_metadata(now, conn);
    }

    /// Agreement: the control node and every peer it sees up report one schema version.
    fn on_schema_versions(&mut self, now: u64, q: ControlQuery, rows: &Rows) {
        let (peer_at, version_at) = (rows.column_index("peer"), rows.column_index("schema_version"));
        let mut versions: Vec<[u8; 16]> = Vec::new();
        rows.for_each_row(|cells| {
            let get = |i: Option<usize>| i.and_then(|i| cells.get(i).copied().flatten());
            let up = q == ControlQuery::SchemaLocal
                || cell::inet(get(peer_at)).is_some_and(|ip| {
                    self.view.nodes().any(|n| n.up && n.address.rsplit_once(':').is_some_and(|(h, _)| h.trim_matches(['[', ']']) == ip))
                });
            if let (true, Some(v)) = (up, cell::uuid(get(version_at))) {
                versions.push(v);
            }
        });
        match q {
            ControlQuery::SchemaLocal => self.agreement_local = Some(versions.first().copied()),
            _ => self.agreement_peers = Some(versions),
        }
        let (Some(local), Some(peers)) = (self.agreement_local, self.agreement_peers.as_ref()) else { return };
        self.agreement_query_in_flight = false;
        let agreed = match local {
            Some(l) => peers.iter().all(|p| *p == l),
            None => peers.windows(2).all(|w| w[0] == w[1]),
        };
        if agreed {
            self.release_agreement(now);
        } else {
            self.agreement_check_at = Some(now.saturating_add(SCHEMA_AGREEMENT_POLL_US));
        }
    }

    #[inline(never)] // cold: see process_conn_events
    fn on_control_failed(&mut self, now: u64, conn: ConnId, q: ControlQuery, error: RequestError) {
        if matches!(q, ControlQuery::SchemaVersions | ControlQuery::SchemaLocal) {
            self.agreement_query_in_flight = false;
            self.agreement_check_at = Some(now.saturating_add(SCHEMA_AGREEMENT_POLL_US));
            return;
        }
        if q == ControlQuery::PeersV2 && matches!(&error, RequestError::Server(e) if e.code == 0x2200) {
            // Servers before 4.0 have no peers_v2.
            self.send_control(now, conn, ControlQuery::Peers);
            return;
        }
        if self.lost_the_control(conn, q) {
            return;
        }
        if q == ControlQuery::Register && self.ready && matches!(error, RequestError::Timeout { .. } | RequestError::Server(_)) {
            self.on_register_failed(now, conn, &error);
            return;
        }
        let host = self.conn(conn).map(|c| c.address.as_str()).unwrap_or_default();
        self.events.push_back(EventOut::Log(format!("control query {q:?} failed: {} (host {host})", request_error_message(&error))));
        match &error {
            // The control connection died: its successor asks again (see make_control).
            RequestError::Closed { .. } | RequestError::Protocol { .. } => return,
            // Slow, not refused: ask again on the same connection.
            RequestError::Timeout { timeout_ms, .. } => {
                if !self.ready && self.conns.iter().flatten().any(|c| c.id != conn && c.status != ConnStatus::Closed) {
                    // Joining, and another contact point is open: a node that leaves its own
                    // system tables unanswered must not hold the connect to its deadline.
                    let message = format!("the server did not answer the control query {q:?} within {timeout_ms} ms");
                    if let Some(c) = self.conn_mut(conn) {
                        c.inner.time_out(message);
                    }
                } else if self.conn(conn).is_some_and(|c| c.status == ConnStatus::Ready) {
                    self.send_control(now, conn, q);
                }
                return;
            }
            RequestError::Server(_) => {}
        }
        // Refused (say, no permission on system tables): the session goes on with what it has.
        match q {
            ControlQuery::Local => self.control_local = Some(PeerRow::default()),
            ControlQuery::PeersV2 | ControlQuery::Peers => self.control_peers = Some(Vec::new()),
            ControlQuery::Keyspaces => self.control_keyspaces = Some(Vec::new()),
            // A refused REGISTER (logged above): the metadata is read all the same.
            ControlQuery::Register => return,
            ControlQuery::SchemaVersions | ControlQuery::SchemaLocal => {}
        }
        self.try_apply_metadata(now, conn);
    }

    /// An answer (or failure) from a connection the control has since left: its metadata
    /// would mix with the new control node's. Schema agreement asks the cluster, not one node:
    /// its late answers still count.
    fn lost_the_control(&self, conn: ConnId, q: ControlQuery) -> bool {
        self.control != Some(conn) && !matches!(q, ControlQuery::SchemaVersions | ControlQuery::SchemaLocal)
    }

    /// Without an answer to REGISTER, the server sends no topology, status or schema event
    /// on this connection, and the session would never hear of one. As the DataStax drivers
    /// do (the Node.js driver's ControlConnection treats a failed REGISTER as a failed
    /// refresh and moves on to the next host of its plan), the control moves to another
    /// ready connection, preferably to another node, which reads the metadata and registers
    /// afresh; the connection stays in its pool for requests. Alone, REGISTER is sent again.
    /// A refusal (an ERROR answer) is handled alike the first time; refused again before a
    /// REGISTER is answered, the control waits the reconnection backoff before it moves or
    /// asks again, so nodes that all refuse are not asked in a loop.
    #[inline(never)] // cold: see process_conn_events
    fn on_register_failed(&mut self, now: u64, conn: ConnId, error: &RequestError) {
        let host = self.conn(conn).map(|c| c.address.clone()).unwrap_or_default();
        let message = request_error_message(error);
        let retry_in = match (error, self.register_backoff.as_mut()) {
            (RequestError::Server(_), Some(backoff)) => Some(backoff.next_delay().value),
            (RequestError::Server(_), None) => {
                let (base, max, seed) = (self.config.reconnect_base_us, self.config.reconnect_max_us, self.config.seed);
                self.register_backoff = Some(Backoff::new(base, max, Jitter::Full, seed));
                None
            }
            _ => None,
        };
        let then = match (retry_in, self.next_control(conn)) {
            (Some(delay), _) => format!("tried again in {} ms", delay / 1000),
            (None, Some((_, address))) => format!("the control moves to {address}"),
            (None, None) => "asked again".to_owned(),
        };
        self.events.push_back(EventOut::Log(format!("control query Register failed: {message} (host {host}): no events from it; {then}")));
        match retry_in {
            Some(delay) => self.register_retry_at = Some(now.saturating_add(delay)),
            None => self.move_control_or_register(now, conn),
        }
    }

    /// Another ready connection to take the control from `conn`, preferably to another node.
    fn next_control(&self, conn: ConnId) -> Option<(ConnId, String)> {
        let host = self.conn(conn).map(|c| c.address.as_str()).unwrap_or_default();
        self.conns
            .iter()
            .flatten()
            .filter(|c| c.id != conn && c.status == ConnStatus::Ready && c.inner.state() == State::Ready)
            .min_by_key(|c| c.address == host)
            .map(|c| (c.id, c.address.clone()))
    }

    /// The control moves from `conn` to the next ready connection, or, alone, sends REGISTER again.
    fn move_control_or_register(&mut self, now: u64, conn: ConnId) {
        match self.next_control(conn) {
            Some((next, _)) => self.make_control(now, next),
            None if self.conn(conn).is_some_and(|c| c.status == ConnStatus::Ready) => self.send_control(now, conn, ControlQuery::Register),
            None => {}
        }
    }

    fn try_apply_metadata(&mut self, now: u64, conn: ConnId) {
        if self.control_local.is_none() || self.control_peers.is_none() || self.control_keyspaces.is_none() {
            return;
        }
        let control_address = self.conn(conn).map(|c| c.address.clone()).unwrap_or_default();
        let mut local = self.control_local.clone().unwrap_or_default();
        if local.host_id.is_none() {
            // No usable system.local: keep the node we are talking to, by its address.
            local.host_id = Some(address_host_id(&control_address));
            local.data_center.get_or_insert_with(|| self.config.policy.local_dc.clone().unwrap_or_default());
            // Nor its rack: without one the topology would skip the very node that answers,
            // and a one-node cluster would have no node at all (every request waiting out its
            // plan restarts, ~13 s, then NoHostAvailable). Whole-client fuzz, seed 5723.
            local.rack.get_or_insert_with(String::new);
        }
        let peers = self.control_peers.clone().unwrap_or_default();
        let applied = self.view.apply_topology(&control_address, &local, &peers, self.config.default_port);
        for s in &applied.skipped {
            self.events.push_back(EventOut::Log(format!("topology row {:?} skipped: {}", s.peer_index, s.reason)));
        }
        if let Some(ks) = self.control_keyspaces.clone() {
            self.view.apply_keyspaces(&ks);
        }
        self.assign_conns_to_nodes();
        self.ensure_pools();
        if !self.ready {
            self.ready = true;
            self.warming_up = true;
        } else if applied.nodes_changed {
            self.events.push_back(EventOut::NodesChanged);
        }
        if std::mem::take(&mut self.control_dirty) {
            self.refresh_control(now);
        }
        self.announce_ready_when_warm();
    }

    /// Announces `Ready` once no local node's pool is still opening its first connection
    /// (at once without `SessionConfig::warmup`).
    fn announce_ready_when_warm(&mut self) {
        if self.warming_up && (!self.config.warmup || self.local_pools_settled()) {
            self.warming_up = false;
            self.events.push_back(EventOut::Ready);
        }
    }

    /// Every local node's pool has a connection up or none opening: what it opened failed
    /// (it waits out a reconnection delay), or it wants none. Remote nodes are not waited for.
    fn local_pools_settled(&self) -> bool {
        let ready = |id: &ConnId| self.conn(*id).is_some_and(|c| c.status == ConnStatus::Ready);
        let settled = |p: &Pool| p.conns.is_empty() || p.conns.iter().any(ready);
        self.view.nodes().filter(|n| n.distance == Distance::Local).all(|n| self.pools.get(n.id as usize).is_none_or(settled))
    }

    /// Gives every connection the node id of its address, and closes connections to
    /// addresses that are not nodes (a contact point named differently, say).
    fn assign_conns_to_nodes(&mut self) {
        for p in self.pools.iter_mut() {
            p.conns.clear();
        }
        let mut unmatched = Vec::new();
        let ids: Vec<ConnId> = self.conns.iter().flatten().filter(|c| c.status != ConnStatus::Closed).map(|c| c.id).collect();
        for id in ids {
            let Some(address) = self.conn(id).map(|c| c.address.clone()) else { continue };
            match self.view.node_by_address(&address).map(|n| n.id) {
                Some(node) => {
                    if let Some(c) = self.conn_mut(id) {
                        c.node = Some(node);
                    }
                    let pool = self.pool_mut(node);
                    pool.address = address;
                    pool.conns.push(id);
                }
                None => unmatched.push(id),
            }
        }
        for id in unmatched {
            if Some(id) != self.control {
                self.close_conn(id);
            }
        }
    }

    fn wanted_connections(&self, node: &crate::cluster::Node) -> usize {
        if !self.config.discover_peers && !self.contact_points.iter().any(|c| *c == node.address) {
            return 0;
        }
        match node.distance {
            Distance::Local => self.wanted_sharded(node.id).unwrap_or(self.config.connections_per_node),
            Distance::Remote => 1,
            Distance::Ignored => 0,
        }
    }

    fn ensure_pools(&mut self) {
        let nodes: Vec<(u32, String, usize)> =
            self.view.nodes().map(|n| (n.id, n.address.clone(), self.wanted_connections(n))).collect();
        for (id, address, _) in &nodes {
            let pool = self.pool_mut(*id);
            pool.address = address.clone();
        }
        // Pools of nodes gone from the view hold nothing here: `assign_conns_to_nodes`, run
        // just before, emptied every pool, refilled only those of nodes in the view and closed
        // the connections left over.
        for (id, _, wanted) in nodes {
            let open = self.pools[id as usize].conns.len();
            if open > wanted {
                let extra: Vec<ConnId> = self.pools[id as usize].conns.split_off(wanted);
                for c in extra {
                    if Some(c) != self.control {
                        self.close_conn(c);
                    } else {
                        self.pools[id as usize].conns.push(c);
                    }
                }
            }
            if self.pools[id as usize].retry_at.is_none() {
                self.fill_pool(id);
            }
        }
    }

    fn fill_pool(&mut self, node: u32) {
        if self.view.node(node).is_some_and(|n| n.distance == Distance::Local) && self.fill_sharded_pool(node) {
            return;
        }
        let Some(n) = self.view.node(node) else { return };
        let wanted = self.wanted_connections(n);
        let address = n.address.clone();
        let have = self.pools.get(node as usize).map(|p| p.conns.len()).unwrap_or(0);
        for _ in have..wanted {
            self.open_conn(address.clone(), Some(node));
        }
    }

    fn close_conn(&mut self, id: ConnId) {
        if let Some(c) = self.conn_mut(id) {
            if c.status != ConnStatus::Closed {
                c.status = ConnStatus::Closed;
                self.commands.push_back(Command::Close { conn: id });
                self.metrics.connections_closed += 1;
                self.graveyard.push(id);
            }
        }
        for p in self.pools.iter_mut() {
            p.conns.retain(|c| *c != id);
        }
    }

    /// The node's next reconnection delay, from its pool's backoff.
    fn next_reconnect_delay(&mut self, node: u32) -> crate::cluster::Decision<u64> {
        let seed = SplitMix64::derive(self.config.seed, node as u64);
        let (base, max) = (self.config.reconnect_base_us, self.config.reconnect_max_us);
        let backoff = self.pool_mut(node).backoff.get_or_insert_with(|| Backoff::new(base, max, Jitter::Full, seed));
        backoff.next_delay()
    }

    #[inline(never)] // cold: see process_conn_events
    fn on_conn_closed(&mut self, now: u64, conn: ConnId, reason: CloseReason) {
        let Some(c) = self.conn_mut(conn) else { return };
        let never_ready = matches!(c.status, ConnStatus::Connecting | ConnStatus::Handshaking);
        let address = c.address.clone();
        let node = c.node;
        let already_closed = c.status == ConnStatus::Closed;
        c.status = ConnStatus::Closed;
        // Requests still in flight there were failed by the connection as Closed events,
        // already processed; anything left is answered here.
        let orphaned: Vec<(u32, Purpose)> = c.in_flight.drain();
        if !already_closed {
            self.commands.push_back(Command::Close { conn });
            self.metrics.connections_closed += 1;
            self.graveyard.push(conn);
        }
        for p in self.pools.iter_mut() {
            p.conns.retain(|c| *c != conn);
        }
        for (_, purpose) in orphaned {
            // A re-prepare is an attempt of its request too: it fails (and is retried or not) with it.
            if let Purpose::User { req } | Purpose::Reprepare { req } = purpose {
                // Whether it reached the socket is not known here: assume it did.
                let err = RequestError::Closed { message: format!("connection closed: {}", reason.message()), written: true };
                self.on_attempt_failed(now, req, conn, err);
            }
        }
        if let CloseReason::VersionRefused { fallback, .. } = reason {
            if fallback >= 4 && !self.ready {
                self.config.connection.protocol_version = fallback;
                self.open_conn(address, node);
                return;
            }
        }
        if self.control == Some(conn) {
            self.control = None;
            let next = self.conns.iter().flatten().find(|c| c.status == ConnStatus::Ready).map(|c| c.id);
            if let Some(next) = next {
                self.make_control(now, next);
            }
        }
        if !self.ready {
            // Also a connection that was ready: its control queries may be what failed.
            self.connect_errors.push((address, reason));
            let pending = self.conns.iter().flatten().any(|c| c.status != ConnStatus::Closed);
            if !pending {
                self.events.push_back(EventOut::ConnectFailed(std::mem::take(&mut self.connect_errors)));
            }
            return;
        }
        let Some(node) = node else { return };
        let pool_empty = self.pools.get(node as usize).is_none_or(|p| p.conns.is_empty());
        if pool_empty {
            let delay = self.next_reconnect_delay(node);
            let pool = self.pool_mut(node);
            // The node may come back with another shard count: the refill then starts on the
            // regular port, whose first SUPPORTED tells the count anew before any source port
            // for the shard-aware port is computed from it.
            pool.sharding = None;
            pool.retry_at = Some(now.saturating_add(delay.value));
            let report = !std::mem::replace(&mut pool.down_reported, true);
            *self.metrics.decisions.get_or_insert(delay.reason, 0) += 1;
            if self.view.set_up(&address, false) || report {
                self.events.push_back(EventOut::NodeDown(address, close_message(&reason)));
            }
        } else if never_ready {
            // A connection that never came up (a refused shard, say) is tried again after a
            // backoff, not at once: a node refusing it would otherwise be asked in a loop.
            let delay = self.next_reconnect_delay(node).value;
            self.pool_mut(node).retry_at.get_or_insert(now.saturating_add(delay));
        } else {
            self.fill_pool(node);
        }
        self.announce_ready_when_warm();
    }

    #[inline(never)] // cold: see process_conn_events
    fn on_server_event(&mut self, now: u64, conn: ConnId, e: ServerEvent) {
        if self.control != Some(conn) {
            // Registered before the control moved away from it (a REGISTER answered after
            // its timeout): the new control connection tells the same events once.
            return;
        }
        let action = {
            let cluster_event = match &e {
                ServerEvent::TopologyChange { change, address } => {
                    TopologyChange::parse(change).map(|change| ClusterEvent::TopologyChange { change, address })
                }
                ServerEvent::StatusChange { change, address } => {
                    StatusChange::parse(change).map(|change| ClusterEvent::StatusChange { change, address })
                }
                ServerEvent::SchemaChange { target, keyspace, .. } => {
                    SchemaTarget::parse(target).map(|target| ClusterEvent::SchemaChange { target, keyspace })
                }
            };
            cluster_event.map(|ce| crate::cluster::decide_event(&self.view, &ce))
        };
        if let Some(d) = action {
            *self.metrics.decisions.get_or_insert(d.reason, 0) += 1;
            match &e {
                ServerEvent::TopologyChange { .. } => self.tablets.clear(),
                ServerEvent::SchemaChange { keyspace, .. } => self.forget_tablets_of(keyspace),
                ServerEvent::StatusChange { .. } => {}
            }
            match d.value {
                Some(RefreshAction::Peers) | Some(RefreshAction::Keyspace(_)) => {
                    if self.refresh_debounce.on_event(now, self.config.refresh_delay_us) {
                        self.refresh_control(now);
                    }
                }
                Some(RefreshAction::MarkUp(address)) => {
                    if let Some(id) = self.view.node_by_address(&address).map(|n| n.id) {
                        self.pool_mut(id).retry_at = Some(now);
                    }
                }
                Some(RefreshAction::MarkDown(_)) | None => {}
            }
        }
        self.events.push_back(EventOut::ServerEvent(e));
    }

    fn refresh_control(&mut self, now: u64) {
        let Some(conn) = self.control else { return };
        if self.control_local.is_none() || self.control_peers.is_none() || self.control_keyspaces.is_none() {
            // A refresh is under way; do one more once it lands.
            self.control_dirty = true;
            return;
        }
        self.control_local = None;
        self.control_peers = None;
        self.control_keyspaces = None;
        self.send_control(now, conn, ControlQuery::Local);
        self.send_control(now, conn, ControlQuery::PeersV2);
        self.send_control(now, conn, ControlQuery::Keyspaces);
    }

    // ---- internals: request outcomes -----------------------------------------------------------------

    fn on_user_response(&mut self, now: u64, req_id: SessionRequestId, conn: ConnId, frame_flags: u8, start: usize, end: usize) {
        let Some(r) = self.req_mut(req_id) else { return };
        let (table, attempts) = (r.table, r.sent.max(1));
        // One send means one execution (`send_on` counts both): nothing to cancel or keep.
        let plain = r.sent <= 1 && r.opcode != Opcode::Prepare;
        if plain && self.tried.is_empty() {
            // The common answer: freed where it lies (moving a `Req` out copies it, issue #17).
            self.free_req(req_id);
        } else if !self.settle_retried_or_prepare(now, req_id, conn, frame_flags, start, end) {
            return;
        }
        self.metrics.responses += 1;
        self.learn_tablet(table, conn, frame_flags, start, end);
        if self.is_schema_change(conn, frame_flags, start, end) {
            // `nth(1)`: a second node is enough to know, without counting them all per answer.
            if self.view.nodes().nth(1).is_some() {
                self.await_schema_agreement(now, req_id, conn, frame_flags, start, end, attempts);
                return;
            }
            // One node has nothing to agree with: the view is read again at once.
            self.refresh_after_own_ddl(now);
        }
        if !self.arenas_in_use.contains(&conn) {
            self.arenas_in_use.push(conn);
        }
        self.events.push_back(EventOut::Response { id: req_id, conn, frame_flags, start, end, attempts });
    }

    /// The answer to a request sent more than once, or to a PREPARE: keeps its history, cancels
    /// its other executions, remembers the statement. False when the request is gone.
    #[inline(never)] // cold: see process_conn_events
    fn settle_retried_or_prepare(&mut self, now: u64, req_id: SessionRequestId, conn: ConnId, frame_flags: u8, start: usize, end: usize) -> bool {
        let Some(mut req) = self.take_req(req_id) else { return false };
        if req.sent > 1 || !self.tried.is_empty() {
            let sent_at = req.executions.iter().rev().find(|e| e.0 == conn).map_or(now, |e| e.2);
            self.keep_tried(req_id, &mut req, now.saturating_sub(sent_at));
        }
        // The answered execution is no longer in flight: cancelling skips it, so a request
        // answered by its only execution cancels nothing (no guard on the count: it could not
        // change what is cancelled).
        self.cancel_executions(now, &req.executions);
        if req.opcode == Opcode::Prepare {
            self.remember_prepared(&req.body, conn, frame_flags, start, end);
            self.prepare_on_other_nodes(now, &req.body, conn);
        }
        self.recycle(&mut req);
        true
    }

    /// A DDL answer waits until every live node runs the new schema, so the statement that
    /// follows does not meet a node that has never heard of the table.
    #[inline(never)] // cold: see process_conn_events
    #[allow(clippy::too_many_arguments)]
    fn await_schema_agreement(&mut self, now: u64, req_id: SessionRequestId, conn: ConnId, frame_flags: u8, start: usize, end: usize, attempts: u32) {
        let body = self.conn(conn).map(|c| c.inner.arena_slice(start, end).to_vec()).unwrap_or_default();
        let node = self.conn(conn).and_then(|c| c.node).unwrap_or(NO_NODE);
        if self.awaiting_agreement.is_empty() {
            self.agreement_deadline = now.saturating_add(self.config.schema_agreement_timeout_us);
            self.agreement_check_at = Some(now);
        }
        self.awaiting_agreement.push(EventOut::Owned { id: req_id, frame_flags, body, node, attempts });
        self.check_schema_agreement(now);
    }

    fn is_schema_change(&self, conn: ConnId, frame_flags: u8, start: usize, end: usize) -> bool {
        let Some(c) = self.conn(conn) else { return false };
        let raw = c.inner.arena_slice(start, end);
        crate::connection::skip_response_prefix(raw, frame_flags)
            .is_ok_and(|body| body.get(..4) == Some(&message::RESULT_SCHEMA_CHANGE.to_be_bytes()[..]))
    }

    /// Asks the control node for every node's schema version, unless it is time to give up.
    fn check_schema_agreement(&mut self, now: u64) {
        if self.awaiting_agreement.is_empty() || self.agreement_query_in_flight {
            return;
        }
        if now >= self.agreement_deadline {
            let seconds = self.config.schema_agreement_timeout_us / 1_000_000;
            self.events.push_back(EventOut::Log(format!("schema agreement not reached within {seconds} s; going on")));
            self.release_agreement(now);
            return;
        }
        if self.agreement_check_at.is_some_and(|t| t > now) {
            return;
        }
        self.agreement_check_at = None;
        match self.control {
            Some(conn) => {
                self.agreement_query_in_flight = true;
                self.agreement_local = None;
                self.agreement_peers = None;
                self.send_control(now, conn, ControlQuery::SchemaLocal);
                self.send_control(now, conn, ControlQuery::SchemaVersions);
            }
            None => self.agreement_check_at = Some(now.saturating_add(SCHEMA_AGREEMENT_POLL_US)),
        }
    }

    fn release_agreement(&mut self, now: u64) {
        self.events.extend(self.awaiting_agreement.drain(..));
        self.agreement_check_at = None;
        self.refresh_after_own_ddl(now);
    }

    /// The client's own DDL is answered (and agreed on): the view is read again now, not after
    /// the debounce, whether or not its event came yet, as DataStax refreshes for a DDL's
    /// own result at once. A refresh its event scheduled is this one.
    fn refresh_after_own_ddl(&mut self, now: u64) {
        self.refresh_debounce.take_pending();
        self.refresh_control(now);
    }

    /// Keeps what routing and transparent re-preparation need from a PREPARE's result.
    fn remember_prepared(&mut self, prepare_body: &[u8], conn: ConnId, frame_flags: u8, start: usize, end: usize) {
        let body = self.response_body(conn, frame_flags, start, end);
        let version = self.config.connection.protocol_version;
        let Ok(info) = message::decode_prepared(&body, version) else { return };
        let cql = Reader::new(prepare_body).long_string("prepare query").unwrap_or_default().to_owned();
        let mask = self.conn(conn).and_then(|c| c.inner.scylla().lwt_flag_mask);
        let lwt = crate::lwt::is_lwt(&cql, info.flags, mask);
        let keyspace = info.keyspace.map(|k| k.to_owned());
        let keyspace = keyspace.map(|k| self.intern_keyspace(&k));
        let table = match (keyspace, info.table) {
            (Some(ks), Some(t)) => Some(self.intern_table(ks, t)),
            _ => None,
        };
        let bind_columns = info.bind_columns.into_iter().map(|(n, t)| (n.to_owned(), t)).collect();
        self.prepared.insert(info.id, PreparedMeta { cql, keyspace, table, pk_indexes: info.pk_indexes, lwt, bind_columns });
    }

    #[inline(never)] // cold: see process_conn_events
    fn on_reprepared(&mut self, now: u64, req_id: SessionRequestId, conn: ConnId, prepare: u32) {
        let Some(req) = self.req_mut(req_id) else { return };
        // The PREPARE is done: left among the executions, it would read as a speculative
        // execution still running, and once the EXECUTE moved to another connection (this one
        // closed) the request's last failure would wait on it forever (whole-client fuzz, seed 46).
        req.executions.retain(|e| (e.0, e.1) != (conn, prepare));
        if !self.send_on(now, req_id, conn, Purpose::User { req: req_id }) {
            self.send_to_next_node(now, req_id, "re-prepared elsewhere");
        }
    }

    fn fail_req(&mut self, now: u64, req_id: SessionRequestId, conn: ConnId, error: RequestError) {
        let Some(mut req) = self.take_req(req_id) else { return };
        let node = self.conn(conn).map(|c| c.address.clone()).unwrap_or_default();
        self.metrics.failures += 1;
        let mut errors = req.errors.clone();
        if errors.last().is_none_or(|e| e.node != node) {
            let mut attempt_error = NodeError::new(node.clone(), &error);
            let sent_at = req.executions.iter().rev().find(|e| e.0 == conn).map(|e| e.2);
            attempt_error.elapsed_us = sent_at.map_or(0, |t| now.saturating_sub(t));
            errors.push(attempt_error);
        }
        let error = SessionError { error, node, attempts: req.sent.max(1), no_host_available: false, errors, trace: req.trace.clone() };
        self.events.push_back(EventOut::Failed { id: req_id, error });
        self.recycle(&mut req);
    }

    fn on_attempt_failed(&mut self, now: u64, req_id: SessionRequestId, conn: ConnId, error: RequestError) {
        let node_address = self.conn(conn).map(|c| c.address.clone()).unwrap_or_default();
        let Some(req) = self.req_mut(req_id) else { return };
        let sent_at = req.executions.iter().rev().find(|e| e.0 == conn).map_or(now, |e| e.2);
        req.executions.retain(|(c, _, _)| *c != conn);
        let mut attempt_error = NodeError::new(node_address.clone(), &error);
        attempt_error.elapsed_us = now.saturating_sub(sent_at);
        req.errors.push(attempt_error);
        if let RequestError::Server(e) = &error {
            // Each node keeps its own prepared statements: prepare again there what it lost.
            if e.code == 0x2500 && self.reprepare_lost(now, req_id, conn, &e.details) {
                return;
            }
        }
        let Some(req) = self.req_mut(req_id) else { return };
        if !req.executions.is_empty() {
            // A speculative execution is still running; its outcome decides.
            return;
        }
        if matches!(error, RequestError::Timeout { .. }) {
            self.metrics.client_timeouts += 1;
        }
        let Some(req) = self.req_mut(req_id) else { return };
        let (attempt, idempotent, lwt) = (req.attempt, req.idempotent, req.lwt);
        let kind = classify(&error);
        let decision = self.config.retry.decide(kind, attempt, idempotent, lwt);
        *self.metrics.decisions.get_or_insert(decision.reason, 0) += 1;
        let Some(req) = self.req_mut(req_id) else { return };
        if let Some(last) = req.errors.last_mut() {
            last.decision = Some(decision.value);
        }
        req.trace.push(TraceEntry { node: node_address, decision: decision_name(decision.value), reason: decision.reason });
        match decision.value {
            RetryDecision::Rethrow if decision.reason == NOT_RESENT => self.fail_req(now, req_id, conn, explain_not_resent(error)),
            RetryDecision::Rethrow => self.fail_req(now, req_id, conn, error),
            RetryDecision::Ignore => {
                if let Some(mut req) = self.take_req(req_id) {
                    let node = self.conn(conn).and_then(|c| c.node).unwrap_or(NO_NODE);
                    self.events.push_back(EventOut::Synthetic { id: req_id, body: VOID_RESULT, node });
                    self.recycle(&mut req);
                }
            }
            RetryDecision::RetrySameNode => {
                self.metrics.retries += 1;
                if let Some(r) = self.req_mut(req_id) {
                    r.attempt += 1;
                }
                let node = self.conn(conn).and_then(|c| c.node);
                let token = self.req_mut(req_id).and_then(|r| r.token);
                let target = node.and_then(|n| self.pick_conn(n, token));
                let sent = target.is_some_and(|t| self.send_on(now, req_id, t, Purpose::User { req: req_id }));
                if !sent {
                    self.send_to_next_node(now, req_id, "retry (same node unavailable)");
                }
            }
            RetryDecision::RetryNextNode => {
                self.metrics.retries += 1;
                if let Some(r) = self.req_mut(req_id) {
                    r.attempt += 1;
                }
                self.send_to_next_node(now, req_id, "retry on the next node");
            }
        }
    }

    fn reprepare(&mut self, now: u64, req_id: SessionRequestId, conn: ConnId, cql: &str) {
        let version = self.config.connection.protocol_version;
        self.scratch.clear();
        if encode_body(&mut self.scratch, version, &Request::Prepare { cql, keyspace: None }).is_err() {
            return;
        }
        let body = std::mem::take(&mut self.scratch);
        let sent = match self.conn_mut(conn) {
            Some(c) => match c.inner.start_encoded(now, Opcode::Prepare, 0, &body, None) {
                Ok(id) => {
                    c.in_flight.insert(id, Purpose::Reprepare { req: req_id });
                    if let Some(r) = self.req_mut(req_id) {
                        r.executions.push((conn, id, now));
                    }
                    true
                }
                Err(_) => false,
            },
            None => false,
        };
        self.scratch = body;
        if !sent {
            self.send_to_next_node(now, req_id, "re-prepare failed here");
        }
    }
}

/// A written request whose connection closed and that was not sent again says why: the
/// caller must know it may or may not have been applied.
fn explain_not_resent(error: RequestError) -> RequestError {
    match error {
        RequestError::Closed { message, written: true } => RequestError::Closed {
            message: format!(
                "{message}; the request had been written and the statement is not idempotent, so it was not \
                 sent again: it may or may not have been applied"
            ),
            written: true,
        },
        other => other,
    }
}

fn decision_name(d: RetryDecision) -> &'static str {
    match d {
        RetryDecision::RetryNextNode => "retry next node",
        RetryDecision::RetrySameNode => "retry same node",
        RetryDecision::Rethrow => "rethrow",
        RetryDecision::Ignore => "ignore",
    }
}

pub fn request_error_message(e: &RequestError) -> String {
    match e {
        RequestError::Server(s) => format!("{} ({}): {}", s.code_name, s.code, s.message),
        RequestError::Timeout { message, .. } | RequestError::Closed { message, .. } => message.clone(),
        RequestError::Protocol { message, .. } => message.clone(),
    }
}

fn classify(e: &RequestError) -> ErrorKind {
    match e {
        RequestError::Timeout { .. } => ErrorKind::ClientTimeout,
        RequestError::Closed { written: false, .. } => ErrorKind::NotWritten,
        RequestError::Closed { .. } | RequestError::Protocol { .. } => ErrorKind::ConnectionClosed,
        RequestError::Server(s) => match (s.code, &s.details) {
            (_, ErrorDetails::RateLimitReached { .. }) => ErrorKind::RateLimited,
            (0x1000, _) => ErrorKind::Unavailable,
            (0x1001, _) => ErrorKind::Overloaded,
            (0x1002, _) => ErrorKind::IsBootstrapping,
            (0x1003, _) => ErrorKind::TruncateError,
            (0x0000, _) => ErrorKind::ServerError,
            (0x1200, ErrorDetails::ReadTimeout { received, block_for, data_present, .. }) => {
                ErrorKind::ReadTimeout { received: *received, block_for: *block_for, data_present: *data_present }
            }
            (0x1100, ErrorDetails::WriteTimeout { write_type, .. }) => {
                ErrorKind::WriteTimeout { write_type: WriteType::parse(write_type) }
            }
            _ => ErrorKind::Other,
        },
    }
}

/// CREATE, ALTER and DROP statements.
fn is_ddl(request: &Request) -> bool {
    let Request::Query { cql, .. } = request else { return false };
    // Bytes, not str: the user's text may have a multi-byte character where a keyword ends.
    let head = cql.trim_start().as_bytes();
    ["CREATE", "ALTER ", "DROP "].iter().any(|k| head.get(..k.len()).is_some_and(|h| h.eq_ignore_ascii_case(k.as_bytes())))
}

/// A stable stand-in host id for a node known only by its address.
fn address_host_id(address: &str) -> [u8; 16] {
    let mut id = [0u8; 16];
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (i, b) in address.bytes().enumerate() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        id[i % 16] ^= (h >> 24) as u8;
    }
    id[..8].copy_from_slice(&h.to_be_bytes());
    id
}

fn peer_row(rows: &Rows, cells: &[Option<&[u8]>]) -> PeerRow {
    let get = |name: &str| rows.column_index(name).and_then(|i| cells.get(i).copied().flatten());
    PeerRow {
        rpc_address: cell::inet(get("rpc_address")),
        native_address: cell::inet(get("native_address")),
        native_port: cell::int(get("native_port")).and_then(|p| u16::try_from(p).ok()),
        peer: cell::inet(get("peer")).or_else(|| cell::inet(get("broadcast_address"))),
        data_center: cell::text(get("data_center")),
        rack: cell::text(get("rack")),
        tokens: cell::text_collection(get("tokens")),
        host_id: cell::uuid(get("host_id")),
        release_version: cell::text(get("release_version")),
    }
}
