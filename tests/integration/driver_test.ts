/** The driver against the real local Cassandra: prepared and unprepared, paging, batches, errors. */
import { ArgumentError, NoHostAvailableError, ResponseError, types } from "../../driver/deno.ts";
import { CqlTypeError } from "../../driver/src/codec/mod.ts";
import { assert, assertEquals, assertRejects, client, KS, withKeyspace } from "./helpers.ts";

Deno.test("system.local answers with a 5.0 release", async () => {
  const c = client();
  try {
    await c.connect();
    const rs = await c.execute("SELECT release_version, cluster_name, data_center FROM system.local");
    const row = rs.first();
    assert(row, "one row");
    assert(String(row.release_version).startsWith("5.0."), `release ${row.release_version}`);
    assertEquals(rs.columns.map((c) => c.name), ["release_version", "cluster_name", "data_center"]);
    assertEquals(rs.columns[0].type, "text");
  } finally {
    await c.shutdown();
  }
});

Deno.test("insert with prepared and unprepared statements, read back equal", async () => {
  const c = client();
  try {
    await withKeyspace(c);
    await c.execute(`DROP TABLE IF EXISTS ${KS}.basic`);
    await c.execute(`CREATE TABLE ${KS}.basic (id int PRIMARY KEY, big bigint, name text, data blob, ok boolean, score double, uid uuid, at timestamp)`);
    const rows = [
      [1, 9223372036854775807n, "ascii", Uint8Array.of(0, 1, 2, 255), true, 1.5, "123e4567-e89b-12d3-a456-426614174000", new Date("2024-01-02T03:04:05.678Z")],
      [2, -9223372036854775808n, "émoji 🎉", new Uint8Array(0), false, -0.25, "00000000-0000-0000-0000-000000000000", new Date(-86400000)],
      [3, 0n, "", Uint8Array.of(7), true, Number.MAX_VALUE, "ffffffff-ffff-ffff-ffff-ffffffffffff", new Date(0)],
    ] as const;
    const insert = `INSERT INTO ${KS}.basic (id, big, name, data, ok, score, uid, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;
    // Row 1 prepared, rows 2 and 3 unprepared with type hints.
    await c.execute(insert, [...rows[0]], { prepare: true });
    const hints = ["int", "bigint", "text", "blob", "boolean", "double", "uuid", "timestamp"];
    await c.execute(insert, [...rows[1]], { hints });
    await c.execute(insert, [...rows[2]], { hints });
    for (const prepare of [true, false]) {
      const rs = await c.execute(`SELECT id, big, name, data, ok, score, uid, at FROM ${KS}.basic WHERE id IN (1, 2, 3)`, [], { prepare });
      const got = rs.rows.map((r) => [r.id, r.big, r.name, r.data, r.ok, r.score, r.uid, (r.at as Date).toISOString()]);
      const want = rows.map((r) => [...r.slice(0, 7), (r[7] as Date).toISOString()]);
      assertEquals(got, want, `prepare=${prepare}`);
    }
  } finally {
    await c.shutdown();
  }
});

Deno.test("paging: pageState, stream and eachPage see every row once", async () => {
  const c = client();
  try {
    await withKeyspace(c);
    await c.execute(`CREATE TABLE IF NOT EXISTS ${KS}.paged (p int, n int, PRIMARY KEY (p, n))`);
    await c.execute(`TRUNCATE ${KS}.paged`);
    const inserts = [];
    for (let n = 0; n < 250; n++) inserts.push(c.execute(`INSERT INTO ${KS}.paged (p, n) VALUES (?, ?)`, [1, n], { prepare: true }));
    await Promise.all(inserts);
    const first = await c.execute(`SELECT n FROM ${KS}.paged WHERE p = 1`, [], { prepare: true, pageSize: 100 });
    assertEquals(first.rows.length, 100);
    assert(first.pageState, "more pages");
    const second = await c.execute(`SELECT n FROM ${KS}.paged WHERE p = 1`, [], { prepare: true, pageSize: 100, pageState: first.pageState });
    assertEquals(second.rows[0].n, 100);
    const seen: number[] = [];
    for await (const row of c.stream(`SELECT n FROM ${KS}.paged WHERE p = ?`, [1], { prepare: true, pageSize: 64 })) seen.push(row.n as number);
    assertEquals(seen, Array.from({ length: 250 }, (_, i) => i));
    let pages = 0;
    await c.eachPage(`SELECT n FROM ${KS}.paged WHERE p = 1`, [], { prepare: true, pageSize: 100 }, () => void pages++);
    assertEquals(pages, 3);
  } finally {
    await c.shutdown();
  }
});

Deno.test("batch: logged with prepared and unprepared statements", async () => {
  const c = client();
  try {
    await withKeyspace(c);
    await c.execute(`CREATE TABLE IF NOT EXISTS ${KS}.kv (k text PRIMARY KEY, v int)`);
    await c.batch([
      { query: `INSERT INTO ${KS}.kv (k, v) VALUES (?, ?)`, params: ["a", 1] },
      { query: `INSERT INTO ${KS}.kv (k, v) VALUES (?, ?)`, params: ["b", 2] },
    ], { prepare: true });
    await c.batch([`INSERT INTO ${KS}.kv (k, v) VALUES ('c', 3)`], { logged: false });
    const rs = await c.execute(`SELECT k, v FROM ${KS}.kv WHERE k IN ('a', 'b', 'c')`);
    assertEquals(rs.rows.map((r) => [r.k, r.v]).sort(), [["a", 1], ["b", 2], ["c", 3]]);
  } finally {
    await c.shutdown();
  }
});

Deno.test("server errors are ResponseError with the protocol's fields", async () => {
  const c = client();
  try {
    const syntax = await assertRejects(() => c.execute("SELEC nonsense"), (e) => e instanceof ResponseError, "syntax");
    assertEquals((syntax as ResponseError).code, 0x2000);
    assertEquals((syntax as ResponseError).codeName, "SyntaxError");
    const invalid = await assertRejects(() => c.execute("SELECT * FROM no_such_ks.t"), (e) => e instanceof ResponseError, "invalid");
    assertEquals((invalid as ResponseError).codeName, "Invalid");
    await withKeyspace(c);
    const exists = await assertRejects(
      () => c.execute(`CREATE KEYSPACE ${KS} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`),
      (e) => e instanceof ResponseError,
      "exists",
    ) as ResponseError;
    assertEquals([exists.codeName, exists.keyspace], ["AlreadyExists", KS]);
    await c.execute(`CREATE TABLE IF NOT EXISTS ${KS}.kv (k text PRIMARY KEY, v int)`);
    await assertRejects(() => c.execute(`INSERT INTO ${KS}.kv (k, v) VALUES (?, ?)`, ["x"], { prepare: true }), (e) => e instanceof ArgumentError && /2 bind marker/.test(e.message), "arity");
    const typeError = await assertRejects(
      () => c.execute(`INSERT INTO ${KS}.kv (k, v) VALUES (?, ?)`, ["x", "not an int"], { prepare: true }),
      (e) => e instanceof CqlTypeError,
      "type",
    ) as CqlTypeError;
    assertEquals(
      [typeError.code, typeError.cqlType, typeError.value, typeError.message],
      ["ERR_CQL_TYPE", "int", "\"not an int\"", 'cannot encode "not an int" as int: expected a number, got a string'],
    );
    // The connection survives all of that.
    assertEquals((await c.execute("SELECT key FROM system.local")).rows.length, 1);
  } finally {
    await c.shutdown();
  }
});

Deno.test("no server: NoHostAvailableError from the refused connection (not from a timeout)", async () => {
  const c = client({ contactPoints: ["127.0.0.1:1"] });
  const refused = "could not connect: Connection refused (os error 111) (host 127.0.0.1:1)";
  const e = await assertRejects(() => c.connect(), (e) => e instanceof NoHostAvailableError, "no host") as NoHostAvailableError;
  assertEquals([e.code, e.message], ["ERR_NO_HOST", `All host(s) tried for query failed: 127.0.0.1:1: ${refused}`]);
  const inner = e.innerErrors["127.0.0.1:1"];
  assertEquals([Object.keys(e.innerErrors), inner?.name, (inner as { code?: string })?.code, inner?.message], [
    ["127.0.0.1:1"],
    "ConnectionError",
    "ERR_CONNECTION",
    refused,
  ]);
  await c.shutdown();
});

Deno.test("options are validated and the bad field is named", () => {
  try {
    client({ contactPoints: [], pooling: { coreConnectionsPerHost: 0 } });
    throw new Error("expected a throw");
  } catch (e) {
    assert(e instanceof ArgumentError, String(e));
    assert(/contactPoints/.test((e as Error).message) && /pooling\.coreConnectionsPerHost/.test((e as Error).message), (e as Error).message);
  }
});

Deno.test("keyspace option and consistency", async () => {
  const c = client({ keyspace: KS });
  try {
    // Its own table and row: no test reads what another wrote.
    await withKeyspace(c);
    await c.execute(`CREATE TABLE IF NOT EXISTS ${KS}.keyspace_option (k text PRIMARY KEY, v int)`);
    await c.execute("INSERT INTO keyspace_option (k, v) VALUES (?, ?)", ["a", 1], { prepare: true });
    const rs = await c.execute("SELECT k, v FROM keyspace_option WHERE k = ?", ["a"], { prepare: true, consistency: types.consistencies.one });
    assertEquals(rs.first()?.v, 1);
  } finally {
    await c.shutdown();
  }
});

Deno.test("prepare() describes the markers, getToken() agrees with the server's token()", async () => {
  const c = client();
  try {
    await withKeyspace(c);
    await c.execute(`CREATE TABLE IF NOT EXISTS ${KS}.tokens (a int, b text, c int, PRIMARY KEY ((a, b), c))`);
    const insert = `INSERT INTO ${KS}.tokens (a, b, c) VALUES (?, ?, ?)`;
    const info = await c.prepare(insert);
    assertEquals(info.columns.map((c) => `${c.name}:${c.type}`), ["a:int", "b:text", "c:int"]);
    assertEquals(info.partitionKeyIndexes, [0, 1]);
    for (const [a, b] of [[1, "x"], [-5, "émoji 🎉"], [2147483647, ""]] as const) {
      await c.execute(insert, [a, b, 0], { prepare: true });
      const server = (await c.execute(`SELECT token(a, b) AS t FROM ${KS}.tokens WHERE a = ? AND b = ?`, [a, b], { prepare: true })).first()?.t;
      assertEquals(await c.getToken(insert, [a, b, 0]), server, `token of (${a}, ${b})`);
    }
  } finally {
    await c.shutdown();
  }
});

Deno.test("an injected socket carries the session; tiny write caps and a coalescing window still work", async () => {
  const { denoSocketFactory } = await import("../../driver/transport/deno.ts");
  let written = 0;
  let writes = 0;
  const c = client({
    socketFactory: async (target: Parameters<typeof denoSocketFactory>[0], handlers: Parameters<typeof denoSocketFactory>[1]) => {
      const inner = await denoSocketFactory(target, handlers);
      return {
        write(data: Uint8Array) {
          written += data.length;
          writes++;
          return inner.write(data);
        },
        close: () => inner.close(),
      };
    },
    socketOptions: { coalescingMaxBytes: 1024, coalescingWindowMicros: 2000 },
  });
  try {
    await withKeyspace(c);
    await c.execute(`CREATE TABLE IF NOT EXISTS ${KS}.injected (k int PRIMARY KEY, v text)`);
    const big = "x".repeat(10_000);
    await Promise.all(Array.from({ length: 50 }, (_, i) => c.execute(`INSERT INTO ${KS}.injected (k, v) VALUES (?, ?)`, [i, big], { prepare: true })));
    assertEquals((await c.execute(`SELECT count(*) FROM ${KS}.injected`)).first()?.count, 50n);
    assert(written > 500_000 && writes > 400, `bytes ${written} in ${writes} writes of at most 1 KiB`);
  } finally {
    await c.shutdown();
  }
});
