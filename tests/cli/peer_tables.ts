// The tables that `query` and `count` are compared with cqlsh and DSBulk on
// (tests/cli/query_diff_test.ts, count_diff_test.ts; the peers' outputs were captured by
// tests/cli/peers/capture.sh, which runs this module first). Rows are fixed, so the peers'
// outputs stay valid: only the node's token ranges differ from machine to machine.

import { ok } from "./cli_helpers.ts";
import { REPO_ROOT } from "./run.ts";

export const DATA = `${REPO_ROOT}/tests/cli/data`;
export const KEYSPACE = "cliquery_diff";
/** The column types of cliquery_diff.v, by name (the other tables' columns are ints and text). */
export const V_TYPES: Record<string, string> = {
  b: "blob",
  bo: "boolean",
  f: "float",
  d: "double",
  ts: "timestamp",
  dt: "date",
  tm: "time",
  du: "duration",
  ip: "inet",
  tp: "tuple",
  lt: "list<tuple>",
  vf: "vector<float>",
  vd: "vector<double>",
};

/** The count tables and their rows: `many` has MANY single-row partitions, `wide` partition p has p * 40 rows. */
export const COUNT_TABLES = ["many", "wide", "empty", "statics", "comp"];
export const MANY = 3000;
export const WIDE_PARTITIONS = 20;

/** Creates every table (dropping former ones) and writes their rows. */
export async function createPeerTables(): Promise<void> {
  await ok(["query", "-f", `${DATA}/query_diff_setup.cql`]);
  const work = await Deno.makeTempDir({ prefix: "cqlwire-peers-" });
  try {
    const many = ["id,v", ...Array.from({ length: MANY }, (_, i) => `${i},x${i}`)];
    const wide = ["p,c,s,v"];
    for (let p = 0; p < WIDE_PARTITIONS; p++) {
      for (let c = 0; c < p * 40; c++) wide.push(`${p},${c},${p},v${c}`);
    }
    for (const [table, lines] of [["many", many], ["wide", wide]] as const) {
      await Deno.writeTextFile(`${work}/${table}.csv`, lines.join("\n") + "\n");
      await ok(["load", "--table", `${KEYSPACE}.${table}`, "--quiet", "--bad-dir", `${work}/bad`, `${work}/${table}.csv`]);
    }
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

if (import.meta.main) await createPeerTables();
