//! ScyllaDB's protocol extensions, as `docs/dev/protocol-extensions.md` of scylladb/scylladb
//! defines them: what a SUPPORTED message offers, and what STARTUP asks for in return.
//!
//! A server that is not Scylla offers none of these keys, and [`ScyllaFeatures`] is then
//! empty, so a Cassandra connection behaves exactly as before. A key that is present with a
//! value we cannot read is an error naming that key: a server that says it shards but not
//! how would otherwise be routed by guesswork.
//!
//! Not asked for, on purpose: `TABLETS_ROUTING_V2_EXPERIMENTAL` (tablets routing v2). Scylla
//! offers it only with its experimental `strongly-consistent-tables` feature on, and the
//! document warns its format may change; once negotiated, every EXECUTE carries one more
//! byte (a block of the tablet version), so a change would break every request of the
//! connection, not just routing. Asking for v1 alone keeps v1's behaviour (the document's
//! fallback). See the README's ScyllaDB table.

use crate::error::ProtocolError;

pub const SCYLLA_SHARD: &str = "SCYLLA_SHARD";
pub const SCYLLA_NR_SHARDS: &str = "SCYLLA_NR_SHARDS";
pub const SCYLLA_PARTITIONER: &str = "SCYLLA_PARTITIONER";
pub const SCYLLA_SHARDING_ALGORITHM: &str = "SCYLLA_SHARDING_ALGORITHM";
pub const SCYLLA_SHARDING_IGNORE_MSB: &str = "SCYLLA_SHARDING_IGNORE_MSB";
pub const SCYLLA_SHARD_AWARE_PORT: &str = "SCYLLA_SHARD_AWARE_PORT";
pub const SCYLLA_SHARD_AWARE_PORT_SSL: &str = "SCYLLA_SHARD_AWARE_PORT_SSL";
pub const TABLETS_ROUTING_V1: &str = "TABLETS_ROUTING_V1";
pub const SCYLLA_LWT_ADD_METADATA_MARK: &str = "SCYLLA_LWT_ADD_METADATA_MARK";
pub const SCYLLA_RATE_LIMIT_ERROR: &str = "SCYLLA_RATE_LIMIT_ERROR";
const LWT_MASK_ARG: &str = "LWT_OPTIMIZATION_META_BIT_MASK";
const RATE_LIMIT_CODE_ARG: &str = "ERROR_CODE";

/// The one sharding algorithm the document defines (see [`crate::cluster::shard_of`]).
pub const BIASED_TOKEN_ROUND_ROBIN: &str = "biased-token-round-robin";

/// How a node spreads partitions over its shards, and which shard a connection landed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sharding {
    /// The shard serving this connection.
    pub shard: u16,
    pub nr_shards: u16,
    pub ignore_msb: u8,
}

/// Everything a SUPPORTED message says about Scylla's extensions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScyllaFeatures {
    /// Present when the node shards by an algorithm and partitioner this core implements.
    pub sharding: Option<Sharding>,
    pub shard_aware_port: Option<u16>,
    pub shard_aware_port_ssl: Option<u16>,
    pub tablets_routing_v1: bool,
    /// The bit of the prepared metadata flags that marks a lightweight transaction.
    pub lwt_flag_mask: Option<u32>,
    /// The error code the node uses for "rate limit reached".
    pub rate_limit_error_code: Option<i32>,
}

fn values<'a>(supported: &'a [(String, Vec<String>)], key: &str) -> Option<&'a [String]> {
    supported.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_slice())
}

/// The single value of `key`, or an error naming it when there is not exactly one.
fn single<'a>(supported: &'a [(String, Vec<String>)], key: &'static str) -> Result<Option<&'a str>, ProtocolError> {
    match values(supported, key) {
        None => Ok(None),
        Some([v]) => Ok(Some(v.as_str())),
        Some(v) => Err(ProtocolError::remote(key, 0, format!("expected one value, got {}", v.len()))),
    }
}

fn number<T: std::str::FromStr>(key: &'static str, text: &str) -> Result<T, ProtocolError> {
    text.parse::<T>()
        .map_err(|_| ProtocolError::remote(key, 0, format!("{text:?} is not a {} integer", std::any::type_name::<T>())))
}

