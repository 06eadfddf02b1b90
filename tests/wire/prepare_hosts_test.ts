/**
 * `prepareOnAllHosts` and `rePrepareOnUp` (the DataStax driver's options, on by default in
 * cqlwire/compat) observed on the wire of two fake nodes: which node receives which PREPARE.
 */
import { assertExact } from "../exact.mjs";
import type { FakeNode } from "../fakenode/mod.ts";
import { withCluster } from "./helpers.ts";

const CQL = "SELECT a FROM ks.t WHERE a = ?";

const prepares = (n: FakeNode) => n.sent("PREPARE").filter((r) => r.query === CQL).length;

/** Waits (bounded, by polling) until `done`; fails with `what` if it never happens. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!done()) throw new Error(`never happened: ${what}`);
}

/** Prepares CQL (no EXECUTE); returns [the node that answered the PREPARE, the other]. */
async function prepareOnce(nodes: FakeNode[], client: { prepare: (q: string) => Promise<unknown> }): Promise<[FakeNode, FakeNode]> {
  await client.prepare(CQL);
  const first = nodes.find((n) => prepares(n) > 0)!;
  return [first, nodes.find((n) => n !== first)!];
}

Deno.test("prepareOnAllHosts: the other connected node gets the PREPARE too, unasked", async () => {
  await withCluster(2, { protocolVersion: 5, prepareOnAllHosts: true }, async (nodes, client) => {
    const [first, other] = await prepareOnce(nodes, client);
    await until(() => prepares(other) === 1, "the PREPARE on the other node");
    assertExact([prepares(first), prepares(other)], [1, 1]);
  });
});

Deno.test("without prepareOnAllHosts only the node that served the request prepares", async () => {
  await withCluster(2, { protocolVersion: 5 }, async (nodes, client) => {
    const [first, other] = await prepareOnce(nodes, client);
    // A request each node answers after the PREPARE: anything sent to `other` before it is in.
    let answeredByOther = 0;
    other.on({ query: "FROM ks.probe" }, () => (answeredByOther++, undefined));
    for (let i = 0; i < 20 && answeredByOther === 0; i++) await client.execute("SELECT a FROM ks.probe", [], { idempotent: true });
    assertExact(answeredByOther > 0, true);
    assertExact([prepares(first), prepares(other)], [1, 0]);
  });
});

Deno.test("rePrepareOnUp: a node whose connections dropped gets the statement again when it is back", async () => {
  await withCluster(2, { protocolVersion: 5, rePrepareOnUp: true, policies: { reconnection: { baseDelay: 10, maxDelay: 50 } } }, async (nodes, client) => {
    const downs: string[] = [];
    client.on("hostDown", (a: string) => downs.push(a));
    const [first] = await prepareOnce(nodes, client);
    for (const c of first.openConnections()) c.socket.destroy();
    await until(() => downs.includes(first.address), "hostDown of the node whose connections dropped");
    await until(() => prepares(first) === 2, "the PREPARE again on the node back up");
    assertExact(prepares(first), 2);
  });
});

Deno.test("without rePrepareOnUp a node back up gets no PREPARE until a request needs it", async () => {
  await withCluster(2, { protocolVersion: 5, policies: { reconnection: { baseDelay: 10, maxDelay: 50 } } }, async (nodes, client) => {
    const downs: string[] = [];
    const ups: string[] = [];
    client.on("hostDown", (a: string) => downs.push(a));
    client.on("hostUp", (a: string) => ups.push(a));
    const [first] = await prepareOnce(nodes, client);
    for (const c of first.openConnections()) c.socket.destroy();
    await until(() => downs.includes(first.address) && ups.includes(first.address), "hostDown then hostUp");
    // One more round trip to the node back up: a PREPARE sent with hostUp would be in before it.
    await client.execute("SELECT a FROM ks.probe", [], { routingToken: 0n }).catch(() => undefined);
    let answered = false;
    first.on({ query: "FROM ks.probe2" }, () => ((answered = true), undefined));
    for (let i = 0; i < 20 && !answered; i++) await client.execute("SELECT a FROM ks.probe2", [], { idempotent: true });
    assertExact([answered, prepares(first)], [true, 1]);
  });
});
