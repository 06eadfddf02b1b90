/**
 * CQL values ⇄ JavaScript values, lossless in range and precision.
 *
 * | CQL                          | JavaScript                                               |
 * |------------------------------|----------------------------------------------------------|
 * | ascii, text, varchar         | string                                                   |
 * | boolean                      | boolean                                                  |
 * | tinyint, smallint, int       | number                                                   |
 * | float, double                | number                                                   |
 * | bigint, counter, varint      | bigint                                                   |
 * | decimal                      | CqlDecimal                                               |
 * | timestamp                    | Date; CqlTimestamp beyond Date's ±8.64e15 ms range       |
 * | date                         | CqlDate (signed days since 1970-01-01)                   |
 * | time                         | CqlTime (bigint nanoseconds since midnight)              |
 * | duration                     | CqlDuration                                              |
 * | uuid, timeuuid               | lowercase hyphenated string                              |
 * | inet                         | string                                                   |
 * | blob, custom                 | Uint8Array, never aliasing the caller's buffer (see below) |
 * | list, set, tuple             | Array                                                    |
 * | map                          | Map (wire order)                                         |
 * | udt                          | plain object, fields in type order                       |
 * | vector<float,n>/<double,n>   | Float32Array / Float64Array; other vectors: Array        |
 *
 * Blobs decoded by `parseResult` are views into one private copy of the page made per
 * RESULT (a copy per cell costs ~150 ns and a page of garbage ArrayBuffers): they never see
 * later reuse of the caller's buffer, but keeping one alive keeps that copy alive; `slice()`
 * a blob you keep long-term from a large page. `decodeValue` copies just the value.
 *
 * A value of zero bytes is CQL's legacy "empty" value. It decodes to null for the types
 * whose Cassandra serializers accept it (boolean, int, bigint, counter, float, double,
 * decimal, varint, timestamp, uuid, timeuuid, inet); it is "" or an empty Uint8Array for
 * strings and blobs, [] and {} for tuples and UDTs (which may hold fewer components than
 * their type declares), and an error for every other type.
 *
 * Decoders are compiled once per type into closures specialised for it, so decoding a cell
 * is one indirect call with no per-cell lookups or intermediate objects.
 */
import { CqlProtocolError, CqlTypeError, renderValue } from "./errors.ts";
import { decodeVarint, encodeVarint, readUnsignedVintNumber, readVint, vintEnd, writeUnsignedVintNumber, writeVint, unsignedVintSizeOfNumber } from "./numeric.ts";
import { decodeAscii, decodeUtf8, formatInetAddress, viewOf } from "./reader.ts";
import { type CqlValueSource, CqlDate, CqlDecimal, CqlDuration, CqlTime, CqlTimestamp, MAX_DATE_MS, toCqlValue, unset } from "./scalars.ts";
import { type ColumnSpec, fixedValueSize, formatCqlType, type TypeInfo } from "./types.ts";
import type { Writer } from "./writer.ts";

/**
 * Decodes the value in `u8[start, start+length)`, `length >= 0`, already bounds-checked
 * against `u8`. `view` spans exactly `u8`.
 */
export type ValueDecoder = (u8: Uint8Array, view: DataView, start: number, length: number) => unknown;
/** Writes the serialized form of `value` (no length prefix) to `w`. */
export type ValueEncoder = (w: Writer, value: unknown) => void;

// ---------------------------------------------------------------------------------------
// Decoding

const decoderCache = new WeakMap<TypeInfo, ValueDecoder>();

/** The compiled decoder for `t` (cached per TypeInfo object). */
export function decoderFor(t: TypeInfo): ValueDecoder {
  let decoder = decoderCache.get(t);
  if (decoder === undefined) {
    decoder = compileDecoder(t);
    decoderCache.set(t, decoder);
  }
  return decoder;
}

function wrongLength(typeName: string, at: number, length: number, expected: string): never {
  throw new CqlProtocolError("remote", typeName, at, `value of ${length} bytes, expected ${expected}`);
}

/**
 * A decoder for types whose values have one size. `emptyIsNull` for the types whose
 * serializers still accept the legacy zero-length value (Int32Type, LongType...), unlike
 * the later ones (tinyint, smallint, date, time), which reject it.
 */
function fixed(typeName: string, size: number, emptyIsNull: boolean, read: ValueDecoder): ValueDecoder {
  const field = `${typeName} value`;
  return (u8, view, start, length) => {
    if (length === size) return read(u8, view, start, length);
    if (length === 0 && emptyIsNull) return null;
    return wrongLength(field, start, length, String(size));
  };
}

const TWO_32 = 4294967296;

const HEX_DIGITS = new Uint8Array([48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102]);

/** One flat string in one call: several times faster than concatenating 20 pieces. */
function formatUuid(u8: Uint8Array, s: number): string {
  const x = HEX_DIGITS;
  const b0 = u8[s], b1 = u8[s + 1], b2 = u8[s + 2], b3 = u8[s + 3], b4 = u8[s + 4], b5 = u8[s + 5], b6 = u8[s + 6], b7 = u8[s + 7];
  const b8 = u8[s + 8], b9 = u8[s + 9], b10 = u8[s + 10], b11 = u8[s + 11], b12 = u8[s + 12], b13 = u8[s + 13], b14 = u8[s + 14], b15 = u8[s + 15];
  return String.fromCharCode(
    x[b0 >> 4], x[b0 & 15], x[b1 >> 4], x[b1 & 15], x[b2 >> 4], x[b2 & 15], x[b3 >> 4], x[b3 & 15], 45,
    x[b4 >> 4], x[b4 & 15], x[b5 >> 4], x[b5 & 15], 45,
    x[b6 >> 4], x[b6 & 15], x[b7 >> 4], x[b7 & 15], 45,
    x[b8 >> 4], x[b8 & 15], x[b9 >> 4], x[b9 & 15], 45,
    x[b10 >> 4], x[b10 & 15], x[b11 >> 4], x[b11 & 15], x[b12 >> 4], x[b12 & 15],
    x[b13 >> 4], x[b13 & 15], x[b14 >> 4], x[b14 & 15], x[b15 >> 4], x[b15 & 15],
  );
}

