// Parquet values spelled as JSON Lines for the core, losslessly: the core reads them by the
// column's CQL type and does every conversion and check (ranges, sub-millisecond digits,
// UTF-8, time of day) as it does for any JSON Lines input, so a Parquet row and the same
// row written as JSON convert alike. The spellings (see ARCHITECTURE.md, "Parquet"):
//   integers and decimals: JSON numbers with every digit (int64 and uint64 exact, a decimal's
//     unscaled value with its point placed); floats: the shortest text that reads back to
//     the same value, -0 as `-0`, NaN and the infinities as strings;
//   text: the bytes as read inside a JSON string (only `"`, `\` and control bytes escaped),
//     so text that is not UTF-8 reaches the core as it is and is a bad row there;
//   blobs: `"0x..."` (always hex in the core, whatever --blob-format);
//   dates: days since the epoch; times: nanoseconds of the day; timestamps: ISO-8601 with
//     every fraction digit the unit has, `Z` when adjusted to UTC and no zone when local (the
//     core applies --time-zone); the core refuses sub-millisecond digits;
//   lists: JSON arrays of the same spellings; null: `null` (the core's null-to-unset rule).

import type { TypeInfo } from "../../driver/mod.ts";
import type { ParquetColumn, ParquetValue, TimeUnit } from "./parquet_schema.ts";

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** A growing byte buffer that JSON lines are written into. */
export class LineWriter {
  private buffer = new Uint8Array(1 << 16);
  length = 0;

  private room(more: number): void {
    if (this.length + more <= this.buffer.length) return;
    const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.length + more));
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
  }

  byte(value: number): void {
    this.room(1);
    this.buffer[this.length++] = value;
  }

  /** ASCII text (digits, signs, hex, ISO dates): one byte per character. */
  ascii(text: string): void {
    this.room(text.length);
    for (let i = 0; i < text.length; i++) this.buffer[this.length++] = text.charCodeAt(i);
  }

  bytes(value: Uint8Array): void {
    this.room(value.length);
    this.buffer.set(value, this.length);
    this.length += value.length;
  }

  /** Bytes as a JSON string: `"` and `\` escaped, control bytes as \u00XX, all other bytes kept. */
  jsonString(value: Uint8Array): void {
    this.room(value.length + 2);
    this.buffer[this.length++] = QUOTE;
    for (let i = 0; i < value.length; i++) {
      const b = value[i];
      if (b >= 0x20 && b !== QUOTE && b !== BACKSLASH) {
        this.buffer[this.length++] = b;
        continue;
      }
      this.ascii(b === QUOTE ? '\\"' : b === BACKSLASH ? "\\\\" : `\\u00${HEX[b]}`);
      this.room(value.length - i + 1);
    }
    this.buffer[this.length++] = QUOTE;
  }

  /** The bytes written so far; the writer starts over with a fresh buffer. */
  take(): Uint8Array {
    const out = this.buffer.subarray(0, this.length);
    this.buffer = new Uint8Array(this.buffer.length);
    this.length = 0;
    return out;
  }
}

function writeHex(out: LineWriter, value: Uint8Array): void {
  out.ascii('"0x');
  for (let i = 0; i < value.length; i++) out.ascii(HEX[value[i]]);
  out.byte(QUOTE);
}

function writeUuid(out: LineWriter, value: Uint8Array): void {
  out.byte(QUOTE);
  for (let i = 0; i < value.length; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) out.ascii("-");
    out.ascii(HEX[value[i]]);
  }
  out.byte(QUOTE);
}

function writeFloat(out: LineWriter, value: number): void {
  if (Number.isNaN(value)) out.ascii('"NaN"');
  else if (value === Infinity) out.ascii('"Infinity"');
  else if (value === -Infinity) out.ascii('"-Infinity"');
  else if (Object.is(value, -0)) out.ascii("-0");
  else out.ascii(String(value));
}

/** IEEE 754 half precision (FLOAT16, stored little-endian), exactly, as a double. */
export function float16(bytes: Uint8Array): number {
  const bits = (bytes[1] << 8) | bytes[0];
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction === 0 ? sign * Infinity : NaN;
  return sign * (1024 + fraction) * 2 ** (exponent - 25);
}

/** A decimal's unscaled value: an int32/int64, or big-endian two's complement bytes. */
function unscaled(value: number | bigint | Uint8Array): bigint {
  if (!(value instanceof Uint8Array)) return BigInt(value);
  let n = 0n;
  for (const b of value) n = (n << 8n) | BigInt(b);
  return value.length > 0 && value[0] & 0x80 ? n - (1n << BigInt(value.length * 8)) : n;
}

/** `unscaled × 10^-scale` with every digit: 12345, 2 → 123.45. */
export function decimalText(value: bigint, scale: number): string {
  if (scale <= 0) return (value * 10n ** BigInt(-scale)).toString();
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(
    scale + 1,
    "0",
  );
  const point = digits.length - scale;
  return `${negative ? "-" : ""}${digits.slice(0, point)}.${digits.slice(point)}`;
}

