// The load loop: raw input bytes go to the WASM core's bulk loader (`client.bulkLoad`), which
// parses, converts, routes, batches, retries and acknowledges rows there, with no JS object
// per row. JS only pushes chunks, writes what the core reports (bad rows, the journal) and
// checkpoints.
//
// - Bad rows reach the bad file in input order once the watermark has passed them. The core
//   reports a bad row as soon as it knows it, possibly ahead of its watermark (the input
//   offset below which every row is acknowledged or bad), so rows wait here until then.
// - A checkpoint is exact: its watermark, row count and bad-file sizes describe the same
//   moment. The core's counters include rows acknowledged beyond the watermark, so a
//   checkpoint is taken only when nothing is in flight: before pushing the next chunk, the
//   feed stops pushing until the rows in flight have settled (a few milliseconds every
//   --checkpoint-interval), then records the state and goes on. With nothing in flight, no
//   row of this run is beyond the watermark, so the journal can be emptied then.
// - A non-idempotent load (counters, list appends, IF) is journaled: the core reports each
//   row's start and acknowledgement, and the driver hands them over before the request's
//   bytes leave; they are written synchronously to the journal. On --resume the rows the
//   journal saw acknowledged are skipped by the core, and rows only sent are set aside as
//   uncertain.
// - An interruption stops pushing, lets the rows in flight settle, checkpoints and stops.
//   Bytes already pushed are not cut short (the core would take a cut record for a whole one),
//   so the feed ends by throwing instead of closing the input.

import type { CellTimeFields } from "../cell_times.ts";
import type {
  BadRowRecord,
  BulkConversionOptions,
  BulkCounters,
  BulkLoadOptions,
  BulkState,
  JournalEntry,
} from "../../driver/deno.ts";
import { describeError, SERVER_ERROR_NAMES } from "../errors.ts";
import type { BadRowLog, RowProblem } from "./bad_rows.ts";
import { truncateForLog } from "./bad_rows.ts";
import { type CheckpointStore, type FileCheckpoint, type JobIdentity, untouchedFileCheckpoint } from "./checkpoint.ts";
import { type CsvFormat, type InputPositions, openCoreInput, type ReadStart } from "./core_input.ts";
import type { InputFile } from "./input.ts";
import { openParquetInput, type ParquetBinding, parquetConversion } from "./parquet_input.ts";

/** What one input is written with, once its header (if any) is known. */
export interface CorePlan {
  statement: string;
  /** `[field, column]` pairs (CSV fields by 0-based position, JSON keys by name); undefined: by name or position. */
  mapping?: Array<[number | string, string]>;
  /** CSV without a header: the exact number of fields of a record. */
  fieldCount?: number;
  /** Column → CQL text, the same on every row (--set). */
  constants: Record<string, string>;
  /** Each bound column's CQL type, for the log. */
  types: Record<string, string>;
  /** Per-cell write time and TTL fields (CSV positions); the statement ends USING TIMESTAMP ? AND TTL ?. */
  cellTimes?: CellTimeFields[];
  /** Parquet: the file's columns (by position) each bound column is read from. */
  parquet?: ParquetBinding[];
  /**
   * The bind markers of the table's primary key columns (partition and clustering): rows with
   * the same values in them never share a batch. Without it the partition key is used.
   */
  keyColumns?: string[];
}

export type InputFormat = "csv" | "jsonl" | "parquet";

export type CorePlanFor = (header: string[] | null, format: InputFormat) => CorePlan;

export interface CoreLoadInput {
  input: InputFile;
  format: InputFormat;
  /** JSON: one array of objects (read by the core as a stream), not one object per line. */
  jsonArray?: boolean;
  badLog: BadRowLog;
  /** Where reading starts (a checkpoint's watermark, or a --split range start). */
  start?: ReadStart;
  /** --split by byte range: records starting after this offset belong to the next process. */
  stopAfter?: number;
  resume?: FileCheckpoint;
  done?: boolean;
  /** Resuming a journaled load: file offsets acknowledged, and only sent, beyond the watermark. */
  resumeAcked?: Set<number>;
  resumeSent?: Set<number>;
}