const decodeUuid = fixed("uuid", 16, true, (u8, _v, s) => formatUuid(u8, s));
const decodeTimeuuid = fixed("timeuuid", 16, true, (u8, _v, s) => {
  const version = u8[s + 6] >> 4;
  if (version !== 1) throw new CqlProtocolError("remote", "timeuuid value", s + 6, `UUID version ${version}, expected 1`);
  return formatUuid(u8, s);
});

const decodeTimestamp = fixed("timestamp", 8, true, (_u8, view, s) => {
  const high = view.getInt32(s);
  // Below 2^21 in the high word the value is under 2^53, so the double is exact.
  if (high >= -0x20_0000 && high < 0x20_0000) {
    const ms = high * TWO_32 + view.getUint32(s + 4);
    if (ms >= -MAX_DATE_MS && ms <= MAX_DATE_MS) return new Date(ms);
  }
  return new CqlTimestamp(view.getBigInt64(s));
});

const decodeTime = fixed("time", 8, false, (_u8, view, s) => {
  const nanos = view.getBigInt64(s);
  if (nanos < 0n || nanos > CqlTime.MAX_NANOS) throw new CqlProtocolError("remote", "time value", s, `${nanos} ns is not a time of day`);
  return new CqlTime(nanos);
});

const decodeDuration: ValueDecoder = (u8, _view, start, length) => {
  const end = start + length;
  const months = readVint(u8, start, end, "duration months");
  const monthsEnd = vintEnd;
  const days = readVint(u8, monthsEnd, end, "duration days");
  const daysEnd = vintEnd;
  const nanos = readVint(u8, daysEnd, end, "duration nanoseconds");
  if (vintEnd !== end) throw new CqlProtocolError("remote", "duration value", vintEnd, `${end - vintEnd} unexpected trailing bytes`);
  if (months < -0x8000_0000n || months > 0x7fff_ffffn) throw new CqlProtocolError("remote", "duration months", start, `months ${months} overflow an int`);
  if (days < -0x8000_0000n || days > 0x7fff_ffffn) throw new CqlProtocolError("remote", "duration days", monthsEnd, `days ${days} overflow an int`);
  const anyNegative = months < 0n || days < 0n || nanos < 0n;
  const anyPositive = months > 0n || days > 0n || nanos > 0n;
  if (anyNegative && anyPositive) throw new CqlProtocolError("remote", "duration value", daysEnd, "months, days and nanoseconds have mixed signs");
  return new CqlDuration(Number(months), Number(days), nanos);
};

const decodeVarintValue: ValueDecoder = (u8, _view, start, length) => (length === 0 ? null : decodeVarint(u8, start, length));

const decodeDecimal: ValueDecoder = (u8, view, start, length) => {
  if (length === 0) return null;
  if (length < 4) return wrongLength("decimal scale", start, length, "at least 5 (scale and unscaled value)");
  if (length === 4) throw new CqlProtocolError("remote", "decimal unscaled value", start + 4, "a scale without an unscaled value");
  return new CqlDecimal(decodeVarint(u8, start + 4, length - 4), view.getInt32(start));
};

const decodeInet: ValueDecoder = (u8, _view, start, length) => {
  if (length === 4 || length === 16) return formatInetAddress(u8, start, length);
  if (length === 0) return null;
  return wrongLength("inet value", start, length, "4 or 16");
};

const NATIVE_DECODERS: Record<string, ValueDecoder> = {
  ascii: (u8, _v, s, n) => decodeAscii(u8, s, n, "ascii value"),
  text: (u8, _v, s, n) => decodeUtf8(u8, s, n, "text value"),
  // A view, not a copy: callers decode from bytes of their own (see decodeValue, parseResult).
  blob: (u8, _v, s, n) => u8.subarray(s, s + n),
  boolean: fixed("boolean", 1, true, (u8, _v, s) => u8[s] !== 0),
  tinyint: fixed("tinyint", 1, false, (_u8, v, s) => v.getInt8(s)),
  smallint: fixed("smallint", 2, false, (_u8, v, s) => v.getInt16(s)),
  int: fixed("int", 4, true, (_u8, v, s) => v.getInt32(s)),
  bigint: fixed("bigint", 8, true, (_u8, v, s) => v.getBigInt64(s)),
  counter: fixed("counter", 8, true, (_u8, v, s) => v.getBigInt64(s)),
  float: fixed("float", 4, true, (_u8, v, s) => v.getFloat32(s)),
  double: fixed("double", 8, true, (_u8, v, s) => v.getFloat64(s)),
  date: fixed("date", 4, false, (_u8, v, s) => new CqlDate(v.getUint32(s) - 0x8000_0000)),
  uuid: decodeUuid,
  timeuuid: decodeTimeuuid,
  timestamp: decodeTimestamp,
  time: decodeTime,
  duration: decodeDuration,
  varint: decodeVarintValue,
  decimal: decodeDecimal,
  inet: decodeInet,
};

