// The columns of a Parquet file as `load` reads them: a flat schema of primitive columns and
// lists of primitives, each with the logical type its values have, and which CQL column
// types each can go to. Values themselves are spelled for the core in parquet_values.ts and
// converted there; this is only the container's schema (see ARCHITECTURE.md, "Parquet").

import type { FileMetaData, SchemaElement } from "hyparquet";
import type { TypeInfo } from "../../driver/mod.ts";

/** What a leaf column's values are, after its physical and logical types. */
export type ParquetValue =
  | { kind: "boolean" }
  | { kind: "integer"; unsigned: boolean; bits: number }
  | { kind: "float"; float16: boolean }
  | { kind: "double" }
  | { kind: "decimal"; scale: number }
  | { kind: "string"; json: boolean }
  | { kind: "bytes" }
  | { kind: "uuid" }
  | { kind: "date" }
  /** Time of day in `unit`, spelled as nanoseconds. */
  | { kind: "time"; unit: TimeUnit }
  /** `int96`: the legacy Impala/Spark nanosecond timestamp (julian day + nanos of day). */
  | { kind: "timestamp"; unit: TimeUnit | "int96"; utc: boolean };

export type TimeUnit = "ms" | "us" | "ns";

export interface ParquetColumn {
  /** The top-level field name (the name rows are read by). */
  name: string;
  /** Null when the column cannot be loaded (a struct, map, nested list, unknown type). */
  value: ParquetValue | null;
  /** A LIST of `value` elements. */
  list: boolean;
  /** The Parquet type in its own words, for messages: `INT64 TIMESTAMP(MICROS, UTC)`. */
  label: string;
}

const UNITS: Record<string, TimeUnit> = {
  MILLIS: "ms",
  MICROS: "us",
  NANOS: "ns",
};

function labelOf(element: SchemaElement): string {
  const physical = element.type === "FIXED_LEN_BYTE_ARRAY"
    ? `FIXED_LEN_BYTE_ARRAY(${element.type_length})`
    : element.type ?? "group";
  const logical = element.logical_type;
  if (logical === undefined) {
    return element.converted_type ? `${physical} ${element.converted_type}` : physical;
  }
  switch (logical.type) {
    case "DECIMAL":
      return `${physical} DECIMAL(${logical.precision}, ${logical.scale})`;
    case "INTEGER":
      return `${physical} INT(${logical.bitWidth}, ${logical.isSigned ? "signed" : "unsigned"})`;
    case "TIME":
    case "TIMESTAMP":
      return `${physical} ${logical.type}(${logical.unit}, ${logical.isAdjustedToUTC ? "UTC" : "local"})`;
    default:
      return `${physical} ${logical.type}`;
  }
}

/** The values of a primitive column, or null when `load` has no reading for them. */
export function valueOf(element: SchemaElement): ParquetValue | null {
  const logical = element.logical_type;
  const converted = element.converted_type;
  switch (element.type) {
    case "BOOLEAN":
      return { kind: "boolean" };
    case "INT32":
    case "INT64": {
      const bits = element.type === "INT32" ? 32 : 64;
      if (logical?.type === "DECIMAL" || converted === "DECIMAL") {
        return { kind: "decimal", scale: element.scale ?? 0 };
      }
      if (logical?.type === "DATE" || converted === "DATE") {
        return { kind: "date" };
      }
      if (logical?.type === "TIME") {
        return { kind: "time", unit: UNITS[logical.unit] };
      }
      if (converted === "TIME_MILLIS") return { kind: "time", unit: "ms" };
      if (converted === "TIME_MICROS") return { kind: "time", unit: "us" };
      if (logical?.type === "TIMESTAMP") {
        return {
          kind: "timestamp",
          unit: UNITS[logical.unit],
          utc: logical.isAdjustedToUTC,
        };
      }
      // The converted types predate local timestamps: they are instants (UTC).
      if (converted === "TIMESTAMP_MILLIS") {
        return { kind: "timestamp", unit: "ms", utc: true };
      }
      if (converted === "TIMESTAMP_MICROS") {
        return { kind: "timestamp", unit: "us", utc: true };
      }
      if (logical?.type === "INTEGER") {
        return { kind: "integer", unsigned: !logical.isSigned, bits };
      }
      if (converted?.startsWith("UINT_")) {
        return { kind: "integer", unsigned: true, bits };
      }
      if (
        logical !== undefined ||
        (converted !== undefined && !converted.startsWith("INT_"))
      ) return null;
      return { kind: "integer", unsigned: false, bits };
    }
    case "INT96":
      return logical === undefined && converted === undefined ? { kind: "timestamp", unit: "int96", utc: true } : null;
    case "FLOAT":
      return logical === undefined ? { kind: "float", float16: false } : null;
    case "DOUBLE":
      return logical === undefined ? { kind: "double" } : null;
    case "BYTE_ARRAY":
    case "FIXED_LEN_BYTE_ARRAY": {
      if (logical?.type === "DECIMAL" || converted === "DECIMAL") {
        return { kind: "decimal", scale: element.scale ?? 0 };
      }
      if (
        logical?.type === "STRING" || logical?.type === "ENUM" ||
        converted === "UTF8" || converted === "ENUM"
      ) {
        return { kind: "string", json: false };
      }
      if (logical?.type === "JSON" || converted === "JSON") {
        return { kind: "string", json: true };
      }
      if (logical?.type === "UUID" && element.type_length === 16) {
        return { kind: "uuid" };
      }
      if (logical?.type === "FLOAT16" && element.type_length === 2) {
        return { kind: "float", float16: true };
      }
      if (logical === undefined && converted === undefined) {
        return { kind: "bytes" };
      }
      return null;
    }
    default:
      return null;
  }
}

