// `cqlwire bench`: the seed articles' workload. A table `kv (k bigint PRIMARY KEY, v blob)`
// gets N prepared inserts (32-byte values), then N prepared selects by key, at each of the
// concurrency levels; throughput and latency percentiles are printed, and with --out written
// as results.json plus two SVG charts (throughput, and p50/p99 latency, vs concurrency).

import type { Command } from "commander";
import { type Context, contextOf, type DriverClient, withClient } from "./context.ts";
import { describeError, EXIT_FAILURE, EXIT_OK, UsageError } from "./errors.ts";
import { formatTable } from "./format.ts";
import { join } from "./paths.ts";
import { sleep, sortedQuantile } from "./timing.ts";
import { quoteIdentifier } from "./load/table.ts";
import { lineChart } from "./svg.ts";

const DEFAULT_COUNT = 100_000;
const DEFAULT_CONCURRENCY = [1, 64, 1024];
const DEFAULT_KEYSPACE = "bench";
const VALUE_BYTES = 32;

interface BenchFlags {
  count?: number;
  concurrency?: number[];
  out?: string;
  json?: boolean;
}

export interface PhaseResult {
  phase: "insert" | "select";
  concurrency: number;
  operations: number;
  errors: number;
  seconds: number;
  throughput: number;
  latencyMs: { p50: number; p90: number; p99: number; mean: number; max: number };
  firstError?: string;
}

/**
 * Runs `operations` calls of `operation(i)` with `concurrency` of them in flight, timing
 * each one. Failures are counted, not fatal.
 */
export async function runPhase(
  phase: PhaseResult["phase"],
  operations: number,
  concurrency: number,
  operation: (index: number) => Promise<unknown>,
  secrets: readonly string[] = [],
): Promise<PhaseResult> {
  const latencies = new Float64Array(operations);
  let next = 0;
  let errors = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const worker = async () => {
    for (;;) {
      const index = next++;
      if (index >= operations) return;
      const begin = performance.now();
      try {
        await operation(index);
      } catch (error) {
        errors++;
        firstError ??= describeError(error, secrets);
      }
      latencies[index] = performance.now() - begin;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, operations) }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort();
  let sum = 0;
  for (const value of latencies) sum += value;
  const round = (value: number) => Math.round(value * 1000) / 1000;
  const result: PhaseResult = {
    phase,
    concurrency,
    operations,
    errors,
    seconds: round(seconds),
    throughput: Math.round(operations / Math.max(seconds, 1e-9)),
    latencyMs: {
      p50: round(sortedQuantile(latencies, 0.5)),
      p90: round(sortedQuantile(latencies, 0.9)),
      p99: round(sortedQuantile(latencies, 0.99)),
      mean: round(operations > 0 ? sum / operations : 0),
      max: round(latencies[latencies.length - 1] ?? 0),
    },
  };
  if (firstError !== undefined) result.firstError = firstError;
  return result;
}

export function throughputChart(results: PhaseResult[]): string {
  const series = (["insert", "select"] as const).map((phase) => ({
    name: `${phase}s`,
    points: results.filter((r) => r.phase === phase).map((r): [number, number] => [r.concurrency, r.throughput]),
  }));
  return lineChart({
    title: "Throughput vs concurrency",
    xLabel: "concurrent requests",
    yLabel: "operations per second",
    series,
    xLog: true,
  });
}

export function latencyChart(results: PhaseResult[]): string {
  const series = (["insert", "select"] as const).flatMap((phase) =>
    (["p50", "p99"] as const).map((quantile) => ({
      name: `${phase} ${quantile}`,
      points: results.filter((r) => r.phase === phase).map((r): [number, number] => [
        r.concurrency,
        r.latencyMs[quantile],
      ]),
    }))
  );
  return lineChart({
    title: "Latency vs concurrency",
    xLabel: "concurrent requests",
    yLabel: "latency (ms)",
    series,
    xLog: true,
    yLog: true,
  });
}

async function waitForTable(client: DriverClient, table: string): Promise<void> {
  for (let attempt = 0;; attempt++) {
    try {
      await client.execute(`SELECT k FROM ${table} LIMIT 1`, [], { prepare: false });
      return;
    } catch (error) {
      if (attempt >= 40) throw error;
      await sleep(250);
    }
  }
}

