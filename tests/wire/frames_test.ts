/**
 * The ERROR and EVENT frame vectors (tests/vectors/frames.json, made with the python driver)
 * through the whole driver: a fake node answers a query with the vector's exact bytes (its
 * stream id patched to the request's), or pushes the EVENT, and the driver must raise or emit
 * exactly the decoded fields the vector names. tests/ts/frames_test.ts covers RESULT bodies,
 * core/tests/frames.rs the core's framing (whole, byte by byte, before the next frame).
 */
import { assertExact } from "../exact.mjs";
import { ResponseError } from "../../dist/deno.js";
import { type AnyClient, withNode } from "./helpers.ts";
import type { FakeNode } from "../fakenode/mod.ts";

interface FrameVector {
  name: string;
  protocol: 4 | 5;
  opcode: string;
  hex: string;
  expect: Record<string, unknown>;
}

const HEADER_LEN = 9;
const hexToBytes = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));

const vectors: FrameVector[] = JSON.parse(await Deno.readTextFile(new URL("../vectors/frames.json", import.meta.url)));
const errors = vectors.filter((v) => v.opcode === "ERROR");
const events = vectors.filter((v) => v.opcode === "EVENT");
if (errors.length < 40 || events.length < 18) throw new Error(`frames.json: ${errors.length} ERROR, ${events.length} EVENT vectors`);

/** The fields the core decoded into the error, as the vector names them. */
function errorFields(e: Record<string, unknown>, expect: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { code: e.code, name: e.codeName, message: e.serverMessage };
  for (const key of Object.keys(expect)) if (!(key in out)) out[key] = e[key];
  return out;
}

for (const v of errors) {
  Deno.test(`frames.json ${v.name}: the driver raises exactly its fields`, async () => {
    const envelope = hexToBytes(v.hex);
    await withNode({ protocolVersion: v.protocol }, async (node: FakeNode, client: AnyClient) => {
      node.on({ query: "FROM frames_ks.vectors" }, (req) => {
        const patched = envelope.slice();
        new DataView(patched.buffer).setInt16(2, req.stream);
        return { envelope: patched };
      });
      const e = await client.execute("SELECT a FROM frames_ks.vectors").then(() => null, (e: unknown) => e);
      if (!(e instanceof ResponseError)) throw new Error(`expected ResponseError, got ${e}`);
      const r = e as unknown as Record<string, unknown>;
      assertExact(errorFields(r, v.expect), v.expect);
      assertExact(r.message, `${v.expect.name} (0x${(v.expect.code as number).toString(16).padStart(4, "0")}) from ${node.address}: ${v.expect.message}`);
    });
  });
}

for (const v of events) {
  Deno.test(`frames.json ${v.name}: the driver emits exactly its fields`, async () => {
    const body = hexToBytes(v.hex).subarray(HEADER_LEN);
    await withNode({ protocolVersion: v.protocol }, async (node: FakeNode, client: AnyClient) => {
      const listener = ({ TOPOLOGY_CHANGE: "topologyChange", STATUS_CHANGE: "statusChange", SCHEMA_CHANGE: "schemaChange" } as Record<string, string>)[v.expect.type as string];
      const seen = new Promise<unknown>((resolve) => client.on(listener, resolve));
      await client.connect();
      await registered(node);
      node.pushEvent(body);
      assertExact(await seen, v.expect);
    });
  });
}

/** Waits (bounded by attempts, not by time) until the control connection has registered. */
async function registered(node: FakeNode): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (node.openConnections().some((c) => c.registered)) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("the driver never sent REGISTER");
}
