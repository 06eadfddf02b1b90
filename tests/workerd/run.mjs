#!/usr/bin/env node
// Runs the driver inside workerd from the built bundle: starts `workerd serve` on a port the
// kernel picks (reported through --control-fd), asks the test Worker to run, checks its JSON
// report (paged round trip + the shared conformance suite), runs it against the null
// server's Scylla personality (bench/nullserver, started here), and stops workerd.
//
//   node tests/workerd/run.mjs            (CQLWIRE_HOSTS=host:port,... to point elsewhere)
import { existsSync } from "node:fs";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { conformanceCases } from "../conformance/cases.mjs";
import { serveWorkerd } from "./serve.mjs";
import { spawn as spawnProcess } from "../scylla/node_spawn.mjs";
import { NULLSERVER, startScyllaServer } from "../scylla/server.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WORKERD = `${ROOT}node_modules/.bin/workerd`;
const CONFIG = `${ROOT}tests/workerd/config.capnp`;
const HOSTS = (process.env.CQLWIRE_HOSTS ?? "127.0.0.1:9042").split(",");
const START_TIMEOUT_MS = 30_000;
const REQUEST_TIMEOUT_MS = 180_000;

const SCYLLA_INSERTS = 10_000;
let failures = 0;
function check(ok, label, detail = "") {
  console.log(`${ok ? "ok  " : "FAIL"}  ${label}${detail ? ` — ${detail}` : ""}`);
  if (!ok) failures++;
}

function fail(message) {
  console.error(`workerd test: ${message}`);
  process.exit(1);
}

function reachable(hostPort) {
  const [host, port] = hostPort.split(":");
  return new Promise((resolve) => {
    const s = net.connect({ host, port: Number(port ?? 9042) });
    s.setTimeout(3000, () => (s.destroy(), resolve(false)));
    s.once("connect", () => (s.destroy(), resolve(true)));
    s.once("error", () => resolve(false));
  });
}

/**
 * The Worker against the null server's Scylla personality (4 shards; `tablets`: with
 * --scylla-tablets), which this runner starts (a Worker cannot). workerd cannot bind a local
 * port, so the driver never uses the shard-aware port: it fills the pool over the regular
 * port until every shard is covered (the server assigns those round-robin) and sends each
 * request on its owning shard's (or tablet replica's) connection.
 */
async function scyllaPersonality(port, layout) {
  const server = await startScyllaServer(spawnProcess, 4, layout === "tablets" ? ["--scylla-tablets"] : []);
  try {
    const url = `http://127.0.0.1:${port}/scylla?address=${encodeURIComponent(server.address)}&count=${SCYLLA_INSERTS}`;
    const answer = await (await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })).json();
    check(!answer.error, `scylla personality (${layout}): ${SCYLLA_INSERTS} prepared inserts inside the Worker`, answer.error ?? "");
    const t = await server.totals((counters) => counters.executes >= SCYLLA_INSERTS);
    check(t.shard_port_connections === 0, `scylla personality (${layout}): the shard-aware port is never used`, `${t.shard_port_connections} connections`);
    check(t.executes === SCYLLA_INSERTS && t.unroutable === 0, `scylla personality (${layout}): every insert counted, each with its partition key`, `${t.executes} EXECUTEs, ${t.unroutable} without a key`);
    check(t.per_shard.length === 4 && t.per_shard.every((n) => n > 0), `scylla personality (${layout}): every shard served requests over the regular port`, `per shard ${JSON.stringify(t.per_shard)}`);
    const onTarget = layout === "tablets" ? t.tablet_hits : t.on_owning_shard;
    check(onTarget / t.executes >= 0.99, `scylla personality (${layout}): >= 99% on the ${layout === "tablets" ? "tablet replica's" : "owning"} shard`, `${onTarget} of ${t.executes}`);
  } finally {
    await server.stop();
  }
}

for (const file of [WORKERD, `${ROOT}dist/workerd.js`, `${ROOT}dist/wasm/pkg/cqlwire_wasm_bg.wasm`, NULLSERVER]) {
  if (!existsSync(file)) fail(`${file} is missing (run: make build, npm install; the null server: (cd bench/nullserver && CARGO_TARGET_DIR=../target cargo build --release))`);
}
if (!(await reachable(HOSTS[0]))) fail(`Cassandra is not reachable at ${HOSTS[0]} (start it with scripts/cassandra start)`);

const started = Date.now();
let served = null;
try {
  served = await serveWorkerd(WORKERD, CONFIG, START_TIMEOUT_MS);
  const port = served.port;
  console.log(`workerd listening on 127.0.0.1:${port} after ${Date.now() - started} ms`);

  // CQLWIRE_CONFORMANCE_KEYSPACE: another keyspace, for runs beside a `make test` on the same server.
  const keyspace = process.env.CQLWIRE_CONFORMANCE_KEYSPACE;
  const url = `http://127.0.0.1:${port}/?hosts=${encodeURIComponent(HOSTS.join(","))}${keyspace ? `&keyspace=${encodeURIComponent(keyspace)}` : ""}`;
  const response = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const text = await response.text();
  check(response.status === 200, "the Worker answered 200", `status ${response.status}`);
  let report;
  try {
    report = JSON.parse(text);
  } catch {
    fail(`the Worker did not answer JSON:\n${text.slice(0, 2000)}`);
  }

  const rt = report.roundTrip ?? {};
  check(!rt.error, "connect, prepared inserts and a paged select inside the Worker", rt.error ?? "");
  check(/^5\.0\.\d+/.test(String(rt.release)), "system.local release is 5.0.x", `got ${rt.release}`);
  check(JSON.stringify(rt.pageSizes) === JSON.stringify([10, 10, 10, 10, 10, 7]), "57 rows come back in pages of 10", `pages ${JSON.stringify(rt.pageSizes)}`);
  check(rt.rowsRead === 57 && rt.labelsInOrder === true, "every inserted row read back once, in clustering order", `rows ${rt.rowsRead}`);

  // The Worker must have run exactly the suite the other runtimes run.
  const expected = conformanceCases({ Client: class {}, types: {}, errors: { ArgumentError: class {}, NoHostAvailableError: class {}, ResponseError: class {} } }, {}, { contactPoints: [], keyspace: "x" }).map((c) => c.name);
  const ran = (report.conformance ?? []).map((c) => c.name);
  check(JSON.stringify(ran) === JSON.stringify(expected), `the Worker ran all ${expected.length} conformance cases`, `ran ${ran.length}`);
  for (const c of report.conformance ?? []) check(c.ok, `conformance (workerd): ${c.name}`, c.ok ? `${c.ms} ms` : c.error);

  for (const layout of ["vnodes", "tablets"]) await scyllaPersonality(port, layout);
} catch (e) {
  check(false, "workerd run", e.message);
} finally {
  const stopping = Date.now();
  const stopped = served ? await served.stop() : true;
  console.log(`workerd stopped ${stopped ? "" : "(SIGKILL) "}after ${Date.now() - stopping} ms`);
}

if (failures > 0) {
  const output = served ? served.output().trim() : "";
  if (output) console.log(`--- workerd output:\n${output.slice(-4000)}`);
  console.log(`workerd: ${failures} check(s) failed (${Date.now() - started} ms)`);
  process.exit(1);
}
console.log(`workerd: all checks passed (${Date.now() - started} ms)`);