/**
 * Reads `count` `[bytes]` elements of `[pos, end)` with `decode`. Returns the end position
 * through `elementsEnd` so collections can check that nothing trails.
 */
let elementsEnd = 0;

function readElement(u8: Uint8Array, view: DataView, pos: number, end: number, decode: ValueDecoder, typeName: string): unknown {
  if (pos + 4 > end) throw new CqlProtocolError("remote", typeName, pos, `element length needs 4 bytes, ${end - pos} left`);
  const length = view.getInt32(pos);
  const start = pos + 4;
  if (length < 0) {
    elementsEnd = start;
    return null;
  }
  if (length > end - start) throw new CqlProtocolError("remote", typeName, start, `element of ${length} bytes, ${end - start} left`);
  const value = decode(u8, view, start, length);
  // Set after decoding: a nested collection's own elements move elementsEnd while it decodes.
  elementsEnd = start + length;
  return value;
}

function readCount(view: DataView, start: number, length: number, minElementSize: number, field: string): number {
  if (length < 4) return wrongLength(field, start, length, "at least 4 (the element count)");
  const count = view.getInt32(start);
  if (count < 0) throw new CqlProtocolError("remote", field, start, `negative element count ${count}`);
  // Each element carries at least a 4-byte length, which bounds what a hostile count can allocate.
  if (count > (length - 4) / minElementSize) {
    throw new CqlProtocolError("remote", field, start, `${count} elements cannot fit in ${length - 4} bytes`);
  }
  return count;
}

function trailing(typeName: string, at: number, end: number): never {
  throw new CqlProtocolError("remote", typeName, at, `${end - at} unexpected trailing bytes`);
}

function compileDecoder(t: TypeInfo): ValueDecoder {
  switch (t.kind) {
    case "custom":
      return NATIVE_DECODERS.blob;
    case "list":
    case "set": {
      const element = decoderFor(t.element);
      const elementField = `${t.kind} element`;
      return (u8, view, start, length) => {
        const count = readCount(view, start, length, 4, "collection element count");
        const end = start + length;
        const out = new Array(count);
        let pos = start + 4;
        for (let i = 0; i < count; i++) {
          out[i] = readElement(u8, view, pos, end, element, elementField);
          pos = elementsEnd;
        }
        if (pos !== end) trailing("collection", pos, end);
        return out;
      };
    }
    case "map": {
      const key = decoderFor(t.key);
      const value = decoderFor(t.value);
      return (u8, view, start, length) => {
        const count = readCount(view, start, length, 8, "map entry count");
        const end = start + length;
        const out = new Map<unknown, unknown>();
        let pos = start + 4;
        for (let i = 0; i < count; i++) {
          const k = readElement(u8, view, pos, end, key, "map key");
          const v = readElement(u8, view, elementsEnd, end, value, "map value");
          pos = elementsEnd;
          out.set(k, v);
        }
        if (pos !== end) trailing("map", pos, end);
        return out;
      };
    }
    case "tuple": {
      const elements = t.elements.map(decoderFor);
      return (u8, view, start, length) => {
        const end = start + length;
        // Like a UDT, a tuple value may stop before its last components.
        const out: unknown[] = [];
        let pos = start;
        for (let i = 0; i < elements.length && pos < end; i++) {
          out.push(readElement(u8, view, pos, end, elements[i], "tuple component"));
          pos = elementsEnd;
        }
        if (pos !== end) trailing("tuple component", pos, end);
        return out;
      };
    }
    case "udt": {
      const names = t.fields.map((f) => f.name);
      const fields = t.fields.map((f) => decoderFor(f.type));
      return (u8, view, start, length) => {
        const end = start + length;
        // A value written before fields were added to the type stops early: the fields it
        // lacks are absent from the object (and encoding the object writes them absent again).
        const out: Record<string, unknown> = {};
        let pos = start;
        for (let i = 0; i < fields.length && pos < end; i++) {
          defineField(out, names[i], readElement(u8, view, pos, end, fields[i], "udt field"));
          pos = elementsEnd;
        }
        if (pos !== end) trailing("udt field", pos, end);
        return out;
      };
    }
    case "vector":
      return compileVectorDecoder(t.element, t.dimension);
    default: {
      const decoder = NATIVE_DECODERS[t.kind];
      if (decoder === undefined) throw new TypeError(`no decoder for CQL type ${(t as TypeInfo).kind}`);
      return decoder;
    }
  }
}

/** Sets an own data property even for names like `__proto__` that assignment would treat specially. */
export function defineField(target: Record<string, unknown>, name: string, value: unknown): void {
  if (name === "__proto__") Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
  else target[name] = value;
}

function compileVectorDecoder(elementType: TypeInfo, dimension: number): ValueDecoder {
  const elementSize = fixedValueSize(elementType);
  if (elementSize > 0) {
    const total = elementSize * dimension;
    if (elementType.kind === "float") {
      return (_u8, view, start, length) => {
        if (length !== total) return wrongLength("vector value", start, length, String(total));
        const out = new Float32Array(dimension);
        for (let i = 0; i < dimension; i++) out[i] = view.getFloat32(start + 4 * i);
        return out;
      };
    }
    if (elementType.kind === "double") {
      return (_u8, view, start, length) => {
        if (length !== total) return wrongLength("vector value", start, length, String(total));
        const out = new Float64Array(dimension);
        for (let i = 0; i < dimension; i++) out[i] = view.getFloat64(start + 8 * i);
        return out;
      };
    }
    const element = decoderFor(elementType);
    return (u8, view, start, length) => {
      if (length !== total) return wrongLength("vector value", start, length, String(total));
      const out = new Array(dimension);
      for (let i = 0; i < dimension; i++) out[i] = element(u8, view, start + elementSize * i, elementSize);
      return out;
    };
  }
  const element = decoderFor(elementType);
  return (u8, view, start, length) => {
    // Every element takes at least its one-byte length, which bounds the allocation: a value
    // too short for the dimension grows its array as it goes and fails at the missing length.
    const end = start + length;
    const out = dimension > length ? [] : new Array(dimension);
    let pos = start;
    for (let i = 0; i < dimension; i++) {
      const size = readUnsignedVintNumber(u8, pos, end, "vector element length");
      const elementStart = vintEnd;
      if (size > end - elementStart) throw new CqlProtocolError("remote", "vector element length", pos, `element of ${size} bytes, ${end - elementStart} left`);
      out[i] = element(u8, view, elementStart, size);
      pos = elementStart + size;
    }
    if (pos !== end) trailing("vector value", pos, end);
    return out;
  };
}

