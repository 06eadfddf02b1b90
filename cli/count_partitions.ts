// `count --by partition` (DSBulk's `count -stats partitions`): the rows of every partition,
// reporting the largest. Each token-range scan reads the token and the partition key of every
// row, page by page; a partition's rows are contiguous in its scan, so only the current
// partition and the largest `top` so far are held. `count --query` counts the rows of a
// SELECT, as DSBulk's `count -query` does. Keys are shown as the core formats their cells.

import type { DriverClient } from "./context.ts";
import { forEachConcurrently, isTransientReadError, rangeCondition, type ScanRange } from "./ranges.ts";
import { sleep } from "./timing.ts";

const ATTEMPTS = 4;
const PAGE_SIZE = 5000;

export interface PartitionCount {
  /** The partition key's cells, as the core formats them. */
  key: Array<string | null>;
  rows: bigint;
}

export interface PartitionCounts {
  rows: bigint;
  partitions: bigint;
  /** The `top` largest partitions, largest first; equal ones in ring order. */
  largest: PartitionCount[];
}

type Streamer = Pick<DriverClient, "streamCells">;

/** Keeps the `top` largest of what it is offered, first offered first among equals. */
function keepLargest(list: PartitionCount[], item: PartitionCount, top: number): void {
  if (list.length === top && list[top - 1].rows >= item.rows) return;
  let at = list.length;
  while (at > 0 && list[at - 1].rows < item.rows) at--;
  list.splice(at, 0, item);
  if (list.length > top) list.pop();
}

/** Counts the rows of one scan by partition; retried whole after a transient error. */
async function countScan(
  client: Streamer,
  statement: string,
  scan: ScanRange,
  top: number,
  options: { consistency?: number },
): Promise<PartitionCounts> {
  const requestOptions: Record<string, unknown> = { prepare: true, idempotent: true, pageSize: PAGE_SIZE, ...options };
  if (scan.routingToken !== undefined) requestOptions.routingToken = scan.routingToken;
  for (let attempt = 1;; attempt++) {
    const counts: PartitionCounts = { rows: 0n, partitions: 0n, largest: [] };
    let current = null as { id: string; count: PartitionCount } | null;
    try {
      for await (const page of client.streamCells(statement, [scan.start, scan.end], requestOptions)) {
        for (const cells of page.cells) {
          counts.rows++;
          // The token and the key cells identify the partition.
          const id = JSON.stringify(cells);
          if (current?.id !== id) {
            if (current !== null) keepLargest(counts.largest, current.count, top);
            current = { id, count: { key: cells.slice(1), rows: 0n } };
            counts.partitions++;
          }
          current.count.rows++;
        }
      }
      if (current !== null) keepLargest(counts.largest, current.count, top);
      return counts;
    } catch (error) {
      if (attempt >= ATTEMPTS || !isTransientReadError(error)) throw error;
      await sleep(200 * 2 ** (attempt - 1));
    }
  }
}

/** Rows and partitions of the table in `scans`, with its `top` largest partitions. */
export async function countByPartition(
  client: Streamer,
  from: string,
  tokenExpression: string,
  keyColumns: string[],
  scans: ScanRange[],
  concurrency: number,
  top: number,
  options: { consistency?: number },
): Promise<PartitionCounts> {
  const perScan: PartitionCounts[] = new Array(scans.length);
  await forEachConcurrently(scans, concurrency, async (scan, index) => {
    const statement = `SELECT ${tokenExpression}, ${keyColumns.join(", ")} FROM ${from} WHERE ${
      rangeCondition(tokenExpression, scan)
    }`;
    perScan[index] = await countScan(client, statement, scan, top, options);
  });
  // Merged in scan (ring) order, so equal partitions come out in the same order every run.
  const total: PartitionCounts = { rows: 0n, partitions: 0n, largest: [] };
  for (const counts of perScan) {
    total.rows += counts.rows;
    total.partitions += counts.partitions;
    for (const partition of counts.largest) keepLargest(total.largest, partition, top);
  }
  return total;
}

/** The rows a SELECT returns, over all its pages. */
export async function countQueryRows(client: Streamer, statement: string, options: { consistency?: number }): Promise<bigint> {
  let rows = 0n;
  for await (const page of client.streamCells(statement, null, { pageSize: PAGE_SIZE, idempotent: true, ...options })) {
    rows += BigInt(page.rows);
  }
  return rows;
}