fn single_number<T: std::str::FromStr>(
    supported: &[(String, Vec<String>)],
    key: &'static str,
) -> Result<Option<T>, ProtocolError> {
    single(supported, key)?.map(|v| number(key, v)).transpose()
}

/// The value of an `ARG=VALUE` argument under `key`; an error when the key is present
/// without it.
fn argument<'a>(
    supported: &'a [(String, Vec<String>)],
    key: &'static str,
    arg: &str,
) -> Result<Option<&'a str>, ProtocolError> {
    let Some(vals) = values(supported, key) else { return Ok(None) };
    vals.iter()
        .find_map(|v| v.strip_prefix(arg).and_then(|rest| rest.strip_prefix('=')))
        .map(Some)
        .ok_or_else(|| ProtocolError::remote(key, 0, format!("no {arg}=VALUE among {vals:?}")))
}

impl ScyllaFeatures {
    pub fn parse(supported: &[(String, Vec<String>)]) -> Result<Self, ProtocolError> {
        let lwt_flag_mask = argument(supported, SCYLLA_LWT_ADD_METADATA_MARK, LWT_MASK_ARG)?
            .map(|v| number(SCYLLA_LWT_ADD_METADATA_MARK, v))
            .transpose()?;
        let rate_limit_error_code = argument(supported, SCYLLA_RATE_LIMIT_ERROR, RATE_LIMIT_CODE_ARG)?
            .map(|v| number(SCYLLA_RATE_LIMIT_ERROR, v))
            .transpose()?;
        Ok(Self {
            sharding: parse_sharding(supported)?,
            shard_aware_port: single_number(supported, SCYLLA_SHARD_AWARE_PORT)?,
            shard_aware_port_ssl: single_number(supported, SCYLLA_SHARD_AWARE_PORT_SSL)?,
            tablets_routing_v1: values(supported, TABLETS_ROUTING_V1).is_some(),
            lwt_flag_mask,
            rate_limit_error_code,
        })
    }

    /// What STARTUP asks for: the extensions offered that this core implements.
    pub fn startup_options(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(mask) = self.lwt_flag_mask {
            out.push((SCYLLA_LWT_ADD_METADATA_MARK, format!("{LWT_MASK_ARG}={mask}")));
        }
        if self.rate_limit_error_code.is_some() {
            out.push((SCYLLA_RATE_LIMIT_ERROR, String::new()));
        }
        if self.tablets_routing_v1 {
            // The session keeps the tablet map these payloads fill (crate::cluster::TabletMap).
            out.push((TABLETS_ROUTING_V1, String::new()));
        }
        out
    }
}

fn parse_sharding(supported: &[(String, Vec<String>)]) -> Result<Option<Sharding>, ProtocolError> {
    let Some(nr_shards) = single_number::<u16>(supported, SCYLLA_NR_SHARDS)? else { return Ok(None) };
    if nr_shards == 0 {
        return Err(ProtocolError::remote(SCYLLA_NR_SHARDS, 0, "a node has at least one shard"));
    }
    let shard = single_number::<u16>(supported, SCYLLA_SHARD)?
        .ok_or_else(|| ProtocolError::remote(SCYLLA_SHARD, 0, "missing beside SCYLLA_NR_SHARDS"))?;
    if shard >= nr_shards {
        return Err(ProtocolError::remote(SCYLLA_SHARD, 0, format!("shard {shard} of {nr_shards}")));
    }
    let ignore_msb = single_number::<u8>(supported, SCYLLA_SHARDING_IGNORE_MSB)?.unwrap_or(0);
    if ignore_msb > 63 {
        return Err(ProtocolError::remote(
            SCYLLA_SHARDING_IGNORE_MSB,
            0,
            format!("{ignore_msb} bits of a 64-bit token"),
        ));
    }
    // Another algorithm or partitioner is no error: the node is then routed as a whole. (The
    // document spells the class `...partitioners.Murmur3Partitioner`, servers `...dht.`.)
    let algorithm = single(supported, SCYLLA_SHARDING_ALGORITHM)?;
    let partitioner = single(supported, SCYLLA_PARTITIONER)?;
    if algorithm != Some(BIASED_TOKEN_ROUND_ROBIN) || partitioner.is_some_and(|p| !p.ends_with(".Murmur3Partitioner")) {
        return Ok(None);
    }
    Ok(Some(Sharding { shard, nr_shards, ignore_msb }))
}
