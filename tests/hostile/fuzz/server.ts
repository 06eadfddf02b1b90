/**
 * The fuzzer's side of the fake node: turns one real reply into the bytes a hostile server
 * sends (a lie at one layer: body, envelope, v5 frame or delivery) and writes them onto the
 * request's connection itself, so every byte and every write boundary is the fuzzer's.
 */
import type { FakeNode, RecordedRequest, ReplyContext } from "../../fakenode/mod.ts";
import { Op } from "../../fakenode/mod.ts";
import type { FakeConnection } from "../../fakenode/connection.ts";
import { describeDelivery, envelopeBytes, frameBytes, mutateBody, pickDelivery, type Delivery } from "./mutate.ts";
import type { Rng } from "./rng.ts";

export type Layer = "rows" | "body" | "envelope" | "frame" | "delivery" | "none";

export interface RealReply {
  opcode: number;
  body: Uint8Array;
  /** The structural lie for this kind of body (rows results), when there is one. */
  lie?: (rng: Rng) => { body: Uint8Array; what: string };
}

/** Side effects of the handshake replies the node would have done itself. */
function handshakeEffects(conn: FakeConnection, req: RecordedRequest): void {
  if (req.opcode === Op.STARTUP) {
    conn.version = req.version;
    const c = req.startup?.COMPRESSION;
    conn.compression = c === "lz4" || c === "snappy" ? c : "none";
  }
  if (req.opcode === Op.REGISTER) conn.registered = true;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function deliver(conn: FakeConnection, bytes: Uint8Array, d: Delivery): Promise<void> {
  switch (d.kind) {
    case "whole":
      return conn.write(bytes);
    case "twice":
      conn.write(bytes);
      return conn.write(bytes);
    case "bytewise":
      for (let i = 0; i < bytes.length; i++) {
        conn.write(bytes.subarray(i, i + 1));
        if (i % 8 === 7) await sleep(0);
      }
      return;
    case "splits": {
      let at = 0;
      for (const cut of [...d.cuts, bytes.length]) {
        if (cut <= at) continue;
        conn.write(bytes.subarray(at, cut));
        at = cut;
        await sleep(1);
      }
      return;
    }
    case "reset":
      conn.write(bytes.subarray(0, d.at));
      await sleep(2);
      return conn.reset();
    case "close":
      conn.write(bytes.subarray(0, d.at));
      await sleep(2);
      return conn.close();
    case "stall":
      return conn.write(bytes.subarray(0, d.at));
  }
}

/**
 * Sends `real` to `req` with a lie at `layer` (none: the real bytes, still with a random
 * write split). Returns what was done, in words.
 */
export async function sendHostile(rng: Rng, node: FakeNode, req: RecordedRequest, ctx: ReplyContext, real: RealReply, layer: Layer): Promise<string> {
  const conn = node.connections.find((c) => c.id === ctx.connection);
  if (!conn) return "no connection";
  handshakeEffects(conn, req);
  let body = real.body;
  const whats: string[] = [`${req.op} on stream ${req.stream}`];
  if (layer === "rows" && real.lie) {
    const l = real.lie(rng);
    body = l.body;
    whats.push(l.what);
  } else if (layer === "body" || layer === "rows") {
    const m = mutateBody(rng, body);
    body = m.body;
    whats.push(m.what);
  }
  const compression = conn.version === 0 ? "none" : conn.compression;
  const env = envelopeBytes(rng, { version: req.version, stream: req.stream, opcode: real.opcode, body, compression }, layer === "envelope");
  whats.push(env.what);
  let bytes = env.bytes;
  if (conn.framed) {
    const f = frameBytes(rng, bytes, conn.compression === "lz4", layer === "frame");
    bytes = f.bytes;
    whats.push(f.what);
  }
  const d = pickDelivery(rng, bytes.length, layer === "delivery");
  whats.push(describeDelivery(d));
  await deliver(conn, bytes, d);
  // v5 frames begin after the READY or AUTHENTICATE that answers STARTUP.
  if (req.opcode === Op.STARTUP && req.version >= 5) conn.framed = true;
  return whats.join("; ");
}

/** Writes envelope bytes the client never asked for onto a connection, in its framing. */
export function sendUnsolicited(conn: FakeConnection, envelope: Uint8Array): void {
  conn.sendEnvelope(envelope);
}
