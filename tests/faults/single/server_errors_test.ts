/**
 * Server errors and timeouts, injected by the proxy in place of real responses (protocol
 * v4, where the proxy can rewrite frames): idempotent statements are retried with backoff,
 * others are not; client timeouts orphan their stream id until the late answer frees it;
 * under Overloaded the loader's concurrency backs off and nothing turns into a retry storm.
 */
import {
  assert,
  assertEquals,
  assertExactContent,
  type Client,
  clientVia,
  cliHosts,
  describeRun,
  directClient,
  ErrorTally,
  eventually,
  type FaultProxy,
  freshTable,
  type Measured,
  proxiedLoadSetup,
  runCli,
  scenario,
  sleep,
  startProxy,
  valueOf,
} from "../helpers.ts";
import type { ServerErrorSpec } from "../../proxy/proxy.ts";
import { OperationTimedOutError, ResponseError } from "../../../driver/deno.ts";

/** A retry this soon after the error is no backoff. */
const MIN_BACKOFF_MS = 5;
const MAX_ATTEMPTS = 3;

async function withProxiedClient(
  table: string,
  body: (proxy: FaultProxy, c: Client, fullName: string) => Promise<void>,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const setup = directClient();
  const fullName = await freshTable(setup, table);
  await setup.shutdown();
  const proxy = await startProxy();
  const c = clientVia(proxy, { protocolVersion: 4, requestTimeout: 5_000, policies: { maxAttempts: MAX_ATTEMPTS }, ...extra });
  try {
    await c.connect();
    await body(proxy, c, fullName);
  } finally {
    await c.shutdown();
    await proxy.close();
  }
}

function executes(proxy: FaultProxy): number {
  return proxy.stats().requests.EXECUTE ?? 0;
}

/** Write requests of a load: rows go out alone (EXECUTE) or grouped (BATCH, the default). */
function loadWrites(proxy: FaultProxy): number {
  const requests = proxy.stats().requests;
  return (requests.EXECUTE ?? 0) + (requests.BATCH ?? 0);
}

/** Milliseconds between the last injected error and the next EXECUTE the proxy saw. */
function retryDelayMs(proxy: FaultProxy): number | null {
  const injected = proxy.replacedLog.at(-1);
  if (!injected) return null;
  const next = proxy.requestLog.find((r) => r.opcode === "EXECUTE" && r.at > injected.at);
  return next ? next.at - injected.at : null;
}

interface ErrorCase {
  error: ServerErrorSpec;
  statement: "insert" | "select";
  /** Fields the driver's ResponseError must carry when the error reaches the caller. */
  fields: Record<string, unknown>;
  /**
   * What a statement not marked idempotent gets: one attempt, or the same retry as an
   * idempotent one when the error says nothing was applied (Unavailable: the coordinator
   * refused before any replica saw it) or the statement only reads (the read-timeout rule).
   */
  nonIdempotent: "one attempt" | "retried";
}

const CASES: ErrorCase[] = [
  { error: { name: "Overloaded" }, statement: "insert", fields: { code: 0x1001, codeName: "Overloaded" }, nonIdempotent: "one attempt" },
  { error: { name: "IsBootstrapping" }, statement: "insert", fields: { code: 0x1002 }, nonIdempotent: "one attempt" },
  {
    error: { name: "Unavailable", consistency: 4, required: 2, alive: 1 },
    statement: "insert",
    fields: { code: 0x1000, consistency: "QUORUM", required: 2, alive: 1 },
    nonIdempotent: "retried",
  },
  {
    error: { name: "WriteTimeout", consistency: 1, received: 0, blockFor: 1, writeType: "SIMPLE" },
    statement: "insert",
    fields: { code: 0x1100, consistency: "ONE", received: 0, block_for: 1, write_type: "SIMPLE" },
    nonIdempotent: "one attempt",
  },
  {
    error: { name: "ReadTimeout", consistency: 1, received: 1, blockFor: 1, dataPresent: false },
    statement: "select",
    fields: { code: 0x1200 },
    nonIdempotent: "retried",
  },
];

