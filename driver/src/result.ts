/** What `execute` returns, shaped like the DataStax driver's ResultSet. */
import type { TypeInfo } from "./codec/mod.ts";
import { formatCqlType } from "./codec/mod.ts";

export type Row = Record<string, unknown>;

export interface ColumnInfo {
  name: string;
  type: string;
  keyspace: string;
  table: string;
}

export interface ExecutionInfo {
  queriedHost: string;
  triedHosts: Record<string, string>;
  warnings: string[];
  traceId: string | null;
  attempts: number;
}

export class ResultSet<R extends Row = Row> {
  rows: R[];
  columns: ColumnInfo[];
  rawPageState: Uint8Array | null;
  /** Kept as plain fields and turned into `info` on demand: most results are never asked. */
  private host: string;
  private attempts: number;
  private warnings: string[];
  private traceId: string | null;
  private infoObject: ExecutionInfo | undefined;

  constructor(rows: R[], columns: ColumnInfo[], rawPageState: Uint8Array | null, host: string, attempts: number, warnings: string[], traceId: string | null) {
    this.rows = rows;
    this.columns = columns;
    this.rawPageState = rawPageState;
    this.host = host;
    this.attempts = attempts;
    this.warnings = warnings;
    this.traceId = traceId;
    this.infoObject = undefined;
  }

  /** The paging state as hex, to hand back as `pageState` for the next page; null on the last. */
  get pageState(): string | null {
    return this.rawPageState ? toHex(this.rawPageState) : null;
  }

  get info(): ExecutionInfo {
    return this.infoObject ??= {
      queriedHost: this.host,
      triedHosts: {},
      warnings: this.warnings,
      traceId: this.traceId,
      attempts: this.attempts,
    };
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
