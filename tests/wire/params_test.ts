/**
 * What the driver puts on the wire, read back by the fake node: consistency, serial
 * consistency, page size, paging state, default timestamp, keyspace and now (v5), flags,
 * values, batch type, tracing and custom-payload frame flags, on v4 and v5.
 */
import { assertExact } from "../exact.mjs";
import { cell, Consistency, Op, QueryFlag, rowsBody, utf8 } from "../fakenode/mod.ts";
import { withNode } from "./helpers.ts";

const F = QueryFlag;
const double1 = Uint8Array.of(0x3f, 0xf0, 0, 0, 0, 0, 0, 0);
const int = (n: number) => cell.int(n);

for (const version of [4, 5] as const) {
  Deno.test(`v${version} QUERY defaults: LOCAL_ONE, a page of 5000, no timestamp, no tracing or custom payload`, async () => {
    await withNode({ protocolVersion: version }, async (node, client) => {
      await client.execute("SELECT a FROM ks.t");
      const [r] = node.userRequests();
      assertExact(r.frameFlags, 0);
      assertExact(r.params, { consistency: Consistency.LOCAL_ONE, flags: F.PAGE_SIZE, values: [], skipMetadata: false, pageSize: 5000 });
    });
  });

  Deno.test(`v${version} QUERY options: consistency, serial, page size, paging state, timestamp, tracing`, async () => {
    await withNode({ protocolVersion: version }, async (node, client) => {
      await client.execute("SELECT a FROM ks.t WHERE k = ?", [1], {
        consistency: Consistency.LOCAL_QUORUM,
        serialConsistency: Consistency.LOCAL_SERIAL,
        pageSize: 123,
        pageState: "abcd",
        timestamp: 1234567890123456n,
        traceQuery: true,
      });
      const [r] = node.userRequests();
      assertExact(r.frameFlags, 0x02);
      assertExact(r.params, {
        consistency: Consistency.LOCAL_QUORUM,
        flags: F.VALUES | F.PAGE_SIZE | F.PAGING_STATE | F.SERIAL_CONSISTENCY | F.DEFAULT_TIMESTAMP,
        values: [double1],
        skipMetadata: false,
        pageSize: 123,
        pagingState: Uint8Array.of(0xab, 0xcd),
        serialConsistency: Consistency.LOCAL_SERIAL,
        timestamp: 1234567890123456n,
      });
    });
  });

  Deno.test(`v${version} client-wide consistency and fetch size are what goes out`, async () => {
    await withNode({ protocolVersion: version, client: { queryOptions: { consistency: Consistency.QUORUM, fetchSize: 77 } } }, async (node, client) => {
      await client.execute("SELECT a FROM ks.t");
      await client.execute("SELECT a FROM ks.t", [], { consistency: Consistency.ALL, fetchSize: 3 });
      assertExact(node.userRequests().map((r) => [r.params?.consistency, r.params?.pageSize]), [[Consistency.QUORUM, 77], [Consistency.ALL, 3]]);
    });
  });

  Deno.test(`v${version} EXECUTE: the prepared id, the bound int, skip_metadata once the result columns are known`, async () => {
    await withNode({ protocolVersion: version }, async (node, client) => {
      node.on({ opcode: Op.PREPARE }, (req) => ({
        body: preparedWithResult(req.query!, version),
      }));
      await client.execute("SELECT a FROM ks.t WHERE k = ?", [7], { prepare: true, consistency: Consistency.ONE });
      const [prepare, execute] = node.userRequests();
      assertExact([prepare.op, execute.op], ["PREPARE", "EXECUTE"]);
      assertExact(execute.id, "01020304");
      assertExact(execute.resultMetadataId, version >= 5 ? "0506" : undefined);
      assertExact(execute.params, {
        consistency: Consistency.ONE,
        flags: F.VALUES | F.SKIP_METADATA | F.PAGE_SIZE,
        values: [int(7)],
        skipMetadata: true,
        pageSize: 5000,
      });
    });
  });

  Deno.test(`v${version} BATCH: type, statements with their values, consistency, serial, timestamp`, async () => {
    await withNode({ protocolVersion: version }, async (node, client) => {
      await client.batch(
        [{ query: "INSERT INTO ks.t (a) VALUES (?)", params: [1] }, "DELETE FROM ks.t WHERE a = 2"],
        { logged: false, consistency: Consistency.QUORUM, serialConsistency: Consistency.SERIAL, timestamp: 5 },
      );
      await client.batch(["UPDATE ks.c SET n = n + 1 WHERE k = 1"], { counter: true });
      await client.batch(["INSERT INTO ks.t (a) VALUES (3)"]);
      const [unlogged, counter, logged] = node.sent("BATCH").map((r) => r.batch);
      assertExact(unlogged, {
        type: 1,
        statements: [
          { kind: "query", query: "INSERT INTO ks.t (a) VALUES (?)", values: [double1] },
          { kind: "query", query: "DELETE FROM ks.t WHERE a = 2", values: [] },
        ],
        consistency: Consistency.QUORUM,
        flags: F.SERIAL_CONSISTENCY | F.DEFAULT_TIMESTAMP,
        serialConsistency: Consistency.SERIAL,
        timestamp: 5n,
      });
      assertExact([counter?.type, logged?.type, logged?.consistency, logged?.flags], [2, 0, Consistency.LOCAL_ONE, 0]);
    });
  });

  Deno.test(`v${version} paging: the second request carries the first page's paging state`, async () => {
    await withNode({ protocolVersion: version }, async (node, client) => {
      node.on({ query: "FROM ks.t", nth: 1 }, {
        body: rowsBody({ columns: [{ name: "a", type: "int" }], rows: [[int(1)]], pagingState: utf8("page-2") }),
      });
      const rows = [];
      for await (const row of client.stream("SELECT a FROM ks.t", [], { pageSize: 1 })) rows.push(row);
      assertExact(rows.length, 1);
      assertExact(node.userRequests().map((r) => [r.params?.pageSize, r.params?.pagingState]), [[1, undefined], [1, utf8("page-2")]]);
    });
  });

  Deno.test(`v${version} no request carries a custom payload (the driver has no option for one)`, async () => {
    await withNode({ protocolVersion: version }, async (node, client) => {
      await client.execute("SELECT a FROM ks.t WHERE k = ?", [1], { prepare: true });
      await client.batch(["INSERT INTO ks.t (a) VALUES (3)"]);
      assertExact(node.requests.filter((r) => r.frameFlags & 0x04).map((r) => r.op), []);
      assertExact(node.requests.every((r) => r.customPayload === undefined), true);
    });
  });
}

