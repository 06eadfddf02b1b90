// `cqlwire load`: settings from flags and the job config, the inputs (with --split and
// --resume applied), the plan of each source (statement, converter, tokens), then the load
// loop (loader.ts) and its summary.

import type { Command } from "commander";
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
import { CsvFileSource, JsonlFileSource, type RowSource } from "./csv_source.ts";
import { checkCsvFormat } from "./csv_parser.ts";
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
import { type LoadInput, type LoadPlan, type LoadProgress, type LoadSummary, type Params, runLoad } from "./loader.ts";
import { type CoreLoadInput, type CorePlan, runCoreLoad } from "./core_loader.ts";
import { readTableSchema } from "./schema.ts";
import {
  buildWrite,
  isCounterTable,
  isPrimaryKey,
  parseMapSpec,
  parseTableName,
  resolveLayout,
  type FieldBinding,
  type TableColumn,
  type TableSchema,
} from "./table.ts";
import { findNamedMarkers, isIdempotentQuery, markerSchema, targetTableOf } from "./custom_query.ts";
import { ConversionError, converterFor } from "./convert.ts";
import { CsvRowConverter } from "./row_converter.ts";
import { ReplicaMap, TokenCalculator } from "./token.ts";

const DEFAULT_MAX_CONCURRENCY = LOAD_DEFAULTS.maxConcurrency;
const DEFAULT_INITIAL_CONCURRENCY = LOAD_DEFAULTS.initialConcurrency;
const DEFAULT_BAD_DIR = LOAD_DEFAULTS.badDir;
const DEFAULT_MAX_RETRIES = LOAD_DEFAULTS.maxRetries;
const DEFAULT_CHECKPOINT_SECONDS = LOAD_DEFAULTS.checkpointSeconds;
const DEFAULT_PROGRESS_SECONDS = LOAD_DEFAULTS.progressSeconds;

export interface LoadFlags extends ConversionConfig {
  table?: string;
  query?: string;
  format?: "csv" | "jsonl" | "json";
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
  split?: string;
  dryRun?: boolean;
  consistency?: string;
  json?: boolean;
  quiet?: boolean;
  progressInterval?: number;
  engine?: Engine;
}

/** Which load loop runs: the WASM core's bulk loader, the JS one, or the core where it can. */
export type Engine = "auto" | "core" | "js";

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
  if (input.path === "-" || input.gzip || input.size === null) {
    throw new UsageError("--split of a single input needs a plain (uncompressed) file: split by files instead");
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
  format: "csv" | "jsonl" | "json" | undefined;
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
  /** Rows per batch when given; otherwise the core path batches by its default and the JS path does not. */
  batchSize: number | undefined;
  batchBy: "partition" | "replica";
  badDir: string;
  checkpointDir: string;
  checkpointSeconds: number;
  resume: boolean;
  split: { index: number; count: number } | null;
  dryRun: boolean;
  consistency: string | undefined;
  json: boolean;
  quiet: boolean;
  progressSeconds: number;
  engine: Engine;
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
    files: fileArguments.length > 0 ? fileArguments : config.files ?? [],
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
    engine: flags.engine ?? config.engine ?? "auto",
  };
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
  constantValues: unknown[];
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
    const markers = findNamedMarkers(settings.query);
    if (markers.length === 0) throw new UsageError("--query has no named bind markers (:name)");
    layoutSchema = markerSchema(schema, markers);
    idempotent = idempotent && isIdempotentQuery(settings.query, schema);
    if (settings.ttl !== undefined || settings.timestamp !== undefined) {
      throw new UsageError("with --query, write USING TTL / TIMESTAMP in the query itself");
    }
  }
  const constantColumns: TableColumn[] = [];
  const constantValues: unknown[] = [];
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
    let value: unknown;
    try {
      value = settings.nullValues.includes(text) && !isPrimaryKey(column) ? null : converterFor(column.type)(text);
    } catch (error) {
      if (error instanceof ConversionError) throw new UsageError(`--set ${name}=${text}: ${error.message}`);
      throw error;
    }
    constantColumns.push(column);
    constantValues.push(value);
    constantTexts[column.name] = text;
  }
  return {
    schema,
    layoutSchema,
    query: settings.query ?? null,
    idempotent,
    counter: isCounterTable(schema),
    constantColumns,
    constantValues,
    constantTexts,
  } satisfies Target;
}

