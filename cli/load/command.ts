// `cqlwire load`: settings from flags and the job config, the inputs (with --split and
// --resume applied), the plan of each source (statement and field mapping), then the load
// loop around the core's bulk loader (core_loader.ts) and its summary.

import type { Command } from "commander";
import { ArgumentError, readCsvHeader } from "../../driver/deno.ts";
import { consistencyCode, type Context, contextOf, type DriverClient, onInterrupt, withClient } from "../context.ts";
import { CliFailure, EXIT_BAD_ROWS, EXIT_FAILURE, EXIT_OK, UsageError } from "../errors.ts";
import { resolveConnection } from "../settings.ts";
import { ProgressDisplay } from "../progress.ts";
import { LOAD_DEFAULTS } from "../defaults.ts";
import type { ConversionConfig, LoadConfig } from "../../schemas/job.ts";
import { conversionSettings } from "../conversion_options.ts";
import { splitFromEnvironment } from "./split_auto.ts";
import { cellTimeFields } from "../cell_times.ts";
import { alignToLineStart, expandInputs, type InputFile } from "./input.ts";
import { DEFAULT_HTTP_TIMEOUT_MS } from "./http_input.ts";
import { BadRowLog, uniqueStems } from "./bad_rows.ts";
import {
  CheckpointStore,
  checkResumeState,
  type FileCheckpoint,
  inputIdentity,
  jobFileStem,
  type JobIdentity,
} from "./checkpoint.ts";
import { refuseInputsAsOutputs } from "../files.ts";
import {
  type CoreLoadInput,
  type CorePlan,
  type InputFormat,
  type LoadProgress,
  type LoadSummary,
  runCoreLoad,
} from "./core_loader.ts";
import { readTableSchema } from "./schema.ts";
import {
  buildWrite,
  isCounterTable,
  isPrimaryKey,
  parseMapSpec,
  parseTableName,
  resolveLayout,
  type TableColumn,
  type TableSchema,
} from "./table.ts";
import {
  DEFAULT_SNIFF_ROWS,
  describeCreation,
  ensureTable,
  parseKeyColumns,
  planTableCreation,
  type TableCreation,
} from "./create_table.ts";
import { findNamedMarkers, isIdempotentQuery, markerSchema, targetTableOf } from "./custom_query.ts";

const DEFAULT_MAX_CONCURRENCY = LOAD_DEFAULTS.maxConcurrency;
const DEFAULT_INITIAL_CONCURRENCY = LOAD_DEFAULTS.initialConcurrency;
const DEFAULT_BAD_DIR = LOAD_DEFAULTS.badDir;
const DEFAULT_MAX_RETRIES = LOAD_DEFAULTS.maxRetries;
const DEFAULT_CHECKPOINT_SECONDS = LOAD_DEFAULTS.checkpointSeconds;
const DEFAULT_PROGRESS_SECONDS = LOAD_DEFAULTS.progressSeconds;

export interface LoadFlags extends ConversionConfig {
  table?: string;
  /** DSBulk's -url: more inputs, after the positional ones. */
  url?: string[];
  query?: string;
  format?: "csv" | "jsonl" | "json" | "parquet";
  header?: boolean;
  delimiter?: string;
  quote?: string;
  escape?: string;
  comment?: string;
  nullValue?: string[];
  map?: string;
  skip?: string;
  set?: string[];
  ttl?: number;
  timestamp?: string;
  maxConcurrency?: number;
  maxErrors?: number | string;
  skipRecords?: number;
  maxRecords?: number;
  maxRetries?: number;
  rate?: number;
  batchSize?: number;
  batchBy?: "partition" | "replica";
  badDir?: string;
  checkpointDir?: string;
  checkpointInterval?: number;
  resume?: boolean;
  httpTimeout?: number;
  split?: string;
  dryRun?: boolean;
  consistency?: string;
  json?: boolean;
  quiet?: boolean;
  progressInterval?: number;
  createTable?: boolean;
  key?: string;
  clustering?: string;
  sniffRows?: number;
}

/** "2/4" → { index: 2, count: 4 } (1-based). */
export function parseSplit(text: string): { index: number; count: number } {
  const match = /^([0-9]+)\/([0-9]+)$/.exec(text.trim());
  if (!match) throw new UsageError(`--split ${text}: expected i/n, e.g. 1/4`);
  const index = Number(match[1]);
  const count = Number(match[2]);
  if (count < 1 || index < 1 || index > count) throw new UsageError(`--split ${text}: i must be between 1 and n`);
  return { index, count };
}

