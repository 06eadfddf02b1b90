/**
 * `client.metadata`, shaped like the DataStax driver's: schema read from `system_schema` on
 * demand, and the token ring and replicas from the core's cluster view.
 */
import { parseCqlType, type TypeInfo, type UdtType } from "./codec/mod.ts";
import type { ResultSet, Row } from "./result.ts";
import { ArgumentError } from "./errors.ts";
import { type Aggregate, describeAggregate, describeFunction, type SchemaFunction, signatureText } from "./schema_functions.ts";

/** A function's argument types: CQL type names, or DataStax's `{ code, info }` descriptions. */
type Signature = Array<string | { code: number; info?: unknown }>;

/** How often and how far apart getTrace reads a trace the server is still writing (DataStax: 5, 400 ms). */
const TRACE_ATTEMPTS = 5;
const TRACE_RETRY_MS = 400;

/** A CQL type as the DataStax driver describes it: the protocol's code and what it holds. */
export interface DataTypeInfo {
  code: number;
  info: null | string | DataTypeInfo | DataTypeInfo[] | { keyspace: string; name: string; fields: Array<{ name: string; type: DataTypeInfo }> };
  type?: string;
}

export function dataTypeInfo(t: TypeInfo): DataTypeInfo {
  switch (t.kind) {
    case "list":
    case "set":
      return { code: t.code, info: dataTypeInfo(t.element) };
    case "map":
      return { code: t.code, info: [dataTypeInfo(t.key), dataTypeInfo(t.value)] };
    case "tuple":
      return { code: t.code, info: t.elements.map(dataTypeInfo) };
    case "udt":
      return { code: t.code, info: { keyspace: t.keyspace, name: t.name, fields: t.fields.map((f) => ({ name: f.name, type: dataTypeInfo(f.type) })) } };
    case "custom":
      return { code: t.code, info: t.className };
    case "vector":
      return { code: 0, info: `org.apache.cassandra.db.marshal.VectorType`, type: "vector" };
    default:
      return { code: t.code, info: null };
  }
}

export interface ColumnMetadata {
  name: string;
  type: DataTypeInfo;
  /** The CQL text of the type, as `system_schema` stores it. */
  cqlType: string;
  isStatic: boolean;
}

export interface TableMetadata {
  keyspace: string;
  name: string;
  columns: ColumnMetadata[];
  columnsByName: Record<string, ColumnMetadata>;
  partitionKeys: ColumnMetadata[];
  clusteringKeys: ColumnMetadata[];
  clusteringOrder: string[];
  comment: string;
  defaultTtl: number;
  gcGraceSeconds: number;
  bloomFilterFalsePositiveChance: number;
  caching: Record<string, string>;
  compactionClass: string;
  compactionOptions: Record<string, string>;
  compression: Record<string, string>;
  extensions: Record<string, unknown>;
  /** Set for a materialized view: the table it is built from. */
  tableName?: string;
}

/** A virtual keyspace (Cassandra 4+: `system_views`...) has `virtual` true, `strategy` "", no options. */
export interface KeyspaceMetadata {
  name: string;
  durableWrites: boolean;
  strategy: string;
  strategyOptions: Record<string, string>;
  virtual: boolean;
}

export interface UdtMetadata {
  keyspace: string;
  name: string;
  fields: Array<{ name: string; type: DataTypeInfo }>;
}

/** What the metadata needs from the client. */
export interface MetadataSource {
  execute(query: string, params?: unknown[] | null, options?: { prepare?: boolean; consistency?: number }): Promise<ResultSet<Row>>;
  getTokenRanges(keyspace?: string): Promise<Array<{ start: bigint; end: bigint; replicas: string[] }>>;
  replicasOf(keyspace: string, token: bigint | Uint8Array): string[];
}

type Callback<T> = (err: Error | null, value?: T) => void;

/**
 * Settles `promise` through `callback` when one is given, else returns it. The callback runs in
 * a microtask of its own, outside the promise: what it throws is an uncaught exception (as with
 * DataStax's callbacks), not the rejection of a promise nobody holds.
 */