/** The elements of one top-level field and its subtree, from `at` in the flat schema list. */
function subtree(
  schema: SchemaElement[],
  at: number,
): { elements: SchemaElement[]; next: number } {
  let next = at + 1;
  let open = schema[at]?.num_children ?? 0;
  while (open > 0 && next < schema.length) {
    open += (schema[next].num_children ?? 0) - 1;
    next++;
  }
  return { elements: schema.slice(at, next), next };
}

/** A LIST group of primitives (the 3-level form, or the legacy 2-level one), else null. */
function listElement(elements: SchemaElement[]): SchemaElement | null {
  const [, repeated, leaf] = elements;
  if (repeated === undefined || repeated.repetition_type !== "REPEATED") {
    return null;
  }
  if (elements.length === 2 && repeated.num_children === undefined) {
    return repeated;
  }
  if (
    elements.length === 3 && repeated.num_children === 1 &&
    leaf.num_children === undefined
  ) return leaf;
  return null;
}

/** The top-level columns of a file, in schema order. */
export function parquetColumns(metadata: FileMetaData): ParquetColumn[] {
  const schema = metadata.schema;
  const columns: ParquetColumn[] = [];
  for (let at = 1; at < schema.length;) {
    const { elements, next } = subtree(schema, at);
    const head = elements[0];
    at = next;
    if (head.num_children === undefined) {
      // A repeated primitive at the top is a list of required elements (the spec's legacy rule).
      const list = head.repetition_type === "REPEATED";
      columns.push({
        name: head.name,
        value: valueOf(head),
        list,
        label: list ? `LIST<${labelOf(head)}>` : labelOf(head),
      });
      continue;
    }
    const isList = head.logical_type?.type === "LIST" ||
      head.converted_type === "LIST";
    const element = isList ? listElement(elements) : null;
    if (element === null) {
      const what = head.logical_type?.type ?? head.converted_type ?? "group";
      columns.push({
        name: head.name,
        value: null,
        list: false,
        label: `${what} (nested)`,
      });
      continue;
    }
    columns.push({
      name: head.name,
      value: valueOf(element),
      list: true,
      label: `LIST<${labelOf(element)}>`,
    });
  }
  return columns;
}

const INTEGER_KINDS = new Set([
  "tinyint",
  "smallint",
  "int",
  "bigint",
  "varint",
  "decimal",
]);

/** The CQL kinds each kind of Parquet value can go to; ranges and digits are the core's to check. */
function fitsScalar(value: ParquetValue, type: TypeInfo): boolean {
  const kind = type.kind;
  switch (value.kind) {
    case "boolean":
      return kind === "boolean";
    case "integer":
    case "decimal":
      return INTEGER_KINDS.has(kind);
    case "float":
      return kind === "float" || kind === "double";
    case "double":
      return kind === "double";
    case "string":
      return kind === "text" || kind === "ascii";
    case "bytes":
      // Writers before the STRING annotation wrote text as plain byte arrays.
      return kind === "blob" || kind === "text" || kind === "ascii";
    case "uuid":
      return kind === "uuid" || kind === "timeuuid" || kind === "blob";
    case "date":
      return kind === "date";
    case "time":
      return kind === "time";
    case "timestamp":
      return kind === "timestamp";
  }
}

/** Why `column` cannot go to a column of CQL type `type`, or null when it can. */
export function unfitReason(
  column: ParquetColumn,
  type: TypeInfo,
): string | null {
  if (column.value === null) {
    return "only primitive columns and lists of primitives can be loaded (a nested or unsupported type)";
  }
  if (column.list) {
    if (
      (type.kind === "list" || type.kind === "set") &&
      fitsScalar(column.value, type.element)
    ) return null;
  } else if (fitsScalar(column.value, type)) {
    return null;
  }
  return "the types do not match";
}
