//! The tables the null server knows: the system tables drivers read when they connect, with
//! Cassandra 4.1's column types (drivers that deserialize into typed rows check them), two of
//! ScyllaDB's own schema tables, and the benchmark's own `bench.kv`. What they hold: `schema.rs`.

use crate::put_u16;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CqlType {
    Bigint,
    Blob,
    Boolean,
    Double,
    Inet,
    Int,
    Text,
    Uuid,
    ListText,
    SetText,
    MapTextText,
    MapUuidBlob,
}

impl CqlType {
    /// The type as a protocol [option].
    pub fn write_option(self, out: &mut Vec<u8>) {
        const LIST: u16 = 0x0020;
        const MAP: u16 = 0x0021;
        const SET: u16 = 0x0022;
        let codes: &[u16] = match self {
            CqlType::Bigint => &[0x0002],
            CqlType::Blob => &[0x0003],
            CqlType::Boolean => &[0x0004],
            CqlType::Double => &[0x0007],
            CqlType::Int => &[0x0009],
            CqlType::Uuid => &[0x000C],
            CqlType::Text => &[0x000D],
            CqlType::Inet => &[0x0010],
            CqlType::ListText => &[LIST, 0x000D],
            CqlType::SetText => &[SET, 0x000D],
            CqlType::MapTextText => &[MAP, 0x000D, 0x000D],
            CqlType::MapUuidBlob => &[MAP, 0x000C, 0x0003],
        };
        for code in codes {
            put_u16(out, *code);
        }
    }

    /// A fixed value of this type for result cells that echo nothing: a 32-byte blob is the
    /// benchmark's payload.
    pub fn filler(self) -> Vec<u8> {
        match self {
            CqlType::Bigint | CqlType::Double => vec![0; 8],
            CqlType::Blob => vec![0xab; 32],
            CqlType::Boolean => vec![0],
            CqlType::Int => vec![0; 4],
            CqlType::Text => b"x".to_vec(),
            CqlType::Uuid => vec![0x11; 16],
            CqlType::Inet => vec![127, 0, 0, 1],
            CqlType::ListText | CqlType::SetText | CqlType::MapTextText | CqlType::MapUuidBlob => vec![0; 4],
        }
    }
}

pub struct Table {
    pub keyspace: &'static str,
    pub name: &'static str,
    pub partition_key: &'static [&'static str],
    pub columns: &'static [(&'static str, CqlType)],
}

impl Table {
    pub fn column_type(&self, name: &str) -> Option<CqlType> {
        self.columns.iter().find(|(c, _)| *c == name).map(|(_, t)| *t)
    }

    pub fn is_local(&self) -> bool {
        self.keyspace == "system" && self.name == "local"
    }

    /// ScyllaDB's own schema tables, which Cassandra lacks (drivers probe for them).
    pub fn is_scylla_only(&self) -> bool {
        self.name.starts_with("scylla_")
    }
}

use CqlType::*;