function planner(target: Target, settings: ResolvedLoad) {
  const layoutOptions = {
    skip: settings.skip,
    constants: target.constantColumns.map((column) => column.name),
    ignoreUnknown: target.query !== null,
    requireAll: target.query !== null,
    targetWord: target.query !== null ? "bind marker" : "column",
  };
  const partitionKey = target.schema.columns.filter((column) => column.kind === "partition_key");
  return (header: string[] | null, timeFields: string[] = []): LoadPlan & { bindings: FieldBinding[] } => {
    const options = { ...layoutOptions, skip: [...layoutOptions.skip, ...timeFields] };
    const layout = resolveLayout(target.layoutSchema, header, settings.map, options);
    const columns = [...layout.bindings.map((binding) => binding.column), ...target.constantColumns];
    let statement: string;
    let toParams: ((values: unknown[]) => Params) | undefined;
    if (target.query !== null) {
      statement = target.query;
      const names = columns.map((column) => column.name);
      toParams = (values) => {
        const params: Record<string, unknown> = {};
        for (let i = 0; i < names.length; i++) params[names[i]] = values[i];
        return params;
      };
    } else {
      const write = buildWrite(target.schema, columns, { ttl: settings.ttl, timestamp: settings.timestamp });
      statement = write.statement;
      const order = write.order;
      if (order.some((position, i) => position !== i)) toParams = (values) => order.map((position) => values[position]);
    }
    const positions = partitionKey.map((key) => columns.findIndex((column) => column.name === key.name));
    const complete = positions.every((position) => position >= 0);
    const keyTypes = partitionKey.map((key) => key.type);
    return {
      statement,
      converter: new CsvRowConverter(layout, { nullValues: settings.nullValues, constants: target.constantValues }),
      toParams,
      tokens: complete && TokenCalculator.supports(keyTypes) ? new TokenCalculator(positions, keyTypes) : null,
      partitionKeyPositions: complete ? positions : [],
      bindings: layout.bindings,
    };
  };
}

/**
 * The plan of the core path: the JS plan's statement (TTL and timestamp are literals in it,
 * since the core binds input fields only) and converter (to describe bad rows), with the
 * mapping in the core's terms. CSV fields are mapped by index, which is unambiguous whatever
 * the header's spelling; without a header or --map the core maps by position itself.
 */
function corePlanner(target: Target, settings: ResolvedLoad, format: "csv" | "jsonl") {
  const planFor = planner(target, settings);
  const names = format === "jsonl" ? jsonFieldNames(target, settings) : null;
  return (header: string[] | null): CorePlan => {
    // A CSV header from `unload --with-writetime --with-ttl`: its writetime(c)/ttl(c) fields
    // go to the core as cell times, written back with USING TIMESTAMP ? AND TTL ?.
    const times = format === "csv" && header !== null && target.query === null && settings.map === null
      ? cellTimeFields(header, target.schema.columns)
      : { names: [], cells: [] };
    if (times.cells.length > 0 && (settings.ttl !== undefined || settings.timestamp !== undefined)) {
      throw new UsageError("the input has writetime()/ttl() fields: it cannot also take --ttl or --timestamp");
    }
    const plan = planFor(format === "jsonl" ? names : header, times.names);
    let mapping: string | undefined;
    if (format === "jsonl") {
      if (settings.map !== null) {
        mapping = plan.bindings.map((binding) => `${binding.fieldName}=${binding.column.name}`).join(",");
      }
    } else if (header !== null || settings.map !== null || settings.skip.length > 0) {
      mapping = plan.bindings.map((binding) => `${binding.fieldIndex}=${binding.column.name}`).join(",");
    }
    const timed = times.cells.length > 0;
    return {
      statement: timed ? `${plan.statement} USING TIMESTAMP ? AND TTL ?` : plan.statement,
      ...(timed ? { cellTimes: times.cells } : {}),
      mapping,
      constants: target.constantTexts,
      converter: plan.converter,
      toParams: plan.toParams,
      bindings: plan.bindings,
    };
  };
}

