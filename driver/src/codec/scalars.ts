/**
 * JS representations of CQL values that have no lossless built-in equivalent.
 * Each keeps the exact wire value and prints as CQL writes it.
 */

/** Marks a bound value as "not set": the column keeps its current value (`[value]` length -2). */
export const unset: unique symbol = Symbol.for("cqlwire.unset") as typeof unset;
export type Unset = typeof unset;

/**
 * A value class (e.g. the compatibility entry's `Long`, `Uuid`, `LocalDate`) hands the
 * encoders its native form through this method: a bigint, string, Uint8Array, CqlDate... The
 * symbol is global so classes from another copy of the bundle (CommonJS beside ESM) work too.
 */
export const toCqlValue: unique symbol = Symbol.for("cqlwire.toCqlValue") as typeof toCqlValue;
export interface CqlValueSource {
  [toCqlValue](): unknown;
}

const MS_PER_DAY = 86_400_000;
const NS_PER_SECOND = 1_000_000_000n;
const NS_PER_DAY = 86_400n * NS_PER_SECOND;
/** `new Date(ms)` is valid exactly for |ms| <= 8.64e15. */
export const MAX_DATE_MS = 8.64e15;

/** Civil (proleptic Gregorian) year, month, day of a day count since 1970-01-01. */
export function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  return [yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

/** Days since 1970-01-01 of a proleptic Gregorian date. */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** ISO 8601 year as java.time prints it: at least 4 digits, `+` above 9999, `-` below 0. */
function formatYear(year: number): string {
  const abs = Math.abs(year);
  if (abs < 10000) return (year < 0 ? "-" : "") + String(abs).padStart(4, "0");
  return (year < 0 ? "-" : "+") + String(abs);
}

const pad2 = (n: number) => (n < 10 ? "0" : "") + n;

/** A CQL `date`: a signed day count since 1970-01-01 (the wire value minus 2^31). */
export class CqlDate {
  constructor(readonly days: number) {}

  static readonly MIN_DAYS = -(2 ** 31);
  static readonly MAX_DAYS = 2 ** 31 - 1;

  /** Parses `YYYY-MM-DD` (years may be signed and longer than four digits). */
  static parse(text: string): CqlDate {
    const m = /^([+-]?\d{1,7})-(\d{2})-(\d{2})$/.exec(text);
    if (m === null) throw new RangeError(`${JSON.stringify(text)} is not a YYYY-MM-DD date`);
    const year = Number(m[1]);
    const month = Number(m[2]);
    const day = Number(m[3]);
    if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
      throw new RangeError(`${JSON.stringify(text)} is not a calendar date`);
    }
    const days = daysFromCivil(year, month, day);
    if (days < CqlDate.MIN_DAYS || days > CqlDate.MAX_DAYS) throw new RangeError(`${text} is outside the CQL date range`);
    return new CqlDate(days);
  }

  /** The UTC calendar day of a Date. */
  static fromDate(date: Date): CqlDate {
    return new CqlDate(Math.floor(date.getTime() / MS_PER_DAY));
  }

  /** Midnight UTC of this day, or an Invalid Date beyond JavaScript's range. */
  toDate(): Date {
    return new Date(this.days * MS_PER_DAY);
  }

  toString(): string {
    const [year, month, day] = civilFromDays(this.days);
    return `${formatYear(year)}-${pad2(month)}-${pad2(day)}`;
  }

  toJSON(): string {
    return this.toString();
  }
}

/** A CQL `time`: nanoseconds since midnight, 0 to 86399999999999. */
export class CqlTime {
  constructor(readonly nanos: bigint) {}

  static readonly MAX_NANOS = NS_PER_DAY - 1n;

  /** Parses `HH:MM:SS` with an optional fraction of up to nine digits. */
  static parse(text: string): CqlTime {
    const m = /^(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/.exec(text);
    if (m === null) throw new RangeError(`${JSON.stringify(text)} is not an HH:MM:SS[.fffffffff] time`);
    const hours = Number(m[1]);
    const minutes = Number(m[2]);
    const seconds = Number(m[3]);
    if (hours > 23 || minutes > 59 || seconds > 59) throw new RangeError(`${JSON.stringify(text)} is not a time of day`);
    const fraction = BigInt((m[4] ?? "").padEnd(9, "0"));
    return new CqlTime(BigInt(hours * 3600 + minutes * 60 + seconds) * NS_PER_SECOND + fraction);
  }

  toString(): string {
    const seconds = Number(this.nanos / NS_PER_SECOND);
    const fraction = String(this.nanos % NS_PER_SECOND).padStart(9, "0");
    return `${pad2(Math.floor(seconds / 3600))}:${pad2(Math.floor(seconds / 60) % 60)}:${pad2(seconds % 60)}.${fraction}`;
  }

  toJSON(): string {
    return this.toString();
  }
}

/**
 * A CQL `timestamp` outside the range of JavaScript's Date (|ms| > 8.64e15). Timestamps
 * inside that range decode to plain `Date` objects.
 */
export class CqlTimestamp {
  constructor(readonly ms: bigint) {}

