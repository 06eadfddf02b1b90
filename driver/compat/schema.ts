/**
 * Schema metadata in DataStax's shapes: `client.metadata.getTable` / `getMaterializedView` give
 * `TableMetadata` / `MaterializedView` instances with DataStax's fields in its order, `getUdt`
 * its UDT info object, and schema types (columns, UDT fields, function and aggregate types) as
 * DataStax's schema parser describes them: `text` is code 10 (`types.dataTypes.text`; the
 * protocol's result metadata says varchar, 13), collections, tuples and UDTs carry
 * `options.frozen`, a UDT's `info` is its UDT info object.
 * Mapped from cqlwire's own metadata (driver/src/metadata.ts, left as it is); the types are
 * parsed again from their CQL text by the one type parser, which keeps `frozen`.
 */
import { parseCqlType, type TypeInfo, type UdtType } from "../src/codec/mod.ts";
import { collectUdtNames, type Metadata, type TableMetadata as NativeTable } from "../src/metadata.ts";
import type { Aggregate, SchemaFunction } from "../src/schema_functions.ts";
import type { Row } from "../src/result.ts";
import { ResponseError } from "../src/errors.ts";
import { Emitter } from "./emitter.ts";

type Execute = (query: string, params: unknown[]) => Promise<{ rows: Row[] }>;

/** A schema type as DataStax's schema parser describes it. */
export interface SchemaType {
  code: number;
  info: null | string | SchemaType | Array<SchemaType | number> | EventEmitter;
  options?: { frozen: boolean };
  customTypeName?: string;
}

export interface SchemaColumn {
  name: string;
  type: SchemaType;
  isStatic: boolean;
}

/**
 * A UDT as DataStax's schema parser gives it (`getUdt`, and a UDT type's `info`): on DataStax
 * a plain Node EventEmitter carrying these fields, hence the class name.
 */
class EventEmitter extends Emitter {
  loading = false;
  name: string;
  keyspace: string;
  fields: Array<{ name: string; type: SchemaType }>;
  constructor(name: string, keyspace: string, fields: Array<{ name: string; type: SchemaType }>) {
    super();
    this.name = name;
    this.keyspace = keyspace;
    this.fields = fields;
  }
}
export { EventEmitter as UdtInfo };

export function schemaType(t: TypeInfo): SchemaType {
  const frozen = (info: SchemaType["info"], code: number, isFrozen: boolean): SchemaType => ({ code, info, options: { frozen: isFrozen } });
  switch (t.kind) {
    case "list":
    case "set":
      return frozen(schemaType(t.element), t.code, t.frozen);
    case "map":
      return frozen([schemaType(t.key), schemaType(t.value)], t.code, t.frozen);
    case "tuple":
      return frozen(t.elements.map(schemaType), t.code, t.frozen);
    case "udt":
      return frozen(udtInfo(t), t.code, t.frozen);
    case "custom":
      return { code: 0, info: t.className };
    case "vector":
      return { code: 0, info: [schemaType(t.element), t.dimension], customTypeName: "vector" };
    default:
      // system_schema writes varchar as text: DataStax's parser reads it as text, 10.
      return { code: t.code === 0x000d ? 0x000a : t.code, info: null };
  }
}

function udtInfo(t: UdtType): EventEmitter {
  return new EventEmitter(t.name, t.keyspace, t.fields.map((f) => ({ name: f.name, type: schemaType(f.type) })));
}

/** Fields DataStax's `DataCollection` has, in its order (the table's and the view's common part). */
class DataCollection extends Emitter {
  name: string;
  bloomFilterFalsePositiveChance = 0;
  caching: string | null = null;
  comment: string | null = null;
  gcGraceSeconds = 0;
  compactionClass: string | null = null;
  compactionOptions: Record<string, string> | null = null;
  compression: Record<string, string> | null = null;
  localReadRepairChance: number | undefined = 0;
  readRepairChance: number | undefined = 0;
  extensions: Record<string, unknown> | null = null;
  crcCheckChance: number | null = null;
  populateCacheOnFlush = false;
  defaultTtl = 0;
  speculativeRetry = "NONE";
  minIndexInterval: number | null = 128;
  maxIndexInterval: number | null = 2048;
  columns: SchemaColumn[] = [];
  columnsByName: Record<string, SchemaColumn> = {};
  partitionKeys: SchemaColumn[] = [];
  clusteringKeys: SchemaColumn[] = [];
  clusteringOrder: string[] = [];
  nodesync: unknown = null;
  constructor(name: string) {
    super();
    this.name = name;
  }
}

export class TableMetadata extends DataCollection {
  replicateOnWrite = true;
  memtableFlushPeriod = 0;
  indexInterval: number | null = null;
  isCompact = false;
  indexes: Index[] | null = null;
  cdc: boolean | null = null;
  virtual = false;
}

