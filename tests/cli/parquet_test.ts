// load of Parquet files (issue #14 item 6) through bin/cqlwire against the real local
// Cassandra. The files in tests/cli/parquet/ were written by pyarrow (make_fixtures.py), not
// by the reader under test; the values read back are compared as exact text (NaN, -0, int64
// and uint64 extremes, decimals, times and timestamps to the last digit). They fail when no
// server answers; no switch skips them.

import { assertEquals, assertStringIncludes } from "./assert.ts";
import { explainResult as explain, REPO_ROOT, runCli, runCliOk as succeed } from "./run.ts";

const KEYSPACE = "parquet_cli_test";
const RUN = `${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`;
const FIXTURES = `${REPO_ROOT}/tests/cli/parquet`;

const TYPE_COLUMNS = "id int PRIMARY KEY, b boolean, i8 tinyint, i16 smallint, i32 int, i64 bigint, u8 smallint, " +
  "u16 int, u32 bigint, u64 varint, f16 float, f32 float, f64 double, dec decimal, d date, t_ms time, t_us time, " +
  "t_ns time, ts_ms timestamp, ts_us timestamp, ts_ns timestamp, ts_local timestamp, s text, j text, u uuid, " +
  "bl blob, fx blob, li list<bigint>, ls list<text>, ld list<double>";
const NAMES = TYPE_COLUMNS.split(", ").map((column) => column.split(" ")[0]);

/** Each row of types.parquet as `query --format csv` prints it (header first). */
const TYPE_ROWS: Record<number, string> = {
  1: "1,true,-128,-32768,-2147483648,-9223372036854775808,0,0,0,0,1.5,NaN,-Infinity," +
    "-12345678901234567890.1234567890,0001-01-01,00:00:00,00:00:00,00:00:00,0001-01-01T00:00:00.000Z," +
    '2023-11-14T22:13:20.123Z,2023-11-14T22:13:20.123Z,2023-11-14T22:13:20.123Z,"héllo ""q"" \\ \n\t",' +
    '"{""a"": [1, 2]}",00000000-0000-0000-0000-000000000001,0x00ff,0x00010203,' +
    '"[-9223372036854775808, 9223372036854775807]","[\'a\', \'b,c\']","[NaN, -0, Infinity]"',
  2: "2,false,127,32767,2147483647,9223372036854775807,255,65535,4294967295,18446744073709551615,-0,-0,-0,1E-10," +
    "9999-12-31,23:59:59.999000000,23:59:59.999999000,23:59:59.999999999,9999-12-31T23:59:59.999Z," +
    '1969-12-31T23:59:59.999Z,1969-12-31T23:59:59.999Z,1970-01-01T00:00:00.000Z,"",null,' +
    "123e4567-e89b-12d3-a456-426614174000,0x,0xffffffff,,['é'],[1.5]",
  3: "3,true,0,0,0,0,1,1,1,9223372036854775808,65504,0.1,4.9e-324,0E-10,1970-01-01,00:00:00.001000000," +
    "00:00:00.000001000,00:00:00.000000001,1970-01-01T00:00:00.001Z,1970-01-01T00:00:00.000Z," +
    "1970-01-01T00:00:00.000Z,1970-01-01T00:00:00.001Z,日本,3,ffffffff-ffff-ffff-ffff-ffffffffffff,0x225c," +
    "0x61626364,[0],,",
  4: "4" + ",".repeat(NAMES.length - 1),
};

async function csvRow(
  table: string,
  columns: string,
  id: number,
): Promise<string> {
  const result = await succeed([
    "query",
    "--format",
    "csv",
    `SELECT ${columns} FROM ${table} WHERE id = ${id}`,
  ]);
  const [, ...rows] = result.stdout.split("\r\n");
  return rows.join("\r\n").replace(/\r\n$/, "");
}

async function idsOf(table: string): Promise<number[]> {
  const result = await succeed([
    "query",
    "--format",
    "json",
    `SELECT id FROM ${table}`,
  ]);
  return (JSON.parse(result.stdout) as Array<{ id: number }>).map((row) => row.id).sort((a, b) => a - b);
}

function load(file: string, table: string, work: string, ...more: string[]) {
  return runCli([
    "load",
    `${FIXTURES}/${file}`,
    "--table",
    table,
    "--bad-dir",
    `${work}/bad`,
    "--quiet",
    ...more,
  ]);
}

