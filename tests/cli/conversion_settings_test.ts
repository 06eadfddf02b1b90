// load's conversion settings (issue #14 items 2 and 3) through bin/cqlwire against the real
// local Cassandra: empty is unset by default, and the core reads time zones, patterns,
// epoch units, boolean words, locale numbers, base64 blobs, overflow and rounding as told.
// These tests fail when no server answers; no switch skips them.

import { assertEquals, assertStringIncludes } from "./assert.ts";
import { loadText } from "./cli_helpers.ts";
import { type CliResult, runCli } from "./run.ts";

const KEYSPACE = "convert_cli";
const RUN = `${Date.now().toString(36)}_${
  Math.floor(Math.random() * 1e6).toString(36)
}`;

function explain(result: CliResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

async function succeed(args: string[], stdin?: string): Promise<CliResult> {
  const result = await runCli(args, stdin === undefined ? {} : { stdin });
  assertEquals(result.code, 0, explain(result));
  return result;
}

/** Rows of a SELECT as JSON objects, in the order the server gives. */
async function select(
  statement: string,
): Promise<Array<Record<string, unknown>>> {
  const result = await succeed(["query", "--format", "json", statement]);
  return JSON.parse(result.stdout);
}

/** Loads `csv` into `table` from a file of its own in `work`. */
function load(work: string, table: string, csv: string, flags: string[]): Promise<CliResult> {
  return loadText(work, `${table.split(".")[1]}_${Math.random().toString(36).slice(2)}.csv`, table, csv, flags);
}

Deno.test({
  name: "conversion settings against a live Cassandra",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const work = await Deno.makeTempDir({ prefix: "cqlwire-convert-" });
    const keep = `${KEYSPACE}.keep_${RUN}`;
    const typed = `${KEYSPACE}.typed_${RUN}`;
    await succeed(
      ["query", "-"],
      `
      CREATE KEYSPACE IF NOT EXISTS ${KEYSPACE}
        WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
      CREATE TABLE ${keep} (id int PRIMARY KEY, a text, b int);
      CREATE TABLE ${typed} (id int PRIMARY KEY, ts timestamp, d date, tm time, flag boolean, n int, big bigint,
        dbl double, dec decimal, bl blob, tiny tinyint);
    `,
    );
    try {
      await t.step(
        "an empty field leaves an existing value alone by default",
        async () => {
          await succeed([
            "query",
            `INSERT INTO ${keep} (id, a, b) VALUES (1, 'kept', 5)`,
          ]);
          await succeed([
            "query",
            `INSERT INTO ${keep} (id, a, b) VALUES (2, 'kept', 6)`,
          ]);
          const result = await load(work, keep, "id,a,b\n1,,\n2,NULL,7\n", [
            "--null-value",
            "",
            "--null-value",
            "NULL",
          ]);
          assertEquals(result.code, 0, explain(result));
          assertEquals(
            await select(`SELECT id, a, b FROM ${keep} WHERE id IN (1, 2)`),
            [
              { id: 1, a: "kept", b: 5 },
              { id: 2, a: "kept", b: 7 },
            ],
          );
          // No cell was written: the value's write time is the INSERT's, not the load's.
          const [before] = await select(
            `SELECT WRITETIME(a) AS w FROM ${keep} WHERE id = 1`,
          );
          await load(work, keep, "id,a,b\n1,,\n", []);
          assertEquals(
            await select(`SELECT WRITETIME(a) AS w FROM ${keep} WHERE id = 1`),
            [before],
          );
        },
      );

      await t.step("a JSON Lines null leaves the value alone too", async () => {
        await succeed(["query", `INSERT INTO ${keep} (id, a, b) VALUES (4, 'kept', 10)`]);
        const path = `${work}/nulls.jsonl`;
        await Deno.writeTextFile(path, '{"id": 4, "a": null, "b": 11}\n');
        const result = await runCli(["load", "--table", keep, "--bad-dir", `${work}/bad`, "--quiet", path]);
        assertEquals(result.code, 0, explain(result));
        assertEquals(await select(`SELECT id, a, b FROM ${keep} WHERE id = 4`), [{ id: 4, a: "kept", b: 11 }]);
      });

      await t.step(
        "--null-to-unset false writes null over the value",
        async () => {
          const result = await load(work, keep, "id,a,b\n1,,\n", [
            "--null-to-unset",
            "false",
          ]);
          assertEquals(result.code, 0, explain(result));
          assertEquals(
            await select(`SELECT id, a, b FROM ${keep} WHERE id = 1`),
            [{ id: 1, a: null, b: null }],
          );
        },
      );

      await t.step(
        "the job config's nullToUnset: false does the same",
        async () => {
          await succeed([
            "query",
            `INSERT INTO ${keep} (id, a, b) VALUES (3, 'kept', 8)`,
          ]);
          const config = `${work}/job.json`;
          await Deno.writeTextFile(
            config,
            JSON.stringify({ load: { nullToUnset: false } }),
          );
          const result = await load(work, keep, "id,a,b\n3,,9\n", [
            "--config",
            config,
          ]);
          assertEquals(result.code, 0, explain(result));
          assertEquals(
            await select(`SELECT id, a, b FROM ${keep} WHERE id = 3`),
            [{ id: 3, a: null, b: 9 }],
          );
        },
      );

      await t.step(
        "an empty primary key is still a bad row, with its reason",
        async () => {
          const result = await load(work, keep, "id,a,b\n,x,1\n", []);
          assertEquals(result.code, 3, explain(result));
          const log = await Deno.readTextFile(
            `${work}/bad/${(await badStem(work))}.errors.log`,
          );
          assertStringIncludes(log, "partition key column id is null");
        },
      );

      await t.step(
        "patterns, zone, words, locale numbers, base64, rounding and saturation",
        async () => {
          const flags = [
            "--delimiter",
            ";",
            "--timestamp-format",
            "%d/%m/%Y %I:%M:%S %p",
            "--date-format",
            "%d.%m.%Y",
            "--time-format",
            "%Hh%M",
            "--time-zone",
            "+02:00",
            "--true-words",
            "ja,J",
            "--false-words",
            "nein,N",
            "--decimal-separator",
            ",",
            "--grouping-separator",
            ".",
            "--blob-format",
            "base64",
            "--rounding",
            "half-even",
            "--overflow",
            "saturate",
          ];
          const csv = "id;ts;d;tm;flag;n;big;dbl;dec;bl;tiny\n" +
            "1;05/03/2024 08:07:08 AM;29.02.2024;23h59;ja;1.234.567;-9.223.372.036.854.775.809;-1.234,5;1.234,50;3q2+7w==;2,5\n" +
            "2;1709618828000;01.01.1970;00h00;N;-2,5;7;0,25;-0,001;0xcafe;-300\n";
          const result = await load(work, typed, csv, flags);
          assertEquals(result.code, 0, explain(result));
          // CSV, so that 64-bit integers and decimals are compared as the server's exact text.
          const rows = await succeed([
            "query",
            "--format",
            "csv",
            `SELECT * FROM ${typed} WHERE id IN (1, 2)`,
          ]);
          assertEquals(
            rows.stdout,
            "id,big,bl,d,dbl,dec,flag,n,tiny,tm,ts\r\n" +
              "1,-9223372036854775808,0xdeadbeef,2024-02-29,-1234.5,1234.50,true,1234567,2,23:59:00," +
              "2024-03-05T06:07:08.000Z\r\n" +
              "2,7,0xcafe,1970-01-01,0.25,-0.001,false,-2,-128,00:00:00,2024-03-05T06:07:08.000Z\r\n",
          );
        },
      );

      await t.step(
        "by default a fraction, an overflow and a foreign pattern are bad rows",
        async () => {
          const csv =
            "id,n,tiny,ts\n10,2.5,1,2024-01-01\n11,1,300,2024-01-01\n12,1,1,05/03/2024\n13,1,1,2024-01-01\n";
          const result = await load(work, typed, csv, []);
          assertEquals(result.code, 3, explain(result));
          assertEquals(
            await select(
              `SELECT id FROM ${typed} WHERE id IN (10, 11, 12, 13)`,
            ),
            [{ id: 13 }],
          );
        },
      );

      await t.step(
        "a zone name follows daylight saving, both ways (load, then unload)",
        async () => {
          // New York: 2024-03-10 02:00 local does not exist (clocks go to 03:00), 2024-11-03
          // 01:30 local happens twice. java.time (DSBulk) takes the earlier instant in the
          // overlap and moves a time in the gap forward by the gap.
          const csv = "id,ts\n" +
            "30,2024-01-15 12:00:00\n" + // EST, -05:00
            "31,2024-07-15 12:00:00\n" + // EDT, -04:00
            "32,2024-03-10 02:30:00\n" + // in the gap: 03:30 EDT
            "33,2024-11-03 01:30:00\n" + // in the overlap: the first, EDT
            "34,2024-11-03 01:30:00-05:00\n" + // a written offset wins
            "35,1950-06-01 00:00:00\n"; // EDT in 1950 too
          const result = await load(work, typed, csv, ["--time-zone", "America/New_York"]);
          assertEquals(result.code, 0, explain(result));
          const rows = await succeed([
            "query",
            "--format",
            "csv",
            `SELECT id, ts FROM ${typed} WHERE id IN (30, 31, 32, 33, 34, 35)`,
          ]);
          assertEquals(
            rows.stdout,
            "id,ts\r\n" +
              "30,2024-01-15T17:00:00.000Z\r\n" +
              "31,2024-07-15T16:00:00.000Z\r\n" +
              "32,2024-03-10T07:30:00.000Z\r\n" +
              "33,2024-11-03T05:30:00.000Z\r\n" +
              "34,2024-11-03T06:30:00.000Z\r\n" +
              "35,1950-06-01T04:00:00.000Z\r\n",
          );
          const out = await succeed([
            "unload",
            "--query",
            `SELECT id, ts FROM ${typed} WHERE id IN (30, 31, 32, 33, 34, 35)`,
            "--time-zone",
            "America/New_York",
            "--quiet",
          ]);
          assertEquals(
            out.stdout,
            "id,ts\r\n" +
              "30,2024-01-15T12:00:00-05:00\r\n" +
              "31,2024-07-15T12:00:00-04:00\r\n" +
              "32,2024-03-10T03:30:00-04:00\r\n" +
              "33,2024-11-03T01:30:00-04:00\r\n" +
              "34,2024-11-03T01:30:00-05:00\r\n" +
              "35,1950-06-01T00:00:00-04:00\r\n",
          );
        },
      );

      await t.step(
        "a zone nobody knows stops the load with the reason",
        async () => {
          const result = await load(work, typed, "id\n20\n", [
            "--time-zone",
            "Mars/Olympus_Mons",
          ]);
          assertEquals(result.code, 1, explain(result));
          assertStringIncludes(
            result.stderr,
            'time zone "Mars/Olympus_Mons": not UTC, a fixed offset such as +02:00, or a zone name this runtime knows (Europe/Paris)',
          );
        },
      );
    } finally {
      await runCli([
        "query",
        `DROP TABLE IF EXISTS ${keep}; DROP TABLE IF EXISTS ${typed}`,
      ]);
      await Deno.remove(work, { recursive: true });
    }
  },
});

/** The stem of the most recent .errors.log in the bad-row directory. */
async function badStem(work: string): Promise<string> {
  let newest: { name: string; mtime: number } | null = null;
  for await (const entry of Deno.readDir(`${work}/bad`)) {
    if (!entry.name.endsWith(".errors.log")) continue;
    const mtime =
      (await Deno.stat(`${work}/bad/${entry.name}`)).mtime?.getTime() ?? 0;
    if (newest === null || mtime >= newest.mtime) {
      newest = { name: entry.name, mtime };
    }
  }
  return newest!.name.slice(0, -".errors.log".length);
}
