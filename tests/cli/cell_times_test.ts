// `unload --with-writetime --with-ttl` then `load` into an empty table keeps every regular
// cell's WRITETIME() exactly and its TTL() within the seconds that passed (issue #14 item 5),
// through bin/cqlwire against the live Cassandra (no switch skips it).

import { assert, assertEquals } from "./assert.ts";
import { type CliResult, runCli } from "./run.ts";

function explain(result: CliResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

async function csvOf(statement: string): Promise<string[][]> {
  const result = await runCli(["query", "--format", "csv", statement]);
  assertEquals(result.code, 0, explain(result));
  return result.stdout.trimEnd().split("\r\n").map((line) => line.split(","));
}

const TIMES =
  "id, ck, a, b, f, WRITETIME(a), WRITETIME(b), WRITETIME(f), TTL(a), TTL(b), TTL(f)";

Deno.test({
  name:
    "unload with write times and TTLs, load back: identical WRITETIME(), TTL() within the elapsed seconds",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const work = await Deno.makeTempDir({ prefix: "cqlwire-cell-times-" });
    const run = Date.now().toString(36);
    const source = `convert_cli.times_src_${run}`;
    const target = `convert_cli.times_dst_${run}`;
    const columns =
      "(id int, ck int, a text, b int, f frozen<list<int>>, PRIMARY KEY (id, ck))";
    const setup = await runCli(["query", "-"], {
      stdin: `CREATE KEYSPACE IF NOT EXISTS convert_cli
          WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
        CREATE TABLE ${source} ${columns};
        CREATE TABLE ${target} ${columns};
        INSERT INTO ${source} (id, ck, a, b, f) VALUES (1, 1, 'x', 1, [1]) USING TIMESTAMP 1000 AND TTL 86400;
        UPDATE ${source} USING TIMESTAMP 2000 SET b = 2 WHERE id = 1 AND ck = 1;
        UPDATE ${source} USING TIMESTAMP 3000 AND TTL 7200 SET f = [3] WHERE id = 1 AND ck = 1;
        INSERT INTO ${source} (id, ck, a) VALUES (2, 1, 'y') USING TIMESTAMP 1700000000000000;
        INSERT INTO ${source} (id, ck, a, b) VALUES (2, 2, 'z', 5) USING TTL 600;`,
    });
    assertEquals(setup.code, 0, explain(setup));
    try {
      const started = Date.now();
      const before = await csvOf(`SELECT ${TIMES} FROM ${source}`);
      const out = `${work}/times.csv`;
      const unload = await runCli([
        "unload",
        "--table",
        source,
        "--with-writetime",
        "--with-ttl",
        "--out",
        out,
      ]);
      assertEquals(unload.code, 0, explain(unload));
      assertEquals(
        (await Deno.readTextFile(out)).split("\r\n")[0],
        "id,ck,a,b,f,writetime(a),ttl(a),writetime(b),ttl(b),writetime(f),ttl(f)",
      );
      const load = await runCli([
        "load",
        "--table",
        target,
        "--bad-dir",
        `${work}/bad`,
        "--json",
        out,
      ]);
      assertEquals(load.code, 0, explain(load));
      assertEquals(JSON.parse(load.stdout).rowsLoaded, 3);
      const after = await csvOf(`SELECT ${TIMES} FROM ${target}`);
      const elapsed = Math.ceil((Date.now() - started) / 1000);
      assertEquals(after.length, before.length);
      const ttlColumns = new Set([8, 9, 10]);
      for (const [r, row] of after.entries()) {
        for (const [c, value] of row.entries()) {
          const expected = before[r][c];
          if (r === 0 || !ttlColumns.has(c) || expected === "") {
            assertEquals(value, expected, `row ${r} column ${before[0][c]}`);
          } else {
            const [got, had] = [Number(value), Number(expected)];
            assert(
              got <= had && got >= had - elapsed,
              `row ${r} ${before[0][c]}: ${got} against ${had} (${elapsed} s)`,
            );
          }
        }
      }
    } finally {
      await runCli([
        "query",
        `DROP TABLE IF EXISTS ${source}; DROP TABLE IF EXISTS ${target}`,
      ]);
      await Deno.remove(work, { recursive: true });
    }
  },
});

Deno.test({
  name: "a per-row TTL and write time from fields, through --query markers",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const work = await Deno.makeTempDir({ prefix: "cqlwire-row-times-" });
    const table = `convert_cli.row_times_${Date.now().toString(36)}`;
    const setup = await runCli(["query", "-"], {
      stdin: `CREATE KEYSPACE IF NOT EXISTS convert_cli
          WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
        CREATE TABLE ${table} (id int PRIMARY KEY, a text);`,
    });
    assertEquals(setup.code, 0, explain(setup));
    try {
      await Deno.writeTextFile(
        `${work}/in.csv`,
        "id,a,expires,written\n1,x,5000,123456\n2,y,0,7\n",
      );
      const query =
        `INSERT INTO ${table} (id, a) VALUES (:id, :a) USING TTL :expires AND TIMESTAMP :written`;
      const load = await runCli([
        "load",
        "--query",
        query,
        "--bad-dir",
        `${work}/bad`,
        "--quiet",
        `${work}/in.csv`,
      ]);
      assertEquals(load.code, 0, explain(load));
      const [, first] = await csvOf(
        `SELECT id, WRITETIME(a), TTL(a) FROM ${table} WHERE id = 1`,
      );
      const [, second] = await csvOf(
        `SELECT id, WRITETIME(a), TTL(a) FROM ${table} WHERE id = 2`,
      );
      // TTL 0 is no TTL.
      assertEquals([first.slice(0, 2), second], [["1", "123456"], [
        "2",
        "7",
        "",
      ]]);
      const ttl = Number(first[2]);
      assert(ttl <= 5000 && ttl > 4000, `TTL ${ttl}`);
    } finally {
      await runCli(["query", `DROP TABLE IF EXISTS ${table}`]);
      await Deno.remove(work, { recursive: true });
    }
  },
});
