// WASM linear memory after bursts of large results and large requests (issue #17 item 3),
// against a real server (or, for the insert bursts, the null server). Prints one
// JSON line per phase with the client's WASM linear memory, the core's buffer capacity and
// the process's RSS, in MB:
//   node bench/memory/burst.mjs [host:port]          (dist/node.js)
//   deno run -A bench/memory/burst.mjs [host:port]   (driver/deno.ts)
// Phases: after connect; after the first SELECT page of PAGE_ROWS rows of ROW_BYTES
// (~26 MB); after a second one; after INSERTS concurrent INSERTs of INSERT_BYTES; after a
// second insert burst; after 2 s idle. Memory never shrinks, so "peak" is the value after a
// burst; a second identical burst must not grow it. BURST_SELECTS and BURST_INSERT_ROUNDS
// (2 each) set how many of each run, 0 to measure one kind alone. A measurement, not a test.
import process from "node:process";

const onDeno = typeof Deno !== "undefined";
const argv = onDeno ? Deno.args : process.argv.slice(2);
// CQLWIRE_ROOT: the built tree whose driver is measured (a "before" row), as in probe.mjs.
const root = (onDeno ? Deno.env.get("CQLWIRE_ROOT") : process.env.CQLWIRE_ROOT) ?? new URL("../../", import.meta.url).pathname;
const { Client } = await import(
  `${root}/${onDeno ? "driver/deno.ts" : "dist/node.js"}`
);
const env = (k, d) => Number((onDeno ? Deno.env.get(k) : process.env[k]) ?? d);
const ROW_BYTES = env("BURST_ROW_BYTES", 1 << 20);
const PAGE_ROWS = env("BURST_PAGE_ROWS", 26);
const INSERTS = env("BURST_INSERTS", 400);
const INSERT_BYTES = env("BURST_INSERT_BYTES", 64 << 10);
const SELECTS = env("BURST_SELECTS", 2);
const INSERT_ROUNDS = env("BURST_INSERT_ROUNDS", 2);
const KS = "wasmmem_burst";

const client = new Client({
  contactPoints: [argv[0] ?? "127.0.0.1:9042"],
  localDataCenter: "datacenter1",
  pooling: { coreConnectionsPerHost: 1 },
  socketOptions: { readTimeout: 60000 },
});
const mb = (b) => Math.round((b / 2 ** 20) * 10) / 10;
function report(phase) {
  const s = client.getMemoryStats();
  console.log(
    JSON.stringify({
      runtime: onDeno ? "deno" : "node",
      phase,
      wasm_mb: mb(s.wasmMemoryBytes),
      core_buffers_mb: mb(s.coreBufferBytes),
      rss_mb: mb(process.memoryUsage().rss),
    }),
  );
}

await client.connect();
// BURST_NULL_SERVER=1: bench/target/release/cqlwire-nullserver, which has no user tables but
// bench.kv and keeps no rows: the insert bursts only.
const NULL_SERVER = env("BURST_NULL_SERVER", 0) === 1;
const insertInto = NULL_SERVER
  ? "INSERT INTO bench.kv (k, v) VALUES (?, ?)"
  : `INSERT INTO ${KS}.big (k, c, v) VALUES (1, ?, ?)`;
const key = (i) => (NULL_SERVER ? BigInt(i) : i);
if (!NULL_SERVER) {
  await client.execute(
    `CREATE KEYSPACE IF NOT EXISTS ${KS} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
  );
  await client.execute(
    `CREATE TABLE IF NOT EXISTS ${KS}.big (k int, c int, v blob, PRIMARY KEY (k, c))`,
  );
  const present = await client.execute(
    `SELECT c FROM ${KS}.big WHERE k = 0`,
    [],
    { prepare: true, fetchSize: PAGE_ROWS },
  );
  if (present.rows.length < PAGE_ROWS) {
    const row = new Uint8Array(ROW_BYTES).fill(0x5a);
    for (let c = 0; c < PAGE_ROWS; c++) {
      await client.execute(`INSERT INTO ${KS}.big (k, c, v) VALUES (0, ?, ?)`, [
        c,
        row,
      ], { prepare: true });
    }
  }
}
report("connected");
for (let round = 1; round <= (NULL_SERVER ? 0 : SELECTS); round++) {
  const rs = await client.execute(`SELECT v FROM ${KS}.big WHERE k = 0`, [], {
    prepare: true,
    fetchSize: PAGE_ROWS,
  });
  if (rs.rows.length !== PAGE_ROWS) {
    throw new Error(`page of ${rs.rows.length} rows`);
  }
  report(`select page ${round}`);
}
const value = new Uint8Array(INSERT_BYTES).fill(0xa5);
for (let round = 1; round <= INSERT_ROUNDS; round++) {
  const inserts = [];
  for (let i = 0; i < INSERTS; i++) {
    inserts.push(
      client.execute(insertInto, [key(i), value], { prepare: true }),
    );
  }
  await Promise.all(inserts);
  report(`insert burst ${round}`);
}
await new Promise((r) => setTimeout(r, 2000));
globalThis.gc?.();
report("idle");
await client.shutdown();