Deno.test("v5 keyspace and now_in_seconds go out with their flags", async () => {
  await withNode({ protocolVersion: 5 }, async (node, client) => {
    await client.execute("SELECT a FROM t", [], { keyspace: "other", nowInSeconds: 42 });
    assertExact(node.userRequests()[0].params, {
      consistency: Consistency.LOCAL_ONE,
      flags: F.PAGE_SIZE | F.KEYSPACE | F.NOW_IN_SECONDS,
      values: [],
      skipMetadata: false,
      pageSize: 5000,
      keyspace: "other",
      nowInSeconds: 42,
    });
  });
});

Deno.test("v4 has no keyspace or now_in_seconds flags: none go out", async () => {
  await withNode({ protocolVersion: 4 }, async (node, client) => {
    await client.execute("SELECT a FROM t", [], { keyspace: "other", nowInSeconds: 42 });
    assertExact(node.userRequests()[0].params?.flags, F.PAGE_SIZE);
  });
});

Deno.test("the session keyspace goes out as USE on every connection, and STARTUP names the driver", async () => {
  await withNode({ protocolVersion: 5, client: { keyspace: "app", compression: "lz4" } }, async (node, client) => {
    await client.execute("SELECT a FROM t");
    assertExact(node.sent("QUERY").filter((r) => r.query?.startsWith("USE")).map((r) => [r.connection, r.query]), [[1, 'USE "app"']]);
    const startup = node.sent("STARTUP")[0].startup!;
    assertExact([startup.CQL_VERSION, startup.DRIVER_NAME, startup.COMPRESSION], ["3.0.0", "cqlwire", "lz4"]);
  });
});

/** A Prepared result with id 01020304 (v5 metadata id 0506), one int marker and one result column. */
function preparedWithResult(_query: string, version: number): Uint8Array {
  const w = [0, 0, 0, 4, 0, 4, 1, 2, 3, 4];
  if (version >= 5) w.push(0, 2, 5, 6);
  const text = (s: string) => [0, s.length, ...utf8(s)];
  // bind metadata: global spec, 1 column, 1 pk index (0), ks.t, k int
  w.push(0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, ...text("ks"), ...text("t"), ...text("k"), 0, 9);
  // result metadata: global spec, 1 column, ks.t, a int
  w.push(0, 0, 0, 1, 0, 0, 0, 1, ...text("ks"), ...text("t"), ...text("a"), 0, 9);
  return Uint8Array.from(w);
}
