/**
 * `mapping`: the DataStax driver's object mapper, for one table per model: `Mapper`,
 * `ModelMapper` (`get`, `find`, `findAll`, `insert`, `update`, `remove`, `mapWithQuery`), table
 * and column name mappings. The statements are built from the table's metadata and prepared.
 * Query operators (`q.in_`, `q.gt`...) and multi-table models are not implemented.
 */
import { quoteIdentifier } from "../src/codec/mod.ts";
import { ArgumentError, NotSupportedError } from "../src/errors.ts";
import type { TableMetadata } from "../src/metadata.ts";
import type { Client } from "./client.ts";
import type { CompatQueryOptions } from "./options.ts";
import type { ResultSet } from "./result.ts";

/** Column names ⇄ property names. */
export class TableMappings {
  getColumnName(propName: string): string {
    return propName;
  }
  getPropertyName(columnName: string): string {
    return columnName;
  }
  newObjectInstance(): Record<string, unknown> {
    return {};
  }
}

export class DefaultTableMappings extends TableMappings {}

/** `user_id` ⇄ `userId`. */
export class UnderscoreCqlToCamelCaseMappings extends TableMappings {
  override getColumnName(propName: string): string {
    return propName.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  }
  override getPropertyName(columnName: string): string {
    return columnName.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
  }
}

/** A column's property name and, as DataStax's, conversions between the column's and the model's values. */
export interface ModelColumnOptions {
  name: string;
  // deno-lint-ignore no-explicit-any
  toModel?: (columnValue: any) => any;
  // deno-lint-ignore no-explicit-any
  fromModel?: (modelValue: any) => any;
}

/** DataStax's `executionOptions` of the mapper's methods: options, or an execution profile's name. */
export type MappingExecutionOptions = string | CompatQueryOptions;

export interface ModelOptions {
  tables?: Array<string | { name: string; isView?: boolean }>;
  mappings?: TableMappings;
  columns?: Record<string, string | ModelColumnOptions>;
  keyspace?: string;
}

// Documents are DataStax's `any`-valued objects: `(await m.get(key)).name.toUpperCase()` compiles.
// deno-lint-ignore no-explicit-any
type Doc = Record<string, any>;

/** What a ModelMapper call returns: the rows as model objects. */
export class Result implements Iterable<Doc> {
  readonly length: number;
  private readonly items: Doc[];

  constructor(private readonly rs: ResultSet, toDoc: (row: Doc) => Doc) {
    this.items = rs.rows.map((r) => toDoc(r as unknown as Doc));
    this.length = this.items.length;
  }

  /** `null` when there are no rows; declared as DataStax declares it. */
  first(): Doc {
    return (this.items[0] ?? null) as Doc;
  }

  toArray(): Doc[] {
    return this.items.slice();
  }

  wasApplied(): boolean {
    return this.rs.wasApplied();
  }

  forEach(callback: (doc: Doc, index: number) => void): void {
    this.items.forEach(callback);
  }

  [Symbol.iterator](): Iterator<Doc> {
    return this.items[Symbol.iterator]();
  }
}

export class ModelMapper {
  private table: Promise<TableMetadata> | null = null;
  private readonly mappings: TableMappings;
  private readonly propToColumn = new Map<string, string>();
  private readonly columnToProp = new Map<string, string>();
  private readonly toModel = new Map<string, (value: unknown) => unknown>();
  private readonly fromModel = new Map<string, (value: unknown) => unknown>();
  private readonly tableName: string;

  constructor(readonly name: string, private readonly client: Client, private readonly options: ModelOptions) {
    const tables = options.tables ?? [name];
    if (tables.length !== 1) throw new NotSupportedError("a model mapped to several tables is not supported");
    const t = tables[0];
    this.tableName = typeof t === "string" ? t : t.name;
    this.mappings = options.mappings ?? new DefaultTableMappings();
    for (const [column, prop] of Object.entries(options.columns ?? {})) {
      const propName = typeof prop === "string" ? prop : prop.name;
      this.propToColumn.set(propName, column);
      this.columnToProp.set(column, propName);
      if (typeof prop !== "string" && typeof prop.toModel === "function") this.toModel.set(column, prop.toModel);
      if (typeof prop !== "string" && typeof prop.fromModel === "function") this.fromModel.set(column, prop.fromModel);
    }
  }