function settle<T>(promise: Promise<T>, callback?: Callback<T>): Promise<T> | undefined {
  if (typeof callback !== "function") return promise;
  promise.then((v) => queueMicrotask(() => callback(null, v)), (e) => queueMicrotask(() => callback(e)));
  return undefined;
}

/** A trace: its `system_traces.sessions` row with its `system_traces.events` rows. */
export type Trace = Row & { events: Row[] };

export const STRATEGY_PREFIX = "org.apache.cassandra.locator.";

export class Metadata {
  /** Keyspaces by name, as of the last `refreshKeyspaces()` (the compat client runs it on connect). */
  keyspaces: Record<string, KeyspaceMetadata> = {};

  constructor(private readonly client: MetadataSource) {}

  /**
   * `waitReconnect` is DataStax's leading flag (`refreshKeyspaces(true, callback)`): accepted so
   * that its callback is not taken for the flag and silently dropped; a refresh here always
   * waits for a connection.
   */
  refreshKeyspaces(callback?: Callback<Record<string, KeyspaceMetadata>>): Promise<Record<string, KeyspaceMetadata>> | undefined;
  refreshKeyspaces(waitReconnect: boolean, callback?: Callback<Record<string, KeyspaceMetadata>>): Promise<Record<string, KeyspaceMetadata>> | undefined;
  refreshKeyspaces(
    waitOrCallback?: boolean | Callback<Record<string, KeyspaceMetadata>>,
    callback?: Callback<Record<string, KeyspaceMetadata>>,
  ): Promise<Record<string, KeyspaceMetadata>> | undefined {
    return settle(this.loadKeyspaces(null), typeof waitOrCallback === "function" ? waitOrCallback : callback);
  }

  refreshKeyspace(name: string, callback?: Callback<KeyspaceMetadata | null>): Promise<KeyspaceMetadata | null> | undefined {
    return settle(this.loadKeyspaces(name).then(() => this.keyspaces[name] ?? null), callback);
  }

  /**
   * `system_schema`'s keyspaces and, as DataStax reads them on Cassandra 4+, the virtual ones
   * (`system_views`, `system_virtual_schema`) from `system_virtual_schema.keyspaces`.
   */
  private async loadKeyspaces(only: string | null): Promise<Record<string, KeyspaceMetadata>> {
    const [stored, virtual] = await Promise.all([this.readKeyspaces("system_schema", only), this.readKeyspaces("system_virtual_schema", only)]);
    const found: Record<string, KeyspaceMetadata> = {};
    for (const row of stored) {
      const replication = toRecord(row.replication);
      const strategy = String(replication.class ?? "");
      delete replication.class;
      const name = String(row.keyspace_name);
      found[name] = {
        name,
        durableWrites: row.durable_writes === true,
        strategy: strategy.startsWith(STRATEGY_PREFIX) ? strategy.slice(STRATEGY_PREFIX.length) : strategy,
        strategyOptions: replication,
        virtual: false,
      };
    }
    // A virtual keyspace has no replication nor durable writes: its row holds only the name.
    for (const row of virtual) {
      const name = String(row.keyspace_name);
      found[name] ??= { name, durableWrites: false, strategy: "", strategyOptions: {}, virtual: true };
    }
    if (only === null) this.keyspaces = found;
    else if (found[only]) this.keyspaces[only] = found[only];
    else delete this.keyspaces[only];
    return this.keyspaces;
  }

  /**
   * The keyspace rows of one schema table. `system_virtual_schema` is missing before Cassandra 4
   * (and on servers that report 4 without virtual tables): no virtual keyspaces there, as DataStax.
   */
  private async readKeyspaces(schema: "system_schema" | "system_virtual_schema", only: string | null): Promise<Row[]> {
    const read = only === null
      ? this.client.execute(`SELECT * FROM ${schema}.keyspaces`)
      : this.client.execute(`SELECT * FROM ${schema}.keyspaces WHERE keyspace_name = ?`, [only], { prepare: true });
    if (schema === "system_schema") return (await read).rows;
    return read.then((rs) => rs.rows, () => []);
  }

