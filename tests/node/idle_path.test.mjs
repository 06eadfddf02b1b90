// The single-request path on Node (dist/node.js, against the real Cassandra): the driver's
// turns are queued as promise reactions, never with the global queueMicrotask, which on Node
// wraps every task in an AsyncResource (issue #17: with one request in flight the session
// queues up to two microtasks per round trip). Counted, never timed.
import { afterAll, beforeAll, describe, test } from "vitest";
import { assertExact } from "../exact.mjs";
import { Client } from "../../dist/node.js";

const HOSTS = (process.env.CQLWIRE_HOSTS ?? "127.0.0.1:9042").split(",");
const QUERY = "SELECT key FROM system.local WHERE key = ?";

describe("the single-request path (dist/node.js)", () => {
  let client;
  beforeAll(async () => {
    client = new Client({ contactPoints: HOSTS, localDataCenter: "datacenter1" });
    await client.connect();
    await client.execute(QUERY, ["local"], { prepare: true });
  });
  afterAll(async () => {
    await client?.shutdown();
  });

  test("sequential requests queue nothing with the global queueMicrotask", async () => {
    const original = globalThis.queueMicrotask;
    let queued = 0;
    globalThis.queueMicrotask = (task) => {
      queued++;
      original(task);
    };
    const keys = [];
    try {
      for (let i = 0; i < 20; i++) keys.push((await client.execute(QUERY, ["local"], { prepare: true })).first().key);
    } finally {
      globalThis.queueMicrotask = original;
    }
    assertExact([queued, keys.length, keys[19]], [0, 20, "local"]);
  });
});