Deno.test({
  name: "Parquet input against a live Cassandra",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const work = await Deno.makeTempDir({ prefix: "cqlwire-parquet-" });
    const types = `${KEYSPACE}.types_${RUN}`;
    const unset = `${KEYSPACE}.unset_${RUN}`;
    const mismatch = `${KEYSPACE}.mismatch_${RUN}`;
    const legacy = `${KEYSPACE}.legacy_${RUN}`;
    const bad = `${KEYSPACE}.bad_${RUN}`;
    const limits = `${KEYSPACE}.limits_${RUN}`;
    const resumed = `${KEYSPACE}.resumed_${RUN}`;
    await succeed(
      ["query", "-"],
      `CREATE KEYSPACE IF NOT EXISTS ${KEYSPACE}
         WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
       CREATE TABLE ${types} (${TYPE_COLUMNS});
       CREATE TABLE ${unset} (id int PRIMARY KEY, s text, ts_local timestamp);
       CREATE TABLE ${mismatch} (${TYPE_COLUMNS.replace("b boolean", "b int")});
       CREATE TABLE ${legacy} (id int PRIMARY KEY, ts96 timestamp, d32 decimal, d64 decimal);
       CREATE TABLE ${bad} (id int PRIMARY KEY, n int, ts timestamp, s text);
       CREATE TABLE ${limits} (id int PRIMARY KEY, n bigint, ts timestamp, s blob);
       CREATE TABLE ${resumed} (id int PRIMARY KEY, n int, ts timestamp, s text);`,
    );
    try {
      await t.step(
        "every type, nulls and lists over two zstd row groups read back exactly",
        async () => {
          const result = await load("types.parquet", types, work);
          assertEquals(result.code, 0, explain(result));
          for (const id of [1, 2, 3, 4]) {
            assertEquals(
              await csvRow(types, NAMES.join(", "), id),
              TYPE_ROWS[id],
              `row ${id}`,
            );
          }
        },
      );

      await t.step(
        "a null leaves its column unset by default, --null-to-unset false writes null",
        async () => {
          await succeed([
            "query",
            `INSERT INTO ${unset} (id, s, ts_local) VALUES (4, 'kept', 0)`,
          ]);
          const map = ["--map", "id=id,s=s,ts_local=ts_local"];
          assertEquals(
            (await load("types.parquet", unset, work, ...map)).code,
            0,
          );
          assertEquals(await csvRow(unset, "id, s", 4), "4,kept");
          // A local timestamp (isAdjustedToUTC=false) takes --time-zone: 22:13 at +02:00 is 20:13 UTC.
          assertEquals(
            await csvRow(unset, "id, ts_local", 1),
            "1,2023-11-14T22:13:20.123Z",
          );
          const zoned = await load(
            "types.parquet",
            unset,
            work,
            ...map,
            "--time-zone",
            "+02:00",
            "--null-to-unset",
            "false",
          );
          assertEquals(zoned.code, 0, explain(zoned));
          assertEquals(await csvRow(unset, "id, s, ts_local", 4), "4,,");
          assertEquals(
            await csvRow(unset, "id, ts_local", 1),
            "1,2023-11-14T20:13:20.123Z",
          );
        },
      );

      await t.step(
        "a Parquet type that cannot go to its column stops before any row",
        async () => {
          const result = await load("types.parquet", mismatch, work);
          assertEquals(result.code, 2, explain(result));
          assertStringIncludes(
            result.stderr,
            `${FIXTURES}/types.parquet: Parquet column 'b' (BOOLEAN) cannot go to column 'b' (int): the types do not match`,
          );
          assertEquals(await idsOf(mismatch), []);
          const create = await load("types.parquet", `${KEYSPACE}.created_${RUN}`, work, "--create-table", "--key", "id");
          assertEquals(create.code, 2, explain(create));
          assertStringIncludes(create.stderr, "--create-table cannot sniff a Parquet input yet");
        },
      );

      await t.step("a file that is no Parquet, or a damaged page, stops the load with its place", async () => {
        const notParquet = `${work}/text.parquet`;
        await Deno.writeTextFile(notParquet, "id,n\n1,2\n");
        const refused = await runCli(["load", notParquet, "--table", bad, "--quiet"]);
        assertEquals(refused.code, 2, explain(refused));
        assertStringIncludes(refused.stderr, `${notParquet}: not a readable Parquet file: `);
        // Bytes 200 to 259 of bad.parquet lie inside its first row group's pages.
        const damaged = await Deno.readFile(`${FIXTURES}/bad.parquet`);
        damaged.fill(0x55, 200, 260);
        await Deno.writeFile(`${work}/damaged.parquet`, damaged);
        const failed = await runCli(["load", `${work}/damaged.parquet`, "--table", bad, "--quiet"]);
        assertEquals(failed.code, 1, explain(failed));
        assertStringIncludes(failed.stderr, `${work}/damaged.parquet: row group 0 cannot be read: `);
        assertEquals(await idsOf(bad), []);
      });

      await t.step(
        "INT96 timestamps, decimals stored as INT32 and INT64, gzip pages",
        async () => {
          const result = await load("legacy.parquet", legacy, work);
          assertEquals(result.code, 0, explain(result));
          assertEquals(
            await csvRow(legacy, "id, ts96, d32, d64", 1),
            "1,2023-11-14T22:13:20.123Z,-1234567.89,-12345678901234.5678",
          );
          assertEquals(
            await csvRow(legacy, "id, ts96, d32, d64", 2),
            "2,1968-01-12T20:06:43.200Z,0.01,1.0000",
          );
        },
      );

      await t.step(
        "bad rows go to the .bad file as JSON lines, located by row group and row",
        async () => {
          const result = await load("bad.parquet", bad, work);
          assertEquals(result.code, 3, explain(result));
          assertEquals(await idsOf(bad), [0, 1, 3, 5, 6, 8, 9]);
          assertEquals(
            await Deno.readFile(`${work}/bad/bad.bad`),
            new Uint8Array([
              ...new TextEncoder().encode(
                '{"id":2,"n":2147483648,"ts":"1970-01-01T00:00:00.000000Z","s":"ok"}\n' +
                  '{"id":4,"n":5,"ts":"1970-01-01T00:00:00.001500Z","s":"ok"}\n' +
                  '{"id":7,"n":8,"ts":"1970-01-01T00:00:00.000000Z","s":"',
              ),
              0xff,
              0xfe,
              ...new TextEncoder().encode('"}\n'),
            ]),
          );
          const log = (await Deno.readTextFile(`${work}/bad/bad.errors.log`))
            .split("\n");
          const source = `${FIXTURES}/bad.parquet`;
          assertEquals(log, [
            `${source}: row group 0, row 2 (file row 2, from 0): column n: expected int, got '2147483648' (at byte 0): ` +
            `out of range; value "2147483648"`,
            `${source}: row group 1, row 1 (file row 4, from 0): column ts: expected timestamp, got ` +
            `'1970-01-01T00:00:00.001500Z' (at byte 0): timestamps hold milliseconds: the sub-millisecond digits would ` +
            `be lost; value "1970-01-01T00:00:00.001500Z"`,
            `${source}: row group 2, row 1 (file row 7, from 0): invalid UTF-8 at byte 54`,
            "",
          ]);
        },
      );

      await t.step(
        "--skip-records and --max-records count Parquet rows",
        async () => {
          const result = await load(
            "bad.parquet",
            limits,
            work,
            "--skip-records",
            "3",
            "--max-records",
            "4",
          );
          assertEquals(result.code, 3, explain(result));
          // Rows 3 to 6 are read; row 4 has sub-millisecond digits. A plain BYTE_ARRAY goes to a blob as it is.
          assertEquals(await idsOf(limits), [3, 5, 6]);
        },
      );

      await t.step(
        "--max-errors stops at the bad row, --resume goes on from its checkpoint",
        async () => {
          const stopped = await load(
            "bad.parquet",
            resumed,
            work,
            "--max-errors",
            "1",
          );
          assertEquals(stopped.code, 1, explain(stopped));
          assertStringIncludes(
            stopped.stderr,
            "load aborted: stopped after 1 bad rows (--max-errors 1)",
            explain(stopped),
          );
          const checkpoint = [...Deno.readDirSync(`${work}/bad`)].find((
            entry,
          ) =>
            entry.name.includes(`resumed_${RUN}`) &&
            entry.name.endsWith(".checkpoint.json")
          );
          const saved = JSON.parse(
            await Deno.readTextFile(`${work}/bad/${checkpoint!.name}`),
          );
          // The watermark is a row: rows 0 and 1 loaded, row 2 bad, so reading goes on at row 3.
          assertEquals([
            saved.files[0].offset,
            saved.files[0].line,
            saved.files[0].badRows,
          ], [3, 4, 1]);
          const again = await load("bad.parquet", resumed, work, "--resume");
          assertEquals(again.code, 3, explain(again));
          assertEquals(await idsOf(resumed), [0, 1, 3, 5, 6, 8, 9]);
          const lines = (await Deno.readTextFile(`${work}/bad/bad.bad`)).split(
            "\n",
          ).map((line) => line.slice(0, 8));
          assertEquals(lines, ['{"id":2,', '{"id":4,', '{"id":7,', ""]);
        },
      );
    } finally {
      await runCli(["query", `DROP KEYSPACE IF EXISTS ${KEYSPACE}`]);
      await Deno.remove(work, { recursive: true });
    }
  },
});
