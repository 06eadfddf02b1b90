//! The Scylla personality (`--scylla-shards N`): what a ScyllaDB node tells drivers about its
//! shards, per the protocol-extension document, and counters of which shard served what.
//!
//! Each connection belongs to one shard. On the shard-aware port the client's source port
//! modulo N picks it (plus one with `--scylla-nat`, as if a NAT rewrote the port); on the
//! regular port connections go round-robin. Every EXECUTE with a routable partition key is
//! counted as served by its connection's shard, and as on the owning shard or not, by the
//! core's own `shard_of` (its vectors come from an independent implementation).
//! `--scylla-rate-limit-every K` refuses every Kth EXECUTE or BATCH with Scylla's rate-limit
//! error; the rows of accepted writes are counted, with their distinct partition tokens, so a
//! test can tell that a load lost or doubled none.

use std::collections::HashSet;

use cqlwire_core::cluster::{encode_tablet, shard_of, Tablet, TabletReplica, TABLETS_ROUTING_V1_PAYLOAD};

pub const IGNORE_MSB: u8 = 12;
pub const LWT_FLAG: i32 = i32::MIN;
pub const RATE_LIMIT_ERROR: i32 = 0xF000;

#[derive(Debug, Clone, Default)]
pub struct Options {
    pub shards: u16,
    pub shard_port: Option<u16>,
    pub nat: bool,
    /// Every Kth EXECUTE or BATCH is refused with the rate-limit error (0: never).
    pub rate_limit_every: u64,
    /// `--scylla-tablets`: offer TABLETS_ROUTING_V1 and lay every table out in tablets.
    pub tablets: bool,
    /// `--scylla-warmup K`: the first K EXECUTEs are a client's warm-up; the report also
    /// counts the ones after it apart (a pool still opening its shards' connections then
    /// weighs on the overall figure only).
    pub warmup: u64,
}

/// Tablets per table in `--scylla-tablets` mode.
pub const TABLETS: i128 = 16;

/// The deterministic tablet layout: 16 equal token ranges, tablet j on shard (j + 1) mod N
/// of this node (rarely the shard Scylla's formula gives the token, so a client that is
/// only shard-aware misroutes, and one that keeps the tablet map does not).
pub fn tablet_of(token: i64, shards: u16) -> Tablet {
    let width = (1i128 << 64) / TABLETS;
    let j = ((token as i128 - 1 - i64::MIN as i128) / width).clamp(0, TABLETS - 1);
    let bound = |j: i128| if j == TABLETS { i64::MAX } else { (i64::MIN as i128 + j * width) as i64 };
    let shard = ((j + 1) % i128::from(shards.max(1))) as u16;
    Tablet { first: bound(j), last: bound(j + 1), replicas: vec![TabletReplica { host_id: crate::catalog::HOST_ID, shard }] }
}

#[derive(Default)]
pub struct Personality {
    pub options: Options,
    round_robin: u16,
    /// Connections accepted on the shard-aware port.
    shard_port_connections: u64,
    executes: u64,
    on_owning_shard: u64,
    unroutable: u64,
    /// EXECUTEs and BATCHes, the requests the rate limit counts; those refused.
    requests: u64,
    rate_limited: u64,
    batches: u64,
    /// Rows of accepted writes (an INSERT EXECUTE is one, a BATCH one per statement), and
    /// the partition tokens among them: a load that lost or doubled a row shows here.
    rows_written: u64,
    written_tokens: HashSet<i64>,
    /// EXECUTEs after the warm-up, and those of them on the owning shard.
    measured: u64,
    measured_on_owning_shard: u64,
    tablet_hits: u64,
    measured_tablet_hits: u64,
    tablet_misroutes: u64,
    per_shard: Vec<u64>,
}

impl Personality {
    pub fn new(options: Options) -> Self {
        let per_shard = vec![0; usize::from(options.shards)];
        Self { options, per_shard, ..Self::default() }
    }

    pub fn enabled(&self) -> bool {
        self.options.shards > 0
    }

    /// The shard of a connection accepted on the shard-aware port from `peer_port`, or on
    /// the regular port (`None`).
    pub fn assign(&mut self, peer_port: Option<u16>) -> u16 {
        let n = self.options.shards.max(1);
        match peer_port {
            Some(p) => {
                self.shard_port_connections += 1;
                (p % n + u16::from(self.options.nat)) % n
            }
            None => {
                self.round_robin = self.round_robin.wrapping_add(1);
                (self.round_robin - 1) % n
            }
        }
    }

