// Small helpers of the CLI tests that run bin/cqlwire against the real Cassandra.

import { assertEquals } from "./assert.ts";
import { type CliResult, runCli } from "./run.ts";

/** Runs the CLI and requires exit 0, showing its output otherwise. */
export async function ok(args: string[], options: { stdin?: string } = {}): Promise<CliResult> {
  const result = await runCli(args, options);
  assertEquals(result.code, 0, `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  return result;
}

export async function createKeyspace(keyspace: string): Promise<void> {
  await ok([
    "query",
    `CREATE KEYSPACE IF NOT EXISTS ${keyspace} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
  ]);
}

/** A SELECT's rows as `query --format json` prints them, one object per line, compared as text (JSON.parse would lose -0), sorted. */
export async function jsonRows(select: string): Promise<string[]> {
  const out = await ok(["query", select, "--format", "json"]);
  return out.stdout.split("\n").filter((line) => line.startsWith("{")).map((line) => line.replace(/,$/, "")).sort();
}

/** Writes `text` to WORK/NAME and loads it into `table`, its bad rows in WORK/bad, quietly. */
export async function loadText(work: string, name: string, table: string, text: string, flags: string[]): Promise<CliResult> {
  await Deno.writeTextFile(`${work}/${name}`, text);
  return await runCli(["load", "--table", table, "--bad-dir", `${work}/bad`, "--quiet", `${work}/${name}`, ...flags]);
}
