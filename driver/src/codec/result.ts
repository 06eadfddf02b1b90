/**
 * RESULT bodies (the boundary's `Response` payload): Void, Rows, Set_keyspace, Prepared and
 * Schema_change, as in section 4.2.5 of the v4 and v5 specs.
 *
 * Rows become plain objects keyed by column name. Each distinct column list gets a row
 * factory whose object literal names every column, so all rows of a page (and of later
 * pages) share one V8 hidden class with in-object properties; each column's cell is read by
 * a closure specialised for its type. Where code generation is forbidden (Cloudflare
 * Workers), rows are built by assignment in column order, which keeps a common hidden
 * class but is slower.
 */
import { CqlProtocolError } from "./errors.ts";
import { Reader } from "./reader.ts";
import { type ColumnSpec, formatCqlType, readTypeOption } from "./types.ts";
import { decoderFor, defineField, type ValueDecoder } from "./values.ts";

export type Row = Record<string, unknown>;

export interface VoidResult {
  kind: "void";
}
export interface RowsResult {
  kind: "rows";
  columns: ColumnSpec[];
  rows: Row[];
  /** Where the next page starts, or null on the last page. */
  pageState: Uint8Array | null;
  /** v5: the server's new result metadata id, to use in later EXECUTEs. */
  newMetadataId?: Uint8Array;
}
export interface SetKeyspaceResult {
  kind: "setKeyspace";
  keyspace: string;
}
export interface PreparedResult {
  kind: "prepared";
  id: Uint8Array;
  /** v5 only; null on v4. */
  resultMetadataId: Uint8Array | null;
  bindColumns: ColumnSpec[];
  /** Bind-marker indexes of the partition key components, in partition key order. */
  pkIndexes: number[];
  /** Empty when the statement returns no rows, or the server did not describe them. */
  resultColumns: ColumnSpec[];
}
export interface SchemaChangeResult {
  kind: "schemaChange";
  change: string;
  target: string;
  keyspace: string;
  name?: string;
  argTypes?: string[];
}
export type CqlResult = VoidResult | RowsResult | SetKeyspaceResult | PreparedResult | SchemaChangeResult;

const RESULT_VOID = 1;
const RESULT_ROWS = 2;
const RESULT_SET_KEYSPACE = 3;
const RESULT_PREPARED = 4;
const RESULT_SCHEMA_CHANGE = 5;

const FLAG_GLOBAL_TABLES_SPEC = 0x0001;
const FLAG_HAS_MORE_PAGES = 0x0002;
const FLAG_NO_METADATA = 0x0004;
const FLAG_METADATA_CHANGED = 0x0008;

/**
 * Parses a RESULT body. For an EXECUTE sent with skip-metadata, pass the prepared
 * statement's result columns as `cachedResultColumns`: the server then sends none.
 * Throws CqlProtocolError.
 */
export function parseResult(body: Uint8Array, protocolVersion: number, cachedResultColumns?: readonly ColumnSpec[]): CqlResult {
  const r = new Reader(body);
  const kind = r.i32("result kind");
  switch (kind) {
    case RESULT_VOID:
      r.expectEnd("void result");
      return { kind: "void" };
    case RESULT_ROWS:
      return parseRows(r, protocolVersion, cachedResultColumns);
    case RESULT_SET_KEYSPACE: {
      const keyspace = r.string("keyspace");
      r.expectEnd("set_keyspace result");
      return { kind: "setKeyspace", keyspace };
    }
    case RESULT_PREPARED:
      return parsePrepared(r, protocolVersion);
    case RESULT_SCHEMA_CHANGE: {
      const result = readSchemaChange(r);
      r.expectEnd("schema_change result");
      return result;
    }
    default:
      throw new CqlProtocolError("remote", "result kind", 0, `unknown result kind ${kind}`);
  }
}

/** The body of a schema change (also the tail of a SCHEMA_CHANGE event). */
export function readSchemaChange(r: Reader): SchemaChangeResult {
  const change = r.string("change type");
  const targetAt = r.pos;
  const target = r.string("change target");
  const keyspace = r.string("keyspace");
  switch (target) {
    case "KEYSPACE":
      return { kind: "schemaChange", change, target, keyspace };
    case "TABLE":
    case "TYPE":
      return { kind: "schemaChange", change, target, keyspace, name: r.string("name") };
    case "FUNCTION":
    case "AGGREGATE": {
      const name = r.string("name");
      return { kind: "schemaChange", change, target, keyspace, name, argTypes: r.stringList("argument types") };
    }
    default:
      throw r.error("change target", `unknown schema change target ${JSON.stringify(target)}`, targetAt);
  }
}

