// `cqlwire query --time-zone`: timestamps printed as local time in a zone, with its offset, by
// the core's one formatter (format_text_with, as `unload --time-zone` writes them), in every
// output format, on both sides of a daylight-saving change; UTC stays the default; an unknown
// zone is refused naming it. Against the real local Cassandra.
import { assertEquals } from "./assert.ts";
import { createKeyspace, ok } from "./cli_helpers.ts";
import { runCli } from "./run.ts";

const KEYSPACE = "gaps_cli_query_tz";
const TABLE = `${KEYSPACE}.t_${Date.now().toString(36)}`;
// 06:59:59 UTC is 01:59:59 EST, the last second before New York's clocks go forward on
// 2024-03-10; 07:00:00.250 UTC is 03:00:00.250 EDT. Kolkata is +05:30 all year.
const SELECT = `SELECT id, ts, tl FROM ${TABLE} WHERE id IN (1, 2, 3)`;

Deno.test("query --time-zone: local times with their offset in table, json, jsonl and csv", async (t) => {
  await createKeyspace(KEYSPACE);
  await ok([
    "query",
    `CREATE TABLE ${TABLE} (id int PRIMARY KEY, ts timestamp, tl list<timestamp>);
     INSERT INTO ${TABLE} (id, ts, tl) VALUES (1, '2024-03-10T06:59:59.000Z', ['2024-03-10T06:59:59.000Z']);
     INSERT INTO ${TABLE} (id, ts) VALUES (2, '2024-03-10T07:00:00.250Z');
     INSERT INTO ${TABLE} (id) VALUES (3)`,
  ]);
  try {
    await t.step("table: America/New_York across the spring change; a list keeps UTC; null stays null", async () => {
      const out = await ok(["query", SELECT, "--time-zone", "America/New_York"]);
      assertEquals(
        out.stdout,
        " id | ts                            | tl\n" +
          "----+-------------------------------+------------------------------\n" +
          "  1 |     2024-03-10T01:59:59-05:00 | ['2024-03-10T06:59:59.000Z']\n" +
          "  2 | 2024-03-10T03:00:00.250-04:00 |                         null\n" +
          "  3 |                          null |                         null\n\n(3 rows)\n",
      );
    });

    await t.step("json, jsonl and csv: the same text; a fixed offset and Asia/Kolkata agree", async () => {
      const json = await ok(["query", SELECT, "--format", "json", "--time-zone", "Asia/Kolkata"]);
      assertEquals(
        json.stdout,
        '[\n{"id":1,"ts":"2024-03-10T12:29:59+05:30","tl":["2024-03-10T06:59:59.000Z"]},\n' +
          '{"id":2,"ts":"2024-03-10T12:30:00.250+05:30","tl":null},\n' +
          '{"id":3,"ts":null,"tl":null}\n]\n',
      );
      const jsonl = await ok(["query", SELECT, "--format", "jsonl", "--time-zone", "+05:30"]);
      assertEquals(jsonl.stdout, json.stdout.slice(2, -3).replaceAll(",\n", "\n") + "\n");
      const csv = await ok(["query", SELECT, "--format", "csv", "--time-zone", "America/New_York"]);
      assertEquals(
        csv.stdout,
        "id,ts,tl\r\n" +
          "1,2024-03-10T01:59:59-05:00,['2024-03-10T06:59:59.000Z']\r\n" +
          "2,2024-03-10T03:00:00.250-04:00,\r\n" +
          "3,,\r\n",
      );
    });

    await t.step("UTC by default, and from the job config's query.timeZone", async () => {
      const plain = await ok(["query", SELECT, "--format", "csv"]);
      assertEquals(
        plain.stdout,
        "id,ts,tl\r\n1,2024-03-10T06:59:59.000Z,['2024-03-10T06:59:59.000Z']\r\n2,2024-03-10T07:00:00.250Z,\r\n3,,\r\n",
      );
      const config = await Deno.makeTempFile({ suffix: ".json" });
      try {
        await Deno.writeTextFile(config, JSON.stringify({ query: { timeZone: "America/New_York", format: "csv" } }));
        const configured = await ok(["--config", config, "query", `SELECT ts FROM ${TABLE} WHERE id = 1`]);
        assertEquals(configured.stdout, "ts\r\n2024-03-10T01:59:59-05:00\r\n");
        // The flag wins over the config.
        const flagged = await ok(["--config", config, "query", `SELECT ts FROM ${TABLE} WHERE id = 1`, "--time-zone", "UTC"]);
        assertEquals(flagged.stdout, "ts\r\n2024-03-10T06:59:59.000Z\r\n");
      } finally {
        await Deno.remove(config);
      }
    });

    await t.step("an unknown zone is a usage error naming it, before anything is printed (as unload's)", async () => {
      for (const format of ["table", "json", "csv"]) {
        const result = await runCli(["query", SELECT, "--format", format, "--time-zone", "Mars/Olympus_Mons"]);
        assertEquals(
          [result.code, result.stdout, result.stderr],
          [
            2,
            "",
            'error: time zone "Mars/Olympus_Mons": not UTC, a fixed offset such as +02:00, or a zone name this runtime knows (Europe/Paris)\n',
          ],
          format,
        );
      }
    });
  } finally {
    await ok(["query", `DROP TABLE IF EXISTS ${TABLE}`]);
  }
});
