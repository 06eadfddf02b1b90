/**
 * The DataStax driver's value classes for dates, times, addresses, tuples and durations,
 * and its `Row`. Each wraps cqlwire's exact value and hands it to the encoders.
 */
import { CqlDate, CqlDuration, CqlTime, parseInetAddress, toCqlValue } from "../src/codec/mod.ts";
import { formatInetAddress } from "../src/codec/reader.ts";
import { civilFromDays, daysFromCivil } from "../src/codec/scalars.ts";
import { ArgumentError } from "../src/errors.ts";
import { bufferOut, type BufferOrBytes } from "../src/values/bytes.ts";
import { INSPECT, inspectedAs } from "../src/values/inspect.ts";
import { Long, longFromBigInt, longToBigInt } from "./numbers.ts";
import { fromWire, wireBytes } from "./wire.ts";

/** Days from 1970 to either end of JavaScript's Date range (±8.64e15 ms). */
const MAX_DATE_DAYS = 100_000_000;

/** A date without a time zone; years outside 1-9999 are kept as a day count as in Cassandra. */
export class LocalDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  /** Days since 1970-01-01. */
  readonly days: number;

  constructor(year: number, month?: number, day?: number) {
    // `new LocalDate(days)` is the DataStax driver's form for dates beyond the civil range.
    const civil = typeof year === "number" && typeof month === "number" && typeof day === "number";
    if (!civil && !(typeof year === "number" && month === undefined && day === undefined)) throw new Error("You must provide a valid year, month and day");
    const days = civil ? daysFromCivil(year, month, day) : year;
    if (!Number.isInteger(days)) throw new ArgumentError("LocalDate needs integers");
    // DataStax's ranges, plain Errors and texts: a year, month and day within JavaScript's Date, a day count
    // within the CQL date's.
    if (civil && Math.abs(days) > MAX_DATE_DAYS) throw new Error(`${year}-${month}-${day} does not form a valid ES5 date!`);
    if (days < CqlDate.MIN_DAYS || days > CqlDate.MAX_DAYS) {
      throw new Error("You must provide a valid value for days since epoch (-2147483648 <= value <= 2147483647).");
    }
    [this.year, this.month, this.day] = civilFromDays(days);
    if (civil && (this.month !== month || this.day !== day)) throw new ArgumentError(`${year}-${month}-${day} is not a date`);
    this.days = days;
  }

  static fromDate(date: Date): LocalDate {
    return new LocalDate(CqlDate.fromDate(date).days);
  }

  /**
   * "YYYY-MM-DD", or a day count since 1970-01-01 ("-5"), as DataStax reads both; as there, the
   * month and day may have one digit ("1-1-1").
   */
  static fromString(value: string): LocalDate {
    if (typeof value === "string" && /^-?\d+$/.test(value)) return new LocalDate(Number(value));
    const short = typeof value === "string" ? /^(-?\d+)-(\d)-(\d\d?)$|^(-?\d+)-(\d\d)-(\d)$/.exec(value) : null;
    const text = short === null ? value : short[1] !== undefined ? `${short[1]}-0${short[2]}-${short[3].padStart(2, "0")}` : `${short[4]}-${short[5]}-0${short[6]}`;
    return new LocalDate(CqlDate.parse(text).days);
  }

  /** A CQL date's 4 bytes (days with 2^31 at the epoch). */
  static fromBuffer(bytes: Uint8Array): LocalDate {
    return new LocalDate((fromWire("date", bytes) as CqlDate).days);
  }

  /** DataStax's field: midnight UTC of this date (an invalid Date beyond JS dates' range). */
  get date(): Date {
    return new Date(this.days * 86_400_000);
  }

  toBuffer(): BufferOrBytes {
    return wireBytes("date", this);
  }

  static now(): LocalDate {
    const d = new Date();
    return new LocalDate(d.getFullYear(), d.getMonth() + 1, d.getDate());
  }

  static utcNow(): LocalDate {
    return LocalDate.fromDate(new Date());
  }

  equals(other: unknown): boolean {
    return other instanceof LocalDate && other.days === this.days;
  }

  compare(other: LocalDate): number {
    return Math.sign(this.days - other.days);
  }

  toString(): string {
    return new CqlDate(this.days).toString();
  }

  toJSON(): string {
    return this.toString();
  }

  inspect(): string {
    return `LocalDate: ${this.toString()}`;
  }

  /** For `console.log`: DataStax's fields (`_value` holds the days beyond JS dates' range). */
  [INSPECT](): object {
    const date = this.date;
    return inspectedAs(this, { date, _value: isNaN(date.getTime()) ? this.days : null, year: this.year, month: this.month, day: this.day });
  }

  [toCqlValue](): CqlDate {
    return new CqlDate(this.days);
  }
}

const NS_PER_MS = 1_000_000n;

/** A time of day with nanosecond precision. */
export class LocalTime {
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly nanosecond: number;
  private readonly nanos: bigint;

