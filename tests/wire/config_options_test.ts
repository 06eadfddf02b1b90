/**
 * Client options that only the core acts on reach it: which fake node gets requests under
 * an allow or deny list, the frame cap, and a config the core refuses is an ArgumentError.
 */
import { assertExact } from "../exact.mjs";
import { ByteWriter, FakeNode, startCluster, stopAll } from "../fakenode/mod.ts";
// deno-lint-ignore no-explicit-any
type Any = any;
import { ArgumentError, Client, CqlProtocolError } from "../../dist/deno.js";

/** Runs 8 idempotent queries on a fresh two-node cluster; returns how many each node answered. */
async function answersPerNode(policies: (nodes: FakeNode[]) => Record<string, unknown>): Promise<{ nodes: FakeNode[]; counts: number[] }> {
  const nodes = await startCluster(2);
  const counts = [0, 0];
  nodes.forEach((n, i) => n.on({ query: "FROM ks.t" }, () => (counts[i]++, undefined)));
  const client = new Client({ contactPoints: nodes.map((n) => n.address), protocolVersion: 5, pooling: { heartBeatInterval: 0 }, policies: policies(nodes) });
  try {
    await client.connect();
    for (let i = 0; i < 8; i++) await client.execute("SELECT a FROM ks.t", [], { idempotent: true });
    return { nodes, counts };
  } finally {
    await client.shutdown();
    await stopAll(nodes);
  }
}

Deno.test("policies.allowList: only the listed node gets requests", async () => {
  const { counts } = await answersPerNode((nodes) => ({ allowList: [nodes[1].address] }));
  assertExact(counts, [0, 8]);
});

Deno.test("policies.denyList: the listed node gets no requests", async () => {
  const { counts } = await answersPerNode((nodes) => ({ denyList: [nodes[0].address] }));
  assertExact(counts, [0, 8]);
});

Deno.test("without a list both nodes get requests (the lists above are what moves them)", async () => {
  const { counts } = await answersPerNode(() => ({}));
  assertExact(counts.every((c) => c > 0), true, `counts ${counts}`);
});

Deno.test("snappy on protocol v5 is an ArgumentError from the core's config check", async () => {
  const client = new Client({ contactPoints: ["127.0.0.1:1"], protocolVersion: 5, compression: "snappy" });
  let error: unknown;
  try {
    await client.connect();
  } catch (e) {
    error = e;
  } finally {
    await client.shutdown();
  }
  if (!(error instanceof ArgumentError)) throw new Error(`expected ArgumentError, got ${error}`);
  assertExact([error.name, error.code, error.message], ["ArgumentError", "ERR_ARGUMENT", "snappy compression exists only on protocol v4; use lz4 or protocolVersion 4"]);
});

Deno.test("protocolOptions.maxFrameBytes: a v4 envelope above it is the server's protocol error", async () => {
  const node = await FakeNode.start();
  node.on({ query: "FROM ks.t" }, () => ({ body: new Uint8Array(4096) }));
  const client = new Client({ contactPoints: [node.address], protocolVersion: 4, pooling: { heartBeatInterval: 0 }, protocolOptions: { maxFrameBytes: 2048 } });
  let error: Any;
  try {
    await client.connect();
    await client.execute("SELECT a FROM ks.t").catch((e: unknown) => (error = e));
  } finally {
    await client.shutdown();
    await node.stop();
  }
  if (!(error instanceof CqlProtocolError)) throw new Error(`expected CqlProtocolError, got ${error}`);
  assertExact(
    [error.name, error.code, error.side, error.field, error.offset, error.message],
    ["CqlProtocolError", "ERR_PROTOCOL", "remote", "frame header length", 5, `remote protocol error in frame header length at byte 5: body of 4096 bytes exceeds the cap of 2048 (host ${node.address})`],
  );
});

Deno.test("socketOptions.connectTimeout (also the handshake deadline) must be a positive integer a JS timer can hold", () => {
  for (const connectTimeout of [0, -1, 1.5, Number.NaN, 715_827_883]) {
    let error: Any;
    try {
      new Client({ contactPoints: ["127.0.0.1:1"], socketOptions: { connectTimeout } });
    } catch (e) {
      error = e;
    }
    if (!(error instanceof ArgumentError)) throw new Error(`${connectTimeout}: expected ArgumentError, got ${error}`);
    assertExact([error.name, error.code, error.message.startsWith("invalid Client options: socketOptions.connectTimeout: ")], ["ArgumentError", "ERR_ARGUMENT", true], error.message);
  }
});

/** Five SCHEMA_CHANGE events at once; how many times the keyspaces were read again 100 ms and 900 ms later. */
async function keyspaceReadsAfterFiveEvents(refreshSchemaDelay: number): Promise<[number, number]> {
  const node = await FakeNode.start();
  const client = new Client({ contactPoints: [node.address], protocolVersion: 5, pooling: { heartBeatInterval: 0 }, refreshSchemaDelay });
  const reads = () => node.requests.filter((r) => /system_schema\.keyspaces/.test(r.query ?? "")).length;
  try {
    await client.connect();
    for (let i = 0; i < 500 && !node.openConnections().some((c) => c.registered); i++) await new Promise((r) => setTimeout(r, 10));
    const before = reads();
    const body = new ByteWriter().string("SCHEMA_CHANGE").string("UPDATED").string("KEYSPACE").string("ks").done();
    for (let i = 0; i < 5; i++) node.pushEvent(body);
    await new Promise((r) => setTimeout(r, 100));
    const soon = reads() - before;
    await new Promise((r) => setTimeout(r, 800));
    return [soon, reads() - before];
  } finally {
    await client.shutdown();
    await node.stop();
  }
}

Deno.test("refreshSchemaDelay: events at once are read into the view once, that long after them", async () => {
  assertExact(await keyspaceReadsAfterFiveEvents(300), [0, 1]);
});