  private column(prop: string): string {
    return this.propToColumn.get(prop) ?? this.mappings.getColumnName(prop);
  }

  private property(column: string): string {
    return this.columnToProp.get(column) ?? this.mappings.getPropertyName(column);
  }

  private metadata(): Promise<TableMetadata> {
    const keyspace = this.options.keyspace ?? this.client.keyspace;
    if (!keyspace) return Promise.reject(new ArgumentError(`model ${this.name}: no keyspace (set the client's or the model's)`));
    return (this.table ??= (async () => {
      await this.client.connect();
      const t = await this.client.metadata.getTable(keyspace, this.tableName);
      if (!t) throw new ArgumentError(`model ${this.name}: table ${keyspace}.${this.tableName} does not exist`);
      return t;
    })());
  }

  private qualified(t: TableMetadata): string {
    return `${quoteIdentifier(t.keyspace)}.${quoteIdentifier(t.name)}`;
  }

  /** The document's properties that are columns of the table, as [column, value]. */
  private columnsOf(t: TableMetadata, doc: Doc, fields?: string[]): Array<[string, unknown]> {
    const props = fields ?? Object.keys(doc);
    const out: Array<[string, unknown]> = [];
    for (const p of props) {
      const column = this.column(p);
      if (t.columnsByName[column] === undefined || doc[p] === undefined) continue;
      const convert = this.fromModel.get(column);
      out.push([column, convert ? convert(doc[p]) : doc[p]]);
    }
    return out;
  }

  private toDoc = (row: Doc): Doc => {
    const doc = this.mappings.newObjectInstance();
    for (const [column, value] of Object.entries(row)) {
      const convert = this.toModel.get(column);
      doc[this.property(column)] = convert ? convert(value) : value;
    }
    return doc;
  };

  private async run(query: string, params: unknown[], options?: MappingExecutionOptions): Promise<Result> {
    const o = typeof options === "string" ? { executionProfile: options } : options;
    const rs = await this.client.execute(query, params, { ...o, prepare: true }) as ResultSet;
    return new Result(rs, this.toDoc);
  }

  /** The document with that primary key, or `null` (declared as DataStax declares it). */
  async get(doc: Doc, docInfo?: { fields?: string[] }, executionOptions?: MappingExecutionOptions): Promise<Doc> {
    const t = await this.metadata();
    const keys = [...t.partitionKeys, ...t.clusteringKeys].map((c) => c.name);
    const where = this.columnsOf(t, doc).filter(([c]) => keys.includes(c));
    if (where.length !== keys.length) throw new ArgumentError(`get needs every primary key column of ${t.name}: ${keys.join(", ")}`);
    return (await this.find(doc, { ...docInfo, limit: 1 }, executionOptions)).first();
  }

  async find(doc: Doc, docInfo: { fields?: string[]; orderBy?: Record<string, string>; limit?: number } = {}, executionOptions?: MappingExecutionOptions): Promise<Result> {
    const t = await this.metadata();
    const where = this.columnsOf(t, doc);
    const select = docInfo.fields ? docInfo.fields.map((f) => quoteIdentifier(this.column(f))).join(", ") : "*";
    let query = `SELECT ${select} FROM ${this.qualified(t)}`;
    if (where.length > 0) query += ` WHERE ${where.map(([c]) => `${quoteIdentifier(c)} = ?`).join(" AND ")}`;
    const order = Object.entries(docInfo.orderBy ?? {});
    if (order.length > 0) query += ` ORDER BY ${order.map(([p, dir]) => `${quoteIdentifier(this.column(p))} ${dir.toLowerCase() === "desc" ? "DESC" : "ASC"}`).join(", ")}`;
    const params = where.map(([, v]) => v);
    if (docInfo.limit !== undefined) {
      query += " LIMIT ?";
      params.push(docInfo.limit);
    }
    return this.run(query, params, executionOptions);
  }

  findAll(docInfo: { fields?: string[]; limit?: number } = {}, executionOptions?: MappingExecutionOptions): Promise<Result> {
    return this.find({}, docInfo, executionOptions);
  }