scenario(
  "single",
  "server errors: retried with backoff only when idempotent",
  `Overloaded, IsBootstrapping, Unavailable, WriteTimeout (SIMPLE), ReadTimeout (enough replicas, no data) in place of one response: an idempotent statement succeeds on a retry sent >= ${MIN_BACKOFF_MS} ms later (median); a non-idempotent one fails after 1 attempt with the error's fields, but for Unavailable and ReadTimeout (nothing applied, or a read), which it retries as well`,
  async (m: Measured) => {
    await withProxiedClient("srv_errors", async (proxy, c, table) => {
      const insert = `INSERT INTO ${table} (id, v) VALUES (?, ?)`;
      const select = `SELECT v FROM ${table} WHERE id = ?`;
      await c.execute(insert, [0, valueOf(0)], { prepare: true });
      await c.execute(select, [0], { prepare: true });
      const failures: string[] = [];
      const delays: number[] = [];
      let id = 1;
      for (const kase of CASES) {
        const run = (idempotent: boolean) =>
          kase.statement === "insert"
            ? c.execute(insert, [id, valueOf(id++)], { prepare: true, idempotent })
            : c.execute(select, [0], { prepare: true, idempotent });
        const name = kase.error.name;
        // One injected error, then the retry must succeed.
        const retriedToSuccess = async (idempotent: boolean) => {
          const label = `${name} ${idempotent ? "idempotent" : "non-idempotent"}`;
          proxy.setRules({ replace: { error: kase.error, requestOpcodes: ["EXECUTE"] } });
          const before = executes(proxy);
          try {
            await run(idempotent);
            const attempts = executes(proxy) - before;
            if (attempts !== 2) failures.push(`${label}: ${attempts} attempts, expected 2`);
            const delay = retryDelayMs(proxy);
            if (delay !== null) delays.push(delay);
          } catch (e) {
            failures.push(`${label}: not retried to success: ${(e as Error).name}: ${(e as Error).message.slice(0, 160)}`);
          }
        };
        await retriedToSuccess(true);
        if (kase.nonIdempotent === "retried") {
          await retriedToSuccess(false);
          continue;
        }
        // Not idempotent: the error reaches the caller after exactly one attempt, fields intact.
        proxy.setRules({ replace: { error: kase.error, requestOpcodes: ["EXECUTE"] } });
        const before = executes(proxy);
        try {
          await run(false);
          failures.push(`${name} non-idempotent: succeeded, so it was retried`);
        } catch (e) {
          const attempts = executes(proxy) - before;
          if (attempts !== 1) failures.push(`${name} non-idempotent: ${attempts} attempts, expected 1`);
          if (!(e instanceof ResponseError)) {
            failures.push(`${name} non-idempotent: ${(e as Error).name} instead of ResponseError: ${(e as Error).message.slice(0, 160)}`);
          } else {
            const got = Object.fromEntries(Object.keys(kase.fields).map((k) => [k, (e as unknown as Record<string, unknown>)[k]]));
            if (JSON.stringify(got) !== JSON.stringify(kase.fields)) {
              failures.push(`${name} non-idempotent: fields ${JSON.stringify(got)}, expected ${JSON.stringify(kase.fields)}`);
            }
          }
        }
      }
      proxy.clearRules();
      delays.sort((a, b) => a - b);
      const median = delays.length ? delays[Math.floor(delays.length / 2)] : null;
      m.notes.push(`retry delays after the error (ms): ${delays.map((d) => d.toFixed(1)).join(", ") || "none"}`);
      if (median !== null && median < MIN_BACKOFF_MS) failures.push(`median retry delay ${median.toFixed(2)} ms: no backoff`);
      if (failures.length) m.notes.push(...failures);
      assertEquals(failures, [], "server error handling");
    });
  },
);

scenario(
  "single",
  "timeouts: orphaned stream ids freed, idempotent retried",
  "responses held back by the proxy: a non-idempotent request times out after 1 attempt, its stream id is orphaned until the late response frees it; an idempotent one is retried and succeeds once responses flow again",
  async (m: Measured) => {
    await withProxiedClient("srv_timeouts", async (proxy, c, table) => {
      const insert = `INSERT INTO ${table} (id, v) VALUES (?, ?)`;
      await c.execute(insert, [0, valueOf(0)], { prepare: true });
      const orphans = () => (c.getState().connections as Array<{ orphans: number }>).reduce((n, x) => n + x.orphans, 0);

      proxy.setRules({ stall: "toClient" });
      let before = executes(proxy);
      let timedOut: unknown = null;
      try {
        await c.execute(insert, [1, valueOf(1)], { prepare: true, idempotent: false, timeout: 200 });
      } catch (e) {
        timedOut = e;
      }
      // How long it took is not asserted (a shared machine): tests/wire/timeouts_test.ts checks
      // the same behaviour on fake nodes by attempts and orphaned ids.
      assert(timedOut instanceof OperationTimedOutError, `expected a timeout, got ${String(timedOut)}`);
      assertEquals(executes(proxy) - before, 1, "a non-idempotent request is sent once");
      assertEquals(orphans(), 1, "the timed-out stream id stays orphaned while its answer may still come");
      proxy.clearRules();
      await eventually("the late response to free the orphaned stream id", () => orphans() === 0, 5_000);

      // Idempotent: the first attempt times out in the stall, a retry after it succeeds.
      proxy.setRules({ stall: "toClient" });
      setTimeout(() => proxy.clearRules(), 350);
      before = executes(proxy);
      try {
        await c.execute(insert, [2, valueOf(2)], { prepare: true, idempotent: true, timeout: 200 });
        m.notes.push(`idempotent request succeeded after ${executes(proxy) - before} attempts`);
      } catch (e) {
        m.notes.push(`idempotent request failed: ${(e as Error).name}: ${(e as Error).message.slice(0, 160)}`);
        throw new Error(`an idempotent request that timed out once was not retried to success: ${(e as Error).message}`);
      } finally {
        proxy.clearRules();
      }
      assert(executes(proxy) - before >= 2, "retried");
      await eventually("no orphan left", () => orphans() === 0, 5_000);
    });
  },
);