/**
 * Whether values of `t` can contain blobs (blob, custom, or a container of them). Their
 * decoders return views of the bytes they decode, so those bytes must be private.
 */
export function yieldsByteViews(t: TypeInfo): boolean {
  switch (t.kind) {
    case "blob":
    case "custom":
      return true;
    case "list":
    case "set":
    case "vector":
      return yieldsByteViews(t.element);
    case "map":
      return yieldsByteViews(t.key) || yieldsByteViews(t.value);
    case "tuple":
      return t.elements.some(yieldsByteViews);
    case "udt":
      return t.fields.some((f) => yieldsByteViews(f.type));
    default:
      return false;
  }
}

/**
 * Decodes the value of type `t` held in `bytes[offset, offset+length)` (the bytes of a
 * `[bytes]`, without its length). A negative length is null. Blobs in the result are
 * copies: they never alias `bytes`. Throws CqlProtocolError.
 */
export function decodeValue(t: TypeInfo, bytes: Uint8Array, offset = 0, length = bytes.length - offset): unknown {
  if (length < 0) return null;
  if (offset < 0 || offset > bytes.length || length > bytes.length - offset) {
    throw new CqlProtocolError("remote", formatCqlType(t), offset, `value of ${length} bytes, ${Math.max(0, bytes.length - offset)} available`);
  }
  if (yieldsByteViews(t)) {
    const own = bytes.slice(offset, offset + length);
    try {
      return decoderFor(t)(own, viewOf(own), 0, length);
    } catch (e) {
      // Report offsets within the caller's buffer, not within the private copy.
      if (e instanceof CqlProtocolError) throw new CqlProtocolError(e.side, e.field, e.offset === null ? null : e.offset + offset, e.reason);
      throw e;
    }
  }
  return decoderFor(t)(bytes, viewOf(bytes), offset, length);
}

// ---------------------------------------------------------------------------------------
// Encoding

const encoderCache = new WeakMap<TypeInfo, ValueEncoder>();
const dataStaxEncoderCache = new WeakMap<TypeInfo, ValueEncoder>();

/**
 * The compiled encoder for `t` (cached per TypeInfo object). `dataStax` shapes values as the
 * DataStax driver does where the two differ (cqlwire/compat): a UDT object's missing fields
 * are written as null (not left out), and a null, undefined or unset inside a list, set or map
 * is DataStax's TypeError before anything is sent (not a null element for the server to refuse),
 * and bytes (a Buffer) for a value of any type, at any depth, are its serialized form, sent as
 * they are (cqlwire takes bytes only for blobs).
 */
export function encoderFor(t: TypeInfo, dataStax = false): ValueEncoder {
  const cache = dataStax ? dataStaxEncoderCache : encoderCache;
  let encoder = cache.get(t);
  if (encoder === undefined) {
    encoder = compileEncoder(t, dataStax);
    cache.set(t, encoder);
  }
  return encoder;
}

function reject(t: TypeInfo | string, value: unknown, reason: string): never {
  throw new CqlTypeError(typeof t === "string" ? t : formatCqlType(t, { udt: "qualified" }), renderValue(value), reason);
}

function describeJsType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return `a ${(value as object).constructor?.name ?? "object"}`;
  return `a ${typeof value}`;
}

function integerEncoder(name: string, size: 1 | 2 | 4, min: number, max: number): ValueEncoder {
  return (w, value) => {
    let n: number;
    if (typeof value === "number") {
      if (!Number.isInteger(value)) reject(name, value, Number.isNaN(value) ? "NaN is not an integer" : "not an integer");
      n = value;
    } else if (typeof value === "bigint") {
      if (value < BigInt(min) || value > BigInt(max)) reject(name, value, `out of range [${min}, ${max}]`);
      n = Number(value);
    } else {
      return reject(name, value, `expected a number, got ${describeJsType(value)}`);
    }
    if (n < min || n > max) reject(name, value, `out of range [${min}, ${max}]`);
    const at = w.reserve(size);
    if (size === 1) w.view.setInt8(at, n);
    else if (size === 2) w.view.setInt16(at, n);
    else w.view.setInt32(at, n);
  };
}

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/** Accepts a bigint, or a number that is a safe integer (anything larger has lost digits already). */
function toBigInt(name: string, value: unknown, min: bigint | null, max: bigint | null): bigint {
  let n: bigint;
  if (typeof value === "bigint") n = value;
  else if (typeof value === "number") {
    if (!Number.isInteger(value)) reject(name, value, Number.isNaN(value) ? "NaN is not an integer" : "not an integer");
    if (!Number.isSafeInteger(value)) reject(name, value, "beyond ±2^53 a number has lost precision; pass a bigint");
    n = BigInt(value);
  } else return reject(name, value, `expected a bigint or an integer number, got ${describeJsType(value)}`);
  if ((min !== null && n < min) || (max !== null && n > max)) reject(name, value, `out of range [${min}, ${max}]`);
  return n;
}

