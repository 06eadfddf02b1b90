// Token-range scans, shared by unload and count. The driver's getTokenRanges gives the ring as
// ranges (start, end] with their replicas; the first one wraps around from the last token,
// so it is scanned as two: (start, MAX] and [MIN, end]. Each scan is sent with
// `routingToken: end`, so one of the range's replicas coordinates it and reads locally.

import type { TableColumn } from "./load/table.ts";
import { quoteIdentifier } from "./load/table.ts";

export const MIN_TOKEN = -(1n << 63n);
export const MAX_TOKEN = (1n << 63n) - 1n;

export interface ScanRange {
  /** Lower bound: exclusive, except for a scan starting at MIN_TOKEN, which includes it. */
  start: bigint;
  end: bigint;
  startInclusive: boolean;
  /** A token the range's replicas own, to route the scan to them. */
  routingToken: bigint | undefined;
  replicas: string[];
  /** The ring range this scan is (part of). */
  ring: { start: bigint; end: bigint };
}

/** Scans covering the whole ring exactly once. */
export function scanRangesOf(ranges: Array<{ start: bigint; end: bigint; replicas: string[] }>): ScanRange[] {
  if (ranges.length === 0) return evenSlices(16);
  const scans: ScanRange[] = [];
  for (const range of ranges) {
    const ring = { start: range.start, end: range.end };
    const common = { routingToken: range.end, replicas: range.replicas, ring };
    if (range.start < range.end) {
      scans.push({ start: range.start, end: range.end, startInclusive: false, ...common });
      continue;
    }
    // The wrapping range (or, with a single token, the whole ring).
    if (range.start < MAX_TOKEN) scans.push({ start: range.start, end: MAX_TOKEN, startInclusive: false, ...common });
    scans.push({ start: MIN_TOKEN, end: range.end, startInclusive: true, ...common });
  }
  return scans;
}

/** Without ring metadata: the ring cut into equal slices, routed by the driver's default. */
export function evenSlices(count: number): ScanRange[] {
  const scans: ScanRange[] = [];
  const span = (MAX_TOKEN - MIN_TOKEN) / BigInt(count);
  let start = MIN_TOKEN;
  for (let i = 0; i < count; i++) {
    const end = i === count - 1 ? MAX_TOKEN : start + span;
    scans.push({
      start,
      end,
      startInclusive: i === 0,
      routingToken: undefined,
      replicas: [],
      ring: { start, end },
    });
    start = end;
  }
  return scans;
}

/** Two halves of a scan, for a range too big to count or read before the server times out. */
export function halves(scan: ScanRange): [ScanRange, ScanRange] | null {
  if (scan.end - scan.start < 2n) return null;
  const middle = scan.start + (scan.end - scan.start) / 2n;
  return [{ ...scan, end: middle }, { ...scan, start: middle, startInclusive: false }];
}

/** `token("a", "b")` for the partition key columns, in key order. */
export function tokenExpression(partitionKey: TableColumn[]): string {
  const ordered = [...partitionKey].sort((a, b) => a.position - b.position);
  return `token(${ordered.map((column) => quoteIdentifier(column.name)).join(", ")})`;
}

/** The WHERE clause of a scan; its two bind markers are the bounds. */
export function rangeCondition(tokenExpr: string, scan: ScanRange): string {
  return `${tokenExpr} ${scan.startInclusive ? ">=" : ">"} ? AND ${tokenExpr} <= ?`;
}

/** Runs `work` over the items with at most `concurrency` at once; the first failure stops it. */
export async function forEachConcurrently<T>(
  items: T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async () => {
    while (failure === null && next < items.length) {
      const index = next++;
      try {
        await work(items[index], index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  if (failure !== null) throw (failure as { error: unknown }).error;
}

const TRANSIENT_CODES = new Set([0x1000, 0x1001, 0x1002, 0x1200, 0x1300]);

/** Read errors worth another try: timeouts, overload, unavailable, lost connections. */
export function isTransientReadError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === "number") return TRANSIENT_CODES.has(code);
  const name = error instanceof Error ? error.name : "";
  return name === "OperationTimedOutError" || name === "ConnectionError" || name === "NoHostAvailableError";
}

export function isTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === 0x1200 || (error instanceof Error && error.name === "OperationTimedOutError");
}
