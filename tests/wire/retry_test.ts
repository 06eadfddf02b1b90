/**
 * Retries per error kind, observed on the wire of two fake nodes that both answer every
 * attempt with the error: how many attempts, on which node each (the first, or the other),
 * in which order, and the decision that ended it. Counts and order, never durations.
 */
import { assertExact } from "../exact.mjs";
import { Consistency as CL, type FakeNode, type ServerError } from "../fakenode/mod.ts";
import { withCluster } from "./helpers.ts";

const unavailable: ServerError = { code: 0x1000, message: "u", consistency: CL.QUORUM, required: 2, alive: 1 };
const readTimeout = (received: number, dataPresent: boolean): ServerError => ({ code: 0x1200, message: "rt", consistency: CL.QUORUM, received, blockFor: 2, dataPresent });
const writeTimeout = (writeType: string): ServerError => ({ code: 0x1100, message: "wt", consistency: CL.QUORUM, received: 0, blockFor: 2, writeType });
const plain = (code: ServerError["code"]) => ({ code, message: `error ${code}` }) as ServerError;

interface RetryCase {
  name: string;
  error: ServerError;
  idempotent: boolean;
  /**
   * Each attempt's node: F the first one tried, O the other, ? either (after both were
   * tried, the plan starts over after a backoff from the round-robin position of the moment).
   */
  attempts: string;
  /** The reason of the decision that gave up. */
  last: string;
}

const CASES: RetryCase[] = [
  { name: "Unavailable, idempotent: once more on the other node", error: unavailable, idempotent: true, attempts: "FO", last: "unavailable: already retried once" },
  // Nothing was applied: DataStax's default policy retries it whatever the statement.
  { name: "Unavailable, not idempotent: once more on the other node", error: unavailable, idempotent: false, attempts: "FO", last: "unavailable: already retried once" },
  { name: "Overloaded, idempotent: next node until 3 attempts", error: plain(0x1001), idempotent: true, attempts: "FO?", last: "attempt limit reached" },
  { name: "Overloaded, not idempotent: no retry", error: plain(0x1001), idempotent: false, attempts: "F", last: "coordinator refused: statement is not idempotent" },
  { name: "IsBootstrapping, idempotent: next node until 3 attempts", error: plain(0x1002), idempotent: true, attempts: "FO?", last: "attempt limit reached" },
  { name: "TruncateError, idempotent: next node until 3 attempts", error: plain(0x1003), idempotent: true, attempts: "FO?", last: "attempt limit reached" },
  { name: "ReadTimeout, enough replicas, no data: once more on the same node", error: readTimeout(2, false), idempotent: true, attempts: "FF", last: "read timeout: already retried once" },
  { name: "ReadTimeout, data present: no retry", error: readTimeout(2, true), idempotent: true, attempts: "F", last: "read timeout: data was present, the replicas are slow" },
  { name: "ReadTimeout, too few replicas: no retry", error: readTimeout(1, false), idempotent: true, attempts: "F", last: "read timeout: too few replicas answered" },
  { name: "WriteTimeout BATCH_LOG, not idempotent: once more on the same node", error: writeTimeout("BATCH_LOG"), idempotent: false, attempts: "FF", last: "write timeout on the batch log: already retried once" },
  { name: "WriteTimeout SIMPLE, idempotent: next node until 3 attempts", error: writeTimeout("SIMPLE"), idempotent: true, attempts: "FO?", last: "attempt limit reached" },
  { name: "WriteTimeout SIMPLE, not idempotent: no retry", error: writeTimeout("SIMPLE"), idempotent: false, attempts: "F", last: "write timeout: statement is not idempotent" },
  { name: "WriteTimeout CAS, idempotent: no retry", error: writeTimeout("CAS"), idempotent: true, attempts: "F", last: "write timeout in a lightweight transaction: outcome unknown" },
  { name: "ServerError, idempotent: no retry", error: plain(0x0000), idempotent: true, attempts: "F", last: "server error: not retried" },
  ...([0x000a, 0x0100, 0x1600, 0x2000, 0x2100, 0x2200, 0x2300] as const).map((code) => ({
    name: `0x${code.toString(16).padStart(4, "0")}, idempotent: no retry`,
    error: plain(code),
    idempotent: true,
    attempts: "F",
    last: "error is not retryable",
  })),
  {
    name: "ReadFailure, idempotent: no retry",
    error: { code: 0x1300, message: "rf", consistency: CL.ONE, received: 0, blockFor: 1, reasons: [["10.0.0.1", 0]], dataPresent: false },
    idempotent: true,
    attempts: "F",
    last: "error is not retryable",
  },
  {
    name: "WriteFailure, idempotent: no retry",
    error: { code: 0x1500, message: "wf", consistency: CL.ONE, received: 0, blockFor: 1, reasons: [["10.0.0.1", 0]], writeType: "SIMPLE" },
    idempotent: true,
    attempts: "F",
    last: "error is not retryable",
  },
  {
    name: "FunctionFailure, idempotent: no retry",
    error: { code: 0x1400, message: "ff", keyspace: "ks", function: "f", argTypes: [] },
    idempotent: true,
    attempts: "F",
    last: "error is not retryable",
  },
  {
    name: "CasWriteUnknown, idempotent: no retry",
    error: { code: 0x1700, message: "cwu", consistency: CL.SERIAL, received: 0, blockFor: 1 },
    idempotent: true,
    attempts: "F",
    last: "error is not retryable",
  },
  {
    name: "AlreadyExists, idempotent: no retry",
    error: { code: 0x2400, message: "ae", keyspace: "ks", table: "t" },
    idempotent: true,
    attempts: "F",
    last: "error is not retryable",
  },
];

