/**
 * 100k requests in flight on 2 connections: stream ids run out, the rest wait in the
 * connections' queues (backpressure), and every request still completes, with no error and
 * bounded memory.
 */
import {
  assert,
  assertEquals,
  assertExactContent,
  directClient,
  ErrorTally,
  freshTable,
  resentByDriver,
  RssSampler,
  scenario,
  valueOf,
} from "../helpers.ts";

const REQUESTS = Number(Deno.env.get("CQLWIRE_FAULTS_INFLIGHT") ?? 100_000);
/** Stream ids per connection: small enough that most requests must queue. */
const STREAMS_PER_CONNECTION = 2048;
/** RSS may grow by this much above the idle client for 100k pending requests (~5 KiB each). */
const RSS_BUDGET_MB = 512;
/** Far beyond the few seconds the drain takes at the node's pace. */
const SETTLE_DEADLINE_MS = 60_000;

scenario(
  "single",
  "100k requests in flight on 2 connections",
  `${REQUESTS} inserts issued at once on 2 connections of ${STREAMS_PER_CONNECTION} stream ids: all queued by backpressure and completed, no error, RSS growth < ${RSS_BUDGET_MB} MiB, no stream id left in flight, queued or orphaned`,
  async (m) => {
    const setup = directClient();
    const table = await freshTable(setup, "inflight");
    await setup.shutdown();

    // The deadline runs from submission, queued time included, so it must cover the whole drain.
    const c = directClient({
      pooling: { coreConnectionsPerHost: 2, maxRequestsPerConnection: STREAMS_PER_CONNECTION, heartBeatInterval: 30_000 },
      requestTimeout: 300_000,
    });
    try {
      await c.connect();
      const insert = `INSERT INTO ${table} (id, v) VALUES (?, ?)`;
      await c.execute(insert, [0, valueOf(0)], { prepare: true, idempotent: true });
      const rss = new RssSampler(100).start();
      const baseline = rss.samples[0].rssMb;
      let maxQueued = 0;
      let maxInFlightPerConnection = 0;
      let connectionsSeen = 0;
      const watch = setInterval(() => {
        const conns = c.getState().connections as Array<{ inFlight: number; queued: number }>;
        connectionsSeen = Math.max(connectionsSeen, conns.length);
        maxQueued = Math.max(maxQueued, conns.reduce((n, x) => n + x.queued, 0));
        for (const x of conns) maxInFlightPerConnection = Math.max(maxInFlightPerConnection, x.inFlight);
      }, 50);
      const errors = new ErrorTally();
      const started = performance.now();
      const all: Promise<unknown>[] = [];
      let settled = 0;
      for (let id = 0; id < REQUESTS; id++) {
        all.push(
          c.execute(insert, [id, valueOf(id)], { prepare: true, idempotent: true })
            .catch((e) => errors.add(e))
            .finally(() => settled++),
        );
      }
      m.rowsSent = REQUESTS;
      // Every request must settle, one way or the other; a lost one would hang the test.
      let deadline: ReturnType<typeof setTimeout> | undefined;
      const lost = await Promise.race([
        Promise.all(all).then(() => 0),
        new Promise<number>((resolve) => deadline = setTimeout(() => resolve(REQUESTS - settled), SETTLE_DEADLINE_MS)),
      ]);
      clearTimeout(deadline);
      const seconds = (performance.now() - started) / 1000;
      clearInterval(watch);
      rss.stop();
      if (lost > 0) {
        const state = c.getState().connections as Array<{ inFlight: number; queued: number }>;
        m.notes.push(`${lost} requests never settled; connections then: ${JSON.stringify(state)}`);
      }
      assertEquals(lost, 0, `requests that never settled within ${SETTLE_DEADLINE_MS / 1000} s`);
      m.peakRssMb = rss.peakMb;
      m.notes.push(
        `${
          (REQUESTS / seconds).toFixed(0)
        } req/s; peak queued ${maxQueued}; peak in flight per connection ${maxInFlightPerConnection}; RSS ${baseline.toFixed(0)} → peak ${
          rss.peakMb.toFixed(0)
        } MiB`,
      );
      if (errors.total > 0) m.notes.push(`errors: ${errors.summary()}`);
      assertEquals(errors.total, 0, `requests failed: ${errors.summary()}`);
      assertEquals(connectionsSeen, 2, "two connections");
      assert(maxQueued > 0, "requests beyond the stream ids waited in a queue");
      assert(maxInFlightPerConnection <= STREAMS_PER_CONNECTION, `in flight per connection ${maxInFlightPerConnection}`);
      assert(rss.peakMb - baseline < RSS_BUDGET_MB, `RSS grew ${(rss.peakMb - baseline).toFixed(0)} MiB`);
      const after = c.getState().connections as Array<{ inFlight: number; queued: number; orphans: number }>;
      assertEquals(after.map((x) => [x.inFlight, x.queued, x.orphans]), [[0, 0, 0], [0, 0, 0]], "nothing left behind");
      await assertExactContent(c, table, REQUESTS, m);
      m.duplicates = resentByDriver(c);
    } finally {
      await c.shutdown();
    }
  },
);