  /** A `Long`, as DataStax requires (its plain Errors and texts); the `bigint` form is cqlwire's own. */
  constructor(totalNanoseconds: Long | bigint) {
    if (typeof totalNanoseconds !== "bigint" && !(totalNanoseconds instanceof Long)) throw new Error("You must specify a Long value as totalNanoseconds");
    const n = typeof totalNanoseconds === "bigint" ? totalNanoseconds : longToBigInt(totalNanoseconds);
    if (n < 0n || n > CqlTime.MAX_NANOS) throw new Error("Total nanoseconds out of range");
    this.nanos = n;
    this.hour = Number(n / 3_600_000_000_000n);
    this.minute = Number((n / 60_000_000_000n) % 60n);
    this.second = Number((n / 1_000_000_000n) % 60n);
    this.nanosecond = Number(n % 1_000_000_000n);
  }

  /** "HH:MM:SS[.fffffffff]", or "HH:MM" as DataStax also reads it (seconds 0). */
  static fromString(value: string): LocalTime {
    const text = typeof value === "string" && /^\d{1,2}:\d{2}$/.test(value) ? `${value}:00` : value;
    return new LocalTime(CqlTime.parse(text).nanos);
  }

  /** A function, not a method: DataStax's statics are plain functions, and code (its own tests) calls this one with `new`. */
  static fromMilliseconds: (milliseconds: number, nanoseconds?: number) => LocalTime = function (milliseconds: number, nanoseconds = 0) {
    return new LocalTime(BigInt(milliseconds) * NS_PER_MS + BigInt(nanoseconds));
  };

  static fromDate(date: Date, nanoseconds = 0): LocalTime {
    const ms = ((date.getHours() * 60 + date.getMinutes()) * 60 + date.getSeconds()) * 1000 + date.getMilliseconds();
    return LocalTime.fromMilliseconds(ms, nanoseconds);
  }

  static now(nanoseconds = 0): LocalTime {
    return LocalTime.fromDate(new Date(), nanoseconds);
  }

  /** A CQL time's 8 bytes (nanoseconds since midnight). */
  static fromBuffer(bytes: Uint8Array): LocalTime {
    return new LocalTime((fromWire("time", bytes) as CqlTime).nanos);
  }

  toBuffer(): BufferOrBytes {
    return wireBytes("time", this);
  }

  getTotalNanoseconds(): Long {
    return longFromBigInt(this.nanos);
  }

  compare(other: LocalTime): number {
    return this.nanos < other.nanos ? -1 : this.nanos > other.nanos ? 1 : 0;
  }

  equals(other: unknown): boolean {
    return other instanceof LocalTime && other.nanos === this.nanos;
  }

  /** As DataStax prints it: no fraction when it is zero, else its digits without trailing zeros. */
  toString(): string {
    const [hms, fraction] = new CqlTime(this.nanos).toString().split(".");
    const digits = fraction.replace(/0+$/, "");
    return digits === "" ? hms : `${hms}.${digits}`;
  }

  toJSON(): string {
    return this.toString();
  }

  inspect(): string {
    return `LocalTime: ${this.toString()}`;
  }

  /** For `console.log`: DataStax's fields (`_partsCache` is filled by its constructor). */
  [INSPECT](): object {
    const parts = [this.hour, this.minute, this.second, this.nanosecond];
    return inspectedAs(this, { value: this.getTotalNanoseconds(), _partsCache: parts, hour: parts[0], minute: parts[1], second: parts[2], nanosecond: parts[3] });
  }

  [toCqlValue](): CqlTime {
    return new CqlTime(this.nanos);
  }
}

/** An IPv4 or IPv6 address. */
export class InetAddress {
  readonly length: number;
  readonly version: number;
  private readonly bytes: Uint8Array;
  private readonly text: string | undefined;

  constructor(buffer: Uint8Array, text?: string) {
    if (!(buffer instanceof Uint8Array) || (buffer.length !== 4 && buffer.length !== 16)) throw new ArgumentError("an InetAddress has 4 or 16 bytes");
    this.bytes = buffer.slice();
    this.length = buffer.length;
    this.version = buffer.length === 4 ? 4 : 6;
    this.text = text;
  }

  static fromString(value: string): InetAddress {
    const bytes = parseInetAddress(value);
    if (bytes === null) throw new ArgumentError(`not an IP address: ${value}`);
    return new InetAddress(bytes);
  }

  getBuffer(): BufferOrBytes {
    return bufferOut(this.bytes);
  }

  equals(other: unknown): boolean {
    return other instanceof InetAddress && other.length === this.length && other.bytes.every((b, i) => b === this.bytes[i]);
  }

  /** The codec's text, as an inet column reads (RFC 5952: the longest run of zeros is "::"). */
  toString(): string {
    return this.text ?? formatInetAddress(this.bytes, 0, this.length);
  }

  toJSON(): string {
    return this.toString();
  }