function readColumnSpecs(r: Reader, count: number, globalSpec: boolean): ColumnSpec[] {
  let keyspace = "";
  let table = "";
  if (globalSpec) {
    keyspace = r.string("global keyspace");
    table = r.string("global table");
  }
  const columns: ColumnSpec[] = [];
  // No preallocation: `count` is the peer's word, and each spec consumes bytes anyway.
  for (let i = 0; i < count; i++) {
    let columnKeyspace = keyspace;
    let columnTable = table;
    if (!globalSpec) {
      columnKeyspace = r.string("column keyspace");
      columnTable = r.string("column table");
    }
    const name = r.string("column name");
    const type = readTypeOption(r, "column type");
    columns.push({ keyspace: columnKeyspace, table: columnTable, name, type });
  }
  return columns;
}

interface RowsMetadata {
  columnCount: number;
  columnCountAt: number;
  pageState: Uint8Array | null;
  newMetadataId: Uint8Array | undefined;
  /** Null when the server sent No_metadata. */
  columns: ColumnSpec[] | null;
}

function readRowsMetadata(r: Reader, protocolVersion: number): RowsMetadata {
  const flags = r.i32("metadata flags");
  const columnCountAt = r.pos;
  const columnCount = r.i32("column count");
  if (columnCount < 0) throw r.error("column count", `negative column count ${columnCount}`, columnCountAt);
  const pageState = flags & FLAG_HAS_MORE_PAGES ? r.bytes("paging state") : null;
  let newMetadataId: Uint8Array | undefined;
  if (protocolVersion >= 5 && flags & FLAG_METADATA_CHANGED) newMetadataId = r.shortBytes("new metadata id");
  const columns = flags & FLAG_NO_METADATA ? null : readColumnSpecs(r, columnCount, (flags & FLAG_GLOBAL_TABLES_SPEC) !== 0);
  return { columnCount, columnCountAt, pageState, newMetadataId, columns };
}

function parseRows(r: Reader, protocolVersion: number, cachedResultColumns?: readonly ColumnSpec[]): RowsResult {
  const metadata = readRowsMetadata(r, protocolVersion);
  let columns = metadata.columns;
  if (columns === null) {
    if (cachedResultColumns === undefined) {
      throw new CqlProtocolError("local", "rows metadata", metadata.columnCountAt, "the server skipped the metadata and no cached result columns were given");
    }
    if (cachedResultColumns.length !== metadata.columnCount) {
      throw r.error("column count", `${metadata.columnCount} columns, but the cached metadata has ${cachedResultColumns.length}`, metadata.columnCountAt);
    }
    columns = cachedResultColumns as ColumnSpec[];
  }
  const rowCountAt = r.pos;
  const rowCount = r.i32("row count");
  if (rowCount < 0) throw r.error("row count", `negative row count ${rowCount}`, rowCountAt);
  const columnCount = columns.length;
  if (columnCount === 0 ? rowCount > 0 : rowCount > r.remaining / (4 * columnCount)) {
    throw r.error("row count", `${rowCount} rows of ${columnCount} columns cannot fit in ${r.remaining} bytes`, rowCountAt);
  }
  const rows = decodeRows(r, columns, rowCount);
  r.expectEnd("rows result");
  const result: RowsResult = { kind: "rows", columns, rows, pageState: metadata.pageState };
  if (metadata.newMetadataId !== undefined) result.newMetadataId = metadata.newMetadataId;
  return result;
}

function parsePrepared(r: Reader, protocolVersion: number): PreparedResult {
  const id = r.shortBytes("prepared id");
  const resultMetadataId = protocolVersion >= 5 ? r.shortBytes("result metadata id") : null;
  const flags = r.i32("prepared metadata flags");
  const columnCountAt = r.pos;
  const columnCount = r.i32("bind column count");
  if (columnCount < 0) throw r.error("bind column count", `negative column count ${columnCount}`, columnCountAt);
  const pkIndexes: number[] = [];
  if (protocolVersion >= 4) {
    const pkCountAt = r.pos;
    const pkCount = r.i32("partition key count");
    if (pkCount < 0) throw r.error("partition key count", `negative count ${pkCount}`, pkCountAt);
    for (let i = 0; i < pkCount; i++) {
      const indexAt = r.pos;
      const index = r.u16("partition key index");
      if (index >= columnCount) throw r.error("partition key index", `index ${index} is not one of the ${columnCount} bind markers`, indexAt);
      pkIndexes.push(index);
    }
  }
  const bindColumns = readColumnSpecs(r, columnCount, (flags & FLAG_GLOBAL_TABLES_SPEC) !== 0);
  const resultMetadata = readRowsMetadata(r, protocolVersion);
  r.expectEnd("prepared result");
  return { kind: "prepared", id, resultMetadataId, bindColumns, pkIndexes, resultColumns: resultMetadata.columns ?? [] };
}

