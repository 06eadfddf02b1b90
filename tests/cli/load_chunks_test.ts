// A plain file is read into one reused buffer (cli/load/input.ts, `reuseBuffer`): each chunk
// is valid only until the next is asked for, which holds because the core copies a chunk in
// (`bulkPush`) before the load asks for the next. This loads a file of many reads, records
// straddling every chunk boundary, into the real Cassandra and checks every value read back:
// a chunk read over before the core took it would load wrong values or bad rows.

import { assertEquals } from "./assert.ts";
import { createKeyspace, jsonRows, ok } from "./cli_helpers.ts";
import { runCli } from "./run.ts";

const KEYSPACE = "cqlwire_cli_load_chunks";
const TABLE = `${KEYSPACE}.t_${Date.now().toString(36)}`;

/** A value of its own per row, of lengths that vary so that no two chunks end alike. */
function valueOf(k: number): string {
  return `row ${k}: ` + String((k * 2654435761) % 1000003).repeat(1 + (k % 37));
}

Deno.test({
  name: "load: a file of many read chunks loads every value as written",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const work = await Deno.makeTempDir({ prefix: "cqlwire-load-chunks-" });
    try {
      await createKeyspace(KEYSPACE);
      await ok([
        "query",
        `CREATE TABLE ${TABLE} (k bigint PRIMARY KEY, s text)`,
      ]);
      const rows = 30_000;
      const lines = ["k,s"];
      for (let k = 0; k < rows; k++) lines.push(`${k},${valueOf(k)}`);
      const text = lines.join("\n") + "\n";
      // At least a dozen reads of 256 KB.
      assertEquals(text.length > 12 * 256 * 1024, true, `${text.length} bytes`);
      await Deno.writeTextFile(`${work}/in.csv`, text);
      const result = await runCli([
        "load",
        `${work}/in.csv`,
        "--table",
        TABLE,
        "--bad-dir",
        `${work}/bad`,
        "--json",
        "--quiet",
      ]);
      assertEquals(result.code, 0, result.stderr);
      const summary = JSON.parse(result.stdout);
      assertEquals([summary.rowsLoaded, summary.badRows], [rows, 0]);

      const loaded = new Map<number, string>();
      for (const line of await jsonRows(`SELECT k, s FROM ${TABLE}`)) {
        const row = JSON.parse(line) as { k: number; s: string };
        loaded.set(row.k, row.s);
      }
      assertEquals(loaded.size, rows);
      const wrong = [...loaded].filter(([k, s]) => s !== valueOf(k)).map((
        [k],
      ) => k);
      assertEquals(wrong, [], "rows whose value is not the file's");
    } finally {
      await runCli(["query", `DROP TABLE IF EXISTS ${TABLE}`]);
      await Deno.remove(work, { recursive: true });
    }
  },
});
