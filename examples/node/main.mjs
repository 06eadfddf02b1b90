// cqlwire on Node.js: connect, write with a prepared statement, read back page by page.
//   node examples/node/main.mjs [host:port]      (after `make build`; in your project: npm install cqlwire)
import { Client, ResponseError } from "cqlwire";

const host = process.argv[2] ?? "127.0.0.1:9042";
const client = new Client({ contactPoints: [host], localDataCenter: "datacenter1" });
try {
  const { release_version } = (await client.execute("SELECT release_version FROM system.local")).first();
  console.log(`connected to Cassandra ${release_version} at ${host}`);

  await client.execute("CREATE KEYSPACE IF NOT EXISTS cqlwire_examples WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
  await client.execute("CREATE TABLE IF NOT EXISTS cqlwire_examples.visits (site text, at timestamp, visitor uuid, PRIMARY KEY (site, at))");
  const insert = "INSERT INTO cqlwire_examples.visits (site, at, visitor) VALUES (?, ?, ?)";
  for (let i = 0; i < 5; i++) {
    await client.execute(insert, ["node", new Date(Date.UTC(2025, 0, 1, 0, i)), crypto.randomUUID()], { prepare: true });
  }

  // stream() fetches the next page while this loop works through the current one.
  let count = 0;
  for await (const row of client.stream("SELECT at, visitor FROM cqlwire_examples.visits WHERE site = ?", ["node"], { prepare: true, pageSize: 2 })) {
    if (count++ < 3) console.log(`  ${row.at.toISOString()}  ${row.visitor}`);
  }
  console.log(`read ${count} visits in pages of 2`);

  await client.execute("SELECT nope FROM cqlwire_examples.visits").catch((e) => {
    if (!(e instanceof ResponseError)) throw e;
    console.log(`server error, as expected: ${e.codeName}`);
  });
} finally {
  await client.shutdown();
}
