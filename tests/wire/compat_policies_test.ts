/**
 * The DataStax policy objects cqlwire/compat maps onto the core are followed, observed on the
 * wire of two fake nodes: AllowListPolicy routes only to the listed node, FallthroughRetryPolicy
 * never retries, ConstantSpeculativeExecutionPolicy sends a second execution to the other node (counted in
 * `info.speculativeExecutions`).
 * (Policies whose JavaScript would have to run are refused at construction: tests/compat.)
 */
import { assertExact } from "../exact.mjs";
import { type FakeNode, startCluster, stopAll } from "../fakenode/mod.ts";
import * as cassandra from "../../dist/compat-deno.js";

const { loadBalancing, retry, speculativeExecution } = cassandra.policies;

// deno-lint-ignore no-explicit-any
async function withCompat(policies: (nodes: FakeNode[]) => Record<string, unknown>, body: (nodes: FakeNode[], client: any) => Promise<void>): Promise<void> {
  const nodes = await startCluster(2);
  const client = new cassandra.Client({
    contactPoints: nodes.map((n) => n.address),
    localDataCenter: "dc1",
    policies: policies(nodes),
    pooling: { heartBeatInterval: 0 },
    isMetadataSyncEnabled: false,
    cqlwire: { protocolVersion: 5 },
  });
  try {
    await client.connect();
    await body(nodes, client);
  } finally {
    await client.shutdown();
    await stopAll(nodes);
  }
}

Deno.test("compat AllowListPolicy: only the listed node gets requests", async () => {
  await withCompat((nodes) => ({ loadBalancing: new loadBalancing.AllowListPolicy(new loadBalancing.DCAwareRoundRobinPolicy("dc1"), [nodes[1].address]) }), async (nodes, client) => {
    const counts = [0, 0];
    nodes.forEach((n, i) => n.on({ query: "FROM ks.t" }, () => (counts[i]++, undefined)));
    for (let i = 0; i < 8; i++) await client.execute("SELECT a FROM ks.t", [], { isIdempotent: true });
    assertExact(counts, [0, 8]);
  });
});

Deno.test("compat FallthroughRetryPolicy: an Overloaded idempotent request is not retried", async () => {
  await withCompat(() => ({ retry: new retry.FallthroughRetryPolicy() }), async (nodes, client) => {
    let attempts = 0;
    for (const n of nodes) n.on({ query: "FROM ks.t" }, () => (attempts++, { error: { code: 0x1001, message: "busy" } }));
    const e = await client.execute("SELECT a FROM ks.t", [], { isIdempotent: true }).then(() => null, (x: unknown) => x);
    assertExact([e instanceof cassandra.errors.ResponseError, attempts], [true, 1]);
  });
});

Deno.test("compat IdempotenceAwareRetryPolicy (the core's default): the same request is retried on the other node", async () => {
  await withCompat(() => ({ retry: new retry.IdempotenceAwareRetryPolicy(new retry.RetryPolicy()) }), async (nodes, client) => {
    let attempts = 0;
    for (const n of nodes) n.on({ query: "FROM ks.t" }, () => (attempts++ === 0 ? { error: { code: 0x1001, message: "busy" } } : undefined));
    const rs = await client.execute("SELECT a FROM ks.t", [], { isIdempotent: true });
    // triedHosts as DataStax: the node that failed, then the one that answered (null).
    assertExact([attempts, Object.keys(rs.info.triedHosts).length, rs.info.triedHosts[rs.info.queriedHost]], [2, 2, null]);
  });
});

Deno.test("compat ConstantSpeculativeExecutionPolicy: a silent first node gets a speculative execution on the other", async () => {
  await withCompat(() => ({ speculativeExecution: new speculativeExecution.ConstantSpeculativeExecutionPolicy(20, 1) }), async (nodes, client) => {
    const asked: FakeNode[] = [];
    for (const n of nodes) n.on({ query: "FROM ks.t" }, () => (asked.push(n), asked.length === 1 ? { silence: true } : undefined));
    const rs = await client.execute("SELECT a FROM ks.t", [], { isIdempotent: true });
    assertExact([asked.length, rs.info.queriedHost === asked[1].address, asked[0] === asked[1]], [2, true, false]);
    // info as DataStax reports it: one speculative execution; the silent node said nothing.
    assertExact([rs.info.speculativeExecutions, rs.info.triedHosts], [1, { [asked[1].address]: null }]);
  });
});