/** An ISO-8601 date or date-time that ends in a zone: Z, +hh, +hh:mm or +hhmm. */
const HAS_ZONE = /(?:[Zz]|[+-][0-9]{2}(?::?[0-9]{2})?)$/;

/**
 * Microseconds since the epoch, from digits (µs) or an ISO-8601 date-time. One without a
 * zone is UTC, as row timestamps are (Date.parse would read a date-time as local time).
 */
export function parseWriteTimestamp(text: string): bigint {
  if (/^-?[0-9]+$/.test(text)) return BigInt(text);
  const zoned = /^[0-9]{4}-[0-9]{2}-[0-9]{2}/.test(text) && !HAS_ZONE.test(text.slice(10)) ? `${text}Z` : text;
  const millis = Date.parse(zoned);
  if (Number.isNaN(millis)) {
    throw new UsageError(`--timestamp ${text}: expected microseconds since the epoch or an ISO-8601 date-time`);
  }
  return BigInt(millis) * 1000n;
}

/** `col=value` of --set, split at the first '='. */
export function parseConstant(text: string): [string, string] {
  const equals = text.indexOf("=");
  if (equals <= 0) throw new UsageError(`--set ${text}: expected column=value`);
  return [text.slice(0, equals).trim(), text.slice(equals + 1)];
}

interface InputPlan {
  input: InputFile;
  start?: { offset: number; line: number };
  stopAfter?: number;
}

/** The share of the inputs of process i of n: whole files, or a byte range of a single file. */
export async function splitInputs(inputs: InputFile[], split: { index: number; count: number } | null): Promise<
  InputPlan[]
> {
  if (split === null || split.count === 1) return inputs.map((input) => ({ input }));
  if (inputs.length > 1) {
    return inputs.filter((_, k) => k % split.count === split.index - 1).map((input) => ({ input }));
  }
  const [input] = inputs;
  if (input.path === "-" || input.url || input.compression !== null || input.size === null || input.format === "parquet") {
    throw new UsageError(
      "--split of a single input needs a plain (uncompressed) CSV or JSON Lines file: split by files instead",
    );
  }
  const size = input.size;
  const rangeStart = Math.floor((size * (split.index - 1)) / split.count);
  const rangeEnd = Math.floor((size * split.index) / split.count);
  const start = await alignToLineStart(input.path, rangeStart);
  return [{ input, start, stopAfter: split.index === split.count ? undefined : rangeEnd }];
}

function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

interface ResolvedLoad {
  files: string[];
  tableText: string | undefined;
  query: string | undefined;
  format: "csv" | "jsonl" | "json" | "parquet" | undefined;
  map: Array<[string, string]> | null;
  skip: string[];
  constants: Array<[string, string]>;
  hasHeader: boolean;
  csv: { delimiter: string; quote: string; escape?: string; comment?: string };
  nullValues: string[];
  conversion: ConversionConfig;
  ttl: number | undefined;
  timestamp: bigint | undefined;
  maxConcurrency: number;
  /** A count, or `N%` of each input's records. */
  maxErrors: number | string | undefined;
  skipRecords: number | undefined;
  maxRecords: number | undefined;
  maxRetries: number;
  rate: number | undefined;
  /** Rows per batch when given; otherwise the core batches by its default. */
  batchSize: number | undefined;
  batchBy: "partition" | "replica";
  badDir: string;
  checkpointDir: string;
  checkpointSeconds: number;
  resume: boolean;
  httpTimeoutMs: number;
  split: { index: number; count: number } | null;
  dryRun: boolean;
  consistency: string | undefined;
  json: boolean;
  quiet: boolean;
  progressSeconds: number;
  /** --create-table: the partition key and clustering columns, and the records sniffed. */
  createTable: { key: string[]; clustering: string[]; sniffRows: number } | null;
  /** --key or --clustering was given (they need --create-table). */
  keyGiven: boolean;
  /** --null-value or nullValues was given (then no null word is sniffed). */
  nullValuesGiven: boolean;
}

