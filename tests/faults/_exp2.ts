import { Client } from "../../driver/deno.ts";
import { FaultProxy } from "../proxy/proxy.ts";
const proxy = await FaultProxy.start({ target: { host: "127.0.0.1", port: 9042 } });
const c = new Client({ contactPoints: [proxy.address], localDataCenter: "datacenter1", discoverPeers: false, protocolVersion: 4 });
c.on("hostDown", (...a) => console.log(performance.now().toFixed(0), "hostDown", ...a));
c.on("hostUp", (...a) => console.log(performance.now().toFixed(0), "hostUp", ...a));
await c.connect();
const [conn] = proxy.openConnections();
console.log(performance.now().toFixed(0), "reset", proxy.closeConnection(conn.id, "reset"));
for (let i = 0; i < 40; i++) {
  try { await c.execute("SELECT release_version FROM system.local"); console.log(performance.now().toFixed(0), "ok"); break; }
  catch (e) { await new Promise((r) => setTimeout(r, 50)); }
}
console.log(JSON.stringify(c.getState()), proxy.stats().connectionsAccepted);
await c.shutdown(); await proxy.close();