// ---------------------------------------------------------------------------------------
// Rows

/** What a row factory reads from: the page's bytes and the position of the next cell. */
interface CellCursor {
  u8: Uint8Array;
  view: DataView;
  pos: number;
  end: number;
}

type CellReader = (c: CellCursor) => unknown;
type RowFactory = (c: CellCursor) => Row;

function cellReader(decode: ValueDecoder, column: string): CellReader {
  return (c) => {
    const pos = c.pos;
    if (pos + 4 > c.end) throw new CqlProtocolError("remote", `column ${column}`, pos, `value length needs 4 bytes, ${c.end - pos} left`);
    const length = c.view.getInt32(pos);
    const start = pos + 4;
    if (length < 0) {
      c.pos = start;
      return null;
    }
    if (length > c.end - start) throw new CqlProtocolError("remote", `column ${column}`, pos, `value of ${length} bytes, ${c.end - start} left`);
    c.pos = start + length;
    return decode(c.u8, c.view, start, length);
  };
}

function canGenerateCode(): boolean {
  try {
    return new Function("return 1")() === 1;
  } catch {
    return false;
  }
}

let codegen = canGenerateCode();

/**
 * Chooses how rows are built: generated object literals (`true`, the default where the
 * runtime allows code generation) or assignment in column order. For benchmarks and tests.
 */
export function setRowCodegen(enabled: boolean): void {
  const next = enabled && canGenerateCode();
  if (next === codegen) return;
  codegen = next;
  factoryBySignature.clear();
}

function generatedFactory(names: readonly string[], readers: readonly CellReader[]): RowFactory {
  const params = readers.map((_, i) => `r${i}`);
  // JSON.stringify yields a valid, fully escaped JS string literal; the computed form keeps
  // a column named __proto__ an own property instead of setting the prototype.
  const props = names.map((name, i) => `${name === "__proto__" ? `[${JSON.stringify(name)}]` : JSON.stringify(name)}: r${i}(c)`);
  const make = new Function(...params, `"use strict"; return function row(c) { return { ${props.join(", ")} }; };`);
  return make(...readers) as RowFactory;
}

function assignedFactory(names: readonly string[], readers: readonly CellReader[]): RowFactory {
  const count = names.length;
  return (c) => {
    const row: Row = {};
    for (let i = 0; i < count; i++) defineField(row, names[i], readers[i](c));
    return row;
  };
}

function buildFactory(columns: readonly ColumnSpec[]): RowFactory {
  const names = columns.map((c) => c.name);
  const readers = columns.map((c) => cellReader(decoderFor(c.type), c.name));
  return codegen ? generatedFactory(names, readers) : assignedFactory(names, readers);
}

/** Keyed by the column list's identity: prepared statements reuse theirs page after page. */
const factoryByColumns = new WeakMap<readonly ColumnSpec[], RowFactory>();
/** Keyed by names and types, for results that carry their own metadata. Bounded. */
const factoryBySignature = new Map<string, RowFactory>();
const MAX_CACHED_SIGNATURES = 512;

function signatureOf(columns: readonly ColumnSpec[]): string {
  let signature = "";
  for (const column of columns) signature += `${column.name}\u0000${formatCqlType(column.type, { udt: "expanded" })}\u0001`;
  return signature;
}

function rowFactoryFor(columns: readonly ColumnSpec[]): RowFactory {
  let factory = factoryByColumns.get(columns);
  if (factory !== undefined) return factory;
  const signature = signatureOf(columns);
  factory = factoryBySignature.get(signature);
  if (factory === undefined) {
    factory = buildFactory(columns);
    if (factoryBySignature.size >= MAX_CACHED_SIGNATURES) factoryBySignature.clear();
    factoryBySignature.set(signature, factory);
  }
  factoryByColumns.set(columns, factory);
  return factory;
}

function decodeRows(r: Reader, columns: readonly ColumnSpec[], rowCount: number): Row[] {
  const factory = rowFactoryFor(columns);
  const cursor: CellCursor = { u8: r.u8, view: r.view, pos: r.pos, end: r.end };
  const rows: Row[] = new Array(rowCount);
  for (let i = 0; i < rowCount; i++) rows[i] = factory(cursor);
  r.pos = cursor.pos;
  return rows;
}
