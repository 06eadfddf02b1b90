/**
 * A slow consumer of `stream()`: the driver may fetch the next page while the consumer works
 * through the current one, but never more than that. The proxy counts the page requests.
 */
import {
  assert,
  assertEquals,
  clientVia,
  directClient,
  ensureKeyspace,
  KEYSPACE,
  type Measured,
  RssSampler,
  scenario,
  sleep,
  startProxy,
} from "../helpers.ts";

const ROWS = 3_000;
const PAGE = 100;
const PAYLOAD = "p".repeat(512);

scenario(
  "single",
  "slow consumer of stream(): no unbounded buffering",
  `stream() over ${ROWS} rows in pages of ${PAGE}, the consumer pausing 30 ms every 25 rows and 1 s once: at any time at most one page is fetched ahead of the one being consumed; every row seen once, in order`,
  async (m: Measured) => {
    const table = `${KEYSPACE}.slow_stream`;
    const setup = directClient();
    try {
      await ensureKeyspace(setup);
      await setup.execute(`DROP TABLE IF EXISTS ${table}`);
      await setup.execute(`CREATE TABLE ${table} (p int, n int, v text, PRIMARY KEY (p, n))`);
      const insert = `INSERT INTO ${table} (p, n, v) VALUES (?, ?, ?)`;
      let next = 0;
      await Promise.all(Array.from({ length: 64 }, async () => {
        while (next < ROWS) {
          const n = next++;
          await setup.execute(insert, [1, n, PAYLOAD], { prepare: true });
        }
      }));
    } finally {
      await setup.shutdown();
    }
    const proxy = await startProxy();
    const c = clientVia(proxy);
    const rss = new RssSampler(50).start();
    try {
      const select = `SELECT n, v FROM ${table} WHERE p = ?`;
      await c.execute(select, [1], { prepare: true, pageSize: PAGE });
      const pagesRequested = () => proxy.stats().requests.EXECUTE ?? 0;
      const before = pagesRequested();
      let consumed = 0;
      let maxAhead = 0;
      let outOfOrder = 0;
      const aheadDuringLongPause: number[] = [];
      for await (const row of c.stream(select, [1], { prepare: true, pageSize: PAGE })) {
        if (row.n !== consumed) outOfOrder++;
        consumed++;
        // The page this row came from is page ceil(consumed / PAGE); anything beyond the next is buffering.
        const ahead = pagesRequested() - before - Math.ceil(consumed / PAGE);
        maxAhead = Math.max(maxAhead, ahead);
        if (consumed % 25 === 0) await sleep(30);
        if (consumed === ROWS / 2) {
          // A long stall of the consumer: no page may be fetched meanwhile beyond the one ahead.
          for (let i = 0; i < 10; i++) {
            await sleep(100);
            aheadDuringLongPause.push(pagesRequested() - before - Math.ceil(consumed / PAGE));
          }
        }
      }
      rss.stop();
      m.rowsSent = ROWS;
      m.rowsCounted = consumed;
      m.rowsLost = ROWS - consumed;
      m.peakRssMb = rss.peakMb;
      m.notes.push(`${pagesRequested() - before} page requests for ${Math.ceil(ROWS / PAGE)} pages; at most ${maxAhead} page(s) ahead`);
      assertEquals([consumed, outOfOrder], [ROWS, 0], "every row once, in order");
      assert(maxAhead <= 1, `${maxAhead} pages were fetched ahead of the consumer`);
      assert(Math.max(...aheadDuringLongPause) <= 1, `pages kept coming while the consumer paused: ${aheadDuringLongPause.join(",")}`);
    } finally {
      await c.shutdown();
      await proxy.close();
    }
  },
);
