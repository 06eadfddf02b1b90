/**
 * Bytes cut at every point: the proxy writes one byte per segment both ways, and adds
 * latency, while the driver prepares, writes and reads back. Results must be exact.
 */
import { assertEquals, clientVia, directClient, freshTable, type Measured, scenario, startProxy, valueOf } from "../helpers.ts";

scenario(
  "single",
  "one-byte segments and latency",
  "every byte in its own TCP segment both ways (then 30 ms latency per chunk), protocol v4 and v5: prepared inserts and reads return exactly what was written",
  async (m: Measured) => {
    const setup = directClient();
    const table = await freshTable(setup, "segments");
    await setup.shutdown();
    for (const protocolVersion of [4, 5] as const) {
      for (const rules of [{ oneByteWrites: true }, { latencyMs: 30 }]) {
        const proxy = await startProxy();
        const c = clientVia(proxy, { protocolVersion, requestTimeout: 30_000 });
        try {
          await c.connect();
          const insert = `INSERT INTO ${table} (id, v) VALUES (?, ?)`;
          const select = `SELECT id, v FROM ${table} WHERE id IN (?, ?, ?)`;
          await c.execute(insert, [0, valueOf(0)], { prepare: true });
          await c.execute(select, [0, 0, 0], { prepare: true });
          proxy.setRules(rules);
          const base = protocolVersion * 10;
          await Promise.all([1, 2, 3].map((k) => c.execute(insert, [base + k, valueOf(base + k)], { prepare: true })));
          const rs = await c.execute(select, [base + 1, base + 2, base + 3], { prepare: true });
          const got = rs.rows.map((r) => [r.id, r.v]).sort((a, b) => (a[0] as number) - (b[0] as number));
          assertEquals(got, [1, 2, 3].map((k) => [base + k, valueOf(base + k)]), `v${protocolVersion} ${JSON.stringify(rules)}`);
          const stats = proxy.stats();
          m.notes.push(`v${protocolVersion} ${Object.keys(rules)[0]}: ${stats.oneByteWrites} single-byte writes`);
        } finally {
          await c.shutdown();
          await proxy.close();
        }
      }
    }
  },
);