/** Why the core path cannot run this load, or null when it can. */
async function coreObstacle(
  client: DriverClient,
  target: Target,
  settings: ResolvedLoad,
  formats: ReadonlySet<"csv" | "jsonl">,
): Promise<string | null> {
  if (target.counter) return "a counter table needs the write-ahead journal of the JS path";
  if (!target.idempotent) return "a statement that is not idempotent needs the write-ahead journal of the JS path";
  if (formats.has("csv") && !settings.hasHeader && settings.map === null && settings.skip.length > 0) {
    // The core's index mapping accepts extra fields, where this layout wants an exact count.
    return "--skip without a header or --map runs on the JS path";
  }
  const names = [
    ...target.layoutSchema.columns.map((column) => column.name),
    ...(settings.map ?? []).map(([field]) => field),
  ];
  if (names.some((name) => /[,=]/.test(name) || name.trim() !== name)) {
    return "a column or field name with ',', '=' or surrounding blanks cannot be mapped by the core";
  }
  if (formats.has("jsonl") && (settings.map ?? []).some(([field]) => /^[0-9]+$/.test(field))) {
    return "JSON Lines fields named by digits cannot be mapped by the core";
  }
  if (target.query !== null) {
    const bound = (await client.prepare(target.query)).columns.map((column) => column.name);
    if (new Set(bound).size !== bound.length) return "a --query that uses a bind marker twice runs on the JS path";
  }
  return null;
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
    checkCsvFormat(settings.csv);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const inputs = await expandInputs(settings.files);
  const plans = await splitInputs(inputs, settings.split);
  const connection = resolveConnection(context.flags, context.config.connection);
  const consistency = await consistencyCode(settings.consistency);

  return await withClient(context, async (client, secrets) => {
    const target = await resolveTarget(client, settings, connection.keyspace);
    const planFor = planner(target, settings);
    if (!settings.hasHeader) planFor(null);
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
        inputs.map((input) => input.path === "-" ? "-" : Deno.realPath(input.path).catch(() => input.path)),
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
    let engine: "core" | "js" = "js";
    let engineNote: string | null = settings.engine === "js" ? "--engine js" : null;
    if (settings.engine !== "js") {
      const obstacle = await coreObstacle(client, target, settings, new Set(formats));
      if (obstacle === null) engine = "core";
      else if (settings.engine === "core") throw new UsageError(`--engine core: ${obstacle}`);
      else engineNote = obstacle;
    }
    const coreOnly = [
      jsonArrays.some(Boolean) ? "JSON array input" : null,
      typeof settings.maxErrors === "string" ? "--max-errors N%" : null,
      settings.skipRecords !== undefined ? "--skip-records" : null,
      settings.maxRecords !== undefined ? "--max-records" : null,
    ].filter((name) => name !== null);
    if (engine === "js" && coreOnly.length > 0) {
      throw new UsageError(`${coreOnly.join(", ")}: applied by the core path, which this load cannot use: ${engineNote}`);
    }
    // A checkpoint's watermark lies after the records already skipped or read: counting
    // them again from there would skip or stop at other records.
    if (saved !== null && jsonArrays.some(Boolean)) {
      throw new UsageError("--resume cannot continue a JSON array input (its elements are found from its start): start again without --resume");
    }
    if (plans.some(({ start }) => start !== undefined) && jsonArrays.some(Boolean)) {
      throw new UsageError("--split of a single JSON array input cannot cut it by bytes: split by files instead");
    }
    if (saved !== null && (settings.skipRecords !== undefined || settings.maxRecords !== undefined)) {
      throw new UsageError("--resume cannot continue a load with --skip-records or --max-records: start it again without --resume");
    }
    if (engine === "js" && Object.keys(settings.conversion).length > 0) {
      const keys = Object.keys(settings.conversion).join(", ");
      throw new UsageError(`conversion settings (${keys}) are applied by the core path, which this load cannot use: ${engineNote}`);
    }

    const badLogs = stems.map((stem) => new BadRowLog(settings.badDir, stem));
    await refuseInputsAsOutputs(plans.map(({ input }) => input.path), [
      { path: store.path, role: "checkpoint" },
      { path: store.journalPath, role: "checkpoint journal" },
      ...badLogs.flatMap((log) => log.outputs()),
    ]);

    const loadInputs: LoadInput[] = [];
    const coreInputs: CoreLoadInput[] = [];
    for (const [i, plan] of plans.entries()) {
      const { input } = plan;
      const format = formats[i];
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
        if (store.journaled) {
          const acked = new Set(fileState.acked ?? []);
          const sent = new Set(fileState.sent ?? []);
          for (const key of saved!.journal.acked) {
            const [file, offset] = key.split(":").map(Number);
            if (file === i) acked.add(offset);
          }
          for (const key of saved!.journal.sent) {
            const [file, offset] = key.split(":").map(Number);
            if (file === i && !acked.has(offset)) sent.add(offset);
          }
          for (const offset of acked) sent.delete(offset);
          resumeAcked = acked;
          resumeSent = sent;
        }
        await badLog.resumeAt(fileState.badFiles);
      } else {
        await badLog.removeStale();
      }
      if (engine === "core") {
        coreInputs.push({
          input,
          format,
          badLog,
          start,
          stopAfter: plan.stopAfter,
          resume,
          done: resume?.done,
          jsonFieldNames: format === "jsonl" ? jsonFieldNames(target, settings) : undefined,
          jsonArray: jsonArrays[i],
        });
        continue;
      }
      let source: RowSource;
      let header: LoadInput["header"];
      if (format === "jsonl") {
        const jsonl = new JsonlFileSource(input);
        const names = jsonFieldNames(target, settings);
        jsonl.setFieldNames(names);
        source = jsonl;
        header = names;
      } else {
        source = new CsvFileSource(input, settings.csv, settings.hasHeader);
        header = settings.hasHeader ? "record" : null;
      }
      loadInputs.push({
        source,
        badLog,
        header,
        start,
        stopAfter: plan.stopAfter,
        resume,
        done: resume?.done,
        resumeAcked,
        resumeSent,
      });
    }
    if (!settings.dryRun) await store.openJournal(saved === null);

    let replicas: ReplicaMap | null = null;
    if (engine === "js" && (settings.batchSize ?? 1) > 1 && settings.batchBy === "replica") {
      replicas = new ReplicaMap(await client.getTokenRanges(target.schema.keyspace));
    }

    const executeOptions: { prepare: true; idempotent: boolean; consistency?: number } = {
      prepare: true,
      idempotent: target.idempotent,
    };
    if (consistency !== undefined) executeOptions.consistency = consistency;
    const loadTarget = {
      execute: async (statement: string, params: Params, options: { routingToken?: bigint }) => {
        await client.execute(statement, params, { ...executeOptions, ...options });
      },
      batch: async (items: Array<{ statement: string; params: Params }>, options: { routingToken?: bigint }) => {
        await client.batch(
          items.map((item) => ({ query: item.statement, params: item.params })),
          { ...executeOptions, ...options, logged: false, counter: target.counter },
        );
      },
    };

    // Progress counts the raw bytes read: from the start position in a plain file, and from
    // the beginning (decompressed and skipped) in a compressed one.
    const starts = engine === "core"
      ? coreInputs.map((input) => ({ start: input.start, stopAfter: input.stopAfter, done: input.done }))
      : loadInputs.map((input) => ({ start: input.start, stopAfter: input.stopAfter, done: input.done }));
    const totalBytes = plans.every(({ input }) => input.path !== "-")
      ? plans.reduce((sum, plan, i) => {
        const input = starts[i];
        if (input.done) return sum;
        const size = plan.input.size ?? 0;
        if (plan.input.gzip) return sum + size;
        return sum + Math.max(0, (input.stopAfter ?? size) - (input.start?.offset ?? 0));
      }, 0)
      : null;
    const display = settings.quiet ? null : new ProgressDisplay({
      label: settings.dryRun ? "dry run" : "load",
      totalBytes,
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
    const onProgress = display === null ? undefined : (state: LoadProgress) =>
      display.update({
        rows: state.rowsLoaded,
        bad: state.badRows,
        retries: state.retries,
        bytes: state.bytesRead,
        concurrency: state.concurrency,
      });
    const corePlanners = {
      csv: corePlanner(target, settings, "csv"),
      jsonl: corePlanner(target, settings, "jsonl"),
    };
    let summary: LoadSummary;
    try {
      if (engine === "core") {
        summary = await runCoreLoad(
          coreInputs,
          (header, format) => corePlanners[format](header),
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
            // Not given: the core's default (adaptive batches of up to 32 rows by replica set).
            batch: settings.batchSize !== undefined ? { size: settings.batchSize, by: settings.batchBy } : undefined,
            secrets,
            stop,
            checkpoint,
            onProgress,
            writeRow: (statement, params) => loadTarget.execute(statement, params, {}),
            rate: settings.rate,
          },
        );
      } else {
        summary = await runLoad(loadInputs, (header) => planFor(header), loadTarget, {
          maxConcurrency: settings.maxConcurrency,
          initialConcurrency: Math.min(DEFAULT_INITIAL_CONCURRENCY, settings.maxConcurrency),
          maxErrors: typeof settings.maxErrors === "number" ? settings.maxErrors : undefined,
          maxRetries: settings.maxRetries,
          idempotent: target.idempotent,
          rate: settings.rate,
          batch: (settings.batchSize ?? 1) > 1
            ? { size: settings.batchSize!, by: settings.batchBy, replicas }
            : undefined,
          dryRun: settings.dryRun,
          secrets,
          stop,
          checkpoint,
          onProgress,
        });
      }
    } finally {
      display?.stop();
      interrupt.dispose();
    }
    printSummary(summary, settings, Boolean(saved), { path: engine, note: engineNote });
    if (summary.abortedBecause !== null) {
      const hint = settings.dryRun ? "" : ` (continue with --resume)`;
      throw new CliFailure(`load aborted: ${summary.abortedBecause}${hint}`, EXIT_FAILURE);
    }
    return summary.badRows > 0 || summary.uncertainRows > 0 ? EXIT_BAD_ROWS : EXIT_OK;
  });
}

function printSummary(
  summary: LoadSummary,
  settings: ResolvedLoad,
  resumed: boolean,
  engine: { path: "core" | "js"; note: string | null },
): void {
  const seconds = summary.elapsedMs / 1000;
  if (settings.json) {
    console.log(JSON.stringify({
      path: engine.path,
      ...(engine.note !== null ? { pathReason: engine.note } : {}),
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
    const path = engine.path === "core" ? "core path" : `js path${engine.note !== null ? ` (${engine.note})` : ""}`;
    console.log(`${latency}; ${summary.retries} retries; peak concurrency ${summary.peakConcurrency}; ${path}`);
  }
  if (summary.previouslyLoaded > 0) {
    console.log(`${summary.previouslyLoaded} rows were loaded by earlier runs of this job`);
  }
  if (summary.uncertainRows > 0) {
    console.log(`${summary.uncertainRows} rows may or may not have been applied before the interruption`);
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
