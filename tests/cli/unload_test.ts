// `cqlwire unload` CSV through the core's formatter (issue #13 "one of each", #14 item 3-4),
// run as bin/cqlwire against the real local Cassandra: exact output bytes for the delimiter,
// quote, escape and null-word options and for the conversion settings, and a round trip
// (unload with settings, load back with the same settings gives the same table).

import { assertEquals } from "./assert.ts";
import { type CliResult, runCli } from "./run.ts";

const KEYSPACE = "unload_options";
const RUN = `${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`;
const SOURCE = `${KEYSPACE}.src_${RUN}`;
const COLUMNS = "(id int PRIMARY KEY, s text, n int, b boolean, ts timestamp, d decimal, bl blob)";

async function ok(args: string[]): Promise<CliResult> {
  const result = await runCli(args);
  assertEquals(result.code, 0, `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  return result;
}

/** The header, then the data lines sorted (a table scan's order is the token order). */
function sortedLines(csv: string): string[] {
  const [header, ...lines] = csv.split("\r\n");
  assertEquals(lines.pop(), "", "the output ends with CRLF");
  return [header, ...lines.sort()];
}

async function tableRows(table: string): Promise<string[]> {
  const out = await ok(["query", `SELECT * FROM ${table}`, "--format", "json"]);
  return out.stdout.split("\n").filter((line) => line !== "").sort();
}

async function setup(): Promise<void> {
  await ok([
    "query",
    `CREATE KEYSPACE IF NOT EXISTS ${KEYSPACE} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
  ]);
  await ok(["query", `CREATE TABLE ${SOURCE} ${COLUMNS}`]);
  for (
    const insert of [
      `(id, s, n, b, ts, d, bl) VALUES (1, 'a|b', null, true, '2024-01-02T03:04:05Z', 1.5, 0x00ff)`,
      `(id, s, n, b, ts, d, bl) VALUES (2, 'it''s \\ x', 7, false, '1999-12-31T23:59:59Z', -12345.25, 0x)`,
      `(id, s, n) VALUES (3, 'NULL', null)`,
      `(id, s, n) VALUES (4, '', 5)`,
    ]
  ) await ok(["query", `INSERT INTO ${SOURCE} ${insert}`]);
}

const DIALECT = ["--delimiter", "|", "--quote", "'", "--escape", "\\", "--null-value", "NULL"];
const CONVERSION = [
  "--timestamp-format",
  "%d/%m/%Y %H:%M:%S",
  "--time-zone",
  "+02:00",
  "--true-words",
  "yes",
  "--false-words",
  "no",
  "--decimal-separator",
  ",",
  "--blob-format",
  "base64",
];

