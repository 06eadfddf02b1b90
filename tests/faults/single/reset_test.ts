/**
 * Connection resets in mid-load: the proxy resets (RST) every client connection three times
 * while rows flow. The load must complete with every row written exactly as in the input.
 */
import {
  assert,
  assertEquals,
  assertExactContent,
  clientVia,
  cliHosts,
  describeRun,
  directClient,
  ErrorTally,
  freshTable,
  type Measured,
  resentByDriver,
  runCli,
  scenario,
  sleep,
  startProxy,
  tempDir,
  valueOf,
  writeRowsCsv,
} from "../helpers.ts";
import type { FaultProxy } from "../../proxy/proxy.ts";

const ROWS = 20_000;
/** Rows sent (as seen by the proxy) at which every open connection is cut. */
const CUT_POINTS = [4_000, 9_000, 14_000];

/** Cuts every open connection as the sent-row count passes each point; returns the watcher's end. */
function cutAtPoints(proxy: FaultProxy, how: Array<"reset" | "close">, done: () => boolean): Promise<number> {
  return (async () => {
    let cuts = 0;
    for (let i = 0; i < CUT_POINTS.length; i++) {
      while ((proxy.stats().keys?.sent ?? 0) < CUT_POINTS[i]) {
        if (done()) return cuts;
        await sleep(5);
      }
      for (const c of proxy.openConnections()) {
        if (proxy.closeConnection(c.id, how[i % how.length])) cuts++;
      }
    }
    return cuts;
  })();
}

scenario(
  "single",
  "connection reset in mid-load (CLI load)",
  `load of ${ROWS} rows through the proxy, every connection reset (RST) after ${CUT_POINTS.join(", ")} rows sent: exit 0, no bad row, count and content hash exact`,
  async (m: Measured) => {
    const setup = directClient();
    const table = await freshTable(setup, "reset_load");
    await setup.shutdown();
    const dir = await tempDir("reset");
    const csv = `${dir}/rows.csv`;
    await writeRowsCsv(csv, ROWS);
    const proxy = await startProxy();
    proxy.tapKeys({ statementContains: ["INSERT INTO", `"reset_load"`], valueIndex: 0 });
    try {
      let finished = false;
      const cutting = cutAtPoints(proxy, ["reset"], () => finished);
      const run = await runCli(
        ["load", csv, "--table", table, ...cliHosts(proxy.address), "--bad-dir", `${dir}/bad`, "--json", "--quiet"],
        { maxRssMb: 2048 },
      );
      finished = true;
      const cuts = await cutting;
      m.rowsSent = ROWS;
      m.peakRssMb = run.peakRssMb;
      m.duplicates = proxy.stats().keys?.duplicates ?? null;
      m.notes.push(`${cuts} connections reset; ${describeRun(run).split("\n")[0]}`);
      assert(cuts >= CUT_POINTS.length, `only ${cuts} resets happened before the load ended`);
      assertEquals(run.code, 0, `the load did not complete cleanly: ${describeRun(run)}`);
      const verify = directClient();
      try {
        await assertExactContent(verify, table, ROWS, m);
      } finally {
        await verify.shutdown();
      }
    } finally {
      await proxy.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
);

scenario(
  "single",
  "connection reset in mid-load (driver)",
  `${ROWS} idempotent prepared inserts, 128 at a time, through the proxy; every connection reset/closed after ${
    CUT_POINTS.join(", ")
  } rows sent: every execute() resolves, count and content hash exact`,
  async (m: Measured) => {
    const setup = directClient();
    const table = await freshTable(setup, "reset_driver");
    await setup.shutdown();
    const proxy = await startProxy();
    proxy.tapKeys({ statementContains: ["INSERT INTO", "reset_driver"], valueIndex: 0 });
    const c = clientVia(proxy, { requestTimeout: 10_000 });
    try {
      await c.connect();
      const insert = `INSERT INTO ${table} (id, v) VALUES (?, ?)`;
      const errors = new ErrorTally();
      let next = 0;
      let finished = false;
      const cutting = cutAtPoints(proxy, ["reset", "close"], () => finished);
      await Promise.all(Array.from({ length: 128 }, async () => {
        while (next < ROWS) {
          const id = next++;
          try {
            await c.execute(insert, [id, valueOf(id)], { prepare: true, idempotent: true });
          } catch (e) {
            errors.add(e);
          }
        }
      }));
      finished = true;
      const cuts = await cutting;
      m.rowsSent = ROWS;
      m.duplicates = proxy.stats().keys?.duplicates ?? resentByDriver(c);
      m.peakRssMb = Deno.memoryUsage().rss / 2 ** 20;
      m.notes.push(`${cuts} connections cut`);
      if (errors.total > 0) m.notes.push(`${errors.total} execute() calls failed: ${errors.summary(3)}`);
      assertEquals(errors.total, 0, `failed writes: ${errors.summary(3)}`);
      assert(cuts >= CUT_POINTS.length, `only ${cuts} cuts happened before the load ended`);
      const verify = directClient();
      try {
        await assertExactContent(verify, table, ROWS, m);
      } finally {
        await verify.shutdown();
      }
    } finally {
      await c.shutdown();
      await proxy.close();
    }
  },
);

