// The load loop. Records from each source are converted and written with a number of
// requests in flight that adapts to the cluster (flow.ts), optionally paced (--rate) and
// grouped into unlogged batches (--batch-size). Failed writes are retried with backoff when
// that is safe; rows that still fail go to the source's bad file with the reason.
//
// Each source has a FileTracker that follows its records in input order. A record is
// settled once it is acknowledged, or known bad; the watermark is the end of the longest
// settled prefix. Bad rows are written to the bad file when the watermark passes them, so a
// checkpoint (watermark + bad-file sizes) describes the state exactly, and --resume can
// start from it. Reading pauses while too many records wait behind an unsettled one, which
// bounds memory (and the journal of a non-idempotent load) whatever the input size.

import type { ReadStart, RowSource, SourceRecord } from "./csv_source.ts";
import type { RowConverter, RowProblem } from "./row_converter.ts";
import type { BadRowLog } from "./bad_rows.ts";
import { type CheckpointStore, type FileCheckpoint, type JobIdentity, untouchedFileCheckpoint } from "./checkpoint.ts";
import { AdaptiveConcurrency, LatencyHistogram, RateLimiter } from "./flow.ts";
import type { ReplicaMap, TokenCalculator } from "./token.ts";
import { describeError } from "../errors.ts";

export type Params = unknown[] | Record<string, unknown>;

export interface WriteOptions {
  /** Sends the request to the replicas of this token. */
  routingToken?: bigint;
}

export interface LoadTarget {
  /** Prepares (once per statement text) and executes one statement. */
  execute(statement: string, params: Params, options: WriteOptions): Promise<void>;
  /** Several statements as one unlogged (or counter) batch. */
  batch?(items: Array<{ statement: string; params: Params }>, options: WriteOptions): Promise<void>;
}

/** What a source's rows are written with, once its header (if any) is known. */
export interface LoadPlan {
  statement: string;
  converter: RowConverter;
  /** Converted values (in layout order) to the statement's parameters. */
  toParams?: (values: unknown[]) => Params;
  /** Tokens of rows, for routing batches and grouping them by replica. */
  tokens?: TokenCalculator | null;
  /** Positions of the partition key columns in the converted values. */
  partitionKeyPositions?: number[];
}

export type PlanForSource = (header: string[] | null, source: RowSource) => LoadPlan;

export interface LoadInput {
  source: RowSource;
  badLog: BadRowLog;
  /** "record": the first record is the header; a list: the field names (JSON Lines); null: none. */
  header?: "record" | string[] | null;
  /** Where reading starts (a checkpoint's watermark, or a --split range start). */
  start?: ReadStart;
  /** --split by byte range: records starting after this offset belong to the next process. */
  stopAfter?: number;
  /** Resuming: what the checkpoint says about the file. */
  resume?: FileCheckpoint;
  /** Resuming a journaled load: offsets acknowledged, and only sent, beyond the watermark. */
  resumeAcked?: Set<number>;
  resumeSent?: Set<number>;
  /** The file was fully loaded by an earlier run. */
  done?: boolean;
}

export interface BatchSettings {
  size: number;
  by: "partition" | "replica";
  replicas?: ReplicaMap | null;
}

export interface CheckpointSettings {
  store: CheckpointStore;
  job: JobIdentity;
  everyMs: number;
  everyRows: number;
  /** Identity of each input (size and mtime at the start). */
  files: Array<{ path: string; size: number | null; mtimeMs: number | null }>;
}

export interface LoadSettings {
  /** For inputs that do not say: whether the first record is a header. */
  hasHeader?: boolean;
  maxConcurrency: number;
  initialConcurrency?: number;
  /** false: exactly maxConcurrency requests in flight, no adaptation. */
  adaptive?: boolean;
  /** Stop once this many bad rows were recorded. */
  maxErrors?: number;
  /** Retries of a row after a timeout or overload (default 3). */
  maxRetries?: number;
  /** First backoff delay (doubling, with jitter); default 100 ms. */
  retryBaseMs?: number;
  /** Whether a write may be applied twice: retries after timeouts, re-applying after a crash. */
  idempotent?: boolean;
  /** Rows per second at most. */
  rate?: number;
  batch?: BatchSettings;
  dryRun?: boolean;
  secrets?: readonly string[];
  checkpoint?: CheckpointSettings;
  /** Called about every `progressEveryMs` (default 250) and at the end. */
  onProgress?: (progress: LoadProgress) => void;
  progressEveryMs?: number;
  /** Set `reason` to stop reading, finish the requests in flight, and checkpoint. */
  stop?: { reason: string | null };
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
  /** Null where the path cannot measure it (the core path has no per-request latency). */
  latencyMs: { p50: number | null; p99: number | null; mean: number | null; max: number | null };
  peakConcurrency: number;
  /** Why the load stopped early, if it did. */
  abortedBecause: string | null;
  badFiles: Array<{ source: string; badRows: number; badFile: string; errorLog: string; uncertainFile?: string }>;
  checkpointFile: string | null;
}

