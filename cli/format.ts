// Rendering of result values: CQL-literal style text (table and csv), JSON text, and the
// cqlsh-like table layout. Rendering is driven by the column's CQL type when known, and by
// the JS value otherwise (for instance UDT columns whose definition we did not fetch).

import type { CqlType } from "./cql_type.ts";

export interface ResultColumn {
  name: string;
  type: CqlType | null;
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

export function bytesToHex(bytes: Uint8Array): string {
  let out = "0x";
  for (const byte of bytes) out += HEX[byte];
  return out;
}

/** Shortest decimal text that reads back as the same 32-bit float. */
export function formatFloat32(value: number): string {
  if (!Number.isFinite(value)) return formatNonFinite(value);
  const single = Math.fround(value);
  for (let precision = 1; precision <= 9; precision++) {
    const candidate = Number(single.toPrecision(precision));
    if (Math.fround(candidate) === single) return String(candidate);
  }
  return String(single);
}

function formatNonFinite(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  return value > 0 ? "Infinity" : "-Infinity";
}

function formatNumber(value: number, type: CqlType | null): string {
  if (type?.kind === "native" && type.name === "float") return formatFloat32(value);
  if (!Number.isFinite(value)) return formatNonFinite(value);
  return String(value);
}

function quoteCqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

function quoteIdentifierIfNeeded(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

/** Value classes (CqlDate, CqlDecimal, ...) carry their own toString; plain objects (UDTs) do not. */
function hasOwnTextForm(value: object): boolean {
  return typeof (value as { toString?: unknown }).toString === "function" &&
    (value as { toString: unknown }).toString !== Object.prototype.toString;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function formatTimestamp(value: Date): string {
  return Number.isNaN(value.getTime()) ? "invalid date" : value.toISOString();
}

// Types whose CQL literal is a quoted string even though the JS value is not text.
const QUOTED_WHEN_NESTED = new Set(["text", "varchar", "ascii", "inet", "date", "time", "timestamp"]);

function elementTypes(type: CqlType | null, count: number): Array<CqlType | null> {
  if (type?.kind === "tuple") return Array.from({ length: count }, (_, i) => type.elements[i] ?? null);
  if (type?.kind === "list" || type?.kind === "set" || type?.kind === "vector") {
    return Array.from({ length: count }, () => type.element);
  }
  return Array.from({ length: count }, () => null);
}

/**
 * CQL literal style text: blobs as 0x.., lists [..], sets {..}, maps {k: v}, tuples (..),
 * UDTs {field: v}, timestamps ISO-8601 UTC with milliseconds. Nested text is quoted so the
 * result reads back as a CQL literal; top-level text is shown as is.
 */
export function formatCqlValue(value: unknown, type: CqlType | null, nested = false): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") {
    if (!nested) return value;
    const quote = type === null || (type.kind === "native" && QUOTED_WHEN_NESTED.has(type.name));
    return quote ? quoteCqlString(value) : value;
  }
  if (typeof value === "number") return formatNumber(value, type);
  if (typeof value === "bigint" || typeof value === "boolean") return String(value);
  if (value instanceof Uint8Array) return bytesToHex(value);
  if (value instanceof Date) {
    const text = formatTimestamp(value);
    return nested ? quoteCqlString(text) : text;
  }
  if (value instanceof Float32Array || value instanceof Float64Array) {
    const elementType = type?.kind === "vector" ? type.element : null;
    const parts = Array.from(
      value,
      (element) =>
        value instanceof Float32Array && elementType === null
          ? formatFloat32(element)
          : formatNumber(element, elementType),
    );
    return `[${parts.join(", ")}]`;
  }
  if (Array.isArray(value)) {
    const types = elementTypes(type, value.length);
    const parts = value.map((element, i) => formatCqlValue(element, types[i], true));
    if (type?.kind === "set") return `{${parts.join(", ")}}`;
    if (type?.kind === "tuple") return `(${parts.join(", ")})`;
    return `[${parts.join(", ")}]`;
  }
  if (value instanceof Map) {
    const keyType = type?.kind === "map" ? type.key : null;
    const valueType = type?.kind === "map" ? type.value : null;
    const parts: string[] = [];
    for (const [key, element] of value) {
      parts.push(`${formatCqlValue(key, keyType, true)}: ${formatCqlValue(element, valueType, true)}`);
    }
    return `{${parts.join(", ")}}`;
  }
  if (value instanceof Set) {
    const elementType = type?.kind === "set" ? type.element : null;
    return `{${Array.from(value, (element) => formatCqlValue(element, elementType, true)).join(", ")}}`;
  }
  if (isPlainRecord(value)) {
    const fields = type?.kind === "udt" ? type.fields : null;
    const parts = Object.entries(value).map(([name, element]) => {
      const fieldType = fields?.find((field) => field.name === name)?.type ?? null;
      return `${quoteIdentifierIfNeeded(name)}: ${formatCqlValue(element, fieldType, true)}`;
    });
    return `{${parts.join(", ")}}`;
  }
  if (typeof value === "object" && hasOwnTextForm(value)) {
    const text = String(value);
    const quote = nested && type?.kind === "native" && QUOTED_WHEN_NESTED.has(type.name);
    return quote ? quoteCqlString(text) : text;
  }
  return String(value);
}

const JSON_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

function jsonKey(key: unknown, type: CqlType | null): string {
  return typeof key === "string" ? key : formatCqlValue(key, type, false);
}

/**
 * JSON text of one value. Written by hand rather than with JSON.stringify so that bigint,
 * varint and decimal values keep every digit: they are written as JSON numbers from their
 * decimal text. NaN and infinities have no JSON number form and become strings.
 */
export function formatJsonValue(value: unknown, type: CqlType | null): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    const text = formatNumber(value, type);
    return Number.isFinite(value) ? text : JSON.stringify(text);
  }
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "boolean") return String(value);
  if (value instanceof Uint8Array) return JSON.stringify(bytesToHex(value));
  if (value instanceof Date) return JSON.stringify(formatTimestamp(value));
  if (value instanceof Float32Array || value instanceof Float64Array) {
    const elementType = type?.kind === "vector" ? type.element : null;
    return `[${
      Array.from(value, (element) =>
        formatJsonValue(element, value instanceof Float32Array && elementType === null ? FLOAT_TYPE : elementType))
        .join(",")
    }]`;
  }
  if (Array.isArray(value)) {
    const types = elementTypes(type, value.length);
    return `[${value.map((element, i) => formatJsonValue(element, types[i])).join(",")}]`;
  }
  if (value instanceof Set) {
    const elementType = type?.kind === "set" ? type.element : null;
    return `[${Array.from(value, (element) => formatJsonValue(element, elementType)).join(",")}]`;
  }
  if (value instanceof Map) {
    const keyType = type?.kind === "map" ? type.key : null;
    const valueType = type?.kind === "map" ? type.value : null;
    const parts: string[] = [];
    for (const [key, element] of value) {
      parts.push(`${JSON.stringify(jsonKey(key, keyType))}:${formatJsonValue(element, valueType)}`);
    }
    return `{${parts.join(",")}}`;
  }
  if (isPlainRecord(value)) {
    const fields = type?.kind === "udt" ? type.fields : null;
    const parts = Object.entries(value).map(([name, element]) => {
      const fieldType = fields?.find((field) => field.name === name)?.type ?? null;
      return `${JSON.stringify(name)}:${formatJsonValue(element, fieldType)}`;
    });
    return `{${parts.join(",")}}`;
  }
  const text = String(value);
  if (type?.kind === "native" && (type.name === "decimal" || type.name === "varint") && JSON_NUMBER.test(text)) {
    return text;
  }
  return JSON.stringify(text);
}

