/**
 * What one round trip costs the host loop, counted, never timed: the calls into the WASM core
 * (each a crossing with its glue), and the microtasks the driver queues. With one request in
 * flight a round trip is one call to start the request (which also polls the bytes to write,
 * since they leave at once, and leaves what the core has to hand out where the host reads
 * it) and one per socket read (which also drains the events, since they settle at once, and
 * answers what the core has); and no microtask: the request leaves in its call, the response
 * settles in the read's, and no clock reading is kept that a microtask would have to forget.
 */
import { assertExact } from "../exact.mjs";
import { denoSocketFactory } from "../../driver/transport/deno.ts";
import { cell, type Column, Op, preparedBody, preparedIdFor, rowsBody } from "../fakenode/mod.ts";
import { type AnyClient, withNode } from "./helpers.ts";

const INSERT = "INSERT INTO crossings_ks.t (k, v) VALUES (?, ?)";
const ROUND_TRIPS = 20;

/** Counts every call of the core's methods on this client's core (its WasmSession). */
function countCoreCalls(client: AnyClient): Map<string, number> {
  const calls = new Map<string, number>();
  // The session and its core are internal: reaching them is the test's observation point.
  const core = client.session.core;
  for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(core))) {
    const method = core[name];
    if (name === "constructor" || typeof method !== "function") continue;
    core[name] = function (this: unknown, ...args: unknown[]) {
      calls.set(name, (calls.get(name) ?? 0) + 1);
      return method.apply(this, args);
    };
  }
  return calls;
}

/** Counts the microtasks queued through the global `queueMicrotask` (the session's on Deno). */
async function countingMicrotasks<T>(body: (count: () => number) => Promise<T>): Promise<T> {
  const original = globalThis.queueMicrotask;
  let queued = 0;
  globalThis.queueMicrotask = (task) => {
    queued++;
    original(task);
  };
  try {
    return await body(() => queued);
  } finally {
    globalThis.queueMicrotask = original;
  }
}

/** Per round trip, each method's calls, in name order (`[name, calls]`). */
function perRoundTrip(calls: Map<string, number>): Array<[string, number]> {
  return [...calls.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, n]) => [name, n / ROUND_TRIPS]);
}

Deno.test("one request in flight: two calls into the core and no microtask per round trip", async () => {
  await withNode({ protocolVersion: 4 }, async (_node, client) => {
    // Prepared, connected, and the timer armed at the first request's deadline.
    for (let i = 0; i < 3; i++) await client.execute(INSERT, [i, i], { prepare: true });
    const calls = countCoreCalls(client);
    const microtasks = await countingMicrotasks(async (count) => {
      for (let i = 0; i < ROUND_TRIPS; i++) await client.execute(INSERT, [i, i], { prepare: true });
      return count();
    });
    assertExact(perRoundTrip(calls), [
      ["executeStaged", 1],
      ["handleStaged", 1],
    ]);
    assertExact(microtasks, 0);
  });
});

Deno.test("a request that moves the deadline earlier re-arms the timer: pollTimeout is asked then only", async () => {
  await withNode({ protocolVersion: 4 }, async (_node, client) => {
    for (let i = 0; i < 3; i++) await client.execute(INSERT, [i, i], { prepare: true });
    const calls = countCoreCalls(client);
    // Each timeout shorter than the last brings the core's next deadline before the timer's
    // (armed during the handshake, at most the connect timeout, 5 s, away).
    for (let i = 0; i < 3; i++) await client.execute(INSERT, [i, i], { prepare: true, readTimeout: 4000 - i * 1000 });
    // The same timeout again ends later than the armed timer: nothing to re-arm.
    for (let i = 0; i < 3; i++) await client.execute(INSERT, [i, i], { prepare: true, readTimeout: 2000 });
    assertExact(calls.get("pollTimeout"), 3);
    assertExact(calls.get("pendingOutputs"), undefined);
  });
});

Deno.test("small flushes are written from one shared buffer, and bytes a socket holds are never written over", async () => {
  const writes: Uint8Array[] = [];
  const copies: Uint8Array[] = [];
  const socketFactory = async (target: Parameters<typeof denoSocketFactory>[0], handlers: Parameters<typeof denoSocketFactory>[1]) => {
    const inner = await denoSocketFactory(target, handlers);
    return {
      // Keeps every view it was given, as a socket that holds its bytes until written does.
      write(data: Uint8Array) {
        writes.push(data);
        copies.push(data.slice());
        return inner.write(data);
      },
      close: () => inner.close(),
    };
  };
  await withNode({ protocolVersion: 4, client: { socketFactory } }, async (_node, client) => {
    await client.execute(INSERT, [0, 0], { prepare: true });
    writes.length = copies.length = 0;
    // Enough writes to fill the shared buffer several times over.
    for (let i = 1; i <= 600; i++) await client.execute(INSERT, [i, i], { prepare: true });
    assertExact(writes.length, 600);
    assertExact(new Set(writes.map((w) => w.buffer)).size < 20, true, "writes share their buffers");
    writes.forEach((w, i) => assertExact(w, copies[i], `write ${i} as it was written`));
  });
});

/** Request i's blob: its length and bytes depend on i, so a part of the events written over shows. */
function blobOf(i: number): Uint8Array {
  const v = new Uint8Array(20 + (i % 50));
  for (let j = 0; j < v.length; j++) v[j] = (j * 7 + i * 31) & 0xff;
  return v;
}

Deno.test("one request in flight: rows kept by the caller keep their blobs while later responses are copied after them", async () => {
  const columns: Column[] = [{ name: "k", type: "bigint" }, { name: "v", type: "blob" }];
  const select = "SELECT k, v FROM crossings_ks.t WHERE k = ?";
  await withNode({ protocolVersion: 4 }, async (node, client) => {
    node.on({ opcode: Op.PREPARE }, (req) => ({
      body: preparedBody({ id: preparedIdFor(req.query!), bind: [{ name: "k", type: "bigint" }], pkIndexes: [0], result: columns }, 4),
    }));
    node.on({ opcode: Op.EXECUTE }, (req) => {
      const key = req.params!.values[0] as Uint8Array;
      const i = Number(new DataView(key.buffer, key.byteOffset, key.byteLength).getBigInt64(0));
      return { body: rowsBody({ columns, noMetadata: true, rows: [[cell.bigint(BigInt(i)), blobOf(i)]] }) };
    });
    // Enough small answers, one at a time, to fill the events' shared buffers several times over.
    const kept = [];
    for (let i = 0; i < 300; i++) kept.push(await client.execute(select, [BigInt(i)], { prepare: true }));
    kept.forEach((rs, i) => assertExact(rs.rows, [{ k: BigInt(i), v: blobOf(i) }], `request ${i}`));
  });
});

Deno.test("a clock reading kept for the requests of one task is gone by the next task", async () => {
  await withNode({ protocolVersion: 4 }, async (_node, client) => {
    await client.execute(INSERT, [0, 0], { prepare: true });
    // The second request of the task finds one in flight: it keeps the reading for the rest.
    const both = [client.execute(INSERT, [1, 1], { prepare: true }), client.execute(INSERT, [2, 2], { prepare: true })];
    assertExact(client.session.taskClock >= 0, true);
    await new Promise((resolve) => setTimeout(resolve, 0));
    assertExact(client.session.taskClock, -1);
    await Promise.all(both);
    // With nothing in flight a request keeps no reading at all.
    const lone = client.execute(INSERT, [3, 3], { prepare: true });
    assertExact(client.session.taskClock, -1);
    await lone;
  });
});