export class MaterializedView extends DataCollection {
  tableName: string | null = null;
  whereClause: string | null = null;
  includeAllColumns = false;
}

const INDEX_KINDS: Record<string, number> = { custom: 0, keys: 1, composites: 2 };

/** A secondary index as DataStax describes it (`table.indexes`). */
export class Index {
  name: string;
  target: string;
  kind: number;
  options: Record<string, string>;
  constructor(name: string, target: string, kind: string, options: Record<string, string>) {
    this.name = name;
    this.target = target;
    this.kind = INDEX_KINDS[kind.toLowerCase()] ?? Number.NaN;
    this.options = options;
  }
  isCompositesKind(): boolean {
    return this.kind === INDEX_KINDS.composites;
  }
  isKeysKind(): boolean {
    return this.kind === INDEX_KINDS.keys;
  }
  isCustomKind(): boolean {
    return this.kind === INDEX_KINDS.custom;
  }
}

/** Parses CQL type texts of `keyspace`, its UDTs loaded from the schema first. */
async function typeParser(metadata: Metadata, keyspace: string, texts: string[]): Promise<(text: string) => SchemaType> {
  const names = new Set<string>();
  for (const text of texts) collectUdtNames(parseCqlType(text, { keyspace }), names);
  const udts = new Map<string, UdtType>();
  for (const name of names) {
    const udt = await metadata.udtType(keyspace, name);
    if (udt) udts.set(name, udt);
  }
  return (text) => schemaType(parseCqlType(text, { keyspace, resolveUdt: (_ks, name) => udts.get(name) }));
}

const asRecord = (v: unknown): Record<string, string> => v instanceof Map ? Object.fromEntries([...v].map(([k, x]) => [String(k), x])) : { ...(v as Record<string, string> ?? {}) };

interface Columns {
  columns: Array<{ name: string; cqlType: string; isStatic: boolean }>;
  partitionKeys: string[];
  clusteringKeys: string[];
  clusteringOrder: string[];
}

/** Fills `t`'s columns, keys and clustering order, the types parsed as DataStax's schema parser does. */
async function fillColumns(t: DataCollection, metadata: Metadata, keyspace: string, c: Columns): Promise<void> {
  const parse = await typeParser(metadata, keyspace, c.columns.map((x) => x.cqlType));
  const byName = new Map<string, SchemaColumn>();
  t.columns = c.columns.map((x) => {
    const column = { name: x.name, type: parse(x.cqlType), isStatic: x.isStatic };
    byName.set(x.name, column);
    return column;
  });
  t.columnsByName = Object.fromEntries(byName);
  t.partitionKeys = c.partitionKeys.map((n) => byName.get(n)!);
  t.clusteringKeys = c.clusteringKeys.map((n) => byName.get(n)!);
  t.clusteringOrder = c.clusteringOrder.map((o) => (o.toUpperCase() === "DESC" ? "DESC" : "ASC"));
}

/** DataStax's `getTable` / `getMaterializedView`: cqlwire's table with its schema row's options. */
export async function dataCollection(metadata: Metadata, execute: Execute, keyspace: string, name: string, view: boolean): Promise<TableMetadata | MaterializedView | null> {
  const native = (await (view ? metadata.getMaterializedView(keyspace, name) : metadata.getTable(keyspace, name))) as NativeTable | null;
  if (native === null) return view ? null : await virtualTable(metadata, execute, keyspace, name);
  const [head, indexes] = await Promise.all([
    execute(`SELECT * FROM system_schema.${view ? "views" : "tables"} WHERE keyspace_name = ? AND ${view ? "view_name" : "table_name"} = ?`, [keyspace, name]),
    view ? Promise.resolve({ rows: [] }) : execute("SELECT * FROM system_schema.indexes WHERE keyspace_name = ? AND table_name = ?", [keyspace, name]),
  ]);
  const row = head.rows[0];
  if (row === undefined) return null; // dropped between the two reads
  const t = view ? new MaterializedView(name) : new TableMetadata(name);
  const names = (cs: Array<{ name: string }>) => cs.map((c) => c.name);
  await fillColumns(t, metadata, keyspace, { ...native, partitionKeys: names(native.partitionKeys), clusteringKeys: names(native.clusteringKeys) });
  fillOptions(t, row);
  if (t instanceof MaterializedView) {
    t.tableName = row.base_table_name as string;
    t.whereClause = row.where_clause as string;
    t.includeAllColumns = row.include_all_columns as boolean;
  } else {
    t.indexes = indexes.rows.map((r) => {
      const options = asRecord(r.options);
      return new Index(String(r.index_name), options.target, String(r.kind), options);
    });
    const flags = new Set((row.flags as Iterable<string> | null) ?? []);
    t.isCompact = flags.has("super") || flags.has("dense") || !flags.has("compound");
  }
  return t;
}

/**
 * A table of a virtual keyspace (Cassandra 4+: system_views...), from `system_virtual_schema`:
 * as DataStax's, its columns and keys only (it has no options), and `virtual` true. Null on
 * a server without virtual tables (Cassandra 3: no such schema table).
 */