  /** ISO 8601 in UTC, with an expanded year where needed. */
  toString(): string {
    const dayMs = BigInt(MS_PER_DAY);
    let days = this.ms / dayMs;
    let rest = this.ms % dayMs;
    if (rest < 0n) {
      rest += dayMs;
      days -= 1n;
    }
    const [year, month, day] = civilFromDays(Number(days));
    const msOfDay = Number(rest);
    const ms = String(msOfDay % 1000).padStart(3, "0");
    const totalSeconds = Math.floor(msOfDay / 1000);
    return `${formatYear(year)}-${pad2(month)}-${pad2(day)}T${pad2(Math.floor(totalSeconds / 3600))}:${pad2(Math.floor(totalSeconds / 60) % 60)}:${pad2(totalSeconds % 60)}.${ms}Z`;
  }

  toJSON(): string {
    return this.toString();
  }
}

/**
 * A CQL `duration`: months, days and nanoseconds kept apart (a month is not a fixed number
 * of days). All three share one sign.
 */
export class CqlDuration {
  constructor(readonly months: number, readonly days: number, readonly nanos: bigint) {}

  /** CQL's own notation, e.g. `1y2mo3d4h5m6s7ms8us9ns`, `-3d`, `0s`. */
  toString(): string {
    const negative = this.months < 0 || this.days < 0 || this.nanos < 0n;
    const absMonths = Math.abs(this.months);
    const absDays = Math.abs(this.days);
    let nanos = this.nanos < 0n ? -this.nanos : this.nanos;
    let text = "";
    if (absMonths >= 12) text += `${Math.floor(absMonths / 12)}y`;
    if (absMonths % 12 !== 0) text += `${absMonths % 12}mo`;
    if (absDays !== 0) text += `${absDays}d`;
    const units: [bigint, string][] = [
      [3_600_000_000_000n, "h"],
      [60_000_000_000n, "m"],
      [1_000_000_000n, "s"],
      [1_000_000n, "ms"],
      [1_000n, "us"],
      [1n, "ns"],
    ];
    for (const [size, unit] of units) {
      if (nanos >= size) {
        text += `${nanos / size}${unit}`;
        nanos %= size;
      }
    }
    if (text === "") return "0s";
    return (negative ? "-" : "") + text;
  }

  toJSON(): { months: number; days: number; nanos: string } {
    return { months: this.months, days: this.days, nanos: String(this.nanos) };
  }
}

/** Beyond this many zeros, `toString` switches to exponent notation rather than allocate them. */
const MAX_PLAIN_PADDING = 10_000;

/** A CQL `decimal`: `unscaled × 10^-scale`, exactly. */
export class CqlDecimal {
  constructor(readonly unscaled: bigint, readonly scale: number) {}

  /** Parses `-12.345`, `1e-7`, `.5`, `+3.`. */
  static parse(text: string): CqlDecimal {
    const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
    if (m === null || (m[2] === "" && (m[3] ?? "") === "")) throw new RangeError(`${JSON.stringify(text)} is not a decimal number`);
    const fraction = m[3] ?? "";
    const scale = fraction.length - Number(m[4] ?? "0");
    if (!Number.isSafeInteger(scale) || scale < -(2 ** 31) || scale > 2 ** 31 - 1) {
      throw new RangeError(`${JSON.stringify(text)} has an exponent outside the decimal range`);
    }
    return new CqlDecimal(BigInt(`${m[1]}${m[2]}${fraction}` || "0"), scale);
  }

  /** The plain decimal string (`123.45`, `0.001`, `1200`), like Java's toPlainString. */
  toString(): string {
    const negative = this.unscaled < 0n;
    const digits = String(negative ? -this.unscaled : this.unscaled);
    const sign = negative ? "-" : "";
    if (this.scale <= 0) {
      if (this.unscaled === 0n) return "0";
      if (-this.scale > MAX_PLAIN_PADDING) return `${sign}${digits}E+${-this.scale}`;
      return sign + digits + "0".repeat(-this.scale);
    }
    if (this.scale - digits.length > MAX_PLAIN_PADDING) return `${sign}${digits}E-${this.scale}`;
    const padded = digits.padStart(this.scale + 1, "0");
    return `${sign}${padded.slice(0, padded.length - this.scale)}.${padded.slice(padded.length - this.scale)}`;
  }

  toJSON(): string {
    return this.toString();
  }
}
