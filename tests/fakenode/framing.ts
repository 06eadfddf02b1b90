/**
 * Envelopes (the 9-byte header + body of every version) and the v5 outer frames that carry
 * them after the handshake: 6-byte header (8 with LZ4) with CRC24, payload, CRC32 trailer.
 */
import { crc24, crc32 } from "./crc.ts";
import { lz4BlockDecode, lz4BlockEncode, snappyDecode, snappyEncode } from "./compress.ts";
import { concat } from "./bytes.ts";

export const HEADER_BYTES = 9;
export const FLAG_COMPRESSION = 0x01;
export const FLAG_TRACING = 0x02;
export const FLAG_CUSTOM_PAYLOAD = 0x04;
export const FLAG_WARNING = 0x08;

export type Compression = "none" | "lz4" | "snappy";

export interface Envelope {
  versionByte: number;
  flags: number;
  stream: number;
  opcode: number;
  body: Uint8Array;
}

export function encodeEnvelope(e: Envelope): Uint8Array {
  const out = new Uint8Array(HEADER_BYTES + e.body.length);
  const view = new DataView(out.buffer);
  out[0] = e.versionByte;
  out[1] = e.flags;
  view.setInt16(2, e.stream);
  out[4] = e.opcode;
  view.setUint32(5, e.body.length);
  out.set(e.body, HEADER_BYTES);
  return out;
}

/** Takes one whole envelope off the front of `buf`, if there is one. */
export function takeEnvelope(buf: Uint8Array): { envelope?: Envelope; rest: Uint8Array } {
  if (buf.length < HEADER_BYTES) return { rest: buf };
  const view = new DataView(buf.buffer, buf.byteOffset, HEADER_BYTES);
  const length = view.getUint32(5);
  if (buf.length - HEADER_BYTES < length) return { rest: buf };
  const envelope = {
    versionByte: buf[0],
    flags: buf[1],
    stream: view.getInt16(2),
    opcode: buf[4],
    body: buf.slice(HEADER_BYTES, HEADER_BYTES + length),
  };
  return { envelope, rest: buf.subarray(HEADER_BYTES + length) };
}

/** v4 body compression: LZ4 with a 4-byte big-endian length first, or raw Snappy. */
export function decompressV4Body(c: Compression, body: Uint8Array): Uint8Array {
  if (c === "snappy") return snappyDecode(body);
  if (c === "lz4") {
    const n = new DataView(body.buffer, body.byteOffset, body.byteLength).getUint32(0);
    return lz4BlockDecode(body.subarray(4), n);
  }
  throw new Error("fake node: compressed envelope without negotiated compression");
}

export function compressV4Body(c: Compression, body: Uint8Array): Uint8Array {
  if (c === "snappy") return snappyEncode(body);
  const head = new Uint8Array(4);
  new DataView(head.buffer).setUint32(0, body.length);
  return concat([head, lz4BlockEncode(body)]);
}

// ---- v5 outer frames --------------------------------------------------------------------

/** Payloads are cut well below the 128 KiB limit so a literal-only LZ4 block fits too. */
const SEGMENT_PAYLOAD = 65536;

function le(value: number, bytes: number): number[] {
  const out: number[] = [];
  let rest = value;
  for (let i = 0; i < bytes; i++) {
    out.push(rest % 256);
    rest = Math.floor(rest / 256);
  }
  return out;
}

function u32le(n: number): number[] {
  return le(n >>> 0, 4);
}

/** One v5 frame around `payload`, with valid CRCs. */
export function encodeSegment(payload: Uint8Array, selfContained: boolean, lz4: boolean): Uint8Array {
  if (!lz4) {
    const word = payload.length + (selfContained ? 0x20000 : 0);
    const head = [...le(word, 3), ...le(crc24(word, 3), 3)];
    return concat([Uint8Array.from(head), payload, Uint8Array.from(u32le(crc32(payload)))]);
  }
  const compressed = lz4BlockEncode(payload);
  const word = compressed.length + payload.length * 2 ** 17 + (selfContained ? 2 ** 34 : 0);
  const head = [...le(word, 5), ...le(crc24(word, 5), 3)];
  return concat([Uint8Array.from(head), compressed, Uint8Array.from(u32le(crc32(compressed)))]);
}

/** Frames one envelope's bytes: one self-contained frame, or a run of partial ones. */
export function frameEnvelopeBytes(bytes: Uint8Array, lz4: boolean): Uint8Array {
  if (bytes.length <= SEGMENT_PAYLOAD) return encodeSegment(bytes, true, lz4);
  const parts: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += SEGMENT_PAYLOAD) {
    parts.push(encodeSegment(bytes.subarray(at, at + SEGMENT_PAYLOAD), false, lz4));
  }
  return concat(parts);
}

/** Reads v5 frames off a byte stream and returns their payloads (decompressed), in order. */
export function takeSegments(buf: Uint8Array, lz4: boolean): { payloads: Uint8Array[]; rest: Uint8Array } {
  const payloads: Uint8Array[] = [];
  const headBytes = lz4 ? 8 : 6;
  const fieldBytes = lz4 ? 5 : 3;
  let at = 0;
  while (buf.length - at >= headBytes) {
    let word = 0;
    for (let i = 0; i < fieldBytes; i++) word += buf[at + i] * 2 ** (8 * i);
    const crc = buf[at + fieldBytes] | (buf[at + fieldBytes + 1] << 8) | (buf[at + fieldBytes + 2] << 16);
    if (crc !== crc24(word, fieldBytes)) throw new Error("fake node: client frame header CRC24 mismatch");
    const length = word % 2 ** 17;
    if (buf.length - at < headBytes + length + 4) break;
    const payload = buf.subarray(at + headBytes, at + headBytes + length);
    const t = buf.subarray(at + headBytes + length, at + headBytes + length + 4);
    if (((t[0] | (t[1] << 8) | (t[2] << 16) | (t[3] << 24)) >>> 0) !== crc32(payload)) {
      throw new Error("fake node: client frame payload CRC32 mismatch");
    }
    const plain = lz4 ? Math.floor(word / 2 ** 17) % 2 ** 17 : 0;
    payloads.push(lz4 && plain > 0 ? lz4BlockDecode(payload, plain) : payload.slice());
    at += headBytes + length + 4;
  }
  return { payloads, rest: buf.slice(at) };
}
