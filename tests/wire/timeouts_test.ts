/**
 * Client-side timeouts and backoff on fake nodes, by what happened rather than how long it
 * took: attempts on the wire, orphaned stream ids, and the decisions the driver records.
 * (These replace wall-clock checks of the fault suite: no duration is asserted here.)
 */
import { assertExact } from "../exact.mjs";
import { type FakeNode, voidBody } from "../fakenode/mod.ts";
import { withCluster } from "./helpers.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const orphans = (client: Any) => client.getState().connections.reduce((n: number, c: { orphans: number }) => n + c.orphans, 0);

Deno.test("a non-idempotent request that times out: one attempt, its stream id orphaned until the late answer", async () => {
  await withCluster(1, { protocolVersion: 5 }, async ([node], client) => {
    let answer!: () => void;
    const late = new Promise<void>((r) => (answer = r));
    node.on({ query: "FROM ks.t" }, async () => {
      await late;
      return { body: voidBody() };
    });
    const e: Any = await client.execute("SELECT a FROM ks.t", [], { idempotent: false, timeout: 200 }).then(() => null, (e: unknown) => e);
    assertExact([e?.name, e?.code, e?.message, e?.attempts], ["OperationTimedOutError", "ERR_TIMEOUT", `no response within 200 ms (host ${node.address})`, 1]);
    assertExact(e.trace.map((t: Any) => [t.decision, t.reason]), [["rethrow", "no response: statement may have been applied and is not idempotent"]]);
    assertExact([node.userRequests().length, orphans(client)], [1, 1]);
    answer();
    for (let i = 0; i < 250 && orphans(client) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assertExact(orphans(client), 0);
  });
});

Deno.test("an idempotent request that times out on one node is answered by the other: 2 attempts, in that order", async () => {
  await withCluster(2, { protocolVersion: 5 }, async (nodes, client) => {
    const order: FakeNode[] = [];
    for (const n of nodes) n.on({ query: "FROM ks.t" }, () => (order.push(n), order.length === 1 ? { silence: true } : undefined));
    const rs = await client.execute("SELECT a FROM ks.t", [], { idempotent: true, timeout: 200 });
    assertExact(order.length, 2);
    assertExact(order[0] === order[1], false);
    assertExact([rs.info.queriedHost, rs.info.attempts], [order[1].address, 2]);
  });
});

Deno.test("backoff: once every node was tried, the next attempt waits for a backoff, and the limit ends it", async () => {
  await withCluster(2, { protocolVersion: 5 }, async (nodes, client) => {
    for (const n of nodes) n.on({ query: "FROM ks.t" }, { error: { code: 0x1001, message: "busy" } });
    const e: Any = await client.execute("SELECT a FROM ks.t", [], { idempotent: true }).then(() => null, (e: unknown) => e);
    assertExact(e.trace.map((t: Any) => t.decision), ["retry next node", "retry on the next node", "retry next node", "retry after backoff", "rethrow"]);
    assertExact(e.trace.at(-1).reason, "attempt limit reached");
    assertExact(nodes.reduce((n, x) => n + x.userRequests().length, 0), 3);
  });
});
