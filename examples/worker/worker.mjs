// cqlwire in a Cloudflare Worker (workerd): each request opens a client, reads, and closes it,
// because workerd ties sockets to the request that opened them.
//   workerd serve examples/worker/config.capnp      then: curl http://127.0.0.1:8788/?hosts=127.0.0.1:9042
// With wrangler, `import { Client } from "cqlwire"` picks the same bundle (the "workerd" export).
import { Client } from "cqlwire";

export default {
  async fetch(request) {
    const host = new URL(request.url).searchParams.get("hosts") ?? "127.0.0.1:9042";
    const client = new Client({ contactPoints: host.split(","), localDataCenter: "datacenter1" });
    try {
      const local = (await client.execute("SELECT release_version, cluster_name FROM system.local")).first();
      const keyspaces = [];
      for await (const row of client.stream("SELECT keyspace_name FROM system_schema.keyspaces", [], { pageSize: 3 })) {
        keyspaces.push(row.keyspace_name);
      }
      return Response.json({ release: local.release_version, cluster: local.cluster_name, keyspaces });
    } catch (e) {
      return Response.json({ error: `${e.name}: ${e.message}` }, { status: 502 });
    } finally {
      await client.shutdown();
    }
  },
};
