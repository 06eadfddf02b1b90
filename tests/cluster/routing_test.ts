/**
 * Token-aware routing and failover on the 3-node local cluster (127.0.0.1–3), proven with
 * the servers' own counters: each node's coordinator and local write counts per table
 * (system_views.coordinator_write_latency / local_write_latency, which are node-local).
 * Run by `make test-faults`, which starts the 3 nodes.
 */
import { Client } from "../../driver/deno.ts";
import * as compat from "../../driver/compat/deno.ts";

const NODES = ["127.0.0.1:9042", "127.0.0.2:9042", "127.0.0.3:9042"];
// One keyspace per replication factor: CREATE KEYSPACE IF NOT EXISTS would silently keep the
// other test's factor.
const KS_RF1 = "cqlwire_routing_rf1";
const KS_RF3 = "cqlwire_routing_rf3";

function assert(cond: unknown, message: string): asserts cond {
  if (!cond) throw new Error(message);
}

async function counts(keyspace: string, table: string): Promise<Array<{ node: string; coordinator: bigint; local: bigint }>> {
  const out = [];
  for (const node of NODES) {
    // One node only: virtual tables answer for the node that coordinates the query.
    const c = new Client({ contactPoints: [node], localDataCenter: "datacenter1", discoverPeers: false });
    try {
      const q = (t: string) => c.execute(`SELECT count FROM system_views.${t} WHERE keyspace_name = ? AND table_name = ?`, [keyspace, table]);
      const coordinator = (await q("coordinator_write_latency")).first()?.count as bigint ?? 0n;
      const local = (await q("local_write_latency")).first()?.count as bigint ?? 0n;
      out.push({ node, coordinator: BigInt(coordinator), local: BigInt(local) });
    } finally {
      await c.shutdown();
    }
  }
  return out;
}