export async function benchCommand(command: Command): Promise<number> {
  const context: Context = await contextOf(command);
  const flags = command.opts() as BenchFlags;
  const config = context.config.bench ?? {};
  const count = flags.count ?? config.count ?? DEFAULT_COUNT;
  const levels = flags.concurrency ?? config.concurrency ?? DEFAULT_CONCURRENCY;
  const keyspace = context.flags.keyspace ?? config.keyspace ?? DEFAULT_KEYSPACE;
  const out = flags.out ?? config.out;
  const json = flags.json ?? config.json ?? false;
  if (!/^[A-Za-z0-9_]{1,48}$/.test(keyspace)) throw new UsageError(`invalid bench keyspace name '${keyspace}'`);
  // The bench keyspace may not exist yet, so the session must not start in it.
  const connectionConfig = context.config.connection
    ? { ...context.config.connection, keyspace: undefined }
    : undefined;
  const sessionContext: Context = {
    flags: { ...context.flags, keyspace: undefined },
    config: { ...context.config, connection: connectionConfig },
  };

  return await withClient(sessionContext, async (client, secrets) => {
    const table = `${quoteIdentifier(keyspace)}.kv`;
    await client.execute(
      `CREATE KEYSPACE IF NOT EXISTS ${quoteIdentifier(keyspace)} ` +
        `WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
    );
    await client.execute(`CREATE TABLE IF NOT EXISTS ${table} (k bigint PRIMARY KEY, v blob)`);
    await waitForTable(client, table);
    const release = await client.execute("SELECT release_version FROM system.local");
    const insert = `INSERT INTO ${table} (k, v) VALUES (?, ?)`;
    const select = `SELECT v FROM ${table} WHERE k = ?`;
    // Values are random, drawn once: generating them must not be part of what is measured.
    const values = new Uint8Array(VALUE_BYTES * Math.min(count, 65536));
    for (let offset = 0; offset < values.length; offset += 65536) {
      crypto.getRandomValues(values.subarray(offset, Math.min(values.length, offset + 65536)));
    }
    const valueOf = (i: number) => {
      const slot = i % (values.length / VALUE_BYTES);
      return values.subarray(slot * VALUE_BYTES, (slot + 1) * VALUE_BYTES);
    };
    const options = { prepare: true, idempotent: true };
    await client.execute(insert, [-1n, valueOf(0)], options);
    await client.execute(select, [-1n], options);

    const results: PhaseResult[] = [];
    for (const concurrency of levels) {
      const inserts = await runPhase(
        "insert",
        count,
        concurrency,
        (i) => client.execute(insert, [BigInt(i), valueOf(i)], options),
        secrets,
      );
      results.push(inserts);
      if (!json) console.error(`insert, concurrency ${concurrency}: ${inserts.throughput} ops/s`);
      const selects = await runPhase(
        "select",
        count,
        concurrency,
        (i) => client.execute(select, [BigInt(i)], options),
        secrets,
      );
      results.push(selects);
      if (!json) console.error(`select, concurrency ${concurrency}: ${selects.throughput} ops/s`);
    }

    const report = {
      tool: "cqlwire bench",
      startedAt: new Date().toISOString(),
      server: { releaseVersion: String(release.rows[0]?.release_version ?? "unknown") },
      settings: { operations: count, concurrency: levels, keyspace, valueBytes: VALUE_BYTES },
      results,
    };
    if (out !== undefined) {
      await Deno.mkdir(out, { recursive: true });
      await Deno.writeTextFile(join(out, "results.json"), JSON.stringify(report, null, 2) + "\n");
      await Deno.writeTextFile(join(out, "throughput.svg"), throughputChart(results));
      await Deno.writeTextFile(join(out, "latency.svg"), latencyChart(results));
    }
    if (json) {
      console.log(JSON.stringify(report));
    } else {
      const rows = results.map((r) => [
        r.phase,
        r.concurrency,
        r.throughput,
        r.latencyMs.p50,
        r.latencyMs.p90,
        r.latencyMs.p99,
        r.errors,
      ]);
      const columns = ["phase", "concurrency", "ops/s", "p50 ms", "p90 ms", "p99 ms", "errors"];
      console.log(formatTable(columns, rows).replace(/\n\(\d+ rows\)\n$/, ""));
      if (out !== undefined) console.log(`results and charts written to ${out}`);
    }
    const failed = results.find((r) => r.errors > 0);
    if (failed !== undefined) {
      console.error(
        `error: ${failed.errors} ${failed.phase}s failed at concurrency ${failed.concurrency}: ${failed.firstError}`,
      );
      return EXIT_FAILURE;
    }
    return EXIT_OK;
  });
}
