#!/usr/bin/env node
// The Scylla extensions through the Node transport (dist/node.js), against the null server's
// Scylla personality (not a real ScyllaDB). Node binds a local port of the wanted residue,
// so every shard but the first is reached through the shard-aware port.
//
//   node --test tests/scylla/node_run.mjs
import assert from "node:assert/strict";
import * as net from "node:net";
import { test } from "node:test";
import { Client, RateLimitError } from "../../dist/node.js";
import { assertExact } from "../exact.mjs";
import { spawn } from "./node_spawn.mjs";
import { rateLimitedBulkLoad, rateLimitedInsert, shardAwareRun } from "./scenarios.mjs";

test("node: every shard is reached through the shard-aware port and requests reach their owning shard", async () => {
  const { totals, share } = await shardAwareRun(Client, spawn);
  // The first connection (regular port) lands on one shard; the pool asks for the other three.
  assertExact(totals.shard_port_connections, 3);
  assertExact([totals.executes, totals.unroutable], [10000, 0]);
  assert.ok(share >= 0.99, `share on the owning shard ${share} (${JSON.stringify(totals)})`);
});

test("node: behind a NAT the shard-aware port is given up for the regular port", async () => {
  const { totals, logs, share } = await shardAwareRun(Client, spawn, { extra: ["--scylla-nat"] });
  assert.ok(logs.some((l) => l.includes("a NAT rewrites source ports; using the regular port")), logs.join("\n"));
  assertExact(totals.shard_port_connections, 3, "the three asked before the first answer, then none");
  assert.ok(share >= 0.99, `share on the owning shard ${share} (${JSON.stringify(totals)})`);
});

test("node: a rate-limit error is its own class and is not retried", async () => {
  const { error, totals } = await rateLimitedInsert(Client, spawn);
  assert.ok(error instanceof RateLimitError, `got ${error}`);
  assertExact(
    [error.name, error.code, error.codeName, error.opType, error.rejectedByCoordinator],
    ["RateLimitError", 0xF000, "RateLimitReached", "write", true],
  );
  assertExact([totals.executes, totals.rate_limited], [1, 1], "one attempt, never retried");
});

test("node: with tablets, requests follow the tablet map after one misroute per tablet", async () => {
  const { totals } = await shardAwareRun(Client, spawn, { extra: ["--scylla-tablets"] });
  assertExact([totals.executes, totals.tablet_hits + totals.tablet_misroutes], [10000, 10000]);
  // The null server lays each table out in 16 tablets; requests already in flight when a
  // tablet's first misroute is answered may also miss, so allow a few per tablet.
  assert.ok(totals.tablet_misroutes >= 1, "the layout differs from the token's shard, so the first requests miss");
  assert.ok(totals.tablet_hits / totals.executes >= 0.99, `share on a tablet replica (${JSON.stringify(totals)})`);
});

// Each attempt is refused with probability about 1/7, so a row's 11 attempts all fail about
// once in 7^10 rows: a bad row here is the loader's fault, not bad luck.
for (const batchSize of [1, 32]) {
  test(`node: a bulk load backs off on rate-limit errors and loses no row (${batchSize} rows per request)`, async () => {
    const rows = 2000;
    const { state, bad, totals } = await rateLimitedBulkLoad(Client, spawn, { rows, batchSize, maxRetries: 10 });
    assertExact(bad, [], "no row reported bad");
    assertExact([state.status.error, state.status.done], [null, true]);
    assertExact([state.counters.rowsOk, state.counters.rowsBad, state.counters.rowsRejected], [rows, 0, 0]);
    assert.ok(totals.rate_limited > 0, "the server refused some requests");
    assertExact(state.counters.retries, totals.rate_limited, "each refused request went again, once");
    assertExact([totals.rows_written, totals.distinct_keys_written], [rows, rows], "every row arrived once");
    assertExact(batchSize === 1 ? totals.batches : totals.executes, 0, "requests of the kind asked for");
  });
}

test("node: a row the rate limit refuses on every attempt is bad once its attempts are spent", async () => {
  const { state, bad, totals } = await rateLimitedBulkLoad(Client, spawn, { rows: 2, every: 1, batchSize: 1, maxRetries: 2 });
  assertExact(
    bad.map((b) => [b.kind, b.serverCode, b.attempts, b.line]).sort(),
    [["rejected", 0xF000, 3, 2], ["rejected", 0xF000, 3, 3]],
  );
  assertExact([state.counters.rowsOk, state.counters.rowsRejected, state.counters.retries], [0, 2, 4]);
  assertExact([totals.executes, totals.rate_limited, totals.rows_written], [6, 6, 0]);
});

/** Listens on `port` so nobody else can bind it; a port someone already holds is just as taken. */
function occupy(port) {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", (e) => (e.code === "EADDRINUSE" ? resolve({ close: (cb) => cb() }) : reject(e)));
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

test("node: a taken local port is skipped for the next one of the shard's residue", async () => {
  // With Math.random kept tiny (distinct, for the driver's ids and seeds), the transport tries
  // 49152 + shard first for each of 4 shards (localPortsForShard); those ports are taken, so
  // every shard-aware connection must retry.
  const random = Math.random;
  let calls = 0;
  Math.random = () => ++calls * 1e-9;
  const held = await Promise.all([1, 2, 3].map((shard) => occupy(49152 + shard)));
  try {
    const { totals, share } = await shardAwareRun(Client, spawn);
    assertExact(totals.shard_port_connections, 3, "each shard but the first still reached on the shard-aware port");
    assert.ok(share >= 0.99, `share on the owning shard ${share} (${JSON.stringify(totals)})`);
  } finally {
    Math.random = random;
    await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
  }
});
