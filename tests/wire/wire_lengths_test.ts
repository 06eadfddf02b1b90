/**
 * `client.measureWireLengths()`: each result and each failed request's error carries the
 * lengths of the request's and the response's frame bodies (what DataStax's request trackers
 * are told), compared with the bodies the fake node received and sent. Without the call,
 * nothing is measured.
 */
import { assertExact } from "../exact.mjs";
import { Op, rowsBody } from "../fakenode/mod.ts";
import { withNode } from "./helpers.ts";

const ROWS = rowsBody({ columns: [{ name: "k", type: "int" }], rows: [[new Uint8Array([0, 0, 0, 7])]] });

for (const version of [4, 5] as const) {
  Deno.test(`v${version}: results and errors carry the request's and response's frame body lengths`, async () => {
    await withNode({ protocolVersion: version }, async (node, client) => {
      node.on({ opcode: Op.QUERY, query: "SELECT k FROM ks.t" }, { body: ROWS });
      node.on({ opcode: Op.QUERY, query: "SELECT fails" }, { error: { code: 0x2200, message: "no" } });
      await client.connect();
      client.measureWireLengths();
      const bodyOf = (query: string) => node.userRequests().filter((r) => r.query === query).at(-1)!.body.length;

      const rs = await client.execute("SELECT k FROM ks.t WHERE k = ?", [7], { hints: ["int"] });
      assertExact(rs.wireLengths, { request: bodyOf("SELECT k FROM ks.t WHERE k = ?"), response: ROWS.length });

      const prepared = await client.execute("INSERT INTO ks.t (k) VALUES (?)", [1], { prepare: true });
      // A Void result: its kind, 4 bytes.
      assertExact(prepared.wireLengths, { request: bodyOf("INSERT INTO ks.t (k) VALUES (?)"), response: 4 });

      const batch = await client.batch([{ query: "INSERT INTO ks.t (k) VALUES (2)" }]);
      const sent = node.userRequests().filter((r) => r.opcode === Op.BATCH).at(-1)!.body.length;
      assertExact(batch.wireLengths, { request: sent, response: 4 });

      const err = await client.execute("SELECT fails").catch((e: Error) => e);
      assertExact(err.wireLengths, { request: bodyOf("SELECT fails"), response: 0 });
    });
  });
}

Deno.test("without measureWireLengths nothing is measured", async () => {
  await withNode({}, async (_node, client) => {
    await client.connect();
    const rs = await client.execute("INSERT INTO ks.t (k) VALUES (?)", [1], { prepare: true });
    assertExact(rs.wireLengths, undefined);
  });
});
