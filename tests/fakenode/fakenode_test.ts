/**
 * The fake node's own codec, checked against bytes it did not make: the v5 frame vectors
 * (generated with the Python driver's segment code) and hand-written request bodies.
 */
import { assertExact as assertEquals } from "../exact.mjs";
import { crc24, crc32 } from "./crc.ts";
import { ByteWriter, fromHex, toHex } from "./bytes.ts";
import { lz4BlockDecode, lz4BlockEncode, snappyDecode, snappyEncode } from "./compress.ts";
import { encodeSegment, takeSegments } from "./framing.ts";
import { decodeRequest } from "./requests.ts";
import { Op } from "./opcodes.ts";

const vectors: Array<{ name: string; hex: string; expect?: { selfContained?: boolean; payloadHex?: string } }> = JSON.parse(
  Deno.readTextFileSync(new URL("../vectors/v5_frames.json", import.meta.url)),
);

Deno.test("CRC24 and CRC32 agree with every valid uncompressed v5 frame vector", () => {
  const plain = vectors.filter((v) => v.expect?.payloadHex !== undefined && v.name.startsWith("uncompressed"));
  assertEquals(plain.length > 0, true);
  for (const v of plain) {
    const b = fromHex(v.hex);
    const word = b[0] | (b[1] << 8) | (b[2] << 16);
    assertEquals(crc24(word, 3), b[3] | (b[4] << 8) | (b[5] << 16), v.name);
    const payload = b.subarray(6, 6 + (word & 0x1ffff));
    const t = b.subarray(6 + payload.length);
    assertEquals(crc32(payload), (t[0] | (t[1] << 8) | (t[2] << 16) | (t[3] << 24)) >>> 0, v.name);
    assertEquals(toHex(encodeSegment(payload, v.expect?.selfContained ?? true, false)), v.hex, v.name);
  }
});

Deno.test("LZ4 v5 frames it writes read back, and so do the vectors'", () => {
  const payload = new TextEncoder().encode("x".repeat(300));
  const { payloads, rest } = takeSegments(encodeSegment(payload, true, true), true);
  assertEquals([payloads.map(toHex), rest.length], [[toHex(payload)], 0]);
  for (const v of vectors.filter((v) => v.name.startsWith("lz4") && v.expect?.payloadHex !== undefined)) {
    assertEquals(takeSegments(fromHex(v.hex), true).payloads.map(toHex).join(""), v.expect?.payloadHex, v.name);
  }
});

Deno.test("LZ4 and Snappy decode back-references, and literal-only encodings round-trip", () => {
  // "abcabcabca": 3 literals then a match of 7 at offset 3.
  assertEquals(new TextDecoder().decode(lz4BlockDecode(Uint8Array.of(0x33, 0x61, 0x62, 0x63, 0x03, 0x00), 10)), "abcabcabca");
  // Snappy: length 10, literal "abc", copy-1 of length 7 at offset 3.
  assertEquals(new TextDecoder().decode(snappyDecode(Uint8Array.of(10, 0x08, 0x61, 0x62, 0x63, 0x0d, 0x03))), "abcabcabca");
  const big = Uint8Array.from({ length: 70000 }, (_, i) => i % 251);
  assertEquals(toHex(lz4BlockDecode(lz4BlockEncode(big), big.length)), toHex(big));
  assertEquals(toHex(snappyDecode(snappyEncode(big))), toHex(big));
});

Deno.test("a v5 QUERY body decodes every parameter the client can set", () => {
  const flags = 0x01 | 0x02 | 0x04 | 0x08 | 0x10 | 0x20 | 0x80 | 0x100;
  const body = new ByteWriter().longString("SELECT 1").short(0x0006).int(flags)
    .short(2).bytes(Uint8Array.of(1)).int(-2)
    .int(100).bytes(Uint8Array.of(0xab)).short(0x0009).long(-5n).string("ks1").int(42).done();
  const req = decodeRequest({ seq: 1, connection: 1, version: 5, frameFlags: 0, stream: 3, opcode: Op.QUERY, body }, () => undefined);
  assertEquals(req.decodeError, undefined);
  assertEquals(req.params, {
    consistency: 6,
    flags,
    values: [Uint8Array.of(1), "unset"],
    skipMetadata: true,
    pageSize: 100,
    pagingState: Uint8Array.of(0xab),
    serialConsistency: 9,
    timestamp: -5n,
    keyspace: "ks1",
    nowInSeconds: 42,
  });
});