const FLOAT_TYPE: CqlType = { kind: "native", name: "float" };

export function formatJsonRow(row: Record<string, unknown>, columns: ResultColumn[]): string {
  const parts = columns.map((column) =>
    `${JSON.stringify(column.name)}:${formatJsonValue(row[column.name], column.type)}`
  );
  return `{${parts.join(",")}}`;
}

/** RFC 4180 field: quoted when it holds a delimiter, quote, CR or LF, or is empty text. */
export function csvField(text: string | null): string {
  if (text === null) return "";
  if (text === "" || /[",\r\n]/.test(text)) return `"${text.replaceAll('"', '""')}"`;
  return text;
}

/** Empty text is written quoted so that it stays distinct from null, which is an empty field. */
export function formatCsvRow(row: Record<string, unknown>, columns: ResultColumn[]): string {
  return columns.map((column) => {
    const value = row[column.name];
    return csvField(value === null || value === undefined ? null : formatCqlValue(value, column.type));
  }).join(",") + "\r\n";
}

export function formatCsvHeader(columns: ResultColumn[]): string {
  return columns.map((column) => csvField(column.name)).join(",") + "\r\n";
}

const WIDE =
  /[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6]|[\u{1F300}-\u{1F64F}\u{1F900}-\u{1F9FF}\u{20000}-\u{3FFFD}]/u;
const ZERO_WIDTH = /[\p{Mn}\p{Me}\u200B-\u200F\uFE0F]/u;

/** Terminal column count of a string: wide East Asian characters take two, marks none. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) {
    if (ZERO_WIDTH.test(char)) continue;
    width += WIDE.test(char) ? 2 : 1;
  }
  return width;
}

/** Control characters would break the table's alignment, so they are shown escaped. */
export function escapeForTable(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/[\x00-\x1f\x7f]/g, (char) => {
    switch (char) {
      case "\n":
        return "\\n";
      case "\r":
        return "\\r";
      case "\t":
        return "\\t";
      default:
        return `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`;
    }
  });
}

function padEnd(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - displayWidth(text)));
}

function padStart(text: string, width: number): string {
  return " ".repeat(Math.max(0, width - displayWidth(text))) + text;
}

/** cqlsh layout: headers left-aligned, values right-aligned, and a `(N rows)` footer. */
export function formatTable(columns: ResultColumn[], rows: Array<Record<string, unknown>>): string {
  const header = columns.map((column) => escapeForTable(column.name));
  const cells = rows.map((row) =>
    columns.map((column) => escapeForTable(formatCqlValue(row[column.name], column.type)))
  );
  const widths = header.map((name, i) => Math.max(displayWidth(name), ...cells.map((line) => displayWidth(line[i]))));
  const lines = [
    " " + header.map((name, i) => padEnd(name, widths[i])).join(" | "),
    widths.map((width) => "-".repeat(width + 2)).join("+"),
    ...cells.map((line) => " " + line.map((cell, i) => padStart(cell, widths[i])).join(" | ")),
  ];
  return `${lines.map((line) => line.trimEnd()).join("\n")}\n\n(${rows.length} rows)\n`;
}
