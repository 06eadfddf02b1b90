/**
 * Hostile framing: envelope headers, v4 compressed bodies (LZ4 and Snappy bombs), v5 frames
 * (CRCs, LZ4 payloads, an envelope that declares 2 GiB across frames), and events.
 */
import { ByteWriter, encodeEnvelope, encodeSegment, FLAG_COMPRESSION, Op, type RecordedRequest, type Reply, startCluster, stopAll } from "../../fakenode/mod.ts";
import { crc24, crc32 } from "../../fakenode/mod.ts";
import type { Bundle, HostileCase } from "../harness.ts";
import { assertRemoteProtocolError, clientOn, connectionClosedBy, eventually, failureOn, lastUserConnection, queryServedBy } from "./common.ts";

type Compression = "none" | "lz4" | "snappy";

/**
 * `bad` answers the user's query with `reply`; that query fails with a protocol error
 * naming `field`, the client closes that connection, and the session goes on.
 */
function frameCase(name: string, version: 4 | 5, compression: Compression, reply: (req: RecordedRequest) => Reply, field: string | RegExp): HostileCase {
  return {
    name: `v${version}${compression === "none" ? "" : ` ${compression}`}: ${name}`,
    async run(bundle: Bundle) {
      const [bad, good] = await startCluster(2);
      bad.on({ query: /FROM ks\.t$/ }, reply);
      const { client } = clientOn(bundle, [good], { protocolVersion: version, compression });
      try {
        await client.connect();
        const e = await failureOn(client, bad, () => client.execute("SELECT a FROM ks.t"));
        assertRemoteProtocolError(bundle, e, field);
        await connectionClosedBy(bad, lastUserConnection(bad));
        await queryServedBy(client, good);
      } finally {
        await client.shutdown();
        await stopAll([bad, good]);
      }
    },
  };
}

const hex = (h: string) => Uint8Array.from(h.replace(/\s+/g, "").match(/../g)!, (x) => parseInt(x, 16));

/** A RESULT envelope on the request's stream with this (already compressed) body. */
const compressedResult = (body: Uint8Array) => (req: RecordedRequest): Reply => ({ body, flags: FLAG_COMPRESSION, stream: req.stream });

/** The first bytes of an envelope that declares a body of `length`, in a frame of its own. */
function envelopeHead(req: RecordedRequest, length: number): Uint8Array {
  return new ByteWriter().byte(0x80 | req.version).byte(0).short(req.stream).byte(Op.RESULT).int(length).int(1).done();
}

/** A v5 LZ4 frame whose header (valid CRC24) declares `plain` bytes for `block`. */
function lz4Frame(block: Uint8Array, plain: number): Uint8Array {
  const word = block.length + plain * 2 ** 17 + 2 ** 34;
  const head: number[] = [];
  for (let i = 0, w = word; i < 5; i++, w = Math.floor(w / 256)) head.push(w % 256);
  const c = crc24(word, 5);
  head.push(c & 0xff, (c >> 8) & 0xff, c >> 16);
  const t = crc32(block);
  return Uint8Array.from([...head, ...block, t & 0xff, (t >>> 8) & 0xff, (t >>> 16) & 0xff, t >>> 24]);
}

export const FRAME_CASES: HostileCase[] = [
  frameCase("an envelope declares a 2 GiB body", 4, "none", (req) => ({ raw: envelopeHead(req, 0x7fffffff) }), "frame header length"),
  frameCase("a request frame (no response bit) comes back", 5, "none", (req) => ({ envelope: encodeEnvelope({ versionByte: req.version, flags: 0, stream: req.stream, opcode: Op.RESULT, body: hex("00000001") }) }), "frame header version"),
  frameCase("an unknown opcode", 4, "none", (req) => ({ body: hex("00000001"), opcode: 0x7e, stream: req.stream }), "frame header opcode"),
  // Issue #12 defect 3: 5 bytes that declare 256 MiB.
  frameCase("LZ4 body 10 00 00 00 00 declares 256 MiB", 4, "lz4", compressedResult(hex("10 00 00 00 00")), "lz4 uncompressed length"),
  frameCase("Snappy body declares 4 GiB", 4, "snappy", compressedResult(hex("ff ff ff ff 0f 00 00")), "snappy uncompressed length"),
  frameCase("Snappy body declares 200 MiB for 6 bytes", 4, "snappy", compressedResult(hex("80 80 80 64 00 61")), "snappy uncompressed length"),
  frameCase("a frame header fails its CRC24", 5, "none", () => ({ raw: hex("090002 000000") }), "v5 frame header crc24"),
  frameCase("a frame payload fails its CRC32", 5, "none", (req) => {
    const frame = encodeSegment(encodeEnvelope({ versionByte: 0x85, flags: 0, stream: req.stream, opcode: Op.RESULT, body: hex("00000001") }), true, false);
    frame[frame.length - 1] ^= 0xff;
    return { raw: frame };
  }, "v5 frame payload crc32"),
  frameCase("an LZ4 frame of garbage with valid CRCs", 5, "lz4", () => ({ raw: lz4Frame(hex("ff".repeat(24)), 1000) }), "v5 frame compressed payload"),
  frameCase("an envelope declares 2 GiB across frames", 5, "none", (req) => ({ raw: encodeSegment(envelopeHead(req, 0x7fffffff), false, false) }), "envelope length"),
  eventCase("a SCHEMA_CHANGE type string declares 64 KiB and carries 5 bytes", hex("ffff 4e4f4e4f4e")),
  eventCase("a STATUS_CHANGE address declares 255 bytes and carries 3", new ByteWriter().string("STATUS_CHANGE").string("UP").byte(0xff).byte(1).byte(2).byte(3).done()),
  eventCase("a TOPOLOGY_CHANGE address has no port", new ByteWriter().string("TOPOLOGY_CHANGE").string("NEW_NODE").inet4("10.0.0.9").done()),
  eventCase(
    "a SCHEMA_CHANGE for a function declares 65535 argument types and carries none",
    new ByteWriter().string("SCHEMA_CHANGE").string("CREATED").string("FUNCTION").string("ks").string("f").short(0xffff).done(),
  ),
];

/**
 * The control node pushes `body` as an EVENT once the client registered: the client closes
 * that connection and the session goes on (through the other node).
 */
function eventCase(name: string, body: Uint8Array): HostileCase {
  return {
    name: `v5 EVENT: ${name}`,
    async run(bundle) {
      const [bad, good] = await startCluster(2);
      let eventConnection = 0;
      bad.on({ opcode: Op.REGISTER }, (_req, ctx) => {
        eventConnection = ctx.connection;
        setTimeout(() => bad.pushEvent(body, ctx.connection), 20);
        return undefined;
      });
      const { client } = clientOn(bundle, [bad]);
      try {
        await client.connect();
        await eventually(() => eventConnection > 0, "the control connection registers for events");
        await connectionClosedBy(bad, eventConnection);
        await queryServedBy(client, good);
      } finally {
        await client.shutdown();
        await stopAll([bad, good]);
      }
    },
  };
}