function resolveSettings(fileArguments: string[], flags: LoadFlags, config: LoadConfig): ResolvedLoad {
  const mapSetting = flags.map ?? config.map;
  const map = mapSetting === undefined
    ? null
    : typeof mapSetting === "string"
    ? parseMapSpec(mapSetting)
    : Object.entries(mapSetting);
  const skipSetting = flags.skip ?? config.skip;
  const skip = skipSetting === undefined
    ? []
    : (typeof skipSetting === "string" ? skipSetting.split(",") : skipSetting).map((name) => name.trim()).filter((
      name,
    ) => name !== "");
  const constants = flags.set !== undefined
    ? flags.set.map(parseConstant)
    : Object.entries(config.set ?? {});
  const timestampText = flags.timestamp ?? (config.timestamp !== undefined ? String(config.timestamp) : undefined);
  const splitText = flags.split ?? config.split;
  return {
    files: fileArguments.length > 0 || flags.url !== undefined ? [...fileArguments, ...flags.url ?? []] : config.files ?? [],
    tableText: flags.table ?? config.table,
    query: flags.query ?? config.query,
    format: flags.format ?? config.format,
    map,
    skip,
    constants,
    hasHeader: flags.header ?? config.header ?? true,
    csv: {
      delimiter: flags.delimiter ?? config.delimiter ?? ",",
      quote: flags.quote ?? config.quote ?? '"',
      escape: flags.escape ?? config.escape,
      comment: flags.comment ?? config.comment,
    },
    nullValues: flags.nullValue ?? config.nullValues ?? [""],
    conversion: conversionSettings(flags as Record<string, unknown>, config),
    ttl: flags.ttl ?? config.ttl,
    timestamp: timestampText !== undefined ? parseWriteTimestamp(timestampText) : undefined,
    maxConcurrency: flags.maxConcurrency ?? config.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY,
    maxErrors: flags.maxErrors ?? config.maxErrors,
    skipRecords: flags.skipRecords ?? config.skipRecords,
    maxRecords: flags.maxRecords ?? config.maxRecords,
    maxRetries: flags.maxRetries ?? config.maxRetries ?? DEFAULT_MAX_RETRIES,
    rate: flags.rate ?? config.rate,
    batchSize: flags.batchSize ?? config.batchSize,
    batchBy: flags.batchBy ?? config.batchBy ?? "replica",
    badDir: flags.badDir ?? config.badDir ?? DEFAULT_BAD_DIR,
    checkpointDir: flags.checkpointDir ?? config.checkpointDir ?? flags.badDir ?? config.badDir ?? DEFAULT_BAD_DIR,
    checkpointSeconds: flags.checkpointInterval ?? config.checkpointInterval ?? DEFAULT_CHECKPOINT_SECONDS,
    resume: flags.resume ?? config.resume ?? false,
    httpTimeoutMs: flags.httpTimeout ?? config.httpTimeout ?? DEFAULT_HTTP_TIMEOUT_MS,
    split: splitText === undefined
      ? null
      : splitText.trim() === "auto"
      ? splitFromEnvironment(Deno.env.toObject())
      : parseSplit(splitText),
    dryRun: flags.dryRun ?? config.dryRun ?? false,
    consistency: flags.consistency ?? config.consistency,
    json: flags.json ?? config.json ?? false,
    quiet: flags.quiet ?? config.quiet ?? false,
    progressSeconds: flags.progressInterval ?? config.progressInterval ?? DEFAULT_PROGRESS_SECONDS,
    createTable: (flags.createTable ?? config.createTable ?? false)
      ? {
        key: parseKeyColumns(flags.key ?? config.key, "--key"),
        clustering: parseKeyColumns(flags.clustering ?? config.clustering, "--clustering"),
        sniffRows: flags.sniffRows ?? config.sniffRows ?? DEFAULT_SNIFF_ROWS,
      }
      : null,
    keyGiven: (flags.key ?? config.key ?? flags.clustering ?? config.clustering) !== undefined,
    nullValuesGiven: (flags.nullValue ?? config.nullValues) !== undefined,
  };
}

