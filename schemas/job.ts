// The job configuration read by `cqlwire --config FILE`. Every object is strict, so a
// misspelt key is an error instead of a silently ignored setting. Passwords are refused:
// a config file is often committed or shared, so the password comes only from the
// CQLWIRE_PASSWORD environment variable or an interactive prompt.

import { z } from "zod";

export const PASSWORD_REFUSAL =
  "a password must not be stored in a config file: set the CQLWIRE_PASSWORD environment variable or use --password-prompt";

const refusedPassword = z.never({ error: PASSWORD_REFUSAL }).optional().describe(PASSWORD_REFUSAL);

const hostPattern = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)(:[0-9]{1,5})?$/;

export const CONSISTENCY_NAMES = [
  "any",
  "one",
  "two",
  "three",
  "quorum",
  "all",
  "local_quorum",
  "each_quorum",
  "serial",
  "local_serial",
  "local_one",
] as const;

const consistency = z.enum(CONSISTENCY_NAMES);

const portNumber = z.int().min(1).max(65535);
const positiveInt = z.int().min(1);

export const connectionSchema = z.strictObject({
  hosts: z.array(z.string().regex(hostPattern, "expected host or host:port ([v6addr]:port for IPv6)")).min(1)
    .optional().describe("contact points, host or host:port"),
  port: portNumber.optional().describe("port for hosts given without one (default 9042)"),
  dc: z.string().min(1).optional().describe("local data center"),
  keyspace: z.string().min(1).optional().describe("default keyspace"),
  protocol: z.union([z.literal(4), z.literal(5)]).optional().describe("native protocol version"),
  compression: z.enum(["none", "lz4", "snappy"]).optional(),
  connectTimeout: positiveInt.optional().describe("milliseconds to wait for the first connection (default 5000)"),
  requestTimeout: positiveInt.optional().describe("milliseconds per request"),
  tls: z.strictObject({
    ca: z.string().min(1).optional().describe("path of a PEM file with the CA certificates to trust"),
    insecure: z.boolean().optional().describe(
      "skip only the check that the certificate names the host (the chain is still verified: use ca for a private CA)",
    ),
    serverName: z.string().min(1).optional().describe("name to verify the certificate against"),
  }).optional().describe("present: connect with TLS"),
  username: z.string().min(1).optional(),
  password: refusedPassword,
});

const singleChar = z.string().length(1, "expected exactly one character");

const splitPattern = /^([0-9]+\/[0-9]+|auto)$/;

/**
 * How field text becomes values (load) and values become text (unload, where it applies).
 * The core reads and checks them (core/src/types/conversion.rs); the keys are the same.
 */
export const conversionShape = {
  nullToUnset: z.boolean().optional().describe(
    "a null field (empty, or a null word) leaves its column unset: no tombstone, an existing value stays (default true); false binds null",
  ),
  timeZone: z.string().min(1).optional().describe(
    "zone of timestamps written without one: UTC, a fixed offset (+02:00, -0530) or a zone name (America/New_York; daylight saving followed as the runtime's Intl database says) (default UTC)",
  ),
  timestampFormat: z.string().min(1).optional().describe(
    "iso (default: ISO 8601 variants) or a strftime-like pattern such as '%d/%m/%Y %H:%M:%S'",
  ),
  dateFormat: z.string().min(1).optional().describe("iso (default) or a strftime-like pattern such as '%d.%m.%Y'"),
  timeFormat: z.string().min(1).optional().describe("iso (default) or a strftime-like pattern such as '%I:%M %p'"),
  epochUnit: z.enum(["s", "ms", "us", "ns"]).optional().describe(
    "unit of timestamps written as integers (default ms)",
  ),
  trueWords: z.array(z.string().min(1)).min(1).optional().describe(
    "spellings of true, any case (default true, yes, y, 1, t, on)",
  ),
  falseWords: z.array(z.string().min(1)).min(1).optional().describe(
    "spellings of false, any case (default false, no, n, 0, f, off)",
  ),
  decimalSeparator: singleChar.optional().describe("decimal separator of numbers (default .)"),
  groupingSeparator: singleChar.optional().describe("thousands separator of numbers, removed when read (default none)"),
  blobFormat: z.enum(["hex", "base64"]).optional().describe("blobs without a 0x prefix (default hex: 0x... only)"),
  overflow: z.enum(["reject", "saturate"]).optional().describe(
    "a number beyond its column's range: a bad row (reject, default) or the type's largest/smallest value",
  ),
  rounding: z.enum(["unnecessary", "half-even", "half-up", "half-down", "down", "up", "floor", "ceiling"]).optional()
    .describe("a fraction in an integer column: a bad row (unnecessary, default) or rounded by this rule"),
};

export const conversionSchema = z.strictObject(conversionShape);
export const CONVERSION_KEYS = Object.keys(conversionShape) as Array<keyof typeof conversionShape>;