  /** A table's columns, keys and options, or null when there is no such table. */
  getTable(keyspace: string, table: string, callback?: Callback<TableMetadata | null>): Promise<TableMetadata | null> | undefined {
    return settle(this.loadTable(keyspace, table, "tables"), callback);
  }

  getMaterializedView(keyspace: string, view: string, callback?: Callback<TableMetadata | null>): Promise<TableMetadata | null> | undefined {
    return settle(this.loadTable(keyspace, view, "views"), callback);
  }

  private async loadTable(keyspace: string, table: string, kind: "tables" | "views"): Promise<TableMetadata | null> {
    const key = kind === "tables" ? "table_name" : "view_name";
    const [head, cols] = await Promise.all([
      this.client.execute(`SELECT * FROM system_schema.${kind} WHERE keyspace_name = ? AND ${key} = ?`, [keyspace, table], { prepare: true }),
      this.client.execute("SELECT * FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?", [keyspace, table], { prepare: true }),
    ]);
    const row = head.rows[0];
    if (row === undefined) return null;
    const udts = await this.udtResolver(keyspace, cols.rows.map((c) => String(c.type)));
    const columns: ColumnMetadata[] = [];
    const partition: Array<[number, ColumnMetadata]> = [];
    const clustering: Array<[number, ColumnMetadata, string]> = [];
    for (const c of cols.rows) {
      const cqlType = String(c.type);
      const column = { name: String(c.column_name), type: dataTypeInfo(parseCqlType(cqlType, { keyspace, resolveUdt: udts })), cqlType, isStatic: c.kind === "static" };
      columns.push(column);
      if (c.kind === "partition_key") partition.push([Number(c.position), column]);
      if (c.kind === "clustering") clustering.push([Number(c.position), column, String(c.clustering_order).toUpperCase()]);
    }
    partition.sort((a, b) => a[0] - b[0]);
    clustering.sort((a, b) => a[0] - b[0]);
    const compaction = toRecord(row.compaction);
    const compactionClass = String(compaction.class ?? "");
    delete compaction.class;
    return {
      keyspace,
      name: table,
      columns,
      columnsByName: Object.fromEntries(columns.map((c) => [c.name, c])),
      partitionKeys: partition.map(([, c]) => c),
      clusteringKeys: clustering.map(([, c]) => c),
      clusteringOrder: clustering.map(([, , order]) => order),
      comment: String(row.comment ?? ""),
      defaultTtl: Number(row.default_time_to_live ?? 0),
      gcGraceSeconds: Number(row.gc_grace_seconds ?? 0),
      bloomFilterFalsePositiveChance: Number(row.bloom_filter_fp_chance ?? 0),
      caching: toRecord(row.caching),
      compactionClass,
      compactionOptions: compaction,
      compression: toRecord(row.compression),
      extensions: toRecord(row.extensions),
      ...(kind === "views" ? { tableName: String(row.base_table_name) } : {}),
    };
  }

  /** A user-defined type's fields, or null when there is no such type. */
  getUdt(keyspace: string, name: string, callback?: Callback<UdtMetadata | null>): Promise<UdtMetadata | null> | undefined {
    return settle(this.loadUdt(keyspace, name).then((t) => t && { keyspace, name, fields: t.fields.map((f) => ({ name: f.name, type: dataTypeInfo(f.type) })) }), callback);
  }

  /** A user-defined type as the type parser's `UdtType` (nested UDTs resolved), or null when there is none. */
  udtType(keyspace: string, name: string): Promise<UdtType | null> {
    return this.loadUdt(keyspace, name);
  }