/** --create-table: checks what it cannot be combined with, sniffs the first input, plans the table. */
async function planCreation(settings: ResolvedLoad, inputs: InputFile[], defaultKeyspace: string | undefined) {
  if (settings.createTable === null) {
    if (settings.keyGiven) throw new UsageError("--key and --clustering name the columns of --create-table");
    return null;
  }
  if (settings.query !== undefined) throw new UsageError("--create-table creates the table of --table: drop --query");
  const combined = [
    settings.map !== null && "--map",
    settings.skip.length > 0 && "--skip",
    settings.constants.length > 0 && "--set",
  ].find((flag) => flag !== false);
  if (combined !== undefined) {
    throw new UsageError(`--create-table takes every input field as a column: it cannot be combined with ${combined}`);
  }
  const { keyspace, table } = parseTableName(settings.tableText!, defaultKeyspace);
  const input = inputs[0];
  const format = settings.format ?? input.format ?? "csv";
  if (format === "parquet") {
    throw new UsageError(
      "--create-table cannot sniff a Parquet input yet: create the table first (cli/README.md lists the CQL types " +
        "each Parquet type goes to)",
    );
  }
  const options: Record<string, unknown> = { format, conversion: settings.conversion };
  if (format === "csv") Object.assign(options, { ...settings.csv, header: settings.hasHeader });
  if (settings.nullValuesGiven) options.nullValues = settings.nullValues;
  if (settings.skipRecords !== undefined) options.skipRecords = settings.skipRecords;
  const creation = await planTableCreation(
    { keyspace, table, partitionKey: settings.createTable.key, clustering: settings.createTable.clustering },
    input,
    options,
    settings.createTable.sniffRows,
  );
  // The load reads the input as it was sniffed.
  settings.nullValues = creation.sniffed.settings.nullValues;
  settings.conversion = {
    ...settings.conversion,
    ...(creation.sniffed.settings.timestampFormat !== null
      ? { timestampFormat: creation.sniffed.settings.timestampFormat }
      : {}),
    ...(creation.sniffed.settings.dateFormat !== null ? { dateFormat: creation.sniffed.settings.dateFormat } : {}),
  };
  return creation;
}

/** Everything about the target that does not depend on a source's header. */
interface Target {
  schema: TableSchema;
  /** The columns (or, with --query, the bind markers) that fields are laid out against. */
  layoutSchema: TableSchema;
  query: string | null;
  idempotent: boolean;
  counter: boolean;
  constantColumns: TableColumn[];
  /** The --set texts by column name, for the core, which reads them itself. */
  constantTexts: Record<string, string>;
}

async function resolveTarget(client: DriverClient, settings: ResolvedLoad, defaultKeyspace: string | undefined) {
  const name = settings.query !== undefined
    ? targetTableOf(settings.query, defaultKeyspace)
    : parseTableName(settings.tableText!, defaultKeyspace);
  if (settings.query !== undefined && settings.tableText !== undefined) {
    const given = parseTableName(settings.tableText, defaultKeyspace);
    if (given.keyspace !== name.keyspace || given.table !== name.table) {
      throw new UsageError(
        `--table ${settings.tableText} is not the table --query writes to (${name.keyspace}.${name.table})`,
      );
    }
  }
  const schema = await readTableSchema(client, name.keyspace, name.table);
  let layoutSchema = schema;
  let idempotent = !isCounterTable(schema);
  if (settings.query !== undefined) {
    // A marker used twice is one field: the core feeds every bind marker of that name.
    const markers = findNamedMarkers(settings.query).filter((marker, i, all) =>
      all.findIndex((other) => other.name === marker.name) === i
    );
    if (markers.length === 0) throw new UsageError("--query has no named bind markers (:name)");
    layoutSchema = markerSchema(schema, markers);
    idempotent = idempotent && isIdempotentQuery(settings.query, schema);
    if (settings.ttl !== undefined || settings.timestamp !== undefined) {
      throw new UsageError("with --query, write USING TTL / TIMESTAMP in the query itself");
    }
  }
  const constantColumns: TableColumn[] = [];
  const constantTexts: Record<string, string> = {};
  for (const [name, text] of settings.constants) {
    const column = layoutSchema.columns.find((candidate) => candidate.name === name) ??
      layoutSchema.columns.find((candidate) => candidate.name.toLowerCase() === name.toLowerCase());
    if (column === undefined) {
      throw new UsageError(
        `--set ${name}: no such ${settings.query !== undefined ? "bind marker" : "column"} (${
          layoutSchema.columns.map((c) => c.name).join(", ")
        })`,
      );
    }
    // The core reads the text by the column's type when the load starts (a usage error if it cannot).
    constantColumns.push(column);
    constantTexts[column.name] = text;
  }
  return {
    schema,
    layoutSchema,
    query: settings.query ?? null,
    idempotent,
    counter: isCounterTable(schema),
    constantColumns,
    constantTexts,
  } satisfies Target;
}

