// load of a JSON document holding one array of objects (issue #14 item 4), through bin/cqlwire
// against the real local Cassandra: the core reads the array element by element, each object
// as a JSON Lines record; a non-object element is a bad row kept verbatim; a broken structure
// stops the load with its place. They fail when no server answers; no switch skips them.

import { assertEquals, assertStringIncludes } from "./assert.ts";
import { explainResult as explain, runCli, runCliOk as succeed } from "./run.ts";

const KEYSPACE = "loadopts_json";
const RUN = `${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`;

async function rowsOf(table: string): Promise<Array<[number, string | null, number[] | null]>> {
  const result = await succeed(["query", "--format", "json", `SELECT id, v, l FROM ${table}`]);
  const rows = JSON.parse(result.stdout) as Array<{ id: number; v: string | null; l: number[] | null }>;
  return rows.map((r): [number, string | null, number[] | null] => [r.id, r.v, r.l]).sort((a, b) => a[0] - b[0]);
}

Deno.test({
  name: "JSON array input against a live Cassandra",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const work = await Deno.makeTempDir({ prefix: "cqlwire-json-array-" });
    const table = `${KEYSPACE}.rows_${RUN}`;
    const broken = `${KEYSPACE}.broken_${RUN}`;
    await succeed(
      ["query", "-"],
      `CREATE KEYSPACE IF NOT EXISTS ${KEYSPACE}
         WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
       CREATE TABLE ${table} (id int PRIMARY KEY, v text, l list<int>);
       CREATE TABLE ${broken} (id int PRIMARY KEY, v text, l list<int>);`,
    );
    try {
      await t.step("a .json file's objects load, pretty-printed, brackets and commas inside strings", async () => {
        const path = `${work}/rows.json`;
        await Deno.writeTextFile(
          path,
          '\uFEFF[\n  {"id": 1, "v": "a, ]} \\" [", "l": [1, 2]},\n  {\n    "l": [],\n    "id": 2\n  },\n' +
            '  "not an object",\n  {"id": 3, "v": null}\n]\n',
        );
        const result = await runCli(["load", path, "--table", table, "--bad-dir", `${work}/bad`, "--quiet"]);
        assertEquals(result.code, 3, explain(result));
        assertStringIncludes(result.stdout, "3 rows loaded, 1 bad rows");
        assertEquals(await rowsOf(table), [[1, 'a, ]} " [', [1, 2]], [2, null, null], [3, null, null]]);
        assertEquals(await Deno.readTextFile(`${work}/bad/rows.bad`), '"not an object"\n');
        assertStringIncludes(
          await Deno.readTextFile(`${work}/bad/rows.errors.log`),
          "rows.json:7: invalid JSON at byte 0: expected '{' to start the line's object",
        );
      });

      await t.step("a missing comma stops the load where it is", async () => {
        const path = `${work}/broken.txt`;
        await Deno.writeTextFile(path, '[{"id": 1, "v": "x"}\n {"id": 2}]');
        const result = await runCli([
          "load",
          path,
          "--format",
          "json",
          "--table",
          broken,
          "--bad-dir",
          `${work}/bad`,
          "--quiet",
        ]);
        assertEquals(result.code, 1, explain(result));
        assertStringIncludes(
          result.stderr,
          "JSON array at line 2 (byte 22): expected , or ] after an element",
        );
        assertEquals(await rowsOf(broken), [[1, "x", null]]);
      });
    } finally {
      await runCli(["query", `DROP KEYSPACE IF EXISTS ${KEYSPACE}`]);
      await Deno.remove(work, { recursive: true });
    }
  },
});
