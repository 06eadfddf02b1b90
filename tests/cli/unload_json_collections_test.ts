// `unload --collection-format json` against the real local Cassandra: collections, tuples and
// UDTs in DSBulk's JSON notation. The expected text is DSBulk 1.10's own unload of the same
// rows (data/dsbulk_unload_collections.csv, captured with bench/loaders/dsbulk, defaults: `\`
// escapes, LF line ends), so with `--escape '\'` the lines are byte for byte DSBulk's; DSBulk
// itself is not run here (bench installs it, `make test` does not). `load` reads the file back
// to an identical table. These tests fail when no server answers.

import { assertEquals } from "./assert.ts";
import { createKeyspace, jsonRows, ok } from "./cli_helpers.ts";

const KEYSPACE = "unloadjson_cli";
const RUN = `${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`;
const COLUMNS = "(id int PRIMARY KEY, l list<text>, s set<int>, mt map<text, int>, mi map<int, text>, " +
  "mtup map<frozen<tuple<int, int>>, text>, tu tuple<int, text>, u frozen<addr>, " +
  "nested list<frozen<map<text, frozen<list<int>>>>>, mu map<uuid, timestamp>, db list<double>, bo set<boolean>)";
// The rows of the fixture: quotes, backslashes, a delimiter, a line break, a tab, U+0001 and
// non-ASCII inside a list; a tuple map key; nulls inside a tuple and a UDT; -0.0 in a list.
const ROWS = [
  "(1, ['a\"b', 'c\\d', 'e,f', 'line\ntwo\ttab\u0001', 'é✓', ''], {1, 2, 3}, {'k\"1': 1, 'k,2': 2}, " +
  "{1: 'x', 2: 'y'}, {(1, 2): 'tp'}, (1, 'o''k'), {street: 'Main \"St\"', num: null}, [{'a': [1, 2]}, {'b': []}], " +
  "{123e4567-e89b-12d3-a456-426614174000: '2024-03-05T06:07:08.009Z'}, [1.5, -0.0, 1234.5], {true, false})",
  "(2, [''], {-1}, {'': 0}, {-5: ''}, {(0, -1): ''}, (null, null), {street: null, num: 3}, [{'': []}], " +
  "{00000000-0000-0000-0000-000000000000: '1969-12-31T23:59:59.999Z'}, [-1.25], {false})",
];

/** Header, then the rows sorted (the scan order is the ranges'), line ends dropped. */
function lines(text: string): string[] {
  const [header, ...rows] = text.split(/\r?\n/).filter((line) => line !== "");
  return [header, ...rows.sort()];
}

Deno.test({
  name: "unload --collection-format json writes DSBulk's text, and load reads it back",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const work = await Deno.makeTempDir({ prefix: "cqlwire-unloadjson-" });
    const [source, copy] = [`${KEYSPACE}.t_${RUN}`, `${KEYSPACE}.c_${RUN}`];
    await createKeyspace(KEYSPACE);
    await ok(["query", `CREATE TYPE IF NOT EXISTS ${KEYSPACE}.addr (street text, num int)`]);
    try {
      for (const table of [source, copy]) await ok(["query", `CREATE TABLE ${table} ${COLUMNS}`]);
      for (const row of ROWS) {
        await ok(["query", `INSERT INTO ${source} (id, l, s, mt, mi, mtup, tu, u, nested, mu, db, bo) VALUES ${row}`]);
      }
      const file = `${work}/out.csv`;
      await ok(["unload", "--table", source, "--collection-format", "json", "--escape", "\\", "--quiet", "--out", file]);
      const dsbulk = await Deno.readTextFile(new URL("./data/dsbulk_unload_collections.csv", import.meta.url));
      assertEquals(lines(await Deno.readTextFile(file)), lines(dsbulk));

      await ok(["load", "--table", copy, "--escape", "\\", "--bad-dir", `${work}/bad`, "--quiet", file]);
      const all = (table: string) => jsonRows(`SELECT * FROM ${table}`);
      const [original, loaded] = [await all(source), await all(copy)];
      assertEquals(original.length, 2);
      assertEquals(loaded, original);

      // The default stays cqlsh COPY's CQL literals.
      const cql = await ok(["unload", "--query", `SELECT tu, mtup FROM ${source} WHERE id = 1`, "--quiet"]);
      assertEquals(cql.stdout, "tu,mtup\r\n\"(1, 'o''k')\",\"{(1, 2): 'tp'}\"\r\n");
    } finally {
      await ok(["query", `DROP TABLE IF EXISTS ${source}`]);
      await ok(["query", `DROP TABLE IF EXISTS ${copy}`]);
      await Deno.remove(work, { recursive: true });
    }
  },
});
