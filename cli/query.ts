// `cqlwire query`: runs statements one after another, fetches every page of each result
// (up to --max-rows) and prints it as a table, JSON, JSON Lines or CSV. Every value is formatted by the
// core (`client.streamCells`, `streamJson`, `streamCsv`); this file only lays pages out.

import type { BaseClient as Client } from "../driver/mod.ts";
import { formatTable } from "./format.ts";
import type { TextSink } from "./output.ts";

export type OutputFormat = "table" | "json" | "jsonl" | "csv";

export type Row = Record<string, unknown>;

/** The part of the driver's Client this command uses. */
export type QueryExecutor = Pick<Client, "execute" | "streamCells" | "streamJson" | "streamCsv">;

export interface QuerySettings {
  format: OutputFormat;
  pageSize: number;
  maxRows?: number;
  consistency?: number;
  trace: boolean;
  /** The zone timestamps are printed in (`--time-zone`); unset is UTC. */
  timeZone?: string;
}

export interface StatementOutcome {
  rowCount: number;
  hadResult: boolean;
  traceId: string | null;
  warnings: string[];
}

/** One formatted page: its rows as text ready to print, or the cells of a table. */
interface TextPage {
  columns: string[] | null;
  rows: number;
  text: string;
  cells: Array<Array<string | null>>;
  info: { traceId: string | null; warnings: string[] };
}

/** The statement's pages in the chosen format; `columns` is null when it has no result set. */
async function* textPages(executor: QueryExecutor, statement: string, settings: QuerySettings): AsyncGenerator<TextPage> {
  const options = {
    pageSize: settings.pageSize,
    maxRows: settings.maxRows,
    consistency: settings.consistency,
    traceQuery: settings.trace || undefined,
    timeZone: settings.timeZone,
  };
  const decoder = new TextDecoder();
  switch (settings.format) {
    case "table":
      for await (const page of executor.streamCells(statement, null, options)) {
        yield { columns: page.columns.length ? page.columns : null, rows: page.rows, text: "", cells: page.cells, info: page.info };
      }
      return;
    case "json":
    case "jsonl":
      for await (const page of executor.streamJson(statement, null, options)) {
        yield { columns: page.columns.length ? page.columns : null, rows: page.rows, text: decoder.decode(page.json), cells: [], info: page.info };
      }
      return;
    case "csv":
      for await (const page of executor.streamCsv(statement, null, { ...options, conversion: { timeZone: settings.timeZone }, header: true })) {
        const columns = page.header.length ? [] : null;
        yield { columns, rows: page.rows, text: decoder.decode(page.csv), cells: [], info: page.info };
      }
      return;
  }
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
  let columns: string[] = [];
  const tableRows: Array<Array<string | null>> = [];
  for await (const page of textPages(executor, statement, settings)) {
    outcome.warnings.push(...page.info.warnings);
    if (!outcome.hadResult && outcome.traceId === null) outcome.traceId = page.info.traceId;
    if (page.columns === null) return outcome;
    if (!outcome.hadResult) {
      outcome.hadResult = true;
      columns = page.columns;
      if (settings.format === "table" && !isFirstResult) await out.write("\n");
    }
    if (settings.format === "table") {
      // Column widths depend on every row, so the table is laid out at the end.
      for (const row of page.cells) tableRows.push(row);
    } else if (settings.format === "json") {
      // JSON Lines from the core (as unload writes them), joined into one array: one write per page.
      if (page.rows > 0) {
        await out.write(`${outcome.rowCount === 0 ? "[\n" : ",\n"}${page.text.slice(0, -1).replaceAll("\n", ",\n")}`);
      }
    } else {
      await out.write(page.text);
    }
    outcome.rowCount += page.rows;
  }
  if (!outcome.hadResult) return outcome;
  if (settings.format === "table") await out.write(formatTable(columns, tableRows));
  if (settings.format === "json") await out.write(outcome.rowCount === 0 ? "[]\n" : "\n]\n");
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
  for (let attempt = 0; events.cells.length === 0 && attempt < TRACE_POLL_ATTEMPTS / 2; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, TRACE_POLL_INTERVAL_MS));
    events = await readTraceEvents(executor, traceId);
  }
  await out.write(formatTable(events.columns, events.cells).replace(/\(\d+ rows\)\n$/, ""));
  if (session !== null) {
    await out.write(
      `Request: ${session.request ?? "?"}; coordinator ${session.coordinator ?? "?"}; ` +
        `duration ${session.duration ?? "unknown"} µs\n`,
    );
  } else {
    await out.write("The trace session was not found in system_traces.sessions (yet).\n");
  }
}

/** The trace's events as the core formats their cells (event_id is left out). */
async function readTraceEvents(executor: QueryExecutor, traceId: string) {
  const columns: string[] = [];
  const cells: Array<Array<string | null>> = [];
  for await (
    const page of executor.streamCells(
      "SELECT activity, source, source_elapsed, thread FROM system_traces.events WHERE session_id = ?",
      [traceId],
      { prepare: true, pageSize: 5000 },
    )
  ) {
    if (columns.length === 0) columns.push(...page.columns);
    cells.push(...page.cells);
  }
  return { columns, cells };
}
