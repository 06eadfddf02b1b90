import { Client } from "../../driver/deno.ts";
import { FaultProxy } from "../proxy/proxy.ts";
const proxy = await FaultProxy.start({ target: { host: "127.0.0.1", port: 9042 } });
const c = new Client({ contactPoints: [proxy.address], localDataCenter: "datacenter1", discoverPeers: false, protocolVersion: 4 });
c.on("hostDown", (...a) => console.log("hostDown", ...a));
c.on("hostUp", (...a) => console.log("hostUp", ...a));
await c.execute("CREATE KEYSPACE IF NOT EXISTS cqlwire_faults WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
await c.execute("CREATE TABLE IF NOT EXISTS cqlwire_faults.exp (id int PRIMARY KEY, v text)");
await c.execute("TRUNCATE cqlwire_faults.exp");
let ok = 0, failed = 0; const errs = new Map<string, number>();
let next = 0;
const N = 5000;
setTimeout(() => { const [conn] = proxy.openConnections(); console.log("reset", conn.id, proxy.closeConnection(conn.id, "reset")); }, 300);
const t0 = performance.now();
await Promise.all(Array.from({ length: 64 }, async () => {
  while (next < N) {
    const id = next++;
    try { await c.execute("INSERT INTO cqlwire_faults.exp (id, v) VALUES (?, ?)", [id, "x" + id], { prepare: true, idempotent: true }); ok++; }
    catch (e) { failed++; const m = `${(e as Error).name}: ${(e as Error).message}`.slice(0, 200); errs.set(m, (errs.get(m) ?? 0) + 1); }
  }
}));
console.log({ ok, failed, ms: performance.now() - t0 }, errs);
console.log((await c.execute("SELECT COUNT(*) FROM cqlwire_faults.exp")).rows, JSON.stringify(c.getMetrics().core));
await c.shutdown(); await proxy.close();
