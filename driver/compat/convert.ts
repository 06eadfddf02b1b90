/**
 * cqlwire's values turned into the DataStax driver's representations, one converter compiled
 * per column type, and the CQL type of a DataStax value for unprepared statements.
 */
import { type CqlDate, type CqlDecimal, type CqlDuration, type CqlTime, CqlTimestamp, formatCqlType, parseCqlType, type TypeInfo } from "../src/codec/mod.ts";
import { TimeUuid, Uuid } from "../src/values/uuid.ts";
import { parseUuid } from "../src/values/uuid.ts";
import { bytesView } from "../src/values/bytes.ts";
import { BigDecimal, Integer, Long, longFromBigInt } from "./numbers.ts";
import { Duration, InetAddress, LocalDate, LocalTime, Tuple } from "./values.ts";
import { Vector } from "./vector.ts";
import { hintText } from "./datatypes.ts";

/** The `encoding` client options of the DataStax driver. */
export interface EncodingOptions {
  /** A Map-like constructor for CQL maps (default: plain objects, as the DataStax driver). */
  map?: new (entries?: Iterable<[unknown, unknown]>) => unknown;
  /** A Set-like constructor for CQL sets (default: arrays). */
  set?: new (values?: Iterable<unknown>) => unknown;
  copyBuffer?: boolean;
  useUndefinedAsUnset?: boolean;
  /** bigint and counter columns as native bigint rather than Long. */
  useBigIntAsLong?: boolean;
  /** varint columns as native bigint rather than Integer. */
  useBigIntAsVarint?: boolean;
}

export type Converter = (value: unknown) => unknown;

const identity: Converter = (v) => v;

/** A blob as a Buffer where Node's Buffer exists (a view, no copy). */
const toBuffer: Converter = (v) => (v instanceof Uint8Array ? bytesView(v) : v);

export function converterFor(t: TypeInfo, enc: EncodingOptions): Converter {
  const c = compile(t, enc);
  return c === identity ? identity : (v) => (v === null || v === undefined ? v : c(v));
}

function compile(t: TypeInfo, enc: EncodingOptions): Converter {
  switch (t.kind) {
    case "bigint":
    case "counter":
      return enc.useBigIntAsLong ? identity : (v) => longFromBigInt(v as bigint);
    case "varint":
      return enc.useBigIntAsVarint ? identity : (v) => Integer.fromBigInt(v as bigint);
    case "decimal":
      return (v) => BigDecimal.of(v as CqlDecimal);
    case "uuid":
      return (v) => new Uuid(parseUuid(v as string));
    case "timeuuid":
      return (v) => new TimeUuid(parseUuid(v as string));
    case "inet":
      return (v) => InetAddress.fromString(v as string);
    case "date":
      return (v) => new LocalDate((v as CqlDate).days);
    case "time":
      return (v) => new LocalTime((v as CqlTime).nanos);
    case "duration":
      return (v) => new Duration((v as CqlDuration).months, (v as CqlDuration).days, (v as CqlDuration).nanos);
    case "timestamp":
      // Beyond Date's range there is no DataStax form: the Long of its milliseconds.
      return (v) => (v instanceof CqlTimestamp ? longFromBigInt(v.ms) : v);
    case "blob":
    case "custom":
      return toBuffer;
    case "list": {
      const e = converterFor(t.element, enc);
      return e === identity ? identity : (v) => (v as unknown[]).map(e);
    }
    case "set": {
      const e = converterFor(t.element, enc);
      const Set = enc.set;
      if (Set) return (v) => new Set((v as unknown[]).map(e));
      return e === identity ? identity : (v) => (v as unknown[]).map(e);
    }
    case "map": {
      const k = converterFor(t.key, enc);
      const val = converterFor(t.value, enc);
      const MapClass = enc.map;
      // As DataStax builds it: constructed without arguments, then `set` per entry (a
      // polyfill's constructor need not take entries).
      if (MapClass) {
        return (v) => {
          const out = new MapClass() as { set(key: unknown, value: unknown): unknown };
          for (const [a, b] of v as Map<unknown, unknown>) out.set(k(a), val(b));
          return out;
        };
      }
      // The DataStax default: a plain object keyed by the keys' text.
      return (v) => {
        const out: Record<string, unknown> = {};
        for (const [a, b] of v as Map<unknown, unknown>) out[String(k(a))] = val(b);
        return out;
      };
    }
    case "tuple": {
      const cs = t.elements.map((e) => converterFor(e, enc));
      // A tuple value that stops early has the declared length as DataStax reads it, its
      // missing trailing elements undefined (cqlwire's own value has only those present).
      return (v) => {
        const present = v as unknown[];
        const out = new Array(Math.max(cs.length, present.length));
        for (let i = 0; i < present.length; i++) out[i] = (cs[i] ?? identity)(present[i]);
        return Tuple.fromArray(out);
      };
    }
    case "udt": {
      const fields = t.fields.map((f) => [f.name, converterFor(f.type, enc)] as const);
      return (v) => {
        const record = v as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        for (const [name, c] of fields) if (name in record) out[name] = c(record[name]);
        return out;
      };
    }
    case "vector": {
      // Float and double vectors come as typed arrays; DataStax gives a Vector of numbers.
      const e = converterFor(t.element, enc);
      const subtype = dataStaxTypeName(t.element);
      return (v) => new Vector(Array.from(v as ArrayLike<unknown>, (x) => e(x)), subtype);
    }
    default:
      return identity;
  }
}

