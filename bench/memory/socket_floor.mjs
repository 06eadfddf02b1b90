// A measuring stick, NOT a second driver: the runtime floor with a socket. The same measured
// loop as probe.mjs and floor.mjs (harness.mjs: N/10 warm-up, then N, CONCURRENCY workers),
// where each request is really written to the null server and answered, by the least
// JavaScript that can do it: one TCP socket, protocol v4, STARTUP, one PREPARE, then a
// hand-built EXECUTE frame per request whose promise is settled by stream id when its
// response comes. Only frame headers are parsed (and, for select, the row's blob is a view of
// the read buffer, valid until the next read: the caller checks it at once). No WASM, no
// driver, no error handling beyond stopping. What probe.mjs pays above this is the driver's.
// (bench/clients/floor.mjs is the CPU floor at 1 in flight, one stream; this is 1024 in flight.)
//
//   socket_floor.mjs HOST PORT N CONCURRENCY insert|select    prints one JSON line
import { INSERT_CQL, measure, parseArgs, SELECT_CQL, VALUE_BYTES } from "../clients/harness.mjs";
import { args as argv } from "../clients/runtime.mjs";
import { memory } from "./usage.mjs";

const args = parseArgs(argv);
const OP_STARTUP = 0x01, OP_READY = 0x02, OP_RESULT = 0x08, OP_PREPARE = 0x09, OP_EXECUTE = 0x0a;
const HEADER = 9;
const STREAMS = 32768;

// Requests in flight: each one's resolve function by stream id, and the free stream ids.
const pending = new Array(STREAMS).fill(null);
const free = new Int16Array(STREAMS);
let freeTop = 0;
for (let s = STREAMS - 1; s >= 0; s--) free[freeTop++] = s;

// Frames of this turn, staged in one buffer and written once at its end (as a driver does).
let out = new Uint8Array(64 * 1024);
let outView = new DataView(out.buffer);
let outLen = 0;
let flushQueued = false;

function reserve(bytes) {
  if (outLen + bytes <= out.length) return;
  const bigger = new Uint8Array(Math.max(out.length * 2, outLen + bytes));
  bigger.set(out.subarray(0, outLen));
  out = bigger;
  outView = new DataView(out.buffer);
}

/** Starts a frame's header at outLen; returns where it begins (its length is patched by end). */
function beginFrame(stream, opcode) {
  const at = outLen;
  out[at] = 4;
  out[at + 1] = 0;
  outView.setInt16(at + 2, stream);
  out[at + 4] = opcode;
  outLen += HEADER;
  return at;
}

function endFrame(at) {
  outView.setInt32(at + 5, outLen - at - HEADER);
  if (!flushQueued) {
    flushQueued = true;
    queueMicrotask(flush);
  }
}

const putShort = (v) => (outView.setUint16(outLen, v), (outLen += 2));
const putInt = (v) => (outView.setInt32(outLen, v), (outLen += 4));
const putBytes = (bytes) => (out.set(bytes, outLen), (outLen += bytes.length));

/** Sends the frame `writeBody` writes; settled with the response's body (a view of the read buffer). */
function inFlight(opcode, writeBody) {
  const stream = free[--freeTop];
  const at = beginFrame(stream, opcode);
  writeBody();
  endFrame(at);
  return new Promise((resolve) => (pending[stream] = resolve));
}

const text = new TextEncoder();
const sendUtf8 = (s, putLength) => {
  const bytes = text.encode(s);
  reserve(bytes.length + 4);
  putLength(bytes.length);
  putBytes(bytes);
};

function flush() {
  flushQueued = false;
  const bytes = out.slice(0, outLen); // the socket may keep them until written
  outLen = 0;
  socket.write(bytes);
}

