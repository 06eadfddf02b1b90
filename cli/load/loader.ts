// The load loop: records from each source are converted and written with a bounded
// number of requests in flight. Reading pauses while the window is full, so memory stays
// bounded whatever the input size. Bad rows go to the source's BadRowLog and the load
// goes on, until --max-errors is reached or the cluster becomes unreachable.

import type { RowSource, SourceRecord } from "./csv_source.ts";
import type { RowConverter, RowProblem } from "./row_converter.ts";
import type { BadRowLog } from "./bad_rows.ts";
import { describeError } from "../errors.ts";

export interface LoadTarget {
  /** Prepares (once per statement text) and executes one INSERT. */
  insert(statement: string, values: unknown[]): Promise<void>;
}

/** Builds the statement and converter for a source once its header (if any) is known. */
export type PlanForSource = (header: string[] | null) => { statement: string; converter: RowConverter };

export interface LoadInput {
  source: RowSource;
  badLog: BadRowLog;
}

export interface LoadSettings {
  hasHeader: boolean;
  maxConcurrency: number;
  /** Stop once this many bad rows were recorded. */
  maxErrors?: number;
  secrets?: readonly string[];
  onProgress?: (progress: LoadProgress) => void;
}

export interface LoadProgress {
  rowsLoaded: number;
  badRows: number;
}

export interface LoadSummary extends LoadProgress {
  elapsedMs: number;
  rowsPerSecond: number;
  /** Why the load stopped early, if it did. */
  abortedBecause: string | null;
  badFiles: Array<{ source: string; badRows: number; badFile: string; errorLog: string }>;
}

/** A fixed number of slots; acquire waits while all are taken. */
export class ConcurrencyWindow {
  private active = 0;
  private waiters: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  get inFlight(): number {
    return this.active;
  }

  async acquire(): Promise<void> {
    while (this.active >= this.limit) await new Promise<void>((resolve) => this.waiters.push(resolve));
    this.active++;
  }

  release(): void {
    this.active--;
    this.waiters.shift()?.();
  }

  async drain(): Promise<void> {
    while (this.active > 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }
}

const FATAL_DRIVER_ERRORS = new Set(["NoHostAvailableError", "AuthenticationError"]);
/** Server errors that no row of this load could get past: bad credentials, unauthorized, protocol, config. */
const FATAL_SERVER_CODES = new Set([0x0100, 0x2100, 0x000A, 0x2300]);

export function isFatalWriteError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (FATAL_DRIVER_ERRORS.has(error.name)) return true;
  const code = (error as { code?: unknown }).code;
  return typeof code === "number" && FATAL_SERVER_CODES.has(code);
}

export async function runLoad(
  inputs: LoadInput[],
  planFor: PlanForSource,
  target: LoadTarget,
  settings: LoadSettings,
): Promise<LoadSummary> {
  const started = performance.now();
  const window = new ConcurrencyWindow(settings.maxConcurrency);
  const progress: LoadProgress = { rowsLoaded: 0, badRows: 0 };
  let abortedBecause: string | null = null;

  const recordBad = (log: BadRowLog, record: SourceRecord, problem: RowProblem) => {
    progress.badRows++;
    if (settings.maxErrors !== undefined && progress.badRows >= settings.maxErrors && abortedBecause === null) {
      abortedBecause = `stopped after ${progress.badRows} bad rows (--max-errors ${settings.maxErrors})`;
    }
    log.record(record, problem);
  };

  let failure: { error: unknown } | null = null;
  try {
    for (const { source, badLog } of inputs) {
      if (abortedBecause !== null) break;
      let plan: ReturnType<PlanForSource> | null = settings.hasHeader ? null : planFor(null);
      for await (const record of source.records()) {
        if (abortedBecause !== null) break;
        if (plan === null) {
          // A header that cannot be parsed cannot be mapped either, so it ends this source.
          if (record.malformed !== undefined) {
            recordBad(badLog, record, { reason: `header: ${record.malformed}` });
            break;
          }
          plan = planFor(record.fields.map((field) => field.text));
          badLog.setHeader(record.raw);
          continue;
        }
        const converted = plan.converter.convert(record);
        if (!converted.ok) {
          recordBad(badLog, record, converted.problem);
          continue;
        }
        await window.acquire();
        if (abortedBecause !== null) {
          window.release();
          break;
        }
        target.insert(plan.statement, converted.values).then(
          () => {
            progress.rowsLoaded++;
          },
          (error) => {
            const reason = describeError(error, settings.secrets);
            if (isFatalWriteError(error)) abortedBecause ??= `cannot write: ${reason}`;
            const byServer = typeof (error as { code?: unknown }).code === "number";
            recordBad(badLog, record, { reason: `${byServer ? "rejected by the server" : "not written"}: ${reason}` });
          },
        ).finally(() => {
          window.release();
          settings.onProgress?.(progress);
        });
      }
    }
  } catch (error) {
    failure = { error };
  }
  // Requests in flight and bad-row writes are settled even when the load itself failed.
  await window.drain();
  const closing = await Promise.allSettled(inputs.map(({ badLog }) => badLog.close()));
  if (failure !== null) throw failure.error;
  const failedClose = closing.find((result): result is PromiseRejectedResult => result.status === "rejected");
  if (failedClose) throw failedClose.reason;

  const elapsedMs = performance.now() - started;
  return {
    ...progress,
    elapsedMs,
    rowsPerSecond: elapsedMs > 0 ? progress.rowsLoaded / (elapsedMs / 1000) : 0,
    abortedBecause,
    badFiles: inputs.filter(({ badLog }) => badLog.count > 0).map(({ source, badLog }) => ({
      source: source.name,
      badRows: badLog.count,
      badFile: badLog.badPath,
      errorLog: badLog.logPath,
    })),
  };
}