async function virtualTable(metadata: Metadata, execute: Execute, keyspace: string, name: string): Promise<TableMetadata | null> {
  const read = (table: string) => execute(`SELECT * FROM system_virtual_schema.${table} WHERE keyspace_name = ? AND table_name = ?`, [keyspace, name]);
  let head, cols;
  try {
    [head, cols] = await Promise.all([read("tables"), read("columns")]);
  } catch (e) {
    // 0x2200 Invalid: "table system_virtual_schema.tables does not exist".
    if (e instanceof ResponseError && e.code === 0x2200) return null;
    throw e;
  }
  if (head.rows[0] === undefined) return null;
  const keys = (kind: string) => cols.rows.filter((r) => r.kind === kind).sort((a, b) => Number(a.position) - Number(b.position));
  const clustering = keys("clustering");
  const t = new TableMetadata(name);
  await fillColumns(t, metadata, keyspace, {
    columns: cols.rows.map((r) => ({ name: String(r.column_name), cqlType: String(r.type), isStatic: r.kind === "static" })),
    partitionKeys: keys("partition_key").map((r) => String(r.column_name)),
    clusteringKeys: clustering.map((r) => String(r.column_name)),
    clusteringOrder: clustering.map((r) => String(r.clustering_order)),
  });
  t.virtual = true;
  return t;
}

/** The schema row's options, as DataStax reads them (absent columns of Cassandra 4+ stay undefined). */
function fillOptions(t: DataCollection, row: Row): void {
  t.bloomFilterFalsePositiveChance = row.bloom_filter_fp_chance as number;
  t.caching = JSON.stringify(asRecord(row.caching));
  t.comment = row.comment as string;
  const compaction = asRecord(row.compaction);
  t.compactionClass = compaction.class;
  delete compaction.class;
  t.compactionOptions = compaction;
  t.compression = asRecord(row.compression);
  t.gcGraceSeconds = row.gc_grace_seconds as number;
  t.localReadRepairChance = row.dclocal_read_repair_chance as number | undefined;
  t.readRepairChance = row.read_repair_chance as number | undefined;
  t.extensions = asRecord(row.extensions);
  t.crcCheckChance = row.crc_check_chance as number;
  // A view has no memtableFlushPeriod field: DataStax's `row value || field` adds it there too.
  const flush = t as { memtableFlushPeriod?: number };
  flush.memtableFlushPeriod = (row.memtable_flush_period_in_ms as number) || flush.memtableFlushPeriod;
  t.defaultTtl = (row.default_time_to_live as number) || t.defaultTtl;
  t.speculativeRetry = (row.speculative_retry as string) || t.speculativeRetry;
  t.minIndexInterval = (row.min_index_interval as number) || t.minIndexInterval;
  t.maxIndexInterval = (row.max_index_interval as number) || t.maxIndexInterval;
  t.nodesync = row.nodesync || t.nodesync;
  if (t instanceof TableMetadata && row.cdc !== undefined) t.cdc = row.cdc as boolean | null;
}

/** DataStax's `getUdt`: the UDT info object, or null. */
export async function udt(metadata: Metadata, keyspace: string, name: string): Promise<EventEmitter | null> {
  const t = await metadata.udtType(keyspace, name);
  return t && udtInfo(t);
}

/**
 * A function's or aggregate's types as DataStax's schema parser gives them. cqlwire's own
 * describe keeps the argument types' text (`signature`) only, so the return and state types'
 * texts are read again from the schema row of the same signature.
 */
export async function withSchemaTypes<T extends SchemaFunction | Aggregate>(metadata: Metadata, execute: Execute, keyspace: string, items: T[], aggregates: boolean): Promise<T[]> {
  if (items.length === 0) return items;
  const kind = aggregates ? "aggregate" : "function";
  const rs = await execute(`SELECT * FROM system_schema.${kind}s WHERE keyspace_name = ? AND ${kind}_name = ?`, [keyspace, items[0].name]);
  const texts = rs.rows.flatMap((r) => [...((r.argument_types as string[] | null) ?? []), String(r.return_type), ...(r.state_type == null ? [] : [String(r.state_type)])]);
  const parse = await typeParser(metadata, keyspace, texts);
  const byArgs = new Map(rs.rows.map((r) => [((r.argument_types as string[] | null) ?? []).join(","), r]));
  for (const item of items) {
    const r = byArgs.get((item.signature ?? []).join(","));
    if (r === undefined) continue;
    const typed = item as unknown as { argumentTypes: SchemaType[]; returnType: SchemaType; stateType?: SchemaType };
    typed.argumentTypes = (item.signature ?? []).map(parse);
    typed.returnType = parse(String(r.return_type));
    if (aggregates) typed.stateType = parse(String(r.state_type));
  }
  return items;
}