  /** For `console.log`: DataStax's fields, `InetAddress { buffer: <Buffer ...>, length, version }`. */
  [INSPECT](): object {
    return inspectedAs(this, { buffer: this.getBuffer(), length: this.length, version: this.version });
  }

  [toCqlValue](): Uint8Array {
    return this.bytes;
  }
}

/** A CQL tuple's values, in order. */
export class Tuple {
  readonly elements: unknown[];
  readonly length: number;

  constructor(...args: unknown[]) {
    this.elements = args;
    this.length = args.length;
  }

  static fromArray(elements: unknown[]): Tuple {
    return new Tuple(...elements);
  }

  get(index: number): unknown {
    return this.elements[index];
  }

  values(): unknown[] {
    return this.elements.slice();
  }

  toString(): string {
    return `(${this.elements.map((e) => String(e)).join(",")})`;
  }

  /** As DataStax's: the elements, so a tuple is a JSON array inside the row's JSON. */
  toJSON(): unknown[] {
    return this.elements;
  }

  [toCqlValue](): unknown[] {
    return this.elements;
  }
}

const NANOS_PER_UNIT: Record<string, bigint> = { h: 3_600_000_000_000n, m: 60_000_000_000n, s: 1_000_000_000n, ms: 1_000_000n, us: 1_000n, "µs": 1_000n, ns: 1n };

/** A CQL duration: months, days and nanoseconds, each signed. */
export class Duration {
  readonly months: number;
  readonly days: number;
  readonly nanoseconds: Long;

  constructor(months: number, days: number, nanoseconds: number | Long | bigint) {
    this.months = months;
    this.days = days;
    this.nanoseconds = typeof nanoseconds === "bigint" ? longFromBigInt(nanoseconds) : typeof nanoseconds === "number" ? Long.fromNumber(nanoseconds) : nanoseconds;
  }

  /** CQL's notation, e.g. `1y2mo3w4d5h6m7s8ms9us10ns` or `-2d`. */
  static fromString(input: string): Duration {
    const m = /^(-)?((?:\d+(?:y|mo|w|d|h|m|s|ms|us|µs|ns))+)$/i.exec(input.trim());
    if (m === null) throw new ArgumentError(`not a duration: ${input}`);
    let months = 0, days = 0, nanos = 0n;
    for (const [, amount, unit] of m[2].matchAll(/(\d+)(mo|ms|us|µs|ns|y|w|d|h|m|s)/gi)) {
      const n = BigInt(amount);
      const u = unit.toLowerCase();
      if (u === "y") months += Number(n) * 12;
      else if (u === "mo") months += Number(n);
      else if (u === "w") days += Number(n) * 7;
      else if (u === "d") days += Number(n);
      else nanos += n * NANOS_PER_UNIT[u];
    }
    const sign = m[1] ? -1 : 1;
    return new Duration(sign * months, sign * days, BigInt(sign) * nanos);
  }

  /** A CQL duration's bytes (three zig-zag vints). */
  static fromBuffer(bytes: Uint8Array): Duration {
    const d = fromWire("duration", bytes) as CqlDuration;
    return new Duration(d.months, d.days, d.nanos);
  }

  toBuffer(): BufferOrBytes {
    return wireBytes("duration", this);
  }

  equals(other: unknown): boolean {
    return other instanceof Duration && other.months === this.months && other.days === this.days && other.nanoseconds.equals(this.nanoseconds);
  }

  // No toJSON, as DataStax's: JSON.stringify gives {"months","days","nanoseconds"} (a Long's text).
  toString(): string {
    return this[toCqlValue]().toString();
  }

  [toCqlValue](): CqlDuration {
    return new CqlDuration(this.months, this.days, longToBigInt(this.nanoseconds));
  }
}

/**
 * A row: the columns as own properties, with the DataStax driver's accessors. Values are `any`,
 * as DataStax declares them (`row.name.toUpperCase()` compiles against theirs).
 */
export class Row {
  // deno-lint-ignore no-explicit-any
  [column: string]: any;

  constructor(columns: ReadonlyArray<{ name: string }>) {
    Object.defineProperty(this, "__columns", { value: columns, enumerable: false });
  }

  /** A column by name or by position. */
  // deno-lint-ignore no-explicit-any
  get(columnName: string | number): any {
    if (typeof columnName === "number") {
      const columns = (this as unknown as { __columns: Array<{ name: string }> }).__columns;
      const c = columns[columnName];
      return c === undefined ? undefined : this[c.name];
    }
    return this[columnName];
  }

  keys(): string[] {
    return Object.keys(this);
  }

  // deno-lint-ignore no-explicit-any
  values(): any[] {
    return Object.values(this);
  }

  /** Each value with its column name (DataStax declares `(row: Row) => void`, and passes these). */
  // deno-lint-ignore no-explicit-any
  forEach(callback: (value: any, columnName: string) => void): void {
    for (const key of Object.keys(this)) callback(this[key], key);
  }
}
