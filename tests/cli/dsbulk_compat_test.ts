// What a user coming from DSBulk 1.10 gets with the same input, through bin/cqlwire against
// the real local Cassandra (cli/README.md, "Coming from DSBulk or cqlsh COPY"): a file DSBulk
// unloaded loads back identically with --escape '\' --blob-format base64; integers written
// as 12.0 or 1e3 load as DSBulk loads them; a null inside a collection is a bad row naming
// the column, and the rows batched with it land. These tests fail when no server answers.

import { assertEquals, assertStringIncludes } from "./assert.ts";
import { createKeyspace, loadText as load, ok } from "./cli_helpers.ts";
import { explainResult as explain, runCli } from "./run.ts";

const KEYSPACE = "dsbulk_compat_cli";
const RUN = `${Date.now().toString(36)}_${
  Math.floor(Math.random() * 1e6).toString(36)
}`;

/** Rows of a SELECT as JSON objects (small numbers only: JSON.parse keeps 53 bits). */
async function select(
  statement: string,
): Promise<Array<Record<string, unknown>>> {
  return JSON.parse(
    (await ok(["query", "--format", "json", statement])).stdout,
  );
}

Deno.test({
  name: "DSBulk's inputs against a live Cassandra",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const work = await Deno.makeTempDir({ prefix: "cqlwire-dsbulk-" });
    const table = `${KEYSPACE}.t_${RUN}`;
    await createKeyspace(KEYSPACE);
    await ok([
      "query",
      `CREATE TABLE ${table} (id int PRIMARY KEY, t text, bl blob, n bigint, v varint, l list<int>, m map<text, int>)`,
    ]);
    try {
      await t.step(
        "a file DSBulk 1.10 unloaded loads back identically",
        async () => {
          // Verbatim DSBulk 1.10 unload output: \" inside quotes, base64 blobs, an empty blob
          // as "", collections in JSON.
          const csv = "id,bl,l,m,n,t,v\n" +
            '1,yv4=,"[1,2]","{\\"k\\":1}",42,"multi\nline, \\"q\\"",12345\n' +
            '2,"",[],{},-1,"",-5\n';
          const result = await load(work, "dsbulk.csv", table, csv, [
            "--escape",
            "\\",
            "--blob-format",
            "base64",
          ]);
          assertEquals(result.code, 0, explain(result));
          assertEquals(
            await select(
              `SELECT id, bl, l, m, n, t, v FROM ${table} WHERE id IN (1, 2)`,
            ),
            [
              {
                id: 1,
                bl: "0xcafe",
                l: [1, 2],
                m: { k: 1 },
                n: 42,
                t: 'multi\nline, "q"',
                v: 12345,
              },
              { id: 2, bl: "0x", l: null, m: null, n: -1, t: "", v: -5 },
            ],
          );
        },
      );

      await t.step(
        "integers written 12.0 or 1e3 load as DSBulk loads them; 12.5 is bad",
        async () => {
          const csv = "id,n,v\n11,12.0,1e3\n12,1.5E+3,-2.0\n13,12.5,1\n";
          const result = await load(work, "ints.csv", table, csv, []);
          assertEquals(result.code, 3, explain(result));
          assertEquals(
            await select(
              `SELECT id, n, v FROM ${table} WHERE id IN (11, 12, 13)`,
            ),
            [
              { id: 11, n: 12, v: 1000 },
              { id: 12, n: 1500, v: -2 },
            ],
          );
          const log = await Deno.readTextFile(`${work}/bad/ints.errors.log`);
          assertStringIncludes(
            log,
            `ints.csv:4: field 2 (bigint): column n: expected bigint, got '12.5' (at byte 0): has a fraction (choose a rounding rule to round it); value "12.5"`,
          );
        },
      );

      await t.step(
        "a null inside a collection is a bad row; its batch's other rows land",
        async () => {
          const csv =
            'id,l,m\n21,"[1,2]",{}\n22,"[1,null]",{}\n23,[3],"{""k"":null}"\n24,[4],"{""k"":4}"\n';
          const result = await load(work, "nulls.csv", table, csv, []);
          assertEquals(result.code, 3, explain(result));
          assertEquals(
            await select(
              `SELECT id, l, m FROM ${table} WHERE id IN (21, 22, 23, 24)`,
            ),
            [
              { id: 21, l: [1, 2], m: null },
              { id: 24, l: [4], m: { k: 4 } },
            ],
          );
          assertEquals(
            await Deno.readTextFile(`${work}/bad/nulls.bad`),
            'id,l,m\n22,"[1,null]",{}\n23,[3],"{""k"":null}"\n',
          );
          const log = await Deno.readTextFile(`${work}/bad/nulls.errors.log`);
          assertStringIncludes(
            log,
            "nulls.csv:3: field 2 (list<int>): column l: expected int, got 'null' (at byte 3): collection elements cannot be null (Cassandra refuses them)",
          );
          assertStringIncludes(
            log,
            "nulls.csv:4: field 3 (map<text, int>): column m: expected int, got 'null' (at byte 5): collection elements cannot be null (Cassandra refuses them)",
          );
        },
      );
    } finally {
      await runCli(["query", `DROP TABLE IF EXISTS ${table}`]);
      await Deno.remove(work, { recursive: true });
    }
  },
});
