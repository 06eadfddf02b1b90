/** Cases the whole-client fuzzer (tests/hostile/fuzz) found, each with the seed that found it. */
import { ok } from "node:assert/strict";
import { encodeEnvelope, FakeNode, Op } from "../../fakenode/mod.ts";
import { defaultPrepared } from "../../fakenode/defaults.ts";
import type { HostileCase } from "../harness.ts";
import { clientOn, rejection } from "./common.ts";

/** Fails the case when `p` has not settled within `ms`: the defect was a promise that never did. */
async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms)));
  try {
    return await Promise.race([p, hang]);
  } finally {
    clearTimeout(timer);
  }
}

const REPREPARE_CASES: HostileCase[] = [4, 5].map((version) => ({
  // Seed 46: the node forgets every statement it prepares (each EXECUTE is Unprepared), and
  // the answer to the first re-prepare comes with an unsolicited copy on a stream nobody used,
  // so that connection closes with the EXECUTE about to move elsewhere. The re-prepare was left
  // among the request's executions, and its last failure waited on it forever.
  name: `v${version}: a re-prepare answered as the connection closes, on a node that forgets its statements`,
  async run(bundle) {
    const node = await FakeNode.start();
    let prepares = 0;
    node.on({ opcode: Op.PREPARE }, (req, ctx) => {
      const result = (stream: number) =>
        encodeEnvelope({ versionByte: 0x80 | req.version, flags: 0, stream, opcode: Op.RESULT, body: defaultPrepared(req.query ?? "", req.version) });
      const conn = node.connections.find((c) => c.id === ctx.connection);
      conn?.sendEnvelope(result(req.stream));
      if (++prepares === 2) conn?.sendEnvelope(result(req.stream + 7));
      return { silence: true };
    });
    const { client } = clientOn(bundle, [node], { protocolVersion: version });
    try {
      await client.connect();
      const e = await within(rejection(client.execute("SELECT a FROM ks.t WHERE a = ?", [1], { prepare: true })), 10000, "the EXECUTE");
      ok(e instanceof bundle.ResponseError, `expected the server's Unprepared, got ${e?.name}: ${e?.message}`);
      ok(e.code === 0x2500, `expected Unprepared (0x2500), got ${e.code}: ${e.message}`);
    } finally {
      await client.shutdown();
      await node.stop();
    }
  },
}));

/**
 * Seed 5723: the only node refuses system.local with a server error (Overloaded). The session
 * goes on without that row, and it used to drop the very node it talks to (no rack): every
 * request then waited out its plan restarts (~13 s) and failed with NoHostAvailable.
 */
const REFUSED_LOCAL_CASE: HostileCase = {
  name: "v5: the only node refuses system.local (Overloaded): requests are still served by it",
  async run(bundle) {
    const node = await FakeNode.start();
    node.on({ query: /FROM system\.local/ }, { error: { code: 0x1001, message: "overloaded" } });
    const { client } = clientOn(bundle, [node]);
    try {
      await client.connect();
      const before = node.userRequests().length;
      await within(client.execute("SELECT a FROM ks.t"), 5000, "a query to the one node");
      ok(node.userRequests().length === before + 1, "the query did not reach the node");
    } finally {
      await client.shutdown();
      await node.stop();
    }
  },
};

export const FUZZ_CASES: HostileCase[] = [...REPREPARE_CASES, REFUSED_LOCAL_CASE];
