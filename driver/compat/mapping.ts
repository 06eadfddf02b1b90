/**
 * `mapping`: the DataStax driver's object mapper, for one table per model: `Mapper` (`forModel`,
 * `batch`), `ModelMapper` (`get`, `find`, `findAll`, `insert`, `update`, `remove`, `mapWithQuery`,
 * `batching`), table and column name mappings, and the `q` operators (mapping-q.ts). The
 * statements (mapping-statements.ts) are built from the tables' metadata and prepared; a model
 * over several tables reads the first that can answer and writes all that fit, in one batch
 * (mapping-selector.ts).
 */
import { ArgumentError } from "../src/errors.ts";
import type { TableMetadata } from "../src/metadata.ts";
import type { Client } from "./client.ts";
import * as Selector from "./mapping-selector.ts";
import * as Statements from "./mapping-statements.ts";
import type { Prop, Statement } from "./mapping-statements.ts";
import { batchOptions, type MappingExecutionOptions, mutationOptions, queryOptions } from "./mapping-options.ts";
import type { ResultSet } from "./result.ts";

export { q, QueryAssignment, QueryOperator } from "./mapping-q.ts";
export type { MappingExecutionOptions } from "./mapping-options.ts";

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

/**
 * `user_id` ⇄ `userId`, with DataStax's rules: an underscore goes only between a lower-case and an
 * upper-case letter and the name is then lower-cased (`userID` is `user_id`, `ABC` is `abc`); only
 * `_` before a lower-case letter, not at the start, is taken out (`col_1` and `_a` stay).
 */
