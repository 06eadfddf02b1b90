// `cqlwire unload --max-rows-per-file N` (issue #14 item 4) against the real local Cassandra:
// the part names (compression ending last), rows per part counted by the core's reader
// (`load --dry-run`), a header in every CSV part, the union of the parts equal to the table,
// --overwrite for every part, and nothing left behind when a part is refused.

import { assertEquals, assertMatch } from "./assert.ts";
import { createKeyspace, jsonRows, ok } from "./cli_helpers.ts";
import { runCli } from "./run.ts";
import { partPath } from "../../cli/unload_files.ts";

const KEYSPACE = "inputs_parts";
const RUN = `${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`;
const SOURCE = `${KEYSPACE}.src_${RUN}`;
const BACK = `${KEYSPACE}.back_${RUN}`;
const ROWS = 25;

async function tableRows(table: string): Promise<string[]> {
  return await jsonRows(`SELECT k, s FROM ${table}`);
}

async function decompressed(path: string): Promise<string> {
  const stream = (await Deno.open(path)).readable.pipeThrough(new DecompressionStream("gzip"));
  return await new Response(stream).text();
}

/** Rows of a CSV file as the core reads them (a dry-run load counts valid rows). */
async function rowsOf(path: string, format: "csv" | "jsonl", logs: string): Promise<number> {
  const out = await ok(["load", path, "--table", SOURCE, "--format", format, "--dry-run", "--json", "--bad-dir", logs, "--quiet"]);
  return JSON.parse(out.stdout).rowsLoaded;
}

