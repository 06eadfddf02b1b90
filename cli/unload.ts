// `cqlwire unload`: a table, by parallel token-range scans, or a query's rows, written as
// CSV (RFC 4180, values in the form `load` reads back exactly) or JSON Lines, to stdout, a
// file, or a directory with one file per group of ranges.

import type { Command } from "commander";
import { consistencyCode, type Context, contextOf, type DriverClient, onInterrupt, withClient } from "./context.ts";
import { CliFailure, describeError, EXIT_FAILURE, EXIT_OK, UsageError } from "./errors.ts";
import { compressionOfName } from "./compression.ts";
import { conversionSettings } from "./conversion_options.ts";
import type { TextSink } from "./output.ts";
import { join } from "./paths.ts";
import { type CsvCharacters, FileSink, openFileSink, PartedSink } from "./unload_files.ts";
import { ProgressDisplay } from "./progress.ts";
import {
  forEachConcurrently,
  isTransientReadError,
  rangeCondition,
  type ScanRange,
  scanRangesOf,
  tokenExpression,
} from "./ranges.ts";
import { formatOfName } from "./load/input.ts";
import { readTableSchema } from "./load/schema.ts";
import { parseTableName, quoteIdentifier } from "./load/table.ts";
import { cellTimeSelection } from "./cell_times.ts";
import { resolveConnection } from "./settings.ts";
import { sleep } from "./timing.ts";
import { DEFAULT_PAGE_SIZE, UNLOAD_DEFAULT_CONCURRENCY } from "./defaults.ts";

const READ_ATTEMPTS = 4;

interface UnloadFlags {
  table?: string;
  query?: string;
  columns?: string;
  format?: "csv" | "jsonl";
  out?: string;
  /** DSBulk's -url: the same as --out. */
  url?: string;
  header?: boolean;
  pageSize?: number;
  maxConcurrency?: number;
  consistency?: string;
  quiet?: boolean;
  withWritetime?: boolean;
  withTtl?: boolean;
  overwrite?: boolean;
  maxRowsPerFile?: number;
  delimiter?: string;
  quote?: string;
  escape?: string;
  nullValue?: string;
  collectionFormat?: "cql" | "json";
}

/** CSV settings for the core's formatter (`client.streamCsv`); JSON Lines has none. */
type CsvSettings = NonNullable<Parameters<DriverClient["streamCsv"]>[2]>;

interface Destination {
  /** The sink that a group of ranges writes to. */
  sinkFor(group: number): Promise<TextSink | PartedSink>;
  groups: number;
  /** Flushes and puts every file in place; after a failure, discard() instead. */
  close(): Promise<void>;
  discard(): Promise<void>;
  /** Whether writing can stop (a closed pipe). */
  closed(): boolean;
}

