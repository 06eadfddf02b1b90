/**
 * A bounds-checked big-endian cursor over one `Uint8Array`, sharing a single `DataView`.
 * Every read names its protocol field so a failure says what was being read and where.
 */
import { CqlProtocolError } from "./errors.ts";

const utf8Strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Below this length, decoding ASCII by hand beats the TextDecoder call overhead. */
const SHORT_STRING_LIMIT = 64;
/**
 * One reusable char-code array per length: resizing a single shared array on every call
 * reallocates its backing store, which costs more than the decoding.
 */
const codesByLength: number[][] = Array.from({ length: SHORT_STRING_LIMIT + 1 }, (_, n) => new Array<number>(n).fill(0));

/**
 * Decodes UTF-8 from `u8[start, start+length)`, rejecting malformed sequences.
 * A leading byte-order mark is kept as U+FEFF: it is part of the value, not a hint.
 */
export function decodeUtf8(u8: Uint8Array, start: number, length: number, field: string): string {
  if (length <= SHORT_STRING_LIMIT) {
    const codes = codesByLength[length];
    let i = 0;
    for (; i < length; i++) {
      const b = u8[start + i];
      if (b >= 0x80) break;
      codes[i] = b;
    }
    if (i === length) return String.fromCharCode.apply(null, codes);
  }
  try {
    return utf8Strict.decode(u8.subarray(start, start + length));
  } catch {
    throw new CqlProtocolError("remote", field, utf8ValidUpTo(u8, start, start + length), "invalid UTF-8");
  }
}

/**
 * Where the first malformed or incomplete UTF-8 sequence in `u8[start, end)` begins (the
 * byte the core's decoder reports too). Only called once decoding has failed.
 */
function utf8ValidUpTo(u8: Uint8Array, start: number, end: number): number {
  let i = start;
  while (i < end) {
    const b = u8[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    // The sequence's length and the range its second byte must fall in (no overlong forms,
    // no surrogates, nothing past U+10FFFF); later bytes are plain continuations.
    let width = 0, low = 0x80, high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) width = 2;
    else if (b >= 0xe0 && b <= 0xef) [width, low, high] = [3, b === 0xe0 ? 0xa0 : 0x80, b === 0xed ? 0x9f : 0xbf];
    else if (b >= 0xf0 && b <= 0xf4) [width, low, high] = [4, b === 0xf0 ? 0x90 : 0x80, b === 0xf4 ? 0x8f : 0xbf];
    if (width === 0 || i + width > end) return i;
    if (u8[i + 1] < low || u8[i + 1] > high) return i;
    for (let k = 2; k < width; k++) if ((u8[i + k] & 0xc0) !== 0x80) return i;
    i += width;
  }
  return end;
}

/** Decodes ASCII (bytes 0..127 only) from `u8[start, start+length)`. */
export function decodeAscii(u8: Uint8Array, start: number, length: number, field: string): string {
  const end = start + length;
  for (let i = start; i < end; i++) {
    if (u8[i] >= 0x80) {
      throw new CqlProtocolError("remote", field, i, `byte 0x${u8[i].toString(16)} is not ASCII`);
    }
  }
  if (length <= SHORT_STRING_LIMIT) {
    const codes = codesByLength[length];
    for (let i = 0; i < length; i++) codes[i] = u8[start + i];
    return String.fromCharCode.apply(null, codes);
  }
  return utf8Strict.decode(u8.subarray(start, end));
}

/** A DataView spanning exactly `u8`, so positions in both agree. */
export function viewOf(u8: Uint8Array): DataView {
  return new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
}

export class Reader {
  readonly u8: Uint8Array;
  readonly view: DataView;
  /** Next byte to read, as an index into `u8`. */
  pos: number;
  /** One past the last readable byte, as an index into `u8`. */
  end: number;