/**
 * The end of a load on either path: closes the bad-row files, records the last checkpoint
 * (`complete` is asked once the files are closed), closes the store and reports; then throws
 * what made the load fail, or a bad-row file that could not be closed.
 */
export async function finishLoad(
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

/** The summary of a finished load, timed from `startedMs` (a `performance.now()`). */
export function loadSummary(
  progress: LoadProgress,
  startedMs: number,
  rest: Omit<LoadSummary, keyof LoadProgress | "elapsedMs" | "rowsPerSecond">,
): LoadSummary {
  const elapsedMs = performance.now() - startedMs;
  return {
    ...progress,
    elapsedMs,
    rowsPerSecond: elapsedMs > 0 ? progress.rowsLoaded / (elapsedMs / 1000) : 0,
    ...rest,
  };
}

/** A fixed number of slots; acquire waits while all are taken. */
export class ConcurrencyWindow extends AdaptiveConcurrency {
  constructor(limit: number) {
    super(limit, limit, false);
  }
}

const FATAL_DRIVER_ERRORS = new Set(["AuthenticationError"]);
/** Server errors that no row of this load could get past: bad credentials, unauthorized, protocol, config. */
const FATAL_SERVER_CODES = new Set([0x0100, 0x2100, 0x000A, 0x2300]);
/** The coordinator refused the request before applying it: always safe to send again. */
const NOT_APPLIED_CODES = new Set([0x1000, 0x1001, 0x1002]);
/**
 * May have been applied: safe to send again only for idempotent writes. The core's rule, as
 * the Java driver's default retry policy (DSBulk's): a server error (0x0000) is retried, a
 * write failure (0x1500: replicas answered with a failure) is not.
 */
const MAYBE_APPLIED_CODES = new Set([0x0000, 0x1100, 0x1200]);
const RETRYABLE_DRIVER_ERRORS = new Set(["OperationTimedOutError", "ConnectionError", "NoHostAvailableError"]);
const OVERLOAD_CODES = new Set([0x1001, 0x1100]);

function codeOf(error: unknown): number | null {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "number" ? code : null;
}

function nameOf(error: unknown): string {
  return error instanceof Error ? error.name : "";
}

export function isFatalWriteError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (FATAL_DRIVER_ERRORS.has(error.name)) return true;
  const code = codeOf(error);
  return code !== null && FATAL_SERVER_CODES.has(code);
}

type ErrorClass = "fatal" | "not-applied" | "maybe-applied" | "unavailable" | "rejected";

function classify(error: unknown): ErrorClass {
  if (isFatalWriteError(error)) return "fatal";
  const code = codeOf(error);
  if (code !== null) {
    if (NOT_APPLIED_CODES.has(code)) return "not-applied";
    if (MAYBE_APPLIED_CODES.has(code)) return "maybe-applied";
    return "rejected";
  }
  const name = nameOf(error);
  if (name === "NoHostAvailableError") return "unavailable";
  if (RETRYABLE_DRIVER_ERRORS.has(name)) return "maybe-applied";
  return "rejected";
}

function isOverload(error: unknown): boolean {
  const code = codeOf(error);
  return (code !== null && OVERLOAD_CODES.has(code)) || nameOf(error) === "OperationTimedOutError";
}

export type SingleWriteOutcome = { ok: true } | { ok: false; fatal: boolean; reason: string };

/**
 * One idempotent row written on its own, with the load loop's retry rules: timeouts,
 * overloads, unavailability and lost connections are retried with backoff up to
 * `maxRetries` times; errors no row could get past are fatal.
 */
