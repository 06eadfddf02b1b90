// bin/cqlwire against the real local Cassandra (scripts/cassandra start). These tests fail
// when no server answers; there is no switch that skips them (a skip is never green).

import { assert, assertEquals, assertMatch, assertStringIncludes } from "./assert.ts";
import { type CliResult, runCli } from "./run.ts";


const KEYSPACE = "cqlwire_cli_test";
const RUN = `${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`;
const TYPES_TABLE = `${KEYSPACE}.types_${RUN}`;
const COPY_TABLE = `${KEYSPACE}.copy_${RUN}`;
const SMALL_TABLE = `${KEYSPACE}.small_${RUN}`;
const DURATION_TABLE = `${KEYSPACE}.durations_${RUN}`;
const JS_PATH_TABLE = `${KEYSPACE}.js_path_${RUN}`;
const BATCH_TABLE = `${KEYSPACE}.batched_${RUN}`;

const TYPES_COLUMNS =
  "id int, seq bigint, label text, t text, a ascii, ti tinyint, si smallint, i int, bi bigint, vi varint, " +
  "f float, d double, dec decimal, b boolean, ts timestamp, dt date, tm time, u uuid, tu timeuuid, ip inet, " +
  "bl blob, l list<int>, s set<text>, m map<text, int>, tup frozen<tuple<int, text>>, " +
  "v vector<float, 3>, addr frozen<address>, PRIMARY KEY (id, seq, label)";
const HEADER = "id,seq,label,t,a,ti,si,i,bi,vi,f,d,dec,b,ts,dt,tm,u,tu,ip,bl,l,s,m,tup,v,addr";

