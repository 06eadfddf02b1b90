// `cqlwire query`: runs statements one after another, fetches every page of each result
// (up to --max-rows) and prints it as a table, JSON or CSV.

import { parseCqlType } from "./cql_type.ts";
import { formatCsvHeader, formatCsvRow, formatJsonRow, formatTable, type ResultColumn } from "./format.ts";
import type { TextSink } from "./output.ts";

export type OutputFormat = "table" | "json" | "csv";

export type Row = Record<string, unknown>;

/** The part of the driver's Client this command uses. */
export interface QueryExecutor {
  execute(
    query: string,
    params?: unknown[],
    options?: { pageSize?: number; pageState?: string; consistency?: number; traceQuery?: boolean; prepare?: boolean },
  ): Promise<{
    rows: Row[];
    columns: Array<{ name: string; type: string }>;
    pageState: string | null;
    info: { warnings: string[]; traceId: string | null };
  }>;
}

export interface QuerySettings {
  format: OutputFormat;
  pageSize: number;
  maxRows?: number;
  consistency?: number;
  trace: boolean;
}

export function resultColumns(columns: Array<{ name: string; type: string }>): ResultColumn[] {
  return columns.map((column) => {
    let type = null;
    try {
      type = parseCqlType(column.type);
    } catch {
      // An unparseable type still prints, by the value's JS shape.
    }
    return { name: column.name, type };
  });
}

interface ResultWriter {
  begin(columns: ResultColumn[]): Promise<void>;
  rows(rows: Row[]): Promise<void>;
  end(): Promise<void>;
}

class TableWriter implements ResultWriter {
  private columns: ResultColumn[] = [];
  private collected: Row[] = [];
  constructor(private readonly out: TextSink) {}
  begin(columns: ResultColumn[]): Promise<void> {
    this.columns = columns;
    return Promise.resolve();
  }
  rows(rows: Row[]): Promise<void> {
    // Column widths depend on every row, so the table is laid out at the end.
    for (const row of rows) this.collected.push(row);
    return Promise.resolve();
  }
  async end(): Promise<void> {
    await this.out.write(formatTable(this.columns, this.collected));
  }
}

class JsonWriter implements ResultWriter {
  private columns: ResultColumn[] = [];
  private count = 0;
  constructor(private readonly out: TextSink) {}
  begin(columns: ResultColumn[]): Promise<void> {
    this.columns = columns;
    return Promise.resolve();
  }
  async rows(rows: Row[]): Promise<void> {
    for (const row of rows) {
      await this.out.write(`${this.count === 0 ? "[\n" : ",\n"}${formatJsonRow(row, this.columns)}`);
      this.count++;
    }
  }
  async end(): Promise<void> {
    await this.out.write(this.count === 0 ? "[]\n" : "\n]\n");
  }
}

class CsvWriter implements ResultWriter {
  private columns: ResultColumn[] = [];
  constructor(private readonly out: TextSink) {}
  async begin(columns: ResultColumn[]): Promise<void> {
    this.columns = columns;
    await this.out.write(formatCsvHeader(columns));
  }
  async rows(rows: Row[]): Promise<void> {
    for (const row of rows) await this.out.write(formatCsvRow(row, this.columns));
  }
  end(): Promise<void> {
    return Promise.resolve();
  }
}

function writerFor(format: OutputFormat, out: TextSink): ResultWriter {
  switch (format) {
    case "table":
      return new TableWriter(out);
    case "json":
      return new JsonWriter(out);
    case "csv":
      return new CsvWriter(out);
  }
}

export interface StatementOutcome {
  rowCount: number;
  hadResult: boolean;
  traceId: string | null;
  warnings: string[];
}

/** Runs one statement, fetching pages until the result or --max-rows ends. */
export async function runStatement(
  executor: QueryExecutor,
  statement: string,
  settings: QuerySettings,
  out: TextSink,
  isFirstResult: boolean,
): Promise<StatementOutcome> {
  const outcome: StatementOutcome = { rowCount: 0, hadResult: false, traceId: null, warnings: [] };
  let writer: ResultWriter | null = null;
  let pageState: string | null = null;
  let firstPage = true;
  do {
    const options: Parameters<QueryExecutor["execute"]>[2] = { pageSize: settings.pageSize };
    if (pageState !== null) options.pageState = pageState;
    if (settings.consistency !== undefined) options.consistency = settings.consistency;
    if (settings.trace && firstPage) options.traceQuery = true;
    const result = await executor.execute(statement, undefined, options);
    outcome.warnings.push(...result.info.warnings);
    if (firstPage) {
      outcome.traceId = result.info.traceId;
      firstPage = false;
      if (result.columns.length === 0) return outcome;
      outcome.hadResult = true;
      if (settings.format === "table" && !isFirstResult) await out.write("\n");
      writer = writerFor(settings.format, out);
      await writer.begin(resultColumns(result.columns));
    }
    const room = settings.maxRows === undefined ? result.rows.length : settings.maxRows - outcome.rowCount;
    const rows = room < result.rows.length ? result.rows.slice(0, room) : result.rows;
    await writer!.rows(rows);
    outcome.rowCount += rows.length;
    pageState = result.pageState;
  } while (pageState !== null && (settings.maxRows === undefined || outcome.rowCount < settings.maxRows));
  await writer!.end();
  return outcome;
}

const TRACE_POLL_ATTEMPTS = 20;
const TRACE_POLL_INTERVAL_MS = 100;

/**
 * The trace session is written asynchronously by the server; it is complete once its
 * duration is set, so poll for that briefly before reading the events.
 */
export async function printTrace(executor: QueryExecutor, traceId: string, out: TextSink): Promise<void> {
  await out.write(`\nTracing session: ${traceId}\n\n`);
  let session: Row | null = null;
  for (let attempt = 0; attempt < TRACE_POLL_ATTEMPTS; attempt++) {
    const result = await executor.execute(
      "SELECT coordinator, duration, request, started_at FROM system_traces.sessions WHERE session_id = ?",
      [traceId],
      { prepare: true },
    );
    session = result.rows[0] ?? null;
    if (session !== null && session.duration !== null && session.duration !== undefined) break;
    await new Promise((resolve) => setTimeout(resolve, TRACE_POLL_INTERVAL_MS));
  }
  // Events can trail the session row, so an empty list is read again a few times.
  let events = await readTraceEvents(executor, traceId);
  for (let attempt = 0; events.rows.length === 0 && attempt < TRACE_POLL_ATTEMPTS / 2; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, TRACE_POLL_INTERVAL_MS));
    events = await readTraceEvents(executor, traceId);
  }
  const columns = resultColumns(events.columns.filter((column) => column.name !== "event_id"));
  await out.write(formatTable(columns, events.rows).replace(/\(\d+ rows\)\n$/, ""));
  if (session !== null) {
    await out.write(
      `Request: ${session.request ?? "?"}; coordinator ${session.coordinator ?? "?"}; ` +
        `duration ${session.duration ?? "unknown"} µs\n`,
    );
  } else {
    await out.write("The trace session was not found in system_traces.sessions (yet).\n");
  }
}

function readTraceEvents(executor: QueryExecutor, traceId: string) {
  return executor.execute(
    "SELECT activity, event_id, source, source_elapsed, thread FROM system_traces.events WHERE session_id = ?",
    [traceId],
    { prepare: true, pageSize: 5000 },
  );
}
