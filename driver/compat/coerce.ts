/**
 * DataStax's encoder takes numeric strings for numeric columns of a prepared statement
 * ("5" for an int, "5" for a bigint or varint, "1.5" for a double, also as the elements,
 * values and keys of collections), prepared or unprepared with hints, as code passing HTTP
 * query parameters relies on; cqlwire's codec refuses them. Only after the codec has refused a
 * statement's values are its bind types looked up and such strings turned into numbers, when
 * that loses nothing: the path that works costs nothing. The lossy conversions DataStax also
 * makes (5.5 into an int truncated, any truthy value as a boolean `true`) stay refused.
 */
import { parseCqlType, type TypeInfo } from "../src/codec/mod.ts";
import { Vector } from "./vector.ts";

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** `value` with numeric strings as numbers where `t` (or its collections' elements) is numeric. */
function coerce(t: TypeInfo, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  switch (t.kind) {
    case "int":
    case "smallint":
    case "tinyint":
      return typeof value === "string" && INTEGER.test(value) ? Number(value) : value;
    case "bigint":
    case "counter":
    case "varint":
      return typeof value === "string" && INTEGER.test(value) ? BigInt(value) : value;
    case "float":
    case "double":
      return typeof value === "string" && DECIMAL.test(value) ? Number(value) : value;
    case "list":
    case "set":
      return Array.isArray(value) ? sameOrMapped(value, (v) => coerce(t.element, v)) : value;
    case "map":
      return coerceMap(t.key, t.value, value);
    case "vector":
      return coerceVector(t.element, value);
    default:
      return value;
  }
}

/** The array itself when no element changed, else the changed copy. */
function sameOrMapped(values: unknown[], f: (v: unknown) => unknown): unknown[] {
  const out = values.map(f);
  return out.some((v, i) => v !== values[i]) ? out : values;
}

/** A map as a JS Map or a plain object (DataStax's default): keys and values by their types. */
function coerceMap(key: TypeInfo, val: TypeInfo, value: unknown): unknown {
  if (value instanceof Map) {
    const out = new Map<unknown, unknown>();
    let changed = false;
    for (const [k, v] of value) {
      const [k2, v2] = [coerce(key, k), coerce(val, v)];
      if (k2 !== k || v2 !== v) changed = true;
      out.set(k2, v2);
    }
    return changed ? out : value;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value) || ArrayBuffer.isView(value)) return value;
  // A plain object's keys are text: DataStax encodes them by the key type ({ 1: "a" } into a
  // map<int, text>), so numeric keys of a numeric key type make it a Map of numbers.
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  const entries = keys.map((k) => [coerce(key, k), coerce(val, record[k])] as const);
  if (entries.some(([k2], i) => k2 !== keys[i])) return new Map(entries);
  if (entries.every(([, v2], i) => v2 === record[keys[i]])) return value;
  return Object.fromEntries(entries);
}

/** A vector's elements by its subtype: the codec takes the plain array of them. */
function coerceVector(element: TypeInfo, value: unknown): unknown {
  const elements = Array.isArray(value) ? value : value instanceof Vector && !(value instanceof Float32Array) ? value.elements : null;
  if (elements === null) return value;
  const out = sameOrMapped(elements, (v) => coerce(element, v));
  return out === elements ? value : out;
}

/** A bind type's text through the one type parser; null for a name it does not read. */
function typeOf(type: string | null | undefined): TypeInfo | null {
  if (typeof type !== "string") return null;
  try {
    return parseCqlType(type);
  } catch {
    return null;
  }
}

type Params = unknown[] | Record<string, unknown>;

/** `params` with numeric strings converted by their bind types; null when none changed. */
export function coerceNumericStrings(columns: ReadonlyArray<{ name: string; type: string | null }>, params: Params): Params | null {
  let changed = false;
  const one = (type: string | null | undefined, v: unknown) => {
    const t = typeOf(type);
    const c = t === null ? v : coerce(t, v);
    if (c !== v) changed = true;
    return c;
  };
  let out: Params;
  if (Array.isArray(params)) out = params.map((v, i) => one(columns[i]?.type, v));
  else {
    const types = new Map(columns.map((c) => [c.name.toLowerCase(), c.type]));
    out = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, one(types.get(k.toLowerCase()), v)]));
  }
  return changed ? out : null;
}
