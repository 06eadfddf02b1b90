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
    insecure: z.boolean().optional().describe("skip certificate verification (explicit opt-out)"),
    serverName: z.string().min(1).optional().describe("name to verify the certificate against"),
  }).optional().describe("present: connect with TLS"),
  username: z.string().min(1).optional(),
  password: refusedPassword,
});

const singleChar = z.string().length(1, "expected exactly one character");

export const loadSchema = z.strictObject({
  files: z.array(z.string().min(1)).min(1).optional().describe("CSV files to load, '-' for stdin"),
  table: z.string().min(1).optional().describe("target table, keyspace.table or table"),
  map: z.union([
    z.string().min(1).describe("field=column,field=column"),
    z.record(z.string().min(1), z.string().min(1)).describe("{ field: column }"),
  ]).optional().describe("which CSV field goes to which column; fields not listed are skipped"),
  header: z.boolean().optional().describe("the first record names the fields (default true)"),
  delimiter: singleChar.optional(),
  quote: singleChar.optional(),
  escape: singleChar.optional(),
  comment: singleChar.optional(),
  nullValues: z.array(z.string()).optional().describe('unquoted field texts that mean null (default [""])'),
  maxConcurrency: positiveInt.max(4096).optional().describe("requests in flight (default 64)"),
  maxErrors: positiveInt.optional().describe("stop once this many bad rows were recorded"),
  badDir: z.string().min(1).optional().describe("directory for .bad and .errors.log files (default ./cqlwire-logs)"),
  consistency: consistency.optional(),
  json: z.boolean().optional().describe("print the summary as JSON"),
});

export const querySchema = z.strictObject({
  format: z.enum(["table", "json", "csv"]).optional(),
  pageSize: positiveInt.optional(),
  maxRows: positiveInt.optional(),
  consistency: consistency.optional(),
  trace: z.boolean().optional(),
});

export const jobSchema = z.strictObject({
  $schema: z.string().optional().describe("editor hint, ignored"),
  connection: connectionSchema.optional(),
  load: loadSchema.optional(),
  query: querySchema.optional(),
  password: refusedPassword,
}).describe("cqlwire job configuration");

export type JobConfig = z.infer<typeof jobSchema>;
export type ConnectionConfig = z.infer<typeof connectionSchema>;
export type LoadConfig = z.infer<typeof loadSchema>;
export type QueryConfig = z.infer<typeof querySchema>;

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
