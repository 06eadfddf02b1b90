// The Scylla extensions through the Deno transport, against the null server's Scylla
// personality (not a real ScyllaDB). Deno cannot bind a chosen local port, so the driver
// fills each node's pool over the regular port until every shard is covered.
import { assert, assertEquals } from "../cli/assert.ts";
import { Client, RateLimitError } from "../../driver/deno.ts";
import { rateLimitedBulkLoad, rateLimitedInsert, shardAwareRun } from "./scenarios.mjs";
import { localPortsForShard } from "../../driver/src/shard_ports.ts";
import { runCli } from "../cli/run.ts";
import { startScyllaServer } from "./server.mjs";

function spawn(path: string, args: string[], onStdout: (chunk: string) => void) {
  const child = new Deno.Command(path, { args, stdout: "piped", stderr: "inherit" }).spawn();
  let code: number | null = null;
  const status = child.status.then((s) => (code = s.code));
  const pumped = child.stdout.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => onStdout(chunk) }),
  );
  return {
    exitCode: () => code,
    kill: async () => {
      child.kill("SIGTERM");
      await Promise.all([status, pumped]);
    },
  };
}

Deno.test("deno: requests reach the owning shard over blindly filled pools", async () => {
  const { totals, share } = await shardAwareRun(Client, spawn);
  assertEquals(totals.shard_port_connections, 0, "Deno never uses the shard-aware port");
  assertEquals(totals.executes, 10000);
  assertEquals(totals.unroutable, 0);
  assert(share >= 0.99, `share on the owning shard ${share} (${JSON.stringify(totals)})`);
});

Deno.test("deno: with tablets, requests follow the tablet map after one misroute per tablet", async () => {
  const { totals } = await shardAwareRun(Client, spawn, { extra: ["--scylla-tablets"] });
  assertEquals([totals.executes, totals.tablet_hits + totals.tablet_misroutes], [10000, 10000]);
  assert(totals.tablet_misroutes >= 1, "the layout differs from the token's shard, so the first requests miss");
  assert(totals.tablet_hits / totals.executes >= 0.99, `share on a tablet replica (${JSON.stringify(totals)})`);
});

Deno.test("deno: a rate-limit error is its own class and is not retried", async () => {
  const { error, totals } = await rateLimitedInsert(Client, spawn);
  assert(error instanceof RateLimitError, `got ${error}`);
  assertEquals(
    [error.name, error.code, error.codeName, error.opType, error.rejectedByCoordinator],
    ["RateLimitError", 0xF000, "RateLimitReached", "write", true],
  );
  assertEquals([totals.executes, totals.rate_limited], [1, 1], "one attempt, never retried");
});

// Each attempt is refused with probability about 1/7, so a row's 11 attempts all fail about
// once in 7^10 rows: a bad row here is the loader's fault, not bad luck.
for (const batchSize of [1, 32]) {
  Deno.test(`deno: a bulk load backs off on rate-limit errors and loses no row (${batchSize} rows per request)`, async () => {
    const rows = 2000;
    const { state, bad, totals } = await rateLimitedBulkLoad(Client, spawn, { rows, batchSize, maxRetries: 10 });
    assertEquals(bad, [], "no row reported bad");
    assertEquals([state.status.error, state.status.done], [null, true]);
    assertEquals([state.counters.rowsOk, state.counters.rowsBad, state.counters.rowsRejected], [rows, 0, 0]);
    assert(totals.rate_limited > 0, "the server refused some requests");
    assertEquals(state.counters.retries, totals.rate_limited, "each refused request went again, once");
    assertEquals([totals.rows_written, totals.distinct_keys_written], [rows, rows], "every row arrived once");
    assertEquals(batchSize === 1 ? totals.batches : totals.executes, 0, "requests of the kind asked for");
  });
}

Deno.test("deno: a row the rate limit refuses on every attempt is bad once its attempts are spent", async () => {
  const { state, bad, totals } = await rateLimitedBulkLoad(Client, spawn, { rows: 2, every: 1, batchSize: 1, maxRetries: 2 });
  assertEquals(
    bad.map((b) => [b.kind, b.serverCode, b.attempts, b.line]).sort(),
    [["rejected", 0xF000, 3, 2], ["rejected", 0xF000, 3, 3]],
  );
  assertEquals([state.counters.rowsOk, state.counters.rowsBad, state.counters.rowsRejected, state.counters.retries], [0, 0, 2, 4]);
  assertEquals([totals.executes, totals.rate_limited, totals.rows_written], [6, 6, 0]);
});

Deno.test("cli: load backs off on rate-limit errors and every row arrives once", async () => {
  const rows = 5000;
  const dir = await Deno.makeTempDir({ prefix: "scylla2_cli_" });
  const server = await startScyllaServer(spawn, 4, ["--scylla-rate-limit-every", "7"]);
  try {
    let csv = "k,v\n";
    for (let k = 0; k < rows; k++) csv += `${k},0x${k.toString(16).padStart(8, "0")}\n`;
    await Deno.writeTextFile(`${dir}/rows.csv`, csv);
    // --table: the CLI reads the columns from system_schema.columns, which the personality fills.
    const run = await runCli(["--hosts", server.address, "load", "--table", "bench.kv", "--max-retries", "10", "--bad-dir", `${dir}/bad`, `${dir}/rows.csv`]);
    assertEquals(run.code, 0, run.stderr);
    // The CLI exited, so every row it counted as loaded was answered: the server's final line
    // has them all (without `until`, an early line of a closed probe connection could be read).
    const totals = await server.totals((t: { rows_written: number }) => t.rows_written >= rows);
    assert(totals.rate_limited > 0, "the server refused some requests");
    assert(run.stdout.includes(`${rows} rows loaded, 0 bad rows`), run.stdout);
    assert(run.stdout.includes(`; ${totals.rate_limited} retries;`), `each refusal retried once: ${run.stdout} ${JSON.stringify(totals)}`);
    assertEquals([totals.rows_written, totals.distinct_keys_written], [rows, rows], "every row arrived once");
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("local ports for a shard have its residue, lie in the ephemeral range and wrap", () => {
  for (const nrShards of [1, 3, 4, 7, 64]) {
    for (let shard = 0; shard < nrShards; shard++) {
      for (const r of [0, 0.5, 0.999999]) {
        const ports = localPortsForShard({ shard, nrShards }, () => r);
        assertEquals(ports.length, 16);
        assertEquals(new Set(ports).size, 16, "16 different ports");
        for (const p of ports) {
          assert(p >= 49152 && p <= 65535 && p % nrShards === shard, `port ${p} for shard ${shard} of ${nrShards}`);
        }
      }
    }
  }
  assertEquals(localPortsForShard({ shard: 1, nrShards: 4 }, () => 0).slice(0, 3), [49153, 49157, 49161]);
});