async function listing(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

Deno.test("partPath numbers the part before the format and compression endings", () => {
  assertEquals(partPath("out.csv", 1), "out-000001.csv");
  assertEquals(partPath("/d/out.csv.gz", 12), "/d/out-000012.csv.gz");
  assertEquals(partPath("a.b/out.jsonl.zstd", 3), "a.b/out-000003.jsonl.zstd");
  assertEquals(partPath("out", 2), "out-000002");
});

Deno.test({
  name: "unload --max-rows-per-file: parts, headers, union, overwrite, nothing left on failure (real Cassandra)",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    await createKeyspace(KEYSPACE);
    await ok(["query", `CREATE TABLE ${SOURCE} (k int PRIMARY KEY, s text)`]);
    await ok(["query", `CREATE TABLE ${BACK} (k int PRIMARY KEY, s text)`]);
    const work = await Deno.makeTempDir({ prefix: "cqlwire-parts-" });
    const logs = `${work}/logs`;
    try {
      // Values with line ends and delimiters: a part must end between records, not inside one.
      const lines = Array.from({ length: ROWS }, (_, k) => `${k},"row ${k}\r\nsecond line, with a comma ""q"""`);
      await Deno.writeTextFile(`${work}/in.csv`, `k,s\n${lines.join("\n")}\n`);
      await ok(["load", `${work}/in.csv`, "--table", SOURCE, "--bad-dir", logs, "--quiet"]);
      const expected = await tableRows(SOURCE);
      assertEquals(expected.length, ROWS);

      await t.step("CSV .gz in parts of 10: 10, 10, 5 rows, each with the header; the union is the table", async () => {
        const out = `${work}/gz/out.csv.gz`;
        await Deno.mkdir(`${work}/gz`);
        await ok(["unload", "--table", SOURCE, "--out", out, "--max-rows-per-file", "10", "--quiet"]);
        assertEquals(await listing(`${work}/gz`), ["out-000001.csv.gz", "out-000002.csv.gz", "out-000003.csv.gz"]);
        const counts: number[] = [];
        for (const name of await listing(`${work}/gz`)) {
          const text = await decompressed(`${work}/gz/${name}`);
          assertEquals(text.startsWith("k,s\r\n"), true, text.slice(0, 20));
          const plain = `${work}/gz/${name.replace(/\.gz$/, "")}`;
          await Deno.writeTextFile(plain, text);
          counts.push(await rowsOf(plain, "csv", logs));
          await ok(["load", plain, "--table", BACK, "--bad-dir", logs, "--quiet"]);
        }
        assertEquals(counts, [10, 10, 5]);
        assertEquals(await tableRows(BACK), expected);
      });

      await t.step("JSON Lines in parts of 7, from a --query: 7, 7, 7, 4 lines", async () => {
        await Deno.mkdir(`${work}/jl`);
        await ok([
          "unload",
          "--query",
          `SELECT k, s FROM ${SOURCE}`,
          "--format",
          "jsonl",
          "--out",
          `${work}/jl/rows.jsonl`,
          "--max-rows-per-file",
          "7",
          "--quiet",
        ]);
        const names = await listing(`${work}/jl`);
        assertEquals(names, ["rows-000001.jsonl", "rows-000002.jsonl", "rows-000003.jsonl", "rows-000004.jsonl"]);
        const counts = [];
        const all: string[] = [];
        for (const name of names) {
          const text = await Deno.readTextFile(`${work}/jl/${name}`);
          const rows = text.split("\n").filter((line) => line !== "");
          counts.push(rows.length);
          all.push(...rows);
        }
        assertEquals(counts, [7, 7, 7, 4]);
        assertEquals(all.sort(), expected);
      });

      await t.step("an existing part is refused without --overwrite, and no part or temporary file is left", async () => {
        await Deno.mkdir(`${work}/ex`);
        await Deno.writeTextFile(`${work}/ex/out-000002.csv`, "old\n");
        const result = await runCli(["unload", "--table", SOURCE, "--out", `${work}/ex/out.csv`, "--max-rows-per-file", "10", "--quiet"]);
        assertEquals(result.code, 2, result.stderr);
        assertEquals(result.stderr, `error: ${work}/ex/out-000002.csv exists; pass --overwrite to replace it\n`);
        assertEquals(await listing(`${work}/ex`), ["out-000002.csv"]);
        assertEquals(await Deno.readTextFile(`${work}/ex/out-000002.csv`), "old\n");
      });

      await t.step("--overwrite replaces every part; a --query's one page is cut between records", async () => {
        // One page of 25 rows: the parts end inside it, where the core's reader finds a record's end.
        await ok(["unload", "--query", `SELECT k, s FROM ${SOURCE}`, "--out", `${work}/ex/out.csv`, "--max-rows-per-file", "10", "--overwrite", "--quiet"]);
        assertEquals(await listing(`${work}/ex`), ["out-000001.csv", "out-000002.csv", "out-000003.csv"]);
        const counts = [];
        const texts = [];
        for (const name of await listing(`${work}/ex`)) {
          counts.push(await rowsOf(`${work}/ex/${name}`, "csv", logs));
          texts.push(await Deno.readTextFile(`${work}/ex/${name}`));
        }
        assertEquals(counts, [10, 10, 5]);
        // Each part is the header and whole records: the parts, less their headers, are the whole output.
        const whole = await ok(["unload", "--query", `SELECT k, s FROM ${SOURCE}`, "--quiet"]);
        assertEquals(texts.map((text) => text.slice("k,s\r\n".length)).join(""), whole.stdout.slice("k,s\r\n".length));
      });

      await t.step("an empty result is one part with the header", async () => {
        await Deno.mkdir(`${work}/empty`);
        await ok([
          "unload",
          "--query",
          `SELECT k, s FROM ${SOURCE} WHERE k = -1`,
          "--out",
          `${work}/empty/none.csv`,
          "--max-rows-per-file",
          "10",
          "--quiet",
        ]);
        assertEquals(await listing(`${work}/empty`), ["none-000001.csv"]);
        assertEquals(await Deno.readTextFile(`${work}/empty/none-000001.csv`), "k,s\r\n");
      });

      await t.step("without --out FILE it is a usage error", async () => {
        const result = await runCli(["unload", "--table", SOURCE, "--max-rows-per-file", "10", "--quiet"]);
        assertEquals(result.code, 2, result.stderr);
        assertMatch(result.stderr, /--max-rows-per-file needs --out FILE/);
      });
    } finally {
      await Deno.remove(work, { recursive: true });
    }
  },
});