static TABLES: &[Table] = &[
    Table {
        keyspace: "system",
        name: "local",
        partition_key: &["key"],
        columns: &[
            ("key", Text),
            ("bootstrapped", Text),
            ("broadcast_address", Inet),
            ("broadcast_port", Int),
            ("cluster_name", Text),
            ("cql_version", Text),
            ("data_center", Text),
            ("gossip_generation", Int),
            ("host_id", Uuid),
            ("listen_address", Inet),
            ("listen_port", Int),
            ("native_protocol_version", Text),
            ("partitioner", Text),
            ("rack", Text),
            ("release_version", Text),
            ("rpc_address", Inet),
            ("rpc_port", Int),
            ("schema_version", Uuid),
            ("tokens", SetText),
            ("truncated_at", MapUuidBlob),
        ],
    },
    Table {
        keyspace: "system",
        name: "peers",
        partition_key: &["peer"],
        columns: &[
            ("peer", Inet),
            ("data_center", Text),
            ("host_id", Uuid),
            ("preferred_ip", Inet),
            ("rack", Text),
            ("release_version", Text),
            ("rpc_address", Inet),
            ("schema_version", Uuid),
            ("tokens", SetText),
        ],
    },
    Table {
        keyspace: "system",
        name: "peers_v2",
        partition_key: &["peer", "peer_port"],
        columns: &[
            ("peer", Inet),
            ("peer_port", Int),
            ("data_center", Text),
            ("host_id", Uuid),
            ("native_address", Inet),
            ("native_port", Int),
            ("preferred_ip", Inet),
            ("preferred_port", Int),
            ("rack", Text),
            ("release_version", Text),
            ("schema_version", Uuid),
            ("tokens", SetText),
        ],
    },
    Table {
        keyspace: "system_schema",
        name: "keyspaces",
        partition_key: &["keyspace_name"],
        columns: &[("keyspace_name", Text), ("durable_writes", Boolean), ("replication", MapTextText)],
    },
    Table {
        keyspace: "system_schema",
        name: "tables",
        partition_key: &["keyspace_name"],
        columns: &[
            ("keyspace_name", Text),
            ("table_name", Text),
            ("bloom_filter_fp_chance", Double),
            ("caching", MapTextText),
            ("comment", Text),
            ("compaction", MapTextText),
            ("compression", MapTextText),
            ("crc_check_chance", Double),
            ("default_time_to_live", Int),
            ("extensions", MapTextText),
            ("flags", SetText),
            ("gc_grace_seconds", Int),
            ("id", Uuid),
            ("max_index_interval", Int),
            ("memtable_flush_period_in_ms", Int),
            ("min_index_interval", Int),
            ("read_repair", Text),
            ("speculative_retry", Text),
        ],
    },
    Table {
        keyspace: "system_schema",
        name: "columns",
        partition_key: &["keyspace_name"],
        columns: &[
            ("keyspace_name", Text),
            ("table_name", Text),
            ("column_name", Text),
            ("clustering_order", Text),
            ("column_name_bytes", Blob),
            ("kind", Text),
            ("position", Int),
            ("type", Text),
        ],
    },
    Table {
        keyspace: "system_schema",
        name: "types",
        partition_key: &["keyspace_name"],
        columns: &[("keyspace_name", Text), ("type_name", Text), ("field_names", ListText), ("field_types", ListText)],
    },
    Table {
        keyspace: "system_schema",
        name: "views",
        partition_key: &["keyspace_name"],
        columns: &[("keyspace_name", Text), ("view_name", Text), ("base_table_id", Uuid), ("base_table_name", Text)],
    },
    Table {
        keyspace: "system_schema",
        name: "indexes",
        partition_key: &["keyspace_name"],
        columns: &[
            ("keyspace_name", Text),
            ("table_name", Text),
            ("index_name", Text),
            ("kind", Text),
            ("options", MapTextText),
        ],
    },
    Table {
        keyspace: "system_schema",
        name: "triggers",
        partition_key: &["keyspace_name"],
        columns: &[("keyspace_name", Text), ("table_name", Text), ("trigger_name", Text), ("options", MapTextText)],
    },
    Table {
        keyspace: "system_schema",
        name: "functions",
        partition_key: &["keyspace_name"],
        columns: &[
            ("keyspace_name", Text),
            ("function_name", Text),
            ("argument_types", ListText),
            ("argument_names", ListText),
            ("body", Text),
            ("called_on_null_input", Boolean),
            ("language", Text),
            ("return_type", Text),
        ],
    },
    Table {
        keyspace: "system_schema",
        name: "aggregates",
        partition_key: &["keyspace_name"],
        columns: &[
            ("keyspace_name", Text),
            ("aggregate_name", Text),
            ("argument_types", ListText),
            ("final_func", Text),
            ("initcond", Text),
            ("return_type", Text),
            ("state_func", Text),
            ("state_type", Text),
        ],
    },
    Table {
        keyspace: "system_schema",
        name: "scylla_keyspaces",
        partition_key: &["keyspace_name"],
        columns: &[("keyspace_name", Text), ("initial_tablets", Int)],
    },
    Table {
        keyspace: "system_schema",
        name: "scylla_tables",
        partition_key: &["keyspace_name"],
        columns: &[("keyspace_name", Text), ("table_name", Text), ("partitioner", Text)],
    },
    Table { keyspace: "bench", name: "kv", partition_key: &["k"], columns: &[("k", Bigint), ("v", Blob)] },
];

/// A table by `keyspace.name`, or by `name` in the connection's keyspace; ScyllaDB's own
/// tables only with the Scylla personality (`scylla`).
pub fn find(session_keyspace: Option<&str>, qualified: &str, scylla: bool) -> Option<&'static Table> {
    let (keyspace, name) = match qualified.split_once('.') {
        Some((k, n)) => (k, n),
        None => (session_keyspace?, qualified),
    };
    TABLES.iter().find(|t| t.keyspace == keyspace && t.name == name && (scylla || !t.is_scylla_only()))
}

/// The tables a benchmark writes to, as opposed to the system tables.
pub fn user_tables() -> Vec<&'static Table> {
    TABLES.iter().filter(|t| !t.keyspace.starts_with("system")).collect()
}

pub(crate) const HOST_ID: [u8; 16] = *b"\x6e\x75\x6c\x6c\x73\x65\x72\x76\x65\x72\x2d\x68\x6f\x73\x74\x31";
pub(crate) const SCHEMA_VERSION: [u8; 16] = *b"\x6e\x75\x6c\x6c\x73\x65\x72\x76\x65\x72\x2d\x73\x63\x68\x65\x6d";
