/**
 * The rows of issue #15's table on cqlwire's own API, against the real Cassandra: what code
 * written for the DataStax driver relies on without any compatibility option.
 */
import { DriverError, NoHostAvailableError, NotSupportedError, OperationTimedOutError, ResponseError, TimeUuid, types, Uuid } from "../../driver/deno.ts";
import { ArgumentError } from "../../driver/deno.ts";
import { assert, assertEquals, assertRejects, client } from "./helpers.ts";

const KS = "compat_parity";

async function withTable(body: (c: ReturnType<typeof client>) => Promise<void>, extra: Record<string, unknown> = {}): Promise<void> {
  const c = client(extra);
  try {
    await c.execute(`CREATE KEYSPACE IF NOT EXISTS ${KS} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
    await c.execute(`CREATE TABLE IF NOT EXISTS ${KS}.kv (k int, c int, v text, w text, PRIMARY KEY (k, c))`);
    await body(c);
  } finally {
    await c.shutdown();
  }
}

for (const prepare of [true, false]) {
  Deno.test(`undefined leaves the column unset, null deletes it (prepare: ${prepare})`, () =>
    withTable(async (c) => {
      const k = prepare ? 1 : 2;
      await c.execute(`INSERT INTO ${KS}.kv (k, c, v, w) VALUES (?, ?, ?, ?)`, [k, 0, "kept", "kept"], { prepare, hints: ["int", "int", "text", "text"] });
      await c.execute(`UPDATE ${KS}.kv SET v = ?, w = ? WHERE k = ? AND c = ?`, [undefined, null, k, 0], { prepare, hints: ["text", "text", "int", "int"] });
      const rs = await c.execute(`SELECT v, w FROM ${KS}.kv WHERE k = ? AND c = ?`, [k, 0], { prepare, hints: ["int", "int"] });
      assertEquals(rs.rows, [{ v: "kept", w: null }]);
    }));
}

Deno.test("encoding.useUndefinedAsUnset: false binds undefined as null", () =>
  withTable(async (c) => {
    await c.execute(`INSERT INTO ${KS}.kv (k, c, v) VALUES (3, 0, 'before')`);
    await c.execute(`UPDATE ${KS}.kv SET v = ? WHERE k = 3 AND c = 0`, [undefined], { prepare: true });
    assertEquals((await c.execute(`SELECT v FROM ${KS}.kv WHERE k = 3 AND c = 0`)).rows, [{ v: null }]);
  }, { encoding: { useUndefinedAsUnset: false } }));

for (const prepare of [true, false]) {
  Deno.test(`for await over a ResultSet fetches every page (fetchSize 10, 26 rows, prepare: ${prepare})`, () =>
    withTable(async (c) => {
      for (let i = 0; i < 26; i++) await c.execute(`INSERT INTO ${KS}.kv (k, c, v) VALUES (10, ?, ?)`, [i, `r${i}`], { prepare: true });
      const rs = await c.execute(`SELECT c, v FROM ${KS}.kv WHERE k = ?`, [10], { prepare, fetchSize: 10, hints: ["int"] });
      assertEquals(rs.rowLength, 10);
      const seen: unknown[] = [];
      for await (const row of rs) seen.push(row.c);
      assertEquals(seen, Array.from({ length: 26 }, (_, i) => i));
      // The synchronous iterator stays the first page, as in the DataStax driver.
      assertEquals([...rs].length, 10);
    }));
}

Deno.test("wasApplied() on conditional statements, true on plain ones", () =>
  withTable(async (c) => {
    await c.execute(`DELETE FROM ${KS}.kv WHERE k = 20`);
    const first = await c.execute(`INSERT INTO ${KS}.kv (k, c, v) VALUES (20, 0, 'a') IF NOT EXISTS`);
    const second = await c.execute(`INSERT INTO ${KS}.kv (k, c, v) VALUES (20, 0, 'b') IF NOT EXISTS`);
    const plain = await c.execute(`INSERT INTO ${KS}.kv (k, c, v) VALUES (21, 0, 'a')`);
    assertEquals([first.wasApplied(), second.wasApplied(), plain.wasApplied()], [true, false, true]);
    assertEquals(second.rows[0].v, "a");
  }));

Deno.test("Uuid.random() and TimeUuid.now()/fromDate/min/max round-trip through Cassandra", () =>
  withTable(async (c) => {
    await c.execute(`CREATE TABLE IF NOT EXISTS ${KS}.ids (k int, t timeuuid, u uuid, PRIMARY KEY (k, t))`);
    await c.execute(`DELETE FROM ${KS}.ids WHERE k = 1`);
    const u = Uuid.random();
    assert(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(u.toString()), `random is v4: ${u}`);
    const at = new Date("2024-03-04T05:06:07.890Z");
    const t = TimeUuid.fromDate(at, 1234);
    assertEquals(t.getDatePrecision().date.toISOString(), at.toISOString());
    assertEquals(t.getDatePrecision().ticks, 1234);
    const now = [TimeUuid.now(), TimeUuid.now()];
    assert(now[0].toString() !== now[1].toString(), "two now() in one ms differ");
    for (const x of [t, ...now]) await c.execute(`INSERT INTO ${KS}.ids (k, t, u) VALUES (1, ?, ?)`, [x, u], { prepare: true });
    const rs = await c.execute(`SELECT t, u, toTimestamp(t) AS ts FROM ${KS}.ids WHERE k = 1 AND t = ?`, [t], { prepare: true });
    assertEquals(rs.rows.map((r) => [r.t, r.u, (r.ts as Date).toISOString()]), [[t.toString(), u.toString(), at.toISOString()]]);
    // min/max bracket exactly the rows of their millisecond.
    const inRange = await c.execute(`SELECT t FROM ${KS}.ids WHERE k = 1 AND t >= ? AND t <= ?`, [TimeUuid.min(at, 0), TimeUuid.max(at, 9999)], { prepare: true });
    assertEquals(inRange.rows.map((r) => r.t), [t.toString()]);
    assertEquals(types.TimeUuid, TimeUuid);
    assertEquals(TimeUuid.fromString(t.toString()).equals(t), true);
  }));

Deno.test("every error extends DriverError; ResponseError.code is a responseErrorCodes value", async () => {
  await withTable(async (c) => {
    const syntax = await assertRejects(() => c.execute("SELEC 1"), (e) => e instanceof ResponseError && e instanceof DriverError, "syntax");
    assertEquals((syntax as ResponseError).code, types.responseErrorCodes.syntaxError);
    const invalid = await assertRejects(() => c.execute("SELECT * FROM compat_parity.no_such"), (e) => e instanceof ResponseError, "invalid");
    assertEquals((invalid as ResponseError).code, types.responseErrorCodes.invalid);
    const exists = await assertRejects(() => c.execute(`CREATE TABLE ${KS}.kv (k int PRIMARY KEY)`), (e) => e instanceof ResponseError, "exists");
    assertEquals((exists as ResponseError).code, types.responseErrorCodes.alreadyExists);
    await assertRejects(() => c.execute(""), (e) => e instanceof ArgumentError && e instanceof DriverError, "argument");
    // A live timeout is a race with the server; the fake-node suite (tests/hostile) times out
    // on the wire. Here: the class and its host field.
    const timedOut = new OperationTimedOutError("no response within 1 ms", "127.0.0.1:9042");
    assert(timedOut instanceof DriverError, "OperationTimedOutError extends DriverError");
    assertEquals(timedOut.host, "127.0.0.1:9042");
  });
  const down = client({ contactPoints: ["127.0.0.1:1"], socketOptions: { connectTimeout: 2000, readTimeout: 2000 } });
  try {
    const e = await assertRejects(() => down.connect(), (e) => e instanceof NoHostAvailableError && e instanceof DriverError, "no host");
    assertEquals(Object.keys((e as NoHostAvailableError).innerErrors), ["127.0.0.1:1"]);
    assert(Object.values((e as NoHostAvailableError).innerErrors).every((x) => x instanceof DriverError), "inner errors are DriverErrors");
  } finally {
    await down.shutdown();
  }
  assert(new NotSupportedError("graph") instanceof DriverError, "NotSupportedError");
});

Deno.test("client.metadata: keyspaces, getTable, getUdt, refreshKeyspace, getReplicas, getTokenRanges", () =>
  withTable(async (c) => {
    await c.execute(`CREATE TYPE IF NOT EXISTS ${KS}.addr (street text, zip int)`);
    await c.execute(`CREATE TABLE IF NOT EXISTS ${KS}.meta (a int, b text, c timeuuid, d frozen<addr>, e map<text, frozen<list<int>>>, s int static, PRIMARY KEY ((a, b), c)) WITH CLUSTERING ORDER BY (c DESC) AND comment = 'for compat'`);
    assertEquals(await c.metadata.getTable(KS, "no_such"), null);
    const t = await c.metadata.getTable(KS, "meta");
    assert(t, "table metadata");
    assertEquals(t.partitionKeys.map((k) => k.name), ["a", "b"]);
    assertEquals(t.clusteringKeys.map((k) => k.name), ["c"]);
    assertEquals(t.clusteringOrder, ["DESC"]);
    assertEquals(t.comment, "for compat");
    assertEquals(t.columnsByName.s.isStatic, true);
    assertEquals(t.columnsByName.c.type, { code: types.dataTypes.timeuuid, info: null });
    assertEquals(t.columnsByName.e.type, { code: types.dataTypes.map, info: [{ code: types.dataTypes.varchar, info: null }, { code: types.dataTypes.list, info: { code: types.dataTypes.int, info: null } }] });
    assertEquals(t.columnsByName.d.type, {
      code: types.dataTypes.udt,
      info: { keyspace: KS, name: "addr", fields: [{ name: "street", type: { code: types.dataTypes.varchar, info: null } }, { name: "zip", type: { code: types.dataTypes.int, info: null } }] },
    });
    assertEquals(await c.metadata.getUdt(KS, "addr"), t.columnsByName.d.type.info);
    await c.metadata.refreshKeyspaces();
    assertEquals(c.metadata.keyspaces[KS].strategy, "SimpleStrategy");
    assertEquals(c.metadata.keyspaces[KS].strategyOptions, { replication_factor: "1" });
    assert(c.metadata.keyspaces.system_schema !== undefined, "every keyspace is listed");
    assertEquals((await c.metadata.refreshKeyspace(KS))?.name, KS);
    assertEquals(await c.metadata.refreshKeyspace("compat_no_such"), null);
    const ranges = await c.metadata.getTokenRanges(KS);
    assert(ranges.length > 0, "token ranges");
    assertEquals(await c.metadata.getReplicas(KS, 42n), ["127.0.0.1:9042"]);
  }));

Deno.test("tokenOfRoutingKey: the server's token() of a single and of a composite partition key", () =>
  withTable(async (c) => {
    await c.execute(`CREATE TABLE IF NOT EXISTS ${KS}.composite (a int, b text, v int, PRIMARY KEY ((a, b)))`);
    const int = (n: number) => {
      const out = new Uint8Array(4);
      new DataView(out.buffer).setInt32(0, n);
      return out;
    };
    for (const [a, b] of [[0, ""], [1, "x"], [-7, "long key text, to leave one Murmur3 block"], [2147483647, "é"]] as const) {
      await c.execute(`INSERT INTO ${KS}.kv (k, c, v) VALUES (?, 0, 'r')`, [a], { prepare: true });
      await c.execute(`INSERT INTO ${KS}.composite (a, b, v) VALUES (?, ?, 0)`, [a, b], { prepare: true });
      const single = (await c.execute(`SELECT token(k) AS t FROM ${KS}.kv WHERE k = ?`, [a], { prepare: true })).first()?.t;
      assertEquals(c.tokenOfRoutingKey(int(a)), single, `token(k) for k = ${a}`);
      assertEquals(c.tokenOfRoutingKey([int(a)]), single, `a one-component key is the key itself (k = ${a})`);
      const both = (await c.execute(`SELECT token(a, b) AS t FROM ${KS}.composite WHERE a = ? AND b = ?`, [a, b], { prepare: true })).first()?.t;
      assertEquals(c.tokenOfRoutingKey([int(a), new TextEncoder().encode(b)]), both, `token(a, b) for (${a}, "${b}")`);
    }
    const e = await assertRejects(async () => c.tokenOfRoutingKey([] as Uint8Array[]), (e) => e instanceof ArgumentError);
    assertEquals(e.message, "a routing key is a Uint8Array/Buffer or a non-empty array of them");
  }));
