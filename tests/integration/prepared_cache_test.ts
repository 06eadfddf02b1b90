/** `maxPrepared` bounds the prepared-statement cache, observed on the wire of a fake node. */
import { assertExact } from "../exact.mjs";
import { Op } from "../fakenode/mod.ts";
import { withNode } from "../wire/helpers.ts";

const QUERIES = ["SELECT a FROM ks.t1", "SELECT a FROM ks.t2", "SELECT a FROM ks.t3"];

async function preparesFor(client: Record<string, unknown>, sequence: string[]): Promise<string[]> {
  let prepared: string[] = [];
  await withNode({ client }, async (node, c) => {
    for (const q of sequence) await c.execute(q, [], { prepare: true });
    prepared = node.userRequests().filter((r) => r.opcode === Op.PREPARE).map((r) => String(r.query));
  });
  return prepared;
}

Deno.test("maxPrepared: 2 keeps two statements; the oldest is prepared again when used again", async () => {
  const sequence = [...QUERIES, QUERIES[2], QUERIES[0]];
  assertExact(await preparesFor({ maxPrepared: 2 }, sequence), [...QUERIES, QUERIES[0]]);
});

Deno.test("the default (500) prepares each statement once", async () => {
  assertExact(await preparesFor({}, [...QUERIES, ...QUERIES]), QUERIES);
});
