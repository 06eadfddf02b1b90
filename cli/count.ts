// `cqlwire count`: a table's rows counted with parallel token-range scans, each a
// `SELECT count(*) ... WHERE token(pk) > ? AND token(pk) <= ?` routed to a replica of its
// range. A range the server cannot count before its read timeout is split in halves and
// counted again, so large tables do not need a larger server timeout.

import type { Command } from "commander";
import { consistencyCode, type Context, contextOf, type DriverClient, withClient } from "./context.ts";
import { CliFailure, describeError, EXIT_OK, UsageError } from "./errors.ts";
import { formatTable } from "./format.ts";
import {
  forEachConcurrently,
  halves,
  isTimeout,
  isTransientReadError,
  rangeCondition,
  type ScanRange,
  scanRangesOf,
  tokenExpression,
} from "./ranges.ts";
import { readTableSchema } from "./load/schema.ts";
import { parseTableName, quoteIdentifier } from "./load/table.ts";
import { resolveConnection } from "./settings.ts";
import { sleep } from "./timing.ts";
import { COUNT_DEFAULT_CONCURRENCY } from "./defaults.ts";
import { countByPartition, countQueryRows, type PartitionCounts } from "./count_partitions.ts";

const MAX_SPLIT_DEPTH = 12;
/** The largest partitions `--by partition` lists: DSBulk's `stats.numPartitions`. */
const DEFAULT_TOP_PARTITIONS = 10;
const ATTEMPTS = 4;

interface CountFlags {
  table?: string;
  query?: string;
  by?: "node" | "range" | "partition";
  partitions?: number;
  maxConcurrency?: number;
  consistency?: string;
  json?: boolean;
}

export interface RangeCount {
  start: bigint;
  end: bigint;
  replicas: string[];
  rows: bigint;
}

/** Counts the rows of each ring range (the wrapping range's two scans add up). */
export async function countByRange(
  client: Pick<DriverClient, "execute">,
  keyspace: string,
  table: string,
  partitionKeyExpression: string,
  scans: ScanRange[],
  concurrency: number,
  options: { consistency?: number },
): Promise<RangeCount[]> {
  const from = `${quoteIdentifier(keyspace)}.${quoteIdentifier(table)}`;
  const counts = new Map<string, RangeCount>();
  for (const scan of scans) {
    const key = `${scan.ring.start}:${scan.ring.end}`;
    if (!counts.has(key)) {
      counts.set(key, { start: scan.ring.start, end: scan.ring.end, replicas: scan.replicas, rows: 0n });
    }
  }
  const countScan = async (scan: ScanRange, depth: number): Promise<bigint> => {
    const statement = `SELECT count(*) FROM ${from} WHERE ${rangeCondition(partitionKeyExpression, scan)}`;
    const requestOptions: Record<string, unknown> = { prepare: true, idempotent: true, ...options };
    if (scan.routingToken !== undefined) requestOptions.routingToken = scan.routingToken;
    for (let attempt = 1;; attempt++) {
      try {
        const result = await client.execute(statement, [scan.start, scan.end], requestOptions);
        const value = result.rows[0]?.count;
        return typeof value === "bigint" ? value : BigInt(Number(value ?? 0));
      } catch (error) {
        if (isTimeout(error) && depth < MAX_SPLIT_DEPTH) {
          const parts = halves(scan);
          if (parts !== null) {
            const [low, high] = parts;
            return await countScan(low, depth + 1) + await countScan(high, depth + 1);
          }
        }
        if (attempt >= ATTEMPTS || !isTransientReadError(error)) throw error;
        await sleep(200 * 2 ** (attempt - 1));
      }
    }
  };
  await forEachConcurrently(scans, concurrency, async (scan) => {
    const rows = await countScan(scan, 0);
    counts.get(`${scan.ring.start}:${scan.ring.end}`)!.rows += rows;
  });
  return [...counts.values()];
}

