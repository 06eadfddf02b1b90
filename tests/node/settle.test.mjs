// Every promise the client hands out settles (issue #12, defect 5), on the built bundle
// (dist/node.js) against the real Cassandra: bulk loads across shutdown and side by side, a
// listener that throws, per-request timeouts out of range, and a WASM trap in the driver
// loop, which must close the client instead of killing the process.
import { ok, rejects } from "node:assert/strict";
import { assertExact } from "../exact.mjs";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, test } from "vitest";
import * as cqlwire from "../../dist/node.js";
import { rejection } from "../conformance/rejection.mjs";

const HOSTS = (process.env.CQLWIRE_HOSTS ?? "127.0.0.1:9042").split(",");
const KEYSPACE = "clisafety_driver";
const RUN = `${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`;
const TABLE = `${KEYSPACE}.rows_${RUN}`;
const { Client, DriverError, ArgumentError, DriverInternalError } = cqlwire;

const newClient = () => new Client({ contactPoints: HOSTS, localDataCenter: "datacenter1" });
const encoder = new TextEncoder();

function csv(from, count) {
  let text = "id,v\n";
  for (let id = from; id < from + count; id++) text += `${id},row ${id}\n`;
  return text;
}

async function* chunksOf(text, size) {
  const bytes = encoder.encode(text);
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/** Yields the header and first rows, then (after calling `stalling`) waits for ever. */
async function* stalled(text, stalling) {
  yield encoder.encode(text);
  stalling();
  await new Promise(() => {});
}

describe("every promise settles (dist/node.js)", () => {
  let admin;
  beforeAll(async () => {
    admin = newClient();
    await admin.connect();
    await admin.execute(
      `CREATE KEYSPACE IF NOT EXISTS ${KEYSPACE} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
    );
    await admin.execute(`CREATE TABLE IF NOT EXISTS ${TABLE} (id int PRIMARY KEY, v text)`);
  });
  afterAll(async () => {
    await admin?.execute(`DROP TABLE IF EXISTS ${TABLE}`).catch(() => {});
    await admin?.shutdown();
  });

  test("a bulkLoad waiting for input rejects with ERR_SHUTDOWN when the client shuts down", async () => {
    const client = newClient();
    let stalling;
    const waiting = new Promise((resolve) => (stalling = resolve));
    const load = client.bulkLoad(stalled(csv(0, 10), stalling), { table: TABLE });
    await waiting;
    await client.shutdown();
    const error = await rejection(load);
    ok(error instanceof DriverError, String(error));
    assertExact([error.name, error.code, error.message], [
      "DriverError",
      "ERR_SHUTDOWN",
      "the client was shut down",
    ]);
  });

  test("a bulkLoad waiting for its rows in flight rejects with ERR_SHUTDOWN when the client shuts down", async () => {
    const client = newClient();
    let shutdown = null;
    const load = client.bulkLoad(chunksOf(csv(1000, 5000), 1 << 20), {
      table: TABLE,
      // The load waits for the core (not for input) right after this progress report.
      onProgress: (state) => {
        if (shutdown === null && !state.status.wantsInput && state.counters.inFlight > 0) shutdown = client.shutdown();
      },
    });
    const error = await rejection(load);
    ok(shutdown !== null, "the load was shut down while rows were in flight");
    await shutdown;
    assertExact([error.constructor, error.code], [DriverError, "ERR_SHUTDOWN"]);
  });

  test("every kind of call in flight when shutdown() is called settles, and later calls reject", async () => {
    const client = newClient();
    await client.connect();
    const query = `SELECT id, v FROM ${TABLE}`;
    const drain = async (iterable) => {
      for await (const _ of iterable) { /* consumes */ }
    };
    const calls = {
      execute: client.execute(query),
      executePrepared: client.execute(query, [], { prepare: true }),
      prepare: client.prepare(`SELECT v FROM ${TABLE} WHERE id = ?`),
      batch: client.batch([`INSERT INTO ${TABLE} (id, v) VALUES (-1, 'x')`]),
      stream: drain(client.stream(query, [], { fetchSize: 1 })),
      eachRow: client.eachRow(query, [], { fetchSize: 1 }, () => {}),
      eachPage: client.eachPage(query, [], { fetchSize: 1 }, () => {}),
      streamCsv: drain(client.streamCsv(query, [], { fetchSize: 1 })),
      getTokenRanges: client.getTokenRanges(KEYSPACE),
    };
    const connecting = newClient();
    const connect = connecting.connect();
    const shutdowns = [client.shutdown(), connecting.shutdown()];
    const outcomes = {};
    for (const [name, promise] of Object.entries({ ...calls, connect })) {
      outcomes[name] = await promise.then(() => "resolved", (e) => `${e.name} ${e.code}`);
    }
    await Promise.all(shutdowns);
    // Every call waits for the connection at least one microtask, so the synchronous part of
    // shutdown() always comes first: each rejects with the shutdown error, none hangs.
    assertExact(
      outcomes,
      Object.fromEntries(Object.keys(outcomes).map((name) => [name, "DriverError ERR_SHUTDOWN"])),
    );
    const later = await rejection(client.execute(query));
    assertExact([later.name, later.code], ["DriverError", "ERR_SHUTDOWN"]);
  });

  test("two bulkLoads on one client at once both finish with every row", async () => {
    const client = newClient();
    try {
      const [a, b] = await Promise.all([
        client.bulkLoad(chunksOf(csv(10_000, 2000), 4096), { table: TABLE }),
        client.bulkLoad(chunksOf(csv(20_000, 3000), 4096), { table: TABLE }),
      ]);
      const summary = (state) => [state.status.done, state.counters.rowsOk, state.counters.rowsBad];
      assertExact([summary(a), summary(b)], [[true, 2000, 0], [true, 3000, 0]]);
      const count = await client.execute(`SELECT count(*) AS n FROM ${TABLE} WHERE id >= 10000 AND id < 23000 ALLOW FILTERING`);
      assertExact(count.rows[0].n, 5000n);
    } finally {
      await client.shutdown();
    }
  });

  test("a listener that throws is reported as a log warning; the other requests of its batch settle", async () => {
    const client = newClient();
    const logs = [];
    client.on("schemaChange", () => {
      throw new Error("listener boom");
    });
    client.on("log", (level, message) => logs.push([level, message]));
    try {
      await client.connect();
      const table = `${KEYSPACE}.ddl_${RUN}`;
      const reads = Array.from({ length: 20 }, () => client.execute("SELECT release_version FROM system.local"));
      const ddl = client.execute(`CREATE TABLE ${table} (id int PRIMARY KEY)`);
      const results = await Promise.all([ddl, ...reads]);
      assertExact(results.length, 21);
      await client.execute(`DROP TABLE ${table}`);
      ok(
        logs.some(([level, message]) => level === "warning" && message === "a 'schemaChange' listener threw: listener boom"),
        JSON.stringify(logs),
      );
    } finally {
      await client.shutdown();
    }
  });

  test("a negative, NaN, zero or oversized per-request timeout is an ArgumentError naming the option", async () => {
    const client = newClient();
    try {
      await client.connect();
      const query = "SELECT release_version FROM system.local";
      for (const [option, value] of [
        ["timeout", -1],
        ["timeout", Number.NaN],
        ["timeout", 0],
        ["timeout", 2 ** 31],
        ["timeout", Infinity],
        ["readTimeout", -5],
      ]) {
        for (const prepare of [false, true]) {
          const error = await rejection(client.execute(query, [], { prepare, [option]: value }));
          ok(error instanceof ArgumentError, `${option}=${value}: ${error}`);
          assertExact(
            [error.code, error.message],
            ["ERR_ARGUMENT", `options.${option} must be a number of milliseconds from 1 to 2147483647, got ${value}`],
          );
        }
      }
      await rejects(client.batch([`INSERT INTO ${TABLE} (id, v) VALUES (1, 'x')`], { timeout: -1 }), ArgumentError);
      await rejects(client.bulkLoad(chunksOf(csv(0, 1), 100), { table: TABLE, timeout: 2 ** 32 }), ArgumentError);
      // In range, fractional milliseconds round up and the request runs.
      assertExact((await client.execute(query, [], { timeout: 2500.5 })).rows.length, 1);
    } finally {
      await client.shutdown();
    }
  });

  test("a WASM trap in a socket, timer or call closes the client; the process lives", () => {
    const child = fileURLToPath(new URL("../conformance/trap_child.mjs", import.meta.url));
    const result = spawnSync(process.execPath, [child], {
      env: { ...process.env, CQLWIRE_HOSTS: HOSTS.join(",") },
      encoding: "utf8",
      timeout: 120_000,
    });
    const report = `exit ${result.status} (signal ${result.signal})\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
    assertExact(result.status, 0, report);
    assertExact(result.stdout.trim().split("\n"), [
      "socket: pending rejected DriverInternalError ERR_INTERNAL, later calls the same error, sockets 0",
      "timer: DriverInternalError ERR_INTERNAL, later calls the same error, sockets 0",
      "call: DriverInternalError ERR_INTERNAL, later calls the same error, sockets 0",
      "alive",
    ], report);
  });

  test("DriverInternalError is exported and is a DriverError", () => {
    const error = new DriverInternalError("x");
    ok(error instanceof DriverError);
    assertExact([error.name, error.code], ["DriverInternalError", "ERR_INTERNAL"]);
  });
});
