// The load loop of the fast path: raw input bytes go to the WASM core's bulk loader
// (`client.bulkLoad`), which parses, converts, routes, retries and acknowledges rows there, with
// no JS object per row. JS only pushes chunks, writes bad rows and checkpoints.
//
// Guarantees kept from the JS path (loader.ts):
// - Bad rows reach the bad file in input order once the watermark has passed them. The core
//   reports a bad row as soon as it knows it, possibly ahead of its watermark, so rows wait
//   here until the watermark (the input offset below which every row is acknowledged or bad)
//   is past them.
// - A checkpoint is exact: its watermark, row count and bad-file sizes describe the same
//   moment. The core's counters include rows acknowledged beyond the watermark, so a
//   checkpoint is taken only when nothing is in flight: before pushing the next chunk, the
//   feed stops pushing until the rows in flight have settled (a few milliseconds every
//   --checkpoint-interval), then records the state and goes on.
// - An interruption stops pushing, lets the rows in flight settle, checkpoints and stops.
//   Bytes already pushed are not cut short (the core would take a cut record for a whole one),
//   so the feed ends by throwing instead of closing the input.
// - Bad rows are described in the JS path's words: a row the core refused is parsed and
//   converted again in JS (only bad rows, so the cost does not matter) to find the field,
//   column, type, value and reason.
// - The core path accepts what the JS path accepts: a row the core's reader refuses but the
//   JS converter takes (the JS conversions are more lenient in places, e.g. `HH:MM` times) is
//   written on its own through the driver with the JS values, and is settled before a
//   checkpoint can pass it.

import type { CellTimeFields } from "../cell_times.ts";
import type { BadRowRecord, BulkConversionOptions, BulkCounters, BulkLoadOptions, BulkState } from "../../driver/deno.ts";
import { describeError, SERVER_ERROR_NAMES } from "../errors.ts";
import type { BadRowLog } from "./bad_rows.ts";
import { type FileCheckpoint, untouchedFileCheckpoint } from "./checkpoint.ts";
import { type CsvFormat, CsvParser } from "./csv_parser.ts";
import { JsonlFileSource, type ReadStart, type SourceRecord } from "./csv_source.ts";
import { openCoreInput, type PositionMap } from "./core_input.ts";
import type { InputFile, InputReader } from "./input.ts";
import {
  type CheckpointSettings,
  finishLoad,
  loadSummary,
  type LoadProgress,
  type LoadSummary,
  type Params,
  writeWithRetries,
} from "./loader.ts";
import { type RowConverter, type RowProblem, truncateForLog } from "./row_converter.ts";
import type { FieldBinding } from "./table.ts";

/** What one input is written with, once its header (if any) is known. */
export interface CorePlan {
  statement: string;
  /** `field=column,...` for the core (fields by 0-based index for CSV); undefined: by name or position. */
  mapping?: string;
  /** Column → CQL text, the same on every row (--set). */
  constants: Record<string, string>;
  /** The JS path's converter, for the rows the core refuses: to describe them, or to write them. */
  converter: RowConverter;
  /** Converted values to the statement's parameters (default: the values as they are). */
  toParams?: (values: unknown[]) => Params;
  bindings: FieldBinding[];
  /** Per-cell write time and TTL fields (CSV positions); the statement ends USING TIMESTAMP ? AND TTL ?. */
  cellTimes?: CellTimeFields[];
}

export type CorePlanFor = (header: string[] | null, format: "csv" | "jsonl") => CorePlan;

export interface CoreLoadInput {
  input: InputFile;
  format: "csv" | "jsonl";
  badLog: BadRowLog;
  /** Where reading starts (a checkpoint's watermark, or a --split range start). */
  start?: ReadStart;
  /** --split by byte range: records starting after this offset belong to the next process. */
  stopAfter?: number;
  resume?: FileCheckpoint;
  done?: boolean;
  /** JSON Lines: the field names members are matched by (to describe bad rows). */
  jsonFieldNames?: string[];
}