  async insert(doc: Doc, docInfo: { fields?: string[]; ttl?: number; ifNotExists?: boolean } = {}, executionOptions?: MappingExecutionOptions): Promise<Result> {
    const t = await this.metadata();
    const cols = this.columnsOf(t, doc, docInfo.fields);
    if (cols.length === 0) throw new ArgumentError("insert: the document has no property that is a column");
    let query = `INSERT INTO ${this.qualified(t)} (${cols.map(([c]) => quoteIdentifier(c)).join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`;
    const params = cols.map(([, v]) => v);
    if (docInfo.ifNotExists) query += " IF NOT EXISTS";
    if (docInfo.ttl !== undefined) {
      query += " USING TTL ?";
      params.push(docInfo.ttl);
    }
    return this.run(query, params, executionOptions);
  }

  async update(doc: Doc, docInfo: { fields?: string[]; ttl?: number; ifExists?: boolean; when?: Doc } = {}, executionOptions?: MappingExecutionOptions): Promise<Result> {
    const t = await this.metadata();
    const keys = new Set([...t.partitionKeys, ...t.clusteringKeys].map((c) => c.name));
    const cols = this.columnsOf(t, doc, docInfo.fields);
    const where = cols.filter(([c]) => keys.has(c));
    const set = cols.filter(([c]) => !keys.has(c));
    if (where.length !== keys.size || set.length === 0) throw new ArgumentError(`update needs every primary key column of ${t.name} and at least one other column`);
    const params: unknown[] = [];
    let query = `UPDATE ${this.qualified(t)}`;
    if (docInfo.ttl !== undefined) {
      query += " USING TTL ?";
      params.push(docInfo.ttl);
    }
    query += ` SET ${set.map(([c]) => `${quoteIdentifier(c)} = ?`).join(", ")} WHERE ${where.map(([c]) => `${quoteIdentifier(c)} = ?`).join(" AND ")}`;
    params.push(...set.map(([, v]) => v), ...where.map(([, v]) => v));
    if (docInfo.ifExists) query += " IF EXISTS";
    else if (docInfo.when) {
      const when = this.columnsOf(t, docInfo.when);
      query += ` IF ${when.map(([c]) => `${quoteIdentifier(c)} = ?`).join(" AND ")}`;
      params.push(...when.map(([, v]) => v));
    }
    return this.run(query, params, executionOptions);
  }

  async remove(doc: Doc, docInfo: { ifExists?: boolean } = {}, executionOptions?: MappingExecutionOptions): Promise<Result> {
    const t = await this.metadata();
    const keys = new Set([...t.partitionKeys, ...t.clusteringKeys].map((c) => c.name));
    const where = this.columnsOf(t, doc).filter(([c]) => keys.has(c));
    if (where.length === 0) throw new ArgumentError(`remove needs the primary key of ${t.name}`);
    let query = `DELETE FROM ${this.qualified(t)} WHERE ${where.map(([c]) => `${quoteIdentifier(c)} = ?`).join(" AND ")}`;
    if (docInfo.ifExists) query += " IF EXISTS";
    return this.run(query, where.map(([, v]) => v), executionOptions);
  }

  /** A function running `query` with the parameters `paramsHandler` takes from a document. */
  mapWithQuery(query: string, paramsHandler: (doc: Doc) => unknown[], executionOptions?: MappingExecutionOptions): (doc: Doc, options?: CompatQueryOptions) => Promise<Result> {
    const base = typeof executionOptions === "string" ? { executionProfile: executionOptions } : executionOptions;
    return (doc, options) => this.run(query, paramsHandler(doc), { ...base, ...options });
  }
}

export class Mapper {
  private readonly models = new Map<string, ModelMapper>();

  constructor(private readonly client: Client, private readonly options: { models?: Record<string, ModelOptions> } = {}) {}

  forModel(name: string): ModelMapper {
    let m = this.models.get(name);
    if (!m) {
      m = new ModelMapper(name, this.client, this.options.models?.[name] ?? {});
      this.models.set(name, m);
    }
    return m;
  }

  /** Batches are not implemented for the mapper yet. */
  batch(): never {
    throw new NotSupportedError("mapper.batch is not supported yet: use client.batch");
  }
}
