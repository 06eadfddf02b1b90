/**
 * The DataStax driver's numeric classes: `Long` (the `long` package, as there), `Integer`
 * (varint) and `BigDecimal` (decimal), each handing the encoders its exact native value.
 */
import LongBase from "long";
import { CqlDecimal, toCqlValue } from "../src/codec/mod.ts";
import { ArgumentError } from "../src/errors.ts";
import { fromWire, wireBytes } from "./wire.ts";
import type { BufferOrBytes } from "../src/values/bytes.ts";
import { INSPECT, inspectedAs } from "../src/values/inspect.ts";

const TWO_32 = 0x1_0000_0000n;

export function longToBigInt(l: LongBase): bigint {
  return (BigInt(l.high) << 32n) | BigInt(l.low >>> 0);
}

export function longFromBigInt(n: bigint): LongBase {
  const v = BigInt.asIntN(64, n);
  return LongBase.fromBits(Number(BigInt.asIntN(32, v)), Number(BigInt.asIntN(32, v >> 32n)), false);
}

// `Long` is the bundled copy of the `long` package: teach it to bind as a CQL bigint.
(LongBase.prototype as unknown as Record<symbol, unknown>)[toCqlValue] = function (this: LongBase): bigint {
  return this.unsigned ? BigInt(this.toString()) : longToBigInt(this);
};

// As DataStax's: JSON.stringify(row) writes a bigint column as its decimal text, not
// {"low":..,"high":..,"unsigned":..}.
(LongBase.prototype as unknown as { toJSON(this: LongBase): string }).toJSON = function (this: LongBase): string {
  return this.toString();
};

type LongBaseClass = typeof LongBase;

/**
 * The `long` package's Long class with the two statics DataStax adds to it (the 8 big-endian
 * bytes of a CQL bigint), named so that the published declarations have them too.
 */
export interface LongClass extends LongBaseClass {
  /** The Long of a CQL bigint's 8 big-endian bytes. */
  fromBuffer(bytes: Uint8Array): LongBase;
  /** A Long's 8 big-endian bytes, as a CQL bigint. */
  toBuffer(value: LongBase): BufferOrBytes;
}

export const Long: LongClass = Object.assign(LongBase, {
  fromBuffer: (bytes: Uint8Array): LongBase => longFromBigInt(fromWire("bigint", bytes) as bigint),
  toBuffer: (value: LongBase): BufferOrBytes => wireBytes("bigint", value),
});
export type Long = LongBase;

/** An arbitrary-precision integer (CQL varint), backed by a bigint. */
export class Integer {
  static readonly ZERO = new Integer(0n);
  static readonly ONE = new Integer(1n);

  private readonly value: bigint;

  constructor(value: bigint | number[], sign?: number) {
    if (typeof value === "bigint") {
      this.value = value;
      return;
    }
    // The Closure form: 32-bit words, least significant first, with a sign word for the rest.
    let n = 0n;
    for (let i = value.length - 1; i >= 0; i--) n = n * TWO_32 + BigInt(value[i] >>> 0);
    if ((sign ?? 0) < 0 || (value.length > 0 && value[value.length - 1] < 0 && sign === undefined)) n -= TWO_32 ** BigInt(value.length);
    this.value = n;
  }

  static fromInt(value: number): Integer {
    return Integer.fromNumber(value);
  }

  static fromNumber(value: number): Integer {
    if (!Number.isFinite(value)) return Integer.ZERO;
    return new Integer(BigInt(Math.trunc(value)));
  }

  static fromBits(bits: number[]): Integer {
    return new Integer(bits);
  }

  static fromString(text: string, radix = 10): Integer {
    const s = text.trim();
    const negative = s.startsWith("-");
    const digits = negative ? s.slice(1) : s;
    if (!/^[0-9a-zA-Z]+$/.test(digits)) throw new ArgumentError(`not an integer: ${text}`);
    let n = 0n;
    const r = BigInt(radix);
    for (const ch of digits.toLowerCase()) {
      const d = parseInt(ch, radix);
      if (Number.isNaN(d)) throw new ArgumentError(`not an integer in radix ${radix}: ${text}`);
      n = n * r + BigInt(d);
    }
    return new Integer(negative ? -n : n);
  }

  /** A CQL varint's bytes (two's complement, big-endian). */
  static fromBuffer(bytes: Uint8Array): Integer {
    return new Integer(fromWire("varint", bytes) as bigint);
  }

  static toBuffer(value: Integer): BufferOrBytes {
    return wireBytes("varint", value);
  }

  static fromBigInt(value: bigint): Integer {
    return new Integer(value);
  }

  toBigInt(): bigint {
    return this.value;
  }

  toNumber(): number {
    return Number(this.value);
  }

  toInt(): number {
    return Number(BigInt.asIntN(32, this.value));
  }

  toString(radix = 10): string {
    return this.value.toString(radix);
  }

  toJSON(): string {
    return this.toString();
  }

  isZero(): boolean {
    return this.value === 0n;
  }

  isNegative(): boolean {
    return this.value < 0n;
  }

  isOdd(): boolean {
    return (this.value & 1n) === 1n;
  }

  getSign(): number {
    return this.value < 0n ? -1 : 0;
  }

