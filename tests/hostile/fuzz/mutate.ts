/**
 * The fuzzer's mutation classes, each a pure function of (rng, real bytes): the body of a
 * real reply, its envelope header, its v5 frame, and how its bytes reach the socket. Each
 * returns what it did in words, so a failing seed says which lie broke the client.
 */
import { compressV4Body, encodeEnvelope, encodeSegment, FLAG_COMPRESSION, FLAG_CUSTOM_PAYLOAD, FLAG_TRACING, FLAG_WARNING, frameEnvelopeBytes } from "../../fakenode/framing.ts";
import { crc24 } from "../../fakenode/mod.ts";
import { Op } from "../../fakenode/mod.ts";
import type { Rng } from "./rng.ts";

export type Compression = "none" | "lz4" | "snappy";

const INTERESTING_INTS = [0, 1, -1, -2, 0x7fffffff, -0x80000000, 0xffff, 0x10000, 0x7fff, 0x8000, 255, 256];

function setInt(b: Uint8Array, at: number, n: number): void {
  new DataView(b.buffer, b.byteOffset, b.byteLength).setInt32(at, n);
}

/** Byte-level damage to a body: flips, interesting ints, truncation, garbage. */
export function mutateBody(rng: Rng, body: Uint8Array): { body: Uint8Array; what: string } {
  const b = body.slice();
  switch (rng.int(6)) {
    case 0: {
      const n = rng.range(1, 8);
      for (let i = 0; i < n && b.length; i++) b[rng.int(b.length)] ^= 1 << rng.int(8);
      return { body: b, what: `${n} bit flips in the body` };
    }
    case 1: {
      if (b.length < 4) break;
      const at = rng.int(b.length - 3);
      const v = rng.pick(INTERESTING_INTS);
      setInt(b, at, v);
      return { body: b, what: `int ${v} written at body byte ${at}` };
    }
    case 2: {
      const at = rng.int(b.length + 1);
      return { body: b.subarray(0, at), what: `body truncated to ${at} of ${b.length} bytes` };
    }
    case 3: {
      const extra = rng.bytes(rng.range(1, 64));
      const out = new Uint8Array(b.length + extra.length);
      out.set(b);
      out.set(extra, b.length);
      return { body: out, what: `${extra.length} garbage bytes appended to the body` };
    }
    case 4: {
      const n = rng.range(1, 16);
      for (let i = 0; i < n && b.length; i++) b[rng.int(b.length)] = rng.pick([0x00, 0xff, 0x7f, 0x80]);
      return { body: b, what: `${n} bytes set to 00/ff/7f/80` };
    }
    default:
      break;
  }
  const n = rng.int(200);
  return { body: rng.bytes(n), what: `body replaced by ${n} random bytes` };
}

export interface EnvelopeSpec {
  version: number;
  stream: number;
  opcode: number;
  body: Uint8Array;
  compression: Compression;
}

/**
 * The envelope's bytes, real or with a lie in its header: the length field, the stream id,
 * the flags (compression on an uncompressed body, tracing, payload, warnings), the version
 * byte, the opcode (SUPPORTED, AUTHENTICATE, ERROR, EVENT... at an odd time).
 */
export function envelopeBytes(rng: Rng, e: EnvelopeSpec, lie: boolean): { bytes: Uint8Array; what: string } {
  let flags = 0;
  let body = e.body;
  let what = "a real envelope";
  // v4 bodies go compressed when compression was negotiated, half the time (the flag says).
  if (e.version === 4 && e.compression !== "none" && rng.chance(0.5)) {
    body = compressV4Body(e.compression, body);
    flags |= FLAG_COMPRESSION;
    what = `a real ${e.compression}-compressed envelope`;
  }
  const env = { versionByte: 0x80 | e.version, flags, stream: e.stream, opcode: e.opcode, body };
  if (!lie) return { bytes: encodeEnvelope(env), what };
  switch (rng.int(6)) {
    case 0: {
      const bytes = encodeEnvelope(env);
      const n = rng.pick([0x7fffffff, -1, -0x80000000, 0, 1, body.length - 1, body.length + 1, body.length + 7, 256 * 1024 * 1024]);
      setInt(bytes, 5, n);
      return { bytes, what: `length field ${n} for a ${body.length}-byte body` };
    }
    case 1: {
      const stream = rng.pick([e.stream + 1, e.stream + 100, -1, -2, 0x7fff, -0x8000, 0]);
      return { bytes: encodeEnvelope({ ...env, stream }), what: `stream ${stream} instead of ${e.stream}` };
    }
    case 2: {
      const f = rng.pick([FLAG_COMPRESSION, FLAG_TRACING, FLAG_CUSTOM_PAYLOAD, FLAG_WARNING, 0x10, 0xff, FLAG_TRACING | FLAG_WARNING]);
      return { bytes: encodeEnvelope({ ...env, flags: env.flags | f }), what: `flags 0x${f.toString(16)} set on a body without them` };
    }
    case 3: {
      const v = rng.pick([0x00 | e.version, 0x80 | (e.version === 4 ? 5 : 4), 0x83, 0x86, 0xff, 0x81]);
      return { bytes: encodeEnvelope({ ...env, versionByte: v }), what: `version byte 0x${v.toString(16)}` };
    }
    case 4: {
      const op = rng.pick([Op.SUPPORTED, Op.AUTHENTICATE, Op.ERROR, Op.EVENT, Op.READY, Op.AUTH_CHALLENGE, Op.AUTH_SUCCESS, Op.QUERY, 0x7e]);
      return { bytes: encodeEnvelope({ ...env, opcode: op }), what: `opcode 0x${op.toString(16)} with the body of 0x${e.opcode.toString(16)}` };
    }
    default: {
      const bytes = encodeEnvelope(env);
      const cut = rng.int(Math.min(bytes.length, 9));
      return { bytes: bytes.subarray(0, cut), what: `only ${cut} bytes of the header` };
    }
  }
}

