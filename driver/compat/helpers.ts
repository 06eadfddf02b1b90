/**
 * The DataStax driver's free `types.*` helpers (`generateTimestamp`, the deprecated `timeuuid()`
 * and `uuid()`, `consistencyToString`).
 */
import { consistencies } from "../src/types.ts";
import { TimeUuid, Uuid } from "../src/values/uuid.ts";
import { Long } from "./numbers.ts";

/** `{ [code]: "LOCAL_QUORUM" ... }`, as DataStax's `types.consistencyToString`. */
export const consistencyToString: Record<number, string> = Object.fromEntries(
  Object.entries(consistencies).map(([name, code]) => [code, name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()]),
);

let timestampTicks = 0;

/**
 * Microseconds since the epoch as a `Long`: `date` (default now) and `microseconds` (0-999);
 * without them a counter 0-999 fills the microseconds, as in DataStax's.
 */
export function generateTimestamp(date?: Date, microseconds?: number): Long {
  const at = date ?? new Date();
  let micros = microseconds;
  if (typeof micros !== "number" || micros < 0 || micros >= 1000) {
    if (timestampTicks > 999) timestampTicks = 0;
    micros = timestampTicks++;
  }
  return Long.fromNumber(at.getTime()).multiply(1000).add(micros);
}

/** Copies `uuid` into `buffer` at `offset` and returns the buffer, or its text without one. */
function handOut(uuid: Uuid, buffer?: Uint8Array, offset?: number): string | Uint8Array {
  if (!(buffer instanceof Uint8Array)) return uuid.toString();
  buffer.set(uuid.getBuffer(), offset ?? 0);
  return buffer;
}

/** Deprecated in DataStax's driver, kept there for old code: a version 1 UUID's text. */
export function timeuuid(
  options?: { msecs?: number | Date; node?: number[]; clockseq?: number; nsecs?: number },
  buffer?: Uint8Array,
  offset?: number,
): string | Uint8Array {
  const o = options ?? {};
  const date = o.msecs instanceof Date ? o.msecs : typeof o.msecs === "number" ? new Date(o.msecs) : new Date();
  const node = Array.isArray(o.node) ? Uint8Array.from(o.node) : undefined;
  const clock = typeof o.clockseq === "number" ? Uint8Array.of((o.clockseq >> 8) & 0xff, o.clockseq & 0xff) : undefined;
  const ticks = typeof o.nsecs === "number" ? o.nsecs : undefined;
  return handOut(TimeUuid.fromDate(date, ticks, node, clock), buffer, offset);
}

/** Deprecated in DataStax's driver, kept there for old code: a version 4 UUID's text. */
export function uuid(options?: { random?: number[] }, buffer?: Uint8Array, offset?: number): string | Uint8Array {
  const random = options && Array.isArray(options.random) ? new Uuid(Uint8Array.from(options.random)) : Uuid.random();
  return handOut(random, buffer, offset);
}