/**
 * The plan of an input once its header (if any) is known: the statement (TTL and timestamp
 * are literals in it, since the core binds input fields only) and the mapping in the core's
 * terms. CSV fields are mapped by position, which is unambiguous whatever the header's
 * spelling; JSON Lines members by name; without a header, --map or --skip the core maps by
 * position (CSV) or name (JSON Lines) itself.
 */
function planner(target: Target, settings: ResolvedLoad, format: InputFormat) {
  const names = format === "jsonl" ? jsonFieldNames(target, settings) : null;
  const layoutOptions = {
    skip: settings.skip,
    constants: target.constantColumns.map((column) => column.name),
    ignoreUnknown: target.query !== null,
    requireAll: target.query !== null,
    targetWord: target.query !== null ? "bind marker" : "column",
  };
  return (header: string[] | null): CorePlan => {
    // A CSV header from `unload --with-writetime --with-ttl`: its writetime(c)/ttl(c) fields
    // go to the core as cell times, written back with USING TIMESTAMP ? AND TTL ?.
    const times = format === "csv" && header !== null && target.query === null && settings.map === null
      ? cellTimeFields(header, target.schema.columns)
      : { names: [], cells: [] };
    if (times.cells.length > 0 && (settings.ttl !== undefined || settings.timestamp !== undefined)) {
      throw new UsageError("the input has writetime()/ttl() fields: it cannot also take --ttl or --timestamp");
    }
    const options = { ...layoutOptions, skip: [...layoutOptions.skip, ...times.names] };
    const layout = resolveLayout(target.layoutSchema, format === "jsonl" ? names : header, settings.map, options);
    const columns = [...layout.bindings.map((binding) => binding.column), ...target.constantColumns];
    const statement = target.query ??
      buildWrite(target.schema, columns, { ttl: settings.ttl, timestamp: settings.timestamp }).statement;
    let mapping: CorePlan["mapping"];
    let fieldCount: number | undefined;
    if (format === "jsonl") {
      if (settings.map !== null) mapping = layout.bindings.map((binding) => [binding.fieldName, binding.column.name]);
    } else if (format === "parquet") {
      // The JSON lines made of Parquet rows are keyed by column name.
      mapping = layout.bindings.map((binding) => [binding.column.name, binding.column.name]);
    } else if (header !== null || settings.map !== null || settings.skip.length > 0) {
      mapping = layout.bindings.map((binding) => [binding.fieldIndex, binding.column.name]);
      if (header === null && !layout.extraFieldsAllowed) fieldCount = layout.expectedFieldCount;
    }
    const timed = times.cells.length > 0;
    return {
      statement: timed ? `${statement} USING TIMESTAMP ? AND TTL ?` : statement,
      ...(timed ? { cellTimes: times.cells } : {}),
      mapping,
      fieldCount,
      constants: target.constantTexts,
      types: Object.fromEntries(columns.map((column) => [column.name, column.typeText])),
      // A --query's markers are named after the columns they bind (their types are those columns'):
      // a key column bound by a marker of another name is left out, which only makes more rows
      // look alike (they then go in separate batches).
      keyColumns: target.layoutSchema.columns.filter(isPrimaryKey).map((column) => column.name),
      ...(format === "parquet"
        ? { parquet: layout.bindings.map(({ fieldIndex, column }) => ({ fieldIndex, column })) }
        : {}),
    };
  };
}

/** The field names JSON Lines members are matched by. */
function jsonFieldNames(target: Target, settings: ResolvedLoad): string[] {
  if (settings.map !== null) return settings.map.map(([field]) => field);
  const constants = new Set(target.constantColumns.map((column) => column.name));
  const skip = new Set(settings.skip);
  return target.layoutSchema.columns.map((column) => column.name).filter((name) =>
    !constants.has(name) && !skip.has(name)
  );
}

/** A journaled input's offsets beyond its watermark: the checkpoint's, then the journal's since. */
function journalOf(
  state: FileCheckpoint,
  journal: { acked: Set<string>; sent: Set<string> },
  file: number,
): { acked: Set<number>; sent: Set<number> } {
  const acked = new Set(state.acked ?? []);
  const sent = new Set(state.sent ?? []);
  const entries = (keys: Set<string>) =>
    [...keys].map((key) => key.split(":").map(Number)).filter(([index]) => index === file).map(([, offset]) => offset);
  for (const offset of entries(journal.acked)) acked.add(offset);
  for (const offset of entries(journal.sent)) sent.add(offset);
  for (const offset of acked) sent.delete(offset);
  return { acked, sent };
}