function bigintEncoder(name: string): ValueEncoder {
  return (w, value) => {
    const n = toBigInt(name, value, I64_MIN, I64_MAX);
    const at = w.reserve(8);
    w.view.setBigInt64(at, n);
  };
}

const isWellFormed: ((s: string) => boolean) | null =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === "function"
    ? (s) => (s as unknown as { isWellFormed(): boolean }).isWellFormed()
    : null;

function hasLoneSurrogate(s: string): boolean {
  if (isWellFormed !== null) return !isWellFormed(s);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
      else return true;
    } else if (c >= 0xdc00 && c <= 0xdfff) return true;
  }
  return false;
}

function asBytes(name: string, value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return reject(name, value, `expected a Uint8Array, got ${describeJsType(value)}`);
}

const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

function uuidEncoder(name: "uuid" | "timeuuid"): ValueEncoder {
  return (w, value) => {
    let version: number;
    if (typeof value === "string") {
      if (!UUID_PATTERN.test(value)) reject(name, value, "not a hyphenated UUID string");
      version = parseInt(value[14], 16);
    } else if (value instanceof Uint8Array) {
      if (value.length !== 16) reject(name, value, `a UUID has 16 bytes, not ${value.length}`);
      version = value[6] >> 4;
    } else {
      return reject(name, value, `expected a UUID string or 16 bytes, got ${describeJsType(value)}`);
    }
    if (name === "timeuuid" && version !== 1) reject(name, value, "a timeuuid must be a version 1 UUID");
    const at = w.reserve(16);
    if (typeof value === "string") {
      const buf = w.buf;
      let j = 0;
      for (let i = 0; i < 16; i++) {
        if (value.charCodeAt(j) === 45) j++;
        buf[at + i] = parseInt(value.substr(j, 2), 16);
        j += 2;
      }
    } else {
      w.buf.set(value, at);
    }
  };
}

/** Parses an IPv4 or IPv6 address into 4 or 16 bytes, or returns null. */
export function parseInetAddress(text: string): Uint8Array | null {
  const v4 = parseIpv4(text);
  if (v4 !== null) return v4;
  let s = text;
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  const percent = s.indexOf("%");
  if (percent >= 0) s = s.slice(0, percent);
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const parseGroups = (part: string): number[] | null => {
    if (part === "") return [];
    const out: number[] = [];
    const pieces = part.split(":");
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i];
      if (i === pieces.length - 1 && piece.includes(".")) {
        const tail = parseIpv4(piece);
        if (tail === null) return null;
        out.push((tail[0] << 8) | tail[1], (tail[2] << 8) | tail[3]);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return null;
        out.push(parseInt(piece, 16));
      }
    }
    return out;
  };
  const head = parseGroups(halves[0]);
  const tail = halves.length === 2 ? parseGroups(halves[1]) : [];
  if (head === null || tail === null) return null;
  let groups: number[];
  if (halves.length === 2) {
    if (head.length + tail.length > 7) return null;
    groups = [...head, ...new Array(8 - head.length - tail.length).fill(0), ...tail];
  } else {
    if (head.length !== 8) return null;
    groups = head;
  }
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    bytes[2 * i] = groups[i] >> 8;
    bytes[2 * i + 1] = groups[i] & 0xff;
  }
  return bytes;
}

function parseIpv4(text: string): Uint8Array | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (m === null) return null;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = m[i + 1];
    if (part.length > 1 && part[0] === "0") return null;
    const n = Number(part);
    if (n > 255) return null;
    bytes[i] = n;
  }
  return bytes;
}

function timestampMs(value: unknown): bigint | string {
  if (value instanceof Date) {
    const ms = value.getTime();
    return Number.isNaN(ms) ? "an Invalid Date" : BigInt(ms);
  }
  if (value instanceof CqlTimestamp) return value.ms;
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) return Number.isInteger(value) ? "beyond ±2^53 ms a number has lost precision; pass a bigint" : "not a whole number of milliseconds";
    return BigInt(value);
  }
  if (typeof value === "bigint") return value;
  if (typeof value === "string") {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? "not a date-time string" : BigInt(ms);
  }
  return `expected a Date, number, bigint, CqlTimestamp or ISO string, got ${describeJsType(value)}`;
}

function dateDays(value: unknown): number | string {
  if (value instanceof CqlDate) return value.days;
  if (typeof value === "number") return Number.isInteger(value) ? value : "not a whole number of days";
  if (typeof value === "string") {
    try {
      return CqlDate.parse(value).days;
    } catch (e) {
      return (e as Error).message;
    }
  }
  if (value instanceof Date) {
    const ms = value.getTime();
    return Number.isNaN(ms) ? "an Invalid Date" : Math.floor(ms / 86_400_000);
  }
  return `expected a CqlDate, day number, YYYY-MM-DD string or Date, got ${describeJsType(value)}`;
}

function timeNanos(value: unknown): bigint | string {
  if (value instanceof CqlTime) return value.nanos;
  if (typeof value === "bigint") return value;
  if (typeof value === "number") return Number.isSafeInteger(value) ? BigInt(value) : "not a safe integer number of nanoseconds";
  if (typeof value === "string") {
    try {
      return CqlTime.parse(value).nanos;
    } catch (e) {
      return (e as Error).message;
    }
  }
  return `expected a CqlTime, bigint nanoseconds or HH:MM:SS string, got ${describeJsType(value)}`;
}

