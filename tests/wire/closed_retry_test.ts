/**
 * A connection that closes after the request was written: the outcome is unknown (the node
 * may have applied it), so only an idempotent statement is sent again, on another node. A
 * counter update or a non-idempotent INSERT goes on the wire exactly once and rejects with a
 * ConnectionError that says it may or may not have been applied. (That a request the
 * transport never took is sent elsewhere even when not idempotent is checked on simulated
 * time in core/tests/session_sim.rs: a real socket takes the bytes at once.)
 */
import { assertExact } from "../exact.mjs";
import type { FakeNode, Reply } from "../fakenode/mod.ts";
import { withCluster } from "./helpers.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const UPDATE = "UPDATE ks.c SET n = n + 1 WHERE k = 1";

/** Every node closes the connection (FIN) on the first UPDATE it reads; returns the nodes in the order they read one. */
function closeOnFirstUpdate(nodes: FakeNode[], then: Reply | undefined = undefined): FakeNode[] {
  const order: FakeNode[] = [];
  for (const n of nodes) {
    n.on({ query: "UPDATE ks.c" }, () => {
      order.push(n);
      return order.length === 1 ? { close: true } : then;
    });
  }
  return order;
}

const updatesOnTheWire = (nodes: FakeNode[]) => nodes.flatMap((n) => n.userRequests().filter((r) => r.query === UPDATE));

for (const idempotent of [false, undefined]) {
  Deno.test(`closed after the write, idempotent: ${idempotent}: sent once, rejects saying it may have been applied`, async () => {
    await withCluster(2, { protocolVersion: 5 }, async (nodes, client) => {
      const order = closeOnFirstUpdate(nodes, { close: true });
      const options = idempotent === undefined ? {} : { idempotent };
      const e: Any = await client.execute(UPDATE, [], options).then(() => null, (e: unknown) => e);
      const host = order[0].address;
      assertExact([e?.name, e?.code, e?.host, e?.attempts], ["ConnectionError", "ERR_CONNECTION", host, 1]);
      assertExact(
        e.message,
        "connection closed: the server closed the connection; the request had been written and the statement is not " +
          `idempotent, so it was not sent again: it may or may not have been applied (host ${host})`,
      );
      assertExact(e.trace.map((t: Any) => [t.node, t.decision, t.reason]), [[host, "rethrow", "no response: statement may have been applied and is not idempotent"]]);
      assertExact([order.length, updatesOnTheWire(nodes).length], [1, 1]);
    });
  });
}

Deno.test("closed after the write, idempotent: sent once more, on the other node, which answers", async () => {
  await withCluster(2, { protocolVersion: 5 }, async (nodes, client) => {
    const order = closeOnFirstUpdate(nodes);
    const rs = await client.execute(UPDATE, [], { idempotent: true });
    assertExact(order.length, 2);
    assertExact(order[0] === order[1], false);
    assertExact([rs.info.queriedHost, rs.info.attempts], [order[1].address, 2]);
    assertExact(updatesOnTheWire(nodes).length, 2);
    // Both attempts carried the same frame: same consistency, flags and values.
    const [first, second] = updatesOnTheWire(nodes);
    assertExact(second.params, first.params);
  });
});

Deno.test("closed after the write, prepared and not idempotent: one EXECUTE on the wire", async () => {
  await withCluster(2, { protocolVersion: 5 }, async (nodes, client) => {
    const executes: FakeNode[] = [];
    for (const n of nodes) n.on({ opcode: 0x0a }, () => (executes.push(n), { close: true }));
    const e: Any = await client.execute("UPDATE ks.c SET n = n + ? WHERE k = ?", [1, 2], { prepare: true }).then(() => null, (e: unknown) => e);
    assertExact([e?.name, e?.code, e?.attempts], ["ConnectionError", "ERR_CONNECTION", 1]);
    assertExact(e.message.includes("it may or may not have been applied"), true);
    assertExact(executes.length, 1);
  });
});
