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
import { decoderFor, defineField, type ValueDecoder, yieldsByteViews } from "./values.ts";
import { viewOf } from "./reader.ts";

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

export interface ParseResultOptions {
  /**
   * The caller hands `body` over and will never write to it again, so blobs in the rows may
   * be views of it directly instead of a private copy of the page.
   */
  bodyIsPrivate?: boolean;
}

/**
 * Parses a RESULT body. For an EXECUTE sent with skip-metadata, pass the prepared
 * statement's result columns as `cachedResultColumns`: the server then sends none.
 * Throws CqlProtocolError.
 */
const VOID_RESULT: CqlResult = Object.freeze({ kind: "void" });

export function parseResult(
  body: Uint8Array,
  protocolVersion: number,
  cachedResultColumns?: readonly ColumnSpec[],
  options?: ParseResultOptions,
): CqlResult {
  // A write's answer, the commonest: read without a Reader, answered with one shared object.
  if (body.length === 4 && body[0] === 0 && body[1] === 0 && body[2] === 0 && body[3] === RESULT_VOID) return VOID_RESULT;
  const r = new Reader(body);
  const kind = r.i32("result kind");
  switch (kind) {
    case RESULT_VOID:
      r.expectEnd("void result");
      return VOID_RESULT;
    case RESULT_ROWS:
      return parseRows(r, protocolVersion, cachedResultColumns, options?.bodyIsPrivate === true);
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

function parseRows(r: Reader, protocolVersion: number, cachedResultColumns: readonly ColumnSpec[] | undefined, bodyIsPrivate: boolean): RowsResult {
  const metadata = readRowsMetadata(r, protocolVersion);
  let columns = metadata.columns;
  if (columns === null) {
    if (cachedResultColumns === undefined) {
      // No cached columns: the request did not ask to skip them (SKIP_METADATA goes only with
      // a prepared statement's columns), so the server broke the protocol (whole-client fuzz, seed 3399).
      throw r.error("rows metadata", "the server sent No_metadata for a request that did not ask to skip the metadata", metadata.columnCountAt);
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
  const rows = decodeRows(r, columns, rowCount, bodyIsPrivate);
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
let generation = 0;

/**
 * Chooses how rows are built: generated object literals (`true`, the default where the
 * runtime allows code generation) or assignment in column order. For benchmarks and tests.
 */
export function setRowCodegen(enabled: boolean): void {
  const next = enabled && canGenerateCode();
  if (next === codegen) return;
  codegen = next;
  generation++;
  decoderBySignature.clear();
}

/**
 * How to read the common fixed-size types inline in generated code, given `v` (DataView),
 * `u8` and the value start `s`, when the value has exactly `size` bytes. Any other length
 * goes through the type's decoder, which knows about empty values and errors.
 */
const INLINE_READS: Record<string, { size: number; expression: string }> = {
  int: { size: 4, expression: "v.getInt32(s)" },
  bigint: { size: 8, expression: "v.getBigInt64(s)" },
  counter: { size: 8, expression: "v.getBigInt64(s)" },
  double: { size: 8, expression: "v.getFloat64(s)" },
  float: { size: 4, expression: "v.getFloat32(s)" },
  smallint: { size: 2, expression: "v.getInt16(s)" },
  tinyint: { size: 1, expression: "v.getInt8(s)" },
  boolean: { size: 1, expression: "u8[s] !== 0" },
};

/** Past this many columns a generated row function grows too big for V8 to optimise well. */
const MAX_INLINED_COLUMNS = 64;

function propertyKey(name: string): string {
  // JSON.stringify yields a valid, fully escaped JS string literal; the computed form keeps
  // a column named __proto__ an own property instead of setting the prototype.
  return name === "__proto__" ? `[${JSON.stringify(name)}]` : JSON.stringify(name);
}

/**
 * Generates one function per column list that walks the row's cells with the position in
 * a local, reads common fixed-size values inline, and returns an object literal naming
 * every column.
 */
function generatedFactory(columns: readonly ColumnSpec[]): RowFactory {
  const names = columns.map((c) => c.name);
  const decoders = columns.map((c) => decoderFor(c.type));
  if (columns.length > MAX_INLINED_COLUMNS) {
    const readers = columns.map((c, i) => cellReader(decoders[i], c.name));
    const props = names.map((name, i) => `${propertyKey(name)}: r[${i}](c)`);
    return new Function("r", `"use strict"; return function row(c) { return { ${props.join(", ")} }; };`)(readers) as RowFactory;
  }
  const lengthMissing = (column: number, pos: number, end: number): never => {
    throw new CqlProtocolError("remote", `column ${names[column]}`, pos, `value length needs 4 bytes, ${end - pos} left`);
  };
  const valueOverrun = (column: number, pos: number, length: number, end: number): never => {
    throw new CqlProtocolError("remote", `column ${names[column]}`, pos, `value of ${length} bytes, ${end - pos - 4} left`);
  };
  let body = `"use strict"; return function row(c) {\nconst u8 = c.u8, v = c.view, end = c.end;\nlet p = c.pos, n = 0, s = 0;\n`;
  columns.forEach((column, i) => {
    const inline = INLINE_READS[column.type.kind];
    const decode = inline === undefined ? `d${i}(u8, v, s, n)` : `n === ${inline.size} ? ${inline.expression} : d${i}(u8, v, s, n)`;
    body += `let a${i} = null;\n` +
      `if (p + 4 > end) lengthMissing(${i}, p, end);\n` +
      `n = v.getInt32(p); s = p + 4;\n` +
      `if (n < 0) p = s; else { if (n > end - s) valueOverrun(${i}, p, n, end); p = s + n; a${i} = ${decode}; }\n`;
  });
  body += `c.pos = p;\nreturn { ${names.map((name, i) => `${propertyKey(name)}: a${i}`).join(", ")} };\n};`;
  const params = ["lengthMissing", "valueOverrun", ...decoders.map((_, i) => `d${i}`)];
  return new Function(...params, body)(lengthMissing, valueOverrun, ...decoders) as RowFactory;
}

function assignedFactory(names: readonly string[], readers: readonly CellReader[]): RowFactory {
  const count = names.length;
  return (c) => {
    const row: Row = {};
    for (let i = 0; i < count; i++) defineField(row, names[i], readers[i](c));
    return row;
  };
}

interface RowDecoder {
  factory: RowFactory;
  /** Some column yields blob views, which must not see the caller's buffer. */
  needsPrivateBytes: boolean;
  /** The `setRowCodegen` generation it was built in. */
  generation: number;
}

/**
 * workerd allows code generation while modules load but refuses it while serving requests,
 * so the probe at load time can say yes wrongly: the first refusal turns generation off.
 */
function generatedOrNull(columns: readonly ColumnSpec[]): RowFactory | null {
  try {
    return generatedFactory(columns);
  } catch (e) {
    if (!(e instanceof EvalError)) throw e;
    codegen = false;
    return null;
  }
}

function buildRowDecoder(columns: readonly ColumnSpec[]): RowDecoder {
  const names = columns.map((c) => c.name);
  return {
    factory: (codegen && generatedOrNull(columns)) || assignedFactory(names, columns.map((c) => cellReader(decoderFor(c.type), c.name))),
    needsPrivateBytes: columns.some((c) => yieldsByteViews(c.type)),
    generation,
  };
}

/** Keyed by the column list's identity: prepared statements reuse theirs page after page. */
const decoderByColumns = new WeakMap<readonly ColumnSpec[], RowDecoder>();
/** Keyed by names and types, for results that carry their own metadata. Bounded. */
const decoderBySignature = new Map<string, RowDecoder>();
const MAX_CACHED_SIGNATURES = 512;

function signatureOf(columns: readonly ColumnSpec[]): string {
  let signature = "";
  for (const column of columns) signature += `${column.name}\u0000${formatCqlType(column.type, { udt: "expanded" })}\u0001`;
  return signature;
}

/**
 * The last column list decoded and its decoder: a client running one prepared statement
 * reads the same list page after page, and this spares the WeakMap's hash lookup (a sixth
 * of a one-row page's decode).
 */
let lastColumns: readonly ColumnSpec[] | null = null;
let lastDecoder: RowDecoder | null = null;

function rowDecoderFor(columns: readonly ColumnSpec[]): RowDecoder {
  if (columns === lastColumns && lastDecoder!.generation === generation) return lastDecoder!;
  const decoder = lookUpRowDecoder(columns);
  lastColumns = columns;
  lastDecoder = decoder;
  return decoder;
}

function lookUpRowDecoder(columns: readonly ColumnSpec[]): RowDecoder {
  let decoder = decoderByColumns.get(columns);
  if (decoder !== undefined && decoder.generation === generation) return decoder;
  const signature = signatureOf(columns);
  decoder = decoderBySignature.get(signature);
  if (decoder === undefined) {
    decoder = buildRowDecoder(columns);
    if (decoderBySignature.size >= MAX_CACHED_SIGNATURES) decoderBySignature.clear();
    decoderBySignature.set(signature, decoder);
  }
  decoderByColumns.set(columns, decoder);
  return decoder;
}

/** The cursor `decodeCachedRows` reads with: decoding a page is synchronous, so one serves all. */
const sharedCursor: CellCursor = { u8: new Uint8Array(0), view: new DataView(new ArrayBuffer(0)), pos: 0, end: 0 };
const EMPTY_CURSOR_U8 = sharedCursor.u8;
const EMPTY_CURSOR_VIEW = sharedCursor.view;

/**
 * The rows of the RESULT body `u8[start, end)` when it is the usual answer to an EXECUTE sent
 * with skip-metadata: Rows, no metadata, no next page, as many columns as `columns`, every
 * byte used. `view` spans all of `u8`, which is handed over: blobs in the rows are views of
 * it. Reads in place (no Reader, no view of the body). Null for any other body, and for a
 * malformed one: `parseResult` of the body alone then says what is wrong, at offsets that
 * count from the body's start.
 */
export function decodeCachedRows(u8: Uint8Array, view: DataView, start: number, end: number, columns: readonly ColumnSpec[]): Row[] | null {
  const at = start + 16;
  if (at > end) return null;
  // Without metadata the global-spec flag (Cassandra sets it) says nothing: no specs follow.
  if (view.getInt32(start) !== RESULT_ROWS || (view.getInt32(start + 4) & ~FLAG_GLOBAL_TABLES_SPEC) !== FLAG_NO_METADATA) return null;
  const columnCount = columns.length;
  if (columnCount === 0 || view.getInt32(start + 8) !== columnCount) return null;
  const rowCount = view.getInt32(start + 12);
  if (rowCount < 0 || rowCount > (end - at) / (4 * columnCount)) return null;
  const { factory } = rowDecoderFor(columns);
  const cursor = sharedCursor;
  cursor.u8 = u8;
  cursor.view = view;
  cursor.pos = at;
  cursor.end = end;
  const rows: Row[] = new Array(rowCount);
  try {
    for (let i = 0; i < rowCount; i++) rows[i] = factory(cursor);
  } catch {
    return null;
  } finally {
    // The page is the caller's: the cursor keeps no hold on it.
    cursor.u8 = EMPTY_CURSOR_U8;
    cursor.view = EMPTY_CURSOR_VIEW;
  }
  return cursor.pos === end ? rows : null;
}

function decodeRows(r: Reader, columns: readonly ColumnSpec[], rowCount: number, bodyIsPrivate: boolean): Row[] {
  const { factory, needsPrivateBytes } = rowDecoderFor(columns);
  // One copy of the whole body keeps positions (and error offsets) unchanged.
  const u8 = needsPrivateBytes && !bodyIsPrivate ? r.u8.slice() : r.u8;
  const cursor: CellCursor = { u8, view: u8 === r.u8 ? r.view : viewOf(u8), pos: r.pos, end: r.end };
  const rows: Row[] = new Array(rowCount);
  for (let i = 0; i < rowCount; i++) rows[i] = factory(cursor);
  r.pos = cursor.pos;
  return rows;
}
