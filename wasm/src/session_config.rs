//! The driver's session config JSON, read key by key (`json_fields`): every key is named here
//! once, and an unknown (e.g. misspelt) key is an error that names it instead of being ignored.

use crate::call_error::{call_error, CallError};
use cqlwire_core::cluster::{PolicyConfig, RetryPolicy, SpeculativePolicy};
use cqlwire_core::compression::Compression;
use cqlwire_core::connection::{Config, Credentials};
use cqlwire_core::json_fields::{Fields, Value};
use cqlwire_core::session::SessionConfig;

struct CredentialsJson {
    username: String,
    password: String,
}

/// Every key is optional; an absent key keeps the core's default.
#[derive(Default)]
struct SessionConfigJson {
    protocol_version: Option<u8>,
    compression: Option<String>,
    keyspace: Option<String>,
    credentials: Option<CredentialsJson>,
    /// The host answers SASL steps (a JavaScript authenticator).
    host_authenticator: Option<bool>,
    max_frame_bytes: Option<u32>,
    max_streams: Option<usize>,
    request_timeout_ms: Option<f64>,
    handshake_timeout_ms: Option<f64>,
    heartbeat_interval_ms: Option<f64>,
    orphan_limit: Option<usize>,
    connections_per_host: Option<usize>,
    local_data_center: Option<String>,
    local_rack: Option<String>,
    allow_remote_dcs: Option<bool>,
    allow_list: Option<Vec<String>>,
    deny_list: Option<Vec<String>>,
    max_attempts: Option<u32>,
    speculative_delay_ms: Option<f64>,
    speculative_max_extra: Option<u32>,
    seed: Option<u64>,
    discover_peers: Option<bool>,
    can_bind_local_port: Option<bool>,
    tls: Option<bool>,
    default_port: Option<u16>,
    reconnect_base_ms: Option<f64>,
    reconnect_max_ms: Option<f64>,
    schema_agreement_timeout_ms: Option<f64>,
    prepare_on_all_hosts: Option<bool>,
    reprepare_on_up: Option<bool>,
    refresh_schema_delay_ms: Option<f64>,
    warmup: Option<bool>,
}

const WHAT: &str = "session config";

fn read_credentials(value: Value) -> Result<CredentialsJson, String> {
    let mut c = Fields::of("session config: credentials", value)?;
    let (username, password) = (c.required_string("username"), c.required_string("password"));
    // A missing one is a fault that `finish` returns, so the `None` arm is not reached.
    let credentials = c.finish(username.zip(password))?;
    credentials
        .map(|(username, password)| CredentialsJson { username, password })
        .ok_or_else(|| "session config: credentials: incomplete".into())
}

fn read_session_config(json: &str) -> Result<SessionConfigJson, String> {
    let mut f = Fields::parse(WHAT, json)?;
    let j = SessionConfigJson {
        protocol_version: f.u8("protocolVersion"),
        compression: f.string("compression"),
        keyspace: f.string("keyspace"),
        credentials: f.take("credentials").and_then(|v| f.nested(read_credentials(v))),
        host_authenticator: f.bool("hostAuthenticator"),
        max_frame_bytes: f.u32("maxFrameBytes"),
        max_streams: f.usize("maxStreams"),
        request_timeout_ms: f.f64("requestTimeoutMs"),
        handshake_timeout_ms: f.f64("handshakeTimeoutMs"),
        heartbeat_interval_ms: f.f64("heartbeatIntervalMs"),
        orphan_limit: f.usize("orphanLimit"),
        connections_per_host: f.usize("connectionsPerHost"),
        local_data_center: f.string("localDataCenter"),
        local_rack: f.string("localRack"),
        allow_remote_dcs: f.bool("allowRemoteDcs"),
        allow_list: f.strings("allowList"),
        deny_list: f.strings("denyList"),
        max_attempts: f.u32("maxAttempts"),
        speculative_delay_ms: f.f64("speculativeDelayMs"),
        speculative_max_extra: f.u32("speculativeMaxExtra"),
        seed: f.u64("seed"),
        discover_peers: f.bool("discoverPeers"),
        can_bind_local_port: f.bool("canBindLocalPort"),
        tls: f.bool("tls"),
        default_port: f.u16("defaultPort"),
        reconnect_base_ms: f.f64("reconnectBaseMs"),
        reconnect_max_ms: f.f64("reconnectMaxMs"),
        schema_agreement_timeout_ms: f.f64("schemaAgreementTimeoutMs"),
        prepare_on_all_hosts: f.bool("prepareOnAllHosts"),
        reprepare_on_up: f.bool("reprepareOnUp"),
        refresh_schema_delay_ms: f.f64("refreshSchemaDelayMs"),
        warmup: f.bool("warmup"),
    };
    f.finish(j)
}