export type BulkLoadFunction = (input: AsyncIterable<Uint8Array>, options: BulkLoadOptions) => Promise<BulkState>;

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
  maxErrors?: number;
  maxRetries?: number;
  consistency?: number;
  secrets?: readonly string[];
  checkpoint?: CheckpointSettings;
  onProgress?: (progress: LoadProgress) => void;
  progressEveryMs?: number;
  stop?: { reason: string | null };
  /** Longest wait for the rows in flight to settle before a periodic checkpoint (default 2000 ms). */
  drainLimitMs?: number;
  /** Writes one row of the statement with JS values (a row only the JS converter accepts). */
  writeRow: (statement: string, params: Params) => Promise<void>;
  /** First backoff delay of those writes' retries (default 100 ms). */
  retryBaseMs?: number;
  /** Rows per second at most (--rate). */
  rate?: number;
  /** Rows per request, grouped by replicas or partition (--batch-size, --batch-by). */
  batch?: { size: number; by: "partition" | "replica" };
}

/** The JS path's boolean spellings, so that both paths accept the same input. */
const TRUE_WORDS = ["true", "yes", "y", "1", "t"];
const FALSE_WORDS = ["false", "no", "n", "0", "f"];

/** Server errors that no row of this load could get past (as on the JS path). */
const FATAL_SERVER_CODES = new Set([0x0100, 0x2100, 0x000A, 0x2300]);


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

/**
 * --rate on the core path: input is pushed in pieces of a twentieth of a second's rows, each
 * only once its share of time has passed. Rows are counted as line ends, which are never
 * fewer than the records (quoted fields may hold line breaks), so the rate is never exceeded.
 */
/** The pacer's view of time: the real clock, or a simulated one in tests. */
export interface PacerClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const REAL_CLOCK: PacerClock = { now: () => performance.now(), sleep };

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

export type Examined = { record: SourceRecord; problem: RowProblem } | { record: SourceRecord; params: Params };

/** A bad row of the core waiting for the watermark; or a row being written on its own. */
interface PendingRow {
  offset: number;
  record: SourceRecord;
  problem: RowProblem | null;
  state: "bad" | "writing" | "loaded";
}

/** Turns the core's bad rows into the JS path's records and problems. */
export class BadRowDescriber {
  private readonly decoder = new TextDecoder();
  private readonly jsonl: JsonlFileSource | null;

  constructor(
    private readonly source: string,
    private readonly format: "csv" | "jsonl",
    private readonly csv: CsvFormat,
    private readonly plan: CorePlan,
    private readonly positions: PositionMap,
    jsonFieldNames: string[] | undefined,
    private readonly secrets: readonly string[] = [],
  ) {
    if (format === "jsonl") {
      this.jsonl = new JsonlFileSource(source);
      this.jsonl.setFieldNames(jsonFieldNames ?? plan.bindings.map((binding) => binding.fieldName));
    } else {
      this.jsonl = null;
    }
  }

  /**
   * What to do with a row the core refused: its record and problem in the JS path's words,
   * or, when the JS converter accepts it, the parameters to write it with.
   */
  examine(row: BadRowRecord): Examined {
    const offset = this.positions.fileOffset(row.offset);
    const line = this.positions.fileLine(row.line);
    const raw = this.decoder.decode(row.raw);
    const plain: SourceRecord = { source: this.source, line, raw, bytes: row.raw, fields: [], offset };
    const reparse = (): SourceRecord => {
      const parsed = this.reparse(row.raw, raw, offset, line);
      return parsed === null ? plain : { ...parsed, bytes: row.raw };
    };
    const rejection = describeRejection(row, this.secrets);
    if (rejection !== null) {
      // The JS path would not have sent a row its converter refuses: that is the reason then.
      const record = reparse();
      const converted = this.plan.converter.convert(record);
      return { record, problem: converted.ok ? { reason: rejection.reason } : converted.problem };
    }
    if (row.kind === "size" || row.kind === "encoding") {
      // The core's verdict on the record as a whole: a JS parse of its (possibly cut, or
      // lossily decoded) bytes cannot restate it.
      return { record: plain, problem: this.problemFromCore(row, null) };
    }
    const record = reparse();
    const converted = this.plan.converter.convert(record);
    if (!converted.ok) return { record, problem: converted.problem };
    const params = this.plan.toParams ? this.plan.toParams(converted.values) : converted.values;
    return { record, params };
  }

