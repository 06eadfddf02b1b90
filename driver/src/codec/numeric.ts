/**
 * Variable-length integers: CQL `varint` (big-endian two's complement of any length) and
 * the protocol's `[vint]` (v5 spec section 3). Both run in time linear in their length.
 */
import { CqlProtocolError } from "./errors.ts";
import { hexPairs } from "./reader.ts";
import type { Writer } from "./writer.ts";

/** Decodes `length >= 1` bytes of big-endian two's complement. */
export function decodeVarint(u8: Uint8Array, start: number, length: number): bigint {
  if (length <= 6) {
    // 48 bits fit a double exactly: stay off the BigInt parser for the common small case.
    let value = u8[start] >= 0x80 ? u8[start] - 256 : u8[start];
    for (let i = 1; i < length; i++) value = value * 256 + u8[start + i];
    return BigInt(value);
  }
  // Hex has a power-of-two radix, so BigInt parses it in linear time.
  const chunks: string[] = new Array(length);
  for (let i = 0; i < length; i++) chunks[i] = hexPairs[u8[start + i]];
  const magnitude = BigInt("0x" + chunks.join(""));
  return u8[start] >= 0x80 ? magnitude - (1n << BigInt(length * 8)) : magnitude;
}

/** Writes the shortest two's complement encoding of `value`; returns its byte length. */
export function encodeVarint(w: Writer, value: bigint): number {
  if (value >= -0x8000_0000n && value < 0x8000_0000n) {
    const n = Number(value);
    const size = n >= -0x80 && n < 0x80 ? 1 : n >= -0x8000 && n < 0x8000 ? 2 : n >= -0x80_0000 && n < 0x80_0000 ? 3 : 4;
    const at = w.reserve(size);
    for (let i = size - 1; i >= 0; i--) w.buf[at + (size - 1 - i)] = (n >> (8 * i)) & 0xff;
    return size;
  }
  // A negative v is stored as the bitwise complement of -v-1, which is non-negative.
  const negative = value < 0n;
  let hex = (negative ? -value - 1n : value).toString(16);
  if (hex.length % 2 === 1) hex = "0" + hex;
  if (parseInt(hex[0], 16) >= 8) hex = "00" + hex;
  const size = hex.length / 2;
  const at = w.reserve(size);
  const buf = w.buf;
  const flip = negative ? 0xff : 0;
  for (let i = 0; i < size; i++) buf[at + i] = parseInt(hex.substr(2 * i, 2), 16) ^ flip;
  return size;
}

/** Position just past the last vint read by `readUnsignedVint*`, to avoid a result object. */
export let vintEnd = 0;

/** Extra bytes that follow a vint's first byte: its count of leading one bits. */
function vintExtraBytes(first: number): number {
  return Math.min(8, Math.clz32(~first << 24));
}

/**
 * Reads an unsigned vint as a number, for lengths. Values past 2^53 lose precision, but
 * they exceed every buffer anyway, so the caller's bounds check still rejects them.
 */
export function readUnsignedVintNumber(u8: Uint8Array, pos: number, end: number, field: string): number {
  if (pos >= end) throw new CqlProtocolError("remote", field, pos, "needs 1 byte for a vint, 0 left");
  const first = u8[pos];
  const extra = vintExtraBytes(first);
  if (pos + 1 + extra > end) throw new CqlProtocolError("remote", field, pos + 1, `vint needs ${1 + extra} bytes, ${end - pos} left`);
  let value = extra === 8 ? 0 : first & (0xff >> extra);
  for (let i = 1; i <= extra; i++) value = value * 256 + u8[pos + i];
  vintEnd = pos + 1 + extra;
  return value;
}

/** Reads an unsigned vint exactly (up to 64 bits). */
export function readUnsignedVintBigInt(u8: Uint8Array, pos: number, end: number, field: string): bigint {
  if (pos >= end) throw new CqlProtocolError("remote", field, pos, "needs 1 byte for a vint, 0 left");
  const first = u8[pos];
  const extra = vintExtraBytes(first);
  if (pos + 1 + extra > end) throw new CqlProtocolError("remote", field, pos + 1, `vint needs ${1 + extra} bytes, ${end - pos} left`);
  let value = BigInt(extra === 8 ? 0 : first & (0xff >> extra));
  for (let i = 1; i <= extra; i++) value = (value << 8n) | BigInt(u8[pos + i]);
  vintEnd = pos + 1 + extra;
  return value;
}

/** Reads a signed (zigzag) vint as a 64-bit signed bigint. */
export function readVint(u8: Uint8Array, pos: number, end: number, field: string): bigint {
  const n = readUnsignedVintBigInt(u8, pos, end, field);
  return (n >> 1n) ^ -(n & 1n);
}

/** Bytes an unsigned vint of `value` (< 2^64) takes. */
function unsignedVintSize(value: bigint): number {
  let size = 1;
  // Each extra byte adds 7 usable bits (8 extra bytes hold all 64).
  while (size < 9 && value >= 1n << BigInt(7 * size)) size++;
  return size;
}

/** Writes an unsigned vint (0 <= value < 2^64); returns its byte length. */
export function writeUnsignedVint(w: Writer, value: bigint): number {
  const size = unsignedVintSize(value);
  const at = w.reserve(size);
  const buf = w.buf;
  let rest = value;
  for (let i = size - 1; i >= 1; i--) {
    buf[at + i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  const extra = size - 1;
  // The first byte carries `extra` leading ones, then the value's top bits.
  buf[at] = extra === 8 ? 0xff : ((0xff << (8 - extra)) & 0xff) | Number(rest);
  return size;
}

/** Writes a small unsigned vint (a length) without BigInt. */
export function writeUnsignedVintNumber(w: Writer, value: number): number {
  if (value < 0x80) {
    w.u8(value);
    return 1;
  }
  return writeUnsignedVint(w, BigInt(value));
}

/** Writes a signed vint (zigzag) of a 64-bit signed value. */
export function writeVint(w: Writer, value: bigint): number {
  const zigzag = value >= 0n ? value << 1n : ((-value) << 1n) - 1n;
  return writeUnsignedVint(w, zigzag);
}

/** The size in bytes of an unsigned vint of `value`. */
export function unsignedVintSizeOfNumber(value: number): number {
  return value < 0x80 ? 1 : unsignedVintSize(BigInt(value));
}