function sameJob(a: JobIdentity, b: JobIdentity): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export async function loadCommand(fileArguments: string[], command: Command): Promise<number> {
  const context: Context = await contextOf(command);
  const flags = command.opts() as LoadFlags;
  const settings = resolveSettings(fileArguments, flags, context.config.load ?? {});
  if (settings.files.length === 0) throw new UsageError("no input file given: cqlwire load FILE... --table ks.tbl");
  if (settings.tableText === undefined && settings.query === undefined) {
    throw new UsageError("--table keyspace.table is required (or --query with an INSERT or UPDATE)");
  }
  if (settings.batchSize !== undefined && settings.rate !== undefined && settings.rate < settings.batchSize) {
    throw new UsageError("--rate must be at least --batch-size");
  }
  try {
    // The core checks the CSV characters (before anything connects or reads).
    readCsvHeader(new Uint8Array(0), settings.csv, true);
  } catch (error) {
    if (error instanceof ArgumentError) throw new UsageError(error.message);
    throw error;
  }
  const inputs = await expandInputs(settings.files, { httpTimeoutMs: settings.httpTimeoutMs });
  const url = inputs.find((input) => input.url);
  if (settings.resume && url !== undefined) {
    throw new UsageError(
      `--resume cannot continue a URL input (${url.path}): a server need not send the same body again, ` +
        "so a checkpoint cannot tell that it still fits; start the load again without --resume",
    );
  }
  const plans = await splitInputs(inputs, settings.split);
  const connection = resolveConnection(context.flags, context.config.connection);
  const consistency = await consistencyCode(settings.consistency);
  const creation: TableCreation | null = await planCreation(settings, inputs, connection.keyspace);
  if (creation !== null && settings.dryRun) {
    // The table does not exist yet, so no row can be checked against it: the plan is the output.
    console.log(describeCreation(creation));
    return EXIT_OK;
  }

  return await withClient(context, async (client, secrets) => {
    if (creation !== null) {
      await ensureTable(client, creation.shape, creation.columns, creation.statement, (line) => {
        if (!settings.quiet) console.error(line);
      });
    }
    const target = await resolveTarget(client, settings, connection.keyspace);
    const planners = {
      csv: planner(target, settings, "csv"),
      jsonl: planner(target, settings, "jsonl"),
      parquet: planner(target, settings, "parquet"),
    };
    // Mapping errors are usage errors before anything is read, where no header decides them.
    if (!settings.hasHeader) planners.csv(null);
    for (const directory of [settings.badDir, settings.checkpointDir]) {
      try {
        await Deno.mkdir(directory, { recursive: true });
      } catch (error) {
        throw new CliFailure(`cannot create ${directory}: ${(error as Error).message}`);
      }
    }

    const tableName = `${target.schema.keyspace}.${target.schema.table}`;
    const job: JobIdentity = {
      table: tableName,
      query: target.query === null ? null : normalizeNewlines(target.query),
      inputs: await Promise.all(
        inputs.map((input) =>
          input.path === "-" || input.url ? input.path : Deno.realPath(input.path).catch(() => input.path)
        ),
      ),
      split: settings.split === null ? null : `${settings.split.index}/${settings.split.count}`,
    };
    const store = new CheckpointStore(settings.checkpointDir, await jobFileStem(job), !target.idempotent);
    const identities = await Promise.all(plans.map(({ input }) => inputIdentity(input.path)));
    store.setFingerprints(identities.map((identity) => identity.fingerprint));

    let saved: Awaited<ReturnType<CheckpointStore["read"]>> = null;
    if (settings.resume && !settings.dryRun) {
      saved = await store.read();
      if (saved === null) {
        console.error(`note: no checkpoint at ${store.path}; loading from the beginning`);
      } else if (!sameJob(saved.checkpoint.job, job) || saved.checkpoint.files.length !== plans.length) {
        throw new UsageError(`${store.path} belongs to another job; remove it or drop --resume`);
      }
    }

    const splitSuffix = settings.split === null ? "" : `.split-${settings.split.index}-of-${settings.split.count}`;
    const stems = uniqueStems(plans.map(({ input }) => input.path)).map((stem) => stem + splitSuffix);
    // A JSON array's objects are planned, mapped and described as JSON Lines records are;
    // only the core's reader differs.
    const jsonArrays = plans.map(({ input }) => (settings.format ?? input.format) === "json");
    const formats = plans.map(({ input }) => {
      const format = settings.format ?? input.format ?? "csv";
      return format === "json" ? "jsonl" : format;
    });
    if (saved !== null && jsonArrays.some(Boolean)) {
      throw new UsageError(
        "--resume cannot continue a JSON array input (its elements are found from its start): start again without --resume",
      );
    }
    if (formats.includes("parquet") && !target.idempotent) {
      // The journal of a non-idempotent load records rows by byte offset, which a Parquet row has not.
      throw new UsageError(
        "Parquet input cannot be loaded into a counter table or by a non-idempotent --query yet: convert it to CSV first",
      );
    }
    if (plans.some(({ start }) => start !== undefined) && jsonArrays.some(Boolean)) {
      throw new UsageError("--split of a single JSON array input cannot cut it by bytes: split by files instead");
    }
    // A checkpoint's watermark lies after the records already skipped or read: counting
    // them again from there would skip or stop at other records.
    if (saved !== null && (settings.skipRecords !== undefined || settings.maxRecords !== undefined)) {
      throw new UsageError(
        "--resume cannot continue a load with --skip-records or --max-records: start it again without --resume",
      );
    }

    const badLogs = stems.map((stem) => new BadRowLog(settings.badDir, stem));
    await refuseInputsAsOutputs(plans.map(({ input }) => input.path), [
      { path: store.path, role: "checkpoint" },
      { path: store.journalPath, role: "checkpoint journal" },
      ...badLogs.flatMap((log) => log.outputs()),
    ]);

    const coreInputs: CoreLoadInput[] = [];
    for (const [i, plan] of plans.entries()) {
      const { input } = plan;
      const badLog = badLogs[i];
      let start = plan.start;
      let resume: FileCheckpoint | undefined;
      let resumeAcked: Set<number> | undefined;
      let resumeSent: Set<number> | undefined;
      const fileState: FileCheckpoint | undefined = saved?.checkpoint.files[i];
      if (fileState !== undefined) {
        await checkResumeState(store.path, fileState, identities[i], input);
        start = { offset: fileState.offset, line: fileState.line };
        resume = fileState;
        if (store.journaled) ({ acked: resumeAcked, sent: resumeSent } = journalOf(fileState, saved!.journal, i));
        await badLog.resumeAt(fileState.badFiles);
      } else {
        await badLog.removeStale();
      }
      coreInputs.push({
        input,
        format: formats[i],
        jsonArray: jsonArrays[i],
        badLog,
        start,
        stopAfter: plan.stopAfter,
        resume,
        done: resume?.done,
        resumeAcked,
        resumeSent,
      });
    }
    if (!settings.dryRun) await store.openJournal(saved === null);

    // Progress counts the raw bytes read: from the start position in a plain file, and from
    // the beginning (decompressed and skipped) in a compressed one. A URL's size is its
    // Content-Length, known once it answered.
    const starts = coreInputs;
    const totalBytes = () =>
      plans.every(({ input }) => input.path !== "-" && input.size !== null)
        ? plans.reduce((sum, plan, i) => {
          const input = starts[i];
          if (input.done) return sum;
          const size = plan.input.size ?? 0;
          if (plan.input.compression !== null || plan.input.url) return sum + size;
          return sum + Math.max(0, (input.stopAfter ?? size) - (input.start?.offset ?? 0));
        }, 0)
        : null;
    const display = settings.quiet ? null : new ProgressDisplay({
      label: settings.dryRun ? "dry run" : "load",
      totalBytes: totalBytes(),
      interactive: Deno.stderr.isTerminal(),
      intervalMs: settings.progressSeconds * 1000,
    });
    const stop = { reason: null as string | null };
    const interrupt = onInterrupt((signal) => {
      stop.reason ??= `interrupted by ${signal}`;
    });
    const checkpoint = settings.dryRun ? undefined : {
      store,
      job,
      everyMs: settings.checkpointSeconds * 1000,
      everyRows: 100_000,
      files: identities,
    };
    const urls = plans.some(({ input }) => input.url);
    const onProgress = display === null ? undefined : (state: LoadProgress) => {
      if (urls) display.setTotalBytes(totalBytes());
      display.update({
        rows: state.rowsLoaded,
        bad: state.badRows,
        retries: state.retries,
        bytes: state.bytesRead,
        concurrency: state.concurrency,
      });
    };
    let summary: LoadSummary;
    try {
      summary = await runCoreLoad(
        coreInputs,
        (header, format) => planners[format](header),
        (input, options) => client.bulkLoad(input, options),
        {
          dryRun: settings.dryRun,
          csv: settings.csv,
          hasHeader: settings.hasHeader,
          nullValues: settings.nullValues,
          conversion: settings.conversion,
          maxConcurrency: settings.maxConcurrency,
          initialConcurrency: Math.min(DEFAULT_INITIAL_CONCURRENCY, settings.maxConcurrency),
          maxErrors: settings.maxErrors,
          skipRecords: settings.skipRecords,
          maxRecords: settings.maxRecords,
          maxRetries: settings.maxRetries,
          consistency,
          idempotent: target.idempotent,
          // Not given: the core's default (adaptive batches of up to 32 rows by replica set;
          // one row per request for counters and non-idempotent statements).
          batch: settings.batchSize !== undefined ? { size: settings.batchSize, by: settings.batchBy } : undefined,
          secrets,
          stop,
          checkpoint,
          onProgress,
          rate: settings.rate,
        },
      );
    } finally {
      display?.stop();
      interrupt.dispose();
    }
    printSummary(summary, settings, Boolean(saved));
    if (summary.abortedBecause !== null) {
      const hint = settings.dryRun ? "" : ` (continue with --resume)`;
      throw new CliFailure(`load aborted: ${summary.abortedBecause}${hint}`, EXIT_FAILURE);
    }
    return summary.badRows > 0 || summary.uncertainRows > 0 ? EXIT_BAD_ROWS : EXIT_OK;
  });
}