export const loadSchema = z.strictObject({
  files: z.array(z.string().min(1)).min(1).optional().describe(
    "inputs to load: files, directories, globs (*, ?, [..], **), '-' for stdin; .gz is decompressed",
  ),
  table: z.string().min(1).optional().describe("target table, keyspace.table or table"),
  query: z.string().min(1).optional().describe(
    "custom INSERT or UPDATE with named bind markers (:name) matched to fields by name",
  ),
  format: z.enum(["csv", "jsonl", "json", "parquet"]).optional().describe(
    "input format (default: by extension, .jsonl/.ndjson are JSON Lines, .json one JSON array of objects, " +
      ".parquet Parquet)",
  ),
  map: z.union([
    z.string().min(1).describe("field=column,field=column"),
    z.record(z.string().min(1), z.string().min(1)).describe("{ field: column }"),
  ]).optional().describe("which field goes to which column; fields not listed are skipped"),
  skip: z.union([z.string().min(1), z.array(z.string().min(1))]).optional().describe(
    "input fields (header names, or 0-based indexes without a header) not to load",
  ),
  set: z.record(
    z.string().min(1),
    z.string({
      error: "expected a string: write the value as CQL text in quotes (a JSON number loses digits beyond 2^53, " +
        'e.g. 9007199254740993 reads as 9007199254740992; write "9007199254740993", "true")',
    }),
  ).optional().describe("constant values: { column: value } given to every row, as text"),
  header: z.boolean().optional().describe("the first record names the fields (default true)"),
  delimiter: singleChar.optional(),
  quote: singleChar.optional(),
  escape: singleChar.optional(),
  comment: singleChar.optional(),
  nullValues: z.array(z.string()).optional().describe('unquoted field texts that mean null (default [""])'),
  ...conversionShape,
  ttl: z.int().min(0).optional().describe("time to live of the written values, in seconds"),
  timestamp: z.union([z.int(), z.string().min(1)]).optional().describe(
    "write time: microseconds since the epoch, or an ISO-8601 date-time",
  ),
  maxConcurrency: positiveInt.max(4096).optional().describe(
    "upper bound of the requests in flight; the load adapts below it (default 256)",
  ),
  maxErrors: z.union([positiveInt, z.string().regex(/^[0-9]{1,2}(\.[0-9]{1,2})?%$/)]).optional().describe(
    "stop once this many bad rows were recorded, or (N%) once more than this share of an input's records were bad",
  ),
  skipRecords: z.int().min(0).optional().describe("records (data rows) of each input to skip before loading"),
  maxRecords: positiveInt.optional().describe("records of each input to load at most, after the skipped ones"),
  maxRetries: z.int().min(0).max(100).optional().describe("retries of a row after a timeout or overload (default 3)"),
  rate: positiveInt.optional().describe("rows per second at most"),
  batchSize: positiveInt.max(65535).optional().describe("rows per unlogged batch (default 1: no batches)"),
  batchBy: z.enum(["partition", "replica"]).optional().describe(
    "rows batched together share a partition key, or a replica set (default partition)",
  ),
  badDir: z.string().min(1).optional().describe("directory for .bad and .errors.log files (default ./cqlwire-logs)"),
  checkpointDir: z.string().min(1).optional().describe("directory for checkpoints (default: the bad-row directory)"),
  checkpointInterval: positiveInt.optional().describe("seconds between checkpoints (default 5)"),
  resume: z.boolean().optional().describe("continue from this job's checkpoint"),
  httpTimeout: positiveInt.optional().describe(
    "milliseconds an http(s) input may take to answer, and then to send each piece of its body (default 30000)",
  ),
  split: z.string().regex(splitPattern, "expected i/n, e.g. 1/4, or auto").optional().describe(
    "this process's share i/n of the inputs: whole files, or a byte range of a single file; auto: from a Kubernetes Indexed Job, Slurm array or AWS Batch array (see cli/README.md)",
  ),
  createTable: z.boolean().optional().describe(
    "sniff the first input and create the table with its fields as columns (needs key), then load",
  ),
  key: z.string().min(1).optional().describe("with createTable: the partition key columns, field,field"),
  clustering: z.string().min(1).optional().describe("with createTable: the clustering columns, field,field"),
  sniffRows: positiveInt.optional().describe("with createTable: records sniffed (default 1000)"),
  dryRun: z.boolean().optional().describe("parse and validate against the table's schema, write nothing"),
  consistency: consistency.optional(),
  json: z.boolean().optional().describe("print the summary as JSON"),
  quiet: z.boolean().optional().describe("no progress output"),
  progressInterval: positiveInt.optional().describe("seconds between progress lines when stderr is not a terminal"),
});

