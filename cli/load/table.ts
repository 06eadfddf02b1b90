// The target table of a load: its columns as read from system_schema, the mapping from
// input fields to columns, and the INSERT statement built from that mapping.

import type { CqlType, UdtField } from "../cql_type.ts";
import { UsageError } from "../errors.ts";

export type ColumnKind = "partition_key" | "clustering" | "regular" | "static";

export interface TableColumn {
  name: string;
  kind: ColumnKind;
  /** Position within the partition or clustering key; -1 for other columns. */
  position: number;
  type: CqlType;
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

/**
 * Decides which input field feeds which column. With a header, fields are matched to
 * columns by name (exact, then case-insensitive) unless a map is given; without one, the
 * fields are the table's columns in cqlsh order, or the map names fields by 0-based index.
 */
export function resolveLayout(
  schema: TableSchema,
  header: string[] | null,
  map: Array<[string, string]> | null,
): FieldLayout {
  const bindings: FieldBinding[] = [];
  let expectedFieldCount: number;
  let extraFieldsAllowed = false;
  if (header !== null) {
    expectedFieldCount = header.length;
    const names = header.map((name) => name.trim());
    if (map === null) {
      const unknown = names.filter((name) => findColumn(schema, name) === undefined);
      if (unknown.length > 0) {
        throw new UsageError(
          `header field(s) ${
            unknown.map((n) => `'${n}'`).join(", ")
          } match no column of ${schema.keyspace}.${schema.table}; ` +
            `use --map field=column to choose the fields to load`,
        );
      }
      names.forEach((name, fieldIndex) =>
        bindings.push({ fieldIndex, fieldName: name, column: findColumn(schema, name)! })
      );
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
    expectedFieldCount = schema.columns.length;
    schema.columns.forEach((column, fieldIndex) =>
      bindings.push({ fieldIndex, fieldName: String(fieldIndex), column })
    );
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
        `fields '${previous.fieldName}' and '${binding.fieldName}' both go to column '${binding.column.name}'`,
      );
    }
    seen.set(binding.column.name, binding);
  }
  const unmappedKeys = schema.columns.filter((column) => isPrimaryKey(column) && !seen.has(column.name));
  if (unmappedKeys.length > 0) {
    throw new UsageError(
      `primary key column(s) ${unmappedKeys.map((c) => `'${c.name}'`).join(", ")} get no input field`,
    );
  }
  const counters = bindings.filter((b) => b.column.type.kind === "native" && b.column.type.name === "counter");
  if (counters.length > 0) {
    throw new UsageError(
      `counter column '${counters[0].column.name}' cannot be loaded with INSERT (counter tables are not supported yet)`,
    );
  }
  return { bindings, expectedFieldCount, extraFieldsAllowed };
}

export function buildInsert(schema: TableSchema, bindings: FieldBinding[]): string {
  const columns = bindings.map((binding) => quoteIdentifier(binding.column.name)).join(", ");
  const markers = bindings.map(() => "?").join(", ");
  return `INSERT INTO ${quoteIdentifier(schema.keyspace)}.${
    quoteIdentifier(schema.table)
  } (${columns}) VALUES (${markers})`;
}

export interface UdtDefinition {
  name: string;
  fieldNames: string[];
  fieldTypes: CqlType[];
}

/** Fills in the fields of every UDT reference inside `type`, recursively. */
export function attachUdtDefinitions(type: CqlType, definitions: Map<string, UdtDefinition>, depth = 0): CqlType {
  if (depth > 32) throw new UsageError("user-defined types nest deeper than 32 levels");
  const recurse = (inner: CqlType) => attachUdtDefinitions(inner, definitions, depth + 1);
  switch (type.kind) {
    case "list":
    case "set":
      return { kind: type.kind, element: recurse(type.element) };
    case "vector":
      return { kind: "vector", element: recurse(type.element), dimension: type.dimension };
    case "map":
      return { kind: "map", key: recurse(type.key), value: recurse(type.value) };
    case "tuple":
      return { kind: "tuple", elements: type.elements.map(recurse) };
    case "udt": {
      const definition = definitions.get(type.name);
      if (!definition) return type;
      const fields: UdtField[] = definition.fieldNames.map((name, i) => ({
        name,
        type: recurse(definition.fieldTypes[i]),
      }));
      return { ...type, fields };
    }
    default:
      return type;
  }
}