/** Both nodes answer the user's query with `error`; returns the nodes in attempt order. */
function failEverywhere(nodes: FakeNode[], error: ServerError): FakeNode[] {
  const order: FakeNode[] = [];
  for (const n of nodes) n.on({ query: "FROM ks.t" }, () => (order.push(n), { error }));
  return order;
}

for (const c of CASES) {
  Deno.test(`retry: ${c.name}`, async () => {
    await withCluster(2, { protocolVersion: 5 }, async (nodes, client) => {
      const order = failEverywhere(nodes, c.error);
      // deno-lint-ignore no-explicit-any
      const e: any = await client.execute("SELECT a FROM ks.t", [], { idempotent: c.idempotent }).then(() => null, (e: unknown) => e);
      const pattern = order.map((n) => (n === order[0] ? "F" : "O")).join("");
      assertExact(pattern.length, c.attempts.length);
      assertExact([...pattern].map((p, i) => (c.attempts[i] === "?" ? "?" : p)).join(""), c.attempts);
      assertExact([e?.name, e?.code, e?.attempts, e?.node], ["ResponseError", c.error.code, c.attempts.length, order.at(-1)!.address]);
      assertExact([e.trace.at(-1).decision, e.trace.at(-1).reason], ["rethrow", c.last]);
    });
  });
}

Deno.test("retry: Overloaded once, then the other node answers: one result, from the other node, 2 attempts", async () => {
  await withCluster(2, { protocolVersion: 5 }, async (nodes, client) => {
    const order: FakeNode[] = [];
    for (const n of nodes) {
      n.on({ query: "FROM ks.t" }, () => (order.push(n), order.length === 1 ? { error: plain(0x1001) } : undefined));
    }
    const rs = await client.execute("SELECT a FROM ks.t", [], { idempotent: true });
    assertExact(order.length, 2);
    assertExact(order[1] === order[0], false);
    assertExact([rs.info.queriedHost, rs.info.attempts], [order[1].address, 2]);
    // info.triedHosts: the node that failed first and what it said; a first answer has none.
    assertExact(rs.info.triedHosts, { [order[0].address]: "Overloaded (4097): error 4097" });
    assertExact((await client.execute("SELECT a FROM ks.t", [], { idempotent: true })).info.triedHosts, {});
  });
});

Deno.test("retry: an error that ended after two nodes carries triedHosts for both", async () => {
  await withCluster(2, { protocolVersion: 5 }, async (nodes, client) => {
    const order = failEverywhere(nodes, unavailable);
    // deno-lint-ignore no-explicit-any
    const e: any = await client.execute("SELECT a FROM ks.t", [], { idempotent: true }).then(() => null, (e: unknown) => e);
    assertExact(e.triedHosts, { [order[0].address]: "Unavailable (4096): u", [order[1].address]: "Unavailable (4096): u" });
  });
});
