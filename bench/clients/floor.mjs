// The floor under a JavaScript client with 1 request in flight: the bench's prepared INSERT or
// SELECT as hand-built EXECUTE frames over one socket, no driver, in the shape of cqlwire's
// transports (bench/DENO_CPU.md): on Deno a read loop on `Deno.Conn.read` into one buffer and
// writes that are not awaited; on Node `node:net` with `onread` into one buffer. The measuring
// loop is the harness's, so the p50 compares with the clients' as it is.
//
//   deno run -A bench/clients/floor.mjs HOST PORT N 1 insert|select
//   node bench/clients/floor.mjs HOST PORT N 1 insert|select
import { INSERT_CQL, measure, parseArgs, SELECT_CQL, VALUE_BYTES } from "./harness.mjs";
import { args as argv } from "./runtime.mjs";

const OP_ERROR = 0x00;
const OP_STARTUP = 0x01;
const OP_PREPARE = 0x09;
const OP_EXECUTE = 0x0a;
const HEADER = 9;
const CONSISTENCY_ONE = 1;
const FLAG_VALUES = 0x01;
const FLAG_SKIP_METADATA = 0x02;

const onDeno = typeof Deno !== "undefined";
const args = parseArgs(argv);
if (args.concurrency !== 1) throw new Error("the floor runs 1 request in flight only");
const text = new TextEncoder();

/** A v4 request frame on stream 0 (one request at a time). */
function frame(opcode, body) {
  const out = new Uint8Array(HEADER + body.length);
  out[0] = 4;
  out[4] = opcode;
  new DataView(out.buffer).setUint32(5, body.length);
  out.set(body, HEADER);
  return out;
}

/** STARTUP's string map, `{CQL_VERSION: "3.0.0"}`. */
function startupBody() {
  const key = text.encode("CQL_VERSION");
  const value = text.encode("3.0.0");
  const out = new Uint8Array(2 + 2 + key.length + 2 + value.length);
  const view = new DataView(out.buffer);
  view.setUint16(0, 1);
  view.setUint16(2, key.length);
  out.set(key, 4);
  view.setUint16(4 + key.length, value.length);
  out.set(value, 6 + key.length);
  return out;
}

function prepareBody(cql) {
  const query = text.encode(cql);
  const out = new Uint8Array(4 + query.length);
  new DataView(out.buffer).setUint32(0, query.length);
  out.set(query, 4);
  return out;
}

/**
 * EXECUTE of `id` with k = 0 (and the 32-byte value for an INSERT), as the clients bind them,
 * and where k is in it. One frame serves every request: with one in flight, a response means
 * the server has read the whole frame before, so rewriting k cannot touch bytes still being
 * written, and a request allocates no buffer (one over 64 bytes is an allocation outside
 * V8's heap, which is the driver's cost, not the floor's).
 */
function executeFrame(id, withValue) {
  const values = withValue ? 2 : 1;
  const body = new Uint8Array(2 + id.length + 2 + 1 + 2 + 12 + (withValue ? 4 + VALUE_BYTES : 0));
  const view = new DataView(body.buffer);
  view.setUint16(0, id.length);
  body.set(id, 2);
  let at = 2 + id.length;
  view.setUint16(at, CONSISTENCY_ONE);
  body[at + 2] = withValue ? FLAG_VALUES : FLAG_VALUES | FLAG_SKIP_METADATA;
  view.setUint16(at + 3, values);
  view.setInt32(at + 5, 8);
  const keyAt = HEADER + at + 9;
  at += 17;
  if (withValue) {
    view.setInt32(at, VALUE_BYTES);
    body.fill(0xab, at + 4, at + 4 + VALUE_BYTES);
  }
  const bytes = frame(OP_EXECUTE, body);
  return { bytes, key: new DataView(bytes.buffer, keyAt, 8) };
}

// Responses: whole frames out of the byte stream, each settling the one request waiting.
let pending = new Uint8Array(0);
let settle = null;
function onBytes(chunk) {
  const bytes = pending.length === 0 ? chunk : concat(pending, chunk);
  let at = 0;
  while (bytes.length - at >= HEADER) {
    const end = at + HEADER + new DataView(bytes.buffer, bytes.byteOffset + at + 5, 4).getUint32(0);
    if (end > bytes.length) break;
    const opcode = bytes[at + 4];
    const body = bytes.subarray(at + HEADER, end);
    at = end;
    const s = settle;
    settle = null;
    s(opcode === OP_ERROR ? new Error(`the server answered with an error: ${new TextDecoder().decode(body.subarray(6))}`) : body);
  }
  // What is kept must not be the read buffer, which the next read overwrites.
  pending = at === bytes.length ? new Uint8Array(0) : bytes.slice(at);
}

function concat(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Opens the socket; returns its write function. Reads go to `onBytes`. */
async function connect() {
  const readBuffer = new Uint8Array(256 * 1024);
  if (onDeno) {
    const conn = await Deno.connect({ hostname: args.host, port: args.port });
    conn.setNoDelay(true);
    (async () => {
      for (;;) {
        const n = await conn.read(readBuffer);
        if (n === null) return;
        onBytes(readBuffer.subarray(0, n));
      }
    })();
    return (bytes) => void conn.write(bytes);
  }
  const net = await import("node:net");
  const socket = net.connect({
    host: args.host,
    port: args.port,
    noDelay: true,
    onread: { buffer: readBuffer, callback: (n, buf) => void onBytes(buf.subarray(0, n)) },
  });
  await new Promise((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  return (bytes) => void socket.write(bytes);
}

const write = await connect();
function roundTrip(bytes) {
  const answer = new Promise((resolve, reject) => (settle = (r) => (r instanceof Error ? reject(r) : resolve(r))));
  write(bytes);
  return answer;
}

await roundTrip(frame(OP_STARTUP, startupBody()));
const insert = args.mode === "insert";
const prepared = (await roundTrip(frame(OP_PREPARE, prepareBody(insert ? INSERT_CQL : SELECT_CQL)))).slice();
// A Prepared result: [kind int][id short bytes]...
const id = prepared.slice(6, 6 + new DataView(prepared.buffer).getUint16(4));
const execute = executeFrame(id, insert);
const result = await measure(onDeno ? "floor-deno" : "floor-node", args, (i) => {
  execute.key.setBigInt64(0, BigInt(i));
  return roundTrip(execute.bytes);
});
console.log(JSON.stringify(result));
if (onDeno) Deno.exit(0);
else process.exit(0);
