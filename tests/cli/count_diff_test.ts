// `cqlwire count` against DSBulk 1.10's `count` on the same rows (cli/README.md, "Coming from
// DSBulk: count"): many single-row partitions, wide partitions, static-only partitions, a
// composite partition key, an empty table, and a SELECT with a WHERE (`--query`). DSBulk's
// output is a fixture (tests/cli/data/dsbulk_count.txt, captured by tests/cli/peers/capture.sh;
// `make test` installs no DSBulk). Totals, rows per node and the largest partitions must be
// DSBulk's; rows per token range are DSBulk's when this node has the ring the fixture was
// captured on, and always those the rows' own token() values put in each range, the range that
// wraps around the ring included. These tests fail when no server answers.

import { assert, assertEquals } from "./assert.ts";
import { ok } from "./cli_helpers.ts";
import { COUNT_TABLES, createPeerTables, DATA, KEYSPACE, MANY } from "./peer_tables.ts";
import { runCli } from "./run.ts";

interface DsbulkCount {
  total: bigint;
  nodes: Array<[string, bigint]>;
  ranges: Array<[string, string, bigint]>;
  partitions: Array<[string, bigint]>;
}

/** The sections of dsbulk_count.txt, by the command that printed them. */
function parseDsbulk(text: string): Map<string, DsbulkCount> {
  const sections = new Map<string, DsbulkCount>();
  let current: DsbulkCount | null = null;
  let part: keyof DsbulkCount = "total";
  for (const line of text.split("\n")) {
    if (line.startsWith("== ")) {
      current = { total: -1n, nodes: [], ranges: [], partitions: [] };
      sections.set(line.slice(3), current);
      part = "total";
    } else if (line === "Total rows:") part = "total";
    else if (line === "Total rows per node:") part = "nodes";
    else if (line === "Total rows per token range:") part = "ranges";
    else if (line === "Total rows per partition:") part = "partitions";
    else if (line !== "" && current !== null) {
      const fields = line.split(" ");
      if (part === "total") current.total = BigInt(line);
      else if (part === "nodes") current.nodes.push([fields[0].replace(/^\//, ""), BigInt(fields[1])]);
      else if (part === "ranges") current.ranges.push([fields[0], fields[1], BigInt(fields[2])]);
      else current.partitions.push([fields[0], BigInt(fields[1])]);
    }
  }
  return sections;
}

/** DSBulk writes a text key as a CQL literal (`1|'x'`); cqlwire as the core's cell (`1|x`). */
const dsbulkKey = (key: string) => key.split("|").map((part) => part.replace(/^'(.*)'$/, "$1").replaceAll("''", "'")).join("|");
const byRowsThenKey = (a: [string, bigint], b: [string, bigint]) => a[1] !== b[1] ? (a[1] > b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1;

async function countJson(args: string[]): Promise<Record<string, unknown>> {
  const out = await ok(["count", ...args, "--json"]);
  // Row counts are integers with every digit: big ones would lose digits in JSON.parse.
  return JSON.parse(out.stdout.replace(/"rows":(\d+)/g, '"rows":"$1"'));
}

/** Rows per ring range (start, end], from each row's token(): an independent count. */
async function rowsByTokens(table: string, key: string, ranges: Array<{ start: string; end: string }>): Promise<bigint[]> {
  const csv = (await ok(["query", "--format", "csv", `SELECT token(${key}) FROM ${KEYSPACE}.${table}`])).stdout;
  const tokens = csv.split("\r\n").slice(1).filter((line) => line !== "").map(BigInt);
  return ranges.map(({ start, end }) => {
    const [s, e] = [BigInt(start), BigInt(end)];
    const inRange = (t: bigint) => s < e ? t > s && t <= e : t > s || t <= e;
    return BigInt(tokens.filter(inRange).length);
  });
}

const KEYS: Record<string, string> = { many: "id", wide: "p", empty: "id", statics: "p", comp: "a, b" };

Deno.test({
  name: "count gives DSBulk's numbers",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    await createPeerTables();
    const dsbulk = parseDsbulk(await Deno.readTextFile(`${DATA}/dsbulk_count.txt`));
    const section = (table: string) => [...dsbulk].find(([command]) => command.includes(` -t ${table} `))![1];

    for (const table of COUNT_TABLES) {
      await t.step(`${table}: total, per node, per range`, async () => {
        const expected = section(table);
        const byRange = await countJson(["--table", `${KEYSPACE}.${table}`, "--by", "range"]);
        assertEquals(BigInt(byRange.rows as string), expected.total);
        const ranges = byRange.byRange as Array<{ start: string; end: string; rows: string }>;
        assertEquals(ranges.map((range) => BigInt(range.rows)), await rowsByTokens(table, KEYS[table], ranges));
        const ring = (list: Array<[string, string, ...unknown[]]>) => list.map(([start, end]) => `${start}:${end}`).sort();
        const ours = ranges.map((range) => [range.start, range.end, BigInt(range.rows)] as [string, string, bigint]);
        if (JSON.stringify(ring(ours)) === JSON.stringify(ring(expected.ranges))) {
          const sorted = (list: Array<[string, string, bigint]>) => [...list].sort((a, b) => (`${a[0]}:${a[1]}` < `${b[0]}:${b[1]}` ? -1 : 1));
          assertEquals(sorted(ours), sorted(expected.ranges));
        } else {
          console.log(`${table}: this node's ring is not the fixture's; rows per range checked by token() only`);
        }
        if (table === "many") {
          const wrap = ranges.find((range) => BigInt(range.start) >= BigInt(range.end))!;
          assert(BigInt(wrap.rows) > 0n, "no row in the range that wraps around the ring");
        }
        const byNode = await countJson(["--table", `${KEYSPACE}.${table}`, "--by", "node"]);
        const nodes = Object.entries(byNode.byNode as Record<string, string>).map(([node, rows]) => [node, BigInt(rows)]);
        assertEquals(nodes, expected.nodes);
      });
    }

    await t.step("the largest partitions (wide, static-only, composite keys)", async () => {
      for (const table of ["wide", "statics", "comp"]) {
        const expected = section(table);
        assert(expected.partitions.length > 0, table);
        const result = await countJson(["--table", `${KEYSPACE}.${table}`, "--by", "partition"]);
        assertEquals(BigInt(result.rows as string), expected.total, table);
        const ours = (result.byPartition as Array<{ key: string[]; rows: string }>).map((p) => [p.key.join("|"), BigInt(p.rows)] as [string, bigint]);
        // Equal partitions come in ring order here, in DSBulk's in no fixed order.
        assertEquals(ours.sort(byRowsThenKey), expected.partitions.map(([key, rows]) => [dsbulkKey(key), rows] as [string, bigint]).sort(byRowsThenKey), table);
      }
      // DSBulk refuses partitions of a table without clustering columns; every one has one row.
      const many = await countJson(["--table", `${KEYSPACE}.many`, "--by", "partition", "--partitions", "3"]);
      assertEquals([many.rows, many.partitions, (many.byPartition as Array<{ rows: string }>).map((p) => p.rows)], [String(MANY), MANY, ["1", "1", "1"]]);
      const text = await ok(["count", "--table", `${KEYSPACE}.wide`, "--by", "partition", "--partitions", "2"]);
      assertEquals(text.stdout, " partition | rows | %\n-----------+------+-------\n        19 |  760 | 10.00\n        18 |  720 |  9.47\n\n(2 rows)\npartitions: 19\ntotal: 7600 rows\n");
    });

    await t.step("--query counts the rows of a SELECT, as dsbulk count -query", async () => {
      const [command, expected] = [...dsbulk].find(([name]) => name.includes("-query"))!;
      const select = /-query '(.*)'$/.exec(command)![1];
      assertEquals((await ok(["count", "--query", select])).stdout, `${expected.total}\n`);
      const both = await runCli(["count", "--query", select, "--table", `${KEYSPACE}.wide`]);
      assertEquals([both.code, both.stderr], [2, 'error: give either --table keyspace.table or --query "SELECT ..."\n']);
      const by = await runCli(["count", "--query", select, "--by", "node"]);
      assertEquals([by.code, by.stderr], [2, "error: --by counts a --table, not a --query\n"]);
    });
  },
});