export type BulkLoadFunction = (input: AsyncIterable<Uint8Array>, options: BulkLoadOptions) => Promise<BulkState>;

export interface CheckpointSettings {
  store: CheckpointStore;
  job: JobIdentity;
  everyMs: number;
  everyRows: number;
  /** Identity of each input (size and mtime at the start). */
  files: Array<{ path: string; size: number | null; mtimeMs: number | null }>;
}

export interface LoadProgress {
  rowsLoaded: number;
  badRows: number;
  /** Rows of a resumed load that earlier runs had loaded (watermark and journal). */
  previouslyLoaded: number;
  uncertainRows: number;
  retries: number;
  bytesRead: number;
  concurrency: number;
  inFlight: number;
}

export interface LoadSummary extends LoadProgress {
  elapsedMs: number;
  rowsPerSecond: number;
  /** Null where it is not measured (the core has no per-request latency). */
  latencyMs: { p50: number | null; p99: number | null; mean: number | null; max: number | null };
  peakConcurrency: number;
  /** Why the load stopped early, if it did. */
  abortedBecause: string | null;
  badFiles: Array<{ source: string; badRows: number; badFile: string; errorLog: string; uncertainFile?: string }>;
  checkpointFile: string | null;
}

export interface CoreLoadSettings {
  /** Parse and convert in the core, write nothing. */
  dryRun?: boolean;
  csv: CsvFormat;
  hasHeader: boolean;
  nullValues: string[];
  /** Conversion settings, handed to the core as given. */
  conversion?: BulkConversionOptions;
  maxConcurrency: number;
  initialConcurrency?: number;
  /** A count, or `N%` of each input's records (judged in the core). */
  maxErrors?: number | string;
  skipRecords?: number;
  maxRecords?: number;
  maxRetries?: number;
  consistency?: number;
  /** false for counters, list appends and conditional writes: the load is journaled. */
  idempotent?: boolean;
  secrets?: readonly string[];
  checkpoint?: CheckpointSettings;
  onProgress?: (progress: LoadProgress) => void;
  progressEveryMs?: number;
  stop?: { reason: string | null };
  /** Longest wait for the rows in flight to settle before a periodic checkpoint (default 2000 ms). */
  drainLimitMs?: number;
  /** Rows per second at most (--rate). */
  rate?: number;
  /** Rows per request, grouped by replicas or partition (--batch-size, --batch-by). */
  batch?: { size: number; by: "partition" | "replica" };
}

/** Server errors that no row of this load could get past. */
const FATAL_SERVER_CODES = new Set([0x0100, 0x2100, 0x000A, 0x2300]);

const UNCERTAIN_REASON = "sent before the interruption but never acknowledged: it may or may not have been applied, " +
  "and the write is not idempotent, so it was not sent again (check it, then load it on its own if needed)";

/**
 * Why a row was set aside as uncertain: an earlier run sent it (no attempt in this one), or
 * this run sent it and lost the answer (a timeout, a connection closed after the write).
 */
export function uncertainReason(row: Pick<BadRowRecord, "serverCode" | "attempts" | "reason">, secrets: readonly string[] = []): string {
  if (row.attempts === 0) return UNCERTAIN_REASON;
  const code = row.serverCode;
  const what = code === null ? row.reason : `${SERVER_ERROR_NAMES[code] ?? "Server error"} (0x${code.toString(16).padStart(4, "0")}): ${row.reason}`;
  return `sent but never acknowledged (${describeError(what, secrets)}): it may or may not have been applied, and the write is ` +
    "not idempotent, so it was not sent again (check it, then load it on its own if needed)";
}

/** Thrown by the feed to end a bulk load without closing its input (which would cut a record). */
class StopFeeding extends Error {
  constructor() {
    super("stopped feeding the bulk load");
  }
}

const EMPTY = new Uint8Array(0);

/**
 * The core asks for more input once it has started every complete row it holds, which is
 * also when the feed can pause (to checkpoint or stop). Pieces of this size bound how long a
 * slow load runs on before an interruption is heard, at a negligible cost per piece.
 */
