// Conversion of CSV field text into the JS values the driver binds, one converter per CQL
// type. Converters are built once per column and throw ConversionError on bad input.

import { type CqlType, cqlTypeToString, isTextual, type NativeTypeName } from "../cql_type.ts";
import { type Literal, LiteralSyntaxError, parseLiteral } from "./literal.ts";

export class ConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConversionError";
  }
}

/** Converts the text of a non-null field; `null` means the field stands for a null value. */
export type FieldConverter = (text: string) => unknown;

type ScalarParser = (text: string) => unknown;

function fail(message: string): never {
  throw new ConversionError(message);
}

const INTEGER = /^[+-]?[0-9]+$/;
const DECIMAL = /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const BLOB = /^0[xX]([0-9a-fA-F]*)$/;

function parseBoundedInteger(text: string, type: string, bits: number): number {
  if (!INTEGER.test(text)) fail(`not an integer (expected ${type})`);
  const value = Number(text);
  const limit = 2 ** (bits - 1);
  if (value < -limit || value > limit - 1) fail(`out of range for ${type} (${-limit} to ${limit - 1})`);
  return value;
}

const BIGINT_MIN = -(2n ** 63n);
const BIGINT_MAX = 2n ** 63n - 1n;

function parseBigint(text: string, type: string): bigint {
  if (!INTEGER.test(text)) fail(`not an integer (expected ${type})`);
  const value = BigInt(text);
  if (value < BIGINT_MIN || value > BIGINT_MAX) fail(`out of range for ${type} (64-bit)`);
  return value;
}

function parseVarint(text: string): bigint {
  if (!INTEGER.test(text)) fail("not an integer (expected varint)");
  return BigInt(text);
}

const NON_FINITE: Record<string, number> = {
  "nan": NaN,
  "infinity": Infinity,
  "+infinity": Infinity,
  "-infinity": -Infinity,
  "inf": Infinity,
  "+inf": Infinity,
  "-inf": -Infinity,
};

function parseFloating(text: string, type: "float" | "double"): number {
  const special = NON_FINITE[text.toLowerCase()];
  if (special !== undefined) return special;
  if (!DECIMAL.test(text)) fail(`not a number (expected ${type})`);
  const value = Number(text);
  // A float takes any text that rounds to a finite 32-bit value, such as 3.4028235e38.
  if (!Number.isFinite(type === "float" ? Math.fround(value) : value)) fail(`out of range for ${type}`);
  return value;
}

function parseDecimal(text: string): string {
  if (!DECIMAL.test(text)) fail("not a decimal number");
  const exponent = /[eE]([+-]?[0-9]+)$/.exec(text);
  if (exponent && Math.abs(Number(exponent[1])) > 1_000_000_000) fail("decimal exponent out of range");
  return text.startsWith("+") ? text.slice(1) : text;
}

const BOOLEAN_SPELLINGS: Record<string, boolean> = {
  "true": true,
  "false": false,
  "yes": true,
  "no": false,
  "y": true,
  "n": false,
  "1": true,
  "0": false,
  "t": true,
  "f": false,
};

function parseBoolean(text: string): boolean {
  const value = BOOLEAN_SPELLINGS[text.toLowerCase()];
  if (value === undefined) fail("not a boolean (expected true/false, yes/no, y/n, 1/0 or t/f)");
  return value;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
}

function checkCalendarDate(year: number, month: number, day: number): void {
  if (month < 1 || month > 12) fail(`month ${month} does not exist`);
  if (day < 1 || day > daysInMonth(year, month)) fail(`day ${day} does not exist in month ${month}`);
}

function checkClock(hour: number, minute: number, second: number): void {
  if (hour > 23) fail(`hour ${hour} out of range`);
  if (minute > 59) fail(`minute ${minute} out of range`);
  if (second > 59) fail(`second ${second} out of range`);
}

const TIMESTAMP =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[Tt ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?)? ?([Zz]|[+-][0-9]{2}(?::?[0-9]{2})?)?$/;
const MAX_DATE_MILLIS = 8.64e15;

