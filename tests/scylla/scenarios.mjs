// Scenarios against the null server's Scylla personality, shared by the Deno test
// (scylla_test.ts, driver/deno.ts) and the Node runner (node_run.mjs, dist/node.js); the
// workerd runner uses inserts.mjs alone.
// Each returns what it observed; the callers assert per runtime.
import { INSERT, insertAll, withClient } from "./inserts.mjs";
import { startScyllaServer } from "./server.mjs";

/**
 * `count` prepared inserts (the requests sent before a node's pool covers every shard go to
 * another shard, so short runs count that warm-up more), `concurrency` at a time, against a server with `shards` shards;
 * the server's counters say which shard served each; `extra` are more server flags.
 */
export async function shardAwareRun(Client, spawn, { shards = 4, count = 10000, concurrency = 16, extra = /** @type {string[]} */ ([]) } = {}) {
  const server = await startScyllaServer(spawn, shards, extra);
  try {
    const logs = await insertAll(Client, server.address, { count, concurrency });
    const totals = await server.totals((t) => t.executes >= count);
    return { totals, logs, share: totals.on_owning_shard / totals.executes };
  } finally {
    await server.stop();
  }
}

/** One idempotent insert against a server that rate-limits every EXECUTE. */
export async function rateLimitedInsert(Client, spawn) {
  const server = await startScyllaServer(spawn, 2, ["--scylla-rate-limit-every", "1"]);
  try {
    const { result: error } = await withClient(Client, server.address, (client) =>
      client.execute(INSERT, [1n, new Uint8Array(16).fill(7)], { prepare: true, isIdempotent: true }).then(() => null, (e) => e)
    );
    return { error, totals: await server.totals((t) => t.executes >= 1) };
  } finally {
    await server.stop();
  }
}

/** `rows` CSV rows of bench.kv (k from 0, a 4-byte blob), header first, in 4 KiB chunks. */
async function* csvRows(rows) {
  let text = "k,v\n";
  for (let k = 0; k < rows; k++) text += `${k},0x${(k >>> 0).toString(16).padStart(8, "0")}\n`;
  const bytes = new TextEncoder().encode(text);
  for (let at = 0; at < bytes.length; at += 4096) yield bytes.subarray(at, at + 4096);
}

/**
 * A bulk load of `rows` rows into bench.kv through the driver's `bulkLoad` (`batchSize`
 * rows per request: 1 sends EXECUTEs, more sends BATCHes) against a server that refuses
 * every `every`th EXECUTE or BATCH with Scylla's rate-limit error; `maxRetries` as the
 * load's option (undefined: its default). Gives the load's final state, its bad rows and
 * the server's counters (which rows it accepted, by partition).
 */
export async function rateLimitedBulkLoad(Client, spawn, { rows = 2000, every = 7, batchSize = 32, maxRetries = /** @type {number | undefined} */ (undefined) } = {}) {
  const server = await startScyllaServer(spawn, 4, ["--scylla-rate-limit-every", String(every)]);
  try {
    const bad = [];
    const { result: state } = await withClient(Client, server.address, (client) =>
      client.bulkLoad(csvRows(rows), { query: INSERT, header: true, batchSize, maxRetries, onBadRow: (row) => void bad.push(row) })
    );
    // Every row the client saw written and every refusal it retried was counted before its answer.
    const seen = (t) => t.rows_written >= state.counters.rowsOk && t.rate_limited >= state.counters.retries && t.executes + t.batches >= 1;
    return { state, bad, totals: await server.totals(seen) };
  } finally {
    await server.stop();
  }
}
