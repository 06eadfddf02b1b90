// Where a cqlwire client's memory is: the same measured loop as bench/clients/cqlwire.mjs
// (one connection, protocol v4, prepared statements, N/10 warm-up), then one JSON line with
// the process's memory at the end of the loop, by kind. With `import` as the mode it only
// imports the driver and reports, for the driver's import footprint.
// CQLWIRE_ROOT picks the tree whose driver is measured (bench/memory/run's "before").
import process from "node:process";
import v8 from "node:v8";
import { contractOp, measure, parseArgs, VALUE_BYTES } from "../clients/harness.mjs";

const onDeno = typeof Deno !== "undefined";
const root = process.env.CQLWIRE_ROOT ?? new URL("../../", import.meta.url).pathname;
const argv = onDeno ? Deno.args : process.argv.slice(2);
const { Client } = await import(`${root}/${onDeno ? "driver/deno.ts" : "dist/node.js"}`);

function memory(client) {
  const usage = process.memoryUsage();
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s]));
  const mb = (bytes) => Math.round((bytes / 2 ** 20) * 10) / 10;
  const stats = client?.getMemoryStats();
  return {
    rss_now_mb: mb(usage.rss),
    heap_total_mb: mb(usage.heapTotal),
    heap_used_mb: mb(usage.heapUsed),
    new_space_mb: mb(spaces.new_space?.space_size ?? 0),
    old_space_used_mb: mb(spaces.old_space?.space_used_size ?? 0),
    code_mb: mb((spaces.code_space?.space_size ?? 0) + (spaces.code_large_object_space?.space_size ?? 0)),
    external_mb: mb(usage.external),
    array_buffers_mb: mb(usage.arrayBuffers ?? 0),
    wasm_memory_mb: stats ? mb(stats.wasmMemoryBytes) : null,
    core_buffers_mb: stats ? mb(stats.coreBufferBytes) : null,
  };
}

if (argv[argv.length - 1] === "import") {
  console.log(JSON.stringify(memory(null)));
} else {
  const args = parseArgs(argv);
  const client = new Client({
    contactPoints: [`${args.host}:${args.port}`],
    localDataCenter: "datacenter1",
    protocolVersion: 4,
    pooling: { coreConnectionsPerHost: 1 },
  });
  await client.connect();
  const op = contractOp(client, args.mode, new Uint8Array(VALUE_BYTES).fill(0xab));
  const result = await measure(onDeno ? "cqlwire-deno" : "cqlwire-node", args, op, null);
  console.log(JSON.stringify({ ops_per_s: result.ops_per_s, cpu_us_per_op: result.cpu_us_per_op, ...memory(client) }));
  await client.shutdown();
}