function parseTimestamp(text: string): Date {
  if (INTEGER.test(text)) {
    const millis = Number(text);
    if (!Number.isSafeInteger(millis) || Math.abs(millis) > MAX_DATE_MILLIS) fail("epoch milliseconds out of range");
    return new Date(millis);
  }
  const match = TIMESTAMP.exec(text);
  if (!match) fail("not a timestamp (expected ISO-8601 like 2024-05-01T12:30:00.000Z, or epoch milliseconds)");
  const [, yearText, monthText, dayText, hourText, minuteText, secondText, fraction, zone] = match;
  const year = Number(yearText);
  const month = Number(monthText);
  const day = Number(dayText);
  checkCalendarDate(year, month, day);
  const hour = Number(hourText ?? 0);
  const minute = Number(minuteText ?? 0);
  const second = Number(secondText ?? 0);
  checkClock(hour, minute, second);
  const fractionDigits = (fraction ?? "").padEnd(3, "0");
  if (/[1-9]/.test(fractionDigits.slice(3))) fail("timestamps hold milliseconds; finer digits would be lost");
  let offsetMinutes = 0;
  if (zone && zone.toUpperCase() !== "Z") {
    const digits = zone.slice(1).replace(":", "");
    const zoneHours = Number(digits.slice(0, 2));
    const zoneMinutes = Number(digits.slice(2) || "0");
    if (zoneHours > 18 || zoneMinutes > 59) fail(`time zone offset ${zone} out of range`);
    offsetMinutes = (zone[0] === "-" ? -1 : 1) * (zoneHours * 60 + zoneMinutes);
  }
  const date = new Date(0);
  // setUTCFullYear rather than Date.UTC, which maps years 0-99 to 1900-1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offsetMinutes, second, Number(fractionDigits.slice(0, 3)));
  return date;
}

function parseDate(text: string): string {
  const match = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(text);
  if (!match) fail("not a date (expected YYYY-MM-DD)");
  checkCalendarDate(Number(match[1]), Number(match[2]), Number(match[3]));
  return text;
}