  private async loadUdt(keyspace: string, name: string, depth = 0): Promise<UdtType | null> {
    const rs = await this.client.execute("SELECT field_names, field_types FROM system_schema.types WHERE keyspace_name = ? AND type_name = ?", [keyspace, name], { prepare: true });
    const row = rs.rows[0];
    if (row === undefined) return null;
    const names = (row.field_names as string[] | null) ?? [];
    const typeTexts = (row.field_types as string[] | null) ?? [];
    // A UDT can hold other UDTs; the depth cap keeps a hostile schema from recursing forever.
    const resolve = depth < 8 ? await this.udtResolver(keyspace, typeTexts, depth + 1) : undefined;
    const fields = names.map((n, i) => ({ name: n, type: parseCqlType(typeTexts[i] ?? "blob", { keyspace, resolveUdt: resolve }) }));
    return { kind: "udt", code: 0x0030, keyspace, name, fields, frozen: false };
  }

  /** Loads the UDTs that `typeTexts` name, for `parseCqlType`'s `resolveUdt`. */
  private async udtResolver(keyspace: string, typeTexts: string[], depth = 0): Promise<((ks: string, name: string) => UdtType | undefined) | undefined> {
    const named = new Set<string>();
    for (const text of typeTexts) collectUdtNames(parseCqlType(text, { keyspace }), named);
    if (named.size === 0) return undefined;
    const loaded = new Map<string, UdtType>();
    for (const name of named) {
      const udt = await this.loadUdt(keyspace, name, depth);
      if (udt) loaded.set(name, udt);
    }
    return (_ks, name) => loaded.get(name);
  }

  /** The user-defined functions named `name` in `keyspace`, one per signature, as DataStax describes them. */
  getFunctions(keyspace: string, name: string, callback?: Callback<SchemaFunction[]>): Promise<SchemaFunction[]> | undefined {
    return settle(this.loadFunctions(keyspace, name, "functions", describeFunction), callback);
  }

  /** The function named `name` whose argument types are `signature` (CQL type names, or DataStax's `{ code, info }`), or null. */
  getFunction(keyspace: string, name: string, signature: Signature, callback?: Callback<SchemaFunction | null>): Promise<SchemaFunction | null> | undefined {
    return settle(this.loadOne(keyspace, name, signature, "functions", describeFunction), callback);
  }

  /** The user-defined aggregates named `name` in `keyspace`, one per signature. */
  getAggregates(keyspace: string, name: string, callback?: Callback<Aggregate[]>): Promise<Aggregate[]> | undefined {
    return settle(this.loadFunctions(keyspace, name, "aggregates", describeAggregate), callback);
  }

  /** The aggregate named `name` whose argument types are `signature`, or null. */
  getAggregate(keyspace: string, name: string, signature: Signature, callback?: Callback<Aggregate | null>): Promise<Aggregate | null> | undefined {
    return settle(this.loadOne(keyspace, name, signature, "aggregates", describeAggregate), callback);
  }

  /**
   * DataStax's `clearPrepared()`: drops its cache of prepared statements. cqlwire keeps none in
   * the metadata (a statement the server no longer knows is prepared again when it answers
   * UNPREPARED), so there is nothing to drop.
   */
  clearPrepared(): void {}

  private async loadFunctions<T extends { signature: string[] | null }>(keyspace: string, name: string, kind: "functions" | "aggregates", make: (row: Row, d: (t: string) => DataTypeInfo) => T): Promise<T[]> {
    if (!keyspace || !name) throw new ArgumentError("You must provide the keyspace name and cql function name to retrieve the metadata");
    const key = kind === "functions" ? "function_name" : "aggregate_name";
    const rs = await this.client.execute(`SELECT * FROM system_schema.${kind} WHERE keyspace_name = ? AND ${key} = ?`, [keyspace, name], { prepare: true });
    const typeTexts = rs.rows.flatMap((r) => [...((r.argument_types as string[] | null) ?? []), String(r.return_type), ...(r.state_type == null ? [] : [String(r.state_type)])]);
    const udts = await this.udtResolver(keyspace, typeTexts);
    return rs.rows.map((r) => make(r, (t) => dataTypeInfo(parseCqlType(t, { keyspace, resolveUdt: udts }))));
  }

