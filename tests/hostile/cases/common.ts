/** Helpers the hostile cases share: clients with short deadlines, and error assertions. */
import { ok } from "node:assert/strict";
import { assertExact } from "../../exact.mjs";
import type { Bundle } from "../harness.ts";
import type { FakeNode } from "../../fakenode/mod.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** A client on these nodes with deadlines short enough for a test, and its log lines. */
export function clientOn(bundle: Bundle, nodes: FakeNode[], extra: Record<string, unknown> = {}): { client: Any; logs: string[] } {
  const logs: string[] = [];
  const client = new bundle.Client({
    contactPoints: nodes.map((n) => n.address),
    socketOptions: { connectTimeout: 1500, readTimeout: 3000 },
    pooling: { heartBeatInterval: 0 },
    protocolOptions: { maxSchemaAgreementWaitSeconds: 1 },
    ...extra,
  });
  client.on("log", (_level: string, message: string) => logs.push(message));
  return { client, logs };
}

/** Awaits `p` and returns what it rejected with; fails when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<Any> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection, the call resolved");
}

/**
 * The error is the one cqlwire protocol error class (CqlProtocolError, ERR_PROTOCOL, a
 * DriverError, whether the Rust core or the TS result decoder found it) blaming the server
 * for `field`: class, code, side and field, and the message names the field too.
 */
export function assertRemoteProtocolError(bundle: Bundle, e: Any, field: string | RegExp): void {
  ok(e instanceof bundle.CqlProtocolError, `expected the bundle's CqlProtocolError, got ${e?.name}: ${e?.message}`);
  ok(e instanceof bundle.DriverError, "CqlProtocolError is not a DriverError");
  assertExact([e.name, e.code, e.side], ["CqlProtocolError", "ERR_PROTOCOL", "remote"], e.message);
  if (typeof field === "string") assertExact(e.field, field, e.message);
  else ok(field.test(e.field), `field ${JSON.stringify(e.field)} does not match ${field}`);
  ok(e.message.includes(`remote protocol error in ${e.field}`), `message does not name side and field: ${e.message}`);
}

/** A NoHostAvailableError whose error for `node` satisfies `check`. */
export function assertNoHost(bundle: Bundle, e: Any, node: FakeNode, check: (inner: Any) => void): void {
  ok(e instanceof bundle.NoHostAvailableError, `expected NoHostAvailableError, got ${e?.name}: ${e?.message}`);
  assertExact(e.code, "ERR_NO_HOST");
  const inner = e.innerErrors[node.address];
  ok(inner, `no inner error for ${node.address}: ${JSON.stringify(Object.keys(e.innerErrors))}`);
  check(inner);
}

/** Waits (bounded) until `cond` holds; a deadline for the test, not a timing assertion. */
export async function eventually(cond: () => boolean, what: string, ms = 15000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`gave up waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The client closed every connection `node` accepted that carried `predicate`'s request. */
export async function connectionClosedBy(node: FakeNode, connection: number): Promise<void> {
  const c = node.connections.find((x) => x.id === connection);
  ok(c, `node never saw connection ${connection}`);
  await eventually(() => c.closed, `the client closes connection ${connection} of ${node.address}`);
}

/**
 * User queries succeed until one reaches `node` (the client balances across nodes): the
 * session goes on there.
 */
export async function queryServedBy(client: Any, node: FakeNode): Promise<void> {
  // A deadline, not a count: on a busy machine the node's pool may still be reconnecting
  // (with backoff) for a while after its hostile reply, and queries go elsewhere meanwhile.
  const until = Date.now() + 15000;
  let sent = 0;
  while (Date.now() < until) {
    await poolReady(client, node);
    const before = node.userRequests().length;
    await client.execute("INSERT INTO ks.t (a) VALUES (1)", [], { idempotent: true });
    sent++;
    if (node.userRequests().length > before) return;
    if (sent % 16 === 0) await new Promise((r) => setTimeout(r, 50));
  }
  ok(false, `${node.address} served none of ${sent} queries in 15 s`);
}

/**
 * Sends user queries until one reaches `node` (the client balances across nodes), and
 * returns that query's error; the queries served elsewhere must succeed.
 */
export async function failureOn(client: Any, node: FakeNode, send: () => Promise<unknown>): Promise<Any> {
  await poolReady(client, node);
  for (let i = 0; i < 16; i++) {
    const before = node.userRequests().length;
    try {
      await send();
    } catch (e) {
      ok(node.userRequests().length > before, `a query failed on another node: ${(e as Error).message}`);
      return e;
    }
    if (node.userRequests().length > before) throw new Error(`${node.address} answered with hostile bytes and the query resolved`);
  }
  throw new Error(`no query reached ${node.address}`);
}

/** The connection that carried `node`'s last user request. */
export function lastUserConnection(node: FakeNode): number {
  const r = node.userRequests().at(-1);
  ok(r, "no user request reached the node");
  return r.connection;
}

/** The client has a ready connection to `node`. */
export async function poolReady(client: Any, node: FakeNode): Promise<void> {
  const ready = () => client.getState().connections.some((c: Any) => c.address === node.address && c.ready);
  await eventually(ready, `a ready connection to ${node.address}`);
}

/**
 * The shape of the connect-stage cases: a client on `bad` alone fails to connect as `check`
 * says and closes its first connection; a client on `bad` and `good` goes on through `good`.
 */
export async function aloneFailsOthersGoOn(
  bundle: Bundle,
  bad: FakeNode,
  good: FakeNode,
  check: (e: Any, logs: string[]) => void,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const alone = clientOn(bundle, [bad], extra);
  const both = clientOn(bundle, [bad, good], extra);
  try {
    check(await rejection(alone.client.connect()), alone.logs);
    await connectionClosedBy(bad, 1);
    await both.client.connect();
    await queryServedBy(both.client, good);
  } finally {
    await alone.client.shutdown();
    await both.client.shutdown();
  }
}