const FEED_BYTES = 64 * 1024;

/** The pacer's view of time: the real clock, or a simulated one in tests. */
export interface PacerClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const REAL_CLOCK: PacerClock = { now: () => performance.now(), sleep };

/**
 * --rate: input is pushed in pieces of a twentieth of a second's rows, each only once its
 * share of time has passed. Rows are counted as line ends, which are never fewer than the
 * records (quoted fields may hold line breaks), so the rate is never exceeded.
 */
export class LinePacer {
  private readonly linesPerPiece: number;
  private next: number;

  constructor(private readonly perSecond: number, private readonly clock: PacerClock = REAL_CLOCK) {
    this.linesPerPiece = Math.max(1, Math.ceil(perSecond / 20));
    this.next = clock.now();
  }

  /** Where the piece starting at `from` ends: after its share of lines, or at `limit`. */
  cut(chunk: Uint8Array, from: number, limit: number): { end: number; lines: number } {
    let end = from;
    let lines = 0;
    while (lines < this.linesPerPiece) {
      const newline = chunk.indexOf(0x0a, end);
      if (newline < 0 || newline >= limit) return { end: lines === 0 ? limit : end, lines };
      end = newline + 1;
      lines++;
    }
    return { end, lines };
  }

  /** Waits until `lines` more rows are within the rate. */
  async wait(lines: number): Promise<void> {
    if (lines === 0) return;
    this.next = Math.max(this.clock.now(), this.next) + (lines * 1000) / this.perSecond;
    const delay = this.next - this.clock.now();
    if (delay >= 1) await this.clock.sleep(delay);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A row the core sent (or could not send) and gave up on, in the log's words; `fatal` when the load must stop. */
export function describeRejection(
  row: Pick<BadRowRecord, "kind" | "serverCode" | "attempts" | "reason">,
  secrets: readonly string[] = [],
): { reason: string; fatal: boolean } | null {
  const mask = (text: string) => describeError(text, secrets);
  if (row.kind === "not_sent") return { reason: `cannot write: ${mask(row.reason)}`, fatal: true };
  if (row.kind !== "rejected") return null;
  const retries = Math.max(0, row.attempts - 1);
  const retried = retries > 0 ? ` (after ${retries} ${retries === 1 ? "retry" : "retries"})` : "";
  const code = row.serverCode;
  if (code !== null) {
    const hex = code.toString(16).padStart(4, "0");
    // The core's reason for a server error is the server's own message.
    const text = mask(`${SERVER_ERROR_NAMES[code] ?? "Server error"} (0x${hex}): ${row.reason}`);
    if (FATAL_SERVER_CODES.has(code)) return { reason: `cannot write: ${text}`, fatal: true };
    return { reason: `rejected by the server${retried}: ${text}`, fatal: false };
  }
  return { reason: `not written${retried}: ${mask(row.reason)}`, fatal: false };
}

/** The log's account of a row the core refused, from the record's fields (never its text). */
export function problemOf(row: BadRowRecord, types: Record<string, string>, secrets: readonly string[] = []): RowProblem {
  const reason = describeRejection(row, secrets)?.reason ?? row.reason;
  const problem: RowProblem = { reason };
  if (row.field !== null) problem.field = row.field + 1;
  if (row.column !== null && types[row.column] !== undefined) problem.type = types[row.column];
  if (row.value !== null) problem.value = truncateForLog(row.value);
  return problem;
}

/** A bad row waiting for the watermark. */
interface PendingRow {
  offset: number;
  row: BadRowRecord;
  problem: RowProblem;
  uncertain: boolean;
}

function drained(state: BulkCounters | null): boolean {
  return state !== null && state.inFlight === 0 && state.waitingRetry === 0;
}

/**
 * The end of a load: closes the bad-row files, records the last checkpoint (`complete` is
 * asked once the files are closed), closes the store and reports; then throws what made the
 * load fail, or a bad-row file that could not be closed.
 */
async function finishLoad(
  badLogs: ReadonlyArray<{ close(): Promise<void> }>,
  complete: () => boolean,
  writeCheckpoint: (complete: boolean) => void,
  store: { close(): void } | null,
  report: () => void,
  failure: { error: unknown } | null,
): Promise<void> {
  const closing = await Promise.allSettled(badLogs.map((badLog) => badLog.close()));
  try {
    writeCheckpoint(complete());
  } finally {
    store?.close();
  }
  report();
  if (failure !== null) throw failure.error;
  const failedClose = closing.find((result): result is PromiseRejectedResult => result.status === "rejected");
  if (failedClose) throw failedClose.reason;
}

/** Offsets of `set` at or past `from`, in order. */
function beyond(set: Set<number> | undefined, from: number): number[] {
  return [...set ?? []].filter((offset) => offset >= from).sort((a, b) => a - b);
}

export async function runCoreLoad(
  inputs: CoreLoadInput[],
  planFor: CorePlanFor,
  bulkLoad: BulkLoadFunction,
  settings: CoreLoadSettings,
): Promise<LoadSummary> {
  const started = performance.now();
  const stop = settings.stop ?? { reason: null };
  const secrets = settings.secrets ?? [];
  const checkpointing = settings.dryRun ? undefined : settings.checkpoint;
  const store = checkpointing?.store ?? null;
  const journaled = store?.journaled === true;
  const drainLimitMs = settings.drainLimitMs ?? 2000;
  const progressEveryMs = settings.progressEveryMs ?? 250;
  /** Per input, its last exact state: what a checkpoint says about it. */
  const snapshots: Array<FileCheckpoint | null> = inputs.map(() => null);
  const readers: Array<{ rawBytesRead: number } | null> = inputs.map(() => null);
  const progress: LoadProgress = {
    rowsLoaded: 0,
    badRows: 0,
    previouslyLoaded: 0,
    uncertainRows: 0,
    retries: 0,
    bytesRead: 0,
    concurrency: 0,
    inFlight: 0,
  };
  let peakConcurrency = 0;
  /** ∫ rows in flight dt, for the mean latency by Little's law. */
  let inFlightArea = 0;
  let lastCheckpoint = performance.now();
  let rowsAtCheckpoint = 0;
  let nextDrainAttempt = 0;
  let lastReport = 0;
  let failure: { error: unknown } | null = null;
  /** Rows were refused for a reason that stops the load: no later checkpoint may pass them. */
  let fatal = false;

  const identityOf = (i: number) =>
    checkpointing?.files[i] ?? { path: inputs[i].input.path, size: inputs[i].input.size, mtimeMs: null };

  const untouched = (i: number): FileCheckpoint => {
    const file = untouchedFileCheckpoint(identityOf(i), inputs[i].resume, inputs[i].start);
    if (journaled) {
      file.acked = beyond(inputs[i].resumeAcked, file.offset);
      file.sent = beyond(inputs[i].resumeSent, file.offset);
    }
    return file;
  };

  const writeCheckpoint = (complete: boolean) => {
    if (store === null) return;
    store.write({
      version: 1,
      job: checkpointing!.job,
      updatedAt: new Date().toISOString(),
      complete,
      files: inputs.map((_, i) => snapshots[i] ?? untouched(i)),
    });
    lastCheckpoint = performance.now();
    rowsAtCheckpoint = progress.rowsLoaded;
  };

  const bytesRead = () => readers.reduce((sum, reader) => sum + (reader?.rawBytesRead ?? 0), 0);

  const report = () => {
    lastReport = performance.now();
    progress.bytesRead = bytesRead();
    settings.onProgress?.(progress);
  };

  const noteBad = () => {
    progress.badRows++;
    if (typeof settings.maxErrors === "number" && progress.badRows >= settings.maxErrors && stop.reason === null) {
      stop.reason = `stopped after ${progress.badRows} bad rows (--max-errors ${settings.maxErrors})`;
    }
  };

  // A checkpoint exists before the first row is sent: a journal without one would be
  // ignored by --resume, and its rows applied a second time.
  writeCheckpoint(false);

  for (const [index, item] of inputs.entries()) {
    if (stop.reason !== null) break;
    if (item.done) {
      progress.previouslyLoaded += item.resume?.rowsLoaded ?? 0;
      continue;
    }
    const base = untouched(index);
    progress.previouslyLoaded += base.rowsLoaded;
    const start = item.start ?? { offset: 0, line: 1 };
    const withHeader = item.format === "csv" && settings.hasHeader;
    const source = item.input.path;
    let opened: { chunks: AsyncIterable<Uint8Array>; close(): Promise<void> };
    let positions: InputPositions;
    let plan: CorePlan;
    if (item.format === "parquet") {
      // A Parquet input's checkpoint offset counts rows: it starts at that row.
      const parquet = await openParquetInput(item.input, start.offset, (names) => planFor(names, "parquet"));
      opened = parquet;
      readers[index] = parquet.reader;
      positions = parquet.positions;
      plan = parquet.plan;
    } else if (withHeader) {
      const text = await openCoreInput(item.input, start, settings.csv);
      opened = text;
      readers[index] = text.reader;
      positions = text.positions;
      const header = text.header;
      if (header === null || header.fields === null) {
        await opened.close();
        if (header !== null) {
          // A header that cannot be read cannot be mapped either: the rest of the input is this one bad row.
          item.badLog.record({ source, line: header.line, bytes: header.raw }, { reason: `header: ${header.fault}` });
          noteBad();
        }
        snapshots[index] = {
          ...base,
          offset: header?.end ?? base.offset,
          line: header?.nextLine ?? base.line,
          badRows: base.badRows + (header === null ? 0 : 1),
          badFiles: item.badLog.currentSizes(),
          done: true,
        };
        continue;
      }
      item.badLog.setHeader(header.raw);
      plan = planFor(header.fields, item.format);
    } else {
      const text = await openCoreInput(item.input, start, null);
      opened = text;
      readers[index] = text.reader;
      positions = text.positions;
      plan = planFor(null, item.format);
    }
    snapshots[index] = { ...base, badFiles: item.badLog.currentSizes() };

    const okBefore = progress.rowsLoaded;
    const retriesBefore = progress.retries;
    const previousBefore = progress.previouslyLoaded;
    const uncertainBefore = progress.uncertainRows;
    /** Offsets are the core's, ordered as the input once sorted. */
    const pending: PendingRow[] = [];
    let written = 0;
    let writtenUncertain = 0;
    let last: BulkCounters | null = null;
    let lastSampleAt = performance.now();

    const settled = () => drained(last);

    const exactSnapshot = (state: BulkCounters): FileCheckpoint => {
      const { offset, line } = positions.checkpointAt(state.watermark, state.watermarkLine);
      const file: FileCheckpoint = {
        ...base,
        offset,
        line,
        done: false,
        rowsLoaded: base.rowsLoaded + state.rowsOk + state.rowsPrevious,
        badRows: base.badRows + written,
        uncertainRows: base.uncertainRows + writtenUncertain,
        badFiles: item.badLog.currentSizes(),
      };
      if (journaled) {
        // Nothing of this run is in flight: only the earlier runs' entries can lie ahead.
        file.acked = beyond(item.resumeAcked, offset);
        file.sent = beyond(item.resumeSent, offset);
      }
      return file;
    };

    /** Writes the bad rows below the watermark in input order. */
    const flush = (watermark: number) => {
      if (pending.length === 0) return;
      pending.sort((a, b) => a.offset - b.offset);
      let done = 0;
      for (const entry of pending) {
        if (entry.offset >= watermark) break;
        const record = {
          source,
          line: positions.fileLine(entry.row.line),
          where: positions.describe?.(entry.row.line),
          bytes: entry.row.raw,
        };
        item.badLog.record(record, entry.problem, entry.uncertain);
        if (entry.uncertain) writtenUncertain++;
        else written++;
        done++;
      }
      pending.splice(0, done);
    };

    const updateRows = () => {
      progress.rowsLoaded = okBefore + (last?.rowsOk ?? 0);
      progress.previouslyLoaded = previousBefore + (last?.rowsPrevious ?? 0);
      progress.uncertainRows = uncertainBefore + (last?.rowsUncertain ?? 0);
    };

    const onBadRow = (row: BadRowRecord) => {
      if (row.kind === "uncertain") {
        pending.push({ offset: row.offset, row, problem: { reason: uncertainReason(row, secrets) }, uncertain: true });
        return;
      }
      if (describeRejection(row, secrets)?.fatal) {
        // Not a bad row: the load cannot go on, and --resume sends the row again.
        fatal = true;
        stop.reason ??= describeRejection(row, secrets)!.reason;
        return;
      }
      pending.push({ offset: row.offset, row, problem: problemOf(row, plan.types, secrets), uncertain: false });
      noteBad();
    };

    const onJournal = (entries: JournalEntry[]) => {
      const sent: number[] = [];
      const acked: number[] = [];
      for (const entry of entries) (entry.kind === "sent" ? sent : acked).push(positions.fileOffset(entry.offset));
      if (sent.length > 0) store!.recordSent(index, sent);
      if (acked.length > 0) store!.recordAcked(index, acked);
    };

    const onProgress = ({ counters: state }: BulkState) => {
      const now = performance.now();
      inFlightArea += (last?.inFlight ?? 0) * (now - lastSampleAt);
      lastSampleAt = now;
      last = state;
      flush(state.watermark);
      peakConcurrency = Math.max(peakConcurrency, state.window);
      updateRows();
      progress.retries = retriesBefore + state.retries;
      progress.concurrency = state.window;
      progress.inFlight = state.inFlight;
      if (now - lastReport >= progressEveryMs) report();
    };

    const checkpointDue = () => {
      if (store === null || checkpointing === undefined) return false;
      const now = performance.now();
      if (now < nextDrainAttempt) return false;
      return now - lastCheckpoint >= checkpointing.everyMs ||
        progress.rowsLoaded - rowsAtCheckpoint >= checkpointing.everyRows;
    };

    /** Stops pushing until the rows in flight settle, then checkpoints; throws when stopping. */
    const settleAndCheckpoint = async function* (): AsyncGenerator<Uint8Array> {
      if (fatal) throw new StopFeeding();
      const deadline = performance.now() + drainLimitMs;
      while (!settled()) {
        if (fatal) throw new StopFeeding();
        if (stop.reason === null && performance.now() > deadline) {
          // Rows waiting on retries: try again later rather than stall the load.
          nextDrainAttempt = performance.now() + drainLimitMs;
          return;
        }
        await sleep(1);
        // An empty push lets the bulk loop turn, and its next progress report arrive.
        yield EMPTY;
      }
      flush(last!.watermark);
      snapshots[index] = exactSnapshot(last!);
      writeCheckpoint(false);
      if (stop.reason !== null) throw new StopFeeding();
    };

    const feed = async function* (): AsyncGenerator<Uint8Array> {
      for await (const chunk of opened.chunks) {
        for (let at = 0; at < chunk.length;) {
          if (stop.reason !== null || checkpointDue()) yield* settleAndCheckpoint();
          let end = Math.min(chunk.length, at + FEED_BYTES);
          if (pacer !== null) {
            const piece = pacer.cut(chunk, at, end);
            end = piece.end;
            await pacer.wait(piece.lines);
          }
          yield chunk.subarray(at, end);
          at = end;
        }
      }
    };

    const pacer = settings.rate !== undefined ? new LinePacer(settings.rate) : null;
    const remainingErrors = typeof settings.maxErrors === "number" ? settings.maxErrors - progress.badRows : undefined;
    const options: BulkLoadOptions = {
      query: plan.statement,
      format: item.jsonArray ? "json" : item.format === "parquet" ? "jsonl" : item.format,
      nullValues: settings.nullValues,
      conversion: item.format === "parquet" ? parquetConversion(settings.conversion) : settings.conversion,
      constants: plan.constants,
      maxConcurrency: settings.maxConcurrency,
      initialConcurrency: Math.min(settings.initialConcurrency ?? 32, settings.maxConcurrency),
      idempotent: settings.idempotent ?? true,
      onBadRow,
      onProgress,
    };
    if (item.format === "csv") {
      Object.assign(options, {
        delimiter: settings.csv.delimiter,
        quote: settings.csv.quote,
        escape: settings.csv.escape ?? settings.csv.quote,
        header: settings.hasHeader,
      });
      if (settings.csv.comment !== undefined) options.comment = settings.csv.comment;
    }
    if (plan.mapping !== undefined) options.mapping = plan.mapping;
    if (plan.fieldCount !== undefined) options.fieldCount = plan.fieldCount;
    if (plan.cellTimes !== undefined) options.cellTimes = plan.cellTimes;
    if (plan.keyColumns !== undefined) options.keyColumns = plan.keyColumns;
    if (journaled && !settings.dryRun) {
      options.onJournal = onJournal;
      const pushed = (offsets: Set<number> | undefined) =>
        beyond(offsets, start.offset).map((offset) => positions.pushedOffset(offset));
      options.resumeAcked = pushed(item.resumeAcked);
      options.resumeSent = pushed(item.resumeSent);
    }
    // The core stops once more than maxErrors rows were bad: at the one that reaches the limit.
    if (remainingErrors !== undefined) options.maxErrors = Math.max(0, remainingErrors - 1);
    // A share is judged in the core over each input's own records.
    if (typeof settings.maxErrors === "string") options.maxErrors = settings.maxErrors;
    if (settings.skipRecords !== undefined) options.skipRecords = settings.skipRecords;
    if (settings.maxRecords !== undefined) options.maxRecords = settings.maxRecords;
    if (settings.maxRetries !== undefined) options.maxRetries = settings.maxRetries;
    if (settings.consistency !== undefined) options.consistency = settings.consistency;
    if (settings.dryRun) options.dryRun = true;
    if (settings.batch !== undefined) {
      options.batchSize = settings.batch.size;
      options.batchBy = settings.batch.by;
    }
    if (item.stopAfter !== undefined) {
      // A record belongs to the range holding the byte just before it: one starting right
      // after the range's last byte is still ours.
      options.stopAtOffset = positions.pushedOffset(item.stopAfter + 1);
    }

    let final: BulkState | null = null;
    try {
      final = await bulkLoad(feed(), options);
    } catch (error) {
      if (!(error instanceof StopFeeding)) {
        failure = { error };
        stop.reason ??= `failed: ${describeError(error, secrets)}`;
      }
    } finally {
      await opened.close();
    }
    if (final !== null) {
      const { counters, status } = final;
      last = counters;
      flush(counters.watermark);
      updateRows();
      progress.retries = retriesBefore + counters.retries;
      if (status.error !== null) stop.reason ??= `failed: ${describeError(status.error, secrets)}`;
      // The core returns at once on an error, possibly with rows still in flight: the
      // state is exact only once they settled, otherwise the last exact one stands.
      if (!fatal && settled()) {
        snapshots[index] = { ...exactSnapshot(counters), done: status.done && status.error === null };
      }
    }
  }

  await finishLoad(
    inputs.map(({ badLog }) => badLog),
    () =>
      stop.reason === null && failure === null &&
      snapshots.every((snapshot, i) => inputs[i].done || snapshot?.done === true),
    writeCheckpoint,
    store,
    report,
    failure,
  );
  const elapsedMs = performance.now() - started;
  return {
    ...progress,
    elapsedMs,
    rowsPerSecond: elapsedMs > 0 ? progress.rowsLoaded / (elapsedMs / 1000) : 0,
    latencyMs: {
      p50: null,
      p99: null,
      mean: progress.rowsLoaded > 0 ? inFlightArea / progress.rowsLoaded : null,
      max: null,
    },
    peakConcurrency,
    abortedBecause: stop.reason,
    badFiles: inputs.filter(({ badLog }) => badLog.count > 0 || badLog.uncertainCount > 0).map((
      { input, badLog },
    ) => ({
      source: input.path,
      badRows: badLog.count,
      badFile: badLog.badPath,
      errorLog: badLog.logPath,
      ...(badLog.uncertainCount > 0 ? { uncertainFile: badLog.uncertainPath } : {}),
    })),
    checkpointFile: store !== null ? store.path : null,
  };
}
