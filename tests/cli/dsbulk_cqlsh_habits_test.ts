// What a user coming from cqlsh or DSBulk types, against the real local Cassandra (cli/README.md,
// "Coming from DSBulk or cqlsh COPY" and "Coming from cqlsh: query"): a failing statement of a
// script is named by FILE:LINE as cqlsh names it, `-t TABLE` with `-k KEYSPACE` and `--url` as
// DSBulk's `-t`, `-k` and `-url`, and `query --format jsonl`. These tests fail when no server answers.

import { assertEquals } from "./assert.ts";
import { createKeyspace, ok } from "./cli_helpers.ts";
import { runCli } from "./run.ts";

const KEYSPACE = "cligaps_habits";

/** A script whose third statement (on line 5, after a comment) fails, and two after it. */
const SCRIPT = [
  `CREATE TABLE IF NOT EXISTS ${KEYSPACE}.s (id int PRIMARY KEY, v text);`,
  `INSERT INTO ${KEYSPACE}.s (id, v) VALUES (1, 'a');`,
  "",
  "-- the next one has a typo",
  `INSERT INTO ${KEYSPACE}.s (id, nope) VALUES (2, 'a long value that is cut in the message');`,
  `INSERT INTO ${KEYSPACE}.s (id, v) VALUES (3, 'c'); SELECT * FROM ${KEYSPACE}.s;`,
].join("\n");

const FAILURE = `Invalid (0x2200) from 127.0.0.1:9042: Undefined column name nope in table ${KEYSPACE}.s ` +
  `(in "INSERT INTO ${KEYSPACE}.s (id, nope) VALUES (2, 'a long v…"); 2 later statements not run`;

Deno.test("query: the statement that fails is named by FILE:LINE (or <stdin>:LINE) and its start, and stops the script", async () => {
  await createKeyspace(KEYSPACE);
  await ok(["query", `DROP TABLE IF EXISTS ${KEYSPACE}.s`]);
  const dir = await Deno.makeTempDir({ prefix: "cligaps_" });
  try {
    await Deno.writeTextFile(`${dir}/schema.cql`, SCRIPT);
    const fromFile = await runCli(["query", "-f", `${dir}/schema.cql`]);
    assertEquals([fromFile.code, fromFile.stdout, fromFile.stderr], [1, "", `error: ${dir}/schema.cql:5: ${FAILURE}\n`]);
    const fromStdin = await runCli(["query", "-"], { stdin: SCRIPT });
    assertEquals([fromStdin.code, fromStdin.stderr], [1, `error: <stdin>:5: ${FAILURE}\n`]);
    const fromArgument = await runCli(["query", SCRIPT]);
    assertEquals([fromArgument.code, fromArgument.stderr], [1, `error: <command line>:5: ${FAILURE}\n`]);
    // Stopped at the failure: row 3 was never written.
    const rows = await ok(["query", `SELECT id FROM ${KEYSPACE}.s`, "--format", "csv"]);
    assertEquals(rows.stdout, "id\r\n1\r\n");
    // A lone statement on the command line is not pointed at.
    const alone = await runCli(["query", `SELECT nope FROM ${KEYSPACE}.s`]);
    assertEquals([alone.code, alone.stderr], [1, `error: Invalid (0x2200) from 127.0.0.1:9042: Undefined column name nope in table ${KEYSPACE}.s\n`]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("query --format jsonl: one JSON object a line, as unload --format jsonl writes them", async () => {
  await createKeyspace(KEYSPACE);
  await ok(["query", `CREATE TABLE IF NOT EXISTS ${KEYSPACE}.j (id int PRIMARY KEY, l list<text>)`]);
  await ok(["query", `INSERT INTO ${KEYSPACE}.j (id, l) VALUES (1, ['a"b']); INSERT INTO ${KEYSPACE}.j (id) VALUES (2)`]);
  const select = `SELECT id, l FROM ${KEYSPACE}.j WHERE id IN (1, 2)`;
  const query = await ok(["query", select, "--format", "jsonl", "--page-size", "1"]);
  assertEquals(query.stdout, `{"id":1,"l":["a\\"b"]}\n{"id":2,"l":null}\n`);
  const unload = await ok(["unload", "--query", select, "--format", "jsonl", "--quiet"]);
  assertEquals(unload.stdout, query.stdout);
  const empty = await ok(["query", `SELECT id FROM ${KEYSPACE}.j WHERE id = 3`, "--format", "jsonl"]);
  assertEquals(empty.stdout, "");
});

Deno.test("load, unload, count: -t TABLE resolved in -k KEYSPACE, and --url for the input or output, as DSBulk's -t, -k, -url", async () => {
  await createKeyspace(KEYSPACE);
  await ok(["query", `DROP TABLE IF EXISTS ${KEYSPACE}.people`]);
  await ok(["query", `CREATE TABLE ${KEYSPACE}.people (id int PRIMARY KEY, name text)`]);
  const dir = await Deno.makeTempDir({ prefix: "cligaps_" });
  try {
    await Deno.writeTextFile(`${dir}/a.csv`, "id,name\n1,ann\n2,bob\n");
    await Deno.writeTextFile(`${dir}/b.csv`, "id,name\n3,cy\n");
    const load = await ok(["load", "-k", KEYSPACE, "-t", "people", `${dir}/a.csv`, "--url", `${dir}/b.csv`, "--bad-dir", `${dir}/bad`, "--quiet", "--json"]);
    assertEquals([JSON.parse(load.stdout).rowsLoaded, JSON.parse(load.stdout).badRows], [3, 0], load.stdout);
    const count = await ok(["count", "-t", "people", "-k", KEYSPACE]);
    assertEquals(count.stdout, "3\n");
    await ok(["-k", KEYSPACE, "unload", "-t", "people", "--url", `${dir}/out.csv`, "--quiet"]);
    const lines = (await Deno.readTextFile(`${dir}/out.csv`)).trim().split(/\r?\n/);
    assertEquals([lines[0], lines.slice(1).sort()], ["id,name", ["1,ann", "2,bob", "3,cy"]]);
    const both = await runCli(["unload", "-t", `${KEYSPACE}.people`, "--out", `${dir}/x.csv`, "--url", `${dir}/y.csv`]);
    assertEquals([both.code, both.stderr], [2, "error: give either --out or --url, not both\n"]);
    const noKeyspace = await runCli(["count", "-t", "people"]);
    assertEquals([noKeyspace.code, noKeyspace.stderr], [2, "error: --table people has no keyspace: write keyspace.table or give --keyspace\n"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