export async function writeWithRetries(
  write: () => Promise<void>,
  options: { maxRetries: number; retryBaseMs?: number; secrets?: readonly string[] },
): Promise<SingleWriteOutcome> {
  const retryBaseMs = options.retryBaseMs ?? 100;
  for (let attempt = 0;; attempt++) {
    try {
      await write();
      return { ok: true };
    } catch (error) {
      const kind = classify(error);
      const reason = describeError(error, options.secrets);
      if (kind === "fatal") return { ok: false, fatal: true, reason: `cannot write: ${reason}` };
      if (kind !== "rejected" && attempt < options.maxRetries) {
        const delay = Math.min(10_000, retryBaseMs * 2 ** attempt) * (0.5 + Math.random() / 2);
        await new Promise((resolve) => setTimeout(resolve, delay));
        continue;
      }
      if (kind === "unavailable") return { ok: false, fatal: true, reason: `cannot write: ${reason}` };
      const retried = attempt > 0 ? ` (after ${attempt} ${attempt === 1 ? "retry" : "retries"})` : "";
      const prefix = kind === "rejected" && codeOf(error) !== null ? "rejected by the server" : "not written";
      return { ok: false, fatal: false, reason: `${prefix}${retried}: ${reason}` };
    }
  }
}

const PENDING = 0;
const LOADED = 1;
const BAD = 2;
const PREVIOUSLY_LOADED = 3;
const UNCERTAIN = 4;

interface Entry {
  offset: number;
  end: number;
  nextLine: number;
  state: number;
  /** Sent and possibly applied (a non-idempotent load journals it). */
  sent: boolean;
  record: SourceRecord | null;
  problem: RowProblem | null;
}

/** Follows one source's records in input order and moves its watermark. */
class FileTracker {
  private entries: Array<Entry | null> = [];
  private head = 0;
  watermark: ReadStart;
  rowsLoaded: number;
  badRows: number;
  uncertainRows: number;
  readingDone = false;
  private backlogWaiters: Array<() => void> = [];

  constructor(
    readonly index: number,
    readonly badLog: BadRowLog,
    start: ReadStart,
    counts: FileCheckpoint | undefined,
  ) {
    this.watermark = { ...start };
    this.rowsLoaded = counts?.rowsLoaded ?? 0;
    this.badRows = counts?.badRows ?? 0;
    this.uncertainRows = counts?.uncertainRows ?? 0;
  }

  get backlog(): number {
    return this.entries.length - this.head;
  }

  get settled(): boolean {
    return this.readingDone && this.backlog === 0;
  }

  add(record: SourceRecord): Entry {
    const entry: Entry = {
      offset: record.offset ?? 0,
      end: record.end ?? 0,
      nextLine: record.nextLine ?? record.line + 1,
      state: PENDING,
      sent: false,
      record,
      problem: null,
    };
    this.entries.push(entry);
    return entry;
  }

  settle(entry: Entry, state: number, problem: RowProblem | null = null): void {
    entry.state = state;
    entry.problem = problem;
    if (state === LOADED || state === PREVIOUSLY_LOADED) entry.record = null;
    if (this.entries[this.head] === entry) this.advance();
  }

  private advance(): void {
    while (this.head < this.entries.length) {
      const entry = this.entries[this.head]!;
      if (entry.state === PENDING) break;
      if (entry.state === BAD) {
        this.badLog.record(entry.record!, entry.problem!);
        this.badRows++;
      } else if (entry.state === UNCERTAIN) {
        this.badLog.record(entry.record!, entry.problem!, true);
        this.uncertainRows++;
      } else {
        this.rowsLoaded++;
      }
      this.watermark = { offset: entry.end, line: entry.nextLine };
      this.entries[this.head] = null;
      this.head++;
    }
    if (this.head > 4096 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
    if (this.backlogWaiters.length > 0) { for (const waiter of this.backlogWaiters.splice(0)) waiter(); }
  }

  /** Waits until the backlog is below `limit`. */
  async belowBacklog(limit: number): Promise<void> {
    while (this.backlog >= limit) await new Promise<void>((resolve) => this.backlogWaiters.push(resolve));
  }

  /** Offsets of rows beyond the watermark: acknowledged, and sent without an answer yet. */
  beyondWatermark(): { acked: number[]; sent: number[] } {
    const acked: number[] = [];
    const sent: number[] = [];
    for (let i = this.head; i < this.entries.length; i++) {
      const entry = this.entries[i]!;
      if (entry.state === LOADED || entry.state === PREVIOUSLY_LOADED) acked.push(entry.offset);
      else if (entry.sent) sent.push(entry.offset);
    }
    return { acked, sent };
  }
}

interface PendingRow {
  tracker: FileTracker;
  entry: Entry;
  statement: string;
  params: Params;
  token: bigint | null;
  groupKey: string | null;
  attempts: number;
}

function partitionKeyText(values: unknown[], positions: number[]): string {
  let key = "";
  for (const position of positions) {
    const value = values[position];
    let text: string;
    if (value instanceof Uint8Array) text = Array.from(value, (b) => b.toString(16).padStart(2, "0")).join("");
    else if (value instanceof Date) text = String(value.getTime());
    else text = String(value);
    key += `${text.length}:${text};`;
  }
  return key;
}

/** Groups rows for unlogged batches: by partition, or by the replica set owning their token. */
class Batcher {
  private groups = new Map<string, PendingRow[]>();
  private buffered = 0;
  lastAdd = 0;