function printSummary(summary: LoadSummary, settings: ResolvedLoad, resumed: boolean): void {
  const seconds = summary.elapsedMs / 1000;
  if (settings.json) {
    console.log(JSON.stringify({
      rowsLoaded: summary.rowsLoaded,
      badRows: summary.badRows,
      uncertainRows: summary.uncertainRows,
      previouslyLoaded: summary.previouslyLoaded,
      totalRowsLoaded: summary.rowsLoaded + summary.previouslyLoaded,
      elapsedMs: Math.round(summary.elapsedMs),
      rowsPerSecond: Math.round(summary.rowsPerSecond),
      latencyMs: {
        p50: round3(summary.latencyMs.p50),
        p99: round3(summary.latencyMs.p99),
        mean: round3(summary.latencyMs.mean),
        max: round3(summary.latencyMs.max),
      },
      retries: summary.retries,
      peakConcurrency: summary.peakConcurrency,
      bytesRead: summary.bytesRead,
      dryRun: settings.dryRun,
      resumed,
      aborted: summary.abortedBecause,
      badFiles: summary.badFiles,
      checkpoint: summary.checkpointFile,
    }));
    return;
  }
  const verb = settings.dryRun ? "rows valid (dry run, nothing written)" : "rows loaded";
  console.log(
    `${summary.rowsLoaded} ${verb}, ${summary.badRows} bad rows, ${seconds.toFixed(2)} s, ` +
      `${Math.round(summary.rowsPerSecond)} rows/s`,
  );
  if (!settings.dryRun) {
    const { p50, p99, mean } = summary.latencyMs;
    const latency = p50 !== null && p99 !== null
      ? `latency p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms`
      : `latency p50/p99 n/a${mean !== null ? ` (mean ≈ ${mean.toFixed(2)} ms)` : ""}`;
    console.log(`${latency}; ${summary.retries} retries; peak concurrency ${summary.peakConcurrency}`);
  }
  if (summary.previouslyLoaded > 0) {
    console.log(`${summary.previouslyLoaded} rows were loaded by earlier runs of this job`);
  }
  if (summary.uncertainRows > 0) {
    console.log(`${summary.uncertainRows} rows were sent but never acknowledged: they may or may not have been applied`);
  }
  for (const entry of summary.badFiles) {
    if (entry.badRows > 0) console.log(`bad rows of ${entry.source}: ${entry.badFile} (reasons in ${entry.errorLog})`);
    if (entry.uncertainFile) {
      console.log(`uncertain rows of ${entry.source}: ${entry.uncertainFile} (reasons in ${entry.errorLog})`);
    }
  }
}

function round3(value: number | null): number | null {
  return value === null ? null : Math.round(value * 1000) / 1000;
}