scenario(
  "single",
  "server errors: no retry storm under sustained Overloaded (driver)",
  `every response Overloaded while 300 idempotent inserts run 30 at a time: each settles, total attempts <= 300 x ${MAX_ATTEMPTS}`,
  async (m: Measured) => {
    await withProxiedClient("srv_storm", async (proxy, c, table) => {
      const insert = `INSERT INTO ${table} (id, v) VALUES (?, ?)`;
      await c.execute(insert, [0, valueOf(0)], { prepare: true });
      proxy.setRules({ replace: { error: { name: "Overloaded" }, times: -1, requestOpcodes: ["EXECUTE"] } });
      const before = executes(proxy);
      const errors = new ErrorTally();
      let next = 0;
      const t0 = performance.now();
      await Promise.all(Array.from({ length: 30 }, async () => {
        while (next < 300) {
          const id = next++;
          await c.execute(insert, [id, valueOf(id)], { prepare: true, idempotent: true }).catch((e) => errors.add(e));
        }
      }));
      const seconds = (performance.now() - t0) / 1000;
      const attempts = executes(proxy) - before;
      proxy.clearRules();
      m.rowsSent = 300;
      m.notes.push(
        `${attempts} attempts for 300 requests in ${seconds.toFixed(2)} s (${(attempts / seconds).toFixed(0)}/s); ${errors.summary(2)}`,
      );
      assert(attempts <= 300 * MAX_ATTEMPTS, `${attempts} attempts: a retry storm`);
      assertEquals(errors.total, 300, "every request fails while the overload lasts");
    });
  },
);

const LOAD_ROWS = 200_000;

scenario(
  "single",
  "Overloaded in mid-load: concurrency backs off (CLI load)",
  `load of ${LOAD_ROWS} rows (v4, through the proxy); for 1.5 s every write is answered Overloaded: requests in flight drop to <= half their level before, the request rate to <= half (no retry storm), and the load completes: exit 0, count and content hash exact`,
  async (m: Measured) => {
    const { table, dir, csv, proxy } = await proxiedLoadSetup("srv_overload_load", LOAD_ROWS);
    try {
      let exited = false;
      const phases = (async () => {
        const sent = () => proxy.stats().keys?.sent ?? 0;
        while (sent() < 6_000 && !exited) await sleep(5);
        if (exited) return null;
        proxy.resetPeakInFlight();
        const r0 = loadWrites(proxy);
        await sleep(1_000);
        const normal = { peak: proxy.stats().peakInFlight, rate: loadWrites(proxy) - r0 };
        proxy.setRules({ replace: { error: { name: "Overloaded" }, times: -1, requestOpcodes: ["EXECUTE", "BATCH"] } });
        // Half a second to react, then a second of measurement.
        await sleep(500);
        proxy.resetPeakInFlight();
        const r1 = loadWrites(proxy);
        await sleep(1_000);
        const overloaded = { peak: proxy.stats().peakInFlight, rate: loadWrites(proxy) - r1, loadStillRunning: !exited };
        proxy.clearRules();
        return { normal, overloaded };
      })();
      const run = await runCli(
        [
          "load",
          csv,
          "--table",
          table,
          ...cliHosts(proxy.address),
          "--protocol",
          "4",
          "--max-concurrency",
          "64",
          "--bad-dir",
          `${dir}/bad`,
          "--json",
          "--quiet",
        ],
        { maxRssMb: 2048, timeoutMs: 180_000 },
      );
      exited = true;
      const measured = await phases;
      m.rowsSent = LOAD_ROWS;
      m.peakRssMb = run.peakRssMb;
      m.duplicates = proxy.stats().keys?.duplicates ?? null;
      if (measured) {
        m.notes.push(
          `in flight ${measured.normal.peak} → ${measured.overloaded.peak} under Overloaded; requests/s ${measured.normal.rate} → ${measured.overloaded.rate}`,
        );
      }
      m.notes.push(describeRun(run).split("\n")[0]);
      assertEquals(run.code, 0, `the load did not complete cleanly: ${describeRun(run)}`);
      assert(measured !== null, `the load ended before the overload phase began: ${describeRun(run)}`);
      assert(measured.overloaded.loadStillRunning, "the load ended during the overload phase: nothing left to measure");
      assert(
        measured.overloaded.peak <= Math.max(1, measured.normal.peak / 2),
        `concurrency did not back off: ${measured.normal.peak} in flight before, ${measured.overloaded.peak} under Overloaded`,
      );
      assert(
        measured.overloaded.rate <= measured.normal.rate / 2,
        `retry storm: ${measured.overloaded.rate} requests/s under Overloaded, ${measured.normal.rate} before`,
      );
      const verify = directClient();
      try {
        await assertExactContent(verify, table, LOAD_ROWS, m);
      } finally {
        await verify.shutdown();
      }
    } finally {
      await proxy.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
);