  private reparse(bytes: Uint8Array, raw: string, offset: number, line: number): SourceRecord | null {
    if (this.jsonl !== null) {
      return this.jsonl.recordOf({ offset, end: offset + bytes.length, line, nextLine: line + 1, raw });
    }
    const parser = new CsvParser(this.csv, offset, line);
    parser.push(bytes);
    parser.finish();
    const [first] = parser.drain();
    return first === undefined ? null : { source: this.source, ...first };
  }

  private problemFromCore(row: BadRowRecord, record: SourceRecord | null): RowProblem {
    const { column, reason } = row;
    if (column !== null) {
      const binding = this.plan.bindings.find((candidate) => candidate.column.name === column);
      if (binding !== undefined) {
        const prefix = `column ${column}: `;
        const field = record?.fields[binding.fieldIndex];
        return {
          field: binding.fieldIndex + 1,
          column,
          type: binding.column.typeText,
          ...(field !== undefined && !field.missing ? { value: truncateForLog(field.text) } : {}),
          reason: reason.startsWith(prefix) ? reason.slice(prefix.length) : reason,
        };
      }
      if (!reason.includes(column)) return { reason: `${column}: ${reason}` };
    }
    if (row.field !== null) return { field: row.field + 1, reason };
    return { reason };
  }
}

