/**
 * The DataStax policy objects cqlwire/compat maps onto the core are followed, observed on the
 * wire of two fake nodes: AllowListPolicy routes only to the listed node, FallthroughRetryPolicy
 * never retries, ConstantSpeculativeExecutionPolicy sends a second execution to the other node (counted in
 * `info.speculativeExecutions`).
 * Also `host.hostId`, which the core reads from system.local and system.peers.
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

// The texts DataStax 4.10.0's readers.js builds for these codes (its _unavailableMessage,
// _readTimeoutMessage, _writeTimeoutQueryMessage, _writeTimeoutBatchLogMessage,
// _readFailureMessage, _writeFailureMessage), with its field names; the server's own text
// stays in serverMessage.
Deno.test("compat: Unavailable, timeouts and failures read as DataStax reads them: message and fields", async () => {
  await withCompat(() => ({ retry: new retry.FallthroughRetryPolicy() }), async (nodes, client) => {
    const errs = [
      { code: 0x1000, message: "Cannot achieve consistency level QUORUM", consistency: 4, required: 2, alive: 1 },
      { code: 0x1200, message: "rt", consistency: 6, received: 1, blockFor: 2, dataPresent: false },
      { code: 0x1200, message: "rt", consistency: 6, received: 2, blockFor: 2, dataPresent: false },
      { code: 0x1100, message: "wt", consistency: 1, received: 0, blockFor: 1, writeType: "BATCH_LOG" },
      { code: 0x1100, message: "wt", consistency: 10, received: 0, blockFor: 1, writeType: "SIMPLE" },
      { code: 0x1300, message: "rf", consistency: 5, received: 1, blockFor: 3, reasons: [["10.0.0.1", 1]], dataPresent: true },
      { code: 0x1500, message: "wf", consistency: 5, received: 1, blockFor: 3, reasons: [["10.0.0.1", 1]], writeType: "SIMPLE" },
    ];
    let i = 0;
    for (const n of nodes) n.on({ query: "FROM ks.t" }, () => ({ error: errs[i++] as never }));
    const seen = [];
    for (let k = 0; k < errs.length; k++) {
      const e = await client.execute("SELECT a FROM ks.t", [], { isIdempotent: true }).then(() => null, (x: Record<string, unknown>) => x);
      seen.push([e!.message, e!.consistencies, e!.required ?? e!.received, e!.alive ?? e!.blockFor, e!.isDataPresent, e!.writeType, e!.failures]);
    }
    assertExact(seen, [
      ["Not enough replicas available for query at consistency QUORUM (2 required but only 1 alive)", 4, 2, 1, undefined, undefined, undefined],
      ["Server timeout during read query at consistency LOCAL_QUORUM (1 replica(s) responded over 2 required)", 6, 1, 2, 0, undefined, undefined],
      ["Server timeout during read query at consistency LOCAL_QUORUM (the replica queried for the data didn't respond)", 6, 2, 2, 0, undefined, undefined],
      ["Server timeout during batchlog write at consistency ONE (0 peer(s) acknowledged the write over 1 required)", 1, 0, 1, undefined, "BATCH_LOG", undefined],
      ["Server timeout during write query at consistency LOCAL_ONE (0 peer(s) acknowledged the write over 1 required)", 10, 0, 1, undefined, "SIMPLE", undefined],
      ["Server failure during read query at consistency ALL (3 responses were required but only 1 replicas responded, 1 failed)", 5, 1, 3, 1, undefined, 1],
      ["Server failure during write query at consistency ALL (3 responses were required but only 1 replicas responded, 1 failed)", 5, 1, 3, undefined, "SIMPLE", 1],
    ]);
  });
});

Deno.test("compat host.hostId: each node's host_id (system.local and system.peers) as a Uuid", async () => {
  await withCompat(() => ({}), async (nodes, client) => {
    const byAddress = client.hosts.values().map((h: { address: string; hostId: unknown }) => [h.address, h.hostId instanceof cassandra.types.Uuid, String(h.hostId)]);
    byAddress.sort();
    const expected = nodes.map((n) => [n.address, true, n.identity.hostId]).sort();
    assertExact(byAddress, expected);
  });
});
