/** Protocol features against the real server: v5 metadata ids, re-preparation, per-request keyspace, tracing, warnings. */
import { assert, assertEquals, client, KS, withKeyspace } from "./helpers.ts";

Deno.test("v5: a prepared SELECT follows a schema change through the new result metadata id", async () => {
  const c = client({ protocolVersion: 5 });
  try {
    await withKeyspace(c);
    await c.execute(`DROP TABLE IF EXISTS ${KS}.evolving`);
    await c.execute(`CREATE TABLE ${KS}.evolving (k int PRIMARY KEY, a text)`);
    await c.execute(`INSERT INTO ${KS}.evolving (k, a) VALUES (1, 'x')`);
    const select = `SELECT * FROM ${KS}.evolving WHERE k = ?`;
    assertEquals((await c.execute(select, [1], { prepare: true })).columns.map((c) => c.name), ["k", "a"]);
    await c.execute(`ALTER TABLE ${KS}.evolving ADD b int`);
    await c.execute(`UPDATE ${KS}.evolving SET b = 7 WHERE k = 1`);
    const rs = await c.execute(select, [1], { prepare: true });
    assertEquals(rs.columns.map((c) => c.name), ["k", "a", "b"]);
    assertEquals(rs.first(), { k: 1, a: "x", b: 7 });
  } finally {
    await c.shutdown();
  }
});

Deno.test("UNPREPARED after the table is recreated: re-prepared transparently", async () => {
  const c = client();
  try {
    await withKeyspace(c);
    await c.execute(`DROP TABLE IF EXISTS ${KS}.recreated`);
    await c.execute(`CREATE TABLE ${KS}.recreated (k int PRIMARY KEY, v text)`);
    const insert = `INSERT INTO ${KS}.recreated (k, v) VALUES (?, ?)`;
    await c.execute(insert, [1, "before"], { prepare: true });
    await c.execute(`DROP TABLE ${KS}.recreated`);
    await c.execute(`CREATE TABLE ${KS}.recreated (k int PRIMARY KEY, v text)`);
    await c.execute(insert, [2, "after"], { prepare: true });
    assert(Number(c.getMetrics().core.reprepares) >= 1, `the core re-prepared: ${JSON.stringify(c.getMetrics().core)}`);
    assertEquals((await c.execute(`SELECT v FROM ${KS}.recreated WHERE k = 2`)).first()?.v, "after");
  } finally {
    await c.shutdown();
  }
});

Deno.test("v5: keyspace per request and now-in-seconds", async () => {
  const c = client({ protocolVersion: 5 });
  try {
    await withKeyspace(c);
    await c.execute(`CREATE TABLE IF NOT EXISTS ${KS}.per_request (k int PRIMARY KEY, v int)`);
    await c.execute(`INSERT INTO per_request (k, v) VALUES (1, 1) USING TTL 100`, [], { keyspace: KS });
    const rs = await c.execute(`SELECT v, TTL(v) AS ttl FROM per_request WHERE k = 1`, [], { keyspace: KS, nowInSeconds: Math.floor(Date.now() / 1000) });
    assertEquals(rs.first()?.v, 1);
    assert(Number(rs.first()?.ttl) <= 100, "ttl read");
  } finally {
    await c.shutdown();
  }
});

Deno.test("tracing id and server warnings reach the ResultSet", async () => {
  const c = client();
  try {
    await withKeyspace(c);
    await c.execute(`CREATE TABLE IF NOT EXISTS ${KS}.warned (p int, c int, PRIMARY KEY (p, c))`);
    const traced = await c.execute(`SELECT * FROM ${KS}.warned WHERE p = 1`, [], { traceQuery: true });
    assert(traced.info.traceId && /^[0-9a-f-]{36}$/.test(traced.info.traceId), `trace id ${traced.info.traceId}`);
    // An unlogged batch across many partitions draws a server warning.
    const queries = Array.from({ length: 20 }, (_, i) => ({ query: `INSERT INTO ${KS}.warned (p, c) VALUES (?, 0)`, params: [i] }));
    const rs = await c.batch(queries, { prepare: true, logged: false });
    assert(rs.info.warnings.length > 0 && /partition/i.test(rs.info.warnings[0]), `warnings ${JSON.stringify(rs.info.warnings)}`);
  } finally {
    await c.shutdown();
  }
});

Deno.test("counter batches, and lightweight transactions with serial consistency", async () => {
  const c = client();
  try {
    await withKeyspace(c);
    await c.execute(`CREATE TABLE IF NOT EXISTS ${KS}.hits (page text PRIMARY KEY, n counter)`);
    await c.execute(`TRUNCATE ${KS}.hits`);
    await c.batch([
      { query: `UPDATE ${KS}.hits SET n = n + ? WHERE page = ?`, params: [3n, "a"] },
      { query: `UPDATE ${KS}.hits SET n = n + ? WHERE page = ?`, params: [4n, "b"] },
    ], { prepare: true, counter: true });
    const hits = (await c.execute(`SELECT page, n FROM ${KS}.hits`)).rows.map((r) => [r.page, r.n]).sort();
    assertEquals(hits, [["a", 3n], ["b", 4n]]);

    await c.execute(`CREATE TABLE IF NOT EXISTS ${KS}.accounts (id int PRIMARY KEY, owner text)`);
    await c.execute(`DELETE FROM ${KS}.accounts WHERE id = 1`);
    const lwt = `INSERT INTO ${KS}.accounts (id, owner) VALUES (?, ?) IF NOT EXISTS`;
    const first = await c.execute(lwt, [1, "ada"], { prepare: true, serialConsistency: 9 /* LOCAL_SERIAL */ });
    assertEquals(first.first()?.["[applied]"], true);
    const second = await c.execute(lwt, [1, "alan"], { prepare: true, serialConsistency: 9 });
    assertEquals([second.first()?.["[applied]"], second.first()?.owner], [false, "ada"]);
  } finally {
    await c.shutdown();
  }
});
