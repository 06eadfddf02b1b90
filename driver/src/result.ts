/** What `execute` returns, shaped like the DataStax driver's ResultSet. */
import type { ColumnSpec, TypeInfo } from "./codec/mod.ts";
import { formatCqlType } from "./codec/mod.ts";
import { DriverError } from "./errors.ts";
import type { Tried } from "./session.ts";

export type Row = Record<string, unknown>;

export interface ColumnInfo {
  name: string;
  type: string;
  keyspace: string;
  table: string;
}

export interface ExecutionInfo {
  queriedHost: string;
  /** Hosts that answered with an error (or none in time) before `queriedHost` answered: their messages. */
  triedHosts: Record<string, string>;
  /** The consistency the request asked for (cqlwire's retries never downgrade it). */
  achievedConsistency: number | undefined;
  speculativeExecutions: number;
  isSchemaInAgreement: boolean;
  warnings: string[];
  traceId: string | null;
  customPayload: Record<string, Uint8Array> | undefined;
  attempts: number;
}

/** The lengths of a request's and its response's frame bodies (what DataStax's request trackers get). */
export interface WireLengths {
  request: number;
  response: number;
}

/** Where the next page of a result comes from: the statement, its parameters and options. */
export interface PageSource<R extends Row = Row> {
  fetchPage(pageState: Uint8Array): Promise<ResultSet<R>>;
  readonly consistency: number | undefined;
}

/**
 * What most results never set (a next page's source, a retry's tried hosts, warnings, a
 * trace id, the `info` asked for), kept in one object made when one is set: a result then
 * carries one slot for them, not five (40 bytes less per result).
 */
interface ResultExtras {
  source: PageSource<never> | null;
  tried: Tried | undefined;
  warnings: string[];
  traceId: string | null;
  info: ExecutionInfo | undefined;
  /** Only when the client measures them (`measureWireLengths`). */
  wireLengths: WireLengths | undefined;
}

/** The warnings of a result without any: shared, so a result need not keep its own. */
export const NO_WARNINGS: string[] = [];

export class ResultSet<R extends Row = Row> {
  // `declare`: set once in the constructor, with no class-field definitions run before it.
  declare rows: R[];
  declare columns: ColumnInfo[];
  declare rawPageState: Uint8Array | null;
  /** The consistency the request asked for, when known without `source`. */
  declare consistency: number | undefined;
  /** The columns' parsed types (what `columns` prints), for converting the values. */
  declare readonly columnSpecs: readonly ColumnSpec[];
  /** Kept as plain fields and turned into `info` on demand: most results are never asked. */
  private declare host: string;
  private declare attempts: number;
  private declare extras: ResultExtras | undefined;

  constructor(rows: R[], columns: ColumnInfo[], rawPageState: Uint8Array | null, host: string, attempts: number, warnings: string[], traceId: string | null, columnSpecs: readonly ColumnSpec[] = NO_SPECS) {
    this.rows = rows;
    this.columns = columns;
    this.rawPageState = rawPageState;
    this.consistency = undefined;
    this.columnSpecs = columnSpecs;
    this.host = host;
    this.attempts = attempts;
    this.extras = warnings !== NO_WARNINGS || traceId !== null ? { source: null, tried: undefined, warnings, traceId, info: undefined, wireLengths: undefined } : undefined;
  }

  private extrasForWrite(): ResultExtras {
    return this.extras ??= { source: null, tried: undefined, warnings: NO_WARNINGS, traceId: null, info: undefined, wireLengths: undefined };
  }

  /** Set when there may be a next page: what `for await` fetches it with. */
  get source(): PageSource<R> | null {
    return (this.extras?.source ?? null) as PageSource<R> | null;
  }

  set source(source: PageSource<R> | null) {
    this.extrasForWrite().source = source as PageSource<never> | null;
  }

  /** After a retry or a speculative execution: `info.triedHosts` and `speculativeExecutions`. */
  get tried(): Tried | undefined {
    return this.extras?.tried;
  }

  set tried(tried: Tried | undefined) {
    this.extrasForWrite().tried = tried;
  }

  /** The request's and response's frame body lengths, when the client measures them (`measureWireLengths`). */
  get wireLengths(): WireLengths | undefined {
    return this.extras?.wireLengths;
  }

  set wireLengths(lengths: WireLengths | undefined) {
    this.extrasForWrite().wireLengths = lengths;
  }

  /** The paging state as hex, to hand back as `pageState` for the next page; null on the last. */
  get pageState(): string | null {
    return this.rawPageState ? toHex(this.rawPageState) : null;
  }

  get info(): ExecutionInfo {
    const extras = this.extrasForWrite();
    return extras.info ??= {
      queriedHost: this.host,
      triedHosts: extras.tried?.hosts ?? {},
      achievedConsistency: this.consistency ?? extras.source?.consistency,
      speculativeExecutions: extras.tried?.speculativeExecutions ?? 0,
      isSchemaInAgreement: true,
      warnings: extras.warnings,
      traceId: extras.traceId,
      customPayload: undefined,
      attempts: this.attempts,
    };
  }

  /**
   * Whether a conditional statement (`IF NOT EXISTS`, `IF col = ?`) was applied: the
   * `[applied]` column of its first row; true for results without one, as in the DataStax driver.
   */
  wasApplied(): boolean {
    const first = this.rows[0] as Record<string, unknown> | undefined;
    const applied = first?.["[applied]"];
    return typeof applied === "boolean" ? applied : true;
  }

  /** The next page, or null on the last one. */
  fetchNextPage(): Promise<ResultSet<R> | null> {
    if (this.rawPageState === null) return Promise.resolve(null);
    if (this.source === null) return Promise.reject(new DriverError("this result set does not know the statement it came from", "ERR_NO_PAGE_SOURCE"));
    return this.source.fetchPage(this.rawPageState);
  }

  /** Every row of every page: the following pages are fetched as the loop reaches them. */
  async *[Symbol.asyncIterator](): AsyncGenerator<R> {
    // deno-lint-ignore no-this-alias -- the walk starts at this page and moves on to the next ones
    let page: ResultSet<R> | null = this;
    while (page !== null) {
      for (const row of page.rows) yield row;
      page = await page.fetchNextPage();
    }
  }

  get rowLength(): number {
    return this.rows.length;
  }

  first(): R | null {
    return this.rows.length > 0 ? this.rows[0] : null;
  }

  isPaged(): boolean {
    return this.rawPageState !== null;
  }

  [Symbol.iterator](): Iterator<R> {
    return this.rows[Symbol.iterator]();
  }
}

const NO_SPECS: readonly ColumnSpec[] = [];

/**
 * Whether `rs` answers with a Rows result (a page, maybe empty), rather than a Void, SetKeyspace
 * or SchemaChange one: the compat layer gives the latter DataStax's undefined `rows`.
 */
export function isRowsResult(rs: ResultSet): boolean {
  return rs.columnSpecs !== NO_SPECS;
}

export function columnInfo(specs: Array<{ keyspace: string; table: string; name: string; type: TypeInfo }>): ColumnInfo[] {
  return specs.map((c) => ({ name: c.name, type: formatCqlType(c.type), keyspace: c.keyspace, table: c.table }));
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

export function toHex(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i++) s += HEX[b[i]];
  return s;
}

export function fromHex(s: string): Uint8Array {
  const clean = s.startsWith("0x") ? s.slice(2) : s;
  if (clean.length % 2 !== 0 || /[^0-9a-fA-F]/.test(clean)) throw new Error("pageState is not a hex string");
  const out = new Uint8Array(clean.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(clean.substr(i * 2, 2), 16);
  return out;
}