function toDecimal(value: unknown): CqlDecimal | string {
  if (value instanceof CqlDecimal) return value;
  if (typeof value === "bigint") return new CqlDecimal(value, 0);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return "not a finite number";
    return CqlDecimal.parse(String(value));
  }
  if (typeof value === "string") {
    try {
      return CqlDecimal.parse(value.trim());
    } catch (e) {
      return (e as Error).message;
    }
  }
  if (typeof value === "object" && value !== null && "unscaled" in value && "scale" in value) {
    const { unscaled, scale } = value as { unscaled: unknown; scale: unknown };
    if (typeof unscaled === "bigint" && typeof scale === "number") return new CqlDecimal(unscaled, scale);
  }
  return `expected a CqlDecimal, decimal string, number or bigint, got ${describeJsType(value)}`;
}

const I32_MIN = -0x8000_0000;
const I32_MAX = 0x7fff_ffff;

function isIterableCollection(value: unknown): value is Iterable<unknown> {
  return typeof value === "object" && value !== null && typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] === "function";
}

/**
 * Writes an element as `[bytes]`: null and undefined become -1; `unset` has no meaning inside a
 * value. `ds`: bytes given (not a value class's) are the element's serialized form (`encoderFor`).
 */
function writeElement(w: Writer, encode: ValueEncoder, value: unknown, container: TypeInfo, ds: boolean): void {
  if (value === null || value === undefined) {
    w.i32(-1);
    return;
  }
  if (value === unset) reject(container, value, "unset is only allowed for a whole bound value");
  const lengthAt = w.reserve(4);
  if (ds && value instanceof Uint8Array) w.raw(value);
  else encode(w, typeof value === "object" ? nativeValue(value) : value);
  w.patchI32(lengthAt, w.length - lengthAt - 4);
}

/** DataStax's refusal of a null, undefined or unset in a collection (its TypeError and text). */
function refuseEmptyElement(value: unknown, message: string): void {
  if (value === null || value === undefined || value === unset) throw new TypeError(message);
}

