/**
 * Errors raised by the codec. Each has a stable `code` so callers can branch without
 * parsing messages, and protocol errors say which side broke the rules.
 */

// One protocol error class for the TS decoder and the Rust core: it lives with the driver's
// error classes so it is a DriverError.
export { CqlProtocolError, type ProtocolSide } from "../errors.ts";

/** A JavaScript value that cannot be encoded as the CQL type it is bound to. */
export class CqlTypeError extends TypeError {
  readonly code = "ERR_CQL_TYPE";
  readonly kind = "local";
  /** The CQL type, in CQL text form. */
  readonly cqlType: string;
  /** A short rendering of the rejected value (at most 40 characters). */
  readonly value: string;
  readonly reason: string;

  constructor(cqlType: string, value: string, reason: string) {
    super(`cannot encode ${value} as ${cqlType}: ${reason}`);
    this.name = "CqlTypeError";
    this.cqlType = cqlType;
    this.value = value;
    this.reason = reason;
  }
}

const MAX_RENDERED_VALUE = 40;

/** Renders any JS value for an error message, truncated so hostile inputs stay readable. */
export function renderValue(value: unknown): string {
  let text: string;
  try {
    text = renderUntruncated(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  if (text.length > MAX_RENDERED_VALUE) text = text.slice(0, MAX_RENDERED_VALUE - 1) + "…";
  return text;
}

function renderUntruncated(value: unknown): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value.length > MAX_RENDERED_VALUE ? value.slice(0, MAX_RENDERED_VALUE) : value);
    case "bigint":
      return `${value}n`;
    case "number":
      return Object.is(value, -0) ? "-0" : String(value);
    case "undefined":
    case "boolean":
    case "symbol":
      return String(value);
    case "function":
      return `[function ${(value as { name?: string }).name || "anonymous"}]`;
  }
  if (value === null) return "null";
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString();
  if (value instanceof Uint8Array) {
    let hex = "0x";
    const shown = Math.min(value.length, 20);
    for (let i = 0; i < shown; i++) hex += value[i].toString(16).padStart(2, "0");
    return hex;
  }
  if (ArrayBuffer.isView(value)) return `${value.constructor.name}(${(value as { length?: number }).length ?? value.byteLength})`;
  if (Array.isArray(value)) return `[array of ${value.length}]`;
  if (value instanceof Map) return `Map(${value.size})`;
  if (value instanceof Set) return `Set(${value.size})`;
  const own = (value as { toString?: unknown }).toString;
  if (typeof own === "function" && own !== Object.prototype.toString) return String(value);
  try {
    return JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? `${v}n` : v)) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
