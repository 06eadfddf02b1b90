/** The DataStax driver's ResultSet over cqlwire's: Row objects with DataStax values. */
import type { ExecutionInfo, ResultSet as CoreResultSet, Row as CoreRow } from "../mod.ts";
import { dataTypeInfo, type DataTypeInfo } from "../src/metadata.ts";
import { type Converter, converterFor, type EncodingOptions } from "./convert.ts";
import { bytesOut } from "../src/values/bytes.ts";
import { Row } from "./values.ts";
import { Uuid } from "../src/values/uuid.ts";
import { DriverInternalError } from "../src/errors.ts";
import { isRowsResult } from "../src/result.ts";

/** `rs.info` in DataStax's shape (see `ResultSet.info`). */
export type CompatExecutionInfo = Omit<ExecutionInfo, "triedHosts" | "traceId" | "warnings" | "achievedConsistency"> & {
  triedHosts: Record<string, string | null>;
  achievedConsistency: number;
  traceId: Uuid | undefined;
  warnings: string[] | undefined;
};

/** What DataStax's `new ResultSet(response, ...)` reads of a response (as code mocking results passes). */
export interface ResultSetResponse {
  rows?: unknown[];
  rowLength?: number;
  meta?: { columns?: Array<{ name: string; type: DataTypeInfo }> | null; pageState?: Uint8Array };
  flags?: { traceId?: Uuid; warnings?: string[]; customPayload?: unknown };
}

/** A DataStax-built result's `info`, as its constructor sets it. */
interface GivenInfo {
  queriedHost: string | undefined;
  triedHosts: Record<string, unknown> | null | undefined;
  speculativeExecutions: number | undefined;
  achievedConsistency: number | undefined;
  traceId: Uuid | null | undefined;
  warnings: string[] | null | undefined;
  customPayload: unknown;
  isSchemaInAgreement: boolean | undefined;
}

/** What a result of this client's own requests reads from. */
interface Core {
  raw: CoreResultSet;
  encoding: EncodingOptions;
  /** What the request asked for, reported as `info.achievedConsistency`. */
  consistency: number;
}

export class ResultSet implements Iterable<Row>, AsyncIterable<Row> {
  rows: Row[];
  rowLength: number;
  columns: Array<{ name: string; type: DataTypeInfo }> | null = null;
  pageState: string | null = null;
  /** Set by `eachRow` without `autoPage` when more pages follow: fetches the next one. */
  nextPage: (() => void) | undefined = undefined;
  /**
   * DataStax's: on a result built with `new ResultSet`, what its async iterator calls with the
   * raw page state for the next page (`{ rows, rawPageState }`).
   */
  nextPageAsync: ((pageState: Uint8Array) => Promise<{ rows?: unknown[]; rawPageState?: Uint8Array }>) | undefined = undefined;
  // #private: out of Object.keys and JSON, as a DataStax result's own fields are all public.
  #core: Core | undefined = undefined;
  readonly #given: GivenInfo;
  readonly #givenPageState: Uint8Array | undefined;