function drained(state: BulkCounters | null): boolean {
  return state !== null && state.inFlight === 0 && state.waitingRetry === 0;
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
  const checkpointing = settings.checkpoint;
  const store = checkpointing?.store ?? null;
  const drainLimitMs = settings.drainLimitMs ?? 2000;
  const progressEveryMs = settings.progressEveryMs ?? 250;
  /** Per input, its last exact state: what a checkpoint says about it. */
  const snapshots: Array<FileCheckpoint | null> = inputs.map(() => null);
  const readers: Array<InputReader | null> = inputs.map(() => null);
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

  const untouched = (i: number): FileCheckpoint =>
    untouchedFileCheckpoint(identityOf(i), inputs[i].resume, inputs[i].start);

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
    if (settings.maxErrors !== undefined && progress.badRows >= settings.maxErrors && stop.reason === null) {
      stop.reason = `stopped after ${progress.badRows} bad rows (--max-errors ${settings.maxErrors})`;
    }
  };

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
    const opened = await openCoreInput(item.input, start, withHeader ? settings.csv : null);
    readers[index] = opened.reader;
    const positions = opened.positions;
    const source = item.input.path;

    let plan: CorePlan;
    if (withHeader) {
      const header = opened.header;
      if (header === null || header.malformed !== undefined) {
        await opened.close();
        if (header !== null) {
          // A header that cannot be parsed cannot be mapped either: the rest of the input is this one bad row.
          item.badLog.record({ source, line: header.line, raw: header.raw, fields: [] }, {
            reason: `header: ${header.malformed}`,
          });
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
      plan = planFor(header.fields.map((field) => field.text), item.format);
    } else {
      plan = planFor(null, item.format);
    }
    snapshots[index] = { ...base, badFiles: item.badLog.currentSizes() };

    const describer = new BadRowDescriber(
      source === "-" ? "-" : source,
      item.format,
      settings.csv,
      plan,
      positions,
      item.jsonFieldNames,
      secrets,
    );
    const okBefore = progress.rowsLoaded;
    const retriesBefore = progress.retries;
    /** Offsets are the core's, ordered as the input once sorted. */
    const pending: PendingRow[] = [];
    const writes = new Set<Promise<void>>();
    let written = 0;
    let writtenAlone = 0;
    let last: BulkCounters | null = null;
    let lastSampleAt = performance.now();

    const settled = () => drained(last) && writes.size === 0;

    const exactSnapshot = (state: BulkCounters): FileCheckpoint => ({
      ...base,
      offset: positions.fileOffset(state.watermark),
      line: positions.fileLine(state.watermarkLine),
      done: false,
      rowsLoaded: base.rowsLoaded + state.rowsOk + writtenAlone,
      badRows: base.badRows + written,
      badFiles: item.badLog.currentSizes(),
    });

    /** Writes the bad rows below the watermark in input order, up to the first still being written. */
    const flush = (watermark: number) => {
      if (pending.length === 0) return;
      pending.sort((a, b) => a.offset - b.offset);
      let done = 0;
      for (const row of pending) {
        if (row.offset >= watermark || row.state === "writing") break;
        if (row.state === "bad") {
          item.badLog.record(row.record, row.problem!);
          written++;
        }
        done++;
      }
      pending.splice(0, done);
    };

    const updateRows = () => {
      progress.rowsLoaded = okBefore + (last?.rowsOk ?? 0) + writtenAlone;
    };

    /** A row only the JS converter accepts, written on its own with the JS values. */
    const writeAlone = (row: PendingRow, params: Params) => {
      const write = writeWithRetries(() => settings.writeRow(plan.statement, params), {
        maxRetries: settings.maxRetries ?? 3,
        retryBaseMs: settings.retryBaseMs,
        secrets,
      }).then((outcome) => {
        if (outcome.ok) {
          row.state = "loaded";
          writtenAlone++;
          updateRows();
        } else if (outcome.fatal) {
          fatal = true;
          stop.reason ??= outcome.reason;
          row.state = "loaded";
        } else {
          row.state = "bad";
          row.problem = { reason: outcome.reason };
          noteBad();
        }
      }).finally(() => writes.delete(write));
      writes.add(write);
    };

    const onBadRow = (row: BadRowRecord) => {
      const rejection = describeRejection(row, secrets);
      if (rejection?.fatal) {
        // Not a bad row: the load cannot go on, and --resume sends the row again.
        fatal = true;
        stop.reason ??= rejection.reason;
        return;
      }
      const examined = describer.examine(row);
      if ("params" in examined && settings.dryRun) {
        // Valid by the JS converter's rules, and a dry run writes nothing.
        pending.push({ offset: row.offset, record: examined.record, problem: null, state: "loaded" });
        writtenAlone++;
        updateRows();
        return;
      }
      if ("params" in examined) {
        const alone: PendingRow = { offset: row.offset, record: examined.record, problem: null, state: "writing" };
        pending.push(alone);
        writeAlone(alone, examined.params);
        return;
      }
      pending.push({ offset: row.offset, record: examined.record, problem: examined.problem, state: "bad" });
      noteBad();
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
    const remainingErrors = settings.maxErrors === undefined ? undefined : settings.maxErrors - progress.badRows;
    const options: BulkLoadOptions = {
      query: plan.statement,
      format: item.format,
      nullValues: settings.nullValues,
      trueWords: TRUE_WORDS,
      falseWords: FALSE_WORDS,
      epochUnit: "ms",
      conversion: settings.conversion,
      constants: plan.constants,
      maxConcurrency: settings.maxConcurrency,
      initialConcurrency: Math.min(settings.initialConcurrency ?? 32, settings.maxConcurrency),
      idempotent: true,
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
    if (plan.cellTimes !== undefined) options.cellTimes = plan.cellTimes;
    // The core stops once more than maxErrors rows were bad: at the one that reaches the limit.
    if (remainingErrors !== undefined) options.maxErrors = Math.max(0, remainingErrors - 1);
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
    await Promise.allSettled([...writes]);
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
    () => stop.reason === null && failure === null && snapshots.every((snapshot, i) => inputs[i].done || snapshot?.done === true),
    writeCheckpoint,
    store,
    report,
    failure,
  );
  return loadSummary(progress, started, {
    latencyMs: {
      p50: null,
      p99: null,
      mean: progress.rowsLoaded > 0 ? inFlightArea / progress.rowsLoaded : null,
      max: null,
    },
    peakConcurrency,
    abortedBecause: stop.reason,
    badFiles: inputs.filter(({ badLog }) => badLog.count > 0).map(({ input, badLog }) => ({
      source: input.path,
      badRows: badLog.count,
      badFile: badLog.badPath,
      errorLog: badLog.logPath,
    })),
    checkpointFile: store !== null ? store.path : null,
  });
}