    /// The SUPPORTED entries of a connection served by `shard`.
    pub fn supported(&self, shard: u16) -> Vec<(&'static str, Vec<String>)> {
        let mut out = vec![
            ("SCYLLA_SHARD", vec![shard.to_string()]),
            ("SCYLLA_NR_SHARDS", vec![self.options.shards.to_string()]),
            ("SCYLLA_PARTITIONER", vec!["org.apache.cassandra.dht.Murmur3Partitioner".to_owned()]),
            ("SCYLLA_SHARDING_ALGORITHM", vec!["biased-token-round-robin".to_owned()]),
            ("SCYLLA_SHARDING_IGNORE_MSB", vec![IGNORE_MSB.to_string()]),
            ("SCYLLA_LWT_ADD_METADATA_MARK", vec![format!("LWT_OPTIMIZATION_META_BIT_MASK={}", LWT_FLAG as u32)]),
            ("SCYLLA_RATE_LIMIT_ERROR", vec![format!("ERROR_CODE={RATE_LIMIT_ERROR}")]),
        ];
        if let Some(p) = self.options.shard_port {
            out.push(("SCYLLA_SHARD_AWARE_PORT", vec![p.to_string()]));
        }
        if self.options.tablets {
            out.push(("TABLETS_ROUTING_V1", Vec::new()));
        }
        out
    }

    /// Counts an EXECUTE served by `shard` for a partition of this token (`None`: no
    /// partition key bound).
    pub fn count_execute(&mut self, shard: u16, token: Option<i64>) {
        self.executes += 1;
        if let Some(n) = self.per_shard.get_mut(usize::from(shard)) {
            *n += 1;
        }
        let measured = self.executes > self.options.warmup;
        self.measured += u64::from(measured);
        match token {
            Some(token) if shard_of(token, self.options.shards, IGNORE_MSB) == shard => {
                self.on_owning_shard += 1;
                self.measured_on_owning_shard += u64::from(measured);
            }
            Some(_) => {}
            None => self.unroutable += 1,
        }
    }

    /// Counts a BATCH.
    pub fn count_batch(&mut self) {
        self.batches += 1;
    }

    /// Counts an EXECUTE or BATCH for the rate limit; true when it is to be refused.
    pub fn refuse(&mut self) -> bool {
        self.requests += 1;
        let every = self.options.rate_limit_every;
        let refuse = every > 0 && self.requests % every == 0;
        self.rate_limited += u64::from(refuse);
        refuse
    }

    /// Records an accepted row write of the partition with this token.
    pub fn record_written(&mut self, token: Option<i64>) {
        self.rows_written += 1;
        if let Some(t) = token {
            self.written_tokens.insert(t);
        }
    }

    /// In tablet mode, counts an EXECUTE served by `shard` as on its tablet's replica or not;
    /// for a misroute, returns the custom payload (`[bytes map]`) Scylla attaches.
    pub fn tablet_payload(&mut self, shard: u16, token: Option<i64>) -> Option<Vec<u8>> {
        if !self.options.tablets {
            return None;
        }
        let token = token?;
        let tablet = tablet_of(token, self.options.shards);
        if tablet.replicas.iter().any(|r| r.shard == shard) {
            self.tablet_hits += 1;
            // Called before `count_execute` counts this EXECUTE.
            self.measured_tablet_hits += u64::from(self.executes >= self.options.warmup);
            return None;
        }
        self.tablet_misroutes += 1;
        let value = encode_tablet(&tablet);
        let mut out = 1u16.to_be_bytes().to_vec();
        crate::put_string(&mut out, TABLETS_ROUTING_V1_PAYLOAD);
        crate::put_bytes(&mut out, Some(&value));
        Some(out)
    }

    /// The counters as a JSON object, for the totals line.
    pub fn report(&self) -> String {
        let per_shard: Vec<String> = self.per_shard.iter().map(u64::to_string).collect();
        format!(
            "{{\"shards\":{},\"shard_port_connections\":{},\"executes\":{},\"on_owning_shard\":{},\"after_warmup\":{},\"after_warmup_on_owning_shard\":{},\"unroutable\":{},\"rate_limited\":{},\"batches\":{},\"rows_written\":{},\"distinct_keys_written\":{},\"tablet_hits\":{},\"after_warmup_tablet_hits\":{},\"tablet_misroutes\":{},\"per_shard\":[{}]}}",
            self.options.shards,
            self.shard_port_connections,
            self.executes,
            self.on_owning_shard,
            self.measured,
            self.measured_on_owning_shard,
            self.unroutable,
            self.rate_limited,
            self.batches,
            self.rows_written,
            self.written_tokens.len(),
            self.tablet_hits,
            self.measured_tablet_hits,
            self.tablet_misroutes,
            per_shard.join(",")
        )
    }
}
