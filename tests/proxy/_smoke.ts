import { Client } from "../../driver/deno.ts";
import { FaultProxy } from "./proxy.ts";
const proxy = await FaultProxy.start({ target: { host: "127.0.0.1", port: 9042 } });
for (const v of [4, 5] as const) {
  const c = new Client({ contactPoints: [proxy.address], localDataCenter: "datacenter1", discoverPeers: false, protocolVersion: v });
  await c.connect();
  const rs = await c.execute("SELECT release_version FROM system.local", [], { prepare: true });
  console.log(v, rs.rows, JSON.stringify(c.getState()));
  await c.shutdown();
}
console.log(proxy.stats(), proxy.connections());
await proxy.close();