fn micros_of_ms(ms: f64) -> u64 {
    if ms.is_finite() && ms > 0.0 {
        (ms * 1000.0) as u64
    } else {
        0
    }
}

fn connection_config(j: &SessionConfigJson) -> Result<Config, CallError> {
    let mut c = Config::default();
    if let Some(p) = j.protocol_version {
        if p != 4 && p != 5 {
            return Err(call_error("ERR_CONFIG", format!("protocolVersion must be 4 or 5, got {p}")));
        }
        c.protocol_version = p;
    }
    c.keyspace = j.keyspace.clone();
    c.credentials =
        j.credentials.as_ref().map(|cr| Credentials { username: cr.username.clone(), password: cr.password.clone() });
    if let Some(n) = j.max_frame_bytes {
        c.max_frame_bytes = n;
    }
    if let Some(n) = j.max_streams {
        c.max_streams = n.clamp(2, cqlwire_core::connection::MAX_STREAMS);
    }
    if let Some(n) = j.request_timeout_ms {
        c.request_timeout_us = micros_of_ms(n);
    }
    c.host_authenticator = j.host_authenticator.unwrap_or(false);
    if let Some(n) = j.handshake_timeout_ms {
        c.handshake_timeout_us = micros_of_ms(n);
    }
    if let Some(n) = j.heartbeat_interval_ms {
        c.heartbeat_interval_us = micros_of_ms(n);
    }
    match j.compression.as_deref() {
        None | Some("none") => {}
        Some(name) => match Compression::from_name(name) {
            Some(Compression::Snappy) if c.protocol_version >= 5 => {
                return Err(call_error(
                    "ERR_CONFIG",
                    "snappy compression exists only on protocol v4; use lz4 or protocolVersion 4",
                ))
            }
            Some(algorithm) => c.compression = algorithm,
            None => {
                return Err(call_error("ERR_CONFIG", format!("unknown compression {name:?}; use lz4, snappy or none")))
            }
        },
    }
    if let Some(n) = j.orphan_limit {
        c.orphan_limit = n;
    }
    Ok(c)
}

