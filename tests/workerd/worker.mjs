/**
 * The driver inside workerd, from the built bundle. On each request it connects to the
 * Cassandra named by `?hosts=` (default 127.0.0.1:9042), writes rows with a prepared
 * statement, reads them back in small pages, runs the shared conformance suite, and answers
 * with a JSON report; on `/scylla`, prepared inserts against the null server's Scylla
 * personality. Everything happens inside the request: workerd ties sockets and timers to
 * the request that made them.
 */
import * as cqlwire from "../../dist/workerd.js";
import { conformanceCases } from "../conformance/cases.mjs";
import { neutralAssert, runCases } from "../conformance/neutral.mjs";
import { insertAll } from "../scylla/inserts.mjs";

const KEYSPACE = "cqlwire_workerd_it";
const ROWS = 57;
const PAGE_SIZE = 10;

async function pagedRoundTrip(contactPoints, keyspace) {
  const client = new cqlwire.Client({ contactPoints, localDataCenter: "datacenter1" });
  try {
    await client.connect();
    const release = (await client.execute("SELECT release_version FROM system.local")).first()?.release_version ?? null;
    await client.execute(`CREATE keyspace IF NOT EXISTS ${keyspace} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
    await client.execute(`CREATE TABLE IF NOT EXISTS ${keyspace}.items (bucket int, n int, label text, PRIMARY KEY (bucket, n))`);
    await client.execute(`TRUNCATE ${keyspace}.items`);
    const insert = `INSERT INTO ${keyspace}.items (bucket, n, label) VALUES (?, ?, ?)`;
    await Promise.all(Array.from({ length: ROWS }, (_, n) => client.execute(insert, [7, n, `item ${n}`], { prepare: true })));
    const pageSizes = [];
    const labels = [];
    let pageState;
    do {
      const rs = await client.execute(`SELECT n, label FROM ${keyspace}.items WHERE bucket = ?`, [7], { prepare: true, pageSize: PAGE_SIZE, pageState });
      pageSizes.push(rs.rows.length);
      for (const row of rs.rows) labels.push(row.label);
      pageState = rs.pageState ?? undefined;
    } while (pageState);
    return { release, inserted: ROWS, pageSize: PAGE_SIZE, pageSizes, labelsInOrder: labels.every((l, i) => l === `item ${i}`), rowsRead: labels.length };
  } finally {
    await client.shutdown();
  }
}

/**
 * `/scylla?address=host:port&count=N`: prepared inserts against the null server's Scylla
 * personality that the runner started; the runner reads the server's counters afterwards.
 */
async function scyllaInserts(url) {
  const address = url.searchParams.get("address") ?? "";
  const count = Number(url.searchParams.get("count") ?? 2000);
  try {
    return { logs: await insertAll(cqlwire.Client, address, { count, concurrency: 16 }) };
  } catch (e) {
    return { error: `${e?.name}: ${e?.message}` };
  }
}

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/scylla") {
      return new Response(JSON.stringify(await scyllaInserts(url)), { headers: { "content-type": "application/json" } });
    }
    const contactPoints = (url.searchParams.get("hosts") ?? "127.0.0.1:9042").split(",");
    const keyspace = url.searchParams.get("keyspace") ?? KEYSPACE;
    const report = { runtime: "workerd", contactPoints };
    try {
      report.roundTrip = await pagedRoundTrip(contactPoints, keyspace);
    } catch (e) {
      report.roundTrip = { error: `${e?.name}: ${e?.message}` };
    }
    const { Client, types } = cqlwire;
    report.conformance = await runCases(conformanceCases({ Client, types, errors: cqlwire }, neutralAssert, { contactPoints, keyspace }));
    report.ok = !report.roundTrip.error && report.conformance.every((c) => c.ok);
    return new Response(JSON.stringify(report, null, 2), { headers: { "content-type": "application/json" } });
  },
};
