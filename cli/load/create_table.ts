// `load --create-table`: the first input is sniffed by the core (types, null words,
// timestamp and date formats; core/src/bulk/sniff.rs), the CREATE TABLE is built from the
// sniffed fields and the --key/--clustering columns, and the table is created (or found with
// the same shape) before the load starts with the sniffed conversion settings.

import { ArgumentError, type SniffedInput, sniffInput } from "../../driver/deno.ts";
import type { DriverClient } from "../context.ts";
import { CliFailure, UsageError } from "../errors.ts";
import { type InputFile, InputReader } from "./input.ts";
import { readSchemaColumns } from "./schema.ts";
import { delimiterHint } from "./table.ts";

/** The default number of records sniffed. */
export const DEFAULT_SNIFF_ROWS = 1000;
/** The most bytes read for a sample, whatever --sniff-rows says. */
export const MAX_SNIFF_BYTES = 16 << 20;

/** Words CQL reserves: as column names they must be quoted. */
const RESERVED = new Set(
  ("add aggregate all allow alter and apply asc authorize batch begin by columnfamily create delete desc describe " +
    "drop entries execute from full grant if in index infinity insert into is keyspace limit materialized modify nan " +
    "norecursive not null of on or order primary rename replace revoke schema select set table to token truncate " +
    "unlogged update use using view where with").split(" "),
);

/** A name as CQL must spell it: bare when it folds to itself and is not reserved, else quoted. */
export function cqlIdentifier(name: string): string {
  if (/^[a-z][a-z0-9_]*$/.test(name) && !RESERVED.has(name)) return name;
  return `"${name.replaceAll('"', '""')}"`;
}

export interface TableShape {
  keyspace: string;
  table: string;
  partitionKey: string[];
  clustering: string[];
}

/** `a,b` of --key and --clustering: exact field names. */
export function parseKeyColumns(text: string | undefined, flag: string): string[] {
  if (text === undefined) return [];
  const names = text.split(",").map((name) => name.trim());
  if (names.some((name) => name === "")) throw new UsageError(`${flag} ${text}: expected field names separated by commas`);
  return names;
}

/** A column of the table to create: its name, CQL type and kind, as system_schema says them. */
export interface PlannedColumn {
  name: string;
  type: string;
  kind: "partition_key" | "clustering" | "regular";
  position: number;
}

/**
 * The columns of the table from the sniffed fields: key columns must be fields with a value
 * in every sampled record; a list in the key is frozen (a key cannot be a multi-cell value).
 */
export function plannedColumns(shape: TableShape, sniffed: SniffedInput): PlannedColumn[] {
  const byName = new Map(sniffed.fields.map((field) => [field.name, field]));
  const keys = [...shape.partitionKey, ...shape.clustering];
  const repeated = keys.find((name, i) => keys.indexOf(name) !== i);
  if (repeated !== undefined) throw new UsageError(`key column ${repeated} is given twice`);
  for (const name of keys) {
    const field = byName.get(name);
    if (field === undefined) {
      throw new UsageError(
        `key column ${name} is not a field of the input (fields: ${sniffed.fields.map((f) => f.name).join(", ")})` +
          delimiterHint(sniffed.fields.map((f) => f.name)),
      );
    }
    if (field.nulls > 0) {
      throw new UsageError(
        `key column ${name} is null (empty, missing or a null word) in ${field.nulls} of the ${sniffed.records} sampled records: a key needs a value in every row`,
      );
    }
  }
  return sniffed.fields.map((field) => {
    const partition = shape.partitionKey.indexOf(field.name);
    const clustering = shape.clustering.indexOf(field.name);
    const key = partition >= 0 || clustering >= 0;
    const type = key && field.cqlType.startsWith("list<") ? `frozen<${field.cqlType}>` : field.cqlType;
    if (partition >= 0) return { name: field.name, type, kind: "partition_key", position: partition };
    if (clustering >= 0) return { name: field.name, type, kind: "clustering", position: clustering };
    return { name: field.name, type, kind: "regular", position: -1 };
  });
}

/** `CREATE TABLE IF NOT EXISTS ks.t (...)`, columns in input order, one per line. */
export function createTableStatement(shape: TableShape, columns: PlannedColumn[]): string {
  const partition = shape.partitionKey.map(cqlIdentifier);
  const partitionText = partition.length === 1 ? partition[0] : `(${partition.join(", ")})`;
  const key = [partitionText, ...shape.clustering.map(cqlIdentifier)].join(", ");
  const lines = columns.map((column) => `  ${cqlIdentifier(column.name)} ${column.type},`);
  return `CREATE TABLE IF NOT EXISTS ${cqlIdentifier(shape.keyspace)}.${cqlIdentifier(shape.table)} (\n` +
    `${lines.join("\n")}\n  PRIMARY KEY (${key})\n)`;
}

/** The sniffed settings as the load flags that say them, for the user to reuse. */
export function settingsAsFlags(sniffed: SniffedInput): string {
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  const flags = sniffed.settings.nullValues.map((word) => `--null-value ${quote(word)}`);
  if (sniffed.settings.timestampFormat !== null) {
    flags.push(`--timestamp-format ${quote(sniffed.settings.timestampFormat)}`);
  }
  if (sniffed.settings.dateFormat !== null) flags.push(`--date-format ${quote(sniffed.settings.dateFormat)}`);
  return flags.join(" ");
}

