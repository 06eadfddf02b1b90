/**
 * The client side of the soak, in its own process so that its memory is measured alone and
 * a full GC can run before each sample (`--v8-flags=--expose-gc`): RSS after a GC shows
 * growth, not the sawtooth of a heap that has not been collected yet.
 *   deno run -A --v8-flags=--expose-gc tests/faults/soak_client.ts PROXY_ADDRESS SECONDS
 * Prints one JSON line per second ({"type":"sample",...}) and a summary line at the end.
 */
import { installWasmProbe, wasmMemoryBytes } from "../wasm_probe.ts";

// Before the driver is imported (it instantiates the core at import).
installWasmProbe();
const { clientVia, ErrorTally, KEYSPACE, sleep, valueOf } = await import("./helpers.ts");

const [address, secondsText] = Deno.args;
const SECONDS = Number(secondsText);
const WORKERS = 16;
const KEYS = 50_000;
const table = `${KEYSPACE}.soak`;
const paged = `${KEYSPACE}.soak_paged`;
const collect = (globalThis as { gc?: () => void }).gc;

const c = clientVia({ address }, { requestTimeout: 2_000, pooling: { coreConnectionsPerHost: 2, heartBeatInterval: 5_000 } });
const errors = new ErrorTally();
let requests = 0;
let running = true;
await c.connect();
const insert = `INSERT INTO ${table} (id, v) VALUES (?, ?)`;
const select = `SELECT v FROM ${table} WHERE id = ?`;
const pagedSelect = `SELECT n, v FROM ${paged} WHERE p = ?`;

async function operation(): Promise<void> {
  const r = Math.random();
  const id = Math.floor(Math.random() * KEYS);
  if (r < 0.5) {
    await c.execute(insert, [id, valueOf(id)], { prepare: true, idempotent: true });
  } else if (r < 0.75) {
    await c.execute(select, [id], { prepare: true, idempotent: true });
  } else if (r < 0.85) {
    let seen = 0;
    for await (const _ of c.stream(pagedSelect, [1], { prepare: true, pageSize: 100 })) {
      if (++seen >= 250) break;
    }
  } else if (r < 0.95) {
    await c.batch(
      Array.from({ length: 5 }, (_, k) => ({ query: insert, params: [(id + k) % KEYS, valueOf((id + k) % KEYS)] })),
      { prepare: true, logged: false, idempotent: true },
    );
  } else {
    // Expires during latency spikes: the stream id is orphaned until the answer comes.
    await c.execute(select, [id], { prepare: true, timeout: 25 });
  }
}

const workers = Array.from({ length: WORKERS }, async () => {
  while (running) {
    requests++;
    try {
      await operation();
    } catch (e) {
      errors.add(e);
      // A client that fails fast must not turn this loop into a busy spin.
      await sleep(10);
    }
  }
});

const t0 = performance.now();
while (performance.now() - t0 < SECONDS * 1000) {
  await sleep(1_000);
  collect?.();
  const memory = Deno.memoryUsage();
  const state = c.getState().connections as Array<{ orphans: number; inFlight: number; queued: number }>;
  console.log(JSON.stringify({
    type: "sample",
    at: (performance.now() - t0) / 1000,
    rssMb: memory.rss / 2 ** 20,
    heapMb: memory.heapUsed / 2 ** 20,
    externalMb: memory.external / 2 ** 20,
    wasmMb: wasmMemoryBytes() / 2 ** 20,
    orphans: state.reduce((n, x) => n + x.orphans, 0),
    inFlight: state.reduce((n, x) => n + x.inFlight, 0),
    queued: state.reduce((n, x) => n + x.queued, 0),
    connections: state.length,
    requests,
  }));
}
running = false;
const settled = await Promise.race([Promise.all(workers).then(() => true), sleep(15_000).then(() => false)]);
let answered = false;
for (let i = 0; i < 50 && !answered; i++) {
  try {
    await c.execute(select, [1], { prepare: true });
    answered = true;
  } catch {
    await sleep(200);
  }
}
console.log(
  JSON.stringify({
    type: "summary",
    requests,
    errors: errors.total,
    errorSummary: errors.summary(3),
    settled,
    answered,
    gc: collect !== undefined,
  }),
);
await c.shutdown();
Deno.exit(0);
