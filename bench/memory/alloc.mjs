// Bytes a cqlwire client allocates per request, and where: the same measured loop as
// bench/clients/cqlwire.mjs (one connection, protocol v4, prepared statements, N/10 warm-up)
// under V8's sampling heap profiler (`node:inspector`, the same on Deno and Node), counting
// objects the scavenger and the mark-compactor collected too. Prints one JSON line: bytes
// per op in all, the top allocating functions (self), and V8's heap at the end.
//   node bench/memory/alloc.mjs HOST PORT N CONCURRENCY insert|select
// CQLWIRE_ROOT picks the tree whose driver is measured (an A/B against another worktree).
// The profiler is reached through `node:inspector`, which loads Deno's Node layer: on Deno
// its heap total is not the bench clients' (bytes per op are unaffected).
import { contractOp, cqlwireOptions, parseArgs, VALUE_BYTES } from "../clients/harness.mjs";
import { args as argv, env, memoryUsage, processCpuMicros } from "../clients/runtime.mjs";

const onDeno = typeof Deno !== "undefined";
const root = env("CQLWIRE_ROOT") ?? new URL("../../", import.meta.url).pathname;
const { Client } = await import(`${root}/${onDeno ? "driver/deno.ts" : "dist/node.js"}`);
const args = parseArgs(argv);
/** Small enough that 100k requests give thousands of samples per allocating site. */
const SAMPLING_INTERVAL = Number(env("ALLOC_SAMPLING") ?? 128);

const client = new Client(cqlwireOptions(args));
await client.connect();
const op = contractOp(client, args.mode, new Uint8Array(VALUE_BYTES).fill(0xab));

async function loop(n, offset) {
  let next = 0;
  async function worker() {
    while (next < n) await op(offset + next++);
  }
  await Promise.all(Array.from({ length: Math.min(args.concurrency, n) }, worker));
}

const { Session } = await import("node:inspector");
const session = new Session();
session.connect();
const post = (method, params = {}) =>
  new Promise((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));

await loop(Math.max(1, Math.floor(args.n / 10)), args.n);
await post("HeapProfiler.enable");
await post("HeapProfiler.startSampling", {
  samplingInterval: SAMPLING_INTERVAL,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
const cpuBefore = processCpuMicros();
await loop(args.n, 0);
const cpuMicros = processCpuMicros() - cpuBefore;
const { profile } = await post("HeapProfiler.stopSampling");
session.disconnect();

const bySite = new Map();
let total = 0;
(function walk(node) {
  const self = node.selfSize ?? 0;
  if (self > 0) {
    const f = node.callFrame;
    const file = f.url.slice(f.url.lastIndexOf("/") + 1);
    const site = `${f.functionName || "(anonymous)"} ${file}:${f.lineNumber + 1}`;
    bySite.set(site, (bySite.get(site) ?? 0) + self);
    total += self;
  }
  for (const child of node.children ?? []) walk(child);
})(profile.head);

const usage = memoryUsage();
const top = [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 14).map(([site, bytes]) => [site, +(bytes / args.n).toFixed(1)]);
console.log(JSON.stringify({
  runtime: onDeno ? "deno" : "node",
  mode: args.mode,
  concurrency: args.concurrency,
  bytes_per_op: +(total / args.n).toFixed(1),
  cpu_us_per_op: +(cpuMicros / args.n).toFixed(3),
  heap_total_mb: +(usage.heapTotal / 2 ** 20).toFixed(1),
  top,
}));
await client.shutdown();
