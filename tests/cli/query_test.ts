// `runStatement` (cqlwire query) against the real local Cassandra: every value is formatted
// by the core, pages are fetched in order, --max-rows asks for no more rows than it prints,
// and tracing is asked for on the first page only (observed in the server's own trace
// sessions).
import { Client } from "../../driver/deno.ts";
import { MemoryOutput } from "../../cli/output.ts";
import { runStatement } from "../../cli/query.ts";
import { assert, assertEquals } from "./assert.ts";

const KEYSPACE = "cqlwire_cli_query";
const TABLE = `${KEYSPACE}.q_${Date.now().toString(36)}`;

async function withTable(body: (client: Client) => Promise<void>): Promise<void> {
  const client = new Client({ contactPoints: ["127.0.0.1:9042"], localDataCenter: "datacenter1" });
  try {
    await client.execute(`CREATE KEYSPACE IF NOT EXISTS ${KEYSPACE} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
    await client.execute(`CREATE TABLE ${TABLE} (p int, k bigint, d double, l list<text>, m map<int, text>, b blob, PRIMARY KEY (p, k))`);
    for (let k = 0; k < 23; k++) {
      await client.execute(
        `INSERT INTO ${TABLE} (p, k, d, l, m, b) VALUES (1, ?, ?, ?, ?, ?)`,
        [BigInt(k) * 10n ** 17n, k === 0 ? NaN : k === 1 ? -0 : k / 4, k === 2 ? null : [`a"${k}`, "b\nc"], new Map([[k, "x,y"]]), new Uint8Array([k, 255])],
        { prepare: true },
      );
    }
    await body(client);
  } finally {
    await client.execute(`DROP TABLE IF EXISTS ${TABLE}`).catch(() => {});
    await client.shutdown();
  }
}

Deno.test("query: every page in order, values as the core formats them, in each format", async () => {
  await withTable(async (client) => {
    const csv = new MemoryOutput();
    const outcome = await runStatement(client, `SELECT k, d, l, m, b FROM ${TABLE} WHERE p = 1`, { format: "csv", pageSize: 5, trace: false }, csv, true);
    assertEquals([outcome.rowCount, outcome.hadResult], [23, true]);
    const lines = csv.text.split("\r\n");
    assertEquals(lines.length, 25); // the header, 23 rows and the empty text after the last CRLF
    assertEquals(lines[0], "k,d,l,m,b");
    assertEquals(lines[1], `0,NaN,"['a""0', 'b\nc']","{0: 'x,y'}",0x00ff`);
    assertEquals(lines[23], `2200000000000000000,5.5,"['a""22', 'b\nc']","{22: 'x,y'}",0x16ff`);

    const json = new MemoryOutput();
    await runStatement(client, `SELECT k, d, l, m, b FROM ${TABLE} WHERE p = 1 AND k <= 200000000000000000`, { format: "json", pageSize: 2, trace: false }, json, true);
    assertEquals(
      json.text,
      `[\n{"k":0,"d":"NaN","l":["a\\"0","b\\nc"],"m":{"0":"x,y"},"b":"0x00ff"},\n` +
        `{"k":100000000000000000,"d":-0.0,"l":["a\\"1","b\\nc"],"m":{"1":"x,y"},"b":"0x01ff"},\n` +
        `{"k":200000000000000000,"d":0.5,"l":null,"m":{"2":"x,y"},"b":"0x02ff"}\n]\n`,
    );

    const table = new MemoryOutput();
    await runStatement(client, `SELECT k, l FROM ${TABLE} WHERE p = 1 AND k IN (100000000000000000, 200000000000000000)`, { format: "table", pageSize: 1, trace: false }, table, true);
    assertEquals(
      table.text,
      " k                  | l\n" +
        "--------------------+-----------------\n" +
        " 100000000000000000 | ['a\"1', 'b\\nc']\n" +
        " 200000000000000000 |            null\n\n(2 rows)\n",
    );
  });
});

Deno.test("query: --max-rows asks for no more rows than it prints; DDL prints nothing; an empty result is [] or an empty table", async () => {
  await withTable(async (client) => {
    const out = new MemoryOutput();
    const outcome = await runStatement(client, `SELECT k FROM ${TABLE}`, { format: "json", pageSize: 10, maxRows: 15, trace: false }, out, true);
    assertEquals(outcome.rowCount, 15);
    assertEquals((JSON.parse(out.text) as unknown[]).length, 15);
    const csv = new MemoryOutput();
    await runStatement(client, `SELECT k FROM ${TABLE}`, { format: "csv", pageSize: 4, maxRows: 6, trace: false }, csv, true);
    assertEquals(csv.text.split("\r\n").slice(1, -1).map(BigInt), [0n, 1n, 2n, 3n, 4n, 5n].map((k) => k * 10n ** 17n));

    const ddl = new MemoryOutput();
    const none = await runStatement(client, `CREATE TABLE IF NOT EXISTS ${TABLE}_x (k int PRIMARY KEY)`, { format: "table", pageSize: 10, trace: false }, ddl, true);
    assertEquals([none.hadResult, none.rowCount, ddl.text], [false, 0, ""]);
    const emptyJson = new MemoryOutput();
    await runStatement(client, `SELECT k FROM ${TABLE} WHERE p = 2`, { format: "json", pageSize: 10, trace: false }, emptyJson, true);
    assertEquals(emptyJson.text, "[]\n");
    const emptyTable = new MemoryOutput();
    await runStatement(client, `SELECT k FROM ${TABLE} WHERE p = 2`, { format: "table", pageSize: 10, trace: false }, emptyTable, false);
    assertEquals(emptyTable.text, "\n k\n---\n\n(0 rows)\n");
    await client.execute(`DROP TABLE IF EXISTS ${TABLE}_x`);
  });
});

Deno.test("query: tracing is asked for on the first page only", async () => {
  await withTable(async (client) => {
    const out = new MemoryOutput();
    const statement = `SELECT k FROM ${TABLE} WHERE p = 1 /* traced ${Date.now()} */`;
    const outcome = await runStatement(client, statement, { format: "csv", pageSize: 10, trace: true }, out, true);
    assertEquals(outcome.rowCount, 23);
    assert(outcome.traceId !== null, "the first page carries a trace id");
    // Three pages were fetched; the server recorded one traced request of this statement.
    let sessions = 0;
    for (let attempt = 0; attempt < 50 && sessions === 0; attempt++) {
      // Every page: a node that has traced much (a shared dev node) holds more than one page of sessions.
      sessions = 0;
      for await (const row of client.stream("SELECT parameters FROM system_traces.sessions")) {
        if (String((row.parameters as Map<string, string> | null)?.get("query") ?? "").includes(statement)) sessions++;
      }
      if (sessions === 0) await new Promise((r) => setTimeout(r, 100));
    }
    assertEquals(sessions, 1);
  });
});