  compare(other: Integer): number {
    return this.value < other.value ? -1 : this.value > other.value ? 1 : 0;
  }

  equals(other: Integer): boolean {
    return other instanceof Integer && other.value === this.value;
  }

  notEquals(other: Integer): boolean {
    return !this.equals(other);
  }

  greaterThan(other: Integer): boolean {
    return this.value > other.value;
  }

  greaterThanOrEqual(other: Integer): boolean {
    return this.value >= other.value;
  }

  lessThan(other: Integer): boolean {
    return this.value < other.value;
  }

  lessThanOrEqual(other: Integer): boolean {
    return this.value <= other.value;
  }

  negate(): Integer {
    return new Integer(-this.value);
  }

  abs(): Integer {
    return this.value < 0n ? this.negate() : this;
  }

  add(other: Integer): Integer {
    return new Integer(this.value + other.value);
  }

  subtract(other: Integer): Integer {
    return new Integer(this.value - other.value);
  }

  multiply(other: Integer): Integer {
    return new Integer(this.value * other.value);
  }

  divide(other: Integer): Integer {
    if (other.value === 0n) throw new ArgumentError("division by zero");
    return new Integer(this.value / other.value);
  }

  modulo(other: Integer): Integer {
    return new Integer(this.value % other.value);
  }

  shiftLeft(bits: number): Integer {
    return new Integer(this.value << BigInt(bits));
  }

  shiftRight(bits: number): Integer {
    return new Integer(this.value >> BigInt(bits));
  }

  /**
   * For `console.log`: DataStax's fields, Closure's form (32-bit words, least significant first,
   * without the top words that repeat the sign word).
   */
  [INSPECT](): object {
    const sign = this.value < 0n ? -1 : 0;
    const bits: number[] = [];
    for (let rest = this.value; rest !== BigInt(sign); rest >>= 32n) bits.push(Number(BigInt.asIntN(32, rest)));
    return inspectedAs(this, { bits_: bits, sign_: sign });
  }

  [toCqlValue](): bigint {
    return this.value;
  }
}

/** A decimal: an unscaled Integer and a scale (value = unscaled × 10^-scale). */
export class BigDecimal {
  private readonly decimal: CqlDecimal;

  constructor(unscaledValue: Integer | number | bigint, scale: number) {
    const unscaled = unscaledValue instanceof Integer ? unscaledValue.toBigInt() : BigInt(unscaledValue);
    this.decimal = new CqlDecimal(unscaled, scale);
  }

  static fromString(value: string): BigDecimal {
    return BigDecimal.of(CqlDecimal.parse(value.trim()));
  }

  static fromNumber(value: number): BigDecimal {
    if (!Number.isFinite(value)) throw new ArgumentError(`${value} is not a finite number`);
    return BigDecimal.fromString(String(value));
  }

  /** A CQL decimal's bytes: the scale (4 bytes) then the unscaled varint. */
  static fromBuffer(bytes: Uint8Array): BigDecimal {
    return BigDecimal.of(fromWire("decimal", bytes) as CqlDecimal);
  }

  static toBuffer(value: BigDecimal): BufferOrBytes {
    return wireBytes("decimal", value);
  }

  static of(d: CqlDecimal): BigDecimal {
    return new BigDecimal(d.unscaled, d.scale);
  }

  get scale(): number {
    return this.decimal.scale;
  }

  getUnscaledValue(): Integer {
    return new Integer(this.decimal.unscaled);
  }

  /** Both operands at the larger scale. */
  private aligned(other: BigDecimal): [bigint, bigint, number] {
    const scale = Math.max(this.scale, other.scale);
    const a = this.decimal.unscaled * 10n ** BigInt(scale - this.scale);
    const b = other.decimal.unscaled * 10n ** BigInt(scale - other.scale);
    return [a, b, scale];
  }

  add(other: BigDecimal): BigDecimal {
    const [a, b, scale] = this.aligned(other);
    return new BigDecimal(a + b, scale);
  }

  subtract(other: BigDecimal): BigDecimal {
    const [a, b, scale] = this.aligned(other);
    return new BigDecimal(a - b, scale);
  }

  compare(other: BigDecimal): number {
    const [a, b] = this.aligned(other);
    return a < b ? -1 : a > b ? 1 : 0;
  }

  equals(other: BigDecimal): boolean {
    return other instanceof BigDecimal && this.compare(other) === 0;
  }

  notEquals(other: BigDecimal): boolean {
    return !this.equals(other);
  }

  greaterThan(other: BigDecimal): boolean {
    return this.compare(other) > 0;
  }

  isNegative(): boolean {
    return this.decimal.unscaled < 0n;
  }

  isZero(): boolean {
    return this.decimal.unscaled === 0n;
  }

  toNumber(): number {
    return Number(this.toString());
  }

  toString(): string {
    return this.decimal.toString();
  }

  toJSON(): string {
    return this.toString();
  }

  /** For `console.log`: DataStax's fields, the unscaled value as its `Integer`. */
  [INSPECT](): object {
    return inspectedAs(this, { _intVal: new Integer(this.decimal.unscaled), _scale: this.decimal.scale });
  }

  [toCqlValue](): CqlDecimal {
    return this.decimal;
  }
}