  constructor(private readonly size: number, private readonly maxBuffered: number) {}

  get isEmpty(): boolean {
    return this.buffered === 0;
  }

  add(row: PendingRow): PendingRow[][] {
    this.lastAdd = performance.now();
    const key = `${row.statement}\u0000${row.groupKey ?? ""}`;
    let group = this.groups.get(key);
    if (group === undefined) this.groups.set(key, group = []);
    group.push(row);
    this.buffered++;
    const ready: PendingRow[][] = [];
    if (group.length >= this.size) {
      this.groups.delete(key);
      this.buffered -= group.length;
      ready.push(group);
    }
    if (this.buffered > this.maxBuffered) {
      // Rows of scattered partitions would wait forever for company: the biggest groups go.
      const bySize = [...this.groups.entries()].sort((a, b) => b[1].length - a[1].length);
      for (const [groupKey, rows] of bySize) {
        if (this.buffered <= this.maxBuffered / 2) break;
        this.groups.delete(groupKey);
        this.buffered -= rows.length;
        ready.push(rows);
      }
    }
    return ready;
  }

  takeAll(): PendingRow[][] {
    const all = [...this.groups.values()];
    this.groups.clear();
    this.buffered = 0;
    return all;
  }
}

/** Largest number of records waiting behind an unsettled one, per source. */
function backlogLimit(settings: LoadSettings): number {
  const batch = settings.batch?.size ?? 1;
  return Math.max(1024, Math.min(200_000, settings.maxConcurrency * batch * 8));
}

export async function runLoad(
  inputs: LoadInput[],
  planFor: PlanForSource,
  target: LoadTarget,
  settings: LoadSettings,
): Promise<LoadSummary> {
  const started = performance.now();
  const idempotent = settings.idempotent ?? true;
  const maxRetries = settings.maxRetries ?? 3;
  const retryBaseMs = settings.retryBaseMs ?? 100;
  const window = new AdaptiveConcurrency(
    settings.maxConcurrency,
    settings.initialConcurrency ?? 32,
    settings.adaptive ?? true,
  );
  const rate = settings.rate !== undefined ? new RateLimiter(settings.rate) : null;
  const batcher = settings.batch && settings.batch.size > 1 && target.batch
    ? new Batcher(
      settings.batch.size,
      Math.max(settings.batch.size * 64, settings.maxConcurrency * settings.batch.size),
    )
    : null;
  const latency = new LatencyHistogram();
  const stop = settings.stop ?? { reason: null };
  const store = settings.checkpoint?.store ?? null;
  const trackers: Array<FileTracker | null> = inputs.map(() => null);
  const progress: LoadProgress = {
    rowsLoaded: 0,
    badRows: 0,
    previouslyLoaded: 0,
    uncertainRows: 0,
    retries: 0,
    bytesRead: 0,
    concurrency: window.limit,
    inFlight: 0,
  };
  let rowsSinceCheckpoint = 0;
  let lastCheckpoint = performance.now();
  let outstanding = 0;
  const idleWaiters: Array<() => void> = [];
  const limit = backlogLimit(settings);

  const noteBad = () => {
    progress.badRows++;
    if (settings.maxErrors !== undefined && progress.badRows >= settings.maxErrors && stop.reason === null) {
      stop.reason = `stopped after ${progress.badRows} bad rows (--max-errors ${settings.maxErrors})`;
    }
  };

  const finishRows = (count: number) => {
    outstanding -= count;
    if (outstanding === 0) { for (const waiter of idleWaiters.splice(0)) waiter(); }
  };

  const settleBad = (row: PendingRow, reason: string, stillSent: boolean) => {
    row.entry.sent = stillSent;
    noteBad();
    row.tracker.settle(row.entry, BAD, { reason });
  };

  /**
   * Sends once a slot is free (and the rate allows). Without waiting to do, it sends at once
   * and returns nothing, which spares the hot path a promise per row.
   */
  const send = (rows: PendingRow[]): Promise<void> | void => {
    if (rate !== null) return rate.take(rows.length).then(() => window.acquire()).then(() => dispatch(rows));
    if (window.tryAcquire()) return dispatch(rows);
    return window.acquire().then(() => dispatch(rows));
  };

  const dispatch = (rows: PendingRow[]): void => {
    if (stop.reason !== null) {
      // Left unsettled: the watermark stays before them and --resume sends them.
      window.release();
      finishRows(rows.length);
      return;
    }
    const tracker = rows[0].tracker;
    if (store !== null) {
      store.recordSent(tracker.index, rows.map((row) => row.entry.offset));
    }
    for (const row of rows) row.entry.sent = true;
    const begin = performance.now();
    const options: WriteOptions = {};
    const token = rows[0].token;
    if (token !== null && (rows.length > 1 || batcher !== null)) options.routingToken = token;
    let request: Promise<void>;
    try {
      request = rows.length === 1
        ? target.execute(rows[0].statement, rows[0].params, options)
        : target.batch!(rows.map((row) => ({ statement: row.statement, params: row.params })), options);
    } catch (error) {
      request = Promise.reject(error);
    }
    request.then(
      () => {
        const elapsed = performance.now() - begin;
        latency.record(elapsed);
        window.release(elapsed);
        if (store !== null) store.recordAcked(tracker.index, rows.map((row) => row.entry.offset));
        for (const row of rows) {
          progress.rowsLoaded++;
          rowsSinceCheckpoint++;
          row.tracker.settle(row.entry, LOADED);
        }
        finishRows(rows.length);
      },
      (error) => {
        window.release();
        handleFailure(rows, error);
      },
    );
  };

  const handleFailure = (rows: PendingRow[], error: unknown) => {
    const kind = classify(error);
    const reason = describeError(error, settings.secrets);
    if (kind === "fatal") {
      stop.reason ??= `cannot write: ${reason}`;
      for (const row of rows) row.entry.sent = false;
      finishRows(rows.length);
      return;
    }
    if (isOverload(error)) window.backOff();
    const attempt = rows[0].attempts;
    const safe = kind === "not-applied" || kind === "unavailable" || (kind === "maybe-applied" && idempotent);
    if (safe && stop.reason !== null) {
      // Stopping: a row that could have been retried is left for --resume to send again.
      if (kind !== "maybe-applied") { for (const row of rows) row.entry.sent = false; }
      finishRows(rows.length);
      return;
    }
    if (safe && attempt < maxRetries) {
      progress.retries++;
      const delay = Math.min(10_000, retryBaseMs * 2 ** attempt) * (0.5 + Math.random() / 2);
      for (const row of rows) row.attempts++;
      // A row being retried counts as outstanding, so the end of the load waits for it.
      setTimeout(() => {
        sendSafely(rows);
      }, delay);
      return;
    }
    if (kind === "unavailable") {
      stop.reason ??= `cannot write: ${reason}`;
      for (const row of rows) row.entry.sent = false;
      finishRows(rows.length);
      return;
    }
    if (rows.length > 1 && kind === "rejected") {
      // One bad row (or the batch's size) fails a whole batch: each row is tried on its own.
      // The rows stay outstanding until their own requests settle.
      for (const row of rows) {
        row.attempts = 0;
        sendSafely([row]);
      }
      return;
    }
    const retried = attempt > 0 ? ` (after ${attempt} ${attempt === 1 ? "retry" : "retries"})` : "";
    const prefix = kind === "rejected"
      ? (codeOf(error) !== null ? "rejected by the server" : "not written")
      : kind === "maybe-applied" && !idempotent
      ? "not retried, as it may have been applied and the write is not idempotent"
      : "not written";
    const stillSent = kind === "maybe-applied";
    for (const row of rows) settleBad(row, `${prefix}${retried}: ${reason}`, stillSent);
    finishRows(rows.length);
  };

  const sendSafely = (rows: PendingRow[]): void => {
    try {
      send(rows)?.catch((failure) => handleFailure(rows, failure));
    } catch (failure) {
      handleFailure(rows, failure);
    }
  };

  const submit = async (row: PendingRow): Promise<void> => {
    for (const group of batcher!.add(row)) await send(group);
  };

  const bytesRead = () => {
    let total = 0;
    for (const [i, input] of inputs.entries()) {
      total += trackers[i] !== null || input.done ? input.source.bytesRead ?? 0 : 0;
    }
    return total;
  };

  const buildCheckpoint = (complete: boolean) => {
    const settings_ = settings.checkpoint!;
    return {
      version: 1 as const,
      job: settings_.job,
      updatedAt: new Date().toISOString(),
      complete,
      files: inputs.map((input, i): FileCheckpoint => {
        const identity = settings_.files[i];
        const tracker = trackers[i];
        if (tracker === null) {
          const untouched = untouchedFileCheckpoint(identity, input.resume, input.start);
          if (settings_.store.journaled) {
            const beyond = (offsets: Set<number> | undefined) =>
              [...(offsets ?? [])].filter((offset) => offset >= untouched.offset).sort((x, y) => x - y);
            untouched.acked = beyond(input.resumeAcked);
            untouched.sent = beyond(input.resumeSent);
          }
          return untouched;
        }
        const file: FileCheckpoint = {
          path: identity.path,
          size: identity.size,
          mtimeMs: identity.mtimeMs,
          offset: tracker.watermark.offset,
          line: tracker.watermark.line,
          done: tracker.settled && stop.reason === null,
          rowsLoaded: tracker.rowsLoaded,
          badRows: tracker.badRows,
          uncertainRows: tracker.uncertainRows,
          badFiles: input.badLog.currentSizes(),
        };
        if (settings_.store.journaled) {
          const beyond = tracker.beyondWatermark();
          // Rows the previous run had sent and that are still ahead of this run's reading.
          for (const offset of input.resumeAcked ?? []) if (offset >= file.offset) beyond.acked.push(offset);
          for (const offset of input.resumeSent ?? []) if (offset >= file.offset) beyond.sent.push(offset);
          const ackedSet = new Set(beyond.acked);
          file.acked = [...ackedSet].sort((a, b) => a - b);
          file.sent = [...new Set(beyond.sent)].filter((offset) => !ackedSet.has(offset)).sort((a, b) => a - b);
        }
        return file;
      }),
    };
  };

  const writeCheckpoint = (complete: boolean) => {
    if (store === null || settings.dryRun) return;
    store.write(buildCheckpoint(complete));
    rowsSinceCheckpoint = 0;
    lastCheckpoint = performance.now();
  };

  const report = () => {
    progress.bytesRead = bytesRead();
    progress.concurrency = window.limit;
    progress.inFlight = window.inFlight;
    settings.onProgress?.(progress);
  };

  const ticker = setInterval(() => {
    if (batcher !== null && !batcher.isEmpty && performance.now() - batcher.lastAdd > 100 && stop.reason === null) {
      for (const group of batcher.takeAll()) sendSafely(group);
    }
    store?.flushAcks();
    const checkpointEvery = settings.checkpoint;
    if (
      checkpointEvery !== undefined &&
      (performance.now() - lastCheckpoint >= checkpointEvery.everyMs ||
        rowsSinceCheckpoint >= checkpointEvery.everyRows)
    ) {
      writeCheckpoint(false);
    }
    report();
  }, Math.min(settings.progressEveryMs ?? 250, 250));

  // A checkpoint exists before the first row is sent: a journal without one would be
  // ignored by --resume, and its rows applied a second time.
  writeCheckpoint(false);

  let failure: { error: unknown } | null = null;
  try {
    for (const [index, input] of inputs.entries()) {
      if (stop.reason !== null) break;
      if (input.done) {
        progress.previouslyLoaded += input.resume?.rowsLoaded ?? 0;
        continue;
      }
      const start = input.start ?? { offset: 0, line: 1 };
      const tracker = new FileTracker(index, input.badLog, start, input.resume);
      progress.previouslyLoaded += tracker.rowsLoaded;
      trackers[index] = tracker;
      const headerMode = input.header !== undefined ? input.header : (settings.hasHeader ? "record" : null);
      let plan: LoadPlan | null = headerMode === "record" ? null : planFor(headerMode, input.source);
      const acked = input.resumeAcked;
      const sent = input.resumeSent;
      for await (const record of input.source.records(start, input.stopAfter)) {
        if (stop.reason !== null) break;
        if ((record as { header?: boolean }).header) {
          // A header that cannot be parsed cannot be mapped either, so it ends this source.
          if (record.malformed !== undefined) {
            const entry = tracker.add(record);
            noteBad();
            tracker.settle(entry, BAD, { reason: `header: ${record.malformed}` });
            break;
          }
          plan = planFor(record.fields.map((field) => field.text), input.source);
          input.badLog.setHeader(record.raw);
          continue;
        }
        if (plan === null) plan = planFor(null, input.source);
        if (tracker.backlog >= limit) await tracker.belowBacklog(limit);
        const entry = tracker.add(record);
        const offset = entry.offset;
        if (acked !== undefined && acked.has(offset)) {
          progress.previouslyLoaded++;
          tracker.settle(entry, PREVIOUSLY_LOADED);
          continue;
        }
        if (sent !== undefined && sent.has(offset)) {
          entry.sent = true;
          tracker.settle(entry, UNCERTAIN, {
            reason: "sent before the interruption but never acknowledged: it may or may not have been applied, " +
              "and the write is not idempotent, so it was not sent again (check it, then load it on its own if needed)",
          });
          progress.uncertainRows++;
          continue;
        }
        const converted = plan.converter.convert(record);
        if (!converted.ok) {
          noteBad();
          tracker.settle(entry, BAD, converted.problem);
          continue;
        }
        if (settings.dryRun) {
          progress.rowsLoaded++;
          tracker.settle(entry, LOADED);
          continue;
        }
        const values = converted.values;
        // Single rows are routed by the driver; tokens matter only for grouping batches.
        const token = batcher !== null && plan.tokens ? plan.tokens.tokenOf(values) : null;
        let groupKey: string | null = null;
        if (batcher !== null) {
          const replicas = settings.batch?.by === "replica" ? settings.batch.replicas : null;
          groupKey = replicas && token !== null
            ? replicas.replicaKey(token)
            : partitionKeyText(values, plan.partitionKeyPositions ?? []);
        }
        const row: PendingRow = {
          tracker,
          entry,
          statement: plan.statement,
          params: plan.toParams ? plan.toParams(values) : values,
          token,
          groupKey,
          attempts: 0,
        };
        outstanding++;
        const waiting = batcher === null ? send([row]) : submit(row);
        if (waiting !== undefined) await waiting;
      }
      if (stop.reason === null) tracker.readingDone = true;
    }
    if (batcher !== null && stop.reason === null) {
      for (const group of batcher.takeAll()) await send(group);
    }
  } catch (error) {
    failure = { error };
    stop.reason ??= `failed: ${describeError(error, settings.secrets)}`;
  }
  if (batcher !== null && stop.reason !== null) {
    // Batched rows not sent stay before the watermark's next move: --resume loads them.
    for (const group of batcher.takeAll()) finishRows(group.length);
  }
  // Requests in flight and retries are settled even when the load itself failed.
  while (outstanding > 0) await new Promise<void>((resolve) => idleWaiters.push(resolve));
  await window.drain();
  clearInterval(ticker);
  const allSettled = trackers.every((tracker, i) => inputs[i].done || (tracker !== null && tracker.settled));
  await finishLoad(
    inputs.map(({ badLog }) => badLog),
    () => stop.reason === null && allSettled,
    writeCheckpoint,
    store,
    report,
    failure,
  );
  return loadSummary(progress, started, {
    latencyMs: {
      p50: latency.quantile(0.5),
      p99: latency.quantile(0.99),
      mean: latency.mean,
      max: latency.max,
    },
    peakConcurrency: window.peak,
    abortedBecause: stop.reason,
    badFiles: inputs.filter(({ badLog }) => badLog.count > 0 || badLog.uncertainCount > 0).map((
      { source, badLog },
    ) => ({
      source: source.name,
      badRows: badLog.count,
      badFile: badLog.badPath,
      errorLog: badLog.logPath,
      ...(badLog.uncertainCount > 0 ? { uncertainFile: badLog.uncertainPath } : {}),
    })),
    checkpointFile: store !== null && !settings.dryRun ? store.path : null,
  });
}
