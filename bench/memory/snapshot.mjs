// What a cqlwire client keeps alive per request in flight, by object: the measured loop of
// bench/clients/cqlwire.mjs (one connection, protocol v4, prepared statements) on Node, with
// one V8 heap snapshot taken at the first macrotask after request N/2 was sent (every worker
// waits on a request in flight), then
// the snapshot's live objects summed by kind and constructor. Prints one JSON line: the
// objects and bytes per request in flight of each kind (the whole heap divided by
// CONCURRENCY; diff an insert run against a select run to see what a SELECT keeps).
//   node bench/memory/snapshot.mjs HOST PORT N CONCURRENCY insert|select
// CQLWIRE_ROOT picks the tree whose driver is measured; SNAPSHOT_KEEP=PATH keeps the file.
import { contractOp, cqlwireOptions, parseArgs, VALUE_BYTES } from "../clients/harness.mjs";
import { args as argv, env } from "../clients/runtime.mjs";
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { writeHeapSnapshot } from "node:v8";

const root = env("CQLWIRE_ROOT") ?? new URL("../../", import.meta.url).pathname;
const { Client } = await import(`${root}/dist/node.js`);
const args = parseArgs(argv);
const client = new Client(cqlwireOptions(args));
await client.connect();
const op = contractOp(client, args.mode, new Uint8Array(VALUE_BYTES).fill(0xab));

let path = null;
let sentAtSnapshot = 0;
function snapshotNow() {
  sentAtSnapshot = next;
  path = writeHeapSnapshot(env("SNAPSHOT_KEEP") ?? `${tmpdir()}/cqlwire-${process.pid}.heapsnapshot`);
}
let next = 0;
const half = Math.floor(args.n / 2);
async function worker() {
  while (next < args.n) {
    const i = next++;
    // At the next macrotask every worker waits on a request in flight: none is half settled.
    // (Node reads many socket buffers in one poll phase: thousands of requests may pass first.)
    if (i === half) setImmediate(snapshotNow);
    await op(i);
  }
}
await Promise.all(Array.from({ length: args.concurrency }, worker));
await client.shutdown();
if (path === null || sentAtSnapshot >= args.n) throw new Error("the loop ended before the snapshot: raise N");

const snapshot = JSON.parse(readFileSync(path, "utf8"));
if (!env("SNAPSHOT_KEEP")) rmSync(path);
const meta = snapshot.snapshot.meta;
const fields = meta.node_fields;
const width = fields.length;
const typeNames = meta.node_types[0];
const [typeAt, nameAt, sizeAt] = ["type", "name", "self_size"].map((f) => fields.indexOf(f));
const byKind = new Map();
const nodes = snapshot.nodes;
for (let i = 0; i < nodes.length; i += width) {
  const type = typeNames[nodes[i + typeAt]];
  let name = snapshot.strings[nodes[i + nameAt]];
  // Strings and code are named by their contents: count them by kind only.
  if (type !== "object" && type !== "closure" && type !== "hidden" && type !== "array") name = "";
  if (name.length > 60) name = `${name.slice(0, 57)}...`;
  const key = `${type} ${name}`;
  const entry = byKind.get(key) ?? { count: 0, bytes: 0 };
  entry.count++;
  entry.bytes += nodes[i + sizeAt];
  byKind.set(key, entry);
}
const per = (x) => +(x / args.concurrency).toFixed(2);
console.log(JSON.stringify({
  mode: args.mode,
  sent_at_snapshot: sentAtSnapshot,
  concurrency: args.concurrency,
  kinds: Object.fromEntries([...byKind].sort((a, b) => b[1].count - a[1].count).map(([k, e]) => [k, [per(e.count), per(e.bytes)]])),
}));
