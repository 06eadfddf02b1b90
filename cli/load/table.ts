// The target table of a load: its columns as read from system_schema, the mapping from
// input fields to columns, and the INSERT statement built from that mapping.

import type { TypeInfo } from "../../driver/mod.ts";
import { UsageError } from "../errors.ts";

export type ColumnKind = "partition_key" | "clustering" | "regular" | "static";

export interface TableColumn {
  name: string;
  kind: ColumnKind;
  /** Position within the partition or clustering key; -1 for other columns. */
  position: number;
  type: TypeInfo;
  typeText: string;
}

export interface TableSchema {
  keyspace: string;
  table: string;
  /** In cqlsh order: partition key, clustering key, then the others by name. */
  columns: TableColumn[];
}

const KIND_ORDER: Record<ColumnKind, number> = { partition_key: 0, clustering: 1, static: 2, regular: 2 };

export function orderColumns(columns: TableColumn[]): TableColumn[] {
  return [...columns].sort((a, b) =>
    KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.position - b.position ||
    (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  );
}

export function isPrimaryKey(column: TableColumn): boolean {
  return column.kind === "partition_key" || column.kind === "clustering";
}

/** Identifier as CQL reads it: unquoted names fold to lower case, "Quoted" ones are exact. */
function parseIdentifier(text: string, what: string): { name: string; rest: string } {
  if (text.startsWith('"')) {
    let name = "";
    let i = 1;
    for (;;) {
      const close = text.indexOf('"', i);
      if (close < 0) throw new UsageError(`unterminated quoted ${what} name in '${text}'`);
      name += text.slice(i, close);
      if (text[close + 1] === '"') {
        name += '"';
        i = close + 2;
        continue;
      }
      return { name, rest: text.slice(close + 1) };
    }
  }
  const match = /^[A-Za-z0-9_]+/.exec(text);
  if (!match) throw new UsageError(`invalid ${what} name in '${text}'`);
  return { name: match[0].toLowerCase(), rest: text.slice(match[0].length) };
}

/** "ks.tbl", "tbl" (with a default keyspace) or quoted forms like "Ks"."Tbl". */
export function parseTableName(text: string, defaultKeyspace: string | undefined): { keyspace: string; table: string } {
  const first = parseIdentifier(text.trim(), "table");
  if (first.rest === "") {
    if (defaultKeyspace === undefined) {
      throw new UsageError(`--table ${text} has no keyspace: write keyspace.table or give --keyspace`);
    }
    return { keyspace: defaultKeyspace, table: first.name };
  }
  if (!first.rest.startsWith(".")) throw new UsageError(`invalid table name '${text}'`);
  const second = parseIdentifier(first.rest.slice(1), "table");
  if (second.rest !== "") throw new UsageError(`invalid table name '${text}'`);
  return { keyspace: first.name, table: second.name };
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** `--map "field=column,field2=column2"`. */
export function parseMapSpec(spec: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const part of spec.split(",")) {
    if (part.trim() === "") continue;
    const equals = part.indexOf("=");
    if (equals < 0) throw new UsageError(`invalid --map entry '${part.trim()}': expected field=column`);
    const field = part.slice(0, equals).trim();
    const column = part.slice(equals + 1).trim();
    if (field === "" || column === "") {
      throw new UsageError(`invalid --map entry '${part.trim()}': expected field=column`);
    }
    pairs.push([field, column]);
  }
  if (pairs.length === 0) throw new UsageError("--map is empty");
  return pairs;
}

export interface FieldBinding {
  /** Index of the field in each input record. */
  fieldIndex: number;
  /** Header name, or the index as text when there is no header. */
  fieldName: string;
  column: TableColumn;
}

export interface FieldLayout {
  bindings: FieldBinding[];
  /** Records with another field count are bad rows. */
  expectedFieldCount: number;
  /**
   * Without a header the width of the input is unknown, so a map by index only requires
   * the fields it names to be present.
   */
  extraFieldsAllowed: boolean;
}

function findColumn(schema: TableSchema, name: string): TableColumn | undefined {
  const exact = schema.columns.find((column) => column.name === name);
  if (exact) return exact;
  const folded = schema.columns.filter((column) => column.name.toLowerCase() === name.toLowerCase());
  return folded.length === 1 ? folded[0] : undefined;
}

function columnOrFail(schema: TableSchema, name: string, origin: string): TableColumn {
  const column = findColumn(schema, name);
  if (!column) {
    throw new UsageError(
      `${origin}: table ${schema.keyspace}.${schema.table} has no column '${name}' (columns: ${
        schema.columns.map((c) => c.name).join(", ")
      })`,
    );
  }
  return column;
}

export interface LayoutOptions {
  /** Input fields (header names, or 0-based indexes without a header) that are not loaded. */
  skip?: readonly string[];
  /** Columns that get a constant (--set) instead of an input field. */
  constants?: readonly string[];
  /** Fields that match no column are ignored rather than refused (custom --query). */
  ignoreUnknown?: boolean;
  /** Every column must get a field or a constant (the bind markers of a custom --query). */
  requireAll?: boolean;
  /** What the targets are called in messages. */
  targetWord?: string;
}

/**
 * A hint for a header read as one field that holds another common delimiter (a TSV or a
 * European CSV loaded with the default comma), else "".
 */
export function delimiterHint(names: string[]): string {
  if (names.length !== 1) return "";
  const found = ["\t", ";", "|"].find((c) => names[0].includes(c));
  if (found === undefined) return "";
  const [what, name] = found === "\t" ? ["a tab", "tab"] : [`'${found}'`, `'${found}'`];
  return ` (the header is one field with ${what} in it: is the input ${name}-separated? --delimiter ${name})`;
}

/**
 * Decides which input field feeds which column. With a header, fields are matched to
 * columns by name (exact, then case-insensitive) unless a map is given; without one, the
 * fields are the table's columns in cqlsh order (less those given by --set), or the map
 * names fields by 0-based index.
 */
export function resolveLayout(
  schema: TableSchema,
  header: string[] | null,
  map: Array<[string, string]> | null,
  options: LayoutOptions = {},
): FieldLayout {
  const bindings: FieldBinding[] = [];
  const skip = new Set(options.skip ?? []);
  const constants = new Set(options.constants ?? []);
  const targetWord = options.targetWord ?? "column";
  let expectedFieldCount: number;
  let extraFieldsAllowed = false;
  if (header !== null) {
    expectedFieldCount = header.length;
    const names = header.map((name) => name.trim());
    if (map === null) {
      const unknown = names.filter((name) => !skip.has(name) && findColumn(schema, name) === undefined);
      if (unknown.length > 0 && !options.ignoreUnknown) {
        throw new UsageError(
          `header field(s) ${
            unknown.map((n) => `'${n}'`).join(", ")
          } match no column of ${schema.keyspace}.${schema.table}; ` +
            `use --map field=column to choose the fields to load, or --skip to leave some out` +
            (unknown.includes("") ? ` (an empty name: the header ends in a delimiter; --map the fields to load)` : "") +
            delimiterHint(names),
        );
      }
      names.forEach((name, fieldIndex) => {
        if (skip.has(name)) return;
        const column = findColumn(schema, name);
        if (column !== undefined) bindings.push({ fieldIndex, fieldName: name, column });
      });
    } else {
      for (const [field, columnName] of map) {
        const fieldIndex = names.indexOf(field);
        if (fieldIndex < 0) {
          throw new UsageError(`--map: the header has no field '${field}' (fields: ${names.join(", ")})`);
        }
        bindings.push({ fieldIndex, fieldName: field, column: columnOrFail(schema, columnName, "--map") });
      }
    }
  } else if (map === null) {
    const positional = schema.columns.filter((column) => !constants.has(column.name));
    expectedFieldCount = positional.length;
    positional.forEach((column, fieldIndex) => {
      if (!skip.has(String(fieldIndex))) bindings.push({ fieldIndex, fieldName: String(fieldIndex), column });
    });
  } else {
    let highest = -1;
    for (const [field, columnName] of map) {
      if (!/^[0-9]+$/.test(field)) {
        throw new UsageError(`--map: without a header, fields are 0-based indexes, not '${field}'`);
      }
      const fieldIndex = Number(field);
      highest = Math.max(highest, fieldIndex);
      bindings.push({ fieldIndex, fieldName: field, column: columnOrFail(schema, columnName, "--map") });
    }
    expectedFieldCount = highest + 1;
    extraFieldsAllowed = true;
  }

  const seen = new Map<string, FieldBinding>();
  for (const binding of bindings) {
    const previous = seen.get(binding.column.name);
    if (previous) {
      throw new UsageError(
        `fields '${previous.fieldName}' and '${binding.fieldName}' both go to ${targetWord} '${binding.column.name}'`,
      );
    }
    if (constants.has(binding.column.name)) {
      throw new UsageError(
        `${targetWord} '${binding.column.name}' gets both field '${binding.fieldName}' and a --set constant`,
      );
    }
    seen.set(binding.column.name, binding);
  }
  const unfed = schema.columns.filter((column) =>
    (options.requireAll || isPrimaryKey(column)) && !seen.has(column.name) && !constants.has(column.name)
  );
  if (unfed.length > 0) {
    const what = options.requireAll ? `${targetWord}(s)` : "primary key column(s)";
    throw new UsageError(`${what} ${unfed.map((c) => `'${c.name}'`).join(", ")} get no input field`);
  }
  return { bindings, expectedFieldCount, extraFieldsAllowed };
}

export function isCounter(column: TableColumn): boolean {
  return column.type.kind === "counter";
}

export function isCounterTable(schema: TableSchema): boolean {
  return schema.columns.some(isCounter);
}

export function qualifiedName(schema: { keyspace: string; table: string }): string {
  return `${quoteIdentifier(schema.keyspace)}.${quoteIdentifier(schema.table)}`;
}

export interface WriteOptions {
  /** Seconds; 0 means no expiry. */
  ttl?: number;
  /** Write time in microseconds since the epoch. */
  timestamp?: bigint;
}

export interface WriteStatement {
  statement: string;
  /** The i-th bind marker takes values[order[i]] of the columns as given. */
  order: number[];
}

/**
 * The statement writing `columns` (values in that order): an INSERT, or for a counter table
 * an UPDATE adding each value to its counter (counters cannot be inserted), whose bind
 * markers come in another order, given by `order`.
 */
export function buildWrite(schema: TableSchema, columns: TableColumn[], options: WriteOptions = {}): WriteStatement {
  const table = qualifiedName(schema);
  if (isCounterTable(schema)) {
    if (options.ttl !== undefined || options.timestamp !== undefined) {
      throw new UsageError("counter tables take neither --ttl nor --timestamp");
    }
    const updates: number[] = [];
    const keys: number[] = [];
    columns.forEach((column, i) => {
      if (isPrimaryKey(column)) keys.push(i);
      else if (isCounter(column)) updates.push(i);
      else throw new UsageError(`column '${column.name}' of a counter table is neither a key nor a counter`);
    });
    if (updates.length === 0) throw new UsageError("no counter column gets a value");
    const set = updates.map((i) => {
      const name = quoteIdentifier(columns[i].name);
      return `${name} = ${name} + ?`;
    }).join(", ");
    const where = keys.map((i) => `${quoteIdentifier(columns[i].name)} = ?`).join(" AND ");
    return { statement: `UPDATE ${table} SET ${set} WHERE ${where}`, order: [...updates, ...keys] };
  }
  const names = columns.map((column) => quoteIdentifier(column.name)).join(", ");
  const markers = columns.map(() => "?").join(", ");
  const using: string[] = [];
  if (options.ttl !== undefined) using.push(`TTL ${options.ttl}`);
  if (options.timestamp !== undefined) using.push(`TIMESTAMP ${options.timestamp}`);
  const suffix = using.length > 0 ? ` USING ${using.join(" AND ")}` : "";
  return {
    statement: `INSERT INTO ${table} (${names}) VALUES (${markers})${suffix}`,
    order: columns.map((_, i) => i),
  };
}

export function buildInsert(schema: TableSchema, bindings: FieldBinding[]): string {
  return buildWrite(schema, bindings.map((binding) => binding.column)).statement;
}