/**
 * The first bytes of `input` (at most MAX_SNIFF_BYTES, or until `rows` records plus a
 * header surely fit: one line end more than that) sniffed by the core with the load's
 * options.
 */
export async function sniffFile(
  input: InputFile,
  options: Record<string, unknown>,
  rows: number,
): Promise<SniffedInput> {
  if (input.path === "-") throw new UsageError("--create-table cannot sniff stdin: give a file");
  const chunks: Uint8Array[] = [];
  let size = 0;
  let lineEnds = 0;
  let atEnd = true;
  for await (const chunk of new InputReader(input).bytes(0)) {
    chunks.push(chunk);
    size += chunk.length;
    for (const byte of chunk) if (byte === 0x0a) lineEnds++;
    if (size >= MAX_SNIFF_BYTES || lineEnds > rows + 1) {
      atEnd = false;
      break;
    }
  }
  const sample = new Uint8Array(Math.min(size, MAX_SNIFF_BYTES));
  let at = 0;
  for (const chunk of chunks) {
    const piece = chunk.subarray(0, sample.length - at);
    sample.set(piece, at);
    at += piece.length;
  }
  try {
    return sniffInput(sample, options, rows, atEnd && size <= MAX_SNIFF_BYTES);
  } catch (error) {
    if (error instanceof ArgumentError) throw new UsageError(`cannot sniff ${input.path}: ${error.message}`);
    throw error;
  }
}

/** The table's columns as system_schema has them (none when it does not exist). */
async function existingColumns(client: DriverClient, shape: TableShape): Promise<PlannedColumn[]> {
  const rows = await readSchemaColumns(client, shape.keyspace, shape.table);
  return rows.map((row) => ({ ...row, kind: row.kind as PlannedColumn["kind"] }));
}

/** What differs between the table's columns and the planned ones; empty when nothing does. */
export function shapeDifferences(existing: PlannedColumn[], planned: PlannedColumn[]): string[] {
  const describe = (c: PlannedColumn) => c.kind === "regular" ? c.type : `${c.type}, ${c.kind} ${c.position}`;
  const have = new Map(existing.map((column) => [column.name, column]));
  const differences: string[] = [];
  for (const column of planned) {
    const found = have.get(column.name);
    if (found === undefined) differences.push(`column ${column.name} (${describe(column)}) is missing`);
    else if (describe(found) !== describe(column)) {
      differences.push(`column ${column.name} is ${describe(found)}, the input's is ${describe(column)}`);
    }
    have.delete(column.name);
  }
  for (const column of have.values()) differences.push(`column ${column.name} (${describe(column)}) is not in the input`);
  return differences;
}

/**
 * Creates the table unless it exists; an existing table must have exactly the planned
 * columns (names, types, key kinds and positions), or the load is refused. The server's
 * answer to CREATE TABLE comes once the schema agrees across the nodes (the core waits).
 */
export async function ensureTable(
  client: DriverClient,
  shape: TableShape,
  columns: PlannedColumn[],
  statement: string,
  log: (line: string) => void,
): Promise<void> {
  const name = `${shape.keyspace}.${shape.table}`;
  let existing = await existingColumns(client, shape);
  const created = existing.length === 0;
  if (created) {
    await client.execute(statement);
    existing = await existingColumns(client, shape);
  }
  const differences = shapeDifferences(existing, columns);
  if (differences.length > 0) {
    throw new CliFailure(
      `table ${name} exists with another shape than the input's (${differences.join("; ")}): ` +
        `drop it, load into another table, or load without --create-table`,
    );
  }
  log(created ? `created table ${name}` : `table ${name} exists with the input's columns: loading into it`);
}

/** What --create-table adds to a load: the table's shape, its columns and the statement. */
export interface TableCreation {
  shape: TableShape;
  columns: PlannedColumn[];
  statement: string;
  sniffed: SniffedInput;
  /** The input that was sniffed. */
  source: string;
}

/** Sniffs the first input and plans the table (no connection needed). */
export async function planTableCreation(
  shape: TableShape,
  input: InputFile,
  options: Record<string, unknown>,
  rows: number,
): Promise<TableCreation> {
  if (shape.partitionKey.length === 0) throw new UsageError("--create-table needs --key with the partition key columns");
  const sniffed = await sniffFile(input, options, rows);
  const columns = plannedColumns(shape, sniffed);
  return { shape, columns, statement: createTableStatement(shape, columns), sniffed, source: input.path };
}

/** The --dry-run output: what was sniffed as CQL comments, then the statement. */
export function describeCreation(creation: TableCreation): string {
  const { sniffed } = creation;
  return [
    `-- sniffed ${sniffed.records} records of ${creation.source}` +
    (sniffed.skipped > 0 ? ` (${sniffed.skipped} could not be read and were left out)` : ""),
    `-- load settings: ${settingsAsFlags(sniffed)}`,
    `${creation.statement};`,
  ].join("\n");
}
