import { Client } from "/work/main/driver/deno.ts";
const ca = Deno.readTextFileSync("/work/main/.cache/cassandra/secure-tls/tls/ca.pem");
async function tryit(label: string, tls: Record<string, unknown>) {
  const c = new Client({ contactPoints: ["127.0.0.11:9042"], localDataCenter: "datacenter1", tls, socketOptions: { connectTimeout: 3000 } });
  const t0 = Date.now();
  try { const rs = await c.execute("SELECT release_version FROM system.local"); console.log(label, "OK", rs.first(), Date.now()-t0); }
  catch (e) { console.log(label, "ERR", Date.now()-t0, (e as Error).name, (e as Error).message); }
  finally { await c.shutdown(); }
}
await tryit("noca", {});
await tryit("ca", { ca });
await tryit("ca-wrongname", { ca, serverName: "wrong.example" });
await tryit("ca-rightname", { ca, serverName: "localhost" });
await tryit("ca-wrongname-noverify", { ca, serverName: "wrong.example", rejectUnauthorized: false });
await tryit("noca-noverify", { rejectUnauthorized: false });