export const unloadSchema = z.strictObject({
  table: z.string().min(1).optional().describe("table to unload, keyspace.table or table"),
  query: z.string().min(1).optional().describe("a SELECT to unload instead of a whole table"),
  columns: z.array(z.string().min(1)).min(1).optional().describe("columns of --table to unload (default all)"),
  format: z.enum(["csv", "jsonl"]).optional().describe("output format (default csv)"),
  out: z.string().min(1).optional().describe("output file, or a directory (trailing /) for one file per range group"),
  overwrite: z.boolean().optional().describe("replace output files that exist (default: refuse)"),
  maxRowsPerFile: positiveInt.optional().describe("with out FILE: one file per n rows (FILE-000001.csv, ...)"),
  pageSize: positiveInt.optional(),
  maxConcurrency: positiveInt.max(1024).optional().describe("token ranges scanned at once (default 4)"),
  consistency: consistency.optional(),
  header: z.boolean().optional().describe("CSV header row (default true)"),
  delimiter: singleChar.optional(),
  quote: singleChar.optional(),
  escape: singleChar.optional().describe("written before a quote inside quotes (default: the quote, doubled)"),
  nullValue: z.string().optional().describe("CSV text of a null, unquoted (default empty)"),
  collectionFormat: z.enum(["cql", "json"]).optional().describe(
    "CSV spelling of collections, tuples and UDTs: cql literals (default) or json as DSBulk writes them",
  ),
  ...conversionShape,
  quiet: z.boolean().optional(),
  withWritetime: z.boolean().optional().describe("also write each regular column's WRITETIME() as a field writetime(c)"),
  withTtl: z.boolean().optional().describe("also write each regular column's TTL() as a field ttl(c)"),
});

export const countSchema = z.strictObject({
  table: z.string().min(1).optional(),
  query: z.string().min(1).optional().describe("count the rows this SELECT returns instead of a table's"),
  by: z.enum(["node", "range", "partition"]).optional().describe("breakdown of the count"),
  partitions: positiveInt.optional().describe("with by partition: how many of the largest partitions to list (default 10)"),
  maxConcurrency: positiveInt.max(1024).optional(),
  consistency: consistency.optional(),
  json: z.boolean().optional(),
});

export const benchSchema = z.strictObject({
  count: positiveInt.optional().describe("operations per phase and concurrency (default 100000)"),
  concurrency: z.array(positiveInt).min(1).optional().describe("concurrency levels (default [1, 64, 1024])"),
  keyspace: z.string().min(1).optional().describe("keyspace of the bench table (default bench)"),
  out: z.string().min(1).optional().describe("directory for results.json and the SVG charts"),
  json: z.boolean().optional(),
});

export const querySchema = z.strictObject({
  format: z.enum(["table", "json", "jsonl", "csv"]).optional(),
  pageSize: positiveInt.optional(),
  maxRows: positiveInt.optional(),
  consistency: consistency.optional(),
  trace: z.boolean().optional(),
  timeZone: z.string().min(1).optional().describe(
    "zone timestamps are printed in, as local time with its offset: UTC (default), a fixed offset (+02:00) or a zone name (America/New_York)",
  ),
});

export const jobSchema = z.strictObject({
  $schema: z.string().optional().describe("editor hint, ignored"),
  connection: connectionSchema.optional(),
  load: loadSchema.optional(),
  unload: unloadSchema.optional(),
  count: countSchema.optional(),
  query: querySchema.optional(),
  bench: benchSchema.optional(),
  password: refusedPassword,
}).describe("cqlwire job configuration");

export type JobConfig = z.infer<typeof jobSchema>;
export type ConnectionConfig = z.infer<typeof connectionSchema>;
export type LoadConfig = z.infer<typeof loadSchema>;
export type ConversionConfig = z.infer<typeof conversionSchema>;
export type QueryConfig = z.infer<typeof querySchema>;
export type UnloadConfig = z.infer<typeof unloadSchema>;
export type CountConfig = z.infer<typeof countSchema>;
export type BenchConfig = z.infer<typeof benchSchema>;

export class JobConfigError extends Error {
  constructor(readonly source: string, readonly problems: string[]) {
    super(`${source}: ${problems.join("; ")}`);
    this.name = "JobConfigError";
  }
}

function describePath(path: PropertyKey[]): string {
  if (path.length === 0) return "(top level)";
  return path.map((key, i) => typeof key === "number" ? `[${key}]` : (i === 0 ? String(key) : `.${String(key)}`))
    .join("");
}

/** Validates parsed JSON; every problem names the path of the offending field. */
export function parseJobConfig(value: unknown, source: string): JobConfig {
  const result = jobSchema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => {
        const path = describePath([...issue.path, key]);
        return /pass(word)?|secret/i.test(key) ? `${path}: ${PASSWORD_REFUSAL}` : `${path}: unknown setting`;
      }).join("; ");
    }
    return `${describePath(issue.path)}: ${issue.message}`;
  });
  throw new JobConfigError(source, problems);
}
