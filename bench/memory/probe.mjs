// Where a cqlwire client's memory is: the same measured loop as bench/clients/cqlwire.mjs
// (one connection, protocol v4, prepared statements, N/10 warm-up), then one JSON line with
// the process's memory at the end of the loop, by kind. With `import` as the mode it only
// imports the driver and reports, for the driver's import footprint.
// CQLWIRE_ROOT picks the tree whose driver is measured (bench/memory/run's "before").
import { contractOp, cqlwireOptions, measure, parseArgs, VALUE_BYTES } from "../clients/harness.mjs";
import { args as argv, env } from "../clients/runtime.mjs";
import { memory } from "./usage.mjs";

const onDeno = typeof Deno !== "undefined";
const root = env("CQLWIRE_ROOT") ?? new URL("../../", import.meta.url).pathname;
const { Client } = await import(`${root}/${onDeno ? "driver/deno.ts" : "dist/node.js"}`);

if (argv[argv.length - 1] === "import") {
  console.log(JSON.stringify(await memory(null)));
} else {
  const args = parseArgs(argv);
  const client = new Client(cqlwireOptions(args));
  await client.connect();
  const op = contractOp(client, args.mode, new Uint8Array(VALUE_BYTES).fill(0xab));
  const result = await measure(onDeno ? "cqlwire-deno" : "cqlwire-node", args, op, null);
  console.log(JSON.stringify({ ops_per_s: result.ops_per_s, cpu_us_per_op: result.cpu_us_per_op, ...(await memory(client)) }));
  await client.shutdown();
}