  /**
   * DataStax's constructor (code that mocks a client's results calls it): a response's `rows`,
   * `rowLength`, `meta` (`columns`, `pageState`) and `flags`, and the `info` fields.
   */
  constructor(response: ResultSetResponse, host?: string, triedHosts?: Record<string, unknown> | null, speculativeExecutions?: number, consistency?: number, isSchemaInAgreement?: boolean) {
    const flags = response.flags;
    this.#given = {
      queriedHost: host,
      triedHosts,
      speculativeExecutions: speculativeExecutions === -1 ? 0 : speculativeExecutions,
      achievedConsistency: consistency,
      traceId: flags ? flags.traceId : null,
      warnings: flags ? flags.warnings : null,
      customPayload: flags ? flags.customPayload : null,
      isSchemaInAgreement,
    };
    this.rows = response.rows as Row[];
    this.rowLength = this.rows ? this.rows.length : response.rowLength as number;
    const meta = response.meta;
    if (meta) {
      this.columns = meta.columns as ResultSet["columns"];
      if (meta.pageState) this.pageState = Array.from(meta.pageState, (b) => b.toString(16).padStart(2, "0")).join("");
    }
    this.#givenPageState = meta?.pageState || undefined;
  }

  /**
   * A result of this client's request: cqlwire's result with its rows as DataStax values. A
   * result without rows (a write, DDL, `USE`) has `rows` and `rowLength` undefined, as DataStax's.
   */
  static of(raw: CoreResultSet, encoding: EncodingOptions, consistency: number): ResultSet {
    const rs = new ResultSet(isRowsResult(raw) ? { rows: convertRows(raw, encoding) } : {});
    rs.#core = { raw, encoding, consistency };
    const specs = raw.columnSpecs;
    rs.columns = specs.length > 0 ? specs.map((c) => ({ name: c.name, type: dataTypeInfo(c.type) })) : null;
    rs.pageState = raw.pageState;
    return rs;
  }

  /** cqlwire's own result underneath (undefined on a result built with `new ResultSet`). */
  get raw(): CoreResultSet | undefined {
    return this.#core?.raw;
  }

  get rawPageState(): Uint8Array | undefined {
    if (this.#core === undefined) return this.#givenPageState;
    return this.#core.raw.rawPageState ? bytesOut(this.#core.raw.rawPageState) : undefined;
  }

  /**
   * DataStax's shape: `triedHosts` has the answering node as `null`; `traceId` is a `Uuid`
   * (for `metadata.getTrace`); `warnings` and `traceId` are undefined when the server sent none
   * (code tests `if (rs.info.warnings)`).
   */
  get info(): CompatExecutionInfo {
    if (this.#core === undefined) return this.#given as unknown as CompatExecutionInfo;
    const info = this.#core.raw.info;
    // DataStax's fields in its order (console.log(rs.info) reads the same); cqlwire's own
    // (`attempts`) kept, not enumerable.
    const out = {
      queriedHost: info.queriedHost,
      triedHosts: { ...info.triedHosts, [info.queriedHost]: null },
      speculativeExecutions: info.speculativeExecutions,
      achievedConsistency: this.#core.consistency,
      traceId: info.traceId ? Uuid.fromString(info.traceId) : undefined,
      warnings: info.warnings.length > 0 ? info.warnings : undefined,
      customPayload: info.customPayload,
      isSchemaInAgreement: info.isSchemaInAgreement,
    };
    for (const [k, value] of Object.entries(info)) {
      if (!(k in out)) Object.defineProperty(out, k, { value, enumerable: false, writable: true, configurable: true });
    }
    return out as CompatExecutionInfo;
  }

  /** DataStax's older names for `pageState` and `columns`. */
  getPageState(): string | null {
    return this.pageState;
  }

  getColumns(): Array<{ name: string; type: DataTypeInfo }> | null {
    return this.columns;
  }

  /** `null` when there are no rows; declared `Row`, as DataStax declares it (`rs.first().name`). */
  first(): Row {
    return (this.rows && this.rows.length > 0 ? this.rows[0] : null) as Row;
  }

  /** The `[applied]` column of a conditional statement's first row; true without one. */
  wasApplied(): boolean {
    if (this.#core !== undefined) return this.#core.raw.wasApplied();
    const applied = this.rows && this.rows.length > 0 ? this.rows[0]["[applied]"] : undefined;
    return typeof applied === "boolean" ? applied : true;
  }

  isPaged(): boolean {
    return this.#core === undefined ? !!this.#givenPageState : this.#core.raw.isPaged();
  }

  [Symbol.iterator](): Iterator<Row> {
    return (this.rows ?? [])[Symbol.iterator]();
  }

  /** Every row of every page, fetching the next pages as the loop reaches them. */
  async *[Symbol.asyncIterator](): AsyncGenerator<Row> {
    const core = this.#core;
    if (core === undefined) return yield* this.givenPages();
    yield* this.rows ?? [];
    let page = await core.raw.fetchNextPage();
    while (page !== null) {
      yield* convertRows(page, core.encoding);
      page = await page.fetchNextPage();
    }
  }

  /** DataStax's iteration of a result it did not fetch: the next pages from `nextPageAsync`. */
  private async *givenPages(): AsyncGenerator<Row> {
    let rows = this.rows;
    let pageState = this.#givenPageState;
    if (!rows || rows.length === 0) return;
    for (;;) {
      yield* rows;
      if (!pageState) return;
      if (!this.nextPageAsync) throw new DriverInternalError("Property nextPageAsync should be set when pageState is defined");
      const next = await this.nextPageAsync(pageState);
      rows = (next.rows ?? []) as Row[];
      pageState = next.rawPageState;
      if (rows.length === 0) return;
    }
  }
}

const converterCache = new WeakMap<object, Converter[]>();

export function convertRows(raw: CoreResultSet, encoding: EncodingOptions): Row[] {
  const specs = raw.columnSpecs;
  let converters = converterCache.get(specs);
  if (converters === undefined) {
    converters = specs.map((c) => converterFor(c.type, encoding));
    converterCache.set(specs, converters);
  }
  const out: Row[] = new Array(raw.rows.length);
  for (let r = 0; r < raw.rows.length; r++) out[r] = convertRow(raw.rows[r], specs, converters);
  return out;
}

function convertRow(source: CoreRow, specs: ReadonlyArray<{ name: string }>, converters: Converter[]): Row {
  const row = new Row(specs);
  for (let i = 0; i < specs.length; i++) {
    const name = specs[i].name;
    row[name] = converters[i](source[name]);
  }
  return row;
}
