/**
 * `Uuid` and `TimeUuid` as the DataStax driver shapes them. cqlwire's own API returns UUIDs as
 * strings; these classes are accepted as parameters everywhere and returned by the
 * compatibility entry point.
 */
import { toCqlValue } from "../codec/mod.ts";
import { ArgumentError } from "../errors.ts";
import { bufferOut, type BufferOrBytes, bytesView } from "./bytes.ts";
import { INSPECT, inspectedAs } from "./inspect.ts";

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
const PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export class Uuid {
  protected readonly bytes: Uint8Array;

  constructor(buffer: Uint8Array) {
    if (!(buffer instanceof Uint8Array) || buffer.length !== 16) throw new ArgumentError("a UUID is built from 16 bytes");
    this.bytes = buffer.slice();
  }

  static fromString(value: string): Uuid {
    return new Uuid(parseUuid(value));
  }

  /** A version 4 (random) UUID. With a callback, as the DataStax driver allows, it is called with it. */
  static random(callback?: (err: Error | null, value: Uuid) => void): Uuid {
    const b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const uuid = new Uuid(b);
    callback?.(null, uuid);
    return uuid;
  }

  getBuffer(): BufferOrBytes {
    return bufferOut(this.bytes);
  }

  /**
   * DataStax's field: the UUID's own 16 bytes as a Buffer (code does `id.buffer`), the same
   * object each time and, as there, not a copy: writing into it changes the UUID.
   */
  get buffer(): BufferOrBytes {
    const view = bytesView(this.bytes) as BufferOrBytes;
    // Kept as a non-enumerable own property that shadows this getter: the same Buffer on every
    // read, while Object.keys, spread and deep equality of UUIDs see no field a class field
    // would add to every instance (two equal UUIDs stay deep-equal after one's buffer is read).
    Object.defineProperty(this, "buffer", { value: view, enumerable: false });
    return view;
  }

  equals(other: unknown): boolean {
    return other instanceof Uuid && other.bytes.every((b, i) => b === this.bytes[i]);
  }

  toString(): string {
    const h = Array.from(this.bytes, (b) => HEX[b]).join("");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  toJSON(): string {
    return this.toString();
  }

  inspect(): string {
    return `${this.constructor.name}: ${this.toString()}`;
  }

  /** For `console.log`: as DataStax's, `Uuid { buffer: <Buffer ...> }`. */
  [INSPECT](): object {
    return inspectedAs(this, { buffer: this.buffer });
  }

  [toCqlValue](): Uint8Array {
    return this.bytes;
  }
}

export function parseUuid(value: string): Uint8Array {
  if (typeof value !== "string" || !PATTERN.test(value)) throw new ArgumentError(`not a UUID string: ${String(value).slice(0, 40)}`);
  const hex = value.replaceAll("-", "");
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
  return out;
}

/** 100 ns intervals from 1582-10-15 (the Gregorian reform, UUID version 1's epoch) to 1970. */
const GREGORIAN_OFFSET_MS = 12_219_292_800_000n;
const TICKS_PER_MS = 10_000;

/** The last millisecond `fromDate` stamped without ticks, and the ticks counted within it. */
let lastMs = -1;
let lastTicks = 0;

/** A node id or clock id: given as bytes or ASCII text, else random for each UUID (as DataStax). */
function bytesOf(value: unknown, length: number, what: string): Uint8Array {
  if (value === undefined || value === null) return crypto.getRandomValues(new Uint8Array(length));
  const b = typeof value === "string" ? new TextEncoder().encode(value) : value;
  if (!(b instanceof Uint8Array) || b.length !== length) throw new ArgumentError(`${what} must be ${length} bytes`);
  return b;
}

type Callback = (err: Error | null, value: TimeUuid) => void;
type Id = string | Uint8Array;

/**
 * The 16 bytes of the version 1 UUID of `date` (the current time if it is not a valid Date)
 * plus `ticks` (0-9999 hundreds of ns). Without ticks (or with ticks past 9999, as DataStax),
 * calls within one millisecond count up so they stay distinct and ordered.
 */
function timeUuidBytes(date: unknown, ticks: unknown, nodeId: unknown, clockId: unknown): Uint8Array {
  const ms = date instanceof Date && Number.isFinite(date.getTime()) ? date.getTime() : Date.now();
  let t = ticks;
  if (typeof t !== "number" || t >= TICKS_PER_MS) {
    lastTicks = ms === lastMs ? lastTicks + 1 : 0;
    lastMs = ms;
    t = lastTicks % TICKS_PER_MS;
  }
  if (!Number.isInteger(t) || (t as number) < 0) throw new ArgumentError("ticks must be an integer in [0, 9999]");
  const node = bytesOf(nodeId, 6, "nodeId");
  const clock = bytesOf(clockId, 2, "clockId");
  const stamp = (BigInt(ms) + GREGORIAN_OFFSET_MS) * BigInt(TICKS_PER_MS) + BigInt(t as number);
  const b = new Uint8Array(16);
  const view = new DataView(b.buffer);
  view.setUint32(0, Number(stamp & 0xffff_ffffn));
  view.setUint16(4, Number((stamp >> 32n) & 0xffffn));
  view.setUint16(6, Number((stamp >> 48n) & 0x0fffn) | 0x1000);
  b[8] = (clock[0] & 0x3f) | 0x80;
  b[9] = clock[1];
  b.set(node, 10);
  return b;
}

/** A version 1 UUID: a timestamp with 100 ns precision, a clock sequence and a node id. */
export class TimeUuid extends Uuid {
  /**
   * From its 16 bytes, or, as DataStax's constructor, from a date (the current time if not a
   * Date), ticks, a node id and a clock id (6 and 2 bytes or ASCII characters; random if absent).
   */
  constructor(value?: Uint8Array | Date | null, ticks?: number | null, nodeId?: Id | null, clockId?: Id | null) {
    super(value instanceof Uint8Array ? value : timeUuidBytes(value, ticks, nodeId, clockId));
    if (this.bytes[6] >> 4 !== 1) throw new ArgumentError("a TimeUuid must be a version 1 UUID");
  }

  static override fromString(value: string): TimeUuid {
    return new TimeUuid(parseUuid(value));
  }

  /**
   * The UUID of `date` plus `ticks` (see the constructor). A callback may stand in place of any
   * argument after the date, as DataStax's: it gets the UUID, or the error instead of a throw.
   */
  static fromDate(date: Date | null, ticks?: number | null | Callback, nodeId?: Id | null | Callback, clockId?: Id | null | Callback, callback?: Callback): TimeUuid {
    const args: unknown[] = [ticks, nodeId, clockId, callback];
    const at = args.findIndex((a) => typeof a === "function");
    if (at < 0) return new TimeUuid(date, ticks as number, nodeId as Id, clockId as Id);
    const done = args[at] as Callback;
    const [t, n, c] = args.map((a, i) => (i < at ? a : undefined));
    let uuid: TimeUuid;
    try {
      uuid = new TimeUuid(date, t as number, n as Id, c as Id);
    } catch (e) {
      // As DataStax: the error and no UUID (declared a TimeUuid, as DataStax declares it).
      done(e as Error, undefined as unknown as TimeUuid);
      return undefined as unknown as TimeUuid;
    }
    done(null, uuid);
    return uuid;
  }

  /** A TimeUuid of the current time (the forms with a node id, clock id and callback too). */
  static now(nodeId?: Id | null | Callback, clockId?: Id | null | Callback, callback?: Callback): TimeUuid {
    return TimeUuid.fromDate(null, null, nodeId, clockId, callback);
  }

  /** The smallest TimeUuid of `date`+`ticks` in Cassandra's order (for `> minTimeuuid` ranges). */
  static min(date: Date, ticks = 0): TimeUuid {
    return TimeUuid.fromDate(date, ticks, MIN_NODE, MIN_CLOCK);
  }

  /** The largest TimeUuid of `date`+`ticks` in Cassandra's order. */
  static max(date: Date, ticks = 0): TimeUuid {
    return TimeUuid.fromDate(date, ticks, MAX_NODE, MAX_CLOCK);
  }

  /** The time as a Date and the 100 ns ticks within its millisecond. */
  getDatePrecision(): { date: Date; ticks: number } {
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset, 16);
    const stamp = (BigInt(view.getUint16(6) & 0x0fff) << 48n) | (BigInt(view.getUint16(4)) << 32n) | BigInt(view.getUint32(0));
    const sinceEpoch = stamp - GREGORIAN_OFFSET_MS * BigInt(TICKS_PER_MS);
    const ticks = Number(((sinceEpoch % 10_000n) + 10_000n) % 10_000n);
    return { date: new Date(Number((sinceEpoch - BigInt(ticks)) / 10_000n)), ticks };
  }

  getDate(): Date {
    return this.getDatePrecision().date;
  }

  getNodeId(): BufferOrBytes {
    return bufferOut(this.bytes.subarray(10, 16));
  }

  getClockId(): BufferOrBytes {
    return bufferOut(this.bytes.subarray(8, 10));
  }

  getNodeIdString(): string {
    return new TextDecoder().decode(this.bytes.subarray(10, 16));
  }
}

// Cassandra compares the clock sequence and node bytes as signed: 0x80 is the least, 0x7f the most.
const MIN_NODE = new Uint8Array(6).fill(0x80);
const MIN_CLOCK = Uint8Array.of(0x80, 0x80);
const MAX_NODE = new Uint8Array(6).fill(0x7f);
const MAX_CLOCK = Uint8Array.of(0x7f, 0x7f);
