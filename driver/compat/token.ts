/**
 * DataStax's `token` module for the Murmur3 partitioner (the only one cqlwire's core routes
 * by): `Token` wraps a signed 64-bit token, `TokenRange` is the ring interval `]start, end]`.
 * The ring's minimum token, -2^63, is never owned by a key; as an end it means "to the end of
 * the ring", so `]min, min]` is the whole ring.
 */
import { dataTypes } from "../src/types.ts";
import { ArgumentError } from "../src/errors.ts";
import { type Long, longFromBigInt } from "./numbers.ts";

const MIN = -(1n << 63n);
const MAX = (1n << 63n) - 1n;
/** The tokens a key can have: ]min, max]. */
const KEY_RING = MAX - MIN;

export class Token {
  constructor(private readonly value: bigint) {}

  /** The CQL type of the value, as `token(pk)` returns it: bigint. */
  getType(): { code: number; info: null } {
    return { code: dataTypes.bigint, info: null };
  }

  getValue(): Long {
    return longFromBigInt(this.value);
  }

  /** The value as cqlwire's native bigint. */
  toBigInt(): bigint {
    return this.value;
  }

  toString(): string {
    return this.value.toString();
  }

  compare(other: Token): number {
    return this.value < other.value ? -1 : this.value > other.value ? 1 : 0;
  }

  equals(other: Token): boolean {
    return other instanceof Token && other.value === this.value;
  }
}

export class TokenRange {
  constructor(readonly start: Token, readonly end: Token) {}

  /** `]t, t]` for any t but the minimum: holds no token. */
  isEmpty(): boolean {
    return this.start.equals(this.end) && this.start.toBigInt() !== MIN;
  }

  /** Passes the end of the ring (and is not just running up to it). */
  isWrappedAround(): boolean {
    return this.start.compare(this.end) > 0 && this.end.toBigInt() !== MIN;
  }

  /** A wrapped range as its two parts, `]start, min]` and `]min, end]`; others as themselves. */
  unwrap(): TokenRange[] {
    if (!this.isWrappedAround()) return [this];
    const min = new Token(MIN);
    return [new TokenRange(this.start, min), new TokenRange(min, this.end)];
  }

  contains(token: Token): boolean {
    if (this.isEmpty()) return false;
    const t = token.toBigInt();
    const start = this.start.toBigInt();
    const end = this.end.toBigInt();
    if (end === MIN) return start === MIN || t === MIN || t > start;
    return this.isWrappedAround() ? t > start || t <= end : t > start && t <= end;
  }

  /**
   * `n` contiguous ranges that together are this one, as DataStax splits: the ring of keys is
   * ]min, max] (2^64 - 1 tokens; min itself is never a key's), the first `width % n` parts
   * one token wider than the rest.
   */
  splitEvenly(n: number): TokenRange[] {
    if (!Number.isInteger(n) || n < 1) throw new ArgumentError(`splitEvenly needs a positive integer, got ${n}`);
    if (this.isEmpty()) throw new ArgumentError(`the empty range ${this} cannot be split`);
    const start = this.start.toBigInt();
    const end = start === MIN && this.end.toBigInt() === MIN ? MAX : this.end.toBigInt();
    const width = end >= start ? end - start : end - start + KEY_RING;
    const count = BigInt(n);
    const step = width / count;
    let wider = width % count;
    const out: TokenRange[] = [];
    let from = this.start;
    let at = start;
    for (let i = 1; i < n; i++, wider--) {
      at += wider > 0n ? step + 1n : step;
      if (at > MAX) at -= KEY_RING;
      const to = new Token(at);
      out.push(new TokenRange(from, to));
      from = to;
    }
    out.push(new TokenRange(from, this.end));
    return out;
  }

  compare(other: TokenRange): number {
    return this.start.compare(other.start) || this.end.compare(other.end);
  }

  equals(other: TokenRange): boolean {
    return other instanceof TokenRange && this.start.equals(other.start) && this.end.equals(other.end);
  }

  toString(): string {
    return `]${this.start}, ${this.end}]`;
  }
}

/** A token from `newToken`'s argument: a token's decimal text, or a routing key. */
export function tokenValueOf(components: string | Uint8Array | Uint8Array[], routingKeyToken: (key: Uint8Array | Uint8Array[]) => bigint): bigint {
  if (typeof components !== "string") return routingKeyToken(components);
  if (!/^-?\d+$/.test(components)) throw new ArgumentError(`not a Murmur3 token: "${components}"`);
  const value = BigInt(components);
  if (value !== BigInt.asIntN(64, value)) throw new ArgumentError(`not a Murmur3 token (outside 64 bits): ${components}`);
  return value;
}

export const token = { Token, TokenRange };