/**
 * A type's name as DataStax's `getDataTypeNameByCode` gives it, which names a decoded vector's
 * subtype: text is "varchar" at any depth, no `frozen<>`, a UDT by its bare name, a custom
 * type "custom".
 */
function dataStaxTypeName(t: TypeInfo): string {
  switch (t.kind) {
    case "text":
      return "varchar";
    case "list":
    case "set":
      return `${t.kind}<${dataStaxTypeName(t.element)}>`;
    case "map":
      return `map<${dataStaxTypeName(t.key)}, ${dataStaxTypeName(t.value)}>`;
    case "tuple":
      return `tuple<${t.elements.map(dataStaxTypeName).join(", ")}>`;
    case "vector":
      return `vector<${dataStaxTypeName(t.element)}, ${t.dimension}>`;
    case "udt":
      return t.name;
    case "custom":
      return "custom";
    default:
      return formatCqlType(t);
  }
}

/** DataStax's test for a string it sends as a uuid in an unprepared statement. */
const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The CQL type of a DataStax value class, for an unprepared statement without hints. As
 * DataStax guesses, a string in UUID form goes as a uuid (so `WHERE id = ?` with a UUID string
 * works unprepared, as code written for it expects).
 */
export function hintFor(value: unknown): string | null {
  if (typeof value === "string") return value.length === 36 && UUID_TEXT.test(value) ? "uuid" : null;
  if (value instanceof TimeUuid) return "timeuuid";
  if (value instanceof Uuid) return "uuid";
  if (Long.isLong(value)) return "bigint";
  if (value instanceof Integer) return "varint";
  if (value instanceof BigDecimal) return "decimal";
  if (value instanceof InetAddress) return "inet";
  if (value instanceof LocalDate) return "date";
  if (value instanceof LocalTime) return "time";
  if (value instanceof Duration) return "duration";
  if (value instanceof Vector) return vectorHint(value as Vector | Float32Array);
  if (Array.isArray(value)) return listHint(value);
  return null;
}

/**
 * DataStax sends an array unprepared as a list whose elements it guesses one by one; here the
 * first element's guess types them all (an empty list's bytes are the same for any element).
 * Null when the first element has no guess (a plain object: a map or a UDT needs a hint).
 */
function listHint(value: unknown[]): string | null {
  if (value.length === 0) return "list<text>";
  try {
    return `list<${guessType(value[0])}>`;
  } catch {
    return null;
  }
}

/**
 * The hints of an unprepared statement as DataStax reads them: the user's hint where one is
 * given (a name, a `dataTypes` code or `{ code, info }`), else the guess from the value's class
 * (DataStax guesses for a missing or null hint too). Undefined when there is nothing to say.
 */
export function statementHints(params: unknown[], user: unknown): Array<string | null> | undefined {
  const given = Array.isArray(user) ? user : [];
  let hints: Array<string | null> | undefined;
  for (let i = 0; i < params.length; i++) {
    const h = given[i] === null || given[i] === undefined ? hintFor(params[i]) : completeHint(hintText(given[i]), params[i]);
    if (h !== null) (hints ??= new Array(params.length).fill(null))[i] = h;
  }
  return hints;
}

