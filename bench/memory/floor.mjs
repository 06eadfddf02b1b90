// The runtime floor: what any JavaScript client pays to keep CONCURRENCY requests in flight,
// with no driver at all. The same measured loop as probe.mjs (harness.mjs: N/10 warm-up, then
// N, with CONCURRENCY workers each awaiting one request at a time), where a "request" is the
// least a client must keep alive while it waits: its promise, the resolver and a record in a
// queue. The "server" answers every queued request on the next turn of the event loop, as a
// socket read would, with a row object like the SELECT's. So the difference between this row
// and probe.mjs's is what the driver itself adds.
//
//   floor.mjs N CONCURRENCY      prints one JSON line (ops/s, CPU per op, memory by kind)
import { measure, VALUE_BYTES } from "../clients/harness.mjs";
import { args } from "../clients/runtime.mjs";
import { memory } from "./usage.mjs";

// The next turn of the event loop, as a socket read's callback comes: setImmediate on Node; a
// MessageChannel message on Deno, whose setImmediate global loads its Node layer (~5 MB).
const turns = typeof Deno !== "undefined" ? new MessageChannel() : null;
const nextTurn = turns ? () => turns.port2.postMessage(null) : setImmediate;
if (turns) turns.port1.onmessage = () => answerAll();
const [n, concurrency] = args.map(Number);
if (!(n > 0 && concurrency > 0)) throw new Error("usage: floor.mjs N CONCURRENCY");

const value = new Uint8Array(VALUE_BYTES).fill(0xab);
let waiting = [];
let answerScheduled = false;

function answerAll() {
  answerScheduled = false;
  const batch = waiting;
  waiting = [];
  for (const request of batch) request.resolve({ k: request.key, v: value });
}

function op(i) {
  return new Promise((resolve) => {
    waiting.push({ key: BigInt(i), resolve });
    if (!answerScheduled) {
      answerScheduled = true;
      nextTurn(answerAll);
    }
  });
}

const result = await measure("floor", { n, concurrency, mode: "floor" }, op, null);
console.log(JSON.stringify({ ops_per_s: result.ops_per_s, cpu_us_per_op: result.cpu_us_per_op, ...(await memory(null)) }));
turns?.port1.close();