  private async loadOne<T extends { signature: string[] | null }>(keyspace: string, name: string, signature: Signature, kind: "functions" | "aggregates", make: (row: Row, d: (t: string) => DataTypeInfo) => T): Promise<T | null> {
    if (!keyspace || !name) throw new ArgumentError("You must provide the keyspace name and cql function name to retrieve the metadata");
    if (!Array.isArray(signature)) throw new ArgumentError("Signature must be an array of types");
    const wanted = signature.map((item) => signatureText(item)).join(",");
    return (await this.loadFunctions(keyspace, name, kind, make)).find((f) => (f.signature ?? []).join(",") === wanted) ?? null;
  }

  /**
   * A query trace: the session row of `system_traces` with its events. The server writes a
   * trace after it has answered, so this asks again (TRACE_ATTEMPTS times, TRACE_RETRY_MS
   * apart, as DataStax's driver does) until the session row has its duration; the last read
   * is returned as it is (null: no session row). Read at `consistency` when given (DataStax's
   * `getTrace(id, consistency, callback)`; otherwise the client's default).
   */
  getTrace(traceId: string | { toString(): string }, callback?: Callback<Trace | null>): Promise<Trace | null> | undefined;
  getTrace(traceId: string | { toString(): string }, consistency: number | null | undefined, callback?: Callback<Trace | null>): Promise<Trace | null> | undefined;
  getTrace(
    traceId: string | { toString(): string },
    consistencyOrCallback?: number | null | Callback<Trace | null>,
    callback?: Callback<Trace | null>,
  ): Promise<Trace | null> | undefined {
    if (typeof consistencyOrCallback === "function") return settle(this.readTrace(String(traceId), undefined), consistencyOrCallback);
    return settle(this.readTrace(String(traceId), consistencyOrCallback ?? undefined), callback);
  }

  private async readTrace(id: string, consistency: number | undefined): Promise<Trace | null> {
    const options = { prepare: true, consistency };
    for (let attempt = 1; ; attempt++) {
      const session = (await this.client.execute("SELECT * FROM system_traces.sessions WHERE session_id = ?", [id], options)).rows[0];
      const complete = session !== undefined && (session as Record<string, unknown>).duration != null;
      if (complete || attempt === TRACE_ATTEMPTS) {
        if (session === undefined) return null;
        const events = (await this.client.execute("SELECT * FROM system_traces.events WHERE session_id = ?", [id], options)).rows;
        return { ...session, events };
      }
      await new Promise((resolve) => setTimeout(resolve, TRACE_RETRY_MS));
    }
  }

  /** The token ring with the replicas of each range in `keyspace`. */
  getTokenRanges(keyspace?: string): Promise<Array<{ start: bigint; end: bigint; replicas: string[] }>> {
    return this.client.getTokenRanges(keyspace);
  }

  /** The replicas (addresses) that own `token` (a bigint, or a routing key's bytes) in `keyspace`. */
  async getReplicas(keyspace: string, token: bigint | Uint8Array): Promise<string[]> {
    await this.client.getTokenRanges(keyspace); // connects when not yet connected
    return this.client.replicasOf(keyspace, token);
  }
}

/** Adds the names of the UDTs `t` holds to `out` (for compat/schema.ts too). */
export function collectUdtNames(t: TypeInfo, out: Set<string>): void {
  switch (t.kind) {
    case "udt":
      out.add(t.name);
      return;
    case "list":
    case "set":
    case "vector":
      return collectUdtNames(t.element, out);
    case "map":
      collectUdtNames(t.key, out);
      return collectUdtNames(t.value, out);
    case "tuple":
      for (const e of t.elements) collectUdtNames(e, out);
  }
}

function toRecord(value: unknown): Record<string, string> {
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), v as string]));
  return {};
}