function parseTime(text: string): string {
  const match = /^([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?$/.exec(text);
  if (!match) fail("not a time of day (expected HH:MM[:SS[.fffffffff]])");
  const [, hour, minute, second = "00", fraction = ""] = match;
  checkClock(Number(hour), Number(minute), Number(second));
  return `${hour}:${minute}:${second}.${fraction.padEnd(9, "0")}`;
}

function parseUuid(text: string, type: "uuid" | "timeuuid"): string {
  if (!UUID.test(text)) fail(`not a UUID (expected ${type} like 123e4567-e89b-12d3-a456-426614174000)`);
  if (type === "timeuuid" && text[14] !== "1") fail("not a time-based (version 1) UUID");
  return text.toLowerCase();
}

function parseInet(text: string): string {
  const ipv4 = /^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$/.exec(text);
  if (ipv4) {
    if (ipv4.slice(1).some((part) => Number(part) > 255)) fail("not an IPv4 address (a part exceeds 255)");
    return text;
  }
  if (text.includes(":") && !/[\[\]/%@]/.test(text)) {
    try {
      // The WHATWG URL parser implements exactly the IPv6 text grammar.
      new URL(`http://[${text}]/`);
      return text.toLowerCase();
    } catch {
      // fall through to the error below
    }
  }
  fail("not an IP address (expected IPv4 or IPv6)");
}

function parseBlob(text: string): Uint8Array {
  const match = BLOB.exec(text);
  if (!match) fail("not a blob (expected 0x followed by hex digits)");
  const hex = match[1];
  if (hex.length % 2 !== 0) fail("blob has an odd number of hex digits");
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/** What the driver binds for a duration: months, days and nanoseconds, sharing one sign. */
export interface DurationParts {
  months: number;
  days: number;
  nanos: bigint;
}

const DURATION_UNITS = /^([0-9]+(?:y|mo|w|d|h|ms|m|s|us|µs|ns))+$/i;
const DURATION_UNIT_PART = /([0-9]+)(y|mo|w|d|h|ms|m|s|us|µs|ns)/gi;
const DURATION_ISO =
  /^P(?=.)(?:([0-9]+)Y)?(?:([0-9]+)M)?(?:([0-9]+)D)?(?:T(?=.)(?:([0-9]+)H)?(?:([0-9]+)M)?(?:([0-9]+)S)?)?$/;
const DURATION_ISO_WEEKS = /^P([0-9]+)W$/;
const DURATION_ISO_ALTERNATIVE = /^P([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})$/;

const NANOS_PER: Record<string, bigint> = {
  h: 3_600_000_000_000n,
  m: 60_000_000_000n,
  s: 1_000_000_000n,
  ms: 1_000_000n,
  us: 1_000n,
  "µs": 1_000n,
  ns: 1n,
};
const INT32_MAX = 2 ** 31 - 1;

function durationFrom(negative: boolean, months: bigint, days: bigint, nanos: bigint): DurationParts {
  if (months > BigInt(INT32_MAX)) fail("duration has too many months for CQL (32-bit)");
  if (days > BigInt(INT32_MAX)) fail("duration has too many days for CQL (32-bit)");
  if (nanos > BIGINT_MAX) fail("duration has too many nanoseconds for CQL (64-bit)");
  const sign = negative ? -1 : 1;
  return { months: sign * Number(months) || 0, days: sign * Number(days) || 0, nanos: negative ? -nanos : nanos };
}

/** CQL's duration notations: 1h30m / 2mo3d, ISO-8601 P1DT2H and P2W, and P0001-02-03T04:05:06. */
function parseDuration(text: string): DurationParts {
  const negative = text.startsWith("-");
  const body = negative ? text.slice(1) : text;
  const big = (digits: string | undefined) => BigInt(digits ?? "0");
  if (DURATION_UNITS.test(body)) {
    let months = 0n;
    let days = 0n;
    let nanos = 0n;
    for (const [, amountText, unitText] of body.matchAll(DURATION_UNIT_PART)) {
      const amount = BigInt(amountText);
      const unit = unitText.toLowerCase();
      if (unit === "y") months += amount * 12n;
      else if (unit === "mo") months += amount;
      else if (unit === "w") days += amount * 7n;
      else if (unit === "d") days += amount;
      else nanos += amount * NANOS_PER[unit];
    }
    return durationFrom(negative, months, days, nanos);
  }
  let match = DURATION_ISO.exec(body);
  if (match) {
    const [, years, months, days, hours, minutes, seconds] = match;
    return durationFrom(
      negative,
      big(years) * 12n + big(months),
      big(days),
      big(hours) * NANOS_PER.h + big(minutes) * NANOS_PER.m + big(seconds) * NANOS_PER.s,
    );
  }
  match = DURATION_ISO_WEEKS.exec(body);
  if (match) return durationFrom(negative, 0n, big(match[1]) * 7n, 0n);
  match = DURATION_ISO_ALTERNATIVE.exec(body);
  if (match) {
    const [, years, months, days, hours, minutes, seconds] = match;
    return durationFrom(
      negative,
      big(years) * 12n + big(months),
      big(days),
      big(hours) * NANOS_PER.h + big(minutes) * NANOS_PER.m + big(seconds) * NANOS_PER.s,
    );
  }
  fail("not a duration (expected e.g. 1h30m, 2mo3d or ISO-8601 P1DT2H)");
}

function parseAscii(text: string): string {
  // deno-lint-ignore no-control-regex
  if (!/^[\x00-\x7f]*$/.test(text)) fail("not ASCII (the column is ascii)");
  return text;
}

const SCALAR_PARSERS: Record<NativeTypeName, ScalarParser> = {
  ascii: parseAscii,
  text: (text) => text,
  varchar: (text) => text,
  tinyint: (text) => parseBoundedInteger(text, "tinyint", 8),
  smallint: (text) => parseBoundedInteger(text, "smallint", 16),
  int: (text) => parseBoundedInteger(text, "int", 32),
  bigint: (text) => parseBigint(text, "bigint"),
  counter: (text) => parseBigint(text, "counter"),
  varint: parseVarint,
  decimal: parseDecimal,
  float: (text) => parseFloating(text, "float"),
  double: (text) => parseFloating(text, "double"),
  boolean: parseBoolean,
  timestamp: parseTimestamp,
  date: parseDate,
  time: parseTime,
  uuid: (text) => parseUuid(text, "uuid"),
  timeuuid: (text) => parseUuid(text, "timeuuid"),
  inet: parseInet,
  blob: parseBlob,
  duration: parseDuration,
};

function describeLiteral(literal: Literal): string {
  switch (literal.kind) {
    case "string":
      return "a string";
    case "bare":
      return `'${literal.value}'`;
    case "null":
      return "null";
    case "list":
      return "a list [..]";
    case "tuple":
      return "a tuple (..)";
    case "braces":
      return literal.entries.length > 0 ? "a map {k: v}" : "a set {..}";
  }
}

function nestedError(where: string, error: unknown): never {
  if (error instanceof ConversionError) fail(`${where}: ${error.message}`);
  throw error;
}

function elementsOf(literal: Literal, type: CqlType, accepted: Array<Literal["kind"]>): Literal[] {
  if (!accepted.includes(literal.kind)) {
    fail(`expected ${cqlTypeToString(type)}, found ${describeLiteral(literal)}`);
  }
  if (literal.kind === "braces") {
    if (literal.entries.length > 0) fail(`expected ${cqlTypeToString(type)}, found a map {k: v}`);
    return literal.elements;
  }
  if (literal.kind === "list" || literal.kind === "tuple") return literal.elements;
  fail(`expected ${cqlTypeToString(type)}, found ${describeLiteral(literal)}`);
}

function identifierOf(literal: Literal): string {
  if (literal.kind === "bare") {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(literal.value)) fail(`'${literal.value}' is not a field name`);
    return literal.value.toLowerCase();
  }
  if (literal.kind === "string") return literal.value;
  fail(`expected a field name, found ${describeLiteral(literal)}`);
}

/** Converts one parsed element of a collection, tuple, UDT or vector by its type. */
function fromLiteral(literal: Literal, type: CqlType): unknown {
  if (literal.kind === "null") {
    if (type.kind === "native" || type.kind === "udt" || type.kind === "tuple") return null;
    fail("null is not allowed here");
  }
  switch (type.kind) {
    case "native": {
      if (literal.kind !== "string" && literal.kind !== "bare") {
        fail(`expected ${type.name}, found ${describeLiteral(literal)}`);
      }
      return SCALAR_PARSERS[type.name](
        literal.kind === "bare" || isTextual(type) ? literal.value : literal.value.trim(),
      );
    }
    case "list":
    case "set": {
      const accepted: Array<Literal["kind"]> = type.kind === "list" ? ["list"] : ["braces", "list"];
      return elementsOf(literal, type, accepted).map((element, i) => {
        if (element.kind === "null") fail(`element ${i + 1}: null is not allowed in a ${type.kind}`);
        try {
          return fromLiteral(element, type.element);
        } catch (error) {
          nestedError(`element ${i + 1}`, error);
        }
      });
    }
    case "vector": {
      const elements = elementsOf(literal, type, ["list"]);
      if (elements.length !== type.dimension) {
        fail(`expected ${type.dimension} elements for ${cqlTypeToString(type)}, found ${elements.length}`);
      }
      const values = elements.map((element, i) => {
        if (element.kind === "null") fail(`element ${i + 1}: null is not allowed in a vector`);
        try {
          return fromLiteral(element, type.element);
        } catch (error) {
          nestedError(`element ${i + 1}`, error);
        }
      });
      return type.element.kind === "native" && type.element.name === "float"
        ? Float32Array.from(values as number[])
        : values;
    }
    case "tuple": {
      const elements = elementsOf(literal, type, ["tuple", "list"]);
      if (elements.length > type.elements.length) {
        fail(`expected at most ${type.elements.length} tuple elements, found ${elements.length}`);
      }
      return type.elements.map((elementType, i) => {
        if (i >= elements.length) return null;
        try {
          return fromLiteral(elements[i], elementType);
        } catch (error) {
          nestedError(`tuple element ${i + 1}`, error);
        }
      });
    }
    case "map": {
      if (literal.kind !== "braces" || literal.elements.length > 0) {
        fail(`expected ${cqlTypeToString(type)} as {key: value, ..}, found ${describeLiteral(literal)}`);
      }
      const map = new Map<unknown, unknown>();
      for (const [keyLiteral, valueLiteral] of literal.entries) {
        const keyText = keyLiteral.kind === "string" || keyLiteral.kind === "bare" ? keyLiteral.value : "";
        let key: unknown;
        try {
          if (keyLiteral.kind === "null") fail("null is not allowed as a map key");
          key = fromLiteral(keyLiteral, type.key);
        } catch (error) {
          nestedError(`map key '${keyText}'`, error);
        }
        if (valueLiteral.kind === "null") fail(`map value for key '${keyText}': null is not allowed in a map`);
        try {
          map.set(key, fromLiteral(valueLiteral, type.value));
        } catch (error) {
          nestedError(`map value for key '${keyText}'`, error);
        }
      }
      return map;
    }
    case "udt": {
      if (type.fields === null) fail(`the definition of type ${type.name} is unknown`);
      if (literal.kind !== "braces" || literal.elements.length > 0) {
        fail(`expected ${type.name} as {field: value, ..}, found ${describeLiteral(literal)}`);
      }
      const value: Record<string, unknown> = {};
      for (const field of type.fields) value[field.name] = null;
      for (const [nameLiteral, fieldLiteral] of literal.entries) {
        const name = identifierOf(nameLiteral);
        const field = type.fields.find((candidate) => candidate.name === name);
        if (!field) fail(`type ${type.name} has no field '${name}'`);
        try {
          value[field.name] = fromLiteral(fieldLiteral, field.type);
        } catch (error) {
          nestedError(`field ${field.name}`, error);
        }
      }
      return value;
    }
    case "custom":
      fail(`custom type ${type.className} cannot be loaded`);
  }
}

/**
 * Builds the converter of a column. Text columns take the field as is; every other type
 * ignores surrounding spaces, and an empty field means null for it.
 */
export function converterFor(type: CqlType): FieldConverter {
  if (type.kind === "native") {
    const parse = SCALAR_PARSERS[type.name];
    if (isTextual(type)) return parse;
    return (text) => {
      const trimmed = text.trim();
      return trimmed === "" ? null : parse(trimmed);
    };
  }
  if (type.kind === "custom") {
    return () => fail(`custom type ${type.className} cannot be loaded`);
  }
  return (text) => {
    const trimmed = text.trim();
    if (trimmed === "") return null;
    let literal: Literal;
    try {
      literal = parseLiteral(trimmed);
    } catch (error) {
      if (error instanceof LiteralSyntaxError) fail(`not a valid ${cqlTypeToString(type)} literal: ${error.message}`);
      throw error;
    }
    if (literal.kind === "null") return null;
    return fromLiteral(literal, type);
  };
}
