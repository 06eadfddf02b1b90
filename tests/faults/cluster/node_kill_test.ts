/**
 * The 3-node cluster (127.0.0.1-3, `make test-faults`): keyspace with RF=3, writes at
 * QUORUM; one node is killed with SIGKILL in mid-load and restarted. The load completes
 * and the table holds exactly the input's rows.
 */
import { Client } from "../../../driver/deno.ts";
import {
  assert,
  assertEquals,
  assertExactContent,
  CONSISTENCY,
  describeRun,
  ErrorTally,
  freshTable,
  type Measured,
  resentByDriver,
  ROOT,
  RssSampler,
  runCli,
  scenario,
  sleep,
  tempDir,
  valueOf,
  writeRowsCsv,
} from "../helpers.ts";

const HOSTS = ["127.0.0.1:9042", "127.0.0.2:9042", "127.0.0.3:9042"];
const KEYSPACE = "cqlwire_faults3";
const ROWS = Number(Deno.env.get("CQLWIRE_FAULTS_CLUSTER_ROWS") ?? 200_000);
/** Seconds into the load at which the node dies. */
const KILL_AFTER_S = Number(Deno.env.get("CQLWIRE_FAULTS_KILL_AFTER_S") ?? 4);

function clusterClient(extra: Record<string, unknown> = {}): Client {
  // DDL answers wait (in the driver) until all three nodes agree on the schema.
  return new Client({ contactPoints: HOSTS, localDataCenter: "datacenter1", requestTimeout: 60_000, protocolOptions: { maxSchemaAgreementWaitSeconds: 60 }, ...extra });
}

async function cassandra(...args: string[]): Promise<{ code: number; output: string }> {
  const out = await new Deno.Command(`${ROOT}scripts/cassandra`, { args, stdout: "piped", stderr: "piped" }).output();
  return { code: out.code, output: new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr) };
}

/** Fails unless three nodes answer and see each other up. */
async function requireThreeNodes(): Promise<void> {
  const c = clusterClient();
  try {
    await c.connect();
    const up = c.getState().nodes.filter((n) => n.up).length;
    assertEquals(up, 3, "this scenario needs the 3-node cluster (make test-faults, or scripts/cassandra start --nodes 3)");
  } finally {
    await c.shutdown();
  }
}