async function countAtQuorum(c: Client, table: string) {
  for (let attempt = 1;; attempt++) {
    try {
      return await c.execute(`SELECT count(*) FROM ${table}`, [], { consistency: 4, readTimeout: 30_000, idempotent: true });
    } catch (e) {
      if (attempt >= 8 || !/ReadTimeout|Unavailable|no response within/.test(String(e))) throw e;
      console.error(`count attempt ${attempt}: ${e}`);
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
}

async function kill(node: number): Promise<void> {
  const r = await new Deno.Command("scripts/cassandra", { args: ["kill", String(node)] }).output();
  assert(r.success, `kill node ${node}: ${new TextDecoder().decode(r.stderr)}`);
}

async function restart(node: number): Promise<void> {
  const r = await new Deno.Command("scripts/cassandra", { args: ["start-node", String(node)] }).output();
  assert(r.success, `restart node ${node}: ${new TextDecoder().decode(r.stderr)}`);
}

Deno.test("RF=1: every write is coordinated by the replica that owns its token", async () => {
  const c = new Client({ contactPoints: [NODES[0]], localDataCenter: "datacenter1", protocolOptions: { maxSchemaAgreementWaitSeconds: 60 } });
  try {
    await c.connect();
    const state = c.getState();
    assert(state.nodes.length === 3, `3 nodes discovered, got ${JSON.stringify(state.nodes)}`);
    await c.execute(`CREATE KEYSPACE IF NOT EXISTS ${KS_RF1} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
    await c.execute(`ALTER KEYSPACE ${KS_RF1} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
    await c.execute(`DROP TABLE IF EXISTS ${KS_RF1}.rf1`);
    await c.execute(`CREATE TABLE ${KS_RF1}.rf1 (k bigint PRIMARY KEY, v text)`);
    const before = await counts(KS_RF1, "rf1");
    const n = 3000;
    const pending = [];
    for (let k = 0; k < n; k++) {
      pending.push(c.execute(`INSERT INTO ${KS_RF1}.rf1 (k, v) VALUES (?, ?)`, [BigInt(k), `v${k}`], { prepare: true }));
      if (pending.length >= 128) await Promise.all(pending.splice(0));
    }
    await Promise.all(pending);
    const after = await counts(KS_RF1, "rf1");
    let total = 0n;
    for (let i = 0; i < NODES.length; i++) {
      const coordinator = after[i].coordinator - before[i].coordinator;
      const local = after[i].local - before[i].local;
      console.log(`${NODES[i]}: coordinator writes ${coordinator}, local writes ${local}`);
      assert(coordinator === local, `${NODES[i]} coordinated ${coordinator} writes but applied ${local} locally: some went to a non-replica`);
      assert(local > 0n, `${NODES[i]} owns part of the ring and must get writes`);
      total += local;
    }
    assert(total === BigInt(n), `local writes add up to ${total}, expected ${n}`);
  } finally {
    await c.shutdown();
  }
});

Deno.test("compat: an unprepared statement with a routingKey (single or composite) goes to the key's replica", async () => {
  const setup = new Client({ contactPoints: [NODES[0]], localDataCenter: "datacenter1", protocolOptions: { maxSchemaAgreementWaitSeconds: 60 } });
  try {
    await setup.execute(`CREATE KEYSPACE IF NOT EXISTS ${KS_RF1} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
    await setup.execute(`ALTER KEYSPACE ${KS_RF1} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
    await setup.execute(`DROP TABLE IF EXISTS ${KS_RF1}.keyed`);
    await setup.execute(`CREATE TABLE ${KS_RF1}.keyed (a int, b text, v int, PRIMARY KEY ((a, b)))`);
  } finally {
    await setup.shutdown();
  }
  // The client's keyspace names the replicas a routing key's token has, as DataStax's
  // token-aware policy takes it (without a keyspace, DataStax does not route by the key either).
  const c = new compat.Client({ contactPoints: [NODES[0]], localDataCenter: "datacenter1", keyspace: KS_RF1 });
  try {
    await c.connect();
    // connect() resolves once the ring is known; the pools to the other nodes open just after
    // (DataStax's pooling.warmup waits for them). Until a node has one, its keys go elsewhere.
    const deadline = Date.now() + 20_000;
    while (c.getState().getConnectedHosts().length < 3) {
      assert(Date.now() < deadline, `pools to all 3 nodes within 20 s: ${c.getState().getConnectedHosts().map((h: { address: string }) => h.address)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const int = (n: number) => {
      const out = new Uint8Array(4);
      new DataView(out.buffer).setInt32(0, n);
      return out;
    };
    const hosts = new Set<string>();
    for (let a = 0; a < 60; a++) {
      const b = `b${a}`;
      const routingKey = [int(a), new TextEncoder().encode(b)];
      // Unprepared: without the routing key the core has no token and goes round the nodes.
      const rs = (await c.execute(`INSERT INTO ${KS_RF1}.keyed (a, b, v) VALUES (?, ?, ?)`, [a, b, a], { prepare: false, hints: ["int", "text", "int"], routingKey }))!;
      const replicas = c.getReplicas(KS_RF1, c.cqlwire.tokenOfRoutingKey(routingKey)).map((h: { address: string }) => h.address);
      assert(replicas.length === 1, `RF=1: one replica for (${a}, ${b}), got ${replicas}`);
      assert(rs.info.queriedHost === replicas[0], `(${a}, ${b}) was coordinated by ${rs.info.queriedHost}, its replica is ${replicas[0]}`);
      hosts.add(rs.info.queriedHost);
    }
    assert(hosts.size === 3, `60 keys reach all 3 nodes, got ${[...hosts]}`);
  } finally {
    await c.shutdown();
  }
});

let killed = false;

Deno.test("a node killed mid-run: requests route around it, none is lost, it is used again after restart", async () => {
  const events: string[] = [];
  // Retries with backoff ride out the seconds before the cluster itself notices the death.
  const c = new Client({
    contactPoints: [NODES[0]],
    localDataCenter: "datacenter1",
    // Three JVMs on two cores agree on a new schema slowly.
    protocolOptions: { maxSchemaAgreementWaitSeconds: 60 },
    socketOptions: { connectTimeout: 2000, readTimeout: 4000 },
    policies: { maxAttempts: 8 },
  });
  c.on("hostDown", (a) => events.push(`down ${a}`));
  c.on("hostUp", (a) => events.push(`up ${a}`));
  try {
    await c.connect();
    await c.execute(`CREATE KEYSPACE IF NOT EXISTS ${KS_RF3} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}`);
    await c.execute(`ALTER KEYSPACE ${KS_RF3} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}`);
    await c.execute(`DROP TABLE IF EXISTS ${KS_RF3}.rf3`);
    await c.execute(`CREATE TABLE ${KS_RF3}.rf3 (k bigint PRIMARY KEY, v text)`);
    const n = 6000;
    const insert = `INSERT INTO ${KS_RF3}.rf3 (k, v) VALUES (?, ?)`;
    let failures = 0;
    killed = true;
    const pending: Promise<unknown>[] = [];
    for (let k = 0; k < n; k++) {
      if (k === 2000) await kill(3);
      pending.push(
        c.execute(insert, [BigInt(k), `v${k}`], { prepare: true, idempotent: true, consistency: 4 /* QUORUM */ })
          .catch((e) => {
            // The first failures carry their attempts and routing trace, for diagnosis.
            if (failures++ < 3) console.error(`k=${k}: ${e.message} ${JSON.stringify({ attempts: e.attempts, trace: e.trace })}`);
          }),
      );
      if (pending.length >= 64) await Promise.all(pending.splice(0));
    }
    await Promise.all(pending);
    assert(failures === 0, `${failures} inserts failed while a node was down`);
    assert(events.some((e) => e === "down 127.0.0.3:9042"), `node 3 marked down: ${events}`);
    const down = c.getState().nodes.find((n) => n.address === "127.0.0.3:9042");
    assert(down && down.up === false, `node 3 is down in the view: ${JSON.stringify(down)}`);
    // A full scan at QUORUM beside a dead replica can take longer than the server's range timeout
    // (10 s) on two busy cores; the short read timeout above is for the inserts. Until the
    // servers' own failure detector convicts node 3, a coordinator may still pick it for the
    // scan and time out: that is read availability, not lost rows, so the count is asked again.
    const rs = await countAtQuorum(c, `${KS_RF3}.rf3`);
    assert(rs.first()?.count === BigInt(n), `count ${rs.first()?.count}, expected ${n}`);

    await restart(3);
    killed = false;
    const deadline = Date.now() + 60_000;
    while (!events.includes("up 127.0.0.3:9042") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    assert(events.includes("up 127.0.0.3:9042"), `node 3 marked up again: ${events}`);
    const before = c.getMetrics().core.per_node as Record<string, number>;
    for (let k = 0; k < 600; k++) await c.execute(insert, [BigInt(n + k), "again"], { prepare: true, idempotent: true });
    const after = c.getMetrics().core.per_node as Record<string, number>;
    const used = (after["127.0.0.3:9042"] ?? 0) - (before["127.0.0.3:9042"] ?? 0);
    assert(used > 0, `node 3 serves requests again after its restart (attempts ${used})`);
  } finally {
    await c.shutdown();
    // Whatever failed, the next suites need all three nodes.
    if (killed) await restart(3);
  }
});
