/**
 * A request tracker and the metrics hear every execution of a request, as DataStax's
 * (lib/request-execution.js `_trackResponse`, then `_handleError`'s retry metrics): an
 * execution that failed and was retried on the next node is reported with its own node, error
 * and time, then `retries.*`; the execution that answered, or failed for good, last, with its
 * own time. Two fake nodes: the first one asked answers late with an error.
 */
import { assertExact } from "../exact.mjs";
import { type FakeNode, startCluster, stopAll } from "../fakenode/mod.ts";
import * as cassandra from "../../dist/compat-deno.js";

const LATE_MS = 80;

// deno-lint-ignore no-explicit-any
type Any = any;

async function withTracked(body: (nodes: FakeNode[], client: Any, log: unknown[][]) => Promise<void>): Promise<void> {
  const log: unknown[][] = [];
  const ms = (l: [number, number]) => l[0] * 1000 + l[1] / 1e6;
  class Recorder extends cassandra.tracker.RequestTracker {
    onSuccess(host: Any, _q: unknown, _p: unknown, _eo: unknown, _req: number, _res: number, latency: [number, number]) {
      log.push(["onSuccess", host.address, ms(latency)]);
    }
    onError(host: Any, _q: unknown, _p: unknown, _eo: unknown, _req: number, err: Any, latency: [number, number]) {
      log.push(["onError", host.address, err.constructor.name, err.code, err.coordinator, err.query, ms(latency), err]);
    }
  }
  const nodes = await startCluster(2);
  const client = new cassandra.Client({
    contactPoints: nodes.map((n) => n.address),
    localDataCenter: "dc1",
    pooling: { heartBeatInterval: 0 },
    isMetadataSyncEnabled: false,
    requestTracker: new Recorder(),
    cqlwire: { protocolVersion: 5 },
  });
  const m = client.metrics;
  const emitters: Record<string, Any> = { errors: m.errors, responses: m.responses, retries: m.retries, "responses.success": m.responses.success };
  for (const k of ["other", "unavailable", "readTimeout", "clientTimeout"]) {
    emitters[`errors.${k}`] = m.errors[k];
    emitters[`retries.${k}`] = m.retries[k];
  }
  for (const [name, e] of Object.entries(emitters)) e.on("increment", () => log.push(["metrics", name]));
  try {
    await client.connect();
    await body(nodes, client, log);
  } finally {
    await client.shutdown();
    await stopAll(nodes);
  }
}

/** The first node asked answers `first` after LATE_MS; the other answers `second` at once. */
function script(nodes: FakeNode[], first: Record<string, unknown>, second?: Record<string, unknown>): FakeNode[] {
  const asked: FakeNode[] = [];
  for (const n of nodes) {
    n.on({ query: "FROM ks.t" }, () => {
      asked.push(n);
      return (asked.length === 1 ? { delayMs: LATE_MS, then: first } : second) as never;
    });
  }
  return asked;
}

const overloaded = { error: { code: 0x1001, message: "busy" } };

Deno.test("compat tracker: a retried execution is reported on its node with its error and time, then the answer with its own", async () => {
  await withTracked(async (nodes, client, log) => {
    const asked = script(nodes, overloaded);
    const rs = await client.execute("SELECT a FROM ks.t", [], { isIdempotent: true });
    const [a, b] = asked.map((n) => n.address);
    assertExact([asked.length, rs.info.queriedHost], [2, b]);
    const failed = log[3];
    // Each execution's own latency: the late error took LATE_MS, the answer far less.
    assertExact([failed[6] as number >= LATE_MS, (log[8][2] as number) < LATE_MS], [true, true]);
    assertExact(log.map((e) => e.slice(0, e[0] === "onError" ? 6 : 2)), [
      ["metrics", "errors.other"], ["metrics", "errors"], ["metrics", "responses"],
      ["onError", a, "ResponseError", 0x1001, a, undefined],
      ["metrics", "retries.other"], ["metrics", "retries"],
      ["metrics", "responses.success"], ["metrics", "responses"],
      ["onSuccess", b],
    ]);
  });
});

Deno.test("compat tracker: a request that fails for good reports each execution, the last with the error the application gets", async () => {
  await withTracked(async (nodes, client, log) => {
    const unavailable = { error: { code: 0x1000, message: "Cannot achieve consistency level QUORUM", consistency: 4, required: 2, alive: 1 } };
    const asked = script(nodes, overloaded, unavailable);
    const err = await client.execute("SELECT a FROM ks.t", [], { isIdempotent: true }).then(() => null, (e: unknown) => e);
    const [a, b] = asked.map((n) => n.address);
    assertExact(log.map((e) => e.slice(0, e[0] === "onError" ? 6 : 2)), [
      ["metrics", "errors.other"], ["metrics", "errors"], ["metrics", "responses"],
      ["onError", a, "ResponseError", 0x1001, a, undefined],
      ["metrics", "retries.other"], ["metrics", "retries"],
      ["metrics", "errors.unavailable"], ["metrics", "errors"], ["metrics", "responses"],
      ["onError", b, "ResponseError", 0x1000, b, "SELECT a FROM ks.t"],
    ]);
    // As DataStax: the tracker is handed the very error the application gets.
    assertExact([log[9][7] === err, (log[9][6] as number) < LATE_MS], [true, true]);
  });
});
