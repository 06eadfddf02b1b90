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
  eventually,
  freshTable,
  type Measured,
  proxiedLoadSetup,
  resentByDriver,
  runCli,
  scenario,
  sleep,
  startProxy,
  valueOf,
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
  `load of ${ROWS} rows through the proxy, every connection reset (RST) after ${
    CUT_POINTS.join(", ")
  } rows sent: exit 0, no bad row, count and content hash exact`,
  async (m: Measured) => {
    const { table, dir, csv, proxy } = await proxiedLoadSetup("reset_load", ROWS);
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

/** Bytes of SUPPORTED + READY, as the node answers a v4 OPTIONS and STARTUP. */
async function handshakeBytes(proxy: FaultProxy): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: proxy.port });
  try {
    const startup = Uint8Array.of(0, 1, 0, 11, ...new TextEncoder().encode("CQL_VERSION"), 0, 5, ...new TextEncoder().encode("3.0.0"));
    const frame = (stream: number, opcode: number, body: Uint8Array) => {
      const out = new Uint8Array(9 + body.length);
      out.set([0x04, 0, 0, stream, opcode]);
      new DataView(out.buffer).setUint32(5, body.length);
      out.set(body, 9);
      return out;
    };
    await conn.write(frame(1, 0x05, new Uint8Array(0)));
    await conn.write(frame(2, 0x01, startup));
    let total = 0;
    let frames = 0;
    const buf = new Uint8Array(65536);
    let pending = new Uint8Array(0);
    while (frames < 2) {
      const n = await conn.read(buf);
      if (n === null) throw new Error("the node closed the handshake");
      const joined = new Uint8Array(pending.length + n);
      joined.set(pending);
      joined.set(buf.subarray(0, n), pending.length);
      pending = joined;
      while (pending.length >= 9) {
        const len = 9 + new DataView(pending.buffer, pending.byteOffset).getUint32(5);
        if (pending.length < len) break;
        total += len;
        frames++;
        pending = pending.slice(len);
      }
    }
    return total;
  } finally {
    conn.close();
  }
}

scenario(
  "single",
  "control connection lost while reading metadata: the client recovers",
  "the only connection is reset; its replacement is reset again while the cluster metadata (system.local, peers, keyspaces) is being read: once the network is healthy, the client answers again within 10 s",
  async (m: Measured) => {
    const proxy = await startProxy();
    const c = clientVia(proxy, { protocolVersion: 4, requestTimeout: 2_000 });
    const events: string[] = [];
    c.on("hostDown", (_address, reason) => events.push(`down ${String(reason).slice(0, 80)}`));
    c.on("hostUp", () => events.push("up"));
    try {
      await c.connect();
      await c.execute("SELECT release_version FROM system.local");
      // Past the handshake, into the first metadata result.
      const cutAt = (await handshakeBytes(proxy)) + 64;
      const [first] = proxy.openConnections();
      proxy.setRules({ cut: { direction: "toClient", afterBytes: cutAt, how: "reset" } });
      proxy.closeConnection(first.id, "reset");
      await eventually("a reconnection cut during its metadata reads", () => proxy.stats().cuts.reset >= 2, 10_000);
      proxy.clearRules();
      let answered = false;
      const errors = new ErrorTally();
      const deadline = Date.now() + 10_000;
      while (!answered && Date.now() < deadline) {
        try {
          await c.execute("SELECT release_version FROM system.local");
          answered = true;
        } catch (e) {
          errors.add(e);
          await sleep(100);
        }
      }
      m.notes.push(
        `${proxy.stats().cuts.reset} resets; events: ${events.join(", ")}; ${
          answered ? "answered again" : `still failing: ${errors.summary(2)}`
        }`,
      );
      m.notes.push(
        `connections then: ${JSON.stringify(c.getState().connections)}; nodes: ${JSON.stringify(c.getState().nodes.map((n) => n.address))}`,
      );
      assert(answered, `the client never answered again: ${errors.summary(2)}; nodes known: ${c.getState().nodes.length}`);
    } finally {
      await c.shutdown();
      await proxy.close();
    }
  },
);
