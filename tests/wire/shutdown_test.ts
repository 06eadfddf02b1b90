/**
 * shutdown() while the client waits on a server that stalls at each step: every promise
 * handed out settles at once with the shutdown error, and nothing is left behind (Deno's
 * sanitizers fail a test that leaves a timer or a socket open). Deadlines are long here, so
 * it is the shutdown that settles them, not a timeout.
 */
import { ok } from "node:assert/strict";
import { assertExact } from "../exact.mjs";
import { authChallengeBody, ByteWriter, cell, FakeNode, Op, type Reply, rowsBody, utf8 } from "../fakenode/mod.ts";
import { Client, DriverError } from "../../dist/deno.js";
import type { AnyClient } from "./helpers.ts";

const LONG = { connectTimeout: 20_000, readTimeout: 20_000 };

/** Sends one valid byte every 50 ms: activity that must not count as progress. */
const trickle = (then: Reply): Reply => ({ trickleMs: 50, then });

/** A provider whose authenticator answers every challenge: the server never says success. */
const answeringProvider = {
  newAuthenticator: () => ({
    initialResponse: () => Promise.resolve(utf8("hello")),
    evaluateChallenge: () => Promise.resolve(utf8("again")),
  }),
};

interface Stall {
  name: string;
  /** Scripts the node; `seen` says when the client is stuck where the case wants it. */
  script(node: FakeNode): void;
  seen(node: FakeNode): boolean;
  /** What the user started (connect, execute, ...), after a completed connect unless `joining`. */
  calls(client: AnyClient): Promise<unknown>[];
  joining?: boolean;
  client?: Record<string, unknown>;
  auth?: boolean;
}

const select = (client: AnyClient) => client.execute("SELECT a FROM ks.t");
const userQuery = (node: FakeNode) => node.userRequests().length > 0;
const sawOpcode = (op: number) => (node: FakeNode) => node.requests.some((r) => r.opcode === op);

const STALLS: Stall[] = [
  { name: "OPTIONS unanswered", joining: true, script: (n) => n.on({ opcode: Op.OPTIONS }, { silence: true }), seen: sawOpcode(Op.OPTIONS), calls: (c) => [c.connect(), select(c)] },
  {
    name: "SUPPORTED trickled",
    joining: true,
    script: (n) => n.on({ opcode: Op.OPTIONS }, trickle({ body: new ByteWriter().short(0).done(), opcode: Op.SUPPORTED })),
    seen: sawOpcode(Op.OPTIONS),
    calls: (c) => [c.connect(), select(c)],
  },
  { name: "READY trickled", joining: true, script: (n) => n.on({ opcode: Op.STARTUP }, trickle({ body: new Uint8Array(0), opcode: Op.READY })), seen: sawOpcode(Op.STARTUP), calls: (c) => [c.connect()] },
  {
    name: "AUTH_CHALLENGE for ever",
    joining: true,
    auth: true,
    client: { authProvider: answeringProvider },
    script: (n) => n.on({ opcode: Op.AUTH_RESPONSE }, { body: authChallengeBody(utf8("more")), opcode: Op.AUTH_CHALLENGE }),
    seen: (n) => n.sent("AUTH_RESPONSE").length > 2,
    calls: (c) => [c.connect()],
  },
  // The connect does not wait for REGISTER: only the core's request for it is left.
  { name: "REGISTER unanswered", script: (n) => n.on({ opcode: Op.REGISTER }, { silence: true }), seen: sawOpcode(Op.REGISTER), calls: () => [] },
  { name: "system.local unanswered", joining: true, script: (n) => n.on({ query: "FROM system.local" }, { silence: true }), seen: (n) => n.requests.some((r) => /system\.local/.test(r.query ?? "")), calls: (c) => [c.connect(), select(c)] },
  { name: "a user query unanswered", script: (n) => n.on({ query: "FROM ks.t" }, { silence: true }), seen: userQuery, calls: (c) => [select(c), select(c)] },
  { name: "a response header, then nothing", script: (n) => n.on({ query: "FROM ks.t" }, { trickleMs: 1, bytes: 9, then: { body: new ByteWriter().int(1).done() } }), seen: userQuery, calls: (c) => [select(c)] },
  { name: "a response trickled", script: (n) => n.on({ query: "FROM ks.t" }, trickle({ body: new ByteWriter().int(1).done() })), seen: userQuery, calls: (c) => [select(c)] },
  {
    name: "a stream's second page unanswered",
    script: (n) => n.on({ query: "FROM ks.t" }, (req) => req.params?.pagingState ? { silence: true } : { body: rowsBody({ columns: [{ name: "a", type: "int" }], rows: [[cell.int(7)]], pagingState: Uint8Array.of(1) }) }),
    seen: (n) => n.userRequests().length > 1,
    calls: (c) => [(async () => {
      for await (const _ of c.stream("SELECT a FROM ks.t", [], { pageSize: 1 })) { /* the second page never comes */ }
    })()],
  },
];

for (const s of STALLS) {
  Deno.test(`shutdown while ${s.name}: every call settles with the shutdown error, nothing left open`, async () => {
    const node = await FakeNode.start({ auth: s.auth });
    s.script(node);
    const client = new Client({ contactPoints: [node.address], socketOptions: LONG, pooling: { heartBeatInterval: 0 }, ...s.client });
    try {
      if (!s.joining) await client.connect();
      const settled = s.calls(client).map((p) => p.then(() => null, (e: Error) => e));
      const until = Date.now() + 5000;
      while (!s.seen(node)) {
        ok(Date.now() < until, "the client never reached the stalled step");
        await new Promise((r) => setTimeout(r, 10));
      }
      await client.shutdown();
      // Bounded, so that a promise left pending fails the test instead of hanging it.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("a call was still pending 1 s after shutdown")), 1000)));
      const errors = await Promise.race([Promise.all(settled), late]).finally(() => clearTimeout(timer));
      for (const e of errors) {
        ok(e instanceof DriverError, `${(e as Error)?.name}: ${(e as Error)?.message}`);
        assertExact([e.name, e.code, e.message], ["DriverError", "ERR_SHUTDOWN", "the client was shut down"]);
      }
    } finally {
      await client.shutdown();
      await node.stop();
    }
  });
}
