/**
 * RESULT bodies (v4/v5 §4.2.5) and the other server messages the fake node sends by default:
 * SUPPORTED, AUTHENTICATE, AUTH_SUCCESS, EVENT.
 */
import { ByteWriter } from "./bytes.ts";
import { type CqlType, writeType } from "./types.ts";

export interface Column {
  name: string;
  type: CqlType;
}

export interface RowsSpec {
  keyspace?: string;
  table?: string;
  columns: Column[];
  /** Each row's cells as bytes, null for a null cell. */
  rows: Array<Array<Uint8Array | null>>;
  /** Sets HAS_MORE_PAGES with this paging state. */
  pagingState?: Uint8Array;
  /** Sends NO_METADATA (flag 0x0004) with only the column count. */
  noMetadata?: boolean;
  /** v5: METADATA_CHANGED with this new result metadata id. */
  newMetadataId?: Uint8Array;
}

const GLOBAL_TABLES_SPEC = 0x0001;
const HAS_MORE_PAGES = 0x0002;
const NO_METADATA = 0x0004;
const METADATA_CHANGED = 0x0008;

/** <metadata> of a Rows result, also the result metadata of a Prepared result. */
export function writeRowsMetadata(w: ByteWriter, s: Omit<RowsSpec, "rows">): void {
  let flags = 0;
  if (s.pagingState) flags |= HAS_MORE_PAGES;
  if (s.noMetadata) flags |= NO_METADATA;
  else if (s.columns.length > 0) flags |= GLOBAL_TABLES_SPEC;
  if (s.newMetadataId) flags |= METADATA_CHANGED;
  w.int(flags).int(s.columns.length);
  if (s.pagingState) w.bytes(s.pagingState);
  if (s.newMetadataId) w.shortBytes(s.newMetadataId);
  if (s.noMetadata || s.columns.length === 0) return;
  w.string(s.keyspace ?? "ks").string(s.table ?? "t");
  for (const c of s.columns) {
    w.string(c.name);
    writeType(w, c.type);
  }
}

export function rowsBody(s: RowsSpec): Uint8Array {
  const w = new ByteWriter().int(0x0002);
  writeRowsMetadata(w, s);
  w.int(s.rows.length);
  for (const row of s.rows) for (const c of row) w.bytes(c);
  return w.done();
}

export function voidBody(): Uint8Array {
  return new ByteWriter().int(0x0001).done();
}

export function setKeyspaceBody(keyspace: string): Uint8Array {
  return new ByteWriter().int(0x0003).string(keyspace).done();
}

export interface PreparedSpec {
  id: Uint8Array;
  /** v5 only. */
  resultMetadataId?: Uint8Array;
  keyspace?: string;
  table?: string;
  bind: Column[];
  pkIndexes?: number[];
  result: Column[];
}

export function preparedBody(s: PreparedSpec, version: number): Uint8Array {
  const w = new ByteWriter().int(0x0004).shortBytes(s.id);
  if (version >= 5) w.shortBytes(s.resultMetadataId ?? s.id);
  const pk = s.pkIndexes ?? [];
  w.int(s.bind.length > 0 ? GLOBAL_TABLES_SPEC : 0).int(s.bind.length).int(pk.length);
  for (const i of pk) w.short(i);
  if (s.bind.length > 0) {
    w.string(s.keyspace ?? "ks").string(s.table ?? "t");
    for (const c of s.bind) {
      w.string(c.name);
      writeType(w, c.type);
    }
  }
  writeRowsMetadata(w, { keyspace: s.keyspace, table: s.table, columns: s.result });
  return w.done();
}

export function schemaChangeBody(change: string, target: string, keyspace: string, name?: string): Uint8Array {
  const w = new ByteWriter().int(0x0005).string(change).string(target).string(keyspace);
  if (target !== "KEYSPACE") w.string(name ?? "");
  return w.done();
}

export function supportedBody(options: Record<string, string[]>): Uint8Array {
  return new ByteWriter().stringMultimap(options).done();
}

export function authenticateBody(authenticator: string): Uint8Array {
  return new ByteWriter().string(authenticator).done();
}

export function authSuccessBody(): Uint8Array {
  return new ByteWriter().bytes(null).done();
}

export function authChallengeBody(token: Uint8Array | null): Uint8Array {
  return new ByteWriter().bytes(token).done();
}

/** An EVENT body: STATUS_CHANGE / TOPOLOGY_CHANGE with an IPv4 address and port. */
export function nodeEventBody(type: "STATUS_CHANGE" | "TOPOLOGY_CHANGE", change: string, ip: string, port: number): Uint8Array {
  return new ByteWriter().string(type).string(change).inet4(ip).int(port).done();
}

export function schemaEventBody(change: string, target: string, keyspace: string, name?: string): Uint8Array {
  const w = new ByteWriter().string("SCHEMA_CHANGE").string(change).string(target).string(keyspace);
  if (target !== "KEYSPACE") w.string(name ?? "");
  return w.done();
}
