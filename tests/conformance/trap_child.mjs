// Run by settle.test.mjs in its own Node process (and by trap_deno_test.ts on Deno): an uncaught exception here ends the
// process with exit 1, which is what a WASM trap in a socket or timer handler did. Each
// scenario makes one of the core's entry points trap as a panic does (a RuntimeError
// thrown from inside the WASM call) and prints what the client did; the parent compares.
import { rejection } from "./rejection.mjs";

// The same scenarios on Deno (tests/conformance runs this file with deno) and on Node.
const onDeno = typeof globalThis.Deno !== "undefined";
const cqlwire = await import(onDeno ? "../../dist/deno.js" : "../../dist/node.js");
const hosts = onDeno ? globalThis.Deno.env.get("CQLWIRE_HOSTS") : globalThis.process.env.CQLWIRE_HOSTS;
const HOSTS = (hosts ?? "127.0.0.1:9042").split(",");
const { Client, DriverInternalError } = cqlwire;
const QUERY = "SELECT release_version FROM system.local";

/** Makes the core's `method` trap from now on, the way an `unreachable` does. */
function trapOn(client, method) {
  // The session and its WasmSession are internal: reaching them is the test's fault hook.
  const core = client.session.core;
  core[method] = () => {
    throw new WebAssembly.RuntimeError("unreachable");
  };
}

/** After the failure: later calls reject with the very same error, and no socket is left. */
async function describeClosed(client, failure) {
  const later = await Promise.all([
    rejection(client.execute(QUERY)),
    rejection(client.execute(QUERY, [], { prepare: true })),
    rejection(client.connect()),
    rejection(client.batch([QUERY])),
  ]);
  const same = later.every((error) => error === failure) ? "the same error" : `other errors: ${later.map(String)}`;
  const kind = failure instanceof DriverInternalError ? `${failure.name} ${failure.code}` : `not internal: ${failure}`;
  return `${kind}, later calls ${same}, sockets ${client.session.sockets.size}`;
}

async function socketTrap() {
  const client = new Client({ contactPoints: HOSTS, localDataCenter: "datacenter1" });
  await client.connect();
  trapOn(client, "handleStaged");
  const errors = await Promise.all(Array.from({ length: 5 }, () => rejection(client.execute(QUERY))));
  const first = errors[0];
  const allSame = errors.every((error) => error === first);
  console.log(`socket: pending rejected ${allSame ? "" : "(not all alike) "}${await describeClosed(client, first)}`);
  await client.shutdown();
}

async function timerTrap() {
  const client = new Client({ contactPoints: HOSTS, localDataCenter: "datacenter1" });
  await client.connect();
  const failed = new Promise((resolve) => {
    client.on("log", (level, message) => {
      if (level === "warning" && String(message).startsWith("the WASM core trapped")) resolve();
    });
  });
  trapOn(client, "handleTimeout");
  // A 1 ms request timeout arms the timer; whether the answer comes first or not, it fires.
  const request = client.execute(QUERY, [], { timeout: 1 }).catch((e) => e);
  await failed;
  await request;
  console.log(`timer: ${await describeClosed(client, client.session.failure)}`);
  await client.shutdown();
}

async function callTrap() {
  const client = new Client({ contactPoints: HOSTS, localDataCenter: "datacenter1" });
  await client.connect();
  await client.execute(QUERY, [], { prepare: true });
  trapOn(client, "executeStaged");
  const error = await rejection(client.execute(QUERY, [], { prepare: true }));
  console.log(`call: ${await describeClosed(client, error)}`);
  await client.shutdown();
}

await socketTrap();
await timerTrap();
await callTrap();
console.log("alive");