/** SIGKILLs node `i`, then restarts it in the background; `restarted` settles once it is ready again. */
async function killAndRestart(i: number, m: Measured): Promise<{ restarted: Promise<void> }> {
  const killed = await cassandra("kill", String(i));
  assertEquals(killed.code, 0, `scripts/cassandra kill ${i}: ${killed.output}`);
  const t0 = performance.now();
  const restarted = (async () => {
    const started = await cassandra("start-node", String(i));
    m.notes.push(`node ${i} back after ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    assertEquals(started.code, 0, `scripts/cassandra start-node ${i}: ${started.output.slice(-800)}`);
  })();
  return { restarted };
}

/** Waits until every node reports the same schema version (a new table is known everywhere). */
async function awaitSchemaAgreement(c: Client): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const local = await c.execute("SELECT schema_version FROM system.local");
    const peers = await c.execute("SELECT schema_version FROM system.peers");
    const versions = new Set([...local.rows, ...peers.rows].map((r) => String(r.schema_version)));
    if (versions.size === 1) return;
    if (Date.now() > deadline) throw new Error(`no schema agreement after 30 s: ${[...versions].join(", ")}`);
    await sleep(200);
  }
}

async function verifyAtQuorum(table: string, m: Measured): Promise<void> {
  const c = clusterClient();
  try {
    await assertExactContent(c, table, ROWS, m, CONSISTENCY.quorum);
  } finally {
    await c.shutdown();
  }
}

scenario(
  "cluster",
  "node killed with SIGKILL in mid-load, then restarted (CLI load)",
  `3 nodes, RF=3, load of ${ROWS} rows at QUORUM; node 3 SIGKILLed ${KILL_AFTER_S} s in and restarted: exit 0, count and content hash exact at QUORUM`,
  async (m: Measured) => {
    await requireThreeNodes();
    const setup = clusterClient();
    const table = await freshTable(setup, "kill_load", KEYSPACE, 3);
    await awaitSchemaAgreement(setup);
    await setup.shutdown();
    const dir = await tempDir("kill");
    const csv = `${dir}/rows.csv`;
    await writeRowsCsv(csv, ROWS);
    let restart: Promise<void> | null = null;
    try {
      const run = await runCli(
        [
          "load",
          csv,
          "--table",
          table,
          "--hosts",
          HOSTS.join(","),
          "--dc",
          "datacenter1",
          "--consistency",
          "quorum",
          "--bad-dir",
          `${dir}/bad`,
          "--json",
          "--quiet",
        ],
        {
          timeoutMs: 600_000,
          onSpawn: () => {
            restart = (async () => {
              await sleep(KILL_AFTER_S * 1000);
              const { restarted } = await killAndRestart(3, m);
              await restarted;
            })();
          },
        },
      );
      m.rowsSent = ROWS;
      m.peakRssMb = run.peakRssMb;
      m.notes.push(describeRun(run).split("\n").slice(0, 2).join("; "));
      await restart;
      assertEquals(run.code, 0, `the load: ${describeRun(run)}`);
      await verifyAtQuorum(table, m);
    } finally {
      await (restart as Promise<void> | null)?.catch(() => {});
      await cassandra("start-node", "3");
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
);

scenario(
  "cluster",
  "node killed with SIGKILL in mid-load, then restarted (driver)",
  `3 nodes, RF=3, ${ROWS} idempotent inserts at QUORUM, 128 at a time; node 2 SIGKILLed ${KILL_AFTER_S} s in and restarted: every execute() resolves, count and content hash exact at QUORUM`,
  async (m: Measured) => {
    await requireThreeNodes();
    const setup = clusterClient();
    const table = await freshTable(setup, "kill_driver", KEYSPACE, 3);
    await awaitSchemaAgreement(setup);
    await setup.shutdown();
    const c = clusterClient({ requestTimeout: 10_000 });
    const rss = new RssSampler(250).start();
    let restart: Promise<void> | null = null;
    try {
      await c.connect();
      const insert = `INSERT INTO ${table} (id, v) VALUES (?, ?)`;
      const errors = new ErrorTally();
      const t0 = performance.now();
      const errorTimes: number[] = [];
      let killedAt = -1;
      let next = 0;
      const killer = (async () => {
        await sleep(KILL_AFTER_S * 1000);
        killedAt = (performance.now() - t0) / 1000;
        restart = (await killAndRestart(2, m)).restarted;
      })();
      await Promise.all(Array.from({ length: 128 }, async () => {
        while (next < ROWS) {
          const id = next++;
          try {
            await c.execute(insert, [id, valueOf(id)], { prepare: true, idempotent: true, consistency: CONSISTENCY.quorum });
          } catch (e) {
            errors.add(e);
            errorTimes.push((performance.now() - t0) / 1000);
          }
        }
      }));
      await killer;
      if (errorTimes.length) {
        m.notes.push(
          `node killed at ${killedAt.toFixed(1)} s; errors from ${errorTimes[0].toFixed(1)} s to ${
            errorTimes.at(-1)!.toFixed(1)
          } s; load ended at ${((performance.now() - t0) / 1000).toFixed(1)} s`,
        );
      }
      rss.stop();
      m.rowsSent = ROWS;
      m.peakRssMb = rss.peakMb;
      m.duplicates = resentByDriver(c);
      if (errors.total > 0) m.notes.push(`${errors.total} execute() calls failed: ${errors.summary(3)}`);
      assert(restart !== null, `the load (${ROWS} rows) ended before the node was killed; raise CQLWIRE_FAULTS_CLUSTER_ROWS`);
      await restart;
      assertEquals(errors.total, 0, `failed writes: ${errors.summary(3)}`);
      await verifyAtQuorum(table, m);
    } finally {
      await c.shutdown();
      await (restart as Promise<void> | null)?.catch(() => {});
      await cassandra("start-node", "2");
    }
  },
);