/// Parses the JSON the driver hands to `WasmSession::new`.
pub fn parse_session_config(json: &str) -> Result<SessionConfig, CallError> {
    let j = read_session_config(json).map_err(|e| call_error("ERR_CONFIG", e))?;
    let mut c = SessionConfig { connection: connection_config(&j)?, ..SessionConfig::default() };
    if let Some(n) = j.connections_per_host {
        c.connections_per_node = n.clamp(1, 64);
    }
    c.policy = PolicyConfig {
        local_dc: j.local_data_center.clone(),
        local_rack: j.local_rack.clone(),
        allow_remote_dcs: j.allow_remote_dcs.unwrap_or(false),
        allow_list: j.allow_list.clone().unwrap_or_default(),
        deny_list: j.deny_list.clone().unwrap_or_default(),
    };
    if let Some(n) = j.max_attempts {
        c.retry = RetryPolicy { max_attempts: n.max(1) };
    }
    if let Some(d) = j.speculative_delay_ms {
        c.speculative =
            Some(SpeculativePolicy { delay_us: micros_of_ms(d), max_extra: j.speculative_max_extra.unwrap_or(1) });
    }
    if let Some(s) = j.seed {
        c.seed = s;
    }
    if let Some(b) = j.discover_peers {
        c.discover_peers = b;
    }
    c.prepare_on_all_hosts = j.prepare_on_all_hosts.unwrap_or(false);
    c.reprepare_on_up = j.reprepare_on_up.unwrap_or(false);
    c.warmup = j.warmup.unwrap_or(true);
    c.can_bind_local_port = j.can_bind_local_port.unwrap_or(false);
    c.tls = j.tls.unwrap_or(false);
    if let Some(p) = j.default_port {
        c.default_port = p;
    }
    if let Some(n) = j.reconnect_base_ms {
        c.reconnect_base_us = micros_of_ms(n);
    }
    if let Some(n) = j.reconnect_max_ms {
        c.reconnect_max_us = micros_of_ms(n);
    }
    if let Some(n) = j.schema_agreement_timeout_ms {
        c.schema_agreement_timeout_us = micros_of_ms(n);
    }
    if let Some(n) = j.refresh_schema_delay_ms {
        c.refresh_delay_us = micros_of_ms(n);
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelt_key_is_an_error_naming_it() {
        let Err(e) = parse_session_config(r#"{"protocolVersion":4,"localDatacenter":"dc1"}"#) else {
            panic!("accepted a misspelt key")
        };
        assert_eq!(e.code, "ERR_CONFIG");
        assert!(
            e.message.starts_with(
                "session config: unknown field `localDatacenter`, expected one of `protocolVersion`, `compression`,"
            ),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_value_of_the_wrong_type_is_an_error_naming_its_key() {
        let message = |json: &str| parse_session_config(json).err().map(|e| (e.code, e.message));
        assert_eq!(
            message(r#"{"protocolVersion":"4"}"#),
            Some((
                "ERR_CONFIG".into(),
                "session config: `protocolVersion` must be an integer from 0 to 255, got the string \"4\"".into()
            ))
        );
        assert_eq!(
            message(r#"{"credentials":{"username":"u"}}"#),
            Some(("ERR_CONFIG".into(), "session config: credentials: `password` is missing".into()))
        );
        assert_eq!(
            message(r#"{"allowList":["a",2]}"#),
            Some(("ERR_CONFIG".into(), "session config: `allowList`[1] must be strings, got the number 2".into()))
        );
    }

    #[test]
    fn warmup_is_on_unless_turned_off() {
        let warmup = |json: &str| parse_session_config(json).map(|c| c.warmup).map_err(|e| e.message);
        assert_eq!(warmup(r#"{"protocolVersion":4}"#), Ok(true));
        assert_eq!(warmup(r#"{"protocolVersion":4,"warmup":false}"#), Ok(false));
        assert_eq!(warmup(r#"{"protocolVersion":4,"warmup":true}"#), Ok(true));
    }

    #[test]
    fn snappy_on_v5_is_refused() {
        let Err(e) = parse_session_config(r#"{"protocolVersion":5,"compression":"snappy"}"#) else {
            panic!("accepted snappy on v5")
        };
        assert_eq!(e.code, "ERR_CONFIG");
    }

    #[test]
    fn every_policy_key_reaches_the_config() {
        let c = parse_session_config(r#"{"localRack":"r1","allowRemoteDcs":true,"allowList":["a:1"],"denyList":["b:2"],"reconnectBaseMs":5,"reconnectMaxMs":7,"orphanLimit":9,"maxFrameBytes":4096}"#).map_err(|e| e.message).unwrap();
        assert_eq!(c.policy.local_rack.as_deref(), Some("r1"));
        assert!(c.policy.allow_remote_dcs);
        assert_eq!((c.policy.allow_list, c.policy.deny_list), (vec!["a:1".to_string()], vec!["b:2".to_string()]));
        assert_eq!((c.reconnect_base_us, c.reconnect_max_us), (5000, 7000));
        assert_eq!((c.connection.orphan_limit, c.connection.max_frame_bytes), (9, 4096));
    }
}
