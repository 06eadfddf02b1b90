// cqlwire on Deno: connect, write with a prepared statement, read back page by page.
//   deno run --allow-net --allow-read examples/deno/main.ts [host:port]   (after `make build`)
// In the repository "cqlwire" resolves to the bundle in dist/ through package.json; in your
// own project use the npm package ("npm:cqlwire") the same way.
import { Client, ResponseError } from "cqlwire";

const host = Deno.args[0] ?? "127.0.0.1:9042";
const client = new Client({ contactPoints: [host], localDataCenter: "datacenter1" });
try {
  const release = (await client.execute("SELECT release_version FROM system.local")).first()?.release_version;
  console.log(`connected to Cassandra ${release} at ${host}`);

  await client.execute("CREATE KEYSPACE IF NOT EXISTS cqlwire_examples WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
  await client.execute("CREATE TABLE IF NOT EXISTS cqlwire_examples.visits (site text, at timestamp, visitor uuid, PRIMARY KEY (site, at))");
  const insert = "INSERT INTO cqlwire_examples.visits (site, at, visitor) VALUES (?, ?, ?)";
  for (let i = 0; i < 5; i++) {
    await client.execute(insert, ["deno", new Date(Date.UTC(2025, 0, 1, 0, i)), crypto.randomUUID()], { prepare: true });
  }

  // Explicit paging: hand each page's pageState back for the next one.
  let pageState: string | undefined;
  let pages = 0;
  do {
    const rs = await client.execute("SELECT at, visitor FROM cqlwire_examples.visits WHERE site = ?", ["deno"], { prepare: true, pageSize: 2, pageState });
    pages++;
    for (const row of rs.rows) console.log(`  page ${pages}: ${(row.at as Date).toISOString()}  ${row.visitor}`);
    pageState = rs.pageState ?? undefined;
  } while (pageState);

  try {
    await client.execute("SELECT nope FROM cqlwire_examples.visits");
  } catch (e) {
    if (!(e instanceof ResponseError)) throw e;
    console.log(`server error, as expected: ${e.codeName}`);
  }
} finally {
  await client.shutdown();
}