function compileEncoder(t: TypeInfo, ds: boolean): ValueEncoder {
  switch (t.kind) {
    case "ascii":
      return (w, value) => {
        if (typeof value !== "string") reject(t, value, `expected a string, got ${describeJsType(value)}`);
        for (let i = 0; i < value.length; i++) {
          if (value.charCodeAt(i) > 0x7f) reject(t, value, `character ${i} is not ASCII`);
        }
        w.utf8(value);
      };
    case "text":
      return (w, value) => {
        if (typeof value !== "string") reject(t, value, `expected a string, got ${describeJsType(value)}`);
        if (hasLoneSurrogate(value)) reject(t, value, "contains a lone surrogate, which UTF-8 cannot represent");
        w.utf8(value);
      };
    case "blob":
    case "custom": {
      // Named once: formatting the type on every value cost a string per request.
      const name = formatCqlType(t);
      return (w, value) => w.raw(asBytes(name, value));
    }
    case "boolean":
      return (w, value) => {
        if (typeof value !== "boolean") reject(t, value, `expected a boolean, got ${describeJsType(value)}`);
        w.u8(value ? 1 : 0);
      };
    case "tinyint":
      return integerEncoder("tinyint", 1, -128, 127);
    case "smallint":
      return integerEncoder("smallint", 2, -32768, 32767);
    case "int":
      return integerEncoder("int", 4, I32_MIN, I32_MAX);
    case "bigint":
    case "counter":
      return bigintEncoder(t.kind);
    case "varint":
      return (w, value) => {
        encodeVarint(w, toBigInt("varint", value, null, null));
      };
    case "float":
      return (w, value) => {
        if (typeof value !== "number") reject(t, value, `expected a number, got ${describeJsType(value)}`);
        if (Number.isFinite(value) && !Number.isFinite(Math.fround(value))) reject(t, value, "out of the 32-bit float range");
        w.f32(value);
      };
    case "double":
      return (w, value) => {
        if (typeof value !== "number") reject(t, value, `expected a number, got ${describeJsType(value)}`);
        w.f64(value);
      };
    case "uuid":
    case "timeuuid":
      return uuidEncoder(t.kind);
    case "inet":
      return (w, value) => {
        let bytes: Uint8Array | null;
        if (typeof value === "string") {
          bytes = parseInetAddress(value);
          if (bytes === null) reject(t, value, "not an IPv4 or IPv6 address");
        } else if (value instanceof Uint8Array) {
          if (value.length !== 4 && value.length !== 16) reject(t, value, `an address has 4 or 16 bytes, not ${value.length}`);
          bytes = value;
        } else return reject(t, value, `expected an address string or bytes, got ${describeJsType(value)}`);
        w.raw(bytes);
      };
    case "timestamp":
      return (w, value) => {
        const ms = timestampMs(value);
        if (typeof ms === "string") reject(t, value, ms);
        if (ms < I64_MIN || ms > I64_MAX) reject(t, value, "out of the 64-bit millisecond range");
        w.i64(ms);
      };
    case "date":
      return (w, value) => {
        const days = dateDays(value);
        if (typeof days === "string") reject(t, value, days);
        if (days < CqlDate.MIN_DAYS || days > CqlDate.MAX_DAYS) reject(t, value, "out of the date range (±2^31 days)");
        const at = w.reserve(4);
        w.view.setUint32(at, days + 0x8000_0000);
      };
    case "time":
      return (w, value) => {
        const nanos = timeNanos(value);
        if (typeof nanos === "string") reject(t, value, nanos);
        if (nanos < 0n || nanos > CqlTime.MAX_NANOS) reject(t, value, "not within a day (0 to 86399999999999 ns)");
        w.i64(nanos);
      };
    case "duration":
      return (w, value) => {
        if (typeof value !== "object" || value === null) reject(t, value, `expected a CqlDuration, got ${describeJsType(value)}`);
        const { months, days, nanos } = value as { months?: unknown; days?: unknown; nanos?: unknown };
        if (typeof months !== "number" || !Number.isInteger(months) || months < I32_MIN || months > I32_MAX) reject(t, value, "months must be a 32-bit integer");
        if (typeof days !== "number" || !Number.isInteger(days) || days < I32_MIN || days > I32_MAX) reject(t, value, "days must be a 32-bit integer");
        const ns = toBigInt("duration", nanos, I64_MIN, I64_MAX);
        if ((months < 0 || days < 0 || ns < 0n) && (months > 0 || days > 0 || ns > 0n)) reject(t, value, "months, days and nanoseconds must share one sign");
        writeVint(w, BigInt(months));
        writeVint(w, BigInt(days));
        writeVint(w, ns);
      };
    case "decimal":
      return (w, value) => {
        const decimal = toDecimal(value);
        if (typeof decimal === "string") reject(t, value, decimal);
        if (!Number.isInteger(decimal.scale) || decimal.scale < I32_MIN || decimal.scale > I32_MAX) reject(t, value, "scale must be a 32-bit integer");
        w.i32(decimal.scale);
        encodeVarint(w, decimal.unscaled);
      };
    case "list":
    case "set": {
      const element = encoderFor(t.element, ds);
      return (w, value) => {
        if (typeof value === "string" || !isIterableCollection(value)) reject(t, value, `expected an array${t.kind === "set" ? " or Set" : ""}, got ${describeJsType(value)}`);
        const countAt = w.reserve(4);
        let count = 0;
        for (const item of value) {
          if (ds) refuseEmptyElement(item, "A collection can't contain null or unset values");
          writeElement(w, element, item, t, ds);
          count++;
        }
        w.patchI32(countAt, count);
      };
    }
    case "map": {
      const key = encoderFor(t.key, ds);
      const val = encoderFor(t.value, ds);
      return (w, value) => {
        let entries: Iterable<unknown>;
        if (value instanceof Map) entries = value.entries();
        else if (Array.isArray(value)) entries = value;
        else if (typeof value === "object" && value !== null && !isIterableCollection(value)) entries = Object.entries(value);
        else return reject(t, value, `expected a Map, got ${describeJsType(value)}`);
        const countAt = w.reserve(4);
        let count = 0;
        for (const entry of entries) {
          if (!Array.isArray(entry) || entry.length !== 2) reject(t, value, "each entry must be a [key, value] pair");
          if (ds) refuseEmptyElement(entry[0], "A map can't contain null or unset keys");
          if (ds) refuseEmptyElement(entry[1], "A map can't contain null or unset values");
          writeElement(w, key, entry[0], t, ds);
          writeElement(w, val, entry[1], t, ds);
          count++;
        }
        w.patchI32(countAt, count);
      };
    }
    case "tuple": {
      const elements = t.elements.map((e) => encoderFor(e, ds));
      return (w, value) => {
        if (!Array.isArray(value)) reject(t, value, `expected an array, got ${describeJsType(value)}`);
        // A shorter array leaves the last components out, which the server reads as null.
        if (value.length > elements.length) reject(t, value, `expected at most ${elements.length} elements, got ${value.length}`);
        for (let i = 0; i < value.length; i++) writeElement(w, elements[i], value[i], t, ds);
      };
    }
    case "udt": {
      const fields = t.fields;
      const encoders = fields.map((f) => encoderFor(f.type, ds));
      const known = new Set(fields.map((f) => f.name));
      return (w, value) => {
        if (typeof value !== "object" || value === null || Array.isArray(value) || value instanceof Map) {
          reject(t, value, `expected an object, got ${describeJsType(value)}`);
        }
        if (fields.length === 0) reject(t, value, "the UDT's fields are unknown (an unresolved reference)");
        for (const key of Object.keys(value)) {
          if (!known.has(key)) reject(t, value, `has no field named ${JSON.stringify(key)}`);
        }
        const record = value as Record<string, unknown>;
        // Fields after the last one present are left out, which the server reads as null,
        // so a value decoded from a shorter (older) UDT encodes back to the same bytes.
        // DataStax writes every field, a missing one as null.
        let present = fields.length;
        while (!ds && present > 0 && !Object.hasOwn(record, fields[present - 1].name)) present--;
        for (let i = 0; i < present; i++) writeElement(w, encoders[i], record[fields[i].name], t, ds);
      };
    }
    case "vector":
      return compileVectorEncoder(t, ds);
    default:
      throw new TypeError(`no encoder for CQL type ${(t as TypeInfo).kind}`);
  }
}