  constructor(u8: Uint8Array, start = 0, end = u8.length) {
    this.u8 = u8;
    this.view = viewOf(u8);
    this.pos = start;
    this.end = end;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  /** Throws unless `n` more bytes are available; returns the position they start at. */
  need(n: number, field: string): number {
    const at = this.pos;
    if (n > this.end - at) {
      throw new CqlProtocolError("remote", field, at, `needs ${n} bytes, ${this.end - at} left`);
    }
    return at;
  }

  error(field: string, reason: string, at = this.pos): CqlProtocolError {
    return new CqlProtocolError("remote", field, at, reason);
  }

  /** Throws if any byte is left: a message or value must be consumed exactly. */
  expectEnd(field: string): void {
    if (this.pos !== this.end) {
      throw this.error(field, `${this.end - this.pos} unexpected trailing bytes`);
    }
  }

  byte(field: string): number {
    const at = this.need(1, field);
    this.pos = at + 1;
    return this.u8[at];
  }

  i16(field: string): number {
    const at = this.need(2, field);
    this.pos = at + 2;
    return this.view.getInt16(at);
  }

  u16(field: string): number {
    const at = this.need(2, field);
    this.pos = at + 2;
    return this.view.getUint16(at);
  }

  i32(field: string): number {
    const at = this.need(4, field);
    this.pos = at + 4;
    return this.view.getInt32(at);
  }

  i64(field: string): bigint {
    const at = this.need(8, field);
    this.pos = at + 8;
    return this.view.getBigInt64(at);
  }

  f32(field: string): number {
    const at = this.need(4, field);
    this.pos = at + 4;
    return this.view.getFloat32(at);
  }

  f64(field: string): number {
    const at = this.need(8, field);
    this.pos = at + 8;
    return this.view.getFloat64(at);
  }

  /** Copies the next `n` bytes out, so the result never aliases the (reused) input buffer. */
  raw(n: number, field: string): Uint8Array {
    const at = this.need(n, field);
    this.pos = at + n;
    return this.u8.slice(at, at + n);
  }

  /** `[string]`: a u16 length and UTF-8 bytes. */
  string(field: string): string {
    const length = this.u16(field);
    const at = this.need(length, field);
    this.pos = at + length;
    return decodeUtf8(this.u8, at, length, field);
  }

  /** `[long string]`: an i32 length and UTF-8 bytes. */
  longString(field: string): string {
    const lengthAt = this.pos;
    const length = this.i32(field);
    if (length < 0) throw this.error(field, `negative length ${length}`, lengthAt);
    const at = this.need(length, field);
    this.pos = at + length;
    return decodeUtf8(this.u8, at, length, field);
  }

  /** `[bytes]`: an i32 length and that many bytes (copied); a negative length is null. */
  bytes(field: string): Uint8Array | null {
    const length = this.i32(field);
    if (length < 0) return null;
    return this.raw(length, field);
  }

  /** `[short bytes]`: a u16 length and that many bytes (copied). */
  shortBytes(field: string): Uint8Array {
    const length = this.u16(field);
    return this.raw(length, field);
  }

  /** `[string list]`: a u16 count of `[string]`. */
  stringList(field: string): string[] {
    const count = this.u16(field);
    const list: string[] = [];
    for (let i = 0; i < count; i++) list.push(this.string(field));
    return list;
  }

  /** `[inet]`: a one-byte address size (4 or 16), the address, and an i32 port. */
  inet(field: string): { address: string; port: number } {
    const sizeAt = this.pos;
    const size = this.byte(field);
    if (size !== 4 && size !== 16) throw this.error(field, `address size ${size} is neither 4 nor 16`, sizeAt);
    const at = this.need(size, field);
    this.pos = at + size;
    const address = formatInetAddress(this.u8, at, size);
    const port = this.i32(field);
    return { address, port };
  }
}

const HEX_PAIRS: string[] = [];
for (let i = 0; i < 256; i++) HEX_PAIRS.push(i.toString(16).padStart(2, "0"));
/** Lowercase two-digit hex for each byte value. */
export const hexPairs: readonly string[] = HEX_PAIRS;

/**
 * Text form of a 4- or 16-byte address. IPv6 follows RFC 5952: lowercase, the longest run
 * of two or more zero groups (the first on a tie) shortened to `::`, and IPv4-mapped
 * addresses written as `::ffff:a.b.c.d`.
 */
export function formatInetAddress(u8: Uint8Array, at: number, size: number): string {
  if (size === 4) return `${u8[at]}.${u8[at + 1]}.${u8[at + 2]}.${u8[at + 3]}`;
  const groups: number[] = new Array(8);
  for (let i = 0; i < 8; i++) groups[i] = (u8[at + 2 * i] << 8) | u8[at + 2 * i + 1];
  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff) {
    return `::ffff:${u8[at + 12]}.${u8[at + 13]}.${u8[at + 14]}.${u8[at + 15]}`;
  }
  let bestStart = -1;
  let bestLength = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  if (bestLength < 2) return groups.map((g) => g.toString(16)).join(":");
  const head = groups.slice(0, bestStart).map((g) => g.toString(16)).join(":");
  const tail = groups.slice(bestStart + bestLength).map((g) => g.toString(16)).join(":");
  return `${head}::${tail}`;
}
