/**
 * What the fake node answers when no script claims a request: the handshake, the
 * control-connection queries (system.local, peers, peers_v2, system_schema tables, schema
 * versions), USE, PREPARE, EXECUTE and anything else as a Void result.
 */
import { cell } from "./types.ts";
import { type Column, preparedBody, rowsBody, setKeyspaceBody, supportedBody, voidBody } from "./results.ts";
import type { RecordedRequest } from "./requests.ts";
import { Op } from "./opcodes.ts";
import { utf8 } from "./bytes.ts";

export interface NodeIdentity {
  ip: string;
  port: number;
  hostId: string;
  dataCenter: string;
  rack: string;
  tokens: string[];
  releaseVersion: string;
}

export const SCHEMA_VERSION = "5a1c0e3f-0000-4000-8000-00000000cafe";

const LOCAL_COLUMNS: Column[] = [
  { name: "data_center", type: "varchar" },
  { name: "rack", type: "varchar" },
  { name: "tokens", type: { set: "varchar" } },
  { name: "host_id", type: "uuid" },
  { name: "release_version", type: "varchar" },
  { name: "rpc_address", type: "inet" },
  { name: "broadcast_address", type: "inet" },
];

const PEERS_V2_COLUMNS: Column[] = [
  { name: "peer", type: "inet" },
  { name: "native_address", type: "inet" },
  { name: "native_port", type: "int" },
  { name: "data_center", type: "varchar" },
  { name: "rack", type: "varchar" },
  { name: "tokens", type: { set: "varchar" } },
  { name: "host_id", type: "uuid" },
  { name: "release_version", type: "varchar" },
];

export function localRows(me: NodeIdentity): Uint8Array {
  return rowsBody({
    keyspace: "system",
    table: "local",
    columns: LOCAL_COLUMNS,
    rows: [[
      cell.text(me.dataCenter),
      cell.text(me.rack),
      cell.textSet(me.tokens),
      cell.uuid(me.hostId),
      cell.text(me.releaseVersion),
      cell.inet4(me.ip),
      cell.inet4(me.ip),
    ]],
  });
}

export function peersV2Rows(peers: NodeIdentity[]): Uint8Array {
  return rowsBody({
    keyspace: "system",
    table: "peers_v2",
    columns: PEERS_V2_COLUMNS,
    rows: peers.map((p) => [
      cell.inet4(p.ip),
      cell.inet4(p.ip),
      cell.int(p.port),
      cell.text(p.dataCenter),
      cell.text(p.rack),
      cell.textSet(p.tokens),
      cell.uuid(p.hostId),
      cell.text(p.releaseVersion),
    ]),
  });
}

/** The columns a `SELECT a, b FROM ...` names, all typed as text; `*` gives none. */
function selectedColumns(query: string): Column[] {
  const m = /^\s*SELECT\s+(.*?)\s+FROM\s/is.exec(query);
  if (!m || m[1].trim() === "*") return [];
  return m[1].split(",").map((c) => ({ name: c.trim(), type: "varchar" as const }));
}

function schemaVersionRows(query: string, peers: NodeIdentity[]): Uint8Array {
  if (/system\.local/i.test(query)) {
    return rowsBody({ columns: [{ name: "schema_version", type: "uuid" }], rows: [[cell.uuid(SCHEMA_VERSION)]] });
  }
  return rowsBody({
    columns: [{ name: "peer", type: "inet" }, { name: "schema_version", type: "uuid" }],
    rows: peers.map((p) => [cell.inet4(p.ip), cell.uuid(SCHEMA_VERSION)]),
  });
}

/** A stable 16-byte prepared id derived from the query text (FNV-1a, twice over). */
export function preparedIdFor(query: string): Uint8Array {
  const out = new Uint8Array(16);
  let h = 0x811c9dc5;
  for (let round = 0; round < 4; round++) {
    for (const b of utf8(`${round}:${query}`)) h = Math.imul(h ^ b, 0x01000193) >>> 0;
    new DataView(out.buffer).setUint32(round * 4, h);
  }
  return out;
}

/** Each `?` of the text becomes an `int` bind marker named p0, p1, ... */
export function defaultPrepared(query: string, version: number): Uint8Array {
  const markers = (query.match(/\?/g) ?? []).length;
  const bind: Column[] = Array.from({ length: markers }, (_, i) => ({ name: `p${i}`, type: "int" as const }));
  return preparedBody({ id: preparedIdFor(query), bind, result: [] }, version);
}

export interface DefaultAnswer {
  opcode: number;
  body: Uint8Array;
}

/** The answer to a QUERY that no script claimed: SELECTs get Rows, the rest Void. */
export function defaultQueryAnswer(query: string, me: NodeIdentity, peers: NodeIdentity[]): DefaultAnswer {
  const result = (body: Uint8Array) => ({ opcode: Op.RESULT, body });
  if (/schema_version/i.test(query)) return result(schemaVersionRows(query, peers));
  if (/FROM\s+system\.local\b/i.test(query)) return result(localRows(me));
  if (/FROM\s+system\.peers_v2\b/i.test(query)) return result(peersV2Rows(peers));
  // Other tables of system and system_schema, and every user SELECT: no rows.
  if (/^\s*SELECT\s/i.test(query)) return result(rowsBody({ columns: selectedColumns(query), rows: [] }));
  const use = /^\s*USE\s+"?([^"\s;]+)"?/i.exec(query);
  if (use) return result(setKeyspaceBody(use[1]));
  return result(voidBody());
}

export function defaultSupported(): Uint8Array {
  return supportedBody({ CQL_VERSION: ["3.4.7"], COMPRESSION: ["lz4", "snappy"], PROTOCOL_VERSIONS: ["3/v3", "4/v4", "5/v5"] });
}

export function isControlQuery(req: RecordedRequest): boolean {
  return req.opcode === Op.QUERY && /FROM\s+system(_schema)?\./i.test(req.query ?? "");
}
