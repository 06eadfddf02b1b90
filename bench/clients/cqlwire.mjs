// cqlwire, one connection, protocol v4: the same program runs on Deno (driver/deno.ts) and on
// Node (the built dist/node.js).
import { contractOp, measure, parseArgs, VALUE_BYTES } from "./harness.mjs";
import { args as argv } from "./runtime.mjs";

const onDeno = typeof Deno !== "undefined";
const { Client } = await import(onDeno ? "../../driver/deno.ts" : "../../dist/node.js");
const args = parseArgs(argv);

const client = new Client({
  contactPoints: [`${args.host}:${args.port}`],
  localDataCenter: "datacenter1",
  protocolVersion: 4,
  pooling: { coreConnectionsPerHost: 1 },
});
await client.connect();
const value = new Uint8Array(VALUE_BYTES).fill(0xab);
const op = contractOp(client, args.mode, value);
const result = await measure(onDeno ? "cqlwire-deno" : "cqlwire-node", args, op, () => client.getMemoryStats?.());
console.log(JSON.stringify(result));
await client.shutdown();