Deno.test({
  name: "unload CSV options (real Cassandra)",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    await setup();
    const work = await Deno.makeTempDir({ prefix: "cqlwire-unload-" });
    try {
      await t.step("delimiter, quote, escape and null word: exact bytes", async () => {
        const out = await ok(["unload", "--table", SOURCE, "--columns", "id,s,n", ...DIALECT, "--quiet"]);
        // The null word unquoted; a value spelled like it, quoted; the quote and the escape
        // escaped inside quotes; an empty string (not the null word here) bare.
        assertEquals(sortedLines(out.stdout), [
          "id|s|n",
          "1|'a|b'|NULL",
          "2|'it\\'s \\\\ x'|7",
          "3|'NULL'|NULL",
          "4||5",
        ]);
      });

      await t.step("defaults: RFC 4180, null empty, empty text quoted", async () => {
        const out = await ok(["unload", "--table", SOURCE, "--columns", "id,s,n", "--quiet"]);
        assertEquals(sortedLines(out.stdout), ["id,s,n", "1,a|b,", "2,it's \\ x,7", "3,NULL,", '4,"",5']);
      });

      await t.step("conversion settings: patterns, zone, words, decimal separator, base64", async () => {
        const out = await ok(["unload", "--table", SOURCE, "--columns", "id,b,ts,d,bl", ...CONVERSION, "--quiet"]);
        assertEquals(sortedLines(out.stdout), [
          "id,b,ts,d,bl",
          '1,yes,02/01/2024 05:04:05,"1,5",AP8=',
          '2,no,01/01/2000 01:59:59,"-12345,25",0x',
          "3,,,,",
          "4,,,,",
        ]);
      });

      await t.step("round trip: unload with settings, load back with them, same table", async () => {
        const file = `${work}/settings.csv`;
        const settings = [...DIALECT, ...CONVERSION];
        await ok(["unload", "--table", SOURCE, "--out", file, ...settings, "--quiet"]);
        const target = `${KEYSPACE}.back_${RUN}`;
        await ok(["query", `CREATE TABLE ${target} ${COLUMNS}`]);
        await ok(["load", file, "--table", target, ...settings, "--quiet"]);
        assertEquals(await tableRows(target), await tableRows(SOURCE));
      });

      await t.step("compression by extension: .gz, .zst and .bz2 hold the same bytes; .xz is refused", async () => {
        const plain = await ok(["unload", "--table", SOURCE, "--max-concurrency", "1", ...DIALECT, "--quiet"]);
        const file = `${work}/out.csv.gz`;
        await ok(["unload", "--table", SOURCE, "--max-concurrency", "1", "--out", file, ...DIALECT, "--quiet"]);
        const compressed = await Deno.readFile(file);
        assertEquals([compressed[0], compressed[1]], [0x1f, 0x8b]);
        const text = await new Response(new Blob([compressed]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
        assertEquals(text, plain.stdout);
        const zstFile = `${work}/out.csv.zst`;
        await ok(["unload", "--table", SOURCE, "--max-concurrency", "1", "--out", zstFile, ...DIALECT, "--quiet"]);
        // Read back by the system's zstd tool, not by the code that wrote it.
        const unzstd = await new Deno.Command("zstd", { args: ["-dc", zstFile], stdout: "piped" }).output();
        assertEquals(unzstd.code, 0);
        assertEquals(new TextDecoder().decode(unzstd.stdout), plain.stdout);
        const bz2File = `${work}/out.csv.bz2`;
        await ok(["unload", "--table", SOURCE, "--max-concurrency", "1", "--out", bz2File, ...DIALECT, "--quiet"]);
        const bunzip = await new Deno.Command("bzip2", { args: ["-dc", bz2File], stdout: "piped" }).output();
        assertEquals(bunzip.code, 0);
        assertEquals(new TextDecoder().decode(bunzip.stdout), plain.stdout);
        const xz = await runCli(["unload", "--table", SOURCE, "--out", `${work}/out.csv.xz`, "--quiet"]);
        assertEquals(xz.code, 2, xz.stderr);
        assertEquals(
          xz.stderr,
          `error: --out ${work}/out.csv.xz: .xz output is not supported (unload compresses .gz, .zst and .bz2)\n`,
        );
        assertEquals(await Deno.stat(`${work}/out.csv.xz`).then(() => true, () => false), false);
        // A compressed .json would be read back as one array: refused before anything is written.
        const jsonGz = await runCli(["unload", "--table", SOURCE, "--out", `${work}/out.json.gz`, "--quiet"]);
        assertEquals(jsonGz.code, 2, jsonGz.stderr);
        assertEquals(
          jsonGz.stderr,
          `error: --out ${work}/out.json.gz: unload writes CSV or JSON Lines, and load reads a compressed .json as ` +
            "one JSON array; name it .jsonl (JSON Lines) or .csv, or give --format\n",
        );
        assertEquals(await Deno.stat(`${work}/out.json.gz`).then(() => true, () => false), false);
      });

      await t.step("settings the core refuses are usage errors, and no file appears", async () => {
        const file = `${work}/refused.csv`;
        const result = await runCli(["unload", "--table", SOURCE, "--out", file, "--delimiter", "|", "--quote", "|"]);
        assertEquals(result.code, 2, result.stderr);
        assertEquals(result.stderr, "error: the CSV delimiter and quote must differ\n");
        assertEquals(await Deno.stat(file).then(() => true, () => false), false);
      });
    } finally {
      await Deno.remove(work, { recursive: true });
    }
  },
});
