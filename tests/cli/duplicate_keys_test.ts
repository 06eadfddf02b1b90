// An input that holds the same primary key many times (a change log, appended exports) loads
// as a sequential replay would: every key ends with its last row's values, however the rows
// were batched, raced or retried. Against the real Cassandra, with high concurrency.
// These tests fail when no server answers; no switch skips them.

import { assertEquals } from "./assert.ts";
import { jsonRows, loadText, ok } from "./cli_helpers.ts";
import { runCli } from "./run.ts";

const KEYSPACE = "loaderdup_cli";
const RUN = `${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`;
const ROWS = 20_000;

/**
 * Row n's key among `keys`: every 5th row repeats the row before's key (adjacent duplicates),
 * the others are spread over all keys (duplicates far apart).
 */
function keysOf(keys: number): number[] {
  const out: number[] = [];
  let state = 0x9e3779b9; // xorshift32: the same keys on every run
  for (let n = 0; n < ROWS; n++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out.push(n % 5 === 4 ? out[n - 1] : (state >>> 0) % keys);
  }
  return out;
}

/**
 * Each key's last row as the table should hold it. `v` is the row number and `r` its reverse:
 * two rows written with one timestamp are reconciled by value, cell by cell, so a tie would
 * keep the later row's `v` and the earlier row's `r`.
 */
function lastRows(keys: number[], columns: (key: number) => Record<string, number>): string[] {
  const last = new Map<number, number>();
  keys.forEach((key, n) => last.set(key, n));
  return [...last].map(([key, n]) => JSON.stringify({ ...columns(key), r: ROWS - n, v: n })).sort();
}

/** Key i < 250: partition 0, clustering i; key i >= 250: partition i, clustering 0. */
function place(key: number): { p: number; c: number } {
  return key < 250 ? { p: 0, c: key } : { p: key, c: 0 };
}

/** `query --format json` lines with their members in one order, sorted. */
async function tableRows(select: string, order: string[]): Promise<string[]> {
  const rows = await jsonRows(select);
  return rows.map((line) => {
    const row = JSON.parse(line);
    return JSON.stringify(Object.fromEntries(order.map((name) => [name, row[name]])));
  }).sort();
}

Deno.test({
  name: "load: of rows with the same primary key, the last one in the file wins",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const work = await Deno.makeTempDir({ prefix: "cqlwire-dupkeys-" });
    const clustered = `${KEYSPACE}.clustered_${RUN}`;
    const flat = `${KEYSPACE}.flat_${RUN}`;
    const queried = `${KEYSPACE}.queried_${RUN}`;
    await ok(["query", "-"], {
      stdin: `
      CREATE KEYSPACE IF NOT EXISTS ${KEYSPACE}
        WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
      CREATE TABLE ${clustered} (p int, c int, v int, r int, PRIMARY KEY (p, c));
      CREATE TABLE ${flat} (k int PRIMARY KEY, v int, r int);
      CREATE TABLE ${queried} (p int, c int, v int, r int, PRIMARY KEY (p, c));
    `,
    });
    const flags = ["--max-concurrency", "512"];
    try {
      await t.step("250 keys in one partition and 250 single-row partitions", async () => {
        const keys = keysOf(500);
        const lines = keys.map((key, n) => {
          const { p, c } = place(key);
          return `${p},${c},${n},${ROWS - n}`;
        });
        const load = await loadText(work, "clustered.csv", clustered, `p,c,v,r\n${lines.join("\n")}\n`, flags);
        assertEquals(load.code, 0, load.stderr);
        const expected = lastRows(keys, place);
        assertEquals(expected.length, 500);
        assertEquals(await tableRows(`SELECT p, c, v, r FROM ${clustered}`, ["p", "c", "r", "v"]), expected);
      });

      await t.step("--query: the key is read from the markers named after key columns", async () => {
        const keys = keysOf(500);
        const lines = keys.map((key, n) => {
          const { p, c } = place(key);
          return `${p},${c},${n},${ROWS - n}`;
        });
        await Deno.writeTextFile(`${work}/queried.csv`, `p,c,v,r\n${lines.join("\n")}\n`);
        const query = `INSERT INTO ${queried} (p, c, v, r) VALUES (:p, :c, :v, :r)`;
        const load = await runCli(["load", "--query", query, "--quiet", `${work}/queried.csv`, ...flags]);
        assertEquals(load.code, 0, load.stderr);
        assertEquals(await tableRows(`SELECT p, c, v, r FROM ${queried}`, ["p", "c", "r", "v"]), lastRows(keys, place));
      });

      await t.step("500 single-row partitions without clustering columns", async () => {
        const keys = keysOf(500);
        const lines = keys.map((k, n) => `${k},${n},${ROWS - n}`);
        const load = await loadText(work, "flat.csv", flat, `k,v,r\n${lines.join("\n")}\n`, flags);
        assertEquals(load.code, 0, load.stderr);
        const expected = lastRows(keys, (k) => ({ k }));
        assertEquals(await tableRows(`SELECT k, v, r FROM ${flat}`, ["k", "r", "v"]), expected);
      });
    } finally {
      await ok(["query", `DROP KEYSPACE IF EXISTS ${KEYSPACE}`]);
      await Deno.remove(work, { recursive: true });
    }
  },
});
