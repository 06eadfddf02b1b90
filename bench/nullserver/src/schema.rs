//! What the system tables hold: `system.local` always; with the Scylla personality also the
//! schema of the benchmark's own tables (`system_schema.keyspaces`, `tables`, `columns`,
//! `scylla_tables`, and `scylla_keyspaces` in tablet mode), because a shard-aware driver
//! such as scylla-rust-driver routes by token only for keyspaces and tables its metadata
//! read found. Without the personality `system_schema.*` stays empty, as the plain
//! benchmarks have always seen it.

use std::net::{IpAddr, SocketAddr};

use crate::catalog::{self, CqlType, Table};

/// One row: its non-null cells by column name.
pub type Row = Vec<(&'static str, Vec<u8>)>;

/// Who is asking: the connection's local address (`system.local`'s addresses and port) and
/// the personality's switches.
#[derive(Clone, Copy)]
pub struct Context {
    pub local_addr: SocketAddr,
    pub scylla: bool,
    pub tablets: bool,
}

/// The rows of `table` (empty for the benchmark's own tables: they store nothing).
pub fn rows(table: &Table, ctx: Context) -> Vec<Row> {
    if table.is_local() {
        return vec![local_row(ctx.local_addr)];
    }
    if !ctx.scylla || table.keyspace != "system_schema" {
        return Vec::new();
    }
    let user_tables = catalog::user_tables();
    match table.name {
        "keyspaces" => keyspace_names(&user_tables).into_iter().map(keyspace_row).collect(),
        "scylla_keyspaces" if ctx.tablets => keyspace_names(&user_tables).into_iter().map(tablets_keyspace_row).collect(),
        "tables" | "scylla_tables" => user_tables.iter().map(|t| table_row(t)).collect(),
        "columns" => user_tables.iter().flat_map(|t| column_rows(t)).collect(),
        _ => Vec::new(),
    }
}

fn text(s: &str) -> Vec<u8> {
    s.as_bytes().to_vec()
}

fn int(v: i32) -> Vec<u8> {
    v.to_be_bytes().to_vec()
}

/// A `[bytes]` sequence as a collection value: the count, then each element with its length.
fn collection<'a>(items: impl ExactSizeIterator<Item = &'a str>) -> Vec<u8> {
    let mut out = int(items.len() as i32);
    for s in items {
        out.extend_from_slice(&int(s.len() as i32));
        out.extend_from_slice(s.as_bytes());
    }
    out
}

fn local_row(local_addr: SocketAddr) -> Row {
    let address = match local_addr.ip() {
        IpAddr::V4(ip) => ip.octets().to_vec(),
        IpAddr::V6(ip) => ip.octets().to_vec(),
    };
    vec![
        ("key", text("local")),
        ("bootstrapped", text("COMPLETED")),
        ("broadcast_address", address.clone()),
        ("listen_address", address.clone()),
        ("rpc_address", address),
        ("broadcast_port", int(7000)),
        ("listen_port", int(7000)),
        ("rpc_port", int(i32::from(local_addr.port()))),
        ("cluster_name", text("nullserver")),
        ("cql_version", text("3.4.7")),
        ("data_center", text("datacenter1")),
        ("gossip_generation", int(1)),
        ("host_id", catalog::HOST_ID.to_vec()),
        ("native_protocol_version", text("4")),
        ("partitioner", text("org.apache.cassandra.dht.Murmur3Partitioner")),
        ("rack", text("rack1")),
        ("release_version", text("4.1.0")),
        ("schema_version", catalog::SCHEMA_VERSION.to_vec()),
        // One node owning the whole ring: its single token.
        ("tokens", collection(["0"].into_iter())),
    ]
}