/** Rows per node, attributing each range to its first (primary) replica. */
export function countByNode(ranges: RangeCount[]): Map<string, bigint> {
  const byNode = new Map<string, bigint>();
  for (const range of ranges) {
    const node = range.replicas[0] ?? "(unknown)";
    byNode.set(node, (byNode.get(node) ?? 0n) + range.rows);
  }
  return new Map([...byNode.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
}

export async function countCommand(command: Command): Promise<number> {
  const context: Context = await contextOf(command);
  const flags = command.opts() as CountFlags;
  const config = context.config.count ?? {};
  const tableText = flags.table ?? config.table;
  const query = flags.query ?? config.query;
  const by = flags.by ?? config.by;
  if ((tableText === undefined) === (query === undefined)) {
    throw new UsageError("give either --table keyspace.table or --query \"SELECT ...\"");
  }
  if (query !== undefined && by !== undefined) throw new UsageError("--by counts a --table, not a --query");
  const concurrency = flags.maxConcurrency ?? config.maxConcurrency ?? COUNT_DEFAULT_CONCURRENCY;
  const top = flags.partitions ?? config.partitions ?? DEFAULT_TOP_PARTITIONS;
  const json = flags.json ?? config.json ?? false;
  const consistency = await consistencyCode(flags.consistency ?? config.consistency);
  const options = consistency === undefined ? {} : { consistency };
  const connection = resolveConnection(context.flags, context.config.connection);

  return await withClient(context, async (client, secrets) => {
    const started = performance.now();
    const failed = (error: unknown) => new CliFailure(`count failed: ${describeError(error, secrets)}`);
    if (query !== undefined) {
      const rows = await countQueryRows(client, query, options).catch((error) => Promise.reject(failed(error)));
      console.log(json ? `{"query":${JSON.stringify(query)},"rows":${rows},"elapsedMs":${Math.round(performance.now() - started)}}` : String(rows));
      return EXIT_OK;
    }
    const { keyspace, table } = parseTableName(tableText!, connection.keyspace);
    const schema = await readTableSchema(client, keyspace, table);
    const partitionKey = schema.columns.filter((column) => column.kind === "partition_key")
      .sort((a, b) => a.position - b.position);
    let ranges: RangeCount[] = [];
    let partitions: PartitionCounts | null = null;
    try {
      const scans = scanRangesOf(await client.getTokenRanges(keyspace));
      if (by === "partition") {
        const from = `${quoteIdentifier(keyspace)}.${quoteIdentifier(table)}`;
        const keys = partitionKey.map((column) => quoteIdentifier(column.name));
        partitions = await countByPartition(client, from, tokenExpression(partitionKey), keys, scans, concurrency, top, options);
      } else {
        ranges = await countByRange(client, keyspace, table, tokenExpression(partitionKey), scans, concurrency, options);
      }
    } catch (error) {
      throw failed(error);
    }
    const total = partitions?.rows ?? ranges.reduce((sum, range) => sum + range.rows, 0n);
    const elapsedMs = Math.round(performance.now() - started);
    if (json) {
      console.log(countJson(`${keyspace}.${table}`, total, ranges, partitions, by, elapsedMs));
      return EXIT_OK;
    }
    if (by === "node") {
      const rows = [...countByNode(ranges)].map(([node, count]) => [node, count]);
      console.log(formatTable(["node", "rows"], rows).trimEnd());
    } else if (by === "range") {
      const rows = ranges.map((range) => [range.start, range.end, range.replicas.join(" "), range.rows]);
      console.log(formatTable(["start", "end", "replicas", "rows"], rows).trimEnd());
    } else if (partitions !== null) {
      const rows = partitions.largest.map((p) => [p.key.map((cell) => cell ?? "null").join("|"), p.rows, percent(p.rows, total)]);
      console.log(formatTable(["partition", "rows", "%"], rows).trimEnd());
      console.log(`partitions: ${partitions.partitions}`);
    }
    console.log(by === undefined ? String(total) : `total: ${total} rows`);
    return EXIT_OK;
  });
}

/** DSBulk's share of the total, with two decimals. */
function percent(rows: bigint, total: bigint): string {
  return total === 0n ? "0.00" : (Number(rows) * 100 / Number(total)).toFixed(2);
}

/** The count as one JSON object; row counts are written as integers with every digit. */
function countJson(
  table: string,
  total: bigint,
  ranges: RangeCount[],
  partitions: PartitionCounts | null,
  by: CountFlags["by"],
  elapsedMs: number,
): string {
  const result: Record<string, unknown> = { table, rows: 0, ranges: ranges.length, elapsedMs };
  if (partitions !== null) delete result.ranges;
  let text = JSON.stringify(result).replace(`"rows":0`, `"rows":${total}`);
  if (by === "node") {
    const nodes = [...countByNode(ranges)].map(([node, rows]) => `${JSON.stringify(node)}:${rows}`);
    text = text.slice(0, -1) + `,"byNode":{${nodes.join(",")}}}`;
  } else if (by === "range") {
    const items = ranges.map((range) =>
      `{"start":"${range.start}","end":"${range.end}","replicas":${JSON.stringify(range.replicas)},"rows":${range.rows}}`
    );
    text = text.slice(0, -1) + `,"byRange":[${items.join(",")}]}`;
  } else if (partitions !== null) {
    const items = partitions.largest.map((p) => `{"key":${JSON.stringify(p.key)},"rows":${p.rows}}`);
    text = text.slice(0, -1) + `,"partitions":${partitions.partitions},"byPartition":[${items.join(",")}]}`;
  }
  return text;
}