function describe(result: CliResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

async function cql(script: string): Promise<void> {
  const result = await runCli(["query", script]);
  assertEquals(result.code, 0, describe(result));
}

/** The table may take a moment to appear on every node after CREATE. */
async function waitForTable(table: string): Promise<void> {
  for (let attempt = 0;; attempt++) {
    const result = await runCli(["query", `SELECT * FROM ${table} LIMIT 1`]);
    if (result.code === 0) return;
    if (attempt >= 20) throw new Error(`table ${table} never became queryable: ${describe(result)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** JSON.parse that keeps integers beyond 2^53 exact, as bigint, using the number's source text. */
function parseJsonExact(text: string): unknown {
  const reviver = (_key: string, value: unknown, context?: { source?: string }) => {
    if (
      typeof value === "number" && context?.source && /^-?[0-9]+$/.test(context.source) && !Number.isSafeInteger(value)
    ) {
      return BigInt(context.source);
    }
    return value;
  };
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
}

async function queryJson(statement: string): Promise<{ rows: Array<Record<string, unknown>>; text: string }> {
  const result = await runCli(["query", "--format", "json", statement]);
  assertEquals(result.code, 0, describe(result));
  return { rows: parseJsonExact(result.stdout) as Array<Record<string, unknown>>, text: result.stdout };
}

function byIdThenLabel(a: Record<string, unknown>, b: Record<string, unknown>): number {
  return Number(a.id) - Number(b.id) || String(a.label).localeCompare(String(b.label));
}

/** A CSV under construction that remembers on which line each record starts. */
class CsvBuilder {
  text = "";
  private line = 1;
  add(record: string, terminator = "\n"): number {
    const start = this.line;
    this.text += record + terminator;
    this.line += (record.match(/\r\n|\n|\r/g) ?? []).length + 1;
    return start;
  }
}

function nullRow(fields: Record<string, string>): string {
  return HEADER.split(",").map((name) => fields[name] ?? "").join(",");
}

const LONG_LABEL = "k".repeat(70_000);

Deno.test({
  name: "cqlwire against a live Cassandra",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const work = await Deno.makeTempDir({ prefix: "cqlwire-it-" });
    try {
      await t.step("the server answers and reports a 5.0 release", async () => {
        const result = await runCli(["query", "SELECT release_version FROM system.local"]);
        assertEquals(
          result.code,
          0,
          `no Cassandra answers on 127.0.0.1:9042 (start it with scripts/cassandra start): ${describe(result)}`,
        );
        assertMatch(result.stdout, /^ release_version\n-+\n +5\.0\.[0-9]+\n\n\(1 rows\)\n$/);
      });

      await t.step("schema setup with a multi-statement script from stdin", async () => {
        const script = `
          CREATE KEYSPACE IF NOT EXISTS ${KEYSPACE}
            WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
          CREATE TYPE IF NOT EXISTS ${KEYSPACE}.address (street text, zip int); -- a comment; with a semicolon
          CREATE TABLE ${TYPES_TABLE} (${TYPES_COLUMNS});
          CREATE TABLE ${COPY_TABLE} (${TYPES_COLUMNS});
          CREATE TABLE ${SMALL_TABLE} (k int PRIMARY KEY, name text, n bigint);
          CREATE TABLE ${DURATION_TABLE} (k int PRIMARY KEY, du duration);
          CREATE TABLE ${JS_PATH_TABLE} (${TYPES_COLUMNS});
          CREATE TABLE ${BATCH_TABLE} (${TYPES_COLUMNS});
        `;
        const result = await runCli(["query", "-"], { stdin: script });
        assertEquals(result.code, 0, describe(result));
        await waitForTable(TYPES_TABLE);
        await waitForTable(COPY_TABLE);
        await waitForTable(SMALL_TABLE);
        await waitForTable(DURATION_TABLE);
        await waitForTable(JS_PATH_TABLE);
        await waitForTable(BATCH_TABLE);
      });

      const csv = new CsvBuilder();
      csv.add(HEADER);
      const good: Array<Record<string, unknown>> = [];
      const bad: Array<{ line: number; raw: string; reason: RegExp }> = [];

      csv.add(
        `1,10,basic,"She said ""hi"", then left",plain ascii,-128,-32768,-2147483648,9223372036854775807,` +
          `-123456789012345678901234567890,1.1,-0.000123,123.4500,yes,2024-05-01T12:30:15.250Z,2024-02-29,` +
          `08:12:54.123456789,123E4567-E89B-12D3-A456-426614174000,50554d6e-29bb-11e5-b345-feff819cdc9f,192.168.1.10,` +
          `0xCAFE00,"[1, 2, 3]","{'b', 'a'}","{'k1': 1, 'k2': -2}","(7, 'seven')","[1.5, -2, 300]",` +
          `"{street: '1 Main St', zip: 12345}"`,
      );
      good.push({
        id: 1,
        seq: 10,
        label: "basic",
        t: 'She said "hi", then left',
        a: "plain ascii",
        ti: -128,
        si: -32768,
        i: -2147483648,
        bi: 9223372036854775807n,
        vi: -123456789012345678901234567890n,
        f: 1.1,
        d: -0.000123,
        dec: 123.45,
        b: true,
        ts: "2024-05-01T12:30:15.250Z",
        dt: "2024-02-29",
        tm: "08:12:54.123456789",
        u: "123e4567-e89b-12d3-a456-426614174000",
        tu: "50554d6e-29bb-11e5-b345-feff819cdc9f",
        ip: "192.168.1.10",
        bl: "0xcafe00",
        l: [1, 2, 3],
        s: ["a", "b"],
        m: { k1: 1, k2: -2 },
        tup: [7, "seven"],
        v: [1.5, -2, 300],
        addr: { street: "1 Main St", zip: 12345 },
      });

      csv.add(nullRow({
        id: "2",
        seq: "20",
        label: "ünïcødé 😀 日本語 e\u0301",
        t: `"line1\nline2\r\nline3, with a comma and ""quotes"""`,
        a: `""`,
        l: `"[4,5]"`,
        s: `"[""z""]"`,
        m: `"{""x"":1}"`,
        addr: `"{""street"": ""Öster \\""gatan"", ""zip"": null}"`,
      }));
      good.push({
        id: 2,
        seq: 20,
        label: "ünïcødé 😀 日本語 e\u0301",
        t: 'line1\nline2\r\nline3, with a comma and "quotes"',
        a: "",
        ti: null,
        si: null,
        i: null,
        bi: null,
        vi: null,
        f: null,
        d: null,
        dec: null,
        b: null,
        ts: null,
        dt: null,
        tm: null,
        u: null,
        tu: null,
        ip: null,
        bl: null,
        l: [4, 5],
        s: ["z"],
        m: { x: 1 },
        tup: null,
        v: null,
        addr: { street: 'Öster "gatan', zip: null },
      });

      csv.add(
        nullRow({
          id: "3",
          seq: "-9223372036854775808",
          label: "empty-vs-null",
          t: "",
          a: `""`,
          ti: " 127 ",
          i: "\t42",
          vi: "0",
          f: "-Infinity",
          d: "NaN",
          dec: "0.000",
          b: "f",
          ts: "0",
          dt: "1970-01-01",
          tm: "00:00",
          ip: "::1",
          bl: "0x",
          l: "[]",
          s: "{}",
          m: "{}",
        }),
        "\r\n",
      );
      good.push({
        id: 3,
        seq: -9223372036854775808n,
        label: "empty-vs-null",
        t: null,
        a: "",
        ti: 127,
        si: null,
        i: 42,
        bi: null,
        vi: 0,
        f: "-Infinity",
        d: "NaN",
        dec: 0,
        b: false,
        ts: "1970-01-01T00:00:00.000Z",
        dt: "1970-01-01",
        tm: "00:00:00",
        u: null,
        tu: null,
        ip: "::1",
        bl: "0x",
        l: null,
        s: null,
        m: null,
        tup: null,
        v: null,
        addr: null,
      });

      bad.push({
        line: csv.add("90,1,too-few,only four"),
        raw: "90,1,too-few,only four",
        reason: /expected 27 fields, found 4/,
      });
      const tooMany = `${nullRow({ id: "91", seq: "1", label: "too-many" })},extra`;
      bad.push({ line: csv.add(tooMany), raw: tooMany, reason: /expected 27 fields, found 28/ });
      const notInt = nullRow({ id: "92", seq: "1", label: "not-an-int", t: `"multi\nline bad row"`, i: "abc" });
      bad.push({
        line: csv.add(notInt),
        raw: notInt,
        reason: /field 8 \(int\): column i: expected int, got 'abc' \(at byte 0\): not an integer; value "abc"/,
      });
      const badDate = nullRow({ id: "93", seq: "1", label: "bad-date", dt: "2023-02-29" });
      bad.push({ line: csv.add(badDate), raw: badDate, reason: /field 16 \(date\): column dt: .*day 29 does not exist/ });
      const badList = nullRow({ id: "94", seq: "1", label: "bad-list", l: `"[1, 'x']"` });
      bad.push({ line: csv.add(badList), raw: badList, reason: /\(list<int>\): column l: .*not an integer/ });
      const nullKey = nullRow({ id: "", seq: "1", label: "null-key" });
      bad.push({
        line: csv.add(nullKey),
        raw: nullKey,
        reason: /field 1 \(int\): partition key column id is (null|unset)/,
      });
      const tooLong = nullRow({ id: "95", seq: "1", label: LONG_LABEL });
      bad.push({ line: csv.add(tooLong), raw: tooLong, reason: /rejected by the server: .*\(0x2200\)/ });
      const unclosed = `96,1,"unclosed,${"x,".repeat(25)}\n97,1,more`;
      bad.push({ line: csv.add(unclosed, ""), raw: unclosed, reason: /field 3 \(text\): unterminated quoted field 3 at end of input/ });

      const csvPath = `${work}/hostile.csv`;
      await Deno.writeTextFile(csvPath, csv.text);
      const badDir = `${work}/bad`;

      await t.step("load: good rows arrive exactly, bad rows are kept verbatim with reasons, exit 3", async () => {
        const result = await runCli([
          "load",
          csvPath,
          "--table",
          TYPES_TABLE,
          "--bad-dir",
          badDir,
          "--max-concurrency",
          "4",
        ]);
        assertEquals(result.code, 3, describe(result));
        assertMatch(result.stdout, /^3 rows loaded, 8 bad rows, [0-9.]+ s, [0-9]+ rows\/s\n/);
        assertStringIncludes(result.stdout, `${badDir}/hostile.bad`);

        const { rows, text } = await queryJson(`SELECT * FROM ${TYPES_TABLE}`);
        rows.sort(byIdThenLabel);
        assertEquals(rows.length, good.length, text);
        for (const [i, expected] of good.entries()) assertEquals(rows[i], expected, `row ${expected.id}`);
        // Exactness in the JSON text itself, not only after parsing.
        assertStringIncludes(text, `"bi":9223372036854775807`);
        assertStringIncludes(text, `"vi":-123456789012345678901234567890`);
        assertStringIncludes(text, `"dec":123.4500`);
        assertStringIncludes(text, `"seq":-9223372036854775808`);

        const badFile = await Deno.readTextFile(`${badDir}/hostile.bad`);
        assert(badFile.startsWith(`${HEADER}\n`), "the bad file starts with the header");
        for (const row of bad) assertStringIncludes(badFile, `${row.raw}\n`, `bad row of line ${row.line}`);
        assertEquals(badFile.length, HEADER.length + 1 + bad.reduce((sum, row) => sum + row.raw.length + 1, 0));

        const log = (await Deno.readTextFile(`${badDir}/hostile.errors.log`)).trimEnd().split("\n");
        assertEquals(log.length, bad.length, log.join("\n"));
        for (const row of bad) {
          const entry = log.find((line) => line.startsWith(`${csvPath}:${row.line}: `));
          assert(entry !== undefined, `no log line for line ${row.line}:\n${log.join("\n")}`);
          assertMatch(entry, row.reason);
          assert(entry.length < 1000, "log lines truncate long values");
        }
      });

      await t.step("load: batches on the core path load the same rows; a refused batch is retried row by row", async () => {
        const batchBadDir = `${work}/bad-batched`;
        const result = await runCli([
          "load",
          csvPath,
          "--table",
          BATCH_TABLE,
          "--bad-dir",
          batchBadDir,
          "--batch-size",
          "20",
          "--batch-by",
          "replica",
          "--json",
        ]);
        assertEquals(result.code, 3, describe(result));
        const summary = JSON.parse(result.stdout);
        assertEquals([summary.rowsLoaded, summary.badRows], [good.length, bad.length]);
        const core = await queryJson(`SELECT * FROM ${TYPES_TABLE}`);
        const batched = await queryJson(`SELECT * FROM ${BATCH_TABLE}`);
        assertEquals(batched.rows.sort(byIdThenLabel), core.rows.sort(byIdThenLabel));
        // The over-long key shares its batch with good rows: only it is refused, for its own reason.
        for (const name of ["hostile.bad", "hostile.errors.log"]) {
          assertEquals(
            await Deno.readTextFile(`${batchBadDir}/${name}`),
            await Deno.readTextFile(`${badDir}/${name}`),
            `${name} is the same batched and unbatched`,
          );
        }
      });

      await t.step("load: --skip without a header or --map wants exactly the table's fields, in the core", async () => {
        // In cqlsh order the table's fields are id, seq, label, then a, addr, ... by name:
        // `--skip 3` leaves out field 3 (a). A short row is bad, not read by position.
        const input = `${work}/headerless.csv`;
        await Deno.writeTextFile(input, `7,1,x,skipped${",".repeat(23)}\n7,2,short\n`);
        const result = await runCli([
          "load",
          input,
          "--table",
          JS_PATH_TABLE,
          "--header",
          "false",
          "--skip",
          "3",
          "--bad-dir",
          `${work}/bad-headerless`,
          "--json",
        ]);
        assertEquals(result.code, 3, describe(result));
        assertEquals([JSON.parse(result.stdout).rowsLoaded, JSON.parse(result.stdout).badRows], [1, 1]);
        const log = await Deno.readTextFile(`${work}/bad-headerless/headerless.errors.log`);
        assertStringIncludes(log, `:2: expected 27 fields, found 3`);
        const { rows } = await queryJson(`SELECT id, seq, label, a FROM ${JS_PATH_TABLE} WHERE id = 7`);
        assertEquals(rows, [{ id: 7, seq: 1, label: "x", a: null }]);
      });

      await t.step("duration values in all three notations load and print CQL-style", async () => {
        await Deno.writeTextFile(`${work}/durations.csv`, "k,du\n1,1h30m\n2,-P1Y2M3DT4H5M6S\n3,P2W\n4,1 hour\n");
        const result = await runCli([
          "load",
          `${work}/durations.csv`,
          "--table",
          DURATION_TABLE,
          "--bad-dir",
          `${work}/bad-du`,
        ]);
        assertEquals(result.code, 3, describe(result));
        assertMatch(result.stdout, /^3 rows loaded, 1 bad rows/);
        const { rows } = await queryJson(`SELECT k, du FROM ${DURATION_TABLE}`);
        assertEquals(rows.sort((a, b) => Number(a.k) - Number(b.k)), [
          { k: 1, du: "1h30m" },
          { k: 2, du: "-1y2mo3d4h5m6s" },
          { k: 3, du: "14d" },
        ]);
      });

      await t.step("query: table, csv and json formats, paging and --max-rows", async () => {
        const table = await runCli(["query", `SELECT id, label, t, m FROM ${TYPES_TABLE} WHERE id = 2`]);
        assertEquals(table.code, 0, describe(table));
        assertStringIncludes(table.stdout, 'line1\\nline2\\r\\nline3, with a comma and "quotes"');
        assertStringIncludes(table.stdout, "{'x': 1}");
        assertStringIncludes(table.stdout, "(1 rows)");

        // n goes beyond 2^53 so that JSON output has to keep digits JSON.parse would lose.
        const inserts = Array.from(
          { length: 25 },
          (_, k) => `INSERT INTO ${SMALL_TABLE} (k, name, n) VALUES (${k}, 'n${k}', ${(k % 9) + 1}00000000000000000)`,
        );
        await cql(inserts.join(";\n"));
        const paged = await queryJson(`SELECT k FROM ${SMALL_TABLE}`);
        assertEquals(paged.rows.length, 25);
        const smallPages = await runCli([
          "query",
          "--format",
          "json",
          "--page-size",
          "7",
          `SELECT k FROM ${SMALL_TABLE}`,
        ]);
        assertEquals((JSON.parse(smallPages.stdout) as unknown[]).length, 25, describe(smallPages));
        const capped = await runCli([
          "query",
          "--format",
          "csv",
          "--page-size",
          "7",
          "--max-rows",
          "10",
          `SELECT k, name FROM ${SMALL_TABLE}`,
        ]);
        assertEquals(capped.code, 0, describe(capped));
        const lines = capped.stdout.split("\r\n").filter((line) => line !== "");
        assertEquals(lines.length, 11, capped.stdout);
        assertEquals(lines[0], "k,name");
        const big = await runCli(["query", "--format", "json", `SELECT n FROM ${SMALL_TABLE} WHERE k = 8`]);
        assertEquals(big.stdout, `[\n{"n":900000000000000000}\n]\n`);
      });

      await t.step("query: a server error stops the script with its code name, exit 1", async () => {
        const result = await runCli([
          "query",
          `SELECT k FROM ${SMALL_TABLE} WHERE k = 1; SELECT nope FROM ${SMALL_TABLE}; SELECT k FROM ${SMALL_TABLE}`,
        ]);
        assertEquals(result.code, 1, describe(result));
        assertStringIncludes(result.stdout, "(1 rows)");
        assertMatch(result.stderr, /^error: .*Invalid.*\(0x2200\).*nope.*\n$/i);
        assertEquals(result.stdout.match(/rows\)/g)?.length, 1, "the statement after the error did not run");
      });

      await t.step("query --trace prints the session's events", async () => {
        const result = await runCli(["query", "--trace", `SELECT k FROM ${SMALL_TABLE} WHERE k = 3`]);
        assertEquals(result.code, 0, describe(result));
        assertMatch(result.stdout, /Tracing session: [0-9a-f-]{36}/);
        assertStringIncludes(result.stdout, "activity");
        assertMatch(result.stdout, /Parsing SELECT k FROM/);
      });

      await t.step("round trip: query --format csv output loads back into an identical table", async () => {
        const exported = await runCli(["query", "--format", "csv", `SELECT * FROM ${TYPES_TABLE}`]);
        assertEquals(exported.code, 0, describe(exported));
        await Deno.writeTextFile(`${work}/export.csv`, exported.stdout);
        const loaded = await runCli([
          "load",
          `${work}/export.csv`,
          "--table",
          COPY_TABLE,
          "--bad-dir",
          `${work}/bad-copy`,
          "--json",
        ]);
        assertEquals(loaded.code, 0, describe(loaded));
        const summary = JSON.parse(loaded.stdout);
        assertEquals([summary.rowsLoaded, summary.badRows, summary.aborted], [3, 0, null]);
        const original = await queryJson(`SELECT * FROM ${TYPES_TABLE}`);
        const copy = await queryJson(`SELECT * FROM ${COPY_TABLE}`);
        assertEquals(copy.rows.sort(byIdThenLabel), original.rows.sort(byIdThenLabel));
      });

      await t.step(
        "load: no header with --map by index, other delimiter, --null-value, config with flag overrides",
        async () => {
          await Deno.writeTextFile(`${work}/plain.tsv`, "100\tNULL\tx\n101\t\\N\ty\n102\tnamed\tz\n");
          await Deno.writeTextFile(
            `${work}/job.json`,
            JSON.stringify({
              load: { table: SMALL_TABLE, header: true, delimiter: ",", nullValues: ["NULL"], badDir: "from-config" },
            }),
          );
          const result = await runCli([
            "--config",
            `${work}/job.json`,
            "load",
            `${work}/plain.tsv`,
            "--header",
            "false",
            "--delimiter",
            "\\t",
            "--map",
            "0=k,1=name",
            "--null-value",
            "NULL",
            "--null-value",
            "\\N",
            "--bad-dir",
            `${work}/bad-plain`,
            "--json",
          ]);
          assertEquals(result.code, 0, describe(result));
          assertEquals(JSON.parse(result.stdout).rowsLoaded, 3);
          const rows = (await queryJson(`SELECT k, name FROM ${SMALL_TABLE} WHERE k IN (100, 101, 102)`)).rows;
          assertEquals(rows.sort((a, b) => Number(a.k) - Number(b.k)), [
            { k: 100, name: null },
            { k: 101, name: null },
            { k: 102, name: "named" },
          ]);
          const configDirUsed = await Deno.stat(`${work}/from-config`).then(() => true, () => false);
          assertEquals(configDirUsed, false, "--bad-dir overrides the config's badDir");
        },
      );

      await t.step("load: --max-errors aborts with exit 1 and a header mismatch is a usage error", async () => {
        const lines = ["k,name"];
        for (let k = 0; k < 50; k++) lines.push(`x${k},name`);
        await Deno.writeTextFile(`${work}/all-bad.csv`, lines.join("\n"));
        const aborted = await runCli([
          "load",
          `${work}/all-bad.csv`,
          "--table",
          SMALL_TABLE,
          "--max-errors",
          "5",
          "--bad-dir",
          `${work}/bad-abort`,
        ]);
        assertEquals(aborted.code, 1, describe(aborted));
        assertStringIncludes(aborted.stderr, "--max-errors 5");
        const badLines = (await Deno.readTextFile(`${work}/bad-abort/all-bad.bad`)).trimEnd().split("\n");
        assertEquals(badLines.length, 6);

        await Deno.writeTextFile(`${work}/wrong-header.csv`, "k,nickname\n1,x\n");
        const mismatch = await runCli([
          "load",
          `${work}/wrong-header.csv`,
          "--table",
          SMALL_TABLE,
          "--bad-dir",
          `${work}/bad-h`,
        ]);
        assertEquals(mismatch.code, 2, describe(mismatch));
        assertStringIncludes(mismatch.stderr, "'nickname' match no column");

        const missing = await runCli(["load", `${work}/wrong-header.csv`, "--table", `${KEYSPACE}.no_such_table`]);
        assertEquals(missing.code, 1, describe(missing));
        assertStringIncludes(missing.stderr, "does not exist");
      });
    } finally {
      await runCli([
        "query",
        `DROP TABLE IF EXISTS ${TYPES_TABLE}; DROP TABLE IF EXISTS ${COPY_TABLE}; DROP TABLE IF EXISTS ${SMALL_TABLE}; DROP TABLE IF EXISTS ${DURATION_TABLE}; DROP TABLE IF EXISTS ${JS_PATH_TABLE}; DROP TABLE IF EXISTS ${BATCH_TABLE}`,
      ]);
      await Deno.remove(work, { recursive: true });
    }
  },
});
