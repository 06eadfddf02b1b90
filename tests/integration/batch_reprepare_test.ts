/**
 * A prepared BATCH after the server forgot its statements: Cassandra drops the prepared
 * statements of a table when the table is dropped, so after DROP TABLE + CREATE TABLE with the
 * same schema the statements' ids (the same text hashes to the same id) are UNPREPARED there.
 * The core prepares each statement the error names again and sends the batch again.
 */
import { assertEquals, client } from "./helpers.ts";
import type { Client } from "../../driver/deno.ts";

const KS = "batchreprep_ks";
const TABLE = `${KS}.recreated`;
const SCHEMA = `CREATE TABLE ${TABLE} (k int PRIMARY KEY, v text)`;

function reprepares(c: Client): number {
  return Number(c.getMetrics().core.reprepares ?? 0);
}

Deno.test("a prepared batch whose statements the server forgot is prepared again and written", async () => {
  const c = client();
  try {
    await c.execute(`CREATE KEYSPACE IF NOT EXISTS ${KS} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
    await c.execute(`DROP TABLE IF EXISTS ${TABLE}`);
    await c.execute(SCHEMA);
    const insert = `INSERT INTO ${TABLE} (k, v) VALUES (?, ?)`;
    const insertTtl = `INSERT INTO ${TABLE} (k, v) VALUES (?, ?) USING TTL 3600`;
    const select = `SELECT v FROM ${TABLE} WHERE k = ?`;
    // All three prepared (and cached by the client) before the table goes.
    await c.batch([{ query: insert, params: [1, "a"] }, { query: insertTtl, params: [2, "b"] }], { prepare: true });
    assertEquals((await c.execute(select, [1], { prepare: true })).first()?.v, "a");
    assertEquals(reprepares(c), 0);

    await c.execute(`DROP TABLE ${TABLE}`);
    await c.execute(SCHEMA);
    // The server forgot the table's statements: a plain EXECUTE of the SELECT is answered
    // UNPREPARED, which the core answers with one re-preparation.
    assertEquals((await c.execute(select, [1], { prepare: true })).rows.length, 0);
    assertEquals(reprepares(c), 1);

    // Both inserts are lost: the batch needs two re-preparations, one per statement.
    await c.batch(
      [{ query: insert, params: [3, "c"] }, { query: insertTtl, params: [4, "d"] }, { query: insert, params: [5, "e"] }],
      { prepare: true },
    );
    assertEquals(reprepares(c), 3);
    const rows = (await c.execute(`SELECT k, v FROM ${TABLE}`)).rows.map((r) => [r.k, r.v]).sort();
    assertEquals(rows, [[3, "c"], [4, "d"], [5, "e"]]);
  } finally {
    await c.shutdown();
  }
});
