/**
 * pooling.warmup (on by default, as in the DataStax driver): connect() resolves once every
 * local node has a connection up or failed to open one, so requests made right after it
 * reach every node, not only the control node. A node that never answers its handshake
 * holds connect() until the connect timeout, then is down.
 */
import { assertExact } from "../exact.mjs";
import { FakeNode, Op, type Reply, startCluster, stopAll } from "../fakenode/mod.ts";
import { ArgumentError, Client } from "../../dist/deno.js";

const READY: Reply = { body: new Uint8Array(0), opcode: Op.READY };

/** A two-node cluster whose second node answers STARTUP with `reply`; counts each node's queries. */
async function cluster(reply: Reply): Promise<{ nodes: FakeNode[]; counts: number[] }> {
  const nodes = await startCluster(2);
  const counts = [0, 0];
  nodes.forEach((n, i) => n.on({ query: "FROM ks.t" }, () => (counts[i]++, undefined)));
  nodes[1].on({ opcode: Op.STARTUP }, reply);
  return { nodes, counts };
}

/** Connects, then sends 8 queries at once, as soon as connect() resolves. */
async function queriesRightAfterConnect(client: InstanceType<typeof Client>): Promise<void> {
  await client.connect();
  await Promise.all(Array.from({ length: 8 }, () => client.execute("SELECT a FROM ks.t", [], { idempotent: true })));
}

Deno.test("warmup: requests made as connect() resolves reach a node whose handshake was slow", async () => {
  const { nodes, counts } = await cluster({ delayMs: 300, then: READY });
  const client = new Client({ contactPoints: [nodes[0].address], protocolVersion: 5, pooling: { heartBeatInterval: 0 } });
  try {
    await queriesRightAfterConnect(client);
  } finally {
    await client.shutdown();
    await stopAll(nodes);
  }
  // How the 8 split is the balancing's business; that each node gets some is warmup's.
  assertExact([counts[0] + counts[1], counts.every((c) => c > 0)], [8, true], `counts ${counts}`);
});

Deno.test("warmup: false resolves with the metadata; the node still handshaking gets nothing", async () => {
  const { nodes, counts } = await cluster({ silence: true });
  const client = new Client({ contactPoints: [nodes[0].address], protocolVersion: 5, pooling: { heartBeatInterval: 0, warmup: false } });
  try {
    await queriesRightAfterConnect(client);
  } finally {
    await client.shutdown();
    await stopAll(nodes);
  }
  assertExact(counts, [8, 0]);
});

Deno.test("warmup: a node that never answers its handshake is down when connect() resolves, at the connect timeout", async () => {
  const { nodes, counts } = await cluster({ silence: true });
  const client = new Client({ contactPoints: [nodes[0].address], protocolVersion: 5, pooling: { heartBeatInterval: 0 }, socketOptions: { connectTimeout: 400 } });
  const downs: string[] = [];
  client.on("hostDown", (address: string) => downs.push(address));
  try {
    await queriesRightAfterConnect(client);
    assertExact(downs, [nodes[1].address]);
  } finally {
    await client.shutdown();
    await stopAll(nodes);
  }
  assertExact(counts, [8, 0]);
});

Deno.test("pooling.warmup must be a boolean", () => {
  let error: unknown;
  try {
    new Client({ contactPoints: ["127.0.0.1:1"], pooling: { warmup: "yes" as unknown as boolean } });
  } catch (e) {
    error = e;
  }
  if (!(error instanceof ArgumentError)) throw new Error(`expected ArgumentError, got ${error}`);
  assertExact([error.name, error.code, error.message], ["ArgumentError", "ERR_ARGUMENT", 'invalid Client options: pooling.warmup: expected a boolean, got "yes"']);
});