export class UnderscoreCqlToCamelCaseMappings extends TableMappings {
  override getColumnName(propName: string): string {
    return propName.replace(/[a-z][A-Z]/g, (m) => `${m[0]}_${m[1]}`).toLowerCase();
  }
  override getPropertyName(columnName: string): string {
    return columnName.replace(/_[a-z]/g, (m, offset: number) => (offset === 0 ? m : m[1].toUpperCase()));
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


export interface ModelOptions {
  tables?: Array<string | { name: string; isView?: boolean }>;
  mappings?: TableMappings;
  columns?: Record<string, string | ModelColumnOptions>;
  keyspace?: string;
}

export interface FindDocInfo {
  fields?: string[];
  orderBy?: Record<string, string>;
  limit?: number;
}
export interface InsertDocInfo {
  fields?: string[];
  ttl?: number;
  ifNotExists?: boolean;
}
// As DataStax declares them, fields that these operations ignore included.
export interface UpdateDocInfo {
  fields?: string[];
  ttl?: number;
  ifExists?: boolean;
  when?: Doc;
  orderBy?: Record<string, string>;
  limit?: number;
  deleteOnlyColumns?: boolean;
}
export interface RemoveDocInfo {
  fields?: string[];
  ttl?: number;
  ifExists?: boolean;
  when?: Doc;
  deleteOnlyColumns?: boolean;
}

/** As DataStax's: an execution profile's name in `docInfo`'s place, with no `executionOptions`, is the latter. */
function optionsInPlaceOfDocInfo<T>(docInfo: T | string | null | undefined, executionOptions: MappingExecutionOptions | undefined): [T | null | undefined, MappingExecutionOptions | undefined] {
  if (executionOptions === undefined && typeof docInfo === "string") return [null, docInfo];
  return [docInfo as T | null | undefined, executionOptions];
}

// Documents are DataStax's `any`-valued objects: `(await m.get(key)).name.toUpperCase()` compiles.
// deno-lint-ignore no-explicit-any
type Doc = Record<string, any>;

/** Node's `util.inspect` hook (Deno's and workerd's `node:util` honour it too): a Result shows as its documents. */
const inspectCustom = Symbol.for("nodejs.util.inspect.custom");

/**
 * What a ModelMapper call returns: the rows as model objects, made as DataStax's are, each time
 * they are read (so a column's `toModel` that throws fails `toArray()`, not the query).
 */
export class Result implements Iterable<Doc> {
  readonly length: number;
  /** The page state to pass as `pageState` for the next page (`fetchSize`), or `null`. */
  readonly pageState: string | null;
  /** A conditional mutation's lone `[applied]` is no row, as DataStax reads it. */
  private readonly emptyLwt: boolean;

  /** DataStax's arguments: `rowAdapter(row, info)` makes a document of a row. */
  constructor(private readonly rs: ResultSet, private readonly info: unknown, private readonly rowAdapter: (row: Doc, info: unknown) => Doc) {
    this.emptyLwt = rs.columns?.length === 1 && rs.rowLength === 1 && rs.columns[0].name === "[applied]";
    this.length = this.emptyLwt ? 0 : rs.rowLength || 0;
    this.pageState = rs.pageState;
  }

  /** `null` when there are no rows; declared as DataStax declares it. */
  first(): Doc {
    if (this.emptyLwt || !this.rs.rowLength) return null as unknown as Doc;
    return this.rowAdapter(this.rs.rows[0] as unknown as Doc, this.info);
  }

  toArray(): Doc[] {
    if (this.emptyLwt || !this.rs.rows) return [];
    return this.rs.rows.map((r) => this.rowAdapter(r as unknown as Doc, this.info));
  }

  wasApplied(): boolean {
    return this.rs.wasApplied();
  }

  forEach(callback: (doc: Doc, index: number) => void, thisArg?: unknown): void {
    let index = 0;
    for (const doc of this) callback.call(thisArg ?? this, doc, index++);
  }

  *[Symbol.iterator](): Iterator<Doc> {
    if (this.emptyLwt) return;
    for (const r of this.rs.rows ?? []) yield this.rowAdapter(r as unknown as Doc, this.info);
  }

  [inspectCustom](): Doc[] {
    return this.toArray();
  }
}

export class ModelMapper {
  private tablesMetadata: Promise<Array<{ table: TableMetadata; isView: boolean }>> | null = null;
  private readonly mappings: TableMappings;
  /** `columns` by column name, and by property name (DataStax's `_columns`, `_documentProperties`). */
  private readonly byColumn: Map<string, ColumnInfo>;
  private readonly byProperty = new Map<string, ColumnInfo>();
  /** The model's tables, in the order the options give them (the first is `findAll`'s). */
  private readonly tables: Array<{ name: string; isView: boolean }>;
  /** `mapper.batch`'s items: `m.batching.update(doc, docInfo)` is `m.update(doc, docInfo)`, batched. */
  readonly batching: ModelBatchMapper = new ModelBatchMapper(this);

  constructor(readonly name: string, private readonly client: Client, private readonly options: ModelOptions) {
    const tables = options.tables && options.tables.length > 0 ? options.tables : [name];
    this.tables = tables.map((t) => (typeof t === "string" ? { name: t, isView: false } : { name: t.name, isView: !!t.isView }));
    this.mappings = options.mappings ?? new DefaultTableMappings();
    this.byColumn = columnInfos(options.columns);
    for (const info of this.byColumn.values()) this.byProperty.set(info.propertyName, info);
  }

  private column(prop: string): string {
    return this.byProperty.get(prop)?.columnName ?? this.mappings.getColumnName(prop);
  }

  private property(column: string): string {
    return this.byColumn.get(column)?.propertyName ?? this.mappings.getPropertyName(column);
  }

  /** The tables' (and views') metadata, read once; a table the node lacks fails as DataStax's. */
  private metadata(): Promise<Array<{ table: TableMetadata; isView: boolean }>> {
    const keyspace = this.options.keyspace ?? this.client.keyspace;
    if (!keyspace) return Promise.reject(new ArgumentError(`model ${this.name}: no keyspace (set the client's or the model's)`));
    this.tablesMetadata ??= (async () => {
      await this.client.connect();
      return await Promise.all(this.tables.map(async ({ name, isView }) => {
        const md = this.client.metadata;
        const found = await (isView ? md.getMaterializedView(keyspace, name) : md.getTable(keyspace, name));
        if (!found) throw new Error(`Table "${name}" could not be retrieved`);
        // DataStax's table metadata has no keyspace field: the statements are qualified with the model's.
        const table = { ...found, keyspace } as unknown as TableMetadata;
        return { table, isView };
      }));
    })();
    // Not kept when it failed: the table may be created later.
    this.tablesMetadata.catch(() => (this.tablesMetadata = null));
    return this.tablesMetadata;
  }


  /** The document's properties that are columns of the table and have a value. */
  /**
   * The document's properties (`fields`' when given) as DataStax takes them: every key, an
   * `undefined` value included (sent as unset); the statements leave out what is not a column.
   */
  private props(doc: Doc, fields?: string[]): Prop[] {
    return (fields && fields.length > 0 ? fields : Object.keys(doc)).map((p) => {
      const column = this.column(p);
      return { column, value: doc[p], convert: this.byProperty.get(p)?.fromModel };
    });
  }

  private toDoc = (row: Doc): Doc => {
    const doc = this.mappings.newObjectInstance();
    for (const [column, value] of Object.entries(row)) {
      const convert = this.byColumn.get(column)?.toModel;
      doc[this.property(column)] = convert ? convert(value) : value;
    }
    return doc;
  };

  /** A conditional mutation's row as DataStax gives it: no `[applied]`, no `toModel`. */
  private toMutationDoc = (row: Doc): Doc => {
    const doc = this.mappings.newObjectInstance();
    for (const [column, value] of Object.entries(row)) if (column !== "[applied]") doc[this.property(column)] = value;
    return doc;
  };

  /** A Result of a mutation by this model (alone or in a mapper batch). */
  mutationResult(rs: ResultSet): Result {
    return new Result(rs, null, this.toMutationDoc);
  }

  private async run(s: Statement, options: MappingExecutionOptions | undefined, mutation: boolean): Promise<Result> {
    const o = mutation ? mutationOptions(options, s.isIdempotent) : queryOptions(options, true);
    const rs = await this.client.execute(s.query, s.params, o) as ResultSet;
    return mutation ? this.mutationResult(rs) : new Result(rs, null, this.toDoc);
  }

  /** A mutation of several tables: one batch, with a single mutation's options, as DataStax's (no `logged`, no `counter`). */
  private async runBatch(statements: Statement[], options: MappingExecutionOptions | undefined): Promise<Result> {
    const queries = statements.map((s) => ({ query: s.query, params: s.params as never }));
    const rs = await this.client.batch(queries, mutationOptions(options, statements.every((s) => s.isIdempotent)));
    return this.mutationResult(rs);
  }


  /** The document with that primary key, or `null` (declared as DataStax declares it). */
  get(doc: Doc, docInfo?: { fields?: string[] } | string | null, executionOptions?: MappingExecutionOptions): Promise<Doc> {
    return this.select(doc, docInfo, executionOptions, true).then((r) => r.first());
  }

  /**
   * Property values may be `q` operators: `{ id: q.in_([1, 2]), added: q.gte(d) }`. A bad
   * `orderBy` throws before any promise, as DataStax's does.
   */
  find(doc: Doc, docInfo?: FindDocInfo | string | null, executionOptions?: MappingExecutionOptions): Promise<Result> {
    return this.select(doc, docInfo, executionOptions, false);
  }

  findAll(docInfo?: FindDocInfo | string | null, executionOptions?: MappingExecutionOptions): Promise<Result> {
    return this.select(null, docInfo, executionOptions, false);
  }

  /** `get` (allKeys), `find`, or `findAll` (no document: no WHERE, no check). */
  private select(doc: Doc | null, docInfo: FindDocInfo | string | null | undefined, executionOptions: MappingExecutionOptions | undefined, allKeys: boolean): Promise<Result> {
    [docInfo, executionOptions] = optionsInPlaceOfDocInfo(docInfo, executionOptions);
    if (doc && Object.keys(doc).length === 0) return Promise.reject(new Error("Expected object with keys"));
    const info = docInfo ?? {};
    const orderBy = Object.entries(info.orderBy ?? {}).map(([p, dir]): [string, string] => {
      const order = typeof dir === "string" ? dir.toUpperCase() : dir;
      if (order !== "ASC" && order !== "DESC") throw new ArgumentError(`Order must be either "ASC" or "DESC", obtained: ${dir}`);
      return [this.column(p), order];
    });
    const fields = (info.fields ?? []).map((f) => this.column(f));
    const where = doc ? this.props(doc) : [];
    const options = executionOptions;
    return this.metadata().then((tables) => {
      const t = doc ? Selector.forSelect(tables.map((x) => x.table), where, fields, orderBy, allKeys) : tables[0].table;
      return this.run(Statements.select(t, where, { fields: fields.length > 0 ? fields : undefined, orderBy, limit: info.limit }), options, false);
    });
  }

  /** The statements `insert`/`update`/`remove` runs: one for each table the document fits. */
  async statements(kind: "insert" | "update" | "remove", doc: Doc, docInfo: Doc | null | undefined): Promise<Statement[]> {
    const info = docInfo ?? {};
    const tables = (await this.metadata()).filter((x) => !x.isView).map((x) => x.table);
    const cols = this.props(doc, info.fields);
    if (kind === "insert") {
      const found = Selector.forInsert(tables, cols);
      if (found.length > 1 && info.ifNotExists) throw new Error("Batch with ifNotExists conditions cannot span multiple tables");
      return found.map((t) => Statements.insert(t, cols, info));
    }
    const when = info.when ? this.props(info.when) : [];
    const found = kind === "update" ? Selector.forUpdate(tables, cols, when) : Selector.forDelete(tables, cols, when);
    if (found.length > 1 && (when.length > 0 || info.ifExists)) throw new Error("Batch with when or ifExists conditions cannot span multiple tables");
    return found.map((t) => (kind === "update" ? Statements.update(t, cols, when, info) : Statements.remove(t, cols, when, info)));
  }

  private mutate(kind: "insert" | "update" | "remove", doc: Doc, docInfo: Doc | string | null | undefined, executionOptions: MappingExecutionOptions | undefined): Promise<Result> {
    [docInfo, executionOptions] = optionsInPlaceOfDocInfo(docInfo, executionOptions);
    if (Object.keys(doc).length === 0) return Promise.reject(new Error("Expected object with keys"));
    checkConditions(kind, docInfo);
    const options = executionOptions;
    return this.statements(kind, doc, docInfo).then((s) => (s.length === 1 ? this.run(s[0], options, true) : this.runBatch(s, options)));
  }

  insert(doc: Doc, docInfo?: InsertDocInfo | string | null, executionOptions?: MappingExecutionOptions): Promise<Result> {
    return this.mutate("insert", doc, docInfo as Doc, executionOptions);
  }

  /** Property values may be `q` assignments (`q.incr(1)`, `q.append([x])`); `when`'s `q` operators. */
  update(doc: Doc, docInfo?: UpdateDocInfo | string | null, executionOptions?: MappingExecutionOptions): Promise<Result> {
    return this.mutate("update", doc, docInfo as Doc, executionOptions);
  }

  remove(doc: Doc, docInfo?: RemoveDocInfo | string | null, executionOptions?: MappingExecutionOptions): Promise<Result> {
    return this.mutate("remove", doc, docInfo as Doc, executionOptions);
  }

  /**
   * A function running `query` with the parameters `paramsHandler` takes from a document. As
   * DataStax's: options given here are used for every call, and a call's own are then ignored.
   */
  mapWithQuery(query: string, paramsHandler: (doc: Doc) => unknown[], executionOptions?: MappingExecutionOptions): (doc: Doc, executionOptions?: MappingExecutionOptions) => Promise<Result> {
    const common = executionOptions ? queryOptions(executionOptions, false) : null;
    return async (doc, options) => {
      const rs = await this.client.execute(query, paramsHandler(doc) as never, common ?? queryOptions(options, false)) as ResultSet;
      // A conditional statement's rows are a mutation's, as DataStax reads them (no `[applied]`, no `toModel`).
      return new Result(rs, null, rs.columns?.[0]?.name === "[applied]" ? this.toMutationDoc : this.toDoc);
    };
  }
}

/** DataStax throws this one before any promise, for a mutation or a batch item (its inserts read neither). */
function checkConditions(kind: "insert" | "update" | "remove", docInfo: Doc | null | undefined): void {
  if (kind !== "insert" && docInfo?.ifExists && docInfo.when && Object.keys(docInfo.when).length > 0) {
    throw new Error("Both when and ifExists conditions can not be applied to the same statement");
  }
}

/** One statement of a mapper batch, made by `modelMapper.batching`. */
export class ModelBatchItem {
  constructor(
    readonly doc: Doc,
    readonly docInfo: Doc | undefined,
    private readonly model: ModelMapper,
    private readonly kind: "insert" | "update" | "remove",
  ) {}

  statements(): Promise<Statement[]> {
    return this.model.statements(this.kind, this.doc, this.docInfo);
  }

  /** What DataStax's `mapper.batch` throws for this item before any promise. */
  checkConditions(): void {
    checkConditions(this.kind, this.docInfo);
  }

  /** The model whose documents the batch's result rows (a failed condition's) become. */
  getMappingInfo(): ModelMapper {
    return this.model;
  }
}

export class ModelBatchMapper {
  constructor(private readonly model: ModelMapper) {}
  insert(doc: Doc, docInfo?: InsertDocInfo): ModelBatchItem {
    return new ModelBatchItem(doc, docInfo as Doc, this.model, "insert");
  }
  update(doc: Doc, docInfo?: UpdateDocInfo): ModelBatchItem {
    return new ModelBatchItem(doc, docInfo as Doc, this.model, "update");
  }
  remove(doc: Doc, docInfo?: RemoveDocInfo): ModelBatchItem {
    return new ModelBatchItem(doc, docInfo as Doc, this.model, "remove");
  }
}

interface ColumnInfo {
  columnName: string;
  propertyName: string;
  toModel?: (value: unknown) => unknown;
  fromModel?: (value: unknown) => unknown;
}

/**
 * `columns` as DataStax's ModelColumnInfo.parse reads them: a falsy entry or one without `name`
 * keeps the column's name; a `toModel`/`fromModel` that is not a function is a TypeError.
 */
function columnInfos(columns: ModelOptions["columns"] | null): Map<string, ColumnInfo> {
  const out = new Map<string, ColumnInfo>();
  if (columns === null || typeof columns !== "object") return out;
  for (const [columnName, value] of Object.entries(columns)) {
    const o = typeof value === "object" && value !== null ? value : null;
    const propertyName = typeof value === "string" && value ? value : (o?.name || columnName);
    for (const fn of ["toModel", "fromModel"] as const) {
      if (o?.[fn] && typeof o[fn] !== "function") {
        throw new TypeError(`${fn} type for property '${propertyName}' should be a function (obtained ${typeof o[fn]})`);
      }
    }
    out.set(columnName, { columnName, propertyName, toModel: o?.toModel || undefined, fromModel: o?.fromModel || undefined });
  }
  return out;
}

/**
 * A model's options as DataStax's Mapper reads them when it is made (mapping/model-mapping-info.js):
 * the keyspace is the model's or the client's of that moment, and bad options throw then.
 */
function modelInfo(name: string, clientKeyspace: string | undefined, o: ModelOptions | undefined): ModelOptions & { keyspace: string } {
  const keyspace = o?.keyspace || clientKeyspace;
  if (!keyspace) throw new Error("You should specify the keyspace of the model in the MappingOptions when the Client is not using a keyspace");
  if (!o) return { keyspace, tables: [name] };
  const tables = o.tables && o.tables.length > 0 ? o.tables : [name];
  for (const t of tables) {
    if (!(typeof t === "string" ? t : t?.name)) throw new Error(`Table name not specified for model '${name}'`);
  }
  if (o.mappings && !(o.mappings instanceof TableMappings)) throw new Error("mappings should be an instance of TableMappings");
  columnInfos(o.columns);
  return { ...o, keyspace, tables };
}

export class Mapper {
  private readonly models = new Map<string, ModelMapper>();
  private readonly infos: Map<string, ModelOptions & { keyspace: string }>;

  constructor(private readonly client: Client, options: { models?: Record<string, ModelOptions> } = {}) {
    if (!client) throw new Error("client must be defined");
    const models = options?.models ?? {};
    this.infos = new Map(Object.keys(models).map((name) => [name, modelInfo(name, client.keyspace, models[name])]));
  }

  /** As DataStax's: a model without options is the client's keyspace's table of its name; logged once ("info"). */
  forModel(name: string): ModelMapper {
    let m = this.models.get(name);
    if (!m) {
      let info = this.infos.get(name);
      if (info === undefined) {
        if (!this.client.keyspace) {
          throw new Error(`No mapping information found for model '${name}'. Mapper is unable to create default mappings without setting the keyspace`);
        }
        info = modelInfo(name, this.client.keyspace, undefined);
        this.log(`Mapping information for model '${name}' not found, creating default mapping. Keyspace: ${info.keyspace}; Table: ${name}.`);
      } else {
        const tables = (info.tables ?? []).map((t) => (typeof t === "string" ? t : t.name));
        this.log(`Creating model mapper for '${name}' using mapping information. Keyspace: ${info.keyspace}; Table${tables.length > 1 ? "s" : ""}: ${tables}.`);
      }
      m = new ModelMapper(name, this.client, info);
      this.models.set(name, m);
    }
    return m;
  }

  /** Through `client.log`, as DataStax's (a client-like object without it logs nothing). */
  private log(message: string): void {
    if (typeof this.client.log === "function") this.client.log("info", message);
  }

  /**
   * The items' statements as one batch, logged unless `logged: false`. As DataStax's: idempotent
   * when every statement is (or as `isIdempotent` says), a counter batch when the last one is.
   */
  batch(items: ModelBatchItem[], executionOptions?: MappingExecutionOptions): Promise<Result> {
    if (!Array.isArray(items) || !(items.length > 0)) {
      return Promise.reject(new ArgumentError("First parameter items should be an Array with 1 or more ModelBatchItem instances"));
    }
    for (const item of items) if (item instanceof ModelBatchItem) item.checkConditions();
    return this.runBatch(items, executionOptions);
  }

  private async runBatch(items: ModelBatchItem[], executionOptions: MappingExecutionOptions | undefined): Promise<Result> {
    const statements = await Promise.all(items.map((item) => {
      if (!(item instanceof ModelBatchItem)) {
        return Promise.reject(new Error("Batch items must be instances of ModelBatchItem, use modelMapper.batching object to create each item"));
      }
      return item.statements();
    })).then((lists) => lists.flat());
    const queries = statements.map((s) => ({ query: s.query, params: s.params as never }));
    const isIdempotent = statements.every((s) => s.isIdempotent);
    const rs = await this.client.batch(queries, batchOptions(executionOptions, isIdempotent, statements[statements.length - 1].isCounter));
    return items[0].getMappingInfo().mutationResult(rs);
  }
}