async function isDirectoryTarget(path: string): Promise<boolean> {
  if (path.endsWith("/")) return true;
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

async function openDestination(
  out: string | undefined,
  groups: number,
  stem: string,
  extension: string,
  overwrite: boolean,
  parts: { maxRows: number; csv: CsvCharacters | null; withHeader: boolean; header: () => Uint8Array | string } | null,
) {
  if (parts !== null) {
    if (out === undefined || out === "-" || await isDirectoryTarget(out)) {
      throw new UsageError("--max-rows-per-file needs --out FILE (the parts are FILE-000001.csv, ...)");
    }
    const sink = new PartedSink(out, parts.maxRows, overwrite, parts.csv, parts.withHeader);
    return {
      groups: 1,
      sinkFor: () => Promise.resolve(sink),
      close: () => sink.commit(parts.header()),
      discard: () => sink.abort(),
      closed: () => false,
    } satisfies Destination;
  }
  if (out === undefined || out === "-") {
    const sink = new FileSink(null, Deno.stdout);
    return {
      groups: 1,
      sinkFor: () => Promise.resolve(sink),
      close: () => sink.flush(),
      discard: () => sink.flush().catch(() => {}),
      closed: () => sink.closed,
    } satisfies Destination;
  }
  if (await isDirectoryTarget(out)) {
    await Deno.mkdir(out, { recursive: true });
    const sinks = new Map<number, FileSink>();
    const opening = new Map<number, Promise<FileSink>>();
    return {
      groups,
      sinkFor: (group: number) => {
        let sink = opening.get(group);
        if (sink === undefined) {
          sink = (async () => {
            const name = join(out, `${stem}-${String(group + 1).padStart(3, "0")}.${extension}`);
            const created = await openFileSink(name, overwrite);
            sinks.set(group, created);
            return created;
          })();
          opening.set(group, sink);
        }
        return sink;
      },
      close: async () => {
        for (const sink of sinks.values()) await sink.commit();
      },
      discard: async () => {
        await Promise.allSettled(opening.values());
        for (const sink of sinks.values()) await sink.file?.abort();
      },
      closed: () => false,
    } satisfies Destination;
  }
  const sink = await openFileSink(out, overwrite);
  return {
    groups: 1,
    sinkFor: () => Promise.resolve(sink),
    close: () => sink.commit(),
    discard: () => sink.file!.abort(),
    closed: () => false,
  } satisfies Destination;
}

function retryDelay(attempt: number): number {
  return 200 * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
}

export async function unloadCommand(command: Command): Promise<number> {
  const context: Context = await contextOf(command);
  const flags = command.opts() as UnloadFlags;
  const config = context.config.unload ?? {};
  const tableText = flags.table ?? config.table;
  const query = flags.query ?? config.query;
  if ((tableText === undefined) === (query === undefined)) {
    throw new UsageError('give either --table keyspace.table or --query "SELECT ..."');
  }
  const columnsSetting = flags.columns?.split(",").map((name) => name.trim()).filter((name) => name !== "") ??
    config.columns;
  if (columnsSetting !== undefined && query !== undefined) throw new UsageError("--columns goes with --table");
  if (flags.out !== undefined && flags.url !== undefined) throw new UsageError("give either --out or --url, not both");
  const out = flags.out ?? flags.url ?? config.out;
  const format = flags.format ?? config.format ?? formatForOutName(out);
  const withHeader = flags.header ?? config.header ?? true;
  const withWritetime = flags.withWritetime ?? config.withWritetime ?? false;
  const withTtl = flags.withTtl ?? config.withTtl ?? false;
  if ((withWritetime || withTtl) && query !== undefined) {
    throw new UsageError("--with-writetime and --with-ttl go with --table (with --query, select WRITETIME(c) yourself)");
  }
  const pageSize = flags.pageSize ?? config.pageSize ?? DEFAULT_PAGE_SIZE;
  const concurrency = flags.maxConcurrency ?? config.maxConcurrency ?? UNLOAD_DEFAULT_CONCURRENCY;
  const consistency = await consistencyCode(flags.consistency ?? config.consistency);
  const quiet = flags.quiet ?? config.quiet ?? false;
  const overwrite = flags.overwrite ?? config.overwrite ?? false;
  const maxRowsPerFile = flags.maxRowsPerFile ?? config.maxRowsPerFile;
  const connection = resolveConnection(context.flags, context.config.connection);
  const csv: CsvSettings | null = format === "csv"
    ? {
      delimiter: flags.delimiter ?? config.delimiter,
      quote: flags.quote ?? config.quote,
      escape: flags.escape ?? config.escape,
      nullWord: flags.nullValue ?? config.nullValue,
      collectionFormat: flags.collectionFormat ?? config.collectionFormat,
      conversion: conversionSettings(flags as Record<string, unknown>, config),
    }
    : null;
  const extension = format === "csv" ? "csv" : "jsonl";

  return await withClient(context, async (client, secrets) => {
    const started = performance.now();
    const partsOf = () =>
      maxRowsPerFile === undefined
        ? null
        : {
          maxRows: maxRowsPerFile,
          // Only the characters: the core's reader finds where the records end by them.
          csv: csv === null ? null : { delimiter: csv.delimiter, quote: csv.quote, escape: csv.escape },
          withHeader,
          header: () => lastHeader,
        };
    let rows = 0;
    const display = quiet ? null : new ProgressDisplay({
      label: "unload",
      totalBytes: null,
      interactive: Deno.stderr.isTerminal(),
      intervalMs: 5000,
    });
    const report = () => display?.update({ rows, bad: 0, retries: 0 });
    const baseOptions: { prepare: true; idempotent: true; pageSize: number; consistency?: number } = {
      prepare: true,
      idempotent: true,
      pageSize,
    };
    if (consistency !== undefined) baseOptions.consistency = consistency;
    let destination: Destination | null = null;
    // The header line of the output's columns, from any page (every scan selects the same).
    let lastHeader: Uint8Array | string = "";
    let ranges = 1;
    // Interrupted, the unload is incomplete: its temporary files go, and nothing is put in place.
    const interrupt = onInterrupt((signal) => {
      display?.stop();
      void (destination?.discard() ?? Promise.resolve()).finally(() => {
        const toFile = out !== undefined && out !== "-";
        console.error(`error: unload interrupted by ${signal} after ${rows} rows${toFile ? "; no output file was written" : ""}`);
        Deno.exit(EXIT_FAILURE);
      });
    });
    try {
      if (query !== undefined) {
        destination = await openDestination(out, 1, "query", extension, overwrite, partsOf());
        const sink = await destination.sinkFor(0);
        const claim = withHeader ? new HeaderClaim() : null;
        await unloadStatement(
          client,
          query,
          [],
          { ...baseOptions },
          csv,
          sink,
          claim,
          () => {
            report();
            return destination!.closed();
          },
          (count) => rows += count,
          (header) => lastHeader = header,
          true,
        );
      } else {
        const { keyspace, table } = parseTableName(tableText!, connection.keyspace);
        const schema = await readTableSchema(client, keyspace, table);
        const columns = columnsSetting === undefined ? schema.columns : columnsSetting.map((name) => {
          const column = schema.columns.find((candidate) => candidate.name === name) ??
            schema.columns.find((candidate) => candidate.name.toLowerCase() === name.toLowerCase());
          if (column === undefined) throw new UsageError(`--columns: ${keyspace}.${table} has no column '${name}'`);
          return column;
        });
        const partitionKey = schema.columns.filter((column) => column.kind === "partition_key");
        const scans = scanRangesOf(await client.getTokenRanges(keyspace));
        ranges = scans.length;
        const times = cellTimeSelection(columns, { writetime: withWritetime, ttl: withTtl });
        const selectList = [...columns.map((column) => quoteIdentifier(column.name)), ...times.expressions].join(", ");
        const tokenExpr = tokenExpression(partitionKey);
        const from = `${quoteIdentifier(keyspace)}.${quoteIdentifier(table)}`;
        destination = await openDestination(out, concurrency, table, extension, overwrite, partsOf());
        const groups = destination.groups;
        const claims = Array.from({ length: groups }, () => new HeaderClaim());
        // Each group of ranges has one worker, so a file of a directory output has one writer.
        const groupScans: ScanRange[][] = Array.from({ length: groups }, () => []);
        scans.forEach((scan, i) => groupScans[i % groups].push(scan));
        const single = groups === 1;
        const work = single
          ? scans.map((scan) => ({ scan, group: 0 }))
          : groupScans.flatMap((list, group) => list.map((scan) => ({ scan, group })));
        const dest = destination;
        const runScan = async ({ scan, group }: { scan: ScanRange; group: number }) => {
          const sink = await dest.sinkFor(group);
          const statement = `SELECT ${selectList} FROM ${from} WHERE ${rangeCondition(tokenExpr, scan)}`;
          const options = scan.routingToken === undefined
            ? { ...baseOptions }
            : { ...baseOptions, routingToken: scan.routingToken };
          await unloadStatement(
            client,
            statement,
            [scan.start, scan.end],
            options,
            csv,
            sink,
            withHeader ? claims[group] : null,
            () => {
              report();
              return dest.closed();
            },
            (count) => rows += count,
          (header) => lastHeader = header,
          );
        };
        if (single) {
          await forEachConcurrently(work, concurrency, runScan);
        } else {
          // One worker per group keeps each file's writes in one sequence.
          await Promise.all(
            groupScans.map((list, group) => forEachConcurrently(list.map((scan) => ({ scan, group })), 1, runScan)),
          );
        }
        if (withHeader && claims.every((claim) => !claim.taken)) {
          // A table with no rows still gets a header, in the first output (each part writes its own).
          const sink = await dest.sinkFor(0);
          if (!(sink instanceof PartedSink)) await sink.write(lastHeader);
        }
      }
    } catch (error) {
      interrupt.dispose();
      display?.stop();
      await destination?.discard();
      if (error instanceof UsageError || error instanceof CliFailure) throw error;
      // The core checks the CSV settings (the same rules as load's): a refusal is a usage error.
      if ((error as { code?: string }).code === "ERR_ARGUMENT") throw new UsageError((error as Error).message);
      throw new CliFailure(`unload failed after ${rows} rows: ${describeError(error, secrets)}`);
    }
    interrupt.dispose();
    display?.stop();
    await destination.close();
    if (!quiet) {
      const seconds = (performance.now() - started) / 1000;
      console.error(
        `${rows} rows unloaded from ${ranges} ${ranges === 1 ? "scan" : "range scans"} in ${seconds.toFixed(2)} s ` +
          `(${Math.round(rows / Math.max(seconds, 0.001))} rows/s)`,
      );
    }
    return EXIT_OK;
  });
}

/** Who writes the header of an output: the first scan with rows claims it. */
export class HeaderClaim {
  private claimed = false;
  get taken(): boolean {
    return this.claimed;
  }
  claim(): boolean {
    if (this.claimed) return false;
    this.claimed = true;
    return true;
  }
}

/**
 * Pages through one statement, writing each page as soon as it arrives: CSV formatted in the
 * core (`csv` settings), else JSON Lines. Returns the number of rows written. `shouldStop`
 * is asked after every page (a closed pipe ends the unload). With `headerEvenIfEmpty`, a
 * result without rows still gets its header (a query's output).
 */
async function unloadStatement(
  client: DriverClient,
  statement: string,
  params: unknown[],
  options: Record<string, unknown>,
  csv: CsvSettings | null,
  sink: TextSink | PartedSink,
  header: HeaderClaim | null,
  shouldStop: () => boolean,
  onRows: (count: number) => void,
  onHeader: (header: Uint8Array) => void,
  headerEvenIfEmpty = false,
): Promise<number> {
  const pages = csv === null ? jsonPages(client, statement, params, options) : csvPages(client, statement, params, options, csv);
  let written = 0;
  let headerText: Uint8Array | null = null;
  for await (const page of pages) {
    headerText ??= page.header;
    onHeader(page.header);
    if (page.rows > 0) {
      if (sink instanceof PartedSink) {
        // Each part writes the header itself.
        await sink.writePage(page.header, page.body, page.rows);
      } else {
        // Claim and write happen without an await between them, so the header comes first.
        if (header?.claim() && csv !== null) await sink.write(page.header);
        await sink.write(page.body);
      }
      written += page.rows;
      onRows(page.rows);
    }
    if (shouldStop()) break;
  }
  if (headerEvenIfEmpty && csv !== null && headerText !== null && !(sink instanceof PartedSink) && header?.claim()) {
    await sink.write(headerText);
  }
  return written;
}

interface Page {
  rows: number;
  header: Uint8Array;
  body: Uint8Array | string;
  pageState?: string;
}

const NO_BYTES = new Uint8Array(0);

/** A statement's pages as CSV from the core's formatter; a transient read error resumes at the page it failed on. */
function csvPages(
  client: DriverClient,
  statement: string,
  params: unknown[],
  options: Record<string, unknown>,
  csv: CsvSettings,
): AsyncGenerator<Page> {
  return resumablePages((from) => client.streamCsv(statement, params, { ...from, ...csv }), options, (page) => ({
    rows: page.rows,
    header: page.header,
    body: page.csv,
  }));
}

/** A statement's pages as JSON Lines from the core's formatter, resumed as `csvPages` is. */
function jsonPages(
  client: DriverClient,
  statement: string,
  params: unknown[],
  options: Record<string, unknown>,
): AsyncGenerator<Page> {
  return resumablePages((from) => client.streamJson(statement, params, from), options, (page) => ({
    rows: page.rows,
    header: NO_BYTES,
    body: page.json,
  }));
}

async function* resumablePages<P extends { pagingState: Uint8Array | null }>(
  stream: (options: Record<string, unknown>) => AsyncGenerator<P>,
  options: Record<string, unknown>,
  toPage: (page: P) => Page,
): AsyncGenerator<Page> {
  let pageState: Uint8Array | undefined;
  for (let attempt = 1;; attempt++) {
    try {
      const from = pageState === undefined ? options : { ...options, pageState };
      for await (const page of stream(from)) {
        attempt = 1;
        yield toPage(page);
        pageState = page.pagingState ?? undefined;
      }
      return;
    } catch (error) {
      if (attempt >= READ_ATTEMPTS || !isTransientReadError(error)) throw error;
      await sleep(retryDelay(attempt));
    }
  }
}

/**
 * The default format by the output's name, as load reads that name, so `unload --out x.jsonl`
 * then `load x.jsonl` round-trips without a --format on either side. A `.json` file gets JSON
 * Lines, as DSBulk's JSON connector writes into its `.json` files, and load reads an
 * uncompressed `.json` that starts with an object so; a compressed one load would read as one
 * array, so that name is refused rather than written in a format it cannot be read back in.
 */
function formatForOutName(out: string | undefined): "csv" | "jsonl" {
  if (out === undefined) return "csv";
  const byName = formatOfName(out);
  if (byName === "json" && compressionOfName(out) !== null) {
    throw new UsageError(
      `--out ${out}: unload writes CSV or JSON Lines, and load reads a compressed .json as one JSON array; ` +
        "name it .jsonl (JSON Lines) or .csv, or give --format",
    );
  }
  return byName === "jsonl" || byName === "json" ? "jsonl" : "csv";
}