const PER_MILLI: Record<TimeUnit, bigint> = { ms: 1n, us: 1_000n, ns: 1_000_000n };
const MILLIS_PER_DAY = 86_400_000;
/** The furthest a JS Date reaches from the epoch, in milliseconds. */
const DATE_LIMIT_MS = 8_640_000_000_000_000n;

function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** `YYYY-MM-DDT` of a day since the epoch; the last day is kept, as rows often share it. */
const dayText = { day: NaN, text: "" };
function dayPrefix(day: number): string {
  if (day !== dayText.day) {
    dayText.day = day;
    dayText.text = new Date(day * MILLIS_PER_DAY).toISOString().slice(0, -13);
  }
  return dayText.text;
}

/**
 * An epoch count as a JSON string of ISO-8601 with all of its fraction digits:
 * `"2024-01-02T03:04:05.123456Z"` (no `Z` for a local timestamp). Beyond a JS Date's range
 * (±275 000 years) whole milliseconds are written as the integer the core reads as epoch
 * milliseconds, and anything finer as the count with its unit, which the core refuses.
 */
export function timestampJson(count: bigint, unit: TimeUnit, utc: boolean): string {
  const perMilli = PER_MILLI[unit];
  let millis = count / perMilli;
  let below = count % perMilli;
  if (below < 0n) {
    millis -= 1n;
    below += perMilli;
  }
  if (millis > DATE_LIMIT_MS || millis < -DATE_LIMIT_MS) {
    return below === 0n ? millis.toString() : `"${count} ${unit} since the epoch"`;
  }
  const ms = Number(millis);
  const day = Math.floor(ms / MILLIS_PER_DAY);
  const ofDay = ms - day * MILLIS_PER_DAY;
  const seconds = Math.floor(ofDay / 1000);
  const time = `${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`;
  const fraction = String(ofDay % 1000).padStart(3, "0") +
    (unit === "ms" ? "" : below.toString().padStart(unit === "us" ? 3 : 6, "0"));
  return `"${dayPrefix(day)}${time}.${fraction}${utc ? "Z" : ""}"`;
}

/** Writes one non-null element; `target` is the CQL type it goes to (for bytes: text or blob). */
export type ValueWriter = (out: LineWriter, value: unknown) => void;

/** The writer of a column's values of `value`'s kind going to CQL `target`. */
export function scalarWriter(value: ParquetValue, target: TypeInfo): ValueWriter {
  switch (value.kind) {
    case "boolean":
      return (out, v) => out.ascii(v ? "true" : "false");
    case "integer":
      if (!value.unsigned) return (out, v) => out.ascii(String(v));
      return value.bits === 64
        ? (out, v) => out.ascii(BigInt.asUintN(64, v as bigint).toString())
        : (out, v) => out.ascii(String((v as number) >>> 0));
    case "decimal":
      return (out, v) => out.ascii(decimalText(unscaled(v as number | bigint | Uint8Array), value.scale));
    case "float":
      return value.float16
        ? (out, v) => writeFloat(out, float16(v as Uint8Array))
        : (out, v) => writeFloat(out, v as number);
    case "double":
      return (out, v) => writeFloat(out, v as number);
    case "string":
      return (out, v) => out.jsonString(v as Uint8Array);
    case "bytes":
      return target.kind === "blob"
        ? (out, v) => writeHex(out, v as Uint8Array)
        : (out, v) => out.jsonString(v as Uint8Array);
    case "uuid":
      return target.kind === "blob"
        ? (out, v) => writeHex(out, v as Uint8Array)
        : (out, v) => writeUuid(out, v as Uint8Array);
    case "date":
      return (out, v) => out.ascii(String(v));
    case "time": {
      const perNano = value.unit === "ms" ? 1_000_000n : value.unit === "us" ? 1_000n : 1n;
      return (out, v) => out.ascii((BigInt(v as number | bigint) * perNano).toString());
    }
    case "timestamp": {
      const { unit, utc } = value;
      // The reader hands INT96 values over as nanoseconds since the epoch (parquet_input.ts).
      if (unit === "int96") return (out, v) => out.ascii(timestampJson(v as bigint, "ns", true));
      return (out, v) => out.ascii(timestampJson(BigInt(v as number | bigint), unit, utc));
    }
  }
}

/** The writer of a whole column's cell (null, a scalar, or a list of them). */
export function cellWriter(column: ParquetColumn, target: TypeInfo): ValueWriter {
  const element = column.list && (target.kind === "list" || target.kind === "set") ? target.element : target;
  const write = scalarWriter(column.value!, element);
  const orNull: ValueWriter = (out, v) => v === null || v === undefined ? out.ascii("null") : write(out, v);
  if (!column.list) return orNull;
  return (out, v) => {
    if (v === null || v === undefined) return out.ascii("null");
    out.byte(0x5b);
    (v as unknown[]).forEach((item, i) => {
      if (i > 0) out.byte(0x2c);
      orNull(out, item);
    });
    out.byte(0x5d);
  };
}