function compileVectorEncoder(t: TypeInfo & { kind: "vector" }, ds: boolean): ValueEncoder {
  const { element: elementType, dimension } = t;
  const element = encoderFor(elementType, ds);
  const elementSize = fixedValueSize(elementType);
  return (w, value) => {
    if (typeof value !== "object" || value === null || typeof (value as ArrayLike<unknown>).length !== "number") {
      reject(t, value, `expected an array or typed array, got ${describeJsType(value)}`);
    }
    const items = value as ArrayLike<unknown>;
    if (items.length !== dimension) reject(t, value, `expected ${dimension} elements, got ${items.length}`);
    for (let i = 0; i < dimension; i++) {
      const given = items[i];
      if (given === null || given === undefined || given === unset) reject(t, value, `element ${i} is ${String(given)}; vectors have no null elements`);
      // Elements may be value classes (a Long, a Uuid), as in lists.
      const item = typeof given === "object" ? nativeValue(given) : given;
      if (elementSize > 0) {
        const before = w.length;
        element(w, item);
        if (w.length - before !== elementSize) reject(t, value, `element ${i} did not encode to ${elementSize} bytes`);
      } else {
        // Variable-size elements take an unsigned vint length: encode, then slide the
        // bytes right by the length's size.
        const start = w.length;
        element(w, item);
        const size = w.length - start;
        const prefix = unsignedVintSizeOfNumber(size);
        w.reserve(prefix);
        w.buf.copyWithin(start + prefix, start, start + size);
        w.length = start;
        writeUnsignedVintNumber(w, size);
        w.length = start + prefix + size;
      }
    }
  };
}

/** A value class's native form (see `toCqlValue`); any other value as it is. */
function nativeValue(value: object | null): unknown {
  if (value === null) return value;
  const convert = (value as Partial<CqlValueSource>)[toCqlValue];
  return convert === undefined ? value : convert.call(value);
}

/**
 * Writes `value` as a protocol `[value]`: an i32 length then the serialized bytes;
 * null gives length -1, `unset` gives -2, and undefined gives -2 when `undefinedAsUnset`
 * (the DataStax driver's `useUndefinedAsUnset`) else -1. Returns the length written.
 * Throws CqlTypeError (and leaves `w` as it was) when the value does not fit the type.
 * `dataStax`: see `encoderFor`.
 */
export function encodeValue(t: TypeInfo, value: unknown, w: Writer, undefinedAsUnset = false, dataStax = false): number {
  if (value === null || (value === undefined && !undefinedAsUnset)) {
    w.i32(-1);
    return -1;
  }
  if (value === unset || value === undefined) {
    w.i32(-2);
    return -2;
  }
  const lengthAt = w.reserve(4);
  try {
    if (dataStax && value instanceof Uint8Array) w.raw(value);
    else encoderFor(t, dataStax)(w, typeof value === "object" ? nativeValue(value) : value);
  } catch (e) {
    w.length = lengthAt;
    throw e;
  }
  const length = w.length - lengthAt - 4;
  if (length > I32_MAX) {
    w.length = lengthAt;
    reject(t, value, "serializes to more than 2^31-1 bytes");
  }
  w.patchI32(lengthAt, length);
  return length;
}

/** Serializes `value` alone (no length prefix), e.g. for a routing key. Null/unset are rejected. */
export function serializeValue(t: TypeInfo, value: unknown, w: Writer): Uint8Array {
  if (value === null || value === undefined || value === unset) reject(t, value, "a standalone value cannot be null or unset");
  const start = w.length;
  encoderFor(t)(w, typeof value === "object" ? nativeValue(value) : value);
  return w.buf.subarray(start, w.length);
}

function isTypeInfo(x: TypeInfo | ColumnSpec): x is TypeInfo {
  return typeof (x as { kind?: unknown }).kind === "string";
}

/**
 * Writes a value list as the boundary expects: `[n: u16]` then n `[value]`s. `params` is
 * positional, or an object keyed by bind-marker names (taken from `columns` when they are
 * ColumnSpecs, else from `names`; an exact match wins over a case-insensitive one). A name
 * missing from the object is an error: pass `unset` to leave a column alone, or null.
 * `undefinedAsUnset` and `dataStax`: see `encodeValue`.
 */
export function encodeValueList(
  columns: readonly TypeInfo[] | readonly ColumnSpec[],
  params: readonly unknown[] | Record<string, unknown> | null | undefined,
  out: Writer,
  names?: readonly string[],
  undefinedAsUnset = false,
  dataStax = false,
): void {
  const count = columns.length;
  if (count > 0xffff) throw new CqlTypeError("values", `[${count} values]`, "at most 65535 values can be bound");
  const start = out.length;
  try {
    out.u16(count);
    if (params === null || params === undefined) {
      if (count > 0) throw new CqlTypeError("values", renderValue(params), `expected ${count} values`);
      return;
    }
    if (Array.isArray(params)) {
      if (params.length !== count) throw new CqlTypeError("values", renderValue(params), `expected ${count} values, got ${params.length}`);
      for (let i = 0; i < count; i++) {
        const column = columns[i];
        encodeValue(isTypeInfo(column) ? column : column.type, params[i], out, undefinedAsUnset, dataStax);
      }
      return;
    }
    const record = params as Record<string, unknown>;
    let lowered: Map<string, string> | null = null;
    for (let i = 0; i < count; i++) {
      const column = columns[i];
      const name = isTypeInfo(column) ? names?.[i] : column.name;
      if (name === undefined) throw new CqlTypeError("values", renderValue(params), `bind marker ${i} has no name to look up`);
      let key = name;
      if (!Object.hasOwn(record, key)) {
        if (lowered === null) {
          lowered = new Map();
          for (const k of Object.keys(record)) lowered.set(k.toLowerCase(), k);
        }
        const match = lowered.get(name.toLowerCase());
        if (match === undefined) {
          throw new CqlTypeError("values", renderValue(params), `no value for bind marker ${JSON.stringify(name)} (use null, or unset to leave it unchanged)`);
        }
        key = match;
      }
      encodeValue(isTypeInfo(column) ? column : column.type, record[key], out, undefinedAsUnset, dataStax);
    }
  } catch (e) {
    out.length = start;
    throw e;
  }
}