// Responses: whole frames are answered from the read; a frame cut by the read's end is kept
// (copied: the read buffer is reused) and completed by the next.
let carry = null;
// What a response settles its promise with: a view of its body from here (the whole body while
// setting up, the row's blob for select), or nothing (-1, insert).
let settleFrom = 0;
function onData(chunk) {
  let data = chunk;
  if (carry !== null) {
    data = new Uint8Array(carry.length + chunk.length);
    data.set(carry);
    data.set(chunk, carry.length);
    carry = null;
  }
  const view = new DataView(data.buffer, data.byteOffset, data.length);
  let at = 0;
  while (data.length - at >= HEADER) {
    const end = at + HEADER + view.getInt32(at + 5);
    if (end > data.length) break;
    const stream = view.getInt16(at + 2);
    const opcode = data[at + 4];
    if (opcode !== OP_RESULT && opcode !== OP_READY) throw new Error(`stream ${stream}: opcode 0x${opcode.toString(16)}`);
    const resolve = pending[stream];
    pending[stream] = null;
    free[freeTop++] = stream;
    resolve(settleFrom < 0 ? undefined : data.subarray(at + HEADER + settleFrom, end));
    at = end;
  }
  if (at < data.length) carry = data.slice(at);
}

const socket = typeof Deno !== "undefined" ? await denoSocket() : await nodeSocket();

async function denoSocket() {
  const conn = await Deno.connect({ hostname: args.host, port: args.port });
  conn.setNoDelay(true);
  (async () => {
    const buf = new Uint8Array(256 * 1024);
    for (let n; (n = await conn.read(buf)) !== null;) onData(buf.subarray(0, n));
  })().catch(() => {}); // closed at the end
  // One write at a time; what is flushed meanwhile waits in `queued` (Deno's write may be partial).
  let queued = [];
  let writing = false;
  async function writeAll() {
    writing = true;
    while (queued.length > 0) {
      const batch = queued;
      queued = [];
      for (const bytes of batch) for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
    }
    writing = false;
  }
  return { write: (bytes) => (queued.push(bytes), writing || writeAll()), close: () => conn.close() };
}

async function nodeSocket() {
  const net = await import("node:net");
  const socket = net.connect({
    host: args.host,
    port: args.port,
    noDelay: true,
    onread: { buffer: new Uint8Array(64 * 1024), callback: (n, buf) => (onData(buf.subarray(0, n)), true) },
  });
  await new Promise((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  return { write: (bytes) => socket.write(bytes), close: () => socket.destroy() };
}

await inFlight(OP_STARTUP, () => {
  // STARTUP: a string map of one entry.
  putShort(1);
  sendUtf8("CQL_VERSION", putShort);
  sendUtf8("3.0.0", putShort);
});
const cql = args.mode === "insert" ? INSERT_CQL : SELECT_CQL;
const prepared = await inFlight(OP_PREPARE, () => sendUtf8(cql, putInt));
// RESULT kind Prepared (int 4), then the id as [short bytes].
const id = prepared.slice(6, 6 + new DataView(prepared.buffer, prepared.byteOffset).getUint16(4));

const value = new Uint8Array(VALUE_BYTES).fill(0xab);
const ONE = 0x0001, VALUES = 0x01, SKIP_METADATA = 0x02;
const insert = args.mode === "insert";
const executeBytes = HEADER + 2 + id.length + 3 + 2 + 12 + (insert ? 4 + VALUE_BYTES : 0);

function execute(key) {
  const stream = free[--freeTop];
  reserve(executeBytes);
  const at = beginFrame(stream, OP_EXECUTE);
  putShort(id.length);
  putBytes(id);
  putShort(ONE);
  out[outLen++] = insert ? VALUES : VALUES | SKIP_METADATA;
  putShort(insert ? 2 : 1);
  putInt(8);
  outView.setBigInt64(outLen, key);
  outLen += 8;
  if (insert) {
    putInt(VALUE_BYTES);
    putBytes(value);
  }
  endFrame(at);
  return new Promise((resolve) => (pending[stream] = resolve));
}

// The select's row, skipping metadata: kind, flags, column count, row count (ints), then
// k as [int 8][8 bytes] and v as [int 32][32 bytes], the view its promise is settled with.
settleFrom = insert ? -1 : 16 + 4 + 8 + 4;
function checkValue(v, i) {
  if (v.length !== VALUE_BYTES || v[0] !== 0xab) throw new Error(`bad row for k=${i}`);
}

const op = insert ? (i) => execute(BigInt(i)) : (i) => execute(BigInt(i)).then((body) => checkValue(body, i));
const result = await measure(`socket-floor-${typeof Deno !== "undefined" ? "deno" : "node"}`, args, op, null);
console.log(JSON.stringify({ ops_per_s: result.ops_per_s, cpu_us_per_op: result.cpu_us_per_op, ...(await memory(null)) }));
socket.close();