/** v5: the envelope in frames, real or lying (CRCs, lengths, the self-contained bit). */
export function frameBytes(rng: Rng, envelope: Uint8Array, lz4: boolean, lie: boolean): { bytes: Uint8Array; what: string } {
  const real = frameEnvelopeBytes(envelope, lz4);
  if (!lie) return { bytes: real, what: "real frames" };
  const head = lz4 ? 8 : 6;
  const b = real.slice();
  switch (rng.int(5)) {
    case 0:
      b[rng.int(head)] ^= 1 << rng.int(8);
      return { bytes: b, what: "a bit flipped in the frame header (CRC24 fails)" };
    case 1:
      b[head + rng.int(Math.max(1, b.length - head))] ^= 1 << rng.int(8);
      return { bytes: b, what: "a bit flipped in the payload or its CRC32" };
    case 2: {
      // A header whose length lies, with a valid CRC24.
      const bytesOfWord = lz4 ? 5 : 3;
      let word = 0;
      for (let i = bytesOfWord - 1; i >= 0; i--) word = word * 256 + b[i];
      const delta = rng.pick([1, -1, 1000, 0x1ffff]);
      const len = Math.max(0, Math.min(0x1ffff, (word % 0x20000) + delta));
      word = word - (word % 0x20000) + len;
      for (let i = 0, w = word; i < bytesOfWord; i++, w = Math.floor(w / 256)) b[i] = w % 256;
      const c = crc24(word, bytesOfWord);
      b.set([c & 0xff, (c >> 8) & 0xff, c >> 16], bytesOfWord);
      return { bytes: b, what: `frame payload length ${len} (valid CRC24) for ${envelope.length} bytes` };
    }
    case 3:
      return { bytes: encodeSegment(envelope.subarray(0, rng.int(envelope.length)), rng.chance(0.5), lz4), what: "a frame with part of the envelope, then nothing" };
    default:
      return { bytes: encodeSegment(envelope, false, lz4), what: "the whole envelope in a frame not marked self-contained" };
  }
}

export type Delivery =
  | { kind: "whole" }
  | { kind: "bytewise" }
  | { kind: "splits"; cuts: number[] }
  | { kind: "twice" }
  | { kind: "reset"; at: number }
  | { kind: "close"; at: number }
  | { kind: "stall"; at: number };

/** How the bytes reach the socket: whole, a byte at a time, split, twice, or cut by RST/FIN. */
export function pickDelivery(rng: Rng, length: number, lie: boolean): Delivery {
  const r = rng.int(lie ? 7 : 3);
  if (r === 0) return { kind: "whole" };
  if (r === 1) return length <= 4096 ? { kind: "bytewise" } : { kind: "splits", cuts: [1, 2, 9, length >> 1, length - 1] };
  if (r === 2) return { kind: "splits", cuts: Array.from({ length: rng.range(1, 6) }, () => rng.int(length)).sort((a, b) => a - b) };
  if (r === 3) return { kind: "twice" };
  if (r === 4) return { kind: "reset", at: rng.int(length) };
  if (r === 5) return { kind: "close", at: rng.int(length) };
  return { kind: "stall", at: rng.int(length) };
}

export function describeDelivery(d: Delivery): string {
  return "at" in d ? `${d.kind} after ${d.at} bytes` : d.kind === "splits" ? `split at ${d.cuts.join(",")}` : d.kind;
}