fn keyspace_names(tables: &[&'static Table]) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = tables.iter().map(|t| t.keyspace).collect();
    names.dedup();
    names
}

/// SimpleStrategy with one replica: the node is the whole cluster.
fn keyspace_row(keyspace: &'static str) -> Row {
    let replication = ["class", "org.apache.cassandra.locator.SimpleStrategy", "replication_factor", "1"];
    let mut map = int(2);
    for s in replication {
        map.extend_from_slice(&int(s.len() as i32));
        map.extend_from_slice(s.as_bytes());
    }
    vec![("keyspace_name", text(keyspace)), ("durable_writes", vec![1]), ("replication", map)]
}

/// A non-null `initial_tablets` is what marks a keyspace as tablet-based (0: let the server
/// choose the count).
fn tablets_keyspace_row(keyspace: &'static str) -> Row {
    vec![("keyspace_name", text(keyspace)), ("initial_tablets", int(0))]
}

/// `scylla_tables.partitioner` stays null: the default (Murmur3) partitioner.
fn table_row(table: &Table) -> Row {
    vec![("keyspace_name", text(table.keyspace)), ("table_name", text(table.name))]
}

fn column_rows(table: &Table) -> Vec<Row> {
    table
        .columns
        .iter()
        .map(|(name, ty)| {
            let (kind, position) = match table.partition_key.iter().position(|k| k == name) {
                Some(p) => ("partition_key", p as i32),
                None => ("regular", -1),
            };
            vec![
                ("keyspace_name", text(table.keyspace)),
                ("table_name", text(table.name)),
                ("column_name", text(name)),
                ("column_name_bytes", text(name)),
                ("clustering_order", text("none")),
                ("kind", text(kind)),
                ("position", int(position)),
                ("type", text(ty.cql_name())),
            ]
        })
        .collect()
}

/// Keeps the rows whose `column` equals `value`, or with `is_list`, equals one element of
/// the list `value` (a `WHERE column IN ?` bind). A list cut short matches what it holds.
pub fn filter(rows: &mut Vec<Row>, column: &str, value: &[u8], is_list: bool) {
    let wanted: Vec<&[u8]> = if is_list { list_elements(value) } else { vec![value] };
    rows.retain(|row| row.iter().any(|(c, v)| *c == column && wanted.contains(&v.as_slice())));
}

fn list_elements(value: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut at = 4;
    while let Some(len) = value.get(at..at + 4).and_then(|b| b.try_into().ok()).map(i32::from_be_bytes) {
        let Some(element) = usize::try_from(len).ok().and_then(|n| value.get(at + 4..at + 4 + n)) else { break };
        out.push(element);
        at += 4 + element.len();
    }
    out
}

impl CqlType {
    /// The type as `system_schema.columns.type` spells it.
    pub fn cql_name(self) -> &'static str {
        match self {
            CqlType::Bigint => "bigint",
            CqlType::Blob => "blob",
            CqlType::Boolean => "boolean",
            CqlType::Double => "double",
            CqlType::Inet => "inet",
            CqlType::Int => "int",
            CqlType::Text => "text",
            CqlType::Uuid => "uuid",
            CqlType::ListText => "list<text>",
            CqlType::SetText => "set<text>",
            CqlType::MapTextText => "map<text, text>",
            CqlType::MapUuidBlob => "map<uuid, blob>",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(scylla: bool, tablets: bool) -> Context {
        Context { local_addr: "127.0.0.1:9042".parse().unwrap(), scylla, tablets }
    }

    fn cell<'a>(row: &'a Row, column: &str) -> Option<&'a [u8]> {
        row.iter().find(|(c, _)| *c == column).map(|(_, v)| v.as_slice())
    }

    #[test]
    fn the_scylla_personality_describes_bench_kv() {
        let columns = rows(catalog::find(None, "system_schema.columns", true).unwrap(), ctx(true, false));
        let described: Vec<(&[u8], &[u8], &[u8])> = columns
            .iter()
            .map(|r| (cell(r, "column_name").unwrap(), cell(r, "kind").unwrap(), cell(r, "type").unwrap()))
            .collect();
        assert_eq!(described, vec![(&b"k"[..], &b"partition_key"[..], &b"bigint"[..]), (b"v", b"regular", b"blob")]);
        assert_eq!(cell(&columns[0], "position"), Some(&0i32.to_be_bytes()[..]));
        let tables = rows(catalog::find(None, "system_schema.tables", true).unwrap(), ctx(true, false));
        assert_eq!(tables, vec![vec![("keyspace_name", b"bench".to_vec()), ("table_name", b"kv".to_vec())]]);
    }

    #[test]
    fn tablet_keyspaces_only_in_tablet_mode_and_no_schema_without_the_personality() {
        let scylla_keyspaces = catalog::find(None, "system_schema.scylla_keyspaces", true).unwrap();
        assert_eq!(rows(scylla_keyspaces, ctx(true, false)), Vec::<Row>::new());
        assert_eq!(rows(scylla_keyspaces, ctx(true, true)).len(), 1);
        assert_eq!(rows(catalog::find(None, "system_schema.columns", true).unwrap(), ctx(false, false)), Vec::<Row>::new());
        assert_eq!(rows(catalog::find(None, "system.local", true).unwrap(), ctx(false, false)).len(), 1);
    }

    #[test]
    fn filter_by_value_and_by_list() {
        let all = rows(catalog::find(None, "system_schema.columns", true).unwrap(), ctx(true, false));
        let mut by_value = all.clone();
        filter(&mut by_value, "column_name", b"v", false);
        assert_eq!(by_value.len(), 1);
        let mut by_list = all.clone();
        let list = [&2i32.to_be_bytes()[..], &1i32.to_be_bytes(), b"k", &5i32.to_be_bytes(), b"bench"].concat();
        filter(&mut by_list, "column_name", &list, true);
        assert_eq!(by_list.len(), 1, "only k: the second element names no column");
        let mut cut_short = all;
        filter(&mut cut_short, "keyspace_name", &[&1i32.to_be_bytes()[..], &9i32.to_be_bytes(), b"ben"].concat(), true);
        assert!(cut_short.is_empty());
    }
}
