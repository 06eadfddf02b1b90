// load's record limits (issue #14 item 4: DSBulk's skipRecords, maxRecords and maxErrors as a
// count or a percentage) through bin/cqlwire against the real local Cassandra. The limits are
// applied in the core's bulk encoder; these tests look at what reached the table and the bad
// file. They fail when no server answers; no switch skips them.

import { assertEquals, assertStringIncludes } from "./assert.ts";
import { type CliResult, explainResult as explain, runCli, runCliOk as succeed } from "./run.ts";

const KEYSPACE = "loadopts_limits";
const RUN = `${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`;

/** The table's rows as [id, v], by id. */
async function rowsOf(table: string): Promise<Array<[number, string]>> {
  const result = await succeed(["query", "--format", "json", `SELECT id, v FROM ${table}`]);
  const rows = JSON.parse(result.stdout) as Array<{ id: number; v: string }>;
  return rows.map((row): [number, string] => [row.id, row.v]).sort((a, b) => a[0] - b[0]);
}

async function load(work: string, name: string, csv: string, table: string, flags: string[]): Promise<CliResult> {
  const path = `${work}/${name}.csv`;
  await Deno.writeTextFile(path, csv);
  return await runCli(["load", path, "--table", table, "--bad-dir", `${work}/bad`, "--quiet", ...flags]);
}

async function badFile(work: string, name: string): Promise<string> {
  try {
    return await Deno.readTextFile(`${work}/bad/${name}.bad`);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return "";
    throw error;
  }
}

Deno.test({
  name: "record limits against a live Cassandra",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const work = await Deno.makeTempDir({ prefix: "cqlwire-limits-" });
    const tables = ["skip", "max", "share", "count"].map((name) => `${KEYSPACE}.${name}_${RUN}`);
    const [skipTable, maxTable, shareTable, countTable] = tables;
    await succeed(
      ["query", "-"],
      `CREATE KEYSPACE IF NOT EXISTS ${KEYSPACE}
         WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
       ${tables.map((table) => `CREATE TABLE ${table} (id int PRIMARY KEY, v text);`).join("\n")}`,
    );
    try {
      await t.step("--skip-records and --max-records count records, bad ones too, not the header", async () => {
        // Records: 1 x(bad) 3 | 4 5 y(bad) 7 | 8 9. Blank lines are no records.
        const csv = "id,v\n1,a\nx,b\n3,c\n\n4,d\n5,e\ny,f\n7,g\n8,h\n9,i\n";
        const result = await load(work, "skip", csv, skipTable, ["--skip-records", "3", "--max-records", "4"]);
        assertEquals(result.code, 3, explain(result)); // bad rows were written
        assertStringIncludes(result.stdout, "3 rows loaded, 1 bad rows");
        assertEquals(await rowsOf(skipTable), [[4, "d"], [5, "e"], [7, "g"]]);
        // The skipped bad record is not a bad row; the admitted one is there verbatim.
        assertEquals(await badFile(work, "skip"), "id,v\ny,f\n");
      });

      await t.step("--max-records leaves the rest of the input unread", async () => {
        // After the second record, bytes that would each be a bad row.
        const csv = "id,v\n1,a\n2,b\n" + "not a number,z\n".repeat(50) + '"unterminated\n';
        const result = await load(work, "max", csv, maxTable, ["--max-records", "2"]);
        assertEquals(result.code, 0, explain(result));
        assertStringIncludes(result.stdout, "2 rows loaded, 0 bad rows");
        assertEquals(await rowsOf(maxTable), [[1, "a"], [2, "b"]]);
        assertEquals(await badFile(work, "max"), "");
      });

      await t.step("--max-errors N% stops the load once past the share, bad rows kept verbatim", async () => {
        // 300 records; from record 151 on, every other one is bad.
        let csv = "id,v\n";
        for (let i = 1; i <= 300; i++) csv += i > 150 && i % 2 === 1 ? `bad${i},x\n` : `${i},ok\n`;
        const result = await load(work, "share", csv, shareTable, ["--max-errors", "10%"]);
        assertEquals(result.code, 1, explain(result));
        // The k-th bad record is record 149 + 2k: 18 of 185 is 9.7%, 19 of 187 is 10.2%.
        assertStringIncludes(result.stderr, "load aborted: failed: 19 of 187 rows were bad, more than 10%: stopping");
        const bad = (await badFile(work, "share")).split("\n").filter((line) => line !== "");
        assertEquals(bad[0], "id,v");
        assertEquals(bad.slice(1), Array.from({ length: 19 }, (_, k) => `bad${151 + 2 * k},x`));
        // Records after the one that stopped it are not loaded.
        const rows = await rowsOf(shareTable);
        assertEquals(rows.length, 150 + 18);
        assertEquals(rows.at(-1), [186, "ok"]);
      });

      await t.step("--max-errors N (a count) still stops at the Nth bad row", async () => {
        const csv = "id,v\n1,a\nx,b\ny,c\n4,d\nz,e\n6,f\n";
        const result = await load(work, "count", csv, countTable, ["--max-errors", "2"]);
        assertEquals(result.code, 1, explain(result));
        assertStringIncludes(result.stderr, "--max-errors 2");
        assertEquals(await badFile(work, "count"), "id,v\nx,b\ny,c\n");
      });

      await t.step("a percentage out of range or with three decimals is a usage error", async () => {
        for (const text of ["0%", "100%", "2.555%", "ten%"]) {
          const result = await runCli(["load", "-", "--table", countTable, "--max-errors", text]);
          assertEquals(result.code, 2, explain(result));
          assertStringIncludes(
            result.stderr,
            `argument '${text}' is invalid. --max-errors N% must be above 0% and below 100%, with at most two decimals (e.g. 2.5%).`,
          );
        }
      });
    } finally {
      await runCli(["query", `DROP KEYSPACE IF EXISTS ${KEYSPACE}`]);
      await Deno.remove(work, { recursive: true });
    }
  },
});
