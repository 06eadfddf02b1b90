/** The DataStax driver's ResultSet over cqlwire's: Row objects with DataStax values. */
import type { ExecutionInfo, ResultSet as CoreResultSet, Row as CoreRow } from "../mod.ts";
import { dataTypeInfo, type DataTypeInfo } from "../src/metadata.ts";
import { type Converter, converterFor, type EncodingOptions } from "./convert.ts";
import { bytesOut } from "../src/values/bytes.ts";
import { Row } from "./values.ts";
import { Uuid } from "../src/values/uuid.ts";

/** `rs.info` in DataStax's shape (see `ResultSet.info`). */
export type CompatExecutionInfo = Omit<ExecutionInfo, "triedHosts" | "traceId" | "warnings" | "achievedConsistency"> & {
  triedHosts: Record<string, string | null>;
  achievedConsistency: number;
  traceId: Uuid | undefined;
  warnings: string[] | undefined;
};

export class ResultSet implements Iterable<Row>, AsyncIterable<Row> {
  rows: Row[];
  rowLength: number;
  columns: Array<{ name: string; type: DataTypeInfo }> | null;
  pageState: string | null;
  /** Set by `eachRow` without `autoPage` when more pages follow: fetches the next one. */
  nextPage: (() => void) | undefined = undefined;
  /** cqlwire's own result underneath. */
  readonly raw: CoreResultSet;
  private readonly encoding: EncodingOptions;

  private readonly consistency: number;

  /** `consistency`: what the request asked for, reported as `info.achievedConsistency`. */
  constructor(raw: CoreResultSet, encoding: EncodingOptions, consistency: number) {
    this.consistency = consistency;
    this.raw = raw;
    this.encoding = encoding;
    const specs = raw.columnSpecs;
    this.columns = specs.length > 0 ? specs.map((c) => ({ name: c.name, type: dataTypeInfo(c.type) })) : null;
    this.rows = convertRows(raw, encoding);
    this.rowLength = this.rows.length;
    this.pageState = raw.pageState;
  }

  get rawPageState(): Uint8Array | undefined {
    return this.raw.rawPageState ? bytesOut(this.raw.rawPageState) : undefined;
  }

  /**
   * DataStax's shape: `triedHosts` has the answering node as `null`; `traceId` is a `Uuid`
   * (for `metadata.getTrace`); `warnings` and `traceId` are undefined when the server sent none
   * (code tests `if (rs.info.warnings)`).
   */
  get info(): CompatExecutionInfo {
    const info = this.raw.info;
    return {
      ...info,
      triedHosts: { ...info.triedHosts, [info.queriedHost]: null },
      achievedConsistency: this.consistency,
      traceId: info.traceId ? Uuid.fromString(info.traceId) : undefined,
      warnings: info.warnings.length > 0 ? info.warnings : undefined,
    };
  }

  /** `null` when there are no rows; declared `Row`, as DataStax declares it (`rs.first().name`). */
  first(): Row {
    return (this.rows[0] ?? null) as Row;
  }

  wasApplied(): boolean {
    return this.raw.wasApplied();
  }

  isPaged(): boolean {
    return this.raw.isPaged();
  }

  [Symbol.iterator](): Iterator<Row> {
    return this.rows[Symbol.iterator]();
  }

  /** Every row of every page, fetching the next pages as the loop reaches them. */
  async *[Symbol.asyncIterator](): AsyncGenerator<Row> {
    yield* this.rows;
    let page = await this.raw.fetchNextPage();
    while (page !== null) {
      yield* convertRows(page, this.encoding);
      page = await page.fetchNextPage();
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
