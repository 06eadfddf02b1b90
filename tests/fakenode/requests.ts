/**
 * Decoding of what the client sends, so tests assert the wire: STARTUP options, query
 * parameters of QUERY/EXECUTE/BATCH (v4 and v5 forms), PREPARE options, custom payloads.
 */
import { ByteReader, toHex } from "./bytes.ts";
import { FLAG_CUSTOM_PAYLOAD } from "./framing.ts";
import { Op, opName, QueryFlag } from "./opcodes.ts";

export type Value = Uint8Array | null | "unset";

export interface QueryParams {
  consistency: number;
  /** The flags as sent (a byte in v4, an int in v5). */
  flags: number;
  values: Value[];
  /** With NAMES_FOR_VALUES: the name of each value. */
  names?: string[];
  skipMetadata: boolean;
  pageSize?: number;
  pagingState?: Uint8Array | null;
  serialConsistency?: number;
  timestamp?: bigint;
  keyspace?: string;
  nowInSeconds?: number;
}

export interface BatchStatement {
  kind: "query" | "prepared";
  query?: string;
  id?: string;
  values: Value[];
}

export interface BatchParams {
  type: number;
  statements: BatchStatement[];
  consistency: number;
  flags: number;
  serialConsistency?: number;
  timestamp?: bigint;
  keyspace?: string;
  nowInSeconds?: number;
}

/** One request frame as it arrived, with what its body decodes to. */
export interface RecordedRequest {
  /** Order of arrival on this node, from 1. */
  seq: number;
  /** The connection it came on, numbered from 1 in accept order. */
  connection: number;
  version: number;
  frameFlags: number;
  stream: number;
  opcode: number;
  op: string;
  body: Uint8Array;
  customPayload?: Record<string, Uint8Array | null>;
  startup?: Record<string, string>;
  /** QUERY and PREPARE text; for EXECUTE, the text the id was prepared from. */
  query?: string;
  /** EXECUTE: the prepared id (hex) and, in v5, the result metadata id (hex). */
  id?: string;
  resultMetadataId?: string;
  params?: QueryParams;
  batch?: BatchParams;
  prepareKeyspace?: string;
  events?: string[];
  authToken?: Uint8Array | null;
  /** Set when the body did not decode; the request is still recorded and answered. */
  decodeError?: string;
}

function readValues(r: ByteReader, named: boolean): { values: Value[]; names?: string[] } {
  const n = r.short("value count");
  const values: Value[] = [];
  const names: string[] = [];
  for (let i = 0; i < n; i++) {
    if (named) names.push(r.string("value name"));
    values.push(r.value("value"));
  }
  return named ? { values, names } : { values };
}

export function readQueryParams(r: ByteReader, version: number): QueryParams {
  const consistency = r.short("consistency");
  const flags = version >= 5 ? r.int("flags") : r.byte("flags");
  const p: QueryParams = { consistency, flags, values: [], skipMetadata: (flags & QueryFlag.SKIP_METADATA) !== 0 };
  if (flags & QueryFlag.VALUES) Object.assign(p, readValues(r, (flags & QueryFlag.NAMES_FOR_VALUES) !== 0));
  if (flags & QueryFlag.PAGE_SIZE) p.pageSize = r.int("page size");
  if (flags & QueryFlag.PAGING_STATE) p.pagingState = r.bytes("paging state");
  if (flags & QueryFlag.SERIAL_CONSISTENCY) p.serialConsistency = r.short("serial consistency");
  if (flags & QueryFlag.DEFAULT_TIMESTAMP) p.timestamp = r.long("timestamp");
  if (version >= 5 && flags & QueryFlag.KEYSPACE) p.keyspace = r.string("keyspace");
  if (version >= 5 && flags & QueryFlag.NOW_IN_SECONDS) p.nowInSeconds = r.int("now in seconds");
  return p;
}

function readBatch(r: ByteReader, version: number): BatchParams {
  const type = r.byte("batch type");
  const n = r.short("statement count");
  const statements: BatchStatement[] = [];
  for (let i = 0; i < n; i++) {
    const kind = r.byte("statement kind");
    const head = kind === 0 ? { kind: "query" as const, query: r.longString("query") } : { kind: "prepared" as const, id: toHex(r.shortBytes("id")) };
    statements.push({ ...head, values: readValues(r, false).values });
  }
  const consistency = r.short("consistency");
  const flags = version >= 5 ? r.int("flags") : r.byte("flags");
  const b: BatchParams = { type, statements, consistency, flags };
  if (flags & QueryFlag.SERIAL_CONSISTENCY) b.serialConsistency = r.short("serial consistency");
  if (flags & QueryFlag.DEFAULT_TIMESTAMP) b.timestamp = r.long("timestamp");
  if (version >= 5 && flags & QueryFlag.KEYSPACE) b.keyspace = r.string("keyspace");
  if (version >= 5 && flags & QueryFlag.NOW_IN_SECONDS) b.nowInSeconds = r.int("now in seconds");
  return b;
}

function decodeBody(req: RecordedRequest, r: ByteReader, preparedText: (id: string) => string | undefined): void {
  const v = req.version;
  switch (req.opcode) {
    case Op.STARTUP:
      req.startup = r.stringMap("startup options");
      break;
    case Op.QUERY:
      req.query = r.longString("query");
      req.params = readQueryParams(r, v);
      break;
    case Op.PREPARE:
      req.query = r.longString("query");
      if (v >= 5 && r.remaining >= 4 && r.int("prepare flags") & 0x01) req.prepareKeyspace = r.string("keyspace");
      break;
    case Op.EXECUTE:
      req.id = toHex(r.shortBytes("prepared id"));
      if (v >= 5) req.resultMetadataId = toHex(r.shortBytes("result metadata id"));
      req.query = preparedText(req.id);
      req.params = readQueryParams(r, v);
      break;
    case Op.BATCH:
      req.batch = readBatch(r, v);
      break;
    case Op.REGISTER:
      req.events = r.stringList("events");
      break;
    case Op.AUTH_RESPONSE:
      req.authToken = r.bytes("auth token");
      break;
  }
}

export function decodeRequest(
  base: Omit<RecordedRequest, "op">,
  preparedText: (id: string) => string | undefined,
): RecordedRequest {
  const req: RecordedRequest = { ...base, op: opName(base.opcode) };
  const r = new ByteReader(base.body);
  try {
    if (base.frameFlags & FLAG_CUSTOM_PAYLOAD) req.customPayload = r.bytesMap("custom payload");
    decodeBody(req, r, preparedText);
  } catch (e) {
    req.decodeError = (e as Error).message;
  }
  return req;
}