/**
 * A partial hint ("list", "set", "map": DataStax's encoder then types each element by its
 * value) completed from the value's first element (entry), guessed as for an unhinted array;
 * any other hint as given, as is one whose element has no guess (the codec refuses it). An
 * empty collection's bytes are the same whatever the element type.
 */
function completeHint(hint: string | null, value: unknown): string | null {
  const kind = hint?.trim().toLowerCase();
  try {
    if (kind === "list" || kind === "set") {
      const first = isIterable(value) ? value[Symbol.iterator]().next() : { done: true, value: undefined };
      return `${kind}<${first.done ? "text" : guessType(first.value)}>`;
    }
    if (kind === "map") {
      const entry = value instanceof Map ? value.entries().next().value : value !== null && typeof value === "object" ? Object.entries(value)[0] : undefined;
      return entry === undefined ? "map<text, text>" : `map<${guessType(entry[0])}, ${guessType(entry[1])}>`;
    }
  } catch {
    // no guess for the element: the hint as given
  }
  return hint;
}

function isIterable(value: unknown): value is Iterable<unknown> {
  return value !== null && typeof value === "object" && typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] === "function";
}

/**
 * As DataStax types a vector it sends unprepared: a Float32Array is a float vector; a Vector's
 * subtype is its `subtype` when that names a type, else guessed from its first element.
 */
function vectorHint(value: Vector | Float32Array): string {
  if (value instanceof Float32Array) return `vector<float, ${value.length}>`;
  return `vector<${subtypeName(value.subtype) ?? guessType(value.elements[0])}, ${value.length}>`;
}

function subtypeName(subtype: unknown): string | null {
  if (typeof subtype !== "string") return null;
  try {
    return formatCqlType(parseCqlType(subtype));
  } catch {
    return null;
  }
}

/** DataStax's guess for a value without a type: its class, else a JS number is a double. */
function guessType(value: unknown): string {
  const h = hintFor(value);
  if (h !== null) return h;
  switch (typeof value) {
    case "number":
      return "double";
    case "string":
      return "text";
    case "boolean":
      return "boolean";
  }
  if (value instanceof Date) return "timestamp";
  if (value instanceof Uint8Array) return "blob";
  throw new TypeError(`Cannot guess subtype from element ${String(value)}`);
}

/** Deeper than this, values are left as they are (a cap on the walk below; no CQL type nests so deep). */
const MAX_DEPTH = 64;

/**
 * DataStax encodes an instance of the user's `encoding.map` / `encoding.set` class (a
 * polyfill, or a subclass) as a map or set at any depth, read with its `forEach`; cqlwire's
 * codec takes a JS Map and an array. The same params when no such class is configured (the
 * native Map and Set need nothing) or none is in them.
 */
export function withUserCollections<P extends unknown[] | Record<string, unknown> | null | undefined>(params: P, enc: EncodingOptions): P {
  const M = enc.map === Map ? undefined : enc.map;
  const S = enc.set === Set ? undefined : enc.set;
  if ((!M && !S) || params === null || params === undefined) return params;
  const walk = (v: unknown, depth: number): unknown => {
    if (v === null || typeof v !== "object" || depth > MAX_DEPTH) return v;
    const inner = (x: unknown) => walk(x, depth + 1);
    if (M && v instanceof M) {
      const out = new Map<unknown, unknown>();
      (v as { forEach(f: (value: unknown, key: unknown) => void): void }).forEach((value, key) => out.set(inner(key), inner(value)));
      return out;
    }
    if (S && v instanceof S) {
      const out: unknown[] = [];
      (v as { forEach(f: (value: unknown) => void): void }).forEach((x) => out.push(inner(x)));
      return out;
    }
    if (Array.isArray(v)) {
      const out = v.map(inner);
      return out.some((x, i) => x !== v[i]) ? out : v;
    }
    if (v instanceof Map) {
      let changed = false;
      const out = new Map<unknown, unknown>();
      for (const [key, value] of v) {
        const [k2, v2] = [inner(key), inner(value)];
        if (k2 !== key || v2 !== value) changed = true;
        out.set(k2, v2);
      }
      return changed ? out : v;
    }
    // A UDT, or a map as a plain object.
    if (Object.getPrototypeOf(v) !== Object.prototype) return v;
    const record = v as Record<string, unknown>;
    const entries = Object.entries(record).map(([key, value]) => [key, inner(value)] as const);
    return entries.some(([key, value]) => value !== record[key]) ? Object.fromEntries(entries) : v;
  };
  return walk(params, 0) as P;
}
